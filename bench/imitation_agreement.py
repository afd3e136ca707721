"""How well each network architecture can imitate the heuristic bot (the ``agents.networks`` docstring's figures).

Offline behaviour cloning on the same data for every architecture: the
heuristic bot plays every seat of ``--games`` 5-player games (and
``--test-games`` others, held out); each network is fitted to the bot's
actions with the imitation update of :func:`training.ppo.ppo_update`
(recurrent chunks of ``bptt`` decisions, ``--epochs`` passes), then scored on
the held-out games, each seat's decisions run as one sequence: the share of
decisions where its most likely legal action is the bot's, overall and by
decision kind.  Agreement is not strength, but a network that cannot
represent the bot's choices cannot improve on them either (issue 13).

    python bench/imitation_agreement.py [--games 100] [--test-games 30] [--epochs 6] [--arch flat,entity]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

import agents
from agents.networks import build_network
from agents.policy import masked_logits
from training.config import TrainConfig
from training.ppo import ppo_update
from training.rollout import privileged_features, sparse_rows
from treachery_env import GameConfig
from treachery_env.engine import Game
from treachery_env.engine.state import DecisionKind
from treachery_env.view import ViewBuilder


def heuristic_games(games: int, seed: int, num_players: int = 5) -> dict:
    """Every seat's decisions in ``games`` all-heuristic games, as a batch for
    :func:`ppo_update` (``expert`` = the bot's action) plus ``kind`` (the decision
    kinds) and ``obs`` (the dense observations, float32 ``(N, D)``)."""
    cfg = GameConfig(num_players=num_players)
    cols: dict[str, list] = {k: [] for k in ("obs", "mask", "expert", "priv", "kind")}
    segments = []
    for gi in range(games):
        g = Game(cfg, seed=seed + gi)
        views = ViewBuilder(g)
        bots = [agents.make("heuristic", seed=seed * 100 + gi * num_players + s) for s in range(num_players)]
        for s, b in enumerate(bots):
            b.reset(s)
        per_seat: dict[int, list] = {s: [] for s in range(num_players)}
        while not g.is_over:
            s = g.current_player
            o = g.observation(s)
            a = int(bots[s].act(o, {"view": views.build(s)}))
            per_seat[s].append((o["observation"], o["action_mask"], a, privileged_features(g, s), g.decision.kind))
            g.step(a)
        for s in range(num_players):
            if per_seat[s]:
                segments.append((len(cols["obs"]), len(per_seat[s])))
                for row in per_seat[s]:
                    for k, v in zip(cols, row):
                        cols[k].append(v)
    out = {k: np.stack(v) if k != "kind" else np.asarray(v) for k, v in cols.items()}
    N = len(out["expert"])
    out.update(action=out["expert"], logp=np.zeros(N, np.float32), value=np.zeros(N, np.float32),
               adv=np.zeros(N, np.float32), ret=np.zeros(N, np.float32),
               belief_label=np.full((N, num_players - 1), -1, np.int8),
               prior=np.full(N, -1, np.int64),          # the networks compared here read no proposal
               expert_gain=np.zeros(N, np.float32),     # the heuristic expert does not search
               segments=np.asarray(segments, np.int64), **sparse_rows(out["obs"]))
    return out


@torch.no_grad()
def agreement(net: torch.nn.Module, data: dict) -> tuple[float, dict[str, float]]:
    """Top-1 agreement with ``data["expert"]``, overall and by decision kind (kinds with >= 30 decisions)."""
    hits = np.zeros(len(data["expert"]), bool)
    for start, length in data["segments"]:
        sl = slice(int(start), int(start + length))
        obs = torch.from_numpy(data["obs"][sl])[:, None]
        mask = torch.from_numpy(data["mask"][sl])[:, None]
        logits = masked_logits(net(obs, net.initial_state(1), mask=mask)[0], mask)[:, 0]
        hits[sl] = logits.argmax(-1).numpy() == data["expert"][sl]
    by_kind = {DecisionKind.NAMES[k]: float(hits[data["kind"] == k].mean())
               for k in np.unique(data["kind"]) if (data["kind"] == k).sum() >= 30}
    return float(hits.mean()), by_kind


def main(argv: list[str] | None = None) -> dict:
    """Run the comparison and print one table; returns ``{arch: (overall, by_kind)}``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100, help="training games (all-heuristic, 5 players)")
    ap.add_argument("--test-games", type=int, default=30, help="held-out games")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--arch", default="flat,entity", help="comma-separated TrainConfig.arch values")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--seed", type=int, default=1000, help="first training game's seed")
    ap.add_argument("--test-seed", type=int, default=90000, help="first held-out game's seed")
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    train_d = heuristic_games(a.games, a.seed)
    test_d = heuristic_games(a.test_games, a.test_seed)
    print(f"data: {len(train_d['expert'])} training and {len(test_d['expert'])} held-out decisions "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    train_d["h"] = np.zeros((len(train_d["expert"]), a.hidden), np.float32)   # each chunk starts from a zero state
    results = {}
    for arch in a.arch.split(","):
        cfg = TrainConfig(arch=arch, hidden=a.hidden, minibatch_steps=2048, bptt=16, epochs=1)
        torch.manual_seed(0)
        net = build_network(cfg.network_kwargs(train_d["obs"].shape[1], train_d["mask"].shape[1]))
        opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        rng = np.random.default_rng(0)
        t1 = time.perf_counter()
        for _ in range(a.epochs):
            ppo_update(net, opt, train_d, cfg, rng, imitate=True)
        results[arch] = agreement(net.eval(), test_d)
        print(f"{arch}: held-out agreement {results[arch][0]:.3f} ({time.perf_counter() - t1:.0f} s)", flush=True)
    kinds = sorted({k for _, by in results.values() for k in by})
    print("\n| kind | " + " | ".join(results) + " |\n|---|" + "---|" * len(results))
    print("| all | " + " | ".join(f"{r[0]:.3f}" for r in results.values()) + " |")
    for k in kinds:
        print(f"| {k} | " + " | ".join(f"{r[1][k]:.3f}" if k in r[1] else "" for r in results.values()) + " |")
    return results


if __name__ == "__main__":
    main()
