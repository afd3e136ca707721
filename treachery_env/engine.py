"""The Treachery rules engine on the Magic-lite substrate (no PettingZoo here).

:class:`Game` runs a whole game.  It stops whenever a player must decide and
exposes that decision as a legal-action mask over the flat action space of
:mod:`treachery_env.actions`; :meth:`Game.step` applies a choice and runs the
game on to the next decision.  A decision with one legal action is taken
automatically and never shown (DESIGN section 4).

Treachery layer (exact, CR 907 / 702.187 / 314 and the TR guide): identity
deck and deal (CR 907.3-907.4), the face-up Leader taking the first turn
(CR 907.6), unveil as a special action with its cost (CR 702.187c, 115.2tr),
Undercover (CR 702.187f), face-down identities having no characteristics and
being everyone's opponent (CR 314.4b, 907.7g), winning and losing with teams
and last-known teams (CR 907.7, TR6-TR7), reveal on losing that is not an
unveil (CR 702.187a/g), identity-sourced triggers resolving before a player
leaves (CR 907.8a), identity control changes and turning face down.

Magic-lite layer (abstracted; docs/fidelity.md): generic mana, lands and
noncreature artifact tokens kept as counts, creatures as objects, a stack with
priority in turn order, APNAP triggers, multiplayer combat, commanders.

Internally the engine is a small interpreter: the turn structure pushes
operations on ``self.queue``; an operation either changes the state or
creates a :class:`Decision`; answers are handled by ``_h_*`` methods.  All
state is plain data, so :meth:`Game.clone` is a deep copy.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from collections import deque
from typing import Any, Iterable

import numpy as np

from . import identities as ids
from . import identity_abilities as IA
from .actions import (MAX_CHOICE, MAX_HAND, MAX_OTHER, MAX_PERMS, MAX_STACK, MAX_X, TOKEN_ABILITIES, ActionLayout)
from .cards import COUNTER_TOKENS, DECKS, TOKENS, CardDef, deck_list
from .config import GameConfig
from .rules import Role, Team, role_distribution, team_of

__all__ = ["Game", "Player", "Creature", "IdentityCard", "StackItem", "Decision", "PHASES",
           "DecisionKind", "REPLAY_VERSION"]

REPLAY_VERSION = 1

PHASES = ("untap", "upkeep", "draw", "main1", "combat_begin", "declare_attackers",
          "declare_blockers", "first_strike_damage", "combat_damage", "combat_end", "main2",
          "end", "cleanup")
"""Steps of a turn (CR 500-514) in order."""
_PH = {p: i for i, p in enumerate(PHASES)}
MAIN_PHASES = (_PH["main1"], _PH["main2"])


class DecisionKind:
    """Kinds of decision, as small ints (one-hot in observations)."""

    PRIORITY = 0      # main-phase or instant-speed actions, or pass
    ATTACKER = 1      # choose a creature to attack with, or done
    DEFENDER = 2      # choose the player that creature attacks
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
    COUNT = 13

    NAMES = ("priority", "attacker", "defender", "blocker", "blocked", "target", "number", "mode",
             "card", "discard", "cost", "scry", "yes_no")


class Creature:
    """A creature permanent on the battlefield.

    Power and toughness are ``base + counters + until-end-of-turn pump``;
    ``damage`` is marked damage, removed at cleanup (CR 514.2).
    """

    __slots__ = ("uid", "name", "card", "token", "owner", "controller", "base_power", "base_toughness",
                 "base_keywords", "tapped", "damage", "deathtouched", "p1p1", "stun", "entered_turn",
                 "pump_p", "pump_q", "pump_kw", "attacking", "blocked_by", "blocking", "was_blocked",
                 "is_commander", "legendary")

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
        self.blocked_by: list = []   # blockers, in declaration order
        self.blocking = None         # the attacker it blocks
        self.was_blocked = False
        self.is_commander = False
        self.legendary = legendary

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

    def __repr__(self) -> str:
        return f"<{self.name} #{self.uid} {self.power}/{self.toughness} of P{self.controller}>"


class IdentityCard:
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
        return self.card.name

    @property
    def role(self) -> Role:
        """Current role: a copy effect's role if it sets one, else the card's (TR8.8)."""
        return self.role_override if self.role_override is not None else self.card.role

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


class Player:
    """One seat's state.  ``hand``, ``library`` etc. hold :class:`CardDef` objects.

    Lands and noncreature artifact tokens (Treasure, Clue, Food, Blood, Map,
    Junk, Explosive) are counts; creatures are :class:`Creature` objects.
    """

    __slots__ = ("seat", "life", "hand", "library", "graveyard", "exile", "lands", "lands_tapped",
                 "tokens", "creatures", "identity", "commander", "commander_zone", "commander_casts",
                 "cmd_damage", "has_lost", "lost_turn", "last_team", "last_role", "land_played",
                 "mana_pool", "drew_from_empty", "max_hand_size", "deck", "cant_lose", "won", "counters",
                 "permissions")

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


class StackItem:
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
        owner: owner of the card (where it goes after resolving).
        data: free-form memory of the ability (modes, linked values).
    """

    __slots__ = ("uid", "kind", "controller", "card", "source", "key", "identity_source", "targets",
                 "target_specs", "x", "is_copy", "from_zone", "owner", "data", "creature")

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

    @property
    def is_spell(self) -> bool:
        """Whether this stack object is a spell (not an ability)."""
        return self.kind == "spell"

    def __repr__(self) -> str:
        return f"<{self.kind} {self.source}/{self.key} of P{self.controller}>"


class Decision:
    """A choice a seat must make.

    Attributes:
        seat: the deciding seat.
        kind: a :class:`DecisionKind` value.
        options: ``[(action_index, payload), ...]``; action indices are unique.
        handler: name of the ``Game._h_*`` method that applies the chosen payload.
        ctx: data the handler needs.
        prompt: what is being decided, in words.
        labels: optional words for each option (same order as ``options``).
    """

    __slots__ = ("seat", "kind", "options", "handler", "ctx", "prompt", "labels", "_index")

    def __init__(self, seat: int, kind: int, options: list, handler: str, ctx: Any = None,
                 prompt: str = "", labels: list | None = None):
        self.seat = seat
        self.kind = kind
        self.options = options
        self.handler = handler
        self.ctx = ctx
        self.prompt = prompt
        self.labels = labels
        self._index: dict[int, int] | None = None

    def index_of(self, action: int) -> int | None:
        """Position of ``action`` in :attr:`options`, or None if it is not legal."""
        if self._index is None:
            self._index = {a: i for i, (a, _) in enumerate(self.options)}
        return self._index.get(action)


