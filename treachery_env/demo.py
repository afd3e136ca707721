"""Play one full game between random legal bots and print it.

This is the project's main job until self-play training lands (issue #5)::

    python -m treachery_env.demo --players 5 --seed 0

The log shows only public events (a spectator's view, or ``--seat S`` to
follow one seat's information set); the final board and the result follow.
"""

from __future__ import annotations

import argparse
import random

from .config import GameConfig
from .engine import Game
from .text import format_event

__all__ = ["play_random_game", "main"]

_QUIET = {"resolve", "draw", "land", "casting", "tokens", "pay_life", "gain_life", "lose_life", "unveil_cost",
          "activate", "reveal_all"}


def play_random_game(config: GameConfig, seed: int = 0) -> Game:
    """Play a whole game with uniformly random legal actions (seeded).

    Returns:
        the finished :class:`Game`.
    """
    rng = random.Random(seed)
    g = Game(config, seed=seed)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    return g


def main(argv: list[str] | None = None) -> None:
    """Command line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description="Play and print one Treachery game between random bots.")
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-turns", type=int, default=GameConfig().max_turns)
    ap.add_argument("--life", type=int, default=None, help="starting life (default: 40 with Commander)")
    ap.add_argument("--seat", type=int, default=None, help="follow this seat's view (default: spectator)")
    ap.add_argument("--verbose", action="store_true", help="also print draws, land drops, resolutions")
    a = ap.parse_args(argv)
    try:
        cfg = GameConfig(num_players=a.players, max_turns=a.max_turns, starting_life=a.life)
    except ValueError as e:
        ap.error(str(e))
    if a.seat is not None and not 0 <= a.seat < a.players:
        ap.error(f"--seat must be a seat from 0 to {a.players - 1}")
    g = play_random_game(cfg, a.seed)
    for e in g.log:
        if e["to"] is not None and (a.seat is None or a.seat not in e["to"]):
            continue
        if not a.verbose and e["event"] in _QUIET:
            continue
        print(format_event(e))
    print()
    print(g.render_text(a.seat))
    print(f"\n{len(g.actions)} decisions, {g.auto_decisions} automatic single-option decisions, {g.turn} turns")


if __name__ == "__main__":
    main()
