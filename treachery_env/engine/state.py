# cython: auto_pickle=False
"""The game's objects as plain data (CR 109 objects, 110 permanents, 113 stack
objects, 314 identity cards): :class:`Player`, :class:`Creature`,
:class:`Attackable` (planeswalkers, CR 306), :class:`IdentityCard`, :class:`StackItem`, a pending :class:`Decision` and its
:class:`DecisionKind`, and the steps of a turn (:data:`PHASES`).  No rules live
here: the mixins of :mod:`treachery_env.engine` act on these objects, and
:class:`GameState` holds a game's state for :class:`~treachery_env.engine.Game`.

Compiled (:mod:`treachery_env.compiled`), each class is an extension type
whose attributes are C fields of the types ``state.pxd`` declares: a
``long`` field holds a machine integer (a float assigned to it is truncated,
an int beyond 64 bits raises OverflowError), a ``bint`` field a truth value
(assigning anything stores whether it is true), a field declared ``list``
or ``dict`` accepts only exactly that type or None (not a subclass), a field
of a state type only that type or None; a wrong type raises TypeError
without naming the field.  The engine assigns none of these (its numbers
are ints, its flags bools), so games are the same either way
(``tests/test_state_types.py``, ``bench/step_instructions.py``'s
fingerprint).  The engine's compiled modules read a field of an object
whose type they declare (``@cython.locals``) at its offset, without an
attribute lookup.  Run from source, they are plain classes with
``__slots__`` (the same names, the same values).  Both pickle the same way
(:class:`StateRecord`).
"""

from __future__ import annotations

import copyreg
from typing import Any

from .. import identities as ids
from ..cards import COUNTER_TOKENS, CardDef
from ..rules import Role, Team, team_of

__all__ = ["PHASES", "PHASE_INDEX", "MAIN_PHASES", "DecisionKind", "Creature", "Attackable", "ATTACKABLE_KINDS",
           "IdentityCard", "VanguardCard", "Player", "StackItem", "Decision", "GameState", "StateRecord", "slot_names", "numbered_name"]

PHASES = ("untap", "upkeep", "draw", "main1", "combat_begin", "declare_attackers",
          "declare_blockers", "first_strike_damage", "combat_damage", "combat_end", "main2",
          "end", "cleanup")
"""Steps of a turn (CR 500-514) in order."""
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
"""Position of each step name in :data:`PHASES`."""
MAIN_PHASES = (PHASE_INDEX["main1"], PHASE_INDEX["main2"])


def numbered_name(name: str, ordinal: int) -> str:
    """A permanent's name as people see it, given its number among same-named permanents.

    Args:
        name: the permanent's name (``"Web Weaver"``).
        ordinal: its number (:attr:`Creature.ordinal`, set by ``Game._number``; 1 for
            the first or a lone one).

    Returns:
        ``"Web Weaver #2"`` for an ordinal of 2 or more, else ``name`` unchanged
        (number 1 is not written).  The one place this rule lives: :attr:`Creature.label`,
        :attr:`Attackable.label` and the text layer (views included) all use it.
    """
    return name if ordinal < 2 else f"{name} #{ordinal}"


_SLOT_NAMES: dict[type, tuple[str, ...]] = {}


def slot_names(cls: type) -> tuple[str, ...]:
    """The ``__slots__`` names of ``cls`` and its bases, bases first, without
    ``__dict__`` and ``__weakref__`` (cached per class): every attribute a
    state object keeps outside an instance dict (compiled, its C fields and a
    subclass's own slots)."""
    names = _SLOT_NAMES.get(cls)
    if names is None:
        out: list[str] = []
        for k in reversed(cls.__mro__):
            declared = k.__dict__.get("__slots__", ())
            out += [n for n in ((declared,) if isinstance(declared, str) else declared)
                    if n not in out and n not in ("__dict__", "__weakref__")]
        names = _SLOT_NAMES[cls] = tuple(out)
    return names


