"""The policy networks: a flat MLP and an entity network that scores each action from its own features.

Both are recurrent actor-critics with an auxiliary role-belief head and the
same call, ``net(obs, h0, privileged=None) -> (logits, value, belief, h)``,
so :mod:`training` and :class:`agents.policy.PolicyAgent` use either.
``model_kwargs["arch"]`` (stored in every checkpoint) says which one a
checkpoint holds: ``"flat"`` (:class:`PolicyNet`, the default of checkpoints
written before the key existed) or ``"entity"`` (:class:`EntityNet`);
:func:`build_network` makes one from those kwargs.

**Privileged critic** (``privileged_size > 0``; the oracle critic of Suphx, Li
et al. 2020, and the centralised value of MAPPO, Yu et al. 2022): the value
head also reads a vector of hidden facts (``training.rollout.privileged_features``:
every seat's true role) that only training has.  Nothing else reads it: the
policy and belief logits are functions of the observations alone, so the
actor still depends only on the seat's information set
(``tests/test_networks.py`` checks it by changing the privileged input).
Without that input (play time), ``value`` is ``None``.

**Proposal input** (``EntityNet(prior="heuristic")``, residual policy
learning: Silver et al. 2018, Johannink et al. 2019): the network also reads
the action a rule-based bot (:data:`PRIOR_BOTS`) proposes at the same
decision, computed by the caller from the same seat view
(:class:`agents.policy.PolicyAgent`, :class:`training.rollout.Collector`),
as one more feature of that action's key and a learned logit bonus.  The
network decides; the proposal is an input of the seat's own information set,
no search.  It lets training start at the bot's play and learn where to
depart from it (the lookahead teacher's deviations, PPO).

**Advantage gate** (``EntityNet(prior=..., gate=W)``, a *cost-sensitive
student* of the lookahead teacher): an MLP that predicts, for a candidate
action and the proposal it would replace, how much better the teacher's
paired rollouts score the candidate (:meth:`EntityNet.advantages`, read off
the observation by :func:`agents.candidates.advantage_inputs` in the feature
set ``gate_features``: the combat features, and optionally what each action
is and the fights against the Leader).  The policy
(:class:`agents.policy.PolicyAgent`) plays the best of the teacher's
candidates (:func:`agents.lookahead.search_candidates`) at a high-impact
decision where its predicted advantage exceeds ``gate_threshold``, and the
network's own action everywhere else; nothing is searched at play time.  It
is fitted to the teacher's scores of labelled rollouts, in training
(``TrainConfig.gate``, :mod:`training.gate`) or offline on kept rollouts
(``bench/advantage_fit.py --save``).  It reads its features itself, with
or without ``combat`` (which adds the combat features to the entity
embeddings).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from treachery_env.actions import MAX_PERMS
from treachery_env.rules import Role
from treachery_env.words import with_article

from .candidates import GATE_FEATURES, advantage_inputs
from .combat import COMBAT_FEATURES, TABLE_FEATURES, combat_features

__all__ = ["PolicyNet", "EntityNet", "SparseObs", "ObservationEmbedding", "build_network", "ARCHITECTURES",
           "masked_logits",
           "NUM_ROLES", "PRIOR_BOTS", "EntityInteraction",
           "INTERACTION_HEADS", "TABLE_PARTS", "GATE_SCALE", "gate_head", "check_gate_only"]

NUM_ROLES = 4                      # Role.LEADER, GUARDIAN, ASSASSIN, TRAITOR (values 0..3)
MASKED = -1e9                      # logit given to illegal actions
PRIOR_BOTS = ("heuristic",)
"""Bots whose proposed action an :class:`EntityNet` may read (``prior=``): rule-based, no search."""
PRIOR_BONUS_INIT = 3.0             # initial logit bonus of the proposed action (softmax odds ~20:1 per rival)
INTERACTION_HEADS = 4
"""Attention heads of an :class:`EntityInteraction` block (the entity width must be a multiple)."""
TABLE_PARTS = ("none", "players", "creatures", "walkers", "hand", "stack", "other")
"""The entity table's parts in its row order (:class:`EntityNet`; the rows ``ActionLayout``'s
actions refer to): a zero row for actions that refer to no entity, then each kind's slots."""
GATE_SCALE = 10.0
"""The advantage gate's raw output is the predicted advantage times this (the teacher's are mostly within 0.1)."""


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with illegal actions set to ``-1e9`` (:data:`MASKED`; a masked categorical).

    Args:
        logits: float tensor ``(..., A)``.
        mask: tensor ``(..., A)``, nonzero where the action is legal.

    Returns:
        float tensor ``(..., A)``; softmax gives zero probability (to float
        precision) to illegal actions.
    """
    return torch.where(mask.bool(), logits, MASKED)


def _check_sizes(**sizes: tuple[Any, int]) -> None:
    for name, (v, lo) in sizes.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            raise ValueError(f"{name} must be an int >= {lo}, got {v!r}")


class SparseObs:
    """Observation vectors held by their nonzero features (compressed rows).

    An observation (:mod:`treachery_env.observation`) has thousands of
    features of which ~1-3% are nonzero in play; a training batch keeps only
    those (``nnz``, ``cols``, ``vals``, as :func:`training.rollout` builds it),
    and the flat network reads them without ever making the dense rows
    (:class:`ObservationEmbedding`).  Rows are in order: row ``i`` has the
    ``nnz[i]`` features ``cols[o_i : o_i + nnz[i]]`` with values ``vals[...]``,
    ``o_i`` the sum of the earlier ``nnz``.

    Args:
        nnz: int64 ``(N,)``, nonzero features of each row (tensors, arrays or lists).
        cols: int64 ``(M,)``, their feature indices (``M = nnz.sum()``), each in ``[0, size)``.
        vals: float ``(M,)``, their values (any float dtype; the network casts them to its own).
        size: ``D``, the features of a dense row.
        shape: the leading shape the rows stand for (``N`` = its product); default ``(N,)``.

    Raises:
        ValueError: (one line) when the arrays are not 1-D, a count is negative,
            the lengths disagree, an index lies outside ``[0, size)``, or the
            shape does not hold ``N`` rows.
    """

    __slots__ = ("nnz", "cols", "vals", "size", "shape", "_offsets")

    def __init__(self, nnz, cols, vals, size: int, shape: tuple[int, ...] | None = None):
        nnz, cols = torch.as_tensor(nnz, dtype=torch.int64), torch.as_tensor(cols, dtype=torch.int64)
        vals = torch.as_tensor(vals)
        if not vals.is_floating_point():
            vals = vals.to(torch.float32)
        if nnz.dim() != 1 or cols.dim() != 1 or vals.dim() != 1:
            raise ValueError(f"nnz, cols and vals must be 1-D; got {nnz.dim()}-D, {cols.dim()}-D and {vals.dim()}-D")
        shape = (len(nnz),) if shape is None else tuple(shape)
        if int(np.prod(shape)) != len(nnz):
            raise ValueError(f"shape {shape} does not hold the {len(nnz)} rows given")
        if len(nnz) and int(nnz.min()) < 0:
            raise ValueError(f"a row has a negative count of nonzero features ({int(nnz.min())})")
        if len(cols) != len(vals) or len(cols) != int(nnz.sum()):
            raise ValueError(f"{len(cols)} feature indices and {len(vals)} values for {int(nnz.sum())} nonzeros")
        if len(cols) and (int(cols.min()) < 0 or int(cols.max()) >= size):
            raise ValueError(f"feature indices must lie in [0, {size}); got {int(cols.min())}..{int(cols.max())}")
        self.nnz, self.cols, self.vals, self.size, self.shape = nnz, cols, vals, int(size), shape
        self._offsets = None

    @classmethod
    def trusted(cls, nnz: torch.Tensor, cols: torch.Tensor, vals: torch.Tensor, size: int) -> "SparseObs":
        """Rows of shape ``(N,)`` from arrays their maker vouches for, without the constructor's checks
        (its four reductions over the batch cost more than a rollout step's forward pass of them
        gains): int64 ``nnz`` ``(N,)`` and ``cols`` ``(M,)`` tensors, float ``vals`` ``(M,)``, with the
        constructor's invariants (counts nonnegative summing to ``M``, indices in ``[0, size)``).
        For rows the caller made itself from the environment's encoder
        (:class:`training.rollout.Collector`); anything else goes through the constructor.
        Nothing is raised: an array that breaks an invariant gives wrong rows or an indexing error later."""
        out = cls.__new__(cls)
        out.nnz, out.cols, out.vals, out.size, out.shape = nnz, cols, vals, int(size), (len(nnz),)
        out._offsets = None
        return out

    @classmethod
    def from_dense(cls, x: np.ndarray | torch.Tensor) -> "SparseObs":
        """The nonzero features of float ``(..., D)`` rows (the leading shape and the dtype are kept)."""
        x = torch.as_tensor(x)
        if x.dim() < 1:
            raise ValueError("observations must have at least one dimension (the features)")
        flat = x.reshape(-1, x.shape[-1])
        rows, cols = flat.nonzero(as_tuple=True)
        nnz = torch.bincount(rows, minlength=flat.shape[0])
        return cls(nnz, cols, flat[rows, cols], x.shape[-1], tuple(x.shape[:-1]))

    @property
    def offsets(self) -> torch.Tensor:
        """int64 ``(N,)``: where each row's features start in ``cols``/``vals``."""
        if self._offsets is None:
            self._offsets = torch.cumsum(self.nnz, 0) - self.nnz
        return self._offsets

    def rows(self, idx: torch.Tensor) -> "SparseObs":
        """The rows ``idx`` (int64, any shape, each in ``[0, N)``), in that order, with ``idx.shape`` as shape."""
        idx = torch.as_tensor(idx)
        flat = idx.reshape(-1)
        nnz = self.nnz[flat]
        starts = self.offsets[flat]
        new_off = torch.cumsum(nnz, 0) - nnz
        pos = torch.repeat_interleave(starts - new_off, nnz) + torch.arange(int(nnz.sum()), device=nnz.device)
        return SparseObs(nnz, self.cols.index_select(0, pos), self.vals.index_select(0, pos), self.size,
                         tuple(idx.shape))               # index_select: a quarter of indexing's time here

    def dense(self) -> torch.Tensor:
        """``(*shape, D)``, of ``vals``' dtype and device."""
        out = torch.zeros(len(self.nnz), self.size, dtype=self.vals.dtype, device=self.vals.device)
        rows = torch.repeat_interleave(torch.arange(len(self.nnz), device=self.nnz.device), self.nnz).to(out.device)
        out[rows, self.cols] = self.vals
        return out.reshape(*self.shape, self.size)


