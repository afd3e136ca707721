"""Can the network learn *where* the lookahead teacher departs from the heuristic? (issue 13)

Expert iteration distils the lookahead bot (:mod:`agents.lookahead`) into a
network that reads the heuristic's proposal (``prior = "heuristic"``); the
teacher's strength over the heuristic is in its *departures*, the few
decisions where its label differs from that proposal.  This measures, offline
and on fixed data, whether the network generalises them:

1. **collect**: the policy (``--policy``, with the training configuration
   ``--config``: one learner seat among heuristic bots) plays
   ``--batches`` rollouts of ``--steps`` learner decisions, sampled as in
   training (:meth:`training.rollout.Collector.collect`), the teacher labelling
   every decision (DAgger);
2. **fit**: the last ``--heldout`` batches are held out; the policy is fitted
   to the others with the training imitation update
   (:func:`training.ppo.ppo_update` with ``imitate=True``: the same loss,
   ``departure_weight``, ``score_coef`` and optimiser settings as the
   configuration, with ``--set`` overrides) for ``--passes`` passes over them;
3. **score**, before the first pass and after each, on the fitted and the
   held-out steps (each seat's steps in the recurrent chunks of training, from
   the stored recurrent states): top-1 agreement with the teacher over all
   labels and over the departures, *false departures* (the network's top-1
   leaves the proposal where the teacher did not), and at the end the
   held-out departures by the kinds of proposal and label
   (:meth:`treachery_env.actions.ActionLayout.decode`), and what a confidence
   margin would do: the departures the network would take where its best
   other logit beats the proposal's by more than a margin, how many are the
   teacher's and how many false (:func:`margin_table`).

A network that fits the departures it was shown but not the held-out ones has
not learnt what the search computes; more weight on the departures (or on
their search gain) cannot fix that.  ``--data DIR`` keeps the collected
batches (``batch_*.npz``) with what they were collected with
(``manifest.json``: policy, config, steps, seed, workers) and reuses
them when that matches (collecting only the ones missing); a folder collected
otherwise is refused.

    python bench/departure_fit.py [--batches 16] [--steps 4096] [--heldout 4] [--passes 6] [--workers 2]
                                  [--policy checkpoints/residual-departures/policy.pt]
                                  [--config training/configs/residual_departures.toml] [--data DIR] [--seed 101]
                                  [--fit-batches N] [--set KEY=VALUE ...] [--save PATH]
"""

from __future__ import annotations

import argparse
import io
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from agents.files import check_folder, check_writable_file, write_new_file
from agents.networks import build_network
from agents.policy import load_checkpoint, masked_logits, save_checkpoint
from training.cli import max_workers
from training.config import load_config
from training.ppo import _merge, _probe_sizes, init_weights, make_chunks, ppo_update
from training.rollout import WorkerPool, batch_observations, sparse_rows
from treachery_env.actions import ActionLayout


def collect(config, policy: str, batches: int, steps: int, seed: int, data: Path | None) -> list[dict]:
    """``batches`` labelled rollouts of ``steps`` learner decisions (see the module docstring):
    those ``data`` holds, then new ones collected (and saved there) with seeds that
    depend on how many were there, so that no rollout is collected twice."""
    have = sorted(data.glob("batch_*.npz"))[:batches] if data else []
    out = [dict(np.load(f)) for f in have]
    for b in out:                 # kept before observations were stored by their nonzero features
        if "obs" in b:
            b.update(sparse_rows(b.pop("obs")))
    if len(out) == batches:
        return out
    net = build_network(config.network_kwargs(*_probe_sizes(config.game_config())))
    init_weights(net, policy)
    pool = WorkerPool(config, [seed + 1000 * len(out) + w for w in range(config.workers)])
    try:
        while len(out) < batches:
            t = time.perf_counter()
            got, _, _ = pool.collect(net.state_dict(), {}, steps * config.workers, label_expert=True)
            for b in got[:batches - len(out)]:
                if data:
                    save_batch(data, len(out), b)
                out.append(b)
            print(f"collected {len(out)}/{batches} batches ({time.perf_counter() - t:.0f} s)", flush=True)
    finally:
        pool.close()
    return out


