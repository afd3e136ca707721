"""Play Treachery or Throne Magic against bots, or watch bots play, in the terminal (``treachery play``).

``treachery play --players 5 --opponents heuristic`` seats a person at a
:class:`~table.table.Table` of bots and drives it: the table plays the bots and the person's
automatic passes (:class:`~table.stops.Stops`, ``--stops``), and the person is asked
(:class:`agents.human.HumanAgent`) only when something concerns their seat.  The person sees
only their own seat's information: the events their seat may see, in words; the board as
their seat sees it (:func:`treachery_env.text.render_view`) at the first decision of each
turn and on ``b``; the text of every card, token and identity when it first appears in an
event (``? NAME`` reads any of them again); their identity (in Throne Magic their Role card) and
legal actions in words.  Every line is wrapped at the console's width (:func:`agents.human.wrap_text`).
Nothing else of the game is read before the end screen, which reveals every identity (or Role) and
the winners (:meth:`Table.reveal`), and the game's seed.  The game is saved as a replay
(``Game.to_json()``, loadable with ``Game.from_json``) at the end, and also when the person leaves
early (``q``, Ctrl-C or the end of the input), which then prints the seed (the game is over for them).

``treachery play --watch`` seats bots at every seat (``--opponents``, cycled) and shows their
game as a spectator sees it: the public events (:meth:`Table.events` of None), the public board
(:func:`~treachery_env.view.public_view`) at the start of each turn's first main phase
(:meth:`Table.public_moment`), face-down identities (in Throne Magic the Roles nobody has
revealed) hidden until they are revealed, then the same end screen and replay; Ctrl-C stops
watching (the replay is saved).

The person's seat may concede (``c`` at a prompt, confirmed; CR 104.3a); the bots never do.
The game starts with the mulligans of the table's config (CR 103.5, the London mulligan by
default): keep or mulligan, then the cards to put on the bottom, shown like any other decision.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import sys
import time
from pathlib import Path
from typing import IO, Any

import agents
from agents.files import check_folder, check_writable_file, os_reason
from training.interrupts import catch_sigterm, exit_status, restore_sigterm, signal_words

from .options import MAX_DELAY, add_game_arguments, check_delay, game_config_from_args
from .stops import Stops
from .table import HUMAN, Table, check_bots

__all__ = ["add_arguments", "play_cli", "TerminalGame", "QUIET_EVENTS", "END_MARKER", "game_words"]

QUIET_EVENTS = frozenset({"draw", "resolve", "unveil_cost", "reveal_all", "steps_ended"})
"""Log events not printed while playing: bookkeeping, or shown by the board and the end screen."""
END_MARKER = "GAME OVER"
"""The title of the end screen."""
NAMED_FIELDS = ("card", "identity", "name", "source", "token")
"""The fields of a log entry that may name a card, a token or an identity (their text is shown
the first time)."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the ``treachery play`` options to the parser ``p`` (the table options
    are :func:`table.options.add_game_arguments`)."""
    add_game_arguments(p)
    p.add_argument("--watch", action="store_true",
                   help="watch bots play every seat (--opponents, cycled), seeing what a spectator sees: the "
                        "public events and board, face-down identities hidden until revealed; Ctrl-C stops")
    p.add_argument("--seat", type=int, default=None,
                   help="your seat, 0 to players-1 (default: a random seat drawn from --seed)")
    p.add_argument("--opponents", default="heuristic",
                   help="comma-separated agent specs for the other seats (with --watch, every seat), cycled in "
                        "seat order: random, heuristic, belief, ismcts, lookahead, flagship, "
                        "policy:PATH[:greedy][:gate=T] (default heuristic)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the deal, the shuffles and the bots (default: a fresh one, printed at the end: it "
                        "tells every identity)")
    p.add_argument("--stops", default=None, metavar="STOPS",
                   help="when you are asked at a priority window: default (your main phases, being attacked "
                        "or targeted, another player's spell you can answer, an unveil, a truce offered "
                        f"to you), every (every decision), none, or a comma-separated list of "
                        f"{', '.join(Stops.names())}; other decisions (attackers, blockers, targets...) "
                        "are always asked")
    p.add_argument("--delay", type=float, default=0.3,
                   help=f"seconds to pause after each event shown, 0 to {MAX_DELAY:g} (default 0.3)")
    p.add_argument("--replay", default=None,
                   help="where the replay JSON goes: a new file (an existing one is never overwritten; one made "
                        "during the game keeps its name, the replay taking the next free one, NAME-2.json), or a "
                        "folder for a file named play-<date>-<time>-seed<seed>.json in it (default: that name in "
                        "runs/); the folders of the path that are missing are made when the replay is saved (a "
                        "game refused before it starts makes none)")


class TerminalGame:
    """One game of a person against bots, or of bots alone watched, in the terminal.

    Args:
        config: the game configuration (the table lets the person alone concede, CR 104.3a).
        seed: the game's seed (the deal and shuffles; bots are seeded from it).
        human_seat: the person's seat; None: nobody plays, the person watches as a spectator.
        opponent_specs: ``agents.make`` specs cycled over the other seats (every seat when
            watching) in seat order.
        input_stream: the person's answers (None: the terminal; unread when watching).
        console: the ``rich`` console to write to.
        delay: seconds to pause after each event shown (while the person's seat is in the game).
        replay_path: where the replay JSON is written: at the end, to the next free name
            (``name-2.json``, ...) if a file is there by then (:meth:`save_replay`).
        stops: the person's stops (default ``Stops()``).

    Raises:
        ValueError: for a seat out of range, no opponent spec, ``human`` among
            the opponents, an unknown or malformed spec (from ``agents.make``), a bot that does not
            play the game (:func:`~table.table.check_bots`), a policy trained
            for another table size (``agents.check_table``), or a delay out of range
            (:func:`~table.options.check_delay`).
    """

    def __init__(self, config, seed: int, human_seat: int, opponent_specs: list[str],
                 input_stream: IO[str] | None, console: Any, delay: float, replay_path: Path,
                 stops: Stops | None = None):
        from agents.human import HumanAgent

        n = config.num_players
        if human_seat is not None and not 0 <= human_seat < n:
            raise ValueError(f"--seat must be a seat from 0 to {n - 1}, got {human_seat}")
        specs = [s.strip() for s in opponent_specs]
        if not specs or not all(specs):
            raise ValueError(f"--opponents needs a comma-separated list of agent specs without empty ones, "
                             f"e.g. heuristic,random; got {','.join(opponent_specs)!r}")
        if any(agents.split_spec(s)[0] == HUMAN for s in specs):     # "Human" too: bot names in any case
            raise ValueError("--opponents: 'human' cannot be an opponent (one person plays, at --seat)"
                             if human_seat is not None else
                             "--opponents: 'human' cannot be a seat with --watch (bots play every seat)")
        check_delay(delay)
        try:
            check_bots(sorted(set(specs)), config)
        except ValueError as err:
            raise ValueError(f"--opponents: {err}") from None
        others = [s for s in range(n) if s != human_seat]
        seats = [HUMAN if k == human_seat else specs[others.index(k) % len(specs)] for k in range(n)]
        self.table = Table(seats, config, seed=seed, stops=stops)
        self.config, self.seed, self.human_seat = self.table.config, seed, human_seat
        self.labels = ["you" if s == HUMAN else s for s in seats]
        self.console, self.delay, self.replay_path = console, delay, Path(replay_path)
        self.human = HumanAgent(input_stream=input_stream, console=console)    # prints for the watcher too
        if human_seat is not None:
            self.human.reset(human_seat)
        self._seen = 0              # events of the person's stream already shown
        self._board_turn = -1       # the turn whose board was printed last
        self._turn_line: str | None = None     # a turn's "--- turn N: P ---", held back (_show_board)
        self._read: set[str] = set()     # names whose text was shown
        self.out = False
        """Whether the person's seat has left the game (lost or conceded)."""
        self.stopped_by: KeyboardInterrupt | None = None
        """The interrupt that stopped :meth:`run` (Ctrl-C; SIGTERM or SIGHUP under
        :func:`training.interrupts.catch_sigterm`), None while none has."""

    @property
    def watching(self) -> bool:
        """Whether the person watches a game of bots (no seat of theirs)."""
        return self.human_seat is None

    # ---------------------------------------------------------------- the game
    def run(self) -> str:
        """Play the game to its end (or until the person leaves), save the
        replay and show the end screen.  The person's board is shown at their first decision of a
        turn (their own prompt); watching, the public board is shown before the first turn and at
        the start of each turn's first main phase (:meth:`Table.public_moment`: a stop elsewhere
        would tell what some seat can do).  Either way the pause follows each event shown, not each
        of the table's stops, which hidden cards decide (the engine gives priority only to a seat
        that can do more than pass).

        Returns:
            ``"over"`` when the game ended, ``"left"`` when the person left
            (``q`` or the end of the input), ``"interrupted"`` for Ctrl-C (or SIGTERM, SIGHUP:
            :attr:`stopped_by` says which).

        Raises:
            agents.play.BotError: a bot's ``act`` raised or its action was refused (the
                replay so far is still saved); whatever else the table raises, likewise.
        """
        from agents.human import QuitGame

        table = self.table
        outcome = "left"
        try:
            self._header()          # in the try: a stop while it is written saves the replay too
            while not table.over:
                if self.watching and table.turn != self._board_turn and table.public_moment():
                    self._show_board(table.view(None), spectator=True)
                prompt = table.advance(max_steps=1)
                self._show_events()
                if prompt is not None:
                    if table.turn != self._board_turn:
                        # without its "you decide" line: the decision is asked right below
                        self._show_board(prompt.view, decision=False)
                    action = self.human.choose(prompt.view, prompt.reason)
                    table.answer(prompt.seat, action)
                    if any(o.action == action and o.kind == "concede" for o in prompt.view.decision.options):
                        self._line("You concede (CR 104.3a).", style="bold")
            outcome = "over"
        except (KeyboardInterrupt, EOFError, QuitGame) as why:
            if isinstance(why, KeyboardInterrupt):
                kind, outcome, self.stopped_by = signal_words(why), "interrupted", why
            else:
                kind = "end of input" if isinstance(why, EOFError) else "quit"
            self._line(f"\nYou {'stopped watching' if self.watching else 'left'} the game ({kind}) on turn "
                       f"{table.turn}.", style="bold")
        finally:
            self.save_replay()
            table.close()           # the bots; the game stays readable for the end screen
        if outcome == "over":
            self._show_events()
            self._end_screen()
        else:               # the game is over for the person who left: its seed may be told
            self._seed_line()
        self._line(f"Replay saved to {self.replay_path}", style="bold")
        return outcome

    def save_replay(self) -> None:
        """Write the game so far as replay JSON to ``replay_path``, atomically, creating its folder;
        if a file is there by then (another session that started in the same second with the same
        seed, say), to the next free name, which ``replay_path`` becomes: a replay never overwrites.

        Raises:
            OSError: if the file cannot be written.
        """
        self.replay_path = self.table.save_replay(self.replay_path)

    # ---------------------------------------------------------------- what the person sees
    def _show_board(self, view: Any, decision: bool = True, spectator: bool = False) -> None:
        """Print the board of the turn at hand (:meth:`HumanAgent.show_board`'s arguments); its
        header (``=== Turn 3: P2's turn, ... ===``) says the turn's start where the turn's own line
        (``--- turn 3: P2 ---``) is still held back, which is then not printed: the start of a turn
        is said once."""
        self._board_turn = self.table.turn
        self._turn_line = None
        self.human.show_board(view, decision=decision, spectator=spectator)

    def _say_turn(self) -> None:
        """Print the turn's line held back by :meth:`_show_events`, if any, and pause after it."""
        if self._turn_line is not None:
            text, self._turn_line = self._turn_line, None
            self.human.print_text(text, "bold cyan")
            self._pause()

    def _pause(self) -> None:
        """The delay after an event shown (while the person's seat is in the game, or watching)."""
        if self.delay and not self.out:
            time.sleep(self.delay)

    def _show_events(self) -> None:
        """Print the person's new events (and the text of cards seen for the first time), each
        followed by the delay (while the person's seat is in the game, or watching).  A turn's
        line is held back until something else is printed: a board shown first says the turn in
        its header (:meth:`_show_board`)."""
        new = self.table.events(self.human_seat, self._seen)
        self._seen += len(new)
        for ev in new:
            if ev.kind == "turn":
                self._say_turn()        # the turn before, where nothing else was printed in it
                self._turn_line = ev.text
            elif ev.kind not in QUIET_EVENTS:
                self._line(ev.text)
                self._first_sight(ev.data)
                self._pause()
            if ev.kind == "loses" and not self.watching and ev.data.get("seat") == self.human_seat:
                self.out = True     # no more pauses: nothing is asked of the person any more
                after = ("in Throne Magic a player who left never wins" if self.config.game == "throne_magic"
                         else "your team can still win")       # TR7.4; Throne Magic's "Winning the Game"
                self._line(f"You are out of the game; {after}. The game plays on to its end.", style="bold")

    def _first_sight(self, entry: Any) -> None:
        """Print the text of the cards, tokens and identities an event names for the first time."""
        from treachery_env.text import card_names, card_text

        for field in NAMED_FIELDS:
            name = entry.get(field)
            if isinstance(name, str) and name not in self._read and name in card_names():
                self._read.add(name)
                self._line("    " + card_text(name).replace("\n", "\n    "), style="dim")

    def _header(self) -> None:
        c = self.config
        seats = ", ".join(f"P{s}: {lab}" for s, lab in enumerate(self.labels))
        throne = c.game == "throne_magic"
        self.console.rule("Throne Magic" if throne else "Treachery")
        if self.watching:
            self._line(f"{c.num_players} players, {game_words(c)}. You watch the bots play.")
            self._line(f"Seats: {seats}")
            self._line(f"You see what a spectator sees: {'the Roles' if throne else 'face-down identities'} stay "
                       f"hidden until they are revealed; the end screen reveals them all. Ctrl-C stops watching (the "
                       f"game is saved).")
            return
        self._line(f"{c.num_players} players, {game_words(c)}. You are P{self.human_seat}.")
        self._line(f"Seats: {seats}")
        self._line(f"Type the number of an option and Enter; i shows your {'Role card' if throne else 'identity'}, "
                   "b the board, ? NAME a card's text, c concedes (asks first), q leaves the program (the game is "
                   "saved). Priority passes by itself unless something concerns you (--stops).")

    def _end_screen(self) -> None:
        """The reveal: every seat's player, identity, role, life and result in a table, or, where
        the table is wider than the console (it would cut its cells short), a wrapped line each."""
        from rich.table import Table as RichTable

        r = self.table.reveal()
        self._say_turn()
        self.console.rule(END_MARKER)
        throne = self.config.game == "throne_magic"        # Role cards and their types
        title = "Roles" if throne else "Identities"
        t = RichTable(title=title)
        for col in ("seat", "player", "Role" if throne else "identity", "types" if throne else "role", "life",
                    "result"):
            t.add_column(col)
        rows = []
        for s in r.seats:
            res = "won" if s.won else ("-" if r.truncated or not r.winners else "lost")
            rows.append((f"P{s.seat}", self.labels[s.seat], s.identity, s.role, str(s.life) if s.in_game else "out",
                         res))
            t.add_row(*rows[-1])
        wide = self.console.measure(t, options=self.console.options.update_width(10**4)).maximum   # not cut to fit
        if wide <= self.console.width:
            self.console.print(t)
        else:
            self._line(title, style="italic")
            for seat, player, identity, role, life, res in rows:
                self._line(f"{seat} ({player}): {identity} ({role}, life: {life}, result: {res})")
        if r.truncated:
            verdict = f"Draw: the turn limit ({self.config.max_turns}) was reached."
        elif not r.winners:
            verdict = "Draw: nobody won."
        else:
            verdict = "Winners: " + ", ".join(f"P{s}" for s in r.winners) + (
                "." if self.watching else " - you win!" if self.human_seat in r.winners else " - you lose.")
        self._line(verdict, style="bold")
        self._seed_line()

    def _seed_line(self) -> None:
        """Say the game's seed, once the game is over for the person (its end, or they left): it
        deals every identity (``treachery_env.env().reset(seed=...)`` would show them)."""
        self._line(f"Seed {self.seed}: --seed {self.seed} deals this game again.")

    def _line(self, text: str, style: str | None = None) -> None:
        """Print ``text`` wrapped to the console's width, as the person's prompts and options are
        (:meth:`HumanAgent.print_text`), after the turn's line held back, if any (:meth:`_say_turn`)."""
        self._say_turn()
        self.human.print_text(text, style)


def game_words(config: Any) -> str:
    """The game a :class:`~treachery_env.GameConfig` plays, in words, for the opening banner:
    Treachery's identity-deck variant, or Throne Magic's Roles method, Throne, Holdings and
    Seasons; then Commander or not and the CR 900 variants that are on, e.g. ``"Throne Magic:
    Roles by the Basic Game, a random Throne, Holdings, no Seasons, commander, Planechase (one
    planar deck)"``."""
    c = config
    if c.game == "throne_magic":
        roles = c.throne_roles
        method = {"basic": "the Basic Game", "random": "the Random method", "draft": "the Draft"}.get(roles) \
            if isinstance(roles, str) else f"the Sculpted method ({', '.join(roles)})"
        throne = {"random": "a random Throne", "king": "the Throne The King chooses"}.get(c.throne, c.throne)
        parts = [f"Throne Magic: Roles by {method}", throne, "Holdings" if c.holdings else "no Holdings",
                 "Seasons" if c.seasons else "no Seasons"]
    else:
        parts = [f"variant {c.variant}"]
    parts.append("commander" if c.commander else "no commander")
    if c.planechase is not None:
        parts.append("Planechase (" + ("one planar deck" if c.planechase == "single" else "a planar deck per player")
                     + ")")
    if c.vanguard is not None:
        parts.append("Vanguard (" + ("a random card per seat" if c.vanguard == "random" else ", ".join(c.vanguard))
                     + ")")
    if c.archenemy is not None:
        parts.append("Archenemy's Supervillain Rumble")
    return ", ".join(parts)


def play_cli(args: argparse.Namespace, input_stream: IO[str] | None = None, console: Any = None) -> int:
    """Run ``treachery play`` with parsed options (see :func:`add_arguments`).

    Args:
        args: the parsed options.
        input_stream: the person's answers, a line each (None: the terminal; unread with ``--watch``).
        console: a ``rich.console.Console`` (None: a new one on standard output).

    Returns:
        the exit status: 0 when the game ended or the person left it (``q``,
        end of input; the replay is saved either way), 130 after Ctrl-C, 143 after SIGTERM and
        129 after SIGHUP (a closed terminal), playing or watching (the replay is saved; 128 + the
        signal's number, :func:`training.interrupts.exit_status`), 1 when a bot failed in the game
        (its ``reset`` or ``act`` raised, or its action was refused), 2 for invalid options, refused
        before the game (a bot that cannot be made or refuses the table among them; the message
        goes to standard error).
    """
    from rich.console import Console

    from agents.play import BotError

    console = console if console is not None else Console(highlight=False)
    try:
        if args.watch:
            person = [flag for flag, given in (("--seat", args.seat is not None), ("--stops", args.stops is not None))
                      if given]
            if person:
                raise ValueError(f"{' and '.join(person)}: with --watch no person plays (bots play every seat)")
        config = game_config_from_args(args)
        try:
            stops = Stops.parse("default" if args.stops is None else args.stops)
        except ValueError as err:
            raise ValueError(f"--stops: {err}") from None
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31 - 1)
        if seed < 0:
            raise ValueError(f"--seed must be >= 0, got {seed}")
        seat = None if args.watch else args.seat if args.seat is not None else \
            random.Random(seed).randrange(config.num_players)
        if args.replay is not None and not args.replay.strip():     # as an empty --out is refused
            raise ValueError("--replay is empty; give a file, or a folder for a file named for the game")
        # a folder (existing, or named with a trailing slash) gets the default file name inside it
        try:
            folder = args.replay if args.replay and (Path(args.replay).is_dir()
                                                     or args.replay.endswith(("/", os.sep))) \
                else None if args.replay else "runs"
        except OSError as err:          # a name over the system's limits, say
            raise ValueError(f"--replay {args.replay!r} cannot be written: {os_reason(err)}") from None
        if folder:          # its errors name the folder: the file's name holds the seed, not told before the game
            if args.replay:
                check_folder(folder, "--replay")
            else:
                try:
                    check_folder(folder, "the default replay folder")
                except ValueError as err:
                    raise ValueError(f"{err}; --replay FILE or FOLDER saves the replay elsewhere") from None
            # taken by the end (another session's): the next free name (TerminalGame.save_replay)
            replay = str(Path(folder) / f"play-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}-seed{seed}.json")
        else:
            replay = args.replay
            if Path(replay).exists():          # nothing is lost: a replay never overwrites a file
                raise ValueError(f"--replay {replay!r} exists; give a new file name, or a folder for a file named "
                                 f"for the game")
            check_writable_file(replay, "--replay")
        session = TerminalGame(config, seed, seat, args.opponents.split(","), input_stream, console,
                               args.delay, Path(replay), stops)
    except BotError as err:             # a bot's reset raised as the game began: a runtime error, not a usage error
        print(f"treachery play: error: {err}", file=sys.stderr)
        return 1
    except ValueError as err:
        print(f"treachery play: error: {err}", file=sys.stderr)
        return 2
    old_handlers = catch_sigterm(hangup=True)      # `kill`, a closed terminal: stop as Ctrl-C does, the replay saved
    try:
        outcome = session.run()
    except BotError as err:
        print(f"treachery play: error: agent {session.labels[err.seat]!r}: {err} (the game so far is saved to "
              f"{session.replay_path})", file=sys.stderr)
        return 1
    finally:
        restore_sigterm(old_handlers)
    return exit_status(session.stopped_by) if outcome == "interrupted" else 0
