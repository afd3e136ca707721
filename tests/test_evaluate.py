"""The evaluation harness (training.evaluate) and the ``treachery evaluate`` CLI."""

from __future__ import annotations

import json
import math
import os
import re

import numpy as np
import pytest

import agents
from agents.base import BaseAgent, legal_actions
from training import evaluate as ev
from training.cli import main
from treachery_env import GameConfig
from treachery_env.rules import Role, role_distribution

SMALL = GameConfig(num_players=4, starting_life=10, max_turns=60)
ROLE_NAMES = ["Leader", "Guardian", "Assassin", "Traitor"]


class _UniformBeliefAgent(BaseAgent):
    """Random play; believes every other seat is each of the four roles with 1/4
    (uses no information at all, so its deduction scores are known exactly)."""

    name = "test_uniform_belief"

    def act(self, observation, info):
        legal = legal_actions(observation)
        return int(legal[self.rng.integers(legal.size)])

    def beliefs(self):
        return {s: {r: 0.25 for r in Role} for s in range(4) if s != self.seat}


if "test_uniform_belief" not in agents.available():
    agents.register("test_uniform_belief", _UniformBeliefAgent)


def _strip_timing(res: dict) -> dict:
    res = json.loads(json.dumps(res, default=ev._json_default))
    res.pop("timing")
    return res


# --------------------------------------------------------------------------- Wilson
def test_mean_interval_is_the_normal_interval_clipped_to_the_quantitys_range():
    """``training.stats.mean_interval``: mean ± 1.96 s/sqrt(n), clipped at ``lower`` and
    ``upper`` when given (a difference of two wins lies in [-1, 1], so a paired
    comparison of few seat-games never prints an interval past +1)."""
    from training.stats import mean_interval

    v = [1.0, 1.0, 1.0, 0.0]
    half = 1.959964 * np.std(v, ddof=1) / 2
    free = mean_interval(v)
    assert free["mean"] == 0.75 and free["lo"] == pytest.approx(0.75 - half)
    assert free["hi"] == pytest.approx(0.75 + half) and free["hi"] > 1
    clipped = mean_interval(v, lower=-1.0, upper=1.0)
    assert clipped["hi"] == 1.0 and clipped["lo"] == free["lo"]
    assert mean_interval([-1.0, -1.0, 0.0], lower=-1.0, upper=1.0)["lo"] == -1.0
    assert mean_interval([0.5]) == {"n": 1, "mean": 0.5, "lo": None, "hi": None}
    # no spread seen: no interval (a trial's 4 equal pairs printed "+0.000 [+0.000, +0.000]")
    assert mean_interval([0.0] * 4, lower=-1.0, upper=1.0) == {"n": 4, "mean": 0.0, "lo": None, "hi": None}
    assert mean_interval([]) == {"n": 0, "mean": None, "lo": None, "hi": None}


def test_a_clustered_rate_takes_games_not_rows_as_the_draws():
    """``clustered_rate`` (the bluffing and false-claim shares): rows that are independent (one a
    cluster) give about Wilson's interval; rows that move together within a game give Wilson's on
    the number of games (Cochran's ratio estimator, worked by hand here); one cluster, or a rate of
    0 or 1 (no spread to estimate), gives Wilson's on the number of clusters; bad counts are refused."""
    from training.stats import clustered_rate
    rng = np.random.default_rng(0)
    hits = (rng.random(400) < 0.3).astype(float)
    one = clustered_rate(hits, np.ones(400))
    assert one["clusters"] == 400 and one["n_eff"] == pytest.approx(400 * 399 / 400)
    assert (one["lo"], one["hi"]) == pytest.approx(ev.wilson_interval(hits.sum(), 400), abs=2e-4)
    together = clustered_rate([50] * 30 + [0] * 70, [50] * 100)    # 100 games of 50 turns: whole games hold
    var = 100 / 99 * (30 * (50 - 15) ** 2 + 70 * 15 ** 2) / 5000 ** 2
    assert together["rate"] == 0.3 and together["n_eff"] == pytest.approx(0.21 / var)   # 99 games' worth
    assert (together["lo"], together["hi"]) == pytest.approx(ev.wilson_interval(0.3 * 0.21 / var, 0.21 / var))
    assert together["hi"] - together["lo"] > 5 * (ev.wilson_interval(1500, 5000)[1] - ev.wilson_interval(1500, 5000)[0])
    assert clustered_rate([2], [3])["lo"] == pytest.approx(ev.wilson_interval(2 / 3, 1)[0])
    every = clustered_rate([5, 7, 0], [5, 7, 0])                  # the empty cluster does not count
    assert (every["lo"], every["n"], every["n_eff"]) == (pytest.approx(ev.wilson_interval(2, 2)[0]), 12, 2)
    assert clustered_rate([], [])["rate"] is None
    from training.stats import clustered_share      # the same, from rows and their clusters
    share = clustered_share([1, 0, 0.5, 1, 1], [7, 7, 3, 3, 3])
    assert share == clustered_rate([2.5, 1.0], [3, 2]) and clustered_share([], [])["rate"] is None
    with pytest.raises(ValueError, match="one cluster per value"):
        clustered_share([1, 0], [1])
    for counts, totals in (([1, 2], [1]), ([3], [2]), ([-1], [2])):
        with pytest.raises(ValueError, match="need one count in"):
            clustered_rate(counts, totals)


def test_a_clustered_mean_takes_games_not_rows_as_the_draws():
    """``clustered_mean`` (the talk shifts, the deduction scores): rows each their own cluster give
    ``mean_interval`` exactly; rows equal within a game give the normal interval of the games'
    means (worked by hand), several times wider than the interval over rows; one cluster gives no
    interval; clipping and mismatched lengths as documented."""
    from training.stats import clustered_mean, mean_interval
    rng = np.random.default_rng(1)
    v = rng.normal(size=300)
    own, plain = clustered_mean(v, np.arange(300)), mean_interval(v)
    assert (own["mean"], own["lo"], own["hi"]) == pytest.approx((plain["mean"], plain["lo"], plain["hi"]))
    assert own["clusters"] == 300
    per_game = rng.normal(size=40)                           # 40 games of 25 equal rows
    rows, games = np.repeat(per_game, 25), np.repeat(np.arange(40) * 7 + 3, 25)   # any cluster labels
    c = clustered_mean(rows, games)
    half = 1.959964 * np.sqrt(40 / 39 * np.sum((per_game - per_game.mean()) ** 2)) / 40
    assert c["clusters"] == 40 and c["n"] == 1000
    assert (c["lo"], c["hi"]) == pytest.approx((per_game.mean() - half, per_game.mean() + half), rel=1e-6)
    naive = mean_interval(rows)
    assert c["hi"] - c["lo"] > 4 * (naive["hi"] - naive["lo"])
    assert clustered_mean([0.2, 0.4], [5, 5]) == {"n": 2, "mean": pytest.approx(0.3), "lo": None, "hi": None,
                                                  "clusters": 1}
    assert clustered_mean([], [])["mean"] is None
    assert clustered_mean([1.0, 1.0, 0.0, 0.0], [0, 0, 1, 1], lower=0.0, upper=1.0)["hi"] == 1.0
    with pytest.raises(ValueError, match="one cluster per value"):
        clustered_mean([1.0, 2.0], [0])
    # as the tables print it: games named, and no "-0.000" for a tiny negative
    assert ev._fm({"n": 3, "mean": -1e-5, "lo": -2e-4, "hi": 0.01, "clusters": 2}, 3) == "0.000 [0.000, 0.010] n=3 in 2 games"
    assert ev._fm({"n": 2, "mean": 0.5, "lo": None, "hi": None, "clusters": 1}) == "0.50 n=2 in 1 game"


def test_a_clustered_rate_and_mean_of_the_same_rows_share_one_standard_error():
    """A share is a mean of 0/1 rows: on the same rows and clusters ``clustered_rate``'s effective
    number gives back ``clustered_mean``'s standard error exactly, down to 2 clusters (one factor
    G/(G-1), one normal quantile, no t on G-1 degrees of freedom in either; training/stats.py's
    docstring); their intervals differ only in shape (Wilson's on the effective number against the
    normal mean +- 1.96 se), which agree as the effective number grows."""
    from training.stats import Z95, clustered_mean, clustered_share
    rng = np.random.default_rng(3)
    cases = [([1, 1, 1, 0, 0, 0, 0], [0] * 4 + [1] * 3),                  # 3 of 4, 0 of 3
             ([1, 1, 1, 0, 0, 1, 0, 0, 0], [5] * 3 + [6] * 2 + [7] * 4)]   # 3 of 3, 0 of 2, 1 of 4
    for g in (5, 40):                                   # clusters mostly won or mostly lost: a design effect above 1
        sizes = rng.integers(3, 9, size=g)
        rows = np.concatenate([(rng.random(k) < (0.9 if j % 2 else 0.1)).astype(float) for j, k in enumerate(sizes)])
        cases.append((rows, np.repeat(np.arange(g) * 11, sizes)))
    for rows, clusters in cases:
        rate, mean = clustered_share(rows, clusters), clustered_mean(rows, clusters)
        g = rate["clusters"]
        se = (mean["hi"] - mean["lo"]) / (2 * Z95)
        assert rate["n_eff"] < rate["n"]
        assert math.sqrt(rate["rate"] * (1 - rate["rate"]) / rate["n_eff"]) == pytest.approx(se, rel=1e-9), g
    # the one difference by design: a design effect below 1 (rows of a cluster that move against each
    # other) narrows the mean's interval, while the share's effective number stops at its rows
    # (six clusters of one win and one loss, then a win and a loss alone: 14 rows, deviations 0 but
    # +-1/2, se^2 = 8/7 * 1/2 / 14^2 against 1/4 / 14 over the rows)
    rows, clusters = [1, 0] * 6 + [1, 0], list(np.repeat(np.arange(6), 2)) + [6, 7]
    against = clustered_mean(rows, clusters)
    assert (against["lo"], against["hi"]) == pytest.approx((0.5 - Z95 * math.sqrt(4 / 7) / 14,
                                                           0.5 + Z95 * math.sqrt(4 / 7) / 14))
    capped = clustered_share(rows, clusters)
    assert capped["n_eff"] == 14 and (capped["lo"], capped["hi"]) == ev.wilson_interval(7, 14)


def test_clustered_intervals_need_spread_between_clusters():
    """Cochran's cluster-robust standard error is 0 when every cluster's deviation from the mean
    sums to 0, though the rows differ (two deals whose seat differences sum alike: a Throne Magic
    trial printed ``-0.50 [-0.50, -0.50]``): ``clustered_mean`` gives no interval there, exactly or
    up to float rounding, and ``clustered_rate`` counts the rows as the clusters, as for its other
    cases without an estimable spread.  Where the spread is estimable the intervals are the formula's
    (worked by hand)."""
    from training.stats import Z95, clustered_mean, clustered_rate, clustered_share
    # two deals of four seat differences, each summing to -2: mean -0.5, deviations 0 and 0
    alike = clustered_mean([-1, -1, 0, 0, 0, -1, -1, 0], [0] * 4 + [1] * 4, lower=-1.0, upper=1.0)
    assert alike == {"n": 8, "mean": -0.5, "lo": None, "hi": None, "clusters": 2}
    assert clustered_mean([1, -1, 0, 0], [0, 0, 1, 1]) == {"n": 4, "mean": 0.0, "lo": None, "hi": None, "clusters": 2}
    # deviations 0 in exact arithmetic, about 1e-17 in floats: still none (not a point interval)
    assert clustered_mean([0.1, 0.2, 0.3, 0.0], [0, 0, 1, 1])["lo"] is None
    # estimable: clusters {1, 0}, {0, 0}, {1, 1}: mean 1/2, deviations 0, -1, +1,
    # se = sqrt(3/2 * 2) / 6; one cluster's deviation of 0 does not matter
    est = clustered_mean([1, 0, 0, 0, 1, 1], [0, 0, 1, 1, 2, 2])
    half = Z95 * math.sqrt(3 / 2 * 2) / 6
    assert (est["mean"], est["lo"], est["hi"]) == pytest.approx((0.5, 0.5 - half, 0.5 + half))
    assert est["clusters"] == 3
    # a share: games {1 of 2}, {2 of 4}: every game's share 1/2, the spread between games unseen,
    # so Wilson's interval on the 2 games, not on the 6 rows
    even = clustered_rate([1, 2], [2, 4])
    assert (even["rate"], even["n_eff"], even["n"]) == (0.5, 2.0, 6)
    assert (even["lo"], even["hi"]) == pytest.approx(ev.wilson_interval(1, 2))
    assert clustered_share([1, 0, 1, 1, 0, 0], [4, 4, 9, 9, 9, 9]) == even
    # estimable: {0 of 2}, {3 of 4}: r = 1/2, residuals c - r t = -1, +1, var = 2/1 * 2 / 6^2 = 1/9,
    # n_eff = r (1 - r) / var = 2.25
    split = clustered_rate([0, 3], [2, 4])
    assert split["n_eff"] == pytest.approx(2.25)
    assert (split["lo"], split["hi"]) == pytest.approx(ev.wilson_interval(1.125, 2.25))


