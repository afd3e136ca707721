"""The learned policy: checkpoint files and the ``"policy:PATH"`` bot.

The networks (:mod:`agents.networks`: the flat :class:`PolicyNet` and the
entity :class:`~agents.networks.EntityNet`) are recurrent actor-critics that
:mod:`training.ppo` trains by self-play (issue 5).  One network serves every
seat (a *shared policy*): the seat's own identity and role are part of its
observation (``treachery_env.observation``: the observer's block holds its
known role and identity), so the same weights play Leader, Guardian, Assassin
and Traitor.

The recurrent state ``h`` is carried across the seat's own decisions within a
game (reset to zeros at the start of each game), so behaviour seen earlier in
the game can inform later decisions.  The belief head is an auxiliary output:
during training it is supervised with the true roles of face-down opponents
(privileged labels that never enter the inputs); at play time it gives
:meth:`PolicyAgent.beliefs`, the deduction the evaluator scores.

Checkpoint files (:func:`save_checkpoint`, :func:`load_checkpoint`) are
``torch.save`` dicts with a ``format`` tag, the ``treachery_env`` version, the
network's constructor arguments and weights, the training and game
configuration and, for training checkpoints, the optimizer, the opponent pool
and the counters needed to resume.  They are written atomically (temporary
file, fsync, rename), so a crash never leaves a half-written checkpoint.
"""

from __future__ import annotations

import hashlib
import io
import os
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import torch
from torch import nn

import treachery_env
from treachery_env.config import field_text
from treachery_env.rules import Role

from .base import BaseAgent, legal_actions
from .files import atomic_write_bytes, check_input_file, os_reason, write_new_file
from .lookahead import search_candidates
from .networks import NUM_ROLES, PolicyNet, build_network, check_gate_only, masked_logits

__all__ = ["PolicyNet", "PolicyAgent", "torch_threads", "ForwardRequest", "forward_requests", "masked_logits", "save_checkpoint", "load_checkpoint",
           "read_checkpoint", "loaded_policy", "load_policy",
           "config_differences", "GameConfigMismatchWarning", "CHECKPOINT_FORMAT", "NUM_ROLES"]

CHECKPOINT_FORMAT = "treachery-policy/1"
_ROLES = (Role.LEADER, Role.GUARDIAN, Role.ASSASSIN, Role.TRAITOR)


# --------------------------------------------------------------------------- checkpoint files
def _atomic_save(obj: Any, path: Path, new: bool = False) -> Path:
    buf = io.BytesIO()
    torch.save(obj, buf)
    if new:
        return write_new_file(path, buf.getvalue())
    atomic_write_bytes(path, buf.getvalue())
    return path


def save_checkpoint(path: str | os.PathLike, net: nn.Module, game_config: dict, train_config: dict | None = None,
                    training_state: dict | None = None, meta: dict | None = None, new: bool = False) -> Path:
    """Write a checkpoint atomically (temporary file in the same folder, fsync, rename).

    Args:
        path: the file to write (folders are created).
        net: the policy network (its constructor arguments and weights are stored).
        game_config: the :class:`treachery_env.GameConfig` fields as a dict.
        train_config: the training configuration as a dict (None for a bare policy).
        training_state: what resuming needs (optimizer, opponent pool, counters,
            random states); omitted in exported policies.
        meta: free-form facts (steps, wall time, machine).
        new: never write over a file: ``path``, or where it is taken (even by another process
            after a check for it) the next free name, ``policy-2.pt``
            (:func:`agents.files.write_new_file`); False replaces ``path``.

    Returns:
        the path written.

    Raises:
        OSError: if writing fails, naming the file; no partial file is left.
    """
    path = Path(path)
    payload = {"format": CHECKPOINT_FORMAT, "env_version": treachery_env.__version__,
               "torch_version": str(torch.__version__), "model_kwargs": dict(net.kwargs),
               "model_state": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
               "game_config": dict(game_config), "train_config": dict(train_config or {}),
               "meta": dict(meta or {})}
    if training_state is not None:
        payload["training_state"] = training_state
    return _atomic_save(payload, path, new)


