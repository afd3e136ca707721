"""Attackable permanents (CR 306 planeswalkers, 506.3, 508.1b, 606, 120.3c,
704.5i): permanents other than players that creatures can attack.

The mechanism is general (:class:`~treachery_env.engine.state.Attackable`,
``kind``): an attackable permanent is controlled by a player, who is the
defending player of a creature attacking it and blocks for it (CR 506.2,
509.1a); combat damage dealt to it removes loyalty counters (CR 120.3c).
Planeswalkers are its first kind: cast at sorcery timing (CR 307.1 as for
any noncreature non-instant spell), entering with their printed loyalty (CR
306.5b), with loyalty abilities activated once per turn at sorcery timing
whose cost is adding or removing loyalty counters (CR 606.3-606.4, 606.6), a
legal target of "any target" (CR 115.4) but not of "target creature", put
into their owner's graveyard with 0 loyalty (CR 704.5i).  Throne Magic's
Throne and Holdings (docs/fidelity.md) are attacked "in the way that a
Planeswalker may be attacked" and will be further kinds of the same object
(the WALKER action block reserves a row for uncontrolled ones).

Cheap when nobody has one: every hook first tests ``Player.attackables``.
"""

from __future__ import annotations

from ..actions import MAX_WALKERS, N_LOYALTY_ABILITIES
from ..cards import CardDef
from ..words import with_article
from .state import Attackable, StackItem

__all__ = ["AttackablesMixin"]


