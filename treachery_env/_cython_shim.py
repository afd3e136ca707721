"""What the engine's modules use of Cython's pure-Python mode, where Cython is not installed.

The engine's modules are compiled by Cython (:mod:`treachery_env.compiled`),
and their ``.pxd`` files make the state classes extension types with typed
fields (``engine/state.pxd``).  A hot function says the types of its locals
with the decorator ``@cython.locals(self=GameState, p=Player, ...)``: the
compiler reads it, and each ``p.life`` becomes a read of a C field.  Run from
source, the decorator must do nothing.  Cython is a build requirement, not a
run-time one, so each module imports it as::

    try:
        import cython
    except ImportError:
        from .. import _cython_shim as cython

and this module gives the same names, doing nothing: :func:`locals` returns
the function unchanged and the type names are Python's.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["compiled", "locals", "long", "bint"]

compiled = False
"""As ``cython.compiled``: False, since this runs from source."""

long = int      # the C type names the engine uses, as Python's types
bint = bool


def locals(**types: Any) -> Callable[[Callable], Callable]:  # noqa: A001 (Cython's name)
    """``@cython.locals(name=type, ...)``: the types of a function's locals for
    the compiler; run from source, the function unchanged."""
    def keep(f: Callable) -> Callable:
        return f
    return keep
