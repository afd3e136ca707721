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

from treachery_env import GameConfig, cards
from treachery_env import throne_cards as tc
from treachery_env import throne_roles as tr
from treachery_env.engine import DecisionKind, Game

from identity_helpers import creature, give_priority, pass_until

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
    ({"throne_roles": "drafted"}, r"GameConfig\.throne_roles: must be one of \[.basic., .random., .draft.\]"),
    ({"throne_roles": "random", "num_players": 12, "max_turns": 10}, None),
    ({"throne_roles": "random", "num_players": 13},
     r"GameConfig\.num_players: must be an int from 4 to 12 \(Throne Magic: four or more players, "
     r"\"Choosing Role Cards for the Game\"; the environment's tables go up to 12\), got 13"),
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
        king = seat_of(g, "The King")     # known to all: he starts with the Throne ("Throne Cards")
        assert g.social.known_by == [set(range(n)) if s == king else {s} for s in range(n)]


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
    assert all(g.social.known_by[o] == {o} for o in range(5) if o not in (s, seat_of(g, "The King")))
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
    c.lose(1)
    assert c.social.known_by[1] == set(range(5)) and g.social.known_by[1] == {1}
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
    if not s.roles:             # the Draft: the picks so far are the public set
        assert s.method == "draft" and g.decision.handler == "_h_draft_role" and len(s.role_set) < g.n
        assert Game.from_json(g.to_json()).digest() == g.digest() == g.clone().digest()
        return
    assert sorted(s.roles) == sorted(s.role_set) and len(s.roles) == g.n
    looked = {(e["seat"], e["other"]) for e in g.log if e["event"] == "look_at_role"}    # Throne of Visions
    for seat, p in enumerate(g.players):
        assert p.identity is None
        known = s.known_by[seat]
        if g.is_over or p.has_lost:
            assert known == set(range(g.n)), "revealed on leaving and at the end"
        elif s.roles[seat] == "The King":
            assert known == set(range(g.n)), "The King is known: he starts with the Throne"
        else:
            assert known == {seat} | {a for a, o in looked if o == seat}, \
                "a Role is secret while its holder is in the game, but to who looked at it"
    for it in g.stack:          # CR 800.4a: a leaving player's spells and abilities leave with them
        assert not g.players[it.controller].has_lost, (it.source, it.key)
    if s.season is not None:    # "Seasons (Advanced)": one step for each turn that began after a turn someone left in
        moved = len({p.lost_turn for p in g.players if p.has_lost and 1 <= p.lost_turn < g.turn})
        assert s.season == tc.SEASON_ORDER[moved % len(tc.SEASON_ORDER)], (s.season, moved)
    for h in s.holdings:
        assert h.kind == "holding" and not any(h in q.attackables for q in g.players)
        assert h.controller < 0 or not g.players[h.controller].has_lost
    w = s.throne
    if w is not None:
        holders = [q.seat for q in g.players for x in q.attackables if x is w]
        if w.controller >= 0:
            assert holders == [w.controller] and not g.players[w.controller].has_lost
            assert s.claimant(w.controller), "only a Claimant controls the Throne"
        else:
            assert holders == []
        moved = w.uid in g.turn_effects.get("out_of_combat", ())     # its control changed this combat
        for a in g.combat_attackers:
            if a.attacking_obj is w and w.controller < 0 and not moved:
                # declared at the Throne in the middle: no defending player (one declared at a held
                # Throne keeps its defending player when the Throne goes to the middle, CR 506.4)
                assert a.attacking == g.n, "attacking the Throne in the middle: no defending player"
    if g.is_over:
        in_game = [not p.has_lost for p in g.players]
        if g.truncated:
            assert g.winners == set()
        else:
            assert g.winners == set(tr.winners(s.roles, in_game)), (s.roles, in_game, g.winners)
    else:
        assert not tr.winners(s.roles, [not p.has_lost for p in g.players]), "a won game is over"
        assert any(not p.has_lost for p in g.players)
        assert g.decision is not None and len(g.decision.options) >= (1 if g.show_forced else 2)


@pytest.mark.parametrize("method", ["basic", "random", "sculpted", "draft"])
def test_random_throne_magic_games_keep_the_invariants(method):
    """Random play at low life (so that players leave and games end) over 4-10
    players, each selection method, with and without Seasons and Holdings; the invariants at every
    decision."""
    ended = 0
    for seed in range(40):
        n = 4 + seed % 4 if method == "basic" else 4 + seed % 7
        roles = method
        if method == "sculpted":
            roles = tr.random_roles(n, __import__("numpy").random.default_rng(seed))
        cfg = throne(num_players=n, throne_roles=roles, starting_life=3, commander=False, max_turns=50,
                     mulligans="london" if seed % 2 else "none", seasons=seed % 3 == 0, holdings=seed % 4 < 2)
        g = Game(cfg, seed=seed)
        r = random.Random(seed)
        check_throne_invariants(g)
        while not g.is_over:
            g.step(r.choice(g.legal_actions()))
            check_throne_invariants(g)
        ended += not g.truncated
    assert ended >= 10, f"only {ended} of 40 games ended before the turn limit"


