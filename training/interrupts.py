"""Stopping a long command cleanly: SIGTERM (``kill``, a job scheduler's time limit) raised as an
interrupt like Ctrl-C, and blocks that an interrupt does not cut (:mod:`training.ppo` finishes an
update already begun; ``treachery evaluate`` drops its games and writes nothing)."""

from __future__ import annotations

import signal
import threading
from typing import Any

__all__ = ["Terminated", "DeferInterrupt", "catch_sigterm", "restore_sigterm"]


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
            self.old = {s: signal.signal(s, self._hold) for s in _STOP_SIGNALS}
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
