"""Tianshou 2.0: the Collector and the multi-agent layer over the Treachery env (training/frameworks/tianshou.py)."""

from __future__ import annotations

import numpy as np
import pytest

import treachery_env
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm as RandomAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from training.frameworks.tianshou import EndRewardPettingZooEnv, make_tianshou_env

# short games: no Commander, 3 life, few priority windows, no talk, no mulligans
SHORT = dict(num_players=5, commander=False, starting_life=3, max_turns=100, priority_windows="main", talk="none",
             mulligans="none")
BUFFER = 1500       # rows; these tests' episodes fit with room to spare (checked: the buffer never wraps)


@pytest.fixture
def np_seeded():
    """Tianshou's random policy draws from numpy's global stream: seed it, restore it after."""
    state = np.random.get_state()
    np.random.seed(0)
    yield
    np.random.set_state(state)


def _collector(pz):
    """A multi-agent algorithm of Tianshou's masked random policies over ``pz`` and a Collector for it."""
    algo = MultiAgentOffPolicyAlgorithm(algorithms=[RandomAlgorithm(pz.action_space) for _ in pz.agents], env=pz)
    collector = Collector(algo.policy, DummyVectorEnv([lambda: pz]), VectorReplayBuffer(BUFFER, 1))
    collector.reset(gym_reset_kwargs={"seed": 0})
    return algo, collector


def _expected(outcome_winners, truncated, seat: int) -> float:
    return 0.0 if truncated or not outcome_winners else (1.0 if seat in outcome_winners else -1.0)


def test_stock_wrapper_fails_on_default_infos_and_loses_end_rewards(np_seeded):
    # the default infos: info["legal_actions"] changes length, the buffer cannot store it
    _, collector = _collector(PettingZooEnv(treachery_env.env(**SHORT)))
    with pytest.raises(ValueError, match="shape mismatch"):
        collector.collect(n_episode=1)
    # tensor-friendly infos: it collects, but only the last actor's rows carry its end reward
    pz = PettingZooEnv(treachery_env.env(view_in_info=False, legal_actions_in_info=False, **SHORT))
    _, collector = _collector(pz)
    collector.collect(n_episode=1)
    data = collector.buffer[:len(collector.buffer)]
    assert len(collector.buffer) < BUFFER and data.done[-1] and data.done.sum() == 1
    last_actor = data.obs.agent_id[-1]
    end = data.rew[-1]                              # the final step's vector holds every seat's end reward
    assert np.count_nonzero(end) == 5               # this game has winners
    lost = 0
    for agent, i in pz.agent_idx.items():
        own = data.rew[data.obs.agent_id == agent, i]
        if agent == last_actor:
            assert own.sum() == end[i]
        else:
            assert not own.any()                    # its end reward is in no row of its own
            lost += 1
    assert lost == 4


def test_adapter_gives_every_seat_its_end_reward_in_its_own_rows(np_seeded):
    pz = make_tianshou_env(**SHORT)
    algo, collector = _collector(pz)
    n = len(pz.agents)
    seen = set()
    start = 0
    for _ in range(3):
        stats = collector.collect(n_episode=1)
        outcome = pz.last_outcome      # the game's winners (the collector has reset the env since)
        assert outcome is not None
        data = collector.buffer[start:len(collector.buffer)]
        start = len(collector.buffer)
        expect = np.array([_expected(outcome["winners"], outcome["truncated"], s) for s in range(n)], np.float32)
        assert outcome["end_rewards"] == {f"player_{s}": float(expect[s]) for s in range(n)}
        np.testing.assert_array_equal(stats.returns, expect[None])       # each seat's reward exactly once
        np.testing.assert_array_equal(data.rew.sum(0), expect)
        assert data.done[-1] and data.done.sum() == 1
        assert data.terminated[-1] != outcome["truncated"] and data.truncated[-1] == outcome["truncated"]
        # the hand-offs: the last n - 1 rows, one per seat other than the last actor, action 0 only
        hand = data.obs.handoff
        assert hand.sum() == n - 1 and hand[-(n - 1):].all()
        last_actor = data.obs.agent_id[-n]
        assert sorted(data.obs.agent_id[-(n - 1):]) == sorted(a for a in pz.agents if a != last_actor)
        assert (data.obs.mask[hand] == np.eye(1, pz.action_space.n, 0, bool)).all()
        # every real action was legal (the env would have raised otherwise; checked here as well)
        real = np.flatnonzero(~hand)
        assert data.obs.mask[real, data.act[real]].all()
        # what each seat's policy learns from (Tianshou's dispatcher: its rows, its column): its last row
        # carries its end reward, no other row carries any
        for agent, i in pz.agent_idx.items():
            own = data.rew[data.obs.agent_id == agent, i]
            assert own[-1] == expect[i] and not own[:-1].any()
        seen |= set(expect.tolist())
    assert {1.0, -1.0} <= seen and len(collector.buffer) < BUFFER
    # the same through the multi-agent algorithm's own dispatch (buffer -> per-agent batches)
    batch, indices = collector.buffer.sample(0)
    per_agent = algo._preprocess_batch(batch, collector.buffer, indices)
    for agent, i in pz.agent_idx.items():
        np.testing.assert_array_equal(per_agent[agent].rew, batch.rew[batch.obs.agent_id == agent, i])
        assert per_agent[agent].rew.sum() == batch.rew[:, i].sum()       # nothing of its reward is elsewhere


def test_truncated_game_hands_off_zero_rewards_and_ends_truncated():
    pz = make_tianshou_env(**{**SHORT, "max_turns": 1})
    obs, info = pz.reset(seed=0)
    assert info == {} and obs["handoff"] is False and obs["mask"].dtype == bool
    rng = np.random.default_rng(0)
    rows = []
    while True:
        obs, rew, term, trunc, info = pz.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        rows.append((obs["handoff"], rew, term, trunc))
        assert info == {} and rew.dtype == np.float32 and rew.shape == (5,)
        if term or trunc:
            break
    assert pz.last_outcome["truncated"] and not term and trunc
    assert [r[0] for r in rows[-4:]] == [True] * 4 and not any(r[1].any() for r in rows)
    with pytest.raises(RuntimeError, match="after the episode ended"):
        pz.step(0)
    obs, _ = pz.reset(seed=1)                           # a reset starts a new game
    assert not obs["handoff"] and obs["agent_id"] == pz.env.agent_selection
    assert pz.step(int(np.flatnonzero(obs["mask"])[0]))[2:4] == (False, False)


def test_adapter_refuses_bad_envs_and_illegal_actions():
    with pytest.raises(ValueError, match="view_in_info=True, legal_actions_in_info=True"):
        EndRewardPettingZooEnv(treachery_env.env(**SHORT))
    with pytest.raises(ValueError, match="legal_actions_in_info=True"):
        EndRewardPettingZooEnv(treachery_env.env(view_in_info=False, **SHORT))
    with pytest.raises(ValueError, match="must be a Treachery environment"):
        EndRewardPettingZooEnv(object())
    with pytest.raises(ValueError, match="make_tianshou_env sets view_in_info=False"):
        make_tianshou_env(view_in_info=False, **SHORT)
    pz = make_tianshou_env(**SHORT)
    obs, _ = pz.reset(seed=0)
    with pytest.raises(ValueError):
        pz.step(int(np.flatnonzero(~obs["mask"])[0]))
