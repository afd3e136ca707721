"""The :class:`Game` facade: state, the operation queue and decisions.

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
state is plain data, so :meth:`Game.clone` is a deep copy (a fast one,
:mod:`treachery_env.engine.clone`).
"""

from __future__ import annotations

import random
import sys
from collections import deque
from typing import Any, Callable, Iterable

import numpy as np

try:
    import cython
except ImportError:         # run from source without Cython: its decorators do nothing (_cython_shim)
    from .. import _cython_shim as cython

from .. import identity_abilities as IA
from .. import identity_cards  # noqa: F401  (registers the 62 identity implementations)
from ..actions import ActionLayout, as_action, is_int
from ..config import GameConfig
from .clone import copy_game
from .state import Creature, Player, StackItem, Decision, GameState

from .setup import SetupMixin
from .treachery import TreacheryMixin
from .costs import CostsMixin
from .turn import TurnMixin
from .priority import PriorityMixin
from .stack import StackMixin
from .targets import TargetsMixin
from .triggers import TriggersMixin
from .combat import CombatMixin
from .attackables import AttackablesMixin
from .zones import ZonesMixin
from .effects import EffectsMixin
from .state_based import StateBasedMixin
from .mulligan import MulliganMixin
from .outcome import OutcomeMixin
from .replay import ReplayMixin
from .talk import TalkMixin, TalkState
from .throne import ThroneMixin
from .archenemy import SchemeMixin
from .vanguard import VanguardMixin
from .planechase import Planar, PlanechaseMixin

__all__ = ["Game"]

_OBSERVATION: list = []     # [the treachery_env.observation module], once Game.observation first ran


def _observation_module() -> Any:
    """:mod:`treachery_env.observation` (imported on first use: it imports the engine's modules)."""
    from .. import observation
    _OBSERVATION.append(observation)
    return observation


_OP_METHODS: dict[str, str] = {}
"""Queue operation name -> the name of the :class:`Game` method that runs it,
``"_op_<name>"``, made once per operation name and interned (:func:`_op_method`)."""


def _op_method(op: str) -> str:
    """``"_op_" + op``, interned and kept in :data:`_OP_METHODS`.  Why: the type
    attribute cache that ``getattr`` goes through compares names by identity, so a
    name concatenated anew for every operation missed it (and evicted another
    entry) at every call; an interned one is the very string of the class dict."""
    name = _OP_METHODS[op] = sys.intern("_op_" + op)
    return name


def _gather(*mixins: type) -> Callable[[type], type]:
    """Class decorator: the class gets, in its own namespace, every attribute
    of ``mixins`` (the engine's rules concepts, one module each) that it does
    not define itself, the first mixin that defines a name winning, as when
    inheriting from them in that order.

    Why not inherit from them: when CPython's type attribute cache (one
    4096-entry table for every type) misses, an attribute of an instance is
    looked up in every class of its type's MRO before the instance dict, and
    the engine reads hundreds of names of the game at every step.  With the
    17 mixins as bases, such a miss cost 19 dictionary lookups (about a tenth
    of ``Game.step``'s instructions); gathered, it costs two.
    """
    def gather(cls: type) -> type:
        for mixin in mixins:
            for name, value in vars(mixin).items():
                if not (name.startswith("__") and name.endswith("__")) and name not in cls.__dict__:
                    setattr(cls, name, value)
        return cls
    return gather


@_gather(SetupMixin, TreacheryMixin, CostsMixin, TurnMixin, PriorityMixin, StackMixin, TargetsMixin, TriggersMixin,
         CombatMixin, AttackablesMixin, ZonesMixin, EffectsMixin, StateBasedMixin, MulliganMixin, OutcomeMixin,
         ReplayMixin, TalkMixin, ThroneMixin, SchemeMixin, VanguardMixin, PlanechaseMixin)
