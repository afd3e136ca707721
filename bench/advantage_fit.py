"""Does the network's representation predict the lookahead teacher's search advantage? (issue 13)

The *cost-sensitive student*: instead of imitating the teacher's label with a
weighted cross-entropy, regress the search's advantage of each candidate over
the proposal, ``score[a] - score[proposal]`` (the teacher's mean paired
rollout scores, :attr:`agents.lookahead.LookaheadAgent.last_scores`, kept in
the labelled rollouts as ``expert_scores``), and leave the proposal only where
the predicted advantage exceeds a threshold.  This measures, offline on the
rollouts of ``bench/departure_fit.py`` (the same options, the same ``--data``
folders), whether that can gain:

1. the policy (``--policy``) is run over every fitted and held-out step as
   training reads them, and at every *searched* step (the teacher scored at
   least two candidates, the proposal among them) each other scored
   candidate ``a`` gives one example: its action features (the input of the
   entity network's action score, ``relu(q(z) + key_a)``, ``E`` floats), the
   proposal's, and the recurrent state ``z`` (``2H``), with the target
   ``score[a] - score[proposal]``;
2. a head (an MLP with two hidden layers of ``--hidden``) on those frozen
   features (``--features policy``), or on the combat features instead
   (``--features combat``: :func:`training.gate.gate_inputs`, 56 numbers read off the
   observation by :mod:`agents.candidates`), or on those and what each action is
   (``--features action``: its kind, the card it casts, an unveil's X, 145 numbers), or on the
   policy's and the combat features (``--features both``), is fitted to the targets (squared error, the targets times 10)
   for ``--epochs`` epochs over the fitted rollouts;
3. every ``--every`` epochs, on the held-out searched steps: the squared
   error against predicting 0, the correlation, and for each threshold the
   departures the head would take (its best candidate, where its predicted
   advantage is above the threshold) with their **realised gain**, the sum
   of their true advantages per 1,000 searched steps, and how many gain or
   lose more than 0.02.
4. with ``--save PATH`` (``--features combat`` or ``action``), the policy with the head
   fitted at the last epoch as its *advantage gate* is written there
   (:class:`agents.networks.EntityNet` with ``gate``; threshold
   ``--gate-threshold``): a policy that plays, without search, the best of the
   teacher's candidates where the head predicts more than the threshold over
   the proposal (:class:`agents.policy.PolicyAgent`), so the offline gain can
   be measured in play (``treachery evaluate``).

It also prints where the teacher's in-sample gain is, by decision kind
(:func:`teacher_by_kind`, over all the rollouts).

The reference rows: the policy's own greedy departures at the searched steps
(their realised gain; a departure to an action the teacher did not score
counts 0 and is counted apart), and the teacher's own departures (in sample:
it chose them by these very scores, so their gain is an upper bound, biased
up).  The policy's greedy gain against the teacher's is roughly the share of
the teacher's win-rate gain a policy keeps; a head whose realised gain is not
above the policy's at any threshold has not learnt what the search computes.

    python bench/advantage_fit.py [--data DIR] [--batches 16] [--heldout 4] [--epochs 20] [--every 5]
                                  [--hidden 128] [--thresholds 0 0.01 0.02 0.04 0.08]
                                  [--features {policy,combat,action,both}] [--save PATH [--gate-threshold 0.01]]
                                  (and departure_fit's options)
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.candidates import GATE_FEATURES
from agents.networks import GATE_SCALE, build_network, gate_head
from agents.policy import masked_logits, save_checkpoint
from training.gate import BIG, gate_inputs, realised_gain, searched
from training.ppo import _merge, _probe_sizes, init_weights, make_chunks
from training.rollout import batch_observations
from treachery_env.engine.state import DecisionKind
from treachery_env.observation import N_PHASES, PLAYER_ROLE, obs_layout
from treachery_env.rules import Role

_spec = importlib.util.spec_from_file_location("departure_fit", Path(__file__).with_name("departure_fit.py"))
departure_fit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(departure_fit)

@torch.no_grad()
def examples(net: nn.Module, batch: dict, bptt: int) -> dict:
    """Run ``net`` (an entity network) over ``batch`` as training reads it and return
    ``top`` int64 ``(N,)`` (its greedy action at every step) and, for every scored
    candidate other than the proposal at each :func:`searched` step, ``step`` int64
    ``(M,)``, ``act`` int64 ``(M,)``, ``x`` float32 ``(M, 2E + 2H)`` (the candidate's
    action features, the proposal's, ``z``) and ``y`` float32 ``(M,)`` (its advantage).

    Raises:
        ValueError: for a network without the entity action scoring.
    """
    if getattr(net, "arch", None) != "entity":
        raise ValueError(f"advantage_fit reads an entity network's action features, "
                         f"got arch {getattr(net, 'arch', None)!r}")
    net.eval()
    seen: dict = {}
    hooks = [net.score.register_forward_hook(lambda m, i, o: seen.__setitem__("f", i[0])),
             net.query.register_forward_hook(lambda m, i, o: seen.__setitem__("z", i[0]))]
    t = {k: torch.from_numpy(batch[k]) for k in ("h", "priv", "mask", "prior")}
    sc = batch["expert_scores"]
    ok = searched(batch)
    observations = batch_observations(batch, net.kwargs["obs_size"])
    chunks = make_chunks(batch["segments"], bptt)
    top = np.zeros(len(batch["prior"]), np.int64)
    out: dict[str, list] = {"step": [], "act": [], "x": [], "y": []}
    try:
        for s in range(0, len(chunks), 256):
            idx = torch.from_numpy(chunks[s:s + 256]).T
            flat = idx.clamp(min=0)
            mask = t["mask"][flat]
            logits, *_ = net(observations.rows(flat), t["h"][flat[0]], t["priv"][flat], mask=mask,
                             prior=t["prior"][flat])
            valid = idx >= 0
            top[idx[valid].numpy()] = masked_logits(logits, mask)[valid].argmax(-1).numpy()
            row, act = mask.reshape(-1, mask.shape[-1]).bool().nonzero(as_tuple=True)    # the order of the scores
            f, z = seen["f"].numpy(), seen["z"].reshape(-1, seen["z"].shape[-1]).numpy()
            rows, act = row.numpy(), act.numpy()
            step = idx.reshape(-1).numpy()[rows]
            at = np.maximum(step, 0)                                # padding (-1) reads step 0, then is dropped
            keep = (step >= 0) & ok[at] & ~np.isnan(sc[at, act])
            is_prop = act == batch["prior"][at]
            prop_entry = {int(step[e]): e for e in np.flatnonzero(keep & is_prop)}
            for e in np.flatnonzero(keep & ~is_prop):
                st = int(step[e])
                pe = prop_entry[st]
                out["step"].append(st)
                out["act"].append(int(act[e]))
                out["x"].append(np.concatenate([f[e], f[pe], z[rows[e]]]))
                out["y"].append(float(sc[st, act[e]] - sc[st, batch["prior"][st]]))
    finally:
        for h in hooks:
            h.remove()
    width = 2 * net.score.in_features + net.query.in_features
    return {"top": top, "step": np.asarray(out["step"], np.int64), "act": np.asarray(out["act"], np.int64),
            "x": np.asarray(out["x"], np.float32).reshape(-1, width), "y": np.asarray(out["y"], np.float32)}


def realised(step: np.ndarray, pred: np.ndarray, y: np.ndarray, rows: int, thresholds) -> list[dict]:
    """:func:`training.gate.realised_gain` for each threshold, with ``threshold`` in each row."""
    return [{"threshold": tau, **realised_gain(step, pred, y, rows, tau)} for tau in thresholds]


def policy_row(top: np.ndarray, batch: dict) -> dict:
    """The policy's greedy departures at the searched steps: ``taken``, ``gain`` (per 1,000
    searched steps), ``won``, ``lost`` and ``unscored`` (to actions the teacher did not score: counted 0)."""
    ok = searched(batch)
    p, sc = batch["prior"], batch["expert_scores"]
    d = np.flatnonzero(ok & (top != p))
    y = sc[d, top[d]] - sc[d, p[d]]
    unscored = int(np.isnan(y).sum())
    y = np.nan_to_num(y)
    return {"taken": len(d), "gain": 1000 * float(y.sum()) / max(int(ok.sum()), 1), "won": int((y > BIG).sum()),
            "lost": int((y < -BIG).sum()), "unscored": unscored}


def teacher_row(batch: dict) -> dict:
    """The teacher's own departures (its label is not the proposal) at the searched steps, in sample."""
    e = batch["expert"]
    row = policy_row(np.where(e >= 0, e, batch["prior"]), batch)
    del row["unscored"]
    return row


