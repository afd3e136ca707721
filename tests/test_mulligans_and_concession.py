"""Mulligans before the first turn and concession as an action (issue #11 section 2).

Mulligans: CR 103.5 London mulligan (from memory; CR 103 is not in
shared/rules): the starting player (the Leader, CR 907.6) declares first, then
each other player in turn order; the players who take a mulligan shuffle their
hand into their library and draw a new hand of their starting hand size; a
player who keeps after N mulligans puts N cards on the bottom, except that
103.5c makes the first mulligan free in multiplayer (N - 1 cards).

Concession: CR 104.3a (a player may concede at any time; they leave the game
and lose), TR6.10 (a concession can't be replaced or prevented: effects that
replace losing don't apply), TR7.4 (the last-known team of a player who left
still wins with its team), TR6.3 (the Guardians lose with the last Leader).
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import agents
from agents.heuristic import HeuristicAgent
from treachery_env import GameConfig, cards
from treachery_env.actions import MAX_CHOICE, MAX_WALKERS, N_LOYALTY_ABILITIES, ActionLayout, talk_size
from treachery_env.engine import DecisionKind, Game
from treachery_env.observation import PLAYER_FEATURES, encode, obs_layout
from treachery_env.view import seat_view
from treachery_env.rules import Role, Team

from identity_helpers import at_main, deal5, give_priority, hand, resolve_all, target_player
from test_information_sets import _permute_hidden

MULLIGAN, BOTTOM = DecisionKind.MULLIGAN, DecisionKind.BOTTOM
# seat 2 is the Leader; The Queen of Light has no starting hand-size bonus
DEAL = ["The Bodyguard", "The Demon", "The Queen of Light", "The Beastmaster", "The Banisher"]


def mulligan_game(seed: int = 0, **config) -> Game:
    return Game(GameConfig(num_players=5, identities=DEAL, decks=["aggro"] * 5, **config), seed=seed)


def drive_mulligans(g: Game, plan: dict[int, int], log: list | None = None) -> None:
    """Answer the mulligan decisions: seat ``s`` takes ``plan.get(s, 0)``
    mulligans, then keeps; bottoms the card in hand slot 0 each time."""
    L = g.layout
    while g.decision is not None and g.decision.kind in (MULLIGAN, BOTTOM):
        d = g.decision
        if log is not None:
            log.append((d.seat, DecisionKind.NAMES[d.kind]))
        if d.kind == MULLIGAN:
            more = g.players[d.seat].mulligans < plan.get(d.seat, 0)
            g.step(L.CHOICE if more else L.PASS)
        else:
            g.step(L.HAND)


def deck_size(g: Game, seat: int) -> int:
    p = g.players[seat]
    return len(p.hand) + len(p.library)


# ---------------------------------------------------------------------------- mulligans
@pytest.mark.parametrize("taken,kept", [(0, 7), (1, 7), (2, 6), (3, 5)])
def test_london_mulligan_hand_sizes_with_the_free_first_mulligan(taken, kept):
    """CR 103.5 / 103.5c: after 0, 1, 2, 3 mulligans a 7-card starting hand is
    kept with 7, 7, 6, 5 cards; the cards go to the bottom of the library, so
    hand + library stays the deck; the count is public (log, view)."""
    g = mulligan_game()
    before = deck_size(g, 0)
    bottomed = []
    L = g.layout
    while g.decision.kind in (MULLIGAN, BOTTOM):
        d = g.decision
        if d.kind == BOTTOM:
            assert d.seat == 0
            bottomed.append(g.players[0].hand[0])
            g.step(L.HAND)
        elif d.seat == 0 and g.players[0].mulligans < taken:
            g.step(L.CHOICE)
        else:
            g.step(L.PASS)
    p = g.players[0]
    assert p.mulligans == taken and len(p.hand) == kept and deck_size(g, 0) == before
    assert len(bottomed) == max(0, taken - 1)
    # each chosen card went under the previous ones: the last chosen is the very bottom
    assert p.library[:len(bottomed)] == bottomed[::-1]
    keeps = [e for e in g.log if e["event"] == "mulligan_keep" and e["seat"] == 0]
    assert keeps == [{"turn": 0, "event": "mulligan_keep", "seat": 0, "mulligans": taken, "hand": kept,
                      "bottom": len(bottomed), "to": None}]
    assert [e["count"] for e in g.log if e["event"] == "mulligan" and e["seat"] == 0] == list(range(1, taken + 1))
    assert seat_view(g, 3).players[0].mulligans == taken
    assert g.turn == 1 and g.active == 2 and g.mulligan_state is None    # the Leader's first turn began
    assert [len(q.hand) for q in g.players[1:]] == [7, 8, 7, 7]          # the Leader drew (CR 504.1)


def test_a_mulligan_draws_the_starting_hand_size_with_identity_bonuses():
    """CR 103.5: the new hand has the player's starting hand size, here The Old
    Ruler's 8 (starting modifier +1 hand size, identities.json)."""
    g = Game(GameConfig(num_players=5, identities=deal5(), decks=["aggro"] * 5), seed=3)
    assert g.decision.seat == 0 and g.decision.kind == MULLIGAN and len(g.players[0].hand) == 8
    drive_mulligans(g, {0: 2})
    assert g.players[0].mulligans == 2 and len(g.players[0].hand) == 7      # 8, minus 1 bottomed
    assert [len(p.hand) for p in g.players[1:]] == [7, 7, 7, 7]


