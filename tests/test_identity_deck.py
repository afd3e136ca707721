"""Legal identity decks (CR 907.3a-c) as GameConfig options: fixed deals and
``role_counts`` accept every deck CR 907.3b allows, not only the recommended
table of CR 907.3c; everything else is refused naming 907.3b.  Backstab Rumble
(TR11) is the deliberate exception, and its default pool widens to deal it."""

from __future__ import annotations

import json
import random

import pytest

from treachery_env import GameConfig
from treachery_env.config import RARITY_POOLS
from treachery_env.engine import Game
from treachery_env.identities import get
from treachery_env.rules import ROLE_TABLE, Role, check_identity_deck, role_distribution, team_of
from table.options import game_config_from_args, parse_role_counts
from training.cli import build_parser

LEADERS = ["The Blood Empress", "Her Seedborn Highness", "The Old Ruler", "The Queen of Light", "The Void Tyrant"]
GUARDIANS = ["The Bodyguard", "The Cathar", "The Flickering Mage", "The Golem"]
ASSASSINS = ["The Ambitious Queen", "The Beastmaster", "The Chaos Wielder", "The Demon", "The Seer"]
TRAITORS = ["The Banisher", "The Gatekeeper", "The Grenadier", "The Oneiromancer"]
SIX_1L_3A_2T = [LEADERS[0], ASSASSINS[0], ASSASSINS[1], ASSASSINS[2], TRAITORS[0], TRAITORS[1]]


def _play(g: Game, seed: int) -> Game:
    rng = random.Random(seed)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    return g


def _roles(g: Game) -> dict[Role, int]:
    roles = [p.identity.role for p in g.players]
    return {r: roles.count(r) for r in Role}


# ---------------------------------------------------------------- CR 907.3b itself
def test_check_identity_deck_accepts_the_907_3b_decks_and_the_907_3c_table():
    """CR 907.3b: one Leader, >= 1 Traitor, floor(n/2) Assassins, the rest
    Guardians or Traitors; every recommended deck of CR 907.3c is accepted,
    including the 8-player row with 3 Assassins (907.3b's rounding would ask 4)."""
    assert check_identity_deck({"leader": 1, "assassin": 3, "traitor": 2}, 6) == {
        Role.LEADER: 1, Role.GUARDIAN: 0, Role.ASSASSIN: 3, Role.TRAITOR: 2}
    assert check_identity_deck({Role.LEADER: 1, Role.ASSASSIN: 2, Role.TRAITOR: 2}, 5)[Role.TRAITOR] == 2
    assert check_identity_deck([("Leader", 1), ("ASSASSIN", 4), ("traitor", 3)], 8)[Role.ASSASSIN] == 4
    for n, row in ROLE_TABLE.items():
        assert tuple(check_identity_deck(dict(zip(Role, row)), n).values()) == row
    for n in range(9, 13):
        assert check_identity_deck(role_distribution(n), n) == role_distribution(n)
    # Backstab Rumble breaks 907.3b on purpose (TR11): only 1 Leader + n-1 Traitors
    assert check_identity_deck({"leader": 1, "traitor": 5}, 6, "backstab_rumble")[Role.TRAITOR] == 5
    with pytest.raises(ValueError, match="TR11 Backstab Rumble"):
        check_identity_deck({"leader": 1, "assassin": 3, "traitor": 2}, 6, "backstab_rumble")