def test_wilson_interval_known_values():
    lo, hi = ev.wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(1.959964**2 / (10 + 1.959964**2), abs=1e-6)  # 0.2775
    assert hi == pytest.approx(0.2775, abs=1e-4)
    assert ev.wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert ev.wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert ev.wilson_interval(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert ev.wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    # the 99% interval is wider
    lo99, hi99 = ev.wilson_interval(50, 100, z=2.5758)
    assert lo99 < 0.4038 and hi99 > 0.5962
    assert ev.wilson_interval(0, 0) == (0.0, 1.0)
    # no rounding left inside the exact bound at 0 or n wins (0 of 3 gave a lower end 5.6e-17 above 0, so a
    # rate of 0 fell below its own interval and a plot's error bar went negative)
    for n in range(1, 60):
        assert ev.wilson_interval(0, n)[0] == 0.0 and ev.wilson_interval(n, n)[1] == 1.0
    with pytest.raises(ValueError):
        ev.wilson_interval(11, 10)
    with pytest.raises(ValueError):
        ev.wilson_interval(-1, 10)


# --------------------------------------------------------------------------- schedules
@pytest.mark.parametrize("specs,n,period", [(["a", "b"], 5, 5), (["a", "b"], 4, 2),
                                            (["a", "b", "c"], 4, 4), (["a", "b", "c"], 6, 3)])
def test_rotation_schedule_every_agent_in_every_seat_same_seed(specs, n, period):
    ents = ev.entrants_from_specs(specs)
    tasks = ev.rotation_schedule(ents, n, num_deals=6, seed=3)
    assert len(tasks) == 6 * period == 6 * ev.games_per_deal("rotate", len(specs), n)
    assert [t.index for t in tasks] == list(range(len(tasks)))
    seeds = {}
    for t in tasks:
        seeds.setdefault(t.deal, set()).add(t.env_seed)
    assert all(len(s) == 1 for s in seeds.values())
    assert len({next(iter(s)) for s in seeds.values()}) == 6        # distinct deals
    for d in range(6):
        games = [t for t in tasks if t.deal == d]
        assert len({t.lineup for t in games}) == period           # no repeated line-up
        for seat in range(n):
            assert {t.lineup[seat] for t in games} == set(specs)  # everyone sits everywhere
    # deterministic, and the seed matters
    assert tasks == ev.rotation_schedule(ents, n, 6, seed=3)
    assert tasks[0].env_seed != ev.rotation_schedule(ents, n, 6, seed=4)[0].env_seed


def test_rotation_rotates_dealt_roles_with_the_deal():
    """Same env seed -> same identities per seat, so rotating seats rotates roles."""
    ents = ev.entrants_from_specs(["random", "random"])
    tasks = ev.rotation_schedule(ents, 5, num_deals=2, seed=0)
    cfg = GameConfig(num_players=5, starting_life=10, max_turns=30)
    recs = ev.run_tasks(tasks, cfg, workers=1, progress=False)
    for d in range(2):
        rs = [r for r in recs if r.task.deal == d]
        assert len(rs) == 5
        assert all(r.dealt_roles == rs[0].dealt_roles for r in rs)
        for e in ents:
            roles = sorted(r.dealt_roles[s] for r in rs for s in range(5) if r.task.lineup[s] == e.label)
            # in a 5-game rotation each entrant sits in each seat (and role) of the deal
            per_seat = [sum(1 for r in rs if r.task.lineup[s] == e.label) for s in range(5)]
            assert all(c >= 1 for c in per_seat)
            assert set(roles) == set(rs[0].dealt_roles)


def test_substitution_schedule_and_delta():
    ents = ev.entrants_from_specs(["random", "random"])
    res = ev.evaluate(["random", "random"], games=18, seed=1, mode="substitution", reference="random",
                      config=SMALL, progress=False)
    assert res["meta"]["games_per_deal"] == 1 + 4 and res["meta"]["deals"] == 4
    assert res["summary"]["games"] == 20
    kinds = [g["kind"] for g in res["games"]]
    assert kinds.count("reference") == 4 and kinds.count("substitute") == 16
    for g in res["games"]:
        ref = next(x for x in res["games"] if x["deal"] == g["deal"] and x["kind"] == "reference")
        assert g["env_seed"] == ref["env_seed"] and g["dealt_roles"] == ref["dealt_roles"]
    sub = res["substitution"]
    assert sub["reference"] == "random"
    cand = sub["candidates"]["random#2"]
    assert cand["overall"]["pairs"] == 16
    assert sum(cand[r]["pairs"] for r in ROLE_NAMES) == 16
    # the delta is the mean paired difference, recomputed from the games
    diffs = []
    for g in res["games"]:
        if g["kind"] != "substitute":
            continue
        s = g["lineup"].index("random#2")
        ref = next(x for x in res["games"] if x["deal"] == g["deal"] and x["kind"] == "reference")
        diffs.append(int(s in g["winners"]) - int(s in ref["winners"]))
    assert cand["overall"]["delta"] == pytest.approx(np.mean(diffs))
    with pytest.raises(ValueError):
        ev.substitution_schedule(ents[0], [], 4, 1)
    with pytest.raises(ValueError):
        ev.evaluate(["random"], games=5, mode="substitution", config=SMALL, progress=False)


def test_a_bots_seeds_do_not_depend_on_its_place_among_the_entrants():
    """A candidate's seed was drawn from its index in the list (substitution ``1 + ci``, cross-play
    ``ai, bi``, team play ``1 + ci``), so the same bot played other games when the entrants were named
    in another order.  Now the seats of a game have the same seeds whatever the order, and the first
    candidate's are the ones it had (the results of a one-candidate evaluation are unchanged)."""
    a, b, c, ref = (ev.Entrant(x, x) for x in ("a", "b", "c", "ref"))
    config = GameConfig(num_players=5, max_turns=5)

    def seeds(tasks):
        return {(t.deal, t.kind, t.focus_seat, t.focus, t.lineup): t.agent_seeds for t in tasks}

    for schedule in (lambda cands: ev.substitution_schedule(ref, cands, 5, 3, seed=7),
                     lambda cands: ev.crossplay_schedule([ref, *cands], config, 2, seed=7),
                     lambda cands: ev.teammate_schedule(ref, cands, config, 2, seed=7)):
        assert seeds(schedule([a, b, c])) == seeds(schedule([c, a, b])) == seeds(schedule([b, c, a]))
    for t in ev.substitution_schedule(ref, [a, b], 5, 3, seed=7):
        if t.kind == "substitute":
            s = t.focus_seat
            assert t.agent_seeds[s] == ev._seed(7, t.deal, 1, s, 0xB07)        # the first candidate's, as before
            assert t.agent_seeds[:s] + t.agent_seeds[s + 1:] == tuple(ev._seed(7, t.deal, 0, q, 0xB07)
                                                                      for q in range(5) if q != s)


def test_beats_in_every_role_judges_the_roles_the_table_deals():
    """A role no seat was dealt (the Guardian at 4 players, the roles left out by ``--roles``) has no
    delta; it counted as not beaten, so at 4 players "in every role" (``treachery train
    --evaluate``'s verdict) could never be yes."""
    def cell(lo):
        return {"pairs": 0 if lo is None else 9, "deals": 0 if lo is None else 3, "delta": None if lo is None else 0.3,
                "lo": lo, "hi": None if lo is None else 0.5}

    def result(assassin_lo):
        roles = {"Leader": cell(0.1), "Guardian": cell(None), "Assassin": cell(assassin_lo), "Traitor": cell(0.2)}
        return {"substitution": {"reference": "random", "candidates": {"x": {**roles, "overall": cell(0.1)}}}}

    assert ev.beats_in_every_role(result(0.05), "x") == {"Leader": True, "Assassin": True, "Traitor": True,
                                                         "all": True}
    assert ev.beats_in_every_role(result(-0.05), "x") == {"Leader": True, "Assassin": False, "Traitor": True,
                                                          "all": False}
    real = ev.evaluate(["random", "random"], games=10, seed=1, mode="substitution", reference="random",
                       config=SMALL, progress=False, observer=False, record_beliefs=False)
    assert "Guardian" not in ev.beats_in_every_role(real, "random#2")       # 4 players: no Guardian


def _cochran(diffs, deals, lower=-1.0, upper=1.0):
    """Cochran's cluster-robust 95% interval of the mean of ``diffs``, clusters ``deals``, written out
    here independently of ``training.stats``: ``mean ± 1.96 sqrt(G/(G-1) sum_g dev_g^2) / n``, clipped."""
    from training.stats import Z95
    n, m = len(diffs), sum(diffs) / len(diffs)
    dev: dict = {}
    for d, g in zip(diffs, deals):
        dev[g] = dev.get(g, 0.0) + (d - m)
    half = Z95 * math.sqrt(len(dev) / (len(dev) - 1) * sum(x * x for x in dev.values())) / n
    return max(lower, m - half), min(upper, m + half), len(dev)


def test_the_substitution_delta_takes_deals_not_pairs_as_the_draws():
    """A 5-player deal's two Assassin seats share its reference game (the same outcome for both), so
    their pairs are not independent: the delta's interval is Cochran's over deals (worked by hand
    here), wider than the normal interval over the pairs; with one pair a deal it is that normal
    interval exactly."""
    from training.stats import Z95, mean_interval
    roles = (int(Role.LEADER), int(Role.GUARDIAN), int(Role.ASSASSIN), int(Role.ASSASSIN), int(Role.TRAITOR))
    ref_line = ("ref",) * 5

    def game(seed, winners, focus=-1):
        lineup = ref_line if focus < 0 else tuple("cand" if s == focus else "ref" for s in range(5))
        return ev.Outcome(seed, "reference" if focus < 0 else "substitute", lineup, roles, frozenset(winners),
                          focus, False, 10, ev.deal_key(seed, 0, seed))

    outcomes = [game(101, {0, 1}), game(101, {2, 3}, 2), game(101, {2, 3}, 3), game(101, {0, 1}, 0),
                game(202, {2, 3}), game(202, {0, 1}, 2), game(202, {2, 3}, 3),
                game(303, {4}), game(303, {4}, 2), game(303, {2, 3}, 3),
                game(404, {0, 1}), game(404, {0, 1}, 2), game(404, {0, 1}, 3)]
    sub = ev._outcome_metrics(outcomes, ["ref", "cand"])["substitution"]["candidates"]["cand"]
    # Assassin pairs by deal: 101 (1-0, 1-0: one reference outcome for both), 202 (0-1, 1-1), 303 (0-0, 1-0),
    # 404 (0-0, 0-0); differences [1, 1], [-1, 0], [0, 1], [0, 0]: mean 2/8, deal deviations
    # 2 - 2/4 = 1.5, -1.5, 0.5, -0.5; se = sqrt(4/3 * 5) / 8
    a = sub["Assassin"]
    half = Z95 * math.sqrt(4 / 3 * (1.5 ** 2 + 1.5 ** 2 + 0.5 ** 2 + 0.5 ** 2)) / 8
    assert (a["pairs"], a["deals"], a["candidate_rate"], a["reference_rate"]) == (8, 4, 4 / 8, 2 / 8)
    assert (a["delta"], a["lo"], a["hi"]) == pytest.approx((0.25, 0.25 - half, 0.25 + half))
    naive = mean_interval([1, 1, -1, 0, 0, 1, 0, 0])
    assert a["hi"] - a["lo"] > 1.25 * (naive["hi"] - naive["lo"])       # 0.633 against 0.490 a side
    # overall adds deal 101's Leader pair (1-1): deal sums 2, -1, 1, 0 of 3, 2, 2, 2 pairs, mean 2/9
    dev = [2 - 3 * 2 / 9, -1 - 2 * 2 / 9, 1 - 2 * 2 / 9, 0 - 2 * 2 / 9]
    half = Z95 * math.sqrt(4 / 3 * sum(x * x for x in dev)) / 9
    o = sub["overall"]
    assert (o["pairs"], o["deals"]) == (9, 4)
    assert (o["delta"], o["lo"], o["hi"]) == pytest.approx((2 / 9, 2 / 9 - half, 2 / 9 + half))
    assert sub["Leader"] == {"pairs": 1, "deals": 1, "candidate_rate": 1.0, "reference_rate": 1.0, "delta": 0.0,
                             "lo": None, "hi": None}
    assert sub["Guardian"]["pairs"] == sub["Guardian"]["deals"] == 0 and sub["Guardian"]["delta"] is None
    assert ev.format_delta(a) == f"+0.250 [{a['lo']:+.3f}, {a['hi']:+.3f}] n=8/4"
    assert ev.format_delta({k: v for k, v in a.items() if k != "deals"}).endswith("] n=8")   # an older file
    # one pair a deal: the normal interval over the pairs, exactly
    rng = np.random.default_rng(3)
    cand, ref = rng.integers(0, 2, 200), rng.integers(0, 2, 200)
    one = ev._delta([(int(c), int(r), 1000 + 7 * i) for i, (c, r) in enumerate(zip(cand, ref))])
    plain = mean_interval(cand - ref, lower=-1.0, upper=1.0)
    assert one["deals"] == 200 and one["delta"] == pytest.approx(plain["mean"], abs=1e-15)
    assert (one["lo"], one["hi"]) == pytest.approx((plain["lo"], plain["hi"]), rel=1e-12, abs=1e-15)


def test_win_rates_take_deals_not_seat_games_as_the_draws():
    """Two Assassin seats of one game win or lose together, and the seat-games of one deal share its
    cards: a win rate's interval is Wilson's on the effective number of seat-games of Cochran's ratio
    estimator over deals (worked by hand), wider than Wilson's on the seat-games."""
    roles = (int(Role.LEADER), int(Role.GUARDIAN), int(Role.ASSASSIN), int(Role.ASSASSIN), int(Role.TRAITOR))
    line = ("b", "b", "a", "a", "b")
    outcomes = [ev.Outcome(1, "rotate", line, roles, frozenset({2, 3}), -1, False, 9, ev.deal_key(1, 0, 1)),
                ev.Outcome(2, "rotate", line, roles, frozenset({0, 1}), -1, False, 9, ev.deal_key(2, 0, 2)),
                ev.Outcome(3, "rotate", ("b", "b", "a", "b", "b"), roles, frozenset({4}), -1, False, 9,
                           ev.deal_key(3, 0, 3)),
                ev.Outcome(3, "rotate", ("b", "b", "b", "a", "a"), roles, frozenset({2, 3}), -1, False, 9,
                           ev.deal_key(3, 0, 3))]
    wr = ev._outcome_metrics(outcomes, ["a", "b"])["winrates"]["a"]
    # a's Assassin seat-games by deal: 2 of 2, 0 of 2, 1 of 2 (deal 3: lost in one game, won in the
    # other); rate 1/2, residuals c - r t = 1, -1, 0, var = 3/2 * 2 / 6^2 = 1/12, n_eff = 0.25 / var = 3
    a = wr["roles"]["Assassin"]
    assert (a["wins"], a["games"], a["deals"], a["rate"]) == (3, 6, 3, 0.5)
    assert (a["lo"], a["hi"]) == pytest.approx(ev.wilson_interval(1.5, 3))
    assert a["hi"] - a["lo"] > ev.wilson_interval(3, 6)[1] - ev.wilson_interval(3, 6)[0]
    assert wr["roles"]["Leader"] == {"wins": 0, "games": 0, "rate": None, "lo": 0.0, "hi": 1.0, "deals": 0}
    assert ev._fmt(a) == f"0.500 [{a['lo']:.3f}, {a['hi']:.3f}] n=6/3"
    assert ev._fmt({k: v for k, v in a.items() if k != "deals"}).endswith("] n=6")       # an older file
    # one seat-game a deal: n_eff = n (n - 1) / n, about Wilson's on the seat-games
    one = ev._deal_rate({seed: [seed % 3 == 0, 1] for seed in range(300)})
    assert (one["lo"], one["hi"]) == pytest.approx(ev.wilson_interval(100, 300), abs=2e-3)


def test_identity_pool_takes_comma_separated_rarities_on_the_command_line(tmp_path, capsys):
    """``--identity-pool uncommon,special`` (evaluate's, play's and serve's option) is the list of
    rarities GameConfig takes, as its help says, not refused as an unknown pool; a pool's name is
    still a pool; a config of such a pool is typed back as that list (:func:`table.options.game_options`)."""
    import argparse

    from table.options import add_game_arguments, game_config_from_args, game_options

    out = tmp_path / "res"
    assert main(["evaluate", "--players", "4", "--max-turns", "4", "--games", "2", "--agents", "random,random",
                 "--identity-pool", "Uncommon, special", "--out", str(out), "--no-progress"]) == 0, \
        capsys.readouterr().err
    res = json.loads((out / "results.json").read_text())
    assert res["meta"]["config"]["identity_pool"] == ["uncommon", "special"]
    parser = argparse.ArgumentParser()
    add_game_arguments(parser)
    assert "or comma-separated rarities from uncommon, rare, mythic, special" in " ".join(parser.format_help().split())
    config = game_config_from_args(parser.parse_args(["--identity-pool", "mythic,special"]))
    assert config.identity_pool == ("mythic", "special")
    assert game_options(config)[2:] == ["--identity-pool", "mythic,special"]
    assert game_config_from_args(parser.parse_args(["--identity-pool", "rare"])).identity_pool == ("uncommon", "rare")


def test_evaluate_substitution_clusters_the_delta_by_deal(tmp_path, capsys):
    """``treachery evaluate --mode substitution`` at 5 players (two Assassin seats a deal): every
    substitution cell of results.json is Cochran's interval over the deals of its own games' pairs,
    and results.md and the console say the intervals are clustered by deal."""
    out = tmp_path / "sub5"
    assert main(["evaluate", "--players", "5", "--games", "36", "--agents", "heuristic,random", "--mode",
                 "substitution", "--reference", "random", "--starting-life", "10", "--max-turns", "30",
                 "--no-progress", "--no-observer", "--no-beliefs", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    res = json.loads((out / "results.json").read_text())
    assert res["meta"]["deals"] == 6
    refs = {g["env_seed"]: g for g in res["games"] if g["kind"] == "reference"}
    pairs: dict = {}
    for g in res["games"]:
        if g["kind"] == "substitute":
            s = g["focus_seat"]
            d = int(s in g["winners"]) - int(s in refs[g["env_seed"]]["winners"])
            for key in (g["dealt_roles"][s], "overall"):
                pairs.setdefault(key, []).append((d, g["env_seed"]))
    assert len(pairs["Assassin"]) == 12 and len(pairs["overall"]) == 30
    cells = res["substitution"]["candidates"]["heuristic"]
    checked = 0
    for key, ps in pairs.items():
        c = cells[key]
        diffs, deals = [d for d, _ in ps], [e for _, e in ps]
        assert (c["pairs"], c["deals"]) == (len(ps), len(set(deals)))
        assert c["delta"] == pytest.approx(sum(diffs) / len(diffs))
        if c["lo"] is not None:
            lo, hi, _ = _cochran(diffs, deals)
            assert (c["lo"], c["hi"]) == pytest.approx((lo, hi))
            checked += 1
    assert checked >= 2 and cells["overall"]["lo"] is not None
    md = (out / "results.md").read_text()
    assert "normal 95% interval clustered by deal" in md and ev.format_delta(cells["overall"]) in md
    assert "n=30/6 |" in ev.substitution_table(res)
    assert "[95% interval clustered by deal] n=pairs/deals:" in text


def test_games_of_whole_deals_are_not_said_rounded_up_when_roles_play_fewer(capsys):
    """With ``--roles`` the games played are fewer than ``--games``: the line on stderr says why, and
    says ``rounded up`` only where ``--games`` was not whole deals already (20 is 4 deals of 5 games
    at 4 players; it said "--games 20 rounded up to whole deals of 5 games")."""
    kw = dict(config=SMALL, seed=3, mode="substitution", reference="heuristic", progress=False,
              record_beliefs=False, observer=False, roles=["Assassin"])
    ev.evaluate(["random", "heuristic"], games=20, **kw)
    assert capsys.readouterr().err == ("12 games: 4 deals (--games 20; only the seats dealt assassin are played, "
                                       "3 games a deal)\n")
    ev.evaluate(["random", "heuristic"], games=18, **kw)
    assert capsys.readouterr().err == ("12 games: 4 deals (--games 18 rounded up to whole deals of 5 games; only the "
                                       "seats dealt assassin are played, 3 games a deal)\n")


def test_substitution_limited_to_roles_plays_those_seats_of_the_whole_tournament(tmp_path, capsys):
    """``roles`` (``--roles``): the candidates take only the seats dealt those roles, each game
    the whole tournament's game of that deal and seat (same lineup, seeds, winners); the
    role's delta is the whole tournament's; ``treachery compare`` pairs it with a whole
    evaluation; bad roles and pooling with a whole evaluation are one-line errors."""
    kw = dict(config=SMALL, seed=3, mode="substitution", reference="heuristic", progress=False,
              record_beliefs=False, observer=False)
    whole = ev.evaluate(["random", "heuristic"], games=20, out_dir=tmp_path / "whole", **kw)
    part = ev.evaluate(["random", "heuristic"], games=20, roles=["Assassin"], out_dir=tmp_path / "part", **kw)
    # the deals of the 20-game tournament; 4 players deal two Assassins: 1 + 2 games a deal
    assert part["meta"]["deals"] == whole["meta"]["deals"] == 4
    assert part["meta"]["games_per_deal"] == 3 and part["meta"]["games"] == 12
    assert part["meta"]["roles"] == ["Assassin"] and "roles" not in whole["meta"]
    assert ev.deals_text(part["meta"]) == "seed 3, only the seats dealt Assassin"
    named = ev.evaluate(["random", "heuristic"], games=20, roles=" assassin", **kw)      # a string: names by commas
    assert named["meta"]["roles"] == ["Assassin"] and named["summary"] == part["summary"]
    every = ev.evaluate(["random", "heuristic"], games=5, roles=["traitor", "leader", "assassin"], **kw)
    assert "roles" not in every["meta"] and every["meta"]["games"] == 5      # every role the deck deals: the whole

    def key(g):
        return g["env_seed"], tuple(g["lineup"]), g["kind"], tuple(g["winners"]), tuple(g["dealt_roles"])
    subs = [g for g in part["games"] if g["kind"] == "substitute"]
    assert len(subs) == 8
    assert all(g["dealt_roles"][g["lineup"].index("random")] == "Assassin" for g in subs)
    assert {key(g) for g in part["games"]} <= {key(g) for g in whole["games"]}
    cand, cand_whole = part["substitution"]["candidates"]["random"], whole["substitution"]["candidates"]["random"]
    assert cand["Assassin"] == cand_whole["Assassin"] and cand["Assassin"]["pairs"] == 8
    assert cand["Leader"]["pairs"] == 0 and cand["overall"] == cand["Assassin"]
    assert "took only the seats dealt Assassin" in (tmp_path / "part" / "results.md").read_text()
    assert main(["compare", str(tmp_path / "whole"), str(tmp_path / "part")]) == 0
    out = capsys.readouterr().out
    assert "only the 8 seat-games of deals in both are compared" in out and "AFTER evaluated only some roles" in out
    with pytest.raises(ValueError, match=r"differs from .* in the roles evaluated \(--roles: every role vs "
                                         r"Assassin\)"):
        ev.pool_results([part, whole])
    leader = ev.evaluate(["random", "heuristic"], games=20, roles=["leader"], **kw)
    with pytest.raises(ValueError, match=r"share deals but no seat-game.*--roles: Assassin vs Leader"):
        ev.paired_delta(part, leader)
    for roles, msg in ((["wizard"], "unknown role 'wizard'"), ([], "name at least one role"),
                       (["traitor", "Traitor"], "roles: traitor named twice")):
        with pytest.raises(ValueError, match=msg):
            ev.evaluate(["random", "heuristic"], games=3, roles=roles, **kw)
    with pytest.raises(ValueError, match="identity deck .* deals none of them"):
        ev.evaluate(["random", "heuristic"], games=3, roles=["guardian"], **kw)      # 4 players: no Guardian
    with pytest.raises(ValueError, match="roles limit the seats of --mode substitution"):
        ev.evaluate(["random", "heuristic"], games=3, roles=["leader"], **{**kw, "mode": "rotate"})
    capsys.readouterr()         # the evaluations above said on stderr which games they played
    for roles, msg in (("guardian", "roles guardian: this game's identity deck (its players, variant and role "
                                    "counts) deals none of them; it deals leader, assassin, traitor"),
                       ("assassin,", "--roles: 'assassin,' has an empty role name; give roles separated by commas"),
                       ("Traitor, traitor", "--roles: traitor named twice"),
                       ("wizard", "--roles: unknown role 'wizard'")):
        assert main(["evaluate", "--agents", "random,heuristic", "--mode", "substitution", "--players", "4",
                     "--roles", roles, "--out", str(tmp_path / "bad"), "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1, err
    assert not (tmp_path / "bad").exists()


# --------------------------------------------------------------------------- tournament + files
def _check_counts(res: dict, n: int):
    games = res["summary"]["games"]
    dist = role_distribution(n)
    wr = res["winrates"]
    assert sum(w["overall"]["games"] for w in wr.values()) == games * n
    for lab, w in wr.items():
        assert sum(w["roles"][r]["games"] for r in ROLE_NAMES) == w["overall"]["games"]
        assert sum(w["roles"][r]["wins"] for r in ROLE_NAMES) == w["overall"]["wins"]
        assert sum(t["games"] for t in w["teams"].values()) == w["overall"]["games"]
        assert sum(t["wins"] for t in w["teams"].values()) == w["overall"]["wins"]
        assert (w["teams"]["Leader team"]["games"]
                == w["roles"]["Leader"]["games"] + w["roles"]["Guardian"]["games"])
    for r in Role:
        assert sum(w["roles"][ROLE_NAMES[r]]["games"] for w in wr.values()) == games * dist[r]
    total_wins = sum(len(g["winners"]) for g in res["games"])
    assert sum(w["overall"]["wins"] for w in wr.values()) == total_wins
    # winners agree with roles: one team wins
    for g in res["games"]:
        if g["winners"]:
            teams = {("Leader team" if g["final_roles"][s] in ("Leader", "Guardian") else g["final_roles"][s])
                     for s in g["winners"]}
            assert len(teams) == 1


def test_small_tournament_writes_consistent_files(tmp_path):
    out = tmp_path / "res"
    res = ev.evaluate(["random", "random"], games=20, seed=0, workers=1, config=SMALL, progress=False,
                      out_dir=out)
    assert res["summary"]["games"] == 20
    _check_counts(res, 4)
    names = sorted(os.listdir(out))
    assert names == ["crossplay.png", "results.json", "results.md", "winrates.png"]   # no temp files
    loaded = json.loads((out / "results.json").read_text())
    assert loaded["summary"] == res["summary"] and loaded["winrates"] == res["winrates"]
    for png in ("crossplay.png", "winrates.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (out / "results.md").read_text()
    assert "| agent | Leader | Guardian | Assassin | Traitor | overall |" in md
    assert "random#2" in md and "winrates.png" in md
    # cross-play recomputed from the games: a's seats where b holds a seat of another team
    cp = res["crossplay"]
    team = {"Leader": "L", "Guardian": "L", "Assassin": "A", "Traitor": None}
    for a, la in enumerate(cp["labels"]):
        for b, lb in enumerate(cp["labels"]):
            wins = n = 0
            for g in res["games"]:
                for s, lab in enumerate(g["lineup"]):
                    if lab != la:
                        continue
                    ts = team[g["dealt_roles"][s]]
                    if any(g["lineup"][o] == lb and (ts is None or team[g["dealt_roles"][o]] != ts)
                           for o in range(4) if o != s):
                        n += 1
                        wins += s in g["winners"]
            assert (cp["matrix"][a][b]["wins"], cp["matrix"][a][b]["games"]) == (wins, n)
            assert 0 < n <= res["winrates"][la]["overall"]["games"]
    assert res["ratings"]["rated_games"] == sum(1 for g in res["games"] if g["winners"])
    assert res["timing"]["random"]["decisions"] > 0
    # the win rates' intervals take the deals as the draws: clustered_rate of each deal's seat-games
    from training.stats import clustered_rate
    assert res["meta"]["deals"] == 10
    for lab, w in res["winrates"].items():
        for role in ROLE_NAMES + ["overall"]:
            per: dict = {}
            for g in res["games"]:
                for s, who in enumerate(g["lineup"]):
                    if who == lab and role in ("overall", g["dealt_roles"][s]):
                        c = per.setdefault(g["env_seed"], [0, 0])
                        c[0] += s in g["winners"]
                        c[1] += 1
            cell = w["overall"] if role == "overall" else w["roles"][role]
            want = clustered_rate([c[0] for c in per.values()], [c[1] for c in per.values()])
            assert (cell["wins"], cell["games"], cell["deals"]) == (want["count"], want["n"], len(per))
            assert (cell["lo"], cell["hi"]) == pytest.approx((want["lo"], want["hi"]))
        assert f"n={w['overall']['games']}/10 |" in md
    assert "Win rates by dealt role, with 95% intervals clustered by deal" in md


def test_write_results_is_atomic_on_failure(tmp_path, monkeypatch):
    res = ev.evaluate(["random", "random"], games=4, seed=2, config=SMALL, progress=False)
    out = tmp_path / "out"
    # a failure while rendering writes nothing at all
    from training import plots

    def boom(_res):
        raise RuntimeError("simulated plotting failure")

    with monkeypatch.context() as m:
        m.setattr(plots, "render_all", boom)
        with pytest.raises(RuntimeError):
            ev.write_results(res, out)
    assert list(out.iterdir()) == []
    # the second file failing, as it is renamed into place or as it is written, leaves the old
    # pair (a new results.json beside the old results.md was left) and no temp file; in a fresh
    # folder, nothing
    ev.write_results(res, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    res2 = dict(res, summary=dict(res["summary"], games=999))
    real_replace, real_fsync = os.replace, os.fsync
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:                         # the second file (results.md)
            raise OSError("simulated disk failure")
        return real_replace(src, dst)

    def failing_fsync(fd):
        calls.append(fd)
        if len(calls) == 3:     # in out, results.md's new bytes (after results.json's and its copy); fresh, a plot's
            raise OSError("simulated disk full")
        return real_fsync(fd)

    for name, fake in (("replace", failing_replace), ("fsync", failing_fsync)):
        for folder, was in ((out, before), (tmp_path / f"fresh-{name}", {})):
            calls.clear()
            with monkeypatch.context() as m:
                m.setattr(ev.os, name, fake)
                with pytest.raises(OSError) as err:
                    ev.write_results(res2, folder)
            assert err.value.args[0].startswith("simulated disk")
            after = {p.name: p.read_bytes() for p in folder.iterdir()}
            assert after == was, (name, folder)          # as it was, no *.tmp left behind
    ev.write_results(res2, out)
    assert json.loads((out / "results.json").read_text())["summary"]["games"] == 999
    # a failure inside the write itself
    def bad_fsync(fd):
        raise OSError("simulated fsync failure")

    with monkeypatch.context() as m:
        m.setattr(ev.os, "fsync", bad_fsync)
        with pytest.raises(OSError):
            ev.atomic_write_bytes(out / "results.json", b"partial")
    assert json.loads((out / "results.json").read_text())["summary"]["games"] == 999
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_same_results_with_one_and_two_workers():
    a = ev.evaluate(["random", "random"], games=16, seed=5, workers=1, config=SMALL, progress=False)
    b = ev.evaluate(["random", "random"], games=16, seed=5, workers=2, config=SMALL, progress=False)
    assert _strip_timing(a) == _strip_timing(b)
    c = ev.evaluate(["random", "random"], games=16, seed=6, workers=1, config=SMALL, progress=False)
    assert c["games"] != a["games"]


def test_a_bot_registered_at_run_time_plays_in_spawned_workers(monkeypatch):
    """Once torch is loaded (a policy entrant, a bot that uses torch) the pool spawns its workers,
    which import ``agents`` afresh: a bot registered at run time (``agents.register``, as notebook
    05 does) was an "unknown agent" there, a traceback from inside the pool.  It is sent to them
    (a class defined where no worker can import it, by value) and plays the games it plays in one
    process; a factory that cannot be sent is refused in one line before any game."""
    import multiprocessing as mp
    import threading

    class Local(BaseAgent):
        """The highest legal action: a class no other process can import."""

        def act(self, observation, info):
            return int(legal_actions(observation)[-1])

    monkeypatch.setitem(agents._REGISTRY, "spawntest_local", Local)
    monkeypatch.setitem(agents._REGISTRY, "spawntest_random", agents.RandomAgent)   # a toolkit class, a new name
    monkeypatch.setattr(ev, "_mp_context", lambda: mp.get_context("spawn"))
    kw = dict(games=8, seed=2, config=SMALL, progress=False, observer=False)
    here = ev.evaluate(["spawntest_local", "spawntest_random"], workers=1, **kw)
    spawned = ev.evaluate(["spawntest_local", "spawntest_random"], workers=2, **kw)
    assert _strip_timing(spawned) == _strip_timing(here)

    lock = threading.Lock()
    monkeypatch.setitem(agents._REGISTRY, "spawntest_locked", lambda seed=None: lock and Local(seed=seed))
    with pytest.raises(ValueError) as err:
        ev.evaluate(["spawntest_locked", "random"], workers=2, **kw)
    assert "\n" not in str(err.value) and "'spawntest_locked'" in str(err.value)
    assert "workers=1" in str(err.value) and "MODULE:CLASS" in str(err.value)


# --------------------------------------------------------------------------- CLI
def test_cli_evaluate_end_to_end(tmp_path, capsys):
    out = tmp_path / "cli"
    rc = main(["evaluate", "--players", "4", "--games", "6", "--agents", "random,random", "--out", str(out),
               "--workers", "2", "--starting-life", "10", "--max-turns", "40", "--no-progress", "--seed", "7"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "| agent | Leader | Guardian | Assassin | Traitor | overall |" in text
    assert "| random |" in text and "| random#2 |" in text
    assert text.startswith("6 games (3 deals x 2), 4 players")    # two rotations of the line-up a deal
    assert (out / "results.json").exists() and (out / "results.md").exists()
    assert json.loads((out / "results.json").read_text())["meta"]["seed"] == 7
    assert main(["evaluate", "--agents", "no_such_bot", "--games", "1", "--out", str(out),
                 "--no-progress"]) == 2
    assert "unknown agent" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["evaluate"])                           # --agents is required


def test_piped_evaluate_prints_its_summary_on_a_line_of_its_own(tmp_path):
    """``treachery evaluate ... 2>&1 | cat``: off a terminal the progress bar's clearing wrote no
    newline, so the summary followed the bar's last redraw on one line ("...2/2 [...]\\r   \\r2 games
    (1 deal x 2), ...").  Off a terminal the bar is left, ending its line."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "training.cli", "evaluate", "--agents", "random,random",
                           "--players", "4", "--games", "1", "--starting-life", "10", "--max-turns", "20",
                           "--no-observer", "--no-beliefs", "--out", str(tmp_path / "out")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = done.stdout.decode()                # bytes: text mode would read each carriage return as a newline
    assert done.returncode == 0, out[-2000:]
    lines = out.split("\n")                   # the lines a pipe or a log file holds
    summary = [ln for ln in lines if "2 games (1 deal x 2), 4 players" in ln]
    assert len(summary) == 1 and summary[0].startswith("2 games (1 deal x 2), 4 players"), summary
    bar = [ln for ln in lines if "games: 100%" in ln]
    assert len(bar) == 1 and bar[0].rstrip().endswith("game/s]"), bar     # the bar's own line, last drawn full


def test_cli_substitution_prints_the_delta_by_role_with_its_interval(tmp_path, capsys):
    """The console prints the substitution-delta table (each dealt role and
    overall, with 95% intervals), the same row results.md has (issue #13)."""
    out = tmp_path / "sub"
    rc = main(["evaluate", "--players", "4", "--games", "10", "--agents", "heuristic,random", "--mode",
               "substitution", "--reference", "random", "--starting-life", "10", "--max-turns", "30",
               "--no-progress", "--no-observer", "--out", str(out)])
    assert rc == 0
    text = capsys.readouterr().out
    overall = json.loads((out / "results.json").read_text())["substitution"]["candidates"]["heuristic"]["overall"]
    assert overall["pairs"] == 8 and overall["lo"] is not None
    res = json.loads((out / "results.json").read_text())
    row = ev.substitution_table(res).splitlines()[-1]
    assert row.startswith("| heuristic | ") and row.endswith(f"| {ev.format_delta(overall)} |")
    assert len(row.strip("|").split("|")) == 6       # the label, the four roles (– where none was dealt), overall
    assert "Substitution delta (each candidate in a seat of a random table" in text
    assert text.startswith("10 games (2 deals x 5)")
    assert main(["evaluate", "--players", "4", "--games", "1", "--agents", "heuristic,random", "--mode",
                 "substitution", "--reference", "random", "--starting-life", "10", "--max-turns", "30",
                 "--no-progress", "--no-observer", "--no-beliefs", "--out", str(tmp_path / "one")]) == 0
    assert capsys.readouterr().out.startswith("5 games (1 deal x 5)")
    assert row in text.splitlines() and row in (out / "results.md").read_text()
    assert re.search(r"\[[+-]\d\.\d{3}, [+-]\d\.\d{3}\] n=8/2 \|$", row)


def test_substitution_with_one_agent_plays_it_against_the_reference(tmp_path, capsys):
    """``--agents heuristic --mode substitution --reference random``: the
    candidate against the reference, and only those two in the output; one
    agent without a reference is a one-line error saying what is missing."""
    base = ["evaluate", "--players", "4", "--games", "5", "--mode", "substitution", "--starting-life", "10",
            "--max-turns", "30", "--no-progress", "--no-observer"]
    assert main(base + ["--agents", "heuristic", "--reference", "random", "--out", str(tmp_path / "a")]) == 0
    text = capsys.readouterr().out
    res = json.loads((tmp_path / "a" / "results.json").read_text())
    assert [e["label"] for e in res["meta"]["entrants"]] == ["heuristic", "random"]
    assert list(res["winrates"]) == ["heuristic", "random"]
    assert list(res["substitution"]["candidates"]) == ["heuristic"] and res["substitution"]["reference"] == "random"
    lines = text.splitlines()
    table = lines[lines.index(f"Win rate by dealt role [{ev.WINRATE_INTERVALS}]:") + 3:]
    rows = [ln.split("|")[1].strip() for ln in table[:next(i for i, ln in enumerate(table) if not ln.startswith("|"))]]
    assert rows == ["heuristic", "random"]
    assert "| heuristic | " in text.split("Substitution delta (each candidate in a seat of a random table")[1]
    assert main(base + ["--agents", "heuristic", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "needs a candidate besides the reference 'heuristic'" in err and "num_players" not in err
    with pytest.raises(ValueError, match="candidate besides the reference 'random'$"):
        ev.substitution_schedule(ev.Entrant("random", "random"), [], 4, 1)


# --------------------------------------------------------------------------- deduction
def test_score_belief_known_values():
    L, G, A, T = Role
    assert ev.score_belief({A: 1.0}, A) == pytest.approx((0.0, 0.0, 1.0))
    assert ev.score_belief({r: 0.25 for r in Role}, T) == pytest.approx((math.log(4), 0.75, 0.25))
    assert ev.score_belief({L: 0.5, G: 0.5}, G) == pytest.approx((math.log(2), 0.5, 0.5))
    ll, br, top = ev.score_belief({G: 0.2, A: 0.6, T: 0.2}, T)
    assert ll == pytest.approx(-math.log(0.2)) and br == pytest.approx(0.04 + 0.36 + 0.64) and top == 0
    ll, br, top = ev.score_belief({A: 1.0}, T)                  # certain and wrong
    assert ll == pytest.approx(-math.log(1e-12)) and br == pytest.approx(2.0) and top == 0
    assert ev.score_belief({"assassin": 3, "traitor": 1}, A) == pytest.approx(
        (-math.log(0.75), 0.0625 + 0.0625, 1.0))                # names accepted, renormalised
    with pytest.raises(ValueError):
        ev.score_belief({A: 0.0}, A)


def test_deduction_metrics_synthetic_rows():
    rows = []
    for turn, p_true, top in [(1, 0.25, 0.25), (1, 0.5, 1.0), (2, 1.0, 1.0), (2, 0.1, 0.0)]:
        rows.append((turn, 0, 1, int(Role.ASSASSIN), p_true, 0.3, top, 0.5, 0.5, 0.5))
    m = ev.deduction_metrics(np.array(rows))
    assert m["rows"] == 4
    assert m["overall"]["logloss"] == pytest.approx(np.mean(-np.log([0.25, 0.5, 1.0, 0.1])))
    assert m["overall"]["top1"] == pytest.approx(0.5625) and m["overall"]["brier"] == pytest.approx(0.3)
    assert [b["turn"] for b in m["by_turn"]] == [1, 2]
    assert m["by_turn"][0]["logloss"] == pytest.approx(np.mean(-np.log([0.25, 0.5])))
    assert m["by_turn"][1]["top1"] == pytest.approx(0.5)
    assert m["overall"]["prior_logloss"] == pytest.approx(math.log(2))
    assert "intervals" not in m["overall"]            # without the deals, no interval is claimed
    assert [b["turns"] for b in m["by_band"]] == [[0, 2]] and m["by_band"][0]["n"] == 4
    assert ev.deduction_metrics(np.zeros((0, 10))) == {"rows": 0, "overall": None, "by_turn": [], "by_band": []}
    # with each row's deal: intervals over deals, and top-1 against the prior on the same rows
    g = ev.deduction_metrics(np.array(rows), deals=np.array([0, 0, 1, 1]))
    o = g["overall"]
    assert o["deals"] == 2 and o["top1"] == m["overall"]["top1"]
    from training.stats import clustered_mean, clustered_rate
    want = clustered_rate([0.25 + 1.0, 1.0 + 0.0], [2, 2])     # top-1 summed per deal, of the deal's rows
    assert o["intervals"]["top1"] == pytest.approx([want["lo"], want["hi"]]) and want["lo"] < 0.5625 < want["hi"]
    logloss = clustered_mean(-np.log([0.25, 0.5, 1.0, 0.1]), [0, 0, 1, 1], lower=0.0)
    assert o["intervals"]["logloss"] == pytest.approx([logloss["lo"], logloss["hi"]])
    assert o["intervals"]["brier"] is None          # every row's Brier score is 0.3: no spread, no interval
    # every row right in every game: the share's interval does not shrink to a point
    sure = ev.deduction_metrics(np.array([(30, 0, 1, int(Role.ASSASSIN), 1.0, 0.0, 1.0, 0.5, 0.5, 0.5)] * 8),
                                deals=np.repeat(np.arange(4), 2))["overall"]["intervals"]["top1"]
    assert sure[1] == 1.0 and sure[0] == pytest.approx(ev.wilson_interval(4, 4)[0]) and sure[0] < 0.7
    assert o["top1_minus_prior"]["mean"] == pytest.approx(0.0625)
    assert g["by_turn"][0]["deals"] == 1 and g["by_turn"][0]["intervals"]["top1"] is None
    with pytest.raises(ValueError, match="one deal per row"):
        ev.deduction_metrics(np.array(rows), deals=np.array([0, 1]))


def test_deduction_and_gate_intervals_take_deals_not_games_as_the_draws():
    """The games of one deal (its rotations, its substitutions) share its cards: a tournament of 4
    deals of 3 games each, every game of a deal alike, gives the deduction and gate intervals of 4
    draws, not 12 (worked by hand; over the 12 games the variance was (G k - 1) / (G - 1) = 11/3
    times too small)."""
    from training.stats import Z95
    L, G, A, T = (int(r) for r in Role)
    records = []
    for deal in range(4):
        right = deal < 2                     # deals 0, 1: the observer right about its opponent; 2, 3: wrong
        rows = np.array([(t, 0, 1, G, 0.8 if right else 0.2, 0.1, float(right), 0.5, 0.5, 0.5) for t in range(1, 6)])
        gate = np.zeros((4, 3), np.int64)
        gate[0] = (1, 4, 4 if right else 0)  # the gate weighed 4 decisions and took all or none
        for k in range(3):
            task = ev.GameTask(len(records), deal, 1000 + deal, ("x", "y", "y", "y"), ("x", "y", "y", "y"),
                               (0, 1, 2, 3), "rotate", -1)
            records.append(ev.GameRecord(task, [L, G, A, T], [L, G, A, T], [0, 1], False, 10, 40,
                                         [np.full(10, 1e-3, np.float32)] * 4, rows, gate=gate))
    res = ev.summarize(records, [ev.Entrant("x", "x"), ev.Entrant("y", "y")])
    o = res["deduction"]["x"]["overall"]
    # top-1 by deal: 5 of 5 rows in each of its 3 games or none: r = 1/2, residuals +-7.5, var =
    # 4/3 * 4 * 7.5^2 / 60^2 = 1/12, n_eff = r (1 - r) / var = 3 (over the 12 games it was 11)
    assert (o["n"], o["deals"], o["top1"]) == (60, 4, 0.5)
    assert o["intervals"]["top1"] == pytest.approx(list(ev.wilson_interval(1.5, 3.0)))
    assert o["intervals"]["top1"][0] < ev.wilson_interval(5.5, 11.0)[0]
    # log-loss -ln 0.8 or -ln 0.2: mean (ln 1.25 + ln 5) / 2, deal deviations +-15 ln 2,
    # se = sqrt(4/3 * 4 * (15 ln 2)^2) / 60 = ln 2 / sqrt(3)
    mean = (math.log(1.25) + math.log(5)) / 2
    half = Z95 * math.log(2) / math.sqrt(3)
    assert o["intervals"]["logloss"] == pytest.approx([mean - half, mean + half])
    # the gate's departures by deal: 12 or 0 of 12 searched decisions: n_eff 3 again
    share = res["gate"]["x"]["of_searched"]
    assert (share["count"], share["n"], share["deals"]) == (24, 48, 4)
    assert (share["lo"], share["hi"]) == pytest.approx(ev.wilson_interval(1.5, 3.0))
    assert "n=48 in 4 deals" in ev.gate_table(res) and "95% interval over deals" in ev.gate_table(res)
    assert "| x | 60 | 4 |" in ev.deduction_table(res) and "95% intervals over deals" in ev.deduction_table(res)
    # a results file written before (its deduction clustered by game) still says what it holds
    old = {"deduction": {"x": {"overall": {**{k: v for k, v in o.items() if k != "deals"}, "games": 12}}}}
    assert ev.deduction_unit(old["deduction"]["x"]["overall"]) == "games"
    assert "| x | 60 | 12 |" in ev.deduction_table(old) and "95% intervals over games" in ev.deduction_table(old)


def test_deception_has_intervals_over_deals_worked_by_hand():
    """Deception (the probability observers give a face-down Assassin's true role) is a mean over
    rows that come in deals, and "lower than the prior" is a claim that needs an interval: 4 deals
    of 3 games, the observers' belief in the Assassin's role 0.8 on every row of deals 0 and 1, 0.2
    on every row of deals 2 and 3, the prior 0.5: p(true) 0.5 with Wilson's interval on the
    deals' effective number, p(true) minus the prior 0 with Cochran's interval over 4 deals
    (worked by hand), in results.json and results.md."""
    from training.stats import Z95
    L, G, A, T = (int(r) for r in Role)
    records = []
    for deal in range(4):
        p = 0.8 if deal < 2 else 0.2
        rows = np.array([(t, 0, 2, A, p, 0.1, 0.0, 0.5, 0.5, 0.5) for t in range(1, 6)])
        for k in range(3):
            task = ev.GameTask(len(records), deal, 1000 + deal, ("x", "y", "y", "y"), ("x", "y", "y", "y"),
                               (0, 1, 2, 3), "rotate", -1)
            records.append(ev.GameRecord(task, [L, G, A, T], [L, G, A, T], [0, 1], False, 10, 40,
                                         [np.full(10, 1e-3, np.float32)] * 4, rows))
    res = ev.summarize(records, [ev.Entrant("x", "x"), ev.Entrant("y", "y")])
    d = res["deception"]["y"]
    assert (d["n"], d["deals"], d["p_true"], d["prior_p_true"]) == (60, 4, pytest.approx(0.5), 0.5)
    # p(true) summed by deal: 12 or 3 of 15 rows' worth, r = 1/2, residuals +-4.5,
    # var = 4/3 * 4 * 4.5^2 / 60^2 = 0.03, n_eff = r (1 - r) / var = 25/3
    assert d["p_true_interval"] == pytest.approx(list(ev.wilson_interval(25 / 6, 25 / 3)))
    # p(true) - prior: +-0.3 on every row, deal deviations +-4.5, se = sqrt(4/3 * 4 * 4.5^2) / 60
    half = Z95 * math.sqrt(4 / 3 * 4 * 4.5 ** 2) / 60
    assert d["minus_prior"]["mean"] == pytest.approx(0.0, abs=1e-12)
    assert (d["minus_prior"]["lo"], d["minus_prior"]["hi"]) == pytest.approx((-half, half))
    md = ev.render_markdown(res)
    assert "| agent | rows | deals | p(true role) | prior | p(true role) − prior |" in md
    lo, hi = d["p_true_interval"]
    assert f"| y | 60 | 4 | 0.500 [{lo:.3f}, {hi:.3f}] | 0.500 | " in md
    # a results file written before the intervals were: its row, without them
    old = dict(res, deception={"y": {k: v for k, v in d.items()
                                     if k not in ("deals", "p_true_interval", "minus_prior")}})
    assert "| y | 60 | – | 0.500 | 0.500 | – |" in ev.render_markdown(old)


def test_deduction_end_to_end_with_a_belief_bot(tmp_path):
    res = ev.evaluate(["test_uniform_belief", "random"], games=8, seed=0, config=SMALL, progress=False,
                      out_dir=tmp_path)
    d = res["deduction"]["test_uniform_belief"]
    assert "random" not in res["deduction"] and "random" in res["deduction_note"]
    o = d["overall"]
    assert o["n"] > 0
    assert o["logloss"] == pytest.approx(math.log(4)) and o["brier"] == pytest.approx(0.75)
    assert o["top1"] == pytest.approx(0.25)
    assert 0.25 <= o["prior_top1"] <= 1 and o["prior_logloss"] <= math.log(4) + 1e-9
    assert sum(b["n"] for b in d["by_turn"]) == o["n"] == sum(b["n"] for b in d["by_band"])
    # intervals over the deals the rows come from: 8 games, 2 rotations of each of 4 deals
    assert o["deals"] == 4 and o["intervals"]["top1"][0] <= 0.25 <= o["intervals"]["top1"][1]
    assert "| deals |" in ev.render_markdown(res) and "top-1 − prior" in ev.render_markdown(res)
    dec = res["deception"]
    assert set(dec) <= {"test_uniform_belief", "random"} and dec
    for v in dec.values():
        assert v["p_true"] == pytest.approx(0.25) and set(v["roles"]) <= {"Assassin", "Traitor"}
    assert (tmp_path / "deduction.png").read_bytes()[:4] == b"\x89PNG"
    # the face-up Leader is never a deduction target; rows are one per observer, turn and target
    tasks = ev.rotation_schedule(ev.entrants_from_specs(["test_uniform_belief", "random"]), 4, 2, seed=0)
    for rec in ev.run_tasks(tasks, SMALL, progress=False):
        rows = rec.deduction
        assert rows.shape[0] > 0 or "test_uniform_belief" not in rec.task.lineup
        assert not np.any(rows[:, ev.ROW_TRUE] == int(Role.LEADER))
        assert not np.any(rows[:, ev.ROW_OBS] == rows[:, ev.ROW_TARGET])
        keys = {tuple(r) for r in rows[:, [ev.ROW_TURN, ev.ROW_OBS, ev.ROW_TARGET]].astype(int).tolist()}
        assert len(keys) == rows.shape[0]
    assert "beliefs" not in res["meta"]


def test_a_result_without_beliefs_scored_says_so():
    """``--no-beliefs`` (``record_beliefs=False``) is recorded in the result, and its note says the
    beliefs were not scored; it said "no beliefs() recorded" of a bot that has them, and nothing
    in results.json told such a result from one whose bots have none."""
    res = ev.evaluate(["test_uniform_belief", "random"], games=4, seed=0, config=SMALL, progress=False,
                      record_beliefs=False, observer=False)
    assert res["meta"]["beliefs"] is False and res["deduction"] == {} and res["deception"] == {}
    note = "no deduction or deception numbers: beliefs() not scored (--no-beliefs)"
    assert res["deduction_note"] == note and note + "." in ev.render_markdown(res)


# --------------------------------------------------------------------------- every registered bot
@pytest.mark.parametrize("spec", [s for s in agents.available()
                                  if s not in ("test_uniform_belief", "human", "rllib", *agents.models.models())])
def test_every_registered_bot_runs_in_a_tournament(spec, policy_4p):
    """Every bot at a 4-player table (the shipped models play their own 5-player
    tables: tests/test_models.py; an RLlib checkpoint, tests/test_frameworks_rllib.py)."""
    cfg = GameConfig(num_players=4, starting_life=6, max_turns=10)
    if spec == "policy":
        spec = f"policy:{policy_4p}"
    if spec == "isolated":
        spec = "isolated:heuristic"
    res = ev.evaluate([spec, "random"], games=2, seed=0, config=cfg, progress=False)
    assert res["summary"]["games"] == 2
    _check_counts(res, 4)


def test_a_human_cannot_enter_a_tournament():
    with pytest.raises(ValueError, match="human"):
        ev.evaluate(["human", "random"], games=1, config=SMALL, progress=False)


def test_crossplay_mode_team_split():
    res = ev.evaluate(["random", "random"], games=8, seed=4, mode="crossplay", config=SMALL, progress=False)
    # 4 players: Leader team, Assassins and the Traitor are 3 teams -> 2 self-play + 2*1*3 split games per deal
    assert res["meta"]["games_per_deal"] == 8 and res["summary"]["games"] == 8
    _check_counts(res, 4)
    cp = res["crossplay"]
    assert cp["definition"] == "team split"
    team = {"Leader": "Leader team", "Guardian": "Leader team", "Assassin": "Assassins", "Traitor": "Traitors"}
    for g in res["games"]:
        labs = set(g["lineup"])
        if len(labs) == 2:       # one entrant holds exactly one whole team
            for lab in labs:
                teams_of = {team[g["dealt_roles"][s]] for s in range(4) if g["lineup"][s] == lab}
                other = {team[g["dealt_roles"][s]] for s in range(4) if g["lineup"][s] != lab}
                assert len(teams_of) == 1 or len(other) == 1
    # each off-diagonal cell: 3 games, one per team of the row entrant; seats: Leader 1 + Assassins 2 + Traitor 1
    assert cp["matrix"][0][1]["games"] == 4 and cp["matrix"][1][0]["games"] == 4
    assert cp["matrix"][0][0]["games"] == 4                       # the self-play table
    assert sum(c["games"] for c in cp["by_team"]["random"]["random#2"].values()) == 4
    assert set(cp["by_team"]["random"]["random#2"]) == {"Leader team", "Assassins", "Traitors"}


def test_cli_rejects_bad_seed_reference_and_single_agent_crossplay(tmp_path, capsys):
    """Bad CLI inputs are usage errors (exit 2) with a clear message, not tracebacks."""
    from training.cli import main
    base = ["evaluate", "--players", "4", "--games", "4", "--out", str(tmp_path), "--no-progress"]
    assert main(base + ["--agents", "random,random", "--seed", "-1"]) == 2
    assert "--seed" in capsys.readouterr().err
    assert main(base + ["--agents", "random,heuristic", "--mode", "substitution", "--reference", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err
    assert main(base + ["--agents", "random", "--mode", "crossplay"]) == 2
    assert "two different agents" in capsys.readouterr().err
    # a mistyped flag is named as such, even when it leaves a required option missing
    for argv, msg in ((["evaluate", "--agnets", "random"],
                       "treachery evaluate: error: unrecognized arguments: --agnets random (did you mean --agents?)"),
                      (["evaluate"], "the following arguments are required: --agents"),
                      (["train", "--minuts", "3"], "treachery train: error: unrecognized arguments: --minuts 3 "
                                                   "(did you mean --minutes?)"),
                      (base + ["--agents", "random,random", "--bogus"], "unrecognized arguments: --bogus\n")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2 and msg in capsys.readouterr().err


def test_bot_names_in_agent_specs_are_case_insensitive(tmp_path, capsys, policy_4p):
    """Bot names in agent specs are read in any case, as role names are (``Heuristic`` is the
    entrant ``heuristic``; a policy's modes too), while a policy's path and an outside bot's
    module and class keep their case; the spelling the registry uses is the entrant's label."""
    import shutil

    assert main(["evaluate", "--players", "4", "--starting-life", "6", "--max-turns", "8", "--games", "4",
                 "--agents", "Heuristic,random", "--mode", "substitution", "--reference", "RANDOM",
                 "--no-progress", "--no-observer", "--out", str(tmp_path / "res")]) == 0, capsys.readouterr().err
    res = json.loads((tmp_path / "res" / "results.json").read_text())
    assert [e["label"] for e in res["meta"]["entrants"]] == ["heuristic", "random"]
    assert res["substitution"]["reference"] == "random"
    assert agents.split_spec("Heuristic") == ("heuristic", "", "")
    assert agents.names_a_bot("RANDOM") and not agents.is_outside("Heuristic:Foo")
    assert type(agents.make("HeuRistic", seed=0)) is type(agents.make("heuristic", seed=0))
    path = shutil.copy(policy_4p, tmp_path / "P4.pt")                 # a path in mixed case keeps it
    assert agents.canonical_spec(f"Policy:{path}:Greedy:GATE=0.5") == f"policy:{path}:greedy:gate=0.5"
    assert agents.canonical_spec(f"isolated:Policy:{path}") == f"isolated:policy:{path}"
    assert agents.canonical_spec("my_Bots:FirstLegal") == "my_Bots:FirstLegal"
    bot = agents.make(f"POLICY:{path}:Greedy", seed=0)
    assert bot.greedy and str(bot.path) == str(path)
    assert agents.weights_file(f"policy:{path}:GREEDY") == str(path)
    assert [e.label for e in ev.entrants_from_specs(["Heuristic", " random", "heuristic"])] == \
        ["heuristic", "random", "heuristic#2"]
    with pytest.raises(ValueError, match="'human' cannot play in a tournament"):
        ev.evaluate(["Human", "random"], config=SMALL, games=4, progress=False)
    capsys.readouterr()
    assert main(["evaluate", "--players", "4", "--games", "4", "--agents", "Random,random", "--mode", "crossplay",
                 "--no-progress", "--out", str(tmp_path / "cp")]) == 2
    assert "two different agents" in capsys.readouterr().err


def test_an_unknown_reference_is_one_line_naming_the_entrants(tmp_path, capsys):
    """``--reference`` that is neither an entrant nor a bot says in one line what the valid
    references are: the entrants' labels (or a bot spec, which joins them)."""
    base = ["evaluate", "--players", "4", "--games", "4", "--agents", "heuristic,random,random", "--no-progress",
            "--out", str(tmp_path)]
    for mode, what in (("substitution", "reference"), ("teammates", "partner")):
        assert main(base + ["--mode", mode, "--reference", "wizard"]) == 2
        err = capsys.readouterr().err
        assert err == (f"treachery evaluate: error: reference 'wizard' is not an entrant or a bot: the {what} is one "
                       f"of the entrants' labels (heuristic, random, random#2) or a bot spec, which joins them\n")
    for mode in ("rotate", "crossplay"):        # a reference there would be ignored: refused instead
        assert main(base + ["--mode", mode, "--reference", "random"]) == 2
        assert capsys.readouterr().err == (
            f"treachery evaluate: error: reference 'random' is for --mode substitution (the reference) or teammates "
            f"(the partner); mode {mode!r} has none\n")
    assert not (tmp_path / "results.json").exists()
    assert main(base + ["--mode", "substitution", "--reference", "Random#2", "--games", "6", "--players", "4",
                        "--starting-life", "6", "--max-turns", "6", "--no-observer"]) == 0        # a label, any case
    assert json.loads((tmp_path / "results.json").read_text())["substitution"]["reference"] == "random#2"


# --------------------------------------------------------------------------- paired comparison of two candidates
def test_paired_delta_compares_two_candidates_seat_game_by_seat_game(tmp_path, capsys):
    """Two candidates against the same reference on the same deals: the mean
    of the second's win minus the first's in the same seat of the same deal,
    per dealt role and overall (checked by hand from the games); a candidate
    against itself is 0 exactly; other deals, another reference or another
    mode are one-line errors; ``treachery compare`` prints the table."""
    kw = dict(config=SMALL, games=24, seed=5, mode="substitution", reference="heuristic", progress=False,
              record_beliefs=False, observer=False)
    a = ev.evaluate(["random", "heuristic"], out_dir=tmp_path / "a", **kw)
    b = ev.evaluate(["belief", "heuristic"], out_dir=tmp_path / "b", **kw)
    res = ev.paired_delta(a, b)
    assert (res["before"], res["after"], res["reference"]) == ("random", "belief", "heuristic")
    assert all(-1 <= c["lo"] <= c["mean"] <= c["hi"] <= 1 for c in res["roles"].values() if c["lo"] is not None)

    def wins(r, label):
        return {(g["env_seed"], g["lineup"].index(label)): (g["dealt_roles"][g["lineup"].index(label)],
                                                             g["lineup"].index(label) in g["winners"])
                for g in r["games"] if g["kind"] == "substitute"}
    wa, wb = wins(a, "random"), wins(b, "belief")
    assert set(wa) == set(wb) and len(wa) == 20
    diffs = [int(wb[k][1]) - int(wa[k][1]) for k in wa]
    assert res["roles"]["overall"]["n"] == 20
    assert res["roles"]["overall"]["mean"] == pytest.approx(sum(diffs) / 20)
    for role in ("Leader", "Assassin"):
        d = [int(wb[k][1]) - int(wa[k][1]) for k in wa if wa[k][0] == role]
        assert res["roles"][role]["n"] == len(d) and res["roles"][role]["mean"] == pytest.approx(sum(d) / len(d))
    # the intervals take the deals, not the seat-games, as the draws (Cochran's, recomputed from the games)
    for role, c in res["roles"].items():
        keys = [k for k in wa if role == "overall" or wa[k][0] == role]
        d, deals = [int(wb[k][1]) - int(wa[k][1]) for k in keys], [k[0] for k in keys]
        assert (c["n"], c["deals"]) == (len(keys), len(set(deals)))
        if c["lo"] is not None:
            assert (c["lo"], c["hi"]) == pytest.approx(_cochran(d, deals)[:2])
    assert res["roles"]["overall"]["deals"] == 5 and res["roles"]["overall"]["lo"] is not None
    same = ev.paired_delta(a, a)["roles"]["overall"]
    assert same["mean"] == 0 and same["lo"] is None and same["hi"] is None     # every pair equal: no spread
    other_deals = ev.evaluate(["belief", "heuristic"], **dict(kw, seed=6))
    with pytest.raises(ValueError, match=r"share no deal \(seeds 5 and 6\)"):
        ev.paired_delta(a, other_deals)
    silent = dict(b, meta=dict(b["meta"], config=dict(b["meta"]["config"], talk="none")))
    with pytest.raises(ValueError, match=r"same game in both results; they differ in talk \('structured' vs 'none'\)$"):
        ev.paired_delta(a, silent)
    with pytest.raises(ValueError, match="same reference"):
        ev.paired_delta(a, ev.evaluate(["heuristic", "random"], **dict(kw, reference="random")))

    def reference_file(r, digest):       # as a policy reference records the bytes that played it
        return dict(r, meta=dict(r["meta"], entrants=[dict(e, sha256=digest) if e["label"] == "heuristic" else e
                                                      for e in r["meta"]["entrants"]]))
    with pytest.raises(ValueError, match=r"same reference in both results: 'heuristic' played different files "
                                         r"\(SHA-256 aaaaaaaaaaaa\.\.\. vs bbbbbbbbbbbb\.\.\.\)$"):
        ev.paired_delta(reference_file(a, "a" * 64), reference_file(b, "b" * 64))
    assert ev.paired_delta(reference_file(a, "a" * 64), reference_file(b, "a" * 64))["shared"] == 20
    assert ev.paired_delta(reference_file(a, "a" * 64), b)["shared"] == 20       # one without it: not compared
    with pytest.raises(ValueError, match="needs substitution results"):
        ev.paired_delta(a, dict(b, meta=dict(b["meta"], mode="rotate")))
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b" / "results.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("belief minus random, both in one seat of a heuristic table")
    assert f"| after − before | {res['roles']['Leader']['mean']:+.3f}" in out
    assert "note: only the" not in out
    fewer = ev.evaluate(["belief", "heuristic"], out_dir=tmp_path / "c", **dict(kw, games=12))
    assert ev.paired_delta(a, fewer)["shared"] == 12
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "c")]) == 0
    assert "note: only the 12 seat-games of deals in both are compared (20 in BEFORE, 12 in AFTER)" in \
        capsys.readouterr().out
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "a")]) == 0       # with itself: said, no interval
    got = capsys.readouterr()
    assert "same results (the same file?)" in got.err and "| after − before | +0.000 n=" in got.out
    assert ("95% intervals from the normal approximation, clustered by deal; none where the spread between deals "
            "cannot be estimated") in got.out
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert ("with 95% intervals from the normal approximation, clustered by deal (the seat-games of one deal share "
            "its cards: the deals are the independent draws)") in " ".join(capsys.readouterr().out.split())
    assert got.out.rstrip().endswith("| +0.000 n=20/5 |")
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "missing")]) == 2
    assert "results file" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="is not a results JSON"):
        ev.read_results(tmp_path / "bad.json")


def test_the_report_names_the_game_its_results_were_played_on(tmp_path):
    """results.md names the game's fields that differ from GameConfig's defaults (a 10-life table
    reads otherwise than the default 40), so two reports of different tables never look alike."""
    ev.evaluate(["heuristic", "random"], config=SMALL, games=4, seed=1, progress=False, record_beliefs=False,
                observer=False, out_dir=tmp_path / "r")
    md = (tmp_path / "r" / "results.md").read_text()
    assert ("\n- game: starting_life=10, max_turns=60; the other fields GameConfig's defaults (every field in "
            "results.json's meta.config)\n") in md
    res = ev.read_results(tmp_path / "r")
    default = dict(res, meta=dict(res["meta"], config=GameConfig(num_players=4).to_dict()))
    assert "\n- game: GameConfig's defaults (every" in ev.render_markdown(default)
    silent = dict(res, meta=dict(res["meta"], config=GameConfig(num_players=4, talk="none").to_dict()))
    assert "\n- game: talk='none'; the other fields" in ev.render_markdown(silent)
    assert ev.game_text({}) == "not recorded"


def test_results_never_replace_results_written_after_the_folder_was_checked(tmp_path, monkeypatch):
    """Without ``--force``, a ``results.json`` or ``results.md`` that another command wrote into
    ``--out`` after :func:`refuse_held_results` found it free (while the games were played) is
    kept, not replaced as it was; these results go to ``results-2.json`` and a one-line error
    says where; a plot is replaced as before, and ``--force`` replaces them all."""
    from conftest import taken_before_write

    payloads = {"results.json": b'{"mine": 1}', "results.md": b"# mine", "winrate.png": b"png"}
    (tmp_path / "winrate.png").write_bytes(b"old plot")
    for taken in ("results.json", "results.md"):
        out = tmp_path / f"out-{taken}"
        out.mkdir()
        with monkeypatch.context() as m:
            taken_before_write(m, out / taken, b"another's")
            with pytest.raises(ValueError) as err:
                ev.write_result_files(out, payloads, new=True)
        assert str(err.value) == (f"--out {str(out)!r} got a {taken} from another command while these results were "
                                  f"made; it is kept, and these are in {str(out / 'results-2.json')!r} alone (no "
                                  f"report or plots)")
        assert {p.name: p.read_bytes() for p in out.iterdir()} == {taken: b"another's",
                                                                    "results-2.json": b'{"mine": 1}'}
    ev.write_result_files(tmp_path, payloads, new=True)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == payloads
    ev.write_result_files(tmp_path, dict(payloads, **{"results.md": b"# again"}), new=False)
    assert (tmp_path / "results.md").read_bytes() == b"# again"


def test_config_values_are_said_in_words_in_reports_and_refusals():
    """A game's field that is on or off, or left unset, reads as such in reports and one-line
    refusals (``commander=off``, ``planechase (off vs 'single')``), never as Python's None, True or
    False; every field whose default is None has its own words (``decks`` ``random presets``)."""
    import dataclasses

    from treachery_env.config import field_text

    for f in dataclasses.fields(GameConfig):
        if f.default is None:
            assert field_text(f.name, None) not in ("none", "None"), f.name
    assert (field_text("planechase", None), field_text("decks", None)) == ("off", "random presets")
    assert (field_text("seasons", True), field_text("commander", False), field_text("talk", "none")) == \
        ("on", "off", "'none'")
    plain, rumble = ({"config": GameConfig(num_players=4, **kw).to_dict()} for kw in
                     ({"commander": False}, {"archenemy": "supervillain_rumble"}))
    assert ev._game_differences(plain, rumble) == "archenemy (off vs 'supervillain_rumble'), commander (off vs on)"
    assert ev.game_text(plain["config"]) == "commander=off; the other fields GameConfig's defaults"
    unknown = {"num_players": 4, "game": "a later game", "commander": True, "starting_life": None, "no_such_field": None}
    assert ev.game_text(unknown) == "game='a later game', commander=on, starting_life=by the rules, no_such_field=none"


def test_compare_and_pool_refuse_a_malformed_results_file_in_one_line(tmp_path, capsys):
    """A results.json that is JSON but not what ``treachery evaluate`` writes (a games entry without
    its environment seed or winners, an entry that is not an object, games that are not a list, a
    meta without its entrants, a substitution without its reference) is one line from ``treachery
    compare`` and ``treachery pool`` (exit status 2), not a traceback, and pool writes nothing."""
    kw = dict(config=SMALL, games=12, mode="substitution", reference="heuristic", progress=False,
              record_beliefs=False, observer=False)
    ev.evaluate(["random", "heuristic"], out_dir=tmp_path / "a", seed=5, **kw)
    ev.evaluate(["random", "heuristic"], out_dir=tmp_path / "b", seed=6, **kw)
    good = json.loads((tmp_path / "b" / "results.json").read_text())
    capsys.readouterr()         # the evaluations said on stderr which games they played
    breaks = {"no_seed": lambda r: r["games"][1].pop("env_seed"),
              "no_winners": lambda r: r["games"][0].pop("winners"),
              "winner_outside": lambda r: r["games"][0].__setitem__("winners", [99]),
              "roles_short": lambda r: r["games"][1]["dealt_roles"].pop(),
              "negative_turns": lambda r: r["games"][0].__setitem__("turns", -1),
              "not_object": lambda r: r["games"].__setitem__(2, "junk"),
              "games_dict": lambda r: r.__setitem__("games", {}),
              "no_entrants": lambda r: r["meta"].pop("entrants"),
              "no_reference": lambda r: r["meta"].pop("reference")}
    for name, spoil in breaks.items():
        bad = json.loads(json.dumps(good))
        spoil(bad)
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(bad))
        with pytest.raises(ValueError, match=r"^'.*results.json'(: games entry \d is not one| is not a results JSON) "
                                             r"of treachery evaluate"):
            ev.read_results(tmp_path / name)
        for argv in (["compare", str(tmp_path / "a"), str(tmp_path / name)],
                     ["pool", str(tmp_path / "a"), str(tmp_path / name), "--out", str(tmp_path / "p")]):
            assert main(argv) == 2, (name, argv[0])
            err = capsys.readouterr().err
            assert err.startswith(f"treachery {argv[0]}: error: ") and err.count("\n") == 1, (name, err)
        assert not (tmp_path / "p").exists()
    # a games entry without its seed passed to pool_results directly: one line too
    spoiled = json.loads(json.dumps(good))
    spoiled["games"][0].pop("env_seed")
    with pytest.raises(ValueError, match=r"^a games entry is not one of treachery evaluate \(KeyError: 'env_seed'\)"):
        ev.pool_results([ev.read_results(tmp_path / "a"), spoiled])


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads child processes from /proc (Linux)")
@pytest.mark.parametrize("late", [False, True])
def test_workers_of_a_killed_evaluation_end_with_it(late):
    """SIGKILL of an evaluation with worker processes: its workers do not play
    on as orphans, they exit within seconds; also workers that start watching for it
    only once it is gone (``late``: slow to start, as on a loaded machine), which
    took the process that adopted them for their parent and played on."""
    import signal
    import subprocess
    import sys
    import time

    code = ("from training.evaluate import evaluate; from treachery_env import GameConfig; "
            "evaluate(['random', 'random'], games=200000, workers=2, progress=False, record_beliefs=False, "
            "observer=False, config=GameConfig(num_players=4, starting_life=10, max_turns=60))")
    if late:        # a forked worker's exit_with_parent waits until its parent is gone
        code = ("import os, time\nimport training.evaluate as ev\nwatch = ev.exit_with_parent\n"
                "def late(*args):\n    first = os.getppid()\n    while os.getppid() == first:\n"
                "        time.sleep(0.05)\n    watch(*args)\nev.exit_with_parent = late\n" + code)
    parent = subprocess.Popen([sys.executable, "-c", code])

    def children(pid: int) -> set[int]:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                return {int(c) for c in f.read().split()}
        except FileNotFoundError:
            return set()

    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split(") ")[1][0] != "Z"
        except FileNotFoundError:
            return False

    kids: set[int] = set()
    try:
        deadline = time.time() + 120
        while len(children(parent.pid)) < 2 and time.time() < deadline:   # the two workers (forked)
            time.sleep(0.2)
        kids = children(parent.pid)
        assert len(kids) >= 2, kids
        time.sleep(2.0)                                 # the workers are playing (late: not watching yet)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.time() + 20
        while any(alive(k) for k in kids) and time.time() < deadline:
            time.sleep(0.2)
        assert not any(alive(k) for k in kids), [k for k in kids if alive(k)]
    finally:
        if parent.poll() is None:
            parent.kill()
        for k in kids:                                  # a failure leaves no orphan playing on
            if alive(k):
                os.kill(k, signal.SIGKILL)


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_ctrl_c_stops_a_parallel_evaluation_and_its_workers(tmp_path, capsys, monkeypatch, stop):
    """Ctrl-C (or SIGTERM, sent to the process) while games run in worker processes: the queued
    games are dropped, the workers are stopped (none of them is left), no results are written,
    and the CLI says so in one line with exit status 130 (143 for SIGTERM); the SIGTERM handler is
    given back afterwards."""
    import multiprocessing as mp
    import os
    import signal

    real = ev.as_completed

    def interrupted(futs):
        for i, f in enumerate(real(futs)):
            if i == 1:
                if stop == "SIGTERM":
                    os.kill(os.getpid(), signal.SIGTERM)
                else:
                    raise KeyboardInterrupt
            yield f

    monkeypatch.setattr(ev, "as_completed", interrupted)
    before = set(mp.active_children())
    handler = signal.getsignal(signal.SIGTERM)
    out = tmp_path / "out"
    rc = main(["evaluate", "--players", "4", "--games", "400", "--agents", "heuristic,random", "--workers", "2",
               "--starting-life", "10", "--max-turns", "30", "--no-progress", "--out", str(out)])
    assert rc == (143 if stop == "SIGTERM" else 130)
    err = capsys.readouterr().err.strip()
    how = "terminated (SIGTERM)" if stop == "SIGTERM" else "interrupted"
    assert err == f"treachery evaluate: {how}; no results written to {out}"
    assert not out.exists() and signal.getsignal(signal.SIGTERM) is handler
    assert not [p for p in set(mp.active_children()) - before if p.is_alive()]


def test_the_reports_name_the_cr_900_variants_and_compare_and_pool_keep_them_apart(tmp_path, capsys):
    """A tournament with Planechase names it where a reader looks (results.md, the printed summary,
    results.json's config) in Throne Magic's wording (one helper, ``variants_text``), only those
    played; a plain one says there are none (not ``planechase=None, vanguard=None, ...``).  ``treachery compare`` and ``treachery pool`` refuse, in one line, results whose
    games differ in a variant, saying an unplayed one in words (``off``, not Python's ``None``)."""
    base = ["evaluate", "--players", "4", "--starting-life", "10", "--max-turns", "6", "--agents", "random,heuristic",
            "--mode", "substitution", "--games", "5", "--no-progress", "--no-observer", "--no-beliefs"]
    assert main(base + ["--planechase", "single", "--seed", "1", "--out", str(tmp_path / "pc")]) == 0
    printed = capsys.readouterr().out.splitlines()[0]
    named = "CR 900 variants: planechase='single'"
    assert printed.startswith(f"5 games (1 deal x 5), 4 players, mode substitution, seed 1, {named} (game: "
                              f"starting_life=10, max_turns=6; the other fields GameConfig's defaults): "), printed
    res = ev.read_results(tmp_path / "pc")
    assert res["meta"]["config"]["planechase"] == "single" and ev.variants_text(res["meta"]["config"]) == named
    assert f"- {named}\n" in (tmp_path / "pc" / "results.md").read_text()
    assert main(base + ["--seed", "1", "--out", str(tmp_path / "plain")]) == 0
    assert capsys.readouterr().out.startswith("5 games (1 deal x 5), 4 players, mode substitution, seed 1, no CR 900 "
                                              "variants (game: starting_life=10, ")
    plain = (tmp_path / "plain" / "results.md").read_text()
    assert "- no CR 900 variants\n" in plain and "None" not in plain
    # Throne Magic's results.md says it with the same words
    assert main(["evaluate", "--game", "throne_magic", "--players", "4", "--max-turns", "6", "--agents",
                 "random,heuristic", "--games", "2", "--planechase", "single", "--no-progress",
                 "--out", str(tmp_path / "tm")]) == 0
    tm = (tmp_path / "tm" / "results.md").read_text()
    assert f"holdings=off, seasons=off, {named} (game: max_turns=6; the other fields GameConfig's defaults);" in tm
    summary = capsys.readouterr().out.splitlines()[0]
    assert named in summary and "seasons=off" in summary
    assert not any(raw in text for text in (tm, summary) for raw in ("None", "False", "True"))
    # a result written before the variants existed (no such fields) was played without them
    assert ev.variants_text({"talk": "none"}) == "no CR 900 variants"
    assert ev.variants_text({"planechase": "single", "planar_deck": ["a"] * 12, "scheme_decks": [["s"] * 20] * 4,
                             "vanguard": ["x", "y", "z", "w"]}).endswith(
        "vanguard=['x', 'y', 'z', 'w'], planar_deck=12 cards, scheme_decks=fixed")
    assert ev.variants_text({"archenemy": "supervillain_rumble"}) == "CR 900 variants: archenemy='supervillain_rumble'"
    # the same deals with and without Planechase: no paired comparison
    assert main(["compare", str(tmp_path / "plain"), str(tmp_path / "pc")]) == 2
    assert capsys.readouterr().err == ("treachery compare: error: paired comparison needs the same game in both "
                                       "results; they differ in planechase (off vs 'single')\n")
    # other deals, one with Planechase: no pooling (nor with another variant's value)
    assert main(base + ["--seed", "2", "--out", str(tmp_path / "plain2")]) == 0
    capsys.readouterr()
    assert main(["pool", str(tmp_path / "pc"), str(tmp_path / "plain2"), "--out", str(tmp_path / "p")]) == 2
    assert capsys.readouterr().err == (f"treachery pool: error: {tmp_path / 'plain2'} differs from {tmp_path / 'pc'} "
                                       f"in the game: planechase (off vs 'single')\n")
    per_player = dict(res, meta=dict(res["meta"], config=dict(res["meta"]["config"], planechase="per_player")))
    with pytest.raises(ValueError, match=r"^B differs from A in the game: planechase \('per_player' vs 'single'\)$"):
        ev.pool_results([res, per_player], sources=["A", "B"])
    assert not (tmp_path / "p").exists()


def test_a_result_records_the_toolkit_that_played_it(tmp_path, monkeypatch):
    """``meta["toolkit"]``: ``treachery --version``'s version and, run from a git checkout, the
    commit and whether tracked files differ from it, shown in ``results.md``; without git, or
    outside a checkout, the version alone (no error); pooled results keep one toolkit only when
    their parts agree, else each part's."""
    import subprocess

    import treachery_env
    from training import provenance

    res = ev.evaluate(["random", "random"], games=4, seed=0, config=SMALL, progress=False, out_dir=tmp_path / "a")
    root = provenance._ROOT
    want = {"version": treachery_env.__version__}
    if (root / ".git").exists():
        git = ["git", "-C", str(root)]
        want["commit"] = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        want["dirty"] = bool(subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"],
                                            capture_output=True, text=True).stdout.strip())
    assert res["meta"]["toolkit"] == want and ev.read_results(tmp_path / "a")["meta"]["toolkit"] == want
    md = (tmp_path / "a" / "results.md").read_text()
    assert f"\n- toolkit: treachery {treachery_env.__version__}" + (f", commit {want['commit'][:12]}"
                                                                    if "commit" in want else "") in md
    assert ev.render_markdown({**res, "meta": {**res["meta"], "toolkit": {"version": "0.1.0", "commit": "ab" * 20,
                                                                          "dirty": True}}}) \
        .count("- toolkit: treachery 0.1.0, commit abababababab (tracked files modified)\n") == 1
    monkeypatch.setenv("PATH", str(tmp_path))                    # no git on the PATH
    assert provenance.toolkit() == {"version": treachery_env.__version__}
    monkeypatch.undo()
    (tmp_path / "co").mkdir()
    (tmp_path / "co" / ".git").write_text("gitdir: /nonexistent\n")      # git fails there
    for folder in (tmp_path, tmp_path / "co"):                   # no checkout; a broken one
        monkeypatch.setattr(provenance, "_ROOT", folder)
        assert provenance.toolkit() == {"version": treachery_env.__version__}
    other = {**res, "meta": {**res["meta"], "seed": 1, "toolkit": {"version": "0.0.9"}}}
    other["games"] = [{**g, "env_seed": g["env_seed"] + 10_000} for g in res["games"]]
    pooled = ev.pool_results([res, other], sources=["A", "B"])
    assert "toolkit" not in pooled["meta"] and [p["toolkit"] for p in pooled["meta"]["pooled"]] == [want, {"version": "0.0.9"}]
    assert f"- toolkits of the pooled parts: {provenance.toolkit_text(res['meta'])}; treachery 0.0.9\n" \
        in ev.render_markdown(pooled)
    assert ev.pool_results([res, {**other, "meta": {**other["meta"], "toolkit": want}}])["meta"]["toolkit"] == want


def test_pooled_results_are_one_evaluation_of_their_deals(tmp_path, capsys):
    """Two evaluations on other seeds, pooled: win rates, substitution deltas, ratings and
    the opposing-seats cross-play are exactly :func:`summarize` over all their games (the
    records replayed from the same schedules); ``treachery pool`` writes them and
    ``treachery compare`` pairs pooled results; the same deal twice, one result, other
    entrants or game, or a crossplay result are one-line errors."""
    kw = dict(config=SMALL, games=10, mode="substitution", reference="heuristic", progress=False,
              record_beliefs=False, observer=False)
    a = ev.evaluate(["random", "heuristic"], seed=5, out_dir=tmp_path / "a", **kw)
    b = ev.evaluate(["random", "heuristic"], seed=6, out_dir=tmp_path / "b", **kw)
    pooled = ev.pool_results([a, b], sources=["A", "B"])
    assert ev.pool_results([b, a], sources=["B", "A"]) == pooled      # the seeds in order, however given
    ents = ev.entrants_from_specs(["random", "heuristic"])
    records = [rec for seed in (5, 6) for rec in
               ev.run_tasks(ev.substitution_schedule(ents[1], [ents[0]], 4, 2, seed), SMALL,
                            record_beliefs=False, progress=False, observer=False)]
    whole = ev.summarize(records, ents, {})
    for key in ("summary", "winrates", "crossplay", "substitution", "ratings"):
        assert pooled[key] == whole[key], key
    assert pooled["substitution"]["candidates"]["random"]["overall"]["pairs"] == 16
    assert pooled["meta"]["seed"] == [5, 6] and pooled["meta"]["deals"] == 4 and pooled["meta"]["games"] == 20
    assert pooled["deduction"] == {} and pooled["gate"] == {} and "A, B" in pooled["meta"]["pooled_note"]
    # an entry written before games held the substituted seat reads the same
    old = [{k: v for k, v in g.items() if k != "focus_seat"} for g in a["games"]]
    assert [ev.Outcome.of_entry(g, "heuristic") for g in old] == \
        [ev.Outcome.of_entry(g, "heuristic") for g in a["games"]]
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b" / "results.json"), "--out", str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("20 games (4 deals) of 2 evaluations, seeds 5, 6, mode substitution, no CR 900 variants "
                          "(game: starting_life=10, max_turns=60; the other fields GameConfig's defaults): ")
    assert ev.format_delta(pooled["substitution"]["candidates"]["random"]["Leader"]) in out
    assert ev.read_results(tmp_path / "p")["substitution"] == pooled["substitution"]
    assert "pooled from" in (tmp_path / "p" / "results.md").read_text()
    c = ev.evaluate(["belief", "heuristic"], seed=5, **kw)
    d = ev.evaluate(["belief", "heuristic"], seed=6, **kw)
    paired = ev.paired_delta(pooled, ev.pool_results([c, d]))
    assert paired["shared"] == 16 and paired["roles"]["overall"]["n"] == 16
    with pytest.raises(ValueError, match=r"^A and B share a deal \(seed 5, deal [01]\): pool evaluations with "):
        ev.pool_results([a, a], sources=["B", "A"])
    with pytest.raises(ValueError, match="at least two results, got 1"):
        ev.pool_results([a])
    with pytest.raises(ValueError, match=r"^B differs from A in entrants"):
        ev.pool_results([a, c], sources=["A", "B"])
    silent = dict(b, meta=dict(b["meta"], config=dict(b["meta"]["config"], talk="none")))
    with pytest.raises(ValueError, match=r"differs from result 1 in the game: talk \('none' vs 'structured'\)$"):
        ev.pool_results([a, silent])
    assert [g["index"] for g in pooled["games"]] == list(range(20))
    # a policy entrant whose file's bytes differ between the results is not one agent
    swapped = dict(b, meta=dict(b["meta"], entrants=[dict(e, sha256="0" * 64) for e in b["meta"]["entrants"]]))
    assert ev.pool_results([a, swapped])["meta"]["entrants"] == a["meta"]["entrants"]   # a bot has no file
    marked = dict(a, meta=dict(a["meta"], entrants=[dict(e, sha256="1" * 64) for e in a["meta"]["entrants"]]))
    with pytest.raises(ValueError, match=r"^B and A played different files as 'random' \(SHA-256 000000000000"):
        ev.pool_results([marked, swapped], sources=["A", "B"])
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "a")]) == 2
    assert "holds the source" in capsys.readouterr().err
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "p")]) == 2
    assert "already holds results.json and results.md; give another folder, or --force" in capsys.readouterr().err
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "p"), "--force"]) == 0
    with pytest.raises(ValueError, match="'crossplay' tournament; only rotate and substitution"):
        ev.pool_results([a, dict(b, meta=dict(b["meta"], mode="crossplay"))])
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "a"), "--out", str(tmp_path / "q")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("treachery pool: error: ") and "share a deal" in err and err.count("\n") == 1
    assert not (tmp_path / "q").exists()


