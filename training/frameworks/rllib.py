"""RLlib (``ray[rllib]>=2.60``, new API stack) on Treachery: the environment, a PPO configuration, a script.

What the stock pieces need, and what this module gives them:

* RLlib's :class:`~ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv` takes the AEC env
  unchanged (:func:`make_env`); it steps the seats out of the game at the end, so every seat's
  episode ends with its own end reward (+1 / -1 / 0, PettingZoo's cumulative reward).  The
  env is made with ``view_in_info=False`` (a bot's view is not for a tensor learner) and
  without ``info["legal_actions"]``, whose length changes at every step (the mask says the same).
* RLlib's environment check steps the env with actions sampled from ``Discrete(A)``, which the
  game refuses as illegal (``ValueError``), so :func:`ppo_config` turns it off.
* No default encoder reads a ``Dict`` observation, and RLlib's masking example needs the key
  ``"observations"``: :class:`agents.rllib_module.MaskedPPOTorchRLModule` reads our keys.
* Self-play: every seat maps to one module, :data:`agents.rllib.MODULE_ID`.

Run ``python -m training.frameworks.rllib --iterations 5 --out runs/rllib`` here, or, on a Ray
cluster, ``python -m training.frameworks.rllib --address ray://HEAD:10001 --env-runners 16 ...``
(or ``--address auto`` on a node of the cluster; this package must be installed on every
node, ``pip install .[rllib]``).  The checkpoint then plays as a bot:
``treachery evaluate --agents rllib:runs/rllib:greedy,heuristic``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.tune.registry import register_env

import treachery_env
from agents.files import check_folder
from agents.rllib import MODULE_ID
from agents.rllib_module import MaskedPPOTorchRLModule

from . import TENSOR_INFO_KWARGS

__all__ = ["ENV_NAME", "make_env", "ppo_config", "save", "main"]

ENV_NAME = "treachery"
"""The name :func:`ppo_config` registers the environment under (``ray.tune.registry.register_env``)."""


def make_env(env_config: dict | None = None) -> PettingZooEnv:
    """RLlib's ``PettingZooEnv`` over ``treachery_env.env(**env_config)`` (RLlib's env creator).

    Args:
        env_config: :class:`treachery_env.GameConfig` fields (``num_players``, ``max_turns``, ...);
            RLlib's ``EnvContext`` is read as the plain dict it is.

    Raises:
        ValueError: for a bad field (as :class:`treachery_env.GameConfig`).
    """
    return PettingZooEnv(treachery_env.env(**dict(env_config or {}), **TENSOR_INFO_KWARGS))


def _policy_of(agent_id: Any, *args: Any, **kwargs: Any) -> str:
    """Every seat plays the shared module (self-play)."""
    return MODULE_ID


def ppo_config(env_config: dict | None = None, env_runners: int = 1, train_batch_size: int = 4000,
               minibatch_size: int = 500, epochs: int = 4, hidden: tuple[int, ...] = (256, 256),
               seed: int | None = None) -> PPOConfig:
    """A multi-agent PPO configuration for Treachery self-play: the env of :func:`make_env`
    (registered as :data:`ENV_NAME`), every seat on one :class:`~agents.rllib_module.MaskedPPOTorchRLModule`,
    RLlib's env check off (it samples unmasked actions).

    Args:
        env_config: GameConfig fields for every env (default: 5 players).
        env_runners: remote env runners (0: sample in the driver).
        train_batch_size: env steps per learner update (all seats' decisions).
        minibatch_size: SGD minibatch, in steps.
        epochs: passes over each batch.
        hidden: the MLP's layer widths (encoder; RLlib's ``fcnet_hiddens``).
        seed: RLlib's seed (``debugging(seed=...)``), None for none.

    Returns:
        A :class:`~ray.rllib.algorithms.ppo.PPOConfig`; ``.build_algo()`` makes the algorithm.

    Raises:
        ValueError: for a bad ``env_config`` (checked here by making one env).
    """
    env_config = dict(env_config or {"num_players": 5})
    make_env(env_config).close()        # a bad config fails here, in one line, not in a remote runner
    register_env(ENV_NAME, make_env)
    config = (PPOConfig()
              .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
              .env_runners(num_env_runners=env_runners)
              .multi_agent(policies={MODULE_ID}, policy_mapping_fn=_policy_of)
              .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
                  MODULE_ID: RLModuleSpec(module_class=MaskedPPOTorchRLModule,
                                          model_config={"fcnet_hiddens": list(hidden)})}))
              .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                        num_epochs=epochs))
    if seed is not None:
        config = config.debugging(seed=seed)
    return config


def save(algo: Any, path: str | os.PathLike) -> str:
    """Save ``algo`` (``Algorithm.save_to_path``) with the game it trained on beside it
    (:data:`agents.rllib.GAME_FILE`, the env config as :class:`treachery_env.GameConfig` fields), so
    that ``rllib:PATH`` warns when it plays another game, as a policy of our own does.

    Returns:
        the checkpoint's folder, absolute (RLlib reads a relative one as a URI).
    """
    from agents.files import atomic_write_bytes
    from agents.rllib import GAME_FILE

    folder = algo.save_to_path(os.path.abspath(os.fspath(path)))
    game = treachery_env.GameConfig.from_kwargs(**dict(algo.config.env_config)).to_dict()
    atomic_write_bytes(os.path.join(folder, GAME_FILE), json.dumps(game, indent=1).encode())
    return folder


def _summary(result: dict) -> dict:
    """The figures printed per iteration: episodes, env steps, mean episode length, and the
    shared module's policy loss and entropy (absent before its first update)."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MODULE_ID, {})
    return {"episodes": runners.get("num_episodes_lifetime"), "env_steps": runners.get("num_env_steps_sampled_lifetime"),
            "episode_len_mean": runners.get("episode_len_mean"), "policy_loss": learner.get("policy_loss"),
            "entropy": learner.get("entropy")}


