"""Throughput benchmark of the engine and the environment: random legal play, one process.

Prints agent-steps/s (decisions shown to an agent; automatic single-option
decisions are not counted), games/s and decisions per game for the engine
alone, the unwrapped ``raw_env`` and the wrapped ``env``; observations and
masks are computed at every step through the environments (``last()``).
Then, for search: ``Game.clone()`` in µs on mid-game states, and the memory
one game and 64 games hold (Python allocations traced by ``tracemalloc``,
games played to turn 8).  What the bots cost (heuristic decisions, playouts)
is :mod:`agents.benchmark`.

Usage::

    python -m treachery_env.benchmark                 # 5 players, 10 s per row
    python -m treachery_env.benchmark --players 4 8 --seconds 5 --no-view
    python -m treachery_env.benchmark --windows full main   # every priority window vs the main ones
    python -m treachery_env.benchmark --talk structured none   # the cost of table talk, one run
    python -m treachery_env.benchmark --forced auto shown   # single-option decisions taken or shown
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from typing import Callable

import numpy as np

from .config import FORCED_DECISIONS, PRIORITY_WINDOWS, TALK_MODES, GameConfig
from .engine import Game
from .env import env as make_env, raw_env

__all__ = ["run_engine", "run_env", "midgame_states", "time_clone", "game_memory", "seconds_per_row",
           "MAX_SECONDS_PER_ROW", "main"]

#: The longest wall-clock time a benchmark row may be given (``--seconds``): an hour.
MAX_SECONDS_PER_ROW = 3600.0


def seconds_per_row(text: str) -> float:
    """``--seconds`` of a benchmark command (an argparse ``type``): a number of seconds above 0 and
    at most :data:`MAX_SECONDS_PER_ROW` (``inf`` would time one row for ever, ``nan`` or 0 time nothing).

    Raises:
        argparse.ArgumentTypeError: for anything else (argparse says it in one line, exit 2).
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_SECONDS_PER_ROW:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most {MAX_SECONDS_PER_ROW:g} seconds, got {text}")
    return value


def run_engine(cfg: GameConfig, seconds: float, seed: int = 0) -> dict:
    """Random legal play through :class:`Game` for ``seconds`` (whole games; at least one, however
    late the clock is read).

    Returns:
        ``{"steps", "games", "seconds", "steps_per_s", "games_per_s", "steps_per_game", "truncated"}``.
    """
    rng = np.random.default_rng(seed)
    steps = games = trunc = 0
    t0 = time.perf_counter()
    while not games or time.perf_counter() - t0 < seconds:      # a preempted start still plays one
        g = Game(cfg, seed=int(rng.integers(2**31)))
        while not g.is_over:
            opts = g.decision.options
            g.step(opts[int(rng.integers(len(opts)))][0])
            steps += 1
        games += 1
        trunc += g.truncated
    dt = time.perf_counter() - t0
    return _row(steps, games, dt, trunc)


def run_env(factory: Callable, seconds: float, seed: int = 0) -> dict:
    """Random legal play through an AEC env built by ``factory()`` for ``seconds``
    (whole episodes; at least one); the action is drawn from the mask of ``last()``."""
    rng = np.random.default_rng(seed)
    e = factory()
    steps = games = trunc = 0
    t0 = time.perf_counter()
    while not games or time.perf_counter() - t0 < seconds:      # a preempted start still plays one
        e.reset(seed=int(rng.integers(2**31)))
        for agent in e.agent_iter():
            obs, _, term, tr, _ = e.last()
            if term or tr:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[int(rng.integers(len(legal)))]))
            steps += 1
        games += 1
        trunc += bool(e.unwrapped.game.truncated)
    dt = time.perf_counter() - t0
    e.close()
    return _row(steps, games, dt, trunc)


def midgame_states(cfg: GameConfig, count: int, seed: int = 0, turn: int = 8) -> list[Game]:
    """``count`` games of random legal play, each stopped at its first decision
    of ``turn`` (or later; a game that ends before is replaced by a new one).

    Raises:
        ValueError: if ``turn`` is not below ``cfg.max_turns``.
    """
    if not 1 <= turn < cfg.max_turns:
        raise ValueError(f"turn must be in [1, max_turns={cfg.max_turns}), got {turn}")
    rng = np.random.default_rng(seed)
    out: list[Game] = []
    while len(out) < count:
        g = Game(cfg, seed=int(rng.integers(2**31)))
        while not g.is_over and g.turn < turn:
            opts = g.decision.options
            g.step(opts[int(rng.integers(len(opts)))][0])
        if not g.is_over:
            out.append(g)
    return out


