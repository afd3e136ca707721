"""No engine object is reachable from anything a bot is handed, in any game (DESIGN sections 4-5).

``tests/test_view_snapshot.py`` walks ``gc.get_referents`` from the raw environment's
observation and info at every decision of seven fixed configurations.  Here the game is
drawn: every variant of :data:`treachery_env.rules.VARIANTS`, every table size from 4 to
12, table talk on or off, any seed and game length, through the two public entry points
a bot is fed from -- the wrapped AEC environment (``treachery_env.env()``, what
``pettingzoo.make`` returns) and the parallel one (``treachery_env.parallel_env()``,
whose ``reset`` and ``step`` hand every seat's observation, reward, flags and info at
once, with the wrapper's ``active_agent`` in the infos).  At every decision (every third
in games longer than 16 turns) the walk starts from what was handed -- the acting seat's
observation and info (its ``view``, its ``legal_actions``), in the parallel form every
seat's -- and from ``view.to_dict()``; at the end from every seat's last observation,
reward and info (``winners``, ``truncated``).

The walk (:func:`reachable`) follows ``gc.get_referents`` and also what that walk of the
other file does not enter: a bound method's ``__self__`` (``info["x"] = game.step`` would
hand the game over), a function's closure cells and defaults (``lambda: game``), a
builtin method's object (``game.log.append``), a weak reference's object, an array's
``base``, and the ``__dict__``/``__slots__`` of objects the collector does not track (a
weak proxy passes ``isinstance`` as its object).  Nothing reachable
may be an instance of :data:`HIDDEN_STATE` (the engine's objects, which hold hands,
libraries, face-down identities and pending decisions; the environment and view
builder, which hold the game; random generators), nor a mutable object the game
itself holds (one of its lists, dicts or log entries).
"""

from __future__ import annotations

import enum
import functools
import gc
import random
import types
import weakref
from collections import deque

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import BaseWrapper

import treachery_env
from treachery_env import GameConfig
from treachery_env.engine import (Attackable, Creature, Decision, Deal, Game, IdentityCard, Player, StackItem,
                                  TalkMessage, TalkState)
from treachery_env.env import raw_env
from treachery_env.rules import VARIANTS
from treachery_env.view import PythonViewBuilder, SeatView, ViewBuilder

HIDDEN_STATE = (Game, Player, Creature, Attackable, IdentityCard, StackItem, Decision, TalkState,
                PythonViewBuilder, ViewBuilder, AECEnv, ParallelEnv, BaseWrapper,
                random.Random, np.random.Generator, np.random.BitGenerator, deque)
"""Classes no instance of which may be reachable from what a bot is handed."""

# the walk stops at classes, modules and code (a class reaches its module and so everything) and at enum
# members (global constants such as Role.LEADER, not game state)
_STOP = (type, types.ModuleType, types.CodeType, enum.Enum)
# what may be shared with the game because nothing can change it
_IMMUTABLE = (str, int, float, bool, type(None), bytes, tuple, frozenset, range, enum.Enum, TalkMessage, Deal,
              type, types.ModuleType, types.CodeType, types.FunctionType, types.BuiltinFunctionType)
# met most often by the walk: what refers to nothing (no referents, no __dict__, no slots), and the
# builtin containers, which refer to their items only
_ATOMS = frozenset({str, int, float, bool, type(None), bytes})
_CONTAINERS = frozenset({dict, list, tuple, set, frozenset})


@functools.cache
def _slot_names(cls: type) -> tuple:
    """The names of the ``__slots__`` attributes of ``cls`` and every class in its MRO."""
    out = []
    for c in cls.__mro__:
        names = c.__dict__.get("__slots__", ())
        out += [name for name in ((names,) if isinstance(names, str) else names)
                if name not in ("__dict__", "__weakref__")]
    return tuple(out)


def _slots(o: object) -> list:
    """The values of ``o``'s ``__slots__`` attributes (of every class in its MRO)."""
    out = []
    for name in _slot_names(type(o)):
        try:
            out.append(getattr(o, name))
        except AttributeError:
            pass
    return out


def reachable(*roots: object) -> dict[int, object]:
    """``id -> object`` of everything reachable from ``roots`` (see the module docstring)."""
    seen: dict[int, object] = {}
    todo = list(roots)
    while todo:
        o = todo.pop()
        if id(o) in seen:
            continue
        seen[id(o)] = o
        if type(o) in _ATOMS or isinstance(o, _STOP):
            continue
        if type(o) in _CONTAINERS:                   # their items only: no __dict__, no slots
            todo.extend(gc.get_referents(o))
        elif isinstance(o, types.MethodType):
            todo += (o.__self__, o.__func__)
        elif isinstance(o, types.FunctionType):      # not __globals__: a module's namespace is not game state
            todo += [c.cell_contents for c in o.__closure__ or () if c.cell_contents is not None]
            todo += list(o.__defaults__ or ()) + list((o.__kwdefaults__ or {}).values())
        elif isinstance(o, types.BuiltinMethodType):
            todo.append(o.__self__)
        elif isinstance(o, weakref.ref):
            todo.append(o())
        elif isinstance(o, np.ndarray):
            if o.base is not None:
                todo.append(o.base)
        else:
            todo.extend(gc.get_referents(o))
            d = getattr(o, "__dict__", None)
            if type(d) is dict:
                todo.append(d)
            todo.extend(_slots(o))
    return seen


