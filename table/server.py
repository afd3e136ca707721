"""The web table: friends and bots at one game in a browser, each phone with its private seat.

``treachery serve`` (:func:`serve_cli`) starts a local server (FastAPI on uvicorn).  The host
creates a table on its page (``/``) or from the command line: the number of players, the
game (Treachery, or Throne Magic with its Roles, Throne, Holdings and Seasons), its variant,
which seats are people and which are bots (in Throne Magic only the bots that play it,
:func:`~table.table.check_bots`).  Each person's seat gets a private link
(``/seat/TOKEN``, and its QR code) to open on a phone; the spectators' link shows only the
public board.  A table of bots alone has that link only: a game to watch (people learning the
game, a researcher looking at a policy), which plays while a page watches it
(:attr:`WebTable.watched`).  A seat's page talks to the server over a websocket (``/ws/TOKEN``):

- the server sends ``{"type": "state", ...}`` (:meth:`WebTable.state`): the board as the seat
  sees it, its own identity (in Throne Magic its Role card), its new events in words, its prompt with the legal actions as
  buttons (card and identity texts attached), and at the end the reveal and the replay's link;
  never whose decision the table waits for, nor the step it stands at, but for its own prompt
  (:class:`WebTable` says when a page is given what); or ``{"type": "error", "message": ...}``
  (one line);
- the page sends ``{"type": "answer", "prompt": N, "action": A}`` for prompt ``N``, or
  ``{"type": "stops", "stops": {NAME: bool, ...}}`` to change when its seat is asked
  (:class:`~table.stops.Stops`).

Everything a seat's messages hold is made from that seat's information set (its
:class:`~treachery_env.view.SeatView`, its event stream, its own prompt; a spectator's from
the public view): nothing of another seat's hand, library, face-down identity or unrevealed
Role is sent before the end.  A finished game, or a replay file given to ``--replay``, can be watched step by step
at ``/replay/ID``, from any seat's chair or the spectators', or from one key step to the next
(skipping the plain passes of priority, :attr:`~table.replay.Replay.key_steps`).  The public events are
given one at a time, each the same delay after the one before, so the moments the table stops at show in
no pause (a person thinking over an answer is seen as a wait, as at any table; a bot thinks in a
worker thread, and its thinking time counts toward the delay).  Reconnecting with the same link
resumes the seat (the page gets the whole state again).  An answer out of turn, to an old prompt or
malformed gets an error and changes nothing.

A server for friends stays small (:class:`Lobby`): it holds at most ``--max-tables`` open tables (a
request beyond them gets a 503 and one line) and ``--max-replays`` replays (the oldest goes first),
each at most 1,000 (:data:`MAX_TABLES`, :data:`MAX_REPLAYS`),
and closes the tables it is done with: a game that ended with no page open, and a table where no
person connected or answered for ``--idle-minutes`` (at a table of bots alone: that nobody watched),
which also closes a finished game whose page was left open that long; when the server stops (Ctrl-C)
it closes them all.
A closed table's pages are told why (websocket close code 4410) and stop reconnecting; its links
then give a "this table has closed" page, with the replay's link for a finished game.
"""


import argparse
import ast
import asyncio
import contextlib
import errno
import importlib.util
import ipaddress
import json
import re
import secrets
import signal
import socket
import sys
import threading
import time
import traceback
import urllib.parse
from html import escape
from importlib import resources
from typing import Any

from agents.files import os_reason
from training.interrupts import catch_sigterm, exit_status, restore_sigterm, signal_words

from .html import board_html, card_texts, identity_html, prompt_details, reveal_html
from .options import (FLAGS, MAX_DELAY, add_game_arguments, check_delay, game_config_from_args, game_options_given,
                      renamed)
from .replay import Replay
from .stops import Stops
from .table import HUMAN, Table, TableError

__all__ = ["WebTable", "Lobby", "LobbyFull", "closed_reason", "create_app", "uvicorn_server", "serve_cli",
           "add_arguments", "SHUTTING_DOWN", "DEFAULT_DELAY", "DEFAULT_MAX_TABLES", "DEFAULT_MAX_REPLAYS",
           "MAX_TABLES", "MAX_REPLAYS", "DEFAULT_IDLE_MINUTES", "CLOSED", "lan_address", "phone_can_open"]

GAME_FIELDS = ("variant", "commander", "starting_life", "max_turns", "talk", "game", "throne_roles", "throne",
               "holdings", "seasons", "planechase", "vanguard", "archenemy")
"""The :class:`~treachery_env.GameConfig` fields a table request (:meth:`Lobby.create`) may set, by
their names (the number of players is the number of its seats)."""
REQUEST_FIELDS = {"num_players": 'the number of "seats"', "seats": '"seats"', "seed": '"seed"', "stops": '"stops"',
                  **{field: f'"{field}"' for field in GAME_FIELDS}}
"""How a table request (:meth:`Lobby.create`) names its fields and the game's, for its errors."""
CLI_FIELDS = {**FLAGS, "num_players": "the number of --seats", "seats": "--seats", "seed": "--seed"}
"""How ``treachery serve``'s errors name them (the game's options as :data:`~table.options.FLAGS`)."""


def default_bots() -> tuple[str, ...]:
    """The bots any table request may seat: the registered bots that take no argument (random,
    heuristic, belief, ismcts, lookahead) and the shipped models (flagship, ...), not ``policy:PATH``,
    ``rllib:PATH``, ``isolated:SPEC`` or ``MODULE:CLASS``, which read files or import code."""
    import agents
    return tuple(n for n in agents.available() if n != HUMAN and n not in ("policy", "rllib", "isolated"))
DEFAULT_DELAY = 0.6
"""Seconds of the pause after each public event given to the pages."""
DEFAULT_MAX_TABLES = 32
"""The open tables a server holds at most (``--max-tables``)."""
DEFAULT_MAX_REPLAYS = 64
"""The replays a server keeps at most (``--max-replays``): loaded files and finished games."""
MAX_TABLES = 1000
"""The largest ``--max-tables``: every table's game and bots run in the server's one process
(a table holds about a quarter of a MB before its game is played), so a thousand is already
more than it serves at a bearable pace; a larger number is a typo that only lets whoever
reaches the server fill its memory."""
MAX_REPLAYS = 1000
"""The largest ``--max-replays``: a replay opened in the browser is kept built, about half a MB
(a 5-player game), so a thousand of them is about half a GB; a larger number is a typo that only
lets the server's memory grow with every game played."""
DEFAULT_IDLE_MINUTES = 60.0
"""Minutes after which a table where no person connected or answered is closed (``--idle-minutes``)."""
MAX_IDLE_MINUTES = 7 * 24 * 60.0
"""The longest ``--idle-minutes``, a week: a table nobody plays at holds one of ``--max-tables``'
places that long, and more (``inf``, ``1e300``) is a typo that never frees it."""

SWEEP_SECONDS = (0.25, 60.0)
"""The shortest and longest wait between two looks for tables to close (:meth:`Lobby.sweep`): a
quarter of ``idle_minutes`` within these, so a tiny one does not keep a core busy."""
CLOSED = 4410
"""The websocket close code of a closed table (its reason says why; the page stops reconnecting)."""
SHUTTING_DOWN = "the server is shutting down"
"""Why the tables close when the server stops (:meth:`Lobby.close_all`; Ctrl-C)."""
CLOSED_REMEMBERED = 256
"""The closed tables whose links a server still recognises, to say they closed (the latest)."""

_LITERAL = re.compile(r"""(?<![\w'"])('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\[[^\[\]]*\]|True|False)(?![\w'"])""")
"""A Python literal in a message: a quoted string, a flat list, ``True`` or ``False`` (not an
apostrophe within a word, "Throne's")."""


