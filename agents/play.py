"""Play games between bots through the PettingZoo environment."""

from __future__ import annotations

import os
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Sequence

from treachery_env import GameConfig
from treachery_env.env import raw_env
from treachery_env.rules import Role

from .base import Agent

__all__ = ["BotError", "GameResult", "play_game", "game_steps", "run_games", "bot_action", "bot_call", "apply_action",
           "refused_action", "bot_class", "first_line", "what_raised", "method_failure", "face_down_opponents"]


class BotError(ValueError):
    """A bot failed in a game: a method the game calls (``act``, ``reset``, ``beliefs``) raised,
    or it chose an action the environment refused.  One line naming the seat, the bot and what it did (what it raised
    and where, :func:`what_raised`); the original exception is its ``__cause__``; ``seat`` is
    the bot's seat (-1 where none is given)."""

    def __init__(self, message: str, seat: int = -1):
        super().__init__(message)
        self.seat = seat


@dataclass
class GameResult:
    """Outcome of one game.

    Attributes:
        seed: the environment seed.
        winners: winning seats (empty for a draw or a truncation).
        truncated: whether ``max_turns`` ended it.
        dealt_roles: each seat's role as dealt: a :class:`~treachery_env.rules.Role`, or in
            Throne Magic (``GameConfig(game="throne_magic")``) the name of its Role card.
        roles: each seat's final role (its last-known role if it left), likewise.
        rewards: each seat's final reward (+1 / -1 / 0).
        decisions: decisions taken by the bots.
        turns: turns played.
        beliefs: per decision of a bot with ``beliefs()``, ``(turn, seat,
            {seat: {Role: p}})`` when ``record_beliefs`` was set.
        true_roles_at: per recorded belief, the true roles of that moment.
        face_down_at: per recorded belief, the seats it is about (:func:`face_down_opponents`
            of that moment): a belief about the others (the Leader, a revealed identity, a seat
            out of the game, the observer's own) says nothing, their roles being known.
    """

    seed: int
    winners: set
    truncated: bool
    dealt_roles: list
    roles: list
    rewards: list
    decisions: int
    turns: int
    beliefs: list = field(default_factory=list)
    true_roles_at: list = field(default_factory=list)
    face_down_at: list = field(default_factory=list)


def face_down_opponents(game: Any, observer: int) -> list[int]:
    """The seats of ``game`` (a ``treachery_env`` game) whose role ``observer`` does not know
    from the table: the other players still in the game whose identity is face down (the
    Leader's is face up from the start; a revealed one is public).  Deduction is scored on
    these alone (``training.evaluate``)."""
    return [i for i, p in enumerate(game.players) if i != observer and not p.face_up and not p.has_lost]


def play_game(agents: Sequence[Agent], config: GameConfig | None = None, seed: int = 0,
              record_beliefs: bool = False,
              on_decision: Callable[[object, int, Agent, float], None] | None = None) -> GameResult:
    """Play one game, bot ``i`` in seat ``i``.

    Args:
        agents: one bot per seat.
        config: the game configuration (default ``GameConfig(num_players=len(agents))``).
        seed: environment seed (the deal, decks and shuffles).
        record_beliefs: record ``beliefs()`` of bots that have it after each of
            their decisions (for deduction metrics).
        on_decision: called as ``on_decision(game, seat, bot, seconds)`` after
            each bot decision, before the action is applied (``seconds`` = time
            spent in ``act``); for evaluators that score with the full state
            (bots never see it).

    Raises:
        ValueError: for a seat's entry that is not a bot (a spec string, say), a config that is not a
            :class:`GameConfig`, if the number of bots differs from the number of seats, or for
            ``record_beliefs`` in Throne Magic (deduction is scored on Treachery's roles).
        BotError: (a ValueError) if a bot's ``act``, ``reset``, ``check_config`` (other than
            its refusal, a ValueError) or (with ``record_beliefs``) ``beliefs`` raises, or its
            action is refused.
    """
    return run_games([game_steps(agents, config, seed, record_beliefs, on_decision)], batch=False)[0]


