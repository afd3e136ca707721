"""Identity pools and the Treachery variants as GameConfig options (TR11):
Backstab Rumble, simple roles, rarity pools, bans, 9+ tables, Commander or not."""

from __future__ import annotations

import random

import pytest

from scenario import give_priority
from treachery_env import GameConfig
from treachery_env.engine import Game
from treachery_env.identities import get
from treachery_env.rules import Role, role_distribution


def _play(g: Game, seed: int) -> Game:
    rng = random.Random(seed)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    return g


def test_backstab_rumble_deals_one_leader_and_traitors():
    """TR11 Backstab Rumble: the identity deck holds one Leader; every other card
    is a Traitor.  Each Traitor opposes everyone: a Traitor wins only alone."""
    assert role_distribution(5, "backstab_rumble") == {Role.LEADER: 1, Role.GUARDIAN: 0, Role.ASSASSIN: 0,
                                                       Role.TRAITOR: 4}
    cfg = GameConfig(num_players=5, variant="backstab_rumble", starting_life=6, max_turns=80)
    winners = set()
    for seed in range(12):
        g = Game(cfg, seed=seed)
        roles = sorted(p.identity.role for p in g.players)
        assert roles == [Role.LEADER] + [Role.TRAITOR] * 4
        assert g.players[g.active].identity.role == Role.LEADER and g.players[g.active].face_up
        _play(g, seed)
        if g.winners:
            assert len(g.winners) == 1
            winners.add(g.players[next(iter(g.winners))].role)
    assert winners == {Role.LEADER, Role.TRAITOR}


def test_backstab_rumble_needs_enough_traitors_in_the_pool():
    """TR11: Backstab Rumble needs n-1 Traitors.  An explicit pool too small for
    them is refused with the pool to pass; a fixed deal must be 1 Leader and
    Traitors only."""
    with pytest.raises(ValueError, match=r"give 4 implemented Traitor identities.*needs 5; "
                                         r"pass identity_pool='rare'"):
        GameConfig(num_players=6, variant="backstab_rumble", identity_pool="uncommon")
    with pytest.raises(ValueError, match="TR11 Backstab Rumble.*exactly 1 Leader, 4 Traitors"):
        GameConfig(num_players=5, variant="backstab_rumble",
                   identities=["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Grenadier"])


def test_simple_roles_are_basic_lands_without_abilities():
    """TR11 simple roles: Plains = Leader, Island = Guardian, Mountain = Assassin,
    Swamp = Traitor; no unveil abilities, so unveiling just flips (for free) and
    Undercover doesn't apply."""
    cfg = GameConfig(num_players=5, variant="simple_roles",
                     identities=["Plains", "Island", "Mountain", "Mountain", "Swamp"], decks=["aggro"] * 5)
    g = Game(cfg, seed=0)
    assert g.players[0].face_up and g.active == 0 and g.is_leader_player(0)
    assert [p.role for p in g.players] == [Role.LEADER, Role.GUARDIAN, Role.ASSASSIN, Role.ASSASSIN, Role.TRAITOR]
    island = g.players[1]
    assert not g.undercover_met(1) and g.can_unveil(1, ignore_cost=True)     # no Undercover
    island.lands_tapped = island.lands           # no mana at all: the flip is free
    give_priority(g, 1)
    assert g.can_unveil(1)
    stack_before = len(g.stack)
    g.unveil(1)
    assert island.face_up and len(g.stack) == stack_before                    # no trigger
    assert g.players[1].identity.name == "Island"
    # random games: the standard win conditions hold
    for seed in range(5):
        h = _play(Game(GameConfig(num_players=6, variant="simple_roles", starting_life=6), seed=seed), seed)
        assert all(p.identity.name in ("Plains", "Island", "Mountain", "Swamp") for p in h.players)


def test_simple_roles_deal_is_checked():
    with pytest.raises(ValueError, match="CR 907.3b: an identity deck for 5 players needs exactly 2 Assassins, got 1"):
        GameConfig(num_players=5, variant="simple_roles", identities=["Plains", "Island", "Swamp", "Swamp", "Mountain"])
    with pytest.raises(ValueError, match="simple-roles card"):
        GameConfig(num_players=5, variant="simple_roles",
                   identities=["Plains", "The Bodyguard", "Mountain", "Mountain", "Swamp"])


def test_named_rarity_pools_and_special_opt_in():
    """TR11 rarity pools: uncommons for a first game, then rares and mythics; the
    four "special" Traitors only when asked for."""
    assert GameConfig(identity_pool="rare").identity_pool == ("uncommon", "rare")
    assert "special" not in GameConfig(identity_pool="mythic").identity_pool
    assert "special" in GameConfig(identity_pool="all").identity_pool
    with pytest.raises(ValueError, match="unknown pool"):
        GameConfig(identity_pool="legendary")
    for name in GameConfig(identity_pool="uncommon").pool():
        assert get(name).rarity == "uncommon"
    for seed in range(10):
        g = Game(GameConfig(num_players=8), seed=seed)
        assert all(get(p.identity.name).rarity == "uncommon" for p in g.players)


