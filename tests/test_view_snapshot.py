"""What a bot is handed reaches nothing of the game (DESIGN sections 4-5).

``info["view"]`` is a snapshot of values: walking everything reachable from
the info dict and the observation dict (``gc.get_referents``, recursively)
finds no engine object (game, players, creatures, planeswalkers, stack
objects, identity cards, decisions, the talk state, random generators) and
no mutable object the game holds (its lists, dicts, log entries, arrays);
views pickle, deep-copy, and stay the same after the game moves on; the
environment's incremental :class:`~treachery_env.view.ViewBuilder` builds the
same view as :func:`~treachery_env.view.seat_view` from scratch.  The same
holds for what training rollouts hand to rule-based opponents and experts.
"""

from __future__ import annotations

import copy
import enum
import gc
import pickle
import random
import types
from collections import deque

import numpy as np
import pytest

import agents
from treachery_env import GameConfig
from treachery_env.engine import (Attackable, Creature, Decision, Game, IdentityCard, Player, StackItem, TalkMessage,
                                  TalkState)
from treachery_env.engine.talk import Deal
from treachery_env.env import raw_env
from treachery_env.rules import Role
from treachery_env.view import FrozenDict, SeatView, ViewBuilder, freeze, seat_view

ENGINE_STATE = (Game, Player, Creature, Attackable, StackItem, IdentityCard, Decision, TalkState, random.Random,
                np.random.Generator, np.random.BitGenerator, deque)
"""Classes of which no instance may be reachable from what a bot is handed."""

# not walked into: code and classes (a class reaches its module and so everything), and enum members
# (global constants such as Role.LEADER, shared by everyone; not game state)
_NOT_WALKED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
               types.CodeType, types.MethodWrapperType, types.WrapperDescriptorType, types.MemberDescriptorType,
               types.GetSetDescriptorType, enum.Enum)
# met most often by the walk, and refer to nothing (gc.get_referents: [])
_ATOMS = frozenset({str, int, float, bool, type(None), bytes})
# objects that may be shared with the game because nothing can change them
_IMMUTABLE = (str, int, float, bool, type(None), bytes, tuple, frozenset, range, enum.Enum, TalkMessage, Deal)

CONFIGS = [
    dict(),                                                         # the default game: 5 players, table talk
    dict(num_players=4, talk="none"),
    dict(num_players=8, identity_pool="all"),
    dict(num_players=6, variant="simple_roles"),
    dict(num_players=5, variant="backstab_rumble", priority_windows="main"),
    dict(num_players=7, identity_pool="mythic", commander=False),
    dict(num_players=5, concession=[0], mulligans="none"),
]


def reachable(*roots) -> dict:
    """``id -> object`` of everything reachable from ``roots`` through
    ``gc.get_referents`` (and numpy arrays' ``base``), not walking into
    classes, code, modules or enum members."""
    seen: dict = {}
    stack = list(roots)
    while stack:
        o = stack.pop()
        if id(o) in seen:
            continue
        seen[id(o)] = o
        if type(o) in _ATOMS or isinstance(o, _NOT_WALKED):
            continue
        if isinstance(o, np.ndarray):
            if o.base is not None:
                stack.append(o.base)
            continue
        stack.extend(gc.get_referents(o))
    return seen


def assert_nothing_of(games: list, *handed) -> None:
    """Nothing reachable from ``handed`` is engine state or a mutable object
    reachable from one of ``games``."""
    got = reachable(*handed)
    bad = [type(o).__name__ for o in got.values() if isinstance(o, ENGINE_STATE)]
    assert not bad, f"engine state reachable from what a bot is handed: {sorted(set(bad))}"
    held = reachable(*games)
    shared = [o for i, o in got.items() if i in held and not isinstance(o, _IMMUTABLE) and not isinstance(o, type)]
    assert not shared, f"mutable objects shared with the game: {[type(o).__name__ for o in shared][:10]}"


def _play(cfg: GameConfig, seed: int, check) -> int:
    """Random legal play through ``raw_env``; ``check(env, obs, info, seat)`` at every decision."""
    e = raw_env(config=cfg)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        check(e, obs, info, int(agent.split("_")[1]))
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


@pytest.mark.parametrize("kw", CONFIGS, ids=[",".join(f"{k}={v}" for k, v in kw.items()) or "default"
                                             for kw in CONFIGS])