def time_clone(states: list[Game], repeat: int = 5) -> float:
    """Mean µs of one ``Game.clone()`` over ``states`` (each cloned ``repeat`` times)."""
    t0 = time.perf_counter()
    for _ in range(repeat):
        for g in states:
            g.clone()
    return (time.perf_counter() - t0) / (repeat * len(states)) * 1e6


def game_memory(cfg: GameConfig, count: int, seed: int = 0, turn: int = 8) -> float:
    """MiB of Python allocations held by ``count`` games played to ``turn``
    (:func:`midgame_states`), measured with ``tracemalloc``; the module-level
    data every game shares (cards, identities, decks) is loaded before."""
    midgame_states(cfg, 1, seed + 1, turn=1)   # imports, caches, shared data
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    games = midgame_states(cfg, count, seed, turn)
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del games
    return held / 2**20


def _row(steps: int, games: int, dt: float, trunc: int) -> dict:
    return {"steps": steps, "games": games, "seconds": dt, "steps_per_s": steps / dt, "games_per_s": games / dt,
            "steps_per_game": steps / max(games, 1), "truncated": trunc}


def main(argv: list[str] | None = None) -> None:
    """Command line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[5], help="table sizes to measure (default 5)")
    ap.add_argument("--seconds", type=seconds_per_row, default=10.0,
                    help="wall-clock seconds per row, above 0 and at most 3600 (default 10)")
    ap.add_argument("--max-turns", type=int, default=GameConfig().max_turns, help="truncation limit in turns")
    ap.add_argument("--no-view", action="store_true", help="do not build info['view'] in the environments")
    ap.add_argument("--pool", default=None,
                    help="identity pool: uncommon, rare, mythic or all (default: the game's, the first that can deal the table)")
    ap.add_argument("--variant", default="standard", help="standard, backstab_rumble or simple_roles")
    ap.add_argument("--windows", nargs="+", default=["full"], choices=list(PRIORITY_WINDOWS),
                    help="priority windows to measure: full (every CR 500-514 window, the default game) and/or main")
    ap.add_argument("--talk", nargs="+", default=[GameConfig().talk], choices=list(TALK_MODES),
                    help="table talk modes to measure: structured and/or none (default structured)")
    ap.add_argument("--forced", nargs="+", default=["auto"], choices=list(FORCED_DECISIONS),
                    help="single-option decisions: auto (taken, the AEC env's default) and/or shown (every "
                         "decision and every seat's priority, the parallel form's)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    print(f"{'players':>7} {'windows':<7} {'talk':<10} {'forced':<6} {'path':<9} {'agent-steps/s':>14} "
          f"{'games/s':>8} {'steps/game':>10} {'games':>6} {'trunc':>6}")
    for n in a.players:
        for w in a.windows:
            for talk in a.talk:
                for forced in a.forced:
                    try:
                        cfg = GameConfig(num_players=n, max_turns=a.max_turns, identity_pool=a.pool,
                                         variant=a.variant, priority_windows=w, talk=talk, forced_decisions=forced)
                    except ValueError as e:
                        ap.error(str(e))
                    kw = dict(config=cfg, view_in_info=not a.no_view)
                    rows = [("engine", run_engine(cfg, a.seconds, a.seed)),
                            ("raw_env", run_env(lambda: raw_env(**kw), a.seconds, a.seed)),
                            ("env", run_env(lambda: make_env(**kw), a.seconds, a.seed))]
                    for name, r in rows:
                        print(f"{n:>7} {w:<7} {talk:<10} {forced:<6} {name:<9} {r['steps_per_s']:>14,.0f} "
                              f"{r['games_per_s']:>8.2f} {r['steps_per_game']:>10.0f} {r['games']:>6} "
                              f"{r['truncated']:>6}")
    print()
    print(f"{'players':>7} {'clone() µs':>11} {'memory, 1 game (MiB)':>21} {'64 games (MiB)':>15}   "
          f"(games at turn 8; the default game but for --pool and --variant)")
    for n in a.players:
        cfg = GameConfig(num_players=n, identity_pool=a.pool, variant=a.variant)
        print(f"{n:>7} {time_clone(midgame_states(cfg, 100, a.seed)):>11.0f} {game_memory(cfg, 1, a.seed):>21.2f} "
              f"{game_memory(cfg, 64, a.seed):>15.1f}")


if __name__ == "__main__":
    main()
