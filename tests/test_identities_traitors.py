"""Rare and mythic Traitors: The Cleaner, The Reflector, The Time Bender (rare),
The Ferryman and He Who Comes To Save The Day (mythic); card facts from
``shared/reference/identities.json`` (set TRD-2025).

Scenarios use 5 players (seat 0 The Old Ruler, 1 Guardian, 2 and 3 Assassins,
4 the Traitor under test), start at the Leader's first main phase
(``identity_helpers.at_main``), set the state they need and drive decisions
with ``Game.step``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from treachery_env import cards
from treachery_env import identities as ids
from treachery_env.actions import TOKEN_ABILITIES
from treachery_env.config import GameConfig
from treachery_env.engine import DecisionKind, Game
from treachery_env.rules import Role, Team

from identity_helpers import (at_main, cast, creature, deal5, give_priority, hand, is_priority, log_noise_after,
                              options, passing_decisions, pick, resolve_all, target_creature, target_player, token)
from test_fuzz import check_invariants, check_result

REF_PATH = Path(__file__).resolve().parents[2] / "shared" / "reference" / "identities.json"
if not REF_PATH.exists():  # pragma: no cover - layout of another checkout
    REF_PATH = Path("/work/shared/reference/identities.json")
REF = {c["name"]: c for c in json.loads(REF_PATH.read_text("utf-8"))}

CLEANER, REFLECTOR, BENDER = "The Cleaner", "The Reflector", "The Time Bender"
FERRYMAN, SAVIOR = "The Ferryman", "He Who Comes To Save The Day"
MINE = (CLEANER, REFLECTOR, BENDER, FERRYMAN, SAVIOR)
T = 4   # the Traitor's seat in deal5


def game_with(name: str) -> Game:
    """At the Leader's main phase; seat 1 too holds a Shock and a land, so the
    game stops at priority while anything is on the stack."""
    g = at_main(deal5(T=name))
    g.players[1].lands = 1
    hand(g, 1, "Shock")
    return g


def offered_unveil(g: Game, seat: int) -> bool:
    return any(a == g.layout.UNVEIL for a, _ in g._priority_options(seat))


def check_cost(g: Game, seat: int, mana: int) -> None:
    """``seat`` can't unveil with ``mana - 1`` lands, can with ``mana`` lands, and
    unveiling taps exactly ``mana`` lands (CR 702.187c)."""
    p = g.players[seat]
    p.lands, p.lands_tapped = mana - 1, 0
    assert not offered_unveil(g, seat)
    with pytest.raises(ValueError, match="cannot pay"):
        g.unveil(seat)
    p.lands = mana
    assert offered_unveil(g, seat)
    give_priority(g, seat)
    g.step(g.layout.UNVEIL)
    assert p.lands_tapped == mana and p.identity.face_up


def drive(g: Game, cond, limit: int = 3000) -> None:
    """PASS where possible (else the first option) until ``cond(g)``."""
    for _ in range(limit):
        if cond(g):
            return
        assert g.decision is not None, "game ended"
        g.step(g.layout.PASS if g.layout.PASS in g.legal_actions() else g.decision.options[0][0])
    raise AssertionError("condition never met")


def turn_seats(g: Game) -> list[int]:
    return [e["seat"] for e in g.log if e["event"] == "turn"]


def own_main(g: Game, seat: int) -> None:
    """Drive to ``seat``'s first main phase with priority (it holds a Shock and
    an untapped land, so it is asked)."""
    hand(g, seat, "Shock")
    drive(g, lambda g: g.active == seat and g.phase == "main1" and is_priority(g) and g.decision.seat == seat)


@pytest.mark.parametrize("name", MINE)
def test_card_data_matches_reference(name):
    """identities.json: role Traitor, generic mana cost, no Undercover."""
    card = ids.get(name)
    ref = REF[name]
    assert card.role == Role.TRAITOR and ref["role"] == "Traitor"
    assert card.unveil_cost.mana == ref["unveil_cost"]["mana"] and card.unveil_cost.x == 0
    assert not card.undercover and card.rarity == ref["rarity"]


# ============================================================== The Cleaner
def test_cleaner_cost_eight():
    """The Cleaner: {8} (identities.json)."""
    g = game_with(CLEANER)
    check_cost(g, T, 8)


def test_cleaner_on_own_turn_exiles_others_permanents_and_opponents_graveyards():
    """The Cleaner (TRD-2025): on its controller's turn, every nonland permanent
    it doesn't control is exiled (creatures, tokens, artifact tokens), plus all
    opponents' graveyards; its own permanents, graveyard and all lands stay."""
    g = game_with(CLEANER)
    own_main(g, T)
    p = g.players[T]
    p.lands, p.lands_tapped = 8, 0
    bear = creature(g, 0, "Grove Bear")
    creature(g, 2, "Dune Lion")
    token(g, 3, "Beast")
    mine = creature(g, T, "Rage Ogre")
    g.players[1].tokens["Treasure"] = 2
    g.players[3].graveyard = [cards.card("Shock"), cards.card("Murder")]
    p.graveyard = [cards.card("Lava Axe")]
    lands_before = [q.lands for q in g.players]
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert p.identity.face_up and not g.stack
    assert [len(q.creatures) for q in g.players] == [0, 0, 0, 0, 1] and p.creatures == [mine]
    assert [c.name for c in g.players[0].exile] == [bear.name]
    assert [c.name for c in g.players[2].exile] == ["Dune Lion"]
    assert g.players[3].exile[-2:] == [cards.card("Shock"), cards.card("Murder")]
    assert g.players[3].graveyard == [] and g.players[1].tokens["Treasure"] == 0
    assert [c.name for c in p.graveyard] == ["Lava Axe"]
    assert [q.lands for q in g.players] == lands_before


