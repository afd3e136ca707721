"""The compiled parts: the observation encoder (``treachery_env._observation``,
Cython) is the Python one (``observation.encode_python``) bit for bit (the
compiled view builder against the Python one: ``test_view_compiled.py``, the
compiled priority check against ``Game._can_act``: ``test_engine_fast_paths.py``); they
and the engine's modules compiled from their source (``treachery_env.compiled``)
are built wherever a C compiler is; and the rules, observation, view and
history tests pass on the pure-Python path too (``TREACHERY_PURE_PYTHON=1``)."""

from __future__ import annotations

import importlib
import os
import random
import shlex
import shutil
import subprocess
import sys
import sysconfig
import types
from pathlib import Path

import numpy as np
import pytest

from treachery_env import GameConfig, cards, view
from treachery_env import observation as obs
from treachery_env.compiled import compiled_modules
from treachery_env.engine import Attackable, Creature, Game, StackItem, priority
from treachery_env.engine.talk import Deal, TalkMessage
from treachery_env.identities import get as identity
from treachery_env.rules import VARIANTS, Role

from conftest import run_on_copy

ROOT = Path(__file__).resolve().parent.parent

compiled = pytest.mark.skipif(obs.ENCODER != "compiled", reason="the compiled encoder is not in use "
                              "(not built, or TREACHERY_PURE_PYTHON=1; see test_compiled_parts_are_built)")


