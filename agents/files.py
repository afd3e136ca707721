"""Atomic file writes, shared by checkpoints (:mod:`agents.policy`) and results
(:mod:`training.evaluate`, :mod:`training.model_card`), exclusive ones that never replace a file
(:func:`write_new_file`, :func:`move_to_new_name`), and the checks of the files and folders they
read and write."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_files", "write_new_file", "move_to_new_name", "check_folder",
           "check_writable_file", "check_input_file", "check_input_folder", "naming_the_file", "file_error_text",
           "os_reason"]


@contextlib.contextmanager
def naming_the_file(path: str | os.PathLike):
    """Within this, an :class:`OSError` that names no file (a write or flush on an open file that
    failed, say for want of space) is given ``path`` as its ``filename``, so that whoever
    reports it can say which file (:func:`file_error_text`)."""
    try:
        yield
    except OSError as err:
        if err.filename is None:
            err.filename = str(path)
        raise


def file_error_text(err: OSError) -> str:
    """One line for an :class:`OSError` about a file: the path (and the second one, of a rename)
    and the system's words, ``'runs/x/train.lock': Read-only file system``."""
    where = repr(str(err.filename)) + (f" (to {str(err.filename2)!r})" if err.filename2 is not None else "")
    return f"{where}: {os_reason(err)}"


def check_input_file(path: str | os.PathLike, what: str) -> Path:
    """Refuse an input file that is not there, saying where a relative path was looked for, a
    folder given for it, naming the ``policy.pt`` in it if it holds one (a model's folder), or
    another thing that is no regular file (a device, a pipe).

    Args:
        path: the file to be read.
        what: how the error names it, e.g. ``"checkpoint"`` or ``"init: checkpoint"``.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ValueError: one line naming ``what`` and ``path``, and that it is a folder (with the
            ``policy.pt`` in it), no regular file, or that it does not exist (for a relative path,
            with the current folder it was read from: a ``--set`` path is read from there; a config
            file's are made absolute from the file's folder, :func:`training.config.load_config`).
    """
    p = Path(path)
    if p.is_dir():
        inside = p / "policy.pt"
        raise ValueError(f"{what} {str(p)!r} is a folder, not a file"
                         + (f"; the policy in it is {str(inside)!r}" if inside.is_file() else ""))
    if not p.exists():
        raise ValueError(f"{what} {str(p)!r} does not exist{_read_from(p)}")
    if not p.is_file():
        raise ValueError(f"{what} {str(p)!r} is not a regular file (a device, a pipe or a socket)")
    return p


def check_input_folder(path: str | os.PathLike, what: str) -> Path:
    """Refuse an input folder (a run's, to resume or export) that is not there, or a file given
    for it, in the words of :func:`check_input_file`.

    Args:
        path: the folder to be read.
        what: how the error names it, e.g. ``"run folder"``.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ValueError: one line naming ``what`` and ``path``: that it does not exist (for a
            relative path, from which current folder it was read), or that it is a file.
    """
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{what} {str(p)!r} does not exist{_read_from(p)}")
    if not p.is_dir():
        raise ValueError(f"{what} {str(p)!r} is a file, not a folder")
    return p


def _read_from(p: Path) -> str:
    """Where a relative path that is not there was looked for ("" for an absolute one)."""
    return "" if p.is_absolute() else f" (a relative path, read from the current folder {os.getcwd()})"


def check_folder(path: str | os.PathLike, what: str) -> None:
    """Refuse, before any work is done, an output folder that could not be written at the
    end: one that is, or lies under, a file, or one that cannot be made or written (a
    read-only file system, no permission, a name too long, a place such as ``/proc``).  The
    folder's missing parts are made and a temporary file is made and removed in it, then the
    folders made are removed again: a command refused later leaves nothing behind.

    Args:
        path: the folder to be written (it may not exist yet).
        what: how the error names it, e.g. ``"--out"`` or ``"run directory"``.

    Raises:
        ValueError: one line naming ``what``, ``path`` and why (the file in the way, or the
            system's reason), or saying ``path`` is empty (blank text, which would mean the
            current folder).
    """
    if not str(path).strip():
        raise ValueError(f"{what} is empty; give a folder")
    try:
        q = _file_in_the_way(Path(path))
    except OSError as err:
        raise ValueError(f"{what} {str(path)!r} cannot be made: {os_reason(err)}") from None
    if q is not None:
        raise ValueError(f"{what} {str(path)!r} is not a folder: {str(q)!r} is a file")
    _probe(Path(path), f"{what} {str(path)!r}", ".write-probe.")