def save_batch(data: Path, number: int, batch: dict) -> Path:
    """Write ``batch`` to ``data/batch_NNN.npz`` at the first number from ``number`` on whose name is
    free, whole or not at all and never over a file, even one another run sharing ``data`` wrote
    after this one looked (:func:`agents.files.write_new_file`): numbered by a count, a batch
    replaced the one of that number after a gap in the numbering, or another run's.

    Returns:
        the path written.

    Raises:
        OSError: if writing fails, naming the file.
    """
    buf = io.BytesIO()
    np.savez(buf, **batch)
    while True:
        try:
            return write_new_file(data / f"batch_{number:03d}.npz", buf.getvalue(), next_free=False)
        except FileExistsError:
            number += 1


@torch.no_grad()
def legal_logits(net: torch.nn.Module, batch: dict, bptt: int) -> np.ndarray:
    """The network's masked logits at every step of ``batch``, float32 ``(N, A)`` (illegal
    actions very negative): each segment in chunks of ``bptt`` steps from the stored
    recurrent state, as training reads them."""
    net.eval()
    t = {k: torch.from_numpy(batch[k]) for k in ("h", "priv", "mask", "prior")}
    observations = batch_observations(batch, net.kwargs["obs_size"])
    chunks = make_chunks(batch["segments"], bptt)
    out = np.zeros(batch["mask"].shape, np.float32)
    for s in range(0, len(chunks), 256):
        idx = torch.from_numpy(chunks[s:s + 256]).T
        flat = idx.clamp(min=0)
        logits, *_ = net(observations.rows(flat), t["h"][flat[0]], t["priv"][flat], mask=t["mask"][flat],
                         prior=t["prior"][flat])
        valid = idx >= 0
        out[idx[valid].numpy()] = masked_logits(logits, t["mask"][flat])[valid].numpy()
    return out


def top_actions(net: torch.nn.Module, batch: dict, bptt: int) -> np.ndarray:
    """The network's most likely legal action at every step of ``batch``, int64 ``(N,)``."""
    return legal_logits(net, batch, bptt).argmax(1)


def margin_table(logits: np.ndarray, batch: dict, margins: tuple = (0.0, 0.5, 1.0, 2.0)) -> list[dict]:
    """Departures the network would take with a confidence margin: at each labelled
    step, its best action other than the proposal, taken where that logit beats the
    proposal's by more than ``m``.  For each ``m``: ``taken`` (steps), ``right`` (the
    teacher departed there, to that action), ``false`` (the teacher did not depart)
    and ``precision`` (right / taken; NaN when none is taken)."""
    e, p = batch["expert"], batch["prior"]
    rows = np.flatnonzero((e >= 0) & (p >= 0))
    lg = logits[rows].copy()
    own = lg[np.arange(len(rows)), p[rows]]
    lg[np.arange(len(rows)), p[rows]] = -np.inf
    alt, gap = lg.argmax(1), lg.max(1) - own
    dep = e[rows] != p[rows]
    out = []
    for m in margins:
        go = gap > m
        right, taken = int((go & dep & (alt == e[rows])).sum()), int(go.sum())
        out.append({"margin": m, "taken": taken, "right": right, "false": int((go & ~dep).sum()),
                    "precision": right / taken if taken else float("nan")})
    return out


def score(top: np.ndarray, batch: dict) -> dict:
    """Agreement of ``top`` with the teacher's labels: ``agree`` (all labels), ``departures``
    (their count), ``dep_agree`` (on them) and ``false_dep`` (share of the labels equal to
    the proposal where ``top`` is not)."""
    e, p = batch["expert"], batch["prior"]
    lab = e >= 0
    dep = lab & (p >= 0) & (e != p)
    same = lab & (e == p)
    return {"agree": float((top[lab] == e[lab]).mean()), "departures": int(dep.sum()),
            "dep_agree": float((top[dep] == e[dep]).mean()) if dep.any() else float("nan"),
            "false_dep": float((top[same] != p[same]).mean()) if same.any() else float("nan")}


def by_kind(top: np.ndarray, batch: dict, layout: ActionLayout, rows: int = 10) -> list[tuple[str, int, float]]:
    """The ``rows`` most frequent departure kinds ``"PROPOSAL->LABEL"`` with their count and agreement."""
    e, p = batch["expert"], batch["prior"]
    n, hit = Counter(), Counter()
    for i in np.flatnonzero((e >= 0) & (p >= 0) & (e != p)):
        k = f"{layout.decode(int(p[i]))[0]}->{layout.decode(int(e[i]))[0]}"
        n[k] += 1
        hit[k] += int(top[i] == e[i])
    return [(k, c, hit[k] / c) for k, c in n.most_common(rows)]


