"""RLlib on Treachery (training/frameworks/rllib.py, agents/rllib.py, agents/rllib_module.py): the stock
``PettingZooEnv`` gives every seat its end reward, one PPO iteration on local Ray with a remote env
runner reports non-empty metrics, and the saved checkpoint plays as a bot (issue #14)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import ray
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

import agents
from agents.rllib import RLlibAgent, module_path
from agents.rllib_module import MaskedPPOTorchRLModule
from training.evaluate import evaluate
from training.frameworks import rllib as fw


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def checkpoint(local_ray, tmp_path_factory):
    """One PPO iteration (5 players, games cut at turn 6) with one remote env runner, saved."""
    config = fw.ppo_config({"num_players": 5, "max_turns": 6}, env_runners=1, train_batch_size=600,
                           minibatch_size=200, epochs=1, hidden=(64,), seed=3)
    # RLlib drops a remote runner's samples after sample_timeout_s (60 s): on a loaded machine (two suites
    # at once on 2 cores) the runner took longer, and the iteration reported no env_runners at all
    config = config.env_runners(sample_timeout_s=600)
    algo = config.build_algo()
    result = algo.train()
    path = tmp_path_factory.mktemp("rllib") / "ck"
    fw.save(algo, path)
    algo.stop()
    return result, str(path)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_seat_gets_its_end_reward_through_rllibs_pettingzoo_env(seed):
    env = fw.make_env({"num_players": 5})
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(20_000):
        (agent, o), = obs.items()              # one seat decides at a time
        assert set(o) == {"observation", "action_mask"}
        assert infos.get(agent, {}) == {}      # no ragged legal_actions, no view
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminated, truncated, infos = env.step({agent: action})
        for a, r in rewards.items():
            totals[a] += r
        if terminated["__all__"] or truncated["__all__"]:
            break
    game = env.env.unwrapped.game
    assert game.is_over and not game.truncated and terminated["__all__"]
    assert set(obs) == set(env.possible_agents)             # every seat sees the end
    want = {f"player_{s}": (1.0 if s in game.winners else -1.0) for s in range(5)}
    assert totals == want


def test_masked_module_never_gives_an_illegal_action_probability():
    env = fw.make_env({"num_players": 5})
    space = env.observation_spaces["player_0"]
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=space,
                          action_space=env.action_spaces["player_0"], model_config={"fcnet_hiddens": [32]}).build()
    obs, _ = env.reset(seed=4)
    (agent, o), = obs.items()
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in o.items()}}
    for out in (module.forward_exploration(batch), module.forward_train(batch)):
        probs = torch.softmax(out[Columns.ACTION_DIST_INPUTS][0].detach(), -1)
        assert float(probs[torch.as_tensor(o["action_mask"]) == 0].sum()) == 0.0
        assert abs(float(probs.sum()) - 1.0) < 1e-5
    with pytest.raises(ValueError, match="Dict"):
        MaskedPPOTorchRLModule(observation_space=space["observation"], action_space=env.action_spaces["player_0"])


def test_one_ppo_iteration_with_a_remote_env_runner_reports_metrics(checkpoint):
    result, _ = checkpoint
    runners, learner = result["env_runners"], result["learners"][fw.MODULE_ID]
    assert runners["num_episodes"] >= 1 and runners["num_env_steps_sampled"] >= 600
    assert set(runners["agent_episode_returns_mean"]) == {f"player_{s}" for s in range(5)}
    assert np.isfinite(learner["policy_loss"]) and learner["entropy"] > 0


def test_the_checkpoint_plays_as_a_bot(checkpoint, monkeypatch):
    _, path = checkpoint
    monkeypatch.chdir(os.path.dirname(path))       # a relative path, as on the command line
    assert agents.make("rllib:ck", seed=0).num_players() == 5
    bot = agents.make(f"rllib:{path}:greedy", seed=0)
    assert isinstance(bot, RLlibAgent) and bot.greedy and bot.num_players() == 5
    with pytest.raises(ValueError, match="5-player"):
        agents.check_table(bot, "rllib", 6)
    # trained with games cut at turn 6: the default game (250) is warned of, as for a policy of our own
    from agents.policy import GameConfigMismatchWarning
    from treachery_env import GameConfig
    with pytest.warns(GameConfigMismatchWarning, match=r"max_turns 6 in training, 250 here"):
        res = agents.play_game([bot] + [agents.make("random", seed=s) for s in range(4)], seed=2)
    assert res.turns > 0
    assert bot.check_config(GameConfig(num_players=5, max_turns=6)) == {}
    assert bot.check_config(GameConfig(num_players=5)) == {"max_turns": (6, 250)}
    # the evaluation records which weights played
    out = evaluate([f"rllib:{path}:greedy", "random"], num_players=5, games=4, seed=0, workers=1, progress=False)
    entrant = next(e for e in out["meta"]["entrants"] if e["spec"].startswith("rllib:"))
    assert entrant["sha256"] and len(entrant["sha256"]) == 64
    assert agents.weights_file(f"rllib:{path}") == module_path(path) + "/module_state.pkl"



def test_bad_rllib_checkpoints_are_one_line_errors(tmp_path):
    with pytest.raises(ValueError, match="is not a folder"):
        agents.make(f"rllib:{tmp_path / 'missing'}")
    with pytest.raises(ValueError, match="holds no RLModule"):
        agents.make(f"rllib:{tmp_path}")
    with pytest.raises(ValueError, match="needs an argument"):
        agents.make("rllib")


def test_the_script_checks_its_out_folder_before_ray_starts(tmp_path, monkeypatch, capsys):
    """``--out`` that cannot be made (a name over 255 characters) is one line before Ray starts and
    training runs (it passed, and the save after the training failed)."""
    def no_ray(*a, **k):
        raise AssertionError("Ray started before --out was checked")
    monkeypatch.setattr(ray, "init", no_ray)
    out = str(tmp_path / ("x" * 300))
    with pytest.raises(SystemExit) as stop:
        fw.main(["--out", out])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip().endswith(f"error: --out {out!r} cannot be made: File name too long")


def test_the_script_trains_and_saves(local_ray, tmp_path, capsys):
    out = tmp_path / "run"
    assert fw.main(["--players", "5", "--max-turns", "4", "--iterations", "1", "--batch", "300",
                    "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = json.loads(lines[0])
    assert first["iteration"] == 1 and first["env_steps"] >= 300
    assert RLlibAgent(str(out)).num_players() == 5
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit):
        fw.main(["--out", str(tmp_path / "file")])
    with pytest.raises(SystemExit):
        fw.main(["--players", "3", "--out", str(tmp_path / "x")])
    with pytest.raises(SystemExit):       # more env runners than the local Ray's 2 CPUs: refused, not a hang
        fw.main(["--env-runners", "3", "--out", str(tmp_path / "x")])
    assert "the Ray cluster has 2 CPU(s)" in capsys.readouterr().err