def _two_policies(tmp_path):
    """``policy.pt`` and ``other.pt``, two 4-player checkpoints of different bytes, and the
    SHA-256 of each."""
    import hashlib

    from conftest import write_policy

    path, other = write_policy(tmp_path / "policy.pt", 4), write_policy(tmp_path / "other.pt", 4, seed=1)
    return path, other, [hashlib.sha256(p.read_bytes()).hexdigest() for p in (path, other)]


def test_a_policy_agent_reports_the_hash_of_the_bytes_it_loaded(tmp_path):
    """A policy bot, in this process or isolated in its own, says which bytes it plays
    (``weights_sha256``): those it loaded, not the file's after it was replaced."""
    path, other, (sha, sha_other) = _two_policies(tmp_path)
    first = agents.make(f"policy:{path}", seed=0)
    isolated = agents.make(f"isolated:policy:{path}", seed=0)
    assert first.weights_sha256 == isolated.weights_sha256 == sha
    os.replace(other, path)                   # as a training replaces its policy.pt
    assert first.weights_sha256 == sha and agents.make(f"policy:{path}", seed=0).weights_sha256 == sha_other


@pytest.mark.parametrize("workers", [1, 2])
def test_the_sha256_recorded_is_of_the_bytes_that_played_not_of_the_file_after_the_games(tmp_path, monkeypatch,
                                                                                        workers):
    """The file was hashed once the games were over: a policy file replaced meanwhile (a running
    training's ``policy.pt``) was recorded as bytes that never played, so results of the version
    that did could not pool with it.  The hash is the one each game's agents loaded, in whichever
    worker played it."""
    path, other, (sha, sha_other) = _two_policies(tmp_path)
    run_tasks = ev.run_tasks

    def then_replaced(*args, **kw):
        records = run_tasks(*args, **kw)
        os.replace(other, path)
        return records
    monkeypatch.setattr(ev, "run_tasks", then_replaced)
    res = ev.evaluate([f"policy:{path}:greedy", "random"], games=8, seed=2, workers=workers, config=SMALL,
                      progress=False, record_beliefs=False, observer=False)
    assert [e.get("sha256") for e in res["meta"]["entrants"]] == [sha, None]
    assert agents.models.sha256_of(path) == sha_other


