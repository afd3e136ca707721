"""The eight rare Assassins of TRD-2025 (treachery_env/identity_cards/assassins_rare.py):
The Corpse Snatcher, The Madwoman, The Necromancer, The Physician, The
Pyromancer, The Rebel General, The Villain, The War Shaman.

Unveil costs and effects are checked against the card facts of
``shared/reference/identities.json``.  Scenarios use the deal of
``identity_helpers.deal5`` (seat 0 Leader, 1 Guardian, 2 and 3 Assassins,
4 Traitor) from the Leader's first main phase (``identity_helpers.at_main``);
cards that work "only on its controller's turn" are unveiled after making
their seat the active player (``own_turn``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from treachery_env import cards
from treachery_env import identities as ids
from treachery_env.config import GameConfig
from treachery_env.engine import DecisionKind, Game
from treachery_env.identity_abilities import IMPLEMENTATIONS
from treachery_env.rules import Role

from identity_helpers import (at_main, creature, deal5, give_priority, is_priority, options, pass_until, pick,
                              resolve_all, target_creature, target_player, unveil_actions)
from test_fuzz import check_invariants, check_result

REF_PATH = Path(__file__).resolve().parents[2] / "shared" / "reference" / "identities.json"
if not REF_PATH.exists():  # pragma: no cover - layout of another checkout
    REF_PATH = Path("/work/shared/reference/identities.json")
REF = {c["name"]: c for c in json.loads(REF_PATH.read_text("utf-8"))}

MINE = ["The Corpse Snatcher", "The Madwoman", "The Necromancer", "The Physician", "The Pyromancer",
        "The Rebel General", "The Villain", "The War Shaman"]
OWN_TURN = ["The Necromancer", "The Pyromancer", "The Rebel General", "The Villain"]


def game_with(name: str, seed: int = 0):
    """A game at the Leader's main phase with ``name`` dealt to seat 2 (the
    Leader, The Old Ruler, set back from 60 to 40 life for round numbers)."""
    g = at_main(deal5(A1=name), seed=seed)
    g.players[0].life = 40
    return g


def own_turn(g, seat: int) -> None:
    """Make ``seat`` the active player in its precombat main phase (scenario set-up)."""
    g.active = seat
    g.phase = "main1"
    g.players[seat].hand = [cards.card("Shock")]      # a real choice at each priority
    give_priority(g, seat)


def unveil(g, seat: int, x: int = 0) -> None:
    """``seat`` (given exactly its unveil cost in untapped lands) unveils with X."""
    c = REF[g.players[seat].identity.name]["unveil_cost"]
    g.players[seat].lands = c.get("mana", 0) + c.get("x_mana", 0) * x
    g.players[seat].lands_tapped = 0
    give_priority(g, seat)
    assert g.decision.seat == seat and x in unveil_actions(g)
    g.step(g.layout.UNVEIL + x)


def lib(g, seat: int, *top: str, filler: int = 10) -> None:
    """Set ``seat``'s library: ``top[0]`` is the top card, then the rest, then Wastes."""
    g.players[seat].library = [cards.card("Wastes")] * filler + [cards.card(n) for n in reversed(top)]


def names(cs) -> list:
    return sorted(c.name for c in cs)


# ============================================================== card data and unveil costs
@pytest.mark.parametrize("name", MINE)
def test_card_data_and_registration(name):
    """Card: role, rarity, cost and (no) Undercover match the card facts
    (identities.json; TR3.1); the card is implemented (registered)."""
    ref, card = REF[name], ids.get(name)
    assert name in IMPLEMENTATIONS
    assert card.role == Role.ASSASSIN and card.rarity == "rare" == ref["rarity"]
    assert card.undercover is False and ref["undercover"]["has_undercover"] is False
    rc = ref["unveil_cost"]
    assert (card.unveil_cost.mana, card.unveil_cost.x) == (rc.get("mana", 0), rc.get("x_mana", 0))


