"""Tensor-friendly infos: ``raw_env(view_in_info=..., legal_actions_in_info=...)``."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import treachery_env
from treachery_env.env import raw_env
from treachery_env.view import SeatView

# short games: no Commander, 3 life, few priority windows, no talk, no mulligans
SHORT = dict(num_players=5, commander=False, starting_life=3, max_turns=100, priority_windows="main", talk="none",
             mulligans="none")
MODES = {
    "default": {},
    "no_view": {"view_in_info": False},
    "no_legal": {"legal_actions_in_info": False},
    "tensor": {"view_in_info": False, "legal_actions_in_info": False},
}
KEYS = {"default": {"legal_actions", "view"}, "no_view": {"legal_actions"}, "no_legal": {"view"}, "tensor": set()}


@pytest.mark.parametrize("mode", list(MODES))
def test_info_keys_per_mode_during_play_and_at_the_end(mode):
    e = treachery_env.env(**MODES[mode], **SHORT)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            break
        assert set(info) == KEYS[mode], (steps, info)
        if "legal_actions" in info:
            assert sorted(info["legal_actions"]) == np.flatnonzero(obs["action_mask"]).tolist()
        if "view" in info:
            assert isinstance(info["view"], SeatView)
        assert all(e.infos[a] == {} for a in e.agents if a != agent)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    game = e.unwrapped.game
    assert game.is_over and steps > 10
    for a in e.agents:
        if mode == "tensor":
            assert e.infos[a] == {}
        else:
            assert e.infos[a] == {"winners": sorted(game.winners), "truncated": bool(game.truncated)}


def _play(env_kwargs: dict, seed: int, action_seed: int) -> list:
    """Every step's (agent, observation, mask, rewards, cumulative rewards, terminations,
    truncations) of a random game, its infos, its game and the rewards when it ended; the
    actions drawn from ``action_seed``."""
    e = treachery_env.env(**env_kwargs, **SHORT)
    e.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    trace, infos, end = [], [], None
    while e.agents:
        agent = e.agent_selection
        obs, _, term, trunc, _ = e.last()
        if (term or trunc) and end is None:
            end = dict(e.rewards)
        trace.append((agent, obs["observation"].copy(), obs["action_mask"].copy(), dict(e.rewards),
                      dict(e._cumulative_rewards), dict(e.terminations), dict(e.truncations)))
        infos.append({a: dict(i) for a, i in e.infos.items()})
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace, infos, e.unwrapped.game, end


def test_tensor_friendly_game_matches_the_default_game_step_for_step():
    for seed in (1, 2):
        ref, _, ref_game, _ = _play({}, seed, 7)
        got, infos, game, end = _play(MODES["tensor"], seed, 7)
        assert len(got) == len(ref) > 20
        for r, g in zip(ref, got):
            assert r[0] == g[0]
            np.testing.assert_array_equal(r[1], g[1])
            np.testing.assert_array_equal(r[2], g[2])
            assert r[3:] == g[3:]
        assert game.winners == ref_game.winners and game.truncated == ref_game.truncated
        assert all(i == {} for step in infos for i in step.values())
        # the rewards say who won: +1 exactly for the winners (-1 the others), all 0 without winners
        expect = {f"player_{s}": 0.0 if game.truncated or not game.winners else (1.0 if s in game.winners else -1.0)
                  for s in range(SHORT["num_players"])}
        assert end == expect and {1.0, -1.0} <= set(end.values())      # these seeds' games have winners


def test_mode_survives_pickle_and_deepcopy_and_bad_values_are_refused():
    e = raw_env(num_players=5, view_in_info=False, legal_actions_in_info=False)
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.legal_actions_in_info is False and e2.view_in_info is False
    e2.reset(seed=0)
    assert e2.infos[e2.agent_selection] == {}
    e3 = copy.deepcopy(e2)
    e3.step(int(np.flatnonzero(e3.observe(e3.agent_selection)["action_mask"])[0]))
    assert e3.infos[e3.agent_selection] == {}
    assert raw_env(num_players=5).legal_actions_in_info is True
    for bad in ("no", 0, None):
        with pytest.raises(ValueError, match="legal_actions_in_info must be a bool"):
            raw_env(num_players=5, legal_actions_in_info=bad)
        with pytest.raises(ValueError, match="view_in_info must be a bool"):
            raw_env(num_players=5, view_in_info=bad)
