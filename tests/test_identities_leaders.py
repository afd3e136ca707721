"""Rare and mythic Leaders of TRD-2025: The Corrupted Regent, The King over the
Scrapyard, The Twin Princesses (rare); The Chaos Bringer, The Debt Collector,
The Gathering, His Beloved Majesty, The Lich Queen (mythic).

Card facts: ``shared/reference/identities.json``.  Leaders have no unveil cost:
they start face up and their controller takes the first turn (CR 907.6, CR
702.187b, TR: Leader).  Each scenario fixes a 5-player deal (seat 0 Leader, 1
Guardian, 2 and 3 Assassins, 4 Traitor), jumps to the Leader's first main
phase (``identity_helpers.at_main``), sets the state it needs and drives the
decisions with ``Game.step``.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from identity_helpers import (
    at_main,
    cast,
    creature,
    deal5,
    give_priority,
    hand,
    is_priority,
    log_noise_after,
    new_game,
    pass_until,
    pick,
    resolve_all,
    target_creature,
    target_player,
    token,
)
from test_fuzz import play_with_lands

from treachery_env import cards
from treachery_env.actions import TOKEN_ABILITIES
from treachery_env.config import GameConfig
from treachery_env.engine import DecisionKind, Game
from treachery_env.identity_abilities import IMPLEMENTATIONS

RARE = ["The Corrupted Regent", "The King over the Scrapyard", "The Twin Princesses"]
MYTHIC = ["The Chaos Bringer", "The Debt Collector", "The Gathering", "His Beloved Majesty", "The Lich Queen"]
MINE = RARE + MYTHIC


def card(name):
    return cards.card(name)


def goto(g, step: str) -> None:
    """Make ``step`` the current step with nothing pending (scenario set-up), then
    run on: the next step begins and its triggers are put on the stack."""
    g.decision = None
    g.priority_seat = None
    g.stack = []
    g.queue.clear()
    g.pending_triggers = []
    g.phase = step
    g._advance()


def ab_offered(g, seat: int, k: int = 0) -> bool:
    return any(a == g.layout.IDENTITY_AB + k for a, _ in g._priority_options(seat))


def kinds(g):
    return g.decision.kind if g.decision is not None else None


class FixedDice(random.Random):
    """A random stream whose d6 results are given (other draws stay seeded)."""

    def __init__(self, rolls):
        super().__init__(0)
        self.rolls = list(rolls)

    def randint(self, a, b):
        return self.rolls.pop(0)


# ============================================================== starting state (no unveil cost)
@pytest.mark.parametrize("name", MINE)
def test_leader_starts_face_up_and_takes_the_first_turn(name):
    """CR 907.6 / CR 702.187b / TR: Leader: a Leader has no unveil cost, starts face
    up and known to everyone, and its controller takes the first turn (card:
    "starting_modifiers" in identities.json).  The Leader can sit at any seat."""
    ids = ["The Bodyguard", "The Demon", "The Beastmaster", "The Banisher"]
    ids.insert(2, name)
    g = new_game(ids)
    p = g.players[2]
    assert name in IMPLEMENTATIONS
    assert p.identity.unveil_cost is None and p.identity.face_up
    assert p.identity.known_by == set(range(5))
    assert g.active == 2 and g.turn == 1
    assert not any(g.players[s].identity.face_up for s in (0, 1, 3, 4))


@pytest.mark.parametrize("n", [4, 5, 8])
def test_lich_queen_starts_with_a_grave_counter_per_player(n):
    """Card (starting_modifiers.identity_counters): The Lich Queen starts with
    grave counters equal to the number of players; the others start with none."""
    from treachery_env.rules import Role, role_distribution
    pool = {Role.GUARDIAN: ["The Bodyguard", "The Immortal", "The Cathar"],
            Role.ASSASSIN: ["The Demon", "The Beastmaster", "The Seer"],
            Role.TRAITOR: ["The Banisher", "The Grenadier"]}
    dist = role_distribution(n)
    fill = [nm for role in (Role.GUARDIAN, Role.ASSASSIN, Role.TRAITOR) for nm in pool[role][:dist[role]]]
    g = new_game(["The Lich Queen"] + fill)
    assert g.players[0].identity.counters == {"grave": n}
    g2 = new_game(["The Debt Collector"] + fill)
    assert g2.players[0].identity.counters == {}


# ============================================================== The Corrupted Regent
def regent_game():
    g = at_main(deal5(L="The Corrupted Regent"))
    g.players[0].library = [card("Wastes")] * 5 + [card("Grove Bear"), card("Murder")]   # top: Murder
    goto(g, "upkeep")            # the draw step begins: Murder is drawn, the Regent triggers
    assert [c.name for c in g.players[0].hand] == ["Wastes", "Shock", "Murder"]
    resolve_all(g)
    assert g.decision.kind == DecisionKind.YES_NO and g.decision.seat == 0
    return g


def test_regent_extra_draw_then_pay_three_life():
    """Card: in its controller's draw step they may draw one extra card; they
    pick a card drawn this turn and pay 3 life (CR 119.4) to keep it."""
    g = regent_game()
    p = g.players[0]
    life = p.life
    g.step(g.layout.CHOICE + 0)                       # draw the extra card (Grove Bear)
    assert g.decision.kind == DecisionKind.CARD
    assert sorted(pl for _, pl in g.decision.options) == ["Grove Bear", "Murder"]   # only cards drawn this turn
    pick(g, lambda nm: nm == "Murder")
    assert g.decision.kind == DecisionKind.MODE
    pick(g, lambda c: c == ("life", "Murder"))
    assert p.life == life - 3
    assert sorted(c.name for c in p.hand) == ["Grove Bear", "Murder", "Shock", "Wastes"]
    assert len(p.library) == 5


def test_regent_extra_draw_then_put_the_card_back_on_top():
    """Card: instead of paying, the chosen card goes back on top of the library;
    which card is private (logged only to its controller)."""
    g = regent_game()
    p = g.players[0]
    life = p.life
    g.step(g.layout.CHOICE + 0)
    pick(g, lambda nm: nm == "Grove Bear")
    pick(g, lambda c: c == ("top", "Grove Bear"))
    assert p.life == life
    assert p.library[-1].name == "Grove Bear" and len(p.library) == 6
    assert sorted(c.name for c in p.hand) == ["Murder", "Shock", "Wastes"]
    private = [e for e in g.log if e["event"] == "put_on_top_card"]
    assert private and private[-1]["to"] == [0] and private[-1]["card"] == "Grove Bear"
    assert all("card" not in e for e in g.log if e["event"] == "put_on_top")


def test_regent_finds_the_card_drawn_whatever_the_log_holds():
    """The card the draw step drew comes with its event, not from the log: with
    unrelated entries logged after each draw (more than a few), the Regent still
    offers the card drawn in the draw step with the extra one."""
    g = at_main(deal5(L="The Corrupted Regent"))
    log_noise_after(g, "draw", 8)
    g.players[0].library = [card("Wastes")] * 5 + [card("Grove Bear"), card("Murder")]   # top: Murder
    goto(g, "upkeep")
    resolve_all(g)
    g.step(g.layout.CHOICE + 0)                       # draw the extra card (Grove Bear)
    assert sorted(pl for _, pl in g.decision.options) == ["Grove Bear", "Murder"]


def test_regent_declining_draws_nothing_extra():
    """Card: "may": declining draws no extra card and costs nothing."""
    g = regent_game()
    p = g.players[0]
    life = p.life
    g.step(g.layout.PASS)
    assert p.life == life and len(p.hand) == 3 and len(p.library) == 6


def test_regent_at_low_life_must_put_the_card_back():
    """CR 119.4: a player can't pay more life than they have: at 2 life the only
    choice left is to put the card back (taken automatically)."""
    g = regent_game()
    p = g.players[0]
    p.life = 2
    g.step(g.layout.CHOICE + 0)
    pick(g, lambda nm: nm == "Murder")
    assert p.life == 2 and p.library[-1].name == "Murder"



def _regent_taken_by_the_reflector(drawn: str):
    """The Regent (seat 0) draws ``drawn`` in its draw step; The Reflector (seat
    4, holding a Murder and a Grove Bear) takes the trigger and draws the extra
    card, a Wastes: the game at the thief's choice of "a card drawn this turn"."""
    from treachery_env.view import seat_view
    g = at_main(deal5(L="The Corrupted Regent", T="The Reflector"))
    g.players[0].library = [card("Wastes")] * 5 + [card("Grove Bear"), card(drawn)]
    g.players[4].library = [card("Wastes")] * 6
    g.players[4].lands = 5
    hand(g, 4, "Murder", "Grove Bear")
    goto(g, "upkeep")
    assert [c.name for c in g.players[0].hand] == ["Wastes", "Shock", drawn] and g.stack[-1].key == "regent"
    give_priority(g, 4)
    g.step(g.layout.UNVEIL)                       # its only target: the Regent's trigger
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO and g.decision.seat == 4)
    g.step(g.layout.CHOICE + 0)                   # the thief draws the extra card
    return g, seat_view(g, 4)