class StateRecord:
    """Base of the state classes: how they pickle.

    An instance pickles as a plain class with ``__slots__`` does
    (``copyreg.__newobj__`` and the state ``(instance dict or None, {slot:
    value})``), compiled or run from source, so a pickle made by either loads
    in the other, and games pickled before the classes were compiled load too.
    A subclass's own slots and instance dict come along; an unset slot (run
    from source) stays unset.
    """

    __slots__ = ()

    def __reduce_ex__(self, protocol: int) -> tuple:
        slots = {}
        for name in slot_names(type(self)):
            try:
                slots[name] = getattr(self, name)
            except AttributeError:      # an unset slot
                pass
        return copyreg.__newobj__, (type(self),), (getattr(self, "__dict__", None) or None, slots)

    def __setstate__(self, state: Any) -> None:
        """Restore ``(instance dict or None, {slot: value})`` (or an instance dict alone)."""
        inst, slots = state if isinstance(state, tuple) else (state, None)
        if inst:
            self.__dict__.update(inst)
        for name, value in (slots or {}).items():
            setattr(self, name, value)


class DecisionKind:
    """Kinds of decision, as small ints (one-hot in observations)."""

    PRIORITY = 0      # main-phase or instant-speed actions, or pass
    ATTACKER = 1      # choose a creature to attack with, or done
    DEFENDER = 2      # choose the player or attackable permanent (planeswalker) that creature attacks
    BLOCKER = 3       # choose a creature to block with, or done
    BLOCKED = 4       # choose the attacker it blocks
    TARGET = 5        # choose a target
    NUMBER = 6        # choose X or another number
    MODE = 7          # choose a mode of a modal ability
    CARD = 8          # choose a card from a list (search, hand, graveyard, exile)
    DISCARD = 9       # choose a card in hand to discard
    COST = 10         # choose a card or permanent to pay a cost with
    SCRY = 11         # keep the card on top (choice 0) or bottom (choice 1)
    YES_NO = 12       # choice 0 = yes; PASS = no
    ORDER = 13        # choose which of your simultaneous triggers goes on the stack next (CR 603.3b)
    KEEP = 14         # choose the legendary permanent to keep (CR 704.5j)
    MULLIGAN = 15     # CR 103.5: PASS = keep this hand, CHOICE + 0 = take a mulligan
    BOTTOM = 16       # CR 103.5 (London): HAND + i = put hand card i on the bottom of the library
    DEAL = 17         # answer a truce offered at the table: TALK "accept" = yes; PASS = reject
    COUNT = 18

    NAMES = ("priority", "attacker", "defender", "blocker", "blocked", "target", "number", "mode",
             "card", "discard", "cost", "scry", "yes_no", "order", "keep", "mulligan", "bottom", "deal")


class Creature(StateRecord):
    """A creature permanent on the battlefield.

    Power and toughness are ``base + counters + until-end-of-turn pump``;
    ``damage`` is marked damage, removed at cleanup (CR 514.2);
    ``deathtouched``: it has been dealt damage by a source with deathtouch
    since the last state-based check, which reads and clears it (CR 704.5h).

    Control has a provenance (CR 108.4, 110.2, 800.4a): ``base_controller`` is
    the player it entered the battlefield under, ``control_effects`` the effects
    that changed its control since, oldest first, each
    ``{"seat", "previous", "source", "until"}`` (``until``: ``"eot"`` or None);
    ``controller`` is the seat of the newest effect, else ``base_controller``.
    Only :meth:`Game.gain_control` adds an effect; effects end in the cleanup
    step (``"eot"``) or when their player leaves the game.

    Combat: ``attacking`` is the defending player's seat (-1: not attacking);
    ``attacking_obj`` the :class:`Attackable` it attacks (a planeswalker of
    that player, CR 506.3, 508.1b), or None when it attacks the player.

    ``ordinal`` tells same-named permanents apart for people (no rules meaning):
    set once as it enters the battlefield (:meth:`Game._number`), ``label`` is
    ``"Web Weaver #2"`` for an ordinal of 2 or more, else the name.
    """

    __slots__ = ("uid", "name", "card", "token", "owner", "controller", "base_power", "base_toughness",
                 "base_keywords", "tapped", "damage", "deathtouched", "p1p1", "stun", "entered_turn",
                 "pump_p", "pump_q", "pump_kw", "attacking", "blocked_by", "blocking", "was_blocked",
                 "is_commander", "legendary", "base_controller", "control_effects", "attacking_obj", "ordinal")

    def __init__(self, uid: int, name: str, card: CardDef | None, token: bool, owner: int,
                 power: int, toughness: int, keywords: frozenset, turn: int, legendary: bool = False):
        self.uid = uid
        self.name = name
        self.card = card
        self.token = token
        self.owner = owner
        self.controller = owner
        self.base_power = power
        self.base_toughness = toughness
        self.base_keywords = keywords
        self.tapped = False
        self.damage = 0
        self.deathtouched = False
        self.p1p1 = 0
        self.stun = 0
        self.entered_turn = turn
        self.pump_p = 0
        self.pump_q = 0
        self.pump_kw: frozenset = frozenset()
        self.attacking = -1          # defending seat, or -1
        self.attacking_obj = None    # the Attackable it attacks (CR 506.3, 508.1b), None: the player
        self.blocked_by: list = []   # blockers, in declaration order
        self.blocking = None         # the attacker it blocks
        self.was_blocked = False
        self.is_commander = False
        self.legendary = legendary
        self.base_controller = owner        # set to the entering player by put_onto_battlefield
        self.control_effects: list[dict] = []
        self.ordinal = 1                    # set as it enters by Game._number (the label people see)

    @property
    def power(self) -> int:
        """Current power: base + +1/+1 counters + until-end-of-turn pumps."""
        return self.base_power + self.p1p1 + self.pump_p

    @property
    def toughness(self) -> int:
        """Current toughness: base + +1/+1 counters + until-end-of-turn pumps."""
        return self.base_toughness + self.p1p1 + self.pump_q

    def has(self, kw: str) -> bool:
        """Whether the creature has keyword ``kw`` (printed or granted this turn)."""
        return kw in self.base_keywords or kw in self.pump_kw

    @property
    def label(self) -> str:
        """The name as people see it: ``"Web Weaver #2"`` when ``ordinal`` is 2 or more, else the name
        (:func:`numbered_name`)."""
        return numbered_name(self.name, self.ordinal)

    def __repr__(self) -> str:
        return f"<{self.name} #{self.uid} {self.power}/{self.toughness} of P{self.controller}>"


