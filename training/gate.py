"""Fitting the advantage gate to the lookahead teacher's candidate scores (the cost-sensitive student).

A policy network made with ``gate`` (:class:`agents.networks.EntityNet`)
carries an MLP that predicts, at a decision the lookahead bot searches, how
much better the teacher's paired rollouts score a candidate than the proposal
the network reads (:meth:`~agents.networks.EntityNet.advantages`, on the
features of :func:`agents.candidates.advantage_inputs`); at play time the
policy plays the best candidate where that prediction exceeds the threshold
(:class:`agents.policy.PolicyAgent`).  Imitating the teacher's *label* with a
cross-entropy did not carry its gain into the network (README, "Where
training stands"); regressing its *advantages* and departing only where a
gain is predicted is the cost-sensitive alternative: a departure's size and
sign are learnt, not only which action the teacher chose.

:func:`gate_examples` turns a labelled rollout (``expert_scores``, the
teacher's mean rollout score of each candidate, kept by
:class:`training.rollout.Collector` with ``expert = "lookahead"``) into one
example per scored candidate other than the proposal, and :class:`GateFit`
first scores the gate on them (they are fresh: a held-out measure) and then
fits it over every example of the run so far, in every iteration of a run
with ``gate`` > 0.

The gate reads only the observation (a function of the seat's information
set) and the proposal; it has its own optimizer, and nothing it is fitted to
reaches the policy's other weights.
"""

from __future__ import annotations

import copy
import hashlib
import io
import os
import re
import warnings
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch

from agents.files import atomic_write_bytes, check_writable_file, os_reason
from agents.candidates import GATE_FEATURES, advantage_inputs
from agents.networks import GATE_SCALE
from agents.play import first_line
from treachery_env.observation import obs_layout

from .rollout import batch_observations
from .run_lock import check_not_in_use, saved_by_a_training

__all__ = ["read_examples", "searched", "gate_examples", "gate_inputs", "realised_gain", "GateFit", "Graft", "graft_role_gate",
           "GATE_MINIBATCH", "GATE_LEARNING_RATE", "GATE_AVERAGE", "BIG"]

GATE_MINIBATCH = 512
"""Examples per gradient step of :class:`GateFit`."""

GATE_LEARNING_RATE = 1e-3
"""The gate's Adam learning rate (its own optimizer, :class:`GateFit`; the rate of
``bench/advantage_fit.py``'s offline fit)."""

_EXAMPLES = re.compile(r"examples_\d{6,}\.npz")
"""The names of :class:`GateFit`'s kept examples files (``examples_<iteration>.npz``)."""

GATE_AVERAGE = 0.995
"""Decay per Adam step of the played gate's running average of the fitted weights (:class:`GateFit`)."""

BIG = 0.02
"""A realised advantage above this counts as a gain, below minus this as a loss (the teacher's margin)."""


def read_examples(path: Path) -> dict[str, np.ndarray]:
    """The arrays of one kept examples file (``examples_<iteration>.npz``), by name.

    Raises:
        ValueError: (one line) for a file that cannot be read or is not an ``.npz`` archive (torn, or
            not written by a gated run); never loads pickled objects.
    """
    try:
        if not zipfile.is_zipfile(path):
            raise ValueError("not an .npz archive: torn, or not written by a gated run")
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{path}: the gate's examples cannot be read ({first_line(err)})") from err


def searched(batch: dict) -> np.ndarray:
    """bool ``(N,)``: the steps where the teacher scored at least two candidates, the proposal among them."""
    sc, p = batch["expert_scores"], batch["prior"]
    ok = (~np.isnan(sc)).sum(1) >= 2
    return ok & (p >= 0) & ~np.isnan(sc[np.arange(len(p)), np.maximum(p, 0)])


