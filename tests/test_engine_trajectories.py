"""Recorded random games play out exactly as recorded (issue #12, speed: the
engine's fast paths change no trajectory).

``data/engine_trajectories.json`` holds, for 40 random games of every variant
at 4-8 players (both window modes, talk on and off, several talk limits,
mulligans and none, concession, some with 10 lands per player so that
identities get unveiled and used), the number of actions, the automatic
decisions, a hash of every shown decision (seat, kind, options in order) and
the final digest, recorded with the engine before the speed work (commit
457d881).  Rerun this file as a script to record them again after a
deliberate rules change: ``python tests/test_engine_trajectories.py``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

from treachery_env import GameConfig
from treachery_env.engine import Game
from treachery_env.rules import VARIANTS

FIXTURE = Path(__file__).parent / "data" / "engine_trajectories.json"


def game_specs() -> list[tuple[dict, int, int]]:
    """(config keywords, seed, lands per player or 0) of the recorded games."""
    out = []
    tables = (4, 5, 6, 7, 8)
    for k in range(40):
        rng = random.Random(k)
        kw = dict(num_players=tables[k % 5], max_turns=rng.choice([30, 60]), commander=bool(k % 3),
                  starting_life=rng.choice([None, 12, 20]), variant=VARIANTS[(k // 5) % len(VARIANTS)],
                  identity_pool="all", priority_windows=("full", "main")[(k // 2) % 2],
                  talk=("structured", "structured", "none")[k % 3], talk_limit=rng.choice([1, 2, 3]),
                  mulligans=("london", "none")[(k // 7) % 2], concession=k % 11 == 0)
        out.append((kw, 2000 + k, 10 if k % 4 == 3 else 0))
    return out


def play(kw: dict, seed: int, lands: int) -> dict:
    """Play one recorded game with random legal actions; its record."""
    g = Game(GameConfig(**kw), seed=seed)
    if lands:
        for p in g.players:
            p.lands = lands
        g._advance()
    rng = random.Random(seed)
    h = hashlib.sha256()
    while not g.is_over:
        d = g.decision
        h.update(repr((d.seat, d.kind, [a for a, _ in d.options])).encode())
        a = rng.choice(d.options)[0]
        if a == g.layout.CONCEDE and rng.random() < 0.9:
            a = d.options[0][0]
        g.step(a)
    return {"actions": len(g.actions), "auto": g.auto_decisions, "decisions": h.hexdigest()[:32],
            "digest": g.digest()}


@pytest.mark.parametrize("k", range(0, 40, 5))
def test_recorded_games_play_out_as_recorded(k):
    """Each recorded game, played again with the same actions, shows the same
    decisions (seats, kinds, options in order), takes the same automatic
    decisions and ends in the same state."""
    recorded = json.loads(FIXTURE.read_text())
    for j in range(k, k + 5):
        kw, seed, lands = game_specs()[j]
        assert play(kw, seed, lands) == recorded[j], (j, kw, seed, lands)


if __name__ == "__main__":
    records = [play(*spec) for spec in game_specs()]
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(records, indent=1) + "\n")
    print(f"recorded {len(records)} games in {FIXTURE}", file=sys.stderr)
