"""The mythic Assassins: The Bio-Engineer, The Depths Caller and The
Shapeshifting Slayer (card facts: shared/reference/identities.json, set
TRD-2025; module treachery_env/identity_cards/assassins_mythic.py).

Scenarios use the 5-seat deal of ``identity_helpers`` (seat 0 Leader, 1
Guardian, 2 and 3 Assassins, 4 Traitor), start at the Leader's first main phase
and set the state they need directly.
"""

from __future__ import annotations

import random

from treachery_env import GameConfig, cards
from treachery_env.engine import DecisionKind, Game
from treachery_env.identity_abilities import IMPLEMENTATIONS
from treachery_env.identity_cards.assassins_mythic import bio_artifact_uids, bio_is_artifact
from treachery_env.rules import Role

from identity_helpers import (at_main, creature, deal5, give_priority, hand, options, pass_until, passing_decisions,
                              resolve_all, target_creature, token, unveil_actions)
from test_fuzz import check_invariants, check_result

BIO, DEPTHS, SLAYER = "The Bio-Engineer", "The Depths Caller", "The Shapeshifting Slayer"


def own_turn(g: Game, seat: int) -> None:
    """Make it ``seat``'s precombat main phase with an empty stack, ``seat`` holding priority."""
    g.active = seat
    g.phase = "main1"
    give_priority(g, seat)


def test_mythic_assassins_registered_with_their_facts():
    """identities.json: all three are mythic Assassins without Undercover; costs
    Bio-Engineer = sacrifice a nontoken permanent, Depths Caller = {X}{3},
    Shapeshifting Slayer = {5}."""
    from treachery_env import identities as ids
    for name in (BIO, DEPTHS, SLAYER):
        card = ids.get(name)
        assert name in IMPLEMENTATIONS and card.role == Role.ASSASSIN and card.rarity == "mythic"
        assert not card.undercover
    assert ids.get(BIO).unveil_cost.sacrifice == {"count": 1, "filter": "nontoken permanent"}
    assert ids.get(BIO).unveil_cost.mana == 0
    assert (ids.get(DEPTHS).unveil_cost.mana, ids.get(DEPTHS).unveil_cost.x) == (3, 1)
    assert (ids.get(SLAYER).unveil_cost.mana, ids.get(SLAYER).unveil_cost.x) == (5, 0)


# ============================================================== The Bio-Engineer
def bio_game(nuts: bool = True) -> Game:
    """Bio-Engineer at seat 2, unveiled (a Grove Bear sacrificed) with its six
    nuts unless ``nuts`` is False; seat 2 has 5 untapped lands; seat 1 has a
    Thornwall."""
    g = at_main(deal5(A1=BIO))
    p = g.players[2]
    p.lands = 5
    hand(g, 2, "Shock")
    bear = creature(g, 2, "Grove Bear")
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    g.step(g.target_action(2, ("c", bear)))
    resolve_all(g)
    creature(g, 1, "Thornwall")          # another creature: targets are real choices
    if not nuts:
        p.counters["nut"] = 0
    return g


