"""Game.clone (issue #12, speed): the fast copy of treachery_env/engine/clone.py
is an exact, independent deep copy.

* exact: the clone pickles to the same bytes as the original (same values,
  same shared references, same set and dict orders, same random state);
* independent: the two share no mutable object (the log's entries, records
  the engine never changes, and the card and identity definitions aside), and
  mutating every mutable object of the clone leaves the original's pickle
  unchanged;
* it continues identically: the same actions on the clone and on a copy
  made by pickling give the same digests, observations, views, logs and
  random streams, in random games of every variant, both window modes, talk
  on and off, planeswalkers and identity abilities in play.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections import deque
from enum import Enum

import numpy as np
import pytest

from treachery_env import GameConfig
from treachery_env.engine import Game
from treachery_env.engine.clone import ATOMIC_TYPES, static_data
from treachery_env.engine.state import slot_names
from treachery_env.rules import VARIANTS


def _rebind(x: object, name: str, marker: object) -> None:
    """Set attribute ``name`` of ``x`` to ``marker``, or, where it is a typed C
    field that holds only its type (compiled ``engine/state.pxd``), to another
    value of that type (or None): the copy's attribute changes either way."""
    try:
        setattr(x, name, marker)
    except TypeError:
        v = getattr(x, name)
        setattr(x, name, (not v) if isinstance(v, bool) else v + 1 if isinstance(v, int)
                else type(v)() if isinstance(v, (list, dict)) else None)     # None: a field of a state type


def _mutable_objects(g: Game) -> dict[int, object]:
    """Every mutable object reachable from ``g``'s state, by id: lists, dicts,
    sets, deques, state objects, the random stream; not the log's entries,
    nor the definitions' data (:func:`static_data`) and immutable values."""
    static = static_data()
    out: dict[int, object] = {}
    stack = [getattr(g, s) for s in slot_names(type(g)) if s != "log"]
    assert len(stack) > 40           # the game's whole state
    out[id(g.log)] = g.log
    while stack:
        x = stack.pop()
        if type(x) in ATOMIC_TYPES or isinstance(x, Enum) or id(x) in static or id(x) in out:
            continue
        if isinstance(x, (tuple, frozenset)):       # immutable themselves: look inside
            stack.extend(x)
            continue
        out[id(x)] = x
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, set, deque)):
            stack.extend(x)
        elif isinstance(x, random.Random):
            continue                                # no objects inside: its state is numbers
        elif hasattr(type(x), "__slots__"):
            stack.extend(getattr(x, s) for s in slot_names(type(x)) if hasattr(x, s))
        else:
            stack.extend(vars(x).values())
    return out


def _configs() -> list[tuple[GameConfig, int]]:
    """(config, lands per player or 0) covering variants, tables, windows and talk."""
    out = []
    for k in range(10):
        rng = random.Random(k)
        cfg = GameConfig(num_players=4 + k % 5, variant=VARIANTS[k % len(VARIANTS)], identity_pool="all",
                         priority_windows=("full", "main")[k % 2], talk=("structured", "none")[k % 3 == 2],
                         starting_life=rng.choice([None, 12]), max_turns=60, commander=k % 4 != 3)
        out.append((cfg, 10 if k % 2 else 0))
    out.append((GameConfig(num_players=4, decks=["aggro", "tokens", "control", "ramp"], max_turns=30), 8))
    out.append((GameConfig(), 0))
    return out


def _start(cfg: GameConfig, seed: int, lands: int) -> Game:
    g = Game(cfg, seed=seed)
    if lands:
        for p in g.players:
            p.lands = lands
        g._advance()
    return g


def _same(a: Game, b: Game) -> None:
    assert a.digest() == b.digest()
    assert a.log == b.log and a.actions == b.actions and a.rng.getstate() == b.rng.getstate()
    assert a.legal_actions() == b.legal_actions()
    if not a.is_over:
        s = a.current_player
        oa, ob = a.observation(s), b.observation(s)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert a.view(s) == b.view(s)