def gate_examples(batch: dict, num_players: int, features: str = "combat", chunk: int = 2048) -> dict:
    """The gate's examples in a labelled batch: one per scored candidate other than the proposal
    at each :func:`searched` step.

    Args:
        batch: a merged rollout batch with ``expert_scores`` float32 ``(N, A)`` (NaN = not scored),
            ``prior`` int64 ``(N,)`` and the stored observations.
        num_players: seats ``n``.
        features: the gate's feature set (a key of :data:`agents.candidates.GATE_FEATURES`).
        chunk: observations densified at a time.

    Returns:
        ``step`` int64 ``(M,)``, ``act`` int64 ``(M,)``, ``x`` float32 ``(M, GATE_FEATURES[features])``
        (:func:`agents.candidates.advantage_inputs` of the candidate against the proposal), ``y``
        float32 ``(M,)`` (the candidate's score minus the proposal's) and ``rows`` (the number of
        searched steps).
    """
    ok = searched(batch)
    sc, p = batch["expert_scores"], batch["prior"]
    step, act = np.nonzero(~np.isnan(sc) & ok[:, None])
    keep = act != p[step]
    step, act = step[keep].astype(np.int64), act[keep].astype(np.int64)
    y = (sc[step, act] - sc[step, p[step]]).astype(np.float32)
    return {"step": step, "act": act, "x": gate_inputs(batch, step, act, num_players, features, chunk), "y": y,
            "rows": int(ok.sum())}


def gate_inputs(batch: dict, step: np.ndarray, act: np.ndarray, num_players: int, features: str = "combat",
                chunk: int = 2048) -> np.ndarray:
    """float32 ``(M, GATE_FEATURES[features])``: :func:`agents.candidates.advantage_inputs` of each
    candidate ``act[i]`` against the proposal ``batch["prior"]`` at step ``step[i]``, read off that
    step's stored observation (densified ``chunk`` rows at a time).

    Raises:
        ValueError: for an unknown feature set."""
    if features not in GATE_FEATURES:
        raise ValueError(f"gate_inputs: features must be one of {sorted(GATE_FEATURES)}, got {features!r}")
    obs = batch_observations(batch, obs_layout(num_players).size)
    prior = torch.from_numpy(batch["prior"])
    x = np.zeros((len(step), GATE_FEATURES[features]), np.float32)
    for s in range(0, len(step), chunk):
        r = torch.from_numpy(step[s:s + chunk])
        a = torch.from_numpy(act[s:s + chunk]).unsqueeze(1)
        x[s:s + chunk] = advantage_inputs(obs.rows(r).dense(), a, prior[r], num_players, features)[:, 0].numpy()
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


