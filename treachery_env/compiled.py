"""Which parts of the package are compiled, and the switch back to pure Python.

``make install`` (``pip install -e .``) compiles, besides the observation
encoder (``treachery_env/_observation.pyx``), the seat-view builder
(``treachery_env/_view.pyx``) and the priority check
(``treachery_env/_priority.pyx``), the learner's GRU gate kernels
(``agents/_gru_gates.pyx``, :data:`agents.networks.GRU_GATES`), the engine's modules and the
other per-step modules listed in :data:`MODULES` (the view, text and action
helpers, the PettingZoo environment, the roles) with Cython, from their
Python source: it becomes a C extension next to it, which Python imports in
preference to the ``.py``.  Each extension is optional: where no C compiler
works, the install goes on and the ``.py`` files are used.

The source stays plain Python; what Cython adds comes from ``.pxd`` files
beside it.  ``engine/state.pxd`` makes the state classes of
``engine/state.py`` (the game, players, creatures, identity cards, stack
objects, decisions) extension types with typed C fields; a module with a
``.pxd`` of its own cimports those types, and its hot functions declare their
locals' types with ``@cython.locals`` (a no-op from source,
:mod:`treachery_env._cython_shim`), so that ``p.life`` compiles to a read of a
C field.  The compiled encoder, view builder and priority check cimport them
too.  Whatever reads those C fields must never meet the source classes: when
the state runs from source (``state.py`` or ``state.pxd`` edited since
``make install``), so do every module with a ``.pxd`` and the three readers.

``TREACHERY_PURE_PYTHON=1`` in the environment (read when ``treachery_env``
is first imported) makes every one of them, the encoder, the view builder and
the priority check load from the Python source, so the reference implementation can be run and
tested on a machine that has the compiled one.

A compiled module older than its source (the ``.py`` was edited since
``make install``) is not used: the source is, with a warning saying so, so
that an edit always takes effect (``make install`` compiles it again); the
same holds for the encoder and ``_observation.pyx``
(:mod:`treachery_env.observation` falls back to its Python encoder) and for
the view builder and ``_view.pyx`` (:mod:`treachery_env.view` falls back to
:class:`~treachery_env.view.PythonViewBuilder`) and for the priority check and
``_priority.pyx`` (:mod:`treachery_env.engine.priority` falls back to
``Game._can_act``).  The warnings are said once a command (:func:`warn_stale`): the
worker processes it starts within :func:`starting_workers` (training's rollout workers, an
evaluation's, an isolated bot's process, a local Ray's), which import the same files, do not say
them again each; a separate command started later, by it or by a program or notebook that
imported the package, says them again.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
import warnings
from pathlib import Path
from typing import Any, Iterator

__all__ = ["MODULES", "PURE_PYTHON", "STALE_SAID", "built", "compiled_modules", "compiled_pyx", "install_finder",
           "is_stale", "starting_workers", "state_compiled", "warn_stale"]

_PACKAGE_DIR = Path(__file__).resolve().parent

#: Modules compiled from their Python source (setup.py reads this list).
MODULES: tuple = tuple(
    [f"treachery_env.engine.{m}" for m in (
        "state", "game", "setup", "mulligan", "treachery", "costs", "turn", "priority", "stack", "targets",
        "triggers", "combat", "attackables", "zones", "effects", "state_based", "outcome", "talk", "replay",
        "clone")]
    + ["treachery_env.identity_abilities", "treachery_env.view", "treachery_env.text", "treachery_env.actions",
       "treachery_env.env", "treachery_env.rules"])

#: Whether ``TREACHERY_PURE_PYTHON=1`` was set when the package was imported.
PURE_PYTHON: bool = os.environ.get("TREACHERY_PURE_PYTHON") == "1"

#: The environment variable, set to 1 in the environment of the worker processes a command starts
#: (:func:`starting_workers`) once it warned that a compiled part is stale (:func:`warn_stale`): they
#: leave the warnings to it.  Never left in a process's own environment, which the separate commands
#: it starts later (a notebook's ``treachery evaluate``, one command after another) inherit.
STALE_SAID = "TREACHERY_STALE_SAID"

#: Whether the command that started this process (as its worker) said the stale-extension warnings.
_SAID_BY_PARENT: bool = os.environ.get(STALE_SAID) == "1"

#: Whether this process said one (:func:`warn_stale`).
_said = False


def warn_stale(message: str, stacklevel: int = 2) -> None:
    """Warn (a RuntimeWarning, ``stacklevel`` as :func:`warnings.warn`'s, from the caller) that a
    compiled part is not used (stale, or its state types run from source), once a command: not in
    a worker process of a command that warned (:data:`STALE_SAID` in its environment when this
    module was imported, :func:`starting_workers`): the rollout and evaluation workers import the
    same files, and each repeated every warning of its parent."""
    global _said
    if _SAID_BY_PARENT:
        return
    _said = True
    warnings.warn(message, RuntimeWarning, stacklevel=stacklevel + 1)


@contextlib.contextmanager
def starting_workers() -> Iterator[None]:
    """Around the start of a command's own worker processes (a multiprocessing pool's or
    ``Process``'s ``start``, ``subprocess.Popen`` with ``os.environ``, a local ``ray.init``): where
    this process said the stale-extension warnings (:func:`warn_stale`) or is itself such a worker,
    :data:`STALE_SAID` is in ``os.environ`` while they start, so that they inherit it and say none,
    and is taken out again after, so that a separate command started later says them anew."""
    if not (_said or _SAID_BY_PARENT) or os.environ.get(STALE_SAID) == "1":
        yield
        return
    os.environ[STALE_SAID] = "1"
    try:
        yield
    finally:
        os.environ.pop(STALE_SAID, None)


def _source(fullname: str) -> Path:
    """The ``.py`` file of module ``fullname`` (one of :data:`MODULES`)."""
    return _PACKAGE_DIR.joinpath(*fullname.split(".")[1:]).with_suffix(".py")


STATE_TYPES = (_PACKAGE_DIR / "engine" / "state.py", _PACKAGE_DIR / "engine" / "state.pxd")
"""The engine's state classes and the C types they compile to: a module with a
``.pxd`` of its own cimports them (its typed locals are those types), so its
extension is stale when they changed too."""


def _depends(source: Path) -> tuple[Path, ...]:
    """The files besides ``source`` whose edit makes its extension stale: its own
    ``.pxd`` and, with one, :data:`STATE_TYPES`."""
    pxd = source.with_suffix(".pxd")
    return (pxd, *STATE_TYPES) if pxd.exists() else ()


def _runs_from_source(source: Path) -> bool:
    """Whether the module of ``source`` must run from source although it is
    compiled: its extension is stale (:func:`is_stale`, :func:`_depends`), or it
    reads the state's C fields (it has a ``.pxd``) and the state itself runs
    from source (:func:`_state_from_source`: its extension is stale or was
    not built): a compiled reader of those fields must never meet the source
    classes."""
    depends = _depends(source)
    return is_stale(source, *depends) or (bool(depends) and _state_from_source())


def _state_from_source() -> bool:
    """Whether the engine's state classes run from ``state.py``: pure Python is
    asked for, their extension was not built (every extension is optional) or
    it is stale."""
    state = STATE_TYPES[0]
    return PURE_PYTHON or not built(state) or is_stale(state, STATE_TYPES[1])


def built(source: Path) -> bool:
    """Whether a compiled extension of ``source`` (a ``.py`` or ``.pyx`` file) exists beside it
    (every extension is optional: without a C compiler at install time none is built)."""
    return any(source.with_name(source.stem + suffix).exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def is_stale(source: Path, *depends: Path) -> bool:
    """Whether a compiled extension of ``source`` (a ``.py`` or ``.pyx`` file)
    exists beside it and is older than it or than any of ``depends`` (files
    it includes, such as ``_slots.pxi``), by file time: a checkout that
    touches the source counts as an edit until ``make install``."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        ext = source.with_name(source.stem + suffix)
        if ext.exists():
            built = ext.stat().st_mtime
            return any(built < f.stat().st_mtime for f in (source, *depends))
    return False


SLOTS_INCLUDE = Path(__file__).with_name("_slots.pxi")
"""The slot reader the compiled ``.pyx`` modules include."""


#: The engine's state classes and a field of each that is a C field when they are compiled.
_STATE_FIELDS = (("Creature", "uid"), ("Attackable", "uid"), ("IdentityCard", "uid"), ("Player", "life"),
                 ("StackItem", "uid"), ("Decision", "seat"), ("GameState", "n"))


def state_compiled() -> bool:
    """Whether the engine's state classes (``treachery_env.engine.state``) are the
    compiled extension types of ``engine/state.pxd`` (their fields C fields, read
    through getset descriptors), not the Python classes with ``__slots__`` of
    ``state.py`` (run from source: ``TREACHERY_PURE_PYTHON=1``, not built, or
    stale)."""
    from .engine import state
    return all(type(getattr(state, cls).__dict__.get(field)) is types.GetSetDescriptorType
               for cls, field in _STATE_FIELDS)


def compiled_pyx(name: str, what: str) -> Any:
    """The compiled ``treachery_env.<name>`` (built from ``<name>.pyx``, which
    may include :data:`SLOTS_INCLUDE` and cimports the state's types of
    :data:`STATE_TYPES`), or None when its Python twin must run:
    ``TREACHERY_PURE_PYTHON=1``, the extension is not built (no C compiler at
    install time: every extension is optional, setup.py), it is older than its
    ``.pyx``, the ``_slots.pxi`` it includes, ``engine/state.py`` or
    ``engine/state.pxd``, or the
    engine's state classes are not the compiled extension types
    (:func:`state_compiled`: a compiled reader reads their C fields, so it must
    never get the Python classes' objects); the last two with a RuntimeWarning
    naming ``what``, e.g. "the compiled encoder", and ``make install``.  An
    extension whose cimported types do not match the state module's (Cython's
    ValueError or TypeError on import) is not used either."""
    if PURE_PYTHON:
        return None
    pyx = Path(__file__).with_name(f"{name}.pyx")
    if not built(pyx):          # not compiled at install time (no C compiler): the Python one, nothing to say
        return None
    includes = (SLOTS_INCLUDE,) if pyx.exists() and f'include "{SLOTS_INCLUDE.name}"' in pyx.read_text() else ()
    if is_stale(pyx, *includes, *STATE_TYPES):
        warn_stale(f"treachery_env.{name}: {what} is older than {name}.pyx, _slots.pxi or the engine's state "
                   f"types (engine/state.py, engine/state.pxd), so the Python one runs; `make install` "
                   f"(pip install -e .) compiles it again", stacklevel=3)
        return None
    if _state_from_source() or not state_compiled():
        warn_stale(f"treachery_env.{name}: the engine's state classes run from source (engine/state.py), so "
                   f"the Python one runs instead of {what}; `make install` (pip install -e .) compiles them",
                   stacklevel=3)
        return None
    try:
        return importlib.import_module(f"treachery_env.{name}")
    except (ImportError, ValueError, TypeError):
        return None


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds a module of :data:`MODULES` as its ``.py`` source when pure Python
    is asked for, or when its compiled extension is older than the source;
    otherwise leaves it to the normal import (which prefers the extension)."""

    def __init__(self, pure: bool):
        self.pure = pure

    def find_spec(self, fullname: str, path: object, target: object = None) -> importlib.machinery.ModuleSpec | None:
        """The source spec of a module to run from source; None (look elsewhere) for any other."""
        if fullname not in MODULES:
            return None
        source = _source(fullname)
        if not self.pure:
            if not built(source):       # not compiled at install time (no C compiler): the source, silently
                return None
            if not _runs_from_source(source):
                return None
            why = (f"the compiled module is older than {source.name} or the .pxd files it reads"
                   if is_stale(source, *_depends(source)) else
                   "the engine's state classes run from source (engine/state.py: not compiled, or older)")
            warn_stale(f"{fullname}: {why}, so the source runs; `make install` (pip install -e .) compiles it again")
        return importlib.util.spec_from_file_location(fullname, source)


def install_finder(pure: bool) -> None:
    """Put the finder of :data:`MODULES` first on ``sys.meta_path`` (once):
    ``pure`` loads all of them from source, otherwise only the stale ones.
    ``treachery_env/__init__`` calls it before importing any of them.

    Raises:
        RuntimeError: if one of them was already imported.
    """
    loaded = [m for m in MODULES if m in sys.modules]
    if loaded:
        raise RuntimeError(f"the module finder must be installed before {loaded[0]} is imported; set "
                           f"TREACHERY_PURE_PYTHON=1 before importing treachery_env")
    for f in sys.meta_path:
        if isinstance(f, _SourceFinder):
            f.pure = pure
            return
    sys.meta_path.insert(0, _SourceFinder(pure))


def compiled_modules() -> dict[str, bool]:
    """For each module of :data:`MODULES` (imported now if it was not), whether
    it runs compiled (loaded from an extension) rather than from its source."""
    out = {}
    for name in MODULES:
        mod = importlib.import_module(name)
        out[name] = not str(getattr(mod, "__file__", "")).endswith(".py")
    return out
