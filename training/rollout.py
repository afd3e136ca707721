"""Batched self-play rollouts: many games stepped together, one forward pass per step.

A :class:`Collector` owns ``games_per_worker`` game *slots*.  Each slot holds a
:class:`treachery_env.raw_env` game whose seats are controlled by the learner,
by a frozen policy from the opponent pool, or by a rule-based bot
(``heuristic``, ``belief``, ``random``), as drawn for that game from
``TrainConfig.opponents``.  One step of the collector advances every slot
until a policy seat must decide (bots act immediately), then runs **one
batched forward pass** per network over all waiting seats, samples from the
masked policy and applies the actions.  Finished games are replaced by new
ones in place, so the batch stays full.

Each learner seat's decisions in a game form a *segment*; its reward is the
team reward at the end of the game (+1 / -1, 0 for a draw or truncation,
given to eliminated seats too: TR last-known team).  A segment still open
when the rollout ends is bootstrapped with the value of the seat's current
observation and continues in the next rollout (its recurrent state carries
over).  Advantages use GAE (Schulman et al. 2016) within segments.

Expert labels (``collect(..., label_expert=True)``): at each learner decision,
the action that ``config.expert`` (a rule-based bot, one per learner seat,
reset at the start of each game) would take in the same state, for the
imitation phase and the behaviour-cloning anchor of :func:`training.ppo.train`
(DAgger, Ross et al. 2011: the learner's own states, the expert's actions).  ``-1`` when not labelled.
A search expert (``lookahead``) also gives each label's *search gain*: how
much better its rollouts scored the label than the proposal the network read
(``expert_gain``; the update may weight departures by it, ``gain_weight``).

Proposals (a network made with ``prior``, :mod:`agents.networks`): at each
decision of a policy seat (learner or pool), the action the ``prior`` bot (one
per policy seat, reset at the start of each game, given the seat's view as a
bot is) proposes; the network reads it, and ``prior`` records it for the update.

KL reference (``config.kl_policy``): at each learner decision the frozen
reference policy is run too (its own recurrent state per seat, the same
proposal), and its action probabilities are recorded for the update's KL term.

Belief labels: at each learner decision, the true current role of every other
seat that is face down and still in the game (relative seat order), ``-1``
otherwise.  They are privileged and used only as the auxiliary loss's targets,
never as inputs.  So are the privileged critic's inputs
(:func:`privileged_features`, every seat's true role), recorded at each
learner decision when the learner's network has a privileged critic (not made
otherwise) and read only by the value head (:mod:`agents.networks`).

Inference: each batched decision runs the networks' ``step`` (one decision
without autograd: the forward pass's masked logits, value and state, bit for
bit; :class:`agents.networks.PolicyNet` reads its weights directly).

:class:`WorkerPool` runs collectors in worker processes (``spawn``), one torch
thread each, receiving the learner's weights (through shared memory:
:mod:`training.shared_weights`) and pool changes every rollout; or,
with ``TrainConfig.ray_address``, in Ray actors (:mod:`training.ray_workers`)
receiving the same.

Observations are stored by their nonzero features (~1.4% of a 5-player
observation's 7,432): ``obs_nnz``, ``obs_cols``, ``obs_vals``, which
:func:`batch_observations` turns into the network input
(:class:`agents.networks.SparseObs`).  The observations of a 2,048-step batch
then cross from a worker in ~1.7 MB instead of ~61 MB, and the flat network's
first layer reads the nonzeros alone (:class:`agents.networks.ObservationEmbedding`).
"""

from __future__ import annotations

import copy
import gc
import multiprocessing as mp
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

import agents
from agents.isolated import exit_with_parent
from agents.networks import SparseObs, build_network
from agents.play import first_line
from agents.policy import check_layout, load_policy
from treachery_env.compiled import starting_workers
from treachery_env.env import raw_env
from treachery_env.observation import encode_sparse_rows
from treachery_env.rules import Role
from treachery_env.view import ViewBuilder

from .config import TrainConfig
from .interrupts import children_ignore_sigint
from .shared_weights import SharedWeights, WeightsHandle, WeightsReader

__all__ = ["Collector", "WorkerPool", "WorkerLost", "worker_collector", "GameStat", "batch_observations", "sparse_rows",
           "sample_actions", "legal_probs", "compute_gae", "privileged_features", "LEARNER",
           "WORKER_GC_THRESHOLD"]

LEARNER = "learner"


@dataclass
class GameStat:
    """A finished game, from the learner's side.

    Attributes:
        kind: the game's opponent kind (``self``, ``pool``, ``heuristic``, ...).
        seats: ``(dealt role, reward)`` for each learner seat.
        turns: turns played.
        decisions: decisions of all seats (bots included) [agent-steps].
        truncated: ended by ``max_turns``.
    """

    kind: str
    seats: list
    turns: int
    decisions: int
    truncated: bool


@dataclass
class _Slot:
    env: Any
    kind: str = "self"
    ctrl: list = field(default_factory=list)       # per seat: LEARNER, ("pool", id) or a bot
    h: dict = field(default_factory=dict)          # seat -> recurrent state (H,) of policy seats
    seg: dict = field(default_factory=dict)        # learner seat -> step indices of its open segment
    experts: dict = field(default_factory=dict)    # learner seat -> expert bot labelling its decisions
    priors: dict = field(default_factory=dict)     # policy seat -> bot proposing the action its network reads
    ref_h: dict = field(default_factory=dict)      # learner seat -> recurrent state of the KL reference policy
    roles: list = field(default_factory=list)      # dealt roles
    decisions: int = 0
    views: Any = None                              # ViewBuilder of the game, for the bots' info["view"]


