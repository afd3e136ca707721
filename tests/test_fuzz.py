"""Fuzz: thousands of random games over 4-8 players with every implemented
identity, invariants checked at every step."""

from __future__ import annotations

import random

import numpy as np
import pytest

from treachery_env import GameConfig
from treachery_env.engine import DecisionKind, Game
from treachery_env.identities import implemented
from treachery_env.observation import obs_layout
from treachery_env.rules import VARIANTS, Role, Team


def check_invariants(g: Game) -> None:
    """Invariants that hold between any two decisions."""
    ids = [p.identity for p in g.players]
    assert len({id(i) for i in ids}) == g.n, "one identity card per player"
    for p in g.players:
        assert p.identity.controller == p.seat
        assert 0 <= p.lands_tapped <= p.lands
        assert all(v >= 0 for v in p.tokens.values())
        if p.has_lost:
            assert not p.creatures and not p.hand and p.identity.face_up
        for c in p.creatures:
            assert c.controller == p.seat and c.toughness > 0 or c.damage == 0
        if p.has_lost:
            assert not p.attackables, "planeswalkers leave with their controller (CR 800.4a)"
        for w in p.attackables:
            assert w.controller == p.seat and not g.players[w.owner].has_lost
            assert w.used_turn <= g.turn
    assert g.n_alive == sum(not p.has_lost for p in g.players)
    if not g.is_over:
        d = g.decision
        # a shown decision has two or more legal actions, any number with forced_decisions="shown"
        assert d is not None and len(d.options) >= (1 if g.show_forced else 2)
        assert not g.players[d.seat].has_lost, "an eliminated player is never asked"
        mask = g.legal_action_mask()
        assert mask.dtype == np.int8 and mask.sum() == len(d.options)
        # CR 104.3a: CONCEDE is legal exactly for the seats GameConfig.concession names, but not for a
        # seat that lost and is leaving while its identity-sourced objects resolve (CR 907.8a)
        assert bool(mask[g.layout.CONCEDE]) == (d.seat in g.concession_seats and d.seat not in g.leaving)
        if g.mulligan_state is not None:          # before the first turn only mulligans are asked (CR 103.5)
            assert g.turn == 0 and d.kind in (DecisionKind.MULLIGAN, DecisionKind.BOTTOM)
        for it in g.stack:
            assert not g.players[it.controller].has_lost


def check_turns(g: Game) -> None:
    """No turn began for a seat that had left the game (CR 800.4: turns pass over them; a
    starting player's concession during the mulligans too)."""
    left: set = set()
    for e in g.log:
        if e["event"] == "loses":
            left.add(e["seat"])
        elif e["event"] == "turn":
            assert e["seat"] not in left, f"turn {e} of a seat that left the game"


def check_result(g: Game) -> None:
    """Winners are consistent with the roles (CR 907.7), and :func:`check_turns`."""
    assert g.is_over
    check_turns(g)
    alive = [p for p in g.players if not p.has_lost]
    if g.truncated:
        assert not g.winners
        return
    roles_alive = {p.identity.role for p in alive}
    effect = [e for e in g.log if e["event"] == "win_effect"]
    if effect:       # a "you win the game" effect (Game.win, TR6.7): that seat's team, whoever is left
        p = g.players[effect[-1]["seat"]]
        assert g.winners == ({p.seat} if p.team == Team.TRAITOR else {q.seat for q in g.players if q.team == p.team})
        return
    if not g.winners:                      # a draw: everyone left together
        assert not alive
        return
    teams = {g.players[s].team for s in g.winners}
    assert len(teams) == 1
    team = teams.pop()
    if team == Team.LEADER:
        assert Role.LEADER in roles_alive and not roles_alive & {Role.ASSASSIN, Role.TRAITOR}
        assert g.winners == {p.seat for p in g.players if p.team == Team.LEADER}
    elif team == Team.ASSASSIN:
        assert Role.LEADER not in roles_alive and Role.ASSASSIN in roles_alive
        assert g.winners == {p.seat for p in g.players if p.team == Team.ASSASSIN}
    else:
        assert len(g.winners) == 1 and [p.seat for p in alive] == sorted(g.winners)

def play_with_lands(g: Game, rng: random.Random, lands: int = 10) -> Game:
    """Give every player ``lands`` lands (so every unveil cost is within reach),
    then play random legal actions to the end, checking the invariants at every
    step and the result at the end."""
    for p in g.players:
        p.lands = lands
    g._advance()
    while not g.is_over:
        check_invariants(g)
        g.step(rng.choice(g.legal_actions()))
    check_invariants(g)
    check_result(g)
    return g