def test_mulligan_decisions_start_with_the_starting_player_then_turn_order():
    """CR 103.5, CR 907.6: the Leader (seat 2) declares first, then seats 3, 4,
    0, 1; the next round asks only those who took a mulligan, in the same
    order; a keeper bottoms its cards as it keeps."""
    g = mulligan_game()
    assert g.turn == 0 and g.active == 2 and g.decision.seat == 2 and g.decision.kind == MULLIGAN
    log: list = []
    drive_mulligans(g, {1: 2, 3: 1}, log)
    assert log == [(2, "mulligan"), (3, "mulligan"), (4, "mulligan"), (0, "mulligan"), (1, "mulligan"),
                   (3, "mulligan"), (1, "mulligan"),
                   (1, "mulligan"), (1, "bottom")]
    assert [p.mulligans for p in g.players] == [0, 2, 0, 1, 0]
    assert [len(p.hand) for p in g.players] == [7, 6, 7 + 1, 7, 7]      # + the Leader's first draw
    assert [e["seat"] for e in g.log if e["event"] == "turn"][:1] == [2]


def test_mulligan_words_and_options():
    """The mulligan decision: PASS keeps, CHOICE + 0 takes a mulligan (CR 103.5),
    described in words; the bottom decision names the card."""
    g = mulligan_game()
    L = g.layout
    assert g.legal_actions() == [L.PASS, L.CHOICE]
    assert g.describe_action(L.PASS) == "keep these 7 cards"
    assert "free, CR 103.5c" in g.describe_action(L.CHOICE)
    v = g.view(2)
    assert v.decision.kind == "mulligan" and [o.kind for o in v.decision.options] == ["pass", "mulligan"]
    drive_mulligans(g, {})
    g2 = mulligan_game()
    g2.step(L.CHOICE)
    for _ in range(4):
        g2.step(L.PASS)
    assert g2.decision.seat == 2 and "keeping 6" in g2.describe_action(L.CHOICE)
    assert g2.describe_action(L.PASS) == "keep these 7 cards"          # the free first mulligan
    g2.step(L.CHOICE)           # the Leader's second mulligan: one card to bottom when keeping
    assert g2.describe_action(L.PASS) == "keep these 7 cards, then put 1 on the bottom"
    g2.step(L.PASS)             # keep
    d = g2.decision
    assert d.kind == BOTTOM and d.seat == 2
    name = g2.players[2].hand[1].name
    assert g2.describe_action(L.HAND + 1) == f"put {name} on the bottom of your library"
    ov = g2.view(2).decision.options[1]
    assert ov.kind == "bottom" and ov.card == name


def test_mulligans_stop_before_an_empty_hand():
    """Abstraction (docs/fidelity.md): a mulligan is offered while keeping
    afterwards leaves a card or an empty hand at worst, so an always-mulligan
    player keeps 0 cards after 8 mulligans and the game starts."""
    g = mulligan_game()
    L = g.layout
    while g.decision.kind in (MULLIGAN, BOTTOM):
        d = g.decision
        if d.kind == MULLIGAN:
            g.step(L.CHOICE if d.seat == 0 and L.CHOICE in g.legal_actions() else L.PASS)
        else:
            g.step(L.HAND)
    assert g.players[0].mulligans == 8 and g.players[0].hand == [] and g.turn == 1