def test_bans_remove_identities_and_a_ban_of_a_whole_role_is_refused():
    """TR11 individual bans: banned identities are never dealt; the pool must
    still have enough of each role for the table."""
    banned = ("The Seer", "The Demon")
    cfg = GameConfig(num_players=5, banned_identities=banned)
    for seed in range(20):
        assert not {p.identity.name for p in Game(cfg, seed=seed).players} & set(banned)
    leaders = ["The Blood Empress", "Her Seedborn Highness", "The Old Ruler", "The Queen of Light", "The Void Tyrant"]
    with pytest.raises(ValueError, match="0 implemented Leader identities after bans.*pass identity_pool='rare'"):
        GameConfig(num_players=5, banned_identities=leaders, identity_pool="uncommon")
    # the default pool widens to the first named pool that still deals a Leader
    assert GameConfig(num_players=5, banned_identities=leaders).identity_pool == ("uncommon", "rare")
    with pytest.raises(ValueError, match="banned_identities"):
        GameConfig(banned_identities=["The Nobody"])


@pytest.mark.parametrize("n", [9, 10, 12])
def test_nine_and_more_players(n):
    """FAQ: from 9 players, floor(n/2) Assassins; the seats left after the Leader
    split between Guardians and Traitors, Guardians taking the odd one."""
    dist = role_distribution(n)
    g = Game(GameConfig(num_players=n, identity_pool="all"), seed=n)
    roles = [p.identity.role for p in g.players]
    assert {r: roles.count(r) for r in Role} == dist
    _play(g, n)


def test_commander_or_not():
    """CR 907.5: 40 life with Commander and a commander in the command zone;
    20 without, and the commander card is in the library instead."""
    a = Game(GameConfig(num_players=4, decks=["ramp"] * 4), seed=0)
    b = Game(GameConfig(num_players=4, commander=False, decks=["ramp"] * 4), seed=0)
    assert {p.life for p in a.players} == {40} and all(p.commander is not None for p in a.players)
    assert {p.life for p in b.players} == {20} and all(p.commander is None for p in b.players)
    assert all(len(p.library) + len(p.hand) == 100 for p in b.players)
    assert all(len(p.library) + len(p.hand) == 99 for p in a.players)


def test_recommended_exclusion_list():
    """TR12: Expropriate, Head Games and Trade Secrets are left out by default
    (replaced by a basic land); with the list off they are in the control deck."""
    from treachery_env.cards import RECOMMENDED_EXCLUSIONS
    on = Game(GameConfig(num_players=4, decks=["control"] * 4), seed=1)
    off = Game(GameConfig(num_players=4, decks=["control"] * 4, recommended_exclusions=False), seed=1)
    names_on = {c.name for p in on.players for c in p.library + p.hand}
    names_off = {c.name for p in off.players for c in p.library + p.hand}
    assert not names_on & set(RECOMMENDED_EXCLUSIONS)
    assert set(RECOMMENDED_EXCLUSIONS) <= names_off
    with pytest.raises(ValueError, match="recommended_exclusions"):
        GameConfig(recommended_exclusions="yes")


def test_head_games_lets_its_caster_see_and_choose_from_a_library():
    """Head Games (why TR12 recommends leaving it out): the caster looks at the
    opponent's library (a private event) and chooses their new hand."""
    from scenario import make_game, resolve_stack
    from treachery_env import cards
    g = make_game(["The Void Tyrant", "The Bodyguard", "The Seer", "The Demon", "The Grenadier"], lands=5,
                  hand=("Head Games",), recommended_exclusions=False)
    assert g.current_player == 0
    g.players[2].hand = [cards.card("Shock"), cards.card("Murder")]
    g.players[2].library = [cards.card("Wastes")] * 10 + [cards.card("Elder Titan")]
    g.step(g.layout.HAND + 0)
    g.step(g.layout.PLAYER + g.rel(0, 2))
    while g.decision.kind != 8:      # pass until the caster chooses cards
        g.step(0)
    assert g.decision.seat == 0
    picks = [a for a, p in g.decision.options if p == "Elder Titan"]
    g.step(picks[0])
    assert g.decision.seat == 0 and g.decision.kind == 8          # the second card
    g.step(g.decision.options[0][0])                              # Wastes (first by card index)
    assert sorted(c.name for c in g.players[2].hand) == ["Elder Titan", "Wastes"]
    assert len(g.players[2].library) == 11                        # 11 + 2 - 2
    private = [e for e in g.log if e["event"] == "look_at_library"]
    assert private and private[-1]["to"] == [0]
    resolve_stack(g)
