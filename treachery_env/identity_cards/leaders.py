"""Leader identity cards of TRD-2025 (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..identity_abilities import (Activated, IdentityImpl, creature_options, register,
                                  register_callbacks, targets_of)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, IdentityCard, StackItem


# The Blood Empress: once each turn, when one or more creatures your opponents
# control leave the battlefield, choose two different modes.
EMPRESS_MODES = ("create a 0/1 Thrull", "create two Blood tokens", "tap or untap target creature",
                 "target opponent loses 2 life and you gain 2 life")


def _empress_left(game: "Game", idc: "IdentityCard", creature: Any, zone: str | None) -> None:
    """An opponent's creature left the battlefield, for any ``zone`` (or out of
    the game with its owner): the trigger, once each turn."""
    from ..engine import StackItem
    seat = idc.controller
    if not game.is_opponent(seat, creature.controller) or idc.used.get("trigger") == game.turn:
        return
    idc.used["trigger"] = game.turn
    t = StackItem(game._new_uid(), "trigger", seat, source=idc.name, key="empress", identity_source=True)
    t.data["resolve"] = "_empress_resolve"
    t.data["prepare"] = "_empress_prepare"
    game.add_trigger(t)


def _empress_prepare(game: "Game", item: "StackItem") -> None:
    item.data["modes"] = []
    game.then(("call", "_empress_ask", item), ("call", "_empress_ask", item))


def _empress_ask(game: "Game", item: "StackItem") -> None:
    L = game.layout
    seat = item.controller
    opts = []
    for m in range(4):
        if m in item.data["modes"]:
            continue
        if m == 2 and not game.target_candidates(seat, {"type": "creature"}):
            continue
        if m == 3 and not game.target_candidates(seat, {"type": "player", "opponent": True}):
            continue
        opts.append((L.CHOICE + m, m))
    game.ask(seat, 7, opts, "_empress_mode", item, "choose a mode", labels=[EMPRESS_MODES[m] for _, m in opts])


def _empress_mode(game: "Game", item: "StackItem", m: int) -> None:
    item.data["modes"].append(m)
    if m == 2:
        game.then(("choose_target", item, {"type": "creature", "mode": 2}, 1))
    elif m == 3:
        game.then(("choose_target", item, {"type": "player", "opponent": True, "mode": 3}, 1))


def _empress_resolve(game: "Game", item: "StackItem") -> None:
    """The Blood Empress's two modes.  Abstraction of "tap or untap target
    permanent": the target is a creature (lands and artifact tokens are counts)
    and it is toggled: a tapped one untaps, an untapped one taps (the only
    choices that change anything)."""
    seat = item.controller
    for m in item.data.get("modes", ()):
        if m == 0:
            game.create_tokens(seat, "Thrull", 1)
        elif m == 1:
            game.create_tokens(seat, "Blood", 2)
        else:
            t = next((t for t, s in zip(item.targets, item.target_specs) if s.get("mode") == m), None)
            if t is None:
                continue
            if m == 2:
                if t[1].tapped:
                    game.untap(t[1])
                else:
                    t[1].tapped = True
            else:
                game.lose_life(t[1], 2, source_seat=seat)
                game.gain_life(seat, 2)


register(IdentityImpl("The Blood Empress", events={"creature_left": _empress_left}))


# Her Seedborn Highness (starts with a seed counter per player): {2}, remove a
# seed counter, once each turn: untap each permanent you control.
def _seedborn_untap(game: "Game", item: "StackItem") -> None:
    p = game.players[item.controller]
    p.lands_tapped = 0
    for c in p.creatures:
        game.untap(c)
    game._log("untap_all", seat=p.seat)


register(IdentityImpl("Her Seedborn Highness", activated=(
    Activated("{2}, remove a seed counter: untap each permanent you control", "_seedborn_untap", mana=2,
              counter="seed", once_per_turn=True),)))


# The Old Ruler (+20 life, +1 starting and maximum hand size, from data): at your
# first upkeep, create a Blood, a Clue, a Food, a Map and a Treasure token.
def _old_ruler_upkeep(game: "Game", idc: "IdentityCard", seat: int) -> None:
    from ..engine import StackItem
    if seat != idc.controller or idc.data.get("first_upkeep_done"):
        return
    idc.data["first_upkeep_done"] = True
    t = StackItem(game._new_uid(), "trigger", seat, source=idc.name, key="old_ruler", identity_source=True)
    t.data["resolve"] = "_old_ruler_tokens"
    game.add_trigger(t)


def _old_ruler_tokens(game: "Game", item: "StackItem") -> None:
    for name in ("Blood", "Clue", "Food", "Map", "Treasure"):
        game.create_tokens(item.controller, name, 1)


register(IdentityImpl("The Old Ruler", events={"upkeep": _old_ruler_upkeep}))


# The Queen of Light (purification counters = players // 2): {3}, remove a
# purification counter: exile a permanent chosen on resolution.
def _light_exile(game: "Game", item: "StackItem") -> None:
    """The permanents that can be chosen are the objects: creatures (PERM
    actions) and planeswalkers (WALKER actions); not targeted, so hexproof
    doesn't matter.  Abstraction: lands and artifact tokens are counts and are
    not offered."""
    seat = item.controller
    cands = [c for p in game.players if not p.has_lost for c in p.creatures]
    opts = creature_options(game, seat, cands)
    for p in game.players:
        if p.has_lost:
            continue
        for w in p.attackables:
            a = game.attackable_action(seat, w) if w.kind == "planeswalker" else None
            if a is not None:
                opts.append((a, w))
    game.ask(seat, 8, opts, "_light_pick", None, "choose a permanent to exile")


def _light_pick(game: "Game", _data: Any, c: Any) -> None:
    """Exile the chosen creature (a commander goes to the command zone) or planeswalker."""
    game.exile_creature(c)


register(IdentityImpl("The Queen of Light", activated=(
    Activated("{3}, remove a purification counter: exile a permanent chosen on resolution", "_light_exile",
              mana=3, counter="purification"),)))


# The Void Tyrant (void counters = players // 2): {2}, remove a void counter:
# counter target spell or ability whose source isn't an identity.
def _void_counter(game: "Game", item: "StackItem") -> None:
    for _, it in targets_of(item, "s"):
        game.counter(it)


register(IdentityImpl("The Void Tyrant", activated=(
    Activated("{2}, remove a void counter: counter target spell or ability not from an identity",
              "_void_counter", mana=2, counter="void", specs=({"type": "stack_object"},)),)))


register_callbacks(globals())
