"""One training at a time in a run folder: an OS advisory lock on ``RUN_DIR/train.lock``.

:func:`training.ppo.train` holds an exclusive ``fcntl.flock`` on that file from the
moment it makes (or opens) the run folder until it returns; a second training in the
same folder, new or resumed, is refused in one line naming the folder and the pid of
the process holding it (written into the file).  The lock lives in the kernel, not in
the file: the OS releases it when its process ends, however it ends (a crash,
``kill -9``), so a lock is never stale and there is nothing to clear by hand; the
file stays in the folder and means nothing while no process holds it.  On Linux,
``flock`` on an NFS mount is carried out as a POSIX byte-range lock, so machines
sharing the folder exclude each other too (``man 2 flock``).

Where Python has no ``fcntl`` (Windows), or the filesystem refuses locks, no lock is
taken: a warning says so, and two trainings in one folder are not prevented there.

Commands that write into a folder a training may hold (``treachery export --out``,
``treachery graft --out``) ask :func:`check_not_in_use` first, and are refused when
what they write is a file the training writes; ``treachery export`` or ``graft`` of a run's
policy while its training runs warns that it read the policy saved last (:func:`saved_by_a_training`).
"""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path

from agents.files import naming_the_file, os_reason

try:
    import fcntl
except ImportError:                     # Windows
    fcntl = None

__all__ = ["LOCK_NAME", "RunLock", "check_not_in_use", "training_in", "saved_by_a_training"]

#: The lock file in a run folder.
LOCK_NAME = "train.lock"


def _holder(fd: int) -> str:
    """`` (pid N)`` for the pid a lock file holds, or "" when it holds none (written
    only once its holder has the lock)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""


def _held_by_other(path: Path) -> str | None:
    """None when no process holds the lock file ``path`` (or there is none, or no lock can be
    asked for), else :func:`_holder`'s words for the one that does.  Reads the file only: a
    shared lock asked for and given back at once, which an exclusive one excludes."""
    if fcntl is None:
        return None
    try:
        if not path.is_file():
            return None
        fd = os.open(path, os.O_RDONLY)
    except OSError:             # a name the system refuses (too long): no training can hold it
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return None
    except BlockingIOError:
        return _holder(fd)
    except OSError:
        return None             # a filesystem without locks: no training could hold it either
    finally:
        os.close(fd)


class RunLock:
    """The lock of one run folder, held by :func:`training.ppo.train` for the run's life.

    ``check`` refuses a folder another process holds, ``acquire`` takes the lock (a
    second call does nothing), ``release`` gives it back (also when it was never
    taken, as where no lock can be taken, see the module docstring); ``path`` is the
    lock file."""

    def __init__(self, run_dir: str | os.PathLike):
        self.path = Path(run_dir) / LOCK_NAME
        self._fd: int | None = None

    def check(self) -> None:
        """Refuse a folder another process holds, before any work (writes nothing; :meth:`acquire`
        is what excludes the others).

        Raises:
            ValueError: as :meth:`acquire`.
            OSError: naming the lock file, when its path cannot be looked at (a name too long).
        """
        who = _held_by_other(self.path)
        if who is not None:
            raise self._in_use(who)

    def _in_use(self, who: str) -> ValueError:
        return ValueError(f"run folder {str(self.path.parent)!r} is in use by another training{who}; wait for it "
                          f"to end, or choose another --run-dir")

    def acquire(self) -> None:
        """Take the folder's lock (the folder must exist) and write this process's pid into it.

        Raises:
            ValueError: one line naming the folder (and the holder's pid), when another
                process holds it.
            OSError: naming the lock file, when it cannot be made or written (a read-only
                folder, a name too long; :func:`agents.files.file_error_text` says it in one line).

        Warns:
            UserWarning: where no lock can be taken (no ``fcntl``, or a filesystem without
                locks): the run goes on unlocked.
        """
        if self._fd is not None:
            return
        if fcntl is None:
            warnings.warn(f"this platform has no fcntl: the run folder {str(self.path.parent)!r} is not locked, "
                          f"so a second training in it is not refused", stacklevel=2)
            return
        tries = 0
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                who = _holder(fd)
                os.close(fd)
                tries += 1
                if tries < 10:          # maybe a check's shared lock, held for microseconds (_held_by_other)
                    time.sleep(0.02)
                    continue
                raise self._in_use(who) from None
            except OSError as err:
                os.close(fd)
                warnings.warn(f"the run folder {str(self.path.parent)!r} cannot be locked ({os_reason(err)}), "
                              f"so a second training in it is not refused", stacklevel=2)
                return
            try:          # the file locked is still the folder's (a run that made the folder may have removed it)
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self._fd = fd           # held: released by release(), also when writing the pid fails
        with naming_the_file(self.path):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)

    def release(self, remove: bool = False) -> None:
        """Give the lock back (the OS would at the process's end anyway).

        Args:
            remove: delete the lock file first (a run that made it and leaves nothing
                behind), while the lock is still held, so no other process holds that file
                then; also where no lock could be taken (see the module docstring).
        """
        if remove:
            self.path.unlink(missing_ok=True)
        if self._fd is not None:
            os.close(self._fd)          # closing the only descriptor of the file releases the flock
            self._fd = None


def training_in(folder: str | os.PathLike) -> str | None:
    """None when no training holds the run folder ``folder`` (:class:`RunLock`), else the words
    for the one that does: `` (pid N)``, or "" before it has written its pid.  Writes nothing."""
    return _held_by_other(Path(folder) / LOCK_NAME)


def saved_by_a_training(policy: str | os.PathLike) -> str | None:
    """For a run's ``policy.pt`` whose training still runs (:func:`training_in` its folder), the
    words that say so, for a command that reads it (``treachery export``, ``graft``): ``"'runs/x'
    is the folder of a training in progress (pid N), which saves its policy.pt as it goes"``;
    None for any other file."""
    p = Path(policy)
    who = training_in(p.parent) if p.name == "policy.pt" else None
    return None if who is None else (f"{str(p.parent)!r} is the folder of a training in progress{who}, which saves "
                                     f"its policy.pt as it goes")


def check_not_in_use(folder: str | os.PathLike, what: str, names: tuple[str, ...]) -> None:
    """Refuse to write ``names`` into ``folder`` while a training holds it and writes them.

    Args:
        folder: where a command is about to write.
        what: the option that named it, e.g. ``"--out"``.
        names: the files the command writes there; only those a training writes too
            (``policy.pt``, ``ckpt_*.pt``, ``metrics.jsonl``, ``config.json``) are refused.

    Raises:
        ValueError: one line naming the folder and the training's pid.
    """
    mine = [n for n in names if n in ("policy.pt", "metrics.jsonl", "config.json")
            or (n.startswith("ckpt_") and n.endswith(".pt"))]
    who = training_in(folder) if mine else None
    if who is not None:
        raise ValueError(f"{what}: {str(folder)!r} is the folder of a training in progress{who}, which "
                         f"writes its {' and '.join(mine)}; wait for it to end, or choose another folder")
