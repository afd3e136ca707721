"""Stopping a long command cleanly: SIGTERM (``kill``, a job scheduler's time limit) raised as an
interrupt like Ctrl-C, and blocks that an interrupt does not cut (:mod:`training.ppo` finishes an
update already begun; ``treachery evaluate`` drops its games and writes nothing)."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator

__all__ = ["Terminated", "DeferInterrupt", "catch_sigterm", "restore_sigterm", "children_ignore_sigint"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as an interrupt so that a command a job scheduler or ``kill`` ends stops
    as one Ctrl-C stops it (:class:`training.ppo.TrainingInterrupted` says which it was)."""


def _interrupt_of(signum: int) -> KeyboardInterrupt:
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _raise_interrupt(signum, frame) -> None:
    raise _interrupt_of(signum)


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class DeferInterrupt:
    """A block that Ctrl-C or SIGTERM does not cut: the signal is held and raised as
    ``KeyboardInterrupt`` (:class:`Terminated` for SIGTERM) when the block ends (in the main
    thread only: elsewhere Python delivers no signals, and the block is a plain one)."""

    def __enter__(self) -> "DeferInterrupt":
        self.pending: int | None = None
        self.old: dict = {}
        if threading.current_thread() is threading.main_thread():
            # a signal the process ignores (started with SIGINT ignored, as `cmd &` in a script
            # does) stays ignored: the block must not make it count only while it runs
            self.old = {s: signal.signal(s, self._hold) for s in _STOP_SIGNALS
                        if signal.getsignal(s) is not signal.SIG_IGN}
        return self

    def _hold(self, signum, frame) -> None:
        self.pending = signum

    def __exit__(self, *exc) -> None:
        for s, old in self.old.items():
            signal.signal(s, old)
        if self.pending is not None and exc[0] is None:
            raise _interrupt_of(self.pending)


def catch_sigterm() -> Any:
    """From now on SIGTERM raises :class:`Terminated` instead of ending the process at once (main
    thread only; elsewhere nothing changes).  Returns the previous handler for :func:`restore_sigterm`."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_interrupt)


def restore_sigterm(old: Any) -> None:
    """Give SIGTERM back the handler ``old`` that :func:`catch_sigterm` returned (None: nothing to do)."""
    if old is not None:
        signal.signal(signal.SIGTERM, old)


@contextmanager
def children_ignore_sigint() -> Iterator[None]:
    """Child processes started inside this block ignore SIGINT from their first instruction: an
    ignored signal stays ignored across ``exec``, and Python installs its Ctrl-C handler only where
    SIGINT is not ignored, so a Ctrl-C to the process group while a spawned worker still imports
    does not print its traceback (a worker that must ignore Ctrl-C otherwise does so only once its
    own code runs).  This process ignores SIGINT for as long as the block lasts (the starts take
    milliseconds; a Ctrl-C in them is lost) and has its handler back after it; main thread only,
    elsewhere a plain block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
