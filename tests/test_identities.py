"""The 23 uncommon identities: unveil costs and effects, checked against the
card facts of ``shared/reference/identities.json`` (set TRD-2025).

Each scenario fixes the deal (5 players: seat 0 Leader, 1 Guardian, 2 and 3
Assassins, 4 Traitor unless said otherwise), jumps to the Leader's first main
phase (see ``identity_helpers.at_main``), sets the state it needs and drives the
decisions through ``Game.step``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from treachery_env import cards
from treachery_env import identities as ids
from treachery_env.engine import DecisionKind
from treachery_env.identity_abilities import IMPLEMENTATIONS, fire_event
from treachery_env.rules import Role
from treachery_env.view import seat_view

from identity_helpers import (at_main, cast, creature, deal5, give_priority, hand, is_priority, new_game,
                              options, pass_until, pick, resolve_all, target_creature, target_player,
                              token, unveil_actions)

REF_PATH = Path(__file__).resolve().parents[2] / "shared" / "reference" / "identities.json"
if not REF_PATH.exists():  # pragma: no cover - layout of another checkout
    REF_PATH = Path("/work/shared/reference/identities.json")
REF = {c["name"]: c for c in json.loads(REF_PATH.read_text("utf-8"))}

LEADERS = ["The Blood Empress", "Her Seedborn Highness", "The Old Ruler", "The Queen of Light", "The Void Tyrant"]
GUARDIANS = ["The Bodyguard", "The Cathar", "The Flickering Mage", "The Golem", "The Immortal",
             "The Inquisitor", "The Mirror Maestra"]
ASSASSINS = ["The Ambitious Queen", "The Beastmaster", "The Chaos Wielder", "The Demon", "The Seer",
             "The Sigil Mage", "The Sorceress"]
TRAITORS = ["The Banisher", "The Gatekeeper", "The Grenadier", "The Oneiromancer"]
UNCOMMON = LEADERS + GUARDIANS + ASSASSINS + TRAITORS
ROLE_KEY = {Role.GUARDIAN: "G", Role.ASSASSIN: "A1", Role.TRAITOR: "T"}
SEAT_OF = {"G": 1, "A1": 2, "T": 4}


def seat_game(name: str):
    """A game at the Leader's main phase with ``name`` dealt to its role's seat."""
    key = ROLE_KEY[ids.get(name).role]
    return at_main(deal5(**{key: name})), SEAT_OF[key]


def offered_xs(g, seat: int) -> list[int]:
    """X values of the UNVEIL actions ``seat`` would have at its priority now."""
    L = g.layout
    return [a - L.UNVEIL for a, _ in g._priority_options(seat) if L.UNVEIL <= a < L.UNVEIL + 16]


def assert_cannot_pay(g, seat: int, x: int = 0) -> None:
    """``seat`` can't pay its unveil cost with this X: no such UNVEIL action at
    its priority, ``Game.unveil`` refuses, and nothing was paid."""
    p = g.players[seat]
    before = (p.lands_tapped, p.life, len(p.hand))
    assert x not in offered_xs(g, seat)
    with pytest.raises(ValueError, match="cannot pay"):
        g.unveil(seat, x)
    assert not p.identity.face_up and (p.lands_tapped, p.life, len(p.hand)) == before


def ab_offered(g, seat: int, k: int = 0) -> bool:
    """Whether ability ``k`` of ``seat``'s face-up identity is among the actions
    it would have at its priority now (whoever holds priority)."""
    return any(a == g.layout.IDENTITY_AB + k for a, _ in g._priority_options(seat))


def ref_mana(name: str, x: int) -> int:
    c = REF[name]["unveil_cost"]
    return c.get("mana", 0) + c.get("x_mana", 0) * x


# ============================================================== card data vs. the reference facts
@pytest.mark.parametrize("name", UNCOMMON)
def test_card_data_matches_reference_facts(name):
    """Role, unveil cost, Undercover and starting modifiers of the data file are
    those of the card facts; every uncommon identity is implemented."""
    ref, card = REF[name], ids.get(name)
    assert name in IMPLEMENTATIONS
    assert card.rarity == "uncommon" == ref["rarity"]
    assert card.role == Role.parse(ref["role"])
    assert card.undercover == ref["undercover"]["has_undercover"]
    if ref["unveil_cost"] is None:
        assert card.unveil_cost is None
    else:
        rc, c = ref["unveil_cost"], card.unveil_cost
        assert (c.mana, c.x, c.life) == (rc.get("mana", 0), rc.get("x_mana", 0), rc.get("life", 0))
        assert c.exile_from_hand == rc.get("exile_from_hand")
        assert c.discard == rc.get("discard") and c.sacrifice == rc.get("sacrifice")
    mods = ref["starting_modifiers"]
    assert card.start.get("life", 0) == mods.get("life_delta", 0)
    assert card.start.get("hand_size", 0) == mods.get("starting_hand_size_delta", 0)
    assert card.start.get("max_hand_size", 0) == mods.get("max_hand_size_delta", 0)
    assert card.start.get("counters", {}) == mods.get("identity_counters", {})


# ============================================================== unveil costs, generic
@pytest.mark.parametrize("name", GUARDIANS + ASSASSINS + TRAITORS)
def test_unveil_mana_cost_exact(name):
    """The mana of the unveil cost (X = 0, and X = 1 where the cost has X) is
    exactly the card's: one mana short is illegal, the exact amount is legal and
    is what gets paid; the cost is announced to everyone (CR 702.187c)."""
    g, s = seat_game(name)
    p = g.players[s]
    g.leader_attacked_by.add(3)              # Undercover met for Guardians (another player attacked)
    if name == "The Ambitious Queen":
        hand(g, s, "Shock")                  # a nonland card to exile
    if name == "The Mirror Maestra":
        creature(g, 3, "Grove Bear")         # something to copy when X = 1
    has_x = REF[name]["unveil_cost"].get("x_mana", 0) > 0
    x = 1 if has_x else 0
    cost = ref_mana(name, x)
    if cost > 0:
        p.lands = cost - 1
        assert x not in offered_xs(g, s)
        with pytest.raises(ValueError, match="cannot pay"):
            g.unveil(s, x)
        assert not p.identity.face_up and p.lands_tapped == 0
    p.lands = cost
    give_priority(g, s)
    assert g.decision.seat == s and g.can_unveil(s, x)
    assert x in unveil_actions(g)
    if has_x:
        assert x + 1 not in unveil_actions(g)
        assert not g.can_unveil(s, x + 1)
    g.step(g.layout.UNVEIL + x)
    assert p.identity.face_up and p.identity.x == x
    assert p.lands_tapped == cost
    assert any(e["event"] == "unveil_cost" and e["seat"] == s and e["x"] == x and e["to"] is None for e in g.log)


@pytest.mark.parametrize("name", ASSASSINS + TRAITORS)
def test_no_undercover_for_assassins_and_traitors(name):
    """Assassins and Traitors may unveil at their first priority, before anyone
    unveiled or attacked (only Guardians have Undercover here)."""
    g, s = seat_game(name)
    if name == "The Ambitious Queen":
        hand(g, s, "Shock")
    g.players[s].lands = 10
    assert not g.revealed_identities and not g.leader_attacked_by
    assert g.can_unveil(s, 0, ignore_cost=True)
    give_priority(g, s)
    assert g.decision.seat == s and 0 in unveil_actions(g)


@pytest.mark.parametrize("name", GUARDIANS)
def test_guardian_undercover(name):
    """CR 702.187f: a Guardian can't unveil, whatever its mana, until another
    player attacked the Leader (its own attack doesn't count) or another
    non-Leader identity was turned face up; the face-up Leader doesn't count."""
    g, s = seat_game(name)
    g.players[s].lands = 12
    assert not g.can_unveil(s, 0, ignore_cost=True)
    assert offered_xs(g, s) == []
    g.leader_attacked_by.add(s)
    assert not g.can_unveil(s, 0, ignore_cost=True)
    g.leader_attacked_by.add(4)
    assert g.can_unveil(s, 0, ignore_cost=True)
    give_priority(g, s)
    assert g.decision.seat == s and 0 in unveil_actions(g)
    new = at_main(deal5(G=name))
    new.players[1].lands = 12
    with pytest.raises(ValueError):
        new.unveil(1, 0)


def test_undercover_met_by_another_unveil():
    """Undercover: an Assassin unveiling lets the Guardian unveil."""
    g = at_main(deal5(G="The Immortal", A2="The Beastmaster"))
    g.players[1].lands = 3
    g.players[3].lands = 4
    assert not g.can_unveil(1, 0, ignore_cost=True)
    give_priority(g, 3)
    g.step(g.layout.UNVEIL)
    g.step(g.layout.PASS)               # no Beast targets
    resolve_all(g)
    assert g.players[3].identity.face_up
    assert g.can_unveil(1, 0, ignore_cost=True)


def test_undercover_met_by_an_identity_revealed_on_losing():
    """TR: a revealed (not unveiled) non-Leader identity counts too."""
    g = at_main(deal5(G="The Golem"))
    g.players[1].lands = 6
    assert offered_xs(g, 1) == []
    g.lose(4)                                       # the Traitor loses: revealed, not unveiled
    assert g.players[4].identity.face_up
    assert offered_xs(g, 1) == [0]


@pytest.mark.parametrize("name", LEADERS)
def test_leaders_have_no_unveil(name):
    """Leaders have no unveil cost: they start face up, known to all, take the
    first turn, and can never use the unveil special action."""
    g = new_game(deal5(L=name))
    p = g.players[0]
    assert p.identity.face_up and p.identity.known_by == set(range(5))
    assert g.active == 0 and g.turn == 1 and g.is_leader_player(0)
    assert not g.can_unveil(0, 0, ignore_cost=True)
    g = at_main(deal5(L=name))
    g.players[0].lands = 20
    give_priority(g, 0)
    assert unveil_actions(g) == []
    with pytest.raises(ValueError):
        g.unveil(0)


def test_unveil_method_runs_now():
    """``Game.unveil`` used at a seat's priority takes the special action at once:
    cost paid, face up, trigger on the stack, priority back to that seat."""
    g = at_main(deal5(A1="The Seer"))
    hand(g, 2, "Shock")
    g.players[2].lands = 2
    give_priority(g, 2)
    g.unveil(2, 1)
    assert g.players[2].identity.face_up and g.players[2].lands_tapped == 1
    assert [it.key for it in g.stack] == ["unveil"]
    assert g.decision.seat == 2 and is_priority(g)


# ============================================================== Leaders
def test_blood_empress_trigger_two_different_modes():
    g = at_main(deal5(L="The Blood Empress"))
    bear = creature(g, 2, "Grove Bear")
    g.players[0].lands = 3
    hand(g, 0, "Wastes", "Murder")
    give_priority(g, 0)
    cast(g, 0, "Murder")                 # the only creature is the target
    resolve_all(g)
    assert bear not in g.players[2].creatures
    d = g.decision
    assert d.seat == 0 and d.kind == DecisionKind.MODE
    assert sorted(options(g).values()) == [0, 1, 3]   # no creature left to tap or untap
    g.step(g.layout.CHOICE + 0)                        # Thrull
    assert 0 not in options(g).values()                # two *different* modes
    g.step(g.layout.CHOICE + 3)                        # drain
    assert sorted(options(g)) == [g.layout.PLAYER + k for k in range(1, 5)]   # opponents only
    target_player(g, 2)
    resolve_all(g)
    p0 = g.players[0]
    assert [c.name for c in p0.creatures] == ["Thrull"] and (p0.creatures[0].power, p0.creatures[0].toughness) == (0, 1)
    assert p0.life == 42 and g.players[2].life == 38


def test_blood_empress_blood_and_untap_modes_once_per_turn():
    g = at_main(deal5(L="The Blood Empress"))
    bear = creature(g, 2, "Grove Bear")
    lion = creature(g, 3, "Dune Lion")
    mine = creature(g, 0, "Shield Knight", tapped=True)
    g.players[0].lands = 6
    hand(g, 0, "Wastes", "Murder", "Murder")
    give_priority(g, 0)
    cast(g, 0, "Murder")
    target_creature(g, bear)
    resolve_all(g)
    g.step(g.layout.CHOICE + 1)                        # two Blood tokens
    g.step(g.layout.CHOICE + 2)                        # tap or untap target creature
    target_creature(g, mine)
    resolve_all(g)
    assert g.players[0].tokens["Blood"] == 2
    assert not mine.tapped                             # untapped
    cast(g, 0, "Murder")                               # a second opponent creature this turn
    target_creature(g, lion)
    resolve_all(g)
    assert lion not in g.players[3].creatures
    assert not g.stack and is_priority(g) and g.decision.seat == 0   # no second trigger this turn
    assert g.players[0].tokens["Blood"] == 2
    g.turn += 1                                        # a later turn: it triggers again
    c = creature(g, 3, "Grove Bear")
    foe = creature(g, 4, "Dune Lion")
    g.destroy(c)
    assert [t.key for t in g.pending_triggers] == ["empress"]
    give_priority(g, 0)
    g.step(g.layout.CHOICE + 2)                        # tap or untap: an untapped creature taps
    target_creature(g, foe)
    g.step(g.layout.CHOICE + 0)
    resolve_all(g)
    assert foe.tapped and len(g.players[0].creatures) == 2   # Shield Knight and a Thrull


def test_blood_empress_ignores_own_and_teammates_creatures():
    g = at_main(deal5(L="The Blood Empress", G="The Immortal"))
    mine = creature(g, 0, "Grove Bear")
    g.destroy(mine)
    assert not g.pending_triggers
    g.players[1].identity.face_up = True               # a face-up Guardian is a teammate
    theirs = creature(g, 1, "Grove Bear")
    g.destroy(theirs)
    assert not g.pending_triggers
    foe = creature(g, 4, "Grove Bear")                 # face-down: an opponent
    g.destroy(foe)
    assert len(g.pending_triggers) == 1


@pytest.mark.parametrize("n", [4, 5, 8])
def test_seedborn_starts_with_a_seed_counter_per_player(n):
    deal = {4: ["Her Seedborn Highness", "The Seer", "The Demon", "The Banisher"],
            5: deal5(L="Her Seedborn Highness"),
            8: ["Her Seedborn Highness", "The Bodyguard", "The Golem", "The Seer", "The Demon", "The Sorceress",
                "The Banisher", "The Grenadier"]}[n]
    g = new_game(deal)
    assert g.players[0].identity.counters == {"seed": n}


def test_seedborn_untap_cost_counter_and_once_per_turn():
    g = at_main(deal5(L="Her Seedborn Highness"))
    p = g.players[0]
    bear = creature(g, 0, "Grove Bear", tapped=True)
    p.lands, p.lands_tapped = 4, 1
    hand(g, 0, "Wastes", "Shock")                      # an instant: seat 0 stops with the ability on the stack
    give_priority(g, 0)
    ab = g.layout.IDENTITY_AB
    assert ab in g.legal_actions()
    g.step(ab)
    assert p.lands_tapped == 3 and p.identity.counters["seed"] == 4    # {2} paid, a counter removed
    resolve_all(g)
    assert p.lands_tapped == 0 and not bear.tapped
    assert not ab_offered(g, 0)                                 # once each turn
    assert g.available_mana(0) >= 2
    g.turn += 1
    give_priority(g, 0)
    assert ab in g.legal_actions()
    p.lands_tapped = 3                                                 # 1 mana: can't pay {2}
    give_priority(g, 0)
    assert not ab_offered(g, 0)
    p.lands_tapped = 0
    p.identity.counters["seed"] = 0                                    # no counter to remove
    give_priority(g, 0)
    assert not ab_offered(g, 0)



def test_seedborn_untap_leaves_a_stunned_creature_tapped_and_removes_a_stun_counter():
    """CR 122.1d: if a tapped permanent with a stun counter would become untapped,
    a stun counter is removed instead, for every untap, not only the untap
    step's: Her Seedborn Highness's "untap each permanent you control" goes
    through the same rule (``Game.untap``; fidelity section 3, Stun)."""
    g = at_main(deal5(L="Her Seedborn Highness"))
    p = g.players[0]
    bear = creature(g, 0, "Grove Bear", tapped=True)
    lion = creature(g, 0, "Dune Lion", tapped=True)
    bear.stun = 2
    p.lands, p.lands_tapped = 4, 1
    hand(g, 0, "Wastes", "Shock")
    give_priority(g, 0)
    g.step(g.layout.IDENTITY_AB)
    resolve_all(g)
    assert bear.tapped and bear.stun == 1 and not lion.tapped and p.lands_tapped == 0

def test_old_ruler_starting_modifiers():
    g = new_game(deal5(L="The Old Ruler"))
    assert [p.life for p in g.players] == [60, 40, 40, 40, 40]
    assert len(g.players[0].hand) == 8 and all(len(p.hand) == 7 for p in g.players[1:])
    assert g.players[0].max_hand_size == 8 and g.players[1].max_hand_size == 7
    g = new_game(deal5(L="The Old Ruler"), commander=False)
    assert g.players[0].life == 40 and g.players[1].life == 20


def test_old_ruler_first_upkeep_tokens_once():
    g = new_game(deal5(L="The Old Ruler"))
    resolve_all(g)
    assert g.turn == 1 and not g.stack
    assert [e["seat"] for e in g.log if e["event"] == "trigger" and e["key"] == "old_ruler"] == [0]
    tok = g.players[0].tokens
    assert {k: tok[k] for k in ("Blood", "Clue", "Food", "Map", "Treasure")} == dict.fromkeys(
        ("Blood", "Clue", "Food", "Map", "Treasure"), 1)
    assert all(sum(p.tokens.values()) == 0 for p in g.players[1:])
    fire_event(g, "upkeep", seat=0)                    # a later upkeep: no new trigger
    fire_event(g, "upkeep", seat=1)
    assert not g.pending_triggers


def test_old_ruler_discards_down_to_eight():
    g = at_main(deal5(L="The Old Ruler"))
    hand(g, 0, *(["Wastes"] * 9))
    g.players[0].land_played = True
    g.phase = "end"
    g.decision = None
    g.priority_seat = None
    g._advance()                                       # cleanup: discard one
    assert g.decision.kind == DecisionKind.DISCARD and g.decision.seat == 0
    g.step(g.layout.HAND)
    assert len(g.players[0].hand) == 8
    assert not (g.decision.kind == DecisionKind.DISCARD and g.decision.seat == 0)   # one discard only


@pytest.mark.parametrize("name,kind", [("The Queen of Light", "purification"), ("The Void Tyrant", "void")])
@pytest.mark.parametrize("n", [4, 5, 8])
def test_leader_counters_half_the_players(name, kind, n):
    deal = {4: [name, "The Seer", "The Demon", "The Banisher"], 5: deal5(L=name),
            8: [name, "The Bodyguard", "The Golem", "The Seer", "The Demon", "The Sorceress",
                "The Banisher", "The Grenadier"]}[n]
    assert new_game(deal).players[0].identity.counters == {kind: n // 2}


def test_queen_of_light_exiles_a_permanent_chosen_on_resolution():
    g = at_main(deal5(L="The Queen of Light"))
    p = g.players[0]
    p.lands = 4
    hand(g, 0, "Wastes", "Shock")                      # seat 0 stops with the ability on the stack
    bear = creature(g, 2, "Grove Bear")
    give_priority(g, 0)
    ab = g.layout.IDENTITY_AB
    g.step(ab)
    item = g.stack[-1]
    assert item.targets == [] and p.lands_tapped == 3 and p.identity.counters["purification"] == 1
    angel = creature(g, 3, "Storm Angel")              # arrives after activation: still choosable
    resolve_all(g)
    assert g.decision.seat == 0 and g.decision.kind == DecisionKind.CARD
    assert set(options(g).values()) == {bear, angel}
    target_creature(g, angel)
    assert angel not in g.players[3].creatures and g.players[3].exile[-1].name == "Storm Angel"
    assert bear in g.players[2].creatures


def test_queen_of_light_may_exile_a_planeswalker():
    """Card ("exile a permanent"): a planeswalker is a permanent (CR 306): it is
    offered beside the creatures and goes to its owner's exile."""
    g = at_main(deal5(L="The Queen of Light"))
    p = g.players[0]
    p.lands = 4
    hand(g, 0, "Wastes", "Shock")
    bear = creature(g, 2, "Grove Bear")
    pyra = g.put_planeswalker_onto_battlefield(3, cards.card("Pyra, Storm Sage"))
    give_priority(g, 0)
    g.step(g.layout.IDENTITY_AB)
    resolve_all(g)
    assert g.decision.seat == 0 and g.decision.kind == DecisionKind.CARD
    assert set(options(g).values()) == {bear, pyra}
    a = g.target_action(0, ("w", pyra))
    (ov,) = [o for o in seat_view(g, 0).decision.options if o.action == a]
    assert (ov.kind, ov.planeswalker, ov.player, ov.text) == (
        "choice", pyra.uid, 3, "Pyra, Storm Sage (P3's planeswalker, loyalty 4)")
    g.step(a)
    assert not g.players[3].attackables and g.players[3].exile[-1].name == "Pyra, Storm Sage"
    assert bear in g.players[2].creatures


def test_queen_of_light_cost_limits():
    g = at_main(deal5(L="The Queen of Light"))
    p = g.players[0]
    ab = g.layout.IDENTITY_AB
    p.lands = 2
    give_priority(g, 0)
    assert not ab_offered(g, 0)                 # {3} needed
    p.lands = 9
    give_priority(g, 0)
    g.step(ab)
    resolve_all(g)
    g.step(ab)
    resolve_all(g)
    assert p.identity.counters["purification"] == 0
    assert not ab_offered(g, 0)                 # no counter left (no once-per-turn limit before)


def test_void_tyrant_counters_a_spell():
    g = at_main(deal5(L="The Void Tyrant"))
    g.players[0].lands = 3
    hand(g, 0, "Wastes", "Shock")                      # seat 0 stops with the ability on the stack
    g.players[2].lands = 1
    hand(g, 2, "Shock")
    give_priority(g, 2)
    cast(g, 2, "Shock")
    target_player(g, 0)
    shock = g.stack[-1]
    pass_until(g, lambda g: g.decision.seat == 0)
    ab = g.layout.IDENTITY_AB
    g.step(ab)                                         # the only target: Shock
    assert g.players[0].identity.counters["void"] == 1 and g.players[0].lands_tapped == 2
    assert g.stack[-1].targets == [("s", shock)]
    resolve_all(g)
    assert g.players[0].life == 40 and shock not in g.stack
    assert [c.name for c in g.players[2].graveyard] == ["Shock"]


def test_void_tyrant_cannot_counter_identity_abilities_but_can_counter_others():
    g = at_main(deal5(L="The Void Tyrant", A2="The Beastmaster"))
    g.players[0].lands = 4
    hand(g, 0, "Wastes", "Shock")
    g.players[3].lands = 4
    give_priority(g, 3)
    g.step(g.layout.UNVEIL)
    target_player(g, 3)
    g.step(g.layout.PASS)
    assert [it.source for it in g.stack] == ["The Beastmaster"]
    give_priority(g, 0)
    assert not ab_offered(g, 0)   # source is an identity card
    resolve_all(g)
    assert len(g.players[3].creatures) == 2
    # a creature's enters ability (not from an identity) can be countered
    g.put_onto_battlefield(2, cards.card("Flame Adept"))
    give_priority(g, 0)                    # the enters trigger goes on the stack first
    assert g.decision.seat == 2            # Flame Adept's controller chooses its target
    target_player(g, 0)
    pass_until(g, lambda g: g.decision.seat == 0)
    g.step(g.layout.IDENTITY_AB)
    resolve_all(g)
    assert g.players[0].life == 40 and g.players[0].identity.counters["void"] == 1
    assert any(e["event"] == "counter" and e["source"] == "Flame Adept" for e in g.log)


# ============================================================== Guardians
def _guardian_at(name, **extra):
    g = at_main(deal5(G=name, **extra))
    g.leader_attacked_by.add(2)
    return g


def test_bodyguard_prevents_damage_to_player_and_creatures_until_next_turn():
    g = _guardian_at("The Bodyguard")
    g.players[1].lands = 4
    knight = creature(g, 0, "Shield Knight")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    target_player(g, 0)
    resolve_all(g)
    assert g.damage(2, ("p", 0), 5) == 0 and g.players[0].life == 60
    assert g.damage(2, ("c", knight), 3) == 0 and knight.damage == 0
    assert g.damage(2, ("p", 3), 2) == 2 and g.players[3].life == 38     # others unprotected
    # a Lightning Strike at the Leader is prevented too
    g.players[2].lands = 2
    hand(g, 2, "Lightning Strike")
    give_priority(g, 2)
    cast(g, 2, "Lightning Strike")
    target_player(g, 0)
    resolve_all(g)
    assert g.players[0].life == 60
    # still on during the Leader's turn; ends as the Bodyguard's controller's turn starts
    g.players[0].hand = []
    g.players[0].lands = 0
    pass_until(g, lambda g: g.active == 1)
    assert not g.shields
    assert g.damage(2, ("p", 0), 5) == 5


def test_bodyguard_shield_outlasts_its_controller_until_their_turn_would_begin():
    """CR 800.4k: an "until your next turn" effect of a player who left lasts
    until that turn would have begun: here the start of seat 2's turn."""
    g = _guardian_at("The Bodyguard")
    g.players[1].lands = 4
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    target_player(g, 0)
    resolve_all(g)
    g.lose(1)                                          # the Bodyguard's controller leaves on turn 1
    assert g.shields and g.damage(3, ("p", 0), 4) == 0
    g.players[0].hand = []
    g.players[0].lands = 0
    pass_until(g, lambda g: g.active != 0)
    assert g.active == 2 and not g.shields
    assert g.damage(3, ("p", 0), 4) == 4


def test_bodyguard_cost_is_four_with_undercover():
    g = _guardian_at("The Bodyguard")
    g.players[1].lands = 3
    assert_cannot_pay(g, 1)
    g.players[1].lands = 4
    give_priority(g, 1)
    assert unveil_actions(g) == [0]


def test_cathar_cost_five_mana_and_five_life():
    g = _guardian_at("The Cathar")
    p = g.players[1]
    p.lands = 5
    p.life = 4
    assert g.can_unveil(1, ignore_cost=True)              # rules restrictions met ...
    assert_cannot_pay(g, 1)  # ... but 4 life can't pay 5 (CR 119.4)
    assert not any(a == g.layout.UNVEIL for a, _ in g._priority_options(1))
    p.life = 40
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    assert p.life == 35 and p.lands_tapped == 5
    assert any(e["event"] == "pay_life" and e["n"] == 5 for e in g.log)


def test_cathar_exiles_until_its_controller_loses():
    g = _guardian_at("The Cathar")
    g.players[1].lands = 5
    bear = creature(g, 2, "Grove Bear")
    lion = creature(g, 3, "Dune Lion")
    beast = token(g, 4, "Beast")
    knight = creature(g, 0, "Shield Knight")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    target_creature(g, bear)
    assert g.target_action(1, ("c", bear)) not in g.legal_actions()   # not twice for one "target"
    target_creature(g, lion)
    target_creature(g, beast)                          # the third and last target: no more asked
    assert g.decision.kind == DecisionKind.PRIORITY
    resolve_all(g)
    assert bear not in g.players[2].creatures and lion not in g.players[3].creatures
    assert not g.players[4].creatures and knight in g.players[0].creatures
    assert [c.name for c in g.players[2].exile] == ["Grove Bear"]
    g.lose(1)                                          # The Cathar's controller loses
    assert [c.name for c in g.players[2].creatures] == ["Grove Bear"]
    assert [c.name for c in g.players[3].creatures] == ["Dune Lion"]
    assert g.players[2].exile == [] and g.players[4].creatures == []   # the token is gone for good


def test_cathar_up_to_three_targets_may_be_none():
    g = _guardian_at("The Cathar")
    g.players[1].lands = 5
    bear = creature(g, 2, "Grove Bear")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    assert g.layout.PASS in g.legal_actions()
    g.step(g.layout.PASS)
    resolve_all(g)
    assert bear in g.players[2].creatures


def test_flickering_mage_returns_tapped_at_next_end_step():
    g = _guardian_at("The Flickering Mage")
    g.players[1].lands = 4
    mine = creature(g, 0, "Grove Bear")
    lion = creature(g, 2, "Dune Lion")
    soldier = token(g, 3, "Soldier")
    angel = creature(g, 3, "Storm Angel")
    keep = creature(g, 4, "Thicket Troll")
    g.players[0].lands = 1
    hand(g, 0, "Wastes", "Shock")                      # seat 0 stops at each priority
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    for c in (mine, lion, soldier, angel):             # up to four
        target_creature(g, c)
    resolve_all(g)
    assert keep in g.players[4].creatures
    assert not g.players[0].creatures and not g.players[2].creatures and not g.players[3].creatures
    pass_until(g, lambda g: g.phase == "end")
    assert [(c.name, c.tapped) for c in g.players[0].creatures] == [("Grove Bear", True)]
    assert [(c.name, c.tapped) for c in g.players[2].creatures] == [("Dune Lion", True)]
    assert [c.name for c in g.players[3].creatures] == ["Storm Angel"]  # the Soldier token is gone
    assert not g.delayed


def test_flickering_mage_cost_is_four():
    g = _guardian_at("The Flickering Mage")
    g.players[1].lands = 3
    assert_cannot_pay(g, 1)
    g.players[1].lands = 4
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    assert g.players[1].lands_tapped == 4 and g.players[1].identity.face_up


def test_golem_drains_the_leader_and_protects_leaders():
    g = _guardian_at("The Golem")
    g.players[1].lands = 6
    bear = creature(g, 2, "Grove Bear")
    g.players[2].lands = 1
    hand(g, 2, "Shock")
    assert g.can_attack(2, 0)
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)                            # the only Leader player is the target
    resolve_all(g)
    assert g.players[0].life == 54 and g.players[1].life == 46
    assert not g.can_attack(2, 0) and g.can_attack(2, 3)
    give_priority(g, 2)
    cast(g, 2, "Shock")
    assert ("p", 0) not in options(g).values() and ("p", 3) in options(g).values()
    assert ("c", bear) in options(g).values()
    # the Golem's teammate can still target the Leader
    assert ("p", 0) in g.target_candidates(1, {"type": "player"})
    g.lose(1)                                          # once its controller loses, no more protection
    assert g.can_attack(2, 0) and ("p", 0) in g.target_candidates(2, {"type": "player"})


def test_golem_cost_is_six():
    g = _guardian_at("The Golem")
    g.players[1].lands = 5
    give_priority(g, 1)
    assert_cannot_pay(g, 1)
    g.players[1].lands = 6
    give_priority(g, 1)
    assert g.decision.seat == 1 and g.can_unveil(1) and unveil_actions(g) == [0]


def test_immortal_life_and_graveyard_shuffle():
    g = _guardian_at("The Immortal")
    g.players[1].lands = 3
    g.players[3].graveyard = [cards.card("Shock"), cards.card("Murder")]
    lib = [c.name for c in g.players[3].library]
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    target_player(g, 0)                                # gains 15
    target_player(g, 3)                                # shuffles graveyard into library
    resolve_all(g)
    assert g.players[0].life == 75
    assert g.players[3].graveyard == []
    assert sorted(c.name for c in g.players[3].library) == sorted(lib + ["Shock", "Murder"])


def test_immortal_both_parts_optional_and_same_player():
    g = _guardian_at("The Immortal")
    g.players[1].lands = 6
    g.players[1].graveyard = [cards.card("Shock")]
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    target_player(g, 1)
    target_player(g, 1)                                # same player for both
    resolve_all(g)
    assert g.players[1].life == 55 and g.players[1].graveyard == []
    g = _guardian_at("The Immortal")
    g.players[1].lands = 3
    g.players[1].graveyard = [cards.card("Shock")]
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    g.step(g.layout.PASS)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert [p.life for p in g.players] == [60, 40, 40, 40, 40] and len(g.players[1].graveyard) == 1


def test_inquisitor_x_range():
    """{X}{1}: X other target players, so X is at most the number of other players."""
    g = _guardian_at("The Inquisitor")
    g.players[1].lands = 2
    give_priority(g, 1)
    assert unveil_actions(g) == [0, 1]
    g.players[1].lands = 10
    give_priority(g, 1)
    assert unveil_actions(g) == [0, 1, 2, 3, 4]
    assert not g.can_unveil(1, 5)
    g.lose(3)
    give_priority(g, 1)
    assert unveil_actions(g) == [0, 1, 2, 3]


def test_inquisitor_x_counts_a_hexproof_leader_it_may_target_once_face_up():
    """With The Golem face up the Leader has hexproof from opponents; the
    face-down Inquisitor is one while paying, but its targets are chosen once it
    is face up, as the Leader's teammate: X may count the Leader."""
    g = at_main(["The Old Ruler", "The Golem", "The Inquisitor", "The Seer", "The Demon", "The Sorceress",
                 "The Banisher", "The Grenadier"])
    g.players[1].identity.face_up = True
    g.revealed_identities.add(g.players[1].identity.uid)
    g._refresh_statics()
    assert ("p", 0) not in g.target_candidates(2, {"type": "player"})   # hexproof from a face-down player
    g.players[2].lands = 10
    give_priority(g, 2)
    assert unveil_actions(g) == list(range(8))             # X = 7: every other player
    g.step(g.layout.UNVEIL + 7)
    assert g.layout.PLAYER + g.rel(2, 0) in g.legal_actions()   # the Leader is a legal target now
    for s in (0, 1, 3, 4, 5, 6):
        target_player(g, s)                                # the seventh is the only one left
    assert sorted(t[1] for t in g.stack[-1].targets) == [0, 1, 3, 4, 5, 6, 7]


def test_inquisitor_x_leaves_out_a_leader_the_oracle_keeps_from_being_targeted():
    """The Oracle (unveiled this turn): Leader players can't be the target of
    spells or abilities until end of turn, the Inquisitor's included (it is a
    teammate): X counts only the other players it can target, so X = 7 isn't
    offered and X = 6 takes the six non-Leaders."""
    g = at_main(["The Old Ruler", "The Oracle", "The Inquisitor", "The Seer", "The Demon", "The Sorceress",
                 "The Banisher", "The Grenadier"])
    g.leader_attacked_by.add(3)                            # Undercover met
    g.players[1].lands = 2
    hand(g, 1, "Shock")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.players[1].identity.face_up and not g.stack
    g.players[2].lands = 10
    give_priority(g, 2)
    assert unveil_actions(g) == list(range(7))             # at most 6 targets
    g.step(g.layout.UNVEIL + 6)
    assert g.layout.PLAYER + g.rel(2, 0) not in g.legal_actions()
    for s in (1, 3, 4, 5, 6):
        target_player(g, s)                                # the sixth is the only one left
    assert sorted(t[1] for t in g.stack[-1].targets) == [1, 3, 4, 5, 6, 7]


def test_inquisitor_exiles_from_hand_or_graveyard():
    g = _guardian_at("The Inquisitor")
    g.players[1].lands = 3
    hand(g, 2, "Shock", "Murder")
    g.players[3].hand = []
    g.players[3].graveyard = [cards.card("Counterspell")]
    give_priority(g, 1)
    g.step(g.layout.UNVEIL + 2)
    assert g.players[1].lands_tapped == 3
    assert g.layout.PLAYER + 0 not in g.legal_actions()    # "other" players
    assert g.layout.PASS not in g.legal_actions()          # exactly X targets
    target_player(g, 2)
    target_player(g, 3)
    resolve_all(g)
    assert g.decision.seat == 1 and g.decision.kind == DecisionKind.CARD
    assert any(e["event"] == "reveal_hand" and e["seat"] == 2 and e["to"] is None for e in g.log)
    pick(g, lambda o: o[1:] == ("hand", 1, "Murder"))
    assert [c.name for c in g.players[2].hand] == ["Shock"]
    assert [c.name for c in g.players[2].exile] == ["Murder"]
    # seat 3: the only card is in the graveyard -> exiled without a real choice
    assert g.players[3].graveyard == [] and [c.name for c in g.players[3].exile] == ["Counterspell"]


def test_mirror_maestra_x_range_and_cost():
    g = _guardian_at("The Mirror Maestra")
    g.players[1].lands = 10
    give_priority(g, 1)
    assert unveil_actions(g) == [0]                        # nothing to copy: X = 0 only
    creature(g, 2, "Grove Bear")
    creature(g, 3, "Dune Lion")
    give_priority(g, 1)
    assert unveil_actions(g) == [0, 1, 2]                  # X <= permanents; 2X+2 <= 10 allows 4
    g.players[1].lands = 5
    give_priority(g, 1)
    assert unveil_actions(g) == [0, 1]                     # 2*2+2 = 6 > 5
    g.step(g.layout.UNVEIL + 1)
    assert g.players[1].lands_tapped == 4


def test_mirror_maestra_chosen_player_gets_token_copies():
    g = _guardian_at("The Mirror Maestra")
    g.players[1].lands = 6
    mammoth = creature(g, 2, "War Mammoth")
    angel = creature(g, 3, "Storm Angel")
    angel.p1p1 = 2                                         # counters are not copied
    give_priority(g, 1)
    g.step(g.layout.UNVEIL + 2)
    assert g.decision.kind == DecisionKind.TARGET and g.decision.seat == 1
    target_player(g, 0)                                    # the player who gets the copies
    target_creature(g, mammoth)                            # the second target is then the only one left
    assert g.stack[-1].targets == [("c", mammoth), ("c", angel)]
    resolve_all(g)
    toks = g.players[0].creatures
    assert [(c.name, c.token, c.power, c.toughness) for c in toks] == [
        ("War Mammoth", True, 5, 5), ("Storm Angel", True, 4, 4)]
    assert toks[1].has("flying") and toks[0].has("trample")
    assert mammoth in g.players[2].creatures and angel in g.players[3].creatures


# ============================================================== Assassins
def test_ambitious_queen_cost_life_and_exile_nonland():
    g = at_main(deal5(A1="The Ambitious Queen"))
    p = g.players[2]
    hand(g, 2, "Wastes", "Wastes")
    assert_cannot_pay(g, 2)  # no nonland card to exile
    hand(g, 2, "Wastes", "Shock", "Murder")
    give_priority(g, 2)
    assert unveil_actions(g) == [0]                        # no mana needed
    g.step(g.layout.UNVEIL)
    assert g.decision.kind == DecisionKind.COST and g.decision.seat == 2
    assert sorted(options(g)) == [g.layout.HAND + 1, g.layout.HAND + 2]   # not the land
    g.step(g.layout.HAND + 2)
    assert p.life == 39 and [c.name for c in p.exile] == ["Murder"]
    assert [c.name for c in p.hand] == ["Wastes", "Shock"] and p.identity.face_up


def test_ambitious_queen_counters_noncreature_spell():
    g = at_main(deal5(A1="The Ambitious Queen"))
    g.players[0].lands = 4
    hand(g, 0, "Wastes", "Deep Study")
    hand(g, 2, "Shock")
    give_priority(g, 0)
    cast(g, 0, "Deep Study")
    spell = g.stack[-1]
    give_priority(g, 2)
    n = len(g.players[0].hand)
    g.step(g.layout.UNVEIL)                                # exile Shock (only choice), target Deep Study
    resolve_all(g)
    assert [e["targets"] for e in g.log if e["event"] == "trigger" and e["source"] == "The Ambitious Queen"] == [
        [["stack", spell.uid, "Deep Study"]]]
    assert any(e["event"] == "counter" and e["source"] == "Deep Study" for e in g.log)
    assert spell not in g.stack and [c.name for c in g.players[0].graveyard] == ["Deep Study"]
    assert len(g.players[0].hand) == n                     # nothing drawn


def test_ambitious_queen_cannot_target_creature_spell():
    g = at_main(deal5(A1="The Ambitious Queen"))
    g.players[0].lands = 2
    hand(g, 0, "Wastes", "Grove Bear")
    hand(g, 2, "Shock")
    give_priority(g, 0)
    cast(g, 0, "Grove Bear")
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    assert any(e["event"] == "trigger_removed" and e["source"] == "The Ambitious Queen" for e in g.log)
    resolve_all(g)
    assert [c.name for c in g.players[0].creatures] == ["Grove Bear"]


def test_beastmaster_up_to_two_players_get_two_beasts():
    g = at_main(deal5(A2="The Beastmaster"))
    g.players[3].lands = 3
    assert_cannot_pay(g, 3)
    g.players[3].lands = 4
    give_priority(g, 3)
    g.step(g.layout.UNVEIL)
    assert g.players[3].lands_tapped == 4
    target_player(g, 3)
    target_player(g, 4)
    resolve_all(g)
    for s in (3, 4):
        beasts = g.players[s].creatures
        assert [(c.name, c.power, c.toughness, c.token, c.has("trample")) for c in beasts] == [
            ("Beast", 4, 4, True, True)] * 2
    assert not g.players[0].creatures and not g.players[2].creatures


def test_beastmaster_zero_targets():
    g = at_main(deal5(A2="The Beastmaster"))
    g.players[3].lands = 4
    give_priority(g, 3)
    g.step(g.layout.UNVEIL)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert all(not p.creatures for p in g.players)


def _chaos_game():
    g = at_main(deal5(A1="The Chaos Wielder"))
    g.players[2].lands = 4
    hand(g, 2, "Lightning Strike")
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.decision.seat == 2 and g.decision.kind == DecisionKind.MODE
    return g


def test_chaos_wielder_cost_and_type_choice():
    g = at_main(deal5(A1="The Chaos Wielder"))
    g.players[2].lands = 1
    assert_cannot_pay(g, 2)
    g = _chaos_game()
    assert g.players[2].lands_tapped == 2
    assert g.decision.labels == ["creature", "instant", "sorcery", "planeswalker"]


def test_chaos_wielder_cascade_on_planeswalker_spells():
    """Card ("name a card type"), CR 702.85a: planeswalker is a type of spell the
    substrate casts, so it may be named; Maren (mana value 5) cascades into Pyra
    (4), cast free, which cascades too and finds nothing under 4."""
    g = at_main(deal5(A1="The Chaos Wielder"))
    g.active = 2                                           # its own main phase: sorcery timing
    g.players[2].lands = 7
    hand(g, 2, "Maren, Dawn Herald")
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.step(g.layout.CHOICE + 3)                            # planeswalker
    g.players[2].library = [cards.card(n) for n in ("Wastes", "Wastes", "Pyra, Storm Sage", "Wastes")]
    give_priority(g, 2)
    cast(g, 2, "Maren, Dawn Herald")
    assert [it.key for it in g.stack] == ["", "cascade"]
    resolve_all(g)
    assert g.decision.kind == DecisionKind.YES_NO and "Pyra" in g.decision.prompt
    g.step(g.layout.CHOICE)                                # cast it
    resolve_all(g)
    assert sorted(w.name for w in g.players[2].attackables) == ["Maren, Dawn Herald", "Pyra, Storm Sage"]
    assert [c.name for c in g.players[2].library] == ["Wastes"] * 3 and g.players[2].lands_tapped == 7


def test_chaos_wielder_cascade_on_named_type():
    g = _chaos_game()
    g.step(g.layout.CHOICE + 1)                            # instant
    lib = [cards.card(n) for n in ("Grove Bear", "Shock", "Murder", "Wastes")]   # top = Wastes
    g.players[2].library = list(lib)
    assert g.decision.seat == 0
    give_priority(g, 2)
    cast(g, 2, "Lightning Strike")
    target_player(g, 4)
    assert [it.key for it in g.stack] == ["", "cascade"]
    resolve_all(g)                                         # cascade: Wastes, Murder exiled; Shock hit
    assert g.decision.kind == DecisionKind.YES_NO and g.decision.seat == 2
    # CR 702.85a: exiled face up, so public: the log names them, in order, with the hit
    (ev,) = [e for e in g.log if e["event"] == "cascade"]
    assert (ev["card"], ev["exiled"], ev["to"]) == ("Shock", ["Wastes", "Murder"], None)
    g.step(g.layout.CHOICE)                                # cast it
    target_player(g, 3)
    lib_names = [c.name for c in g.players[2].library]
    assert lib_names[0:2] in (["Wastes", "Murder"], ["Murder", "Wastes"]) and lib_names[2] == "Grove Bear"
    assert g.players[2].lands_tapped == 4                  # Shock was free
    resolve_all(g)
    assert g.players[3].life == 38 and g.players[4].life == 37


def test_chaos_wielder_cascade_only_named_type_own_spells_this_turn():
    g = _chaos_game()
    g.step(g.layout.CHOICE + 2)                            # sorcery
    give_priority(g, 2)
    cast(g, 2, "Lightning Strike")                         # an instant: no cascade
    target_player(g, 4)
    assert [it.key for it in g.stack] == [""]
    resolve_all(g)
    g2 = _chaos_game()
    g2.step(g2.layout.CHOICE + 1)
    g2.players[3].lands = 2
    hand(g2, 3, "Lightning Strike")
    give_priority(g2, 3)
    cast(g2, 3, "Lightning Strike")                        # another player's instant: no cascade
    target_player(g2, 4)
    assert [it.key for it in g2.stack] == [""]
    assert [(e["kind"], e["controller"], e["card_type"]) for e in g2.effects] == [("on:cast", 2, "instant")]
    resolve_all(g2)
    g2._op_cleanup_rest()                                  # cleanup: "this turn" effects end
    assert not g2.effects
    g2.players[2].lands_tapped = 0
    hand(g2, 2, "Lightning Strike")
    give_priority(g2, 2)
    cast(g2, 2, "Lightning Strike")
    target_player(g2, 4)
    assert [it.key for it in g2.stack] == [""]


def test_chaos_wielder_cascade_lasts_the_turn_once_turned_face_down():
    """Card ("for the rest of the turn"), CR 611.2a: the effect of the resolved
    ability lasts the turn whatever becomes of the Wielder: turned face down
    again (as The Gatekeeper's or The Ferryman's controller could, TR4.8), its
    controller's instant still cascades."""
    g = _chaos_game()
    g.step(g.layout.CHOICE + 1)                            # instant
    g.turn_face_down(2)
    g.players[2].library = [cards.card(n) for n in ("Wastes", "Shock", "Wastes")]
    give_priority(g, 2)
    cast(g, 2, "Lightning Strike")
    target_player(g, 4)
    assert [it.key for it in g.stack] == ["", "cascade"]


def test_demon_target_player_tutors_and_shuffles():
    g = at_main(deal5(A1="The Demon", A2="The Seer"))
    g.players[2].lands = 3
    assert_cannot_pay(g, 2)
    g.players[2].lands = 4
    g.players[3].library = [cards.card(n) for n in ("Wastes", "Murder", "Wastes", "Shock")]
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    target_player(g, 3)
    resolve_all(g)
    d = g.decision
    assert d.seat == 3 and d.kind == DecisionKind.CARD     # the searching player chooses
    assert sorted(d.labels) == ["Murder", "Shock", "Wastes"]
    pick(g, lambda n: n == "Murder")
    assert [c.name for c in g.players[3].hand] == ["Murder"]
    assert sorted(c.name for c in g.players[3].library) == ["Shock", "Wastes", "Wastes"]


def test_seer_x_range():
    g = at_main(deal5(A1="The Seer"))
    g.players[2].lands = 0
    hand(g, 2, "Shock")
    give_priority(g, 2)
    assert unveil_actions(g) == [0]
    g.players[2].lands = 3
    give_priority(g, 2)
    assert unveil_actions(g) == [0, 1, 2, 3]


def test_seer_nonland_deals_twice_its_mana_value():
    g = at_main(deal5(A1="The Seer"))
    g.players[2].lands = 1
    hand(g, 2, "Shock")
    g.players[2].library = [cards.card("Lightning Strike")] * 5
    give_priority(g, 2)
    g.step(g.layout.UNVEIL + 1)
    resolve_all(g)
    assert g.decision.kind == DecisionKind.SCRY and g.decision.seat == 2
    g.step(g.layout.CHOICE + 0)                            # keep on top
    assert g.decision.kind == DecisionKind.TARGET          # reflexive trigger: any target
    target_player(g, 0)
    resolve_all(g)
    assert g.players[0].life == 56                         # 2 * mana value 2
    assert [c.name for c in g.players[2].hand] == ["Shock", "Lightning Strike"]
    assert len(g.players[2].library) == 4


def test_seer_land_no_damage_and_scry_bottom():
    g = at_main(deal5(A1="The Seer"))
    hand(g, 2, "Shock")
    g.players[2].lands = 1
    g.players[2].library = [cards.card("Wastes")] * 3
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert not g.stack and g.players[2].hand[-1].name == "Wastes"
    assert all(p.life == (60 if p.seat == 0 else 40) for p in g.players)
    g = at_main(deal5(A1="The Seer"))
    hand(g, 2, "Shock")
    g.players[2].lands = 1
    g.players[2].library = [cards.card("Wastes"), cards.card("Murder")]
    give_priority(g, 2)
    g.step(g.layout.UNVEIL + 1)
    resolve_all(g)
    scried = g.decision.options[1][1][1]
    g.step(g.layout.CHOICE + 1)                            # bottom
    assert g.players[2].hand[-1].name != scried.name       # the other card was revealed
    assert [c.name for c in g.players[2].library] == [scried.name]


def test_sigil_mage_casts_two_instants_or_sorceries_from_graveyards_free():
    g = at_main(deal5(A1="The Sigil Mage"))
    g.players[2].lands = 4
    assert_cannot_pay(g, 2)
    g.players[2].lands = 5
    hand(g, 2, "Shock")
    g.players[3].graveyard = [cards.card("Lightning Strike")]
    g.players[0].graveyard = [cards.card("Grove Bear"), cards.card("Deep Study")]
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    d = g.decision
    assert d.seat == 2 and g.layout.PASS in options(g)
    assert sorted(d.labels) == ["Deep Study (P0)", "Lightning Strike (P3)", "none"]   # no creature card
    pick(g, lambda o: o is not None and o[1].name == "Lightning Strike")
    target_player(g, 4)
    pick(g, lambda o: o is not None and o[1].name == "Deep Study")
    assert [it.source for it in g.stack] == ["Lightning Strike", "Deep Study"]
    assert g.players[2].lands_tapped == 5                  # both free
    hand_before = len(g.players[2].hand)
    resolve_all(g)
    assert g.players[4].life == 37 and len(g.players[2].hand) == hand_before + 3
    assert [c.name for c in g.players[3].graveyard] == ["Lightning Strike"]    # back to its owner
    assert [c.name for c in g.players[0].graveyard] == ["Grove Bear", "Deep Study"]


def test_sigil_mage_may_decline():
    g = at_main(deal5(A1="The Sigil Mage"))
    g.players[2].lands = 5
    hand(g, 2, "Shock")
    g.players[3].graveyard = [cards.card("Lightning Strike")]
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.step(g.layout.PASS)
    assert not g.stack and len(g.players[3].graveyard) == 1


def test_sorceress_retargets_then_copies():
    g = at_main(deal5(A1="The Sorceress"))
    g.players[2].lands = 2
    assert_cannot_pay(g, 2)
    g.players[0].lands = 2
    hand(g, 0, "Wastes", "Lightning Strike")
    hand(g, 2, "Shock")
    g.players[2].lands = 4
    give_priority(g, 0)
    cast(g, 0, "Lightning Strike")
    target_player(g, 2)
    strike = g.stack[-1]
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)                                # the only instant/sorcery spell is the target
    assert g.players[2].lands_tapped == 3
    resolve_all(g)
    assert g.decision.seat == 2 and g.decision.kind == DecisionKind.TARGET
    target_player(g, 3)                                    # new target for the original
    assert strike.targets == [("p", 3)]
    target_player(g, 4)                                    # target for the copy
    copy = g.stack[-1]
    assert copy.is_copy and copy.controller == 2 and copy.targets == [("p", 4)]
    resolve_all(g)
    assert [p.life for p in g.players] == [60, 40, 40, 37, 37]
    assert [c.name for c in g.players[0].graveyard] == ["Lightning Strike"] and g.players[2].graveyard == []