def test_regent_taken_by_the_reflector_offers_only_the_cards_its_controller_drew():
    """The Reflector takes The Corrupted Regent's trigger: "you" is the thief
    (CR 108.4a), who chooses among the cards they drew this turn (the extra
    Wastes), never among the Regent's draw, hidden in its holder's hand (CR
    402.3): the thief's decision and view are the same whether the Regent drew
    a Murder (a name in the thief's hand) or a Shock."""
    g, seen = _regent_taken_by_the_reflector("Murder")
    assert g.decision.seat == 4 and [pl[1] for _, pl in g.decision.options] == ["Wastes", "Wastes"]
    _, other = _regent_taken_by_the_reflector("Shock")
    assert seen == other

def regent_at_an_empty_library(second_shock: bool, forced: str) -> Game:
    """The Regent's draw step draws the last card of the library, a Shock; in
    answer to the trigger the Leader casts a Shock at seat 3, then draws the
    extra card from the empty library.  The hand held a Wastes and a second
    Shock or, in its place, a Murder: a Shock drawn this turn is still in the
    hand only in the first game (cards of one name are one card to the rules)."""
    g = at_main(deal5(L="The Corrupted Regent"), forced_decisions=forced)
    p = g.players[0]
    p.library = [card("Shock")]
    p.hand = [card("Wastes"), card("Shock" if second_shock else "Murder")]
    goto(g, "upkeep")
    while not (g.decision.seat == 0 and is_priority(g) and g.stack):
        g.step(g.layout.PASS)
    cast(g, 0, "Shock")
    target_player(g, 3)
    resolve_all(g)
    assert g.decision.kind == DecisionKind.YES_NO and g.decision.seat == 0
    g.step(g.layout.CHOICE + 0)                       # the extra draw finds the library empty
    assert p.drew_from_empty or p.has_lost            # unchecked yet, or checked: the loss (CR 704.5b)
    return g


