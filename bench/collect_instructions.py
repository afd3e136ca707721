"""Instructions per learner step of a rollout worker's collect, counted by callgrind (README, "Benchmarks").

Wall time on the project's shared 2-core VM swings by 2x from one hour to the next (its
``docs/native_core.md`` figures), more than most changes to a rollout worker gain; an
instruction count does not depend on the machine's load.  This runs what one worker process of
``treachery train`` runs (:func:`training.rollout.worker_collector`: the default training
configuration, one torch thread), its learner's weights those of a fresh seeded network or of
``--policy``, a pool of ``--pool`` copies of them, and collects ``--steps`` learner steps per
collect with the expert's labels (``--no-labels``: without), in two child processes under
``valgrind --tool=callgrind``: one doing ``--warmup`` collects, one doing ``--collects`` more.
The difference of their instruction counts divided by the difference of their learner steps is
the cost of a learner step with the start-up (imports, the network, the first games) cancelled.
The same difference is printed for the compiled parts (the engine's ``Game.step``, the
observation encoder, the seat views) and, by where the instructions run, for torch (its
libraries: the networks' forward passes and sampling), the Python interpreter (the bots, the
collector's own loop) and the compiled modules of ``treachery_env``.

The same seeds give the same games, so two commits compare learner step for learner step
(a change that alters the games says so in its learner steps per collect, also printed).
Valgrind runs the CPU it emulates (no AVX-512 or AMX): torch's share is that of its AVX2 code
paths, not of this machine's; the Python and engine shares are what they are natively.

    python bench/collect_instructions.py [--steps 512] [--collects 2] [--warmup 1] [--pool 5]
                                         [--policy PATH] [--no-labels] [--keep DIR] [--force]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_instructions import inclusive_counts, write_output  # noqa: E402  (this folder's script)

from agents.files import file_error_text  # noqa: E402

# Compiled parts, by their C symbols (see step_instructions.PARTS): the larger inclusive count of the matches
PARTS: dict[str, str] = {
    "engine steps (Game.step)": r"__pyx_p[wf]_\d+treachery_env_\d+engine_\d+game_\d+Game_\d+step$",
    "observation encoder (encode_sparse)": r"__pyx_p[wf]_\d+treachery_env_\d+_observation_\d+encode_sparse$",
    "seat views (ViewBuilder.build)": r"__pyx_p[wf]_\d+treachery_env_\d+_view_\d+ViewBuilder_\d+build$",
    "action masks (Game.legal_action_mask)":
        r"__pyx_p[wf]_\d+treachery_env_\d+engine_\d+game_\d+Game_\d+legal_action_mask$",
}

# Where instructions run (self counts by object file): the first pattern an object matches
OBJECTS: dict[str, str] = {
    "torch (libtorch*, MKL, oneDNN, OpenMP)": r"libtorch|libc10|libgomp|mkl|dnnl",
    "the Python interpreter (libpython)": r"libpython|/python3[.\d]*$",
    "treachery_env's compiled modules": r"treachery_env",
    "other compiled modules (numpy, agents' .so...)": r"\.so",
}


def child(steps: int, collects: int, pool: int, policy: str | None, labels: bool) -> None:
    """The measured body: ``collects`` collects of one worker's :class:`~training.rollout.Collector`;
    prints ``child steps N`` (the learner steps collected)."""
    import torch

    from agents.networks import build_network
    from agents.policy import load_checkpoint
    from training.config import TrainConfig
    from training.rollout import worker_collector

    config = TrainConfig()
    col = worker_collector(config.to_dict(), 1)
    if policy:
        weights = load_checkpoint(policy)["model_state"]
    else:
        torch.manual_seed(0)
        weights = build_network(col.net_kwargs).state_dict()
    col.set_weights(weights)
    col.update_pool({i: weights for i in range(pool)})
    total = 0
    for _ in range(collects):
        total += col.collect(steps, labels)[2]["learner_steps"]
    print(f"child steps {total}")


def object_counts(out_file: str) -> dict[str, int]:
    """Self instruction counts of a callgrind output file summed by :data:`OBJECTS` group."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", out_file],
                          check=True, capture_output=True, text=True).stdout
    out = dict.fromkeys(OBJECTS, 0)
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?.*\[([^\]]+)\]\s*$", line)
        if not m:
            continue
        obj = m.group(2)
        for group, pat in OBJECTS.items():
            if re.search(pat, obj):
                out[group] += int(m.group(1).replace(",", ""))
                break
    return out


