"""Play Treachery against bots in the terminal (``treachery play``, issue #6).

``treachery play --players 5 --opponents heuristic`` seats a person
(:class:`agents.human.HumanAgent`) at a table of bots and drives the
PettingZoo environment (:class:`treachery_env.env.raw_env`, rendering the
person's seat).  The person sees only their own seat's information: the board
as their seat sees it (``Game.render_text(seat)`` through ``env.render()``),
the events of the game log that their seat may see, their identity and their
legal actions in words.  Nothing else of the game is read before the end
screen, which reveals every identity and the winners.  The game is saved as a
replay (``Game.to_json()``, loadable with ``Game.from_json``) at the end, and
also when the person leaves early (``q``, Ctrl-C or the end of the input).

The person's seat may concede (``c`` at a prompt, confirmed): the table is
played with ``GameConfig.concession`` set to that seat alone, so the CONCEDE
action (CR 104.3a) is in the person's shown decisions and never in the bots'.
The game starts with the mulligans of the table's config (CR 103.5, the
London mulligan by default): keep or mulligan, then the cards to put on the
bottom, shown like any other decision.
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

from agents.files import atomic_write_bytes, check_writable_file

__all__ = ["add_arguments", "play_cli", "PlaySession"]

# log events not shown while playing: bookkeeping, or shown by the board / the end screen
QUIET_EVENTS = frozenset({"draw", "land", "resolve", "unveil_cost", "activate", "reveal_all", "steps_ended"})
END_MARKER = "GAME OVER"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the ``treachery play`` options to the parser ``p`` (the table options
    are :func:`training.cli.add_game_arguments`)."""
    from .cli import add_game_arguments

    add_game_arguments(p)
    p.add_argument("--seat", type=int, default=None,
                   help="your seat, 0 to players-1 (default: a random seat drawn from --seed)")
    p.add_argument("--opponents", default="heuristic",
                   help="comma-separated agent specs for the other seats, cycled in seat order: random, "
                        "heuristic, belief, ismcts, lookahead, policy:PATH[:greedy][:gate=T] (default heuristic)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the deal, the shuffles and the bots (default: a fresh one, printed)")
    p.add_argument("--delay", type=float, default=0.3,
                   help="seconds to pause after each bot action that shows something (default 0.3)")
    p.add_argument("--replay", default=None,
                   help="where the replay JSON goes: a file, or a folder for a file named "
                        "play-<date>-<time>-seed<seed>.json in it (default: that name in runs/)")


