"""The stack (CR 405, 601, 602, 608): casting spells, activating token
abilities, permissions to cast from other zones, resolving and countering.
"""

from __future__ import annotations

from typing import Any

from .. import identity_abilities as IA
from ..actions import MAX_CHOICE, MAX_X, TOKEN_ABILITIES
from ..cards import CardDef
from .state import DecisionKind, StackItem, Decision
from .archenemy import SCHEME_KEY
from .throne import THRONE_KEYS
from .planechase import PLANAR_KEYS

__all__ = ["StackMixin"]


class StackMixin:
    """The stack (CR 405, 601, 602, 608): methods of :class:`~treachery_env.engine.game.Game`."""

    def _begin_cast(self, seat: int, card: CardDef, zone: str, extra: int = 0, free: bool = False,
                    owner: int | None = None, source: str = "") -> None:
        """CR 601.2: ``seat`` begins to cast ``card``, which its caller has taken from
        ``zone`` (``"hand"``, ``"command"``, ``"exile"``, ``"graveyard"``; ``owner``'s,
        default ``seat``'s), then chooses X and targets, pays, and the spell becomes
        cast (:meth:`_op_finish_cast`).  ``free``: without paying its mana cost (X is
        0, CR 601.2b/107.3b); ``source``: the identity or permission that lets it be
        cast from there, if any.

        CR 601.2a: the card is on the stack, face up, from the moment its casting
        begins, so the public ``casting`` event (``seat``, ``card``, ``zone``,
        ``owner``, ``source`` when there is one) is logged here, before any choice:
        every seat knows what is being cast before its caster's X and target
        decisions.  It is the only announcement on every path (from hand, the
        commander, a permission, an identity's free cast, cascade); a copy is never
        cast (CR 707.10) and never comes here.  The ``cast`` event and the cast
        triggers (CR 601.2i) still come when the spell becomes cast.

        The item joins ``game.stack`` only then: between the two events the only
        decisions are its caster's own X and targets (``choose_x``,
        ``choose_target``, queued in front of everything else), no player receives
        priority and nothing reads the stack but the target choice, so a spell
        can't be chosen as its own target (CR 115.5) and whatever reads the stack
        sees finished objects only (a view taken meanwhile shows the card in the
        ``casting`` event, not yet on the stack); a caster who leaves the game
        meanwhile (a concession) takes the card out of the game in
        ``_op_finish_cast``."""
        item = StackItem(self._new_uid(), "spell", seat, card)
        item.from_zone = zone
        item.owner = seat if owner is None else owner
        self._log("casting", seat=seat, card=card.name, zone=zone, owner=item.owner,
                  **({"source": source} if source else {}))
        item.data["free"] = free
        item.data["extra"] = extra
        ops: list = []
        if card.x and not free:
            ops.append(("choose_x", item))
        # a creature spell has no targets: a creature card's targets belong to its
        # enters-the-battlefield trigger, chosen as that triggers (CR 608.3, 603.3d)
        for spec in (() if card.is_creature else card.targets):
            ops.append(("choose_target", item, spec, spec.get("max", 1)))
        ops.append(("finish_cast", item))
        self._push_front(ops)

    def _op_choose_x(self, item: StackItem) -> None:
        seat = item.controller
        room = self.available_mana(seat) - item.card.cost - item.data.get("extra", 0)
        top = max(0, min(MAX_X, room, MAX_CHOICE - 1))
        opts = [(self.layout.CHOICE + x, x) for x in range(top + 1)]
        self.decision = Decision(seat, DecisionKind.NUMBER, opts, "_h_x", item, f"choose X for {item.source}")

    def _h_x(self, item: StackItem, x: int) -> None:
        item.x = x

    def _op_finish_cast(self, item: StackItem) -> None:
        seat = item.controller
        if self.players[seat].has_lost:
            # the caster left while casting (CR 800.4a): a card they own left the game with
            # them; another player's card is exiled (a commander goes to the command zone)
            self._exile_stack_card(item)
            return
        if not item.data.get("free"):
            self._pay_mana(seat, item.card.cost + item.x + item.data.get("extra", 0))
        self.stack.append(item)
        self._log("cast", seat=seat, card=item.card.name, x=item.x,
                  targets=[self._target_repr(t) for t in item.targets], **self._target_labels(item.targets))
        IA.fire_event(self, "cast", item=item)

    def gain_control_of_stack_object(self, item: StackItem, seat: int, source: str = "") -> None:
        """``seat`` gains control of spell or ability ``item`` on the stack (CR
        108.4; The Reflector): "you" in its text is now ``seat`` (CR 108.4a); a
        spell keeps its owner.  The control effect is recorded on
        ``item.control_effects``, so that it ends when ``seat`` leaves the game
        and the object goes back to its previous controller, still on the stack
        (CR 800.4a)."""
        prev = item.controller
        if prev == seat or item not in self.stack or self.players[seat].has_lost:
            return
        item.control_effects.append({"seat": seat, "previous": prev, "source": source})
        item.controller = seat
        self._log("gain_control_stack", seat=seat, source=item.source, previous=prev)

    def _exile_stack_card(self, item: StackItem) -> None:
        """A spell leaves the stack by CR 800.4a: a copy ceases to exist (CR
        707.10a); the card goes to its owner's exile if the owner is still in the
        game (a commander to the command zone, CR 903.9a, always chosen)."""
        if item.kind == "spell" and not item.is_copy and not self.players[item.owner].has_lost:
            self._log("spell_exiled", seat=item.owner, card=item.card.name)
        self._finish_item(item, exiled=True)

    def _target_repr(self, t: Any) -> Any:
        if t is None:
            return None
        kind, obj = t
        if kind == "p":
            return ["player", obj]
        if kind == "c":
            return ["creature", obj.uid, obj.name]
        if kind == "w":
            return ["planeswalker", obj.uid, obj.name]
        return ["stack", obj.uid, obj.source]

    def grant_permission(self, seat: int, card: CardDef, owner: int, zone: str, free: bool = False,
                         until_turn: int | None = None, source: str = "") -> None:
        """Let ``seat`` cast (or play, for a land) ``card`` from ``zone``
        (``"exile"`` or ``"graveyard"``, where it must stay) with the OTHER
        actions: for free, or paying its cost; until the end of turn
        ``until_turn`` (None: as long as it stays there).  The Spellsnatcher,
        The Lich Queen, The Augur."""
        self.players[seat].permissions.append({"card": card, "owner": owner, "zone": zone, "free": free,
                                               "until_turn": until_turn, "source": source})

    def _permission_zone(self, perm: dict) -> list | None:
        owner = self.players[perm["owner"]]
        if owner.has_lost:
            return None
        zone = owner.exile if perm["zone"] == "exile" else owner.graveyard
        return zone if any(c is perm["card"] for c in zone) else None

    def _permission_ok(self, seat: int, perm: dict, avail: int, sorcery: bool) -> bool:
        if self._permission_zone(perm) is None:
            return False
        c = perm["card"]
        if c.is_land:
            return sorcery and not self.players[seat].land_played
        if not (sorcery or c.instant_speed):
            return False
        return (perm["free"] or c.cost <= avail) and self.castable_targets(seat, c)

    def _use_permission(self, seat: int, k: int) -> None:
        """Cast or play a card another zone lets ``seat`` use (see :meth:`grant_permission`)."""
        p = self.players[seat]
        perm = p.permissions.pop(k)
        zone = self._permission_zone(perm)
        card = perm["card"]
        zone.remove(next(c for c in zone if c is card))
        if card.is_land:
            p.lands += 1
            p.land_played = True
            self._log("land", seat=seat, card=card.name, zone=perm["zone"], owner=perm["owner"],
                      **({"source": perm["source"]} if perm["source"] else {}))
            return
        self._begin_cast(seat, card, perm["zone"], free=perm["free"], owner=perm["owner"], source=perm["source"])

    def _token_ability_ok(self, seat: int, name: str, avail: int, sorcery: bool) -> bool:
        p = self.players[seat]
        if name == "Clue":
            return avail >= 2
        if name == "Food":
            return avail >= 2
        if name == "Blood":
            return avail >= 1 and bool(p.hand)
        if name == "Map":     # "activate only as a sorcery"
            return sorcery and avail >= 1 and bool(p.creatures)
        return name == "Junk" and sorcery

    def _activate_token(self, seat: int, name: str) -> None:
        """Clue ({2}, sac: draw), Food ({2}, sac: gain 3 life), Blood ({1}, discard
        a card, sac: draw), Map ({1}, sac, sorcery speed: target creature you control explores),
        Junk (sac, sorcery speed: draw a card; abstracts "exile the top card, you
        may play it this turn")."""
        p = self.players[seat]
        p.tokens[name] -= 1
        item = StackItem(self._new_uid(), "ability", seat, source=name, key=name)
        ops: list = []
        if name in ("Clue", "Food"):
            self._pay_mana(seat, 2)
        elif name in ("Blood", "Map"):
            self._pay_mana(seat, 1)
        if name == "Blood":
            ops.append(("discard", seat, 1, None))
        if name == "Map":
            ops.append(("choose_target", item, {"type": "creature", "own": True}, 1))
        ops.append(("push_item", item))
        self._push_front(ops)

    def _op_push_item(self, item: StackItem) -> None:
        if item.data.get("skip") or self.players[item.controller].has_lost:
            return
        self.stack.append(item)
        if item.key != "loyalty":       # a loyalty ability's "loyalty" entry said it all (_op_pay_loyalty)
            self._log("activate", seat=item.controller, source=item.source,
                      targets=[self._target_repr(t) for t in item.targets], **self._target_labels(item.targets))

    def _op_resolve_top(self) -> None:
        """CR 608: resolve the top object; a spell or ability whose targets are all
        illegal doesn't resolve (CR 608.2b)."""
        if not self.stack:
            return
        item = self.stack.pop()
        self.resolving = item
        specs = item.target_specs
        if item.targets and any(t is not None for t in item.targets):
            legal = [t is not None and self.target_legal(item.controller, s, t, item)
                     for t, s in zip(item.targets, specs)]
            if not any(legal):
                self._log("fizzle", seat=item.controller, source=item.source, **self._source_label(item))
                self._finish_item(item)
                if self.schemes is not None:
                    self._dirty = True      # Archenemy: a scheme's ability left the stack (CR 904.10)
                return
            item.targets = [t if ok else None for t, ok in zip(item.targets, legal)]
        self._log("resolve", seat=item.controller, source=item.source, key=item.key, **self._source_label(item))
        if item.kind == "spell":
            if item.card.is_creature:
                item.creature = self._enter_battlefield(item)   # the permanent it became (The Lich Queen)
                self._finish_item(item, moved=True)
                return
            if item.card.is_planeswalker:       # CR 306.5b, 608.3: it enters with its loyalty
                self.put_planeswalker_onto_battlefield(item.controller, item.card, owner=item.owner,
                                                       token=item.is_copy)
                self._finish_item(item, moved=True)
                return
            ops = [("effect", item, e) for e in item.card.effects]
            ops.append(("finish_item", item))
            self._push_front(ops)
        elif item.key == "etb" or item.key == "loyalty":     # loyalty abilities: CR 606
            ops = [("effect", item, e) for e in item.data["effects"]]
            self._push_front(ops)
        elif item.kind == "ability" and item.key in TOKEN_ABILITIES:
            self._resolve_token_ability(item)
        elif item.key in THRONE_KEYS:       # Throne Magic: the Throne's and creatures' Throne abilities
            self._resolve_throne_item(item)
        elif item.key == SCHEME_KEY:        # Archenemy: a scheme's ability (CR 904.8)
            self._resolve_scheme(item)
        elif item.key == "vanguard":        # a Vanguard card's ability (CR 902.7, engine/vanguard.py)
            self._resolve_vanguard(item)
        elif item.key in PLANAR_KEYS:       # Planechase: a planar card's ability, planeswalking
            self._resolve_planar_item(item)
        else:
            IA.resolve(self, item)

    def _op_finish_item(self, item: StackItem) -> None:
        self._finish_item(item)

    def _finish_item(self, item: StackItem, moved: bool = False, exiled: bool = False) -> None:
        """A spell leaves the stack: resolved or countered, to its owner's
        graveyard (exile for one that says so, ``exile_after``); ``exiled`` (CR
        723.1b, 800.4a), to its owner's exile; a commander goes back to the
        command zone instead (CR 903.9, always chosen); copies cease to exist
        (CR 707.10a), and so does a card whose owner left the game.  ``moved``:
        it already became a permanent."""
        if item.kind != "spell" or moved or item.is_copy:
            return
        owner = self.players[item.owner]
        if owner.has_lost:
            return
        if item.from_zone == "command":
            owner.commander_zone = "command"
            return
        if exiled or item.data.get("exile_after"):
            owner.exile.append(item.card)
        else:
            owner.graveyard.append(item.card)

    def counter(self, item: StackItem) -> bool:
        """Counter ``item`` (CR 701.5): remove it from the stack; a countered spell
        goes to its owner's graveyard (a commander to the command zone)."""
        if item not in self.stack:
            return False
        self.stack.remove(item)
        if self.planar is not None or self.schemes is not None:
            self._dirty = True          # a phenomenon's or scheme's ability may have left (CR 704.6f, 904.10)
        self._log("counter", source=item.source, seat=item.controller)
        self._finish_item(item)
        return True

    def _resolve_token_ability(self, item: StackItem) -> None:
        seat = item.controller
        name = item.key
        if name in ("Clue", "Blood", "Junk"):
            self.draw(seat, 1)
        elif name == "Food":
            self.gain_life(seat, 3)
        elif name == "Map":
            t = item.targets[0] if item.targets else None
            if t is not None:
                self._explore(seat, t[1])
