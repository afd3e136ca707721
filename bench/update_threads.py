"""What the learner's update costs at each torch thread count and dtype, quiet and beside busy processes.

Backs :mod:`training.threads` (the trainer picks the update's thread count by
measurement): one rollout of the chosen configuration is collected, then the
same PPO update (:func:`training.ppo.ppo_update`) is timed ``--repeats`` times
at each thread count and each ``update_dtype`` of ``--dtypes`` (float32, or its matrix
products in bfloat16: :mod:`training.precision`), first on its own, then with ``--busy``
processes spinning beside it (as another program on the machine would).  It also counts the
update's floating-point operations (:func:`update_flops`) and prints the rate it runs at, beside
a large float32 matrix product's at the same thread count.

    python bench/update_threads.py [--arch flat|entity] [--steps 4096] [--threads 2,1] [--busy 1] [--repeats 3]
                                   [--dtypes float32,bfloat16]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from copy import deepcopy
from dataclasses import replace

import numpy as np
import torch

from agents.networks import build_network
from training.config import TrainConfig
from training.ppo import make_optimizer, ppo_update
from training.precision import UPDATE_DTYPES, autocast_dtype
from training.rollout import Collector


def timings(net: torch.nn.Module, batch: dict, config: TrainConfig, threads: int, repeats: int) -> list[float]:
    """Seconds of ``repeats`` updates on ``batch``, each of a fresh copy of ``net`` with a fresh
    optimizer and the same shuffling, so every repeat is the same work (an update of a network
    already fitted to the batch would stop its epochs early on the KL).

    Raises:
        RuntimeError: if an update stopped early after all (the timings would not compare).
    """
    torch.set_num_threads(threads)
    out = []
    for _ in range(repeats):
        copy = deepcopy(net)
        opt = make_optimizer(copy, config.learning_rate)
        t = time.perf_counter()
        metrics = ppo_update(copy, opt, batch, config, np.random.default_rng(0))
        out.append(time.perf_counter() - t)
        if metrics["epochs_run"] != config.epochs:
            raise RuntimeError(f"the update ran {metrics['epochs_run']} of {config.epochs} epochs")
    return out


def update_flops(net: torch.nn.Module, batch: dict, config: TrainConfig) -> int:
    """Floating-point operations of one update of a copy of ``net`` on ``batch``, as
    :class:`torch.utils.flop_counter.FlopCounterMode` counts them (matrix products and
    convolutions, forward and backward; elementwise work is not counted).  Counted with
    ``update_dtype`` float32, the same count as bfloat16's, so that ``"auto"``'s first
    measurement of the bfloat16 speed-up is not counted with it."""
    from torch.utils.flop_counter import FlopCounterMode

    copy = deepcopy(net)
    opt = make_optimizer(copy, config.learning_rate)
    with FlopCounterMode(display=False) as counter:
        ppo_update(copy, opt, batch, replace(config, update_dtype="float32"), np.random.default_rng(0))
    return int(counter.get_total_flops())


def matmul_rate(threads: int, size: int = 1024, repeats: int = 10) -> float:
    """FLOP/s of a ``size`` x ``size`` float32 matrix product at ``threads`` torch threads (the
    CPU's rate on large dense work, the ceiling an update's matrix products approach)."""
    torch.set_num_threads(threads)
    x, y = torch.randn(size, size), torch.randn(size, size)
    for _ in range(2):
        x @ y
    t = time.perf_counter()
    for _ in range(repeats):
        x @ y
    return 2 * size ** 3 * repeats / (time.perf_counter() - t)


def main(argv: list[str] | None = None) -> int:
    """Collect, time and print the table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + " Run from the repository root.")
    ap.add_argument("--arch", choices=("flat", "entity"), default="flat", help="the network; the default training configuration otherwise (default flat)")
    ap.add_argument("--steps", type=int, default=4096, help="learner steps in the rollout updated on (default 4096)")
    ap.add_argument("--threads", default=f"{torch.get_num_threads()},1", help=f"thread counts, comma-separated, each at most the CPUs (default {torch.get_num_threads()},1)")
    ap.add_argument("--busy", type=int, default=1, help="spinning processes beside the second round (0: none; default 1)")
    ap.add_argument("--repeats", type=int, default=3, help="updates timed per thread count and round (default 3)")
    ap.add_argument("--dtypes", default="float32,bfloat16",
                    help="update_dtype values, comma-separated: float32, bfloat16, auto (default float32,bfloat16)")
    a = ap.parse_args(argv)
    try:
        counts = [int(t) for t in a.threads.split(",")]
    except ValueError:
        ap.error(f"--threads must be comma-separated ints, got {a.threads!r}")
    dtypes = [d.strip().casefold() for d in a.dtypes.split(",")]
    if not set(dtypes) <= set(UPDATE_DTYPES):
        ap.error(f"--dtypes must be comma-separated names of {', '.join(UPDATE_DTYPES)}, got {a.dtypes!r}")
    if a.steps < 1 or a.repeats < 1 or a.busy < 0 or min(counts) < 1:
        ap.error("--steps, --repeats and every thread count must be >= 1, --busy >= 0")
    if max(counts) > (os.cpu_count() or 1):
        ap.error(f"--threads {max(counts)} is more than this machine's {os.cpu_count()} CPUs (the threads would "
                 f"wait for each other)")
    config = TrainConfig(arch=a.arch, workers=1, rollout_steps=a.steps)
    col = Collector(config, 1)
    torch.manual_seed(0)
    net = build_network(col.net_kwargs)
    col.set_weights({k: v.clone() for k, v in net.state_dict().items()})
    batch, _, info = col.collect(a.steps)
    flops = update_flops(net, batch, config)
    print(f"{a.arch} network, {info['learner_steps']} learner steps, {config.epochs} epochs, "
          f"minibatches of {min(config.minibatch_steps, info['learner_steps'])}; "
          f"{flops / 1e9:.1f} GFLOP an update ({flops / info['learner_steps'] / 1e6:.1f} MFLOP a learner step)\n")
    print("| beside it | threads | update_dtype | update s (each repeat) | mean | GFLOP/s | "
          "a 1024x1024 float32 matrix product, GFLOP/s |\n|---|---|---|---|---|---|---|")
    for busy in sorted({0, a.busy}):
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            for n in counts:
                for dtype in dtypes:
                    # "auto" measures its speed-up once a process, before its first update is timed
                    chosen = "bfloat16" if autocast_dtype(dtype) is not None else "float32"
                    ts = timings(net, batch, replace(config, update_dtype=dtype), n, a.repeats)
                    label = dtype if dtype == chosen else f"{dtype} ({chosen})"
                    print(f"| {busy} busy | {n} | {label} | {', '.join(f'{t:.2f}' for t in ts)} | {np.mean(ts):.2f} | "
                          f"{flops / np.mean(ts) / 1e9:.0f} | {matmul_rate(n) / 1e9:.0f} |", flush=True)
        finally:
            for p in spinners:
                p.kill()
                p.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
