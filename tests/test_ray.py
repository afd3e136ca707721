"""Scale-out on Ray (training/ray_workers.py): a tournament on a local Ray gives the results of
local worker processes for the same seed, the trainer's rollout actors the batches of worker
processes; bots of one's own and policy checkpoints reach the Ray workers; a bad address is one
line.  One local Ray of 2 CPUs is shared by the tests of this module."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.base import BaseAgent, legal_actions
from agents.play import BotError
from training import cli
from training.config import TrainConfig
from training.evaluate import _json_default, evaluate, render_markdown
from treachery_env import GameConfig

ROOT = Path(__file__).resolve().parents[1]
# short games at 4 seats (as tests/test_training.py's tiny runs)
TINY_GAME = {"num_players": 4, "commander": False, "starting_life": 8, "max_turns": 12}


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray of 2 CPUs for this module (one already running in this process is used as it is)."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    yield ray
    if started:
        ray.shutdown()


def _comparable(res: dict) -> str:
    """A result as JSON without its timing (wall time, latency: never the same twice)."""
    res = dict(res)
    res.pop("timing")
    return json.dumps(res, default=_json_default, sort_keys=True)


# --------------------------------------------------------------------------- evaluation
def test_evaluate_on_ray_gives_the_results_of_worker_processes(ray_local, policy_4p, monkeypatch):
    """The same seed: every game record and every summary number the same, a policy
    checkpoint shipped to the workers by its bytes (the SHA-256 the results record)."""
    from agents.models import sha256_of
    from training import ray_workers

    connected, connect = [], ray_workers.connect
    monkeypatch.setattr(ray_workers, "connect", lambda address: connected.append(connect(address)) or connected[-1])

    config = GameConfig.from_dict(TINY_GAME)
    specs = ["heuristic", "random", f"policy:{policy_4p}:greedy"]
    local = evaluate(specs, games=24, seed=5, workers=2, config=config, progress=False)
    on_ray = evaluate(specs, games=24, seed=5, workers=2, config=config, progress=False, ray_address="default")
    assert local["summary"]["games"] == on_ray["summary"]["games"] == 24
    assert [g["index"] for g in on_ray["games"]] == list(range(24))
    assert on_ray["games"] == local["games"]
    assert _comparable(on_ray) == _comparable(local)
    assert on_ray["timing"]["ray"] is True and "ray" not in local["timing"]
    # the seconds spent connecting (this process is connected already: connect() made no connection), said with
    # the wall time (as many as the clock gave them: a loaded machine can stop the process there a while)
    assert connected and not any(connected)
    assert 0 <= on_ray["timing"]["ray_connect_s"] < on_ray["timing"]["wall_s"]
    assert "ray_connect_s" not in local["timing"]
    assert (f"Ray task(s) at a time ({on_ray['timing']['ray_connect_s']:.1f} s of it connecting to Ray)."
            in render_markdown(on_ray))
    assert "connecting to Ray" not in render_markdown(local)
    sha = sha256_of(policy_4p)
    assert on_ray["meta"]["entrants"][2]["sha256"] == sha
    assert (Path(tempfile.gettempdir()) / "treachery-ray" / f"{sha}.pt").read_bytes() == Path(policy_4p).read_bytes()


class FirstLegal(BaseAgent):
    """A bot registered at run time from this test module, which Ray workers cannot import."""

    name = "raytest_first"

    def act(self, observation, info):
        return int(legal_actions(observation)[0])


class Broken(BaseAgent):
    """A bot whose every decision raises."""

    name = "raytest_broken"

    def act(self, observation, info):
        raise RuntimeError("raytest: this bot always fails")


OUTSIDE = '''
import numpy as np
from agents.base import BaseAgent


class Last(BaseAgent):
    """An outside bot in a folder that is on no Ray worker's path."""

    def act(self, observation, info):
        return int(np.flatnonzero(observation["action_mask"])[-1])