class GateFit:
    """The advantage gate's fit across a run: every labelled example replayed, the played weights averaged.

    A run with ``gate`` keeps every example it labels (:func:`gate_examples`)
    in ``run_dir/gate/examples_<iteration>.npz`` (``x``, ``y`` and ``step``, the
    row of the batch, which groups a decision's candidates; written
    atomically).  In each iteration :meth:`update` first scores the played
    gate on the fresh batch (a held-out measure: it has not been fitted to
    it), adds the batch's examples to the replay, and takes
    ``round(epochs * new examples / GATE_MINIBATCH)`` Adam steps on
    minibatches of :data:`GATE_MINIBATCH` drawn uniformly (with replacement)
    from every example of the run so far: over a run an example is drawn
    ``epochs`` times on average, and the last steps favour no batch.  The
    network's gate, the one played and saved, is a running average of the
    fitted weights (Polyak averaging, decay :data:`GATE_AVERAGE` per step,
    ``(1 + t) / (10 + t)`` over the first steps ``t`` so it does not linger
    on the initial weights); the fitted weights, their optimizer and the
    step count are in :meth:`state_dict`.

    Fitting each fresh batch alone, in turn, biased the gate to the last
    batches and left it weaker in play (README, "The gate in training").

    Args:
        net: an :class:`~agents.networks.EntityNet` with a gate; its ``gate`` is
            overwritten by the average after every step.
        folder: where the examples are kept (``run_dir/gate``), or None to keep them in memory only.
        state: a :meth:`state_dict` to go on from (a resumed run), or None.
        iteration: the iteration ``state`` was saved at: the kept examples of later
            iterations (of a run killed after its last checkpoint) are deleted, the
            others read back.

    Raises:
        ValueError: for a network without a gate.

    Warns:
        UserWarning: a kept examples file of an iteration up to ``iteration`` that cannot
            be read (the fit goes on without it), or none at all where ``state`` has
            taken steps (a deleted folder: the fit goes on with the new examples only).
            Other files in the folder are left alone.
    """

    def __init__(self, net: torch.nn.Module, folder: str | os.PathLike | None, state: dict | None = None,
                 iteration: int = 0):
        if getattr(net, "gate", None) is None:
            raise ValueError("GateFit: the network has no advantage gate")
        self.net = net
        self.folder = None if folder is None else Path(folder)
        self.fitted = copy.deepcopy(net.gate)
        self.optimizer = torch.optim.Adam(self.fitted.parameters(), lr=GATE_LEARNING_RATE, eps=1e-5)
        self.steps = 0
        self.width = GATE_FEATURES[net.gate_features]
        self.x = np.zeros((0, self.width), np.float32)
        self.y = np.zeros(0, np.float32)
        if state is not None:
            self.fitted.load_state_dict(state["fitted"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.steps = int(state["steps"])
        if self.folder is not None:
            self.folder.mkdir(exist_ok=True)
            self._read_back(iteration if state is not None else 0)

    def _read_back(self, iteration: int) -> None:
        """Delete the kept examples past ``iteration`` and read back the others, in iteration order."""
        xs, ys = [], []
        for path in sorted(self.folder.glob("examples_*.npz")):
            if not _EXAMPLES.fullmatch(path.name):
                continue                                   # not a file of this class's
            it = int(path.stem.split("_")[1])
            if it > iteration:
                path.unlink()
                continue
            try:
                z = read_examples(path)
                if "x" not in z or "y" not in z:
                    raise ValueError(f"{path}: not a file of the gate's examples (no 'x' and 'y')")
                x, y = z["x"], z["y"]
                if x.shape != (len(y), self.width):
                    raise ValueError(f"{path}: x of shape {x.shape} for {len(y)} targets")
            except ValueError as err:
                warnings.warn(f"{err}; the gate is fitted without them", stacklevel=3)
                continue
            xs.append(x.astype(np.float32))
            ys.append(y.astype(np.float32))
        if xs:
            self.x, self.y = np.concatenate(xs), np.concatenate(ys)
        elif self.steps:
            warnings.warn(f"{self.folder}: no kept examples of the gate's {self.steps} fitted steps so far; "
                          f"it is fitted on the new ones only", stacklevel=3)

    def update(self, batch: dict, iteration: int, epochs: int, rng: np.random.Generator) -> dict:
        """Score the played gate on a fresh labelled batch, keep its examples, and fit over the replay.

        Args:
            batch: a merged labelled batch with ``expert_scores`` and ``prior``.
            iteration: the run's iteration this batch belongs to (names its examples file).
            epochs: how many times an example is drawn on average over a run (see the class).
            rng: draws the minibatches.

        Returns:
            ``gate/examples`` (the batch's), ``gate/searched`` (its searched steps),
            ``gate/replay`` (examples kept in the run so far, these included), and with
            examples in the batch: before fitting ``gate/corr`` (correlation of the played
            gate's prediction and the advantage; NaN with fewer than two examples or a
            constant prediction), ``gate/taken``, ``gate/gain``, ``gate/won``, ``gate/lost``
            (:func:`realised_gain` at the net's ``gate_threshold``), then ``gate/loss`` (the
            fitted weights' mean minibatch loss) and ``gate/steps`` (Adam steps taken).

        Raises:
            ValueError: for a batch without ``expert_scores``.
        """
        if "expert_scores" not in batch:
            raise ValueError("GateFit: the batch has no expert_scores (needs expert = \"lookahead\" labelling it)")
        return self.learn(gate_examples(batch, self.net.num_players, self.net.gate_features), iteration, epochs, rng)

    def learn(self, ex: dict, iteration: int, epochs: int, rng: np.random.Generator) -> dict:
        """:meth:`update` from a batch's examples already made (:func:`gate_examples`: ``step``,
        ``x`` of this gate's width, ``y`` and ``rows``); ``bench/gate_replay.py`` replays a run's
        kept examples through it.

        Raises:
            ValueError: for examples of another width than the gate's."""
        if ex["x"].shape != (len(ex["y"]), self.width):
            raise ValueError(f"GateFit: examples of shape {ex['x'].shape} for {len(ex['y'])} targets, the gate "
                             f"reads {self.width} features")
        out = {"gate/examples": float(len(ex["y"])), "gate/searched": float(ex["rows"])}
        if not len(ex["y"]):
            out["gate/replay"] = float(len(self.y))
            return out
        with torch.no_grad():
            pred = (self.net.gate(torch.from_numpy(ex["x"])).squeeze(-1) / GATE_SCALE).numpy()
        ok = len(pred) > 1 and pred.std() > 0 and ex["y"].std() > 0
        out["gate/corr"] = float(np.corrcoef(pred, ex["y"])[0, 1]) if ok else float("nan")
        r = realised_gain(ex["step"], pred, ex["y"], ex["rows"], self.net.gate_threshold)
        out.update({f"gate/{k}": float(v) for k, v in r.items()})
        if self.folder is not None:
            buf = io.BytesIO()
            np.savez(buf, x=ex["x"], y=ex["y"], step=ex["step"])
            atomic_write_bytes(self.folder / f"examples_{iteration:06d}.npz", buf.getvalue())
        self.x = np.concatenate([self.x, ex["x"]])
        self.y = np.concatenate([self.y, ex["y"]])
        out["gate/replay"] = float(len(self.y))
        x, y = torch.from_numpy(self.x), torch.from_numpy(self.y) * GATE_SCALE
        n = max(1, round(epochs * len(ex["y"]) / GATE_MINIBATCH))
        losses = []
        fitted, played = list(self.fitted.parameters()), list(self.net.gate.parameters())
        for _ in range(n):
            i = torch.from_numpy(rng.integers(0, len(y), GATE_MINIBATCH))
            loss = ((self.fitted(x[i]).squeeze(-1) - y[i]) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())
            self.steps += 1
            decay = min(GATE_AVERAGE, (1 + self.steps) / (10 + self.steps))
            with torch.no_grad():
                for a, f in zip(played, fitted):
                    a.lerp_(f, 1.0 - decay)
        out["gate/loss"] = float(np.mean(losses))
        out["gate/steps"] = float(n)
        return out

    def state_dict(self) -> dict:
        """``fitted`` (the fitted weights), ``optimizer`` (their Adam state) and ``steps`` (taken so far)."""
        return {"fitted": self.fitted.state_dict(), "optimizer": self.optimizer.state_dict(), "steps": self.steps}


_GATE_KEYS = ("gate", "gate_threshold", "gate_features", "role_gates", "gate_only")


def _gate_of(net: torch.nn.Module, role: str) -> tuple[dict, dict]:
    """The settings (``gate``, ``gate_features``, ``gate_threshold``) and the weights (by name within
    the head) of the gate that decides for ``net``'s seats dealt ``role``
    (:meth:`agents.networks.EntityNet.gate_for`); ``({}, {})`` for a network without one."""
    chosen = net.gate_for(role) if hasattr(net, "gate_for") else None
    if chosen is None:
        return {}, {}
    head, features, threshold = chosen
    return {"gate": head[0].out_features, "gate_features": features, "gate_threshold": threshold}, head.state_dict()


def _fitted_roles(path: str | os.PathLike, payload: dict) -> list[str]:
    """The roles a checkpoint's gate was fitted to alone (its run's ``solo_roles``; ``[]``: every role).

    Raises:
        ValueError: (one line) for a ``solo_roles`` in its training configuration that names no roles.
    """
    from treachery_env.rules import Role

    try:
        return [r.name.lower() for r in Role.parse_many((payload.get("train_config") or {}).get("solo_roles") or [])]
    except (TypeError, ValueError) as err:
        raise ValueError(f"{str(path)!r}: its training configuration's solo_roles: {first_line(err)}") from None


class Graft(NamedTuple):
    """What :func:`graft_role_gate` wrote and changed.

    Attributes:
        path: the graft's policy file.
        gate_changed: whether a seat dealt the role is now gated by another gate than BASE's
            (False: the same gate, only its gate-only setting changed).
        gate_only_before, gate_only_after: whether BASE, and the graft, play that role
            gate-only (``model_kwargs["gate_only"]``).
    """

    path: Path
    gate_changed: bool
    gate_only_before: bool
    gate_only_after: bool


def graft_role_gate(base: str | os.PathLike, donor: str | os.PathLike, role: str, out: str | os.PathLike,
                    force: bool = False, gate_only: bool = False) -> Graft:
    """A policy whose seats dealt ``role`` are gated by the gate another run fitted to that role.

    ``donor`` is a gate run's policy (``gate`` > 0, e.g. ``advantage_gate.toml`` with
    ``solo_roles = [ROLE]``, which fits its gate on that role's decisions alone) and
    ``base`` a policy of the same network: every weight but the gates must be equal
    (a frozen run, ``freeze_policy``, from the same ``init``), so the donor's gate was
    fitted to the very policy it will gate.  The result is ``base`` with the gate that
    decides for the donor's seats dealt ``role`` (its own gate for that role if it has
    one, a graft's, else its main gate) as ``role_gates[role]``
    (:class:`agents.networks.EntityNet`; a role gate already there is replaced), written
    atomically with ``base``'s game and training configuration (without ``force``, never over a
    file: where another command made ``out`` after the check, to the next free name,
    ``graft-2.pt``, :func:`agents.files.write_new_file`); ``meta["role_gates"][role]``
    names the run's policy that fitted that gate, its file's SHA-256 and its training
    configuration (the donor, or for a donor's own role gate the donor's record of it).
    ``gate_only``: the seats dealt ``role`` leave the proposal only where that gate departs
    (``model_kwargs["gate_only"]`` gains ``role``; without it ``role`` is taken out of it), so
    the graft says how that role's seats play.

    Raises:
        ValueError: (one line) for an unreadable checkpoint, an unknown role, a donor
            without a gate, a donor whose run fitted its gate to other roles alone (its
            ``solo_roles``), a gated base whose run fitted its gate to some roles alone (so
            it would gate the others; BASE and DONOR swapped), networks that differ outside
            their gates (naming the first weight or setting), a donor whose gate for ``role``
            is the base's with the same ``gate_only`` for it (nothing would change), or an ``out`` that is empty, a folder, under
            a file, unwritable, BASE or DONOR itself, exists without ``force``, or is a file
            that a training running in its folder writes (:func:`training.run_lock.check_not_in_use`);
            nothing is written then, no folder made.

    Warns:
        UserWarning: (one line each) for a BASE or DONOR that is a run's ``policy.pt`` whose training
            is still running (:func:`training.run_lock.saved_by_a_training`): the graft is made of the
            policy it saved last, not the one it will end with.

    Returns:
        :class:`Graft`: the file written and what changed (the CLI says it).
    """
    from agents.networks import build_network
    from agents.policy import read_checkpoint, save_checkpoint
    from treachery_env.rules import Role

    try:
        role = Role.parse(str(role).strip()).name.lower()
    except ValueError as err:
        raise ValueError(f"--role: {err}") from None
    if not str(out).strip():
        raise ValueError("--out is empty; give a file")
    loaded, sha, training = [], {}, {}
    for what, src in (("BASE", base), ("DONOR", donor)):     # a missing or bad input named first
        try:
            payload, data = read_checkpoint(src)         # read once: the bytes loaded are the bytes hashed
        except ValueError as err:
            raise ValueError(f"{what}: {err}") from None
        loaded.append(payload)
        sha[what] = hashlib.sha256(data).hexdigest()
        training[what] = saved_by_a_training(src)        # a run's policy.pt, while the run is trained
    b, d = loaded
    out = Path(out)
    try:
        present = out.exists()
    except OSError as err:              # a name over the system's limits, say
        raise ValueError(f"--out {str(out)!r} cannot be written: {os_reason(err)}") from None
    for what, src in (("BASE", base), ("DONOR", donor)):
        if present and os.path.samefile(out, src):
            raise ValueError(f"--out {str(out)!r} is {what}: write the graft to a new file (its inputs stay as "
                             f"they are)")
    if out.is_dir():                   # before "exists; give --force", which a folder would not be helped by
        raise ValueError(f"--out {str(out)!r} is a folder, not a file: the graft is one policy file (e.g. "
                         f"{str(out / 'policy.pt')!r})")
    if present and not force:
        raise ValueError(f"--out {str(out)!r} exists; give --force to replace it")
    check_not_in_use(out.parent, "--out", (out.name,))    # a training's own policy.pt or checkpoint
    same_file = os.path.samefile(base, donor)
    bk, dk = b["model_kwargs"], d["model_kwargs"]
    settings, weights = _gate_of(d["net"], role)      # the gate that decides for its seats dealt role
    if not settings:
        raise ValueError(f"{str(donor)!r} has no advantage gate to graft (a run with gate > 0 fits one)")
    donor_roles, base_roles = _fitted_roles(donor, d), _fitted_roles(base, b)
    if donor_roles and role not in donor_roles:
        raise ValueError(f"DONOR {str(donor)!r} fitted its gate to {' and '.join(donor_roles)} decisions alone (its "
                         f"run's solo_roles), not to {role}'s")
    if base_roles and bk.get("gate") and not same_file:      # one file: its own gate, nothing swapped
        raise ValueError(f"BASE {str(base)!r} fitted its own gate to {' and '.join(base_roles)} decisions alone (its "
                         f"run's solo_roles), so it would gate every other role: BASE is the policy whose other roles "
                         f"keep their gate, DONOR the gate run (were they given the other way round?)")
    for key in sorted(set(bk) | set(dk)):
        if key not in _GATE_KEYS and bk.get(key) != dk.get(key):
            raise ValueError(f"the two networks differ in {key} ({bk.get(key)!r} vs {dk.get(key)!r}): the donor's "
                             f"gate was fitted to another policy")
    bs, ds = b["model_state"], d["model_state"]
    for name in sorted(set(bs) | set(ds)):
        if name.startswith(("gate.", "role_gates.")):
            continue
        if name not in bs or name not in ds or not torch.equal(bs[name], ds[name]):
            raise ValueError(f"the two networks differ in weight {name!r}: the donor's gate was fitted to another "
                             f"policy (graft onto the policy its run started from and kept frozen)")
    was, had = _gate_of(b["net"], role)
    only = [r for r in bk.get("gate_only", []) if r != role] + ([role] if gate_only else [])
    same_gate = was == settings and had.keys() == weights.keys() and all(torch.equal(had[k], weights[k]) for k in had)
    if same_gate and sorted(only) == sorted(bk.get("gate_only", [])):
        raise ValueError(f"DONOR {str(donor)!r} gates a seat dealt {role} with the very gate BASE does"
                         + (" (and BASE already plays that role gate-only)" if gate_only else "")
                         + ": the graft would change nothing")
    role_gates = dict(bk.get("role_gates", {}))
    role_gates[role] = settings
    kwargs = {k: v for k, v in bk.items() if k != "gate_only"}
    net = build_network({**kwargs, "role_gates": role_gates, **({"gate_only": only} if only else {})})
    state = {k: v for k, v in bs.items() if not k.startswith(f"role_gates.{role}.")}
    state.update({f"role_gates.{role}.{k}": v for k, v in weights.items()})
    net.load_state_dict(state)
    check_writable_file(out, "--out")           # only now: a refused graft leaves no folder behind
    meta = dict(b.get("meta", {}))
    origin = d.get("meta", {}).get("role_gates", {}).get(role) if role in dk.get("role_gates", {}) else None
    meta["role_gates"] = {**meta.get("role_gates", {}),            # a donor's own role gate: the run that fitted it
                          role: origin or {"donor": str(donor), "sha256": sha["DONOR"],
                                           "donor_meta": d.get("meta", {}),
                                           "donor_train_config": d.get("train_config", {})}}
    meta["graft_base"] = {"file": str(base), "sha256": sha["BASE"]}     # the card names it
    path = save_checkpoint(out, net, b["game_config"], b.get("train_config"), meta=meta, new=not force)
    for what, words in training.items():
        if words is not None:
            warnings.warn(f"{what}: {words}: grafted the one it saved last, not the one it will end with; graft "
                          f"again once it has ended", stacklevel=2)
    return Graft(path, not same_gate, role in bk.get("gate_only", []), gate_only)