@pytest.mark.parametrize("name", MINE)
def test_unveil_cost_exact(name):
    """CR 702.187c: the unveil cost is exactly the card's ({4} Corpse Snatcher and
    Madwoman, {6} Necromancer and Pyromancer, {5} Rebel General, Villain and War
    Shaman, {X} Physician): one mana short is not offered and ``Game.unveil``
    refuses; the exact amount is offered and is what gets paid.  No Undercover
    (TR5: Assassins unveil at their first priority)."""
    g = game_with(name)
    p = g.players[2]
    rc = REF[name]["unveil_cost"]
    x = 1 if rc.get("x_mana") else 0
    cost = rc.get("mana", 0) + rc.get("x_mana", 0) * x
    assert cost == {"The Corpse Snatcher": 4, "The Madwoman": 4, "The Necromancer": 6, "The Physician": 1,
                    "The Pyromancer": 6, "The Rebel General": 5, "The Villain": 5, "The War Shaman": 5}[name]
    p.lands = cost - 1
    give_priority(g, 2)
    assert x not in [a - g.layout.UNVEIL for a, _ in g._priority_options(2)
                     if g.layout.UNVEIL <= a < g.layout.UNVEIL + 16]
    with pytest.raises(ValueError, match="cannot pay"):
        g.unveil(2, x)
    assert not p.identity.face_up and p.lands_tapped == 0
    p.lands = cost
    give_priority(g, 2)
    assert x in unveil_actions(g) and x + 1 not in unveil_actions(g)
    g.step(g.layout.UNVEIL + x)
    assert p.identity.face_up and p.identity.x == x and p.lands_tapped == cost


@pytest.mark.parametrize("name", OWN_TURN)
def test_only_on_its_controllers_turn_is_an_intervening_if(name):
    """Card ("only on its controller's turn"), CR 603.4: unveiled on the Leader's
    turn, the "when unveiled" ability doesn't trigger at all: nothing goes on the
    stack, nobody is asked a target, priority comes straight back."""
    g = game_with(name)
    creature(g, 4, "War Mammoth")
    g.players[0].graveyard = [cards.card("Rage Ogre")]
    unveil(g, 2)
    assert g.players[2].identity.face_up and is_priority(g)
    assert not g.stack and not [e for e in g.log if e["event"] == "trigger" and e.get("source") == name]


def test_physician_x_zero_is_free_and_x_range():
    """Card: The Physician costs {X} (CR 702.187e): X = 0 is free, and X goes as
    high as the mana."""
    g = game_with("The Physician")
    g.players[2].lands = 3
    give_priority(g, 2)
    assert unveil_actions(g) == [0, 1, 2, 3]


# ============================================================== The Corpse Snatcher
def test_corpse_snatcher_mills_two_each_then_reanimates_for_target_player():
    """The Corpse Snatcher: every player mills two (CR 701.13); then (reflexive
    trigger, target player chosen as it goes on the stack) its controller
    chooses a creature card in any graveyard and it enters under the target
    player's control; the owner keeps ownership."""
    g = game_with("The Corpse Snatcher")
    for s in range(5):
        lib(g, s, "Wastes", "Shock")
    lib(g, 3, "Wastes", "War Mammoth")
    lib(g, 0, "Grove Bear", "Wastes")
    unveil(g, 2)
    resolve_all(g)
    assert all(len(g.players[s].graveyard) == 2 for s in range(5))
    assert all(len(g.players[s].library) == 10 for s in range(5))
    assert g.decision.kind == DecisionKind.TARGET and g.decision.seat == 2
    target_player(g, 4)
    resolve_all(g)
    d = g.decision
    assert d.kind == DecisionKind.CARD and d.seat == 2
    assert sorted((s, c.name) for s, c in options(g).values()) == [(0, "Grove Bear"), (3, "War Mammoth")]
    pick(g, lambda o: o[1].name == "War Mammoth")
    (m,) = g.players[4].creatures
    assert m.name == "War Mammoth" and m.owner == 3 and m.controller == 4
    assert names(g.players[3].graveyard) == ["Wastes"]
    assert any(e["event"] == "mill" and e["seat"] == 0 and e["cards"] == ["Grove Bear", "Wastes"] and e["to"] is None
               for e in g.log)


