"""Copying a game (:meth:`Game.clone`, ``copy.deepcopy``) for search.

A game is plain data, so a copy is a deep copy; this module makes it a fast
one.  :func:`copy_game` walks the state with copiers that know its types
instead of the generic :mod:`copy` protocol:

* immutable values are shared, not copied: numbers, strings, ``None``, cards
  (:class:`~treachery_env.cards.CardDef`, ``TokenDef``), identity definitions
  (:class:`~treachery_env.identities.Identity`), said messages and truces
  (``TalkMessage``, ``Deal``), enums, functions, the config and the action
  layout; tuples and frozensets of such values too;
* lists, dicts, sets and deques are copied with their elements copied (at C
  speed when every element is immutable), sets with ``set.copy`` (the copy
  iterates in the original's order);
* the card and identity definitions' own containers (a card's target specs
  and effects, which stack objects and queued operations refer to) are
  shared as the cards are: the original game shares them with the card pool
  too (:func:`static_data`);
* the game itself and the state objects (:class:`Player`, :class:`Creature`,
  :class:`Attackable`, :class:`IdentityCard`, :class:`StackItem`,
  :class:`Decision`, ``TalkState``, ``ThroneMagic``, ``Planar``) are copied slot by slot with copiers generated from their
  ``__slots__``;
* the random stream is copied by state (the copy draws the same numbers);
* the log is a new list holding the same entries: an entry is a record the
  engine never changes once written (views hand the same dicts out), so the
  entries are shared like cards are.

Every object is copied once and shared references stay shared (a memo, as
``copy.deepcopy`` keeps: a creature that is attacking, blocked and targeted is
one object in the copy too).  A value of any other type goes through
``copy.deepcopy`` with the same memo, so anything an identity stores still
copies correctly, only slower.  The memo protocol of ``copy.deepcopy`` is
honoured: an entry already in the memo (``agents.ismcts.fast_clone`` puts a
fresh log and random stream there) is used as it is.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import types
from collections import deque
from enum import Enum
from typing import Any, Callable

from ..actions import ActionLayout
from ..cards import CardDef, TokenDef
from ..config import GameConfig
from ..identities import Identity
from ..rules import Role, Team
from ..words import with_article
from .state import Attackable, Creature, Decision, IdentityCard, Player, StackItem, VanguardCard, slot_names
from .talk import Deal, TalkMessage, TalkState
from .throne import ThroneMagic
from .planechase import Planar

__all__ = ["copy_game", "copy_value", "static_data", "ATOMIC_TYPES"]

ATOMIC_TYPES: set[type] = {int, float, bool, str, bytes, complex, type(None), range, type, types.FunctionType,
                           types.BuiltinFunctionType, CardDef, TokenDef, Identity, TalkMessage, Deal, GameConfig,
                           ActionLayout, Role, Team}
"""Types whose values are shared between a game and its copy (immutable, or
immutable by contract: the config and the action layout)."""

_MISSING = object()
_COPIERS: dict[type, Callable[[Any, dict], Any]] = {}
_STATIC: dict[int, Any] = {}
_DEFINITION_MODULES = ("treachery_env.cards", "treachery_env.identities", "treachery_env.identity_abilities",
                       "treachery_env.identity_cards")


def static_data() -> dict[int, Any]:
    """The containers (lists, dicts, tuples, sets) and frozen dataclasses of
    the card pool and the identity definitions: everything reachable from the
    globals of :mod:`treachery_env.cards`, :mod:`treachery_env.identities`,
    :mod:`treachery_env.identity_abilities` and the modules of
    :mod:`treachery_env.identity_cards`, by ``id``.  Game state refers to them
    (a stack object's target specs are its card's); a copy shares them.  Built
    once, on the first copy (every identity is registered by then); the
    objects are held, so their ids stay theirs."""
    if not _STATIC:
        import sys
        roots = [m for name, m in list(sys.modules.items())
                 if m is not None and (name in _DEFINITION_MODULES or name.startswith("treachery_env.identity_cards."))]
        stack: list = [v for m in roots for k, v in vars(m).items() if not k.startswith("__")]
        while stack:
            x = stack.pop()
            cls = type(x)
            if cls in (list, tuple, dict, set, frozenset):
                if id(x) in _STATIC:
                    continue
                _STATIC[id(x)] = x
                stack.extend(x.items() if cls is dict else x)
            elif dataclasses.is_dataclass(x) and not isinstance(x, type) and id(x) not in _STATIC:
                _STATIC[id(x)] = x
                stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
    return _STATIC


def copy_value(x: Any, memo: dict) -> Any:
    """A deep copy of ``x`` (any part of a game's state) sharing immutable
    values and the definitions' data (:func:`static_data`); ``memo`` maps
    ``id(original)`` to its copy, as in ``copy.deepcopy``."""
    cls = type(x)
    if cls in ATOMIC_TYPES or id(x) in _STATIC:
        return x
    y = memo.get(id(x), _MISSING)
    if y is not _MISSING:
        return y
    f = _COPIERS.get(cls)
    if f is not None:
        return f(x, memo)
    if isinstance(x, Enum):
        return x
    return copy.deepcopy(x, memo)


_atomic_superset = ATOMIC_TYPES.issuperset


def _copy_list(x: list, memo: dict) -> list:
    if _atomic_superset(map(type, x)):
        y = x[:]
        memo[id(x)] = y
        return y
    y: list = []
    memo[id(x)] = y
    y.extend([copy_value(v, memo) for v in x])
    return y


def _copy_dict(x: dict, memo: dict) -> dict:
    if _atomic_superset(map(type, x.values())) and _atomic_superset(map(type, x)):
        y = x.copy()
        memo[id(x)] = y
        return y
    y = {}
    memo[id(x)] = y
    for k, v in x.items():
        y[copy_value(k, memo)] = copy_value(v, memo)
    return y


def _copy_set(x: set, memo: dict) -> set:
    if _atomic_superset(map(type, x)):
        y = x.copy()
    else:
        y = {copy_value(v, memo) for v in x}
    memo[id(x)] = y
    return y


def _copy_tuple(x: tuple, memo: dict) -> tuple:
    if _atomic_superset(map(type, x)):
        return x
    items = [copy_value(v, memo) for v in x]
    y = memo.get(id(x), _MISSING)       # a cycle through the tuple copied it already
    if y is not _MISSING:
        return y
    y = x if all(a is b for a, b in zip(items, x)) else tuple(items)
    memo[id(x)] = y
    return y


def _copy_frozenset(x: frozenset, memo: dict) -> frozenset:
    if _atomic_superset(map(type, x)):
        return x
    y = frozenset(copy_value(v, memo) for v in x)
    memo[id(x)] = y
    return y


def _copy_deque(x: deque, memo: dict) -> deque:
    y: deque = deque(maxlen=x.maxlen)
    memo[id(x)] = y
    y.extend([copy_value(v, memo) for v in x])
    return y


def _copy_random(x: random.Random, memo: dict) -> random.Random:
    y = type(x).__new__(type(x))
    y.setstate(x.getstate())
    memo[id(x)] = y
    return y


def _slot_copier(cls: type) -> Callable[[Any, dict], Any]:
    """A copier for the slots of instances of ``cls`` (a class with ``__slots__``, or
    compiled, an extension type keeping them as ``__slots__`` names its fields;
    an instance ``__dict__`` is not copied), generated from them: a new instance
    without ``__init__`` (``cls.__new__``), immutable
    values are assigned, the others copied with :func:`copy_value`.  An instance with an unset slot is
    copied slot by slot, leaving it unset."""
    slots = slot_names(cls)
    lines = ["def copier(x, memo):",
             "    y = new(cls)",
             "    memo[id(x)] = y",
             "    try:"]
    for s in slots:
        lines.append(f"        v = x.{s}")
        lines.append(f"        y.{s} = v if type(v) in atomic else copy_value(v, memo)")
    lines += ["    except AttributeError:",
              "        for s in slots:",
              "            if hasattr(x, s) and not hasattr(y, s):",
              "                setattr(y, s, copy_value(getattr(x, s), memo))",
              "    return y"]
    ns: dict = {"new": cls.__new__, "cls": cls, "atomic": ATOMIC_TYPES, "copy_value": copy_value,
                "slots": tuple(slots), "hasattr": hasattr, "setattr": setattr, "getattr": getattr}
    exec("\n".join(lines), ns)     # noqa: S102 (generated from the class's own slot names)
    copier = ns["copier"]
    copier.__doc__ = f"Copy {with_article(cls.__name__)} slot by slot (generated by _slot_copier)."
    return copier


_COPIERS.update({list: _copy_list, dict: _copy_dict, set: _copy_set, tuple: _copy_tuple,
                 frozenset: _copy_frozenset, deque: _copy_deque, random.Random: _copy_random})
for _cls in (Player, Creature, Attackable, IdentityCard, StackItem, Decision, TalkState, ThroneMagic, VanguardCard, Planar):
    _COPIERS[_cls] = _slot_copier(_cls)
_GAME_COPIERS: dict[type, Callable[[Any, dict], Any]] = {}     # Game (and subclasses): made at their first copy


def copy_game(g: Any, memo: dict | None = None) -> Any:
    """An independent copy of game ``g`` (see the module docstring): the same
    state, the same random stream, the log's entries shared.  ``memo`` is a
    ``copy.deepcopy`` memo; entries already in it are used as they are."""
    static_data()
    if memo is None:
        memo = {}
    else:
        y = memo.get(id(g), _MISSING)
        if y is not _MISSING:
            return y
        memo.setdefault(id(memo), []).append(g)     # as copy.deepcopy: the originals outlive the memo's ids
    cls = type(g)
    copier = _GAME_COPIERS.get(cls)
    if copier is None:
        copier = _GAME_COPIERS[cls] = _slot_copier(cls)
    log = getattr(g, "log", None)
    if isinstance(log, list) and id(log) not in memo:
        memo[id(log)] = log[:]           # entries are never changed once logged: shared
    y = copier(g, memo)
    state = getattr(g, "__dict__", None)     # a subclass's own attributes
    if state:
        y.__dict__.update({k: copy_value(v, memo) for k, v in state.items()})
    return y
