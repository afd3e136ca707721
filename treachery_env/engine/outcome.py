"""Losing, leaving and winning (CR 104, 800.4, 907.7-907.9; TR6-TR7):
simultaneous losses, the reveal on losing, leaving the game, team wins, the
end-of-game reveal.
"""

from __future__ import annotations


from .. import identity_abilities as IA
from ..cards import COUNTER_TOKENS
from ..rules import Role, Team, team_of
from .state import DecisionKind

__all__ = ["LOSS_REASONS", "OutcomeMixin"]

LOSS_REASONS = ("rules", "team", "concede")
"""The reasons of a loss (:meth:`OutcomeMixin.lose`, its ``loses`` events): the rules
(state-based actions, CR 704.5; an effect), the Leader team's loss (CR 907.7c), a
concession (CR 104.3a)."""


class OutcomeMixin:
    """Losing, leaving and winning (CR 104, 800.4, 907.7-907.9; TR6-TR7): methods of :class:`~treachery_env.engine.game.Game`."""

    def _truncate(self) -> None:
        self.truncated = True
        self.is_over = True
        self._log("truncated", turns=self.turn)
        self._end_game_reveal()

    def lose(self, seats: int | list[int], reason: str = "rules", concede: bool = False) -> None:
        """Make ``seats`` lose the game simultaneously (a list = simultaneous
        losses, TR6.9).

        Effects that replace losing apply first (never to a concession nor to
        the Leader team's loss, TR6.3, TR6.10).  Then, for each loser: "as you
        lose" abilities apply (the ``losing`` event: The Metamorph, and
        ``"on:losing"`` effects, The Cathar's exile ending); a face-down
        identity is turned face up, which is not an unveil (CR 702.187a/g: no
        "when unveiled"), and the loss is logged.  CR 907.8a: the
        identity-sourced objects the losers own (on the stack, or pending
        triggers, those that trigger on the loss itself included) then trigger
        and resolve, topmost first and without any priority, before the losers
        leave; their controllers still make their
        choices.  Only then do the losers leave together (CR 800.4a,
        :meth:`_leave_game`), their last-known team is kept (TR7.4), and the
        Leader team's loss and the win conditions are checked (CR 907.7).

        With no such object the players leave at once.  Otherwise they are
        ``Game.leaving`` until the engine's loop has resolved those objects
        (:meth:`_leaving_step`); a player who loses meanwhile joins them.
        Called from outside the engine loop while a decision is pending
        (scenarios, tests), the pending decision and queue are set aside and the
        loop runs at once: they come back once the players have left (a pending
        priority decision is offered afresh, and so are the combat declarations: their
        options may name creatures that left with the players, CR 800.4a).

        Raises:
            ValueError: (one line) for a seat (``seats`` or one of them) that is not an
                int from 0 to n - 1, a ``reason`` not in :data:`LOSS_REASONS`, or a
                ``concede`` that is not a bool.
        """
        if isinstance(seats, (list, tuple)):
            seats = [self._seat_arg(s, "lose") for s in seats]
        else:
            seats = [self._seat_arg(seats, "lose")]
        reason = self._word_arg(reason, "lose", "reason", LOSS_REASONS)
        concede = self._flag_arg(concede, "lose", "concede")
        self._lose(seats, reason, concede, [])

    def _lose(self, seats: list[int], reason: str, concede: bool, empty_draw: list[int]) -> None:
        """:meth:`lose`, its arguments checked.  ``empty_draw``: the seats among
        ``seats`` that lose for an attempt to draw from an empty library since
        the last state-based check (CR 704.5b; the check has cleared that record,
        ``Player.drew_from_empty``, and passes its reasons here).  It is the
        ``"lose_game"`` event's ``empty_draw``: the effects that replace losing
        read the reason there (The Treacherous Masochist), and one that deals
        with it takes the seat out (He Who Comes To Save The Day), which the
        caller reads back (a loss kept from happening, CR 704.3)."""
        # called from outside the engine loop (scenarios, tests) while a decision is pending
        external = self.decision is not None
        window_open = bool(self.leaving)
        seats = [s for s in seats if not self.players[s].has_lost and s not in self.leaving]
        if not concede and reason != "team":
            seats = [s for s in seats if not self.players[s].cant_lose]
            # effects that replace losing (He Who Comes To Save The Day, The Treacherous
            # Masochist); never a concession nor the Leader team's loss (TR6.3, TR6.10)
            ev = {"seats": list(seats), "reason": reason, "first": all(not p.has_lost for p in self.players),
                  "empty_draw": empty_draw}
            IA.replace(self, "lose_game", ev)
            seats = [s for s in ev["seats"] if not self.players[s].has_lost and s not in self.leaving]
            if self.is_over:
                return
        if not seats or self.is_over:
            return
        for s in seats:
            IA.fire_event(self, "losing", seat=s)     # as the player loses (The Metamorph)
        for s in seats:
            p = self.players[s]
            self._reveal_as_leaving(s)
            p.lost_turn = self.turn
            self.leaving.append(s)
            if self.social is None:
                self._log("loses", seat=s, identity=p.identity.name, reason=reason)
            else:
                self._log("loses", seat=s, role=self.social.role(s), reason=reason)
        if window_open:
            return                  # they leave with the players already leaving
        if not self._leaving_objects():
            if external:            # set aside as below: the decision may name what left with them
                self.suspended = (self.decision, list(self.queue), self.resolving)
                self.decision = None
                self.queue.clear()
            self._finish_leaving()
            if external and self.decision is None and not self.is_over:
                # the deciding player left, or their decision is offered afresh: run on (CR 800.4a)
                self._advance()
            return
        self._refresh_statics()     # a revealed identity's abilities work until its player leaves
        self._log("resolve_before_leaving", seats=list(self.leaving))
        if external:
            self.suspended = (self.decision, list(self.queue), self.resolving)
            self.decision = None
            self.queue.clear()
            self._advance()

    def _reveal_as_leaving(self, seat: int) -> None:
        """CR 702.187a/g, 907.9: a losing or leaving player's face-down identity is
        turned face up and shown to all (not an unveil: X becomes 0, CR 702.187e);
        a non-Leader one counts as revealed for Undercover (TR7.7).  In Throne
        Magic the player's Role card is revealed ("Leaving the Game")."""
        if self.social is not None:
            self.social.reveal(self, seat)
            return
        idc = self.players[seat].identity
        if not idc.face_up:
            idc.face_up = True
            idc.x = 0               # turned face up other than by unveiling (CR 702.187e)
            idc.known_by = set(range(self.n))
            if idc.role != Role.LEADER:
                self.revealed_identities.add(idc.uid)

    def _leaving_objects(self) -> list:
        """CR 907.8a: the identity-sourced objects owned by the players now
        leaving that must still trigger and resolve: their pending triggers, then
        their spells and abilities on the stack (``StackItem.owner``: for an
        ability, the player whose identity put it there, even if another player
        took control of it)."""
        if not self.leaving:
            return []
        seats = self.leaving
        out = [t for t in self.pending_triggers if t.identity_source and t.owner in seats]
        out += [it for it in self.stack if it.identity_source and it.owner in seats]
        return out

    def _leaving_step(self) -> None:
        """One step of the CR 907.8a window, run by the engine loop (``_advance``)
        whenever players are leaving and no operation is queued: the leaving
        players' identity-sourced pending triggers go on the stack (APNAP
        order, targets chosen now, CR 603.3); else their topmost identity-sourced
        object on the stack resolves at once, with no priority in between;
        else nothing of theirs is left to resolve and they leave
        (:meth:`_finish_leaving`)."""
        seats = self.leaving
        trig = [t for t in self.pending_triggers if t.identity_source and t.owner in seats]
        if trig:
            self.pending_triggers = [t for t in self.pending_triggers if not any(t is x for x in trig)]
            self._put_triggers_on_stack(trig)
            return
        for it in reversed(self.stack):
            if it.identity_source and it.owner in seats:
                self.stack.remove(it)
                self.stack.append(it)
                self._push_front([("resolve_top",)])
                return
        self._finish_leaving()

    def _finish_leaving(self) -> None:
        """The players in ``Game.leaving`` leave the game together (CR 800.4a,
        TR7): any identity still face down is revealed (CR 907.9), the last-known
        role and team are kept (TR7.4), their objects leave (:meth:`_leave_game`);
        then "when a player loses" abilities of the others trigger and the Leader
        team's loss and the win conditions are checked (CR 907.7).  A decision
        set aside by an outside call of :meth:`lose` comes back afterwards."""
        seats = self.leaving
        self.leaving = []
        for s in seats:
            p = self.players[s]
            self._reveal_as_leaving(s)
            p.has_lost = True
            self.n_alive -= 1
            if p.identity is not None:
                p.last_role = p.identity.role
                p.last_team = team_of(p.identity.role)
        self._leave_game(seats)
        if self.schemes is not None:       # Archenemy: their scheme cards leave too (CR 800.4a)
            for s in seats:
                self.schemes.leave(s)
        self._refresh_statics()
        for s in seats:
            IA.fire_event(self, "player_lost", seat=s)
        self._check_game_end()
        if self.suspended is not None and not self.leaving:
            self._resume_suspended()

    def _resume_suspended(self) -> None:
        """Bring back what an outside call of :meth:`lose` set aside: the queued
        operations, the resolution in progress and the pending decision, unless
        its player left; a priority decision is not kept but offered afresh by
        the engine loop (its options may have changed), and so are the combat
        declarations (attackers, an attacker's target, blockers, a blocker's
        attacker: creatures may have left with the losers)."""
        d, queue, resolving = self.suspended
        self.suspended = None
        self._push_front(queue)
        self.resolving = resolving
        if (d is not None and not self.is_over and not self.players[d.seat].has_lost
                and d.kind != DecisionKind.PRIORITY):
            if not self._declare_afresh(d):
                self.decision = d

    def _declare_afresh(self, d) -> bool:
        """Whether ``d`` is a combat declaration (attackers, an attacker's target, blockers, a
        blocker's attacker), which players leaving may have made stale (their creatures left,
        CR 800.4a): then the declaration is queued to be asked again, with the creatures now
        there, and ``d`` is dropped by the caller."""
        if d.kind == DecisionKind.ATTACKER or d.kind == DecisionKind.DEFENDER:
            self._push_front([("declare_attackers",)])
            return True
        if d.kind == DecisionKind.BLOCKER or d.kind == DecisionKind.BLOCKED:
            self._push_front([("block_for", d.seat)])
            return True
        return False

    def concede(self, seat: int, by_action: bool = False) -> None:
        """``seat`` concedes (CR 104.3a): they lose; effects that replace losing
        don't apply (TR6.10).  Their identity-sourced objects still resolve before
        they leave (CR 907.8a, see :meth:`lose`).  Callable at any time, also out
        of turn (a UI); such a concession is kept in :attr:`concessions` so that
        replays reproduce it.

        Args:
            seat: the conceding seat.
            by_action: set by :meth:`step` for the CONCEDE action (already in
                :attr:`actions`).

        Raises:
            ValueError: (naming CR 104.3a) for a seat out of range, if the player
                already lost or the game is over; during a Throne Magic Draft or The
                King's choice of Throne; (one line) for a ``by_action`` that is not a bool.
        """
        seat = self._seat_arg(seat, "concede (CR 104.3a)")
        by_action = self._flag_arg(by_action, "concede (CR 104.3a)", "by_action")
        if self.is_over:
            raise ValueError(f"seat {seat} cannot concede (CR 104.3a): the game is over")
        if self.players[seat].has_lost or seat in self.leaving:
            raise ValueError(f"seat {seat} cannot concede (CR 104.3a): they already left the game or are leaving it")
        if self.social is not None and (not self.social.roles or self.social.throne is None):
            raise ValueError(f"seat {seat} cannot concede during Throne Magic's setup (the Draft of the Roles, "
                             f"The King's choice of Throne); concede once the Throne is chosen")
        if not by_action:
            self.concessions.append([len(self.actions), seat])
        self.lose([seat], reason="concede", concede=True)
        self._advance()

    def _leave_game(self, seats: list[int]) -> None:
        """CR 800.4a: ``seats`` (who have just lost) leave the game, in three steps.

        1. Every object they own leaves the game: permanents, spells and spell
           copies on the stack, their cards in others' face-down exiles, lands
           and tokens of theirs others control; and every control effect giving
           them control of an object ends (``Creature.control_effects``,
           ``StackItem.control_effects``, ``Player.borrowed``): a stolen creature,
           land or token goes back to its previous controller, a stolen spell or
           ability stays on the stack under its previous controller and resolves
           later (a change to a player no longer in the game doesn't happen,
           CR 800.4b).
        2. The stack objects they still control that aren't cards (abilities,
           copies of spells) cease to exist, and so do their pending triggers.
        3. What they still control is exiled: a creature that entered the
           battlefield under their control from another player's zone (The
           Necromancer, The Corpse Snatcher, The Ferryman) goes to its owner's
           exile, a spell card of another player they cast (The Oneiromancer,
           The Sigil Mage, The Spellsnatcher) goes to its owner's exile; a
           commander goes to the command zone (CR 903.9a), a token ceases to
           exist.

        Planeswalkers follow the same steps (an owner's leave the game; one a
        leaver controls but another owns is exiled to its owner's exile);
        attackers attacking a leaver's planeswalker are removed from combat.
        Creatures leaving the battlefield this way trigger leaves-the-battlefield
        abilities (The Blood Empress); their combat roles end; priority passes
        on (CR 800.4a) and the remaining players must all pass again."""
        left = set(seats)
        if self.planar is not None:
            self._planar_leave(seats)       # Planechase: CR 901.6 succession, CR 901.10
        gone = []
        for q in self.players:
            for c in list(q.creatures):
                if c.owner in left:
                    q.creatures.remove(c)
                    gone.append(c)
            if q.attackables:           # planeswalkers they own leave with them
                for w in list(q.attackables):
                    if w.owner in left:
                        q.attackables.remove(w)
                        self._log("leaves", planeswalker=w.uid, name=w.name, zone="out", seat=q.seat, **self._labels(w))
        self.stack = [it for it in self.stack if not (it.kind == "spell" and it.owner in left)]
        self._return_borrowed(left)
        self.end_control_effects(lambda e: e["seat"] in left)
        kept = []
        for it in self.stack:
            if it.controller in left:
                self._exile_stack_card(it)      # a card: to its owner's exile; a copy or ability ceases
            else:
                kept.append(it)
        self.stack = kept
        self.pending_triggers = [t for t in self.pending_triggers if t.controller not in left]
        for c in gone:
            if c.blocking is not None and c in c.blocking.blocked_by:
                c.blocking.blocked_by.remove(c)
        for a in self.combat_attackers:
            if a.attacking in left:
                w = a.attacking_obj
                if w is not None and (w.kind == "throne" or w.kind == "holding"):
                    a.attacking = self.n        # it stays, abandoned: attacked, undefended (Throne Magic)
                else:
                    a.attacking = -1
                    a.attacking_obj = None
        self.combat_attackers = [a for a in self.combat_attackers if a.attacking >= 0 and a not in gone]
        for q in self.players:
            if q.identity is None:
                continue
            pile = q.identity.data.get("dream")
            if pile:
                q.identity.data["dream"] = [(o, c) for o, c in pile if o not in left]
        for c in gone:
            IA.fire_event(self, "creature_left", creature=c, zone=None)     # to no zone: out of the game
        for s in seats:
            for c in list(self.players[s].creatures):
                self._leave_battlefield(c, "exile")   # not theirs, still theirs: exiled (step 3)
            for w in list(self.players[s].attackables):
                if w.kind == "throne":
                    self._throne_to(-1, "abandoned")    # "Abandoned Thrones": to the middle
                else:
                    self._attackable_leaves(w, "exile")   # a planeswalker of another's they cast
            if self.social is not None:
                for h in self.social.holdings:
                    if h.controller == s:
                        self._holding_to(h, -1, "abandoned")    # "Holdings (Advanced)": to the middle
        for s in seats:
            p = self.players[s]
            # shields the player created last until their turn would have begun (CR 800.4k, _start_turn)
            p.hand = []
            if p.commander is not None:
                p.commander_zone = "out"      # it left the game with its owner
            p.lands = p.lands_tapped = 0
            p.tokens = {k: 0 for k in COUNTER_TOKENS}
            p.mana_pool = 0
            p.permissions = []
            p.borrowed = []
        if self.decision is not None and (self.decision.seat in left or self._declare_afresh(self.decision)):
            self.decision = None        # a combat declaration set aside by an outside call: asked again
        if self.priority_seat in left:
            self.priority_seat = self._next_alive(self.priority_seat)
        self.passes = 0   # the remaining players must all pass again in succession

    def _return_borrowed(self, left: set[int]) -> None:
        """CR 800.4a for counted permanents (``Player.borrowed``): a land or token
        a leaving player owns and another controls leaves the game; one a leaving
        player controls through a control effect goes back to the player it came
        from (an untapped land if the leaver has one)."""
        for q in self.players:
            if not q.borrowed:
                continue
            keep = []
            for b in q.borrowed:
                if b["from"] in left:
                    if q.seat not in left:
                        self._take_counted(q, b["kind"])        # the owner's: it leaves with them
                elif q.seat in left:
                    tapped = self._take_counted(q, b["kind"])
                    if tapped is not None:
                        o = self.players[b["from"]]
                        if b["kind"] == "land":
                            o.lands += 1
                            o.lands_tapped += int(tapped)
                        else:
                            o.tokens[b["kind"]] += 1
                        self._log("control_returns", seat=o.seat, permanent=b["kind"])
                else:
                    keep.append(b)
            q.borrowed = keep

    def _take_counted(self, p, kind: str) -> bool | None:
        """Remove one land (an untapped one if any) or token of ``kind`` from
        ``p``'s counts; returns whether a removed land was tapped (False for a
        token), or None if ``p`` had none left."""
        if kind == "land":
            if not p.lands:
                return None
            tapped = p.lands_tapped >= p.lands
            p.lands -= 1
            p.lands_tapped = min(p.lands_tapped, p.lands)
            return tapped
        if not p.tokens.get(kind):
            return None
        p.tokens[kind] -= 1
        return False

    def _check_game_end(self) -> None:
        """CR 907.7 and TR6: the Leader team loses when no player in the game
        controls a Leader identity, and every Guardian loses with it even if they
        "can't lose" (TR6.3); then the Assassins win if one of them is still in the
        game (CR 907.7d), else a lone Traitor wins (CR 907.7f); the Leader team
        wins once every Assassin and Traitor has left (TR6.6).  Wins are shared by
        eliminated teammates through their last-known team (TR7.4).  Throne
        Magic's check is its own (:meth:`ThroneMagic.check_end`, "Winning the
        Game")."""
        if self.is_over:
            return
        if self.social is not None:
            self.social.check_end(self)
            return
        alive = [p for p in self.players if not p.has_lost]
        roles = [p.identity.role for p in alive]
        if Role.LEADER not in roles:
            guardians = [p.seat for p in alive if p.identity.role == Role.GUARDIAN]
            if guardians:
                self.lose(guardians, reason="team")
                return
            if Role.ASSASSIN in roles:
                self._win({p.seat for p in self.players if p.team == Team.ASSASSIN})
            elif len(alive) == 1:
                self._win({alive[0].seat})
            elif not alive:
                self._win(set())
            return
        if Role.ASSASSIN not in roles and Role.TRAITOR not in roles:
            self._win({p.seat for p in self.players if p.team == Team.LEADER})

    def _win(self, seats: set[int]) -> None:
        """End the game with ``seats`` winning (empty set = a draw)."""
        self.winners = set(seats)
        for s in seats:
            self.players[s].won = True
        self.is_over = True
        self._log("game_over", winners=sorted(seats))
        self._end_game_reveal()

    def win(self, seat: int) -> None:
        """``seat`` wins the game ("you win the game" effects): their whole team
        wins, eliminated teammates included (TR6.7); a Traitor wins alone.  Logged
        as ``win_effect`` (the winners need not be the last players standing).

        Raises:
            ValueError: for a seat that is not an int from 0 to n - 1.
        """
        p = self.players[self._seat_arg(seat, "win")]
        self._log("win_effect", seat=seat)
        if p.team == Team.TRAITOR:
            self._win({seat})
        else:
            self._win({q.seat for q in self.players if q.team == p.team})

    def _end_game_reveal(self) -> None:
        """CR 907.9: at the end of the game every face-down identity is revealed.
        Nothing set aside by :meth:`lose` comes back: the game is over.  Throne
        Magic shows every Role card (:meth:`ThroneMagic.end_reveal`)."""
        if self.social is not None:
            self.social.end_reveal(self)
        else:
            for p in self.players:
                if not p.identity.face_up:
                    p.identity.known_by = set(range(self.n))
            self._log("reveal_all", identities=[p.identity.name for p in self.players])
        self.decision = None
        self.suspended = None
