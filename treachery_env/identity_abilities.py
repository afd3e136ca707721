"""Abilities of identity cards: a small vocabulary of effect primitives and one
:class:`IdentityImpl` per implemented identity.

An implementation says, for its identity:

* ``unveil_specs(game, seat, x)``: the targets of its "when unveiled" trigger
  (CR 702.187d), chosen as the trigger goes on the stack;
* ``on_unveil(game, item)``: what that trigger does on resolution; ``X`` is
  ``item.x``, the X paid in the unveil cost (CR 702.187e);
* ``x_ok(game, seat, x)``: extra limits on X (enough targets for "X target ...");
* ``statics``: keys of continuous effects while face up (CR 314.4); with
  ``statics_until_loss`` they stop as soon as the controller loses, before the
  identity-sourced objects of a losing player resolve (CR 907.8a; The Golem:
  "until its controller loses"), otherwise they work until the player leaves;
* ``activated``: activated abilities of the face-up identity;
* ``events``: triggered abilities, keyed by game event;
* ``as_unveiled``: name of a callback ``(game, seat)`` applied while the card
  turns face up, before "when unveiled" (CR 314.12, The Wearer of Masks);
* ``cost_reduction(game, seat) -> int``: generic mana taken off the unveil cost
  (The Quellmaster);
* ``replacements``: ``{kind: fn(game, idc, ev)}`` applied while face up (see
  :func:`replace`); ``forbids``: ``{key: fn(game, idc, **kw) -> bool}`` (see
  :func:`forbids`).
* ``unveil_if(game, seat) -> bool``: the intervening "if" of the "when
  unveiled" trigger ("if it's your turn", CR 603.4): it triggers only if true,
  and does nothing on resolution unless still true.

Effects that last after their ability resolved (until end of turn, "the next
time ...") live in ``game.effects`` as dicts ``{"kind", "fn", "controller",
"until", ...}``: ``kind`` is a replacement kind or ``"forbid:<key>"``; ``fn``
names a callback ``(game, effect, ev)``; ``until`` is ``"eot"`` (removed in
cleanup), ``("turn_of", seat)`` or None.

Decisions inside an ability are made with ``game.ask(...)``; the answer calls a
module-level function of this file by name, so every piece of state stays plain
data (``Game.clone`` is a deep copy).  Paraphrased card texts are in
``data/identities.json``; each function cites the card it implements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

try:
    import cython
except ImportError:         # run from source without Cython: its decorators do nothing (_cython_shim)
    from . import _cython_shim as cython

from .actions import MAX_HAND, MAX_PERMS, MAX_X
from .engine.state import GameState, IdentityCard, Player

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game, StackItem

__all__ = ["IdentityImpl", "Activated", "IMPLEMENTATIONS", "CALLBACKS", "register", "register_callbacks",
           "targets_of", "creature_options", "exile_linked", "return_from_exile", "copy_on_stack",
           "identity_trigger", "static_keys", "unveil_cost_ok", "unveil_xs", "on_unveiled",
           "activatable", "can_activate", "activate", "fire_event", "run_delayed", "resolve"]


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
    statics_until_loss: bool = False
    activated: tuple = ()
    events: dict = field(default_factory=dict)
    as_unveiled: str | None = None
    cost_reduction: Callable | None = None
    replacements: dict = field(default_factory=dict)
    forbids: dict = field(default_factory=dict)
    unveil_if: Callable | None = None


IMPLEMENTATIONS: dict[str, IdentityImpl] = {}
"""Implemented identities by name (filled by the modules of :mod:`treachery_env.identity_cards`)."""

CALLBACKS: dict[str, Callable] = {}
"""Functions that queue operations, decisions and stack objects refer to by name
(so that game state stays plain data)."""


def register(impl: IdentityImpl) -> None:
    """Add an identity implementation.

    Raises:
        ValueError: if the name is not an identity of data/identities.json or is
            registered twice.
    """
    from .identities import get
    get(impl.name)
    if impl.name in IMPLEMENTATIONS:
        raise ValueError(f"identity {impl.name!r} is implemented twice")
    IMPLEMENTATIONS[impl.name] = impl


def register_callbacks(namespace: dict) -> None:
    """Register every function defined in a module's ``namespace`` (pass
    ``globals()``) as a callback by name.

    Raises:
        ValueError: if two different functions share a name.
    """
    mod = namespace["__name__"]
    for name, fn in list(namespace.items()):
        if callable(fn) and getattr(fn, "__module__", None) == mod and not isinstance(fn, type):
            old = CALLBACKS.get(name)
            if old is not None and old is not fn:
                raise ValueError(f"callback name {name!r} is defined in {old.__module__} and {mod}")
            CALLBACKS[name] = fn


# ---------------------------------------------------------------------------- engine entry points
@cython.locals(game=GameState, p=Player, idc=IdentityCard)
def static_keys(game: "Game") -> set[str]:
    """Continuous effects of every face-up identity of a player in the game
    (CR 314.4): a player who lost but hasn't left yet (``Game.leaving``, CR
    907.8a) still has them, unless they last "until its controller loses"
    (``IdentityImpl.statics_until_loss``)."""
    out: set[str] = set()
    for p in game.players:
        idc = p.identity
        if idc is not None and idc.face_up and not p.has_lost:
            impl = IMPLEMENTATIONS.get(idc.name)
            if impl is not None and impl.statics and not (impl.statics_until_loss and p.seat in game.leaving):
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
    if cost.sacrifice:
        flt = cost.sacrifice.get("filter", "")
        have = len(p.creatures) if "token" in flt and "nontoken" not in flt else sum(1 for c in p.creatures if not c.token)
        if flt == "nontoken permanent":
            have += p.lands            # lands are nontoken permanents too
        if have < cost.sacrifice["count"]:
            return False
    if cost.x and cost.y and x < 1:       # The Summoner: X >= 1 and Y >= 1
        return False
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is not None and impl.x_ok is not None and not impl.x_ok(game, seat, x):
        return False
    return True


def unveil_xs(game: "Game", seat: int, avail: int) -> list[int]:
    """Values of X (0 for a cost without X) for which ``seat`` can pay its unveil
    cost with ``avail`` generic mana (Undercover is checked by the caller)."""
    cost = game.players[seat].identity.unveil_cost
    base = max(0, cost.mana - cost_reduction(game, seat)) + cost.y   # {Y} is at least 1 when present
    if not cost.x:
        return [0] if base <= avail and unveil_cost_ok(game, seat, 0) else []
    top = min(MAX_X, (avail - base) // cost.x)
    low = 1 if cost.y else 0            # {X}{Y} (The Summoner): X >= 1
    if top < low or not unveil_cost_ok(game, seat, low):
        return []
    impl = IMPLEMENTATIONS.get(game.players[seat].identity.name)
    if impl is not None and impl.x_ok is not None:
        return [x for x in range(low, top + 1) if impl.x_ok(game, seat, x)]
    return list(range(low, top + 1))


def on_unveiled(game: "Game", seat: int) -> None:
    """CR 314.12 then CR 702.187d / 314.8: an "as unveiled" ability applies while
    the card turns face up (no one can act in between), then the "when unveiled"
    trigger of the identity (of what it copies, if it became a copy) triggers."""
    idc = game.players[seat].identity
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is not None and impl.as_unveiled is not None:
        game.then(("call", impl.as_unveiled, seat), ("call", "unveil_trigger", seat))
        return
    unveil_trigger(game, seat)


def unveil_trigger(game: "Game", seat: int) -> None:
    """Put the "when unveiled" trigger of ``seat``'s identity among the pending triggers."""
    from .engine import StackItem
    idc = game.players[seat].identity
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is None or impl.on_unveil is None:
        return
    if impl.unveil_if is not None and not impl.unveil_if(game, seat):
        return              # intervening "if" false: it doesn't trigger (CR 603.4)
    t = StackItem(game._new_uid(), "trigger", seat, source=idc.name, key="unveil", identity_source=True)
    t.x = idc.x
    if impl.unveil_specs is not None:
        t.data["specs"] = list(impl.unveil_specs(game, seat, idc.x))
    if impl.unveil_prepare is not None:
        t.data["prepare"] = impl.unveil_prepare
    game.add_trigger(t)


