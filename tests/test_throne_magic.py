"""Throne Magic on the engine (``../shared/rules/throne-magic.txt``, cited by its
headings; docs/throne_magic.md step 2): the config, the Role deal, the reveal on
leaving, the win check, the end-of-game reveal, copies and replays, and random
games checked at every step.  The Throne, the creatures' Throne abilities,
Holdings, Seasons and the observation are later steps."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from treachery_env import GameConfig, env
from treachery_env import throne_roles as tr
from treachery_env.engine import Game

BASIC5 = tr.basic_roles(5)      # The King, The Usurper, both Bannermen, the Dragon


def throne(**kw) -> GameConfig:
    """A Throne Magic config without mulligans (the first decision is a turn's)."""
    kw.setdefault("mulligans", "none")
    return GameConfig(game="throne_magic", **kw)


def seat_of(g: Game, role: str) -> int:
    return g.social.roles.index(role)


# ----------------------------------------------------------------------------- config
def test_treachery_stays_the_default_game_and_records_the_new_fields():
    cfg = GameConfig()
    assert cfg.game == "treachery" and cfg.talk == "structured"
    d = cfg.to_dict()
    assert d["game"] == "treachery" and d["throne_roles"] == "basic" and d["throne_deal"] is None
    assert GameConfig.from_dict(d) == cfg
    assert cfg.replace(num_players=6).talk == "structured"


def test_a_throne_magic_config_defaults_to_the_silent_basic_game_and_round_trips():
    cfg = throne(num_players=6)
    assert cfg.talk == "none" and cfg.throne_roles == "basic"
    assert GameConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    sculpted = throne(num_players=4, throne_roles=["The King", "The Usurper", "Dragon", "Wizard"])
    assert sculpted.throne_roles == ("The King", "The Usurper", "Dragon", "Wizard")
    assert GameConfig.from_dict(json.loads(json.dumps(sculpted.to_dict()))) == sculpted
    # replace keeps the game's own talk default
    assert GameConfig().replace(game="throne_magic").talk == "none"


@pytest.mark.parametrize("field,value", [("identities", ["The Oracle"] * 5), ("identity_pool", "rare"),
                                         ("banned_identities", ["The Oracle"]), ("variant", "simple_roles"),
                                         ("role_counts", {"leader": 1, "assassin": 2, "traitor": 2})])
def test_treachery_identity_fields_are_refused_in_throne_magic(field, value):
    with pytest.raises(ValueError, match=rf"GameConfig\.{field}: is a Treachery option"):
        throne(**{field: value})


@pytest.mark.parametrize("kw,match", [
    ({"talk": "structured"}, r"GameConfig\.talk: Throne Magic has no table talk yet"),
    ({"num_players": 8}, r"GameConfig\.throne_roles: Throne Magic, Basic method: needs 4 to 7 players"),
    ({"throne_roles": "draft"}, r"GameConfig\.throne_roles: must be one of \['basic', 'random'\]"),
    ({"throne_roles": "random", "num_players": 12, "max_turns": 10}, None),
    ({"num_players": 4, "throne_roles": ["The King", "The Usurper", "King's Bannerman", "Angel"]},
     r"GameConfig\.throne_roles: Throne Magic, Sculpted method: .*Angel"),
    ({"num_players": 4, "throne_roles": ["The King", "The Usurper", "King's Bannerman", "Barbarian"]},
     r"GameConfig\.throne_roles: Throne Magic, Sculpted method: no Role among .* must eliminate"),
    ({"num_players": 4, "throne_roles": ["The King", "The Usurper", "Dragon"]},
     r"GameConfig\.throne_roles: Throne Magic, Sculpted method: 3 Roles for 4 players"),
    ({"num_players": 4, "throne_roles": ["The King", "The Usurper", "Dragon", "Ghost"]},
     r"GameConfig\.throne_roles: .*Ghost"),
    ({"num_players": 5, "throne_deal": BASIC5[:4] + ["Wizard"]},
     r"GameConfig\.throne_deal: deals .* but throne_roles='basic' gives the Roles"),
    ({"num_players": 5, "throne_roles": "random", "throne_deal": BASIC5},
     r"GameConfig\.throne_deal: a fixed deal needs a set known in advance"),
    ({"num_players": 5, "throne_deal": BASIC5[:4] + ["The King"]}, r"GameConfig\.throne_deal: .*twice"),
])
def test_bad_throne_magic_configs_raise_one_line_errors_naming_the_rule(kw, match):
    if match is None:           # the Random method seats up to 12 (17 Roles, the engine's largest table)
        assert Game(throne(**kw), seed=3).social.method == "random"
        return
    with pytest.raises(ValueError, match=match) as e:
        throne(**kw)
    assert "\n" not in str(e.value)


def test_throne_magic_options_are_refused_in_treachery_and_unknown_games():
    with pytest.raises(ValueError, match=r"GameConfig\.throne_roles: is a Throne Magic option; pass game='throne_magic'"):
        GameConfig(throne_roles="random")
    with pytest.raises(ValueError, match=r"GameConfig\.throne_deal: is a Throne Magic option"):
        GameConfig(throne_deal=BASIC5)
    with pytest.raises(ValueError, match=r"GameConfig\.game: must be one of \['treachery', 'throne_magic'\]"):
        GameConfig(game="mafia")


def test_the_environment_and_the_seat_layers_refuse_throne_magic_with_a_clear_error():
    with pytest.raises(ValueError, match=r"GameConfig\.game: the environment plays Treachery only"):
        env(config=throne())
    g = Game(throne(), seed=0)
    for call in (lambda: g.observation(0), lambda: g.view(0), lambda: g.render_text(0),
                 lambda: g.describe_action(0, 0)):
        with pytest.raises(ValueError, match=r"a Throne Magic game has no observation, view or text yet"):
            call()


# ----------------------------------------------------------------------------- the deal
def test_the_basic_game_deals_its_roles_one_per_seat_and_no_identity_cards():
    """"Choosing Role Cards for the Game" (Basic) and "Public and Private Information":
    the set is public, each seat's own Role is told to it alone."""
    for n in range(4, 8):
        g = Game(throne(num_players=n), seed=n)
        assert sorted(g.social.roles) == sorted(tr.basic_roles(n))
        assert set(g.social.role_set) == set(tr.basic_roles(n))
        assert all(p.identity is None for p in g.players)
        public = [e for e in g.log if e["event"] == "roles"]
        assert len(public) == 1 and public[0]["to"] is None and sorted(public[0]["roles"]) == sorted(g.social.roles)
        private = [e for e in g.log if e["event"] == "deal_role"]
        assert [(e["seat"], e["role"], e["to"]) for e in private] == [(s, r, [s]) for s, r in enumerate(g.social.roles)]
        assert g.social.known_by == [{s} for s in range(n)]


def test_the_deal_is_shuffled_by_the_seed_and_fixed_by_it():
    seats = Counter(seat_of(Game(throne(), seed=s), "The King") for s in range(40))
    assert len(seats) == 5 and min(seats.values()) >= 3, seats      # every seat gets The King sometimes
    firsts = Counter(Game(throne(), seed=s).active for s in range(40))
    assert len(firsts) == 5, firsts         # the starting player is chosen at random (CR 103.1)
    a, b = Game(throne(throne_roles="random", num_players=7), seed=9), Game(throne(throne_roles="random", num_players=7), seed=9)
    assert a.social.roles == b.social.roles and a.digest() == b.digest()


def test_the_random_method_draws_sets_the_method_allows():
    """"Choosing Role Cards for the Game" (Random): each Role after the first must
    eliminate and be eliminated by one drawn before it; no Angel without another Good Role."""
    sets = set()
    for seed in range(30):
        g = Game(throne(throne_roles="random", num_players=4 + seed % 7, max_turns=5), seed=seed)
        roles = g.social.role_set
        sets.add(roles)
        assert len(roles) == g.n
        order = [e for e in g.log if e["event"] == "roles"][0]["roles"]
        assert tuple(order) == roles
        assert any(tr.check_draft(list(p)) is None for p in [_a_draft_order(roles)])
    assert len(sets) >= 20


def _a_draft_order(roles) -> list[str]:
    """An order of ``roles`` in which each joins the ones before it (the Random method drew one such)."""
    for first in roles:
        order, rest = [first], [r for r in roles if r != first]
        while rest:
            nxt = next((r for r in rest if r in tr.draft_options(order, roles)), None)
            if nxt is None:
                break
            order.append(nxt)
            rest.remove(nxt)
        if not rest:
            return order
    raise AssertionError(f"no draft order for {roles}")


def test_a_sculpted_set_and_a_fixed_deal_are_seated_as_given():
    roles = ["Wizard", "The King", "Dragon", "The Usurper"]
    g = Game(throne(num_players=4, throne_roles=roles, throne_deal=roles), seed=0)
    assert g.social.roles == tuple(roles) and g.social.method == "sculpted"
    shuffled = Counter(Game(throne(num_players=4, throne_roles=roles), seed=s).social.roles.index("Dragon")
                       for s in range(24))
    assert len(shuffled) == 4


# ----------------------------------------------------------------------------- leaving and winning
def test_a_leaving_player_reveals_their_role_card():
    """"Leaving the Game": the Role card is revealed when its player leaves, to everyone."""
    g = Game(throne(throne_deal=BASIC5), seed=1)
    turn = g.turn
    g.lose(seat_of(g, "Dragon"))
    s = seat_of(g, "Dragon")
    assert g.players[s].has_lost and g.social.known_by[s] == set(range(5))
    assert [e for e in g.log if e["event"] == "reveal_role"] == [
        {"turn": turn, "event": "reveal_role", "seat": s, "role": "Dragon", "to": None}]
    assert [e["role"] for e in g.log if e["event"] == "loses"] == ["Dragon"]
    assert all(g.social.known_by[o] == {o} for o in range(5) if o != s)
    assert not g.is_over


def test_the_king_and_his_bannerman_win_together_and_the_rest_lose_in_the_game():
    """"Winning the Game": a player wins when the right other players have left;
    The King and the King's Bannerman share a list, so they win at once, and the
    players still in the game who did not win lose without being eliminated."""
    g = Game(throne(throne_deal=BASIC5), seed=2)
    g.lose([seat_of(g, "The Usurper"), seat_of(g, "Dragon")])
    assert not g.is_over                    # the Usurper's Bannerman is still in the game
    g.lose(seat_of(g, "Usurper's Bannerman"))
    assert g.is_over and not g.truncated
    assert g.winners == {seat_of(g, "The King"), seat_of(g, "King's Bannerman")}
    assert g.social.known_by == [set(range(5))] * 5          # every Role shown at the end
    assert [e for e in g.log if e["event"] == "reveal_all"][-1]["roles"] == BASIC5
    assert g.decision is None


def test_a_win_counts_only_the_roles_in_the_game():
    """The King's list names the Wraith and the Ogre, who are not dealt: only the Usurper
    and the Dragon must leave in a sculpted game of The King, the Usurper, the Dragon and the Wizard."""
    roles = ["The King", "The Usurper", "Dragon", "Wizard"]
    g = Game(throne(num_players=4, throne_roles=roles, throne_deal=roles), seed=0)
    g.lose([1, 2])
    assert g.is_over and g.winners == {0}       # the Wizard, still in the game, loses


def test_the_last_player_standing_wins_and_everyone_leaving_at_once_is_a_draw():
    """The Dragon must eliminate everyone ("Some Roles do not have win conditions"); the
    only player remaining wins; nobody remaining: nobody wins."""
    g = Game(throne(throne_deal=BASIC5), seed=3)
    dragon = seat_of(g, "Dragon")
    g.lose([s for s in range(5) if s != dragon])
    assert g.is_over and g.winners == {dragon}
    g = Game(throne(throne_deal=BASIC5), seed=3)
    g.lose(list(range(5)))
    assert g.is_over and g.winners == set() and not g.truncated


def test_a_claimant_may_not_win_by_an_elimination_the_usurper_needs():
    """The Usurper's side wins when The King, his Bannerman and the Dragon have left."""
    g = Game(throne(throne_deal=BASIC5), seed=4)
    g.lose(seat_of(g, "The King"))
    g.lose(seat_of(g, "King's Bannerman"))
    assert not g.is_over
    g.lose(seat_of(g, "Dragon"))
    assert g.winners == {seat_of(g, "The Usurper"), seat_of(g, "Usurper's Bannerman")}


def test_truncation_shows_every_role_and_nobody_wins():
    g = Game(throne(max_turns=2), seed=5)
    r = random.Random(0)
    while not g.is_over:
        g.step(r.choice(g.legal_actions()))
    assert g.truncated and g.winners == set()
    assert g.social.known_by == [set(range(5))] * 5
    assert [e["event"] for e in g.log][-1] == "reveal_all"


# ----------------------------------------------------------------------------- copies and replays
def test_a_clone_has_its_own_roles_state():
    g = Game(throne(throne_deal=BASIC5), seed=6)
    c = g.clone()
    assert c.social is not g.social and c.social.roles == g.social.roles
    c.lose(0)
    assert c.social.known_by[0] == set(range(5)) and g.social.known_by[0] == {0}
    assert g.digest() != c.digest()


def test_the_digest_holds_the_roles_and_a_replay_round_trips():
    a = Game(throne(throne_deal=BASIC5), seed=7)
    b = Game(throne(throne_deal=BASIC5[1:] + BASIC5[:1]), seed=7)
    assert a.state_summary()["players"][0]["role"] == BASIC5[0]
    assert a.digest() != b.digest()                  # same cards and turns, other Roles
    r = random.Random(1)
    for _ in range(300):
        if a.is_over:
            break
        a.step(r.choice(a.legal_actions()))
    again = Game.from_json(a.to_json())
    assert again.digest() == a.digest() and again.social.roles == a.social.roles


# ----------------------------------------------------------------------------- random games
def check_throne_invariants(g: Game) -> None:
    """What holds between any two decisions of a Throne Magic game."""
    s = g.social
    assert sorted(s.roles) == sorted(s.role_set) and len(s.roles) == g.n
    for seat, p in enumerate(g.players):
        assert p.identity is None
        known = s.known_by[seat]
        if g.is_over or p.has_lost:
            assert known == set(range(g.n)), "revealed on leaving and at the end"
        else:
            assert known == {seat}, "a Role is secret while its holder is in the game"
    if g.is_over:
        in_game = [not p.has_lost for p in g.players]
        if g.truncated:
            assert g.winners == set()
        else:
            assert g.winners == set(tr.winners(s.roles, in_game)), (s.roles, in_game, g.winners)
    else:
        assert not tr.winners(s.roles, [not p.has_lost for p in g.players]), "a won game is over"
        assert any(not p.has_lost for p in g.players)
        assert g.decision is not None and len(g.decision.options) >= 2


@pytest.mark.parametrize("method", ["basic", "random", "sculpted"])
def test_random_throne_magic_games_keep_the_invariants(method):
    """Random play at low life (so that players leave and games end) over 4-10
    players, each selection method; the invariants at every decision."""
    ended = 0
    for seed in range(12):
        n = 4 + seed % 4 if method == "basic" else 4 + seed % 7
        roles = method
        if method == "sculpted":
            roles = tr.random_roles(n, __import__("numpy").random.default_rng(seed))
        cfg = throne(num_players=n, throne_roles=roles, starting_life=3, commander=False, max_turns=40,
                     mulligans="london" if seed % 2 else "none")
        g = Game(cfg, seed=seed)
        r = random.Random(seed)
        check_throne_invariants(g)
        while not g.is_over:
            g.step(r.choice(g.legal_actions()))
            check_throne_invariants(g)
        ended += not g.truncated
    assert ended >= 4, f"only {ended} of 12 games ended before the turn limit"
