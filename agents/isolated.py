"""Bots in their own process, sent nothing but their seat's observation and view (``"isolated:SPEC"``).

A bot that runs in the process holding the game could, by ``gc.get_objects()`` or a walk of
references, find the :class:`treachery_env.engine.Game` and read every hand and identity.
``agents.make("isolated:SPEC")`` (``treachery evaluate --isolate`` for every outside bot) runs
the bot ``SPEC`` (``my_pkg.my_mod:MyBot``, or any spec :func:`agents.make` reads) in a process of
its own, as a competition server such as Botzone does: at each decision that process receives
the observation arrays and the info dict, with ``info["view"]`` serialised
(:meth:`treachery_env.view.SeatView.to_dict`) and rebuilt there
(:meth:`~treachery_env.view.SeatView.from_dict`), and answers with an action index.  No game
exists in that process, so even ``gc`` or ``import treachery_env`` inside the bot finds none.

Each isolated bot has a process of its own (two seats of one outside bot cannot see each
other's data); a process is reused for the next game once its bot is dropped, and a new bot
is made in it with the new seed, but only for the same spec made from the same current folder
and ``sys.path`` (:func:`_source`: from another folder ``my_bots`` may be another file, which the
process, holding the module imported, would not read), and only while no module file it
imported has changed since (:func:`_changed_module`: an edited bot is made in a new process);
at most :data:`MAX_IDLE` idle processes are kept, the longest idle ended first.  The bot's own prints go to stderr.  Costs: a process start
per concurrent seat (about a second, importing the bot's module) and a pipe round trip with the
view's serialisation per decision (~1 ms).  A bot with ``beliefs()`` has them asked in its process
and sent back as JSON (:func:`_beliefs_to_wire`), so the evaluator scores its deduction as
in-process, at one more round trip each time it asks; one with ``check_config`` (a trained
policy's, a search bot's) is asked it there too, its refusal of a game and its warnings said in the
game's process.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import pickle
import subprocess
import sys
import sysconfig
import warnings
import weakref
from typing import Any, Callable

import numpy as np

from treachery_env.compiled import starting_workers
from treachery_env.rules import Role

from .base import BaseAgent

__all__ = ["IsolatedAgent", "IsolatedBotError", "exit_with_parent"]


def exit_with_parent(parent: int | None = None, poll_s: float = 1.0,
                     on_exit: Callable[[], None] | None = None) -> None:
    """End this process once its parent is gone (killed, even by SIGKILL, or ended without
    closing its children): a daemon thread polls the parent pid and exits when the process has
    been re-parented, even while the main thread is busy (a bot that never answers).  For the
    bot processes here and the evaluation's worker processes (:mod:`training.evaluate`).

    Args:
        parent: the pid of the parent, as the parent gave it (its ``os.getpid()``), so that a
            parent gone before this call (a child slow to start on a loaded machine) is seen
            too; None: this process's parent at this call (one gone before it is not seen).
        poll_s: seconds between two looks at the parent pid.
        on_exit: called (from the watching thread) just before the process exits that way, to
            release what the parent would have (a worker's shared-memory block,
            :meth:`training.shared_weights.WeightsReader.remove`); what it raises is ignored.
    """
    import threading
    import time

    if parent is None:
        parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        if on_exit is not None:
            with contextlib.suppress(Exception):     # the process ends at once whatever went wrong
                on_exit()
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


class IsolatedBotError(RuntimeError):
    """What an isolated bot raised in its process, or that the process ended.

    Attributes:
        message: the first line of the bot's exception's message, or why the process ended.
        raised: what the bot raised and where, as text from its process (``"KeyError at
            my_bots.py:12 in act"``, :func:`agents.play.what_raised` there); None for a process that
            ended.  The exception's text is both: ``"KeyError at my_bots.py:12 in act: 'missing'"``.
    """

    def __init__(self, message: str, raised: str | None = None):
        super().__init__(f"{raised}: {message}" if raised else message)
        self.message = message
        self.raised = raised


def _source(spec: str) -> tuple:
    """What a bot process is made for, and reused only for (:class:`_Host`): ``spec``, the current
    folder (the process's own, which a bot reads its files from) and ``sys.path`` (which decide the
    file a spec's module is imported from)."""
    return spec, os.getcwd(), tuple(sys.path)


class _Host:
    """One bot process: pickled requests in on its stdin, one JSON line out per request;
    ``source``: what it was made for (:func:`_source`)."""

    def __init__(self, source: tuple) -> None:
        self.source = source
        # a session of its own: the terminal's Ctrl-C is the game's to handle, not the bot's; the bot
        # process ends with its input, or when its parent is gone (exit_with_parent)
        with starting_workers():        # the stale-module warnings are the game's process's to say
            self.proc = subprocess.Popen([sys.executable, "-m", "agents.isolated", str(os.getpid())],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=os.environ.copy(),
                                         start_new_session=True)

    def call(self, request: tuple) -> dict:
        """Send ``request``; its reply.

        Raises:
            ValueError: for a bot the process could not make, or a game its ``check_config``
                refuses (its one-line reason).
            IsolatedBotError: for what the bot raised, or a process that ended.

        Warns:
            UserWarning: each warning the bot gave there (its text), once per process: the bots of
                several seats, each in a process of its own, give the same one (a policy warns once
                per process that it plays another game than it was trained on).
        """
        try:
            pickle.dump(request, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            line = b""
        if not line:
            code = self.proc.wait()
            raise IsolatedBotError(f"its process ended (exit code {code})")
        reply = json.loads(line)
        if reply.get("refused"):
            raise ValueError(reply["error"])
        if "error" in reply:
            raise IsolatedBotError(reply["error"], reply["raised"])
        for text in reply.get("warnings", ()):      # said in the game's process, as the bot's own would be
            if text not in _SAID:
                _SAID.add(text)
                warnings.warn(text, stacklevel=4)
        return reply

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc.poll() is None

    def close(self) -> None:
        """End the process (it exits at the end of its input)."""
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


_IDLE: list[_Host] = []      # processes whose bot was dropped, for the next isolated bot of their source, oldest first
#: the most bot processes kept idle for reuse; past it, the one idle longest is ended (a long-lived
#: process, ``treachery serve`` say, whose tables meet many bots or folders kept one per source it ever
#: saw until it exited); 16 is more than the seats of a full table (treachery_env.config.MAX_PLAYERS, 12),
#: so a tournament's isolated bots are all reused from one game to the next
MAX_IDLE = 16
_SAID: set[str] = set()      # the bots' warnings said in this process (_Host.call)

# a forked process (an evaluation's worker) must not talk to its parent's bot processes: the pipes
# it inherits are the parent's, and two processes asking one bot process would mix up its replies
os.register_at_fork(after_in_child=_IDLE.clear)


def _release(host: _Host) -> None:
    """Keep ``host``'s process, its bot dropped, for the next isolated bot of its source (one that
    ended is not kept), ending the longest idle beyond :data:`MAX_IDLE`."""
    if host.alive():
        _IDLE.append(host)
    while len(_IDLE) > MAX_IDLE:
        _IDLE.pop(0).close()


@atexit.register
def _close_all() -> None:
    while _IDLE:
        _IDLE.pop().close()


class IsolatedAgent(BaseAgent):
    """The bot ``spec`` in a process of its own (see the module docstring).

    ``weights_sha256`` is the bot's own (a trained policy's: the SHA-256 of the checkpoint bytes it
    plays, :class:`agents.policy.PolicyAgent`), asked in its process; None for a bot without one.

    Args:
        spec: the bot, as :func:`agents.make` reads it (``MODULE:CLASS`` for an outside bot).
        seed: passed to the bot.

    Raises:
        ValueError: (one line) for a spec the process cannot make, as :func:`agents.make` says it.
    """

    name = "isolated"

    def __init__(self, spec: str, seed: int | None = None):
        super().__init__(seed)
        self.spec = spec
        source = _source(spec)
        self._host = next((h for h in reversed(_IDLE) if h.source == source), None)
        if self._host is not None:
            _IDLE.remove(self._host)
        try:
            reply = {"stale": True} if self._host is None else self._host.call(("make", spec, seed, list(sys.path)))
            if reply.get("stale"):      # a module file it imported changed: the bot is made afresh, in a new process
                if self._host is not None:
                    self._host.close()
                self._host = _Host(source)
                reply = self._host.call(("make", spec, seed, list(sys.path)))
        except (ValueError, IsolatedBotError):
            _release(self._host)
            raise
        self.weights_sha256: str | None = reply.get("weights_sha256")
        #: the class of the bot in its process (``"MyBot"``), which its one-line errors name
        #: (:class:`agents.play.BotError`), as they name an in-process bot's
        self.bot_class: str = reply.get("bot_class", type(self).__name__)
        if reply.get("beliefs"):     # only a bot that has beliefs(): the evaluator scores whoever has one
            # a partial of the process, not a bound method: no cycle, so a dropped bot frees its process at once
            self.beliefs = functools.partial(_asked_beliefs, self._host)
        if reply.get("check_config"):   # only a bot that has one: the callers ask whoever has one
            self.check_config = functools.partial(_asked_check_config, self._host)
        weakref.finalize(self, _release, self._host)

    def num_players(self) -> int | None:
        """The table size the bot is limited to (its own ``num_players()``, asked in its process), or None.

        Raises:
            IsolatedBotError: for what the bot raised there, or a process that ended.
        """
        return self._host.call(("num_players",))["num_players"]

    def reset(self, seat: int) -> None:
        """Start a new game in ``seat`` (the bot's ``reset`` runs in its process)."""
        super().reset(seat)
        self._host.call(("reset", seat))

    def act(self, observation: dict, info: dict) -> Any:
        """The bot's action as it gave it (the environment judges it), chosen in its process from the
        observation arrays and the info dict (``info["view"]`` sent as
        :meth:`~treachery_env.view.SeatView.to_dict`); a result that is not JSON (an object) is the
        bot's error.

        Raises:
            IsolatedBotError: for what the bot raised there, or a process that ended.
        """
        obs = {k: np.asarray(v) for k, v in observation.items()}
        sent = {k: v for k, v in info.items() if k != "view"}
        if info.get("view") is not None:
            sent["view"] = info["view"].to_dict()
        return self._host.call(("act", obs, sent))["action"]

    def __repr__(self) -> str:
        return f"IsolatedAgent({self.spec!r}, seed={self.seed})"


_ROLE_VALUES = frozenset(int(r) for r in Role)


def _asked_beliefs(host: _Host) -> dict | None:
    """The ``beliefs()`` of the bot in ``host``'s process (an :class:`IsolatedAgent`'s ``beliefs``
    where its bot has them): ``{seat: {Role: p}}``, a seat or role key that is not an int as the
    bot gave it in text (:func:`_beliefs_to_wire`), or None where the bot gave no dict.

    Raises:
        IsolatedBotError: for what the bot raised there, or a process that ended.
    """
    wire = host.call(("beliefs",))["beliefs"]
    if wire is None:
        return None
    return {seat: None if roles is None else {(Role(r) if isinstance(r, int) and r in _ROLE_VALUES else r): p
                                              for r, p in roles}
            for seat, roles in wire}


def _asked_check_config(host: _Host, config: Any) -> None:
    """The ``check_config(config)`` of the bot in ``host``'s process (an :class:`IsolatedAgent`'s
    ``check_config`` where its bot has one), its warnings said here.

    Raises:
        ValueError: for a game the bot refuses (its one-line reason).
        IsolatedBotError: for what the bot raised there otherwise, or a process that ended.
    """
    host.call(("check_config", config))


def _beliefs_to_wire(beliefs: Any) -> list | None:
    """A bot's ``beliefs()`` in the form JSON carries back to the game's process:
    ``[[seat, [[role, p], ...]], ...]``, a seat or role key that is an int (a :class:`Role` is its
    value) kept an int and any other key as its text, each ``p`` a float, and None for a seat's
    belief, or the whole, that is not a dict (the evaluator scores neither).  A list of pairs, not
    an object, so an int key stays an int.

    Raises:
        TypeError, ValueError: for a probability that is not a number (as the evaluator raises
            on it in-process).
    """
    if not isinstance(beliefs, dict):
        return None

    def key(k: Any) -> int | str:
        return int(k) if isinstance(k, (int, np.integer)) else str(k)

    return [[key(seat), [[key(r), float(p)] for r, p in roles.items()] if isinstance(roles, dict) else None]
            for seat, roles in beliefs.items()]


def _changed_module(baseline: set, seen: dict) -> str | None:
    """The name of a module imported in this process since it started (``baseline``: the modules it
    had then) whose file changed since this process first saw it (``seen``: name -> the file's
    modification time and size, filled in here), else None: the process runs that module's old code,
    so it must not make a bot again.  The modules of the standard library and the installed
    packages are not looked at (a bot is not edited there)."""
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name in baseline or not isinstance(path, str) or os.path.realpath(path).startswith(_LIBRARIES):
            continue
        try:
            st = os.stat(path)
            now: tuple | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            now = None                  # removed since
        if seen.setdefault(name, now) != now:
            return name
    return None


#: the folders of the standard library and the installed packages (:func:`_changed_module` skips them)
_LIBRARIES = tuple(os.path.join(os.path.realpath(sysconfig.get_paths()[k]), "")
                   for k in ("stdlib", "platstdlib", "purelib", "platlib"))


def _serve(parent: int) -> None:
    """The bot process (its parent's pid ``parent``): make, reset and ask the bot as the requests
    say, until the input ends.  A request to make a bot once a module file imported here has changed
    is answered ``{"stale": ...}`` (:func:`_changed_module`): the game's process makes it in a new
    process."""
    exit_with_parent(parent)
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)                     # the bot's prints go to stderr, never into the replies
    requests = sys.stdin.buffer
    import agents
    from agents.play import first_line, what_raised
    from treachery_env.view import SeatView

    baseline, seen = set(sys.modules), {}
    bot: Any = None
    while True:
        try:
            request = pickle.load(requests)
        except EOFError:
            return
        kind = request[0]
        try:
            if kind == "make":
                _, spec, seed, path = request
                sys.path[:] = path
                bot = None
                changed = _changed_module(baseline, seen)
                try:
                    if changed:
                        reply = {"stale": changed}
                    else:
                        bot = agents.make(spec, seed=seed)
                except ValueError as err:
                    reply = {"error": str(err), "refused": True}
                else:
                    if not changed:
                        _changed_module(baseline, seen)         # the files of the modules it imported, as read
                        reply = {"bot_class": type(bot).__name__,
                                 "beliefs": callable(getattr(bot, "beliefs", None)),
                                 "check_config": callable(getattr(bot, "check_config", None)),
                                 "weights_sha256": getattr(bot, "weights_sha256", None)}
            elif kind == "num_players":
                reply = {"num_players": bot.num_players() if hasattr(bot, "num_players") else None}
            elif kind == "reset":
                bot.reset(request[1])
                reply = {}
            elif kind == "beliefs":
                reply = {"beliefs": _beliefs_to_wire(bot.beliefs())}
            elif kind == "check_config":
                with warnings.catch_warnings(record=True) as said:
                    warnings.simplefilter("always")     # the bot's own filters decide nothing here: the game's do
                    try:
                        bot.check_config(request[1])
                    except ValueError as err:           # its refusal of the game, in its own words
                        reply = {"error": first_line(err), "refused": True}
                    else:
                        reply = {"warnings": [str(w.message) for w in said]}
            else:
                _, obs, info = request
                if "view" in info:
                    info["view"] = SeatView.from_dict(info["view"])
                action = bot.act(obs, info)
                # the action as the bot gave it (a numpy integer as an int): the environment judges it,
                # as it judges an in-process bot's (a float or None is refused there, not truncated here)
                reply = {"action": action.item() if isinstance(action, np.generic) else action}
                json.dumps(reply)
        except Exception as err:  # noqa: BLE001 - whatever the bot raises goes back to the game, in one line
            reply = {"error": first_line(err), "raised": what_raised(err)}
        try:
            replies.write(json.dumps(reply) + "\n")
            replies.flush()
        except OSError:          # the game's process is gone (a broken pipe): nobody to answer
            return


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