def _canon(obj: Any) -> Any:
    """JSON-friendly canonical form used by :meth:`Game.digest`."""
    if isinstance(obj, dict):
        return {str(k): _canon(v) for k, v in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (list, tuple)):
        return [_canon(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(_canon(v) for v in obj)
    return obj


class Game:
    """A Treachery game.  See the module docstring for the model.

    Args:
        config: a :class:`GameConfig` (default: 5 players, Commander).
        seed: seed of the game's private random stream (shuffles, deal, decks);
            same seed + same actions gives the same game on any machine.

    Attributes:
        config, seed, n (players), layout (:class:`ActionLayout`).
        players: list of :class:`Player` by seat.
        turn: number of turns started (the first turn is 1).
        active: the active player's seat.
        phase: current step name (one of :data:`PHASES`).
        stack: list of :class:`StackItem`, last = top.
        decision: the pending :class:`Decision`, or None when the game is over.
        is_over, truncated: game end flags; winners: set of winning seats.
        log: list of events ``{"turn", "event", ..., "to": None | [seats]}``;
            ``to`` lists the seats that may see a private event.
        actions: every action index applied so far (the replay).
    """

    def __init__(self, config: GameConfig | None = None, seed: int = 0, **overrides: Any):
        if config is None:
            config = GameConfig(**overrides)
        elif overrides:
            config = config.replace(**overrides)
        if not isinstance(config, GameConfig):
            raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an int, got {seed!r}")
        self.config = config
        self.seed = int(seed)
        self.n = config.num_players
        self.layout = ActionLayout(self.n)
        self.rng = random.Random(self.seed)
        self.players = [Player(s) for s in range(self.n)]
        self.turn = 0
        self.active = 0
        self.phase = "cleanup"
        self.stack: list[StackItem] = []
        self.queue: deque = deque()
        self.decision: Decision | None = None
        self.priority_seat: int | None = None
        self.passes = 0
        self.pending_triggers: list[StackItem] = []
        self.delayed: list[dict] = []
        self.shields: list[dict] = []
        self.effects: list[dict] = []      # continuous and replacement effects from resolved abilities
        self.extra_turns: list[int] = []   # seats that take an extra turn next (last in, first taken)
        self.order_seat = 0                # seat of the last turn taken in the normal turn order (CR 500.7)
        self.is_over = False
        self.truncated = False
        self.winners: set[int] = set()
        self.log: list[dict] = []
        self.actions: list[int] = []
        self.decisions_taken = 0
        self.auto_decisions = 0
        self.revealed_identities: set[int] = set()   # uids of non-Leader identities ever turned face up
        self.leader_attacked_by: set[int] = set()    # seats that declared an attack on a Leader player
        self.turn_effects: dict[str, Any] = {}       # effects lasting until end of turn
        self.combat_attackers: list[Creature] = []
        # the stack object now resolving (the cause of what its effects do; None between
        # resolutions, so state-based actions and combat have no cause): The King over the Scrapyard
        self.resolving: StackItem | None = None
        # public history for deduction: harm[i][j] = damage dealt and life loss caused by
        # seat i's spells, abilities and creatures to seat j and j's creatures; attacks[i][j] =
        # creatures seat i has attacked seat j with
        self.harm = [[0] * self.n for _ in range(self.n)]
        self.attacks = [[0] * self.n for _ in range(self.n)]
        self._uid = 0
        self._dirty = True
        self._statics: set[str] = set()
        self.n_alive = self.n
        self._setup()
        self._advance()

    # ------------------------------------------------------------------ setup
    def _new_uid(self) -> int:
        self._uid += 1
        return self._uid

    def _setup(self) -> None:
        """Decks first (TR2.1), then the identity deck is built, shuffled and
        dealt (CR 907.3-907.4); the Leader turns face up and starts (CR 907.6)."""
        cfg = self.config
        rng = self.rng
        deck_names = list(cfg.decks) if cfg.decks is not None else [
            rng.choice(sorted(DECKS)) for _ in range(self.n)]
        # identity deck
        simple = cfg.variant == "simple_roles"
        if cfg.identities is not None:
            deal = [ids.simple_role_card(nm) if simple else ids.get(nm) for nm in cfg.identities]
        else:
            dist = role_distribution(self.n, cfg.variant)
            deal = []
            if simple:       # TR11: basic lands as role cards
                for role in Role:
                    deal.extend([ids.simple_role_card(role)] * dist[role])
            else:
                pool = cfg.pool()
                for role in Role:
                    cands = [nm for nm in pool if ids.get(nm).role == role]
                    deal.extend(ids.get(nm) for nm in rng.sample(cands, dist[role]))
            rng.shuffle(deal)
        for seat, p in enumerate(self.players):
            p.deck = deck_names[seat]
            cmd, cards = deck_list(deck_names[seat], cfg.recommended_exclusions)
            p.commander = cmd if cfg.commander else None
            if not cfg.commander:
                cards = cards + [cmd]
            p.library = list(cards)
            rng.shuffle(p.library)
            p.life = cfg.life
            p.max_hand_size = cfg.max_hand_size
            idc = IdentityCard(self._new_uid(), deal[seat], seat)
            p.identity = idc
        leaders = [p for p in self.players if p.identity.role == Role.LEADER]
        hand_sizes = [cfg.starting_hand_size] * self.n
        for p in self.players:
            idc = p.identity
            start = idc.identity.start
            p.life += start.get("life", 0)
            hand_sizes[p.seat] += start.get("hand_size", 0)
            p.max_hand_size += start.get("max_hand_size", 0)
            idc.counters.update(idc.identity.starting_counters(self.n))
            if idc.identity.unveil_cost is None:   # no unveil: starts face up (CR 702.187b)
                idc.face_up = True
                idc.known_by = set(range(self.n))
        for p in self.players:
            self._log("deal", to=[p.seat], seat=p.seat, identity=p.identity.name)
        for p in leaders:
            self._log("leader", seat=p.seat, identity=p.identity.name)
        for p in self.players:
            for _ in range(hand_sizes[p.seat]):
                if p.library:
                    p.hand.append(p.library.pop())
        self._refresh_statics()
        # CR 907.6 / 314.3a: the Leader player starts; several -> random among them
        starters = [p.seat for p in leaders] or [0]
        self.active = starters[0] if len(starters) == 1 else rng.choice(starters)
        self.order_seat = self.active
        self.turn = 0
        self._start_turn(self.active)

    # ------------------------------------------------------------------ helpers
    def _log(self, event: str, to: Iterable[int] | None = None, **data: Any) -> None:
        entry = {"turn": self.turn, "event": event, **data}
        entry["to"] = None if to is None else sorted(to)
        self.log.append(entry)

    def rel(self, viewer: int, seat: int) -> int:
        """Seat ``seat`` relative to ``viewer`` (0 = viewer, then in turn order)."""
        return (seat - viewer) % self.n

    def abs_seat(self, viewer: int, rel: int) -> int:
        """Inverse of :meth:`rel`."""
        return (viewer + rel) % self.n

    def alive(self) -> list[int]:
        """Seats still in the game, in seat order."""
        return [p.seat for p in self.players if not p.has_lost]

    def _next_alive(self, seat: int, include_self: bool = False) -> int | None:
        for k in range(0 if include_self else 1, self.n + 1):
            s = (seat + k) % self.n
            if not self.players[s].has_lost:
                return s
        return None

    def _apnap(self) -> list[int]:
        """Seats in APNAP order from the active player (CR 101.4)."""
        return [(self.active + k) % self.n for k in range(self.n)
                if not self.players[(self.active + k) % self.n].has_lost]

    @property
    def current_player(self) -> int | None:
        """Seat that must decide now, or None once the game is over."""
        return None if self.decision is None else self.decision.seat

    def is_leader_player(self, seat: int) -> bool:
        """CR 314.7: a player controlling a face-up identity with the Leader type."""
        idc = self.players[seat].identity
        return idc.face_up and idc.role == Role.LEADER and not self.players[seat].has_lost

    def role_player(self, seat: int, role: Role) -> bool:
        """CR 314.7: ``seat`` controls a face-up identity of ``role``."""
        idc = self.players[seat].identity
        return idc.face_up and idc.role == role

    def is_opponent(self, a: int, b: int) -> bool:
        """Whether ``b`` is an opponent of ``a`` (CR 907.7g, TR3.11): everyone is
        everyone's opponent while face down; face-up Leader and Guardians are
        teammates, so are face-up Assassins; Traitors oppose everyone (CR 907.7f)."""
        if a == b:
            return False
        ia, ib = self.players[a].identity, self.players[b].identity
        if not (ia.face_up and ib.face_up):
            return True
        ta, tb = team_of(ia.role), team_of(ib.role)
        return ta == Team.TRAITOR or ta != tb

    def _refresh_statics(self) -> None:
        self._statics = IA.static_keys(self)

    def has_static(self, key: str) -> bool:
        """Whether a continuous effect named ``key`` of a face-up identity applies."""
        return key in self._statics

    # ------------------------------------------------------------------ mana
    def available_mana(self, seat: int) -> int:
        """Generic mana ``seat`` can produce now: pool + untapped lands + Treasures."""
        p = self.players[seat]
        return p.mana_pool + p.lands - p.lands_tapped + p.tokens["Treasure"]

    def _pay_mana(self, seat: int, amount: int) -> None:
        """Pay ``amount`` generic mana: mana pool first, then untapped lands, then
        Treasures (abstraction: mana abilities are activated automatically)."""
        p = self.players[seat]
        if amount <= 0:
            return
        use = min(p.mana_pool, amount)
        p.mana_pool -= use
        amount -= use
        use = min(p.lands - p.lands_tapped, amount)
        p.lands_tapped += use
        amount -= use
        if amount:
            if amount > p.tokens["Treasure"]:
                raise AssertionError("paid more mana than available")
            p.tokens["Treasure"] -= amount

    def can_pay_life(self, seat: int, amount: int) -> bool:
        """CR 119.4: a player can pay life only if their life total is >= the amount,
        and no effect forbids it (The Oracle, The Treacherous Masochist)."""
        if amount <= 0:
            return True
        return self.players[seat].life >= amount and not IA.forbids(self, "pay_life", seat=seat)

    # ------------------------------------------------------------------ unveil
    def undercover_met(self, seat: int) -> bool:
        """CR 702.187f / TR5: another identity that isn't a Leader has been turned
        face up (unveiled or revealed), or a player other than ``seat`` attacked a
        Leader player, earlier in the game."""
        own = self.players[seat].identity.uid
        if any(u != own for u in self.revealed_identities):
            return True
        return any(s != seat for s in self.leader_attacked_by)

    def unveil_cost_mana(self, seat: int, x: int = 0, y: int = 0) -> int:
        """Generic mana of ``seat``'s unveil cost with X = ``x`` and Y = ``y``
        (0 if none), after cost reductions (The Quellmaster)."""
        cost = self.players[seat].identity.unveil_cost
        if cost is None:
            return 0
        return max(0, cost.mana - IA.cost_reduction(self, seat)) + cost.x * x + cost.y * max(y, 1 if cost.y else 0)

    def can_unveil(self, seat: int, x: int = 0, ignore_cost: bool = False) -> bool:
        """Whether ``seat`` may take the unveil special action now with X = ``x``.

        CR 702.187c: the identity is face down, controlled by ``seat``, has an
        unveil cost, and the player has priority (skipped when ``ignore_cost``,
        which only asks about the rules restrictions); Undercover is met
        (CR 702.187f); the cost is payable with this X (mana, life, cards).
        X must be 0 for a cost without X, and 0..MAX_X otherwise.
        """
        p = self.players[seat]
        if p.has_lost or self.is_over:
            return False
        idc = p.identity
        cost = idc.unveil_cost
        if idc.face_up or cost is None:
            return False
        if cost.x == 0 and x != 0:
            return False
        if not 0 <= x <= MAX_X:
            return False
        if idc.undercover and not self.undercover_met(seat):
            return False
        if ignore_cost:
            return True
        if self.decision is not None and (self.decision.kind != DecisionKind.PRIORITY or self.decision.seat != seat):
            return False
        if not IA.unveil_cost_ok(self, seat, x):
            return False
        return self.available_mana(seat) >= self.unveil_cost_mana(seat, x)

    def unveil(self, seat: int, x: int = 0) -> None:
        """Take the unveil special action for ``seat`` with X = ``x`` (CR 702.187c):
        the same as stepping action ``layout.UNVEIL + x`` at ``seat``'s priority,
        so it is recorded in the replay.  Cost choices (a card to discard or
        exile) become decisions of ``seat``.

        Raises:
            ValueError: if the identity can't be unveiled (face up, no unveil
                cost, X not allowed, Undercover not met), the cost can't be paid,
                or ``seat`` does not hold priority.
        """
        if not self.can_unveil(seat, x, ignore_cost=True):
            raise ValueError(f"seat {seat} cannot unveil now (face up, no unveil cost, X={x} not allowed, "
                             f"or Undercover not met)")
        if not IA.unveil_cost_ok(self, seat, x) or self.available_mana(seat) < self.unveil_cost_mana(seat, x):
            raise ValueError(f"seat {seat} cannot pay the unveil cost of {self.players[seat].identity.name} with X={x}")
        d = self.decision
        if d is None or d.kind != DecisionKind.PRIORITY or d.seat != seat:
            who = "nobody" if d is None else f"seat {d.seat} ('{d.prompt}')"
            raise ValueError(f"seat {seat} cannot unveil now: it does not hold priority (CR 702.187c); "
                             f"the pending decision is {who}")
        self.step(self.layout.UNVEIL + x)   # recorded like any action, so replays include it

    def _begin_unveil(self, seat: int, x: int) -> None:
        idc = self.players[seat].identity
        cost = idc.unveil_cost
        self._log("unveil_cost", seat=seat, identity=idc.name, x=x)  # shown to all (CR 702.187c)
        self._pay_mana(seat, self.unveil_cost_mana(seat, x))
        if cost.life:
            self._lose_life(seat, cost.life, paid=True)
        ops = []
        if cost.y:      # {Y}: one more number, chosen after X; 1 Y is already paid above
            ops.append(("choose_y", seat, x))
        if cost.sacrifice:
            for _ in range(cost.sacrifice["count"]):
                ops.append(("cost_sacrifice", seat, cost.sacrifice.get("filter", "")))
        for kind in ("discard", "exile_from_hand"):
            spec = getattr(cost, kind)
            if spec:
                for _ in range(spec["count"]):
                    ops.append(("cost_card", seat, kind, spec.get("filter", "")))
        ops.append(("turn_face_up", seat, x, True))
        self._push_front(ops)

    def _op_choose_y(self, seat: int, x: int) -> None:
        """Choose Y >= 1 for an unveil cost with {Y} (The Summoner); the extra Y - 1
        is paid as it is chosen."""
        room = self.available_mana(seat)
        top = max(1, min(MAX_X, room + 1, MAX_CHOICE - 1))
        opts = [(self.layout.CHOICE + y, y) for y in range(1, top + 1)]
        self.decision = Decision(seat, DecisionKind.NUMBER, opts, "_h_y", seat, "choose Y for the unveil cost")

    def _h_y(self, seat: int, y: int) -> None:
        self._pay_mana(seat, y - 1)
        self.players[seat].identity.data["y"] = y

    def _op_cost_sacrifice(self, seat: int, flt: str) -> None:
        """Sacrifice a permanent to pay an unveil cost (The Bio-Engineer: a nontoken
        permanent; a land is a choice too)."""
        p = self.players[seat]
        if p.has_lost:
            return
        L = self.layout
        opts = [(L.perm(0, k), c) for k, c in enumerate(p.creatures[:MAX_PERMS])
                if not (c.token and "nontoken" in flt)]
        if p.lands and flt == "nontoken permanent":
            opts.append((L.CHOICE + 0, "land"))
        self.decision = Decision(seat, DecisionKind.COST, opts, "_h_cost_sacrifice", seat,
                                 "choose a permanent to sacrifice for the unveil cost")

    def _h_cost_sacrifice(self, seat: int, what: Any) -> None:
        p = self.players[seat]
        if what == "land":
            p.lands -= 1
            p.lands_tapped = min(p.lands_tapped, p.lands)
            self._log("sacrifice", seat=seat, permanent="land")
        else:
            self.sacrifice(what)

    def sacrifice(self, c: Creature, source_seat: int | None = None) -> bool:
        """``c``'s controller sacrifices it (CR 701.17): it goes to its owner's
        graveyard; replacement effects apply (The Great Martyr)."""
        if self.effects or self._statics:
            ev = {"seat": c.controller, "creature": c, "source_seat": source_seat}
            IA.replace(self, "sacrifice", ev)
            c = ev["creature"]
            if c is None:
                return False
        self._log("sacrifice", seat=c.controller, permanent=c.name)
        return self._leave_battlefield(c, "graveyard")

    def gain_control(self, c: Creature, seat: int, until_end_of_turn: bool = False) -> None:
        """``seat`` gains control of creature ``c`` (CR 108.4); it can't attack this
        turn unless it has haste (CR 302.6); with ``until_end_of_turn`` it goes
        back to its previous controller in the cleanup step."""
        old = c.controller
        if old == seat or c not in self.players[old].creatures or self.players[seat].has_lost:
            return
        self.players[old].creatures.remove(c)
        if c in self.combat_attackers:
            self.combat_attackers.remove(c)
        c.attacking = -1
        c.controller = seat
        c.entered_turn = self.turn
        self.players[seat].creatures.append(c)
        if until_end_of_turn:
            self.turn_effects.setdefault("control_back", []).append((c, old))
        self._log("gain_control", seat=seat, creature=c.uid, name=c.name, previous=old)

    def grant_permission(self, seat: int, card: CardDef, owner: int, zone: str, free: bool = False,
                         until_turn: int | None = None, source: str = "") -> None:
        """Let ``seat`` cast (or play, for a land) ``card`` from ``zone``
        (``"exile"`` or ``"graveyard"``, where it must stay) with the OTHER
        actions: for free, or paying its cost; until the end of turn
        ``until_turn`` (None: as long as it stays there).  The Spellsnatcher,
        The Lich Queen, The Augur."""
        self.players[seat].permissions.append({"card": card, "owner": owner, "zone": zone, "free": free,
                                               "until_turn": until_turn, "source": source})

    def _op_cost_card(self, seat: int, kind: str, flt: str) -> None:
        p = self.players[seat]
        if p.has_lost:
            return
        L = self.layout
        opts = [(L.HAND + i, i) for i, c in enumerate(p.hand[:MAX_HAND])
                if not (flt == "nonland" and c.is_land)]
        self.decision = Decision(seat, DecisionKind.COST, opts, "_h_cost_card", (seat, kind),
                                 f"choose a card to {kind.replace('_', ' ')} for the unveil cost")

    def _h_cost_card(self, ctx: tuple, i: int) -> None:
        seat, kind = ctx
        p = self.players[seat]
        c = p.hand.pop(i)
        if kind == "discard":
            p.graveyard.append(c)
        else:
            p.exile.append(c)
        self._log(kind, seat=seat, card=c.name)

    def _op_turn_face_up(self, seat: int, x: int, unveiled: bool) -> None:
        """Turn ``seat``'s identity face up.  ``unveiled``: as part of the unveil
        special action (triggers "when unveiled", CR 314.8); else a reveal."""
        if self.players[seat].has_lost:     # left while paying the cost: nothing turns face up
            return
        idc = self.players[seat].identity
        idc.face_up = True
        idc.known_by = set(range(self.n))
        idc.x = x if unveiled else 0
        if idc.role != Role.LEADER:
            self.revealed_identities.add(idc.uid)
        self._log("unveil" if unveiled else "reveal", seat=seat, identity=idc.name, x=idc.x)
        self._refresh_statics()
        if unveiled:
            IA.on_unveiled(self, seat)

    def turn_face_down(self, seat: int) -> None:
        """Turn ``seat``'s identity face down again (The Gatekeeper, The Ferryman).
        Players who saw it may remember it (TR4.8): ``known_by`` keeps everyone
        who saw it face up.  A copy effect on it ends (TR8.8)."""
        idc = self.players[seat].identity
        self._log("face_down", seat=seat, identity=idc.name)
        idc.face_up = False
        idc.copy_of = None
        idc.role_override = None
        self._refresh_statics()

    def copy_identity(self, seat: int, source: "str | ids.Identity", keep_role: bool = True) -> None:
        """``seat``'s identity becomes a copy of ``source`` (CR 314.11, TR8.8): it takes
        the copied name, abilities and unveil cost; with ``keep_role`` it keeps its
        own role (The Wearer of Masks stays a Traitor).  A face-down copy still has
        no characteristics for others; the copy ends when the card is turned face
        down (:meth:`turn_face_down`).

        Raises:
            ValueError: for an unknown identity name.
        """
        src = ids.get(source) if isinstance(source, str) else source
        idc = self.players[seat].identity
        role = idc.role
        idc.copy_of = src
        idc.role_override = role if keep_role else None
        if idc.face_up:
            self._log("copy_identity", seat=seat, identity=src.name)
        else:
            self._log("copy_identity", to=sorted(idc.known_by | {seat}), seat=seat, identity=src.name)
        self._refresh_statics()

    def set_identity_control(self, identity: IdentityCard, seat: int, face_down: bool | None = None) -> None:
        """Give control of ``identity`` to ``seat`` (TR8): the player's role and team
        become that identity's at once, and the new controller may look at it
        (CR 314.9).  A non-Leader identity that changes hands is turned face down
        unless ``face_down`` is False; a Leader stays face up (TR8.4).  This is the
        single-card step; :meth:`redistribute_identities` and
        :meth:`take_identity` keep every player at exactly one identity (TR8.3)."""
        old = identity.controller
        identity.controller = seat
        self.players[seat].identity = identity
        identity.known_by.add(seat)
        if face_down is None:
            face_down = identity.role != Role.LEADER
        if face_down and identity.face_up and identity.role != Role.LEADER:
            identity.face_up = False
            identity.copy_of = None
            identity.role_override = None
        self._log("identity_control", seat=seat, previous=old,
                  identity=identity.name if identity.face_up else None)
        self._refresh_statics()

    def redistribute_identities(self, assignment: dict[int, IdentityCard]) -> None:
        """Move identities among players at once (TR8.7, The Puppet Master): seat
        ``s`` gets ``assignment[s]``.  The assigned cards must be exactly the cards
        those seats control, so every player still controls one identity (TR8.3);
        moved non-Leader identities turn face down, Leaders stay face up (TR8.4);
        each player's role and team follow the card at once (TR8.2).

        Raises:
            ValueError: if a seat is out of the game, or the cards are not a
                permutation of the identities those seats control.
        """
        seats = sorted(assignment)
        for s in seats:
            if not (isinstance(s, int) and 0 <= s < self.n) or self.players[s].has_lost:
                raise ValueError(f"redistribute_identities: seat {s!r} is not a player in the game")
        before = sorted(self.players[s].identity.uid for s in seats)
        after = sorted(c.uid for c in assignment.values())
        if before != after:
            raise ValueError("redistribute_identities: the cards must be a permutation of the identities "
                             f"that seats {seats} control (each player keeps exactly one, TR8.3)")
        for s in seats:
            card = assignment[s]
            if card.controller != s:
                self.set_identity_control(card, s)
        self._dirty = True

    def take_identity(self, taker: int, victim: int) -> None:
        """``taker`` takes control of ``victim``'s identity as ``victim`` loses (The
        Metamorph, TR8.5-8.6): the taker's own identity leaves the game, the taken
        one turns face down unless it is a Leader, and the victim keeps the team of
        the identity they controlled as their last-known team.  Call it, then
        :meth:`lose` the victim: a taken Leader identity keeps the Leader team in
        the game.

        Raises:
            ValueError: if either seat is out of the game or they are the same.
        """
        if taker == victim or self.players[taker].has_lost or self.players[victim].has_lost:
            raise ValueError(f"take_identity: seats {taker} and {victim} must be two different players in the game")
        v = self.players[victim]
        card = v.identity
        v.last_role = card.role
        v.last_team = team_of(card.role)
        own = self.players[taker].identity
        own.in_game = False
        self._log("identity_removed", seat=taker, identity=own.name if own.face_up else None)
        self.set_identity_control(card, taker)
        v.identity = IdentityCard(self._new_uid(), card.identity, victim)   # a record of what they had
        v.identity.face_up = card.face_up
        v.identity.in_game = False
        v.identity.known_by = set(card.known_by)

    # ------------------------------------------------------------------ hooks for identity code
    def _op_call(self, fn: str, *args: Any) -> None:
        """Queue operation that runs ``identity_abilities.<fn>(game, *args)``."""
        IA.CALLBACKS[fn](self, *args)

    def _h_call(self, ctx: tuple, payload: Any) -> None:
        """Decision handler that runs ``identity_abilities.<fn>(game, data, payload)``."""
        fn, data = ctx
        IA.CALLBACKS[fn](self, data, payload)

    def ask(self, seat: int, kind: int, options: list, fn: str, data: Any = None, prompt: str = "",
            labels: list | None = None) -> None:
        """Make ``seat`` choose among ``options`` (``[(action, payload)]``); the
        answer calls ``identity_abilities.<fn>(game, data, payload)``.  An empty
        option list asks nothing."""
        if not options:
            return
        self.decision = Decision(seat, kind, options, "_h_call", (fn, data), prompt, labels)

    def then(self, *ops: tuple) -> None:
        """Run ``ops`` (``("call", fn, *args)`` or engine ops) before anything else queued."""
        self._push_front(list(ops))

    # ------------------------------------------------------------------ main loop
    def _push_front(self, ops: list) -> None:
        self.queue.extendleft(reversed(ops))

    def _advance(self) -> None:
        """Run the game until a decision with two or more options, or the end."""
        while True:
            if self.is_over:
                self.decision = None
                self.queue.clear()
                return
            d = self.decision
            if d is not None:
                if self.players[d.seat].has_lost:   # asked of a player who left meanwhile (CR 800.4a)
                    self.decision = None
                    continue
                if len(d.options) == 1:
                    self.auto_decisions += 1
                    self.decision = None
                    getattr(self, d.handler)(d.ctx, d.options[0][1])
                    continue
                if not d.options:
                    raise AssertionError(f"decision with no options: {d.prompt}")
                return
            if self.queue:
                op = self.queue.popleft()
                getattr(self, "_op_" + op[0])(*op[1:])
                continue
            self.resolving = None        # queue drained: no resolution is in progress
            if self._dirty and self._state_based_actions():
                continue
            if self.pending_triggers:
                self._put_triggers_on_stack()
                continue
            if self.priority_seat is None and self.stack:
                self._open_priority()
            if self.priority_seat is not None:
                self._offer_priority()
                continue
            self._step_forward()

    def step(self, action: int) -> None:
        """Apply ``action`` (an index of :class:`ActionLayout`) for the deciding seat
        and run on to the next decision.

        Raises:
            ValueError: if the game is over or the action is not legal now (the
                message names the action and lists the legal ones in words).
        """
        d = self.decision
        if d is None:
            raise ValueError("the game is over; no action is legal")
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action must be an int, got {action!r}") from None
        i = d.index_of(a)
        if i is None:
            legal = "; ".join(f"{x}: {self.describe_action(x)}" for x, _ in d.options[:12])
            more = "" if len(d.options) <= 12 else f"; ... ({len(d.options)} legal in all)"
            what = self.describe_action(a) if 0 <= a < self.layout.size else "outside the action space"
            raise ValueError(f"illegal action {a} ({what}) for seat {d.seat} at '{d.prompt}'; "
                             f"legal: {legal}{more}")
        self.actions.append(a)
        self.decisions_taken += 1
        self.decision = None
        getattr(self, d.handler)(d.ctx, d.options[i][1])
        self._advance()

    def legal_action_mask(self) -> np.ndarray:
        """int8 vector of shape ``(layout.size,)``: 1 where the action is legal for
        :attr:`current_player` now; all zeros once the game is over."""
        m = np.zeros(self.layout.size, dtype=np.int8)
        if self.decision is not None:
            m[[a for a, _ in self.decision.options]] = 1
        return m

    def legal_actions(self) -> list[int]:
        """Legal action indices for :attr:`current_player`, ascending."""
        return [] if self.decision is None else sorted(a for a, _ in self.decision.options)

    # ------------------------------------------------------------------ turn structure
    def _start_turn(self, seat: int) -> None:
        self.turn += 1
        if self.turn > self.config.max_turns:
            self.turn -= 1
            self._truncate()
            return
        prev = self.active
        self.active = seat
        self.phase = "untap"
        p = self.players[seat]
        p.land_played = False
        self._log("turn", seat=seat)
        # shields that last "until your next turn" end as that player's turn starts,
        # or, once that player left the game, as their turn would have begun
        # (CR 800.4k): the turns of every seat passed over since ``prev``
        if self.shields:
            k = (seat - prev) % self.n or self.n
            passed = {(prev + i) % self.n for i in range(1, k + 1)}
            self.shields = [s for s in self.shields if s["until_turn_of"] not in passed]
        # untap step (CR 502): untap; a stunned permanent loses a stun counter instead
        p.lands_tapped = 0
        for c in p.creatures:
            self.untap(c)
        self.priority_seat = None

    def untap(self, c: Creature) -> None:
        """Untap ``c``; a tapped permanent with a stun counter loses a counter and
        stays tapped instead (CR 122.1d)."""
        if c.tapped:
            if c.stun:
                c.stun -= 1
            else:
                c.tapped = False

    def _truncate(self) -> None:
        self.truncated = True
        self.is_over = True
        self._log("truncated", turns=self.turn)
        self._end_game_reveal()

    def _step_forward(self) -> None:
        """Leave the current step (mana empties, CR 500.4) and begin the next."""
        for p in self.players:
            p.mana_pool = 0
        i = _PH[self.phase] + 1
        if i >= len(PHASES):
            nxt = None
            while self.extra_turns and nxt is None:        # extra turns come first (CR 500.7)
                s = self.extra_turns.pop()
                nxt = None if self.players[s].has_lost else s
            if nxt is None:
                # after extra turns the normal order resumes from the last normal turn (CR 500.7):
                # an extra turn taken after another player's turn doesn't skip anyone
                nxt = self._next_alive(self.order_seat)
                if nxt is None:
                    self.is_over = True
                    return
                self.order_seat = nxt
            self._start_turn(nxt)
            return
        ph = PHASES[i]
        self.phase = ph
        active_in = not self.players[self.active].has_lost
        if ph == "upkeep":
            IA.fire_event(self, "upkeep", seat=self.active)
            self._fire_delayed("upkeep")
        elif ph == "draw":
            if active_in:
                self.draw(self.active, 1)
                IA.fire_event(self, "draw_step", seat=self.active)
        elif ph in ("main1", "main2", "end"):
            if ph == "main1":
                IA.fire_event(self, "main_phase", seat=self.active)
                self._fire_delayed("main_phase")
            elif ph == "main2":
                self._fire_delayed("main2")      # postcombat main phase (The Ætherist)
            elif ph == "end":
                IA.fire_event(self, "end_step", seat=self.active)
                self._fire_delayed("end_step")
            self._open_priority()
        elif ph == "combat_begin":
            self.combat_attackers = []
        elif ph == "declare_attackers":
            if active_in and self._attack_candidates():
                self.queue.append(("declare_attackers",))
        elif ph == "declare_blockers":
            if self.combat_attackers:
                self.queue.append(("declare_blockers",))
        elif ph == "first_strike_damage":
            if any(c.has("first_strike") or c.has("double_strike") for c in self._combatants()):
                self.queue.append(("combat_damage", True))
        elif ph == "combat_damage":
            if self.combat_attackers:
                self.queue.append(("combat_damage", False))
        elif ph == "combat_end":
            self._clear_combat()
        elif ph == "cleanup":
            self.queue.append(("cleanup",))

    def _clear_combat(self) -> None:
        """End of combat (CR 511.3): every creature stops attacking and blocking."""
        for p in self.players:
            for c in p.creatures:
                c.attacking = -1
                c.blocked_by = []
                c.blocking = None
                c.was_blocked = False
        self.combat_attackers = []

    def _open_priority(self) -> None:
        self.priority_seat = self._next_alive(self.active, include_self=True)
        self.passes = 0

    def _fire_delayed(self, when: str) -> None:
        """Run the delayed triggers (CR 603.7) registered for the beginning of
        ``when`` ("upkeep", "main_phase" (precombat), "main2" (postcombat),
        "end_step"); one with a ``"seat"`` key waits for that player's turn."""
        due = [d for d in self.delayed if d["when"] == when and d.get("seat", self.active) == self.active]
        if not due:
            return
        self.delayed = [d for d in self.delayed if not any(d is x for x in due)]
        for d in due:          # a callback may register new delayed triggers: they wait for the next time
            IA.run_delayed(self, d)

    def add_delayed(self, when: str, fn: str, seat: int | None = None, **data: Any) -> None:
        """Register a delayed triggered ability (CR 603.7): callback ``fn(game, d)``
        runs at the beginning of the next ``when`` step ("upkeep", "main_phase",
        "main2", "end_step"), of ``seat``'s turn if given."""
        d = {"when": when, "fn": fn, **data}
        if seat is not None:
            d["seat"] = seat
        self.delayed.append(d)

    def end_turn(self) -> None:
        """CR 723 (The Time Bender): exile every object on the stack, remove all
        creatures from combat, and go to the cleanup step of this turn."""
        self._end_steps_to("cleanup")

    def end_phase(self) -> None:
        """The Warlock: end the current phase unless it is the ending phase: exile
        the stack, clear combat, and go on to the next phase."""
        ph = self.phase
        if ph in ("end", "cleanup"):
            return
        nxt = {"untap": "draw", "upkeep": "draw", "draw": "draw", "main1": "main1"}.get(ph)
        if ph in ("combat_begin", "declare_attackers", "declare_blockers", "first_strike_damage",
                  "combat_damage", "combat_end"):
            nxt = "combat_end"
        elif ph == "main2":
            nxt = "main2"
        self._end_steps_to(nxt)

    def _end_steps_to(self, last: str) -> None:
        """Exile the stack, clear combat, drop pending choices, and make ``last``
        the current step, so that the next step to begin is the one after it."""
        for it in self.stack:
            if it.kind == "spell" and not it.is_copy and not self.players[it.owner].has_lost:
                if it.from_zone == "command":
                    self.players[it.owner].commander_zone = "command"
                else:
                    self.players[it.owner].exile.append(it.card)
        self.stack = []
        self.pending_triggers = []
        self.queue.clear()
        self.decision = None
        self._clear_combat()
        self.priority_seat = None
        self.passes = 0
        self._log("steps_ended", until=last)
        if last == "cleanup":
            self.phase = "end"               # the cleanup step itself still happens (CR 723.1e)
        else:
            self.phase = last

    # ------------------------------------------------------------------ priority
    def _offer_priority(self) -> None:
        seat = self.priority_seat
        if self.players[seat].has_lost:
            self._after_pass(seat)
            return
        opts = self._priority_options(seat)
        if len(opts) == 1:          # only "pass": taken automatically, no Decision object needed
            self.auto_decisions += 1
            self._after_pass(seat)
            return
        self.decision = Decision(seat, DecisionKind.PRIORITY, opts, "_h_priority", seat, "priority")

    def _sorcery_timing(self, seat: int) -> bool:
        return seat == self.active and not self.stack and (self.phase == "main1" or self.phase == "main2")

    def _priority_options(self, seat: int) -> list:
        L = self.layout
        p = self.players[seat]
        opts: list = [(L.PASS, None)]
        avail = p.mana_pool + p.lands - p.lands_tapped + p.tokens["Treasure"]
        sorcery = seat == self.active and not self.stack and (self.phase == "main1" or self.phase == "main2")
        hand_a = L.HAND
        for i, c in enumerate(p.hand[:MAX_HAND]):
            t = c.type
            if t == "land":
                if sorcery and not p.land_played:
                    opts.append((hand_a + i, ("land", i)))
            elif c.cost <= avail and (sorcery or t == "instant") and (
                    self.castable_targets(seat, c)):
                opts.append((hand_a + i, ("cast", i)))
        if (p.commander is not None and p.commander_zone == "command" and sorcery
                and p.commander.cost + 2 * p.commander_casts <= avail):
            opts.append((L.COMMANDER, ("commander", 0)))
        idc = p.identity
        if not idc.face_up and idc.unveil_cost is not None:
            cost = idc.unveil_cost
            if (cost.mana - IA.cost_reduction(self, seat) <= avail   # The Quellmaster's reduction
                    and (not idc.undercover or self.undercover_met(seat))):
                for x in IA.unveil_xs(self, seat, avail):
                    opts.append((L.UNVEIL + x, ("unveil", x)))
        elif idc.face_up:
            for k in IA.activatable(self, seat):
                opts.append((L.IDENTITY_AB + k, ("identity_ability", k)))
        if p.permissions:
            for k, perm in enumerate(p.permissions[:MAX_OTHER]):
                if self._permission_ok(seat, perm, avail, sorcery):
                    opts.append((L.OTHER + k, ("permission", k)))
        tok = p.tokens
        for k, name in enumerate(TOKEN_ABILITIES):
            if tok[name] and self._token_ability_ok(seat, name, avail, sorcery):
                opts.append((L.TOKEN_AB + k, ("token", name)))
        return opts

    def _h_priority(self, seat: int, payload: Any) -> None:
        if payload is None:
            self._after_pass(seat)
            return
        kind, arg = payload
        self.passes = 0
        if kind == "land":
            p = self.players[seat]
            c = p.hand.pop(arg)
            p.lands += 1
            p.land_played = True
            self._log("land", seat=seat)
        elif kind == "cast":
            c = self.players[seat].hand.pop(arg)
            self._begin_cast(seat, c, "hand")
        elif kind == "commander":
            p = self.players[seat]
            p.commander_zone = "stack"
            self._begin_cast(seat, p.commander, "command", extra=2 * p.commander_casts)
            p.commander_casts += 1
        elif kind == "unveil":
            self._begin_unveil(seat, arg)
        elif kind == "identity_ability":
            IA.activate(self, seat, arg)
        elif kind == "token":
            self._activate_token(seat, arg)
        elif kind == "permission":
            self._use_permission(seat, arg)

    def _after_pass(self, seat: int) -> None:
        self.passes += 1
        if self.passes >= self.n_alive:
            self.passes = 0
            if self.stack:
                self.queue.append(("resolve_top",))
                self.priority_seat = self._next_alive(self.active, include_self=True)
            else:
                self.priority_seat = None
        else:
            self.priority_seat = self._next_alive(seat)

    # ------------------------------------------------------------------ targets
    def _hexproof_from(self, target_seat: int, seat: int) -> bool:
        """Player hexproof (The Golem): Leader players can't be the target of
        spells or abilities their opponents control."""
        return (self.has_static("leaders_hexproof") and self.is_leader_player(target_seat)
                and self.is_opponent(target_seat, seat))

    def target_candidates(self, seat: int, spec: dict, item: StackItem | None = None,
                          chosen: list | None = None) -> list:
        """Legal targets for ``seat`` under ``spec`` (``{"type": ...}``).

        Returns:
            a list of ``("p", seat)``, ``("c", Creature)`` or ``("s", StackItem)``.
        """
        t = spec["type"]
        out: list = []
        chosen = chosen or []
        if t in ("any", "player", "leader_player"):
            for s in range(self.n):
                pl = self.players[s]
                if pl.has_lost or self._hexproof_from(s, seat):
                    continue
                if t == "leader_player" and not self.is_leader_player(s):
                    continue
                if spec.get("other") and s == seat:
                    continue
                if spec.get("opponent") and not self.is_opponent(seat, s):
                    continue
                if self.effects and IA.forbids(self, "target_player", seat=seat, target=s):
                    continue
                if ("p", s) in chosen:
                    continue
                out.append(("p", s))
        if t in ("any", "creature", "nonland_permanent", "permanent"):
            for pl in self.players:
                if pl.has_lost:
                    continue
                for c in pl.creatures:
                    if spec.get("own") and c.controller != seat:
                        continue
                    if any(x[0] == "c" and x[1] is c for x in chosen):
                        continue
                    out.append(("c", c))
        if t in ("spell", "noncreature_spell", "instant_sorcery_spell", "stack_object",
                 "instant_sorcery_or_ability"):
            for it in self.stack:
                if it is item:
                    continue
                if t == "stack_object":
                    if it.identity_source:
                        continue
                elif t == "instant_sorcery_or_ability":      # any ability, identities' included
                    if it.is_spell and it.card.type not in ("instant", "sorcery"):
                        continue
                elif not it.is_spell:
                    continue
                elif t == "noncreature_spell" and it.card.is_creature:
                    continue
                elif t == "instant_sorcery_spell" and it.card.type not in ("instant", "sorcery"):
                    continue
                out.append(("s", it))
        return out

    def castable_targets(self, seat: int, card: CardDef) -> bool:
        """Whether ``seat`` could choose targets to cast ``card`` now (CR 601.2c).  A
        creature spell has no targets: its enters ability targets as it triggers."""
        return card.is_creature or not card.targets or self._has_targets(seat, card.targets)

    def _has_targets(self, seat: int, specs: tuple) -> bool:
        for spec in specs:
            if spec.get("min", 1) > 0 and not self.target_candidates(seat, spec):
                return False
        return True

    def target_action(self, seat: int, target: tuple) -> int | None:
        """Action index that picks ``target`` for ``seat``, or None if it has no slot."""
        L = self.layout
        kind, obj = target
        if kind == "p":
            return L.PLAYER + self.rel(seat, obj)
        if kind == "c":
            slot = self.players[obj.controller].creatures.index(obj)
            return L.perm(self.rel(seat, obj.controller), slot) if slot < MAX_PERMS else None
        depth = len(self.stack) - 1 - self.stack.index(obj)
        return L.STACK + depth if depth < MAX_STACK else None

    def target_legal(self, seat: int, spec: dict, target: tuple, item: StackItem | None = None) -> bool:
        """Whether ``target`` is still legal for ``spec`` (checked on resolution, CR 608.2b)."""
        kind, obj = target
        if kind == "p":
            return any(t == target for t in self.target_candidates(seat, spec, item))
        if kind == "c":
            return (not self.players[obj.controller].has_lost and obj in self.players[obj.controller].creatures
                    and spec["type"] in ("any", "creature", "nonland_permanent", "permanent"))
        return obj in self.stack and any(t[1] is obj for t in self.target_candidates(seat, spec, item))

    def _op_choose_target(self, item: StackItem, spec: dict, upto: int) -> None:
        """Choose one target for ``item`` under ``spec``; ``upto`` more may follow.
        ``spec["min"] == 0`` makes the target optional (PASS = no more).
        CR 115.3: an object can't be chosen twice for one instance of the word
        "target", but may be for different ones (The Immortal): only targets
        already chosen under this spec (from index ``spec["_from"]``) are excluded."""
        seat = item.controller
        start = spec.get("_from", len(item.targets))
        cands = self.target_candidates(seat, spec, item, [t for t in item.targets[start:] if t is not None])
        opts = []
        for t in cands:
            a = self.target_action(seat, t)
            if a is not None:
                opts.append((a, t))
        optional = spec.get("min", 1) == 0 or (spec.get("_more", False) and not spec.get("exact"))
        if optional:
            opts.insert(0, (self.layout.PASS, None))
        if not opts:
            item.targets.append(None)
            item.target_specs.append(spec)
            return
        self.decision = Decision(seat, DecisionKind.TARGET, opts, "_h_target", (item, spec, upto),
                                 f"choose a target ({spec['type']}) for {item.source}")

    def _h_target(self, ctx: tuple, target: Any) -> None:
        item, spec, upto = ctx
        if target is None:
            if not spec.get("_more"):
                item.targets.append(None)
                item.target_specs.append(spec)
            return
        start = spec.get("_from", len(item.targets))
        item.targets.append(target)
        item.target_specs.append(spec)
        if upto > 1:
            more = dict(spec, _more=True, _from=start)
            self._push_front([("choose_target", item, more, upto - 1)])

    # ------------------------------------------------------------------ casting
    def _begin_cast(self, seat: int, card: CardDef, zone: str, extra: int = 0, free: bool = False,
                    owner: int | None = None) -> None:
        """CR 601.2: move the card to the stack, choose X and targets, pay.
        ``free``: without paying its mana cost (X is 0, CR 601.2b/107.3b)."""
        item = StackItem(self._new_uid(), "spell", seat, card)
        item.from_zone = zone
        item.owner = seat if owner is None else owner
        item.data["free"] = free
        item.data["extra"] = extra
        ops: list = []
        if card.x and not free:
            ops.append(("choose_x", item))
        # a creature spell has no targets: a creature card's targets belong to its
        # enters-the-battlefield trigger, chosen as that triggers (CR 608.3, 603.3d)
        for spec in (() if card.is_creature else card.targets):
            ops.append(("choose_target", item, spec, spec.get("max", 1)))
        ops.append(("finish_cast", item))
        self._push_front(ops)

    def _op_choose_x(self, item: StackItem) -> None:
        seat = item.controller
        room = self.available_mana(seat) - item.card.cost - item.data.get("extra", 0)
        top = max(0, min(MAX_X, room, MAX_CHOICE - 1))
        opts = [(self.layout.CHOICE + x, x) for x in range(top + 1)]
        self.decision = Decision(seat, DecisionKind.NUMBER, opts, "_h_x", item, f"choose X for {item.source}")

    def _h_x(self, item: StackItem, x: int) -> None:
        item.x = x

    def _op_finish_cast(self, item: StackItem) -> None:
        seat = item.controller
        if self.players[seat].has_lost:   # the caster left while casting: the spell ceases to exist
            return
        if not item.data.get("free"):
            self._pay_mana(seat, item.card.cost + item.x + item.data.get("extra", 0))
        self.stack.append(item)
        self._log("cast", seat=seat, card=item.card.name, x=item.x,
                  targets=[self._target_repr(t) for t in item.targets])
        IA.fire_event(self, "cast", item=item)

    def _target_repr(self, t: Any) -> Any:
        if t is None:
            return None
        kind, obj = t
        if kind == "p":
            return ["player", obj]
        if kind == "c":
            return ["creature", obj.uid, obj.name]
        return ["stack", obj.uid, obj.source]

    # ------------------------------------------------------------------ tokens (counted)
    def _permission_zone(self, perm: dict) -> list | None:
        owner = self.players[perm["owner"]]
        if owner.has_lost:
            return None
        zone = owner.exile if perm["zone"] == "exile" else owner.graveyard
        return zone if any(c is perm["card"] for c in zone) else None

    def _permission_ok(self, seat: int, perm: dict, avail: int, sorcery: bool) -> bool:
        if self._permission_zone(perm) is None:
            return False
        c = perm["card"]
        if c.is_land:
            return sorcery and not self.players[seat].land_played
        if not (sorcery or c.is_instant):
            return False
        return (perm["free"] or c.cost <= avail) and self.castable_targets(seat, c)

    def _use_permission(self, seat: int, k: int) -> None:
        """Cast or play a card another zone lets ``seat`` use (see :meth:`grant_permission`)."""
        p = self.players[seat]
        perm = p.permissions.pop(k)
        zone = self._permission_zone(perm)
        card = perm["card"]
        zone.remove(next(c for c in zone if c is card))
        self._log("cast_from_" + perm["zone"], seat=seat, card=card.name, source=perm["source"])
        if card.is_land:
            p.lands += 1
            p.land_played = True
            return
        self._begin_cast(seat, card, perm["zone"], free=perm["free"], owner=perm["owner"])

    def _token_ability_ok(self, seat: int, name: str, avail: int, sorcery: bool) -> bool:
        p = self.players[seat]
        if name == "Clue":
            return avail >= 2
        if name == "Food":
            return avail >= 2
        if name == "Blood":
            return avail >= 1 and bool(p.hand)
        if name == "Map":     # "activate only as a sorcery"
            return sorcery and avail >= 1 and bool(p.creatures)
        return name == "Junk" and sorcery

    def _activate_token(self, seat: int, name: str) -> None:
        """Clue ({2}, sac: draw), Food ({2}, sac: gain 3 life), Blood ({1}, discard
        a card, sac: draw), Map ({1}, sac, sorcery speed: target creature you control explores),
        Junk (sac, sorcery speed: draw a card; abstracts "exile the top card, you
        may play it this turn")."""
        p = self.players[seat]
        p.tokens[name] -= 1
        item = StackItem(self._new_uid(), "ability", seat, source=name, key=name)
        ops: list = []
        if name in ("Clue", "Food"):
            self._pay_mana(seat, 2)
        elif name in ("Blood", "Map"):
            self._pay_mana(seat, 1)
        if name == "Blood":
            ops.append(("discard", seat, 1, None))
        if name == "Map":
            ops.append(("choose_target", item, {"type": "creature", "own": True}, 1))
        ops.append(("push_item", item))
        self._push_front(ops)

    def _op_push_item(self, item: StackItem) -> None:
        if item.data.get("skip") or self.players[item.controller].has_lost:
            return
        self.stack.append(item)
        self._log("activate", seat=item.controller, source=item.source,
                  targets=[self._target_repr(t) for t in item.targets])

    # ------------------------------------------------------------------ resolution
    def _op_resolve_top(self) -> None:
        """CR 608: resolve the top object; a spell or ability whose targets are all
        illegal doesn't resolve (CR 608.2b)."""
        if not self.stack:
            return
        item = self.stack.pop()
        self.resolving = item
        specs = item.target_specs
        if item.targets and any(t is not None for t in item.targets):
            legal = [t is not None and self.target_legal(item.controller, s, t, item)
                     for t, s in zip(item.targets, specs)]
            if not any(legal):
                self._log("fizzle", seat=item.controller, source=item.source)
                self._finish_item(item)
                return
            item.targets = [t if ok else None for t, ok in zip(item.targets, legal)]
        self._log("resolve", seat=item.controller, source=item.source, key=item.key)
        if item.kind == "spell":
            if item.card.is_creature:
                item.creature = self._enter_battlefield(item)   # the permanent it became (The Lich Queen)
                self._finish_item(item, moved=True)
                return
            ops = [("effect", item, e) for e in item.card.effects]
            ops.append(("finish_item", item))
            self._push_front(ops)
        elif item.key == "etb":
            ops = [("effect", item, e) for e in item.data["effects"]]
            self._push_front(ops)
        elif item.kind == "ability" and item.key in TOKEN_ABILITIES:
            self._resolve_token_ability(item)
        else:
            IA.resolve(self, item)

    def _op_finish_item(self, item: StackItem) -> None:
        self._finish_item(item)

    def _finish_item(self, item: StackItem, moved: bool = False) -> None:
        """A resolved or countered spell goes to its owner's graveyard; a commander
        goes back to the command zone (CR 903.9, always chosen); copies vanish."""
        if item.kind != "spell" or moved or item.is_copy:
            return
        owner = self.players[item.owner]
        if owner.has_lost:
            return
        if item.from_zone == "command":
            owner.commander_zone = "command"
            return
        if item.data.get("exile_after"):
            owner.exile.append(item.card)
        else:
            owner.graveyard.append(item.card)

    def counter(self, item: StackItem) -> bool:
        """Counter ``item`` (CR 701.5): remove it from the stack; a countered spell
        goes to its owner's graveyard (a commander to the command zone)."""
        if item not in self.stack:
            return False
        self.stack.remove(item)
        self._log("counter", source=item.source, seat=item.controller)
        self._finish_item(item)
        return True

    def _enter_battlefield(self, item: StackItem) -> Creature:
        c = self.put_onto_battlefield(item.controller, item.card, owner=item.owner,
                                      commander=item.from_zone == "command")
        return c

    def put_onto_battlefield(self, seat: int, card: CardDef, tapped: bool = False, owner: int | None = None,
                             commander: bool = False) -> Creature:
        """Put a creature card onto the battlefield under ``seat``'s control; its
        enters-the-battlefield ability triggers.  Returns the new :class:`Creature`."""
        owner = seat if owner is None else owner
        c = Creature(self._new_uid(), card.name, card, False, owner, card.power, card.toughness,
                     card.keywords, self.turn, card.legendary)
        c.controller = seat
        c.tapped = tapped
        if commander:
            c.is_commander = True
            self.players[owner].commander_zone = "battlefield"
        self.players[seat].creatures.append(c)
        self._dirty = True
        self._log("enters", seat=seat, creature=c.uid, name=c.name)
        self._etb_trigger(c)
        return c

    def _etb_trigger(self, c: Creature) -> None:
        """The enters-the-battlefield ability of ``c``'s card, if any, triggers
        (CR 603.6a; a token copy has it too, CR 707.2)."""
        card = c.card
        if card is None or not card.effects:
            return
        trig = StackItem(self._new_uid(), "trigger", c.controller, source=card.name, key="etb")
        trig.data["effects"] = card.effects
        trig.creature = c
        if card.targets:
            trig.data["specs"] = list(card.targets)
        self.pending_triggers.append(trig)

    def create_creature_token(self, seat: int, name: str, n: int = 1, tapped: bool = False,
                              copy_of: Creature | None = None) -> list[Creature]:
        """Create ``n`` creature tokens named ``name`` (see data/cards.json
        ``tokens``), or token copies of ``copy_of`` (copiable values only, CR 707.2)."""
        out = []
        for _ in range(n):
            if copy_of is not None:
                c = Creature(self._new_uid(), copy_of.name, copy_of.card, True, seat, copy_of.base_power,
                             copy_of.base_toughness, copy_of.base_keywords, self.turn, copy_of.legendary)
            else:
                t = TOKENS[name]
                c = Creature(self._new_uid(), name, None, True, seat, t.power, t.toughness, t.keywords,
                             self.turn, t.legendary)
            c.tapped = tapped
            self.players[seat].creatures.append(c)
            out.append(c)
            self._etb_trigger(c)
        self._log("tokens", seat=seat, name=copy_of.name if copy_of else name, n=n)
        self._dirty = True
        return out

    def create_tokens(self, seat: int, name: str, n: int = 1) -> None:
        """Create ``n`` tokens named ``name``: creature tokens become objects,
        noncreature artifact tokens add to the player's count."""
        if n <= 0 or self.players[seat].has_lost:
            return
        if TOKENS[name].type == "creature":
            self.create_creature_token(seat, name, n)
        else:
            self.players[seat].tokens[name] += n
            self._log("tokens", seat=seat, name=name, n=n)

    def _resolve_token_ability(self, item: StackItem) -> None:
        seat = item.controller
        name = item.key
        if name in ("Clue", "Blood", "Junk"):
            self.draw(seat, 1)
        elif name == "Food":
            self.gain_life(seat, 3)
        elif name == "Map":
            t = item.targets[0] if item.targets else None
            if t is not None:
                self._explore(seat, t[1])

    def _explore(self, seat: int, c: Creature) -> None:
        """CR 701.40 explore: reveal the top card; a land goes to hand, else a +1/+1
        counter (abstraction: the nonland card stays on top)."""
        p = self.players[seat]
        if not p.library:
            c.p1p1 += 1
            return
        top = p.library[-1]
        self._log("reveal_top", seat=seat, card=top.name)
        if top.is_land:
            p.hand.append(p.library.pop())
        else:
            c.p1p1 += 1

    # ------------------------------------------------------------------ card effect primitives
    def _op_effect(self, item: StackItem, e: dict) -> None:
        """Run one primitive of a card's effect list (data/cards.json)."""
        op = e["op"]
        seat = item.controller
        n = e.get("n", 0)
        if n == "X":
            n = item.x
        t = e.get("t")
        tgt = None
        if t == "self":
            c = item.creature
            if c is None or c not in self.players[c.controller].creatures:
                return
            tgt = ("c", c)
        elif t is not None:
            tgt = item.targets[t] if t < len(item.targets) else None
            if tgt is None:
                return
        if op == "damage":
            self.damage(seat, tgt, n, source_name=item.source)
        elif op == "destroy":
            self.destroy(tgt[1])
        elif op == "exile":
            self.exile_creature(tgt[1])
        elif op == "bounce":
            self.bounce(tgt[1])
        elif op == "counter":
            self.counter(tgt[1])
        elif op == "draw":
            self.draw(tgt[1] if tgt else seat, n)
        elif op == "gain":
            self.gain_life(tgt[1] if tgt else seat, n)
        elif op == "lose":
            self.lose_life(tgt[1], n, source_seat=seat)
        elif op == "each_opponent_loses":   # "opponent" per CR 907.7g: everyone while face down
            for q in self.players:
                if not q.has_lost and self.is_opponent(seat, q.seat):
                    self.lose_life(q.seat, n, source_seat=seat)
        elif op == "head_games":
            self._head_games(seat, tgt[1])
        elif op == "extra_turn":
            self.extra_turns.append(seat)
            self._log("extra_turn", seat=seat)
        elif op == "wipe":
            for p in self.players:
                for c in list(p.creatures):
                    self.destroy(c)
        elif op == "damage_each_creature":
            for p in self.players:
                for c in list(p.creatures):
                    self.damage(seat, ("c", c), n, source_name=item.source)
        elif op == "tokens":
            self.create_tokens(seat, e["token"], n)
        elif op == "pump":
            c = tgt[1]
            c.pump_p += e.get("p", 0)
            c.pump_q += e.get("q", 0)
            if e.get("kw"):
                c.pump_kw = c.pump_kw | frozenset(e["kw"])
            self._dirty = True
        elif op == "pump_team":
            for c in self.players[seat].creatures:
                c.pump_p += e.get("p", 0)
                c.pump_q += e.get("q", 0)
            self._dirty = True
        elif op == "counters":
            tgt[1].p1p1 += n
            self._dirty = True
        elif op == "ramp":
            self.ramp(seat, n)
        elif op == "tap":
            tgt[1].tapped = True
        elif op == "stun":
            tgt[1].stun += n
        elif op == "discard":
            self._push_front([("discard", tgt[1], n, seat)])
        else:  # pragma: no cover - data is validated by tests
            raise AssertionError(f"unknown effect op {op!r}")

    def _head_games(self, seat: int, victim: int) -> None:
        """Head Games (TR12 exclusion list): the target opponent puts their hand on
        top of their library; ``seat`` looks through that library (private to
        them) and puts that many cards of their choice into the opponent's hand;
        the opponent shuffles."""
        v = self.players[victim]
        n = len(v.hand)
        v.library.extend(v.hand)
        v.hand = []
        self._log("head_games", seat=seat, victim=victim, n=n)
        self._log("look_at_library", to=[seat], seat=seat, victim=victim, cards=[c.name for c in v.library])
        self._push_front([("head_games_pick", seat, victim, n)])

    def _op_head_games_pick(self, seat: int, victim: int, left: int) -> None:
        v = self.players[victim]
        if left <= 0 or not v.library or v.has_lost or self.players[seat].has_lost:
            self.rng.shuffle(v.library)
            return
        names = sorted({c.index: c for c in v.library}.values(), key=lambda c: c.index)[:MAX_CHOICE]
        L = self.layout
        self.decision = Decision(seat, DecisionKind.CARD, [(L.CHOICE + k, c.name) for k, c in enumerate(names)],
                                 "_h_head_games", (seat, victim, left),
                                 f"put a card of P{victim}'s library into their hand", [c.name for c in names])

    def _h_head_games(self, ctx: tuple, name: str) -> None:
        seat, victim, left = ctx
        v = self.players[victim]
        k = next(i for i, c in enumerate(v.library) if c.name == name)
        v.hand.append(v.library.pop(k))
        self._push_front([("head_games_pick", seat, victim, left - 1)])

    def ramp(self, seat: int, n: int) -> None:
        """Search the library for up to ``n`` lands, put them onto the battlefield
        tapped, then shuffle."""
        p = self.players[seat]
        for _ in range(n):
            for i in range(len(p.library) - 1, -1, -1):
                if p.library[i].is_land:
                    p.library.pop(i)
                    p.lands += 1
                    p.lands_tapped += 1
                    break
        self.rng.shuffle(p.library)

    def draw(self, seat: int, n: int = 1) -> None:
        """``seat`` draws ``n`` cards; drawing from an empty library makes the
        player lose at the next state-based check (CR 704.5b)."""
        p = self.players[seat]
        if p.has_lost:
            return
        for _ in range(n):
            if p.library:
                p.hand.append(p.library.pop())
            else:
                p.drew_from_empty = True
                self._dirty = True
        if n:
            self._log("draw", seat=seat, n=n)

    def gain_life(self, seat: int, n: int) -> None:
        """``seat`` gains ``n`` life points (replacement effects apply: The Oracle)."""
        p = self.players[seat]
        if n <= 0 or p.has_lost:
            return
        if self.effects or self._statics:
            ev = {"seat": seat, "amount": n}
            IA.replace(self, "gain_life", ev)
            seat, n = ev["seat"], ev["amount"]
            p = self.players[seat]
            if n <= 0:
                return
        p.life += n
        self._log("gain_life", seat=seat, n=n)

    def lose_life(self, seat: int, n: int, source_seat: int | None = None) -> None:
        """``seat`` loses ``n`` life points (not damage: can't be prevented);
        ``source_seat`` controls the effect (public history, :attr:`harm`);
        replacement effects apply (The Great Martyr, The Oracle)."""
        if (self.effects or self._statics) and n > 0:
            ev = {"seat": seat, "amount": n, "source_seat": source_seat}
            IA.replace(self, "lose_life", ev)
            seat, n = ev["seat"], ev["amount"]
            if n <= 0:
                return
        if source_seat is not None and 0 <= source_seat != seat and n > 0 and not self.players[seat].has_lost:
            self.harm[source_seat][seat] += n
        self._lose_life(seat, n)

    def _lose_life(self, seat: int, n: int, paid: bool = False) -> None:
        p = self.players[seat]
        if n <= 0 or p.has_lost:
            return
        p.life -= n
        self._dirty = True
        self._log("pay_life" if paid else "lose_life", seat=seat, n=n)

    def _damage_prevented(self, target: tuple) -> bool:
        if not self.shields:
            return False
        seat = target[1] if target[0] == "p" else target[1].controller
        return any(s["kind"] == "prevent_damage" and s["seat"] == seat for s in self.shields)

    def damage(self, source_seat: int, target: tuple, amount: int, source_name: str = "",
                    source_creature: Creature | None = None, combat: bool = False) -> int:
        """Deal ``amount`` damage to a player (loses that much life) or a creature
        (marked damage, CR 120.3).  Prevention shields apply first.  Returns the
        damage dealt after prevention."""
        if amount <= 0 or target is None:
            return 0
        if self.effects or self._statics:
            ev = {"source_seat": source_seat, "target": target, "amount": amount, "combat": combat,
                  "source_creature": source_creature}
            IA.replace(self, "damage", ev)
            target, amount = ev["target"], ev["amount"]
            if amount <= 0 or target is None:
                return 0
        if self._damage_prevented(target):
            self._log("prevented", target=self._target_repr(target), n=amount)
            return 0
        kind, obj = target
        if kind == "p":
            p = self.players[obj]
            if p.has_lost:
                return 0
            p.life -= amount
            if combat and source_creature is not None and source_creature.is_commander:
                p.cmd_damage[source_creature.owner] = p.cmd_damage.get(source_creature.owner, 0) + amount
        else:
            if obj not in self.players[obj.controller].creatures:
                return 0
            obj.damage += amount
            if source_creature is not None and source_creature.has("deathtouch"):
                obj.deathtouched = True
        self._dirty = True
        if source_seat >= 0:
            victim = obj if kind == "p" else obj.controller
            if victim != source_seat:
                self.harm[source_seat][victim] += amount
        if source_creature is not None and source_creature.has("lifelink"):
            self.gain_life(source_creature.controller, amount)
        if not combat:
            self._log("damage", source=source_name, target=self._target_repr(target), n=amount)
        return amount

    def deal_damage(self, seat: int, amount: int) -> int:
        """Deal ``amount`` damage to player ``seat`` from no particular source
        (scenarios and tests; DESIGN section 3).  Prevention applies; state-based
        actions are checked at once, even while a decision is pending (CR 704.5a:
        at 0 life the player loses; :meth:`lose` passes a decision of theirs on).
        Returns the damage dealt."""
        dealt = self.damage(-1, ("p", seat), amount, source_name="effect")
        if self._dirty and not self.is_over:
            self._state_based_actions()
        return dealt

    def _leave_battlefield(self, c: Creature, to: str) -> bool:
        p = self.players[c.controller]
        if c not in p.creatures:
            return False
        p.creatures.remove(c)
        if c.blocking is not None and c in c.blocking.blocked_by:
            c.blocking.blocked_by.remove(c)
        if c in self.combat_attackers:
            self.combat_attackers.remove(c)
        owner = self.players[c.owner]
        # "zone", not "to": ``to`` is _log's list of seats allowed to see an event
        self._log("leaves", creature=c.uid, name=c.name, zone=to, seat=c.controller)
        if not c.token and not owner.has_lost:
            if c.is_commander and self.config.commander:
                owner.commander_zone = "command"
            elif to == "graveyard":
                owner.graveyard.append(c.card)
            elif to == "exile":
                owner.exile.append(c.card)
            elif to == "hand":
                owner.hand.append(c.card)
        IA.fire_event(self, "creature_left", creature=c)
        return True

    def destroy(self, c: Creature) -> bool:
        """Destroy a creature (CR 701.8): it goes to its owner's graveyard."""
        return self._leave_battlefield(c, "graveyard")

    def exile_creature(self, c: Creature) -> bool:
        """Exile a creature; a commander goes to the command zone instead."""
        return self._leave_battlefield(c, "exile")

    def bounce(self, c: Creature) -> bool:
        """Return a creature to its owner's hand (a commander: command zone)."""
        return self._leave_battlefield(c, "hand")

    def _op_discard(self, seat: int, n: int, source_seat: int | None) -> None:
        """``seat`` discards ``n`` cards of their choice (one decision per card);
        ``source_seat`` controls the effect (None: a cost or the cleanup step).
        Replacement effects apply to effect-caused discards (The Great Martyr)."""
        if source_seat is not None and (self.effects or self._statics):
            ev = {"seat": seat, "n": n, "source_seat": source_seat}
            IA.replace(self, "discard", ev)
            seat, n = ev["seat"], ev["n"]
        p = self.players[seat]
        if n <= 0 or not p.hand or p.has_lost:
            return
        L = self.layout
        opts = [(L.HAND + i, i) for i in range(min(len(p.hand), MAX_HAND))]
        self.decision = Decision(seat, DecisionKind.DISCARD, opts, "_h_discard", (seat, n - 1),
                                 "choose a card to discard")

    def _h_discard(self, ctx: tuple, i: int) -> None:
        seat, more = ctx
        p = self.players[seat]
        c = p.hand.pop(i)
        p.graveyard.append(c)
        self._log("discard", seat=seat, card=c.name)
        if more > 0:
            self._push_front([("discard", seat, more, None)])

    def _op_cleanup(self) -> None:
        """CR 514: discard to maximum hand size, remove damage, end "this turn" effects."""
        p = self.players[self.active]
        if not p.has_lost and len(p.hand) > p.max_hand_size:
            self._push_front([("discard", self.active, len(p.hand) - p.max_hand_size, None), ("cleanup_rest",)])
        else:
            self._op_cleanup_rest()

    def _op_cleanup_rest(self) -> None:
        for c, old in self.turn_effects.get("control_back", ()):
            if not self.players[old].has_lost and c in self.players[c.controller].creatures:
                self.players[c.controller].creatures.remove(c)
                c.controller = old
                c.attacking = -1
                self.players[old].creatures.append(c)
        self.effects = [e for e in self.effects if e.get("until") != "eot"]
        for p in self.players:
            if p.permissions:
                p.permissions = [q for q in p.permissions if q["until_turn"] is None or q["until_turn"] > self.turn]
        for p in self.players:
            for c in p.creatures:
                c.damage = 0
                c.deathtouched = False
                c.pump_p = c.pump_q = 0
                c.pump_kw = frozenset()
        self.turn_effects = {}
        self._dirty = True

    # ------------------------------------------------------------------ triggers
    def add_trigger(self, item: StackItem) -> None:
        """Queue a triggered ability; it goes on the stack the next time a player
        would receive priority, in APNAP order (CR 603.3b)."""
        self.pending_triggers.append(item)

    def _put_triggers_on_stack(self) -> None:
        """CR 603.3b: the active player puts their triggers on the stack first,
        then each other player in turn order; targets are chosen now (CR 603.3d:
        a trigger with no legal target is removed)."""
        trig = self.pending_triggers
        self.pending_triggers = []
        order = {s: k for k, s in enumerate((self.active + k) % self.n for k in range(self.n))}
        trig.sort(key=lambda t: order[t.controller])
        ops: list = []
        for t in trig:
            if self.players[t.controller].has_lost:
                continue
            if t.data.get("prepare"):
                ops.append(("call", t.data["prepare"], t))
            for spec in t.data.get("specs", ()):
                ops.append(("choose_target", t, spec, spec.get("max", 1)))
            ops.append(("push_trigger", t))
        self._push_front(ops)

    def _op_push_trigger(self, t: StackItem) -> None:
        if self.players[t.controller].has_lost:
            return
        specs = t.data.get("specs", ())
        if specs and all(x is None for x in t.targets) and any(s.get("min", 1) > 0 for s in specs):
            self._log("trigger_removed", source=t.source, seat=t.controller)
            return
        self.stack.append(t)
        self._log("trigger", seat=t.controller, source=t.source, key=t.key,
                  targets=[self._target_repr(x) for x in t.targets])

    # ------------------------------------------------------------------ combat
    def can_attack(self, seat: int, defender: int) -> bool:
        """Whether ``seat`` may attack player ``defender`` (CR 506.2, 802: attack
        opponents only; The Golem: Leader players can't be attacked)."""
        if defender == seat or self.players[defender].has_lost:
            return False
        if not self.is_opponent(seat, defender):
            return False
        if self.has_static("leaders_unattackable") and self.is_leader_player(defender):
            return False
        return not (self.effects and IA.forbids(self, "attack_player", seat=seat, target=defender))

    def _attack_candidates(self) -> list[Creature]:
        seat = self.active
        if not any(self.can_attack(seat, d) for d in range(self.n)):
            return []
        return [c for c in self.players[seat].creatures
                if c.attacking < 0 and not c.tapped and not c.has("defender")
                and (c.entered_turn < self.turn or c.has("haste") or self._controlled_since_turn_start(c))]

    def _controlled_since_turn_start(self, c: Creature) -> bool:
        return c.entered_turn < self.turn

    def _op_declare_attackers(self) -> None:
        seat = self.active
        if self.players[seat].has_lost:
            return
        L = self.layout
        opts = [(L.PASS, None)]
        for c in self._attack_candidates():
            slot = self.players[seat].creatures.index(c)
            if slot < MAX_PERMS:
                opts.append((L.perm(0, slot), c))
        self.decision = Decision(seat, DecisionKind.ATTACKER, opts, "_h_attacker", seat,
                                 "declare attackers: choose a creature, or PASS when done")

    def _h_attacker(self, seat: int, c: Creature | None) -> None:
        if c is None:
            # CR 508.1f: attackers tap (unless vigilance); remember who attacked a Leader (Undercover)
            for a in self.combat_attackers:
                self.attacks[seat][a.attacking] += 1
                if not a.has("vigilance"):
                    a.tapped = True
                if self.is_leader_player(a.attacking):
                    self.leader_attacked_by.add(seat)
            if self.combat_attackers:
                self._log("attacks", seat=seat,
                          attackers=[[a.uid, a.name, a.attacking] for a in self.combat_attackers])
                self._open_priority()   # CR 508.8: players get priority once attackers are declared
            return
        L = self.layout
        opts = [(L.PLAYER + self.rel(seat, d), d) for d in range(self.n) if self.can_attack(seat, d)]
        self.decision = Decision(seat, DecisionKind.DEFENDER, opts, "_h_defender", c,
                                 f"choose the player {c.name} attacks")

    def _h_defender(self, c: Creature, defender: int) -> None:
        c.attacking = defender
        self.combat_attackers.append(c)
        self._push_front([("declare_attackers",)])

    def _op_declare_blockers(self) -> None:
        """Each defending player, in APNAP order, declares blockers (CR 509, 802.4)."""
        defenders = [s for s in self._apnap() if any(a.attacking == s for a in self.combat_attackers)]
        self._push_front([("block_for", d) for d in defenders] + [("blocks_done",)])

    def _block_options(self, seat: int) -> list:
        L = self.layout
        opts = [(L.PASS, None)]
        attackers = [a for a in self.combat_attackers if a.attacking == seat]
        for slot, c in enumerate(self.players[seat].creatures[:MAX_PERMS]):
            if c.tapped or c.blocking is not None:
                continue
            if any(self._can_block(c, a) for a in attackers):
                opts.append((L.perm(0, slot), c))
        return opts

    @staticmethod
    def _can_block(b: Creature, a: Creature) -> bool:
        return not a.has("flying") or b.has("flying") or b.has("reach")

    def _op_block_for(self, seat: int) -> None:
        if self.players[seat].has_lost:
            return
        self.decision = Decision(seat, DecisionKind.BLOCKER, self._block_options(seat), "_h_blocker", seat,
                                 "declare blockers: choose a creature, or PASS when done")

    def _h_blocker(self, seat: int, b: Creature | None) -> None:
        if b is None:
            return
        L = self.layout
        opts = []
        for a in self.combat_attackers:
            if a.attacking == seat and self._can_block(b, a):
                slot = self.players[a.controller].creatures.index(a)
                if slot < MAX_PERMS:
                    opts.append((L.perm(self.rel(seat, a.controller), slot), a))
        self.decision = Decision(seat, DecisionKind.BLOCKED, opts, "_h_blocked", (seat, b),
                                 f"choose the attacker {b.name} blocks")

    def _h_blocked(self, ctx: tuple, a: Creature) -> None:
        seat, b = ctx
        b.blocking = a
        a.blocked_by.append(b)
        a.was_blocked = True
        self._push_front([("block_for", seat)])

    def _op_blocks_done(self) -> None:
        """Menace (CR 702.110b): a creature with menace blocked by only one creature
        is an illegal block; that blocker is removed from combat (abstraction of
        the declare-again rule).  Then the blocks are logged."""
        for a in self.combat_attackers:
            if a.has("menace") and len(a.blocked_by) == 1:
                b = a.blocked_by.pop()
                b.blocking = None
                a.was_blocked = False
        blocks = [[b.uid, a.uid] for a in self.combat_attackers for b in a.blocked_by]
        if blocks:
            self._log("blocks", blocks=blocks)
        self._open_priority()   # CR 509.4: priority once blockers are declared

    def _combatants(self) -> list[Creature]:
        out = list(self.combat_attackers)
        for a in self.combat_attackers:
            out.extend(a.blocked_by)
        return out

    def _op_combat_damage(self, first: bool) -> None:
        """CR 510: combat damage, all at once.  With ``first`` only first- and
        double-strike creatures deal damage (CR 702.7); otherwise creatures without
        first strike and double strikers.  An attacker assigns lethal damage to its
        blockers in declaration order, the rest to the last one or, with trample, to
        the player (CR 510.1c-d; deathtouch makes 1 lethal)."""
        events: list = []  # (source creature, target, amount)
        fs_done = self.turn_effects.setdefault("first_strikers", set())
        for a in list(self.combat_attackers):
            if a not in self.players[a.controller].creatures:
                continue
            a_deals = (a.has("first_strike") or a.has("double_strike")) if first else (
                a.has("double_strike") or a.uid not in fs_done)
            if first and a_deals:
                fs_done.add(a.uid)
            if a_deals and a.power > 0:
                blockers = [b for b in a.blocked_by if b in self.players[b.controller].creatures]
                if not a.was_blocked:
                    events.append((a, ("p", a.attacking), a.power))
                elif blockers:
                    left = a.power
                    for k, b in enumerate(blockers):
                        lethal = 1 if a.has("deathtouch") else max(0, b.toughness - b.damage)
                        last = k == len(blockers) - 1
                        amt = left if (last and not a.has("trample")) else min(left, lethal)
                        if amt:
                            events.append((a, ("c", b), amt))
                        left -= amt
                        if left <= 0:
                            break
                    if left > 0 and a.has("trample"):
                        events.append((a, ("p", a.attacking), left))
                elif a.has("trample"):
                    events.append((a, ("p", a.attacking), a.power))
            for b in a.blocked_by:
                if b not in self.players[b.controller].creatures:
                    continue
                b_deals = (b.has("first_strike") or b.has("double_strike")) if first else (
                    b.has("double_strike") or b.uid not in fs_done)
                if first and b_deals:
                    fs_done.add(b.uid)
                if b_deals and b.power > 0:
                    events.append((b, ("c", a), b.power))
        total: dict = {}
        for src, tgt, amt in events:
            dealt = self.damage(src.controller, tgt, amt, source_name=src.name, source_creature=src, combat=True)
            if dealt and tgt[0] == "p":
                total[tgt[1]] = total.get(tgt[1], 0) + dealt
        if events:
            self._log("combat_damage", first_strike=first,
                      to_players={str(k): v for k, v in sorted(total.items())})

    # ------------------------------------------------------------------ state-based actions
    def _state_based_actions(self) -> bool:
        """CR 704, checked simultaneously; returns True if anything happened.
        Players at 0 or less life, who drew from an empty library, or who took 21
        combat damage from one commander lose (CR 704.5a-c, 903.10a); creatures
        with 0 toughness, lethal damage or deathtouch damage die (CR 704.5f-h)."""
        self._dirty = False
        losers = []
        for p in self.players:
            if p.has_lost:
                continue
            if p.life <= 0 or p.drew_from_empty or (self.config.commander and any(v >= 21 for v in p.cmd_damage.values())):
                losers.append(p.seat)
        dying = []
        for p in self.players:
            legends: dict = {}
            for c in p.creatures:
                t = c.toughness
                if t <= 0 or (c.damage > 0 and (c.damage >= t or c.deathtouched)):
                    dying.append(c)
                elif c.legendary:
                    if c.name in legends:   # CR 704.5j legend rule: the newest one is kept (abstraction)
                        dying.append(legends[c.name])
                    legends[c.name] = c
        for c in dying:
            self.destroy(c)
        if losers:
            self.lose(losers)
        return bool(losers or dying)

    # ------------------------------------------------------------------ losing and winning
    def lose(self, seats: int | list[int], reason: str = "rules", concede: bool = False) -> None:
        """Make ``seats`` lose the game simultaneously (a list = simultaneous
        losses, TR6.9).  For each: identity-sourced triggers resolve before the
        player leaves (CR 907.8a); a face-down identity is revealed, which is not an
        unveil (CR 702.187a/g: no "when unveiled"); the last-known team is kept
        (TR7.4); their objects leave (CR 800.4a).  Then the Leader team's loss and
        the win conditions are checked (CR 907.7)."""
        if isinstance(seats, (int, np.integer)):
            seats = [int(seats)]
        # called from outside the engine loop (scenarios, tests) while a decision is pending
        external = self.decision is not None
        seats = [s for s in seats if not self.players[s].has_lost]
        if not concede and reason != "team":
            seats = [s for s in seats if not self.players[s].cant_lose]
            # effects that replace losing (He Who Comes To Save The Day, The Treacherous
            # Masochist); never a concession nor the Leader team's loss (TR6.3, TR6.10)
            ev = {"seats": list(seats), "reason": reason, "first": all(not p.has_lost for p in self.players)}
            IA.replace(self, "lose_game", ev)
            seats = [s for s in ev["seats"] if not self.players[s].has_lost]
            if self.is_over:
                return
        if not seats or self.is_over:
            return
        for s in seats:
            IA.fire_event(self, "losing", seat=s)     # as the player loses (The Metamorph)
        for s in seats:
            IA.before_leaving(self, s)
        for s in seats:
            p = self.players[s]
            idc = p.identity
            if not idc.face_up:
                idc.face_up = True
                idc.x = 0               # turned face up other than by unveiling (CR 702.187e)
                idc.known_by = set(range(self.n))
                if idc.role != Role.LEADER:
                    self.revealed_identities.add(idc.uid)
            p.has_lost = True
            self.n_alive -= 1
            p.lost_turn = self.turn
            p.last_role = idc.role
            p.last_team = team_of(idc.role)
            self._log("loses", seat=s, identity=idc.name, reason=reason)
        for s in seats:
            self._leave_game(s)
        self._refresh_statics()
        for s in seats:
            IA.fire_event(self, "player_lost", seat=s)
        self._check_game_end()
        if external and self.decision is None and not self.is_over:
            # the deciding player left: run on to the next decision (CR 800.4a)
            self._advance()

    def concede(self, seat: int) -> None:
        """``seat`` concedes (CR 104.3a): they lose; effects that replace losing
        don't apply (TR6.10).

        Raises:
            ValueError: if the player already left or the game is over.
        """
        if self.is_over or self.players[seat].has_lost:
            raise ValueError(f"seat {seat} cannot concede: the game is over or they already left")
        self.lose([seat], reason="concede", concede=True)
        if self.decision is not None and self.decision.seat == seat:
            self.decision = None
            if self.priority_seat == seat:
                self._after_pass(seat)
        self._advance()

    def _leave_game(self, seat: int) -> None:
        """CR 800.4a: everything the player owns leaves the game (spells on the
        stack, permanents, cards in the face-down exile of others); control
        effects giving them others' permanents end, so those go back to their
        owners; abilities they control cease to exist;
        their combat role ends.  Creatures leaving the battlefield this way
        trigger leaves-the-battlefield abilities (The Blood Empress)."""
        p = self.players[seat]
        gone = []
        for q in self.players:
            for c in list(q.creatures):
                if c.owner == seat or c.controller == seat:
                    q.creatures.remove(c)
                    owner = self.players[c.owner]
                    if c.owner != seat and not owner.has_lost:
                        # control effects giving the leaving player control end (CR 800.4a):
                        # the creature goes back to its owner
                        c.controller = c.owner
                        c.attacking = -1
                        c.entered_turn = self.turn
                        owner.creatures.append(c)
                        continue
                    gone.append(c)
        for c in gone:
            if c.blocking is not None and c in c.blocking.blocked_by:
                c.blocking.blocked_by.remove(c)
        for a in self.combat_attackers:
            if a.attacking == seat:
                a.attacking = -1
        self.combat_attackers = [a for a in self.combat_attackers if a.attacking >= 0 and a not in gone]
        self.stack = [it for it in self.stack if it.controller != seat and it.owner != seat]
        self.pending_triggers = [t for t in self.pending_triggers if t.controller != seat]
        for q in self.players:
            pile = q.identity.data.get("dream")
            if pile:
                q.identity.data["dream"] = [(o, c) for o, c in pile if o != seat]
        for c in gone:
            IA.fire_event(self, "creature_left", creature=c)
        # shields the player created last until their turn would have begun (CR 800.4k, _start_turn)
        p.hand = []
        if p.commander is not None:
            p.commander_zone = "out"      # it left the game with its owner
        p.lands = p.lands_tapped = 0
        p.tokens = {k: 0 for k in COUNTER_TOKENS}
        p.mana_pool = 0
        if self.decision is not None and self.decision.seat == seat:
            self.decision = None
        if self.priority_seat == seat:
            self.priority_seat = self._next_alive(seat)
        self.passes = 0   # the remaining players must all pass again in succession

    def _check_game_end(self) -> None:
        """CR 907.7 and TR6: the Leader team loses when no player in the game
        controls a Leader identity, and every Guardian loses with it even if they
        "can't lose" (TR6.3); then the Assassins win if one of them is still in the
        game (CR 907.7d), else a lone Traitor wins (CR 907.7f); the Leader team
        wins once every Assassin and Traitor has left (TR6.6).  Wins are shared by
        eliminated teammates through their last-known team (TR7.4)."""
        if self.is_over:
            return
        alive = [p for p in self.players if not p.has_lost]
        roles = [p.identity.role for p in alive]
        if Role.LEADER not in roles:
            guardians = [p.seat for p in alive if p.identity.role == Role.GUARDIAN]
            if guardians:
                self.lose(guardians, reason="team")
                return
            if Role.ASSASSIN in roles:
                self._win({p.seat for p in self.players if p.team == Team.ASSASSIN})
            elif len(alive) == 1:
                self._win({alive[0].seat})
            elif not alive:
                self._win(set())
            return
        if Role.ASSASSIN not in roles and Role.TRAITOR not in roles:
            self._win({p.seat for p in self.players if p.team == Team.LEADER})

    def _win(self, seats: set[int]) -> None:
        """End the game with ``seats`` winning (empty set = a draw)."""
        self.winners = set(seats)
        for s in seats:
            self.players[s].won = True
        self.is_over = True
        self._log("game_over", winners=sorted(seats))
        self._end_game_reveal()

    def win(self, seat: int) -> None:
        """``seat`` wins the game ("you win the game" effects): their whole team
        wins, eliminated teammates included (TR6.7); a Traitor wins alone.  Logged
        as ``win_effect`` (the winners need not be the last players standing)."""
        p = self.players[seat]
        self._log("win_effect", seat=seat)
        if p.team == Team.TRAITOR:
            self._win({seat})
        else:
            self._win({q.seat for q in self.players if q.team == p.team})

    def _end_game_reveal(self) -> None:
        """CR 907.9: at the end of the game every face-down identity is revealed."""
        for p in self.players:
            if not p.identity.face_up:
                p.identity.known_by = set(range(self.n))
        self._log("reveal_all", identities=[p.identity.name for p in self.players])
        self.decision = None

    # ------------------------------------------------------------------ observation & text
    def observation(self, seat: int) -> dict[str, np.ndarray]:
        """The environment's observation for ``seat``: ``{"observation": float32
        (obs_size,), "action_mask": int8 (layout.size,)}``; the mask is all zeros
        unless ``seat`` is deciding.  See :mod:`treachery_env.observation`."""
        mask = self.legal_action_mask() if self.current_player == seat else np.zeros(self.layout.size, np.int8)
        return {"observation": _encode(self, seat), "action_mask": mask}

    def view(self, seat: int):
        """Structured, read-only snapshot of ``seat``'s information set
        (:class:`treachery_env.observation.SeatView`)."""
        return _seat_view(self, seat)

    def describe_action(self, action: int, seat: int | None = None) -> str:
        """What ``action`` does for the deciding seat now, in words.

        Raises:
            ValueError: if ``action`` is outside the action space.
        """
        from .text import describe_action
        return describe_action(self, int(action), seat)

    def render_text(self, seat: int | None = None) -> str:
        """Text picture of the game as ``seat`` sees it (None: public view only)."""
        from .text import render
        return render(self, seat)

    # ------------------------------------------------------------------ copies & replays
    def clone(self) -> "Game":
        """An independent deep copy (same state, same random stream)."""
        return copy.deepcopy(self)

    def state_summary(self) -> dict[str, Any]:
        """Privileged, JSON-friendly summary of the full state (every hidden card)."""
        def cr(c: Creature) -> list:
            return [c.uid, c.name, c.power, c.toughness, c.damage, int(c.tapped), c.p1p1, c.stun]
        return {
            "turn": self.turn, "active": self.active, "phase": self.phase, "over": self.is_over,
            "winners": sorted(self.winners),
            "players": [{
                "life": p.life, "lost": p.has_lost, "identity": p.identity.name, "face_up": p.identity.face_up,
                "hand": [c.name for c in p.hand], "library": [c.name for c in p.library],
                "graveyard": [c.name for c in p.graveyard], "exile": [c.name for c in p.exile],
                "lands": [p.lands, p.lands_tapped], "tokens": dict(p.tokens),
                "creatures": [cr(c) for c in p.creatures], "commander": p.commander_zone,
                "counters": dict(p.identity.counters), "cmd_damage": dict(p.cmd_damage),
            } for p in self.players],
            "stack": [[it.kind, it.source, it.controller] for it in self.stack],
            "decision": None if self.decision is None else [self.decision.seat, self.decision.kind,
                                                            sorted(a for a, _ in self.decision.options)],
        }

    def digest(self) -> str:
        """SHA-256 of :meth:`state_summary` (hex)."""
        blob = json.dumps(_canon(self.state_summary()), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()

    def to_json(self) -> str:
        """Replay of this game: config, seed, actions and the resulting state digest."""
        return json.dumps({"format": "treachery-replay", "version": REPLAY_VERSION,
                           "config": self.config.to_dict(), "seed": self.seed,
                           "actions": list(self.actions), "digest": self.digest()})

    @classmethod
    def from_json(cls, text: str | bytes | dict) -> "Game":
        """Rebuild a game from :meth:`to_json` by replaying it.

        Raises:
            ValueError: if the text is not a replay, a field is missing or
                malformed, an action is illegal when replayed, or the final state
                does not match the recorded digest (a tampered replay).
        """
        try:
            d = text if isinstance(text, dict) else json.loads(text)
        except (TypeError, json.JSONDecodeError) as e:
            raise ValueError(f"not a replay: invalid JSON ({e}); from_json takes the replay text "
                             f"(e.g. open(path).read()), not a file name") from None
        if not isinstance(d, dict) or d.get("format") != "treachery-replay":
            raise ValueError("not a replay: missing format 'treachery-replay'")
        if d.get("version") != REPLAY_VERSION:
            raise ValueError(f"unsupported replay version {d.get('version')!r}; this engine reads {REPLAY_VERSION}")
        for k, typ in (("config", dict), ("seed", int), ("actions", list), ("digest", str)):
            if not isinstance(d.get(k), typ) or isinstance(d.get(k), bool):
                raise ValueError(f"replay field {k!r} is missing or not a {typ.__name__}")
        try:
            cfg = GameConfig.from_dict(d["config"])
        except (TypeError, ValueError) as e:
            raise ValueError(f"replay config is invalid: {e}") from None
        g = cls(cfg, seed=d["seed"])
        for k, a in enumerate(d["actions"]):
            if isinstance(a, bool) or not isinstance(a, int):
                raise ValueError(f"replay action #{k} is not an int: {a!r}")
            try:
                g.step(a)
            except ValueError as e:
                raise ValueError(f"replay action #{k} is illegal: {e}") from None
        if g.digest() != d["digest"]:
            raise ValueError("replay digest mismatch: the replayed state differs from the recorded one "
                             "(tampered or from another engine version)")
        return g


# imported last: these modules use the classes above
from .observation import encode as _encode, seat_view as _seat_view  # noqa: E402
