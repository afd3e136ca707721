"""The one table API under every way of playing: seats, bots, prompts, answers, events, the reveal.

A :class:`Table` seats people (``"human"``) and bots (any :func:`agents.make` spec) at one
game and runs it as an event-driven loop a front end drives:

- :meth:`Table.advance` plays bots (and the people's automatic passes, :mod:`table.stops`)
  until a person must decide, and returns that :class:`Prompt`;
- :meth:`Table.answer` applies a person's answer, or refuses it with a one-line
  :class:`TableError` and changes nothing;
- :meth:`Table.think` and :meth:`Table.play_bot` are a bot's decision in two halves (the web
  table thinks in a worker thread, so a slow bot does not hold up the pages);
- :meth:`Table.events` is a seat's stream of the events it may see (a spectator's: the
  public ones), :meth:`Table.view` its information set now
  (:class:`~treachery_env.view.SeatView`); :meth:`Table.public_moment` says when the
  spectators' view may be shown without its moment telling anything hidden;
- :meth:`Table.reveal` is the end screen (every identity; refused while the game runs),
  :meth:`Table.replay_json` the replay.

The terminal (``treachery play``, :mod:`table.terminal`) sits on it.  A front end gives a
person nothing but the prompts, views and events of that person's seat: all of them are
built from the seat's information set (DESIGN sections 4-5), so a UI that forwards them
cannot leak a face-down identity or another hand.  The table holds the game itself
(``Game``) privately; nothing it returns refers to it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple, Sequence

from treachery_env import GameConfig
from treachery_env.view import FrozenDict, SeatView, ViewBuilder, freeze, public_view
from treachery_env.words import with_article

from .stops import Stops, pass_option

__all__ = ["Table", "Prompt", "TableEvent", "TableError", "Reveal", "SeatReveal", "HUMAN", "check_bots", "bot_seeds"]

HUMAN = "human"
"""The seat spec of a person (a seat answered through :meth:`Table.answer`)."""


def bot_seeds(seed: int, num_players: int) -> list[int]:
    """The seeds a table of ``num_players`` makes its bots with, seat by seat, from the game's
    ``seed``: the same for the same seed (``treachery play --seed S`` plays the same game), and
    none of them gives the seed back, which deals every identity.  They come from scrypt, a
    memory-hard hash (8 MiB and some 30 ms a seed here), so a bot that wanted the game's seed
    from its own would have to hash candidate seeds one by one: about two CPU-years for the
    2**31 seeds a table draws from (``treachery serve`` and ``treachery play`` without
    ``--seed``); a seed a person chose is only as secret as it is hard to guess."""
    key = hashlib.scrypt(str(seed).encode(), salt=b"treachery table bot seeds", n=2**13, r=8, p=1,
                         dklen=8 * num_players)
    return [int.from_bytes(key[8 * k:8 * k + 8], "little") % (2**31 - 1) for k in range(num_players)]


def check_bots(specs: Sequence[str], config: Any) -> None:
    """Refuse a bot that does not play the game of ``config`` (a
    :class:`~treachery_env.GameConfig`; :func:`agents.throne.plays`); ``"human"`` seats pass.

    Raises:
        ValueError: ``"'ismcts' does not play Throne Magic; its bots: heuristic, belief, random"``
            (or "... does not play the CR 900 variants ...") for the first such spec.
    """
    variants = config.has_variant_blocks
    from agents.throne import plays
    other = [s for s in specs if s != HUMAN and not plays(s, config.game, variants)]
    if other:
        from agents.throne import BOTS
        what = "Throne Magic" if config.game == "throne_magic" else "the CR 900 variants (Planechase, Vanguard, schemes)"
        raise ValueError(f"{other[0]!r} does not play {what}; its bots: {', '.join(BOTS)}")


class TableError(ValueError):
    """An answer or a request the table refuses (one line; nothing changed)."""


class Prompt(NamedTuple):
    """A decision a person must answer.

    Attributes:
        seat: the deciding seat.
        number: the table's prompt counter (1 for the first prompt of the game), so a front end
            can tell an answer to an old prompt from one to this.
        view: the seat's information set with the pending decision (``view.decision``:
            the prompt and every legal action as an :class:`~treachery_env.view.OptionView`).
        reason: why it is asked, in words (a stop's reason, :meth:`Stops.reason`).
    """

    seat: int
    number: int
    view: SeatView
    reason: str


class TableEvent(NamedTuple):
    """One entry of a seat's event stream.

    Attributes:
        number: its position in that seat's stream, from 0.
        turn: the game turn it happened in (0 for the deal and the mulligans).
        kind: the log event's name (``"cast"``, ``"unveil"``, ...).
        text: the event in words (:func:`treachery_env.text.format_event`).
        data: the log entry, read-only (a :class:`~treachery_env.view.FrozenDict`, JSON-able).
    """

    number: int
    turn: int
    kind: str
    text: str
    data: FrozenDict


class SeatReveal(NamedTuple):
    """One seat at the end of the game (:meth:`Table.reveal`).

    Attributes:
        seat: the seat.  label: ``"human"`` or the bot's spec.
        identity: its identity card's name (the last it controlled).  role: that card's role name.
            In Throne Magic (:attr:`Reveal.game`) its Role card's name and the card's types
            ("Claimant, Good"; "no type").
        dealt: the identity it was dealt.  life: its life total.  in_game: not out of the game.
        won: whether it is among the winners.
    """

    seat: int
    label: str
    identity: str
    role: str
    dealt: str
    life: int
    in_game: bool
    won: bool


class Reveal(NamedTuple):
    """The end of a game: every seat's identity and the result (CR 907.9 reveals them all).

    Attributes:
        seats: a :class:`SeatReveal` per seat.  winners: the winning seats (sorted).
        truncated: the turn limit ended the game (a draw).  turns: turns played.
        game: the game (``GameConfig.game``): in ``"throne_magic"`` a seat's identity is its Role
            card and its role the card's types.
    """

    seats: tuple
    winners: tuple
    truncated: bool
    turns: int
    game: str = "treachery"


class Table:
    """A game with people and bots, driven by a front end.

    Args:
        seats: per seat, ``"human"`` (:data:`HUMAN`) or a bot spec for :func:`agents.make`.
        config: the game's configuration (default: ``GameConfig(num_players=len(seats))``); its
            ``concession`` is replaced: the people may concede (the CONCEDE action, CR 104.3a),
            the bots never.
        seed: the game's seed (the deal and the shuffles; bot ``k`` is made with seed
            ``bot_seeds(seed, n)[k]``, which does not give the game's seed back).
        stops: the people's stops (:class:`Stops`): one for all, or a dict seat -> Stops
            (default: ``Stops()`` for each).

    Raises:
        ValueError: for fewer or more seats than ``config.num_players``, a seed below 0, a
            stops seat that is not a person's, or a bot spec :func:`agents.make` refuses, that
            does not play the game (:func:`check_bots`: Throne Magic's bots) or that cannot play
            this table (:func:`agents.check_table`); :class:`agents.play.BotError` (a ValueError, one
            line) naming the seat's spec, for a bot whose ``reset`` raises.
    """

    def __init__(self, seats: Sequence[str], config: GameConfig | None = None, seed: int = 0,
                 stops: "Stops | dict[int, Stops] | None" = None):
        import agents
        from agents.play import BotError, bot_call
        from treachery_env.env import raw_env

        seats = [str(s).strip() for s in seats]
        config = config if config is not None else GameConfig(num_players=len(seats))
        if len(seats) != config.num_players:
            raise ValueError(f"{len(seats)} seats for {with_article(f'{config.num_players}-player')} game")
        if not isinstance(seed, int) or seed < 0:
            raise ValueError(f"the seed must be an int >= 0, got {seed!r}")
        check_bots(seats, config)
        self.labels: tuple[str, ...] = tuple(seats)
        self.humans: tuple[int, ...] = tuple(k for k, s in enumerate(seats) if s == HUMAN)
        self.config = config.replace(concession=self.humans)
        self.seed = seed
        if stops is None or isinstance(stops, Stops):
            self.stops = {k: stops or Stops() for k in self.humans}
        else:
            bad = sorted(set(stops) - set(self.humans))
            if bad:
                raise ValueError(f"stops for seat(s) {bad}, which are not people's seats {list(self.humans)}")
            self.stops = {k: stops.get(k, Stops()) for k in self.humans}
        self._bots: dict[int, Any] = {}
        try:
            for k, (spec, bot_seed) in enumerate(zip(seats, bot_seeds(seed, config.num_players))):
                if spec != HUMAN:
                    bot = agents.make(spec, seed=bot_seed)
                    self._bots[k] = bot
                    agents.check_table(bot, spec, config.num_players, self.config)
            self._env = raw_env(config=self.config, view_in_info=True)
            self._env.reset(seed=seed)
            for k, bot in self._bots.items():
                if hasattr(bot, "check_config"):     # a trained policy: warns once if trained on another game
                    bot.check_config(self.config)
                try:
                    bot_call(bot, k, self._env.game.turn, bot.reset, k)
                except BotError as err:     # named as the seat's spec, as the CLI and the lobby name seats
                    raise BotError(f"agent {seats[k]!r}: {err}", k) from err
        except BaseException:
            self.close()
            raise
        self._views = ViewBuilder(self._env.game)
        n = config.num_players
        self._streams: list[list[TableEvent]] = [[] for _ in range(n + 1)]   # seats, then the spectators
        self._logged = 0
        self._cursor = {k: 0 for k in self.humans}          # stream position at the seat's last decision
        self._seen_stack = {k: frozenset() for k in self.humans}
        self._seen_combat = {k: frozenset() for k in self.humans}
        self._prompt: Prompt | None = None
        self.prompts = 0
        """Prompts asked so far (all people together)."""
        self.asked = {k: 0 for k in self.humans}
        """Per person's seat: decisions asked."""
        self.automatic = {k: 0 for k in self.humans}
        """Per person's seat: decisions answered by the stops (passes, single options)."""
        self.bot_actions = 0
        """Actions the bots took so far."""
        self._collect()

    # ------------------------------------------------------------------ state
    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self._env.game.is_over

    @property
    def prompt(self) -> Prompt | None:
        """The person's decision the table waits for, else None."""
        return self._prompt

    @property
    def turn(self) -> int:
        """The game's turn (0 during the mulligans)."""
        return self._env.game.turn

    def view(self, seat: int | None) -> SeatView:
        """``seat``'s information set now (with its pending decision when it is deciding); for
        None, the spectators' (:func:`~treachery_env.view.public_view`: public facts only).

        Raises:
            TableError: for a seat not at the table.
        """
        if seat is None:
            return public_view(self._env.game)
        self._check_seat(seat)
        return self._views.build(seat)

    def events(self, seat: int | None, since: int = 0) -> list[TableEvent]:
        """The events ``seat`` may see, from position ``since`` of its stream (None: a spectator,
        who sees the public events only).

        Raises:
            TableError: for a seat not at the table or a negative ``since``.
        """
        if seat is not None:
            self._check_seat(seat)
        if not isinstance(since, int) or since < 0:
            raise TableError(f"since must be an int >= 0, got {since!r}")
        return self._streams[self._stream(seat)][since:]

    def public_moment(self) -> bool:
        """Whether a spectator's board (:meth:`view` of None) shown now, the first time this is true
        in a turn (or before the first turn), tells nothing hidden by its moment: true at a decision
        before the first turn (the mulligans, a Draft: the game's options say there are some) and at
        a turn's decisions from its first main phase on with an empty stack.

        The engine gives priority only to a seat that can do more than pass (an instant it can
        cast, a face-down identity it can unveil), so which steps the table stops in depends on
        hidden cards, and a board shown at every stop would tell them.  The first of these
        decisions in a turn is, in every deal of the same public game, the active player's at the
        start of its first main phase: with table talk that player can always speak there.  Without
        talk, in a turn whose active player has nothing to play then, it comes later, at a step
        that tells that some seat could act."""
        g = self._env.game
        return g.turn == 0 or (g.phase not in ("untap", "upkeep", "draw") and not g.stack)

    # ------------------------------------------------------------------ the loop
    def advance(self, max_steps: int | None = None) -> Prompt | None:
        """Play the bots' decisions and the people's automatic ones until a person must
        decide, the game ends, or ``max_steps`` decisions were played (a front end that
        paces the bots plays one at a time).

        Returns:
            the pending :class:`Prompt`, or None (the game is over, or ``max_steps`` were played).

        Raises:
            agents.play.BotError: a bot's ``act`` raised or its action was refused (one line;
                the game stays where it was).
        """
        env = self._env
        steps = 0
        while self._prompt is None and not self.over and (max_steps is None or steps < max_steps):
            if self.deciding_bot is not None:
                self._play_bot(self.think())
            else:
                seat = env.possible_agents.index(env.agent_selection)
                view = env.last(observe=False)[4]["view"]      # a person's seat needs only its view
                reason = self._reason(seat, view)
                if reason is not None:
                    self.prompts += 1
                    self.asked[seat] += 1
                    self._prompt = Prompt(seat, self.prompts, view, reason)
                    break
                action = pass_option(view)
                if action is None:       # a decision with a single option
                    action = next(o.action for o in view.decision.options if o.kind != "concede")
                self._decided(seat, view)
                env.step(action)
                self.automatic[seat] += 1
            steps += 1
            self._collect()
        return self._prompt

    @property
    def deciding_bot(self) -> int | None:
        """The seat of the bot whose decision the game waits for, else None (a person's, or the game
        is over)."""
        if self.over or self._prompt is not None:
            return None
        env = self._env
        seat = env.possible_agents.index(env.agent_selection)      # while the game runs, a seat in it
        return seat if seat in self._bots else None

    def think(self) -> int:
        """The action the bot of :attr:`deciding_bot` chooses now, not played (:meth:`play_bot` plays
        it).  It reads the game and changes nothing but that bot's own state, so a front end may run
        it in a worker thread (a slow bot holds up no one else) while nothing changes the game.

        Raises:
            TableError: when no bot decides now.
            agents.play.BotError: the bot's ``act`` raised (one line).
        """
        from agents.play import bot_action

        seat = self._deciding_bot()
        obs, _, _, _, info = self._env.last()
        return bot_action(self._bots[seat], seat, obs, info, self._env.game.turn)

    def play_bot(self, action: int) -> None:
        """Play ``action`` (:meth:`think`'s) for the bot of :attr:`deciding_bot`.

        Raises:
            TableError: when no bot decides now.
            agents.play.BotError: the action was refused (one line; the game stays where it was).
        """
        self._deciding_bot()
        self._play_bot(action)
        self._collect()

    def answer(self, seat: int, action: Any) -> None:
        """Apply ``seat``'s answer to its pending prompt (then call :meth:`advance`).

        Args:
            seat: the answering seat.
            action: one of the prompt's option actions (an int; a bool, float or string is refused).

        Raises:
            TableError: the game is over, no answer is awaited from ``seat``, or ``action`` is not
                an int among the prompt's options; the game is unchanged.
        """
        if self.over:
            raise TableError("the game is over: no answer is awaited")
        p = self._prompt
        if p is None or p.seat != seat:      # not whom the table waits for: that may be another seat's secret
            raise TableError(f"P{seat} has no decision to make now")
        if type(action) is not int:
            raise TableError(f"an answer is an option's action number (an int), got {action!r}")
        legal = {o.action for o in p.view.decision.options}
        if action not in legal:
            raise TableError(f"{action} is not one of P{seat}'s options for {p.view.decision.question()!r}; "
                             f"the options are {sorted(legal)}")
        self._decided(seat, p.view)
        self._prompt = None
        self._env.step(action)
        self._collect()

    def set_stops(self, seat: int, stops: Stops) -> None:
        """Change a person's stops (from the next decision on).

        Raises:
            TableError: for a seat that is not a person's, or stops that are not a :class:`Stops`.
        """
        if seat not in self.stops:
            raise TableError(f"P{seat} is not a person's seat (people: {list(self.humans)})")
        if not isinstance(stops, Stops):
            raise TableError(f"stops must be a Stops, got {type(stops).__name__}")
        self.stops[seat] = stops

    # ------------------------------------------------------------------ the end
    def reveal(self) -> Reveal:
        """Every seat's identity and the result.

        Raises:
            TableError: while the game runs (identities stay hidden until it ends).
        """
        if not self.over:
            raise TableError("the identities are revealed when the game ends")
        g = self._env.game
        if g.social is not None:        # Throne Magic: each seat's Role card, its types as the role
            from treachery_env import throne_roles
            seats = tuple(SeatReveal(p.seat, self.labels[p.seat], r, ", ".join(sorted(throne_roles.get(r).types))
                                     or "no type", r, p.life, not p.has_lost, p.seat in g.winners)
                          for p, r in zip(g.players, g.social.roles))
            return Reveal(seats, tuple(sorted(g.winners)), bool(g.truncated), g.turn, "throne_magic")
        dealt = {e["seat"]: e["identity"] for e in g.log if e["event"] == "deal"}
        seats = tuple(SeatReveal(p.seat, self.labels[p.seat], p.identity.name, p.role.name.title(),
                                 dealt.get(p.seat, p.identity.name), p.life, not p.has_lost, p.seat in g.winners)
                      for p in g.players)
        return Reveal(seats, tuple(sorted(g.winners)), bool(g.truncated), g.turn)

    def replay_json(self) -> str:
        """The game so far as replay JSON (``Game.to_json()``, with ``"seats"``: who sat where, the
        seats' labels, and ``"table_seed"``: this table's seed, which ``treachery play --seed`` and a
        table take to deal the game again; its ``"seed"`` is the engine's, ``Game(config, seed)``'s,
        which the environment draws from the table's); ``Game.from_json`` loads it.  It holds every
        hidden fact: give it to people at the end only."""
        d = json.loads(self._env.game.to_json())
        d["seats"] = list(self.labels)
        d["table_seed"] = self.seed
        return json.dumps(d)

    def save_replay(self, path: Any) -> Path:
        """Write :meth:`replay_json` to ``path``, or to the next free name (``path-2.json``, ...) if
        a file is there by then (another session's, say): never over a file, the write atomic
        (:func:`agents.files.write_new_file`), its folder created.

        Returns:
            the path written.

        Raises:
            OSError: if the file cannot be written.
        """
        from agents.files import write_new_file
        return write_new_file(path, self.replay_json().encode())

    def close(self) -> None:
        """Release the bots (the processes of isolated ones).  The game stays readable: its
        events, views, reveal and replay."""
        for bot in getattr(self, "_bots", {}).values():
            if hasattr(bot, "close"):
                bot.close()

    def __enter__(self) -> "Table":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------ pieces
    def _check_seat(self, seat: Any) -> None:
        if type(seat) is not int or not 0 <= seat < self.config.num_players:
            raise TableError(f"no seat {seat!r} at this table (seats 0 to {self.config.num_players - 1})")

    def _deciding_bot(self) -> int:
        seat = self.deciding_bot
        if seat is None:
            raise TableError("no bot decides now" + (": the game is over" if self.over else ""))
        return seat

    def _play_bot(self, action: int) -> None:
        from agents.play import apply_action

        seat = self.deciding_bot
        apply_action(self._env, self._bots[seat], seat, action)
        self.bot_actions += 1

    def _stream(self, seat: int | None) -> int:
        return self.config.num_players if seat is None else seat

    def _collect(self) -> None:
        """Deal the game's new log entries into the seats' and the spectators' streams."""
        from treachery_env.text import format_event

        log = self._env.game.log
        n = self.config.num_players
        for e in log[self._logged:]:
            to = e["to"]
            entry = freeze(e)
            text = format_event(e)
            for k in (range(n + 1) if to is None else to):
                stream = self._streams[k]
                stream.append(TableEvent(len(stream), e["turn"], e["event"], text, entry))
        self._logged = len(log)

    def _reason(self, seat: int, view: SeatView) -> str | None:
        new = [ev.data for ev in self._streams[seat][self._cursor[seat]:]]
        return self.stops[seat].reason(view, new, self._seen_stack[seat], self._seen_combat[seat])

    def _decided(self, seat: int, view: SeatView) -> None:
        """Remember what ``seat`` has been shown or passed by: the stops ask about new things only."""
        self._cursor[seat] = len(self._streams[seat])
        self._seen_stack[seat] = self._seen_stack[seat] | {s.uid for s in view.stack}
        if view.phase in ("declare_attackers", "declare_blockers", "first_strike_damage", "combat_damage",
                          "combat_end"):
            self._seen_combat[seat] = self._seen_combat[seat] | {(view.turn, view.active)}
