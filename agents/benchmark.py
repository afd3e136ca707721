"""What the bots cost: heuristic and belief decisions and search playouts, one process.

* **Decisions** (``--bots``: the heuristic bot, then the belief bot, by
  default; any :func:`agents.make` spec, e.g. ``policy:checkpoints/flagship/policy.pt``):
  whole games of that bot in every seat, driven through the engine as the
  environment drives them (each decision gets the seat's mask and
  ``{"view": ...}`` from the game's :class:`~treachery_env.view.ViewBuilder`;
  a ``policy:`` bot also its encoded observation).  Prints decisions per
  second of whole games (engine included), the mean and 95th-percentile
  µs of one decision (building the seat's view, and observation, plus
  ``act``), and how many decisions the bots took a game and a turn (the
  mulligans' count in the first turn's), which table talk changes
  (``--talk``: a bot that talks takes more decisions a turn).
* **Playouts**: from mid-game states (random legal play to turn 8,
  :func:`treachery_env.benchmark.midgame_states`), ``clone()`` the game and
  play two more turns with heuristic bots in every seat: the unit of work of
  a heuristic-rollout search.  Prints ms per playout (clone included).

Usage::

    python -m agents.benchmark                    # 5 players, 10 s per row
    python -m agents.benchmark --players 4 8 --seconds 5
    python -m agents.benchmark --bots heuristic policy:checkpoints/flagship/policy.pt
    python -m agents.benchmark --talk structured none   # decisions a turn with table talk and without
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

import numpy as np

from treachery_env import GameConfig
from treachery_env.config import TALK_MODES
from treachery_env.benchmark import midgame_states, seconds_per_row
from treachery_env.engine import Game
from treachery_env.view import ViewBuilder

from .heuristic import HeuristicAgent
from .play import bot_call, refused_action

__all__ = ["run_decisions", "run_playouts", "main"]


def _decide(g: Game, views: ViewBuilder, bots: list, observe: bool = False) -> float:
    """Take the pending decision with its seat's bot; the seconds spent on the view and ``act``
    (the view from the game's :class:`ViewBuilder`, as the environment builds it), and with
    ``observe`` on the seat's encoded observation too (what a network bot reads).

    Raises:
        agents.play.BotError: (one line) the bot's ``act`` raised, or the game refused its action.
    """
    seat = g.current_player
    bot = bots[seat]
    t0 = time.perf_counter()
    obs = g.observation(seat) if observe else {"action_mask": g.legal_action_mask()}
    action = bot_call(bot, seat, g.turn, bot.act, obs, {"view": views.build(seat)})
    dt = time.perf_counter() - t0
    try:
        g.step(action)
    except ValueError as err:
        raise refused_action(bot, seat, action, g.turn, err) from err
    return dt


def _reset(g: Game, bots: list) -> None:
    """Give each bot its seat (``reset``).

    Raises:
        agents.play.BotError: (one line) a bot's ``reset`` raised.
    """
    for s, b in enumerate(bots):
        bot_call(b, s, g.turn, b.reset, s)


def run_decisions(cfg: GameConfig, seconds: float, seed: int = 0, bot: str = "heuristic") -> dict:
    """``bot`` (an :func:`agents.make` spec) in every seat, whole games (at least one), for ``seconds``.

    Returns:
        ``{"decisions", "games", "turns", "seconds", "decisions_per_s", "us_per_decision",
        "p95_us", "decisions_per_game", "decisions_per_turn"}``: decisions per second of
        whole games (engine included), the mean and the 95th-percentile µs of one
        decision's view and ``act`` (and the encoded observation for a ``policy:`` bot),
        and the decisions a game and a turn (``turns``: the games' turns, a game's
        ``Game.turn`` at its end; the mulligans before the first turn count in it).

    Raises:
        ValueError: (one line) ``bot`` is a spec :func:`agents.make` refuses;
            :class:`agents.play.BotError` (a ValueError) when a bot's ``reset`` or ``act`` raised
            or its action was refused, naming the seat, the bot and what it raised where.
    """
    from . import make
    observe = bot.startswith("policy:")
    decisions = games = turns = 0
    times: list[float] = []
    t0 = time.perf_counter()
    while not games or time.perf_counter() - t0 < seconds:      # a preempted start still plays one
        g = Game(cfg, seed=seed + games)
        bots = [make(bot, seed=seed + games * cfg.num_players + s) for s in range(cfg.num_players)]
        _reset(g, bots)
        views = ViewBuilder(g)
        while not g.is_over:
            times.append(_decide(g, views, bots, observe))
            decisions += 1
        games += 1
        turns += g.turn
    dt = time.perf_counter() - t0
    return {"decisions": decisions, "games": games, "turns": turns, "seconds": dt,
            "decisions_per_s": decisions / dt, "us_per_decision": float(np.mean(times)) * 1e6,
            "p95_us": float(np.percentile(times, 95)) * 1e6, "decisions_per_game": decisions / games,
            "decisions_per_turn": decisions / max(turns, 1)}


def run_playouts(cfg: GameConfig, seconds: float, seed: int = 0, turns: int = 2, states: int = 50) -> dict:
    """Clone a mid-game state and play ``turns`` more turns with heuristic bots, for ``seconds``
    (at least one playout).

    Returns:
        ``{"playouts", "seconds", "ms_per_playout", "decisions_per_playout"}``.

    Raises:
        agents.play.BotError: (one line) a heuristic bot failed (a fault of the toolkit's).
    """
    starts = midgame_states(cfg, states, seed)
    playouts = decisions = 0
    t0 = time.perf_counter()
    while not playouts or time.perf_counter() - t0 < seconds:   # a preempted start still plays one
        g = starts[playouts % len(starts)].clone()
        bots = [HeuristicAgent(seed=seed + s) for s in range(cfg.num_players)]
        _reset(g, bots)
        end = g.turn + turns
        views = ViewBuilder(g)
        while not g.is_over and g.turn < end:
            _decide(g, views, bots)
            decisions += 1
        playouts += 1
    dt = time.perf_counter() - t0
    return {"playouts": playouts, "seconds": dt, "ms_per_playout": dt / playouts * 1e3,
            "decisions_per_playout": decisions / playouts}


def main(argv: list[str] | None = None) -> None:
    """Command line entry point (see the module docstring).  A bot whose ``reset`` or ``act``
    raises, or whose action the game refuses, ends it with one line naming the bot, the seat and
    what it raised where (:class:`agents.play.BotError`), exit status 1; a spec it cannot make or
    a table its bot cannot play, with a usage error (exit status 2)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[5], help="table sizes to measure (default 5)")
    ap.add_argument("--seconds", type=seconds_per_row, default=10.0,
                    help="wall-clock seconds per row, above 0 and at most 3600 (default 10)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bots", nargs="+", default=["heuristic", "belief"], metavar="SPEC",
                    help="bots whose decisions are timed, agents.make specs (default heuristic belief)")
    ap.add_argument("--talk", nargs="+", default=[GameConfig().talk], choices=list(TALK_MODES),
                    help="table talk modes to measure: structured and/or none (default structured)")
    a = ap.parse_args(argv)
    from . import check_table, make
    for n in a.players:
        try:
            for talk in a.talk:
                cfg = GameConfig(num_players=n, talk=talk)
                for bot in a.bots:
                    check_table(make(bot, seed=0), bot, n, cfg)
        except ValueError as e:
            ap.error(str(e))
    w = max(9, *(len(b) for b in a.bots))
    print(f"{'players':>7} {'talk':<10} {'bot':>{w}} {'decisions/s':>12} {'µs/decision (view+act)':>23} "
          f"{'p95 µs':>8} {'decisions/game':>15} {'decisions/turn':>15} {'2-turn playout ms':>18} "
          f"{'decisions/playout':>18}   (default game but for talk; playouts: heuristic)")
    for n in a.players:
        for talk in a.talk:
            cfg = GameConfig(num_players=n, talk=talk)
            p = _run(ap, "heuristic", run_playouts, cfg, a.seconds, a.seed)
            for i, bot in enumerate(a.bots):
                h = _run(ap, bot, run_decisions, cfg, a.seconds, a.seed, bot)
                tail = f"{p['ms_per_playout']:>18.2f} {p['decisions_per_playout']:>18.0f}" if i == 0 else ""
                print(f"{n:>7} {talk:<10} {bot:>{w}} {h['decisions_per_s']:>12,.0f} {h['us_per_decision']:>23.0f} "
                      f"{h['p95_us']:>8.0f} {h['decisions_per_game']:>15,.0f} {h['decisions_per_turn']:>15.1f} "
                      f"{tail}")



def _run(ap: argparse.ArgumentParser, spec: str, fn: Callable[..., dict], *args: Any) -> dict:
    """``fn(*args)``, a row's measurement with bots of ``spec``; a bot that failed in it
    (:class:`agents.play.BotError`) or a spec :func:`agents.make` refused ends the program with
    one line naming it (exit status 1), not a traceback."""
    try:
        return fn(*args)
    except ValueError as err:
        ap.exit(1, f"{ap.prog}: error: agent {spec!r}: {err}\n")


if __name__ == "__main__":
    main()