def test_corpse_snatcher_single_creature_card_and_empty_libraries():
    """Card: with one creature card in all graveyards it is taken without a question;
    with every library empty nothing is milled, so the reflexive "when you do"
    trigger doesn't happen (and nobody loses: milling is not drawing)."""
    g = game_with("The Corpse Snatcher")
    for s in range(5):
        lib(g, s, "Wastes", "Wastes", filler=0)
    g.players[1].graveyard = [cards.card("Rage Ogre")]
    unveil(g, 2)
    resolve_all(g)
    target_player(g, 2)
    resolve_all(g)
    assert names(g.players[2].creatures) == ["Rage Ogre"] and g.players[2].creatures[0].owner == 1
    g = game_with("The Corpse Snatcher")
    for s in range(5):
        g.players[s].library = []
    g.players[1].graveyard = [cards.card("Rage Ogre")]
    unveil(g, 2)
    resolve_all(g)
    assert not g.stack and is_priority(g) and not g.players[2].creatures
    assert not any(p.has_lost for p in g.players)


# ============================================================== The Madwoman
def test_madwoman_taps_two_each_hits_its_controller():
    """Card (The Madwoman; CR 120.3, 702.15b lifelink): up to two target creatures tap and each deals damage equal
    to its power to its controller (War Mammoth 5 to the Leader, Grove Bear 2
    to the Traitor); a lifelink creature's controller gains it back."""
    g = game_with("The Madwoman")
    mammoth = creature(g, 0, "War Mammoth")
    bear = creature(g, 4, "Grove Bear")
    bat = creature(g, 1, "Bloodfang Bat")
    unveil(g, 2)
    target_creature(g, mammoth)
    target_creature(g, bear)
    resolve_all(g)
    assert mammoth.tapped and bear.tapped and not bat.tapped
    assert g.players[0].life == 35 and g.players[4].life == 38 and g.players[2].life == 40
    assert g.harm[2][0] == 5 and g.harm[2][4] == 2
    g2 = game_with("The Madwoman")
    bat = creature(g2, 1, "Bloodfang Bat")
    unveil(g2, 2)
    target_creature(g2, bat)
    g2.step(g2.layout.PASS)                  # no second target
    resolve_all(g2)
    assert bat.tapped and g2.players[1].life == 40     # 1 damage, 1 life gained (lifelink)


def test_madwoman_prevents_combat_damage_to_and_by_them_this_turn():
    """Card, CR 615 (prevention), CR 514.2: combat damage dealt by or to the
    Madwoman's targets is prevented this turn; noncombat damage is not; the effect ends in the cleanup step."""
    g = game_with("The Madwoman")
    mammoth = creature(g, 0, "War Mammoth")
    unveil(g, 2)
    target_creature(g, mammoth)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert g.players[0].life == 35
    mammoth.tapped = False                   # (untapped by some other means)
    assert g.damage(3, ("p", 2), 5, source_creature=mammoth, combat=True) == 0
    assert g.damage(3, ("c", mammoth), 3, combat=True) == 0
    assert g.damage(3, ("c", mammoth), 3, source_name="Lightning Strike") == 3
    from scenario import attack
    attack(g, 0, 2)
    pass_until(g, lambda g: g.phase == "main2")
    assert g.players[2].life == 40           # the attack dealt nothing
    pass_until(g, lambda g: g.active == 1)
    assert not any(e["fn"] == "_madwoman_prevent" for e in g.effects)
    assert g.damage(3, ("p", 2), 5, source_creature=mammoth, combat=True) == 5


