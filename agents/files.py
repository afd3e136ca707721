"""Atomic file writes, shared by checkpoints (:mod:`agents.policy`) and results
(:mod:`training.evaluate`, :mod:`training.model_card`)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "check_folder"]


def check_folder(path: str | os.PathLike, what: str) -> None:
    """Refuse an output folder that is, or lies under, an existing file, before any work is done.

    Args:
        path: the folder to be written (it may not exist yet).
        what: how the error names it, e.g. ``"--out"`` or ``"run directory"``.

    Raises:
        ValueError: one line naming ``what``, ``path`` and the file in the way.
    """
    for q in (Path(path), *Path(path).parents):
        if q.exists():
            if not q.is_dir():
                raise ValueError(f"{what} {str(path)!r} is not a folder: {str(q)!r} is a file")
            return


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same
    directory (mode 0666 less the umask, like ``open``), flushed and fsynced,
    then ``os.replace``.  Folders are created.

    Raises:
        OSError: if writing fails; the temporary file is then removed and
            ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.chmod(tmp, 0o666 & ~_umask())
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
