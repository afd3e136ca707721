"""Self-play PPO for Treachery (issue 5, DESIGN section 6).

One shared recurrent policy (:mod:`agents.networks`, flat or entity) plays every
seat it holds; each iteration collects ``rollout_steps`` learner decisions
from batched games against the opponent mix (:mod:`training.rollout`), then
runs PPO (Schulman et al. 2017); with ``policy_lag = 1`` the workers collect
the next iteration's batch while this one's update runs, from the weights
before that update (:class:`training.config.TrainConfig`):

* masked categorical policy (illegal actions get ``-1e9`` logits);
* clipped surrogate ``-min(r A, clip(r, 1-eps, 1+eps) A)``, advantages from GAE
  (Schulman et al. 2016), normalised per minibatch;
* value loss ``0.5 (V - R)^2`` (optionally clipped), entropy bonus;
* auxiliary belief loss: cross-entropy of the belief head against the true
  role of each face-down opponent (privileged labels, training only);
* ``epochs`` passes over minibatches of recurrent chunks of ``bptt``
  consecutive decisions of one seat, each chunk starting from the recurrent
  state stored during the rollout ("stored state" truncated BPTT), short
  chunks packed several to a row of ``bptt`` steps (:func:`pack_chunks`), the
  rows split evenly into minibatches of about ``minibatch_steps // bptt`` rows
  (:func:`minibatch_bounds`: no small last minibatch);
* global grad-norm clipping, a linear or constant learning-rate schedule,
  early stop of the epochs when the approximate KL exceeds ``target_kl``;
  Adam fused into one kernel where torch has it on the CPU (:func:`make_optimizer`);
* the forward pass's matrix products in bfloat16 where ``update_dtype`` resolves
  to it (mixed precision, :mod:`training.precision`), everything else float32.

Imitation warm start (``config.imitation > 0``): for that first fraction of
the run the rollouts also record the expert bot's action at each learner
decision and the update replaces the clipped surrogate and entropy terms by
the cross-entropy to the expert's actions (DAgger, Ross et al. 2011), with no
KL early stop; the value and belief heads learn as usual.  PPO then takes
over from the imitating policy, with ``imitation_coef`` times the same
cross-entropy added to its loss (a behaviour-cloning anchor, as in DAPG,
Rajeswaran et al. 2018) when that is above 0, so the experts keep labelling.

A network with an advantage gate (``config.gate``) also has the gate fitted
after the update of every iteration to the lookahead teacher's candidate
scores of every batch of the run so far (:class:`training.gate.GateFit`, which
keeps them in ``run_dir/gate``); with ``freeze_policy`` the PPO and imitation
update is skipped and only the gate learns.

The opponent pool gets a frozen copy of the learner every ``snapshot_every``
iterations (the oldest leaves beyond ``pool_size``).  Checkpoints
(``run_dir/ckpt_<iteration>.pt``) hold everything to resume: weights,
optimizer, pool, counters and the config; ``run_dir/policy.pt`` is the latest
bare policy (for ``agents.make("policy:PATH")``).  All files are written
atomically, by one training at a time: a run holds its folder's lock
(:mod:`training.run_lock`) while it runs.  tensorboard logs go to
``run_dir/tb`` and one JSON line per iteration to ``run_dir/metrics.jsonl``.

Resuming (``train(config, resume=True)``) continues the same run: the same
config, counters, weights, optimizer state, opponent pool, learning-rate
schedule, time budget, progress (a larger budget does not send a run that
reached PPO back to imitation) and log files (tensorboard keeps every scalar up to the
checkpoint's learner step; ``metrics.jsonl`` keeps the lines up to its
iteration, and a torn last line is dropped) and the update's dtype that
``update_dtype = "auto"`` chose when the run began (:func:`_update_dtype`), and a
deterministic run's fixed thread count (:func:`_update_threads`).
Games in progress when the checkpoint was written are not saved; the workers
start new games (seeded from the master seed and the iteration).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import sys
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

import treachery_env
from agents.files import (atomic_write_bytes, check_folder, check_input_file, check_input_folder, move_to_new_name,
                          naming_the_file, os_reason)
from agents.networks import build_network
from agents.play import first_line
from agents.policy import load_checkpoint, masked_logits, save_checkpoint
from agents.policy import torch_threads as policy_torch_threads    # (the name torch_threads is a local below)
from treachery_env.config import field_text
from treachery_env.rules import Role

from .config import RUN_RELATIVE, TrainConfig, checkpoint_config, recorded_config
from .gate import GateFit
from .interrupts import DeferInterrupt, StopOnce, Terminated, stopping
from .precision import AUTO_MIN_SPEEDUP, autocast_dtype, resolve_update_dtype
from .rollout import GameStat, WorkerPool, batch_observations, reference_policy
from .run_lock import RunLock
from .threads import ThreadChoice

__all__ = ["train", "ppo_update", "make_chunks", "pack_chunks", "minibatch_bounds", "latest_checkpoint", "load_resumable", "read_metrics",
           "init_weights", "TrainResult", "TrainingInterrupted", "NothingToTrain"]

_CKPT = re.compile(r"^ckpt_(\d+)\.pt$")
ROLE_NAMES = [r.name.capitalize() for r in (Role.LEADER, Role.GUARDIAN, Role.ASSASSIN, Role.TRAITOR)]


def make_chunks(segments: np.ndarray, bptt: int) -> np.ndarray:
    """Split segments into recurrent chunks.

    Args:
        segments: int ``(S, 2)`` of ``(start, length)``.
        bptt: the longest chunk [decisions].

    Returns:
        int64 ``(C, bptt)`` step indices, ``-1`` for padding after a short chunk.
    """
    rows = []
    for start, length in segments:
        for c in range(0, int(length), bptt):
            k = min(bptt, int(length) - c)
            row = np.full(bptt, -1, np.int64)
            row[:k] = np.arange(start + c, start + c + k)
            rows.append(row)
    return np.stack(rows) if rows else np.zeros((0, bptt), np.int64)


def minibatch_bounds(rows: int, per_minibatch: int) -> np.ndarray:
    """Where an epoch's ``rows`` (packed rows of recurrent chunks) are cut into minibatches:
    ``k = max(1, round(rows / per_minibatch))`` minibatches of ``rows // k`` or ``rows // k + 1``
    rows each, so each is within half a minibatch of ``per_minibatch`` rows (a batch a little
    over a multiple of it, as two workers' collects overshooting ``rollout_steps`` by a few
    decisions make, no longer ends each epoch with a minibatch of a few rows: an optimizer
    step on a handful of rows, their advantages normalised among themselves: on one saved
    batch, 3 of its 15 minibatches held 2% of its steps and the update took 0.48-0.50 s against
    0.40-0.41 s split evenly, one run each on a shared machine).

    Args:
        rows: rows in the epoch (>= 0).
        per_minibatch: the rows a minibatch should have (>= 1).

    Returns:
        int64 ``(k + 1,)``: minibatch ``i`` is rows ``[bounds[i], bounds[i + 1])``; ``(1,)`` of 0
        for no rows.
    """
    if rows <= 0:
        return np.zeros(1, np.int64)
    k = max(1, (2 * rows + per_minibatch) // (2 * per_minibatch))       # rows / per_minibatch, halves rounded up
    return np.arange(k + 1, dtype=np.int64) * rows // k


def pack_chunks(chunks: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Lay recurrent chunks into rows of ``bptt`` steps, several short ones to a row.

    A segment's last chunk is usually short, so one chunk a row leaves a quarter or
    more of the update's positions padding; here each
    full chunk takes a row and the short ones are packed best-fit decreasing (by
    length; ties in a random order), a row starting its next chunk from that
    chunk's stored state (``starts``, read by the networks' ``forward``).  The
    rows come in a random order.

    Args:
        chunks: int ``(C, bptt)`` step indices, ``-1`` padding after a short chunk
            (:func:`make_chunks`).
        rng: orders the chunks and the rows.

    Returns:
        ``(rows, starts)``: int64 ``(R, bptt)`` step indices (``-1`` = padding, at the
        end of a row) and bool ``(R, bptt)``, true where a chunk begins (always at 0).
    """
    bptt = chunks.shape[1]
    lengths = (chunks >= 0).sum(1)
    order = rng.permutation(len(chunks))
    order = order[np.argsort(-lengths[order], kind="stable")]        # longest first, ties shuffled
    rows: list[list[int]] = []
    by_room: list[list[int]] = [[] for _ in range(bptt + 1)]          # rows by the steps they have left
    for c in order:
        k = int(lengths[c])
        room = next((r for r in range(k, bptt + 1) if by_room[r]), None)
        if room is None:
            rows.append([])
            i, room = len(rows) - 1, bptt
        else:
            i = by_room[room].pop()
        rows[i].append(int(c))
        by_room[room - k].append(i)
    out = np.full((len(rows), bptt), -1, np.int64)
    starts = np.zeros((len(rows), bptt), bool)
    for i, members in enumerate(rows):
        t = 0
        for c in members:
            k = int(lengths[c])
            out[i, t:t + k] = chunks[c, :k]
            starts[i, t] = True
            t += k
    perm = rng.permutation(len(rows))
    return out[perm], starts[perm]


def _merge(batches: list[dict]) -> dict:
    if len(batches) == 1:
        return batches[0]
    out, offset, segs = {}, 0, []
    for b in batches:
        segs.append(b["segments"] + np.array([offset, 0]))
        offset += len(b["action"])
    for k in batches[0]:
        out[k] = np.concatenate(segs) if k == "segments" else np.concatenate([b[k] for b in batches])
    return out