def measure(a: argparse.Namespace, workdir: str) -> tuple[float, dict, int, list[int]]:
    """The two callgrind runs (both at once), output files in ``workdir``.

    Returns:
        ``(instructions per learner step, {part: inclusive instructions per learner step or None,
        group: self instructions per learner step}, learner steps measured, [learner steps of each run])``.

    Raises:
        RuntimeError: if valgrind is missing or a run fails.
    """
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        raise RuntimeError("valgrind (with callgrind_annotate) is not on PATH")
    procs = []
    for name, k in zip(_names(), (a.warmup, a.warmup + a.collects)):
        out = os.path.join(workdir, name)
        cmd = ["valgrind", "--tool=callgrind", "--dump-instr=no", f"--callgrind-out-file={out}",
               sys.executable, __file__, "--child", str(k), "--steps", str(a.steps), "--pool", str(a.pool)]
        cmd += (["--policy", a.policy] if a.policy else []) + (["--no-labels"] if a.no_labels else [])
        # one OpenBLAS and one OpenMP thread: idle pool threads' spinning would be counted
        env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        procs.append((out, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)))
    runs = []
    for out, proc in procs:
        stdout, stderr = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"a callgrind run failed: {stderr.strip().splitlines()[-1:]}")
        steps = int(re.search(r"child steps (\d+)", stdout).group(1))
        total, fns = inclusive_counts(out)
        parts = {p: max([c for f, c in fns.items() if re.search(pat, f)], default=None) for p, pat in PARTS.items()}
        runs.append((steps, total, {**parts, **object_counts(out)}))
    (s1, t1, p1), (s2, t2, p2) = runs
    ds = s2 - s1
    parts = {k: None if p1[k] is None or p2[k] is None else (p2[k] - p1[k]) / ds for k in p1}
    return (t2 - t1) / ds, parts, ds, [s1, s2]


def _names() -> list[str]:
    return ["callgrind.collect.warmup", "callgrind.collect.measured"]


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring).

    Returns:
        The exit status: 0, or 2 when an option is out of range, a --keep file exists
        (without ``--force``) or cannot be written, or valgrind fails (said in one line on stderr).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + " Run from the repository root.")
    ap.add_argument("--steps", type=int, default=512, help="learner steps a collect (default 512)")
    ap.add_argument("--collects", type=int, default=2, help="collects measured (default 2)")
    ap.add_argument("--warmup", type=int, default=1, help="collects first, not measured (default 1)")
    ap.add_argument("--pool", type=int, default=5, help="past policies in the pool (default 5, as a run has)")
    ap.add_argument("--policy", metavar="PATH", help="a checkpoint whose weights the learner and pool use "
                    "(default: a fresh network seeded 0)")
    ap.add_argument("--no-labels", action="store_true", help="without the expert's labels")
    ap.add_argument("--keep", metavar="DIR", help="keep the two callgrind output files in DIR")
    ap.add_argument("--force", action="store_true", help="replace the callgrind files in --keep if they exist")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)     # the body measured: this many collects
    a = ap.parse_args(argv)
    if a.child is not None:
        child(a.steps, a.child, a.pool, a.policy, not a.no_labels)
        return 0
    for name, value, low in (("--steps", a.steps, 1), ("--collects", a.collects, 1), ("--warmup", a.warmup, 0),
                             ("--pool", a.pool, 0)):
        if value < low:
            ap.error(f"{name} must be at least {low}")
    if a.policy and not Path(a.policy).is_file():
        ap.error(f"--policy {a.policy!r}: no such file")
    if a.keep and not a.force:
        there = [n for n in _names() if (Path(a.keep) / n).exists()]
        if there:
            print(f"collect_instructions: {Path(a.keep) / there[0]} exists (--force replaces it)", file=sys.stderr)
            return 2
    try:
        with tempfile.TemporaryDirectory() as tmp:
            per_step, parts, ds, runs = measure(a, tmp)
            if a.keep:
                for name in _names():
                    write_output(Path(a.keep) / name, Path(tmp, name).read_bytes(), a.force, "--keep file")
    except RuntimeError as err:                     # valgrind missing or failing
        print(f"collect_instructions: {err}", file=sys.stderr)
        return 2
    except OSError as err:                          # a --keep file that could not be written
        print(f"collect_instructions: {file_error_text(err)}", file=sys.stderr)
        return 2
    print(f"callgrind, collects {a.warmup + 1}..{a.warmup + a.collects} of {a.steps} learner steps "
          f"({ds:,} learner steps; {runs[0]:,} in the warm-up): {per_step / 1e3:,.1f}k instructions per learner step")
    for part, v in parts.items():
        label = ("inclusive, " if part in PARTS else "self, ") + part
        print(f"  {label:<60} {'n/a (no such symbol: not compiled?)' if v is None else f'{v / 1e3:8.1f}k'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
