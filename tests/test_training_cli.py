"""Input validation of the ``treachery`` command line and of policy files (issue #13):
bad input is refused with one line naming what is wrong, never a traceback."""

from __future__ import annotations

import os

import pytest
import torch

import agents
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
        (["train", "--workers", "0", *run], "workers = 0"),
        (["train", "--workers", many, *run], "CPU"),
        (["train", "--set", f"workers={many}", *run], "CPU"),
        (["train", "--eval-workers", many, "--evaluate", "4", *run], "CPU"),
        (["train", "--set", "nonsense", *run], "key=value"),
        (["train", "--set", "learning_rate=abc", *run], "learning_rate = 'abc'"),
        (["train", "--run-dir", afile], "not a folder"),
        (["train", "--run-dir", os.path.join(afile, "sub")], "not a folder"),
        ([*ev, "--agents", "nosuchbot"], "unknown agent specs ['nosuchbot']"),
        ([*ev, "--agents", "random", "--games", "0"], "--games must be >= 1, got 0"),
        ([*ev, "--agents", "random", "--workers", "0"], "--workers must be >= 1, got 0"),
        ([*ev, "--agents", "random", "--workers", many], "CPU"),
        ([*ev, "--agents", "policy:/no/such/file"], "does not exist"),
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



def test_minutes_help_says_when_the_budget_is_checked(capsys):
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "checked after each iteration" in text and "final summary says how long it ran" in text
