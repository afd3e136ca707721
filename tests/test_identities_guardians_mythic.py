"""The mythic Guardians: The Great Martyr, The Oracle, The Supplier, The Warlock
(card facts: ``shared/reference/identities.json``, set TRD-2025; rulings of the
official oracle JSON).

Scenarios as in tests/test_identities.py: 5 players, seat 0 the Leader (The
Old Ruler, 60 life in Commander), seat 1 the Guardian under test, seats 2 and 3
Assassins, seat 4 a Traitor; the game starts at the Leader's first main phase
(``identity_helpers.at_main``) and Undercover is met by an attack on the Leader
(``leader_attacked_by``) unless a test says otherwise.
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

from identity_helpers import (at_main, cast, creature, deal5, give_priority, hand, is_priority, pass_until,
                              pick, resolve_all, target_player)
from test_fuzz import play_with_lands

REF_PATH = Path(__file__).resolve().parents[2] / "shared" / "reference" / "identities.json"
if not REF_PATH.exists():  # pragma: no cover - layout of another checkout
    REF_PATH = Path("/work/shared/reference/identities.json")
REF = {c["name"]: c for c in json.loads(REF_PATH.read_text("utf-8"))}

MARTYR, ORACLE, SUPPLIER, WARLOCK = "The Great Martyr", "The Oracle", "The Supplier", "The Warlock"
MINE = (MARTYR, ORACLE, SUPPLIER, WARLOCK)


def _at(name: str, undercover: bool = True):
    g = at_main(deal5(G=name))
    if undercover:
        g.leader_attacked_by.add(2)
    return g


def _unveil(g, seat: int = 1, lands: int | None = None) -> None:
    """``seat`` unveils (paying its cost) and the trigger resolves."""
    if lands is not None:
        g.players[seat].lands = lands
    give_priority(g, seat)
    g.step(g.layout.UNVEIL)
    resolve_all(g)


def _settle(g) -> None:
    """Pending triggers go on the stack and everything resolves (seat 0 keeps
    an instant and a land so that it is asked at each priority)."""
    give_priority(g, 0)
    resolve_all(g)


def _names(pile) -> list[str]:
    return [c.name for c in pile]


def _offered(g, seat: int) -> set[int]:
    return {a for a, _ in g._priority_options(seat)}


# ============================================================== card data, costs, Undercover
@pytest.mark.parametrize("name", MINE)
def test_card_data_matches_reference_facts(name):
    """Role, unveil cost and Undercover are the card's (identities.json); the
    card is implemented (CR 702.187c, 702.187f)."""
    ref, card = REF[name], ids.get(name)
    assert name in IMPLEMENTATIONS
    assert card.rarity == "mythic" and card.role == Role.GUARDIAN
    assert card.undercover and ref["undercover"]["has_undercover"]
    rc, c = ref["unveil_cost"], card.unveil_cost
    assert (c.mana, c.x, c.life) == (rc.get("mana", 0), rc.get("x_mana", 0), rc.get("life", 0))
    assert c.discard == rc.get("discard")


@pytest.mark.parametrize("name,mana", [(MARTYR, 2), (ORACLE, 2), (WARLOCK, 3)])
def test_mana_cost_exact_and_undercover(name, mana):
    """CR 702.187c/f, TR5: Undercover forbids the unveil until another identity
    was turned face up or another player attacked the Leader; then exactly
    {mana} pays it (one less does not)."""
    g = _at(name, undercover=False)
    p = g.players[1]
    p.lands = 10
    assert not g.can_unveil(1, ignore_cost=True)
    assert g.layout.UNVEIL not in _offered(g, 1)
    g.leader_attacked_by.add(1)                              # its own attack doesn't count (TR5)
    assert not g.can_unveil(1, ignore_cost=True)
    g.leader_attacked_by.add(3)
    give_priority(g, 1)
    assert g.can_unveil(1) and g.layout.UNVEIL in _offered(g, 1)
    p.lands = mana - 1
    assert not g.can_unveil(1) and g.layout.UNVEIL not in _offered(g, 1)
    p.lands = mana
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    assert p.identity.face_up and p.lands_tapped == mana


# ============================================================== The Great Martyr
def _martyr():
    g = _at(MARTYR)
    _unveil(g, lands=2)
    assert g.players[1].identity.face_up
    return g


def test_martyr_redirects_damage_and_draws_half_rounded_up():
    """The Great Martyr: damage a source an opponent controls would deal to a
    Leader player is dealt to the Martyr's controller instead, who draws half
    that many cards rounded up (5 -> 3; ruling: 1 or 2 damage -> 1 card).
    Face-down players are opponents of everyone (CR 907.7g)."""
    g = _martyr()
    L, M = g.players[0], g.players[1]
    assert not g.players[2].identity.face_up               # a face-down Assassin's source
    assert g.damage(2, ("p", 0), 5) == 5
    assert L.life == 60 and M.life == 35
    _settle(g)
    assert len(M.hand) == 3
    assert g.damage(4, ("p", 0), 1) == 1                   # face-down Traitor: 1 damage -> 1 card
    _settle(g)
    assert L.life == 60 and M.life == 34 and len(M.hand) == 4
    # a Shock cast at the Leader by a face-down Assassin: 2 damage -> 1 card
    g.players[3].lands = 1
    hand(g, 3, "Shock")
    give_priority(g, 3)
    cast(g, 3, "Shock")
    target_player(g, 0)
    resolve_all(g)
    _settle(g)
    assert L.life == 60 and M.life == 32 and len(M.hand) == 5
    assert any(e["event"] == "redirect" and e["what"] == "damage" and e["n"] == 2 for e in g.log)


def test_martyr_does_not_redirect_teammates_sources_others_or_creatures():
    """Only sources opponents control, only damage to Leader players: the
    Leader's own and the Martyr's own sources, damage from no source, damage to
    another player and damage to the Leader's creatures are untouched."""
    g = _martyr()
    L, M = g.players[0], g.players[1]
    bear = creature(g, 0, "Grove Bear")
    assert g.damage(0, ("p", 0), 2) == 2 and L.life == 58            # the Leader's own source
    assert g.damage(1, ("p", 0), 3) == 3 and L.life == 55            # the Martyr's own source
    assert g.deal_damage(0, 4) == 4 and L.life == 51                 # no source
    assert g.damage(2, ("p", 3), 3) == 3 and g.players[3].life == 37  # not a Leader
    g.damage(2, ("c", bear), 1)
    assert bear.damage == 1
    g.lose_life(0, 2, source_seat=None)
    assert L.life == 49 and M.life == 40
    _settle(g)
    assert M.hand == [] and not any(e["event"] == "redirect" for e in g.log)