class _SparseRowsTimesWeight(torch.autograd.Function):
    """``X W`` for the ``N`` rows of a :class:`SparseObs` ``X`` (``nnz``, ``cols``,
    ``offsets``, ``vals`` of ``weight``'s dtype), with a cheaper backward for ``weight``.

    Forward: ``nn.functional.embedding_bag`` (each row sums the ``weight`` rows
    of its features scaled by their values), ``(N, H)`` of ``weight``'s dtype.

    Backward: ``grad_W = X^T grad_out``, dense ``(D, H)`` (a parameter's
    gradient, as autograd and the optimisers want it), is itself an
    embedding-bag sum: row ``c`` sums ``vals * grad_out[row]`` over the nonzeros
    of feature ``c``, so it is the same vectorised kernel run over the rows of
    ``grad_out`` with the nonzeros regrouped by feature (a stable sort of
    ``cols``; a feature no row has is an empty bag, a zero row).
    ``embedding_bag``'s own backward (``_embedding_bag_dense_backward``) sums
    the same terms one ``axpy`` call per nonzero into a zero-filled ``(D, H)``,
    at about three times the cost on a PPO minibatch (~1,000 rows of ~140
    nonzeros).  Each feature's terms are summed in row order: the results are
    mostly bit-identical to it, else they differ by rounding (its sort does not
    keep ties in order).  The backward is made of differentiable ops, so it
    can be differentiated again.  ``cols`` and ``vals`` get no gradient
    (:class:`ObservationEmbedding` calls ``embedding_bag`` itself when ``vals``
    requires one).
    """

    @staticmethod
    def forward(ctx, weight: torch.Tensor, nnz: torch.Tensor, cols: torch.Tensor, offsets: torch.Tensor,
                vals: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(nnz, cols, vals)
        ctx.size = weight.shape[0]
        return nn.functional.embedding_bag(cols, weight, offsets, mode="sum", per_sample_weights=vals)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        if not ctx.needs_input_grad[0]:
            return None, None, None, None, None
        nnz, cols, vals = ctx.saved_tensors
        size = ctx.size
        # the nonzeros in feature order, stable (torch.sort takes about a third of int64's time on int16)
        key = cols.to(torch.int16 if size <= 2 ** 15 else torch.int32)
        order = torch.sort(key, stable=True)[1]
        rows = torch.repeat_interleave(torch.arange(len(nnz), device=nnz.device), nnz).index_select(0, order)
        per_feature = torch.bincount(cols, minlength=size)
        starts = torch.cumsum(per_feature, 0) - per_feature
        grad_w = nn.functional.embedding_bag(rows, grad_out.contiguous(), starts, mode="sum",
                                             per_sample_weights=vals.index_select(0, order))
        return grad_w, None, None, None, None


class ObservationEmbedding(nn.Module):
    """The first layer of the flat network, ``y = x W + b``, computed from ``x``'s nonzero features.

    ``Linear(D, H)`` in value, but each observation feature has a row of
    ``weight`` (float32 ``(D, H)``, the transpose of ``nn.Linear``'s) and ``y``
    sums the rows of the nonzero features weighted by their values
    (``EmbeddingBag``): with ~1-3% of features nonzero, forward and backward
    cost that share of the dense product.  While ``weight`` takes a gradient
    (training), :class:`_SparseRowsTimesWeight` computes it: the dense
    ``(D, H)`` ``x^T grad`` as an embedding-bag sum over the gradient's rows,
    about a third of the cost of ``embedding_bag``'s own backward, equal to it
    but for rounding.  Reads a dense float tensor
    ``(..., D)`` or a :class:`SparseObs`; returns ``(..., H)`` of the layer's
    dtype.  A dense input that requires a gradient (saliency, attribution)
    takes the dense product, so its gradient reaches every feature.  State
    dicts of the ``nn.Linear`` it replaced (``weight`` ``(H, D)``) load
    transposed.

    Raises:
        ValueError: when the input has another feature count than ``in_features``.
    """

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        lin = nn.Linear(in_features, out_features)     # its initialisation, drawing what an nn.Linear draws
        self.weight = nn.Parameter(lin.weight.detach().t().contiguous())
        self.bias = nn.Parameter(lin.bias.detach().clone())

    @torch.no_grad()
    def orthogonal_(self, gain: float) -> None:
        """Orthogonal weight (drawn as ``nn.init.orthogonal_`` draws an ``(H, D)`` one), zero bias."""
        w = torch.empty(self.out_features, self.in_features)
        nn.init.orthogonal_(w, gain)
        self.weight.copy_(w.t())
        self.bias.zero_()

    def forward(self, x: torch.Tensor | SparseObs) -> torch.Tensor:
        """``x W + b``: dense ``(..., D)`` or a :class:`SparseObs` of shape ``(...)`` in,
        ``(..., H)`` out.  Raises ValueError when ``x`` has another feature count than ``D``."""
        size = x.size if isinstance(x, SparseObs) else x.shape[-1]
        if size != self.in_features:
            raise ValueError(f"observation has {size} features; the network reads {self.in_features}")
        if not isinstance(x, SparseObs) and x.requires_grad:
            return x @ self.weight + self.bias     # dense: the gradient reaches every input feature
        sp = x if isinstance(x, SparseObs) else SparseObs.from_dense(x)
        vals = sp.vals.to(self.weight.dtype)
        if torch.is_grad_enabled() and self.weight.requires_grad and not vals.requires_grad:
            y = _SparseRowsTimesWeight.apply(self.weight, sp.nnz, sp.cols, sp.offsets, vals)
        else:                                    # no gradient, or the values' too: embedding_bag's own backward
            y = nn.functional.embedding_bag(sp.cols, self.weight, sp.offsets, mode="sum", per_sample_weights=vals)
        return (y + self.bias).reshape(*sp.shape, self.out_features)

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        w = state_dict.get(prefix + "weight")
        if w is not None and tuple(w.shape) == (self.out_features, self.in_features) != tuple(self.weight.shape):
            state_dict[prefix + "weight"] = w.t()            # an nn.Linear's (H, D) weight
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


def _mlp(i: int, h: int, o: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(i, h), nn.ReLU(), nn.Linear(h, o), nn.ReLU())


def gate_head(inputs: int, hidden: int) -> nn.Sequential:
    """The advantage gate's MLP, ``Linear(inputs, W) -> ReLU -> Linear(W, W) -> ReLU -> Linear(W, 1)``
    with ``W`` = ``hidden``; its output is an advantage times :data:`GATE_SCALE`."""
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, 1))