def game_steps(agents: Sequence[Agent], config: GameConfig | None = None, seed: int = 0,
               record_beliefs: bool = False,
               on_decision: Callable[[object, int, Agent, float], None] | None = None) -> Generator:
    """:func:`play_game` as a generator for :func:`run_games`: it yields the
    :class:`~agents.policy.ForwardRequest` of each decision of a bot that makes
    them (a trained policy's ``forward_request``), is sent that request's outputs with the
    seconds of forward pass they cost, and returns the :class:`GameResult`
    (``StopIteration.value``).  Other bots act within it.  Arguments and errors
    as :func:`play_game` (raised from the generator)."""
    if config is not None and not isinstance(config, GameConfig):
        raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
    for seat, a in enumerate(agents):
        if not (callable(getattr(a, "act", None)) and callable(getattr(a, "reset", None))):
            raise ValueError(f"seat {seat}: {a!r} is not a bot (act(observation, info) and reset(seat)); "
                             f"agents.make(spec) builds one from a spec")
    config = config or GameConfig(num_players=len(agents))
    if len(agents) != config.num_players:
        raise ValueError(f"{len(agents)} agents for {config.num_players} seats")
    env = raw_env(config=config)
    env.reset(seed=seed)
    for seat, a in enumerate(agents):
        if hasattr(a, "check_config"):      # a trained policy warns once if trained on another game; a
            try:                            # policy or a search bot refuses a game it cannot play
                a.check_config(config)
            except ValueError:              # its refusal, in its own words
                raise
            except Exception as err:   # noqa: BLE001 - raised otherwise: say which bot and where, as for reset
                raise _bot_failure(a, seat, env.game.turn, err) from err
        bot_call(a, seat, env.game.turn, a.reset, seat)
    decisions = 0
    social = env.game.social                # Throne Magic's roles, None in Treachery
    if social is not None and record_beliefs:
        raise ValueError("record_beliefs: deduction is scored on Treachery's roles, not Throne Magic's")
    dealt = list(social.roles) if social is not None else [Role(p.identity.role) for p in env.game.players]
    result = GameResult(seed, set(), False, dealt, [], [0.0] * config.num_players, 0, 0)
    perf = time.perf_counter
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        seat = int(name.split("_")[1])
        if term or trunc:
            result.rewards[seat] = reward
            env.step(None)
            continue
        bot = agents[seat]
        t0 = perf()
        if hasattr(bot, "forward_request"):
            req = bot_call(bot, seat, env.game.turn, bot.forward_request, obs, info)
            t1 = perf()
            try:
                outputs, forward_s = yield req
            except Exception as err:   # noqa: BLE001 - the forward pass failed (run_games throws it here)
                raise _bot_failure(bot, seat, env.game.turn, err) from err
            t2 = perf()
            action = bot_call(bot, seat, env.game.turn, req.finish, *outputs)
            seconds = (t1 - t0) + forward_s + (perf() - t2)
        else:
            action = bot_action(bot, seat, obs, info, env.game.turn)
            seconds = perf() - t0
        if on_decision is not None:
            on_decision(env.game, seat, bot, seconds)
        apply_action(env, bot, seat, action)
        decisions += 1
        if record_beliefs and hasattr(bot, "beliefs"):
            g = env.game
            result.beliefs.append((g.turn, seat, bot_call(bot, seat, g.turn, bot.beliefs)))
            result.true_roles_at.append([p.identity.role for p in g.players])
            result.face_down_at.append(face_down_opponents(g, seat))
    g = env.game
    result.winners = set(g.winners)
    result.truncated = bool(g.truncated)
    result.roles = list(social.roles) if social is not None else [Role(p.role) for p in g.players]
    result.decisions = decisions
    result.turns = g.turn
    env.close()
    return result


def run_games(games: Sequence[Generator], batch: bool = True) -> list:
    """Play games together (:func:`game_steps` generators, or generators that wrap them):
    each round advances every unfinished game to its next forward pass and runs those
    passes, with ``batch``, one per network for all the games (a trained policy's
    decisions cost mostly the network's fixed per-call cost: a lockstep evaluation of
    the flagship's substitution games ran 1.67x faster), or one at a time without.  A row's
    outputs in a batch equal its pass alone up to float rounding
    (:func:`agents.policy.forward_requests`), so an arg-max at a near tie may differ
    from a game played alone; each request is charged its share of the pass's seconds.

    Returns:
        each game's return value, in order.

    Raises:
        whatever a game raises (the first, in order; the other games are left unfinished).
    """
    perf = time.perf_counter
    results: list = [None] * len(games)
    pending: dict[int, Any] = {}
    for i, g in enumerate(games):
        try:
            pending[i] = next(g)
        except StopIteration as stop:
            results[i] = stop.value
    if pending:
        from .policy import forward_requests    # torch, only for games with a trained policy
    while pending:
        order = list(pending)
        groups = [order] if batch else [[i] for i in order]
        for rows in groups:
            t0 = perf()
            try:
                outs = forward_requests([pending[i] for i in rows])
            except Exception as err:   # noqa: BLE001 - the first game of the pass raises it as its bot's error
                games[rows[0]].throw(err)
                raise
            share = (perf() - t0) / len(rows)
            for i, out in zip(rows, outs):
                try:
                    pending[i] = games[i].send((out, share))
                except StopIteration as stop:
                    results[i] = stop.value
                    del pending[i]
    return results


def bot_action(bot: Agent, seat: int, observation: dict, info: dict, turn: int) -> int:
    """``bot.act(observation, info)``.

    Raises:
        BotError: naming the seat, the bot's class and the turn, if ``act`` raises.
    """
    return bot_call(bot, seat, turn, bot.act, observation, info)


def bot_call(bot: Agent, seat: int, turn: int, fn: Callable, *args: Any) -> Any:
    """``fn(*args)``, a method of ``bot`` (``reset``, ``beliefs``, ...) that the game calls.

    Raises:
        BotError: naming the seat, the bot's class, what ``fn`` raised and where
            (:func:`what_raised`: ``KeyError at my_bots.py:12 in reset``) and the turn, if it raises.
    """
    try:
        return fn(*args)
    except Exception as err:   # noqa: BLE001 - whatever a bot raises, say which bot
        raise _bot_failure(bot, seat, turn, err) from err