@pytest.mark.parametrize("counts, message", [
    ({"assassin": 3, "traitor": 2, "guardian": 1}, "needs exactly 1 Leader, got 0"),
    ({"leader": 2, "assassin": 3, "traitor": 1}, "needs exactly 1 Leader, got 2"),
    ({"leader": 1, "assassin": 3, "guardian": 2}, "needs at least 1 Traitor, got 0"),
    ({"leader": 1, "assassin": 2, "traitor": 3}, "needs exactly 3 Assassins, got 2"),
    ({"leader": 1, "assassin": 4, "traitor": 1}, "needs exactly 3 Assassins, got 4"),
    ({"leader": 1, "assassin": 3, "traitor": 3}, "has one card per player .CR 907.3a., so 6 cards, got 7"),
    ({"leader": 1, "assassin": 3, "traitor": 1}, "has one card per player .CR 907.3a., so 6 cards, got 5"),
])
def test_every_kind_of_illegal_deck_is_refused_naming_907_3b(counts, message):
    """CR 907.3b: 0 or 2 Leaders, no Traitor, a wrong number of Assassins or a
    wrong total (907.3a) are each refused, as the rule function, as
    ``role_counts`` and as a fixed deal, with a one-line message naming 907.3b."""
    with pytest.raises(ValueError, match="^CR 907.3b: an identity deck for 6 players " + message):
        check_identity_deck(counts, 6)
    with pytest.raises(ValueError, match="^GameConfig.role_counts: CR 907.3b: .*" + message):
        GameConfig(num_players=6, role_counts=counts)
    pools = {Role.LEADER: LEADERS, Role.GUARDIAN: GUARDIANS, Role.ASSASSIN: ASSASSINS, Role.TRAITOR: TRAITORS}
    deal = [name for key, c in counts.items() for name in pools[Role.parse(key)][:c]]
    if len(deal) == 6:       # a fixed deal of the wrong size fails on the seat count first
        with pytest.raises(ValueError, match="^GameConfig.identities: CR 907.3b: .*" + message):
            GameConfig(num_players=6, identities=deal)
        lands = {Role.LEADER: "Plains", Role.GUARDIAN: "Island", Role.ASSASSIN: "Mountain", Role.TRAITOR: "Swamp"}
        with pytest.raises(ValueError, match="^GameConfig.identities: CR 907.3b: .*" + message):
            GameConfig(num_players=6, variant="simple_roles",
                       identities=[lands[get(n).role] for n in deal])
    else:
        with pytest.raises(ValueError, match="needs one identity per seat"):
            GameConfig(num_players=6, identities=deal)
    assert "\n" not in _message(lambda: check_identity_deck(counts, 6))


def _message(f) -> str:
    with pytest.raises(ValueError) as e:
        f()
    return str(e.value)


def test_malformed_role_counts_are_refused():
    """role_counts names roles and whole counts; Backstab Rumble has its own deck (TR11)."""
    with pytest.raises(ValueError, match="unknown role 'lord'"):
        GameConfig(num_players=6, role_counts={"lord": 1, "assassin": 3, "traitor": 2})
    with pytest.raises(ValueError, match="Leader cards must be an int >= 0, got -1"):
        GameConfig(num_players=6, role_counts={"leader": -1})
    with pytest.raises(ValueError, match="Traitor cards must be an int >= 0, got 2.0"):
        GameConfig(num_players=6, role_counts={"leader": 1, "assassin": 3, "traitor": 2.0})
    with pytest.raises(ValueError, match="role counts: Leader is given twice"):
        GameConfig(num_players=6, role_counts=[("leader", 1), ("Leader", 1)])
    with pytest.raises(ValueError, match="role_counts.*must map role names"):
        GameConfig(num_players=6, role_counts=6)
    with pytest.raises(ValueError, match="role_counts: Backstab Rumble .TR11. fixes its own identity deck"):
        GameConfig(num_players=6, variant="backstab_rumble", role_counts={"leader": 1, "traitor": 5})


# ---------------------------------------------------------------- fixed deals
def test_six_players_one_leader_three_assassins_two_traitors_fixed_deal_plays():
    """CR 907.3b: 1 Leader, 3 Assassins, 2 Traitors is a legal 6-player deck
    although CR 907.3c only recommends 1 Leader, 1 Guardian, 3 Assassins,
    1 Traitor; the fixed deal is accepted, dealt seat by seat, and a random
    game plays to its end."""
    cfg = GameConfig(num_players=6, identities=SIX_1L_3A_2T, starting_life=6, max_turns=120)
    assert cfg.distribution() == {Role.LEADER: 1, Role.GUARDIAN: 0, Role.ASSASSIN: 3, Role.TRAITOR: 2}
    g = Game(cfg, seed=3)
    assert [p.identity.name for p in g.players] == SIX_1L_3A_2T
    assert g.active == 0 and g.players[0].face_up                       # CR 907.6: the Leader starts
    _play(g, 3)
    # CR 907.7a: one team wins (seed 3: not a draw, not truncated); Traitors are teams of one
    assert g.is_over and not g.truncated and g.winners
    assert len({team_of(g.players[s].role) for s in g.winners}) == 1
    assert {g.players[s].role for s in g.winners} != {Role.TRAITOR} or len(g.winners) == 1
    assert Game.from_json(g.to_json()).digest() == g.digest()


