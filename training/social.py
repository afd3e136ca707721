"""Bluffing, cooperation and talk metrics of any entrant (issue 13).

The exact definitions are in the docstring of :mod:`training.evaluate`
(sections "Bluffing", "Cooperation", "Team play" and "Talk").  This module
holds the pieces:

* :func:`is_public`, :func:`public_view` and :class:`PublicObserver`: a
  spectator's information set (public information of the game only) and the
  fixed observer model, the belief bot's Bayesian posterior
  (:class:`agents.belief.RoleBelief` with its default parameters) computed on
  it;
* :class:`SocialTracker`: follows one game decision by decision (the
  evaluator's ``on_decision`` hook) and records observer rows, claim rows and
  the per-seat cooperation counters;
* :func:`bluff_metrics`, :func:`cooperation_metrics`, :func:`talk_metrics` and
  :func:`teamplay_metrics`: aggregation over :class:`training.evaluate.GameRecord`
  objects, each figure with its ``n`` and a 95% interval.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import numpy as np

from agents.belief import RoleBelief
from treachery_env.engine.talk import TalkState
from treachery_env.rules import Role, Team, team_of
from treachery_env.view import FrozenDict, SeatView, TalkView, seat_view

from .stats import by_deal, clustered_mean, clustered_rate, clustered_rate_difference, clustered_share

__all__ = ["is_public", "public_view", "PublicObserver", "SocialTracker", "bluff_metrics",
           "cooperation_metrics", "talk_metrics", "teamplay_metrics", "public_prior", "OBS_COLS", "CLAIM_COLS", "COOP_COLS",
           "BLUFF_TOL"]

ROLES = (Role.LEADER, Role.GUARDIAN, Role.ASSASSIN, Role.TRAITOR)
ROLE_NAMES = {r: r.name.capitalize() for r in ROLES}
TEAM_NAMES = {Team.LEADER: "Leader team", Team.ASSASSIN: "Assassins", Team.TRAITOR: "Traitors"}
BLUFF_TOL = 1e-9
"""A belief counts as "at or below the prior" when ``p_obs <= prior + BLUFF_TOL``."""

OBS_COLS = ("turn", "seat", "true_role", "p_obs", "prior")
"""Columns of ``GameRecord.observer``: one row per face-down seat still in the
game at the end of each turn (the observer's probability of its true role and
the public-count prior of it)."""
CLAIM_COLS = ("turn", "speaker", "true_role", "claimed", "face_down", "p_before", "p_after")
"""Columns of ``GameRecord.claims``: one row per role claim (``p_*`` are the
observer's probability of the *claimed* role for the speaker before and after
the claim; NaN when the speaker's role was public)."""
COOP_COLS = ("guardian", "harm_leader", "attacks_leader", "protect_harm", "protect_attacks")
"""Columns of ``GameRecord.coop`` (one row per seat): whether the seat was a
Guardian at some point of the game (1/0), then what it did while a Guardian."""
_OBS_T, _OBS_SEAT, _OBS_TRUE, _OBS_P, _OBS_PRIOR = range(5)
_CL_T, _CL_SPK, _CL_TRUE, _CL_CLAIM, _CL_FD, _CL_BEFORE, _CL_AFTER = range(7)


def _deal_rate(per_deal: dict) -> dict:
    """``{"count", "n", "rate", "lo", "hi", "deals"}`` of per-deal counts ``{deal: [count, n]}``, the
    95% interval :func:`training.stats.clustered_rate`'s over deals."""
    return by_deal(clustered_rate([c[0] for c in per_deal.values()], [c[1] for c in per_deal.values()]))


def is_public(game: Any, seat: int) -> bool:
    """Whether every player knows ``seat``'s identity: it is face up, or was
    shown to all (a leaving player's, CR 907.9, or one face up before)."""
    idc = game.players[seat].identity
    return bool(idc.face_up or len(idc.known_by & set(range(game.n))) == game.n)


def public_view(game: Any) -> SeatView:
    """A spectator's :class:`~treachery_env.view.SeatView` of ``game``: public
    information only.  It is seat 0's view with everything private taken out:
    the role and identity name of every seat that is not :func:`is_public`
    (seat 0's own included), every hand and other-zone permission, the pending
    decision, face-down exile, the Undercover flag, and every log entry not
    shown to all; ``seat`` is -1 (no seat).  Harm, attacks, talk, life,
    boards, graveyards and the identity deck's role counts stay."""
    v = seat_view(game, 0)
    players = []
    for p, pv in zip(game.players, v.players):
        pub = is_public(game, p.seat)
        players.append(pv._replace(hand=None, usable_elsewhere=None,
                                   identity=pv.identity if pub else None, role=pv.role if pub else None))
    events = tuple(e for e in v.events if e.get("to") is None)
    return v._replace(seat=-1, players=tuple(players), decision=None, events=events, dream=(),
                      undercover_met=False)


def _talk_prefix(talk: TalkView, k: int, n: int) -> TalkView:
    """``talk`` as it was after its first ``k`` messages (claims, stances,
    intents and requests rebuilt from them; truces as now)."""
    t = TalkState(n)
    for m in talk.messages[:k]:
        t.record(m)
    return talk._replace(messages=tuple(t.messages), claims=FrozenDict(t.claims), stances=FrozenDict(t.stances),
                         intents=FrozenDict(t.intents), requests=FrozenDict(t.requests))


class PublicObserver:
    """The fixed observer model of the bluffing and talk metrics: the belief
    bot's posterior (:class:`agents.belief.RoleBelief`, default parameters)
    computed on :func:`public_view`, a pure function of the public history
    (recomputed from it whenever asked, so "updated each turn" is exact).

    Args:
        model: the deduction model (default ``RoleBelief()``; keep the
            default to compare entrants across evaluations).
    """

    def __init__(self, model: RoleBelief | None = None):
        self.model = model or RoleBelief()

    def beliefs_of_view(self, view: SeatView) -> np.ndarray:
        """``(n, 4)`` probabilities (rows: seats, columns: ``Role`` order)."""
        b = self.model.beliefs(view)
        out = np.zeros((len(view.players), 4))
        for s, d in b.items():
            for r, p in d.items():
                out[s, int(r)] = p
        return out

    def beliefs(self, game: Any) -> np.ndarray:
        """The observer's ``(n, 4)`` beliefs about ``game`` now (public seats
        put 1 on their role)."""
        return self.beliefs_of_view(public_view(game))


def public_prior(dist: dict, roles: Sequence[int], known: Iterable[int]) -> np.ndarray:
    """The public-count prior of a seat whose role is not known: the identity
    deck ``dist`` (``{Role: cards}``) minus the roles of the ``known`` seats,
    as probabilities over the four roles in :class:`Role` order (uniform when
    nothing is left).

    Args:
        dist: the identity deck's cards per role (``GameConfig.distribution()``).
        roles: every seat's current role value.
        known: the seats whose roles count as known (for a spectator the
            :func:`is_public` seats; for a seat's own deduction also itself).
    """
    counts = np.array([dist.get(r, 0) for r in ROLES], dtype=float)
    for s in set(known):
        counts[int(roles[s])] -= 1
    counts = np.clip(counts, 0, None)
    return counts / counts.sum() if counts.sum() > 0 else np.full(4, 0.25)


def _spectator_prior(dist: dict, game: Any) -> np.ndarray:
    """:func:`public_prior` of a face-down seat for a spectator (the
    :func:`is_public` seats known)."""
    return public_prior(dist, [p.role for p in game.players],
                        [s for s in range(len(game.players)) if is_public(game, s)])


# --------------------------------------------------------------------------- per game
class SocialTracker:
    """Follows one game for the social metrics; call :meth:`update` at every
    decision (the state before the decision's action is applied) and
    :meth:`finish` once the game is over.

    Between two calls the harm and attack matrices (``Game.harm``,
    ``Game.attacks``) may grow; the growth is attributed with the roles,
    Leaders and aggressors of the *earlier* call.  At the first call of a new
    turn the observer scores the turn that just ended; new talk messages are
    looked at on every call.

    Args:
        n: seats.
        dist: the identity deck's role counts (``GameConfig.distribution()``).
        observer: the observer model, or None to record no observer and claim
            beliefs (claims are still counted, with NaN beliefs).
    """

    def __init__(self, n: int, dist: dict, observer: PublicObserver | None = None):
        self.n = n
        self.dist = dist
        self.observer = observer
        self.turn: int | None = None
        self.harm: list | None = None
        self.attacks: list | None = None
        self.roles: list = []
        self.leaders: set = set()
        self.aggressors: set = set()
        self.seen_msgs = 0
        self.obs_rows: list = []
        self.claim_rows: list = []
        self.coop = np.zeros((n, len(COOP_COLS)))

    def _acts(self, g: Any) -> None:
        if self.harm is not None and (g.harm != self.harm or g.attacks != self.attacks):
            for i in range(self.n):
                if self.roles[i] != Role.GUARDIAN:
                    continue
                hi, ai, h0, a0 = g.harm[i], g.attacks[i], self.harm[i], self.attacks[i]
                for j in range(self.n):
                    dh, da = hi[j] - h0[j], ai[j] - a0[j]
                    if j == i or not (dh or da):
                        continue
                    if j in self.leaders:
                        self.coop[i, 1] += dh
                        self.coop[i, 2] += da
                    elif j in self.aggressors:
                        self.coop[i, 3] += dh
                        self.coop[i, 4] += da

    def _snapshot(self, g: Any) -> None:
        self.harm = [row[:] for row in g.harm]
        self.attacks = [row[:] for row in g.attacks]
        self.roles = [Role(p.role) for p in g.players]
        self.leaders = {s for s in range(self.n) if g.is_leader_player(s)}
        self.aggressors = {a for a in range(self.n) if a not in self.leaders
                           and any(self.harm[a][L] + self.attacks[a][L] > 0 for L in self.leaders)}
        for s, p in enumerate(g.players):
            if self.roles[s] == Role.GUARDIAN and not p.has_lost:
                self.coop[s, 0] = 1.0

    def _observe_turn(self, g: Any, turn: int) -> None:
        if self.observer is None:
            return
        b = self.observer.beliefs(g)
        prior = _spectator_prior(self.dist, g)
        for s, p in enumerate(g.players):
            if p.has_lost or is_public(g, s):
                continue
            t = int(p.role)
            self.obs_rows.append((turn, s, t, b[s, t], prior[t]))

    def _claims(self, g: Any) -> None:
        msgs = g.talk.messages
        if len(msgs) == self.seen_msgs:
            return
        view = None
        for k in range(self.seen_msgs, len(msgs)):
            m = msgs[k]
            if m.kind != "claim":
                continue
            s, claimed = m.speaker, int(m.role)
            face_down = not is_public(g, s)
            before = after = float("nan")
            if face_down and self.observer is not None:
                if view is None:
                    view = public_view(g)
                before = self.observer.beliefs_of_view(view._replace(talk=_talk_prefix(view.talk, k, self.n)))[s, claimed]
                after = self.observer.beliefs_of_view(view._replace(talk=_talk_prefix(view.talk, k + 1, self.n)))[s, claimed]
            self.claim_rows.append((m.turn, s, int(g.players[s].role), claimed, float(face_down), before, after))
        self.seen_msgs = len(msgs)

    def update(self, g: Any) -> None:
        """Record what happened since the last call (``g`` is the live game)."""
        self._acts(g)
        if self.turn is not None and g.turn != self.turn and self.turn >= 1:    # turn 0: before the game
            self._observe_turn(g, self.turn)
        self.turn = g.turn
        self._claims(g)
        self._snapshot(g)

    def finish(self, g: Any) -> None:
        """Count the acts after the last decision (the game is over: the last
        turn is not scored by the observer, identities are revealed)."""
        self._acts(g)
        self._claims(g)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(observer, claims, coop)`` float64 arrays (columns :data:`OBS_COLS`,
        :data:`CLAIM_COLS`, :data:`COOP_COLS`)."""
        return (np.asarray(self.obs_rows, dtype=np.float64).reshape(-1, len(OBS_COLS)),
                np.asarray(self.claim_rows, dtype=np.float64).reshape(-1, len(CLAIM_COLS)),
                self.coop.copy())


# --------------------------------------------------------------------------- aggregation
def _seats_of(rec: Any, label: str) -> list[int]:
    return [s for s, lab in enumerate(rec.task.lineup) if lab == label]


def _stacked(parts: list[tuple[np.ndarray, int]], cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of every game's ``(rows, deal)`` in ``parts`` stacked ``(N, cols)``, and each
    row's deal (int64 ``(N,)``, its game's in the metrics' ``deals``: the cluster of the intervals)."""
    if not parts:
        return np.zeros((0, cols)), np.zeros(0, np.int64)
    return (np.concatenate([rows for rows, _ in parts]),
            np.repeat(np.array([deal for _, deal in parts], np.int64), [len(rows) for rows, _ in parts]))


def bluff_metrics(records: Sequence[Any], labels: Sequence[str], deals: Sequence[int]) -> dict:
    """Per entrant: the share of its face-down Traitor/Assassin turns in which
    the observer's probability of its true role is at most the public prior
    (``count`` of ``n`` rows, with the 95% interval of
    :func:`training.stats.clustered_rate` over deals and the ``deals`` the rows come
    from: the turns of one game are not independent, nor are the games of one deal,
    its rotations and substitutions, which share its cards), overall and per role,
    with the mean observer probability and mean prior of those rows.  Entrants
    without such rows are left out.  ``deals``: each record's deal as an int (one per
    deal, :func:`training.evaluate.summarize`'s clusters of the deals' ``deal_key``), as in
    the other metrics of this module."""
    out = {}
    bad = (int(Role.ASSASSIN), int(Role.TRAITOR))
    for lab in labels:
        rows, deal = _stacked([(rec.observer[np.isin(rec.observer[:, _OBS_SEAT], _seats_of(rec, lab))
                                             & np.isin(rec.observer[:, _OBS_TRUE], bad)], deal)
                               for rec, deal in zip(records, deals) if rec.observer.shape[0]], len(OBS_COLS))
        if rows.shape[0] == 0:
            continue

        def agg(sel: np.ndarray) -> dict:
            r = rows[sel]
            held = r[:, _OBS_P] <= r[:, _OBS_PRIOR] + BLUFF_TOL
            return {**by_deal(clustered_share(held, deal[sel])), "mean_p_obs": float(r[:, _OBS_P].mean()),
                    "mean_prior": float(r[:, _OBS_PRIOR].mean())}

        per = {ROLE_NAMES[Role(t)]: agg(rows[:, _OBS_TRUE] == t) for t in bad if np.any(rows[:, _OBS_TRUE] == t)}
        out[lab] = {**agg(np.ones(len(rows), bool)), "roles": per}
    return out


def cooperation_metrics(records: Sequence[Any], labels: Sequence[str], deals: Sequence[int]) -> dict:
    """Per entrant, over its seat-games in which it was a Guardian: the mean per
    game of each :data:`COOP_COLS` quantity (with a normal 95% interval,
    :func:`training.stats.clustered_mean`), and the shares of those games with
    any hostile act towards the Leader and with any protective act
    (:func:`training.stats.clustered_share`), every interval over deals: the
    seat-games of one deal (its rotations, its reference game; at 6 players
    and more two Guardian seats of one game) share its cards.  Each cell
    carries the ``deals`` its seat-games come from.  Entrants never a Guardian
    are left out.  ``deals``: each record's deal as an int (:func:`bluff_metrics`)."""
    out = {}
    for lab in labels:
        seats = [(rec.coop[s], deal) for rec, deal in zip(records, deals) for s in _seats_of(rec, lab)
                 if rec.coop.shape[0] > s and rec.coop[s, 0] > 0]
        if not seats:
            continue
        a, seat_deals = np.array([row for row, _ in seats]), [deal for _, deal in seats]
        res = {"games": len(seats)}
        for k, name in enumerate(COOP_COLS[1:], start=1):
            res[name] = by_deal(clustered_mean(a[:, k], seat_deals, lower=0.0))
        res["any_hostile_to_leader"] = by_deal(clustered_share(a[:, 1] + a[:, 2] > 0, seat_deals))
        res["any_protection"] = by_deal(clustered_share(a[:, 3] + a[:, 4] > 0, seat_deals))
        out[lab] = res
    return out


def talk_metrics(records: Sequence[Any], labels: Sequence[str], deals: Sequence[int]) -> dict:
    """Per entrant with role claims: per true role (and overall) the share of
    its claims that are false (the 95% interval of
    :func:`training.stats.clustered_rate` over deals), and the mean change of the observer's
    probability of the claimed role for it, after minus before, over its false
    and its true claims made face down (the 95% interval of
    :func:`training.stats.clustered_mean` over deals); each cell with the ``deals`` its
    claims come from (the claims of one game move together, and the games of one deal share
    its cards).  ``deals``: each record's deal as an int (:func:`bluff_metrics`)."""
    out = {}
    for lab in labels:
        rows, deal = _stacked([(rec.claims[np.isin(rec.claims[:, _CL_SPK], _seats_of(rec, lab))], d)
                               for rec, d in zip(records, deals) if rec.claims.shape[0]], len(CLAIM_COLS))
        if rows.shape[0] == 0:
            continue
        false = rows[:, _CL_TRUE] != rows[:, _CL_CLAIM]

        def agg(sel: np.ndarray) -> dict:
            r, f = rows[sel], false[sel]
            fd = (r[:, _CL_FD] > 0) & np.isfinite(r[:, _CL_BEFORE])
            shift = r[:, _CL_AFTER] - r[:, _CL_BEFORE]
            claimed = {ROLE_NAMES[q]: int(np.sum(r[:, _CL_CLAIM] == int(q))) for q in ROLES}
            g = deal[sel]
            return {"claims": int(r.shape[0]), "false": by_deal(clustered_share(f, g)), "claimed": claimed,
                    "shift_false": by_deal(clustered_mean(shift[f & fd], g[f & fd])),
                    "shift_true": by_deal(clustered_mean(shift[~f & fd], g[~f & fd]))}

        by_role = {ROLE_NAMES[q]: agg(rows[:, _CL_TRUE] == int(q)) for q in ROLES if np.any(rows[:, _CL_TRUE] == int(q))}
        out[lab] = {"overall": agg(np.ones(rows.shape[0], bool)), "roles": by_role}
    return out


def teamplay_metrics(records: Sequence[Any], deals: Sequence[int]) -> dict | None:
    """The team-play schedule's results (``kind`` ``"team_together"``,
    ``"team_mixed"``, ``"team_partner"``; see
    :func:`training.evaluate.teammate_schedule`): per candidate and team, the
    team's win rate when the candidate holds every seat of it (``together``),
    when it holds one seat and the partner the others (``mixed``, also by the
    candidate's dealt role), the partner-only rate (``partner``), each with
    its 95% interval over deals (:func:`training.stats.clustered_rate`: a
    deal's mixed games, one for each seat of the team, share its cards) and
    the ``deals`` it comes from, and ``gain`` = together - mixed with its 95%
    interval paired by deal (:func:`training.stats.clustered_rate_difference`:
    both arms play every deal, its together game and its mixed games on the same
    cards, so the deal's luck moves both; ``{"diff", "lo", "hi", "deals"}``, no
    interval where the spread between deals cannot be estimated).  None without
    such games.  ``deals``: each record's deal as an int (:func:`bluff_metrics`)."""
    recs = [(r, d) for r, d in zip(records, deals) if r.task.kind in ("team_together", "team_mixed", "team_partner")]
    if not recs:
        return None
    partner = next((r.task.focus for r, _ in recs if r.task.kind == "team_partner"), None)
    counts: dict = {}           # {key: {deal: [wins, games]}}

    def add(key: tuple, deal: int, won: bool) -> None:
        c = counts.setdefault(key, {}).setdefault(deal, [0, 0])
        c[0] += int(won)
        c[1] += 1

    for rec, deal in recs:
        roles = [Role(r) for r in rec.dealt_roles]
        win = set(rec.winners)
        if rec.task.kind == "team_partner":
            for t in {team_of(r) for r in roles}:
                if t == Team.TRAITOR:
                    continue
                seats = [s for s in range(len(roles)) if team_of(roles[s]) == t]
                if len(seats) >= 2:
                    add(("partner", t), deal, seats[0] in win)
            continue
        a = rec.task.focus
        mine = _seats_of(rec, a)
        t = team_of(roles[mine[0]])
        if rec.task.kind == "team_together":
            add((a, t, "together"), deal, mine[0] in win)
        else:
            add((a, t, "mixed"), deal, mine[0] in win)
            add((a, t, "mixed", roles[mine[0]]), deal, mine[0] in win)
    out: dict = {"partner": partner, "candidates": {}}
    teams = sorted({k[1] for k in counts if k[0] != "partner"})
    for a in sorted({k[0] for k in counts if k[0] != "partner"}):
        per = {}
        for t in teams:
            if (a, t, "together") not in counts:
                continue
            tog = _deal_rate(counts[(a, t, "together")])
            mix = _deal_rate(counts.get((a, t, "mixed"), {}))
            per[TEAM_NAMES[t]] = {
                "together": tog, "mixed": mix,
                "mixed_by_role": {ROLE_NAMES[r]: _deal_rate(counts[(a, t, "mixed", r)]) for r in ROLES
                                  if (a, t, "mixed", r) in counts},
                "partner": _deal_rate(counts.get(("partner", t), {})),
                "gain": by_deal(clustered_rate_difference(counts[(a, t, "together")],
                                                          counts.get((a, t, "mixed"), {})))}
        out["candidates"][a] = per
    return out
