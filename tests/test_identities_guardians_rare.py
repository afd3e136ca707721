"""The 7 rare Guardians (all with Undercover): The Ætherist, The Augur, The
Cryomancer, The Marshal, The Quellmaster, The Spellsnatcher, The Summoner.

Card facts: ``shared/reference/identities.json`` (set TRD-2025).  Scenarios fix
the deal (5 players: seat 0 Leader, 1 the Guardian under test, 2 and 3
Assassins, 4 Traitor), jump to the Leader's first main phase
(``identity_helpers.at_main``), meet Undercover by recording that seat 2
attacked the Leader (CR 702.187f), set the state and drive ``Game.step``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from identity_helpers import (
    at_main,
    cast,
    creature,
    deal5,
    give_priority,
    hand,
    is_priority,
    options,
    pick,
    resolve_all,
    target_creature,
    target_player,
)
from test_fuzz import play_with_lands

from treachery_env import GameConfig, cards
from treachery_env import identities as ids
from treachery_env.engine import DecisionKind, Game
from treachery_env.identity_abilities import IMPLEMENTATIONS
from treachery_env.rules import Role

REF_PATH = Path(__file__).resolve().parents[2] / "shared" / "reference" / "identities.json"
if not REF_PATH.exists():  # pragma: no cover - layout of another checkout
    REF_PATH = Path("/work/shared/reference/identities.json")
REF = {c["name"]: c for c in json.loads(REF_PATH.read_text("utf-8"))}

MINE = ["The Ætherist", "The Augur", "The Cryomancer", "The Marshal", "The Quellmaster", "The Spellsnatcher",
        "The Summoner"]
G = 1      # the Guardian's seat


def guardian(name: str) -> Game:
    """At the Leader's main phase 1, ``name`` at seat 1, Undercover met."""
    g = at_main(deal5(G=name))
    g.leader_attacked_by.add(2)
    return g


def offered_xs(g: Game, seat: int) -> list[int]:
    L = g.layout
    return [a - L.UNVEIL for a, _ in g._priority_options(seat) if L.UNVEIL <= a < L.UNVEIL + 16]


def cast_at(g: Game, seat: int, name: str, target_seat: int | None = None) -> None:
    """``seat`` gets priority and casts ``name`` (with enough lands), targeting a player."""
    p = g.players[seat]
    p.hand.append(cards.card(name))
    p.lands = p.lands_tapped + cards.card(name).cost
    give_priority(g, seat)
    cast(g, seat, name)
    if target_seat is not None:
        target_player(g, target_seat)


def advance(g: Game, cond, limit: int = 1000) -> None:
    """PASS at every decision (the first option where PASS isn't legal, e.g. a
    discard in the cleanup step) until ``cond(g)``."""
    for _ in range(limit):
        if cond(g):
            return
        assert g.decision is not None, "game ended"
        legal = g.legal_actions()
        g.step(g.layout.PASS if g.layout.PASS in legal else legal[0])
    raise AssertionError("condition never met")


def until_priority(g: Game, seat: int, phase: str | None = None, active: int | None = None) -> None:
    advance(g, lambda g: is_priority(g) and g.decision.seat == seat
            and (phase is None or g.phase == phase) and (active is None or g.active == active))


# ============================================================== card data and Undercover
@pytest.mark.parametrize("name", MINE)
def test_card_data_matches_reference_facts(name):
    """Role, rarity, unveil cost ({X}, {Y}, fixed mana) and Undercover are the card
    facts', and the card is implemented."""
    ref, card = REF[name], ids.get(name)
    assert name in IMPLEMENTATIONS
    assert card.role == Role.GUARDIAN and card.rarity == "rare" == ref["rarity"]
    assert card.undercover and ref["undercover"]["has_undercover"]
    rc, c = ref["unveil_cost"], card.unveil_cost
    assert (c.mana, c.x, c.y, c.life) == (rc.get("mana", 0), rc.get("x_mana", 0), rc.get("y_mana", 0), 0)


