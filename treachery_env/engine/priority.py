"""Priority (CR 117): who may act, what they may do at their priority, and
passing in turn order until the stack resolves or the step ends.
"""

from __future__ import annotations

from typing import Any

from .. import identity_abilities as IA
from ..actions import MAX_HAND, MAX_OTHER, TOKEN_ABILITIES
from .state import DecisionKind, Decision

__all__ = ["PriorityMixin"]


class PriorityMixin:
    """Priority (CR 117): methods of :class:`~treachery_env.engine.game.Game`."""

    def _open_priority(self) -> None:
        self.priority_seat = self._next_alive(self.active, include_self=True)
        self.passes = 0

    def _offer_priority(self) -> None:
        seat = self.priority_seat
        if self.players[seat].has_lost:
            self._after_pass(seat)
            return
        opts = self._priority_options(seat)
        if len(opts) == 1:          # only "pass": taken automatically, no Decision object needed
            self.auto_decisions += 1
            self._after_pass(seat)
            return
        self.decision = Decision(seat, DecisionKind.PRIORITY, opts, "_h_priority", seat, "priority")

    def _sorcery_timing(self, seat: int) -> bool:
        return seat == self.active and not self.stack and (self.phase == "main1" or self.phase == "main2")

    def _priority_options(self, seat: int) -> list:
        L = self.layout
        p = self.players[seat]
        opts: list = [(L.PASS, None)]
        avail = p.mana_pool + p.lands - p.lands_tapped + p.tokens["Treasure"]
        sorcery = seat == self.active and not self.stack and (self.phase == "main1" or self.phase == "main2")
        hand_a = L.HAND
        for i, c in enumerate(p.hand[:MAX_HAND]):
            t = c.type
            if t == "land":
                if sorcery and not p.land_played:
                    opts.append((hand_a + i, ("land", i)))
            elif c.cost <= avail and (sorcery or t == "instant" or c.flash) and (
                    self.castable_targets(seat, c)):
                opts.append((hand_a + i, ("cast", i)))
        if (p.commander is not None and p.commander_zone == "command" and sorcery
                and p.commander.cost + 2 * p.commander_casts <= avail):
            opts.append((L.COMMANDER, ("commander", 0)))
        idc = p.identity
        if not idc.face_up and idc.unveil_cost is not None:
            cost = idc.unveil_cost
            if (cost.mana - IA.cost_reduction(self, seat) <= avail   # The Quellmaster's reduction
                    and (not idc.undercover or self.undercover_met(seat))):
                for x in IA.unveil_xs(self, seat, avail):
                    opts.append((L.UNVEIL + x, ("unveil", x)))
        elif idc.face_up:
            for k in IA.activatable(self, seat):
                opts.append((L.IDENTITY_AB + k, ("identity_ability", k)))
        if p.permissions:
            for k, perm in enumerate(p.permissions[:MAX_OTHER]):
                if self._permission_ok(seat, perm, avail, sorcery):
                    opts.append((L.OTHER + k, ("permission", k)))
        if sorcery and p.attackables:       # loyalty abilities: sorcery timing (CR 606.3)
            opts.extend(self._loyalty_options(seat))
        tok = p.tokens
        for k, name in enumerate(TOKEN_ABILITIES):
            if tok[name] and self._token_ability_ok(seat, name, avail, sorcery):
                opts.append((L.TOKEN_AB + k, ("token", name)))
        if self.talk_on:
            opts.extend(self._talk_options(seat))     # table talk (engine/talk.py)
        return opts

    def _h_priority(self, seat: int, payload: Any) -> None:
        if payload is None:
            self._after_pass(seat)
            return
        kind, arg = payload
        if kind == "talk":          # not a game action: the speaker keeps priority, passes still count
            self._say(seat, *arg)
            return
        self.passes = 0
        if kind == "land":
            p = self.players[seat]
            c = p.hand.pop(arg)
            p.lands += 1
            p.land_played = True
            self._log("land", seat=seat)
        elif kind == "cast":
            c = self.players[seat].hand.pop(arg)
            self._begin_cast(seat, c, "hand")
        elif kind == "commander":
            p = self.players[seat]
            p.commander_zone = "stack"
            self._begin_cast(seat, p.commander, "command", extra=2 * p.commander_casts)
            p.commander_casts += 1
        elif kind == "unveil":
            self._begin_unveil(seat, arg)
        elif kind == "identity_ability":
            IA.activate(self, seat, arg)
        elif kind == "token":
            self._activate_token(seat, arg)
        elif kind == "loyalty":
            self._activate_loyalty(seat, *arg)
        elif kind == "permission":
            self._use_permission(seat, arg)

    def _after_pass(self, seat: int) -> None:
        self.passes += 1
        if self.passes >= self.n_alive:
            self.passes = 0
            if self.stack:
                self.queue.append(("resolve_top",))
                self.priority_seat = self._next_alive(self.active, include_self=True)
            else:
                self.priority_seat = None
        else:
            self.priority_seat = self._next_alive(seat)