def test_regent_pick_is_asked_whatever_the_hand_holds():
    """Whether the Regent's controller picks a card drawn this turn depends on
    their hand at an empty library's draw; the pick is asked either way ("none
    of them" alone where none is left), so with every decision shown both games
    ask the Leader for a card.  In the default ("auto") game a single option is
    taken at once: the Shock still in hand (then pay 3 life or put it back), or
    nothing."""
    for second_shock in (True, False):
        g = regent_at_an_empty_library(second_shock, "shown")
        assert (g.decision.seat, g.decision.kind) == (0, DecisionKind.CARD)
        assert [pl for _, pl in g.decision.options] == (["Shock"] if second_shock else [None])
    g = regent_at_an_empty_library(True, "auto")
    assert g.decision.kind == DecisionKind.MODE and "put Shock back on top" in g.decision.prompt
    g = regent_at_an_empty_library(False, "auto")
    assert g.players[0].has_lost and g.is_over         # the empty library's draw (CR 704.5b), no pick
    assert not [e for e in g.log if e["event"] in ("put_on_top", "pay_life") and e.get("seat") == 0]


def test_regent_does_not_trigger_in_other_players_draw_steps():
    """Card: "its controller's draw step" only."""
    g = at_main(deal5(L="The Corrupted Regent"))
    g.active = 1
    n = len(g.log)
    goto(g, "upkeep")                             # seat 1's draw step (then play runs on to seat 0's turn)
    seat1 = []
    for e in g.log[n:]:
        if e["event"] == "turn":
            break
        seat1.append(e)
    assert any(e["event"] == "draw" and e["seat"] == 1 for e in seat1)
    assert not any(e["event"] == "trigger" and e.get("source") == "The Corrupted Regent" for e in seat1)


# ============================================================== The King over the Scrapyard
def king_game():
    return at_main(deal5(L="The King over the Scrapyard"))


def test_king_attacking_creature_dies_junk_or_treasure():
    """Card: whenever one of its controller's attacking creatures dies (combat
    damage, then state-based actions, CR 704.5g), create a Junk or a Treasure
    token of their choice."""
    from scenario import attack
    g = king_game()
    bear = creature(g, 0, "Grove Bear")
    mammoth = creature(g, 1, "War Mammoth")
    attack(g, 0, 1)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER)
    target_creature(g, mammoth)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.MODE)
    assert g.decision.seat == 0 and bear not in g.players[0].creatures
    pick(g, lambda nm: nm == "Treasure")
    assert g.players[0].tokens["Treasure"] == 1 and g.players[0].tokens["Junk"] == 0


def king_blocker_dies(g: Game) -> None:
    """Seat 0's Grove Bear, blocking seat 1's attacking Rage Ogre, is destroyed; the
    King's trigger resolves and its controller picks a Junk token."""
    bear = creature(g, 0, "Grove Bear")
    ogre = creature(g, 1, "Rage Ogre")
    ogre.attacking = 0
    bear.blocking = ogre
    ogre.blocked_by = [bear]
    g.destroy(bear)
    give_priority(g, 0)
    resolve_all(g)
    pick(g, lambda nm: nm == "Junk")


def test_king_blocking_creature_dies_junk():
    """Card: a blocking creature that dies counts too."""
    g = king_game()
    king_blocker_dies(g)
    assert g.players[0].tokens["Junk"] == 1 and g.players[0].tokens["Treasure"] == 0


def test_king_knows_where_its_creature_went_whatever_the_log_holds():
    """Where the creature went (its graveyard: it died) comes with the event
    that it left, not from the log: with many unrelated entries logged after
    each creature leaves the battlefield, the blocker's death still counts."""
    g = king_game()
    log_noise_after(g, "leaves", 50)
    king_blocker_dies(g)
    assert g.players[0].tokens["Junk"] == 1


def test_king_creature_not_in_combat_dying_makes_nothing():
    """Card: outside combat a dying creature gives nothing (unless an opponent's
    effect removed it directly)."""
    g = king_game()
    bear = creature(g, 0, "Grove Bear")
    g.destroy(bear)
    give_priority(g, 0)
    assert g.players[0].tokens["Junk"] == g.players[0].tokens["Treasure"] == 0
    assert not g.stack


def test_king_opponent_removal_makes_junk_and_treasure():
    """Card: an opponent's spell that directly makes a nontoken permanent of
    yours leave the battlefield (Murder: destroy; Unsummon: return to hand)
    creates both a Junk and a Treasure.  A face-down player is an opponent
    (CR 907.7g)."""
    g = king_game()
    bear = creature(g, 0, "Grove Bear")
    owl = creature(g, 0, "Messenger Owl")
    hand(g, 1, "Murder", "Unsummon")
    g.players[1].lands = 4
    give_priority(g, 1)
    cast(g, 1, "Murder")
    target_creature(g, bear)
    resolve_all(g)
    p = g.players[0]
    assert bear not in p.creatures and (p.tokens["Junk"], p.tokens["Treasure"]) == (1, 1)
    give_priority(g, 1)
    cast(g, 1, "Unsummon")
    resolve_all(g)
    assert owl not in p.creatures and (p.tokens["Junk"], p.tokens["Treasure"]) == (2, 2)


