"""Guardians identity cards of TRD-2025, mythic (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import MAX_CHOICE
from ..identity_abilities import (Activated, IdentityImpl, creature_options, register,
                                  register_callbacks, targets_of)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, StackItem  # noqa: F401


# ============================================================================ The Great Martyr
# Unveil {2}. When unveiled, until end of turn, if a source an opponent controls
# would deal damage to a Leader player, that damage is dealt to you instead; the
# same for losing life, discarding cards and sacrificing permanents.  Whenever
# you are dealt damage or lose life this way, draw half that many cards, rounded
# up; whenever you discard a card or sacrifice a permanent this way, gain 2 life.
#
# Four replacement effects in ``game.effects`` (kinds "damage", "lose_life",
# "discard", "sacrifice"), ending in the cleanup step.  "An opponent" is an
# opponent of the Martyr's controller (the card's "you"), checked with
# Game.is_opponent when the event happens; a source is "controlled" by the
# event's ``source_seat`` (no seat: no source an opponent controls, e.g. costs,
# the cleanup discard, the rules).  While the Martyr is a face-up Guardian this
# is the same set as the Leader's opponents.  The draws and the life gain are
# triggered abilities of the Martyr's controller ("Whenever ..."): they go on the
# stack.  Abstractions (documented): replacement effects apply in the order they
# were created rather than in the order the affected Leader chooses (CR 616.1,
# and the card's ruling); a redirected sacrifice makes the Martyr's controller
# sacrifice a creature of their choice (creatures are the only permanents that
# can be sacrificed by effects in Magic-lite); redirected damage counts as
# "dealt" unless a damage-prevention shield protects the Martyr's controller.
# Once the Martyr's controller has left the game nothing is redirected any more.
# While an Oracle effect keeps a Leader's life total from changing, their life
# loss is not redirected (The Oracle's ruling); damage to them is prevented or
# redirected in the order the two effects were created.
MARTYR = "The Great Martyr"


def _martyr_unveil(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    for kind in ("damage", "lose_life", "discard", "sacrifice"):
        game.effects.append({"kind": kind, "fn": "_martyr_" + kind, "controller": seat, "until": "eot",
                             "source": MARTYR})
    game._log("martyr_shield", seat=seat)


def _martyr_applies(game: "Game", effect: dict, victim: int, source_seat: Any) -> bool:
    """The event happens to a Leader player other than the Martyr's controller,
    from a source controlled by an opponent of the Martyr's controller."""
    me = effect["controller"]
    if game.players[me].has_lost or victim == me or not game.is_leader_player(victim):
        return False
    return source_seat is not None and source_seat >= 0 and game.is_opponent(me, source_seat)


def _martyr_trigger(game: "Game", seat: int, resolve: str, **data: Any) -> None:
    """A "whenever ... this way" triggered ability of the Martyr's controller."""
    from ..engine import StackItem
    t = StackItem(game._new_uid(), "trigger", seat, source=MARTYR, key=resolve, identity_source=True)
    t.data["resolve"] = resolve
    t.data.update(data)
    game.add_trigger(t)