# ============================================================== The Necromancer
def test_necromancer_one_creature_card_from_each_graveyard():
    """Card, CR 115.1, 101.4 (APNAP): The Necromancer, on its controller's turn: from each player's graveyard
    (its own included) up to one target creature card enters under its
    controller's control; owners keep ownership; a graveyard without creature
    cards is skipped; PASS takes none from that player."""
    g = game_with("The Necromancer")
    own_turn(g, 2)
    g.players[0].graveyard = [cards.card("Grove Bear"), cards.card("War Mammoth")]
    g.players[1].graveyard = [cards.card("Rage Ogre")]
    g.players[2].graveyard = [cards.card("Elder Titan")]
    g.players[3].graveyard = [cards.card("Dune Lion")]
    g.players[4].graveyard = [cards.card("Shock")]
    unveil(g, 2)
    asked = []
    while g.decision.kind == DecisionKind.CARD:
        asked.append(sorted(c.name for c in options(g).values() if c is not None))
        if "Dune Lion" in asked[-1]:
            g.step(g.layout.PASS)
        else:
            pick(g, lambda c: c is not None and c.name in ("Elder Titan", "War Mammoth", "Rage Ogre"))
    assert asked == [["Elder Titan"], ["Dune Lion"], ["Grove Bear", "War Mammoth"], ["Rage Ogre"]]  # APNAP from seat 2
    resolve_all(g)
    mine = {c.name: c.owner for c in g.players[2].creatures}
    assert mine == {"Elder Titan": 2, "War Mammoth": 0, "Rage Ogre": 1}
    assert names(g.players[0].graveyard) == ["Grove Bear"] and g.players[1].graveyard == []
    assert names(g.players[3].graveyard) == ["Dune Lion"]


def test_necromancer_target_gone_and_not_own_turn():
    """CR 608.2b: a chosen card that left its graveyard before resolution stays where it is;
    unveiled on another player's turn the trigger asks nothing and does nothing."""
    g = game_with("The Necromancer")
    own_turn(g, 2)
    g.players[0].graveyard = [cards.card("War Mammoth")]
    g.players[1].graveyard = [cards.card("Rage Ogre")]
    unveil(g, 2)
    g.step(g.layout.CHOICE + 0)          # seat 0's Mammoth
    g.step(g.layout.CHOICE + 0)          # seat 1's Ogre
    assert is_priority(g) and g.stack[-1].key == "unveil"
    g.players[0].graveyard = []          # exiled in response
    resolve_all(g)
    assert names(g.players[2].creatures) == ["Rage Ogre"]
    g = game_with("The Necromancer")     # the Leader's turn
    g.players[0].graveyard = [cards.card("War Mammoth")]
    unveil(g, 2)
    assert is_priority(g)                # no target question
    resolve_all(g)
    assert not g.stack and g.players[2].creatures == [] and names(g.players[0].graveyard) == ["War Mammoth"]


# ============================================================== The Physician
def test_physician_gives_2x_plus_4_rad_counters_to_any_number_of_players():
    """Card, CR 702.187e, 122.1: The Physician with X = 2: each target player gets 2*2+4 = 8 rad counters
    (player counters, public in the observation's player counters)."""
    g = game_with("The Physician")
    unveil(g, 2, x=2)
    target_player(g, 0)
    target_player(g, 4)
    target_player(g, 2)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert [g.players[s].counters.get("rad", 0) for s in range(5)] == [8, 0, 8, 0, 8]
    assert g.view(1).players[0].player_counters == {"rad": 8}      # public to every seat


def test_physician_rad_trigger_mills_and_costs_life_per_nonland():
    """Card (rad reminder text), CR 603.4, 701.13: at the beginning of that player's precombat main phase they mill as
    many cards as rad counters; each nonland card milled costs 1 life and a rad
    counter (X = 1: 6 counters; 6 milled, 4 nonland: -4 life, 2 counters left;
    next time 2 milled, 1 nonland: -1 life, 1 left)."""
    g = game_with("The Physician")
    unveil(g, 2, x=1)
    target_player(g, 4)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert g.players[4].counters["rad"] == 6
    # seat 4 draws one card in its draw step, then the rad trigger mills 6
    lib(g, 4, "Wastes", "Grove Bear", "Wastes", "Shock", "Murder", "Wastes", "Rage Ogre",
        "Wastes", "Dune Lion", "Wastes")
    g.players[4].hand = [cards.card("Shock")]
    g.players[4].lands = 1
    pass_until(g, lambda g: g.active == 4 and g.phase == "main1" and g.stack)
    assert g.stack[-1].key == "rad" and g.stack[-1].controller == 4 and not g.stack[-1].identity_source
    resolve_all(g)
    p = g.players[4]
    assert p.life == 36 and p.counters["rad"] == 2
    assert names(p.graveyard) == ["Grove Bear", "Murder", "Rage Ogre", "Shock", "Wastes", "Wastes"]
    pass_until(g, lambda g: g.active == 4 and g.phase == "main1" and g.stack and g.turn > 5)
    resolve_all(g)
    assert p.life == 35 and p.counters["rad"] == 1          # Wastes + Dune Lion milled (after the draw)