def test_king_attacker_murdered_by_an_opponent_triggers_both_abilities():
    """Card: an attacking creature destroyed by an opponent's Murder both dies
    while attacking (Junk or Treasure) and was directly removed by an opponent's
    spell (Junk and Treasure): two triggers, three tokens."""
    g = king_game()
    bear = creature(g, 0, "Grove Bear")
    bear.attacking = 1
    g.combat_attackers = [bear]
    hand(g, 1, "Murder")
    g.players[1].lands = 3
    give_priority(g, 1)
    cast(g, 1, "Murder")
    resolve_all(g)
    # two different triggers of the King's controller: it orders them (CR 603.3b)
    assert g.decision.kind == DecisionKind.ORDER and g.decision.seat == 0
    g.step(g.decision.options[0][0])
    resolve_all(g)
    assert g.decision.kind == DecisionKind.MODE
    pick(g, lambda nm: nm == "Treasure")
    resolve_all(g)
    t = g.players[0].tokens
    assert (t["Junk"], t["Treasure"]) == (1, 2)


def test_king_indirect_death_tokens_and_own_removal_make_nothing():
    """Card: "directly" and "nontoken": a creature killed by an opponent's burn
    dies by a state-based action (not directly); a token doesn't count; the
    controller's own removal isn't an opponent's."""
    g = king_game()
    squire = creature(g, 0, "Blade Squire")
    soldier = token(g, 0, "Soldier")
    creature(g, 0, "Grove Bear")
    hand(g, 1, "Shock", "Murder")
    g.players[1].lands = 5
    give_priority(g, 1)
    cast(g, 1, "Shock")
    target_creature(g, squire)
    resolve_all(g)
    give_priority(g, 1)
    cast(g, 1, "Murder")
    target_creature(g, soldier)
    resolve_all(g)
    hand(g, 0, "Murder")
    g.players[0].lands = 3
    give_priority(g, 0)
    cast(g, 0, "Murder")                         # its only target, the Bear, is chosen automatically
    resolve_all(g)
    p = g.players[0]
    assert not p.creatures
    assert p.tokens["Junk"] == p.tokens["Treasure"] == 0


def test_king_guardian_removal_is_not_an_opponents():
    """CR 907.7g: a face-up Guardian is on the Leader's team, not an opponent."""
    g = king_game()
    bear = creature(g, 0, "Grove Bear")
    g.players[1].identity.face_up = True
    hand(g, 1, "Murder")
    g.players[1].lands = 3
    give_priority(g, 1)
    cast(g, 1, "Murder")                         # the only creature: chosen automatically
    resolve_all(g)
    assert bear not in g.players[0].creatures
    assert g.players[0].tokens["Junk"] == g.players[0].tokens["Treasure"] == 0


# ============================================================== The Twin Princesses
def twin_game():
    g = at_main(deal5(L="The Twin Princesses"))
    g.players[0].library = [card("Wastes")] * 10
    return g


def test_twin_princesses_copy_a_clue_ability():
    """Card: {2}, once each turn: copy target activated ability you control (a
    Clue's "draw a card", CR 707.10): two cards are drawn; the {2} is paid."""
    g = twin_game()
    p = g.players[0]
    p.tokens["Clue"] = 1
    p.lands = 4
    give_priority(g, 0)
    assert not ab_offered(g, 0)                  # nothing of theirs on the stack
    g.step(g.layout.TOKEN_AB + TOKEN_ABILITIES.index("Clue"))
    assert is_priority(g) and g.decision.seat == 0 and ab_offered(g, 0)
    g.step(g.layout.IDENTITY_AB + 0)
    assert p.lands_tapped == 4                    # 2 for the Clue, 2 for the Princesses
    resolve_all(g)
    assert len(p.hand) == 2 + 2
    assert [e for e in g.log if e["event"] == "copy"][-1]["source"] == "Clue"


def test_twin_princesses_copy_a_trigger_with_a_new_target():
    """Card / CR 707.10c: the copy of Flame Adept's enters trigger ("2 damage to
    any target") may get a new target."""
    g = twin_game()
    p = g.players[0]
    p.lands = 6                                   # one land left: Shock keeps seat 0 deciding
    hand(g, 0, "Flame Adept", "Shock")
    give_priority(g, 0)
    cast(g, 0, "Flame Adept")
    resolve_all(g)                                # the creature resolves; its trigger asks a target
    assert g.decision.kind == DecisionKind.TARGET
    target_player(g, 1)
    assert is_priority(g) and g.decision.seat == 0
    g.step(g.layout.IDENTITY_AB + 0)
    resolve_all(g)                                # the Princesses' ability resolves: copy, new target?
    assert [it.source for it in g.stack] == ["Flame Adept", "Flame Adept"] and g.stack[-1].is_copy
    assert g.decision.kind == DecisionKind.TARGET
    target_player(g, 2)
    l1, l2 = g.players[1].life, g.players[2].life
    resolve_all(g)
    assert (g.players[1].life, g.players[2].life) == (l1 - 2, l2 - 2)


def test_twin_princesses_once_per_turn_and_not_spells_or_others_abilities():
    """Card: only abilities (not spells) its controller controls; once each turn."""
    g = twin_game()
    p = g.players[0]
    p.lands = 8
    p.tokens["Clue"] = 2
    hand(g, 0, "Quick Study", "Wastes")
    give_priority(g, 0)
    cast(g, 0, "Quick Study")                    # a spell: not a legal target
    assert is_priority(g) and not ab_offered(g, 0)
    resolve_all(g)
    g.players[1].tokens["Clue"] = 1
    g.players[1].lands = 2
    give_priority(g, 1)
    g.step(g.layout.TOKEN_AB + TOKEN_ABILITIES.index("Clue"))
    assert not ab_offered(g, 0)                   # an opponent's ability
    resolve_all(g)
    give_priority(g, 0)
    g.step(g.layout.TOKEN_AB + TOKEN_ABILITIES.index("Clue"))
    g.step(g.layout.IDENTITY_AB + 0)
    resolve_all(g)
    give_priority(g, 0)
    g.step(g.layout.TOKEN_AB + TOKEN_ABILITIES.index("Clue"))
    assert not ab_offered(g, 0)                   # already used this turn


