"""What the bots know of Throne Magic (``../shared/rules/throne-magic.txt``): whom a seat wants
out of the game, from the Roles it knows and the public Role set.

Throne Magic has no teams: each Role card lists the Roles that must leave the game for its
player to win ("Winning the Game"), a directed graph (:mod:`treachery_env.throne_roles`).  A
bot's ``want`` (the number per seat its decisions start from, :mod:`agents.heuristic`) is
then an expectation over the Roles another seat may hold:

* a seat whose Role is on the bot's own list is an enemy (it must leave for the bot to win);
* a seat whose list names the bot's Role hunts it: a lesser enemy (it will attack);
* a seat that hunts none of the bot's targets' enemies and shares a target with the bot is
  an ally (their wins come together: The King and the King's Bannerman).

:func:`role_probabilities` gives each seat's Role distribution from the view alone (the
Roles the seat knows, the others uniform over the Roles not yet placed: exact for a uniform
deal, the reference the belief bot's posterior sharpens); :func:`throne_want` turns a
distribution into ``want``; :class:`ThroneBelief` is the belief bot's posterior over the
assignments of the unknown Roles to the unknown seats, from who attacked and hurt whom.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import permutations

import numpy as np

from treachery_env import throne_roles as tr

__all__ = ["role_probabilities", "throne_want", "ThroneBelief", "ENEMY", "HUNTER", "ALLY", "MAX_EXACT", "BOTS"]

BOTS = ("heuristic", "belief", "random")
"""The bots that play Throne Magic (the search bots deal Treachery identities; the trained
policies read Treachery's observation layout)."""

MAX_EXACT = 7
"""Unknown seats up to which :class:`ThroneBelief` enumerates every assignment (7! = 5,040)."""

ENEMY = 1.3
"""``want`` of a seat certain to hold a Role on the bot's own list."""
HUNTER = 0.5
"""``want`` added for a seat certain to hold a Role whose list names the bot's Role."""
ALLY = -1.2
"""``want`` of a seat certain to hold an ally Role (shares a target, hunts neither the bot nor
an ally of it)."""


def role_probabilities(view) -> list[dict[str, float]]:
    """Each seat's Role as a distribution over Role names, from ``view`` (a Throne Magic
    :class:`~treachery_env.view.SeatView`): a known Role is certain; the Roles not known
    anywhere are spread uniformly over the seats whose Role the view does not know.

    Returns:
        one ``{role: probability}`` per seat (empty during a Draft, when no Role is dealt).
    """
    tm = view.throne_magic
    if len(tm.roles) < len(tm.known):
        return [{} for _ in tm.known]
    unknown_roles = [r for r in tm.roles if r not in tm.known]
    share = 1.0 / len(unknown_roles) if unknown_roles else 0.0
    return [{r: 1.0} if r is not None else {u: share for u in unknown_roles} for r in tm.known]


def _relation(mine: str, other: str, roles: tuple) -> float:
    """``want`` of a seat certain to hold ``other``, for a bot holding ``mine`` in a game of ``roles``."""
    me = tr.get(mine)
    them = tr.get(other)
    targets = me.must_eliminate & set(roles)
    w = 0.0
    if other in targets:
        w += ENEMY
    if mine in them.must_eliminate:
        w += HUNTER
    if w == 0.0 and targets & them.must_eliminate:
        w = ALLY            # no conflict between us, a common target: our wins come together
    return w


def throne_want(view, probabilities: list[dict[str, float]] | None = None) -> dict[int, float]:
    """``want[s]`` for every seat (see the module docstring): the bot itself -3, seats out of the
    game 0, the others the expected relation over ``probabilities`` (default:
    :func:`role_probabilities`); 0 for everyone during a Draft.

    Returns:
        ``{seat: want}``.
    """
    tm = view.throne_magic
    mine = view.seat
    probs = role_probabilities(view) if probabilities is None else probabilities
    my_role = tm.known[mine]
    want: dict[int, float] = {}
    for p in view.players:
        s = p.seat
        if s == mine:
            want[s] = -3.0
        elif not p.in_game or my_role is None:
            want[s] = 0.0
        else:
            want[s] = sum(pr * _relation(my_role, r, tm.roles) for r, pr in probs[s].items())
    return want


@lru_cache(maxsize=None)
def _permutations(n: int, k: int) -> np.ndarray:
    """Every ordered choice of ``k`` of ``n`` indices, int16 ``(n! / (n - k)!, k)`` (cached)."""
    return np.array(list(permutations(range(n), k)), dtype=np.int16).reshape(-1, k)


class ThroneBelief:
    """A posterior over the assignments of the Roles nobody has shown the viewer to the seats
    it does not know (Throne Magic; the belief bot's deduction, :mod:`agents.belief`).

    Prior: uniform over those assignments (a uniform deal, "Public and Private
    Information").  Evidence: the public history ``view.harm`` and ``view.attacks``; each
    hostile act of seat ``i`` (an attack counts 1, a point of harm 1/2) is read as a draw of
    its target ``j`` from ``p(j | role_i) ∝ (1 - noise) * w + noise``, where ``w = 1 +
    weight * P(j's Role is on role_i's list)`` with ``j``'s Role distributed as
    :func:`role_probabilities` says (a mean-field reading: ``i`` does not know ``j``'s Role
    either), tempered by ``temperature`` (acts are not independent).  The likelihood
    factorises over seats; with up to :data:`MAX_EXACT` unknown seats every assignment is
    enumerated, above that each seat's marginal is its own normalised likelihood times the
    prior (the one-Role-per-seat coupling is dropped: an approximation).

    Args:
        temperature: exponent of the likelihood, 0 to 1.
        noise: weight of a uniform target, 0 to 1.
        weight: how much likelier a listed target is than another.
    """

    def __init__(self, temperature: float = 0.6, noise: float = 0.3, weight: float = 3.0):
        self.temperature = temperature
        self.noise = noise
        self.weight = weight

    def beliefs(self, view) -> list[dict[str, float]]:
        """Each seat's Role distribution given ``view`` (known Roles certain).

        Returns:
            one ``{role: probability}`` per seat (empty during a Draft).
        """
        prior = role_probabilities(view)
        tm = view.throne_magic
        seats = [s for s, r in enumerate(tm.known) if r is None]
        if not seats or not prior[seats[0]]:
            return prior
        roles = [r for r in tm.roles if r not in tm.known]
        n = len(tm.known)
        lists = {r: tr.get(r).must_eliminate for r in roles}
        # P(j's Role is on r's list), by the prior marginals
        on_list = {r: [sum(p for role, p in prior[j].items() if role in lists[r]) for j in range(n)] for r in roles}
        loglik = np.zeros((len(seats), len(roles)))
        for a, i in enumerate(seats):
            acts = [view.attacks[i][j] + view.harm[i][j] / 2.0 if j != i else 0.0 for j in range(n)]
            if not any(acts):
                continue
            for b, r in enumerate(roles):
                w = [1.0 + self.weight * on_list[r][j] if j != i else 0.0 for j in range(n)]
                total = sum(w)
                ll = 0.0
                for j in range(n):
                    if acts[j]:
                        p = (1.0 - self.noise) * w[j] / total + self.noise / (n - 1)
                        ll += acts[j] * math.log(p)
                loglik[a, b] = self.temperature * ll
        post = [dict(d) for d in prior]
        if len(seats) <= MAX_EXACT:
            perms = _permutations(len(roles), len(seats))          # (k, seats): a Role index per seat
            logw = loglik[np.arange(len(seats)), perms].sum(axis=1)
            w = np.exp(logw - logw.max())
            w /= w.sum()
            marg = np.zeros((len(seats), len(roles)))
            for a in range(len(seats)):
                np.add.at(marg[a], perms[:, a], w)
        else:
            e = np.exp(loglik - loglik.max(axis=1, keepdims=True))
            marg = e / e.sum(axis=1, keepdims=True)
        for a, s in enumerate(seats):
            post[s] = {r: float(marg[a, b]) for b, r in enumerate(roles)}
        return post
