"""The notebooks of issue #6, executed top to bottom (notebooks/*.ipynb).

Each notebook runs with nbclient in a fresh kernel of *this* interpreter (a
kernelspec written to a temporary folder, so a user-level ``python3`` spec
cannot redirect it), with ``notebooks/`` as working directory and the
parameters as committed.  Notebook 04 plays unattended through
``TREACHERY_NOTEBOOK_AUTOPLAY=1``.  The committed files must stay clean (no
outputs); the executed copies are never written back.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient


NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
EXPECTED = ["01_quickstart.ipynb", "02_bots_and_evaluation.ipynb", "03_training.ipynb",
            "04_play_against_bots.ipynb", "05_benchmarking.ipynb"]
CELL_TIMEOUT = 300      # seconds per cell (each notebook takes well under a minute)


@pytest.fixture(scope="module")
def kernel_specs(tmp_path_factory):
    """A kernelspec ``python3`` that launches ipykernel with sys.executable."""
    d = tmp_path_factory.mktemp("kernels") / "python3"
    d.mkdir()
    (d / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (test)", "language": "python"}))
    return KernelSpecManager(kernel_dirs=[str(d.parent)], ensure_native_kernel=False)


def execute(name: str, kernel_specs, monkeypatch, tmp_path: Path) -> nbformat.NotebookNode:
    """Run notebook ``name`` in a fresh kernel; what it writes with ``tempfile`` goes under ``tmp_path``
    (pytest's, kept for the last few runs only), not into the machine's /tmp."""
    monkeypatch.setenv("TREACHERY_NOTEBOOK_AUTOPLAY", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    km = KernelManager(kernel_name="python3", kernel_spec_manager=kernel_specs)
    client = NotebookClient(nb, km=km, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    return nb


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


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_runs(name, kernel_specs, monkeypatch, tmp_path):
    nb = execute(name, kernel_specs, monkeypatch, tmp_path)
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
        assert images >= 2
    elif name.startswith("02"):
        assert "flagship" in text and "games (" in text
        assert images >= 4       # win rates, cross-play, ratings, deduction
    elif name.startswith("03"):
        assert "learner steps in" in text and "tensorboard --logdir" in text
        assert "format: treachery-policy/1" in text
        assert images >= 1
    elif name.startswith("04"):
        check_play_transcript(text)
    elif name.startswith("05"):
        assert "AggroBot(seed=0)" in text and "'results.md'" in text
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
