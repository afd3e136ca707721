"""Implementations of the identity cards, one module per role and rarity.

Each module registers its identities with
:func:`treachery_env.identity_abilities.register` on import; importing this
package registers all 62 (the engine does, so a :class:`Game` always has them).
The framework in :mod:`treachery_env.identity_abilities` never imports these
modules: dependencies point from the cards to the framework.
"""

from . import (assassins, assassins_mythic, assassins_rare, guardians, guardians_mythic,  # noqa: F401
               guardians_rare, leaders, leaders_mythic, leaders_rare, traitors, traitors_mythic,
               traitors_rare, traitors_special)

__all__ = ["assassins", "assassins_mythic", "assassins_rare", "guardians", "guardians_mythic", "guardians_rare",
           "leaders", "leaders_mythic", "leaders_rare", "traitors", "traitors_mythic", "traitors_rare",
           "traitors_special"]