def _file_in_the_way(folder: Path) -> Path | None:
    """The nearest existing path at or above ``folder`` when it is a file (no folder can be
    made there), else None.

    Raises:
        OSError: where the system cannot even look (a name too long, no permission).
    """
    for q in (folder, *folder.parents):
        if q.exists():
            return None if q.is_dir() else q
    return None


def _probe(folder: Path, named: str, prefix: str, unmade: str = "cannot be made") -> None:
    """Make ``folder``'s missing parts, make and remove a temporary file named ``prefix``...
    in it, then remove the folders made (deepest first).

    Raises:
        ValueError: ``named``, then ``unmade`` where a folder cannot be made or ``cannot be
            written`` where the file cannot, and the system's reason.
    """
    made: list[Path] = []
    try:
        missing = []
        for q in (folder, *folder.parents):
            if q.is_dir():
                break
            missing.append(q)
        for q in reversed(missing):
            try:
                q.mkdir()
            except FileExistsError:         # made meanwhile by another process
                continue
            made.append(q)
    except OSError as err:
        _remove(made)
        raise ValueError(f"{named} {unmade}: {os_reason(err)}") from None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".tmp")
        os.close(fd)
        os.unlink(tmp)
    except OSError as err:
        raise ValueError(f"{named} cannot be written: {os_reason(err)}") from None
    finally:
        _remove(made)


def _remove(folders: list[Path]) -> None:
    """Remove the (empty) ``folders`` a probe made, deepest first."""
    for q in reversed(folders):
        with contextlib.suppress(OSError):
            q.rmdir()


def os_reason(err: OSError) -> str:
    """The system's reason for ``err`` in words (``Read-only file system``), without its paths:
    for a one-line refusal that names the file itself."""
    return err.strerror or str(err)


def check_writable_file(path: str | os.PathLike, what: str) -> None:
    """Refuse, before any work is done, an output file that could not be written
    at the end: a folder, a path under a file, a name too long, or a folder that
    cannot be made or where no file can be made (tried with a temporary file of
    the file's name, removed at once, as are the folders the try made).

    Args:
        path: the file to be written later (it may exist: it will be replaced).
        what: how the error names it, e.g. ``"--replay"``.

    Raises:
        ValueError: one line naming ``what``, ``path`` and why (an empty ``path`` too).
    """
    if not str(path).strip():
        raise ValueError(f"{what} is empty; give a file")
    path = Path(path)
    named = f"{what} {str(path)!r}"
    try:
        if path.is_dir():
            raise ValueError(f"{named} is a folder, not a file")
        q = _file_in_the_way(path.parent)
    except OSError as err:
        raise ValueError(f"{named} cannot be written: {os_reason(err)}") from None
    if q is not None:
        raise ValueError(f"{named} cannot be written: {str(q)!r} is a file, not a folder")
    _probe(path.parent, named, f".{path.name}.", "cannot be written")


def _staged(path: Path, data: bytes) -> str:
    """``data`` in a new temporary file beside ``path`` (mode 0666 less the umask, like ``open``),
    flushed and fsynced: its name.  Folders are created; on failure the temporary file is removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.chmod(tmp, 0o666 & ~_umask())
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return tmp


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same
    directory (mode 0666 less the umask, like ``open``), flushed and fsynced,
    then ``os.replace``.  Folders are created.

    Raises:
        OSError: if writing fails, naming the file (``path`` where the system names none,
            :func:`naming_the_file`); the temporary file is then removed and ``path`` is
            left as it was.
    """
    path = Path(path)
    with naming_the_file(path):
        tmp = _staged(path, data)
        try:
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise


def _next_names(path: Path):
    """``path``, then ``name-2.json``, ``name-3.json``, ...: the names a new file may take."""
    yield path
    k = 2
    while True:
        yield path.with_name(f"{path.stem}-{k}{path.suffix}")
        k += 1


