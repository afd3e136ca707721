"""The learner's weights handed to rollout worker processes through shared memory.

Each iteration the learner sends its weights (~10 MB for the default flat network)
to every worker.  Through a pipe that is a pickle per worker, the bytes written
into the pipe and read out of it again, one worker after the other: measured on
the project's 2-core VM, 7-14 ms to pickle and 5-23 ms to send for each worker,
so the second worker began its rollouts ~40 ms after the first (~4% of an
iteration of the default ``treachery train``).  Here the learner copies the
weights once into one block of shared memory (:class:`SharedWeights`) and sends
each worker only a small :class:`WeightsHandle`; each worker copies the arrays
out of the block into its own network (:class:`WeightsReader`), all workers at
once.

The block is written only by :meth:`training.rollout.WorkerPool.start`, which
refuses to start while a collection is under way, and a worker reads it at the
start of the collection it was sent, before it replies: so the block never
changes while a worker reads it, without a lock.  Pool changes (a new frozen
policy every ``snapshot_every`` iterations) still go through the pipe.

Where shared memory is short (a container's small ``/dev/shm``: a write past its
end would kill the process with SIGBUS, not raise), :meth:`SharedWeights.write`
returns None and the weights go through the pipe as before.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from multiprocessing import shared_memory

import numpy as np

__all__ = ["SharedWeights", "WeightsHandle", "WeightsReader", "SHM_DIR"]

#: Where POSIX shared memory lives on Linux (its free space is checked before a block is made).
SHM_DIR = "/dev/shm"

_ALIGN = 64     # each array starts on a cache line


@dataclass(frozen=True)
class WeightsHandle:
    """What a worker is sent instead of the weights: the shared block's ``name`` and
    ``layout``, one ``(key, dtype string, shape, byte offset)`` per array of the state dict."""

    name: str
    layout: tuple


class SharedWeights:
    """The learner's side: one shared-memory block holding the latest weights.

    The block is made at the first :meth:`write` (sized for the state dict given) and
    made again, the old one removed, when a state dict of another layout comes.
    :meth:`close` removes it; a process killed before that leaves it to its workers, which
    remove it as they end (:meth:`WeightsReader.remove`), else to the ``multiprocessing``
    resource tracker, which removes it, with a warning, when the process tree ends.
    """

    def __init__(self) -> None:
        self._shm: shared_memory.SharedMemory | None = None
        self._handle: WeightsHandle | None = None

    def write(self, arrays: dict) -> WeightsHandle | None:
        """Copy ``arrays`` (a state dict as numpy arrays, any dtypes and shapes) into the block.

        Returns:
            the :class:`WeightsHandle` to send to the workers, or None when shared
            memory cannot hold them (less than twice their size free in :data:`SHM_DIR`,
            or none there): send the arrays themselves then.
        """
        layout, offset = [], 0
        for key, a in arrays.items():
            layout.append((key, a.dtype.str, tuple(a.shape), offset))
            offset += -(-a.nbytes // _ALIGN) * _ALIGN
        layout = tuple(layout)
        if self._handle is None or self._handle.layout != layout:
            self.close()
            if not _room_for(offset):
                return None
            self._shm = shared_memory.SharedMemory(create=True, size=max(offset, 1))
            self._handle = WeightsHandle(self._shm.name, layout)
        buf = self._shm.buf
        for (key, dtype, shape, off), a in zip(layout, arrays.values()):
            np.ndarray(shape, dtype, buffer=buf, offset=off)[...] = a
        return self._handle

    def close(self) -> None:
        """Remove the block (workers that still have it open keep their mapping until they close it)."""
        if self._shm is not None:
            self._shm.close()
            try:
                self._shm.unlink()
            except FileNotFoundError:       # already removed (by whoever cleans /dev/shm): nothing left to do
                pass
        self._shm, self._handle = None, None


class WeightsReader:
    """A worker's side: the block of the latest :class:`WeightsHandle`, kept open between reads."""

    def __init__(self) -> None:
        self._shm: shared_memory.SharedMemory | None = None

    def read(self, handle: WeightsHandle) -> dict:
        """The weights ``handle`` describes, as numpy arrays *viewing* the shared block: copy them
        (``load_state_dict`` does) before replying to the learner, which may write the block
        again once the collection is finished.

        Raises:
            FileNotFoundError: when the block is gone (the learner closed it).
        """
        if self._shm is None or self._shm.name != handle.name:
            self.close()
            self._shm = shared_memory.SharedMemory(name=handle.name)
        buf = self._shm.buf
        return {key: np.ndarray(shape, dtype, buffer=buf, offset=off) for key, dtype, shape, off in handle.layout}

    def close(self) -> None:
        """Close this process's mapping of the block (the learner removes it)."""
        if self._shm is not None:
            self._shm.close()
            self._shm = None

    def remove(self) -> None:
        """Remove the block this process read last, for a learner that is gone (killed) and cannot:
        its name is freed and the resource tracker, told so, has no block left to warn of ("leaked
        shared_memory objects") and remove.  This process's mapping stays until :meth:`close`, so a
        read under way is not cut (safe from another thread).  A block already removed (by another
        worker) is left as it is."""
        shm = self._shm
        if shm is not None:
            with contextlib.suppress(FileNotFoundError):      # another worker removed it first
                shm.unlink()


def _room_for(nbytes: int) -> bool:
    """Whether :data:`SHM_DIR` has at least twice ``nbytes`` free (False where it cannot be told:
    no such folder, or no ``os.statvfs``, as on Windows)."""
    try:
        st = os.statvfs(SHM_DIR)
    except (OSError, AttributeError):
        return False
    return st.f_bavail * st.f_frsize >= 2 * nbytes