def test_bio_engineer_unveil_cost_sacrifice_nontoken_permanent():
    """Bio-Engineer cost (identities.json): sacrifice a nontoken permanent, no
    mana (CR 702.187c).  Tokens aren't offered; a nontoken creature or a land is;
    with only tokens and no land the cost can't be paid."""
    g = at_main(deal5(A1=BIO))
    p = g.players[2]
    hand(g, 2, "Shock")
    p.lands = 1
    bear = creature(g, 2, "Grove Bear")
    wolf = token(g, 2, "Wolf")
    give_priority(g, 2)
    assert unveil_actions(g) == [0]
    g.step(g.layout.UNVEIL)
    assert g.decision.kind == DecisionKind.COST
    vals = list(options(g).values())
    assert len(vals) == 2 and vals[0] is bear and vals[1] == "land"       # the Wolf token isn't offered
    assert wolf not in vals
    assert g.describe_action(g.target_action(2, ("c", bear))) == "sacrifice Grove Bear"
    g.step(g.target_action(2, ("c", bear)))
    assert p.identity.face_up and bear not in p.creatures
    assert [c.name for c in p.graveyard] == ["Grove Bear"]
    assert p.lands == 1 and p.lands_tapped == 0        # no mana paid
    # a land is a nontoken permanent too
    g = at_main(deal5(A1=BIO))
    p = g.players[2]
    hand(g, 2, "Shock")
    p.lands = 3
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)                            # only a land to sacrifice: chosen automatically
    assert p.identity.face_up and p.lands == 2
    # the land sacrificed is a tapped one: its controller keeps the untapped lands' mana
    g = at_main(deal5(A1=BIO))
    p = g.players[2]
    hand(g, 2, "Shock")
    p.lands, p.lands_tapped = 3, 1
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    assert p.identity.face_up and (p.lands, p.lands_tapped) == (2, 0) and g.available_mana(2) == 2
    # only tokens and no land: can't pay
    g = at_main(deal5(A1=BIO))
    p = g.players[2]
    hand(g, 2, "Shock")
    p.lands = 0
    token(g, 2, "Wolf")
    give_priority(g, 2)
    assert unveil_actions(g) == []


def test_bio_engineer_gets_six_nut_counters():
    """When unveiled, its controller gets six nut counters (player counters, CR 122.1)."""
    g = bio_game()
    assert g.players[2].counters["nut"] == 6
    assert g.players[2].identity.face_up
    assert g.view(0).players[2].player_counters == {"nut": 6}           # public (observation too)


def test_bio_engineer_counter_and_artifact():
    """{1} + one nut: a +1/+1 counter on target creature, which becomes an
    artifact permanently (it stays one across turns)."""
    g = bio_game()
    p = g.players[2]
    lion = creature(g, 3, "Dune Lion")
    give_priority(g, 2)
    ab = g.layout.IDENTITY_AB
    g.step(ab)
    assert p.counters["nut"] == 5 and p.lands_tapped == 1
    target_creature(g, lion)
    resolve_all(g)
    assert lion.p1p1 == 1 and (lion.power, lion.toughness) == (3, 2)
    assert bio_is_artifact(g, lion) and bio_artifact_uids(g) == {lion.uid}
    pass_until(g, lambda g: g.turn == 2 and g.phase == "main1")
    assert bio_is_artifact(g, lion) and lion.p1p1 == 1       # permanent
    # a second counter doesn't duplicate the mark
    own_turn(g, 2)
    p.lands_tapped = 0
    give_priority(g, 2)
    g.step(ab)
    target_creature(g, lion)
    resolve_all(g)
    assert lion.p1p1 == 2 and p.counters["nut"] == 4
    assert sum(1 for e in g.effects if e["kind"] == "artifact") == 1


def test_bio_engineer_abilities_need_nuts_and_mana():
    """Both costs: {1} and one nut; {2} and two nuts (identities.json)."""
    g = bio_game(nuts=False)
    p = g.players[2]
    lion = creature(g, 3, "Dune Lion")
    give_priority(g, 2)
    ab = g.layout.IDENTITY_AB
    assert ab not in options(g) and ab + 1 not in options(g)
    p.counters["nut"] = 1
    g.effects.append({"kind": "artifact", "fn": "_bio_artifact_noop", "controller": 2, "until": None,
                      "uid": lion.uid})
    give_priority(g, 2)
    assert ab in options(g) and ab + 1 not in options(g)       # one nut: not enough to steal
    p.counters["nut"] = 2
    p.lands_tapped = p.lands - 1
    give_priority(g, 2)
    assert ab in options(g) and ab + 1 not in options(g)       # one mana: not enough for {2}
    p.lands_tapped = p.lands - 2
    give_priority(g, 2)
    assert ab + 1 in options(g)


