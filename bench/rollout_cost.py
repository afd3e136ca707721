"""Where a training iteration's rollout time goes: learner steps collected per second by the
rollout workers alone, with and without the expert's labels and a pool of past policies.

Each row starts the configuration's worker pool (:class:`training.rollout.WorkerPool`, the
default training configuration but for ``--workers``), collects ``--steps`` learner steps
``--collects`` times with the same weights (a fresh network's, or ``--policy``'s) and reports
the median of the collects after the first ``--warmup`` (the games start together, so the first
collects are not typical), in ms of wall time per learner step:

* ``plain``: the learner's batched forward passes, the engine, the bots and their views;
* ``labels``: and the expert's label at every learner decision (what ``treachery train`` does
  whenever ``imitation``, ``imitation_coef`` or ``gate`` is above 0, as by default);
* ``labels+pool``: and ``--pool`` past policies in the pool (the default ``pool_size`` is 5), as
  a run has once it has taken that many snapshots.

``treachery train`` adds to these the weights it sends the workers every iteration and its
merging of their batches (its ``perf/rollout_s``).

    python bench/rollout_cost.py [--workers 2] [--steps 4096] [--collects 12] [--warmup 4]
                                 [--pool 5] [--policy PATH]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from agents.networks import build_network
from agents.policy import load_checkpoint
from training.config import TrainConfig
from training.rollout import Collector, WorkerPool


def measure(config: TrainConfig, weights: dict, steps: int, collects: int, warmup: int, labels: bool,
            pool: int) -> tuple[float, float]:
    """Median wall seconds a learner step over the collects after ``warmup``, and the median
    number of decisions (every seat's) a learner step, for one worker pool."""
    workers = WorkerPool(config, list(range(1, config.workers + 1)))
    try:
        changes = {i: weights for i in range(pool)}
        per_step, decisions = [], []
        for k in range(collects):
            t = time.perf_counter()
            _, _, info = workers.collect(weights, changes, steps, labels)
            dt = time.perf_counter() - t
            changes = {}
            if k >= warmup:
                per_step.append(dt / info["learner_steps"])
                decisions.append(info["decisions"] / info["learner_steps"])
        return statistics.median(per_step), statistics.median(decisions)
    finally:
        workers.close()


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + " Run from the repository root.")
    ap.add_argument("--workers", type=int, default=2, help="rollout worker processes (default 2)")
    ap.add_argument("--steps", type=int, default=4096, help="learner steps a collect (default 4096, a training "
                                                              "iteration's rollout_steps)")
    ap.add_argument("--collects", type=int, default=12, help="collects a row (default 12)")
    ap.add_argument("--warmup", type=int, default=4, help="first collects left out of the median (default 4)")
    ap.add_argument("--pool", type=int, default=5, help="past policies in the pool of the last row (default 5)")
    ap.add_argument("--policy", default=None, help="a checkpoint of the default network to play (default: "
                                                   "a fresh network's weights)")
    a = ap.parse_args(argv)
    for name, value, least in (("--workers", a.workers, 1), ("--steps", a.steps, 1), ("--collects", a.collects, 1),
                               ("--warmup", a.warmup, 0), ("--pool", a.pool, 0)):
        if value < least:
            ap.error(f"{name} must be at least {least}, got {value}")
    if a.warmup >= a.collects:
        ap.error(f"--warmup ({a.warmup}) must be below --collects ({a.collects}): the median needs a collect after it")
    config = TrainConfig(workers=a.workers)
    torch.manual_seed(0)
    probe = Collector(TrainConfig(workers=1, games_per_worker=1), 0)
    if a.policy:
        try:
            ck = load_checkpoint(a.policy)
        except ValueError as err:
            ap.error(f"--policy: {err}")
        if ck["model_kwargs"] != probe.net_kwargs:
            ap.error(f"--policy {a.policy!r} is not the default training configuration's network")
        weights = ck["model_state"]
    else:
        weights = build_network(probe.net_kwargs).state_dict()
    kept = f"collect {a.collects}" if a.collects - a.warmup == 1 else f"collects {a.warmup + 1}-{a.collects}"
    print(f"{a.workers} worker{'s' if a.workers != 1 else ''}, {a.steps} learner steps a collect, the median of "
          f"{kept}, {'the weights of ' + a.policy if a.policy else 'a fresh network'}; each row's time is the "
          f"whole collect's (the rows add to the one above)\n")
    print("| rollouts | ms a learner step | decisions a learner step |\n|---|---|---|")
    rows = [("plain", False, 0), ("labels", True, 0)] + ([(f"labels+pool of {a.pool}", True, a.pool)] if a.pool else [])
    for name, labels, pool in rows:
        s, d = measure(config, weights, a.steps, a.collects, a.warmup, labels, pool)
        print(f"| {name} | {s * 1e3:.3f} | {d:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
