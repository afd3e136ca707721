"""Priority (CR 117): who may act, what they may do at their priority, and
passing in turn order until the stack resolves or the step ends.

Whether a seat can do anything but pass (:meth:`PriorityMixin._can_act`, the
reference) is asked of every seat that gets priority; :data:`CAN_ACT` says
which implementation :meth:`PriorityMixin._offer_priority` uses for it: the
compiled ``treachery_env._priority.can_act`` (Cython, the same answers) unless
it is not built, is older than ``_priority.pyx`` or ``_slots.pxi`` (then with
a warning) or ``TREACHERY_PURE_PYTHON=1``.
"""

from __future__ import annotations

from typing import Any, Callable

try:
    import cython
except ImportError:         # run from source without Cython: its decorators do nothing (_cython_shim)
    from .. import _cython_shim as cython

from .. import identity_abilities as IA
from ..actions import MAX_HAND, MAX_OTHER, TOKEN_ABILITIES
from ..compiled import compiled_pyx
from .state import DecisionKind, Decision, GameState, IdentityCard, Player

__all__ = ["PriorityMixin", "CAN_ACT"]


class PriorityMixin:
    """Priority (CR 117): methods of :class:`~treachery_env.engine.game.Game`."""

    def _open_priority(self) -> None:
        self.priority_seat = self._next_alive(self.active, include_self=True)
        self.passes = 0

    @cython.locals(self=GameState, players=list, n=cython.long, n_alive=cython.long, auto=cython.long,
                   passes=cython.long, nxt=cython.long, p=Player, seat=cython.long, active=cython.long,
                   sorcery=cython.bint, shown=cython.bint)
    def _offer_priority(self) -> None:
        """Give priority to ``priority_seat`` (CR 117.3).  A seat whose only
        legal action is to pass passes at once, without a Decision or an
        option list (:meth:`_can_act`, or its compiled twin, :data:`CAN_ACT`,
        says whether it could do anything else),
        and priority moves on in turn order, until a seat that can act gets a
        PRIORITY decision or every seat has passed in succession (the top of
        the stack resolves, or the step ends).  Seats that left are skipped.
        With ``GameConfig.forced_decisions="shown"`` every seat still in the
        game gets a PRIORITY decision, PASS its only option or not, so which
        seat is asked next is public."""
        players = self.players
        n = self.n
        n_alive = self.n_alive      # passing eliminates nobody
        # whether the active player has sorcery timing (passing changes neither the stack nor the step)
        active = self.active
        sorcery = not self.stack and (self.phase == "main1" or self.phase == "main2")
        can_act = _can_act
        shown = self.show_forced    # every seat's priority is a decision, whatever it can do
        auto = 0        # the automatic passes, added to auto_decisions as the loop ends
        # priority_seat and passes, kept here while seats pass (nothing the loop
        # calls reads them) and written back before _after_pass and on leaving
        # (compiled, seat is a C integer: priority_seat is a seat here, never None)
        seat, passes = self.priority_seat, self.passes
        while True:
            p = players[seat]
            if not p.has_lost:
                if shown:
                    opts = self._priority_options(seat)
                    break
                if sorcery and seat == active:
                    opts = self._priority_options(seat)     # sorcery timing: nearly always more than PASS
                    if len(opts) > 1:
                        break
                elif can_act(self, seat):
                    opts = self._priority_options(seat)
                    break
                auto += 1                   # only "pass": taken automatically
                if passes + 1 < n_alive:    # _after_pass when others have yet to pass, inline
                    passes += 1
                    nxt = seat + 1 if seat + 1 < n else 0
                    p = players[nxt]
                    seat = nxt if not p.has_lost else self._next_alive(seat)     # (another seat is still in)
                    continue
            self.priority_seat, self.passes = seat, passes
            self._after_pass(seat)
            # a pass changes nothing else: what _advance would do next is to offer priority again
            if self.priority_seat is None or self.queue:
                self.auto_decisions += auto
                return
            seat, passes = self.priority_seat, self.passes
        self.priority_seat, self.passes = seat, passes
        self.auto_decisions += auto
        self.decision = Decision(seat, DecisionKind.PRIORITY, opts, "_h_priority", seat, "priority")

    def _sorcery_timing(self, seat: int) -> bool:
        return seat == self.active and not self.stack and (self.phase == "main1" or self.phase == "main2")

    @cython.locals(self=GameState, p=Player, idc=IdentityCard, opts=list, avail=cython.long, sorcery=cython.bint,
                   hand_a=cython.long, i=cython.long, k=cython.long, tok=dict)
    def _priority_options(self, seat: int) -> list:
        """The PRIORITY options of ``seat`` now, PASS first: lands and spells
        from hand, the commander, unveiling or the face-up identity's
        activated abilities, cards other zones let it use, loyalty abilities,
        token abilities, then table talk.  :meth:`_can_act` and its compiled
        twin must stay equivalent to ``len(self._priority_options(seat)) > 1``."""
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
        idc = p.identity        # None: no identity card (Throne Magic), so no unveil, no identity ability
        if idc is not None and not idc.face_up and idc.unveil_cost is not None:
            cost = idc.unveil_cost
            # The Quellmaster's reduction (never negative) is looked up only when it matters, as in _can_act
            if ((cost.mana <= avail or cost.mana - IA.cost_reduction(self, seat) <= avail)
                    and (not idc.undercover or self.undercover_met(seat))):
                for x in IA.unveil_xs(self, seat, avail):
                    opts.append((L.UNVEIL + x, ("unveil", x)))
        elif idc is not None and idc.face_up:
            # most identities have no activated ability, and IA.activatable then gives [] (tested
            # first, as in _can_act)
            impl = IA.IMPLEMENTATIONS.get(idc.name)
            if impl is not None and impl.activated:
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
        if self.social is not None:
            opts.extend(self._throne_creature_options(seat))     # Throne Magic (engine/throne.py)
        if sorcery and self.planar is not None:
            opts.extend(self._planar_die_options(seat, avail))     # Planechase (engine/planechase.py)
        if self.talk_on:
            opts.extend(self._talk_options(seat))     # table talk (engine/talk.py)
        return opts

    @cython.locals(self=GameState, p=Player, idc=IdentityCard, tok=dict, avail=cython.long, hand=list,
                   active=cython.bint)
    def _can_act(self, seat: int) -> bool:
        """Whether ``seat`` has a priority action other than passing now:
        exactly ``len(self._priority_options(seat)) > 1``.  At sorcery timing,
        and in a Throne Magic game, it is that; otherwise the options are not built: only what has instant
        speed is tested, with the same conditions (all free of side effects),
        cheapest first.  The reference of the compiled
        ``treachery_env._priority.can_act`` (:data:`CAN_ACT`)."""
        stack = self.stack
        ph = self.phase
        active = seat == self.active
        if (active and not stack and (ph == "main1" or ph == "main2")) or self.social is not None:
            # at sorcery timing; or in a Throne Magic game (its creatures' Throne abilities): options built
            return len(self._priority_options(seat)) > 1
        # not sorcery timing: no land, commander, loyalty ability, Map or Junk (CR 307.1, 606.3)
        p = self.players[seat]
        tok = p.tokens
        avail = p.mana_pool + p.lands - p.lands_tapped + tok["Treasure"]
        hand = p.hand
        for c in (hand if len(hand) <= MAX_HAND else hand[:MAX_HAND]):
            # priority_cast: an instant, or a nonland card with flash (CardDef)
            if c.priority_cast and c.cost <= avail and self.castable_targets(seat, c):
                return True
        for name in TOKEN_ABILITIES:
            if tok[name] and self._token_ability_ok(seat, name, avail, False):
                return True
        idc = p.identity
        card = None if idc is None else idc.identity if idc.copy_of is None else idc.copy_of   # IdentityCard.card
        if card is not None and idc.face_up:        # (None: no identity card, Throne Magic)
            impl = IA.IMPLEMENTATIONS.get(card.name)        # (IdentityCard.name)
            if impl is not None and impl.activated and IA.can_activate(self, seat):
                return True
        elif card is not None:
            cost = card.unveil_cost
            # the reduction (The Quellmaster's, never negative) is looked up only when it matters
            if (cost is not None and (cost.mana <= avail or cost.mana - IA.cost_reduction(self, seat) <= avail)
                    and (not card.undercover or self.undercover_met(seat)) and IA.unveil_xs(self, seat, avail)):
                return True
        if p.permissions:
            for perm in p.permissions[:MAX_OTHER]:
                if self._permission_ok(seat, perm, avail, False):
                    return True
        # talk outside one's own main phases: the end step of another player's turn (talk_window)
        return ph == "end" and not active and not stack and self.talk_on and self._can_talk(seat)

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
        elif kind == "throne_creature":
            self._activate_throne_creature(seat, *arg)
        elif kind == "planar_die":
            self._roll_planar_die(seat)

    @cython.locals(self=GameState, nxt=cython.long, p=Player)
    def _after_pass(self, seat: int) -> None:
        """``seat`` passed (CR 117.3d): priority goes to the next seat in turn
        order; once every seat still in passed in succession, the top of the
        stack resolves (priority then starts again with the active player) or,
        with an empty stack, the step ends (``priority_seat`` None)."""
        self.passes += 1
        if self.passes >= self.n_alive:
            self.passes = 0
            if self.stack:
                self.queue.append(("resolve_top",))
                self.priority_seat = self._next_alive(self.active, include_self=True)
            else:
                self.priority_seat = None
        else:
            nxt = seat + 1 if seat + 1 < self.n else 0
            p = self.players[nxt]
            self.priority_seat = nxt if not p.has_lost else self._next_alive(seat)


def _select_can_act() -> tuple[Callable[[Any, int], bool], str]:
    """``(can_act(game, seat), name)``: the compiled ``treachery_env._priority.can_act``
    and ``"compiled"``, or :meth:`PriorityMixin._can_act` and ``"python"`` when
    ``TREACHERY_PURE_PYTHON=1``, the extension is not built, or it is older than
    ``_priority.pyx`` or ``_slots.pxi`` (then with a warning)."""
    mod = compiled_pyx("_priority", "the compiled priority check")
    if mod is None:
        return PriorityMixin._can_act, "python"
    return mod.can_act, "compiled"


_can_act, CAN_ACT = _select_can_act()
"""``CAN_ACT``: which priority check :meth:`PriorityMixin._offer_priority` uses,
``"compiled"`` (``treachery_env._priority.can_act``) or ``"python"``
(:meth:`PriorityMixin._can_act`); both give the same answers."""
