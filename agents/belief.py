"""The belief bot: a Bayesian posterior over hidden roles, and play that uses it.

``agents.make("belief", seed)`` builds a :class:`BeliefAgent`.

Deduction (:class:`RoleBelief`)
    The hidden state is the assignment of roles to the seats whose identity the
    bot does not know.  The prior is uniform over the assignments consistent
    with the public identity deck (``view.role_counts``, TR2.3: whatever deck
    was dealt, CR 907.3b-c or TR11), minus the roles it knows (its
    own, the face-up ones, the ones it was shown, those revealed on loss).

    The evidence is the cumulative public history ``view.harm[i][j]`` (damage
    and life loss seat ``i`` caused to seat ``j``) and ``view.attacks[i][j]``
    (creatures ``i`` attacked ``j`` with).  Each hostile act of a face-down
    seat ``i`` is read as a draw of its target ``j`` from a role-conditional
    distribution ``p(j | role_i) ∝ w[role_i][category(j)]`` (categories: the
    Leader, face-up Guardian / Assassin / Traitor, face-down), mixed with a
    uniform "noise" component (players make random-looking plays) and tempered
    (acts are not independent).  An Assassin hits the Leader far more often
    than a Guardian does; a Guardian hits unveiled Assassins and Traitors.
    Each seat is also, with prior probability ``random_player``, a player whose
    targets ignore its role (a whole-game mixture, so that evidence against the
    role model sends the posterior back to the prior rather than to
    overconfidence), and with prior probability ``random_table`` the whole
    table is (Bayesian model averaging: the posterior mixes the role model's
    answer and the prior by their evidence).  Because a face-down player does not know the other
    face-down roles, the likelihood factorises over seats: ``L(assignment) = prod_i f_i(role_i)``.

    Table talk (TR10.5) is evidence too, but cheap talk: anyone may say
    anything, so every ratio is modest.  Only each speaker's *latest*
    statement in a slot counts (``view.talk``), so repeating a statement adds
    nothing.  Of a face-down speaker the model reads (:data:`CLAIM_LIKELIHOOD`,
    :data:`THREAT_LEADER`, :data:`DEFEND_LEADER`): its claimed role (a
    Guardian claims Guardian, but so do most Assassins and Traitors: the
    ratio Guardian : Assassin for a Guardian claim is 0.85 : 0.6, about 1.4),
    whether its latest intent towards the Leader is a threat or a promise to
    protect (a threat is about 3 times likelier from an Assassin than from a
    Guardian), and whether it defends or accuses the Leader.  Of a face-down
    subject it reads the accusations others made about it: "X is a R" makes R
    ``ACCUSE_RATIO`` = 1.5 times likelier for X than each other role (the
    speaker is guessing too), and a face-up Leader's "X is on my side" makes
    Guardian 1.5 times likelier.  Speaker terms sit inside each seat's
    ``random_player`` mixture (a uniform talker says each claim with
    probability 1/4, threatens or protects with 1/2, defends with 1/5, as the
    random bot does), so a random talker's words send the posterior back to
    the prior; every term is scaled by ``talk_weight``.

    The posterior is computed by exact enumeration of the distinct role
    assignments of the remaining multiset of roles to the unknown seats (at
    most 4,620 for 12 players) and normalised; marginals give
    :meth:`RoleBelief.beliefs`.  It is a pure function of the view (the same
    information set always gives the same beliefs): of the part of it the
    model reads, :class:`ViewEvidence`.  Most decisions follow one with the
    same evidence (nothing hostile happened, nothing was said or unveiled), so
    the model keeps its last answer for each viewing seat and recomputes only
    when that seat's evidence changed; the computation reads nothing but the
    evidence, so a kept answer is always the one a recomputation would give.

Play (:class:`BeliefAgent`)
    A compact role-aware policy driven by the beliefs: the hostility of each
    seat is the belief-weighted hostility of the bot's role towards each role
    (an Assassin towards the Leader and Guardians, a Guardian towards
    Assassins and Traitors, a Traitor towards the Assassins first), and the bot
    plays lands, curves out (most expensive castable spell first), attacks
    with its creatures at the most hostile seat, points harmful spells at
    the most hostile seat or its best creature, helpful ones at itself or its
    believed allies, blocks to survive, counters enemy spells, and unveils when
    its side needs it.  Before the game it takes one (free, CR 103.5c)
    mulligan of a hand with 0-1 lands or all but one land, and bottoms a land
    when over half the hand is lands, else its costliest spell (CR 103.5
    London mulligan).  It never concedes.  In Throne Magic its hostility is
    :func:`agents.throne.throne_want` over its posterior; each Throne or Holding worth it
    (:func:`agents.throne.locations_to_attack`) gets the first creature declared that survives
    every blocker of its controller (:func:`agents.heuristic.survives_blocks`, the heuristic's
    test) while none of its own attacks it (of enemies' Holdings, one a combat); a creature
    that would die goes at the most hostile seat, as its others do; the yes/no answers and the creature gifts are
    :func:`agents.throne.throne_answer` and :func:`agents.throne.gift`.  All ties are broken
    by seat and option order, so its choice is a function of its information set (and its
    seeded stream, which it uses only for undocumented choice kinds).
"""