def test_an_evaluation_whose_games_played_two_versions_of_a_policy_file_is_refused(tmp_path, monkeypatch):
    """A policy file replaced between two chunks of games: the later agents load the new bytes,
    so the games mix two policies; no results describe that, so none are written."""
    path, other, (sha, sha_other) = _two_policies(tmp_path)
    play_tasks, chunks = ev.play_tasks, []

    def replaced_after_the_first_chunk(tasks, *args, **kw):
        chunks.append(len(tasks))
        if len(chunks) == 2:
            os.replace(other, path)
        return play_tasks(tasks, *args, **kw)
    monkeypatch.setattr(ev, "play_tasks", replaced_after_the_first_chunk)
    real = re.escape(repr(os.path.realpath(path)))
    with pytest.raises(ValueError, match=rf"^policy file {real} changed while the evaluation ran: its games were "
                                         rf"played by 2 versions of it \(SHA-256 {sha[:12]}\.\.\., "
                                         rf"{sha_other[:12]}\.\.\.\), so they mix policies and no results are "
                                         rf"written; evaluate a copy that stays put \(a run's ckpt_<iteration>\.pt, "
                                         rf"a copy of its policy\.pt, or a policy from treachery export\)$"):
        ev.evaluate([f"policy:{path}", "random"], games=16, seed=2, config=SMALL, progress=False,
                    record_beliefs=False, observer=False, out_dir=tmp_path / "out")
    assert len(chunks) > 2 and not (tmp_path / "out" / "results.json").exists()


