"""RLlib's masked PPO module for Treachery (new API stack, ``ray[rllib]>=2.60``).

:class:`MaskedPPOTorchRLModule` is RLlib's default PPO module over the environment's own
observation dict ``{"observation": float32 (obs_size,), "action_mask": int8 (A,)}``: the encoder,
policy and value heads read ``"observation"`` (RLlib's default MLP, ``model_config`` as usual),
and the logits of the actions the mask forbids are set to the float minimum before any
distribution is built, so exploration, inference and the PPO loss see only legal actions.
(RLlib's own example module, ``ActionMaskingTorchRLModule``, needs the key ``"observations"``;
this one takes the environment unchanged.)  :mod:`training.frameworks.rllib` builds the PPO
configuration around it; :class:`agents.rllib.RLlibAgent` plays a trained one.

Importing this module imports Ray (``pip install .[rllib]``); RLlib's checkpoints name it, so
it stays importable under this name.
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

__all__ = ["MaskedPPOTorchRLModule"]

_MASKED = torch.finfo(torch.float32).min


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's torch RLModule over the Treachery observation dict, with illegal actions masked.

    Args:
        observation_space: the environment's ``Dict(observation=Box(float32, (obs_size,)),
            action_mask=Box(int8, (A,)))``.
        action_space: ``Discrete(A)``.
        (the other arguments as :class:`ray.rllib.core.rl_module.rl_module.RLModule`)

    Raises:
        ValueError: for an observation space that is not such a ``Dict``.
    """

    def __init__(self, *, observation_space=None, action_space=None, inference_only=None, learner_only=False,
                 model_config=None, catalog_class=None, **kwargs: Any):
        import gymnasium
        if not (isinstance(observation_space, gymnasium.spaces.Dict)
                and {"observation", "action_mask"} <= set(observation_space.spaces)):
            raise ValueError(f"MaskedPPOTorchRLModule needs the Treachery observation space "
                             f"Dict(observation=Box, action_mask=Box), got {observation_space}")
        self._observation_dict_space = observation_space
        # the catalog builds the encoder for the vector alone
        super().__init__(observation_space=observation_space["observation"], action_space=action_space,
                         inference_only=inference_only, learner_only=learner_only, model_config=model_config,
                         catalog_class=catalog_class, **kwargs)

    def setup(self) -> None:
        """Build the encoder and heads (RLlib's PPO), then expose the whole ``Dict`` space
        (the connectors batch both keys)."""
        super().setup()
        self.observation_space = self._observation_dict_space

    @staticmethod
    def _split(batch: dict) -> tuple[dict, torch.Tensor | None]:
        """``(batch with OBS the vector, the mask)``; a batch whose OBS is already the vector
        passes through with no mask.  The caller's batch is not changed."""
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict):
            return batch, None
        inner = dict(batch)
        inner[Columns.OBS] = obs["observation"]
        return inner, obs["action_mask"]

    @staticmethod
    def _mask(outs: dict, mask: torch.Tensor | None) -> dict:
        if mask is not None:
            outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS].masked_fill(mask == 0, _MASKED)
        return outs

    def _forward(self, batch: dict, **kwargs: Any) -> dict:
        """Inference and exploration (RLlib calls it for both): masked logits, ``ACTION_DIST_INPUTS`` float32 (B, A)."""
        inner, mask = self._split(batch)
        return self._mask(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        """The learner's pass: masked logits and the critic's embeddings."""
        inner, mask = self._split(batch)
        return self._mask(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        """The value of each row's observation vector, float32 (B,) (the mask is not read)."""
        inner, _ = self._split(batch)
        return super().compute_values(inner, embeddings)