def test_cleaner_does_nothing_on_another_players_turn():
    """The Cleaner: "only if it is its controller's turn": unveiled on the
    Leader's turn, it turns face up and nothing is exiled."""
    g = game_with(CLEANER)
    g.players[T].lands = 8
    bear = creature(g, 0, "Grove Bear")
    g.players[2].graveyard = [cards.card("Shock")]
    hand(g, T, "Shock")
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.players[T].identity.face_up
    assert g.players[0].creatures == [bear] and [c.name for c in g.players[2].graveyard] == ["Shock"]


def test_cleaner_sends_a_commander_to_the_command_zone():
    """CR 903.9b: an exiled commander goes to the command zone instead."""
    g = game_with(CLEANER)
    own_main(g, T)
    g.players[T].lands, g.players[T].lands_tapped = 8, 0
    cmd = g.put_onto_battlefield(2, g.players[2].commander, commander=True)
    g.pending_triggers = []
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert cmd not in g.players[2].creatures and g.players[2].commander_zone == "command"
    assert g.players[2].commander not in g.players[2].exile


def test_cleaner_exiles_other_players_planeswalkers():
    """The Cleaner: "every nonland permanent" it doesn't control includes the
    planeswalkers (CR 306); its own planeswalker stays, and an exiled one goes
    to its owner's exile."""
    g = game_with(CLEANER)
    own_main(g, T)
    g.players[T].lands, g.players[T].lands_tapped = 8, 0
    pyra = g.put_planeswalker_onto_battlefield(0, cards.card("Pyra, Storm Sage"))
    orla = g.put_planeswalker_onto_battlefield(2, cards.card("Orla, Pack Warden"), owner=3)
    mine = g.put_planeswalker_onto_battlefield(T, cards.card("Maren, Dawn Herald"))
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert g.players[T].identity.face_up and not g.stack
    assert [q.attackables for q in g.players] == [[], [], [], [], [mine]]
    assert [c.name for c in g.players[0].exile] == [pyra.name]
    assert [c.name for c in g.players[3].exile] == [orla.name] and g.players[2].exile == []


def test_cleaner_unveiled_on_another_players_turn_does_not_trigger():
    """The Cleaner: "only if it is its controller's turn" is an intervening
    "if" (CR 603.4): unveiled on the Leader's turn, no trigger goes on the
    stack at all (nothing for The Reflector to take, nothing to respond to)."""
    g = game_with(CLEANER)
    g.players[T].lands = 8
    hand(g, T, "Shock")
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    assert g.players[T].identity.face_up
    assert not g.stack and not g.pending_triggers
    assert not [e for e in g.log if e["event"] in ("trigger", "stack") and e.get("source") == CLEANER]


# ============================================================== The Reflector
def test_reflector_cost_five():
    """The Reflector: {5} (identities.json)."""
    g = game_with(REFLECTOR)
    g.players[0].lands = 3
    hand(g, 0, "Lightning Strike")
    give_priority(g, 0)
    cast(g, 0, "Lightning Strike")
    target_player(g, 2)
    check_cost(g, T, 5)