def test_martyr_face_up_traitor_source_counts():
    """A face-up Traitor opposes everyone (CR 907.7f): its life loss is redirected."""
    g = _martyr()
    g.players[4].identity.face_up = True
    g.lose_life(0, 3, source_seat=4)
    assert g.players[0].life == 60 and g.players[1].life == 37


def test_martyr_redirects_life_loss_and_draws():
    """The Great Martyr: life loss from an opponent's source is lost by the
    Martyr's controller instead; 3 life -> 2 cards, 4 life -> 2 cards."""
    g = _martyr()
    L, M = g.players[0], g.players[1]
    g.lose_life(0, 3, source_seat=2)
    assert L.life == 60 and M.life == 37
    _settle(g)
    assert len(M.hand) == 2
    g.lose_life(0, 4, source_seat=3)
    _settle(g)
    assert L.life == 60 and M.life == 33 and len(M.hand) == 4
    assert g.harm[3][1] == 4 and g.harm[3][0] == 0


def test_martyr_redirects_discard_and_gains_two_per_card():
    """The Great Martyr: Mind Rot (an opponent's sorcery, 2 cards) aimed at the
    Leader makes the Martyr's controller discard two cards instead, each
    gaining 2 life (4 in all); the Leader keeps their hand."""
    g = _at(MARTYR)
    M = g.players[1]
    M.lands = 2
    # go to seat 3's turn, where it can cast a sorcery
    g.players[3].lands = 2
    hand(g, 3, "Mind Rot")
    pass_until(g, lambda g: g.active == 3 and g.phase == "main1" and is_priority(g) and g.decision.seat == 3)
    g.players[0].hand = [cards.card("Shock"), cards.card("Wastes"), cards.card("Murder")]
    hand(g, 1, "Wastes", "Blaze", "Murder")
    cast(g, 3, "Mind Rot")
    target_player(g, 0)
    give_priority(g, 1)                                     # the Martyr answers with its unveil
    g.step(g.layout.UNVEIL)
    while g.stack or g.decision.kind != DecisionKind.PRIORITY:
        if g.decision.kind == DecisionKind.DISCARD:
            assert g.decision.seat == 1
            g.step(g.decision.options[0][0])
        else:
            g.step(g.layout.PASS)
    assert len(g.players[0].hand) == 3
    assert len(M.hand) == 1 and len(M.graveyard) == 2
    assert M.life == 44
    assert sum(1 for e in g.log if e["event"] == "gain_life" and e["seat"] == 1) == 2


