"""Rollout policy improvement over the heuristic bot (``agents.make("lookahead")``).

What is implemented (precisely)
-------------------------------
The one-step *rollout algorithm* (Bertsekas & Tsitsiklis, "Neuro-Dynamic
Programming", 1996, section 6.1; Tesauro & Galperin, "On-line policy
improvement using Monte-Carlo search", NIPS 1996) with the heuristic bot
(:class:`agents.heuristic.HeuristicAgent`) as the base policy, on
determinizations of the seat's information set:

1. the base policy's action ``b`` is computed as the heuristic would play it;
2. at a *high-impact* decision (by default :data:`SEARCHED_KINDS`: declare
   attackers, declare blockers, and a priority decision with an empty stack
   that offers casting a spell, the commander, unveiling or an identity
   ability; ``kinds`` may add ``"defender"``, whom a declared attacker
   attacks, CR 508.1b), up to
   ``max_candidates`` legal actions (talk and concession left out; ``b``
   always among them) are compared;
3. ``worlds`` full game states consistent with the seat's view are sampled
   (:func:`agents.ismcts.determinize`: hidden roles from the belief bot's
   posterior, :class:`agents.belief.RoleBelief`, a function of the view) and
   made pending on the same decision (:func:`agents.ismcts.setup_decision`);
4. every candidate is applied in a copy of every world, then the game is
   played on by the heuristic bot in *every* seat (the searching seat too:
   the base policy) for ``horizon`` more turns or to its end, with the same
   random seed for every candidate in a world (common random numbers: the
   candidates' differences are measured on the same draws, which makes the
   comparison paired); the end point is scored for the seat's team with
   :func:`agents.ismcts.evaluate` (+1 / -1 / 0 for a finished game, else a
   bounded board-and-life differential in (-0.9, 0.9));
5. the best candidate by mean score is played when it beats ``b``'s mean by
   more than ``margin``; otherwise ``b`` is (a deviation must pay for itself,
   so noise does not pull the bot off its base policy).

With exact evaluation and perfect information the rollout policy is never
worse than its base policy; here the worlds are samples, the horizon is cut
and the horizon score is a heuristic, so it can be worse: its strength is
what a substitution evaluation measures (``treachery evaluate --agents
lookahead,heuristic --mode substitution --reference heuristic``; the README's
bot ladder gives it).
It is the teacher of expert iteration (Anthony, Tian & Barber 2017): a
training run with ``expert = "lookahead"`` distils it into the network,
which then plays without search.

Every other decision (targets, X, modes, the defending player unless
``kinds`` has it, mulligans, priority with a spell on the stack, talk) is the
heuristic's.

Hidden information: the bot reads only ``observation`` and ``info["view"]``;
the simulated games are rebuilt from the view and never touch the real game.
"""

from __future__ import annotations

import random
import time
import warnings
from collections import Counter
from typing import Any

from treachery_env.engine import Game
from treachery_env.view import ViewBuilder

from . import register
from .base import TreacheryOnlyAgent, seat_view, treachery_only
from .belief import RoleBelief
from .heuristic import HeuristicAgent
from .ismcts import SETUP_KINDS, determinize, evaluate, fast_clone, setup_decision

__all__ = ["LookaheadAgent", "heuristic_playout", "search_candidates", "check_kinds", "SEARCHED_KINDS",
           "SEARCHABLE_KINDS", "PRIORITY_ACTS"]

SEARCHED_KINDS = ("attacker", "blocker", "priority")
"""Decision kinds the bot searches by default (priority only with an empty stack and one of :data:`PRIORITY_ACTS`)."""

SEARCHABLE_KINDS = SETUP_KINDS
"""Decision kinds the bot can search (``kinds``): those a determinized world can be made pending on."""

PRIORITY_ACTS = frozenset({"cast", "commander", "unveil", "identity_ability"})
"""Option kinds that make a priority decision high-impact (lands, passes and talk alone do not)."""

_NOT_SEARCHED = frozenset({"talk", "concede"})


def check_kinds(kinds: Any) -> None:
    """Refuse decision ``kinds`` a lookahead search cannot take.

    Raises:
        ValueError: one line, unless ``kinds`` is a non-empty collection (not a string) of
            distinct members of :data:`SEARCHABLE_KINDS`; it names the first bad or repeated kind.
    """
    if isinstance(kinds, str) or not hasattr(kinds, "__iter__") or not kinds:
        raise ValueError(f"lookahead: kinds must be a non-empty collection of {list(SEARCHABLE_KINDS)}, "
                         f"got {kinds!r}")
    kinds = list(kinds)
    bad = [k for k in kinds if k not in SEARCHABLE_KINDS]
    if bad:
        raise ValueError(f"lookahead: unknown decision kind {bad[0]!r}; choose from {list(SEARCHABLE_KINDS)}")
    twice = [k for i, k in enumerate(kinds) if k in kinds[:i]]
    if twice:
        raise ValueError(f"lookahead: decision kind {twice[0]!r} given twice")


