"""The Vanguard variant (CR 902, ``../shared/rules/cr-900-casual-variants-italian.txt`` lines
39-51) as ``GameConfig(vanguard=...)``, in Treachery and in Throne Magic: the cards as data, the
config's checks, the rules' own examples as scenarios (902.4: -3 -> 17 life; 902.5/902.5a: +2 -> a
9-card hand, then the mulligans' hands; 902.5b: -1 -> discard to 6 at cleanup), the abilities from
the command zone (902.7), the observation block and view (public; identical for every seat; blind
to face-down identities), text, replays, and random games of bots with invariants."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import agents
from treachery_env import GameConfig, vanguards as V
from treachery_env.engine import DecisionKind, Game
from treachery_env.env import raw_env
from treachery_env.observation import VANGUARD_FEATURES, encode, encode_python, encode_variant, obs_layout
from treachery_env.text import card_text, find_name, format_event, render
from treachery_env.view import PythonViewBuilder, SeatView, ViewBuilder, public_view, seat_view

from conftest import decisions, engine_ops
from scenario import PASS, add_creature, events, make_game, pass_priority_until

DEAL = ["The Old Ruler", "The Ambitious Queen", "The Beastmaster", "The Banisher"]
"""A legal 4-player identity deck (CR 907.3c): the Leader (The Old Ruler: +20 life, +1 card) in seat 0."""
DEAL2 = ["The Blood Empress"] + DEAL[1:]
"""The same with a Leader without start bonuses."""
FOUR = ["Ember Tactician", "Hollow Archivist", "Warden of the Vale", "Brood Matron"]
"""Modifiers: -3 life +1 hand; -4 life +2 hand; +6 life -1 hand; 0 and 0."""


def _game(vanguard=FOUR, seed: int = 0, **kw) -> Game:
    """A game of :data:`DEAL` without commanders, before its first mulligan decision (the London
    mulligan always asks: nothing has happened after the opening hands)."""
    kw.setdefault("commander", False)
    return Game(GameConfig(num_players=len(DEAL), identities=DEAL, decks=["aggro"] * 4, vanguard=vanguard, **kw),
                seed=seed)


# ------------------------------------------------------------------------------------------ the cards
def test_the_cards_are_data_with_two_modifiers_and_one_ability_in_the_pools_primitives():
    """12 cards (the largest table's seats), distinct names; each a life and a hand modifier and one
    triggered ability whose effects are engine primitives and whose targets exist."""
    cards = V.all_vanguards()
    assert len(cards) == 12 and len(set(V.names())) == 12 and V.names() == tuple(c.name for c in cards)
    ops = engine_ops()
    for c in cards:
        assert isinstance(c.life, int) and isinstance(c.hand, int) and -2 <= c.hand <= 2
        assert c.ability.trigger in V.TRIGGERS and c.text.endswith(".") and c.ability.effects
        assert all(e["op"] in ops for e in c.ability.effects), c.name
        assert all(e.get("t") is None or e["t"] < len(c.ability.targets) for e in c.ability.effects)
    assert {c.ability.trigger for c in cards} == set(V.TRIGGERS)
    assert V.get("Ember Tactician").life == -3 and V.get("Hollow Archivist").hand == 2
    with pytest.raises(ValueError, match="unknown vanguard 'Sisay'"):
        V.get("Sisay")


# ------------------------------------------------------------------------------------------ config
@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_the_option_is_valid_in_both_games_and_round_trips(game):
    for v in ("random", FOUR, FOUR[:1] * 4):
        cfg = GameConfig(num_players=4, game=game, vanguard=v)
        assert cfg.vanguard == (v if isinstance(v, str) else tuple(v))
        assert GameConfig.from_dict(json.loads(json.dumps(cfg.to_dict()))) == cfg
    assert GameConfig().vanguard is None and GameConfig(vanguard=np.array(FOUR + ["Gravetender"])).vanguard[4] == \
        "Gravetender"


@pytest.mark.parametrize("kw, match", [
    ({"vanguard": "all"}, r"GameConfig\.vanguard: must be 'random' or a list .*\(CR 902\.3; unset: no Vanguard\)"),
    ({"vanguard": 5}, r"GameConfig\.vanguard: must be 'random' or a list"),
    ({"vanguard": FOUR[:3]}, r"GameConfig\.vanguard: needs one Vanguard name per seat, 4 \(CR 902\.3; .*\), got 3"),
    ({"vanguard": FOUR[:3] + ["Sisay"]}, r"GameConfig\.vanguard: unknown vanguard 'Sisay'; the vanguards are"),
    ({"vanguard": FOUR, "starting_hand_size": 0},
     r"GameConfig\.vanguard: Warden of the Vale's hand modifier -1 leaves a negative hand size \(CR 902\.5, 902\.5b\)"),
    ({"vanguard": ["Gravetender"] * 4, "max_hand_size": 1}, r"Gravetender's hand modifier -2 leaves a negative hand size .*902\.5b\)"),
    ({"vanguard": "random", "starting_hand_size": 1}, r"a random Vanguard's hand modifier may be -2"),
])
def test_bad_vanguard_configs_are_one_line_errors_naming_the_field_and_rule(kw, match):
    for game in ("treachery", "throne_magic"):
        with pytest.raises(ValueError, match=match) as e:
            GameConfig(num_players=4, game=game, **kw)
        assert "\n" not in str(e.value)


def test_the_table_option_takes_random_or_names_and_names_itself_in_errors():
    import argparse

    from table.options import add_game_arguments, game_config_from_args
    p = argparse.ArgumentParser()
    add_game_arguments(p)
    assert game_config_from_args(p.parse_args(["--players", "4", "--vanguard", "random"])).vanguard == "random"
    cfg = game_config_from_args(p.parse_args(["--players", "4", "--game", "throne_magic", "--vanguard",
                                              "Ember Tactician, Hollow Archivist,Warden of the Vale,Brood Matron"]))
    assert cfg.vanguard == tuple(FOUR) and cfg.game == "throne_magic"
    assert game_config_from_args(p.parse_args([])).vanguard is None
    with pytest.raises(ValueError, match=r"^--vanguard: needs one Vanguard name per seat"):
        game_config_from_args(p.parse_args(["--players", "4", "--vanguard", "Gravetender"]))


def test_random_deals_a_different_card_per_seat_fixed_by_the_seed():
    deals = {}
    for seed in range(6):
        g = Game(GameConfig(num_players=12, vanguard="random", mulligans="none"), seed=seed)
        names = tuple(p.vanguard.name for p in g.players)
        assert sorted(names) == sorted(V.names())
        again = Game(GameConfig(num_players=12, vanguard="random", mulligans="none"), seed=seed)
        assert tuple(p.vanguard.name for p in again.players) == names
        deals[seed] = names
    assert len(set(deals.values())) > 1


# ------------------------------------------------------------------------------------------ the rules' examples
def test_902_4_a_life_modifier_of_minus_3_starts_at_17_then_identity_bonuses():
    """CR 902.4's example: life modifier -3 -> 17 life (20 base); the Commander base is 40
    (CR 907.5), and an identity's start bonus comes after the modifier (The Old Ruler: +20)."""
    g = _game(["Brood Matron", "Ember Tactician", "Warden of the Vale", "Ember Tactician"])
    assert [p.life for p in g.players] == [20 + 0 + 20, 17, 26, 17]
    g = _game(["Ember Tactician"] * 4, commander=True)
    assert [p.life for p in g.players] == [40 - 3 + 20, 37, 37, 37]
    tm = Game(GameConfig(num_players=4, game="throne_magic", vanguard=FOUR, commander=False))
    assert [p.life for p in tm.players] == [17, 16, 26, 20]
    # with Supervillain Rumble the base is the archenemy's 40 (CR 904.5 with 904.12c), then the
    # modifier, then the identity (variants.md 3.2's order), in both games
    g = _game(["Ember Tactician"] * 4, archenemy="supervillain_rumble")
    assert [p.life for p in g.players] == [40 - 3 + 20, 37, 37, 37]
    tm = Game(GameConfig(num_players=4, game="throne_magic", vanguard=FOUR, archenemy="supervillain_rumble"))
    assert [p.life for p in tm.players] == [37, 36, 46, 40]


def test_902_5_a_hand_modifier_of_plus_2_draws_nine_then_identity_bonuses():
    """CR 902.5's example (902.5a's first sentence): hand modifier +2 -> a 9-card opening hand; The
    Old Ruler's +1 card comes on top (seat 0: 7 + 2 + 1); 0 and -1 give 7 and 6.  Seat 0 starts
    (the Leader, CR 907.6); the hands are seen at the first mulligan decision."""
    g = _game(["Hollow Archivist", "Hollow Archivist", "Warden of the Vale", "Brood Matron"])
    assert g.in_mulligans and g.active == 0
    assert [len(p.hand) for p in g.players] == [10, 9, 6, 7]
    tm = Game(GameConfig(num_players=4, game="throne_magic", vanguard=FOUR), seed=1)
    assert [len(p.hand) for p in tm.players] == [7 + V.get(FOUR[s]).hand for s in range(4)]


def _play_until(g: Game, pred, limit: int = 2000) -> None:
    """PASS where it is an option, else the first option, until ``pred(g)``."""
    for _ in range(limit):
        if pred(g):
            return
        d = g.decision
        g.step(PASS if d.index_of(PASS) is not None else d.options[0][0])
    raise AssertionError("the condition was not reached")


def _mulligans(g: Game, taken: dict[int, int]) -> dict[int, int]:
    """Drive the mulligans: seat s takes ``taken[s]`` of them, then keeps (bottoming the first
    card asked each time); the others keep at once.  Returns each seat's kept hand size."""
    left = dict(taken)
    while g.in_mulligans:
        d = g.decision
        if d.kind == DecisionKind.MULLIGAN:
            g.step(d.options[1][0] if left.get(d.seat, 0) > 0 else PASS)
            left[d.seat] = left.get(d.seat, 0) - 1
        else:
            assert d.kind == DecisionKind.BOTTOM
            g.step(d.options[0][0])
    return {e["seat"]: e["hand"] for e in events(g, "mulligan_keep")}


def test_902_5a_the_mulligans_hands_follow_the_modified_size_with_the_multiplayer_free_first():
    """CR 902.5a: after a mulligan a player has one card fewer than before, but in a multiplayer
    game the first mulligan keeps as many (its parenthesis; CR 103.5c).  The example's +2 player
    (9 cards) keeps 9 after one mulligan here (every Treachery and Throne Magic game is
    multiplayer), 8 after two, 7 after three: 902.5a's 9 -> 8 -> 7, one mulligan later.  The
    London mulligan (CR 103.5) draws the modified size and bottoms the difference."""
    kept = {}
    for k in range(4):
        g = _game(["Brood Matron", "Hollow Archivist", "Warden of the Vale", "Brood Matron"])
        kept[k] = _mulligans(g, {1: k})
        assert len(g.players[1].hand) == kept[k][1]
        assert g.players[1].mulligans == k
    assert [kept[k][1] for k in range(4)] == [9, 9, 8, 7]
    assert all(kept[k][2] == 6 and kept[k][0] == 8 for k in range(4))     # -1: 6; the Old Ruler +1: 8
    tm = Game(GameConfig(num_players=4, game="throne_magic", vanguard=["Hollow Archivist"] * 4), seed=2)
    assert set(_mulligans(tm, {0: 2, 1: 2, 2: 2, 3: 2}).values()) == {8}


def test_902_5b_a_hand_modifier_of_minus_1_means_discarding_to_six_at_cleanup():
    """CR 902.5b's example: hand modifier -1 -> maximum hand size 6; with more than six cards as
    the cleanup step begins, that player discards down to six (CR 514.1); 0 keeps 7.  The Old
    Ruler's +1 maximum hand size comes on top of the modifier (7 - 1 + 1)."""
    assert _game(["Warden of the Vale"] * 4).players[0].max_hand_size == 7
    g = make_game(DEAL2, vanguard=["Warden of the Vale", "Brood Matron", "Brood Matron", "Brood Matron"],
                  commander=False, mulligans="none", hand=("Wastes",) * 8)
    assert [p.max_hand_size for p in g.players] == [6, 7, 7, 7]
    discards = 0
    while g.turn == 1:
        d = g.decision
        if d.kind == DecisionKind.DISCARD:
            assert d.seat == 0
            discards += 1
            g.step(d.options[0][0])
        else:
            g.step(PASS if d.index_of(PASS) is not None else d.options[0][0])
    assert discards == 2 and len(g.players[0].hand) == 6
    g = make_game(DEAL2, vanguard=["Brood Matron"] * 4, commander=False, mulligans="none", hand=("Wastes",) * 8)
    pass_priority_until(g, lambda g: g.turn == 2 or g.decision.kind == DecisionKind.DISCARD)
    assert g.decision.kind == DecisionKind.DISCARD and g.decision.seat == 0
    g.step(g.decision.options[0][0])
    assert len(g.players[0].hand) == 7


def test_902_3_and_902_6_each_card_is_face_up_in_its_owners_command_zone_told_to_all():
    g = _game()
    for p in g.players:
        assert p.vanguard.name == FOUR[p.seat] and p.vanguard.owner == p.vanguard.controller == p.seat
    logged = events(g, "vanguard")
    assert [(e["seat"], e["name"], e["to"]) for e in logged] == [(s, FOUR[s], None) for s in range(4)]
    assert format_event(logged[0]) == ("P0's Vanguard card is Ember Tactician (life -3, hand +1), face up in the "
                                       "command zone (CR 902.3)")
    assert len({p.vanguard.uid for p in g.players} | {p.identity.uid for p in g.players}) == 8


def test_902_7_upkeep_and_end_step_abilities_trigger_from_the_command_zone_and_use_the_stack():
    """Brood Matron's upkeep trigger makes a Soldier before the precombat main phase; Grim
    Exactor's end-step trigger makes each opponent lose 1 life; Ember Tactician's targets as it
    goes on the stack; a player who left has no more triggers."""
    g = make_game(DEAL, vanguard=["Brood Matron", "Grim Exactor", "Ember Tactician", "Frost Binder"],
                  commander=False, mulligans="none")
    assert [c.name for c in g.players[0].creatures] == ["Soldier"]
    trig = [e for e in events(g, "trigger") if e["key"] == "vanguard"]
    assert [(e["seat"], e["source"]) for e in trig] == [(0, "Brood Matron")]
    _play_until(g, lambda g: g.active == 1 and g.phase == "main1")
    lives = [p.life for p in g.players]
    _play_until(g, lambda g: g.active == 2)
    assert [lives[s] - g.players[s].life for s in range(4)] == [1, 0, 1, 1]
    _play_until(g, lambda g: g.active == 2 and g.phase == "main1")
    assert [e["source"] for e in events(g, "trigger") if e["key"] == "vanguard"][-1] == "Ember Tactician"
    assert any(e["event"] == "damage" and e["source"] == "Ember Tactician" for e in g.log)
    g.deal_damage(3, 100)
    _play_until(g, lambda g: g.turn >= 6)
    assert not any(e["event"] == "trigger" and e["source"] == "Frost Binder" for e in g.log)


def test_an_ability_on_the_stack_can_be_responded_to_and_its_target_chosen():
    """Frost Binder taps target creature at its controller's upkeep (the target is chosen as it
    goes on the stack, CR 603.3d; with no creature it is removed)."""
    g = make_game(DEAL, vanguard=["Brood Matron", "Frost Binder", "Brood Matron", "Brood Matron"],
                  commander=False, mulligans="none")
    bear = add_creature(g, 0, "Grove Bear")
    _play_until(g, lambda g: g.active == 1 and g.decision.kind == DecisionKind.TARGET)
    assert g.decision.seat == 1
    action = next(a for a, t in g.decision.options if t is not None and t[1] is bear)
    g.step(action)
    _play_until(g, lambda g: g.active == 1 and g.phase == "main1")
    assert bear.tapped


# ------------------------------------------------------------------------------------------ unchanged without
def test_games_without_vanguards_have_none_and_keep_their_layout_view_and_summary():
    g = Game(GameConfig(num_players=5), seed=3)
    assert all(p.vanguard is None for p in g.players) and not events(g, "vanguard")
    assert g.observation(0)["observation"].shape == (obs_layout(5).size,) and obs_layout(5).vanguard is None
    v = seat_view(g, 0)
    assert v.vanguards is None and "vanguards" not in v.to_dict()
    assert "vanguards" not in g.state_summary()
    assert raw_env(GameConfig(num_players=5)).observation_space("player_0")["observation"].shape == (obs_layout(5).size,)


# ------------------------------------------------------------------------------------------ observation, view
@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_the_observation_appends_a_public_block_identical_for_every_seat_but_the_rotation(game):
    n = 5
    g = Game(GameConfig(num_players=n, game=game, vanguard="random"), seed=4)
    L = obs_layout(n, game, vanguard=True)
    base = obs_layout(n, game).size
    assert L.vanguard == base and L.size == base + n * VANGUARD_FEATURES
    assert raw_env(GameConfig(num_players=n, game=game, vanguard="random")).observation_space(
        "player_0")["observation"].shape == (L.size,)
    index = {nm: k for k, nm in enumerate(V.names())}
    for s in range(n):
        x = g.observation(s)["observation"]
        assert x.shape == (L.size,) and np.array_equal(x, encode_variant(g, s))
        if game == "treachery":
            assert np.array_equal(x[:base], encode(g, s)) and np.array_equal(x[:base], encode_python(g, s))
        block = x[L.vanguard:].reshape(n, VANGUARD_FEATURES)
        assert block.sum() == n
        table = [int(np.argmax(block[(t - s) % n])) for t in range(n)]       # back to absolute seats
        assert table == [index[p.vanguard.name] for p in g.players]


@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_the_variant_blocks_are_the_same_whatever_array_the_games_encoder_gives(game, monkeypatch):
    """``encode_variant`` lengthens the game's own vector in place when that array owns its data (the
    compiled encoder's) and copies it otherwise (the Python encoder's wraps an ``array("f")``): with
    Vanguard, Planechase and the schemes, every seat's vector is the same from the module's encoder,
    the Python one and an owning copy of it, and each call gives a fresh, writable array."""
    import treachery_env.observation as O
    cfg = GameConfig(num_players=5, game=game, vanguard="random", planechase="single", archenemy="supervillain_rumble")
    g = Game(cfg, seed=8)
    r = random.Random(8)
    size = O.config_layout(cfg).size
    encoders = {"module": O.encode, "python": encode_python, "owning": lambda gm, s: encode_python(gm, s).copy()}
    for k in range(120):
        if g.is_over:
            break
        if k % 20 == 0:
            for s in range(5):
                got = {}
                for name, enc in encoders.items():
                    monkeypatch.setattr(O, "encode", enc)
                    got[name] = encode_variant(g, s)
                monkeypatch.setattr(O, "encode", encoders["module"])
                x = got["module"]
                assert x.shape == (size,) and x.dtype == np.float32 and x.flags.writeable
                assert all(np.array_equal(x, y) for y in got.values())
                x[:] = -1.0
                assert np.array_equal(encode_variant(g, s), got["python"])
        g.step(r.choice(g.legal_actions()))


def test_config_layout_gives_each_config_its_own_layout_in_any_order():
    """``config_layout`` remembers the last config with its layout: asked in turns about configs
    of other sizes and variants, and about an equal config that is another object, it gives each
    the layout of its own flags."""
    from treachery_env.observation import config_layout
    a = GameConfig(num_players=5, vanguard="random")
    b = GameConfig(num_players=4)
    c = GameConfig(num_players=5, vanguard="random")
    d = GameConfig(num_players=5, planechase="single", archenemy="supervillain_rumble")
    want = {id(a): obs_layout(5, vanguard=True), id(b): obs_layout(4), id(c): obs_layout(5, vanguard=True),
            id(d): obs_layout(5, planechase=True, schemes=True)}
    def offsets(L):
        return L.n, L.size, L.planar, L.vanguard, L.schemes
    for cfg in (a, a, b, a, c, d, b, d, a):
        assert offsets(config_layout(cfg)) == offsets(want[id(cfg)])


def test_permuting_the_face_down_identities_changes_no_seats_vanguard_block_or_view():
    """The block and ``SeatView.vanguards`` come from public facts only: the same game with the
    face-down identities of seats 1-3 permuted gives every seat the same ones."""
    blocks, views = [], []
    for deal in (DEAL, [DEAL[0], DEAL[3], DEAL[1], DEAL[2]], [DEAL[0], DEAL[2], DEAL[3], DEAL[1]]):
        g = Game(GameConfig(num_players=4, identities=deal, decks=["aggro"] * 4, vanguard=FOUR), seed=5)
        L = obs_layout(4, "treachery", vanguard=True)
        blocks.append([g.observation(s)["observation"][L.vanguard:].tolist() for s in range(4)])
        views.append([seat_view(g, s).vanguards for s in range(4)])
    assert blocks[0] == blocks[1] == blocks[2] and views[0] == views[1] == views[2]
    assert views[0][0] == tuple(FOUR)


@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_the_view_shows_every_vanguard_compiled_as_in_python_and_round_trips(game):
    g = Game(GameConfig(num_players=6, game=game, vanguard="random"), seed=6)
    r = random.Random(6)
    for _ in range(300):
        if g.is_over:
            break
        g.step(r.choice(g.legal_actions()))
    names = tuple(p.vanguard.name for p in g.players)
    for s in range(6):
        v = ViewBuilder(g).build(s)
        assert v == PythonViewBuilder(g).build(s) and v.vanguards == names
        assert SeatView.from_dict(json.loads(json.dumps(v.to_dict()))) == v
    assert public_view(g).vanguards == names


def test_text_tells_each_card_and_the_board_shows_them():
    text = card_text("Warden of the Vale")
    assert text.splitlines()[:2] == ["Warden of the Vale", "Vanguard (CR 902)"]
    assert "Life modifier +6" in text and "Hand modifier -1" in text and "you gain 1 life" in text
    assert find_name("warden of") == "Warden of the Vale" and find_name("gilded broker") == "Gilded Broker"
    board = render(_game(), 0)
    assert "vanguard: Ember Tactician (life -3, hand +1)" in board and "vanguard: Brood Matron (life +0, hand +0)" \
        in board


# ------------------------------------------------------------------------------------------ replays
@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_a_replay_round_trips_and_the_digest_holds_the_vanguards(game):
    g = Game(GameConfig(num_players=5, game=game, vanguard="random", max_turns=12), seed=7)
    r = random.Random(7)
    while not g.is_over:
        g.step(r.choice(g.legal_actions()))
    assert g.state_summary()["vanguards"] == [p.vanguard.name for p in g.players]
    back = Game.from_json(g.to_json())
    assert back.digest() == g.digest() and [p.vanguard.name for p in back.players] == g.state_summary()["vanguards"]
    c = g.clone()
    assert [p.vanguard.name for p in c.players] == [p.vanguard.name for p in g.players]
    assert all(a.vanguard is not b.vanguard for a, b in zip(c.players, g.players))


# ------------------------------------------------------------------------------------------ random games
@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_random_vanguard_games_keep_the_invariants(game):
    """A dozen random games per game (4 to 12 seats): every seat's observation has the layout's
    size and the same absolute vanguard table; the cards never change; starting life and hand
    sizes are the modified ones (seen at the first mulligan decision); every game ends or is
    truncated without error."""
    for seed in range(12):
        n = 4 + seed % 9
        vg = "random" if seed % 2 else [V.names()[(seed + k) % 12] for k in range(n)]
        cfg = GameConfig(num_players=n, game=game, vanguard=vg, max_turns=8 + seed % 5,
                         commander=bool(seed % 3), throne_roles="random" if game == "throne_magic" else "basic")
        g = Game(cfg, seed=seed)
        names = [p.vanguard.name for p in g.players]
        if vg != "random":
            assert names == vg
        for p in g.players:
            bonus = 0 if p.identity is None else p.identity.identity.start.get("life", 0)
            assert p.life == cfg.life + V.get(p.vanguard.name).life + bonus
            assert len(p.hand) == 7 + V.get(p.vanguard.name).hand + (
                0 if p.identity is None else p.identity.identity.start.get("hand_size", 0))
        L = obs_layout(n, game, vanguard=True)
        index = [V.names().index(nm) for nm in names]
        r = random.Random(seed)
        steps = 0
        while not g.is_over:
            s = g.decision.seat
            if steps % 7 == 0:
                x = g.observation(s)["observation"]
                assert x.shape == (L.size,)
                block = x[L.vanguard:].reshape(n, VANGUARD_FEATURES)
                assert [int(np.argmax(block[(t - s) % n])) for t in range(n)] == index
            g.step(r.choice(g.legal_actions()))
            steps += 1
        assert [p.vanguard.name for p in g.players] == names


@pytest.mark.parametrize("bot", ["heuristic", "belief", "random"])
def test_the_bots_play_vanguard_games_in_both_games(bot):
    for game in ("treachery", "throne_magic"):
        cfg = GameConfig(num_players=5, game=game, vanguard="random", max_turns=10)
        env = None
        for env, agent, obs, info in decisions(cfg, seed=3, bots=[agents.make(bot, seed=i) for i in range(5)]):
            assert info["view"].vanguards is not None
            env.step(int(agent.act(obs, info)))
        assert env is not None and env.game.is_over


def test_search_bots_and_trained_policies_refuse_a_vanguard_game(policy_4p):
    g = Game(GameConfig(num_players=4, vanguard="random"), seed=1)
    info = {"view": seat_view(g, g.decision.seat)}
    obs = g.observation(g.decision.seat)
    for name in ("lookahead", "ismcts"):
        with pytest.raises(ValueError, match=f"the {name} bot plays games without Vanguard cards only"):
            agents.make(name, seed=0).act(obs, info)
        with pytest.raises(ValueError, match=f"^the {name} bot plays games without Vanguard cards only"):
            agents.check_table(agents.make(name, seed=0), name, 4, g.config)     # before the game, too
    pol = agents.make(f"policy:{policy_4p}", seed=0)
    with pytest.raises(ValueError, match=r"trained on games without Vanguard cards .*CR 900"):
        pol.check_config(g.config)
    with pytest.raises(ValueError, match=r"trained on games without Vanguard cards"):
        pol.act(obs, info)