def test_bio_engineer_steals_artifact_creature_permanently():
    """{2} + two nuts: gain control of target artifact, lasting (no "until end of
    turn"); only artifacts are legal targets."""
    g = bio_game()
    p = g.players[2]
    lion = creature(g, 3, "Dune Lion")
    bear = creature(g, 0, "Grove Bear")       # not an artifact
    give_priority(g, 2)
    ab = g.layout.IDENTITY_AB
    g.step(ab)
    target_creature(g, lion)
    resolve_all(g)
    give_priority(g, 2)
    g.step(ab + 1)
    assert p.counters["nut"] == 3 and p.lands_tapped == 3
    # the only artifact was the only choice: taken automatically, no decision
    assert g.decision.kind == DecisionKind.PRIORITY
    assert g.stack and g.stack[-1].targets == [("c", lion)]
    assert bear not in [t[1] for t in g.stack[-1].targets]
    resolve_all(g)
    assert lion in p.creatures and lion.controller == 2 and lion.owner == 3
    pass_until(g, lambda g: g.turn == 3 and g.phase == "main1")
    assert lion in p.creatures and lion.controller == 2        # still after two cleanups


def test_bio_engineer_steals_an_artifact_token():
    """Treasure, Clue, Explosive... are artifacts: gaining control of one moves
    one token to the Bio-Engineer's controller; own artifacts aren't offered."""
    g = bio_game()
    p = g.players[2]
    g.players[4].tokens["Treasure"] = 2
    g.players[0].tokens["Clue"] = 1
    p.tokens["Food"] = 1
    give_priority(g, 2)
    g.step(g.layout.IDENTITY_AB + 1)
    assert g.decision.kind == DecisionKind.TARGET
    assert sorted(g.decision.labels) == ["a Clue token of P0", "a Treasure token of P4"]
    k = g.decision.labels.index("a Treasure token of P4")
    g.step(g.decision.options[k][0])
    resolve_all(g)
    assert g.players[4].tokens["Treasure"] == 1 and p.tokens["Treasure"] == 1
    assert p.counters["nut"] == 4 and g.players[0].tokens["Clue"] == 1


def test_bio_engineer_steal_fizzles_when_target_leaves():
    """CR 608.2b: the only target gone, the ability does nothing (nuts stay spent)."""
    g = bio_game()
    p = g.players[2]
    lion = creature(g, 3, "Dune Lion")
    g.effects.append({"kind": "artifact", "fn": "_bio_artifact_noop", "controller": 2, "until": None,
                      "uid": lion.uid})
    give_priority(g, 2)
    g.step(g.layout.IDENTITY_AB + 1)
    g.destroy(lion)
    resolve_all(g)
    assert p.counters["nut"] == 4 and not p.creatures
    assert [c.name for c in g.players[3].graveyard] == ["Dune Lion"]


def test_bio_engineer_artifact_ends_with_the_object():
    """CR 400.7: a creature that leaves and comes back is a new object, no
    longer an artifact (and not a legal target of the steal ability)."""
    g = bio_game()
    lion = creature(g, 3, "Dune Lion")
    give_priority(g, 2)
    g.step(g.layout.IDENTITY_AB)
    target_creature(g, lion)
    resolve_all(g)
    g.bounce(lion)
    lion2 = creature(g, 3, "Dune Lion")
    assert not bio_is_artifact(g, lion2)
    give_priority(g, 2)
    assert g.layout.IDENTITY_AB + 1 not in options(g)