def test_fixed_deal_must_agree_with_role_counts():
    """A fixed deal with role_counts must have exactly those counts."""
    counts = {"leader": 1, "assassin": 3, "traitor": 2}
    assert GameConfig(num_players=6, identities=SIX_1L_3A_2T, role_counts=counts).role_counts[2] == ("assassin", 3)
    other = [LEADERS[0], GUARDIANS[0], ASSASSINS[0], ASSASSINS[1], ASSASSINS[2], TRAITORS[0]]
    with pytest.raises(ValueError, match="the deal has 1 Leader, 1 Guardian, 3 Assassins, 1 Traitor but "
                                         "role_counts asks for 1 Leader, 3 Assassins, 2 Traitors"):
        GameConfig(num_players=6, identities=other, role_counts=counts)


# ---------------------------------------------------------------- dealt games
@pytest.mark.parametrize("n, counts", [
    (6, {"leader": 1, "assassin": 3, "traitor": 2}),
    (5, {"leader": 1, "assassin": 2, "traitor": 2}),
    (8, {"leader": 1, "assassin": 4, "guardian": 1, "traitor": 2}),
    (12, {"leader": 1, "assassin": 6, "traitor": 4, "guardian": 1}),
])
def test_role_counts_deal_exactly_those_counts_and_replay(n, counts):
    """CR 907.3b / 907.4: a dealt game with role_counts shuffles and deals that
    deck, over many seeds; the deal varies by seat, and the replay (config with
    role_counts, seed, actions) rebuilds the same game."""
    cfg = GameConfig(num_players=n, role_counts=counts, starting_life=5, max_turns=40)
    want = {r: 0 for r in Role} | {Role.parse(k): v for k, v in counts.items()}
    assert cfg.distribution() == want
    leader_seats = set()
    for seed in range(8):
        g = Game(cfg, seed=seed)
        assert _roles(g) == want
        assert all(get(p.identity.name).rarity in cfg.identity_pool for p in g.players)
        assert len({p.identity.name for p in g.players}) == n              # each card once
        leader_seats.add(next(p.seat for p in g.players if p.identity.role == Role.LEADER))
    assert len(leader_seats) > 1
    g = _play(Game(cfg, seed=11), 11)
    text = g.to_json()
    stored = json.loads(text)["config"]
    assert stored["role_counts"] == {"leader": want[Role.LEADER], "guardian": want[Role.GUARDIAN],
                                     "assassin": want[Role.ASSASSIN], "traitor": want[Role.TRAITOR]}
    h = Game.from_json(text)
    assert h.config == cfg and h.digest() == g.digest()
    assert [p.identity.name for p in h.players] == [p.identity.name for p in g.players]
    assert GameConfig.from_dict(cfg.to_dict()) == cfg and hash(GameConfig.from_dict(cfg.to_dict())) == hash(cfg)


def test_role_counts_with_simple_roles_and_the_default():
    """TR11 simple roles deal role cards of role_counts; None keeps the
    recommended deck (CR 907.3c) and the old deals."""
    cfg = GameConfig(num_players=6, variant="simple_roles", role_counts={"leader": 1, "assassin": 3, "traitor": 2})
    g = Game(cfg, seed=0)
    assert sorted(p.identity.name for p in g.players) == ["Mountain"] * 3 + ["Plains"] + ["Swamp"] * 2
    assert GameConfig(num_players=6).distribution() == role_distribution(6)
    assert GameConfig(num_players=6).to_dict()["role_counts"] is None
    assert GameConfig(num_players=6, role_counts=None) == GameConfig(num_players=6)


