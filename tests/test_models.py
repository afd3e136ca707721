"""Named models (agents.models): the shipped checkpoints by name, checked against their cards."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import agents
import treachery_env
from agents.models import CHECKPOINTS, checked_policy, models, sha256_of
from agents.policy import PolicyAgent
from training.cli import main


def test_every_shipped_model_loads_by_name_greedy_and_checked():
    """Each checkpoints/NAME with a policy and a card is the agent NAME: its card's
    SHA-256 is its file's, and ``agents.make(NAME)`` is its greedy policy, which plays
    a legal action at the table it was trained for."""
    found = models()
    assert {"flagship", "entity-ppo", "residual-exit", "residual-departures"} <= set(found)
    for m in found.values():
        assert m.sha256 == sha256_of(m.policy) and checked_policy(m) == m.policy
        assert m.name in agents.available()
    bot = agents.make("flagship", seed=0)
    assert isinstance(bot, PolicyAgent) and bot.greedy
    assert "Above the heuristic bot" in found["flagship"].verdict()
    env = treachery_env.env(num_players=bot.num_players())
    env.reset(seed=4)
    bot.reset(int(env.agent_selection.split("_")[1]))
    obs, _, _, _, info = env.last()
    assert obs["action_mask"][bot.act(obs, info)] == 1


@pytest.mark.parametrize("spec", ["flagship:greedy", "Flagship:Greedy", "flagship:gate=0.01", "entity-ppo:sample"])
def test_a_mode_after_a_shipped_models_name_says_it_is_greedy_already_and_how_to_load_it_otherwise(spec):
    """``flagship:greedy`` (the way a policy's mode is given) said only that the bot takes no argument:
    the one line now says that the model is the greedy policy and names its file for the other modes."""
    name = spec.partition(":")[0].lower()
    path = str(models()[name].policy.relative_to(Path.cwd())) if models()[name].policy.is_relative_to(Path.cwd()) \
        else str(models()[name].policy)
    with pytest.raises(ValueError) as e:
        agents.make(spec)
    assert str(e.value) == (f"agent '{name}' takes no argument, got '{spec}': a shipped model plays its policy greedy "
                            f"already ('{name}' is the greedy policy); for another mode load its file, "
                            f"policy:{path}[:greedy][:gate=T] (without ':greedy' it samples)")
    assert agents.make(f"policy:{path}:greedy").greedy and not agents.make(f"policy:{path}").greedy
    with pytest.raises(ValueError, match=r"^agent 'heuristic' takes no argument, got 'heuristic:greedy'$"):
        agents.make("heuristic:greedy")


def test_a_model_whose_file_is_not_its_cards_is_refused(tmp_path):
    """A truncated or replaced policy file, or a card without a checksum, is one line
    naming the model and the way out; folders without both files are not models."""
    src = models()["residual-exit"]
    for name in ("cut", "nosum"):
        shutil.copytree(src.policy.parent, tmp_path / name)
    (tmp_path / "empty").mkdir()
    (tmp_path / "only-policy").mkdir()
    shutil.copy(src.policy, tmp_path / "only-policy" / "policy.pt")
    data = (tmp_path / "cut" / "policy.pt").read_bytes()
    (tmp_path / "cut" / "policy.pt").write_bytes(data[: len(data) // 2])
    card = tmp_path / "nosum" / "MODEL_CARD.md"
    card.write_text("\n".join(l for l in card.read_text().split("\n") if "SHA-256" not in l))
    found = models(tmp_path)
    assert sorted(found) == ["cut", "nosum"] and found["nosum"].sha256 is None
    with pytest.raises(ValueError, match=r"^model 'cut': .*policy.pt' is not the file its card describes \(SHA-256 "):
        checked_policy(found["cut"])
    with pytest.raises(ValueError, match=r"^model 'nosum': its card .* records no policy checksum; export it again"):
        checked_policy(found["nosum"])
    assert models(tmp_path / "missing") == {}


def test_the_models_command_and_the_version(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "| name | file | MB | checksum | the card's verdict |"
    rows = {line.split(" | ")[0].lstrip("| "): line for line in out[2:]}
    assert set(rows) == set(models()) and all(" | ok | " in row for row in rows.values())
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out == f"treachery {treachery_env.__version__}\n"


def test_the_models_command_says_a_mismatch_as_the_clis_other_warnings(tmp_path, capsys, monkeypatch):
    """A model whose file is not its card's: the row says MISMATCH and the reason is one line in the
    CLI's form of a warning, ``treachery: warning: ...`` (it had one of its own, ``treachery models:
    warning: ...``)."""
    import agents.models as am

    shutil.copytree(models()["residual-exit"].policy.parent, tmp_path / "cut")
    data = (tmp_path / "cut" / "policy.pt").read_bytes()
    (tmp_path / "cut" / "policy.pt").write_bytes(data[: len(data) // 2])
    monkeypatch.setattr(am, "models", lambda: models(tmp_path))
    assert main(["models"]) == 0
    out, err = capsys.readouterr()
    assert " | MISMATCH | " in out.splitlines()[2]
    assert err.startswith("treachery: warning: model 'cut': ") and len(err.splitlines()) == 1, err


def test_a_named_model_enters_a_tournament_by_name():
    from training import evaluate as ev
    res = ev.evaluate(["residual-exit", "heuristic"], games=5, seed=3, mode="substitution", reference="heuristic",
                      progress=False, record_beliefs=False, observer=False)
    assert res["substitution"]["candidates"]["residual-exit"]["overall"]["pairs"] == 5
    played = {e["label"]: e.get("sha256") for e in res["meta"]["entrants"]}      # which bytes played
    assert played == {"residual-exit": models()["residual-exit"].sha256, "heuristic": None}
    assert np.isfinite(res["substitution"]["candidates"]["residual-exit"]["overall"]["delta"])
    assert CHECKPOINTS.name == "checkpoints"


def test_the_named_models_are_package_data(tmp_path):
    """A wheel carries the shipped models (the package ``treachery_checkpoints``, from
    ``checkpoints/``): setup.py's build_py copies every model's policy and card, beside the
    packages' other data files, and ``agents.models`` reads them from there once installed.  The build
    writes nothing in the checkout: build_py runs egg_info, which wrote (rewrote, under an editable
    install) the checkout's ``treachery_toolkit.egg-info``; its --egg-base is the temporary folder."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent

    def checkout() -> dict:
        return {str(q.relative_to(root)): q.stat().st_mtime_ns for q in root.iterdir() if q.name != "__pycache__"}

    def egg_info() -> dict:
        egg = root / "treachery_toolkit.egg-info"
        return {q.name: q.stat().st_mtime_ns for q in egg.iterdir()} if egg.is_dir() else {}

    before = (checkout(), egg_info())
    done = subprocess.run([sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(tmp_path), "build_py",
                           "--build-lib", str(tmp_path / "lib")], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (checkout(), egg_info()) == before
    lib = tmp_path / "lib"
    built = lib / "treachery_checkpoints"
    assert set(models(built)) == set(models()) and models()
    for name, m in models(built).items():
        assert m.sha256 == models()[name].sha256 == sha256_of(m.policy)
    for data in ("treachery_env/data/identities.json", "training/configs/entity_ppo.toml", "agents/rllib_module.py"):
        assert (lib / data).is_file()


def test_the_way_to_restore_a_models_file_is_the_one_at_hand(tmp_path, monkeypatch):
    """The refusal of an altered file said ``git checkout -- PATH`` even for a wheel's install, where
    no git checkout holds it: git's command where git tracks the file, a reinstall of the package
    where it is the installed package's (:data:`agents.models.CHECKPOINTS`), else the card's file."""
    import subprocess

    import agents.models as am
    src = models()["residual-exit"]
    for where in ("wheel", "repo", "own"):
        shutil.copytree(src.policy.parent, tmp_path / where / "cut")

    def refusal(root):
        (root / "cut" / "policy.pt").write_bytes(b"not a policy")
        with pytest.raises(ValueError) as err:
            checked_policy(models(root)["cut"])
        return str(err.value)
    monkeypatch.setattr(am, "CHECKPOINTS", tmp_path / "wheel")      # the installed package's folder
    said = refusal(tmp_path / "wheel")
    assert "git" not in said and "; reinstall treachery-toolkit from the wheel it came with (pip install " \
        "--force-reinstall WHEEL) or load it as policy:" in said
    assert "git" not in (said := refusal(tmp_path / "own")) and "; put back the file its card was written " \
        "with or load it as policy:" in said
    if shutil.which("git") is None:
        pytest.skip("no git to track a file")
    repo = tmp_path / "repo"
    for args in (["init", "-q"], ["add", "cut"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "m"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
    monkeypatch.chdir(repo)
    assert "; restore it (git checkout -- cut/policy.pt) or load" in refusal(repo)
    monkeypatch.chdir(tmp_path)
    assert f"; restore it (git -C {repo.resolve()} checkout -- cut/policy.pt) or load" in refusal(repo)


def test_a_models_file_is_named_in_one_form_wherever_it_is_shown(tmp_path, monkeypatch, capsys):
    """A shipped model's folder is absolute (:data:`agents.models.CHECKPOINTS`): an altered file's
    refusal named it absolute ('/.../cut/policy.pt' is not the file..., policy:/...) beside a git
    hint naming it relative to the current folder, and ``treachery models`` listed it absolute.
    Each now names it as :func:`agents.models.shown_path` does: relative to the current folder
    where it lies in it, else as it is."""
    import agents.models as am

    shutil.copytree(models()["residual-exit"].policy.parent, tmp_path / "cut")
    (tmp_path / "cut" / "policy.pt").write_bytes(b"not a policy")
    card = tmp_path / "cut" / "MODEL_CARD.md"
    monkeypatch.setattr(am, "models", lambda: models(tmp_path.resolve()))
    for cwd, shown in ((tmp_path, "cut/policy.pt"), (tmp_path / "cut", "policy.pt"),
                       (tmp_path.parent / "elsewhere", str(tmp_path.resolve() / "cut" / "policy.pt"))):
        cwd.mkdir(exist_ok=True)
        monkeypatch.chdir(cwd)
        assert main(["models"]) == 0
        out, err = capsys.readouterr()
        assert out.splitlines()[2].startswith("| cut ") and f" | {shown} | 0.0 | MISMATCH | " in out
        assert err.startswith(f"treachery: warning: model 'cut': {shown!r} is not the file its card describes ")
        assert err.endswith(f"; put back the file its card was written with or load it as policy:{shown}\n"), err
    card.write_text("\n".join(line for line in card.read_text().split("\n") if "SHA-256" not in line))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=r"^model 'cut': its card 'cut/MODEL_CARD.md' records no policy checksum; "
                                         r"export it again \(treachery export\) or load it as policy:cut/policy.pt$"):
        checked_policy(models(tmp_path.resolve())["cut"])
