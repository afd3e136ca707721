"""Tournaments between bots and the metrics of issue 4 (DESIGN section 6).

The unit of a tournament is a **deal**: one environment seed, which fixes the
decks, the identities dealt to the seats and every shuffle.  Each deal is
played several times with the agents moved around the table ("duplicate"
deals, as in duplicate bridge), so luck of the deal cancels out:

* ``mode="rotate"`` (:func:`rotation_schedule`): for deal ``d`` the base
  line-up fills seat ``s`` with entrant ``(s + d) mod K``; the deal is played
  under every distinct cyclic rotation of that line-up, so every entrant sits
  in every seat (hence plays every dealt role) on the same deal.
* ``mode="substitution"`` (:func:`substitution_schedule`): a reference
  population (every seat the reference entrant) plays the deal once, then each
  other entrant replaces one seat at a time.  The **substitution delta** of
  entrant A in role R is the mean over matched (deal, seat) pairs whose dealt
  role is R of ``win(A in that seat) - win(reference in that seat)``, with a
  normal 95% interval that takes deals, not pairs, as the independent draws
  (:func:`training.stats.clustered_mean`): the pairs of one deal share its
  cards and its reference game (two seats of one team share its outcome).
* ``mode="crossplay"`` (:func:`crossplay_schedule`): team-split cross-play;
  per deal each entrant A plays a self-play table, and for every other entrant
  B and every team T, A holds all seats of team T and B all the others.  The
  cross-play matrix is then A's win rate over those games (with a breakdown
  by A's team); in the other modes it is the mixed-table definition below.
* ``mode="teammates"`` (:func:`teammate_schedule`): team play; per deal one
  game with the partner (``reference``, default the last entrant) in every
  seat, then for each candidate C and each team T of two or more seats (the
  Leader with the Guardians; the Assassins) one game with C in every seat of
  T and, for each seat of T, one with C in that seat alone and the partner
  in the other seats of T; the partner holds every seat outside T.

Metrics (:func:`summarize`): per-role and per-team win rates with 95%
intervals that take deals, not seat-games, as the independent draws
(:func:`training.stats.clustered_rate`: Wilson's interval on the seat-games'
effective number; the seat-games of one deal share its cards, and two seats
of one team in one game its outcome; roles are the roles *dealt*, which the
rotation balances; a win is the seat's team winning, truncations and draws
count as not won), OpenSkill
Plackett-Luce ratings (each game ranks every seat: winners first, losers
second; games without winners are skipped), a cross-play matrix (the win rate
of entrant A's seats in games where entrant B holds an *opposing* seat: a seat
of another team by dealt role, each Traitor being a team of its own),
deduction metrics for bots with ``beliefs()`` and the decision latency of every
entrant.

Deduction (:func:`score_belief`, :func:`deduction_metrics`): for a bot with
``beliefs() -> {seat: {Role: p}}``, after each of its decisions the evaluator
scores the belief about every **face-down opponent** (not face up, not yet
lost, not the observer) against that seat's true role at that moment:
log-loss ``-ln p(true)`` (p clipped at 1e-12), Brier score
``sum_r (p_r - [r = true])^2`` over the four roles, and top-1 accuracy (with
ties in the arg-max giving fractional credit ``1/k``).  Only the observer's
last belief in each turn counts, so decision-heavy turns do not dominate.  A
baseline is scored on the same rows: the *public-count prior*, the role
distribution minus the roles publicly known (face-up or lost seats) and the
observer's own role, spread uniformly over the face-down opponents.  Each
score's 95% interval takes deals as the independent draws (an observer's
beliefs on successive turns move together, and the games of one deal share
its cards): :func:`training.stats.clustered_rate` for top-1 and p(true),
:func:`training.stats.clustered_mean` for log-loss and Brier.
**Deception** of entrant X: the mean probability that observers with beliefs
give to the true role of X's seats while they are face-down Traitors or
Assassins (lower is better cover), with its 95% interval over deals
(:func:`training.stats.clustered_share`), and that probability minus the
public-count prior of the same rows, with a normal 95% interval over deals
(:func:`training.stats.clustered_mean`; ``minus_prior``: only an interval below 0
says the cover holds).  Bots without ``beliefs()`` get no deduction numbers (no
probe is trained for them); their deception is scored wherever an observer with
beliefs shares their table.

Bluffing, cooperation and talk (:mod:`training.social`) are measured for
every entrant, whatever it is (a trained policy, a rule bot), against fixed
yardsticks that do not depend on who else sits at the table:

**The observer.**  A passive spectator runs the belief bot's Bayesian model
(:class:`agents.belief.RoleBelief` with its default parameters; the same for
every entrant and every evaluation) on a *public* view of the game
(:func:`training.social.public_view`): seat 0's view with every private item
removed (the identity and role of each seat not publicly known, hands,
other-zone permissions, the pending decision, face-down exile, the
Undercover flag and log entries not shown to all).  A role is publicly known
when the identity card is face up or was shown to every player.  The model is
a pure function of that view (harm, attacks, talk, what is face up, the
identity deck's role counts), recomputed at every use, so it is "updated each
turn" exactly; it never plays a seat and never sees hidden information.
Each face-down seat's **public prior** is the identity deck minus the
publicly known roles, spread evenly over the seats not publicly known.

**Bluffing** of entrant X (``res["bluffing"][X]``): the rows are X's
*face-down turns* as a Traitor or an Assassin: for every turn ``t >= 1`` of
every game (every player's turn, not only X's), the state at the first
decision of the next turn is scored for each seat that is still in the game
and whose role is not publicly known; the last turn of a game is not scored
(the game's end reveals every identity).  A row **holds cover** when the
observer's probability of the seat's true role is at most the public prior
of that role (``p_obs <= prior + 1e-9``; no evidence at all counts as cover
held).  Reported: ``rate`` = rows holding cover / ``n`` rows, with a 95%
interval that takes deals, not turns, as the independent draws (turns of one
game are correlated, and so are the games of one deal, which share its cards;
:func:`training.stats.clustered_rate`: Wilson's interval on the rows' effective
number), overall and by role (Assassin, Traitor), and the mean ``p_obs`` and
mean prior of those rows (units: probability).

**Cooperation** of entrant X (``res["cooperation"][X]``): the unit is a
seat-game in which X's seat was a Guardian (its current role at some
decision).  Between two consecutive decisions of the game (and after the
last one) the growth of the engine's public matrices ``Game.harm[i][j]``
(damage and life loss seat i's spells, abilities and creatures caused to seat
j and j's creatures, in life points) and ``Game.attacks[i][j]`` (creatures i
declared as attacking player j) is attributed to seat ``i`` if it was a
Guardian at the earlier decision, with the Leaders and aggressors of that
moment: ``harm_leader`` and ``attacks_leader`` count the acts whose target j
was a face-up Leader (``Game.is_leader_player``); ``protect_harm`` and
``protect_attacks`` count the acts whose target j was an *aggressor*, a seat
other than the Leader that had by then attacked or harmed a face-up Leader
(cumulative ``harm[j][L] + attacks[j][L] > 0``).  Blocks are not a form of
protection here: in multiplayer only the defending player blocks for itself
(CR 509.1a, 802), so a Guardian cannot block for the Leader.  Reported: the
mean per Guardian seat-game of each of the four counts (life points,
creatures) with a normal 95% interval (lower end clipped at 0), and the
shares of seat-games with any hostile act towards the Leader and with any
protective act (Wilson's on the effective number), the intervals over deals
(:func:`training.stats.clustered_mean`, :func:`~training.stats.clustered_share`:
the seat-games of one deal share its cards).

**Team play** (``res["teamplay"]``, ``mode="teammates"`` only): per
candidate C and team T, the team's win rate (a win of any seat of T: team
members win together) in the games where C holds every seat of T
(``together``: copies of C are team-mates), in those where C holds one seat
of T and the partner the others (``mixed``, and by C's dealt role), and in
the partner-only games (``partner``), each with its 95% interval over deals
(:func:`training.stats.clustered_rate`); ``gain``
is together - mixed with a normal 95% interval paired by deal (both arms play
every deal: :func:`training.stats.clustered_rate_difference`).

**Talk** (``res["talk"][X]``, when ``GameConfig.talk`` is ``"structured"``):
every role claim ("I am a R", :mod:`treachery_env.engine.talk`) X made.  A
claim is **false** when the claimed role differs from X's current role when
it spoke.  Reported by that true role and overall: the share of false claims
(95% interval over deals, :func:`training.stats.clustered_rate`), the counts of each claimed role, and the **shift** of the claims X
made while its role was not public: the observer's probability of the
claimed role for X right after the claim minus right before it (the same
state with and without that message: talking changes nothing else), mean
with a normal 95% interval over deals (:func:`training.stats.clustered_mean`),
separately for false and for true claims (units: probability).

Determinism: every game builds fresh bots whose seeds, like the environment
seed, derive from ``(seed, deal, rotation, seat)`` with
:class:`numpy.random.SeedSequence`, never from an entrant's place in the list
of entrants: a candidate's seed in a substitution, cross-play or team-play game
depends on the deal, the seat (and the team and line-up kind), so the same bot
plays the same game whatever order the entrants are named in (rotation puts
the entrants at the table in their order, so there the order is the schedule);
games are independent and results are
sorted by schedule index, so the output (apart from timing) is identical for
any number of worker processes, and on a Ray cluster (``ray_address``,
:mod:`training.ray_workers`).
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import signal
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Generator, Iterable, Sequence

import numpy as np

import agents
from agents.files import atomic_write_bytes, atomic_write_files, check_folder, check_input_file, write_new_file
from agents.isolated import exit_with_parent
from agents.play import BotError, bot_call, face_down_opponents, first_line, game_steps, run_games
from treachery_env import GameConfig
from treachery_env.compiled import starting_workers
from treachery_env.config import field_text
from treachery_env.env import raw_env
from treachery_env.rules import Role, Team, role_distribution, team_of

from . import social
from .provenance import toolkit, toolkit_text
from .stats import by_deal, clustered_mean, clustered_rate, clustered_share, wilson_interval

__all__ = [
    "Entrant", "GameTask", "GameRecord", "wilson_interval", "entrants_from_specs", "run_in_processes",
    "rotation_schedule", "substitution_schedule", "crossplay_schedule", "teammate_schedule", "dealt_roles", "MODES", "play_task", "play_tasks", "run_tasks",
    "score_belief", "TURN_BANDS", "deduction_metrics", "summarize", "evaluate",
    "render_markdown", "write_results", "write_result_files", "atomic_write_bytes", "WINRATE_INTERVALS", "per_role_table", "substitution_table", "format_delta",
    "beats_in_every_role", "social_tables", "gate_table", "deduction_table", "deduction_unit", "format_mean", "paired_delta", "read_results",
    "Outcome", "deal_key", "MAX_GAMES", "FEW_DEALS", "few_deals_note", "games_text", "pool_results", "shard_deals", "deals_text", "VARIANT_FIELDS", "variants_text", "refuse_held_results",
    "ray_connect_text",
]

ROLES = (Role.LEADER, Role.GUARDIAN, Role.ASSASSIN, Role.TRAITOR)
ROLE_NAMES = {r: r.name.capitalize() for r in ROLES}
_ROLE_BY_NAME = {name: r for r, name in ROLE_NAMES.items()}
TEAM_NAMES = {Team.LEADER: "Leader team", Team.ASSASSIN: "Assassins", Team.TRAITOR: "Traitors"}
EPS = 1e-12
# columns of a deduction row (see _deduction_rows)
ROW_TURN, ROW_OBS, ROW_TARGET, ROW_TRUE, ROW_P, ROW_BRIER, ROW_TOP1, ROW_PP, ROW_PBRIER, ROW_PTOP1 = range(10)


# --------------------------------------------------------------------------- statistics
def _count(per_deal: dict, deal: Any, won: bool) -> None:
    """Add one seat-game of ``deal`` (its :func:`deal_key`) to ``per_deal``
    (``{deal: [wins, seat-games]}``)."""
    c = per_deal.setdefault(deal, [0, 0])
    c[0] += int(won)
    c[1] += 1


def _deal_rate(per_deal: dict) -> dict:
    """The win rate of seat-games counted by deal (``{deal: [wins, seat-games]}``, :func:`_count`)
    as ``{"wins", "games", "rate", "lo", "hi", "deals"}``, with the 95% interval of
    :func:`training.stats.clustered_rate` over deals: the seat-games of one deal share its cards
    (its rotations, its reference game, two seats of one team the same outcome), so they are not
    independent draws.  Without seat-games, rate None and the interval (0, 1)."""
    r = clustered_rate([c[0] for c in per_deal.values()], [c[1] for c in per_deal.values()])
    return {"wins": r["count"], "games": r["n"], "rate": r["rate"], "lo": r["lo"], "hi": r["hi"],
            "deals": r["clusters"]}


# --------------------------------------------------------------------------- scheduling
@dataclass(frozen=True)
class Entrant:
    """One participant of a tournament: a unique ``label`` and the ``spec``
    passed to :func:`agents.make` (``"random"`` twice gives labels ``random``
    and ``random#2``)."""

    label: str
    spec: str


def entrants_from_specs(specs: Sequence[str]) -> list[Entrant]:
    """Entrants with unique labels for a list of agent specs, each as the registry spells it
    (:func:`agents.canonical_spec`: ``"Heuristic"`` is the entrant ``heuristic``).

    Raises:
        ValueError: for an empty list or an empty spec.
    """
    specs = [agents.canonical_spec(s.strip()) for s in specs]
    if not specs or any(not s for s in specs):
        raise ValueError(f"need a non-empty list of non-empty agent specs, got {specs!r}")
    out, seen = [], {}
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        out.append(Entrant(s if seen[s] == 1 else f"{s}#{seen[s]}", s))
    return out


@dataclass(frozen=True)
class GameTask:
    """One scheduled game.

    Attributes:
        index: position in the schedule (results are sorted by it).
        deal: the deal number; games of one deal share ``env_seed``.
        env_seed: the environment seed (decks, identities, shuffles).
        lineup: entrant label per seat.
        specs: agent spec per seat.
        agent_seeds: bot seed per seat.
        kind: ``"rotate"``, ``"reference"`` (all-reference game of a
            substitution deal), ``"substitute"``, ``"crossplay"``, or one of
            :func:`teammate_schedule`'s ``"team_partner"``,
            ``"team_together"``, ``"team_mixed"``.
        focus_seat: the substituted seat (``"substitute"`` games), the
            candidate's seat (``"team_mixed"``), else -1.
        focus: the entrant whose seats a ``"crossplay"`` or team-play game measures.
    """

    index: int
    deal: int
    env_seed: int
    lineup: tuple
    specs: tuple
    agent_seeds: tuple
    kind: str = "rotate"
    focus_seat: int = -1
    focus: str = ""

    def bot_error(self, err: BotError) -> BotError:
        """``err`` (a bot's failure in this game) naming the game, its deal and the agent as the
        tournament knows it (``game 3 (deal 1): agent 'my_bots:Bot': ...``), for any game's tournament."""
        return BotError(f"game {self.index} (deal {self.deal}): agent {self.specs[err.seat]!r}: {err}", err.seat)


def _seed(*key: int) -> int:
    return int(np.random.SeedSequence([int(k) for k in key]).generate_state(1)[0] % (2**31 - 1))


def _env_seed(seed: int, deal: int) -> int:
    return _seed(seed, deal, 0xDEA1)


def _period(base: Sequence[str]) -> int:
    n = len(base)
    for p in range(1, n + 1):
        if n % p == 0 and all(base[s] == base[(s + p) % n] for s in range(n)):
            return p
    return n


def _deal_range(deals: int | range) -> range:
    """The deal numbers a schedule plays: ``range(deals)`` for a count, or the given range
    (one shard of a larger tournament, :func:`shard_deals`).

    Raises:
        ValueError: for a negative count or a range that is not of consecutive deals from 0 up.
    """
    if isinstance(deals, range):
        if deals.step != 1 or deals.start < 0:
            raise ValueError(f"a range of deals must be consecutive and start at 0 or later, got {deals}")
        return deals
    if deals < 0:
        raise ValueError(f"num_deals must be >= 0, got {deals}")
    return range(deals)


def shard_deals(total: int, index: int, count: int) -> range:
    """Deals ``index`` of ``count`` contiguous, near-equal shards of ``total`` deals (1-based
    ``index``): the shards of a tournament, evaluated apart (other processes, machines or days)
    and pooled (:func:`pool_results`), are that tournament.

    Raises:
        ValueError: unless ``1 <= index <= count <= total``.
    """
    if count < 1:
        raise ValueError(f"shard {index}/{count}: the number of shards must be 1 or more")
    if not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count}: the shard's number must lie in 1..{count}")
    if count > total:
        raise ValueError(f"shard {index}/{count}: {total} deal{'' if total == 1 else 's'} cannot be split "
                         f"into {count} shards")
    return range((index - 1) * total // count, index * total // count)


def rotation_schedule(entrants: Sequence[Entrant], num_players: int, num_deals: int | range,
                      seed: int = 0) -> list[GameTask]:
    """Duplicate deals with the line-up rotated around the table.

    Deal ``d`` has base line-up ``base[s] = entrants[(s + d) % K]`` and is played
    once per distinct cyclic rotation ``r`` (``lineup[s] = base[(s - r) % n]``,
    ``r < period(base)``), all with the same environment seed, so each entrant
    sits in every seat of the deal (when ``K <= n``).  ``num_deals``: a count, or the
    range of deal numbers of one shard (:func:`shard_deals`); so for every schedule.

    Raises:
        ValueError: for no entrants, ``num_players < 4`` or ``num_deals < 0``.
    """
    if not entrants or num_players < 4:
        raise ValueError(f"need entrants and num_players >= 4 (got {len(entrants)}, {num_players})")
    k, n = len(entrants), num_players
    tasks: list[GameTask] = []
    for d in _deal_range(num_deals):
        base = [entrants[(s + d) % k] for s in range(n)]
        env_seed = _env_seed(seed, d)
        for r in range(_period([e.label for e in base])):
            lineup = [base[(s - r) % n] for s in range(n)]
            tasks.append(GameTask(len(tasks), d, env_seed, tuple(e.label for e in lineup),
                                  tuple(e.spec for e in lineup),
                                  tuple(_seed(seed, d, r, s, 0xB07) for s in range(n))))
    return tasks


MODES = ("rotate", "substitution", "crossplay", "teammates")

MAX_GAMES = 1_000_000
"""The most games one tournament (``games``, ``--games``; its shards together) is asked for: its
schedule is built whole in memory (about half a kilobyte a game), and a million games of bots take
days on a machine of a few cores.  More deals are evaluations of other seeds, pooled
(:func:`pool_results`)."""


def games_text(games: Any, flag: str = "games") -> str | None:
    """Why ``games`` is not a number of games to ask a tournament for (an int from 1 to
    :data:`MAX_GAMES`), in one line naming ``flag``; None when it is one."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not 1 <= games <= MAX_GAMES:
        return (f"{flag} must be an int from 1 to {MAX_GAMES:,} (one tournament; for more deals, evaluate other "
                f"--seed values and pool them), got {games!r}")
    return None


def _rounding_note(played: int, deals: int, games: int, per: int, flag: str = "--games", only: str = "") -> str:
    """The line that says a tournament plays ``played`` games in ``deals`` deals, not the ``games``
    asked for by ``flag``: why, they were rounded up to whole deals of ``per`` games (said only when
    ``games`` is not whole deals already) and ``only``, what else changed the count (only some seats
    played)."""
    why = [f"{flag} {games:,} rounded up to whole deals of {per} game{'' if per == 1 else 's'}" if games % per
           else f"{flag} {games:,}"] + ([only] if only else [])
    return f"{played:,} games: {deals:,} deal{'' if deals == 1 else 's'} ({'; '.join(why)})"


def _sides(num_players: int, variant: str = "standard") -> list:
    """Teams (CR 907.7a) present at a table, in Team order."""
    dist = role_distribution(num_players, variant)
    return sorted({team_of(r) for r, c in dist.items() if c > 0})


def games_per_deal(mode: str, num_entrants: int, num_players: int, variant: str = "standard") -> int:
    """Games one deal takes in ``mode`` (one of :data:`MODES`).

    Raises:
        ValueError: for an unknown mode.
    """
    if mode == "rotate":
        return _period([f"{(s) % num_entrants}" for s in range(num_players)])
    if mode == "substitution":
        return 1 + (num_entrants - 1) * num_players
    if mode == "crossplay":
        return num_entrants + num_entrants * (num_entrants - 1) * len(_sides(num_players, variant))
    if mode == "teammates":
        return 1 + (num_entrants - 1) * sum(1 + c for c in _team_sizes(role_distribution(num_players, variant)))
    raise ValueError(f"unknown mode {mode!r}; allowed: {list(MODES)}")


def dealt_roles(config: GameConfig, env_seed: int) -> list[int]:
    """The role values dealt to each seat by ``raw_env(config).reset(seed=env_seed)``
    (the schedule of ``mode="crossplay"`` needs the deal in advance)."""
    env = raw_env(config=config)
    env.reset(seed=env_seed)
    roles = [int(p.role) for p in env.game.players]
    env.close()
    return roles


def crossplay_schedule(entrants: Sequence[Entrant], config: GameConfig, num_deals: int | range,
                       seed: int = 0) -> list[GameTask]:
    """Team-split cross-play: per deal, each entrant A plays once at a table of
    its own (self-play, the diagonal), and for each other entrant B and each
    team T present (Leader team, Assassins, Traitors; CR 907.7a) A takes every
    seat whose dealt role is of team T while B takes all the others.  The games
    of a deal share its environment seed; ``GameTask.focus`` names A.

    Raises:
        ValueError: for no entrants or ``num_deals < 0``.
    """
    if not entrants:
        raise ValueError("need entrants")
    n = config.num_players
    tasks: list[GameTask] = []
    for d in _deal_range(num_deals):
        env_seed = _env_seed(seed, d)
        teams = [team_of(Role(r)) for r in dealt_roles(config, env_seed)]
        for ai, a in enumerate(entrants):
            tasks.append(GameTask(len(tasks), d, env_seed, (a.label,) * n, (a.spec,) * n,
                                  tuple(_seed(seed, d, 0, s, 0xC0) for s in range(n)), "crossplay", -1,
                                  a.label))
            for bi, b in enumerate(entrants):
                if bi == ai:
                    continue
                for side in _sides(n, config.variant):
                    mine = [teams[s] == side for s in range(n)]
                    if not any(mine):
                        continue
                    lineup = [a if mine[s] else b for s in range(n)]
                    tasks.append(GameTask(len(tasks), d, env_seed, tuple(e.label for e in lineup),
                                          tuple(e.spec for e in lineup),
                                          tuple(_seed(seed, d, 0, 1, int(side), s, 0xC1) for s in range(n)),
                                          "crossplay", -1, a.label))
    return tasks


def _team_sizes(dist: dict) -> list[int]:
    """Seats of each team with two or more seats (Leader team, Assassins), in
    Team order; each Traitor is a team of one."""
    sizes = {}
    for r, c in dist.items():
        if c > 0 and team_of(r) != Team.TRAITOR:
            sizes[team_of(r)] = sizes.get(team_of(r), 0) + c
    return [sizes[t] for t in sorted(sizes) if sizes[t] >= 2]


def teammate_schedule(partner: Entrant, candidates: Sequence[Entrant], config: GameConfig, num_deals: int | range,
                      seed: int = 0) -> list[GameTask]:
    """Team play: per deal, one partner-only game (``kind="team_partner"``),
    then for each candidate C and each team T of two or more seats by dealt
    role (the Leader with the Guardians, the Assassins): one game in which C
    holds every seat of T (``"team_together"``: copies of C are team-mates)
    and, for each seat s of T, one in which C holds s alone and the partner
    the other seats of T (``"team_mixed"``, ``focus_seat=s``); the partner
    holds every seat outside T.  ``GameTask.focus`` names C (the partner in
    the partner-only game); all games of a deal share its environment seed.

    Raises:
        ValueError: for no candidates, ``num_deals < 0`` or a table without a
            team of two or more seats.
    """
    if not candidates:
        raise ValueError("need at least one candidate besides the partner")
    if not _team_sizes(config.distribution()):
        raise ValueError("mode 'teammates' needs a team of two or more seats (e.g. 5+ players)")
    n = config.num_players
    tasks: list[GameTask] = []
    for d in _deal_range(num_deals):
        env_seed = _env_seed(seed, d)
        teams = [team_of(Role(r)) for r in dealt_roles(config, env_seed)]
        tasks.append(GameTask(len(tasks), d, env_seed, (partner.label,) * n, (partner.spec,) * n,
                              tuple(_seed(seed, d, 0, s, 0x7EA) for s in range(n)), "team_partner", -1,
                              partner.label))
        for c in candidates:
            for side in sorted(set(teams)):
                seats = [s for s in range(n) if teams[s] == side]
                if side == Team.TRAITOR or len(seats) < 2:
                    continue
                for focus in [-1] + seats:
                    mine = seats if focus < 0 else [focus]
                    lineup = [c if s in mine else partner for s in range(n)]
                    tasks.append(GameTask(len(tasks), d, env_seed, tuple(e.label for e in lineup),
                                          tuple(e.spec for e in lineup),
                                          tuple(_seed(seed, d, 1, int(side), focus + 1, s, 0x7EB)
                                                for s in range(n)),
                                          "team_together" if focus < 0 else "team_mixed", focus, c.label))
    return tasks


def substitution_schedule(reference: Entrant, candidates: Sequence[Entrant], num_players: int,
                          num_deals: int | range, seed: int = 0, roles: Sequence[int] | None = None,
                          config: GameConfig | None = None) -> list[GameTask]:
    """Per deal: one all-reference game, then each candidate in each seat with the
    reference in the other seats, all with the deal's environment seed.

    With ``roles`` (role values), a candidate takes only the seats dealt one of
    them (``config`` deals each deal in advance, :func:`dealt_roles`): every game
    scheduled is the game of the same deal, seat and seeds that the whole
    schedule plays, so a role's substitution delta is the one the whole
    tournament gives, at a fraction of the games.

    Raises:
        ValueError: for no candidates, ``num_players < 4``, ``num_deals < 0``, or
            ``roles`` without a ``config`` of ``num_players`` seats.
    """
    if not candidates:
        raise ValueError(f"substitution needs a candidate besides the reference {reference.label!r}")
    if num_players < 4:
        raise ValueError(f"need num_players >= 4, got {num_players}")
    if roles is not None and (config is None or config.num_players != num_players):
        raise ValueError("a substitution schedule limited to roles needs the game's config (to deal each deal)")
    n = num_players
    tasks: list[GameTask] = []
    for d in _deal_range(num_deals):
        env_seed = _env_seed(seed, d)
        ref_seeds = tuple(_seed(seed, d, 0, s, 0xB07) for s in range(n))
        cand_seeds = [_seed(seed, d, 1, s, 0xB07) for s in range(n)]      # every candidate's, in seat s
        tasks.append(GameTask(len(tasks), d, env_seed, (reference.label,) * n, (reference.spec,) * n,
                              ref_seeds, "reference", -1))
        if roles is None:
            seats = range(n)
        else:
            dealt = dealt_roles(config, env_seed)
            seats = [s for s in range(n) if dealt[s] in roles]
        for c in candidates:
            for s in seats:
                labels = [reference.label] * n
                specs = [reference.spec] * n
                labels[s], specs[s] = c.label, c.spec
                seeds = list(ref_seeds)
                seeds[s] = cand_seeds[s]
                tasks.append(GameTask(len(tasks), d, env_seed, tuple(labels), tuple(specs),
                                      tuple(seeds), "substitute", s))
    return tasks


# --------------------------------------------------------------------------- playing
@dataclass
class GameRecord:
    """What one game gives the metrics.

    Attributes:
        task: the scheduled game.
        dealt_roles / final_roles: role values per seat at the deal / the end.
        winners: winning seats (sorted); empty for a draw or truncation.
        truncated: whether ``max_turns`` ended it.
        turns, decisions: game length.
        times: per seat, float32 seconds of each ``act`` call.
        deduction: float64 rows ``(turn, observer, target, true role, p(true),
            Brier, top-1, prior p(true), prior Brier, prior top-1)``; see
            :func:`score_belief`.
        observer: float64 rows of the fixed public observer (columns
            :data:`training.social.OBS_COLS`), for the bluffing metric.
        claims: float64 rows, one per role claim (:data:`training.social.CLAIM_COLS`).
        coop: float64 ``(seats, 5)`` Guardian counters (:data:`training.social.COOP_COLS`).
        gate: int64 ``(seats, 3)``: whether the seat's agent has an advantage gate
            (:class:`agents.policy.PolicyAgent` ``has_gate``), the decisions at which the gate
            weighed candidates, and those it decided (its departures from the network's choice).
        weights_sha256: per seat, the SHA-256 of the checkpoint bytes the seat's agent loaded and
            played (its ``weights_sha256``: :class:`agents.policy.PolicyAgent`, an isolated one's
            asked in its process), None for an agent without one (a rule-based bot, an RLlib
            module); :func:`evaluate` records it as the entrant's ``sha256``.
    """

    task: GameTask
    dealt_roles: list
    final_roles: list
    winners: list
    truncated: bool
    turns: int
    decisions: int
    times: list
    deduction: np.ndarray
    observer: np.ndarray = field(default_factory=lambda: np.zeros((0, len(social.OBS_COLS))))
    claims: np.ndarray = field(default_factory=lambda: np.zeros((0, len(social.CLAIM_COLS))))
    coop: np.ndarray = field(default_factory=lambda: np.zeros((0, len(social.COOP_COLS))))
    gate: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int64))
    weights_sha256: list = field(default_factory=list)


def _normalize_belief(belief: Any) -> np.ndarray | None:
    """A belief ``{Role|str|int: p}`` as a length-4 probability vector (or None)."""
    if not isinstance(belief, dict):
        return None
    v = np.zeros(4)
    for k, p in belief.items():
        try:
            r = Role.parse(k) if isinstance(k, str) else Role(int(k))
        except (ValueError, TypeError):
            continue
        v[int(r)] += float(p)
    v = np.clip(v, 0.0, None)
    s = v.sum()
    return v / s if s > 0 else None


def score_belief(probs: Any, true_role: Role | int) -> tuple[float, float, float]:
    """Log-loss, Brier score and top-1 accuracy of one belief about one seat.

    Args:
        probs: ``{Role: p}`` (keys may also be role names or values) or a
            length-4 vector indexed by :class:`Role`; renormalised to sum 1.
        true_role: the seat's true role.

    Returns:
        ``(-ln max(p_true, 1e-12), sum_r (p_r - [r == true])^2, top1)`` where
        ``top1`` is ``1/k`` if the true role is among the ``k`` tied arg-max
        roles and 0 otherwise.

    Raises:
        ValueError: if the belief has no positive mass.
    """
    v = _normalize_belief(probs) if isinstance(probs, dict) else np.asarray(probs, dtype=float)
    if v is None or v.shape != (4,) or not np.isfinite(v).all() or v.sum() <= 0:
        raise ValueError(f"a belief needs positive mass over the four roles, got {probs!r}")
    v = v / v.sum()
    t = int(true_role)
    onehot = np.zeros(4)
    onehot[t] = 1.0
    top = np.flatnonzero(v >= v.max() - 1e-12)
    top1 = (1.0 / len(top)) if t in top else 0.0
    return float(-math.log(max(v[t], EPS))), float(((v - onehot) ** 2).sum()), top1


def play_task(task: GameTask, config: GameConfig, record_beliefs: bool = True,
              observer: bool = True, factories: dict | None = None) -> GameRecord:
    """Play one scheduled game through the PettingZoo environment (:func:`play_tasks`
    with one task; see it for the arguments and errors)."""
    return play_tasks([task], config, record_beliefs, observer, factories)[0]


def play_tasks(tasks: Sequence[GameTask], config: GameConfig, record_beliefs: bool = True,
               observer: bool = True, factories: dict | None = None, lockstep: bool = False) -> list[GameRecord]:
    """Play scheduled games through the PettingZoo environment, in task order.

    The games advance together (:func:`agents.play.run_games`); with ``lockstep``
    the trained policies' decisions of every game waiting on one are one forward
    pass per network, where a policy deciding alone pays the network's fixed
    per-call cost at every decision.  A policy's outputs in a batch equal its own
    pass's up to float rounding, so belief metrics move in their last digits and an arg-max at a near tie could
    differ from the game played alone: a lockstep evaluation gives the same
    results for the same command (same games, chunks and workers), not
    necessarily bit for bit those of one played game by game (without
    ``lockstep``, which is exact).  The per-decision seconds of
    ``GameRecord.times`` charge each decision its share of the pass.

    The evaluator reads the engine (``env.game``) only to score: the dealt and
    true roles and which seats are face down; bots see only their own
    observation and info, as in :func:`agents.play.play_game`.  A
    :class:`training.social.SocialTracker` follows the game for the bluffing,
    cooperation and talk metrics; with ``observer`` the fixed public observer
    scores every turn and claim (it is never a seat and reads only
    :func:`training.social.public_view`).

    ``factories`` (``{spec: factory}``, ``factory(seed=...)`` giving the bot) builds the specs it
    names instead of :func:`agents.make` (on a Ray worker: a shipped checkpoint or bot,
    :func:`training.ray_workers.bot_factories`); the record keeps the task's own specs.

    Raises:
        ValueError: if the line-up size differs from ``config.num_players`` or a
            spec is unknown; :class:`agents.play.BotError` (one) naming the game and
            the agent whose ``act``, ``reset`` or ``beliefs`` raised or whose action was refused.
    """
    return run_games([_task_steps(t, config, record_beliefs, observer, factories) for t in tasks], batch=lockstep)


def _task_steps(task: GameTask, config: GameConfig, record_beliefs: bool, observer: bool,
                factories: dict | None) -> Generator:
    """One task's game as a :func:`agents.play.game_steps` generator that returns its
    :class:`GameRecord` (see :func:`play_tasks`)."""
    n = config.num_players
    if len(task.specs) != n:
        raise ValueError(f"{len(task.specs)} agents for {n} seats")
    made = factories or {}
    bots = [made[spec](seed=s) if spec in made else agents.make(spec, seed=s)
            for spec, s in zip(task.specs, task.agent_seeds)]
    dist = config.distribution()     # the public identity deck (TR2.3): role_counts or the variant's
    times: list[list[float]] = [[] for _ in range(n)]
    gate = np.zeros((n, 3), np.int64)
    gate[:, 0] = [bool(getattr(b, "has_gate", False)) for b in bots]
    last_belief: dict[tuple[int, int], list] = {}
    tracker = social.SocialTracker(n, dist, social.PublicObserver() if observer else None)
    live: list = []

    def observe(g, seat: int, bot, seconds: float) -> None:
        times[seat].append(seconds)
        if gate[seat, 0]:
            gate[seat, 1] += bool(bot.last_searched)
            gate[seat, 2] += bool(bot.last_gated)
        if not live:
            live.append(g)
        tracker.update(g)
        if record_beliefs and hasattr(bot, "beliefs"):
            rows = _deduction_rows(bot_call(bot, seat, g.turn, bot.beliefs), g, seat, dist)
            if rows is not None:
                last_belief[(seat, g.turn)] = rows

    try:
        res = yield from game_steps(bots, config, seed=task.env_seed, on_decision=observe)
    except BotError as err:
        raise task.bot_error(err) from err
    if live:
        tracker.finish(live[0])
    rows = [r for key in sorted(last_belief) for r in last_belief[key]]
    obs_rows, claim_rows, coop = tracker.arrays()
    return GameRecord(task, [int(r) for r in res.dealt_roles], [int(r) for r in res.roles], sorted(res.winners),
                      res.truncated, res.turns, res.decisions,
                      [np.asarray(t, dtype=np.float32) for t in times],
                      np.asarray(rows, dtype=np.float64).reshape(-1, 10), obs_rows, claim_rows, coop, gate,
                      [getattr(b, "weights_sha256", None) for b in bots])


def _deduction_rows(beliefs: Any, g, observer: int, dist: dict) -> list | None:
    if not isinstance(beliefs, dict):
        return None
    targets = face_down_opponents(g, observer)
    prior = social.public_prior(dist, [p.role for p in g.players],
                                [observer] + [i for i, p in enumerate(g.players) if p.face_up or p.has_lost])
    rows = []
    for t in targets:
        b = beliefs.get(t, beliefs.get(str(t)))
        v = _normalize_belief(b)
        if v is None:
            continue
        true = int(g.players[t].role)
        _ll, br, top = score_belief(v, true)
        _pll, pbr, ptop = score_belief(prior, true)
        rows.append((g.turn, observer, t, true, v[true], br, top, prior[true], pbr, ptop))
    return rows


def _run_chunk(tasks: list, config: GameConfig, record_beliefs: bool, observer: bool = True,
               lockstep: bool = False) -> list:
    return play_tasks(tasks, config, record_beliefs, observer, lockstep=lockstep)


def _init_worker(parent: int, bots: bytes | None = None) -> None:
    exit_with_parent(parent)        # the pid the parent gave: a worker slow to start still sees it gone
    # Ctrl-C reaches the whole process group: the parent stops the pool (run_tasks), not each worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a forked worker inherits the parent's SIGTERM handler (catch_sigterm), which would turn the
    # parent's terminate() into an exception the pool's worker loop catches, and the worker lives on
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    setup_game_worker()
    if bots is not None:        # a spawned worker: the parent's bots registered at run time (_runtime_bots)
        import pickle
        for name, factory in pickle.loads(bots).items():
            if name not in agents.available():
                agents.register(name, factory)


def setup_game_worker() -> None:
    """What a process playing a tournament's games sets first (a pool worker here, a Ray worker in
    :mod:`training.ray_workers`): one intra-op thread (set before a policy bot imports torch; the
    workers already use the cores, and oversubscribed torch threads make single decisions slow),
    and no repeat of the warning about a policy trained on another game configuration, which
    :func:`evaluate` has given in the parent."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    if "torch" in sys.modules:
        import torch
        torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message=r"policy .* was trained on a different game configuration")