def test_bio_engineer_stolen_creature_returns_when_controller_loses():
    """CR 800.4a: when the Bio-Engineer's controller leaves the game, the effect
    giving them control of another player's creature ends, so it goes back to
    its owner; the Assassin keeps its last-known team (TR7.4)."""
    g = bio_game()
    p = g.players[2]
    lion = creature(g, 3, "Dune Lion")
    give_priority(g, 2)
    g.step(g.layout.IDENTITY_AB)
    target_creature(g, lion)
    resolve_all(g)
    give_priority(g, 2)
    g.step(g.layout.IDENTITY_AB + 1)
    resolve_all(g)
    assert lion.controller == 2
    g.lose(2)
    assert p.has_lost and not p.creatures
    assert lion in g.players[3].creatures and lion.controller == 3
    assert p.team == p.last_team and p.last_role == Role.ASSASSIN


# ============================================================== The Depths Caller
def depths_game(lands: int = 6) -> Game:
    g = at_main(deal5(A1=DEPTHS))
    p = g.players[2]
    p.lands = lands
    hand(g, 2, "Shock")
    p.library = [cards.card(n) for n in ("Wastes", "Grove Bear", "Rage Ogre", "Thicket Troll", "Healer Acolyte",
                                         "Wastes")]
    give_priority(g, 2)
    return g


def test_depths_caller_unveil_cost_x_plus_three():
    """Cost {X}{3} (identities.json): with 4 lands X is 0 or 1; X = 1 taps 4."""
    g = depths_game(lands=4)
    assert unveil_actions(g) == [0, 1]
    g.step(g.layout.UNVEIL + 1)
    p = g.players[2]
    assert p.lands_tapped == 4 and p.identity.face_up and p.identity.x == 1
    g = depths_game(lands=2)
    assert unveil_actions(g) == []


def test_depths_caller_taps_creatures_and_tutors_up_to_x_plus_tapped():
    """Name creature, tap two untapped creatures: with X = 1 the search finds a
    creature card of mana value <= 3, put onto the battlefield tapped; the
    library is shuffled (one card fewer)."""
    g = depths_game()
    p = g.players[2]
    a = creature(g, 2, "Dune Lion")
    b = creature(g, 2, "Bog Rat")
    c = creature(g, 2, "Ember Imp", tapped=True)          # already tapped: not offered
    g.step(g.layout.UNVEIL + 1)
    resolve_all(g)
    assert g.decision.kind == DecisionKind.MODE and g.decision.labels == ["creature", "land", "planeswalker"]
    g.step(g.layout.CHOICE + 0)
    assert g.decision.seat == 2 and c not in options(g).values()
    g.step(g.target_action(2, ("c", a)))
    g.step(g.target_action(2, ("c", b)))
    assert a.tapped and b.tapped
    # no untapped creature left: the search begins; MV <= 1 + 2 = 3
    assert g.decision.kind == DecisionKind.CARD
    assert g.decision.labels == ["find nothing", "Grove Bear", "Rage Ogre", "Healer Acolyte"]
    k = g.decision.labels.index("Rage Ogre")
    g.step(g.decision.options[k][0])
    ogre = p.creatures[-1]
    assert ogre.name == "Rage Ogre" and ogre.tapped and ogre.controller == 2 and not ogre.token
    assert len(p.library) == 5 and "Rage Ogre" not in [x.name for x in p.library]


def test_depths_caller_x_alone_and_done_tapping():
    """Tapping none (PASS at once): the limit is X; X = 0 and no tap finds nothing
    above mana value 0."""
    g = depths_game()
    creature(g, 2, "Dune Lion")
    g.step(g.layout.UNVEIL + 2)
    resolve_all(g)
    g.step(g.layout.CHOICE + 0)
    g.step(g.layout.PASS)                                  # done tapping
    assert g.decision.labels == ["find nothing", "Grove Bear"]
    g.step(g.decision.options[1][0])
    assert g.players[2].creatures[-1].name == "Grove Bear"
    g = depths_game()
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.step(g.layout.CHOICE + 0)                            # creature; nothing to tap; nothing with MV 0
    assert not g.players[2].creatures and len(g.players[2].library) == 6
    assert g.decision.kind == DecisionKind.PRIORITY


