"""Tianshou adapter: every seat gets its end reward in the transitions Tianshou gives its policy.

Tianshou 2.0's multi-agent layer (``tianshou.env.PettingZooEnv`` with
``tianshou.algorithm.multiagent.marl``: ``MultiAgentPolicy`` and ``MARLDispatcher`` behind
``MultiAgentOnPolicyAlgorithm`` / ``MultiAgentOffPolicyAlgorithm``, the 2.0 successors of
``MultiAgentPolicyManager``) stores one buffer row per environment step: the acting seat's
observation (``obs.agent_id`` names it), its action, and the step's reward *vector* (one
entry per seat, ``env.rewards``).  A seat's policy learns from the rows whose
``obs.agent_id`` is that seat, reading only its own column of ``rew``.  Two things go wrong
with the Treachery environment:

1. Ragged infos.  With the default infos the Collector fails when it stores the second
   step::

       ValueError: shape mismatch: value array of shape (1,6) could not be broadcast to
       indexing result of shape (1,2)

   (``info["legal_actions"]``, a list whose length changes every step).  The end-of-game
   ``info["winners"]`` list is worse: a buffer whose first game had two winners stores a
   later one-winner game's ``[1]`` silently as ``[1, 1]``.  Hence
   ``view_in_info=False, legal_actions_in_info=False`` (every info ``{}``).
2. Lost end rewards.  The game rewards every seat (+1 / -1 / 0) only at its last step,
   which is one seat's action: the row of that step belongs to that seat, so the stock
   ``PettingZooEnv`` credits the end reward to the last actor only.  Every other seat's rows
   carry 0 all game: in a 5-player game, 4 of the 5 seats never see whether they won.

:class:`EndRewardPettingZooEnv` fixes the second with *hand-off* transitions: when the game
ends, the step's reward vector holds only the last actor's end reward; then each other seat,
in seat order, is handed one more transition whose observation is that seat's (its final
observation, ``obs.agent_id`` the seat, ``obs.handoff`` True, a mask that allows action 0
only), whose action is ignored, and whose reward vector holds that seat's end reward.  The
last hand-off is reported terminated (or truncated, for a game cut at ``max_turns``); the
ones before are not, so the Collector keeps the episode going through them.  So

* each seat's last row in the buffer carries its end reward in its own column (the last
  actor's is its real last action; the others' is their hand-off), the rows a seat's policy
  is given (``MARLDispatcher``) include it, and
* summed over an episode, the reward vectors give each seat its end reward exactly once
  (Tianshou's episode returns are the end rewards).

An episode is ``n - 1`` steps longer than the game.  Learners should not train the policy on
hand-off actions (``obs.handoff`` marks those rows; their action means nothing) but may use
their rewards and observations for values and returns.  Tianshou computes returns over the
buffer's row order, which interleaves the seats: that is Tianshou's multi-agent design, not
changed here.

Importing this module needs tianshou (``pip install -e ".[tianshou]"``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tianshou.env import PettingZooEnv

from . import TENSOR_INFO_KWARGS

__all__ = ["EndRewardPettingZooEnv", "make_tianshou_env"]


class EndRewardPettingZooEnv(PettingZooEnv):
    """``tianshou.env.PettingZooEnv`` over a Treachery AEC environment, with end-of-game
    hand-off transitions so that every seat's rows carry its end reward (module docstring).

    Observations (what ``reset`` and ``step`` return) are dicts: ``"agent_id"`` (str, the seat
    whose row this is), ``"obs"`` (float32 ``(obs_size,)``), ``"mask"`` (bool ``(A,)``: the
    legal actions; ``[True, False, ..., False]`` in a hand-off) and ``"handoff"`` (bool).
    ``step`` returns ``(obs, rew, terminated, truncated, info)`` with ``rew`` float32 ``(n,)``
    indexed by :attr:`agent_idx` and ``info`` ``{}``.

    Attributes:
        last_outcome: after the last game that ended (kept through ``reset``), ``{"winners":
            sorted list of seats, "truncated": bool, "end_rewards": {agent: float}}``, read
            from the game itself; None before the first game ends.  (The infos are empty, so
            this is where a training loop finds win rates.)

    Args:
        env: ``treachery_env.env(view_in_info=False, legal_actions_in_info=False, ...)`` (the
            wrapped AEC environment; :func:`make_tianshou_env` builds it).

    Raises:
        ValueError: for an env that is not a Treachery environment, or one made with
            ``view_in_info`` or ``legal_actions_in_info`` on.
    """

    def __init__(self, env: Any) -> None:
        from treachery_env.env import raw_env

        raw = getattr(env, "unwrapped", None)
        if not isinstance(raw, raw_env):
            raise ValueError(f"env must be a Treachery environment (treachery_env.env(...)), got {type(env).__name__}")
        on = [k for k in TENSOR_INFO_KWARGS if getattr(raw, k)]
        if on:
            raise ValueError(f"env was made with {', '.join(f'{k}=True' for k in on)}; Tianshou's buffer cannot hold "
                             f"those infos: make it with view_in_info=False, legal_actions_in_info=False")
        self._raw = raw
        self._pending: list[str] = []       # seats still to be handed their end reward
        self._end_rewards: dict[str, float] = {}
        self._truncated = False
        self._over = False                  # the episode ended (the last hand-off was taken)
        self.last_outcome: dict[str, Any] | None = None
        self._handoff_mask = np.zeros(raw.layout.size, bool)
        self._handoff_mask[0] = True
        super().__init__(env)               # sets agents, agent_idx, the spaces; calls reset()

    def _obs(self, agent: str, handoff: bool) -> dict[str, Any]:
        o = self.env.observe(agent)
        return {"agent_id": agent, "obs": o["observation"],
                "mask": self._handoff_mask.copy() if handoff else o["action_mask"].astype(bool),
                "handoff": handoff}

    def reset(self, *args: Any, **kwargs: Any) -> tuple[dict, dict]:
        """Start a new game (``seed=`` and ``options=`` as :meth:`treachery_env.env.raw_env.reset`).

        Returns:
            ``(obs, {})``: the first deciding seat's observation dict (class docstring).
        """
        self.env.reset(*args, **kwargs)
        self._pending = []
        self._end_rewards = {}
        self._over = False
        return self._obs(self.env.agent_selection, False), {}

    def step(self, action: Any) -> tuple[dict, np.ndarray, bool, bool, dict]:
        """Play ``action`` for the seat of the last observation, or take a hand-off.

        During the game the action goes to the environment.  When it ends the game, the
        returned reward vector holds the acting seat's end reward only and the observation is
        the first hand-off; in a hand-off the action is ignored and the reward vector holds
        that seat's end reward; the last hand-off returns ``terminated`` (``truncated`` for a
        game cut at ``max_turns``).

        Returns:
            ``(obs, rew, terminated, truncated, {})``: ``rew`` float32 ``(n,)``.

        Raises:
            ValueError: for an action the environment refuses (not an int, out of range,
                not allowed by the mask).
            RuntimeError: after the episode ended (call ``reset()``).
        """
        if self._over:
            raise RuntimeError("step() after the episode ended (the last hand-off was taken): call reset()")
        rew = np.zeros(len(self.agents), np.float32)
        if self._pending:                     # a hand-off: this seat's end reward
            seat = self._pending.pop(0)
            rew[self.agent_idx[seat]] = self._end_rewards[seat]
            if self._pending:
                return self._obs(self._pending[0], True), rew, False, False, {}
            self._over = True
            return self._obs(seat, True), rew, not self._truncated, self._truncated, {}
        env = self.env
        actor = env.agent_selection
        env.step(action)
        if not all(env.terminations[a] or env.truncations[a] for a in env.agents):
            return self._obs(env.agent_selection, False), rew, False, False, {}
        # the game ended: the actor keeps its own end reward; every other seat gets a hand-off
        game = self._raw.game
        self._end_rewards = {a: float(env.rewards[a]) for a in self.agents}
        self._truncated = bool(game.truncated)
        self.last_outcome = {"winners": sorted(game.winners), "truncated": self._truncated,
                             "end_rewards": dict(self._end_rewards)}
        rew[self.agent_idx[actor]] = self._end_rewards[actor]
        self._pending = [a for a in self.agents if a != actor]
        return self._obs(self._pending[0], True), rew, False, False, {}

    def seed(self, seed: Any = None) -> None:
        """Reseed by starting a new game with ``seed`` (as ``reset(seed=seed)``)."""
        self.reset(seed=seed)


def make_tianshou_env(config: Any = None, **config_fields: Any) -> EndRewardPettingZooEnv:
    """``EndRewardPettingZooEnv(treachery_env.env(config, view_in_info=False,
    legal_actions_in_info=False, **config_fields))``: the environment for Tianshou's
    ``Collector`` (inside a ``DummyVectorEnv`` or ``SubprocVectorEnv``) and its
    multi-agent algorithms (``MultiAgentOnPolicyAlgorithm(algorithms=..., env=this)``).

    Args:
        config: a :class:`treachery_env.config.GameConfig`, or None to build one from
            ``config_fields`` (``num_players=5``, ``max_turns=100``, ...).

    Raises:
        ValueError: for ``view_in_info`` or ``legal_actions_in_info`` in ``config_fields``
            (this recipe needs both off), or an invalid configuration.
    """
    clash = sorted(k for k in TENSOR_INFO_KWARGS if k in config_fields)
    if clash:
        raise ValueError(f"make_tianshou_env sets {', '.join(clash)}=False itself (Tianshou's buffer cannot hold "
                         f"the view or the varying-length legal actions); leave {clash[0]} out")
    import treachery_env

    return EndRewardPettingZooEnv(treachery_env.env(config=config, **TENSOR_INFO_KWARGS, **config_fields))