def test_sorceress_may_keep_targets():
    g = at_main(deal5(A1="The Sorceress"))
    g.players[0].lands = 2
    hand(g, 0, "Wastes", "Lightning Strike")
    hand(g, 2, "Shock")
    g.players[2].lands = 3
    give_priority(g, 0)
    cast(g, 0, "Lightning Strike")
    target_player(g, 3)
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    g.step(g.layout.PASS)                                  # keep the original's target
    g.step(g.layout.PASS)                                  # and the copy's
    resolve_all(g)
    assert g.players[3].life == 34


# ============================================================== Traitors
def test_banisher_cost_seven_exiles_and_draws_per_nontoken():
    g = at_main(deal5(T="The Banisher"))
    p = g.players[4]
    p.lands = 6
    assert_cannot_pay(g, 4)
    p.lands = 7
    bear = creature(g, 0, "Grove Bear")
    lion = creature(g, 2, "Dune Lion")
    beast = token(g, 3, "Beast")
    keep = creature(g, 3, "Storm Angel")
    hand(g, 4, "Shock")
    give_priority(g, 4)
    g.step(g.layout.UNVEIL)
    assert p.lands_tapped == 7
    n = len(p.hand)
    for c in (bear, lion, beast):
        target_creature(g, c)
    assert g.layout.PASS in g.legal_actions() and g.decision.kind == DecisionKind.TARGET
    g.step(g.layout.PASS)                                  # any number: stop here
    assert len(g.stack[-1].targets) == 3
    resolve_all(g)
    assert len(p.hand) == n + 2                            # two nontoken creatures
    assert [c.name for c in g.players[0].exile] == ["Grove Bear"]
    assert [c.name for c in g.players[2].exile] == ["Dune Lion"]
    assert g.players[3].creatures == [keep]