from __future__ import annotations

from functools import lru_cache
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np

from treachery_env.cards import CARDS
from treachery_env.rules import Role

from . import register
from .base import BaseAgent, legal_actions, seat_view
from .heuristic import survives_blocks
from .throne import ThroneBelief, gift, locations_to_attack, throne_answer, throne_want

__all__ = ["HOSTILITY", "TARGET_WEIGHTS", "CLAIM_LIKELIHOOD", "THREAT_LEADER", "DEFEND_LEADER", "ACCUSE_RATIO",
           "BeliefAgent", "RoleBelief", "ViewEvidence", "SeatFacts", "TalkFacts"]

ROLES = (Role.LEADER, Role.GUARDIAN, Role.ASSASSIN, Role.TRAITOR)

# target categories of a seat, as a face-down actor sees it
_CAT_LEADER, _CAT_G, _CAT_A, _CAT_T, _CAT_HIDDEN = range(5)

TARGET_WEIGHTS = np.array([
    # Leader, face-up Guardian, face-up Assassin, face-up Traitor, face-down
    [0.05, 0.2, 2.5, 2.0, 1.0],   # a (hidden) Leader
    [0.05, 0.2, 2.5, 2.0, 1.0],   # Guardian: never the Leader, unveiled enemies
    [4.0, 2.0, 0.2, 1.0, 1.0],    # Assassin: the Leader first
    [1.2, 1.0, 1.8, 1.0, 1.0],    # Traitor: a bit of everyone, Assassins more
])
"""Relative odds that a face-down seat of each role (rows, ``Role`` order)
directs a hostile act at a target of each category (columns)."""

HOSTILITY = np.array([
    # towards Leader, Guardian, Assassin, Traitor
    [-2.0, -1.0, 1.0, 0.8],   # I am the Leader
    [-2.0, -1.0, 1.0, 0.8],   # Guardian
    [1.5, 1.0, -1.0, 0.4],    # Assassin
    [0.3, 0.6, 1.0, 0.7],     # Traitor: Assassins must fall before the Leader
])
"""How much the bot (rows: its role) wants to hurt a seat of each role (columns)."""

CLAIM_LIKELIHOOD = np.array([
    # claims Leader, Guardian, Assassin, Traitor
    [0.85, 0.05, 0.05, 0.05],   # a (face-down) Leader
    [0.05, 0.85, 0.05, 0.05],   # Guardian: the truth
    [0.10, 0.60, 0.20, 0.10],   # Assassin: mostly the Guardian lie
    [0.10, 0.65, 0.10, 0.15],   # Traitor: mostly the Guardian lie
])
"""P(latest claim | true role): rows and columns in ``Role`` order (TR1: say anything)."""
THREAT_LEADER = np.array([0.5, 0.15, 0.5, 0.35])
"""P(a speaker's latest intent towards the Leader is "I will attack" rather than
"I will protect" | its role), ``Role`` order."""
DEFEND_LEADER = np.array([0.5, 0.85, 0.6, 0.55])
"""P(a speaker's latest stance on the Leader is "on my side" rather than an
accusation | its role), ``Role`` order."""
ACCUSE_RATIO = 1.5
"""How much likelier "X is a R" makes R for X than each other role."""

# the talk terms' logarithms: by claimed role; by intent and stance towards the Leader; of an accusation's
# odds by the accused role and of a Leader's "on my side"
_LOG_CLAIM = np.log(CLAIM_LIKELIHOOD.T)
_LOG_THREAT, _LOG_PROTECT = np.log(THREAT_LEADER), np.log(1.0 - THREAT_LEADER)
_LOG_DEFEND, _LOG_ACCUSE_LEADER = np.log(DEFEND_LEADER), np.log(1.0 - DEFEND_LEADER)
_ACCUSE_ODDS = np.where(np.eye(4, dtype=bool), ACCUSE_RATIO, 1.0)
_LOG_ACCUSE = np.log(_ACCUSE_ODDS / _ACCUSE_ODDS.sum(axis=1, keepdims=True))
_LOG_ON_SIDE = _LOG_ACCUSE[int(Role.GUARDIAN)]

HARM_UNIT = 3.0
"""Life points of harm counted as one hostile act (an attacking creature is one)."""

