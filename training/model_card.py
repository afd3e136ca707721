"""Shipped checkpoints: export a run's policy with a model card (issue 5).

``treachery export RUN_DIR --out checkpoints/NAME --results DIR [DIR ...]``
copies the run's bare policy (``policy.pt``, no optimizer or pool) to
``checkpoints/NAME/policy.pt`` and writes ``MODEL_CARD.md`` next to it: what
the policy is, the game and training configuration, training steps, wall time,
throughput and machine (from the checkpoint and ``metrics.jsonl``), and every
evaluation given (``results.json`` files written by :func:`training.evaluate.evaluate`):
per-role win rates with 95% intervals, substitution deltas, and the belief
head's deduction accuracy by turn.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

import agents
from agents.candidates import GATE_READS
from agents.policy import read_checkpoint

from agents.files import atomic_write_bytes, check_folder, write_new_file
from agents.models import CHECKSUM_LINE

from .config import RUN_RELATIVE
from .evaluate import (WINRATE_INTERVALS, deduction_unit, format_mean, per_role_table, read_results, social_tables,
                       substitution_table)
from .run_lock import check_not_in_use, saved_by_a_training

__all__ = ["export_policy", "model_card", "training_summary", "throughput_text"]

MAX_SHIPPED_BYTES = 20 * 1024 * 1024


def training_summary(run_dir: str | os.PathLike, upto_iteration: int | None = None) -> dict:
    """Totals of a run from its ``metrics.jsonl``: iterations, learner steps,
    wall time [s], games, and throughput means over the run (learner and all
    agent-steps per second, end-to-end including the PPO update), the
    imitation phase's length [iterations] and its last agreement with the
    expert (top-1, ``None`` without one), the belief head's accuracy over the
    last 10 iterations and the last entropy (``None`` for a run that trained
    no policy, ``freeze_policy``), counting
    iterations up to ``upto_iteration`` (default: all; iterations after the
    last checkpoint are not in its policy).

    Raises:
        ValueError: if the run has no ``metrics.jsonl``, it is empty, or a
            line other than a torn last one is not a record (naming the file
            and line, :func:`training.ppo.read_metrics`).
    """
    from .ppo import read_metrics

    path = Path(run_dir) / "metrics.jsonl"
    if not path.is_file():
        raise ValueError(f"{str(path)!r} not found: is {str(run_dir)!r} a training run directory?")
    rows = read_metrics(path)
    if upto_iteration is not None:
        rows = [r for r in rows if r["iteration"] <= upto_iteration]
    if not rows:
        raise ValueError(f"{str(path)!r} is empty")
    last = rows[-1]
    imitating = [r for r in rows if r.get("imitating")]
    return {"imitation_iterations": len(imitating),
            "imitation_accuracy_last": imitating[-1]["imitation_accuracy"] if imitating else None,
            "iterations": last["iteration"], "steps": last["steps"], "wall_s": last["wall_s"],
            "games": last.get("games"),
            "learner_steps_per_s": last["steps"] / last["wall_s"] if last["wall_s"] else None,
            "agent_steps_per_s_mean": float(np.mean([r["perf/agent_steps_per_s"] for r in rows])),
            "belief_accuracy_last10": (float(np.nanmean([r["belief_accuracy"] for r in rows[-10:]]))
                                       if all("belief_accuracy" in r for r in rows[-10:]) else None),
            "entropy_last": last.get("entropy")}


def throughput_text(run: dict) -> str:
    """The throughput of a run (:func:`training_summary`) in words, as the model
    card and the end of ``treachery train`` say it: learner agent-steps/s (the
    policy's own decisions per second of wall time, end-to-end over the run)
    first, then all agent-steps/s (the bots' decisions too), labelled as such."""
    learner = run["learner_steps_per_s"]
    head = f"{learner:.0f} learner agent-steps/s" if learner is not None else "– learner agent-steps/s"
    return (f"{head} end-to-end over the run (rollouts and updates); {run['agent_steps_per_s_mean']:.0f} "
            "all agent-steps/s, counting the bots' decisions too")


def _deduction_table(res: dict, label: str) -> str:
    """The belief head's scores on face-down opponents, overall and by band of turns (the
    evaluator's ``by_band``), with the 95% intervals over deals (over games in results written before
    they were clustered by deal, :func:`training.evaluate.deduction_unit`) where the results carry them."""
    d = (res.get("deduction") or {}).get(label)
    if not d:
        return ""
    o = d["overall"]
    ci = format_mean
    unit = deduction_unit(o)
    drawn = f" in {o[unit]} {unit[:-1] if o[unit] == 1 else unit}" if unit in o else ""
    lines = [f"Belief head on face-down opponents ({o['n']} scored beliefs{drawn}; 95% intervals over {unit}): "
             f"top-1 accuracy {ci(o, 'top1')} (public-count prior {o['prior_top1']:.3f}), p(true role) "
             f"{ci(o, 'p_true')} (prior {o['prior_p_true']:.3f}), log-loss {ci(o, 'logloss')} "
             f"(prior {o['prior_logloss']:.3f}).", ""]
    bands = d.get("by_band")
    if bands is None:
        return "\n".join(lines + ["(These results predate the table by turns: evaluate again for it.)"])
    lines += ["| turns | n | top-1 | prior top-1 | p(true) | prior p(true) |", "|---|---|---|---|---|---|"]
    for b in bands:
        first, last = b["turns"]
        lines.append(f"| {first}–{last if last is not None else '…'} | {b['n']} | {ci(b, 'top1')} | "
                     f"{b['prior_top1']:.3f} | {ci(b, 'p_true')} | {b['prior_p_true']:.3f} |")
    return "\n".join(lines)


def _count(v: Any) -> str:
    """An integer with thousands separators, or ``?`` when the checkpoint does not record it."""
    return f"{v:,}" if isinstance(v, int) else "?"


def _hours(v: Any) -> str:
    """Seconds as hours with two decimals, or ``?`` when the checkpoint does not record them."""
    return f"{v / 3600:.2f}" if isinstance(v, (int, float)) and not isinstance(v, bool) else "?"


def _solo_roles(value: Any) -> tuple[list[str] | None, str]:
    """A run's ``solo_roles`` read as :meth:`treachery_env.rules.Role.parse_many` reads them: ``(lower-case
    names, "")`` (``[]``: every role), or ``(None, why)`` where they are not role names (the card then
    shows the value as held: it renders whatever a file holds)."""
    from treachery_env.rules import Role

    try:
        return [r.name.lower() for r in Role.parse_many(value or [])], ""
    except (TypeError, ValueError) as err:
        return None, str(err).splitlines()[0] if str(err) else type(err).__name__


def _roles_text(value: Any) -> str:
    """A run's ``solo_roles`` in words (``Assassin or Guardian``), or the value as held where they are not
    role names."""
    roles, why = _solo_roles(value)
    return " or ".join(r.capitalize() for r in roles) if roles else f"{value!r} (not read as roles: {why})"


def _donor_run(src: dict, file: bool = False) -> str:
    """How the card names the run that fitted a grafted gate (``meta["role_gates"][role]``,
    :func:`training.gate.graft_role_gate`): its run folder (``run_dir`` of the donor's training
    configuration) where the donor records one, else the donor file; with ``file``, then the
    donor file (where the run folder named the run) and its SHA-256 in brackets."""
    run_dir = (src.get("donor_train_config") or {}).get("run_dir")
    sha = f"SHA-256 {str(src.get('sha256', '?'))[:12]}..."
    if isinstance(run_dir, str) and run_dir.strip():
        return f"the run `{run_dir}`" + (f" (its policy `{src['donor']}`, {sha})" if file else "")
    return f"the run of `{src['donor']}`" + (f" ({sha})" if file else "")


def _init_from_run(tc: dict, meta: dict) -> bool:
    """Whether the ``init`` that a run's configuration ``tc`` records is a path from its run folder
    (the run recorded it so, ``meta["input_paths"]``: :data:`training.config.RUN_RELATIVE`)."""
    init = tc.get("init")
    return bool(meta.get("input_paths") == RUN_RELATIVE and init and not Path(init).is_absolute())


def _grafted_line(role: str, src: dict) -> str:
    """The facts line of a grafted gate's own run: its learner steps, iterations, games and wall
    time (the donor's ``meta``), which the base's "training" line does not count."""
    m, tc = src.get("donor_meta") or {}, src.get("donor_train_config") or {}
    frozen = (f"; it fitted only that gate (`freeze_policy`), every other weight `{tc.get('init')}`'s"
              + (", a path from that run's folder" if _init_from_run(tc, m) else "") if tc.get("freeze_policy") else "")
    return (f"* grafted gate for a seat dealt {role}: fitted by {_donor_run(src)} in {_count(m.get('steps'))} "
            f"learner agent-steps in {_count(m.get('iteration'))} iteration{'' if m.get('iteration') == 1 else 's'}, "
            f"{_count(m.get('games'))} game{'' if m.get('games') == 1 else 's'}, {_hours(m.get('wall_s'))} h wall "
            f"time{frozen} (not counted in the training line above)")


def model_card(policy: str | os.PathLike, name: str, results: Sequence[dict] = (), run: dict | None = None,
               notes: str = "", by_name: bool = False, caveats: Sequence[str] = ()) -> str:
    """The model card (markdown) of a shipped policy.

    Args:
        policy: the (bare) checkpoint file.
        name: the checkpoint's name (the folder under ``checkpoints/``).
        results: evaluation result dicts (:func:`training.evaluate.evaluate`).
        run: :func:`training_summary` of the run, if known.
        notes: free text appended under "Notes".
        by_name: the card tells its readers to load the policy by ``name`` (a shipped model,
            ``agents.make("flagship")``, from any folder); else as ``policy:policy.pt:greedy``
            from the card's own folder (:func:`_load_line`).
        caveats: paragraphs printed at the top of the Evaluation section
            (e.g. that a result's games were played by another file).

    Raises:
        ValueError: for an unreadable checkpoint.
    """
    payload, data = read_checkpoint(policy)        # read once: the card's size and checksum are of the bytes read
    meta, tc, gc = payload["meta"], payload["train_config"], payload["game_config"]
    kw = payload["model_kwargs"]
    params = sum(int(np.prod(v.shape)) for v in payload["model_state"].values())
    size = len(data)
    if kw.get("arch") == "entity":
        net = (f"entity network (`agents/networks.py`: entity embeddings {kw['entity']}, torso and GRU "
               f"{kw['hidden']}, each of {kw['num_actions']} actions scored from the entity it refers to; "
               f"observation {kw['obs_size']})")
    else:
        net = (f"flat network (`agents/networks.py`): encoder {kw['obs_size']}→{kw['hidden']}→{kw['hidden']}, "
               f"GRU {kw['hidden']}, {kw['num_actions']} actions")
    critic = (f"; privileged critic (the value head also reads every seat's true role, {kw['privileged_size']} "
              "features, in training only)" if kw.get("privileged_size") else "")
    if kw.get("prior"):
        critic += (f"; proposal input (at every decision the network also reads the action the `{kw['prior']}` "
                   "bot proposes from the same seat view, and decides; no search)")
    if kw.get("interaction"):
        critic += f"; {kw['interaction']} interaction block(s) over the entity table"
    if kw.get("combat"):
        critic += ("; combat features (`agents/combat.py`: the fights each of its creatures would win or lose, "
                   "read off the observation) added to its creatures' embeddings")
    if kw.get("gate"):
        reads = GATE_READS[kw.get("gate_features", "combat")]
        critic += (f"; advantage gate (an MLP of width {kw['gate']} on {reads} predicts how much "
                   "better the lookahead bot's rollouts score each of its candidates than the proposal; where one "
                   f"is predicted more than {kw['gate_threshold']:g} better, it is played; no search)")
    grafted = []           # the facts lines of the grafted gates' own runs
    for role, g in kw.get("role_gates", {}).items():
        src = meta.get("role_gates", {}).get(role, {})
        raw = (src.get("donor_train_config") or {}).get("solo_roles")
        roles, why = _solo_roles(raw)
        if roles is None:
            fitted = f"fitted with its run's solo_roles = {raw!r} (not read as roles: {why})"
        elif not roles:
            fitted = "fitted to every role's decisions"
        elif roles == [role]:
            fitted = "fitted to that role's decisions alone"
        else:
            fitted = f"fitted to {' and '.join(roles)} decisions alone"
        critic += (f"; for a seat dealt {role}, a gate of its own (width {g['gate']} on "
                   f"{GATE_READS[g['gate_features']]}, threshold {g['gate_threshold']:g}), " + fitted
                   + (f" by {_donor_run(src, file=True)}" if src.get("donor") else "")
                   + "; `treachery graft`")
        if src.get("donor"):
            grafted.append(_grafted_line(role, src))
    for role in kw.get("gate_only", []):
        critic += (f"; a seat dealt {role} leaves the proposal only where its gate departs (`treachery graft "
                   "--gate-only`): elsewhere it plays the proposal, not the network's own choice")
    from_run = _init_from_run(tc, meta)
    out = [f"# Model card: `{name}`", "",
           f"A trained policy for {gc['num_players']}-player Treachery (recurrent actor-critic with a "
           "role-belief head; how it was trained is under Facts and Training configuration). "
           + _load_line(name, by_name, bool(results)), "",
           "## Facts", "",
           f"* network: {net}{critic}; {params:,} parameters; file {size / 1e6:.1f} MB",
           CHECKSUM_LINE.format(hashlib.sha256(data).hexdigest()),
           f"* training: {_count(meta.get('steps'))} learner agent-steps in {_count(meta.get('iteration'))} "
           f"iteration{'' if meta.get('iteration') == 1 else 's'}, {_count(meta.get('games'))} "
           f"game{'' if meta.get('games') == 1 else 's'}, {meta.get('wall_s', 0) / 3600:.2f} h wall time"
           + (" (the base policy's run; the grafted gates' runs are below)" if grafted else ""),
           *([f"* graft: the policy `{meta['graft_base'].get('file', '?')}` (SHA-256 "
              f"{str(meta['graft_base'].get('sha256', '?'))[:12]}...) with the gates of other runs for some roles "
              "(`treachery graft`; below); the training, warm start and frozen policy lines are that policy's "
              "run's, with the paths as it recorded them"] if isinstance(meta.get("graft_base"), dict) else []),
           *([f"* warm start: the run began from the weights of `{tc['init']}` (the steps and hours above are "
              f"this run's alone{'; the path is from the run folder' if from_run else ''})"] if tc.get("init") else []),
           *([f"* frozen policy: this run fitted only the advantage gate (`freeze_policy`); every other weight "
              f"is `{tc.get('init')}`'s, unchanged{' (the path is from the run folder)' if from_run else ''}"]
             if tc.get("freeze_policy") else []),
           *([f"* learner's role: in its games against bots the learner's one seat was always dealt "
              f"{_roles_text(tc['solo_roles'])} (`solo_roles`), so what "
              f"it learnt it learnt from that role's decisions alone"] if tc.get("solo_roles") else []),
           *grafted,
           f"* machine: {meta.get('machine', '?')}",
           f"* treachery_env {payload['env_version']}, torch {payload.get('torch_version', '?')}"]
    if run:
        out.append(f"* throughput: {throughput_text(run)}")
        if run.get("imitation_iterations"):
            out.append(f"* imitation warm start (DAgger): the first {run['imitation_iterations']} iterations "
                       f"imitated the `{tc.get('expert', 'heuristic')}` bot; agreement with it at the end of that "
                       f"phase {run['imitation_accuracy_last']:.3f} (top-1 on the learner's decisions)"
                       + (", then PPO" if run["iterations"] > run["imitation_iterations"] else
                          " (the run ended in that phase: no PPO)"))
        if run["belief_accuracy_last10"] is not None:      # None: a frozen policy's run trained no belief head
            out.append(f"* belief-head accuracy in training (last 10 iterations, face-down opponents): "
                       f"{run['belief_accuracy_last10']:.3f}")
    out += ["", "## Game configuration", "", "```json", json.dumps(gc, indent=1), "```", "",
            "## Training configuration", "", "```json", json.dumps(tc, indent=1), "```", ""]
    if results:
        out += ["## Evaluation", ""]
        for c in caveats:
            out += [f"**Caveat.** {c}", ""]
    label = None
    for res in results:
        m = res["meta"]
        labels = [e["label"] for e in m["entrants"]]
        label = next((lab for lab in labels if lab.startswith("policy:")), None)
        others = [lab for lab in labels if lab != label]
        out += [f"### Against {', '.join(others)} ({m['mode']}, {res['summary']['games']} games, "
                f"{m['deals']} deals, seed {m['seed']}"
                + (f"; the candidates only in the seats dealt {', '.join(m['roles'])}" if m.get("roles") else "")
                + ")", "",
                f"Win rate by dealt role, {WINRATE_INTERVALS}:", "", per_role_table(res), ""]
        if res.get("substitution"):
            out += [f"Substitution delta (the policy in one seat of an all-`{res['substitution']['reference']}` "
                    "table minus the reference in the same seat of the same deal; normal 95% interval clustered by deal; "
                    "n=pairs/deals):", "",
                    substitution_table(res), ""]
        ded = _deduction_table(res, label) if label else ""
        if ded:
            out += [ded, ""]
        social = social_tables(res)
        if social:
            out += [social, ""]
    if notes:
        out += ["## Notes", "", notes.strip(), ""]
    return "\n".join(out)


def _load_line(name: str, by_name: bool, evaluated: bool) -> str:
    """The card's sentence saying how to load its policy greedy, as its evaluations played it (a
    card without ``evaluated`` results says it has none), in a form that works for the card's
    reader: a shipped model by its ``name`` (from any folder, its file checked against the card's
    checksum), any other by the ``policy.pt`` beside the card, relative to the card's folder (a
    path relative to where ``treachery export`` ran would work only from there)."""
    how = ("as its evaluations below played it, greedy" if evaluated else
           "greedy (its most likely legal action; this card has no evaluation)")
    if by_name:
        return (f"Load it by name {how}: `agents.make(\"{name}\")` "
                f"(`--agents {name}`, from any folder; its file is checked against the SHA-256 below). "
                "`policy:PATH:greedy`, PATH its `policy.pt`, loads the file unchecked (without `:greedy` it "
                "samples its actions).")
    return (f"Load it {how}, from this card's folder: "
            "`agents.make(\"policy:policy.pt:greedy\")` (from elsewhere, `policy:` followed by the path of this "
            "folder's `policy.pt`; without `:greedy` it samples its actions).")


def _loads_by_name(folder: str | os.PathLike) -> bool:
    """Whether a policy exported to ``folder`` is a shipped model that ``agents.make`` loads by the
    folder's name: a folder of :data:`agents.models.CHECKPOINTS` whose name no bot has
    (:data:`agents.NAMED_MODELS`) and that is one spec (no ``:``)."""
    import agents.models

    folder = Path(folder).resolve()
    return (folder.parent == Path(agents.models.CHECKPOINTS).resolve() and ":" not in folder.name
            and (folder.name in agents.NAMED_MODELS or not agents.names_a_bot(folder.name)))


def _played_by(res: dict, shas: set[str]) -> tuple[str, str]:
    """Why the games of result ``res`` are not known to be played by a file whose SHA-256 is in
    ``shas`` ("" when one of its entrants is such a file), in words for the refusal and the card;
    and what its tables describe instead, for a card that keeps them (``--allow-other-policy``):
    another file's policy ("describe that policy's games, not this one's"), the trained policies of
    a file not known, or, where no entrant is a trained policy, its bots' games ("describe those
    bots' games, not this policy's").

    A result records the SHA-256 of each trained policy's file as it was when its games were
    played (``meta.entrants[].sha256``); the file at that path now may be another (a resumed
    run rewrites its ``policy.pt``), so only the recorded checksum tells."""
    entrants = res["meta"]["entrants"]
    if any(e.get("sha256") in shas for e in entrants):
        return "", ""
    played = [f"{e['label']} (SHA-256 {e['sha256'][:12]}...)" for e in entrants if e.get("sha256")]
    if played:
        whose = "that policy's" if len(played) == 1 else "those policies'"
        files = "another file" if len(played) == 1 else "other files"
        return f"its games were played by {', '.join(played)}, {files}", f"describe {whose} games, not this one's"
    trained = [e["label"] for e in entrants if agents.weights_file(e["spec"])]
    if trained:
        return (f"it records no SHA-256 of the files its trained policies ({', '.join(trained)}) played (written "
                f"by an older toolkit), so which file played is unknown",
                "describe the games of whichever file played them, not known to be this policy")
    whose = "that bot's" if len(entrants) == 1 else "those bots'"
    return (f"its entrants ({', '.join(e['label'] for e in entrants)}) include no trained policy",
            f"describe {whose} games, not this policy's")


def _run_policy(run_dir: str | os.PathLike) -> Path:
    """The ``policy.pt`` of the training run in ``run_dir``.

    Raises:
        ValueError: one line naming the folder and what is missing: the
            folder itself, or its ``policy.pt`` (saying whether the run wrote
            any checkpoint).
    """
    from .ppo import latest_checkpoint

    d = Path(run_dir)
    if not d.exists():
        raise ValueError(f"run folder {str(d)!r} does not exist; give the folder of a training run "
                         f"(e.g. runs/train-<date>-<time>) or a policy file")
    src = d / "policy.pt"
    if not src.is_file():
        ckpt = latest_checkpoint(d)
        if ckpt is not None:
            raise ValueError(f"run folder {str(d)!r} has {ckpt.name} but no policy.pt (the bare policy every "
                             f"checkpoint writes next to it); resume the run to write it again")
        raise ValueError(f"run folder {str(d)!r} has no checkpoint (no policy.pt, no ckpt_*.pt): it is not a "
                         f"training run, or its run stopped before its first checkpoint")
    return src


def export_policy(run_dir: str | os.PathLike, out_dir: str | os.PathLike, results: Sequence[str] = (),
                  notes: str = "", force: bool = False, other_policy: bool = False) -> Path:
    """Copy a run's ``policy.pt`` (or a policy file) to ``out_dir`` and write ``MODEL_CARD.md`` there.

    Args:
        run_dir: a training run directory (or its ``policy.pt``), or a policy file
            (``treachery graft``'s, or a run's checkpoint), whose card then has no run totals;
            a checkpoint's training state (optimizer, opponent pool) is left out of the shipped file.
        out_dir: e.g. ``checkpoints/flagship``.
        results: folders (or files) of ``results.json`` to include.
        notes: free text for the card.
        force: replace a ``policy.pt`` or ``MODEL_CARD.md`` already in
            ``out_dir`` (without it, that is an error: a shipped policy is
            never overwritten by a slip of ``--out``).
        other_policy: include a results file whose games no file with this
            policy's SHA-256 played (another policy, an earlier ``policy.pt`` of
            the run, or results too old to record the SHA-256); the card says so
            above its tables. Without it, such a file is an error.

    Returns:
        the path of the card.

    Raises:
        ValueError: for a missing run folder or policy (naming which,
            :func:`_run_policy`), an unreadable policy (a ``run_dir`` that is a file but no checkpoint), a missing results file,
            an unreadable ``metrics.jsonl`` line (naming the file and line),
            a policy over the 20 MB limit for shipped checkpoints, an
            ``out_dir`` that is (or lies under) a file, one that already
            holds a policy or card without ``force`` (or came to hold one, another
            command's, while the export ran: nothing is then written), the folder of a
            training in progress (:func:`training.run_lock.check_not_in_use`:
            its next checkpoint would replace the policy under the card), or
            a results file that did not evaluate this policy without
            ``other_policy`` (by the SHA-256 each result records of the files
            that played, not the bytes at their paths now: :func:`_played_by`);
            nothing is written then.
    Warns:
        UserWarning: (one line) for a run's ``policy.pt`` whose training is still running
            (:func:`training.run_lock.saved_by_a_training`): the export ships the policy it saved last,
            not the one it ends with.
    """
    if Path(run_dir).is_file() and Path(run_dir).name == "policy.pt" and (Path(run_dir).parent / "metrics.jsonl").is_file():
        run_dir = Path(run_dir).parent          # a run folder's own policy.pt: the run's card, with its totals
    from_run = not Path(run_dir).is_file()
    src = _run_policy(run_dir) if from_run else Path(run_dir)
    check_folder(out_dir, "--out")
    check_not_in_use(out_dir, "--out", ("policy.pt", "MODEL_CARD.md"))    # a training would replace the policy
    held = [n for n in ("policy.pt", "MODEL_CARD.md") if (Path(out_dir) / n).exists()]
    if held and not force:
        raise ValueError(f"--out {str(out_dir)!r} already holds {' and '.join(held)}; give another folder, "
                         f"or --force to replace them")
    # read once: the bytes loaded are those shipped and hashed (a run may replace the file)
    payload, raw = read_checkpoint(src)
    training = saved_by_a_training(src)        # a run's policy.pt, while the run is trained
    meta, data = payload["meta"], raw
    if "training_state" in payload:       # a resumable checkpoint: ship its policy alone, as a run's policy.pt is
        buf = io.BytesIO()
        torch.save({k: v for k, v in payload.items() if k not in ("training_state", "net")}, buf)
        data = buf.getvalue()
    if len(data) > MAX_SHIPPED_BYTES:
        raise ValueError(f"{str(src)!r} is {len(data) / 1e6:.1f} MB as a policy; shipped checkpoints must be < 20 MB")
    res = [read_results(r) for r in results]
    # this policy's bytes: the file shipped, and the checkpoint it is cut from (which an evaluation may have played)
    shas = {hashlib.sha256(data).hexdigest(), hashlib.sha256(raw).hexdigest()}
    caveats = []
    for r, rr in zip(results, res):
        why, described = _played_by(rr, shas)
        if why and not other_policy:
            raise ValueError(f"results {str(r)!r} did not evaluate {'this run' if from_run else 'this file'}'s "
                             f"policy (SHA-256 {hashlib.sha256(data).hexdigest()[:12]}...): {why}; evaluate this "
                             f"policy again, or give --allow-other-policy to include them marked as another's")
        if why:
            caveats.append(f"The games of `{r}` are not this card's policy's: {why}. Its tables are kept "
                           f"(`treachery export --allow-other-policy`) and {described}.")
    # a policy without its run's metrics.jsonl gets a card without the run's totals; an unreadable one is an error
    run = (training_summary(run_dir, meta.get("iteration"))
           if from_run and (Path(run_dir) / "metrics.jsonl").is_file() else None)
    out = Path(out_dir)          # everything is read: now write
    out.mkdir(parents=True, exist_ok=True)
    dst, path = out / "policy.pt", out / "MODEL_CARD.md"
    try:
        _write(dst, data, force)
        card = model_card(dst, out.resolve().name, res, run, notes, by_name=_loads_by_name(out),   # --out . too
                          caveats=caveats)
        _write(path, card.encode(), force)
    except FileExistsError as err:          # written since the check above, by another command
        if Path(err.filename) == path:
            dst.unlink()                    # this export's own policy.pt: no policy without its card
        raise ValueError(f"--out {str(out_dir)!r} got a {Path(err.filename).name} from another command while this "
                         f"export ran; it is kept and nothing is written; give another folder, or --force to "
                         f"replace it") from None
    if training is not None:
        saved = f" (iteration {meta['iteration']})" if meta.get("iteration") is not None else ""
        warnings.warn(f"{training}: exported the one it saved last{saved}, not the one it will end with; export "
                      f"again once it has ended", stacklevel=2)
    return path


def _write(path: Path, data: bytes, replace: bool) -> None:
    """Write ``data`` to ``path`` whole (:mod:`agents.files`), replacing a file there only where
    ``replace``.

    Raises:
        FileExistsError: without ``replace``, where ``path`` is taken (nothing written).
        OSError: if writing fails, naming the file.
    """
    if replace:
        atomic_write_bytes(path, data)
    else:
        write_new_file(path, data, next_free=False)
