"""Abilities of identity cards: a small vocabulary of effect primitives and one
:class:`IdentityImpl` per implemented identity.

An implementation says, for its identity:

* ``unveil_specs(game, seat, x)``: the targets of its "when unveiled" trigger
  (CR 702.187d), chosen as the trigger goes on the stack;
* ``on_unveil(game, item)``: what that trigger does on resolution; ``X`` is
  ``item.x``, the X paid in the unveil cost (CR 702.187e);
* ``x_ok(game, seat, x)``: extra limits on X (enough targets for "X target ...");
* ``statics``: keys of continuous effects while face up (CR 314.4);
* ``activated``: activated abilities of the face-up identity;
* ``events``: triggered abilities, keyed by game event;
* ``leaving(game, idc)``: what happens as its controller loses (CR 907.8a).

Decisions inside an ability are made with ``game.ask(...)``; the answer calls a
module-level function of this file by name, so every piece of state stays plain
data (``Game.clone`` is a deep copy).  Paraphrased card texts are in
``data/identities.json``; each function cites the card it implements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from .actions import MAX_CHOICE, MAX_HAND, MAX_PERMS, MAX_X
from .rules import Role

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game, IdentityCard, StackItem

__all__ = ["IdentityImpl", "Activated", "IMPLEMENTATIONS", "static_keys", "unveil_cost_ok", "unveil_xs", "on_unveiled",
           "activatable", "activate", "fire_event", "run_delayed", "resolve", "before_leaving"]


@dataclass(frozen=True)
class Activated:
    """An activated ability of an identity (CR 602), usable while face up.

    Attributes:
        text: what it does, in words (``describe_action``).
        mana: generic mana cost.
        counter: kind of counter removed from the identity as a cost, or None.
        once_per_turn: at most once each turn.
        extra_ok: further cost/timing condition ``(game, seat) -> bool``.
        pay: extra cost payment ``(game, seat, item)`` (sacrifice, ...), may ask.
        specs: target specs, chosen on activation.
        prepare: name of a function that asks for modes/targets on activation.
        resolve: name of the function run on resolution ``(game, item)``.
        uses_stack: False for an ability that applies at once (none so far).
    """

    text: str
    resolve: str
    mana: int = 0
    counter: str | None = None
    once_per_turn: bool = False
    extra_ok: Callable | None = None
    pay: Callable | None = None
    specs: tuple = ()
    prepare: str | None = None


@dataclass(frozen=True)
class IdentityImpl:
    """Rules of one identity card (see the module docstring)."""

    name: str
    on_unveil: str | None = None
    unveil_specs: Callable | None = None
    unveil_prepare: str | None = None
    x_ok: Callable | None = None
    statics: frozenset = frozenset()
    activated: tuple = ()
    events: dict = field(default_factory=dict)
    leaving: Callable | None = None


IMPLEMENTATIONS: dict[str, IdentityImpl] = {}


def _register(impl: IdentityImpl) -> None:
    IMPLEMENTATIONS[impl.name] = impl


# ---------------------------------------------------------------------------- engine entry points
def static_keys(game: "Game") -> set[str]:
    """Continuous effects of every face-up identity of a player in the game."""
    out: set[str] = set()
    for p in game.players:
        idc = p.identity
        if idc is not None and idc.face_up and not p.has_lost:
            impl = IMPLEMENTATIONS.get(idc.name)
            if impl is not None and impl.statics:
                out |= impl.statics
    return out


def unveil_cost_ok(game: "Game", seat: int, x: int) -> bool:
    """Non-mana parts of the unveil cost of ``seat``'s identity are payable with
    X = ``x``: life (CR 119.4), cards to discard or exile from hand with their
    filter, permanents to sacrifice; plus the card's own limits on X."""
    p = game.players[seat]
    idc = p.identity
    cost = idc.unveil_cost
    if cost is None:
        return False
    if cost.life and not game.can_pay_life(seat, cost.life):
        return False
    need_cards = 0
    for spec in (cost.discard, cost.exile_from_hand):
        if spec:
            need_cards += spec["count"]
            if spec.get("filter") == "nonland":
                if sum(1 for c in p.hand[:MAX_HAND] if not c.is_land) < spec["count"]:
                    return False
    if need_cards > min(len(p.hand), MAX_HAND):
        return False
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is not None and impl.x_ok is not None and not impl.x_ok(game, seat, x):
        return False
    return True


