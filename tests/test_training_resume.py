"""Resume robustness (issue 13): tensorboard purge, stale run folders, torn metrics,
corrupt checkpoints, temporary-file leftovers, the time budget, one training at a time
in a run folder, the update's dtype kept across resumes."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from conftest import TREACHERY_CLI
from training.config import TrainConfig
from training.ppo import latest_checkpoint, train

from test_training import tiny


#: ``python -m training.cli`` for the tests' trainings of a million steps, which also ends once the test's
#: process is gone (conftest.TREACHERY_CLI; its rollout workers end with it): a SIGTERM to the suite's
#: process group (a CI timeout), which one in a session of its own does not get, or a pytest-xdist worker
#: killed left it training on every core
TRAIN_CLI = TREACHERY_CLI


def _scalars(tb_dir) -> dict[str, list[int]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(str(tb_dir), size_guidance={"scalars": 0})
    acc.Reload()
    return {tag: [e.step for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A tiny finished run of 3 iterations, checkpoints after iterations 2 and 3."""
    d = tmp_path_factory.mktemp("resume")
    cfg = tiny(d, total_steps=600, rollout_steps=200, checkpoint_every=2, keep_checkpoints=3)
    return cfg, train(cfg, progress=False)


def _copy(run, tmp_path, **kw) -> TrainConfig:
    cfg, _ = run
    shutil.copytree(cfg.run_dir, tmp_path / "r")
    return TrainConfig.from_dict({**cfg.to_dict(), "run_dir": str(tmp_path / "r"), **kw})


def test_resume_keeps_the_earlier_tensorboard_scalars(run, tmp_path):
    cfg, res = run
    c2 = _copy(run, tmp_path, total_steps=cfg.total_steps + 400)
    before = _scalars(tmp_path / "r" / "tb")["train/entropy"]
    assert before == [h["steps"] for h in res["history"]]
    out = train(c2, resume=True, progress=False)
    after = _scalars(tmp_path / "r" / "tb")["train/entropy"]
    assert after[:len(before)] == before
    assert after == before + [h["steps"] for h in out["history"]]


def test_resume_from_an_older_checkpoint_drops_only_later_scalars(run, tmp_path):
    cfg, res = run
    c2 = _copy(run, tmp_path)
    older = sorted((tmp_path / "r").glob("ckpt_*.pt"))[0]         # after iteration 2
    out = train(c2, resume=older, progress=False)
    steps = _scalars(tmp_path / "r" / "tb")["train/entropy"]
    assert steps == [h["steps"] for h in res["history"][:2]] + [h["steps"] for h in out["history"]]


def test_a_resume_with_a_larger_budget_does_not_go_back_to_imitation(run, tmp_path):
    """Progress never goes back: the run imitated for its first half and then ran
    PPO; resumed to a total at which it would be back in its first half, it stays in PPO."""
    cfg, res = run
    assert cfg.imitation == 0.5 and [h["imitating"] for h in res["history"]][-1] == 0.0
    c2 = _copy(run, tmp_path, total_steps=1400)                   # 600 of 1,400: 0.43 < imitation
    out = train(c2, resume=True, progress=False)
    assert out["history"] and all(h["imitating"] == 0.0 for h in out["history"])


def test_a_resume_with_a_larger_total_does_not_raise_the_learning_rate(run, tmp_path):
    """The linear schedule never rises again: resumed from 600 to 1,400 steps the
    run goes on at the learning rate its last update used (not 1 - 608/1400 of
    the initial one, as before) and decays from there."""
    cfg, res = run
    assert cfg.lr_schedule == "linear"
    last = res["history"][-1]["lr"]
    out = train(_copy(run, tmp_path, total_steps=1400), resume=True, progress=False, log=False)
    lrs = [h["lr"] for h in out["history"]]
    assert lrs[0] == pytest.approx(last) and lrs == sorted(lrs, reverse=True) and lrs[-1] < last
    assert last < cfg.learning_rate * (1 - res["steps"] / 1400)           # what it was before the fix


def test_a_checkpoint_without_its_progress_takes_it_from_its_own_budgets(run, tmp_path):
    """A checkpoint written before checkpoints kept their progress: the progress is
    what its own config's budgets say (600 of 600 steps), so it stays in PPO too."""
    import torch
    c2 = _copy(run, tmp_path, total_steps=1400)
    ckpt = latest_checkpoint(tmp_path / "r")
    payload = torch.load(ckpt, weights_only=False)
    del payload["training_state"]["progress"]
    torch.save(payload, ckpt)
    out = train(c2, resume=True, progress=False)
    assert out["history"] and all(h["imitating"] == 0.0 for h in out["history"])


def test_a_resumed_writer_sorts_after_the_event_files_before_it(run, tmp_path):
    """TensorBoard reads event files in name order, which starts with the creation
    second: with the earlier file stamped a second ahead (as when a resume follows
    within the same second and the process's writer counter sorts lower), the resumed
    writer still sorts last, so the purge of the later steps is read after them."""
    import time

    cfg, res = run
    c2 = _copy(run, tmp_path)
    tb = tmp_path / "r" / "tb"
    (old,) = tb.glob("events.out.tfevents.*")
    parts = old.name.split(".")
    parts[3] = f"{int(time.time()) + 1:010d}"
    old.rename(tb / ".".join(parts))
    older = sorted((tmp_path / "r").glob("ckpt_*.pt"))[0]         # after iteration 2
    out = train(c2, resume=older, progress=False)
    assert sorted(tb.glob("events.out.tfevents.*"))[-1].name != ".".join(parts)
    steps = _scalars(tb)["train/entropy"]
    assert steps == [h["steps"] for h in res["history"][:2]] + [h["steps"] for h in out["history"]]


def test_a_new_run_refuses_a_folder_holding_a_run(tmp_path):
    """A folder with only metrics.jsonl (a run stopped before its first
    checkpoint) is refused without suggesting --resume, which could not
    resume it; nothing in it is touched."""
    cfg = tiny(tmp_path)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metrics.jsonl").write_text('{"iteration": 1}\n')
    with pytest.raises(ValueError, match=r"stopped before its first checkpoint.*another --run-dir") as err:
        train(cfg, progress=False, log=False)
    assert str(tmp_path / "run") in str(err.value) and "\n" not in str(err.value)
    assert "--resume" not in str(err.value)
    with pytest.raises(ValueError, match="nothing to resume: no ckpt_"):
        train(cfg, resume=True, progress=False, log=False)
    assert (tmp_path / "run" / "metrics.jsonl").read_text() == '{"iteration": 1}\n'   # nothing lost


def test_a_run_folder_under_a_file_is_refused_before_anything_is_done(tmp_path):
    """``train()`` itself (not only the CLI) refuses a ``run_dir`` that is a file
    or lies under one, in one line, leaving the file as it was."""
    (tmp_path / "afile").write_text("keep")
    for run_dir in (tmp_path / "afile", tmp_path / "afile" / "sub"):
        cfg = TrainConfig.from_dict({**tiny(tmp_path).to_dict(), "run_dir": str(run_dir)})
        with pytest.raises(ValueError, match=r"run directory .* is not a folder: .*afile' is a file") as err:
            train(cfg, progress=False, log=False)
        assert "\n" not in str(err.value)
    assert (tmp_path / "afile").read_text() == "keep"


