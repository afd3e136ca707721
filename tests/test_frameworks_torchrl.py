"""TorchRL: ``PettingZooWrapper(use_mask=True)`` over the Treachery AEC env (training/frameworks/torchrl.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import treachery_env
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
from training.frameworks.torchrl import make_torchrl_env

# short games: no Commander, 3 life, few priority windows, no talk, no mulligans
SHORT = dict(num_players=5, commander=False, starting_life=3, max_turns=100, priority_windows="main", talk="none",
             mulligans="none")

pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested using version:UserWarning")


class MaskedRandomPolicy:
    """Samples each group's actions uniformly from its ``action_mask`` (a seeded generator) and
    checks, before each step, that exactly the PettingZoo env's selected seat acts and that its
    ``action_mask`` is that seat's legal actions."""

    def __init__(self, env, seed: int):
        self.env = env
        self.gen = torch.Generator().manual_seed(seed)
        self.steps = 0

    def __call__(self, td):
        aec = self.env._env
        acting = []
        for group, agents in self.env.group_map.items():
            mask = td[group, "action_mask"]
            td[group, "action"] = torch.multinomial(mask.float(), 1, generator=self.gen).squeeze(-1)
            for i, agent in enumerate(agents):
                if td[group, "mask"][i]:
                    acting.append(agent)
                    legal = aec.observe(agent)["action_mask"].astype(bool)
                    assert torch.equal(mask[i], torch.from_numpy(legal))
                    assert legal[int(td[group, "action"][i])]
        assert acting == [aec.agent_selection]
        self.steps += 1
        return td


def _seat_rewards(td, env) -> dict[int, torch.Tensor]:
    """Every seat's reward at every step of the rollout ``td``, float32 (T,)."""
    out = {}
    for group, agents in env.group_map.items():
        rew = td["next", group, "reward"]                       # (T, group size, 1)
        for i, agent in enumerate(agents):
            out[int(agent.split("_")[1])] = rew[:, i, 0]
    return out


def _check_game(td, env, policy_steps: int) -> dict[int, float]:
    """Checks one full game's rollout: done only at its last step, every seat's end reward there
    (from the game's winners) and nowhere before; returns the end rewards by seat."""
    game = env._env.unwrapped.game
    assert game.is_over
    T = td.shape[0]
    assert T == policy_steps and T > 10
    done = td["next", "done"].squeeze(-1)
    assert done[-1] and not done[:-1].any()
    end = {}
    for seat, rew in _seat_rewards(td, env).items():
        expect = 0.0 if game.truncated or not game.winners else (1.0 if seat in game.winners else -1.0)
        assert rew[-1].item() == expect and not rew[:-1].any()
        end[seat] = expect
    for group, agents in env.group_map.items():
        assert td["next", group, "terminated"][-1].all() != bool(game.truncated)
        assert td["next", group, "truncated"][-1].all() == bool(game.truncated)
    return end


def test_unchanged_wrapper_fails_on_the_default_infos():
    # the reasons for the tensor-friendly infos (the errors quoted in training/frameworks/torchrl.py)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="invalid data type 'str'"):       # info["view"]
            PettingZooWrapper(treachery_env.env(**SHORT), use_mask=True, seed=0)
        env = PettingZooWrapper(treachery_env.env(view_in_info=False, **SHORT), use_mask=True, seed=0)
        with pytest.raises(RuntimeError, match="expanded size of the tensor"):  # info["legal_actions"]
            env.rollout(200, policy=MaskedRandomPolicy(env, 0))


def test_rollouts_give_every_seat_its_end_reward():
    env = make_torchrl_env(seed=0, **SHORT)
    assert env.group_map == {f"player_{i}": [f"player_{i}"] for i in range(5)}
    seen = set()
    for game in range(3):
        policy = MaskedRandomPolicy(env, game)
        td = env.rollout(3000, policy=policy, break_when_any_done=True)
        seen |= set(_check_game(td, env, policy.steps).values())
        # one seat acts per step, and every seat acts in the game
        acting = torch.stack([td[g, "mask"][:, 0] for g in env.group_map], -1)
        assert (acting.sum(-1) == 1).all() and acting.any(0).all()
    assert {1.0, -1.0} <= seen          # these seeds' games have winners and losers


def test_one_group_rollout_with_state():
    env = make_torchrl_env(seed=5, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP, return_state=True, **SHORT)
    assert list(env.group_map) == ["agents"]
    policy = MaskedRandomPolicy(env, 1)
    td = env.rollout(3000, policy=policy, break_when_any_done=True)
    end = _check_game(td, env, policy.steps)
    assert sorted(end) == list(range(5))
    state_size = env._env.unwrapped.state_space.shape[0]
    assert td["state"].shape == (td.shape[0], state_size)
    np.testing.assert_array_equal(td["next", "state"][-1].numpy(), env._env.unwrapped.state())
    assert (td["agents", "mask"].sum(-1) == 1).all()


def test_make_torchrl_env_refuses_the_info_keywords():
    for kw in ({"view_in_info": True}, {"legal_actions_in_info": False}):
        with pytest.raises(ValueError, match="make_torchrl_env sets"):
            make_torchrl_env(**kw, **SHORT)
    with pytest.raises(ValueError, match="num_players"):
        make_torchrl_env(num_players=2)