def test_depths_caller_found_creature_etb_triggers():
    """A creature put onto the battlefield triggers its enters ability (CR
    603.6a): Healer Acolyte (MV 3) gains 4 life."""
    g = depths_game()
    p = g.players[2]
    life = p.life
    g.step(g.layout.UNVEIL + 3)
    resolve_all(g)
    g.step(g.layout.CHOICE + 0)
    k = g.decision.labels.index("Healer Acolyte")
    g.step(g.decision.options[k][0])
    resolve_all(g)
    assert p.life == life + 4 and p.creatures[-1].tapped


def test_depths_caller_land_mode_and_find_nothing():
    """Name land: tap any number of untapped lands (a number), then a land
    enters tapped (lands + 1, tapped + 1).  Finding nothing (CR 701.23b) is
    allowed; the library is shuffled either way."""
    g = depths_game(lands=6)
    p = g.players[2]
    g.step(g.layout.UNVEIL)                                # X = 0: 3 of 6 lands tapped
    resolve_all(g)
    g.step(g.layout.CHOICE + 1)                            # land
    assert g.decision.kind == DecisionKind.NUMBER and len(g.decision.options) == 4    # tap 0..3
    g.step(g.layout.CHOICE + 2)
    assert p.lands_tapped == 5
    assert g.decision.labels == ["find nothing", "Wastes"]
    g.step(g.layout.CHOICE + 0)
    assert (p.lands, p.lands_tapped) == (7, 6) and len(p.library) == 5
    g = depths_game(lands=6)
    p = g.players[2]
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.step(g.layout.CHOICE + 0)                            # creature, nothing to tap, MV 0: no card
    assert not p.creatures and len(p.library) == 6 and g.decision.kind == DecisionKind.PRIORITY
    g = depths_game(lands=6)
    p = g.players[2]
    g.step(g.layout.UNVEIL + 3)
    resolve_all(g)
    g.step(g.layout.CHOICE + 0)
    g.step(g.layout.PASS)                                  # find nothing
    assert len(p.library) == 6 and not p.creatures


def test_depths_caller_planeswalker_mode_finds_mana_value_up_to_x():
    """Card ("name a permanent type"): planeswalker cards are in the libraries,
    so planeswalker may be named; with X = 4 (no planeswalker to tap, which the
    substrate can't tap anyway) the search offers Pyra ({4}) and Orla ({3}) but
    not Maren ({5}); Pyra enters under its controller with its printed
    loyalty (CR 306.5b) and the library is shuffled, one card fewer."""
    g = depths_game(lands=7)
    p = g.players[2]
    p.library += [cards.card(n) for n in ("Maren, Dawn Herald", "Pyra, Storm Sage", "Orla, Pack Warden")]
    g.step(g.layout.UNVEIL + 4)
    resolve_all(g)
    g.step(g.layout.CHOICE + 2)                            # planeswalker
    assert g.decision.kind == DecisionKind.CARD and g.decision.seat == 2
    assert g.decision.labels == ["find nothing", "Pyra, Storm Sage", "Orla, Pack Warden"]
    g.step(g.decision.options[1][0])
    assert [(w.name, w.controller, w.owner, w.loyalty) for w in p.attackables] == [("Pyra, Storm Sage", 2, 2, 4)]
    assert len(p.library) == 8 and "Pyra, Storm Sage" not in [c.name for c in p.library]
    assert not p.creatures and (p.lands, p.lands_tapped) == (7, 7)


def test_depths_caller_search_is_private_until_found():
    """The library's contents are seen only by the searcher (the options of its
    own decision); the public log says only the type and the limit."""
    g = depths_game()
    g.step(g.layout.UNVEIL + 1)
    resolve_all(g)
    g.step(g.layout.CHOICE + 0)
    s = [e for e in g.log if e["event"] == "search"][-1]
    assert s["to"] is None and s["card_type"] == "creature" and s["max_mv"] == 1
    assert not any("Grove Bear" in str(e) for e in g.log if e["event"] != "enters")


