"""Fitting the advantage gate to the lookahead teacher's candidate scores (the cost-sensitive student).

A policy network made with ``gate`` (:class:`agents.networks.EntityNet`)
carries an MLP that predicts, at a decision the lookahead bot searches, how
much better the teacher's paired rollouts score a candidate than the proposal
the network reads (:meth:`~agents.networks.EntityNet.advantages`, on the
combat features of :func:`agents.combat.advantage_inputs`); at play time the
policy plays the best candidate where that prediction exceeds the threshold
(:class:`agents.policy.PolicyAgent`).  Imitating the teacher's *label* with a
cross-entropy did not carry its gain into the network (README, "Where
training stands"); regressing its *advantages* and departing only where a
gain is predicted is the cost-sensitive alternative: a departure's size and
sign are learnt, not only which action the teacher chose.

:func:`gate_examples` turns a labelled rollout (``expert_scores``, the
teacher's mean rollout score of each candidate, kept by
:class:`training.rollout.Collector` with ``expert = "lookahead"``) into one
example per scored candidate other than the proposal, and :func:`fit_gate`
first scores the gate on them (they are fresh: a held-out measure) and then
fits it, in every iteration of a run with ``gate`` > 0.

The gate reads only the observation (a function of the seat's information
set) and the proposal; nothing it is fitted to reaches the policy's other
weights (its loss has no gradient outside the gate).
"""

from __future__ import annotations

import numpy as np
import torch

from agents.combat import ADVANTAGE_INPUTS, advantage_inputs
from agents.networks import GATE_SCALE
from treachery_env.observation import obs_layout

from .rollout import batch_observations

__all__ = ["searched", "gate_examples", "gate_inputs", "realised_gain", "fit_gate", "GATE_MINIBATCH", "GATE_LEARNING_RATE", "BIG"]

GATE_MINIBATCH = 512
"""Examples per gradient step of :func:`fit_gate`."""

GATE_LEARNING_RATE = 1e-3
"""The gate's Adam learning rate (its own parameter group, :func:`training.ppo.make_optimizer`; the
rate of ``bench/advantage_fit.py``'s offline fit)."""

BIG = 0.02
"""A realised advantage above this counts as a gain, below minus this as a loss (the teacher's margin)."""


def searched(batch: dict) -> np.ndarray:
    """bool ``(N,)``: the steps where the teacher scored at least two candidates, the proposal among them."""
    sc, p = batch["expert_scores"], batch["prior"]
    ok = (~np.isnan(sc)).sum(1) >= 2
    return ok & (p >= 0) & ~np.isnan(sc[np.arange(len(p)), np.maximum(p, 0)])


def gate_examples(batch: dict, num_players: int, chunk: int = 2048) -> dict:
    """The gate's examples in a labelled batch: one per scored candidate other than the proposal
    at each :func:`searched` step.

    Args:
        batch: a merged rollout batch with ``expert_scores`` float32 ``(N, A)`` (NaN = not scored),
            ``prior`` int64 ``(N,)`` and the stored observations.
        num_players: seats ``n``.
        chunk: observations densified at a time.

    Returns:
        ``step`` int64 ``(M,)``, ``act`` int64 ``(M,)``, ``x`` float32 ``(M, ADVANTAGE_INPUTS)``
        (:func:`agents.combat.advantage_inputs` of the candidate against the proposal), ``y``
        float32 ``(M,)`` (the candidate's score minus the proposal's) and ``rows`` (the number of
        searched steps).
    """
    ok = searched(batch)
    sc, p = batch["expert_scores"], batch["prior"]
    step, act = np.nonzero(~np.isnan(sc) & ok[:, None])
    keep = act != p[step]
    step, act = step[keep].astype(np.int64), act[keep].astype(np.int64)
    y = (sc[step, act] - sc[step, p[step]]).astype(np.float32)
    return {"step": step, "act": act, "x": gate_inputs(batch, step, act, num_players, chunk), "y": y,
            "rows": int(ok.sum())}


