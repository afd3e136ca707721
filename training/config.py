"""The self-play training configuration: defaults, a TOML file, CLI overrides.

``TrainConfig()`` is the built-in default (the README's main job).  A TOML
file sets any subset of fields at top level, plus a ``[game]`` table of
:class:`treachery_env.GameConfig` fields::

    total_steps = 2_000_000
    learning_rate = 3e-4
    [opponents]
    self = 0.3
    heuristic = 0.3
    [game]
    num_players = 5

``--set key=value`` overrides on the command line use the same names
(``game.num_players=6``, ``opponents.belief=0.2``); values are parsed as TOML
literals, so ``3e-4``, ``true`` and ``"linear"`` work.  Every field is checked
by :meth:`TrainConfig.validate`, which raises ``ValueError`` naming the field
and what is allowed.

Relative paths: the files a run reads (``init``, ``kl_policy``: :data:`INPUT_PATHS`)
are read, when a config file names them relatively, from that file's folder, so
a config works from any current folder (the shipped ones in ``training/configs``
name ``"../../checkpoints/NAME/policy.pt"``, read from the installed models,
:data:`agents.models.CHECKPOINTS`, where a wheel put them); :func:`load_config` makes them
absolute.  A run records them relative to its run folder (``config.json``, its
checkpoints: :func:`recorded_config`), as a config file in that folder names
them, so that a run folder moved or shared together with those files still finds
them; a resume reads them from the checkpoint's folder (:func:`checkpoint_config`).  The folder
a run writes (``run_dir``), in a file as on the command line, is relative to the
current folder, as ``--run-dir`` and the default ``runs/train-<date>-<time>`` are:
the run's output goes where the command runs.  A ``--set init=PATH`` (any
``--set``) is read from the current folder too.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import agents
from agents.candidates import GATE_FEATURES
from agents.networks import INTERACTION_HEADS, PRIOR_BOTS
from treachery_env import GameConfig
from treachery_env.config import did_you_mean
from treachery_env.rules import Role

from .precision import UPDATE_DTYPES

__all__ = ["TrainConfig", "OPPONENT_KINDS", "MAX_WEIGHT", "MAX_TIME_BUDGET_S", "INPUT_PATHS", "RUN_RELATIVE",
           "load_config", "parse_override", "toml_literal", "recorded_config", "checkpoint_config"]

#: Game kinds of the opponent mix: ``self`` (every seat the learner), ``pool``
#: (frozen past checkpoints), and the rule-based bots.
OPPONENT_KINDS = ("self", "pool", "heuristic", "belief", "random")

#: The settings naming files a run reads; relative in a config file, they are read from its folder.
INPUT_PATHS = ("init", "kl_policy")

#: A checkpoint's ``meta["input_paths"]`` when its ``train_config`` holds :data:`INPUT_PATHS` relative
#: to the checkpoint's folder (the run folder, :func:`recorded_config`); older checkpoints hold them
#: as the run was given them (absolute, or relative to the folder the run was started from).
RUN_RELATIVE = "relative to the run folder"

#: The largest loss weight accepted (``departure_weight``, ``gain_weight``, ``score_coef``,
#: ``kl_coef``, ``vf_coef``, ``ent_coef``, ``belief_coef``, ``imitation_coef``): beyond it a float32
#: loss overflows to inf or NaN.
MAX_WEIGHT = 1e6

#: The longest time budget (``time_budget_s``, ``treachery train --minutes``), a year in seconds:
#: more (``inf``) is a typo, not a budget; 0 is no limit.
MAX_TIME_BUDGET_S = 365 * 24 * 3600.0


def toml_literal(value: Any) -> str:
    """``value`` written as a TOML literal, as a config file or ``--set`` gives it: ``true``,
    ``"text"``, ``3e-4``, ``nan``, ``[1, 2]``, ``{heuristic = 1.0}``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        keys = [k if re.fullmatch(r"[A-Za-z0-9_-]+", str(k)) else json.dumps(str(k)) for k in value]
        return "{" + ", ".join(f"{k} = {toml_literal(v)}" for k, v in zip(keys, value.values())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    return repr(value)


def _default_opponents() -> dict:
    return {"self": 0.3, "pool": 0.2, "heuristic": 0.35, "belief": 0.1, "random": 0.05}


def _opponent_kind(key: Any) -> Any:
    """The opponent kind ``key`` names in any case: ``"self"`` and ``"pool"`` in lower case, a
    bot's or shipped model's name as registered (:func:`agents.canonical_spec`: ``"Heuristic"``
    is ``"heuristic"``); anything else (not a str, or no name at all) as given, for
    :meth:`TrainConfig.validate` to refuse."""
    if not isinstance(key, str):
        return key
    return key.casefold() if key.casefold() in ("self", "pool") else agents.canonical_spec(key)


def _opponents_table(table: dict) -> dict:
    """``table`` (an ``opponents`` table: kind -> weight) with each key as :func:`_opponent_kind`
    spells it, in the same order.

    Raises:
        ValueError: for two keys naming one kind in different cases (``heuristic`` and
            ``Heuristic``): which weight was meant is not known.
    """
    out: dict = {}
    given: dict = {}
    for key, weight in table.items():
        kind = _opponent_kind(key)
        if kind in out:
            raise ValueError(f"train config: opponents {toml_literal(table)} is invalid; "
                             f"{toml_literal(given[kind])} and {toml_literal(key)} name one kind: give it once")
        out[kind], given[kind] = weight, key
    return out


_KEYWORD_FIELDS = ("arch", "lr_schedule", "anchor_schedule", "gate_features", "update_dtype")
"""Fields whose values are keywords of this module, read in any case (:meth:`TrainConfig.__post_init__`)."""


@dataclass
class TrainConfig:
    """Every knob of :func:`training.ppo.train` (units in brackets).

    Run and budget:
        run_dir: folder of checkpoints, tensorboard logs and ``config.json``
            (relative: to the current folder, also in a config file); one
            training at a time writes it (:mod:`training.run_lock`).
        run_id: the run's identity (a uuid4 hex), not a setting: :func:`training.ppo.train`
            draws one when a new run starts (whatever the config holds) and a resume keeps
            its checkpoint's, so that another run's checkpoint copied into the run folder is
            refused; "" in a config (a config file or ``--set`` that names it is refused) and
            in a run recorded before runs had one.
        seed: master seed (games, bots, sampling, initial weights).
        total_steps: learner agent-steps to train [decisions of learner seats].
        time_budget_s: wall-time budget of the whole run [s]; 0 = no limit.  The
            run stops before an iteration that, as long as a typical recent
            one (the median of the last five), would end past it.
        checkpoint_every: iterations between checkpoints (one is also written at the end).
        keep_checkpoints: how many ``ckpt_*.pt`` files to keep (the newest).
        init: a ``policy.pt`` or ``ckpt_*.pt`` whose weights the network starts
            from (a new run: a fresh optimizer, an empty pool, this config; the
            checkpoint's network must be the one this config builds, and its
            game the same size); "" = random initial weights.  Fine-tuning a
            shipped policy with another objective or expert starts here.  A
            relative path in a config file is read from the file's folder
            (module docstring).

    Rollouts (batched self-play, PPO "iteration" = collect then update):
        workers: processes collecting rollouts (1 = in this process); with
            ``ray_address``, Ray actors (one CPU each, 1 = one actor).
        ray_address: where the rollout workers run: "" = worker processes on
            this machine; "default" = Ray, ``ray.init()`` with no address
            (``RAY_ADDRESS`` if set, else a cluster running on this machine,
            else a new local Ray); any other value = Ray at that address
            (``ray.init(address=...)``: "auto", "HOST:6379", "ray://HOST:10001").
            The same seed gives the same batches either way
            (:mod:`training.ray_workers`).  Like ``workers``, a resumed run
            keeps its own unless told otherwise (``--ray``, ``--set ray_address=...``).
        games_per_worker: games stepped together, one batched forward per step (64 by
            default since session 64: a game's seats then wait for larger batches, the
            pool's one-row forward passes above all, ~10-15% off a collect at steady state;
            each seat's share of an iteration's steps, so its segment before the bootstrap,
            is about half what 32 gave; same strength at 2M steps, README "make main").
        rollout_steps: learner agent-steps collected per iteration (all workers;
            at least: a worker's games step together, so its share ends a few
            steps past it).
        policy_lag: updates between the weights a batch is collected with and
            the update it feeds [0 or 1].  0 (the default): collect, then update
            (each batch from the weights of the update before it; the workers
            wait while the learner updates).  1: the workers collect the next
            batch while the learner updates on this one, so each batch is from
            the weights one update older (the first two from the initial ones);
            PPO's ratio and KL are taken against the log-probabilities the batch
            was collected with (the behaviour policy's), as in asynchronous
            actor-learner PPO (APPO; IMPALA, Espeholt et al. 2018, without
            V-trace: one update of lag).  With ``workers = 1`` the collection runs
            in this process between updates, from the same one-update-old
            weights, so the batches do not depend on where they are collected.
            A resumed run keeps its own (a resume that sets another is refused);
            its first batch is from the checkpoint's weights.  It is meant
            for a learner with cores of its own (more cores than workers, or
            Ray workers elsewhere; not measured): on 2 cores with 2 workers the
            collection and the update each fill both cores already (measured:
            3,018 against 2,996 learner steps/s, README "Benchmarks"), and the
            stale batches' larger KL stops more updates early (``target_kl``).
        opponents: weights of each game's kind (:data:`OPPONENT_KINDS`, or a shipped
            model's name, ``flagship``: its greedy policy, :data:`agents.NAMED_MODELS`); in a
            ``self`` game every seat is the learner, otherwise the learner holds
            1 to ``n-1`` random seats and that kind fills the others.  Keys are read in
            any case (``Heuristic``) and stored as :data:`OPPONENT_KINDS` and the registry
            spell them (lower case), so ``config.json`` records one spelling.
        pool_size: frozen past policies kept for ``pool`` games.
        snapshot_every: iterations between adding the learner to the pool.
        solo: in games that are not ``self``, the probability that the learner
            holds exactly one seat, its dealt role drawn uniformly among the
            table's roles (the evaluation condition; otherwise 1 to ``n-1``
            random seats) [0, 1].
        solo_roles: the roles that draw is limited to (``["assassin"]``: the
            learner's one seat is always an Assassin), names of :class:`Role`;
            empty (the default): every role of the table.  Each must be in the
            table's identity deck.

    PPO (Schulman et al. 2017) with GAE (Schulman et al. 2016):
        learning_rate, lr_schedule ("linear" to 0 over total_steps, which a time
        budget does not shorten, and which never rises again: a resume to a
        larger total goes on from the rate reached; or "constant"),
        gamma, gae_lambda, clip (ratio clip epsilon), value_clip (0 = off),
        vf_coef, ent_coef, belief_coef (auxiliary role-prediction loss),
        epochs (2 by default since session 64: a third off the update, the same strength at
        2M steps in two seeds, README "make main"), minibatch_steps [steps per minibatch: an epoch's rows split evenly into
        minibatches of about this many, :func:`training.ppo.minibatch_bounds`], bptt [steps per recurrent
        chunk], max_grad_norm, target_kl (stop the epochs early; 0 = off).
        update_dtype: the update's matrix products in "float32", in "bfloat16"
            (mixed precision: weights, optimizer, gates and losses stay float32),
            or "auto" (the default): bfloat16 where this CPU does them at least
            1.5 times faster than float32 (:mod:`training.precision`, measured
            when the run first starts; its checkpoints record the choice and
            its resumes keep it), else float32.  A resume cannot change it.
        deterministic: make a run's numbers depend on its config and seed alone, not on
            timings that the machine's load tips (false by default).  The update then
            runs every minibatch on one fixed torch thread count: one, or with
            ``OMP_NUM_THREADS`` set, the most it may use (:func:`agents.policy.torch_threads`;
            two fixed threads on a busy 2-core machine made an update ~30x slower), not the cheaper of that count
            and half of it measured minibatch by minibatch (:mod:`training.threads`: a
            different count rounds differently); and ``update_dtype = "auto"`` takes
            bfloat16 where the CPU multiplies it natively (AVX512-BF16 or AMX,
            :func:`training.precision.native_bfloat16`), else float32, with no timing.
            Checkpoints record both, and a resume keeps them.  A bot of the run that
            decides by the clock (an ISMCTS bot with a ``time_budget``, registered at run
            time: :meth:`check_bots`) is refused.  Two runs of one config,
            seed and ``workers`` on one machine (the same CPU, torch and thread count)
            then write the same ``metrics.jsonl`` (but ``wall_s`` and the ``perf/``
            timings) and the same weights, iteration by iteration, when ``total_steps``
            ends them; a time budget ends them at whichever iteration the clock says,
            and with ``imitation > 0`` or a linear anchor it also moves, by the clock,
            the iteration where imitation ends and the anchor's decay, and with
            ``policy_lag = 1`` a batch after an iteration the clock forecast to be the
            last, when the run goes on, is collected from the updated weights (as with
            ``policy_lag = 0``; a warning says each).  A resume starts new games and
            reseeds its draws, so it continues the same way from the same checkpoint but
            not as the run that went on unstopped.  Other CPUs, kernels or torch
            versions can round differently.  A resume cannot change it.

    Imitation warm start (DAgger, Ross et al. 2011):
        imitation: the fraction of the run [0, 1) spent imitating ``expert``:
            the learner plays its games as usual while the expert labels every
            learner decision with its own action, and the update minimises the
            cross-entropy to those labels (plus the value and belief losses)
            instead of the PPO objective.  Progress is ``steps / total_steps``
            or ``elapsed / time_budget_s``, whichever is further, and never goes
            back: a run resumed with a larger budget continues from the progress
            it had reached (PPO does not give way to imitation again, nor a
            decaying anchor rise).  0 = no warm
            start (pure PPO needs ``imitation_coef = 0`` too).
        imitation_coef: weight of that cross-entropy added to the PPO loss after
            the imitation phase (a behaviour-cloning anchor that keeps PPO
            near the expert where the reward signal is weak; 0 = none, and
            the expert then stops labelling).
        anchor_schedule: "constant" (the anchor keeps ``imitation_coef``) or
            "linear" (it decays from ``imitation_coef`` at the end of the
            imitation phase to 0 at the end of the run, by the same progress
            measure), so PPO is released from the expert's mistakes.
        departure_weight: weight, in that cross-entropy, of a labelled step
            where the expert's action differs from the proposal the network
            read (``prior``): the few decisions where a search expert improves
            on its base bot carry what imitation can add to the proposal, and
            are otherwise only their share of the labels (4-5% with the
            lookahead expert) of the loss.  1 = every label alike (also
            without ``prior``, where nothing is a departure).
        gain_weight: a departure's weight in that cross-entropy grows by
            ``gain_weight`` times its *search gain* (``departure_weight +
            gain_weight * gain``): how much better the search expert's
            rollouts scored its label than the proposal (mean score
            difference, in [0, 2]; 0 for experts that do not search).  The
            regret of following the proposal there, as in cost-sensitive
            classification (Lazaric et al. 2010, classification-based policy
            iteration): a departure that wins the game outweighs one the
            rollouts barely prefer.  0 = departures weighted alike.
        score_coef: weight of *score distillation*: at a decision the search
            expert searched, the cross-entropy from the softmax of its
            candidates' mean rollout scores (at ``score_temperature``) to the
            network's policy renormalised over those candidates, added to the
            loss (times the anchor in the PPO phase, like the labels): the
            teacher's ranking of every candidate it compared, not only its
            move (distilling a search's value estimates, as AlphaZero's
            policy target distils its visit counts; Silver et al. 2018).
            0 = none; needs an expert that reports search scores
            (``lookahead``).
        score_temperature: the temperature of that target, in score units
            (scores are in [-1, 1]; at 0.05 a candidate 0.1 better is 7.4
            times as likely).
        kl_policy: a ``policy.pt`` or ``ckpt_*.pt`` that PPO is kept near: at
            every learner step, ``kl_coef`` times ``KL(pi_ref || pi)`` over the
            legal actions joins the loss (KL-regularised fine-tuning, Jaques et
            al. 2019, Ziegler et al. 2019), an anchor that needs no expert
            labels and so no search (``imitation_coef = 0`` then makes PPO
            run at the speed of plain rollouts).  The collector runs it at
            every learner decision with its own recurrent state (and the same
            proposal, if it reads one); it must play this game's layouts.
            It is read from this path when the run starts and when it
            resumes (the checkpoint keeps the path, not its weights; one a
            config file names relatively is read from the file's folder and
            kept absolute, so the resume finds it from any folder).
            "" = none.
        kl_coef: that KL's weight (> 0 exactly when ``kl_policy`` is set).
        expert: the rule-based bot imitated (a registered agent name such as
            ``heuristic`` or ``belief``, or a shipped model's; not ``random``, ``human``,
            nor ``policy``, ``rllib`` or ``isolated``, which need an argument;
            ``ismcts`` works but is slow); read in any case (``"Heuristic"``) and stored
            as registered (:func:`agents.canonical_spec`).  One that labels
            (:attr:`labels_expert`) must play the game: the search bots
            (``ismcts``, ``lookahead``) play none with a CR 900 variant, a shipped
            model only its own table size (:meth:`check_bots`).

    Network (:mod:`agents.networks`):
        arch: "entity" (every legal action scored from the features of what it
            refers to) or "flat" (a fixed logit per action index).
        hidden: torso and GRU width.
        entity: width of the entity embeddings ("entity" only).
        privileged_critic: the value head also reads every seat's true role
            (training only; the actor never does).
        prior: "" (none) or a bot of :data:`agents.networks.PRIOR_BOTS`
            ("heuristic") whose proposed action the network reads at every
            decision, in training and at play time ("entity" only; residual
            policy learning, see :mod:`agents.networks`); read in any case and
            stored as registered (:func:`agents.canonical_spec`), as ``expert``.
        interaction: transformer blocks over the entity table before the
            actions are scored, so an action's key sees the other entities
            and the decision context (:class:`agents.networks.EntityInteraction`;
            0 = none; "entity" only).  Added to trained weights (``init``)
            without one, it starts as the identity.
        combat: add the combat features of the observer's creatures
            (:mod:`agents.combat`: the fights each would win, whether a
            counter-attack could be lethal) to their embeddings ("entity"
            only).  Added to trained weights (``init``) without them, it
            starts as the same policy.
        gate: width of an *advantage gate* (0 = none): an MLP that predicts
            the lookahead teacher's advantage of each of its candidates over
            the proposal (from ``gate_features``), fitted in every iteration
            to the teacher's scores of every batch of the run so far
            (:class:`training.gate.GateFit`: its own optimizer, the played
            weights a running average of the fitted ones); at play time the
            policy plays the best candidate where the prediction exceeds
            ``gate_threshold`` (:class:`agents.policy.PolicyAgent`).  Needs
            "entity", a ``prior`` and ``expert = "lookahead"``; the teacher
            labels every learner decision.  Rollouts are the network's own
            play (the gate acts at play time only).
        gate_threshold: that threshold, in the teacher's score units (scores in [-1, 1]).
        gate_features: what the gate reads, a key of :data:`agents.candidates.GATE_FEATURES`:
            ``"combat"`` (the combat features of the candidate and the proposal, the table's,
            the decision kind and the own role), ``"action"`` (those, and what each action
            is: its kind, the card it casts, an unveil's X; and the turn, hand and lands),
            ``"leader"`` (the combat features, and the same fights against the Leader and its
            position) or ``"all"`` (the three blocks; :mod:`agents.candidates`).
        gate_epochs: how many times each of the gate's examples is drawn on average over a
            run (the gate's minibatches per iteration are ``gate_epochs`` times the fresh
            examples over :data:`training.gate.GATE_MINIBATCH`, drawn from all of them).
        freeze_policy: only the gate learns: the PPO and imitation update is
            skipped, so the actor, critic and belief head stay ``init``'s
            (a gate fitted to a trained policy).  Needs ``gate``.

    Game:
        game: :class:`GameConfig` fields (default 5 players, standard rules).
    """

    run_dir: str = "runs/default"
    run_id: str = ""
    seed: int = 0
    total_steps: int = 2_000_000
    time_budget_s: float = 0.0
    checkpoint_every: int = 10
    keep_checkpoints: int = 3
    init: str = ""
    workers: int = 1
    ray_address: str = ""
    games_per_worker: int = 64
    rollout_steps: int = 4096
    policy_lag: int = 0
    opponents: dict = field(default_factory=_default_opponents)
    pool_size: int = 5
    snapshot_every: int = 10
    learning_rate: float = 1e-3
    lr_schedule: str = "linear"
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip: float = 0.2
    value_clip: float = 0.0
    vf_coef: float = 0.5
    ent_coef: float = 0.005
    belief_coef: float = 0.25
    epochs: int = 2
    minibatch_steps: int = 1024
    bptt: int = 16
    max_grad_norm: float = 1.0
    target_kl: float = 0.05
    update_dtype: str = "auto"
    deterministic: bool = False
    imitation: float = 0.5
    imitation_coef: float = 0.5
    departure_weight: float = 1.0
    gain_weight: float = 0.0
    score_coef: float = 0.0
    score_temperature: float = 0.05
    kl_policy: str = ""
    kl_coef: float = 0.0
    anchor_schedule: str = "constant"
    expert: str = "heuristic"
    solo: float = 0.0
    solo_roles: list = field(default_factory=list)
    arch: str = "flat"
    hidden: int = 256
    entity: int = 64
    privileged_critic: bool = False
    prior: str = ""
    interaction: int = 0
    combat: bool = False
    gate: int = 0
    gate_threshold: float = 0.01
    gate_features: str = "combat"
    gate_epochs: int = 10
    freeze_policy: bool = False
    game: dict = field(default_factory=lambda: {"num_players": 5})

    def __post_init__(self) -> None:
        """Read bot names in any case (``expert``, ``prior``, the ``opponents`` keys: stored as
        registered, so ``config.json`` records one spelling) and the keyword fields too (``arch``,
        ``lr_schedule``, ``anchor_schedule``, ``gate_features``, ``update_dtype``: stored in lower case), then
        :meth:`validate`.

        Raises:
            ValueError: for two ``opponents`` keys naming one kind in different cases, or
                any field :meth:`validate` refuses.
        """
        if isinstance(self.expert, str):
            self.expert = agents.canonical_spec(self.expert)
        if isinstance(self.prior, str):
            self.prior = agents.canonical_spec(self.prior)
        if isinstance(self.opponents, dict):
            self.opponents = _opponents_table(self.opponents)
        for name in _KEYWORD_FIELDS:
            if isinstance(getattr(self, name), str):
                setattr(self, name, getattr(self, name).casefold())
        self.validate()

    def validate(self) -> None:
        """Check every field.

        Raises:
            ValueError: naming the first bad field, its value and what is allowed.
        """
        def need(ok: bool, name: str, allowed: str) -> None:
            if not ok:
                raise ValueError(f"train config: {name} = {toml_literal(getattr(self, name))} is invalid; "
                                 f"allowed: {allowed}")

        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        def is_num(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool)

        need(isinstance(self.run_dir, str) and bool(self.run_dir), "run_dir", "a non-empty path")
        need(isinstance(self.init, str), "init", "a checkpoint path, or \"\" for random initial weights")
        need(isinstance(self.ray_address, str) and self.ray_address.strip() == self.ray_address, "ray_address",
             "\"\" (worker processes here), \"default\" (ray.init()) or a Ray address such as \"auto\", "
             "\"HOST:6379\" or \"ray://HOST:10001\"")
        need(isinstance(self.run_id, str) and re.fullmatch(r"([0-9a-f]{32})?", self.run_id) is not None, "run_id",
             "\"\" or 32 hex digits (uuid4().hex)")
        for name in ("seed",):
            need(is_int(getattr(self, name)) and getattr(self, name) >= 0, name, "an int >= 0")
        for name in ("total_steps", "checkpoint_every", "keep_checkpoints", "workers", "games_per_worker",
                     "rollout_steps", "pool_size", "snapshot_every", "epochs", "minibatch_steps", "bptt", "hidden",
                     "entity", "gate_epochs"):
            need(is_int(getattr(self, name)) and getattr(self, name) >= 1, name, "an int >= 1")
        need(is_int(self.policy_lag) and self.policy_lag in (0, 1), "policy_lag",
             "0 (collect, then update) or 1 (collect the next batch while updating)")
        need(is_num(self.time_budget_s) and 0 <= self.time_budget_s <= MAX_TIME_BUDGET_S, "time_budget_s",
             f"seconds from 0 (no limit) to {MAX_TIME_BUDGET_S:g} (a year)")
        need(is_num(self.learning_rate) and 0 < self.learning_rate <= 1, "learning_rate", "a number in (0, 1]")
        need(self.lr_schedule in ("linear", "constant"), "lr_schedule", "'linear' or 'constant'")
        need(self.update_dtype in UPDATE_DTYPES, "update_dtype", ", ".join(repr(d) for d in UPDATE_DTYPES))
        need(isinstance(self.deterministic, bool), "deterministic", "true or false")
        for name in ("gamma", "gae_lambda"):
            need(is_num(getattr(self, name)) and 0 <= getattr(self, name) <= 1, name, "a number in [0, 1]")
        need(is_num(self.clip) and 0 < self.clip < 1, "clip", "a number in (0, 1)")
        for name in ("vf_coef", "ent_coef", "belief_coef", "imitation_coef"):
            need(is_num(getattr(self, name)) and 0 <= getattr(self, name) <= MAX_WEIGHT, name,
                 f"a number in [0, {MAX_WEIGHT:g}]")
        for name in ("value_clip", "max_grad_norm", "target_kl"):
            need(is_num(getattr(self, name)) and 0 <= getattr(self, name) < math.inf, name, "a finite number >= 0")
        need(self.minibatch_steps >= self.bptt, "minibatch_steps", f"an int >= bptt ({self.bptt})")
        kinds = [*OPPONENT_KINDS, *agents.NAMED_MODELS]
        allowed = f"{list(OPPONENT_KINDS)} or the shipped models {sorted(agents.NAMED_MODELS)}"
        if isinstance(self.opponents, dict) and not set(self.opponents) <= set(kinds):    # a misspelt kind, named
            unknown = sorted((k for k in self.opponents if k not in kinds), key=str)
            hint = did_you_mean([k for k in unknown if isinstance(k, str)], kinds)
            raise ValueError(f"train config: unknown opponents {unknown}{hint}; allowed: {allowed}")
        need(isinstance(self.opponents, dict)
             and all(is_num(w) and 0 <= w <= MAX_WEIGHT for w in self.opponents.values())
             and sum(self.opponents.values()) > 0, "opponents",
             f"a table of weights from 0 to {MAX_WEIGHT:g} over {allowed} with a positive sum")
        need(is_num(self.imitation) and 0 <= self.imitation < 1, "imitation", "a fraction in [0, 1)")
        need(is_num(self.departure_weight) and 0 < self.departure_weight <= MAX_WEIGHT, "departure_weight",
             f"a number in (0, {MAX_WEIGHT:g}]")
        need(isinstance(self.kl_policy, str), "kl_policy", "a checkpoint path, or \"\" for none")
        need(is_num(self.kl_coef) and 0 <= self.kl_coef <= MAX_WEIGHT, "kl_coef", f"a number in [0, {MAX_WEIGHT:g}]")
        need((self.kl_coef > 0) == bool(self.kl_policy), "kl_policy" if self.kl_policy else "kl_coef",
             "kl_policy names a checkpoint exactly when kl_coef > 0 (both, or neither)")
        need(is_num(self.gain_weight) and 0 <= self.gain_weight <= MAX_WEIGHT, "gain_weight",
             f"a number in [0, {MAX_WEIGHT:g}]")
        need(is_num(self.score_coef) and 0 <= self.score_coef <= MAX_WEIGHT, "score_coef",
             f"a number in [0, {MAX_WEIGHT:g}]")
        need(is_num(self.score_temperature) and 0 < self.score_temperature <= 10, "score_temperature",
             "a number in (0, 10]")
        need(is_num(self.solo) and 0 <= self.solo <= 1, "solo", "a probability in [0, 1]")
        role_names = [r.name.lower() for r in Role]
        solo_roles, why = None, " (a list, not one name)"
        if isinstance(self.solo_roles, list):
            try:
                solo_roles, why = [r.name.lower() for r in Role.parse_many(self.solo_roles)], ""
            except ValueError as err:
                why = f" ({err})"
        need(solo_roles is not None, "solo_roles",
             f"a list of distinct role names from {role_names} ([] = every role){why}")
        need(not solo_roles or (self.solo > 0 and any(w > 0 for k, w in self.opponents.items() if k != "self")),
             "solo_roles", "[] unless solo > 0 and opponents give weight to games that are not self-play "
             "(it limits the role of the learner's one seat in those)")
        if solo_roles:
            dealt = {r.name.lower() for r, c in self.game_config().distribution().items() if c}
            need(bool(dealt & set(solo_roles)), "solo_roles",
                 f"roles this game's identity deck deals: {sorted(dealt)}")
        need(self.anchor_schedule in ("constant", "linear"), "anchor_schedule", "'constant' or 'linear'")
        need(self.arch in ("flat", "entity"), "arch", "'flat' or 'entity'")
        need(isinstance(self.privileged_critic, bool), "privileged_critic", "true or false")
        need(self.prior in ("", *PRIOR_BOTS), "prior", f"\"\" (none) or one of {list(PRIOR_BOTS)}")
        need(not self.prior or self.arch == "entity", "prior", "\"\" with arch = 'flat' (only the entity "
             "network reads a proposal)")
        need(is_int(self.interaction) and self.interaction >= 0 and (self.interaction == 0 or self.arch == "entity"),
             "interaction", "an int >= 0, and 0 with arch = 'flat'")
        need(not self.interaction or self.entity % INTERACTION_HEADS == 0, "entity",
             f"a multiple of {INTERACTION_HEADS} with interaction > 0 (the blocks' attention heads)")
        need(isinstance(self.combat, bool) and (not self.combat or self.arch == "entity"), "combat",
             "true or false, and false with arch = 'flat'")
        experts = sorted(set(agents.available(bare=True)) - {"human", "random"})
        need(self.expert in experts, "expert", f"one of {experts}")
        need(is_int(self.gate) and self.gate >= 0, "gate", "an int >= 0 (0 = no advantage gate)")
        need(isinstance(self.gate_features, str) and self.gate_features in GATE_FEATURES, "gate_features", " or ".join(map(toml_literal, GATE_FEATURES)))
        need(is_num(self.gate_threshold) and 0 <= self.gate_threshold < 2, "gate_threshold",
             "a number in [0, 2) (an advantage over the proposal in score units; scores lie in [-1, 1])")
        need(not self.gate or (self.arch == "entity" and self.prior), "gate",
             "0 unless arch = 'entity' and a prior (the gate weighs candidates against the proposal)")
        need(not self.gate or self.expert == "lookahead", "expert",
             "'lookahead' with a gate (the gate learns the lookahead teacher's candidate scores)")
        need(isinstance(self.freeze_policy, bool) and (not self.freeze_policy or self.gate > 0), "freeze_policy",
             "true or false, and false without a gate (nothing would learn)")
        need(isinstance(self.game, dict), "game", "a table of GameConfig fields")
        self.game_config()   # raises ValueError naming the game.FIELD key
        self.check_bots()

    def bots(self) -> list[tuple[str, str]]:
        """The bots a run makes, as ``(setting, spec)``: the ``expert`` where it labels
        (:attr:`labels_expert`), the ``prior``, and each bot of ``opponents`` with a positive
        weight (``"opponents.flagship"``)."""
        out = [(f"expert = {toml_literal(self.expert)}", self.expert)] if self.labels_expert else []
        if self.prior:
            out.append((f"prior = {toml_literal(self.prior)}", self.prior))
        out += [(f"opponents.{kind}", kind) for kind, weight in self.opponents.items()
                if weight > 0 and kind not in ("self", "pool")]
        return out

    def check_bots(self, shipped: bool = False) -> None:
        """Refuse a bot of the run (:meth:`bots`) that cannot play its game (:func:`agents.check_table`:
        a search bot in a game with a CR 900 variant, a trained policy made for another table size
        or game), or, in a ``deterministic`` run, one that decides by the clock (a ``time_budget``
        that is not None, the seconds a decision :class:`agents.ismcts.ISMCTSAgent` can take
        instead of its iterations: the registered ``ismcts`` searches a fixed 24, so only a bot
        registered at run time, :func:`agents.register`, can be one), before anything is done.
        :meth:`validate` checks the rule-based bots; ``shipped`` checks the shipped models instead
        (:data:`agents.NAMED_MODELS`), which read their policy file (:func:`training.ppo.train`,
        before the run folder is made).

        Raises:
            ValueError: one line naming the setting, the bot and why.
        """
        game = self.game_config()
        for setting, spec in self.bots():
            if (spec in agents.NAMED_MODELS) != shipped:
                continue
            try:
                bot = agents.make(spec, seed=0)
                agents.check_table(bot, spec, game.num_players, game)
            except ValueError as err:
                raise ValueError(f"train config: {setting} cannot play this game: {err}") from None
            budget = getattr(bot, "time_budget", None)
            if self.deterministic and budget is not None:
                raise ValueError(f"train config: {setting} decides by the clock (time_budget = {budget!r} s a "
                                 f"decision), so deterministic = true could not repeat its labels or games; give "
                                 f"a bot that searches a fixed number of iterations instead (time_budget = None, "
                                 f"iterations = N, as the registered 'ismcts' searches 24)")

    @property
    def labels_expert(self) -> bool:
        """Whether the expert labels learner decisions (an imitation phase, an anchor or a gate to fit)."""
        return self.imitation > 0 or self.imitation_coef > 0 or self.gate > 0

    @property
    def expert_searches(self) -> bool:
        """Whether the expert reports search scores with its labels (its bot has ``last_scores``,
        as :class:`agents.lookahead.LookaheadAgent` does): a labelled rollout then carries
        ``expert_scores`` (:meth:`training.rollout.Collector.collect`), which the search gain,
        ``score_coef`` and the advantage gate read."""
        return hasattr(agents.make(self.expert), "last_scores")

    def network_kwargs(self, obs_size: int, num_actions: int) -> dict:
        """The ``model_kwargs`` of this run's network (:func:`agents.networks.build_network`)
        for observations of ``obs_size`` and ``num_actions`` actions."""
        n = int(self.game_config().num_players)
        kw: dict = {"obs_size": obs_size, "num_actions": num_actions, "num_players": n, "hidden": self.hidden}
        if self.arch == "entity":
            kw = {"arch": "entity", **kw, "entity": self.entity}
        if self.privileged_critic:
            kw["privileged_size"] = 4 * n          # training.rollout.privileged_features
        if self.prior:
            kw["prior"] = self.prior
        if self.interaction:
            kw["interaction"] = self.interaction
        if self.combat:
            kw["combat"] = True
        if self.gate:
            kw["gate"] = self.gate
            kw["gate_threshold"] = float(self.gate_threshold)
            if self.gate_features != "combat":
                kw["gate_features"] = self.gate_features
        return kw

    def anchor_coef(self, progress: float) -> float:
        """The behaviour-cloning anchor's weight at run ``progress`` in [0, 1] (see ``anchor_schedule``)."""
        if self.anchor_schedule == "constant" or progress <= self.imitation:
            return float(self.imitation_coef)
        return float(self.imitation_coef) * max(0.0, 1.0 - (progress - self.imitation) / (1.0 - self.imitation))

    def game_config(self) -> GameConfig:
        """The :class:`GameConfig` of the training games.

        Raises:
            ValueError: for an invalid ``game`` table (from GameConfig, the field named as this
                config's key, ``game.starting_life``), or a game other than Treachery.
        """
        from table.options import renamed

        try:
            config = GameConfig.from_dict(dict(self.game))
        except ValueError as err:       # "GameConfig.starting_life: ..." -> "game.starting_life: ..."
            raise renamed(err, {f.name: f"game.{f.name}" for f in dataclasses.fields(GameConfig)}) from None
        if config.game != "treachery":
            raise ValueError(f"game.game: training plays Treachery only; {config.game!r} has no policy network yet "
                             f"(its observation layout differs)")
        return config

    def to_dict(self) -> dict:
        """Plain-data form (JSON/TOML-friendly), as stored in checkpoints."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "TrainConfig":
        """Build from a dict such as :meth:`to_dict` or a parsed TOML file.

        Raises:
            ValueError: for unknown keys (listing the known ones) or invalid values.
        """
        if not isinstance(d, dict):
            raise ValueError(f"train config must be a table, got {type(d).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            hint = did_you_mean(unknown, known)      # the key meant, or else every key
            raise ValueError(f"train config: unknown keys {unknown}" + (hint or f"; known: {sorted(known)}"))
        d = dict(d)
        if "opponents" in d and isinstance(d["opponents"], dict):
            d["opponents"] = dict(d["opponents"])
        return cls(**d)


_GATE_SETTINGS = ("gate_threshold", "gate_features", "gate_epochs")
"""Settings of the advantage gate, unused without one (``gate = 0``)."""


def parse_override(config: dict, item: str) -> None:
    """Apply one ``key=value`` override (``a.b=v`` for nested tables) to a config dict in place
    (an ``opponents.KIND`` key read in any case, as :class:`TrainConfig` reads its keys).

    Raises:
        ValueError: without ``=``, or when the value is not a TOML literal.
    """
    key, eq, raw = item.partition("=")
    key = key.strip()
    if not eq or not key:
        raise ValueError(f"override {item!r} must look like key=value (e.g. learning_rate=1e-4)")
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()   # a bare word: a string
    parts = key.split(".")
    if len(parts) == 2 and parts[0] == "opponents":
        parts[1] = _opponent_kind(parts[1])     # "opponents.Heuristic=0.5" sets the default's "heuristic"
    d = config
    for p in parts[:-1]:
        if not isinstance(d.get(p, {}), dict):
            raise ValueError(f"override {item!r}: {p!r} is not a table")
        d = d.setdefault(p, {})
    d[parts[-1]] = value


def recorded_config(config: TrainConfig) -> dict:
    """:meth:`TrainConfig.to_dict` as a run records it in its folder (``config.json``, checkpoints,
    whose ``meta["input_paths"]`` says so: :data:`RUN_RELATIVE`): ``init`` and ``kl_policy``
    relative to ``run_dir`` (from the files' real locations, symbolic links followed), so that the
    run folder moved or shared together with them still names them (:func:`checkpoint_config`)."""
    d = config.to_dict()
    run = Path(config.run_dir).resolve()
    for k in INPUT_PATHS:
        if d[k]:
            d[k] = os.path.relpath(Path(d[k]).resolve(), run)
    return d


def checkpoint_config(payload: dict, path: str | os.PathLike) -> dict:
    """The training configuration (a dict) that the checkpoint at ``path`` records (``payload``:
    :func:`agents.policy.load_checkpoint`'s), with ``init`` and ``kl_policy`` read from the
    checkpoint's folder (made absolute) where it records them relative to it
    (:func:`recorded_config`); an older checkpoint's as it holds them."""
    d = dict(payload.get("train_config") or {})
    if (payload.get("meta") or {}).get("input_paths") == RUN_RELATIVE:
        for k in INPUT_PATHS:
            if isinstance(d.get(k), str) and d[k] and not Path(d[k]).is_absolute():
                d[k] = str((Path(path).parent / d[k]).resolve())
    return d


SHIPPED_CONFIGS = Path(__file__).resolve().parent / "configs"
"""The folder of the shipped configs (``training/configs``; in an installed wheel, the package
``training.configs``)."""


def _from_config_folder(config_file: Path, relative: str) -> Path:
    """``relative``, a file a config file names, read from that file's folder.  A shipped config
    (in :data:`SHIPPED_CONFIGS`) names the shipped models as the source tree lays them out,
    ``../../checkpoints/NAME/policy.pt``; where that file is not there (a wheel installs
    ``checkpoints/`` as the package ``treachery_checkpoints``, :data:`agents.models.CHECKPOINTS`),
    it is read from the installed models instead."""
    path = (config_file.parent / relative).resolve()
    parts = Path(relative).parts
    if path.exists() or config_file.resolve().parent != SHIPPED_CONFIGS or "checkpoints" not in parts:
        return path
    from agents.models import CHECKPOINTS

    after = parts[len(parts) - parts[::-1].index("checkpoints"):]       # NAME/policy.pt
    installed = CHECKPOINTS.joinpath(*after)
    return installed.resolve() if installed.exists() else path


def load_config(path: str | Path | None = None, overrides: list[str] = ()) -> TrainConfig:
    """The defaults, updated by a TOML file (if given), then by ``key=value`` overrides.

    Tables (``game``, ``opponents``) are merged key by key with the defaults; to
    drop an opponent kind, set its weight to 0.  A relative ``init`` or ``kl_policy``
    in the file is read from the file's folder (made absolute); one in an override, and
    ``run_dir`` anywhere, from the current folder (module docstring).

    Raises:
        ValueError: for a missing or malformed file, unknown keys, invalid values, or a setting
            of the advantage gate given (in the file or an override) with ``gate = 0``.
    """
    d = TrainConfig().to_dict()
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"config file {str(p)!r} " + ("is a folder, not a TOML file" if p.is_dir()
                                                             else "does not exist"))
        try:
            data = tomllib.loads(p.read_text())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
            raise ValueError(f"config file {str(p)!r} is not valid TOML: {err}") from err
        if isinstance(data.get("opponents"), dict):     # its keys as the defaults spell them, before merging
            data["opponents"] = _opponents_table(data["opponents"])
        for k in INPUT_PATHS:                            # the files it names, from its own folder
            if isinstance(data.get(k), str) and data[k] and not Path(data[k]).is_absolute():
                data[k] = str(_from_config_folder(p, data[k]))
        for k, v in data.items():
            if isinstance(v, dict) and isinstance(d.get(k), dict):
                d[k] = {**d[k], **v}
            else:
                d[k] = v
    given = set(data) if path is not None else set()
    for item in overrides:
        parse_override(d, item)
        given.add(item.partition("=")[0].strip().split(".")[0])
    if "run_id" in given:
        raise ValueError("train config: run_id is the run's identity, drawn when a new run starts and kept by its "
                         "resumes; it cannot be set")
    config = TrainConfig.from_dict(d)
    idle = sorted(given & set(_GATE_SETTINGS)) if not config.gate else []
    if idle:                # silently unused otherwise: TrainConfig cannot tell a set value from its default
        raise ValueError(f"train config: {', '.join(idle)} set but gate = 0 (no advantage gate to use "
                         f"{'it' if len(idle) == 1 else 'them'}); set gate > 0 or remove {' and '.join(idle)}")
    return config
