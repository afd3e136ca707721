"""The Vanguard variant (CR 902, ``../shared/rules/cr-900-casual-variants-italian.txt``
lines 39-51) on the engine, with ``GameConfig(vanguard=...)``, in Treachery and in
Throne Magic.

* CR 902.3, 902.6: at the start each player gets a :class:`~.state.VanguardCard`
  (``Player.vanguard``), face up in the command zone for the whole game, public,
  owned and controlled by that player (logged publicly: a ``vanguard`` event per
  seat at the deal).
* CR 902.4: starting life = the configured base (20, Commander 40) plus the card's
  life modifier; identity start bonuses come after (``Game._setup``).
* CR 902.5, 902.5a: the opening hand is the configured size plus the hand
  modifier, and so is every mulligan's new hand (the London mulligan of
  ``engine/mulligan.py`` draws that size and bottoms one card per mulligan after the
  free first one of a multiplayer game, so the hands kept are 902.5a's).
* CR 902.5b: the maximum hand size is the configured one plus the hand modifier
  (checked at cleanup, ``Game._op_cleanup``).
* CR 902.7: the card's ability works from the command zone: its one triggered
  ability (:mod:`treachery_env.vanguards`, ``"upkeep"`` or ``"end_step"`` of its
  controller's turn) goes on the stack like any triggered ability (it may be
  countered) and resolves through the card pool's effect primitives.  The pool has
  no static or activated Vanguard abilities (docs/fidelity.md section 10).

A player who left the game takes their Vanguard card with them (CR 800.4a): its
ability no longer triggers.
"""

from __future__ import annotations

from .. import vanguards as V
from .state import StackItem, VanguardCard

__all__ = ["VanguardMixin", "KEY"]

KEY = "vanguard"
"""Stack key of a Vanguard card's triggered ability (CR 902.7)."""


class VanguardMixin:
    """The Vanguard variant (CR 902): methods of :class:`~treachery_env.engine.game.Game`,
    active only with ``config.vanguard``."""

    def _deal_vanguards(self) -> None:
        """CR 902.3, 902.4, 902.5b, 902.6: each player's Vanguard card into the command
        zone, face up (``config.vanguard``: a name per seat, or a different one per seat
        drawn from the game's random stream for "random"); the starting life gets its life
        modifier and the maximum hand size its hand modifier.  Logged publicly (``vanguard``,
        one per seat).  Does nothing without the variant (no draw from the random stream)."""
        chosen = self.config.vanguard
        if chosen is None:
            return
        if chosen == "random":
            chosen = self.rng.sample(V.names(), self.n)
        for p in self.players:
            card = V.get(chosen[p.seat])
            p.vanguard = VanguardCard(self._new_uid(), card.name, p.seat)
            p.life += card.life
            p.max_hand_size += card.hand
            self._log("vanguard", seat=p.seat, name=card.name, life=card.life, hand=card.hand)

    def _opening_sizes(self) -> list[int]:
        """Each seat's opening hand size before identity bonuses: ``config.starting_hand_size``
        plus its Vanguard's hand modifier (CR 902.5; without the variant, the configured size)."""
        base = self.config.starting_hand_size
        return [base + (0 if p.vanguard is None else V.get(p.vanguard.name).hand) for p in self.players]

    def _vanguard_triggers(self, when: str) -> None:
        """CR 902.7: at the beginning of the active player's upkeep or end step (``when``:
        "upkeep" or "end_step"), that player's Vanguard ability with that trigger triggers
        (a pending trigger, on the stack at the next priority, its targets chosen then)."""
        p = self.players[self.active]
        if p.has_lost or p.vanguard is None:
            return
        name = p.vanguard.name
        ab = V.get(name).ability
        if ab.trigger != when:
            return
        trig = StackItem(self._new_uid(), "trigger", p.seat, source=name, key=KEY)
        if ab.targets:
            trig.data["specs"] = [dict(t) for t in ab.targets]
        self.pending_triggers.append(trig)

    def _resolve_vanguard(self, item: StackItem) -> None:
        """Resolve a Vanguard ability: its effect primitives, in order (``Game._op_effect``)."""
        self._push_front([("effect", item, dict(e)) for e in V.get(item.source).ability.effects])