def gate_inputs(batch: dict, step: np.ndarray, act: np.ndarray, num_players: int, chunk: int = 2048) -> np.ndarray:
    """float32 ``(M, ADVANTAGE_INPUTS)``: :func:`agents.combat.advantage_inputs` of each candidate
    ``act[i]`` against the proposal ``batch["prior"]`` at step ``step[i]``, read off that step's stored
    observation (densified ``chunk`` rows at a time)."""
    obs = batch_observations(batch, obs_layout(num_players).size)
    prior = torch.from_numpy(batch["prior"])
    x = np.zeros((len(step), ADVANTAGE_INPUTS), np.float32)
    for s in range(0, len(step), chunk):
        r = torch.from_numpy(step[s:s + chunk])
        a = torch.from_numpy(act[s:s + chunk]).unsqueeze(1)
        x[s:s + chunk] = advantage_inputs(obs.rows(r).dense(), a, prior[r], num_players)[:, 0].numpy()
    return x


def realised_gain(step: np.ndarray, pred: np.ndarray, y: np.ndarray, rows: int, threshold: float) -> dict:
    """The departures a predictor takes and what they realise.

    At each step (of ``step``, one entry per candidate) its candidate with the
    highest ``pred`` (the first of equal ones, in the examples' order) is
    taken where that prediction is above ``threshold``.

    Returns:
        ``taken``, ``gain`` (the sum of the taken candidates' true advantages
        ``y`` per 1,000 of ``rows`` searched steps), ``won`` and ``lost``
        (taken ones with ``y`` above :data:`BIG`, below ``-BIG``).
    """
    order = np.lexsort((-pred, step))
    first = np.ones(len(order), bool)
    first[1:] = step[order][1:] != step[order][:-1]
    best = order[first]
    go = best[pred[best] > threshold]
    return {"taken": len(go), "gain": 1000 * float(y[go].sum()) / max(rows, 1),
            "won": int((y[go] > BIG).sum()), "lost": int((y[go] < -BIG).sum())}


def fit_gate(net: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: dict, epochs: int,
             rng: np.random.Generator) -> dict:
    """Score the gate of ``net`` on a fresh labelled batch, then fit it there.

    The squared error of ``GATE_SCALE`` times the advantage (:data:`agents.networks.GATE_SCALE`)
    is minimised for ``epochs`` passes in shuffled minibatches of :data:`GATE_MINIBATCH`;
    ``optimizer`` steps only the gate's weights (no other weight has a gradient).

    Args:
        net: an :class:`~agents.networks.EntityNet` with a gate (updated in place).
        optimizer: an optimizer over (at least) the gate's parameters.
        batch: a merged labelled batch with ``expert_scores`` and ``prior``.
        epochs: passes over the batch's examples.
        rng: shuffles the examples.

    Returns:
        ``gate/examples``, ``gate/searched`` (searched steps), and before fitting
        ``gate/corr`` (correlation of prediction and advantage; NaN with fewer than
        two examples or a constant prediction), ``gate/taken``, ``gate/gain``,
        ``gate/won``, ``gate/lost`` (:func:`realised_gain` at the net's
        ``gate_threshold``), then ``gate/loss`` (the mean fitted loss). Without
        examples only the counts.

    Raises:
        ValueError: for a network without a gate or a batch without ``expert_scores``.
    """
    if getattr(net, "gate", None) is None:
        raise ValueError("fit_gate: the network has no advantage gate")
    if "expert_scores" not in batch:
        raise ValueError("fit_gate: the batch has no expert_scores (needs expert = \"lookahead\" labelling it)")
    ex = gate_examples(batch, net.num_players)
    out = {"gate/examples": float(len(ex["y"])), "gate/searched": float(ex["rows"])}
    if not len(ex["y"]):
        return out
    x, y = torch.from_numpy(ex["x"]), torch.from_numpy(ex["y"])
    with torch.no_grad():
        pred = (net.gate(x).squeeze(-1) / GATE_SCALE).numpy()
    ok = len(y) > 1 and pred.std() > 0 and ex["y"].std() > 0
    out["gate/corr"] = float(np.corrcoef(pred, ex["y"])[0, 1]) if ok else float("nan")
    r = realised_gain(ex["step"], pred, ex["y"], ex["rows"], net.gate_threshold)
    out.update({f"gate/{k}": float(v) for k, v in r.items()})
    losses = []
    for _ in range(epochs):
        perm = torch.from_numpy(rng.permutation(len(y)))
        for s in range(0, len(perm), GATE_MINIBATCH):
            i = perm[s:s + GATE_MINIBATCH]
            loss = ((net.gate(x[i]).squeeze(-1) - y[i] * GATE_SCALE) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    out["gate/loss"] = float(np.mean(losses))
    return out
