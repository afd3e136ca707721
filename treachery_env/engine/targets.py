"""Targets (CR 115, 601.2c, 603.3d, 608.2b): legal candidates, their action
slots, choosing them and checking them again on resolution.  "Any target"
includes planeswalkers (CR 115.4); "target creature" does not; a
"permanent" / "nonland permanent" spec includes them only with
``"walkers": True`` (decided per card, docs/fidelity.md).
"""

from __future__ import annotations

from typing import Any, Iterator

from .. import identity_abilities as IA
from ..actions import MAX_PERMS, MAX_STACK
from ..cards import CardDef
from .state import Decision, DecisionKind, StackItem

__all__ = ["TargetsMixin"]

# the spec types whose targets are spells or abilities on the stack (the last kind of _iter_targets)
_STACK_TYPES = ("spell", "noncreature_spell", "instant_sorcery_spell", "stack_object", "instant_sorcery_or_ability")


class TargetsMixin:
    """Targets (CR 115, 601.2c, 603.3d, 608.2b): methods of :class:`~treachery_env.engine.game.Game`."""

    def _hexproof_from(self, target_seat: int, seat: int) -> bool:
        """Player hexproof (The Golem): Leader players can't be the target of
        spells or abilities their opponents control."""
        return (self.has_static("leaders_hexproof") and self.is_leader_player(target_seat)
                and self.is_opponent(target_seat, seat))

    def target_candidates(self, seat: int, spec: dict, item: StackItem | None = None,
                          chosen: list | None = None) -> list:
        """Legal targets for ``seat`` under ``spec`` (``{"type": ...}``).

        Returns:
            a list of ``("p", seat)``, ``("c", Creature)``, ``("w", Attackable)``
            (planeswalkers: for ``"any"`` (CR 115.4), and for ``"permanent"`` /
            ``"nonland_permanent"`` specs with ``"walkers": True``) or
            ``("s", StackItem)``.
        """
        return list(self._iter_targets(seat, spec, item, chosen))

    def _iter_targets(self, seat: int, spec: dict, item: StackItem | None = None,
                      chosen: list | None = None) -> Iterator[tuple]:
        """The targets of :meth:`target_candidates`, one by one, in its order
        (:meth:`_has_targets` stops at the first)."""
        t = spec["type"]
        chosen = chosen or []
        if t in ("any", "player", "leader_player"):
            for s in range(self.n):
                pl = self.players[s]
                if pl.has_lost or self._hexproof_from(s, seat):
                    continue
                if t == "leader_player" and not self.is_leader_player(s):
                    continue
                if spec.get("other") and s == seat:
                    continue
                if spec.get("opponent") and not self.is_opponent(seat, s):
                    continue
                if self.effects and IA.forbids(self, "target_player", seat=seat, target=s):
                    continue
                if ("p", s) in chosen:
                    continue
                yield ("p", s)
        if t in ("any", "creature", "nonland_permanent", "permanent"):
            for pl in self.players:
                if pl.has_lost:
                    continue
                for c in pl.creatures:
                    if spec.get("own") and c.controller != seat:
                        continue
                    if any(x[0] == "c" and x[1] is c for x in chosen):
                        continue
                    yield ("c", c)
        if t == "any" or (spec.get("walkers") and t in ("nonland_permanent", "permanent")):
            for pl in self.players:
                if pl.has_lost or not pl.attackables:
                    continue
                for w in pl.attackables:
                    if w.kind != "planeswalker" or (spec.get("own") and w.controller != seat):
                        continue
                    if any(x[0] == "w" and x[1] is w for x in chosen):
                        continue
                    yield ("w", w)
        if t in ("spell", "noncreature_spell", "instant_sorcery_spell", "stack_object",
                 "instant_sorcery_or_ability"):
            for it in self.stack:
                if it is item:
                    continue
                if t == "stack_object":
                    if it.identity_source:
                        continue
                elif t == "instant_sorcery_or_ability":      # any ability, identities' included
                    if it.is_spell and it.card.type not in ("instant", "sorcery"):
                        continue
                elif not it.is_spell:
                    continue
                elif t == "noncreature_spell" and it.card.is_creature:
                    continue
                elif t == "instant_sorcery_spell" and it.card.type not in ("instant", "sorcery"):
                    continue
                yield ("s", it)

    def castable_targets(self, seat: int, card: CardDef) -> bool:
        """Whether ``seat`` could choose targets to cast ``card`` now (CR 601.2c).  A
        creature spell has no targets: its enters ability targets as it triggers."""
        return card.is_creature or not card.targets or self._has_targets(seat, card.targets)

    def _has_targets(self, seat: int, specs: tuple) -> bool:
        """Whether every spec of ``specs`` that needs a target (``min``, default 1)
        has one: the first of :meth:`_iter_targets`."""
        for spec in specs:
            if spec.get("min", 1) > 0:
                # a spec of a stack type finds nothing on an empty stack (what _iter_targets would
                # find, without making a generator: a counterspell in hand asks this at every priority)
                if not self.stack and spec["type"] in _STACK_TYPES:
                    return False
                if next(self._iter_targets(seat, spec), None) is None:
                    return False
        return True

    def target_action(self, seat: int, target: tuple) -> int | None:
        """Action index that picks ``target`` for ``seat``, or None if it has no slot."""
        L = self.layout
        kind, obj = target
        if kind == "p":
            return L.PLAYER + self.rel(seat, obj)
        if kind == "c":
            slot = self.players[obj.controller].creatures.index(obj)
            return L.perm(self.rel(seat, obj.controller), slot) if slot < MAX_PERMS else None
        if kind == "w":
            return self.attackable_action(seat, obj)
        depth = len(self.stack) - 1 - self.stack.index(obj)
        return L.STACK + depth if depth < MAX_STACK else None

    def target_legal(self, seat: int, spec: dict, target: tuple, item: StackItem | None = None) -> bool:
        """Whether ``target`` is still legal for ``spec`` (checked on resolution, CR
        608.2b), every requirement of the spec included: a permanent ``"you
        control"`` (``"own"``, the Map token's) must still be ``seat``'s."""
        kind, obj = target
        if kind == "p":
            return any(t == target for t in self.target_candidates(seat, spec, item))
        if kind == "c":
            return (not self.players[obj.controller].has_lost and obj in self.players[obj.controller].creatures
                    and spec["type"] in ("any", "creature", "nonland_permanent", "permanent")
                    and (not spec.get("own") or obj.controller == seat))
        if kind == "w":
            t = spec["type"]
            return (not self.players[obj.controller].has_lost and obj in self.players[obj.controller].attackables
                    and (t == "any" or (spec.get("walkers") and t in ("nonland_permanent", "permanent")))
                    and (not spec.get("own") or obj.controller == seat))
        return obj in self.stack and any(t[1] is obj for t in self.target_candidates(seat, spec, item))

    def _op_choose_target(self, item: StackItem, spec: dict, upto: int) -> None:
        """Choose one target for ``item`` under ``spec``; ``upto`` more may follow.
        ``spec["min"] == 0`` makes the target optional (PASS = no more).
        CR 115.3: an object can't be chosen twice for one instance of the word
        "target", but may be for different ones (The Immortal): only targets
        already chosen under this spec (from index ``spec["_from"]``) are excluded."""
        seat = item.controller
        start = spec.get("_from", len(item.targets))
        cands = self.target_candidates(seat, spec, item, [t for t in item.targets[start:] if t is not None])
        opts = []
        for t in cands:
            a = self.target_action(seat, t)
            if a is not None:
                opts.append((a, t))
        optional = spec.get("min", 1) == 0 or (spec.get("_more", False) and not spec.get("exact"))
        if optional:
            opts.insert(0, (self.layout.PASS, None))
        if not opts:
            item.targets.append(None)
            item.target_specs.append(spec)
            return
        what = f"choose a target ({spec['type']}) for "
        self.decision = Decision(seat, DecisionKind.TARGET, opts, "_h_target", (item, spec, upto),
                                 what + item.source, label=what + item.label if item.label else None)

    def _h_target(self, ctx: tuple, target: Any) -> None:
        item, spec, upto = ctx
        if target is None:
            if not spec.get("_more"):
                item.targets.append(None)
                item.target_specs.append(spec)
            return
        start = spec.get("_from", len(item.targets))
        item.targets.append(target)
        item.target_specs.append(spec)
        if upto > 1:
            more = dict(spec, _more=True, _from=start)
            self._push_front([("choose_target", item, more, upto - 1)])
