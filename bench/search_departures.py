"""Where the lookahead teacher departs from the heuristic bot, and how much each departure is worth.

The lookahead bot (:mod:`agents.lookahead`) plays one seat (rotating) of
``--games`` 5-player games among heuristic bots.  At every decision it
searches, its base (the heuristic's action, ``last_base``) is the *proposal*
the residual networks read; a *departure* is a searched decision where it
plays another action, and its *gain* is the rollouts' mean score of that
action minus the proposal's (``last_scores``; the quantity ``gain_weight``
weights departures by in training, :class:`training.config.TrainConfig`).
Printed: searched decisions, departures and summed gain by the seat's role
and by decision kind and the proposal's kind; departures and summed gain by
the kinds of the two actions; how the summed
gain is spread over departures of small and large gain; the largest
departures in words.

``--repeat`` asks a second teacher with other seeds to decide every searched
decision again, from the same view: how often it makes the same departure
(overall and by decision kind) says whether the departures are a function of
the information set or noise of the search (``bench/departure_fit.py`` asks whether the network learns them).

``--kinds`` chooses the decision kinds the teacher searches (by default
those the training teacher searches, ``agents.lookahead.SEARCHED_KINDS``;
``--kinds attacker,blocker,priority,defender`` adds whom each attacker
attacks).

    python bench/search_departures.py [--games 80] [--seed 1000] [--top 12] [--repeat] [--kinds K,K,...]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

import agents
from agents.lookahead import SEARCHABLE_KINDS, SEARCHED_KINDS, LookaheadAgent, check_kinds
from treachery_env import GameConfig
from treachery_env.engine import Game
from treachery_env.view import ViewBuilder


def departures(games: int, seed: int, num_players: int = 5, repeat: bool = False,
               kinds: tuple = SEARCHED_KINDS) -> tuple[list[dict], int]:
    """Play ``games`` games, the lookahead bot in seat ``game % num_players``, heuristic bots elsewhere.

    Args:
        repeat: also ask a second lookahead bot with other seeds (other
            worlds and rollouts) to decide each searched decision from the
            same observation and view (it does not play).
        kinds: the decision kinds the teacher searches (``LookaheadAgent(kinds=...)``).

    Returns:
        ``(rows, wins)``: one dict per searched decision (``role``, ``kind``,
        ``turn``, ``proposal`` and ``chosen`` as ``(option kind, text)``,
        ``gain`` >= 0: 0 where it did not depart; with ``repeat`` also
        ``again``, the second bot's choice) and the games its team won.
    """
    rows: list[dict] = []
    wins = 0
    for gi in range(games):
        g = Game(GameConfig(num_players=num_players), seed=seed + gi)
        views = ViewBuilder(g)
        me = gi % num_players
        bots = [agents.make("heuristic", seed=seed * 100 + gi * num_players + s) for s in range(num_players)]
        bot = bots[me] = LookaheadAgent(seed=seed * 100 + gi * num_players + me, kinds=kinds)
        second = LookaheadAgent(seed=10**9 + seed * 100 + gi * num_players + me, kinds=kinds) if repeat else None
        for s, b in enumerate(bots):
            b.reset(s)
        if second is not None:
            second.reset(me)
        while not g.is_over:
            s = g.current_player
            view = views.build(s)
            a = int(bots[s].act(g.observation(s), {"view": view}))
            if s == me and bot.last_scores is not None:
                sc, p = bot.last_scores, bot.last_base
                opts = {o.action: (o.kind, o.text) for o in view.decision.options}
                rows.append({"role": view.me.role.name.title(), "kind": view.decision.kind, "turn": view.turn,
                             "proposal": opts[p], "chosen": opts[a], "gain": max(0.0, sc[a] - sc[p])})
                if second is not None:
                    rows[-1]["again"] = opts[int(second.act(g.observation(s), {"view": view}))]
            g.step(a)
        wins += me in g.winners
    return rows, wins


def main(argv: list[str] | None = None) -> int:
    """Play, then print the tables; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--games", type=int, default=80, help="games played (about 5 s each, twice that with --repeat)")
    ap.add_argument("--seed", type=int, default=1000, help="seed of the deals and the bots")
    ap.add_argument("--top", type=int, default=12, help="largest departures printed")
    ap.add_argument("--repeat", action="store_true",
                    help="a second lookahead bot (other seeds) decides every searched decision again: "
                         "how reproducible the departures are")
    ap.add_argument("--kinds", default=",".join(SEARCHED_KINDS),
                    help=f"decision kinds the teacher searches, comma-separated, of {','.join(SEARCHABLE_KINDS)}")
    a = ap.parse_args(argv)
    kinds = tuple(k.strip() for k in a.kinds.split(",") if k.strip())
    if not kinds:
        ap.error("--kinds: name at least one kind")
    try:
        check_kinds(kinds)
    except ValueError as err:
        ap.error(f"--kinds: {str(err).removeprefix('lookahead: ')}")
    if a.games < 1:
        ap.error(f"--games must be >= 1, got {a.games}")
    if a.top < 0:
        ap.error(f"--top must be >= 0, got {a.top}")
    rows, wins = departures(a.games, a.seed, repeat=a.repeat, kinds=kinds)
    dep = [r for r in rows if r["chosen"] != r["proposal"]]
    gains = np.array([r["gain"] for r in dep])
    total = float(gains.sum())
    print(f"{a.games} games (seed {a.seed}, searching {','.join(kinds)}), the lookahead bot's team won {wins}; "
          f"{len(rows)} searched decisions, "
          f"{len(dep)} departures ({len(dep) / max(len(rows), 1):.1%}), summed gain {total:.2f}")
    if a.repeat:
        same = sum(r["again"] == r["chosen"] for r in dep)
        extra = sum(r["again"] != r["proposal"] for r in rows if r["chosen"] == r["proposal"])
        print(f"a second teacher (other seeds), on the same {len(rows)} decisions: the same departure at {same} "
              f"of the {len(dep)} ({same / max(len(dep), 1):.0%}); a departure of its own at {extra} of the "
              f"{len(rows) - len(dep)} others ({extra / max(len(rows) - len(dep), 1):.1%})")
        print("\n| decision kind | departures | the same again | kept | a departure of its own |\n|---|---|---|---|---|")
        for kind in sorted({r["kind"] for r in rows}):
            kd = [r for r in dep if r["kind"] == kind]
            kk = [r for r in rows if r["kind"] == kind and r["chosen"] == r["proposal"]]
            ks = sum(r["again"] == r["chosen"] for r in kd)
            ke = sum(r["again"] != r["proposal"] for r in kk)
            print(f"| {kind} | {len(kd)} | {f'{ks} ({ks / len(kd):.0%})' if kd else '–'} | {len(kk)} | "
                  f"{f'{ke} ({ke / len(kk):.1%})' if kk else '–'} |")
    # (title, row key, a column of searched decisions, rows without a departure printed too)
    for title, key, searched, every in (
            ("role", lambda r: r["role"], True, True),
            ("role: decision kind", lambda r: f"{r['role']}: {r['kind']}", True, True),
            ("decision kind: proposal (kinds with a departure)", lambda r: f"{r['kind']}: {r['proposal'][0]}", True,
             False),
            ("decision kind: proposal -> chosen",
             lambda r: f"{r['kind']}: {r['proposal'][0]} -> {r['chosen'][0]}", False, False)):
        table: dict = defaultdict(lambda: [0, 0, 0.0])
        for r in rows:
            t = table[key(r)]
            t[0] += 1
            if r["chosen"] != r["proposal"]:
                t[1] += 1
                t[2] += r["gain"]
        head = "| searched " if searched else ""
        print(f"\n| {title} {head}| departures | summed gain |\n|---|{'---|' if searched else ''}---|---|")
        for k, (n, d, s) in sorted(table.items(), key=lambda kv: (-kv[1][2], -kv[1][0])):
            if d or every:
                print(f"| {k} {f'| {n} ' if searched else ''}| {d} | {s:.2f} |")
    if total > 0:
        print("\n| gain above | departures | share of the summed gain |\n|---|---|---|")
        for th in (0.0, 0.05, 0.1, 0.2, 0.4):
            sel = gains > th
            print(f"| {th:.2f} | {int(sel.sum())} | {gains[sel].sum() / total:.0%} |")
    print(f"\nthe {min(a.top, len(dep))} largest departures:")
    for r in sorted(dep, key=lambda r: -r["gain"])[:a.top]:
        print(f"  {r['gain']:+.3f}  {r['role']}, turn {r['turn']}, {r['kind']}: {r['proposal'][1]} -> {r['chosen'][1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