class Game(GameState):
    """A Treachery game.  See the module docstring for the model.  Its methods
    come from the rules mixins (``SetupMixin`` ... ``TalkMixin``, gathered into
    the class by :func:`_gather` rather than inherited).

    Args:
        config: a :class:`GameConfig` (default: 5 players, Commander).
        seed: seed of the game's private random stream (shuffles, deal, decks),
            an int >= 0 (a numpy integer too); same seed + same actions gives
            the same game on any machine.
        overrides: :class:`GameConfig` fields, applied to ``config`` (or to the
            default config when ``config`` is None).

    Raises:
        ValueError: (one line) if ``config`` is not a :class:`GameConfig`, an
            override is not a valid config field or value, or ``seed`` is not an
            int >= 0 (bools and floats are refused; a negative seed would give
            the game of its absolute value, as :class:`random.Random` seeds it,
            and the environment's ``reset`` refuses it).

    Every public method that takes a seat (:meth:`can_unveil`, :meth:`unveil`,
    :meth:`unveil_cost_mana`, :meth:`observation`, :meth:`view`, :meth:`render_text`,
    :meth:`describe_action`, :meth:`lose`, :meth:`win`, :meth:`concede`, :meth:`to_bottom`,
    :meth:`deal_damage`) raises ``ValueError`` in one line naming the method, the seat and
    the range (0 to n - 1) for a seat outside the table or one that is not an int; so do
    their numbers for one outside its range or not an int (X and Y of an unveil cost, 0 to
    MAX_X; the amount of :meth:`deal_damage`, >= 0; :meth:`_int_arg`), and :meth:`step`
    and :meth:`describe_action` for an action that is not an integer
    (:func:`~treachery_env.actions.as_action`).

    Attributes:
        config, seed, n (players), layout (:class:`ActionLayout`).
        players: list of :class:`Player` by seat.
        turn: number of turns started (the first turn is 1).
        active: the active player's seat.
        phase: current step name (one of :data:`PHASES`).
        stack: list of :class:`StackItem`, last = top.
        decision: the pending :class:`Decision`, or None when the game is over.
        is_over, truncated: game end flags; winners: set of winning seats.
        leaving: seats that lost and whose identity-sourced objects are resolving
            before they leave (CR 907.8a, see :meth:`lose`).
        log: list of events ``{"turn", "event", ..., "to": None | [seats]}``;
            ``to`` lists the seats that may see a private event.
        actions: every action index applied so far (the replay).
        concessions: ``[action count, seat]`` of each concession made through
            :meth:`concede` outside the action space (a UI, out of turn), so
            that replays reproduce them.
        mulligan_state: the mulligan process before the first turn (CR 103.5),
            None once the first turn began or with ``mulligans="none"``.
        talk: what was said at the table (:class:`~treachery_env.engine.talk.TalkState`,
            public; TR10.5).
        social: the hidden-role layer when the game is not Treachery: a
            :class:`~treachery_env.engine.throne.ThroneMagic` (the Roles and who
            knows them) with ``config.game == "throne_magic"``; None in Treachery,
            whose identity layer is the engine's own.
        planar: the Planechase state (:class:`~treachery_env.engine.planechase.Planar`:
            planar decks, face-up plane, planar controller) with ``config.planechase``; else None.
    """

    __slots__ = ()     # the state: GameState's slots (state.py)

    def __init__(self, config: GameConfig | None = None, seed: int = 0, **overrides: Any):
        if config is None:
            config = GameConfig()
        if not isinstance(config, GameConfig):
            raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
        if overrides:       # GameConfig.replace: an unknown field is a one-line ValueError
            config = config.replace(**overrides)
        if not is_int(seed) or seed < 0:
            raise ValueError(f"seed must be an int >= 0, got {seed!r}")
        self.config = config
        self.seed = int(seed)
        self.n = config.num_players
        self.layout = ActionLayout(self.n, config.holding_count, config.planechase is not None)
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
        self.concessions: list[list[int]] = []
        self.mulligan_state: dict | None = None
        # seats whose shown decisions get the CONCEDE action (GameConfig.concession, CR 104.3a)
        c = config.concession
        self.concession_seats = frozenset(range(self.n) if c is True else () if c is False else c)
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
        self.role_counts: tuple[int, ...] = ()      # identity deck by role, public (set by _setup)
        self._uid = 0
        self._dirty = True
        self._statics: set[str] = set()
        self.n_alive = self.n
        # every priority window of CR 500-514, or the main phases, end step and combat declarations only
        self.full_windows = config.priority_windows == "full"
        self.show_forced = config.forced_decisions == "shown"
        # seats that lost and haven't left yet: their identity-sourced objects resolve first
        # (CR 907.8a; Game.lose, _leaving_step)
        self.leaving: list[int] = []
        # (decision, queued operations, resolving object) set aside while a loss called from
        # outside the engine loop resolves identity-sourced objects (Game.lose)
        self.suspended: tuple | None = None
        # table talk (TR10.5): public, non-binding messages; engine/talk.py
        self.talk_on = config.talk != "none" and config.talk_limit > 0
        self.talk = TalkState(self.n)
        # the hidden-role layer when it is not Treachery's: a ThroneMagic (engine/throne.py), set by _setup
        self.social = None
        # Archenemy's scheme decks and face-up schemes: a SchemeState (engine/archenemy.py), or None
        self.schemes = None
        # Planechase's planar decks and face-up plane (engine/planechase.py), None without it
        self.planar = Planar.deal(self) if config.planechase is not None else None
        self._setup()
        self._advance()

    def _new_uid(self) -> int:
        self._uid += 1
        return self._uid

    @cython.locals(self=GameState)
    def _log(self, event: str, to: Iterable[int] | None = None, **data: Any) -> None:
        entry = {"turn": self.turn, "event": event, **data}
        entry["to"] = None if to is None else sorted(to)
        self.log.append(entry)

    def _number(self, obj: Any) -> None:
        """Give ``obj``, a creature or planeswalker entering the battlefield (not in its
        controller's list yet), the lowest ordinal no permanent of the same name on the
        battlefield has: 1 (its label is its name) unless another of that name is there
        with 1, and so on (``"Web Weaver #2"``).  Public, for people only: it never
        changes afterwards (treachery_env/text.py's docstring says how it is shown)."""
        name = obj.name
        used = None
        for p in self.players:
            for c in p.creatures:
                if c.name == name:
                    if used is None:
                        used = set()
                    used.add(c.ordinal)
            for w in p.attackables:
                if w.name == name:
                    if used is None:
                        used = set()
                    used.add(w.ordinal)
        if used is not None:
            k = 1
            while k in used:
                k += 1
            obj.ordinal = k

    @staticmethod
    def _labels(*objs: Any) -> dict:
        """``{"labels": [[uid, label], ...]}`` for the numbered permanents among ``objs``
        (ordinal 2 or more, each once; None and other objects are skipped), else ``{}``: what a log
        entry naming them adds, so that its words tell them apart (text.format_event)."""
        out = []
        for o in objs:
            if o is not None and getattr(o, "ordinal", 1) > 1 and not any(u == o.uid for u, _ in out):
                out.append([o.uid, o.label])
        return {"labels": out} if out else {}

    @staticmethod
    def _source_label(item: Any) -> dict:
        """``{"source_label": "Flame Adept #2"}`` for a stack object whose source is a numbered
        permanent (``item.label``, set where the object is made: an enters-the-battlefield
        trigger, a loyalty ability), else ``{}``: what the log entries naming its source add
        (``"source"`` keeps the name, which bots and rules read)."""
        return {"source_label": item.label} if item.label else {}

    def _target_labels(self, targets: Any) -> dict:
        """:meth:`_labels` of the creatures and planeswalkers among stack-object targets."""
        return self._labels(*[t[1] for t in targets if t is not None and (t[0] == "c" or t[0] == "w")])

    def _seat_arg(self, seat: Any, method: str) -> int:
        """``seat``, the seat argument of the public method ``method``, as an int.

        Raises:
            ValueError: (one line naming ``method``, the seat and the range) for a
                seat that is not an int (a numpy integer too; bools, floats and
                strings are refused) from 0 to n - 1.
        """
        if type(seat) is int and 0 <= seat < self.n:      # the common case
            return seat
        if not is_int(seat) or not 0 <= seat < self.n:
            raise ValueError(f"{method}: seat must be an int from 0 to {self.n - 1} "
                             f"(a {self.n}-player game), got {seat!r}")
        return int(seat)

    @staticmethod
    def _int_arg(value: Any, method: str, name: str, low: int, high: int | None = None) -> int:
        """``value``, the argument ``name`` of the public method ``method`` (an X, an
        amount), as an int: the one check of the public methods' int arguments other than
        seats (:meth:`_seat_arg`), accepting the same ints (flags: :meth:`_flag_arg`,
        words: :meth:`_word_arg`).

        Raises:
            ValueError: (one line naming ``method``, the argument, the range and the
                value) for a value that is not an int (a numpy integer too; bools,
                floats and strings are refused) from ``low`` to ``high`` (no upper
                bound when ``high`` is None).
        """
        if not is_int(value) or value < low or (high is not None and value > high):
            allowed = f">= {low}" if high is None else f"from {low} to {high}"
            raise ValueError(f"{method}: {name} must be an int {allowed}, got {value!r}")
        return int(value)

    @staticmethod
    def _flag_arg(value: Any, method: str, name: str) -> bool:
        """``value``, the flag argument ``name`` of the public method ``method``
        (``ignore_cost``, ``by_action``), as a bool.

        Raises:
            ValueError: (one line naming ``method``, the argument and the value) for a
                value that is not a bool (a numpy bool too; ints, strings and None are
                refused).
        """
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{method}: {name} must be True or False, got {value!r}")
        return bool(value)

    @staticmethod
    def _word_arg(value: Any, method: str, name: str, words: tuple[str, ...]) -> str:
        """``value``, the word argument ``name`` of the public method ``method`` (a
        loss's ``reason``), one of ``words``.

        Raises:
            ValueError: (one line naming ``method``, the argument, the words and the
                value) for a value that is not one of ``words``.
        """
        if not isinstance(value, str) or value not in words:
            raise ValueError(f"{method}: {name} must be one of {', '.join(map(repr, words))}, got {value!r}")
        return str(value)

    def rel(self, viewer: int, seat: int) -> int:
        """Seat ``seat`` relative to ``viewer`` (0 = viewer, then in turn order)."""
        return (seat - viewer) % self.n

    def abs_seat(self, viewer: int, rel: int) -> int:
        """Inverse of :meth:`rel`."""
        return (viewer + rel) % self.n

    def alive(self) -> list[int]:
        """Seats still in the game, in seat order."""
        return [p.seat for p in self.players if not p.has_lost]

    @cython.locals(self=GameState, players=list, n=cython.long, s=cython.long, k=cython.long, p=Player)
    def _next_alive(self, seat: int, include_self: bool = False) -> int | None:
        """The first seat still in the game from ``seat`` (``include_self``) or
        after it, in turn order; None once everyone has left."""
        players = self.players
        n = self.n
        s = seat if include_self else (seat + 1) % n
        p = players[s]
        if not p.has_lost:      # nearly always: the next seat is still in
            return s
        for k in range(0 if include_self else 1, n + 1):
            s = (seat + k) % n
            p = players[s]
            if not p.has_lost:
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
        option list asks nothing.

        Whether a question is asked must depend on public information only (with
        ``GameConfig.forced_decisions="shown"`` the order of decisions is public).
        So an option list built from a hidden zone (a library, a hand, a face-down
        pile) must include PASS ("find nothing", "done"), or, for a choice that
        must be made when a card qualifies, be PASS alone when none does: an
        empty list, which asks nothing, would tell what the zone holds (The
        Depths Caller, He Who Comes To Save The Day, The Corrupted Regent).  With
        "auto" a PASS-only question is taken at once."""
        if not options:
            return
        self.decision = Decision(seat, kind, options, "_h_call", (fn, data), prompt, labels)

    def then(self, *ops: tuple) -> None:
        """Run ``ops`` (``("call", fn, *args)`` or engine ops) before anything else queued."""
        self._push_front(list(ops))

    def _push_front(self, ops: list) -> None:
        self.queue.extendleft(reversed(ops))

    @cython.locals(self=GameState, players=list, d=Decision, p=Player, op_methods=dict)
    def _advance(self) -> None:
        """Run the game until a decision with two or more options (any decision with
        ``GameConfig.forced_decisions="shown"``), or the end."""
        players = self.players
        queue = self.queue
        op_methods = _OP_METHODS        # typed: its get is a C call
        while True:
            if self.is_over:
                self.decision = None
                queue.clear()
                return
            d = self.decision
            if d is not None:
                p = players[d.seat]
                if p.has_lost:   # asked of a player who left meanwhile (CR 800.4a)
                    self.decision = None
                    continue
                if len(d.options) == 1 and not self.show_forced:
                    self.auto_decisions += 1
                    self.decision = None
                    getattr(self, d.handler)(d.ctx, d.options[0][1])
                    continue
                if not d.options:
                    raise AssertionError(f"decision with no options: {d.prompt}")
                if d.seat in self.concession_seats:
                    self._offer_concession(d)
                return
            if queue:
                op = queue.popleft()
                # the interned method name (_op_method); a name that is no string raises the
                # concatenation's TypeError there, as before
                name = op_methods.get(op[0]) if type(op[0]) is str else None
                getattr(self, _op_method(op[0]) if name is None else name)(*op[1:])
                continue
            self.resolving = None        # queue drained: no resolution is in progress
            if self._dirty and self._state_based_actions():
                if self.phase == "cleanup":
                    self._cleanup_again()       # CR 514.3a
                continue
            if self.leaving:             # CR 907.8a: before priority is passed
                self._leaving_step()
                continue
            if self.pending_triggers:
                if "steps_ended" in self.turn_effects:
                    self._step_forward()        # CR 723.1c-723.2: they wait for the next step
                    continue
                if self.phase == "cleanup":
                    self._cleanup_again()       # CR 514.3a
                self._put_triggers_on_stack()
                continue
            if self.priority_seat is None and self.stack:
                self._open_priority()
            if self.priority_seat is not None:
                self._offer_priority()
                continue
            self._step_forward()

    def _offer_concession(self, d: Decision) -> None:
        """Add the CONCEDE action to the shown decision ``d`` (CR 104.3a: a player
        may concede at any time), once.  Only shown decisions get it (two or more
        options, or any with ``GameConfig.forced_decisions="shown"``), so it never
        makes a single-option decision shown (DESIGN section 4),
        and not a seat that lost and is leaving (CR 907.8a: its identity-sourced
        objects resolve first; it can no longer concede).
        New option and label lists: the asking code may keep the old ones."""
        a = self.layout.CONCEDE
        if d.index_of(a) is not None or self.players[d.seat].has_lost or d.seat in self.leaving:
            return
        if self.social is not None and (not self.social.roles or self.social.throne is None):
            return          # Throne Magic's setup: the Draft, The King's choice of Throne (Game.concede)
        d.options = d.options + [(a, "concede")]
        if d.labels is not None and len(d.labels) == len(d.options) - 1:
            d.labels = list(d.labels) + ["concede the game"]
        d._index = None

    @cython.locals(self=GameState, d=Decision)
    def step(self, action: int) -> None:
        """Apply ``action`` (an index of :class:`ActionLayout`) for the deciding seat
        and run on to the next decision.  ``CONCEDE`` (legal for the seats of
        ``GameConfig.concession``) makes the seat concede through :meth:`concede`
        (CR 104.3a, TR6.10).

        Raises:
            ValueError: if the game is over, the action is not an integer (an
                int, a numpy integer or a 0-d integer array; bools, floats and
                strings are refused) or it is not legal now (the message names
                the action and lists the legal ones in words).
        """
        d = self.decision
        if d is None:
            raise ValueError("the game is over; no action is legal")
        a = action if type(action) is int else as_action(action)     # an int is the common case
        i = d.index_of(a)
        if i is None:
            raise self._illegal_action(a, d)
        self.actions.append(a)
        self.decisions_taken += 1
        if a == self.layout.CONCEDE:
            # the same path as a UI's concession; the decision is dropped as the seat leaves
            self.concede(d.seat, by_action=True)
            return
        self.decision = None
        getattr(self, d.handler)(d.ctx, d.options[i][1])
        self._advance()

    def _illegal_action(self, a: int, d: Decision) -> ValueError:
        """The error :meth:`step` raises for ``a``, not legal at ``d``: it names the action
        and lists the legal ones in words.  A method of its own: its generator cannot use
        the typed ``self`` of ``step``."""
        legal = "; ".join(f"{x}: {self.describe_action(x)}" for x, _ in d.options[:12])
        more = "" if len(d.options) <= 12 else f"; ... ({len(d.options)} legal in all)"
        what = self.describe_action(a) if 0 <= a < self.layout.size else "outside the action space"
        return ValueError(f"illegal action {a} ({what}) for seat {d.seat} at '{d.prompt}'; legal: {legal}{more}")

    def legal_action_mask(self) -> np.ndarray:
        """int8 vector of shape ``(layout.size,)``: 1 where the action is legal for
        :attr:`current_player` now; all zeros once the game is over.  A new
        array at every call (writable; the caller may keep it)."""
        d = self.decision
        if d is None:
            return np.zeros(self.layout.size, np.int8)
        return (_OBSERVATION[0] if _OBSERVATION else _observation_module()).action_mask(d.options, self.layout.size)

    def legal_actions(self) -> list[int]:
        """Legal action indices for :attr:`current_player`, ascending."""
        d = self.decision
        if d is None:
            return []
        return (_OBSERVATION[0] if _OBSERVATION else _observation_module()).legal_actions(d.options)

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        """The environment's observation for ``seat``: ``{"observation": float32
        (obs_size,), "action_mask": int8 (layout.size,)}``; the mask is all zeros
        unless ``seat`` is deciding.  See :mod:`treachery_env.observation`; a
        Throne Magic game's vector has its own layout (``obs_layout(n, "throne_magic")``),
        and a game with a CR 900 variant blocks more at its end (:func:`treachery_env.observation.
        config_layout`: Planechase's, the Vanguard cards', the schemes').

        Raises:
            ValueError: for a seat that is not an int from 0 to n - 1.
        """
        seat = self._seat_arg(seat, "observation")
        obs = _OBSERVATION[0] if _OBSERVATION else _observation_module()
        if self.social is not None or self.config.has_variant_blocks:      # layouts of their own
            return obs.observation_dict_variant(self, seat)
        return obs.observation_dict(self, seat)

    def view(self, seat: int):
        """Structured, read-only snapshot of ``seat``'s information set
        (:class:`treachery_env.view.SeatView`; in a Throne Magic game its
        ``throne_magic``).

        Raises:
            ValueError: for a seat that is not an int from 0 to n - 1.
        """
        from ..view import seat_view
        return seat_view(self, self._seat_arg(seat, "view"))

    def describe_action(self, action: int, seat: int | None = None) -> str:
        """What ``action`` does for the deciding seat now, in words.

        Raises:
            ValueError: if ``action`` is not an integer (:func:`~treachery_env.actions.as_action`)
                or is outside the action space; for a ``seat`` (when given) that is
                not an int from 0 to n - 1.
        """
        from ..text import describe_action
        return describe_action(self, as_action(action), None if seat is None else self._seat_arg(seat, "describe_action"))

    def render_text(self, seat: int | None = None) -> str:
        """Text picture of the game as ``seat`` sees it (None: public view only).

        Raises:
            ValueError: for a ``seat`` (when given) that is not an int from 0 to n - 1.
        """
        from ..text import render
        return render(self, None if seat is None else self._seat_arg(seat, "render_text"))

    def clone(self) -> "Game":
        """An independent deep copy (same state, same random stream): playing
        or changing one never affects the other.  Cards, identity definitions,
        the config, the action layout and the log's entries (records the
        engine never changes) are shared; see :mod:`treachery_env.engine.clone`."""
        return copy_game(self)

    def __deepcopy__(self, memo: dict) -> "Game":
        """``copy.deepcopy(game)``: :meth:`clone`, honouring the entries already in ``memo``."""
        return copy_game(self, memo)