def _mp_context():
    # fork keeps bots registered at run time (agents.register) visible to workers, but a process
    # that has run torch (its OpenMP thread pool) can deadlock in a forked child: spawn then, and
    # the workers are sent those bots (_runtime_bots)
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods and "torch" not in sys.modules else "spawn")


def _runtime_bots(specs: Iterable[str]) -> bytes:
    """The bots among ``specs`` registered at run time (:func:`agents.register`; not by ``import
    agents``, which registers the toolkit's own), pickled for a spawned worker, which imports
    ``agents`` afresh and would refuse them as unknown.  cloudpickle sends a class no other
    process can import (one defined in a notebook, a script's ``__main__`` or a function) by
    value, an importable one by reference.

    Raises:
        ValueError: (one line) for a registered factory that cannot be pickled, naming it and
            how it plays instead (``workers=1``, or the bot as ``MODULE:CLASS``).
    """
    import cloudpickle

    bots = agents.registered_at_run_time(specs)
    try:
        return cloudpickle.dumps(bots)
    except Exception as err:        # whatever the factory holds that cannot be pickled (a lock, a file, ...)
        names = ", ".join(repr(n) for n in bots)
        raise ValueError(f"the bot(s) {names}, registered at run time (agents.register), cannot be sent to the "
                         f"spawned worker processes ({type(err).__name__}: {first_line(str(err))}): play them "
                         f"with workers=1, or enter the bot as MODULE:CLASS from a module of your own") from None


