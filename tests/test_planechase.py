"""Planechase (CR 901, ../shared/rules/cr-900-casual-variants-italian.txt) in Treachery and
Throne Magic: the planes' data, the options, the starting plane, the planar die, planeswalking,
the planar controller's succession, a plane leaving with its owner, phenomena (CR 704.6f), the
observation's block, views, text, replays, the bots, and fuzzed games with the invariants."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scenario import ASSASSINS, GUARDIANS, LEADERS, TRAITORS, PASS, events, make_game, pass_priority_until
from treachery_env import GameConfig, planes
from treachery_env.actions import ActionLayout
from treachery_env.engine import DecisionKind, Game
from treachery_env.engine.planechase import DIE_FACES, PLANAR_DIE
from treachery_env.observation import encode, obs_layout
from treachery_env.text import EVENT_KINDS, card_text, format_event, render

DEAL = (LEADERS[0], GUARDIANS[0], ASSASSINS[0], ASSASSINS[1], TRAITORS[0])


class ScriptedDie:
    """A stand-in for the game's random stream whose six-sided rolls (the planar die's,
    ``randrange(6)``) come from ``faces``; every other draw goes to the real stream."""

    def __init__(self, rng: random.Random, faces: list[str]):
        self._rng = rng
        self.faces = list(faces)

    def randrange(self, n: int, *a):
        if n == 6 and not a:
            return DIE_FACES.index(self.faces.pop(0))
        return self._rng.randrange(n, *a)

    def __getattr__(self, name):
        return getattr(self._rng, name)


def pc_game(mode: str = "single", faces: list[str] | None = None, lands: int = 3, **config) -> Game:
    """A 5-player Treachery game with Planechase at the first player's precombat main phase
    (scenario.make_game: fixed deal, ``lands`` untapped lands, a Shock in hand), its planar die
    rolling ``faces``."""
    g = make_game(DEAL, planechase=mode, lands=lands, **config)
    if faces is not None:
        g.rng = ScriptedDie(g.rng, faces)
    return g


def roll(g: Game) -> None:
    """The deciding (active) player takes the planar-die special action."""
    assert g.decision.index_of(g.layout.PLANAR) is not None, "the planar die is not offered"
    g.step(g.layout.PLANAR)


def set_face_up(g: Game, name: str, owner: int = -1) -> None:
    """Scenario set-up: ``name`` is the face-up planar card (taken out of its deck)."""
    pz = g.planar
    for d in pz.decks:
        if name in d:
            d.remove(name)
    deck = pz.deck_of(pz.owner)
    if pz.face_up is not None and pz.face_up != name:
        deck.insert(0, pz.face_up)
    pz.face_up = name
    pz.owner = owner
    pz.uid = g._new_uid()


def put_on_top(g: Game, seat: int, name: str) -> None:
    """Scenario set-up: ``name`` is the top card of ``seat``'s planar deck."""
    deck = g.planar.deck_of(seat)
    deck.remove(name)
    deck.append(name)


# ----------------------------------------------------------------------------- data and options
def test_planes_data():
    """12 planes and 2 phenomena with distinct names (CR 901.3), every ability in the engine's
    primitives, each plane with a chaos ability (CR 901.9b), each phenomenon with an encounter one."""
    from conftest import engine_ops

    assert len(planes.planes()) == 12 and len(planes.phenomena()) == 2
    assert len(set(planes.names())) == len(planes.names()) == 14
    ops = engine_ops()
    assert set(planes.PLANAR_PRIMITIVES) <= ops
    for card in planes.planes() + planes.phenomena():
        abilities = list(card.abilities) + ([card.chaos] if card.chaos else [])
        for ab in abilities:
            assert all(e["op"] in ops for e in ab.effects), card.name
        if card.is_phenomenon:
            assert card.chaos is None and [a.trigger for a in card.abilities] == ["encounter"]
        else:
            assert card.chaos is not None and card.chaos.trigger == "chaos" and card.chaos_text
    with pytest.raises(ValueError, match="unknown plane or phenomenon"):
        planes.get("Nowhere")


