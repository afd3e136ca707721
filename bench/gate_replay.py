"""Which features carry the advantage gate: a run's online fit replayed on other inputs.

A run with ``gate`` (:class:`training.gate.GateFit`) keeps every example it
labelled in ``RUN/gate/examples_<iteration>.npz``: the inputs ``x``, the
teacher's advantage ``y`` and ``step`` (which decision of the batch each
candidate belongs to).  A feature set's inputs are columns of the inputs of
any set holding its blocks (:data:`agents.candidates.GATE_BLOCKS`,
:func:`~agents.candidates.feature_columns`): the examples of a run with
``gate_features = "all"`` give every set on the same decisions, those of an
``"action"`` or ``"leader"`` run that set and ``"combat"``.  This replays the run's fit, iteration by iteration,
for each set: a fresh gate (width ``--hidden``, seeded by ``--seed``) is
first scored on the iteration's examples (held out: it has not been fitted
to them) and then fitted as in training (:meth:`training.gate.GateFit.learn`:
``--epochs`` draws per example on average, minibatches from every example so
far, the played gate a running average).  It prints, for each set, the mean
held-out correlation and realised gain per 1,000 searched decisions
(:func:`training.gate.realised_gain` at ``--threshold``) over the first and
the last iterations, then over the later half of the iterations by decision
kind and by the learner's own role (read off the combat columns), so the rows
of a column add up to the total.  The rollouts are the same for every set,
so the difference is the features' alone.

    python bench/gate_replay.py RUN [--features combat action leader all] [--epochs E] [--hidden W]
                                [--threshold T] [--seed 0] [--first 10] [--last 20]

(``--features`` defaults to every set the run's examples hold; ``--epochs``, ``--hidden`` and
``--threshold`` to the run's ``gate_epochs``, ``gate`` and ``gate_threshold`` in its
``config.json``.  The set the examples hold is told by their width.)
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np
import torch

from agents.candidates import GATE_BLOCKS, GATE_FEATURES, KIND_COLUMN, feature_columns
from agents.networks import GATE_SCALE, EntityNet
from agents.play import first_line
from training.gate import GateFit, read_examples, realised_gain
from treachery_env.actions import ActionLayout
from treachery_env.engine.state import DecisionKind
from treachery_env.observation import obs_layout
from treachery_env.rules import Role

_FILE = re.compile(r"examples_(\d{6,})\.npz")


def read_run(run: Path) -> list[tuple[int, dict]]:
    """``[(iteration, {"x", "y", "step"})]`` of a run's kept examples, in iteration order.

    Raises:
        ValueError: (one line) for a folder without kept examples, a file that cannot be read,
            examples without ``step`` (kept before it was), or files of different widths.
    """
    folder = run / "gate"
    files = sorted((int(m.group(1)), p) for p in folder.glob("examples_*.npz") if (m := _FILE.fullmatch(p.name)))
    if not files:
        raise ValueError(f"{folder}: no kept examples of an advantage gate (examples_<iteration>.npz)")
    out = []
    for it, path in files:
        b = read_examples(path)
        if "x" not in b or "y" not in b:
            raise ValueError(f"{path}: not a file of the gate's examples (no 'x' and 'y')")
        if "step" not in b:
            raise ValueError(f"{path}: no 'step' (kept before the examples named their decisions); "
                             f"replay a run trained since")
        if b["x"].ndim != 2 or b["x"].shape[0] != len(b["y"]) or len(b["step"]) != len(b["y"]):
            raise ValueError(f"{path}: x of shape {b['x'].shape} for {len(b['y'])} targets and {len(b['step'])} steps")
        if out and b["x"].shape[1] != out[0][1]["x"].shape[1]:
            raise ValueError(f"{path}: {b['x'].shape[1]} inputs an example, the run's first file "
                             f"{out[0][1]['x'].shape[1]}: not one run's examples")
        out.append((it, b))
    return out


def kept_set(width: int) -> str:
    """The feature set whose rows are ``width`` wide (the widths differ).

    Raises:
        ValueError: (one line) for a width no set has."""
    for name, w in GATE_FEATURES.items():
        if w == width:
            return name
    raise ValueError(f"examples of {width} inputs are of no feature set "
                     f"({', '.join(f'{k}: {v}' for k, v in GATE_FEATURES.items())})")


def replay(batches: list[tuple[int, dict]], features: str, epochs: int, hidden: int, threshold: float,
           seed: int, num_players: int = 5) -> tuple[list[dict], np.ndarray]:
    """Replay the fit on ``features`` (its columns of the kept examples, :func:`kept_set`).

    Returns:
        ``(rows, pred)``: per iteration ``{"iteration", "corr", "gain", "taken", "rows"}`` (held out,
        before its fit), and every example's held-out prediction, in the examples' order.
    """
    torch.manual_seed(seed)
    n = num_players
    net = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=8, entity=8, prior="heuristic",
                    gate=hidden, gate_threshold=threshold, gate_features=features)
    fit, rng = GateFit(net, None), np.random.default_rng(seed)
    cols = feature_columns(kept_set(batches[0][1]["x"].shape[1]), features)
    rows, preds = [], []
    for it, b in batches:
        x = np.ascontiguousarray(b["x"][:, cols])
        with torch.no_grad():
            pred = (net.gate(torch.from_numpy(x)).squeeze(-1) / GATE_SCALE).numpy()
        preds.append(pred)
        ex = {"x": x, "y": b["y"], "step": b["step"], "rows": len(np.unique(b["step"]))}
        m = fit.learn(ex, it, epochs, rng)
        rows.append({"iteration": it, "corr": m.get("gate/corr", float("nan")), "gain": m.get("gate/gain", 0.0),
                     "taken": m.get("gate/taken", 0.0), "rows": ex["rows"]})
    return rows, np.concatenate(preds)


def groups(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The decision kind and the learner's own role (int64) of each example, off its combat columns."""
    kind = x[:, KIND_COLUMN:KIND_COLUMN + DecisionKind.COUNT].argmax(1)
    role = x[:, KIND_COLUMN + DecisionKind.COUNT:KIND_COLUMN + DecisionKind.COUNT + 4].argmax(1)
    return kind, role