def unveil_xs(game: "Game", seat: int, avail: int) -> list[int]:
    """Values of X (0 for a cost without X) for which ``seat`` can pay its unveil
    cost with ``avail`` generic mana (Undercover is checked by the caller)."""
    cost = game.players[seat].identity.unveil_cost
    if not cost.x:
        return [0] if cost.mana <= avail and unveil_cost_ok(game, seat, 0) else []
    top = min(MAX_X, (avail - cost.mana) // cost.x)
    if top < 0 or not unveil_cost_ok(game, seat, 0):
        return []
    impl = IMPLEMENTATIONS.get(game.players[seat].identity.name)
    if impl is not None and impl.x_ok is not None:
        return [x for x in range(top + 1) if impl.x_ok(game, seat, x)]
    return list(range(top + 1))


def on_unveiled(game: "Game", seat: int) -> None:
    """CR 702.187d / 314.8: the "when unveiled" trigger of the identity just
    turned face up by the unveil special action."""
    from .engine import StackItem
    idc = game.players[seat].identity
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is None or impl.on_unveil is None:
        return
    t = StackItem(game._new_uid(), "trigger", seat, source=idc.name, key="unveil", identity_source=True)
    t.x = idc.x
    if impl.unveil_specs is not None:
        t.data["specs"] = list(impl.unveil_specs(game, seat, idc.x))
    if impl.unveil_prepare is not None:
        t.data["prepare"] = impl.unveil_prepare
    game.add_trigger(t)


def _ability_ok(game: "Game", seat: int, idc: "IdentityCard", k: int, ab: Activated) -> bool:
    if ab.once_per_turn and idc.used.get(f"act{k}") == game.turn:
        return False
    if ab.counter and idc.counters.get(ab.counter, 0) <= 0:
        return False
    if game.available_mana(seat) < ab.mana:
        return False
    if ab.extra_ok is not None and not ab.extra_ok(game, seat):
        return False
    return game._has_targets(seat, ab.specs)


def activatable(game: "Game", seat: int) -> list[int]:
    """Indices of the face-up identity's activated abilities ``seat`` may activate now."""
    idc = game.players[seat].identity
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is None or not impl.activated:
        return []
    return [k for k, ab in enumerate(impl.activated) if _ability_ok(game, seat, idc, k, ab)]


def activate(game: "Game", seat: int, k: int) -> None:
    """Activate ability ``k`` (CR 602.2): pay mana and counters, extra costs,
    choose modes and targets, put it on the stack."""
    from .engine import StackItem
    idc = game.players[seat].identity
    ab = IMPLEMENTATIONS[idc.name].activated[k]
    if ab.once_per_turn:
        idc.used[f"act{k}"] = game.turn
    game._pay_mana(seat, ab.mana)
    if ab.counter:
        idc.counters[ab.counter] -= 1
    item = StackItem(game._new_uid(), "ability", seat, source=idc.name, key=f"act{k}", identity_source=True)
    item.x = idc.x
    item.data["resolve"] = ab.resolve
    ops: list = []
    if ab.pay is not None:
        ab.pay(game, seat, item)
    if ab.prepare:
        ops.append(("call", ab.prepare, item))
    for spec in ab.specs:
        ops.append(("choose_target", item, spec, spec.get("max", 1)))
    ops.append(("push_item", item))
    game.then(*ops)


def fire_event(game: "Game", event: str, **kw: Any) -> None:
    """Triggered abilities of face-up identities listening to ``event``."""
    for p in game.players:
        idc = p.identity
        if p.has_lost or not idc.face_up:
            continue
        impl = IMPLEMENTATIONS.get(idc.name)
        if impl is not None:
            h = impl.events.get(event)
            if h is not None:
                h(game, idc, **kw)


def run_delayed(game: "Game", d: dict) -> None:
    """Run a delayed triggered ability (CR 603.7) registered in ``game.delayed``."""
    globals()[d["fn"]](game, d)


def resolve(game: "Game", item: "StackItem") -> None:
    """Resolve an identity trigger or activated ability."""
    if item.key == "unveil":
        globals()[IMPLEMENTATIONS[item.source].on_unveil](game, item)
    else:
        globals()[item.data["resolve"]](game, item)


def before_leaving(game: "Game", seat: int) -> None:
    """CR 907.8a: identity-sourced abilities of a losing player happen before they
    leave (abstraction: they resolve at once, without a priority window)."""
    idc = game.players[seat].identity
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is not None and impl.leaving is not None and idc.face_up:
        impl.leaving(game, idc)


# ---------------------------------------------------------------------------- primitives
def _targets(item: "StackItem", kind: str | None = None) -> list:
    return [t for t in item.targets if t is not None and (kind is None or t[0] == kind)]


def _creature_choice_options(game: "Game", seat: int, cands: list) -> list:
    L = game.layout
    out = []
    for c in cands:
        slot = game.players[c.controller].creatures.index(c)
        if slot < MAX_PERMS:
            out.append((L.perm(game.rel(seat, c.controller), slot), c))
    return out


def _exile_linked(game: "Game", creatures: list) -> list:
    """Exile creatures, returning ``[(owner, card)]`` for the nontoken ones that
    can come back (tokens cease to exist; a commander goes to the command zone)."""
    back = []
    for c in creatures:
        if c.token or c.is_commander:
            game.exile_creature(c)
            continue
        if game.exile_creature(c):
            back.append((c.owner, c.card))
    return back


def _return_from_exile(game: "Game", linked: list, tapped: bool) -> None:
    for owner, card in linked:
        p = game.players[owner]
        if p.has_lost or card not in p.exile:
            continue
        p.exile.remove(card)
        game.put_onto_battlefield(owner, card, tapped=tapped)


# ---------------------------------------------------------------------------- Guardians (uncommon)
# The Bodyguard: prevent all damage to a target player and their permanents until
# the Bodyguard's controller's next turn.
def _bodyguard_unveil(game: "Game", item: "StackItem") -> None:
    for _, s in _targets(item, "p"):
        game.shields.append({"kind": "prevent_damage", "seat": s, "until_turn_of": item.controller,
                             "owner": item.controller})
        game._log("shield", seat=s, source=item.source)


_register(IdentityImpl("The Bodyguard", on_unveil="_bodyguard_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player"}]))


