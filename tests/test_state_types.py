"""The engine's state classes compiled to extension types (``engine/state.pxd``).

Compiled, :class:`Player`, :class:`Creature` and the other state classes keep
their attributes in typed C fields, which the engine's hot functions read at
their offsets (``@cython.locals``) and the compiled readers cimport; run from
source, they are plain classes with the same ``__slots__``.  These tests check
what that changes and what it must not: the declared names are the slots'
names, a field holds only its type, an edit of ``state.py`` or ``state.pxd``
makes everything that reads the C fields run from source (with a warning)
and games still play, and the shim that stands in for Cython's decorators
leaves functions unchanged.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from treachery_env import _cython_shim
from treachery_env.engine import Game
from treachery_env.engine import state
from treachery_env.engine.state import Creature, Decision, GameState, IdentityCard, Player, StackItem

from conftest import run_on_copy

ROOT = Path(__file__).resolve().parent.parent
PXD = ROOT / "treachery_env" / "engine" / "state.pxd"
COMPILED = not state.__file__.endswith(".py")

needs_compiled = pytest.mark.skipif(not COMPILED, reason="the engine's state runs from source here")


def _pxd_fields() -> dict[str, dict[str, str]]:
    """``{class: {field: C type}}`` as ``state.pxd`` declares them."""
    out: dict[str, dict[str, str]] = {}
    cls = None
    for line in PXD.read_text().splitlines():
        m = re.match(r"cdef class (\w+)(?:\((\w+)\))?:", line)
        if m:
            cls = out.setdefault(m.group(1), {})
            continue
        m = re.match(r"\s+cdef public (\w+) (.+)", line)
        if m and cls is not None:
            for name in m.group(2).split(","):
                cls[name.strip()] = m.group(1)
    return out


def test_the_pxd_declares_exactly_the_slots_of_each_state_class():
    """``state.pxd`` names every slot of each class and nothing else, so the
    compiled type and the source class have the same attributes."""
    fields = _pxd_fields()
    for cls in (state.StateRecord, Creature, state.Attackable, IdentityCard, Player, StackItem, Decision,
                GameState):
        assert set(fields[cls.__name__]) == set(cls.__slots__), cls.__name__
    assert Game.__slots__ == () and GameState in Game.__mro__


@needs_compiled
def test_compiled_the_state_classes_are_extension_types_with_typed_fields():
    """A ``long`` field refuses a string, a ``list`` field a tuple, a field of a
    state type another object (None is allowed); a ``bint`` field stores a truth
    value; unknown attributes are refused, as with ``__slots__``."""
    g = Game(seed=1)
    p = g.players[0]
    with pytest.raises(TypeError):
        p.life = "forty"
    with pytest.raises(TypeError):
        p.hand = tuple(p.hand)
    with pytest.raises(TypeError):
        p.identity = "The Oracle"
    with pytest.raises(AttributeError):
        p.nickname = "Ann"
    p.land_played = 1
    assert p.land_played is True
    idc = p.identity
    p.identity = None
    assert p.identity is None
    p.identity = idc
    assert isinstance(Player.__dict__["life"], type(GameState.__dict__["turn"]))     # C fields, not member slots
    assert type(Player).__name__ == "type" and not hasattr(p, "__dict__")


def _run_with_newer(copy: Path, path: Path, code: str) -> subprocess.CompletedProcess:
    """Run ``code`` on the packages' copy ``copy`` (:func:`conftest.package_copy`) where the copy of
    ``path`` (a file of the checkout) is a minute newer than now (than every extension, as an edit)."""
    newer = time.time() + 60
    os.utime(copy / path.relative_to(ROOT), (newer, newer))
    return run_on_copy(copy, code)


@needs_compiled
@pytest.mark.parametrize("edited", ["state.py", "state.pxd", "state extension older than its readers"])
def test_an_edited_state_runs_every_reader_of_its_c_fields_from_source(edited, package_copy):
    """With ``state.py`` or ``state.pxd`` newer than the compiled state, the
    state, every engine module with a ``.pxd`` (they cimport its types) and
    the compiled readers (encoder, view builder, priority check) run from
    source, with a warning, and a game plays to its end through ``env()``.
    The same when the readers' extensions are newer than an edited ``state.py``
    (built after it) while the state's own is older: a compiled reader of the C
    fields never meets the source classes."""
    code = ("import treachery_env.compiled as c, treachery_env.observation as o, treachery_env.view as v; "
            "import treachery_env.engine.priority as p; from treachery_env import env; import random; "
            "m = c.compiled_modules(); "
            "print(m['treachery_env.engine.state'], m['treachery_env.engine.priority'], "
            "m['treachery_env.identity_abilities'], o.ENCODER, v.VIEW_BUILDER, p.CAN_ACT); "
            "e = env(); e.reset(seed=2); r = random.Random(0)\n"
            "for a in e.agent_iter():\n"
            "    ob, _, t, u, i = e.last()\n"
            "    e.step(None if t or u else r.choice(i['legal_actions']))\n"
            "print('played', e.unwrapped.game.is_over)")
    if edited.startswith("state extension"):
        # state.py newer than the state's extension only; every other extension newer still
        ext = Path(state.__file__).resolve()
        built = (package_copy / ext.relative_to(ROOT)).stat().st_mtime
        os.utime(package_copy / PXD.with_suffix(".py").relative_to(ROOT), (built + 60, built + 60))
        for m in ("treachery_env.engine.priority", "treachery_env._priority"):
            other = package_copy / Path(importlib.import_module(m).__file__).resolve().relative_to(ROOT)
            os.utime(other, (built + 120, built + 120))
        r = run_on_copy(package_copy, code)
    else:
        r = _run_with_newer(package_copy, PXD.parent / edited, code)
    lines = r.stdout.strip().splitlines()
    assert lines[:1] == ["False False False python python python"], r.stdout + r.stderr[-3000:]
    assert lines[-1] == "played True", r.stdout + r.stderr[-3000:]
    assert "make install" in r.stderr


def test_the_cython_shim_leaves_functions_unchanged():
    """Run from source without Cython, ``@cython.locals(...)`` returns the
    function itself, and the type names are Python's."""
    def f(x):
        return x + 1
    assert _cython_shim.locals(x=_cython_shim.long, y=Player)(f) is f
    assert _cython_shim.compiled is False and _cython_shim.bint is bool and _cython_shim.long is int


