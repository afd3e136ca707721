"""Archenemy's schemes, the Supervillain Rumble option (CR 904.12), in Treachery and Throne Magic
(issue #16; engine/archenemy.py, treachery_env/schemes.py, docs/fidelity.md section 11)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from treachery_env import GameConfig
from treachery_env import schemes as sc
from treachery_env.engine import Game

from identity_helpers import pass_until
from scenario import ASSASSINS, GUARDIANS, TRAITORS, add_creature, make_game, pass_priority_until

RUMBLE = "supervillain_rumble"


def deck(top: list[str]) -> list[str]:
    """A legal scheme deck (CR 904.3) whose first cards are ``top``, the rest filled up to 20."""
    rest = [n for n in sc.names() for _ in range(2)]
    for name in top:
        rest.remove(name)
    return top + rest[:20 - len(top)]


def rumble(n: int = 4, top: list[str] | None = None, **kw) -> Game:
    """A Treachery Supervillain Rumble game without mulligans, every seat's deck starting with ``top``."""
    decks = [deck(top or [])] * n
    return Game(GameConfig(num_players=n, archenemy=RUMBLE, scheme_decks=decks, mulligans="none", **kw), seed=0)


def play_until(g: Game, cond) -> None:
    """PASS where it is legal, else the first legal action (a discard to hand size), until ``cond``."""
    for _ in range(2000):
        if cond(g):
            return
        legal = g.legal_actions()
        g.step(g.layout.PASS if g.layout.PASS in legal else legal[0])
    raise AssertionError("condition never met")


def test_the_data_holds_twelve_schemes_two_ongoing_each_in_engine_primitives():
    """treachery_env/data/schemes.json: every ability's ops are primitives Game._op_effect runs."""
    from test_throne_cards import engine_ops
    ops = engine_ops()
    assert len(sc.schemes()) == 12 and sum(s.ongoing for s in sc.schemes()) == 2
    for s in sc.schemes():
        assert (s.ability.trigger == "controller_upkeep") == s.ongoing and s.text.endswith(".")
        for e in s.ability.effects:
            assert e["op"] in ops, (s.name, e["op"])
            assert e.get("t") is None or 0 <= e["t"] < len(s.ability.targets)


@pytest.mark.parametrize("kw, match", [
    (dict(archenemy="classic"), r"GameConfig.archenemy: must be one of \[.supervillain_rumble.\] .*CR 904.2.*not modelled; "
     r"unset: no Archenemy\), got .classic.$"),
    (dict(scheme_decks=[deck([])] * 4), r"GameConfig.scheme_decks: scheme decks are Archenemy's \(CR 904.3\)"),
    (dict(archenemy=RUMBLE, scheme_decks=[deck([])[:19]] * 4), r"CR 904.3 asks for at least 20 scheme cards, got 19"),
    (dict(archenemy=RUMBLE, scheme_decks=[["Dark Communion"] * 3 + deck([])[:17]] * 4),
     r"CR 904.3 allows at most 2 cards of one name, got more of \['Dark Communion'\]"),
    (dict(archenemy=RUMBLE, scheme_decks=[deck([])] * 3), r"needs one scheme deck .* per seat, 4"),
    (dict(archenemy=RUMBLE, scheme_decks=[["Nope"] + deck([])[:19]] * 4), r"unknown scheme 'Nope'"),
])
def test_bad_archenemy_configs_raise_one_line_errors_naming_the_rule(kw, match):
    with pytest.raises(ValueError, match=match) as err:
        GameConfig(num_players=4, **kw)
    assert "\n" not in str(err.value)


def test_a_random_scheme_deck_is_legal_and_seeded():
    """CR 904.3: 20 cards, at most two of a name; the game's seed fixes each deck (CR 904.4)."""
    for seed in range(5):
        d = sc.draw_deck(np.random.default_rng(seed))
        assert sc.check_deck(d) == tuple(d)
    a = Game(GameConfig(archenemy=RUMBLE), seed=3).schemes.decks
    b = Game(GameConfig(archenemy=RUMBLE), seed=3).schemes.decks
    assert a == b and len(a) == 5 and all(len(set(x)) >= 10 for x in a)


def test_every_archenemy_starts_at_40_life_before_the_identity_bonus():
    """CR 904.5 with 904.12c (all the archenemy's rules apply to every player): 40 life, with or
    without commanders; ``starting_life`` still sets it; The Old Ruler's +20 (an identity's start
    modifier, CR 907.5) comes on top."""
    for commander in (True, False):
        g = Game(GameConfig(num_players=4, archenemy=RUMBLE, commander=commander), seed=0)
        bonus = [p.identity.identity.start.get("life", 0) for p in g.players]
        assert [p.life for p in g.players] == [40 + b for b in bonus]
    assert GameConfig(archenemy=RUMBLE, starting_life=25).life == 25
    assert GameConfig(commander=False).life == 20