def main(argv: list[str] | None = None) -> int:
    """``python -m training.frameworks.rllib``: train the shared module with RLlib's PPO for
    ``--iterations`` and save the algorithm to ``--out`` (a checkpoint ``rllib:OUT`` plays)."""
    p = argparse.ArgumentParser(prog="python -m training.frameworks.rllib",
                                description="Treachery self-play with RLlib's PPO (new API stack)")
    p.add_argument("--players", type=int, default=5, help="seats at the table (default 5)")
    p.add_argument("--max-turns", type=int, default=None, help="truncate games at this turn (default: the game's)")
    p.add_argument("--iterations", type=int, default=5, help="training iterations (default 5)")
    p.add_argument("--env-runners", type=int, default=1,
                   help="remote env runners, one CPU of the cluster each (default 1)")
    p.add_argument("--batch", type=int, default=4000, help="env steps per update (default 4000)")
    p.add_argument("--address", default=None,
                   help="a Ray cluster to join (ray://HOST:10001, or auto on a node); default: a local Ray")
    p.add_argument("--seed", type=int, default=0, help="RLlib's seed (default 0)")
    p.add_argument("--out", required=True, help="folder for the checkpoint (Algorithm.save_to_path)")
    args = p.parse_args(argv)
    try:
        check_folder(args.out, "--out")         # before the training, not at its save
    except ValueError as err:
        p.error(str(err))
    env_config = {"num_players": args.players}
    if args.max_turns is not None:
        env_config["max_turns"] = args.max_turns
    import ray
    try:
        config = ppo_config(env_config, env_runners=args.env_runners, train_batch_size=args.batch,
                            minibatch_size=min(500, args.batch), seed=args.seed)
    except ValueError as err:
        p.error(str(err))
    started = not ray.is_initialized()      # a caller's Ray (a notebook, a test) is used as it is
    if started:
        from treachery_env.compiled import starting_workers
        with starting_workers():        # a local Ray's workers inherit this environment
            ray.init(address=args.address, include_dashboard=False)
    try:
        cpus = ray.cluster_resources().get("CPU", 0)
        if args.env_runners > cpus:   # each env runner is an actor of one CPU: RLlib would wait for them for ever
            p.error(f"--env-runners {args.env_runners}: the Ray cluster has {cpus:g} CPU(s), one per env runner")
        algo = config.build_algo()
        for i in range(args.iterations):
            print(json.dumps({"iteration": i + 1, **_summary(algo.train())}), flush=True)
        path = save(algo, args.out)
        print(f"saved {path}; play it with: treachery evaluate --agents rllib:{args.out}:greedy,heuristic")
        algo.stop()
    finally:
        if started:
            ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