ATTACKABLE_KINDS = ("planeswalker", "throne", "holding")
"""Kinds of attackable permanent, in observation one-hot order.  Only
planeswalkers exist so far; Throne Magic's Throne and Holdings
(docs/fidelity.md) are the next kinds of the same mechanism."""


class Attackable(StateRecord):
    """A permanent that creatures can attack, other than a player (CR 506.3,
    508.1b): a planeswalker (CR 306) is the first kind; Throne Magic's Throne
    and Holdings are attacked "in the way that a Planeswalker may be attacked"
    and will be the next kinds (``kind``, :data:`ATTACKABLE_KINDS`).

    An attack on it is an attack whose defending player is its controller,
    who blocks for it (CR 506.2, 509.1a); unblocked combat damage to it
    removes loyalty counters (CR 120.3c).  It lives in its controller's
    ``Player.attackables``, in the order it entered (the slot order of the
    WALKER actions and of the observation).

    Attributes:
        uid: object id.  kind: one of :data:`ATTACKABLE_KINDS`.
        name, card: its name and :class:`CardDef` (None for a card-less one).
        owner, controller, base_controller: seats (CR 108.3, 110.2; it enters
            under ``base_controller``'s control, who is ``controller`` as long
            as no control effect exists: the substrate has none for it).
        loyalty: loyalty counters (CR 306.5b); at 0 it is put into its owner's
            graveyard (CR 704.5i).
        used_turn: the turn one of its loyalty abilities was last activated
            (CR 606.3: once each turn), -1 if never.
        entered_turn: the turn it entered the battlefield.
        token: a token (a resolved copy of a planeswalker spell, CR 707.10f):
            it goes to no zone when it leaves.
        ordinal, label: as :class:`Creature`'s (for people only).
    """

    __slots__ = ("uid", "kind", "name", "card", "owner", "controller", "base_controller", "loyalty",
                 "used_turn", "entered_turn", "token", "ordinal")

    def __init__(self, uid: int, kind: str, card: CardDef | None, owner: int, controller: int,
                 loyalty: int, turn: int, name: str = ""):
        self.uid = uid
        self.kind = kind
        self.card = card
        self.name = name or (card.name if card is not None else kind)
        self.owner = owner
        self.controller = controller
        self.base_controller = controller
        self.loyalty = loyalty
        self.used_turn = -1
        self.entered_turn = turn
        self.token = False
        self.ordinal = 1

    @property
    def label(self) -> str:
        """The name as people see it (:func:`numbered_name`, as :attr:`Creature.label`)."""
        return numbered_name(self.name, self.ordinal)

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name} #{self.uid} loyalty {self.loyalty} of P{self.controller}>"