@pytest.mark.parametrize("kwargs, match", [
    ({"planechase": "double"}, r"GameConfig.planechase: must be one of \['single', 'per_player'\] .*; unset: no "
                               r"Planechase\), got 'double'"),
    ({"planechase": "single", "planar_deck": [c.name for c in planes.planes()[:9]]},
     r"Planechase without enough planes: a planar deck needs at least 10 cards \(CR 901.3, 901.16a\), got 9"),
    ({"planechase": "single", "planar_deck": [c.name for c in planes.planes()[:10]] + ["Emberfall Caldera"]},
     r"must have a different name \(CR 901.3, 901.16a\), but \['Emberfall Caldera'\]"),
    ({"planechase": "per_player", "planar_deck": ["Atlantis"] + list(planes.names())},
     r"GameConfig.planar_deck: unknown plane or phenomenon 'Atlantis'"),
    ({"planar_deck": list(planes.names())}, r"GameConfig.planar_deck: is a Planechase option"),
])
def test_config_errors(kwargs, match):
    """Bad Planechase options: one-line ValueErrors naming the field and the rule."""
    with pytest.raises(ValueError, match=match) as e:
        GameConfig(**kwargs)
    assert "\n" not in str(e.value)


def test_config_round_trip_and_throne_magic():
    """Planechase is an option of Treachery and of Throne Magic; the config round-trips."""
    for game in ("treachery", "throne_magic"):
        cfg = GameConfig(game=game, planechase="per_player", planar_deck=list(planes.names())[:11])
        assert GameConfig.from_dict(cfg.to_dict()) == cfg
        assert cfg.planar_deck == tuple(planes.names())[:11]


def test_layouts_unchanged_without_planechase():
    """Treachery's action and observation layouts stay as they were without Planechase; with it the
    PLANAR block (one action) follows HOLDING and the Planechase block ends the observation."""
    for n in (4, 5, 8):
        base = ActionLayout(n)
        assert Game(GameConfig(num_players=n), seed=1).layout.size == base.size
        pl = Game(GameConfig(num_players=n, planechase="single"), seed=1).layout
        assert pl.size == base.size + 1 and pl.PLANAR == base.TALK and pl.TALK == base.TALK + 1
        assert pl.decode(pl.PLANAR) == ("PLANAR", 0, 0)
        L = obs_layout(n, "treachery", planechase=True)
        assert L.planar == obs_layout(n).size and L.size == L.planar + len(planes.names()) + 2 * n + 1 + 1 + 2 + 1 + 1
        T = obs_layout(n, "throne_magic", planechase=True)
        assert T.planar == obs_layout(n, "throne_magic").size


# ----------------------------------------------------------------------------- CR 901.5
def test_starting_plane_after_mulligans():
    """CR 901.5: once every player kept their opening hand the starting player flips the top of the
    planar deck; phenomena go to the bottom until a plane is face up; nothing triggers."""
    g = Game(GameConfig(num_players=5, planechase="single", mulligans="london"), seed=3)
    pz = g.planar
    assert g.mulligan_state is not None and pz.face_up is None
    deck = pz.decks[0]
    first_plane = next(nm for nm in reversed(deck) if not planes.get(nm).is_phenomenon)
    for ph in ("Cinder Convergence", "Wellspring Surge"):     # two phenomena on top
        deck.remove(ph)
        deck.append(ph)
    while g.mulligan_state is not None:
        g.step(PASS if g.decision.index_of(PASS) is not None else g.decision.options[0][0])
    assert pz.face_up == first_plane and pz.controller == g.active
    assert deck[:2] == ["Cinder Convergence", "Wellspring Surge"]      # the first flipped first to the bottom
    assert [e["name"] for e in events(g, "plane_to_bottom")] == ["Wellspring Surge", "Cinder Convergence"]
    kinds = [e["event"] for e in g.log]
    assert kinds.index("starting_plane") < kinds.index("turn"), "flipped before the first turn begins"
    first_turn = kinds.index("turn")
    assert not any(e["event"] == "trigger" for e in g.log[:first_turn]), "nothing triggers (CR 901.5)"
    from_planes = [it for it in g.stack + g.pending_triggers if it.key == "plane"]
    assert all(it.source == first_plane and g._planar_ability(it).trigger == "upkeep" for it in from_planes)


