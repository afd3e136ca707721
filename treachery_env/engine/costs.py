"""Paying costs (CR 118, 119.4, 601.2g-h): generic mana, life, and the parts of
unveil costs that are choices (Y, sacrifices, cards from hand).
"""

from __future__ import annotations

from typing import Any

from .. import identity_abilities as IA
from ..actions import MAX_CHOICE, MAX_HAND, MAX_PERMS, MAX_X
from .state import DecisionKind, Decision

__all__ = ["CostsMixin"]


class CostsMixin:
    """Paying costs (CR 118, 119.4, 601.2g-h): methods of :class:`~treachery_env.engine.game.Game`."""

    def available_mana(self, seat: int) -> int:
        """Generic mana ``seat`` can produce now: pool + untapped lands + Treasures."""
        p = self.players[seat]
        return p.mana_pool + p.lands - p.lands_tapped + p.tokens["Treasure"]

    def _pay_mana(self, seat: int, amount: int) -> None:
        """Pay ``amount`` generic mana: mana pool first, then untapped lands, then
        Treasures (abstraction: mana abilities are activated automatically)."""
        p = self.players[seat]
        if amount <= 0:
            return
        use = min(p.mana_pool, amount)
        p.mana_pool -= use
        amount -= use
        use = min(p.lands - p.lands_tapped, amount)
        p.lands_tapped += use
        amount -= use
        if amount:
            if amount > p.tokens["Treasure"]:
                raise AssertionError("paid more mana than available")
            p.tokens["Treasure"] -= amount

    def can_pay_life(self, seat: int, amount: int) -> bool:
        """CR 119.4: a player can pay life only if their life total is >= the amount,
        and no effect forbids it (The Oracle, The Treacherous Masochist)."""
        if amount <= 0:
            return True
        return self.players[seat].life >= amount and not IA.forbids(self, "pay_life", seat=seat)

    def unveil_cost_mana(self, seat: int, x: int = 0, y: int = 0) -> int:
        """Generic mana of ``seat``'s unveil cost with X = ``x`` and Y = ``y``
        (0 if none), after cost reductions (The Quellmaster).

        Raises:
            ValueError: (one line naming the argument and the range) for a seat that
                is not an int from 0 to n - 1, or an ``x`` or ``y`` that is not an
                int from 0 to MAX_X (15).
        """
        seat = self._seat_arg(seat, "unveil_cost_mana")
        x = self._int_arg(x, "unveil_cost_mana", "x", 0, MAX_X)
        y = self._int_arg(y, "unveil_cost_mana", "y", 0, MAX_X)
        cost = self.players[seat].identity.unveil_cost
        if cost is None:
            return 0
        return max(0, cost.mana - IA.cost_reduction(self, seat)) + cost.x * x + cost.y * max(y, 1 if cost.y else 0)

    def _op_choose_y(self, seat: int, x: int) -> None:
        """Choose Y >= 1 for an unveil cost with {Y} (The Summoner); the extra Y - 1
        is paid as it is chosen."""
        room = self.available_mana(seat)
        top = max(1, min(MAX_X, room + 1, MAX_CHOICE - 1))
        opts = [(self.layout.CHOICE + y, y) for y in range(1, top + 1)]
        self.decision = Decision(seat, DecisionKind.NUMBER, opts, "_h_y", seat, "choose Y for the unveil cost")

    def _h_y(self, seat: int, y: int) -> None:
        self._pay_mana(seat, y - 1)
        self.players[seat].identity.data["y"] = y

    def _op_cost_sacrifice(self, seat: int, flt: str) -> None:
        """Sacrifice a permanent to pay an unveil cost (The Bio-Engineer: a nontoken
        permanent; a land is a choice too)."""
        p = self.players[seat]
        if p.has_lost:
            return
        L = self.layout
        opts = [(L.perm(0, k), c) for k, c in enumerate(p.creatures[:MAX_PERMS])
                if not (c.token and "nontoken" in flt)]
        if p.lands and flt == "nontoken permanent":
            opts.append((L.CHOICE + 0, "land"))
        self.decision = Decision(seat, DecisionKind.COST, opts, "_h_cost_sacrifice", seat,
                                 "choose a permanent to sacrifice for the unveil cost")

    def _h_cost_sacrifice(self, seat: int, what: Any) -> None:
        """Sacrifice the chosen creature, or a land: lands are counts, so the land
        is a tapped one if ``seat`` has one (the choice its controller would
        make: an untapped land can still make mana)."""
        p = self.players[seat]
        if what == "land":
            p.lands -= 1
            if p.lands_tapped:
                p.lands_tapped -= 1
            self._log("sacrifice", seat=seat, permanent="land")
        else:
            self.sacrifice(what)

    def _op_cost_card(self, seat: int, kind: str, flt: str) -> None:
        p = self.players[seat]
        if p.has_lost:
            return
        L = self.layout
        opts = [(L.HAND + i, i) for i, c in enumerate(p.hand[:MAX_HAND])
                if not (flt == "nonland" and c.is_land)]
        self.decision = Decision(seat, DecisionKind.COST, opts, "_h_cost_card", (seat, kind),
                                 f"choose a card to {kind.replace('_', ' ')} for the unveil cost")

    def _h_cost_card(self, ctx: tuple, i: int) -> None:
        seat, kind = ctx
        p = self.players[seat]
        c = p.hand.pop(i)
        if kind == "discard":
            p.graveyard.append(c)
        else:
            p.exile.append(c)
        self._log(kind, seat=seat, card=c.name)