def json_value(value: Any) -> str:
    """``value`` as JSON writes it (``true``, ``"x"``, ``["a", 1]``), for an error of the JSON API that
    echoes it; its ``repr`` where JSON has no spelling for it."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def json_words(message: str) -> str:
    """``message`` (one line of the Python code's, which spells values as Python does) with the
    values it quotes spelled as JSON, for the web table's API, whose requests are JSON: ``True``
    and ``False`` as ``true`` and ``false``, ``'x'`` as ``"x"``, ``['a', 'b']`` as ``["a", "b"]``;
    the rest of the words kept."""
    def spelled(m: re.Match) -> str:
        try:
            return json_value(ast.literal_eval(m[0]))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return m[0]
    return _LITERAL.sub(spelled, message)


_EXPECTED = {"int_parsing": "a whole number", "int_type": "a whole number", "missing": "given",
             "float_parsing": "a number", "bool_parsing": "true or false"}
"""How a request value of the wrong type is described (pydantic's error types)."""


class WebTable:
    """One table of the web server: a :class:`Table`, its seats' secret tokens and its connections.

    Args:
        table_id: the table's public id (in the spectators' and the replay's links).
        table: the game.
        delay: the pause after each public event, seconds (>= 0).
        clock: the time in seconds (:func:`time.monotonic`) that :attr:`active` and the bots'
            thinking time (which counts toward the delay) are read on.

    What a page is given depends on nothing it may not know.  The engine gives a decision only to
    a seat that can do more than pass, so where the table stops (and how the events fall among its
    stops) depends on hidden cards: a page is given nothing at the table's stops as such.  It is
    given (:meth:`state`):

    - the public events one at a time, each the delay after the one before (a seat's page with its
      own events that came before each: its draws, what it alone was shown); the delay is the
      bots' pace, and the stops show in no pause (a bot thinks in a worker thread; its thinking
      time counts toward the delay, and only one longer than it is seen);
    - the board (a seat's as it sees it, the spectators' public one) at the table's public moments
      (:meth:`Table.public_moment`: before the first turn and at each turn's first main phase), and
      at the end;
    - a person's own prompt, with the board and every event of the seat's so far (its own
      information), numbered among the seat's own prompts (the table's count would tell how
      often the others were asked), and the prompt's end once answered;
    - the end: the reveal and the replay, once every event was given.

    A page is sent a message only when what it is given changes.  A table of bots alone
    (:attr:`watched`) plays only while a page is connected (its spectators' link open) and
    pauses when the last one closes: a table nobody watches costs no work, and a watched one
    ends, as every game does, at its turn limit at the latest.

    Attributes:
        tokens: token -> seat (None: the spectators' token); the seat tokens are the people's
            private links.
    """

    def __init__(self, table_id: str, table: Table, delay: float, clock: Any = time.monotonic):
        self.id, self.table, self.delay = table_id, table, delay
        self._clock = clock
        self.active = clock()
        """When a person's page last connected or a person last sent a message (at a table of bots
        alone: when a page last connected or an event was given to a watching page), on the clock."""
        self.closed: str | None = None
        """Why the table was closed (:meth:`close`; one line), else None."""
        self.given_seed: int | None = None
        """The seed its host gave (:meth:`Lobby.open` sets it), else None: a drawn seed is not told
        while the game runs (it deals every identity; the replay records it)."""
        self.tokens: dict[str, int | None] = {secrets.token_urlsafe(16): seat for seat in table.humans}
        self.tokens[secrets.token_urlsafe(16)] = None
        self.error: str | None = None
        """A bot's failure that ended the table early (one line), else None."""
        self._sockets: dict[Any, list] = {}       # websocket -> [seat, events sent, last state]
        self.watched = not table.humans
        """A table of bots alone, to watch: it plays while a page is open."""
        pages = (None, *table.humans)               # the spectators' stream, then the people's seats'
        self._public = 0                            # public events given so far (to every page)
        self._given = dict.fromkeys(pages, 0)       # per page: events of its stream given
        self._public_given = dict.fromkeys(pages, 0)   # per page: public events among them
        self._boards: dict[int | None, Any] = dict.fromkeys(pages)   # per page: the view its board shows
        self._start = {seat: table.view(seat) for seat in table.humans}   # a seat's identity before its board
        self._board_turn = -1                       # the turn of the last public moment shown
        self._asked: Any = None                     # the prompt shown to its seat's page, else None
        self._number = 0                            # its number for the page: the seat's own count of prompts
        self._answered = asyncio.Event()
        self._page_opened = asyncio.Event()       # set when a page connects: bots alone play on
        self._task: asyncio.Task | None = None
        self._thinking: asyncio.Future | None = None   # a bot's decision under way in a worker thread
        self._owed = 0.0                            # the pause still owed to the last public event given, seconds
        self._moment(give=False)        # the board before the first turn; its events follow one at a time

    @property
    def asked(self) -> Any:
        """The person's :class:`~table.table.Prompt` shown to its seat's page and awaited, else None
        (the table's :attr:`~table.table.Table.prompt` is shown once the events before it were
        given)."""
        return self._asked

    # ------------------------------------------------------------------ the loop
    @property
    def ended(self) -> bool:
        """Whether the table's task has finished: it played to the game's end, a bot's failure stopped
        it (:attr:`error`), or it was closed (:meth:`close`)."""
        return self._task is not None and self._task.done()

    @property
    def pages(self) -> int:
        """The pages connected now."""
        return len(self._sockets)

    def start(self) -> None:
        """Start playing the table in the running event loop (bots, then waiting for people); a
        closed table does not start again."""
        if self._task is None and self.closed is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self, why: str) -> None:
        """Close the table (its :class:`Lobby` is done with it): its task is cancelled (a bot thinking
        in its worker thread ends its thought first; the bots are then closed) and every page's
        websocket is closed with code :data:`CLOSED` and the reason ``"This table has closed: WHY."``
        (the page says it and stops reconnecting)."""
        self.closed = why
        if self._task is None:
            self.table.close()
        else:
            self._task.cancel()
            await asyncio.wait([self._task])
        for ws in list(self._sockets):
            self.disconnect(ws)
            with contextlib.suppress(Exception):     # a socket that went away already
                await ws.close(code=CLOSED, reason=closed_reason(why))

    async def _run(self) -> None:
        from agents.play import BotError

        t = self.table
        try:
            while not t.over:
                if self.watched and not self._sockets:       # nobody watches: nothing is played
                    self._page_opened.clear()
                    await self._page_opened.wait()
                    continue
                await self._release()               # the events up to the decision the table stands at
                await self._show_moment()
                p = t.prompt
                if p is None:
                    await self._step()
                elif self._asked is not p:          # a person's own prompt: their page has it all
                    await self._pace()              # what is left of the last event's delay, as for an event
                    self._give_all(p.seat)
                    self._boards[p.seat] = p.view
                    self._asked, self._number = p, t.asked[p.seat]
                    self._answered.clear()
                    await self._broadcast()
                    await self._answered.wait()
                await self._broadcast()
                await asyncio.sleep(0)              # let the connections be served
            await self._release()                   # the game's last events
            await self._show_moment()
        except BotError as err:
            self.error = f"the table stopped: {err}"
        except Exception as err:     # noqa: BLE001 - say it on the pages, and in the server's log
            self.error = f"the table stopped: {type(err).__name__}: {err}"
            traceback.print_exc()
        finally:
            try:
                if self._thinking is not None and not self._thinking.done():
                    await asyncio.wait([self._thinking])     # closed while a bot thinks: close it after
            finally:
                t.close()
                await self._broadcast()

    async def _step(self) -> None:
        """Play one decision: a bot's, thought in a worker thread (the loop serves the pages
        meanwhile; this task alone changes the game, and waits), or a person's automatic one."""
        t = self.table
        if t.deciding_bot is None:
            t.advance(max_steps=1)
            return
        start = self._clock()
        self._thinking = asyncio.get_running_loop().run_in_executor(None, t.think)
        action = await asyncio.shield(self._thinking)   # cancelled: the thought still ends (see _run)
        self._thinking = None
        self._owed -= self._clock() - start             # the bot's thinking time counts toward the delay
        t.play_bot(action)

    async def _pace(self) -> None:
        """Wait out what is left of the delay after the last public event given: the delay less the
        bots' thinking time since (waited once: a second call waits nothing)."""
        await asyncio.sleep(max(0.0, self._owed))
        self._owed = 0.0

    async def _release(self) -> None:
        """Give every page the public events not given yet, one at a time, each the delay after the
        one before (:meth:`_pace`); a seat's page gets with each its own events that came before it."""
        t = self.table
        for _ in t.events(None, self._public):
            await self._pace()
            self._public += 1
            for seat in self._given:
                given, public = self._given[seat], self._public_given[seat]
                for e in t.events(seat, given):
                    if public == self._public:
                        break
                    given += 1
                    public += e.data["to"] is None
                self._given[seat], self._public_given[seat] = given, public
            await self._broadcast()
            self._owed = self.delay
            if self.watched and self._sockets:      # a table of bots alone is in use while watched
                self.active = self._clock()

    def _give_all(self, seat: int | None) -> None:
        """Give ``seat``'s page (None: the spectators') every event of its stream (the public ones
        were all given: :meth:`_release` ran)."""
        self._given[seat] = len(self.table.events(seat))
        self._public_given[seat] = self._public

    def _at_moment(self) -> bool:
        """Whether the table stands at the first public moment of a turn (:meth:`Table.public_moment`)
        not shown yet, or at the end."""
        t = self.table
        return t.over or (t.public_moment() and t.turn != self._board_turn)

    async def _show_moment(self) -> None:
        """At a moment (:meth:`_at_moment`), once what is left of the last event's delay is waited out
        (the boards are given as an event is), :meth:`_moment`."""
        if self._at_moment():
            await self._pace()
            self._moment()

    def _moment(self, give: bool = True) -> None:
        """At the first public moment of a turn (:meth:`Table.public_moment`) or at the end: every
        page's board, and (``give``; the public events were given) all of its events."""
        t = self.table
        if not self._at_moment():
            return
        self._board_turn = t.turn
        for seat in self._boards:
            if give:
                self._give_all(seat)
            # the board without a decision under way: a page's own prompt is shown as its own
            self._boards[seat] = t.view(seat)._replace(decision=None)

    async def answer(self, seat: int, message: Any) -> None:
        """Apply an ``{"type": "answer", "prompt": N, "action": A}`` message from ``seat`` (or a
        ``{"type": "stops", ...}`` one, :meth:`set_stops`).

        Raises:
            TableError: (one line) a spectator, a malformed message, an old prompt, out of turn
                (no prompt shown to the seat) or an action not among the options; nothing changes.
        """
        if seat is None:
            raise TableError("a spectator has no seat: it cannot answer or set stops")
        self.active = self._clock()
        if isinstance(message, dict) and message.get("type") == "stops":
            self.set_stops(seat, message.get("stops"))
            await self._broadcast()
            return
        if not isinstance(message, dict) or message.get("type") != "answer":
            raise TableError('a message is {"type": "answer", "prompt": N, "action": A} or '
                             '{"type": "stops", "stops": {NAME: true or false, ...}}')
        p, n = self._asked, self._number
        if p is None or p.seat != seat:     # a prompt not shown yet is not the seat's to answer either
            raise TableError(f"P{seat} has no decision to make now")
        number = message.get("prompt")
        if number != n:
            raise TableError(f"prompt {json_value(number)} was already answered; answer prompt {n}"
                             if isinstance(number, int) and not isinstance(number, bool) and 0 < number < n
                             else f"there is no prompt {json_value(number)}; answer prompt {n}")
        self.table.answer(seat, message.get("action"))
        self._asked = None
        self._answered.set()

    def set_stops(self, seat: int, settings: Any) -> None:
        """Change ``seat``'s stops from ``{NAME: bool, ...}`` (names of :class:`Stops`; those not
        given keep their value).

        Raises:
            TableError: (one line) for settings that are not such a mapping; nothing changes.
        """
        names = Stops.names()
        if not isinstance(settings, dict) or not all(k in names and isinstance(v, bool) for k, v in settings.items()):
            raise TableError(f"stops are {{NAME: true or false}} with names among {', '.join(names)}")
        self.table.set_stops(seat, self.table.stops[seat].with_(**settings))

    # ------------------------------------------------------------------ what a seat is sent
    def state(self, seat: int | None, since: int = 0) -> dict:
        """The state message for ``seat``'s page (None: a spectator's) with the events given to it
        from ``since`` on (JSON-able; see the module docstring): what the table has given that page
        (the class docstring), not the game where the table stands.

        Raises:
            TableError: for a seat that is not a person's.
        """
        t = self.table
        if seat not in self._given:
            raise TableError(f"P{seat} is not a person's seat (people: {list(t.humans)})")
        given = self._given[seat]
        events = t.events(seat, since)[:max(0, given - since)]
        last = t.events(seat, given - 1) if given else []
        view, p = self._boards[seat], self._asked
        over = t.over and not t.events(None, self._public)      # the end, once every public event was given
        return {
            "type": "state", "table": self.id, "seat": seat, "game": t.config.game,
            "seats": [{"seat": k, "label": label} for k, label in enumerate(t.labels)],
            "turn": last[0].turn if last else 0,
            "board": board_html(view, spectator=seat is None) if view is not None else
            '<div class="board-head">The board is shown from the first main phase on.</div>',
            "identity": identity_html(view if view is not None else self._start[seat]) if seat is not None else None,
            "cards": card_texts(view) if view is not None else {},
            "events_from": since, "events": [{"n": e.number, "text": e.text, "kind": e.kind} for e in events],
            # numbered among the seat's own prompts: the table's count would tell how often others were asked
            "prompt": {**prompt_details(p), "number": self._number} if p is not None and p.seat == seat else None,
            "stops": None if seat is None else self.table.stops[seat].as_dict(),
            "over": over, "error": self.error,
            "reveal": reveal_html(t.reveal()) if over else None,
            "replay": f"/replay/{self.id}.json" if over else None,
            "viewer": f"/replay/{self.id}" if over else None,
        }

    async def connect(self, ws: Any, seat: int | None) -> None:
        """Register a websocket for ``seat`` and send it the whole state (at a closed table: close it,
        saying so)."""
        if self.closed is not None:
            await ws.close(code=CLOSED, reason=closed_reason(self.closed))
            return
        if seat is not None or self.watched:
            self.active = self._clock()
        self._sockets[ws] = [seat, 0, None]       # seat, events sent, the last state sent (without its events)
        self._page_opened.set()
        await self._send(ws)

    def disconnect(self, ws: Any) -> None:
        """Forget a websocket (the seat plays on; its link reconnects; a table of bots alone pauses
        when no page is left)."""
        self._sockets.pop(ws, None)

    async def _send(self, ws: Any) -> None:
        seat, sent, last = self._sockets[ws]
        message = self.state(seat, sent)
        events, since = message.pop("events"), message.pop("events_from")
        rest = json.dumps(message)
        if not events and rest == last:
            return                  # nothing new for this seat
        self._sockets[ws][1:] = [sent + len(events), rest]
        try:
            await ws.send_text(json.dumps({**message, "events_from": since, "events": events}))
        except Exception:      # noqa: BLE001 - a socket that went away: forget it, the seat can reconnect
            self.disconnect(ws)

    async def _broadcast(self) -> None:
        for ws in list(self._sockets):
            if ws in self._sockets:
                await self._send(ws)


def closed_reason(why: str) -> str:
    """What a closed table's pages are told (the websocket's close reason, the links' page):
    ``"This table has closed: WHY."``, ``why`` one line ("its game is over", ...)."""
    return f"This table has closed: {why}."


class LobbyFull(Exception):
    """A table request refused because the server holds its most open tables, or is shutting down
    (one line)."""


class Lobby:
    """The tables of one server, by id and by token, and the replays it keeps.

    Args:
        delay: the pause after each public event for new tables, seconds.
        bots: bot specs a table request may seat besides :func:`default_bots` (the host's
            ``--bot``: a checkpoint, ``policy:PATH``, say).  A request names no other: it comes from
            anyone who can reach the server, and a spec may import a module or read a file.
        max_tables: the open tables it holds at most (:meth:`open` refuses more).
        max_replays: the replays it keeps at most (the oldest goes when one more comes).
        idle_minutes: a table where no person's page connected and no person sent a message for
            this long is closed (:meth:`collect`); at a table of bots alone, one nobody watched.
        clock: the time in seconds that idleness is measured on (:func:`time.monotonic`).

    Raises:
        ValueError: (one line, naming ``treachery serve``'s option) for a delay out of range
            (:func:`~table.options.check_delay`), a
            ``max_tables`` or ``max_replays`` that is not an int from 1 to :data:`MAX_TABLES` or
            :data:`MAX_REPLAYS`, or ``idle_minutes`` not above 0, above
            :data:`MAX_IDLE_MINUTES` or not a number (NaN).
    """

    def __init__(self, delay: float = DEFAULT_DELAY, bots: tuple[str, ...] = (), max_tables: int = DEFAULT_MAX_TABLES,
                 max_replays: int = DEFAULT_MAX_REPLAYS, idle_minutes: float = DEFAULT_IDLE_MINUTES,
                 clock: Any = time.monotonic):
        check_delay(delay)
        for flag, value, most, why in (
                ("--max-tables", max_tables, MAX_TABLES, "the open tables, whose games the server's one process "
                                                         "plays"),
                ("--max-replays", max_replays, MAX_REPLAYS, "the replays kept, about half a MB each once viewed")):
            if type(value) is not int or not 1 <= value <= most:
                raise ValueError(f"{flag} must be an int from 1 to {most:,} ({why}), got {value!r}")
        if not 0 < idle_minutes <= MAX_IDLE_MINUTES:        # (a NaN compares false)
            raise ValueError(f"--idle-minutes must be > 0 and at most {MAX_IDLE_MINUTES:g} (a week), "
                             f"got {idle_minutes}")
        self.delay, self.max_tables, self.max_replays, self.idle_minutes = delay, max_tables, max_replays, idle_minutes
        self.clock = clock
        self.bots: tuple[str, ...] = tuple(dict.fromkeys([*default_bots(), *bots]))
        """The bot specs a table request may seat (:func:`default_bots` and those the host allowed)."""
        self.tables: dict[str, WebTable] = {}
        self.replays: dict[str, Replay | str] = {}
        """Replays by id, oldest first: loaded files (:meth:`add_replay`) and the tables' games once
        over (a closed table's as its text until first asked for, :meth:`replay`)."""
        self._closed: dict[str, tuple[frozenset, str]] = {}   # closed table id -> (its tokens, why), oldest first
        self.stopping: str | None = None
        """Why every table was closed (:meth:`close_all`: the server stops), else None."""
        self._table_sizes: dict[str, list[int]] | None = None

    def create(self, request: Any, names: dict[str, str] | None = None, trusted: bool = False) -> WebTable:
        """A new table from the host's request ``{"seats": [...], "variant": ..., "commander": ...,
        "seed": ..., "starting_life": ..., "max_turns": ..., "talk": ..., "stops": ...}`` or, for
        Throne Magic, ``{"seats": [...], "game": "throne_magic", "throne_roles": ..., "throne":
        ..., "holdings": ..., "seasons": ..., ...}``, either with the CR 900 variants ``"planechase"``
        ("single" or "per_player"), ``"vanguard"`` ("random" or a name per seat) and ``"archenemy"``
        ("supervillain_rumble") (``seats``: per seat ``"human"`` or a bot
        spec, the number of seats being the number of players; ``game``: "treachery", the default,
        or "throne_magic"; ``throne_roles``: "basic", "random", "draft" or a list of Role names,
        the Sculpted method; ``throne``: "random", "king" or a Throne's name; ``holdings`` and
        ``seasons``: true or false; the fields of :class:`~treachery_env.GameConfig`).

        Args:
            request: the request (JSON from the host page).
            names: how errors name the request's fields (default :data:`REQUEST_FIELDS`).
            trusted: the host's own request: any bot spec; else only :attr:`bots`.

        Raises:
            ValueError: (one line, naming the field) for a malformed request, a bot
                not in :attr:`bots` (untrusted), a bot that does not play the game
                (:func:`~table.table.check_bots`), or whatever :class:`Table` and
                :class:`~treachery_env.GameConfig` refuse (a Treachery field in a Throne Magic
                request, or the reverse, among them); the values it quotes spelled as JSON
                (:func:`json_words`; a value echoed as the request gave it: ``got true``,
                ``got ["a", "b"]``).
        """
        try:
            return self._create(request, REQUEST_FIELDS if names is None else names, trusted)
        except ValueError as err:
            raise ValueError(json_words(str(err))) from None

    def _create(self, request: Any, names: dict[str, str], trusted: bool) -> WebTable:
        from treachery_env import GameConfig


        if not isinstance(request, dict):
            raise ValueError("a table request is a JSON object with at least \"seats\"")
        unknown = sorted(set(request) - {"seats", "stops", "seed", *GAME_FIELDS})
        if unknown:
            raise ValueError(f"unknown field(s) {unknown} in the table request")
        seats = self.check_seats(request.get("seats"), names["seats"], trusted)
        kw = {"num_players": len(seats)}
        for field in GAME_FIELDS:
            if request.get(field) not in (None, ""):
                kw[field] = request[field]
        try:
            stops = Stops.parse(request["stops"]) if request.get("stops") not in (None, "") else None
        except ValueError as err:
            raise ValueError(f"{names['stops']}: {err}") from None
        seed = request.get("seed")
        seed = None if seed == "" else seed         # the form's empty field: a fresh seed
        self._check_seed(seed, names)
        try:
            config = GameConfig(**kw)
        except ValueError as err:
            text = str(err)
            field = re.match(r"GameConfig\.(\w+): ", text)
            tail = text.rfind(", got ")
            if field and field[1] in request and tail > 0 and "; " not in text[tail:]:
                # the value as the request gave it, not as GameConfig made it (a list, not a tuple)
                text = f"{text[:tail]}, got {json_value(request[field[1]])}"
            raise renamed(ValueError(text), names) from None
        return self.open(seats, config, seed, stops, names)

    def check_seats(self, seats: Any, where: str, trusted: bool = False) -> list[str]:
        """``seats`` (per seat ``"human"`` or a bot spec; bots alone make a table to watch), stripped,
        once checked.

        Args:
            seats: the seats as given.
            where: how errors name them (``'"seats"'``, ``"--seats"``).
            trusted: the host's own table (the command line): any bot spec; else only :attr:`bots`.

        Raises:
            ValueError: (one line, naming ``where``) for what is not a list of non-empty strings, or
                (untrusted) a bot not in :attr:`bots`.
        """
        if not isinstance(seats, list) or not all(isinstance(s, str) and s.strip() for s in seats):
            raise ValueError(f'{where} must be a list of "human" or bot specs, one per player')
        seats = [s.strip() for s in seats]
        if not trusted:
            refused = sorted({s for s in seats if s != HUMAN and s not in self.bots})
            if refused:
                raise ValueError(f"{where}: bot {refused[0]!r} is not offered here; choose among "
                                 f"{', '.join(self.bots)} (the host allows more with treachery serve --bot SPEC)")
        return seats

    @staticmethod
    def _check_seed(seed: Any, names: dict[str, str]) -> None:
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise ValueError(f"{names['seed']} must be an int >= 0, got {seed!r}")

    def open(self, seats: list[str], config: Any, seed: int | None = None, stops: Stops | None = None,
             names: dict[str, str] | None = None) -> WebTable:
        """A new table of ``seats`` (checked by :meth:`check_seats`) playing ``config`` (a
        :class:`~treachery_env.GameConfig` of ``len(seats)`` players).

        Args:
            seats: per seat ``"human"`` or a bot spec.
            config: the game.
            seed: the game's seed (None: a fresh one).
            stops: the people's stops (None: :class:`Stops`' defaults).
            names: how errors name the seats and the seed (default :data:`REQUEST_FIELDS`).

        Raises:
            LobbyFull: (one line) when it holds :attr:`max_tables` open tables, or is closing
                them all (:meth:`close_all`).
            ValueError: (one line) for a seed below 0, or whatever :class:`Table` refuses (a bot
                that does not play the game, say), named as the seats.
        """
        names = REQUEST_FIELDS if names is None else names
        if self.stopping is not None:
            raise LobbyFull(f"no new table: {self.stopping}")
        if len(self.tables) >= self.max_tables:
            tables = "1 open table" if self.max_tables == 1 else f"{self.max_tables} open tables"
            raise LobbyFull(f"this server holds {tables}, its most (treachery serve --max-tables): try again "
                            f"once a game has ended")
        self._check_seed(seed, names)
        given = seed
        if seed is None:
            seed = secrets.randbelow(2**31 - 1)
        try:
            table = Table(seats, config, seed=seed, stops=stops)
        except ValueError as err:
            raise ValueError(f"{names['seats']}: {err}") from None
        table_id = secrets.token_hex(4)
        web = WebTable(table_id, table, self.delay, self.clock)
        web.given_seed = given          # told back to the host; a drawn one is not
        self.tables[table_id] = web
        return web

    async def collect(self) -> list[str]:
        """Close and remove the tables it is done with (:meth:`WebTable.close`): those that played to
        their end (:attr:`WebTable.ended`) with no page open, and those idle for :attr:`idle_minutes`
        (:attr:`WebTable.active`).  A finished game's replay stays at ``/replay/ID`` (among the
        :attr:`max_replays` kept); the links of the latest :data:`CLOSED_REMEMBERED` closed tables
        say that they closed (:meth:`closed`).

        Returns:
            the ids of the tables closed.
        """
        now, minutes = self.clock(), f"{self.idle_minutes:g} minute{'' if self.idle_minutes == 1 else 's'}"
        done = [web for web in self.tables.values()
                if (web.ended and not web.pages) or now - web.active >= self.idle_minutes * 60]
        return await self._close({web: "its game is over" if web.table.over else
                                  "its game stopped on an error" if web.ended else
                                  f"nobody {'watched' if web.watched else 'played at'} it for {minutes}"
                                  for web in done})

    async def close_all(self, why: str) -> list[str]:
        """Close and remove every open table, each page told ``why`` (the server stops:
        :data:`SHUTTING_DOWN`), as :meth:`collect` closes one: its game and bots end (a bot
        thinking in its worker thread ends its thought first), a finished game's replay is kept
        and its links say that it closed.  From then on :meth:`open` refuses new tables.

        Returns:
            the ids of the tables closed.
        """
        self.stopping = why
        return await self._close(dict.fromkeys(self.tables.values(), why))

    async def _close(self, whys: dict[WebTable, str]) -> list[str]:
        """Remove the tables of ``whys`` (table -> why it closes) and close them
        (:meth:`WebTable.close`): a finished game's replay kept, their links remembered as closed."""
        for web, why in whys.items():          # all removed before the first wait: no table is closed twice
            del self.tables[web.id]
            if web.table.over and web.id not in self.replays:
                self._keep(web.id, web.table.replay_json())
            self._closed[web.id] = (frozenset(web.tokens), why)
            while len(self._closed) > CLOSED_REMEMBERED:
                del self._closed[next(iter(self._closed))]
        for web, why in whys.items():
            await web.close(why)
        return [web.id for web in whys]

    async def sweep(self) -> None:
        """:meth:`collect` every quarter of :attr:`idle_minutes`, within :data:`SWEEP_SECONDS`, until
        cancelled (the server runs it while it serves)."""
        while True:
            await asyncio.sleep(max(SWEEP_SECONDS[0], min(SWEEP_SECONDS[1], self.idle_minutes * 15)))
            try:
                await self.collect()
            except Exception:      # noqa: BLE001 - say it in the server's log, and sweep on
                traceback.print_exc()

    def closed(self, token: str) -> tuple[str, str] | None:
        """The id of the closed table ``token`` was a link of and why it closed (one line: "its game
        is over", "nobody played at it for 60 minutes", ...), else None (no such token, or one of a
        table closed long ago)."""
        for table_id, (tokens, why) in self._closed.items():
            if token in tokens:
                return table_id, why
        return None

    def bots_by_game(self) -> dict[str, list[str]]:
        """Per game (``"treachery"``, ``"throne_magic"``), the bots of :attr:`bots` that play it
        (:func:`agents.throne.plays`)."""
        from agents.throne import plays
        from treachery_env.config import GAMES
        return {game: [b for b in self.bots if plays(b, game)] for game in GAMES}

    def table_sizes(self) -> dict[str, list[int]]:
        """The table sizes each bot of :attr:`bots` is limited to, by bot, for those that are (a bot's
        ``num_players()``: a shipped model or a policy plays the size it was trained for alone; the
        rule-based bots play any and are left out), as :class:`Table` refuses them at another.
        Each bot is made once, on the first call (a model's checkpoint read)."""
        if self._table_sizes is None:
            import agents
            sizes = {}
            for spec in self.bots:
                try:
                    bot = agents.make(spec, seed=0)
                    fixed = bot.num_players() if hasattr(bot, "num_players") else None
                    if hasattr(bot, "close"):
                        bot.close()
                except Exception:  # noqa: BLE001 - a bot that cannot be made is refused, in its words, by Table
                    continue
                if fixed is not None:
                    sizes[spec] = [fixed]
            self._table_sizes = sizes
        return self._table_sizes

    def variant_bots(self) -> list[str]:
        """The bots of :attr:`bots` that play a game with a CR 900 variant (Planechase, Vanguard,
        schemes), in either game (:func:`agents.throne.plays`)."""
        from agents.throne import plays
        return [b for b in self.bots if plays(b, "treachery", variants=True)]

    def add_replay(self, text: str) -> str:
        """Load a replay (``Game.to_json()`` text) to view at ``/replay/ID``; returns its id.

        Raises:
            ValueError: for text that is not a replay (one line, from :class:`~table.replay.Replay`).
        """
        replay_id = secrets.token_hex(4)
        self._keep(replay_id, Replay(text))
        return replay_id

    def _keep(self, replay_id: str, replay: Replay | str) -> None:
        """Keep a replay, the oldest kept going when there are more than :attr:`max_replays`."""
        self.replays[replay_id] = replay
        while len(self.replays) > self.max_replays:
            del self.replays[next(iter(self.replays))]

    def replay(self, replay_id: str) -> Replay:
        """The replay ``replay_id``: a loaded one, or a table's game once it is over (kept when its
        table closes).

        Raises:
            KeyError: for no such replay (or one no longer kept), or a table still playing (its
                replay holds every hidden card).
        """
        if replay_id not in self.replays:
            web = self.tables[replay_id]
            if not web.table.over:
                raise KeyError(replay_id)
            self._keep(replay_id, Replay(web.table.replay_json()))
        replay = self.replays[replay_id]
        if isinstance(replay, str):        # a closed table's game, read on its first request
            replay = self.replays[replay_id] = Replay(replay)
        return replay

    def find(self, token: str) -> tuple[WebTable, int | None]:
        """The table and seat (None: spectator) of a token.

        Raises:
            KeyError: for an unknown token.
        """
        for web in self.tables.values():
            if token in web.tokens:
                return web, web.tokens[token]
        raise KeyError(token)


def _static(name: str) -> str:
    return resources.files("table").joinpath("static", name).read_text("utf-8")


def create_app(lobby: Lobby | None = None, base_url: str = "") -> Any:
    """The FastAPI application of the web table.

    Args:
        lobby: the tables (default: a new :class:`Lobby`).
        base_url: the address people reach the server at (``http://192.168.1.5:8000``), put in the
            links and QR codes; empty: links relative to the page that asked.

    Returns:
        a ``fastapi.FastAPI`` with the routes of the module docstring; while it serves, it closes
        the tables the lobby is done with (:meth:`Lobby.sweep`), and when it stops (its lifespan's
        end) every table left (:meth:`Lobby.close_all`).

    Raises:
        ImportError: (one line) when FastAPI is not installed (``pip install
            'treachery-toolkit[web]'``).
    """
    try:
        from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
        from fastapi.exceptions import RequestValidationError
        from fastapi.responses import HTMLResponse, JSONResponse, Response
        from fastapi.staticfiles import StaticFiles
    except ImportError as err:     # pragma: no cover - the web extra is part of the dev install
        raise ImportError(f"the web table needs FastAPI and uvicorn: pip install 'treachery-toolkit[web]' "
                          f"({err})") from None
    import segno

    lobby = lobby if lobby is not None else Lobby()

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        sweeper = asyncio.get_running_loop().create_task(lobby.sweep())
        try:
            yield
        finally:
            sweeper.cancel()
            await asyncio.wait([sweeper])
            await lobby.close_all(SHUTTING_DOWN)    # under uvicorn (:func:`uvicorn_server`) closed already

    app = FastAPI(title="Treachery table", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.lobby = lobby

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, err: RequestValidationError) -> Any:
        """A path or query value of the wrong type (``/api/replay/ID/next/abc``): 400 and one line in
        ``{"error": ...}``, the shape of every other error of this API (FastAPI's own is a 422 list)."""
        first = err.errors()[0] if err.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ())[1:]) or "the request"
        value = first.get("input")
        return JSONResponse({"error": f"{where} must be {_EXPECTED.get(first.get('type'), 'valid')}, "
                                      f"got {json_value(value)}"}, status_code=400)

    app.mount("/static", StaticFiles(directory=str(resources.files("table").joinpath("static"))), name="static")

    def link(request: Request, path: str) -> str:
        return (base_url or str(request.base_url).rstrip("/")) + path

    def notice(title: str, body: str) -> Any:
        """A 404 page saying ``title`` (plain text) over ``body`` (HTML, its text escaped), styled as the
        table's pages are and readable on a phone."""
        return HTMLResponse(f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
                            f'content="width=device-width, initial-scale=1"><title>Treachery - {escape(title)}'
                            f'</title><link rel="stylesheet" href="/static/table.css"><link rel="icon" '
                            f'href="/static/favicon.svg" type="image/svg+xml"></head><body><h1>{escape(title)}'
                            f'</h1>{body}</body></html>', status_code=404)

    def closed_page(token: str) -> Any:
        """The 404 page of a closed table's link (:meth:`Lobby.closed`), with its replay's link for a
        finished game still kept; None for a token of no closed table."""
        found = lobby.closed(token)
        if found is None:
            return None
        table_id, why = found
        replay = (f'<p><a href="/replay/{escape(table_id)}">Watch its game again</a></p>'
                  if table_id in lobby.replays else "")
        return notice("This table has closed", f"<p>{escape(closed_reason(why))}</p>{replay}")

    def page(name: str, find: Any, key: str, title: str, why: str) -> Any:
        """The static page ``name`` when ``find(key)`` finds its table or replay, else a 404 page."""
        try:
            find(key)
        except KeyError:
            return notice(title, f"<p>{why}</p>")
        return HTMLResponse(_static(name))

    @app.get("/", response_class=HTMLResponse)
    async def host_page() -> str:
        return _static("host.html")

    @app.get("/seat/{token}", response_class=HTMLResponse)
    async def seat_page(token: str) -> Any:
        closed = closed_page(token)
        if closed is not None:
            return closed
        return page("table.html", lobby.find, token, "No such seat", "This link is not a seat of a table on this "
                                                                      "server.")

    @app.get("/api/bots")
    async def bots() -> Any:
        """The bots a request may seat: ``{"bots": [...], "games": {GAME: [the bots that play it]},
        "variants": [the bots that play the CR 900 variants], "players": {BOT: [the table sizes it
        plays]}}``, ``players`` naming only the bots limited to some sizes (:meth:`Lobby.table_sizes`:
        the shipped models, 5 players)."""
        sizes = await asyncio.to_thread(lobby.table_sizes)      # the first time, the models' files are read
        return {"bots": list(lobby.bots), "games": lobby.bots_by_game(), "variants": lobby.variant_bots(),
                "players": sizes}

    @app.get("/api/throne_magic")
    async def throne_magic() -> Any:
        """What the host form offers for Throne Magic: ``{"roles": [{"name", "types"}...], "thrones":
        [...], "basic": {N: [the Basic Game's Roles]}}`` (public card data)."""
        from treachery_env import throne_cards, throne_roles
        return {"roles": [{"name": r.name, "types": sorted(r.types)} for r in throne_roles.all_roles()],
                "thrones": [t.name for t in throne_cards.thrones()],
                "basic": {n: throne_roles.basic_roles(n) for n in throne_roles.BASIC_PLAYERS}}

    @app.post("/api/tables")
    async def create_table(request: Request) -> Any:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"error": "the request body is not JSON"}, status_code=400)
        except RecursionError:          # the parser's own limit (a thousand levels or so)
            return JSONResponse({"error": "the request body is JSON nested too deeply"}, status_code=400)
        await lobby.collect()           # a table done with leaves room for this one
        try:
            web = lobby.create(body)
        except LobbyFull as err:
            return JSONResponse({"error": str(err)}, status_code=503)
        except ValueError as err:
            return JSONResponse({"error": str(err).splitlines()[0]}, status_code=400)
        web.start()
        out = []
        for token, seat in web.tokens.items():
            url = link(request, f"/seat/{token}")
            qr = segno.make(url, error="m").svg_inline(scale=4, dark="#111", light="#fff") if phone_can_open(url) \
                else None
            out.append({"seat": seat, "label": "spectators" if seat is None else f"P{seat}", "url": url, "qr": qr})
        return {"table": web.id, "seed": web.given_seed, "links": out}     # a drawn one: None (given_seed)

    @app.get("/replay/{replay_id}.json")
    async def replay(replay_id: str) -> Any:
        web = lobby.tables.get(replay_id)
        if web is not None and not web.table.over:
            return JSONResponse({"error": "the replay holds every hidden card: it is given when the game ends"},
                                status_code=403)
        try:
            text = lobby.replay(replay_id).text
        except KeyError:
            return JSONResponse({"error": f"no finished game or replay {json_value(replay_id)}"}, status_code=404)
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="treachery-{replay_id}.json"'})


    @app.get("/replay/{replay_id}", response_class=HTMLResponse)
    async def replay_page(replay_id: str) -> Any:
        return page("replay.html", lobby.replay, replay_id, "No such replay",
                    "No finished game or loaded replay has this id.")

    @app.get("/api/replay/{replay_id}/turn/{turn}")
    async def replay_turn(replay_id: str, turn: int) -> Any:
        try:
            r = lobby.replay(replay_id)
        except KeyError:
            return JSONResponse({"error": f"no finished game or replay {json_value(replay_id)}"}, status_code=404)
        try:
            return {"turn": turn, "step": r.turn_start(turn)}
        except ValueError as err:
            return JSONResponse({"error": str(err)}, status_code=400)

    @app.get("/api/replay/{replay_id}/{direction}/{step}")
    async def replay_key_step(replay_id: str, direction: str, step: int) -> Any:
        """The next (``direction`` "next") or previous ("prev") key step from ``step``: one that
        is not a plain pass of priority (:attr:`~table.replay.Replay.key_steps`)."""
        if direction not in ("next", "prev"):
            return JSONResponse({"error": f"no such replay page {json_value(direction)}: next or prev"}, status_code=404)
        try:
            r = lobby.replay(replay_id)
        except KeyError:
            return JSONResponse({"error": f"no finished game or replay {json_value(replay_id)}"}, status_code=404)
        try:
            k = r.next_key_step(step) if direction == "next" else r.prev_key_step(step)
        except ValueError as err:
            return JSONResponse({"error": str(err)}, status_code=400)
        return {"from": step, "step": k}

    @app.get("/api/replay/{replay_id}/{step}")
    async def replay_frame(replay_id: str, step: int, seat: int | None = None) -> Any:
        try:
            r = lobby.replay(replay_id)
        except KeyError:
            return JSONResponse({"error": f"no finished game or replay {json_value(replay_id)}"}, status_code=404)
        try:
            f = r.frame(step, seat)
        except ValueError as err:
            return JSONResponse({"error": str(err)}, status_code=400)
        return {"step": f.step, "steps": r.steps, "players": r.num_players, "labels": r.labels, "turn": f.turn,
                "last_turn": r.last_turn,
                "actor": f.actor, "label": f.label, "key": f.key,
                "action": f.action, "events": list(f.events), "board": board_html(f.view, spectator=seat is None),
                "cards": card_texts(f.view)}

    @app.websocket("/ws/{token}")
    async def seat_socket(ws: WebSocket, token: str) -> None:
        await ws.accept()               # then closed with a code and reason, which a page is given
        try:
            web, seat = lobby.find(token)
        except KeyError:
            closed = lobby.closed(token)
            await ws.close(*((CLOSED, closed_reason(closed[1])) if closed else (4404, "no such seat")))
            return
        web.start()
        await web.connect(ws, seat)
        if web.closed is not None:      # it closed as this page came
            return
        try:
            while True:
                text = await ws.receive_text()
                try:
                    try:
                        message = json.loads(text)
                    except json.JSONDecodeError:
                        raise TableError("a message must be JSON: {\"type\": \"answer\", \"prompt\": N, "
                                         "\"action\": A}") from None
                    except RecursionError:
                        raise TableError("a message must be JSON nested less deeply: {\"type\": \"answer\", "
                                         "\"prompt\": N, \"action\": A}") from None
                    await web.answer(seat, message)
                except TableError as err:           # the values it quotes as the message spelled them
                    await ws.send_text(json.dumps({"type": "error", "message": json_words(str(err))}))
        except WebSocketDisconnect:       # the page closed: the seat plays on, its link reconnects
            return
        finally:
            web.disconnect(ws)

    return app