def test_martyr_discard_as_many_as_possible():
    """Ruling: with fewer cards than required the Martyr's controller discards
    what they can (one card -> 2 life), with none nothing happens."""
    g = _martyr()
    M = g.players[1]
    hand(g, 1, "Blaze")
    g.then(("discard", 0, 2, 2))                            # an effect of seat 2: the Leader discards 2
    g._advance()
    _settle(g)
    assert M.hand == [] and _names(M.graveyard) == ["Blaze"] and M.life == 42
    assert len(g.players[0].hand) == 2
    g.then(("discard", 0, 1, 2))
    g._advance()
    _settle(g)
    assert M.life == 42 and len(g.players[0].hand) == 2


def test_martyr_redirects_sacrifice_and_gains_two():
    """The Great Martyr: a sacrifice an opponent's source makes a Leader player
    do is made by the Martyr's controller instead (they choose the permanent)
    and they gain 2 life; with no permanent to sacrifice nothing happens
    (ruling).  A sacrifice to pay a cost is not redirected (ruling)."""
    g = _martyr()
    L, M = g.players[0], g.players[1]
    knight = creature(g, 0, "Shield Knight")
    bear = creature(g, 1, "Grove Bear")
    lion = creature(g, 1, "Dune Lion")
    assert g.sacrifice(knight, source_seat=2) is False
    give_priority(g, 0)                                     # the queued choice comes first
    assert g.decision.seat == 1 and g.decision.kind == DecisionKind.CARD
    pick(g, lambda c: c is lion)
    _settle(g)
    assert knight in L.creatures and lion not in M.creatures and bear in M.creatures
    assert _names(M.graveyard) == ["Dune Lion"] and M.life == 42
    g.sacrifice(bear, source_seat=None)                     # the Martyr's own (cost-like) sacrifice
    M.creatures.clear()
    g.sacrifice(knight, source_seat=3)                      # nothing left to sacrifice
    _settle(g)
    assert knight in L.creatures and M.life == 42
    g.sacrifice(knight, source_seat=None)                   # a cost: the Leader pays it
    assert knight not in L.creatures


def test_martyr_redirects_combat_damage_including_commander_damage():
    """Combat damage from an opponent's attacking creature is dealt to the
    Martyr's controller, with its consequences (ruling: commander damage)."""
    g = _at(MARTYR)
    M = g.players[1]
    M.lands = 2
    imp = creature(g, 2, "Rage Ogre")
    imp.is_commander = True
    pass_until(g, lambda g: g.active == 2 and g.phase == "main1")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.players[0].hand = []
    g.players[0].lands = 0
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER and g.decision.seat == 2)
    n_hand = len(M.hand)
    pick(g, lambda c: c is imp)
    target_player(g, 0)
    while g.decision is not None and g.decision.kind != DecisionKind.PRIORITY or g.phase != "main2":
        g.step(g.layout.PASS)
    assert g.players[0].life == 60 and M.life == 37
    assert M.cmd_damage.get(2) == 3 and not g.players[0].cmd_damage
    assert len(M.hand) == n_hand + 2


def test_martyr_effect_ends_at_cleanup():
    """'Until end of turn': from the next turn on, damage reaches the Leader."""
    g = _martyr()
    assert len([e for e in g.effects if e["controller"] == 1]) == 4
    g.players[0].hand = []
    g.players[0].lands = 0
    pass_until(g, lambda g: g.active == 1)
    assert not g.effects
    g.damage(2, ("p", 0), 3)
    assert g.players[0].life == 57 and g.players[1].life == 40


