"""Traitors identity cards of TRD-2025, mythic (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..identity_abilities import register_callbacks

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, StackItem  # noqa: F401


register_callbacks(globals())
