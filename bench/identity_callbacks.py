"""How often the engine enters identity-card code, per decision: the callback rate a native
core with Python identities would pay (``docs/native_core.md``, "The identity cards").

Random legal play of whole default games (5 players) through :class:`treachery_env.engine.Game`
in pure Python (``TREACHERY_PURE_PYTHON=1``, set here before the package is imported, so the
profiler sees every call), counting with :func:`sys.setprofile`:

* calls of the identity framework's entry points (:mod:`treachery_env.identity_abilities`:
  ``can_activate``, ``fire_event``, ``resolve``, ...) per decision;
* entries into card code (a function of ``treachery_env/identity_cards/`` called from outside
  those modules), per game and per decision, by the engine function that called it (with its
  share) and by card function (named with its file and line: the ``extra_ok`` conditions are
  lambdas).

Usage::

    python bench/identity_callbacks.py [--games 20] [--seed 7] [--top 12]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

os.environ["TREACHERY_PURE_PYTHON"] = "1"      # before treachery_env is imported: the profiler sees the engine

import numpy as np  # noqa: E402

from treachery_env import identity_abilities  # noqa: E402
from treachery_env.config import GameConfig  # noqa: E402
from treachery_env.engine import Game  # noqa: E402

_CARDS = os.sep + "identity_cards" + os.sep
_FRAMEWORK = identity_abilities.__file__


def count(games: int, seed: int) -> dict:
    """Play ``games`` random games and count.

    Returns:
        ``{"games", "decisions", "framework": Counter(name -> calls), "entries":
        Counter((card function, caller) -> entries)}``.
    """
    entry_points = {n for n in dir(identity_abilities)
                    if callable(getattr(identity_abilities, n)) and not n.startswith("__")}
    framework: collections.Counter = collections.Counter()
    entries: collections.Counter = collections.Counter()

    def profile(frame, event, arg):
        if event != "call":
            return
        code = frame.f_code
        if code.co_filename == _FRAMEWORK and code.co_name in entry_points:
            caller = frame.f_back
            if caller is None or caller.f_code.co_filename != _FRAMEWORK:     # from the engine, not itself
                framework[code.co_name] += 1
        elif _CARDS in code.co_filename:
            caller = frame.f_back
            if caller is None or _CARDS not in caller.f_code.co_filename:
                where = f"{code.co_name} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
                entries[(where, caller.f_code.co_name if caller else "?")] += 1

    rng = np.random.default_rng(seed)
    decisions = 0
    for _ in range(games):
        g = Game(GameConfig(), seed=int(rng.integers(2**31)))
        sys.setprofile(profile)
        try:
            while not g.is_over:
                options = g.decision.options
                g.step(options[int(rng.integers(len(options)))][0])
                decisions += 1
        finally:
            sys.setprofile(None)
    return {"games": games, "decisions": decisions, "framework": framework, "entries": entries}


def main(argv: list[str] | None = None) -> int:
    """Count and print; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="random games to play (default 20)")
    ap.add_argument("--seed", type=int, default=7, help="seed of the deals and the actions (default 7)")
    ap.add_argument("--top", type=int, default=12, help="card functions listed (default 12)")
    a = ap.parse_args(argv)
    if a.games < 1 or a.top < 1:
        ap.error("--games and --top must be at least 1")
    r = count(a.games, a.seed)
    g, d = r["games"], r["decisions"]
    print(f"{g} games, {d:,} decisions ({d / g:,.0f} a game)\n")
    print("| framework entry point (from the engine) | calls a decision |\n|---|---|")
    for name, k in r["framework"].most_common():
        print(f"| `{name}` | {k / d:.3f} |")
    total = sum(r["entries"].values())
    print(f"\nentries into card code: {total / g:,.1f} a game, {total / d:.3f} a decision\n")
    by_caller: collections.Counter = collections.Counter()
    for (_, caller), k in r["entries"].items():
        by_caller[caller] += k
    print("| called from | entries a game | share |\n|---|---|---|")
    for caller, k in by_caller.most_common():
        print(f"| `{caller}` | {k / g:.1f} | {k / max(total, 1):.0%} |")
    print("\n| card function (file:line) | called from | entries a game |\n|---|---|---|")
    for (fn, caller), k in r["entries"].most_common(a.top):
        print(f"| `{fn}` | `{caller}` | {k / g:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