class PlaySession:
    """One game of a person against bots.

    Args:
        config: the game configuration; its ``concession`` is set to the
            person's seat alone (only the person may concede, CR 104.3a).
        seed: the environment seed (the deal and shuffles); bots are seeded from it.
        human_seat: the person's seat.
        opponent_specs: ``agents.make`` specs cycled over the other seats in seat order.
        input_stream: the person's answers (None: the terminal).
        console: the ``rich`` console to write to.
        delay: seconds to pause after a bot action that shows something.
        replay_path: where the replay JSON is written.

    Raises:
        ValueError: for a seat out of range, no opponent spec, ``human`` among
            the opponents, an unknown or malformed spec (from ``agents.make``), a policy trained
            for another table size (``agents.check_table``),
            or a negative delay.
    """

    def __init__(self, config, seed: int, human_seat: int, opponent_specs: list[str],
                 input_stream: IO[str] | None, console: Any, delay: float, replay_path: Path):
        import agents
        from agents.human import HumanAgent

        n = config.num_players
        if not 0 <= human_seat < n:
            raise ValueError(f"--seat must be a seat from 0 to {n - 1}, got {human_seat}")
        specs = [s.strip() for s in opponent_specs]
        if not specs or not all(specs):
            raise ValueError(f"--opponents needs a comma-separated list of agent specs without empty ones, "
                             f"e.g. heuristic,random; got {','.join(opponent_specs)!r}")
        if any(s.partition(":")[0] == "human" for s in specs):
            raise ValueError("--opponents: 'human' cannot be an opponent (one person plays, at --seat)")
        if delay < 0:
            raise ValueError(f"--delay must be >= 0, got {delay}")
        # only the person may concede (CR 104.3a); the bots' seats never see the action
        self.config = config.replace(concession=(human_seat,))
        self.seed, self.human_seat = seed, human_seat
        self.console, self.delay, self.replay_path = console, delay, Path(replay_path)
        self.human = HumanAgent(input_stream=input_stream, console=console)
        self.labels: list[str] = []
        self.bots: list[Any] = []
        others = [s for s in range(n) if s != human_seat]
        for seat in range(n):
            if seat == human_seat:
                self.bots.append(self.human)
                self.labels.append("you")
                continue
            spec = specs[others.index(seat) % len(specs)]
            bot = agents.make(spec, seed=seed * 1000 + seat)
            agents.check_table(bot, spec, n, self.config)
            self.bots.append(bot)
            self.labels.append(spec)
        self.env = None
        self._seen = 0              # log entries already considered for display
        self._board = ""            # the last board printed

    # ---------------------------------------------------------------- the game
    def run(self) -> str:
        """Play the game to its end (or until the person leaves), save the
        replay and show the end screen.

        Returns:
            ``"over"`` when the game ended, ``"left"`` when the person left
            (``q``, Ctrl-C or the end of the input).

        Raises:
            agents.play.BotError: a bot's ``act`` raised or its action was refused (the
                replay so far is still saved); whatever else the environment raises, likewise.
        """
        from agents.human import QuitGame
        from agents.play import apply_action, bot_action
        from treachery_env.env import raw_env

        self.env = env = raw_env(config=self.config, render_mode="ansi", render_seat=self.human_seat)
        env.reset(seed=self.seed)
        for seat, bot in enumerate(self.bots):
            bot.reset(seat)
        self._header()
        outcome = "left"
        out = False
        try:
            for name in env.agent_iter():
                obs, _, term, trunc, info = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                seat = env.possible_agents.index(name)
                if seat == self.human_seat:
                    self._show_events()
                    self._show_board()
                    action = self.human.act(obs, info)
                    env.step(action)
                    if action == env.layout.CONCEDE:
                        self._line("You concede (CR 104.3a).", style="bold")
                else:
                    bot = self.bots[seat]
                    apply_action(env, bot, seat, bot_action(bot, seat, obs, info, env.game.turn))
                    if self._show_events() and self.delay and not out:
                        time.sleep(self.delay)
                if not out and env.game.players[self.human_seat].has_lost:
                    out = True     # no more pauses: nothing is asked of the person any more
                    self._line("You are out of the game; your team can still win. The game plays on to its end.",
                               style="bold")
            outcome = "over"
        except (KeyboardInterrupt, EOFError, QuitGame) as why:
            kind = {KeyboardInterrupt: "Ctrl-C", EOFError: "end of input"}.get(type(why), "quit")
            self._line(f"\nYou left the game ({kind}) on turn {env.game.turn}.", style="bold")
        finally:
            self.save_replay()
        if outcome == "over":
            self._show_events()
            self._end_screen()
        self._line(f"Replay saved to {self.replay_path}", style="bold")
        env.close()
        return outcome

    def save_replay(self) -> None:
        """Write the game so far as replay JSON (``Game.to_json()``) to
        ``replay_path``, atomically, creating its folder.

        Raises:
            OSError: if the file cannot be written.
        """
        if self.env is None or self.env.game is None:
            return
        atomic_write_bytes(self.replay_path, self.env.game.to_json().encode())

    # ---------------------------------------------------------------- what the person sees
    def _visible(self, entry: dict) -> bool:
        return entry["to"] is None or self.human_seat in entry["to"]

    def _show_events(self) -> bool:
        """Print the new log entries the person's seat may see; True if any."""
        from treachery_env.text import format_event

        log = self.env.game.log
        shown = False
        for e in log[self._seen:]:
            if self._visible(e) and e["event"] not in QUIET_EVENTS:
                self._line(format_event(e), style="bold cyan" if e["event"] == "turn" else None)
                shown = True
        self._seen = len(log)
        return shown

    def _show_board(self) -> None:
        """Print the board as the person's seat sees it, when it changed."""
        board = self.env.render()       # Game.render_text(human seat)
        if board != self._board:
            self._board = board
            self._line("")
            self._line(board)

    def _header(self) -> None:
        c = self.config
        table = ", ".join(f"P{s}: {lab}" for s, lab in enumerate(self.labels))
        self.console.rule("Treachery")
        self._line(f"{c.num_players} players, variant {c.variant}, {'commander' if c.commander else 'no commander'}, "
                   f"seed {self.seed}. You are P{self.human_seat}.")
        self._line(f"Seats: {table}")
        self._line("Type the number of an option and Enter; i shows your identity, c concedes (asks first), "
                   "q leaves the program (the game is saved).")

    def _end_screen(self) -> None:
        from rich.table import Table

        g = self.env.game
        self.console.rule(END_MARKER)
        t = Table(title="Identities")
        for col in ("seat", "player", "identity", "role", "life", "result"):
            t.add_column(col)
        for p in g.players:
            res = "won" if p.seat in g.winners else ("-" if g.truncated or not g.winners else "lost")
            t.add_row(f"P{p.seat}", self.labels[p.seat], p.identity.name, p.role.name.title(),
                      "out" if p.has_lost else str(p.life), res)
        self.console.print(t)
        if g.truncated:
            verdict = f"Draw: the turn limit ({self.config.max_turns}) was reached."
        elif not g.winners:
            verdict = "Draw: nobody won."
        else:
            verdict = "Winners: " + ", ".join(f"P{s}" for s in sorted(g.winners)) + (
                " - you win!" if self.human_seat in g.winners else " - you lose.")
        self._line(verdict, style="bold")

    def _line(self, text: str, style: str | None = None) -> None:
        from rich.text import Text
        self.console.print(Text(text, style=style or ""), soft_wrap=True)