def test_role_counts_pool_sufficiency_says_what_to_pass():
    """TR11.4: the pool must hold enough of each role.  A default pool widens
    to the first named pool that can deal role_counts; an explicit one is refused
    with the pool to pass."""
    many_traitors = {"leader": 1, "assassin": 6, "traitor": 5}          # 12 players, 4 uncommon Traitors
    assert GameConfig(num_players=12, role_counts=many_traitors).identity_pool == RARITY_POOLS["rare"]
    with pytest.raises(ValueError, match=r"^GameConfig.identity_pool: rarities \['uncommon'\] give 4 implemented "
                                         r"Traitor identities, but the identity deck \(CR 907.3b\) for 12 players "
                                         r"needs 5; pass identity_pool='rare'"):
        GameConfig(num_players=12, role_counts=many_traitors, identity_pool="uncommon")
    rare_traitors = ["The Cleaner", "The Reflector", "The Time Bender"]
    with pytest.raises(ValueError, match=r"rarities \['uncommon', 'rare'\] give 4 implemented Traitor identities "
                                         r"after bans, .* needs 5; pass identity_pool='mythic'"):
        GameConfig(num_players=12, role_counts=many_traitors, identity_pool="rare", banned_identities=rare_traitors)
    assert GameConfig(num_players=12, role_counts=many_traitors,
                      banned_identities=rare_traitors).identity_pool == RARITY_POOLS["mythic"]


# ---------------------------------------------------------------- Backstab Rumble (TR11)
@pytest.mark.parametrize("n, pool", [(6, "rare"), (8, "rare"), (12, "all")])
def test_backstab_rumble_at_six_eight_and_twelve_players_builds_and_plays(n, pool):
    """TR11 Backstab Rumble: 1 Leader and n-1 Traitors.  The default uncommon
    pool has 4 Traitors, so with the pool left at its default the game picks the
    first named pool that has n-1 (rare for 6-8, all for 11-12, the four special
    Traitors included); a random game plays to its end and replays."""
    cfg = GameConfig(num_players=n, variant="backstab_rumble", starting_life=4, max_turns=150)
    assert cfg.identity_pool == RARITY_POOLS[pool]
    assert GameConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.to_dict()["identity_pool"] == list(RARITY_POOLS[pool])
    g = Game(cfg, seed=n)
    assert _roles(g) == {Role.LEADER: 1, Role.GUARDIAN: 0, Role.ASSASSIN: 0, Role.TRAITOR: n - 1}
    _play(g, n)
    # TR11: no teams but the Leader alone; whoever wins, wins alone (here: no draw, no truncation)
    assert g.is_over and not g.truncated and len(g.winners) == 1
    assert g.players[next(iter(g.winners))].role in (Role.LEADER, Role.TRAITOR)
    assert Game.from_json(g.to_json()).digest() == g.digest()


def test_backstab_rumble_pool_choice_per_table_size_and_replace():
    """The widened pool is the smallest named one, deterministic for each table
    size; ``replace`` chooses it again when the pool was left to the default,
    and keeps an explicit pool."""
    want = {4: "uncommon", 5: "uncommon", 6: "rare", 7: "rare", 8: "rare", 9: "mythic", 10: "mythic",
            11: "all", 12: "all"}
    for n, name in want.items():
        assert GameConfig(num_players=n, variant="backstab_rumble").identity_pool == RARITY_POOLS[name]
    five = GameConfig(variant="backstab_rumble")
    assert five.replace(num_players=9).identity_pool == RARITY_POOLS["mythic"]
    assert five.replace(num_players=9).replace(num_players=5).identity_pool == ("uncommon",)
    explicit = GameConfig(variant="backstab_rumble", identity_pool="uncommon")
    with pytest.raises(ValueError, match="pass identity_pool='mythic'"):
        explicit.replace(num_players=9)