def test_martyr_controller_gone_redirects_nothing():
    """Once the Martyr's controller has left the game nothing is redirected."""
    g = _martyr()
    g.lose(1)
    g.damage(2, ("p", 0), 3)
    assert g.players[0].life == 57


def test_martyr_no_draw_when_redirected_damage_is_prevented():
    """'Whenever you are dealt damage this way': a prevention shield on the
    Martyr's controller (The Bodyguard's kind) stops the damage, so nothing is
    drawn; the Leader is still spared (the damage was redirected)."""
    g = _martyr()
    g.shields.append({"kind": "prevent_damage", "seat": 1, "until_turn_of": 1, "owner": 1})
    assert g.damage(2, ("p", 0), 4) == 0
    _settle(g)
    assert g.players[0].life == 60 and g.players[1].life == 40 and g.players[1].hand == []


def test_martyr_opponents_are_its_controllers_opponents():
    """The card says "a source an opponent controls": an opponent of the
    Martyr's controller.  Turned face down again (The Puppet Master's kind of
    effect), its controller opposes everyone (CR 907.7g), so even the Leader's
    own source is redirected for the rest of the turn."""
    g = _martyr()
    g.damage(0, ("p", 0), 2)
    assert g.players[0].life == 58 and g.players[1].life == 40
    g.turn_face_down(1)
    g.damage(0, ("p", 0), 2)
    assert g.players[0].life == 58 and g.players[1].life == 38


SEVEN = ["The Old Ruler", MARTYR, ORACLE, "The Demon", "The Beastmaster", "The Seer", "The Banisher"]


@pytest.mark.parametrize("first", [MARTYR, ORACLE])
def test_martyr_and_oracle_life_loss_is_not_redirected(first):
    """The Oracle's ruling: an effect replacing a life loss of a player whose
    life total can't change can't apply, whichever came first; nobody loses
    life.  Damage: the effect created first applies (documented abstraction of
    the Leader's choice of order)."""
    g = at_main(SEVEN)
    g.leader_attacked_by.add(3)
    order = [1, 2] if first == MARTYR else [2, 1]
    for s in order:
        _unveil(g, s, lands=2)
    assert g.players[1].identity.face_up and g.players[2].identity.face_up
    g.lose_life(0, 3, source_seat=3)
    assert g.players[0].life == 60 and g.players[1].life == 40
    g.damage(4, ("p", 0), 2)
    _settle(g)
    assert g.players[0].life == 60
    if first == MARTYR:
        assert g.players[1].life == 38 and len(g.players[1].hand) == 1
    else:
        assert g.players[1].life == 40 and g.players[1].hand == []


# ============================================================== The Oracle
def _oracle():
    g = _at(ORACLE)
    _unveil(g, lands=2)
    assert g.players[1].identity.face_up
    return g


def test_oracle_protection_and_life_cant_change():
    """The Oracle: until end of turn Leader players have protection from
    everything (damage prevented, can't be targeted; they can still be
    attacked) and their life totals can't change (no gain, no loss, no paying
    life: rulings, CR 119.4).  Other players are untouched."""
    g = _oracle()
    L = g.players[0]
    assert g.damage(2, ("p", 0), 5) == 0 and L.life == 60
    assert g.damage(0, ("p", 0), 1) == 0                    # everything, its own sources too
    g.gain_life(0, 7)
    g.lose_life(0, 3, source_seat=2)
    g.lose_life(0, 3)
    assert L.life == 60
    assert not g.can_pay_life(0, 1) and g.can_pay_life(0, 0) and g.can_pay_life(2, 1)
    for seat in range(5):                                   # nobody may target the Leader
        assert ("p", 0) not in g.target_candidates(seat, {"type": "player"})
        assert ("p", 0) not in g.target_candidates(seat, {"type": "any"})
    assert g.target_candidates(2, {"type": "leader_player"}) == []
    assert g.can_attack(2, 0)
    bear = creature(g, 0, "Grove Bear")                     # the Leader's permanents are not protected
    g.damage(2, ("c", bear), 1)
    assert bear.damage == 1
    assert g.damage(2, ("p", 3), 4) == 4 and g.players[3].life == 36
    g.gain_life(3, 2)
    assert g.players[3].life == 38
    assert any(e["event"] == "prevented" and e["n"] == 5 for e in g.log)