def _give_name(src: str | os.PathLike, name: Path) -> bool:
    """Move the file ``src`` to ``name`` unless that name is taken, even by a file another process
    makes meanwhile: ``os.link`` (which fails where the name exists; the file appears whole under
    it), then ``src`` unlinked.  On a file system without hard links the name is taken with an
    exclusive create (``O_EXCL``) and ``src`` renamed over that empty file.

    Returns:
        True where ``src`` now is ``name``; False where the name was taken (``src`` untouched).

    Raises:
        OSError: if the link, create or rename fails otherwise.
    """
    try:
        os.link(src, name)
    except FileExistsError:
        return False
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP):
            raise
        try:                    # no hard links here (FAT, some network file systems)
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            return False
        try:
            os.replace(src, name)
        except BaseException:
            name.unlink(missing_ok=True)
            raise
        return True
    os.unlink(src)
    return True


def write_new_file(path: str | os.PathLike, data: bytes, next_free: bool = True) -> Path:
    """Write ``data`` to ``path`` or, if that name is taken, the next free one (``name-2.json``,
    ``name-3.json``, ...), never over a file, even one another process made after a check for it:
    the data is staged beside it in a temporary file, flushed and fsynced (as
    :func:`atomic_write_bytes` does), which then takes the first free name exclusively (of two
    writers of one name, one only gets it, and no reader sees it partial: :func:`_give_name`).
    Folders are created.

    Args:
        path: the file to write.
        next_free: False writes ``path`` or nothing (a file that must be the one of its name).

    Returns:
        the path written.

    Raises:
        FileExistsError: with ``next_free=False``, where ``path`` is taken (nothing is written).
        OSError: if writing fails, naming the file (:func:`naming_the_file`); the temporary file
            is then removed and no name is taken.
    """
    path = Path(path)
    with naming_the_file(path):
        tmp = _staged(path, data)
        try:
            for name in _next_names(path) if next_free else (path,):
                with naming_the_file(name):
                    if _give_name(tmp, name):
                        return name
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def move_to_new_name(path: str | os.PathLike, target: str | os.PathLike) -> Path:
    """Move the file ``path`` to ``target`` or, if that name is taken, the next free one
    (``name-2.json``, ...), never over a file, even one another process made after a check for it
    (each name taken exclusively: :func:`_give_name`).

    Returns:
        the name it now has.

    Raises:
        OSError: if the move fails (``path`` missing, say), naming the files.
    """
    return next(name for name in _next_names(Path(target)) if _give_name(path, name))


def atomic_write_files(files: Mapping[str | os.PathLike, bytes], new: Collection[str | os.PathLike] = ()) -> None:
    """Write several files as one set (a results file and the report rendered from it): after
    a failure each is as it was, so the folder never holds new files beside old ones.

    First every file's new bytes, and a copy of each existing file's present bytes, are written
    to temporary files beside it (flushed and fsynced, as :func:`atomic_write_bytes` does), so a
    failure to write (no space, no permission) comes before any file is touched; then each is
    renamed over its file (``os.replace``, in ``files``' order), or, for a file of ``new``, given
    its name only where none is (:func:`_give_name`: never over a file, even one another process
    made after a check for it), and if a rename fails or a name of ``new`` is taken, the files
    already written are put back as they were (renamed back from their copies; one that did not
    exist is removed).  After the writes only renames within the folder remain, and no file is
    ever partial.

    Args:
        files: ``{path: bytes}``, written in this order.
        new: those of ``files`` that must not replace a file (results that a command was told
            not to replace); the others replace theirs.

    Raises:
        FileExistsError: where a file of ``new`` is taken, naming it; nothing is then written.
        OSError: if writing or a rename fails, naming the file (:func:`naming_the_file`); every
            file is then left as it was and the temporary files are removed.
    """
    payloads = {Path(p): data for p, data in files.items()}
    new = {Path(p) for p in new}
    staged: dict[Path, str] = {}
    saved: dict[Path, str] = {}
    done: list[Path] = []
    try:
        for path, data in payloads.items():
            with naming_the_file(path):
                staged[path] = _staged(path, data)
                if path.exists() and path not in new:
                    saved[path] = _staged(path, path.read_bytes())
        for path in payloads:
            with naming_the_file(path):
                if path not in new:
                    os.replace(staged[path], path)
                elif not _give_name(staged[path], path):
                    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))
            del staged[path]
            done.append(path)
    except BaseException:
        for path in reversed(done):         # back as it was
            if path in saved:
                os.replace(saved.pop(path), path)
            else:
                path.unlink(missing_ok=True)
        raise
    finally:
        for tmp in [*staged.values(), *saved.values()]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