# ----------------------------------------------------------------------------- the Throne
# Seat 0 the Dragon (a Claimant), 1 the Wizard (not), 2 The Usurper (a Claimant), 3 the Usurper's Bannerman:
# a Sculpted set without The King, so the Throne starts in the middle.
NO_KING = ["Dragon", "Wizard", "The Usurper", "Usurper's Bannerman"]


def throne_game(deal, throne_name: str = "Throne of Wisdom", **kw) -> Game:
    """A Throne Magic game with ``deal`` seated as given and the Throne ``throne_name``,
    at seat 0's precombat main phase: hands, lands and creatures cleared; every seat
    holds a Shock and an untapped land so that it is asked at its priorities."""
    n = len(deal)
    g = Game(throne(num_players=n, throne_roles=list(deal) if sorted(deal) != sorted(tr.basic_roles(n)) else "basic",
                    throne_deal=list(deal), throne=throne_name, decks=["aggro"] * n, **kw), seed=0)
    g.queue.clear()
    g.pending_triggers = []
    g.stack = []
    g.active = g.order_seat = 0
    g.phase = "main1"
    for p in g.players:
        p.hand = [cards.card("Shock")]
        p.lands, p.lands_tapped = 1, 0
        p.creatures = []
    give_priority(g, 0)
    return g


def attack_throne(g: Game, *creatures) -> None:
    """Seat 0 attacks the Throne with ``creatures``, then finishes declaring."""
    pass_until(g, lambda g: g.decision is not None and g.decision.kind == DecisionKind.ATTACKER)
    for c in creatures:
        g.step(g.target_action(0, ("c", c)))
        assert g.decision.kind == DecisionKind.DEFENDER
        g.step(g.attackable_action(0, g.social.throne))
    g.step(g.layout.PASS)


def to_take(g: Game) -> None:
    """PASS until a Throne decision (YES_NO) is pending."""
    pass_until(g, lambda g: g.decision is not None and g.decision.kind == DecisionKind.YES_NO)


def test_the_king_starts_controlling_the_throne_and_without_him_it_is_in_the_middle():
    """"Throne Cards": one Throne per game; The King, if in the game, begins controlling it
    (in his attackables, public); otherwise no one controls it."""
    g = Game(throne(throne_deal=BASIC5, throne="Throne of Power"), seed=0)
    king = seat_of(g, "The King")
    w = g.social.throne
    assert (w.kind, w.name, w.controller) == ("throne", "Throne of Power", king)
    assert [p.attackables for p in g.players] == [[w] if s == king else [] for s in range(5)]
    assert [e for e in g.log if e["event"] == "throne"] == [
        {"turn": 0, "event": "throne", "name": "Throne of Power", "controller": king, "to": None}]
    g = Game(throne(num_players=4, throne_roles=NO_KING), seed=0)
    assert g.social.throne.controller == -1 and not any(p.attackables for p in g.players)
    assert g.social.throne.name in {c.name for c in tc.thrones()}


def test_the_throne_is_drawn_at_random_from_the_seed():
    names = Counter(Game(throne(), seed=s).social.throne.name for s in range(40))
    assert len(names) >= 5
    assert Game(throne(), seed=11).social.throne.name == Game(throne(), seed=11).social.throne.name


def test_the_king_chooses_the_throne_before_the_first_turn():
    """"Choosing a Throne Card for the Game": The King chooses; the choice is a decision of
    his seat among the 7 Thrones (public anyway: he starts controlling it)."""
    g = Game(throne(throne_deal=BASIC5, throne="king"), seed=0)
    king = seat_of(g, "The King")
    d = g.decision
    assert (d.seat, d.kind, g.turn) == (king, DecisionKind.MODE, 0)
    assert d.labels == [c.name for c in tc.thrones()]
    g.step(g.layout.CHOICE + 2)
    assert g.social.throne.name == tc.thrones()[2].name and g.social.throne.controller == king
    assert g.decision is not None and g.decision.kind == DecisionKind.PRIORITY


@pytest.mark.parametrize("kw,match", [
    ({"throne": "king", "throne_roles": "random"}, r"GameConfig\.throne: The King chooses the Throne only when"),
    ({"throne": "king", "num_players": 4, "throne_roles": NO_KING}, r"GameConfig\.throne: .*only when The King is in"),
    ({"throne": "Throne of Nothing"}, r"GameConfig\.throne: unknown Throne Magic throne 'Throne of Nothing'"),
    ({"throne": 3}, r"GameConfig\.throne: must be 'random', 'king' or a Throne's name"),
])
def test_bad_throne_choices_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        throne(**kw)
    with pytest.raises(ValueError, match=r"GameConfig\.throne: is a Throne Magic option"):
        GameConfig(throne="king")