def lan_address() -> str:
    """This machine's address on its local network (the interface of its default route; no packet
    is sent), or ``127.0.0.1`` when it has none."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.254.254.254", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


def phone_can_open(url: str) -> bool:
    """Whether another device (a phone) can open ``url``: its host is not this machine's loopback
    (``127.0.0.1``, ``::1``, ``localhost``) nor the unspecified address ``0.0.0.0``; a host name
    other than ``localhost`` is taken to be one the phone resolves.  Only such a link gets a QR code
    (printed by ``treachery serve``, on the host page)."""
    host = (urllib.parse.urlsplit(url).hostname or "").rstrip(".")
    if host == "" or host == "localhost" or host.endswith(".localhost"):
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return True
    return not (address.is_loopback or address.is_unspecified)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the ``treachery serve`` options to the parser ``p``."""
    p.add_argument("--lan", action="store_true",
                   help="serve the local network (bind 0.0.0.0; links and QR codes use this machine's LAN address) "
                        "instead of this machine only")
    p.add_argument("--host", default=None, help="address to bind (default 127.0.0.1, or 0.0.0.0 with --lan)")
    p.add_argument("--port", type=int, default=8000,
                   help="port (default 8000; 0: a free one the system picks, which the printed links carry)")
    p.add_argument("--seats", default=None, metavar="SPEC,...",
                   help="create a table at start: a spec per seat, human or a bot (e.g. "
                        "human,human,heuristic,heuristic,heuristic; the number of seats is the number of players; "
                        "bots alone: a game to watch at the spectators' link); its links are printed (and the "
                        "seats' QR codes, with --lan or a network --host). "
                        "The game options below are this table's, as for treachery play (e.g. --game throne_magic "
                        "--holdings)")
    p.add_argument("--seed", type=int, default=None, help="the created table's seed (default: a fresh one)")
    add_game_arguments(p, players=False)
    p.add_argument("--bot", action="append", default=[], metavar="SPEC",
                   help="also offer this bot on the host page (repeat for more): a checkpoint such as "
                        "policy:runs/x/policy.pt; the page offers the rule-based bots and the shipped models "
                        "(treachery models) alone, as it takes requests from anyone who reaches the server")
    p.add_argument("--replay", nargs="+", default=(), metavar="FILE",
                   help="replay files to view step by step in the browser (a treachery play replay, say); their "
                        "links are printed")
    p.add_argument("--delay", type=float, default=DEFAULT_DELAY,
                   help=f"seconds of the pause after each public event, the bots' pace, 0 to {MAX_DELAY:g}; a bot's "
                        f"thinking time counts toward it (default {DEFAULT_DELAY})")
    p.add_argument("--max-tables", type=int, default=DEFAULT_MAX_TABLES, metavar="N",
                   help=f"open tables the server holds at most, from 1 to {MAX_TABLES:,}; one more is refused "
                        f"(503) until a game ends (default {DEFAULT_MAX_TABLES})")
    p.add_argument("--max-replays", type=int, default=DEFAULT_MAX_REPLAYS, metavar="N",
                   help=f"replays kept at most, finished games and --replay files, from 1 to {MAX_REPLAYS:,}; the "
                        f"oldest goes first (default {DEFAULT_MAX_REPLAYS})")
    p.add_argument("--idle-minutes", type=float, default=DEFAULT_IDLE_MINUTES, metavar="M",
                   help=f"close a table where no person connected or answered for M minutes (bots alone: that "
                        f"nobody watched), from 1 to {MAX_IDLE_MINUTES:g} (a week); a finished game's table closes "
                        f"once its pages are closed (or left open that long), its replay kept (default {DEFAULT_IDLE_MINUTES:g})")


