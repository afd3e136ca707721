"""Input validation of the ``treachery`` command line and of policy files (issue #13):
bad input is refused with one line naming what is wrong, never a traceback."""

from __future__ import annotations

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

