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

__all__ = ["env", "parallel_env", "raw_env", "GameConfig", "Role", "role_distribution"]
__version__ = "0.1.0"

import pettingzoo as _pz

# PettingZoo >= 1.27 has a registry: pettingzoo.make("aec", "treachery/treachery-v0")
if hasattr(_pz, "register") and "treachery/treachery-v0" not in getattr(_pz, "aec_registry", {}):
    _pz.register("aec", "treachery/treachery-v0", entry_point="treachery_env.env:env")
