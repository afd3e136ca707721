"""Triggered abilities (CR 603): pending triggers put on the stack in APNAP
order, enters-the-battlefield triggers, delayed triggers.
"""

from __future__ import annotations

from typing import Any

from .. import identity_abilities as IA
from .state import Creature, StackItem

__all__ = ["TriggersMixin"]


class TriggersMixin:
    """Triggered abilities (CR 603): methods of :class:`~treachery_env.engine.game.Game`."""

    def add_trigger(self, item: StackItem) -> None:
        """Queue a triggered ability; it goes on the stack the next time a player
        would receive priority, in APNAP order (CR 603.3b)."""
        self.pending_triggers.append(item)

    def _put_triggers_on_stack(self, trig: list[StackItem] | None = None) -> None:
        """CR 603.3b: the active player puts their triggers on the stack first,
        then each other player in turn order; targets are chosen now (CR 603.3d:
        a trigger with no legal target is removed).  ``trig``: those triggers
        only, already taken out of the pending ones (the CR 907.8a window of
        :meth:`Game.lose`); default: every pending trigger."""
        if trig is None:
            trig = self.pending_triggers
            self.pending_triggers = []
        order = {s: k for k, s in enumerate((self.active + k) % self.n for k in range(self.n))}
        trig.sort(key=lambda t: order[t.controller])
        ops: list = []
        for t in trig:
            if self.players[t.controller].has_lost:
                continue
            if t.data.get("prepare"):
                ops.append(("call", t.data["prepare"], t))
            for spec in t.data.get("specs", ()):
                ops.append(("choose_target", t, spec, spec.get("max", 1)))
            ops.append(("push_trigger", t))
        self._push_front(ops)

    def _op_push_trigger(self, t: StackItem) -> None:
        if self.players[t.controller].has_lost:
            return
        specs = t.data.get("specs", ())
        if specs and all(x is None for x in t.targets) and any(s.get("min", 1) > 0 for s in specs):
            self._log("trigger_removed", source=t.source, seat=t.controller)
            return
        self.stack.append(t)
        self._log("trigger", seat=t.controller, source=t.source, key=t.key,
                  targets=[self._target_repr(x) for x in t.targets])

    def _etb_trigger(self, c: Creature) -> None:
        """The enters-the-battlefield ability of ``c``'s card, if any, triggers
        (CR 603.6a; a token copy has it too, CR 707.2)."""
        card = c.card
        if card is None or not card.effects:
            return
        trig = StackItem(self._new_uid(), "trigger", c.controller, source=card.name, key="etb")
        trig.data["effects"] = card.effects
        trig.creature = c
        if card.targets:
            trig.data["specs"] = list(card.targets)
        self.pending_triggers.append(trig)

    def _fire_delayed(self, when: str) -> None:
        """Run the delayed triggers (CR 603.7) registered for the beginning of
        ``when`` ("upkeep", "main_phase" (precombat), "main2" (postcombat),
        "end_step"); one with a ``"seat"`` key waits for that player's turn."""
        due = [d for d in self.delayed if d["when"] == when and d.get("seat", self.active) == self.active]
        if not due:
            return
        self.delayed = [d for d in self.delayed if not any(d is x for x in due)]
        for d in due:          # a callback may register new delayed triggers: they wait for the next time
            IA.run_delayed(self, d)

    def add_delayed(self, when: str, fn: str, seat: int | None = None, **data: Any) -> None:
        """Register a delayed triggered ability (CR 603.7): callback ``fn(game, d)``
        runs at the beginning of the next ``when`` step ("upkeep", "main_phase",
        "main2", "end_step"), of ``seat``'s turn if given."""
        d = {"when": when, "fn": fn, **data}
        if seat is not None:
            d["seat"] = seat
        self.delayed.append(d)