@cython.locals(game=GameState, idc=IdentityCard)
def _ability_ok(game: "Game", seat: int, idc: "IdentityCard", k: int, ab: Activated, avail: int) -> bool:
    """Whether ability ``k`` (``ab``) of ``seat``'s identity ``idc`` may be
    activated now, with ``avail`` generic mana available: its mana, its
    counter, once each turn, its extra condition and its targets."""
    if avail < ab.mana:
        return False
    if ab.once_per_turn and idc.used.get(f"act{k}") == game.turn:
        return False
    if ab.counter and idc.counters.get(ab.counter, 0) <= 0:
        return False
    if ab.extra_ok is not None and not ab.extra_ok(game, seat):
        return False
    return game._has_targets(seat, ab.specs)


@cython.locals(game=GameState, p=Player, idc=IdentityCard)
def activatable(game: "Game", seat: int) -> list[int]:
    """Indices of the face-up identity's activated abilities ``seat`` may activate now."""
    p = game.players[seat]
    idc = p.identity
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is None or not impl.activated:
        return []
    avail = game.available_mana(seat)
    return [k for k, ab in enumerate(impl.activated) if _ability_ok(game, seat, idc, k, ab, avail)]


@cython.locals(game=GameState, p=Player, idc=IdentityCard)
def can_activate(game: "Game", seat: int) -> bool:
    """Whether ``seat`` may activate one of its face-up identity's activated
    abilities now: ``bool(activatable(game, seat))`` without building the list."""
    p = game.players[seat]
    idc = p.identity
    impl = IMPLEMENTATIONS.get(idc.name)
    if impl is None or not impl.activated:
        return False
    avail = game.available_mana(seat)
    for k, ab in enumerate(impl.activated):
        if _ability_ok(game, seat, idc, k, ab, avail):
            return True
    return False


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