def test_no_mulligans_gives_todays_opening():
    """``mulligans="none"``: no mulligan decision; the first turn begins at once
    with the dealt hands, which are those a London game deals before anyone
    mulligans (the same random stream)."""
    g = mulligan_game(mulligans="none")
    assert g.turn == 1 and g.mulligan_state is None
    assert g.decision is None or g.decision.kind not in (MULLIGAN, BOTTOM)
    h = mulligan_game()
    drive_mulligans(h, {})
    assert [[c.name for c in p.hand] for p in g.players] == [[c.name for c in p.hand] for p in h.players]
    assert g.digest() == h.digest()
    rng = random.Random(5)
    kinds = set()
    while not g.is_over and g.turn < 6:
        kinds.add(g.decision.kind)
        g.step(rng.choice(g.legal_actions()))
    assert not kinds & {MULLIGAN, BOTTOM} and not [e for e in g.log if e["event"].startswith("mulligan")]


def test_mulligan_game_is_deterministic_and_replays():
    """Same seed + same actions = same game; to_json / from_json reproduce
    games with mulligans and bottoms (the shuffles use the game's stream)."""
    for seed in range(6):
        rng = random.Random(seed)
        g = Game(GameConfig(num_players=5, max_turns=8), seed=seed)
        while not g.is_over:
            g.step(rng.choice(g.legal_actions()))
        assert any(e["event"] == "mulligan" for e in g.log)
        h = Game.from_json(g.to_json())
        assert h.digest() == g.digest() and h.actions == g.actions
        k = Game(GameConfig(num_players=5, max_turns=8), seed=seed)
        for a in g.actions:
            k.step(a)
        assert k.digest() == g.digest()


def test_replays_before_mulligans_read_without_mulligans():
    """Replay versions 1 and 2 had no mulligans: they are read with
    ``mulligans="none"``."""
    g = Game(GameConfig(num_players=5, max_turns=6, mulligans="none"), seed=4)
    rng = random.Random(1)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    d = json.loads(g.to_json())
    assert d["version"] == 3 and d["config"]["mulligans"] == "none"
    del d["config"]["mulligans"], d["config"]["concession"]
    d["version"] = 2
    assert Game.from_json(json.dumps(d)).digest() == g.digest()


def test_hidden_information_during_mulligans():
    """DESIGN section 4: during the mulligans a seat's observation and view do
    not depend on other hands or library orders (permuted), nor on the cards
    another seat put on the bottom (a private event); the mulligan counts are
    public and in the observation vector."""
    g = mulligan_game()
    L = g.layout
    g.step(L.CHOICE)                     # seat 2 (Leader) takes a mulligan
    for _ in range(4):
        g.step(L.PASS)                   # the others keep
    g.step(L.CHOICE)                     # second mulligan
    g.step(L.PASS)                       # keep: one card to bottom
    assert g.decision.kind == BOTTOM and g.decision.seat == 2
    rng = random.Random(0)
    for viewer in range(5):
        for _ in range(3):
            h = _permute_hidden(g, viewer, rng)
            assert np.array_equal(encode(g, viewer), encode(h, viewer))
            assert seat_view(g, viewer) == seat_view(h, viewer)
            assert g.render_text(viewer) == h.render_text(viewer)
    bottomed = g.players[2].hand[0].name
    g.step(L.HAND)
    ev = [e for e in g.log if e["event"] == "bottom"]
    assert ev == [{"turn": 0, "event": "bottom", "seat": 2, "card": bottomed, "to": [2]}]
    assert all(e["event"] != "bottom" for e in seat_view(g, 0).events)
    assert any(e["event"] == "bottom" for e in seat_view(g, 2).events)
    # which card went to the bottom is not visible to another seat: swap it for another card
    h = g.clone()
    lib = h.players[2].library
    lib[0] = cards.card("Shock") if lib[0].name != "Shock" else cards.card("Wastes")
    h.log = [dict(e, card="Wastes") if e["event"] == "bottom" else e for e in h.log]
    for viewer in (0, 1, 3, 4):
        assert np.array_equal(encode(g, viewer), encode(h, viewer))
        assert seat_view(g, viewer) == seat_view(h, viewer)
    # the count is public: the same feature for every viewer (relative block of seat 2)
    lay = obs_layout(5)
    for viewer in range(5):
        rel = (2 - viewer) % 5
        assert encode(g, viewer)[lay.players + rel * PLAYER_FEATURES + PLAYER_FEATURES - 1] == pytest.approx(2 / 3)
        assert seat_view(g, viewer).players[2].mulligans == 2


