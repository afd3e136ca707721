"""Leaders identity cards of TRD-2025, mythic (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import MAX_PERMS
from ..identity_abilities import (
    identity_trigger,
    Activated,
    IdentityImpl,
    register,
    register_callbacks,
    targets_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Creature, Game, IdentityCard, StackItem  # noqa: F401


# ============================================================== shared helpers
def _lmyth_scry_ops(game: "Game", seat: int, n: int, surveil: bool = False) -> list:
    """Queue operations for scry N (CR 701.22) or surveil N (CR 701.25): the top N
    cards are looked at one by one (a private decision each: keep on top, or put
    on the bottom / into the graveyard).  Abstraction: kept cards keep their
    order, bottomed cards keep theirs.  The cards seen are logged only to
    ``seat``; a card surveilled into the graveyard becomes public."""
    p = game.players[seat]
    n = min(n, len(p.library))
    if n <= 0 or p.has_lost:
        return []
    sc = {"seat": seat, "n": n, "away": [], "surveil": surveil}
    game._log("surveil" if surveil else "scry", seat=seat, n=n)
    game._log("look_top", to=[seat], seat=seat, cards=[p.library[-1 - k].name for k in range(n)])
    return [("call", "_lmyth_scry_ask", sc, k) for k in range(n)] + [("call", "_lmyth_scry_done", sc)]


def _lmyth_scry_ask(game: "Game", sc: dict, k: int) -> None:
    p = game.players[sc["seat"]]
    if p.has_lost or len(p.library) < sc["n"]:
        return
    c = p.library[-1 - k]
    L = game.layout
    other = "graveyard" if sc["surveil"] else "bottom"
    game.ask(sc["seat"], 11, [(L.CHOICE + 0, (k, False)), (L.CHOICE + 1, (k, True))], "_lmyth_scry_set", sc,
             f"{'surveil' if sc['surveil'] else 'scry'}: keep {c.name} on top or put it {'into the graveyard' if sc['surveil'] else 'on the bottom'}",
             labels=["top", other])


def _lmyth_scry_set(game: "Game", sc: dict, choice: tuple) -> None:
    k, away = choice
    if away:
        sc["away"].append(k)


def _lmyth_scry_done(game: "Game", sc: dict) -> None:
    p = game.players[sc["seat"]]
    n = sc["n"]
    if p.has_lost or len(p.library) < n:
        return
    top_first = [p.library[-1 - k] for k in range(n)]
    del p.library[-n:]
    keep = [c for k, c in enumerate(top_first) if k not in sc["away"]]
    away = [c for k, c in enumerate(top_first) if k in sc["away"]]
    if sc["surveil"]:
        p.graveyard.extend(away)
        for c in away:
            game._log("surveil_to_graveyard", seat=p.seat, card=c.name)
    else:
        p.library[0:0] = away
        game._log("scry_bottom", seat=p.seat, n=len(away))
    p.library.extend(reversed(keep))


# ============================================================== The Chaos Bringer
# At your end step, roll a d6, plus one more roll per player who has already
# lost: 1 a 0/1 Goat; 2-3 scry that number; 4-5 a Clue, Food or Treasure of
# your choice; 6 one of each.
CHAOS_TOKENS = ("Clue", "Food", "Treasure")


def _chaos_end(game: "Game", idc: "IdentityCard", seat: int) -> None:
    if seat == idc.controller:
        identity_trigger(game, idc, "chaos", "_chaos_resolve")


def _chaos_resolve(game: "Game", item: "StackItem") -> None:
    """Card: the number of rolls counts players who have lost when it resolves;
    all dice are rolled (``game.rng``, CR 706) and logged, then the results
    apply in order."""
    seat = item.controller
    n = 1 + sum(1 for p in game.players if p.has_lost)
    rolls = [game.rng.randint(1, 6) for _ in range(n)]
    game._log("roll", seat=seat, source=item.source, results=rolls)
    game.then(*[("call", "_chaos_apply", seat, r) for r in rolls])


def _chaos_apply(game: "Game", seat: int, r: int) -> None:
    if game.players[seat].has_lost:
        return
    if r == 1:
        game.create_tokens(seat, "Goat", 1)
    elif r in (2, 3):
        game.then(*_lmyth_scry_ops(game, seat, r))
    elif r in (4, 5):
        L = game.layout
        game.ask(seat, 7, [(L.CHOICE + k, nm) for k, nm in enumerate(CHAOS_TOKENS)], "_chaos_token", seat,
                 "The Chaos Bringer: create a Clue, a Food or a Treasure", labels=list(CHAOS_TOKENS))
    else:
        for nm in CHAOS_TOKENS:
            game.create_tokens(seat, nm, 1)


def _chaos_token(game: "Game", seat: int, name: str) -> None:
    game.create_tokens(seat, name, 1)


register(IdentityImpl("The Chaos Bringer", events={"end_step": _chaos_end}))


# ============================================================== The Debt Collector
# Upkeep: each player loses 1 life per debt counter on identity cards they
# control; you gain the total.  End step: target other player draws a card and
# puts a debt counter on their identity card.  When a player loses the game,
# you draw a card per debt counter on the identity cards they controlled.
def _debt_of(game: "Game", seat: int) -> int:
    """Debt counters on the identity cards ``seat`` controls: every player controls
    exactly one identity card (TR8.3)."""
    return game.players[seat].identity.counters.get("debt", 0)


def _debt_upkeep(game: "Game", idc: "IdentityCard", seat: int) -> None:
    """Abstraction: the trigger is left out when no player has a debt counter (it
    would do nothing)."""
    if seat == idc.controller and any(_debt_of(game, p.seat) for p in game.players if not p.has_lost):
        identity_trigger(game, idc, "debt_upkeep", "_debt_drain")


def _debt_drain(game: "Game", item: "StackItem") -> None:
    """The total gained is the life actually lost (replacement effects, The Oracle,
    The Great Martyr, apply to each loss)."""
    seat = item.controller
    before = [p.life for p in game.players]
    for p in game.players:
        d = 0 if p.has_lost else _debt_of(game, p.seat)
        if d:
            game.lose_life(p.seat, d, source_seat=seat)
    total = sum(max(0, b - p.life) for b, p in zip(before, game.players))
    game._log("debt_collected", seat=seat, n=total)
    game.gain_life(seat, total)


def _debt_end(game: "Game", idc: "IdentityCard", seat: int) -> None:
    if seat == idc.controller:
        t = identity_trigger(game, idc, "debt_end", "_debt_lend")
        t.data["specs"] = [{"type": "player", "other": True}]


def _debt_lend(game: "Game", item: "StackItem") -> None:
    for _, s in targets_of(item, "p"):
        game.draw(s, 1)
        idc = game.players[s].identity
        idc.counters["debt"] = idc.counters.get("debt", 0) + 1
        game._log("debt_counter", seat=s, n=idc.counters["debt"])


def _debt_lost(game: "Game", idc: "IdentityCard", seat: int) -> None:
    n = _debt_of(game, seat)
    if n > 0 and seat != idc.controller:
        identity_trigger(game, idc, "debt_lost", "_debt_draw", n=n, loser=seat)


def _debt_draw(game: "Game", item: "StackItem") -> None:
    game.draw(item.controller, item.data["n"])


register(IdentityImpl("The Debt Collector", events={"upkeep": _debt_upkeep, "end_step": _debt_end,
                                                     "player_lost": _debt_lost}))


# ============================================================== The Gathering
# At your upkeep you may choose one mode not chosen before (each once per game):
# White, four 1/1 Soldiers; Blue, scry 4 then draw 2; Black, return target
# creature card from your graveyard to the battlefield; Red, 4 damage divided
# among any targets; Green, destroy target noncreature permanent.
GATHER_MODES = ("white: create four 1/1 Soldier tokens", "blue: scry 4, then draw two cards",
                "black: return target creature card from your graveyard to the battlefield",
                "red: 4 damage divided as you choose among any number of targets",
                "green: destroy target noncreature permanent")


def _gather_upkeep(game: "Game", idc: "IdentityCard", seat: int) -> None:
    if seat == idc.controller and len(idc.data.get("gathering_used", ())) < 5:
        t = identity_trigger(game, idc, "gathering", "_gather_resolve")
        t.data["prepare"] = "_gather_prepare"


GATHER_WALKER = {"type": "permanent", "walkers": True}
"""The spec a planeswalker targeted by the green mode is recorded under (its legality on resolution)."""


def _gather_green_cands(game: "Game", seat: int) -> list:
    """What the green mode may target for ``seat``: planeswalkers (``("w", obj)``,
    noncreature permanents that are objects), and players controlling a land or
    an artifact token (``("p", seat)``: those are per-player counts in the
    Magic-lite layer, targeted through their controller)."""
    out = [t for t in game.target_candidates(seat, GATHER_WALKER) if t[0] == "w"]
    for t in game.target_candidates(seat, {"type": "player"}):
        q = game.players[t[1]]
        if q.lands or any(q.tokens.values()):
            out.append(t)
    return out


def _gather_prepare(game: "Game", item: "StackItem") -> None:
    """The mode (or none: "may") and its targets are chosen as the trigger is put on
    the stack (CR 603.3c-d); choosing a mode uses it up even if the trigger is
    later countered."""
    seat = item.controller
    used = game.players[seat].identity.data.get("gathering_used", [])
    p = game.players[seat]
    L = game.layout
    opts = [(L.PASS, None)]
    for m in range(5):
        if m in used:
            continue
        if m == 2 and not any(c.is_creature for c in p.graveyard):
            continue
        if m == 4 and not _gather_green_cands(game, seat):
            continue
        opts.append((L.CHOICE + m, m))
    item.data["mode"] = None
    game.ask(seat, 7, opts, "_gather_mode", item, "The Gathering: choose an unused mode (PASS: none)",
             labels=["none"] + [GATHER_MODES[m] for _, m in opts[1:]])


def _gather_mode(game: "Game", item: "StackItem", m: Any) -> None:
    if m is None:
        return
    seat = item.controller
    item.data["mode"] = m
    game.players[seat].identity.data.setdefault("gathering_used", []).append(m)
    game._log("mode", seat=seat, source=item.source, mode=GATHER_MODES[m])
    L = game.layout
    if m == 2:
        names = []
        for c in game.players[seat].graveyard:
            if c.is_creature and c.name not in names:
                names.append(c.name)
        names = names[:40]
        game.ask(seat, 8, [(L.CHOICE + k, nm) for k, nm in enumerate(names)], "_gather_card", item,
                 "The Gathering: choose a creature card in your graveyard", labels=names)
    elif m == 3:
        # 4 damage divided: four single points, each assigned to a chosen target (CR 601.2d)
        game.then(*[("choose_target", item, {"type": "any", "point": k}, 1) for k in range(4)])
    elif m == 4:
        opts = []
        for t in _gather_green_cands(game, seat):
            a = game.target_action(seat, t)
            if a is not None:
                opts.append((a, t))
        game.ask(seat, 5, opts, "_gather_green_player", item,
                 "The Gathering: choose a planeswalker, or whose land or artifact token, to destroy")


def _gather_card(game: "Game", item: "StackItem", name: str) -> None:
    item.data["card"] = name


def _gather_green_player(game: "Game", item: "StackItem", t: tuple) -> None:
    """The green mode's target: a planeswalker, or a player whose land or artifact
    token is then chosen by kind."""
    item.targets.append(t)
    if t[0] == "w":
        item.target_specs.append(GATHER_WALKER)
        return
    item.target_specs.append({"type": "player"})
    q = game.players[t[1]]
    L = game.layout
    kinds = (["land"] if q.lands else []) + [nm for nm, v in sorted(q.tokens.items()) if v]
    game.ask(item.controller, 8, [(L.CHOICE + k, nm) for k, nm in enumerate(kinds)], "_gather_green_kind", item,
             "The Gathering: choose the noncreature permanent to destroy", labels=kinds)


def _gather_green_kind(game: "Game", item: "StackItem", kind: str) -> None:
    item.data["perm"] = kind


def _gather_resolve(game: "Game", item: "StackItem") -> None:
    """Black: a graveyard card is not an engine target type; the card is chosen by
    name as the trigger goes on the stack and the mode does nothing if no such
    card is in the graveyard on resolution.  Green: a noncreature permanent is a
    planeswalker (targeted itself, CR 701.8: destroyed) or a land or an artifact
    token (counts, so targeted through its controller, targeting rules for
    players applying, and chosen by kind; a destroyed land is an untapped one
    if any).  Red: each of the four points is a target choice (a
    target may be chosen for several points); illegal ones deal nothing."""
    seat = item.controller
    m = item.data.get("mode")
    p = game.players[seat]
    if m == 0:
        game.create_tokens(seat, "Soldier", 4)
    elif m == 1:
        game.then(*_lmyth_scry_ops(game, seat, 4), ("call", "_gather_draw", seat))
    elif m == 2:
        name = item.data.get("card")
        k = next((i for i, c in enumerate(p.graveyard) if c.name == name), None)
        if k is None:
            game._log("fizzle", seat=seat, source=item.source)
            return
        game.put_onto_battlefield(seat, p.graveyard.pop(k))
    elif m == 3:
        for t in item.targets:
            if t is not None:
                game.damage(seat, t, 1, source_name=item.source)
    elif m == 4:
        for _, w in targets_of(item, "w"):
            game.destroy(w)                 # logged as it leaves (``leaves``)
        ts = targets_of(item, "p")
        if not ts:
            return
        q = game.players[ts[0][1]]
        kind = item.data.get("perm")
        if kind == "land" and q.lands:
            q.lands -= 1
            q.lands_tapped = min(q.lands_tapped, q.lands)
        elif q.tokens.get(kind):
            q.tokens[kind] -= 1
        else:
            return
        game._log("destroy_permanent", seat=q.seat, permanent=kind, source=item.source)


def _gather_draw(game: "Game", seat: int) -> None:
    game.draw(seat, 2)


register(IdentityImpl("The Gathering", events={"upkeep": _gather_upkeep}))


# ============================================================== His Beloved Majesty
# At your upkeep each non-Leader player, in turn order, may give you a nontoken
# permanent they control (you gain control of it and untap it) and draw a card;
# if nobody does, you draw a card.
def _majesty_upkeep(game: "Game", idc: "IdentityCard", seat: int) -> None:
    if seat == idc.controller:
        identity_trigger(game, idc, "majesty", "_majesty_resolve", accepted=False)


def _majesty_resolve(game: "Game", item: "StackItem") -> None:
    """Non-Leader players are asked in turn order from the Leader (CR 101.4)."""
    seat = item.controller
    order = [(seat + k) % game.n for k in range(1, game.n)]
    ops = [("call", "_majesty_offer", item, s) for s in order]
    ops.append(("call", "_majesty_end", item))
    game.then(*ops)


def _majesty_gifts(game: "Game", s: int) -> list:
    """What ``s`` may hand over: a nontoken creature (PERM action) or a land
    (CHOICE 0; lands are counts, enchantments don't exist in the Magic-lite layer)."""
    p = game.players[s]
    L = game.layout
    opts = [(L.perm(0, k), c) for k, c in enumerate(p.creatures[:MAX_PERMS]) if not c.token]
    if p.lands:
        opts.append((L.CHOICE + 0, "land"))
    return opts


def _majesty_offer(game: "Game", item: "StackItem", s: int) -> None:
    p = game.players[s]
    if p.has_lost or game.players[item.controller].has_lost or game.is_leader_player(s):
        return
    if not _majesty_gifts(game, s):
        return
    L = game.layout
    game.ask(s, 12, [(L.CHOICE + 0, True), (L.PASS, False)], "_majesty_yes", (item, s),
             f"His Beloved Majesty: give P{item.controller} a nontoken permanent and draw a card?",
             labels=["give", "decline"])


def _majesty_yes(game: "Game", data: tuple, yes: bool) -> None:
    if not yes:
        return
    _, s = data
    game.ask(s, 10, _majesty_gifts(game, s), "_majesty_give", data, "choose the permanent to give")


def _majesty_give(game: "Game", data: tuple, what: Any) -> None:
    """The Leader gains control (CR 108.4, lasting) and untaps it; a land handed
    over is a tapped one if the giver has one."""
    item, s = data
    leader = item.controller
    if what == "land":
        # recorded as a control effect: it ends if either player leaves (CR 800.4a)
        game.gain_control_of_counted(leader, s, "land", source=item.source, untap=True)
        game._log("gain_control", seat=leader, creature=None, name="land", previous=s)
    else:
        game.gain_control(what, leader, source=item.source)
        game.untap(what)
    item.data["accepted"] = True
    game._log("majesty_gift", seat=s, to_seat=leader)
    game.draw(s, 1)


def _majesty_end(game: "Game", item: "StackItem") -> None:
    if not item.data["accepted"]:
        game.draw(item.controller, 1)


register(IdentityImpl("His Beloved Majesty", events={"upkeep": _majesty_upkeep}))


# ============================================================== The Lich Queen
# Starts with a grave counter per player.  Upkeep: surveil 1.  Remove a grave
# counter, once each turn: you may play target card from your graveyard this
# turn; an instant or sorcery cast this way is exiled afterwards, a permanent
# enters with a finality counter (if it would die, exile it instead).
def _lich_upkeep(game: "Game", idc: "IdentityCard", seat: int) -> None:
    if seat == idc.controller:
        identity_trigger(game, idc, "lich_surveil", "_lich_surveil")


def _lich_surveil(game: "Game", item: "StackItem") -> None:
    game.then(*_lmyth_scry_ops(game, item.controller, 1, surveil=True))


def _lich_ok(game: "Game", seat: int) -> bool:
    return bool(game.players[seat].graveyard)


def _lich_prepare(game: "Game", item: "StackItem") -> None:
    """"Target card in your graveyard": graveyard cards are not an engine target
    type, so the card is chosen by name on activation (cards of one name are
    identical) and must still be there on resolution (CR 608.2b)."""
    seat = item.controller
    names: list[str] = []
    for c in game.players[seat].graveyard:
        if c.name not in names:
            names.append(c.name)
    names = names[:40]
    L = game.layout
    game.ask(seat, 8, [(L.CHOICE + k, nm) for k, nm in enumerate(names)], "_lich_card", item,
             "The Lich Queen: choose a card in your graveyard", labels=names)


def _lich_card(game: "Game", item: "StackItem", name: str) -> None:
    item.data["card"] = name


def _lich_grant(game: "Game", item: "StackItem") -> None:
    """The permission lasts this turn (``Game.grant_permission``, paying the
    card's costs; a land uses the land drop).  It is remembered on the identity
    so the cast can be recognised ("cast" event)."""
    seat = item.controller
    p = game.players[seat]
    card = next((c for c in p.graveyard if c.name == item.data.get("card")), None)
    if card is None:
        game._log("fizzle", seat=seat, source=item.source)
        return
    game.grant_permission(seat, card, seat, "graveyard", free=False, until_turn=game.turn, source="The Lich Queen")
    idc = p.identity
    idc.data.setdefault("lich_grants", []).append(p.permissions[-1])
    game._log("may_play_from_graveyard", seat=seat, card=card.name)


def _lich_cast(game: "Game", idc: "IdentityCard", item: "StackItem") -> None:
    """A spell cast with the Lich Queen's permission: an instant or sorcery gets
    ``exile_after`` (the engine exiles it instead of putting it into the
    graveyard, resolved or countered); a creature spell is remembered so that
    the permanent it becomes has a finality counter.  A planeswalker spell is
    neither: countered, it goes to the graveyard (card: only instants and
    sorceries are exiled).  Abstraction: the planeswalker it becomes gets no
    finality counter (docs/fidelity.md)."""
    grants = idc.data.get("lich_grants")
    if not grants:
        return
    seat = idc.controller
    p = game.players[seat]
    grants[:] = [g for g in grants if g["until_turn"] >= game.turn]
    if item.controller != seat or item.from_zone != "graveyard" or item.is_copy:
        return
    for g in grants:
        if g["card"] is item.card and not any(q is g for q in p.permissions):
            grants.remove(g)
            if item.card.is_creature:
                items = idc.data.setdefault("lich_items", [])
                items[:] = [it for it in items if it in game.stack or it.creature is not None]
                items.append(item)
                game._log("finality", seat=seat, card=item.card.name)
            elif item.card.type in ("instant", "sorcery"):
                item.data["exile_after"] = True
            return


def _lich_left(game: "Game", idc: "IdentityCard", creature: "Creature", zone: str | None) -> None:
    """Finality counter (CR 122.1h-style replacement): a permanent with one that
    would die is exiled instead.  Abstraction: the counter is recorded on the
    Lich Queen's identity (the spell item linked to the creature it became), not
    on the creature, and the card moves from the graveyard to exile right after
    it would have died, before anything else happens."""
    items = idc.data.get("lich_items")
    if not items:
        return
    it = next((x for x in items if x.creature is creature), None)
    if it is None:
        return
    items.remove(it)
    if zone != "graveyard" or creature.token:
        return
    owner = game.players[creature.owner]
    if owner.has_lost:
        return
    k = next((i for i in range(len(owner.graveyard) - 1, -1, -1) if owner.graveyard[i] is creature.card), None)
    if k is None:
        return
    owner.exile.append(owner.graveyard.pop(k))
    game._log("finality_exile", seat=owner.seat, card=creature.card.name)


register(IdentityImpl("The Lich Queen", events={"upkeep": _lich_upkeep, "cast": _lich_cast,
                                                "creature_left": _lich_left},
                      activated=(Activated("remove a grave counter: you may play target card from your graveyard "
                                           "this turn (once each turn)", "_lich_grant", counter="grave",
                                           once_per_turn=True, extra_ok=_lich_ok, prepare="_lich_prepare"),)))


register_callbacks(globals())