def test_backstab_rumble_explicit_small_pool_gives_the_suggestion():
    """TR11 / TR11.3: an explicitly chosen pool is never widened; the message
    says exactly what to pass (the smallest named pool containing the chosen rarities)."""
    with pytest.raises(ValueError, match=r"rarities \['uncommon', 'rare', 'mythic'\] give 9 implemented Traitor "
                                         r"identities, but the Backstab Rumble deck \(TR11\) for 12 players needs 11; "
                                         r"pass identity_pool='all'"):
        GameConfig(num_players=12, variant="backstab_rumble", identity_pool="mythic")
    with pytest.raises(ValueError, match=r"rarities \['mythic'\] give 2 .* pass identity_pool='mythic' "
                                         r"\(rarities \['uncommon', 'rare', 'mythic'\]\)"):
        GameConfig(num_players=6, variant="backstab_rumble", identity_pool=["mythic"])
    bans = ["The Banisher", "The Cleaner", "The Ferryman"]
    with pytest.raises(ValueError, match="give 10 implemented Traitor identities after bans.*needs 11; no rarity "
                                         "pool has enough, not even identity_pool='all'; ban fewer identities"):
        GameConfig(num_players=12, variant="backstab_rumble", banned_identities=bans)


# ---------------------------------------------------------------- the command line
def test_cli_role_counts_option():
    """``--role-counts leader=1,assassin=3,traitor=2`` reaches GameConfig;
    malformed input is a one-line error naming the option."""
    args = build_parser().parse_args(["evaluate", "--agents", "random", "--players", "6",
                                      "--role-counts", "leader=1,assassin=3,traitor=2"])
    cfg = game_config_from_args(args)
    assert cfg.distribution() == {Role.LEADER: 1, Role.GUARDIAN: 0, Role.ASSASSIN: 3, Role.TRAITOR: 2}
    assert parse_role_counts(" Leader = 1 , assassin=3,traitor=2") == {"leader": 1, "assassin": 3, "traitor": 2}
    for bad, msg in [("leader=x", "'leader=x' is not role=count"), ("leader", "'leader' is not role=count"),
                     ("leader=1,,traitor=2", "'' is not role=count"), ("leader=1,leader=1", "'leader' is given twice")]:
        with pytest.raises(ValueError, match="^--role-counts: " + msg):
            parse_role_counts(bad)
    args = build_parser().parse_args(["evaluate", "--agents", "random", "--players", "6",
                                      "--role-counts", "leader=1,assassin=2,traitor=3"])
    with pytest.raises(ValueError, match="CR 907.3b: an identity deck for 6 players needs exactly 3 Assassins, got 2"):
        game_config_from_args(args)


def test_bots_read_the_dealt_deck_from_the_view():
    """TR2.3: the identity deck's composition is public, so every seat's view
    carries it (``SeatView.role_counts``) and the belief prior follows the deck
    that was dealt, not the recommended one: with 1 Leader, 3 Assassins and 2
    Traitors at 6 players, a Leader who knows nothing else gives each face-down
    seat Assassin 3/5, Traitor 2/5, Guardian 0."""
    from agents.belief import RoleBelief
    cfg = GameConfig(num_players=6, role_counts={"leader": 1, "assassin": 3, "traitor": 2})
    g = Game(cfg, seed=4)
    leader = next(p.seat for p in g.players if p.identity.role == Role.LEADER)
    for s in range(6):
        assert g.view(s).role_counts == (1, 0, 3, 2)
    b = RoleBelief().beliefs(g.view(leader))
    for s, row in b.items():
        if s == leader:
            continue
        assert row[Role.GUARDIAN] == pytest.approx(0.0, abs=1e-9)
        assert row[Role.ASSASSIN] == pytest.approx(0.6, abs=0.15)
        assert row[Role.TRAITOR] == pytest.approx(0.4, abs=0.15)
    assert sum(row[Role.ASSASSIN] for s, row in b.items() if s != leader) == pytest.approx(3.0)
