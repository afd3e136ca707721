"""Traitors identity cards of TRD-2025, mythic (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..actions import MAX_CHOICE, MAX_HAND
from ..identity_abilities import Activated, IdentityImpl, register, register_callbacks, targets_of

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, StackItem  # noqa: F401


# The Ferryman ({1}): choose target permanent; when it is put into a graveyard
# this turn, put a different card that shares a card type with it from that
# graveyard onto the battlefield under your control.  {3}, only during your
# turn, once each turn: turn The Ferryman face down.
def _ferry_unveil(game: "Game", item: "StackItem") -> None:
    """The Ferryman's "when unveiled" trigger: a delayed trigger watching the
    target until end of turn (CR 603.7), kept in ``game.effects`` as an
    ``"on:creature_left"`` effect so that it works even once The Ferryman is
    face down again.  Abstraction: permanents are the creatures (lands and
    artifact tokens are counts and can't be targeted, docs/fidelity.md), so the
    shared card type is always "creature"."""
    for _, c in targets_of(item, "c"):
        game.effects.append({"kind": "on:creature_left", "fn": "_ferry_watch", "controller": item.controller,
                             "until": "eot", "uid": c.uid})


def _ferry_watch(game: "Game", e: dict, kw: dict) -> None:
    from ..engine import StackItem
    c = kw["creature"]
    if c.uid != e["uid"]:
        return
    game.effects.remove(e)          # a creature that left is a new object if it ever comes back (CR 400.7)
    if kw["zone"] != "graveyard" or (c.is_commander and game.config.commander):
        return                      # exiled, bounced, or a commander sent to the command zone (CR 903.9)
    seat = e["controller"]
    if game.players[seat].has_lost or game.players[c.owner].has_lost:
        return
    # a token too went to the graveyard before ceasing to exist (CR 111.7, 704.5d)
    t = StackItem(game._new_uid(), "trigger", seat, source="The Ferryman", key="ferryman", identity_source=True)
    t.data["resolve"] = "_ferry_reanimate"
    t.data["owner"] = c.owner
    t.data["dead"] = None if c.token else c.card.name
    game.add_trigger(t)


def _ferry_reanimate(game: "Game", item: "StackItem") -> None:
    """Put a different creature card from that graveyard onto the battlefield
    under the Ferryman controller's control (chosen on resolution).  Copies of
    a card are interchangeable objects here, so "different card" leaves out one
    copy of the card that died (if it is still there)."""
    owner = item.data["owner"]
    gy = game.players[owner].graveyard
    if game.players[owner].has_lost:
        return
    cands = [c for c in gy if c.is_creature]
    dead = item.data["dead"]
    if dead is not None:
        k = next((i for i, c in enumerate(cands) if c.name == dead), None)
        if k is not None:
            cands.pop(k)
    seen: dict = {}
    for c in cands:
        seen.setdefault(c.name, c)
    opts = list(seen.values())[:MAX_CHOICE]
    L = game.layout
    game.ask(item.controller, 8, [(L.CHOICE + k, c) for k, c in enumerate(opts)], "_ferry_pick",
             (item.controller, owner), "choose a creature card to put onto the battlefield",
             labels=[c.name for c in opts])


def _ferry_pick(game: "Game", data: tuple, card) -> None:
    seat, owner = data
    gy = game.players[owner].graveyard
    if game.players[seat].has_lost or card not in gy:
        return
    gy.remove(card)
    game._log("reanimate", seat=seat, card=card.name, owner=owner)
    game.put_onto_battlefield(seat, card, owner=owner)


def _ferry_face_down(game: "Game", item: "StackItem") -> None:
    idc = game.players[item.controller].identity
    if idc.name == "The Ferryman" and idc.face_up:
        game.turn_face_down(item.controller)


register(IdentityImpl("The Ferryman", on_unveil="_ferry_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "permanent"}],
                       activated=(Activated("{3}, only during your turn, once each turn: turn The Ferryman "
                                            "face down", "_ferry_face_down", mana=3, once_per_turn=True,
                                            extra_ok=lambda g, s: g.active == s),)))


# He Who Comes To Save The Day ({2}): the next time target player would lose the
# game this turn, instead they shuffle their hand, graveyard and each permanent
# they own into their library, draw twelve cards, their life total becomes 12,
# then they may put any number of permanent cards with mana value 4 or less from
# their hand onto the battlefield.
def _savior_unveil(game: "Game", item: "StackItem") -> None:
    """A "lose_game" replacement effect until end of turn (CR 614, 616), used
    once.  The engine never offers it a concession or the Guardians' loss with
    the last Leader (TR6.10, TR6.3: ``Game.lose``)."""
    for _, s in targets_of(item, "p"):
        game.effects.append({"kind": "lose_game", "fn": "_savior_replace", "controller": item.controller,
                             "until": "eot", "seat": s})
        game._log("savior", seat=item.controller, target=s)


def _savior_replace(game: "Game", e: dict, ev: dict) -> None:
    s = e["seat"]
    if s not in ev["seats"] or game.players[s].has_lost:
        return
    ev["seats"].remove(s)
    if s in ev["empty_draw"]:
        ev["empty_draw"].remove(s)      # dealt with too: the loss is replaced, not kept from happening
    game.effects.remove(e)
    _savior_reset(game, s, e["controller"])


def _savior_reset(game: "Game", s: int, src: int) -> None:
    """The replacement: every loss reason of this event is dealt with at once
    (life, an empty-library draw: the check that found it has cleared it, CR
    704.5b; the twelve cards drawn from a library too small are a new attempt,
    which the next check finds).  Permanents they own are their creatures,
    wherever they are (tokens cease to exist, a commander goes to the command
    zone, CR 903.9b), their planeswalkers, their lands (counts: that many Wastes, the lands of the
    preset decks) and their artifact tokens (counts; they cease to exist).
    "Life becomes 12" is a gain or loss of the difference (CR 119.5), so
    life-change effects still apply.  Commander damage stays: 21 from one
    commander makes them lose again (the effect is used up)."""
    from .. import cards
    p = game.players[s]
    game._log("saved", seat=s)
    for q in game.players:
        for c in list(q.creatures):
            if c.owner == s and game._leave_battlefield(c, "library"):
                if not c.token and not (c.is_commander and game.config.commander):
                    p.library.append(c.card)
        for w in list(q.attackables):
            if w.owner == s and game._attackable_leaves(w, "library") and w.card is not None and not w.token:
                p.library.append(w.card)
    p.library.extend([cards.card("Wastes")] * p.lands)
    p.lands = p.lands_tapped = 0
    p.tokens = dict.fromkeys(p.tokens, 0)
    p.library.extend(p.hand)
    p.library.extend(p.graveyard)
    p.hand = []
    p.graveyard = []
    game.rng.shuffle(p.library)
    game.draw(s, 12)
    if p.life < 12:
        game.gain_life(s, 12 - p.life)
    elif p.life > 12:
        game.lose_life(s, p.life - 12, source_seat=src)
    game._dirty = True
    game.then(("call", "_savior_drop", s))


def _savior_drop(game: "Game", s: int) -> None:
    """Any number of permanent cards (creatures, planeswalkers, lands) with
    mana value 4 or less from hand onto the battlefield, one at a time (PASS: done).
    Asked while the hand (its size is public) is not empty, PASS alone where no
    card qualifies, so whether it is asked does not tell what the hand holds."""
    p = game.players[s]
    if p.has_lost or not p.hand:
        return
    L = game.layout
    opts = [(L.HAND + i, i) for i, c in enumerate(p.hand[:MAX_HAND])
            if (c.is_land or c.is_creature or c.is_planeswalker) and c.cost <= 4]
    game.ask(s, 8, [(L.PASS, None)] + opts, "_savior_put", s,
             "put a permanent card with mana value 4 or less onto the battlefield? (PASS: done)",
             labels=["done"] + [p.hand[i].name for _, i in opts])


def _savior_put(game: "Game", s: int, i) -> None:
    if i is None:
        return
    p = game.players[s]
    card = p.hand.pop(i)
    if card.is_land:
        p.lands += 1
        game._log("land_put", seat=s)
    elif card.is_planeswalker:
        game.put_planeswalker_onto_battlefield(s, card)
    else:
        game.put_onto_battlefield(s, card)
    game.then(("call", "_savior_drop", s))


register(IdentityImpl("He Who Comes To Save The Day", on_unveil="_savior_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player"}]))


register_callbacks(globals())