def test_banisher_commander_goes_to_command_zone_no_draw():
    g = at_main(deal5(T="The Banisher"))
    p = g.players[4]
    p.lands = 7
    hand(g, 4, "Shock")
    cmd = g.put_onto_battlefield(2, g.players[2].commander, commander=True)
    g.pending_triggers = []
    give_priority(g, 4)
    n = len(p.hand)
    g.step(g.layout.UNVEIL)
    target_creature(g, cmd)                                # the only creature: no more targets asked
    assert g.stack[-1].targets == [("c", cmd)]
    resolve_all(g)
    assert cmd not in g.players[2].creatures
    assert g.players[2].commander_zone == "command" and len(p.hand) == n
    assert [(e["zone"], e["to"]) for e in g.log if e["event"] == "leaves"] == [("exile", None)]   # public


def test_gatekeeper_cerberus_and_face_down_again():
    g = at_main(deal5(T="The Gatekeeper"))
    p = g.players[4]
    p.lands = 2
    assert_cannot_pay(g, 4)
    p.lands = 5
    hand(g, 4, "Shock")
    give_priority(g, 4)
    g.step(g.layout.UNVEIL)
    assert p.lands_tapped == 3
    resolve_all(g)
    [cer] = p.creatures
    assert (cer.name, cer.power, cer.toughness, cer.token, cer.legendary) == ("Cerberus", 4, 8, True, True)
    assert all(cer.has(k) for k in ("menace", "double_strike", "trample", "lifelink"))
    give_priority(g, 4)
    ab = g.layout.IDENTITY_AB
    assert ab in g.legal_actions()
    g.step(ab)                                             # {2}: turn face down (uses the stack)
    assert p.lands_tapped == 5 and p.identity.face_up
    resolve_all(g)
    assert not p.identity.face_up
    assert p.identity.known_by == set(range(5))            # players remember it
    assert cer in p.creatures
    assert g.is_opponent(0, 4) and g.is_opponent(4, 2)
    p.lands_tapped = 0
    give_priority(g, 4)
    assert unveil_actions(g) == [0]                        # it may be unveiled again ...
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert p.identity.face_up                              # ... and "when unveiled" triggers again:
    # a new Cerberus: the legend rule (CR 704.5j) has its controller keep one, here the new one
    assert g.decision.kind == DecisionKind.KEEP and g.decision.seat == 4
    new = p.creatures[-1]
    g.step(g.layout.perm(0, len(p.creatures) - 1))
    assert p.creatures == [new] and new.name == "Cerberus"
    assert cer not in p.creatures