def test_a_claimant_takes_an_uncontrolled_throne_by_combat_damage_without_revealing():
    """"Attacking the Throne": uncontrolled, it is attacked with no defending player (nobody
    blocks); "Taking the Throne": combat damage lets the source's controller, a Claimant,
    take it, without revealing the Role and without the stack."""
    g = throne_game(NO_KING)
    bear = creature(g, 0, "Grove Bear")
    w = g.social.throne
    assert g.attackable_action(0, w) == g.layout.walker(4, 0)        # the reserved row: the middle
    attack_throne(g, bear)
    assert (bear.attacking, bear.attacking_obj) == (4, w)
    to_take(g)
    assert not [e for e in g.log if e["event"] == "blocks"]
    d = g.decision
    assert d.seat == 0 and sorted(g.legal_actions()) == [g.layout.PASS, g.layout.CHOICE]
    g.step(g.layout.CHOICE)
    assert w.controller == 0 and g.players[0].attackables == [w]
    assert [e["why"] for e in g.log if e["event"] == "throne_control"] == ["taken"]
    assert g.social.known_by[0] == {0} and not [e for e in g.log if e["event"] == "reveal_role"]


def test_a_non_claimant_is_asked_the_same_and_cannot_take_the_throne():
    """"Controlling the Throne": a non-Claimant puts it in the middle ("non-Claimants cannot
    lie and take the Throne"); being asked is the same two-option decision a Claimant gets,
    so it reveals nothing."""
    g = throne_game(["Wizard", "Dragon", "The Usurper", "Usurper's Bannerman"])
    bear = creature(g, 0, "Grove Bear")
    attack_throne(g, bear)
    to_take(g)
    assert g.decision.seat == 0 and sorted(g.legal_actions()) == [g.layout.PASS, g.layout.CHOICE]
    g.step(g.layout.CHOICE)
    assert g.social.throne.controller == -1 and not any(p.attackables for p in g.players)


def test_combat_damage_to_a_controlled_throne_dethrones_its_controller_whoever_deals_it():
    """The controller blocks for it as for a planeswalker ("Attacking the Throne"); once dealt
    combat damage, it goes to the source's controller if a Claimant takes it, else to the
    middle ("Controlling the Throne")."""
    deal = ["Wizard", "The King", "The Usurper", "King's Bannerman", "Dragon"]
    g = throne_game(deal)
    w = g.social.throne
    assert w.controller == 1
    bear = creature(g, 0, "Grove Bear")
    creature(g, 1, "Grove Bear")
    attack_throne(g, bear)
    assert bear.attacking == 1                  # The King is the defending player
    pass_until(g, lambda g: g.decision.kind in (DecisionKind.BLOCKER, DecisionKind.YES_NO))
    assert g.decision.kind == DecisionKind.BLOCKER and g.decision.seat == 1
    g.step(g.layout.PASS)                       # The King does not block
    to_take(g)
    g.step(g.layout.PASS)                       # the Wizard declines (it could not take it anyway)
    assert w.controller == -1 and g.players[1].attackables == []
    assert [(e["why"], e["previous"]) for e in g.log if e["event"] == "throne_control"] == [("declined", 1)]


def test_a_blocked_attacker_deals_no_damage_to_the_throne_and_nothing_changes():
    deal = ["Wizard", "The King", "The Usurper", "King's Bannerman", "Dragon"]
    g = throne_game(deal)
    bear = creature(g, 0, "Grove Bear")
    wall = creature(g, 1, "Grove Bear")
    attack_throne(g, bear)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER)
    g.step(g.target_action(1, ("c", wall)))     # it blocks the one attacker (asked no further)
    assert wall.blocking is bear
    pass_until(g, lambda g: g.phase in ("combat_end", "main2"))
    assert g.social.throne.controller == 1 and not [e for e in g.log if e["event"] == "throne_control"]


def test_only_combat_damage_affects_the_throne():
    """"The Throne itself is unaffected by any game effect except combat damage ... it cannot
    be targeted": no target spec finds it, and other damage does nothing."""
    g = throne_game(["Wizard", "The King", "The Usurper", "King's Bannerman", "Dragon"])
    w = g.social.throne
    assert all(t != ("w", w) for t in g.target_candidates(0, {"type": "any"}))
    assert all(t != ("w", w) for t in g.target_candidates(0, {"type": "permanent", "walkers": True}))
    assert g.damage(0, ("w", w), 3) == 0 and w.controller == 1 and g.harm[0][1] == 0


def test_an_abandoned_throne_goes_to_the_middle():
    """"Abandoned Thrones": its controller leaving (not dealt combat damage at the same time)
    leaves it uncontrolled."""
    g = Game(throne(throne_deal=BASIC5), seed=0)
    king = seat_of(g, "The King")
    g.lose(king)
    assert g.social.throne.controller == -1 and not any(p.attackables for p in g.players)
    assert [(e["why"], e["previous"]) for e in g.log if e["event"] == "throne_control"] == [("abandoned", king)]


