"""Shared fixtures: small untrained policy checkpoints (no training needed)."""

from __future__ import annotations

import pytest


def write_policy(path, num_players: int, hidden: int = 16, seed: int = 0):
    """An untrained :class:`agents.policy.PolicyNet` for ``num_players`` saved at ``path``."""
    import torch

    from agents.policy import PolicyNet, save_checkpoint
    from treachery_env import GameConfig
    from treachery_env.env import raw_env

    torch.manual_seed(seed)
    cfg = GameConfig(num_players=num_players)
    e = raw_env(config=cfg)
    net = PolicyNet(int(e.observation_space("player_0")["observation"].shape[0]),
                    int(e.action_space("player_0").n), num_players, hidden)
    return save_checkpoint(path, net, cfg.to_dict())


@pytest.fixture(scope="session")
def policy_4p(tmp_path_factory):
    """Path of an untrained 4-player policy checkpoint."""
    return write_policy(tmp_path_factory.mktemp("policy") / "p4.pt", 4)