def test_engine_modules_with_a_pxd_import_cython_or_the_shim():
    """Every module beside a ``.pxd`` that cimports the state's types takes its
    ``cython`` from Cython or, without it, from the shim (a module run from
    source must not need Cython)."""
    for pxd in sorted((ROOT / "treachery_env").rglob("*.pxd")):
        if pxd.name == "state.pxd":
            continue
        source = pxd.with_suffix(".py").read_text()
        assert "import cython\nexcept ImportError:" in source and "_cython_shim as cython" in source, pxd.name
        name = ".".join(pxd.with_suffix("").relative_to(ROOT).parts)
        assert importlib.import_module(name) is not None


@needs_compiled
def test_a_none_where_a_typed_local_is_read_raises_as_in_python():
    """A state field that may hold None (a player's identity) read through a
    typed local (``@cython.locals``, the identity abilities' compiled check) raises
    AttributeError as the source does, instead of reading through a null
    pointer (``nonecheck``)."""
    code = ("import random\nfrom treachery_env.engine import Game\n"
            "g = Game(seed=1); r = random.Random(0)\n"
            "for _ in range(40): g.step(r.choice([a for a, _ in g.decision.options]))\n"
            "g.players[1].identity = None\n"
            "from treachery_env import identity_abilities as IA\n"
            "IA.activatable(g, 1)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       check=False, env={k: v for k, v in os.environ.items() if k != "TREACHERY_PURE_PYTHON"})
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    assert "AttributeError: 'NoneType' object has no attribute" in r.stderr


@needs_compiled
def test_without_the_state_extension_its_readers_run_from_source(tmp_path):
    """Every extension is optional: where the state's did not build and the
    others did, every module that reads its C fields runs from source (a
    compiled one would read the source classes at C offsets) and games play
    as from source."""
    shutil.copytree(ROOT / "treachery_env", tmp_path / "treachery_env",
                    ignore=shutil.ignore_patterns("*.c", "__pycache__"))
    for ext in (tmp_path / "treachery_env" / "engine").glob("state.*.so"):
        ext.unlink()
    code = ("import treachery_env.compiled as c, treachery_env.observation as o; from treachery_env.engine import Game; "
            "m = c.compiled_modules(); g = Game(seed=2); "
            "print(m['treachery_env.engine.state'], m['treachery_env.engine.game'], "
            "m['treachery_env.engine.priority'], m['treachery_env.text'], o.ENCODER, g.decision is not None)")
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300, check=False,
                       env={**{k: v for k, v in os.environ.items() if k != "TREACHERY_PURE_PYTHON"},
                            "PYTHONPATH": str(tmp_path)})
    assert r.stdout.strip() == "False False False True python True", r.stdout + r.stderr[-3000:]


_BUILD_GAME = ("import pickle, random, sys\nfrom treachery_env.engine import Game\n"
               "class Tagged(Game):\n    __slots__ = ('tag',)\n"
               "g = Tagged(seed=4); g.tag = 'run-42'; r = random.Random(1)\n"
               "for _ in range(300):\n    g.step(r.choice(g.legal_actions()))\n")
_LOAD_GAME = ("import pickle, sys\nfrom treachery_env.engine import Game\n"
              "class Tagged(Game):\n    __slots__ = ('tag',)\n"
              "import __main__; __main__.Tagged = Tagged\n"
              "g = pickle.loads(sys.stdin.buffer.read())\n"
              "print(type(g).__name__, g.tag, g.digest(), g.legal_actions()[:3])\n")


@pytest.mark.parametrize("dump_pure, load_pure", [(False, True), (True, False), (False, False), (True, True)],
                         ids=["compiled to source", "source to compiled", "compiled", "source"])
def test_a_pickled_game_loads_in_either_build(dump_pure, load_pure):
    """A game pickled by the compiled build loads from source and the other way
    round, with the same digest and legal actions, a subclass's own slot
    included: the state classes pickle as plain slotted classes do
    (:class:`~treachery_env.engine.state.StateRecord`), which is also how games
    pickled before the classes were compiled load."""
    def env(pure: bool) -> dict:
        base = {k: v for k, v in os.environ.items() if k != "TREACHERY_PURE_PYTHON"}
        return {**base, "TREACHERY_PURE_PYTHON": "1"} if pure else base
    digest = subprocess.run([sys.executable, "-c", _BUILD_GAME + "print(g.digest())"], cwd=ROOT, text=True,
                            capture_output=True, timeout=300, check=True, env=env(True)).stdout.strip()
    dumped = subprocess.run([sys.executable, "-c", _BUILD_GAME + "sys.stdout.buffer.write(pickle.dumps(g))"],
                            cwd=ROOT, capture_output=True, timeout=300, check=True, env=env(dump_pure)).stdout
    r = subprocess.run([sys.executable, "-c", _LOAD_GAME], cwd=ROOT, input=dumped, capture_output=True,
                       timeout=300, check=False, env=env(load_pure))
    out = r.stdout.decode().split()
    assert out[:3] == ["Tagged", "run-42", digest], r.stdout.decode() + r.stderr.decode()[-3000:]
