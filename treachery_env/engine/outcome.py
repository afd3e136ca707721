"""Losing, leaving and winning (CR 104, 800.4, 907.7-907.9; TR6-TR7):
simultaneous losses, the reveal on losing, leaving the game, team wins, the
end-of-game reveal.
"""

from __future__ import annotations

import numpy as np

from .. import identity_abilities as IA
from ..cards import COUNTER_TOKENS
from ..rules import Role, Team, team_of

__all__ = ["OutcomeMixin"]


class OutcomeMixin:
    """Losing, leaving and winning (CR 104, 800.4, 907.7-907.9; TR6-TR7): methods of :class:`~treachery_env.engine.game.Game`."""

    def _truncate(self) -> None:
        self.truncated = True
        self.is_over = True
        self._log("truncated", turns=self.turn)
        self._end_game_reveal()

    def lose(self, seats: int | list[int], reason: str = "rules", concede: bool = False) -> None:
        """Make ``seats`` lose the game simultaneously (a list = simultaneous
        losses, TR6.9).  For each: identity-sourced triggers resolve before the
        player leaves (CR 907.8a); a face-down identity is revealed, which is not an
        unveil (CR 702.187a/g: no "when unveiled"); the last-known team is kept
        (TR7.4); their objects leave (CR 800.4a).  Then the Leader team's loss and
        the win conditions are checked (CR 907.7)."""
        if isinstance(seats, (int, np.integer)):
            seats = [int(seats)]
        # called from outside the engine loop (scenarios, tests) while a decision is pending
        external = self.decision is not None
        seats = [s for s in seats if not self.players[s].has_lost]
        if not concede and reason != "team":
            seats = [s for s in seats if not self.players[s].cant_lose]
            # effects that replace losing (He Who Comes To Save The Day, The Treacherous
            # Masochist); never a concession nor the Leader team's loss (TR6.3, TR6.10)
            ev = {"seats": list(seats), "reason": reason, "first": all(not p.has_lost for p in self.players)}
            IA.replace(self, "lose_game", ev)
            seats = [s for s in ev["seats"] if not self.players[s].has_lost]
            if self.is_over:
                return
        if not seats or self.is_over:
            return
        for s in seats:
            IA.fire_event(self, "losing", seat=s)     # as the player loses (The Metamorph)
        for s in seats:
            IA.before_leaving(self, s)
        for s in seats:
            p = self.players[s]
            idc = p.identity
            if not idc.face_up:
                idc.face_up = True
                idc.x = 0               # turned face up other than by unveiling (CR 702.187e)
                idc.known_by = set(range(self.n))
                if idc.role != Role.LEADER:
                    self.revealed_identities.add(idc.uid)
            p.has_lost = True
            self.n_alive -= 1
            p.lost_turn = self.turn
            p.last_role = idc.role
            p.last_team = team_of(idc.role)
            self._log("loses", seat=s, identity=idc.name, reason=reason)
        for s in seats:
            self._leave_game(s)
        self._refresh_statics()
        for s in seats:
            IA.fire_event(self, "player_lost", seat=s)
        self._check_game_end()
        if external and self.decision is None and not self.is_over:
            # the deciding player left: run on to the next decision (CR 800.4a)
            self._advance()

    def concede(self, seat: int, by_action: bool = False) -> None:
        """``seat`` concedes (CR 104.3a): they lose; effects that replace losing
        don't apply (TR6.10).  Callable at any time, also out of turn (a UI);
        such a concession is kept in :attr:`concessions` so that replays
        reproduce it.

        Args:
            seat: the conceding seat.
            by_action: set by :meth:`step` for the CONCEDE action (already in
                :attr:`actions`).

        Raises:
            ValueError: (naming CR 104.3a) for a seat out of range, if the player
                already left or the game is over.
        """
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < self.n:
            raise ValueError(f"seat must be an int from 0 to {self.n - 1} to concede (CR 104.3a), got {seat!r}")
        seat = int(seat)
        if self.is_over:
            raise ValueError(f"seat {seat} cannot concede (CR 104.3a): the game is over")
        if self.players[seat].has_lost:
            raise ValueError(f"seat {seat} cannot concede (CR 104.3a): they already left the game")
        if not by_action:
            self.concessions.append([len(self.actions), seat])
        self.lose([seat], reason="concede", concede=True)
        if self.decision is not None and self.decision.seat == seat:
            self.decision = None
            if self.priority_seat == seat:
                self._after_pass(seat)
        self._advance()

    def _leave_game(self, seat: int) -> None:
        """CR 800.4a: everything the player owns leaves the game (spells on the
        stack, permanents, cards in the face-down exile of others); control
        effects giving them others' permanents end, so those go back to their
        owners; abilities they control cease to exist;
        their combat role ends.  Creatures leaving the battlefield this way
        trigger leaves-the-battlefield abilities (The Blood Empress)."""
        p = self.players[seat]
        gone = []
        for q in self.players:
            for c in list(q.creatures):
                if c.owner == seat or c.controller == seat:
                    q.creatures.remove(c)
                    owner = self.players[c.owner]
                    if c.owner != seat and not owner.has_lost:
                        # control effects giving the leaving player control end (CR 800.4a):
                        # the creature goes back to its owner
                        c.controller = c.owner
                        c.attacking = -1
                        c.entered_turn = self.turn
                        owner.creatures.append(c)
                        continue
                    gone.append(c)
        for c in gone:
            if c.blocking is not None and c in c.blocking.blocked_by:
                c.blocking.blocked_by.remove(c)
        for a in self.combat_attackers:
            if a.attacking == seat:
                a.attacking = -1
        self.combat_attackers = [a for a in self.combat_attackers if a.attacking >= 0 and a not in gone]
        self.stack = [it for it in self.stack if it.controller != seat and it.owner != seat]
        self.pending_triggers = [t for t in self.pending_triggers if t.controller != seat]
        for q in self.players:
            pile = q.identity.data.get("dream")
            if pile:
                q.identity.data["dream"] = [(o, c) for o, c in pile if o != seat]
        for c in gone:
            IA.fire_event(self, "creature_left", creature=c)
        # shields the player created last until their turn would have begun (CR 800.4k, _start_turn)
        p.hand = []
        if p.commander is not None:
            p.commander_zone = "out"      # it left the game with its owner
        p.lands = p.lands_tapped = 0
        p.tokens = {k: 0 for k in COUNTER_TOKENS}
        p.mana_pool = 0
        if self.decision is not None and self.decision.seat == seat:
            self.decision = None
        if self.priority_seat == seat:
            self.priority_seat = self._next_alive(seat)
        self.passes = 0   # the remaining players must all pass again in succession

    def _check_game_end(self) -> None:
        """CR 907.7 and TR6: the Leader team loses when no player in the game
        controls a Leader identity, and every Guardian loses with it even if they
        "can't lose" (TR6.3); then the Assassins win if one of them is still in the
        game (CR 907.7d), else a lone Traitor wins (CR 907.7f); the Leader team
        wins once every Assassin and Traitor has left (TR6.6).  Wins are shared by
        eliminated teammates through their last-known team (TR7.4)."""
        if self.is_over:
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
        as ``win_effect`` (the winners need not be the last players standing)."""
        p = self.players[seat]
        self._log("win_effect", seat=seat)
        if p.team == Team.TRAITOR:
            self._win({seat})
        else:
            self._win({q.seat for q in self.players if q.team == p.team})

    def _end_game_reveal(self) -> None:
        """CR 907.9: at the end of the game every face-down identity is revealed."""
        for p in self.players:
            if not p.identity.face_up:
                p.identity.known_by = set(range(self.n))
        self._log("reveal_all", identities=[p.identity.name for p in self.players])
        self.decision = None