def test_a_torn_last_metrics_line_is_dropped(run, tmp_path):
    cfg, res = run
    c2 = _copy(run, tmp_path, total_steps=cfg.total_steps + 200)
    m = tmp_path / "r" / "metrics.jsonl"
    m.write_text(m.read_text() + '{"iteration": 4, "ste')
    out = train(c2, resume=True, progress=False, log=False)
    its = [json.loads(ln)["iteration"] for ln in m.read_text().splitlines()]
    assert its == list(range(1, out["iterations"] + 1))


def test_an_unreadable_metrics_line_names_the_file_and_line(run, tmp_path):
    c2 = _copy(run, tmp_path, total_steps=run[0].total_steps + 200)
    m = tmp_path / "r" / "metrics.jsonl"
    lines = m.read_text().splitlines()
    m.write_text("\n".join([lines[0], "garbage", *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match=r"metrics\.jsonl.* line 2 ") as err:
        train(c2, resume=True, progress=False, log=False)
    assert "\n" not in str(err.value)


def test_a_corrupt_newest_checkpoint_falls_back_to_the_previous(run, tmp_path):
    """A library user (a notebook) is told with Python warnings (they were printed, ``warning: ...``,
    in a form of their own, not the CLI's), one for the checkpoint: it was also warned of as skipped
    ("trying the one before it") before the warning that it was set aside."""
    cfg, res = run
    c2 = _copy(run, tmp_path, total_steps=cfg.total_steps + 200)
    newest = latest_checkpoint(tmp_path / "r")
    newest.write_bytes(newest.read_bytes()[:500])
    with pytest.warns(UserWarning) as caught:
        out = train(c2, resume=True, progress=False, log=False)
    said = [str(w.message) for w in caught if "cannot be loaded" in str(w.message)]
    assert len(said) == 1 and said[0].startswith(f"checkpoint {newest.name} cannot be loaded (")
    assert said[0].endswith(f"renamed it {newest.name}.corrupt, so that the checkpoints the run keeps are ones that "
                            f"load; the run resumes from iteration 2")
    assert out["history"][0]["iteration"] == 3                     # redone from the checkpoint of iteration 2


def test_the_cli_resume_falls_back_past_a_corrupt_newest_checkpoint(run, tmp_path, capsys):
    """`treachery train --resume` finds the run's checkpoint the same way, and says so once."""
    from training import cli

    cfg, _ = run
    c2 = _copy(run, tmp_path)
    newest = latest_checkpoint(tmp_path / "r")
    newest.write_bytes(newest.read_bytes()[:500])
    code = cli.main(["train", "--resume", "--run-dir", c2.run_dir, "--steps", str(cfg.total_steps + 200),
                     "--no-progress"])
    assert code == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if newest.name in line]
    assert len(warned) == 1 and warned[0].startswith(f"treachery: warning: checkpoint {newest.name} cannot be loaded (")
    assert warned[0].endswith(f"renamed it {newest.name}.corrupt, so that the checkpoints the run keeps are ones that "
                              f"load; the run resumes from iteration 2"), warned


def test_a_corrupt_explicit_checkpoint_is_a_one_line_error(run, tmp_path):
    c2 = _copy(run, tmp_path)
    newest = latest_checkpoint(tmp_path / "r")
    newest.write_bytes(newest.read_bytes()[:500])
    with pytest.raises(ValueError, match="corrupt") as err:
        train(c2, resume=newest, progress=False, log=False)
    assert str(newest) in str(err.value) and "\n" not in str(err.value)


def _contents(folder: Path) -> dict:
    """Every file under ``folder`` (relative path -> bytes)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_resume_from_another_runs_checkpoint_is_refused_and_changes_nothing(run, tmp_path, capsys):
    """``--resume A/ckpt --run-dir B`` continued run A inside run folder B: A's iterations appended to
    B's metrics, A's line in B's policy.pt, B's own checkpoints pruned as the oldest.  Refused in one
    line (train() itself, the CLI with --run-dir or a --config naming B) naming A's folder and the two
    ways out; neither folder changes.  Without --run-dir the checkpoint's own folder is the run's
    (tests/test_training.py: test_cli_resume_keeps_the_runs_own_budget_and_config)."""
    from training import cli

    cfg, _ = run
    shutil.copytree(cfg.run_dir, tmp_path / "A")
    shutil.copytree(cfg.run_dir, tmp_path / "B")
    ckpt = sorted((tmp_path / "A").glob("ckpt_*.pt"))[0]
    before = {d: _contents(tmp_path / d) for d in ("A", "B")}
    other = TrainConfig.from_dict({**cfg.to_dict(), "run_dir": str(tmp_path / "B"), "total_steps": 800})
    with pytest.raises(ValueError, match=r"belongs to the run in .*, not to .*B', the run folder this run "
                                         r"writes; resume it in its own folder") as err:
        train(other, resume=ckpt, progress=False, log=False)
    assert "\n" not in str(err.value)
    conf = tmp_path / "b.toml"
    conf.write_text(f'run_dir = "{tmp_path / "B"}"\n')
    for where in (["--run-dir", str(tmp_path / "B")], ["--config", str(conf)]):
        assert cli.main(["train", *where, "--resume", str(ckpt), "--steps", "800", "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"treachery train: error: checkpoint {str(ckpt)!r} belongs "
                                                         f"to the run in {str(tmp_path / 'A')!r}"), err
        assert f"--run-dir {tmp_path / 'A'}" in err and f"--set init={ckpt}" in err, err
    assert {d: _contents(tmp_path / d) for d in ("A", "B")} == before


def _run_ids(folder: Path) -> set:
    """The run ids that ``folder``'s config.json, checkpoints and policy.pt record."""
    import torch
    ids = {json.loads((folder / "config.json").read_text()).get("run_id")}
    for p in [*folder.glob("ckpt_*.pt"), folder / "policy.pt"]:
        ids.add(torch.load(p, weights_only=False)["train_config"].get("run_id"))
    return ids


def test_another_runs_checkpoint_copied_into_the_run_folder_is_refused_and_changes_nothing(run, tmp_path, capsys):
    """``cp runB/ckpt_000001.pt runA/ckpt_000009.pt`` then ``--resume --run-dir runA`` continued run B's
    weights under A's name, cut A's metrics.jsonl back to iteration 1 and numbered checkpoints after B's.
    Refused in one line (train() with the path, the CLI's plain --resume, which picks it as the newest:
    not skipped to A's own) naming B's folder and the way out; nothing in A changes."""
    from training import cli

    cfg, _ = run
    shutil.copytree(cfg.run_dir, tmp_path / "A")
    b = tiny(tmp_path / "B", total_steps=200, rollout_steps=200)
    train(b, progress=False, log=False)
    foreign = tmp_path / "A" / "ckpt_000009.pt"
    shutil.copyfile(latest_checkpoint(b.run_dir), foreign)
    before = _contents(tmp_path / "A")
    c2 = TrainConfig.from_dict({**cfg.to_dict(), "run_dir": str(tmp_path / "A"), "total_steps": 1000})
    with pytest.raises(ValueError, match=r"is another run's: its run id is [0-9a-f]{12}\.\.\. ") as err:
        train(c2, resume=foreign, progress=False, log=False)
    assert "\n" not in str(err.value) and f"(run folder {b.run_dir!r})" in str(err.value)
    assert f"--set init={foreign}" in str(err.value)
    assert cli.main(["train", "--resume", "--run-dir", str(tmp_path / "A"), "--steps", "1000", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"treachery train: error: checkpoint {str(foreign)!r} is "
                                                     f"another run's"), err
    assert _contents(tmp_path / "A") == before
    foreign.unlink()                            # moved out: the folder's own run resumes
    assert train(c2, resume=True, progress=False, log=False)["history"][0]["iteration"] == 4


def test_a_run_resumed_twice_keeps_its_id(run, tmp_path):
    """A new run draws its id (config.json, every checkpoint and policy.pt); its resumes keep it."""
    cfg, _ = run
    ids = _run_ids(Path(cfg.run_dir))
    assert len(ids) == 1 and len(next(iter(ids))) == 32
    c2 = _copy(run, tmp_path, total_steps=800)
    for total in (800, 1000):
        train(dataclasses.replace(c2, total_steps=total), resume=True, progress=False, log=False)
        assert _run_ids(tmp_path / "r") == ids
    assert latest_checkpoint(tmp_path / "r").name == "ckpt_000005.pt"


@pytest.mark.parametrize("folder_has_id", [False, True])
def test_a_checkpoint_from_before_run_ids_still_resumes(run, tmp_path, folder_has_id):
    """A checkpoint without a run id (written before runs had one) is accepted: in a folder without
    one the run gets one from then on; in a folder whose config.json has one, it keeps that."""
    import torch
    c2 = _copy(run, tmp_path, total_steps=800)
    (own,) = _run_ids(tmp_path / "r")
    for p in (tmp_path / "r").glob("ckpt_*.pt"):
        payload = torch.load(p, weights_only=False)
        del payload["train_config"]["run_id"]
        torch.save(payload, p)
    if not folder_has_id:
        recorded = json.loads((tmp_path / "r" / "config.json").read_text())
        del recorded["run_id"]
        (tmp_path / "r" / "config.json").write_text(json.dumps(recorded))
    out = train(c2, resume=True, progress=False, log=False)
    assert out["history"][0]["iteration"] == 4
    new = torch.load(latest_checkpoint(tmp_path / "r"), weights_only=False)["train_config"]["run_id"]
    assert json.loads((tmp_path / "r" / "config.json").read_text())["run_id"] == new
    assert (new == own) == folder_has_id and len(new) == 32


def test_temporary_leftovers_are_removed(run, tmp_path):
    c2 = _copy(run, tmp_path, total_steps=run[0].total_steps + 200)
    r = tmp_path / "r"
    stale = [r / ".ckpt_000004.pt.ab_c12.tmp", r / ".policy.pt.x9y8z7.tmp", r / ".metrics.jsonl.q1w2e3.tmp",
             r / ".config.json.k3j4l5.tmp"]
    mine = [r / "notes.tmp", r / ".other.pt.abc.tmp"]
    for p in stale + mine:
        p.write_bytes(b"partial")
    train(c2, resume=True, progress=False, log=False)
    assert not any(p.exists() for p in stale) and all(p.exists() for p in mine)


def _fake_iteration_times(monkeypatch, seconds) -> None:
    """Make the i-th rollout collection take ``seconds[i]`` of a fake clock (so a
    test of the time budget does not depend on the machine's speed)."""
    import time

    from training.rollout import WorkerPool
    clock, durations = [1000.0], iter(seconds)
    finish = WorkerPool.finish

    def timed(self, *args, **kwargs):
        clock[0] += next(durations)
        return finish(self, *args, **kwargs)

    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(WorkerPool, "finish", timed)


def test_the_time_budget_is_not_overshot_by_an_iteration(tmp_path, monkeypatch):
    """With every iteration taking 1 s and a 2.2 s budget, the run stops after
    2 iterations (2.0 s): a third would end past the budget (before the fix it
    ran on to 3.0 s)."""
    _fake_iteration_times(monkeypatch, [1.0] * 5)
    cfg = tiny(tmp_path, total_steps=10**6, rollout_steps=200, checkpoint_every=100, time_budget_s=2.2)
    res = train(cfg, progress=False, log=False)
    assert res["iterations"] == 2 and res["wall_s"] == pytest.approx(2.0)
    assert latest_checkpoint(cfg.run_dir).name == f"ckpt_{res['iterations']:06d}.pt"   # the last one is saved


def test_one_slow_iteration_does_not_end_a_timed_run_early(tmp_path, monkeypatch):
    """The budget's forecast is the median of the recent iterations, not the last
    one: with iterations of 1, 1, 1, 5, 1 s (a load spike in the fourth) and a
    9.5 s budget the run goes on after the spike (8 s + 1 < 9.5) and stops after
    the fifth (9 s); judged by the last iteration alone it stopped at 8 s."""
    _fake_iteration_times(monkeypatch, [1.0, 1.0, 1.0, 5.0, 1.0, 1.0, 1.0])
    cfg = tiny(tmp_path, total_steps=10**6, rollout_steps=200, checkpoint_every=100, time_budget_s=9.5)
    res = train(cfg, progress=False, log=False)
    assert res["iterations"] == 5 and res["wall_s"] == pytest.approx(9.0)


def _set_state(ckpt, **state) -> None:
    import torch
    payload = torch.load(ckpt, weights_only=False)
    payload["training_state"].update(state)
    for k in [k for k, v in state.items() if v is None]:
        del payload["training_state"][k]
    torch.save(payload, ckpt)


@pytest.mark.parametrize("old", [False, True])
def test_a_refused_resume_names_the_budget_that_allows_one_more_iteration(run, tmp_path, old):
    """A run at 1.00 min whose iterations took 30 s: resumed to 1.20 min it is
    refused, naming --minutes 1.50 (1 min + one typical iteration), and resumed
    to that it trains again.  A checkpoint from before the recent iterations
    were kept (only ``iteration_s``) forecasts from its last one."""
    cfg, _ = run
    c2 = _copy(run, tmp_path, total_steps=cfg.total_steps + 200, time_budget_s=72.0)
    recent = {"recent_iteration_s": None, "iteration_s": 30.0} if old else {"recent_iteration_s": [30.0, 2.0, 30.0]}
    _set_state(latest_checkpoint(tmp_path / "r"), wall_s=60.0, **recent)
    with pytest.raises(ValueError, match=r"and 1\.00 min \(60\.0 s\), and its budget is 1\.20 min \(72\.0 s\), which "
                                         r"one more iteration \(about 0\.50 min \(30\.0 s\)\) would pass \(--minutes "
                                         r"1\.50 or more allows one\); give a larger --minutes \(totals, not extra\)$"):
        train(c2, resume=True, progress=False, log=False)
    out = train(TrainConfig.from_dict({**c2.to_dict(), "time_budget_s": 90.0}), resume=True, progress=False,
                log=False)
    assert out["iterations"] == 4 and out["steps"] > cfg.total_steps


def test_export_reads_metrics_as_resume_does(run, tmp_path, capsys):
    """``treachery export`` reads metrics.jsonl as resume does: a torn last line
    is left out (the card keeps the run's totals, not silently dropping them),
    an unreadable earlier line is one error naming the file and line, and
    nothing is written then."""
    from training import cli

    _copy(run, tmp_path)
    r, ship = tmp_path / "r", tmp_path / "ship"
    m = r / "metrics.jsonl"
    lines = m.read_text().splitlines()
    m.write_text(m.read_text() + '{"iteration": 4, "ste')
    assert cli.main(["export", str(r), "--out", str(ship)]) == 0
    card = (ship / "MODEL_CARD.md").read_text()
    assert "* throughput: " in card and "learner agent-steps/s end-to-end over the run" in card
    assert cli.main(["export", str(r / "policy.pt"), "--out", str(tmp_path / "ship1")]) == 0   # the run's own file
    assert (tmp_path / "ship1" / "MODEL_CARD.md").read_text() == card.replace("`ship`", "`ship1`").replace(
        str(ship), str(tmp_path / "ship1"))
    m.write_text("\n".join([lines[0], "garbage", *lines[1:]]) + "\n")
    assert cli.main(["export", str(r), "--out", str(tmp_path / "ship2")]) == 2
    err = capsys.readouterr().err
    assert f"{str(m)!r} line 2 is not a metrics record" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "ship2").exists()


# --------------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_while_collecting_keeps_the_last_finished_iteration(tmp_path, monkeypatch, capsys):
    """Ctrl-C during the third collection: the two finished iterations are kept
    (a checkpoint is written for the second, which had none), the run resumes
    from it, and the CLI says so in one line with exit status 130."""
    import training.ppo as ppo
    from training import cli

    real = ppo.WorkerPool.finish
    calls = {"n": 0}

    def finish(self, *a, **kw):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, *a, **kw)

    monkeypatch.setattr(ppo.WorkerPool, "finish", finish)
    cfg = tiny(tmp_path, total_steps=3000, rollout_steps=200, checkpoint_every=5)
    with pytest.raises(ppo.TrainingInterrupted) as stop:
        train(cfg, progress=False, log=False)
    assert stop.value.iteration == 2 and stop.value.checkpoint.name == "ckpt_000002.pt"
    run = tmp_path / "run"
    assert [json.loads(ln)["iteration"] for ln in (run / "metrics.jsonl").read_text().splitlines()] == [1, 2]
    monkeypatch.setattr(ppo.WorkerPool, "finish", real)
    out = train(cfg, resume=True, progress=False, log=False)
    assert out["history"][0]["iteration"] == 3
    # the CLI: a line at once saying what the stop does, then one naming what was saved, exit status 130;
    # an interrupt before any iteration saves nothing
    calls["n"] = 2
    monkeypatch.setattr(ppo.WorkerPool, "finish", finish)
    capsys.readouterr()
    assert cli.main(["train", "--run-dir", str(tmp_path / "cli"), "--set", "hidden=32", "--set", "rollout_steps=200",
                     "--set", "game.num_players=4", "--set", "game.starting_life=6", "--set", "game.max_turns=8",
                     "--no-progress"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == ("stopping (SIGINT): the rollouts under way are dropped, no iteration had finished; "
                      "Ctrl-C or SIGTERM again is ignored until it has stopped"), err
    assert err[1].startswith("treachery train: interrupted; no iteration had finished: nothing saved"), err
    assert len(err) == 2 and not (tmp_path / "cli").exists()      # nothing left behind


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("resumed", [False, True])
def test_a_stop_while_the_run_starts_is_said_at_once_too(run, tmp_path, monkeypatch, capsys, stop, resumed):
    """Ctrl-C or SIGTERM while a run is starting (its folder made, its workers started, no
    iteration begun) writes the at-once ``stopping (SIGINT): ...`` line, as one during its
    iterations does, before the line naming what was saved; it used to end with only
    "interrupted; no iteration had finished: nothing saved"."""
    import training.ppo as ppo
    from training import cli
    from training.interrupts import Terminated

    def make_optimizer(*a, **kw):
        raise Terminated() if stop == "SIGTERM" else KeyboardInterrupt()

    monkeypatch.setattr(ppo, "make_optimizer", make_optimizer)
    if resumed:
        cfg = _copy(run, tmp_path)
        argv = ["train", "--resume", "--run-dir", cfg.run_dir, "--steps", str(cfg.total_steps + 400)]
        what, saved = "ckpt_000003.pt is kept", f"checkpoint {cfg.run_dir}/ckpt_000003.pt (iteration 3)"
    else:
        argv = ["train", "--run-dir", str(tmp_path / "new"), "--set", "hidden=32", "--set", "game.num_players=4",
                "--set", "game.starting_life=6", "--set", "game.max_turns=8"]
        what, saved = "no iteration had finished", "no iteration had finished: nothing saved"
    capsys.readouterr()
    assert cli.main([*argv, "--no-progress"]) == (143 if stop == "SIGTERM" else 130)
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == (f"stopping ({stop}): the run was starting, {what}; Ctrl-C or SIGTERM again is ignored "
                      f"until it has stopped"), err      # (nothing is saved: said so)
    how = "terminated (SIGTERM)" if stop == "SIGTERM" else "interrupted"
    assert err[1].startswith(f"treachery train: {how}; {saved}") and len(err) == 2, err
    assert resumed or not (tmp_path / "new").exists()


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM", "error"])
def test_a_new_run_stopped_before_its_first_iteration_leaves_nothing(tmp_path, monkeypatch, stop):
    """Ctrl-C, SIGTERM or an error during the first collection of a new run: what the run made (its
    folder, config.json, tb/, train.lock) is removed, what was in a folder before is kept, and the
    interrupt says which signal it was.  (An error left train.lock, config.json and tb/ behind.)"""
    import training.ppo as ppo
    from training.interrupts import Terminated

    def finish(self, *a, **kw):
        raise (Terminated() if stop == "SIGTERM" else KeyboardInterrupt() if stop == "SIGINT"
               else RuntimeError("a worker failed"))

    monkeypatch.setattr(ppo.WorkerPool, "finish", finish)
    for run, before in ((tmp_path / "new" / "run", None), (tmp_path / "old", "notes.txt")):
        if before:
            run.mkdir()
            (run / before).write_text("mine")
        cfg = TrainConfig.from_dict({**tiny(tmp_path, rollout_steps=200).to_dict(), "run_dir": str(run)})
        with pytest.raises(RuntimeError if stop == "error" else ppo.TrainingInterrupted) as why:
            train(cfg, progress=False)                  # with tensorboard: tb/ is made, then removed
        if stop != "error":
            assert why.value.signal_name == stop and why.value.checkpoint is None and why.value.iteration == 0
        assert sorted(q.name for q in run.iterdir()) == [before] if before else not run.exists()
        assert (tmp_path / "new").exists()              # only the folder the run made is removed


def test_a_resume_that_fails_before_its_first_iteration_removes_only_what_it_made(run, tmp_path, monkeypatch):
    """A resume that fails before its first iteration removes the lock file and tb/ it made (the
    folder was copied without them), and keeps every file the run had."""
    import training.ppo as ppo

    def finish(self, *a, **kw):
        raise RuntimeError("a worker failed")

    monkeypatch.setattr(ppo.WorkerPool, "finish", finish)
    c2 = _copy(run, tmp_path, total_steps=1000)
    folder = tmp_path / "r"
    shutil.rmtree(folder / "tb")
    (folder / "train.lock").unlink()
    kept = {p.name for p in folder.iterdir()}
    with pytest.raises(RuntimeError, match="a worker failed"):
        train(c2, resume=True, progress=False)
    assert {p.name for p in folder.iterdir()} == kept and latest_checkpoint(folder) is not None


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
def test_ctrl_c_during_an_update_finishes_that_iteration(tmp_path, monkeypatch, capsys, signame):
    """A SIGINT (or SIGTERM) that arrives while the network is being updated is held until
    the iteration's metrics and checkpoint are written, then ends the run; a line on stderr
    says so as soon as it arrives (the update not yet run), the interrupt says which signal it
    was, and both handlers are given back."""
    import os
    import signal

    import training.ppo as ppo

    real = ppo.ppo_update
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    said = []

    def update(*a, **kw):
        os.kill(os.getpid(), getattr(signal, signame))       # the signal in the middle of the update
        said.append(capsys.readouterr().err)                # what stderr had before the update went on
        return real(*a, **kw)

    monkeypatch.setattr(ppo, "ppo_update", update)
    cfg = tiny(tmp_path, total_steps=3000, rollout_steps=200, checkpoint_every=5)
    with pytest.raises(ppo.TrainingInterrupted) as stop:
        train(cfg, progress=False, log=False)
    assert said == [f"stopping ({signame}): the iteration under way (its update, metrics and checkpoint) is "
                    f"finished first; Ctrl-C or SIGTERM again is ignored until the run is saved\n"]
    assert "stopping" not in capsys.readouterr().err                  # said once
    assert stop.value.iteration == 1 and stop.value.checkpoint.name == "ckpt_000001.pt"
    assert stop.value.signal_name == signame
    rows = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(ln)["iteration"] for ln in rows] == [1]
    assert latest_checkpoint(tmp_path / "run").name == "ckpt_000001.pt"
    assert {s: signal.getsignal(s) for s in before} == before                 # the handlers are given back


def test_sigterm_stops_the_cli_as_ctrl_c_does(tmp_path):
    """``kill`` (SIGTERM) of a running ``treachery train``, as a job scheduler sends it: the
    run says at once that it stops, stops after keeping its last finished iteration, says so in
    one line, exits with 143,
    and neither it nor its rollout workers print a traceback; ``--resume`` continues it."""
    import os
    import signal
    import subprocess
    import time

    run = tmp_path / "run"
    cmd = [*TRAIN_CLI, "train", "--run-dir", str(run), "--no-progress", "--workers", "2",
           "--set", "hidden=32", "--set", "rollout_steps=200", "--set", "total_steps=1000000",
           "--set", "game.num_players=4", "--set", "game.starting_life=6", "--set", "game.max_turns=8"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        deadline = time.time() + 240
        while not ((run / "metrics.jsonl").exists() and (run / "metrics.jsonl").read_text().count("\n") >= 1):
            assert proc.poll() is None and time.time() < deadline, proc.stderr.read() if proc.poll() is not None else ""
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("treachery train: terminated (SIGTERM); checkpoint ") and "--resume" in last, err
    assert err.strip().splitlines()[-2].startswith("stopping (SIGTERM): "), err      # said at once, before
    rows = (run / "metrics.jsonl").read_text().splitlines()
    done = len(rows)
    assert latest_checkpoint(run).name == f"ckpt_{done:06d}.pt"
    # one iteration more than it reached (an iteration collects rollout_steps or a little more: every
    # worker's games step together, so a total of 200 a finished iteration could already be past)
    steps = json.loads(rows[-1])["steps"]
    cfg = TrainConfig.from_dict({**json.loads((run / "config.json").read_text()), "total_steps": steps + 1})
    assert train(cfg, resume=True, progress=False, log=False)["history"][0]["iteration"] == done + 1


def test_a_second_ctrl_c_while_the_run_stops_is_ignored(tmp_path, monkeypatch):
    """Ctrl-C during the third collection, and again while the run stops its rollout workers
    (where a second interrupt used to escape before the checkpoint was written, and the run was
    reported at the checkpoint it had started from): the second is ignored, the two finished
    iterations are checkpointed, and after the run Ctrl-C raises again."""
    import os
    import signal

    import training.ppo as ppo

    real_finish, real_close = ppo.WorkerPool.finish, ppo.WorkerPool.close
    calls = {"n": 0}

    def finish(self, *a, **kw):
        calls["n"] += 1
        if calls["n"] == 3:
            os.kill(os.getpid(), signal.SIGINT)            # the first Ctrl-C, while collecting
        return real_finish(self, *a, **kw)

    def close(self, now=False):
        if now:
            os.kill(os.getpid(), signal.SIGINT)            # the second, as the run stops its workers
        return real_close(self, now)

    monkeypatch.setattr(ppo.WorkerPool, "finish", finish)
    monkeypatch.setattr(ppo.WorkerPool, "close", close)
    before = signal.getsignal(signal.SIGINT)
    cfg = tiny(tmp_path, total_steps=3000, rollout_steps=200, checkpoint_every=5)
    with pytest.raises(ppo.TrainingInterrupted) as stop:
        train(cfg, progress=False, log=False)
    assert stop.value.iteration == 2 and stop.value.checkpoint.name == "ckpt_000002.pt"
    assert latest_checkpoint(tmp_path / "run").name == "ckpt_000002.pt"
    rows = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(ln)["iteration"] for ln in rows] == [1, 2]
    assert signal.getsignal(signal.SIGINT) is before                # Ctrl-C is Ctrl-C again after the run


@pytest.mark.parametrize("gap, to", [(0.01, "learner"), (0.2, "group")])
def test_ctrl_c_twice_saves_the_last_iteration_and_exits_130(tmp_path, gap, to):
    """Two Ctrl-C in quick succession to ``treachery train`` (to the learner, or to its process
    group, rollout workers included, as a terminal and ``timeout -s INT`` send them), after
    iterations that have no checkpoint yet: the second neither cuts the stop short nor kills
    the process during its exit, so the last finished iteration is checkpointed, the message
    names that checkpoint (after one line said at once that it stops), and the exit status is 130."""
    import contextlib
    import os
    import signal
    import subprocess
    import time

    run = tmp_path / "run"
    cmd = [*TRAIN_CLI, "train", "--run-dir", str(run), "--no-progress", "--workers", "2",
           "--set", "hidden=32", "--set", "rollout_steps=200", "--set", "total_steps=1000000",
           "--set", "checkpoint_every=1000", "--set", "game.num_players=4", "--set", "game.starting_life=6",
           "--set", "game.max_turns=8"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    send = (lambda: os.killpg(proc.pid, signal.SIGINT)) if to == "group" else (lambda: proc.send_signal(signal.SIGINT))
    try:
        deadline = time.time() + 240
        while not ((run / "metrics.jsonl").exists() and (run / "metrics.jsonl").read_text().count("\n") >= 2):
            assert proc.poll() is None and time.time() < deadline, proc.stderr.read() if proc.poll() is not None else ""
            time.sleep(0.05)
        send()
        time.sleep(gap)
        with contextlib.suppress(ProcessLookupError):        # (the run may have stopped already)
            send()
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    notices = [ln for ln in err.splitlines() if ln.startswith("stopping (SIGINT): ")]
    assert len(notices) == 1 and err.splitlines()[-2] == notices[0], err      # said once, before the last line
    done = len((run / "metrics.jsonl").read_text().splitlines())
    assert done >= 2 and latest_checkpoint(run).name == f"ckpt_{done:06d}.pt"
    assert err.strip().splitlines()[-1].startswith(f"treachery train: interrupted; checkpoint {run / f'ckpt_{done:06d}.pt'} "
                                                   f"(iteration {done}); continue with --resume"), err


def test_retention_never_keeps_an_unloadable_checkpoint_over_good_ones(tmp_path, capsys):
    """A resume past a checkpoint that cannot be loaded (cut short, iteration 6 of a run whose
    newest good one is 3): keeping the newest 3 checkpoints, the run used to delete good ones
    and keep that file, which counted as the newest.  It is renamed ckpt_000006.pt.corrupt on the
    resume, with a warning, its bytes kept, and the run keeps its newest good checkpoints."""
    import training.ppo as ppo

    cfg = tiny(tmp_path, total_steps=600, rollout_steps=200, checkpoint_every=1, keep_checkpoints=3)
    steps = train(cfg, progress=False, log=False)["history"][-1]["steps"]
    r = tmp_path / "run"
    assert sorted(p.name for p in r.glob("ckpt_*")) == ["ckpt_000001.pt", "ckpt_000002.pt", "ckpt_000003.pt"]
    cut = (r / "ckpt_000003.pt").read_bytes()[:1000]
    c2 = TrainConfig.from_dict({**cfg.to_dict(), "total_steps": steps + 1})       # one iteration more
    for resume in (True, r / "ckpt_000003.pt"):     # the newest that loads, or named (as the CLI names it)
        (r / "ckpt_000006.pt").write_bytes(cut)
        with pytest.warns(UserWarning) as caught:
            out = train(c2, resume=resume, progress=False, log=False)
        assert [h["iteration"] for h in out["history"]] == [4]
        assert sorted(p.name for p in r.glob("ckpt_*")) == ["ckpt_000002.pt", "ckpt_000003.pt", "ckpt_000004.pt",
                                                            "ckpt_000006.pt.corrupt"]
        assert (r / "ckpt_000006.pt.corrupt").read_bytes() == cut
        assert ppo.load_resumable(r)[0].name == "ckpt_000004.pt"
        warned = [str(w.message) for w in caught if "renamed it ckpt_000006.pt.corrupt" in str(w.message)]
        assert len(warned) == 1 and warned[0].startswith("checkpoint ckpt_000006.pt cannot be loaded (")
        (r / "ckpt_000004.pt").unlink()             # back to iteration 3 for the second way
        (r / "ckpt_000006.pt.corrupt").unlink()


def test_a_resume_with_nothing_left_to_train_is_refused_and_writes_nothing(run, tmp_path):
    """Resuming a run already at its total steps (or with one more iteration past
    its time budget) says so in one line and changes no file in the run folder."""
    import os

    cfg, _ = run
    # what stops it is named, and only the flag that can help: the step total, the time
    # budget (with the --minutes that allows one more iteration), or both
    for i, (kw, tail) in enumerate([({}, r"the run's total is 600 steps; give a larger --steps "),
                                    ({"time_budget_s": 3600.0}, r"the run's total is 600 steps; give a larger --steps "),
                                    ({"total_steps": 10**6, "time_budget_s": 0.001},
                                     r"its budget is 0\.00 min \(0\.0 s\), which .*allows one\); give a larger "
                                     r"--minutes "),
                                    ({"time_budget_s": 0.001},
                                     r"the run's total is 600 steps, and its budget is 0\.00 min \(0\.0 s\), which "
                                     r".*allows one\); "
                                     r"give a larger --steps and --minutes ")]):
        c2 = _copy(run, tmp_path / str(i), **kw)
        before = {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in (tmp_path / str(i) / "r").rglob("*")}
        with pytest.raises(ValueError, match=r"nothing to train: ckpt_000003\.pt is at \d+ learner steps and "
                                             r"[\d.]+ min \([\d.]+ s\), and " + tail + r"\(totals, not extra\)$") \
                as err:
            train(c2, resume=True, progress=False, log=False)
        assert "\n" not in str(err.value) and ("--minutes" in str(err.value)) == ("time_budget_s" in kw
                                                                                 and kw["time_budget_s"] < 1)
        after = {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in (tmp_path / str(i) / "r").rglob("*")}
        assert after == before
    assert os.path.exists(cfg.run_dir)


# --------------------------------------------------------------------------- one training per run folder
TINY_CLI = ["--no-progress", "--set", "hidden=32", "--set", "rollout_steps=200", "--set", "game.num_players=4",
            "--set", "game.starting_life=6", "--set", "game.max_turns=8"]


def test_a_run_folder_in_use_refuses_a_second_training_and_an_export_into_it(tmp_path, capsys):
    """Two `treachery train` in one run folder interleaved their metrics and checkpoints: while one
    runs (another process), a second one there, new or --resume, is refused in one line naming the
    folder and the running one's pid, and so is an export whose policy.pt the run would replace;
    reading the run (export elsewhere) and an evaluation's results there are not refused.  The
    lock dies with its process: after a `kill -9` the run resumes, its iterations in order."""
    import os
    import subprocess
    import time

    from training import cli

    run = tmp_path / "run"
    cmd = [*TRAIN_CLI, "train", "--run-dir", str(run), "--set", "total_steps=1000000",
           "--set", "checkpoint_every=1", *TINY_CLI]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        deadline = time.time() + 240
        while latest_checkpoint(run) is None:
            assert proc.poll() is None and time.time() < deadline, proc.stderr.read() if proc.poll() is not None else ""
            time.sleep(0.2)
        capsys.readouterr()
        in_use = f"treachery train: error: run folder {str(run)!r} is in use by another training (pid {proc.pid}); "
        for argv in (["train", "--run-dir", str(run), *TINY_CLI], ["train", "--resume", "--run-dir", str(run),
                                                                   "--no-progress"]):
            assert cli.main(argv) == 2
            err = capsys.readouterr().err
            assert err.startswith(in_use) and len(err.strip().splitlines()) == 1, err
        assert cli.main(["export", str(run), "--out", str(run), "--force"]) == 2
        err = capsys.readouterr().err
        assert (f"--out: {str(run)!r} is the folder of a training in progress (pid {proc.pid}), which writes its "
                f"policy.pt" in err and len(err.strip().splitlines()) == 1), err
        assert cli.main(["export", str(run), "--out", str(tmp_path / "ship")]) == 0
        assert cli.main(["evaluate", "--agents", "random,random", "--players", "4", "--games", "1", "--out", str(run),
                         "--no-progress", "--no-observer", "--no-beliefs"]) == 0
        proc.kill()                                         # SIGKILL: the process cannot unlock anything itself
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    rows = [json.loads(ln) for ln in (run / "metrics.jsonl").read_text().splitlines() if ln.endswith("}")]
    cfg = TrainConfig.from_dict({**json.loads((run / "config.json").read_text()), "total_steps": rows[-1]["steps"] + 1})
    out = train(cfg, resume=True, progress=False, log=False)
    its = [json.loads(ln)["iteration"] for ln in (run / "metrics.jsonl").read_text().splitlines()]
    assert its == list(range(1, out["iterations"] + 1)) and out["history"]


def test_a_training_whose_folder_changed_before_it_took_the_lock_is_refused(tmp_path, monkeypatch):
    """Another training that writes the folder between this one's checks (no run there) and its
    taking the lock: the new run is refused in one line, and what the other wrote is kept."""
    import training.ppo as ppo

    acquire = ppo.RunLock.acquire

    def late(self):
        (self.path.parent / "metrics.jsonl").write_text('{"iteration": 1}\n')     # the other training's iteration
        acquire(self)

    monkeypatch.setattr(ppo.RunLock, "acquire", late)
    cfg = tiny(tmp_path, total_steps=200, rollout_steps=200)
    with pytest.raises(ValueError, match=r"changed while this training was starting \(another training wrote its "
                                         r"checkpoints or metrics meanwhile\); start it again$") as err:
        train(cfg, progress=False, log=False)
    assert str(tmp_path / "run") in str(err.value) and "\n" not in str(err.value)
    assert (tmp_path / "run" / "metrics.jsonl").read_text() == '{"iteration": 1}\n'


def test_the_run_folders_file_system_errors_are_one_line_naming_the_path(run, tmp_path, capsys, monkeypatch):
    """An OSError from the run folder's files (the lock, checkpoints, metrics) was a traceback: a
    folder name over 255 characters (new run and resume), a read-only folder (the lock file cannot
    be made or opened for writing), a disk that fills while a file is written (an error that names
    no file).  Each is one line naming the path, exit status 2, and a run that made nothing
    leaves nothing."""
    import errno
    import os

    import agents.files
    import training.run_lock
    from training import cli

    def one_line(argv, tail):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith("treachery train: error: ") and err[0].endswith(tail), err

    long = tmp_path / ("x" * 300)
    one_line(["train", "--run-dir", str(long), *TINY_CLI, "--steps", "200"],    # the folder checked first
             f"run directory {str(long)!r} cannot be made: File name too long")
    one_line(["train", "--run-dir", str(long), "--resume", "--no-progress"], f"{str(long)!r}: File name too long")
    one_line(["train", "--resume", str(long / "ckpt_000001.pt"), "--no-progress"], ": File name too long")
    assert sorted(os.listdir(tmp_path)) == []

    real_open = os.open

    def read_only(path, flags, *a):         # what a read-only file system answers a write
        if flags & (os.O_CREAT | os.O_RDWR | os.O_WRONLY) and refused(str(path)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
        return real_open(path, flags, *a)

    c2 = _copy(run, tmp_path, total_steps=800)
    folder = tmp_path / "r"
    before = _contents(folder)
    with monkeypatch.context() as m:
        m.setattr(training.run_lock.os, "open", read_only)
        refused = lambda path: True                                         # noqa: E731 - the whole folder
        one_line(["train", "--run-dir", str(folder), "--resume", "--steps", "800", "--no-progress"],
                 f"run directory {str(folder)!r} cannot be written: Read-only file system")   # its probe file
        one_line(["train", "--run-dir", str(tmp_path / "new"), *TINY_CLI, "--steps", "200"],
                 f"run directory {str(tmp_path / 'new')!r} cannot be written: Read-only file system")
        refused = lambda path: path.endswith("train.lock")                  # noqa: E731 - the lock file alone
        one_line(["train", "--run-dir", str(folder), "--resume", "--steps", "800", "--no-progress"],
                 f"{str(folder / 'train.lock')!r}: Read-only file system")
        one_line(["train", "--run-dir", str(tmp_path / "new"), *TINY_CLI, "--steps", "200"],
                 f"{str(tmp_path / 'new' / 'train.lock')!r}: Read-only file system")
    assert _contents(folder) == before and not (tmp_path / "new").exists()

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))      # names no file, as the system's does not

    monkeypatch.setattr(agents.files.os, "fsync", full)
    one_line(["train", "--run-dir", c2.run_dir, "--resume", "--steps", "800", "--no-progress"],
             f"{str(folder / 'metrics.jsonl')!r}: No space left on device")     # rewritten to the checkpoint
    assert (folder / "metrics.jsonl").read_bytes() == before["metrics.jsonl"]
    one_line(["train", "--run-dir", str(tmp_path / "new"), *TINY_CLI, "--steps", "200"],       # its first file,
             f"{str(tmp_path / 'new' / 'config.json')!r}: No space left on device")         # written whole or not
    assert not (tmp_path / "new" / "config.json").exists()


def test_without_fcntl_a_run_warns_that_its_folder_is_not_locked(tmp_path, monkeypatch):
    import training.run_lock

    monkeypatch.setattr(training.run_lock, "fcntl", None)
    cfg = tiny(tmp_path, total_steps=200, rollout_steps=200)
    with pytest.warns(UserWarning, match=r"has no fcntl: the run folder .* is not locked, so a second training in "
                                         r"it is not refused"):
        res = train(cfg, progress=False, log=False)
    assert res["iterations"] == 1


# --------------------------------------------------------------------------- the update's dtype
def test_a_resume_keeps_the_update_dtype_auto_chose_when_the_run_began(tmp_path, monkeypatch, capsys):
    """``update_dtype = "auto"`` timed bfloat16 at every start and resume, so load could flip a
    seeded run's arithmetic at a resume: the first start's choice (bfloat16 at a measured 2.0) is
    recorded in the checkpoint and kept by the resume though the timing now says float32 (1.2), as
    its first line says; a checkpoint without the record (from before it was kept) is measured
    again, says so in one line, and records that choice; a resume cannot set another dtype."""
    import torch

    import training.ppo as ppo
    import training.precision as precision
    from training import cli

    dtypes = []
    update = ppo.ppo_update

    def recording(net, optimizer, batch, config, *a, **kw):
        dtypes.append(config.update_dtype)
        return update(net, optimizer, batch, config, *a, **kw)

    monkeypatch.setattr(ppo, "ppo_update", recording)
    monkeypatch.setattr(precision, "bfloat16_speedup", lambda: 2.0)
    cfg = tiny(tmp_path, total_steps=200, rollout_steps=200)
    capsys.readouterr()
    first = train(cfg, progress=False, log=False)
    line = capsys.readouterr().out.splitlines()[0]
    assert line.endswith("the update's matrix products in bfloat16 (update_dtype auto: bfloat16 products 2.00 "
                         "times as fast as float32 here, 1.5 needed; the run keeps this choice)"), line
    state = torch.load(first["checkpoint"], weights_only=False)["training_state"]
    assert (state["update_dtype"], state["bfloat16_speedup"]) == ("bfloat16", 2.0)
    monkeypatch.setattr(precision, "bfloat16_speedup", lambda: 1.2)            # auto would now take float32
    more = TrainConfig.from_dict({**cfg.to_dict(), "total_steps": 400})
    out = train(more, resume=True, progress=False, log=False)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("in bfloat16 (update_dtype auto, as chosen when the run began: bfloat16 products "
                             "2.00 times as fast as float32 then)"), lines
    assert not any(ln.startswith("note:") for ln in lines)
    assert [h["perf/update_bfloat16"] for h in out["history"]] == [1.0] * len(out["history"])
    assert dtypes == ["bfloat16"] * (1 + len(out["history"]))
    # a checkpoint from before the choice was kept: measured again (float32 now), said once, then kept
    payload = torch.load(out["checkpoint"], weights_only=False)
    for k in ("update_dtype", "bfloat16_speedup"):
        del payload["training_state"][k]
    torch.save(payload, out["checkpoint"])
    dtypes.clear()
    last = train(TrainConfig.from_dict({**cfg.to_dict(), "total_steps": 600}), resume=True, progress=False, log=False)
    lines = capsys.readouterr().out.splitlines()
    assert "in float32 (update_dtype auto: bfloat16 products 1.20 times as fast as float32 here" in lines[0]
    notes = [ln for ln in lines if ln.startswith("note:")]
    assert notes == [f"note: {Path(out['checkpoint']).name} is from before a run kept the choice of update_dtype = "
                     f"\"auto\", so it was measured again at this resume (float32); the run keeps it from here on"]
    assert set(dtypes) == {"float32"}
    state = torch.load(last["checkpoint"], weights_only=False)["training_state"]
    assert (state["update_dtype"], state["bfloat16_speedup"]) == ("float32", 1.2)
    assert cli.main(["train", "--resume", "--run-dir", cfg.run_dir, "--steps", "800", "--set",
                     "update_dtype=bfloat16", "--no-progress"]) == 2
    assert "['update_dtype'] cannot change" in capsys.readouterr().err


def test_a_deterministic_resume_keeps_its_threads_and_dtype_and_repeats_itself(tmp_path, monkeypatch, capsys):
    """A deterministic run records its update's fixed thread count and dtype in its checkpoints, and
    a resume keeps both where this machine would now give others (fewer threads, no native bfloat16),
    as its first lines say; two resumes from one checkpoint write the same numbers and weights.  (Not
    those of the run that went on unstopped: a resume starts new games and reseeds its draws.)"""
    import training.ppo as ppo
    import training.precision as precision
    from agents.policy import load_checkpoint

    from test_training import _numbers, _same_weights, _weights

    monkeypatch.setattr(ppo, "policy_torch_threads", lambda: 2)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")        # asked for: the most threads (else one)
    monkeypatch.setattr(precision, "native_bfloat16", lambda: True)
    cfg = tiny(tmp_path / "a", total_steps=200, rollout_steps=200, deterministic=True)
    first = train(cfg, progress=False, log=False)
    state = load_checkpoint(first["checkpoint"])["training_state"]
    assert (state["update_threads"], state["update_dtype"]) == (2, "bfloat16")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    monkeypatch.setattr(ppo, "policy_torch_threads", lambda: 1)                # another load, another machine
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr(precision, "native_bfloat16", lambda: False)
    capsys.readouterr()
    resumed = []
    for d in ("a", "b"):
        more = TrainConfig.from_dict({**cfg.to_dict(), "run_dir": str(tmp_path / d / "run"), "total_steps": 600})
        resumed.append(train(more, resume=True, progress=False, log=False))
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].endswith("in bfloat16 (update_dtype auto, as chosen when the run began)"), lines
        assert lines[1] == ("deterministic: the update runs every minibatch on 2 torch threads, as when the run "
                            "began (a new run would take 1 here; the run's own count rounds as before)")
    rows = _numbers(tmp_path / "a" / "run")
    assert [r["iteration"] for r in rows] == [1, 2, 3] and rows == _numbers(tmp_path / "b" / "run")
    assert {(r["perf/update_threads"], r["perf/update_bfloat16"]) for r in rows} == {(2.0, 1.0)}
    assert _same_weights(*(_weights(r["policy"]) for r in resumed))