# ----------------------------------------------------------------------------- CR 901.9
def test_roll_costs_zero_one_two_in_a_turn():
    """CR 901.9: the N-th roll of a turn costs {N-1}: 0, 1, 2; the count starts again next turn;
    blank does nothing and the roller keeps priority (CR 901.9a)."""
    g = pc_game(faces=["blank"] * 4, lands=3)
    me = g.active
    p = g.players[me]
    for cost, tapped in ((0, 0), (1, 1), (2, 3)):
        assert g.decision.seat == me and g.planar.rolls == cost
        roll(g)
        assert p.lands_tapped == tapped and g.decision.seat == me
        assert events(g, "planar_die")[-1]["cost"] == cost and events(g, "planar_die")[-1]["face"] == "blank"
    assert g.decision.index_of(g.layout.PLANAR) is None, "the fourth roll costs 3: no mana left"
    pass_priority_until(g, lambda g: g.active != me and g.phase == "main1")
    assert g.planar.rolls == 0 and g.planar.controller == g.active


def test_roll_only_in_own_main_phase_with_empty_stack():
    """CR 901.9: only the active player, in a main phase, with priority and an empty stack."""
    g = pc_game(faces=["blank"])
    me = g.active
    g.step(g.layout.HAND)           # cast Shock: the stack is not empty
    while g.decision.kind != DecisionKind.PRIORITY:
        g.step(g.decision.options[-1][0])
    assert g.stack
    seen = 0
    while g.stack:
        d = g.decision
        assert d.index_of(g.layout.PLANAR) is None
        seen += 1
        g.step(PASS)
    pass_priority_until(g, lambda g: g.phase == "end")
    assert all(g.decision.index_of(g.layout.PLANAR) is None for _ in [0])
    assert g.active == me and seen


def test_upkeep_ability_of_the_face_up_plane():
    """CR 901.7, 901.6: the face-up plane's "at the beginning of your upkeep" ability triggers at the
    planar controller's upkeep, the active player's, from the command zone (Tinkers' Bazaar: a
    Treasure); the other players get nothing."""
    g = pc_game()
    set_face_up(g, "Tinkers' Bazaar")
    first = g.active
    before = [p.tokens["Treasure"] for p in g.players]
    pass_priority_until(g, lambda g: g.active != first and g.phase == "draw")
    nxt = g.active
    assert g.planar.controller == nxt
    assert [p.tokens["Treasure"] - b for p, b in zip(g.players, before)] == [int(s == nxt) for s in range(5)]


@pytest.mark.parametrize("guardian_face_up", [False, True])
def test_a_planes_opponents_are_the_planar_controllers_by_the_identities(guardian_face_up):
    """CR 901.6 with CR 907.7g: "you" is the planar controller, here the Guardian at their upkeep
    (Bloodmire Fen: each opponent loses 1 life); players are opponents while their identities are
    face down, so the face-up Leader loses 1 too while the Guardian is face down and nothing once
    the Guardian is face up (teammates); the Assassins and the Traitor lose 1 either way."""
    g = pc_game()
    assert g.active == 0 and g.players[0].identity.face_up
    g.players[1].identity.face_up = guardian_face_up
    set_face_up(g, "Bloodmire Fen")
    before = [p.life for p in g.players]
    pass_priority_until(g, lambda g: g.active == 1 and g.phase == "draw")
    assert g.planar.controller == 1
    assert [b - p.life for p, b in zip(g.players, before)] == [int(not guardian_face_up), 0, 1, 1, 1]


def test_chaos_trigger_resolves():
    """CR 901.9b: chaos triggers the face-up plane's chaos ability, controlled by the roller, on the
    stack; it resolves (Library of Whispers: draw two cards)."""
    g = pc_game(faces=["chaos"])
    me = g.active
    set_face_up(g, "Library of Whispers")
    hand = len(g.players[me].hand)
    roll(g)
    top = g.stack[-1]
    assert top.key == "plane" and top.source == "Library of Whispers" and top.controller == me
    pass_priority_until(g, lambda g: not g.stack)
    assert len(g.players[me].hand) == hand + 2