def test_reflector_steals_retargets_and_copies_once_per_opponent():
    """The Reflector: gain control of target instant spell, change its target,
    then one copy per opponent (a Traitor opposes all four others, CR 907.7f),
    each retargeted; the stolen spell still goes to its owner's graveyard."""
    g = game_with(REFLECTOR)
    g.players[0].lands = 2
    hand(g, 0, "Lightning Strike")
    g.players[T].lands = 5
    hand(g, T, "Shock")
    give_priority(g, 0)
    cast(g, 0, "Lightning Strike")
    target_player(g, 2)
    strike = g.stack[-1]
    give_priority(g, T)
    g.step(g.layout.UNVEIL)                      # the only spell or ability: auto target
    resolve_all(g)
    assert strike.controller == T
    assert g.decision.seat == T and g.decision.kind == DecisionKind.TARGET
    target_player(g, 1)                          # the stolen spell now hits seat 1
    for victim in (0, 1, 2, 3):                  # four copies, one per opponent
        target_player(g, victim)
    copies = [it for it in g.stack if it.is_copy]
    assert len(copies) == 4 and all(c.controller == T for c in copies)
    assert [c.targets for c in copies] == [[("p", 0)], [("p", 1)], [("p", 2)], [("p", 3)]]
    resolve_all(g)
    assert [p.life for p in g.players] == [57, 34, 37, 37, 40]
    assert [c.name for c in g.players[0].graveyard] == ["Lightning Strike"]
    assert g.players[T].graveyard == []


def test_reflector_steals_an_ability_and_keeps_targets():
    """The Reflector on an ability (a Clue's "draw a card"): its new controller
    draws, and so does each of the four copies; the Clue's activator draws
    nothing (CR 108.4a: "you" is the controller)."""
    g = game_with(REFLECTOR)
    g.players[0].lands = 3
    g.players[0].tokens["Clue"] = 1
    g.players[T].lands = 5
    hand(g, T, "Shock")
    give_priority(g, 0)
    g.step(g.layout.TOKEN_AB + TOKEN_ABILITIES.index("Clue"))
    assert g.stack[-1].source == "Clue"
    n0, n4 = len(g.players[0].hand), len(g.players[T].hand)
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert len(g.players[T].hand) == n4 + 5 and len(g.players[0].hand) == n0


def test_reflector_steals_an_identity_trigger():
    """The Reflector may take an identity's "when unveiled" trigger (only The
    Void Tyrant's text excludes identity abilities): The Beastmaster's two
    targets keep or change; each of 4 copies, made after the change, gives 2
    Beasts to each of its targets."""
    g = game_with(REFLECTOR)
    bm = 3
    g.players[bm].lands = 5
    hand(g, bm, "Shock")
    g.players[T].lands = 5
    hand(g, T, "Shock")
    give_priority(g, bm)
    g.step(g.layout.UNVEIL)
    target_player(g, bm)
    target_player(g, 2)
    trig = g.stack[-1]
    assert trig.source == "The Beastmaster" and trig.identity_source
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert trig.controller == T
    target_player(g, T)                           # first target of the original: now the Reflector
    g.step(g.layout.PASS)                         # second keeps seat 2
    target_player(g, 3)                           # the first copy: seat 3 instead of the Reflector
    g.step(g.layout.PASS)
    for _ in range(3):                            # the other copies keep the original's new targets
        g.step(g.layout.PASS)
        g.step(g.layout.PASS)
    resolve_all(g)
    beasts = [sum(c.name == "Beast" for c in p.creatures) for p in g.players]
    assert beasts == [0, 0, 10, 2, 8]


def test_reflector_cannot_take_a_creature_spell():
    """Only instant or sorcery spells (or abilities): with just a creature spell
    on the stack the trigger has no legal target and is removed (CR 603.3d)."""
    g = game_with(REFLECTOR)
    g.players[0].lands = 3
    hand(g, 0, "Grove Bear")
    g.players[T].lands = 5
    hand(g, T, "Shock")
    give_priority(g, 0)
    cast(g, 0, "Grove Bear")
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    assert [e["source"] for e in g.log if e["event"] == "trigger_removed"] == [REFLECTOR]
    resolve_all(g)
    assert [(c.name, c.controller) for c in g.players[0].creatures] == [("Grove Bear", 0)]


# ============================================================== The Time Bender
def bender_unveil(g: Game, modes: tuple[int, int]) -> None:
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    for m in modes:
        assert g.decision.kind == DecisionKind.MODE and g.decision.seat == T
        g.step(g.layout.CHOICE + m)


def test_time_bender_cost_six_and_two_different_modes():
    """The Time Bender: {6}; two different modes of three (CR 700.2)."""
    g = game_with(BENDER)
    g.players[T].lands = 5
    hand(g, T, "Shock")
    assert not offered_unveil(g, T)
    g.players[T].lands = 6
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    assert g.players[T].lands_tapped == 6
    assert sorted(options(g).values()) == [0, 1, 2]
    g.step(g.layout.CHOICE + 1)
    assert sorted(options(g).values()) == [0, 2]
    g.step(g.layout.CHOICE + 0)
    assert g.stack[-1].data["modes"] == [1, 0]