# ---------------------------------------------------------------------------- bots
def _act(bot, g: Game) -> int:
    s = g.current_player
    bot.reset(s)
    return bot.act(g.observation(s), {"view": g.view(s)})


def test_heuristic_mulligan_policy():
    """Keep 2-5 lands in 7; mulligan 0-1 or 6-7 lands, at most twice; bottom
    excess lands first, else the most expensive spell (CR 103.5)."""
    bot = HeuristicAgent(seed=0)
    g = mulligan_game()
    L = g.layout
    me = g.players[2]
    for lands, want in ((0, L.CHOICE), (1, L.CHOICE), (2, L.PASS), (5, L.PASS), (6, L.CHOICE), (7, L.CHOICE)):
        me.hand = [cards.card("Wastes")] * lands + [cards.card("Grove Bear")] * (7 - lands)
        assert _act(bot, g) == want, lands
    me.mulligans = 2
    me.hand = [cards.card("Wastes")] * 7
    assert _act(bot, g) == L.PASS                 # no third mulligan
    me.mulligans = 0
    # bottom decisions
    g2 = mulligan_game()
    g2.step(L.CHOICE)
    for _ in range(4):
        g2.step(L.PASS)
    g2.step(L.CHOICE)
    g2.step(L.PASS)
    assert g2.decision.kind == BOTTOM
    p = g2.players[2]
    p.hand = [cards.card(c) for c in ("Wastes", "Wastes", "Wastes", "Wastes", "Wastes", "Grove Bear", "Shock")]
    assert _act(bot, g2) in {L.HAND + i for i in range(5)}          # 5 lands: an excess land
    p.hand = [cards.card(c) for c in ("Wastes", "Wastes", "Wastes", "Grove Bear", "Mossback Hydra", "Shock",
                                      "Shock")]
    worst = max(range(7), key=lambda i: (not p.hand[i].is_land, p.hand[i].cost))
    assert _act(bot, g2) == L.HAND + worst and p.hand[worst].name == "Mossback Hydra"


@pytest.mark.parametrize("spec", ["heuristic", "belief", "ismcts"])
def test_bots_answer_mulligans_and_never_concede(spec):
    """The bots handle the mulligan and bottom decisions (ISMCTS through its
    fallback) and never choose CONCEDE even when it is legal for them."""
    for seed in range(2):
        g = Game(GameConfig(num_players=5, max_turns=4 if spec == "ismcts" else 12, concession=True), seed=seed)
        if spec == "ismcts":
            from agents.ismcts import ISMCTSAgent
            bots = [ISMCTSAgent(seed=seed * 10 + i, iterations=4, determinizations=2, horizon=1) for i in range(5)]
        else:
            bots = [agents.make(spec, seed=seed * 10 + i) for i in range(5)]
        for i, b in enumerate(bots):
            b.reset(i)
        seen = set()
        while not g.is_over:
            s = g.current_player
            assert g.layout.CONCEDE in g.legal_actions()
            seen.add(g.decision.kind)
            a = bots[s].act(g.observation(s), {"view": g.view(s)})
            assert a != g.layout.CONCEDE
            g.step(a)
        assert MULLIGAN in seen
        assert not [e for e in g.log if e["event"] == "loses" and e["reason"] == "concede"]


# ---------------------------------------------------------------------------- concession
def test_concede_is_the_last_action_block():
    """The CONCEDE block is appended at the end, after TALK: every other block keeps its offset."""
    for n in (4, 5, 12):
        L = ActionLayout(n)
        walkers = (n + 1) * MAX_WALKERS + MAX_WALKERS * N_LOYALTY_ABILITIES    # WALKER, LOYALTY
        assert L.CONCEDE == L.TALK + talk_size(n) == L.CHOICE + MAX_CHOICE + walkers + talk_size(n) == L.size - 1
        assert L.decode(L.CONCEDE) == ("CONCEDE", 0, 0)