def depths_land_search(wastes: bool, forced: str) -> Game:
    """The Depths Caller (seat 2, 3 lands) unveiled with X = 0, resolved up to its
    type choice.  Its library of 20 holds one Wastes (a land of mana value 0) or,
    in its place, a Shock; the rest are Shocks and Grove Bears."""
    g = at_main(deal5(A1=DEPTHS), forced_decisions=forced)
    p = g.players[2]
    p.lands = 3
    p.library = [cards.card(n) for n in ["Shock", "Grove Bear"] * 9 + ["Wastes" if wastes else "Shock", "Shock"]]
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    while not (g.decision.seat == 2 and g.decision.kind == DecisionKind.MODE):
        g.step(g.layout.PASS)
    return g


def test_depths_caller_search_is_asked_whatever_the_library_holds():
    """CR 701.23b: a search for a card with a stated quality may find nothing, so
    the search is asked whether the library holds such a card or not ("find
    nothing" alone where it does not): with every decision shown, a game whose
    library holds a land of mana value 0 and one where a Shock takes its place
    ask the same seats the same kinds of decision in the same order (naming
    land, tapping none, finding nothing, then passing)."""
    orders = []
    for wastes in (True, False):
        g = depths_land_search(wastes, "shown")
        g.step(g.layout.CHOICE + 1)                                   # land
        orders.append(passing_decisions(g, 150))
        assert not [e for e in g.log if e["event"] == "search_found"] and g.players[2].lands == 3
    assert orders[0] == orders[1]
    assert orders[0][:2] == [(2, DecisionKind.NUMBER), (2, DecisionKind.CARD)]   # tap how many, then search


def test_depths_caller_offers_find_nothing_beside_what_it_finds():
    """Default ("auto") decisions: with a Wastes in the library the search offers
    "find nothing" and the Wastes; without one, "find nothing" alone is taken
    at once, and the library is shuffled either way."""
    g = depths_land_search(True, "auto")
    g.step(g.layout.CHOICE + 1)
    assert g.decision.seat == 2 and g.decision.kind == DecisionKind.CARD
    assert g.decision.labels == ["find nothing", "Wastes"] and g.decision.options[0][0] == g.layout.PASS
    g = depths_land_search(False, "auto")
    library = list(g.players[2].library)
    g.step(g.layout.CHOICE + 1)
    assert g.decision.kind == DecisionKind.PRIORITY
    assert sorted(c.name for c in g.players[2].library) == sorted(c.name for c in library)
    assert [c.name for c in g.players[2].library] != [c.name for c in library]       # shuffled


# ============================================================== The Shapeshifting Slayer
def slayer_game(lands: int = 5) -> Game:
    g = at_main(deal5(A1=SLAYER))
    g.players[2].lands = lands
    hand(g, 2, "Shock")
    return g


def test_slayer_unveil_cost_five():
    """Cost {5} (identities.json): 4 lands can't pay, 5 can and are all tapped."""
    g = slayer_game(lands=4)
    own_turn(g, 2)
    assert unveil_actions(g) == []
    g = slayer_game(lands=5)
    own_turn(g, 2)
    assert unveil_actions(g) == [0]
    g.step(g.layout.UNVEIL)
    assert g.players[2].lands_tapped == 5


def test_slayer_copies_creature_on_battlefield_with_menace_trample_haste():
    """On its controller's turn: a token copy of a creature (copiable values
    only, CR 707.2: no counters, no pump), with menace, trample and haste added;
    it can attack at once (haste)."""
    g = slayer_game()
    owl = creature(g, 0, "Cloud Sprite")
    owl.p1p1 = 2
    owl.pump_p = 3
    own_turn(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.decision.kind == DecisionKind.CARD and g.decision.seat == 2
    g.step(g.target_action(2, ("c", owl)))
    tok = g.players[2].creatures[-1]
    assert tok.token and tok.name == "Cloud Sprite" and tok.controller == 2
    assert (tok.power, tok.toughness) == (1, 2) and tok.p1p1 == 0
    assert tok.base_keywords == frozenset({"flying", "menace", "trample", "haste"})
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER and g.decision.seat == 2)
    assert tok in options(g).values()                     # haste: attacks the turn it was made