def test_planeswalk_moves_the_plane_to_the_bottom_and_flips_the_next():
    """CR 901.9c, 901.8, 701.31, 901.12: the planeswalker face triggers the planeswalking ability
    (no source); it resolves: the face-up plane goes to the bottom, the next one is flipped (a new
    object, CR 901.7a), its "when you planeswalk to" ability triggers, and damage prevention that
    lasts until a player planeswalks ends."""
    g = pc_game(faces=["chaos", "planeswalk"])
    me = g.active
    set_face_up(g, "Sanctum of Mending")
    roll(g)                         # chaos: prevent all damage to me until a player planeswalks
    pass_priority_until(g, lambda g: not g.stack)
    assert any(s.get("until") == "planeswalk" for s in g.shields)
    assert g.deal_damage(me, 3) == 0
    put_on_top(g, me, "Stormspire Reach")
    uid = g.planar.uid
    roll(g)
    top = g.stack[-1]
    assert top.key == "planeswalk" and top.source == PLANAR_DIE and top.controller == me
    pass_priority_until(g, lambda g: not any(it.key == "planeswalk" for it in g.stack))
    pz = g.planar
    assert pz.face_up == "Stormspire Reach" and pz.decks[0][0] == "Sanctum of Mending" and pz.uid != uid
    assert not any(s.get("until") == "planeswalk" for s in g.shields)
    assert events(g, "planeswalk")[-1] == {**events(g, "planeswalk")[-1], "seat": me, "source": "Sanctum of Mending"}
    assert any(e.get("key") == "plane" and e["source"] == "Stormspire Reach" for e in events(g, "trigger")) \
        or events(g, "trigger_removed")         # "tap target creature": removed without a creature


def test_phenomenon_then_planeswalk_away():
    """CR 704.6f: planeswalking to a phenomenon triggers its encounter ability; once that has left
    the stack, the planar controller planeswalks again."""
    g = pc_game(faces=["planeswalk"])
    me = g.active
    put_on_top(g, me, "Verdant Sprawl")
    put_on_top(g, me, "Wellspring Surge")
    life, hand = g.players[me].life, len(g.players[me].hand)
    roll(g)
    pass_priority_until(g, lambda g: g.planar.face_up == "Wellspring Surge")
    assert any(it.key == "plane" and it.source == "Wellspring Surge" for it in g.stack)
    pass_priority_until(g, lambda g: not g.stack)
    assert g.players[me].life == life + 2 and len(g.players[me].hand) == hand + 2
    assert g.planar.face_up == "Verdant Sprawl" and g.planar.decks[0][0] == "Wellspring Surge"


# ----------------------------------------------------------------------------- CR 901.6, 901.10
def test_planar_controller_leaving_hands_control_to_the_next_player():
    """CR 901.6: a planar controller about to leave first makes the next player in turn order who is
    not leaving the planar controller; with the single deck (CR 901.16b) the plane stays."""
    g = pc_game()
    me = g.active
    face = g.planar.face_up
    g.lose([me, (me + 1) % 5])
    assert g.planar.controller == (me + 2) % 5
    assert g.planar.face_up == face and not events(g, "plane_leaves")
    loss = min(k for k, e in enumerate(g.log) if e["event"] == "loses")
    assert [e["seat"] for e in g.log[loss:] if e["event"] == "planar_controller"] == [(me + 2) % 5], \
        "straight to the next player not leaving"


def test_face_up_owner_leaving_flips_a_new_plane_at_once():
    """CR 901.10, 901.10a, 901.12a (a planar deck per player): the face-up plane's owner leaves: the
    plane and their planar deck leave the game, a planeswalking ability whose plane it was ceases to
    exist, and the planar controller flips the top of their own planar deck at once."""
    g = pc_game("per_player", faces=["planeswalk"])
    me = g.active
    other = (me + 2) % 5
    set_face_up(g, "Bloodmire Fen", owner=other)
    g.planar.decks[other].remove("Bloodmire Fen") if "Bloodmire Fen" in g.planar.decks[other] else None
    nxt = g.planar.decks[me][-1]
    roll(g)
    assert g.stack[-1].key == "planeswalk"
    g.lose(other)
    assert not any(it.key == "planeswalk" for it in g.stack), "CR 901.10a"
    pz = g.planar
    assert pz.face_up == nxt and pz.owner == me and pz.decks[other] == []
    assert events(g, "plane_leaves")[-1]["name"] == "Bloodmire Fen"
    assert "Bloodmire Fen" not in pz.decks[me]