def test_a_throne_dealt_combat_damage_as_its_controller_leaves_can_be_taken():
    """"Abandoned Thrones" covers only a controller leaving *without* the Throne simultaneously
    being dealt combat damage: in the same combat damage step The Usurper's one attacker deals
    The King lethal damage and the other deals the Throne damage; The King leaves, and The
    Usurper (a Claimant) is still asked to take the Throne ("Taking the Throne") and takes it."""
    g = throne_game(["The Usurper", "The King", "Wizard", "King's Bannerman", "Dragon"])
    w = g.social.throne
    g.players[1].life = 2
    at_king, at_throne = creature(g, 0, "Grove Bear"), creature(g, 0, "Grove Bear")
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.target_action(0, ("c", at_king)))
    g.step(g.layout.PLAYER + g.rel(0, 1))
    g.step(g.target_action(0, ("c", at_throne)))
    g.step(g.attackable_action(0, w))
    g.step(g.layout.PASS)
    to_take(g)
    assert g.decision.seat == 0 and g.decision.handler == "_h_throne_take"
    g.step(g.layout.CHOICE)
    assert g.players[1].has_lost and w.controller == 0 and g.players[0].attackables == [w]
    assert [e["why"] for e in g.log if e["event"] == "throne_control"][-1] == "taken"


def test_the_throne_of_the_ancient_kings_gains_life_per_player_at_its_controllers_upkeep():
    """"Throne Abilities": at the beginning of its controller's upkeep, that player may gain 1
    life for each player still in the game; the ability uses the stack."""
    deal = ["The King", "The Usurper", "King's Bannerman", "Usurper's Bannerman", "Dragon"]
    g = throne_game(deal, "Throne of the Ancient Kings")
    g.lose(4)
    life = g.players[0].life
    pass_until(g, lambda g: g.active == 0 and g.phase == "upkeep" and g.turn > 1 and g.stack
               or g.decision.kind == DecisionKind.YES_NO)
    assert [it.key for it in g.stack] == ["throne"]
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert g.decision.seat == 0
    g.step(g.layout.CHOICE)
    assert g.players[0].life == life + 4


def visions_asked() -> Game:
    """Seat 0, The King, controls the Throne of Visions; its ability targets seat 2, the King's
    Bannerman, and seat 0 is asked whether to look (the YES_NO)."""
    deal = ["The King", "The Usurper", "King's Bannerman", "Usurper's Bannerman", "Dragon"]
    g = throne_game(deal, "Throne of Visions")
    pass_until(g, lambda g: g.decision.kind == DecisionKind.TARGET and g.decision.seat == 0)
    g.step(g.layout.PLAYER + g.rel(0, 2))
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    return g


def test_the_throne_of_visions_shows_its_controller_one_role_privately():
    g = visions_asked()
    g.step(g.layout.CHOICE)
    assert g.social.known_by[2] == {0, 2}
    seen = [e for e in g.log if e["event"] == "look_at_role"]
    assert seen == [{"turn": g.turn, "event": "look_at_role", "seat": 0, "other": 2, "role": "King's Bannerman", "to": [0]}]


def test_a_clone_keeps_the_throne_one_object():
    g = Game(throne(throne_deal=BASIC5), seed=0)
    c = g.clone()
    king = seat_of(g, "The King")
    assert c.social.throne is c.players[king].attackables[0] and c.social.throne is not g.social.throne
    c.lose(king)
    assert g.social.throne.controller == king and c.social.throne.controller == -1


def test_an_illegal_action_in_a_throne_magic_game_is_a_one_line_error_naming_the_legal_ones():
    g = Game(throne(throne_deal=BASIC5, throne="king"), seed=0)
    with pytest.raises(ValueError, match=r"illegal action 0 \(pass / done\) for seat \d at 'choose the game's Throne'; "
                                         r"legal: \d+: choose Throne of the Ancient Kings as the game's Throne; "
                                         r".*Throne of Wisdom") as e:
        g.step(0)
    assert "\n" not in str(e.value)


# ----------------------------------------------------------------------------- the creatures' two abilities
KING_SECOND = ["Wizard", "The King", "The Usurper", "King's Bannerman", "Dragon"]
KING_FIRST = ["The King", "Wizard", "The Usurper", "King's Bannerman", "Dragon"]


def test_a_creature_is_given_to_the_monarch_who_decides_to_accept():
    """"Giving Creatures to the Monarch": every creature has "T: The controller of the Throne
    may gain control of this creature", activated by its controller; the Throne's controller
    decides on resolution."""
    g = throne_game(KING_SECOND)
    bear = creature(g, 0, "Grove Bear")
    give_priority(g, 0)
    act = g.target_action(0, ("c", bear))
    assert act in g.legal_actions()
    g.step(act)
    assert bear.tapped and [it.key for it in g.stack] == ["throne_give"]
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert g.decision.seat == 1
    g.step(g.layout.CHOICE)
    assert bear in g.players[1].creatures and bear.controller == 1
    assert [e["seat"] for e in g.log if e["event"] == "gain_control"] == [1]


def test_the_monarch_may_refuse_a_creature():
    g = throne_game(KING_SECOND)
    bear = creature(g, 0, "Grove Bear")
    give_priority(g, 0)
    g.step(g.target_action(0, ("c", bear)))
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    g.step(g.layout.PASS)
    assert bear in g.players[0].creatures and bear.tapped
    assert [e["seat"] for e in g.log if e["event"] == "refuses_creature"] == [1]


