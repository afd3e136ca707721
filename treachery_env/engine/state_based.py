"""State-based actions (CR 704).
"""

from __future__ import annotations

from typing import Any

try:
    import cython
except ImportError:         # run from source without Cython: its decorators do nothing (_cython_shim)
    from .. import _cython_shim as cython

from ..actions import MAX_PERMS
from .state import Creature, Decision, DecisionKind, GameState, Player

__all__ = ["StateBasedMixin"]


class StateBasedMixin:
    """State-based actions (CR 704): methods of :class:`~treachery_env.engine.game.Game`."""

    @cython.locals(self=GameState, p=Player, c=Creature, t=cython.long, empty=cython.bint, dt=cython.bint, losers=list,
                   drew=list, dying=list, walkers=list, legend_groups=list)
    def _state_based_actions(self) -> bool:
        """CR 704, checked simultaneously; returns True if anything happened.
        Players at 0 or less life, who attempted to draw from an empty library
        since the last check, or who took 21 combat damage from one commander
        lose (CR 704.5a-c, 903.10a).  Each check reads and clears every player's
        record of such an attempt (``Player.drew_from_empty``): a player who
        survives it (a loss kept from happening) is not found again at a later
        check without a new attempt; the effects that replace losing read that
        reason in the loss event (:meth:`_lose`'s ``empty_draw``).  Creatures
        with 0 toughness or lethal damage die (CR 704.5f-g), and those with
        toughness greater than 0 dealt damage by a source with deathtouch since
        the last check are destroyed (CR 704.5h): each check reads and clears
        every creature's record of such damage (``Creature.deathtouched``);
        planeswalkers with 0 loyalty go to their owner's graveyard (CR 704.5i).
        The legend rule (CR 704.5j) asks each player with two or more legendary
        creatures of one name which one to keep (:meth:`_op_legend_rule`), right
        after the other state-based actions of the same check."""
        self._dirty = False
        losers = []
        drew = []
        leaving = self.leaving
        commander = self.config.commander
        for p in self.players:
            empty = p.drew_from_empty
            p.drew_from_empty = False       # CR 704.5b: an attempt "since the last time [they] were checked"
            if p.has_lost or (leaving and p.seat in leaving):      # lost already (CR 907.8a window)
                continue
            if empty:
                drew.append(p.seat)
            if p.life <= 0 or empty or (commander and p.cmd_damage and self._commander_loss(p)):
                losers.append(p.seat)
        dying = []
        legend_groups = []
        walkers = []
        for p in self.players:
            if p.attackables:           # CR 704.5i: 0 loyalty
                walkers += [w for w in p.attackables if w.kind == "planeswalker" and w.loyalty <= 0]
            if not p.creatures:
                continue
            legends: dict | None = None
            for c in p.creatures:
                t = c.toughness
                dt = c.deathtouched
                c.deathtouched = False      # CR 704.5h: damage "since the last time [they] were checked"
                if t <= 0 or (c.damage > 0 and c.damage >= t) or dt:
                    dying.append(c)
                elif c.legendary:
                    if legends is None:
                        legends = {}
                    legends.setdefault(c.name, []).append(c)
            if legends is not None:
                legend_groups += [(p.seat, same) for same in legends.values() if len(same) > 1]
        for c in dying:
            self.destroy(c)
        for w in walkers:
            self._attackable_leaves(w, "graveyard")
        if losers:
            self._lose(losers, "rules", False, drew)
            # a loss an effect kept from happening, the player still at 0 life (The Treacherous
            # Masochist; "can't lose") or their empty-library draw not dealt with (``drew``: He Who
            # Comes To Save The Day takes its seat out), is no state-based action performed
            # (CR 704.3): counted, it would make a cleanup step follow cleanup steps forever (CR 514.3a)
            losers = [s for s in losers if self.is_over or self.players[s].has_lost or s in self.leaving
                      or not (self.players[s].life <= 0 or s in drew
                              or (commander and self._commander_loss(self.players[s])))]
        if legend_groups:
            self._push_front([("legend_rule", seat, same) for seat, same in legend_groups])
        if self.planar is not None and not losers and self._planar_sba():
            return True             # CR 704.6f (engine/planechase.py)
        schemes = self.schemes is not None and self._scheme_sba()      # CR 904.10
        return bool(losers or dying or legend_groups or walkers or schemes)

    @cython.locals(self=GameState, p=Player)
    def _commander_loss(self, p: Player) -> bool:
        """CR 903.10a: 21 or more combat damage from one commander."""
        for v in p.cmd_damage.values():     # a loop, not any(): no generator made per player and check
            if v >= 21:
                return True
        return False

    def _op_legend_rule(self, seat: int, same: list) -> None:
        """CR 704.5j: ``seat`` chooses one of its legendary creatures named alike;
        the others are put into their owners' graveyards (they die)."""
        p = self.players[seat]
        same = [c for c in same if c in p.creatures]
        if p.has_lost or len(same) < 2:
            return
        L = self.layout
        opts = [(L.perm(0, p.creatures.index(c)), c) for c in same if p.creatures.index(c) < MAX_PERMS]
        if not opts:                    # none of them has an action slot: keep the newest
            opts = [(L.PASS, same[-1])]
        self.decision = Decision(seat, DecisionKind.KEEP, opts, "_h_legend_rule", (seat, same),
                                 f"legend rule: choose the {same[0].name} to keep")

    def _h_legend_rule(self, ctx: tuple, keep: Any) -> None:
        seat, same = ctx
        for c in same:
            if c is not keep:
                self.destroy(c)
        self._log("legend_rule", seat=seat, kept=keep.uid, name=keep.name, **self._labels(keep))
