"""A finished game's replay, action by action, for a viewer in the browser or a notebook.

A replay (``Game.to_json()``: the configuration, the seed, every action and a digest of the end)
is read once in full, digest checked, and then shown one step at a time (:meth:`Replay.frame`):
the state after ``step`` actions as one seat saw it, or as the spectators did, with what that
step's action was and the events it brought.  A replay holds every hidden fact, so it is given
to people once their game is over; a frame still shows only what its seat saw at that moment.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from treachery_env.engine import Game
from treachery_env.text import format_event
from treachery_env.view import public_view, seat_view

__all__ = ["Replay", "Frame"]


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
    """

    step: int
    turn: int
    actor: int | None
    action: str
    view: Any
    events: tuple
    seat: int | None


class Replay:
    """A replay to view step by step.

    Args:
        text: the replay JSON (``Game.to_json()``, e.g. a file ``treachery play`` saved).

    Attributes:
        steps: the number of actions.  num_players: the table's size.  labels: who sat where (the
            seats' labels, ``"human"``, ``"heuristic"``...) when the replay says (a table's does,
            :meth:`table.Table.replay_json`), else None.

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
        seats = json.loads(self.text).get("seats")
        self.labels = (tuple(seats) if isinstance(seats, list) and len(seats) == final.n
                       and all(isinstance(x, str) for x in seats) else None)

    def turn_start(self, turn: int) -> int:
        """The first step at which the game was in turn ``turn`` or later (0 for turn 0 or before,
        :attr:`steps` past the last turn): where a viewer jumps to go to a turn.  A binary search
        over the replay (turns never go back), each probe a replay from the start.

        Raises:
            ValueError: for a turn that is not an int.
        """
        if isinstance(turn, bool) or not isinstance(turn, int):
            raise ValueError(f"turn must be an int, got {turn!r}")
        lo, hi = 0, self.steps                   # the answer lies in [lo, hi]
        while lo < hi:
            mid = (lo + hi) // 2
            if Game.from_json(self.text, stop=mid).turn >= turn:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def frame(self, step: int, seat: int | None = None) -> Frame:
        """The state after ``step`` actions as ``seat`` saw it (None: the spectators).

        Raises:
            ValueError: for a step outside 0 to :attr:`steps` or a seat not at the table.
        """
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.steps:
            raise ValueError(f"step must be an int from 0 to {self.steps}, got {step!r}")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)
                                 or not 0 <= seat < self.num_players):
            raise ValueError(f"seat must be None (the spectators) or a seat from 0 to {self.num_players - 1}, "
                             f"got {seat!r}")
        g = Game.from_json(self.text, stop=step)
        actor, action, before = None, "", 0
        if step > 0:
            prev = Game.from_json(self.text, stop=step - 1)
            actor = prev.current_player
            action = prev.describe_action(self._actions[step - 1])
            before = len(prev.log)
        events = tuple(format_event(e) for e in g.log[before:]
                       if e["to"] is None or (seat is not None and seat in e["to"]))
        view = public_view(g) if seat is None else seat_view(g, seat)
        return Frame(step, g.turn, actor, action if seat is not None and seat == actor else "", view, events, seat)