def add_collection_args(ap: argparse.ArgumentParser) -> None:
    """The options saying what is collected and kept (shared with ``bench/advantage_fit.py``)."""
    ap.add_argument("--policy", default="checkpoints/residual-departures/policy.pt", help="the policy collected with and fitted")
    ap.add_argument("--config", default="training/configs/residual_departures.toml",
                    help="training configuration (expert lookahead, prior heuristic) for collection and fit")
    ap.add_argument("--batches", type=int, default=16, help="rollouts collected")
    ap.add_argument("--steps", type=int, default=4096, help="learner decisions a rollout")
    ap.add_argument("--heldout", type=int, default=4, help="rollouts held out (the last ones)")
    ap.add_argument("--workers", type=int, default=2, help="collecting processes")
    ap.add_argument("--seed", type=int, default=101, help="seed of the collection and the fit")
    ap.add_argument("--data", default=None,
                    help="folder keeping the collected rollouts and what they were collected with (manifest.json); "
                         "reused when they match, refused when they do not")


def check_collection(ap: argparse.ArgumentParser, a: argparse.Namespace, overrides: list[str] = ()) -> tuple:
    """The configurations of the collection and of the fit (``--config`` with ``overrides``);
    ``ap.error`` (exit 2) for counts out of range, a missing or unreadable ``--policy``, a bad
    ``--config`` or one without ``expert = "lookahead"`` and ``prior = "heuristic"``."""
    if a.batches < 2 or not 1 <= a.heldout < a.batches:
        ap.error(f"need --batches >= 2 and 1 <= --heldout < --batches, got {a.batches} and {a.heldout}")
    if a.steps < 1 or a.workers < 1:
        ap.error(f"--steps and --workers must be >= 1, got {a.steps} and {a.workers}")
    if a.workers > max_workers():
        ap.error(f"--workers {a.workers} is too many: at most {max_workers()} worker processes on this machine")
    if not Path(a.policy).is_file():
        ap.error(f"--policy {a.policy!r} is not a file")
    try:
        load_checkpoint(a.policy)
    except ValueError as err:
        ap.error(f"--policy: {err}")
    try:
        collecting = load_config(a.config, [f"workers={a.workers}", f"init={a.policy}"])
        config = load_config(a.config, [f"workers={a.workers}", f"init={a.policy}", *overrides])   # the fit's
    except ValueError as err:
        ap.error(str(err))
    if collecting.expert != "lookahead" or collecting.prior != "heuristic" or config.prior != "heuristic":
        ap.error(f"--config must set expert = \"lookahead\" and prior = \"heuristic\" "
                 f"(got {config.expert!r}, {config.prior!r})")
    return collecting, config


def check_save(ap: argparse.ArgumentParser, save: str | None) -> None:
    """Refuse (``ap.error``, one line) a ``--save`` file that could not be written or exists (it
    is never replaced), before the collection and the fit, not after (one made meanwhile is kept
    too: the fit is written to the next free name, :func:`agents.files.write_new_file`)."""
    if save:
        try:
            check_writable_file(save, "--save")
        except ValueError as err:
            ap.error(str(err))
        if Path(save).exists():
            ap.error(f"--save {save!r} exists; it is never replaced")


def open_data(ap: argparse.ArgumentParser, a: argparse.Namespace) -> Path | None:
    """The ``--data`` folder, made with its ``manifest.json`` if new (None without ``--data``);
    ``ap.error`` (exit 2) for a file, or rollouts collected otherwise or without a manifest.  The
    manifest is written whole and only where none is, even one another run wrote after this one
    looked (:func:`agents.files.write_new_file`); that one is then compared as any other."""
    data = Path(a.data) if a.data else None
    if data:
        try:
            check_folder(data, "--data")
        except ValueError as err:
            ap.error(str(err))
        made_with = {"policy": a.policy, "config": a.config, "steps": a.steps, "seed": a.seed, "workers": a.workers}
        manifest = data / "manifest.json"
        if not manifest.exists():
            if any(data.glob("batch_*.npz")):
                ap.error(f"--data {str(data)!r} holds rollouts without a manifest.json saying how they were collected")
            try:
                write_new_file(manifest, json.dumps(made_with, indent=1).encode(), next_free=False)
                return data
            except FileExistsError:
                pass                # another run's, written meanwhile: compared below
        try:
            had = json.loads(manifest.read_text())
        except (OSError, ValueError):       # UnicodeDecodeError and JSONDecodeError are ValueErrors
            had = None
        if not isinstance(had, dict):
            ap.error(f"--data {str(data)!r}: its manifest.json cannot be read as the JSON object this script "
                     f"writes (how the rollouts were collected); use another --data folder")
        diff = sorted(k for k in made_with if had.get(k) != made_with[k])
        if diff:
            ap.error(f"--data {str(data)!r} holds rollouts collected with other "
                     + ", ".join(f"{k} ({had.get(k)!r}, not {made_with[k]!r})" for k in diff)
                     + "; use another --data folder")
    return data