def make_optimizer(net: torch.nn.Module, learning_rate: float) -> torch.optim.Adam:
    """Adam (eps 1e-5) over ``net``'s parameters, fused into one kernel where this torch has it on
    the CPU (2.4 and later: ~5x faster steps, the same algorithm), else the per-tensor loop.

    An advantage gate's parameters (``gate.``) are left out: :class:`training.gate.GateFit`
    fits them with an optimizer of its own."""
    groups = [{"params": [p for k, p in net.named_parameters() if not k.startswith("gate.")]}]
    try:
        return torch.optim.Adam(groups, lr=learning_rate, eps=1e-5, fused=True)
    except RuntimeError:                  # torch 2.3: fused Adam is for CUDA only
        return torch.optim.Adam(groups, lr=learning_rate, eps=1e-5)


def _load_optimizer_state(optimizer: torch.optim.Optimizer, saved: dict) -> None:
    """Load a checkpoint's optimizer state into :func:`make_optimizer`'s optimizer.

    ``load_state_dict`` also restores the saved groups' settings; ``fused`` is put
    back to what this torch supports (a checkpoint from the unfused loop runs fused
    where it can, one written fused resumes on a torch without it).  Adam moments
    saved for a parameter's transpose (the flat network's first layer was an
    ``nn.Linear`` of weight ``(H, D)`` before :class:`agents.networks.ObservationEmbedding`
    stored it ``(D, H)``) are transposed to the parameter's layout, so such runs resume."""
    fused = optimizer.defaults.get("fused")
    optimizer.load_state_dict(saved)
    for group in optimizer.param_groups:
        group["fused"] = fused
        for p in group["params"]:
            for k, v in optimizer.state.get(p, {}).items():
                if torch.is_tensor(v) and v.dim() == 2 and v.shape != p.shape and v.shape == p.shape[::-1]:
                    optimizer.state[p][k] = v.t().contiguous()


def ppo_update(net: torch.nn.Module, optimizer: torch.optim.Optimizer, batch: dict, config: TrainConfig,
               rng: np.random.Generator, imitate: bool = False, anchor: float | None = None,
               threads: ThreadChoice | None = None) -> dict:
    """One PPO update over a rollout batch (see module docstring).

    Args:
        net: the learner (updated in place).
        optimizer: its optimizer (learning rate already set for this iteration).
        batch: a merged :meth:`training.rollout.Collector.collect` batch.
        config: PPO coefficients, ``epochs``, ``minibatch_steps``, ``bptt``, and
            ``update_dtype``: the forward pass autocasts its matrix products to
            bfloat16 where that resolves to it (:mod:`training.precision`).
        rng: shuffles the chunks.
        imitate: minimise the cross-entropy to ``batch["expert"]`` instead of
            the PPO policy terms (imitation phase; no KL early stop).  Otherwise
            labelled steps add ``anchor`` (default ``config.imitation_coef``)
            times that cross-entropy to the PPO loss.
        threads: chooses each minibatch's torch thread count by measurement
            (:class:`training.threads.ThreadChoice`, told each minibatch's
            seconds per padded step); None runs every minibatch with the
            threads already set.

    Returns:
        means over minibatches of ``policy_loss``, ``value_loss``, ``entropy``,
        ``belief_loss``, ``approx_kl``, ``clip_fraction``, ``grad_norm``; plus
        ``belief_accuracy`` (top-1 on scored labels, first epoch), with
        expert labels also ``imitation_loss`` and ``imitation_accuracy`` (top-1
        agreement with the expert, first epoch), ``departure_share`` (the share
        of labelled steps whose label differs from the proposal the network
        read, ``batch["prior"]``) and ``departure_accuracy`` (top-1 agreement on
        those; NaN without any), ``departure_gain`` (their mean search gain,
        ``batch["expert_gain"]``) and ``gain_captured`` (the share of that gain
        the network's top-1 takes: agreement on departures weighted by gain;
        NaN when no departure has a gain),
        with ``config.score_coef`` and searched steps ``score_loss`` (the score
        distillation cross-entropy, see :class:`TrainConfig`) and ``score_top1``
        (the share of searched steps where the network's most likely candidate
        is the one the search scored best, first epoch),
        with ``config.kl_policy`` ``ref_kl`` (the mean ``KL(pi_ref || pi)``
        over legal actions, the term ``kl_coef`` weighs),
        ``explained_variance`` of the rollout values and ``epochs_run``; with
        ``threads``, ``update_threads``: the mean thread count over minibatches.
    """
    net.train()
    anchor = config.imitation_coef if anchor is None else anchor
    t = {k: torch.from_numpy(v) for k, v in batch.items() if k != "segments" and not k.startswith("obs_")}
    observations = batch_observations(batch, net.kwargs["obs_size"])
    chunks = make_chunks(batch["segments"], config.bptt)
    per_mb = max(1, config.minibatch_steps // config.bptt)
    low = autocast_dtype(config.update_dtype)
    sums: dict[str, float] = {}
    count = 0
    acc_hits = acc_n = 0.0
    imit_hits = imit_n = 0.0
    dep_hits = dep_n = 0.0
    gain_hits = gain_n = 0.0
    score_hits = score_n = 0.0
    epochs_run = 0
    used = []                          # each minibatch's thread count, with ``threads``
    for epoch in range(config.epochs):
        rows, row_starts = pack_chunks(chunks, rng)
        kls = []
        bounds = minibatch_bounds(len(rows), per_mb)
        for s, e in zip(bounds[:-1], bounds[1:]):
            if threads is not None:
                n_threads = threads.next()
                if n_threads != torch.get_num_threads():
                    torch.set_num_threads(n_threads)
                t_mb = time.perf_counter()
            idx = torch.from_numpy(rows[s:e]).T                            # (L, R)
            valid = idx >= 0
            flat = idx.clamp(min=0)
            obs = observations.rows(flat)                                  # (L, R) of D features
            mask = t["mask"][flat]
            with torch.autocast("cpu", dtype=low or torch.bfloat16, enabled=low is not None):
                logits, value, belief, _ = net(obs, t["h"][flat], t["priv"][flat], mask=mask,
                                               prior=t["prior"][flat], starts=torch.from_numpy(row_starts[s:e]).T)
            logits, value, belief = logits.float(), value.float(), belief.float()    # the losses in float32
            logits = masked_logits(logits, mask)
            logp_all = torch.log_softmax(logits, dim=-1)
            act = t["action"][flat]
            logp = logp_all.gather(-1, act.unsqueeze(-1)).squeeze(-1)
            # softmax, not logp_all.exp(): the same probabilities, and torch's exp runs ~10x slower on the
            # masked actions' log-probabilities (~-1e9) than on ordinary numbers (softmax has its own)
            probs = torch.softmax(logits, dim=-1)
            entropy = -(probs * torch.where(probs > 0, logp_all, 0.0)).sum(-1)
            v = valid.float()
            nv = v.sum().clamp(min=1)
            adv = t["adv"][flat]
            mean = (adv * v).sum() / nv
            std = (((adv - mean) ** 2 * v).sum() / nv).sqrt()
            adv = (adv - mean) / (std + 1e-8)
            log_ratio = logp - t["logp"][flat]
            ratio = log_ratio.exp()
            pg = -torch.min(ratio * adv, ratio.clamp(1 - config.clip, 1 + config.clip) * adv)
            policy_loss = (pg * v).sum() / nv
            ret = t["ret"][flat]
            if config.value_clip > 0:
                old = t["value"][flat]
                vc = old + (value - old).clamp(-config.value_clip, config.value_clip)
                vl = torch.max((value - ret) ** 2, (vc - ret) ** 2)
            else:
                vl = (value - ret) ** 2
            value_loss = 0.5 * (vl * v).sum() / nv
            ent = (entropy * v).sum() / nv
            labels = t["belief_label"][flat].long()                        # (L, C, n-1)
            scored = (labels >= 0) & valid.unsqueeze(-1)
            if scored.any():
                bl = torch.nn.functional.cross_entropy(belief[scored], labels[scored])
                if epoch == 0:
                    acc_hits += float((belief[scored].argmax(-1) == labels[scored]).sum())
                    acc_n += float(scored.sum())
            else:
                bl = torch.zeros(())
            loss = config.vf_coef * value_loss + config.belief_coef * bl
            expert = t["expert"][flat]
            labelled = (expert >= 0) & valid
            if imitate and not labelled.any():
                raise ValueError("imitation update on a batch without expert labels")
            if labelled.any():
                # gathered before the labelled steps are picked: a copy of one number a step, not of A
                nll = -logp_all.gather(-1, expert.clamp(min=0).unsqueeze(-1)).squeeze(-1)[labelled]
                # departures: the expert's label differs from the proposal the network read
                prop = t["prior"][flat][labelled]
                departed = (prop >= 0) & (expert[labelled] != prop)
                gain = t["expert_gain"][flat][labelled]
                w = torch.where(departed, config.departure_weight + config.gain_weight * gain, torch.ones_like(nll))
                il = (w * nll).sum() / w.sum()
                sums["imitation_loss"] = sums.get("imitation_loss", 0.0) + il.item()
                if epoch == 0:
                    hit = logp_all.argmax(-1)[labelled] == expert[labelled]
                    imit_hits += float(hit.sum())
                    imit_n += float(labelled.sum())
                    dep_hits += float((hit & departed).sum())
                    dep_n += float(departed.sum())
                    gain_hits += float((gain * (hit & departed)).sum())
                    gain_n += float((gain * departed).sum())
            else:
                il = torch.zeros(())
            sl = torch.zeros(())
            if config.score_coef and "expert_scores" in t:
                sc = t["expert_scores"][flat]                                  # (L, C, A), NaN = not scored
                cand = ~torch.isnan(sc)
                rows = (cand.sum(-1) >= 2) & valid
                if rows.any():
                    c_r = cand[rows]
                    off = torch.full_like(logits[rows], -math.inf)
                    s_r = torch.where(c_r, sc[rows], off)                      # scores, -inf off the candidates
                    l_r = torch.where(c_r, logits[rows], off)                  # logits, likewise
                    target = torch.softmax(s_r / config.score_temperature, dim=-1)
                    logq = torch.log_softmax(l_r, dim=-1)
                    sl = -(target * torch.where(c_r, logq, torch.zeros_like(logq))).sum(-1).mean()
                    sums["score_loss"] = sums.get("score_loss", 0.0) + sl.item()
                    if epoch == 0:
                        score_hits += float((l_r.argmax(-1) == s_r.argmax(-1)).sum())
                        score_n += float(rows.sum())
            if config.kl_coef:
                pr = t["ref_probs"][flat]                                  # (L, C, A), 0 where illegal
                kl_ref = torch.where(pr > 0, pr * (pr.clamp(min=1e-12).log() - logp_all), torch.zeros_like(pr))
                rkl = (kl_ref.sum(-1) * v).sum() / nv
                sums["ref_kl"] = sums.get("ref_kl", 0.0) + rkl.item()
                loss = loss + config.kl_coef * rkl
            if imitate:
                loss = loss + il + config.score_coef * sl
            else:
                loss = loss + policy_loss - config.ent_coef * ent + anchor * (il + config.score_coef * sl)
            optimizer.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                kl = float((((ratio - 1) - log_ratio) * v).sum() / nv)
                cf = float((((ratio - 1).abs() > config.clip).float() * v).sum() / nv)
            kls.append(kl)
            if threads is not None:
                threads.record(n_threads, time.perf_counter() - t_mb, idx.numel())
                used.append(n_threads)
            for k, val in (("policy_loss", policy_loss.item()), ("value_loss", value_loss.item()),
                           ("entropy", ent.item()), ("belief_loss", bl.item()), ("approx_kl", kl),
                           ("clip_fraction", cf), ("grad_norm", gn.item())):
                sums[k] = sums.get(k, 0.0) + val
            count += 1
        epochs_run += 1
        if not imitate and config.target_kl > 0 and np.mean(kls) > config.target_kl:
            break
    net.eval()
    out = {k: v / max(count, 1) for k, v in sums.items()}
    y, yhat = batch["ret"], batch["value"]
    var = float(np.var(y))
    out["explained_variance"] = float(1 - np.var(y - yhat) / var) if var > 0 else float("nan")
    out["belief_accuracy"] = acc_hits / acc_n if acc_n else float("nan")
    out["epochs_run"] = epochs_run
    if used:
        out["update_threads"] = float(np.mean(used))
    if imit_n:
        out["imitation_accuracy"] = imit_hits / imit_n
        out["departure_share"] = dep_n / imit_n
        out["departure_accuracy"] = dep_hits / dep_n if dep_n else float("nan")
        out["departure_gain"] = gain_n / dep_n if dep_n else float("nan")
        out["gain_captured"] = gain_hits / gain_n if gain_n else float("nan")
    if score_n:
        out["score_top1"] = score_hits / score_n
    return out


# --------------------------------------------------------------------------- checkpoints
def latest_checkpoint(run_dir: str | os.PathLike) -> Path | None:
    """The ``ckpt_<iteration>.pt`` with the highest iteration in ``run_dir`` (None if there is none)."""
    d = Path(run_dir)
    if not d.is_dir():
        return None
    found = [(int(m.group(1)), p) for p in d.iterdir() if (m := _CKPT.match(p.name))]
    return max(found)[1] if found else None


def load_resumable(run_dir: str | os.PathLike, warn: bool = True) -> tuple[Path, dict]:
    """The newest checkpoint of ``run_dir`` that loads, and its payload.

    A ``ckpt_*.pt`` that cannot be loaded (truncated or corrupt, say by a kill
    while the disk was full) is skipped and the previous one tried, with a warning naming it
    (a Python warning; ``treachery train`` says it as its other warnings) unless ``warn`` is
    False: :func:`train`, which sets such a checkpoint aside and says so then, once
    (:func:`_set_aside_unloadable`).

    Raises:
        ValueError: if ``run_dir`` does not exist or is a file (one line saying which,
            :func:`agents.files.check_input_folder`), has no ``ckpt_*.pt``, or none of them loads.
    """
    d = check_input_folder(run_dir, "run folder")
    found = sorted(((int(m.group(1)), p) for p in d.iterdir() if (m := _CKPT.match(p.name))), reverse=True)
    if not found:
        raise ValueError(f"nothing to resume: no ckpt_*.pt in {str(d)!r}")
    for _, path in found:
        try:
            return path, load_checkpoint(path)
        except ValueError as err:
            if warn:
                warnings.warn(f"checkpoint {path.name} cannot be loaded, trying the one before it ({first_line(err)})",
                              stacklevel=2)
    raise ValueError(f"nothing to resume: none of the {len(found)} ckpt_*.pt in {str(d)!r} can be loaded")


#: temporary files of :func:`agents.files.atomic_write_bytes` for this run's checkpoints, metrics and
#: config.json, and (in ``run_dir/gate``) for its advantage gate's examples
_LEFTOVER = re.compile(r"^\.(ckpt_\d+\.pt|policy\.pt|metrics\.jsonl|config\.json|examples_\d+\.npz)\.[A-Za-z0-9_]+\.tmp$")


def _clean_leftovers(run_dir: Path) -> None:
    """Remove temporary files a killed run left of its checkpoints, metrics or gate examples."""
    for folder in (run_dir, run_dir / "gate"):
        for p in folder.iterdir() if folder.is_dir() else ():
            if _LEFTOVER.match(p.name) and p.is_file():
                p.unlink()


def _set_aside_unloadable(run_dir: Path, iteration: int) -> None:
    """Rename each ``ckpt_*.pt`` of ``run_dir`` after ``iteration`` (the checkpoint a run resumes
    from) that cannot be loaded (:func:`load_resumable` skipped it) to ``<name>.corrupt``, or the
    next free name (``<name>-2.corrupt``, ...; never over a file, even one made meanwhile:
    :func:`agents.files.move_to_new_name`), with a warning each, the one said of it (:func:`train`
    asks :func:`load_resumable` for the checkpoint to resume without its warning): as a
    checkpoint it would count among the newest that the run keeps (``keep_checkpoints``) and have
    good ones deleted in its place; renamed, its bytes are kept for whoever wants to look at them.

    Raises:
        OSError: if a rename fails, naming the files."""
    found = sorted((int(m.group(1)), p) for p in run_dir.iterdir() if (m := _CKPT.match(p.name)))
    for n, path in found:
        if n <= iteration:
            continue
        try:
            load_checkpoint(path)
        except ValueError as err:
            aside = move_to_new_name(path, path.with_name(path.name + ".corrupt"))
            warnings.warn(f"checkpoint {path.name} cannot be loaded ({first_line(err)}); renamed it {aside.name}, "
                          f"so that the checkpoints the run keeps are ones that load; the run resumes from "
                          f"iteration {iteration}", stacklevel=2)


def _machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}, Python {platform.python_version()}, " \
           f"torch {torch.__version__}"