def test_concede_action_only_when_configured_and_only_in_shown_decisions():
    """CR 104.3a as an action: with ``concession`` off CONCEDE is never legal;
    with it on for a seat it is in every shown decision of that seat and no
    other; it never turns a single-option decision into a shown one (the same
    actions give the same game and the same automatic decisions)."""
    for seed in range(4):
        rng = random.Random(seed)
        g = Game(GameConfig(num_players=5, max_turns=10), seed=seed)
        h = Game(GameConfig(num_players=5, max_turns=10, concession=(1,)), seed=seed)
        shown_for_1 = 0
        while not g.is_over:
            assert g.layout.CONCEDE not in g.legal_actions()
            legal_h = h.legal_actions()
            assert (h.layout.CONCEDE in legal_h) == (h.current_player == 1)
            assert legal_h == sorted(g.legal_actions() + ([h.layout.CONCEDE] if h.current_player == 1 else []))
            shown_for_1 += h.current_player == 1
            a = rng.choice(g.legal_actions())
            g.step(a)
            h.step(a)
        assert h.is_over and h.digest() == g.digest() and h.auto_decisions == g.auto_decisions
        assert shown_for_1 > 0
    with pytest.raises(ValueError, match="illegal action"):
        Game(GameConfig(num_players=5), seed=0).step(ActionLayout(5).CONCEDE)


def test_conceding_reveals_keeps_the_team_and_teammates_can_win():
    """CR 104.3a, CR 702.187a/g, TR7.4: the conceding Guardian's identity is
    revealed to all (not an unveil), its last-known team stays the Leader's,
    and it wins with its team after it left."""
    g = at_main(deal5(), concession=True)
    L = g.layout
    hand(g, 1, "Wastes", "Shock")
    g.players[1].lands = 1
    give_priority(g, 1)
    assert g.decision.seat == 1 and L.CONCEDE in g.legal_actions()
    assert g.describe_action(L.CONCEDE) == "concede the game (you lose; CR 104.3a)"
    assert g.view(1).decision.options[-1].kind == "concede"
    g.step(L.CONCEDE)
    p = g.players[1]
    assert p.has_lost and p.identity.face_up and p.identity.known_by == set(range(5))
    assert p.team == Team.LEADER and p.role == Role.GUARDIAN
    assert [e["reason"] for e in g.log if e["event"] == "loses"] == ["concede"]
    assert not [e for e in g.log if e["event"] == "unveil"]
    assert seat_view(g, 3).players[1].identity == "The Bodyguard"
    assert not g.is_over and g.current_player != 1
    assert g.actions[-1] == L.CONCEDE and g.concessions == []          # recorded as an action
    g.lose([2, 3, 4])
    assert g.is_over and g.winners == {0, 1}


def test_a_conceding_leader_takes_the_guardians_down_despite_a_loss_replacement():
    """TR6.3 + TR6.10: He Who Comes To Save The Day replaces the Leader's next
    loss this turn, but a concession is never replaced: the Leader leaves, the
    Guardian loses with it (the Leader team's loss), the Assassins win."""
    g = at_main(deal5(T="He Who Comes To Save The Day"), concession=True)
    g.players[4].lands = 2
    hand(g, 4, "Shock")
    give_priority(g, 4)
    g.step(g.layout.UNVEIL)
    target_player(g, 0)
    resolve_all(g)
    assert [e["seat"] for e in g.effects if e["fn"] == "_savior_replace"] == [0]
    hand(g, 0, "Wastes", "Shock")
    give_priority(g, 0)
    assert g.decision.seat == 0
    g.step(g.layout.CONCEDE)
    assert g.players[0].has_lost and g.players[1].has_lost
    reasons = {e["seat"]: e["reason"] for e in g.log if e["event"] == "loses"}
    assert reasons == {0: "concede", 1: "team"}
    assert g.is_over and g.winners == {2, 3}