def test_slayer_does_nothing_off_turn():
    """"Only during its controller's turn": an intervening if (CR 603.4); unveiled
    during the Leader's turn, nothing triggers."""
    g = slayer_game()
    creature(g, 0, "Grove Bear")
    give_priority(g, 2)                                    # the Leader's (seat 0) turn
    g.step(g.layout.UNVEIL)
    assert g.players[2].identity.face_up
    assert not g.stack and not [e for e in g.log if e["event"] == "trigger" and e["source"] == SLAYER]
    resolve_all(g)
    assert not g.players[2].creatures


def test_slayer_intervening_if_rechecked_on_resolution():
    """CR 603.4: if it is no longer its controller's turn on resolution (set
    directly here), the trigger does nothing."""
    g = slayer_game()
    creature(g, 0, "Grove Bear")
    own_turn(g, 2)
    g.step(g.layout.UNVEIL)
    assert g.stack and g.stack[-1].source == SLAYER
    g.active = 0
    resolve_all(g)
    assert not g.players[2].creatures


def test_slayer_copies_cards_in_graveyard_exile_stack_command_zone():
    """A creature card in a graveyard, in exile, on the stack or in the command
    zone can be chosen; each name once; the token has the card's printed values."""
    g = slayer_game(lands=10)
    g.players[1].graveyard = [cards.card("War Mammoth"), cards.card("Shock")]
    g.players[3].exile = [cards.card("Storm Angel")]
    own_turn(g, 2)
    hand(g, 2, "Grove Bear", "Shock")
    own_turn(g, 2)
    g.step(g.layout.HAND + 0)                              # cast Grove Bear: a creature spell on the stack
    assert g.stack and g.stack[-1].card.name == "Grove Bear"
    g.step(g.layout.UNVEIL)                                # unveil in response (a special action)
    resolve_all(g)
    labels = g.decision.labels
    cmd = {p.commander.name for p in g.players}
    expected = {"War Mammoth (graveyard)", "Storm Angel (exile)", "Grove Bear (stack)"} | {
        f"{n} (command zone)" for n in cmd}
    assert expected <= set(labels) and not any("Shock" in x for x in labels)
    assert len(labels) == len(set(labels))
    k = labels.index("War Mammoth (graveyard)")
    g.step(g.decision.options[k][0])
    tok = g.players[2].creatures[-1]
    assert tok.token and tok.name == "War Mammoth" and (tok.power, tok.toughness) == (5, 5)
    assert tok.base_keywords == frozenset({"trample", "menace", "haste"})
    assert [c.name for c in g.players[1].graveyard] == ["War Mammoth", "Shock"]   # the card stays