class NothingToTrain(ValueError):
    """A resume refused because the run is trained already (its checkpoint is at the run's
    total steps, or one more iteration would pass its time budget); ``policy`` is the file of
    that checkpoint's policy (the run's ``policy.pt`` when it is the newest checkpoint)."""

    def __init__(self, message: str, policy: str):
        super().__init__(message)
        self.policy = policy


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or SIGTERM ended a :func:`train` run.

    The iteration under way when it came was finished or dropped whole: the
    collection of rollouts is dropped, an update already begun is finished
    with its metrics line and checkpoint.  ``checkpoint`` is the run's newest
    checkpoint, written on the way out when the last finished iteration had
    none (a second Ctrl-C or SIGTERM meanwhile is ignored; ``None``: no
    iteration of this run finished and none existed);
    ``iteration`` is that iteration; ``signal_name`` is ``"SIGINT"`` or ``"SIGTERM"``.
    """

    def __init__(self, checkpoint: Path | None, iteration: int, signal_name: str = "SIGINT"):
        super().__init__(f"interrupted ({signal_name}) after iteration {iteration}")
        self.checkpoint = checkpoint
        self.iteration = iteration
        self.signal_name = signal_name


class TrainResult(dict):
    """What :func:`train` returns: ``checkpoint`` (last ``ckpt_*.pt``), ``policy``
    (``policy.pt``), ``steps``, ``iterations``, ``wall_s``, ``history`` (one
    metrics dict per iteration run in this call), and ``start_steps``,
    ``start_wall_s`` (where this call began: 0 for a new run, the checkpoint's
    for a resume)."""


def _game_metrics(games: list[GameStat]) -> dict:
    """Learner win rates by opponent kind and dealt role over finished games."""
    out: dict[str, float] = {}
    tally: dict[tuple, list] = {}
    for g in games:
        for role, r in g.seats:
            for key in ((g.kind, ROLE_NAMES[role]), (g.kind, "all")):
                w = tally.setdefault(key, [0, 0])
                w[0] += r > 0
                w[1] += 1
    for (kind, role), (wins, n) in tally.items():
        out[f"winrate/{kind}/{role}"] = wins / n
        out[f"games/{kind}/{role}"] = n
    if games:
        out["game/turns"] = float(np.mean([g.turns for g in games]))
        out["game/truncated"] = float(np.mean([g.truncated for g in games]))
    return out


def train(config: TrainConfig, resume: bool | str | os.PathLike = False, progress: bool = True,
          log: bool = True) -> TrainResult:
    """Train by self-play PPO until ``total_steps`` learner steps (or the time budget).

    A time budget (``time_budget_s``) is kept, not overshot: the run stops
    before an iteration that, as long as a typical recent one (the median of
    the last :data:`RECENT_ITERATIONS`, so one slowed by a load spike does not
    end the run early), would end past it; it ends up to about one iteration
    short of the budget. The first iteration of a new run always runs.
    Temporary-file leftovers of a killed run's checkpoints and metrics are
    removed when a run starts or resumes.

    Args:
        config: the run's configuration (``run_dir`` says where files go).
        resume: False: start a new run (``run_dir`` must hold no checkpoint
            and no ``metrics.jsonl``); True: continue from the latest
            checkpoint in ``run_dir`` that loads (a corrupt newer one is
            skipped and set aside, with one warning; the newest one of another run is
            refused, not skipped: left in the folder it would count among the newest it keeps, and be
            picked again); a path: continue from that checkpoint, which must lie in ``run_dir``.
            Either way the checkpoint's stored config is used, except ``run_dir``, ``total_steps``,
            ``time_budget_s``, ``workers`` and ``ray_address`` (where the
            rollouts run; the batches are the same), which are taken from ``config``
            (the CLI's ``--resume`` fills them from the checkpoint unless given).
        progress: show a tqdm bar.
        log: write tensorboard events.

    Returns:
        a :class:`TrainResult`.

    Raises:
        ValueError: a ``run_dir`` that is, or lies under, a file, or that cannot be
            made or written (before anything is done); a ``run_dir`` another training holds
            (:class:`training.run_lock.RunLock`, naming its pid), or whose
            checkpoints or metrics another training wrote while this one was
            starting; starting a new run in a folder that holds a run, resuming
            from a checkpoint outside ``run_dir`` (another run's: its iterations
            would join this folder's metrics and its pruning delete this
            folder's checkpoints), or from another run's checkpoint copied into ``run_dir`` (its
            ``run_id`` is not the one the folder's ``config.json`` records; a checkpoint or a
            folder from before runs had an id is accepted, and the run gets one from then on),
            without a loadable checkpoint, from a corrupt or incompatible one,
            from one already at the run's total steps or time budget
            (:class:`NothingToTrain`; nothing is written then), from a gated run's checkpoint without the gate's
            fitting state (written before :class:`training.gate.GateFit`),
            or with a ``metrics.jsonl`` line (other than a torn last one) that
            is not a record; an ``init`` or ``kl_policy`` checkpoint that is
            missing or does not fit the config's network, or with
            ``ray_address``, Ray missing, an address it cannot connect to or a
            cluster with fewer CPUs than ``workers`` (these before the run
            folder is made).

    Warns:
        UserWarning: when ``prior`` and ``expert`` are the same bot and the
            expert labels (the labels then equal the network's own input);
            when ``departure_weight`` or ``gain_weight`` is set without
            ``prior`` (nothing is a departure) or without expert labels, or
            ``gain_weight`` with an expert that reports no search scores
            (every gain is 0); when ``score_coef`` is set without expert labels
            or with an expert that reports no search scores; when a ``deterministic`` run
            has a time budget and ``imitation > 0`` or a linear anchor (their progress is
            measured by the clock then, so same-seed runs can change phase at different
            iterations) or ``policy_lag = 1`` (where the clock's forecast has the run end
            but it goes on, the next batch is collected from the updated weights,
            :func:`_goes_on`), without ``freeze_policy``.

    A run that fails or is stopped (Ctrl-C, SIGTERM) before its first iteration finished leaves
    nothing behind: the files and folders it made (the run folder, ``config.json``, ``tb/``,
    ``gate/``, ``metrics.jsonl``, the lock file ``train.lock``) are removed, and nothing that
    was there before is (a resumed run's checkpoints, metrics and ``config.json`` stay).  Once
    the first Ctrl-C or SIGTERM stopped a run, later ones are ignored until it has done so
    (:class:`training.interrupts.StopOnce`).

    A new run draws its identity, ``config.run_id`` (a uuid4 hex, whatever ``config`` holds),
    which ``config.json``, every checkpoint and ``policy.pt`` record and its resumes keep.

    A resumed run renames each checkpoint newer than the one it resumes from that cannot be
    loaded to ``<name>.corrupt``, with a warning, so that keeping the newest
    ``keep_checkpoints`` never keeps such a file in place of a good one.
    """
    check_folder(config.run_dir, "run directory")   # a file in the way, or a folder that cannot be made or written
    lock = RunLock(config.run_dir)
    lock.check()                                # a folder in use: said first, whatever else it holds
    seen = _run_files(Path(config.run_dir))     # what the checks below see, unless another training writes
    config, path, payload = _open_run(config, resume)
    made = _Made(Path(config.run_dir))          # what this call makes, filled in by _train
    # SIGTERM stops the run as Ctrl-C does; after the first, later ones wait until the run is saved
    with StopOnce():
        try:
            return _train(config, path, payload, progress, log, lock, seen, made)
        except BaseException as why:
            if isinstance(why, KeyboardInterrupt):
                stopping()
                if not isinstance(why, TrainingInterrupted):    # stopped outside the iterations: their notice, here
                    _stop_notice("SIGTERM" if isinstance(why, Terminated) else "SIGINT",
                                 "the run was ending, its last checkpoint is kept" if made.iterations else
                                 f"the run was starting, {path.name} is kept" if payload else
                                 "the run was starting, no iteration had finished", saving=False)
            if not made.iterations:     # failed or stopped before its first iteration: leaves nothing
                made.remove(lock)
            if not isinstance(why, KeyboardInterrupt) or isinstance(why, TrainingInterrupted):
                raise
            # stopped outside the iterations (starting up): a resumed run keeps the checkpoint it resumed
            raise TrainingInterrupted(path if payload else None,
                                      int(payload["training_state"]["iteration"]) if payload else 0,
                                      "SIGTERM" if isinstance(why, Terminated) else "SIGINT") from None
        finally:
            lock.release()


def _run_files(run_dir: Path) -> list[tuple[str, int, int]]:
    """What says how far the run in ``run_dir`` has got: the name, size and modification time
    of each checkpoint and of ``metrics.jsonl`` (empty for a folder without a run)."""
    found = [p for p in run_dir.iterdir() if _CKPT.match(p.name) or p.name == "metrics.jsonl"] \
        if run_dir.is_dir() else []
    return sorted((p.name, (st := p.stat()).st_size, st.st_mtime_ns) for p in found)


@dataclasses.dataclass
class _Made:
    """What one :func:`train` call made in its run folder ``run_dir``, so that a call that fails or
    is stopped before its first iteration finished removes it (:meth:`remove`) and leaves the
    folder as it found it.  :func:`_train` fills it in: ``folder``, whether it made the folder;
    ``lock``, whether it made the lock file (and holds it); ``paths``, the run's files and folders
    that were not there once it held the lock (only then can it know that no other training made
    them); ``iterations``, how many iterations it has finished."""

    run_dir: Path
    folder: bool = False
    lock: bool = False
    paths: list = dataclasses.field(default_factory=list)
    iterations: int = 0

    def remove(self, lock: RunLock) -> None:
        """Remove the files and folders in ``paths``, then the lock file (when this call made it;
        removed while held, then released), then the folder (when this call made it) if nothing
        else is in it.  What was there before is left as it was.  One that cannot be removed
        is named in a warning (the error that stopped the run is the one raised)."""
        try:
            for q in self.paths:
                if q.is_dir():
                    shutil.rmtree(q)
                else:
                    q.unlink(missing_ok=True)
            if self.lock:
                lock.release(remove=True)
            if self.folder and self.run_dir.is_dir() and not any(self.run_dir.iterdir()):
                self.run_dir.rmdir()
        except OSError as err:
            warnings.warn(f"the run stopped before its first iteration, and {err.filename!r}, which it made, "
                          f"cannot be removed: {os_reason(err)}", stacklevel=3)


def _train(config: TrainConfig, path: Path | None, payload: dict | None, progress: bool, log: bool, lock: RunLock,
           seen: list, made: _Made) -> TrainResult:
    """:func:`train` after the run is opened (``path`` and ``payload``: the checkpoint resumed, or None;
    ``lock``: the run folder's, taken here once the folder is made; ``seen``: the folder's
    :func:`_run_files` when the run was opened; ``made``: filled in with what this call makes)."""
    state = payload["training_state"] if payload else None
    run_dir = Path(config.run_dir)
    game_config = config.game_config()
    torch.manual_seed(config.seed)
    threads_init = torch.get_num_threads()
    if config.deterministic:        # the orthogonal initialisation's QR rounds by thread count (1 and 2 differ)
        torch.set_num_threads(1)
    try:
        net = build_network(config.network_kwargs(*_probe_sizes(game_config)))
    finally:
        torch.set_num_threads(threads_init)
    if config.init and not state:
        init_weights(net, config.init)      # before the run folder is made: a bad init leaves nothing behind
    if config.kl_policy:
        reference_policy(config, net)       # likewise: a missing or unfit KL reference is refused here
    config.check_bots(shipped=True)     # a shipped model as expert or opponent: its file, table and game, here
    if config.ray_address:                  # likewise: Ray missing, unreachable, or short of CPUs
        from .ray_workers import check_cluster
        check_cluster(config.ray_address, config.workers)
    made.folder = not run_dir.exists()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"run directory {str(run_dir)!r} cannot be made: {os_reason(err)}") from None
    lock_made = not lock.path.exists()
    lock.acquire()              # one training at a time in a run folder (training.run_lock)
    made.lock = lock_made
    made.paths = [q for q in (run_dir / n for n in ("config.json", "tb", "gate", "metrics.jsonl")) if not q.exists()]
    if _run_files(run_dir) != seen:
        raise ValueError(f"run folder {str(run_dir)!r} changed while this training was starting (another "
                         f"training wrote its checkpoints or metrics meanwhile); start it again")
    dtype, speedup, chosen = _update_dtype(config, state)
    low = autocast_dtype(dtype)
    update_config = config if dtype == config.update_dtype else dataclasses.replace(config, update_dtype=dtype)
    print(f"training into {run_dir} (tensorboard --logdir {run_dir / 'tb'}); the update's matrix products in "
          f"{dtype} ({chosen})", flush=True)
    if state and config.update_dtype == "auto" and "update_dtype" not in state:
        print(f"note: {path.name} is from before a run kept the choice of update_dtype = \"auto\", so it was "
              f"measured again at this resume ({dtype}); the run keeps it from here on", flush=True)
    _clean_leftovers(run_dir)
    start_iter = int(state["iteration"]) if state else 0
    if state:
        _set_aside_unloadable(run_dir, start_iter)
    ss = np.random.SeedSequence([config.seed, start_iter])
    worker_seeds = [int(s.generate_state(1)[0]) for s in ss.spawn(config.workers)]
    pool_rng = np.random.default_rng(ss.generate_state(2))
    workers = WorkerPool(config, worker_seeds)
    threads_before = torch.get_num_threads()      # given back when the run ends
    torch_threads = policy_torch_threads()        # the update's most threads: a PolicyAgent's one-thread setting is not the process's
    fixed_threads, fixed_words = _update_threads(config, state, torch_threads)
    if fixed_words:
        print(fixed_words, flush=True)
    try:
        optimizer = make_optimizer(net, config.learning_rate)
        pool: dict[int, dict] = {}
        steps = iteration = 0
        wall = 0.0
        recent: list[float] = []    # the last iterations' seconds (the time budget's forecast)
        games_total = 0
        reached = 0.0           # the run's progress so far, never going back (see below)
        lr_done = 0.0           # the share of the linear schedule used so far, likewise
        if state:
            if payload["model_kwargs"] != net.kwargs:
                raise ValueError(f"checkpoint network {payload['model_kwargs']} does not match the config's "
                                 f"{net.kwargs}")
            net.load_state_dict(payload["model_state"])
            _load_optimizer_state(optimizer, state["optimizer"])
            pool = {int(k): v for k, v in state["pool"].items()}
            steps, iteration, wall = int(state["steps"]), int(state["iteration"]), float(state["wall_s"])
            recent = _recent_iterations(state)
            games_total = int(state.get("games", 0))
            stored = payload["train_config"]          # a checkpoint from before progress was kept: its budgets
            reached = float(state.get("progress", _progress(int(stored.get("total_steps") or 1),
                                                             float(stored.get("time_budget_s") or 0.0), steps, wall)))
            lr_done = float(state.get("lr_progress", 0.0))    # 0 for a checkpoint from before it was kept
            _truncate_metrics(run_dir / "metrics.jsonl", iteration)
            print(f"resuming from {path.name}: iteration {iteration}, {steps} learner steps, "
                  f"{wall / 60:.1f} min", flush=True)
        gate_fit = GateFit(net, run_dir / "gate", state.get("gate_fit") if state else None,
                           iteration) if config.gate else None
        net.eval()
        # whole or not at all (a resume reads it); paths from run_dir
        atomic_write_bytes(run_dir / "config.json", json.dumps(recorded_config(config), indent=2).encode())
        writer = None
        if log:
            from torch.utils.tensorboard import SummaryWriter
            if state:
                _wait_past_event_files(run_dir / "tb")
            # scalars are logged by learner step: drop only those after the checkpoint
            with naming_the_file(run_dir / "tb"):
                writer = SummaryWriter(str(run_dir / "tb"), purge_step=steps + 1 if state else None)
        pool_changes: dict[int, Any] = dict(pool)      # workers start with an empty pool
        history: list[dict] = []
        # the bar counts learner steps, or seconds when a time budget will end the run first
        by_time = bool(config.time_budget_s)
        vs_heur = "–"           # the bar's learner win rate against heuristic bots: none finished yet
        reached = max(reached, _progress(config.total_steps, config.time_budget_s, steps, wall))
        bar = tqdm(total=int(config.time_budget_s) if by_time else config.total_steps,
                   initial=min(int(wall), int(config.time_budget_s)) if by_time else min(steps, config.total_steps),
                   unit="s" if by_time else "step", disable=not progress, dynamic_ncols=True,
                   desc=_phase(config, reached < config.imitation),
                   # seconds of the budget: elapsed and left, no rate ("1.00s/s" says nothing)
                   bar_format=("{l_bar}{bar}| {n_fmt}/{total_fmt} s [{elapsed}<{remaining}{postfix}]"
                               if by_time else None))
        last_ckpt = path if state else None
        ckpt_iteration = iteration if state else -1
        t_start = time.perf_counter()
        wall0, start_steps = wall, steps
        # the update's threads: by measurement, or a deterministic run's fixed count
        threads = ThreadChoice(torch_threads) if fixed_threads is None else None
        update_s = 0.0          # the last update's seconds (whether the run goes on past the next)
        noticed: list[int] = []     # the signal an update held, once its stop notice is written
        started: float | None = None    # when the next collection was started early (policy_lag 0)

        def held(signum: int) -> None:
            noticed.append(signum)
            _stop_notice("SIGTERM" if signum == signal.SIGTERM else "SIGINT",
                         "the iteration under way (its update, metrics and checkpoint) is finished first")

        try:
            while steps < config.total_steps and not _budget_spent(config, wall, recent):
                # the linear schedule never rises again: a resume to a larger total goes on
                # from the learning rate the run had reached and decays from there
                lr_done = max(lr_done, steps / config.total_steps)
                lr = config.learning_rate * (max(0.0, 1.0 - lr_done) if config.lr_schedule == "linear" else 1.0)
                optimizer.param_groups[0]["lr"] = lr
                # a resume with a larger budget continues from the progress reached: the
                # imitation phase does not restart, nor does a decaying anchor rise again
                done_frac = max(reached, _progress(config.total_steps, config.time_budget_s, steps, wall))
                reached = done_frac
                imitate = done_frac < config.imitation
                bar.set_description(_phase(config, imitate))
                # the iteration began when its collection did (at the end of the last one, see below)
                t0 = started if workers.busy and started is not None else time.perf_counter()
                started = None
                if not workers.busy:        # the first iteration, or policy_lag 0: collect from these weights
                    workers.start(net.state_dict(), pool_changes, config.rollout_steps, config.labels_expert)
                    pool_changes = {}
                batches, games, info = workers.finish()
                t1 = time.perf_counter()
                if config.policy_lag and _goes_on(config, steps + int(info["learner_steps"]),
                                                  wall + (t1 - t0) + update_s, recent):
                    # the next batch, collected beside this update from the weights before it
                    workers.start(net.state_dict(), pool_changes, config.rollout_steps, config.labels_expert)
                    pool_changes = {}
                # from here the iteration is finished whole: Ctrl-C waits for its metrics and checkpoint
                with DeferInterrupt(notice=held):
                    batch = _merge(batches)
                    anchor = config.anchor_coef(done_frac)
                    if fixed_threads is not None and torch.get_num_threads() != fixed_threads:
                        torch.set_num_threads(fixed_threads)     # the update's and the gate's (a PolicyAgent sets one)
                    if config.freeze_policy:
                        imitate = False
                        metrics = {"epochs_run": 0}
                    else:
                        metrics = ppo_update(net, optimizer, batch, update_config, pool_rng, imitate, anchor,
                                             threads)
                    if gate_fit is not None:
                        metrics.update(gate_fit.update(batch, iteration + 1, config.gate_epochs, pool_rng))
                    t2 = time.perf_counter()
                    update_s = t2 - t1
                    iteration += 1
                    steps += int(info["learner_steps"])
                    games_total += len(games)
                    iter_s = wall0 + (time.perf_counter() - t_start) - wall
                    wall += iter_s
                    recent = (recent + [iter_s])[-RECENT_ITERATIONS:]
                    metrics.update(_game_metrics(games))
                    metrics.update({"lr": lr, "imitating": float(imitate),
                                    "anchor": 0.0 if imitate or config.freeze_policy else anchor,
                                    # over the iteration's share of the run's wall time (from the
                                    # last one's: its metrics and checkpoint writing included)
                                    "perf/learner_steps_per_s": info["learner_steps"] / iter_s,
                                    "perf/agent_steps_per_s": info["decisions"] / iter_s,
                                    "perf/rollout_s": t1 - t0, "perf/update_s": t2 - t1,
                                    "perf/collect_s": info["seconds"],
                                    # the mean over minibatches; the gate alone runs at the count last set
                                    "perf/update_threads": metrics.pop("update_threads", torch.get_num_threads()),
                                    "perf/update_bfloat16": float(low is not None),
                                    "perf/games_per_s": len(games) / iter_s, "pool/size": len(pool)})
                    if iteration % config.snapshot_every == 0:
                        pid = iteration
                        pool[pid] = {k: v.detach().clone() for k, v in net.state_dict().items()}
                        pool_changes[pid] = pool[pid]
                        while len(pool) > config.pool_size:
                            old = min(pool)
                            del pool[old]
                            pool_changes[old] = None
                    record = {"iteration": iteration, "steps": steps, "wall_s": wall, "games": games_total, **metrics}
                    history.append(record)
                    done = steps >= config.total_steps or _budget_spent(config, wall, recent)
                    if not done and not workers.busy and not noticed:
                        # policy_lag 0: the next collection, from the weights just updated, starts before
                        # this iteration's metrics and checkpoint are written, so the workers do not wait
                        # for them (the same weights and pool as at the next iteration's start); not once
                        # a stop is held: the run ends after this iteration, and a SIGTERM to the process
                        # group has killed the workers (a send to them would fail before it is saved)
                        started = time.perf_counter()
                        workers.start(net.state_dict(), pool_changes, config.rollout_steps, config.labels_expert)
                        pool_changes = {}
                    _log_iteration(run_dir, writer, record)
                    made.iterations += 1
                    bar.update((min(int(wall), bar.total) if by_time else min(steps, config.total_steps)) - bar.n)
                    shown = {"ent": f"{metrics['entropy']:.2f}"} if "entropy" in metrics else \
                        {"gate_corr": f"{metrics.get('gate/corr', float('nan')):.2f}"}       # a frozen run: the gate's
                    if "winrate/heuristic/all" in metrics:      # else the last iteration's that finished such games
                        vs_heur = f"{metrics['winrate/heuristic/all']:.2f}"
                    bar.set_postfix(it=iteration, steps=steps, **shown, vs_heur=vs_heur,
                                    learner_sps=f"{metrics['perf/learner_steps_per_s']:.0f}")
                    if iteration % config.checkpoint_every == 0 or done:
                        last_ckpt = _checkpoint(run_dir, net, optimizer, gate_fit, pool, config, game_config, iteration, steps,
                                                wall, games_total, recent, reached, lr_done, dtype, speedup,
                                                fixed_threads)
                        ckpt_iteration = iteration
        except KeyboardInterrupt as why:
            # the rollouts under way are dropped (the workers are stopped); the last finished iteration is kept,
            # and a second Ctrl-C or SIGTERM does not cut that (StopOnce in train ignores it from now on)
            stopping()
            if not noticed:
                _stop_notice("SIGTERM" if isinstance(why, Terminated) else "SIGINT",
                             "the rollouts under way are dropped, " + ("the last finished iteration is kept"
                                                                       if iteration else "no iteration had finished"),
                             saving=iteration > 0)
            workers.close(now=True)
            bar.close()
            if iteration > 0 and ckpt_iteration != iteration:
                last_ckpt = _checkpoint(run_dir, net, optimizer, gate_fit, pool, config, game_config, iteration, steps,
                                        wall, games_total, recent, reached, lr_done, dtype, speedup,
                                        fixed_threads)
            if writer is not None:
                with naming_the_file(run_dir / "tb"):
                    writer.close()
            raise TrainingInterrupted(None if last_ckpt is None else Path(last_ckpt), iteration,
                                      "SIGTERM" if isinstance(why, Terminated) else "SIGINT") from None
        bar.close()
        if writer is not None:
            with naming_the_file(run_dir / "tb"):
                writer.close()
        return TrainResult(checkpoint=str(last_ckpt), policy=str(run_dir / "policy.pt"), steps=steps,
                           iterations=iteration, wall_s=wall, history=history, start_steps=start_steps,
                           start_wall_s=wall0)
    except KeyboardInterrupt:   # stopped while starting (the loop's stop closed them): nothing of theirs to wait for
        workers.close(now=True)
        raise
    finally:
        workers.close()
        torch.set_num_threads(threads_before)


def _stop_notice(signal_name: str, what: str, saving: bool = True) -> None:
    """The line written to stderr as soon as Ctrl-C or SIGTERM (``signal_name``) stops a run,
    before it has stopped, saying ``what`` it does first, and that later signals are ignored
    until the run is saved (``saving``: it writes a checkpoint on its way out) or else until it
    has stopped.  Called from a signal handler too (:class:`training.interrupts.DeferInterrupt`'s
    notice): a write that fails there (stderr was being written when the signal came) is
    dropped, and the run's closing message still comes."""
    until = "the run is saved" if saving else "it has stopped"
    try:
        tqdm.write(f"stopping ({signal_name}): {what}; Ctrl-C or SIGTERM again is ignored until {until}",
                   file=sys.stderr)
    except (RuntimeError, OSError, ValueError):     # a reentrant write, or stderr closed
        pass


def _update_dtype(config: TrainConfig, state: dict | None) -> tuple[str, float | None, str]:
    """The run's update dtype (``"float32"`` or ``"bfloat16"``), the speed ratio ``"auto"``
    measured for it (None when not measured), and the words saying why, for the first line.

    ``"auto"`` is measured once, when the run first starts (:func:`training.precision.resolve_update_dtype`),
    and a resume keeps that choice from its checkpoint's training state, however the timing
    would come out now, so a seeded run's arithmetic does not depend on the machine's load at
    a resume.  A checkpoint from before the choice was kept is measured again.  A deterministic
    run's ``"auto"`` is not measured: bfloat16 where the CPU multiplies it natively
    (:func:`training.precision.native_bfloat16`), else float32."""
    if config.update_dtype == "auto" and state and "update_dtype" in state:
        ratio = state.get("bfloat16_speedup")
        measured = f": bfloat16 products {ratio:.2f} times as fast as float32 then" if ratio is not None else ""
        return state["update_dtype"], ratio, f"update_dtype auto, as chosen when the run began{measured}"
    dtype, ratio = resolve_update_dtype(config.update_dtype, measure=not config.deterministic)
    if config.update_dtype == "auto" and config.deterministic:
        has = "has" if dtype == "bfloat16" else "has no"
        return dtype, None, (f"update_dtype auto, deterministic: this CPU {has} native bfloat16 products "
                             f"(AVX512-BF16 or AMX), not timed; the run keeps this choice")
    if ratio is None:
        return dtype, None, f"update_dtype {config.update_dtype}"
    return dtype, ratio, (f"update_dtype auto: bfloat16 products {ratio:.2f} times as fast as float32 here, "
                          f"{AUTO_MIN_SPEEDUP} needed; the run keeps this choice")


def _update_threads(config: TrainConfig, state: dict | None, most: int) -> tuple[int | None, str]:
    """A deterministic run's fixed thread count for the update, and the line saying it.

    A new run takes one thread, or, where ``OMP_NUM_THREADS`` is set, ``most`` (the most threads
    the update may use, :func:`agents.policy.torch_threads`, which follows it): a count the
    user did not ask for is one, because a fixed count above one is a trap on a busy machine
    (on the 2-core VM beside a process holding one core, 14-20 s an update on two threads
    against 0.6 s on one: the threads wait for each other's time slices) and because one
    thread rounds the same on machines with any number of cores; it costs ~1.3-1.4x on a
    quiet 2-core machine (README, "Reproducible runs").

    Returns:
        ``(None, "")`` for a run that is not deterministic (its update measures the cheaper count
        minibatch by minibatch, :class:`training.threads.ThreadChoice`); else the count above for
        a new run, and for a resume the count its checkpoint records (a count that differs from
        this one, on another machine or with another ``OMP_NUM_THREADS``, is kept, and said), or
        the count above where it records none (a checkpoint from before the count was kept)."""
    if not config.deterministic:
        return None, ""
    asked = "OMP_NUM_THREADS" in os.environ
    count = most if asked else 1
    recorded = state.get("update_threads") if state else None
    if recorded is None:
        why = "OMP_NUM_THREADS" if asked else "set OMP_NUM_THREADS for more"
        return count, (f"deterministic: the update runs every minibatch on {count} torch "
                       f"thread{'' if count == 1 else 's'} ({why}), not a count chosen by timing")
    other = f" (a new run would take {count} here; the run's own count rounds as before)" if recorded != count else ""
    return int(recorded), (f"deterministic: the update runs every minibatch on {recorded} torch "
                           f"thread{'' if recorded == 1 else 's'}, as when the run began{other}")


def _progress(total_steps: int, time_budget_s: float, steps: int, wall: float) -> float:
    """A run's progress in [0, 1+): ``steps / total_steps`` or ``wall / time_budget_s``
    (seconds; 0 = no budget), whichever is further."""
    return max(steps / max(total_steps, 1), wall / time_budget_s if time_budget_s else 0.0)


def _wait_past_event_files(tb: Path) -> None:
    """Return once the clock is past the creation second of every event file in ``tb``.

    TensorBoard reads a folder's event files in name order, and a name starts with
    its writer's creation second (``events.out.tfevents.<s>.<host>.<pid>.<n>``, with
    ``<n>`` a per-process counter that sorts as text): a resumed run's writer made in
    the same second as an earlier one may sort first, and its purge of the steps
    after the checkpoint would then be read before the steps it purges.  Waits at
    most ~3 s (a file stamped 2 s or more ahead, a skewed clock, is left as it is)."""
    stamps = [int(p.name.split(".")[3]) for p in tb.glob("events.out.tfevents.*")
              if len(p.name.split(".")) > 4 and p.name.split(".")[3].isdigit()]
    last = max(stamps, default=0)
    if last - time.time() < 2:
        while time.time() < last + 1:
            time.sleep(0.02)


def _log_iteration(run_dir: Path, writer: Any, record: dict) -> None:
    """Append an iteration's ``record`` to ``run_dir/metrics.jsonl`` and its
    numeric metrics (NaN left out) to tensorboard (``writer``, or None) at its
    learner step; a metric without a ``/`` is filed under ``train/``.  The file
    is strict JSON: a metric not defined this iteration (NaN, e.g. agreement
    on departures when there were none) is written ``null``, and
    :func:`read_metrics` gives it back as NaN."""
    with naming_the_file(run_dir / "metrics.jsonl"), open(run_dir / "metrics.jsonl", "a") as f:
        f.write(_metrics_line(record))
    if writer is None:
        return
    with naming_the_file(run_dir / "tb"):
        for k, v in record.items():
            if k in ("iteration", "steps", "wall_s", "games"):
                continue
            if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
                writer.add_scalar(k if "/" in k else f"train/{k}", v, record["steps"])
        writer.flush()


def _metrics_line(record: dict) -> str:
    """One strict-JSON line of ``metrics.jsonl``: numpy scalars as numbers, every
    non-finite float, at any depth, as ``null`` (:func:`read_metrics` reads it back NaN)."""
    return json.dumps(_map_floats(json.loads(json.dumps(record, default=float)),
                                  lambda v: v if math.isfinite(v) else None), allow_nan=False) + "\n"


def _map_floats(value: Any, fn: Any, nulls: Any = None) -> Any:
    """``value`` (JSON types) with ``fn`` applied to every float and ``None`` replaced by
    ``nulls``, at any depth."""
    if isinstance(value, float):
        return fn(value)
    if value is None:
        return nulls
    if isinstance(value, dict):
        return {k: _map_floats(v, fn, nulls) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_floats(v, fn, nulls) for v in value]
    return value


def _open_run(config: TrainConfig, resume: bool | str | os.PathLike) -> tuple[TrainConfig, Path | None, dict | None]:
    """What :func:`train` checks before it touches anything (its Raises and Warns).

    Returns:
        ``(config, path, payload)``: the run's configuration (a resumed run's
        stored one, with ``run_dir``, ``total_steps``, ``time_budget_s``,
        ``workers`` and ``ray_address`` from ``config``), and the checkpoint resumed from and its
        loaded contents (None, None for a new run).
    """
    run_dir = Path(config.run_dir)
    path, payload, state = None, None, None
    if resume:
        if resume is True:
            path, payload = load_resumable(run_dir, warn=False)     # said as it is set aside, once
        else:
            path = Path(resume)
            try:
                payload = load_checkpoint(path)
            except ValueError as err:
                raise ValueError(first_line(err)) from err
        if "training_state" not in payload:
            raise ValueError(f"{str(path)!r} is a bare policy, not a training checkpoint; it cannot be resumed")
        if path.parent.resolve() != run_dir.resolve():
            raise ValueError(_foreign_checkpoint(path, run_dir))
        stored = checkpoint_config(payload, path)        # init and kl_policy read from its folder
        folder_id = _folder_run_id(run_dir)
        if stored.get("run_id") and folder_id and stored["run_id"] != folder_id:
            raise ValueError(_other_runs_checkpoint(path, stored, folder_id))
        # the run keeps its id; a run recorded before runs had one gets one from here on
        stored["run_id"] = stored.get("run_id") or folder_id or uuid.uuid4().hex
        for k in ("run_dir", "total_steps", "time_budget_s", "workers", "ray_address"):
            stored[k] = getattr(config, k)
        config = TrainConfig.from_dict(stored)
        state = payload["training_state"]
        if config.gate and "gate_fit" not in state:
            raise ValueError(f"{path.name} is from a run that fitted its advantage gate batch by batch, before "
                             f"the gate kept its examples; it cannot be resumed: start a new run from its "
                             f"weights with init = {str(path)!r}")
        done_steps, done_wall = int(state["steps"]), float(state["wall_s"])
        recent = _recent_iterations(state)
        at_total = done_steps >= config.total_steps
        out_of_time = _budget_spent(config, done_wall, recent)
        if at_total or out_of_time:
            why, flags = [], []
            if at_total:
                why.append(f"the run's total is {config.total_steps} steps")
                flags.append("--steps")
            if out_of_time:
                need = math.ceil((done_wall + _forecast(recent)) / 60 * 100) / 100
                why.append(f"its budget is {_minutes(config.time_budget_s)}, which one more iteration (about "
                           f"{_minutes(_forecast(recent))}) would pass (--minutes {need:.2f} or more allows one)")
                flags.append("--minutes")
            # its policy: the run's policy.pt, written with its newest checkpoint
            policy = path.parent / "policy.pt"
            if latest_checkpoint(path.parent) != path or not policy.is_file():
                policy = path
            raise NothingToTrain(f"nothing to train: {path.name} is at {done_steps} learner steps and "
                                 f"{_minutes(done_wall)}, and {', and '.join(why)}; give a larger "
                                 f"{' and '.join(flags)} (totals, not extra)", str(policy))
    elif latest_checkpoint(run_dir) is not None:
        raise ValueError(f"{str(run_dir)!r} already holds a run (its checkpoints); resume it with "
                         f"--resume or choose another --run-dir")
    elif (run_dir / "metrics.jsonl").exists():
        raise ValueError(f"{str(run_dir)!r} holds the metrics.jsonl of a run that stopped before its first "
                         f"checkpoint, so it cannot be resumed; choose another --run-dir, or delete that folder")
    if not resume:
        config = dataclasses.replace(config, run_id=uuid.uuid4().hex)      # a new run: a new identity
    if config.init and not state:
        check_input_file(config.init, "init: checkpoint")
    if config.prior and config.prior == config.expert and config.labels_expert:
        warnings.warn(f"prior = expert = {config.expert!r}: every label is the proposal the network reads, so "
                      f"imitation only teaches it to copy that input", stacklevel=3)
    if config.departure_weight != 1 or config.gain_weight:
        if not config.prior:
            warnings.warn("departure_weight and gain_weight weigh departures from a proposal, and a network "
                          "without prior reads none: they do nothing here", stacklevel=3)
        elif not config.labels_expert:
            warnings.warn("departure_weight and gain_weight weigh expert labels, and with imitation = 0 and "
                          "imitation_coef = 0 the expert labels nothing: they do nothing here", stacklevel=3)
        elif config.gain_weight and not config.expert_searches:
            warnings.warn(f"gain_weight: the expert {config.expert!r} reports no search scores (last_scores), so "
                          f"every search gain is 0 (use expert = 'lookahead')", stacklevel=3)
    if config.score_coef:
        if not config.labels_expert:
            warnings.warn("score_coef distils the expert's search scores, and with imitation = 0 and "
                          "imitation_coef = 0 the expert labels nothing: it does nothing here", stacklevel=3)
        elif not config.expert_searches:
            warnings.warn(f"score_coef: the expert {config.expert!r} reports no search scores (last_scores), so "
                          f"there is nothing to distil (use expert = 'lookahead')", stacklevel=3)
    clocked = [k for k, on in (("imitation", config.imitation > 0),
                               ("anchor_schedule = 'linear'", config.anchor_schedule == "linear"
                                and config.imitation_coef > 0)) if on]
    # with freeze_policy the policy does not learn: no phase to change, and every batch is from the same policy
    if config.deterministic and config.time_budget_s and (clocked or config.policy_lag) and not config.freeze_policy:
        why = []
        if clocked:
            follow = "follows" if len(clocked) == 1 else "follow"
            why.append(f"{' and '.join(clocked)} {follow} the run's progress, which a time budget measures by the "
                       f"clock, so same-seed runs can change phase at different iterations and part there")
        if config.policy_lag:
            why.append("policy_lag = 1 collects the next batch beside the update only where the clock forecasts "
                       "another iteration, and where it forecasts the end but the run goes on, that batch is "
                       "collected from the updated weights (as with policy_lag = 0), so same-seed runs can part "
                       "before the last iteration")
        warnings.warn(f"deterministic with a time budget: {'; and '.join(why)}; end the run by total_steps alone "
                      f"(--steps, no --minutes) for runs the same iteration by iteration", stacklevel=3)
    if config.freeze_policy:
        ignored = [k for k in ("imitation", "imitation_coef", "score_coef", "gain_weight", "kl_coef")
                   if getattr(config, k)] + (["departure_weight"] if config.departure_weight != 1 else [])
        if ignored:
            warnings.warn(f"freeze_policy: the policy does not learn, so {', '.join(ignored)} "
                          f"{'does' if len(ignored) == 1 else 'do'} nothing here", stacklevel=3)
        if not config.init and not state:
            warnings.warn("freeze_policy without init fits a gate to a policy with random weights", stacklevel=3)
    return config, path, payload


def _foreign_checkpoint(path: Path, run_dir: Path) -> str:
    """The error of a resume from ``path``, a checkpoint of the run in another folder than
    ``run_dir``: continued there, it would append its iterations to that folder's metrics,
    replace its ``policy.pt`` and delete its checkpoints as old ones."""
    own = shlex.quote(str(path.parent))
    return (f"checkpoint {str(path)!r} belongs to the run in {str(path.parent)!r}, not to {str(run_dir)!r}, "
            f"the run folder this run writes; resume it in its own folder (--resume {shlex.quote(str(path))} "
            f"alone, or with --run-dir {own}), or start a new run from its weights in a folder without a run "
            f"(--set init={shlex.quote(str(path))})")


def _folder_run_id(run_dir: Path) -> str:
    """The run id that ``run_dir``'s ``config.json`` records ("" when it records none: a run
    from before runs had one, or a ``config.json`` missing or unreadable)."""
    try:
        recorded = json.loads((run_dir / "config.json").read_text())
    except (OSError, ValueError):
        return ""
    run_id = recorded.get("run_id") if isinstance(recorded, dict) else None
    return run_id if isinstance(run_id, str) else ""


def _other_runs_checkpoint(path: Path, stored: dict, folder_id: str) -> str:
    """The error of a resume from ``path``, a checkpoint in the run folder whose run id (its
    config ``stored``) is not the folder's ``folder_id``: another run's checkpoint copied there,
    which would continue that run's weights under this folder's name, cut its ``metrics.jsonl``
    back to the checkpoint's iteration and number its checkpoints after that run's."""
    origin = stored.get("run_dir")
    where = f" (run folder {origin!r})" if isinstance(origin, str) and origin else ""
    return (f"checkpoint {str(path)!r} is another run's: its run id is {stored['run_id'][:12]}...{where}, and "
            f"{str(path.parent)!r} holds run {folder_id[:12]}... (config.json); resuming it would continue that "
            f"run's weights here and cut this run's metrics.jsonl back to its iteration; move it out of this "
            f"folder, or start a new run from its weights in a folder without a run "
            f"(--set init={shlex.quote(str(path))})")


#: network settings ``init`` may add to a checkpoint without them -> the names (prefixes) of
#: the parameters they add, which keep their initial values
_ADDABLE = {"prior": ("prior_key", "prior_bonus"), "interaction": ("interaction.",), "combat": ("combat_enc.",),
            "gate": ("gate.",), "gate_threshold": (), "gate_features": ()}
#: settings added only with another: a checkpoint with a gate but no ``gate_features`` has the combat set
_ADDED_WITH = {"gate_threshold": "gate", "gate_features": "gate"}


def init_weights(net: torch.nn.Module, path: str | os.PathLike) -> None:
    """Load the weights of the checkpoint at ``path`` (a ``policy.pt`` or a
    ``ckpt_*.pt``) into ``net`` (``TrainConfig.init``: a new run that starts
    from trained weights).

    A checkpoint without a proposal input, interaction blocks, combat
    features or an advantage gate may start a network with them (``prior``,
    ``interaction``, ``combat``, ``gate``, :mod:`agents.networks`): every
    shared weight is loaded and the added parameters keep their initial
    values (interaction blocks start as the identity, the combat features'
    last layer at zero; a gate is fitted from scratch).

    Raises:
        ValueError: (one line) if the file is not a loadable checkpoint, or its
            network (``model_kwargs``: architecture, sizes, observation and
            action sizes) is not ``net``'s.
    """
    try:
        payload = load_checkpoint(path)
    except ValueError as err:
        raise ValueError(f"init: {first_line(err)}") from err
    theirs = dict(payload["model_kwargs"])
    added = [k for k in _ADDABLE if k in net.kwargs and k not in theirs
             and (k not in _ADDED_WITH or _ADDED_WITH[k] not in theirs)]
    theirs.update({k: net.kwargs[k] for k in added})
    if theirs != net.kwargs:
        a, b = _settings(theirs), _settings(net.kwargs)
        diff = sorted(k for k in a if a[k] != b[k])
        raise ValueError(f"init: the network of {str(path)!r} differs from the config's in "
                         + ", ".join(f"{k} ({field_text(k, a[k])} in the checkpoint vs {field_text(k, b[k])})"
                                     for k in diff))
    missing, unexpected = net.load_state_dict(payload["model_state"], strict=not added)
    new = tuple(name for k in added for name in _ADDABLE[k])
    if unexpected or any(not k.startswith(new) for k in missing):
        raise ValueError(f"init: the weights of {str(path)!r} do not fit the config's network "
                         f"(missing {sorted(missing)}, unexpected {sorted(unexpected)})")


def _settings(model_kwargs: dict) -> dict:
    """A network's ``model_kwargs`` in the :class:`TrainConfig` settings that make
    them (:meth:`TrainConfig.network_kwargs`), for error messages (the values said by
    :func:`treachery_env.config.field_text`: ``combat`` ``off``, ``entity`` ``none``)."""
    kw = model_kwargs
    gate = kw.get("gate", 0)
    return {"arch": kw.get("arch", "flat"), "hidden": kw.get("hidden"), "entity": kw.get("entity"),
            "privileged_critic": bool(kw.get("privileged_size")), "prior": kw.get("prior") or None,
            "interaction": kw.get("interaction", 0), "combat": kw.get("combat", False),
            "gate (width and threshold of the advantage gate)": (gate, kw.get("gate_threshold")) if gate else None,
            "gate_features": kw.get("gate_features", "combat"),
            "game (observation, action sizes and players)": (kw.get("obs_size"), kw.get("num_actions"),
                                                             kw.get("num_players"))}


#: how many of the last iterations' durations forecast the next one (their median)
RECENT_ITERATIONS = 5


def _phase(config: TrainConfig, imitate: bool) -> str:
    """The progress bar's name for what an iteration trains."""
    return "gate fit" if config.freeze_policy else "imitation" if imitate else "self-play PPO"


def _forecast(recent: list[float]) -> float:
    """The next iteration's seconds: the median of ``recent`` (0 when empty)."""
    return float(np.median(recent)) if recent else 0.0


def _minutes(seconds: float) -> str:
    """A time of the run's budget in words, minutes as ``--minutes`` takes them and the seconds
    beside them (``0.96 min (57.4 s)``): minutes to two decimals alone can read as if one more
    iteration fits when it does not (0.96 + 0.04 of a 1.00-minute budget, both rounded)."""
    return f"{seconds / 60:.2f} min ({seconds:.1f} s)"


def _budget_spent(config: TrainConfig, wall: float, recent: list[float]) -> bool:
    """Whether the time budget ends the run: it is used up, or one more
    iteration as long as the forecast from ``recent`` (:func:`_forecast`)
    would end past it."""
    budget = config.time_budget_s
    return bool(budget) and (wall >= budget or wall + _forecast(recent) > budget)


def _goes_on(config: TrainConfig, steps: int, wall: float, recent: list[float]) -> bool:
    """Whether an iteration will start after the one under way, which will end at
    ``steps`` learner steps and about ``wall`` seconds of the run: the loop's own stop
    rule (``total_steps``, :func:`_budget_spent`) asked early, so that ``policy_lag = 1``
    starts no collection that no update would read.  By ``total_steps`` the guess is
    exact; by a time budget it is a forecast (the caller's ``wall`` counts the last
    update's seconds for this one's, and ``recent`` lacks this iteration), wrong either
    way at times.  Guessing that the run goes on when it ends costs a collection that is
    dropped when the run ends (and the load it puts beside the last update, whose thread
    count a run that is not deterministic times under it).  Guessing that it ends when it goes
    on changes the run's numbers: nothing is collected beside the update, and the next
    collection starts after it (as ``policy_lag = 0`` starts it), so the next batch is
    collected from the updated weights and pool instead of those before the update; the
    batch after it is collected beside its update again, from the same weights.  A
    deterministic run with a time budget and ``policy_lag = 1`` warns so (:func:`_open_run`)."""
    return steps < config.total_steps and not _budget_spent(config, wall, recent)


def _recent_iterations(state: dict) -> list[float]:
    """A checkpoint's recent iteration seconds (one written before they were
    kept has only the last one, ``iteration_s``)."""
    if "recent_iteration_s" in state:
        return [float(v) for v in state["recent_iteration_s"]]
    return [float(state["iteration_s"])] if "iteration_s" in state else []


def _probe_sizes(game_config) -> tuple[int, int]:
    from treachery_env.env import raw_env
    e = raw_env(config=game_config)
    return int(e.observation_space("player_0")["observation"].shape[0]), int(e.action_space("player_0").n)


def read_metrics(path: str | os.PathLike) -> list[dict]:
    """The records of a run's ``metrics.jsonl``, one per iteration, in order.

    A torn last line (a kill while it was written) is left out: the
    checkpoint, not the log, is the truth.  A ``null`` metric (not defined
    that iteration), at any depth, is returned as NaN.

    Raises:
        ValueError: naming the file and line, if an earlier line is not a JSON
            record with an integer ``iteration``.
    """
    path = Path(path)
    lines = path.read_text().splitlines()
    rows = []
    for n, ln in enumerate(lines, 1):
        if not ln.strip():
            continue
        try:
            row = json.loads(ln)
            if not isinstance(row, dict) or not isinstance(row.get("iteration"), int):
                raise KeyError("iteration")
        except (json.JSONDecodeError, KeyError) as err:
            if n == len(lines):
                break                        # torn by a kill: redone from the checkpoint
            what = err.msg if isinstance(err, json.JSONDecodeError) else "no integer 'iteration'"
            raise ValueError(f"{str(path)!r} line {n} is not a metrics record ({what}); "
                             f"fix or remove that line") from err
        rows.append(_map_floats(row, float, nulls=math.nan))
    return rows


def _truncate_metrics(path: Path, iteration: int) -> None:
    """Drop metric lines written after the checkpoint being resumed (they will be
    redone), and a torn last line (:func:`read_metrics`).

    Raises:
        ValueError: as :func:`read_metrics`, naming the file and line.
    """
    if not path.exists():
        return
    try:
        rows = read_metrics(path)
    except ValueError as err:
        raise ValueError(f"{err} to resume") from err
    keep = [_metrics_line(r) for r in rows if r["iteration"] <= iteration]
    atomic_write_bytes(path, "".join(keep).encode())


def _checkpoint(run_dir: Path, net: torch.nn.Module, optimizer, gate_fit: GateFit | None, pool: dict,
                config: TrainConfig, game_config,
                iteration: int, steps: int, wall: float, games: int, recent: list[float], progress: float,
                lr_progress: float, update_dtype: str, bfloat16_speedup: float | None,
                update_threads: int | None) -> Path:
    """Write ``ckpt_<iteration>.pt`` (everything a resume needs: the training state holds the
    update's dtype chosen at the run's first start, ``update_dtype``, the speed ratio
    ``"auto"`` measured then, ``bfloat16_speedup``, None when not measured, and a deterministic
    run's fixed thread count, ``update_threads``, None when measured minibatch by minibatch)
    and ``policy.pt``, and keep the newest ``keep_checkpoints`` checkpoints."""
    meta = {"iteration": iteration, "steps": steps, "wall_s": wall, "games": games, "machine": _machine(),
            "treachery_env": treachery_env.__version__, "input_paths": RUN_RELATIVE}
    gc = game_config.to_dict()
    state = {"optimizer": optimizer.state_dict(), "pool": {str(k): v for k, v in pool.items()},
             "iteration": iteration, "steps": steps, "wall_s": wall, "games": games, "recent_iteration_s": list(recent),
             "progress": progress, "lr_progress": lr_progress, "update_dtype": update_dtype,
             "bfloat16_speedup": bfloat16_speedup, "update_threads": update_threads}
    if gate_fit is not None:
        state["gate_fit"] = gate_fit.state_dict()
    recorded = recorded_config(config)          # init and kl_policy relative to the run folder
    path = save_checkpoint(run_dir / f"ckpt_{iteration:06d}.pt", net, gc, recorded, state, meta)
    save_checkpoint(run_dir / "policy.pt", net, gc, recorded, None, meta)
    found = sorted((int(m.group(1)), p) for p in run_dir.iterdir() if (m := _CKPT.match(p.name)))
    for _, old in found[:-config.keep_checkpoints]:
        old.unlink()
    return path
