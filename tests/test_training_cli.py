"""Input validation of the ``treachery`` command line and of policy files (issue #13):
bad input is refused with one line naming what is wrong, never a traceback."""

from __future__ import annotations

import os

import pytest
import torch

import agents
from agents.models import sha256_of
from agents.policy import load_checkpoint
from training import cli


def _poisoned(tmp_path, policy_4p, tensor: str, value: float):
    """A copy of ``policy_4p`` whose ``tensor`` has one entry set to ``value``."""
    payload = torch.load(policy_4p, weights_only=True)
    payload["model_state"][tensor].view(-1)[3] = value
    path = tmp_path / f"bad-{value}.pt"
    torch.save(payload, path)
    return path


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_weights_are_refused_naming_the_file_and_tensor(tmp_path, policy_4p, value):
    path = _poisoned(tmp_path, policy_4p, "policy_head.weight", value)
    with pytest.raises(ValueError, match=r"non-finite weights .* 'policy_head\.weight'") as err:
        agents.make(f"policy:{path}")
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ValueError, match="non-finite"):
        load_checkpoint(path)


def test_the_first_bad_tensor_is_named(tmp_path, policy_4p):
    payload = torch.load(policy_4p, weights_only=True)
    names = list(payload["model_state"])
    for name in names[2:4]:
        payload["model_state"][name].view(-1)[0] = float("nan")
    path = tmp_path / "two.pt"
    torch.save(payload, path)
    with pytest.raises(ValueError, match=f"first in tensor {names[2]!r}"):
        load_checkpoint(path)


