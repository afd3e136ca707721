"""Assassins identity cards of TRD-2025, mythic (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.

* The Bio-Engineer: six nut counters; {1} + a nut: +1/+1 counter and the
  creature becomes an artifact; {2} + two nuts: gain control of target artifact
  (artifact creatures marked in ``game.effects``, or a counted artifact token).
* The Depths Caller ({X}{3}): name creature, land or planeswalker, tap any
  number of them, tutor one of that type with mana value <= X + tapped onto the
  battlefield tapped.
* The Shapeshifting Slayer ({5}): if it's your turn (intervening if,
  ``IdentityImpl.unveil_if``), a token copy with menace, trample and haste of a
  creature or a creature card in a graveyard, exile, the stack or the command zone.

The comment above each card says what the Magic-lite substrate abstracts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import MAX_CHOICE
from ..identity_abilities import (Activated, IdentityImpl, creature_options, register,
                                  register_callbacks, targets_of)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Creature, Game, StackItem  # noqa: F401


# ---------------------------------------------------------------------------- The Bio-Engineer
# Unveil cost: sacrifice a nontoken permanent (paid by the engine: a COST decision
# over your nontoken creatures, a land being CHOICE 0).  When unveiled its
# controller gets six nut counters (player counters, CR 122.1).  Two activated
# abilities:  {1}, remove a nut counter from you: put a +1/+1 counter on target
# creature; it becomes an artifact in addition to its other types (no duration:
# for as long as that object stays on the battlefield, CR 611.2c/400.7).
# {2}, remove two nut counters from you: gain control of target artifact (no
# duration, CR 611.2a).
#
# Substrate: creatures have no card types besides "creature", so the artifact
# type given by the first ability is a continuous effect kept in
# ``game.effects`` as ``{"kind": "artifact", "uid": creature uid, "fn":
# "_bio_artifact_noop", "until": None}`` (plain data: survives clone / replays;
# never copied by a token copy, CR 707.2, as it is not a copiable value).  The
# other artifacts of the substrate are the counted noncreature artifact tokens
# (Treasure, Clue, Food, Blood, Map, Junk, Explosive): gaining control of one
# moves one token from its controller's count to yours.  Abstraction: such a
# token is chosen as the "target" while the ability is activated but, having no
# object, it is remembered in ``item.data`` rather than ``item.targets`` (the
# ability does nothing if that player no longer has such a token on
# resolution); the player's own artifacts are not offered as targets of the
# second ability (gaining control of them does nothing).
BIO_NUTS = 6
ARTIFACT = "artifact"


def _bio_artifact_noop(game: "Game", effect: dict, ev: dict) -> None:
    """The artifact-type effect is a marker; it replaces nothing."""


def bio_artifact_uids(game: "Game") -> set[int]:
    """Uids of creatures made artifacts by The Bio-Engineer's first ability (an
    object that left the battlefield never comes back with the same uid, so a
    stale uid matches nothing).  Other modules may use it."""
    return {e["uid"] for e in game.effects if e.get("kind") == ARTIFACT}


def bio_is_artifact(game: "Game", c: "Creature") -> bool:
    """Whether creature ``c`` is an artifact (see :func:`bio_artifact_uids`)."""
    return any(e.get("kind") == ARTIFACT and e["uid"] == c.uid for e in game.effects)


def _bio_prune(game: "Game") -> None:
    """Drop artifact marks of objects that left the battlefield (a creature that
    comes back is a new object, CR 400.7)."""
    if not any(e.get("kind") == ARTIFACT for e in game.effects):
        return
    live = {c.uid for p in game.players for c in p.creatures}
    game.effects = [e for e in game.effects if e.get("kind") != ARTIFACT or e["uid"] in live]


def _bio_nuts(game: "Game", seat: int) -> int:
    return game.players[seat].counters.get("nut", 0)


def _bio_unveil(game: "Game", item: "StackItem") -> None:
    """The Bio-Engineer, when unveiled: its controller gets six nut counters."""
    p = game.players[item.controller]
    p.counters["nut"] = p.counters.get("nut", 0) + BIO_NUTS
    game._log("player_counters", seat=item.controller, kind="nut", n=BIO_NUTS)


def _bio_pay(n: int):
    def pay(game: "Game", seat: int, item: "StackItem") -> None:
        game.players[seat].counters["nut"] -= n
    return pay


def _bio_counter(game: "Game", item: "StackItem") -> None:
    """First ability: a +1/+1 counter on the target creature; it becomes an artifact."""
    for _, c in targets_of(item, "c"):
        c.p1p1 += 1
        game._dirty = True
        _bio_prune(game)
        if not bio_is_artifact(game, c):
            game.effects.append({"kind": ARTIFACT, "fn": "_bio_artifact_noop", "controller": item.controller,
                                 "until": None, "uid": c.uid})
        game._log("becomes_artifact", seat=item.controller, creature=c.uid, name=c.name, **game._labels(c))


def _bio_steal_options(game: "Game", seat: int) -> list:
    """``[(action, choice)]``: artifact creatures other players control (PERM
    actions; choice ``("c", creature)``) and other players' artifact tokens
    (CHOICE actions; choice ``("t", owner seat, token name)``)."""
    from ..cards import COUNTER_TOKENS
    arts = bio_artifact_uids(game)
    out = []
    if arts:
        cands = [c for p in game.players if not p.has_lost and p.seat != seat
                 for c in p.creatures if c.uid in arts]
        out += [(a, ("c", c)) for a, c in creature_options(game, seat, cands)]
    L = game.layout
    k = 0
    for s in range(game.n):
        q = game.players[(seat + s) % game.n]
        if q.has_lost or q.seat == seat:
            continue
        for name in COUNTER_TOKENS:
            if q.tokens[name] > 0 and k < MAX_CHOICE:
                out.append((L.CHOICE + k, ("t", q.seat, name)))
                k += 1
    return out


def _bio_steal_ok(game: "Game", seat: int) -> bool:
    return _bio_nuts(game, seat) >= 2 and bool(_bio_steal_options(game, seat))


def _bio_steal_prepare(game: "Game", item: "StackItem") -> None:
    """Second ability, on activation: choose the target artifact."""
    opts = _bio_steal_options(game, item.controller)
    labels = [f"{ch[1].name} (P{ch[1].controller})" if ch[0] == "c" else f"a {ch[2]} token of P{ch[1]}"
              for _, ch in opts]
    game.ask(item.controller, 5, opts, "_bio_steal_target", item, "choose a target artifact", labels=labels)


def _bio_steal_target(game: "Game", item: "StackItem", choice: tuple) -> None:
    if choice[0] == "c":
        item.targets.append(("c", choice[1]))
        item.target_specs.append({"type": "creature", "artifact": True})
    else:
        item.data["token"] = (choice[1], choice[2])
        game._log("target_token", seat=item.controller, owner=choice[1], token=choice[2])


def _bio_steal(game: "Game", item: "StackItem") -> None:
    """Second ability: gain control of the target artifact (lasting)."""
    seat = item.controller
    if game.players[seat].has_lost:
        return
    for _, c in targets_of(item, "c"):
        if bio_is_artifact(game, c):        # still an artifact (CR 608.2b)
            game.gain_control(c, seat, source=item.source)
    tok = item.data.get("token")
    if tok is not None:
        owner, name = tok
        # recorded as a control effect: it ends if either player leaves (CR 800.4a)
        if game.gain_control_of_counted(seat, owner, name, source=item.source):
            game._log("gain_control_token", seat=seat, previous=owner, token=name)


register(IdentityImpl(
    "The Bio-Engineer", on_unveil="_bio_unveil",
    activated=(
        Activated("{1}, remove a nut counter: put a +1/+1 counter on target creature; it becomes an artifact",
                  "_bio_counter", mana=1, extra_ok=lambda g, s: _bio_nuts(g, s) >= 1, pay=_bio_pay(1),
                  specs=({"type": "creature"},)),
        Activated("{2}, remove two nut counters: gain control of target artifact", "_bio_steal", mana=2,
                  extra_ok=_bio_steal_ok, pay=_bio_pay(2), prepare="_bio_steal_prepare"),
    )))


# ---------------------------------------------------------------------------- The Depths Caller
# {X}{3}.  When unveiled: choose a permanent type; tap any number of untapped
# permanents you control of that type; search your library for a card of that
# type with mana value X plus the number of permanents tapped this way or less,
# put it onto the battlefield tapped, then shuffle.
#
# Substrate: the only permanent cards are creatures, lands and planeswalkers
# (there are no artifact, enchantment or battle cards in the libraries, so
# naming those types could never find anything); these three are offered.
# Lands are counts: tapping n of them raises ``lands_tapped``; a land found
# enters tapped (``lands`` and ``lands_tapped`` + 1).  Abstraction: a
# planeswalker has no tapped state in the substrate, so naming planeswalker
# taps none (the limit is X) and the one found enters with nothing to tap.  Searching a hidden zone for a
# card with a stated quality, the player may find nothing even if one is there
# (CR 701.23b): the search is always asked, "find nothing" (PASS) first, so
# whether it is asked does not tell what the library holds.  All choices are
# the controller's, made on resolution.
DEPTHS_TYPES = ("creature", "land", "planeswalker")


def _depths_unveil(game: "Game", item: "StackItem") -> None:
    L = game.layout
    game.ask(item.controller, 7, [(L.CHOICE + k, t) for k, t in enumerate(DEPTHS_TYPES)], "_depths_type", item,
             "choose a permanent type", labels=list(DEPTHS_TYPES))


def _depths_type(game: "Game", item: "StackItem", t: str) -> None:
    seat = item.controller
    item.data["type"] = t
    item.data["tapped"] = 0
    game._log("choose_type", seat=seat, card_type=t)
    p = game.players[seat]
    if t == "land":
        free = p.lands - p.lands_tapped
        L = game.layout
        top = min(free, MAX_CHOICE - 1)
        game.then(("call", "_depths_search", item))
        game.ask(seat, 6, [(L.CHOICE + n, n) for n in range(top + 1)], "_depths_tap_lands", item,
                 "tap how many untapped lands?", labels=[f"tap {n}" for n in range(top + 1)])
    elif t == "planeswalker":
        game.then(("call", "_depths_search", item))
    else:
        game.then(("call", "_depths_tap_creature", item))


def _depths_tap_lands(game: "Game", item: "StackItem", n: int) -> None:
    p = game.players[item.controller]
    n = min(n, p.lands - p.lands_tapped)
    p.lands_tapped += n
    item.data["tapped"] += n
    if n:
        game._log("tap_lands", seat=item.controller, n=n)


def _depths_tap_creature(game: "Game", item: "StackItem") -> None:
    """Offer the untapped creatures one at a time (PASS = done), then search."""
    seat = item.controller
    untapped = [c for c in game.players[seat].creatures if not c.tapped]
    opts = creature_options(game, seat, untapped)
    if not opts:
        _depths_search(game, item)
        return
    L = game.layout
    game.ask(seat, 5, [(L.PASS, None)] + opts, "_depths_tapped", item,
             f"tap another untapped creature? ({item.data['tapped']} tapped so far)",
             labels=["done tapping"] + [f"tap {c.name}" for _, c in opts])


def _depths_tapped(game: "Game", item: "StackItem", c: Any) -> None:
    if c is None:
        game.then(("call", "_depths_search", item))
        return
    c.tapped = True
    item.data["tapped"] += 1
    game._log("tap", seat=item.controller, creature=c.uid, name=c.name, **game._labels(c))
    game.then(("call", "_depths_tap_creature", item))


def _depths_search(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    p = game.players[seat]
    if p.has_lost:
        return
    t = item.data["type"]
    top = item.x + item.data["tapped"]
    item.data["mv"] = top
    found = {}
    for c in p.library:
        if c.type == t and c.cost <= top:
            found.setdefault(c.name, c)
    cards_ = sorted(found.values(), key=lambda c: c.index)[:MAX_CHOICE]
    game._log("search", seat=seat, card_type=t, max_mv=top)
    L = game.layout
    game.ask(seat, 8, [(L.PASS, None)] + [(L.CHOICE + k, c.name) for k, c in enumerate(cards_)], "_depths_pick",
             item, f"search your library for a {t} card with mana value {top} or less",
             labels=["find nothing"] + [c.name for c in cards_])


def _depths_pick(game: "Game", item: "StackItem", name: Any) -> None:
    seat = item.controller
    p = game.players[seat]
    if name is not None:
        k = next(i for i, c in enumerate(p.library) if c.name == name)
        card = p.library.pop(k)
        game._log("search_found", seat=seat, name=card.name)      # it's about to be public
        if card.is_land:
            p.lands += 1
            p.lands_tapped += 1
            game._log("land_enters", seat=seat, name=card.name, tapped=True)
        elif card.is_planeswalker:
            game.put_planeswalker_onto_battlefield(seat, card)
        else:
            game.put_onto_battlefield(seat, card, tapped=True)
    game.rng.shuffle(p.library)


register(IdentityImpl("The Depths Caller", on_unveil="_depths_unveil"))


# ---------------------------------------------------------------------------- The Shapeshifting Slayer
# {5}.  When unveiled, if it's your turn (intervening "if", CR 603.4: checked
# as it triggers, through ``unveil_if``, and again on resolution): choose a
# creature on the battlefield or a creature card in a graveyard, in exile, on
# the stack or in the command zone; create a token that's a copy of it (CR
# 707.2: copiable values only), except it has menace, trample and haste (part
# of the copy effect, CR 707.9b: they go into the token's base keywords, so
# copies of the token have them too).  Not targeted.
#
# Substrate: cards in those zones are CardDefs (graveyards, face-up exile,
# creature spells on the stack, commanders in the command zone); face-down
# exiled cards (The Oneiromancer) have no characteristics and are not
# offered.  Cards with the same name are the same copiable values, so each
# name is offered once (CHOICE actions); battlefield creatures are PERM actions.
SLAYER_KEYWORDS = frozenset({"menace", "trample", "haste"})


def _slayer_turn(game: "Game", seat: int) -> bool:
    return game.active == seat


def _slayer_cards(game: "Game") -> list:
    """Creature cards outside the battlefield that can be copied, one per name:
    ``[(card, where)]``."""
    seen: dict = {}
    for p in game.players:
        if p.has_lost:
            continue
        for zone in ("graveyard", "exile"):
            for c in getattr(p, zone):
                if c.is_creature:
                    seen.setdefault(c.name, (c, zone))
        if p.commander is not None and p.commander_zone == "command" and game.config.commander:
            seen.setdefault(p.commander.name, (p.commander, "command zone"))
    for it in game.stack:
        if it.kind == "spell" and it.card is not None and it.card.is_creature:
            seen.setdefault(it.card.name, (it.card, "stack"))
    return sorted(seen.values(), key=lambda cw: cw[0].index)[:MAX_CHOICE]


def _slayer_unveil(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    if game.players[seat].has_lost or not _slayer_turn(game, seat):
        return
    cands = [c for p in game.players if not p.has_lost for c in p.creatures]
    opts = [(a, ("c", c)) for a, c in creature_options(game, seat, cands)]
    labels = [f"{c.name} (P{c.controller}, battlefield)" for _, (_, c) in opts]
    L = game.layout
    for k, (card, where) in enumerate(_slayer_cards(game)):
        opts.append((L.CHOICE + k, ("card", card)))
        labels.append(f"{card.name} ({where})")
    game.ask(seat, 8, opts, "_slayer_copy", seat, "choose a creature or creature card to copy", labels=labels)


def _slayer_copy(game: "Game", seat: int, choice: tuple) -> None:
    from ..engine import Creature
    kind, obj = choice
    if game.players[seat].has_lost:
        return
    if kind == "c":
        src = obj
    else:                                   # a card: its printed copiable values
        src = Creature(0, obj.name, obj, False, seat, obj.power, obj.toughness, obj.keywords, game.turn,
                       obj.legendary)
    tok = game.create_creature_token(seat, src.name, 1, copy_of=src)[0]
    tok.base_keywords = frozenset(tok.base_keywords | SLAYER_KEYWORDS)
    game._log("copy_token", seat=seat, name=tok.name, creature=tok.uid, **game._labels(tok))


register(IdentityImpl("The Shapeshifting Slayer", on_unveil="_slayer_unveil", unveil_if=_slayer_turn))


register_callbacks(globals())