def test_a_conceding_masochist_loses():
    """TR6.10: The Treacherous Masochist's "would be the first to lose: win
    instead" doesn't apply to a concession."""
    g = at_main(deal5(T="The Treacherous Masochist"), concession=True)
    give_priority(g, 4)
    g.unveil(4)                    # Unveil {0}
    assert g.players[4].identity.face_up
    hand(g, 4, "Wastes", "Shock")
    g.players[4].lands = 1
    give_priority(g, 4)
    g.step(g.layout.CONCEDE)
    assert g.players[4].has_lost and not g.is_over and 4 not in g.winners


def test_concession_during_the_mulligans():
    """CR 104.3a: a player may concede at any time, before the first turn too;
    the mulligans go on without them."""
    g = mulligan_game(concession=True)
    L = g.layout
    g.step(L.PASS)                 # the Leader keeps
    assert g.decision.seat == 3
    g.step(L.CONCEDE)              # seat 3 concedes at its mulligan decision
    assert g.players[3].has_lost and g.decision.seat == 4 and g.decision.kind == MULLIGAN
    drive_mulligans(g, {})
    assert g.turn == 1 and g.players[3].hand == [] and not g.is_over


@pytest.mark.parametrize("config", [
    {"variant": "backstab_rumble"},
    {"variant": "backstab_rumble", "planechase": "per_player"},
    {"variant": "backstab_rumble", "planechase": "single"},
    {"game": "throne_magic", "talk": "none"},
    {"game": "throne_magic", "talk": "none", "planechase": "per_player"},
])
def test_a_starting_player_who_concedes_during_the_mulligans_takes_no_turn(config):
    """CR 104.3a, CR 800.4: where the starting player's concession does not end the game
    (no Leader: Backstab Rumble, Throne Magic), the first turn is the next player's in turn
    order who is still in the game; a turn never begins for a seat that left, and the turns
    go on in turn order from there (regression: the new starting player took the second turn
    too, the turn order counting on from the seat that left).  With
    Planechase's decks one a player (CR 901.10), the conceding starter's planar deck left
    with them, and the starting plane is the new starting player's (regression: an
    IndexError popping the leaver's empty deck, found by fuzzing option combinations)."""
    g = Game(GameConfig(num_players=6, concession=True, **config), seed=3)
    start = g.active
    assert g.decision.kind == MULLIGAN and g.decision.seat == start
    g.step(g.layout.CONCEDE)
    assert g.players[start].has_lost and not g.is_over
    drive_mulligans(g, {})
    first = (start + 1) % 6
    turns = [e["seat"] for e in g.log if e["event"] == "turn"]
    assert g.turn == 1 and g.active == first and turns == [first]
    if g.planar is not None:
        plane = [e for e in g.log if e["event"] == "starting_plane"]
        assert [e["seat"] for e in plane] == [first] and g.planar.controller == first
        assert g.planar.face_up is not None
    while g.turn < 4 and not g.is_over:     # then the turn order goes on from the new starting player
        g.step(g.layout.PASS if g.layout.PASS in g.legal_actions() else g.legal_actions()[0])
    turns = [e["seat"] for e in g.log if e["event"] == "turn"]
    assert turns == [first, (first + 1) % 6, (first + 2) % 6, (first + 3) % 6], (start, turns)


def test_out_of_turn_concession_is_replayed():
    """Game.concede stays callable by a UI at any time, also out of turn; it is
    kept in the replay (``concessions``) so that from_json reproduces it."""
    g = mulligan_game(max_turns=6)
    rng = random.Random(2)
    while g.turn < 2:
        g.step(rng.choice(g.legal_actions()))
    assert not g.is_over
    other = next(s for s in (4, 0, 1, 3) if s != g.current_player and not g.players[s].has_lost)
    k = len(g.actions)
    g.concede(other)
    assert g.concessions == [[k, other]]
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    h = Game.from_json(g.to_json())
    assert h.digest() == g.digest() and h.players[other].has_lost and h.concessions == g.concessions


def test_concede_bad_input_names_the_rule():
    """CR 104.3a: conceding when the game is over, a second time, or for a seat
    that does not exist raises ValueError naming the rule."""
    g = mulligan_game()
    g.concede(0)
    with pytest.raises(ValueError, match=r"CR 104\.3a.*already left"):
        g.concede(0)
    with pytest.raises(ValueError, match=r"CR 104\.3a"):
        g.concede(7)
    with pytest.raises(ValueError, match=r"CR 104\.3a"):
        g.concede(-1)
    g.lose([1, 3, 4])
    assert g.is_over
    with pytest.raises(ValueError, match=r"CR 104\.3a.*game is over"):
        g.concede(2)