def _chunks(tasks: list, workers: int, lockstep: bool = False) -> list[list]:
    """The chunks of games a pool of ``workers`` plays, each one submission (a process pool's
    call or a Ray task): small enough to share the games out, large enough to cost little;
    in ``lockstep`` (:func:`play_tasks`) up to :data:`LOCKSTEP_CHUNK` games, whose policy
    decisions are batched (the more games together, the larger the batches)."""
    most, per_worker = (LOCKSTEP_CHUNK, 2) if lockstep else (16, 8)
    size = max(1, min(most, len(tasks) // (workers * per_worker)))
    return [tasks[i:i + size] for i in range(0, len(tasks), size)]


LOCKSTEP_CHUNK = 48
"""The most games a worker plays together in a lockstep evaluation (:func:`_chunks`)."""


def _games_bar(total: int, progress: bool) -> Any:
    """The games' tqdm progress bar on stderr (off without ``progress``), a context manager.

    On a terminal it clears its line when closed; elsewhere (``2>&1 | cat``, a log file) the
    clearing wrote no newline, so the next line printed (the summary) followed the bar's last
    redraw on one line: there the bar is left, its last state ending with a newline.
    """
    from tqdm import tqdm

    terminal = getattr(sys.stderr, "isatty", lambda: False)()
    return tqdm(total=total, desc="games", unit="game", disable=not progress, leave=not terminal)


def run_tasks(tasks: Sequence[GameTask], config: GameConfig, workers: int = 1,
              record_beliefs: bool = True, progress: bool = True, observer: bool = True,
              ray_address: str | None = None, lockstep: bool = False) -> list[GameRecord]:
    """Play the scheduled games, in ``workers`` processes (1: in this process),
    or with ``ray_address`` as Ray tasks, ``workers`` of them at a time
    (:func:`training.ray_workers.run_chunks`), with a tqdm progress bar on stderr;
    records come back sorted by task index, so they are the same in every case
    (``observer``: run the public observer, see :func:`play_task`; ``lockstep``: batch the
    policies' forward passes across a chunk's games, see :func:`play_tasks`).

    Args:
        ray_address: None or ``""``: local processes; ``"default"``
            (:data:`training.ray_workers.RAY_DEFAULT`): ``ray.init()``, which connects to
            ``RAY_ADDRESS`` or a cluster running on this machine, else starts a local Ray;
            another value: ``ray.init(address=ray_address)`` (``"auto"``, ``"HOST:6379"``,
            ``"ray://HOST:10001"``).  A process connected to Ray already keeps its connection.

    Raises:
        ValueError: for ``workers < 1``; with ``ray_address``, for Ray missing or an
            address it cannot connect to (one line).
        Exception: whatever a bot or the engine raises in a game.
        training.ray_workers.RayFailure: when Ray itself fails (a worker or node died).
        KeyboardInterrupt: on Ctrl-C; the worker processes are stopped first
            (they ignore SIGINT themselves), or the Ray tasks cancelled, and
            queued games are dropped.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    tasks = list(tasks)
    records: list[GameRecord] = []
    if ray_address is not None and ray_address != "":
        from . import ray_workers

        ray_workers.connect(ray_address)         # before the bar: an address it cannot reach is one line
        with _games_bar(len(tasks), progress) as bar:
            records = ray_workers.run_chunks(_chunks(tasks, workers, lockstep), config, record_beliefs, observer,
                                             in_flight=workers, address=ray_address, on_done=bar.update,
                                             lockstep=lockstep)
        records.sort(key=lambda r: r.task.index)
        return records
    with _games_bar(len(tasks), progress) as bar:
        if workers == 1 or len(tasks) <= 1:
            for c in _chunks(tasks, 1, lockstep):
                records.extend(play_tasks(c, config, record_beliefs, observer, lockstep=lockstep))
                bar.update(len(c))
        else:
            records = run_in_processes(_run_chunk, _chunks(tasks, workers, lockstep),
                                       (config, record_beliefs, observer, lockstep), workers, bar.update)
    records.sort(key=lambda r: r.task.index)
    return records


def run_in_processes(play: Callable[..., list], chunks: Sequence[list], args: tuple, workers: int,
                     on_done: Callable[[int], Any]) -> list:
    """``play(chunk, *args)`` for each chunk of games (:class:`GameTask` lists) in a pool of
    ``workers`` processes (:func:`_init_worker`), the lists it returns joined in the order the
    chunks finish, and ``on_done(len(chunk))`` (a progress bar's ``update``) as each does: the
    process pool of :func:`run_tasks` and of Throne Magic's tournaments
    (:mod:`training.throne_eval`).  Spawned workers (:func:`_mp_context`) are sent the bots the
    games name that were registered at run time (:func:`_runtime_bots`).

    Raises:
        ValueError: before any game, for such a bot that cannot be sent (:func:`_runtime_bots`).
        Exception: whatever ``play`` raises in a worker (a failed game).
        KeyboardInterrupt: on Ctrl-C (or SIGTERM, :func:`training.interrupts.catch_sigterm`).
            Either way the queued chunks are dropped and the workers, which ignore SIGINT
            themselves, are stopped before it is raised, not after they finish.
    """
    out: list = []
    ctx = _mp_context()
    bots = (_runtime_bots(dict.fromkeys(s for c in chunks for t in c for s in t.specs))
            if ctx.get_start_method() == "spawn" else None)
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(os.getpid(), bots))
    try:
        with starting_workers():        # the pool starts its workers as the chunks are submitted
            futs = {ex.submit(play, c, *args): len(c) for c in chunks}
        for f in as_completed(futs):
            out.extend(f.result())
            on_done(futs[f])
    except BaseException:
        # Ctrl-C or a failed game: drop the queued chunks and stop the workers now, not after them
        for p in list((getattr(ex, "_processes", None) or {}).values()):
            p.terminate()
        ex.shutdown(wait=True, cancel_futures=True)    # the pool, now broken, reaps its workers
        raise
    ex.shutdown(wait=True)
    return out


# --------------------------------------------------------------------------- metrics
TURN_BANDS = ((0, 2), (3, 5), (6, 10), (11, 20), (21, 40), (41, None))
"""The turn bands of :func:`deduction_metrics`' ``by_band`` (inclusive; None: no upper end; turn 0 is
before the first turn: mulligans)."""


def deduction_metrics(rows: np.ndarray, min_count: int = 1, deals: np.ndarray | None = None) -> dict:
    """Aggregate deduction rows (columns as in :class:`GameRecord`) overall, by turn and by band
    of turns (:data:`TURN_BANDS`).

    Args:
        rows: float ``(N, 10)`` deduction rows.
        min_count: turns with fewer rows are left out of ``by_turn``.
        deals: int ``(N,)``, each row's deal (its game's environment seed); with it every
            aggregate also carries 95% intervals over deals (an observer's beliefs on successive
            turns of one game move together, and the games of one deal, its rotations and
            substitutions, share its cards, so rows are not independent draws): for top-1 and
            p(true), shares in [0, 1], :func:`training.stats.clustered_rate`'s; for log-loss and
            Brier :func:`training.stats.clustered_mean`'s.

    Returns:
        ``{"rows": N, "overall": {...}, "by_turn": [{"turn", ...}, ...], "by_band": [{"turns":
        [first, last or None], ...}, ...]}`` where each ``{...}`` has ``n``, the means
        ``logloss``, ``brier``, ``top1``, ``p_true`` and the same for the public-count prior
        (``prior_logloss``, ...); with ``deals`` also ``deals`` (how many), ``intervals``
        (``{"logloss" | "brier" | "top1" | "p_true": [lo, hi]}``, None with one deal or, for a
        mean, no spread between deals to estimate: :func:`training.stats.clustered_mean`) and
        ``top1_minus_prior`` (the mean of top-1 minus the prior's on the same rows, with its
        interval: ``{"mean", "lo", "hi"}``).  Empty input gives ``{"rows": 0, "overall": None,
        "by_turn": [], "by_band": []}``.

    Raises:
        ValueError: if ``deals`` is not one deal per row.
    """
    rows = np.asarray(rows, dtype=np.float64).reshape(-1, 10)
    if deals is not None:
        deals = np.asarray(deals).reshape(-1)
        if deals.shape[0] != rows.shape[0]:
            raise ValueError(f"deduction_metrics: need one deal per row, got {deals.shape[0]} for {rows.shape[0]} rows")
    if rows.shape[0] == 0:
        return {"rows": 0, "overall": None, "by_turn": [], "by_band": []}

    def agg(sel: np.ndarray) -> dict:
        r = rows[sel]
        cols = {"logloss": -np.log(np.maximum(r[:, ROW_P], EPS)), "brier": r[:, ROW_BRIER],
                "top1": r[:, ROW_TOP1], "p_true": r[:, ROW_P]}
        prior = {"logloss": -np.log(np.maximum(r[:, ROW_PP], EPS)), "brier": r[:, ROW_PBRIER],
                 "top1": r[:, ROW_PTOP1], "p_true": r[:, ROW_PP]}
        out = {"n": int(r.shape[0]), **{k: float(v.mean()) for k, v in cols.items()},
               **{f"prior_{k}": float(v.mean()) for k, v in prior.items()}}
        if deals is not None:
            g = deals[sel]
            # top-1 and p(true) lie in [0, 1]: shares of the rows, Wilson's on their effective number (no
            # zero-width interval where every row agrees); log-loss and Brier: normal intervals
            ci = {k: clustered_share(cols[k], g) for k in ("top1", "p_true")}
            ci.update({k: clustered_mean(cols[k], g, lower=0.0, upper=None if k == "logloss" else 2.0)
                       for k in ("logloss", "brier")})
            out["deals"] = ci["top1"]["clusters"]
            out["intervals"] = {k: None if c["lo"] is None or out["deals"] < 2 else [c["lo"], c["hi"]]
                                for k, c in ci.items()}
            d = clustered_mean(cols["top1"] - prior["top1"], g, lower=-1.0, upper=1.0)
            out["top1_minus_prior"] = {"mean": d["mean"], "lo": d["lo"], "hi": d["hi"]}
        return out

    turns = rows[:, ROW_TURN].astype(int)
    by_turn = [{"turn": int(t), **agg(turns == t)} for t in np.unique(turns) if np.sum(turns == t) >= min_count]
    by_band = []
    for first, last in TURN_BANDS:
        sel = (turns >= first) & (turns <= (last if last is not None else turns.max()))
        if sel.any():
            by_band.append({"turns": [first, last], **agg(sel)})
    return {"rows": int(rows.shape[0]), "overall": agg(np.ones(rows.shape[0], bool)), "by_turn": by_turn,
            "by_band": by_band}


@dataclass(frozen=True)
class Outcome:
    """One game's result as the win-rate, substitution and rating metrics read it: from a
    :class:`GameRecord` (:meth:`of_record`) or from an entry of a results file's ``games``
    (:meth:`of_entry`), so a pooled result (:func:`pool_results`) computes them as
    :func:`summarize` does.

    Attributes:
        env_seed: the deal's environment seed (a 31-bit draw from the evaluation's seed and
            the deal number: two deals may share one, about once in 2**31 pairs, so it does
            not name a deal; ``deal`` does).
        kind: the :class:`GameTask` kind.
        lineup: entrant label per seat.
        dealt_roles: role value per seat at the deal.
        winners: winning seats.
        focus_seat: the substituted seat of a ``"substitute"`` game, else -1.
        truncated, turns: as in :class:`GameRecord`.
        deal: the deal, :func:`deal_key`: unique to it across seeds and results.
    """

    env_seed: int
    kind: str
    lineup: tuple
    dealt_roles: tuple
    winners: frozenset
    focus_seat: int
    truncated: bool
    turns: int
    deal: tuple

    @classmethod
    def of_record(cls, rec: "GameRecord", seed: Any) -> "Outcome":
        """The outcome of a played game of the evaluation of ``seed``."""
        return cls(rec.task.env_seed, rec.task.kind, tuple(rec.task.lineup), tuple(int(r) for r in rec.dealt_roles),
                   frozenset(rec.winners), rec.task.focus_seat, bool(rec.truncated), int(rec.turns),
                   deal_key(rec.task.env_seed, seed, rec.task.deal))

    @classmethod
    def of_entry(cls, g: dict, reference: str | None, seed: Any = None) -> "Outcome":
        """The outcome of a ``results.json`` games entry (:func:`summarize`'s ``games``) of the
        evaluation of ``seed`` (:func:`_game_seeds`); the
        substituted seat of a file written before entries held it is the one not holding
        ``reference``.

        Raises:
            KeyError, ValueError: for an entry that is not one, or whose seats do not fit its
                lineup (a winner or the substituted seat outside it, dealt roles of another
                length) or whose turns are negative (the caller words the error).
        """
        focus = g.get("focus_seat")
        if focus is None:
            focus = next(i for i, lab in enumerate(g["lineup"]) if lab != reference) \
                if g["kind"] == "substitute" else -1
        out = cls(int(g["env_seed"]), g["kind"], tuple(g["lineup"]),
                  tuple(int(_ROLE_BY_NAME[r]) for r in g["dealt_roles"]), frozenset(int(w) for w in g["winners"]),
                  int(focus), bool(g["truncated"]), int(g["turns"]), deal_key(g["env_seed"], seed, g["deal"]))
        n = len(out.lineup)
        if len(out.dealt_roles) != n or not out.winners <= set(range(n)) or not -1 <= out.focus_seat < n or out.turns < 0:
            raise ValueError(f"game of deal {g['deal']}: its lineup, dealt roles, winners ({sorted(out.winners)}), "
                             f"substituted seat and turns do not fit a {n}-player game")
        return out


def deal_key(env_seed: int, seed: Any, deal: int) -> tuple:
    """What names a deal across seeds and results: ``(env_seed, seed, deal)``, the evaluation's
    ``seed`` (as JSON text) and the deal's number in it.  The environment seed alone does not:
    it is a 31-bit draw from the other two, so two deals of a 10,000-deal evaluation share one
    in about one run in 40, and two such evaluations of other seeds in about one pair in 20 (their
    win rates were counted as one deal's, a substitution compared with the other deal's
    reference game, ``treachery compare`` kept one of the two pairs, ``treachery pool``
    refused the evaluations as sharing a deal).  It comes first so that deals sort as they did
    when the environment seed named them (the same intervals, to the last digit, where no two
    deals share one)."""
    return int(env_seed), json.dumps(int(seed) if isinstance(seed, np.integer) else seed), int(deal)


def _cluster_ids(keys: Sequence[tuple]) -> list[int]:
    """Each of ``keys`` (:func:`deal_key`) as an int, the rank of its deal in sorted order: the
    clusters of :func:`training.stats.clustered_mean`, which takes integers."""
    rank = {k: i for i, k in enumerate(sorted(set(keys)))}
    return [rank[k] for k in keys]


def _game_seeds(res: dict) -> list:
    """The evaluation seed of each of ``res``'s games: the entry's own ``seed`` (a pooled result's
    entries hold it), else the result's ``meta["seed"]``, or, for a pooled result written before its
    entries held it, its sources' seeds over their games in order (``meta["pooled"]``)."""
    m, games = res["meta"], res["games"]
    if m.get("pooled") and not all(isinstance(g, dict) and "seed" in g for g in games):
        per = [p.get("seed") for p in m["pooled"] for _ in range(int(p.get("games") or 0))]
        if len(per) == len(games):
            return [g.get("seed", q) if isinstance(g, dict) else q for g, q in zip(games, per)]
    return [g.get("seed", m.get("seed")) if isinstance(g, dict) else m.get("seed") for g in games]


def _ratings(outcomes: Sequence[Outcome], labels: Sequence[str]) -> dict:
    """OpenSkill Plackett-Luce ratings, games in schedule order; every seat is a
    one-player team ranked 1 (won) or 2 (lost); an entrant in several seats
    gets the mean of its seats' updates.  Games without winners are skipped."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    state = {lab: (model.mu, model.sigma) for lab in labels}
    rated = 0
    for rec in outcomes:
        if not rec.winners:
            continue
        lineup = rec.lineup
        if len(set(lineup)) < 2:
            continue
        teams = [[model.rating(mu=state[lab][0], sigma=state[lab][1])] for lab in lineup]
        ranks = [1 if s in rec.winners else 2 for s in range(len(lineup))]
        new = model.rate(teams, ranks=ranks)
        upd: dict[str, list] = {}
        for lab, team in zip(lineup, new):
            upd.setdefault(lab, []).append((team[0].mu, team[0].sigma))
        for lab, vals in upd.items():
            mu0 = state[lab][0]
            state[lab] = (mu0 + float(np.mean([v[0] - mu0 for v in vals])), float(np.mean([v[1] for v in vals])))
        rated += 1
    return {"model": "openskill PlackettLuce", "rated_games": rated,
            "entrants": {lab: {"mu": mu, "sigma": sg, "ordinal": mu - 3 * sg} for lab, (mu, sg) in state.items()}}


def _outcome_metrics(outcomes: Sequence[Outcome], labels: Sequence[str]) -> dict:
    """What :func:`summarize` reads off the games' outcomes alone: ``summary``, ``winrates``,
    ``crossplay`` (opposing seats), ``substitution`` and ``ratings`` (see :func:`summarize`)."""
    all_w: dict[str, dict] = {lab: {} for lab in labels}        # {deal: [wins, seat-games]}
    role_w: dict[str, dict] = {lab: {r: {} for r in ROLES} for lab in labels}
    team_w: dict[str, dict] = {lab: {t: {} for t in TEAM_NAMES} for lab in labels}
    cross: dict[tuple, dict] = {(a, b): {} for a in labels for b in labels}
    truncated = draws = 0
    for rec in outcomes:
        truncated += rec.truncated
        draws += (not rec.winners and not rec.truncated)
        lineup = rec.lineup
        for s, lab in enumerate(lineup):
            r = Role(rec.dealt_roles[s])
            w = s in rec.winners
            _count(all_w[lab], rec.deal, w)
            _count(role_w[lab][r], rec.deal, w)
            _count(team_w[lab][team_of(r)], rec.deal, w)
            for b in _opponent_labels(lineup, rec.dealt_roles, s):
                _count(cross[(lab, b)], rec.deal, w)
    winrates = {}
    for lab in labels:
        winrates[lab] = {
            "overall": _deal_rate(all_w[lab]),
            "roles": {ROLE_NAMES[r]: _deal_rate(role_w[lab][r]) for r in ROLES},
            "teams": {TEAM_NAMES[t]: _deal_rate(team_w[lab][t]) for t in TEAM_NAMES},
        }
    crossplay = {"definition": "opposing seats", "labels": list(labels),
                 "matrix": [[_deal_rate(cross[(a, b)]) for b in labels] for a in labels]}

    # substitution deltas: each substitute game against its deal's all-reference game
    substitution = None
    refs = {rec.deal: rec for rec in outcomes if rec.kind == "reference"}
    subs = [rec for rec in outcomes if rec.kind == "substitute"]
    if refs and subs:
        ref_label = next(iter(refs.values())).lineup[0]
        pairs: dict[str, dict[Role, list]] = {}
        for rec in subs:
            ref = refs.get(rec.deal)
            if ref is None:
                continue
            s = rec.focus_seat
            lab = rec.lineup[s]
            r = Role(rec.dealt_roles[s])
            pairs.setdefault(lab, {q: [] for q in ROLES})[r].append((int(s in rec.winners), int(s in ref.winners),
                                                                   rec.deal))
        substitution = {"reference": ref_label, "candidates": {}}
        for lab, per_role in pairs.items():
            out = {}
            allp = [p for r in ROLES for p in per_role[r]]
            for name, ps in [(ROLE_NAMES[r], per_role[r]) for r in ROLES] + [("overall", allp)]:
                out[name] = _delta(ps)
            substitution["candidates"][lab] = out
    return {"summary": {"games": len(outcomes), "truncated": int(truncated), "draws": int(draws),
                        "mean_turns": float(np.mean([r.turns for r in outcomes])) if outcomes else None},
            "winrates": winrates, "crossplay": crossplay, "substitution": substitution,
            "ratings": _ratings(outcomes, labels)}


def summarize(records: Sequence[GameRecord], entrants: Sequence[Entrant], meta: dict | None = None) -> dict:
    """All metrics of a tournament as a JSON-ready dict.

    Keys: ``meta``, ``summary`` (games, truncated, draws), ``winrates``
    (per entrant: ``overall``, ``roles`` and ``teams``, each ``{wins, games,
    rate, lo, hi, deals}`` with the 95% interval clustered by deal,
    :func:`_deal_rate`), ``substitution`` (per
    candidate and role: matched pairs, candidate and reference win rates,
    ``delta`` with a normal 95% interval on the paired differences clustered by
    deal, and the ``deals`` the pairs come from (:func:`_delta`); None
    without substitution games), ``ratings``, ``crossplay`` (``labels`` and
    ``matrix[a][b]``: the win rate of entrant a's seats over the games
    where entrant b holds a seat of another team, by dealt role, cells as
    ``winrates``), ``deduction`` (per observer entrant, see
    :func:`deduction_metrics`), ``deception`` (per deceiving entrant: mean
    probability observers give to its true role while it is a face-down
    Traitor or Assassin, with the prior), ``gate`` (per entrant whose agent has an
    advantage gate, overall and by dealt role: its ``seat_games``, ``decisions``, the
    ``searched`` ones at which the gate weighed candidates, its ``departures``, and
    ``of_searched``, their share of the searched with the 95% interval of
    :func:`training.stats.clustered_rate` over deals), ``bluffing``, ``cooperation``,
    ``talk`` (per entrant; :func:`training.social.bluff_metrics`,
    :func:`~training.social.cooperation_metrics`,
    :func:`~training.social.talk_metrics`), ``teamplay`` (None outside
    ``mode="teammates"``; :func:`~training.social.teamplay_metrics`), ``timing`` (decision latency per
    entrant, milliseconds; not deterministic) and ``games`` (one compact
    entry per game).
    """
    labels = [e.label for e in entrants]
    outcomes = [Outcome.of_record(rec, (meta or {}).get("seed")) for rec in records]
    game_deals = [o.deal for o in outcomes]         # each game's deal (deal_key)
    game_clusters = _cluster_ids(game_deals)        # the same as ints, for the intervals over rows
    base = _outcome_metrics(outcomes, labels)
    crossplay = base["crossplay"]
    cp_games = [(rec, deal) for rec, deal in zip(records, game_deals) if rec.task.kind == "crossplay"]
    if cp_games:
        cells: dict[tuple, dict] = {(a, b): {} for a in labels for b in labels}     # {deal: [wins, seat-games]}
        sides: dict[str, dict] = {lab: {} for lab in labels}
        for rec, deal in cp_games:
            a = rec.task.focus
            others = {lab for lab in rec.task.lineup if lab != a}
            b = next(iter(others)) if others else a
            for s, lab in enumerate(rec.task.lineup):
                if lab != a:
                    continue
                w = s in rec.winners
                _count(cells[(a, b)], deal, w)
                if b != a:
                    _count(sides[a].setdefault((b, TEAM_NAMES[team_of(Role(rec.dealt_roles[s]))]), {}), deal, w)
        crossplay = {"definition": "team split", "labels": labels,
                     "matrix": [[_deal_rate(cells[(a, b)]) for b in labels] for a in labels],
                     "by_team": {a: {b: {t: _deal_rate(sides[a][(b, t)]) for (bb, t) in sides[a] if bb == b}
                                     for b in labels if b != a} for a in labels}}

    # deduction and deception
    deduction, deception = {}, {}
    obs_rows: dict[str, list] = {}
    obs_deals: dict[str, list] = {}
    dec_rows: dict[str, list] = {}
    dec_deals: dict[str, list] = {}
    for rec, cluster in zip(records, game_clusters):
        if rec.deduction.shape[0] == 0:
            continue
        lineup = rec.task.lineup
        obs_lab = np.array([lineup[int(o)] for o in rec.deduction[:, ROW_OBS]])
        tgt_lab = np.array([lineup[int(t)] for t in rec.deduction[:, ROW_TARGET]])
        for lab in set(obs_lab):
            obs_rows.setdefault(lab, []).append(rec.deduction[obs_lab == lab])
            obs_deals.setdefault(lab, []).append(np.full(int(np.sum(obs_lab == lab)), cluster))
        hidden_bad = np.isin(rec.deduction[:, ROW_TRUE], [int(Role.ASSASSIN), int(Role.TRAITOR)])
        for lab in set(tgt_lab[hidden_bad]):
            dec_rows.setdefault(lab, []).append(rec.deduction[hidden_bad & (tgt_lab == lab)])
            dec_deals.setdefault(lab, []).append(np.full(int(np.sum(hidden_bad & (tgt_lab == lab))), cluster))
    for lab in labels:
        if lab in obs_rows:
            deduction[lab] = deduction_metrics(np.concatenate(obs_rows[lab]), deals=np.concatenate(obs_deals[lab]))
        if lab in dec_rows:
            rows = np.concatenate(dec_rows[lab])
            per = {}
            for r in (Role.ASSASSIN, Role.TRAITOR):
                sel = rows[rows[:, ROW_TRUE] == int(r)]
                if sel.shape[0]:
                    per[ROLE_NAMES[r]] = {"n": int(sel.shape[0]), "p_true": float(sel[:, ROW_P].mean()),
                                          "prior_p_true": float(sel[:, ROW_PP].mean())}
            deals = np.concatenate(dec_deals[lab])
            share = clustered_share(rows[:, ROW_P], deals)
            below = clustered_mean(rows[:, ROW_P] - rows[:, ROW_PP], deals, lower=-1.0, upper=1.0)
            deception[lab] = {"n": int(rows.shape[0]), "deals": share["clusters"],
                              "p_true": float(rows[:, ROW_P].mean()),
                              "p_true_interval": None if share["clusters"] < 2 else [share["lo"], share["hi"]],
                              "prior_p_true": float(rows[:, ROW_PP].mean()),
                              "minus_prior": {"mean": below["mean"], "lo": below["lo"], "hi": below["hi"]},
                              "roles": per,
                              "by_turn": [{"turn": b["turn"], "n": b["n"], "p_true": b["p_true"],
                                           "prior_p_true": b["prior_p_true"]}
                                          for b in deduction_metrics(rows)["by_turn"]]}

    # timing
    timing = {}
    for lab in labels:
        ts = [rec.times[s] for rec in records for s, l2 in enumerate(rec.task.lineup) if l2 == lab]
        allt = np.concatenate(ts) if ts else np.zeros(0, dtype=np.float32)
        timing[lab] = {"decisions": int(allt.size),
                       "p50_ms": float(np.percentile(allt, 50) * 1e3) if allt.size else None,
                       "p95_ms": float(np.percentile(allt, 95) * 1e3) if allt.size else None,
                       "max_ms": float(allt.max() * 1e3) if allt.size else None}

    # the advantage gate's departures, for entrants whose agent has one
    gate = {}
    for lab in labels:
        seats = [(rec, s, deal) for rec, deal in zip(records, game_deals) for s, l2 in enumerate(rec.task.lineup)
                 if l2 == lab and rec.gate.shape[0] > s and rec.gate[s, 0]]
        if not seats:
            continue

        def gate_agg(sel: list) -> dict:
            per_deal: dict[tuple, np.ndarray] = {}      # a deal's seat-games of this entrant: one cluster
            for rec, s, deal in sel:
                per_deal[deal] = per_deal.get(deal, 0) + rec.gate[s, 1:]
            searched, departed = (np.array([c[j] for c in per_deal.values()], dtype=float) for j in (0, 1))
            return {"seat_games": len(sel), "decisions": int(sum(len(rec.times[s]) for rec, s, _ in sel)),
                    "searched": int(searched.sum()), "departures": int(departed.sum()),
                    "of_searched": by_deal(clustered_rate(departed, searched))}

        gate[lab] = {**gate_agg(seats), "roles": {
            ROLE_NAMES[r]: gate_agg(sel) for r in ROLES
            if (sel := [(rec, s, deal) for rec, s, deal in seats if rec.dealt_roles[s] == int(r)])}}

    games = [{"index": rec.task.index, "deal": rec.task.deal, "env_seed": rec.task.env_seed,
              "kind": rec.task.kind, "lineup": list(rec.task.lineup), "focus_seat": rec.task.focus_seat,
              "dealt_roles": [ROLE_NAMES[Role(r)] for r in rec.dealt_roles],
              "final_roles": [ROLE_NAMES[Role(r)] for r in rec.final_roles],
              "winners": rec.winners, "truncated": rec.truncated, "turns": rec.turns,
              "decisions": rec.decisions} for rec in records]
    no_beliefs = [lab for lab in labels if lab not in deduction]
    return {
        "meta": dict(meta or {}),
        "summary": base["summary"],
        "winrates": base["winrates"],
        "substitution": base["substitution"],
        "ratings": base["ratings"],
        "crossplay": crossplay,
        "deduction": deduction,
        "deception": deception,
        "deduction_note": ("no deduction or deception numbers: beliefs() not scored (--no-beliefs)"
                           if (meta or {}).get("beliefs") is False else
                           "no deduction numbers (no beliefs() recorded) for: " + ", ".join(no_beliefs)
                           if no_beliefs else ""),
        "gate": gate,
        "bluffing": social.bluff_metrics(records, labels, game_clusters),
        "cooperation": social.cooperation_metrics(records, labels, game_clusters),
        "talk": social.talk_metrics(records, labels, game_clusters),
        "teamplay": social.teamplay_metrics(records, game_clusters),
        "timing": timing,
        "games": games,
    }


def _opponent_labels(lineup: Sequence[str], dealt_roles: Sequence[int], seat: int) -> set:
    """Labels of the seats opposed to ``seat`` by dealt role: another team
    (CR 907.7a: Leader+Guardians, the Assassins, and each Traitor alone)."""
    mine = team_of(Role(dealt_roles[seat]))
    out = set()
    for o, lab in enumerate(lineup):
        if o == seat:
            continue
        t = team_of(Role(dealt_roles[o]))
        if t != mine or t == Team.TRAITOR:
            out.add(lab)
    return out


def _delta(pairs: Sequence[tuple[int, int, tuple]]) -> dict:
    """Mean paired difference of ``(candidate won, reference won, deal)`` pairs (each win 0/1; the deal's
    :func:`deal_key`)
    with a normal 95% interval clustered by deal (:func:`training.stats.clustered_mean`), clipped
    to the possible range [-1, 1]: the pairs of one deal share its cards and its reference game
    (a 5-player deal's two Assassin seats share the very same reference outcome), so they are
    not independent draws.  ``deals`` counts the deals the pairs come from."""
    n = len(pairs)
    if n == 0:
        return {"pairs": 0, "deals": 0, "candidate_rate": None, "reference_rate": None, "delta": None, "lo": None,
                "hi": None}
    a = np.array([p[:2] for p in pairs], dtype=float)
    d = clustered_mean(a[:, 0] - a[:, 1], _cluster_ids([p[2] for p in pairs]), lower=-1.0, upper=1.0)
    return {"pairs": n, "deals": d["clusters"], "candidate_rate": float(a[:, 0].mean()),
            "reference_rate": float(a[:, 1].mean()), "delta": d["mean"], "lo": d["lo"], "hi": d["hi"]}


def read_results(path: str | os.PathLike) -> dict:
    """The results dict of :func:`write_results` from its ``results.json`` or the folder holding it.

    Raises:
        ValueError: (one line) if the file does not exist (:func:`agents.files.check_input_file`), the
            folder has no ``results.json``, or the file is not a results JSON of ``treachery evaluate``:
            not JSON, a Throne Magic result, or a meta whose entrants, or a games entry whose fields
            (:meth:`Outcome.of_entry`), compare and pool could not read.
    """
    p = Path(path)
    if p.is_dir():
        if not (p / "results.json").is_file():
            raise ValueError(f"results folder {str(p)!r} has no results.json")
        p = p / "results.json"
    check_input_file(p, "results file")
    try:
        res = json.loads(p.read_text())
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{str(p)!r} is not a results JSON ({type(err).__name__})") from err
    if isinstance(res, dict) and isinstance(res.get("meta"), dict) and res["meta"].get("game") == "throne_magic":
        raise ValueError(f"{str(p)!r} holds a Throne Magic tournament (its table by Role is its results.md); "
                         f"compare, pool and export read Treachery's results")
    if not isinstance(res, dict) or "meta" not in res or "games" not in res:
        raise ValueError(f"{str(p)!r} is not a results JSON of treachery evaluate (no meta or games)")
    meta, games = res["meta"], res["games"]
    entrants = meta.get("entrants") if isinstance(meta, dict) else None
    if not isinstance(games, list) or not isinstance(entrants, list) or not all(
            isinstance(e, dict) and isinstance(e.get("label"), str) and isinstance(e.get("spec"), str)
            for e in entrants):
        raise ValueError(f"{str(p)!r} is not a results JSON of treachery evaluate (its meta's entrants or its "
                         f"games list is missing or malformed)")
    if meta.get("mode") == "substitution" and not isinstance(meta.get("reference"), str):
        raise ValueError(f"{str(p)!r} is not a results JSON of treachery evaluate (a substitution result "
                         f"without its reference)")
    for i, (g, seed) in enumerate(zip(games, _game_seeds(res))):      # what compare and pool read of each game
        if not isinstance(g, dict):
            raise ValueError(f"{str(p)!r}: games entry {i} is not one of treachery evaluate (not an object)")
        try:
            Outcome.of_entry(g, meta.get("reference"), seed)
        except (KeyError, ValueError, TypeError, AttributeError, StopIteration) as err:
            raise ValueError(f"{str(p)!r}: games entry {i} is not one of treachery evaluate "
                             f"({type(err).__name__}: {err})") from None
    return res


def _substitute_wins(res: dict) -> tuple[str, dict]:
    """The candidate's label and ``{(deal, seat): (dealt role, won)}`` of a
    substitution result with one candidate (the deal's :func:`deal_key`)."""
    meta = res.get("meta", {})
    if meta.get("mode") != "substitution":
        raise ValueError(f"paired comparison needs substitution results, got mode {meta.get('mode')!r}")
    ref = meta["reference"]
    cands = [e["label"] for e in meta["entrants"] if e["label"] != ref]
    if len(cands) != 1:
        raise ValueError(f"paired comparison needs results with exactly one candidate, got {cands}")
    out = {}
    for g, seed in zip(res["games"], _game_seeds(res)):
        if g["kind"] != "substitute":
            continue
        seat = next(i for i, lab in enumerate(g["lineup"]) if lab != ref)
        out[(deal_key(g["env_seed"], seed, g["deal"]), seat)] = (g["dealt_roles"][seat], seat in g["winners"])
    return cands[0], out


def paired_delta(before: dict, after: dict) -> dict:
    """Two candidates evaluated against the same reference on the same deals
    (two substitution results with the same seed and game), compared seat-game
    by seat-game: the mean of ``after``'s win minus ``before``'s in the same
    seat of the same deal, per dealt role and overall, with normal 95%
    intervals clustered by deal (:func:`training.stats.clustered_mean`: the
    seat-games of one deal share its cards, so they are not independent draws;
    the pairing removes the deal's luck, as the substitution delta does against
    the reference).

    Args:
        before, after: results dicts of :func:`evaluate` (``results.json``),
            ``mode="substitution"`` with one candidate each.

    Returns:
        ``{"before", "after" (labels), "reference", "roles": {role or
        "overall": {"n", "deals", "mean", "lo", "hi"}}, "shared", "before_games",
        "after_games"}`` (seat-games in both, and in each; ``deals`` the deals
        the ``n`` seat-games come from; ``lo`` and ``hi`` None where the spread
        between deals cannot be estimated).

    Raises:
        ValueError: if either is not a one-candidate substitution result, the
            references (their labels, or a policy reference's file where both record its
            SHA-256) or game configurations differ, or no seat-game is in both.
    """
    for r in (before, after):
        if r["meta"].get("mode") != "substitution":
            raise ValueError(f"paired comparison needs substitution results; one is a "
                             f"{r['meta'].get('mode')!r} tournament (evaluate with --mode substitution)")
    if before["meta"].get("reference") != after["meta"].get("reference"):
        raise ValueError(f"paired comparison needs the same reference in both results: "
                         f"{before['meta'].get('reference')!r} vs {after['meta'].get('reference')!r}")
    ref = before["meta"]["reference"]
    files = [next((e.get("sha256") for e in r["meta"]["entrants"] if e["label"] == ref), None) for r in (before, after)]
    if None not in files and files[0] != files[1]:
        raise ValueError(f"paired comparison needs the same reference in both results: {ref!r} played different "
                         f"files (SHA-256 {files[0][:12]}... vs {files[1][:12]}...)")
    differ = _game_differences(before["meta"], after["meta"])
    if differ:
        raise ValueError("paired comparison needs the same game in both results; they differ in " + differ)
    a_label, a = _substitute_wins(before)
    b_label, b = _substitute_wins(after)
    shared = sorted(set(a) & set(b))
    if not shared:
        if {k[0] for k in a} & {k[0] for k in b}:
            ra, rb = (", ".join(r["meta"].get("roles") or ["every role"]) for r in (before, after))
            raise ValueError(f"the two results share deals but no seat-game: they evaluated the seats of other "
                             f"roles (--roles: {ra} vs {rb})")
        raise ValueError(f"the two results share no deal (seeds {before['meta'].get('seed')} and "
                         f"{after['meta'].get('seed')}): evaluate both with the same --seed and --games")
    diffs: dict[str, list[tuple[float, tuple]]] = {}
    for k in shared:
        d = (float(b[k][1]) - float(a[k][1]), k[0])
        diffs.setdefault(a[k][0], []).append(d)
        diffs.setdefault("overall", []).append(d)
    roles = {}
    for r in [*(ROLE_NAMES[x] for x in ROLES), "overall"]:
        if r in diffs:
            m = clustered_mean([d for d, _ in diffs[r]], _cluster_ids([deal for _, deal in diffs[r]]), lower=-1.0,
                               upper=1.0)
            roles[r] = {"n": m["n"], "deals": m["clusters"], "mean": m["mean"], "lo": m["lo"], "hi": m["hi"]}
    return {"before": a_label, "after": b_label, "reference": before["meta"]["reference"], "roles": roles,
            "shared": len(shared), "before_games": len(a), "after_games": len(b)}


POOLABLE_MODES = ("rotate", "substitution")
_PER_DECISION = ("deduction", "deception", "gate", "bluffing", "cooperation", "talk", "timing")


def pool_results(results: Sequence[dict], sources: Sequence[str] | None = None) -> dict:
    """Several evaluations of the same entrants on the same game, over different deals
    (other ``--seed`` values, or shards of one tournament), as one result: its games
    concatenated (``index`` numbered through them) in one order, whatever order ``results``
    are given in (by seed, then deal: :func:`_pool_order`), and ``summary``, ``winrates``, ``crossplay`` (opposing seats),
    ``substitution`` and ``ratings`` computed from them as :func:`summarize` computes
    them (:class:`Outcome`), so a substitution delta over 12,000 games pooled from two
    6,000-game runs is the one a 12,000-game run on those deals would give, and
    :func:`paired_delta` (``treachery compare``) pairs pooled results seat-game by
    seat-game.  The per-decision metrics (deduction, deception, the gate, bluffing,
    cooperation, talk, latency) are not in a results file's games, so a pooled result
    holds none (empty; ``meta["pooled_note"]`` says where they are).

    Args:
        results: two or more results dicts (:func:`read_results`), mode ``"rotate"``
            or ``"substitution"``.
        sources: a name for each (its path), kept in ``meta["pooled"]``.

    Returns:
        a results dict (as :func:`summarize`'s) whose ``meta["seed"]`` lists the
        pooled seeds and ``meta["pooled"]`` each source's ``{"source", "seed", "deals",
        "games", "shard"}``, in that order; ``deals`` and ``games`` are the sums.

    Raises:
        ValueError: (one line) for fewer than two results, a mode that cannot be pooled
            (crossplay and team play measure with per-game focus the games list lacks),
            results that differ in entrants, reference or game configuration, a policy
            entrant whose file's SHA-256 differs between them (where both record it), parts of one
            seed's deals that are not one evaluation of them (shards of another ``--games``, or parts
            leaving deals out between them: :func:`_check_seed_parts`), or
            a deal (the same seed's deal number, :func:`deal_key`) in more than one of them.
    """
    results = list(results)
    sources = [f"result {i + 1}" for i in range(len(results))] if sources is None else list(sources)
    if len(results) < 2:
        raise ValueError(f"pooling needs at least two results, got {len(results)}")
    # one order however they are given (the ratings are updated game by game, so they depend on it)
    order = sorted(range(len(results)), key=lambda i: _pool_order(results[i], sources[i]))
    results, sources = [results[i] for i in order], [sources[i] for i in order]
    first = results[0]["meta"]
    for res, src in zip(results, sources):
        m = res["meta"]
        if m.get("mode") not in POOLABLE_MODES:
            raise ValueError(f"{src} is a {m.get('mode')!r} tournament; only {' and '.join(POOLABLE_MODES)} "
                             f"results can be pooled")
        for key in ("mode", "entrants", "reference", "num_players", "roles"):
            mine, theirs = m.get(key), first.get(key)
            if key == "entrants":      # by label and spec; the policy files' bytes just below
                mine, theirs = ([(e["label"], e["spec"]) for e in x or []] for x in (mine, theirs))
            if key == "roles" and mine != theirs:
                raise ValueError(f"{src} differs from {sources[0]} in the roles evaluated (--roles: "
                                 f"{', '.join(mine or ['every role'])} vs {', '.join(theirs or ['every role'])}); "
                                 f"pooled results must be of the same seats")
            if mine != theirs:
                raise ValueError(f"{src} differs from {sources[0]} in {key} ({mine!r} vs {theirs!r}); "
                                 f"pooled results must be of the same entrants on the same game")
        differ = _game_differences(m, first)
        if differ:
            raise ValueError(f"{src} differs from {sources[0]} in the game: {differ}")
        for e, e0 in zip(m["entrants"], first["entrants"]):
            if "sha256" in e and "sha256" in e0 and e["sha256"] != e0["sha256"]:
                raise ValueError(f"{src} and {sources[0]} played different files as {e['label']!r} (SHA-256 "
                                 f"{e['sha256'][:12]}... vs {e0['sha256'][:12]}...); pooled results must be of "
                                 f"the same policy")
    _check_seed_parts(results, sources)
    try:
        seeds = [_game_seeds(res) for res in results]
        parts = [[Outcome.of_entry(g, first.get("reference"), seed) for g, seed in zip(res["games"], ss)]
                 for res, ss in zip(results, seeds)]
    except (KeyError, ValueError, TypeError, AttributeError, StopIteration) as err:
        raise ValueError(f"a games entry is not one of treachery evaluate ({type(err).__name__}: {err})") from None
    owner: dict[tuple, str] = {}
    for part, src in zip(parts, sources):
        for deal in {o.deal for o in part}:
            if deal in owner:
                raise ValueError(f"{src} and {owner[deal]} share a deal (seed {deal[1]}, deal {deal[2]}): pool "
                                 f"evaluations with different --seed values (or different shards)")
            owner[deal] = src
    labels = [e["label"] for e in first["entrants"]]
    outcomes = [o for part in parts for o in part]
    kits = [r["meta"].get("toolkit") for r in results]
    meta = {**{k: v for k, v in first.items()
               if k not in ("games_requested", "shard", "lockstep", "beliefs", "toolkit")},
            **({"toolkit": kits[0]} if kits[0] and all(k == kits[0] for k in kits) else {}),
            "seed": [r["meta"].get("seed") for r in results],
            "deals": sum(int(r["meta"].get("deals", 0)) for r in results),
            "games": sum(int(r["meta"].get("games", 0)) for r in results),
            "pooled": [{"source": src, "seed": r["meta"].get("seed"), "deals": r["meta"].get("deals"),
                        "games": r["meta"].get("games"), "shard": r["meta"].get("shard"),
                        **({"lockstep": True} if r["meta"].get("lockstep") else {}),
                        **({"toolkit": r["meta"]["toolkit"]} if r["meta"].get("toolkit") else {})}
                       for r, src in zip(results, sources)],
            "pooled_note": "pooled from " + ", ".join(sources) + ": the per-decision metrics (deduction, "
                           "deception, the gate, bluffing, cooperation, talk, latency) are in each source's "
                           "results, not pooled"}
    games = [{**g, "index": i, "seed": seed}        # whose deal it is, for compare and a later pool
             for i, (g, seed) in enumerate((g, seed) for res, ss in zip(results, seeds)
                                           for g, seed in zip(res["games"], ss))]
    return {"meta": meta, **_outcome_metrics(outcomes, labels), **{k: {} for k in _PER_DECISION},
            "deduction_note": "", "teamplay": None, "games": games}


def _pool_order(res: dict, source: str) -> list:
    """What :func:`pool_results` orders its sources by: the seeds and first deals of the
    evaluations each holds (:func:`_parts_played`), so the shards of one tournament are pooled in
    the order of their deals, as the whole tournament plays them, and the evaluations of other
    seeds in the order of their seeds, whatever order they are given in."""
    return sorted(((0, seed, "") if isinstance(seed, int) else (1, 0, json.dumps(seed)), deals.start)
                  for _, seed, _, deals in _parts_played(res, source))


def _parts_played(res: dict, source: str) -> list[tuple[str, Any, dict | None, range]]:
    """The evaluations ``res`` holds, each ``(name, seed, shard, deals)``: the result itself, or for
    a pooled result each of its sources (``meta["pooled"]``); ``deals`` the range of deal numbers it
    played (a whole tournament's begin at 0, a shard's at its ``first_deal``)."""
    m = res["meta"]
    parts = ([(f"{source}'s source {p.get('source')}", p.get("seed"), p.get("shard"), p.get("deals"))
              for p in m["pooled"]] if m.get("pooled") else [(source, m.get("seed"), m.get("shard"), m.get("deals"))])
    return [(name, seed, shard, range(shard["first_deal"] if shard else 0,
                                      (shard["first_deal"] if shard else 0) + int(deals or 0)))
            for name, seed, shard, deals in parts]


def _check_seed_parts(results: Sequence[dict], sources: Sequence[str]) -> None:
    """Refuse, for :func:`pool_results`, parts of one seed's deals that are not one evaluation of
    them: shards of tournaments of other sizes (other ``--games``, so other shard bounds), or parts
    that leave deals out between them.  A whole run (deals 0 to D - 1) and the shards of a larger
    tournament of its seed that follow its deals are one; other seeds are other evaluations.
    Deals played twice are :func:`pool_results`'s own refusal.

    Raises:
        ValueError: (one line) naming the two parts and what differs.
    """
    by_seed: dict = {}
    for res, src in zip(results, sources):
        for name, seed, shard, deals in _parts_played(res, src):
            by_seed.setdefault(json.dumps(seed), []).append((name, shard, deals))
    for seed, parts in by_seed.items():
        shards = [(name, shard) for name, shard, _ in parts if shard]
        for name, shard in shards[1:]:
            name0, shard0 = shards[0]
            if shard["deals_total"] != shard0["deals_total"]:
                raise ValueError(f"{name} and {name0} are shards of different evaluations of seed {seed}: shard "
                                 f"{shard['index']}/{shard['of']} of {shard['deals_total']} deals vs shard "
                                 f"{shard0['index']}/{shard0['of']} of {shard0['deals_total']} deals (another "
                                 f"--games); pool the shards of one --games")
        parts.sort(key=lambda p: (p[2].start, p[2].stop))
        name0, _, deals0 = parts[0]
        for name, _, deals in parts[1:]:
            if deals.start > deals0.stop:
                left = (f"deal {deals0.stop}" if deals.start == deals0.stop + 1
                        else f"deals {deals0.stop}-{deals.start - 1}")
                raise ValueError(f"{name0} (deals {deals0.start}-{deals0.stop - 1}) and {name} (deals "
                                 f"{deals.start}-{deals.stop - 1}) are parts of seed {seed}'s evaluation that "
                                 f"leave {left} out; pool the shard of those deals too")
            if deals.stop > deals0.stop:
                name0, deals0 = name, deals


def _game_differences(a: dict, b: dict) -> str:
    """The game configuration fields in which two results' ``meta`` differ, as
    ``"talk ('none' vs 'structured'), planechase (off vs 'single'), ..."`` (a's value first, in
    words: :func:`treachery_env.config.field_text`); "" when none."""
    ca, cb = a.get("config") or {}, b.get("config") or {}
    return ", ".join(f"{k} ({field_text(k, ca.get(k))} vs {field_text(k, cb.get(k))})"
                     for k in sorted(set(ca) | set(cb)) if ca.get(k) != cb.get(k))


def deals_text(meta: dict) -> str:
    """Which deals a result's ``meta`` covers, for a summary line: ``"seed 13"``,
    ``"seeds 13, 14"`` (a pooled result; shards of one tournament share its seed) or
    ``"seed 13, shard 2/2 (deals 1000-1999 of 2000)"``."""
    seeds = meta.get("seed")
    seeds = list(dict.fromkeys(seeds)) if isinstance(seeds, list) else [seeds]
    text = f"seed{'s' * (len(seeds) > 1)} {', '.join(str(x) for x in seeds)}"
    sh = meta.get("shard")
    if sh:
        text += (f", shard {sh['index']}/{sh['of']} (deals {sh['first_deal']}-"
                 f"{sh['first_deal'] + meta['deals'] - 1} of {sh['deals_total']})")
    if meta.get("roles"):
        text += f", only the seats dealt {', '.join(meta['roles'])}"
    return text


VARIANT_FIELDS = ("planechase", "vanguard", "archenemy")
"""The :class:`~treachery_env.GameConfig` fields of the CR 900 casual variants (Planechase, Vanguard,
Archenemy's schemes), which either game may be played with, in the order the reports name them."""


def variants_text(config: dict) -> str:
    """The CR 900 variants of a result's game (its ``meta["config"]``), as Treachery's and Throne
    Magic's reports and summary lines name them: those played only, ``"CR 900 variants:
    planechase='single'"``, then the decks fixed in place of shuffled ones where the config gives
    them (``planar_deck=12 cards``, ``scheme_decks=fixed``); ``"no CR 900 variants"`` where none
    is (a field a results file lacks, written before the variant existed, was not played)."""
    parts = [f"{k}={field_text(k, config[k])}" for k in VARIANT_FIELDS if config.get(k) is not None]
    if config.get("planar_deck") is not None:
        parts.append(f"planar_deck={len(config['planar_deck'])} cards")
    if config.get("scheme_decks") is not None:
        parts.append("scheme_decks=fixed")
    return "CR 900 variants: " + ", ".join(parts) if parts else "no CR 900 variants"


def game_text(config: dict, shown: Sequence[str] = ()) -> str:
    """The game a result was played on (its ``meta["config"]``), as its report's ``game`` line names it:
    the fields that differ from :class:`~treachery_env.GameConfig`'s defaults for its game and number
    of players (``"starting_life=20, max_turns=60; the other fields GameConfig's defaults"``), without
    the number of players, the CR 900 variants (:func:`variants_text`) and the fields of ``shown``,
    which the report names elsewhere; values in words (:func:`treachery_env.config.field_text`:
    ``commander=off``).  A config this version cannot build lists every field."""
    shown = ("num_players", *VARIANT_FIELDS, "planar_deck", "scheme_decks", *shown)
    if not config:
        return "not recorded"
    try:
        base = GameConfig(num_players=config["num_players"], game=config.get("game", "treachery")).to_dict()
    except (KeyError, TypeError, ValueError):
        base = None
    differ = [f"{k}={field_text(k, v)}" for k, v in config.items()
              if k not in shown and (base is None or base.get(k) != v)]
    if base is None:
        return ", ".join(differ)
    if not differ:
        return "GameConfig's defaults"
    return ", ".join(differ) + "; the other fields GameConfig's defaults"


# --------------------------------------------------------------------------- the API
def evaluate(specs: Sequence[str], num_players: int | None = None, games: int = 100, seed: int = 0,
             workers: int = 1, mode: str = "rotate", reference: str | None = None,
             config: GameConfig | None = None, record_beliefs: bool = True, progress: bool = True,
             out_dir: str | os.PathLike | None = None, observer: bool = True,
             shard: tuple[int, int] | None = None, ray_address: str | None = None,
             roles: Sequence[str] | None = None, lockstep: bool = False, force: bool = False,
             games_flag: str | None = "--games") -> dict:
    """Run a duplicate-deal tournament and return :func:`summarize`'s dict.

    Args:
        specs: agent specs for :func:`agents.make` (repeats allowed, e.g.
            ``["random", "random"]``).
        num_players: seats (``GameConfig(num_players)`` when ``config`` is None; default 5); with
            a ``config``, it must agree with it.
        games: games requested; rounded **up** to whole deals
            (:func:`games_per_deal`), so every deal is fully rotated.
        seed: master seed of environment and bot seeds.
        workers: processes (1 plays in this process); with ``ray_address``, the
            most Ray tasks (chunks of games, one CPU each) in flight at a time.
        mode: ``"rotate"``, ``"substitution"``, ``"crossplay"`` or
            ``"teammates"`` (:func:`teammate_schedule`).
        reference: the reference entrant's label for substitution, the
            partner's for ``"teammates"`` (default: the last entrant); an
            agent spec that is not among ``specs`` joins them as that
            entrant (``["heuristic"]`` with ``reference="random"``: heuristic
            against random).
        config: the game configuration (default ``GameConfig(num_players)``).
        record_beliefs: score ``beliefs()`` of bots that have it (without it ``meta["beliefs"]``
            is False and ``deduction_note`` says they were not scored).
        progress: show a tqdm bar.  Either way, when the games played are not ``games`` (rounded up
            to whole deals, or only the seats of ``roles``), a line on standard error says so
            before the first game (:func:`_rounding_note`), unless ``games_flag`` is None.
        out_dir: if given, also :func:`write_results` there; checked before
            any game is played (a ``ValueError`` when it is or lies under a
            file or cannot be made or written, and, once every other argument
            is found good, when it already holds results and ``force`` is not
            given: :func:`refuse_held_results`).
        observer: run the fixed public observer (bluffing and talk-shift
            metrics; see the module docstring).
        shard: ``(i, n)``: play only the i-th (1-based) of ``n`` contiguous shards of the
            tournament's deals (:func:`shard_deals`; ``meta["shard"]`` says which), so
            shards played apart and pooled (:func:`pool_results`) are the whole tournament.
        ray_address: play the games on Ray (:func:`run_tasks`; None: local processes): the
            results are those of local workers for the same seed (apart from timing,
            where ``timing["ray"]`` is true and ``timing["ray_connect_s"]`` is the part of
            ``timing["wall_s"]`` spent connecting to Ray: starting a local Ray, or joining a
            running one; ~0 when this process was connected already).  Policy checkpoints and bots of one's own
            travel to the workers (:mod:`training.ray_workers`).
        roles: substitution only: role names (``["assassin"]``); the candidates take
            only the seats dealt those roles (:func:`substitution_schedule`) in the
            deals of the ``games``-game tournament, so a question about one role
            costs a fraction of those games (5 players: 3 games a deal for the two
            Assassins instead of 6) and pairs with that tournament's result;
            ``meta["roles"]`` records them (absent when they are every role the deck
            deals: that is the whole tournament), and the result's overall figures
            are over those roles alone.
        lockstep: play each worker's chunk of games together, the trained policies'
            decisions batched (:func:`play_tasks`: 1.67x faster with the flagship as an
            entrant; results reproducible for the same command, equal to the default's
            up to float rounding); ``meta["lockstep"]`` says so when a trained policy is an
            entrant (without one the games are the default's, and it is absent).
        force: replace the results already in ``out_dir`` (default: refuse them).
        games_flag: the option ``games`` came from, named by that line (``treachery train``'s
            ``"--evaluate"``); None: no line, the caller says it once for several tournaments.

    Raises:
        ValueError: for specs that are not a list of spec strings (a string, a bot object), a
            ``seed`` that is not an int >= 0, unknown specs, a bad mode/reference (or no candidate
            besides the reference or partner), ``games`` not an int from 1 to
            :data:`MAX_GAMES`, ``workers < 1``, a
            config whose ``num_players`` differs from ``num_players``, or a
            policy trained for another table size (``agents.check_table``),
            a ``shard`` outside 1..n or of more shards than deals, an ``out_dir``
            that is, or lies under, a file, cannot be made or written, or holds
            results (without ``force``; or came to hold them while the games were played, another
            command's: these results then go to a file of their own, named, :func:`write_result_files`),
            or (with ``ray_address``) Ray missing or an
            address it cannot connect to, a ``reference`` outside substitution and
            teammates, ``roles`` outside substitution, naming no
            role, naming one twice or naming only roles the game's identity deck lacks; after the
            games, with no results written, when a policy file changed while they were played and
            its agents loaded more than one version of it (:func:`_played_weights`).
        training.ray_workers.RayFailure: when Ray itself fails under the games.
    """
    if out_dir is not None:
        check_folder(out_dir, "--out")
    role_values = None if roles is None else _role_values(roles, mode)
    if reference is not None and mode not in ("substitution", "teammates"):
        raise ValueError(f"reference {reference!r} is for --mode substitution (the reference) or teammates (the "
                         f"partner); mode {mode!r} has none")
    if isinstance(specs, str):
        raise ValueError(f"specs must be a list of agent specs (['random', 'heuristic']), got the string {specs!r}")
    objects = [s for s in specs if not isinstance(s, str)]
    if objects:
        raise ValueError(f"specs must be agent specs (strings), as agents.make takes them; got a "
                         f"{type(objects[0]).__name__}: a bot of your own enters as 'MODULE:CLASS'")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    entrants = entrants_from_specs(list(specs))
    if reference is not None:           # a label (``random#2``), or a bot spec, in any case as the specs
        stem, mark, nth = reference.rpartition("#")
        reference = (f"{agents.canonical_spec(stem)}#{nth}" if mark and nth.isdigit()
                     else agents.canonical_spec(reference))
    if (mode in ("substitution", "teammates") and reference is not None
            and reference not in [e.label for e in entrants] and agents.names_a_bot(reference)):
        entrants.append(Entrant(reference, reference))     # a reference named only by --reference plays too
    unknown = [e.spec for e in entrants if not agents.names_a_bot(e.spec)]
    if unknown:
        raise ValueError(agents.unknown_text(unknown))
    if any(e.spec.partition(":")[0] == "human" for e in entrants):
        raise ValueError("'human' cannot play in a tournament (use treachery play); choose bots")
    if config is None:
        config = GameConfig(num_players=5 if num_players is None else num_players)
    elif num_players is not None and num_players != config.num_players:
        raise ValueError(f"num_players={num_players!r} contradicts the config's num_players={config.num_players}; "
                         f"give one of them")
    num_players = config.num_players
    for e in entrants:      # a bad argument (a missing checkpoint, a policy for another table) fails here
        agents.check_table(agents.make(e.spec, seed=0), e.spec, num_players, config)
    if games_text(games):
        raise ValueError(games_text(games))
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    labels = [e.label for e in entrants]
    if mode == "rotate":
        per = games_per_deal(mode, len(entrants), num_players)
        ref_label = None

        def schedule(deals: range) -> list[GameTask]:
            return rotation_schedule(entrants, num_players, deals, seed)
    elif mode == "crossplay":
        per = games_per_deal(mode, len(entrants), num_players, config.variant)
        ref_label = None

        def schedule(deals: range) -> list[GameTask]:
            return crossplay_schedule(entrants, config, deals, seed)
    elif mode in ("substitution", "teammates"):
        ref_label = reference if reference is not None else labels[-1]
        if ref_label not in labels:
            what = "reference" if mode == "substitution" else "partner"
            raise ValueError(f"reference {ref_label!r} is not an entrant or a bot: the {what} is one of the "
                             f"entrants' labels ({', '.join(labels)}) or a bot spec, which joins them")
        ref = entrants[labels.index(ref_label)]
        cands = [e for e in entrants if e.label != ref_label]
        if not cands:
            what = "reference" if mode == "substitution" else "partner"
            raise ValueError(f"mode {mode!r} needs a candidate besides the {what} {ref_label!r}, and {labels} "
                             f"has none; give the candidate and the {what} (e.g. --agents heuristic,random, or "
                             f"--agents heuristic --reference random)")
        if mode == "substitution":
            per = games_per_deal(mode, len(entrants), num_players)
            if role_values is not None:
                dealt = {int(r) for r, c in config.distribution().items() if c}
                if not dealt & role_values:
                    raise ValueError(f"roles {', '.join(Role(r).name.lower() for r in sorted(role_values))}: this "
                                     f"game's identity deck (its players, variant and role counts) deals none of "
                                     f"them; it deals {', '.join(Role(r).name.lower() for r in sorted(dealt))}")
                if dealt <= role_values:
                    role_values = None            # every role the deck deals: the whole tournament

            def schedule(deals: range) -> list[GameTask]:
                return substitution_schedule(ref, cands, num_players, deals, seed, role_values, config)
        else:
            per = 1 + len(cands) * sum(1 + c for c in _team_sizes(config.distribution()))

            def schedule(deals: range) -> list[GameTask]:
                return teammate_schedule(ref, cands, config, deals, seed)
    else:
        raise ValueError(f"unknown mode {mode!r}; allowed: {list(MODES)}")
    total_deals = -(-games // per)
    deal_range = range(total_deals) if shard is None else shard_deals(total_deals, *shard)
    tasks = schedule(deal_range)
    deals = len(deal_range)
    if out_dir is not None:                 # once the arguments hold: a bad one is said first
        refuse_held_results(out_dir, force)
    if shard is None and len(tasks) != games and games_flag is not None:    # before the bar, not only in the summary
        played = len(tasks) // max(deals, 1)
        only = (f"only the seats dealt {', '.join(Role(r).name.lower() for r in sorted(role_values))} are played, "
                f"{played} game{'' if played == 1 else 's'} a deal") if role_values else ""
        print(_rounding_note(len(tasks), deals, games, per, games_flag, only), file=sys.stderr)
    t0 = time.perf_counter()
    connect_s = None
    if ray_address:             # connected here (run_tasks keeps the connection), so its seconds are known
        from . import ray_workers
        ray_workers.connect(ray_address)
        connect_s = time.perf_counter() - t0
    records = run_tasks(tasks, config, workers=workers, record_beliefs=record_beliefs, progress=progress,
                        observer=observer, ray_address=ray_address, lockstep=lockstep)
    wall = time.perf_counter() - t0
    played = _played_weights(records)        # before any result is written: a mixture is refused
    meta = {"entrants": [_entrant_meta(e, played) for e in entrants], "num_players": num_players, "mode": mode,
            "reference": ref_label, "seed": seed, "games_requested": games, "games": len(tasks),
            "deals": deals, "games_per_deal": per, "config": _config_dict(config), "observer": bool(observer),
            "toolkit": toolkit()}
    if shard is not None:
        meta["shard"] = {"index": shard[0], "of": shard[1], "first_deal": deal_range.start, "deals_total": total_deals}
    if lockstep and any(agents.weights_file(e.spec) for e in entrants):     # batching only changes a policy's play
        meta["lockstep"] = True
    if not record_beliefs:          # no deduction numbers for want of asking, not for want of beliefs()
        meta["beliefs"] = False
    if role_values is not None:
        meta["roles"] = [ROLE_NAMES[r] for r in ROLES if int(r) in role_values]
        meta["games_per_deal"] = len(tasks) // deals if deals else per
    res = summarize(records, entrants, meta)
    res["timing"]["wall_s"] = wall
    res["timing"]["workers"] = workers
    if ray_address:
        res["timing"]["ray"] = True
        res["timing"]["ray_connect_s"] = connect_s
    if out_dir is not None:
        write_results(res, out_dir, new=not force)
    return res


def _role_values(roles: Sequence[str], mode: str) -> frozenset:
    """The role values of ``roles`` (names, any case; a string is comma-separated names) for :func:`evaluate`.

    Raises:
        ValueError: outside substitution, for no role, an unknown or repeated one.
    """
    if mode != "substitution":
        raise ValueError(f"roles limit the seats of --mode substitution; mode {mode!r} plays every seat (give "
                         f"--mode substitution)")
    roles = roles.split(",") if isinstance(roles, str) else list(roles)
    if not roles:
        raise ValueError("roles: name at least one role (leader, guardian, assassin, traitor)")
    try:
        return frozenset(int(r) for r in Role.parse_many(roles))
    except ValueError as err:
        raise ValueError(f"roles: {first_line(err)}") from None


def _entrant_meta(e: Entrant, played: dict[str, str] | None = None) -> dict:
    """An entrant's label and spec, and for a trained policy the SHA-256 of the bytes that played
    (results run on other days pool only when the same bytes played: :func:`pool_results`):
    ``played``'s (:func:`_played_weights`, what the games' agents loaded), else, for a policy whose
    agents report no hash (an RLlib module) or that played no game, the file's bytes now."""
    from agents.models import sha256_of

    path = agents.weights_file(e.spec)
    if not path:
        return asdict(e)
    if played and os.path.realpath(path) in played:
        return {**asdict(e), "sha256": played[os.path.realpath(path)]}
    return {**asdict(e), **({"sha256": sha256_of(path)} if os.path.isfile(path) else {})}


def _played_weights(records: Sequence[GameRecord]) -> dict[str, str]:
    """The SHA-256 of the bytes each checkpoint file's agents played in ``records`` (their
    ``weights_sha256``, taken as each agent loaded its file, in whichever process played the game),
    by the file's real path.

    The file is not hashed after the games: a file replaced while they were played (a running
    training rewrites its ``policy.pt`` every iteration or so) would then be recorded as bytes
    that never played.  Nor is it copied once at the start for every worker to play: that would
    mean a copy on disk of every checkpoint (an RLlib checkpoint is a folder) and agents naming
    the copy in their messages, for a case better refused: an evaluation whose agents loaded
    more than one version of a file played a mixture of policies, and its results would
    describe none of them.

    Raises:
        ValueError: (one line) naming a file whose games were played by more than one version
            of it, and what to evaluate instead.
    """
    files: dict[str, str | None] = {}          # spec -> the real path of its file
    seen: dict[str, dict[str, None]] = {}       # real path -> the hashes played, in the order met
    for rec in records:
        for spec, sha in zip(rec.task.specs, rec.weights_sha256):
            if sha and spec not in files:
                path = agents.weights_file(spec)
                files[spec] = os.path.realpath(path) if path else None
            if sha and files[spec]:
                seen.setdefault(files[spec], {})[sha] = None
    for path, shas in seen.items():
        if len(shas) > 1:
            raise ValueError(f"policy file {path!r} changed while the evaluation ran: its games were played by "
                             f"{len(shas)} versions of it (SHA-256 {', '.join(h[:12] + '...' for h in shas)}), so "
                             f"they mix policies and no results are written; evaluate a copy that stays put (a "
                             f"run's ckpt_<iteration>.pt, a copy of its policy.pt, or a policy from treachery export)")
    return {path: next(iter(shas)) for path, shas in seen.items()}


def _config_dict(config: GameConfig) -> dict:
    d = asdict(config)
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}


# --------------------------------------------------------------------------- output
def _fmt(cell: dict | None) -> str:
    """A win-rate cell (:func:`_deal_rate`) as ``rate [95% low, high] n=seat-games/deals`` (``n=seat-games``
    for a cell of a results file written before cells held ``deals``); ``–`` without seat-games."""
    if not cell or not cell.get("games"):
        return "–"
    n = f"n={cell['games']}" + (f"/{cell['deals']}" if cell.get("deals") is not None else "")
    return f"{cell['rate']:.3f} [{cell['lo']:.3f}, {cell['hi']:.3f}] {n}"


WINRATE_INTERVALS = ("95% intervals clustered by deal (Wilson's on the seat-games' effective number); "
                     "n=seat-games/deals")
"""How the win-rate tables' intervals are made, as the reports say it."""

#: Fewer deals than this, and a report says its intervals are too narrow (:func:`few_deals_note`).
FEW_DEALS = 50


def few_deals_note(res: dict) -> str | None:
    """The caveat of a result over fewer than :data:`FEW_DEALS` deals, else None: its intervals
    take deals as the draws with the normal quantile 1.96, not Student's t on deals - 1, so they
    are too narrow there (by 15% at 10 deals, 2.5% at 50: :mod:`training.stats`)."""
    deals = res.get("meta", {}).get("deals")
    if not isinstance(deals, int) or deals >= FEW_DEALS:
        return None
    return (f"only {deals} deal{'' if deals == 1 else 's'}: the intervals, over deals with the normal quantile, "
            f"are too narrow below {FEW_DEALS} deals (by 15% at 10); report {FEW_DEALS} deals or more")


def per_role_table(res: dict) -> str:
    """The per-role win-rate table (markdown) of a result dict: one row per
    entrant, one column per dealt role, then the overall rate; each cell
    ``rate [95% low, high] n=seat-games/deals``, the interval clustered by deal (:func:`_fmt`)."""
    head = "| agent | " + " | ".join(ROLE_NAMES[r] for r in ROLES) + " | overall |"
    lines = [head, "|" + "---|" * (len(ROLES) + 2)]
    for lab, w in res["winrates"].items():
        lines.append(f"| {lab} | " + " | ".join(_fmt(w["roles"][ROLE_NAMES[r]]) for r in ROLES)
                     + f" | {_fmt(w['overall'])} |")
    return "\n".join(lines)


def format_delta(d: dict) -> str:
    """One substitution delta (:func:`summarize`'s ``substitution`` cell) as
    ``delta [95% low, high] n=pairs/deals`` (the interval clustered by deal; ``–``
    without pairs; no interval where the spread between deals cannot be estimated).
    A cell of a results file written before cells held ``deals`` shows ``n=pairs``."""
    if d["delta"] is None:
        return "–"
    n = f"n={d['pairs']}" + (f"/{d['deals']}" if d.get("deals") is not None else "")
    if d["lo"] is None:
        return f"{d['delta']:+.3f} {n}"
    return f"{d['delta']:+.3f} [{d['lo']:+.3f}, {d['hi']:+.3f}] {n}"


def substitution_table(res: dict) -> str:
    """The substitution-delta table (markdown) of a substitution result: one row
    per candidate, one column per dealt role, then overall; each cell
    :func:`format_delta`'s ``delta [95% low, high] n=pairs/deals`` (empty string
    without substitution games)."""
    sub = res.get("substitution")
    if not sub:
        return ""
    out = ["| candidate | " + " | ".join(ROLE_NAMES[r] for r in ROLES) + " | overall |",
           "|" + "---|" * (len(ROLES) + 2)]
    for lab, per in sub["candidates"].items():
        cells = [format_delta(per[name]) for name in [ROLE_NAMES[r] for r in ROLES] + ["overall"]]
        out.append(f"| {lab} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def beats_in_every_role(res: dict, candidate: str) -> dict[str, bool]:
    """For a substitution result: per role the candidate was dealt in it (and ``"all"``),
    whether its substitution delta has its 95% interval entirely above 0.  A role it was never
    dealt (the Guardian at 4 players, a role outside ``--roles``) has no delta and no entry, so
    it does not stand in the way of ``"all"``.

    Raises:
        ValueError: if ``res`` has no substitution games for ``candidate``.
    """
    sub = res.get("substitution") or {}
    per = sub.get("candidates", {}).get(candidate)
    if per is None:
        raise ValueError(f"no substitution result for {candidate!r}; candidates: {list(sub.get('candidates', {}))}")
    out = {ROLE_NAMES[r]: bool(per[ROLE_NAMES[r]]["lo"] is not None and per[ROLE_NAMES[r]]["lo"] > 0)
           for r in ROLES if per[ROLE_NAMES[r]]["pairs"]}
    out["all"] = bool(out) and all(out.values())
    return out


def _counted(cell: dict) -> str:
    """``n=N``, and the games or deals the rows come from where the interval is over games
    (``clusters``) or deals (``deals``)."""
    for key, unit in (("deals", "deal"), ("clusters", "game")):
        if key in cell:
            return f"n={cell['n']} in {cell[key]} {unit}{'' if cell[key] == 1 else 's'}"
    return f"n={cell['n']}"


def _fr(cell: dict | None) -> str:
    """A ``{count, n, rate, lo, hi}`` cell of :mod:`training.social` (``clusters`` or ``deals`` too
    where its interval is over games or deals, :func:`_counted`)."""
    if not cell or not cell.get("n"):
        return "–"
    return f"{cell['rate']:.3f} [{cell['lo']:.3f}, {cell['hi']:.3f}] {_counted(cell)}"


def _fm(cell: dict | None, digits: int = 2) -> str:
    """A ``{n, mean, lo, hi}`` cell (a mean with its 95% interval; ``clusters`` or ``deals`` too where
    that is over games or deals, :func:`_counted`)."""
    if not cell or not cell.get("n"):
        return "–"

    def num(x: float) -> str:             # rounded first, so a tiny negative prints 0.00, not -0.00
        return f"{round(x, digits) + 0.0:.{digits}f}"

    if cell["lo"] is None:
        return f"{num(cell['mean'])} {_counted(cell)}"
    return f"{num(cell['mean'])} [{num(cell['lo'])}, {num(cell['hi'])}] {_counted(cell)}"


def format_mean(agg: dict, key: str) -> str:
    """The mean ``agg[key]`` of a :func:`deduction_metrics` aggregate, ``0.000 [lo, hi]`` with its
    interval (over deals; over games in results written before they were clustered by deal) where it has
    one."""
    ci = (agg.get("intervals") or {}).get(key)
    return f"{agg[key]:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def _fdiff(cell: dict | None) -> str:
    """A signed ``{mean, lo, hi}`` difference, its interval where it has one; – for none."""
    if not cell or cell.get("mean") is None:
        return "–"
    return f"{cell['mean']:+.3f}" + (f" [{cell['lo']:+.3f}, {cell['hi']:+.3f}]" if cell.get("lo") is not None else "")


def deduction_unit(agg: dict) -> str:
    """What a :func:`deduction_metrics` aggregate's intervals take as the independent draws:
    ``"deals"``, or ``"games"`` in a results file written before they were clustered by deal."""
    return "games" if "games" in agg and "deals" not in agg else "deals"


def deduction_table(res: dict) -> str:
    """The deduction table (markdown) of a result dict: per observer with beliefs, log-loss,
    Brier and top-1 against the public-count prior, with 95% intervals over deals (over games
    in older results, :func:`deduction_unit`) where the results carry them; ``""`` without
    deduction numbers."""
    if not res.get("deduction"):
        return ""
    unit = deduction_unit(next(iter(res["deduction"].values()))["overall"])
    out = [f"Deduction (beliefs about face-down opponents; prior = public role counts; 95% intervals over {unit}):",
           "", f"| observer | rows | {unit} | log-loss | prior | Brier | prior | top-1 | prior | top-1 − prior |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for lab, d in res["deduction"].items():
        o = d["overall"]
        out.append(f"| {lab} | {o['n']} | {o.get(unit, '–')} | {format_mean(o, 'logloss')} | "
                   f"{o['prior_logloss']:.3f} | {format_mean(o, 'brier')} | {o['prior_brier']:.3f} | "
                   f"{format_mean(o, 'top1')} | {o['prior_top1']:.3f} | {_fdiff(o.get('top1_minus_prior'))} |")
    return "\n".join(out)


def gate_table(res: dict) -> str:
    """The advantage gate's departures by entrant and dealt role (markdown), or ``""`` when no
    entrant has a gate (see :func:`summarize`'s ``gate``)."""
    gate = res.get("gate") or {}
    if not gate:
        return ""
    out = ["Advantage gate: at the decisions the lookahead teacher would search, how often the gate played "
           "its own candidate instead of what the seat would otherwise play, the network's choice (in a role "
           "played gate-only, the proposal) (its departures; share with a 95% interval over deals):", "",
           "| agent | role | seat-games | decisions | the teacher would search | departures | share |",
           "|---|---|---|---|---|---|---|"]
    for lab, g in gate.items():
        for role, c in list(g["roles"].items()) + [("overall", g)]:
            out.append(f"| {lab} | {role} | {c['seat_games']} | {c['decisions']} | {c['searched']} | "
                       f"{c['departures']} | {_fr(c['of_searched'])} |")
    return "\n".join(out)


def _fgain(g: dict) -> str:
    """A team-play gain ``{"diff", "lo", "hi"}`` as ``+0.000 [lo, hi]`` with ``in D deals`` where it
    is paired by deal (:func:`training.stats.clustered_rate_difference`; older results hold
    Newcombe's interval, and no ``deals``); no interval where it has none, ``–`` without games."""
    if g["diff"] is None:
        return "–"
    deals = f" in {g['deals']} deal{'' if g['deals'] == 1 else 's'}" if "deals" in g else ""
    return f"{g['diff']:+.3f}" + ("" if g["lo"] is None else f" [{g['lo']:+.3f}, {g['hi']:+.3f}]") + deals


def social_tables(res: dict) -> str:
    """The bluffing, cooperation, talk and team-play tables (markdown) of a
    result dict (see the module docstring for the definitions); sections
    without numbers are left out (empty string if all are)."""
    out: list[str] = []
    bl = res.get("bluffing") or {}
    if bl:
        out += ["Bluffing (share of face-down Traitor/Assassin turns in which the fixed public observer's "
                "belief in the true role is at or below the public prior; 95% interval over deals):", "",
                "| agent | overall | Assassin | Traitor | mean p(true) | mean prior |", "|---|---|---|---|---|---|"]
        for lab, b in bl.items():
            out.append(f"| {lab} | {_fr(b)} | {_fr(b['roles'].get('Assassin'))} | {_fr(b['roles'].get('Traitor'))} "
                       f"| {b['mean_p_obs']:.3f} | {b['mean_prior']:.3f} |")
        out.append("")
    co = res.get("cooperation") or {}
    if co:
        out += ["Cooperation as a Guardian (per Guardian seat-game; means with normal 95% intervals, shares "
                "with Wilson's on the effective number, both over deals): harm = life points of damage and life loss to the face-up Leader and its "
                "creatures, attacks = creatures attacking the Leader; protection = the same acts against seats "
                "that had attacked or harmed the Leader:", "",
                "| agent | games | harm to Leader | attacks on Leader | any hostile act | protection harm | "
                "protection attacks | any protection |", "|---|---|---|---|---|---|---|---|"]
        for lab, c in co.items():
            out.append(f"| {lab} | {c['games']} | {_fm(c['harm_leader'])} | {_fm(c['attacks_leader'])} | "
                       f"{_fr(c['any_hostile_to_leader'])} | {_fm(c['protect_harm'])} | "
                       f"{_fm(c['protect_attacks'])} | {_fr(c['any_protection'])} |")
        out.append("")
    tp = res.get("teamplay")
    if tp and tp.get("candidates"):
        out += [f"Team play with partner `{tp['partner']}` (team win rate; together: the agent holds every seat "
                "of the team, mixed: one seat, the partner the others; 95% intervals over deals; gain = together - mixed, "
                "normal 95% interval paired by deal: both play every deal):", "",
                "| agent | team | together | mixed | mixed by the agent's role | partner only | gain |",
                "|---|---|---|---|---|---|---|"]
        for lab, per in tp["candidates"].items():
            for team, c in per.items():
                gain = _fgain(c["gain"])
                by = "; ".join(f"{r}: {_fr(v)}" for r, v in c["mixed_by_role"].items())
                out.append(f"| {lab} | {team} | {_fr(c['together'])} | {_fr(c['mixed'])} | {by} | "
                           f"{_fr(c['partner'])} | {gain} |")
        out.append("")
    tk = res.get("talk") or {}
    if tk:
        out += ["Talk (role claims by true role: share false, 95% interval over deals; shift = mean change of the public "
                "observer's probability of the claimed role for the speaker, after minus before, over claims "
                "made face down, 95% interval over deals):", "",
                "| agent | true role | claims | false | claimed L/G/A/T | shift (false claims) | shift (true claims) |",
                "|---|---|---|---|---|---|---|"]
        for lab, t in tk.items():
            for role, c in list(t["roles"].items()) + [("overall", t["overall"])]:
                cl = "/".join(str(c["claimed"][r]) for r in ("Leader", "Guardian", "Assassin", "Traitor"))
                out.append(f"| {lab} | {role} | {c['claims']} | {_fr(c['false'])} | {cl} | "
                           f"{_fm(c['shift_false'], 3)} | {_fm(c['shift_true'], 3)} |")
        out.append("")
    return "\n".join(out).rstrip("\n")


def ray_connect_text(timing: dict) -> str:
    """`` (3.5 s of it connecting to Ray)`` for a result played on Ray that records the seconds
    its connection took (``timing["ray_connect_s"]``: starting a local Ray, or joining a running
    one); ``""`` otherwise (local workers, a result from before it was recorded)."""
    s = timing.get("ray_connect_s")
    return "" if s is None else f" ({s:.1f} s of it connecting to Ray)"


def render_markdown(res: dict, images: Iterable[str] = ()) -> str:
    """The report of a result dict as markdown (tables of every metric and
    links to the ``images`` written next to it)."""
    m, s = res["meta"], res["summary"]
    out = ["# Treachery evaluation", ""]
    out.append(f"- entrants: {', '.join(e['label'] + ' (' + e['spec'] + ')' for e in m.get('entrants', []))}")
    out.append(f"- players: {m.get('num_players')}, mode: {m.get('mode')}, {deals_text(m)}, "
               f"deals: {m.get('deals')}, games: {s['games']}"
               + (f" (requested {m['games_requested']})" if m.get("games_requested") is not None else ""))
    out.append(f"- game: {game_text(m.get('config') or {})} (every field in results.json's meta.config)")
    out.append(f"- {variants_text(m.get('config') or {})}")
    if toolkit_text(m):
        out.append(f"- toolkit: {toolkit_text(m)}")
    elif any(p.get("toolkit") for p in m.get("pooled", [])):
        out.append("- toolkits of the pooled parts: " + "; ".join(toolkit_text(p) or "not recorded"
                                                                   for p in m["pooled"]))
    if m.get("pooled_note"):
        out.append(f"- {m['pooled_note']}")
    if m.get("roles"):
        out.append(f"- the candidates took only the seats dealt {', '.join(m['roles'])} (--roles): the overall "
                   f"figures are over those seats")
    if m.get("lockstep"):
        out.append("- played in lockstep (--lockstep): the trained policies' decisions batched; equal to the "
                   "game-by-game evaluation up to float rounding")
    elif any(p.get("lockstep") for p in m.get("pooled", [])):
        out.append(f"- pooled parts played in lockstep (--lockstep): "
                   f"{sum(bool(p.get('lockstep')) for p in m['pooled'])} of {len(m['pooled'])}")
    out.append(f"- truncated: {s['truncated']}, draws: {s['draws']}, mean turns: "
               f"{s['mean_turns']:.1f}" if s["mean_turns"] is not None else "- no games")
    if few_deals_note(res):
        out.append(f"- {few_deals_note(res)}")
    out += ["", f"Win rates by dealt role, with {WINRATE_INTERVALS}:", "", per_role_table(res), ""]
    out += ["Win rates by team of the dealt role (the same intervals):", "",
            "| agent | " + " | ".join(TEAM_NAMES.values()) + " |", "|" + "---|" * (len(TEAM_NAMES) + 1)]
    for lab, w in res["winrates"].items():
        out.append(f"| {lab} | " + " | ".join(_fmt(w["teams"][t]) for t in TEAM_NAMES.values()) + " |")
    if res.get("substitution"):
        out += ["", f"Substitution delta against reference `{res['substitution']['reference']}` (candidate win "
                    "rate minus reference win rate in the same seat of the same deal; normal 95% interval clustered by deal, "
                    "none where the spread between deals cannot be estimated; n=pairs/deals):", "",
                substitution_table(res)]
    rt = res["ratings"]
    out += ["", f"Ratings ({rt['model']}, {rt['rated_games']} rated games):", "",
            "| agent | mu | sigma | ordinal (mu - 3 sigma) |", "|---|---|---|---|"]
    for lab, r in sorted(rt["entrants"].items(), key=lambda kv: -kv[1]["ordinal"]):
        out.append(f"| {lab} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} |")
    cp = res["crossplay"]
    if cp.get("definition") == "team split":
        what = ("Cross-play (team split): row agent's win rate when it holds every seat of one team and the "
                "column agent all the others (diagonal: self-play):")
    else:
        what = ("Cross-play: row agent's win rate in games where the column agent holds a seat of an opposing "
                "team (by dealt role; each Traitor is its own team):")
    out += ["", what, "",
            "| agent | " + " | ".join(cp["labels"]) + " |", "|" + "---|" * (len(cp["labels"]) + 1)]
    for lab, row in zip(cp["labels"], cp["matrix"]):
        out.append(f"| {lab} | " + " | ".join(_fmt(c) for c in row) + " |")
    if res["deduction"]:
        out += ["", deduction_table(res)]
    if res["deception"]:
        out += ["", "Deception (mean probability observers give to the true role of a face-down "
                    "Traitor/Assassin; lower is better cover; 95% intervals over deals, none in results written "
                    "before they were recorded or where the spread between deals cannot be estimated):", "",
                "| agent | rows | deals | p(true role) | prior | p(true role) − prior |", "|---|---|---|---|---|---|"]
        for lab, d in res["deception"].items():
            ci = d.get("p_true_interval")
            p_true = f"{d['p_true']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
            out.append(f"| {lab} | {d['n']} | {d.get('deals', '–')} | {p_true} | {d['prior_p_true']:.3f} | "
                       f"{_fdiff(d.get('minus_prior'))} |")
    if res.get("deduction_note"):
        out += ["", res["deduction_note"] + "."]
    if gate := gate_table(res):
        out += ["", gate]
    social_md = social_tables(res)
    if social_md:
        out += ["", social_md]
    out += ["", "Decision latency (not deterministic):", "", "| agent | decisions | p50 ms | p95 ms |",
            "|---|---|---|---|"]
    for lab, t in res["timing"].items():
        if isinstance(t, dict):
            p50 = f"{t['p50_ms']:.3f}" if t["p50_ms"] is not None else "–"
            p95 = f"{t['p95_ms']:.3f}" if t["p95_ms"] is not None else "–"
            out.append(f"| {lab} | {t['decisions']} | {p50} | {p95} |")
    if "wall_s" in res["timing"]:
        how = "Ray task(s) at a time" if res["timing"].get("ray") else "worker(s)"
        out.append(f"\nWall time {res['timing']['wall_s']:.1f} s with {res['timing'].get('workers')} {how}"
                   f"{ray_connect_text(res['timing'])}.")
    images = list(images)
    if images:
        out += [""] + [f"![{Path(i).stem}]({i})" for i in images]
    return "\n".join(out) + "\n"


RESULT_FILES = ("results.json", "results.md")
"""The files that say a folder holds results (:func:`write_results` and
:func:`training.throne_eval.write_results` write both)."""


def refuse_held_results(out_dir: str | os.PathLike, force: bool = False) -> None:
    """Refuse, before any game, an ``--out`` that already holds results, unless ``force`` (as
    ``treachery export`` refuses a folder holding a policy or card without ``--force``); called
    once :func:`agents.files.check_folder` found it a folder that can be written.

    Raises:
        ValueError: one line naming ``out_dir``, the files it holds and ``--force``.
    """
    held = [n for n in RESULT_FILES if (Path(out_dir) / n).exists()]
    if held and not force:
        raise ValueError(f"--out {str(out_dir)!r} already holds {' and '.join(held)}; give another folder, "
                         f"or --force to replace them")


def write_results(res: dict, out_dir: str | os.PathLike, new: bool = False) -> dict[str, Path]:
    """Write ``results.json``, ``results.md`` and the PNG plots into ``out_dir``
    (created if needed), removing a plot of earlier results there that these do not have.

    Every payload is rendered in memory first, so a failure while rendering
    writes nothing; the files are then written as one set with
    :func:`agents.files.atomic_write_files`: every new file and a copy of each old one
    are written to temporary files first, then renamed into place, and a failed rename
    puts the replaced ones back, so no file is ever partial and a failure never leaves
    a new ``results.json`` beside an old ``results.md`` (``--force`` over earlier results).

    Args:
        res: the results (:func:`evaluate`'s, :func:`pool_results`').
        out_dir: the folder.
        new: write only where ``out_dir`` holds no results (:func:`refuse_held_results`
            checked it before the games; without ``--force``), even ones another command
            wrote since (:func:`write_result_files`).

    Returns:
        ``{name: path}`` of the files written.

    Raises:
        ValueError: with ``new``, where another command wrote results there since (these
            are then kept in a file of their own, named in the error).
        OSError: if writing fails, naming the file; the files are then as they were.
    """
    from . import plots

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    payloads: dict[str, bytes] = {}
    payloads.update(plots.render_all(res))
    payloads["results.json"] = (json.dumps(res, indent=1, default=_json_default) + "\n").encode()
    payloads["results.md"] = render_markdown(res, [n for n in payloads if n.endswith(".png")]).encode()
    names = ["results.json", "results.md"] + sorted(n for n in payloads if n.endswith(".png"))
    write_result_files(out, {name: payloads[name] for name in names}, new)
    written = {name: out / name for name in names}
    for name in set(plots.PLOT_FILES) - set(payloads):     # a plot of earlier results there would mislead
        (out / name).unlink(missing_ok=True)
    return written


def write_result_files(out: Path, payloads: dict[str, bytes], new: bool) -> None:
    """Write a result's files (``{name: bytes}``, ``results.json`` among them) into the folder
    ``out`` as one set (:func:`agents.files.atomic_write_files`); with ``new``, its
    :data:`RESULT_FILES` only where none is, even one another command wrote after
    :func:`refuse_held_results` found the folder free (``treachery evaluate`` into one
    ``--out`` twice at once): that one is kept, and this ``results.json`` goes to
    ``results-2.json`` or the next free name after it (:func:`agents.files.write_new_file`;
    never to ``results.json`` beside another's ``results.md``), so that no result is lost.

    Raises:
        ValueError: where a name of :data:`RESULT_FILES` was taken meanwhile, one line naming it
            and the file these results were written to instead.
        OSError: if writing fails, naming the file; the files are then as they were.
    """
    held = [out / n for n in RESULT_FILES] if new else []
    try:
        atomic_write_files({out / name: data for name, data in payloads.items()}, new=held)
    except FileExistsError as err:
        if Path(err.filename) not in held:
            raise
        kept = write_new_file(out / "results-2.json", payloads["results.json"])
        raise ValueError(f"--out {str(out)!r} got a {Path(err.filename).name} from another command while these "
                         f"results were made; it is kept, and these are in {str(kept)!r} alone (no report or "
                         f"plots)") from None


def _json_default(o: Any) -> Any:
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