def test_time_bender_extra_turn_and_end_turn_on_the_leaders_turn():
    """Extra turn + end the turn, unveiled in the Leader's main phase: the
    Leader's turn ends at once (CR 723), the Time Bender takes one extra turn,
    then the normal order resumes with seat 1 (CR 500.7: nobody is skipped)."""
    g = game_with(BENDER)
    g.players[T].lands = 6
    hand(g, T, "Shock")
    bender_unveil(g, (1, 2))
    resolve_all(g)
    drive(g, lambda g: g.turn >= 8)
    assert turn_seats(g)[:8] == [0, 4, 1, 2, 3, 4, 0, 1]
    assert len([e for e in g.log if e["event"] == "extra_turn"]) == 1 and g.extra_turns == []
    assert [e["until"] for e in g.log if e["event"] == "steps_ended"] == ["cleanup"]


def test_time_bender_end_turn_exiles_the_stack():
    """End the turn (CR 723.1): spells on the stack are exiled, the Lightning
    Strike deals no damage; wheel + end: no extra turn, seat 1 is next."""
    g = game_with(BENDER)
    g.players[0].lands = 2
    hand(g, 0, "Lightning Strike")
    g.players[T].lands = 6
    hand(g, T, "Shock")
    give_priority(g, 0)
    cast(g, 0, "Lightning Strike")
    target_player(g, 2)
    bender_unveil(g, (2, 0))
    resolve_all(g)
    assert not g.stack and g.players[2].life == 40
    assert cards.card("Lightning Strike") in g.players[0].exile
    drive(g, lambda g: g.turn >= 3)
    assert turn_seats(g)[:3] == [0, 1, 2]


def test_time_bender_wheel_and_extra_turn():
    """Wheel: every player shuffles hand and graveyard into the library and draws
    seven (card counts exact); extra turn: the Leader's turn goes on, then the
    Time Bender's extra turn, then seat 1."""
    g = game_with(BENDER)
    g.players[T].lands = 6
    hand(g, T, "Shock", "Murder")
    g.players[2].graveyard = [cards.card("Shock")] * 3
    totals = [len(p.hand) + len(p.graveyard) + len(p.library) for p in g.players]
    bender_unveil(g, (0, 1))
    resolve_all(g)
    assert all(len(p.hand) == 7 and p.graveyard == [] for p in g.players)
    assert [len(p.library) + 7 for p in g.players] == totals
    assert g.active == 0 and g.phase == "main1"
    drive(g, lambda g: g.turn >= 4)
    assert turn_seats(g)[:4] == [0, 4, 1, 2]
    assert g.extra_turns == []


def test_time_bender_on_own_turn_extra_turn_and_end():
    """On its own turn: the turn ends, the same player takes the extra turn
    once, then the Leader (seat 0) is next."""
    g = game_with(BENDER)
    own_main(g, T)
    g.players[T].lands, g.players[T].lands_tapped = 6, 0
    start = g.turn
    bender_unveil(g, (2, 1))
    resolve_all(g)
    drive(g, lambda g: g.turn >= start + 3)
    assert turn_seats(g)[start - 1:start + 3] == [4, 4, 0, 1]

def test_time_bender_triggers_while_ending_the_turn_wait_for_the_cleanup_step():
    """Wheel + end the turn with The Debt Collector as the Leader: seat 3 (2
    debt counters, 2 cards in all) draws from an empty library, loses as
    state-based actions are checked while the turn ends (CR 723.1c), and the
    Debt Collector's "when a player loses" ability waits: it goes on the stack in
    the cleanup step, after damage has worn off, and players get priority there
    (CR 723.2); the Leader draws 2 more and discards down to seven in another
    cleanup step (CR 514.3a)."""
    g = at_main(deal5(L="The Debt Collector", T=BENDER))
    g.players[0].identity.face_up = True
    g.players[3].identity.counters["debt"] = 2
    g.players[3].library = [cards.card("Shock"), cards.card("Shock")]
    g.players[3].hand, g.players[3].graveyard = [], []
    ambusher = creature(g, 0, "Briar Ambusher")
    ambusher.damage = 1
    g.players[T].lands = 6
    hand(g, T, "Shock")
    bender_unveil(g, (0, 2))
    drive(g, lambda g: any(it.source == "The Debt Collector" for it in g.stack))
    assert g.players[3].has_lost and g.phase == "cleanup" and g.turn == 1
    assert ambusher.damage == 0 and len(g.players[0].hand) == 7
    drive(g, lambda g: not g.stack)
    assert len(g.players[0].hand) == 9
    drive(g, lambda g: g.active != 0)
    assert len(g.players[0].hand) == 7 and g.turn == 2
    assert [e["seat"] for e in g.log if e["event"] == "discard"] == [0, 0]



# ============================================================== The Ferryman
def test_ferryman_cost_one():
    """The Ferryman: {1} (identities.json)."""
    g = game_with(FERRYMAN)
    creature(g, 2, "Grove Bear")
    check_cost(g, T, 1)