# The Cathar: exile up to three target nonland permanents until its controller loses.
def _cathar_unveil(game: "Game", item: "StackItem") -> None:
    idc = game.players[item.controller].identity
    back = _exile_linked(game, [c for _, c in _targets(item, "c")])
    idc.data.setdefault("linked", []).extend(back)


def _cathar_leaving(game: "Game", idc: "IdentityCard") -> None:
    linked = idc.data.pop("linked", [])
    _return_from_exile(game, linked, tapped=False)


_register(IdentityImpl("The Cathar", on_unveil="_cathar_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "nonland_permanent", "min": 0, "max": 3}],
                       leaving=_cathar_leaving))


# The Flickering Mage: exile up to four target nonland permanents; return them
# tapped at the beginning of the next end step (tokens don't return).
def _flickering_unveil(game: "Game", item: "StackItem") -> None:
    back = _exile_linked(game, [c for _, c in _targets(item, "c")])
    if back:
        game.delayed.append({"when": "end_step", "fn": "_flickering_return", "cards": back})


def _flickering_return(game: "Game", d: dict) -> None:
    _return_from_exile(game, d["cards"], tapped=True)


_register(IdentityImpl("The Flickering Mage", on_unveil="_flickering_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "nonland_permanent", "min": 0, "max": 4}]))


# The Golem: a target Leader player loses 6 life and you gain 6; while face up,
# Leader players have hexproof and can't be attacked.
def _golem_unveil(game: "Game", item: "StackItem") -> None:
    for _, s in _targets(item, "p"):
        game.lose_life(s, 6, source_seat=item.controller)
        game.gain_life(item.controller, 6)


_register(IdentityImpl("The Golem", on_unveil="_golem_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "leader_player"}],
                       statics=frozenset({"leaders_hexproof", "leaders_unattackable"})))


# The Immortal: up to one target player gains 15 life; up to one target player
# shuffles their graveyard into their library.
def _immortal_unveil(game: "Game", item: "StackItem") -> None:
    t = item.targets
    if len(t) > 0 and t[0] is not None:
        game.gain_life(t[0][1], 15)
    if len(t) > 1 and t[1] is not None:
        p = game.players[t[1][1]]
        p.library.extend(p.graveyard)
        p.graveyard = []
        game.rng.shuffle(p.library)
        game._log("shuffle_graveyard", seat=p.seat)


_register(IdentityImpl("The Immortal", on_unveil="_immortal_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player", "min": 0}, {"type": "player", "min": 0}]))


