"""Where a proposal-reading policy leaves the heuristic's proposal, by its role, against the teacher (issue 13).

A policy with a proposal input (``prior = "heuristic"``, :mod:`agents.networks`;
``checkpoints/residual-departures``) plays one seat of ``--games`` 5-player games among heuristic
bots, greedily, as in the evaluation; the seat is the one dealt ``--role``
(the first such seat of each deal; deals without that role are skipped) or,
without ``--role``, seat ``game % 5``.  At every decision of that seat the
lookahead teacher (:mod:`agents.lookahead`, the expert of the policy's
training) is asked, from the same observation and view, what it would play;
it does not play.  Counted by the seat's dealt role:

* the teacher's *departures* (it plays another action than its base, the
  heuristic's action, which is the policy's proposal: the heuristic is
  deterministic and both see the same decisions);
* the policy's departures (its action is not its proposal,
  :attr:`agents.policy.PolicyAgent.last_proposal`), how many are the teacher's
  own departure to the same action (*right*), and how many fall where the
  teacher kept the proposal (*false*); *precision* = right / the policy's
  departures;

then the false departures by decision kind and the kinds of the proposal and
of the policy's action.  ``bench/departure_fit.py`` measures the same on
training rollouts; this measures it in the evaluation condition, on the
policy's own games.

    python bench/policy_departures.py [--policy checkpoints/residual-departures/policy.pt] [--games 30] [--role ROLE]
                                      [--seed 7000] [--top 8]
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

import agents
from agents.lookahead import LookaheadAgent
from agents.policy import PolicyAgent
from treachery_env import GameConfig
from treachery_env.engine import Game
from treachery_env.rules import Role
from treachery_env.view import ViewBuilder

_ROLES = {r.name.lower(): r for r in Role}


def departures(policy: str, games: int, seed: int, role: Role | None = None, num_players: int = 5,
               max_turns: int | None = None) -> tuple[list[dict], dict[str, list[int]]]:
    """Play the games and ask the teacher at every decision of the policy's seat.

    Args:
        policy: path of a checkpoint with a proposal input.
        games: games played (deals without ``role`` do not count).
        seed: the deals are ``seed + 1, seed + 2, ...``; the bots' seeds follow from it.
        role: the seat the policy takes (None: seat ``game % num_players``).
        max_turns: the game's turn limit (None: the default game's).

    Returns:
        ``(rows, record)``: one dict per decision of the policy's seat
        (``role``, ``kind``, ``proposal``, ``policy`` and ``teacher`` as
        option kinds, ``departs`` and ``teacher_departs`` as bools, ``right``:
        both departed to the same action) and ``{role: [games, won]}``.

    Raises:
        ValueError: if the checkpoint reads no proposal (it has no proposal to leave).
    """
    probe = PolicyAgent(policy)
    if probe.prior_bot is None:
        raise ValueError(f"{policy!r} reads no proposal (model_kwargs['prior'] is not set): nothing to leave")
    config = GameConfig(num_players=num_players, **({"max_turns": max_turns} if max_turns else {}))
    rows: list[dict] = []
    record: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    deal, played = seed, 0
    while played < games:
        deal += 1
        g = Game(config, seed=deal)
        dealt = [p.identity.role for p in g.players]
        if role is not None and role not in dealt:
            continue
        me = dealt.index(role) if role is not None else played % num_players
        played += 1
        views = ViewBuilder(g)
        bots = [agents.make("heuristic", seed=deal * 10 + s) for s in range(num_players)]
        bot = bots[me] = PolicyAgent(policy, seed=deal * 10 + me, greedy=True)
        teacher = LookaheadAgent(seed=deal * 10 + me)
        for s, b in enumerate(bots):
            b.reset(s)
        teacher.reset(me)
        name = Role(dealt[me]).name.title()
        while not g.is_over:
            s = g.current_player
            view = views.build(s)
            obs = g.observation(s)
            a = int(bots[s].act(obs, {"view": view}))
            if s == me:
                t = int(teacher.act(obs, {"view": view}))
                p = bot.last_proposal
                kinds = {o.action: o.kind for o in view.decision.options}
                rows.append({"role": name, "kind": view.decision.kind, "proposal": kinds[p], "policy": kinds[a],
                             "teacher": kinds[t], "departs": a != p, "teacher_departs": t != teacher.last_base,
                             "right": a != p and a == t})
            g.step(a)
        record[name][0] += 1
        record[name][1] += me in g.winners
    return rows, dict(record)


def main(argv: list[str] | None = None) -> int:
    """Play, then print the tables; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--policy", default="checkpoints/residual-departures/policy.pt", help="a checkpoint with a proposal input")
    ap.add_argument("--games", type=int, default=30, help="games played (5-12 s each on one core)")
    ap.add_argument("--role", type=str.lower, choices=sorted(_ROLES), default=None,
                    help="the policy takes the seat dealt this role (none: seats in turn)")
    ap.add_argument("--seed", type=int, default=7000, help="the deals are SEED+1, SEED+2, ...")
    ap.add_argument("--top", type=int, default=8, help="kinds of false departure printed")
    ap.add_argument("--max-turns", type=int, default=None, help="the game's turn limit (none: the game's own)")
    a = ap.parse_args(argv)
    if a.games < 1 or a.top < 0 or a.seed < 0:
        ap.error(f"--games must be >= 1, --top and --seed >= 0, got {a.games}, {a.top} and {a.seed}")
    if a.max_turns is not None and a.max_turns < 1:
        ap.error(f"--max-turns must be >= 1, got {a.max_turns}")
    if not Path(a.policy).is_file():
        ap.error(f"--policy {a.policy!r} is not a file")
    try:
        rows, record = departures(a.policy, a.games, a.seed, _ROLES.get(a.role), max_turns=a.max_turns)
    except ValueError as err:
        ap.error(str(err))
    print(f"{a.policy}, {a.games} games (deals from seed {a.seed + 1}), greedy, one seat among heuristic bots; "
          f"the lookahead teacher asked at each of its {len(rows)} decisions")
    print("\n| role | games | won | decisions | teacher departs | policy departs | right | false | precision |\n"
          "|---|---|---|---|---|---|---|---|---|")
    for name in sorted({r["role"] for r in rows}):
        rs = [r for r in rows if r["role"] == name]
        n, td = len(rs), sum(r["teacher_departs"] for r in rs)
        pd, right = sum(r["departs"] for r in rs), sum(r["right"] for r in rs)
        false = sum(r["departs"] and not r["teacher_departs"] for r in rs)
        g, w = record[name]
        print(f"| {name} | {g} | {w} | {n} | {td} ({td / n:.1%}) | {pd} ({pd / n:.1%}) | {right} | "
              f"{false} ({false / n:.1%}) | {right / pd if pd else float('nan'):.2f} |")
    false_kinds = Counter((r["role"], f"{r['kind']}: {r['proposal']} -> {r['policy']}")
                          for r in rows if r["departs"] and not r["teacher_departs"])
    if not false_kinds:
        print("\nno false departures")
    if not false_kinds or not a.top:
        return 0
    print(f"\nfalse departures (the teacher kept the proposal), the {a.top} most frequent kinds per role:")
    for name in sorted({r for r, _ in false_kinds}):
        top = sorted(((k, v) for (r, k), v in false_kinds.items() if r == name), key=lambda kv: -kv[1])[:a.top]
        print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