def _bot_failure(bot: Agent, seat: int, turn: int, err: BaseException) -> BotError:
    raised, text = _raised(err)
    return BotError(f"the bot in seat {seat} ({bot_class(bot)}) raised {raised} on turn {turn}: {text}", seat)


def bot_class(bot: Agent) -> str:
    """The class a bot's one-line errors name: its own (``"MyBot"``), or for an isolated bot
    (:class:`agents.isolated.IsolatedAgent`) that of the bot in its process, not ``IsolatedAgent``."""
    from .isolated import IsolatedAgent       # here, not with the module's imports: see _raised

    return bot.bot_class if isinstance(bot, IsolatedAgent) else type(bot).__name__


def _raised(err: BaseException) -> tuple[str, str]:
    """What a bot raised and where (:func:`what_raised`), and the first line of its message; for
    one raised in the bot's own process (an isolated bot's), both as that process sent them."""
    # imported here, not with the module's imports: a bot's process runs agents.isolated as its program
    # (python -m), and Python warns where agents (which imports this module) has imported it first
    from .isolated import IsolatedBotError

    if isinstance(err, IsolatedBotError) and err.raised:
        return err.raised, err.message
    return what_raised(err), first_line(err)


def apply_action(env: Any, bot: Agent, seat: int, action: Any) -> None:
    """``env.step(action)`` for ``bot``'s decision.

    Raises:
        BotError: naming the seat, the bot's class, the action and why, if the environment refuses it.
    """
    try:
        env.step(action)
    except ValueError as err:
        raise refused_action(bot, seat, action, env.game.turn, err) from err


def refused_action(bot: Agent, seat: int, action: Any, turn: int, err: ValueError) -> BotError:
    """The :class:`BotError` for ``bot``'s ``action`` that the game refused with ``err`` on ``turn``
    (for a caller that steps the game itself, :mod:`agents.benchmark`; raise it ``from err``)."""
    return BotError(f"the bot in seat {seat} ({bot_class(bot)}) chose {action!r} on turn {turn}: "
                    f"{first_line(err)}", seat)


#: the packages whose frames are not a bot's own code: the toolkit's (a bot's ``act`` is called from them)
_TOOLKIT = frozenset({"agents", "table", "training", "treachery_env"})

#: the folders of installed libraries (numpy, torch), whose frames are not a bot's own code either
_LIBRARIES = tuple(os.path.join(os.path.realpath(sysconfig.get_paths()[k]), "")
                   for k in ("purelib", "platlib"))


def what_raised(err: BaseException) -> str:
    """What raised ``err`` and where, for a bot's one-line error: ``"KeyError at my_bots.py:12 in
    act"``.  The place is the innermost frame of its traceback in the bot's own code, not in the
    toolkit's packages, the standard library or an installed library (a bot's ``act`` that
    indexes a dict: its own line, not the toolkit's call of ``act``; one that calls numpy wrongly:
    its line that called numpy), or the innermost frame where none is the bot's (a built-in
    bot's); ``FILE`` is relative to the current folder where it lies in it, else as Python loaded
    it.  Only the type for an exception without a traceback."""
    frames = []
    tb = err.__traceback__
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    if not frames:
        return type(err).__name__
    own = [tb for tb in frames if not _library_frame(tb)]
    tb = (own or frames)[-1]
    code = tb.tb_frame.f_code
    path = code.co_filename
    here = os.path.join(os.getcwd(), "")
    return (f"{type(err).__name__} at {path[len(here):] if path.startswith(here) else path}:{tb.tb_lineno} "
            f"in {code.co_name}")


def _library_frame(tb: Any) -> bool:
    """Whether a traceback entry's frame is code a bot calls or is called from, not the bot's own."""
    names = tb.tb_frame.f_globals
    spec = names.get("__spec__")        # a module run as a program (python -m agents.isolated) is named by it
    top = str(spec.name if spec is not None else names.get("__name__", "")).partition(".")[0]
    path = tb.tb_frame.f_code.co_filename
    return (top in _TOOLKIT or top in sys.stdlib_module_names or path.startswith("<")
            or os.path.realpath(path).startswith(_LIBRARIES))


def first_line(err: BaseException) -> str:
    """The first line of an exception's message, for one-line errors ("(no message)" for none)."""
    text = str(err).strip()
    return text.splitlines()[0] if text else "(no message)"


def method_failure(spec: str, method: str, err: BaseException) -> str:
    """The one line for a method of the bot ``spec`` that raised ``err`` when asked before its games
    (``num_players`` or ``check_config``, :func:`agents.check_table`): ``"agent 'my_bots:Bot': its
    num_players() raised KeyError at my_bots.py:12 in num_players: 'x'"`` (:func:`what_raised`)."""
    raised, text = _raised(err)
    return f"agent {spec!r}: its {method}() raised {raised}: {text}"