class AttackablesMixin:
    """Attackable permanents and loyalty abilities: methods of :class:`~treachery_env.engine.game.Game`."""

    # ------------------------------------------------------------------ entering and leaving
    def put_planeswalker_onto_battlefield(self, seat: int, card: CardDef, owner: int | None = None,
                                          token: bool = False) -> Attackable:
        """Put planeswalker ``card`` onto the battlefield under ``seat``'s control
        with its printed loyalty (CR 306.5b; CR 110.2: it enters under the
        control of the player who cast it); ``owner`` defaults to ``seat``.

        Returns:
            the new :class:`Attackable` (``kind == "planeswalker"``), appended
            to ``players[seat].attackables``.

        Raises:
            ValueError: if ``card`` is not a planeswalker card.
        """
        if not card.is_planeswalker:
            raise ValueError(f"{card.name!r} is {with_article(card.type)}, not a planeswalker (CR 306)")
        owner = seat if owner is None else owner
        w = Attackable(self._new_uid(), "planeswalker", card, owner, seat, card.loyalty, self.turn)
        w.token = token
        self._number(w)
        self.players[seat].attackables.append(w)
        self._log("enters", seat=seat, planeswalker=w.uid, name=w.name, loyalty=w.loyalty, **self._labels(w))
        return w

    def _attackable_leaves(self, w: Attackable, to: str) -> bool:
        """``w`` leaves the battlefield for its owner's ``to`` zone
        (``"graveyard"``, ``"exile"``, ``"hand"``; a token or the card of an
        owner who left ceases to exist).  Creatures attacking it stay attacking
        but deal no combat damage (CR 506.4, 510.1).  Returns whether it was on
        the battlefield."""
        p = self.players[w.controller]
        if w not in p.attackables:
            return False
        p.attackables.remove(w)
        self._log("leaves", planeswalker=w.uid, name=w.name, zone=to, seat=w.controller, **self._labels(w))
        owner = self.players[w.owner]
        if w.card is not None and not w.token and not owner.has_lost:
            self._put_card(owner, w.card, to)
        return True

    def remove_loyalty(self, w: Attackable, n: int) -> None:
        """Remove ``n`` loyalty counters from ``w`` (damage, CR 120.3c, or a
        cost, CR 606.4); at 0 it goes to the graveyard at the next state-based
        check (CR 704.5i)."""
        if n > 0:
            w.loyalty -= n
            self._dirty = True

    # ------------------------------------------------------------------ attacking
    def can_attack_object(self, seat: int, w: Attackable) -> bool:
        """Whether ``seat``'s creatures may attack ``w`` (CR 506.3, 508.1b, 802.1a:
        a planeswalker controlled by an opponent; "opponent" per CR 907.7g).

        The restrictions that keep a player from being attacked (The Golem's
        "Leader players can't be attacked", an identity's "can't attack you")
        restrict attacks on that *player* only, as CR wording does: the
        player's planeswalkers can still be attacked on their own (CR 506.3)."""
        c = w.controller
        if w.kind == "holding":     # Throne Magic: anyone's but one's own, or one in the middle
            return c != seat and (c < 0 or not self.players[c].has_lost)
        if c < 0:       # Throne Magic's uncontrolled Throne, in the middle of the table: anyone may
            return w.kind == "throne" and self.social is not None and self.social.throne is w
        return (c != seat and not self.players[c].has_lost and w in self.players[c].attackables
                and self.is_opponent(seat, c))

    def attackable_objects(self, seat: int) -> list[Attackable]:
        """The attackable permanents ``seat``'s creatures may attack now, in
        seat then slot order (:meth:`can_attack_object`)."""
        out = []
        for p in self.players:
            if p.attackables and p.seat != seat:
                out.extend(w for w in p.attackables if self.can_attack_object(seat, w))
        social = self.social
        if social is not None:
            if social.throne is not None and social.throne.controller < 0:
                out.append(social.throne)   # uncontrolled: "no defending player" ("Attacking the Throne")
            out.extend(h for h in social.holdings if h.controller != seat and self.can_attack_object(seat, h))
        return out

    def attackable_action(self, viewer: int, w: Attackable) -> int | None:
        """The WALKER action index that names ``w`` for ``viewer`` (attack it,
        target it), or None if its slot is beyond :data:`MAX_WALKERS`.  An uncontrolled
        one (Throne Magic's Throne) is slot 0 of the reserved row (relative seat ``n``)."""
        if w.kind == "holding":     # Throne Magic: the HOLDING block names each by its place in the game
            return self.layout.holding(self.social.holdings.index(w))
        if w.controller < 0:
            return self.layout.walker(self.n, 0)
        slot = self.players[w.controller].attackables.index(w)
        return self.layout.walker(self.rel(viewer, w.controller), slot) if slot < MAX_WALKERS else None

    def _attack_target(self, a) -> tuple | None:
        """What attacking creature ``a`` deals unblocked combat damage to: the
        defending player (``("p", seat)``), or the attackable permanent it
        attacks (``("w", obj)``), None if that permanent has left (CR 506.4)."""
        w = a.attacking_obj
        if w is None:
            return ("p", a.attacking)
        if w.kind == "throne" or w.kind == "holding":   # Throne Magic's: they never leave play, but a change
            if w.uid in self.turn_effects.get("out_of_combat", ()):     # of control removes them from combat
                return None
            if w.controller < 0 or w.kind == "holding":
                return ("w", w)
        return ("w", w) if w in self.players[w.controller].attackables else None

    # ------------------------------------------------------------------ loyalty abilities
    def _loyalty_options(self, seat: int) -> list:
        """Priority options activating loyalty abilities of ``seat``'s
        planeswalkers (call only at sorcery timing, CR 606.3): once per turn
        per planeswalker, a negative cost needs that many loyalty counters
        (CR 606.6), and targets must exist (CR 601.2c via 602.2b)."""
        L = self.layout
        out = []
        for slot, w in enumerate(self.players[seat].attackables[:MAX_WALKERS]):
            if w.kind != "planeswalker" or w.used_turn == self.turn or w.card is None:
                continue
            for k, ab in enumerate(w.card.abilities[:N_LOYALTY_ABILITIES]):
                if w.loyalty + ab["loyalty"] < 0:
                    continue
                if ab["targets"] and not self._has_targets(seat, ab["targets"]):
                    continue
                out.append((L.loyalty(slot, k), ("loyalty", (slot, k))))
        return out

    def _activate_loyalty(self, seat: int, slot: int, k: int) -> None:
        """Activate loyalty ability ``k`` of ``seat``'s planeswalker in ``slot``
        (CR 606, 602.2): the planeswalker is marked used this turn (CR 606.3),
        targets are chosen (CR 601.2c), then the cost (adding or removing
        loyalty counters, CR 606.4) is paid (CR 601.2h) and the ability goes on
        the stack.  It resolves even if the planeswalker is gone by then (CR
        113.7a)."""
        w = self.players[seat].attackables[slot]
        ab = w.card.abilities[k]
        w.used_turn = self.turn
        item = StackItem(self._new_uid(), "ability", seat, source=w.name, key="loyalty")
        if w.ordinal > 1:
            item.label = w.label                        # for people: "Pyra #2's ability resolves"
        item.data["effects"] = ab["effects"]
        item.data["ability"] = k
        item.data["planeswalker"] = w.uid
        ops: list = [("choose_target", item, spec, spec.get("max", 1)) for spec in ab["targets"]]
        ops.append(("pay_loyalty", item, w, ab["loyalty"]))
        ops.append(("push_item", item))
        self._push_front(ops)

    def _op_pay_loyalty(self, item: StackItem, w: Attackable, cost: int) -> None:
        """Pay loyalty cost ``cost`` of ``item`` on ``w`` (CR 606.4, 601.2h).  Its log entry
        also names the targets chosen: it is the activation's only entry (``push_item`` logs
        no ``"activate"`` for a loyalty ability)."""
        if cost >= 0:
            w.loyalty += cost
        else:
            self.remove_loyalty(w, -cost)
        self._log("loyalty", seat=item.controller, planeswalker=w.uid, name=w.name, ability=item.data["ability"],
                  cost=cost, loyalty=w.loyalty, targets=[self._target_repr(t) for t in item.targets],
                  **self._labels(w, *[t[1] for t in item.targets if t is not None and t[0] in ("c", "w")]))
