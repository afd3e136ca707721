"""Instructions per ``env()`` agent-step, counted by callgrind, and a fingerprint
of everything the steps give (README, "Benchmarks").

Random-agent games of the default 5-player ``env()`` are recorded (seeded; the
agent picks uniformly among ``info["legal_actions"]``), then replayed through
``env()`` -- ``last()`` (observation and mask) and ``step()`` (the engine and
``info["view"]``) at every agent-step -- in two child processes under
``valgrind --tool=callgrind``: one replaying the first game only, one replaying
them all.  The difference of their instruction counts divided by the
difference of their agent-steps is the cost of an agent-step with the
start-up (imports, the first game's warm-up) cancelled; it does not depend on
the machine's load.  The same difference of inclusive counts is printed for
the main parts (``Game.step``, the observation encoder, the view builder, the
priority check and the option builders).

The fingerprint is a SHA-256 over every observation vector, action mask,
legal-action list, pickled ``info["view"]`` and each game's final digest, in replay
order: an optimisation that changes none of them leaves it alone.  A view's
sets of strings (a creature's keywords) pickle in the order of the string hash,
so the command runs with ``PYTHONHASHSEED=0`` (it starts itself again with it
when it is not set so): fingerprints of two processes compare.  The
recording stores the fingerprint of the recording run; a replay prints its own
and whether it matches.

    python bench/step_instructions.py [--games 4] [--seed 0] [--record FILE | --replay FILE] [--no-valgrind]
                                      [--keep DIR] [--force]

Without ``--record`` or ``--replay`` the games are recorded to a temporary
file.  ``--no-valgrind`` only replays and prints the fingerprint.  A
``--record`` file that exists, or callgrind output files already in the
``--keep`` folder, are refused before any work unless ``--force`` (then they
are replaced); each file is written whole, never over a file made meanwhile
without ``--force``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from agents.files import atomic_write_bytes, check_folder, check_writable_file, file_error_text, write_new_file

FORMAT = "treachery-step-record"
PLAYERS = 5

# The parts reported, by the C symbols of the compiled modules (Cython names a
# function __pyx_pw_<module path>_<class>_<n><name> for its Python entry point
# and __pyx_pf_... for its body; the larger inclusive count of the matches is
# the part's).
PARTS: dict[str, str] = {
    "env step (OrderEnforcingEnv.step)": r"__pyx_p[wf]_\d+treachery_env_\d+env_\d+OrderEnforcingEnv_\d+step$",
    "  Game.step": r"__pyx_p[wf]_\d+treachery_env_\d+engine_\d+game_\d+Game_\d+step$",
    "    Game._offer_priority": r"__pyx_p[wf]_\d+treachery_env_\d+engine_\d+priority_\d+PriorityMixin_\d+_offer_priority$",
    "      can_act (compiled)": r"__pyx_p[wf]_\d+treachery_env_\d+_priority_\d+can_act$",
    "      Game._priority_options": r"__pyx_p[wf]_\d+treachery_env_\d+engine_\d+priority_\d+PriorityMixin_\d+_priority_options$",
    "        Game._talk_options": r"__pyx_p[wf]_\d+treachery_env_\d+engine_\d+talk_\d+TalkMixin_\d+_talk_options$",
    "  rules.team_of (all callers)": r"__pyx_p[wf]_\d+treachery_env_\d+rules_\d+team_of$",
    "  view build (ViewBuilder.build)": r"__pyx_p[wf]_\d+treachery_env_\d+_view_\d+ViewBuilder_\d+build$",
    "env last (observation and mask)": r"__pyx_p[wf]_\d+treachery_env_\d+env_\d+OrderEnforcingEnv_\d+last$",
    "  observation_dict (the vector and the mask)": r"__pyx_p[wf]_\d+treachery_env_\d+_observation_\d+observation_dict$",
    "    observation encode": r"__pyx_p[wf]_\d+treachery_env_\d+_observation_\d+encode$",
    "memset (np.zeros' fill: rep stosb, counted per byte)": r"^__memset_\w+$",
}


def _env():
    from treachery_env import env
    return env(num_players=PLAYERS)


def play(e, seed: int, choose: Callable[[int, list], int], h=None) -> int:
    """One game of ``e`` (an ``env()``) reset with ``seed``, each acting agent's
    action ``choose(step, legal)`` (``step`` counts the game's agent-steps from
    0, ``legal`` is ``info["legal_actions"]``).  With ``h`` (a hashlib object)
    every observation vector, action mask, legal-action list and pickled
    ``info["view"]`` is fed to it, and the game's final digest.

    Returns:
        The game's agent-steps (actions taken; the finished agents' ``None`` steps not counted).
    """
    e.reset(seed=seed)
    steps = 0
    for _ in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = info["legal_actions"]
        if h is not None:
            h.update(obs["observation"].tobytes())
            h.update(obs["action_mask"].tobytes())
            h.update(np.asarray(legal, np.int64).tobytes())
            h.update(pickle.dumps(info["view"], protocol=5))
        e.step(choose(steps, legal))
        steps += 1
    if h is not None:
        h.update(e.unwrapped.game.digest().encode())
    return steps


def record(games: int, seed: int) -> dict:
    """``games`` random-agent games (game ``i`` reset with ``seed + i``, its agent
    drawing from ``numpy.random.default_rng([seed, i])``).

    Returns:
        The recording: ``{"format", "players", "seed", "games": [[action, ...], ...],
        "steps", "fingerprint"}`` (the fingerprint of this run, hex).
    """
    e, h, out = _env(), hashlib.sha256(), []
    for i in range(games):
        rng, acts = np.random.default_rng([seed, i]), []

        def choose(_k: int, legal: list) -> int:
            acts.append(int(legal[int(rng.integers(len(legal)))]))
            return acts[-1]

        play(e, seed + i, choose, h)
        out.append(acts)
    return {"format": FORMAT, "players": PLAYERS, "seed": seed, "games": out,
            "steps": sum(map(len, out)), "fingerprint": h.hexdigest()}


def write_output(path: str | Path, data: bytes, force: bool, what: str) -> None:
    """Write ``data`` to ``path`` whole (a temporary file beside it, then its name): with
    ``force`` replacing a file there, else only where no file is, even one made after the
    check before the work (:func:`agents.files.write_new_file`).

    Raises:
        ValueError: without ``force``, where ``path`` is taken (one line naming ``what``).
        OSError: if writing fails, naming the file; nothing is then left half written.
    """
    if force:
        atomic_write_bytes(path, data)
        return
    try:
        write_new_file(path, data, next_free=False)
    except FileExistsError:
        raise ValueError(f"{what} {str(path)!r} was made while this ran; give --force to replace it") from None


def check_outputs(record: str | None, keep: str | None, games: int, force: bool) -> None:
    """Refuse, before any work, a ``--record`` file or a ``--keep`` folder that could not be
    written, and without ``force`` a ``--record`` file that exists or a ``--keep`` folder that
    already holds the callgrind output files of this run (``callgrind.1.out``,
    ``callgrind.<games>.out``).

    Raises:
        ValueError: one line naming the option, the path and why.
    """
    if record is not None:
        check_writable_file(record, "--record")
        if not force and Path(record).exists():
            raise ValueError(f"--record {record!r} exists; give --force to replace it")
    if keep is not None:
        check_folder(keep, "--keep")
        there = [n for n in _callgrind_names(games) if (Path(keep) / n).exists()]
        if there and not force:
            raise ValueError(f"--keep {keep!r} already holds {' and '.join(there)}; give --force to replace them")


def _callgrind_names(games: int) -> list[str]:
    """The names of the callgrind output files of a measure of ``games`` games (:func:`measure`)."""
    return [f"callgrind.{k}.out" for k in (1, games)]


def load(path: str | Path) -> dict:
    """A recording written by ``--record``.

    Raises:
        ValueError: if the file is not such a recording (one line).
    """
    try:
        rec = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not a readable recording ({err})") from None
    if not isinstance(rec, dict) or rec.get("format") != FORMAT or rec.get("players") != PLAYERS:
        raise ValueError(f"{path}: not a {FORMAT} of {PLAYERS}-player games")
    return rec


def replay(rec: dict, games: int | None = None, fingerprint: bool = True) -> tuple[int, str | None]:
    """Replay the first ``games`` games of ``rec`` (all: None) through a fresh ``env()``.

    Returns:
        ``(agent-steps, fingerprint hex or None when not asked for)``.

    Raises:
        ValueError: when a recorded action is not legal where it is replayed, or
            a game ends before or after its recorded actions (one line: the
            recording was changed or made by code that plays differently).
    """
    e, h = _env(), hashlib.sha256() if fingerprint else None
    total = 0
    for i, acts in enumerate(rec["games"][:games]):
        def choose(k: int, legal: list) -> int:
            if k >= len(acts):
                raise ValueError(f"replay: game {i} goes on past its {len(acts)} recorded actions")
            if acts[k] not in legal:
                raise ValueError(f"replay: game {i}, agent-step {k}: recorded action {acts[k]} is not legal here "
                                 f"({len(legal)} legal actions); the recording does not match this game")
            return acts[k]

        n = play(e, rec["seed"] + i, choose, h)
        if n != len(acts):
            raise ValueError(f"replay: game {i} ended after {n} of its {len(acts)} recorded actions")
        total += n
    return total, (h.hexdigest() if h is not None else None)


def inclusive_counts(out_file: str) -> tuple[int, dict[str, int]]:
    """``(total Ir, {function: inclusive Ir})`` of a callgrind output file, read
    through ``callgrind_annotate --inclusive=yes``."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out_file],
                          check=True, capture_output=True, text=True).stdout
    total, fns = 0, {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*\S)\s*$", line)
        if not m:
            continue
        count, what = int(m.group(1).replace(",", "")), m.group(2)
        if what.startswith("PROGRAM TOTALS"):
            total = count
            continue
        fn = re.sub(r"\s*\[[^\]]*\]$", "", what).rsplit(":", 1)[-1].strip()
        fns[fn] = max(count, fns.get(fn, 0))
    return total, fns