def sample_actions(probs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One action per row of ``probs`` (float ``(B, A)``, nonnegative, each row's sum
    above 0, not necessarily 1), drawn with probability ``probs[b, a] / probs[b].sum()``
    by inverting the cumulative sum at one uniform draw of ``generator`` per row
    (in double precision; cheaper than ``torch.multinomial`` for a batch of a few
    dozen rows).  An action of probability 0 is never drawn.

    Returns:
        int64 ``(B,)``.
    """
    cdf = probs.double().cumsum(-1)
    u = torch.rand(probs.shape[0], 1, generator=generator, dtype=torch.float64)
    total = cdf[:, -1:]
    v = torch.minimum(u * total, torch.nextafter(total, torch.zeros_like(total)))   # below the total, rounding or not
    return torch.searchsorted(cdf, v, right=True).squeeze(1)


def legal_probs(logp: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``logp.exp()`` for the masked log-probabilities ``logp`` (float ``(B, A)``) of a policy whose
    illegal actions are masked to probability 0 (``legal``: bool ``(B, A)``), bit for bit, at a
    quarter of its cost: the exponential is taken of the legal actions' entries alone (torch's
    ``exp`` is slow on the masked actions' ~-1e9, whose exponential underflows to 0), the
    others are 0.  Returns float ``(B, A)`` of ``logp``'s dtype."""
    return torch.where(legal, logp, 0.0).exp_().mul_(legal)


def _sparse_batch(items: list, size: int) -> tuple[SparseObs, np.ndarray, np.ndarray, list[int]]:
    """The observations of the ``B`` ``(slot, seat)`` pairs of ``items`` by their nonzero features,
    encoded in one call (:func:`treachery_env.observation.encode_sparse_rows`): the network input,
    a :class:`~agents.networks.SparseObs` of shape ``(B,)`` made without the constructor's checks
    (:meth:`~agents.networks.SparseObs.trusted`: the encoder's rows hold by construction), and
    the rows for the batch: ``cols`` int32 ``(M,)``, ``vals`` float32 ``(M,)`` and ``bounds``
    (``B + 1`` ints: row ``b`` is ``cols[bounds[b]:bounds[b + 1]]``)."""
    nnz, cols, vals = encode_sparse_rows([slot.env.game for slot, _ in items], [seat for _, seat in items])
    sparse = SparseObs.trusted(torch.from_numpy(nnz), torch.from_numpy(cols.astype(np.int64)),
                               torch.from_numpy(vals), size)
    return sparse, cols, vals, [0, *np.cumsum(nnz).tolist()]


def privileged_features(game: Any, seat: int) -> np.ndarray:
    """The privileged critic's input at ``seat``: every seat's true current role,
    one-hot, in relative seat order (``seat`` first), float32 ``(4 n,)``.

    Hidden information (face-down identities): training gives it to the value
    head only (:mod:`agents.networks`), never to the actor or to a bot."""
    ps = game.players
    n = len(ps)
    out = np.zeros(4 * n, np.float32)
    for k in range(n):
        out[4 * k + int(ps[(seat + k) % n].role)] = 1.0
    return out


def compute_gae(rewards: np.ndarray, values: np.ndarray, bootstrap: float, done: bool, gamma: float,
                lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Generalized advantage estimation over one segment (Schulman et al. 2016).

    Args:
        rewards: float ``(T,)``, reward after each step.
        values: float ``(T,)``, value estimates of the steps.
        bootstrap: value of the state after the last step (ignored when ``done``).
        done: whether the episode ended after the last step.
        gamma: discount per decision; lam: the GAE lambda.

    Returns:
        ``(advantages, returns)``, float32 ``(T,)`` each, ``returns = advantages + values``.
    """
    T = len(rewards)
    adv = np.zeros(T, dtype=np.float32)
    nxt = 0.0 if done else float(bootstrap)
    last = 0.0
    for t in range(T - 1, -1, -1):
        delta = rewards[t] + gamma * nxt - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
        nxt = values[t]
    return adv, (adv + values).astype(np.float32)


def reference_policy(config: TrainConfig, net: torch.nn.Module) -> torch.nn.Module:
    """The frozen policy of ``config.kl_policy`` (eval mode), checked to fit the
    learner ``net``: this game's layouts and players, and no proposal input the
    learner does not read (the collector gives both networks the learner's proposals).

    Raises:
        ValueError: (one line) for a missing or unreadable checkpoint or one that does not fit.
    """
    try:
        ref, _ = load_policy(config.kl_policy)
        check_layout(ref, config.kl_policy)
    except ValueError as err:
        raise ValueError(f"kl_policy: {first_line(err)}") from err
    if ref.num_players != net.num_players:
        raise ValueError(f"kl_policy: {config.kl_policy!r} plays {ref.num_players} players, this run "
                         f"{net.num_players}")
    if ref.prior is not None and ref.prior != net.prior:
        raise ValueError(f"kl_policy: {config.kl_policy!r} reads the {ref.prior!r} bot's proposal and this run's "
                         f"network does not (set prior = {ref.prior!r})")
    return ref


class Collector:
    """Steps ``config.games_per_worker`` games together for the learner (see module docstring).

    Args:
        config: the training configuration.
        seed: seed of this collector's games, bots and sampling.

    The learner's weights are set with :meth:`set_weights`, the frozen pool
    with :meth:`update_pool`, before each :meth:`collect`.
    """

    def __init__(self, config: TrainConfig, seed: int):
        self.config = config
        self.game_config = config.game_config()
        self.n = self.game_config.num_players
        self.rng = np.random.default_rng(seed)
        self.gen = torch.Generator().manual_seed(int(self.rng.integers(2**62)))
        probe = raw_env(config=self.game_config, view_in_info=False)
        self.obs_size = int(probe.observation_space("player_0")["observation"].shape[0])
        self.num_actions = int(probe.action_space("player_0").n)
        self.net_kwargs = config.network_kwargs(self.obs_size, self.num_actions)
        self.net = build_network(self.net_kwargs).eval()
        self.priv_size = int(self.net_kwargs.get("privileged_size", 0))     # 0: no privileged critic
        self.ref = reference_policy(config, self.net) if config.kl_policy else None
        self.expert_searches = config.labels_expert and config.expert_searches
        self.pool: dict[int, torch.nn.Module] = {}
        self.retired: set[int] = set()     # removed from the pool, kept while games in progress use them
        kinds = list(config.opponents)
        w = np.array([config.opponents[k] for k in kinds], dtype=float)
        self.kinds, self.kind_p = kinds, w / w.sum()
        # the environments build no views: only bot seats need one (_bot_inputs), the learner reads vectors
        self.slots = [self._new_game(_Slot(raw_env(config=self.game_config, view_in_info=False)))
                      for _ in range(config.games_per_worker)]

    # ------------------------------------------------------------------ weights
    def set_weights(self, state: dict) -> None:
        """Load the learner's weights (a state dict of tensors or arrays)."""
        self.net.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()})

    def update_pool(self, changes: dict) -> None:
        """Apply pool changes ``{id: state dict}`` (add) and ``{id: None}`` (remove).

        A removed policy is no longer drawn for new games but keeps playing the
        games in progress that it was drawn for; it is dropped when they end.
        """
        for pid, state in changes.items():
            if state is None:
                self.retired.add(pid)
            else:
                # a copy of the learner's network (the same architecture) given the frozen weights:
                # ~3 ms, where a new network's random initialisation took ~90 ms (the flat default)
                net = copy.deepcopy(self.net).eval()
                net.load_state_dict({k: torch.as_tensor(v) for k, v in state.items()})
                self.pool[pid] = net

    # ------------------------------------------------------------------ games
    def _solo_choices(self, roles: list[int]) -> list[int]:
        """The roles a solo game's learner seat is drawn from: the deal's, limited to
        ``config.solo_roles`` when it names some (its validation checks the deck deals one)."""
        table = sorted(set(roles))
        if not self.config.solo_roles:
            return table
        wanted = set(map(int, Role.parse_many(self.config.solo_roles)))
        return [r for r in table if r in wanted]

    def _new_game(self, slot: _Slot) -> _Slot:
        n = self.n
        slot.env.reset(seed=int(self.rng.integers(2**31 - 1)))
        kind = str(self.rng.choice(self.kinds, p=self.kind_p))
        active = sorted(set(self.pool) - self.retired)
        if kind == "pool" and not active:
            kind = "self"          # nothing frozen yet: plain self-play
        slot.kind = kind
        if kind == "self":
            ctrl: list = [LEARNER] * n
        else:
            if self.rng.random() < self.config.solo:     # the evaluation condition, role-balanced
                roles = [int(p.identity.role) for p in slot.env.game.players]
                role = int(self.rng.choice(self._solo_choices(roles)))
                learner = {int(self.rng.choice([s for s in range(n) if roles[s] == role]))}
            else:
                k = int(self.rng.integers(1, n))
                learner = set(self.rng.choice(n, size=k, replace=False).tolist())
            if kind == "pool":
                pid = int(self.rng.choice(active))
                other: Any = ("pool", pid)
                ctrl = [LEARNER if s in learner else other for s in range(n)]
            else:
                ctrl = [LEARNER if s in learner else agents.make(kind, seed=int(self.rng.integers(2**31 - 1)))
                        for s in range(n)]
                for s, c in enumerate(ctrl):
                    if c is not LEARNER:
                        c.reset(s)
        slot.ctrl = ctrl
        H = self.config.hidden
        slot.h = {s: np.zeros(H, np.float32) for s, c in enumerate(ctrl) if not hasattr(c, "act")}
        slot.seg = {s: [] for s, c in enumerate(ctrl) if c is LEARNER}
        slot.ref_h = {s: np.zeros(self.ref.hidden, np.float32) for s in slot.seg} if self.ref is not None else {}
        slot.experts = {}
        if self.config.labels_expert:
            for s in slot.seg:
                slot.experts[s] = agents.make(self.config.expert, seed=int(self.rng.integers(2**31 - 1)))
                slot.experts[s].reset(s)
        slot.priors = {}
        if self.net.prior is not None:
            for s in slot.h:
                slot.priors[s] = agents.make(self.net.prior, seed=int(self.rng.integers(2**31 - 1)))
                slot.priors[s].reset(s)
        slot.roles = [Role(p.identity.role) for p in slot.env.game.players]
        slot.decisions = 0
        slot.views = ViewBuilder(slot.env.game)
        return slot

    @staticmethod
    def _bot_inputs(slot: _Slot, seat: int, bot: Any, mask: np.ndarray | None = None,
                    made: tuple | None = None) -> tuple[dict, dict]:
        """The ``(observation, info)`` a rule-based bot gets at ``seat``: what the
        environment gives with ``view_in_info=True``, plain arrays and a
        :class:`~treachery_env.view.SeatView` snapshot that reach nothing of the
        game.  The vector is encoded only for a bot that reads it (a bot with
        ``uses_observation_vector = False`` gets the mask alone: ``mask``, the
        seat's action mask int8 ``(A,)`` when already made).  ``made``: the inputs
        already made for another bot at this decision, reused (with the vector
        added if ``bot`` reads it and they lack it)."""
        env = slot.env
        g = env.game
        if made is not None:
            if getattr(bot, "uses_observation_vector", True) and "observation" not in made[0]:
                return g.observation(seat), made[1]
            return made
        if getattr(bot, "uses_observation_vector", True):
            obs = g.observation(seat)
        else:
            obs = {"action_mask": g.legal_action_mask() if mask is None else mask}
        info = dict(env.infos[env.agent_selection])
        info["view"] = slot.views.build(seat)
        return obs, info

    def _advance(self, slot: _Slot, buf: "_Buffer") -> int:
        """Let bots act until a policy seat decides (starting new games as they end); that seat."""
        while True:
            env = slot.env
            g = env.game
            if g.is_over:
                buf.finish_game(slot)
                self._new_game(slot)
                continue
            seat = g.current_player
            c = slot.ctrl[seat]
            if not hasattr(c, "act"):
                return seat
            env.step(c.act(*self._bot_inputs(slot, seat, c)))
            slot.decisions += 1

    def _belief_labels(self, slot: _Slot, seat: int) -> np.ndarray:
        """The belief labels at ``seat`` (module docstring), int8 ``(n - 1,)``."""
        ps = slot.env.game.players
        others = ps[seat + 1:] + ps[:seat]                       # relative seat order
        return np.array([-1 if p.has_lost or p.face_up else p.role for p in others], np.int8)

    def _privileged(self, items: list) -> np.ndarray:
        """The privileged critic's inputs at the ``B`` ``(slot, seat)`` pairs of ``items``, float32
        ``(B, P)``: :func:`privileged_features` for a learner network with a privileged critic
        (``P = 4 n``), else ``P = 0`` (nothing reads them: they are not made)."""
        if not self.priv_size:
            return np.zeros((len(items), 0), np.float32)
        return np.stack([privileged_features(slot.env.game, seat) for slot, seat in items])

    # ------------------------------------------------------------------ collect
    def _expert_action(self, slot: _Slot, seat: int, mask: np.ndarray, inputs: tuple | None = None,
                       prior: int = -1) -> tuple[int, float, np.ndarray | None]:
        """What the seat's expert bot would do now (DAgger label), given the seat's
        action mask, int8 ``(A,)`` (``inputs``: its bot inputs, when already made); the
        label's *search gain* over the proposal the network read (``prior``): the
        expert's mean rollout score of its label minus its score of the proposal,
        when the expert searched this decision and scored both
        (:attr:`agents.lookahead.LookaheadAgent.last_scores`), else 0; and the
        expert's scores as float32 ``(A,)`` (NaN for actions it did not score),
        None where it did not search."""
        expert = slot.experts[seat]
        inputs = self._bot_inputs(slot, seat, expert, mask, inputs)
        a = int(expert.act(*inputs))
        if not mask[a]:
            raise RuntimeError(f"expert {self.config.expert!r} chose illegal action {a}")
        scores = getattr(expert, "last_scores", None)
        gain = scores[a] - scores[prior] if scores and a != prior and a in scores and prior in scores else 0.0
        vec = None
        if scores:
            vec = np.full(self.num_actions, np.nan, np.float32)
            vec[list(scores)] = list(scores.values())
        return a, max(0.0, float(gain)), vec

    def _proposals(self, items: list, masks: np.ndarray) -> tuple[torch.Tensor | None, list]:
        """The ``prior`` bots' proposed actions for waiting policy seats, int64 ``(B,)``
        (None for a network without ``prior``), and each seat's bot inputs (or None);
        ``masks``: the seats' action masks, int8 ``(B, A)``."""
        if self.net.prior is None:
            return None, [None] * len(items)
        inputs = [self._bot_inputs(slot, seat, slot.priors[seat], m)
                  for (slot, seat), m in zip(items, masks)]
        acts = [int(slot.priors[seat].act(*x)) for (slot, seat), x in zip(items, inputs)]
        return torch.tensor(acts, dtype=torch.int64), inputs

    # inference mode, not no_grad: no tensor made here reaches autograd (the batch is numpy), and its
    # operations skip autograd's version counters (a collect ~4% faster, one process, the same games)
    @torch.inference_mode()
    def collect(self, num_steps: int, label_expert: bool = False) -> tuple[dict, list, dict]:
        """Run until ``num_steps`` learner decisions are collected.

        Args:
            num_steps: learner decisions to collect.
            label_expert: record the expert bot's action at each learner decision
                (needs ``config.imitation`` or ``config.imitation_coef`` above 0).

        Returns:
            ``(batch, games, info)``: ``batch`` has, for ``N >= num_steps`` steps
            ordered segment by segment: the observations by their nonzero
            features (:func:`batch_observations` makes the network input):
            ``obs_nnz`` int64 (N,) (nonzero features of each step),
            ``obs_cols`` int32 (M,) (their indices, step after step) and
            ``obs_vals`` float32 (M,) (their values), ``mask`` int8
            (N, A), ``action`` int64 (N,), ``logp``, ``value``, ``adv``, ``ret``
            float32 (N,), ``h`` float32 (N, H) (recurrent state before the
            step), ``belief_label`` int8 (N, n-1) (-1 = not scored), and
            ``expert`` int64 (N,) (the expert's action, -1 = not labelled),
            ``prior`` int64 (N,) (the proposal the network read, -1 = none),
            ``expert_gain`` float32 (N,) (the expert's search gain of its label
            over that proposal, in [0, 2]; 0 where it did not search both),
            with ``label_expert`` and an expert that searches
            (:attr:`TrainConfig.expert_searches`) ``expert_scores`` float32 (N, A) (the
            expert's mean rollout score of each candidate it compared, NaN for
            the others and at steps it did not search),
            with ``config.kl_policy`` ``ref_probs`` float32 (N, A) (the
            reference policy's action probabilities, 0 for illegal actions),
            ``priv`` float32 (N, P) (:func:`privileged_features`, for a privileged critic,
            ``P = 4n``; ``P = 0`` for a network without one),
            ``segments`` int64 (S, 2) of ``(start, length)``; ``games`` the
            :class:`GameStat` of games finished; ``info`` timing and counts.
        """
        if label_expert and not self.config.labels_expert:
            raise ValueError("expert labels need config.imitation or config.imitation_coef above 0")
        t0 = time.perf_counter()
        buf = _Buffer(scored=label_expert and self.expert_searches)
        dec0 = sum(s.decisions for s in self.slots)
        while buf.learner_steps < num_steps:
            groups: dict[Any, list] = {}
            for slot in self.slots:
                seat = self._advance(slot, buf)
                key = slot.ctrl[seat]
                groups.setdefault(key if key is LEARNER else key[1], []).append((slot, seat))
            for key, items in groups.items():
                net = self.net if key is LEARNER else self.pool[key]
                sparse, cols, vals, bounds = _sparse_batch(items, self.obs_size)      # nonzero features
                obs = sparse if getattr(net, "reads_sparse", False) else sparse.dense()
                mask = np.stack([slot.env.game.legal_action_mask() for slot, _ in items])
                h = torch.from_numpy(np.stack([slot.h[seat] for slot, seat in items]))
                priv = self._privileged(items) if key is LEARNER else None
                legal = torch.from_numpy(mask).bool()
                prior, inputs = self._proposals(items, mask)
                logits, value, h_new = net.step(obs, h, legal, None if priv is None else torch.from_numpy(priv),
                                                prior)
                logp_all = torch.log_softmax(logits, dim=-1)
                actions = sample_actions(legal_probs(logp_all, legal), self.gen)
                logp = logp_all.gather(1, actions[:, None]).squeeze(1)
                ref_probs = None
                if key is LEARNER and self.ref is not None:
                    ref_h = torch.from_numpy(np.stack([slot.ref_h[seat] for slot, seat in items]))
                    ref_in = sparse if getattr(self.ref, "reads_sparse", False) else \
                        obs if obs is not sparse else sparse.dense()          # the dense rows once
                    ref_logits, _, ref_h_new = self.ref.step(ref_in, ref_h, legal, None, prior)
                    ref_probs = torch.softmax(ref_logits, dim=-1).numpy()
                # the batch's outputs as Python numbers and numpy rows once (indexing a tensor per seat
                # costs more than the seat's whole share of these conversions)
                acts = actions.tolist()
                h_rows = list(h_new.numpy().copy())
                if key is LEARNER:
                    logps, values = logp.tolist(), value.tolist()
                    proposals = [-1] * len(items) if prior is None else prior.tolist()
                    ref_rows = None if ref_probs is None else list(ref_h_new.numpy().copy())
                for i, (slot, seat) in enumerate(items):
                    if key is LEARNER:
                        if ref_rows is not None:
                            buf.ref_probs.append(ref_probs[i])
                            slot.ref_h[seat] = ref_rows[i]
                        proposal = proposals[i]
                        expert, gain, scores = (self._expert_action(slot, seat, mask[i], inputs[i], proposal)
                                                if label_expert else (-1, 0.0, None))
                        row = slice(bounds[i], bounds[i + 1])
                        idx = buf.add(cols[row], vals[row], mask[i], acts[i], logps[i], values[i],
                                      slot.h[seat], self._belief_labels(slot, seat), expert, priv[i],
                                      proposal, gain)
                        if scores is not None:
                            buf.scores[idx] = scores
                        slot.seg[seat].append(idx)
                    slot.h[seat] = h_rows[i]
                    slot.env.step(acts[i])
                    slot.decisions += 1
        # bootstrap the open segments with the value of the seat's current observation
        open_segs = [(slot, seat) for slot in self.slots for seat, seg in slot.seg.items() if seg]
        if open_segs:
            sparse = _sparse_batch(open_segs, self.obs_size)[0]
            obs = sparse if getattr(self.net, "reads_sparse", False) else sparse.dense()
            h = torch.from_numpy(np.stack([slot.h[seat] for slot, seat in open_segs]))
            _, value, _ = self.net.step(obs, h, None, torch.from_numpy(self._privileged(open_segs)))
            for i, (slot, seat) in enumerate(open_segs):
                buf.close_segment(slot.seg[seat], 0.0, False, float(value[i]))
                slot.seg[seat] = []
        in_use = {c[1] for slot in self.slots for c in slot.ctrl if isinstance(c, tuple)}
        for pid in self.retired - in_use:
            self.pool.pop(pid, None)
        self.retired &= in_use
        batch = buf.build(self.config.gamma, self.config.gae_lambda, self.config.hidden, self.n)
        decisions = sum(s.decisions for s in self.slots) - dec0 + buf.finished_decisions
        info = {"seconds": time.perf_counter() - t0, "learner_steps": buf.learner_steps, "decisions": decisions}
        return batch, buf.games, info


def sparse_rows(obs: np.ndarray) -> dict:
    """Batch keys ``obs_nnz``, ``obs_cols``, ``obs_vals`` (as :meth:`Collector.collect`
    gives them) for dense float32 observations ``(N, D)``.

    Raises:
        ValueError: when ``obs`` is not 2-D.
    """
    if np.ndim(obs) != 2:
        raise ValueError(f"observations must be (N, D) rows; got shape {np.shape(obs)}")
    sp = SparseObs.from_dense(np.asarray(obs, np.float32))
    return {"obs_nnz": sp.nnz.numpy(), "obs_cols": sp.cols.numpy().astype(np.int32), "obs_vals": sp.vals.numpy()}


def batch_observations(batch: dict, size: int) -> SparseObs:
    """The observations of a :meth:`Collector.collect` batch (or a merge of them) as network input.

    Args:
        batch: holds ``obs_nnz``, ``obs_cols``, ``obs_vals`` (see :meth:`Collector.collect`).
        size: ``D``, the observation size (``net.kwargs["obs_size"]``).

    Returns:
        a :class:`agents.networks.SparseObs` of shape ``(N,)``; ``.rows(idx)``
        takes steps, ``.dense()`` gives float32 ``(N, D)``.

    Raises:
        ValueError: (one line) when the keys are missing or an index is not below ``size``.
    """
    missing = [k for k in ("obs_nnz", "obs_cols", "obs_vals") if k not in batch]
    if missing:
        raise ValueError(f"batch has no {', '.join(missing)}"
                         + (" (dense 'obs' rows: convert them with sparse_rows)" if "obs" in batch else ""))
    return SparseObs(torch.from_numpy(batch["obs_nnz"]), torch.from_numpy(batch["obs_cols"]).long(),
                     torch.from_numpy(batch["obs_vals"]), size)


class _Buffer:
    """Steps of one rollout and their segments."""

    def __init__(self, scored: bool = False) -> None:
        self.scored = scored           # a search expert labels the steps: the batch has expert_scores
        self.obs_cols: list = []       # each step's nonzero observation features: indices, int32
        self.obs_vals: list = []       # ... and values, float32
        self.mask: list = []
        self.action: list = []
        self.logp: list = []
        self.value: list = []
        self.h: list = []
        self.label: list = []
        self.expert: list = []
        self.priv: list = []
        self.prior: list = []
        self.gain: list = []
        self.ref_probs: list = []      # with a KL reference: its action probabilities, in step order
        self.scores: dict = {}         # step index -> the search expert's scores (A,), where it searched
        self.segments: list = []       # (indices, final reward, done, bootstrap value)
        self.games: list = []
        self.finished_decisions = 0

    @property
    def learner_steps(self) -> int:
        return len(self.action)

    def add(self, cols, vals, mask, action, logp, value, h, label, expert, priv, prior, gain) -> int:
        self.obs_cols.append(cols)
        self.obs_vals.append(vals)
        self.mask.append(mask)
        self.action.append(action)
        self.logp.append(logp)
        self.value.append(value)
        self.h.append(h)
        self.label.append(label)
        self.expert.append(expert)
        self.priv.append(priv)
        self.prior.append(prior)
        self.gain.append(gain)
        return len(self.action) - 1

    def close_segment(self, idx: list, reward: float, done: bool, bootstrap: float) -> None:
        self.segments.append((list(idx), reward, done, bootstrap))

    def finish_game(self, slot: _Slot) -> None:
        g = slot.env.game
        seats = []
        for seat in sorted(slot.seg):
            r = 0.0 if (g.truncated or not g.winners) else (1.0 if seat in g.winners else -1.0)
            seats.append((int(slot.roles[seat]), r))
            if slot.seg[seat]:
                self.close_segment(slot.seg[seat], r, True, 0.0)
            slot.seg[seat] = []
        self.games.append(GameStat(slot.kind, seats, int(g.turn), slot.decisions, bool(g.truncated)))
        self.finished_decisions += slot.decisions
        slot.decisions = 0

    def build(self, gamma: float, lam: float, hidden: int, n: int) -> dict:
        order, segs, adv, ret = [], [], [], []
        values = np.asarray(self.value, np.float32)
        for idx, reward, done, boot in self.segments:
            start = len(order)
            order.extend(idx)
            segs.append((start, len(idx)))
            r = np.zeros(len(idx), np.float32)
            r[-1] = reward
            a, rt = compute_gae(r, values[idx], boot, done, gamma, lam)
            adv.append(a)
            ret.append(rt)
        o = np.asarray(order, dtype=np.int64)
        if o.size == 0:
            raise RuntimeError("rollout produced no learner steps")
        extra = {"ref_probs": np.stack(self.ref_probs)[o]} if self.ref_probs else {}
        if self.scored:
            sc = np.full((len(self.action), len(self.mask[0])), np.nan, np.float32)
            if self.scores:
                sc[list(self.scores)] = np.stack(list(self.scores.values()))
            extra["expert_scores"] = sc[o]
        return {**extra,
            "obs_nnz": np.array([len(self.obs_cols[i]) for i in o], np.int64),
            "obs_cols": np.concatenate([self.obs_cols[i] for i in o]),
            "obs_vals": np.concatenate([self.obs_vals[i] for i in o]),
            "mask": np.stack(self.mask)[o],
            "action": np.asarray(self.action, np.int64)[o], "logp": np.asarray(self.logp, np.float32)[o],
            "value": values[o], "h": np.stack(self.h).astype(np.float32)[o],
            "belief_label": np.stack(self.label).reshape(-1, n - 1)[o],
            "expert": np.asarray(self.expert, np.int64)[o], "priv": np.stack(self.priv)[o],
            "prior": np.asarray(self.prior, np.int64)[o],
            "expert_gain": np.asarray(self.gain, np.float32)[o],
            "adv": np.concatenate(adv), "ret": np.concatenate(ret),
            "segments": np.asarray(segs, dtype=np.int64).reshape(-1, 2),
        }


# --------------------------------------------------------------------------- worker processes
def _to_numpy(state: dict) -> dict:
    return {k: v.detach().cpu().numpy() for k, v in state.items()}


WORKER_GC_THRESHOLD = 10_000
"""Net container allocations that start a rollout worker's youngest-generation collection
(CPython's default is 700; :func:`worker_collector`)."""


def worker_collector(config_dict: dict, seed: int) -> Collector:
    """The :class:`Collector` of a rollout worker process (:class:`WorkerPool`'s, or a Ray actor's):
    one torch thread, and everything made so far (modules, networks, the first games) moved to
    the garbage collector's permanent generation (``gc.freeze``), so that its collections, which
    the engine's and bots' short-lived objects set off, no longer walk those long-lived objects
    (a small gain in one process; within noise with two workers); and the youngest generation
    collected after :data:`WORKER_GC_THRESHOLD` net allocations instead of 700, so most of those
    objects are freed by their reference counts before a collection walks them (a few percent
    of a collect's time, measured with ``gc.callbacks``, down to about half a percent).

    Raises:
        ValueError: (one line) for a configuration :class:`TrainConfig` refuses.
    """
    torch.set_num_threads(1)
    col = Collector(TrainConfig.from_dict(config_dict), seed)
    gc.collect()
    gc.freeze()
    gc.set_threshold(WORKER_GC_THRESHOLD, *gc.get_threshold()[1:])
    return col


def _worker_main(conn, config_dict: dict, seed: int, parent: int) -> None:
    """A rollout worker process of :class:`WorkerPool`: collections on request, until ``("close",)``.
    Once the learner (process ``parent``) is gone (killed: it cannot close its workers), the worker
    ends by itself with exit status 1 and without a word (the learner's end is what is said), at
    its pipe's end or within a second (:func:`agents.isolated.exit_with_parent`) if it is collecting,
    and removes the weights' block the learner left (:meth:`WeightsReader.remove`)."""
    # Ctrl-C reaches the whole process group: the learner decides what it stops (train() closes the workers)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    reader = WeightsReader()
    exit_with_parent(parent, on_exit=reader.remove)
    col = worker_collector(config_dict, seed)
    try:
        while True:
            msg = conn.recv()
            if msg[0] == "close":
                break
            _, weights, pool_changes, steps, label_expert = msg
            try:
                # the learner's weights in shared memory (copied out here, before the reply) or themselves
                col.set_weights(reader.read(weights) if isinstance(weights, WeightsHandle) else weights)
                col.update_pool(pool_changes)
                reply = ("ok", col.collect(steps, label_expert))
            except Exception as err:  # report to the learner instead of dying silently
                import traceback
                reply = ("error", f"{err!r}\n{traceback.format_exc()}")
            conn.send(reply)
    except (EOFError, OSError):     # the learner's end of the pipe closed: it is gone
        reader.remove()
        raise SystemExit(1) from None
    reader.close()
    conn.close()


class WorkerLost(RuntimeError):
    """A rollout worker process ended while the learner needed it (killed from outside, out of
    memory): one line naming it, for the command to print instead of a pipe's EOFError."""


class WorkerPool:
    """Collectors in ``config.workers`` processes (``workers == 1``: this process), or, with
    ``config.ray_address``, in as many Ray actors (:class:`training.ray_workers.RayRollouts`,
    one CPU each, ``workers == 1`` too) sent the same messages, so the same seeds give the
    same batches.

    Args:
        config: the training configuration.
        seeds: one collector seed per worker.

    Raises:
        ValueError: (one line) with ``ray_address``, for Ray missing, an address it cannot
            connect to, or a cluster with fewer CPUs than workers.
    """

    def __init__(self, config: TrainConfig, seeds: list[int]):
        self.config = config
        self.local: Collector | None = None
        self.ray = None
        self.procs, self.conns = [], []
        self._pending: tuple | None = None      # the collection start() sent, until finish()
        self._unsent: int | None = None         # the worker start() could not send it to (its process ended)
        self._shared: SharedWeights | None = None      # the weights for worker processes, made with them
        if config.ray_address:
            from .ray_workers import RayRollouts
            self.ray = RayRollouts(config, seeds)
            return
        if len(seeds) == 1:
            self.local = Collector(config, seeds[0])
            return
        ctx = mp.get_context("spawn")
        # Ctrl-C is the learner's to handle, from the workers' first import; so are the stale-module warnings
        with children_ignore_sigint(), starting_workers():
            for s in seeds:
                parent, child = ctx.Pipe()
                p = ctx.Process(target=_worker_main, args=(child, config.to_dict(), s, os.getpid()), daemon=True)
                p.start()
                child.close()
                self.procs.append(p)
                self.conns.append(parent)
        self._shared = SharedWeights()          # what the worker processes read (training.shared_weights)

    def start(self, weights: dict, pool_changes: dict, num_steps: int, label_expert: bool = False) -> None:
        """Send the workers the learner's weights, the pool's changes and a collection of
        ``num_steps`` learner steps split over them, and return at once: the workers collect
        while this process goes on (with ``workers == 1`` in this process, the collection runs
        in :meth:`finish`).  The weights and changes are copied here, so an update of the
        learner's network after this call does not reach the collection.  ``label_expert``:
        see :meth:`Collector.collect`.

        Raises:
            RuntimeError: when a collection is under way (:meth:`finish` it first).
        """
        if self._pending is not None:
            raise RuntimeError("a collection is under way: finish() it before starting another")
        if self.local is not None:
            self.local.set_weights(weights)
            self.local.update_pool(pool_changes)
            self._pending = (num_steps, label_expert)
            return
        w = _to_numpy(weights)
        changes = {k: (None if v is None else _to_numpy(v)) for k, v in pool_changes.items()}
        if self.ray is not None:
            share = -(-num_steps // len(self.ray.actors))
            self._pending = (self.ray.start(w, changes, share, label_expert),)
            return
        share = -(-num_steps // len(self.conns))
        handle = self._shared.write(w)          # None: shared memory is short, the weights go by pipe
        for i, c in enumerate(self.conns):
            try:
                c.send(("collect", w if handle is None else handle, changes, share, label_expert))
            except OSError:         # the worker's process ended: said by finish(), where the run can stop
                self._unsent = i
                break
        self._pending = ()

    @property
    def busy(self) -> bool:
        """Whether a collection was started and not yet finished."""
        return self._pending is not None

    def finish(self) -> tuple[list, list, dict]:
        """Wait for the collection :meth:`start` sent and return it (with ``workers == 1``, run it
        here, with one torch thread as a worker process has, and the thread count back after).

        Returns:
            ``(batches, games, info)``: one batch per worker (see
            :meth:`Collector.collect`), the finished games, and summed counts
            with ``seconds``, the longest of the workers' own collection times
            (the time a collection takes, not counting what this process did
            after :meth:`start`).

        Raises:
            RuntimeError: when no collection is under way, or a worker failed (with its
                traceback); :class:`WorkerLost` (one line) when a worker process ended (killed
                from outside, out of memory) before it replied or when :meth:`start` sent to it;
                on Ray, :class:`training.ray_workers.RayFailure` when an actor or its node died.
        """
        if self._pending is None:
            raise RuntimeError("no collection is under way: start() one first")
        pending, self._pending = self._pending, None
        if self.local is not None:
            # one torch thread, as a worker process has: the forward passes of a few dozen rows
            # only wait for each other's threads with more (ten times slower on a busy machine)
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                batch, games, info = self.local.collect(*pending)
            finally:
                torch.set_num_threads(threads)
            return [batch], games, info
        if self.ray is not None:
            results = self.ray.finish(pending[0])
        else:
            results = []
            for i, c in enumerate(self.conns):
                try:
                    if self._unsent is not None:
                        raise EOFError
                    status, payload = c.recv()
                except (EOFError, OSError):
                    self._pending = pending         # close() then stops the other workers at once
                    lost = i if self._unsent is None else self._unsent
                    raise WorkerLost(self._lost_words(lost)) from None
                if status != "ok":
                    raise RuntimeError(f"rollout worker failed: {payload}")
                results.append(payload)
        batches, games, info = [], [], {"learner_steps": 0, "decisions": 0, "seconds": 0.0}
        for b, g, i in results:
            batches.append(b)
            games.extend(g)
            info["learner_steps"] += i["learner_steps"]
            info["decisions"] += i["decisions"]
            info["seconds"] = max(info["seconds"], i["seconds"])
        return batches, games, info

    def _lost_words(self, i: int) -> str:
        """One line saying that worker ``i``'s process ended (killed, or out of memory)."""
        p = self.procs[i]
        p.join(timeout=1)
        code = p.exitcode
        if code is None:
            how = "is still running but its pipe closed"
        elif code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:                  # a real-time or unnamed signal
                how = f"was killed by signal {-code}"
        else:
            how = f"exited with status {code}"
        return (f"rollout worker {i + 1} of {len(self.procs)} (process {p.pid}) ended during a collection: it {how} "
                f"(killed from outside, or out of memory?)")

    def collect(self, weights: dict, pool_changes: dict, num_steps: int,
                label_expert: bool = False) -> tuple[list, list, dict]:
        """:meth:`start` then :meth:`finish`: collect ``num_steps`` learner steps split over
        the workers and return them (see :meth:`finish`)."""
        self.start(weights, pool_changes, num_steps, label_expert)
        return self.finish()

    def close(self, now: bool = False) -> None:
        """Stop the worker processes: each finishes what it is doing (waited for
        up to 10 s), or, with ``now`` or while a collection :meth:`start` sent is not
        finished, is terminated at once (that collection is dropped).  Ray actors are
        killed (a collection under way with them)."""
        now = now or self._pending is not None
        self._pending = None
        if self.ray is not None:
            self.ray.close()
        for c in self.conns:
            try:
                c.send(("close",))
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            if not now:
                p.join(timeout=10)
            if p.is_alive():
                p.terminate()
                p.join(timeout=10)
        self.procs, self.conns = [], []
        if self._shared is not None:
            self._shared.close()