def target_if_asked(g: Game, c) -> None:
    """Pick creature ``c`` unless it was the only choice (taken automatically)."""
    if g.decision.kind == DecisionKind.TARGET:
        target_creature(g, c)


def ferry_setup(g: Game, target) -> None:
    g.players[T].lands = 1
    hand(g, T, "Shock")
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    target_if_asked(g, target)
    resolve_all(g)
    assert g.players[T].identity.face_up


def murder_ferried(g: Game, target) -> None:
    """Seat 0 casts Murder on the Ferryman's target; it and the Ferryman's trigger resolve."""
    g.players[0].lands, g.players[0].lands_tapped = 3, 0
    hand(g, 0, "Murder")
    give_priority(g, 0)
    cast(g, 0, "Murder")
    target_if_asked(g, target)
    resolve_all(g)
    resolve_all(g)                               # the Ferryman's trigger


def test_ferryman_reanimates_a_different_creature_from_that_graveyard():
    """The Ferryman: the target dies this turn; its controller puts a different
    creature card from that graveyard onto the battlefield under their control
    (the owner stays seat 2); the dead card itself isn't offered."""
    g = game_with(FERRYMAN)
    bear = creature(g, 2, "Grove Bear")
    g.players[2].graveyard = [cards.card("Dune Lion"), cards.card("Shock"), cards.card("War Mammoth")]
    ferry_setup(g, bear)
    murder_ferried(g, bear)
    assert g.decision.seat == T and g.decision.kind == DecisionKind.CARD
    assert sorted(c.name for c in options(g).values()) == ["Dune Lion", "War Mammoth"]
    pick(g, lambda c: c.name == "War Mammoth")
    [m] = g.players[T].creatures
    assert (m.name, m.owner, m.controller) == ("War Mammoth", 2, T)
    assert [c.name for c in g.players[2].graveyard] == ["Dune Lion", "Shock", "Grove Bear"]


def test_ferryman_knows_where_the_target_went_without_the_log():
    """Where the target went comes with the event that it left, not from the
    log: with no "leaves" entries logged (and unrelated ones in their place),
    the target's death still brings a creature back."""
    g = game_with(FERRYMAN)
    log_noise_after(g, "leaves", 3, drop=True)
    bear = creature(g, 2, "Grove Bear")
    g.players[2].graveyard = [cards.card("Dune Lion")]
    ferry_setup(g, bear)
    murder_ferried(g, bear)
    assert [c.name for c in g.players[T].creatures] == ["Dune Lion"]


def test_ferryman_another_copy_of_the_dead_card_is_a_different_card():
    """Only the dead Grove Bear is left out: a second Grove Bear in that
    graveyard is a different card and comes back."""
    g = game_with(FERRYMAN)
    bear = creature(g, 2, "Grove Bear")
    g.players[2].graveyard = [cards.card("Grove Bear")]
    ferry_setup(g, bear)
    g.destroy(bear)
    give_priority(g, 0)
    resolve_all(g)
    [b] = g.players[T].creatures
    assert b.name == "Grove Bear" and b.owner == 2 and [c.name for c in g.players[2].graveyard] == ["Grove Bear"]


def test_ferryman_nothing_if_exiled_or_no_other_card_or_next_turn():
    """No trigger when the target is exiled (not a graveyard), nothing to bring
    back when only the dead card is there, and the watch ends with the turn."""
    g = game_with(FERRYMAN)
    bear = creature(g, 2, "Grove Bear")
    g.players[2].graveyard = [cards.card("Dune Lion")]
    ferry_setup(g, bear)
    g.exile_creature(bear)
    assert not g.pending_triggers and not [e for e in g.effects if e["fn"] == "_ferry_watch"]

    g = game_with(FERRYMAN)
    bear = creature(g, 2, "Grove Bear")
    ferry_setup(g, bear)
    g.destroy(bear)
    give_priority(g, 0)
    resolve_all(g)
    assert g.players[T].creatures == []

    g = game_with(FERRYMAN)
    bear = creature(g, 2, "Grove Bear")
    g.players[2].graveyard = [cards.card("Dune Lion")]
    ferry_setup(g, bear)
    drive(g, lambda g: g.turn == 2)
    assert not [e for e in g.effects if e["fn"] == "_ferry_watch"]
    g.destroy(bear)
    assert not g.pending_triggers and g.players[T].creatures == []