_HARMFUL_OPS = {"damage", "destroy", "bounce", "tap", "stun", "exile", "lose", "discard", "head_games",
                "counter", "damage_each_creature", "wipe", "each_opponent_loses"}
_CARD_BY_NAME = {c.name: c for c in CARDS}


@lru_cache(maxsize=256)
def _assignments(counts: tuple) -> np.ndarray:
    """Distinct sequences with ``counts[r]`` copies of role ``r``: int8 array
    of shape ``(multinomial(k; counts), k)`` with ``k = sum(counts)``."""
    k = sum(counts)
    out: list[list[int]] = []
    cur: list[int] = []
    left = list(counts)

    def rec() -> None:
        if len(cur) == k:
            out.append(cur.copy())
            return
        for r in range(len(left)):
            if left[r]:
                left[r] -= 1
                cur.append(r)
                rec()
                cur.pop()
                left[r] += 1

    rec()
    arr = np.array(out, dtype=np.int8).reshape(len(out), k)
    arr.setflags(write=False)
    return arr


@lru_cache(maxsize=256)
def _assignment_tables(counts: tuple) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]:
    """What the posterior needs of :func:`_assignments` ``(counts)`` (``m``
    rows of ``k`` roles): ``flat`` int array ``(m, k)``, the index of each
    entry's (seat, role) in a flattened ``(k, 4)`` array; ``onehot``, per role
    a float64 ``(m, k)`` array with 1.0 where the assignment gives that seat
    that role; and ``prior`` ``(k, 4)``, each seat's share of assignments per
    role (the marginals of the uniform prior)."""
    A = _assignments(counts)
    k = A.shape[1]
    flat = A.astype(np.intp) + 4 * np.arange(k)
    onehot = tuple((A == r).astype(float) for r in range(4))
    prior = np.stack([(A == r).mean(axis=0) for r in range(4)], axis=1)
    for a in (flat, *onehot, prior):
        a.setflags(write=False)
    return flat, onehot, prior


@lru_cache(maxsize=512)
def _log_target_odds(weights: tuple, noise: float, cats: tuple) -> np.ndarray:
    """Log-probabilities of the target of a face-down seat's hostile act: float64 array of
    shape ``(n, n - 1, 4)`` for ``n = len(cats)``, ``[i, t, r]`` that seat ``i`` of role ``r``
    picks the ``t``-th other seat (ascending), from the target ``weights`` ``(4, 5)`` by
    category, each seat's category ``cats`` and the uniform ``noise`` mixed in."""
    n = len(cats)
    w = np.array(weights).T[list(cats)][_others(n)]
    p = w / w.sum(axis=1, keepdims=True)
    out = np.log((1.0 - noise) * p + noise / (n - 1))
    out.setflags(write=False)
    return out


@lru_cache(maxsize=16)
def _others(n: int) -> np.ndarray:
    """``(n, n - 1)`` int array: row ``i`` lists the seats other than ``i``, ascending."""
    out = np.array([[j for j in range(n) if j != i] for i in range(n)], dtype=np.intp).reshape(n, n - 1)
    out.setflags(write=False)
    return out


def _role_of(p: Any) -> Role | None:
    return None if p.role is None else Role(p.role)


class SeatFacts(NamedTuple):
    """What :class:`RoleBelief` reads of one seat's ``PlayerView``: its
    ``seat``, ``role`` (a ``Role`` or None when the viewer does not know it),
    ``leader_player``, ``face_up`` and ``in_game`` flags."""

    seat: int
    role: Any
    leader_player: bool
    face_up: bool
    in_game: bool


_SEAT_FACTS = attrgetter(*SeatFacts._fields)


class TalkFacts(NamedTuple):
    """What :class:`RoleBelief` reads of the table talk (``TalkView``): the
    latest ``claims``, ``stances`` and ``intents`` (the view's mappings)."""

    claims: Any
    stances: Any
    intents: Any


class ViewEvidence(NamedTuple):
    """All that :class:`RoleBelief` reads of a ``SeatView``
    (:meth:`RoleBelief.evidence`); its methods take either.

    Attributes:
        seat: the viewer.
        players: a :class:`SeatFacts` per seat, by absolute seat.
        harm, attacks: the view's public history (tuples of tuples).
        role_counts: the identity deck's cards per role (``Role`` order).
        talk: a :class:`TalkFacts`, or None when nothing was said.
    """

    seat: int
    players: tuple
    harm: tuple
    attacks: tuple
    role_counts: tuple
    talk: TalkFacts | None