def test_nothing_handed_to_a_bot_reaches_the_game(kw):
    cfg = GameConfig(max_turns=30, **kw)
    kept: list = []
    met = set()

    def check(e, obs, info, seat):
        view = info["view"]
        assert isinstance(view, SeatView) and view.seat == seat
        assert_nothing_of([e.game], obs, info)
        assert view == seat_view(e.game, seat)           # the incremental builder = a view from scratch
        if len(kept) < 40 and e.game.decisions_taken % 17 == 0:
            kept.append((view, pickle.dumps(view)))
        met.update(k for k, there in (("creatures", any(p.creatures for p in view.players)), ("stack", view.stack),
                                      ("talk", view.talk.messages), ("private", any(e["to"] for e in view.events)),
                                      ("shown", any(p.identity for p in view.players if p.seat != seat)))
                   if there)

    assert sum(_play(cfg, seed, check) for seed in (11, 12, 13)) > 300
    assert met >= {"creatures", "stack", "private", "shown"} | ({"talk"} if cfg.talk != "none" else set())
    for view, data in kept:                             # snapshots: the game moving on changed none of them
        assert pickle.dumps(view) == data and pickle.loads(data) == view


def test_the_check_is_not_vacuous():
    """What the old lazy view and lazy observation held is caught: the game
    itself, or any of its parts, or a log entry shared with it."""
    g = Game(GameConfig(), seed=1)

    class Lazy:
        def __init__(self, game):
            self._game = game

    for leak in (Lazy(g), g.players[2].identity, (1, [g.talk]), {"x": g.rng}):
        with pytest.raises(AssertionError, match="engine state"):
            assert_nothing_of([g], {"view": leak})
    for leak in (g.log[0], g.harm, {"events": tuple(g.log)}):
        with pytest.raises(AssertionError, match="shared with the game"):
            assert_nothing_of([g], {"view": leak})
    assert_nothing_of([g], g.observation(g.current_player), {"view": g.view(g.current_player)})


def test_views_pickle_deepcopy_hash_and_are_read_only():
    g = Game(GameConfig(max_turns=30), seed=5)
    rng = random.Random(5)
    b = ViewBuilder(g)
    n = 0
    while not g.is_over:
        v = b.build(g.current_player)
        if n % 7 == 0:
            for w in (pickle.loads(pickle.dumps(v)), copy.deepcopy(v), copy.copy(v)):
                assert w == v and type(w) is SeatView and hash(w) == hash(v)
                assert type(w.me.tokens) is FrozenDict and type(w.talk) is type(v.talk)
                assert all(type(e) is FrozenDict for e in w.events)
        n += 1
        g.step(rng.choice(g.legal_actions()))
    assert n > 100
    with pytest.raises(AttributeError):
        v.turn = 3
    with pytest.raises(TypeError):
        v.me.tokens["Clue"] = 9
    with pytest.raises(TypeError):
        v.events[0]["turn"] = 0
    with pytest.raises(TypeError):
        v.talk.claims.clear()
    assert v.me.tokens == dict(v.me.tokens) and (v.me.tokens | {"x": 1})["x"] == 1