def test_ferryman_token_target_and_face_down_watch():
    """A token that dies went to the graveyard (CR 111.7); the watch works even
    after The Ferryman turned face down ({3}, own turn only, once each turn),
    and unveiling it again triggers again."""
    g = game_with(FERRYMAN)
    own_main(g, T)
    p = g.players[T]
    beast = token(g, 1, "Beast")
    g.players[1].graveyard = [cards.card("Rage Ogre")]
    p.lands, p.lands_tapped = 7, 0
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    target_if_asked(g, beast)
    resolve_all(g)
    give_priority(g, T)
    ab = g.layout.IDENTITY_AB
    assert ab in g.legal_actions()
    g.step(ab)
    assert p.lands_tapped == 4
    resolve_all(g)
    assert not p.identity.face_up and p.identity.known_by == set(range(5))
    g.destroy(beast)
    give_priority(g, T)
    resolve_all(g)
    assert [(c.name, c.owner) for c in p.creatures] == [("Rage Ogre", 1)]
    # unveil again ({1}): a new trigger, a new target
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    ogre = p.creatures[0]
    resolve_all(g)
    assert p.identity.face_up
    assert [e["uid"] for e in g.effects if e["fn"] == "_ferry_watch"] == [ogre.uid]
    give_priority(g, T)
    assert ab not in g.legal_actions()           # once each turn (2 lands left, and used)


def test_ferryman_face_down_only_on_own_turn():
    """{3}: only during your turn."""
    g = game_with(FERRYMAN)
    creature(g, 2, "Grove Bear")
    g.players[T].lands = 6
    ferry_setup(g, g.players[2].creatures[0])
    give_priority(g, T)
    assert g.layout.IDENTITY_AB not in g.legal_actions()


# ============================================================== He Who Comes To Save The Day
def savior_target(g: Game, seat: int) -> None:
    g.players[T].lands = max(g.players[T].lands, 2)
    hand(g, T, "Shock")
    give_priority(g, T)
    g.step(g.layout.UNVEIL)
    target_player(g, seat)
    resolve_all(g)
    assert [e["seat"] for e in g.effects if e["fn"] == "_savior_replace"] == [seat]


def test_savior_cost_two():
    """He Who Comes To Save The Day: {2} (identities.json)."""
    g = game_with(SAVIOR)
    check_cost(g, T, 2)


def test_savior_replaces_a_state_based_loss_of_the_leader():
    """0 life (CR 704.5a) would make the Leader lose: instead hand, graveyard,
    owned permanents (creatures, a stolen one too, lands, tokens) are shuffled
    into the library, they draw 12, life becomes 12, and they put permanent
    cards of mana value <= 4 from hand onto the battlefield.  The Leader is
    still in the game, so the game goes on."""
    g = game_with(SAVIOR)
    savior_target(g, 0)
    p = g.players[0]
    p.life = 3
    p.hand = [cards.card("Shock")]
    p.graveyard = [cards.card("Murder"), cards.card("Elder Titan")]
    p.library = [cards.card("Wastes")] * 6 + [cards.card("War Mammoth")] * 3 + [cards.card("Grove Bear")] * 3
    p.lands, p.lands_tapped = 3, 1
    p.tokens["Clue"] = 2
    creature(g, 0, "Rage Ogre")
    token(g, 0, "Soldier")
    stolen = creature(g, 0, "Dune Lion")
    g.gain_control(stolen, 2)
    kept = creature(g, 2, "Thicket Troll")
    g.gain_control(kept, 0)                      # controlled, not owned: stays
    g.players[2].lands, g.players[2].lands_tapped = 2, 0
    hand(g, 2, "Lightning Strike")
    give_priority(g, 2)
    cast(g, 2, "Lightning Strike")
    target_player(g, 0)
    resolve_all(g)
    assert not p.has_lost and not g.is_over and g.is_leader_player(0)
    assert p.life == 12 and len(p.hand) == 12 and p.graveyard == []
    # 12 library + 1 hand + 2 graveyard + 3 lands + Rage Ogre + Dune Lion = 20 cards
    assert len(p.hand) + len(p.library) == 20
    assert p.lands == 0 and p.tokens["Clue"] == 0 and p.creatures == [kept]
    assert stolen not in g.players[2].creatures
    assert [e for e in g.log if e["event"] == "saved"][0]["seat"] == 0
    # the drop: PASS ends it; options are creature/land cards of mana value <= 4
    assert g.decision.seat == 0 and g.decision.kind == DecisionKind.CARD
    names = {p.hand[i].name for i in options(g).values() if i is not None}
    assert names <= {"Wastes", "Grove Bear", "Rage Ogre", "Dune Lion"} and "Wastes" in names
    assert all(p.hand[i].name not in ("War Mammoth", "Elder Titan", "Shock", "Murder")
               for i in options(g).values() if i is not None)
    g.step(next(a for a, i in g.decision.options if i is not None and p.hand[i].name == "Wastes"))
    assert p.lands == 1
    n = len(p.hand)
    bears = [i for i in options(g).values() if i is not None and p.hand[i].name == "Grove Bear"]
    if bears:
        g.step(g.layout.HAND + bears[0])
        assert any(c.name == "Grove Bear" for c in p.creatures) and len(p.hand) == n - 1
    while g.decision.seat == 0 and g.decision.kind == DecisionKind.CARD:
        g.step(g.layout.PASS)
    assert not g.is_over