def search_candidates(view: Any, base: int, max_candidates: int = 6,
                      kinds: tuple = SEARCHED_KINDS) -> list[int] | None:
    """The actions the lookahead bot compares at a decision, or None where it does not search.

    A decision is searched when it is high-impact (its kind in ``kinds``; a
    priority decision only with an empty stack and an option of
    :data:`PRIORITY_ACTS`) and offers at least two actions other than talk
    and concession, ``base`` among them.  The candidates are the first
    ``max_candidates`` of those in the decision's option order, with ``base``
    in the last place if it was not among them.  A function of the seat view
    alone (the advantage gate of :class:`agents.policy.PolicyAgent` asks it too).

    Args:
        view: the deciding seat's view (``info["view"]``).
        base: the base policy's action (the heuristic's proposal).
        max_candidates: the most actions compared (>= 2).
        kinds: the decision kinds searched (a subset of :data:`SEARCHABLE_KINDS`).

    Returns:
        Action indices (``base`` among them), or None.
    """
    d = view.decision
    if d is None or d.kind not in kinds:
        return None
    if d.kind == "priority" and (view.stack or not any(o.kind in PRIORITY_ACTS for o in d.options)):
        return None
    acts = [o.action for o in d.options if o.kind not in _NOT_SEARCHED]
    if len(acts) < 2 or base not in acts:
        return None
    acts = acts[:max_candidates]
    if base not in acts:
        acts[-1] = base
    return acts


def heuristic_playout(g: Game, turns: int, seed: int, max_decisions: int = 3000) -> int:
    """Play ``g`` on in place with a fresh heuristic bot in every seat until
    ``turns`` more turns have begun after the current one or the game ends.

    Args:
        g: the game to advance (a simulation's copy; it is changed).
        turns: turns to play past the current one (0: to the end of this turn).
        seed: seeds the bots (``seed + seat``); the game's own stream is the
            copy's (see :func:`agents.ismcts.fast_clone`).
        max_decisions: a bound on the decisions taken (a safeguard).

    Returns:
        The number of decisions taken.
    """
    bots: dict[int, HeuristicAgent] = {}
    end = g.turn + turns
    views = ViewBuilder(g)
    k = 0
    while not g.is_over and g.turn <= end and k < max_decisions:
        s = g.current_player
        bot = bots.get(s)
        if bot is None:
            bot = bots[s] = HeuristicAgent(seed=seed + s)
            bot.reset(s)
        g.step(bot.act({"action_mask": g.legal_action_mask()}, {"view": views.build(s)}))
        k += 1
    return k