@pytest.mark.parametrize("k", range(12))
def test_clone_is_exact_independent_and_continues_identically(k):
    """Clones taken every few decisions of a random game (ten of them) are
    exact (same pickle) and share no mutable object with the original; each
    plays on for up to 40 actions exactly like a pickled copy, and the
    original is untouched."""
    cfg, lands = _configs()[k]
    g = _start(cfg, 300 + k, lands)
    rng = random.Random(k)
    clones = 0
    while not g.is_over:
        if rng.random() < 0.08 and clones < 10:
            before = pickle.dumps(g)
            h = g.clone()
            assert pickle.dumps(h) == before
            assert not set(_mutable_objects(g)) & set(_mutable_objects(h))
            ref = pickle.loads(before)
            r = random.Random(clones)
            for _ in range(40):
                if h.is_over:
                    break
                a = r.choice(h.legal_actions())
                h.step(a)
                ref.step(a)
                _same(h, ref)
            assert pickle.dumps(g) == before
            clones += 1
        g.step(rng.choice(g.legal_actions()))
    assert clones >= 3


def test_mutating_a_clone_leaves_the_original_untouched():
    """Every mutable object of a clone (lists, dicts, sets, the queue, every
    slot of every state object, the random stream) is changed; the original
    pickles as before and plays on as before."""
    for k, (cfg, lands) in enumerate(_configs()[:6]):
        g = _start(cfg, 500 + k, lands)
        rng = random.Random(k)
        for _ in range(150 + 40 * k):
            if g.is_over:
                break
            g.step(rng.choice(g.legal_actions()))
        before = pickle.dumps(g)
        h = g.clone()
        marker = object()
        for x in _mutable_objects(h).values():
            if isinstance(x, (list, deque)):
                x.append(marker)
            elif isinstance(x, dict):
                x[marker] = marker
            elif isinstance(x, set):
                x.add(marker)
            elif isinstance(x, random.Random):
                x.random()
            elif hasattr(type(x), "__slots__"):
                for s in slot_names(type(x)):
                    _rebind(x, s, marker)
            else:
                vars(x)["_marker"] = marker
        assert pickle.dumps(g) == before


def test_deepcopy_is_the_fast_clone_and_honours_its_memo():
    """``copy.deepcopy(game)`` is the clone; entries already in the memo are
    used (``agents.ismcts.fast_clone`` drops the log and the replay and seeds a
    new random stream that way)."""
    from agents.ismcts import fast_clone

    g = _start(GameConfig(), 7, 0)
    rng = random.Random(0)
    for _ in range(300):
        g.step(rng.choice(g.legal_actions()))
    assert pickle.dumps(copy.deepcopy(g)) == pickle.dumps(g)
    f = fast_clone(g, seed=3)
    assert f.log == [] and f.actions == [] and f.rng.getstate() == random.Random(3).getstate()
    assert f.digest() == g.digest() and f.players[0].hand == g.players[0].hand
    assert f.players[0].hand is not g.players[0].hand and f.players[0] is not g.players[0]


def test_clone_copies_values_it_does_not_know():
    """State of a type the copiers don't know (here an object an identity
    might store) is deep-copied with the same memo, so references to the
    game's objects inside it stay shared in the copy."""
    class Note:
        def __init__(self, creature):
            self.creature = creature
            self.seen = [creature]

    g = _start(GameConfig(num_players=4, decks=["aggro", "tokens", "control", "ramp"]), 3, 8)
    rng = random.Random(1)
    while not any(p.creatures for p in g.players):
        g.step(rng.choice(g.legal_actions()))
    c = next(c for p in g.players for c in p.creatures)
    g.players[0].identity.data["note"] = Note(c)
    g.players[0].identity.data["pair"] = (c, frozenset({c}))
    h = g.clone()
    hc = next(x for p in h.players for x in p.creatures if x.uid == c.uid)
    note = h.players[0].identity.data["note"]
    assert note is not g.players[0].identity.data["note"]
    assert note.creature is hc and note.seen[0] is hc and hc is not c
    pair = h.players[0].identity.data["pair"]
    assert pair[0] is hc and next(iter(pair[1])) is hc


def test_a_subclass_of_game_keeps_its_own_attributes_in_a_clone():
    """``Game`` keeps its state in ``__slots__`` (no instance dict); a subclass
    gets one, and ``clone()`` copies it too (deeply: the copy's list is its own),
    with every slot of the game."""
    class Tagged(Game):
        pass

    g = Tagged(GameConfig(num_players=4), seed=3)
    with pytest.raises(AttributeError):
        Game(GameConfig(num_players=4), seed=3).note = 1      # the plain game takes no new names
    g.note = ["a"]
    y = g.clone()
    assert type(y) is Tagged and y.note == ["a"] and y.note is not g.note
    assert y.digest() == g.digest()