def part_counts(fns: dict[str, int]) -> dict[str, int | None]:
    """The inclusive count of each of :data:`PARTS` (None: no symbol matches, e.g. not compiled)."""
    out = {}
    for part, pat in PARTS.items():
        hits = [c for f, c in fns.items() if re.search(pat, f)]
        out[part] = max(hits) if hits else None
    return out


def measure(path: str, games: int, workdir: str) -> tuple[float, dict[str, float | None], int]:
    """Callgrind runs of this script replaying game 1 and games 1..``games`` of
    ``path``, their output files written to ``workdir``.

    Returns:
        ``(instructions per agent-step, {part: inclusive instructions per agent-step or None}, agent-steps)``.

    Raises:
        RuntimeError: if valgrind is missing or a run fails.
    """
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        raise RuntimeError("valgrind (with callgrind_annotate) is not on PATH; --no-valgrind replays without it")
    procs = {}
    for k, name in zip((1, games), _callgrind_names(games)):     # both at once: each run is minutes under callgrind
        out = os.path.join(workdir, name)
        cmd = ["valgrind", "--tool=callgrind", "--dump-instr=no", f"--callgrind-out-file={out}",
               sys.executable, __file__, "--replay", path, "--games", str(k), "--child"]
        # PYTHONHASHSEED set: the child must not start itself again (valgrind would not follow);
        # one OpenBLAS thread: numpy's import starts idle BLAS threads whose spinning callgrind
        # counts (1-2k instructions an agent-step, differing from run to run); nothing here uses BLAS
        procs[k] = (out, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          env={**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}))
    runs = []
    for k, (out, proc) in procs.items():
        stdout, stderr = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"callgrind run of {k} game(s) failed: {stderr.strip().splitlines()[-1:]}")
        steps = int(re.search(r"child steps (\d+)", stdout).group(1))
        total, fns = inclusive_counts(out)
        runs.append((steps, total, part_counts(fns)))
    (s1, t1, p1), (s2, t2, p2) = runs
    ds = s2 - s1
    parts = {k: None if p1[k] is None or p2[k] is None else (p2[k] - p1[k]) / ds for k in PARTS}
    return (t2 - t1) / ds, parts, ds


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring).

    Returns:
        The exit status: 0, 1 when the replay's fingerprint differs from the
        recording's, 2 when the recording does not replay, an output file is
        refused (one that exists, without ``--force``) or cannot be written, or
        valgrind fails (said in one line on stderr).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, help="games to record (default 4), or the first games of --replay to "
                    "replay (default all); at least 2 to measure")
    ap.add_argument("--seed", type=int, default=0, help="seed of the recorded games (default 0)")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--record", metavar="FILE", help="record the games to FILE (JSON), then measure")
    src.add_argument("--replay", metavar="FILE", help="replay the games of FILE instead of recording")
    ap.add_argument("--no-valgrind", action="store_true", help="only replay and print the fingerprint")
    ap.add_argument("--keep", metavar="DIR", help="keep the two callgrind output files in DIR")
    ap.add_argument("--force", action="store_true",
                    help="replace the --record file or the callgrind files in --keep if they exist (default: refuse)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)     # the body measured under callgrind
    a = ap.parse_args(argv)
    if a.child:
        steps, _ = replay(load(a.replay), a.games, fingerprint=False)
        print(f"child steps {steps}")
        return 0
    try:
        rec = load(a.replay) if a.replay else None
        games = (len(rec["games"]) if rec else 4) if a.games is None else a.games
        if not 0 < games <= (len(rec["games"]) if rec else games):
            ap.error(f"--games must be from 1 to the {len(rec['games'])} games of {a.replay}" if rec else
                     "--games must be at least 1")
        if games < 2 and not a.no_valgrind:
            ap.error("measuring needs --games 2 or more (the first game's cost is subtracted)")
        check_outputs(a.record, None if a.no_valgrind else a.keep, games, a.force)
        with tempfile.TemporaryDirectory() as tmp:
            path = a.replay or a.record or os.path.join(tmp, "games.json")
            if rec is None:
                rec = record(games, a.seed)
                write_output(path, json.dumps(rec).encode(), a.force, "--record")     # whole: replayed later
                print(f"recorded {games} games (seed {a.seed}, {rec['steps']:,} agent-steps) to {path}")
            steps, fp = replay(rec, games)
            whole, same = games == len(rec["games"]), fp == rec["fingerprint"]
            print(f"fingerprint {fp} ({games} games, {steps:,} agent-steps)"
                  + (f": {'matches' if same else 'DIFFERS from'} the recording's" if whole else
                     f" (the recording's covers all {len(rec['games'])} games: not compared)"))
            if not a.no_valgrind:
                per_step, parts, ds = measure(path, games, tmp)
                if a.keep:
                    for name in _callgrind_names(games):
                        write_output(Path(a.keep) / name, Path(tmp, name).read_bytes(), a.force, "--keep file")
                print(f"callgrind, games 2..{games} ({ds:,} agent-steps): {per_step / 1e3:,.1f}k instructions per "
                      f"env() agent-step; inclusive, per agent-step:")
                for part, v in parts.items():
                    print(f"  {part:<56} {'n/a (no such symbol: not compiled?)' if v is None else f'{v / 1e3:8.1f}k'}")
    except (ValueError, RuntimeError) as err:      # a recording that does not replay; valgrind missing or failing
        print(f"step_instructions: {err}", file=sys.stderr)
        return 2
    except OSError as err:                          # an output file that could not be written
        print(f"step_instructions: {file_error_text(err)}", file=sys.stderr)
        return 2
    return 1 if whole and not same else 0


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":         # see the module docstring
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    sys.exit(main())