def _same(a, b) -> bool:
    """Equal, and of the same type at every level (``==`` alone takes a tuple for a list and
    an int for a Role)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list, frozenset)):
        return len(a) == len(b) and (a == b if isinstance(a, frozenset) else all(map(_same, a, b)))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(type(a), "__dataclass_fields__"):
        return all(_same(getattr(a, f), getattr(b, f)) for f in type(a).__dataclass_fields__)
    return a == b


@pytest.mark.parametrize("kw", CONFIGS, ids=[",".join(f"{k}={v}" for k, v in kw.items()) or "default"
                                             for kw in CONFIGS])
def test_views_round_trip_through_pickle_deepcopy_and_json(kw):
    """Across random games of every variant (issue #14): every view pickles, deep-copies
    and goes through ``json.dumps`` of :meth:`SeatView.to_dict` and back
    (:meth:`SeatView.from_dict`) to an equal view whose every part has its type."""
    import json

    seen = {"views": 0, "roles": 0, "pairs": 0}

    def check(e, obs, info, seat):
        v = info["view"]
        d = v.to_dict()
        text = json.dumps(d)
        seen["roles"] += '"__role__"' in text
        seen["pairs"] += '"__pairs__"' in text
        for w in (pickle.loads(pickle.dumps(v)), copy.deepcopy(v), SeatView.from_dict(json.loads(text))):
            assert _same(w, v)
        seen["views"] += 1

    _play(GameConfig(max_turns=25, **kw), 3, check)
    assert seen["views"] > 50 and seen["roles"] > 0
    if kw.get("talk", "structured") == "structured":
        assert seen["pairs"] > 0            # talk's mappings by seat pairs


def test_a_dict_that_is_not_a_views_is_refused():
    v = seat_view(Game(GameConfig(), seed=1), 0)
    d = v.to_dict()
    with pytest.raises(ValueError, match="unknown __type__ 'Spy'"):
        SeatView.from_dict({**d, "__type__": "Spy"})
    with pytest.raises(ValueError, match=r"a SeatView without \['turn'\]"):
        SeatView.from_dict({k: x for k, x in d.items() if k != "turn"})
    with pytest.raises(ValueError, match="its top is a PlayerView"):
        SeatView.from_dict(d["players"][0])


def test_events_are_frozen_copies_of_the_log():
    """Each log entry is frozen once; the copy equals the entry frozen at the
    end of the game (entries are never changed after they are logged)."""
    g = Game(GameConfig(num_players=6, max_turns=12), seed=8)
    rng = random.Random(8)
    b = ViewBuilder(g)
    while not g.is_over:
        v = b.build(g.current_player)
        assert all(e["turn"] >= g.turn - 1 and (e["to"] is None or v.seat in e["to"]) for e in v.events)
        g.step(rng.choice(g.legal_actions()))
    b.build(0)
    assert b._frozen == [freeze(e) for e in g.log[b._base:]] and b._frozen[0]["turn"] >= g.turn - 1
    assert freeze({"a": [1, {"b": {2, 3}}], "c": (4, [5])}) == FrozenDict({"a": (1, FrozenDict({"b": frozenset({2, 3})})),
                                                                          "c": (4, (5,))})


def test_builder_follows_a_game_changed_from_outside():
    """The builder compares what it reuses with the game each time, so a game
    changed by hand (scenarios, tests) is viewed right."""
    g = Game(GameConfig(), seed=2)
    rng = random.Random(2)
    b = ViewBuilder(g)
    for _ in range(200):
        g.step(rng.choice(g.legal_actions()))
    s = g.current_player
    assert b.build(s) == seat_view(g, s)
    g.talk.broken[(1, 2)] = g.turn
    g.talk.claims[4] = TalkMessage(g.turn, 4, "claim", None, Role.TRAITOR)
    g.talk.hurt_at_start = tuple(x + 1 for x in g.talk.hurt_at_start)
    g.players[3].life -= 4
    g.log = [dict(e) for e in g.log[:-3]]
    g.turn += 1
    assert b.build(s) == seat_view(g, s)
    assert b.build(s).talk.broken[(1, 2)] == g.turn - 1 and b.build(s).talk.claims[4].role == Role.TRAITOR


class _Recorder:
    """A rule-based bot that checks what it is handed against the collector's live games."""

    def __init__(self, bot, collector_box: list):
        self.bot, self.box = bot, collector_box
        self.calls = 0
        self.uses_observation_vector = bot.uses_observation_vector

    def reset(self, seat: int) -> None:
        self.bot.reset(seat)

    def act(self, observation: dict, info: dict) -> int:
        col = self.box[0]
        assert_nothing_of([s.env.game for s in col.slots], observation, info)
        assert isinstance(info["view"], SeatView)
        assert "observation" in observation or not self.uses_observation_vector
        self.calls += 1
        return self.bot.act(observation, info)


def test_rollouts_hand_bots_nothing_of_the_game(tmp_path, monkeypatch):
    from training.config import TrainConfig
    from training import rollout

    box: list = []
    made: list = []
    real_make = agents.make

    def make(spec, seed=None):
        r = _Recorder(real_make(spec, seed=seed), box)
        made.append(r)
        return r

    monkeypatch.setattr(rollout.agents, "make", make)
    cfg = TrainConfig(run_dir=str(tmp_path / "run"), seed=3, rollout_steps=100, games_per_worker=3, hidden=16,
                      imitation=0.5, opponents={"heuristic": 1, "belief": 1, "random": 1},
                      game=dict(num_players=5, max_turns=6))
    col = rollout.Collector(cfg, seed=2)
    box.append(col)
    col.collect(150, label_expert=True)
    assert sum(r.calls for r in made) > 100