def test_oracle_makes_a_spell_targeting_the_leader_fizzle():
    """Ruling: protection gained while a spell targets the Leader makes that
    target illegal; with no legal target left the spell doesn't resolve (CR 608.2b)."""
    g = _at(ORACLE)
    g.players[1].lands = 2
    g.players[2].lands = 2
    hand(g, 2, "Lightning Strike")
    give_priority(g, 2)
    cast(g, 2, "Lightning Strike")
    target_player(g, 0)
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.players[0].life == 60
    assert any(e["event"] == "fizzle" and e["source"] == "Lightning Strike" for e in g.log)
    assert _names(g.players[2].graveyard) == ["Lightning Strike"]


def test_oracle_prevents_combat_damage_and_lifelink():
    """Attacks on the Leader are allowed but their combat damage is prevented;
    the Leader's lifelink creature gains them nothing (life can't change)."""
    g = _at(ORACLE)
    g.players[1].lands = 2
    ogre = creature(g, 2, "Rage Ogre")
    pass_until(g, lambda g: g.active == 2 and g.phase == "main1")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.players[0].hand = []
    g.players[0].lands = 0
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER and g.decision.seat == 2)
    pick(g, lambda c: c is ogre)
    target_player(g, 0)
    pass_until(g, lambda g: g.phase == "main2")
    assert g.players[0].life == 60 and not g.players[0].cmd_damage
    g.gain_life(0, 4)
    assert g.players[0].life == 60


def test_oracle_ends_at_cleanup():
    g = _oracle()
    g.players[0].hand = []
    g.players[0].lands = 0
    pass_until(g, lambda g: g.active == 1)
    assert not g.effects
    assert g.damage(2, ("p", 0), 2) == 2 and g.can_pay_life(0, 1)
    assert ("p", 0) in g.target_candidates(2, {"type": "player"})


# ============================================================== The Supplier
def test_supplier_unveil_cost_discard_a_nonland_card():
    """Unveil - discard a nonland card: only lands in hand can't pay (and no
    mana is needed); the discarded card goes to the graveyard; six gem counters
    (player counters) when unveiled."""
    g = _at(SUPPLIER)
    p = g.players[1]
    p.lands = 0
    hand(g, 1, "Wastes", "Shock")
    give_priority(g, 1)
    hand(g, 1, "Wastes")
    assert not g.can_unveil(1) and g.layout.UNVEIL not in _offered(g, 1)
    hand(g, 1, "Wastes", "Shock", "Wastes")
    give_priority(g, 1)
    assert g.can_unveil(1)
    g.step(g.layout.UNVEIL)                                 # the only nonland card is taken
    assert p.identity.face_up and _names(p.graveyard) == ["Shock"] and _names(p.hand) == ["Wastes", "Wastes"]
    assert p.counters.get("gem", 0) == 0
    resolve_all(g)
    assert p.counters["gem"] == 6


def test_supplier_unveil_cost_chooses_among_nonland_cards():
    g = _at(SUPPLIER)
    hand(g, 1, "Wastes", "Shock", "Murder")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    assert g.decision.kind == DecisionKind.COST
    assert sorted(a - g.layout.HAND for a, _ in g.decision.options) == [1, 2]
    g.step(g.layout.HAND + 2)
    assert _names(g.players[1].graveyard) == ["Murder"]


def _supplier(lands: int = 5):
    g = _at(SUPPLIER)
    hand(g, 1, "Shock")
    _unveil(g, lands=lands)
    assert g.players[1].counters["gem"] == 6 and g.players[1].lands_tapped == 0
    return g


