"""The notebooks of issue #6, executed top to bottom (notebooks/*.ipynb).

Each notebook runs as ``make notebooks-run`` runs it (notebooks/run_notebooks.py:
nbclient, a fresh kernel of *this* interpreter, ``notebooks/`` as working
directory, the parameters as committed; notebook 04 plays unattended through
``TREACHERY_NOTEBOOK_AUTOPLAY=1``).  The committed files must stay clean (no
outputs); the executed copies are never written back.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
sys.path.insert(0, str(NOTEBOOKS))
import run_notebooks  # noqa: E402  (notebooks/ is no package: the runner is imported from its folder)

EXPECTED = ["01_quickstart.ipynb", "02_bots_and_evaluation.ipynb", "03_training.ipynb",
            "04_play_against_bots.ipynb", "05_benchmarking.ipynb"]


def execute(name: str, monkeypatch, tmp_path: Path, capsys) -> nbformat.NotebookNode:
    """Notebook ``name`` as ``make notebooks-run`` executes it (``run_notebooks.main``), read back from
    the executed copy it wrote; what it writes with ``tempfile`` goes under ``tmp_path`` (pytest's, kept
    for the last few runs only), not into the machine's /tmp."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    out = tmp_path / "executed"
    status = run_notebooks.main([name, "--out", str(out)])
    said = capsys.readouterr().out
    assert status == 0 and said.startswith(f"{name}: ran in "), said
    assert not list(tmp_path.glob("kernelspec-*"))          # its kernelspec folder is gone
    return nbformat.read(out / name, as_version=4)


def outputs(nb) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def text_of(nb) -> str:
    """Every text output in order (streams, and text/plain of results and displays).  A stream's
    pieces are joined as written: the kernel sends what a cell prints in chunks, flushed on a
    timer, so under load one ``print`` can arrive as two outputs split mid-line (a failure of
    CI on a busy machine); results and displays are lines of their own."""
    parts = []
    for o in outputs(nb):
        if o.output_type == "stream":
            parts.append(o.text)
        elif o.output_type in ("execute_result", "display_data"):
            parts.append("\n" + o.get("data", {}).get("text/plain", "") + "\n")
    return "".join(parts)


def test_the_five_notebooks_are_there_and_clean():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == EXPECTED
    for name in EXPECTED:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert "parameters" in code[0].metadata.get("tags", []), f"{name}: first code cell must be tagged parameters"
        assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
        for c in code:
            assert not c.outputs and c.execution_count is None, f"{name}: committed with outputs"


def test_the_figures_the_notebooks_quote_are_the_readme_s_and_the_code_s():
    """Numbers the notebooks' text quotes from elsewhere, which no run of them prints: 02's
    measured ladder (every figure of its text is in the README's "Bot ladder" section, which a
    new flagship rewrites), 03's real training defaults (``TrainConfig``'s)."""
    from training.config import TrainConfig

    def markdown(name):
        return "".join(c.source for c in nbformat.read(NOTEBOOKS / name, as_version=4).cells if c.cell_type == "markdown")

    def first_code(name):         # the parameters
        return next(c.source for c in nbformat.read(NOTEBOOKS / name, as_version=4).cells if c.cell_type == "code")
    readme = (NOTEBOOKS.parent / "README.md").read_text()
    ladder = readme.split("\n## Bot ladder\n", 1)[1].split("\n## ", 1)[0]
    quoted = re.findall(r"\d\.\d{3}", markdown("02_bots_and_evaluation.ipynb"))
    assert len(quoted) >= 10
    assert [x for x in quoted if not re.search(rf"(?<![\d.]){re.escape(x)}(?!\d)", ladder)] == []
    defaults = TrainConfig()
    said = dict(re.findall(r"`(hidden|rollout_steps|total_steps)=([\d_]+)`", markdown("03_training.ipynb")))
    assert {k: int(v) for k, v in said.items()} == {k: getattr(defaults, k) for k in ("hidden", "rollout_steps",
                                                                                        "total_steps")}
    params = dict(re.findall(r"^(\w+) = .*real default ([\d_]+)", first_code("03_training.ipynb"), re.M))
    assert {k: int(v) for k, v in params.items()} == {"TOTAL_STEPS": defaults.total_steps, "HIDDEN": defaults.hidden,
                                                      "STARTING_LIFE": defaults.game_config().life,
                                                      "MAX_TURNS": defaults.game_config().max_turns}


