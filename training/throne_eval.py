"""Throne Magic's bot ladder by Role: substitution games with paired deals (issue #16).

For each deal (an environment seed: the same Roles, decks, Throne and draws), one game with
the reference bot in every seat, then one game per seat with the candidate bot in that seat
and the reference in the others.  A seat's result is 1 if it is among the winners, else 0
(a draw or a truncated game: 0 for everyone).  Per Role dealt to the seat: the candidate's
win rate, the reference's in the same seats of the same deals, and the paired difference
with its 95% interval (normal approximation: mean ± 1.96 sd / √n).  Treachery's evaluation
harness (:mod:`training.evaluate`, ``treachery evaluate``) reads Treachery's roles and teams;
this is Throne Magic's until the harness takes both.

    python -m training.throne_eval --candidates random belief --reference heuristic \\
        --deals 200 --players 5 --workers 2 --seed 0
"""

from __future__ import annotations

import argparse
import math
from concurrent.futures import ProcessPoolExecutor
from typing import Sequence

import agents
import treachery_env
from treachery_env import GameConfig
from treachery_env import throne_roles as tr

__all__ = ["play_game", "substitution_by_role", "ladder_table", "main"]


def play_game(config: GameConfig, bots: Sequence[str], env_seed: int) -> tuple[list[str], set[int]]:
    """One game of ``config`` on the environment, bot ``bots[s]`` (an ``agents.make`` name) in
    seat ``s``, each seeded by its seat.

    Returns:
        each seat's Role and the winners' seats (empty: a draw or a truncated game).
    """
    env = treachery_env.env(config=config)
    env.reset(seed=env_seed)
    players = {a: agents.make(b, seed=s) for s, (a, b) in enumerate(zip(env.possible_agents, bots))}
    for s, bot in enumerate(players.values()):
        bot.reset(s)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else players[agent].act(obs, info))
    g = env.unwrapped.game
    return list(g.social.roles), set() if g.truncated else set(g.winners)


def _deal(args: tuple) -> list[tuple[str, str, int, int]]:
    """The games of one deal: ``(candidate, role, candidate won, reference won)`` per candidate and seat."""
    config, candidates, reference, env_seed = args
    n = config.num_players
    roles, base = play_game(config, [reference] * n, env_seed)
    out = []
    for cand in candidates:
        for seat in range(n):
            bots = [reference] * n
            bots[seat] = cand
            _, won = play_game(config, bots, env_seed)
            out.append((cand, roles[seat], int(seat in won), int(seat in base)))
    return out


def substitution_by_role(candidates: Sequence[str], reference: str, config: GameConfig, deals: int,
                         seed: int = 0, workers: int = 1) -> dict:
    """The paired substitution results of ``candidates`` against ``reference`` by Role.

    Args:
        candidates: bot names (``agents.make``) tried one seat at a time.
        reference: the bot in every other seat (and in every seat of the paired game).
        config: a Throne Magic :class:`GameConfig`.
        deals: environment seeds ``seed .. seed + deals - 1``.
        seed: the first seed.
        workers: processes (1: in this process).

    Returns:
        ``{candidate: {role: {"n", "candidate", "reference", "delta", "low", "high"}}}``, rates
        in 0..1, Roles in :func:`treachery_env.throne_roles.names` order.

    Raises:
        ValueError: for a config that is not Throne Magic, fewer than 1 deal or worker, or an
            unknown bot name.
    """
    if config.game != "throne_magic":
        raise ValueError(f"substitution_by_role: a Throne Magic config (game='throne_magic'), got game={config.game!r}")
    if deals < 1 or workers < 1:
        raise ValueError(f"substitution_by_role: deals and workers must be 1 or more, got {deals}, {workers}")
    known = set(agents.available())
    for name in [*candidates, reference]:
        if name not in known:
            raise ValueError(f"unknown bot {name!r}; the bots: {sorted(known)}")
    tasks = [(config, tuple(candidates), reference, seed + d) for d in range(deals)]
    if workers == 1:
        rows = [r for t in tasks for r in _deal(t)]
    else:
        with ProcessPoolExecutor(workers) as pool:
            rows = [r for part in pool.map(_deal, tasks, chunksize=max(1, deals // (4 * workers))) for r in part]
    out: dict = {}
    for cand in candidates:
        by_role: dict = {}
        for c, role, won, base in rows:
            if c == cand:
                by_role.setdefault(role, []).append((won, base))
        out[cand] = {role: _cell(by_role[role]) for role in tr.names() if role in by_role}
    return out


def _cell(pairs: list[tuple[int, int]]) -> dict:
    """Rates and the paired difference (95% interval) of ``(candidate won, reference won)`` pairs."""
    n = len(pairs)
    diffs = [a - b for a, b in pairs]
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return {"n": n, "candidate": sum(a for a, _ in pairs) / n, "reference": sum(b for _, b in pairs) / n,
            "delta": mean, "low": mean - half, "high": mean + half}


def ladder_table(results: dict, reference: str) -> str:
    """A markdown table: one row per Role, per candidate its win rate and delta [95% interval]."""
    cands = list(results)
    roles = [r for r in tr.names() if any(r in results[c] for c in cands)]
    head = "| Role | n | " + " | ".join(f"{c} win (delta vs {reference})" for c in cands) + f" | {reference} win |"
    lines = [head, "|" + "---|" * (len(cands) + 3)]
    for role in roles:
        cells = [results[c].get(role) for c in cands]
        first = next(x for x in cells if x is not None)
        lines.append(f"| {role} | {first['n']} | " + " | ".join(
            "" if x is None else f"{x['candidate']:.2f} ({x['delta']:+.2f} [{x['low']:+.2f}, {x['high']:+.2f}])"
            for x in cells) + f" | {first['reference']:.2f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m training.throne_eval", description=__doc__.split("\n\n")[0])
    ap.add_argument("--candidates", nargs="+", default=["random", "belief"], help="bots tried one seat at a time")
    ap.add_argument("--reference", default="heuristic", help="the bot in the other seats")
    ap.add_argument("--deals", type=int, default=100, help="paired deals (environment seeds)")
    ap.add_argument("--players", type=int, default=5, help="seats, 4 to 7 with --roles basic")
    ap.add_argument("--roles", default="basic", help="throne_roles: basic, random or draft")
    ap.add_argument("--holdings", action="store_true", help="play with Holdings")
    ap.add_argument("--seasons", action="store_true", help="play with Seasons")
    ap.add_argument("--max-turns", type=int, default=150, help="turns before a game is truncated")
    ap.add_argument("--seed", type=int, default=0, help="the first deal's seed")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    a = ap.parse_args(argv)
    try:
        config = GameConfig(game="throne_magic", num_players=a.players, throne_roles=a.roles, holdings=a.holdings,
                            seasons=a.seasons, max_turns=a.max_turns)
        res = substitution_by_role(a.candidates, a.reference, config, a.deals, a.seed, a.workers)
    except ValueError as e:
        ap.exit(2, f"error: {e}\n")
    print(ladder_table(res, a.reference))


if __name__ == "__main__":
    main()