def _fresh_path(stem: str, suffix: str) -> str:
    """``stem + suffix``, or ``stem-2 + suffix``, ``stem-3``... if taken (never overwrite a replay)."""
    path, k = f"{stem}{suffix}", 1
    while Path(path).exists():
        k += 1
        path = f"{stem}-{k}{suffix}"
    return path


def play_cli(args: argparse.Namespace, input_stream: IO[str] | None = None, console: Any = None) -> int:
    """Run ``treachery play`` with parsed options (see :func:`add_arguments`).

    Args:
        args: the parsed options.
        input_stream: the person's answers, a line each (None: the terminal).
        console: a ``rich.console.Console`` (None: a new one on standard output).

    Returns:
        the exit status: 0 when the game ended or the person left it (``q``,
        Ctrl-C, end of input; the replay is saved either way), 2 for invalid
        options (the message goes to standard error).
    """
    from rich.console import Console

    console = console if console is not None else Console(highlight=False)
    try:
        from .cli import game_config_from_args
        config = game_config_from_args(args)
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31 - 1)
        if seed < 0:
            raise ValueError(f"--seed must be >= 0, got {seed}")
        seat = args.seat if args.seat is not None else random.Random(seed).randrange(config.num_players)
        # a folder (existing, or named with a trailing slash) gets the default file name inside it
        folder = args.replay if args.replay and (Path(args.replay).is_dir() or args.replay.endswith(("/", os.sep))) \
            else None if args.replay else "runs"
        replay = _fresh_path(str(Path(folder) / f"play-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}"
                                 f"-seed{seed}"), ".json") if folder else args.replay
        check_writable_file(replay, "--replay")
        session = PlaySession(config, seed, seat, args.opponents.split(","), input_stream, console,
                              args.delay, Path(replay))
    except ValueError as err:
        print(f"treachery play: error: {err}", file=sys.stderr)
        return 2
    from agents.play import BotError
    try:
        session.run()
    except BotError as err:
        print(f"treachery play: error: agent {session.labels[err.seat]!r}: {err} (the game so far is saved to "
              f"{replay})", file=sys.stderr)
        return 1
    return 0