def step_groups(batch: dict, steps: np.ndarray, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """The decision kind (a ``DecisionKind`` value) and the observer's own role (a ``Role`` value) at
    each of ``steps``, read off their observations: two int64 arrays like ``steps``."""
    L = obs_layout(num_players)
    rows, inverse = np.unique(steps, return_inverse=True)
    kind, role = np.zeros(len(rows), np.int64), np.zeros(len(rows), np.int64)
    obs = batch_observations(batch, L.size)
    for s in range(0, len(rows), 2048):
        o = obs.rows(torch.from_numpy(rows[s:s + 2048])).dense().numpy()
        kind[s:s + 2048] = o[:, L.glob + N_PHASES:L.glob + N_PHASES + DecisionKind.COUNT].argmax(1)
        role[s:s + 2048] = o[:, L.players + PLAYER_ROLE:L.players + PLAYER_ROLE + 4].argmax(1)
    return kind[inverse], role[inverse]


def teacher_by_kind(batch: dict, num_players: int) -> dict[str, tuple[int, int, float]]:
    """Where the teacher's in-sample gain is: for each decision kind (``DecisionKind.NAMES``, read
    off the observation) with searched steps, ``(searched steps, departures, share)`` where share
    is the kind's part of the teacher's summed gain over the proposal (NaN when that sum is 0)."""
    ok = np.flatnonzero(searched(batch))
    kind = step_groups(batch, ok, num_players)[0]
    p, e, sc = batch["prior"][ok], batch["expert"][ok], batch["expert_scores"][ok]
    e = np.where(e >= 0, e, p)
    rows = np.arange(len(ok))
    gain = np.where(e != p, np.nan_to_num(sc[rows, e] - sc[rows, p]), 0.0)
    total = float(gain.sum())
    return {DecisionKind.NAMES[k]: (int((kind == k).sum()), int(((kind == k) & (e != p)).sum()),
                                    float(gain[kind == k].sum()) / total if total else float("nan"))
            for k in np.unique(kind)}


def fit_head(head: nn.Module, train: dict, test: dict, test_rows: int, epochs: int, every: int, thresholds,
             seed: int) -> Iterator[tuple[int, dict, list[dict]]]:
    """Fit ``head`` (:func:`agents.networks.gate_head`, in place: its output is the advantage times
    :data:`~agents.networks.GATE_SCALE`) on ``train``'s examples; every ``every`` epochs (and after
    the last) score it on ``test``'s and yield ``(epoch, {"mse", "zero_mse", "corr"}, realised(...))``."""
    opt = torch.optim.Adam(head.parameters(), lr=1e-3, eps=1e-5)
    x, y = torch.from_numpy(train["x"]), torch.from_numpy(train["y"]) * GATE_SCALE
    xt = torch.from_numpy(test["x"])
    g = torch.Generator().manual_seed(seed)
    for ep in range(1, epochs + 1):
        perm = torch.randperm(len(y), generator=g)
        for s in range(0, len(perm), 512):
            i = perm[s:s + 512]
            loss = ((head(x[i]).squeeze(-1) - y[i]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if ep % every == 0 or ep == epochs:
            with torch.no_grad():
                pred = head(xt).squeeze(-1).numpy() / GATE_SCALE
            yt = test["y"]
            corr = float(np.corrcoef(pred, yt)[0, 1]) if len(yt) > 1 and pred.std() > 0 else float("nan")
            fit = {"mse": float(np.mean((pred - yt) ** 2)), "zero_mse": float(np.mean(yt ** 2)), "corr": corr}
            yield ep, fit, realised(test["step"], pred, yt, test_rows, thresholds)


def main(argv: list[str] | None = None) -> int:
    """Collect (or reuse), run the policy, fit the head and print the tables; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + " Run from the repository root.",
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    departure_fit.add_collection_args(ap)
    ap.add_argument("--epochs", type=int, default=20, help="epochs of the head over the fitted examples")
    ap.add_argument("--every", type=int, default=5, help="score the head on the held-out steps every N epochs")
    ap.add_argument("--hidden", type=int, default=128, help="width of the head's two hidden layers")
    ap.add_argument("--thresholds", type=float, nargs="+", default=[0.0, 0.01, 0.02, 0.04, 0.08],
                    help="predicted advantages above which the head departs")
    ap.add_argument("--features", choices=("policy", "combat", "action", "both"), default="policy",
                    help="what the head reads: the policy's frozen action features, the combat features "
                         "(agents/combat.py) of the candidate and the proposal with the table's, the decision "
                         "kind and the own role, those and what each action is (agents/candidates.py), or the "
                         "policy's and the combat features")
    ap.add_argument("--save", default=None, metavar="PATH",
                    help="write --policy with the head fitted at the last epoch as its advantage gate there "
                         "(a policy.pt that agents.make('policy:PATH') plays; needs --features combat or action)")
    ap.add_argument("--gate-threshold", type=float, default=0.01,
                    help="the saved gate's threshold: the predicted advantage a candidate must exceed")
    a = ap.parse_args(argv)
    if a.epochs < 1 or a.every < 1 or a.hidden < 1:
        ap.error(f"--epochs, --every and --hidden must be >= 1, got {a.epochs}, {a.every} and {a.hidden}")
    if not all(np.isfinite(a.thresholds)) or not np.isfinite(a.gate_threshold):
        ap.error(f"--thresholds and --gate-threshold must be finite numbers, got {a.thresholds} "
                 f"and {a.gate_threshold}")
    if a.save and a.features not in GATE_FEATURES:
        ap.error(f"--save writes the head as the policy's advantage gate, which reads a gate feature set: "
                 f"it needs --features combat or action, got {a.features}")
    departure_fit.check_save(ap, a.save)
    collecting, config = departure_fit.check_collection(ap, a)
    if config.arch != "entity":
        ap.error(f"--config must train the entity network (arch = \"entity\"), got {config.arch!r}")
    data = departure_fit.open_data(ap, a)
    torch.manual_seed(a.seed)
    batches = departure_fit.collect(collecting, a.policy, a.batches, a.steps, a.seed, data)
    train, test = _merge(batches[:-a.heldout]), _merge(batches[-a.heldout:])
    net = build_network(config.network_kwargs(*_probe_sizes(config.game_config())))
    init_weights(net, a.policy)
    n = net.kwargs["num_players"]
    print("\nthe teacher's in-sample gain by decision kind, all rollouts:\n\n"
          "| decision kind | searched steps | departures | share of the gain |\n|---|---|---|---|")
    for kind, (m, d, share) in teacher_by_kind(_merge(batches), n).items():
        print(f"| {kind} | {m} | {d} | {share:.0%} |", flush=True)
    t0 = time.perf_counter()
    ex_train, ex_test = examples(net, train, config.bptt), examples(net, test, config.bptt)
    for ex, batch in ((ex_train, train), (ex_test, test)):
        if a.features != "policy":
            c = gate_inputs(batch, ex["step"], ex["act"], n, "combat" if a.features == "both" else a.features)
            ex["x"] = c if a.features in GATE_FEATURES else np.concatenate([ex["x"], c], 1)
    rows = int(searched(test).sum())
    print(f"\nfitted on {int(searched(train).sum())} searched steps ({len(ex_train['y'])} candidates), "
          f"held out {rows} ({len(ex_test['y'])}); features in {time.perf_counter() - t0:.0f} s\n")
    print("held out, departures at the searched steps:\n")
    print("| who | taken | realised gain per 1,000 searched steps | gain > 0.02 | loss > 0.02 |\n|---|---|---|---|---|")
    t = teacher_row(test)
    print(f"| the teacher (in sample: an upper bound) | {t['taken']} | {t['gain']:+.2f} | {t['won']} | {t['lost']} |")
    p = policy_row(ex_test["top"], test)
    print(f"| the policy, greedy ({p['unscored']} to unscored actions, counted 0) | {p['taken']} | {p['gain']:+.2f} "
          f"| {p['won']} | {p['lost']} |", flush=True)
    reads = {"policy": "the policy's frozen features", "combat": "the combat features",
             "action": "the combat features and what each action is",
             "both": "the policy's frozen features and the combat features"}[a.features]
    print(f"\nthe head on {reads} ({ex_test['x'].shape[1]} inputs), held out:\n")
    print("| epoch | squared error (0 predicted) | correlation | threshold | taken | realised gain per 1,000 | "
          "gain > 0.02 | loss > 0.02 |\n|---|---|---|---|---|---|---|---|")
    torch.manual_seed(a.seed)
    head = gate_head(ex_test["x"].shape[1], a.hidden)
    for ep, fit, table in fit_head(head, ex_train, ex_test, rows, a.epochs, a.every, a.thresholds, a.seed):
        for k, r in enumerate(table):
            lead = (f"| {ep} | {fit['mse']:.5f} ({fit['zero_mse']:.5f}) | {fit['corr']:.3f} " if k == 0
                    else "| | | ")
            print(f"{lead}| {r['threshold']:g} | {r['taken']} | {r['gain']:+.2f} | {r['won']} | {r['lost']} |",
                  flush=True)
    with torch.no_grad():
        pred = head(torch.from_numpy(ex_test["x"])).squeeze(-1).numpy() / GATE_SCALE
    kind, role = step_groups(test, ex_test["step"], n)
    print(f"\nthe head after epoch {a.epochs}, held out, by decision kind and by the own role (realised gain per "
          f"1,000 of all {rows} searched steps, so the rows of a column add up):\n")
    print("| group | threshold | taken | realised gain per 1,000 | gain > 0.02 | loss > 0.02 |\n|---|---|---|---|---|---|")
    groups = [(DecisionKind.NAMES[k], kind == k) for k in np.unique(kind)]
    groups += [(Role(r).name.lower(), role == r) for r in np.unique(role)]
    for name, sel in groups:
        for k, r in enumerate(realised(ex_test["step"][sel], pred[sel], ex_test["y"][sel], rows, a.thresholds)):
            print(f"| {name if k == 0 else ''} | {r['threshold']:g} | {r['taken']} | {r['gain']:+.2f} | {r['won']} "
                  f"| {r['lost']} |")
    if a.save:
        gated = build_network({**net.kwargs, "gate": a.hidden, "gate_threshold": a.gate_threshold,
                               "gate_features": a.features})
        gated.load_state_dict({**net.state_dict(), **{f"gate.{k}": v for k, v in head.state_dict().items()}})
        meta = {"fitted_by": "bench/advantage_fit.py", "from": a.policy, "epochs": a.epochs,
                "rollouts": a.batches - a.heldout, "steps_per_rollout": a.steps, "seed": a.seed}
        path = save_checkpoint(a.save, gated, config.game_config().to_dict(), meta=meta, new=True)
        print(f"\npolicy with the advantage gate (threshold {a.gate_threshold:g}) written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