class IdentityCard(StateRecord):
    """An identity card in the command zone (CR 314).

    Attributes:
        uid: object id.
        identity: the printed card (:class:`treachery_env.identities.Identity`).
        owner, controller: seats (CR 314.5; control changes only through identities, TR8).
        face_up: whether it is face up.  Face-down cards have no characteristics (CR 314.4b).
        known_by: seats that know what a face-down card is (its controller; players who
            saw it face up before it was turned face down again; peeking effects).
        counters: counters on the card (seed, void, ...).
        x: X chosen when it was last unveiled (CR 702.187e), 0 if turned face up otherwise.
        used: ability key -> turn number it was last used (once-per-turn limits).
        data: per-card memory (exiled objects linked to it, ...).
        in_game: False once removed from the game.
        copy_of: the identity this card is a copy of (CR 314.11, TR8.8), or None.
        role_override: a role a copy effect keeps (The Wearer of Masks stays a
            Traitor), or None.

    ``name``, ``role``, ``unveil_cost`` and ``undercover`` are the card's current
    characteristics: the copied card's when it is a copy.
    """

    __slots__ = ("uid", "identity", "owner", "controller", "face_up", "known_by", "counters", "x",
                 "used", "data", "in_game", "copy_of", "role_override")

    def __init__(self, uid: int, identity: ids.Identity, owner: int):
        self.uid = uid
        self.identity = identity
        self.owner = owner
        self.controller = owner
        self.face_up = False
        self.known_by = {owner}
        self.counters: dict[str, int] = {}
        self.x = 0
        self.used: dict[str, int] = {}
        self.data: dict[str, Any] = {}
        self.in_game = True
        self.copy_of: ids.Identity | None = None
        self.role_override: Role | None = None

    @property
    def card(self) -> ids.Identity:
        """The identity whose characteristics this card has (itself or what it copies)."""
        return self.copy_of if self.copy_of is not None else self.identity

    @property
    def name(self) -> str:
        """Current name (the copied card's while a copy)."""
        c = self.copy_of
        return (self.identity if c is None else c).name

    @property
    def role(self) -> Role:
        """Current role: a copy effect's role if it sets one, else the card's (TR8.8)."""
        if self.role_override is not None:
            return self.role_override
        c = self.copy_of
        return (self.identity if c is None else c).role

    @property
    def unveil_cost(self) -> ids.UnveilCost | None:
        """Current unveil cost (CR 702.187c: the cost it would have face up)."""
        return self.card.unveil_cost

    @property
    def undercover(self) -> bool:
        """Whether unveiling it needs the Undercover condition (CR 702.187f)."""
        return self.card.undercover

    def __repr__(self) -> str:
        return f"<{self.name} ({'up' if self.face_up else 'down'}) of P{self.controller}>"


class VanguardCard(StateRecord):
    """A Vanguard card in the command zone (CR 902.3), with ``GameConfig.vanguard``.

    Public and face up for the whole game; it never leaves the command zone (CR 902.3).
    Its card (modifiers, ability) is :func:`treachery_env.vanguards.get` of ``name``.

    Attributes:
        uid: object id.
        name: the Vanguard card's name.
        owner: the seat that started the game with it in the command zone (CR 902.6).
        controller: its owner, a property (CR 902.6: the controller of a face-up
            Vanguard card is its owner).
    """

    __slots__ = ("uid", "name", "owner")

    def __init__(self, uid: int, name: str, owner: int):
        self.uid = uid
        self.name = name
        self.owner = owner

    @property
    def controller(self) -> int:
        """Its owner (CR 902.6)."""
        return self.owner

    def __repr__(self) -> str:
        return f"<vanguard {self.name} of P{self.owner}>"