def test_twin_princesses_copy_does_nothing_if_the_original_left():
    """CR 608.2b: if the targeted ability left the stack (countered by The Void
    Tyrant's kind of effect), the copy ability does nothing."""
    g = twin_game()
    p = g.players[0]
    p.tokens["Clue"] = 1
    p.lands = 5
    give_priority(g, 0)
    g.step(g.layout.TOKEN_AB + TOKEN_ABILITIES.index("Clue"))
    g.step(g.layout.IDENTITY_AB + 0)
    clue = next(it for it in g.stack if it.source == "Clue")
    g.counter(clue)
    resolve_all(g)
    assert len(p.hand) == 2 and not any(e["event"] == "copy" for e in g.log)


# ============================================================== The Chaos Bringer
def chaos_game(rolls):
    g = at_main(deal5(L="The Chaos Bringer"))
    g.players[0].library = [card("Wastes")] * 3 + [card("Murder"), card("Grove Bear")]
    g.rng = FixedDice(rolls)
    return g


def chaos_end(g):
    goto(g, "main2")              # the end step begins: the Chaos Bringer triggers
    resolve_all(g)


def test_chaos_bringer_one_is_a_goat():
    """Card: at its controller's end step, roll a d6 (CR 706): 1 gives a 0/1 Goat."""
    g = chaos_game([1])
    chaos_end(g)
    goats = [c for c in g.players[0].creatures if c.name == "Goat"]
    assert len(goats) == 1 and (goats[0].power, goats[0].toughness) == (0, 1)
    assert [e for e in g.log if e["event"] == "roll"][-1]["results"] == [1]


def test_chaos_bringer_two_or_three_scry_that_many():
    """Card: 2-3 scry that number (CR 701.22): each looked-at card stays on top or
    goes to the bottom."""
    g = chaos_game([2])
    chaos_end(g)
    lib = g.players[0].library
    assert g.decision.kind == DecisionKind.SCRY
    g.step(g.layout.CHOICE + 1)        # Grove Bear to the bottom
    assert g.decision.kind == DecisionKind.SCRY
    g.step(g.layout.CHOICE + 0)        # Murder stays
    assert lib[-1].name == "Murder" and lib[0].name == "Grove Bear" and len(lib) == 5
    look = [e for e in g.log if e["event"] == "look_top"][-1]
    assert look["to"] == [0] and look["cards"] == ["Grove Bear", "Murder"]


def test_chaos_bringer_four_or_five_one_token_of_choice_six_all_three():
    """Card: 4-5 one Clue, Food or Treasure of your choice; 6 one of each."""
    g = chaos_game([5])
    chaos_end(g)
    pick(g, lambda nm: nm == "Food")
    assert g.players[0].tokens["Food"] == 1 and g.players[0].tokens["Clue"] == 0
    g = chaos_game([6])
    chaos_end(g)
    t = g.players[0].tokens
    assert (t["Clue"], t["Food"], t["Treasure"]) == (1, 1, 1)


def test_chaos_bringer_extra_roll_per_player_who_lost():
    """Card: one extra roll for each player who has already lost."""
    g = chaos_game([1, 6, 1])
    g.lose([3, 4])
    assert not g.is_over
    chaos_end(g)
    assert [e for e in g.log if e["event"] == "roll"][-1]["results"] == [1, 6, 1]
    assert sum(c.name == "Goat" for c in g.players[0].creatures) == 2
    assert g.players[0].tokens["Treasure"] == 1


def test_chaos_bringer_only_at_its_controllers_end_step():
    """Card: "at its controller's end step": another player's end step rolls nothing."""
    g = chaos_game([1])
    g.active = 2
    goto(g, "main2")
    assert not any(e["event"] == "roll" for e in g.log)


# ============================================================== The Debt Collector
def debt_game():
    g = at_main(deal5(L="The Debt Collector"))
    for p in g.players:
        p.library = [card("Wastes")] * 10
    return g


def test_debt_collector_end_step_target_draws_and_gets_a_debt_counter():
    """Card: at its controller's end step, a targeted other player draws a card
    and puts a debt counter on their identity card (even face down)."""
    g = debt_game()
    goto(g, "main2")
    assert g.decision.kind == DecisionKind.TARGET and g.decision.seat == 0
    assert g.layout.PLAYER + 0 not in [a for a, _ in g.decision.options]     # "other"
    target_player(g, 2)
    resolve_all(g)
    assert len(g.players[2].hand) == 1
    assert g.players[2].identity.counters == {"debt": 1} and not g.players[2].identity.face_up


def test_debt_collector_upkeep_drains_one_per_debt_counter():
    """Card: at its controller's upkeep every player loses 1 life per debt counter
    on their identity card; the controller gains the total."""
    g = debt_game()
    g.players[1].identity.counters["debt"] = 2
    g.players[3].identity.counters["debt"] = 1
    lives = [p.life for p in g.players]
    goto(g, "untap")
    resolve_all(g)
    assert [p.life for p in g.players] == [lives[0] + 3, lives[1] - 2, lives[2], lives[3] - 1, lives[4]]