class RoleBelief:
    """Posterior over the roles of the seats a viewer does not know.

    Args:
        temperature: exponent applied to the likelihood of the act counts (acts
            of one player are correlated; 1.0 treats them as independent).
        noise: weight of the uniform-target component in each act's likelihood.
        random_player: prior probability that a seat plays without regard to
            its role (all its acts uniform over targets); the likelihood of a
            seat's acts is the mixture ``(1 - random_player) * L_role +
            random_player * L_uniform``, so the posterior falls back to the
            prior against players whose behaviour the role model does not
            explain (random bots) instead of growing overconfident.
        random_table: prior probability that the whole table ignores roles;
            the posterior is the evidence-weighted mixture of the role model's
            posterior and the prior (exact Bayesian model averaging).
        target_weights: ``(4, 5)`` relative target odds per role (see
            :data:`TARGET_WEIGHTS`).
        talk_weight: scale of the table-talk evidence (0 ignores talk).

    The parameters are fixed once built (:meth:`beliefs` keeps answers computed with them).
    The only input is a :class:`treachery_env.view.SeatView` (the seat's
    information set), or the part of it the model reads (:class:`ViewEvidence`):
    every method takes either.
    """

    def __init__(self, temperature: float = 0.6, noise: float = 0.1, random_player: float = 0.2,
                 random_table: float = 0.5, target_weights: np.ndarray | None = None, talk_weight: float = 1.0):
        self.temperature = float(temperature)
        self.noise = float(noise)
        self.random_player = float(random_player)
        self.random_table = float(random_table)
        self.target_weights = TARGET_WEIGHTS if target_weights is None else np.asarray(target_weights, float)
        self.talk_weight = float(talk_weight)
        self._weights = tuple(map(tuple, self.target_weights.tolist()))
        self._kept: dict[int, tuple[ViewEvidence, dict[int, dict[Role, float]]]] = {}

    @staticmethod
    def evidence(view: Any) -> ViewEvidence:
        """The part of ``view`` (a ``SeatView``) the model reads: equal
        evidence gives equal beliefs."""
        talk = getattr(view, "talk", None)
        facts = None
        if talk is not None and talk.messages:
            facts = TalkFacts(talk.claims, talk.stances, talk.intents)
        players = tuple(map(SeatFacts._make, map(_SEAT_FACTS, view.players)))
        return ViewEvidence(view.seat, players, view.harm, view.attacks, view.role_counts, facts)

    # ------------------------------------------------------------------ prior
    @staticmethod
    def role_counts(view: Any) -> tuple[dict, list[int], list[int]]:
        """The role counts still unassigned, the unknown seats and the known ones.

        Returns:
            ``(remaining, unknown, known)``: ``remaining`` maps each ``Role`` to
            the number of its cards among the unknown seats, or is ``None`` when
            no variant fits the known roles (then seats are treated
            independently); ``unknown`` and ``known`` are ascending seat lists.
        """
        n = len(view.players)
        known = [p.seat for p in view.players if p.role is not None]
        unknown = [p.seat for p in view.players if p.role is None]
        seen = {r: 0 for r in ROLES}
        for s in known:
            seen[_role_of(view.players[s])] += 1
        dist = {r: view.role_counts[r] for r in ROLES}     # the public identity deck (TR2.3)
        if all(seen[r] <= dist[r] for r in ROLES) and n - len(known) == len(unknown):
            return {r: dist[r] - seen[r] for r in ROLES}, unknown, known
        return None, unknown, known

    # ------------------------------------------------------------------ likelihood
    def log_likelihood(self, view: Any, unknown: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Log-likelihoods of each unknown seat's hostile acts (from ``view.harm``
        and ``view.attacks``, tempered) and of the table talk by and about it
        (:meth:`talk_log_likelihood`).

        Returns:
            ``(ll, unif)``: ``ll`` of shape ``(len(unknown), 4)`` under each role
            (``Role`` order, the per-seat ``random_player`` mixture included);
            ``unif`` of shape ``(len(unknown),)`` when every act is uniform.
        """
        n = len(view.players)
        cats = [_CAT_HIDDEN] * n        # face down to the actor (roles the viewer alone was shown included)
        for p in view.players:
            r = _role_of(p)
            if p.leader_player or r == Role.LEADER:
                cats[p.seat] = _CAT_LEADER
            elif r is not None and (p.face_up or not p.in_game):
                cats[p.seat] = _CAT_G + int(r) - 1
        talk_ll, talk_unif, subj_ll, subj_unif = self.talk_log_likelihood(view, unknown)
        rows = np.arange(len(unknown))
        counts = np.array(view.attacks, float)[unknown] + np.array(view.harm, float)[unknown] / HARM_UNIT
        counts[rows, unknown] = 0.0                                   # (k, n) acts of each unknown seat
        tot = counts.sum(axis=1)
        others = _others(n)[unknown]                                  # (k, n - 1) the targets it could pick
        # (k, 4, n - 1), each seat's (4, n - 1) block in column order, as the boolean-masked columns of (4, n)
        # weights are: sums and products then add in the same order
        log_p = _log_target_odds(self._weights, self.noise, tuple(cats))[unknown].transpose(0, 2, 1)
        acts = (log_p @ counts[rows[:, None], others][:, :, None])[:, :, 0]                 # (k, 4)
        active = tot > 0
        role_ll = talk_ll.copy()
        unif_ll = talk_unif.copy()
        role_ll[active] += self.temperature * acts[active]
        unif_ll[active] += -self.temperature * tot[active] * np.log(n - 1)
        if self.random_player > 0:
            role_ll = np.logaddexp(np.log1p(-self.random_player) + role_ll,
                                   np.log(self.random_player) + unif_ll[:, None])
        out = role_ll + subj_ll
        unif = unif_ll + subj_unif
        silent = ~active & (unif_ll == 0)                             # no act, nothing it said: others' words alone
        out[silent] = subj_ll[silent]
        unif[silent] = subj_unif[silent]
        return out, unif

    def talk_log_likelihood(self, view: Any, unknown: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                          np.ndarray]:
        """Log-likelihoods of the table talk (``view.talk``, TR10.5) for each
        unknown seat, scaled by ``talk_weight`` (see the class docstring).

        Returns:
            ``(speaker, speaker_unif, subject, subject_unif)``: ``speaker`` of
            shape ``(len(unknown), 4)``, what each seat said under each of its
            roles (``Role`` order), ``speaker_unif`` ``(len(unknown),)`` the same
            under a uniform talker; ``subject`` ``(len(unknown), 4)`` and
            ``subject_unif`` what others said about each seat.  All zeros
            without talk.
        """
        k = len(unknown)
        sp, sp_u = np.zeros((k, 4)), np.zeros(k)
        sb, sb_u = np.zeros((k, 4)), np.zeros(k)
        talk = getattr(view, "talk", None)
        if talk is None or self.talk_weight == 0:
            return sp, sp_u, sb, sb_u
        row = {s: r for r, s in enumerate(unknown)}
        leaders = {p.seat for p in view.players if p.leader_player or p.role == Role.LEADER}
        log_q = np.log(0.25)
        for s, m in talk.claims.items():
            r = row.get(s)
            if r is not None:
                sp[r] += _LOG_CLAIM[int(m.role)]
                sp_u[r] += log_q
        for (i, j), m in talk.intents.items():
            r = row.get(i)
            if r is not None and j in leaders:
                sp[r] += _LOG_THREAT if m.kind == "threaten" else _LOG_PROTECT
                sp_u[r] += np.log(0.5)
        for (i, j), m in talk.stances.items():
            r = row.get(i)
            if r is not None and j in leaders:
                sp[r] += _LOG_DEFEND if m.kind == "defend" else _LOG_ACCUSE_LEADER
                sp_u[r] += np.log(0.2 if m.kind == "defend" else 0.8)
            r = row.get(j)
            if r is None or i == view.seat:
                continue
            if m.kind == "accuse":
                sb[r] += _LOG_ACCUSE[int(m.role)]
            elif i in leaders:
                sb[r] += _LOG_ON_SIDE
            else:
                continue
            sb_u[r] += log_q
        t = self.talk_weight
        return t * sp, t * sp_u, t * sb, t * sb_u

    # ------------------------------------------------------------------ posterior
    def beliefs(self, view: Any) -> dict[int, dict[Role, float]]:
        """``{seat: {Role: probability}}`` for every seat; known seats put 1 on
        their role; each row sums to 1 and the expected role counts over the
        unknown seats equal the remaining counts of the identity deck.  A new
        dict each call: the posterior of :meth:`posterior`, kept from this
        viewer's last call when its :meth:`evidence` is unchanged."""
        ev = self.evidence(view)
        kept = self._kept.get(ev.seat)
        if kept is None or kept[0] != ev:
            kept = self._kept[ev.seat] = (ev, self.posterior(ev))
        return {s: dict(d) for s, d in kept[1].items()}

    def posterior(self, view: Any) -> dict[int, dict[Role, float]]:
        """:meth:`beliefs` computed afresh from ``view`` (a ``SeatView`` or its
        :class:`ViewEvidence`)."""
        remaining, unknown, known = self.role_counts(view)
        out: dict[int, dict[Role, float]] = {}
        for s in known:
            r = _role_of(view.players[s])
            out[s] = {q: float(q == r) for q in ROLES}
        if not unknown:
            return out
        ll, unif = self.log_likelihood(view, unknown)
        if remaining is not None:
            flat, onehot, prior = _assignment_tables(tuple(remaining[r] for r in ROLES))
            lp = ll.ravel()[flat].sum(axis=1)                         # (m,) log-likelihood of each assignment
            top = lp.max()
            w = np.exp(lp - top)
            log_z_role = top + np.log(w.mean())                       # evidence of the role model
            w /= w.sum()
            marg = np.stack([w @ oh for oh in onehot], axis=1)
        else:   # identities moved so the deck no longer fits what is known: independent seats
            pr = np.array([view.role_counts[r] for r in ROLES], float) + 1e-3
            pr /= pr.sum()
            lp = np.log(pr)[None, :] + ll
            top = lp.max(axis=1, keepdims=True)
            e = np.exp(lp - top)
            log_z_role = float((top[:, 0] + np.log(e.sum(axis=1))).sum())
            marg = e / e.sum(axis=1, keepdims=True)
            prior = np.repeat(pr[None, :], len(unknown), axis=0)
        if self.random_table > 0 and unif.any():
            # Bayesian model choice: does the table play by role at all?
            a = np.log1p(-self.random_table) + log_z_role
            b = np.log(self.random_table) + float(unif.sum())
            w_role = 1.0 / (1.0 + np.exp(min(max(b - a, -700.0), 700.0)))
            marg = w_role * marg + (1.0 - w_role) * prior
        for s, row in zip(unknown, marg.tolist()):
            out[s] = dict(zip(ROLES, row))
        return dict(sorted(out.items()))

    @staticmethod
    def prior_beliefs(view: Any) -> dict[int, dict[Role, float]]:
        """The same posterior with no behavioural evidence (the counts alone):
        the baseline deduction metrics are compared with."""
        return RoleBelief(temperature=0.0, talk_weight=0.0).posterior(view)


