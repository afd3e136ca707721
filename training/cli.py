"""The ``treachery`` command line.

``treachery evaluate --players 5 --games 1000 --agents heuristic,random --out results/ --workers 2``
(also ``python -m training.cli evaluate ...``) runs a duplicate-deal
tournament (:func:`training.evaluate.evaluate`), prints the per-role win-rate
table and writes ``results.json``, ``results.md`` and PNG plots to ``--out``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its subcommands (``evaluate``)."""
    p = argparse.ArgumentParser(prog="treachery", description="Treachery toolkit command line")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("evaluate", help="tournament between bots: win rates, ratings, cross-play, deduction",
                       description="Duplicate-deal tournament between registered bots (agents.make specs).")
    e.add_argument("--agents", required=True,
                   help="comma-separated agent specs, e.g. heuristic,random (repeats allowed)")
    e.add_argument("--players", type=int, default=5, help="seats at the table (default 5)")
    e.add_argument("--games", type=int, default=1000,
                   help="games requested, rounded up to whole deals (default 1000)")
    e.add_argument("--out", default="results", help="output directory (default results/)")
    e.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    e.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    e.add_argument("--mode", choices=["rotate", "substitution", "crossplay"], default="rotate",
                   help="rotate: every agent through every seat of each deal; substitution: one agent "
                        "replaces one seat of a reference population; crossplay: one agent holds a whole "
                        "team, another the rest")
    e.add_argument("--reference", default=None,
                   help="reference agent label for --mode substitution (default: the last agent)")
    e.add_argument("--starting-life", type=int, default=None, help="starting life (default: game default)")
    e.add_argument("--max-turns", type=int, default=None, help="truncate games after this many turns")
    e.add_argument("--no-commander", action="store_true", help="play without commanders")
    e.add_argument("--variant", default=None, help="identity-deck variant (standard, backstab_rumble, ...)")
    e.add_argument("--identity-pool", default=None, help="identity pool: uncommon, rare, mythic or all")
    e.add_argument("--no-beliefs", action="store_true", help="do not score beliefs() (deduction metrics)")
    e.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _evaluate(args: argparse.Namespace) -> int:
    import agents
    from treachery_env import GameConfig

    from .evaluate import entrants_from_specs, evaluate, per_role_table

    kw = {"num_players": args.players}
    if args.starting_life is not None:
        kw["starting_life"] = args.starting_life
    if args.max_turns is not None:
        kw["max_turns"] = args.max_turns
    if args.no_commander:
        kw["commander"] = False
    if args.variant is not None:
        kw["variant"] = args.variant
    if args.identity_pool is not None:
        kw["identity_pool"] = args.identity_pool
    try:   # argument errors: reported as usage errors (exit status 2)
        config = GameConfig(**kw)
        specs = [s for s in args.agents.split(",")]
        known = set(agents.available())
        unknown = [e.spec for e in entrants_from_specs(specs) if e.spec.split(":", 1)[0] not in known]
        if unknown:
            raise ValueError(f"unknown agent specs {unknown}; available: {sorted(known)}")
        if args.games < 1 or args.workers < 1:
            raise ValueError("--games and --workers must be >= 1")
        if args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        if args.mode == "crossplay" and len(set(specs)) < 2:
            raise ValueError("--mode crossplay needs at least two different agents")
        res = evaluate(specs, games=args.games, seed=args.seed, workers=args.workers, mode=args.mode,
                       reference=args.reference, config=config, record_beliefs=not args.no_beliefs,
                       progress=not args.no_progress, out_dir=args.out)
    except ValueError as err:
        print(f"treachery evaluate: error: {err}", file=sys.stderr)
        return 2
    s, m = res["summary"], res["meta"]
    print(f"{s['games']} games ({m['deals']} deals x {m['games_per_deal']}), {args.players} players, "
          f"mode {m['mode']}, seed {m['seed']}: {s['truncated']} truncated, {s['draws']} draws, "
          f"{res['timing']['wall_s']:.1f} s on {args.workers} worker(s)")
    print("Win rate by dealt role [95% Wilson interval]:")
    print(per_role_table(res))
    sub = res.get("substitution")
    if sub:
        for lab, per in sub["candidates"].items():
            d = per["overall"]
            print(f"substitution delta of {lab} vs {sub['reference']}: {d['delta']:+.3f} (n={d['pairs']})")
    print(f"results in {args.out}/results.json, results.md and PNG plots")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``treachery`` command (``argv`` defaults to ``sys.argv[1:]``).

    Returns:
        the exit status: 0 on success, 2 for invalid arguments (an unknown
        agent spec, an invalid game option); argparse exits with 2 on
        malformed ones.  Errors raised while playing propagate.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "evaluate":
        return _evaluate(args)
    parser.error(f"unknown command {args.command!r}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
