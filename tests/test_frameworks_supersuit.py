"""SuperSuit (and through it SB3/CleanRL-style vector training) over ``treachery_env.parallel_env()``,
unchanged (issue #14): ``pettingzoo_env_to_vec_env_v1`` makes one vector slot per seat, only the
acting seat's mask is nonzero, and every seat's slot receives its end reward."""

from __future__ import annotations

import numpy as np
import supersuit as ss

import treachery_env


def test_supersuit_vector_env_gives_every_seat_its_end_reward():
    par = treachery_env.parallel_env(num_players=4, starting_life=8, view_in_info=False)
    vec = ss.pettingzoo_env_to_vec_env_v1(par)
    assert vec.num_envs == 4
    obs, _ = vec.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(20_000):
        masks = obs["action_mask"]
        acting = np.flatnonzero(masks.any(axis=1))
        assert acting.size == 1                      # turn-based: one seat decides
        actions = np.zeros(4, np.int64)
        actions[acting[0]] = rng.choice(np.flatnonzero(masks[acting[0]]))
        game = par.aec_env.unwrapped.game
        obs, rewards, terminated, truncated, _ = vec.step(actions)
        if terminated.any() or truncated.any():
            break
    assert game.is_over and not game.truncated and terminated.all()
    want = [1.0 if s in game.winners else -1.0 for s in range(4)]
    assert rewards.tolist() == want