def test_debt_collector_drain_kills_and_loss_draws_per_debt_counter():
    """Card + CR 704.5a: a player drained to 0 loses; "when any player loses the
    game" the Debt Collector's controller draws a card per debt counter that
    player had.  Both Assassins and the Traitor gone: the Leader team wins
    (CR 907.7)."""
    g = debt_game()
    for s in (2, 3, 4):
        g.players[s].identity.counters["debt"] = 2
        g.players[s].life = 2
    goto(g, "untap")
    resolve_all(g)
    assert all(g.players[s].has_lost for s in (2, 3, 4))
    assert g.is_over and g.winners == {0, 1}


def test_debt_collector_draws_when_a_debtor_loses():
    """Card: when a player with 3 debt counters loses (CR 104.3a), the Debt
    Collector's controller draws 3; a player without debt gives nothing."""
    g = debt_game()
    g.players[2].identity.counters["debt"] = 3
    g.lose(2)
    give_priority(g, 0)
    resolve_all(g)
    assert len(g.players[0].hand) == 2 + 3
    g.lose(3)                                       # no debt: nothing
    give_priority(g, 0)
    assert not g.stack and len(g.players[0].hand) == 5


# ============================================================== The Gathering
def gathering_game():
    g = at_main(deal5(L="The Gathering"))
    g.players[0].library = [card("Wastes")] * 4 + [card("Murder"), card("Grove Bear"), card("Shock"),
                                                   card("Blaze")]
    return g


def upkeep_modes(g):
    goto(g, "untap")
    assert g.decision.kind == DecisionKind.MODE and g.decision.seat == 0
    return sorted(m for _, m in g.decision.options if m is not None)


def test_gathering_white_four_soldiers_then_mode_is_used_up():
    """Card: White, four 1/1 Soldier tokens; each mode once per game."""
    g = gathering_game()
    assert upkeep_modes(g) == [0, 1, 3, 4]           # no creature card in the graveyard: no black
    pick(g, lambda m: m == 0)
    resolve_all(g)
    soldiers = [c for c in g.players[0].creatures if c.name == "Soldier"]
    assert len(soldiers) == 4 and all((c.power, c.toughness) == (1, 1) for c in soldiers)
    assert upkeep_modes(g) == [1, 3, 4]


def test_gathering_may_choose_no_mode():
    """Card: "may": PASS chooses no mode and uses none up."""
    g = gathering_game()
    upkeep_modes(g)
    g.step(g.layout.PASS)
    resolve_all(g)
    assert not g.players[0].creatures and upkeep_modes(g) == [0, 1, 3, 4]


def test_gathering_blue_scry_four_then_draw_two():
    """Card: Blue, scry 4 (CR 701.22) and then draw 2."""
    g = gathering_game()
    upkeep_modes(g)
    pick(g, lambda m: m == 1)
    resolve_all(g)
    for choice in (1, 0, 0, 1):                     # Blaze bottom, Shock top, Bear top, Murder bottom
        assert g.decision.kind == DecisionKind.SCRY
        g.step(g.layout.CHOICE + choice)
    p = g.players[0]
    assert sorted(c.name for c in p.hand) == ["Grove Bear", "Shock", "Shock", "Wastes"]
    assert [c.name for c in p.library[:2]] == ["Blaze", "Murder"] and len(p.library) == 6


def test_gathering_black_reanimates_a_creature_card():
    """Card: Black, return a creature card from their graveyard to the battlefield."""
    g = gathering_game()
    g.players[0].graveyard = [card("Murder"), card("War Mammoth")]
    assert upkeep_modes(g) == [0, 1, 2, 3, 4]
    pick(g, lambda m: m == 2)
    resolve_all(g)
    p = g.players[0]
    assert [c.name for c in p.creatures] == ["War Mammoth"] and [c.name for c in p.graveyard] == ["Murder"]


def test_gathering_red_four_damage_divided_wins_the_game():
    """Card: Red, 4 damage divided among any targets (four single points, each a
    target choice).  Killing both Assassins and the Traitor makes the Leader team
    (Leader + Guardian) win (CR 907.7)."""
    g = gathering_game()
    bear = creature(g, 1, "Grove Bear")
    for s in (2, 3, 4):
        g.players[s].life = 1
    upkeep_modes(g)
    pick(g, lambda m: m == 3)
    for s in (2, 3):
        target_player(g, s)
    target_player(g, 4)
    target_creature(g, bear)
    resolve_all(g)
    assert bear.damage == 1 and g.is_over and g.winners == {0, 1}


def test_gathering_red_points_can_share_a_target():
    """Card / CR 601.2d: divided damage may put several points on one target: 2 to
    a 2/2 (it dies, CR 704.5g) and 2 to a player."""
    g = gathering_game()
    bear = creature(g, 1, "Grove Bear")
    life = g.players[2].life
    upkeep_modes(g)
    pick(g, lambda m: m == 3)
    target_creature(g, bear)
    target_creature(g, bear)
    target_player(g, 2)
    target_player(g, 2)
    resolve_all(g)
    assert bear not in g.players[1].creatures and g.players[2].life == life - 2


def test_gathering_green_destroys_a_noncreature_permanent():
    """Card: Green, destroy target noncreature permanent.  Abstraction: lands and
    artifact tokens are counts; the permanent is targeted through its controller
    and chosen by kind."""
    g = gathering_game()
    q = g.players[1]
    q.lands, q.lands_tapped = 3, 1
    q.tokens["Treasure"] = 2
    upkeep_modes(g)
    pick(g, lambda m: m == 4)
    target_player(g, 1)
    pick(g, lambda k: k == "Treasure")
    resolve_all(g)
    assert q.tokens["Treasure"] == 1 and q.lands == 3
    g2 = gathering_game()
    q = g2.players[1]
    q.lands, q.lands_tapped = 3, 1
    upkeep_modes(g2)
    pick(g2, lambda m: m == 4)
    target_player(g2, 1)
    resolve_all(g2)
    assert (q.lands, q.lands_tapped) == (2, 1)