def test_rad_outlasts_the_physician_and_stops_at_zero():
    """Card, CR 603.2: the rad trigger belongs to the player with the counters: it keeps
    working after the Physician's controller left the game; with no rad counter
    left nothing triggers any more."""
    g = game_with("The Physician")
    unveil(g, 2, x=0)
    target_player(g, 4)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert g.players[4].counters["rad"] == 4
    g.lose(2)
    lib(g, 4, "Wastes", "Shock", "Shock", "Shock", "Shock", "Wastes", filler=20)
    pass_until(g, lambda g: g.active == 4 and g.phase == "main1" and g.stack)
    resolve_all(g)
    p = g.players[4]
    assert p.life == 36 and "rad" not in p.counters
    assert g.turn == 4
    pass_until(g, lambda g: g.turn == 9)          # seat 4 had turn 8 (seat 2 is gone)
    assert p.life == 36 and not any(e["event"] == "trigger" and e.get("key") == "rad" and e["turn"] > 5
                                    for e in g.log)
    assert not any(d["fn"] == "_physician_rad_check" for d in g.delayed)


def test_rad_kills_the_leader_after_the_physician_left_and_assassins_win():
    """Rad life loss can finish the Leader: the Assassins win (CR 907.7d), the
    Physician's controller included although it left the game (TR7.4)."""
    g = game_with("The Physician")
    unveil(g, 2, x=0)
    target_player(g, 0)
    g.step(g.layout.PASS)
    resolve_all(g)
    g.lose(2)
    g.players[0].life = 3
    lib(g, 0, "Wastes", "Shock", "Murder", "Grove Bear", "Wastes")
    pass_until(g, lambda g: g.active == 0 and g.stack and g.stack[-1].key == "rad")
    resolve_all(g)
    assert g.is_over and g.winners == {2, 3}


# ============================================================== The Pyromancer
def test_pyromancer_six_to_player_and_each_creature_they_control():
    """Card, CR 704.5g: The Pyromancer on its controller's turn: 6 damage to the target player
    and to each creature they control (War Mammoth 5/5 dies, Elder Titan 8/8
    survives with 6 damage); other players' creatures are untouched."""
    g = game_with("The Pyromancer")
    own_turn(g, 2)
    mammoth = creature(g, 4, "War Mammoth")
    titan = creature(g, 4, "Elder Titan")
    bear = creature(g, 0, "Grove Bear")
    unveil(g, 2)
    target_player(g, 4)
    resolve_all(g)
    assert g.players[4].life == 34
    assert g.players[4].creatures == [titan] and titan.damage == 6 and mammoth not in g.players[4].creatures
    assert bear.damage == 0 and g.players[0].life == 40


def test_pyromancer_six_to_each_planeswalker_the_player_controls():
    """Card ("and each creature and planeswalker that player controls"), CR
    120.3c, 704.5i: six loyalty counters come off each of the target player's
    planeswalkers (Pyra at 4 goes to its owner's graveyard, Maren at 8 keeps
    2); another player's planeswalker is untouched."""
    g = game_with("The Pyromancer")
    own_turn(g, 2)
    pyra = g.put_planeswalker_onto_battlefield(4, cards.card("Pyra, Storm Sage"))
    maren = g.put_planeswalker_onto_battlefield(4, cards.card("Maren, Dawn Herald"))
    maren.loyalty = 8
    orla = g.put_planeswalker_onto_battlefield(0, cards.card("Orla, Pack Warden"))
    unveil(g, 2)
    target_player(g, 4)
    resolve_all(g)
    assert g.players[4].life == 34
    assert g.players[4].attackables == [maren] and maren.loyalty == 2
    assert pyra.card in g.players[4].graveyard
    assert orla.loyalty == 3 and g.players[0].attackables == [orla]