class Player(StateRecord):
    """One seat's state.  ``hand``, ``library`` etc. hold :class:`CardDef` objects.

    Lands and noncreature artifact tokens (Treasure, Clue, Food, Blood, Map,
    Junk, Explosive) are counts; creatures are :class:`Creature` objects;
    ``attackables`` are the planeswalkers it controls (:class:`Attackable`);
    ``vanguard`` its :class:`VanguardCard` in a Vanguard game (CR 902), else None.
    """

    __slots__ = ("seat", "life", "hand", "library", "graveyard", "exile", "lands", "lands_tapped",
                 "tokens", "creatures", "identity", "commander", "commander_zone", "commander_casts",
                 "cmd_damage", "has_lost", "lost_turn", "last_team", "last_role", "land_played",
                 "mana_pool", "drew_from_empty", "max_hand_size", "deck", "cant_lose", "won", "counters",
                 "permissions", "borrowed", "mulligans", "attackables", "vanguard")

    def __init__(self, seat: int):
        self.seat = seat
        self.life = 0
        self.hand: list[CardDef] = []
        self.library: list[CardDef] = []
        self.graveyard: list[CardDef] = []
        self.exile: list[CardDef] = []
        self.lands = 0
        self.lands_tapped = 0
        self.tokens = {k: 0 for k in COUNTER_TOKENS}
        self.creatures: list[Creature] = []
        self.identity: IdentityCard | None = None
        self.commander: CardDef | None = None
        self.commander_zone = "command"
        self.commander_casts = 0
        self.cmd_damage: dict[int, int] = {}
        self.has_lost = False
        self.lost_turn = -1
        self.last_team: Team | None = None
        self.last_role: Role | None = None
        self.land_played = False
        self.mana_pool = 0
        self.drew_from_empty = False
        self.max_hand_size = 7
        self.deck = ""
        self.cant_lose = False
        self.won = False
        self.counters: dict[str, int] = {}      # player counters: gem, nut, rad (CR 122.1)
        # cards this player may cast or play from another zone: {"card", "owner", "zone", "free",
        # "until_turn" (None = while it stays there), "source"}; see Game.grant_permission
        self.permissions: list[dict] = []
        # counted permanents (lands, noncreature artifact tokens) this player controls through
        # a control effect (CR 108.4): {"kind": "land" or a token name, "from": seat, "source"};
        # see Game.gain_control_of_counted
        self.borrowed: list[dict] = []
        self.mulligans = 0          # mulligans taken before the game (CR 103.5; public)
        self.attackables: list[Attackable] = []    # planeswalkers it controls (CR 306, 506.3)
        self.vanguard: VanguardCard | None = None    # its Vanguard card (CR 902.3), None without the variant

    @property
    def role(self) -> Role:
        """The role of the identity this player controls (their last one once they left)."""
        if self.has_lost and self.last_role is not None:
            return self.last_role
        return self.identity.role

    @property
    def team(self) -> Team:
        """Team of the controlled identity (CR 907.7a); the last-known team once gone (TR7.4)."""
        if self.has_lost and self.last_team is not None:
            return self.last_team
        return team_of(self.identity.role)

    @property
    def face_up(self) -> bool:
        """Whether the player's identity is face up."""
        return self.identity.face_up

    @property
    def untapped_lands(self) -> int:
        """Lands the player can still tap for mana."""
        return self.lands - self.lands_tapped


class StackItem(StateRecord):
    """A spell or ability on the stack.

    Attributes:
        uid: object id.
        kind: ``"spell"``, ``"trigger"`` or ``"ability"`` (activated).
        controller: seat.
        card: the card of a spell (None for abilities).
        source: name of the source (card, token or identity name).
        key: for abilities, which ability (e.g. ``"unveil"``, ``"etb"``, ``"Clue"``).
        identity_source: whether the source is an identity card (The Void Tyrant).
        targets: chosen targets: ``("p", seat)``, ``("c", Creature)`` or ``("s", StackItem)``.
        target_specs: the target spec of each entry of ``targets``.
        x: value of X.
        is_copy: a copy of a spell (CR 707.10), ceases to exist instead of moving.
        from_zone: zone the spell was cast from.
        owner: owner of the card (where it goes after resolving); for a copy, the
            player who put it on the stack (CR 707.10); for an ability, the
            player who put it on the stack, kept when its control changes (the
            player whose identity-sourced abilities resolve before they leave,
            CR 907.8a).
        data: free-form memory of the ability (modes, linked values).
        base_controller: the player who put it on the stack (CR 113.8, 601.2a).
        control_effects: effects that gave another player control of it (The
            Reflector, CR 108.4), oldest first, each ``{"seat", "previous",
            "source"}``; ``controller`` is the newest one's seat, else
            ``base_controller`` (see :meth:`Game.gain_control_of_stack_object`).
        label: the source as people see it where it is a numbered permanent
            (``"Flame Adept #2"``, :attr:`Creature.label`), else ``""``; for people only,
            never read by the rules (kept out of ``data``, which the rules compare:
            copies of one trigger are put on the stack without asking their order).
    """

    __slots__ = ("uid", "kind", "controller", "card", "source", "key", "identity_source", "targets",
                 "target_specs", "x", "is_copy", "from_zone", "owner", "data", "creature", "base_controller",
                 "control_effects", "label")

    def __init__(self, uid: int, kind: str, controller: int, card: CardDef | None = None,
                 source: str = "", key: str = "", identity_source: bool = False):
        self.uid = uid
        self.kind = kind
        self.controller = controller
        self.card = card
        self.source = source or (card.name if card else "")
        self.key = key
        self.identity_source = identity_source
        self.targets: list = []
        self.target_specs: list = []
        self.x = 0
        self.is_copy = False
        self.from_zone = "hand"
        self.owner = controller
        self.data: dict[str, Any] = {}
        self.creature: Creature | None = None
        self.base_controller = controller
        self.control_effects: list[dict] = []
        self.label = ""

    @property
    def is_spell(self) -> bool:
        """Whether this stack object is a spell (not an ability)."""
        return self.kind == "spell"

    def __repr__(self) -> str:
        return f"<{self.kind} {self.source}/{self.key} of P{self.controller}>"