@pytest.mark.parametrize("chunk", range(10))
def test_random_games_keep_invariants(chunk):
    """2,000 games in all (10 chunks x 200): every variant (standard, Backstab
    Rumble, simple roles) at 4-8 and 10 players, identities drawn from every
    implemented one (rarity pool "all"), a random deck per seat, Commander and
    not, the recommended exclusion list on and off, every priority window
    (CR 500-514) and the main ones only, table talk and the silent table,
    London mulligans.  Random play reaches trigger ordering (CR 603.3b), the
    legend rule's choice (CR 704.5j), mulligans, table talk and truce answers."""
    names = implemented()
    seen_identities = set()
    outcomes = {}
    kinds: set = set()
    talked = 0
    tables = (4, 5, 6, 7, 8, 10)
    for k in range(200):
        seed = chunk * 1000 + k
        rng = random.Random(seed)
        n = tables[k % len(tables)]
        variant = VARIANTS[(k // len(tables)) % len(VARIANTS)]
        cfg = GameConfig(num_players=n, max_turns=rng.choice([25, 40, 60]), commander=bool(k % 3),
                         starting_life=rng.choice([None, 3, 5, 8]), variant=variant, identity_pool="all",
                         recommended_exclusions=bool(k % 2), priority_windows=("full", "main")[(k // 2) % 2],
                         talk=("structured", "structured", "none")[k % 3])
        g = Game(cfg, seed=seed)
        size = obs_layout(n).size
        while not g.is_over:
            check_invariants(g)
            kinds.add(g.decision.kind)
            if rng.random() < 0.02:
                o = g.observation(g.current_player)["observation"]
                assert o.shape == (size,) and np.isfinite(o).all()
                v = g.view(g.current_player)
                assert sorted(v.decision.actions()) == g.legal_actions()
            a = rng.choice(g.legal_actions())
            talked += g.layout.TALK <= a < g.layout.CONCEDE
            g.step(a)
        check_invariants(g)
        check_result(g)
        if variant != "simple_roles":
            seen_identities |= {p.identity.identity.name for p in g.players}
        key = "truncated" if g.truncated else "won"
        outcomes[key] = outcomes.get(key, 0) + 1
    assert seen_identities <= set(names)
    assert outcomes.get("won", 0) > 20, outcomes
    assert {DecisionKind.MULLIGAN, DecisionKind.DEAL} <= kinds, kinds
    assert talked > 100


def test_random_games_order_triggers_and_apply_the_legend_rule():
    """Random 6-player games with every identity: players order their own
    simultaneous triggers (CR 603.3b) and keep one of two same-named legends
    (CR 704.5j) often enough to be fuzzed, and every invariant holds."""
    counts = {DecisionKind.ORDER: 0, DecisionKind.KEEP: 0}
    for seed in range(120):
        rng = random.Random(seed)
        g = Game(GameConfig(num_players=6, identity_pool="all", max_turns=60), seed=70_000 + seed)
        while not g.is_over:
            check_invariants(g)
            if g.decision.kind in counts:
                counts[g.decision.kind] += 1
            g.step(rng.choice(g.legal_actions()))
        check_invariants(g)
        check_result(g)
    assert counts[DecisionKind.ORDER] >= 5 and counts[DecisionKind.KEEP] >= 5, counts


@pytest.mark.parametrize("chunk", range(2))
def test_random_games_with_concession_and_mulligans_keep_invariants(chunk):
    """400 games in all (2 chunks x 200) of random play with ``concession=True``
    (every seat may concede, CR 104.3a) and London mulligans (CR 103.5): at
    4-8 and 10 players, every variant, identities from every implemented one.
    Every game ends, keeps the invariants at every step (CONCEDE legal exactly
    in the shown decisions, the mulligans before the first turn), and its
    winners follow the roles (a concession is a loss; teammates of a conceding
    player still win, TR7.4); every 10th game replays to the same digest."""
    tables = (4, 5, 6, 7, 8, 10)
    conceded = mulligans = bottoms = 0
    outcomes: dict = {}
    for k in range(200):
        seed = 50_000 + chunk * 1000 + k
        rng = random.Random(seed)
        n = tables[k % len(tables)]
        variant = VARIANTS[(k // len(tables)) % len(VARIANTS)]
        cfg = GameConfig(num_players=n, max_turns=rng.choice([25, 40]), commander=bool(k % 3),
                         starting_life=rng.choice([None, 5, 8]), variant=variant, identity_pool="all",
                         concession=True)
        g = Game(cfg, seed=seed)
        # conceding is a random choice like any other, but rarer, so that games also end otherwise
        while not g.is_over:
            check_invariants(g)
            legal = g.legal_actions()
            rest = [a for a in legal if a != g.layout.CONCEDE]
            g.step(rng.choice(legal) if rng.random() < 0.05 else rng.choice(rest))
        check_invariants(g)
        check_result(g)
        conceded += sum(1 for e in g.log if e["event"] == "loses" and e["reason"] == "concede")
        mulligans += sum(p.mulligans for p in g.players)
        bottoms += sum(1 for e in g.log if e["event"] == "bottom")
        key = "truncated" if g.truncated else "won"
        outcomes[key] = outcomes.get(key, 0) + 1
        if k % 10 == 0:
            assert Game.from_json(g.to_json()).digest() == g.digest()
    assert conceded > 100 and mulligans > 100 and bottoms > 50, (conceded, mulligans, bottoms)
    assert outcomes.get("won", 0) > 40, outcomes


def test_every_identity_is_dealt_and_unveiled_in_fuzzing():
    """Across seeded games every implemented identity is dealt, and every one
    with an unveil cost gets unveiled at least once by random play (players
    start with 10 lands so that every cost is within reach)."""
    dealt, unveiled = set(), set()
    for seed in range(400):
        rng = random.Random(seed)
        g = Game(GameConfig(num_players=6 + seed % 3, max_turns=12, starting_life=12, identity_pool="all"), seed=seed)
        play_with_lands(g, rng)
        dealt |= {p.identity.name for p in g.players}
        unveiled |= {e["identity"] for e in g.log if e["event"] == "unveil"}
    names = set(implemented())
    assert dealt == names
    from treachery_env.identities import get
    with_cost = {n for n in names if get(n).unveil_cost is not None}
    assert with_cost - unveiled == set(), sorted(with_cost - unveiled)


@pytest.mark.parametrize("chunk", range(2))
def test_random_games_over_option_combinations_keep_invariants(chunk):
    """300 games in all (2 chunks x 150) over random combinations of the options: Treachery
    (every variant, identities from every implemented one) and Throne Magic (Holdings,
    Seasons), each with or without Planechase (a single planar deck or one a player, CR 901),
    Vanguard (CR 902) and Supervillain Rumble (CR 904), London mulligans or none, every
    priority window, single-option decisions taken or shown (a third), table talk in Treachery, concession as an action and out of turn
    (``Game.concede`` between decisions, as a UI calls it, CR 104.3a).  Every game keeps
    its game's invariants at every step (:func:`check_invariants`, or Throne Magic's),
    ends with winners that follow the roles, no turn of a seat that left, and replays to the
    same digest.  Combinations found two faults the single-option tests did not (a starting
    player conceding during the mulligans with per-player planar decks; a priority decision
    kept after an out-of-turn concession took a creature it named)."""
    from test_throne_magic import check_throne_invariants

    played = {"treachery": 0, "throne_magic": 0}
    out_of_turn = 0
    k = 0
    while sum(played.values()) < 150:
        seed = 70_000 + chunk * 1000 + k
        k += 1
        rng = random.Random(seed)
        game = ("treachery", "throne_magic")[k % 2]
        kw = dict(num_players=rng.choice([4, 5, 6, 7]), game=game, max_turns=rng.choice([15, 30]),
                  commander=rng.random() < 0.5, concession=True, mulligans=rng.choice(["london", "none"]),
                  priority_windows=rng.choice(["full", "main"]), forced_decisions=("auto", "shown")[k % 3 == 0],
                  planechase=rng.choice([None, "single", "per_player"]), vanguard=rng.choice([None, "random"]),
                  archenemy=rng.choice([None, None, "supervillain_rumble"]))
        if game == "treachery":
            kw.update(variant=VARIANTS[k // 2 % len(VARIANTS)], identity_pool="all",
                      talk=rng.choice(["structured", "none"]))
        else:
            kw.update(holdings=rng.random() < 0.5, seasons=rng.random() < 0.5, talk="none")
        try:
            cfg = GameConfig(**kw)
        except ValueError:      # a combination the rules do not allow (a variant's table size)
            continue
        check = check_invariants if game == "treachery" else check_throne_invariants
        g = Game(cfg, seed=seed)
        while not g.is_over:
            check(g)
            if rng.random() < 0.002 and (g.social is None or g.social.throne is not None):
                g.concede(rng.choice([s for s in range(g.n) if not g.players[s].has_lost and s not in g.leaving]))
                out_of_turn += 1
                continue
            legal = g.legal_actions()
            rest = [a for a in legal if a != g.layout.CONCEDE]
            g.step(rng.choice(legal) if rng.random() < 0.002 else rng.choice(rest))
        check(g)
        if game == "treachery":
            check_result(g)
        else:
            check_turns(g)
        assert Game.from_json(g.to_json()).digest() == g.digest()
        played[game] += 1
    assert min(played.values()) >= 60 and out_of_turn >= 20, (played, out_of_turn)
