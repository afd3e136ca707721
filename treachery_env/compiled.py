"""Which parts of the package are compiled, and the switch back to pure Python.

``make install`` (``pip install -e .``) compiles, besides the observation
encoder (``treachery_env/_observation.pyx``), the engine's modules and the
other per-step modules listed in :data:`MODULES` with Cython, *unchanged*: the
same Python source becomes a C extension next to it, which Python imports in
preference to the ``.py``.  Each extension is optional: where no C compiler
works, the install goes on and the ``.py`` files are used.

``TREACHERY_PURE_PYTHON=1`` in the environment (read when ``treachery_env``
is first imported) makes every one of them, and the encoder, load from the
Python source, so the reference implementation can be run and tested on a
machine that has the compiled one.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

__all__ = ["MODULES", "PURE_PYTHON", "compiled_modules", "use_pure_python"]

_PACKAGE_DIR = Path(__file__).resolve().parent

#: Modules compiled from their unchanged Python source (setup.py reads this list).
MODULES: tuple = tuple(
    [f"treachery_env.engine.{m}" for m in (
        "state", "game", "setup", "mulligan", "treachery", "costs", "turn", "priority", "stack", "targets",
        "triggers", "combat", "attackables", "zones", "effects", "state_based", "outcome", "talk", "replay",
        "clone")]
    + ["treachery_env.identity_abilities", "treachery_env.view", "treachery_env.text", "treachery_env.actions"])

#: Whether ``TREACHERY_PURE_PYTHON=1`` was set when the package was imported.
PURE_PYTHON: bool = os.environ.get("TREACHERY_PURE_PYTHON") == "1"


def _source(fullname: str) -> Path:
    """The ``.py`` file of module ``fullname`` (one of :data:`MODULES`)."""
    return _PACKAGE_DIR.joinpath(*fullname.split(".")[1:]).with_suffix(".py")


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the modules of :data:`MODULES` as their ``.py`` source, never the extension."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> importlib.machinery.ModuleSpec | None:
        """The source spec of a compiled module; None (look elsewhere) for any other."""
        if fullname not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, _source(fullname))


def use_pure_python() -> None:
    """Load every module of :data:`MODULES` from its Python source from now on.

    Must run before they are first imported (``treachery_env/__init__`` calls
    it when ``TREACHERY_PURE_PYTHON=1``).

    Raises:
        RuntimeError: if one of them was already imported.
    """
    loaded = [m for m in MODULES if m in sys.modules]
    if loaded:
        raise RuntimeError(f"use_pure_python() after {loaded[0]} was imported; set TREACHERY_PURE_PYTHON=1 "
                           f"before importing treachery_env")
    if not any(isinstance(f, _SourceFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFirst())


def compiled_modules() -> dict[str, bool]:
    """For each module of :data:`MODULES` (imported now if it was not), whether
    it runs compiled (loaded from an extension) rather than from its source."""
    out = {}
    for name in MODULES:
        mod = importlib.import_module(name)
        out[name] = not str(getattr(mod, "__file__", "")).endswith(".py")
    return out