def test_slayer_copy_of_commander_in_command_zone():
    """A commander in the command zone is a creature card there: its copy is a
    token, not a commander (CR 707.2: being a commander isn't copied)."""
    g = slayer_game()
    creature(g, 1, "Thornwall")
    own_turn(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    cmd = g.players[0].commander
    k = g.decision.labels.index(f"{cmd.name} (command zone)")
    g.step(g.decision.options[k][0])
    tok = g.players[2].creatures[-1]
    assert tok.token and tok.name == cmd.name and not tok.is_commander
    assert g.players[0].commander_zone == "command"


def test_slayer_copy_triggers_enters_ability():
    """A token copy has the card's enters ability (CR 707.2, 603.6a): a copy of
    Healer Acolyte gains its controller 4 life."""
    g = slayer_game()
    creature(g, 3, "Healer Acolyte")
    own_turn(g, 2)
    life = g.players[2].life
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.step(g.target_action(2, ("c", g.players[3].creatures[0])))
    resolve_all(g)
    assert g.players[2].life == life + 4


def test_slayer_copy_of_artifact_creature_is_not_an_artifact():
    """Interaction: the Bio-Engineer's artifact type is not a copiable value (CR
    707.2), so the Slayer's copy of an artifact creature isn't an artifact."""
    g = at_main(deal5(A1=SLAYER, A2=BIO))
    lion = creature(g, 0, "Dune Lion")
    g.effects.append({"kind": "artifact", "fn": "_bio_artifact_noop", "controller": 3, "until": None,
                      "uid": lion.uid})
    lion.p1p1 = 1
    g.players[2].lands = 5
    hand(g, 2, "Shock")
    own_turn(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.step(g.target_action(2, ("c", lion)))
    tok = g.players[2].creatures[-1]
    assert tok.name == "Dune Lion" and (tok.power, tok.toughness) == (2, 1)
    assert bio_is_artifact(g, lion) and not bio_is_artifact(g, tok)


def test_slayer_copy_of_token_copy_keeps_added_keywords():
    """CR 707.9b: the exceptions are part of the copy, so a copy of the Slayer's
    token has menace, trample and haste too."""
    g = slayer_game()
    bear = creature(g, 0, "Grove Bear")
    own_turn(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.step(g.target_action(2, ("c", bear)))
    tok = g.players[2].creatures[-1]
    again = g.create_creature_token(0, "", copy_of=tok)[0]
    assert again.base_keywords == frozenset({"menace", "trample", "haste"})


# ============================================================== fuzz
def test_fuzz_mythic_assassins():
    """100 random games, 6 seats dealt Leader, Guardian, Traitor and the three
    mythic Assassins, every player with 10 lands: invariants at every step,
    consistent results; each card is unveiled and its effect used.  The random
    policy unveils the Slayer only on its own turn (its effect needs that)."""
    deal = ["The Old Ruler", "The Bodyguard", "The Banisher", BIO, DEPTHS, SLAYER]
    seen = {k: 0 for k in ("unveil_bio", "unveil_depths", "unveil_slayer", "artifact", "steal_token", "steal_creature",
                           "search", "found", "copy")}
    for seed in range(100):
        rng = random.Random(seed)
        d = deal[:]
        rng.shuffle(d)
        g = Game(GameConfig(num_players=6, identities=d, max_turns=14, starting_life=15,
                            commander=bool(seed % 2)), seed=seed)
        for p in g.players:
            p.lands = 10
        g._advance()
        slayer = d.index(SLAYER)
        while not g.is_over:
            check_invariants(g)
            acts = g.legal_actions()
            if g.decision.seat == slayer and g.active != slayer and len(acts) > 1:
                L = g.layout
                acts = [a for a in acts if not L.UNVEIL <= a < L.UNVEIL + 16] or acts
            a = rng.choice(acts)
            g.describe_action(a)
            g.step(a)
        check_result(g)
        for e in g.log:
            ev = e["event"]
            if ev == "unveil":
                key = {BIO: "unveil_bio", DEPTHS: "unveil_depths", SLAYER: "unveil_slayer"}.get(e["identity"])
                if key:
                    seen[key] += 1
            elif ev == "becomes_artifact":
                seen["artifact"] += 1
            elif ev == "gain_control_token":
                seen["steal_token"] += 1
            elif ev == "gain_control" and e["seat"] == d.index(BIO):
                seen["steal_creature"] += 1
            elif ev == "search":
                seen["search"] += 1
            elif ev == "search_found":
                seen["found"] += 1
            elif ev == "copy_token":
                seen["copy"] += 1
    assert all(v > 0 for v in seen.values()), seen