'''


def test_bots_of_ones_own_reach_the_ray_workers(ray_local, tmp_path, monkeypatch):
    """A bot registered at run time (agents.register) in a module the workers cannot import, and
    an outside MODULE:CLASS from a folder only this process has on its path, play on Ray as here;
    a failing bot stops the tournament with its one-line BotError, as in one process."""
    from ray import cloudpickle

    monkeypatch.setitem(agents._REGISTRY, "raytest_first", FirstLegal)
    monkeypatch.setitem(agents._REGISTRY, "raytest_broken", Broken)
    (tmp_path / "raytest_outside.py").write_text(OUTSIDE)
    monkeypatch.syspath_prepend(str(tmp_path))
    config = GameConfig.from_dict(TINY_GAME)
    specs = ["raytest_first", "raytest_outside:Last", "random"]
    here = evaluate(specs, games=8, seed=2, workers=1, config=config, progress=False)
    on_ray = evaluate(specs, games=8, seed=2, workers=2, config=config, progress=False, ray_address="default")
    assert _comparable(on_ray) == _comparable(here)
    assert {lab for g in on_ray["games"] for lab in g["lineup"]} == set(specs)
    # shipping by value is for that one put: the modules are not left registered
    assert not {"raytest_outside", __name__} & set(cloudpickle.list_registry_pickle_by_value())
    with pytest.raises(BotError) as err:
        evaluate(["raytest_broken", "random"], games=8, seed=2, workers=2, config=config, progress=False,
                 ray_address="default")
    assert type(err.value) is BotError and "\n" not in str(err.value)
    assert "raytest: this bot always fails" in str(err.value) and "'raytest_broken'" in str(err.value)


# --------------------------------------------------------------------------- training rollouts
def _tiny(tmp_path, **kw) -> TrainConfig:
    base = dict(run_dir=str(tmp_path / "run"), seed=3, total_steps=1200, rollout_steps=300, games_per_worker=1,
                hidden=32, minibatch_steps=128, bptt=8, epochs=2, snapshot_every=1, checkpoint_every=2,
                pool_size=2, opponents={"self": 1.0, "pool": 2.0, "heuristic": 1.0, "random": 0.5},
                game=dict(TINY_GAME))
    base.update(kw)
    return TrainConfig(**base)


def _collect_twice(config: TrainConfig, seeds: list[int]) -> list:
    """Two collections of a WorkerPool (a pool snapshot joins for the first, leaves for the second):
    what came back."""
    import torch

    from agents.networks import build_network
    from training.rollout import WorkerPool
    from treachery_env.env import raw_env

    probe = raw_env(config=config.game_config())
    sizes = (int(probe.observation_space("player_0")["observation"].shape[0]), int(probe.action_space("player_0").n))
    torch.manual_seed(0)
    net = build_network(config.network_kwargs(*sizes))
    torch.manual_seed(1)
    frozen = build_network(config.network_kwargs(*sizes))
    pool = WorkerPool(config, seeds)
    try:
        first = pool.collect(net.state_dict(), {0: frozen.state_dict()}, 300)
        second = pool.collect(net.state_dict(), {0: None}, 300)
        if pool.ray is not None:            # close() kills the actors
            import ray
            actors = list(pool.ray.actors)
            pool.close()
            assert pool.ray.actors == []
            # ray.kill returns before the actor is gone: a call may still reach it for a moment
            # (it then refuses the empty weights); within 30 s every call finds it dead
            deadline = time.monotonic() + 30
            while True:
                try:
                    ray.get(actors[0].collect.remote({}, {}, 1, False))
                except ray.exceptions.RayActorError:
                    break
                except ray.exceptions.RayTaskError:
                    assert time.monotonic() < deadline, "a killed rollout actor still answers after 30 s"
                    time.sleep(0.2)
                else:
                    raise AssertionError("a killed rollout actor collected")
    finally:
        pool.close()
    return [first, second]


def test_rollout_actors_on_ray_collect_the_batches_of_worker_processes(ray_local, tmp_path):
    seeds = [11, 29]
    procs = _collect_twice(_tiny(tmp_path), seeds)
    on_ray = _collect_twice(_tiny(tmp_path, ray_address="default"), seeds)
    for (pb, pg, pi), (rb, rg, ri) in zip(procs, on_ray):
        assert len(pb) == len(rb) == 2
        for a, b in zip(pb, rb):
            assert sorted(a) == sorted(b)
            for key in a:
                np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        assert pg == rg
        assert (pi["learner_steps"], pi["decisions"]) == (ri["learner_steps"], ri["decisions"])
    assert any(g.kind == "pool" for _, games, _ in on_ray for g in games)     # the snapshot played


def test_train_refuses_more_rollout_actors_than_the_cluster_has_cpus(ray_local, tmp_path, capsys):
    run = tmp_path / "run"
    assert cli.main(["train", "--ray", "--workers", "3", "--run-dir", str(run), "--steps", "100",
                     "--set", "hidden=16", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "the Ray cluster has 2 CPU(s)" in err and len(err.strip().splitlines()) == 1, err
    assert not run.exists()          # refused before the run folder is made


def test_a_resumed_run_keeps_its_ray_address_unless_told(tmp_path, monkeypatch):
    """Like ``workers``: the checkpoint's ``ray_address`` unless ``--ray`` (or ``--set ray_address=...``)
    says otherwise; the batches are the same either way, so it is not a setting of the run's own."""
    import training.ppo
    from agents.policy import PolicyNet, save_checkpoint
    from training.config import load_config

    run = tmp_path / "run"
    cfg = load_config(None, [f'run_dir="{run}"', "hidden=16", 'ray_address="auto"', "game.num_players=4"])
    save_checkpoint(run / "ckpt_3.pt", PolicyNet(1, 1, 4, 16), cfg.game_config().to_dict(),
                    train_config=cfg.to_dict(), training_state={})
    seen = {}

    def fake_train(config, resume, progress):
        seen["config"] = config
        return {"history": [], "steps": 0, "iterations": 0, "wall_s": 0.0, "checkpoint": str(resume),
                "policy": str(run / "policy.pt")}

    monkeypatch.setattr(training.ppo, "train", fake_train)
    for extra, want in (([], "auto"), (["--ray"], "default"), (["--ray", "10.0.0.1:6379"], "10.0.0.1:6379"),
                        (["--set", 'ray_address=""'], "")):
        assert cli.main(["train", "--run-dir", str(run), "--resume", *extra, "--no-progress"]) == 0
        assert seen["config"].ray_address == want, extra
    assert cli.main(["train", "--run-dir", str(tmp_path / "new"), "--ray", "auto", "--no-progress"]) == 0
    assert seen["config"].ray_address == "auto"
    assert cli.main(["train", "--run-dir", str(tmp_path / "new"), "--no-progress"]) == 0
    assert seen["config"].ray_address == ""


# --------------------------------------------------------------------------- one-line errors
def test_evaluate_with_an_address_where_no_ray_answers_is_one_line(tmp_path):
    """A fresh process (this one is connected to Ray already): exit status 2, one error line."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    proc = subprocess.run([sys.executable, "-m", "training.cli", "evaluate", "--agents", "heuristic,random",
                           "--players", "4", "--games", "4", "--no-progress", "--ray", "127.0.0.1:1",
                           "--out", str(tmp_path / "out")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("treachery evaluate: error:")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "Ray address '127.0.0.1:1': no Ray cluster answers at 127.0.0.1:1" in errors[0]


def test_evaluate_without_ray_installed_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)          # `import ray` now raises ImportError
    assert cli.main(["evaluate", "--agents", "heuristic,random", "--players", "4", "--games", "4",
                     "--no-progress", "--ray", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "needs Ray, which is not installed here" in err and len(err.strip().splitlines()) == 1, err
    # and without --ray nothing asks for Ray
    assert cli.main(["evaluate", "--agents", "heuristic,random", "--players", "4", "--games", "4",
                     "--max-turns", "6", "--no-progress", "--out", str(tmp_path / "out")]) == 0


def test_an_empty_ray_address_is_refused(tmp_path, capsys):
    """``--ray ""`` ran on local processes while the summary said Ray: refused, for evaluate and train."""
    for args in (["evaluate", "--agents", "heuristic,random", "--games", "4", "--no-progress", "--out",
                  str(tmp_path / "out")], ["train", "--minutes", "1", "--run-dir", str(tmp_path / "run")]):
        assert cli.main([*args, "--ray", " "]) == 2
        err = capsys.readouterr().err
        assert "--ray takes an address" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "run").exists() and not (tmp_path / "out").exists()