@cython.locals(game=GameState, p=Player, idc=IdentityCard, impls=dict, events=dict)
def fire_event(game: "Game", event: str, **kw: Any) -> None:
    """Triggered abilities of face-up identities listening to ``event``; then
    effects in ``game.effects`` of kind ``"on:<event>"`` (delayed triggers that
    watch for an event whatever their source's state, The Ferryman; a duration
    ending, The Cathar's "until you lose the game" on ``"losing"``): their
    callback ``fn(game, effect, kw)`` runs."""
    impls = IMPLEMENTATIONS     # typed locals: their get is a C call, not a bound method made and called
    for p in game.players:
        idc = p.identity
        if idc is None or p.has_lost or not idc.face_up:     # None: no identity card (Throne Magic)
            continue
        # idc.name without the property's call (most identities are face up in a long game)
        impl = impls.get((idc.identity if idc.copy_of is None else idc.copy_of).name)
        if impl is not None:
            events = impl.events
            h = events.get(event)
            if h is not None:
                h(game, idc, **kw)
    if game.effects:
        k = "on:" + event
        for e in list(game.effects):
            if e["kind"] == k and e in game.effects:
                CALLBACKS[e["fn"]](game, e, kw)


@cython.locals(game=GameState, p=Player, idc=IdentityCard)
def replace(game: "Game", kind: str, ev: dict) -> None:
    """Apply replacement effects of ``kind`` to the event dict ``ev`` in place
    (CR 614): first effects in ``game.effects``, in the order they were created,
    then those of face-up identities in seat order (abstraction: the affected
    player doesn't choose the order, CR 616.1).  Kinds and their ``ev`` keys:

    * ``"damage"``: source_seat, target, amount, combat, source_creature;
    * ``"lose_life"``: seat, amount, source_seat;  ``"gain_life"``: seat, amount;
    * ``"discard"``: seat, n, source_seat;  ``"sacrifice"``: seat, creature, source_seat;
    * ``"lose_game"``: seats (those about to lose; remove a seat to replace its
      loss), reason, first (nobody has lost yet), empty_draw (the seats that
      lose for an attempt to draw from an empty library since the last
      state-based check, CR 704.5b; remove a seat there when the replacement
      deals with that reason too).
    """
    for e in list(game.effects):
        if e["kind"] == kind and e in game.effects:
            CALLBACKS[e["fn"]](game, e, ev)
    for p in game.players:
        idc = p.identity
        if idc is not None and idc.face_up and not p.has_lost:
            impl = IMPLEMENTATIONS.get(idc.name)
            if impl is not None and kind in impl.replacements:
                impl.replacements[kind](game, idc, ev)


def forbids(game: "Game", key: str, **kw: Any) -> bool:
    """Whether an effect forbids an action: ``"pay_life"`` (seat), ``"target_player"``
    (seat = who targets, target), ``"attack_player"`` (seat, target)."""
    k = "forbid:" + key
    for e in game.effects:
        if e["kind"] == k and CALLBACKS[e["fn"]](game, e, kw):
            return True
    for p in game.players:
        idc = p.identity
        if idc is not None and idc.face_up and not p.has_lost:
            impl = IMPLEMENTATIONS.get(idc.name)
            if impl is not None and key in impl.forbids and impl.forbids[key](game, idc, **kw):
                return True
    return False


@cython.locals(game=GameState, p=Player)
def cost_reduction(game: "Game", seat: int) -> int:
    """Generic mana taken off ``seat``'s unveil cost (CR 601.2f-style reduction)."""
    p = game.players[seat]
    impl = IMPLEMENTATIONS.get(p.identity.name)
    return 0 if impl is None or impl.cost_reduction is None else max(0, impl.cost_reduction(game, seat))