def main(argv: list[str] | None = None) -> int:
    """Collect, fit and print the table; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + " Run from the repository root; the "
                                 "defaults collect 16 x 4,096 labelled decisions and fit 6 passes (~10 min on 2 cores).",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_collection_args(ap)
    ap.add_argument("--passes", type=int, default=6, help="imitation updates over the fitted rollouts")
    ap.add_argument("--fit-batches", type=int, default=None,
                    help="fit on only the first N of the rollouts not held out (a learning curve; default: all)")
    ap.add_argument("--save", default=None, metavar="PATH",
                    help="write the fitted policy there (a policy.pt that agents.make('policy:PATH') plays)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a setting of --config for the fit (not the collection), e.g. score_coef=1 "
                         "(repeatable)")
    a = ap.parse_args(argv)
    if a.fit_batches is not None and not 1 <= a.fit_batches <= a.batches - a.heldout:
        ap.error(f"--fit-batches must be in [1, {a.batches - a.heldout}], got {a.fit_batches}")
    if a.passes < 0:
        ap.error(f"--passes must be >= 0, got {a.passes}")
    check_save(ap, a.save)
    collecting, config = check_collection(ap, a, a.set)
    data = open_data(ap, a)
    torch.manual_seed(a.seed)
    batches = collect(collecting, a.policy, a.batches, a.steps, a.seed, data)
    train, test = _merge(batches[:-a.heldout][:a.fit_batches]), _merge(batches[-a.heldout:])
    net = build_network(config.network_kwargs(*_probe_sizes(config.game_config())))
    init_weights(net, a.policy)
    opt = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    rng = np.random.default_rng(a.seed)
    print(f"\nfitted on {len(train['action'])} steps ({score(train['expert'], train)['departures']} departures), "
          f"held out {len(test['action'])} ({score(test['expert'], test)['departures']}); "
          f"departure_weight {config.departure_weight}, score_coef {config.score_coef}, "
          f"learning rate {config.learning_rate}\n")
    print("| pass | fitted: agree | departures | false dep. | held out: agree | departures | false dep. |")
    print("|---|---|---|---|---|---|---|")
    for p in range(a.passes + 1):
        if p:
            ppo_update(net, opt, train, config, rng, imitate=True)
        f, h = score(top_actions(net, train, config.bptt), train), score(top_actions(net, test, config.bptt), test)
        print(f"| {p} | {f['agree']:.3f} | {f['dep_agree']:.3f} | {f['false_dep']:.3f} "
              f"| {h['agree']:.3f} | {h['dep_agree']:.3f} | {h['false_dep']:.3f} |", flush=True)
    if a.save:
        meta = {"fitted_by": "bench/departure_fit.py", "from": a.policy, "passes": a.passes,
                "rollouts": a.batches - a.heldout if a.fit_batches is None else a.fit_batches,
                "steps_per_rollout": a.steps, "overrides": a.set, "seed": a.seed}
        written = save_checkpoint(a.save, net, config.game_config().to_dict(), meta=meta, new=True)
        print(f"\nfitted policy written to {written}")
    layout = ActionLayout(config.game_config().num_players)
    logits = legal_logits(net, test, config.bptt)
    print("\n| held-out departure (proposal -> label) | count | agreement after the last pass |\n|---|---|---|")
    for k, c, acc in by_kind(logits.argmax(1), test, layout):
        print(f"| {k} | {c} | {acc:.2f} |")
    print("\nheld out, departing only where the best other logit beats the proposal's by more than a margin:\n")
    print("| margin | departures taken | right (the teacher's) | false (the teacher kept the proposal) | precision |")
    print("|---|---|---|---|---|")
    for r in margin_table(logits, test):
        print(f"| {r['margin']:g} | {r['taken']} | {r['right']} | {r['false']} | {r['precision']:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
