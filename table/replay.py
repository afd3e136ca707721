"""A finished game's replay, action by action, for a viewer in the browser or a notebook.

A replay (``Game.to_json()``: the configuration, the seed, every action and a digest of the end)
is read once in full, digest checked, and then shown one step at a time (:meth:`Replay.frame`):
the state after ``step`` actions as one seat saw it, or as the spectators did, with what that
step's action was and the events it brought.  A replay holds every hidden fact, so it is given
to people once their game is over; a frame still shows only what its seat saw at that moment.

Most steps are priority passes with nothing else happening; :attr:`Replay.key_steps` are the
others (:meth:`Replay.next_key_step` / :meth:`Replay.prev_key_step` step over the passes), and
each frame's :attr:`Frame.label` says in words what was done, as far as its seat could see.
"""

from __future__ import annotations

import bisect
import json
from typing import Any, NamedTuple

from treachery_env.engine import Game
from treachery_env.engine.state import DecisionKind
from treachery_env.text import format_event
from treachery_env.view import public_view, seat_view

__all__ = ["Replay", "Frame", "StepFacts", "ROUTINE_EVENTS"]

ROUTINE_EVENTS = frozenset({"turn", "draw"})
"""The public log entries a pass of priority may bring and still be a plain pass (not a key step):
the next turn beginning and the draw step's draw, which passing on an empty stack moves the game to."""

# What a seat that did not decide may be told of a decision whose words and events it did not see:
# the kind of decision (who decides what is public, as at a real table), never the option chosen.
_UNSEEN = {
    "priority": "takes an action that is not public yet",
    "attacker": "chooses an attacker",
    "defender": "chooses what an attacking creature attacks",
    "blocker": "chooses a blocker",
    "blocked": "chooses which attacker a creature blocks",
    "target": "chooses targets",
    "number": "chooses a number",
    "mode": "chooses a mode",
    "card": "makes a choice among cards",
    "discard": "chooses a card to discard",
    "cost": "chooses how to pay a cost",
    "scry": "decides where a scried card goes",
    "yes_no": "answers a yes-or-no question",
    "order": "orders their triggers",
    "keep": "chooses which legendary permanent to keep",
    "mulligan": "decides on a mulligan",
    "bottom": "puts a card on the bottom of their library",
    "deal": "answers a truce offer",
}
_UNSEEN_DONE = {"priority": "passes priority", "attacker": "finishes declaring attackers",
                "blocker": "finishes declaring blockers"}       # passing these is public (the steps go on)


class StepFacts(NamedTuple):
    """What the replay knows of one step, beyond its frames (:attr:`Replay.facts`).

    Attributes:
        actor: the seat that decided.
        kind: its decision's kind, a ``DecisionKind.NAMES`` entry (``"priority"``, ``"target"``...).
        passed: whether the action was the decision's pass (pass priority, done, no, reject).
        public: the kinds of the log entries this step brought that every seat saw (``"cast"``...),
            concessions made out of turn right after it included.
        log_start, log_stop: the step's entries in the game's log, ``log[log_start:log_stop]``.
    """

    actor: int
    kind: str
    passed: bool
    public: tuple
    log_start: int
    log_stop: int

    @property
    def plain_pass(self) -> bool:
        """A pass of priority with nothing else happening: no public log entry but the routine ones
        (:data:`ROUTINE_EVENTS`)."""
        return self.kind == "priority" and self.passed and all(e in ROUTINE_EVENTS for e in self.public)


class Frame(NamedTuple):
    """One step of a replay (:meth:`Replay.frame`).

    Attributes:
        step: actions played, 0 to :attr:`Replay.steps`.
        turn: the game's turn then.
        actor: the seat whose action led here (None at step 0).
        action: that action in its seat's words (``"cast Shock"``) in that seat's own frame; ``""``
            at step 0 and in other seats' and the spectators' frames (what was public of it is in
            ``events``: the words of an action may name a hidden card, e.g. one put on the bottom).
        view: the state as ``seat`` saw it (:class:`~treachery_env.view.SeatView`; the public view
            for spectators).
        events: the log entries of this step that ``seat`` saw, in words.
        seat: the seat it is seen from, None for the spectators.
        label: the step in words as ``seat`` may know it (:meth:`Replay.label`): ``"The deal"`` at
            step 0, ``"P2 (you): cast Shock"`` in the actor's own frame, ``"P2 casts Shock targeting
            P3"`` (the actor's first entry in ``events``), ``"P2 passes priority; then Shock
            resolves"`` or, for a choice ``seat`` did not see, its kind alone (``"P2 chooses
            targets"``).
        key: whether the step is one of :attr:`Replay.key_steps` (not a plain pass).
    """

    step: int
    turn: int
    actor: int | None
    action: str
    view: Any
    events: tuple
    seat: int | None
    label: str = ""
    key: bool = False