def test_pyromancer_kills_the_leader_and_assassins_win():
    """6 damage to a Leader at 6 life: the Leader loses, so the Assassins win
    (CR 907.7d), the eliminated ones included."""
    g = game_with("The Pyromancer")
    own_turn(g, 2)
    g.players[0].life = 6
    g.lose(3)                                   # the other Assassin already left
    unveil(g, 2)
    target_player(g, 0)
    resolve_all(g)
    assert g.is_over and g.winners == {2, 3}


def test_pyromancer_only_on_its_controllers_turn():
    """Card ("only on its controller's turn"), CR 603.4: unveiled on the Leader's
    turn: no target, no damage."""
    g = game_with("The Pyromancer")
    creature(g, 4, "War Mammoth")
    unveil(g, 2)
    assert is_priority(g)
    resolve_all(g)
    assert all(p.life == 40 for p in g.players) and len(g.players[4].creatures) == 1


# ============================================================== The Rebel General
def test_rebel_general_takes_one_permanent_per_non_leader_player():
    """Card, CR 314.7 (Leader player), 108.4, 302.6 (haste), 514.2: The Rebel
    General on its controller's turn: for each non-Leader player
    (itself included, the face-up Leader excluded) up to one creature of theirs:
    gain control until end of turn, untap, haste; they can attack this turn;
    in cleanup control goes back and haste ends."""
    g = game_with("The Rebel General")
    own_turn(g, 2)
    lion = creature(g, 2, "Dune Lion", tapped=True)
    ogre = creature(g, 3, "Rage Ogre")
    mammoth = creature(g, 4, "War Mammoth")
    bear = creature(g, 1, "Grove Bear", tapped=True)
    titan = creature(g, 0, "Elder Titan")
    unveil(g, 2)
    seen = []
    while g.decision.kind == DecisionKind.TARGET:
        opts = [c for c in options(g).values() if c is not None]
        assert titan not in opts
        seen.append(opts[0].controller)
        if opts[0] is mammoth:
            g.step(g.layout.PASS)
        else:
            target_creature(g, opts[0])
    assert seen == [2, 3, 4, 1]                  # APNAP from seat 2; seat 0 (Leader) skipped
    resolve_all(g)
    assert names(g.players[2].creatures) == ["Dune Lion", "Grove Bear", "Rage Ogre"]
    assert all(not c.tapped and c.has("haste") for c in g.players[2].creatures)
    assert mammoth.controller == 4 and titan.controller == 0
    assert {c.uid for c in g._attack_candidates()} >= {lion.uid, ogre.uid, bear.uid}
    ogre.pump_kw = frozenset()                   # without the haste, the stolen Ogre couldn't attack
    assert ogre not in g._attack_candidates()
    ogre.pump_kw = frozenset({"haste"})
    pass_until(g, lambda g: g.active != 2)
    assert ogre.controller == 3 and bear.controller == 1 and lion.controller == 2
    assert not any(c.has("haste") for c in (ogre, bear, lion))


def test_rebel_general_not_own_turn_and_target_changed_hands():
    """Card, CR 603.4, 608.2b: unveiled on another player's turn it asks nothing and does nothing; a
    target no longer controlled by its player on resolution is left alone."""
    g = game_with("The Rebel General")
    ogre = creature(g, 3, "Rage Ogre", tapped=True)
    unveil(g, 2)
    assert is_priority(g)
    resolve_all(g)
    assert ogre.controller == 3 and ogre.tapped
    g = game_with("The Rebel General")
    own_turn(g, 2)
    ogre = creature(g, 3, "Rage Ogre", tapped=True)
    unveil(g, 2)
    target_creature(g, ogre)
    g.gain_control(ogre, 4)                      # in response, it changes hands
    resolve_all(g)
    assert ogre.controller == 4 and ogre.tapped


