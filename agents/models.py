"""Named models: the shipped checkpoints by name (RLCard's pretrained models, for Treachery).

Each folder ``checkpoints/NAME/`` holding a ``policy.pt``
and its ``MODEL_CARD.md`` (written by ``treachery export``) is the model
``NAME``: ``agents.make("flagship")`` is the greedy policy of
``checkpoints/flagship/policy.pt`` (its most likely legal action, as every
figure of its card was measured), and ``treachery models`` lists them.  They
are package data (the package ``treachery_checkpoints``, setup.py), so an
install from a wheel has them too.  The
card records the policy file's SHA-256 (the line :data:`CHECKSUM_LINE`); a
model is loaded by name only when the file's bytes have it, so a truncated or
swapped file is refused in one line instead of playing as something else.  A
model whose name is a built-in bot's (``heuristic``, ...) is not registered
under it (``policy:PATH`` still loads it).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CHECKPOINTS", "CHECKSUM_LINE", "Model", "models", "sha256_of", "checked_policy", "shown_path"]


def _installed_checkpoints() -> Path:
    """The folder of the package ``treachery_checkpoints`` (installed from ``checkpoints/``, setup.py),
    or, where the package is not installed (the source tree on ``sys.path``), ``checkpoints/`` beside
    this package."""
    try:
        import treachery_checkpoints
    except ImportError:
        return Path(__file__).resolve().parent.parent / "checkpoints"
    return Path(treachery_checkpoints.__file__).resolve().parent


CHECKPOINTS = _installed_checkpoints()
"""Where the shipped models lie: ``checkpoints/`` of the source checkout in an editable install,
the installed package ``treachery_checkpoints`` from a wheel."""

CHECKSUM_LINE = "* policy file SHA-256: `{}` (checked when the model is loaded by name)"
_CHECKSUM = re.compile(r"^\* policy file SHA-256: `([0-9a-f]{64})`", re.MULTILINE)


@dataclass(frozen=True)
class Model:
    """A shipped checkpoint.

    Attributes:
        name: its folder's name, the agent spec that loads it.
        policy: the ``policy.pt`` path.
        card: the ``MODEL_CARD.md`` path.
        sha256: the checksum its card records (None: a card without one).
    """

    name: str
    policy: Path
    card: Path
    sha256: str | None

    def verdict(self) -> str:
        """The card's verdict: the bold phrase, else the first sentence, after ``**Verdict.**``
        ("" when it has none)."""
        text = self.card.read_text(encoding="utf-8")
        m = re.search(r"\*\*Verdict\.\*\* (?:\*\*(.+?)\*\*|(.+?\.)(?: |$))", text, re.MULTILINE)
        return (m.group(1) or m.group(2)) if m else ""


def shown_path(path: Path) -> str:
    """``path`` relative to the current folder where it lies under it: the one form in which a
    model's files are named to a person (``treachery models``, a refusal and its way out)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def sha256_of(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def models(root: str | Path | None = None) -> dict[str, Model]:
    """The named models under ``root`` (default :data:`CHECKPOINTS`), by name, sorted;
    folders without both a ``policy.pt`` and a ``MODEL_CARD.md`` are not models.
    Nothing is loaded (no torch)."""
    base = Path(root) if root is not None else CHECKPOINTS
    out = {}
    for folder in sorted(base.glob("*/")) if base.is_dir() else []:
        policy, card = folder / "policy.pt", folder / "MODEL_CARD.md"
        if policy.is_file() and card.is_file():
            m = _CHECKSUM.search(card.read_text(encoding="utf-8"))
            out[folder.name] = Model(folder.name, policy, card, m.group(1) if m else None)
    return out


def checked_policy(model: Model) -> Path:
    """``model``'s policy file once its bytes are the ones its card records.

    Raises:
        ValueError: (one line) for a card recording no checksum, or a file whose
            bytes differ from it (truncated, replaced or edited).
    """
    if model.sha256 is None:
        raise ValueError(f"model {model.name!r}: its card {shown_path(model.card)!r} records no policy checksum; "
                         f"export it again (treachery export) or load it as policy:{shown_path(model.policy)}")
    got = sha256_of(model.policy)
    if got != model.sha256:
        raise ValueError(f"model {model.name!r}: {shown_path(model.policy)!r} is not the file its card describes "
                         f"(SHA-256 {got[:12]}..., the card says {model.sha256[:12]}...); {_restore(model.policy)} "
                         f"or load it as policy:{shown_path(model.policy)}")
    return model.policy


def _restore(path: Path) -> str:
    """How to get a model's file back, for the case at hand: git's command where a git checkout
    tracks it, a reinstall where it is the installed package's (:data:`CHECKPOINTS`, from a wheel),
    else the file its card was written with (a folder of one's own)."""
    try:
        top = subprocess.run(["git", "-C", str(path.parent), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, timeout=10, check=True).stdout.strip()
        subprocess.run(["git", "-C", str(path.parent), "ls-files", "--error-unmatch", "--", path.name],
                       capture_output=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        top = None
    if top:
        root = Path(top).resolve()
        if Path.cwd().resolve().is_relative_to(root):
            return f"restore it (git checkout -- {shown_path(path)})"
        return f"restore it (git -C {root} checkout -- {path.resolve().relative_to(root)})"
    if path.resolve().is_relative_to(CHECKPOINTS.resolve()):
        return "reinstall treachery-toolkit from the wheel it came with (pip install --force-reinstall WHEEL)"
    return "put back the file its card was written with"