# The Inquisitor ({X}{1}): X other target players reveal their hands; for each,
# you exile a card from that player's hand or graveyard.
def _inquisitor_x_ok(game: "Game", seat: int, x: int) -> bool:
    """X is at most the number of other players that will be legal targets when
    the trigger's targets are chosen, i.e. once the Inquisitor is face up: a
    Leader player with hexproof (The Golem) is then an opponent only if the
    Inquisitor's controller is not on the Leader team (CR 907.7g)."""
    from .rules import Team, team_of
    on_leader_team = team_of(game.players[seat].identity.role) == Team.LEADER
    others = [s for s in game.alive() if s != seat and (
        on_leader_team or not (game.has_static("leaders_hexproof") and game.is_leader_player(s)))]
    return x <= len(others)


def _inquisitor_unveil(game: "Game", item: "StackItem") -> None:
    game.then(*[("call", "_inquisitor_pick", item.controller, s) for _, s in _targets(item, "p")])


def _inquisitor_pick(game: "Game", seat: int, victim: int) -> None:
    p = game.players[victim]
    if p.has_lost:
        return
    game._log("reveal_hand", seat=victim, cards=[c.name for c in p.hand])
    options = [("hand", i, c) for i, c in enumerate(p.hand)]
    seen = set()
    for c in p.graveyard:
        if c.name not in seen:
            seen.add(c.name)
            options.append(("graveyard", -1, c))
    options = options[:MAX_CHOICE]
    L = game.layout
    game.ask(seat, 8, [(L.CHOICE + k, (victim,) + o[:2] + (o[2].name,)) for k, o in enumerate(options)],
             "_inquisitor_exile", None, f"exile a card from P{victim}'s hand or graveyard",
             labels=[f"{o[2].name} ({o[0]})" for o in options])


def _inquisitor_exile(game: "Game", _data: Any, choice: tuple) -> None:
    victim, zone, i, name = choice
    p = game.players[victim]
    if zone == "hand":
        c = p.hand.pop(i)
    else:
        k = next(j for j, c in enumerate(p.graveyard) if c.name == name)
        c = p.graveyard.pop(k)
    p.exile.append(c)
    game._log("exile_card", seat=victim, card=c.name, zone=zone)


_register(IdentityImpl("The Inquisitor", on_unveil="_inquisitor_unveil", x_ok=_inquisitor_x_ok,
                       unveil_specs=lambda g, s, x: [{"type": "player", "other": True, "max": x, "exact": True}]
                       if x > 0 else []))


# The Mirror Maestra ({X}{X}{2}): choose a player and X target permanents; that
# player creates a token copy of each.
def _maestra_x_ok(game: "Game", seat: int, x: int) -> bool:
    return x <= sum(len(p.creatures[:MAX_PERMS]) for p in game.players if not p.has_lost)


