"""Throne Magic's tournaments: duplicate deals, win rates and substitution deltas by Role (issue #16).

``treachery evaluate --game throne_magic`` runs them (:func:`evaluate_throne`); Treachery's
harness (:func:`training.evaluate.evaluate`) reads Treachery's roles and teams, so Throne Magic,
whose Roles form a directed must-eliminate graph rather than teams, is summarised here, on the
same schedules, seeds and statistics:

- ``rotate`` (:func:`training.evaluate.rotation_schedule`): each deal (an environment seed: the
  same Roles, decks, Throne and draws) is played once per cyclic rotation of the line-up, so each
  agent sits in every seat; per agent, its win rate overall and by the Role its seat held.
- ``substitution`` (:func:`training.evaluate.substitution_schedule`): per deal one game with the
  reference in every seat, then one game per candidate and seat with the candidate in that seat;
  per candidate and Role, its win rate, the reference's in the same seats of the same deals, and
  the paired difference.

A seat's result is 1 if it is among the winners ("Winning the Game": every player whose Role's
targets have all left), else 0 (a draw or a truncated game: 0 for everyone).  Intervals are 95%
and take the deal, not the game, as the independent draw (:func:`training.stats.clustered_share`,
:func:`training.stats.clustered_mean`): the games of one deal share its cards.

    treachery evaluate --game throne_magic --players 5 --mode substitution \\
        --agents random,belief,heuristic --reference heuristic --games 3200 --workers 2 --out results/throne
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import agents
from agents.files import check_folder
from agents.play import BotError
from agents.throne import BOTS, plays
from treachery_env import GameConfig
from treachery_env import throne_roles as tr
from treachery_env.config import field_text

from .evaluate import (Entrant, GameTask, _chunks, _config_dict, _entrant_meta, _games_bar, _json_default,
                       _rounding_note, entrants_from_specs, few_deals_note, game_text, games_text,
                       rotation_schedule, refuse_held_results, run_in_processes, substitution_schedule,
                       variants_text, write_result_files)
from .provenance import toolkit, toolkit_text
from .stats import clustered_mean, clustered_share

__all__ = ["MODES", "THRONE_FIELDS", "ThroneRecord", "throne_text", "play_task", "check_specs", "evaluate_throne", "summarize", "role_table",
           "render_markdown", "write_results"]

MODES = ("rotate", "substitution")
THRONE_FIELDS = ("throne_roles", "throne", "holdings", "seasons")
"""The Throne Magic options a tournament's report and summary name first (the rest: :func:`game_text`)."""
"""The tournament modes Throne Magic has (no teams: no crossplay, no teammates)."""


@dataclass(frozen=True)
class ThroneRecord:
    """One Throne Magic game's result.

    Attributes:
        task: the scheduled game (:class:`training.evaluate.GameTask`).
        roles: each seat's Role name.
        winners: the winning seats (empty: a draw or a truncated game).
        truncated: the turn limit ended the game.
        turns: the turns played.
    """

    task: GameTask
    roles: tuple[str, ...]
    winners: frozenset[int]
    truncated: bool
    turns: int


def play_task(task: GameTask, config: GameConfig) -> ThroneRecord:
    """Play ``task``'s game of ``config`` (:func:`agents.play_game`): bot ``task.specs[s]`` (an
    :func:`agents.make` spec) in seat ``s``, seeded ``task.agent_seeds[s]``, the environment
    seeded ``task.env_seed``.

    Raises:
        agents.play.BotError: (one line) a bot's ``act`` or ``reset`` raised or its action was refused,
            naming the game and the agent as a Treachery tournament does.
        Exception: whatever else a bot or the engine raises.
    """
    bots = [agents.make(spec, seed=seed) for spec, seed in zip(task.specs, task.agent_seeds)]
    try:
        r = agents.play_game(bots, config, seed=task.env_seed)
    except BotError as err:
        raise task.bot_error(err) from err
    return ThroneRecord(task, tuple(r.roles), frozenset(r.winners), r.truncated, r.turns)


def _play_chunk(tasks: list, config: GameConfig) -> list[ThroneRecord]:
    return [play_task(t, config) for t in tasks]


def check_specs(specs: Sequence[str], what: str = "Throne Magic") -> None:
    """Refuse agents that do not play Throne Magic (or ``what``: the CR 900 variants, which
    ``treachery evaluate`` checks with this too): registered bots other than
    :data:`agents.throne.BOTS` (the search bots deal Treachery identities to games without the
    variants' cards; the trained policies read plain Treachery's observation).  Bots of your own
    (``MODULE:CLASS``) are allowed.

    Raises:
        ValueError: naming the first such agent and the ones that play ``what``.
    """
    for spec in specs:
        if not plays(spec, "throne_magic"):
            raise ValueError(f"agent {spec!r} does not play {what}; its agents: {', '.join(BOTS)}, "
                             f"or MODULE:CLASS of your own")