def test_phenomenon_ability_stays_when_its_controller_leaves():
    """CR 901.11b: a phenomenon's encounter ability on the stack stays there, controlled by the new
    planar controller, when its controller leaves; it resolves for them, then CR 704.6f."""
    g = pc_game(faces=["planeswalk"])
    set_face_up(g, "Mistveil Shallows")         # a plane whose upkeep ability asks nothing
    first = g.active
    pass_priority_until(g, lambda g: g.active != first and g.phase == "main1" and g.decision.seat == g.active)
    me = g.active                               # the Guardian (seat 1): the game goes on without it
    put_on_top(g, me, "Verdant Sprawl")
    put_on_top(g, me, "Wellspring Surge")
    roll(g)
    pass_priority_until(g, lambda g: any(it.key == "plane" and it.source == "Wellspring Surge" for it in g.stack))
    hands = [len(p.hand) for p in g.players]
    g.lose(me)
    heir = g.planar.controller
    assert heir == (me + 1) % 5 and not g.players[heir].has_lost
    item = next(it for it in g.stack if it.key == "plane")
    assert item.controller == heir
    hand = hands[heir]
    pass_priority_until(g, lambda g: not g.stack)
    assert len(g.players[heir].hand) == hand + 2 and g.planar.face_up == "Verdant Sprawl"


def test_planar_decks_shuffled_at_the_start():
    """CR 901.4: each planar deck is shuffled at the start of the game (the game's seed), each
    player's on its own (CR 901.3); the die has one chaos, one planeswalker and four blank faces
    (CR 901.3a)."""
    orders = {tuple(Game(GameConfig(planechase="single"), seed=s).planar.decks[0]) for s in range(6)}
    assert len(orders) > 1
    g = Game(GameConfig(planechase="per_player", mulligans="none"), seed=1)
    assert len({tuple(d) for d in g.planar.decks}) > 1
    assert sorted(DIE_FACES) == ["blank"] * 4 + ["chaos", "planeswalk"]


def test_talk_actions_follow_the_layout():
    """Table talk's actions sit in the TALK block of the game's own layout, one further on with the
    PLANAR block, whichever game of the same table size came first in the process (the talk
    option tables are shared by every game: keyed by the TALK offset too)."""
    for cfg in (GameConfig(num_players=5, planechase="single"), GameConfig(num_players=5),
                GameConfig(num_players=5, planechase="per_player")):
        g = Game(cfg, seed=7)
        r = random.Random(7)
        talked = 0
        while not g.is_over and talked < 20 and len(g.actions) < 2000:
            d = g.decision
            for a, payload in d.options:
                if isinstance(payload, tuple) and payload[0] == "talk":
                    kind, subject, role = payload[1]
                    rel = 0 if subject is None else (subject - d.seat) % g.n
                    assert g.layout.talk_decode(a) == (kind, rel, role or 0), (cfg.planechase, a, payload)
                    talked += 1
            g.step(r.choice(g.legal_actions()))
        assert talked


# ----------------------------------------------------------------------------- information, views, text
def planar_public(g: Game, seat: int):
    """What ``seat`` receives about Planechase: the view's block and the observation's tail."""
    L = obs_layout(g.n, g.config.game, planechase=True)
    return g.view(seat).planechase, g.observation(seat)["observation"][L.planar:].tobytes()


def test_hidden_information():
    """The planar facts are public and the same for every seat; they do not depend on the face-down
    identities (swapping two) nor on the planar deck's hidden order (shuffling it)."""
    g = Game(GameConfig(num_players=6, planechase="per_player", starting_life=8), seed=11)
    r = random.Random(11)
    for _ in range(300):
        if g.is_over:
            break
        g.step(r.choice(g.legal_actions()))
    base = [planar_public(g, s) for s in range(g.n)]
    assert len({v for v, _ in base}) == 1
    h = g.clone()
    down = [p for p in h.players if not p.has_lost and not p.identity.face_up]
    if len(down) >= 2:
        a, b = down[0], down[1]
        a.identity, b.identity = b.identity, a.identity
    for d in h.planar.decks:
        random.Random(5).shuffle(d)
    assert [planar_public(h, s) for s in range(h.n)] == base