def test_the_starting_player_is_the_leader_in_treachery_and_random_in_throne_magic():
    """CR 904.12c: in Supervillain Rumble the starting player is chosen at random, not the
    archenemy of CR 904.6 (every player is one); in Treachery the face-up Leader starts
    (CR 907.6) over the random choice, as a rule that names the starting player does (the row
    "904.6" of docs/fidelity.md section 11); Throne Magic names none: random, from the seed."""
    for seed in range(12):
        g = Game(GameConfig(num_players=5, archenemy=RUMBLE, mulligans="none"), seed=seed)
        assert g.turn == 1 and g.players[g.active].identity.role.name == "LEADER"
    firsts = Counter(Game(GameConfig(game="throne_magic", num_players=5, archenemy=RUMBLE,
                                       mulligans="none"), seed=s).active
                     for s in range(40))
    assert len(firsts) == 5, firsts


def test_the_top_scheme_is_set_in_motion_as_the_precombat_main_phase_begins():
    """CR 904.9: immediately after the active player's precombat main phase begins, the top card of
    their scheme deck turns face up (no stack) and its "when you set this scheme in motion" ability
    triggers; it resolves (draw two), and CR 904.10 then puts the scheme on the bottom of the deck."""
    g = rumble(top=["Plunder the Archives"])
    seat = g.active
    assert g.schemes.decks[seat][0] == "Plunder the Archives" and not any(e["event"] == "scheme" for e in g.log)
    pass_until(g, lambda g: g.phase == "main1")
    assert g.schemes.face_up[seat][0][1] == "Plunder the Archives"
    assert [e for e in g.log if e["event"] == "scheme"][0] == {
        "turn": 1, "event": "scheme", "seat": seat, "name": "Plunder the Archives", "ongoing": False, "to": None}
    assert g.stack and g.stack[-1].source == "Plunder the Archives"      # its ability, not the scheme
    hand = len(g.players[seat].hand)
    pass_until(g, lambda g: not g.stack)
    assert len(g.players[seat].hand) == hand + 2
    assert g.schemes.face_up[seat] == [] and g.schemes.decks[seat][-1] == "Plunder the Archives"
    assert len(g.schemes.decks[seat]) == 20
    assert any(e["event"] == "scheme_bottom" and e["seat"] == seat for e in g.log)


def test_a_scheme_waits_face_up_while_its_ability_is_on_the_stack():
    """CR 904.10: a scheme that is the source of a triggered ability not yet gone from the stack stays
    face up; only once the ability has left does the state-based check move it."""
    g = rumble(top=["Dark Communion"])
    seat = g.active
    pass_until(g, lambda g: g.phase == "main1")
    assert g.stack and g.schemes.face_up[seat]
    g._dirty = True
    g._state_based_actions()
    assert [n for _, n in g.schemes.face_up[seat]] == ["Dark Communion"]
    life = g.players[seat].life
    pass_until(g, lambda g: not g.stack)
    assert g.players[seat].life == life + 5 and not g.schemes.face_up[seat]


def test_a_scheme_whose_ability_fizzles_goes_to_the_bottom_before_the_next_priority():
    """CR 904.10 with CR 608.2b: Strike Down the Champion's ability, its only target gone when it
    resolves, leaves the stack without resolving; the scheme is then no longer the source of an
    ability still to leave the stack, so the state-based check before the next priority turns it
    face down and puts it on the bottom of its owner's scheme deck."""
    g = rumble(top=["Strike Down the Champion"])
    seat = g.active
    pass_until(g, lambda g: g.phase == "draw")
    victim = add_creature(g, (seat + 1) % 4, "Blade Squire")
    pass_until(g, lambda g: g.phase == "main1" and g.stack)
    assert g.stack[-1].source == "Strike Down the Champion" and g.stack[-1].targets == [("c", victim)]
    g.destroy(victim)
    pass_until(g, lambda g: not g.stack)
    assert any(e["event"] == "fizzle" and e["source"] == "Strike Down the Champion" for e in g.log)
    assert g.schemes.face_up[seat] == [] and g.schemes.decks[seat][-1] == "Strike Down the Champion"
    assert any(e["event"] == "scheme_bottom" and e["seat"] == seat for e in g.log)