def test_a_seat_that_lost_and_is_leaving_is_not_offered_concede():
    """CR 907.8a: a loser's identity-sourced objects resolve before it leaves; a
    decision it takes meanwhile (a target for its trigger) must not offer
    CONCEDE, which it can no longer do (``Game.concede`` refuses it).  Found in
    random play (10 players, concession on: tests/test_fuzz.py's concession
    games, seeds 50059 and 51011, check it at every decision); here the leaving
    seat's decision is set up directly: the same decision gets CONCEDE from a
    seat in the game, and not once the seat is leaving or has lost."""
    g = Game(GameConfig(num_players=5, concession=True, mulligans="none"), seed=3)
    d = g.decision
    assert g.layout.CONCEDE in [a for a, _ in d.options]
    plain = [(a, p) for a, p in d.options if a != g.layout.CONCEDE]
    for mark in ("leaving", "lost"):
        d.options, d._index = list(plain), None
        if mark == "leaving":
            g.leaving.append(d.seat)
        else:
            g.leaving.clear()
            g.players[d.seat].has_lost = True
        g._offer_concession(d)
        assert g.layout.CONCEDE not in [a for a, _ in d.options], mark
    with pytest.raises(ValueError, match="CR 104.3a"):
        g.concede(d.seat)


def test_concession_config_is_validated():
    """``GameConfig.concession``: False, True or a list of distinct seats;
    ``mulligans``: "london" or "none"."""
    assert GameConfig(concession=[0, 3]).concession == (0, 3)
    assert GameConfig(concession=[0, 3]).may_concede(3) and not GameConfig(concession=[0, 3]).may_concede(1)
    assert GameConfig(concession=True).may_concede(4) and not GameConfig().may_concede(0)
    for bad in ([5], [1, 1], "yes", 1):
        with pytest.raises(ValueError, match="GameConfig.concession"):
            GameConfig(concession=bad)
    with pytest.raises(ValueError, match="GameConfig.mulligans"):
        GameConfig(mulligans="paris")
    assert GameConfig.from_dict(GameConfig(concession=(2,)).to_dict()).concession == (2,)


# ---------------------------------------------------------------------------- the terminal UI
def _session(tmp_path, answers: str, **config):
    import io

    from rich.console import Console

    from table.terminal import TerminalGame

    out = io.StringIO()
    console = Console(file=out, width=300, highlight=False)
    s = TerminalGame(GameConfig(num_players=5, max_turns=12, **config), seed=7, human_seat=2,
                    opponent_specs=["heuristic", "random"], input_stream=io.StringIO(answers), console=console,
                    delay=0, replay_path=tmp_path / "game.json")
    return s, out


def test_play_concede_asks_first_and_only_the_person_may_concede(tmp_path):
    """``treachery play``: ``c`` then anything but ``y`` does not concede; ``c``
    then ``y`` concedes (CR 104.3a) and the game plays on to its end; only the
    person's seat has the CONCEDE action (the bots, a random one included,
    never see it); the mulligan decision comes first; the replay reproduces
    the game."""
    s, out = _session(tmp_path, "2\n1\nc\nn\nc\ny\n" + "1\n" * 5)
    assert s.config.concession == (2,)
    assert s.run() == "over"
    text = out.getvalue()
    assert "1. keep these 7 cards" in text and "2. take a mulligan" in text
    assert "(i: your identity, b: the board, ? NAME: a card's text, c: concede, q: quit)" in text
    assert "Not conceding." in text and "You concede (CR 104.3a)." in text
    assert "P2 CONCEDES and leaves the game" in text
    g = Game.from_json((tmp_path / "game.json").read_text())
    assert g.is_over and g.players[2].has_lost and g.players[2].mulligans == 1
    assert [e["seat"] for e in g.log if e["event"] == "loses" and e["reason"] == "concede"] == [2]
    assert g.config.concession == (2,) and g.concession_seats == frozenset({2})