def test_observation_prefix_is_the_game_encoding():
    """With Planechase the observation is the game's own (Treachery's encoder) plus the block."""
    g = pc_game()
    for s in range(5):
        o = g.observation(s)["observation"]
        assert o.shape == (obs_layout(5, "treachery", planechase=True).size,)
        assert np.array_equal(o[:obs_layout(5).size], encode(g, s))
    L = obs_layout(5, "treachery", planechase=True)
    o = g.observation(g.active)["observation"]
    f = L.planar_fields
    assert o[f["face_up"] + planes.names().index(g.planar.face_up)] == 1.0 and o[f["controller"]] == 1.0


def test_views_text_and_replay():
    """SeatView's planechase block (compiled and Python builders agree), the text's lines, each
    event in words, card_text of every planar card and the die, and a replay's round trip."""
    from treachery_env.view import PythonViewBuilder, SeatView, ViewBuilder

    for name in planes.names() + (PLANAR_DIE,):
        assert card_text(name).startswith(name)
    g = Game(GameConfig(num_players=5, planechase="single", starting_life=8), seed=4)
    r = random.Random(4)
    vb = ViewBuilder(g)
    while not g.is_over and len(g.actions) < 400:
        s = g.decision.seat
        assert vb.build(s) == PythonViewBuilder(g).build(s)
        legal = g.legal_actions()
        a = g.layout.PLANAR if g.layout.PLANAR in legal and r.random() < 0.5 else r.choice(legal)
        g.describe_action(a)
        g.step(a)
    v = g.view(0)
    assert v.planechase.face_up == g.planar.face_up and SeatView.from_dict(v.to_dict()) == v
    assert "planar controller: P" in render(g, 0)
    kinds = {e["event"] for e in g.log}
    assert {"planar_die", "planeswalk", "plane", "starting_plane"} <= kinds
    for e in g.log:
        assert e["event"] in EVENT_KINDS
        format_event(e)
    again = Game.from_json(g.to_json())
    assert again.digest() == g.digest() and again.planar.face_up == g.planar.face_up
    assert "planechase" not in Game(GameConfig(), seed=0).view(0).to_dict()


# ----------------------------------------------------------------------------- bots and fuzz
def check_planar(g: Game, deck_size: int) -> None:
    """Invariants of the planar state between decisions (CR 901.3-901.6, 901.10, 901.16)."""
    pz = g.planar
    if g.turn == 0:
        return
    assert pz.face_up is not None
    if not g.is_over:
        assert not g.players[pz.controller].has_lost, "the planar controller is in the game (CR 901.6)"
        if not g.players[g.active].has_lost:
            assert pz.controller == g.active
    if pz.mode == "single":
        assert len(pz.decks[0]) + 1 == deck_size and len(set(pz.decks[0])) == len(pz.decks[0])
    else:
        for s, d in enumerate(pz.decks):
            own = len(d) + (pz.owner == s)
            assert own == (0 if g.players[s].has_lost else deck_size), (s, own)
        assert not g.players[pz.owner].has_lost or g.is_over


@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_bots_play_planechase(game):
    """A few dozen games of the random, heuristic and belief bots with Planechase (both deck modes)
    at low life, the engine's invariants (tests/test_fuzz.py, tests/test_throne_magic.py) and the
    planar ones at every decision; the bots roll the die."""
    import agents
    from test_fuzz import check_invariants
    from test_throne_magic import check_throne_invariants

    rolls = ended = 0
    for seed in range(12):
        n = 4 + seed % 4
        cfg = GameConfig(num_players=n, game=game, planechase=("single", "per_player")[seed % 2],
                         starting_life=6, max_turns=40, commander=False)
        g = Game(cfg, seed=seed)
        names = ("random", "heuristic", "belief")
        bots = [agents.make(names[(seed + s) % 3], seed=s) for s in range(n)]
        for s, b in enumerate(bots):
            b.reset(s)
        deck = len(planes.names())
        while not g.is_over:
            (check_invariants if game == "treachery" else check_throne_invariants)(g)
            check_planar(g, deck)
            s = g.decision.seat
            obs = g.observation(s)
            g.step(int(bots[s].act(obs, {"view": g.view(s)})))
        check_planar(g, deck)
        rolls += len(events(g, "planar_die"))
        ended += not g.truncated
    assert rolls > 50 and ended >= 3, (rolls, ended)


