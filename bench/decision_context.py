"""How often the observer's own decision context (``ObsLayout.context``) is
all zeros, per decision kind, over random games: the measure of issue #13
("51% of target choices carry an empty context").

Run from the repository root: ``PYTHONPATH=. python bench/decision_context.py
[games] [--handlers]`` (the Python encoder, so the numbers hold without the
compiled one built).  "no source": nothing but the purpose one-hot is set;
``--handlers`` lists those by handler / ask callback.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

import numpy as np

from treachery_env import GameConfig
from treachery_env import observation as obs
from treachery_env.engine import Game
from treachery_env.engine.state import DecisionKind
from treachery_env.rules import VARIANTS


def measure(games: int = 40, seed: int = 0) -> tuple[Counter, Counter, Counter, Counter]:
    """``(decisions, empty, bare, bare_by_handler)`` counted by decision kind
    name: ``empty`` the context is all zeros, ``bare`` it is apart from what
    the decision is for (the purpose one-hot, where the layout has one); by
    handler: the Decision's handler, or ``"ask:<fn>"`` for ``Game.ask``."""
    total, empty, bare, by_handler = Counter(), Counter(), Counter(), Counter()
    for k in range(games):
        n = 4 + k % 9
        cfg = GameConfig(num_players=n, variant=VARIANTS[k % len(VARIANTS)], identity_pool="all", max_turns=10 * n)
        g = Game(cfg, seed=seed + k)
        rng = random.Random(seed + k)
        while not g.is_over:
            d = g.decision
            L = obs.obs_layout(g.n)
            o = obs.encode_python(g, d.seat)
            name = DecisionKind.NAMES[d.kind]
            total[name] += 1
            block = o[L.context:L.talk]
            if not np.any(block):
                empty[name] += 1
            c = getattr(L, "ctx", None)
            if not np.any(block if c is None else o[L.context:c.purpose]):
                bare[name] += 1
                h = f"ask:{d.ctx[0]}" if d.handler == "_h_call" else d.handler
                by_handler[(name, h)] += 1
            g.step(rng.choice(g.legal_actions()))
    return total, empty, bare, by_handler


def main(argv: list[str]) -> None:
    """Command line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("games", type=int, nargs="?", default=40, help="random games to measure (default 40)")
    ap.add_argument("--handlers", action="store_true", help="list the contexts with no source by handler")
    a = ap.parse_args(argv)
    if a.games < 1:
        ap.error(f"games must be >= 1, got {a.games}")
    total, empty, bare, by_handler = measure(a.games)
    print(f"{'kind':10} {'decisions':>10} {'empty':>8} {'share':>7} {'no source':>10} {'share':>7}")
    for name in [*DecisionKind.NAMES, "all"]:
        t = sum(total.values()) if name == "all" else total[name]
        e = sum(empty.values()) if name == "all" else empty[name]
        b = sum(bare.values()) if name == "all" else bare[name]
        if t:
            print(f"{name:10} {t:10d} {e:8d} {e / t:7.1%} {b:10d} {b / t:7.1%}")
    if a.handlers:
        for (name, h), c in by_handler.most_common():
            print(f"  {name:10} {h:40} {c}")


if __name__ == "__main__":
    main(sys.argv[1:])