def test_supplier_recycle_third_from_top():
    """{1}, pay a gem: target player chooses a card from their graveyard or an
    exiled card they own and puts it third from the top of their library."""
    g = _supplier()
    p, q = g.players[1], g.players[3]
    q.graveyard = [cards.card("Murder"), cards.card("Shock")]
    q.exile = [cards.card("Blaze")]
    q.library = [cards.card(n) for n in ("Wastes", "Grove Bear", "Dune Lion", "Thornwall")]
    give_priority(g, 1)
    g.step(g.layout.IDENTITY_AB + 0)
    assert p.counters["gem"] == 5 and p.lands_tapped == 1
    target_player(g, 3)
    resolve_all(g)
    assert g.decision.seat == 3 and g.decision.kind == DecisionKind.CARD   # the target player chooses
    assert sorted(g.decision.labels) == ["Blaze (exile)", "Murder (graveyard)", "Shock (graveyard)"]
    pick(g, lambda o: o == (3, "exile", "Blaze"))
    assert _names(q.library) == ["Wastes", "Grove Bear", "Blaze", "Dune Lion", "Thornwall"]
    assert q.library[-3].name == "Blaze" and q.exile == [] and len(q.graveyard) == 2
    # a short library: the card goes to the bottom
    q.library = [cards.card("Wastes")]
    give_priority(g, 1)
    g.step(g.layout.IDENTITY_AB + 0)
    target_player(g, 3)
    resolve_all(g)
    pick(g, lambda o: o[2] == "Murder")
    assert _names(q.library) == ["Murder", "Wastes"] and p.counters["gem"] == 4


def test_supplier_recycle_with_nothing_to_choose_does_nothing():
    g = _supplier()
    q = g.players[3]
    q.graveyard, q.exile = [], []
    lib = _names(q.library)
    give_priority(g, 1)
    g.step(g.layout.IDENTITY_AB + 0)
    target_player(g, 3)
    resolve_all(g)
    assert _names(q.library) == lib and g.players[1].counters["gem"] == 5


def test_supplier_dig_top_seven_keep_two_rest_to_bottom():
    """{2}, pay two gems: target player reveals their top seven cards (public),
    puts two of their choice into their hand and the other five on the bottom
    in a random order."""
    g = _supplier()
    p, q = g.players[1], g.players[3]
    names = ["Wastes", "Thornwall", "Grove Bear", "Dune Lion", "Shock", "Murder", "Blaze", "Negate",
             "Unsummon", "Counterspell"]
    q.library = [cards.card(n) for n in names]               # the top card is the last one
    q.hand = []
    give_priority(g, 1)
    g.step(g.layout.IDENTITY_AB + 1)
    assert p.counters["gem"] == 4 and p.lands_tapped == 2
    target_player(g, 3)
    resolve_all(g)
    top7 = list(reversed(names[3:]))
    rev = [e for e in g.log if e["event"] == "reveal_top_cards"]
    assert rev[-1]["cards"] == top7 and rev[-1]["to"] is None and rev[-1]["seat"] == 3
    assert g.decision.seat == 3 and g.decision.labels == top7
    pick(g, lambda k: k == top7.index("Murder"))
    assert g.decision.labels == [n for n in top7 if n != "Murder"]
    pick(g, lambda k: k == [n for n in top7 if n != "Murder"].index("Dune Lion"))
    assert sorted(_names(q.hand)) == ["Dune Lion", "Murder"]
    assert len(q.library) == 8
    assert _names(q.library[5:]) == names[:3]                # the untouched cards are on top
    assert sorted(_names(q.library[:5])) == sorted(set(top7) - {"Murder", "Dune Lion"})


def test_supplier_dig_short_library():
    """With two cards or fewer, all of them go to the hand."""
    g = _supplier()
    q = g.players[3]
    q.library = [cards.card("Shock"), cards.card("Blaze")]
    q.hand = []
    give_priority(g, 1)
    g.step(g.layout.IDENTITY_AB + 1)
    target_player(g, 3)
    resolve_all(g)
    assert sorted(_names(q.hand)) == ["Blaze", "Shock"] and q.library == []


def test_supplier_abilities_need_gems_and_mana():
    """The gems are a cost: one gem allows only the first ability, none allows
    neither; {1} / {2} must be payable too."""
    g = _supplier(lands=5)
    p = g.players[1]
    ab0, ab1 = g.layout.IDENTITY_AB, g.layout.IDENTITY_AB + 1
    assert {ab0, ab1} <= _offered(g, 1)
    p.counters["gem"] = 1
    assert ab0 in _offered(g, 1) and ab1 not in _offered(g, 1)
    p.counters["gem"] = 0
    assert not {ab0, ab1} & _offered(g, 1)
    p.counters["gem"] = 6
    p.lands_tapped = 4                                       # one mana left
    assert ab0 in _offered(g, 1) and ab1 not in _offered(g, 1)
    p.lands_tapped = 5
    assert not {ab0, ab1} & _offered(g, 1)