def test_savior_replaces_a_draw_from_an_empty_library_once():
    """Drawing from an empty library (CR 704.5b) is replaced the same way; the
    effect is used up, so the next loss this turn counts."""
    g = game_with(SAVIOR)
    savior_target(g, 2)
    p = g.players[2]
    p.hand = []
    p.graveyard = [cards.card("Shock")] * 14
    p.library = []
    p.lands, p.lands_tapped = 2, 0
    hand(g, 2, "Quick Study")
    give_priority(g, 2)
    cast(g, 2, "Quick Study")
    resolve_all(g)
    assert not p.has_lost and p.life == 12 and len(p.hand) == 12
    assert len(p.library) == 14 + 2 + 1 - 12     # Shocks, 2 Wastes for the lands, Quick Study
    assert not p.drew_from_empty
    assert not [e for e in g.effects if e["fn"] == "_savior_replace"]
    g.deal_damage(2, 12)
    assert p.has_lost


def test_savior_effect_ends_with_the_turn_and_ignores_concession():
    """"This turn": the next turn a loss counts; a concession is never replaced
    (TR6.10)."""
    g = game_with(SAVIOR)
    savior_target(g, 3)
    g.concede(3)
    assert g.players[3].has_lost
    assert [e["seat"] for e in g.effects if e["fn"] == "_savior_replace"] == [3]

    g = game_with(SAVIOR)
    savior_target(g, 2)
    drive(g, lambda g: g.turn == 2)
    assert not [e for e in g.effects if e["fn"] == "_savior_replace"]
    g.deal_damage(2, 40)
    assert g.players[2].has_lost


def test_savior_does_not_save_a_guardian_from_the_leader_teams_loss():
    """TR6.3: when the last Leader leaves, every Guardian loses with it; that
    loss is not replaced, and the Assassins win."""
    g = game_with(SAVIOR)
    savior_target(g, 1)
    g.lose([0])
    assert g.players[1].has_lost and g.is_over
    assert g.winners == {2, 3}


def test_savior_simultaneous_losses_only_the_target_is_saved():
    """TR6.9: the Leader and an Assassin lose at the same time; the Leader is
    saved, the Assassin leaves, and the game goes on (another Assassin and the
    Traitor remain)."""
    g = game_with(SAVIOR)
    savior_target(g, 0)
    g.lose([0, 2])
    assert g.players[2].has_lost and not g.players[0].has_lost and g.players[0].life == 12
    assert not g.is_over and g.players[0].team == Team.LEADER


def test_savior_saving_the_traitor_itself_then_leader_team_wins_later():
    """The Traitor may save itself; once it, then the Assassins, are gone the
    Leader team wins (CR 907.7, TR6.6)."""
    g = game_with(SAVIOR)
    savior_target(g, T)
    g.deal_damage(T, 100)
    assert not g.players[T].has_lost and g.players[T].life == 12
    g.lose([2, 3])
    assert not g.is_over
    g.deal_damage(T, 12)
    assert g.is_over and g.winners == {0, 1}


def savior_saves_the_leader(bear: bool, forced: str) -> Game:
    """He Who Comes To Save The Day (seat 4) saves the Leader (seat 0) from 0
    life.  The Leader owns 12 cards, all in the library (no lands, hand or
    graveyard), so all are drawn: Shocks and Murders, and one Grove Bear (a
    creature of mana value 2) or, in its place, a Shock."""
    g = at_main(deal5(T=SAVIOR), forced_decisions=forced)
    g.players[1].lands = 1
    hand(g, 1, "Shock")
    savior_target(g, 0)
    p = g.players[0]
    p.hand, p.graveyard, p.lands, p.lands_tapped = [], [], 0, 0
    p.library = [cards.card(n) for n in ["Shock", "Murder"] * 5 + ["Grove Bear" if bear else "Shock", "Shock"]]
    p.life = 0
    g._dirty = True
    give_priority(g, 0)                          # the state-based loss comes first: replaced
    assert [e["seat"] for e in g.log if e["event"] == "saved"] == [0] and len(p.hand) == 12
    return g


def test_savior_asks_for_permanents_whatever_the_hand_holds():
    """The saved player is asked while their hand (its size is public) is not
    empty, "done" alone where no card qualifies: with every decision shown, a
    game whose 12 new cards hold a Grove Bear and one where a Shock takes its
    place ask the same seats the same kinds of decision in the same order (the
    saved player declining, then everyone passing)."""
    orders = []
    for bear in (True, False):
        g = savior_saves_the_leader(bear, "shown")
        orders.append(passing_decisions(g, 150))
        assert not g.players[0].creatures
    assert orders[0] == orders[1]
    assert orders[0][0] == (0, DecisionKind.CARD)