def _run(tasks: list[GameTask], config: GameConfig, workers: int, progress: bool) -> list[ThroneRecord]:
    """The games of ``tasks`` in ``workers`` processes (1: here), sorted by task index, with a
    progress bar on stderr; Ctrl-C stops the workers first and drops the queued games."""
    records: list[ThroneRecord] = []
    with _games_bar(len(tasks), progress) as bar:
        if workers == 1 or len(tasks) <= 1:
            for t in tasks:
                records.append(play_task(t, config))
                bar.update(1)
        else:
            records = run_in_processes(_play_chunk, _chunks(tasks, workers), (config,), workers, bar.update)
    records.sort(key=lambda r: r.task.index)
    return records


def evaluate_throne(specs: Sequence[str], config: GameConfig, games: int = 100, seed: int = 0, workers: int = 1,
                    mode: str = "rotate", reference: str | None = None, progress: bool = True,
                    out_dir: str | Path | None = None, force: bool = False) -> dict:
    """A Throne Magic tournament (see the module docstring).

    Args:
        specs: agent specs (:func:`agents.make`); repeats allowed (labels ``x``, ``x#2``).
        config: a Throne Magic :class:`GameConfig` (``game="throne_magic"``).
        games: games requested, rounded up to whole deals.
        seed: the master seed (deal ``d``'s environment seed is
            :func:`training.evaluate._env_seed` of it, as in Treachery's tournaments).
        workers: processes (1: in this process).
        mode: ``"rotate"`` or ``"substitution"``.
        reference: substitution's reference label (default: the last agent); a spec not among
            ``specs`` joins them.
        progress: a tqdm bar on stderr.  Either way, when the games played are not ``games``
            (rounded up to whole deals), a line on stderr says so before the first game.
        out_dir: if given, :func:`write_results` there (checked before any game is played:
            it is or lies under a file or cannot be made or written, and, once every other
            argument is found good, it holds results without ``force``:
            :func:`training.evaluate.refuse_held_results`).
        force: replace the results already in ``out_dir`` (default: refuse them).

    Returns:
        ``{"meta", "summary", "agents", "timing"}``: ``agents[label]`` holds ``overall`` and
        ``by_role`` (``{role: cell}``, Roles in :func:`treachery_env.throne_roles.names` order),
        each cell :func:`training.stats.clustered_share`'s (rotate) or, in substitution, ``{"n",
        "candidate", "reference", "delta", "lo", "hi"}`` (rates in 0..1, the delta's interval
        None where the spread between deals cannot be estimated: :func:`training.stats.clustered_mean`).

    Raises:
        ValueError: for a config that is not Throne Magic, an unknown mode, ``games`` or
            ``workers`` below 1, an agent that does not play Throne Magic, substitution without a
            candidate, or an ``out_dir`` that is (or lies under) a file, cannot be made or written, or
            holds results (without ``force``; or came to hold them while the games were played, another
            command's: these results then go to a file of their own, named,
            :func:`training.evaluate.write_result_files`).
    """
    if config.game != "throne_magic":
        raise ValueError(f"evaluate_throne: a Throne Magic config (game='throne_magic'), got game={config.game!r}")
    if mode not in MODES:
        raise ValueError(f"--mode {mode}: Throne Magic has no teams; its modes: {', '.join(MODES)}")
    if games < 1 or workers < 1:
        raise ValueError(f"games and workers must be 1 or more, got {games}, {workers}")
    if games_text(games):
        raise ValueError(games_text(games))
    if out_dir is not None:
        check_folder(out_dir, "--out")
    entrants = entrants_from_specs(specs)
    ref = None
    if mode == "substitution":
        label = reference if reference is not None else entrants[-1].label
        ref = next((e for e in entrants if e.label == label), None)
        if ref is None:                           # a spec not among the agents joins them
            ref = entrants_from_specs([*(e.spec for e in entrants), label])[-1]
            entrants.append(ref)
        cands = [e for e in entrants if e.label != ref.label]
        if not cands:
            raise ValueError(f"--mode substitution needs a candidate besides the reference {ref.label!r}")
    check_specs([e.spec for e in entrants])
    n = config.num_players
    if mode == "rotate":
        per = max(1, len(rotation_schedule(entrants, n, range(0, 1), seed)))

        def schedule(deals: int) -> list[GameTask]:
            return rotation_schedule(entrants, n, deals, seed)
    else:
        per = 1 + n * len(cands)

        def schedule(deals: int) -> list[GameTask]:
            return substitution_schedule(ref, cands, n, deals, seed)
    deals = -(-games // per)
    tasks = schedule(deals)
    if out_dir is not None:                 # once the arguments hold: a bad one is said first
        refuse_held_results(out_dir, force)
    if len(tasks) != games:         # with the bar or without it, as Treachery's tournaments say it
        print(_rounding_note(len(tasks), deals, games, per), file=sys.stderr)
    t0 = time.perf_counter()
    records = _run(tasks, config, workers, progress)
    meta = {"game": "throne_magic", "entrants": [_entrant_meta(e) for e in entrants], "num_players": n,
            "mode": mode, "reference": None if ref is None else ref.label, "seed": seed, "games_requested": games,
            "games": len(tasks), "deals": deals, "games_per_deal": per, "config": _config_dict(config),
            "toolkit": toolkit()}
    res = summarize(records, entrants, meta)
    res["timing"] = {"wall_s": time.perf_counter() - t0, "workers": workers}
    if out_dir is not None:
        write_results(res, out_dir, new=not force)
    return res


def summarize(records: Sequence[ThroneRecord], entrants: Sequence[Entrant], meta: dict) -> dict:
    """The results of a tournament's ``records`` (see :func:`evaluate_throne`'s return)."""
    out: dict[str, Any] = {"meta": meta, "agents": {}}
    turns = [r.turns for r in records]
    out["summary"] = {"games": len(records), "truncated": sum(r.truncated for r in records),
                      "draws": sum(not r.truncated and not r.winners for r in records),
                      "mean_turns": sum(turns) / len(turns) if turns else None}
    if meta["mode"] == "rotate":
        for e in entrants:
            rows = [(int(s in r.winners), r.roles[s], r.task.deal) for r in records
                    for s, label in enumerate(r.task.lineup) if label == e.label]
            out["agents"][e.label] = {"overall": _share(rows), "by_role": {
                role: _share([x for x in rows if x[1] == role]) for role in tr.names() if any(x[1] == role for x in rows)}}
        return out
    base = {r.task.deal: r for r in records if r.task.kind == "reference"}
    ref_rows = [(int(s in r.winners), r.roles[s], r.task.deal) for r in base.values() for s in range(len(r.roles))]
    out["reference"] = {"overall": _share(ref_rows), "by_role": {
        role: _share([x for x in ref_rows if x[1] == role]) for role in tr.names() if any(x[1] == role for x in ref_rows)}}
    for e in entrants:
        if e.label == meta["reference"]:
            continue
        pairs = []       # (candidate won, reference won in that seat of that deal, the candidate's Role, deal)
        for r in records:
            if r.task.kind == "substitute" and r.task.lineup[r.task.focus_seat] == e.label:
                s, b = r.task.focus_seat, base[r.task.deal]
                pairs.append((int(s in r.winners), int(s in b.winners), r.roles[s], r.task.deal))
        out["agents"][e.label] = {"overall": _paired(pairs), "by_role": {
            role: _paired([p for p in pairs if p[2] == role]) for role in tr.names() if any(p[2] == role for p in pairs)}}
    return out


def _share(rows: list[tuple[int, str, int]]) -> dict:
    """Win rate of ``(won, role, deal)`` rows with the deal-clustered 95% interval."""
    return clustered_share([w for w, _, _ in rows], [d for _, _, d in rows])


def _paired(pairs: list[tuple[int, int, str, int]]) -> dict:
    """Rates and the paired difference, deal-clustered 95% interval, of ``(cand, ref, role, deal)`` pairs."""
    m = clustered_mean([a - b for a, b, _, _ in pairs], [d for *_, d in pairs], lower=-1.0, upper=1.0)
    k = len(pairs)
    return {"n": k, "candidate": sum(p[0] for p in pairs) / k if k else None,
            "reference": sum(p[1] for p in pairs) / k if k else None, "delta": m["mean"], "lo": m["lo"], "hi": m["hi"]}


def _rate_text(c: dict) -> str:
    return "-" if c["rate"] is None else f"{c['rate']:.2f} [{c['lo']:.2f}, {c['hi']:.2f}] ({c['n']})"


def _delta_text(c: dict) -> str:
    interval = "" if c["lo"] is None else f" [{c['lo']:+.2f}, {c['hi']:+.2f}]"
    return f"{c['candidate']:.2f} ({c['delta']:+.2f}{interval})"


def role_table(res: dict) -> str:
    """A markdown table by Role: in rotate, each agent's win rate [95%] (seats); in substitution,
    each candidate's win rate (paired difference to the reference [95%]), then the reference's."""
    labels = list(res["agents"])
    cells = {lb: res["agents"][lb] for lb in labels}
    roles = [r for r in tr.names() if any(r in c["by_role"] for c in cells.values())]
    if res["meta"]["mode"] == "rotate":
        lines = ["| Role | " + " | ".join(f"{lb} win [95%] (seats)" for lb in labels) + " |",
                 "|" + "---|" * (len(labels) + 1)]
        for role in roles + ["all"]:
            row = [c["overall"] if role == "all" else c["by_role"].get(role) for c in cells.values()]
            lines.append(f"| {role} | " + " | ".join("" if x is None else _rate_text(x) for x in row) + " |")
        return "\n".join(lines)
    ref = res["meta"]["reference"]
    lines = ["| Role | pairs | " + " | ".join(f"{lb} win (delta vs {ref} [95%])" for lb in labels) + f" | {ref} win |",
             "|" + "---|" * (len(labels) + 3)]
    for role in roles + ["all"]:
        row = [c["overall"] if role == "all" else c["by_role"].get(role) for c in cells.values()]
        first = next(x for x in row if x is not None)
        lines.append(f"| {role} | {first['n']} | " + " | ".join("" if x is None else _delta_text(x) for x in row)
                     + f" | {first['reference']:.2f} |")
    return "\n".join(lines)


def throne_text(config: dict) -> str:
    """The game of a tournament's ``meta["config"]`` as its report and summary line name it: the
    :data:`THRONE_FIELDS`, the CR 900 variants (:func:`~training.evaluate.variants_text`) and the
    other fields that differ from Throne Magic's defaults (:func:`~training.evaluate.game_text`),
    e.g. ``throne_roles='basic', throne='random', holdings=off, seasons=off, no CR 900 variants
    (game: max_turns=60; the other fields GameConfig's defaults)``, values in words
    (:func:`treachery_env.config.field_text`)."""
    return (", ".join([*(f"{k}={field_text(k, config.get(k))}" for k in THRONE_FIELDS), variants_text(config)])
            + f" (game: {game_text(config, THRONE_FIELDS)})")


def render_markdown(res: dict) -> str:
    """``results.md``: what was played, the note of a result over few deals
    (:func:`training.evaluate.few_deals_note`, as a Treachery report has it) and :func:`role_table`."""
    m, s = res["meta"], res["summary"]
    note = few_deals_note(res)
    c = m["config"]
    options = throne_text(c)
    how = ("each agent through every seat of each deal" if m["mode"] == "rotate" else
           f"one candidate seat among {m['reference']} bots, paired with the all-{m['reference']} game of the deal")
    return (f"# Throne Magic tournament ({m['mode']})\n\n"
            f"{s['games']} games ({m['deals']} deal{'' if m['deals'] == 1 else 's'} x {m['games_per_deal']}), {m['num_players']} players, seed "
            f"{m['seed']}, {options}; {how}. {s['truncated']} truncated, {s['draws']} draws, "
            f"{s['mean_turns']:.1f} turns a game. Intervals: 95%, clustered by deal"
            + ("; a difference has none where the spread between deals cannot be estimated"
               if m["mode"] == "substitution" else "") + "."
            + (f" Toolkit: {toolkit_text(m)}." if toolkit_text(m) else "")
            + (f"\n\nNote: {note}." if note else "") + f"\n\n{role_table(res)}\n")


def write_results(res: dict, out_dir: str | Path, new: bool = False) -> dict[str, Path]:
    """Write ``results.json`` and ``results.md`` into ``out_dir`` (created if needed), both
    rendered in memory first and written as one set (:func:`agents.files.atomic_write_files`:
    no file is ever partial, and a failure leaves both as they were, never a new
    ``results.json`` beside an old ``results.md``); with ``new`` (no ``--force``), only where
    none is, even one written since the folder was checked
    (:func:`training.evaluate.write_result_files`).

    Returns:
        ``{name: path}`` of the files written.

    Raises:
        ValueError: with ``new``, where another command wrote results there since (these are
            then kept in a file of their own, named in the error).
        OSError: if writing fails, naming the file; the files are then as they were.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    payloads = {"results.json": (json.dumps(res, indent=1, default=_json_default) + "\n").encode(),
                "results.md": render_markdown(res).encode()}
    write_result_files(out, payloads, new)
    return {name: out / name for name in payloads}