@pytest.mark.parametrize("name", MINE)
def test_undercover_needed(name):
    """CR 702.187f / TR5: with all the mana in the world, none of these Guardians can
    unveil before another player attacked the Leader or another identity was
    turned face up."""
    g = at_main(deal5(G=name))
    g.players[G].lands = 15
    for _ in range(3):
        creature(g, 2, "Grove Bear")
    assert not g.can_unveil(G, 1, ignore_cost=True) and offered_xs(g, G) == []
    g.leader_attacked_by.add(3)
    assert offered_xs(g, G) != []


# ============================================================== The Ætherist
def test_aetherist_cost_is_three():
    """The Ætherist: unveil {3}."""
    g = guardian("The Ætherist")
    g.players[G].lands = 2
    assert offered_xs(g, G) == []
    g.players[G].lands = 3
    assert offered_xs(g, G) == [0]


def test_aetherist_counters_and_pays_life_and_mana_at_next_main_phase():
    """The Ætherist: counter target spell (Lightning Strike, mana value 2); at the
    beginning of the targeted player's next main phase that player gains 2 life
    and adds {C}{C}, which empties at the end of that step (CR 500.4)."""
    g = guardian("The Ætherist")
    g.players[G].lands = 3
    hand(g, G, "Shock")                                   # seat 1 stops at its own main phase
    cast_at(g, 2, "Lightning Strike", 0)
    life0 = g.players[0].life
    until_priority(g, G)
    g.step(g.layout.UNVEIL)                               # the only spell target is chosen for it
    target_player(g, G)
    t = g.stack[-1]
    assert t.source == "The Ætherist" and t.targets[0][1].card.name == "Lightning Strike"
    resolve_all(g)
    assert not g.stack and g.players[0].life == life0
    assert [c.name for c in g.players[2].graveyard] == ["Lightning Strike"]
    assert g.players[G].life == 40 and g.players[G].mana_pool == 0
    until_priority(g, G, "main1", active=G)
    assert g.players[G].life == 42 and g.players[G].mana_pool == 2
    assert g.available_mana(G) == 2 + 3
    advance(g, lambda g: g.phase != "main1")
    assert g.players[G].mana_pool == 0
    assert not [d for d in g.delayed if not d.get("done")]


def test_aetherist_during_own_precombat_main_pays_in_postcombat_main():
    """"Next main phase": resolved in its controller's own precombat main phase, the
    delayed trigger waits for the postcombat main phase of the same turn, and
    doesn't happen a second time next turn.  Mana value counts X (CR 202.3e):
    Blaze with X = 2 has mana value 3."""
    g = guardian("The Ætherist")
    p = g.players[G]
    hand(g, G, "Blaze", "Shock")
    p.lands = 6
    until_priority(g, G, "main1", active=G)
    cast(g, G, "Blaze")
    assert g.decision.kind == DecisionKind.NUMBER
    g.step(g.layout.CHOICE + 2)
    target_player(g, 0)
    assert g.stack[-1].x == 2 and p.lands_tapped == 3
    g.step(g.layout.UNVEIL)
    target_player(g, G)
    resolve_all(g)
    assert [c.name for c in p.graveyard] == ["Blaze"] and p.mana_pool == 0 and p.life == 40
    until_priority(g, G, "main2", active=G)
    assert p.life == 43 and p.mana_pool == 3
    advance(g, lambda g: g.active == G and g.phase == "main2" and g.turn > 2 * 5 - 3)
    assert p.life == 43                                    # once only
    assert not any(d["fn"] == "_aetherist_delayed" and not d.get("done") for d in g.delayed)


