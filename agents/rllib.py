"""A bot that plays an RLlib-trained policy (``agents.make("rllib:PATH")``, ``"rllib:PATH:greedy"``).

:class:`RLlibAgent` loads :class:`agents.rllib_module.MaskedPPOTorchRLModule` from an RLlib
checkpoint (the folder ``Algorithm.save_to_path`` writes, or the module's folder inside it)
and plays from the observation vector and mask alone, as a trained policy of our own does
(:class:`agents.policy.PolicyAgent`).  Ray is imported when a bot is made, not with this module
(``pip install .[rllib]``).
"""

from __future__ import annotations

import json
import logging
import os

import numpy as np

from .base import BaseAgent, legal_actions

__all__ = ["RLlibAgent", "module_path", "MODULE_ID", "GAME_FILE"]

MODULE_ID = "shared"
"""The RLModule every seat plays in :func:`training.frameworks.rllib.ppo_config` (self-play, one policy)."""


GAME_FILE = "treachery_game.json"
"""The file beside an RLlib checkpoint that records the game it was trained on
(:func:`training.frameworks.rllib.save`): :class:`treachery_env.GameConfig` fields as JSON."""


def module_path(path: str | os.PathLike, module_id: str = MODULE_ID) -> str:
    """The RLModule folder (absolute) inside an RLlib checkpoint: ``PATH`` itself when it is a module's
    folder, else ``PATH/learner_group/learner/rl_module/MODULE_ID`` (an algorithm's
    checkpoint, ``Algorithm.save_to_path``) or ``PATH/rl_module/MODULE_ID``.

    Raises:
        ValueError: if ``PATH`` is not a folder or holds no such module.
    """
    path = os.path.abspath(os.fspath(path))     # RLlib reads a relative path as a URI without a scheme
    if not os.path.isdir(path):
        raise ValueError(f"RLlib checkpoint {path!r} is not a folder (give the folder Algorithm.save_to_path "
                         f"wrote, or an RLModule's folder inside it)")
    for candidate in (os.path.join(path, "learner_group", "learner", "rl_module", module_id),
                      os.path.join(path, "rl_module", module_id), path):
        if os.path.isfile(os.path.join(candidate, "module_state.pkl")):
            return candidate
    raise ValueError(f"RLlib checkpoint {path!r} holds no RLModule {module_id!r} (looked in the folder, "
                     f"learner_group/learner/rl_module/{module_id} and rl_module/{module_id})")


class RLlibAgent(BaseAgent):
    """A bot playing an RLlib-trained :class:`~agents.rllib_module.MaskedPPOTorchRLModule` (``agents.make("rllib:PATH")``).

    It reads the observation vector and the action mask only (no ``info["view"]``); it samples
    from the masked action distribution, or takes its most probable action with ``greedy``.

    Args:
        path: an RLlib checkpoint folder (see :func:`module_path`).
        seed: the sampling stream's seed.
        greedy: arg-max instead of sampling.
        module_id: the module to play (``"shared"``, as :mod:`training.frameworks.rllib` trains).

    Raises:
        ValueError: for a path that holds no such module, or a module whose spaces are not a
            Treachery table's (see :meth:`num_players`).
    """

    name = "rllib"

    def __init__(self, path: str, seed: int | None = None, greedy: bool = False, module_id: str = MODULE_ID):
        super().__init__(seed)
        self.path = module_path(path, module_id)
        try:
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ImportError:
            raise ValueError("an rllib bot needs Ray's RLlib: pip install '.[rllib]' (ray[rllib]>=2.60)") from None
        quiet = logging.getLogger("ray._common.deprecation")   # RLlib 2.60 warns of its own module config
        level = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            self.module = RLModule.from_checkpoint(self.path)
        except Exception as err:   # noqa: BLE001 - RLlib raises many kinds for a damaged checkpoint
            raise ValueError(f"RLlib checkpoint {self.path!r} could not be loaded: {type(err).__name__}: "
                             f"{str(err).splitlines()[0] if str(err) else ''}") from None
        finally:
            quiet.setLevel(level)
        self.module.eval()
        self.greedy = greedy
        self._players = _table_of(self.module, self.path)
        game = os.path.join(os.path.abspath(os.fspath(path)), GAME_FILE)
        try:
            with open(game, encoding="utf-8") as f:
                self.game_config: dict | None = json.load(f)
        except FileNotFoundError:
            self.game_config = None           # saved without training.frameworks.rllib.save
        except (OSError, ValueError) as err:
            raise ValueError(f"RLlib checkpoint {path!r}: {GAME_FILE} cannot be read: {err}") from None

    def check_config(self, config) -> dict:
        """Warn once (:class:`agents.policy.GameConfigMismatchWarning`) when the game to be played
        differs from the one the checkpoint was trained on (its :data:`GAME_FILE`; none: no check).

        Returns:
            ``{field: (trained value, value here)}``, ``{}`` when they agree or nothing is recorded.
        """
        from .policy import _warn_config, config_differences

        if self.game_config is None:
            return {}
        differ = config_differences(self.game_config, config)
        _warn_config(self.path, differ)
        return differ

    def num_players(self) -> int:
        """The table size whose observation and action sizes the module has (it plays no other)."""
        return self._players

    def act(self, observation: dict, info: dict) -> int:
        """A legal action from the module's masked logits (sampled, or the arg-max with ``greedy``)."""
        import torch
        from ray.rllib.core.columns import Columns

        legal = legal_actions(observation)
        obs = {"observation": torch.as_tensor(np.asarray(observation["observation"], dtype=np.float32))[None],
               "action_mask": torch.as_tensor(np.asarray(observation["action_mask"]))[None]}
        with torch.inference_mode():
            out = self.module.forward_inference({Columns.OBS: obs})
        logits = out[Columns.ACTION_DIST_INPUTS][0].double().numpy()
        scores = logits[legal]
        if self.greedy:
            return int(legal[int(np.argmax(scores))])
        p = np.exp(scores - scores.max())
        return int(self.rng.choice(legal, p=p / p.sum()))

    def __repr__(self) -> str:
        return f"RLlibAgent({self.path!r}, greedy={self.greedy})"


def _table_of(module, path: str) -> int:
    """The number of players whose observation and action sizes the module was built for.

    Raises:
        ValueError: if no table size has them.
    """
    from treachery_env.actions import ActionLayout
    from treachery_env.config import MAX_PLAYERS, MIN_PLAYERS
    from treachery_env.observation import obs_layout

    space = getattr(module, "observation_space", None)
    try:
        obs_size = int(space["observation"].shape[0])
        num_actions = int(module.action_space.n)
    except (TypeError, KeyError, AttributeError):
        raise ValueError(f"RLlib module {path!r} is not a Treachery policy (observation space {space})") from None
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        if obs_layout(n).size == obs_size and ActionLayout(n).size == num_actions:
            return n
    raise ValueError(f"RLlib module {path!r} reads observations of size {obs_size} with {num_actions} actions, "
                     f"which no table of this treachery_env has (the layout changed since it was trained?)")
