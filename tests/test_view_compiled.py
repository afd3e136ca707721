"""The compiled seat-view builder (``treachery_env._view.ViewBuilder``) gives
the views of the Python one (:class:`treachery_env.view.PythonViewBuilder`,
the reference): equal, field by field of the same types, at every decision
for every seat, built incrementally as the game moves on, from scratch, and
on clones; and it reads the engine's objects as the typed C fields of the
compiled state types, and is not used without them."""

from __future__ import annotations

import random

import pytest
from test_compiled import _configs, _hand_set_game

from treachery_env import GameConfig
from treachery_env import view as V
from treachery_env.engine import Game

compiled = pytest.mark.skipif(V.VIEW_BUILDER != "compiled", reason="the compiled view builder is not in use "
                              "(not built, or TREACHERY_PURE_PYTHON=1; see test_compiled_parts_are_built)")


def identical(a, b, path: str = "view") -> None:
    """``a`` and ``b`` are equal and of the same types all the way down (tuples,
    named tuples and mappings item by item, mappings in the same order); where
    not, the assertion names the first place they differ (:func:`_first_difference`)."""
    if not _same_all_the_way_down(a, b):
        _first_difference(a, b, path)
        raise AssertionError(f"{path}: not identical, yet no difference found")


_LEAVES = frozenset({str, int, float, bool, type(None)})   # compared by ==, met inline (no call each)


