"""Auto-pass stops: when a person's seat is asked, and when priority passes by itself.

In the manner of MTG Arena, a table passes priority for a person (CR 117.3d: a
player with priority may pass it) unless something changed that concerns their
seat.  :class:`Stops` holds one seat's settings and :meth:`Stops.reason` reads
only that seat's information set: its :class:`~treachery_env.view.SeatView` and
the log entries it may see since it was last asked.  A decision that is not a
priority window (attackers, blockers, targets, costs, mulligans, truces, ...)
is always asked, unless it offers one choice only (options that look the same to
the seat, such as two copies of one card, are one choice: :func:`treachery_env.text.choices`).

Passing is always a legal answer at a priority window, so an automatic pass is
exactly the game the person would have had by passing there; a stop changes
what the person is asked, never the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Iterable

from treachery_env.text import choices

__all__ = ["Stops", "MEANINGLESS_KINDS", "STANDING_KINDS", "pass_option"]

MAIN_PHASES = ("main1", "main2")
MEANINGLESS_KINDS = frozenset({"pass", "talk", "concede"})
"""Option kinds that alone give no reason to stop at a priority window: passing, table talk (said on
one's own turn, where the main phases stop) and conceding (a front end offers it at any prompt)."""
STANDING_KINDS = frozenset({"unveil", "token"})
"""Options open at almost every window while they last (unveiling a face-down identity, using a Food
or a Clue): reasons to stop when something concerns the seat itself (it is attacked or targeted, an
identity was unveiled, its main phase), not at every spell another seat casts."""


def pass_option(view: Any) -> int | None:
    """The action that passes priority in ``view``'s pending decision (its ``"pass"`` option),
    else None (no decision, or a decision without a pass)."""
    d = view.decision
    if d is None:
        return None
    for o in d.options:
        if o.kind == "pass":
            return o.action
    return None


@dataclass(frozen=True)
class Stops:
    """One seat's stops: the moments its person is asked at a priority window.

    Attributes:
        own_main: the seat's own main phases (CR 505) with an empty stack, when it can play a
            land, cast a spell or activate an ability; the first main phase also when it can only
            talk, unveil or use a token.
        attacked: the first priority window of a combat in which creatures attack the seat
            or its planeswalkers (CR 508; the blockers are asked anyway).
        stack: another seat's spell or ability goes on the stack (CR 601, 602, 603) and the
            seat could respond with a spell or an ability (not only with an unveil or a token,
            :data:`STANDING_KINDS`).
        targeted: a spell or ability on the stack targets the seat, its creatures or its
            planeswalkers (CR 115), even when the only answer is an unveil.
        unveil: another seat unveils its identity (TR5, rules/treachery.md) or an identity is
            revealed: a new fact about the table.
        end_of_turn: the end step (CR 513) of the seat just before this one, the last
            window before its own turn.
        truces: a truce offered to the seat (a ``"deal"`` decision, TR10.5) is asked; off, it is
            declined by itself (its ``"pass"``).
        every: every decision, a single option's too (the terminal's behaviour before stops existed).

    A stop is made only when the seat has something to do besides passing (an option
    whose kind is not in :data:`MEANINGLESS_KINDS`); ``every`` asks regardless.
    """

    own_main: bool = True
    attacked: bool = True
    stack: bool = True
    targeted: bool = True
    unveil: bool = True
    end_of_turn: bool = False
    truces: bool = True
    every: bool = False

    def as_dict(self) -> dict[str, bool]:
        """The settings as ``{name: bool}``."""
        return {n: getattr(self, n) for n in self.names()}

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The settings' names, in order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def parse(cls, text: str) -> "Stops":
        """Stops from a comma-separated list of the settings to turn on (``"own_main,attacked"``),
        ``"default"`` (the defaults), ``"every"`` (every priority window) or ``"none"`` (only the
        decisions that are not priority windows); the form of ``treachery play --stops``.

        Raises:
            ValueError: naming an unknown setting and the known ones.
        """
        if not isinstance(text, str):
            raise ValueError(f"stops are a string such as 'default' or 'own_main,attacked', got {text!r}")
        words = [w.strip().replace("-", "_") for w in text.split(",") if w.strip()]
        if words == ["default"]:
            return cls()
        if words == ["none"]:
            return cls(**{n: False for n in cls.names()})
        unknown = [w for w in words if w not in cls.names()]
        if unknown or not words:
            raise ValueError(f"unknown stop {', '.join(unknown) or repr(text)}: use default, none or a "
                             f"comma-separated list of {', '.join(cls.names())}")
        return cls(**{n: n in words for n in cls.names()})

    def with_(self, **changes: bool) -> "Stops":
        """A copy with some settings changed (``stops.with_(end_of_turn=True)``).

        Raises:
            TypeError: for a name that is not a setting.
        """
        return replace(self, **changes)

    def reason(self, view: Any, new_events: Iterable[dict], seen_stack: frozenset,
               seen_combat: frozenset) -> str | None:
        """Why ``view``'s pending decision should be asked, in words, or None to answer it alone.

        Args:
            view: the seat's :class:`~treachery_env.view.SeatView`, with its pending decision.
            new_events: the log entries the seat may see that came since it was last asked
                (``Game.log`` entries, or a view's events).
            seen_stack: uids of the stack objects it was already asked about.
            seen_combat: ``(turn, attacker seat)`` of the combats it was already asked about.

        Returns:
            the reason (``"your precombat main phase"``, ``"P2's Shock targets you or yours"``..., or the
            decision's own words as a person reads them, :meth:`DecisionView.question`), or None:
            answer with the decision's pass (a priority window, a truce offer), or with its single
            option.
        """
        d = view.decision
        if self.every:
            return d.question()
        options = [o for o in d.options if o.kind != "concede"]
        if d.kind == "deal" and not self.truces:
            return None
        if d.kind != "priority":     # one choice (two copies of one card are one, text.choices): nothing to ask
            return None if sum(o.kind != "concede" for o, _ in choices(view)) == 1 else d.question()
        kinds = {o.kind for o in options}
        meaningful = bool(kinds - MEANINGLESS_KINDS)
        responses = bool(kinds - MEANINGLESS_KINDS - STANDING_KINDS)
        # the first main phase is the seat's moment to talk and unveil at leisure; the second
        # needs a land, a spell or an ability to play
        if self.own_main and self._main(view) and (responses or (view.phase == "main1" and kinds - {"pass"})):
            return "your precombat main phase" if view.phase == "main1" else "your postcombat main phase"
        if not meaningful:
            return None
        me = view.seat
        new_objects = [s for s in view.stack if s.uid not in seen_stack and s.controller != me]
        if self.targeted:
            mine = self._my_objects(view)
            for s in new_objects:
                if any(t in mine for t in s.targets):
                    return f"P{s.controller}'s {s.source} targets you or yours"
        if self.stack and new_objects and responses:
            s = new_objects[-1]
            return f"P{s.controller}'s {s.source} is on the stack"
        if self.attacked and (view.turn, view.active) not in seen_combat and self._attacked(view):
            return f"P{view.active} attacks you"
        if self.unveil:
            for e in new_events:
                if e["event"] in ("unveil", "reveal") and e.get("seat") != me:
                    return f"P{e['seat']} {'unveiled' if e['event'] == 'unveil' else 'was revealed'}: {e['identity']}"
        if self.end_of_turn and view.phase == "end" and not view.stack and \
                self._next_in_game(view) == me and view.active != me:
            return f"end of P{view.active}'s turn (yours is next)"
        return None

    # ------------------------------------------------------------------ pieces
    @staticmethod
    def _main(view: Any) -> bool:
        return view.active == view.seat and view.phase in MAIN_PHASES and not view.stack

    @staticmethod
    def _my_objects(view: Any) -> set:
        me = view.players[view.seat]
        mine = {("player", view.seat)}
        mine.update(("creature", c.uid) for c in me.creatures)
        mine.update(("planeswalker", w.uid) for w in me.planeswalkers)
        return mine

    @staticmethod
    def _attacked(view: Any) -> bool:
        walkers = {w.uid for w in view.players[view.seat].planeswalkers}
        return any(c.attacking == view.seat or (c.attacking_planeswalker is not None and c.attacking_planeswalker
                                                in walkers)
                   for p in view.players if p.seat != view.seat for c in p.creatures)

    @staticmethod
    def _next_in_game(view: Any) -> int | None:
        n = len(view.players)
        for k in range(1, n):
            s = (view.active + k) % n
            if view.players[s].in_game:
                return s
        return None