def test_a_scheme_whose_ability_is_countered_goes_to_the_bottom_before_the_next_priority():
    """CR 904.10 with CR 701.5: The Void Tyrant counters Plunder the Archives' ability (its source
    is no identity card); once the ability has left the stack the scheme goes face down to the
    bottom of its owner's scheme deck, before anyone gets priority again."""
    deal = ("The Void Tyrant", GUARDIANS[0], ASSASSINS[0], ASSASSINS[1], TRAITORS[0])
    g = make_game(deal, archenemy=RUMBLE, scheme_decks=[deck(["Plunder the Archives"])] * 5, lands=3)
    assert g.active == 0 and [it.source for it in g.stack] == ["Plunder the Archives"]
    assert g.decision.seat == 2
    g.step(g.layout.HAND + 0)               # seat 2's Shock in response, so that seat 0 gets priority again
    g.step(g.legal_actions()[0])
    pass_priority_until(g, lambda g: g.decision.seat == 0 and len(g.stack) == 1)
    g.step(g.layout.IDENTITY_AB)            # its only target: the scheme's ability
    pass_priority_until(g, lambda g: not g.stack)
    assert any(e["event"] == "counter" and e["source"] == "Plunder the Archives" for e in g.log)
    assert [c.name for c in g.players[0].hand] == ["Shock"]     # the ability never resolved: no draw
    assert g.schemes.face_up[0] == [] and g.schemes.decks[0][-1] == "Plunder the Archives"


def test_an_ongoing_scheme_stays_acts_at_each_upkeep_and_is_abandoned_by_combat_damage():
    """CR 904.11: an ongoing scheme set in motion stays face up (no ability as it is set in motion);
    its ability triggers at its controller's upkeep (CR 311.7); combat damage to its controller
    abandons it (CR 701.22: face down to the bottom of its owner's deck)."""
    g = rumble(top=["The Iron Muster"], commander=False)
    seat = g.active
    pass_until(g, lambda g: g.phase == "main1")
    assert not g.stack and [n for _, n in g.schemes.face_up[seat]] == ["The Iron Muster"]
    assert g.schemes.ongoing(seat) == ["The Iron Muster"]
    play_until(g, lambda g: g.active == seat and g.turn > 1 and g.phase == "upkeep" and g.stack)
    assert g.stack[-1].source == "The Iron Muster"
    soldiers = sum(c.name == "Soldier" for c in g.players[seat].creatures)
    pass_until(g, lambda g: not g.stack)
    assert sum(c.name == "Soldier" for c in g.players[seat].creatures) == soldiers + 1
    g._schemes_hit({seat})
    assert g.schemes.face_up[seat] == [] and g.schemes.decks[seat][-1] == "The Iron Muster"
    assert g.log[-1]["event"] == "scheme_abandoned"


def test_a_leaving_player_takes_their_schemes_with_them():
    """CR 800.4a: the objects a player owns leave the game with them: its scheme deck and face-up schemes."""
    g = rumble(top=["The Iron Muster"])
    seat = g.active
    pass_until(g, lambda g: g.phase == "main1")
    g.lose(seat)
    pass_until(g, lambda g: g.players[seat].has_lost or g.is_over)
    assert g.schemes.decks[seat] == [] and g.schemes.face_up[seat] == []
    assert all(len(d) + len(u) == 20 for s, (d, u) in enumerate(zip(g.schemes.decks, g.schemes.face_up))
               if not g.players[s].has_lost)


def check_scheme_invariants(g: Game) -> None:
    """Each seat in the game holds its 20 scheme cards between its deck and its face-up schemes; a
    player who left holds none; only ongoing schemes, or one whose ability waits, stay face up."""
    waiting = {t.data.get("scheme") for t in g.stack + g.pending_triggers if t.key == "scheme"}
    for p in g.players:
        deck_, up = g.schemes.decks[p.seat], g.schemes.face_up[p.seat]
        if p.has_lost:
            assert not deck_ and not up
            continue
        assert len(deck_) + len(up) == 20
        for uid, name in up:
            assert sc.get(name).ongoing or uid in waiting or g._dirty or g.queue, (name, g.phase)


