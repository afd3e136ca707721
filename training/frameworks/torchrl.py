"""TorchRL recipe: the Treachery AEC environment as a ``torchrl.envs.PettingZooWrapper``.

TorchRL's own wrapper works unchanged once the environment's infos are tensor-friendly, so
this module adds no wrapper of its own: :func:`make_torchrl_env` builds
``treachery_env.env(view_in_info=False, legal_actions_in_info=False, ...)`` and wraps it in
``PettingZooWrapper(use_mask=True)``.

Why the infos must be tensor-friendly (TorchRL 0.14.1, PettingZoo 1.27): the wrapper builds
an info spec from the infos of ``reset()`` with ``torch.as_tensor`` and writes every later
info into it, so

* the default environment fails in the constructor, on ``info["view"]`` (a
  :class:`~treachery_env.view.SeatView`, no tensor)::

      TypeError: new(): invalid data type 'str'

  (earlier versions of the environment, whose view was a lazy object, failed with
  ``Could not infer dtype of LazySeatView``);
* ``env(view_in_info=False)`` fails at the first step whose number of legal actions differs
  from the reset's, on ``info["legal_actions"]``::

      RuntimeError: The expanded size of the tensor (2) must match the existing size (8) at
      non-singleton dimension 0.  Target sizes: [2].  Tensor sizes: [8]

With ``legal_actions_in_info=False`` as well every info is ``{}`` and the wrapper reads the
legal actions from the observation's fixed-shape ``action_mask``.

What a rollout holds (one group per seat by default, ``"player_0"`` ... ``"player_{n-1}"``):

* ``(group, "observation", "observation")``: float32 ``(group size, obs_size)``;
  ``(group, "action_mask")``: bool ``(group size, A)``, the legal actions of the seat that
  acts and all True for every other seat (TorchRL's convention); ``(group, "mask")``: bool
  ``(group size,)``, True for the one seat that acts at that step (AEC: one seat at a time,
  possibly many steps in a row).  ``(group, "action")``: int64 ``(group size,)``; only the
  acting seat's action is played.
* Rewards come only at the end of the game: the final step's ``("next", group, "reward")``,
  float32 ``(group size, 1)``, holds every seat's end reward (+1 its team won, -1 it lost,
  0 for a draw or a truncation at ``max_turns``), eliminated seats and seats that do not
  act at that step included; ``("next", group, "terminated" | "truncated" | "done")`` are
  set for every seat at that same step and the top-level ``("next", "done")`` (all seats
  done) ends the episode.  A learner that keeps only the rows where a seat's ``"mask"`` is
  True must carry that last row's reward to the seat's last acting row itself.
* ``return_state=True`` adds ``"state"``, float32 ``(state_size,)``, the privileged state of
  :meth:`treachery_env.env.raw_env.state` (centralised critics).

The environment raises ``ValueError`` on an action its mask does not allow, so a policy that
ignores ``action_mask`` stops the rollout instead of playing an illegal move.
"""

from __future__ import annotations

from typing import Any

from . import TENSOR_INFO_KWARGS

__all__ = ["make_torchrl_env"]


def make_torchrl_env(config: Any = None, *, seed: int | None = None, group_map: Any = None,
                     categorical_actions: bool = True, return_state: bool = False, device: Any = None,
                     **config_fields: Any) -> Any:
    """A ready TorchRL environment over a Treachery game: ``PettingZooWrapper(use_mask=True)``
    around ``treachery_env.env(config, view_in_info=False, legal_actions_in_info=False)``.

    Args:
        config: a :class:`treachery_env.config.GameConfig`, or None to build one from
            ``config_fields`` (``num_players=5``, ``max_turns=100``, ...).
        seed: seeds the environment's stream at construction (TorchRL resets it with this
            seed); later resets continue the stream.
        group_map: TorchRL's agent grouping, passed through: None (one group per seat,
            ``{"player_0": ["player_0"], ...}``), a ``torchrl.envs.utils.MarlGroupMapType``
            (``ALL_IN_ONE_GROUP`` stacks the seats in one group ``"agents"`` for a shared
            policy) or a dict ``{group: [agent, ...]}``.
        categorical_actions: int64 action indices (True) or one-hot actions (False).
        return_state: add the privileged ``"state"`` entry (see the module docstring).
        device: the tensors' device (None: TorchRL's default, the CPU).
        **config_fields: :class:`GameConfig` fields, as for :func:`treachery_env.env`.

    Returns:
        a ``torchrl.envs.PettingZooWrapper``; its underlying PettingZoo environment is its
        ``_env`` attribute (``wrapper._env.unwrapped.game`` is the running game).

    Raises:
        ValueError: for ``view_in_info`` or ``legal_actions_in_info`` in ``config_fields``
            (this recipe needs both off), or an invalid configuration.
        ImportError: when torchrl is not installed (``pip install -e ".[torchrl]"``).
    """
    clash = sorted(k for k in TENSOR_INFO_KWARGS if k in config_fields)
    if clash:
        raise ValueError(f"make_torchrl_env sets {', '.join(clash)}=False itself (TorchRL cannot hold the view or "
                         f"the varying-length legal actions in its info tensors); leave {clash[0]} out")
    try:
        from torchrl.envs import PettingZooWrapper
    except ImportError as e:     # pragma: no cover - the dev extra installs it
        raise ImportError(f"make_torchrl_env needs torchrl (pip install -e \".[torchrl]\"): {e}") from e
    import treachery_env

    aec = treachery_env.env(config=config, **TENSOR_INFO_KWARGS, **config_fields)
    kwargs: dict[str, Any] = {} if device is None else {"device": device}
    return PettingZooWrapper(aec, use_mask=True, group_map=group_map, categorical_actions=categorical_actions,
                             return_state=return_state, seed=seed, **kwargs)