def test_search_bots_and_policies_refuse_planechase(policy_4p):
    """The search bots (their determinizations would see the planar decks' hidden order) and a
    policy trained without Planechase refuse a Planechase game in one line."""
    import agents
    from agents.policy import PolicyAgent

    g = Game(GameConfig(num_players=4, planechase="single"), seed=0)
    s = g.decision.seat
    obs, info = g.observation(s), {"view": g.view(s)}
    for name in ("lookahead", "ismcts"):
        bot = agents.make(name, seed=0)
        bot.reset(s)
        with pytest.raises(ValueError, match="Planechase") as e:
            bot.act(obs, info)
        assert "\n" not in str(e.value)
    bot = PolicyAgent(policy_4p, seed=0)
    bot.reset(s)
    with pytest.raises(ValueError, match="trained on games without Planechase") as e:
        bot.act(obs, info)
    assert "\n" not in str(e.value)


def test_table_option():
    """``--planechase`` of the table options (``treachery play``/``evaluate``) sets the option."""
    import argparse

    from table.options import add_game_arguments, game_config_from_args

    p = argparse.ArgumentParser()
    add_game_arguments(p)
    assert game_config_from_args(p.parse_args(["--planechase", "per_player"])).planechase == "per_player"
    assert game_config_from_args(p.parse_args(["--game", "throne_magic", "--planechase", "single"])).planechase \
        == "single"
    assert game_config_from_args(p.parse_args([])).planechase is None


@pytest.mark.parametrize("game", ["treachery", "throne_magic"])
def test_environment(game):
    """The environment with Planechase: its spaces hold the PLANAR action and the Planechase block;
    observations, masks and the privileged state fit them as the game goes on."""
    from treachery_env.env import raw_env

    env = raw_env(num_players=4, game=game, planechase="single", max_turns=8)
    env.reset(seed=2)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (obs_layout(4, game, planechase=True).size,)
    assert env.action_space("player_0").n == env.layout.size == ActionLayout(4, 0, True).size
    r = random.Random(2)
    for name in env.agent_iter(max_iter=300):
        obs, _, term, trunc, _ = env.last()
        assert obs["observation"].shape == space["observation"].shape and env.state().shape == env.state_space.shape
        env.step(None if term or trunc else r.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def test_terminal_play(tmp_path, monkeypatch, capsys):
    """``treachery play --planechase single``: a whole game in the terminal, the plane on the board,
    the die among the person's options; the replay plays back."""
    from test_play import SMALL, Typist, play

    replay = tmp_path / "game.json"
    status, out, err = play(monkeypatch, capsys, [*SMALL, "--seed", "2", "--planechase", "single",
                                                  "--replay", str(replay)], Typist(["2", "1"]))
    assert status == 0 and "Traceback" not in out + err
    assert "planar controller: P" in out and "roll the planar die (costs {0}" in out
    g = Game.from_json(replay.read_text())
    assert g.is_over and g.planar is not None


def test_a_planar_may_ability_has_its_purpose_in_the_planechase_block():
    """A planar card's "may" ability asks its controller (YES_NO, ``_h_planar_may``): the deciding
    seat's observation says so in the Planechase block's purpose field (Treachery's own purposes
    stay as the shipped checkpoints read them); the other seats' do not."""
    from treachery_env.observation import PLANAR_PURPOSES, config_layout
    g = pc_game()
    set_face_up(g, "Library of Whispers")          # "At the beginning of your upkeep, you may draw a card."
    for _ in range(400):
        if g.decision is not None and g.decision.handler == "_h_planar_may":
            break
        g.step(PASS)
    else:
        raise AssertionError("the plane's may ability never asked")
    L = config_layout(g.config)
    k = L.planar_fields["purpose"] + PLANAR_PURPOSES.index("_h_planar_may")
    asked = g.decision.seat
    assert [g.observation(s)["observation"][k] for s in range(g.n)] == [float(s == asked) for s in range(g.n)]