def test_savior_offers_done_beside_the_qualifying_cards():
    """Default ("auto") decisions: "done" comes first, then the Grove Bear; it is
    asked again after each card put (here PASS alone, taken at once); without a
    qualifying card the question is taken at once."""
    g = savior_saves_the_leader(True, "auto")
    assert g.decision.seat == 0 and g.decision.kind == DecisionKind.CARD
    assert g.decision.labels == ["done", "Grove Bear"] and g.decision.options[0][0] == g.layout.PASS
    g.step(g.decision.options[1][0])
    assert [c.name for c in g.players[0].creatures] == ["Grove Bear"] and len(g.players[0].hand) == 11
    assert g.decision.kind == DecisionKind.PRIORITY
    g = savior_saves_the_leader(False, "auto")
    assert g.decision.kind == DecisionKind.PRIORITY and len(g.players[0].hand) == 12


# ============================================================== fuzz
UNCOMMON = {
    Role.LEADER: ["The Blood Empress", "Her Seedborn Highness", "The Old Ruler", "The Queen of Light",
                  "The Void Tyrant"],
    Role.GUARDIAN: ["The Bodyguard", "The Cathar", "The Flickering Mage", "The Golem", "The Immortal",
                    "The Inquisitor", "The Mirror Maestra"],
    Role.ASSASSIN: ["The Ambitious Queen", "The Beastmaster", "The Chaos Wielder", "The Demon", "The Seer",
                    "The Sigil Mage", "The Sorceress"],
}


def fuzz_deal(seed: int) -> list[str]:
    from treachery_env.rules import role_distribution
    rng = random.Random(seed)
    n = 4 + seed % 5
    dist = role_distribution(n)
    deal = []
    traitors = [MINE[seed % 5], MINE[(seed + 2) % 5]]
    deal += traitors[:dist[Role.TRAITOR]]
    for role in (Role.LEADER, Role.GUARDIAN, Role.ASSASSIN):
        deal += rng.sample(UNCOMMON[role], dist[role])
    rng.shuffle(deal)
    return deal


def fuzz_policy(g: Game, rng: random.Random) -> int:
    """Random legal play with a little timing sense, so that each card's
    special paths come up: The Cleaner is unveiled only on its controller's
    turn, The Ferryman only in response to something targeting a creature, He
    Who Comes To Save The Day only once someone is at 4 life or less; half of
    the time a non-PASS action is preferred.  It never talks (table talk would
    take most of the non-PASS picks; tests/test_talk.py fuzzes talk)."""
    L = g.layout
    acts = [a for a in g.legal_actions() if a < L.TALK] or g.legal_actions()
    p = g.players[g.decision.seat]
    idc = p.identity
    unveils = [a for a in acts if L.UNVEIL <= a < L.UNVEIL + 16]
    if unveils and not idc.face_up:
        wait = ((idc.name == CLEANER and g.active != p.seat)
                or (idc.name == FERRYMAN and not any(t and t[0] == "c" for it in g.stack for t in it.targets))
                or (idc.name == SAVIOR and not any(q.life <= 4 for q in g.players if not q.has_lost)))
        if wait and len(acts) > len(unveils):
            acts = [a for a in acts if a not in unveils]
    if len(acts) > 1 and rng.random() < 0.5:
        acts = [a for a in acts if a != L.PASS] or acts
    return rng.choice(acts)


def test_fuzz_random_play_with_these_traitors():
    """120 random games, 4-8 players, each dealing one or two of these Traitors,
    10 lands per player: invariants at every step, consistent results, and each
    card gets unveiled (and its special paths taken) at least once."""
    unveiled: set = set()
    seen: dict = {}
    for seed in range(120):
        deal = fuzz_deal(seed)
        rng = random.Random(seed)
        g = Game(GameConfig(num_players=len(deal), identities=deal, max_turns=14, starting_life=8,
                            commander=bool(seed % 2)), seed=seed)
        for p in g.players:
            p.lands = 10
        g._advance()
        while not g.is_over:
            check_invariants(g)
            g.step(fuzz_policy(g, rng))
        check_invariants(g)
        check_result(g)
        unveiled |= {e["identity"] for e in g.log if e["event"] == "unveil"}
        for e in g.log:
            ev = e["event"]
            if ev == "trigger" and e["key"] == "ferryman":
                ev = "ferryman_trigger"
            seen[ev] = seen.get(ev, 0) + 1
    assert set(MINE) <= unveiled, sorted(set(MINE) - unveiled)
    for ev in ("gain_control_stack", "copy", "extra_turn", "steps_ended", "wheel", "face_down",
               "graveyard_exiled", "ferryman_trigger", "savior"):
        assert seen.get(ev, 0) > 0, (ev, seen)
