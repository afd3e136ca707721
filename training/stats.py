"""Interval estimates shared by the evaluator's reports (:mod:`training.evaluate`,
:mod:`training.social`, :mod:`training.throne_eval`): Wilson's interval of a proportion, the same
for a share of rows that come in clusters (the games of one deal, the turns of one game), the
normal interval of a mean, the same for a mean of rows that come in clusters, and the normal
interval of a difference of two shares whose rows come in the same clusters (two arms played on
the same deals).

One variance, one quantile.  :func:`clustered_rate`, :func:`clustered_mean` and
:func:`clustered_rate_difference` share one standard error: the linearised (Taylor) one of a
ratio estimator over ``G`` clusters with the finite-cluster factor ``G / (G - 1)`` (Cochran 1977,
*Sampling Techniques*, section 6.4; the "CR1" cluster-robust variance of a mean, Cameron and
Miller 2015, "A Practitioner's Guide to Cluster-Robust Inference", *J. Human Resources* 50(2)),
and one quantile: the normal ``Z95``, not Student's ``t`` on ``G - 1`` degrees of
freedom (nor, for the rate, Korn and Graubard's degrees-of-freedom shrinking of the effective
number, which amounts to that ``t`` in Wilson's formula).  So on the same 0/1 rows and clusters the
rate's effective number gives back the mean's standard error exactly (``r (1 - r) / n_eff =
se^2``; tests/test_evaluate.py checks it down to 2 clusters).  With few clusters all three are
narrower than ``t`` would make them: ``t_{G-1}`` is above 1.96 by 15% at 10 clusters, 2.5% at 50,
1.2% at 100, 0.2% at 500 (the evaluator's cells have tens to thousands of deals).  They differ only
in shape: the rate's interval is Wilson's on the effective number (inside [0, 1], never a point
at 0 or 1) with the design effect floored at 1 (``n_eff`` at most the rows: a share never claims
more than its rows would as independent draws), the mean's and the difference's the normal
``estimate ± 1.96 se``, which narrows with a design effect below 1 (rows of one deal that move
against each other, as two seats of opposing teams)."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

__all__ = ["Z95", "wilson_interval", "clustered_rate", "clustered_share", "mean_interval", "clustered_mean",
           "clustered_rate_difference", "by_deal"]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def wilson_interval(wins: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (Wilson 1927).

    ``(p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with ``p = wins/n``;
    the default ``z`` gives the 95% interval.

    Args:
        wins: successes, ``0 <= wins <= n``.
        n: trials; ``n == 0`` gives the uninformative ``(0.0, 1.0)``.
        z: the normal quantile.

    Returns:
        ``(low, high)`` in [0, 1].

    Raises:
        ValueError: for negative counts or ``wins > n``.
    """
    if n < 0 or wins < 0 or wins > n:
        raise ValueError(f"need 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # at 0 or n wins the bound on that side is 0 or 1 exactly (the formula's rounding left ~1e-16 inside,
    # which put a rate of 0 below its own interval)
    return (0.0 if wins == 0 else max(0.0, centre - half)), (1.0 if wins == n else min(1.0, centre + half))


def _spread_seen(dev: np.ndarray, scale: np.ndarray) -> bool:
    """Whether some cluster's deviation ``dev[g]`` (a sum over its rows) is not 0: beyond the
    rounding of summing its rows, ``1e-9`` of ``scale[g]`` (its rows' largest possible sum of
    deviations).  A deviation that small would give a standard error of that order, an interval
    of zero width once printed."""
    return bool(np.any(np.abs(dev) > 1e-9 * scale))


def clustered_rate(counts: Sequence[float], totals: Sequence[float]) -> dict:
    """A share of rows that come in clusters, with a 95% interval that takes clusters, not rows,
    as the independent draws.

    The share is ``r = sum(counts) / sum(totals)`` over clusters ``g`` (a game's turns, a
    game's claims).  Its standard error is the ratio estimator's linearised one,
    ``se = sqrt(G / (G - 1) * sum((c_g - r t_g)^2)) / sum(t_g)`` over the ``G`` clusters
    with rows (Cochran 1977, *Sampling Techniques*, section 6.4); the rows are worth an
    *effective* number ``n_eff = r (1 - r) / se^2`` of independent ones (the rows over the
    design effect), at most the rows themselves, and the interval is Wilson's for
    ``r n_eff`` of ``n_eff`` (Korn and Graubard 1998), so it does not collapse at 0 or 1.
    Where the spread cannot be estimated (one cluster; every row alike: a share of 0 or 1; or
    every cluster's share the same, ``c_g = r t_g``, though rows differ: zero spread between
    clusters, which says nothing of the spread a new sample of clusters would show) the rows
    are worth the clusters, ``n_eff = G``: Wilson's interval never has zero width, so that case
    keeps an interval (the clusters' number bounds how much the rows say).
    Rows of one game are not independent (a Traitor whose cover holds on one turn mostly
    holds it on the next), and Wilson's interval over the rows is too narrow.  On 0/1 rows the
    standard error is :func:`clustered_mean`'s exactly, with the same factor and quantile (the
    module docstring).

    Args:
        counts: per cluster, the rows that count (``0 <= counts[g] <= totals[g]``).
        totals: per cluster, its rows.

    Returns:
        ``{"count", "n", "rate", "lo", "hi", "clusters", "n_eff"}``: ``count`` and ``n`` the
        summed rows, ``rate`` None and the interval ``(0, 1)`` when there are none.

    Raises:
        ValueError: for lists of different lengths, or counts outside ``[0, totals]``.
    """
    c, t = np.asarray(list(counts), dtype=float), np.asarray(list(totals), dtype=float)
    if c.shape != t.shape or np.any(c < 0) or np.any(c > t):
        raise ValueError(f"clustered_rate: need one count in [0, total] per cluster, got {c.tolist()} "
                         f"of {t.tolist()}")
    keep = t > 0
    c, t = c[keep], t[keep]
    count, n, g = float(c.sum()), float(t.sum()), int(keep.sum())
    if n == 0:
        return {"count": 0, "n": 0, "rate": None, "lo": 0.0, "hi": 1.0, "clusters": 0, "n_eff": 0.0}
    r = count / n
    n_eff = float(g)
    resid = c - r * t
    if g > 1 and 0 < r < 1 and _spread_seen(resid, t):
        var = g / (g - 1) * float(np.sum(resid ** 2)) / n ** 2
        n_eff = min(n, r * (1 - r) / var)
    lo, hi = wilson_interval(r * n_eff, n_eff)
    return {"count": int(round(count)), "n": int(round(n)), "rate": r, "lo": lo, "hi": hi, "clusters": g,
            "n_eff": n_eff}


def clustered_share(values: Sequence[float], clusters: Sequence[int]) -> dict:
    """:func:`clustered_rate` of rows given one by one: ``values`` ``(N,)`` in [0, 1] (a hit, or a
    fractional one such as a tied top-1), ``clusters`` ``(N,)`` each row's cluster (any integers).

    Raises:
        ValueError: for arrays of different lengths or values outside [0, 1].
    """
    v = np.asarray(values, dtype=float).reshape(-1)
    c = np.asarray(clusters).reshape(-1)
    if v.shape != c.shape:
        raise ValueError(f"clustered_share: need one cluster per value, got {v.size} values and {c.size} clusters")
    if v.size == 0:
        return clustered_rate([], [])
    idx = np.unique(c, return_inverse=True)[1]
    return clustered_rate(np.bincount(idx, weights=v), np.bincount(idx))


def mean_interval(values: Sequence[float], lower: float | None = None, upper: float | None = None) -> dict:
    """``{"n", "mean", "lo", "hi"}``: the mean with the normal 95% interval
    ``mean ± 1.96 s / sqrt(n)`` (``s`` the sample standard deviation), ``lo``
    clipped at ``lower`` and ``hi`` at ``upper`` when given (the range the
    quantity can take: 0 for counts, [-1, 1] for a difference of two wins);
    the interval is None for ``n < 2``, and for values that are all equal (no spread seen: the
    normal interval would be that one point, e.g. ``+0.000 [+0.000, +0.000]`` from 4 pairs of
    equal results), and everything but ``n`` for ``n == 0``."""
    v = np.asarray(list(values), dtype=float)
    n = int(v.size)
    if n == 0:
        return {"n": 0, "mean": None, "lo": None, "hi": None}
    m = float(v.mean())
    if n < 2 or float(v.min()) == float(v.max()):
        return {"n": n, "mean": m, "lo": None, "hi": None}
    half = Z95 * float(v.std(ddof=1)) / math.sqrt(n)
    lo = m - half if lower is None else max(lower, m - half)
    hi = m + half if upper is None else min(upper, m + half)
    return {"n": n, "mean": m, "lo": lo, "hi": hi}


def clustered_mean(values: Sequence[float], clusters: Sequence[int], lower: float | None = None,
                   upper: float | None = None) -> dict:
    """The mean of rows that come in clusters (a game's claims, a game's beliefs), with a normal
    95% interval that takes clusters, not rows, as the independent draws.

    ``mean = sum(v) / N`` over the ``N`` rows; its standard error is the ratio estimator's
    linearised one over the ``G`` clusters, ``se = sqrt(G / (G - 1) * sum_g (sum_{i in g}
    (v_i - mean))^2) / N`` (Cochran 1977, section 6.4; the cluster-robust standard error of a
    mean), and the interval is ``mean ± 1.96 se``, ``lo`` clipped at ``lower`` and ``hi`` at
    ``upper`` when given.  With every row its own cluster it is :func:`mean_interval`'s.
    Beliefs about the same seat on successive turns move together, so the interval over rows
    is too narrow.  The factor ``G / (G - 1)`` and the normal quantile are :func:`clustered_rate`'s
    (the module docstring: no ``t`` on ``G - 1`` degrees of freedom).

    Args:
        values: ``(N,)`` the rows' values.
        clusters: ``(N,)`` each row's cluster (any integers; equal means the same cluster).

    Returns:
        ``{"n", "mean", "lo", "hi", "clusters"}``: ``mean`` None without rows; ``lo`` and
        ``hi`` None where the spread between clusters cannot be estimated: fewer than two
        clusters, rows that are all equal (no spread seen, as in :func:`mean_interval`), or
        rows that differ but clusters whose deviations ``sum_{i in g} (v_i - mean)`` are all 0
        (zero spread between clusters: ``se`` would be 0 and the interval the point
        ``mean``, e.g. ``-0.50 [-0.50, -0.50]`` from two deals whose seat differences sum
        alike).

    Raises:
        ValueError: for ``values`` and ``clusters`` of different lengths.
    """
    v = np.asarray(list(values), dtype=float).reshape(-1)
    c = np.asarray(list(clusters)).reshape(-1)
    if v.shape != c.shape:
        raise ValueError(f"clustered_mean: need one cluster per value, got {v.size} values and {c.size} clusters")
    n = int(v.size)
    if n == 0:
        return {"n": 0, "mean": None, "lo": None, "hi": None, "clusters": 0}
    _, idx = np.unique(c, return_inverse=True)
    g = int(idx.max()) + 1
    m = float(v.mean())
    if g < 2 or float(v.min()) == float(v.max()):
        return {"n": n, "mean": m, "lo": None, "hi": None, "clusters": g}
    dev = np.bincount(idx, weights=v - m)
    if not _spread_seen(dev, np.bincount(idx) * float(np.abs(v - m).max())):
        return {"n": n, "mean": m, "lo": None, "hi": None, "clusters": g}
    half = Z95 * math.sqrt(g / (g - 1) * float(np.sum(dev ** 2))) / n
    lo = m - half if lower is None else max(lower, m - half)
    hi = m + half if upper is None else min(upper, m + half)
    return {"n": n, "mean": m, "lo": lo, "hi": hi, "clusters": g}


def clustered_rate_difference(a: dict, b: dict) -> dict:
    """The difference ``r_a - r_b`` of two shares whose rows come in the same clusters (the team
    play's two arms, played on the same deals), with a normal 95% interval that takes clusters,
    not rows, as the independent draws and pairs the arms within each cluster.

    ``r_a = sum_g c^a_g / N_a`` (likewise ``r_b``); the difference's linearised deviation of
    cluster ``g`` is ``u_g = (c^a_g - r_a t^a_g) / N_a - (c^b_g - r_b t^b_g) / N_b`` (0 for an arm
    without rows there), ``se = sqrt(G / (G - 1) * sum_g u_g^2)`` over the ``G`` clusters with rows
    in either arm (Cochran's ratio estimator, as :func:`clustered_mean`; the module docstring says
    which correction and quantile), and the interval is ``d ± 1.96 se`` clipped to [-1, 1].  Where
    every cluster gives each arm the same number of rows it is :func:`clustered_mean` of the
    clusters' differences ``c^a_g / t^a_g - c^b_g / t^b_g``, one a cluster.  Luck of the deal
    that moves both arms cancels in ``u_g``; Newcombe's interval for two independent shares
    would count it twice and miss the correlation of an arm's rows within a deal.

    Args:
        a, b: ``{cluster: (count, rows)}`` per arm, ``0 <= count <= rows`` (any hashable clusters;
            equal keys are the same cluster in both).

    Returns:
        ``{"diff", "lo", "hi", "clusters"}``: ``diff`` None where an arm has no rows; ``lo`` and
        ``hi`` None where the spread between clusters cannot be estimated (fewer than two
        clusters, or every ``u_g`` 0 up to rounding, as :func:`clustered_mean`).

    Raises:
        ValueError: for a count outside ``[0, rows]``.
    """
    for arm in (a, b):
        for key, (c, t) in arm.items():
            if not 0 <= c <= t:
                raise ValueError(f"clustered_rate_difference: need 0 <= count <= rows, got {c} of {t} in {key!r}")
    keys = [k for k in dict.fromkeys([*a, *b]) if a.get(k, (0, 0))[1] + b.get(k, (0, 0))[1] > 0]
    g = len(keys)
    n_a, n_b = (float(sum(arm[k][1] for k in keys if k in arm)) for arm in (a, b))
    if not n_a or not n_b:
        return {"diff": None, "lo": None, "hi": None, "clusters": g}
    ca, ta, cb, tb = (np.array([float(arm.get(k, (0, 0))[j]) for k in keys]) for arm in (a, b) for j in (0, 1))
    r_a, r_b = ca.sum() / n_a, cb.sum() / n_b
    d = float(r_a - r_b)
    u = (ca - r_a * ta) / n_a - (cb - r_b * tb) / n_b
    if g < 2 or not _spread_seen(u, ta / n_a + tb / n_b):
        return {"diff": d, "lo": None, "hi": None, "clusters": g}
    half = Z95 * math.sqrt(g / (g - 1) * float(np.sum(u ** 2)))
    return {"diff": d, "lo": max(-1.0, d - half), "hi": min(1.0, d + half), "clusters": g}


def by_deal(cell: dict) -> dict:
    """A cell of this module whose clusters are deals, as the reports keep it: ``clusters`` named
    ``deals``, ``n_eff`` left out."""
    out = {k: v for k, v in cell.items() if k not in ("clusters", "n_eff")}
    out["deals"] = cell["clusters"]
    return out