def test_gathering_green_destroys_a_planeswalker():
    """Card: Green, destroy target noncreature permanent; a planeswalker is one
    (CR 306, 701.8): it goes to its owner's graveyard, the other planeswalker
    and the lands stay.  The mode is offered even when a planeswalker is the
    only noncreature permanent, and a planeswalker gone before resolution is an
    illegal target (CR 608.2b)."""
    g = gathering_game()
    g.players[0].lands = 0
    pyra = g.put_planeswalker_onto_battlefield(2, card("Pyra, Storm Sage"))
    orla = g.put_planeswalker_onto_battlefield(3, card("Orla, Pack Warden"))
    assert upkeep_modes(g) == [0, 1, 3, 4]
    pick(g, lambda m: m == 4)
    g.step(g.target_action(0, ("w", pyra)))
    resolve_all(g)
    assert g.players[2].attackables == [] and pyra.card in g.players[2].graveyard
    assert g.players[3].attackables == [orla]
    g2 = gathering_game()
    q = g2.players[2]
    q.lands = 2
    pyra = g2.put_planeswalker_onto_battlefield(2, card("Pyra, Storm Sage"))
    upkeep_modes(g2)
    pick(g2, lambda m: m == 4)
    g2.step(g2.target_action(0, ("w", pyra)))
    assert g2.stack[-1].key == "gathering"
    g2.destroy(pyra)                                # gone before it resolves
    g2.players[2].graveyard.clear()
    resolve_all(g2)
    assert q.lands == 2 and not q.graveyard


# ============================================================== His Beloved Majesty
def majesty_game():
    g = at_main(deal5(L="His Beloved Majesty"))
    for p in g.players:
        p.library = [card("Wastes")] * 10
    return g


def test_majesty_a_player_hands_over_a_creature_and_draws():
    """Card: at its controller's upkeep each non-Leader player in turn order may
    give the Leader a nontoken permanent (the Leader gains control and untaps
    it) and draws a card; the Leader then doesn't draw."""
    g = majesty_game()
    bear = creature(g, 1, "Grove Bear", tapped=True)
    creature(g, 2, "Rage Ogre")
    token(g, 3, "Soldier")                            # a token can't be given: seat 3 isn't asked
    goto(g, "untap")
    resolve_all(g)
    assert g.decision.kind == DecisionKind.YES_NO and g.decision.seat == 1
    g.step(g.layout.CHOICE + 0)                       # the only nontoken permanent is taken automatically
    assert g.decision.kind == DecisionKind.YES_NO and g.decision.seat == 2
    g.step(g.layout.PASS)
    assert bear in g.players[0].creatures and not bear.tapped and bear.controller == 0
    assert len(g.players[1].hand) == 1 and len(g.players[2].hand) == 0
    assert len(g.players[0].hand) == 2                # Wastes + Shock: no draw


def test_majesty_nobody_accepts_leader_draws():
    """Card: if nobody accepts, the Leader draws a card."""
    g = majesty_game()
    creature(g, 1, "Grove Bear")
    goto(g, "untap")
    resolve_all(g)
    g.step(g.layout.PASS)
    assert len(g.players[0].hand) == 3 and len(g.players[1].hand) == 0


def test_majesty_a_land_can_be_given():
    """Card: a nontoken permanent: lands are counts here; the giver hands over a
    tapped one if they have one, and the Leader gets it untapped."""
    g = majesty_game()
    q = g.players[3]
    q.lands, q.lands_tapped = 2, 1
    lands0 = g.players[0].lands - g.players[0].lands_tapped
    goto(g, "untap")
    resolve_all(g)
    assert g.decision.seat == 3
    g.step(g.layout.CHOICE + 0)
    assert (q.lands, q.lands_tapped) == (1, 0)
    assert g.players[0].lands - g.players[0].lands_tapped == lands0 + 1 and len(q.hand) == 1


# ============================================================== The Lich Queen
def lich_game():
    g = at_main(deal5(L="The Lich Queen"))
    g.players[0].library = [card("Wastes")] * 5 + [card("Murder")]
    return g


def test_lich_queen_upkeep_surveil_one():
    """Card: at its controller's upkeep, surveil 1 (CR 701.25): the card goes into
    the graveyard (public) or stays on top."""
    g = lich_game()
    goto(g, "untap")
    resolve_all(g)
    assert g.decision.kind == DecisionKind.SCRY
    g.step(g.layout.CHOICE + 1)
    p = g.players[0]
    assert [c.name for c in p.graveyard] == ["Murder"] and len(p.library) == 5
    g = lich_game()
    goto(g, "untap")
    resolve_all(g)
    g.step(g.layout.CHOICE + 0)
    assert g.players[0].library[-1].name == "Murder" and not g.players[0].graveyard


def lich_grant(g, name):
    p = g.players[0]
    give_priority(g, 0)
    assert ab_offered(g, 0)
    g.step(g.layout.IDENTITY_AB + 0)
    if g.decision.kind == DecisionKind.CARD:
        pick(g, lambda nm: nm == name)
    resolve_all(g)
    assert p.permissions and p.permissions[-1]["card"].name == name