class Replay:
    """A replay to view step by step.

    Args:
        text: the replay JSON (``Game.to_json()``, e.g. a file ``treachery play`` saved).

    Attributes:
        steps: the number of actions.  num_players: the table's size.  last_turn: the turn the
            game is in after its last step (turns count from 0, the deal).  labels: who sat where (the
            seats' labels, ``"human"``, ``"heuristic"``...) when the replay says (a table's does,
            :meth:`table.Table.replay_json`), else None.
        facts: a :class:`StepFacts` per step, ``facts[k - 1]`` for step ``k`` (1 to :attr:`steps`).
        key_steps: the steps, ascending, that are not plain passes (:attr:`StepFacts.plain_pass`):
            every other decision (spells cast, abilities activated, attackers, blockers, targets,
            unveils, talk, mulligans...) and every pass that brought something public (a spell
            resolving, combat damage, a concession, the game's end).  Computed from the decisions'
            kinds and the public log, so the same for every seat: it tells who passed priority
            when, which every seat at the table saw too.

    Raises:
        ValueError: for text that is not a replay this engine can play back (one line, from
            ``Game.from_json``).
    """

    def __init__(self, text: str | bytes):
        final = Game.from_json(text)             # the whole replay, its digest checked
        self.text = text if isinstance(text, str) else text.decode()
        self._actions = final.actions
        self.steps = len(self._actions)
        self.num_players = final.n
        self.last_turn = final.turn
        d = json.loads(self.text)
        seats = d.get("seats")
        self.labels = (tuple(seats) if isinstance(seats, list) and len(seats) == final.n
                       and all(isinstance(x, str) for x in seats) else None)
        self._walk(d.get("concessions", []))
        self.key_steps = tuple(k for k, f in enumerate(self.facts, 1) if not f.plain_pass)

    def _walk(self, concessions: list) -> None:
        """One pass over the replay, as ``Game.from_json(text, stop=k)`` plays it for each ``k`` (the
        concessions made with ``k`` actions played come right after action ``k``): :attr:`facts`,
        the whole log and each action in its seat's words (kept private: they may name hidden cards)."""
        pending = sorted(tuple(c) for c in concessions if c[0] > 0)   # those at 0 are in stop=0's game
        g = Game.from_json(self.text, stop=0)
        concede = g.layout.CONCEDE
        facts, words = [], []
        for k, a in enumerate(self._actions, 1):
            d = g.decision
            i = d.index_of(a)
            passed = a != concede and i is not None and d.options[i][1] is None
            words.append(g.describe_action(a))
            start = len(g.log)
            g.step(a)
            while pending and pending[0][0] <= k:
                g.concede(pending.pop(0)[1])
            facts.append(StepFacts(d.seat, DecisionKind.NAMES[d.kind], passed,
                                   tuple(e["event"] for e in g.log[start:] if e["to"] is None), start, len(g.log)))
        self.facts: tuple = tuple(facts)
        self._words = tuple(words)
        self._log = g.log

    def _check_step(self, step: Any) -> None:
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.steps:
            raise ValueError(f"step must be an int from 0 to {self.steps}, got {step!r}")

    def _check_seat(self, seat: Any) -> None:
        """Refuse a chair that is not a seat of this table nor the spectators' (None), in words a
        person reads (the web replay viewer's API shows them): ``"seat 9 is not at this 5-seat
        table; seats are 0-4, or none for the spectators' view"``."""
        if seat is None:
            return
        n = self.num_players
        chairs = f"seats are 0-{n - 1}, or none for the spectators' view"
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise ValueError(f"seat must be a seat number, got {seat!r}; {chairs}")
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not at this {n}-seat table; {chairs}")

    def next_key_step(self, step: int) -> int:
        """The first of :attr:`key_steps` after ``step``, else :attr:`steps` (the end).

        Raises:
            ValueError: for a step outside 0 to :attr:`steps`.
        """
        self._check_step(step)
        k = bisect.bisect_right(self.key_steps, step)
        return self.key_steps[k] if k < len(self.key_steps) else self.steps

    def prev_key_step(self, step: int) -> int:
        """The last of :attr:`key_steps` before ``step``, else 0 (the deal).

        Raises:
            ValueError: for a step outside 0 to :attr:`steps`.
        """
        self._check_step(step)
        k = bisect.bisect_left(self.key_steps, step)
        return self.key_steps[k - 1] if k > 0 else 0

    def turn_start(self, turn: int) -> int:
        """The first step at which the game was in turn ``turn`` or later (0 for turn 0, the deal):
        where a viewer jumps to go to a turn.  A binary search over the replay (turns never go
        back), each probe a replay from the start.

        Raises:
            ValueError: for a turn that is not an int from 0 to :attr:`last_turn` (one line).
        """
        if isinstance(turn, bool) or not isinstance(turn, int) or not 0 <= turn <= self.last_turn:
            raise ValueError(f"turn must be an int from 0 to {self.last_turn}, got {turn!r}")
        lo, hi = 0, self.steps                   # the answer lies in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            if Game.from_json(self.text, stop=mid).turn >= turn:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def label(self, step: int, seat: int | None = None) -> str:
        """Step ``step`` in words as ``seat`` (None: the spectators) may know it (:attr:`Frame.label`):
        made of the step's log entries that ``seat`` saw, the action's own words for the seat that
        chose it, and nothing else but who decided, the decision's kind and whether it was a pass
        (public at the table; see :attr:`key_steps`), so it names no card ``seat`` could not see.
        Quick: no replay.

        Raises:
            ValueError: for a step outside 0 to :attr:`steps` or a seat not at the table.
        """
        self._check_step(step)
        self._check_seat(seat)
        if step == 0:
            return "The deal"
        f = self.facts[step - 1]
        who = f"P{f.actor}"
        seen = [e for e in self._log[f.log_start:f.log_stop] if e["to"] is None or (seat is not None and seat in e["to"])]
        news = [e for e in seen if e["event"] not in ROUTINE_EVENTS]
        end = next((e for e in news if e["event"] == "game_over"), None)   # the last step says the game ended

        def ending(said: Any) -> str:            # "; the game ends ..." unless ``said`` is that entry
            return f"; {format_event(end)}" if end is not None and end is not said else ""

        if seat == f.actor:
            head = f"{who} (you): {self._words[step - 1]}"
        elif f.kind == "priority" and f.passed:
            head = f"{who} passes priority"
        else:
            mine = next((e for e in news if e.get("seat") == f.actor), None)
            if mine is not None:                 # the action as the table saw it: "P2 casts Shock ..."
                return format_event(mine) + ending(mine)
            head = f"{who} " + ((_UNSEEN_DONE.get(f.kind) if f.passed else None) or _UNSEEN.get(f.kind, "makes a choice"))
        if news and (seat != f.actor or (f.kind == "priority" and f.passed)):
            return f"{head}; then {format_event(news[0])}{ending(news[0])}"
        return head + ending(None)

    def frame(self, step: int, seat: int | None = None) -> Frame:
        """The state after ``step`` actions as ``seat`` saw it (None: the spectators).

        Raises:
            ValueError: for a step outside 0 to :attr:`steps` or a seat not at the table.
        """
        self._check_step(step)
        self._check_seat(seat)
        g = Game.from_json(self.text, stop=step)
        actor, action, before = None, "", 0
        if step > 0:
            f = self.facts[step - 1]
            actor, before = f.actor, f.log_start
            if seat == actor:                    # the action's words, for its own seat only
                action = self._words[step - 1]
        events = tuple(format_event(e) for e in g.log[before:]
                       if e["to"] is None or (seat is not None and seat in e["to"]))
        view = public_view(g) if seat is None else seat_view(g, seat)
        return Frame(step, g.turn, actor, action, view, events, seat, self.label(step, seat),
                     step > 0 and not self.facts[step - 1].plain_pass)