def test_the_monarch_distributes_a_creature_to_a_target_player():
    """"The Monarch Distributing Creatures": "T: Target player may gain control of this
    creature.  Activate this ability only if you control the Throne."; the target decides."""
    g = throne_game(KING_FIRST)
    bear = creature(g, 0, "Grove Bear")
    give_priority(g, 0)
    g.step(g.target_action(0, ("c", bear)))
    assert g.decision.kind == DecisionKind.TARGET
    assert sorted(g.legal_actions()) == [g.layout.PLAYER + r for r in range(1, 5)]       # another player
    g.step(g.layout.PLAYER + g.rel(0, 3))
    assert [it.key for it in g.stack] == ["throne_distribute"]
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert g.decision.seat == 3
    g.step(g.layout.CHOICE)
    assert bear.controller == 3


def test_an_out_of_turn_concession_offers_a_pending_priority_decision_afresh():
    """CR 104.3a, CR 800.4a: a player who concedes out of turn (``Game.concede``, a UI's) takes
    what they own with them, a creature another player controls included; that player's
    pending priority decision is offered afresh, its options naming the creatures still there
    (regression: it was kept, and its ability option named a slot past the end of the
    creatures, IndexError; found by fuzzing option combinations)."""
    g = throne_game(KING_FIRST, concession=True)
    lent = creature(g, 2, "Grove Bear")            # The Usurper's, under The King's control
    g.gain_control(lent, 0)
    bear = creature(g, 0, "Grove Bear")
    give_priority(g, 0)
    assert g.players[0].creatures.index(bear) == 1 and g.target_action(0, ("c", bear)) in g.legal_actions()
    g.concede(2)
    assert g.players[2].has_lost and lent not in g.players[0].creatures and not g.is_over
    assert g.decision.seat == 0 and g.decision.kind == DecisionKind.PRIORITY
    act = g.target_action(0, ("c", bear))
    assert act in g.legal_actions()
    g.step(act)
    assert bear.tapped and g.decision.kind == DecisionKind.TARGET


def test_the_throne_abilities_need_a_ready_creature_and_a_controlled_throne():
    """A {T} ability: not while the creature is tapped or came under its controller's control
    this turn (CR 302.6); not offered where it could do nothing: with the Throne in the middle."""
    g = throne_game(KING_SECOND)
    fresh = g.put_onto_battlefield(0, cards.card("Grove Bear"))
    tapped = creature(g, 0, "Grove Bear", tapped=True)
    give_priority(g, 0)
    assert not {g.target_action(0, ("c", fresh)), g.target_action(0, ("c", tapped))} & set(g.legal_actions())
    g = throne_game(NO_KING)
    bear = creature(g, 0, "Grove Bear")
    give_priority(g, 0)
    assert g.target_action(0, ("c", bear)) not in g.legal_actions()


def test_the_throne_abilities_have_instant_speed():
    """Activated abilities can be activated whenever their player has priority (CR 602.2):
    in another player's turn too, so the player is asked there rather than passed."""
    g = throne_game(KING_SECOND)
    bear = creature(g, 2, "Grove Bear")
    for p in g.players:
        p.hand = []
    give_priority(g, 0)
    pass_until(g, lambda g: g.decision.seat == 2 and g.decision.kind == DecisionKind.PRIORITY)
    assert g.active == 0 and g.target_action(2, ("c", bear)) in g.legal_actions()


# ----------------------------------------------------------------------------- the Draft
def test_the_seats_draft_the_roles_in_turn_then_they_are_dealt():
    """"Choosing Role Cards for the Game", Draft: from a seat chosen at random, each player in
    turn chooses a Role to be in the game (not necessarily theirs): any Role first, then one
    that must eliminate and be eliminated by one already chosen; the Angel only after another
    Good Role.  Then the Roles are shuffled and dealt."""
    g = Game(throne(num_players=6, throne_roles="draft"), seed=3)
    first = [e for e in g.log if e["event"] == "draft"][0]["first"]
    picks = []
    r = random.Random(3)
    for k in range(6):
        d = g.decision
        assert (d.seat, d.kind) == ((first + k) % 6, DecisionKind.MODE) and g.social.roles == ()
        assert d.labels == tr.draft_picks(picks, 6)
        assert set(d.labels) <= set(tr.draft_options(picks)) and ("Angel" in d.labels) <= any(
            tr.get(p).good for p in picks)
        assert sorted(g.social.role_set) == sorted(picks)
        name = r.choice(d.labels)
        g.step(g.layout.CHOICE + d.labels.index(name))
        picks.append(name)
    tr.check_draft(picks, 6)
    assert sorted(g.social.roles) == sorted(picks) and g.social.method == "draft"
    assert [(e["seat"], e["role"]) for e in g.log if e["event"] == "draft_pick"] == [
        ((first + k) % 6, p) for k, p in enumerate(picks)]
    assert [e["event"] for e in g.log if e["event"] in ("draft_pick", "roles", "deal_role")][-7:] == \
        ["roles"] + ["deal_role"] * 6
    assert [e["event"] for e in g.log].index("throne") > [e["event"] for e in g.log].index("roles")
    assert g.turn == 1 and g.decision.kind == DecisionKind.PRIORITY        # the game began