def load_checkpoint(path: str | os.PathLike, data: bytes | None = None) -> dict:
    """Read and check a checkpoint written by :func:`save_checkpoint`.

    Args:
        path: the checkpoint file.
        data: its bytes, when the caller has read them (to ship or hash the very bytes it
            loaded): the file is then not read again, and ``path`` only names it in errors.

    Returns:
        the payload dict (``model_kwargs``, ``model_state``, ``game_config``,
        ``train_config``, ``meta`` and maybe ``training_state``).

    Raises:
        ValueError: if the file is missing, unreadable or corrupt, is not a
            Treachery policy checkpoint, was written for another
            ``treachery_env`` version, its weights do not fit its network, or a
            weight is NaN or infinite (naming the first such tensor).
    """
    path = check_input_file(path, "checkpoint") if data is None else Path(path)
    try:
        payload = torch.load(path if data is None else io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many types for a truncated or foreign file
        raise ValueError(f"checkpoint {str(path)!r} is corrupt or not a torch checkpoint (torch.load raised "
                         f"{type(err).__name__})") from err
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        got = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise ValueError(f"{str(path)!r} is not a Treachery policy checkpoint (format {got!r}, "
                         f"expected {CHECKPOINT_FORMAT!r})")
    if payload.get("env_version") != treachery_env.__version__:
        raise ValueError(f"checkpoint {str(path)!r} was written for treachery_env {payload.get('env_version')!r}; "
                         f"this is {treachery_env.__version__!r} (observations and actions may differ)")
    _check_finite(path, payload.get("model_state"))
    try:
        net = build_network(payload["model_kwargs"])
        net.load_state_dict(payload["model_state"])
    except (KeyError, TypeError, RuntimeError, ValueError) as err:
        raise ValueError(f"checkpoint {str(path)!r} has weights that do not fit its network: "
                         f"{_first_problem(err)}") from err
    payload["net"] = net
    return payload


def read_checkpoint(path: str | os.PathLike) -> tuple[dict, bytes]:
    """A checkpoint's payload (:func:`load_checkpoint`) and the bytes it was loaded from, the file
    read once: whoever also hashes or ships the checkpoint uses these bytes, so a file replaced
    meanwhile (a running training rewrites its ``policy.pt``) cannot make the two differ.

    Raises:
        ValueError: (one line) as :func:`load_checkpoint`, or for a file that cannot be read
            (the system's reason).
    """
    p = check_input_file(path, "checkpoint")
    try:
        data = p.read_bytes()
    except OSError as err:
        raise ValueError(f"checkpoint {str(p)!r} cannot be read: {os_reason(err)}") from None
    return load_checkpoint(p, data=data), data


def _first_problem(err: BaseException) -> str:
    """One line for an error of loading weights: torch's ``load_state_dict`` lists every
    mismatched tensor on a line of its own under a heading; this gives the first and how many
    more there are (another error: its message, its lines joined)."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].startswith("Error(s) in loading state_dict"):
        lines = lines[1:]
        return lines[0] + (f" (and {len(lines) - 1} more)" if len(lines) > 1 else "")
    return " ".join(lines)


def _check_finite(path: Path, state: Any) -> None:
    """Refuse a state dict holding a NaN or infinite weight (a diverged run): such
    a policy would load, then fail or play nonsense later."""
    if not isinstance(state, dict):
        return   # malformed state: reported by load_state_dict as weights that do not fit
    for name, t in state.items():
        if isinstance(t, torch.Tensor) and t.is_floating_point() and not bool(torch.isfinite(t).all()):
            raise ValueError(f"checkpoint {str(path)!r} has non-finite weights (NaN or inf), first in tensor "
                             f"{name!r}; the run that wrote it diverged, so use an earlier checkpoint")


@lru_cache(maxsize=8)
def _cached(path: str, stat_key: tuple) -> tuple[dict, str]:
    payload, data = read_checkpoint(path)
    return payload, hashlib.sha256(data).hexdigest()


def loaded_policy(path: str | os.PathLike) -> tuple[nn.Module, dict, str]:
    """The network (in eval mode), game configuration and the SHA-256 of the bytes they were
    loaded from, the file read once (:func:`read_checkpoint`).

    Cached per process by resolved path, modification time, size and inode (tournaments build
    a bot per game): a file replaced (a running training rewrites its ``policy.pt`` atomically,
    a new inode) is loaded afresh at the next call.  The hash is cached with the network it was
    read with, never taken from the file now, so should a rewrite keep every field of the key,
    the network played is the cached one and the hash still names its bytes.

    Raises:
        ValueError: as :func:`read_checkpoint`.
    """
    p = check_input_file(path, "checkpoint")
    st = p.stat()
    payload, sha256 = _cached(str(p.resolve()), (st.st_mtime_ns, st.st_size, st.st_ino))
    return payload["net"].eval(), payload["game_config"], sha256


def load_policy(path: str | os.PathLike) -> tuple[nn.Module, dict]:
    """The network (in eval mode) and game configuration of a checkpoint, cached
    per process (:func:`loaded_policy`, without the hash).

    Raises:
        ValueError: as :func:`read_checkpoint`.
    """
    net, game_config, _ = loaded_policy(path)
    return net, game_config


def check_layout(net: nn.Module, path: str = "") -> None:
    """Refuse a network whose input and output sizes are not this
    ``treachery_env``'s observation and action sizes for its number of players
    (``obs_layout(n).size``, ``ActionLayout(n).size``): the observation or the
    action layout changed since it was trained (e.g. issue #11 added the
    mulligan decisions and the CONCEDE action), so its weights would read the
    wrong features.

    Raises:
        ValueError: naming the checkpoint, both sizes and what to do.
    """
    from treachery_env.actions import ActionLayout
    from treachery_env.observation import obs_layout

    n = net.num_players
    want = (obs_layout(n).size, ActionLayout(n).size)
    got = (net.kwargs["obs_size"], net.kwargs["num_actions"])
    if got != want:
        raise ValueError(f"checkpoint {path!r} does not fit this treachery_env: it was trained on observations of "
                         f"size {got[0]} and {got[1]} actions for {n} players, but this version has {want[0]} and "
                         f"{want[1]} (the observation or action layout changed since it was written); retrain it, "
                         f"or use the treachery_env version it was trained with")


# --------------------------------------------------------------------------- the game it was trained on
class GameConfigMismatchWarning(UserWarning):
    """A policy plays a game whose configuration differs from the one it was
    trained on (:meth:`PolicyAgent.check_config`)."""


#: game fields not compared with a checkpoint's: the table size has its own
#: error (``agents.check_table``), concession is offered to a person only, and a
#: fixed deal or fixed decks choose among what training dealt at random
_NOT_COMPARED = frozenset({"num_players", "concession", "identities", "decks"})
_VARIANT_FIELDS = (("vanguard", "Vanguard cards"), ("archenemy", "schemes"), ("planechase", "Planechase"))
"""The :class:`~treachery_env.GameConfig` fields of the CR 900 variants whose observation blocks no
checkpoint has, and their names in the refusal."""
_VIEW_VARIANTS = (("vanguards", "Vanguard cards"), ("schemes", "schemes"), ("planechase", "Planechase"))
"""The same variants as the :class:`~treachery_env.view.SeatView` fields that show them."""
_WARNED: set = set()          # (checkpoint, differences) already warned about in this process


def config_differences(trained: dict, config: Any) -> dict[str, tuple]:
    """The game fields in which ``config`` differs from the configuration a
    policy was trained on.

    Args:
        trained: the checkpoint's ``game_config`` (``GameConfig.to_dict()``).
        config: the game played: a :class:`treachery_env.GameConfig`, or a dict
            of some of its fields (only those are compared).

    Returns:
        ``{field: (trained value, value in this game)}``, in field order,
        leaving out the fields of ``_NOT_COMPARED``; ``{}`` when they agree.
    """
    from treachery_env import GameConfig

    mine = config.to_dict() if isinstance(config, GameConfig) else dict(config)
    try:     # the checkpoint's fields as this version writes them (defaults filled in)
        theirs = GameConfig.from_dict(dict(trained)).to_dict()
    except (ValueError, TypeError):
        theirs = dict(trained)
    return {k: (theirs.get(k), v) for k, v in mine.items()
            if k not in _NOT_COMPARED and k in theirs and theirs.get(k) != v}


def _warn_config(path: str, differ: dict[str, tuple]) -> None:
    """Warn once per process per checkpoint and set of differences, each value in words
    (:func:`treachery_env.config.field_text`: ``commander on in training, off here``)."""
    key = (path, tuple((k, repr(v)) for k, v in differ.items()))
    if not differ or key in _WARNED:
        return
    _WARNED.add(key)
    what = "; ".join(f"{k} {field_text(k, a)} in training, {field_text(k, b)} here" for k, (a, b) in differ.items())
    warnings.warn(f"policy {path!r} was trained on a different game configuration ({what}); it plays on, "
                  f"but on a game it never saw", GameConfigMismatchWarning, stacklevel=3)


# --------------------------------------------------------------------------- forward passes
class ForwardRequest(NamedTuple):
    """One decision's forward pass of a trained policy, asked for by
    :meth:`PolicyAgent.forward_request` and run by :func:`forward_requests`.

    Attributes:
        net: the network (shared by the bots of one checkpoint, :func:`load_policy`).
        x: float32 ``(1, D)`` observation; h: float32 ``(1, H)`` recurrent state before it;
        mask: int8 ``(1, A)`` action mask; prior: int64 ``(1,)`` proposal, or None.
        finish: ``finish(logits (A,), belief (n-1, 4), h (1, H)) -> action``: the bot's
            decision from its row of the outputs (it keeps ``h`` and the beliefs).
    """

    net: nn.Module
    x: torch.Tensor
    h: torch.Tensor
    mask: torch.Tensor
    prior: torch.Tensor | None
    finish: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], int]


@torch.inference_mode()
def forward_requests(requests: Sequence[ForwardRequest]) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Run the forward passes of ``requests``, one pass per network (rows stacked in order).

    Each row's outputs equal its own pass alone up to float rounding (a batch's matrix
    products may sum in another order; within 1e-5 in ``tests/test_evaluate.py``);
    a single request is exactly the pass :meth:`PolicyAgent.act` makes.

    Returns:
        for each request, in order, ``(logits (A,), belief (n-1, 4), h (1, H))``.
    """
    out: list = [None] * len(requests)
    groups: dict[int, list[int]] = {}
    for i, r in enumerate(requests):
        groups.setdefault(id(r.net), []).append(i)
    for rows in groups.values():
        net = requests[rows[0]].net
        reqs = [requests[i] for i in rows]
        cat = (lambda k: torch.cat([getattr(r, k) for r in reqs])) if len(reqs) > 1 else \
            (lambda k: getattr(reqs[0], k))
        priors = [r.prior for r in reqs]
        prior = None if priors[0] is None else cat("prior")
        if any((p is None) != (prior is None) for p in priors):
            raise ValueError("requests of one network with and without a proposal")
        logits, _, belief, h = net(cat("x"), cat("h"), mask=cat("mask"), prior=prior)
        for k, i in enumerate(rows):
            out[i] = (logits[k], belief[k], h[k:k + 1])
    return out


# --------------------------------------------------------------------------- the bot
_THREADS_BEFORE: int | None = None   # torch's intra-op threads before a PolicyAgent last set one


def torch_threads() -> int:
    """This process's torch intra-op thread count, as if no :class:`PolicyAgent` had set it to one:
    the count from before the last one did, while it is still one; otherwise
    ``torch.get_num_threads()`` (a count set since, by anyone, stands).  Training reads it, so that
    a notebook that played or evaluated a policy and then trains does not train on one thread."""
    n = torch.get_num_threads()
    return _THREADS_BEFORE if _THREADS_BEFORE is not None and n == 1 else n


class PolicyAgent(BaseAgent):
    """A trained policy as a bot: ``agents.make("policy:PATH")``.

    Acts from the observation vector and mask alone (its own information set),
    carrying the recurrent state across its decisions of a game; samples from
    the masked policy (``greedy=True``: the most probable legal action).  A
    network made with a proposal input (``model_kwargs["prior"]``, see
    :mod:`agents.networks`) also reads the action that bot proposes from
    ``info["view"]`` at each decision; the bot is made and reset with this one,
    and ``last_proposal`` is the action it proposed at the last decision (None
    without a proposal input, and before the first decision of a game:
    :meth:`reset` clears it).  A network with an advantage gate
    (``model_kwargs["gate"]``, :meth:`agents.networks.EntityNet.advantages`)
    plays, at a decision the lookahead bot would search
    (:func:`agents.lookahead.search_candidates`), the candidate with the
    highest predicted advantage over the proposal when it exceeds the
    threshold (``gate_threshold``: the network's unless given), and the network's own choice otherwise;
    a seat dealt a role with a gate of its own (``model_kwargs["role_gates"]``,
    :meth:`agents.networks.EntityNet.gate_for`) is gated by that one, at its
    threshold unless ``gate_threshold`` is given;
    ``has_gate`` says whether the network has one, ``last_searched`` whether the
    gate weighed candidates at the last decision, ``last_gated`` whether that
    decision was the gate's (both False without a gate).  In a seat dealt one of
    ``gate_only``'s roles the policy leaves the proposal only where the gate
    departs: elsewhere it plays the proposal, not the network's own choice (the
    network still runs, for its recurrent state and beliefs).  ``weights_sha256`` is the
    SHA-256 of the checkpoint bytes its network was loaded from (:func:`loaded_policy`; the
    file at ``path`` may since have been replaced), which a tournament records as the bytes
    that played (:func:`training.evaluate.evaluate`).

    Args:
        path: a checkpoint from :func:`save_checkpoint`.
        seed: seed of the sampling stream.
        greedy: take the arg-max instead of sampling.
        gate_threshold: play the advantage gates (the main one and every role's) at this
            threshold instead of the network's (``gate_threshold`` holds it); None: the network's.
        gate_only: role names (any case) whose seats leave the proposal only through the gate;
            None: the network's (``model_kwargs["gate_only"]``, written by ``treachery graft
            --gate-only``; none if absent).

    Raises:
        ValueError: for an unreadable or incompatible checkpoint, including one
            trained with another observation or action layout
            (:func:`check_layout`), a ``gate_threshold`` for a network without
            a gate or outside [0, 2), ``gate_only`` roles that are unknown or that no gate
            of the network decides for (or a network without a proposal); in ``act``, for an observation of another
            size than the network's (a table of another number of players), or
            no ``info["view"]`` for a network that reads a proposal.

    Note:
        Making a PolicyAgent sets torch to one intra-op thread in this process
        (``torch.set_num_threads(1)``): one observation at a time gains nothing
        from threads, and on a busy machine spinning threads made each decision
        about 40 times slower (measured: 76 ms instead of 1.9 ms).
        :func:`torch_threads` gives the count from before, which training reads.
    """

    name = "policy"

    def __init__(self, path: str | os.PathLike, seed: int | None = None, greedy: bool = False,
                 gate_threshold: float | None = None, gate_only: Sequence[str] | None = None):
        super().__init__(seed)
        global _THREADS_BEFORE
        if torch.get_num_threads() > 1:
            _THREADS_BEFORE = torch.get_num_threads()
            torch.set_num_threads(1)
        self.path = str(path)
        self.net, self.game_config, self.weights_sha256 = loaded_policy(path)
        check_layout(self.net, self.path)
        self.greedy = greedy
        self.h = self.net.initial_state(1)
        self._belief: torch.Tensor | None = None     # belief logits (n-1, 4) of the last decision
        self._config_checked = False                 # check_config ran, or act compared info["view"]
        self.prior_bot: BaseAgent | None = None      # proposes an action the network reads (model_kwargs["prior"])
        self.last_proposal: int | None = None
        self.has_gate = getattr(self.net, "gate", None) is not None or bool(getattr(self.net, "role_gate_settings", None))
        if gate_threshold is not None and not self.has_gate:
            raise ValueError(f"policy {self.path!r} has no advantage gate, so no gate threshold")
        if gate_threshold is not None and not 0 <= gate_threshold < 2:
            raise ValueError(f"policy {self.path!r}: a gate threshold lies in [0, 2), got {gate_threshold}")
        # the network may be shared with other agents of this checkpoint (load_policy's cache): not changed
        self.gate_threshold = getattr(self.net, "gate_threshold", None) if gate_threshold is None else float(gate_threshold)
        self._threshold_given = gate_threshold is not None
        self.last_searched = self.last_gated = False
        if self.net.kwargs.get("prior"):
            from . import make
            self.prior_bot = make(self.net.kwargs["prior"], seed=seed)
        if gate_only is None:
            gate_only = self.net.kwargs.get("gate_only", ())
        try:
            self.gate_only = frozenset(check_gate_only(
                list(gate_only), getattr(self.net, "gate", None) is not None,
                getattr(self.net, "role_gate_settings", {})))
        except ValueError as err:
            raise ValueError(f"policy {self.path!r}: {err}") from None

    def num_players(self) -> int:
        """The table size the policy was trained for: it plays no other."""
        return self.net.num_players

    def _refuse_variants(self, which: list[str]) -> None:
        """Raise the one-line ``ValueError`` of a game with CR 900 variant blocks (``which``: their
        names): no checkpoint was trained on such an observation layout
        (:func:`treachery_env.observation.config_layout`)."""
        raise ValueError(f"policy {self.path!r} was trained on games without {' or '.join(which)} (its observation "
                         f"has no such block, CR 900); their bots: heuristic, belief, random")

    def check_config(self, config: Any) -> dict[str, tuple]:
        """Compare the game to be played with the one the checkpoint was trained
        on (its ``game_config``) and, if they differ, warn once per process
        (:class:`GameConfigMismatchWarning`, naming the checkpoint and each
        field with both values); the policy still plays.  :func:`agents.play_game`,
        ``treachery evaluate`` and ``treachery play`` call it with their game's
        config; otherwise the first :meth:`act` compares what ``info["view"]``
        shows of it (talk, talk limit, priority windows).

        Raises:
            ValueError: for a Throne Magic game, or one with Vanguard cards (CR 902), schemes (CR 904)
                or Planechase (CR 901), whose observation layouts no checkpoint has (so does :meth:`act`).

        Args:
            config: a :class:`treachery_env.GameConfig`, or a dict of some of its fields.

        Returns:
            :func:`config_differences` (``{}`` when they agree).
        """
        game = config.get("game") if isinstance(config, dict) else getattr(config, "game", None)
        if game == "throne_magic":
            raise ValueError(f"policy {self.path!r} plays Treachery only (it was trained on Treachery's "
                             f"observation); Throne Magic's bots: heuristic, belief, random")
        which = [name for field, name in _VARIANT_FIELDS
                 if (config.get(field) if isinstance(config, dict) else getattr(config, field, None)) is not None]
        if which:
            self._refuse_variants(which)
        self._config_checked = True
        differ = config_differences(self.game_config, config)
        _warn_config(self.path, differ)
        return differ

    def reset(self, seat: int) -> None:
        """New game in ``seat``: clear the recurrent state and the beliefs."""
        super().reset(seat)
        self.h = self.net.initial_state(1)
        self._belief = None
        self.last_proposal = None
        self.last_searched = self.last_gated = False
        if self.prior_bot is not None:
            self.prior_bot.reset(seat)

    def act(self, observation: dict, info: dict) -> int:
        """Sample (or arg-max) a legal action; updates the recurrent state.

        The first call without an earlier :meth:`check_config` compares the
        game rules ``info["view"]`` shows with the checkpoint's (and may warn).
        The same as :meth:`forward_request` and its forward pass alone (:func:`forward_requests`)."""
        req = self.forward_request(observation, info)
        return req.finish(*forward_requests([req])[0])

    @torch.inference_mode()
    def forward_request(self, observation: dict, info: dict) -> "ForwardRequest":
        """What :meth:`act` computes before the network's forward pass, as a
        :class:`ForwardRequest`: :func:`forward_requests` runs the forward passes of
        many seats' requests together (a lockstep evaluation, :func:`agents.play.run_games`),
        and the request's ``finish`` (gate, arg-max or draw) gives the action and
        updates this bot's state.  Raises as :meth:`act`."""
        if isinstance(info, dict) and info.get("view") is not None:
            if getattr(info["view"], "throne_magic", None) is not None:
                raise ValueError(f"policy {self.path!r} plays Treachery only (it was trained on Treachery's "
                                 f"observation); Throne Magic's bots: heuristic, belief, random")
            which = [name for field, name in _VIEW_VARIANTS if getattr(info["view"], field, None) is not None]
            if which:
                self._refuse_variants(which)
        if not self._config_checked and isinstance(info, dict) and info.get("view") is not None:
            v = info["view"]
            self.check_config({"talk": v.talk.mode, "talk_limit": v.talk.limit,
                               "priority_windows": v.priority_windows})
        legal = legal_actions(observation)
        obs = np.asarray(observation["observation"], dtype=np.float32)
        d = self.net.kwargs["obs_size"]
        if obs.shape != (d,):
            raise ValueError(f"observation has shape {obs.shape}; this policy was trained on ({d},) "
                             f"({self.net.num_players} players)")
        mask = torch.from_numpy(np.asarray(observation["action_mask"]))[None]
        prior = None
        if self.prior_bot is not None:
            if not isinstance(info, dict) or info.get("view") is None:
                raise ValueError(f"policy {self.path!r} reads the {self.net.kwargs['prior']!r} bot's proposal, "
                                 f"which needs info['view'] (an environment made with view_in_info=True)")
            self.last_proposal = int(self.prior_bot.act(observation, info))
            prior = torch.tensor([self.last_proposal])
        x = torch.from_numpy(obs)[None]
        return ForwardRequest(self.net, x, self.h, mask, prior,
                              lambda logits, belief, h: self._finish(x, legal, info, logits, belief, h))

    @torch.inference_mode()
    def _finish(self, x: torch.Tensor, legal: np.ndarray, info: dict, logits: torch.Tensor,
                belief: torch.Tensor, h: torch.Tensor) -> int:
        """The action from this decision's forward pass (``logits`` ``(A,)``, ``belief``
        ``(n-1, 4)``, ``h`` ``(1, H)``): the gate's departure, or the arg-max or a draw."""
        self.h = h
        self._belief = belief
        self.last_searched = self.last_gated = False
        if self.has_gate:
            gated = self._gate(x, info["view"], self.last_proposal)
            if gated is not None:
                self.last_gated = True
                return gated
            if self.gate_only and info["view"].me.role is not None \
                    and info["view"].me.role.name.lower() in self.gate_only:
                return self.last_proposal
        lg = logits.numpy()[legal].astype(np.float64)
        if self.greedy:
            return int(legal[int(np.argmax(lg))])
        p = np.exp(lg - lg.max())
        p /= p.sum()
        return int(legal[self.rng.choice(legal.size, p=p)])

    def _gate(self, obs: torch.Tensor, view: Any, proposal: int) -> int | None:
        """The advantage gate's departure from ``proposal`` at this decision, or None (see the class docstring)."""
        role = view.me.role
        chosen = self.net.gate_for(None if role is None else role.name.lower())
        if chosen is None:                # a role without a gate of its own, in a network without a main gate
            return None
        cands = search_candidates(view, proposal)
        if cands is None:
            return None
        self.last_searched = True
        others = sorted(a for a in cands if a != proposal)
        adv = self.net.advantages(obs, torch.tensor([others]), torch.tensor([proposal]),
                                  None if role is None else role.name.lower())[0]
        threshold = self.gate_threshold if self._threshold_given or chosen[0] is self.net.gate else chosen[2]
        k = int(torch.argmax(adv))                      # the first of equal predictions, in action order
        return others[k] if float(adv[k]) > threshold else None

    def beliefs(self) -> dict[int, dict[Role, float]]:
        """The belief head's role distribution for every other seat (absolute
        seat numbers), as of the last decision; ``{}`` before the first.

        The evaluator scores only face-down opponents (``training.evaluate``).
        """
        if self._belief is None or self.seat is None:
            return {}
        n = self.net.num_players
        p = torch.softmax(self._belief, dim=-1).numpy()
        return {(self.seat + k) % n: {r: float(p[k - 1, i]) for i, r in enumerate(_ROLES)} for k in range(1, n)}

    def __repr__(self) -> str:
        return f"PolicyAgent({self.path!r}, seed={self.seed}, greedy={self.greedy})"
