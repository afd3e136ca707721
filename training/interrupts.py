"""Stopping a long command cleanly: SIGTERM (``kill``, a job scheduler's time limit) raised as an
interrupt like Ctrl-C, blocks that an interrupt does not cut (:mod:`training.ppo` finishes an
update already begun; ``treachery evaluate`` drops its games and writes nothing), and blocks whose
way out, once the first interrupt stopped them, later ones do not cut (:class:`StopOnce`: training
writes the checkpoint of its last finished iteration however often Ctrl-C is pressed)."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

__all__ = ["Terminated", "DeferInterrupt", "StopOnce", "stopping", "catch_sigterm", "restore_sigterm",
           "children_ignore_sigint", "signal_words", "stop_words", "exit_status"]


class Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP, a closed terminal, where :func:`catch_sigterm` is asked to catch it),
    raised as an interrupt so that a command a job scheduler or ``kill`` ends stops as one Ctrl-C
    stops it (:class:`training.ppo.TrainingInterrupted` says which it was).

    Args:
        signum: the signal (SIGTERM or SIGHUP).
    """

    def __init__(self, signum: int = signal.SIGTERM):
        super().__init__(signum)
        self.signum = signum


def _interrupt_of(signum: int) -> KeyboardInterrupt:
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def signal_words(why: KeyboardInterrupt) -> str:
    """How a stop is named in a command's line: ``"SIGTERM"`` or ``"SIGHUP"`` for a
    :class:`Terminated`, ``"Ctrl-C"`` for any other ``KeyboardInterrupt``."""
    return signal.Signals(why.signum).name if isinstance(why, Terminated) else "Ctrl-C"


def stop_words(why: KeyboardInterrupt) -> str:
    """How a command's closing line says it was stopped: ``"terminated (SIGTERM)"`` (or
    ``(SIGHUP)``) for a :class:`Terminated`, ``"interrupted"`` for any other ``KeyboardInterrupt``."""
    return f"terminated ({signal_words(why)})" if isinstance(why, Terminated) else "interrupted"


def exit_status(why: KeyboardInterrupt) -> int:
    """The exit status of a command the interrupt ``why`` stopped: 128 + the signal's number, as a
    shell reports a process that signal ended (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP)."""
    return 128 + (why.signum if isinstance(why, Terminated) else signal.SIGINT)


def _raise_interrupt(signum, frame) -> None:
    raise _interrupt_of(signum)


def _set_handlers(handlers: dict[int, Any]) -> KeyboardInterrupt | None:
    """Give each signal in ``handlers`` its handler, every one of them, whatever a signal that
    arrives meanwhile does.

    ``signal.signal`` first runs the handler of a signal that has arrived and not yet been
    handled, and where that handler raises (an interrupt), the change is not made: it is then
    made again, so that no handler is left half given back (a closed block's handler in place,
    a signal lost or held by nobody).  Returns the first interrupt so raised, for the caller to
    raise once the handlers are all in place; None where none was."""
    raised: KeyboardInterrupt | None = None
    for s, handler in handlers.items():
        while True:
            try:
                signal.signal(s, handler)
                break
            except KeyboardInterrupt as why:
                raised = raised or why
    return raised


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: how many :class:`StopOnce` blocks are open (main thread), and the signal that stopped them
#: (None while none has: Ctrl-C and SIGTERM then raise their interrupt)
_open_blocks = 0
_stopped: int | None = None


def stopping(signum: int = signal.SIGINT) -> None:
    """Say that the work inside the open :class:`StopOnce` blocks is stopping (an interrupt raised
    otherwise than by their signal handler: :class:`DeferInterrupt`'s, or one raised by code), so
    that later Ctrl-C and SIGTERM are ignored until the outermost block ends.  Outside any block,
    or once stopping, it does nothing."""
    global _stopped
    if _open_blocks and _stopped is None:
        _stopped = signum


def _on_stop(signum, frame) -> None:
    """:class:`StopOnce`'s handler: the first signal raises its interrupt, later ones are ignored."""
    global _stopped
    if _stopped is not None:
        return
    _stopped = signum
    raise _interrupt_of(signum)


