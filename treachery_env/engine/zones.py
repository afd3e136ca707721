"""Moving objects between zones (CR 400-406, 108.4, 701.8/701.17): the
battlefield, graveyards, exile, hands, tokens, drawing, discarding, control
of creatures.
"""

from __future__ import annotations

from .. import identity_abilities as IA
from ..actions import MAX_HAND
from ..cards import TOKENS, CardDef
from .state import DecisionKind, Creature, StackItem, Decision

__all__ = ["ZonesMixin"]


class ZonesMixin:
    """Moving objects between zones (CR 400-406, 108.4, 701.8/701.17): methods of :class:`~treachery_env.engine.game.Game`."""

    def _leave_battlefield(self, c: Creature, to: str) -> bool:
        p = self.players[c.controller]
        if c not in p.creatures:
            return False
        p.creatures.remove(c)
        if c.blocking is not None and c in c.blocking.blocked_by:
            c.blocking.blocked_by.remove(c)
        if c in self.combat_attackers:
            self.combat_attackers.remove(c)
        owner = self.players[c.owner]
        # "zone", not "to": ``to`` is _log's list of seats allowed to see an event
        self._log("leaves", creature=c.uid, name=c.name, zone=to, seat=c.controller)
        if not c.token and not owner.has_lost:
            if c.is_commander and self.config.commander:
                owner.commander_zone = "command"
            elif to == "graveyard":
                owner.graveyard.append(c.card)
            elif to == "exile":
                owner.exile.append(c.card)
            elif to == "hand":
                owner.hand.append(c.card)
        IA.fire_event(self, "creature_left", creature=c)
        return True

    def destroy(self, c: Creature) -> bool:
        """Destroy a creature (CR 701.8): it goes to its owner's graveyard."""
        return self._leave_battlefield(c, "graveyard")

    def exile_creature(self, c: Creature) -> bool:
        """Exile a creature; a commander goes to the command zone instead."""
        return self._leave_battlefield(c, "exile")

    def bounce(self, c: Creature) -> bool:
        """Return a creature to its owner's hand (a commander: command zone)."""
        return self._leave_battlefield(c, "hand")

    def sacrifice(self, c: Creature, source_seat: int | None = None) -> bool:
        """``c``'s controller sacrifices it (CR 701.17): it goes to its owner's
        graveyard; replacement effects apply (The Great Martyr)."""
        if self.effects or self._statics:
            ev = {"seat": c.controller, "creature": c, "source_seat": source_seat}
            IA.replace(self, "sacrifice", ev)
            c = ev["creature"]
            if c is None:
                return False
        self._log("sacrifice", seat=c.controller, permanent=c.name)
        return self._leave_battlefield(c, "graveyard")

    def gain_control(self, c: Creature, seat: int, until_end_of_turn: bool = False) -> None:
        """``seat`` gains control of creature ``c`` (CR 108.4); it can't attack this
        turn unless it has haste (CR 302.6); with ``until_end_of_turn`` it goes
        back to its previous controller in the cleanup step."""
        old = c.controller
        if old == seat or c not in self.players[old].creatures or self.players[seat].has_lost:
            return
        self.players[old].creatures.remove(c)
        if c in self.combat_attackers:
            self.combat_attackers.remove(c)
        c.attacking = -1
        c.controller = seat
        c.entered_turn = self.turn
        self.players[seat].creatures.append(c)
        if until_end_of_turn:
            self.turn_effects.setdefault("control_back", []).append((c, old))
        self._log("gain_control", seat=seat, creature=c.uid, name=c.name, previous=old)

    def _enter_battlefield(self, item: StackItem) -> Creature:
        c = self.put_onto_battlefield(item.controller, item.card, owner=item.owner,
                                      commander=item.from_zone == "command")
        return c

    def put_onto_battlefield(self, seat: int, card: CardDef, tapped: bool = False, owner: int | None = None,
                             commander: bool = False) -> Creature:
        """Put a creature card onto the battlefield under ``seat``'s control; its
        enters-the-battlefield ability triggers.  Returns the new :class:`Creature`."""
        owner = seat if owner is None else owner
        c = Creature(self._new_uid(), card.name, card, False, owner, card.power, card.toughness,
                     card.keywords, self.turn, card.legendary)
        c.controller = seat
        c.tapped = tapped
        if commander:
            c.is_commander = True
            self.players[owner].commander_zone = "battlefield"
        self.players[seat].creatures.append(c)
        self._dirty = True
        self._log("enters", seat=seat, creature=c.uid, name=c.name)
        self._etb_trigger(c)
        return c

    def create_creature_token(self, seat: int, name: str, n: int = 1, tapped: bool = False,
                              copy_of: Creature | None = None) -> list[Creature]:
        """Create ``n`` creature tokens named ``name`` (see data/cards.json
        ``tokens``), or token copies of ``copy_of`` (copiable values only, CR 707.2)."""
        out = []
        for _ in range(n):
            if copy_of is not None:
                c = Creature(self._new_uid(), copy_of.name, copy_of.card, True, seat, copy_of.base_power,
                             copy_of.base_toughness, copy_of.base_keywords, self.turn, copy_of.legendary)
            else:
                t = TOKENS[name]
                c = Creature(self._new_uid(), name, None, True, seat, t.power, t.toughness, t.keywords,
                             self.turn, t.legendary)
            c.tapped = tapped
            self.players[seat].creatures.append(c)
            out.append(c)
            self._etb_trigger(c)
        self._log("tokens", seat=seat, name=copy_of.name if copy_of else name, n=n)
        self._dirty = True
        return out

    def create_tokens(self, seat: int, name: str, n: int = 1) -> None:
        """Create ``n`` tokens named ``name``: creature tokens become objects,
        noncreature artifact tokens add to the player's count."""
        if n <= 0 or self.players[seat].has_lost:
            return
        if TOKENS[name].type == "creature":
            self.create_creature_token(seat, name, n)
        else:
            self.players[seat].tokens[name] += n
            self._log("tokens", seat=seat, name=name, n=n)

    def draw(self, seat: int, n: int = 1) -> None:
        """``seat`` draws ``n`` cards; drawing from an empty library makes the
        player lose at the next state-based check (CR 704.5b)."""
        p = self.players[seat]
        if p.has_lost:
            return
        for _ in range(n):
            if p.library:
                p.hand.append(p.library.pop())
            else:
                p.drew_from_empty = True
                self._dirty = True
        if n:
            self._log("draw", seat=seat, n=n)

    def _op_discard(self, seat: int, n: int, source_seat: int | None) -> None:
        """``seat`` discards ``n`` cards of their choice (one decision per card);
        ``source_seat`` controls the effect (None: a cost or the cleanup step).
        Replacement effects apply to effect-caused discards (The Great Martyr)."""
        if source_seat is not None and (self.effects or self._statics):
            ev = {"seat": seat, "n": n, "source_seat": source_seat}
            IA.replace(self, "discard", ev)
            seat, n = ev["seat"], ev["n"]
        p = self.players[seat]
        if n <= 0 or not p.hand or p.has_lost:
            return
        L = self.layout
        opts = [(L.HAND + i, i) for i in range(min(len(p.hand), MAX_HAND))]
        self.decision = Decision(seat, DecisionKind.DISCARD, opts, "_h_discard", (seat, n - 1),
                                 "choose a card to discard")

    def _h_discard(self, ctx: tuple, i: int) -> None:
        seat, more = ctx
        p = self.players[seat]
        c = p.hand.pop(i)
        p.graveyard.append(c)
        self._log("discard", seat=seat, card=c.name)
        if more > 0:
            self._push_front([("discard", seat, more, None)])