def test_a_game_in_its_draft_has_a_digest_and_a_replay():
    """Before the Roles are dealt (the Draft) the state summary has no Role to name: its digest,
    a replay (``to_json``, which records one) and a replay's first actions were an IndexError
    until the deal (found by random play of every option combination).  The summary names the
    picks so far, so two drafts that differ only in them differ in digest."""
    cfg = throne(num_players=5, throne_roles="draft")
    g = Game(cfg, seed=1)
    first = g.digest()
    assert g.state_summary()["draft"] == [] and all(p["role"] is None for p in g.state_summary()["players"])
    seen = {first}
    for k in range(5):
        replay = g.to_json()
        again = Game.from_json(replay)
        assert again.digest() == g.digest() and again.legal_actions() == g.legal_actions()
        assert g.clone().digest() == g.digest()
        other = g.clone()
        g.step(g.legal_actions()[0])
        if k < 4:
            assert sorted(g.state_summary()["draft"]) == sorted(g.social.role_set)
        if len(other.legal_actions()) > 1:      # another pick: another state
            other.step(other.legal_actions()[-1])
            assert other.digest() != g.digest()
        seen.add(g.digest())
    assert len(seen) == 6 and g.social.roles and "draft" not in g.state_summary()     # dealt: as before
    assert all(p["role"] in tr.names() for p in g.state_summary()["players"])


def test_no_draft_pick_leads_to_a_dead_end():
    """The text does not say what happens when no Role can be chosen; a game offers only the
    picks after which every later drafter still has one (draft_picks)."""
    r = random.Random(0)
    for n in (4, 8, 12):
        for _ in range(10):
            picks = []
            while len(picks) < n:
                options = tr.draft_picks(picks, n)
                assert options and set(options) <= set(tr.draft_options(picks))
                picks.append(r.choice(options))
            tr.check_draft(picks, n)


def test_the_draft_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match=r"GameConfig\.throne_deal: a fixed deal needs a set known in advance.*'draft'"):
        throne(throne_roles="draft", throne_deal=BASIC5)
    with pytest.raises(ValueError, match=r"GameConfig\.throne: .*the Draft method may leave him out"):
        throne(throne_roles="draft", throne="king")
    g = Game(throne(throne_roles="draft", concession=True), seed=0)
    assert g.layout.CONCEDE not in g.legal_actions()
    with pytest.raises(ValueError, match="cannot concede during Throne Magic's setup"):
        g.concede(0)
    k = Game(throne(throne_deal=BASIC5, throne="king", concession=True), seed=0)
    assert k.layout.CONCEDE not in k.legal_actions()         # nor while The King chooses the Throne
    with pytest.raises(ValueError, match="cannot concede during Throne Magic's setup"):
        k.concede(k.decision.seat)
    with pytest.raises(ValueError, match=r"Throne Magic, Draft method: 4 Roles already chosen for 4 players"):
        tr.draft_picks(BASIC5[:4], 4)


# ----------------------------------------------------------------------------- the Seasons
def test_the_season_moves_on_once_when_players_left_during_the_previous_turn():
    """"Seasons (Advanced)": Spring first; as a player's untap step begins, the next Season if one
    or more players left during the previous turn (only one step however many left)."""
    g = throne_game(KING_FIRST, seasons=True)
    assert g.social.season == "Spring"
    g.lose([3, 4])                          # two players leave during turn 1
    pass_until(g, lambda g: g.turn == 2 and g.phase != "untap")
    assert g.social.season == "Summer"
    assert [e["season"] for e in g.log if e["event"] == "season"] == ["Summer"]
    pass_until(g, lambda g: g.turn == 3 and g.phase != "untap")
    assert g.social.season == "Summer"      # nobody left during turn 2
    assert Game(throne(), seed=0).social.season is None


@pytest.mark.parametrize("season,check", [
    ("Summer", lambda g, bear, life: bear.power == 3),
    ("Autumn", lambda g, bear, life: g.players[1].life == life + 1),
    ("Winter", lambda g, bear, life: g.players[1].life == life - 1),
])
def test_the_season_acts_at_each_players_upkeep_without_the_stack(season, check):
    """Summer: that player's creatures get +1/+0; Autumn: that player gains 1 life; Winter: loses 1
    (designed, docs/fidelity.md); nothing can respond to them: no stack object."""
    g = throne_game(KING_FIRST, seasons=True)
    g.social.season = season
    bear = creature(g, 1, "Grove Bear")
    life = g.players[1].life
    pass_until(g, lambda g: g.active == 1 and g.phase == "upkeep")
    assert not any(it.key == "season" for it in g.stack)
    assert check(g, bear, life)


# ----------------------------------------------------------------------------- the Holdings
def holding_game(deal=KING_SECOND, **kw) -> Game:
    """``throne_game`` with Holdings; Holding 0 is put in the middle, the others wherever they are."""
    return throne_game(deal, holdings=True, **kw)


