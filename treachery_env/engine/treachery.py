"""The identity layer (CR 314, 702.187, 907.7g; TR3-TR8): teams and opponents,
statics of face-up identities, Undercover, the unveil special action,
turning face up and down, copying and changing control of identities.
"""

from __future__ import annotations

from .. import identities as ids

try:
    import cython
except ImportError:         # run from source without Cython: its decorators do nothing (_cython_shim)
    from .. import _cython_shim as cython
from .. import identity_abilities as IA
from ..actions import MAX_X
from ..rules import Role, Team, team_of
from .state import DecisionKind, GameState, IdentityCard, Player

__all__ = ["TreacheryMixin"]

_TRAITOR = Team.TRAITOR     # read once: ``Team.X`` goes through the enum metaclass's __getattr__ hook


class TreacheryMixin:
    """The identity layer (CR 314, 702.187, 907.7g; TR3-TR8): methods of :class:`~treachery_env.engine.game.Game`."""

    @cython.locals(self=GameState, p=Player, idc=IdentityCard)
    def is_leader_player(self, seat: int) -> bool:
        """CR 314.7: a player controlling a face-up identity with the Leader type."""
        p = self.players[seat]
        idc = p.identity
        return idc is not None and idc.face_up and idc.role == Role.LEADER and not p.has_lost

    @cython.locals(self=GameState, p=Player, idc=IdentityCard)
    def role_player(self, seat: int, role: Role) -> bool:
        """CR 314.7: ``seat`` controls a face-up identity of ``role``."""
        p = self.players[seat]
        idc = p.identity
        return idc is not None and idc.face_up and idc.role == role

    @cython.locals(self=GameState, pa=Player, pb=Player, ia=IdentityCard, ib=IdentityCard)
    def is_opponent(self, a: int, b: int) -> bool:
        """Whether ``b`` is an opponent of ``a`` (CR 907.7g, TR3.11): everyone is
        everyone's opponent while face down; face-up Leader and Guardians are
        teammates, so are face-up Assassins; Traitors oppose everyone (CR 907.7f).
        Players without identity cards (Throne Magic, a free-for-all) are all
        each other's opponents (CR 102.3)."""
        if a == b:
            return False
        pa = self.players[a]
        pb = self.players[b]
        ia, ib = pa.identity, pb.identity
        if ia is None or ib is None or not (ia.face_up and ib.face_up):
            return True
        ta = team_of(ia.role)
        return ta is _TRAITOR or ta != team_of(ib.role)

    def _refresh_statics(self) -> None:
        self._statics = IA.static_keys(self)

    @cython.locals(self=GameState)
    def has_static(self, key: str) -> bool:
        """Whether a continuous effect named ``key`` of a face-up identity applies."""
        return key in self._statics

    @cython.locals(self=GameState, p=Player)
    def undercover_met(self, seat: int) -> bool:
        """CR 702.187f / TR5: another identity that isn't a Leader has been turned
        face up (unveiled or revealed), or a player other than ``seat`` attacked a
        Leader player, earlier in the game."""
        p = self.players[seat]
        own = p.identity.uid
        for u in self.revealed_identities:      # loops, not any(): no generator at every priority check
            if u != own:
                return True
        for s in self.leader_attacked_by:
            if s != seat:
                return True
        return False

    def can_unveil(self, seat: int, x: int = 0, ignore_cost: bool = False) -> bool:
        """Whether ``seat`` may take the unveil special action now with X = ``x``.

        CR 702.187c: the identity is face down, controlled by ``seat``, has an
        unveil cost, and the player has priority (skipped when ``ignore_cost``,
        which only asks about the rules restrictions); Undercover is met
        (CR 702.187f); the cost is payable with this X (mana, life, cards).
        X must be 0 for a cost without X (another X is False).

        Raises:
            ValueError: (one line naming the argument and the range) for a seat that
                is not an int from 0 to n - 1, an ``x`` that is not an int from 0
                to MAX_X (15), or an ``ignore_cost`` that is not a bool; a seat that
                may not unveil is False.
        """
        p = self.players[self._seat_arg(seat, "can_unveil")]
        x = self._int_arg(x, "can_unveil", "x", 0, MAX_X)
        ignore_cost = self._flag_arg(ignore_cost, "can_unveil", "ignore_cost")
        if p.has_lost or self.is_over:
            return False
        idc = p.identity
        cost = idc.unveil_cost
        if idc.face_up or cost is None:
            return False
        if cost.x == 0 and x != 0:
            return False
        if idc.undercover and not self.undercover_met(seat):
            return False
        if ignore_cost:
            return True
        if self.decision is not None and (self.decision.kind != DecisionKind.PRIORITY or self.decision.seat != seat):
            return False
        if not IA.unveil_cost_ok(self, seat, x):
            return False
        return self.available_mana(seat) >= self.unveil_cost_mana(seat, x)

    def unveil(self, seat: int, x: int = 0) -> None:
        """Take the unveil special action for ``seat`` with X = ``x`` (CR 702.187c):
        the same as stepping action ``layout.UNVEIL + x`` at ``seat``'s priority,
        so it is recorded in the replay.  Cost choices (a card to discard or
        exile) become decisions of ``seat``.

        Raises:
            ValueError: for a seat that is not an int from 0 to n - 1, or an ``x``
                that is not an int from 0 to MAX_X (15), in one line naming the
                argument and the range; if the identity can't be unveiled (face up,
                no unveil cost, X not allowed, Undercover not met), the cost can't
                be paid, or ``seat`` does not hold priority.
        """
        seat = self._seat_arg(seat, "unveil")
        x = self._int_arg(x, "unveil", "x", 0, MAX_X)
        if not self.can_unveil(seat, x, ignore_cost=True):
            raise ValueError(f"seat {seat} cannot unveil now (face up, no unveil cost, X={x} not allowed, "
                             f"or Undercover not met)")
        if not IA.unveil_cost_ok(self, seat, x) or self.available_mana(seat) < self.unveil_cost_mana(seat, x):
            raise ValueError(f"seat {seat} cannot pay the unveil cost of {self.players[seat].identity.name} with X={x}")
        d = self.decision
        if d is None or d.kind != DecisionKind.PRIORITY or d.seat != seat:
            who = "nobody" if d is None else f"seat {d.seat} ('{d.prompt}')"
            raise ValueError(f"seat {seat} cannot unveil now: it does not hold priority (CR 702.187c); "
                             f"the pending decision is {who}")
        self.step(self.layout.UNVEIL + x)   # recorded like any action, so replays include it

    def _begin_unveil(self, seat: int, x: int) -> None:
        idc = self.players[seat].identity
        cost = idc.unveil_cost
        self._log("unveil_cost", seat=seat, identity=idc.name, x=x)  # shown to all (CR 702.187c)
        self._pay_mana(seat, self.unveil_cost_mana(seat, x))
        if cost.life:
            self._lose_life(seat, cost.life, paid=True)
        ops = []
        if cost.y:      # {Y}: one more number, chosen after X; 1 Y is already paid above
            ops.append(("choose_y", seat, x))
        if cost.sacrifice:
            for _ in range(cost.sacrifice["count"]):
                ops.append(("cost_sacrifice", seat, cost.sacrifice.get("filter", "")))
        for kind in ("discard", "exile_from_hand"):
            spec = getattr(cost, kind)
            if spec:
                for _ in range(spec["count"]):
                    ops.append(("cost_card", seat, kind, spec.get("filter", "")))
        ops.append(("turn_face_up", seat, x, True))
        self._push_front(ops)

    def _op_turn_face_up(self, seat: int, x: int, unveiled: bool) -> None:
        """Turn ``seat``'s identity face up.  ``unveiled``: as part of the unveil
        special action (triggers "when unveiled", CR 314.8); else a reveal."""
        if self.players[seat].has_lost:     # left while paying the cost: nothing turns face up
            return
        idc = self.players[seat].identity
        idc.face_up = True
        idc.known_by = set(range(self.n))
        idc.x = x if unveiled else 0
        if idc.role != Role.LEADER:
            self.revealed_identities.add(idc.uid)
        self._log("unveil" if unveiled else "reveal", seat=seat, identity=idc.name, x=idc.x)
        self._refresh_statics()
        if unveiled:
            IA.on_unveiled(self, seat)

    def turn_face_down(self, seat: int) -> None:
        """Turn ``seat``'s identity face down again (The Gatekeeper, The Ferryman).
        Players who saw it may remember it (TR4.8): ``known_by`` keeps everyone
        who saw it face up.  A copy effect on it ends (TR8.8)."""
        idc = self.players[seat].identity
        self._log("face_down", seat=seat, identity=idc.name)
        idc.face_up = False
        idc.copy_of = None
        idc.role_override = None
        self._refresh_statics()

    def copy_identity(self, seat: int, source: "str | ids.Identity", keep_role: bool = True) -> None:
        """``seat``'s identity becomes a copy of ``source`` (CR 314.11, TR8.8): it takes
        the copied name, abilities and unveil cost; with ``keep_role`` it keeps its
        own role (The Wearer of Masks stays a Traitor).  A face-down copy still has
        no characteristics for others; the copy ends when the card is turned face
        down (:meth:`turn_face_down`).

        Raises:
            ValueError: for an unknown identity name.
        """
        src = ids.get(source) if isinstance(source, str) else source
        idc = self.players[seat].identity
        role = idc.role
        idc.copy_of = src
        idc.role_override = role if keep_role else None
        if idc.face_up:
            self._log("copy_identity", seat=seat, identity=src.name)
        else:
            self._log("copy_identity", to=sorted(idc.known_by | {seat}), seat=seat, identity=src.name)
        self._refresh_statics()

    def set_identity_control(self, identity: IdentityCard, seat: int, face_down: bool | None = None) -> None:
        """Give control of ``identity`` to ``seat`` (TR8): the player's role and team
        become that identity's at once, and the new controller may look at it
        (CR 314.9).  A non-Leader identity that changes hands is turned face down
        unless ``face_down`` is False; a Leader stays face up (TR8.4).  This is the
        single-card step; :meth:`redistribute_identities` and
        :meth:`take_identity` keep every player at exactly one identity (TR8.3)."""
        old = identity.controller
        identity.controller = seat
        self.players[seat].identity = identity
        identity.known_by.add(seat)
        if face_down is None:
            face_down = identity.role != Role.LEADER
        if face_down and identity.face_up and identity.role != Role.LEADER:
            identity.face_up = False
            identity.copy_of = None
            identity.role_override = None
        self._log("identity_control", seat=seat, previous=old,
                  identity=identity.name if identity.face_up else None)
        self._refresh_statics()

    def redistribute_identities(self, assignment: dict[int, IdentityCard]) -> None:
        """Move identities among players at once (TR8.7, The Puppet Master): seat
        ``s`` gets ``assignment[s]``.  The assigned cards must be exactly the cards
        those seats control, so every player still controls one identity (TR8.3);
        moved non-Leader identities turn face down, Leaders stay face up (TR8.4);
        each player's role and team follow the card at once (TR8.2).

        Raises:
            ValueError: if a seat is out of the game, or the cards are not a
                permutation of the identities those seats control.
        """
        seats = sorted(assignment)
        for s in seats:
            if not (isinstance(s, int) and 0 <= s < self.n) or self.players[s].has_lost:
                raise ValueError(f"redistribute_identities: seat {s!r} is not a player in the game")
        before = sorted(self.players[s].identity.uid for s in seats)
        after = sorted(c.uid for c in assignment.values())
        if before != after:
            raise ValueError("redistribute_identities: the cards must be a permutation of the identities "
                             f"that seats {seats} control (each player keeps exactly one, TR8.3)")
        for s in seats:
            card = assignment[s]
            if card.controller != s:
                self.set_identity_control(card, s)
        self._dirty = True

    def take_identity(self, taker: int, victim: int) -> None:
        """``taker`` takes control of ``victim``'s identity as ``victim`` loses (The
        Metamorph, TR8.5-8.6): the taker's own identity leaves the game, the taken
        one turns face down unless it is a Leader, and the victim keeps the team of
        the identity they controlled as their last-known team.  Call it, then
        :meth:`lose` the victim: a taken Leader identity keeps the Leader team in
        the game.

        Raises:
            ValueError: if either seat is out of the game or they are the same.
        """
        if taker == victim or self.players[taker].has_lost or self.players[victim].has_lost:
            raise ValueError(f"take_identity: seats {taker} and {victim} must be two different players in the game")
        v = self.players[victim]
        card = v.identity
        v.last_role = card.role
        v.last_team = team_of(card.role)
        own = self.players[taker].identity
        own.in_game = False
        self._log("identity_removed", seat=taker, identity=own.name if own.face_up else None)
        self.set_identity_control(card, taker)
        v.identity = IdentityCard(self._new_uid(), card.identity, victim)   # a record of what they had
        v.identity.face_up = card.face_up
        v.identity.in_game = False
        v.identity.known_by = set(card.known_by)