@pytest.mark.parametrize("games", [0, -3, 10 ** 6 + 1, 10 ** 15, 2.0, True])
def test_a_number_of_games_outside_1_to_a_million_is_one_line(games):
    """``games`` had no upper bound: 10^15 built its schedule in memory until the machine gave out."""
    with pytest.raises(ValueError, match=rf"^games must be an int from 1 to 1,000,000 \(one tournament; for more "
                                         rf"deals, evaluate other --seed values and pool them\), got {games!r}$"):
        ev.evaluate(["random", "heuristic"], games=games, config=SMALL, progress=False)


def test_deals_that_share_an_environment_seed_are_two_deals_in_a_result_a_pool_and_a_comparison(monkeypatch):
    """The 31-bit environment seed does not name a deal (two of a 10,000-deal evaluation's deals share one
    in about one run in 40, two such evaluations of other seeds in about one pair in 20): deals are named by
    the seed and their number (``deal_key``).  Made to collide here (deals 2k and 2k + 1 of every seed
    share one): the deals were counted as one, a substitute was compared with the other deal's reference
    game, ``pool`` refused other seeds' evaluations as sharing a deal and ``compare`` kept one pair of two;
    the intervals of the other metrics (deduction, deception, bluffing, ...) took them as one deal."""
    assert not hasattr(ev.GameTask, "deal_id")      # one name for a deal: deal_key (was GameTask.deal_id too)
    monkeypatch.setattr(ev, "_env_seed", lambda seed, deal: 1000 + deal // 2)
    kw = dict(config=SMALL, games=20, mode="substitution", reference="heuristic", progress=False,
              record_beliefs=False, observer=False)
    a, b = (ev.evaluate(["random", "heuristic"], seed=seed, **kw) for seed in (5, 6))
    assert [g["env_seed"] for g in a["games"] if g["kind"] == "reference"] == [1000, 1000, 1001, 1001]
    delta = a["substitution"]["candidates"]["random"]["overall"]
    assert delta["pairs"] == 16 and delta["deals"] == 4 and a["winrates"]["random"]["overall"]["deals"] == 4
    refs = {g["deal"]: g for g in a["games"] if g["kind"] == "reference"}
    diffs = [int(g["focus_seat"] in g["winners"]) - int(g["focus_seat"] in refs[g["deal"]]["winners"])
             for g in a["games"] if g["kind"] == "substitute"]
    assert delta["delta"] == pytest.approx(np.mean(diffs))        # each against its own deal's reference
    pooled = ev.pool_results([a, b])
    assert pooled["substitution"]["candidates"]["random"]["overall"]["deals"] == 8
    assert [g["seed"] for g in pooled["games"]] == [5] * 20 + [6] * 20
    c = ev.evaluate(["belief", "heuristic"], seed=5, **dict(kw, record_beliefs=True, observer=True))
    assert c["deduction"]["belief"]["overall"]["deals"] == c["deception"]["heuristic"]["deals"] == 4
    paired = ev.paired_delta(a, c)
    assert paired["shared"] == 16 and paired["roles"]["overall"]["deals"] == 4
    assert ev.paired_delta(pooled, ev.pool_results([c, ev.evaluate(["belief", "heuristic"], seed=6, **kw)]))[
        "shared"] == 32
    # a pooled result written before its games held their seed: they are its sources', in order
    old = dict(pooled, games=[{k: v for k, v in g.items() if k != "seed"} for g in pooled["games"]])
    assert ev.pool_results([old, ev.evaluate(["random", "heuristic"], seed=7, **kw)])["meta"]["deals"] == 12


def test_the_shards_of_a_tournament_pooled_are_the_tournament(tmp_path, capsys):
    """``--shard I/N`` plays the I-th of N contiguous parts of the deals (deal numbers, hence
    environment and bot seeds, as in the whole tournament); its shards pooled give the whole
    tournament's games and metrics; a shard outside 1..N, more shards than deals or a
    malformed ``--shard`` are one-line errors before any game."""
    kw = dict(config=SMALL, games=25, seed=9, mode="substitution", reference="heuristic", progress=False,
              record_beliefs=False, observer=False)
    whole = ev.evaluate(["random", "heuristic"], **kw)
    parts = [ev.evaluate(["random", "heuristic"], shard=(i, 2), **kw) for i in (1, 2)]
    assert [p["meta"]["shard"] for p in parts] == [{"index": 1, "of": 2, "first_deal": 0, "deals_total": 5},
                                                   {"index": 2, "of": 2, "first_deal": 2, "deals_total": 5}]
    assert [p["meta"]["deals"] for p in parts] == [2, 3]
    assert [g["deal"] for g in parts[1]["games"]][:1] == [2]

    def same(g):
        return {k: v for k, v in g.items() if k != "index"}
    assert [same(g) for p in parts for g in p["games"]] == [same(g) for g in whole["games"]]
    pooled = ev.pool_results(parts)
    for key in ("summary", "winrates", "crossplay", "substitution", "ratings"):
        assert pooled[key] == json.loads(json.dumps(whole[key])), key
    assert [s["shard"]["index"] for s in pooled["meta"]["pooled"]] == [1, 2] and "shard" not in pooled["meta"]
    # given in another order, the shards are pooled in the order of their deals: the ratings, updated
    # game by game, came out otherwise (so did the intervals' last digits)
    assert ev.pool_results(parts[::-1], sources=["second", "first"]) == \
        ev.pool_results(parts, sources=["first", "second"])
    one = ev.evaluate(["random", "heuristic"], shard=(1, 1), **kw)
    assert [same(g) for g in one["games"]] == [same(g) for g in whole["games"]]
    assert list(ev.shard_deals(1000, 2, 3)) == list(range(333, 666))
    for bad, why in (((3, 2), r"shard 3/2: the shard's number must lie in 1\.\.2"),
                     ((1, 0), r"shard 1/0: the number of shards must be 1 or more"),
                     ((0, 2), r"shard 0/2: the shard's number must lie in 1\.\.2"),
                     ((6, 6), r"shard 6/6: 5 deals cannot be split into 6 shards")):
        with pytest.raises(ValueError, match=why):
            ev.evaluate(["random", "heuristic"], shard=bad, **kw)
    args = ["evaluate", "--players", "4", "--starting-life", "10", "--max-turns", "60", "--agents", "random,heuristic",
            "--mode", "substitution", "--reference", "heuristic", "--games", "25", "--seed", "9", "--no-progress",
            "--no-observer", "--no-beliefs"]
    assert main(args + ["--shard", "2/2", "--out", str(tmp_path / "s2")]) == 0
    assert capsys.readouterr().out.startswith("15 games (3 deals x 5), 4 players, mode substitution, seed 9, "
                                              "shard 2/2 (deals 2-4 of 5), no CR 900 variants (game: "
                                              "starting_life=10, max_turns=60; the other fields GameConfig's "
                                              "defaults): ")
    assert "seed 9, shard 2/2 (deals 2-4 of 5), deals: 3" in (tmp_path / "s2" / "results.md").read_text()
    for text in ("2", "a/b", "1/2/3"):
        assert main(args + ["--shard", text, "--out", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err
        assert err == f"treachery evaluate: error: --shard must be I/N (the I-th of N shards, e.g. 2/4), got {text!r}\n"
    assert not (tmp_path / "x").exists()


def test_results_written_over_earlier_ones_leave_none_of_their_plots(tmp_path):
    """A second evaluation into the same ``--out`` (``force``) replaced results.json but left the
    first's deduction plot beside it (issue #14); now a plot these results lack is removed, and
    nothing but the plots' own names is touched."""
    kw = dict(config=SMALL, games=8, seed=2, progress=False, observer=False)
    ev.evaluate(["test_uniform_belief", "random"], out_dir=tmp_path, **kw)
    assert (tmp_path / "deduction.png").exists()
    (tmp_path / "mine.png").write_bytes(b"x")
    (tmp_path / "notes.txt").write_text("keep")
    ev.evaluate(["random", "random"], out_dir=tmp_path, record_beliefs=False, force=True, **kw)
    assert not (tmp_path / "deduction.png").exists()
    assert (tmp_path / "winrates.png").exists() and (tmp_path / "crossplay.png").exists()
    assert (tmp_path / "mine.png").read_bytes() == b"x" and (tmp_path / "notes.txt").read_text() == "keep"
    assert "deduction.png" not in (tmp_path / "results.md").read_text()


def test_the_win_rate_plot_s_legend_covers_no_bar_nor_interval(monkeypatch):
    """winrates.png (write_results, notebook 05): the legend sat where matplotlib found room inside
    the axes, and with tall bars in every group there was none: it covered bars and intervals
    (in notebook 05's quick run, the Leader group's).  Here every bar is tall."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.transforms import Bbox

    from training import plots
    cell = {"rate": 0.9, "lo": 0.7, "hi": 1.0, "games": 8, "wins": 7}
    labels = ["random", "heuristic", "belief", "ismcts", "flagship"]
    res = {"summary": {"games": 40},
           "winrates": {lab: {"roles": {r: dict(cell) for r in ROLE_NAMES}, "overall": dict(cell)} for lab in labels}}
    figures = []
    real_png = plots._png
    monkeypatch.setattr(plots, "_png", lambda fig: figures.append(fig) or real_png(fig))
    assert plots.winrates_png(res).startswith(b"\x89PNG")
    fig, = figures
    renderer = FigureCanvasAgg(fig).get_renderer()
    ax, = fig.axes
    legend = ax.get_legend().get_window_extent(renderer)
    # the bars and the caps by their extents; the intervals (a LineCollection has none) segment by segment
    drawn = [a.get_window_extent(renderer) for a in ax.patches + ax.lines]
    drawn += [Bbox(ax.transData.transform(seg)) for c in ax.collections for seg in c.get_segments()]
    assert len(ax.patches) == len(labels) * 5 and len(drawn) == len(labels) * 5 * 2 + len(ax.lines)
    covered = [box for box in drawn if box.overlaps(legend)]
    assert not covered, covered


def test_a_worker_dies_of_sigterm_even_when_its_parent_catches_it():
    """A forked worker inherits the parent's SIGTERM handler (catch_sigterm); _init_worker puts the
    default back, so the pool's terminate() on Ctrl-C ends the worker instead of raising inside it
    (the pool's worker loop caught that, and the evaluation hung after "interrupted")."""
    import signal
    import subprocess
    import sys

    script = ("import os, signal, time\n"
              "from training.interrupts import catch_sigterm\n"
              "from training.evaluate import _init_worker\n"
              "catch_sigterm()\n_init_worker(os.getppid())\n"
              "os.kill(os.getpid(), signal.SIGTERM)\ntime.sleep(30)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGTERM, done.stderr[-1000:]


def test_games_rounded_up_to_whole_deals_are_said_before_they_are_played(capsys):
    """A trial's ``--games 12`` quietly played 15 games (whole deals of 5): the count and the
    rounding are said on stderr before the games, once, with the progress bar or without it (it was
    said only with the bar: ``--no-progress`` played 15 games of 12 without a word)."""
    res = ev.evaluate(["random", "random"], games=5, seed=2, config=SMALL, progress=True, record_beliefs=False,
                      observer=False)
    per = res["meta"]["games_per_deal"]
    assert res["summary"]["games"] > 5
    err = capsys.readouterr().err
    assert (f"{res['summary']['games']} games: {res['meta']['deals']} deals (--games 5 rounded up to whole deals of "
            f"{per} games)") in err
    ev.evaluate(["random", "random"], games=5, seed=2, config=SMALL, progress=False, record_beliefs=False,
                observer=False)
    assert capsys.readouterr().err == (f"{res['summary']['games']} games: {res['meta']['deals']} deals (--games 5 "
                                       f"rounded up to whole deals of {per} games)\n")
    ev.evaluate(["random", "random"], games=2 * per, seed=2, config=SMALL, progress=False, record_beliefs=False,
                observer=False)
    assert capsys.readouterr().err == ""                 # whole deals: nothing to say


def test_one_deal_is_said_in_the_singular_in_the_rounding_notice(capsys):
    """``--games 1`` of two bots said "2 games: 1 deals (...)": one deal is "1 deal" now."""
    res = ev.evaluate(["random", "random"], games=1, seed=2, config=SMALL, progress=True, record_beliefs=False,
                      observer=False)
    assert res["meta"]["deals"] == 1 and res["meta"]["games_per_deal"] == 2
    assert "2 games: 1 deal (--games 1 rounded up to whole deals of 2 games)" in capsys.readouterr().err


# --------------------------------------------------------------------------- lockstep
def _batches(monkeypatch) -> list:
    """Record the size of every forward pass a lockstep evaluation runs (this process)."""
    import agents.policy as pol
    sizes: list = []
    orig = pol.forward_requests

    def counting(requests):
        sizes.append(len(requests))
        return orig(requests)
    monkeypatch.setattr(pol, "forward_requests", counting)
    return sizes


def test_a_lockstep_evaluation_plays_the_same_games_with_the_policies_batched(policy_4p, monkeypatch):
    """``lockstep``: a worker's chunk of games is played together, the policies' decisions
    batched (forward passes of several rows ran); every game, win and seat is the one the
    game-by-game evaluation played, the belief metrics equal to float rounding, and
    ``meta["lockstep"]`` says so.  Without it every pass is one decision, and an
    evaluation is bit for bit as before (the same command twice: the same results)."""
    kw = dict(games=48, seed=3, config=SMALL, mode="substitution", reference="heuristic", progress=False,
              observer=False)
    specs = [f"policy:{policy_4p}:greedy", "heuristic"]
    sizes = _batches(monkeypatch)
    plain = ev.evaluate(specs, **kw)
    assert sizes and max(sizes) == 1 and "lockstep" not in plain["meta"]
    sizes.clear()
    batched = ev.evaluate(specs, lockstep=True, **kw)
    assert max(sizes) >= 3 and batched["meta"]["lockstep"] is True
    assert batched["games"] == plain["games"] and batched["substitution"] == plain["substitution"]
    assert batched["winrates"] == plain["winrates"]
    label = f"policy:{policy_4p}:greedy"
    a, b = plain["deduction"][label]["overall"], batched["deduction"][label]["overall"]
    assert a["n"] == b["n"] > 100
    for key in ("logloss", "brier", "top1", "p_true"):
        assert b[key] == pytest.approx(a[key], rel=1e-6, abs=1e-9), key
    again = ev.evaluate(specs, lockstep=True, **kw)
    assert _strip_timing(again) == _strip_timing(batched)
    assert _strip_timing(ev.evaluate(specs, **kw)) == _strip_timing(plain)


def test_forward_requests_batch_rows_that_equal_each_pass_alone(policy_4p):
    """``forward_requests``: a single request is exactly the pass ``act`` makes; several
    of one network are one pass whose rows equal their passes alone (to float rounding);
    the finished decisions are the bots' legal actions."""
    import torch

    from agents.policy import PolicyAgent, forward_requests
    from scenario import random_game

    states = []
    for seed in range(12):
        g = random_game(seed, 40 + 9 * seed, n=4, max_turns=60)
        if not g.is_over:
            states.append(g.observation(g.current_player))
    bots = [PolicyAgent(policy_4p, seed=i, greedy=True) for i in range(len(states))]
    for i, b in enumerate(bots):
        b.reset(i % 4)
    reqs = [b.forward_request(o, {}) for b, o in zip(bots, states)]
    together = forward_requests(reqs)
    for r, (logits, belief, h) in zip(reqs, together):
        alone = forward_requests([r])[0]
        with torch.inference_mode():
            direct = r.net(r.x, r.h, mask=r.mask, prior=r.prior)
        assert torch.equal(alone[0], direct[0][0]) and torch.equal(alone[2], direct[3])
        torch.testing.assert_close(logits, alone[0], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(belief, alone[1], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(h, alone[2], rtol=1e-5, atol=1e-5)
    actions = [r.finish(*out) for r, out in zip(reqs, together)]
    assert all(o["action_mask"][a] for o, a in zip(states, actions))
    assert len(states) >= 8


def test_lockstep_without_a_policy_plays_the_default_games_and_does_not_say_lockstep():
    """With no trained policy among the entrants nothing is batched: a ``lockstep`` evaluation
    plays the default's games, and its result carries no ``meta["lockstep"]`` (it would claim a
    difference there is none of)."""
    kw = dict(games=12, seed=5, config=SMALL, mode="substitution", reference="heuristic", progress=False,
              observer=False)
    plain = ev.evaluate(["random", "heuristic"], **kw)
    stepped = ev.evaluate(["random", "heuristic"], lockstep=True, **kw)
    assert "lockstep" not in stepped["meta"]
    assert _strip_timing(stepped) == _strip_timing(plain)


def test_a_forward_pass_that_fails_in_lockstep_names_the_bot(policy_4p, monkeypatch):
    """A forward pass that raises inside ``run_games`` is the first waiting game's
    ``BotError``, naming its seat and the policy's class (as ``act`` raising would)."""
    import agents.policy as pol
    from agents.play import BotError, game_steps, run_games

    def broken(requests):
        raise RuntimeError("simulated forward failure")
    monkeypatch.setattr(pol, "forward_requests", broken)
    bots = [agents.make(f"policy:{policy_4p}", seed=0)] + [agents.make("random", seed=s) for s in range(1, 4)]
    with pytest.raises(BotError, match=r"the bot in seat 0 \(PolicyAgent\) raised RuntimeError at "
                                       r"\S*test_evaluate\.py:\d+ in broken on turn \d+: simulated forward failure$"):
        run_games([game_steps(bots, SMALL, seed=1)])


def test_pooled_results_say_which_parts_were_played_in_lockstep(policy_4p):
    kw = dict(games=8, seed=2, config=SMALL, mode="substitution", reference="random", progress=False,
              observer=False, record_beliefs=False)
    specs = [f"policy:{policy_4p}:greedy", "random"]
    parts = [ev.evaluate(specs, shard=(1, 2), lockstep=True, **kw), ev.evaluate(specs, shard=(2, 2), **kw)]
    pooled = ev.pool_results(parts, ["a", "b"])
    assert "lockstep" not in pooled["meta"]
    assert [p.get("lockstep", False) for p in pooled["meta"]["pooled"]] == [True, False]
    assert "- played in lockstep (--lockstep)" in ev.render_markdown(parts[0])    # results.md says so
    assert "lockstep" not in ev.render_markdown(parts[1])
    assert "- pooled parts played in lockstep (--lockstep): 1 of 2" in ev.render_markdown(pooled)


def test_the_flagship_in_lockstep_plays_the_games_it_plays_alone(monkeypatch):
    """The shipped flagship (a proposal network with an advantage gate) in lockstep: its
    forward passes run batched, its gate one decision at a time (batching the gate bought
    nothing measurable and moved its near-ties), and the games, results and the gate's
    counts (searched, departed) are those of the game-by-game run."""
    import agents.policy as pol

    sizes: list = []
    fwd = pol.forward_requests
    monkeypatch.setattr(pol, "forward_requests", lambda r: sizes.append(len(r)) or fwd(r))
    kw = dict(games=24, seed=1, mode="substitution", reference="heuristic", progress=False, observer=False,
              record_beliefs=False)
    specs = ["policy:checkpoints/flagship/policy.pt:greedy", "heuristic"]
    plain = ev.evaluate(specs, **kw)
    assert max(sizes) == 1
    sizes.clear()
    batched = ev.evaluate(specs, lockstep=True, **kw)
    assert max(sizes) >= 4
    assert batched["games"] == plain["games"] and batched["substitution"] == plain["substitution"]
    assert batched["gate"] == plain["gate"] and plain["gate"][specs[0]]["searched"] > 50


def test_the_results_seed_deals_every_game_again(tmp_path):
    """README, ``--isolate``: the games are dealt from ``--seed`` by the project's code, so whoever
    knows the seed deals each game again, face-down identities included; deal 0 of ``--seed 0``
    is environment seed 1279504190 (the README's example)."""
    out = tmp_path / "r"
    assert main(["evaluate", "--agents", "heuristic,random", "--games", "5", "--out", str(out), "--no-progress",
                 "--no-observer", "--no-beliefs"]) == 0
    game = json.loads((out / "results.json").read_text())["games"][0]
    assert game["deal"] == 0 and game["env_seed"] == ev._env_seed(0, 0) == 1279504190
    assert [Role(r).name.title() for r in ev.dealt_roles(GameConfig(num_players=5), 1279504190)] == game["dealt_roles"]


def test_pool_refuses_shards_of_evaluations_of_other_sizes(tmp_path, capsys):
    """Shard 1/2 of a 20-game tournament (deals 0-1) and shard 2/2 of a 30-game one (deals 3-5)
    pooled skipped deal 2 and read as one tournament; shards of one seed pooled must be of the
    same tournament, and the parts of one seed may leave no deal out between them: one line
    naming the two files and what differs.  A whole run beside the next shard of a larger
    tournament of its seed (README: ``--games 6000`` with ``--games 12000 --shard 2/2``), and
    shards of other seeds (other evaluations), still pool."""
    kw = dict(config=SMALL, seed=9, mode="substitution", reference="heuristic", progress=False,
              record_beliefs=False, observer=False)

    def run(name, games, shard=None, seed=9):
        return ev.evaluate(["random", "heuristic"], games=games, shard=shard, out_dir=tmp_path / name,
                           **dict(kw, seed=seed))
    a, b = run("a", 20, (1, 2)), run("b", 30, (2, 2))
    assert [r["meta"]["shard"]["first_deal"] for r in (a, b)] == [0, 3]
    with pytest.raises(ValueError, match=r"^B and A are shards of different evaluations of seed 9: shard 2/2 of "
                                         r"6 deals vs shard 1/2 of 4 deals \(another --games\)"):
        ev.pool_results([a, b], sources=["A", "B"])
    c = run("c", 30, (1, 2))        # deals 0-2, then shard 2/2 of 20 (deals 2-3): deal 2 twice
    with pytest.raises(ValueError, match=r"^B and C are shards of different evaluations of seed 9"):
        ev.pool_results([c, run("d", 20, (2, 2))], sources=["C", "B"])
    assert main(["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert err == (f"treachery pool: error: {tmp_path / 'b'} and {tmp_path / 'a'} are shards of different "
                   f"evaluations of seed 9: shard 2/2 of 6 deals vs shard 1/2 of 4 deals (another --games); "
                   f"pool the shards of one --games\n")
    assert not (tmp_path / "p").exists()
    # a whole run and the shard after its deals: the README's use, the larger tournament
    whole, next_half = run("w", 10), run("n", 20, (2, 2))
    pooled = ev.pool_results([whole, next_half])
    assert pooled["meta"]["deals"] == 4
    assert pooled["substitution"] == json.loads(json.dumps(run("all", 20)["substitution"]))
    # a whole run of fewer deals leaves deal 1 out before that shard
    with pytest.raises(ValueError, match=r"^S \(deals 0-0\) and N \(deals 2-3\) are parts of seed 9's evaluation "
                                         r"that leave deal 1 out"):
        ev.pool_results([run("s", 5), next_half], sources=["S", "N"])
    # inside a pooled result, each of its sources counts
    mixed = ev.pool_results([a, run("o", 10, seed=10)], sources=["A", "O"])
    with pytest.raises(ValueError, match=r"^B and P's source A are shards of different evaluations of seed 9"):
        ev.pool_results([mixed, b], sources=["P", "B"])
    # shards of other seeds are other evaluations
    assert ev.pool_results([a, run("e", 30, (2, 2), seed=10)])["meta"]["seed"] == [9, 10]


def test_evaluate_refuses_arguments_a_researcher_gets_wrong_in_one_line():
    # a num_players that contradicts the config was played at the config's size without a word
    with pytest.raises(ValueError, match=r"num_players=6 contradicts the config's num_players=4"):
        ev.evaluate(["random", "random"], num_players=6, config=SMALL, games=4, progress=False)
    # the agreeing pair and the config alone still play
    assert ev.evaluate(["random", "random"], num_players=4, config=SMALL, games=4, progress=False)["meta"][
        "num_players"] == 4
    # a string was read letter by letter (unknown agent specs ['r', 'a', ...])
    with pytest.raises(ValueError, match=r"specs must be a list of agent specs .*got the string 'random,heuristic'"):
        ev.evaluate("random,heuristic", config=SMALL, games=4, progress=False)
    # a bot object: AttributeError 'RandomAgent' object has no attribute 'strip'
    with pytest.raises(ValueError, match=r"specs must be agent specs \(strings\).*got a RandomAgent.*MODULE:CLASS"):
        ev.evaluate([agents.make("random"), "random"], config=SMALL, games=4, progress=False)
    # numpy's "expected non-negative integer", which named no argument
    for seed in (-1, 1.5, "0"):
        with pytest.raises(ValueError, match=rf"seed must be an int >= 0, got {seed!r}"):
            ev.evaluate(["random", "random"], config=SMALL, games=4, seed=seed, progress=False)


def test_a_result_of_few_deals_says_its_intervals_are_too_narrow(tmp_path, capsys):
    """Under 50 deals the intervals (over deals, with the normal quantile) are too narrow, and the
    printed tables and results.md say so in one line (a newcomer's 4-deal tournament printed
    intervals with no caveat; found by a fresh user's trial); at 50 deals nothing is said."""
    assert main(["evaluate", "--agents", "random,heuristic", "--games", "10", "--no-progress", "--out",
                 str(tmp_path / "r")]) == 0
    assert "note: only 2 deals: the intervals, over deals with the normal quantile, are too narrow below 50" \
        in capsys.readouterr().out
    assert "\n- only 2 deals: the intervals" in (tmp_path / "r" / "results.md").read_text()
    assert ev.few_deals_note({"meta": {"deals": 50}}) is None and ev.few_deals_note({"meta": {"deals": 49}})
