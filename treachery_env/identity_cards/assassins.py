"""Assassin identity cards of TRD-2025 (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import MAX_CHOICE
from ..identity_abilities import (IdentityImpl, copy_on_stack, register,
                                  register_callbacks, targets_of)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, StackItem


# The Ambitious Queen (pay 1 life, exile a nonland card from hand): counter
# target noncreature spell.
def _queen_unveil(game: "Game", item: "StackItem") -> None:
    for _, it in targets_of(item, "s"):
        game.counter(it)


register(IdentityImpl("The Ambitious Queen", on_unveil="_queen_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "noncreature_spell"}]))


# The Beastmaster: up to two target players each create two 4/4 Beasts with trample.
def _beastmaster_unveil(game: "Game", item: "StackItem") -> None:
    for _, s in targets_of(item, "p"):
        game.create_tokens(s, "Beast", 2)


register(IdentityImpl("The Beastmaster", on_unveil="_beastmaster_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player", "min": 0, "max": 2}]))


# The Chaos Wielder: choose a card type; your spells of that type have cascade
# this turn.  The types offered are those of the substrate's spells (CR 205.2a;
# a planeswalker card is cast too); naming another type would do nothing.
CASCADE_TYPES = ("creature", "instant", "sorcery", "planeswalker")


def _chaos_unveil(game: "Game", item: "StackItem") -> None:
    L = game.layout
    game.ask(item.controller, 7, [(L.CHOICE + k, t) for k, t in enumerate(CASCADE_TYPES)], "_chaos_type",
             item.controller, "choose a card type", labels=list(CASCADE_TYPES))


def _chaos_type(game: "Game", seat: int, t: str) -> None:
    """The effect lasts the rest of the turn whatever happens to the Wielder (CR
    611.2a: an effect of a resolved ability): an ``on:cast`` effect in
    ``game.effects``, removed in cleanup, not an ability of the face-up card."""
    game.effects.append({"kind": "on:cast", "fn": "_cascade_on_cast", "controller": seat, "until": "eot",
                         "card_type": t})
    game._log("chaos_type", seat=seat, card_type=t)


def _cascade_on_cast(game: "Game", effect: dict, kw: dict) -> None:
    """CR 702.85a: when you cast a spell with cascade, exile cards from the top of
    your library until a nonland card with lesser mana value; you may cast it
    without paying its cost; the rest go to the bottom in a random order.  The
    Chaos Wielder's effect gives cascade to its controller's spells of the named
    type (copies aren't cast, CR 707.10)."""
    from ..engine import StackItem
    item = kw["item"]
    if (item.kind != "spell" or item.is_copy or item.controller != effect["controller"]
            or item.card.type != effect["card_type"]):
        return
    seat = item.controller
    trig = StackItem(game._new_uid(), "trigger", seat, source="cascade", key="cascade", identity_source=False)
    trig.data["resolve"] = "_cascade_resolve"
    trig.data["mv"] = item.card.cost + item.x
    trig.data["ident"] = True
    game.add_trigger(trig)


def _cascade_resolve(game: "Game", item: "StackItem") -> None:
    """CR 702.85a: the cards are exiled face up, so the log names them (``exiled``, in
    the order exiled) with the hit (``card``; None when the library ran out first)."""
    seat = item.controller
    p = game.players[seat]
    exiled = []
    hit = None
    while p.library:
        c = p.library.pop()
        if not c.is_land and c.cost < item.data["mv"]:
            hit = c
            break
        exiled.append(c)
    game._log("cascade", seat=seat, card=None if hit is None else hit.name, exiled=[c.name for c in exiled])
    if hit is None:
        _cascade_bottom(game, seat, exiled)
        return
    L = game.layout
    if game.castable_targets(seat, hit):
        game.ask(seat, 12, [(L.CHOICE + 0, True), (L.PASS, False)], "_cascade_cast", (seat, hit, exiled),
                 f"cast {hit.name} without paying its mana cost?", labels=["cast it", "don't"])
    else:
        _cascade_bottom(game, seat, exiled + [hit])


def _cascade_bottom(game: "Game", seat: int, cards: list) -> None:
    """The exiled cards that weren't cast go to the bottom in a random order."""
    game.rng.shuffle(cards)
    game.players[seat].library[:0] = cards


def _cascade_cast(game: "Game", data: tuple, yes: bool) -> None:
    seat, card, exiled = data
    if yes:
        _cascade_bottom(game, seat, exiled)
        game._begin_cast(seat, card, "exile", free=True, source="The Chaos Wielder")
    else:
        _cascade_bottom(game, seat, exiled + [card])


register(IdentityImpl("The Chaos Wielder", on_unveil="_chaos_unveil"))


# The Demon: target player searches their library for a card, puts it into
# their hand, then shuffles.
def _demon_unveil(game: "Game", item: "StackItem") -> None:
    for _, s in targets_of(item, "p"):
        p = game.players[s]
        names = sorted({c.index: c for c in p.library}.values(), key=lambda c: c.index)[:MAX_CHOICE]
        L = game.layout
        if not names:
            game.rng.shuffle(p.library)
            continue
        game.ask(s, 8, [(L.CHOICE + k, c.name) for k, c in enumerate(names)], "_demon_pick", s,
                 "search your library for a card", labels=[c.name for c in names])


def _demon_pick(game: "Game", s: int, name: str) -> None:
    p = game.players[s]
    k = next(i for i, c in enumerate(p.library) if c.name == name)
    p.hand.append(p.library.pop(k))
    game.rng.shuffle(p.library)
    game._log("tutor", seat=s)


register(IdentityImpl("The Demon", on_unveil="_demon_unveil", unveil_specs=lambda g, s, x: [{"type": "player"}]))


# The Seer ({X}): shuffle, scry X, reveal the top card and put it into your hand;
# if it's a nonland card, the Seer deals twice its mana value to any target.
def _seer_unveil(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    p = game.players[seat]
    game.rng.shuffle(p.library)
    n = min(item.x, len(p.library))
    ops = [("call", "_seer_scry", seat, k) for k in range(n)]
    ops.append(("call", "_seer_reveal", item))
    game.then(*ops)
    game.then(("call", "_seer_scry_start", seat, n))


def _seer_scry_start(game: "Game", seat: int, n: int) -> None:
    """Scry N (CR 701.22): the top N cards are looked at in turn; each stays on
    top or goes to the bottom (abstraction: kept cards keep their order)."""
    p = game.players[seat]
    game.turn_effects["scry"] = {"seat": seat, "cards": [p.library.pop() for _ in range(n)], "top": [], "bottom": []}


def _seer_scry(game: "Game", seat: int, k: int) -> None:
    sc = game.turn_effects["scry"]
    c = sc["cards"][k]
    L = game.layout
    game.ask(seat, 11, [(L.CHOICE + 0, ("top", c)), (L.CHOICE + 1, ("bottom", c))], "_seer_place", sc,
             f"scry: keep {c.name} on top or put it on the bottom", labels=["top", "bottom"])


def _seer_place(game: "Game", sc: dict, choice: tuple) -> None:
    sc[choice[0]].append(choice[1])


def _seer_reveal(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    p = game.players[seat]
    sc = game.turn_effects.pop("scry", None)
    if sc is not None:
        p.library[:0] = sc["bottom"]
        p.library.extend(reversed(sc["top"]))
    if not p.library:
        return
    top = p.library.pop()
    p.hand.append(top)
    game._log("reveal_top", seat=seat, card=top.name)
    if not top.is_land and top.cost > 0:
        from ..engine import StackItem
        reflex = StackItem(game._new_uid(), "trigger", seat, source=item.source, key="seer_reflex",
                           identity_source=True)
        reflex.data["resolve"] = "_seer_damage"
        reflex.data["n"] = 2 * top.cost
        reflex.data["specs"] = [{"type": "any"}]
        game.add_trigger(reflex)


def _seer_damage(game: "Game", item: "StackItem") -> None:
    for t in targets_of(item):
        game.damage(item.controller, t, item.data["n"], source_name=item.source)


register(IdentityImpl("The Seer", on_unveil="_seer_unveil"))


# The Sigil Mage: you may cast up to two instant or sorcery cards from any
# graveyards without paying their mana costs (abstraction: chosen on resolution).
def _sigil_options(game: "Game", seat: int, exclude: tuple = ()) -> list:
    out = []
    for p in game.players:
        if p.has_lost:
            continue
        seen = set()
        for c in p.graveyard:
            if c.type in ("instant", "sorcery") and (p.seat, c.name) not in seen and (p.seat, c.name) not in exclude:
                if game.castable_targets(seat, c):
                    seen.add((p.seat, c.name))
                    out.append((p.seat, c))
    return out[:MAX_CHOICE - 1]


def _sigil_unveil(game: "Game", item: "StackItem") -> None:
    """The Sigil Mage.  Abstraction: the card *targets* up to two instant or
    sorcery cards in graveyards; here they are chosen on resolution, one after
    the other (the second once the first is on the stack), among those whose
    own targets exist, and cast without paying their mana cost.  A cast card
    goes back to its owner's graveyard after resolving."""
    game.then(("call", "_sigil_offer", item.controller, 2))


def _sigil_offer(game: "Game", seat: int, left: int) -> None:
    if left <= 0:
        return
    opts = _sigil_options(game, seat)
    if not opts:
        return
    L = game.layout
    game.ask(seat, 8, [(L.PASS, None)] + [(L.CHOICE + k, o) for k, o in enumerate(opts)], "_sigil_cast",
             (seat, left), "cast an instant or sorcery from a graveyard for free?",
             labels=["none"] + [f"{c.name} (P{s})" for s, c in opts])


def _sigil_cast(game: "Game", data: tuple, choice: Any) -> None:
    seat, left = data
    if choice is None:
        return
    owner, card = choice
    game.players[owner].graveyard.remove(card)
    # the second card is offered once the first is on the stack
    game.then(("call", "_sigil_offer", seat, left - 1))
    game._begin_cast(seat, card, "graveyard", free=True, owner=owner, source="The Sigil Mage")


register(IdentityImpl("The Sigil Mage", on_unveil="_sigil_unveil"))


# The Sorceress: you may choose new targets for target instant or sorcery spell,
# then copy it; you may choose new targets for the copy.
def _sorceress_unveil(game: "Game", item: "StackItem") -> None:
    for _, spell in targets_of(item, "s"):
        if spell not in game.stack:
            continue
        ops = [("call", "_retarget", item.controller, spell, k) for k in range(len(spell.targets))]
        ops.append(("call", "_sorceress_copy", item.controller, spell))
        game.then(*ops)


def _sorceress_copy(game: "Game", seat: int, spell: "StackItem") -> None:
    """CR 707.10: a copy of the spell, controlled by ``seat``, put on the stack;
    its targets may be changed."""
    copy_on_stack(game, spell, seat)


register(IdentityImpl("The Sorceress", on_unveil="_sorceress_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "instant_sorcery_spell"}]))


register_callbacks(globals())