def serve_cli(args: argparse.Namespace) -> int:
    """Run ``treachery serve`` (see :func:`add_arguments`) until Ctrl-C or SIGTERM (a SIGINT the
    process ignores at start, as ``treachery serve &`` in a script, stays ignored: :func:`uvicorn_server`).

    Returns:
        the exit status: as ``treachery play``'s, 130 after Ctrl-C and 143 after SIGTERM (the
        tables closed, a line on standard error saying so; :func:`training.interrupts.exit_status`),
        0 if the server stops otherwise, 2 for invalid options or a port that cannot be bound (one
        line on standard error).
    """
    if importlib.util.find_spec("uvicorn") is None:     # (uvicorn_server imports it)
        print("treachery serve: error: the web table needs FastAPI and uvicorn: pip install "
              "'treachery-toolkit[web]'", file=sys.stderr)
        return 2
    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    try:
        if not 0 <= args.port < 65536:
            raise ValueError(f"--port must be from 0 (a free one) to 65535, got {args.port}")
        given = game_options_given(args) + (["--seed"] if args.seed is not None else [])
        if given and not args.seats:
            raise ValueError(f"{', '.join(given)} set{'s' if len(given) == 1 else ''} the table of --seats; "
                             f"without it, create tables on the host page")
        for spec in args.bot:
            try:
                _check_bot(spec)
            except ValueError as err:
                raise ValueError(f"--bot {spec}: {err}") from None
        if not 1 <= args.idle_minutes <= MAX_IDLE_MINUTES:     # (a NaN compares false)
            raise ValueError(f"--idle-minutes must be a number of minutes from 1 to {MAX_IDLE_MINUTES:g} (a week; a "
                             f"table closes that long after nobody played at it: less closes tables before their "
                             f"links are opened, more holds its place for days), got {args.idle_minutes:g}")
        lobby = Lobby(delay=args.delay, bots=tuple(args.bot), max_tables=args.max_tables,
                      max_replays=args.max_replays, idle_minutes=args.idle_minutes)
        if len(args.replay) > args.max_replays:
            raise ValueError(f"--replay: {len(args.replay)} files, more than --max-replays {args.max_replays}")
        replays = {}
        for path in args.replay:
            try:
                text = open(path, encoding="utf-8").read()
            except OSError as err:
                raise ValueError(f"--replay: cannot read {path}: {os_reason(err)}") from None
            except UnicodeDecodeError as err:
                raise ValueError(f"--replay: cannot read {path}: {err}") from None
            try:
                replays[path] = lobby.add_replay(text)
            except ValueError as err:
                why = str(err).split("; from_json takes", 1)[0]     # the engine's hint is for Python callers
                raise ValueError(f"--replay {path}: {why}") from None
        created = None
        if args.seats:
            seats = lobby.check_seats(args.seats.split(","), CLI_FIELDS["seats"], trusted=True)
            for spec in dict.fromkeys(s for s in seats if s != HUMAN):     # a bad bot before the seat count
                try:
                    _check_bot(spec)
                except ValueError as err:
                    raise ValueError(f"{CLI_FIELDS['seats']}: {err}") from None
            config = game_config_from_args(args, num_players=len(seats), names=CLI_FIELDS)
            created = lobby.open(seats, config, args.seed, names=CLI_FIELDS)
        sock = _bind(host, args.port)
    except ValueError as err:
        print(f"treachery serve: error: {err}", file=sys.stderr)
        return 2
    shown = lan_address() if args.lan or host in ("0.0.0.0", "::") else host
    port = sock.getsockname()[1]        # the one bound: the system's pick for --port 0
    base = f"http://{f'[{shown}]' if ':' in shown else shown}:{port}"     # an IPv6 address is bracketed
    app = create_app(lobby, base_url=base)
    print(f"Treachery table server at {base}/  (create a table there; Ctrl-C stops the server)")
    for path, replay_id in replays.items():
        print(f"Replay of {path}: {base}/replay/{replay_id}")
    if created is not None:
        import segno
        # a drawn seed stays secret (it deals every identity); the replay records it once the game is over
        print(f"Table {created.id}" + ("" if created.given_seed is None else
                                       f", seed {created.given_seed} (given: whoever knows it knows every "
                                       f"identity)") + ":")
        for token, seat in created.tokens.items():
            url = f"{base}/seat/{token}"
            print(f"  {'spectators' if seat is None else f'P{seat}'}: {url}")
            if seat is not None and phone_can_open(url):   # a phone cannot open 127.0.0.1
                segno.make(url, error="m").terminal(compact=True)
        if not created.table.humans:
            print(f"  Bots alone: they play while the spectators' page is open; once the game ends, its replay: "
                  f"{base}/replay/{created.id}")
    server = uvicorn_server(app, log_level="warning")
    # uvicorn closes the tables on Ctrl-C or SIGTERM, then raises the signal again: an interrupt here
    old_handlers = catch_sigterm()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt as why:
        print(f"treachery serve: stopped ({signal_words(why)}); the tables are closed", file=sys.stderr)
        return exit_status(why)
    finally:
        restore_sigterm(old_handlers)
    return 0