def test_supplier_gems_are_player_counters_in_the_observation():
    """Gem counters belong to the player (rulings), not to the identity card."""
    g = _supplier()
    assert g.players[1].counters == {"gem": 6} and "gem" not in g.players[1].identity.counters
    other = g.observation(2)["observation"]
    g.players[1].counters["gem"] = 0
    assert not (other == g.observation(2)["observation"]).all()


# ============================================================== The Warlock
def test_warlock_from_main_phase_one_exiles_the_stack_and_skips_to_combat():
    """The Warlock (Game.end_phase): unveiled in response to the Leader's Shock
    in main phase 1, the Shock is exiled (not countered, no damage), and the
    turn goes on with combat (here no attacker) then main phase 2, where the
    Leader has priority again; the next turn starts normally."""
    g = _at(WARLOCK)
    g.players[1].lands = 3
    L = g.players[0]
    L.lands = 2
    hand(g, 0, "Wastes", "Shock", "Shock")
    cast(g, 0, "Shock")
    target_player(g, 3)
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.players[3].life == 40
    assert _names(L.exile) == ["Shock"] and L.graveyard == []
    assert not g.stack and g.phase == "combat_begin"       # main phase 1 ended; combat begins
    pass_until(g, lambda g: g.phase == "main2")
    assert is_priority(g) and g.decision.seat == 0
    assert any(e["event"] == "steps_ended" and e["until"] == "main1" for e in g.log)
    # the turn goes on: the Leader can still play a land and cast in main phase 2
    assert g.layout.HAND + 0 in g.legal_actions()
    g.step(g.layout.HAND + 0)
    assert L.lands == 3
    cast(g, 0, "Shock")
    target_player(g, 3)
    resolve_all(g)
    assert g.players[3].life == 38
    pass_until(g, lambda g: g.active == 1)
    assert g.turn == 2 and not g.is_over


def test_warlock_in_combat_removes_attackers_and_goes_to_main_two():
    """Unveiled after attackers are declared: every creature is removed from
    combat, no combat damage is dealt, and the active player goes on to main
    phase 2 (the combat phase ends)."""
    g = _at(WARLOCK)
    g.players[1].lands = 3
    ogre = creature(g, 0, "Rage Ogre")
    bear = creature(g, 0, "Grove Bear")
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER and g.decision.seat == 0)
    pick(g, lambda c: c is ogre)
    target_player(g, 3)
    pick(g, lambda c: c is bear)
    target_player(g, 2)
    pass_until(g, lambda g: g.phase == "declare_attackers" and is_priority(g) and g.decision.seat == 0)
    assert ogre.attacking == 3 and bear.attacking == 2
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert ogre.attacking == -1 and bear.attacking == -1 and not g.combat_attackers
    assert ogre.tapped and bear.tapped                      # removed from combat, still tapped
    assert g.phase == "main2" and g.decision.seat == 0
    assert g.players[3].life == 40 and g.players[2].life == 40
    assert not any(e["event"] == "combat_damage" for e in g.log)
    pass_until(g, lambda g: g.active == 1 and g.phase == "main1" or g.active == 1 and g.phase == "end")
    assert g.active == 1 and not g.is_over


def test_warlock_does_nothing_in_the_ending_phase():
    """'If it isn't the ending phase': unveiled in the end step, the end step
    and the cleanup happen as usual and the next turn starts."""
    g = _at(WARLOCK)
    g.players[1].lands = 3
    pass_until(g, lambda g: g.phase == "end" and is_priority(g))
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.players[1].identity.face_up
    assert not any(e["event"] == "steps_ended" for e in g.log)
    assert g.phase == "end" and g.active == 0
    pass_until(g, lambda g: g.active == 1)
    assert g.turn == 2