def test_gatekeeper_face_down_needs_two_mana():
    g = at_main(deal5(T="The Gatekeeper"))
    p = g.players[4]
    p.lands = 4
    hand(g, 4, "Shock")
    give_priority(g, 4)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    give_priority(g, 4)
    assert not ab_offered(g, 4)    # 1 mana left


def test_grenadier_x_plus_three_explosives():
    g = at_main(deal5(T="The Grenadier"))
    p = g.players[4]
    hand(g, 4, "Shock")
    p.lands = 2
    give_priority(g, 4)
    assert unveil_actions(g) == [0, 1, 2]
    g.step(g.layout.UNVEIL + 2)
    assert p.lands_tapped == 2
    resolve_all(g)
    assert p.tokens["Explosive"] == 5
    g = at_main(deal5(T="The Grenadier"))
    hand(g, 4, "Shock")
    g.players[4].lands = 0
    give_priority(g, 4)
    g.step(g.layout.UNVEIL)                                # X = 0 is free: three tokens
    resolve_all(g)
    assert g.players[4].tokens["Explosive"] == 3


def test_grenadier_sacrifice_explosive_modes():
    g = at_main(deal5(T="The Grenadier"))
    p = g.players[4]
    hand(g, 4, "Shock")
    p.lands = 3
    bear = creature(g, 2, "Grove Bear")
    lion = creature(g, 3, "Dune Lion")
    give_priority(g, 4)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    give_priority(g, 4)
    ab = g.layout.IDENTITY_AB
    g.step(ab)
    assert p.tokens["Explosive"] == 2 and p.lands_tapped == 1
    assert g.decision.kind == DecisionKind.MODE
    assert g.decision.labels == ["destroy target nonland permanent", "target player loses 3 life"]
    g.step(g.layout.CHOICE + 0)
    target_creature(g, bear)
    resolve_all(g)
    assert bear not in g.players[2].creatures and [c.name for c in g.players[2].graveyard] == ["Grove Bear"]
    g.destroy(lion)
    give_priority(g, 4)
    g.step(ab)                                             # no creature left: only the life mode
    target_player(g, 0)
    resolve_all(g)
    assert g.players[0].life == 57 and p.tokens["Explosive"] == 1 and p.lands_tapped == 2
    give_priority(g, 4)
    g.step(ab)                                             # several times a turn
    target_player(g, 3)
    resolve_all(g)
    assert g.players[3].life == 37 and p.tokens["Explosive"] == 0
    p.lands_tapped = 0
    give_priority(g, 4)
    assert not ab_offered(g, 4)                     # no Explosive left
    p.tokens["Explosive"] = 1
    p.lands_tapped = 3
    give_priority(g, 4)
    assert not ab_offered(g, 4)                     # no mana for {1}