def _configs() -> list[GameConfig]:
    """Every variant at every table size (4-12), the other options in turn: talk
    structured / none, priority windows full / main, London mulligans / none,
    Commander on / off; identities from every implemented one."""
    out = []
    for n in range(4, 13):
        for v, variant in enumerate(VARIANTS):
            k = n + v
            out.append(GameConfig(num_players=n, variant=variant, identity_pool="all", max_turns=10 * n,
                                  talk=("structured", "none")[k % 3 == 2], priority_windows=("full", "main")[k % 2],
                                  mulligans=("london", "none")[(k // 2) % 2], commander=bool((k // 3) % 2 == 0)))
    return out


def _same(g: Game, seen: dict) -> None:
    """Both encoders give the same bytes for every seat of ``g``; counts what the state shows in ``seen``."""
    for seat in range(g.n):
        a, b = obs.encode(g, seat), obs.encode_python(g, seat)
        assert a.dtype == b.dtype == np.float32 and a.shape == b.shape == (obs.obs_layout(g.n).size,)
        if a.tobytes() != b.tobytes():
            bad = np.flatnonzero(a != b)
            raise AssertionError(f"seat {seat}, turn {g.turn}, {g.config}: features {bad[:10].tolist()} differ: "
                                 f"compiled {a[bad[:10]].tolist()}, python {b[bad[:10]].tolist()}")
        cols, vals = obs.encode_sparse(g, seat)          # by its nonzeros: the same indices and bytes
        assert cols.dtype == np.int32 and vals.dtype == np.float32
        assert np.array_equal(cols, np.flatnonzero(b)) and vals.tobytes() == b[cols].tobytes()
    seats = list(range(g.n))                             # every seat's at once: the same rows, one after another
    for nnz, cols, vals in (obs.encode_sparse_rows([g] * g.n, seats), obs.encode_sparse_rows_python([g] * g.n, seats)):
        assert nnz.dtype == np.int64 and cols.dtype == np.int32 and vals.dtype == np.float32
        rows = [obs.encode_sparse_python(g, seat) for seat in seats]
        assert nnz.tolist() == [len(c) for c, _ in rows]
        assert cols.tobytes() == np.concatenate([c for c, _ in rows]).tobytes()
        assert vals.tobytes() == np.concatenate([v for _, v in rows]).tobytes()
    if g.decision is not None:     # the compiled mask is the Python one too
        size = g.layout.size
        a, b = obs.action_mask(g.decision.options, size), obs.action_mask_python(g.decision.options, size)
        assert a.dtype == b.dtype == np.int8 and a.shape == b.shape == (size,) and a.tobytes() == b.tobytes()
    t = g.talk
    for key, present in (("talk", t.messages), ("stances", t.stances), ("intents", t.intents), ("deals", t.deals),
                         ("broken truces", t.broken), ("stack targets", any(it.targets for it in g.stack)),
                         ("planeswalkers", any(p.attackables for p in g.players)),
                         ("attackers", any(c.attacking >= 0 for p in g.players for c in p.creatures)),
                         ("blockers", any(c.blocking is not None for p in g.players for c in p.creatures)),
                         ("pumped", any(c.pump_kw or c.pump_p for p in g.players for c in p.creatures)),
                         ("identities seen face down", any(not p.identity.face_up and len(p.identity.known_by) > 1
                                                           for p in g.players)),
                         ("identity counters", any(p.identity.counters for p in g.players)),
                         ("commander damage", any(p.cmd_damage for p in g.players)),
                         ("mulligans", any(p.mulligans for p in g.players)),
                         ("lost players", any(p.has_lost for p in g.players)),
                         ("face-down exile", any("dream" in p.identity.data for p in g.players)),
                         ("cards usable from other zones", any(p.permissions for p in g.players)),
                         ("declared creature",
                          g.decision is not None and g.decision.declared_creature(g.decision.seat))):
        seen[key] = seen.get(key, 0) + bool(present)


@compiled
def test_both_encoders_give_the_same_bytes_at_every_decision():
    """27 random games (every variant x 4-12 players, the options in turn): at
    every decision, for every seat, the compiled vector has the bytes of the
    Python one, and so has a clone every 200 decisions; the games reach talk (stances, intents, truces kept and broken),
    the stack, planeswalkers, combat, pumps, identities known face down,
    commander damage, mulligans, players out of the game, The Oneiromancer's
    face-down exile, cards usable from other zones and declared creatures."""
    seen: dict = {}
    decisions = 0
    for k, cfg in enumerate(_configs()):
        g = Game(cfg, seed=1000 + k)
        rng = random.Random(k)
        while not g.is_over:
            _same(g, seen)
            decisions += 1
            if decisions % 200 == 0:
                _same(g.clone(), {})        # a clone's objects are new, its immutable ones shared
            g.step(rng.choice(g.legal_actions()))
        _same(g, seen)
    assert decisions > 5000, decisions
    assert all(seen.values()) and len(seen) == 18, seen


def _hand_set_game() -> Game:
    """A state set by hand: more hand cards, creatures, stack objects,
    planeswalkers and cards usable from other zones than the observation has
    slots; a copied identity with a kept role (The Wearer of Masks), shown to
    one seat; negative life, counters and tokens of every kind; stun counters,
    X, keywords granted this turn, a planeswalker someone else owns, one used
    this turn and attacked; talk older than a round (fading), a truce and a
    truce broken."""
    g = Game(GameConfig(num_players=6), seed=5)
    turn = g.turn = 9
    shock, bolt = cards.card("Shock"), cards.card("Blaze")
    walker = cards.WALKER_CARDS[0]
    p0, p1, p2 = g.players[:3]
    p0.hand = [shock, bolt] * 10
    p0.life, p0.mana_pool, p0.mulligans = -3, 5, 2
    p0.counters = {"gem": 4, "rad": 12}
    p0.tokens = {**p0.tokens, "Treasure": 3, "Clue": 1}
    p0.cmd_damage = {1: 9, 2: 22}
    for k in range(10):
        g.grant_permission(0, shock if k % 2 else bolt, 1, "graveyard")
    p1.identity.copy_of = identity("The Bodyguard")
    p1.identity.role_override = Role.TRAITOR
    p1.identity.known_by.add(0)
    p1.identity.counters = {"seed": 3, "void": 2}
    p2.attackables = [Attackable(500 + k, "planeswalker", walker, 3 if k == 1 else 2, 2, 3 + k, turn) for k in range(6)]
    p2.attackables[0].used_turn = turn
    p0.creatures = []
    for k in range(25):
        c = Creature(100 + k, f"Bear {k}", None, bool(k % 2), 0, 2 + k, 2, frozenset({"flying", "trample"}),
                     turn - k % 3)
        c.stun, c.p1p1, c.damage, c.tapped, c.is_commander = k % 3, k % 4, k % 2, bool(k % 2), k == 3
        c.pump_kw, c.pump_p = (frozenset({"haste"}), 2) if k % 5 == 0 else (frozenset(), 0)
        c.attacking, c.attacking_obj = (2, p2.attackables[k % 6]) if k % 4 == 0 else (-1, None)
        p0.creatures.append(c)
    g.combat_attackers = [c for c in p0.creatures if c.attacking >= 0]
    blocker = Creature(200, "Wall", None, False, 1, 0, 4, frozenset({"defender", "reach"}), 0)
    blocker.blocking = p0.creatures[0]
    p0.creatures[0].blocked_by = [blocker]
    p1.creatures = [blocker]
    g.stack = []
    for k in range(13):
        it = StackItem(300 + k, "spell" if k % 2 else "ability", k % 6, bolt if k % 2 else None,
                       identity_source=k % 3 == 0)
        it.x = k
        it.targets = [("p", (k + 1) % 6), None, ("w", p2.attackables[1]), ("c", blocker)]
        g.stack.append(it)
    t = g.talk
    for m in (TalkMessage(1, 3, "claim", None, Role.LEADER), TalkMessage(2, 4, "accuse", 1, Role.ASSASSIN),
              TalkMessage(8, 1, "defend", 0), TalkMessage(9, 2, "threaten", 5), TalkMessage(9, 5, "protect", 2),
              TalkMessage(9, 0, "request"), TalkMessage(9, 0, "offer", 3), TalkMessage(9, 3, "accept", 0)):
        t.record(m)
    t.deals = [Deal(0, 3, turn), Deal(1, 2, turn)]
    t.broken = {(4, 5): 2, (5, 4): 8}
    g.players[2].has_lost = True      # its truce with seat 1 no longer shows
    return g


@compiled
def test_both_encoders_agree_beyond_what_random_play_reaches():
    """The state set by hand (:func:`_hand_set_game`) gives the same bytes."""
    _same(_hand_set_game(), {})


@compiled
def test_the_kept_talk_block_follows_every_change_of_the_talk_state():
    """The compiled encoder keeps each viewer's talk block while the talk state is
    the same: a change made in place (a dict entry, a message, a truce, a broken
    truce, a player leaving, the turn) or a new talk state (a clone) is seen at once."""
    g = _hand_set_game()
    t = g.talk
    changes = [
        lambda: t.claims.__setitem__(1, TalkMessage(g.turn, 1, "claim", None, Role.TRAITOR)),
        lambda: t.requests.__setitem__(4, TalkMessage(g.turn, 4, "request")),
        lambda: t.stances.__setitem__((0, 5), TalkMessage(g.turn, 0, "accuse", 5, Role.GUARDIAN)),
        lambda: t.intents.pop((2, 5)),
        lambda: t.record(TalkMessage(g.turn, 1, "defend", 3)),
        lambda: t.deals.append(Deal(4, 5, g.turn)),
        lambda: t.deals.pop(0),
        lambda: t.broken.__setitem__((0, 1), g.turn),
        lambda: setattr(g.players[3], "has_lost", True),
        lambda: setattr(g, "turn", g.turn + 6),
        lambda: t.deals.__setitem__(0, Deal(3, 0, g.turn)),
    ]
    _same(g, {})
    for change in changes:
        change()
        _same(g, {})
        _same(g, {})                       # given again from the kept blocks
    _same(g.clone(), {})


@compiled
def test_the_kept_talk_block_is_brought_up_to_date_not_made_again():
    """A kept talk block whose talk state changed (a message said, a stance replaced by another
    role's, a claim, an answer to a truce offer, a truce broken or made, a new turn, an older
    turn's message) is brought up to date from its snapshots, with the bytes of the Python
    encoder; a change the snapshots cannot follow (an entry removed, a seat outside the table)
    makes it again."""
    from treachery_env import _observation as co
    g = _hand_set_game()
    t = g.talk
    _same(g, {})
    _, updated, made = co.talk_kept_counts()
    followed = [
        lambda: t.record(TalkMessage(g.turn, 2, "accuse", 4, Role.LEADER)),
        lambda: t.record(TalkMessage(g.turn, 2, "accuse", 4, Role.TRAITOR)),
        lambda: t.record(TalkMessage(g.turn, 3, "claim", None, Role.GUARDIAN)),
        lambda: t.record(TalkMessage(g.turn, 1, "accept")),
        lambda: t.record(TalkMessage(g.turn, 5, "threaten", 0)),
        lambda: t.record(TalkMessage(g.turn, 0, "request")),
        lambda: t.broken.__setitem__((2, 3), g.turn),
        lambda: t.deals.append(Deal(1, 4, g.turn)),
        lambda: setattr(g, "turn", g.turn + 1),
        lambda: setattr(g, "turn", g.turn + g.n),
        lambda: t.messages.append(TalkMessage(g.turn - 3, 0, "request")),
        lambda: setattr(g.players[3], "has_lost", True),     # seat 3 had a truce
    ]
    for change in followed:
        change()
        _same(g, {})
        _same(g, {})
    _, updated2, made2 = co.talk_kept_counts()
    assert made2 == made and updated2 - updated == len(followed) * g.n
    for change in (lambda: t.stances.pop(next(iter(t.stances))),
                   lambda: t.claims.__setitem__(g.n + 2, TalkMessage(g.turn, 2, "claim", None, Role.LEADER)),
                   lambda: t.record(TalkMessage(g.turn, 4, "defend", 1))):
        change()
        _same(g, {})
    assert co.talk_kept_counts()[2] == made2 + 3 * g.n       # the seat outside the table: made every time


@compiled
def test_legal_actions_and_the_observation_dict_match_their_references():
    """The compiled ``legal_actions`` and ``observation_dict`` (what ``Game.legal_actions`` and
    ``Game.observation`` give) are the Python ones: at every decision of a random game, and for
    options out of order, with repeats, numpy or huge ints, lists for pairs, a tuple of options."""
    g = Game(GameConfig(num_players=5), seed=3)
    rng = random.Random(3)
    while True:
        for seat in range(g.n):
            a, b = g.observation(seat), obs.observation_dict_python(g, seat)
            assert list(a) == list(b) == ["observation", "action_mask"]
            for k in a:
                assert a[k].dtype == b[k].dtype and a[k].tobytes() == b[k].tobytes()
        if g.is_over:
            break
        legal = g.legal_actions()
        assert legal == obs.legal_actions_python(g.decision.options) and all(type(x) is int for x in legal)
        g.step(rng.choice(legal))
    assert g.legal_actions() == [] and not g.legal_action_mask().any()
    for options in ([(3, None), (1, "x"), (2, 0)], [(1, 0), (1, 1), (0, 2)], [], [(np.int64(4), 0), (2, 0)],
                    [(2**70, 0), (1, 0)], ((5, 0), (1, 0)), [[3, 0], (1, 0)]):
        assert obs.legal_actions(options) == obs.legal_actions_python(options)

@compiled
def test_the_compiled_encoder_returns_a_fresh_array_each_call():
    """Callers may keep what ``encode`` returns: a new writable float32 array per call."""
    g = Game(GameConfig(), seed=0)
    a, b = obs.encode(g, 0), obs.encode(g, 0)
    assert a is not b and not np.shares_memory(a, b) and a.flags.writeable and a.flags.c_contiguous
    a[:] = 7.0
    assert np.array_equal(b, obs.encode_python(g, 0))


@pytest.mark.parametrize("encoder", [obs.encode, obs.encode_python, obs.encode_sparse, obs.encode_sparse_python],
                         ids=["encode", "encode_python", "encode_sparse", "encode_sparse_python"])
def test_a_seat_outside_the_table_is_refused(encoder):
    g = Game(GameConfig(num_players=8), seed=0)
    for seat in (-1, 8):
        with pytest.raises(IndexError, match=f"^viewer {seat} is outside the table of 8$"):
            encoder(g, seat)


def test_the_sparse_encoder_starts_clean_after_a_refusal_and_across_table_sizes():
    """``encode_sparse`` keeps a scratch row between calls: a refused seat, a
    bigger table and a smaller one after it leave nothing in it (each call gives
    the dense vector's nonzeros exactly)."""
    games = [Game(GameConfig(num_players=n), seed=n) for n in (5, 12, 4, 5)]
    for g in games:
        for _ in range(40):
            g.step(g.legal_actions()[0])
    for g in games:
        with pytest.raises(IndexError):
            obs.encode_sparse(g, g.n)
        for seat in range(g.n):
            x = obs.encode_python(g, seat)
            cols, vals = obs.encode_sparse(g, seat)
            assert np.array_equal(cols, np.flatnonzero(x)) and np.array_equal(vals, x[cols]) and len(cols) > 20


@pytest.mark.parametrize("rows", [obs.encode_sparse_rows, obs.encode_sparse_rows_python],
                         ids=["encode_sparse_rows", "encode_sparse_rows_python"])
def test_sparse_rows_of_tables_of_every_size_refuse_a_bad_seat_and_start_clean_after(rows):
    """``encode_sparse_rows`` gathers several observations' nonzeros (a collector's batch), across
    tables of different sizes in one call; a seat outside its table is refused (IndexError, as
    ``encode``), as are lists of different lengths (ValueError), and the call after a refusal gives
    each row exactly again (the compiled one keeps a scratch row and a growing row buffer)."""
    games = [Game(GameConfig(num_players=n), seed=n) for n in (5, 12, 4, 5)]
    for g in games:
        for _ in range(40):
            g.step(g.legal_actions()[0])
    pairs = [(g, seat) for g in games for seat in range(g.n)] * 3           # rows enough to grow the buffer
    with pytest.raises(IndexError, match="^viewer 12 is outside the table of 12$"):
        rows([games[0], games[1]], [0, 12])
    with pytest.raises(ValueError, match="^2 games and 1 viewers$"):
        rows(games[:2], [0])
    nnz, cols, vals = rows([g for g, _ in pairs], [s for _, s in pairs])
    assert len(nnz) == len(pairs) and nnz.sum() == len(cols) == len(vals)
    ends = np.cumsum(nnz)
    for (g, seat), end, k in zip(pairs, ends, nnz):
        x = obs.encode_python(g, seat)
        assert np.array_equal(cols[end - k:end], np.flatnonzero(x)) and np.array_equal(vals[end - k:end], x[np.flatnonzero(x)])
    empty = rows([], [])
    assert [a.shape for a in empty] == [(0,), (0,), (0,)] and [a.dtype for a in empty] == [np.int64, np.int32, np.float32]


@compiled
def test_engine_objects_read_as_typed_fields_and_the_talk_state_at_its_slots(monkeypatch):
    """The compiled encoder reads the game, Player, Creature, ... as the C fields of
    their extension types (engine/state.pxd; an object of another type where one is
    expected is refused with a TypeError, never read at the wrong offset), and the
    talk state straight from its ``__slots__`` (``_observation.slot_reads``: all of
    them, or the talk state changed shape and the encoder lost its fast path); a
    talk state class changed after import is read through ``getattr`` and still
    gives the Python encoder's bytes."""
    from treachery_env import _observation
    from treachery_env.compiled import state_compiled
    from treachery_env.engine.talk import TalkState
    assert state_compiled()
    reads = _observation.slot_reads()
    assert reads and all(name.startswith("TalkState.") for name in reads), reads
    assert all(reads.values()), [name for name, direct in reads.items() if not direct]
    g = _hand_set_game()
    with pytest.raises(TypeError):
        obs.encode(types.SimpleNamespace(**{k: getattr(g, k) for k in ("n", "players", "turn")}), 0)
    keep = g.players[1]
    g.players[1] = types.SimpleNamespace(**{k: getattr(keep, k) for k in ("life", "hand", "has_lost", "identity")})
    with pytest.raises(TypeError):
        obs.encode(g, 0)
    g.players[1] = keep
    _same(g, {})
    slot = TalkState.__dict__["broken"]
    monkeypatch.setattr(TalkState, "broken", property(lambda self: slot.__get__(self)))
    assert not _observation.slot_reads()["TalkState.broken"]
    _same(g, {})
    monkeypatch.undo()
    assert _observation.slot_reads()["TalkState.broken"]
    _same(g, {})


def _c_compiler_works(tmp: Path) -> bool:
    """Whether the C compiler Python's build uses (``$CC`` or sysconfig's) compiles against ``Python.h``."""
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    if not cc or shutil.which(cc[0]) is None:
        return False
    src = tmp / "probe.c"
    src.write_text("#include <Python.h>\nint probe(void) { return Py_IsInitialized(); }\n")
    r = subprocess.run([*cc, "-c", str(src), "-o", str(tmp / "probe.o"), f"-I{sysconfig.get_paths()['include']}"],
                       capture_output=True, timeout=120, check=False)
    return r.returncode == 0


def test_compiled_parts_are_built(tmp_path):
    """Where a C compiler works, the install built the encoder, the view builder,
    the priority check, the GRU's gate kernels and every module of ``compiled.MODULES``
    (a broken build must not fall back to Python silently); ``observation.ENCODER``,
    ``view.VIEW_BUILDER``, ``engine.priority.CAN_ACT`` and ``agents.networks.GRU_GATES``
    name the ones in use."""
    from agents.networks import GRU_GATES
    if not _c_compiler_works(tmp_path):
        pytest.skip("no working C compiler with Python.h here: the pure-Python source is expected")
    if os.environ.get("TREACHERY_PURE_PYTHON") == "1":
        assert obs.ENCODER == view.VIEW_BUILDER == priority.CAN_ACT == "python" and GRU_GATES == "torch"
        assert not any(compiled_modules().values())
        return
    assert GRU_GATES == "compiled", "a C compiler works but agents._gru_gates is not in use; `make install`"
    for name in ("treachery_env._observation", "treachery_env._view", "treachery_env._priority"):
        try:
            importlib.import_module(name)
        except ImportError as e:
            pytest.fail(f"a C compiler works but {name} does not import ({e}); "
                        f"rebuild it with `make install` (pip install -e .)")
    assert obs.ENCODER == view.VIEW_BUILDER == priority.CAN_ACT == "compiled"
    missing = [m for m, c in compiled_modules().items() if not c]
    assert not missing, f"not compiled: {missing}; rebuild with `make install` (pip install -e .)"


def _probe_with_a_newer_source(copy: Path, source: Path, ext: Path, probe: str) -> subprocess.CompletedProcess:
    """Run ``probe`` on the packages' copy ``copy`` (:func:`conftest.package_copy`) where the copy
    of ``source`` (a file of the checkout) is a minute newer than that of its extension ``ext``."""
    newer = (copy / ext.resolve().relative_to(ROOT)).stat().st_mtime + 60
    os.utime(copy / source.relative_to(ROOT), (newer, newer))
    return run_on_copy(copy, probe, timeout=120)


def test_nothing_compiled_runs_the_python_silently(package_copy):
    """Every extension is optional (no C compiler at install time): a package with none built
    runs its Python, and says nothing on import (it warned, for each compiled module, that "the
    compiled module is older" than its source, where none existed: a fresh user's trial)."""
    for ext in [*package_copy.rglob("*.so"), *package_copy.rglob("*.pyd")]:
        ext.unlink()
    r = run_on_copy(package_copy, "import treachery_env, treachery_env.env, treachery_env.view as v, "
                                  "treachery_env.observation as o; print(o.ENCODER)", timeout=120)
    assert r.returncode == 0 and r.stdout.split() == ["python"], r.stdout + r.stderr
    assert "Warning" not in r.stderr, r.stderr


def test_a_compiled_module_older_than_its_source_is_not_used(package_copy):
    """An edited ``.py`` takes effect before ``make install`` compiles it again:
    its stale extension is skipped, with a warning that says so."""
    ext = Path(importlib.import_module("treachery_env.engine.turn").__file__)
    if ext.suffix == ".py":
        pytest.skip("treachery_env.engine.turn is not compiled here")
    r = _probe_with_a_newer_source(
        package_copy, ext.parent / "turn.py", ext,
        "import treachery_env.compiled as c; print(c.compiled_modules()['treachery_env.engine.turn'])")
    assert r.stdout.strip() == "False", r.stdout + r.stderr
    assert "older than turn.py" in r.stderr and "make install" in r.stderr


def test_the_stale_warnings_are_said_once_a_command_not_again_by_each_worker(package_copy):
    """A process that warned a compiled module is stale leaves it to itself: the worker processes it
    starts (training's rollout workers and an evaluation's are spawned: they import the same files;
    :func:`treachery_env.compiled.starting_workers`) said every warning again each (``treachery
    train --workers 2 --evaluate`` printed them 7 times).  A separate command it starts later says
    them again: the mark was left in its environment, and silenced every later ``treachery ...`` a
    notebook or program ran after importing the package."""
    ext = Path(importlib.import_module("treachery_env.engine.turn").__file__)
    if ext.suffix == ".py":
        pytest.skip("treachery_env.engine.turn is not compiled here")
    r = _probe_with_a_newer_source(
        package_copy, ext.parent / "turn.py", ext,
        "import importlib, multiprocessing as mp, os, subprocess, sys\n"
        "import treachery_env.engine\n"
        "import treachery_env.compiled as c\n"
        "for _ in range(2):\n"
        "    p = mp.get_context('spawn').Process(target=importlib.import_module, args=('treachery_env.engine',))\n"
        "    with c.starting_workers():\n"
        "        p.start()\n"
        "    p.join(); assert p.exitcode == 0\n"
        "assert c.STALE_SAID not in os.environ\n"
        "print(c.compiled_modules()['treachery_env.engine.turn'], flush=True)\n"
        "print('-- a separate command --', file=sys.stderr, flush=True)\n"
        "subprocess.run([sys.executable, '-W', 'always', '-c', 'import treachery_env.engine'], check=True)")
    assert r.stdout.strip() == "False", r.stdout + r.stderr
    mine, later = r.stderr.split("-- a separate command --")
    assert mine.count("older than turn.py") == 1 and later.count("older than turn.py") == 1, r.stderr


def test_the_cli_says_the_stale_warnings_as_its_other_warnings_and_a_library_user_sees_them(package_copy):
    """``treachery ...`` said a stale compiled module's warning in Python's two lines (said when
    ``treachery_env`` was first imported, by the CLI module's imports, before its warning format
    applied) and its other warnings as ``treachery: warning: ...``: now in that one line too; a
    library user (a notebook) importing ``treachery_env`` still sees it."""
    ext = Path(importlib.import_module("treachery_env.engine.turn").__file__)
    if ext.suffix == ".py":
        pytest.skip("treachery_env.engine.turn is not compiled here")
    for package in ("training", "table"):
        shutil.copytree(ROOT / package, package_copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    r = _probe_with_a_newer_source(package_copy, ext.parent / "turn.py", ext,
                                   "import sys, training.cli as c; sys.exit(c.main(['serve', '--port', '-1']))")
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and lines[-1].startswith("treachery serve: error: --port must be"), r.stderr
    assert any(line.startswith("treachery: warning: treachery_env.engine.turn: the compiled module is older than "
                               "turn.py") for line in lines), r.stderr
    assert all(line.startswith("treachery") for line in lines) and "RuntimeWarning" not in r.stderr, r.stderr
    r = run_on_copy(package_copy, "import treachery_env", timeout=120)
    assert "RuntimeWarning: treachery_env.engine.turn: the compiled module is older than turn.py" in r.stderr


@pytest.mark.parametrize("module, selected, probe", [
    ("_observation", obs.ENCODER, "import treachery_env.observation as o; print(o.ENCODER)"),
    ("_view", view.VIEW_BUILDER, "import treachery_env.view as v; print(v.VIEW_BUILDER)"),
    ("_priority", priority.CAN_ACT, "import treachery_env.engine.priority as p; print(p.CAN_ACT)"),
], ids=["encoder", "view builder", "priority check"])
@pytest.mark.parametrize("edited", ["pyx", "_slots.pxi", "engine/state.py", "engine/state.pxd"])
def test_a_compiled_pyx_older_than_its_source_is_not_used(module, selected, probe, edited, package_copy):
    """The same for the encoder, the view builder and the priority check: an
    edited ``_observation.pyx``, ``_view.pyx`` or ``_priority.pyx``, the
    ``_slots.pxi`` the first two include, or the engine's state types (``state.py``,
    ``state.pxd``: the state then runs from source, and a compiled reader
    must not read its objects) makes the Python one run, with a warning,
    until ``make install``.  ``_slots.pxi`` leaves the priority check, which
    does not include it, compiled."""
    if selected != "compiled":
        pytest.skip(f"treachery_env.{module} is not in use here")
    ext = Path(importlib.import_module(f"treachery_env.{module}").__file__)
    source = ROOT / "treachery_env" / (f"{module}.pyx" if edited == "pyx" else edited)
    r = _probe_with_a_newer_source(package_copy, source, ext, probe)
    if edited == "_slots.pxi" and 'include "_slots.pxi"' not in (ROOT / "treachery_env" / f"{module}.pyx").read_text():
        assert r.stdout.strip() == "compiled" and f"treachery_env.{module}:" not in r.stderr, r.stdout + r.stderr
        return
    assert r.stdout.strip() == "python", r.stdout + r.stderr
    assert f"older than {module}.pyx, _slots.pxi" in r.stderr and "make install" in r.stderr


def test_make_install_rebuilds_when_a_compiled_source_changes():
    """Every ``.pyx`` and every module of ``compiled.MODULES`` is a prerequisite of ``make install``
    (the Makefile's ``COMPILED_SOURCES``, directly or by a wildcard over its folder), so the advice
    of the stale-extension warnings, ``make install``, compiles it again (a fresh-user trial found
    ``agents/_gru_gates.pyx`` missing: "Nothing to be done for 'install'")."""
    import re
    from fnmatch import fnmatch

    from treachery_env.compiled import MODULES
    listed = (ROOT / "Makefile").read_text().split("COMPILED_SOURCES :=", 1)[1].split("\n\n", 1)[0]
    patterns = [w or f for w, f in re.findall(r"\$\(wildcard ([^)]+)\)|([\w./*-]+)", listed)]
    sources = [str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("*/*.pyx"))] + \
        [m.replace(".", "/") + ".py" for m in MODULES]
    assert len(sources) > len(MODULES) + 3
    missing = [f for f in sources if not any(fnmatch(f, pat) for pat in patterns)]
    assert not missing, f"not in the Makefile's COMPILED_SOURCES: {missing}"


def test_compiled_gru_gates_older_than_their_pyx_are_not_used(package_copy):
    """An edited ``agents/_gru_gates.pyx`` takes effect as torch's operations until ``make
    install`` compiles it again: the stale kernels are skipped, with a warning that says so."""
    import agents.networks as networks
    if networks.GRU_GATES != "compiled":
        pytest.skip("the gate kernels are not in use here")
    ext = Path(networks._GATES.__file__)
    r = _probe_with_a_newer_source(package_copy, ROOT / "agents" / "_gru_gates.pyx", ext,
                                   "import agents.networks as n; print(n.GRU_GATES)")
    assert r.stdout.strip() == "torch", r.stdout + r.stderr
    assert "older than _gru_gates.pyx" in r.stderr and "make install" in r.stderr


def test_a_compiled_pyx_is_not_used_without_the_compiled_state_types(monkeypatch):
    """A compiled reader reads the engine's objects as the C fields of engine/state.pxd:
    where the state's classes are not those extension types (run from source), or the
    extension's cimported types do not match them (Cython's ValueError or TypeError on
    import), ``compiled_pyx`` gives None and the Python reader runs."""
    import treachery_env.compiled as c
    monkeypatch.setattr(c, "PURE_PYTHON", False)      # the suite may run with TREACHERY_PURE_PYTHON=1
    monkeypatch.setattr(c, "is_stale", lambda *a: False)
    monkeypatch.setattr(c, "state_compiled", lambda: False)
    with pytest.warns(RuntimeWarning, match="state classes run from source"):
        assert c.compiled_pyx("_observation", "the compiled encoder") is None
    monkeypatch.setattr(c, "state_compiled", lambda: True)
    for error in (ValueError, TypeError, ImportError):
        def refuse(name: str, error: type = error) -> None:
            raise error(f"{name}: the types do not match")
        monkeypatch.setattr(c.importlib, "import_module", refuse)
        assert c.compiled_pyx("_observation", "the compiled encoder") is None


def test_the_tests_pass_on_the_pure_python_path():
    """With ``TREACHERY_PURE_PYTHON=1`` the Python encoder is ``encode``, the
    Python view builder is ``ViewBuilder``, ``Game._can_act`` is the priority
    check, torch's operations are the GRU's gates and every module of
    ``compiled.MODULES`` runs from its source (checked in the child),
    and the tests of the rules, the observation and the engine's history pass
    with them: the information sets, the rules, talk, planeswalkers, mulligans,
    the special Traitors' information sets, the trajectories recorded before
    the speed work, clones, the view snapshots, and one chunk of the fuzz."""
    env = {**os.environ, "TREACHERY_PURE_PYTHON": "1"}
    probe = ("import treachery_env.observation as o, treachery_env.view as v, treachery_env.compiled as c; "
             "import treachery_env.engine.priority as p, agents.networks as n; "
             "print(o.ENCODER, v.VIEW_BUILDER, p.CAN_ACT, n.GRU_GATES, any(c.compiled_modules().values()))")
    r = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.stdout.strip() == "python python python torch False", r.stdout + r.stderr
    tests = ["tests/test_information_sets.py", "tests/test_rules.py", "tests/test_talk.py",
             "tests/test_planeswalkers.py", "tests/test_mulligans_and_concession.py",
             "tests/test_identities_special.py::test_information_sets_with_special_traitors",
             "tests/test_engine_trajectories.py", "tests/test_clone.py", "tests/test_view_snapshot.py",
             "tests/test_fuzz.py::test_random_games_keep_invariants[0]"]
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
