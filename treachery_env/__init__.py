"""Treachery: a rules engine and a PettingZoo environment for the hidden-role
Magic: The Gathering variant (CR 907).

Quick start::

    import treachery_env
    e = treachery_env.env(num_players=5)
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else int(
            e.np_random.choice(obs["action_mask"].nonzero()[0]))
        e.step(action)

Only numpy, gymnasium and pettingzoo are needed here (no torch).  The
engine's modules run compiled where ``make install`` could build them
(:mod:`treachery_env.compiled`; ``TREACHERY_PURE_PYTHON=1`` runs the Python source).
"""

from . import compiled as _compiled

_compiled.install_finder(pure=_compiled.PURE_PYTHON)

from .config import GameConfig  # noqa: E402  (after the pure-Python switch)
from .env import env, parallel_env, raw_env  # noqa: E402
from .rules import Role, role_distribution  # noqa: E402

__all__ = ["env", "parallel_env", "raw_env", "GameConfig", "Role", "role_distribution", "REGISTRY_ID"]
__version__ = "0.1.0"

import re as _re  # noqa: E402

import pettingzoo as _pz  # noqa: E402

REGISTRY_ID = "treachery/" + raw_env.metadata["name"]
"""This environment's id in PettingZoo's registry (PettingZoo >= 1.27), named as PettingZoo
names its own (``classic/leduc_holdem_v4``): the family, a slash, ``metadata["name"]``.
``pettingzoo.make("aec", REGISTRY_ID, **kwargs)`` is :func:`env` and
``pettingzoo.make("parallel", REGISTRY_ID, **kwargs)`` is :func:`parallel_env`; the registry
writes the id ``treachery/treachery-v0`` (its ``_vN`` -> ``-vN``) and takes either spelling.
Registered on import of this package."""

for _kind, _entry in (("aec", "treachery_env.env:env"), ("parallel", "treachery_env.env:parallel_env")):
    if _re.sub(r"_v(?=\d+$)", "-v", REGISTRY_ID) not in getattr(_pz, f"{_kind}_registry"):
        _pz.register(_kind, REGISTRY_ID, entry_point=_entry)