class _Critic(nn.Module):
    """Value head: ``Linear(2H + P, H) -> ReLU -> Linear(H, 1)`` over the actor's
    features ``z`` and (if ``P > 0``) the privileged vector."""

    def __init__(self, z_size: int, privileged_size: int, hidden: int):
        super().__init__()
        self.privileged_size = privileged_size
        self.net = nn.Sequential(nn.Linear(z_size + privileged_size, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        nn.init.orthogonal_(self.net[2].weight, 1.0)
        nn.init.zeros_(self.net[2].bias)

    def forward(self, z: torch.Tensor, privileged: torch.Tensor | None) -> torch.Tensor | None:
        if self.privileged_size:
            if privileged is None:
                return None
            if privileged.shape[-1] != self.privileged_size:
                raise ValueError(f"privileged input has {privileged.shape[-1]} features; the critic reads "
                                 f"{self.privileged_size}")
            z = torch.cat([z, privileged.to(z.dtype)], dim=-1)
        return self.net(z).squeeze(-1)


def _autocast_cpu_dtype() -> torch.dtype | None:
    """The dtype CPU autocast casts matrix products to where the caller runs, None when it is off
    (torch 2.3's ``is_autocast_cpu_enabled``, later torch's ``is_autocast_enabled("cpu")``)."""
    try:
        on, dtype = torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")
    except TypeError:                       # torch < 2.4: the CPU-only functions
        on, dtype = torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype()
    return dtype if on else None


def _run_core(core: nn.GRU, e: torch.Tensor, h0: torch.Tensor,
              starts: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The GRU over ``e`` (``(T, B, H)``): ``(concat(e, outputs) (T, B, 2H), last state (B, H))``.

    ``h0`` is the state before the first step, ``(B, H)``; or, with ``starts`` (bool
    ``(T, B)``, true at least at ``t = 0``), the state before every step, ``(T, B, H)``,
    which replaces the running state where ``starts`` is true: a row then holds several
    sequences one after another (:func:`training.ppo.pack_chunks`).  Both run the GRU
    equations of ``nn.GRU`` (gate order r, z, n in its weights)::

        r = sigmoid(gi_r + gh_r),  z = sigmoid(gi_z + gh_z),  n = tanh(gi_n + r * gh_n)
        h' = (1 - z) * n + z * h   (computed as n + z * (h - n), as torch's GRU cell does)
        gi = e_t W_ih^T + b_ih,    gh = h W_hh^T + b_hh

    the first through ``nn.GRU``, the second with the input side ``gi`` of all ``T``
    steps in one matrix product (``(T B, H) x (H, 3H)``) and only ``gh`` and the
    gates per step (:class:`_PackedGRU`, which writes out the backward).  Under CPU
    autocast (:mod:`training.precision`) the packed path's products read operands of
    autocast's dtype, as autocast's own layers do, and its state and gates stay float32.

    Raises:
        ValueError: with ``starts``, for an ``h0`` that is not ``(T, B, H)`` or ``starts``
            not true at ``t = 0``.
    """
    if starts is None:
        out, h = core(e, h0.unsqueeze(0))
        return torch.cat([e, out], dim=-1), h.squeeze(0)
    if h0.dim() != 3 or tuple(starts.shape) != tuple(h0.shape[:2]) or not bool(starts[0].all()):
        raise ValueError(f"with starts (T, B), true at t = 0, h0 must be (T, B, H): got starts "
                         f"{tuple(starts.shape)} and h0 {tuple(h0.shape)}")
    gi = torch.nn.functional.linear(e, core.weight_ih_l0, core.bias_ih_l0)       # (T, B, 3H), every step at once
    low = _autocast_cpu_dtype()
    if low is None:
        out = _PackedGRU.apply(gi, h0, starts, core.weight_hh_l0, core.bias_hh_l0, None)
    else:
        with torch.autocast("cpu", enabled=False):      # _PackedGRU casts its products' operands itself
            out = _PackedGRU.apply(gi.float(), h0, starts, core.weight_hh_l0, core.bias_hh_l0, low)
    return torch.cat([e, out], dim=-1), out[-1]


def _gate_kernels() -> Any:
    """The compiled gate kernels (``agents/_gru_gates.pyx``), or None where the torch
    operations must run: ``TREACHERY_PURE_PYTHON=1``, the extension not built (no C
    compiler at install: it is optional), or older than its ``.pyx`` (with a
    RuntimeWarning naming ``make install``)."""
    import importlib
    from pathlib import Path

    from treachery_env.compiled import PURE_PYTHON, is_stale, warn_stale
    if PURE_PYTHON:
        return None
    if is_stale(Path(__file__).with_name("_gru_gates.pyx")):
        warn_stale("agents._gru_gates: the compiled GRU gates are older than _gru_gates.pyx, so torch's "
                   "operations run; `make install` (pip install -e .) compiles them again")
        return None
    try:
        return importlib.import_module("agents._gru_gates")
    except ImportError:
        return None


_GATES = _gate_kernels()
#: Which gate arithmetic :class:`_PackedGRU` runs: "compiled" (``agents/_gru_gates.pyx``) or "torch".
GRU_GATES = "torch" if _GATES is None else "compiled"


class _PackedGRU(torch.autograd.Function):
    """The recurrent half of :func:`_run_core`'s packed path, with its backward written out.

    ``forward(gi (T, B, 3H), h0 (T, B, H), starts bool (T, B), w_hh (3H, H), b_hh (3H,), low)``
    -> the states after every step, ``(T, B, H)``, ``gi`` being the input side
    ``e W_ih^T + b_ih`` of every step; all float32.  ``low`` (a dtype such as
    ``torch.bfloat16``, or None) is the dtype the products ``h W_hh^T``, their
    backward and ``W_hh``'s gradient read their operands in, accumulating and
    returning float32 (mixed precision, :mod:`training.precision`); None: float32
    throughout.  Per step (gate order r, z, n)::

        h = where(starts[t], h0[t], h)                  (h0[0] at t = 0)
        gh = h W_hh^T + b_hh
        r = sigmoid(gi_r + gh_r),  z = sigmoid(gi_z + gh_z),  n = tanh(gi_n + r * gh_n)
        h' = (h - n) * z + n                            (= (1 - z) * n + z * h)

    The backward runs the steps in reverse with one product per step (the gradient of
    the state a step read, through ``W_hh``) and the gates' elementwise arithmetic, and
    gives ``W_hh``'s and ``b_hh``'s gradients as one product and one sum over all ``T B``
    positions at the end, where autograd through the per-step operations would also
    multiply per step for ``W_hh``'s gradient and run twice the elementwise operations.
    The gates run as the compiled kernels of ``agents/_gru_gates.pyx`` (one pass a step
    forward, two backward; :data:`GRU_GATES`) or, without them, as ~8 torch operations a
    step forward and ~14 backward (float64 too); the two agree to float32 rounding.  Gradients reach
    ``gi``, ``h0`` (where a step read it), ``w_hh`` and ``b_hh``; it is differentiable
    once (no double backward)."""

    @staticmethod
    def forward(ctx, gi, h0, starts, w_hh, b_hh, low):
        steps, batch, hidden = h0.shape
        kernels = _GATES if gi.dtype == h0.dtype == torch.float32 else None      # float32 kernels
        ctx.low, ctx.kernels = low, kernels
        w_t = w_hh.t() if low is None else w_hh.t().to(low)
        gi, h0, starts = gi.contiguous(), h0.contiguous(), starts.contiguous()
        restart = starts.unsqueeze(-1)
        prev = torch.empty_like(h0)                    # the state each step reads
        out = torch.empty_like(h0)                     # the state after each step
        gh = gi.new_empty(gi.shape)                    # h W_hh^T + b_hh per step
        rz = gi.new_empty(gi.shape[:-1] + (2 * hidden,))
        n = torch.empty_like(h0)
        prev[0] = h0[0]
        for t in range(steps):
            if low is None:
                torch.addmm(b_hh, prev[t], w_t, out=gh[t])
            else:
                torch.add(torch.mm(prev[t].to(low), w_t), b_hh, out=gh[t])
            last = t + 1 == steps
            if kernels is not None:
                kernels.forward(gi[t].data_ptr(), gh[t].data_ptr(), prev[t].data_ptr(), rz[t].data_ptr(),
                                n[t].data_ptr(), out[t].data_ptr(), 0 if last else starts[t + 1].data_ptr(),
                                0 if last else h0[t + 1].data_ptr(), 0 if last else prev[t + 1].data_ptr(),
                                batch, hidden)
                continue
            torch.add(gi[t, :, :2 * hidden], gh[t, :, :2 * hidden], out=rz[t]).sigmoid_()
            torch.addcmul(gi[t, :, 2 * hidden:], gh[t, :, 2 * hidden:], rz[t, :, :hidden], out=n[t]).tanh_()
            torch.sub(prev[t], n[t], out=out[t]).mul_(rz[t, :, hidden:]).add_(n[t])
            if not last:
                torch.where(restart[t + 1], h0[t + 1], out[t], out=prev[t + 1])
        ctx.save_for_backward(prev, rz, n, gh, starts, w_hh)
        return out

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, d_out):
        prev, rz, n, gh, starts, w_hh = ctx.saved_tensors
        steps, batch, hidden = prev.shape
        restart = starts.unsqueeze(-1)
        low, kernels = ctx.low, ctx.kernels
        w = w_hh if low is None else w_hh.to(low)
        d_gi = torch.empty_like(gh)
        d_gh = torch.empty_like(gh)
        d_h0 = torch.zeros_like(prev) if ctx.needs_input_grad[1] else None
        if kernels is not None:
            d_out = d_out.contiguous()
            dh = d_out[-1].clone()                     # the gradient of the step's output h', in place
            dh_z, d_prev = torch.empty_like(dh), torch.empty_like(dh)
            for t in reversed(range(steps)):
                kernels.backward_gates(dh.data_ptr(), rz[t].data_ptr(), n[t].data_ptr(), gh[t].data_ptr(),
                                       prev[t].data_ptr(), d_gi[t].data_ptr(), d_gh[t].data_ptr(), dh_z.data_ptr(),
                                       batch, hidden)
                if low is None:                        # d(the state the step read), but for dh z
                    torch.mm(d_gh[t], w, out=d_prev)
                else:
                    d_prev.copy_(torch.mm(d_gh[t].to(low), w))
                kernels.backward_state(d_prev.data_ptr(), dh_z.data_ptr(), starts[t].data_ptr(),
                                       0 if t == 0 else d_out[t - 1].data_ptr(),
                                       0 if d_h0 is None else d_h0[t].data_ptr(), dh.data_ptr(), batch, hidden,
                                       t == 0)
        else:
            dh = d_out[-1]                             # the gradient of the step's output h'
            for t in reversed(range(steps)):           # per step, on tensors of (B, 3H) that stay in cache
                r, z = rz[t, :, :hidden], rz[t, :, hidden:]
                dh_z = dh * z
                d_n = d_gi[t, :, 2 * hidden:]          # d(gi_n) = dh (1 - z) (1 - n^2)
                torch.mul(dh - dh_z, torch.addcmul(torch.ones_like(dh), n[t], n[t], value=-1), out=d_n)
                torch.mul(d_n, r, out=d_gh[t, :, 2 * hidden:])
                d_rz = d_gh[t, :, :2 * hidden]         # [d_n gh_n, dh (prev - n)] * sigmoid'
                torch.mul(d_n, gh[t, :, 2 * hidden:], out=d_rz[:, :hidden])
                torch.mul(dh, prev[t] - n[t], out=d_rz[:, hidden:])
                d_rz.mul_(torch.addcmul(rz[t], rz[t], rz[t], value=-1))
                d_gi[t, :, :2 * hidden] = d_rz
                if low is None:                        # d(the state the step read)
                    d_prev = torch.addmm(dh_z, d_gh[t], w)
                else:
                    d_prev = torch.mm(d_gh[t].to(low), w).float().add_(dh_z)
                if t:
                    if d_h0 is not None:
                        d_h0[t] = d_prev.masked_fill(~restart[t], 0)
                    dh = d_prev.masked_fill_(restart[t], 0).add_(d_out[t - 1])
                elif d_h0 is not None:
                    d_h0[0] = d_prev
        flat = d_gh.flatten(0, 1)
        d_w_hh = None
        if ctx.needs_input_grad[3]:
            d_w_hh = flat.t() @ prev.flatten(0, 1) if low is None else \
                torch.mm(flat.t().to(low), prev.flatten(0, 1).to(low)).float()
        d_b_hh = flat.sum(0) if ctx.needs_input_grad[4] else None
        return d_gi, d_h0, None, d_w_hh, d_b_hh, None


class PolicyNet(nn.Module):
    """The flat recurrent actor-critic (``arch="flat"``): a fixed logit per action index.

    Per decision of one seat (``D`` = observation size, ``A`` = action count,
    ``n`` = players, ``H`` = ``hidden``)::

        obs (D,) -> Linear(D,H) -> ReLU -> Linear(H,H) -> ReLU = e   (the first from the nonzero
                                                       features: ObservationEmbedding)
        e, h_prev -> GRU cell -> h                    (the seat's memory of the game)
        z = concat(e, h) (2H,)
        policy logits  Linear(2H, A)   masked by the action mask
        value          Linear(2H, 1)   (or the privileged critic, see the module docstring)
        belief logits  Linear(2H, 4(n-1))  role of each other seat, relative order

    Args:
        obs_size: observation vector length ``D`` (``obs_layout(n).size``).
        num_actions: action count ``A`` (``ActionLayout(n).size``).
        num_players: seats ``n`` (the belief head has ``4 (n-1)`` outputs).
        hidden: width ``H`` of the encoder and of the GRU state.
        privileged_size: features of the privileged critic's extra input (0 = none).

    Raises:
        ValueError: for non-positive sizes or fewer than 2 players.
    """

    arch = "flat"
    prior = None          # reads no proposal (see EntityNet)
    reads_sparse = True   # a SparseObs input costs it least (ObservationEmbedding)

    def __init__(self, obs_size: int, num_actions: int, num_players: int, hidden: int = 256,
                 privileged_size: int = 0):
        super().__init__()
        _check_sizes(obs_size=(obs_size, 1), num_actions=(num_actions, 1), num_players=(num_players, 2),
                     hidden=(hidden, 1), privileged_size=(privileged_size, 0))
        self.kwargs = {"obs_size": obs_size, "num_actions": num_actions, "num_players": num_players,
                       "hidden": hidden}
        if privileged_size:
            self.kwargs["privileged_size"] = privileged_size
        self.hidden = hidden
        self.num_players = num_players
        self.encoder = nn.Sequential(ObservationEmbedding(obs_size, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                     nn.ReLU())
        self.core = nn.GRU(hidden, hidden)
        self.policy_head = nn.Linear(2 * hidden, num_actions)
        self.belief_head = nn.Linear(2 * hidden, NUM_ROLES * (num_players - 1))
        if privileged_size:
            self.critic = _Critic(2 * hidden, privileged_size, hidden)
        else:
            self.value_head = nn.Linear(2 * hidden, 1)   # the layout of checkpoints written before the critic existed
            nn.init.orthogonal_(self.value_head.weight, 1.0)
            nn.init.zeros_(self.value_head.bias)
        self.encoder[0].orthogonal_(np.sqrt(2))
        nn.init.orthogonal_(self.encoder[2].weight, np.sqrt(2))
        nn.init.zeros_(self.encoder[2].bias)
        nn.init.orthogonal_(self.policy_head.weight, 0.01)
        nn.init.zeros_(self.policy_head.bias)

    def initial_state(self, batch: int) -> torch.Tensor:
        """Zero recurrent state, float32 ``(batch, H)``."""
        return torch.zeros(batch, self.hidden)

    def forward(self, obs: torch.Tensor, h0: torch.Tensor, privileged: torch.Tensor | None = None,
                mask: torch.Tensor | None = None, prior: torch.Tensor | None = None,
                starts: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor, torch.Tensor]:
        """Run ``T`` consecutive decisions of ``B`` seats.

        Args:
            obs: float32 ``(T, B, D)`` (or ``(B, D)`` for one step), or a
                :class:`SparseObs` of shape ``(T, B)`` (or ``(B,)``).
            h0: float32 ``(B, H)``, the state before the first step; with
                ``starts``, ``(T, B, H)``: the state before each step.
            starts: bool ``(T, B)`` (true at ``t = 0``): where a row's next
                sequence begins, from its state in ``h0`` (several sequences to a
                row, :func:`training.ppo.pack_chunks`); None: one sequence a row.
            privileged: float32 ``(T, B, P)`` (or ``(B, P)``) for a privileged critic, else ignored.
            mask, prior: accepted for the same call as :class:`EntityNet` and
                ignored: these logits are never masked and read no proposal.

        Returns:
            ``(logits (T, B, A), value (T, B) or None, belief_logits (T, B, n-1, 4), h (B, H))``
            (without the ``T`` axis for a ``(B, D)`` input); logits are not
            masked (see :func:`masked_logits`); ``value`` is None for a
            privileged critic given no privileged input.
        """
        single = len(obs.shape) == 1 if isinstance(obs, SparseObs) else obs.dim() == 2
        if single:
            obs = SparseObs(obs.nnz, obs.cols, obs.vals, obs.size, (1, *obs.shape)) if isinstance(obs, SparseObs) \
                else obs.unsqueeze(0)
            if privileged is not None:
                privileged = privileged.unsqueeze(0)
        z, h = _run_core(self.core, self.encoder(obs), h0, starts)
        logits = self.policy_head(z)
        value = self.critic(z, privileged) if hasattr(self, "critic") else self.value_head(z).squeeze(-1)
        belief = self.belief_head(z).unflatten(-1, (self.num_players - 1, NUM_ROLES))
        if single:
            return logits[0], None if value is None else value[0], belief[0], h
        return logits, value, belief, h

    @torch.no_grad()
    def step(self, obs: torch.Tensor | SparseObs, h0: torch.Tensor, mask: torch.Tensor | None = None,
             privileged: torch.Tensor | None = None, prior: torch.Tensor | None = None
             ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
        """One decision of ``B`` seats for rollouts, without autograd: the masked logits, value and
        new state that :meth:`forward` and :func:`masked_logits` give, bit for bit, at about
        three quarters of their cost (the layers' weights read directly: one embedding-bag sum,
        matrix products, one GRU cell; no belief head, no module calls, so no forward hooks
        fire; nothing is cached from the weights, so a step after ``load_state_dict`` reads the
        new ones).  :class:`EntityNet` has the same call.

        Args:
            obs: float32 ``(B, D)`` or a :class:`SparseObs` of shape ``(B,)``.
            h0: float32 ``(B, H)``, the state before the decision.
            mask: ``(B, A)``, nonzero = legal; None: the logits are not masked.
            privileged: float32 ``(B, P)`` for a privileged critic, else ignored.
            prior: accepted for :class:`EntityNet`'s call and ignored.

        Returns:
            ``(logits (B, A), value (B,) or None, h (B, H))``, float32; illegal actions'
            logits are :data:`MASKED`; ``value`` is None for a privileged critic given no
            privileged input.

        Raises:
            ValueError: when ``obs`` has another feature count than ``D``, or the privileged
                input another than the critic's.
        """
        lin, core = self.encoder[2], self.core
        e = self.encoder[0].forward(obs)       # ObservationEmbedding's own path, without the module call
        e = torch.relu_(torch.addmm(lin.bias, torch.relu_(e), lin.weight.t()))
        h = torch.gru_cell(e, h0, core.weight_ih_l0, core.weight_hh_l0, core.bias_ih_l0, core.bias_hh_l0)
        z = torch.cat([e, h], dim=1)
        logits = torch.addmm(self.policy_head.bias, z, self.policy_head.weight.t())
        if hasattr(self, "critic"):
            value = self.critic(z, privileged)
        else:
            value = torch.addmm(self.value_head.bias, z, self.value_head.weight.t()).squeeze(1)
        return (logits if mask is None else masked_logits(logits, mask)), value, h


class EntityInteraction(nn.Module):
    """Entities that see each other: a pre-norm transformer block (Vaswani et al. 2017) over the
    occupied rows of :class:`EntityNet`'s entity table and one context token.

    An action key is made from one entity's own features; whether an attacker
    survives the blocks, or which target a spell wants, depends on the *other*
    entities.  This block lets every occupied row (players, creatures,
    permanents, hand cards, stack objects, other-zone cards) attend to all the
    others and to the decision context (a projection of ``z``), and adds what
    it reads to the row (a residual).  Only occupied rows take part (packed to
    the most any row of the batch has), so the cost follows the board, not the
    163 slots.  Both residual branches end in zero-initialised projections: a
    new block leaves the network's outputs exactly unchanged, so it can be
    added to trained weights (``TrainConfig.init``) and learnt from there.

    Args:
        entity: entity width ``E`` (divisible by ``heads``).
        context: width of the context vector ``z``.
        heads: attention heads.
    """

    def __init__(self, entity: int, context: int, heads: int = INTERACTION_HEADS):
        super().__init__()
        if entity % heads:
            raise ValueError(f"entity width {entity} is not divisible by {heads} attention heads")
        self.context = nn.Linear(context, entity)
        self.norm_attn = nn.LayerNorm(entity)
        self.attn = nn.MultiheadAttention(entity, heads, batch_first=True)
        self.norm_ff = nn.LayerNorm(entity)
        self.ff = nn.Sequential(nn.Linear(entity, 2 * entity), nn.ReLU(), nn.Linear(2 * entity, entity))
        for layer in (self.attn.out_proj, self.ff[-1]):
            nn.init.zeros_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, table: torch.Tensor, present: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        """``table`` float ``(..., R, E)``, ``present`` ``(..., R)`` (nonzero = occupied; at least one
        per row), ``z`` float ``(..., C)`` -> the table with every occupied row updated, ``(..., R, E)``
        (unoccupied rows unchanged)."""
        lead, (R, E) = table.shape[:-2], table.shape[-2:]
        x = table.reshape(-1, R, E)
        occupied = present.reshape(-1, R) != 0
        count = occupied.sum(1)
        width = int(count.max())
        # occupied rows first, in table order (a stable sort), then packed to the widest row
        order = torch.argsort((~occupied).to(torch.int8), dim=1, stable=True)[:, :width]
        valid = torch.arange(width, device=x.device) < count.unsqueeze(1)               # (N, P)
        idx = order.unsqueeze(-1).expand(-1, -1, E)
        rows = x.gather(1, idx)                                                         # (N, P, E)
        tokens = torch.cat([self.context(z.reshape(-1, z.shape[-1])).unsqueeze(1), rows], dim=1)
        pad = torch.cat([valid.new_zeros(valid.shape[0], 1), ~valid], dim=1)           # True = ignored
        t = self.norm_attn(tokens)
        tokens = tokens + self.attn(t, t, t, key_padding_mask=pad, need_weights=False)[0]
        tokens = tokens + self.ff(self.norm_ff(tokens))
        delta = (tokens[:, 1:] - rows) * valid.unsqueeze(-1).to(rows.dtype)
        return x.scatter_add(1, idx, delta).reshape(*lead, R, E)


class EntityNet(nn.Module):
    """The entity actor-critic (``arch="entity"``): every legal action is scored from its own features.

    The observation vector (:mod:`treachery_env.observation`) is read as sets
    of entities at the offsets of its :class:`~treachery_env.observation.ObsLayout`:
    players (``n`` rows: the player block, its rows and columns of the public
    harm and attack history, its talk block), creatures (``20 n`` slots),
    attackable permanents (``4 (n + 1)``), own hand cards (15), stack objects
    (10) and cards usable from other zones (8); every other feature (step,
    decision kind, decision context, face-down exile, talk pairs and the last
    message) is one *global* vector.  With ``E`` = ``entity`` and ``H`` = ``hidden``:

    * each occupied creature, permanent, card and stack slot goes through its
      kind's two-layer MLP to ``E`` (stack slots plus a learned embedding of
      their depth); empty slots are zeros and left out of every mean;
    * each player's features and the masked mean of its creatures go through
      the player MLP to ``E`` (plus its relative-seat embedding);
    * the torso ``Linear(H + n E + 4 E, H) -> ReLU`` reads the encoded global
      vector, every player (in relative order) and the masked means of hand,
      stack, other-zone cards and permanents; a GRU carries its output across
      the seat's decisions; ``z = concat(e, h)`` (``2H``);
    * **action scoring** (the state-action scoring of DouZero, Zha et al.
      2021; attention-like pointer logits, Vinyals et al. 2015): action ``a``
      has a key ``k_a = entity[ref(a)] + emb[a]``, where ``ref(a)`` is the
      entity the action refers to (the creature of a PERM action, the player
      of a PLAYER or a talk action about a seat, the card of a HAND action...,
      none for PASS, UNVEIL X, CHOICE i...) and ``emb`` a learned per-index
      embedding; its logit is ``w . relu(Q z + k_a) + (W z + b)_a``: the
      pointer score plus a per-index logit like the flat network's (only the
      legal actions are scored when the mask is given).  Measured by offline
      behaviour cloning of the heuristic bot (``bench/imitation_agreement.py``:
      165k decisions of 100 games, 6 epochs, held-out agreement on 30 other
      games): flat 0.882, the pointer score alone (commit 58cc884) 0.875,
      both 0.899 (blocked 0.40 / 0.65 / 0.57, discard 0.28 / 0.51 / 0.62,
      priority 0.94 / 0.94 / 0.96);
    * with ``prior`` (a bot of :data:`PRIOR_BOTS`, see the module docstring),
      the proposed action ``p`` also gets ``k_p += u`` (a learned ``E``
      vector) and ``beta`` (a learned scalar, initially
      :data:`PRIOR_BONUS_INIT`) added to its logit;
    * with ``interaction`` > 0, that many :class:`EntityInteraction` blocks
      update the entity table before the keys are made (entities that see
      each other and the decision context);
    * with ``combat``, the combat features of each of the observer's creatures
      (:func:`agents.combat.combat_features`: which fights it wins, whether
      a counter-attack could be lethal, ...), with the table's beside them, go through a two-layer MLP whose
      output is added to that creature's embedding, so they reach the
      player entities and the keys of its actions (attack with it, block
      with it, target it); the MLP's last layer starts at zero, so adding it
      to trained weights starts from the same policy;
    * with ``gate`` > 0 (and ``prior``), the advantage gate (module
      docstring; :meth:`advantages`), which the forward pass does not run;
    * belief logits for relative seat ``i``: ``MLP(concat(z, player_i)) -> 4``;
    * value: the critic over ``z`` (privileged or not, see the module docstring).

    Args:
        obs_size: observation length ``D``; must be ``obs_layout(num_players).size``.
        num_actions: action count ``A``; must be ``ActionLayout(num_players).size``.
        num_players: seats ``n``.
        hidden: width ``H`` of the torso and the GRU state.
        entity: width ``E`` of each entity embedding.
        privileged_size: features of the privileged critic's extra input (0 = none).
        prior: name of the bot (:data:`PRIOR_BOTS`) whose proposed action the
            network reads (``forward(..., prior=)``), or None.
        interaction: :class:`EntityInteraction` blocks over the entity table (0 = none).
        combat: add the combat features of the observer's creatures to their embeddings.
        gate: width of the advantage gate's hidden layers (0 = no gate).
        gate_threshold: the predicted advantage over the ``prior`` bot's proposal (in the teacher's
            score units, scores in [-1, 1]) a candidate must exceed to be played (instead of the
            network's own choice, which is usually that proposal).
        gate_features: what the gate reads, a key of :data:`agents.candidates.GATE_FEATURES`
            (``"combat"``: the combat features; ``"action"``: those and what each action is;
            ``"leader"``: those and the fights against the Leader; ``"all"``: every block).
        role_gates: gates of their own for seats dealt some roles, ``{role name: {"gate": width,
            "gate_features": ..., "gate_threshold": ...}}`` (role names lower case): a seat of
            that role is gated by its role's gate (:meth:`gate_for`), every other seat by
            ``gate`` (if any); their weights come from gates fitted to that role alone
            (:func:`training.gate.graft_role_gate`).
        gate_only: role names (any case; stored lower case, in Role order) whose seats leave
            the proposal only where their gate departs (:class:`agents.policy.PolicyAgent`
            plays the proposal there wherever the gate keeps it, not the network's own
            choice); each must have a gate (its own or the main one).  Stored in ``kwargs``
            when not empty.

    Raises:
        ValueError: for non-positive sizes, sizes that are not this
            ``treachery_env``'s layouts for ``num_players``, an unknown ``prior``,
            an ``entity`` width not a multiple of :data:`INTERACTION_HEADS` with ``interaction``,
            a gate without ``prior``, a threshold outside [0, 2), unknown
            ``gate_features``, or a ``gate_only`` role that is unknown, repeated or has no gate.
    """

    arch = "entity"
    reads_sparse = False  # reads the entity sets at fixed offsets of dense rows

    def __init__(self, obs_size: int, num_actions: int, num_players: int, hidden: int = 256, entity: int = 64,
                 privileged_size: int = 0, prior: str | None = None, interaction: int = 0, combat: bool = False,
                 gate: int = 0, gate_threshold: float = 0.01, gate_features: str = "combat",
                 role_gates: dict | None = None, gate_only: Sequence[str] | None = None):
        super().__init__()
        _check_sizes(obs_size=(obs_size, 1), num_actions=(num_actions, 1), num_players=(num_players, 2),
                     hidden=(hidden, 1), entity=(entity, 1), privileged_size=(privileged_size, 0),
                     interaction=(interaction, 0), gate=(gate, 0))
        if prior is not None and prior not in PRIOR_BOTS:
            raise ValueError(f"prior must be one of {list(PRIOR_BOTS)} or None, got {prior!r}")
        if gate and prior is None:
            raise ValueError("an advantage gate (gate > 0) chooses between a bot's proposal and other actions: "
                             "it needs prior")
        if not isinstance(gate_threshold, (int, float)) or isinstance(gate_threshold, bool) \
                or not 0 <= gate_threshold < 2:
            raise ValueError(f"gate_threshold must be a number in [0, 2) (an advantage over the proposal in score "
                             f"units; scores lie in [-1, 1]), got {gate_threshold!r}")
        if gate_features not in GATE_FEATURES:
            raise ValueError(f"gate_features must be one of {sorted(GATE_FEATURES)}, got {gate_features!r}")
        role_gates = _check_role_gates(role_gates or {}, prior)
        gate_only = check_gate_only(gate_only or [], bool(gate), role_gates)
        from treachery_env.actions import ActionLayout
        from treachery_env.observation import obs_layout
        n = num_players
        L, AL = obs_layout(n), ActionLayout(n)
        if (obs_size, num_actions) != (L.size, AL.size):
            raise ValueError(f"the entity network reads this treachery_env's layouts for {n} players: observation "
                             f"size {L.size} and {AL.size} actions, got {obs_size} and {num_actions}")
        self.kwargs = {"arch": "entity", "obs_size": obs_size, "num_actions": num_actions, "num_players": n,
                       "hidden": hidden, "entity": entity}
        if privileged_size:
            self.kwargs["privileged_size"] = privileged_size
        if prior is not None:
            self.kwargs["prior"] = prior
        if interaction:
            self.kwargs["interaction"] = interaction
        if combat:
            self.kwargs["combat"] = True
        if gate:
            self.kwargs["gate"] = gate
            self.kwargs["gate_threshold"] = float(gate_threshold)
            if gate_features != "combat":           # absent: "combat" (checkpoints from before the choice)
                self.kwargs["gate_features"] = gate_features
        if role_gates:
            self.kwargs["role_gates"] = role_gates
        if gate_only:
            self.kwargs["gate_only"] = gate_only
        self.prior = prior
        self.hidden, self.num_players, E = hidden, n, entity
        idx = _EntityIndex(L, AL)
        self.register_buffer("global_idx", idx.global_idx, persistent=False)
        self.register_buffer("player_idx", idx.player_idx, persistent=False)
        self.register_buffer("action_ref", idx.action_ref, persistent=False)
        self.register_buffer("action_part", idx.action_part, persistent=False)
        self.register_buffer("action_slot", idx.action_slot, persistent=False)
        self.blocks = idx.blocks                     # name -> (start, slots, features), contiguous blocks
        pf = idx.player_idx.shape[1]
        self.enc = nn.ModuleDict({name: _mlp(f, E, E) for name, (_, _, f) in self.blocks.items()})
        self.player_enc = _mlp(pf + E, E, E)
        self.global_enc = nn.Sequential(nn.Linear(idx.global_idx.numel(), hidden), nn.ReLU())
        self.seat_emb = nn.Parameter(torch.zeros(n, E))            # relative seat of a player
        self.depth_emb = nn.Parameter(torch.zeros(self.blocks["stack"][1], E))
        self.torso = nn.Sequential(nn.Linear(hidden + n * E + 4 * E, hidden), nn.ReLU())
        self.core = nn.GRU(hidden, hidden)
        self.query = nn.Linear(2 * hidden, E)
        self.action_emb = nn.Parameter(torch.randn(num_actions, E) * 0.1)
        self.index_head = nn.Linear(2 * hidden, num_actions)       # a logit per action index, as the flat net's
        nn.init.orthogonal_(self.index_head.weight, 0.01)
        nn.init.zeros_(self.index_head.bias)
        self.score = nn.Linear(E, 1)
        nn.init.zeros_(self.score.bias)
        self.belief_head = nn.Sequential(nn.Linear(2 * hidden + E, E), nn.ReLU(), nn.Linear(E, NUM_ROLES))
        self.critic = _Critic(2 * hidden, privileged_size, hidden)
        self.interaction = nn.ModuleList(EntityInteraction(E, 2 * hidden) for _ in range(interaction))
        self.combat_enc = None
        if combat:
            self.combat_enc = nn.Sequential(nn.Linear(len(COMBAT_FEATURES) + len(TABLE_FEATURES), E), nn.ReLU(),
                                            nn.Linear(E, E))
            nn.init.zeros_(self.combat_enc[-1].weight)
            nn.init.zeros_(self.combat_enc[-1].bias)
        if prior is not None:
            self.prior_key = nn.Parameter(torch.zeros(E))
            self.prior_bonus = nn.Parameter(torch.tensor(PRIOR_BONUS_INIT))
        self.gate = gate_head(GATE_FEATURES[gate_features], gate) if gate else None
        self.gate_threshold = float(gate_threshold)
        self.gate_features = gate_features
        self.role_gate_settings = role_gates
        if role_gates:          # absent otherwise: the state dicts of checkpoints without role gates are unchanged
            self.role_gates = nn.ModuleDict({r: gate_head(GATE_FEATURES[g["gate_features"]], g["gate"])
                                             for r, g in role_gates.items()})

    def initial_state(self, batch: int) -> torch.Tensor:
        """Zero recurrent state, float32 ``(batch, H)``."""
        return torch.zeros(batch, self.hidden)

    def _slots(self, obs: torch.Tensor, name: str) -> tuple[torch.Tensor, torch.Tensor]:
        """The encoded slots ``(..., S, E)`` of a block (zeros for empty slots) and their
        presence ``(..., S)`` (float).  Only occupied slots go through the MLP: most
        of the 100 creature slots and 15 hand slots are empty in most states."""
        start, slots, f = self.blocks[name]
        x = obs[..., start:start + slots * f].unflatten(-1, (slots, f))
        present = (x[..., 0] > 0) if name in _FLAG_FIRST else (x.abs().sum(-1) > 0)
        flat = x.reshape(-1, f)
        rows = present.reshape(-1).nonzero(as_tuple=True)[0]
        enc = self.enc[name]
        out = flat.new_zeros(flat.shape[0], enc[-2].out_features).index_copy(0, rows, enc(flat[rows]))
        return out.reshape(*x.shape[:-1], -1), present.to(obs.dtype)

    @staticmethod
    def _mean(x: torch.Tensor, present: torch.Tensor) -> torch.Tensor:
        """Masked mean over the slot axis: ``(..., S, E), (..., S) -> (..., E)``."""
        return (x * present.unsqueeze(-1)).sum(-2) / present.sum(-1, keepdim=True).clamp(min=1.0)

    def _score(self, parts: list[torch.Tensor], z: torch.Tensor, mask: torch.Tensor | None,
               prior: torch.Tensor | None) -> torch.Tensor:
        """Action logits ``(..., A)`` from the entity table and ``z``.  The table
        ``(..., R, E)`` comes in ``parts`` along its row axis: either whole (one
        tensor) or as :data:`TABLE_PARTS`' blocks without the "none" row, which is
        zeros (the players, creatures, ... of :meth:`forward`); with a mask only
        the rows that legal actions refer to are read from them, so the table
        (~150 rows of ``E`` a decision) is never concatenated.  With a mask, only the legal actions
        are scored (the others get :data:`MASKED`), which is what makes training
        affordable: a few legal actions of ``A``.  ``prior`` (int64 ``(...)``, -1 =
        none) is the proposed action of each row, read only by a network made with
        ``prior``."""
        ke = self.action_emb                                                     # (A, E)
        q = self.query(z)                                                        # (..., E)
        base = self.index_head(z)                                                # (..., A)
        use_prior = self.prior is not None and prior is not None
        if mask is None:
            kt = parts[0] if len(parts) == 1 else torch.cat([torch.zeros_like(parts[0][..., :1, :]), *parts], dim=-2)
            keys = kt[..., self.action_ref, :] + ke                              # (..., A, E)
            if use_prior:
                hit = (torch.arange(ke.shape[0], device=z.device) == prior.unsqueeze(-1)).to(z.dtype)
                keys = keys + hit.unsqueeze(-1) * self.prior_key
                base = base + hit * self.prior_bonus
            return self.score(torch.relu(keys + q.unsqueeze(-2))).squeeze(-1) + base
        lead = z.shape[:-1]
        m = mask.reshape(-1, mask.shape[-1]).bool()
        row, act = m.nonzero(as_tuple=True)
        pre = self._referred(parts, row, act) + ke[act] + q.reshape(-1, q.shape[-1])[row]
        if use_prior:
            hit = (prior.reshape(-1)[row] == act).to(z.dtype)                    # (legal,)
            pre = pre + hit.unsqueeze(-1) * self.prior_key
        vals = self.score(torch.relu(pre)).squeeze(-1) + base.reshape(-1, base.shape[-1])[row, act]
        if use_prior:
            vals = vals + hit * self.prior_bonus
        out = torch.full(m.shape, MASKED, dtype=vals.dtype, device=vals.device)
        out = out.index_put((row, act), vals)
        return out.reshape(*lead, mask.shape[-1])

    def _referred(self, parts: list[torch.Tensor], row: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        """``table[row_i, action_ref[act_i]]`` for the ``P`` pairs ``(row, act)`` (int64 ``(P,)``;
        ``row`` indexes the table's leading axes flattened): float ``(P, E)``, read from the
        table's ``parts`` (see :meth:`_score`) without concatenating them."""
        ref = self.action_ref[act]
        if len(parts) == 1:
            kt = parts[0]
            return kt.reshape(-1, *kt.shape[-2:])[row, ref]
        part, slot = self.action_part[act], self.action_slot[act]
        out = parts[0].new_zeros(len(act), parts[0].shape[-1])                   # the "none" row: zeros
        for k, x in enumerate(parts, start=1):
            sel = (part == k).nonzero(as_tuple=True)[0]
            if len(sel):
                out = out.index_put((sel,), x.reshape(-1, *x.shape[-2:])[row[sel], slot[sel]])
        return out

    def forward(self, obs: torch.Tensor, h0: torch.Tensor, privileged: torch.Tensor | None = None,
                mask: torch.Tensor | None = None, prior: torch.Tensor | None = None,
                starts: torch.Tensor | None = None
                ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor, torch.Tensor]:
        """Run ``T`` consecutive decisions of ``B`` seats (same contract as :meth:`PolicyNet.forward`,
        ``starts`` too).

        ``mask`` (``(T, B, A)`` or ``(B, A)``, nonzero = legal), when given, limits
        the scoring to legal actions: the returned logits are then already
        masked (illegal ones are :data:`MASKED`), and equal to the unmasked
        logits at the legal actions.  ``prior`` (int64 ``(T, B)`` or ``(B,)``: the
        action the ``prior`` bot proposes, -1 = none) is read by a network made
        with ``prior`` (and ignored otherwise); None means no proposal anywhere.
        It changes only the policy logits, never the value or the beliefs.

        Returns:
            ``(logits (T, B, A), value (T, B) or None, belief_logits (T, B, n-1, 4), h (B, H))``
            (without the ``T`` axis for a ``(B, D)`` input).
        """
        if isinstance(obs, SparseObs):
            obs = obs.dense()                  # the entity sets are read at fixed offsets of the dense rows
        single = obs.dim() == 2
        if single:
            obs = obs.unsqueeze(0)
            if privileged is not None:
                privileged = privileged.unsqueeze(0)
            if mask is not None:
                mask = mask.unsqueeze(0)
            if prior is not None:
                prior = prior.unsqueeze(0)
        n = self.num_players
        cre, cre_p = self._slots(obs, "creatures")                     # (T, B, 20n, E)
        if self.combat_enc is not None:                                  # the observer's slots come first
            slots, table = combat_features(obs, n)                     # the table's features beside each slot's
            x = torch.cat([slots, table.unsqueeze(-2).expand(*slots.shape[:-1], table.shape[-1])], dim=-1)
            own = self.combat_enc(x) * cre_p[..., :MAX_PERMS, None]
            cre = torch.cat([cre[..., :MAX_PERMS, :] + own, cre[..., MAX_PERMS:, :]], dim=-2)
        walk, walk_p = self._slots(obs, "walkers")
        hand, hand_p = self._slots(obs, "hand")
        stack, stack_p = self._slots(obs, "stack")
        stack = stack + self.depth_emb
        other, other_p = self._slots(obs, "other")
        per_owner = self._mean(cre.unflatten(-2, (n, -1)), cre_p.unflatten(-1, (n, -1)))   # (T, B, n, E)
        players = self.player_enc(torch.cat([obs[..., self.player_idx], per_owner], dim=-1)) + self.seat_emb[:n]
        g = self.global_enc(obs[..., self.global_idx])
        pooled = [self._mean(hand, hand_p), self._mean(stack, stack_p), self._mean(other, other_p),
                  self._mean(walk, walk_p)]
        e = self.torso(torch.cat([g, players.flatten(-2), *pooled], dim=-1))
        z, h = _run_core(self.core, e, h0, starts)
        # the entity table in ActionLayout reference order (TABLE_PARTS): none, players, creatures, walkers,
        # hand, stack, other
        parts = [players, cre, walk, hand, stack, other]
        if len(self.interaction):
            table = torch.cat([torch.zeros_like(players[..., :1, :]), *parts], dim=-2)
            present = torch.cat([torch.zeros_like(cre_p[..., :1]), torch.ones_like(cre_p[..., :n]), cre_p, walk_p,
                                 hand_p, stack_p, other_p], dim=-1)
            for block in self.interaction:
                table = block(table, present, z)
            parts = [table]
        logits = self._score(parts, z, mask, prior)
        zb = z.unsqueeze(-2).expand(*z.shape[:-1], n - 1, z.shape[-1])
        belief = self.belief_head(torch.cat([zb, players[..., 1:, :]], dim=-1))
        value = self.critic(z, privileged)
        if single:
            return logits[0], None if value is None else value[0], belief[0], h
        return logits, value, belief, h

    @torch.no_grad()
    def step(self, obs: torch.Tensor | SparseObs, h0: torch.Tensor, mask: torch.Tensor | None = None,
             privileged: torch.Tensor | None = None, prior: torch.Tensor | None = None
             ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
        """One decision of ``B`` seats for rollouts, without autograd (:meth:`PolicyNet.step`'s call):
        :meth:`forward`'s logits through :func:`masked_logits`, its value and its new state.

        Args:
            obs: float32 ``(B, D)`` or a :class:`SparseObs` of shape ``(B,)``.
            h0: float32 ``(B, H)``, the state before the decision.
            mask: ``(B, A)``, nonzero = legal; None: every action is scored, no logit masked.
            privileged: float32 ``(B, P)`` for a privileged critic, else ignored.
            prior: int64 ``(B,)``, the ``prior`` bot's proposals (-1 = none), or None (see :meth:`forward`).

        Returns:
            ``(logits (B, A), value (B,) or None, h (B, H))``, as :meth:`PolicyNet.step`.

        Raises:
            ValueError: as :meth:`forward`.
        """
        logits, value, _, h = self(obs, h0, privileged, mask=mask, prior=prior)
        return (logits if mask is None else masked_logits(logits, mask)), value, h


    def gate_for(self, role: str | None = None) -> tuple[nn.Module, str, float] | None:
        """The gate that decides for a seat dealt ``role`` (a lower-case role name; None: the
        main gate): ``(head, features, threshold)``, its role's own gate if it has one, else
        the main gate, else None."""
        if role is not None and role in self.role_gate_settings:
            g = self.role_gate_settings[role]
            return self.role_gates[role], g["gate_features"], g["gate_threshold"]
        return None if self.gate is None else (self.gate, self.gate_features, self.gate_threshold)

    def advantages(self, obs: torch.Tensor, actions: torch.Tensor, proposal: torch.Tensor,
                   role: str | None = None) -> torch.Tensor:
        """The advantage gate's prediction for each candidate over the proposal.

        Args:
            obs: float32 observations ``(B, D)``.
            actions: int64 candidate actions ``(B, K)``.
            proposal: int64 ``(B,)``: the ``prior`` bot's proposal each would replace.
            role: the seat's dealt role (lower case): its own gate if it has one (:meth:`gate_for`).

        Returns:
            float32 ``(B, K)``: predicted advantages in the teacher's score units (scores in [-1, 1]).

        Raises:
            ValueError: for a network without a gate for ``role``, or bad shapes
                (:func:`agents.candidates.advantage_inputs`).
        """
        chosen = self.gate_for(role)
        if chosen is None:
            raise ValueError("this network has no advantage gate (made without gate)"
                             + (f" for {with_article(role)}" if role is not None and self.role_gate_settings else ""))
        head, features, _ = chosen
        x = advantage_inputs(obs, actions, proposal, self.num_players, features)
        return head(x).squeeze(-1) / GATE_SCALE


_FLAG_FIRST = ("creatures", "walkers", "stack")   # blocks whose feature 0 is "present"


def check_gate_only(gate_only: Any, main_gate: bool, role_gates: Any) -> list[str]:
    """``gate_only`` (see :class:`EntityNet`) checked against the gates that decide, as
    lower-case role names in Role order; the one check for a network's and a spec's roles.

    Args:
        gate_only: role names (any case; :meth:`~treachery_env.rules.Role.parse_many`).
        main_gate: whether the network has a main gate (it decides for every role).
        role_gates: the roles with a gate of their own (lower-case names).

    Raises:
        ValueError: (one line) for a value that is not a list of role names, an empty,
            unknown or repeated role, or a role no gate decides for.
    """
    if isinstance(gate_only, str) or not isinstance(gate_only, (list, tuple, set, frozenset)):
        raise ValueError(f"gate_only must be a list of role names, got {gate_only!r}")
    try:
        roles = sorted(Role.parse_many(gate_only))
    except ValueError as err:
        raise ValueError(f"gate_only: {err}") from None
    names = [r.name.lower() for r in roles]
    for role in names:
        if not main_gate and role not in role_gates:
            raise ValueError(f"gate_only: no gate of this network decides for {role!r} "
                             f"(no main gate and no gate of its own)")
    return names


def _check_role_gates(role_gates: Any, prior: str | None) -> dict:
    """``role_gates`` (see :class:`EntityNet`) checked, in a canonical form (roles in Role order).

    Raises:
        ValueError: for a role gate without ``prior``, an unknown role, or a gate whose width,
            features or threshold is bad or missing.
    """
    if not isinstance(role_gates, dict):
        raise ValueError(f"role_gates must be a dict of role name -> gate settings, got {role_gates!r}")
    if role_gates and prior is None:
        raise ValueError("role gates choose between a bot's proposal and other actions: they need prior")
    names = [r.name.lower() for r in Role]
    out = {}
    for role in sorted(role_gates, key=lambda r: names.index(r) if r in names else len(names)):
        g = role_gates[role]
        if role not in names:
            raise ValueError(f"role_gates: unknown role {role!r}; allowed: {names}")
        if not isinstance(g, dict) or set(g) != {"gate", "gate_features", "gate_threshold"}:
            raise ValueError(f"role_gates[{role!r}] must give gate, gate_features and gate_threshold, got {g!r}")
        width, features, threshold = g["gate"], g["gate_features"], g["gate_threshold"]
        if not isinstance(width, int) or isinstance(width, bool) or width < 1:
            raise ValueError(f"role_gates[{role!r}]: gate must be an int >= 1, got {width!r}")
        if features not in GATE_FEATURES:
            raise ValueError(f"role_gates[{role!r}]: gate_features must be one of {sorted(GATE_FEATURES)}, "
                             f"got {features!r}")
        if not isinstance(threshold, (int, float)) or isinstance(threshold, bool) or not 0 <= threshold < 2:
            raise ValueError(f"role_gates[{role!r}]: gate_threshold must be a number in [0, 2), got {threshold!r}")
        out[role] = {"gate": width, "gate_features": features, "gate_threshold": float(threshold)}
    return out


class _EntityIndex:
    """Where :class:`EntityNet`'s entities sit in the observation and which entity each action refers to.

    Attributes:
        blocks: ``{name: (start, slots, features)}`` for the contiguous slot
            blocks creatures, walkers, hand, stack, other.
        player_idx: int64 ``(n, F)``: observation indices of each relative
            player's features (player block, history rows and columns, talk).
        global_idx: int64 ``(G,)``: every other observation index.
        action_ref: int64 ``(A,)``: row of the entity table (0 = none, then
            players, creatures, walkers, hand, stack, other) each action refers to.
        action_part, action_slot: int64 ``(A,)``: the same row as a part of
            :data:`TABLE_PARTS` (its index, 0 = none) and a slot within that part.
    """

    def __init__(self, L: Any, AL: Any):
        from treachery_env.actions import MAX_HAND, MAX_OTHER, MAX_STACK, MAX_WALKERS
        from treachery_env.observation import N_CARDS, PLAYER_FEATURES, TALK_SPEAKER_FEATURES, WALKER_FEATURES
        n = L.n
        self.blocks = {"creatures": (L.creatures, n * MAX_PERMS, L.creature_features),
                       "walkers": (L.walkers, (n + 1) * MAX_WALKERS, WALKER_FEATURES),
                       "hand": (L.hand, MAX_HAND, N_CARDS),
                       "stack": (L.stack, MAX_STACK, L.stack_features),
                       "other": (L.other, MAX_OTHER, N_CARDS)}
        used = np.zeros(L.size, bool)
        for start, slots, f in self.blocks.values():
            used[start:start + slots * f] = True
        rows = []
        for i in range(n):
            r = list(range(L.players + i * PLAYER_FEATURES, L.players + (i + 1) * PLAYER_FEATURES))
            for m in range(2):                                   # harm and attacks: row i (as source), column i
                base = L.history + m * n * n
                r += [base + i * n + j for j in range(n)] + [base + j * n + i for j in range(n)]
            r += list(range(L.talk + i * TALK_SPEAKER_FEATURES, L.talk + (i + 1) * TALK_SPEAKER_FEATURES))
            rows.append(r)
        self.player_idx = torch.tensor(rows, dtype=torch.int64)
        used[L.players:L.players + n * PLAYER_FEATURES] = True
        used[L.talk:L.talk + n * TALK_SPEAKER_FEATURES] = True
        self.global_idx = torch.from_numpy(np.flatnonzero(~used)).to(torch.int64)   # history stays global too
        # entity table rows
        first = {"players": 1}
        first["creatures"] = first["players"] + n
        first["walkers"] = first["creatures"] + n * MAX_PERMS
        first["hand"] = first["walkers"] + (n + 1) * MAX_WALKERS
        first["stack"] = first["hand"] + MAX_HAND
        first["other"] = first["stack"] + MAX_STACK
        ref = np.zeros(AL.size, np.int64)
        ref[AL.HAND:AL.HAND + MAX_HAND] = first["hand"] + np.arange(MAX_HAND)
        ref[AL.OTHER:AL.OTHER + MAX_OTHER] = first["other"] + np.arange(MAX_OTHER)
        ref[AL.PLAYER:AL.PLAYER + n] = first["players"] + np.arange(n)
        ref[AL.PERM:AL.PERM + n * MAX_PERMS] = first["creatures"] + np.arange(n * MAX_PERMS)
        ref[AL.STACK:AL.STACK + MAX_STACK] = first["stack"] + np.arange(MAX_STACK)
        ref[AL.WALKER:AL.WALKER + (n + 1) * MAX_WALKERS] = first["walkers"] + np.arange((n + 1) * MAX_WALKERS)
        for a in range(AL.TALK, AL.CONCEDE):                     # talk actions about a seat point at that player
            kind, subject, _ = AL.talk_decode(a)
            if kind in ("accuse", "defend", "threaten", "protect", "offer"):
                ref[a] = first["players"] + subject
        self.action_ref = torch.from_numpy(ref)
        sizes = {"none": 1, "players": n, "creatures": n * MAX_PERMS, "walkers": (n + 1) * MAX_WALKERS,
                 "hand": MAX_HAND, "stack": MAX_STACK, "other": MAX_OTHER}
        starts = np.cumsum([0] + [sizes[p] for p in TABLE_PARTS])
        part = np.searchsorted(starts, ref, side="right") - 1
        self.action_part = torch.from_numpy(part)
        self.action_slot = torch.from_numpy(ref - starts[part])


ARCHITECTURES = {"flat": PolicyNet, "entity": EntityNet}
"""Network classes by ``model_kwargs["arch"]``."""


def build_network(kwargs: dict) -> nn.Module:
    """The network a checkpoint's ``model_kwargs`` describe (``arch`` absent: ``"flat"``).

    Raises:
        ValueError: for an unknown ``arch`` or bad sizes; TypeError for unknown keys.
    """
    kw = dict(kwargs)
    arch = kw.pop("arch", "flat")
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown network architecture {arch!r}; known: {sorted(ARCHITECTURES)}")
    return ARCHITECTURES[arch](**kw)