def test_the_runner_refuses_an_unknown_notebook_and_an_out_folder_in_notebooks(capsys):
    """``make notebooks-run``'s runner: a notebook that is not there, or executed copies that would
    land in notebooks/ beside the clean ones, are one-line errors before any kernel starts."""
    for argv, msg in ((["nope.ipynb"], "no notebook 'nope.ipynb' in "),
                      (["--out", str(NOTEBOOKS / "executed")], "is in notebooks/, whose notebooks are committed "
                                                               "without outputs; give a folder outside it")):
        with pytest.raises(SystemExit) as stop:
            run_notebooks.main(argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and msg in err and err.count("error:") == 1, err
    assert not (NOTEBOOKS / "executed").exists()


def test_the_runner_checks_its_out_folder_before_the_notebooks_run(tmp_path, monkeypatch, capsys):
    """An ``--out`` that cannot be made (a name over 255 characters, ``/proc``) is a one-line error
    before any notebook runs (it was found only when the first executed copy was written)."""
    def no_run(*a, **k):
        raise AssertionError("a notebook ran before --out was checked")
    monkeypatch.setattr(run_notebooks, "execute", no_run)
    outs = [str(tmp_path / ("x" * 300))] + (["/proc/treachery-no-such"] if sys.platform.startswith("linux") else [])
    for out in outs:
        with pytest.raises(SystemExit) as stop:
            run_notebooks.main(["01_quickstart.ipynb", "--out", out])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("error:") == 1, err
        assert f"error: --out {out!r} cannot be made: " in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_runner_says_which_notebook_failed_and_how(tmp_path, monkeypatch, capsys):
    """A notebook whose cell raises: the runner prints its name and the error in one line, still
    writes the executed copy (the outputs up to the error), runs the others and exits 1.  Each
    notebook's kernel is shut down once it is done, the failed one's too (nbclient leaves alive a
    kernel whose manager it is given: every kernel lived until the runner's process ended)."""
    folder = tmp_path / "nbs"
    folder.mkdir()
    for name, cells in (("a_bad.ipynb", ["print('before')", "raise ValueError('the cell failed')", "print('after')"]),
                        ("b_good.ipynb", ["print('fine')"])):
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]), folder / name)
    monkeypatch.setattr(run_notebooks, "NOTEBOOKS", folder)
    kernels = []

    class Recorded(run_notebooks.KernelManager):
        def start_kernel(self, **kw):
            kernels.append(self)
            return super().start_kernel(**kw)
    monkeypatch.setattr(run_notebooks, "KernelManager", Recorded)
    assert run_notebooks.main(["--out", str(tmp_path / "out")]) == 1
    assert len(kernels) == 2 and not any(k.is_alive() for k in kernels)
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith("a_bad.ipynb: failed: cell 2 of 3: ValueError: the cell failed in ") and \
        said[1].startswith("b_good.ipynb: ran in ") and len(said) == 2, said
    done = nbformat.read(tmp_path / "out" / "a_bad.ipynb", as_version=4)
    assert [o.get("text") for o in done.cells[0].outputs] == ["before\n"] and not done.cells[2].outputs


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_runs(name, monkeypatch, tmp_path, capsys):
    nb = execute(name, monkeypatch, tmp_path, capsys)
    outs = outputs(nb)
    errors = [o for o in outs if o.output_type == "error"]
    assert not errors, f"{name}: {errors[0].ename}: {errors[0].evalue}"
    stderr = "".join(o.text for o in outs if o.output_type == "stream" and o.name == "stderr")
    assert "Traceback" not in stderr, f"{name} wrote to stderr: {stderr[:2000]}"
    # a trained policy plays the game its checkpoint records (agents/policy.py warns on another)
    assert "GameConfigMismatchWarning" not in stderr, f"{name}: {stderr[:2000]}"
    text = text_of(nb)
    images = sum("image/png" in o.get("data", {}) for o in outs)
    if not name.startswith(("02", "04")):   # the others write under tempfile: here, not into /tmp
        assert any(p.name.startswith("treachery-") for p in tmp_path.iterdir()), name
    if name.startswith("01"):
        assert f"python: {sys.executable}" in text           # the kernel is this interpreter
        assert "replayed: same winners" in text and "tampered replay -> replay digest mismatch" in text
        assert "their names in the spectator view: none" in text
        assert "Throne Magic: the Roles in the game: The King" in text and "Throne Magic game over after" in text
        # what the text says of the first decision: a real choice (single options are taken), at turn 0's
        # mulligans, whose phase reads cleanup
        assert int(re.search(r"^player_\d+ decides\. .*, (\d+) legal actions$", text, re.M).group(1)) >= 2
        assert re.search(r"^seat \d+, turn 0, phase cleanup, ", text, re.M) and "decision: mulligan - " in text
        assert images >= 2
    elif name.startswith("02"):
        assert "games (" in text
        # the checkout's flagship plays by name wherever the package's copy of it lies (same bytes)
        assert re.search(r"^  P4 flagship +\w+ ", text, re.M), text[:2000]
        # the per-role table's cells read as its text explains them: rate [low, high] n=seat-games/deals
        table = "".join(o.get("data", {}).get("text/markdown", "") for o in outs)
        assert re.search(r"\| \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] n=\d+/\d+ \|", table), table
        assert "`rate [low, high] n=seat-games/deals`" in "".join(c.source for c in nb.cells)
        assert images >= 4       # win rates, cross-play, ratings, deduction
    elif name.startswith("03"):
        assert "learner steps in" in text and "tensorboard --logdir" in text
        assert "format: treachery-policy/1" in text
        # the text describes the shipped network the notebook prints: a role's own gate is grafted on
        network = re.search(r"^format: .*\| network: (.*)$", text, re.M).group(1)
        if "'role_gates'" in network:
            assert "treachery graft" in "".join(c.source for c in nb.cells if c.cell_type == "markdown")
        assert images >= 1
    elif name.startswith("04"):
        check_play_transcript(text)
    elif name.startswith("05"):
        assert "AggroBot(seed=0)" in text and "'results.md'" in text
        # the deals the text counts for its quick run are the run's (results.md, displayed)
        said = re.search(r"at the (\d+) deals of this notebook's\s+quick run", "".join(c.source for c in nb.cells))
        report = "".join(o.get("data", {}).get("text/markdown", "") for o in outs)
        assert said and f"mode: rotate, seed 0, deals: {said.group(1)}, games: " in report, report[:1000]
        assert images >= 5


def check_play_transcript(text: str) -> None:
    """Notebook 04 played a whole game by clicking its widget's buttons, revealed every identity at
    the end and stepped through the replay (what the widget shows a seat is checked for hidden
    information in tests/test_widgets.py)."""
    assert "mode: autoplay (the notebook clicks)" in text
    m = re.search(r"the game is over after (\d+) turns \((a draw|won by P\d)[^)]*\); you answered (\d+) prompts by "
                  r"clicking", text)
    assert m and int(m.group(3)) > 0, text[-2000:]
    revealed = re.findall(r"^  P(\d) \((you|[\w:]+)\): (The [\w' -]+) \((Leader|Guardian|Assassin|Traitor)\)", text, re.M)
    assert sorted(int(k) for k, *_ in revealed) == [0, 1, 2, 3, 4]
    # each step said in words (table.replay.Replay.label), e.g. "P1 passes priority; then ..."
    assert "step 0 of " in text and re.search(r"step \d+ of \d+, turn \d+: P\d (\(you\): )?[a-z]+ ", text)
    assert not re.search(r"step \d+ of \d+, turn \d+: P\d acted", text)