def main(argv: list[str] | None = None) -> int:
    """Replay, print the tables; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + " Run from the repository root.")
    ap.add_argument("run", help="a run directory of a gated run (its gate/ folder)")
    ap.add_argument("--features", nargs="+", choices=list(GATE_FEATURES), default=None,
                    help="the feature sets replayed (default: every set the examples hold)")
    ap.add_argument("--epochs", type=int, default=None,
                    help="draws per example on average (default: the run's gate_epochs, else 10)")
    ap.add_argument("--hidden", type=int, default=None, help="the gate's width (default: the run's gate, else 128)")
    ap.add_argument("--threshold", type=float, default=None,
                    help="the predicted advantage a departure needs (default: the run's gate_threshold, else 0.01)")
    ap.add_argument("--seed", type=int, default=0, help="seeds the gate's weights and minibatches (default: 0)")
    ap.add_argument("--first", type=int, default=10, help="iterations averaged at the start (default: 10)")
    ap.add_argument("--last", type=int, default=20, help="iterations averaged at the end (default: 20)")
    a = ap.parse_args(argv)
    run = Path(a.run)
    if not run.is_dir():
        ap.error(f"{a.run!r} is not a directory")
    config = {}                                  # a folder of examples only: the built-in defaults
    if (run / "config.json").exists():
        try:
            config = json.loads((run / "config.json").read_text())
        except (OSError, ValueError) as err:
            ap.error(f"{run / 'config.json'} cannot be read ({first_line(err)}); give --epochs, "
                     f"--hidden and --threshold, or mend it")
        if not isinstance(config, dict):
            ap.error(f"{run / 'config.json'} is not a table of the run's settings")
    for name, key, default in (("epochs", "gate_epochs", 10), ("hidden", "gate", 128),
                               ("threshold", "gate_threshold", 0.01)):
        if getattr(a, name) is None:
            value = config.get(key)
            setattr(a, name, default if value is None else value)
    if a.epochs < 1 or a.hidden < 1 or a.first < 1 or a.last < 1:
        ap.error(f"--epochs, --hidden, --first and --last must be >= 1, got {a.epochs}, {a.hidden}, {a.first}, {a.last}")
    if not (isinstance(a.threshold, (int, float)) and 0 <= a.threshold < 2):
        ap.error(f"--threshold must be a number in [0, 2) (an advantage in score units), got {a.threshold}")
    torch.set_num_threads(1)                 # small minibatches: threads only contend (agents.policy.PolicyAgent)
    try:
        batches = read_run(run)
    except ValueError as err:
        ap.error(str(err))
    try:
        kept = kept_set(batches[0][1]["x"].shape[1])
        held = [f for f in GATE_BLOCKS if set(GATE_BLOCKS[f]) <= set(GATE_BLOCKS[kept])]
        a.features = list(dict.fromkeys(a.features or held))              # each set once
        for f in a.features:
            feature_columns(kept, f)
    except ValueError as err:
        ap.error(f"{run}: {err}")
    a.first, a.last = min(a.first, len(batches)), min(a.last, len(batches))
    y = np.concatenate([b["y"] for _, b in batches])
    step = np.concatenate([b["step"] + 10**9 * k for k, (_, b) in enumerate(batches)])   # unique across batches
    it = np.concatenate([np.full(len(b["y"]), k) for k, (_, b) in enumerate(batches)])
    kind, role = groups(np.concatenate([b["x"][:, :GATE_FEATURES["combat"]] for _, b in batches]))
    late = it >= len(batches) // 2
    late_rows = len(np.unique(step[late]))
    print(f"{run}: {len(batches)} iterations, {len(y):,} candidates at {len(np.unique(step)):,} searched decisions; "
          f"threshold {a.threshold:g}, {a.epochs} draws an example, width {a.hidden}, seed {a.seed}\n")
    print(f"| features | inputs | correlation, first {a.first} | last {a.last} | realised gain per 1,000, first "
          f"{a.first} | last {a.last} | replay s |\n|---|---|---|---|---|---|---|")
    preds = {}
    for f in a.features:
        t0 = time.perf_counter()
        rows, preds[f] = replay(batches, f, a.epochs, a.hidden, a.threshold, a.seed)
        corr = np.array([r["corr"] for r in rows])
        gain = np.array([r["gain"] for r in rows])
        print(f"| {f} | {GATE_FEATURES[f]} | {np.nanmean(corr[:a.first]):.3f} | {np.nanmean(corr[-a.last:]):.3f} "
              f"| {gain[:a.first].mean():+.2f} | {gain[-a.last:].mean():+.2f} | {time.perf_counter() - t0:.0f} |",
              flush=True)
    print(f"\nthe later {len(batches) - len(batches) // 2} iterations, held out, by group (realised gain per 1,000 "
          f"of all {late_rows:,} searched decisions there, so a column adds up; correlation within the group):\n")
    print("| group | candidates | " + " | ".join(f"{f}: corr | {f}: gain" for f in a.features) + " |")
    print("|---|---|" + "---|---|" * len(a.features))
    sel_groups = [(DecisionKind.NAMES[k], kind == k) for k in np.unique(kind)]
    sel_groups += [(Role(r).name.lower(), role == r) for r in np.unique(role)]
    for name, sel in [("all", np.ones_like(late))] + sel_groups:
        s = sel & late
        cells = []
        for f in a.features:
            p = preds[f][s]
            ok = s.sum() > 1 and p.std() > 0 and y[s].std() > 0
            c = float(np.corrcoef(p, y[s])[0, 1]) if ok else float("nan")
            g = realised_gain(step[s], p, y[s], late_rows, a.threshold)["gain"]
            cells.append(f"{c:.3f} | {g:+.2f}")
        print(f"| {name} | {int(s.sum()):,} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
