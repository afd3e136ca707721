"""Traitor identity cards of TRD-2025 (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..actions import MAX_CHOICE
from ..identity_abilities import (Activated, IdentityImpl, register,
                                  register_callbacks, targets_of)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, IdentityCard, StackItem


# The Banisher: exile any number of target creatures; draw a card for each
# nontoken creature exiled this way.
def _banisher_unveil(game: "Game", item: "StackItem") -> None:
    n = 0
    for _, c in targets_of(item, "c"):
        # a token ceases to exist; a commander goes to the command zone instead
        # (CR 903.9b, always chosen here): neither was "exiled this way"
        counts = not c.token and not (c.is_commander and game.config.commander)
        if game.exile_creature(c) and counts:
            n += 1
    game.draw(item.controller, n)


register(IdentityImpl("The Banisher", on_unveil="_banisher_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "creature", "min": 0, "max": 99}]))


# The Gatekeeper: create Cerberus (legendary 4/8 menace, double strike, trample,
# lifelink); {2}: turn The Gatekeeper face down.
def _gatekeeper_unveil(game: "Game", item: "StackItem") -> None:
    game.create_tokens(item.controller, "Cerberus", 1)


def _gatekeeper_face_down(game: "Game", item: "StackItem") -> None:
    idc = game.players[item.controller].identity
    if idc.name == "The Gatekeeper" and idc.face_up:
        game.turn_face_down(item.controller)


register(IdentityImpl("The Gatekeeper", on_unveil="_gatekeeper_unveil",
                       activated=(Activated("{2}: turn The Gatekeeper face down", "_gatekeeper_face_down", mana=2),)))


# The Grenadier ({X}): create X+3 Explosive tokens; {1}, sacrifice an Explosive:
# choose one - destroy target nonland permanent; or target player loses 3 life.
# Planeswalkers are nonland permanents it can destroy (docs/fidelity.md).
_GRENADIER_PERMANENT = {"type": "nonland_permanent", "walkers": True}


def _grenadier_unveil(game: "Game", item: "StackItem") -> None:
    game.create_tokens(item.controller, "Explosive", item.x + 3)


def _grenadier_pay(game: "Game", seat: int, item: "StackItem") -> None:
    game.players[seat].tokens["Explosive"] -= 1


def _grenadier_prepare(game: "Game", item: "StackItem") -> None:
    L = game.layout
    seat = item.controller
    opts = []
    if game.target_candidates(seat, _GRENADIER_PERMANENT):
        opts.append((L.CHOICE + 0, 0))
    if game.target_candidates(seat, {"type": "player"}):
        opts.append((L.CHOICE + 1, 1))
    names = ("destroy target nonland permanent", "target player loses 3 life")
    game.ask(seat, 7, opts, "_grenadier_mode", item, "choose a mode", labels=[names[m] for _, m in opts])


def _grenadier_mode(game: "Game", item: "StackItem", mode: int) -> None:
    item.data["mode"] = mode
    spec = _GRENADIER_PERMANENT if mode == 0 else {"type": "player"}
    game.then(("choose_target", item, spec, 1))


def _grenadier_explode(game: "Game", item: "StackItem") -> None:
    for kind, obj in targets_of(item):
        if kind in ("c", "w"):          # a creature or a planeswalker (CR 701.8)
            game.destroy(obj)
        else:
            game.lose_life(obj, 3, source_seat=item.controller)


register(IdentityImpl("The Grenadier", on_unveil="_grenadier_unveil",
                       activated=(Activated("{1}, sacrifice an Explosive: destroy target nonland permanent "
                                            "or target player loses 3 life", "_grenadier_explode", mana=1,
                                            extra_ok=lambda g, s: g.players[s].tokens["Explosive"] > 0,
                                            pay=_grenadier_pay, prepare="_grenadier_prepare"),)))


# The Oneiromancer ({X}{X}): exile the top X cards of each library face down; you
# may look at them; once each turn you may cast one of them without paying its
# mana cost, and when you do, exile the top card of target player's library face
# down too.
ONEIROMANCER = "The Oneiromancer"


def may_look_at_pile(idc: "IdentityCard", seat: int) -> bool:
    """Whether ``seat``, controlling the identity card ``idc``, may look at the
    face-down pile kept on it (``idc.data["dream"]``; the view's and the
    observation's ``dream``): only while the card is face up (CR 314.4b: a
    face-down identity has no abilities), and only if it is The Oneiromancer
    (or a copy of it), whose abilities are linked to the pile (CR 607), or
    ``seat`` controlled a trigger that exiled cards into it ("you may look at
    them": The Reflector's controller who took the trigger).  A later holder
    of a thief's card, which has no ability linked to the pile, may not."""
    data = idc.data
    if not idc.face_up or "dream" not in data:
        return False
    card = idc.copy_of or idc.identity
    return card.name == ONEIROMANCER or seat in data.get("dream_seen_by", ())


def _pile(idc: "IdentityCard", seat: int) -> list:
    """The face-down pile on ``idc`` into which a trigger ``seat`` controls
    exiles cards; ``seat`` may look at them (:func:`may_look_at_pile`)."""
    seen = idc.data.setdefault("dream_seen_by", [])
    if seat not in seen:
        seen.append(seat)
    return idc.data.setdefault("dream", [])


def _oneiro_unveil(game: "Game", item: "StackItem") -> None:
    idc = game.players[item.controller].identity
    pile = _pile(idc, item.controller)
    for s in game._apnap():
        lib = game.players[s].library
        k = min(item.x, len(lib))
        for _ in range(k):
            pile.append((s, lib.pop()))
        if k:       # from whose library is public, as the library sizes are
            game._log("exile_face_down", seat=item.controller, n=k, owner=s)


def _oneiro_castable(game: "Game", seat: int) -> list:
    """Indices of the pile's cards ``seat`` may cast now: "without paying its
    mana cost" changes no timing (CR 601.3), so a sorcery-speed card needs
    sorcery timing and an instant or a creature with flash (CR 702.8) doesn't."""
    idc = game.players[seat].identity
    sorcery = game._sorcery_timing(seat)
    out = []
    for k, (owner, c) in enumerate(idc.data.get("dream", [])):
        if c.is_land or game.players[owner].has_lost:
            continue
        if (sorcery or c.instant_speed) and game.castable_targets(seat, c):
            out.append(k)
    return out[:MAX_CHOICE]


def _oneiro_prepare(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    idc = game.players[seat].identity
    L = game.layout
    ks = _oneiro_castable(game, seat)
    pile = idc.data["dream"]
    game.ask(seat, 8, [(L.CHOICE + j, k) for j, k in enumerate(ks)], "_oneiro_cast", item,
             "choose an exiled card to cast for free", labels=[pile[k][1].name for k in ks])


def _oneiro_cast(game: "Game", item: "StackItem", k: int) -> None:
    """Casting the card is the ability's effect (abstraction: the free cast and
    its reflexive trigger happen on activation, not through a separate stack
    object)."""
    from ..engine import StackItem
    seat = item.controller
    idc = game.players[seat].identity
    owner, card = idc.data["dream"].pop(k)
    item.data["skip"] = True
    reflex = StackItem(game._new_uid(), "trigger", seat, source=idc.name, key="_oneiro_reflex", identity_source=True)
    reflex.data["resolve"] = "_oneiro_reflex"
    reflex.data["specs"] = [{"type": "player"}]
    game.add_trigger(reflex)
    game._begin_cast(seat, card, "exile", free=True, owner=owner, source=idc.name)


def _oneiro_reflex(game: "Game", item: "StackItem") -> None:
    idc = game.players[item.controller].identity
    for _, s in targets_of(item, "p"):
        lib = game.players[s].library
        if lib:
            _pile(idc, item.controller).append((s, lib.pop()))
            game._log("exile_face_down", seat=item.controller, n=1, owner=s)


def _oneiro_noop(game: "Game", item: "StackItem") -> None:
    """The activation already cast the card (see :func:`_oneiro_cast`)."""


register(IdentityImpl("The Oneiromancer", on_unveil="_oneiro_unveil",
                       activated=(Activated("cast one of the exiled cards without paying its mana cost",
                                            "_oneiro_noop", once_per_turn=True,
                                            extra_ok=lambda g, s: bool(_oneiro_castable(g, s)),
                                            prepare="_oneiro_prepare"),)))


register_callbacks(globals())