def test_warlock_in_upkeep_skips_the_draw_step():
    """Ending the beginning phase in the upkeep skips the draw step (part of
    that phase): the turn goes on with main phase 1 and nobody draws."""
    g = _at(WARLOCK)
    g.players[1].lands = 3
    L = g.players[0]
    g.phase = "upkeep"                                       # scenario set-up: the Leader's upkeep
    n_hand, n_lib = len(L.hand), len(L.library)
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.phase == "main1" and g.active == 0 and g.turn == 1
    assert len(L.hand) == n_hand and len(L.library) == n_lib   # no draw step
    assert any(e["event"] == "steps_ended" and e["until"] == "draw" for e in g.log)


def test_warlock_resolving_as_its_player_leaves_ends_what_was_set_aside():
    """The Warlock's trigger is on the stack under the Leader's Shock, which
    kills seat 3's Grove Bear: The Blood Empress (seat 0) triggers and asks for
    its modes.  Seat 1 concedes then, from outside the engine loop
    (``Game.concede``): the Empress's trigger being put on the stack is set
    aside, seat 1's identity-sourced objects resolve before it leaves (CR
    907.8a), and the Warlock ends main phase 1.  The trigger not yet on the
    stack ceases to exist with the rest of the phase (CR 723.1a applied to the
    phase): it is not resumed after seat 1 leaves, and nobody gets priority in
    the ended main phase; combat begins."""
    g = at_main(deal5(L="The Blood Empress", G=WARLOCK))
    g.leader_attacked_by.add(2)
    g.players[0].lands = 2
    hand(g, 0, "Wastes", "Shock", "Shock")
    bear = creature(g, 3, "Grove Bear")
    g.players[1].lands = 3
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    give_priority(g, 0)
    cast(g, 0, "Shock")
    g.step(g.target_action(0, ("c", bear)))
    resolve_all(g)
    assert g.decision.kind == DecisionKind.MODE and g.decision.seat == 0
    assert [it.source for it in g.stack] == [WARLOCK]
    g.concede(1)
    assert g.players[1].has_lost and g.suspended is None
    assert g.phase == "combat_begin" and not g.stack and is_priority(g)
    assert not any(e["event"] == "trigger" and e["source"] == "The Blood Empress" for e in g.log)
    assert any(e["event"] == "steps_ended" and e["until"] == "main1" for e in g.log)


# ============================================================== fuzz
UNCOMMON = {
    Role.LEADER: ["The Blood Empress", "Her Seedborn Highness", "The Old Ruler", "The Queen of Light",
                  "The Void Tyrant"],
    Role.ASSASSIN: ["The Ambitious Queen", "The Beastmaster", "The Chaos Wielder", "The Demon", "The Seer",
                    "The Sigil Mage", "The Sorceress"],
    Role.TRAITOR: ["The Banisher", "The Gatekeeper", "The Grenadier", "The Oneiromancer"],
}


def _deal(k: int, rng: random.Random) -> list[str]:
    """7 players (L, 2 G, 3 A, T): two of the four mythic Guardians, in turn."""
    g1, g2 = MINE[k % 4], MINE[(k // 4 + k + 1) % 4]
    if g1 == g2:
        g2 = MINE[(k + 2) % 4]
    deal = [rng.choice(UNCOMMON[Role.LEADER]), g1, g2] + rng.sample(UNCOMMON[Role.ASSASSIN], 3) + \
        [rng.choice(UNCOMMON[Role.TRAITOR])]
    rng.shuffle(deal)
    return deal


def test_fuzz_games_with_mythic_guardians():
    """~100 random games with fixed deals including these cards: invariants at
    every step (test_fuzz.check_invariants), consistent results
    (check_result), and every card gets unveiled; the Supplier's abilities are
    used and the Martyr redirects something at least once."""
    unveiled: set = set()
    activations = redirects = 0
    for k in range(100):
        rng = random.Random(k)
        deal = _deal(k, rng)
        g = Game(GameConfig(num_players=7, identities=deal, max_turns=12, starting_life=12,
                            commander=bool(k % 2)), seed=k)
        play_with_lands(g, rng)
        unveiled |= {e["identity"] for e in g.log if e["event"] == "unveil"}
        activations += sum(1 for e in g.log if e["event"] == "activate" and e["source"] == SUPPLIER)
        redirects += sum(1 for e in g.log if e["event"] == "redirect")
    assert set(MINE) <= unveiled, sorted(set(MINE) - unveiled)
    assert activations > 0, "the Supplier's abilities were never activated"
    assert redirects > 0
