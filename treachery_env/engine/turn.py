"""Turn structure (CR 500-514, 723): beginning a turn, untapping, moving from
step to step, extra turns, ending the turn or phase early, the cleanup step.
"""

from __future__ import annotations

from .. import identity_abilities as IA

try:
    import cython
except ImportError:         # run from source without Cython: its decorators do nothing (_cython_shim)
    from .. import _cython_shim as cython
from .state import PHASES, PHASE_INDEX, Creature, GameState, Player

__all__ = ["TurnMixin"]


class TurnMixin:
    """Turn structure (CR 500-514, 723): methods of :class:`~treachery_env.engine.game.Game`."""

    @cython.locals(self=GameState, p=Player, c=Creature)
    def _start_turn(self, seat: int) -> None:
        self.turn += 1
        if self.turn > self.config.max_turns:
            self.turn -= 1
            self._truncate()
            return
        prev = self.active
        self.active = seat
        self.phase = "untap"
        p = self.players[seat]
        p.land_played = False
        self._log("turn", seat=seat)
        self._talk_new_turn(seat)       # truces end, the reaction window's baseline (engine/talk.py)
        # shields that last "until your next turn" end as that player's turn starts,
        # or, once that player left the game, as their turn would have begun
        # (CR 800.4k): the turns of every seat passed over since ``prev``
        if self.shields:
            k = (seat - prev) % self.n or self.n
            passed = {(prev + i) % self.n for i in range(1, k + 1)}
            self.shields = [s for s in self.shields if s["until_turn_of"] not in passed]
        if self.planar is not None:
            self._planar_new_turn(seat)     # Planechase: the active player is the planar controller (CR 901.6)
        if self.social is not None and self.social.season is not None:
            self._season_check()        # Throne Magic's Seasons change as an untap step begins
        # untap step (CR 502): untap; a stunned permanent loses a stun counter instead
        p.lands_tapped = 0
        for c in p.creatures:
            self.untap(c)
        self.priority_seat = None

    @cython.locals(c=Creature)
    def untap(self, c: Creature) -> None:
        """Untap ``c``; a tapped permanent with a stun counter loses a counter and
        stays tapped instead (CR 122.1d)."""
        if c.tapped:
            if c.stun:
                c.stun -= 1
            else:
                c.tapped = False

    @cython.locals(self=GameState, p=Player, i=cython.long, active_in=cython.bint, full=cython.bint)
    def _step_forward(self) -> None:
        """Leave the current step (mana empties, CR 500.4) and begin the next.
        A cleanup step in which a state-based action was performed or an ability
        triggered is followed by another cleanup step (CR 514.3a)."""
        for p in self.players:
            p.mana_pool = 0
        if self.turn_effects:
            self.turn_effects.pop("steps_ended", None)
            if self.phase == "cleanup" and self.turn_effects.get("cleanup_again"):
                self.queue.append(("cleanup",))     # another cleanup step (CR 514.3a)
                return
        i = PHASE_INDEX[self.phase] + 1
        if i >= len(PHASES):
            nxt = None
            while self.extra_turns and nxt is None:        # extra turns come first (CR 500.7)
                s = self.extra_turns.pop()
                p = self.players[s]
                nxt = None if p.has_lost else s
            if nxt is None:
                # after extra turns the normal order resumes from the last normal turn (CR 500.7):
                # an extra turn taken after another player's turn doesn't skip anyone
                nxt = self._next_alive(self.order_seat)
                if nxt is None:
                    self.is_over = True
                    return
                self.order_seat = nxt
            self._start_turn(nxt)
            return
        ph = PHASES[i]
        if ph == "main2" and self.full_windows:
            self._clear_combat()       # CR 511.3: as the end of combat step ends
        self.phase = ph
        p = self.players[self.active]
        active_in = not p.has_lost
        full = self.full_windows
        if ph == "upkeep":
            IA.fire_event(self, "upkeep", seat=self.active)
            if self.schemes is not None:
                self._scheme_upkeep()       # Archenemy: ongoing schemes (CR 904.11)
            if self.social is not None:
                self._throne_upkeep()       # Throne Magic: the Throne's ability ("Throne Abilities")
                if self.social.season is not None:
                    self._season_upkeep()   # and the Season's effect
            if p.vanguard is not None:
                self._vanguard_triggers("upkeep")     # CR 902.7
            if self.planar is not None:
                self._planar_upkeep()       # Planechase: the face-up plane's upkeep ability
            self._fire_delayed("upkeep")
            if full:
                self._open_priority()    # CR 503.1
        elif ph == "draw":
            if active_in:
                # the turn-based draw (CR 504.1); the event names the cards it drew (The Corrupted Regent)
                IA.fire_event(self, "draw_step", seat=self.active, drawn=self.draw(self.active, 1))
            if full:
                self._open_priority()    # CR 504.2
        elif ph in ("main1", "main2", "end"):
            if ph == "main1":
                if self.schemes is not None:
                    self._set_scheme_in_motion(self.active)     # CR 904.9, a turn-based action
                IA.fire_event(self, "main_phase", seat=self.active)
                self._fire_delayed("main_phase")
            elif ph == "main2":
                self._fire_delayed("main2")      # postcombat main phase (The Ætherist)
            elif ph == "end":
                IA.fire_event(self, "end_step", seat=self.active)
                self._fire_delayed("end_step")
                if p.vanguard is not None:
                    self._vanguard_triggers("end_step")   # CR 902.7
            self._open_priority()        # CR 505.5, 513.2
        elif ph == "combat_begin":
            self.combat_attackers = []
            if full:
                self._open_priority()    # CR 507.2
        elif ph == "declare_attackers":
            if active_in and self._attack_candidates():
                self.queue.append(("declare_attackers",))
            elif full:
                self._open_priority()    # CR 508.2: priority even when nothing attacks
        elif ph == "declare_blockers":
            # CR 508.8: no creature declared as an attacker, no declare blockers or combat
            # damage step; once one was, both happen even if none is attacking any more
            # (with every window: "main" keeps its smaller set, and its replays)
            if self.combat_attackers or (full and "attackers_declared" in self.turn_effects):
                self.queue.append(("declare_blockers",))
        elif ph == "first_strike_damage":
            if any(c.has("first_strike") or c.has("double_strike") for c in self._combatants()):
                self.queue.append(("combat_damage", True))
                if full:
                    self._open_priority()    # CR 510.3, once the damage is dealt (the queue runs first)
        elif ph == "combat_damage":
            if self.combat_attackers or (full and "attackers_declared" in self.turn_effects):   # CR 508.8
                self.queue.append(("combat_damage", False))
                if full:
                    self._open_priority()    # CR 510.3, once the damage is dealt
        elif ph == "combat_end":
            if full:
                self._open_priority()    # CR 511.2; creatures leave combat as the step ends
            else:
                self._clear_combat()
        elif ph == "cleanup":
            self.queue.append(("cleanup",))

    def end_turn(self) -> None:
        """CR 723 (The Time Bender): exile every object on the stack, remove all
        creatures from combat, and go to the cleanup step of this turn."""
        self._end_steps_to("cleanup")

    def end_phase(self) -> None:
        """The Warlock: end the current phase unless it is the ending phase: exile
        the stack, clear combat, and go on to the next phase."""
        ph = self.phase
        if ph in ("end", "cleanup"):
            return
        nxt = {"untap": "draw", "upkeep": "draw", "draw": "draw", "main1": "main1"}.get(ph)
        if ph in ("combat_begin", "declare_attackers", "declare_blockers", "first_strike_damage",
                  "combat_damage", "combat_end"):
            nxt = "combat_end"
        elif ph == "main2":
            nxt = "main2"
        self._end_steps_to(nxt)

    def _end_steps_to(self, last: str) -> None:
        """Exile the stack, clear combat, drop pending choices, and make ``last``
        the current step, so that the next step to begin is the one after it.

        CR 723.1a: triggered abilities that triggered before and are still
        waiting to be put on the stack cease to exist.  CR 723.1c-723.2: state-based
        actions are then checked with no priority; abilities that trigger meanwhile
        wait (the ``"steps_ended"`` mark, :meth:`Game._advance`) and are put on the
        stack in the next step, for an ended turn in its cleanup step, which is
        then followed by another (CR 514.3a).  The Warlock's "end the phase" has no
        rule of its own: the engine applies these rules to the phase.

        What a loss called from outside the engine loop set aside (``Game.suspended``,
        :meth:`Game.lose`: a resolution, or triggers being put on the stack, with
        their pending decision) ends with the rest: it is not resumed after the
        losers leave, and a spell that was resolving is exiled (CR 723.1a-b)."""
        for it in self.stack:
            self._finish_item(it, exiled=True)      # CR 723.1b: the stack is exiled
        self.stack = []
        self.pending_triggers = []
        ops = list(self.queue)
        if self.suspended is not None:
            ops += self.suspended[1]
            self.suspended = (None, [], None)
        for op in ops:
            if op[0] == "finish_item":
                self._finish_item(op[1], exiled=True)   # the spell resolving (CR 723.1b)
        self.queue.clear()
        self.decision = None
        self._clear_combat()
        self.priority_seat = None
        self.passes = 0
        self._log("steps_ended", until=last)
        self.turn_effects["steps_ended"] = True
        self._dirty = True                   # CR 723.1c
        if last == "cleanup":
            self.phase = "end"               # the cleanup step itself still happens (CR 723.1e)
        else:
            self.phase = last

    def _cleanup_again(self) -> None:
        """CR 514.3a: a state-based action was performed or an ability triggered
        during the cleanup step: the active player gets priority (the triggers go
        on the stack first), and once all pass with an empty stack another cleanup
        step begins (:meth:`_step_forward`).

        With ``priority_windows="main"`` (docs/fidelity.md, section 3) the cleanup
        step is not one of its windows: players get priority there only while the
        stack is not empty (the triggers put on it, as in any step with that
        setting, ``Game._advance``); a state-based action alone gives none, and
        another cleanup step still follows."""
        self.turn_effects["cleanup_again"] = True
        if self.priority_seat is None and self.full_windows:
            self._open_priority()

    def _op_cleanup(self) -> None:
        """CR 514: discard to maximum hand size, remove damage, end "this turn" effects."""
        p = self.players[self.active]
        if not p.has_lost and len(p.hand) > p.max_hand_size:
            self._push_front([("discard", self.active, len(p.hand) - p.max_hand_size, None), ("cleanup_rest",)])
        else:
            self._op_cleanup_rest()

    def _op_cleanup_rest(self) -> None:
        # "until end of turn" control effects end (CR 514.2); back to the previous
        # controller unless that player left the game (CR 800.4b)
        self.end_control_effects(lambda e: e.get("until") == "eot")
        self.effects = [e for e in self.effects if e.get("until") != "eot"]
        for p in self.players:
            if p.permissions:
                p.permissions = [q for q in p.permissions if q["until_turn"] is None or q["until_turn"] > self.turn]
        for p in self.players:
            for c in p.creatures:
                c.damage = 0
                c.pump_p = c.pump_q = 0
                c.pump_kw = frozenset()
        self.turn_effects = {}
        self._dirty = True