# ============================================================== The Villain
def test_villain_sacrifice_half_rounded_up_then_again_next_upkeep():
    """Card, CR 701.55 (villainous choice), 603.7 (delayed trigger): The Villain
    on its controller's turn: the target opponent chooses; with 3
    creatures and 2 Treasures (5 nonland permanents) sacrificing means 3, chosen
    by them; at the Villain's controller's next upkeep they choose again (here:
    lose half of 40 = 20)."""
    g = game_with("The Villain")
    own_turn(g, 2)
    bear = creature(g, 0, "Grove Bear")
    ogre = creature(g, 0, "Rage Ogre")
    mammoth = creature(g, 0, "War Mammoth")
    g.players[0].tokens["Treasure"] = 2
    unveil(g, 2)
    target_player(g, 0)
    resolve_all(g)
    d = g.decision
    assert d.seat == 0 and d.kind == DecisionKind.MODE
    assert d.labels == ["sacrifice 3 nonland permanents", "lose 20 life"]
    g.step(g.layout.CHOICE + 0)
    target_creature(g, bear)
    pick(g, lambda o: o == "Treasure")
    target_creature(g, ogre)
    p = g.players[0]
    assert p.creatures == [mammoth] and p.tokens["Treasure"] == 1 and p.life == 40
    assert names(p.graveyard) == ["Grove Bear", "Rage Ogre"]
    assert [d["fn"] for d in g.delayed if d.get("seat") == 2] == ["_villain_again"]
    pass_until(g, lambda g: g.decision.seat == 0 and g.decision.kind == DecisionKind.MODE)
    assert g.active == 2 and g.phase == "upkeep" and g.turn > 1
    assert g.decision.labels == ["sacrifice 1 nonland permanents", "lose 20 life"]
    g.step(g.layout.CHOICE + 1)
    assert p.life == 20 and p.creatures == [mammoth]
    resolve_all(g)
    assert not any(d["fn"] == "_villain_again" for d in g.delayed)


def test_villain_life_rounds_up_and_targets_opponents_only():
    """Card, CR 907.7g / TR3.11 (opponents): half of 7 life rounded up is 4; a face-up fellow Assassin is not an
    opponent and can't be targeted; not on its controller's turn: nothing."""
    g = game_with("The Villain")
    own_turn(g, 2)
    g.players[3].identity.face_up = True         # the other Assassin, face up: a teammate
    g.players[4].life = 7
    unveil(g, 2)
    assert sorted(options(g)) == sorted(g.layout.PLAYER + g.rel(2, s) for s in (0, 1, 4))
    target_player(g, 4)
    resolve_all(g)
    g.step(g.layout.CHOICE + 1)
    assert g.players[4].life == 3
    g = game_with("The Villain")
    unveil(g, 2)
    assert is_priority(g)
    resolve_all(g)
    assert not g.delayed and all(p.life == 40 for p in g.players)


def test_villain_choice_can_kill_the_leader():
    """CR 907.7d: the Leader at 1 life choosing to lose half (1) loses; the
    Assassins win."""
    g = game_with("The Villain")
    own_turn(g, 2)
    g.players[0].life = 1
    unveil(g, 2)
    target_player(g, 0)
    resolve_all(g)
    g.step(g.layout.CHOICE + 1)
    assert g.is_over and g.winners == {2, 3}


# ============================================================== The War Shaman
def test_war_shaman_destroys_up_to_two():
    """Card, CR 701.8, 903.9 (a destroyed commander goes to the command zone):
    two target creatures (nonland permanents) are destroyed; a creature was
    among them, so no Elemental."""
    g = game_with("The War Shaman")
    bear = creature(g, 0, "Grove Bear")
    mammoth = creature(g, 4, "War Mammoth")
    keep = creature(g, 4, "Rage Ogre")
    unveil(g, 2)
    target_creature(g, bear)
    target_creature(g, mammoth)
    resolve_all(g)
    assert g.players[0].creatures == [] and g.players[4].creatures == [keep]
    assert names(g.players[4].graveyard) == ["War Mammoth"]
    assert not any(e["event"] == "tokens" and e["name"] == "Elemental" for e in g.log)
    cmd = g.put_onto_battlefield(3, g.players[3].commander, commander=True)
    g.players[2].identity.face_up = False    # unveil again (as if turned face down, TR4.8)
    unveil(g, 2)
    target_creature(g, cmd)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert cmd not in g.players[3].creatures and g.players[3].commander_zone == "command"