class Decision(StateRecord):
    """A choice a seat must make.

    Attributes:
        seat: the deciding seat.
        kind: a :class:`DecisionKind` value.
        options: ``[(action_index, payload), ...]``; action indices are unique.
        handler: name of the ``Game._h_*`` method that applies the chosen payload.
        ctx: data the handler needs.
        prompt: what is being decided, in words (bots read it: a target's prompt ends
            with the source's name, ``"... for Flame Adept"``).
        labels: optional words for each option (same order as ``options``).
        label: the prompt as people read it where it names a numbered permanent
            (``"choose a target (any) for Flame Adept #2"``, :attr:`StackItem.label`), else
            None (it reads as ``prompt``); for people only, never read by the rules, the
            digest, observations or bots.
    """

    __slots__ = ("seat", "kind", "options", "handler", "ctx", "prompt", "labels", "label", "_index")

    def __init__(self, seat: int, kind: int, options: list, handler: str, ctx: Any = None,
                 prompt: str = "", labels: list | None = None, label: str | None = None):
        self.seat = seat
        self.kind = kind
        self.options = options
        self.handler = handler
        self.ctx = ctx
        self.prompt = prompt
        self.labels = labels
        self.label = label
        self._index: dict[int, int] | bool | None = None

    def declared_creature(self, viewer: int) -> Any:
        """The viewer's own creature this decision is about, else None: the
        attacker whose defending player is being chosen (DEFENDER, context ``c``)
        or the blocker whose attacker is being chosen (BLOCKED, context
        ``(seat, b)``); CR 508.1, 509.1."""
        if self.kind == DecisionKind.DEFENDER:
            cre = self.ctx
        elif self.kind == DecisionKind.BLOCKED:
            cre = self.ctx[1]
        else:
            return None
        return cre if cre.controller == viewer else None

    def index_of(self, action: int) -> int | None:
        """Position of ``action`` in :attr:`options`, or None if it is not legal.
        The first lookup scans the options (``Game.step`` needs one); later
        ones use an index built on the second (``_index``: None before any
        lookup, False after the first)."""
        index = self._index
        if index is None:
            self._index = False
            i = 0
            for a, _ in self.options:
                if a == action:
                    return i
                i += 1
            return None
        if index is False:
            index = self._index = {a: i for i, (a, _) in enumerate(self.options)}
        return index.get(action)


class GameState(StateRecord):
    """The state of a game: the attributes of :class:`~treachery_env.engine.Game`
    (documented there), which adds the rules.

    The state lives in slots, not an instance dict: a game holds more names
    than CPython's shared-key instance dicts keep (30), so with a dict every
    read of ``self.x`` in the compiled engine was a full dictionary lookup.
    Compiled, they are the typed fields of ``state.pxd``.  ``Game.__init__``
    sets every one (``engine.clone`` copies them).
    """

    __slots__ = ("config", "seed", "n", "layout", "rng", "players", "turn", "active", "phase", "stack", "queue",
                 "decision", "priority_seat", "passes", "pending_triggers", "delayed", "shields", "effects",
                 "extra_turns", "order_seat", "is_over", "truncated", "winners", "log", "actions", "concessions",
                 "mulligan_state", "concession_seats", "decisions_taken", "auto_decisions", "revealed_identities",
                 "leader_attacked_by", "turn_effects", "combat_attackers", "resolving", "harm", "attacks",
                 "role_counts", "_uid", "_dirty", "_statics", "n_alive", "full_windows", "show_forced", "leaving", "suspended",
                 "talk_on", "talk", "social", "schemes", "planar")