def _same_all_the_way_down(a, b) -> bool:
    """:func:`identical`'s test, without building the path of every field (most of its time)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        if len(a) != len(b):
            return False
        pairs = zip(a, b)
    elif isinstance(a, dict):
        if list(a) != list(b):
            return False
        pairs = ((a[k], b[k]) for k in a)
    else:
        return a == b
    for x, y in pairs:
        t = type(x)
        if t is not type(y) or not (x == y if t in _LEAVES else _same_all_the_way_down(x, y)):
            return False
    return True


def _first_difference(a, b, path: str) -> None:
    """Asserts :func:`identical`'s test field by field, naming the path of the first difference."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, tuple):
        assert len(a) == len(b), f"{path}: {len(a)} items != {len(b)}"
        names = getattr(a, "_fields", None) or range(len(a))
        for name, x, y in zip(names, a, b):
            _first_difference(x, y, f"{path}.{name}" if isinstance(name, str) else f"{path}[{name}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            _first_difference(a[k], b[k], f"{path}[{k!r}]")
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def _check(g: Game, builder, seen: dict) -> None:
    """``builder``'s view of every seat of ``g`` equals the Python builder's from
    scratch, and is :func:`identical` to it for one seat (in turn)."""
    k = seen.get("decisions", 0)
    for seat in range(g.n):
        a, b = builder.build(seat), V.PythonViewBuilder(g).build(seat)
        if a != b or seat == k % g.n:
            identical(a, b, f"seat {seat}, turn {g.turn}")
        if a.decision is not None:
            seen.setdefault("option kinds", set()).update(o.kind for o in a.decision.options)
    seen["decisions"] = k + 1
    seen["stack"] = seen.get("stack", 0) + bool(g.stack)
    seen["talk"] = seen.get("talk", 0) + bool(g.talk.messages)
    seen["pumped"] = seen.get("pumped", 0) + any(c.pump_kw for p in g.players for c in p.creatures)
    seen["labels"] = seen.get("labels", 0) + (g.decision is not None and g.decision.labels is not None)


@compiled
def test_both_builders_give_identical_views_at_every_decision():
    """27 random games (every variant x 4-12 players; talk on / off, priority
    windows full / main, mulligans, Commander on / off in turn): at every
    decision the incremental compiled builder's view of every seat is the
    Python builder's from scratch (see :func:`_check`), and so is a fresh
    compiled builder's on a clone every 150 decisions (kept on for the next 20
    of the clone's own)."""
    seen: dict = {}
    for k, cfg in enumerate(_configs()):
        g = Game(cfg, seed=1000 + k)
        rng = random.Random(k)
        b = V.ViewBuilder(g)
        while not g.is_over:
            _check(g, b, seen)
            if seen["decisions"] % 150 == 0:
                h = g.clone()
                hb = V.ViewBuilder(h)
                for _ in range(20):
                    if h.is_over:
                        break
                    _check(h, hb, {})
                    h.step(rng.choice(h.legal_actions()))
            g.step(rng.choice(g.legal_actions()))
        _check(g, b, seen)
    assert seen["decisions"] > 5000 and all(seen.values()), seen
    # every kind of option the compiled builder words in C (_view._fast_option, _fast_labelled) was compared
    assert seen["option kinds"] >= {"accept", "attack_planeswalker", "attack_player", "attack_with", "block",
                                    "block_with", "bottom", "cast", "choice", "commander", "cost", "discard",
                                    "land", "mulligan", "number", "pass", "target", "token", "unveil"}, seen


@compiled
def test_both_builders_agree_beyond_what_random_play_reaches():
    """The state the encoder test sets by hand (more objects than the observation
    has slots, a copied identity, planeswalkers attacked, stack targets of every
    kind, old talk, truces kept and broken): the compiled view is the Python one."""
    g = _hand_set_game()
    for seat in range(g.n):
        identical(V.ViewBuilder(g).build(seat), V.PythonViewBuilder(g).build(seat), f"seat {seat}")


@compiled
def test_engine_objects_read_as_typed_fields():
    """The compiled builder reads the engine's objects as the extension types of
    ``engine/state.pxd`` (it cimports them), and only the talk state (a plain
    class) at its ``__slots__`` (``_view.slot_reads``: all of them directly);
    a creature whose fields change between builds is seen to change."""
    from treachery_env import _view
    from treachery_env.engine import state
    assert type(vars(state.Player)["life"]).__name__ == "getset_descriptor"     # a C field
    reads = _view.slot_reads()
    assert reads and all(name.startswith("TalkState.") for name in reads), reads
    assert all(reads.values()), [name for name, direct in reads.items() if not direct]
    g = Game(GameConfig(), seed=3)
    rng = random.Random(3)
    while not any(p.creatures for p in g.players):
        g.step(rng.choice(g.legal_actions()))
    b = V.ViewBuilder(g)
    b.build(0)
    c = next(c for p in g.players for c in p.creatures)
    for field, value in (("damage", c.damage + 2), ("tapped", not c.tapped), ("pump_p", c.pump_p + 1),
                         ("stun", c.stun + 1)):
        setattr(c, field, value)
        identical(b.build(0), V.PythonViewBuilder(g).build(0))
    p = g.players[1]
    for field, value in (("life", p.life - 3), ("lands_tapped", p.lands_tapped + 1), ("commander_casts", 2),
                         ("has_lost", True)):
        setattr(p, field, value)
        identical(b.build(0), V.PythonViewBuilder(g).build(0))
    p.identity.face_up = not p.identity.face_up
    identical(b.build(0), V.PythonViewBuilder(g).build(0))


def test_the_compiled_builder_needs_the_compiled_state_types(monkeypatch, package_copy):
    """The compiled builder reads the C fields of the engine's state types, so it is
    not used when they run from source (state.py newer than its extension: the
    Python builder runs, and gives views), nor when its import finds other types
    than it was built against (Cython's ValueError or TypeError: the Python one
    runs, ``compiled.compiled_pyx``)."""
    import importlib
    from pathlib import Path

    from test_compiled import _probe_with_a_newer_source

    from treachery_env import compiled
    from treachery_env.engine import state
    ext = Path(state.__file__)
    if ext.suffix == ".py" or V.VIEW_BUILDER != "compiled":
        pytest.skip("the engine's state or the view builder is not compiled here")
    newest = max(ext.parent.parent.rglob(f"*{ext.suffix}"), key=lambda f: f.stat().st_mtime)   # state.py edited
    r = _probe_with_a_newer_source(
        package_copy, ext.parent / "state.py", newest,
        "import treachery_env.view as v; from treachery_env.engine import Game; from treachery_env import GameConfig; "
        "from treachery_env.engine import state; g = Game(GameConfig(), seed=1); v.ViewBuilder(g).build(0); "
        "print(v.VIEW_BUILDER, type(vars(state.Player)['life']).__name__)")
    assert r.stdout.strip() == "python member_descriptor", r.stdout + r.stderr

    real = importlib.import_module

    def mismatched(name, *args):
        if name == "treachery_env._view":
            raise ValueError("treachery_env.engine.state.Player size changed, may indicate binary incompatibility")
        return real(name, *args)

    monkeypatch.setattr(compiled.importlib, "import_module", mismatched)
    assert compiled.compiled_pyx("_view", "the compiled view builder") is None
    monkeypatch.undo()
    assert importlib.import_module("treachery_env._view").ViewBuilder is V.ViewBuilder


def test_a_seat_outside_the_table_is_refused():
    """Both builders raise IndexError for a seat past the table."""
    g = Game(GameConfig(num_players=4), seed=0)
    for builder in (V.ViewBuilder, V.PythonViewBuilder):
        with pytest.raises(IndexError):
            builder(g).build(4)