@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_random_rumble_games_keep_the_invariants_and_replay(game):
    """Random play at low life over 4-7 players, both games: the invariants at every decision, schemes
    set in motion, and a replay of the game gives the same digest."""
    moved = 0
    for seed in range(12):
        n = 4 + seed % 4
        cfg = GameConfig(game=game, num_players=n, archenemy=RUMBLE, starting_life=6, commander=False,
                         max_turns=40, mulligans="london" if seed % 2 else "none")
        g = Game(cfg, seed=seed)
        r = random.Random(seed)
        while not g.is_over:
            g.step(r.choice(g.legal_actions()))
            check_scheme_invariants(g)
        moved += sum(e["event"] == "scheme" for e in g.log)
        if seed % 4 == 0:
            again = Game.from_json(g.to_json())
            assert again.digest() == g.digest() and again.schemes.decks == g.schemes.decks
    assert moved >= 24


def test_the_schemes_are_told_in_words_and_on_the_board():
    """The text layer: each scheme's card text, the events' sentences, the board's schemes line."""
    from treachery_env.text import board_sections, card_text, format_event
    from treachery_env.view import seat_view
    assert card_text("The Iron Muster").splitlines()[:2] == ["The Iron Muster", "Ongoing Scheme (Archenemy)"]
    assert "CR 904.10" in card_text("Dark Communion")
    assert format_event({"turn": 2, "event": "scheme", "seat": 1, "name": "Dark Communion", "ongoing": False,
                         "to": None}) == "P1 sets the scheme Dark Communion in motion"
    g = rumble(top=["The Iron Muster"])
    pass_until(g, lambda g: g.phase == "main1")
    view = seat_view(g, 0)
    assert view.schemes.face_up[g.active] == ("The Iron Muster",) and view.schemes.deck_sizes[g.active] == 19
    table = board_sections(view, 0)[2]
    assert any(line.startswith(f"schemes face up (Archenemy): P{g.active}: The Iron Muster") for line in table)
    assert type(view).from_dict(view.to_dict()) == view and "schemes" not in seat_view(Game(GameConfig(), 0), 0).to_dict()


@pytest.mark.parametrize("name", ["ismcts", "lookahead"])
def test_the_search_bots_refuse_a_game_with_schemes(name):
    """Their search deals games without schemes: they would plan for another game."""
    import agents
    import treachery_env
    env = treachery_env.env(num_players=4, archenemy=RUMBLE)
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    with pytest.raises(ValueError, match=rf"the {name} bot plays games without schemes only"):
        agents.make(name, seed=0).act(obs, info)


def test_find_name_finds_a_scheme():
    from treachery_env.text import find_name
    assert find_name("iron muster") == "The Iron Muster" and find_name("dark comm") == "Dark Communion"


@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_the_observation_holds_every_seats_schemes_and_nothing_hidden(game):
    """The schemes block (observation.config_layout, after the game's own blocks): per relative seat
    its face-up schemes and deck size; the environment's spaces and state fit it; the decks' order,
    which nobody knows, does not reach it (two games whose decks differ only below the top card
    give every seat the same observation once that card is up)."""
    from pettingzoo.test import api_test

    from treachery_env.env import raw_env
    from treachery_env.observation import SCHEME_FEATURES, config_layout, obs_layout
    cfg = GameConfig(game=game, num_players=4, archenemy=RUMBLE, mulligans="none",
                     scheme_decks=[deck(["The Iron Muster"])] * 4)
    L = config_layout(cfg)
    assert L.schemes == obs_layout(4, game).size and L.size == L.schemes + 4 * SCHEME_FEATURES
    g = Game(cfg, seed=0)
    play_until(g, lambda g: g.phase == "main1" and g.turn >= 1)
    seat = g.active
    for viewer in range(4):
        o = g.observation(viewer)["observation"]
        row = L.schemes + ((seat - viewer) % 4) * SCHEME_FEATURES
        assert o[row + sc.names().index("The Iron Muster")] == 1.0 and o[row + SCHEME_FEATURES - 1] == 19 / 20
    other = list(deck(["The Iron Muster"]))
    other[1:] = reversed(other[1:])
    h = Game(cfg.replace(scheme_decks=[other] * 4), seed=0)
    play_until(h, lambda h: h.phase == "main1" and h.turn >= 1)
    for viewer in range(4):
        assert np.array_equal(g.observation(viewer)["observation"], h.observation(viewer)["observation"])
    env = raw_env(config=cfg.replace(max_turns=6))
    assert env.observation_space("player_0")["observation"].shape == (L.size,)
    api_test(env, num_cycles=60)


def test_a_trained_policy_refuses_a_game_with_schemes():
    """No checkpoint's observation has the schemes block: the policy says so in one line."""
    import agents
    bot = agents.make("flagship", seed=0)
    with pytest.raises(ValueError, match="trained on games without schemes"):
        bot.check_config(GameConfig(archenemy=RUMBLE))