def test_aetherist_player_part_happens_when_targeting_another_player():
    """The chosen player may be anyone (here the Leader): it is they who gain the
    life and the mana, at their next main phase."""
    g = guardian("The Ætherist")
    g.players[G].lands = 3
    cast_at(g, 2, "Lightning Strike", 0)
    until_priority(g, G)
    g.step(g.layout.UNVEIL)
    target_player(g, 3)
    resolve_all(g)
    assert g.delayed[-1]["seat"] == 3 and g.delayed[-1]["n"] == 2
    assert g.players[3].life == 40


def test_aetherist_without_a_spell_does_nothing():
    """CR 603.3d: unveiled with no spell on the stack (an identity's trigger is not a
    spell), the Ætherist's trigger has no spell to target: it is removed as it
    would go on the stack, without a player being chosen (nothing on the stack
    for The Reflector to take): no life, no mana, no delayed trigger."""
    g = at_main(deal5(G="The Ætherist", A2="The Beastmaster"))
    g.players[3].lands = 4
    g.players[G].lands = 3
    give_priority(g, 3)
    g.step(g.layout.UNVEIL)                               # The Beastmaster: Undercover is now met
    g.step(g.layout.PASS)
    assert [it.source for it in g.stack] == ["The Beastmaster"]
    until_priority(g, G)
    g.step(g.layout.UNVEIL)
    assert g.decision.kind != DecisionKind.TARGET
    assert [it.source for it in g.stack] == ["The Beastmaster"]
    assert [e["source"] for e in g.log if e["event"] == "trigger_removed"] == ["The Ætherist"]
    resolve_all(g)
    assert not g.stack and not g.delayed
    assert g.players[G].life == 40 and g.players[G].mana_pool == 0
    assert not any(e["event"] == "delayed_trigger" for e in g.log)


# ============================================================== The Augur
def test_augur_x_range():
    """The Augur: unveil {X}; X = 0 is free."""
    g = guardian("The Augur")
    g.players[G].lands = 0
    hand(g, G, "Shock")
    assert offered_xs(g, G) == [0]
    g.players[G].lands = 3
    assert offered_xs(g, G) == [0, 1, 2, 3]


def test_augur_target_scries_exiles_gains_and_casts_free():
    """The Augur: the targeted player (seat 3) shuffles, scries X (it is they who
    choose), exiles the top card (Murder, mana value 3), gains 6 life and casts it
    right away without paying its mana cost; it ends in its owner's graveyard."""
    g = guardian("The Augur")
    g.players[G].lands = 1
    bear = creature(g, 4, "Grove Bear")
    creature(g, 0, "Grove Bear")
    g.players[3].library = [cards.card("Murder")] * 4
    give_priority(g, G)
    g.step(g.layout.UNVEIL + 1)
    assert g.players[G].lands_tapped == 1
    target_player(g, 3)
    resolve_all(g)
    assert g.decision.kind == DecisionKind.SCRY and g.decision.seat == 3
    g.step(g.layout.CHOICE + 0)                            # keep on top
    assert g.players[3].life == 46 and [c.name for c in g.players[3].exile] == ["Murder"]
    assert g.decision.kind == DecisionKind.YES_NO and g.decision.seat == 3
    g.step(g.layout.CHOICE + 0)                            # cast it
    target_creature(g, bear)
    assert g.stack[-1].source == "Murder" and g.players[3].lands_tapped == 0 and not g.players[3].exile
    resolve_all(g)
    assert bear not in g.players[4].creatures
    assert [c.name for c in g.players[3].graveyard] == ["Murder"] and len(g.players[3].library) == 3