def assert_hands_nothing_of(game: Game, *handed: object) -> None:
    """Nothing reachable from ``handed`` is :data:`HIDDEN_STATE` or a mutable object ``game`` holds.

    Raises:
        AssertionError: naming the classes found.
    """
    got = reachable(*handed)
    bad = sorted({type(o).__name__ for o in got.values() if isinstance(o, HIDDEN_STATE)})
    assert not bad, f"hidden state reachable from what a bot is handed: {bad}"
    held = reachable(game)
    shared = sorted({type(o).__name__ for i, o in got.items() if i in held and not isinstance(o, _IMMUTABLE)})
    assert not shared, f"mutable objects shared with the game: {shared}"


def play_and_check(form: str, cfg: GameConfig, seed: int, every: int = 1) -> dict:
    """Play one game of random legal actions through ``form`` (``"aec"``: ``treachery_env.env()``,
    ``"parallel"``: ``treachery_env.parallel_env()``), checking what is handed at every
    ``every``-th decision and at the end.  Returns counts of what was checked."""
    rng = np.random.default_rng(seed)
    done = {"decisions": 0, "checked": 0, "ends": 0}

    def at_decision(game: Game, handed: tuple, info: dict) -> None:
        view = info["view"]
        assert isinstance(view, SeatView)
        if done["decisions"] % every == 0:
            assert_hands_nothing_of(game, *handed, view.to_dict())
            done["checked"] += 1
        done["decisions"] += 1

    if form == "aec":
        e = treachery_env.env(config=cfg)
        e.reset(seed=seed)
        game = e.unwrapped.game
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                assert_hands_nothing_of(game, obs, reward, info, e.rewards, e.infos)
                done["ends"] += 1
                e.step(None)
                continue
            at_decision(game, (obs, info), info)
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    else:
        e = treachery_env.parallel_env(config=cfg)
        observations, infos = e.reset(seed=seed)
        game = e.unwrapped.game
        while e.agents:
            acting = next(a for a in e.agents if observations[a]["action_mask"].any())
            at_decision(game, (observations, infos), infos[acting])
            actions = {a: 0 for a in e.agents}
            actions[acting] = int(rng.choice(np.flatnonzero(observations[acting]["action_mask"])))
            observations, rewards, terms, truncs, infos = e.step(actions)
            if not e.agents:
                assert_hands_nothing_of(game, observations, rewards, terms, truncs, infos)
                done["ends"] += len(rewards)
    assert game.is_over
    return done


# every (variant, table size) at least once, as explicit examples; then hypothesis's draws
_SWEEP = [(v, n) for v in VARIANTS for n in range(4, 13)]


def _with_sweep(test):
    for k, (variant, n) in enumerate(_SWEEP):
        test = example(variant=variant, n=n, talk=("structured", "none")[k // 2 % 2], form=("aec", "parallel")[k % 2],
                       seed=k, max_turns=2 * n + 4)(test)
    return test


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@_with_sweep
@given(variant=st.sampled_from(VARIANTS), n=st.integers(4, 12), talk=st.sampled_from(["structured", "none"]),
       form=st.sampled_from(["aec", "parallel"]), seed=st.integers(0, 2**31 - 1), max_turns=st.integers(1, 40))
def test_nothing_handed_reaches_the_game(variant, n, talk, form, seed, max_turns):
    """Every variant, table size and entry point: at every decision and at the end, nothing the
    acting seat (or, in the parallel form, any seat) is handed reaches hidden state."""
    cfg = GameConfig(num_players=n, variant=variant, talk=talk, max_turns=max_turns)
    # the parallel form shows every seat's priority: about five times the decisions of the AEC env
    every = (1 if max_turns <= 16 else 3) * (5 if form == "parallel" else 1)
    done = play_and_check(form, cfg, seed, every=every)
    assert done["checked"] >= 1 and done["ends"] == n


@pytest.mark.parametrize("leak,found", [
    (lambda g: g, "hidden state"),                                   # the game itself
    (lambda g: g.step, "hidden state"),                              # a bound method: its __self__
    (lambda g: (lambda: g.players), "hidden state"),                 # a closure over the game
    (lambda g: g.log.append, "shared with the game"),                # a builtin method of the game's log
    (lambda g: weakref.ref(g.rng), "hidden state"),                  # a weak reference (to the game's generator;
    (lambda g: weakref.proxy(g.rng), "hidden state"),                # the engine's own objects take none)
    (lambda g: {"hand": g.players[0].hand}, "shared with the game"),  # a list the game holds
    (lambda g: {"turn": [g.turn]}, None),                            # a fresh list of plain values: fine
])
@pytest.mark.parametrize("form", ["aec", "parallel"])
def test_the_walk_finds_a_leak_in_the_info(monkeypatch, leak, found, form):
    """The check is not vacuous: the same play with one leak injected into the acting seat's
    info fails, whichever way the leak reaches the game (and a harmless extra passes)."""
    original = raw_env._select

    def select_and_leak(self, g, prev):
        original(self, g, prev)
        self.infos[self.agent_selection]["leak"] = leak(g)

    monkeypatch.setattr(raw_env, "_select", select_and_leak)
    cfg = GameConfig(num_players=5, max_turns=3)
    if found is None:
        assert play_and_check(form, cfg, seed=1)["checked"] > 10
    else:
        with pytest.raises(AssertionError, match=found):
            play_and_check(form, cfg, seed=1)