def test_cli_evaluate_refuses_a_non_finite_policy(tmp_path, policy_4p, capsys):
    path = _poisoned(tmp_path, policy_4p, "encoder.0.bias", float("nan"))
    assert cli.main(["evaluate", "--agents", f"policy:{path},random", "--players", "4", "--games", "4",
                     "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "non-finite" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def _bad_inputs(tmp: str) -> list[tuple[list[str], str]]:
    """(arguments, a phrase the one-line error must contain)."""
    afile = os.path.join(tmp, "afile")
    run = ["--run-dir", os.path.join(tmp, "run")]
    many = str(cli.max_workers() + 1)
    ev = ["evaluate", "--out", os.path.join(tmp, "out"), "--no-progress"]
    return [
        (["train", "--steps", "-5", *run], "total_steps = -5"),
        (["train", "--minutes", "0", *run], "--minutes must be"),
        (["train", "--minutes", "nan", *run], "--minutes must be"),
        (["train", "--minutes", "inf", *run], "--minutes must be a number of minutes > 0 and at most 525600"),
        (["train", "--minutes", "1e308", *run], "(a year; without --minutes the run has no time budget), got 1e+308"),
        # a number a train config takes: inf, or one so large that a float32 loss overflows, is refused before the run
        (["train", "--set", "vf_coef=inf", *run], "vf_coef = inf is invalid; allowed: a number in [0, 1e+06]"),
        (["train", "--set", "ent_coef=1e308", *run], "ent_coef = 1e+308 is invalid; allowed: a number in [0, 1e+06]"),
        (["train", "--set", "max_grad_norm=inf", *run], "max_grad_norm = inf is invalid; allowed: a finite number "
                                                        ">= 0"),
        (["train", "--set", "opponents={random=inf}", *run], "opponents = {random = inf} is invalid; allowed: a table "
                                                              "of weights from 0 to 1e+06 over"),
        (["train", "--set", "time_budget_s=inf", *run], "time_budget_s = inf is invalid; allowed: seconds from 0 (no "
                                                        "limit) to 3.1536e+07 (a year)"),
        (["train", "--workers", "0", *run], "workers = 0"),
        (["train", "--workers", many, *run], "CPU"),
        (["train", "--set", f"workers={many}", *run], "CPU"),
        (["train", "--eval-workers", many, "--evaluate", "4", *run], "CPU"),
        (["train", "--set", "nonsense", *run], "key=value"),
        (["train", "--set", "learning_rate=abc", *run], 'learning_rate = "abc"'),
        (["train", "--set", "run_id=" + "a" * 32, *run], "run_id is the run's identity"),     # drawn, not set
        # the game table's field is named as typed, and what is allowed is what can be typed (no "None")
        (["train", "--set", "game.starting_life=-3", *run], "error: game.starting_life: must be an int from 1 to "
                                                            "1000 (unset: the game's default), got -3"),
        (["train", "--set", "game.planechase=twice", *run], "error: game.planechase: must be one of ['single', "
                                                            "'per_player']"),
        (["train", "--set", "run_id=xyz", *run], "run_id is the run's identity"),
        (["train", "--run-dir", afile], "not a folder"),
        (["train", "--run-dir", os.path.join(afile, "sub")], "not a folder"),
        (["train", "--run-dir", "/proc/treachery-no-such/run"], "cannot be made"),     # mkdir itself fails
        ([*ev, "--agents", "nosuchbot"], "unknown agent 'nosuchbot'"),
        ([*ev, "--agents", "random", "--games", "0"], "--games must be an int from 1 to 1,000,000 (one tournament; "
                                                      "for more deals, evaluate other --seed values and pool them), "
                                                      "got 0"),
        # no upper bound: a schedule of 10^12 games was built in memory
        ([*ev, "--agents", "random", "--games", str(10 ** 12)], f"--games must be an int from 1 to 1,000,000 "
                                                                f"(one tournament; for more deals, evaluate other "
                                                                f"--seed values and pool them), got {10 ** 12}"),
        ([*ev, "--agents", "random", "--game", "throne_magic", "--games", "1000001"],
         "--games must be an int from 1 to 1,000,000"),
        (["train", "--evaluate", "1000001", *run], "--evaluate must be 0 (no evaluation) or an int from 1 to "
                                                   "1,000,000 (the games played against each of random and "
                                                   "heuristic), got 1000001"),
        ([*ev, "--agents", "random", "--workers", "0"], "--workers must be >= 1, got 0"),
        ([*ev, "--agents", "random", "--workers", many], "CPU"),
        ([*ev, "--agents", "policy:/no/such/file"], "does not exist"),
        (["evaluate", "--out", afile, "--agents", "random"], "--out"),
        (["evaluate", "--out", os.path.join(afile, "sub"), "--agents", "random"], "is a file"),
    ]


@pytest.mark.parametrize("case", range(len(_bad_inputs("/t"))),
                         ids=[" ".join(a[:3]) for a, _ in _bad_inputs("/t")])
def test_bad_cli_input_is_one_line_error(tmp_path, capsys, case):
    (tmp_path / "afile").write_text("not a folder")
    argv, phrase = _bad_inputs(str(tmp_path))[case]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert phrase in err, err
    assert err.startswith("treachery ") and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "run").exists() and not (tmp_path / "out").exists()


def test_evaluate_out_is_made_when_the_results_are_written_as_its_help_says(tmp_path, monkeypatch, capsys):
    """``evaluate --help`` said --out was "made and written to before any game": it is checked then
    (made, a file written and removed, the folders made removed again) and made with the results."""
    from training import evaluate as ev

    out = tmp_path / "new" / "out"
    run_tasks, seen = ev.run_tasks, []

    def games(*a, **k):
        seen.append(out.parent.exists())
        return run_tasks(*a, **k)
    monkeypatch.setattr(ev, "run_tasks", games)
    assert cli.main(["evaluate", "--agents", "random", "--players", "4", "--games", "4", "--max-turns", "3",
                     "--no-progress", "--no-beliefs", "--no-observer", "--out", str(out)]) == 0
    assert seen == [False] and (out / "results.json").is_file()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        cli.main(["evaluate", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "(default results/), made when they are written; checked before any game" in said


@pytest.mark.parametrize("where", ["long", "proc"])
@pytest.mark.parametrize("command", ["evaluate", "throne", "pool", "export", "train"])
def test_a_folder_that_cannot_be_written_is_refused_before_the_work(tmp_path, capsys, monkeypatch, policy_4p,
                                                                     command, where):
    """``--out`` (``--run-dir``) of a command that writes at the end of long work is checked before
    the work (made, written to and removed again: :func:`agents.files.check_folder`; a name over
    255 characters was a raw ``OSError: [Errno 36]``; ``/proc/...``, like a read-only file system,
    passed, every game was played, then ``write_results`` failed with a traceback and wrote
    nothing): one line naming it."""
    import sys

    from training import evaluate as ev
    from training import throne_eval

    if where == "proc" and not sys.platform.startswith("linux"):
        pytest.skip("/proc is Linux's")
    out = str(tmp_path / ("x" * 300)) if where == "long" else "/proc/treachery-no-such/out"

    def no_games(*a, **k):
        raise AssertionError("a game was played before --out was checked")
    monkeypatch.setattr(ev, "run_tasks", no_games)
    monkeypatch.setattr(throne_eval, "_run", no_games)
    small = ["--players", "4", "--games", "4", "--no-progress"]
    argv = {"evaluate": ["evaluate", "--agents", "heuristic,random", *small, "--out", out],
            "throne": ["evaluate", "--game", "throne_magic", "--agents", "heuristic,random", *small, "--out", out],
            "pool": ["pool", str(tmp_path / "a"), str(tmp_path / "b"), "--out", out],
            "export": ["export", str(policy_4p), "--out", out],
            "train": ["train", "--steps", "10", "--run-dir", out]}[command]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    what = "run directory" if command == "train" else "--out"
    assert err.startswith(f"treachery {argv[0]}: error: {what} {out!r} cannot be "), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- --resume with --config
def _run_with_checkpoint(tmp_path):
    """A run folder holding one checkpoint whose stored config is a small 4-player
    one, and a config file naming that same run (no training needed)."""
    from agents.policy import PolicyNet, save_checkpoint
    from training.config import load_config

    run = tmp_path / "run"
    text = f'run_dir = "{run}"\nlearning_rate = 0.001\nhidden = 16\n[game]\nnum_players = 4\n'
    same = tmp_path / "same.toml"
    same.write_text(text)
    cfg = load_config(same)
    net = PolicyNet(1, 1, 4, 16)
    save_checkpoint(run / "ckpt_3.pt", net, cfg.game_config().to_dict(), train_config=cfg.to_dict(),
                    training_state={})
    return run, same, text


def test_resume_refuses_a_config_file_that_differs_from_the_checkpoint(tmp_path, capsys, monkeypatch):
    import training.ppo

    run, same, text = _run_with_checkpoint(tmp_path)
    monkeypatch.setattr(training.ppo, "train", lambda *a, **k: pytest.fail("train must not start"))
    for old, new, key in (("learning_rate = 0.001", "learning_rate = 0.01", "'learning_rate'"),
                          ("num_players = 4", "num_players = 5", "'game'")):
        other = tmp_path / "other.toml"
        other.write_text(text.replace(old, new))
        for argv in (["--config", str(other), "--resume"], ["--config", str(other), "--resume", str(run / "ckpt_3.pt")]):
            assert cli.main(["train", *argv, "--no-progress"]) == 2
            err = capsys.readouterr().err
            assert f"differs from it in [{key}]" in err, err
            assert len(err.strip().splitlines()) == 1
    assert cli.main(["train", "--config", str(same), "--resume", "--seed", "5"]) == 2
    assert "['seed'] cannot change" in capsys.readouterr().err


def test_resume_accepts_a_config_file_naming_the_same_settings(tmp_path, capsys, monkeypatch):
    import training.ppo

    run, same, _ = _run_with_checkpoint(tmp_path)
    seen = {}

    def fake_train(config, resume, progress):
        seen.update(config=config, resume=resume)
        return {"history": [], "steps": 0, "iterations": 0, "wall_s": 0.0, "checkpoint": str(resume),
                "policy": str(run / "policy.pt")}

    monkeypatch.setattr(training.ppo, "train", fake_train)
    assert cli.main(["train", "--config", str(same), "--resume", "--steps", "777", "--no-progress"]) == 0
    assert seen["resume"] == run / "ckpt_3.pt"
    assert seen["config"].total_steps == 777 and seen["config"].hidden == 16
    # the budgets and workers a resume may change are not held against the file (the run began with
    # flags that overrode the file's; the resume takes its flags, else the checkpoint's)
    budgets = tmp_path / "budgets.toml"
    budgets.write_text(same.read_text().replace("[game]", "total_steps = 999\ntime_budget_s = 2400\nworkers = 2\n[game]"))
    assert cli.main(["train", "--config", str(budgets), "--resume", "--minutes", "3", "--no-progress"]) == 0
    assert seen["config"].time_budget_s == 180 and seen["config"].total_steps == 2_000_000
    assert seen["config"].workers == 1


def test_resume_accepts_settings_that_repeat_the_runs_own_values(tmp_path, capsys, monkeypatch):
    """Re-running the command that started a run with ``--resume`` added works:
    ``--set`` values equal to the checkpoint's (nested ``game.*`` ones too) change
    nothing and are accepted; a different or unknown one is refused in one line."""
    import training.ppo

    run, same, _ = _run_with_checkpoint(tmp_path)
    seen = {}

    def fake_train(config, resume, progress):
        seen.update(config=config)
        return {"history": [], "steps": 0, "iterations": 0, "wall_s": 0.0, "checkpoint": str(resume),
                "policy": str(run / "policy.pt")}

    monkeypatch.setattr(training.ppo, "train", fake_train)
    same_values = ["--set", "learning_rate=0.001", "--set", "hidden=16", "--set", "game.num_players=4"]
    assert cli.main(["train", "--run-dir", str(run), "--resume", *same_values, "--no-progress"]) == 0
    assert seen["config"].game_config().num_players == 4 and seen["config"].hidden == 16
    for item, key in (("learning_rate=0.01", "learning_rate"), ("game.num_players=5", "game"),
                      ("hidden=abc", "hidden"), ("nokey=1", "nokey")):
        assert cli.main(["train", "--run-dir", str(run), "--resume", "--set", "hidden=16", "--set", item]) == 2
        err = capsys.readouterr().err
        assert f"[{key!r}] cannot change" in err and len(err.strip().splitlines()) == 1, err


def test_minutes_help_says_how_the_budget_ends_a_run(capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "stops before an iteration that would end past it" in text and "never a whole iteration late" in text


# --------------------------------------------------------------------------- the summary at the end of a run
def test_train_summary_reports_learner_throughput_and_labels_all_agent_steps(tmp_path, capsys, monkeypatch):
    """The end of ``treachery train`` gives the model card's throughput (learner
    agent-steps/s over the run), and the rate with the bots' decisions labelled
    as all agent-steps/s, not as the learner's (issue #13)."""
    import json

    import training.ppo

    run = tmp_path / "run"
    rows = [{"iteration": 1, "steps": 400, "wall_s": 5.0, "games": 3, "perf/agent_steps_per_s": 400.0,
             "belief_accuracy": 0.5, "entropy": 1.5},
            {"iteration": 2, "steps": 1000, "wall_s": 10.0, "games": 6, "perf/agent_steps_per_s": 600.0,
             "belief_accuracy": 0.6, "entropy": 1.25}]

    def fake_train(config, resume, progress):
        run.mkdir()
        (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        return {"history": rows, "steps": 1000, "iterations": 2, "wall_s": 10.0,
                "checkpoint": str(run / "ckpt_000002.pt"), "policy": str(run / "policy.pt")}

    monkeypatch.setattr(training.ppo, "train", fake_train)
    assert cli.main(["train", "--run-dir", str(run), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert ("throughput: 100 learner agent-steps/s end-to-end over the run (rollouts and updates); "
            "500 all agent-steps/s, counting the bots' decisions too") in out.splitlines()
    assert "last iteration: belief accuracy 0.600, entropy 1.250" in out
    assert "600 agent-steps/s" not in out and "this session" not in out


def test_a_resumed_run_also_reports_its_own_throughput(tmp_path, capsys):
    """Resumed, ``treachery train`` says which checkpoint it resumed from and,
    after the run's mean, this session's own learner agent-steps/s."""
    from test_training import tiny

    cfg = tiny(tmp_path, total_steps=300, rollout_steps=300)
    argv = ["train", "--run-dir", cfg.run_dir, "--no-progress", "--set", "hidden=32", "--set", "rollout_steps=300",
            "--set", "games_per_worker=6", "--set", "minibatch_steps=128", "--set", "bptt=8", "--set", "epochs=1",
            *[a for k, v in cfg.game.items() for a in ("--set", f"game.{k}={str(v).lower()}")]]
    assert cli.main([*argv, "--steps", "300"]) == 0
    capsys.readouterr()
    assert cli.main(["train", "--run-dir", cfg.run_dir, "--resume", "--steps", "600", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "resuming from ckpt_000001.pt: iteration 1, " in out
    assert "; this session alone " in [ln for ln in out.splitlines() if ln.startswith("throughput: ")][0]


# --------------------------------------------------------------------------- export
def test_export_of_a_missing_run_or_policy_is_one_line_naming_the_path(tmp_path, capsys, policy_4p):
    """``treachery export`` of a folder that does not exist, is a file, or holds
    no checkpoint says so in one line naming the folder (issue #13)."""
    import shutil

    (tmp_path / "empty").mkdir()
    (tmp_path / "afile").write_text("x")
    (tmp_path / "ckpt_only").mkdir()
    shutil.copy(policy_4p, tmp_path / "ckpt_only" / "ckpt_000004.pt")
    for name, phrase in (("nope", "does not exist"),
                         ("empty", "has no checkpoint (no policy.pt, no ckpt_*.pt)"),
                         ("ckpt_only", "has ckpt_000004.pt but no policy.pt")):
        path = str(tmp_path / name)
        assert cli.main(["export", path, "--out", str(tmp_path / "ship")]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"treachery export: error: run folder {path!r} ") and phrase in err, err
        assert len(err.strip().splitlines()) == 1
    assert cli.main(["export", str(tmp_path / "afile"), "--out", str(tmp_path / "ship")]) == 2    # a file: a policy?
    err = capsys.readouterr().err
    assert "is corrupt or not a torch checkpoint" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "ship").exists()


def test_export_notes_that_are_no_text_file_are_one_line(tmp_path, capsys, policy_4p):
    """``treachery export --notes``: a folder, a missing file and a binary file are each one line that
    says which (a folder was "not found", a binary file a bare codec error), and nothing is written."""
    (tmp_path / "adir").mkdir()
    (tmp_path / "binary").write_bytes(b"\x80\x81\xff" * 10)
    for name, phrase in (("adir", "is a folder; give a text file"), ("nope.md", "does not exist"),
                         ("binary", "is not UTF-8 text")):
        path = str(tmp_path / name)
        assert cli.main(["export", str(policy_4p), "--out", str(tmp_path / "ship"), "--notes", path]) == 2
        err = capsys.readouterr().err
        assert err.startswith("treachery export: error: --notes ") and repr(path) in err and phrase in err, err
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "ship").exists()
    (tmp_path / "notes.md").write_text("tried on 2 cores\n", encoding="utf-8")
    assert cli.main(["export", str(policy_4p), "--out", str(tmp_path / "ship"), "--notes",
                     str(tmp_path / "notes.md")]) == 0
    assert "tried on 2 cores" in (tmp_path / "ship" / "MODEL_CARD.md").read_text()


def test_export_ships_a_policy_file_without_a_run(tmp_path, capsys, policy_4p):
    """``treachery export FILE``: a policy that is no run's (``treachery graft``'s) ships with a card
    that has the file's facts and no run totals (throughput), byte for byte the file given."""
    from pathlib import Path

    ship = tmp_path / "ship"
    assert cli.main(["export", str(policy_4p), "--out", str(ship)]) == 0
    assert (ship / "policy.pt").read_bytes() == Path(policy_4p).read_bytes()
    card = (ship / "MODEL_CARD.md").read_text()
    assert card.startswith("# Model card: `ship`") and "policy file SHA-256" in card and "* throughput:" not in card
    # a run's resumable checkpoint ships as its policy alone: no optimizer, no opponent pool
    import torch

    from agents.policy import load_checkpoint, save_checkpoint

    p = load_checkpoint(policy_4p)
    ckpt = save_checkpoint(tmp_path / "ckpt_000003.pt", p["net"], p["game_config"], p["train_config"],
                           training_state={"optimizer": torch.zeros(100_000)}, meta=p["meta"])
    assert cli.main(["export", str(ckpt), "--out", str(tmp_path / "ship2")]) == 0
    shipped = load_checkpoint(tmp_path / "ship2" / "policy.pt")
    assert "training_state" not in shipped and (tmp_path / "ship2" / "policy.pt").stat().st_size < ckpt.stat().st_size
    assert all(torch.equal(shipped["model_state"][k], v) for k, v in p["model_state"].items())
    from treachery_env import GameConfig
    from training.evaluate import evaluate

    config = GameConfig(num_players=4, starting_life=6, max_turns=8)
    with pytest.warns(UserWarning, match="different game configuration"):   # an untrained 4-player policy
        evaluate([f"policy:{policy_4p}:greedy", "heuristic"], games=8, config=config, mode="substitution",
                 reference="heuristic", roles=["assassin"], progress=False, out_dir=tmp_path / "assassins")
    assert cli.main(["export", str(policy_4p), "--out", str(tmp_path / "ship4"), "--results",
                     str(tmp_path / "assassins")]) == 0
    assert "seed 0; the candidates only in the seats dealt Assassin)" in (tmp_path / "ship4" / "MODEL_CARD.md").read_text()
    assert cli.main(["export", str(tmp_path / "nope.pt"), "--out", str(tmp_path / "ship3")]) == 2
    assert "does not exist; give the folder of a training run (e.g. runs/train-<date>-<time>) or a policy file" \
        in capsys.readouterr().err
    for out, msg in (("", "--out is empty; give a folder"), ("  ", "--out is empty; give a folder")):
        assert cli.main(["export", str(policy_4p), "--out", out]) == 2
        assert msg in capsys.readouterr().err


def test_export_ships_the_bytes_it_loaded_and_a_corrupt_policy_is_one_line(tmp_path, capsys, monkeypatch, policy_4p):
    """``treachery export`` reads the policy once: a file replaced after it was read (a running
    training rewrites its policy.pt) does not mix into the export, whose file and card are the
    bytes it loaded.  A cut-short policy.pt in a run folder is one line naming it; nothing written."""
    import hashlib
    import shutil
    from pathlib import Path

    import agents.policy
    from conftest import write_policy

    src = tmp_path / "p.pt"
    shutil.copy(policy_4p, src)
    before = src.read_bytes()
    other = write_policy(tmp_path / "other.pt", 4, seed=1)
    real = agents.policy.load_checkpoint

    def load_then_replaced(path, *a, **kw):
        payload = real(path, *a, **kw)
        if Path(path) == src:
            shutil.copy(other, src)             # the file changes once it was read
        return payload

    monkeypatch.setattr(agents.policy, "load_checkpoint", load_then_replaced)
    assert cli.main(["export", str(src), "--out", str(tmp_path / "ship")]) == 0
    assert (tmp_path / "ship" / "policy.pt").read_bytes() == before
    assert hashlib.sha256(before).hexdigest() in (tmp_path / "ship" / "MODEL_CARD.md").read_text()
    run = tmp_path / "run"
    run.mkdir()
    (run / "policy.pt").write_bytes(before[:len(before) // 2])
    capsys.readouterr()
    assert cli.main(["export", str(run), "--out", str(tmp_path / "ship2")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"treachery export: error: checkpoint {str(run / 'policy.pt')!r} is corrupt or not a "
                          f"torch checkpoint") and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "ship2").exists()


def test_export_of_a_run_being_trained_says_it_ships_the_policy_saved_last(tmp_path, capsys, policy_4p):
    """A run folder whose training still runs (it holds the folder's lock, training.run_lock) was
    exported silently: its policy.pt is the one saved last, not the one the run will end with.
    One warning line says so (the CLI's form of a warning), and the export is made; none once the
    training has ended."""
    import os
    import shutil

    from training.run_lock import RunLock

    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(policy_4p, run / "policy.pt")
    lock = RunLock(run)
    lock.acquire()                  # this process trains it, as far as the export can tell
    try:
        for given in (run, run / "policy.pt"):
            out = tmp_path / f"ship-{given.name}"
            assert cli.main(["export", str(given), "--out", str(out)]) == 0
            err = capsys.readouterr().err
            assert err == (f"treachery: warning: {str(run)!r} is the folder of a training in progress (pid "
                           f"{os.getpid()}), which saves its policy.pt as it goes: exported the one it saved last, "
                           f"not the one it will end with; export again once it has ended\n"), err
            assert (out / "policy.pt").is_file() and (out / "MODEL_CARD.md").is_file()
    finally:
        lock.release()
    assert cli.main(["export", str(run), "--out", str(tmp_path / "ship-after")]) == 0
    assert capsys.readouterr().err == ""


def test_export_to_the_current_folder_names_the_card_after_it(tmp_path, monkeypatch, policy_4p):
    """``treachery export X --out .`` (or a path ending in ``..``) titles the card with the folder's
    own name, not the empty basename of ``.``."""
    ship = tmp_path / "ship-here"
    ship.mkdir()
    monkeypatch.chdir(ship)
    assert cli.main(["export", str(policy_4p), "--out", "."]) == 0
    card = (ship / "MODEL_CARD.md").read_text()
    assert card.startswith("# Model card: `ship-here`\n") and '`agents.make("policy:policy.pt:greedy")`' in card
    import agents                 # the card's load line plays the policy as its evaluations did: greedy
    assert agents.make("policy:policy.pt:greedy").greedy
    (ship / "sub").mkdir()
    assert cli.main(["export", str(policy_4p), "--out", "sub/..", "--force"]) == 0
    assert (ship / "MODEL_CARD.md").read_text().startswith("# Model card: `ship-here`\n")


def test_the_cards_load_line_works_for_its_reader(tmp_path, monkeypatch, policy_4p):
    """The card says how to load its policy in a form that works where it is read: an export
    outside checkpoints/ by ``policy:policy.pt:greedy`` from the card's folder (it said
    ``policy:exp1/policy.pt:greedy``, relative to where export ran); a shipped model (a folder of
    checkpoints/ whose name no bot has) by its name, as checkpoints/*/MODEL_CARD.md say."""
    import agents.models

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert cli.main(["export", str(policy_4p), "--out", "exp1"]) == 0
    card = (work / "exp1" / "MODEL_CARD.md").read_text()
    assert "exp1/policy.pt" not in card and 'from this card\'s folder: `agents.make("policy:policy.pt:greedy")`' in card
    monkeypatch.chdir(work / "exp1")
    assert agents.make("policy:policy.pt:greedy").greedy
    monkeypatch.setattr(agents.models, "CHECKPOINTS", tmp_path / "checkpoints")
    for name, by_name in (("mine", True), ("heuristic", False)):          # a bot's name is never a model's
        assert cli.main(["export", str(policy_4p), "--out", str(tmp_path / "checkpoints" / name)]) == 0
        card = (tmp_path / "checkpoints" / name / "MODEL_CARD.md").read_text()
        assert (f'Load it by name greedy (its most likely legal action; this card has no evaluation): '
                f'`agents.make("{name}")`' in card) == by_name and \
            ('`agents.make("policy:policy.pt:greedy")`' in card) != by_name, card
        assert "evaluations below" not in card        # it has none: exported without --results
    model = agents.models.models(tmp_path / "checkpoints")["mine"]
    assert agents.models.checked_policy(model) == model.policy        # the name's file, its checksum the card's
    from pathlib import Path
    shipped = agents.models.models(Path(__file__).resolve().parent.parent / "checkpoints")   # this checkout's
    for name, model in shipped.items():                               # the shipped cards say the same
        assert f'`agents.make("{name}")` (`--agents {name}`, from any folder' in model.card.read_text(), name


def test_export_never_overwrites_a_shipped_policy_without_force(tmp_path, capsys, policy_4p):
    """``treachery export`` into a folder that already holds a policy or card is
    refused in one line and changes nothing; ``--force`` replaces them; an
    ``--out`` under a file is refused before anything is written."""
    import shutil

    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(policy_4p, run / "policy.pt")
    ship = tmp_path / "checkpoints" / "tiny"
    assert cli.main(["export", str(run), "--out", str(ship)]) == 0
    card = (ship / "MODEL_CARD.md").read_text()
    (ship / "MODEL_CARD.md").write_text(card + "hand-written notes\n")
    capsys.readouterr()
    assert cli.main(["export", str(run), "--out", str(ship)]) == 2
    err = capsys.readouterr().err
    assert "already holds policy.pt and MODEL_CARD.md" in err and "--force" in err
    assert len(err.strip().splitlines()) == 1
    assert (ship / "MODEL_CARD.md").read_text().endswith("hand-written notes\n")     # nothing lost
    assert cli.main(["export", str(run), "--out", str(ship), "--force"]) == 0
    assert not (ship / "MODEL_CARD.md").read_text().endswith("hand-written notes\n")
    (tmp_path / "afile").write_text("x")
    assert cli.main(["export", str(run), "--out", str(tmp_path / "afile" / "ship")]) == 2
    assert "is a file" in capsys.readouterr().err


@pytest.mark.parametrize("taken", ["policy.pt", "MODEL_CARD.md"])
def test_export_never_replaces_a_policy_or_card_made_after_its_check(tmp_path, capsys, monkeypatch, policy_4p, taken):
    """A policy or card another command writes into ``--out`` after ``treachery export`` found it
    free (it used to be replaced) is kept; the export writes nothing (not its policy without its
    card) and says so in one line."""
    import shutil

    from conftest import taken_before_write

    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(policy_4p, run / "policy.pt")
    ship = tmp_path / "ship"
    taken_before_write(monkeypatch, ship / taken, b"another's")
    assert cli.main(["export", str(run), "--out", str(ship)]) == 2
    err = capsys.readouterr().err
    assert err == (f"treachery export: error: --out {str(ship)!r} got a {taken} from another command while this "
                   f"export ran; it is kept and nothing is written; give another folder, or --force to replace it\n")
    assert {p.name: p.read_bytes() for p in ship.iterdir()} == {taken: b"another's"}


def test_export_refuses_results_that_evaluated_another_file(tmp_path, capsys, policy_4p):
    """A results file whose games were not played by this run's policy.pt, by the SHA-256 the
    result records of each file that played, is refused in one line naming the file that played,
    and nothing is written: results of other agents, and results of the run's earlier policy.pt
    (a resumed run rewrote it; the old check compared the bytes now at the path, found them
    equal and wrote the new file's card with the old file's tables). ``--allow-other-policy``
    includes them, and the card says above its tables whose games they were."""
    import shutil

    from conftest import write_policy
    from treachery_env import GameConfig
    from training.evaluate import evaluate

    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(policy_4p, run / "policy.pt")
    config = GameConfig(num_players=4, starting_life=6, max_turns=8)
    evaluate(["random", "heuristic"], games=4, config=config, progress=False, out_dir=tmp_path / "other")
    with pytest.warns(UserWarning, match="different game configuration"):   # an untrained 4-player policy
        evaluate([f"policy:{run / 'policy.pt'}:greedy", "random"], games=4, config=config, progress=False,
                 out_dir=tmp_path / "mine")
    capsys.readouterr()
    assert cli.main(["export", str(run), "--out", str(tmp_path / "b"), "--results", str(tmp_path / "mine")]) == 0
    assert "caveat" not in (tmp_path / "b" / "MODEL_CARD.md").read_text().lower()
    assert cli.main(["export", str(run), "--out", str(tmp_path / "a"), "--results", str(tmp_path / "other")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"treachery export: error: results {str(tmp_path / 'other')!r} did not evaluate this "
                          f"run's policy") and "include no trained policy" in err and len(err.splitlines()) == 1, err
    old = sha256_of(run / "policy.pt")
    write_policy(run / "policy.pt", 4, seed=1)            # the run resumed: a new policy.pt, the old results
    assert cli.main(["export", str(run), "--out", str(tmp_path / "c"), "--results", str(tmp_path / "mine")]) == 2
    err = capsys.readouterr().err
    assert (f"its games were played by policy:{run / 'policy.pt'}:greedy (SHA-256 {old[:12]}...), another file; "
            f"evaluate this policy again, or give --allow-other-policy") in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "c").exists()
    assert cli.main(["export", str(run), "--out", str(tmp_path / "c"), "--results", str(tmp_path / "mine"),
                     "--allow-other-policy"]) == 0
    card = (tmp_path / "c" / "MODEL_CARD.md").read_text()
    assert f"**Caveat.** The games of `{tmp_path / 'mine'}` are not this card's policy's: its games were played " \
           f"by policy:{run / 'policy.pt'}:greedy (SHA-256 {old[:12]}...), another file. Its tables are kept " \
           f"(`treachery export --allow-other-policy`) and describe that policy's games, not this one's." in card
    # results with no policy at all: their tables describe the bots' games (not "that policy", which is none)
    assert cli.main(["export", str(run), "--out", str(tmp_path / "e"), "--results", str(tmp_path / "other"),
                     "--allow-other-policy"]) == 0
    card = (tmp_path / "e" / "MODEL_CARD.md").read_text()
    assert f"**Caveat.** The games of `{tmp_path / 'other'}` are not this card's policy's: its entrants (random, " \
           f"heuristic) include no trained policy. Its tables are kept (`treachery export --allow-other-policy`) " \
           f"and describe those bots' games, not this policy's." in card and "that policy" not in card
    assert card.index("**Caveat.**") < card.index("### Against random")
    import json                   # a result written before results recorded the SHA-256: which file played is unknown
    old_res = json.loads((tmp_path / "mine" / "results.json").read_text())
    for e in old_res["meta"]["entrants"]:
        e.pop("sha256", None)
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "results.json").write_text(json.dumps(old_res))
    assert cli.main(["export", str(run), "--out", str(tmp_path / "d"), "--results", str(tmp_path / "old")]) == 2
    assert (f"it records no SHA-256 of the files its trained policies (policy:{run / 'policy.pt'}:greedy) played"
            in capsys.readouterr().err)
    assert cli.main(["export", str(run), "--out", str(tmp_path / "d"), "--results", str(tmp_path / "old"),
                     "--allow-other-policy"]) == 0
    assert ("so which file played is unknown. Its tables are kept (`treachery export --allow-other-policy`) and "
            "describe the games of whichever file played them, not known to be this policy."
            in (tmp_path / "d" / "MODEL_CARD.md").read_text())


@pytest.mark.parametrize("command", ["evaluate", "throne", "pool"])
def test_results_are_replaced_only_with_force(tmp_path, capsys, monkeypatch, command):
    """An --out that already holds results is refused before any game (evaluate and the Throne
    Magic evaluation replaced it with only a warning, pool too, while export refused without
    --force); with --force the results are replaced; a tournament refused for a bad argument
    says that argument and leaves them as they were."""
    import json

    from training import evaluate as ev
    from training import throne_eval

    small = ["--players", "4", "--starting-life", "6", "--max-turns", "8", "--games", "4", "--no-progress",
             "--agents", "random,heuristic"]
    runs = {"evaluate": ["evaluate", *small], "throne": ["evaluate", "--game", "throne_magic", *small],
            "pool": ["pool", str(tmp_path / "a"), str(tmp_path / "b")]}
    if command == "pool":
        for part, seed in (("a", "1"), ("b", "2")):
            assert cli.main(["evaluate", *small, "--seed", seed, "--out", str(tmp_path / part)]) == 0
    argv = runs[command] + ["--out", str(tmp_path / "r")]
    assert cli.main(argv) == 0
    before = (tmp_path / "r" / "results.json").read_bytes()
    played = {"n": 0}
    real_tasks, real_run = ev.run_tasks, throne_eval._run

    def count(real):
        def counted(*a, **k):
            played["n"] += 1
            return real(*a, **k)
        return counted
    monkeypatch.setattr(ev, "run_tasks", count(real_tasks))
    monkeypatch.setattr(throne_eval, "_run", count(real_run))
    capsys.readouterr()
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err == (f"treachery {argv[0]}: error: --out {str(tmp_path / 'r')!r} already holds results.json and "
                   f"results.md; give another folder, or --force to replace them\n")
    assert played["n"] == 0 and (tmp_path / "r" / "results.json").read_bytes() == before
    if command == "evaluate":
        (tmp_path / "bad.pt").write_bytes(b"garbage")
        for bad in ([f"--agents=policy:{tmp_path / 'bad.pt'},heuristic"], ["--agents=nobot,heuristic"],
                    ["--workers", "0"], ["--games", "0"]):
            assert cli.main(argv + bad) == 2
            assert "already holds" not in capsys.readouterr().err    # the bad argument is said first
        assert played["n"] == 0 and (tmp_path / "r" / "results.json").read_bytes() == before
    (tmp_path / "r" / "results.json").write_text("{}")
    assert cli.main(argv + ["--force"]) == 0
    assert played["n"] == (0 if command == "pool" else 1)
    again = json.loads((tmp_path / "r" / "results.json").read_text())     # the same games again, replaced
    assert again["summary"] == json.loads(before)["summary"]


@pytest.mark.parametrize("wall,iterations,steps,phrase", [
    (90.0, 1, 300, "the run went 30.0 s past its 1.00-min budget (--minutes): its first iteration always runs"),
    (70.0, 3, 900, "past its 1.00-min budget (--minutes): its last iteration took longer than the stop rule's "
                   "forecast (the median of the last 5 iterations)"),
    (60.2, 3, 900, "the run went 0.20 s past its 1.00-min budget"),
    (60.03, 3, 900, "the run went 0.03 s past its 1.00-min budget"),      # a newcomer saw "0.0 s past"
    (60.004, 3, 900, "the run went under 0.01 s past its 1.00-min budget"),
    (119.97, 3, 900, "the run went 1.00 min past its 1.00-min budget"),  # not "60.0 s"
    (50.0, 2, 600, "the time budget (1.00 min, --minutes) ended the run at 600 of 5,000 learner steps"),
])
def test_train_says_when_the_time_budget_ended_or_was_overshot(tmp_path, capsys, monkeypatch, wall, iterations,
                                                               steps, phrase):
    """A run past its --minutes budget (a first iteration always runs) or ended
    by it says so in the summary, instead of silently (issue #13)."""
    import json

    import training.ppo

    run = tmp_path / "run"
    row = {"iteration": iterations, "steps": steps, "wall_s": wall, "games": 3, "perf/agent_steps_per_s": 40.0,
           "belief_accuracy": 0.5, "entropy": 1.5}

    def fake_train(config, resume, progress):
        run.mkdir()
        (run / "metrics.jsonl").write_text(json.dumps(row) + "\n")
        return {"history": [row], "steps": steps, "iterations": iterations, "wall_s": wall,
                "checkpoint": str(run / "ckpt.pt"), "policy": str(run / "policy.pt")}

    monkeypatch.setattr(training.ppo, "train", fake_train)
    assert cli.main(["train", "--run-dir", str(run), "--minutes", "1", "--steps", "5000", "--no-progress"]) == 0
    notes = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("note: ")]
    assert len(notes) == 1 and phrase in notes[0], notes


def test_a_config_files_paths_are_read_from_its_folder_from_any_current_folder(tmp_path, monkeypatch, policy_4p):
    """``init`` and ``kl_policy`` in a config file were read from the current folder, so the shipped
    configs worked only from the repository's root: relative ones are read from the file's folder
    (and kept absolute), while ``run_dir`` stays relative to the current folder and a ``--set
    init=PATH`` is read from there; the shipped configs name files that exist from anywhere."""
    import shutil
    from pathlib import Path

    from training.config import INPUT_PATHS, load_config

    (tmp_path / "w").mkdir()
    shutil.copy(policy_4p, tmp_path / "w" / "p.pt")
    conf = tmp_path / "exp" / "c.toml"
    conf.parent.mkdir()
    conf.write_text('run_dir = "runs/x"\ninit = "../w/p.pt"\nkl_policy = "../w/p.pt"\nkl_coef = 0.1\n')
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    c = load_config(conf)
    assert c.init == c.kl_policy == str((tmp_path / "w" / "p.pt").resolve()) and c.run_dir == "runs/x"
    assert load_config(os.path.relpath(conf)).init == c.init                 # the file named relatively too
    assert load_config(conf, ["init=mine.pt"]).init == "mine.pt"            # a --set path: the current folder's
    conf.write_text(f'init = "{tmp_path / "w" / "p.pt"}"\n')
    assert load_config(conf).init == str(tmp_path / "w" / "p.pt")            # an absolute one as it is
    shipped = sorted((Path(cli.__file__).parent / "configs").glob("*.toml"))
    named = [(f.name, k, getattr(load_config(f), k)) for f in shipped for k in INPUT_PATHS]
    assert [n for n in named if n[2] and not Path(n[2]).is_file()] == [] and any(n[2] for n in named)


def test_a_shipped_configs_models_are_found_where_a_wheel_installs_them(tmp_path, monkeypatch):
    """A wheel installs ``training/configs`` as a package and ``checkpoints/`` as the package
    ``treachery_checkpoints`` beside it, so a shipped config's ``../../checkpoints/NAME/policy.pt``
    names nothing there: it is read from the installed models; a config of one's own keeps its
    path as it names it (nothing is looked for elsewhere)."""
    import shutil
    from pathlib import Path

    import agents.models
    import training.config
    from training.config import load_config

    site = tmp_path / "site-packages"
    configs = site / "training" / "configs"
    configs.mkdir(parents=True)
    shipped = Path(training.config.SHIPPED_CONFIGS) / "advantage_gate.toml"
    shutil.copy(shipped, configs / shipped.name)
    model = site / "treachery_checkpoints" / "residual-departures"
    model.mkdir(parents=True)
    (model / "policy.pt").write_bytes(b"a policy")
    monkeypatch.setattr(training.config, "SHIPPED_CONFIGS", configs.resolve())
    monkeypatch.setattr(agents.models, "CHECKPOINTS", (site / "treachery_checkpoints").resolve())
    assert load_config(configs / shipped.name).init == str((model / "policy.pt").resolve())
    mine = tmp_path / "mine" / "c.toml"
    mine.parent.mkdir()
    mine.write_text('init = "../../checkpoints/residual-departures/policy.pt"\n')
    assert load_config(mine).init == str((mine.parent / "../../checkpoints/residual-departures/policy.pt").resolve())


def test_resume_accepts_a_config_file_naming_the_runs_init_from_its_own_folder(tmp_path, capsys, monkeypatch):
    """A run started (before config files' paths were read from their folder) from the folder of
    its config file recorded ``init`` relative to it; the same file given with --resume names the
    same checkpoint, so it is accepted, and one naming another file is refused."""
    import training.ppo
    from agents.policy import PolicyNet, save_checkpoint
    from training.config import TrainConfig

    run = tmp_path / "run"
    (tmp_path / "w").mkdir()
    net = PolicyNet(1, 1, 4, 16)
    for name in ("p.pt", "q.pt"):
        save_checkpoint(tmp_path / "w" / name, net, {"num_players": 4})
    stored = TrainConfig(run_dir=str(run), hidden=16, init="w/p.pt", game={"num_players": 4})
    save_checkpoint(run / "ckpt_3.pt", net, stored.game_config().to_dict(), train_config=stored.to_dict(),
                    training_state={})
    monkeypatch.setattr(training.ppo, "train", lambda config, resume, progress: {
        "history": [], "steps": 0, "iterations": 0, "wall_s": 0.0, "checkpoint": str(resume), "policy": ""})
    monkeypatch.chdir(tmp_path)
    conf = tmp_path / "c.toml"
    for init, code in (("w/p.pt", 0), ("w/q.pt", 2)):
        conf.write_text(f'run_dir = "{run}"\nhidden = 16\ninit = "{init}"\n[game]\nnum_players = 4\n')
        assert cli.main(["train", "--config", str(conf), "--resume", "--no-progress"]) == code
    assert "differs from it in ['init']" in capsys.readouterr().err


# --------------------------------------------------------------------------- which run, and what is left after a stop
def _checkpoint_in(folder) -> None:
    """A checkpoint of a small 4-player run in ``folder`` (no training needed)."""
    from agents.policy import PolicyNet, save_checkpoint
    from training.config import TrainConfig

    cfg = TrainConfig(run_dir=str(folder), hidden=16, game={"num_players": 4})
    save_checkpoint(folder / "ckpt_000003.pt", PolicyNet(1, 1, 4, 16), cfg.game_config().to_dict(),
                    train_config=cfg.to_dict(), training_state={})


def test_resume_without_a_run_dir_asks_for_it_and_names_the_newest_run(tmp_path, capsys, monkeypatch):
    """``treachery train --resume`` without ``--run-dir``: new runs go to runs/train-<date>-<time>,
    not to the config's default folder, so the error asks for --run-dir and names the run under
    runs/ whose checkpoint was written last; a run in the default folder still resumes."""
    import training.ppo

    def stub(*a, **kw):
        raise ValueError("train reached")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(training.ppo, "train", stub)
    assert cli.main(["train", "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("treachery train: error: --resume needs the run's folder: give --run-dir (a new run goes "
                          "to runs/train-<date>-<time>); there is no run under ") and len(err.strip().splitlines()) == 1
    for name, written in (("train-20240101-000000", 2000), ("train-20240102-000000", 1000)):
        _checkpoint_in(tmp_path / "runs" / name)
        os.utime(tmp_path / "runs" / name / "ckpt_000003.pt", (written, written))
    (tmp_path / "runs" / "notes").mkdir()
    assert cli.main(["train", "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("the newest run under runs/ is 'runs/train-20240101-000000' "
                                "(--resume --run-dir runs/train-20240101-000000)"), err
    _checkpoint_in(tmp_path / "runs" / "default")
    assert cli.main(["train", "--resume", "--no-progress"]) == 2
    assert capsys.readouterr().err.strip() == "treachery train: error: train reached"


def test_train_evaluate_says_its_games_rounded_up_once_naming_evaluate(tmp_path, capsys):
    """``treachery train --evaluate 2`` plays whole deals (5 games) against random and against heuristic:
    the rounding was said twice, once by each evaluation, and named ``--games 2``, an option train lacks."""
    run = tmp_path / "run"
    assert cli.main(["train", "--run-dir", str(run), "--no-progress", "--workers", "1", "--steps", "200",
                     "--evaluate", "2", "--set", "hidden=32", "--set", "rollout_steps=200",
                     "--set", "game.num_players=4", "--set", "game.starting_life=6", "--set", "game.max_turns=8"]) == 0
    out, err = capsys.readouterr()
    notes = [line for line in err.splitlines() if "rounded up" in line]
    assert notes == ["5 games: 1 deal (--evaluate 2 rounded up to whole deals of 5 games)"], err
    assert "== the policy against random: 5 games (1 deal)," in out and "against heuristic: 5 games (1 deal)," in out


def test_a_stop_after_training_says_the_run_is_saved_and_how_to_evaluate_it(tmp_path, capsys, monkeypatch):
    """Ctrl-C during ``--evaluate`` (after training finished) says the run is saved, with its
    checkpoint and policy, and gives the ``treachery evaluate`` command of each evaluation not
    finished, which plays what the trainer would have (the same arguments); ``--resume
    --evaluate`` of the trained run is refused with both commands."""
    import inspect
    import shlex

    import training.evaluate

    real = training.evaluate.evaluate
    calls, stop = [], {"at": "heuristic"}

    def evaluate(*a, **kw):
        bound = inspect.signature(real).bind(*a, **kw)
        bound.apply_defaults()
        args = {k: str(v) if k == "out_dir" else v for k, v in bound.arguments.items()
                if k not in ("progress", "games_flag")}     # what is shown, not what is played
        calls.append(args)
        if stop["at"] in (args["reference"], "all"):
            raise KeyboardInterrupt
        return real(*a, **kw)

    monkeypatch.setattr(training.evaluate, "evaluate", evaluate)
    run = tmp_path / "run"
    assert cli.main(["train", "--run-dir", str(run), "--no-progress", "--workers", "1", "--steps", "200",
                     "--evaluate", "2", "--set", "hidden=32", "--set", "rollout_steps=200",
                     "--set", "game.num_players=4", "--set", "game.starting_life=6", "--set", "game.max_turns=8"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    # the evaluation against random said first which games it played (2 rounded up to a whole deal)
    assert err[0] == "5 games: 1 deal (--evaluate 2 rounded up to whole deals of 5 games)", err
    err = err[1:]
    head = (f"treachery train: interrupted after training finished; the run is saved: checkpoint {run / 'ckpt_000001.pt'}, "
            f"policy {run / 'policy.pt'}; the evaluation against heuristic was not finished (nothing written for it): run ")
    assert len(err) == 1 and err[0].startswith(head), err
    trainer = {c["reference"]: c for c in calls}
    assert list(trainer) == ["random", "heuristic"]
    commands = err[0][len(head):].split(" && ")
    assert len(commands) == 1 and commands[0].startswith("treachery evaluate ")
    stop["at"] = "all"
    assert cli.main(shlex.split(commands[0])[1:]) == 130
    assert calls[-1] == trainer["heuristic"]
    # trained: --resume --evaluate is refused, naming the commands of both evaluations
    capsys.readouterr()
    assert cli.main(["train", "--resume", "--run-dir", str(run), "--evaluate", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("treachery train: error: nothing to train: ckpt_000001.pt is at "), err
    commands = err[0].split("; to evaluate its policy, run ")[1].split(" && ")
    for command, ref in zip(commands, ["random", "heuristic"], strict=True):
        assert cli.main(shlex.split(command)[1:]) == 130
        assert calls[-1] == trainer[ref]


def test_sigterm_before_the_run_began_is_named_and_exits_143(tmp_path, capsys, monkeypatch):
    """SIGTERM while ``treachery train`` starts (loading the checkpoint to resume, say) is said as
    SIGTERM, exit status 143, as once the run began (not as a Ctrl-C, 130)."""
    import training.ppo
    from training.interrupts import Terminated

    def loading(run_dir, warn=True):
        raise Terminated()

    monkeypatch.setattr(training.ppo, "load_resumable", loading)
    assert cli.main(["train", "--resume", "--run-dir", str(tmp_path / "run"), "--no-progress"]) == 143
    assert capsys.readouterr().err == "treachery train: terminated (SIGTERM)\n"


def test_ctrl_c_while_the_command_line_is_read_is_one_line_and_exits_130(capsys, monkeypatch):
    """Ctrl-C while ``treachery`` builds its parser (which imports the package: the command's first
    second or so) is one line and exit status 130, as later; it was Python's KeyboardInterrupt
    traceback.  SIGTERM there (where a caller caught it) says so, 143."""
    from training.interrupts import Terminated

    for raised, status, said in ((KeyboardInterrupt(), 130, "interrupted"), (Terminated(), 143, "terminated (SIGTERM)")):
        def building(raised=raised):
            raise raised

        monkeypatch.setattr(cli, "build_parser", building)
        assert cli.main(["train", "--no-progress"]) == status
        assert capsys.readouterr().err == f"treachery: {said}\n"


def test_resume_given_a_run_folder_says_how_to_resume_it(tmp_path, capsys, monkeypatch):
    """``--resume RUN_DIR`` (a folder where ``--resume`` takes a checkpoint file) is one line that
    says so and gives both ways: the folder's newest checkpoint by ``--resume --run-dir``, or one
    checkpoint file; it used to say the folder "does not exist or is not a file"."""
    monkeypatch.chdir(tmp_path)
    _checkpoint_in(tmp_path / "runs" / "x")
    assert cli.main(["train", "--resume", "runs/x", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err == ("treachery train: error: --resume 'runs/x' is a folder, and --resume takes a checkpoint file: "
                   "--resume --run-dir runs/x continues the run in it from its newest checkpoint, "
                   "--resume runs/x/ckpt_<iteration>.pt from that checkpoint\n"), err


def test_an_input_path_that_is_missing_or_the_wrong_kind_says_so_plainly(tmp_path, capsys, monkeypatch):
    """Every command's run folder, checkpoint and results path is refused in one line that says what is
    wrong with it: ``train --resume --run-dir`` of a folder that does not exist, or of a file, used to
    say there was "no ckpt_*.pt in" it; a missing checkpoint was one that "does not exist or is not a
    file", and a missing results file or ``--notes`` file was "not found"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "empty").mkdir()
    where = f" (a relative path, read from the current folder {tmp_path})"
    for argv, line in (
            (["train", "--resume", "--run-dir", str(tmp_path / "nope")],
             f"treachery train: error: run folder {str(tmp_path / 'nope')!r} does not exist"),
            (["train", "--resume", "--run-dir", "nope"], f"treachery train: error: run folder 'nope' does not exist"
                                                         f"{where}"),
            (["train", "--resume", "--run-dir", "afile"],
             "treachery train: error: run folder 'afile' is a file, not a folder"),
            (["train", "--resume", "--run-dir", "empty"], "treachery train: error: nothing to resume: no ckpt_*.pt "
                                                          "in 'empty'"),
            (["train", "--resume", "nope.pt"], f"treachery train: error: checkpoint 'nope.pt' does not exist{where}"),
            (["train", "--resume", "/dev/null"], "treachery train: error: checkpoint '/dev/null' is not a regular "
                                                 "file (a device, a pipe or a socket)"),
            (["graft", "nope.pt", "afile", "--role", "leader", "--out", "g.pt"],
             f"treachery graft: error: BASE: checkpoint 'nope.pt' does not exist{where}"),
            (["evaluate", "--agents", "policy:nope.pt,random", "--out", "out"],
             f"treachery evaluate: error: checkpoint 'nope.pt' does not exist{where}"),
            (["export", "nope", "--out", "out"], "treachery export: error: run folder 'nope' does not exist; give the "
                                                 "folder of a training run (e.g. runs/train-<date>-<time>) or a "
                                                 "policy file"),
            (["export", "afile", "--out", "out", "--notes", "nope.md"],
             f"treachery export: error: --notes file 'nope.md' does not exist{where}"),
            (["compare", "nope", "empty"], f"treachery compare: error: results file 'nope' does not exist{where}"),
            (["pool", "empty", "afile", "--out", "out"], "treachery pool: error: results folder 'empty' has no "
                                                         "results.json")):
        assert cli.main(argv) == 2, argv
        assert capsys.readouterr().err == line + "\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "empty"]      # nothing made


def test_an_option_another_command_takes_is_answered_with_its_hint(capsys):
    """``treachery serve --players 5``: serve takes the table size from ``--seats``, which the error
    says, not the closest option's name (``--replay``); a mistyped option beside it still gets its
    closest one, and a command without the hint (``play``) the closest option as before."""
    for argv, line in (
            (["serve", "--players", "5"],
             "treachery serve: error: unrecognized arguments: --players 5 (serve takes the number of players "
             "from --seats, one spec per seat: --seats human,heuristic,heuristic,heuristic,heuristic is 5 "
             "players)"),
            (["serve", "--players=5", "--sead", "3"], "--players=5 --sead 3 (serve takes the number of players "
                                                      "from --seats, one spec per seat: --seats "
                                                      "human,heuristic,heuristic,heuristic,heuristic is 5 players; "
                                                      "did you mean --seed?)"),
            (["serve", "--sead", "3"], "treachery serve: error: unrecognized arguments: --sead 3 (did you mean "
                                       "--seed?)"),
            (["play", "--plyers", "5"], "treachery play: error: unrecognized arguments: --plyers 5 (did you mean "
                                        "--players?)")):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.strip().splitlines()[-1].endswith(line), err


def test_a_mistyped_option_value_is_one_line(capsys):
    """A value argparse refuses (a choice, an int) is one line naming the option, what was given and
    what it takes, with the choice meant where one is close; not the usage block first. A missing
    required option keeps the usage, which shows what is needed."""
    for argv, line in (
            (["evaluate", "--agents", "heuristic,random", "--mode", "substituton"],
             "treachery evaluate: error: argument --mode: invalid choice: 'substituton' (choose from 'rotate', "
             "'substitution', 'crossplay', 'teammates') (did you mean substitution?)"),
            (["evaluate", "--agents", "heuristic,random", "--players", "five"],
             "treachery evaluate: error: argument --players: invalid int value: 'five'"),
            (["play", "--game", "thrones"], "treachery play: error: argument --game: invalid choice: 'thrones' "
                                            "(choose from 'treachery', 'throne_magic') (did you mean throne_magic?)"),
            (["evalute"], "(did you mean evaluate?)")):
        with pytest.raises(SystemExit) as stop:
            cli.main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and len(err.strip().splitlines()) == 1 and line in err, err
    with pytest.raises(SystemExit):
        cli.main(["evaluate"])
    err = capsys.readouterr().err
    assert err.startswith("usage: treachery evaluate") and "the following arguments are required: --agents" in err