def test_lich_queen_sorcery_from_graveyard_is_exiled_after():
    """Card: remove a grave counter (once each turn): play target card from your
    graveyard this turn; an instant or sorcery cast this way is exiled after."""
    g = lich_game()
    p = g.players[0]
    p.lands = 5
    p.graveyard = [card("Blood Siphon"), card("Grove Bear")]
    lich_grant(g, "Blood Siphon")
    assert p.identity.counters["grave"] == 4
    assert not ab_offered(g, 0)                      # once each turn
    life1 = g.players[1].life
    g.step(g.layout.OTHER + 0)
    target_player(g, 1)
    resolve_all(g)
    assert g.players[1].life == life1 - 3
    assert [c.name for c in p.exile] == ["Blood Siphon"] and [c.name for c in p.graveyard] == ["Grove Bear"]
    assert p.lands_tapped == 3                       # its mana cost is paid


def lich_play_bear(g: Game):
    """Seat 0 plays the Grove Bear in its graveyard by The Lich Queen's permission (3
    lands); the creature it becomes, with its finality counter."""
    p = g.players[0]
    p.lands = 3
    p.graveyard = [card("Grove Bear")]
    lich_grant(g, "Grove Bear")
    g.step(g.layout.OTHER + 0)
    resolve_all(g)
    return next(c for c in p.creatures if c.name == "Grove Bear")


def test_lich_queen_permanent_has_finality_counter():
    """Card: a permanent played this way enters with a finality counter: if it
    would die, it is exiled instead."""
    g = lich_game()
    p = g.players[0]
    bear = lich_play_bear(g)
    other = creature(g, 0, "Grove Bear")
    g.destroy(other)                                 # no finality: the graveyard
    g.destroy(bear)
    assert [c.name for c in p.exile] == ["Grove Bear"] and [c.name for c in p.graveyard] == ["Grove Bear"]


def test_lich_queen_finality_whatever_the_log_holds():
    """Where the permanent went comes with the event that it left, not from the
    log: with many unrelated entries logged after each creature leaves the
    battlefield, the finality counter still exiles it."""
    g = lich_game()
    log_noise_after(g, "leaves", 50)
    p = g.players[0]
    g.destroy(lich_play_bear(g))
    assert [c.name for c in p.exile] == ["Grove Bear"] and not p.graveyard


def test_lich_queen_countered_instant_is_exiled_and_permission_ends():
    """Card: the instant cast this way is exiled even if countered; the permission
    lasts this turn only (cleanup)."""
    g = lich_game()
    p = g.players[0]
    p.lands = 4
    p.graveyard = [card("Shock"), card("Murder")]
    lich_grant(g, "Shock")
    g.step(g.layout.OTHER + 0)
    target_player(g, 2)
    shock = next(it for it in g.stack if it.is_spell)
    g.counter(shock)
    assert [c.name for c in p.exile] == ["Shock"]
    g2 = lich_game()
    g2.players[0].graveyard = [card("Murder")]
    lich_grant(g2, "Murder")
    goto(g2, "end")                                  # cleanup: "this turn" ends
    assert not g2.players[0].permissions


def test_lich_queen_countered_planeswalker_goes_to_the_graveyard():
    """Card: only an instant or sorcery cast this way is exiled afterwards; a
    planeswalker spell (a permanent spell) cast from the graveyard and countered
    goes back to its owner's graveyard (CR 701.5a)."""
    g = lich_game()
    p = g.players[0]
    p.lands = 6                                      # mana left for Shock: seat 0 keeps priority
    p.graveyard = [card("Pyra, Storm Sage"), card("Murder")]
    lich_grant(g, "Pyra, Storm Sage")
    g.step(g.layout.OTHER + 0)
    pyra = next(it for it in g.stack if it.is_spell)
    assert pyra.from_zone == "graveyard" and not p.attackables
    g.counter(pyra)
    assert not p.exile and sorted(c.name for c in p.graveyard) == ["Murder", "Pyra, Storm Sage"]


def test_lich_queen_no_counter_no_activation():
    """CR 602.2 / card: removing a grave counter is a cost; without one the
    ability can't be activated."""
    g = lich_game()
    p = g.players[0]
    p.graveyard = [card("Murder")]
    p.identity.counters["grave"] = 0
    give_priority(g, 0)
    assert not ab_offered(g, 0)


# ============================================================== random play
def test_fuzz_random_play_with_these_leaders():
    """100 random games (5 players, 10 lands each, fixed deals with one of these
    Leaders): invariants hold after every action, results follow CR 907.7, and
    every card's abilities get used."""
    fill = [["The Bodyguard", "The Demon", "The Beastmaster", "The Banisher"],
            ["The Immortal", "The Seer", "The Sorceress", "The Grenadier"],
            ["The Cathar", "The Chaos Wielder", "The Sigil Mage", "The Gatekeeper"]]
    used = Counter()
    for k in range(100):
        leader = MINE[k % 8]
        rng = random.Random(k)
        ids = [leader] + fill[k % 3]
        rng.shuffle(ids)
        # the silent table: random talk would take most of the picks in these 14 turns (talk is fuzzed
        # in tests/test_talk.py)
        g = Game(GameConfig(num_players=5, identities=ids, max_turns=14, starting_life=15, commander=bool(k % 2),
                            talk="none"), seed=k)
        play_with_lands(g, rng)
        for e in g.log:
            if e["event"] in ("resolve", "activate") and e.get("source") in MINE:
                used[e["source"]] += 1
    assert set(used) == set(MINE), sorted(set(MINE) - set(used))