def test_oneiromancer_x_range():
    g = at_main(deal5(T="The Oneiromancer"))
    hand(g, 4, "Shock")
    g.players[4].lands = 3
    give_priority(g, 4)
    assert unveil_actions(g) == [0, 1]                     # {X}{X}
    g.players[4].lands = 4
    give_priority(g, 4)
    assert unveil_actions(g) == [0, 1, 2]
    g.step(g.layout.UNVEIL + 2)
    assert g.players[4].lands_tapped == 4


def test_oneiromancer_exiles_top_x_and_casts_one_free_each_turn():
    g = at_main(deal5(T="The Oneiromancer"))
    p = g.players[4]
    hand(g, 4, "Wastes")
    p.lands = 2
    for s, top in enumerate(("Shock", "Lightning Strike", "Deep Study", "Wastes", "Murder")):
        g.players[s].library = [cards.card("Wastes")] * 3 + [cards.card("Grove Bear"), cards.card(top)]
    give_priority(g, 4)
    g.step(g.layout.UNVEIL + 1)
    resolve_all(g)
    pile = p.identity.data["dream"]
    assert sorted(c.name for _, c in pile) == ["Deep Study", "Lightning Strike", "Murder", "Shock", "Wastes"]
    # whose library each card left is public (the library sizes are), the cards are not
    exiled = [e for e in g.log if e["event"] == "exile_face_down"]
    assert sorted((e["owner"], e["n"]) for e in exiled) == [(s, 1) for s in range(5)]
    assert all("card" not in e and "cards" not in e for e in exiled)
    assert all(len(q.library) == 4 and q.library[-1].name == "Grove Bear" for q in g.players)
    assert all(c not in q.exile for q in g.players for _, c in pile)   # face down, kept by the identity
    ab = g.layout.IDENTITY_AB
    give_priority(g, 4)
    assert ab in g.legal_actions()
    tapped = p.lands_tapped
    g.step(ab)
    # not its turn: only the instants can be cast; lands never
    assert sorted(g.decision.labels) == ["Lightning Strike", "Shock"]
    pick(g, lambda k: pile[k][1].name == "Lightning Strike")
    # CR 601.2a: the card and whose it is are public before its target is chosen
    assert [(e["card"], e["owner"], e["zone"], e["source"]) for e in g.log if e["event"] == "casting"] == [
        ("Lightning Strike", 1, "exile", "The Oneiromancer")]
    target_player(g, 2)                                    # the spell's target
    assert g.decision.kind == DecisionKind.TARGET           # the reflexive trigger's target
    target_player(g, 3)
    assert p.lands_tapped == tapped                        # free
    resolve_all(g)
    assert g.players[2].life == 37
    assert [c.name for c in g.players[1].graveyard] == ["Lightning Strike"]   # its owner's graveyard
    assert len(g.players[3].library) == 3 and any(c.name == "Grove Bear" and s == 3 for s, c in pile)
    assert [e["owner"] for e in g.log if e["event"] == "exile_face_down"][-1] == 3     # the reflexive trigger's
    give_priority(g, 4)
    assert not ab_offered(g, 4)                     # once each turn
    g.turn += 1
    give_priority(g, 4)
    assert ab in g.legal_actions()