class LookaheadAgent(TreacheryOnlyAgent):
    """The heuristic bot improved by paired heuristic rollouts at high-impact
    decisions (see the module docstring).

    Args:
        seed: seed of the bot's stream (determinizations, rollout seeds).
        worlds: determinizations per searched decision (>= 1).
        horizon: turns a rollout plays past the current one (>= 0).
        margin: how much a candidate's mean score must beat the heuristic
            action's to be played instead (scores are in [-1, 1]).
        max_candidates: candidates compared per decision (>= 2; the
            heuristic's action is always one of them).
        kinds: the decision kinds searched, a non-empty subset of
            :data:`SEARCHABLE_KINDS` (default :data:`SEARCHED_KINDS`).

    Attributes:
        stats: counters: ``searched``, ``deviated`` (the played action is not
            the heuristic's), ``mismatch`` (no world rebuilt the decision),
            ``errors`` (exceptions inside determinization or rollouts; the
            last in ``last_error``).  A search in which every determinization,
            or every rollout, raised also warns (``RuntimeWarning``, once a bot).
        search_seconds: seconds spent searching in this bot's life.
        last_scores: the last :meth:`act`'s search, ``{action: mean score}``
            over its candidates (scores in [-1, 1], for the seat's team; the
            heuristic's action among them), or None when that decision was
            not searched (not high-impact, or no world rebuilt it).
        last_base: the heuristic's action at the last :meth:`act` (what the
            bot plays unless its search departs from it).

    Raises:
        ValueError: for a parameter out of range.
    """

    name = "lookahead"

    def __init__(self, seed: int | None = None, worlds: int = 4, horizon: int = 1, margin: float = 0.02,
                 max_candidates: int = 6, kinds: tuple = SEARCHED_KINDS):
        if int(worlds) < 1 or int(horizon) < 0 or int(max_candidates) < 2 or not 0 <= float(margin) < 2:
            raise ValueError(f"lookahead: worlds >= 1, horizon >= 0, max_candidates >= 2 and 0 <= margin < 2, "
                             f"got worlds={worlds}, horizon={horizon}, max_candidates={max_candidates}, "
                             f"margin={margin}")
        check_kinds(kinds)
        super().__init__(seed)
        self.worlds = int(worlds)
        self.horizon = int(horizon)
        self.margin = float(margin)
        self.max_candidates = int(max_candidates)
        self.kinds = tuple(k for k in SEARCHABLE_KINDS if k in set(kinds))
        self.base = HeuristicAgent(seed=seed)
        self.belief = RoleBelief()
        self.stats: Counter = Counter()
        self.search_seconds = 0.0
        self.last_error: str | None = None
        self._warned = False
        self.last_scores: dict[int, float] | None = None
        self.last_base: int | None = None

    def reset(self, seat: int) -> None:
        """Start a new game at ``seat`` (the base bot too)."""
        super().reset(seat)
        self.base.reset(seat)

    def act(self, observation: dict, info: dict) -> int:
        """The heuristic's action, or a better candidate found by search at a high-impact decision.

        Raises:
            ValueError: if the mask allows no action; in a Throne Magic game; without ``info["view"]``.
        """
        view = seat_view(self.name, info)
        treachery_only(self.name, view)
        base = self.last_base = int(self.base.act(observation, info))
        self.last_scores = None
        candidates = search_candidates(view, base, self.max_candidates, self.kinds)
        if candidates is None:
            return base
        t0 = time.perf_counter()
        try:
            return self._search(observation, view, base, candidates)
        finally:
            self.search_seconds += time.perf_counter() - t0

    def _search(self, observation: dict, view: Any, base: int, candidates: list[int]) -> int:
        rng = random.Random(int(self.rng.integers(0, 2**63 - 1)))
        beliefs = None if all(p.role is not None for p in view.players) else self.belief.beliefs(view)
        worlds: list[Game] = []
        raised = 0
        for _ in range(self.worlds):
            try:
                g = determinize(view, rng, observation=observation, beliefs=beliefs,
                                template=worlds[0] if worlds else None)
                if setup_decision(g, view):
                    worlds.append(g)
            except Exception as e:      # a view the rebuild does not cover: that world is not used
                self.stats["errors"] += 1
                self.last_error = f"determinize: {e!r}"
                raised += 1
        if not worlds:
            self.stats["mismatch"] += 1
            if raised == self.worlds:
                self._warn_once(f"every determinization of a search raised (the last: {self.last_error})")
            return base
        self.stats["searched"] += 1
        seeds = [rng.randrange(2**31) for _ in worlds]
        me = view.seat
        score = {}
        failed = 0
        for a in candidates:
            total = 0.0
            for w, seed in zip(worlds, seeds):
                g = fast_clone(w, seed)
                try:
                    g.step(a)
                    heuristic_playout(g, self.horizon, seed)
                    total += evaluate(g, me)
                except Exception as e:   # an engine error inside an imagined world: scored neutral
                    self.stats["errors"] += 1
                    self.last_error = f"rollout: {e!r}"
                    failed += 1
            score[a] = total / len(worlds)
        if failed == len(candidates) * len(worlds):
            self._warn_once(f"every rollout of a search raised (the last: {self.last_error})")
        self.last_scores = score
        best = max(candidates, key=lambda a: (score[a], a == base, -a))
        if best != base and score[best] > score[base] + self.margin:
            self.stats["deviated"] += 1
            return best
        return base

    def _warn_once(self, what: str) -> None:
        """Warn (``RuntimeWarning``, once in this bot's life) that a whole search failed, so that a
        fault in determinization or rollouts does not silently leave the bot (or a teacher) playing
        the heuristic's actions alone; ``stats["errors"]`` keeps counting every failure."""
        if not self._warned:
            self._warned = True
            warnings.warn(f"lookahead bot: {what}; it plays the heuristic's action where that happens",
                          RuntimeWarning, stacklevel=3)


register("lookahead", LookaheadAgent)
