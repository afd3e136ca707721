"""Which toolkit produced a result: its version and, from a git checkout, its commit.

A benchmark is reported with "the toolkit version" (notebook 05's checklist);
:func:`toolkit` is what ``treachery evaluate`` records in ``results.json``'s
``meta["toolkit"]`` and :func:`toolkit_text` what ``results.md`` shows.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import treachery_env

#: the folder holding the ``treachery_env`` package: a git checkout's root when run from one
_ROOT = Path(treachery_env.__file__).resolve().parent.parent


def _git(*args: str) -> str | None:
    """``git -C _ROOT ARGS``'s output, stripped; None when git is absent, fails or hangs."""
    try:
        done = subprocess.run(["git", "-C", str(_ROOT), *args], capture_output=True, text=True, timeout=10,
                              check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


def toolkit() -> dict:
    """The toolkit that is running: ``{"version": treachery --version's, "commit": hex,
    "dirty": bool}``; ``commit`` and ``dirty`` (whether tracked files differ from the
    commit; untracked files do not count) only when the package runs from a git checkout
    (its folder's parent holds ``.git``) and git answers."""
    out: dict = {"version": treachery_env.__version__}
    if not (_ROOT / ".git").exists():       # an installed copy: no commit (not that of a repository around it)
        return out
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no") if commit else None
    if commit and status is not None:
        out.update(commit=commit, dirty=bool(status))
    return out


def toolkit_text(meta: dict) -> str:
    """A result's toolkit in words (``meta["toolkit"]``; "" for a result written before it was recorded),
    e.g. ``treachery 0.1.0, commit 59bdbb8dd4b6 (tracked files modified)``."""
    t = meta.get("toolkit")
    if not isinstance(t, dict):
        return ""
    text = f"treachery {t.get('version', '?')}"
    if t.get("commit"):
        text += f", commit {t['commit'][:12]}" + (" (tracked files modified)" if t.get("dirty") else "")
    return text
