"""Triggered abilities (CR 603): pending triggers put on the stack in APNAP
order, enters-the-battlefield triggers, delayed triggers.
"""

from __future__ import annotations

from typing import Any

from .. import identity_abilities as IA
from ..actions import MAX_CHOICE
from .state import Creature, Decision, DecisionKind, StackItem

__all__ = ["TriggersMixin"]


class TriggersMixin:
    """Triggered abilities (CR 603): methods of :class:`~treachery_env.engine.game.Game`."""

    def add_trigger(self, item: StackItem) -> None:
        """Queue a triggered ability; it goes on the stack the next time a player
        would receive priority, in APNAP order (CR 603.3b)."""
        self.pending_triggers.append(item)

    def _put_triggers_on_stack(self, trig: list[StackItem] | None = None) -> None:
        """CR 603.3b: the active player puts their triggers on the stack first,
        then each other player in turn order, each in the order they choose
        (:meth:`_op_order_triggers`); targets are chosen as each goes on the
        stack (CR 603.3d: a trigger with no legal target is removed).  ``trig``:
        those triggers only, already taken out of the pending ones (the CR
        907.8a window of :meth:`Game.lose`); default: every pending trigger.
        Triggers of players who left the game are dropped."""
        if trig is None:
            trig = self.pending_triggers
            self.pending_triggers = []
        ops: list = []
        for seat in self._apnap():
            mine = [t for t in trig if t.controller == seat]
            if mine:
                ops.append(("order_triggers", seat, mine))
        self._push_front(ops)

    def _trigger_ops(self, t: StackItem) -> list:
        """Operations that put trigger ``t`` on the stack: its preparation (modes),
        its targets (CR 603.3d), then the stack."""
        ops: list = []
        if t.data.get("prepare"):
            ops.append(("call", t.data["prepare"], t))
        for spec in t.data.get("specs", ()):
            ops.append(("choose_target", t, spec, spec.get("max", 1)))
        ops.append(("push_trigger", t))
        return ops

    @staticmethod
    def _trigger_key(t: StackItem) -> tuple:
        """What tells trigger ``t`` from the others of its controller (copies of one
        trigger share it): source, ability and data, public data only.  A data
        entry whose name starts with ``_`` holds what only the controller may know
        (The Corrupted Regent's cards drawn) and is left out, so whether the ORDER
        decision is asked depends on public information only."""
        public = sorted((kv for kv in t.data.items() if not kv[0].startswith("_")), key=lambda kv: kv[0])
        return (t.source, t.key, t.identity_source, repr(public))

    def _op_order_triggers(self, seat: int, pending: list) -> None:
        """CR 603.3b: ``seat`` puts its simultaneous triggers on the stack in any
        order, the last one put resolving first.  Asked only when the order
        matters: two or more triggers that are not copies of one another (same
        source, ability and data); otherwise they go on in the order they
        triggered.  The choice is "the next one to put on the stack".  The
        comparison reads public data only (:meth:`_trigger_key`)."""
        if self.players[seat].has_lost or not pending:
            return
        if len(pending) == 1 or len({self._trigger_key(t) for t in pending}) == 1:
            self._push_front([op for t in pending for op in self._trigger_ops(t)])
            return
        L = self.layout
        shown = pending[:MAX_CHOICE]
        labels = [f"{t.source} ({t.key})" if t.key else t.source for t in shown]
        self.decision = Decision(seat, DecisionKind.ORDER, [(L.CHOICE + k, k) for k in range(len(shown))],
                                 "_h_order_trigger", (seat, pending),
                                 "choose the trigger to put on the stack next (the last one put resolves first)",
                                 labels)

    def _h_order_trigger(self, ctx: tuple, k: int) -> None:
        seat, pending = ctx
        t = pending[k]
        rest = pending[:k] + pending[k + 1:]
        self._push_front(self._trigger_ops(t) + [("order_triggers", seat, rest)])

    def _op_push_trigger(self, t: StackItem) -> None:
        if self.players[t.controller].has_lost:
            return
        specs = t.data.get("specs", ())
        if specs and all(x is None for x in t.targets) and any(s.get("min", 1) > 0 for s in specs):
            self._log("trigger_removed", source=t.source, seat=t.controller, **self._source_label(t))
            self._dirty = True      # what waited on it may change (a scheme's CR 904.10)
            return
        self.stack.append(t)
        self._log("trigger", seat=t.controller, source=t.source, key=t.key,
                  targets=[self._target_repr(x) for x in t.targets], **self._target_labels(t.targets),
                  **self._source_label(t))

    def _etb_trigger(self, c: Creature) -> None:
        """The enters-the-battlefield ability of ``c``'s card, if any, triggers
        (CR 603.6a; a token copy has it too, CR 707.2)."""
        card = c.card
        if card is None or not card.effects:
            return
        trig = StackItem(self._new_uid(), "trigger", c.controller, source=card.name, key="etb")
        if c.ordinal > 1:
            trig.label = c.label                        # for people: "Flame Adept #2 triggers"
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