def test_the_holdings_are_drawn_one_per_player_uncontrolled():
    """"Holdings (Advanced)": as many as the starting players (all 10 beyond 10), drawn at
    random, no one controls any at the start; a HOLDING action block names each."""
    for n in (4, 7, 10, 12):
        cfg = throne(num_players=n, throne_roles="random", holdings=True)
        g = Game(cfg, seed=n)
        hs = g.social.holdings
        assert len(hs) == min(n, 10) == cfg.holding_count == g.layout.holdings
        assert len({h.name for h in hs}) == len(hs) and all(h.controller == -1 and h.kind == "holding" for h in hs)
        assert not any(h in p.attackables for p in g.players for h in hs)
        assert [e["names"] for e in g.log if e["event"] == "holdings"] == [[h.name for h in hs]]
        assert [h.name for h in Game(cfg, seed=n).social.holdings] == [h.name for h in hs]
    assert throne().holding_count == 0 and GameConfig().holding_count == 0
    from treachery_env.actions import ActionLayout
    assert ActionLayout(5).size == Game(GameConfig(), seed=0).layout.size     # Treachery: no block
    with pytest.raises(ValueError, match=r"GameConfig\.holdings: is a Throne Magic option"):
        GameConfig(holdings=True)


def test_any_player_takes_a_holding_by_combat_damage():
    """A Holding is attacked like the uncontrolled Throne (no defending player); combat damage
    lets the source's controller take it, Claimant or not."""
    g = holding_game()                     # seat 0 is the Wizard, no Claimant
    h = g.social.holdings[0]
    bear = creature(g, 0, "Grove Bear")
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.target_action(0, ("c", bear)))
    assert g.layout.holding(0) in g.legal_actions()
    g.step(g.layout.holding(0))
    g.step(g.layout.PASS)
    assert (bear.attacking, bear.attacking_obj) == (5, h)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert g.decision.seat == 0 and g.decision.handler == "_h_holding_take"
    g.step(g.layout.CHOICE)
    assert h.controller == 0 and h not in g.players[0].attackables
    assert [(e["why"], e["holding"]) for e in g.log if e["event"] == "holding_control"] == [("taken", 0)]


def test_combat_damage_prevented_to_the_throne_gives_no_take_while_a_holding_dealt_damage_does():
    """"Taking the Throne": only a Throne dealt 1 or more points of combat damage can be taken.
    The King is shielded from all damage to him and his permanents (Sanctum of Mending's chaos
    ability, a Planechase shield), so the Usurper's attacker deals the Throne none; his other
    attacker deals a Holding in the middle 2 in the same step: the Holding's take is asked,
    the Throne's is not, and The King keeps it."""
    g = holding_game(["The Usurper", "The King", "Wizard", "King's Bannerman", "Dragon"])
    w, h = g.social.throne, g.social.holdings[0]
    g._holding_to(h, -1, "declined")
    g.shields.append({"kind": "prevent_damage", "seat": 1, "until_turn_of": None, "until": "planeswalk"})
    at_throne, at_holding = creature(g, 0, "Grove Bear"), creature(g, 0, "Grove Bear")
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.target_action(0, ("c", at_throne)))
    g.step(g.attackable_action(0, w))
    g.step(g.target_action(0, ("c", at_holding)))
    g.step(g.layout.holding(0))
    g.step(g.layout.PASS)
    asked = []
    while g.phase not in ("combat_end", "main2"):
        d = g.decision
        if d.kind == DecisionKind.YES_NO:
            asked.append(d.handler)
            g.step(g.layout.CHOICE)
        else:
            g.step(g.layout.PASS)
    assert asked == ["_h_holding_take"] and h.controller == 0
    assert w.controller == 1 and not [e for e in g.log if e["event"] == "throne_control"]


def test_a_held_holding_is_defended_and_lost_when_its_controller_leaves():
    g = holding_game()
    h = g.social.holdings[1]
    g._holding_to(h, 2, "taken")
    bear = creature(g, 0, "Grove Bear")
    creature(g, 2, "Grove Bear")
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.target_action(0, ("c", bear)))
    g.step(g.layout.holding(1))
    g.step(g.layout.PASS)
    assert bear.attacking == 2                  # its controller defends it
    pass_until(g, lambda g: g.decision.kind in (DecisionKind.BLOCKER, DecisionKind.YES_NO))
    assert g.decision.kind == DecisionKind.BLOCKER and g.decision.seat == 2
    g.step(g.layout.PASS)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    g.step(g.layout.PASS)                       # declined: to the middle
    assert h.controller == -1
    g._holding_to(h, 3, "taken")
    g.lose(3)
    assert h.controller == -1
    assert [e["why"] for e in g.log if e["event"] == "holding_control"][-1] == "abandoned"


def test_only_combat_damage_affects_a_holding():
    g = holding_game()
    h = g.social.holdings[0]
    assert all(t != ("w", h) for t in g.target_candidates(0, {"type": "any"}))
    assert g.damage(0, ("w", h), 2) == 0