def test_war_shaman_no_target_makes_a_0_0_elemental_that_dies():
    """Card, CR 704.5f: with no target, "none of them were creatures" holds and X (their total
    mana value) is 0: a 0/0 Elemental is created and dies at once (CR 704.5f)."""
    g = game_with("The War Shaman")
    bear = creature(g, 0, "Grove Bear")
    unveil(g, 2)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert g.players[0].creatures == [bear] and g.players[2].creatures == []
    assert any(e["event"] == "tokens" and e["name"] == "Elemental" and e["seat"] == 2 for e in g.log)
    assert any(e["event"] == "leaves" and e["name"] == "Elemental" for e in g.log)


def test_war_shaman_planeswalkers_make_an_elemental_of_their_total_mana_value():
    """Card ("destroy up to two target nonland permanents; if none of them were
    creatures, create an X/X Elemental, X their total mana value"), CR 701.8,
    704.5i: Pyra ({4}) and Maren ({5}) are destroyed and a 9/9 Elemental is
    created; with a creature among the targets there is no Elemental."""
    g = game_with("The War Shaman")
    pyra = g.put_planeswalker_onto_battlefield(0, cards.card("Pyra, Storm Sage"))
    maren = g.put_planeswalker_onto_battlefield(4, cards.card("Maren, Dawn Herald"))
    unveil(g, 2)
    g.step(g.target_action(2, ("w", pyra)))
    g.step(g.target_action(2, ("w", maren)))
    resolve_all(g)
    assert not g.players[0].attackables and not g.players[4].attackables
    assert pyra.card in g.players[0].graveyard and maren.card in g.players[4].graveyard
    (tok,) = g.players[2].creatures
    assert (tok.name, tok.token, tok.power, tok.toughness) == ("Elemental", True, 9, 9)
    g = game_with("The War Shaman")
    pyra = g.put_planeswalker_onto_battlefield(0, cards.card("Pyra, Storm Sage"))
    bear = creature(g, 4, "Grove Bear")
    unveil(g, 2)
    g.step(g.target_action(2, ("w", pyra)))
    target_creature(g, bear)
    resolve_all(g)
    assert not g.players[0].attackables and not g.players[4].creatures and not g.players[2].creatures


# ============================================================== fuzz
def test_fuzz_rare_assassins():
    """~100 random games (5 players, 10 lands each) dealing the rare Assassins
    in pairs (a seat with an "only on its controller's turn" card unveils only
    on its own turn): invariants at every step, consistent results, and every card
    unveiled; the on-own-turn cards resolve on their turn at least once, rad
    counters trigger and villainous choices are made."""
    unveiled, own_turn_resolved, events = set(), set(), set()
    for k in range(104):
        a1, a2 = MINE[k % 8], MINE[(k + 1 + k // 8) % 8]
        if a1 == a2:
            a2 = MINE[(k + 2) % 8]
        deal = deal5(A1=a1, A2=a2)
        rng = random.Random(k)
        g = Game(GameConfig(num_players=5, identities=deal, max_turns=12, starting_life=15,
                            commander=bool(k % 2)), seed=k)
        for p in g.players:
            p.lands = 10
        g._advance()
        L = g.layout
        while not g.is_over:
            check_invariants(g)
            acts = g.legal_actions()
            seat = g.current_player
            if g.players[seat].identity.name in OWN_TURN and g.active != seat:
                # seats with an "only on your turn" card keep it for their own turn
                acts = [a for a in acts if not L.UNVEIL <= a < L.UNVEIL + 16] or acts
            g.step(rng.choice(acts))
        check_invariants(g)
        check_result(g)
        unveiled |= {e["identity"] for e in g.log if e["event"] == "unveil"}
        events |= {e["event"] for e in g.log}
        events |= {e.get("key") for e in g.log if e["event"] == "trigger"}
        for e in g.log:
            if e["event"] == "resolve" and e.get("key") == "unveil" and e["source"] in OWN_TURN \
                    and e["seat"] == next((x["seat"] for x in reversed(g.log[:g.log.index(e)])
                                           if x["event"] == "turn"), None):
                own_turn_resolved.add(e["source"])
    assert set(MINE) <= unveiled, sorted(set(MINE) - unveiled)
    assert set(OWN_TURN) <= own_turn_resolved, sorted(set(OWN_TURN) - own_turn_resolved)
    assert {"rad", "villainous_choice", "mill", "reanimate"} <= events