def _martyr_damage(game: "Game", effect: dict, ev: dict) -> None:
    t = ev["target"]
    if t is None or t[0] != "p" or ev["amount"] <= 0:
        return
    if not _martyr_applies(game, effect, t[1], ev["source_seat"]):
        return
    me = effect["controller"]
    ev["target"] = ("p", me)
    game._log("redirect", what="damage", seat=t[1], to_seat=me, n=ev["amount"])
    if not game._damage_prevented(("p", me)):
        _martyr_trigger(game, me, "_martyr_draw", n=(ev["amount"] + 1) // 2)


def _martyr_lose_life(game: "Game", effect: dict, ev: dict) -> None:
    if ev["amount"] <= 0 or not _martyr_applies(game, effect, ev["seat"], ev["source_seat"]):
        return
    if _oracle_life_locked(game, ev["seat"]):
        # The Oracle's ruling: an effect that would replace losing life with
        # another event can't apply to a player whose life total can't change
        return
    me = effect["controller"]
    game._log("redirect", what="lose_life", seat=ev["seat"], to_seat=me, n=ev["amount"])
    ev["seat"] = me
    _martyr_trigger(game, me, "_martyr_draw", n=(ev["amount"] + 1) // 2)


def _martyr_discard(game: "Game", effect: dict, ev: dict) -> None:
    if ev["n"] <= 0 or not _martyr_applies(game, effect, ev["seat"], ev["source_seat"]):
        return
    me = effect["controller"]
    game._log("redirect", what="discard", seat=ev["seat"], to_seat=me, n=ev["n"])
    ev["seat"] = me
    # the Martyr's controller discards as many as they can (ruling), one
    # decision per card right after this; one trigger per card discarded
    for _ in range(min(ev["n"], len(game.players[me].hand))):
        _martyr_trigger(game, me, "_martyr_life")


def _martyr_sacrifice(game: "Game", effect: dict, ev: dict) -> None:
    c = ev["creature"]
    if c is None or not _martyr_applies(game, effect, ev["seat"], ev["source_seat"]):
        return
    me = effect["controller"]
    game._log("redirect", what="sacrifice", seat=ev["seat"], to_seat=me, n=1)
    ev["creature"] = None
    game.then(("call", "_martyr_sac_ask", me, ev["source_seat"]))


def _martyr_sac_ask(game: "Game", seat: int, source_seat: int) -> None:
    p = game.players[seat]
    if p.has_lost or not p.creatures:
        return                      # nothing to sacrifice: nothing happens (ruling)
    game.ask(seat, 8, creature_options(game, seat, p.creatures), "_martyr_sac_pick", source_seat,
             "choose a permanent to sacrifice instead of the Leader")


def _martyr_sac_pick(game: "Game", source_seat: int, c: Any) -> None:
    seat = c.controller
    if game.sacrifice(c, source_seat=source_seat):
        _martyr_trigger(game, seat, "_martyr_life")


def _martyr_draw(game: "Game", item: "StackItem") -> None:
    game.draw(item.controller, item.data["n"])


def _martyr_life(game: "Game", item: "StackItem") -> None:
    game.gain_life(item.controller, 2)


register(IdentityImpl(MARTYR, on_unveil="_martyr_unveil"))


# ============================================================================ The Oracle
# Unveil {2}. When unveiled, until end of turn, Leader players have protection
# from everything and their life totals can't change.  Protection from
# everything (rulings): all damage that would be dealt to them is prevented, and
# they can't be the target of spells or abilities (a spell or ability already
# targeting one finds that target illegal as it resolves, CR 608.2b); attacks
# are still allowed.  Life total can't change: gaining and losing life do
# nothing, and they can't pay life (rulings; CR 119.4).  "Leader players" is
# read when each event happens (CR 314.7: a face-up Leader identity).  Auras
# don't exist in Magic-lite; setting or exchanging life totals is not done by any
# implemented effect (it would go through gain_life/lose_life).
def _oracle_unveil(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    for kind, fn in (("damage", "_oracle_prevent"), ("gain_life", "_oracle_no_change"),
                     ("lose_life", "_oracle_no_change"), ("forbid:target_player", "_oracle_untargetable"),
                     ("forbid:pay_life", "_oracle_no_pay_life")):
        game.effects.append({"kind": kind, "fn": fn, "controller": seat, "until": "eot", "source": "The Oracle"})
    game._log("oracle_protection", seat=seat)


def _oracle_prevent(game: "Game", effect: dict, ev: dict) -> None:
    t = ev["target"]
    if t is not None and t[0] == "p" and ev["amount"] > 0 and game.is_leader_player(t[1]):
        game._log("prevented", target=game._target_repr(t), n=ev["amount"])
        ev["amount"] = 0


def _oracle_no_change(game: "Game", effect: dict, ev: dict) -> None:
    if ev["amount"] > 0 and game.is_leader_player(ev["seat"]):
        ev["amount"] = 0


def _oracle_life_locked(game: "Game", seat: int) -> bool:
    """Whether an Oracle effect keeps ``seat``'s life total from changing now."""
    return game.is_leader_player(seat) and any(e["fn"] == "_oracle_no_change" for e in game.effects)


def _oracle_untargetable(game: "Game", effect: dict, kw: dict) -> bool:
    return game.is_leader_player(kw["target"])


def _oracle_no_pay_life(game: "Game", effect: dict, kw: dict) -> bool:
    return game.is_leader_player(kw["seat"])


register(IdentityImpl("The Oracle", on_unveil="_oracle_unveil"))


# ============================================================================ The Supplier
# Unveil: discard a nonland card (the framework's unveil cost).  When unveiled,
# you get six gem counters (player counters, Player.counters["gem"]).
# {1}, pay a gem: target player chooses a card from their graveyard or an exiled
# card they own and puts it into their library third from the top.
# {2}, pay two gems: target player reveals the top seven cards of their library,
# puts two of them into their hand and the rest on the bottom of their library
# in a random order.
# Gems are the player's counters, not the identity's: the counter cost is checked
# by ``extra_ok`` and paid by ``pay`` on activation.  Both abilities are
# activated at instant speed, as often as the gems and mana allow.  Cards are
# offered by name (identical cards are interchangeable); exile here is the
# face-up exile zone (The Oneiromancer's face-down pile is not "owned exile
# the player can see" and is kept by that identity).  The reveal, and which two
# cards go to the hand, are public.
SUPPLIER = "The Supplier"


def _supplier_unveil(game: "Game", item: "StackItem") -> None:
    p = game.players[item.controller]
    p.counters["gem"] = p.counters.get("gem", 0) + 6
    game._log("player_counters", seat=p.seat, kind="gem", n=6, total=p.counters["gem"])


def _supplier_one_gem(game: "Game", seat: int) -> bool:
    return game.players[seat].counters.get("gem", 0) >= 1


def _supplier_two_gems(game: "Game", seat: int) -> bool:
    return game.players[seat].counters.get("gem", 0) >= 2


def _supplier_pay(game: "Game", seat: int, n: int) -> None:
    p = game.players[seat]
    p.counters["gem"] -= n
    game._log("pay_counters", seat=seat, kind="gem", n=n, total=p.counters["gem"])


def _supplier_pay_one(game: "Game", seat: int, item: "StackItem") -> None:
    _supplier_pay(game, seat, 1)


def _supplier_pay_two(game: "Game", seat: int, item: "StackItem") -> None:
    _supplier_pay(game, seat, 2)


def _supplier_recycle(game: "Game", item: "StackItem") -> None:
    for _, s in targets_of(item, "p"):
        p = game.players[s]
        if p.has_lost:
            continue
        opts, seen = [], set()
        for zone, pile in (("graveyard", p.graveyard), ("exile", p.exile)):
            for c in pile:
                if (zone, c.name) not in seen:
                    seen.add((zone, c.name))
                    opts.append((zone, c.name))
        opts = opts[:MAX_CHOICE]
        L = game.layout
        game.ask(s, 8, [(L.CHOICE + k, (s,) + o) for k, o in enumerate(opts)], "_supplier_recycle_pick", None,
                 "choose a card from your graveyard or exile to put third from the top of your library",
                 labels=[f"{name} ({zone})" for zone, name in opts])


def _supplier_recycle_pick(game: "Game", _data: Any, choice: tuple) -> None:
    s, zone, name = choice
    p = game.players[s]
    pile = p.graveyard if zone == "graveyard" else p.exile
    c = pile.pop(next(k for k, x in enumerate(pile) if x.name == name))
    # the top of the library is the end of the list; with fewer than two cards
    # above it, the card goes to the bottom
    p.library.insert(max(0, len(p.library) - 2), c)
    game._log("to_library", seat=s, card=name, zone=zone, position=3)


def _supplier_dig(game: "Game", item: "StackItem") -> None:
    for _, s in targets_of(item, "p"):
        p = game.players[s]
        if p.has_lost:
            continue
        seen = [p.library.pop() for _ in range(min(7, len(p.library)))]      # top card first
        if not seen:
            continue
        game._log("reveal_top_cards", seat=s, cards=[c.name for c in seen])
        _supplier_keep_ask(game, {"seat": s, "cards": seen, "keep": []})


def _supplier_keep_ask(game: "Game", data: dict) -> None:
    cards = data["cards"]
    if len(data["keep"]) >= 2 or not cards:
        _supplier_keep_done(game, data)
        return
    if len(data["keep"]) + len(cards) <= 2:        # no choice: all of them
        data["keep"].extend(cards)
        data["cards"] = []
        _supplier_keep_done(game, data)
        return
    L = game.layout
    game.ask(data["seat"], 8, [(L.CHOICE + k, k) for k in range(len(cards))], "_supplier_keep_pick", data,
             "choose a revealed card to put into your hand", labels=[c.name for c in cards])


def _supplier_keep_pick(game: "Game", data: dict, k: int) -> None:
    data["keep"].append(data["cards"].pop(k))
    _supplier_keep_ask(game, data)


def _supplier_keep_done(game: "Game", data: dict) -> None:
    p = game.players[data["seat"]]
    if p.has_lost:
        return
    p.hand.extend(data["keep"])
    rest = list(data["cards"])
    game.rng.shuffle(rest)
    p.library[0:0] = rest                 # the bottom of the library is the start of the list
    game._log("revealed_to_hand", seat=p.seat, cards=[c.name for c in data["keep"]], bottom=len(rest))


register(IdentityImpl(SUPPLIER, on_unveil="_supplier_unveil", activated=(
    Activated("{1}, pay a gem: target player puts a card from their graveyard or exile third from the top "
              "of their library", "_supplier_recycle", mana=1, extra_ok=_supplier_one_gem,
              pay=_supplier_pay_one, specs=({"type": "player"},)),
    Activated("{2}, pay two gems: target player reveals their top seven cards, puts two into their hand and "
              "the rest on the bottom in a random order", "_supplier_dig", mana=2, extra_ok=_supplier_two_gems,
              pay=_supplier_pay_two, specs=({"type": "player"},)),
)))


# ============================================================================ The Warlock
# Unveil {3}. When unveiled, end the phase if it isn't the ending phase: exile
# every spell and ability on the stack, remove all creatures from combat, then
# the active player begins their next phase (Game.end_phase; no player gets
# priority in the rest of the ended phase; the beginning phase ends without
# its remaining steps, e.g. the draw step; combat ends without its end of combat
# step).
def _warlock_unveil(game: "Game", item: "StackItem") -> None:
    game.end_phase()


register(IdentityImpl("The Warlock", on_unveil="_warlock_unveil"))


register_callbacks(globals())
