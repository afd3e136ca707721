"""The ``treachery`` command line.

``treachery train [--config FILE] [--set key=value ...] [--minutes M] [--evaluate GAMES]``
trains a self-play PPO agent (:func:`training.ppo.train`) into ``--run-dir``
(default ``runs/train-<date>-<time>``), resumes with ``--resume``, and with
``--evaluate`` then plays the trained policy against the random and the
heuristic bot (substitution tournaments; the greedy policy unless
``--eval-sampled``) and prints the per-role tables.
``treachery export RUN_DIR --out checkpoints/NAME --results DIR ...`` ships a
run's policy with its model card (:mod:`training.model_card`).
``treachery play --players 5 --opponents heuristic`` plays a game against bots
in the terminal (:mod:`table.terminal`); ``treachery serve [--lan]`` hosts the web
table, friends on their phones and bots (:mod:`table.server`).

``treachery evaluate --players 5 --games 1000 --agents heuristic,random --out results/ --workers 2``
(also ``python -m training.cli evaluate ...``) runs a duplicate-deal
tournament (:func:`training.evaluate.evaluate`), prints the per-role win-rate
table and writes ``results.json``, ``results.md`` and PNG plots to ``--out``;
with ``--game throne_magic``, Throne Magic's tournament by Role
(:func:`training.throne_eval.evaluate_throne`: rotate or substitution).

Worker counts (``--workers`` of both commands, ``--eval-workers``, a config's
``workers``) are at most :func:`max_workers`, four per CPU this process may
use: more processes than that only compete for the same cores.

``--ray [ADDRESS]`` (``evaluate`` and ``train``) runs the games, or the rollout
workers, on a Ray cluster instead (:mod:`training.ray_workers`): ``--ray`` alone
is ``ray.init()`` (``RAY_ADDRESS``, a cluster running on this machine, else a new
local Ray), ``--ray ADDRESS`` is ``ray.init(address=ADDRESS)``.  ``--workers`` is
then the number of Ray tasks in flight (``evaluate``) or of rollout actors
(``train``), limited by the cluster's CPUs rather than this machine's.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import warnings
from pathlib import Path
from typing import Sequence


__all__ = ["main", "build_parser", "max_workers"]


#: worker processes allowed per CPU (see :func:`max_workers`)
WORKERS_PER_CPU = 4


def _cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def max_workers() -> int:
    """The most worker processes a command accepts: ``WORKERS_PER_CPU`` (4) per
    CPU this process may use, so a typo such as ``--workers 1000`` on a small
    machine is refused instead of starting a thousand processes."""
    return WORKERS_PER_CPU * _cpus()


def _check_workers(option: str, n: int) -> None:
    """Refuse ``n`` worker processes above :func:`max_workers`.

    Raises:
        ValueError: naming ``option``, the value and what this machine has.
    """
    if n > max_workers():
        raise ValueError(f"{option} {n} is too many: this machine has {_cpus()} CPU(s), so at most "
                         f"{max_workers()} worker processes ({WORKERS_PER_CPU} per CPU); give a smaller --workers")


class _Parser(argparse.ArgumentParser):
    """argparse, with an unknown option reported by the subcommand that was given it, before a
    missing required one, and with the option meant where one is close: a mistyped flag
    (``--agnets``) otherwise shows only as "the following arguments are required".

    Args:
        absent: hints for options this command does not take though another does, by flag
            (``{"--players": "serve takes the number of players from --seats, a spec per seat"}``):
            said in place of the closest option's name when one of them is given.
    """

    def __init__(self, *args, absent: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.absent = dict(absent or {})

    def parse_known_args(self, args=None, namespace=None):
        given = sys.argv[1:] if args is None else list(args)
        if "-h" in given or "--help" in given:       # the help shows required options as required
            return super().parse_known_args(given, namespace)
        required = self._relaxed = [a for a in self._actions if a.required and a.option_strings]
        for a in required:
            a.required = False
        try:       # a first pass without the required options: what is left over is unknown
            _, extra = super().parse_known_args(args, argparse.Namespace(**vars(namespace or argparse.Namespace())))
        finally:
            self._restore()
        if extra:
            from treachery_env.config import did_you_mean
            flags = [o for a in self._actions for o in a.option_strings if o.startswith("--")]
            typed = [e.split("=", 1)[0] for e in extra if e.startswith("--")]
            hints = [self.absent[t] for t in dict.fromkeys(typed) if t in self.absent]
            near = did_you_mean([t for t in typed if t not in self.absent], flags, prefix="--")
            hint = f" ({'; '.join([*hints, *([near.strip(' ()')] if near else [])])})" if hints else near
            self.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
        return super().parse_known_args(args, namespace)

    def _restore(self) -> None:
        """Make the options the first pass relaxed required again."""
        for a in getattr(self, "_relaxed", ()):
            a.required = True
        self._relaxed = []

    def error(self, message: str):
        """argparse's error, with the usage line showing required options as required
        even when the first pass (which relaxes them) is what failed."""
        self._restore()
        if message.startswith("argument ") and ("invalid choice: " in message or " value: " in message):
            # a mistyped value (a choice, a number): one line that names the option and what it takes;
            # the usage block stays for a missing or unknown option, where it shows what is needed
            from treachery_env.config import did_you_mean
            m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
            hint = did_you_mean([m[1]], re.findall(r"'([^']*)'", m[2])) if m else ""
            self.exit(2, f"{self.prog}: error: {message}{hint}\n")
        super().error(message)


#: where ``--ray`` connects (evaluate's and train's help)
_RAY_WHERE = ("--ray alone connects to RAY_ADDRESS or a Ray running on this machine, else starts a local one; "
              "--ray ADDRESS connects there (auto, HOST:6379, ray://HOST:10001)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its subcommands (``evaluate``, ``train``, ``export``, ``compare``, ``pool``,
    ``models``, ``play``, ``serve``) and ``--version``."""
    import treachery_env
    from table.options import add_game_arguments

    p = _Parser(prog="treachery", description="Treachery toolkit command line")
    p.add_argument("--version", action="version", version=f"treachery {treachery_env.__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("evaluate", help="tournament between bots: win rates, ratings, cross-play, deduction",
                       description="Duplicate-deal tournament between registered bots (agents.make specs).",
                       epilog="exit status: 0 when the results are written; 2 for arguments refused before any game "
                              "(an invalid option, an agent spec that names no bot or whose bot cannot be made, a "
                              "bot that refuses the table or whose num_players() or check_config() raised); 1 for a "
                              "bot that failed in a game (its act, reset or beliefs raised, or the game refused its "
                              "action; one line naming the agent and what it raised where) or a Ray "
                              "failure, no results written; 130 after Ctrl-C, 143 after SIGTERM")
    e.add_argument("--agents", required=True,
                   help="comma-separated agent specs, e.g. heuristic,random (repeats allowed; bot names in any "
                        "case); a shipped model by name (treachery models); MODULE:CLASS for a bot of your own, "
                        "importable here or from the current folder")
    add_game_arguments(e)
    e.add_argument("--games", type=int, default=1000,
                   help="games requested, rounded up to whole deals (default 1000)")
    e.add_argument("--out", default="results",
                   help="output directory of results.json, results.md and plots (default results/), made when "
                        "they are written; checked before any game (one that cannot be made or written is refused "
                        "at once, nothing left behind), and refused when it already holds results unless --force")
    e.add_argument("--force", action="store_true", help="replace the results already in --out (default: refuse)")
    e.add_argument("--workers", type=int, default=1,
                   help="worker processes (default 1; at most 4 per CPU); with --ray, the Ray tasks (chunks "
                        "of games, one CPU each) in flight at a time")
    e.add_argument("--ray", nargs="?", const="default", default=None, metavar="ADDRESS",
                   help="play the games on Ray instead of local processes, --workers chunks of games at a "
                        f"time (same results for the same seed): {_RAY_WHERE}. Policy checkpoints and bots of "
                        "your own are shipped to the workers")
    e.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    e.add_argument("--mode", choices=["rotate", "substitution", "crossplay", "teammates"], default="rotate",
                   help="rotate: every agent through every seat of each deal; substitution: one agent "
                        "replaces one seat of a reference population; crossplay: one agent holds a whole "
                        "team, another the rest; teammates: an agent holds a whole team, or one seat of it "
                        "with the reference as team-mates (team-play win rates); Throne Magic (--game throne_magic) "
                        "has rotate and substitution, its tables by Role")
    e.add_argument("--reference", default=None,
                   help="reference agent label for --mode substitution, the partner for --mode teammates "
                        "(default: the last agent); a bot spec not among --agents joins them")
    e.add_argument("--isolate", action="store_true",
                   help="run every bot of your own (MODULE:CLASS) in a process of its own that receives only its "
                        "seat's observation and serialised view (isolated:MODULE:CLASS): no bot can reach the game "
                        "by gc or imports; on --ray its module must be installed on every node")
    e.add_argument("--no-beliefs", action="store_true", help="do not score beliefs() (deduction metrics)")
    e.add_argument("--no-observer", action="store_true",
                   help="do not run the fixed public observer (no bluffing numbers, no talk belief shifts)")
    e.add_argument("--shard", default=None, metavar="I/N",
                   help="play only the I-th of N contiguous shards of the tournament's deals (e.g. 2/2: the "
                        "second half), to run a tournament in parts on other machines or days; treachery pool "
                        "joins the parts into the whole")
    e.add_argument("--roles", default=None, metavar="ROLE,...",
                   help="--mode substitution only: the candidates take only the seats dealt these roles (e.g. "
                        "assassin): each game is the one the whole tournament plays in that seat, at a fraction "
                        "of the games; the overall figures are then over those roles")
    e.add_argument("--lockstep", action="store_true",
                   help="play each worker's games together, the trained policies' decisions batched into one "
                        "forward pass (1.67x faster with the flagship entered); the same results for the same "
                        "command, equal to the default's up to float rounding (belief metrics' last digits)")
    e.add_argument("--no-progress", action="store_true", help="no progress bar")

    t = sub.add_parser("train", help="self-play PPO training (then optionally an evaluation)",
                       description="Self-play PPO with an opponent pool; checkpoints, tensorboard logs and "
                                   "metrics.jsonl go to the run directory.")
    t.add_argument("--config", default=None, help="TOML file of training settings (see training/config.py)")
    t.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override one setting (any field of training/config.py), e.g. --set learning_rate=1e-4 "
                        "--set game.num_players=6; --set init=PATH starts from a checkpoint's weights, "
                        "--set expert=lookahead distils the search bot (expert iteration)")
    t.add_argument("--run-dir", default=None,
                   help="run directory (default: the config's, or runs/train-<date>-<time>)")
    t.add_argument("--steps", type=int, default=None, help="learner agent-steps of the whole run (total_steps; the run stops "
                                                          "after the iteration that reaches it; with --resume, the new "
                                                          "total, not extra steps)")
    t.add_argument("--minutes", type=float, default=None,
                   help="wall-time budget of the whole run in minutes (time_budget_s/60; with --resume, the new "
                        "total, not extra time): the run stops before an iteration that would end past it, so it "
                        "may end up to one iteration early, never a whole iteration late (but a new run's first "
                        "iteration always runs, however long)")
    t.add_argument("--workers", type=int, default=None,
                   help="rollout worker processes (at most 4 per CPU); with --ray, rollout actors (one CPU each, "
                        "at most the cluster's CPUs)")
    t.add_argument("--ray", nargs="?", const="default", default=None, metavar="ADDRESS",
                   help="rollout workers as Ray actors (one CPU each) instead of local processes, the same "
                        f"batches for the same seed (ray_address): {_RAY_WHERE}; --evaluate then plays on Ray "
                        "too. A resumed run keeps its own unless --ray is given (--set ray_address='\"\"' goes "
                        "back to local processes)")
    t.add_argument("--seed", type=int, default=None, help="master seed")
    t.add_argument("--deterministic", action="store_true",
                   help="the same numbers for the same config and seed on this machine (deterministic = true): "
                        "the update on a fixed torch thread count (one, or OMP_NUM_THREADS where it is set) and "
                        "update_dtype auto decided by the CPU's bfloat16 support, not by timing; iteration by "
                        "iteration when --steps, not --minutes, ends the run")
    t.add_argument("--resume", nargs="?", const=True, default=False, metavar="CHECKPOINT",
                   help="continue the run in --run-dir (or the --config file's run_dir) from its latest "
                        "checkpoint, or from CHECKPOINT in CHECKPOINT's own folder (a --run-dir must name that "
                        "folder; --set init=CHECKPOINT starts a new run from its weights instead), with its own "
                        "config (a --config file must agree with it); only --steps, --minutes, --workers, --ray "
                        "and --run-dir (where the run's folder is now, if it moved) may change")
    t.add_argument("--evaluate", type=int, default=0, metavar="GAMES",
                   help="after training, play GAMES games (rounded up to whole deals) against each of random "
                        "and heuristic")
    t.add_argument("--eval-workers", type=int, default=None,
                   help="evaluation processes (default: --workers; at most 4 per CPU)")
    t.add_argument("--eval-sampled", action="store_true",
                   help="evaluate the policy sampling its actions (default: greedy, its most likely legal action)")
    t.add_argument("--no-progress", action="store_true", help="no progress bar")

    x = sub.add_parser("export", help="ship a run's policy with a model card",
                       description="Copy RUN_DIR/policy.pt to --out and write MODEL_CARD.md there from the "
                                   "run's metrics and the given evaluation results. RUN_DIR may be a policy "
                                   "file instead (treachery graft's, or a run's checkpoint, shipped without its "
                                   "training state): its card has no run totals.")
    x.add_argument("run_dir", help="a training run directory, or a policy file")
    x.add_argument("--out", required=True, help="destination folder, e.g. checkpoints/flagship")
    x.add_argument("--results", nargs="*", default=[],
                   help="results.json files or their folders; each must have played this policy's file (the "
                        "SHA-256 a result records of each policy that played, not the file at its path now)")
    x.add_argument("--notes", default="", help="a file whose text goes under Notes in the card")
    x.add_argument("--force", action="store_true",
                   help="replace the policy.pt and MODEL_CARD.md already in --out (default: refuse)")
    x.add_argument("--allow-other-policy", action="store_true",
                   help="include --results whose games no file with this policy's SHA-256 played (another "
                        "policy, an earlier policy.pt of the run, results too old to record it); the card "
                        "then says so above its tables (default: refuse, naming the file that played)")

    g = sub.add_parser("graft", help="give a policy's seats of one role the gate another run fitted to that role",
                       description="Write BASE with DONOR's advantage gate as the gate of the seats dealt --role "
                                   "(DONOR: a gate run with solo_roles = [ROLE] from BASE, frozen, so every other "
                                   "weight is BASE's). Other roles keep BASE's gate.")
    g.add_argument("base", help="the policy whose other roles keep their gate, e.g. checkpoints/flagship/policy.pt")
    g.add_argument("donor", help="the gate run's policy.pt")
    g.add_argument("--role", required=True, help="leader, guardian, assassin or traitor")
    g.add_argument("--out", required=True, help="the policy file to write")
    g.add_argument("--gate-only", action="store_true",
                   help="the seats dealt --role leave the proposal only where the gate departs (never by the "
                        "network's own choice)")
    g.add_argument("--force", action="store_true", help="replace --out if it exists (default: refuse)")

    c = sub.add_parser("compare", help="two candidates evaluated on the same deals, seat-game by seat-game",
                       description="Compare two substitution results against the same reference on the same "
                                   "deals (evaluated with the same --seed, --games and game): per dealt role and "
                                   "overall, the mean of AFTER's win minus BEFORE's in the same seat of the same "
                                   "deal, with 95% intervals from the normal approximation, clustered by deal (the "
                                   "seat-games of one deal share its cards: the deals are the independent draws).")
    c.add_argument("before", help="results.json (or its folder) of the first candidate")
    c.add_argument("after", help="results.json (or its folder) of the second candidate")

    o = sub.add_parser("pool", help="several evaluations over different deals as one result",
                       description="Pool evaluations of the same agents on the same game over different deals "
                                   "(other --seed values, or the shards of one --games) into one result: win rates, substitution deltas and "
                                   "ratings over all their games, as one evaluation of those deals would give; "
                                   "treachery compare pairs pooled results. The per-decision metrics (deduction, "
                                   "bluffing, the gate, latency) stay in each source's results.")
    o.add_argument("results", nargs="+", help="results.json files or their folders (two or more)")
    o.add_argument("--out", required=True, help="output directory of the pooled results.json, results.md and plots")
    o.add_argument("--force", action="store_true", help="replace the results already in --out (default: refuse)")

    sub.add_parser("models", help="the shipped models, loadable by name (--agents flagship)",
                   description="The shipped checkpoints (checkpoints/NAME/policy.pt with its MODEL_CARD.md): each "
                               "loads by its name as an agent spec (agents.make('flagship'), --agents "
                               "flagship,heuristic), greedy, once its file has the checksum its card records.")

    from table.terminal import add_arguments as add_play_arguments
    add_play_arguments(sub.add_parser(
        "play", help="play a game against bots in the terminal",
        description="Play one game of Treachery against bots: you see your seat's view only; the replay "
                    "is saved as JSON (also when you leave with q or Ctrl-C)."))
    from table.server import add_arguments as add_serve_arguments
    add_serve_arguments(sub.add_parser(
        "serve", help="host a table in the browser: friends on phones (private seats) and bots",
        absent={"--players": "serve takes the number of players from --seats, one spec per seat: --seats "
                             "human,heuristic,heuristic,heuristic,heuristic is 5 players"},
        description="Start the web table: create a table on its page (or with --seats), give each person "
                    "their private link or QR code; bots fill the other seats. --lan serves the local network."))
    return p


