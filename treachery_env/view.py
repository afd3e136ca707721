"""What one seat may know, as objects: the structured view ``info["view"]``.

:class:`SeatView` holds the same information set as the observation vector
(:mod:`treachery_env.observation`, DESIGN sections 4-5): the viewer's own hand
and identity, every public fact, identities it has seen or was shown, cards
only it may look at, its own pending decision with every legal action
described (:class:`OptionView`), the public events of this turn and the last,
and the table talk.  In a Throne Magic game (``GameConfig(game="throne_magic")``)
the identity parts are empty and :class:`ThroneView` holds the Roles and the
Throne as the viewer knows them.  Seats here are absolute.  Rule-based bots
read only this.

A view is a **snapshot made of values**: named tuples (:class:`SeatView` and
its parts), tuples, frozensets, :class:`FrozenDict` mappings, strings, ints,
:class:`~treachery_env.rules.Role` members and the immutable talk records
(:class:`~treachery_env.engine.talk.TalkMessage`,
:class:`~treachery_env.engine.talk.Deal`).  Nothing in it refers to the game
or its mutable state, so it stays valid after the game moves on, can be kept,
compared, hashed, pickled and deep-copied, and cannot be used to reach hidden
information.

The environment builds one view per step with a :class:`ViewBuilder`, which
reuses what did not change since its last build (frozen log events, the talk
view, the words of talk and pass options); :func:`seat_view` builds one view
from scratch.  Two builders give equal views: :class:`PythonViewBuilder` here,
the reference, and the compiled ``treachery_env._view.ViewBuilder`` (Cython,
built by ``setup.py``); :class:`ViewBuilder` is the compiled one unless it is
not built, is older than ``_view.pyx`` (then with a warning), the engine's
state classes run from source (it reads their C fields) or
``TREACHERY_PURE_PYTHON=1``; :data:`VIEW_BUILDER` says which.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from .compiled import compiled_pyx
from .engine.state import Attackable, DecisionKind
from .identity_cards.traitors import may_look_at_pile
from .rules import Role
from .text import option_text
from .words import with_article

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game

__all__ = ["seat_view", "public_view", "ViewBuilder", "PythonViewBuilder", "VIEW_BUILDER", "SeatView", "DecisionView", "OptionView",
           "PlayerView", "CreatureView", "PlaneswalkerView", "StackView", "TalkView", "ThroneView", "HoldingView", "SchemesView", "PlanarView",
           "FrozenDict", "PUBLIC_TURN_MARKS", "HIDDEN_TURN_MARKS",
           "freeze"]


class FrozenDict(dict):
    """A read-only ``dict`` (the mappings of a view and its log events).

    Reads, iteration, ``==`` (equal to a plain dict with the same items) and
    ``|`` (a new plain dict) work as for a dict; every mutating method raises
    ``TypeError``.  Hashable when its values are; pickles and deep-copies as
    a FrozenDict.
    """

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(f"{type(self).__name__} is read-only")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _read_only

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple:
        return (FrozenDict, (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


_EMPTY = FrozenDict()
_ATOMS = frozenset((int, str, bool, float, type(None), Role))


def _fd(d: dict) -> FrozenDict:
    """A read-only copy of a flat dict (keys and values immutable)."""
    return FrozenDict(d) if d else _EMPTY


def freeze(value: Any) -> Any:
    """An immutable copy of plain data: lists and tuples become tuples, dicts
    :class:`FrozenDict`, sets frozensets, recursively; other values (ints,
    strings, None, immutable objects) are returned as they are."""
    t = type(value)
    if t in _ATOMS:
        return value
    if t is list or t is tuple:
        return tuple([freeze(v) for v in value])
    if t is dict or t is FrozenDict:
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if t is set or t is frozenset:
        return frozenset(value)
    return value


def _freeze_event(e: dict) -> FrozenDict:
    """A log entry (``Game.log``) as an immutable mapping with the same keys."""
    return FrozenDict({k: (v if type(v) in _ATOMS else freeze(v)) for k, v in e.items()})


class CreatureView(NamedTuple):
    """A creature as everyone sees it.

    Attributes:
        uid: object id (stable while it stays on the battlefield).
        name: card or token name.
        power, toughness: current values (base + +1/+1 counters + pumps).
        damage: damage marked on it this turn.
        tapped: whether it is tapped.
        summoning_sick: it came under its controller's control this turn and
            has no haste (CR 302.6).
        keywords: its keywords now (printed and granted), a frozenset of names.
        attacking: the absolute seat of the defending player it attacks, or -1.
        blocking: uid of the attacker it blocks, or None.
        plus_counters: +1/+1 counters on it.
        stun: stun counters on it.
        token: whether it is a token.
        commander: whether it is a commander.
        attacking_planeswalker: uid of the planeswalker it attacks (CR 506.3),
            None when it attacks the player (or does not attack).
        ordinal: tells same-named permanents apart for people (public, fixed as it
            entered: the lowest number no permanent of its name on the battlefield
            had; ``Game._number``); :mod:`treachery_env.text` writes ``"Soldier #2"``
            for 2 or more, the name alone for 1.
    """

    uid: int
    name: str
    power: int
    toughness: int
    damage: int
    tapped: bool
    summoning_sick: bool
    keywords: frozenset
    attacking: int
    blocking: int | None
    plus_counters: int
    stun: int
    token: bool
    commander: bool
    attacking_planeswalker: int | None = None
    ordinal: int = 1


class PlaneswalkerView(NamedTuple):
    """An attackable permanent as everyone sees it (all public).

    Attributes:
        uid: object id.  name: its name.
        kind: ``"planeswalker"`` (CR 306; :data:`~treachery_env.engine.state.ATTACKABLE_KINDS`),
            or ``"throne"``: Throne Magic's Throne, while a player controls it
            ("Attacking the Throne": attacked and blocked for like a planeswalker;
            loyalty 0, no abilities; :class:`ThroneView`).
        owner, controller: absolute seats.
        loyalty: loyalty counters on it (CR 306.5b).
        used_this_turn: whether one of its loyalty abilities was activated
            this turn (CR 606.3).
        abilities: its loyalty abilities as ``((loyalty cost, text), ...)``.
        attackers: uids of the creatures attacking it.
        ordinal: as :attr:`CreatureView.ordinal`.
    """

    uid: int
    name: str
    kind: str
    owner: int
    controller: int
    loyalty: int
    used_this_turn: bool
    abilities: tuple
    attackers: tuple = ()
    ordinal: int = 1


class PlayerView(NamedTuple):
    """A player as the viewer knows them.

    Attributes:
        seat: absolute seat.  in_game: not yet lost.  life: life total.
        hand_size: cards in hand (public).
        hand: names of the cards in hand, for the viewer only (None for others).
        library_size: cards in library.
        graveyard, exile: card names, in zone order (public; face-down exile
            the viewer may look at is :attr:`SeatView.dream`).
        lands, untapped_lands: land counts (lands are counted, not objects).
        tokens: noncreature artifact token counts by kind (a :class:`FrozenDict`).
        creatures: its creatures (:class:`CreatureView`, battlefield order).
        face_up: whether its identity card is face up.
        identity, role: its identity's name and :class:`Role` when the viewer
            knows them (face up, its own, or shown to it), else None.
            In a Throne Magic game, where players hold Role cards and no identity
            card, ``face_up`` is False, ``identity`` and ``role`` None,
            ``identity_counters`` empty and ``leader_player`` False; the Roles
            are :attr:`SeatView.throne_magic`.
        identity_counters: counters on its identity card (public, a :class:`FrozenDict`).
        commander: its commander's name, or None.
        commander_zone: where the commander is (``"command"``, ``"battlefield"``, ...).
        commander_damage_taken: commander-damage taken, by commander (a :class:`FrozenDict`).
        leader_player: it controls a face-up Leader identity (CR 314.7).
        player_counters: counters on the player (public, a :class:`FrozenDict`).
        usable_elsewhere: for the viewer only, the cards it may cast or play
            from other zones as ``(name, zone, free)``, in the order of the
            OTHER actions; None for other players.
        mulligans: mulligans taken before the game (public, CR 103.5).
        planeswalkers: the attackable permanents it controls
            (:class:`PlaneswalkerView`, in slot order).
        commander_casts: times its commander was cast from the command zone (public; the
            commander tax is {2} for each, CR 903.8).
    """

    seat: int
    in_game: bool
    life: int
    hand_size: int
    hand: tuple | None
    library_size: int
    graveyard: tuple
    exile: tuple
    lands: int
    untapped_lands: int
    tokens: FrozenDict
    creatures: tuple
    face_up: bool
    identity: str | None
    role: Role | None
    identity_counters: FrozenDict
    commander: str | None
    commander_zone: str
    commander_damage_taken: FrozenDict
    leader_player: bool
    player_counters: FrozenDict
    usable_elsewhere: tuple | None
    mulligans: int = 0
    planeswalkers: tuple = ()
    commander_casts: int = 0


class StackView(NamedTuple):
    """A stack object.

    Attributes:
        uid: object id.  kind: ``"spell"``, ``"ability"``, ``"trigger"``, ...
        controller: absolute seat.  source: the card or identity it comes from.
        identity_source: whether an identity card put it there.
        x: its X (0 if none).
        targets: ``("player", seat)``, ``("creature", uid)``,
            ``("planeswalker", uid)``, ``("stack", uid)`` or ``("none", -1)``
            per target.
        label: the source as people see it where it is a numbered permanent
            (``"Flame Adept #2"``, :attr:`CreatureView.ordinal`), else ``""``.
    """

    uid: int
    kind: str
    controller: int
    source: str
    identity_source: bool
    x: int
    targets: tuple
    label: str = ""


class OptionView(NamedTuple):
    """One legal action of the viewer's decision, with what it refers to.

    Attributes:
        action: the action index.
        text: :meth:`Game.describe_action` of it.
        kind: what choosing it does: ``"pass"`` (pass priority, done, no, keep;
            keep the hand at a mulligan decision), ``"mulligan"`` (take a
            mulligan, CR 103.5), ``"bottom"`` (put ``card`` on the bottom of the
            library after a mulligan), ``"concede"`` (concede the game, CR 104.3a),
            ``"land"``, ``"cast"``, ``"commander"``, ``"unveil"``,
            ``"identity_ability"``, ``"token"``, ``"permission"``, ``"loyalty"``
            (activate loyalty ability ``ability`` of ``planeswalker``, CR 606)
            (priority); ``"attack_with"``, ``"attack_player"``,
            ``"attack_planeswalker"`` (``planeswalker``, controlled by
            ``player``, CR 506.3), ``"block_with"``, ``"block"`` (combat); ``"target"``, ``"number"``, ``"discard"``, ``"cost"``,
            ``"choice"`` (other decisions).  Planechase adds ``"planar_die"`` (priority: roll
            the planar die, costing ``x`` generic mana, CR 901.9).  Throne Magic adds
            ``"throne_ability"`` (priority: activate the Throne ability
            ``ability`` of the viewer's ``creature``, ``"throne_give"`` ("Giving
            Creatures to the Monarch", ``player`` the Throne's controller) or
            ``"throne_distribute"`` ("The Monarch Distributing Creatures", the
            receiving player chosen next)) and ``"attack_throne"`` (attack the
            Throne, uid ``planeswalker``, controlled by ``player``, None when it
            is in the middle of the table: "Attacking the Throne"); The King's
            choice of the Throne and the yes/no decisions (take the Throne, a
            Throne's "may" ability, accept a creature) are ``"choice"``
            (``x`` 0 for yes, None for the PASS that says no, the Throne's index
            for The King's choice).
        card: name of the card it casts, plays, discards or pays with.
        player: absolute seat it targets or attacks.
        creature: uid of the creature it attacks or blocks with, blocks, or targets.
        stack: uid of the stack object it targets.
        x: X of an unveil, a number, or the index of a choice.
        ability: index of an identity ability, or the token kind for ``"token"``.
        talk: for ``kind == "talk"`` (a table-talk message, TR10.5), the
            message kind (``"claim"``, ``"accuse"``, ``"defend"``,
            ``"threaten"``, ``"protect"``, ``"request"``, ``"offer"``);
            ``player`` is the seat it is about and ``role`` the role it names.
            ``kind == "accept"`` accepts the truce ``player`` offered (a
            ``"deal"`` decision, whose ``"pass"`` rejects it).
        role: the role a claim or accusation names.
        planeswalker: uid of the planeswalker it attacks, targets or activates.
    """

    action: int
    text: str
    kind: str
    card: str | None = None
    player: int | None = None
    creature: int | None = None
    stack: int | None = None
    x: int | None = None
    ability: "int | str | None" = None
    talk: str | None = None
    role: Role | None = None
    planeswalker: int | None = None


class DecisionView(NamedTuple):
    """The viewer's pending decision.

    Attributes:
        kind: a ``DecisionKind.NAMES`` entry (``"priority"``, ``"target"``, ...).
        prompt: what is being decided, in words.
        options: one :class:`OptionView` per legal action, in the decision's order.
        creature: uid of the viewer's own creature the decision is about (the
            attacker whose defending player, or the blocker whose attacker, is
            being chosen; CR 508.1, 509.1), else None.
        label: the prompt as people read it where it names a numbered permanent
            (``"choose a target (any) for Flame Adept #2"``), else None; for people only
            (bots read ``prompt``).  :meth:`question` is what a person is shown.
    """

    kind: str
    prompt: str
    options: tuple
    creature: "int | None" = None
    label: "str | None" = None

    def actions(self) -> list[int]:
        """The legal action indices."""
        return [o.action for o in self.options]

    def question(self) -> str:
        """What is being decided as a person reads it: :attr:`label` when set (a numbered
        permanent named, ``"... for Flame Adept #2"``), else :attr:`prompt`."""
        return self.label or self.prompt


class TalkView(NamedTuple):
    """What was said at the table (TR10.5), all public; seats are absolute.

    Attributes:
        mode: ``GameConfig.talk`` ("structured" or "none"); limit: messages
            per player per turn (``GameConfig.talk_limit``).
        messages: every :class:`~treachery_env.engine.talk.TalkMessage` so
            far, in order (answers to truce offers included).
        claims: seat -> its latest claim message (``.role`` is the claimed role).
        stances: ``(speaker, subject)`` -> the latest accuse/defend message.
        intents: ``(speaker, subject)`` -> the latest threaten/protect message.
        requests: seat -> its latest "don't attack me" message.
        deals: the standing truces (:class:`~treachery_env.engine.talk.Deal`).
        broken: ``(breaker, victim)`` -> turn a truce ended broken by ``breaker``.
        hurt_at_start: per seat, harm + attacks it had received from others
            as this turn began (opens the reaction window).

    The mappings are :class:`FrozenDict`.
    """

    mode: str
    limit: int
    messages: tuple
    claims: FrozenDict
    stances: FrozenDict
    intents: FrozenDict
    requests: FrozenDict
    deals: tuple
    broken: FrozenDict
    hurt_at_start: tuple

    def said_this_turn(self, seat: int, turn: int) -> int:
        """How many messages ``seat`` said in ``turn`` (counted against the limit)."""
        k = 0
        for m in reversed(self.messages):
            if m.turn != turn:
                break
            k += m.speaker == seat and m.kind not in ("accept", "reject")
        return k

    def has_deal(self, a: int, b: int) -> bool:
        """Whether a truce between seats ``a`` and ``b`` stands."""
        return any(d.involves(a, b) for d in self.deals)


class ThroneView(NamedTuple):
    """Throne Magic's hidden-role layer as the viewer knows it (:attr:`SeatView.throne_magic`;
    rules ``../shared/rules/throne-magic.txt``, cited by its headings).  Made of copies:
    nothing in it refers to the game's Role state.

    Attributes:
        roles: the Role names in the game, in the Role data's order
            (:func:`~treachery_env.throne_roles.names`); public: the set is chosen
            openly ("Public and Private Information").
        known: per absolute seat, its Role's name where the viewer knows it, else
            None: the viewer's own ("Public and Private Information"), the Role of
            every player who has left the game ("Leaving the Game"), every Role
            once the game is over, and one a Throne of Visions showed the viewer
            ("Throne Abilities").  Exactly the seats whose ``known_by`` holds the
            viewer (``engine.throne.ThroneMagic``).  :attr:`SeatView.throne_role`
            is the viewer's own.
        throne: the game's Throne's name ("Throne Cards"); None before The King
            chose it ("Choosing a Throne Card for the Game").
        controller: the seat controlling the Throne, -1 when no one does (it is
            "in the middle of the table": "Throne Cards", "Controlling the Throne",
            "Abandoned Thrones"); None before it is chosen.  While controlled it is
            also one of its controller's :attr:`PlayerView.planeswalkers` (kind
            ``"throne"``), attacked and blocked for like a planeswalker
            ("Attacking the Throne").
        uid: the Throne's object id (a creature attacking it has it as
            :attr:`CreatureView.attacking_planeswalker`; its ``attacking`` is the
            number of seats while the Throne is in the middle, where no player
            defends it); None before it is chosen.
        holdings: the game's Holdings ("Holdings (Advanced)"), a :class:`HoldingView`
            each, Holding ``k`` being the HOLDING action ``k``; empty without them.
        season: the Season in effect ("Seasons (Advanced)"), None without Seasons.

    During a Draft ("Choosing Role Cards for the Game") ``roles`` holds the Roles
    picked so far and ``known`` is None for every seat.
    """

    roles: tuple
    known: tuple
    throne: "str | None"
    controller: "int | None"
    uid: "int | None"
    holdings: tuple = ()
    season: "str | None" = None


class HoldingView(NamedTuple):
    """One of Throne Magic's Holdings ("Holdings (Advanced)"), public.

    Attributes:
        name: its card's name (:func:`~treachery_env.throne_cards.holdings`).
        controller: the seat controlling it, -1 in the middle of the table.
        uid: its object id (a creature attacking it has it as
            :attr:`CreatureView.attacking_planeswalker`).
        attackers: uids of the creatures attacking it now.
    """

    name: str
    controller: int
    uid: int
    attackers: tuple = ()


class SchemesView(NamedTuple):
    """Archenemy's schemes (CR 904; :attr:`SeatView.schemes`), public: every face-up scheme
    is seen by all, and the decks are face down to everyone (CR 904.4).

    Attributes:
        face_up: per absolute seat, the names of its face-up schemes, oldest first (an ongoing
            one stays until abandoned, CR 904.11; another only until its ability has left the
            stack, CR 904.10).
        deck_sizes: per absolute seat, the cards left in its scheme deck (0 once it left the game).
    """

    face_up: tuple
    deck_sizes: tuple


def _schemes_view(game: "Game") -> "SchemesView | None":
    """The :class:`SchemesView` of ``game`` (None without Archenemy's schemes): copies of names."""
    st = game.schemes
    if st is None:
        return None
    return SchemesView(tuple(tuple(name for _, name in up) for up in st.face_up),
                       tuple(len(d) for d in st.decks))


class PlanarView(NamedTuple):
    """Planechase's public facts (CR 901; :attr:`SeatView.planechase`), the same for every seat.
    The order of the planar decks is hidden from everyone and not in it.

    Attributes:
        mode: "single" (one communal planar deck, CR 901.16) or "per_player" (CR 901.3).
        face_up: the face-up plane's or phenomenon's name (:func:`treachery_env.planes.get`),
            None before the starting plane (CR 901.5).
        uid: its object id (a new one each time a card turns face up, CR 901.7a).
        controller: the planar controller's seat (CR 901.6).
        owner: the face-up card's owner's seat, -1 with the single planar deck (the planar
            controller owns every card, CR 901.16b).
        rolls: the planar-die special actions taken this turn; the next costs that much
            generic mana (CR 901.9).
        deck_sizes: the cards in each planar deck: one with "single", one per seat with
            "per_player" (0 for a player who left, CR 901.10).
    """

    mode: str
    face_up: "str | None"
    uid: int
    controller: int
    owner: int
    rolls: int
    deck_sizes: tuple


class SeatView(NamedTuple):
    """Snapshot of one seat's information set (``info["view"]``).

    Attributes:
        seat: the viewer.  turn, phase, active: public turn state.
        players: :class:`PlayerView` by absolute seat.
        stack: :class:`StackView`, bottom first.
        harm, attacks: public history by absolute seats, ``harm[i][j]`` = damage
            and life loss seat i caused to seat j (and j's creatures),
            ``attacks[i][j]`` = creatures i attacked j with (tuples of tuples).
        undercover_met: whether the viewer's Undercover condition holds.
        dream: cards the viewer may look at in its face-down exile (The
            Oneiromancer's, while the viewer's identity card is face up:
            :func:`~treachery_env.identity_cards.traitors.may_look_at_pile`).
        decision: the viewer's pending :class:`DecisionView`, else None.
        events: log entries visible to the viewer this turn and the previous
            one, each a :class:`FrozenDict` with the keys of the game's log
            entry (``"turn"``, ``"event"``, ``"to"``, ...; lists are tuples).
        priority_windows: the table's public rule for priority windows
            (:attr:`GameConfig.priority_windows`, "full" or "main").
        role_counts: the identity deck's cards per role, indexed by
            :class:`Role` value (Leader, Guardian, Assassin, Traitor); public
            (TR2.3), whatever deck was dealt (CR 907.3b, ``role_counts``, TR11).
        talk: what was said at the table (:class:`TalkView`, public).
        throne_magic: in a Throne Magic game (``GameConfig(game="throne_magic")``)
            its Roles and Throne as the viewer knows them (:class:`ThroneView`);
            None in Treachery.  The identity fields (``role_counts``, each
            player's ``identity``, ``role``, ``face_up``, ``leader_player``,
            ``undercover_met``, ``dream``) keep their empty values there: Throne
            Magic players hold no identity card.
        vanguards: in a Vanguard game (``GameConfig(vanguard=...)``, CR 902) each
            seat's Vanguard card's name, by absolute seat (public: face up in the
            command zone for the whole game, CR 902.3; its text:
            :func:`treachery_env.text.card_text`); None without the variant.
        schemes: with Archenemy's schemes (``GameConfig(archenemy=...)``) every seat's
            face-up schemes and deck size (:class:`SchemesView`, public); else None.
        planechase: with ``GameConfig.planechase``, the face-up plane and the planar
            controller (:class:`PlanarView`, public); None without Planechase.
        turn_marks: the public marks the rules keep for the rest of this turn
            (:data:`PUBLIC_TURN_MARKS`: name -> True, or a sorted tuple of uids),
            e.g. ``{"cleanup_again": True}`` in a cleanup step that another will
            follow (CR 514.3a); empty when there are none.
        me: ``players[seat]`` (with ``hand``), a property.
        throne_role: the viewer's own Role in a Throne Magic game, a property.
    """

    seat: int
    turn: int
    phase: str
    active: int
    players: tuple
    stack: tuple
    harm: tuple
    attacks: tuple
    undercover_met: bool
    dream: tuple
    decision: "DecisionView | None"
    events: tuple
    priority_windows: str = "full"
    role_counts: tuple = ()
    talk: "TalkView | None" = None
    throne_magic: "ThroneView | None" = None
    vanguards: "tuple | None" = None
    schemes: "SchemesView | None" = None
    planechase: "PlanarView | None" = None
    turn_marks: FrozenDict = _EMPTY

    @property
    def me(self) -> PlayerView:
        """The viewer's own :class:`PlayerView` (with its hand)."""
        return self.players[self.seat]

    @property
    def throne_role(self) -> "str | None":
        """The viewer's own Role's name in a Throne Magic game (``throne_magic.known[seat]``),
        None in Treachery."""
        tm = self.throne_magic
        return None if tm is None else tm.known[self.seat]

    def to_dict(self) -> dict:
        """This view in plain JSON types (``json.dumps`` takes it; :meth:`from_dict` rebuilds an
        equal view, every part of the same type): a named tuple or talk record is an object of
        its fields with ``"__type__"`` naming it, a tuple a list, a mapping an object (or, where
        its keys are not strings, ``{"__pairs__": [[key, value], ...]}``), a frozenset
        ``{"__set__": [...]}`` (sorted), a role ``{"__role__": "leader"}``.  For a bot in
        another process or language, which may be sent nothing but this.  A Treachery view's
        dict leaves out ``"throne_magic"`` (None there), and so does a view without vanguards
        ``"vanguards"`` and one without schemes ``"schemes"``, so it is what it was before Throne
        Magic and the CR 900 variants."""
        d = _to_json(self)
        if self.throne_magic is None:
            del d["throne_magic"]
        if self.vanguards is None:
            del d["vanguards"]
        if self.schemes is None:
            del d["schemes"]
        if self.planechase is None:         # likewise without Planechase
            del d["planechase"]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "SeatView":
        """The view :meth:`to_dict` gave (after a JSON round trip too).

        A field left out that has a default (``throne_magic`` of a Treachery view, ``vanguards``
        and ``schemes`` without those variants) gets it.

        Raises:
            ValueError: for data that is not a view's (an unknown ``"__type__"``, a missing
                field without a default, or not a :class:`SeatView` at the top).
        """
        view = _from_json(d)
        if type(view) is not cls:
            raise ValueError(f"not a SeatView's dict (its top is {with_article(type(view).__name__)})")
        return view

    def opponents(self) -> list[int]:
        """Seats still in the game other than the viewer."""
        return [p.seat for p in self.players if p.in_game and p.seat != self.seat]


# ------------------------------------------------------------------------------------------ JSON form
def _json_types() -> dict:
    from .engine.talk import Deal, TalkMessage
    return {t.__name__: t for t in (SeatView, PlayerView, CreatureView, PlaneswalkerView, StackView, OptionView,
                                    DecisionView, TalkView, ThroneView, HoldingView, SchemesView, PlanarView, TalkMessage,
                                    Deal)}


def _to_json(v: Any) -> Any:
    """:meth:`SeatView.to_dict`'s encoding of one value."""
    t = type(v)
    if t is Role:
        return {"__role__": v.name.lower()}
    if t in (int, str, bool, float) or v is None:
        return v
    if hasattr(t, "_fields"):
        return {"__type__": t.__name__, **{f: _to_json(x) for f, x in zip(t._fields, v)}}
    if hasattr(t, "__dataclass_fields__"):
        return {"__type__": t.__name__, **{f: _to_json(getattr(v, f)) for f in t.__dataclass_fields__}}
    if t is tuple or t is list:
        return [_to_json(x) for x in v]
    if t is frozenset or t is set:
        return {"__set__": sorted((_to_json(x) for x in v), key=repr)}
    if isinstance(v, dict):
        if all(type(k) is str for k in v):
            return {k: _to_json(x) for k, x in v.items()}
        return {"__pairs__": [[_to_json(k), _to_json(x)] for k, x in v.items()]}
    raise TypeError(f"a view holds no {t.__name__}")


def _from_json(v: Any, types: dict | None = None) -> Any:
    """The inverse of :func:`_to_json` (lists become tuples and objects FrozenDicts: a view holds no other)."""
    types = _json_types() if types is None else types
    if type(v) is list:
        return tuple([_from_json(x, types) for x in v])
    if type(v) is not dict:
        return v
    if "__type__" in v:
        cls = types.get(v["__type__"])
        if cls is None:
            raise ValueError(f"not a view's dict: unknown __type__ {v['__type__']!r}")
        fields = cls._fields if hasattr(cls, "_fields") else tuple(cls.__dataclass_fields__)
        defaults = getattr(cls, "_field_defaults", {})
        missing = [f for f in fields if f not in v and f not in defaults]
        if missing:
            raise ValueError(f"not a view's dict: {with_article(cls.__name__)} without {missing}")
        return cls(*(_from_json(v[f], types) if f in v else defaults[f] for f in fields))
    if "__role__" in v:
        return Role[v["__role__"].upper()]
    if "__set__" in v:
        return frozenset(_from_json(x, types) for x in v["__set__"])
    if "__pairs__" in v:
        return FrozenDict({_from_json(k, types): _from_json(x, types) for k, x in v["__pairs__"]})
    return FrozenDict({k: _from_json(x, types) for k, x in v.items()})


# ------------------------------------------------------------------------------------------ building
_new = tuple.__new__                 # a named tuple from a full tuple of its fields, without its __new__
_names = attrgetter("name")
_TARGET_KIND = {"c": "creature", "w": "planeswalker"}
_ABILITIES: dict = {}                # card name -> PlaneswalkerView.abilities (static card data)
_SIMPLE_OPTIONS: dict = {}           # options whose view depends only on the key (see _decision_view)
_PRIORITY = DecisionKind.PRIORITY
_LEADER = Role.LEADER


def _names_of(cards: list) -> tuple:
    return tuple(map(_names, cards)) if cards else ()


def _creature_view(c: Any, turn: int) -> CreatureView:
    kw = c.base_keywords
    if type(kw) is not frozenset:
        kw = frozenset(kw)
    pkw = c.pump_kw
    b = c.blocking
    w = c.attacking_obj
    p1 = c.p1p1
    return _new(CreatureView, (
        c.uid, c.name, c.base_power + p1 + c.pump_p, c.base_toughness + p1 + c.pump_q, c.damage, c.tapped,
        c.entered_turn >= turn and "haste" not in kw and "haste" not in pkw, kw | pkw if pkw else kw,
        c.attacking, None if b is None else b.uid, p1, c.stun, c.token, c.is_commander,
        None if w is None else w.uid, c.ordinal))


def _planeswalker_view(game: "Game", w: Any) -> PlaneswalkerView:
    card = w.card
    if card is None:
        abilities = ()
    else:
        abilities = _ABILITIES.get(card.name)
        if abilities is None:
            abilities = _ABILITIES[card.name] = tuple((ab["loyalty"], ab["text"]) for ab in card.abilities)
    attackers = tuple(a.uid for a in game.combat_attackers if a.attacking_obj is w)
    return PlaneswalkerView(w.uid, w.name, w.kind, w.owner, w.controller, w.loyalty, w.used_turn == game.turn,
                            abilities, attackers, w.ordinal)


def _target_view(t: Any) -> tuple:
    if t is None:
        return ("none", -1)
    kind, obj = t
    if kind == "p":
        return ("player", obj)
    return (_TARGET_KIND.get(kind, "stack"), obj.uid)


def _stack_view(it: Any) -> StackView:
    return StackView(it.uid, it.kind, it.controller, it.source, it.identity_source, it.x,
                     tuple([_target_view(t) for t in it.targets]), it.label)


def _player_view(game: "Game", p: Any, viewer: int, turn: int) -> PlayerView:
    idc = p.identity
    own = p.seat == viewer
    lost = p.has_lost
    if idc is None:                        # Throne Magic: a Role card, no identity card (SeatView.throne_magic)
        face_up = leader = False
        name = role = None
        id_counters = _EMPTY
    else:
        face_up = idc.face_up
        card = idc.copy_of                 # IdentityCard.name and .role, read once
        if card is None:
            card = idc.identity
        role = idc.role_override
        if role is None:
            role = card.role
        leader = face_up and not lost and role == _LEADER     # Game.is_leader_player (CR 314.7)
        if face_up or viewer in idc.known_by:
            name = card.name
        else:
            name = role = None
        id_counters = _fd(idc.counters)
    cmd = p.commander
    cre = p.creatures
    return _new(PlayerView, (
        p.seat, not lost, p.life, len(p.hand), _names_of(p.hand) if own else None, len(p.library),
        _names_of(p.graveyard), _names_of(p.exile), p.lands, p.lands - p.lands_tapped, _fd(p.tokens),
        tuple([_creature_view(c, turn) for c in cre]) if cre else (),
        face_up, name, role, id_counters,
        None if cmd is None else cmd.name, p.commander_zone, _fd(p.cmd_damage), leader,
        _fd(p.counters),
        tuple([(q["card"].name, q["zone"], q["free"]) for q in p.permissions]) if own else None,
        p.mulligans, tuple([_planeswalker_view(game, w) for w in p.attackables]) if p.attackables else (),
        p.commander_casts))


def _vanguards_view(game: "Game") -> "tuple | None":
    """Each seat's Vanguard card's name (:attr:`SeatView.vanguards`; public, CR 902.3), None
    without the variant."""
    if game.config.vanguard is None:
        return None
    return tuple([p.vanguard.name for p in game.players])


def _throne_view(game: "Game", viewer: int) -> "ThroneView | None":
    """The :class:`ThroneView` of ``viewer`` (None in Treachery): a copy of what it may know of
    ``game.social``, each seat's Role only where ``known_by`` names the viewer."""
    social = game.social
    if social is None:
        return None
    roles = social.roles
    if roles:
        known = tuple([roles[s] if viewer in seen else None for s, seen in enumerate(social.known_by)])
    else:                       # a Draft: no Role dealt yet
        known = (None,) * game.n
    holdings = ()
    if social.holdings:
        attackers: dict = {}
        for a in game.combat_attackers:
            if a.attacking_obj is not None:
                attackers.setdefault(a.attacking_obj.uid, []).append(a.uid)
        holdings = tuple(HoldingView(h.name, h.controller, h.uid, tuple(attackers.get(h.uid, ())))
                         for h in social.holdings)
    w = social.throne
    if w is None:
        return ThroneView(tuple(social.role_set), known, None, None, None, holdings, social.season)
    return ThroneView(tuple(social.role_set), known, w.name, w.controller, w.uid, holdings, social.season)


def _planar_view(game: "Game") -> "PlanarView | None":
    """The :class:`PlanarView` of ``game`` (None without Planechase): copies of its public
    planar facts (the same for every viewer)."""
    pz = game.planar
    if pz is None:
        return None
    return PlanarView(pz.mode, pz.face_up, pz.uid, pz.controller, pz.owner, pz.rolls,
                      tuple(len(d) for d in pz.decks))


PUBLIC_TURN_MARKS = ("attackers_declared", "cleanup_again", "fog", "first_strikers", "out_of_combat", "steps_ended")
"""The marks the engine keeps for the rest of a turn (``Game.turn_effects``) that every
seat may know, each made by public events: a creature was declared as an attacker (CR
508.8), a state-based action was performed or an ability triggered in the cleanup step
(CR 514.3a), combat damage is prevented this turn (a fog), the uids of the creatures
that dealt first-strike damage (CR 702.7) and of the Thrones or Holdings removed from
combat, the turn or phase was ended (CR 723).  The others are :data:`HIDDEN_TURN_MARKS`."""

HIDDEN_TURN_MARKS = ("augur_scry", "scry")
"""The marks of ``Game.turn_effects`` that no seat's view shows: a scry in progress
(The Seer's ``"scry"``, The Augur's ``"augur_scry"``) holds the cards taken from the
top of a library and where its player has put them so far, which only that player
may see (scry, CR 701.22; its decisions show them to that player alone).  Every key the
engine uses in ``Game.turn_effects`` is in this list or in :data:`PUBLIC_TURN_MARKS`
(tests/test_information_sets.py reads the sources): a new mark is shown or hidden
by a decision, never by default."""


def _turn_marks_view(game: "Game") -> FrozenDict:
    """:attr:`SeatView.turn_marks`: the :data:`PUBLIC_TURN_MARKS` of ``game.turn_effects``
    (the same for every viewer), a set of uids as a sorted tuple."""
    te = game.turn_effects
    if not te:
        return _EMPTY
    return FrozenDict({k: tuple(sorted(te[k])) if isinstance(te[k], (set, frozenset)) else te[k]
                       for k in PUBLIC_TURN_MARKS if k in te})


def _option(action: int, text: str, kind: str, card: str | None = None, player: int | None = None,
            creature: int | None = None, stack: int | None = None, x: int | None = None,
            ability: "int | str | None" = None, talk: str | None = None, role: Role | None = None,
            planeswalker: int | None = None) -> OptionView:
    """``OptionView(...)``, made without the named tuple's ``__new__`` (a Python
    function, slower than this one compiled)."""
    return _new(OptionView, (action, text, kind, card, player, creature, stack, x, ability, talk, role, planeswalker))


def _option_view(game: "Game", d: Any, k: int, action: int, payload: Any) -> OptionView:
    """The :class:`OptionView` of option ``k`` (``action``, ``payload``) of ``d``."""
    text = option_text(game, d, k)
    if text is None:
        text = game.describe_action(action)
    p = game.players[d.seat]
    kind = d.kind
    if action == game.layout.CONCEDE:
        return _option(action, text, "concede")
    if payload is None or (kind == DecisionKind.MULLIGAN and payload == "keep"):
        return _option(action, text, "pass")
    if kind == DecisionKind.MULLIGAN:
        return _option(action, text, "mulligan")
    if kind == DecisionKind.BOTTOM:
        return _option(action, text, "bottom", card=p.hand[payload].name)
    if kind == DecisionKind.PRIORITY:
        what, arg = payload
        if what == "talk":
            talk, subject, role = arg
            return _option(action, text, "talk", player=subject, talk=talk,
                              role=None if role is None else Role(role))
        if what in ("land", "cast"):
            return _option(action, text, what, card=p.hand[arg].name)
        if what == "commander":
            return _option(action, text, what, card=p.commander.name)
        if what == "unveil":
            return _option(action, text, what, x=arg)
        if what == "identity_ability":
            return _option(action, text, what, ability=arg)
        if what == "token":
            return _option(action, text, what, ability=arg)
        if what == "permission":
            return _option(action, text, what, card=p.permissions[arg]["card"].name)
        if what == "loyalty":
            w = p.attackables[arg[0]]
            return _option(action, text, what, card=w.name, ability=arg[1], planeswalker=w.uid)
        if what == "throne_creature":      # Throne Magic: a creature's Throne ability (engine/throne.py)
            slot, key = arg
            w = game.social.throne
            return _option(action, text, "throne_ability", creature=p.creatures[slot].uid, ability=key,
                           player=w.controller if key == "throne_give" else None)
        if what == "planar_die":           # Planechase: the planar die, costing {x} (CR 901.9)
            return _option(action, text, what, x=arg)
    if kind == DecisionKind.DEAL:
        return _option(action, text, "accept", player=d.ctx[0])
    if kind == DecisionKind.ATTACKER:
        return _option(action, text, "attack_with", creature=payload.uid)
    if kind == DecisionKind.DEFENDER:
        if not isinstance(payload, int):
            if payload.kind == "throne" or payload.kind == "holding":     # Throne Magic
                c = payload.controller
                return _option(action, text, "attack_" + payload.kind, player=c if c >= 0 else None,
                               planeswalker=payload.uid)
            return _option(action, text, "attack_planeswalker", player=payload.controller, planeswalker=payload.uid)
        return _option(action, text, "attack_player", player=payload)
    if kind == DecisionKind.BLOCKER:
        return _option(action, text, "block_with", creature=payload.uid)
    if kind == DecisionKind.BLOCKED:
        return _option(action, text, "block", creature=payload.uid, player=payload.controller)
    if kind == DecisionKind.NUMBER and isinstance(payload, int):
        return _option(action, text, "number", x=payload)
    if kind in (DecisionKind.DISCARD, DecisionKind.COST) and isinstance(payload, int):
        return _option(action, text, "discard" if kind == DecisionKind.DISCARD else "cost",
                          card=p.hand[payload].name)
    if isinstance(payload, tuple) and len(payload) == 2 and payload[0] in ("p", "c", "s", "w"):
        t, obj = payload
        if t == "p":
            return _option(action, text, "target", player=obj)
        if t == "c":
            return _option(action, text, "target", creature=obj.uid, player=obj.controller)
        if t == "w":
            return _option(action, text, "target", planeswalker=obj.uid, player=obj.controller)
        return _option(action, text, "target", stack=obj.uid)
    if hasattr(payload, "base_power"):
        return _option(action, text, "cost" if kind == DecisionKind.COST else "choice", creature=payload.uid,
                          player=payload.controller)
    if isinstance(payload, Attackable) and payload.kind == "planeswalker":     # chosen, not targeted
        return _option(action, text, "choice", player=payload.controller, planeswalker=payload.uid)
    L = game.layout
    return _option(action, text, "choice", x=action - L.CHOICE if action >= L.CHOICE else None)


def _decision_view(game: "Game", d: Any, viewer: int) -> DecisionView:
    """The :class:`DecisionView` of ``d`` (pending for ``viewer``).

    Without labels, the view of a pass option (payload None) depends only on
    the decision kind and the action, and that of a talk option only on the
    seat and the message ``(kind, subject, role)`` (its words name seats
    absolutely): those are made once and kept in ``_SIMPLE_OPTIONS``."""
    opts = d.options
    kind = d.kind
    if d.labels is not None and len(d.labels) == len(opts):
        out = [_option_view(game, d, k, action, payload) for k, (action, payload) in enumerate(opts)]
    else:
        cache = _SIMPLE_OPTIONS
        get = cache.get
        out = []
        for k, (action, payload) in enumerate(opts):
            if payload is None:
                key = (kind, action)
            elif kind == _PRIORITY and payload[0] == "talk":
                key = (viewer, action, payload[1])
            else:
                out.append(_option_view(game, d, k, action, payload))
                continue
            ov = get(key)
            if ov is None:
                ov = cache[key] = _option_view(game, d, k, action, payload)
            out.append(ov)
    cre = d.declared_creature(viewer)
    return _new(DecisionView, (DecisionKind.NAMES[kind], d.prompt, tuple(out), None if cre is None else cre.uid,
                               d.label))


def _talk_view(game: "Game") -> TalkView:
    t = game.talk
    return TalkView(game.config.talk, game.config.talk_limit, tuple(t.messages), _fd(t.claims), _fd(t.stances),
                    _fd(t.intents), _fd(t.requests), tuple(t.deals), _fd(t.broken), tuple(t.hurt_at_start))


class PythonViewBuilder:
    """Builds the :class:`SeatView` of any seat of one game, again and again
    as the game moves on (the environment keeps one per game; the reference
    implementation of :class:`ViewBuilder`, in Python), reusing what
    did not change since its last build: each log entry of the turns shown
    is frozen once, the events each seat sees are extended rather than
    collected anew, and the talk view is kept until something is said or a
    truce changes.

    The builder refers to the game; the views it returns do not.

    Args:
        game: the game to view.
    """

    __slots__ = ("game", "_log", "_base", "_frozen", "_seen", "_talk_key", "_talk")

    def __init__(self, game: "Game"):
        self.game = game
        self._log: list | None = None      # the log list the frozen entries come from
        self._base = 0                     # index in _log of the first frozen entry
        self._frozen: list = []            # _freeze_event of _log[_base:], in order
        self._seen: dict = {}              # viewer -> (first turn shown, entries looked at, events tuple)
        self._talk_key: tuple | None = None
        self._talk: TalkView | None = None

    def _events(self, viewer: int) -> tuple:
        """The frozen log entries ``viewer`` may see from the previous turn on.

        Only the entries of the previous turn on are frozen (each once) and
        kept, from log index ``_base`` on; each viewer's tuple is extended by
        the entries logged since its last build, and collected anew when the
        turn changed."""
        g = self.game
        log = g.log
        n = len(log)
        first = g.turn - 1
        frozen = self._frozen
        if log is not self._log or n < self._base + len(frozen):      # another log, or a shorter one
            self._log, self._base, self._seen = log, n, {}
            frozen = self._frozen = []
        base = self._base
        if base + len(frozen) < n:
            frozen.extend(map(_freeze_event, log[base + len(frozen):]))
        if base > 0 and log[base - 1]["turn"] >= first:               # older entries needed (a first build)
            i = base - 1
            while i > 0 and log[i - 1]["turn"] >= first:
                i -= 1
            frozen[:0] = map(_freeze_event, log[i:base])
            self._base = base = i
        elif frozen and frozen[0]["turn"] < first:                    # forget the turns no view shows any more
            k = 0
            while k < len(frozen) and frozen[k]["turn"] < first:
                k += 1
            del frozen[:k]
            self._base = base = base + k
        seen = self._seen.get(viewer)
        if seen is not None and seen[0] == first:
            _, upto, events = seen
            if upto < n:
                new = [e for e in frozen[upto - base:] if e["to"] is None or viewer in e["to"]]
                if new:
                    events = events + tuple(new)
        else:
            events = tuple([e for e in frozen if e["to"] is None or viewer in e["to"]])
        self._seen[viewer] = (first, n, events)
        return events

    def _talk_view(self) -> TalkView:
        """The talk view, rebuilt only when what it is made of changed (messages
        are only ever appended, so their count tells)."""
        g = self.game
        t = g.talk
        key = self._talk_key
        if (key is None or key[0] is not t or key[1] is not g.config or key[2] != len(t.messages)
                or key[3] != t.hurt_at_start or key[4] != t.deals or key[5] != t.broken or key[6] != t.claims
                or key[7] != t.stances or key[8] != t.intents or key[9] != t.requests):
            self._talk = _talk_view(g)
            self._talk_key = (t, g.config, len(t.messages), t.hurt_at_start, list(t.deals), dict(t.broken),
                              dict(t.claims), dict(t.stances), dict(t.intents), dict(t.requests))
        return self._talk

    def build(self, viewer: int) -> SeatView:
        """The :class:`SeatView` of ``viewer`` now (equal to ``seat_view(game, viewer)``)."""
        g = self.game
        turn = g.turn
        players = tuple([_player_view(g, p, viewer, turn) for p in g.players])
        stack = tuple([_stack_view(it) for it in g.stack]) if g.stack else ()
        me = g.players[viewer]
        idc = me.identity                  # None in Throne Magic: no Undercover, no face-down exile
        # The Oneiromancer's look at its pile: an ability of the face-up card (CR 314.4b) or of the
        # trigger that filled it
        dream = None if idc is None or not may_look_at_pile(idc, me.seat) else idc.data["dream"]
        d = g.decision
        return _new(SeatView, (
            viewer, turn, g.phase, g.active, players, stack, tuple(map(tuple, g.harm)), tuple(map(tuple, g.attacks)),
            (not me.has_lost) and idc is not None and g.undercover_met(viewer),
            tuple([c.name for _, c in dream]) if dream else (),
            _decision_view(g, d, viewer) if d is not None and d.seat == viewer else None, self._events(viewer),
            g.config.priority_windows, tuple(g.role_counts), self._talk_view(), _throne_view(g, viewer),
            _vanguards_view(g), _schemes_view(g), _planar_view(g), _turn_marks_view(g)))


def _select_builder() -> tuple[type, str]:
    """The builder :class:`ViewBuilder` is, and its name for :data:`VIEW_BUILDER`:
    the compiled one unless ``TREACHERY_PURE_PYTHON=1``, it is not built, it
    is older than ``_view.pyx`` or the engine's state types it reads (then with
    a warning), or those are not compiled (``compiled.compiled_pyx``)."""
    mod = compiled_pyx("_view", "the compiled view builder")
    if mod is None:
        return PythonViewBuilder, "python"
    return mod.ViewBuilder, "compiled"


ViewBuilder, VIEW_BUILDER = _select_builder()
"""``ViewBuilder(game)`` builds the :class:`SeatView` of any seat of ``game``
with ``.build(viewer)``, again and again as the game moves on (the
environment keeps one per game); ``.game`` is the game.  :data:`VIEW_BUILDER`
says which implementation it is: ``"compiled"`` (``treachery_env._view``,
Cython) or ``"python"`` (:class:`PythonViewBuilder`); both give equal views."""


def seat_view(game: "Game", viewer: int) -> SeatView:
    """Build the :class:`SeatView` of ``viewer`` from scratch (same information
    as :func:`~treachery_env.observation.encode`); a :class:`ViewBuilder`
    makes the views of a game that moves on more cheaply."""
    return ViewBuilder(game).build(viewer)


def public_view(game: "Game") -> SeatView:
    """A spectator's view of ``game``: seat 0's view with everything private
    removed (hands, cards usable from other zones, the face-down exile, the
    decision, private events), an identity shown only when face up or known
    to every seat (after a loss, CR 702.187g, or at the end, CR 907.9); in
    Throne Magic a Role likewise only once every seat knows it (revealed on
    leaving the game, "Leaving the Game", or at the end).
    Its ``seat`` is 0, but nothing in it is seat 0's alone: the same for every
    seat, it is what a spectator may be shown."""
    views = [seat_view(game, s) for s in range(game.n)]
    players = []
    for i, p in enumerate(views[0].players):
        public = p.face_up or all(v.players[i].identity is not None for v in views)
        players.append(p._replace(hand=None, usable_elsewhere=None, identity=p.identity if public else None,
                                  role=p.role if public else None))
    tm = views[0].throne_magic
    if tm is not None:          # a Role shown only once every seat knows it (revealed on leaving, at the end)
        tm = tm._replace(known=tuple(r if all(v.throne_magic.known[i] is not None for v in views) else None
                                     for i, r in enumerate(tm.known)))
    return views[0]._replace(players=tuple(players), dream=(), decision=None, undercover_met=False,
                             events=tuple(e for e in views[0].events if e["to"] is None), throne_magic=tm)
