"""Moving objects between zones (CR 400-406, 108.4, 701.8/701.17): the
battlefield, graveyards, exile, hands, tokens, drawing, discarding, control
of creatures.
"""

from __future__ import annotations

from typing import Callable

from .. import identity_abilities as IA
from ..actions import MAX_HAND
from ..cards import TOKENS, CardDef
from .state import Attackable, DecisionKind, Creature, Player, StackItem, Decision

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
        self._log("leaves", creature=c.uid, name=c.name, zone=to, seat=c.controller, **self._labels(c))
        if not c.token and not owner.has_lost:
            if c.is_commander and self.config.commander:
                owner.commander_zone = "command"
            else:
                self._put_card(owner, c.card, to)
        IA.fire_event(self, "creature_left", creature=c, zone=to)
        return True

    @staticmethod
    def _put_card(owner: Player, card: CardDef, to: str) -> None:
        """Put a card that left the battlefield into its owner's ``to`` zone
        ("graveyard", "exile" or "hand"; CR 400.3: cards go to their owner's
        zones).  Any other ``to`` (e.g. "library") is left to the caller, which
        places the card itself."""
        zone = {"graveyard": owner.graveyard, "exile": owner.exile, "hand": owner.hand}.get(to)
        if zone is not None:
            zone.append(card)

    def destroy(self, c: "Creature | Attackable") -> bool:
        """Destroy a creature or a planeswalker (CR 701.8): it goes to its owner's graveyard."""
        if isinstance(c, Attackable):
            return self._attackable_leaves(c, "graveyard")
        return self._leave_battlefield(c, "graveyard")

    def exile_creature(self, c: "Creature | Attackable") -> bool:
        """Exile a creature (a commander goes to the command zone instead) or a planeswalker."""
        if isinstance(c, Attackable):
            return self._attackable_leaves(c, "exile")
        return self._leave_battlefield(c, "exile")

    def bounce(self, c: "Creature | Attackable") -> bool:
        """Return a creature (a commander: command zone) or a planeswalker to its owner's hand."""
        if isinstance(c, Attackable):
            return self._attackable_leaves(c, "hand")
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
        self._log("sacrifice", seat=c.controller, permanent=c.name, creature=c.uid, **self._labels(c))
        return self._leave_battlefield(c, "graveyard")

    def gain_control(self, c: Creature, seat: int, until_end_of_turn: bool = False, source: str = "") -> None:
        """``seat`` gains control of creature ``c`` (CR 108.4, layer 2 of CR 613):
        the control effect is recorded on ``c.control_effects`` (its source and
        duration), so that it can end: in the cleanup step with
        ``until_end_of_turn``, or when ``seat`` leaves the game (CR 800.4a).  The
        creature can't attack this turn unless it has haste (CR 302.6).  Nothing
        happens if ``seat`` already controls it or has left (CR 800.4b)."""
        old = c.controller
        if old == seat or c not in self.players[old].creatures or self.players[seat].has_lost:
            return
        c.control_effects.append({"seat": seat, "previous": old, "source": source,
                                  "until": "eot" if until_end_of_turn else None})
        self._move_control(c, seat)
        self._log("gain_control", seat=seat, creature=c.uid, name=c.name, previous=old, **self._labels(c))

    def _move_control(self, c: Creature, seat: int) -> None:
        """Put creature ``c`` under ``seat``'s control: it leaves combat (CR 506.4)
        and can't attack this turn without haste (CR 302.6)."""
        self.players[c.controller].creatures.remove(c)
        if c in self.combat_attackers:
            self.combat_attackers.remove(c)
        if c.blocking is not None and c in c.blocking.blocked_by:
            c.blocking.blocked_by.remove(c)
        c.blocking = None
        c.attacking = -1
        c.attacking_obj = None
        c.controller = seat
        c.entered_turn = self.turn
        self.players[seat].creatures.append(c)
        self._dirty = True

    def _control_after(self, obj, ended: Callable[[dict], bool]) -> int:
        """The controller of creature or stack object ``obj`` once the control
        effects for which ``ended(effect)`` is true end: the newest remaining
        effect's seat, else the player it entered (or was put on the stack)
        under.  Removes those effects.  A control change to a player who left
        the game doesn't happen (CR 800.4b): then the current controller keeps it."""
        obj.control_effects = [e for e in obj.control_effects if not ended(e)]
        seat = obj.control_effects[-1]["seat"] if obj.control_effects else obj.base_controller
        if seat != obj.controller and self.players[seat].has_lost:
            return obj.controller
        return seat

    def end_control_effects(self, ended: Callable[[dict], bool]) -> None:
        """End the control effects on creatures and stack objects for which
        ``ended(effect)`` is true (CR 108.4, 613.1b): each object goes back to the
        controller the remaining effects give it (see :meth:`_control_after`)."""
        for p in self.players:
            for c in list(p.creatures):
                if c.control_effects and any(ended(e) for e in c.control_effects):
                    seat = self._control_after(c, ended)
                    if seat != c.controller:
                        self._move_control(c, seat)
                        self._log("control_returns", seat=seat, creature=c.uid, name=c.name, **self._labels(c))
        for it in self.stack:
            if it.control_effects and any(ended(e) for e in it.control_effects):
                seat = self._control_after(it, ended)
                if seat != it.controller:
                    it.controller = seat
                    self._log("control_returns_stack", seat=seat, source=it.source)

    def gain_control_of_counted(self, seat: int, previous: int, kind: str, source: str = "",
                                untap: bool = False) -> bool:
        """``seat`` gains control (CR 108.4, lasting) of one of ``previous``'s
        counted permanents: a land (``kind="land"``; a tapped one if
        ``previous`` has one, arriving untapped with ``untap``) or a noncreature
        artifact token (``kind`` = its name).  The change is recorded in
        ``seat``'s ``Player.borrowed`` so that it ends when either player leaves
        the game (CR 800.4a).  Abstraction: lands and such tokens are counts, so
        a borrowed one is taken to be the last of its kind the borrower spends.
        Returns whether one changed hands."""
        p, q = self.players[previous], self.players[seat]
        if p.has_lost or q.has_lost or seat == previous:
            return False
        if kind == "land":
            if not p.lands:
                return False
            tapped = p.lands_tapped > 0
            p.lands -= 1
            p.lands_tapped -= int(tapped)
            q.lands += 1
            q.lands_tapped += int(tapped and not untap)
        else:
            if not p.tokens.get(kind):
                return False
            p.tokens[kind] -= 1
            q.tokens[kind] += 1
        q.borrowed.append({"kind": kind, "from": previous, "source": source})
        return True

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
        c.controller = c.base_controller = seat     # it enters under seat's control (CR 110.2)
        c.tapped = tapped
        if commander:
            c.is_commander = True
            self.players[owner].commander_zone = "battlefield"
        self._number(c)
        self.players[seat].creatures.append(c)
        self._dirty = True
        self._log("enters", seat=seat, creature=c.uid, name=c.name, **self._labels(c))
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
            self._number(c)
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

    def draw(self, seat: int, n: int = 1) -> list[CardDef]:
        """``seat`` draws ``n`` cards; drawing from an empty library makes the
        player lose at the next state-based check (CR 704.5b).  Returns the
        cards put into the hand, in the order drawn (fewer than ``n`` from a
        library that ran out), for the abilities that refer to them."""
        p = self.players[seat]
        drawn: list[CardDef] = []
        if p.has_lost:
            return drawn
        for _ in range(n):
            if p.library:
                c = p.library.pop()
                p.hand.append(c)
                drawn.append(c)
            else:
                p.drew_from_empty = True
                self._dirty = True
        if n:
            self._log("draw", seat=seat, n=n)
        return drawn

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