def test_a_holdings_ability_triggers_at_its_controllers_upkeep():
    """"Holdings have abilities ... at the beginning of Esseldell's controller's upkeep, that
    player may gain 2 life.  This ability uses the stack."""
    g = holding_game(KING_FIRST)
    h = g.social.holdings[0]
    h.name = "Esseldell"
    g._holding_to(h, 1, "taken")
    life = g.players[1].life
    pass_until(g, lambda g: g.active == 1 and (g.stack or g.decision.kind == DecisionKind.YES_NO))
    assert [it.key for it in g.stack] == ["holding"]
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert g.decision.seat == 1
    g.step(g.layout.CHOICE)
    assert g.players[1].life == life + 2


# ----------------------------------------------------------------------------- a fresh user's findings (session 52)
@pytest.mark.parametrize("kw,field", [({"max_turns": 0}, "max_turns"), ({"starting_life": 0}, "starting_life"),
                                      ({"mulligans": "bogus"}, "mulligans"), ({"decks": ["aggro"] * 4}, "decks"),
                                      ({"talk_limit": 99}, "talk_limit"), ({"concession": [99]}, "concession"),
                                      ({"commander": "yes"}, "commander"), ({"starting_hand_size": 99},
                                                                           "starting_hand_size")])
def test_the_checks_every_game_shares_apply_to_throne_magic(kw, field):
    with pytest.raises(ValueError, match=rf"GameConfig\.{field}: "):
        throne(**kw)


def test_a_numpy_array_of_roles_is_a_sculpted_list_and_a_false_like_number_is_no_bool():
    import numpy as np
    cfg = throne(num_players=4, throne_roles=np.array(["The King", "The Usurper", "Dragon", "Wizard"]))
    assert cfg.throne_roles == ("The King", "The Usurper", "Dragon", "Wizard") and hash(cfg)
    assert Game(cfg, seed=0).social.method == "sculpted"
    with pytest.raises(ValueError, match=r"GameConfig\.seasons: is a Throne Magic option"):
        GameConfig(seasons=0)
    with pytest.raises(ValueError, match=r"GameConfig\.holdings: must be True or False"):
        throne(holdings=1)


def test_a_throne_taken_in_the_first_strike_step_leaves_combat():
    """A Throne (or Holding) whose control changes is removed from combat, as an attacked
    planeswalker whose controller changes (CR 506.4): a double striker that took it with its
    first-strike damage deals it no regular damage, and nobody is asked again."""
    g = throne_game(KING_SECOND)       # The Usurper, seat 2, attacks The King's Throne in its turn
    g.active = g.order_seat = 2
    g.phase = "main1"
    give_priority(g, 2)
    duelist = creature(g, 2, "Twin-Blade Duelist")
    w = g.social.throne
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER and g.decision.seat == 2)
    g.step(g.target_action(2, ("c", duelist)))
    g.step(g.attackable_action(2, w))
    g.step(g.layout.PASS)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert g.decision.seat == 2
    g.step(g.layout.CHOICE)                                     # The Usurper, a Claimant, takes it
    assert w.controller == 2
    pass_until(g, lambda g: g.phase in ("combat_end", "main2") or g.decision.kind == DecisionKind.YES_NO)
    assert g.decision.kind != DecisionKind.YES_NO and w.controller == 2
    assert [e["why"] for e in g.log if e["event"] == "throne_control"] == ["taken"]


def test_the_king_is_known_from_the_deal_even_before_he_chooses_the_throne():
    g = Game(throne(throne_deal=BASIC5, throne="king"), seed=0)
    king = seat_of(g, "The King")
    assert g.decision.seat == king and g.social.known_by[king] == set(range(5))
    assert [e["seat"] for e in g.log if e["event"] == "king"] == [king]
    assert "Before the first turn: The King chooses the Throne" in g.render_text(1)
    d = Game(throne(throne_roles="draft"), seed=0)
    assert "Before the first turn: the Draft of the Roles" in d.render_text(0)
    assert "mulligans" not in d.render_text(0).splitlines()[0]


def test_a_loss_before_the_first_turn_does_not_turn_the_season():
    g = Game(throne(throne_deal=BASIC5, seasons=True, mulligans="london"), seed=0)
    assert g.turn == 0
    g.concede(4)                        # during the mulligans
    while g.turn < 1 and not g.is_over:
        g.step(g.legal_actions()[0])
    assert g.social.season == "Spring"


def test_the_environment_state_during_the_draft_has_no_roles_yet():
    import treachery_env
    e = treachery_env.env(game="throne_magic", throne_roles="draft")
    e.reset(seed=0)
    s = e.unwrapped.state()
    assert s.shape == e.unwrapped.state_space.shape and not s[:5 * 17].any()


def test_training_refuses_throne_magic_in_one_line():
    from training.config import TrainConfig
    with pytest.raises(ValueError, match=r"game\.game: training plays Treachery only"):
        TrainConfig.from_dict({"game": {"game": "throne_magic"}})