# --------------------------------------------------------------------------- a run folder moved
def test_a_run_moved_with_its_init_and_kl_policy_resumes_from_its_new_place(tmp_path, monkeypatch, capsys):
    """A run records ``init`` and ``kl_policy`` relative to its run folder (config.json, its
    checkpoints, whatever way they were named: here relative to the current folder and absolute),
    so a run folder moved together with those files (their old place gone) resumes from its new
    place, its KL reference read from there (the same file named again with --set is the run's own
    setting), and records them so again; its exported card says the path is from the run folder."""
    from agents.policy import load_checkpoint
    from training import cli
    from training.config import RUN_RELATIVE

    proj = tmp_path / "proj"
    train(tiny(proj / "base", total_steps=200, rollout_steps=200), progress=False, log=False)
    base = proj / "base" / "run" / "policy.pt"
    monkeypatch.chdir(tmp_path)
    cfg = tiny(proj / "warm", total_steps=200, rollout_steps=200, init="proj/base/run/policy.pt",
               kl_policy=str(base), kl_coef=0.1)
    steps = train(cfg, progress=False, log=False)["steps"]
    recorded = "../../base/run/policy.pt"

    def check(run: Path) -> None:
        stored = json.loads((run / "config.json").read_text())
        payload = load_checkpoint(latest_checkpoint(run))
        assert stored["init"] == stored["kl_policy"] == recorded, stored
        assert payload["train_config"]["init"] == payload["train_config"]["kl_policy"] == recorded
        assert payload["meta"]["input_paths"] == RUN_RELATIVE

    check(proj / "warm" / "run")
    shutil.move(proj, tmp_path / "moved")
    run = tmp_path / "moved" / "warm" / "run"
    capsys.readouterr()
    # the run's own init named again (from the current folder): no change of its config
    assert cli.main(["train", "--resume", "--run-dir", str(run), "--steps", str(steps + 1), "--no-progress",
                     "--set", "init=moved/base/run/policy.pt"]) == 0, capsys.readouterr().err
    assert len((run / "metrics.jsonl").read_text().splitlines()) == 2
    check(run)
    assert cli.main(["export", str(run), "--out", str(tmp_path / "ship")]) == 0
    assert (f"* warm start: the run began from the weights of `{recorded}` (the steps and hours above are this "
            f"run's alone; the path is from the run folder)") in (tmp_path / "ship" / "MODEL_CARD.md").read_text()


def test_an_unloadable_checkpoint_set_aside_never_replaces_a_file_made_meanwhile(tmp_path, monkeypatch):
    """``ckpt_000006.pt``, which cannot be loaded, is renamed ``ckpt_000006.pt.corrupt``; where
    another process makes that name after it was seen free, its file is kept and the checkpoint
    takes the next free name, ``ckpt_000006.pt-2.corrupt`` (the rename used to replace it)."""
    from conftest import taken_before_write

    import training.ppo as ppo

    (tmp_path / "ckpt_000006.pt").write_bytes(b"cut short")
    taken_before_write(monkeypatch, tmp_path / "ckpt_000006.pt.corrupt", b"another's")
    with pytest.warns(UserWarning, match=r"renamed it ckpt_000006\.pt-2\.corrupt, so that"):
        ppo._set_aside_unloadable(tmp_path, 3)
    assert (tmp_path / "ckpt_000006.pt.corrupt").read_bytes() == b"another's"
    assert (tmp_path / "ckpt_000006.pt-2.corrupt").read_bytes() == b"cut short"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt_000006.pt-2.corrupt", "ckpt_000006.pt.corrupt"]