def _evaluate(args: argparse.Namespace) -> int:
    import agents
    from agents.play import BotError
    from table.options import game_config_from_args

    from .evaluate import (deals_text, deduction_table, entrants_from_specs, evaluate, game_text, games_text,
                           gate_table, ray_connect_text, social_tables, variants_text)
    from .interrupts import catch_sigterm, exit_status, restore_sigterm, stop_words
    from .ray_workers import RayFailure           # (imports no Ray)

    old_sigterm = catch_sigterm()      # SIGTERM stops an evaluation as Ctrl-C does
    try:   # argument errors, refused before any game: usage errors (exit status 2); a bot's failure in a game: 1
        config = game_config_from_args(args)
        if config.game == "throne_magic":
            return _evaluate_throne(args, config)
        specs = [s for s in args.agents.split(",")]
        reference = args.reference
        if args.isolate:
            specs = [f"isolated:{s.strip()}" if agents.is_outside(s.strip()) else s for s in specs]
            if reference is not None and agents.is_outside(reference):
                reference = f"isolated:{reference}"
        entrants = entrants_from_specs(specs)            # each spec as the registry spells it
        if config.has_variant_blocks:                    # the search bots and policies refuse them: before any game
            from .throne_eval import check_specs
            check_specs([e.spec for e in entrants] + ([] if reference is None else [reference]),
                        "the CR 900 variants (Planechase, Vanguard, schemes)")
        unknown = [e.spec for e in entrants if not agents.names_a_bot(e.spec)]
        if unknown:
            raise ValueError(agents.unknown_text(unknown))
        if games_text(args.games, "--games"):
            raise ValueError(games_text(args.games, "--games"))
        if args.workers < 1:
            raise ValueError(f"--workers must be >= 1, got {args.workers}")
        _check_ray_address(args.ray)
        if args.ray is None:             # on Ray the cluster's CPUs bound the tasks in flight, not this machine's
            _check_workers("--workers", args.workers)
        if args.seed < 0:
            raise ValueError(f"--seed must be >= 0, got {args.seed}")
        if args.mode == "crossplay" and len({e.spec for e in entrants}) < 2:
            raise ValueError("--mode crossplay needs at least two different agents")
        shard = _parse_shard(args.shard) if args.shard is not None else None
        res = evaluate(specs, games=args.games, seed=args.seed, workers=args.workers, mode=args.mode,
                       reference=reference, config=config, record_beliefs=not args.no_beliefs,
                       progress=not args.no_progress, out_dir=args.out, observer=not args.no_observer,
                       shard=shard, ray_address=args.ray, force=args.force,
                       roles=None if args.roles is None else _parse_roles(args.roles), lockstep=args.lockstep)
    except BotError as err:            # a bot that failed in a game: a runtime error, not a usage error
        print(f"treachery evaluate: error: {err}", file=sys.stderr)
        return 1
    except ValueError as err:
        print(f"treachery evaluate: error: {err}", file=sys.stderr)
        return 2
    except RayFailure as err:          # Ray's own failure (a worker or node died): one line
        print(f"treachery evaluate: error: {err}; no results written to {args.out}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as why:
        print(f"treachery evaluate: {stop_words(why)}; no results written to {args.out}", file=sys.stderr)
        return exit_status(why)
    finally:
        restore_sigterm(old_sigterm)
    s, m = res["summary"], res["meta"]
    print(f"{s['games']} game{'' if s['games'] == 1 else 's'} ({m['deals']} deal{'' if m['deals'] == 1 else 's'} "
          f"x {m['games_per_deal']}), {args.players} players, mode {m['mode']}, {deals_text(m)}, "
          f"{variants_text(m['config'])} (game: {game_text(m['config'])}): "
          f"{s['truncated']} truncated, {s['draws']} draws, "
          f"{res['timing']['wall_s']:.1f} s on {args.workers} "
          f"{'Ray task(s) at a time' if args.ray is not None else 'worker(s)'}{ray_connect_text(res['timing'])}")
    _print_win_tables(res)
    for table in (deduction_table(res), gate_table(res), social_tables(res)):
        if table:
            print("\n" + table)
    print(f"results in {Path(args.out) / 'results.json'}, results.md and PNG plots")
    return 0


THRONE_MAGIC_REFUSES = (("ray", "--ray"), ("shard", "--shard"), ("roles", "--roles"), ("isolate", "--isolate"),
                        ("lockstep", "--lockstep"), ("no_beliefs", "--no-beliefs"), ("no_observer", "--no-observer"))
"""``treachery evaluate``'s options that Treachery's harness has and Throne Magic's does not (yet)."""


def _evaluate_throne(args: argparse.Namespace, config) -> int:
    """``treachery evaluate --game throne_magic``: :func:`training.throne_eval.evaluate_throne`, the
    table by Role printed, ``results.json`` and ``results.md`` in ``--out`` (called inside
    :func:`_evaluate`, which reports its errors, Ctrl-C and SIGTERM).

    Raises:
        ValueError: for an option Throne Magic's tournament does not take, a bad count, or what
            :func:`~training.throne_eval.evaluate_throne` refuses (reported by :func:`_evaluate`).
    """
    from .evaluate import few_deals_note, games_text
    from .throne_eval import check_specs, evaluate_throne, role_table, throne_text

    # first whether its agents play the game at all, then the options it does not take
    check_specs([s.strip() for s in args.agents.split(",")] + ([args.reference] if args.reference else []))
    for field, flag in THRONE_MAGIC_REFUSES:
        if getattr(args, field) not in (None, False):
            raise ValueError(f"{flag}: Treachery's tournaments only; Throne Magic's plays locally over every seat "
                             f"and scores no beliefs")
    if games_text(args.games, "--games"):
        raise ValueError(games_text(args.games, "--games"))
    if args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    _check_workers("--workers", args.workers)
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    res = evaluate_throne(args.agents.split(","), config, games=args.games, seed=args.seed, workers=args.workers,
                          mode=args.mode, reference=args.reference, progress=not args.no_progress, out_dir=args.out,
                          force=args.force)
    s, m = res["summary"], res["meta"]
    print(f"Throne Magic: {s['games']} games ({m['deals']} deal{'' if m['deals'] == 1 else 's'} x "
          f"{m['games_per_deal']}), {m['num_players']} "
          f"players, mode {m['mode']}, {throne_text(m['config'])}: {s['truncated']} truncated, {s['draws']} draws, "
          f"{res['timing']['wall_s']:.1f} s on {args.workers} worker(s)")
    if few_deals_note(res):             # as a Treachery tournament's report says it
        print(f"note: {few_deals_note(res)}")
    print("Win rate by Role" + (" [95% interval, clustered by deal] (seats):" if m["mode"] == "rotate" else
                                f", and the paired difference to {m['reference']} in the same seat of the same deal "
                                f"[95% interval, clustered by deal; none where the spread between deals cannot be "
                                f"estimated]:"))
    print(role_table(res))
    print(f"results in {Path(args.out) / 'results.json'} and results.md")
    return 0


def _check_ray_address(value: str | None) -> None:
    """Refuse an empty ``--ray`` address (it would run locally while saying Ray).

    Raises:
        ValueError: for ``--ray ""`` or an address of blanks.
    """
    if value is not None and not value.strip():
        raise ValueError("--ray takes an address (auto, HOST:6379, ray://HOST:10001) or nothing (RAY_ADDRESS, "
                         "else a Ray on this machine), not an empty one; without --ray the workers are local processes")


def _parse_roles(text: str) -> list[str]:
    """``--roles``' comma-separated role names (any case, spaces around them allowed).

    Raises:
        ValueError: ``--roles: ...`` for an empty name, an unknown or a repeated role.
    """
    from treachery_env.rules import Role

    names = text.split(",")
    if not all(n.strip() for n in names):
        raise ValueError(f"--roles: {text!r} has an empty role name; give roles separated by commas, e.g. assassin "
                         f"or guardian,assassin")
    try:
        return [r.name.lower() for r in Role.parse_many(names)]
    except ValueError as err:
        raise ValueError(f"--roles: {err}") from None


def _parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> ``(I, N)``.

    Raises:
        ValueError: for text not of that form (whether I and N fit the deals is
            :func:`training.evaluate.shard_deals`'s to say).
    """
    i, sep, n = text.partition("/")
    try:
        if not sep:
            raise ValueError
        return int(i), int(n)
    except ValueError:
        raise ValueError(f"--shard must be I/N (the I-th of N shards, e.g. 2/4), got {text!r}") from None


def _print_win_tables(res: dict) -> None:
    """The per-role win rates of a result and, for a substitution one, its deltas against the reference."""
    from treachery_env.words import with_article

    from .evaluate import WINRATE_INTERVALS, few_deals_note, per_role_table, substitution_table

    if few_deals_note(res):
        print(f"note: {few_deals_note(res)}")
    print(f"Win rate by dealt role [{WINRATE_INTERVALS}]:")
    print(per_role_table(res))
    sub = res.get("substitution")
    if sub:
        print(f"Substitution delta (each candidate in a seat of {with_article(sub['reference'])} table, minus "
              f"{sub['reference']} in that seat of that deal) [95% interval clustered by deal] n=pairs/deals:")
        print(substitution_table(res))


def _train(args: argparse.Namespace, program: bool = False) -> int:
    """``treachery train``: its exit status.  The first Ctrl-C or SIGTERM stops it; later ones
    are ignored until it has saved the run and said so (:class:`training.interrupts.StopOnce`),
    and with ``program`` (this process is the command, which exits on the stop) after that too."""
    from .interrupts import StopOnce

    with StopOnce(ignore_after=program):
        return _train_command(args)


def _train_command(args: argparse.Namespace) -> int:
    import datetime

    from agents.files import file_error_text

    from .config import MAX_TIME_BUDGET_S, load_config, toml_literal
    from .evaluate import MAX_GAMES, games_text
    from .interrupts import exit_status, stop_words
    from .ppo import NothingToTrain, TrainingInterrupted, train
    from .ray_workers import RayFailure           # (imports no Ray)
    from .rollout import WorkerLost

    try:
        overrides = list(args.overrides)
        for flag, key, conv in ((args.steps, "total_steps", int), (args.workers, "workers", int),
                                (args.seed, "seed", int)):
            if flag is not None:
                overrides.append(f"{key}={conv(flag)}")
        if args.deterministic:
            overrides.append("deterministic=true")
        if args.minutes is not None:
            if not 0 < args.minutes <= MAX_TIME_BUDGET_S / 60:        # (a NaN compares false)
                raise ValueError(f"--minutes must be a number of minutes > 0 and at most {MAX_TIME_BUDGET_S / 60:g} "
                                 f"(a year; without --minutes the run has no time budget), got {args.minutes:g}")
            overrides.append(f"time_budget_s={float(args.minutes) * 60.0}")
        if args.run_dir is not None:
            overrides.append(f"run_dir={toml_literal(args.run_dir)}")
        _check_ray_address(args.ray)
        if args.ray is not None:
            overrides.append(f"ray_address={toml_literal(args.ray)}")
        if args.evaluate < 0 or (args.evaluate and games_text(args.evaluate)):
            raise ValueError(f"--evaluate must be 0 (no evaluation) or an int from 1 to {MAX_GAMES:,} (the games "
                             f"played against each of random and heuristic), got {args.evaluate}")
        if args.eval_workers is not None and args.eval_workers < 1:
            raise ValueError(f"--eval-workers must be >= 1, got {args.eval_workers}")
        if args.resume:
            config, resume = _resume_config(args, overrides)
        else:
            config, resume = load_config(args.config, overrides), False
            if args.run_dir is None and not _sets_run_dir(args):
                stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
                config = type(config).from_dict({**config.to_dict(), "run_dir": f"runs/train-{stamp}"})
        if not config.ray_address:       # on Ray the cluster's CPUs bound the actors (checked by train)
            _check_workers("--workers" if args.workers is not None else "the config's workers =", config.workers)
            if args.eval_workers is not None:
                _check_workers("--eval-workers", args.eval_workers)
        result = train(config, resume=resume, progress=not args.no_progress)
    except NothingToTrain as err:
        evaluate = ""
        if args.evaluate:                # the run is trained: what --evaluate would play, as its own command
            plan = _evaluation_plan(err.policy, config, args.evaluate, args.eval_workers or config.workers,
                                    not args.eval_sampled)
            evaluate = f"; to evaluate its policy, run {_evaluate_commands(plan, config)}"
        print(f"treachery train: error: {err}{evaluate}", file=sys.stderr)
        return 2
    except ValueError as err:
        print(f"treachery train: error: {err}", file=sys.stderr)
        return 2
    except (RayFailure, WorkerLost) as err:    # Ray's own failure (an actor or node died), a worker process killed
        print(f"treachery train: error: {err}", file=sys.stderr)
        return 1
    except OSError as err:             # the run folder's files (lock, config.json, tb/, metrics, checkpoints)
        if err.filename is None:
            raise
        print(f"treachery train: error: {file_error_text(err)}", file=sys.stderr)
        return 2
    except TrainingInterrupted as stop:
        where = (f"checkpoint {stop.checkpoint} (iteration {stop.iteration}); continue with --resume --run-dir "
                 f"{config.run_dir}" if stop.checkpoint is not None else "no iteration had finished: nothing saved")
        how = "terminated (SIGTERM)" if stop.signal_name == "SIGTERM" else "interrupted"
        print(f"treachery train: {how}; {where}", file=sys.stderr)
        return 128 + signal.Signals[stop.signal_name]     # as exit_status: 130 for SIGINT, 143 for SIGTERM
    # the evaluations still to play (each leaves the list once played): a stop says how to play them
    left = _evaluation_plan(result["policy"], config, args.evaluate, args.eval_workers or config.workers,
                            not args.eval_sampled) if args.evaluate else []
    try:
        return _train_report(args, config, result, left)
    except KeyboardInterrupt as why:
        many = len(left) > 1
        todo = (f"; the evaluation{'s' if many else ''} against {' and '.join(step['reference'] for step in left)} "
                f"{'were' if many else 'was'} not finished (nothing written for {'them' if many else 'it'}): "
                f"run {_evaluate_commands(left, config)}" if left else "")
        print(f"treachery train: {stop_words(why)} after training finished; the run is saved: checkpoint "
              f"{result['checkpoint']}, policy {result['policy']}{todo}", file=sys.stderr)
        return exit_status(why)


def _train_report(args: argparse.Namespace, config, result, left: list[dict]) -> int:
    """What ``treachery train`` prints once the run is trained (``result``, :func:`training.ppo.train`'s),
    then the evaluations of ``left`` (:func:`_evaluation_plan`, with ``--evaluate``); its exit status."""
    last = result["history"][-1] if result["history"] else {}
    print(f"trained {result['steps']:,} learner steps in {result['iterations']} "
          f"iteration{'' if result['iterations'] == 1 else 's'}, "
          f"{result['wall_s'] / 60:.1f} min; checkpoint {result['checkpoint']}, policy {result['policy']}")
    if last:
        from .model_card import throughput_text, training_summary
        session = ""
        start_steps, start_wall = result.get("start_steps", 0), result.get("start_wall_s", 0.0)
        if start_steps and result["wall_s"] > start_wall:        # a resume: this call's own rate too
            rate = (result["steps"] - start_steps) / (result["wall_s"] - start_wall)
            session = f"; this session alone {rate:.0f} learner agent-steps/s"
        print(f"throughput: {throughput_text(training_summary(config.run_dir, result['iterations']))}{session}")
        if "entropy" in last:
            print(f"last iteration: belief accuracy {last['belief_accuracy']:.3f}, entropy {last['entropy']:.3f}")
        if "gate/corr" in last:
            taken = int(last["gate/taken"])
            print(f"last iteration's gate, before its fit: correlation {last['gate/corr']:.3f} with the teacher's "
                  f"advantages at {int(last['gate/searched'])} searched decisions, {taken} "
                  f"departure{'' if taken == 1 else 's'} realising {last['gate/gain']:+.2f} per 1,000 of them; "
                  f"then fitted over the run's {int(last['gate/replay'])} examples "
                  f"({Path(config.run_dir) / 'gate'})")
    budget_note = _budget_note(config, result)
    if budget_note:
        print(budget_note)
    if left:
        return _evaluate_policy(left, config, not args.no_progress)
    return 0


def _budget_note(config, result) -> str:
    """What the time budget did to a run, in one line ("" when it did nothing):
    it ended the run before ``total_steps``, or the run went past it (its
    first iteration always runs; a last iteration slower than the stop rule's
    forecast, the median of the recent ones, ends later than it expects)."""
    from .ppo import RECENT_ITERATIONS

    budget = config.time_budget_s
    if not budget:
        return ""
    wall, steps = result["wall_s"], result["steps"]
    if wall > budget:
        why = ("its first iteration always runs, however long" if result["iterations"] == 1 else
               f"its last iteration took longer than the stop rule's forecast (the median of the last "
               f"{RECENT_ITERATIONS} iterations)")
        over = wall - budget
        over = ("under 0.01 s" if over < 0.005 else f"{over:.2f} s" if over < 0.995 else
                f"{over:.1f} s" if over < 59.95 else f"{over / 60:.2f} min")
        return f"note: the run went {over} past its {budget / 60:.2f}-min budget (--minutes): {why}"
    if steps < config.total_steps:
        return (f"note: the time budget ({budget / 60:.2f} min, --minutes) ended the run at {steps:,} of "
                f"{config.total_steps:,} learner steps, before an iteration that would have ended past it")
    return ""


#: what a resumed run may change (everything else comes from its checkpoint): its budgets, and where it runs
_RESUMABLE = ("total_steps", "time_budget_s", "workers", "ray_address", "run_dir")


def _resume_config(args: argparse.Namespace, overrides: list[str]):
    """The config of a resumed run and its checkpoint path: the checkpoint's stored
    config, changed only where the command line sets ``--steps``, ``--minutes``,
    ``--workers``, ``--ray`` or ``--run-dir`` (by default the run continues in its own folder,
    towards its own step and time budgets).  ``--resume CHECKPOINT`` without ``--run-dir``
    (nor a ``run_dir`` of ``--config`` or ``--set``) continues in the checkpoint's folder;
    a run folder named otherwise must be that folder (:func:`training.ppo.train` refuses
    another: the checkpoint is another run's).  A ``--config`` file only says where
    the run is (its ``run_dir``); it is accepted when every other setting it names
    equals the checkpoint's (:func:`_check_resume_config_file`).

    Raises:
        ValueError: for other ``--set`` keys or options (``--seed``) that would
            change the run's config (repeating its own value is accepted), a
            ``--config`` file that differs from the checkpoint's config, or when
            there is no checkpoint.
    """
    from pathlib import Path

    from agents.policy import load_checkpoint

    from .config import TrainConfig, checkpoint_config, load_config, parse_override
    from .ppo import latest_checkpoint, load_resumable

    changed: dict = {}
    for item in overrides:
        parse_override(changed, item)
    if args.resume is True:          # the newest checkpoint that loads (a corrupt newer one is skipped: train says so)
        run_dir = changed.get("run_dir") or load_config(args.config).run_dir
        if "run_dir" not in changed and not _sets_run_dir(args) and latest_checkpoint(run_dir) is None:
            raise ValueError(_which_run())
        path, payload = load_resumable(run_dir, warn=False)
        changed["run_dir"] = run_dir
    else:
        path = Path(args.resume)
        if path.is_dir():
            import shlex
            raise ValueError(f"--resume {args.resume!r} is a folder, and --resume takes a checkpoint file: "
                             f"--resume --run-dir {shlex.quote(args.resume)} continues the run in it from its "
                             f"newest checkpoint, --resume {path / 'ckpt_<iteration>.pt'} from that checkpoint")
        if "run_dir" not in changed:        # a --config file's run_dir, else the checkpoint's own folder
            changed["run_dir"] = load_config(args.config).run_dir if _sets_run_dir(args) else str(path.parent)
        payload = load_checkpoint(path)
    stored = checkpoint_config(payload, path)       # init and kl_policy read from the checkpoint's folder
    stored.setdefault("run_dir", str(path.parent))
    bad = _changed_settings(stored, overrides)
    if bad:
        raise ValueError(f"a resumed run keeps its own config; {bad} cannot change (only --steps, --minutes, "
                         f"--workers, --ray and --run-dir can)")
    if args.config is not None:
        _check_resume_config_file(args.config, TrainConfig.from_dict(stored))
    return TrainConfig.from_dict({**stored, **{k: v for k, v in changed.items() if k in _RESUMABLE}}), path


def _which_run() -> str:
    """The error of ``--resume`` without the run's folder (no ``--run-dir``, nor a ``run_dir`` of
    ``--config`` or ``--set``), where the config's default folder holds no run: new runs go to
    ``runs/train-<date>-<time>``, so the run must be named; the hint names the run under ``runs/``
    whose newest checkpoint was written last, if there is one."""
    import shlex

    from .ppo import latest_checkpoint

    runs = Path("runs")
    found = [(ckpt.stat().st_mtime, d) for d in (sorted(runs.iterdir()) if runs.is_dir() else ())
             if d.is_dir() and (ckpt := latest_checkpoint(d)) is not None]
    if found:
        newest = str(max(found)[1])
        hint = f"the newest run under runs/ is {newest!r} (--resume --run-dir {shlex.quote(newest)})"
    else:
        hint = f"there is no run under {str(runs.resolve())!r}"
    return f"--resume needs the run's folder: give --run-dir (a new run goes to runs/train-<date>-<time>); {hint}"


def _changed_settings(stored: dict, overrides: list[str]) -> list[str]:
    """The settings among ``overrides`` (``key=value``, ``a.b=value``), other than the
    ones a resume may change (:data:`_RESUMABLE`), that would give a resumed run's
    config ``stored`` another value (sorted); one that repeats the run's own value
    (re-running the command that started it, plus ``--resume``) changes nothing,
    and an invalid one always counts as a change."""
    from copy import deepcopy

    from .config import INPUT_PATHS, TrainConfig, parse_override

    base = TrainConfig.from_dict(stored)

    def setting(cfg, key):
        if key in INPUT_PATHS:          # a file, however named (the run's are absolute once read from its folder)
            return str(Path(getattr(cfg, key)).resolve()) if getattr(cfg, key) else ""
        return cfg.game_config().to_dict() if key == "game" else cfg.to_dict().get(key)

    out = set()
    for item in overrides:
        key = item.partition("=")[0].split(".")[0].strip()
        if key in _RESUMABLE:
            continue
        trial = deepcopy(stored)
        try:
            parse_override(trial, item)
            same = setting(TrainConfig.from_dict(trial), key) == setting(base, key)
        except ValueError:
            same = False                     # an invalid value is never the run's own
        if not same:
            out.add(key)
    return sorted(out)


def _check_resume_config_file(path: str, stored) -> None:
    """Refuse a ``--config`` file given with ``--resume`` that names a setting
    (other than those a resume may change, :data:`_RESUMABLE`: ``run_dir``
    finds the run, and the budgets and workers come from ``--steps``,
    ``--minutes``, ``--workers`` and ``--ray`` or else the checkpoint) with another value
    than the resumed run's config ``stored``: resuming keeps the checkpoint's
    config, so the file's value would be silently ignored.  A file's ``init`` and
    ``kl_policy`` (read from its folder, :func:`training.config.load_config`) equal the
    run's when they name the same file (a run started before config files' paths were
    read from their folder holds them relative to the current folder).

    Raises:
        ValueError: naming the file and the settings that differ.
    """
    import tomllib

    from .config import INPUT_PATHS, load_config

    given = load_config(path)   # checks the file first
    named = set(tomllib.loads(Path(path).read_text())) - set(_RESUMABLE)
    mine, theirs = given.to_dict(), stored.to_dict()
    mine["game"], theirs["game"] = given.game_config().to_dict(), stored.game_config().to_dict()
    for k in INPUT_PATHS:      # the file's are absolute; a run started before they were may hold one relative
        if theirs[k] and mine[k]:          # to the current folder: the same file is the same setting
            theirs[k] = str(Path(theirs[k]).resolve())
    differ = sorted(k for k in named if mine.get(k) != theirs.get(k))
    if differ:
        raise ValueError(f"--config {path!r} with --resume: the run keeps its checkpoint's config, and the file "
                         f"differs from it in {differ}; drop --config (give --run-dir), or change only --steps, "
                         f"--minutes, --workers, --ray or --run-dir")


def _sets_run_dir(args: argparse.Namespace) -> bool:
    if any(o.split("=", 1)[0].strip() == "run_dir" for o in args.overrides):
        return True
    if args.config:
        import tomllib
        from pathlib import Path
        try:
            return "run_dir" in tomllib.loads(Path(args.config).read_text())
        except (OSError, tomllib.TOMLDecodeError):
            return False
    return False


def _evaluation_plan(policy: str, config, games: int, workers: int, greedy: bool) -> list[dict]:
    """What ``treachery train --evaluate GAMES`` plays once the run is trained: a substitution
    tournament of the policy (greedy or sampling) against random, then one against heuristic, in
    ``workers`` processes (on Ray when the run's rollouts were), each into
    ``RUN_DIR/eval-vs-<reference>``, replacing the run's earlier evaluation there (a resumed
    run's policy is a new one); one dict of :func:`training.evaluate.evaluate`'s arguments
    each (``reference``, ``specs``, ``games``, ``seed``, ``workers``, ``out_dir``, ``ray_address``)."""
    spec = f"policy:{policy}" + (":greedy" if greedy else "")
    return [{"reference": ref, "specs": [spec, ref], "games": games, "seed": config.seed + 1, "workers": workers,
             "out_dir": Path(config.run_dir) / f"eval-vs-{ref}", "ray_address": config.ray_address or None}
            for ref in ("random", "heuristic")]


def _evaluate_commands(plan: list[dict], config) -> str:
    """The ``treachery evaluate`` commands that play the evaluations of ``plan`` (:func:`_evaluation_plan`)
    on the run's game, joined by ``&&``, as they are typed in a shell; for a game that the table
    options cannot give (:func:`table.options.game_options`), what to call from Python instead."""
    import shlex

    from table.options import game_options

    from .ray_workers import RAY_DEFAULT

    try:
        options = game_options(config.game_config())
    except ValueError as err:
        calls = " and ".join(f"evaluate({step['specs']!r}, games={step['games']}, seed={step['seed']}, "
                             f"workers={step['workers']}, mode='substitution', reference={step['reference']!r}, "
                             f"config=<the run's game>, out_dir={str(step['out_dir'])!r}, "
                             f"ray_address={step['ray_address']!r}, force=True)" for step in plan)
        return f"training.evaluate's {calls} in Python (treachery evaluate cannot play this game: {err})"
    commands = []
    for step in plan:
        ray = [] if step["ray_address"] is None else \
            ["--ray"] + ([] if step["ray_address"] == RAY_DEFAULT else [step["ray_address"]])
        commands.append(shlex.join(["treachery", "evaluate", "--agents", ",".join(step["specs"]),
                                    "--mode", "substitution", "--reference", step["reference"],
                                    "--games", str(step["games"]), "--seed", str(step["seed"]),
                                    "--workers", str(step["workers"]), *ray, *options,
                                    "--out", str(step["out_dir"]), "--force"]))
    return " && ".join(commands)


def _evaluate_policy(left: list[dict], config, progress: bool) -> int:
    """Play the evaluations of ``left`` (:func:`_evaluation_plan`), each removed from the list once
    played; print their tables and whether the policy beats each reference in every role.  When
    ``--evaluate GAMES`` is not whole deals, the first says so, once for all (the same games each)."""
    from .evaluate import WINRATE_INTERVALS, beats_in_every_role, evaluate, per_role_table, substitution_table

    game_config = config.game_config()
    flag = "--evaluate"
    while left:
        step = left[0]
        ref, spec, out = step["reference"], step["specs"][0], step["out_dir"]
        res = evaluate(step["specs"], games=step["games"], seed=step["seed"], workers=step["workers"],
                       mode="substitution", reference=ref, config=game_config, progress=progress, out_dir=out,
                       ray_address=step["ray_address"], force=True,     # the run's own: its earlier policy's replaced
                       games_flag=flag)
        flag = None
        left.pop(0)
        deals = res["meta"]["deals"]
        print(f"\n== the policy against {ref}: {res['summary']['games']} games "
              f"({deals} deal{'' if deals == 1 else 's'}), {res['timing']['wall_s']:.0f} s ==")
        print(f"Win rate by dealt role [{WINRATE_INTERVALS}]:")
        print(per_role_table(res))
        print(f"Substitution delta (the policy in a seat of an all-{ref} table, minus {ref} in that seat) "
              f"[95% interval clustered by deal] n=pairs/deals:")
        print(substitution_table(res))
        verdict = beats_in_every_role(res, spec)
        roles = ", ".join(f"{r} {'yes' if ok else 'no'}" for r, ok in verdict.items() if r != "all")
        print(f"beats {ref} (95% interval of the delta above 0): {roles}; "
              f"in every role: {'YES' if verdict['all'] else 'no'}")
        print(f"results: {out}/results.json, results.md and plots")
    return 0


def _export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from agents.files import check_input_file

    from .model_card import export_policy

    try:
        notes = ""
        if args.notes:
            path = Path(args.notes)
            if path.is_dir():
                raise ValueError(f"--notes {args.notes!r} is a folder; give a text file")
            check_input_file(path, "--notes file")
            try:
                notes = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"--notes file {args.notes!r} is not UTF-8 text") from None
            except OSError as err:
                raise ValueError(f"--notes file {args.notes!r} cannot be read: {err.strerror or err}") from None
        card = export_policy(args.run_dir, args.out, args.results, notes, force=args.force,
                             other_policy=args.allow_other_policy)
    except ValueError as err:
        print(f"treachery export: error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {Path(args.out) / 'policy.pt'} and {card}")
    return 0


def _graft(args: argparse.Namespace) -> int:
    from .gate import graft_role_gate
    try:
        g = graft_role_gate(args.base, args.donor, args.role, args.out, force=args.force,
                            gate_only=args.gate_only)
    except ValueError as err:
        print(f"treachery graft: error: {err}", file=sys.stderr)
        return 2
    role = args.role.strip().lower()
    what = (f"{args.base} with {args.donor}'s gate for its seats dealt {role}" if g.gate_changed
            else f"{args.base} with the same gate for its seats dealt {role} (DONOR's is BASE's)")
    if g.gate_only_after:
        what += f"; gate-only: a seat dealt {role} leaves the proposal only where that gate departs"
    elif g.gate_only_before:
        what += (f"; gate-only turned off: BASE played {role} gate-only, the graft lets the network depart "
                 f"there too (give --gate-only to keep it)")
    print(f"wrote {g.path}: {what}")
    return 0


def _compare(args: argparse.Namespace) -> int:
    from treachery_env.words import with_article

    from .evaluate import paired_delta, read_results
    try:
        before, after = read_results(args.before), read_results(args.after)
        res = paired_delta(before, after)
        if before == after:
            print("note: BEFORE and AFTER hold the same results (the same file?): every pair is equal",
                  file=sys.stderr)
    except ValueError as err:
        print(f"treachery compare: error: {err}", file=sys.stderr)
        return 2
    roles = list(res["roles"])
    print(f"{res['after']} minus {res['before']}, both in one seat of {with_article(res['reference'])} table, "
          "the same seat of the same deal (95% intervals from the normal approximation, clustered by deal; none "
          "where the spread between "
          "deals cannot be estimated; n=seat-games/deals):")
    print("| | " + " | ".join(roles) + " |")
    print("|---" * (len(roles) + 1) + "|")
    cells = [f"{c['mean']:+.3f} [{c['lo']:+.3f}, {c['hi']:+.3f}] n={c['n']}/{c['deals']}" if c["lo"] is not None
             else f"{c['mean']:+.3f} n={c['n']}/{c['deals']}" for c in res["roles"].values()]
    print("| after − before | " + " | ".join(cells) + " |")
    if res["shared"] < max(res["before_games"], res["after_games"]):
        limited = [name for name, r in (("BEFORE", before), ("AFTER", after)) if r["meta"].get("roles")]
        why = (f"{' and '.join(limited)} evaluated only some roles' seats (--roles)" if limited
               else "were they run with the same --games?")
        print(f"note: only the {res['shared']} seat-games of deals in both are compared ({res['before_games']} in "
              f"BEFORE, {res['after_games']} in AFTER): {why}")
    return 0


def _pool(args: argparse.Namespace) -> int:
    from agents.files import check_folder

    from .evaluate import (deals_text, game_text, pool_results, read_results, refuse_held_results, variants_text,
                           write_results)
    try:
        check_folder(args.out, "--out")
        out = Path(args.out).resolve()
        for r in args.results:
            folder = Path(r).resolve() if Path(r).is_dir() else Path(r).resolve().parent
            if folder == out:
                raise ValueError(f"--out {args.out!r} holds the source {r!r}; the pooled result would replace it "
                                 f"(choose another folder)")
        res = pool_results([read_results(r) for r in args.results], sources=list(args.results))
        refuse_held_results(args.out, args.force)
        write_results(res, args.out, new=not args.force)
    except ValueError as err:
        print(f"treachery pool: error: {err}", file=sys.stderr)
        return 2
    s, m = res["summary"], res["meta"]
    print(f"{s['games']} games ({m['deals']} deals) of {len(m['pooled'])} evaluations, {deals_text(m)}, "
          f"mode {m['mode']}, {variants_text(m.get('config') or {})} (game: {game_text(m.get('config') or {})}): "
          f"{s['truncated']} truncated, {s['draws']} draws")
    _print_win_tables(res)
    print(f"results in {Path(args.out) / 'results.json'}, results.md and PNG plots")
    return 0


def _models(args: argparse.Namespace) -> int:
    from agents import NAMED_MODELS
    from agents.models import checked_policy, models, shown_path

    found = models()
    if not found:
        print("no shipped models: checkpoints/ holds no NAME/policy.pt with its MODEL_CARD.md")
        return 0
    print("| name | file | MB | checksum | the card's verdict |\n|---|---|---|---|---|")
    for m in found.values():
        try:
            checked_policy(m)
            ok = "ok"
        except ValueError as err:
            ok = "MISMATCH" if m.sha256 else "none in the card"
            warnings.warn(str(err), stacklevel=1)        # said as the CLI's other warnings (_show_warning)
        name = m.name if m.name in NAMED_MODELS else f"{m.name} (a bot's name: load it as policy:PATH)"
        print(f"| {name} | {shown_path(m.policy)} | {m.policy.stat().st_size / 1e6:.1f} | {ok} | "
              f"{m.verdict() or '–'} |")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``treachery`` command (``argv`` defaults to ``sys.argv[1:]``).

    Returns:
        the exit status: 0 on success, 2 for invalid arguments (an unknown
        agent spec, an invalid game option), refused before any game; argparse exits with 2 on
        malformed ones.  1 for a bot that failed in a game (``evaluate``, ``play``: its
        :class:`agents.play.BotError`, one line); other errors raised while playing propagate.
    """
    # the warnings in one form, those of the imports too (a stale compiled module's, said when
    # treachery_env is first imported: by build_parser, as this module imports none of it at its top)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _run(argv)


def _run(argv: Sequence[str] | None) -> int:
    """:func:`main`, its warnings formatted (:func:`_show_warning`).  Ctrl-C (or SIGTERM where a
    command catches it) before a command's own handling began, while the parser imports the
    package say, is one line (``treachery: interrupted``) and the exit status 130, not a traceback."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt as why:
        return _interrupted("treachery", why)
    if os.getcwd() not in sys.path:      # an outside bot (--agents MODULE:CLASS) may live in the current folder
        sys.path.append(os.getcwd())
    try:
        if args.command == "evaluate":
            return _evaluate(args)
        if args.command == "train":
            return _train(args, program=argv is None)
        if args.command == "export":
            return _export(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "graft":
            return _graft(args)
        if args.command == "pool":
            return _pool(args)
        if args.command == "models":
            return _models(args)
        if args.command == "play":
            from table.terminal import play_cli
            return play_cli(args)
        if args.command == "serve":
            from table.server import serve_cli
            return serve_cli(args)
    except KeyboardInterrupt as why:        # before a command's own handling began (importing torch, say)
        return _interrupted(f"treachery {args.command}", why)
    except BrokenPipeError:          # the output's reader left (`treachery models | head`): nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    parser.error(f"unknown command {args.command!r}")
    return 2


def _interrupted(who: str, why: KeyboardInterrupt) -> int:
    """Say on stderr that ``who`` (``"treachery train"``) was interrupted (``terminated (SIGTERM)``
    for :class:`training.interrupts.Terminated`) and return the exit status the signal gives."""
    from .interrupts import exit_status, stop_words
    print(f"{who}: {stop_words(why)}", file=sys.stderr)
    return exit_status(why)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings of a ``treachery`` command as one line on stderr, ``treachery: warning: ...``
    (not Python's two lines naming the CLI's own source)."""
    print(f"treachery: warning: {message}", file=file or sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