def test_augur_may_decline_and_land_gives_nothing():
    """Declined, the card stays exiled; a land has mana value 0 (no life) and isn't
    cast (nothing asked)."""
    g = guardian("The Augur")
    g.players[G].lands = 0
    hand(g, G, "Shock")
    g.players[G].library = [cards.card("Deep Study")] * 3
    give_priority(g, G)
    g.step(g.layout.UNVEIL)
    target_player(g, G)
    resolve_all(g)
    assert g.players[G].life == 48
    g.step(g.layout.PASS)
    assert [c.name for c in g.players[G].exile] == ["Deep Study"] and not g.stack
    g = guardian("The Augur")
    hand(g, G, "Shock")
    g.players[G].lands = 0
    g.players[2].library = [cards.card("Wastes")] * 3
    give_priority(g, G)
    g.step(g.layout.UNVEIL)
    target_player(g, 2)
    resolve_all(g)
    assert [c.name for c in g.players[2].exile] == ["Wastes"] and g.players[2].life == 40
    assert is_priority(g) and not g.stack


def test_augur_scry_to_bottom_exiles_the_next_card():
    """Scry 1, bottom: the card below is the one exiled; the bottomed card is last."""
    g = guardian("The Augur")
    g.players[G].lands = 1
    g.players[3].library = [cards.card("Wastes"), cards.card("Shock")]
    give_priority(g, G)
    g.step(g.layout.UNVEIL + 1)
    target_player(g, 3)
    resolve_all(g)
    looked = g.turn_effects["augur_scry"]["cards"][0].name
    g.step(g.layout.CHOICE + 1)                            # bottom
    other = "Shock" if looked == "Wastes" else "Wastes"
    assert [c.name for c in g.players[3].exile] == [other]
    assert [c.name for c in g.players[3].library] == [looked]
    assert "augur_scry" not in g.turn_effects


# ============================================================== The Cryomancer
def test_cryomancer_x_range_is_the_number_of_permanents():
    """The Cryomancer: unveil {X}, X target permanents (creatures here), so X is at
    most the number of creatures."""
    g = guardian("The Cryomancer")
    hand(g, G, "Shock")
    g.players[G].lands = 5
    assert offered_xs(g, G) == [0]
    creature(g, 0, "Grove Bear")
    creature(g, 3, "Grove Bear")
    assert offered_xs(g, G) == [0, 1, 2]
    g.players[G].lands = 1
    assert offered_xs(g, G) == [0, 1]