class StopOnce:
    """A block that the first Ctrl-C (SIGINT) or SIGTERM stops and the later ones do not cut on its
    way out: the first raises ``KeyboardInterrupt`` (:class:`Terminated` for SIGTERM) as usual; from
    then on, and once :func:`stopping` is called (an interrupt that came another way is being
    handled), both signals are ignored until the outermost of the open blocks ends, so that what
    the block writes on its way out (a checkpoint, the message naming it) is written whole.

    Blocks nest (the stop is theirs together); main thread only, elsewhere a plain block.  A
    signal the process ignores when the block starts (``cmd &`` in a script) stays ignored.

    Args:
        ignore_after: once stopped, leave both signals ignored when the block ends instead of
            giving back their handlers: for a program that exits on the stop, since Python's
            exit gives SIGINT back its default action, and a Ctrl-C then would kill the process
            (exit status -2) after it chose its own status.
    """

    def __init__(self, ignore_after: bool = False):
        self.ignore_after = ignore_after

    def __enter__(self) -> "StopOnce":
        global _open_blocks, _stopped
        self.old: dict = {}
        self.active = threading.current_thread() is threading.main_thread()
        if not self.active:
            return self
        if not _open_blocks:
            _stopped = None
        _open_blocks += 1
        self.old = {s: signal.getsignal(s) for s in _STOP_SIGNALS if signal.getsignal(s) is not signal.SIG_IGN}
        raised = _set_handlers({s: _on_stop for s in self.old})
        if raised is not None:      # a signal as the block began: it stops the block at its start
            self.__exit__(type(raised), raised, None)
            raise raised
        return self

    def __exit__(self, *exc) -> None:
        """Give the signals back their handlers (SIG_IGN with ``ignore_after``, once stopped).  A
        signal that arrives while they are given back, on a block that ended otherwise than by an
        interrupt, is raised as its interrupt once they all are (not lost, and no handler of
        this block's left in place)."""
        global _open_blocks, _stopped
        if not self.active:
            return
        interrupted = exc[0] is not None and issubclass(exc[0], KeyboardInterrupt)
        if interrupted:
            stopping()
        stopped = _stopped is not None
        raised = _set_handlers({s: signal.SIG_IGN if stopped and self.ignore_after else old
                                for s, old in self.old.items()})
        _open_blocks -= 1
        if not _open_blocks:
            _stopped = None
        if raised is not None and not interrupted:
            raise raised


class DeferInterrupt:
    """A block that Ctrl-C or SIGTERM does not cut: the signal is held and raised as
    ``KeyboardInterrupt`` (:class:`Terminated` for SIGTERM) when the block ends (in the main
    thread only: elsewhere Python delivers no signals, and the block is a plain one).

    Of several signals in the block the first is the one raised, as in :class:`StopOnce` (the
    first stops the work, later ones are ignored): SIGTERM then Ctrl-C ends as SIGTERM.

    Args:
        notice: called with the first signal's number as soon as it arrives (from the signal
            handler, while the block's work goes on: it should only write a line saying the
            stop is coming).
    """

    def __init__(self, notice: Callable[[int], None] | None = None):
        self.notice = notice

    def __enter__(self) -> "DeferInterrupt":
        self.pending: int | None = None
        self.old: dict = {}
        if threading.current_thread() is threading.main_thread():
            # a signal the process ignores (started with SIGINT ignored, as `cmd &` in a script
            # does) stays ignored: the block must not make it count only while it runs
            self.old = {s: signal.getsignal(s) for s in _STOP_SIGNALS if signal.getsignal(s) is not signal.SIG_IGN}
            raised = _set_handlers({s: self._hold for s in self.old})
            if raised is not None:      # a signal before the block, raised by the handler it had
                _set_handlers(self.old)
                raise raised
        return self

    def _hold(self, signum, frame) -> None:
        if self.pending is not None:
            return
        self.pending = signum
        if self.notice is not None:
            self.notice(signum)

    def __exit__(self, *exc) -> None:
        """Give the signals back their handlers and raise the held signal's interrupt (none where
        the block ended by an exception).  A signal that arrives while the handlers are given
        back is held too (its notice called) or raised by the handler given back: it is never
        lost, nor a second interrupt after the one raised here."""
        if self.pending is not None and exc[0] is None:
            stopping(self.pending)      # before the handlers are back: a later signal is not a second interrupt
        raised = _set_handlers(self.old)
        interrupted = exc[0] is not None and issubclass(exc[0], KeyboardInterrupt)
        if exc[0] is None and self.pending is not None:
            stopping(self.pending)      # (held while the handlers were given back)
            raise _interrupt_of(self.pending)
        if raised is not None and not interrupted:
            raise raised


def catch_sigterm(hangup: bool = False) -> dict[int, Any]:
    """From now on SIGTERM (and SIGHUP, a closed terminal, with ``hangup``: for a command whose
    person is at the terminal) raises :class:`Terminated` instead of ending the process at once
    (main thread only; elsewhere nothing changes; a SIGHUP the process ignores, as under ``nohup``,
    stays ignored).  Returns the previous handlers for :func:`restore_sigterm`."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    signums = (signal.SIGTERM,) + ((signal.SIGHUP,) if hangup and signal.getsignal(signal.SIGHUP)
                                   is not signal.SIG_IGN else ())
    old = {s: signal.getsignal(s) for s in signums}
    raised = _set_handlers({s: _raise_interrupt for s in signums})
    if raised is not None:      # a signal as they were caught: the handlers it found are given back
        _set_handlers(old)
        raise raised
    return old


def restore_sigterm(old: dict[int, Any]) -> None:
    """Give the signals the handlers ``old`` that :func:`catch_sigterm` returned, all of them;
    an interrupt a signal raises meanwhile is raised after."""
    raised = _set_handlers(old)
    if raised is not None:
        raise raised


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