def _maestra_prepare(game: "Game", item: "StackItem") -> None:
    L = game.layout
    opts = [(L.PLAYER + game.rel(item.controller, s), s) for s in game.alive()]
    game.ask(item.controller, 5, opts, "_maestra_player", item, "choose the player who gets the copies")


def _maestra_player(game: "Game", item: "StackItem", s: int) -> None:
    item.data["player"] = s


def _maestra_unveil(game: "Game", item: "StackItem") -> None:
    s = item.data.get("player", item.controller)
    if game.players[s].has_lost:
        return
    for _, c in _targets(item, "c"):
        game.create_creature_token(s, c.name, 1, copy_of=c)


_register(IdentityImpl("The Mirror Maestra", on_unveil="_maestra_unveil", x_ok=_maestra_x_ok,
                       unveil_prepare="_maestra_prepare",
                       unveil_specs=lambda g, s, x: [{"type": "permanent", "max": x, "exact": True}] if x > 0 else []))


# ---------------------------------------------------------------------------- Traitors (uncommon)
# The Banisher: exile any number of target creatures; draw a card for each
# nontoken creature exiled this way.
def _banisher_unveil(game: "Game", item: "StackItem") -> None:
    n = 0
    for _, c in _targets(item, "c"):
        # a token ceases to exist; a commander goes to the command zone instead
        # (CR 903.9b, always chosen here): neither was "exiled this way"
        counts = not c.token and not (c.is_commander and game.config.commander)
        if game.exile_creature(c) and counts:
            n += 1
    game.draw(item.controller, n)