def _oneiromancer_unveiled(*tops: str):
    """Seat 4's The Oneiromancer unveiled at X = 1 (one card from each library into its pile)
    with two lands, every library six Wastes under the card ``tops[i]`` of seat ``i``."""
    g = at_main(deal5(T="The Oneiromancer"))
    p = g.players[4]
    hand(g, 4, "Wastes")
    p.lands = 2
    for q in g.players:
        q.library = [cards.card("Wastes")] * 6
    for seat, name in enumerate(tops):
        g.players[seat].library.append(cards.card(name))
    give_priority(g, 4)
    g.step(g.layout.UNVEIL + 1)
    resolve_all(g)
    return g, p


def test_oneiromancer_sorcery_only_at_sorcery_timing():
    g, p = _oneiromancer_unveiled("Deep Study")
    ab = g.layout.IDENTITY_AB
    give_priority(g, 4)
    assert not ab_offered(g, 4)                     # a sorcery, on another player's turn
    g.active = 4                                           # its own main phase, empty stack
    give_priority(g, 4)
    assert ab in g.legal_actions()
    g.step(ab)                                             # the only castable card: Deep Study
    n = len(p.hand)
    target_player(g, 1)                                    # reflexive trigger's target
    resolve_all(g)
    assert len(p.hand) == n + 3 and len(g.players[1].library) == 4
    assert [c.name for c in g.players[0].graveyard] == ["Deep Study"]


def test_oneiromancer_casts_a_creature_with_flash_on_another_players_turn():
    """The Oneiromancer's free cast keeps the card's timing (CR 601.3): a
    creature with flash (CR 702.8, Ambush Viper) is cast like an instant, on
    another player's turn; a creature without flash in the same pile is not."""
    g, p = _oneiromancer_unveiled("Ambush Viper", "Grove Bear")
    assert g.active == 0 and ab_offered(g, 4)             # the Leader's turn
    give_priority(g, 4)
    g.step(g.layout.IDENTITY_AB)
    if g.decision.kind != DecisionKind.TARGET:             # a choice only if more than one card qualifies
        assert g.decision.labels == ["Ambush Viper"]
        g.step(g.decision.options[0][0])
    target_player(g, 1)                                    # the reflexive trigger's target
    resolve_all(g)
    assert [c.name for c in p.creatures] == ["Ambush Viper"] and p.lands_tapped == 2
    assert any(c.name == "Grove Bear" for _, c in p.identity.data["dream"])
