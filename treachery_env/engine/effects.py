"""Effect primitives of the card pool (data/cards.json): damage (CR 120), life
gain and loss (CR 119), search, explore (CR 701.40), Head Games.
"""

from __future__ import annotations

from .. import identity_abilities as IA
from ..actions import MAX_CHOICE
from .state import DecisionKind, Creature, StackItem, Decision

__all__ = ["EffectsMixin"]


class EffectsMixin:
    """Effect primitives of the card pool (data/cards.json): methods of :class:`~treachery_env.engine.game.Game`."""

    def _op_effect(self, item: StackItem, e: dict) -> None:
        """Run one primitive of a card's effect list (data/cards.json)."""
        op = e["op"]
        seat = item.controller
        n = e.get("n", 0)
        if n == "X":
            n = item.x
        elif n == "players":        # Throne Magic: the number of players still in the game
            n = self.n_alive
        t = e.get("t")
        tgt = None
        if t == "self":
            c = item.creature
            if c is None or c not in self.players[c.controller].creatures:
                return
            tgt = ("c", c)
        elif t is not None:
            tgt = item.targets[t] if t < len(item.targets) else None
            if tgt is None:
                return
        if op == "damage":
            self.damage(seat, tgt, n, source_name=item.source, source_label=item.label)
        elif op == "destroy":
            self.destroy(tgt[1])
        elif op == "exile":
            self.exile_creature(tgt[1])
        elif op == "bounce":
            self.bounce(tgt[1])
        elif op == "counter":
            self.counter(tgt[1])
        elif op == "draw":
            self.draw(tgt[1] if tgt else seat, n)
        elif op == "gain":
            self.gain_life(tgt[1] if tgt else seat, n)
        elif op == "lose":
            self.lose_life(tgt[1], n, source_seat=seat)
        elif op == "each_opponent_loses":   # "opponent" per CR 907.7g: everyone while face down
            for q in self.players:
                if not q.has_lost and self.is_opponent(seat, q.seat):
                    self.lose_life(q.seat, n, source_seat=seat)
        elif op == "head_games":
            self._head_games(seat, tgt[1])
        elif op == "extra_turn":
            self.extra_turns.append(seat)
            self._log("extra_turn", seat=seat)
        elif op == "wipe":
            for p in self.players:
                for c in list(p.creatures):
                    self.destroy(c)
        elif op == "damage_each_creature":
            for p in self.players:
                for c in list(p.creatures):
                    self.damage(seat, ("c", c), n, source_name=item.source,
                                source_label=item.label)
        elif op == "tokens":
            self.create_tokens(seat, e["token"], n)
        elif op == "pump":
            c = tgt[1]
            c.pump_p += e.get("p", 0)
            c.pump_q += e.get("q", 0)
            if e.get("kw"):
                c.pump_kw = c.pump_kw | frozenset(e["kw"])
            self._dirty = True
        elif op == "pump_team":
            for c in self.players[seat].creatures:
                c.pump_p += e.get("p", 0)
                c.pump_q += e.get("q", 0)
            self._dirty = True
        elif op == "counters":
            tgt[1].p1p1 += n
            self._dirty = True
        elif op == "ramp":
            self.ramp(seat, n)
        elif op == "tap":
            tgt[1].tapped = True
        elif op == "stun":
            tgt[1].stun += n
        elif op == "discard":
            self._push_front([("discard", tgt[1], n, seat)])
        elif op == "lose_self":     # Throne Magic (Winter): the player the ability is about
            self.lose_life(seat, n)
        elif op == "look_at_role":  # Throne Magic (Throne of Visions): the Role card of a player
            self.social.look(self, seat, tgt[1])
        elif op == "prevent_until_planeswalk":     # Planechase: until a player planeswalks (CR 901.12)
            self.shields.append({"kind": "prevent_damage", "seat": seat, "until_turn_of": None,
                                 "until": "planeswalk"})
            self._log("prevent_until_planeswalk", seat=seat)
        elif op == "fog":           # prevent all combat damage that would be dealt this turn (CR 615)
            self.turn_effects["fog"] = True
            self._log("fog", seat=seat)
        else:  # pragma: no cover - data is validated by tests
            raise AssertionError(f"unknown effect op {op!r}")

    def _head_games(self, seat: int, victim: int) -> None:
        """Head Games (TR12 exclusion list): the target opponent puts their hand on
        top of their library; ``seat`` looks through that library (private to
        them) and puts that many cards of their choice into the opponent's hand;
        the opponent shuffles."""
        v = self.players[victim]
        n = len(v.hand)
        v.library.extend(v.hand)
        v.hand = []
        self._log("head_games", seat=seat, victim=victim, n=n)
        self._log("look_at_library", to=[seat], seat=seat, victim=victim, cards=[c.name for c in v.library])
        self._push_front([("head_games_pick", seat, victim, n)])

    def _op_head_games_pick(self, seat: int, victim: int, left: int) -> None:
        v = self.players[victim]
        if left <= 0 or not v.library or v.has_lost or self.players[seat].has_lost:
            self.rng.shuffle(v.library)
            return
        names = sorted({c.index: c for c in v.library}.values(), key=lambda c: c.index)[:MAX_CHOICE]
        L = self.layout
        self.decision = Decision(seat, DecisionKind.CARD, [(L.CHOICE + k, c.name) for k, c in enumerate(names)],
                                 "_h_head_games", (seat, victim, left),
                                 f"put a card of P{victim}'s library into their hand", [c.name for c in names])

    def _h_head_games(self, ctx: tuple, name: str) -> None:
        seat, victim, left = ctx
        v = self.players[victim]
        k = next(i for i, c in enumerate(v.library) if c.name == name)
        v.hand.append(v.library.pop(k))
        self._push_front([("head_games_pick", seat, victim, left - 1)])

    def ramp(self, seat: int, n: int) -> None:
        """Search the library for up to ``n`` lands, put them onto the battlefield
        tapped, then shuffle."""
        p = self.players[seat]
        for _ in range(n):
            for i in range(len(p.library) - 1, -1, -1):
                if p.library[i].is_land:
                    p.library.pop(i)
                    p.lands += 1
                    p.lands_tapped += 1
                    break
        self.rng.shuffle(p.library)

    def gain_life(self, seat: int, n: int) -> None:
        """``seat`` gains ``n`` life points (replacement effects apply: The Oracle)."""
        p = self.players[seat]
        if n <= 0 or p.has_lost:
            return
        if self.effects or self._statics:
            ev = {"seat": seat, "amount": n}
            IA.replace(self, "gain_life", ev)
            seat, n = ev["seat"], ev["amount"]
            p = self.players[seat]
            if n <= 0:
                return
        p.life += n
        self._log("gain_life", seat=seat, n=n)

    def lose_life(self, seat: int, n: int, source_seat: int | None = None) -> None:
        """``seat`` loses ``n`` life points (not damage: can't be prevented);
        ``source_seat`` controls the effect (public history, :attr:`harm`);
        replacement effects apply (The Great Martyr, The Oracle)."""
        if (self.effects or self._statics) and n > 0:
            ev = {"seat": seat, "amount": n, "source_seat": source_seat}
            IA.replace(self, "lose_life", ev)
            seat, n = ev["seat"], ev["amount"]
            if n <= 0:
                return
        if source_seat is not None and 0 <= source_seat != seat and n > 0 and not self.players[seat].has_lost:
            self.harm[source_seat][seat] += n
        self._lose_life(seat, n)

    def _lose_life(self, seat: int, n: int, paid: bool = False) -> None:
        p = self.players[seat]
        if n <= 0 or p.has_lost:
            return
        p.life -= n
        self._dirty = True
        self._log("pay_life" if paid else "lose_life", seat=seat, n=n)

    def _damage_prevented(self, target: tuple) -> bool:
        if not self.shields:
            return False
        seat = target[1] if target[0] == "p" else target[1].controller
        return any(s["kind"] == "prevent_damage" and s["seat"] == seat for s in self.shields)

    def damage(self, source_seat: int, target: tuple, amount: int, source_name: str = "",
                    source_creature: Creature | None = None, combat: bool = False, source_label: str = "") -> int:
        """Deal ``amount`` damage to a player (loses that much life), a creature
        (marked damage, CR 120.3) or a planeswalker (``("w", obj)``: removes that
        many loyalty counters, CR 120.3c; deathtouch means nothing to it, CR
        702.2b; lifelink still gains life, CR 702.15b).  Prevention shields
        apply first (a player's shield covers their planeswalkers).  Returns the
        damage dealt after prevention.  ``source_name`` is the source's name in the log entry
        (``source_label`` its number for people, ``"Flame Adept #2"``, where it is a numbered permanent)."""
        if amount <= 0 or target is None:
            return 0
        if self.effects or self._statics:
            ev = {"source_seat": source_seat, "target": target, "amount": amount, "combat": combat,
                  "source_creature": source_creature}
            IA.replace(self, "damage", ev)
            target, amount = ev["target"], ev["amount"]
            if amount <= 0 or target is None:
                return 0
        if self._damage_prevented(target) or (combat and self.turn_effects.get("fog")):
            self._log("prevented", target=self._target_repr(target), n=amount, **self._target_labels((target,)))
            return 0
        kind, obj = target
        if kind == "p":
            p = self.players[obj]
            if p.has_lost:
                return 0
            p.life -= amount
            if combat and source_creature is not None and source_creature.is_commander:
                p.cmd_damage[source_creature.owner] = p.cmd_damage.get(source_creature.owner, 0) + amount
        elif kind == "w":           # CR 120.3c: damage to a planeswalker removes loyalty counters
            if obj.kind == "throne" or obj.kind == "holding":
                # "The Throne itself is unaffected by any game effect except combat damage", which
                # has no effect on it but its taking (ThroneMixin._op_throne_take, after combat damage)
                if not combat:
                    return 0
            elif obj not in self.players[obj.controller].attackables:
                return 0
            else:
                obj.loyalty -= amount
        else:
            if obj not in self.players[obj.controller].creatures:
                return 0
            obj.damage += amount
            if source_creature is not None and source_creature.has("deathtouch"):
                obj.deathtouched = True
        self._dirty = True
        if source_seat >= 0:
            victim = obj if kind == "p" else obj.controller
            if victim != source_seat and victim >= 0:
                self.harm[source_seat][victim] += amount
        if source_creature is not None and source_creature.has("lifelink"):
            self.gain_life(source_creature.controller, amount)
        if not combat:
            self._log("damage", source=source_name, target=self._target_repr(target), n=amount,
                      **self._target_labels((target,)), **({"source_label": source_label} if source_label else {}))
        return amount

    def deal_damage(self, seat: int, amount: int) -> int:
        """Deal ``amount`` damage to player ``seat`` from no particular source
        (scenarios and tests; DESIGN section 3).  Prevention applies; state-based
        actions are checked at once, even while a decision is pending (CR 704.5a:
        at 0 life the player loses; :meth:`lose` passes a decision of theirs on).
        Returns the damage dealt.

        Raises:
            ValueError: (one line naming the argument and the range) for a seat that
                is not an int from 0 to n - 1, or an ``amount`` that is not an int >= 0.
        """
        seat = self._seat_arg(seat, "deal_damage")
        amount = self._int_arg(amount, "deal_damage", "amount", 0)
        dealt = self.damage(-1, ("p", seat), amount, source_name="effect")
        if self._dirty and not self.is_over:
            self._state_based_actions()
        return dealt

    def _explore(self, seat: int, c: Creature) -> None:
        """CR 701.40 explore: reveal the top card; a land goes to hand, else a +1/+1
        counter (abstraction: the nonland card stays on top)."""
        p = self.players[seat]
        if not p.library:
            c.p1p1 += 1
            return
        top = p.library[-1]
        self._log("reveal_top", seat=seat, card=top.name)
        if top.is_land:
            p.hand.append(p.library.pop())
        else:
            c.p1p1 += 1