class BeliefAgent(BaseAgent):
    """Role-aware play on top of :class:`RoleBelief` (``agents.make("belief")``).

    Args:
        seed: seed of the bot's random stream.
        belief: the deduction model (default :class:`RoleBelief()`).

    ``beliefs()`` returns the posterior computed at the last decision (``{}``
    before the first one).
    """

    name = "belief"
    uses_observation_vector = False

    def __init__(self, seed: int | None = None, belief: RoleBelief | None = None):
        super().__init__(seed)
        self.model = belief or RoleBelief()
        self.throne_model = ThroneBelief()      # Throne Magic's Roles (agents/throne.py)
        self._beliefs: dict[int, dict[Role, float]] = {}
        self._gift_to = None

    def reset(self, seat: int) -> None:
        """Start a new game in ``seat``; forget the beliefs."""
        super().reset(seat)
        self._beliefs = {}
        self._gift_to = None

    def beliefs(self) -> dict[int, dict[Role, float]]:
        """``{seat: {Role: probability}}`` at the last decision (a copy); in a Throne Magic game
        ``{seat: {Role name: probability}}`` (:class:`agents.throne.ThroneBelief`)."""
        return {s: dict(d) for s, d in self._beliefs.items()}

    # ------------------------------------------------------------------ helpers
    def _hostility(self, view: Any) -> dict[int, float]:
        if getattr(view, "throne_magic", None) is not None:      # Throne Magic: its Roles' graph
            want = throne_want(view, [self._beliefs[s] for s in range(len(view.players))])
            return {p.seat: -5.0 if p.seat == view.seat else want[p.seat] - (0 if p.in_game else 10.0)
                    for p in view.players}
        me = view.seat
        my_role = view.me.role
        row = HOSTILITY[int(my_role) if my_role is not None else int(Role.TRAITOR)].tolist()
        if my_role == Role.TRAITOR:
            # with no Assassin left, the Leader team is the next to go
            alive_assassin = sum(self._beliefs[p.seat][Role.ASSASSIN] for p in view.players
                                 if p.in_game and p.seat != me)
            if alive_assassin < 0.5:
                row[Role.LEADER] = row[Role.GUARDIAN] = 1.2
        h = {}
        for p in view.players:
            if p.seat == me:
                h[me] = -5.0
                continue
            b = self._beliefs[p.seat]
            h[p.seat] = sum(b[r] * row[r] for r in ROLES) - (0 if p.in_game else 10.0)
        return h

    @staticmethod
    def _card_of(prompt: str) -> Any:
        if " for " in prompt:
            return _CARD_BY_NAME.get(prompt.rsplit(" for ", 1)[1].strip())
        return None

    @staticmethod
    def _harmful(card: Any) -> bool:
        if card is None:
            return True
        ops = {e.get("op") for e in card.effects if isinstance(e, dict)}
        return bool(ops & _HARMFUL_OPS) or not ops

    def _creatures(self, view: Any) -> dict[int, Any]:
        return {c.uid: c for p in view.players for c in p.creatures}

    def _unveil_now(self, view: Any) -> bool:
        role = view.me.role
        leaders = [p for p in view.players if p.in_game and (p.leader_player or p.role == Role.LEADER)]
        leader_life = min((p.life for p in leaders), default=0)
        alive = [p for p in view.players if p.in_game and p.seat != view.seat]
        if view.me.life <= 8:
            return True
        if role == Role.GUARDIAN:
            return leader_life <= 15
        if role == Role.ASSASSIN:
            return leader_life <= 12
        return len(alive) <= 2

    # ------------------------------------------------------------------ act
    def act(self, observation: dict, info: dict) -> int:
        """Update the beliefs from ``info["view"]`` and choose a legal action.

        Raises:
            ValueError: if the mask allows no action, or without ``info["view"]``.
        """
        legal = legal_actions(observation).tolist()
        view = seat_view(self.name, info)
        if self.seat is None:
            self.seat = view.seat
        if getattr(view, "throne_magic", None) is not None:
            self._beliefs = dict(enumerate(self.throne_model.beliefs(view)))
        else:
            self._beliefs = self.model.beliefs(view)
        d = view.decision
        if d is not None:
            conceding = {o.action for o in d.options if o.kind == "concede"}
            if conceding:                 # the bot never concedes
                d = d._replace(options=tuple(o for o in d.options if o.kind != "concede"))
                legal = [a for a in legal if a not in conceding] or legal
        if d is None or not d.options:
            return legal[0]
        choice = self._choose(view, d)
        if choice is None or choice not in legal:
            return legal[0]
        return int(choice)

    def _choose(self, view: Any, d: Any) -> int | None:
        opts = d.options
        h = self._hostility(view)
        passes = [o for o in opts if o.kind == "pass"]
        pass_a = passes[0].action if passes else None
        kind = d.kind
        if kind == "priority":
            return self._priority(view, opts, h, pass_a)
        throne = getattr(view, "throne_magic", None) is not None
        places = []
        if throne and kind in ("attacker", "defender"):
            # Throne Magic: the Throne and Holdings worth it that no creature of ours attacks yet
            busy = {c.attacking_planeswalker for c in view.me.creatures}
            found = locations_to_attack(view, h)
            held = {uid for uid, c in found if c >= 0 and uid != view.throne_magic.uid}     # enemies' Holdings
            places = [(uid, c) for uid, c in found if uid not in busy and not (uid in held and busy & held)]
        if kind == "attacker":
            targets = [s for s in view.opponents() if h[s] > 0]
            if not targets and not places:
                return pass_a
            mine = {c.uid: c for c in view.me.creatures}
            # keep one untapped blocker back when low on life
            cands = [o for o in opts if o.kind == "attack_with" and mine.get(o.creature) is not None
                     and mine[o.creature].power > 0]
            if view.me.life <= 10 and len([c for c in mine.values() if not c.tapped]) <= 1:
                return pass_a
            return cands[0].action if cands else pass_a
        if kind == "defender":
            c = next((c for c in view.me.creatures if c.uid == d.creature), None)
            for uid, ctl in places:      # the first creature declared for each that its blockers would not kill
                if c is None or not survives_blocks(view.players, c, ctl):
                    continue
                o = next((o for o in opts if o.kind in ("attack_throne", "attack_holding") and o.planeswalker == uid),
                         None)
                if o is not None:
                    return o.action
            best = max(opts, key=lambda o: (h.get(o.player, -9.0) if o.player is not None else -9.0,
                                            -view.players[o.player].life if o.player is not None else 0))
            return best.action
        if kind == "blocker":
            return self._block_with(view, opts, pass_a)
        if kind == "blocked":
            cr = self._creatures(view)
            return max((o for o in opts if o.kind == "block"),
                       key=lambda o: cr[o.creature].power if o.creature in cr else 0,
                       default=opts[0]).action
        if kind == "target":
            if self._gift_to is not None and d.prompt.startswith("choose a target (player)"):
                to, self._gift_to = self._gift_to, None      # "The Monarch Distributing Creatures"
                o = next((o for o in opts if o.kind == "target" and o.player == to and o.creature is None), None)
                if o is not None:
                    return o.action
            return self._target(view, d, opts, h)
        if kind == "number":
            nums = [o for o in opts if o.x is not None]
            return max(nums, key=lambda o: o.x).action if nums else opts[-1].action
        if kind in ("discard", "cost"):
            lands = sum(1 for c in (view.me.hand or ()) if _CARD_BY_NAME.get(c) and _CARD_BY_NAME[c].is_land)
            def keep_value(o: Any) -> float:
                c = _CARD_BY_NAME.get(o.card) if o.card else None
                if c is None:
                    return 0.0
                if c.is_land:
                    return 1.0 if lands > 3 else 10.0
                return float(c.cost)
            return min(opts, key=keep_value).action
        if kind in ("card", "mode") or d.kind == "choice":
            withp = [o for o in opts if o.player is not None]
            if withp:
                return max(withp, key=lambda o: h.get(o.player, 0.0)).action
        if kind == "yes_no":
            if throne:
                return throne_answer(view, d)
            return opts[-1].action
        if kind == "mulligan":      # CR 103.5: one (free, 103.5c) mulligan of a hand with 0-1 or 6+ lands in 7
            hand = view.me.hand or ()
            lands = sum(1 for c in hand if _CARD_BY_NAME.get(c) and _CARD_BY_NAME[c].is_land)
            mull = [o for o in opts if o.kind == "mulligan"]
            bad = lands <= 1 or lands >= len(hand) - 1
            return mull[0].action if mull and bad and view.me.mulligans == 0 else pass_a
        if kind == "bottom":        # London mulligan: a land when over half the hand, else the costliest spell
            cards = [(o, _CARD_BY_NAME.get(o.card)) for o in opts]
            lands = [o for o, c in cards if c is not None and c.is_land]
            if lands and 2 * len(lands) > len(opts):
                return lands[0].action
            return max(cards, key=lambda oc: (oc[1].cost if oc[1] is not None and not oc[1].is_land else -1,
                                              oc[0].action))[0].action
        if kind == "deal":       # a truce offer (TR10.5): accept from a seat the bot does not want hurt
            acc = [o for o in opts if o.kind == "accept"]
            if acc and h.get(acc[0].player, 0.0) <= 0.0:
                return acc[0].action
            return pass_a
        return opts[int(self.rng.integers(len(opts)))].action

    def _priority(self, view: Any, opts: tuple, h: dict, pass_a: int | None) -> int | None:
        me = view.seat
        my_turn = view.active == me
        main = view.phase in ("main1", "main2")
        if view.stack:
            top = view.stack[-1]
            if h.get(top.controller, -1.0) > 0.3:
                for o in opts:
                    c = _CARD_BY_NAME.get(o.card) if o.card else None
                    if o.kind == "cast" and c is not None and any(e.get("op") == "counter" for e in c.effects):
                        return o.action
        unveil = [o for o in opts if o.kind == "unveil"]
        if unveil and self._unveil_now(view):
            return max(unveil, key=lambda o: (o.x or 0)).action
        if view.stack:
            return pass_a
        if getattr(view, "throne_magic", None) is not None:
            g = gift(view, h, opts)
            if g is not None:
                self._gift_to = g[1]
                return g[0]
        if my_turn and main:
            for o in opts:
                if o.kind == "land":
                    return o.action
            casts = []
            for o in opts:
                if o.kind in ("cast", "permission", "commander"):
                    c = _CARD_BY_NAME.get(o.card) if o.card else None
                    if c is not None and any(e.get("op") == "counter" for e in c.effects):
                        continue
                    if c is not None and c.targets and not self._harmful(c) and c.type == "instant":
                        continue   # pump/heal tricks: not proactively
                    if c is not None and c.targets and self._harmful(c) \
                            and not any(v > 0 for s, v in h.items() if s != me and view.players[s].in_game):
                        continue
                    value = (c.cost if c is not None else 4) + (2 if c is not None and c.is_creature else 0)
                    casts.append((value, -o.action, o.action))
            if casts:
                return max(casts)[2]
        return pass_a

    def _block_with(self, view: Any, opts: tuple, pass_a: int | None) -> int | None:
        me = view.seat
        attackers = [c for p in view.players for c in p.creatures if c.attacking == me]
        if not attackers:
            return pass_a
        incoming = sum(c.power for c in attackers)
        mine = {c.uid: c for c in view.me.creatures}
        strongest = max(c.power for c in attackers)
        for o in opts:
            if o.kind != "block_with" or o.creature not in mine:
                continue
            c = mine[o.creature]
            if c.toughness > strongest or view.me.life <= incoming + 3:
                return o.action
            if any(c.power >= a.toughness - a.damage for a in attackers):
                return o.action
        return pass_a

    def _target(self, view: Any, d: Any, opts: tuple, h: dict) -> int:
        card = self._card_of(d.prompt)
        harmful = self._harmful(card)
        cr = self._creatures(view)
        stack = {s.uid: s for s in view.stack}
        me = view.seat

        def score(o: Any) -> float:
            if o.stack is not None:
                s = stack.get(o.stack)
                owner = s.controller if s is not None else None
            elif o.creature is not None:
                c = cr.get(o.creature)
                owner = o.player
                bonus = (c.power + c.toughness) / 10.0 if c is not None else 0.0
                val = h.get(owner, 0.0) if owner is not None else 0.0
                return (val + bonus) if harmful else (-val + bonus)
            else:
                owner = o.player
            val = h.get(owner, 0.0) if owner is not None else 0.0
            if owner == me:
                val = -5.0
            return val if harmful else -val
        return max(opts, key=score).action


register("belief", BeliefAgent)
