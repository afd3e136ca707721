"""The checkout a newcomer works in (issue #14's newcomer faults): what the commands write is
ignored by git, and ``make peers`` without the team's ``../shared`` says so before installing anything."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None, reason="not a git checkout")
def test_what_the_commands_write_is_ignored_by_git():
    # treachery evaluate's default --out, treachery train's runs, the venv and Cython's output
    paths = ["results/results.json", "runs/train-1/metrics.jsonl", ".venv/bin/python", "treachery_env/_view.c"]
    done = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.split() == paths


def test_the_tests_make_their_folders_where_pytest_removes_them():
    """A test's folder is pytest's ``tmp_path`` (pytest keeps the last three runs' and removes the
    older), or a ``TemporaryDirectory`` that removes itself: test_ray.py's ``--out`` folder, made with
    tempfile's mkdtemp, stayed in /tmp after every run of the suite."""
    call = "mkdtemp" + "("         # not this file's own words
    leaving = [f"{p.name}:{i}" for p in sorted((ROOT / "tests").glob("*.py"))
               for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if call in line]
    assert leaving == []


def test_the_docs_cite_source_files_by_name_not_by_line():
    """The README and docs/*.md cite a source file's place by a name in it (function, class,
    method, constant), never by line number (``game.py:152``, ``outcome.py line 86``): lines move
    as the file changes, and docs/throne_magic_seam.md's had all moved."""
    cite = re.compile(r"[\w/]+\.(?:py|pyx|pxd)(?::|#L| lines? )\d+")
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = [f"{p.name}: {m.group()}" for p in pages for m in cite.finditer(p.read_text(encoding="utf-8"))]
    assert found == []


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_peers_without_the_shared_checkout_fails_first_in_one_line(tmp_path):
    work = tmp_path / "clone"         # no ../shared beside it
    work.mkdir()
    shutil.copy(ROOT / "Makefile", work / "Makefile")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}  # not a sub-make
    done = subprocess.run(["make", "--no-print-directory", "peers"], cwd=work, capture_output=True, text=True,
                          env=env)
    assert done.returncode != 0
    assert done.stdout.strip() == ("make peers needs ../shared/bench/peers.py "
                                   "(the team's shared checkout beside this one)")
    assert not (work / ".venv").exists()      # nothing was installed first