def _attack_seat1(g, attackers):
    advance(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    for c in attackers:
        pick(g, lambda o, c=c: o is c)
        target_player(g, G)
    g.step(g.layout.PASS)


def test_cryomancer_removes_attackers_from_combat_without_stun_on_others_turn():
    """During the Leader's attack, X = 2 taps both attackers and removes them from
    combat: no combat damage; not the Cryomancer controller's turn, so no stun
    counter."""
    g = guardian("The Cryomancer")
    g.players[G].lands = 2
    bears = [creature(g, 0, "Grove Bear"), creature(g, 0, "Grove Bear")]
    bears[0].base_keywords = frozenset({"vigilance"})     # stays untapped by attacking
    creature(g, 3, "Grove Bear")                          # a third permanent: the targets are chosen
    _attack_seat1(g, bears)
    assert [c.attacking for c in bears] == [G, G] and not bears[0].tapped
    until_priority(g, G)
    g.step(g.layout.UNVEIL + 2)
    target_creature(g, bears[0])
    target_creature(g, bears[1])
    resolve_all(g)
    assert all(c.tapped and c.attacking == -1 and c.stun == 0 for c in bears)
    assert not g.combat_attackers
    advance(g, lambda g: g.phase == "main2")
    assert g.players[G].life == 40


def test_cryomancer_removed_blocker_leaves_the_attacker_blocked():
    """CR 506.4 / 509.1h: a blocker removed from combat deals and takes no damage;
    the attacker it blocked stays blocked (no trample): no damage to the player."""
    g = guardian("The Cryomancer")
    g.players[G].lands = 1
    bear = creature(g, 0, "Grove Bear")
    wall = creature(g, G, "Grove Bear")
    _attack_seat1(g, [bear])
    advance(g, lambda g: g.decision.kind == DecisionKind.BLOCKER)
    pick(g, lambda o: o is wall)
    g.step(g.layout.PASS)
    assert wall.blocking is bear and bear.blocked_by == [wall]
    until_priority(g, G)
    g.step(g.layout.UNVEIL + 1)
    target_creature(g, wall)
    resolve_all(g)
    assert wall.blocking is None and bear.blocked_by == [] and bear.was_blocked and wall.tapped
    advance(g, lambda g: g.phase == "main2")
    assert g.players[G].life == 40 and wall.damage == 0 and bear in g.players[0].creatures


def test_cryomancer_stuns_during_its_controllers_turn():
    """During its controller's own turn the X stun counters are spread among the X
    targets: one each (CR 601.2d); they stay tapped through their controller's
    next untap step (CR 122.1d), then untap the one after."""
    g = guardian("The Cryomancer")
    g.players[G].lands = 2
    a, b = creature(g, 2, "Grove Bear"), creature(g, 3, "Grove Bear")
    creature(g, 4, "Grove Bear")
    until_priority(g, G, "main1", active=G)
    g.step(g.layout.UNVEIL + 2)
    target_creature(g, a)
    target_creature(g, b)
    resolve_all(g)
    assert (a.tapped, a.stun, b.tapped, b.stun) == (True, 1, True, 1)
    advance(g, lambda g: g.active == 2)
    assert a.tapped and a.stun == 0
    advance(g, lambda g: g.active == 3)
    assert b.tapped and b.stun == 0
    advance(g, lambda g: g.active == 2)
    assert not a.tapped


# ============================================================== The Marshal
def test_marshal_cost_x_plus_four():
    """The Marshal: unveil {X}{4}."""
    g = guardian("The Marshal")
    g.players[G].lands = 3
    assert offered_xs(g, G) == []
    g.players[G].lands = 4
    assert offered_xs(g, G) == [0]
    g.players[G].lands = 7
    assert offered_xs(g, G) == [0, 1, 2, 3]


@pytest.mark.parametrize("x,wipe", [(0, False), (2, False), (3, True)])
def test_marshal_tokens_and_wipe_from_x_three(x, wipe):
    """The targeted player gets X + 4 1/1 Soldier tokens (abstraction: no colour or
    creature type to name); with X >= 3 every other creature is destroyed (the
    targeted player's earlier ones included)."""
    g = guardian("The Marshal")
    g.players[G].lands = 4 + x
    hand(g, G, "Shock")
    others = [creature(g, 0, "Grove Bear"), creature(g, 3, "War Mammoth"), creature(g, 2, "Grove Bear")]
    give_priority(g, G)
    g.step(g.layout.UNVEIL + x)
    target_player(g, 2)
    resolve_all(g)
    soldiers = [c for c in g.players[2].creatures if c.name == "Soldier"]
    assert len(soldiers) == x + 4 and all((c.power, c.toughness, c.token) == (1, 1, True) for c in soldiers)
    alive = [c for c in others if c in g.players[c.controller].creatures]
    assert alive == ([] if wipe else others)
    assert g.players[G].lands_tapped == 4 + x


# ============================================================== The Quellmaster
def test_quellmaster_cost_nine_less_one_per_non_leader_creature():
    """The Quellmaster: {9}, {1} less for each creature non-Leader players control
    (its own controller's included, the Leader's not)."""
    g = guardian("The Quellmaster")
    hand(g, G, "Shock")
    g.players[G].lands = 8
    assert offered_xs(g, G) == []
    g.players[G].lands = 9
    assert offered_xs(g, G) == [0]
    for _ in range(3):
        creature(g, 0, "Grove Bear")                  # the Leader's: no reduction
    creature(g, 2, "Grove Bear")
    creature(g, 4, "Grove Bear")
    creature(g, G, "Grove Bear")
    assert g.unveil_cost_mana(G) == 6
    g.players[G].lands = 5
    assert offered_xs(g, G) == []
    g.players[G].lands = 6
    give_priority(g, G)
    g.step(g.layout.UNVEIL)
    assert g.players[G].lands_tapped == 6 and g.players[G].identity.face_up


def test_quellmaster_cost_never_below_zero():
    g = guardian("The Quellmaster")
    for _ in range(11):
        creature(g, 3, "Grove Bear")
    hand(g, G, "Shock")
    g.players[G].lands = 0
    assert g.unveil_cost_mana(G) == 0 and offered_xs(g, G) == [0]


def test_quellmaster_taps_and_stuns_non_leader_creatures():
    """Tap all creatures non-Leader players control and put a stun counter on each;
    the Leader's creatures are untouched.  A stunned creature skips its next
    untap (CR 122.1d)."""
    g = guardian("The Quellmaster")
    leader_bear = creature(g, 0, "Grove Bear")
    mine = creature(g, G, "Grove Bear")
    theirs = [creature(g, 2, "Grove Bear"), creature(g, 4, "War Mammoth")]
    g.players[G].lands = 6
    give_priority(g, G)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert not leader_bear.tapped and leader_bear.stun == 0
    assert all(c.tapped and c.stun == 1 for c in [mine] + theirs)
    advance(g, lambda g: g.active == 2)
    assert theirs[0].tapped and theirs[0].stun == 0


# ============================================================== The Spellsnatcher
def test_spellsnatcher_cost_is_four():
    g = guardian("The Spellsnatcher")
    g.players[G].lands = 3
    assert offered_xs(g, G) == []
    g.players[G].lands = 4
    assert offered_xs(g, G) == [0]


def test_spellsnatcher_counters_exiles_and_casts_it_free_later():
    """The Spellsnatcher: the countered Lightning Strike goes to its owner's exile
    instead of the graveyard; its controller may cast it without paying its mana
    cost for as long as it stays exiled (here on a later turn, an instant at
    instant speed); after resolving it goes to its owner's graveyard."""
    g = guardian("The Spellsnatcher")
    g.players[G].lands = 4
    cast_at(g, 2, "Lightning Strike", 0)
    life0 = g.players[0].life
    until_priority(g, G)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.players[0].life == life0
    assert [c.name for c in g.players[2].exile] == ["Lightning Strike"] and not g.players[2].graveyard
    assert len(g.players[G].permissions) == 1 and g.players[G].permissions[0]["free"]
    advance(g, lambda g: g.active == 2 and g.phase == "main1")      # two turns later
    give_priority(g, G)
    assert g.layout.OTHER in options(g)
    tapped = g.players[G].lands_tapped
    g.step(g.layout.OTHER)
    target_player(g, 2)
    assert g.players[G].lands_tapped == tapped
    resolve_all(g)
    assert g.players[2].life == 37 and not g.players[G].permissions
    assert [c.name for c in g.players[2].graveyard] == ["Lightning Strike"] and not g.players[2].exile


def test_spellsnatcher_sorcery_keeps_its_timing():
    """A snatched sorcery is cast at sorcery timing only (CR 601.3): not during the
    Leader's turn, then in its controller's own main phase."""
    g = guardian("The Spellsnatcher")
    g.players[G].lands = 4
    hand(g, 0, "Shock", "Lava Axe")
    g.players[0].lands = 6                                 # Shock stays castable: seat 0 keeps stopping
    give_priority(g, 0)
    cast(g, 0, "Lava Axe")
    target_player(g, 2)
    until_priority(g, G)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert [c.name for c in g.players[0].exile] == ["Lava Axe"]
    give_priority(g, G)
    assert not any(a == g.layout.OTHER for a, _ in g._priority_options(G))
    hand(g, G, "Shock")
    until_priority(g, G, "main1", active=G)
    g.step(g.layout.OTHER)
    target_player(g, 4)
    resolve_all(g)
    assert g.players[4].life == 35 and [c.name for c in g.players[0].graveyard] == ["Lava Axe"]


def test_spellsnatcher_countered_commander_goes_to_command_zone():
    """CR 903.9a: a countered commander goes back to the command zone, so nothing is
    exiled and no permission is granted."""
    g = guardian("The Spellsnatcher")
    g.players[G].lands = 4
    p0 = g.players[0]
    p0.lands = 10
    give_priority(g, 0)
    g.step(g.layout.COMMANDER)
    until_priority(g, G)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert p0.commander_zone == "command" and not p0.exile and not g.players[G].permissions


# ============================================================== The Summoner
def test_summoner_cost_x_and_y_at_least_one():
    """The Summoner: unveil {X}{Y} with X >= 1 and Y >= 1: two mana at least."""
    g = guardian("The Summoner")
    hand(g, G, "Shock")
    g.players[G].lands = 1
    assert offered_xs(g, G) == []
    g.players[G].lands = 2
    assert offered_xs(g, G) == [1]
    g.players[G].lands = 4
    assert offered_xs(g, G) == [1, 2, 3]
    give_priority(g, G)
    g.step(g.layout.UNVEIL + 3)                          # Y = 1 is the only choice left
    assert g.players[G].lands_tapped == 4 and g.players[G].identity.data["y"] == 1


def test_summoner_x_shapeshifters_with_y_counters():
    """X = 2, Y = 3: the targeted player creates two 0/0 Shapeshifters with reach
    and three +1/+1 counters each (3/3); five mana paid."""
    g = guardian("The Summoner")
    g.players[G].lands = 5
    give_priority(g, G)
    g.step(g.layout.UNVEIL + 2)
    assert g.decision.kind == DecisionKind.NUMBER
    assert sorted(options(g).values()) == [1, 2, 3]
    g.step(g.layout.CHOICE + 3)
    assert g.players[G].lands_tapped == 5
    target_player(g, 3)
    resolve_all(g)
    ss = g.players[3].creatures
    assert [c.name for c in ss] == ["Shapeshifter"] * 2
    assert all((c.power, c.toughness, c.p1p1, c.has("reach"), c.token) == (3, 3, 3, True, True) for c in ss)


# ============================================================== random play
def _deals():
    """Fixed deals of 5-8 players, each with one or two of these Guardians."""
    leaders = ["The Old Ruler", "The Blood Empress", "The Queen of Light"]
    assassins = ["The Demon", "The Beastmaster", "The Seer", "The Sorceress"]
    traitors = ["The Banisher", "The Grenadier"]
    out = []
    for k in range(100):
        n = 5 + k % 4
        dist = {5: (1, 2, 1), 6: (1, 3, 1), 7: (2, 3, 1), 8: (2, 3, 2)}[n]
        gs = [MINE[(k + j * 3) % 7] for j in range(dist[0])]
        deal = [leaders[k % 3]] + gs + assassins[:dist[1]] + traitors[:dist[2]]
        out.append((n, deal))
    return out


def test_random_play_with_rare_guardians():
    """100 seeded random games dealing these Guardians (players start with 10
    lands): invariants hold at every step, results are consistent with the roles,
    and each card is unveiled; the counterspells counter something."""
    unveiled, used = set(), set()
    for seed, (n, deal) in enumerate(_deals()):
        rng = random.Random(seed)
        g = Game(GameConfig(num_players=n, identities=deal, max_turns=12, starting_life=12), seed=seed)
        play_with_lands(g, rng)
        unveiled |= {e["identity"] for e in g.log if e["event"] == "unveil"}
        for e, nxt in zip(g.log, g.log[1:]):
            if e["event"] == "resolve" and e["key"] == "unveil" and nxt["event"] == "counter":
                used.add(e["source"])
    assert set(MINE) <= unveiled, sorted(set(MINE) - unveiled)
    assert used == {"The Ætherist", "The Spellsnatcher"}
