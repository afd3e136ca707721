"""What ``info["view"]`` costs an ``env()`` step, with each view builder (README, "Benchmarks").

Three ``env()`` of the default game (or ``--players``) play the same random
episodes, one episode each in turn (the order rotated): with the view built by
the compiled builder (``treachery_env._view``), by the Python one
(``view.PythonViewBuilder``), and without the view (``view_in_info=False``).
The view's cost is the difference of process time per agent step to the run
without it; process time, and the same episodes, make the figures steadier than
wall-clock rates on a shared machine.

    python bench/view_cost.py [--episodes 80] [--players 5]
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np

from treachery_env import GameConfig
from treachery_env import view as V

ENV = importlib.import_module("treachery_env.env")


def episode(e, seed: int) -> tuple[float, int]:
    """One random episode of ``e`` (the action drawn from the mask): process seconds and agent steps."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    steps = 0
    t0 = time.process_time()
    for _ in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[int(rng.integers(len(legal)))]))
        steps += 1
    return time.process_time() - t0, steps


def main(argv: list[str] | None = None) -> None:
    """Command line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=80)
    ap.add_argument("--players", type=int, default=5)
    a = ap.parse_args(argv)
    if a.episodes < 1:
        ap.error(f"--episodes must be >= 1, got {a.episodes}")
    cfg = GameConfig(num_players=a.players)
    modes = {"compiled": (V.ViewBuilder, True), "python": (V.PythonViewBuilder, True), "none": (V.ViewBuilder, False)}
    envs = {m: ENV.env(config=cfg, view_in_info=view) for m, (_, view) in modes.items()}
    cpu = dict.fromkeys(modes, 0.0)
    steps = dict.fromkeys(modes, 0)
    order = list(modes)
    try:
        for seed in range(a.episodes):
            order = order[1:] + order[:1]
            for m in order:
                ENV.ViewBuilder = modes[m][0]       # the builder env.py makes for its next game
                t, n = episode(envs[m], seed)
                cpu[m] += t
                steps[m] += n
    finally:
        ENV.ViewBuilder = V.ViewBuilder
    base = cpu["none"] / steps["none"]
    print(f"{a.players} players, {a.episodes} episodes, {steps['none']:,} agent steps each; compiled builder in use: "
          f"{V.VIEW_BUILDER}")
    for m in modes:
        cost = "" if m == "none" else f"   view {(cpu[m] / steps[m] - base) * 1e6:5.2f} µs a step"
        print(f"  {m:<9} {steps[m] / cpu[m]:>9,.0f} agent-steps per CPU second{cost}")


if __name__ == "__main__":
    main()