def test_human_concede_word_without_concession(tmp_path):
    """Without the CONCEDE action (a table that doesn't allow it), ``c`` is
    refused with a message and a number is asked again."""
    import io

    from rich.console import Console

    from agents.human import HumanAgent

    g = mulligan_game()
    out = io.StringIO()
    bot = HumanAgent(input_stream=io.StringIO("c\n1\n"), console=Console(file=out, width=200))
    bot.reset(2)
    assert bot.act(g.observation(2), {"view": g.view(2)}) == g.layout.PASS
    assert "Conceding is not available at this table" in out.getvalue()


def test_a_policy_trained_on_another_layout_is_refused(tmp_path):
    """``policy:PATH`` refuses, with a clear error, a checkpoint whose sizes
    are not this layout's (the observation and action layouts changed with the
    mulligan decisions and the CONCEDE action); a matching one loads."""
    from agents.policy import PolicyNet, save_checkpoint

    n = 5
    obs, act = obs_layout(n).size, ActionLayout(n).size
    old = save_checkpoint(tmp_path / "old.pt", PolicyNet(obs - 14, act - 1, n, hidden=8), {"num_players": n})
    with pytest.raises(ValueError, match=rf"does not fit this treachery_env.*size {obs - 14} and {act - 1} "
                                         rf"actions for 5 players, but this version has {obs} and {act}"):
        agents.make(f"policy:{old}")
    ok = save_checkpoint(tmp_path / "ok.pt", PolicyNet(obs, act, n, hidden=8), {"num_players": n})
    bot = agents.make(f"policy:{ok}", seed=0)
    g = Game(GameConfig(num_players=n), seed=0)
    bot.reset(g.current_player)
    assert bot.act(g.observation(g.current_player), {}) in g.legal_actions()


def test_player_feature_blocks_do_not_overlap():
    """The per-player block has room for its last features (cards usable from
    other zones, mulligans taken): setting them never changes the next
    player's block (before, "usable elsewhere" wrote into the next block's
    "in game" feature)."""
    g = mulligan_game(mulligans="none")
    lay = obs_layout(5)
    base = encode(g, 0).copy()
    g.players[1].permissions = [{"card": cards.card("Shock"), "owner": 1, "zone": "graveyard", "free": False,
                                 "until_turn": None, "source": ""}]
    g.players[1].mulligans = 3
    o = encode(g, 0)
    diff = set(np.flatnonzero(o != base))
    b1 = lay.players + PLAYER_FEATURES
    assert diff == {b1 + PLAYER_FEATURES - 2, b1 + PLAYER_FEATURES - 1}
    assert o[b1 + PLAYER_FEATURES - 2] == pytest.approx(0.25) and o[b1 + PLAYER_FEATURES - 1] == pytest.approx(1.0)


@pytest.mark.parametrize("kind", ["attacker", "blocker"])
def test_an_out_of_turn_concession_asks_the_combat_declarations_afresh(kind):
    """A player concedes from outside the engine loop (a UI) while another declares attackers or
    blockers: the creatures the loser owned leave with them (CR 800.4a), so the declaration
    set aside is asked again with the creatures now there, not the old option list."""
    from identity_helpers import at_main, creature, deal5, pass_until
    g = at_main(deal5())
    bear = creature(g, 3, "Grove Bear")          # seat 3's, controlled by seat 0 (or blocking for seat 1)
    own = creature(g, 0 if kind == "attacker" else 1, "Grove Bear")
    if kind == "attacker":
        g.gain_control(bear, 0)
        bear.entered_turn = 0
        pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
        seat = 0
    else:
        g.gain_control(bear, 1)
        attacker = creature(g, 0, "Grove Bear")
        pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
        g.step(g.target_action(0, ("c", attacker)))
        g.step(g.layout.PLAYER + g.rel(0, 1))
        g.step(g.layout.PASS)
        pass_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER)
        seat = 1
    assert g.decision.seat == seat and any(p is bear for _, p in g.decision.options)
    g.concede(3)
    d = g.decision
    assert d.seat == seat and d.kind == (DecisionKind.ATTACKER if kind == "attacker" else DecisionKind.BLOCKER)
    assert not any(p is bear for _, p in d.options) and any(p is own for _, p in d.options)
    for a, p in d.options:
        if p is not None and hasattr(p, "controller"):
            assert g.target_action(seat, ("c", p)) == a          # slots as they are now