def uvicorn_server(app: Any, **config: Any) -> Any:
    """A ``uvicorn.Server`` of the web table ``app`` (:func:`create_app`; ``config``: the
    ``uvicorn.Config`` options) that, when it stops (Ctrl-C), first closes the tables
    (:meth:`Lobby.close_all`), so each page is told :data:`SHUTTING_DOWN` with the closed table's
    code and stops reconnecting: uvicorn closes the open websockets (code 1012, a restart, after
    which a page would try again) before the app's lifespan ends.  A SIGINT the process ignores
    when it starts serving (``treachery serve &`` in a script) stays ignored, as in the other
    commands (:class:`training.interrupts.StopOnce`): uvicorn would catch it and stop."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: Any = None) -> None:
            await app.state.lobby.close_all(SHUTTING_DOWN)
            await super().shutdown(sockets)

        @contextlib.contextmanager
        def capture_signals(self) -> Any:       # uvicorn >= 0.29 catches SIGINT and SIGTERM here
            ignored = (threading.current_thread() is threading.main_thread()
                       and signal.getsignal(signal.SIGINT) is signal.SIG_IGN)
            with super().capture_signals():     # which gives the signals back their handlers after
                if ignored:
                    signal.signal(signal.SIGINT, signal.SIG_IGN)
                yield

    return Server(uvicorn.Config(app, **config))


def _check_bot(spec: str) -> None:
    """Make the bot ``spec`` once (its checkpoint read, its module imported), so a bad ``--bot`` fails
    at start.

    Raises:
        ValueError: from :func:`agents.make`; for ``human``.
    """
    import agents
    if spec.strip() == HUMAN:
        raise ValueError("a person's seat is not a bot")
    bot = agents.make(spec, seed=0)
    if hasattr(bot, "close"):
        bot.close()


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` for uvicorn (bound here, so a port in use is one clear line).

    Raises:
        ValueError: when it cannot be bound, naming ``--host`` for an address that is not this
            machine's (or no address), else ``--port`` (in use, no permission).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as err:
        sock.close()
        flag = f"--host {host}" if isinstance(err, socket.gaierror) or err.errno == errno.EADDRNOTAVAIL \
            else f"--port {port}"
        raise ValueError(f"{flag}: cannot listen on {host}:{port}: {os_reason(err)}") from None
    sock.set_inheritable(True)
    return sock