def run_delayed(game: "Game", d: dict) -> None:
    """Run a delayed triggered ability (CR 603.7) registered in ``game.delayed``."""
    CALLBACKS[d["fn"]](game, d)


def resolve(game: "Game", item: "StackItem") -> None:
    """Resolve an identity trigger or activated ability."""
    if item.key == "unveil":
        impl = IMPLEMENTATIONS[item.source]
        if impl.unveil_if is not None and not impl.unveil_if(game, item.controller):
            return          # intervening "if" checked again on resolution (CR 603.4)
        CALLBACKS[impl.on_unveil](game, item)
    else:
        CALLBACKS[item.data["resolve"]](game, item)


# ---------------------------------------------------------------------------- primitives
def targets_of(item: "StackItem", kind: str | None = None) -> list:
    """The chosen targets of ``item`` still legal (None removed), optionally only
    of ``kind`` (``"p"`` players, ``"c"`` creatures, ``"s"`` stack objects)."""
    return [t for t in item.targets if t is not None and (kind is None or t[0] == kind)]


def creature_options(game: "Game", seat: int, cands: list) -> list:
    """Decision options ``[(PERM action, creature)]`` for ``seat`` over ``cands``."""
    L = game.layout
    out = []
    for c in cands:
        slot = game.players[c.controller].creatures.index(c)
        if slot < MAX_PERMS:
            out.append((L.perm(game.rel(seat, c.controller), slot), c))
    return out


def exile_linked(game: "Game", creatures: list) -> list:
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


def _retarget(game: "Game", seat: int, item: "StackItem", k: int) -> None:
    """Offer ``seat`` a new target for target ``k`` of spell or ability ``item``
    (PASS keeps it; CR 115.7): The Sorceress, The Reflector, copies."""
    if item not in game.stack and not item.is_copy:
        return
    spec = item.target_specs[k]
    cands = game.target_candidates(item.controller if not item.is_copy else seat, spec, item)
    opts = [(game.layout.PASS, None)]
    for t in cands:
        a = game.target_action(seat, t)
        if a is not None and a != game.layout.PASS:
            opts.append((a, t))
    game.ask(seat, 5, opts, "_retarget_set", (item, k), f"new target for {item.source}? (PASS keeps it)")


def _retarget_set(game: "Game", data: tuple, t: Any) -> None:
    item, k = data
    if t is not None:
        item.targets[k] = t


def identity_trigger(game: "Game", idc: "IdentityCard", key: str, resolve: str, **data: Any) -> "StackItem":
    """A triggered ability of identity ``idc`` (identity-sourced, CR 603): a
    pending trigger controlled by its controller whose resolution calls the
    callback ``resolve(game, item)``; ``data`` is stored in ``item.data``."""
    from .engine import StackItem
    t = StackItem(game._new_uid(), "trigger", idc.controller, source=idc.name, key=key, identity_source=True)
    t.data["resolve"] = resolve
    t.data.update(data)
    game.add_trigger(t)
    return t


def copy_on_stack(game: "Game", it: "StackItem", seat: int) -> "StackItem":
    """Put a copy of spell or ability ``it`` controlled by ``seat`` on the stack
    (CR 707.10: copiable values and choices — X, modes, targets, linked data);
    then ``seat`` may choose new targets for it.  A copied spell ceases to exist
    instead of going to a graveyard.  Returns the copy."""
    from .engine import StackItem
    cp = StackItem(game._new_uid(), it.kind, seat, it.card, source=it.source, key=it.key,
                   identity_source=it.identity_source)
    cp.is_copy = True
    cp.x = it.x
    cp.targets = list(it.targets)
    cp.target_specs = list(it.target_specs)
    cp.owner = seat
    cp.from_zone = it.from_zone
    cp.creature = it.creature
    cp.data = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
               for k, v in it.data.items()}
    game.stack.append(cp)
    game._log("copy", seat=seat, source=it.source, key=it.key)
    game.then(*[("call", "_retarget", seat, cp, k) for k in range(len(cp.targets))])
    return cp


def return_from_exile(game: "Game", linked: list, tapped: bool) -> None:
    """Return ``[(owner, card)]`` exiled cards to the battlefield under their
    owners' control (owners still in the game; cards still in exile)."""
    for owner, card in linked:
        p = game.players[owner]
        if p.has_lost or card not in p.exile:
            continue
        p.exile.remove(card)
        game.put_onto_battlefield(owner, card, tapped=tapped)


register_callbacks(globals())
