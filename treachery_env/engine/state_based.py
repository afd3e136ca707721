"""State-based actions (CR 704).
"""

from __future__ import annotations


__all__ = ["StateBasedMixin"]


class StateBasedMixin:
    """State-based actions (CR 704).: methods of :class:`~treachery_env.engine.game.Game`."""

    def _state_based_actions(self) -> bool:
        """CR 704, checked simultaneously; returns True if anything happened.
        Players at 0 or less life, who drew from an empty library, or who took 21
        combat damage from one commander lose (CR 704.5a-c, 903.10a); creatures
        with 0 toughness, lethal damage or deathtouch damage die (CR 704.5f-h)."""
        self._dirty = False
        losers = []
        for p in self.players:
            if p.has_lost or p.seat in self.leaving:      # lost already (CR 907.8a window)
                continue
            if p.life <= 0 or p.drew_from_empty or (self.config.commander and any(v >= 21 for v in p.cmd_damage.values())):
                losers.append(p.seat)
        dying = []
        for p in self.players:
            legends: dict = {}
            for c in p.creatures:
                t = c.toughness
                if t <= 0 or (c.damage > 0 and (c.damage >= t or c.deathtouched)):
                    dying.append(c)
                elif c.legendary:
                    if c.name in legends:   # CR 704.5j legend rule: the newest one is kept (abstraction)
                        dying.append(legends[c.name])
                    legends[c.name] = c
        for c in dying:
            self.destroy(c)
        if losers:
            self.lose(losers)
        return bool(losers or dying)