_register(IdentityImpl("The Banisher", on_unveil="_banisher_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "creature", "min": 0, "max": 99}]))


# The Gatekeeper: create Cerberus (legendary 4/8 menace, double strike, trample,
# lifelink); {2}: turn The Gatekeeper face down.
def _gatekeeper_unveil(game: "Game", item: "StackItem") -> None:
    game.create_tokens(item.controller, "Cerberus", 1)


def _gatekeeper_face_down(game: "Game", item: "StackItem") -> None:
    idc = game.players[item.controller].identity
    if idc.name == "The Gatekeeper" and idc.face_up:
        game.turn_face_down(item.controller)


_register(IdentityImpl("The Gatekeeper", on_unveil="_gatekeeper_unveil",
                       activated=(Activated("{2}: turn The Gatekeeper face down", "_gatekeeper_face_down", mana=2),)))


# The Grenadier ({X}): create X+3 Explosive tokens; {1}, sacrifice an Explosive:
# choose one - destroy target nonland permanent; or target player loses 3 life.
def _grenadier_unveil(game: "Game", item: "StackItem") -> None:
    game.create_tokens(item.controller, "Explosive", item.x + 3)


def _grenadier_pay(game: "Game", seat: int, item: "StackItem") -> None:
    game.players[seat].tokens["Explosive"] -= 1


def _grenadier_prepare(game: "Game", item: "StackItem") -> None:
    L = game.layout
    seat = item.controller
    opts = []
    if game.target_candidates(seat, {"type": "nonland_permanent"}):
        opts.append((L.CHOICE + 0, 0))
    if game.target_candidates(seat, {"type": "player"}):
        opts.append((L.CHOICE + 1, 1))
    names = ("destroy target nonland permanent", "target player loses 3 life")
    game.ask(seat, 7, opts, "_grenadier_mode", item, "choose a mode", labels=[names[m] for _, m in opts])


def _grenadier_mode(game: "Game", item: "StackItem", mode: int) -> None:
    item.data["mode"] = mode
    spec = {"type": "nonland_permanent"} if mode == 0 else {"type": "player"}
    game.then(("choose_target", item, spec, 1))


def _grenadier_explode(game: "Game", item: "StackItem") -> None:
    for kind, obj in _targets(item):
        if kind == "c":
            game.destroy(obj)
        else:
            game.lose_life(obj, 3, source_seat=item.controller)


_register(IdentityImpl("The Grenadier", on_unveil="_grenadier_unveil",
                       activated=(Activated("{1}, sacrifice an Explosive: destroy target nonland permanent "
                                            "or target player loses 3 life", "_grenadier_explode", mana=1,
                                            extra_ok=lambda g, s: g.players[s].tokens["Explosive"] > 0,
                                            pay=_grenadier_pay, prepare="_grenadier_prepare"),)))


# The Oneiromancer ({X}{X}): exile the top X cards of each library face down; you
# may look at them; once each turn you may cast one of them without paying its
# mana cost, and when you do, exile the top card of target player's library face
# down too.
def _oneiro_unveil(game: "Game", item: "StackItem") -> None:
    idc = game.players[item.controller].identity
    pile = idc.data.setdefault("dream", [])
    for s in game._apnap():
        lib = game.players[s].library
        for _ in range(min(item.x, len(lib))):
            pile.append((s, lib.pop()))
    if pile:
        game._log("exile_face_down", seat=item.controller, n=len(pile))


def _oneiro_castable(game: "Game", seat: int) -> list:
    idc = game.players[seat].identity
    sorcery = game._sorcery_timing(seat)
    out = []
    for k, (owner, c) in enumerate(idc.data.get("dream", [])):
        if c.is_land or game.players[owner].has_lost:
            continue
        if (sorcery or c.type == "instant") and game.castable_targets(seat, c):
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
    from .engine import StackItem
    seat = item.controller
    idc = game.players[seat].identity
    owner, card = idc.data["dream"].pop(k)
    game._log("cast_from_exile", seat=seat, card=card.name)
    item.data["skip"] = True
    reflex = StackItem(game._new_uid(), "trigger", seat, source=idc.name, key="_oneiro_reflex", identity_source=True)
    reflex.data["resolve"] = "_oneiro_reflex"
    reflex.data["specs"] = [{"type": "player"}]
    game.add_trigger(reflex)
    game._begin_cast(seat, card, "exile", free=True, owner=owner)


def _oneiro_reflex(game: "Game", item: "StackItem") -> None:
    idc = game.players[item.controller].identity
    for _, s in _targets(item, "p"):
        lib = game.players[s].library
        if lib:
            idc.data.setdefault("dream", []).append((s, lib.pop()))
            game._log("exile_face_down", seat=item.controller, n=1)


def _oneiro_noop(game: "Game", item: "StackItem") -> None:
    """The activation already cast the card (see :func:`_oneiro_cast`)."""


_register(IdentityImpl("The Oneiromancer", on_unveil="_oneiro_unveil",
                       activated=(Activated("cast one of the exiled cards without paying its mana cost",
                                            "_oneiro_noop", once_per_turn=True,
                                            extra_ok=lambda g, s: bool(_oneiro_castable(g, s)),
                                            prepare="_oneiro_prepare"),)))


# ---------------------------------------------------------------------------- Assassins (uncommon)
# The Ambitious Queen (pay 1 life, exile a nonland card from hand): counter
# target noncreature spell.
def _queen_unveil(game: "Game", item: "StackItem") -> None:
    for _, it in _targets(item, "s"):
        game.counter(it)


_register(IdentityImpl("The Ambitious Queen", on_unveil="_queen_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "noncreature_spell"}]))


# The Beastmaster: up to two target players each create two 4/4 Beasts with trample.
def _beastmaster_unveil(game: "Game", item: "StackItem") -> None:
    for _, s in _targets(item, "p"):
        game.create_tokens(s, "Beast", 2)


_register(IdentityImpl("The Beastmaster", on_unveil="_beastmaster_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player", "min": 0, "max": 2}]))


# The Chaos Wielder: choose a card type; your spells of that type have cascade
# this turn.
CASCADE_TYPES = ("creature", "instant", "sorcery")


def _chaos_unveil(game: "Game", item: "StackItem") -> None:
    L = game.layout
    game.ask(item.controller, 7, [(L.CHOICE + k, t) for k, t in enumerate(CASCADE_TYPES)], "_chaos_type",
             item.controller, "choose a card type", labels=list(CASCADE_TYPES))


def _chaos_type(game: "Game", seat: int, t: str) -> None:
    game.turn_effects.setdefault("cascade", []).append((seat, t))
    game._log("chaos_type", seat=seat, card_type=t)


def _cascade_on_cast(game: "Game", idc: "IdentityCard", item: "StackItem") -> None:
    """CR 702.85a: when you cast a spell with cascade, exile cards from the top of
    your library until a nonland card with lesser mana value; you may cast it
    without paying its cost; the rest go to the bottom in a random order."""
    from .engine import StackItem
    if item.kind != "spell" or item.is_copy:
        return
    for seat, t in game.turn_effects.get("cascade", ()):
        if seat == item.controller and item.card.type == t:
            trig = StackItem(game._new_uid(), "trigger", seat, source="cascade", key="cascade",
                             identity_source=False)
            trig.data["resolve"] = "_cascade_resolve"
            trig.data["mv"] = item.card.cost + item.x
            trig.data["ident"] = True
            game.add_trigger(trig)


def _cascade_resolve(game: "Game", item: "StackItem") -> None:
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
    if hit is None:
        _cascade_bottom(game, seat, exiled)
        return
    game._log("cascade", seat=seat, card=hit.name)
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
        game._begin_cast(seat, card, "exile", free=True)
    else:
        _cascade_bottom(game, seat, exiled + [card])


_register(IdentityImpl("The Chaos Wielder", on_unveil="_chaos_unveil",
                       events={"cast": lambda g, idc, item: _cascade_on_cast(g, idc, item)
                               if idc.controller == item.controller else None}))


# The Demon: target player searches their library for a card, puts it into
# their hand, then shuffles.
def _demon_unveil(game: "Game", item: "StackItem") -> None:
    for _, s in _targets(item, "p"):
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


_register(IdentityImpl("The Demon", on_unveil="_demon_unveil", unveil_specs=lambda g, s, x: [{"type": "player"}]))


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
        from .engine import StackItem
        reflex = StackItem(game._new_uid(), "trigger", seat, source=item.source, key="seer_reflex",
                           identity_source=True)
        reflex.data["resolve"] = "_seer_damage"
        reflex.data["n"] = 2 * top.cost
        reflex.data["specs"] = [{"type": "any"}]
        game.add_trigger(reflex)


def _seer_damage(game: "Game", item: "StackItem") -> None:
    for t in _targets(item):
        game.damage(item.controller, t, item.data["n"], source_name=item.source)


_register(IdentityImpl("The Seer", on_unveil="_seer_unveil"))


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
    game._log("cast_from_graveyard", seat=seat, card=card.name, owner=owner)
    # the second card is offered once the first is on the stack
    game.then(("call", "_sigil_offer", seat, left - 1))
    game._begin_cast(seat, card, "graveyard", free=True, owner=owner)


_register(IdentityImpl("The Sigil Mage", on_unveil="_sigil_unveil"))


# The Sorceress: you may choose new targets for target instant or sorcery spell,
# then copy it; you may choose new targets for the copy.
def _sorceress_unveil(game: "Game", item: "StackItem") -> None:
    for _, spell in _targets(item, "s"):
        if spell not in game.stack:
            continue
        ops = [("call", "_retarget", item.controller, spell, k) for k in range(len(spell.targets))]
        ops.append(("call", "_sorceress_copy", item.controller, spell))
        game.then(*ops)


def _retarget(game: "Game", seat: int, spell: "StackItem", k: int) -> None:
    """Offer ``seat`` a new target for target ``k`` of ``spell`` (PASS keeps it)."""
    if spell not in game.stack and not spell.is_copy:
        return
    spec = spell.target_specs[k]
    cands = game.target_candidates(spell.controller if not spell.is_copy else seat, spec, spell)
    opts = [(game.layout.PASS, None)]
    for t in cands:
        a = game.target_action(seat, t)
        if a is not None and a != game.layout.PASS:
            opts.append((a, t))
    game.ask(seat, 5, opts, "_retarget_set", (spell, k), f"new target for {spell.source}? (PASS keeps it)")


def _retarget_set(game: "Game", data: tuple, t: Any) -> None:
    spell, k = data
    if t is not None:
        spell.targets[k] = t


def _sorceress_copy(game: "Game", seat: int, spell: "StackItem") -> None:
    """CR 707.10: a copy of a spell, controlled by ``seat``, put on the stack."""
    from .engine import StackItem
    cp = StackItem(game._new_uid(), "spell", seat, spell.card)
    cp.is_copy = True
    cp.x = spell.x
    cp.targets = list(spell.targets)
    cp.target_specs = list(spell.target_specs)
    cp.owner = seat
    game.stack.append(cp)
    game._log("copy", seat=seat, card=spell.card.name)
    game.then(*[("call", "_retarget", seat, cp, k) for k in range(len(cp.targets))])


_register(IdentityImpl("The Sorceress", on_unveil="_sorceress_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "instant_sorcery_spell"}]))


# ---------------------------------------------------------------------------- Leaders (uncommon)
# The Blood Empress: once each turn, when one or more creatures your opponents
# control leave the battlefield, choose two different modes.
EMPRESS_MODES = ("create a 0/1 Thrull", "create two Blood tokens", "tap or untap target creature",
                 "target opponent loses 2 life and you gain 2 life")


def _empress_left(game: "Game", idc: "IdentityCard", creature: Any) -> None:
    from .engine import StackItem
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


_register(IdentityImpl("The Blood Empress", events={"creature_left": _empress_left}))


# Her Seedborn Highness (starts with a seed counter per player): {2}, remove a
# seed counter, once each turn: untap each permanent you control.
def _seedborn_untap(game: "Game", item: "StackItem") -> None:
    p = game.players[item.controller]
    p.lands_tapped = 0
    for c in p.creatures:
        game.untap(c)
    game._log("untap_all", seat=p.seat)


_register(IdentityImpl("Her Seedborn Highness", activated=(
    Activated("{2}, remove a seed counter: untap each permanent you control", "_seedborn_untap", mana=2,
              counter="seed", once_per_turn=True),)))


# The Old Ruler (+20 life, +1 starting and maximum hand size, from data): at your
# first upkeep, create a Blood, a Clue, a Food, a Map and a Treasure token.
def _old_ruler_upkeep(game: "Game", idc: "IdentityCard", seat: int) -> None:
    from .engine import StackItem
    if seat != idc.controller or idc.data.get("first_upkeep_done"):
        return
    idc.data["first_upkeep_done"] = True
    t = StackItem(game._new_uid(), "trigger", seat, source=idc.name, key="old_ruler", identity_source=True)
    t.data["resolve"] = "_old_ruler_tokens"
    game.add_trigger(t)


def _old_ruler_tokens(game: "Game", item: "StackItem") -> None:
    for name in ("Blood", "Clue", "Food", "Map", "Treasure"):
        game.create_tokens(item.controller, name, 1)


_register(IdentityImpl("The Old Ruler", events={"upkeep": _old_ruler_upkeep}))


# The Queen of Light (purification counters = players // 2): {3}, remove a
# purification counter: exile a permanent chosen on resolution.
def _light_exile(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    cands = [c for p in game.players if not p.has_lost for c in p.creatures]
    game.ask(seat, 8, _creature_choice_options(game, seat, cands), "_light_pick", None,
             "choose a permanent to exile")


def _light_pick(game: "Game", _data: Any, c: Any) -> None:
    game.exile_creature(c)


_register(IdentityImpl("The Queen of Light", activated=(
    Activated("{3}, remove a purification counter: exile a permanent chosen on resolution", "_light_exile",
              mana=3, counter="purification"),)))


# The Void Tyrant (void counters = players // 2): {2}, remove a void counter:
# counter target spell or ability whose source isn't an identity.
def _void_counter(game: "Game", item: "StackItem") -> None:
    for _, it in _targets(item, "s"):
        game.counter(it)


_register(IdentityImpl("The Void Tyrant", activated=(
    Activated("{2}, remove a void counter: counter target spell or ability not from an identity",
              "_void_counter", mana=2, counter="void", specs=({"type": "stack_object"},)),)))
