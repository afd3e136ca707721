"""Combat (CR 506-511, 802 multiplayer attacks): attackers, defending players,
blockers, first strike and combat damage, end of combat.  A creature attacks a
player or an attackable permanent (a planeswalker) an opponent controls (CR
506.3, 508.1b); its controller is the defending player and blocks for it (CR
509.1a); see :mod:`treachery_env.engine.attackables`.
"""

from __future__ import annotations

try:
    import cython
except ImportError:         # run from source without Cython: its decorators do nothing (_cython_shim)
    from .. import _cython_shim as cython

from .. import identity_abilities as IA
from ..actions import MAX_PERMS
from .state import Attackable, DecisionKind, Creature, Decision, GameState, Player

__all__ = ["CombatMixin"]


class CombatMixin:
    """Combat (CR 506-511, 802 multiplayer attacks): methods of :class:`~treachery_env.engine.game.Game`."""

    @cython.locals(self=GameState, p=Player)
    def can_attack(self, seat: int, defender: int) -> bool:
        """Whether ``seat`` may attack player ``defender`` (CR 506.2, 802: attack
        opponents only; The Golem: Leader players can't be attacked)."""
        if defender == seat:
            return False
        p = self.players[defender]
        if p.has_lost:
            return False
        if not self.is_opponent(seat, defender):
            return False
        if self.has_static("leaders_unattackable") and self.is_leader_player(defender):
            return False
        return not (self.effects and IA.forbids(self, "attack_player", seat=seat, target=defender))

    @cython.locals(self=GameState, p=Player, c=Creature, d=cython.long, out=list)
    def _attack_candidates(self) -> list[Creature]:
        """The active player's creatures that may be declared as attackers, in battlefield
        order; none when it may attack no player and no planeswalker.  Loops, not ``any()``
        and a comprehension, so that ``self`` and ``c`` are typed (a generator cannot use a
        typed ``self``): their fields are read in C."""
        seat = self.active
        for d in range(self.n):
            if self.can_attack(seat, d):
                break
        else:
            if not self.attackable_objects(seat):
                return []
        p = self.players[seat]
        out = []
        for c in p.creatures:
            if (c.attacking < 0 and not c.tapped and not c.has("defender")
                    and (c.entered_turn < self.turn or c.has("haste"))):
                out.append(c)      # CR 302.6: entered_turn is also the turn it last changed controller
        return out

    @cython.locals(self=GameState, p=Player)
    def _op_declare_attackers(self) -> None:
        seat = self.active
        p = self.players[seat]
        if p.has_lost:
            return
        L = self.layout
        opts = [(L.PASS, None)]
        for c in self._attack_candidates():
            slot = p.creatures.index(c)
            if slot < MAX_PERMS:
                opts.append((L.perm(0, slot), c))
        self.decision = Decision(seat, DecisionKind.ATTACKER, opts, "_h_attacker", seat,
                                 "declare attackers: choose a creature, or PASS when done")

    def _h_attacker(self, seat: int, c: Creature | None) -> None:
        if c is None:
            # CR 508.1f: attackers tap (unless vigilance); remember who attacked a Leader (Undercover)
            # an attack on a planeswalker isn't an attack on its controller (CR 506.3): it
            # counts neither in the public attack history nor for Undercover (the damage
            # it deals counts as harm to the controller, Game.harm)
            for a in self.combat_attackers:
                if not a.has("vigilance"):
                    a.tapped = True
                if a.attacking_obj is None:
                    self.attacks[seat][a.attacking] += 1
                    if self.is_leader_player(a.attacking):
                        self.leader_attacked_by.add(seat)
            if self.combat_attackers:
                # CR 508.8: the declare blockers and combat damage steps happen from now
                # on, even if every attacker is removed from combat before them (turn.py)
                self.turn_effects["attackers_declared"] = True
                self._log("attacks", seat=seat,
                          attackers=[[a.uid, a.name, a.attacking] if a.attacking_obj is None else
                                     [a.uid, a.name, a.attacking, a.attacking_obj.uid, a.attacking_obj.name]
                                     for a in self.combat_attackers],
                          **self._labels(*self.combat_attackers, *[a.attacking_obj for a in self.combat_attackers]))
            if self.combat_attackers or self.full_windows:
                self._open_priority()   # CR 508.2: players get priority once attackers are declared
            return
        L = self.layout
        opts = [(L.PLAYER + self.rel(seat, d), d) for d in range(self.n) if self.can_attack(seat, d)]
        for w in self.attackable_objects(seat):       # CR 506.3, 508.1b: or a planeswalker
            a = self.attackable_action(seat, w)
            if a is not None:
                opts.append((a, w))
        self.decision = Decision(seat, DecisionKind.DEFENDER, opts, "_h_defender", c,
                                 f"choose the player or planeswalker {c.label} attacks")

    def _h_defender(self, c: Creature, defender: "int | Attackable") -> None:
        """``c`` attacks ``defender``: a seat, or an attackable permanent whose
        controller becomes the defending player (CR 506.2, 508.1b)."""
        if isinstance(defender, Attackable):
            # an uncontrolled permanent (Throne Magic's Throne in the middle): no defending player, n
            c.attacking = defender.controller if defender.controller >= 0 else self.n
            c.attacking_obj = defender
        else:
            c.attacking = defender
            c.attacking_obj = None
        self.combat_attackers.append(c)
        self._push_front([("declare_attackers",)])

    def _op_declare_blockers(self) -> None:
        """Each defending player, in APNAP order, declares blockers (CR 509, 802.4)."""
        defenders = [s for s in self._apnap() if any(a.attacking == s for a in self.combat_attackers)]
        self._push_front([("block_for", d) for d in defenders] + [("blocks_done",)])

    def _block_options(self, seat: int) -> list:
        L = self.layout
        opts = [(L.PASS, None)]
        attackers = [a for a in self.combat_attackers if a.attacking == seat]
        for slot, c in enumerate(self.players[seat].creatures[:MAX_PERMS]):
            if c.tapped or c.blocking is not None:
                continue
            if any(self._can_block(c, a) for a in attackers):
                opts.append((L.perm(0, slot), c))
        return opts

    @staticmethod
    def _can_block(b: Creature, a: Creature) -> bool:
        return not a.has("flying") or b.has("flying") or b.has("reach")

    def _op_block_for(self, seat: int) -> None:
        if self.players[seat].has_lost:
            return
        self.decision = Decision(seat, DecisionKind.BLOCKER, self._block_options(seat), "_h_blocker", seat,
                                 "declare blockers: choose a creature, or PASS when done")

    def _h_blocker(self, seat: int, b: Creature | None) -> None:
        if b is None:
            return
        L = self.layout
        opts = []
        for a in self.combat_attackers:
            if a.attacking == seat and self._can_block(b, a):
                slot = self.players[a.controller].creatures.index(a)
                if slot < MAX_PERMS:
                    opts.append((L.perm(self.rel(seat, a.controller), slot), a))
        self.decision = Decision(seat, DecisionKind.BLOCKED, opts, "_h_blocked", (seat, b),
                                 f"choose the attacker {b.label} blocks")

    def _h_blocked(self, ctx: tuple, a: Creature) -> None:
        seat, b = ctx
        b.blocking = a
        a.blocked_by.append(b)
        a.was_blocked = True
        self._push_front([("block_for", seat)])

    def _op_blocks_done(self) -> None:
        """Menace (CR 702.110b): a creature with menace blocked by only one creature
        is an illegal block; that blocker is removed from combat (abstraction of
        the declare-again rule).  Then the blocks are logged."""
        for a in self.combat_attackers:
            if a.has("menace") and len(a.blocked_by) == 1:
                b = a.blocked_by.pop()
                b.blocking = None
                a.was_blocked = False
        pairs = [(b, a) for a in self.combat_attackers for b in a.blocked_by]
        if pairs:      # uids, and what the table sees of each pair: names and controllers
            self._log("blocks", blocks=[[b.uid, a.uid] for b, a in pairs],
                      names=[[b.name, b.controller, a.name, a.controller] for b, a in pairs],
                      **self._labels(*[x for pair in pairs for x in pair]))
        self._open_priority()   # CR 509.4: priority once blockers are declared

    def _combatants(self) -> list[Creature]:
        out = list(self.combat_attackers)
        for a in self.combat_attackers:
            out.extend(a.blocked_by)
        return out

    @staticmethod
    def _deals_combat_damage(c: Creature, first: bool, fs_done: set) -> bool:
        """Whether ``c`` deals combat damage in this damage step (CR 702.7b-c):
        in the first-strike step, creatures with first strike or double strike
        (remembered in ``fs_done``); in the regular step, double strikers and
        creatures that did not deal first-strike damage."""
        if first:
            deals = c.has("first_strike") or c.has("double_strike")
            if deals:
                fs_done.add(c.uid)
            return deals
        return c.has("double_strike") or c.uid not in fs_done

    def _op_combat_damage(self, first: bool) -> None:
        """CR 510: combat damage, all at once.  With ``first`` only first- and
        double-strike creatures deal damage (CR 702.7); otherwise creatures without
        first strike and double strikers.  An attacker assigns lethal damage to its
        blockers in declaration order, the rest to the last one or, with trample, to
        the player or planeswalker it attacks (CR 510.1c-d, 702.19c; deathtouch
        makes 1 lethal).  An unblocked creature attacking a planeswalker that has
        left the battlefield deals no combat damage (CR 506.4)."""
        events: list = []  # (source creature, target, amount)
        fs_done = self.turn_effects.setdefault("first_strikers", set())
        for a in list(self.combat_attackers):
            if a not in self.players[a.controller].creatures:
                continue
            if self._deals_combat_damage(a, first, fs_done) and a.power > 0:
                blockers = [b for b in a.blocked_by if b in self.players[b.controller].creatures]
                if not a.was_blocked:
                    tgt = self._attack_target(a)
                    if tgt is not None:
                        events.append((a, tgt, a.power))
                elif blockers:
                    left = a.power
                    for k, b in enumerate(blockers):
                        lethal = 1 if a.has("deathtouch") else max(0, b.toughness - b.damage)
                        last = k == len(blockers) - 1
                        amt = left if (last and not a.has("trample")) else min(left, lethal)
                        if amt:
                            events.append((a, ("c", b), amt))
                        left -= amt
                        if left <= 0:
                            break
                    if left > 0 and a.has("trample"):
                        tgt = self._attack_target(a)
                        if tgt is not None:
                            events.append((a, tgt, left))
                elif a.has("trample"):
                    tgt = self._attack_target(a)
                    if tgt is not None:
                        events.append((a, tgt, a.power))
            for b in a.blocked_by:
                if b not in self.players[b.controller].creatures:
                    continue
                if self._deals_combat_damage(b, first, fs_done) and b.power > 0:
                    events.append((b, ("c", a), b.power))
        total: dict = {}
        walkers: dict = {}
        named: dict = {}
        hits: list = []     # (source creature, planeswalker/Throne/Holding): damage dealt, not prevented
        for src, tgt, amt in events:
            dealt = self.damage(src.controller, tgt, amt, source_name=src.name, source_creature=src, combat=True)
            if dealt and tgt[0] == "p":
                total[tgt[1]] = total.get(tgt[1], 0) + dealt
            elif dealt and tgt[0] == "w":
                walkers[tgt[1].uid] = walkers.get(tgt[1].uid, 0) + dealt
                named[tgt[1].uid] = tgt[1]
                hits.append((src, tgt[1]))
        if self.social is not None and walkers:
            self._locations_taken(hits)     # Throne Magic: taking the Throne or a Holding dealt damage
        if self.schemes is not None and total:
            self._schemes_hit(total)        # Archenemy: ongoing schemes abandoned (CR 701.22)
        if events:
            extra = {"to_planeswalkers": {str(k): v for k, v in sorted(walkers.items())},
                     "planeswalkers": {str(w.uid): [w.name, w.controller] for w in named.values()},
                     **self._labels(*named.values())} if walkers else {}
            self._log("combat_damage", first_strike=first,
                      to_players={str(k): v for k, v in sorted(total.items())}, **extra)

    @cython.locals(self=GameState, p=Player, c=Creature)
    def _clear_combat(self) -> None:
        """End of combat (CR 511.3): every creature stops attacking and blocking."""
        for p in self.players:
            for c in p.creatures:
                c.attacking = -1
                c.attacking_obj = None
                c.blocked_by = []
                c.blocking = None
                c.was_blocked = False
        self.combat_attackers = []
