"""Scenario tests of the Treachery layer of the rules engine.

Each test cites the rule it checks: the Treachery addendum to the
Comprehensive Rules (CR 907, 702.187, 314, 115.2tr), the TR guide
(``TR: <section>``) or the basics-and-FAQ text (``FAQ``).  The per-identity
costs and effects are covered in ``test_identities.py``; here the rules
around them are.
"""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from treachery_env.actions import ActionLayout
from treachery_env.config import GameConfig
from treachery_env.engine import DecisionKind, Game
from treachery_env.identity_abilities import unveil_cost_ok
from treachery_env.rules import Role, Team, role_distribution

from scenario import (PASS, random_game, add_creature, attack, events, give_priority, has_priority, make_game,
                      pass_priority_until, refresh, resolve_stack)

# A five-player deal used by most scenarios (CR 907.3b default setup):
# seat 0 Leader, 1 Guardian, 2 and 3 Assassins, 4 Traitor.
FIVE = ["The Void Tyrant", "The Bodyguard", "The Seer", "The Demon", "The Grenadier"]
L_, G_, A1, A2, T_ = 0, 1, 2, 3, 4


def unveil_action(g: Game, seat: int, x: int = 0) -> None:
    """Give ``seat`` priority and take the unveil action with X = ``x``."""
    give_priority(g, seat)
    g.step(g.layout.UNVEIL + x)


# ----------------------------------------------------------------------------- deal (CR 907.3-907.6)
@pytest.mark.parametrize("n, expected", [
    (4, (1, 0, 2, 1)), (5, (1, 1, 2, 1)), (6, (1, 1, 3, 1)), (7, (1, 2, 3, 1)), (8, (1, 2, 3, 2)),
])
def test_role_distribution_follows_the_cr_table(n, expected):
    """CR 907.3c: the recommended identity decks for 4-8 players."""
    d = role_distribution(n)
    assert (d[Role.LEADER], d[Role.GUARDIAN], d[Role.ASSASSIN], d[Role.TRAITOR]) == expected


@pytest.mark.parametrize("n, expected", [
    (9, (1, 2, 4, 2)), (10, (1, 2, 5, 2)), (11, (1, 3, 5, 2)), (12, (1, 3, 6, 2)),
])
def test_role_distribution_for_nine_and_more_follows_the_faq_rule(n, expected):
    """FAQ (9+ players) within CR 907.3b: floor(n/2) Assassins, one Leader, the
    rest split between Guardians and Traitors with the Guardians taking the odd seat."""
    d = role_distribution(n)
    assert (d[Role.LEADER], d[Role.GUARDIAN], d[Role.ASSASSIN], d[Role.TRAITOR]) == expected
    assert d[Role.ASSASSIN] == n // 2 and d[Role.TRAITOR] >= 1 and sum(d.values()) == n
    assert d[Role.GUARDIAN] - d[Role.TRAITOR] in (0, 1)


def test_role_names_parse_in_any_case_in_order_and_refuse_empty_unknown_or_repeated_names():
    assert Role.parse_many([" Assassin", "LEADER", Role.TRAITOR]) == (Role.ASSASSIN, Role.LEADER, Role.TRAITOR)
    assert Role.parse_many(iter(["guardian"])) == (Role.GUARDIAN,) and Role.parse_many([]) == ()
    for names, msg in ((["assassin", " "], r"an empty role name in \['assassin', ' '\]"),
                       (["wizard"], "unknown role 'wizard'"),
                       (["traitor", " Traitor"], "^traitor named twice$"),
                       ([Role.LEADER, "leader"], "^leader named twice$")):
        with pytest.raises(ValueError, match=msg):
            Role.parse_many(names)


@pytest.mark.parametrize("bad", [3, 0, -5, 4.0, "5", True])
def test_role_distribution_rejects_fewer_than_four_players(bad):
    """CR 907.2: a Treachery game has four or more players."""
    with pytest.raises(ValueError, match="num_players"):
        role_distribution(bad)


@pytest.mark.parametrize("n", range(4, 13))
def test_random_deal_follows_distribution_leader_face_up_and_first(n):
    """CR 907.3a-b, 907.4, 907.6: one identity per player following the
    distribution; only the Leader is face up (known to all) and the Leader's
    controller takes the first turn; the others are face down, known only to
    their owner (CR 314.9), and dealt privately."""
    for seed in (0, 1):
        g = Game(GameConfig(num_players=n, mulligans="none"), seed=seed)   # the first turn begins at once
        roles = [p.identity.role for p in g.players]
        assert {r: roles.count(r) for r in Role} == role_distribution(n)
        assert len({p.identity.name for p in g.players}) == n
        leader = roles.index(Role.LEADER)
        assert g.active == leader and g.turn == 1
        assert events(g, "turn")[0]["seat"] == leader
        for p in g.players:
            if p.seat == leader:
                assert p.face_up and p.identity.known_by == set(range(n))
            else:
                assert not p.face_up and p.identity.known_by == {p.seat}
                assert p.identity.controller == p.identity.owner == p.seat
        deals = events(g, "deal")
        assert all(e["to"] == [e["seat"]] for e in deals) and len(deals) == n
        assert events(g, "leader")[0]["to"] is None and events(g, "leader")[0]["seat"] == leader


def test_fixed_deal_puts_the_leader_first_wherever_it_sits():
    """CR 907.6 / 314.3a: the Leader player is the starting player, not seat 0."""
    deal = ["The Bodyguard", "The Seer", "The Grenadier", "The Queen of Light", "The Demon"]
    g = make_game(deal)
    assert g.active == 3 and g.current_player == 3
    assert g.players[3].face_up and not any(g.players[s].face_up for s in (0, 1, 2, 4))


# ----------------------------------------------------------------------------- unveil (CR 702.187, 115.2tr)
def test_unveil_needs_priority():
    """CR 115.2tr / 702.187c: unveiling is a special action a player may take any
    time they have priority, and only then."""
    g = make_game(FIVE, lands=3)
    assert g.current_player == L_
    assert not g.can_unveil(T_)                       # seat 0 holds priority
    assert g.can_unveil(T_, ignore_cost=True)         # nothing else forbids it
    mask = g.legal_action_mask()
    assert not mask[g.layout.UNVEIL:g.layout.UNVEIL + 16].any()   # the Leader has nothing to unveil
    give_priority(g, T_)                              # on another player's turn
    assert g.active == L_
    assert g.can_unveil(T_) and g.can_unveil(T_, 2)
    assert g.legal_action_mask()[g.layout.UNVEIL] == 1


def test_unveil_pays_mana_and_x_is_bounded_by_mana():
    """CR 702.187c, 702.187e: the unveil cost is paid, X included; X can't exceed
    what the player can pay, and a cost without X only allows X = 0."""
    g = make_game(["The Void Tyrant", "The Bodyguard", "The Seer", "The Demon", "The Gatekeeper"], lands=3)
    give_priority(g, A1)          # The Seer: unveil {X}
    L = g.layout
    legal = set(g.legal_actions())
    assert {L.UNVEIL + x for x in range(4)} <= legal and L.UNVEIL + 4 not in legal
    assert g.can_unveil(A1, 3) and not g.can_unveil(A1, 4)
    with pytest.raises(ValueError, match=r"^can_unveil: x must be an int from 0 to 15, got 16$"):
        g.can_unveil(A1, 16, ignore_cost=True)     # was False, as if X were only unaffordable
    assert g.unveil_cost_mana(A1, 3) == 3
    give_priority(g, T_)          # The Gatekeeper: unveil {3}, no X
    assert g.can_unveil(T_) and not g.can_unveil(T_, 1, ignore_cost=True)
    assert L.UNVEIL in g.legal_actions() and L.UNVEIL + 1 not in g.legal_actions()
    g.players[T_].lands_tapped = 1     # only 2 mana left: can't pay {3}
    refresh(g)
    assert not g.can_unveil(T_)
    with pytest.raises(ValueError, match="cannot pay"):
        g.unveil(T_)
    assert not g.players[T_].face_up


def test_unveil_is_a_special_action_and_its_trigger_uses_the_stack():
    """CR 702.187c-e, 314.8, 115.2tr; FAQ "Can players respond to me unveiling?":
    the identity turns face up at once (no stack) and the player keeps priority;
    the "when unveiled" trigger goes on the stack, can be responded to, and uses
    the X paid (The Grenadier: X+3 Explosive tokens)."""
    g = make_game(FIVE, lands=1)
    g.players[T_].lands = 3
    give_priority(g, T_)
    g.step(g.layout.UNVEIL + 2)
    gren = g.players[T_]
    assert gren.face_up and gren.identity.x == 2 and gren.identity.known_by == set(range(5))
    assert gren.lands_tapped == 2
    cost_log = events(g, "unveil_cost")[-1]
    assert cost_log["x"] == 2 and cost_log["to"] is None          # shown to all players
    # the player keeps priority, with the trigger on the stack
    assert has_priority(T_)(g)
    assert len(g.stack) == 1 and g.stack[0].key == "unveil" and g.stack[0].x == 2
    assert g.stack[0].identity_source and gren.tokens["Explosive"] == 0
    # an Assassin responds with Shock to the Grenadier's face
    give_priority(g, A2)
    g.step(g.layout.HAND + 0)
    assert g.decision.kind == DecisionKind.TARGET
    g.step(g.layout.PLAYER + g.rel(A2, T_))
    assert [it.source for it in g.stack] == ["The Grenadier", "Shock"]
    pass_priority_until(g, lambda g: len(g.stack) == 1)
    assert gren.life == 38 and gren.tokens["Explosive"] == 0       # the response resolved first
    resolve_stack(g)
    assert gren.tokens["Explosive"] == 5


def test_unveil_with_life_and_exile_from_hand_cost():
    """CR 702.187c, 119.4: The Ambitious Queen's cost (pay 1 life, exile a nonland
    card from hand) is paid through a decision; lands can't be chosen; without a
    nonland card the unveil isn't possible."""
    g2 = make_game(["The Void Tyrant", "The Bodyguard", "The Seer", "The Ambitious Queen", "The Grenadier"],
                   hand=["Wastes", "Shock", "Grove Bear"])
    q = g2.players[A2]
    give_priority(g2, A2)
    assert g2.can_unveil(A2)
    g2.step(g2.layout.UNVEIL)
    d = g2.decision
    assert d.kind == DecisionKind.COST and d.seat == A2
    assert sorted(a for a, _ in d.options) == [g2.layout.HAND + 1, g2.layout.HAND + 2]
    g2.step(g2.layout.HAND + 2)
    assert q.face_up and q.life == 39
    assert [c.name for c in q.exile] == ["Grove Bear"] and [c.name for c in q.hand] == ["Wastes", "Shock"]
    # its trigger needs a noncreature spell to target: none, so it is removed (CR 603.3d)
    assert not g2.stack and events(g2, "trigger_removed")
    # with only lands in hand the cost can't be paid
    g3 = make_game(["The Void Tyrant", "The Bodyguard", "The Seer", "The Ambitious Queen", "The Grenadier"],
                   hand=["Wastes", "Wastes"])
    assert g3.can_unveil(A2, ignore_cost=True) and not unveil_cost_ok(g3, A2, 0)
    with pytest.raises(ValueError, match="cannot pay"):
        g3.unveil(A2)
    assert not g3.players[A2].face_up and g3.players[A2].life == 40


def test_life_cost_needs_enough_life():
    """CR 119.4 with CR 702.187c: The Cathar's {5}, pay 5 life can't be paid at 4 life."""
    g = make_game(["The Void Tyrant", "The Cathar", "The Seer", "The Demon", "The Grenadier"], lands=6)
    unveil_action(g, T_, 0)                         # meets Undercover for the Cathar
    resolve_stack(g)
    g.players[G_].life = 4
    give_priority(g, G_)
    assert g.can_unveil(G_, ignore_cost=True) and not g.can_unveil(G_)
    assert g.layout.UNVEIL not in g.legal_actions()
    g.players[G_].life = 5
    refresh(g)
    assert g.can_unveil(G_) and g.layout.UNVEIL in g.legal_actions()
    g.step(g.layout.UNVEIL)
    assert g.players[G_].face_up and g.players[G_].has_lost     # paid 5 of 5 life: 0 life (CR 704.5a)


@pytest.mark.parametrize("x", [0, 3])
def test_x_of_the_unveil_cost_carries_into_the_seer_trigger(x):
    """CR 702.187e, TR example: unveiling The Seer with X = N pays N and scries N."""
    g = make_game(FIVE, lands=4)
    unveil_action(g, A1, x)
    assert g.players[A1].lands_tapped == x
    scries = 0
    pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.SCRY or not g.stack)
    while g.decision.kind == DecisionKind.SCRY:
        scries += 1
        g.step(g.layout.CHOICE + 0)
        pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.SCRY or not g.stack)
    assert scries == x
    assert [c.name for c in g.players[A1].hand] == ["Shock", "Wastes"]   # the revealed top card


# ----------------------------------------------------------------------------- Undercover (CR 702.187f, TR)
def test_undercover_guardian_cannot_unveil_at_the_start():
    """CR 702.187f, TR: Undercover: the Leader's own face-up identity doesn't count,
    so at the start a Guardian can't unveil even with the mana."""
    g = make_game(FIVE, lands=5)
    assert g.players[L_].face_up
    assert not g.undercover_met(G_) and not g.can_unveil(G_, ignore_cost=True)
    give_priority(g, G_)
    assert not any(g.layout.UNVEIL <= a < g.layout.UNVEIL + 16 for a in g.legal_actions())
    with pytest.raises(ValueError, match="Undercover"):
        g.unveil(G_)
    assert not g.players[G_].face_up


def test_undercover_met_once_another_identity_is_unveiled():
    """CR 702.187f, TR: Undercover: another non-Leader identity turned face up
    lets the Guardian unveil, for the rest of the game."""
    g = make_game(FIVE, lands=5)
    unveil_action(g, T_, 0)
    resolve_stack(g)
    assert g.undercover_met(G_) and g.can_unveil(G_, ignore_cost=True)
    give_priority(g, G_)
    assert g.layout.UNVEIL in g.legal_actions()
    g.turn_face_down(T_)                  # stays met once met
    assert g.undercover_met(G_)


def test_undercover_own_attack_does_not_count_another_players_does():
    """CR 702.187f, TR: Undercover: a player other than the Guardian attacking the
    Leader meets the condition; the Guardian's own attack doesn't.  A face-down
    Guardian may attack the Leader at all because it is everyone's opponent
    (CR 907.7g)."""
    g = make_game(FIVE, lands=1)
    add_creature(g, G_, "Grove Bear")
    add_creature(g, A1, "Grove Bear")
    refresh(g)
    assert g.can_attack(G_, L_)
    attack(g, G_, L_)
    assert g.leader_attacked_by == {G_}
    pass_priority_until(g, lambda g: g.phase == "main2")
    assert g.players[L_].life == 38          # the Bear connected
    assert not g.undercover_met(G_) and not g.can_unveil(G_, ignore_cost=True)
    attack(g, A1, L_)
    assert g.leader_attacked_by == {G_, A1}
    assert g.undercover_met(G_) and g.can_unveil(G_, ignore_cost=True)


def test_attacking_someone_else_does_not_meet_undercover():
    """CR 702.187f: only an attack on a Leader player counts."""
    g = make_game(FIVE, lands=1)
    add_creature(g, G_, "Grove Bear")
    refresh(g)
    attack(g, G_, A1)
    pass_priority_until(g, lambda g: g.phase == "main2")
    assert g.players[A1].life == 38
    assert not g.leader_attacked_by and not g.undercover_met(A2)


# ----------------------------------------------------------------------------- opponents, "Leader player"
def test_face_down_players_are_everyones_opponents():
    """CR 907.7g, TR3.11: while face down, players are opponents of everyone;
    once face up, the Leader and Guardians are teammates, so are Assassins, and a
    Traitor opposes everyone (CR 907.7a, 907.7f)."""
    g = make_game(FIVE)
    for a in range(5):
        for b in range(5):
            assert g.is_opponent(a, b) == (a != b)
    for s in (G_, A1, A2, T_):
        g.players[s].identity.face_up = True
    assert not g.is_opponent(L_, G_) and not g.is_opponent(G_, L_)
    assert not g.is_opponent(A1, A2) and not g.is_opponent(A2, A1)
    assert g.is_opponent(L_, A1) and g.is_opponent(A1, G_)
    assert all(g.is_opponent(T_, s) and g.is_opponent(s, T_) for s in range(4))
    # one of the two face down again: opponents again
    g.players[A2].identity.face_up = False
    assert g.is_opponent(A1, A2) and g.is_opponent(A2, A1)


def test_unveiled_guardian_can_no_longer_attack_the_leader():
    """CR 907.7g with CR 506.2 / 802: a player attacks opponents only; the hidden
    Guardian may attack the Leader, the unveiled one may not."""
    g = make_game(FIVE, lands=5)
    assert g.can_attack(G_, L_)
    unveil_action(g, T_, 0)
    resolve_stack(g)
    unveil_action(g, G_, 0)                  # The Bodyguard: its trigger targets a player
    assert g.decision.kind == DecisionKind.TARGET
    g.step(g.layout.PLAYER + g.rel(G_, L_))
    resolve_stack(g)
    assert g.players[G_].face_up
    assert not g.can_attack(G_, L_) and not g.can_attack(L_, G_)
    assert g.can_attack(G_, A1) and g.can_attack(G_, T_)


def test_leader_player_means_a_face_up_leader_identity():
    """CR 314.7, TR: "[type] player" means a player controlling a face-up identity
    of that type: a hidden Guardian isn't a "Guardian player"."""
    g = make_game(FIVE)
    assert g.is_leader_player(L_) and not any(g.is_leader_player(s) for s in (1, 2, 3, 4))
    assert g.target_candidates(A1, {"type": "leader_player"}) == [("p", L_)]
    assert not g.role_player(G_, Role.GUARDIAN)
    g.players[G_].identity.face_up = True
    assert g.role_player(G_, Role.GUARDIAN)
    g.players[L_].identity.face_up = False       # hypothetically face down: no Leader player
    assert not g.is_leader_player(L_)
    assert g.target_candidates(A1, {"type": "leader_player"}) == []


# ----------------------------------------------------------------------------- winning and losing (CR 907.7, TR6)
def test_leader_team_wins_and_eliminated_guardian_shares_the_win():
    """CR 907.7b-c, TR6.6, TR7.4: the Leader team wins once every Assassin and
    Traitor has left; a Guardian eliminated earlier wins too."""
    g = make_game(FIVE)
    g.lose(G_)
    refresh(g)
    assert g.players[G_].has_lost and not g.is_over
    assert g.players[G_].team == Team.LEADER and g.players[G_].role == Role.GUARDIAN
    g.lose(A1)
    g.lose(A2)
    assert not g.is_over                  # the Traitor is still in
    g.lose(T_)
    assert g.is_over and not g.truncated
    assert g.winners == {L_, G_}
    assert g.players[G_].won and g.players[L_].won and not g.players[A1].won
    assert g.decision is None and g.current_player is None


def test_assassins_win_when_the_leader_loses_and_dead_assassin_shares():
    """CR 907.7c-d, FAQ example: an Assassin knocked out earlier still wins when
    another Assassin finishes the Leader; the Guardian loses with the Leader."""
    g = make_game(FIVE)
    g.lose(A1)
    refresh(g)
    assert not g.is_over
    g.lose(L_)
    assert g.is_over
    assert g.winners == {A1, A2}
    assert g.players[G_].has_lost and not g.players[G_].won
    assert [e["reason"] for e in events(g, "loses") if e["seat"] == G_] == ["team"]
    assert g.players[A1].team == Team.ASSASSIN


def test_assassins_cannot_win_once_all_assassins_have_lost():
    """CR 907.7e, FAQ: with every Assassin gone, the Leader falling leaves the
    last Traitor as the winner (CR 907.7f), not the Assassins."""
    g = make_game(FIVE)
    g.lose(A1)
    g.lose(A2)
    refresh(g)
    assert not g.is_over
    g.lose(L_)
    assert g.is_over and g.winners == {T_}
    assert g.players[G_].has_lost


def test_traitor_wins_only_when_every_other_player_has_lost():
    """CR 907.7f, TR: a Traitor's opponents include the other Traitors; it wins only
    as the last player in the game."""
    deal = ["The Queen of Light", "The Bodyguard", "The Cathar", "The Seer", "The Demon", "The Sorceress",
            "The Grenadier", "The Gatekeeper"]
    g = make_game(deal)
    for s in (3, 4, 5):
        g.lose(s)
    refresh(g)
    assert not g.is_over                  # Leader team and two Traitors left
    g.lose(0)
    assert not g.is_over                  # two Traitors oppose each other
    assert g.players[1].has_lost and g.players[2].has_lost
    refresh(g)
    assert g.current_player in (6, 7)
    g.lose(6)
    assert g.is_over and g.winners == {7}


def test_guardian_that_cant_lose_still_loses_with_the_leader():
    """TR6.3 and its example: an effect saying a Guardian can't lose protects it
    from its own losses, not from the Leader team's loss."""
    g = make_game(FIVE)
    g.players[G_].cant_lose = True
    g.players[G_].life = 0
    refresh(g)
    assert not g.players[G_].has_lost     # the effect works for the player alone
    g.players[G_].life = 10
    g.lose(L_)
    assert g.players[G_].has_lost and g.is_over
    assert g.winners == {A1, A2}


def test_simultaneous_loss_of_leader_and_last_assassin_lets_the_traitor_win():
    """TR: simultaneous losses: players losing together leave together, then the
    win conditions are checked: the Leader and the last Assassin dying at once
    with a Traitor left is a Traitor win (CR 907.7e-f), not an Assassin win."""
    g = make_game(FIVE)
    g.lose(A1)
    g.lose([L_, A2])
    assert g.is_over and g.winners == {T_}
    assert all(g.players[s].has_lost for s in (L_, G_, A1, A2))


def test_simultaneous_loss_by_state_based_actions():
    """CR 704.3 with TR: simultaneous losses: players at 0 life lose in the same
    check of state-based actions, together."""
    g = make_game(FIVE)
    g.lose(A1)
    refresh(g)
    g.players[L_].life = 0
    g.players[A2].life = -3
    refresh(g)
    assert g.is_over and g.winners == {T_}
    lost = [(e["seat"], e["reason"]) for e in events(g, "loses")]
    assert lost == [(A1, "rules"), (L_, "rules"), (A2, "rules"), (G_, "team")]


def test_everyone_losing_together_is_a_draw():
    """TR: simultaneous losses: if every remaining player loses at once, nobody wins."""
    g = make_game(FIVE)
    g.lose(list(range(5)))
    assert g.is_over and g.winners == set()
    assert not any(p.won for p in g.players)
    g2 = make_game(FIVE)
    for p in g2.players:
        p.life = 0
    refresh(g2)
    assert g2.is_over and g2.winners == set()


def test_concession_is_a_loss():
    """CR 104.3a, TR: concession: the player leaves and counts as having lost; an
    effect that replaces losing doesn't apply; the game goes on for the others."""
    g = make_game(FIVE)
    assert g.current_player == L_
    g.players[A2].cant_lose = True
    g.concede(A2)                         # not the deciding seat
    assert g.players[A2].has_lost and not g.is_over and g.current_player == L_
    assert events(g, "loses")[-1]["reason"] == "concede"
    with pytest.raises(ValueError):
        g.concede(A2)
    g.concede(L_)                         # the deciding seat: the Leader concedes
    assert g.is_over and g.winners == {A1, A2}


def test_concession_of_the_deciding_seat_passes_the_decision_on():
    """CR 104.3a, CR 800.4a: the game continues without the conceding player."""
    g = make_game(FIVE)
    give_priority(g, A1)
    g.concede(A1)
    assert not g.is_over and g.current_player is not None and g.current_player != A1
    pass_priority_until(g, lambda g: g.turn >= 3)
    assert all(e["seat"] != A1 for e in events(g, "turn"))


def test_active_player_leaving_on_their_own_turn():
    """TR: leaving the game: if the active player leaves during their own turn, the
    turn carries on without an active player and nobody gets priority for them;
    the next turn is the next player's in the game."""
    g = make_game(FIVE)
    pass_priority_until(g, lambda g: g.active == A1 and g.phase == "main1" and has_priority(A1)(g))
    g.concede(A1)
    assert g.players[A1].has_lost and not g.is_over
    seen = []
    pass_priority_until(g, lambda g: (seen.append(g.current_player) or False) or g.active == A2)
    assert A1 not in seen
    assert [e["seat"] for e in events(g, "turn")] == [L_, G_, A1, A2]


def test_you_win_the_game_wins_for_the_whole_team():
    """TR6.7: a "you win the game" effect makes the whole team win, eliminated
    teammates included; a Traitor wins alone."""
    g = make_game(FIVE)
    g.lose(A1)
    refresh(g)
    g.win(A2)                             # A2 is still face down: it doesn't matter
    assert g.is_over and g.winners == {A1, A2}
    g2 = make_game(FIVE)
    g2.win(T_)
    assert g2.winners == {T_}
    g3 = make_game(FIVE)
    g3.lose(G_)
    refresh(g3)
    g3.win(L_)
    assert g3.winners == {L_, G_}


def test_lose_on_the_deciding_seat_leaves_the_game_playable():
    """CR 800.4a: when the player holding a decision leaves, the game goes on with
    another player deciding (``lose`` is public API for scenarios)."""
    g = make_game(FIVE)
    assert g.current_player == L_
    g.lose(T_)
    assert g.current_player == L_
    give_priority(g, A1)
    g.lose(A1)
    assert not g.is_over
    assert g.current_player is not None and g.current_player != A1
    g.step(PASS)


# ----------------------------------------------------------------------------- reveal on losing (CR 702.187a/g)
def test_reveal_on_losing_is_not_an_unveil():
    """CR 702.187a/g, TR: a losing player's face-down identity is turned face up and
    revealed to all, but that isn't an unveil: no cost, no "when unveiled"
    trigger (a face-down Grenadier creates no Explosive tokens), X stays 0."""
    g = make_game(FIVE, lands=5)
    g.lose(T_)
    refresh(g)
    idc = g.players[T_].identity
    assert idc.face_up and idc.known_by == set(range(5)) and idc.x == 0
    assert not events(g, "unveil") and not events(g, "unveil_cost")
    assert not g.stack and not g.pending_triggers
    assert not any(e["event"] == "trigger" and e["source"] == "The Grenadier" for e in g.log)
    assert not any(e["event"] == "tokens" and e.get("name") == "Explosive" for e in g.log)
    loses = events(g, "loses")[-1]
    assert loses["identity"] == "The Grenadier" and loses["to"] is None
    assert g.players[T_].role == Role.TRAITOR and g.players[T_].team == Team.TRAITOR


def test_identity_revealed_on_loss_meets_undercover():
    """TR: Undercover / leaving the game: a revealed non-Leader identity counts for
    Undercover, even though it wasn't unveiled."""
    g = make_game(FIVE, lands=5)
    assert not g.undercover_met(G_)
    g.lose(A2)
    refresh(g)
    assert g.undercover_met(G_)
    give_priority(g, G_)
    assert g.layout.UNVEIL in g.legal_actions()


def test_identity_sourced_effect_happens_before_the_player_leaves():
    """CR 907.8a: objects with an identity source act before their owner leaves:
    The Cathar's exiled permanents return when its controller loses."""
    g = make_game(["The Void Tyrant", "The Cathar", "The Seer", "The Demon", "The Grenadier"], lands=1)
    bear = add_creature(g, A1, "Grove Bear")
    weaver = add_creature(g, A2, "Web Weaver")
    g.players[G_].lands = 6
    refresh(g)
    unveil_action(g, T_, 0)                # meets Undercover
    resolve_stack(g)
    unveil_action(g, G_, 0)
    cathar = g.players[G_]
    assert cathar.face_up and cathar.life == 35            # paid 5 life
    L = g.layout
    g.step(L.perm(g.rel(G_, A1), 0))
    g.step(L.perm(g.rel(G_, A2), 0))
    g.step(PASS)
    resolve_stack(g)
    assert bear not in g.players[A1].creatures and weaver not in g.players[A2].creatures
    assert [c.name for c in g.players[A1].exile] == ["Grove Bear"]
    g.lose(G_)
    refresh(g)
    assert [c.name for c in g.players[A1].creatures] == ["Grove Bear"]
    assert [c.name for c in g.players[A2].creatures] == ["Web Weaver"]
    assert g.players[A1].exile == [] and g.players[A2].exile == []
    assert g.players[A1].creatures[0].controller == A1


# ----------------------------------------------------------------------------- control changes (TR8)
def test_taking_the_leader_identity_as_the_leader_loses_keeps_the_team_alive():
    """TR8 and its Metamorph example, TR7.4: a player who takes the Leader identity
    as the Leader loses becomes the Leader; the Leader team hasn't lost; the old
    Leader keeps its last-known team and shares the later win."""
    g = make_game(FIVE)
    leader = g.players[L_].identity
    g.set_identity_control(leader, A1)
    g.lose(L_)
    refresh(g)
    assert not g.is_over
    assert leader.controller == A1 and leader.face_up
    assert g.players[A1].role == Role.LEADER and g.players[A1].team == Team.LEADER
    assert g.is_leader_player(A1)
    assert g.players[L_].has_lost and g.players[L_].team == Team.LEADER
    assert not g.players[G_].has_lost        # Guardians don't lose: a Leader remains
    assert g.is_opponent(A1, G_)             # the Guardian is still face down (CR 907.7g)
    g.players[G_].identity.face_up = True
    assert not g.is_opponent(A1, G_) and not g.is_opponent(G_, A1)   # now teammates
    assert g.is_opponent(A1, A2)
    g.lose(A2)
    assert not g.is_over
    g.lose(T_)
    assert g.is_over and g.winners == {L_, G_, A1}


def test_taken_non_leader_identity_is_turned_face_down():
    """TR8: a non-Leader identity that changes hands is turned face down; its new
    controller's role and team change at once, and it can unveil it again (its
    trigger then works for the new controller)."""
    g = make_game(FIVE, lands=2)
    unveil_action(g, T_, 0)
    resolve_stack(g)
    gren, seer = g.players[T_].identity, g.players[A1].identity
    assert gren.face_up and g.players[T_].tokens["Explosive"] == 3
    g.set_identity_control(gren, A1)
    g.set_identity_control(seer, T_)
    refresh(g)
    assert not gren.face_up and not seer.face_up
    assert gren.controller == A1 and seer.controller == T_
    assert A1 in gren.known_by and T_ in seer.known_by
    assert g.players[A1].role == Role.TRAITOR and g.players[T_].role == Role.ASSASSIN
    assert g.players[A1].team == Team.TRAITOR and g.players[T_].team == Team.ASSASSIN
    unveil_action(g, A1, 1)
    resolve_stack(g)
    assert gren.face_up and g.players[A1].tokens["Explosive"] == 4
    assert g.players[T_].tokens["Explosive"] == 3


# ----------------------------------------------------------------------------- face down again (TR)
def test_gatekeeper_turns_face_down_and_unveiling_again_retriggers():
    """TR: turning face down again: The Gatekeeper's {2} turns it face down; it can
    be unveiled again by paying its cost and its "when unveiled" triggers again;
    players who saw it still know it (``known_by``)."""
    g = make_game(["The Void Tyrant", "The Bodyguard", "The Seer", "The Demon", "The Gatekeeper"], lands=1)
    g.players[T_].lands = 9
    refresh(g)
    unveil_action(g, T_, 0)
    resolve_stack(g)
    gk = g.players[T_].identity
    assert gk.face_up and [c.name for c in g.players[T_].creatures] == ["Cerberus"]
    give_priority(g, T_)
    g.step(g.layout.IDENTITY_AB + 0)
    resolve_stack(g)
    assert not gk.face_up and gk.known_by == set(range(5))
    assert events(g, "face_down")[-1]["seat"] == T_
    assert g.is_opponent(L_, T_)
    give_priority(g, T_)
    assert g.layout.UNVEIL in g.legal_actions()
    g.step(g.layout.UNVEIL)
    resolve_stack(g)
    assert gk.face_up
    assert len([e for e in events(g, "unveil") if e["seat"] == T_]) == 2
    assert len([e for e in events(g, "tokens") if e["name"] == "Cerberus"]) == 2
    assert g.players[T_].lands_tapped == 8


def test_turn_face_down_then_unveil_again_uses_the_new_x():
    """TR: turning face down again, CR 702.187e: each unveil triggers again with
    the X paid that time (The Grenadier: X+3 Explosive tokens each time)."""
    g = make_game(FIVE, lands=1)
    g.players[T_].lands = 4
    refresh(g)
    unveil_action(g, T_, 1)
    resolve_stack(g)
    assert g.players[T_].tokens["Explosive"] == 4
    g.turn_face_down(T_)
    assert not g.players[T_].face_up
    refresh(g)
    unveil_action(g, T_, 2)
    resolve_stack(g)
    assert g.players[T_].identity.x == 2 and g.players[T_].tokens["Explosive"] == 9


# ----------------------------------------------------------------------------- APNAP (CR 603.3b)
def test_simultaneous_triggers_go_on_the_stack_in_apnap_order():
    """CR 603.3b, TR: the active player puts their triggers on the stack first,
    then each other player in turn order; the last one put there resolves first."""
    deal = ["The Bodyguard", "The Seer", "The Grenadier", "The Queen of Light", "The Demon"]
    g = make_game(deal)
    assert g.active == 3
    for s in (4, 1, 3):                   # created in a non-APNAP order
        add_creature(g, s, "Healer Acolyte")
    refresh(g)
    assert [it.controller for it in g.stack] == [3, 4, 1]
    assert all(it.key == "etb" for it in g.stack)
    resolve_stack(g)
    order = [e["seat"] for e in events(g, "resolve") if e["source"] == "Healer Acolyte"]
    assert order == [1, 4, 3]
    assert g.players[1].life == 44 and g.players[3].life == 44 and g.players[4].life == 44


# ----------------------------------------------------------------------------- game end (CR 907.9)
def test_game_end_reveals_every_identity():
    """CR 702.187g / 907.9: at the end of the game every face-down identity is
    revealed to all players; nothing is legal any more."""
    g = make_game(FIVE)
    g.lose(L_)
    assert g.is_over and g.winners == {A1, A2}
    for p in g.players:
        assert p.identity.known_by == set(range(5))
    reveal = events(g, "reveal_all")[-1]
    assert reveal["identities"] == FIVE and reveal["to"] is None
    assert g.decision is None and not g.legal_action_mask().any() and g.legal_actions() == []
    with pytest.raises(ValueError, match="over"):
        g.step(PASS)


def test_winners_follow_last_known_team_of_eliminated_players():
    """TR7.4: the last-known team of an eliminated player decides whether it shares
    the win; an eliminated Traitor never shares another player's win."""
    g = make_game(FIVE)
    g.lose(T_)
    g.lose(A1)
    refresh(g)
    g.lose(L_)
    assert g.winners == {A1, A2}
    assert [g.players[s].won for s in range(5)] == [False, False, True, True, False]
    assert g.players[T_].team == Team.TRAITOR and g.players[A1].team == Team.ASSASSIN


def test_truncation_at_max_turns():
    """DESIGN section 4 (max_turns): the game is truncated after config.max_turns
    turns with no winner, and identities are revealed."""
    g = make_game(FIVE, max_turns=3)
    pass_priority_until(g, lambda g: g.is_over)
    assert g.truncated and g.winners == set() and g.turn == 3
    assert not any(p.has_lost for p in g.players)
    assert [e["seat"] for e in events(g, "turn")] == [0, 1, 2]
    assert all(p.identity.known_by == set(range(5)) for p in g.players)
    assert g.decision is None


# ----------------------------------------------------------------------------- configuration and API errors
@pytest.mark.parametrize("kwargs, field", [
    (dict(num_players=3), "num_players"),
    (dict(num_players=13), "num_players"),
    (dict(num_players=5, identities=["The Void Tyrant", "The Bodyguard", "The Seer", "The Demon",
                                     "The Nobody"]), "identities"),
    (dict(num_players=5, identities=["The Void Tyrant", "The Old Ruler", "The Seer", "The Demon",
                                     "The Grenadier"]), "identities"),
    (dict(num_players=5, identities=["The Void Tyrant", "The Bodyguard", "The Seer", "The Demon"]),
     "identities"),
    (dict(num_players=5, identities=["The Void Tyrant", "The Seer", "The Seer", "The Demon",
                                     "The Grenadier"]), "identities"),
    (dict(num_players=5, identities="The Void Tyrant"), "identities"),
    (dict(num_players=5, decks=["aggro"] * 4), "decks"),
    (dict(num_players=5, decks=["aggro"] * 4 + ["nope"]), "decks"),
    (dict(max_turns=0), "max_turns"),
    (dict(max_turns=-3), "max_turns"),
    (dict(max_turns="10"), "max_turns"),
    (dict(max_turns=True), "max_turns"),
    (dict(max_turns=10001), "max_turns"),
])
def test_config_validation_names_the_field(kwargs, field):
    """DESIGN section 3: invalid GameConfig values raise ValueError naming the field
    (CR 907.2 four players; CR 907.3b the distribution; one deck per seat)."""
    with pytest.raises(ValueError, match=field):
        GameConfig(**kwargs)


def test_config_deal_breaking_distribution_message():
    """CR 907.3b: a fixed deal must be a legal identity deck; the message says what is wrong."""
    with pytest.raises(ValueError) as e:
        GameConfig(num_players=4, identities=["The Void Tyrant", "The Bodyguard", "The Seer", "The Grenadier"])
    assert str(e.value).startswith("GameConfig.identities: CR 907.3b: an identity deck for 4 players needs exactly "
                                   "2 Assassins, got 1")


def test_illegal_action_names_the_action_and_the_legal_ones():
    """DESIGN section 3: Game.step rejects an illegal action with a ValueError that
    names the action and lists the legal ones."""
    g = make_game(FIVE)
    before = list(g.actions)
    bad = g.layout.UNVEIL + 3
    assert bad not in g.legal_actions()
    with pytest.raises(ValueError) as e:
        g.step(bad)
    msg = str(e.value)
    assert f"illegal action {bad}" in msg and "legal:" in msg and "0:" in msg
    with pytest.raises(ValueError, match="outside"):
        g.step(g.layout.size + 5)
    with pytest.raises(ValueError, match="int"):
        g.step("pass")
    for bad_type in ("0", 0.0, 1.5, True, np.float64(0.0), np.array(0.0)):
        with pytest.raises(ValueError, match="action must be an int"):
            g.step(bad_type)
    assert g.actions == before and g.current_player == L_      # nothing was applied


@pytest.mark.parametrize("seed", [-1, -7, True, 1.0, "3", None])
def test_a_seed_that_is_not_an_int_from_0_is_refused_in_one_line(seed):
    """A negative seed was taken, and gave the game of its absolute value (random.Random
    seeds with abs()), where the environment's reset refuses it: the engine refuses it too."""
    with pytest.raises(ValueError, match=rf"^seed must be an int >= 0, got {re.escape(repr(seed))}$"):
        Game(GameConfig(), seed=seed)
    assert Game(GameConfig(), seed=np.int64(3)).seed == 3 and Game(GameConfig(), seed=2**40).seed == 2**40


def test_an_unknown_config_override_is_one_line_without_a_config_too():
    """``Game(foo=1)`` was a TypeError from GameConfig.__init__; with a config it was a ValueError."""
    for config in (None, GameConfig()):
        with pytest.raises(ValueError, match=r"^unknown GameConfig fields \['foo'\]; allowed: "):
            Game(config, foo=1)
    assert Game(num_players=6).n == 6
    with pytest.raises(ValueError, match=r"^config must be a GameConfig, got dict$"):     # was an AttributeError
        Game({"num_players": 5}, talk="none")




SEAT_METHODS = {
    "can_unveil": lambda g, s: g.can_unveil(s),
    "unveil": lambda g, s: g.unveil(s),
    "observation": lambda g, s: g.observation(s),
    "view": lambda g, s: g.view(s),
    "render_text": lambda g, s: g.render_text(s),
    "describe_action": lambda g, s: g.describe_action(0, s),
    "lose": lambda g, s: g.lose(s),
    "win": lambda g, s: g.win(s),
    "concede (CR 104.3a)": lambda g, s: g.concede(s),
    "to_bottom": lambda g, s: g.to_bottom(s),
    "unveil_cost_mana": lambda g, s: g.unveil_cost_mana(s),
    "deal_damage": lambda g, s: g.deal_damage(s, 1),
}


@pytest.mark.parametrize("method", list(SEAT_METHODS))
@pytest.mark.parametrize("seat", [5, 9, -1, True, 1.0, "1"])
def test_a_seat_outside_the_table_is_one_line_naming_the_method_the_seat_and_the_range(method, seat):
    """``can_unveil(9)`` at five players was an IndexError from inside; -1 (and True) was taken as
    seat 4 (seat 1); so were the other public methods that take a seat (``lose`` with a list too)."""
    g = make_game(FIVE)
    digest = g.digest()
    expected = rf"^{re.escape(method)}: seat must be an int from 0 to 4 \(a 5-player game\), got {re.escape(repr(seat))}$"
    with pytest.raises(ValueError, match=expected):
        SEAT_METHODS[method](g, seat)
    if method == "lose":
        with pytest.raises(ValueError, match=expected):
            g.lose([1, seat])
    assert g.digest() == digest and not any(p.has_lost for p in g.players)       # nothing happened


NUMBER_ARGS = {       # method, argument -> (a call with that value, the allowed values in words)
    ("can_unveil", "x"): (lambda g, v: g.can_unveil(A1, v, ignore_cost=True), "from 0 to 15"),
    ("unveil", "x"): (lambda g, v: g.unveil(A1, v), "from 0 to 15"),
    ("unveil_cost_mana", "x"): (lambda g, v: g.unveil_cost_mana(A1, v), "from 0 to 15"),
    ("unveil_cost_mana", "y"): (lambda g, v: g.unveil_cost_mana(A1, 0, v), "from 0 to 15"),
    ("deal_damage", "amount"): (lambda g, v: g.deal_damage(A1, v), ">= 0"),
}


@pytest.mark.parametrize("method, arg, value", [
    (method, arg, value) for method, arg in NUMBER_ARGS
    for value in [-1, 1.5, "a", None, True, np.float64(2.0)] + ([16, 10**9] if arg != "amount" else [])])
def test_a_number_argument_out_of_range_or_not_an_int_is_one_line_naming_the_method_and_the_range(method, arg, value):
    """``can_unveil(seat, x)`` was False for X = -1, 1.5 or 10**9 and a TypeError from inside for
    "a" or None; ``deal_damage`` healed for -1 and took 1.5.  Each number of a public method is
    checked in one place (Game._int_arg), as seats are."""
    g = make_game(FIVE, lands=3)
    give_priority(g, A1)          # The Seer: unveil {X}
    call, allowed = NUMBER_ARGS[(method, arg)]
    digest = g.digest()
    with pytest.raises(ValueError, match=rf"^{method}: {arg} must be an int {allowed}, got {re.escape(repr(value))}$"):
        call(g, value)
    assert g.digest() == digest and not any(p.has_lost for p in g.players)       # nothing happened


FLAG_AND_WORD_ARGS = {       # method, argument -> (a call with that value, the allowed values in words)
    ("can_unveil", "ignore_cost"): (lambda g, v: g.can_unveil(A1, ignore_cost=v), "True or False"),
    ("concede \\(CR 104.3a\\)", "by_action"): (lambda g, v: g.concede(A1, by_action=v), "True or False"),
    ("lose", "concede"): (lambda g, v: g.lose(A1, concede=v), "True or False"),
    ("lose", "reason"): (lambda g, v: g.lose(A1, reason=v), "one of 'rules', 'team', 'concede'"),
}


@pytest.mark.parametrize("method, arg, value", [
    (method, arg, value) for method, arg in FLAG_AND_WORD_ARGS
    for value in [1, 0, "yes", None, 1.0, np.int64(1)] + (["rule", True] if arg == "reason" else [])])
def test_a_flag_or_word_argument_of_another_kind_is_one_line_naming_the_method_and_the_values(method, arg, value):
    """``can_unveil(seat, ignore_cost="no")`` skipped the cost (any truthy value did), ``concede(seat,
    by_action=0)`` and ``lose(seat, reason="rule")`` took anything: each flag and word of a public
    method is checked in one place (Game._flag_arg, Game._word_arg), as its seats and numbers are."""
    g = make_game(FIVE, lands=3)
    give_priority(g, A1)
    call, allowed = FLAG_AND_WORD_ARGS[(method, arg)]
    digest = g.digest()
    with pytest.raises(ValueError, match=rf"^{method}: {arg} must be {allowed}, got {re.escape(repr(value))}$"):
        call(g, value)
    assert g.digest() == digest and not any(p.has_lost for p in g.players)       # nothing happened


def test_a_numpy_bool_flag_is_that_flag():
    g = make_game(FIVE)
    assert g.can_unveil(T_, ignore_cost=np.bool_(True)) == g.can_unveil(T_, ignore_cost=True)
    g.lose(T_, reason="rules", concede=np.bool_(False))
    assert g.players[T_].has_lost


LAYOUT_ARGS = {     # method, argument -> (a call of a 5-player layout with 2 Holdings with that value, the range)
    ("perm", "rel_seat"): (lambda L, v: L.perm(v, 0), "from 0 to 4"),
    ("perm", "slot"): (lambda L, v: L.perm(0, v), "from 0 to 19"),
    ("walker", "rel_seat"): (lambda L, v: L.walker(v, 0), "from 0 to 5"),
    ("walker", "slot"): (lambda L, v: L.walker(0, v), "from 0 to 3"),
    ("holding", "k"): (lambda L, v: L.holding(v), "from 0 to 1"),
    ("loyalty", "slot"): (lambda L, v: L.loyalty(v, 0), "from 0 to 3"),
    ("loyalty", "ability"): (lambda L, v: L.loyalty(0, v), "from 0 to 2"),
    ("talk accuse", "rel_seat"): (lambda L, v: L.talk("accuse", v, 0), "from 0 to 4"),
    ("talk accuse", "role"): (lambda L, v: L.talk("accuse", 0, v), "from 0 to 3"),
    ("decode", "action"): (lambda L, v: L.decode(v), f"from 0 to {ActionLayout(5, holdings=2).size - 1}"),
}


@pytest.mark.parametrize("method, arg, value", [
    (method, arg, value) for method, arg in LAYOUT_ARGS for value in [-1, 99999, 1.0, True, "1", None]])
def test_an_action_layout_argument_out_of_range_or_not_an_int_is_one_line_naming_the_method_and_the_range(
        method, arg, value):
    """``ActionLayout.perm`` checked nothing (``perm(0, 25)`` named a creature of the next seat, or
    a STACK index), and ``walker``, ``holding``, ``loyalty`` and ``talk`` each checked ranges in
    their own way and took floats and bools: one check (ActionLayout._arg), as Game's arguments'."""
    L = ActionLayout(5, holdings=2)
    call, allowed = LAYOUT_ARGS[(method, arg)]
    with pytest.raises(ValueError, match=rf"^{method}: {arg} must be an int {allowed}, got {re.escape(repr(value))}$"):
        call(L, value)


def test_an_action_layout_takes_numpy_integers_and_names_a_missing_block_or_talk():
    L = ActionLayout(5, holdings=2)
    assert L.perm(np.int64(1), np.int32(3)) == L.perm(1, 3) == L.PERM + 23 and type(L.perm(np.int8(1), 3)) is int
    assert L.talk("claim", role=np.int64(2)) == L.talk("claim", 0, 2) and L.decode(np.int64(L.PASS)) == ("PASS", 0, 0)
    with pytest.raises(ValueError, match=r"^holding: the game has no Holdings, got 0$"):
        ActionLayout(5).holding(0)
    with pytest.raises(ValueError, match=r"^talk: unknown talk action \['claim'\]; allowed: "):
        L.talk(["claim"])
    with pytest.raises(ValueError, match=r"^talk_decode: action \(a talk action\) must be an int from "):
        L.talk_decode(L.TALK + 0.5)


def test_a_numpy_integer_number_argument_is_that_number():
    g = make_game(FIVE, lands=3)
    give_priority(g, A1)
    assert g.can_unveil(A1, np.int64(3)) and not g.can_unveil(A1, np.int32(4))
    assert g.unveil_cost_mana(A1, np.int8(3), np.int64(0)) == 3
    assert g.deal_damage(np.int64(A1), np.int32(2)) == 2 and g.players[A1].life == 38
    g.unveil(A1, np.int64(3))
    assert g.players[A1].face_up and g.players[A1].identity.x == 3 and type(g.players[A1].identity.x) is int


def test_a_numpy_integer_seat_is_that_seat():
    g = make_game(FIVE)
    assert g.can_unveil(np.int64(T_), ignore_cost=True) and g.render_text(np.int32(1)) == g.render_text(1)
    assert np.array_equal(g.observation(np.int64(2))["observation"], g.observation(2)["observation"])


def test_replay_round_trip_and_determinism():
    """DESIGN section 4: same seed + same actions gives the same game; to_json /
    from_json round-trips it."""
    a = random_game(7, 250)
    b = random_game(7, 250)
    assert a.to_json() == b.to_json()
    assert len(a.actions) > 50
    c = Game.from_json(a.to_json())
    assert c.to_json() == a.to_json() and c.digest() == a.digest()
    assert c.log == a.log
    # replaying the same actions by hand gives the same state too
    d = Game(a.config, seed=7)
    for act in a.actions:
        d.step(act)
    assert d.digest() == a.digest()
    assert random_game(8, 250).to_json() != a.to_json()


def test_from_json_rejects_malformed_replays():
    """DESIGN section 3: Game.from_json rejects what is not a valid replay."""
    good = json.loads(random_game(3, 40).to_json())
    bad_inputs = [
        "{not json",
        "[1, 2]",
        json.dumps({**good, "format": "chess"}),
        json.dumps({**good, "version": 99}),
        json.dumps({k: v for k, v in good.items() if k != "actions"}),
        json.dumps({**good, "seed": True}),
        json.dumps({**good, "seed": "3"}),
        json.dumps({**good, "seed": -3}),
        json.dumps({**good, "actions": good["actions"][:5] + ["x"]}),
        json.dumps({**good, "config": {**good["config"], "num_players": 2}}),
        json.dumps({**good, "config": {**good["config"], "colour": "red"}}),
        None,
    ]
    for text in bad_inputs:
        with pytest.raises(ValueError):
            Game.from_json(text)
    with pytest.raises(ValueError, match=r"^replay field 'seed' must be an int >= 0 \(Game's seed\), got -3$"):
        Game.from_json(json.dumps({**good, "seed": -3}))
    # nested past the JSON reader's recursion limit: was a RecursionError (issue #14)
    with pytest.raises(ValueError, match="nested too deeply"):
        Game.from_json("[" * 100_000 + "]" * 100_000)


def test_from_json_rejects_tampered_replays():
    """DESIGN section 3: a replay whose digest doesn't match, or whose actions
    are illegal when replayed, is rejected."""
    good = json.loads(random_game(3, 60).to_json())
    assert Game.from_json(json.dumps(good)).digest() == good["digest"]
    flipped = good["digest"][:-1] + ("0" if good["digest"][-1] != "0" else "1")
    with pytest.raises(ValueError, match="digest"):
        Game.from_json(json.dumps({**good, "digest": flipped}))
    with pytest.raises(ValueError, match="digest"):
        Game.from_json(json.dumps({**good, "actions": good["actions"][:-1]}))
    with pytest.raises(ValueError, match="illegal"):
        Game.from_json(json.dumps({**good, "actions": good["actions"] + [10 ** 6]}))


def test_from_json_stops_after_the_first_actions():
    """``Game.from_json(text, stop=k)``: the game after its first k actions (a replay viewer's step k),
    the same state as playing them by hand; no digest check then; a stop out of range is refused."""
    a = random_game(4, 80)
    text = a.to_json()
    by_hand = Game(a.config, seed=4)
    for k in (0, 1, 17, len(a.actions)):
        while len(by_hand.actions) < k:
            by_hand.step(a.actions[len(by_hand.actions)])
        g = Game.from_json(text, stop=k)
        assert g.digest() == by_hand.digest() and g.actions == a.actions[:k]
    assert Game.from_json(text, stop=len(a.actions)).digest() == a.digest()
    for bad in (-1, len(a.actions) + 1, True, 2.0):
        with pytest.raises(ValueError, match="stop must be an int from 0 to"):
            Game.from_json(text, stop=bad)


def test_clone_is_independent_and_continues_identically():
    """DESIGN section 3: Game.clone() copies the whole state, the random stream
    included: the same actions on the clone give the same game, and playing the
    clone leaves the original untouched."""
    a = random_game(11, 120)
    before = a.digest()
    b = a.clone()
    assert b.digest() == before
    rng = random.Random(5)
    acts = []
    while not b.is_over and len(acts) < 300:
        acts.append(rng.choice(b.legal_actions()))
        b.step(acts[-1])
    assert a.digest() == before                 # untouched
    for x in acts:
        a.step(x)
    assert a.digest() == b.digest() and a.log == b.log


def test_public_history_of_harm_and_attacks():
    """The observation's public history (what every player saw): damage dealt and
    life loss caused by each seat to each seat, and attacks declared; the same in
    every seat's view, relative in the vector."""
    from treachery_env.observation import encode, obs_layout
    from treachery_env.view import seat_view
    g = make_game(FIVE, lands=2)
    give_priority(g, A1)
    g.step(g.layout.HAND + 0)                             # Shock ...
    g.step(g.layout.PLAYER + g.rel(A1, T_))               # ... the Traitor's seat
    resolve_stack_all(g)
    assert g.harm[A1][T_] == 2 and sum(map(sum, g.harm)) == 2
    add_creature(g, L_, "Grove Bear")
    attack(g, L_, A2)
    assert g.attacks[L_][A2] == 1
    for viewer in range(5):
        v = seat_view(g, viewer)
        assert v.harm[A1][T_] == 2 and v.attacks[L_][A2] == 1
        o = encode(g, viewer)
        L = obs_layout(5)
        ri, rj = g.rel(viewer, A1), g.rel(viewer, T_)
        assert o[L.history + ri * 5 + rj] == pytest.approx(2 / 40)
        assert o[L.history + 25 + g.rel(viewer, L_) * 5 + g.rel(viewer, A2)] == pytest.approx(1 / 10)


def resolve_stack_all(g):
    while g.stack:
        g.step(PASS)


def test_each_opponent_hits_a_hidden_guardian_but_not_an_unveiled_one():
    """TR3.11 worked example: a hidden Guardian is hit by the Leader's "each
    opponent loses 2 life"; once that Guardian is unveiled, the same effect
    skips them (CR 907.7g)."""
    g = make_game(FIVE, lands=6, hand=("Sanguine Tithe", "Sanguine Tithe"))
    assert g.current_player == L_
    g.step(g.layout.HAND + 0)
    resolve_stack_all(g)
    assert [g.players[s].life for s in range(5)] == [40, 38, 38, 38, 38]
    g.players[G_].identity.face_up = True            # the Guardian is now unveiled
    g.players[G_].identity.known_by = set(range(5))
    refresh(g)
    assert g.current_player == L_
    g.step(g.layout.HAND + 0)
    resolve_stack_all(g)
    assert [g.players[s].life for s in range(5)] == [40, 38, 36, 36, 36]


# ----------------------------------------------------------------------------- the rules' remaining checkable statements
# Seven players (CR 907.3c): seat 0 Leader, 1-2 Guardians, 3-5 Assassins, 6 Traitor.
SEVEN = ["The Void Tyrant", "The Oracle", "The Bodyguard", "The Seer", "The Demon", "The Beastmaster",
         "The Grenadier"]
# Eight players (CR 907.3c): seat 0 Leader, 1-2 Guardians, 3-5 Assassins, 6-7 Traitors.
EIGHT = ["The Queen of Light", "The Bodyguard", "The Cathar", "The Seer", "The Demon", "The Sorceress",
         "The Grenadier", "The Gatekeeper"]


@pytest.mark.parametrize("commander, life", [(True, 40), (False, 20)])
def test_the_leader_starts_with_the_same_life_and_hand_as_everyone(commander, life):
    """CR 907.5, TR2.5, FAQ "What starting life total do we use?": every player,
    the Leader included, starts at 20 life (40 with Commander) and seven cards;
    only an ability changes that (The Old Ruler: test_identities)."""
    g = Game(GameConfig(num_players=5, identities=FIVE, commander=commander, mulligans="none"), seed=3)
    assert g.active == L_ and g.turn == 1
    assert [p.life for p in g.players] == [life] * 5
    assert [len(p.hand) for p in g.players] == [7] * 5     # no draw has happened yet (upkeep)
    assert [p.max_hand_size for p in g.players] == [7] * 5


def test_turns_pass_around_the_table_from_the_leader():
    """CR 907.6, TR2.6, TR10.2, FAQ "Who goes first?": the Leader takes the first
    turn wherever it sits, then turns pass in seat order, wrapping around."""
    deal = ["The Bodyguard", "The Seer", "The Grenadier", "The Queen of Light", "The Demon"]
    g = make_game(deal)
    pass_priority_until(g, lambda g: g.turn == 7)
    assert [e["seat"] for e in events(g, "turn")] == [3, 4, 0, 1, 2, 3, 4]


def test_the_guardians_fall_with_the_last_leader_and_take_their_permanents_with_them():
    """TR7.5, TR6.3, CR 907.7c, FAQ "If the Leader dies, do the Guardians still
    win?": when the last Leader leaves, every Guardian loses at once, whatever its
    life, and leaves with its permanents; their face-down identities are
    revealed (CR 907.9); the two Traitors play on."""
    g = make_game(EIGHT)
    for s in (1, 2):
        add_creature(g, s, "Grove Bear")
    for s in (3, 4, 5):
        g.lose(s)
    refresh(g)
    assert not g.is_over and all(len(g.players[s].creatures) == 1 for s in (1, 2))
    g.lose(0)
    assert not g.is_over
    for s in (1, 2):
        p = g.players[s]
        assert p.has_lost and p.life == 40 and p.creatures == []
        assert p.face_up and p.identity.known_by == set(range(8))
    assert [e["reason"] for e in events(g, "loses") if e["seat"] in (1, 2)] == ["team", "team"]
    assert not any(c.owner in (1, 2) for p in g.players for c in p.creatures)
    assert [s for s in range(8) if not g.players[s].has_lost] == [6, 7]


def test_a_hidden_undercover_guardian_is_still_revealed_when_it_loses():
    """TR5 (Undercover limits only the unveil action), CR 702.187a/g, TR7.7: a
    face-down Guardian whose Undercover condition was never met is turned face up
    as it loses, and that revealed non-Leader identity meets Undercover for the
    other Guardian."""
    g = make_game(SEVEN, lands=5)
    assert not g.undercover_met(1) and not g.undercover_met(2)
    g.lose(2)
    refresh(g)
    bodyguard = g.players[2].identity
    assert bodyguard.face_up and bodyguard.known_by == set(range(7))
    assert not events(g, "unveil")
    assert g.undercover_met(1)
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)                       # The Oracle: {2}
    assert g.players[1].face_up


def test_undercover_stays_met_after_the_attacking_player_has_left():
    """TR5 (once met, it stays met for the rest of the game): the attack on the
    Leader counts even after its attacker has left the game."""
    g = make_game(FIVE, lands=5)
    add_creature(g, A1, "Grove Bear")
    refresh(g)
    attack(g, A1, L_)
    pass_priority_until(g, lambda g: g.phase == "main2")
    g.concede(A1)
    assert g.players[A1].has_lost and g.undercover_met(G_)
    give_priority(g, G_)
    assert g.layout.UNVEIL in g.legal_actions()


def test_a_guardian_identity_that_changes_hands_follows_undercover_for_its_new_controller():
    """TR8.4 with TR5: a moved non-Leader identity turns face down and its new
    controller may unveil it only under its Undercover restriction, read for the
    new controller: its own attack on the Leader doesn't count, nor does the
    card's own earlier unveil (it isn't "another" identity); another player's
    attack then does."""
    g = make_game(FIVE, lands=5)
    add_creature(g, A1, "Grove Bear")
    refresh(g)
    attack(g, A1, L_)                              # A1 attacks the Leader: Undercover met for the Guardian
    pass_priority_until(g, lambda g: g.phase == "main2")
    unveil_action(g, G_, 0)                        # The Bodyguard
    g.step(g.layout.PLAYER + g.rel(G_, L_))
    resolve_stack(g)
    bodyguard, seer = g.players[G_].identity, g.players[A1].identity
    assert bodyguard.face_up
    g.set_identity_control(bodyguard, A1)
    g.set_identity_control(seer, G_)
    refresh(g)
    assert not bodyguard.face_up and g.players[A1].role == Role.GUARDIAN
    assert not g.undercover_met(A1) and not g.can_unveil(A1, ignore_cost=True)
    add_creature(g, A2, "Grove Bear")
    refresh(g)
    attack(g, A2, L_)
    assert g.undercover_met(A1) and g.can_unveil(A1, ignore_cost=True)


def test_face_up_traitors_still_oppose_everyone_other_traitors_included():
    """CR 907.7f: a Traitor considers every other player an opponent, another
    Traitor too, even once both are face up; so they may attack each other and
    the Leader."""
    g = make_game(EIGHT)
    for s in (6, 7):
        g.players[s].identity.face_up = True
    assert g.is_opponent(6, 7) and g.is_opponent(7, 6)
    assert g.is_opponent(6, 0) and g.is_opponent(0, 6)
    assert g.can_attack(6, 7) and g.can_attack(7, 0)


def test_an_identity_without_an_unveil_cost_can_never_be_unveiled():
    """CR 702.187c (last sentence), TR3.1: an identity that wouldn't have an
    unveil cost face up (a Leader) can't be turned face up by the unveil special
    action, even were it face down."""
    g = make_game(FIVE, lands=5)
    g.players[L_].identity.face_up = False         # hypothetically face down
    refresh(g)
    assert g.current_player == L_
    assert not g.can_unveil(L_, ignore_cost=True) and not g.can_unveil(L_)
    assert not any(g.layout.UNVEIL <= a < g.layout.UNVEIL + 16 for a in g.legal_actions())
    with pytest.raises(ValueError, match="cannot unveil"):
        g.unveil(L_)


def test_a_reveal_on_losing_sets_x_to_zero_after_an_earlier_unveil():
    """TR4.5, TR4.6, CR 702.187e: X is 0 when an identity turns face up other than
    by unveiling, even after it was unveiled with a larger X and turned face down
    again; no "when unveiled" trigger."""
    g = make_game(FIVE, lands=1)
    g.players[T_].lands = 3
    refresh(g)
    unveil_action(g, T_, 2)
    resolve_stack(g)
    gren = g.players[T_]
    assert gren.identity.x == 2 and gren.tokens["Explosive"] == 5
    g.turn_face_down(T_)
    refresh(g)
    g.lose(T_)
    refresh(g)
    assert gren.identity.face_up and gren.identity.x == 0
    assert len(events(g, "unveil")) == 1 and not g.stack and not g.pending_triggers
    assert len([e for e in events(g, "tokens") if e.get("name") == "Explosive"]) == 1


def test_the_leader_and_the_last_assassin_losing_together_with_no_traitor_left_is_a_draw():
    """CR 907.7c-e, TR6.9, CR 104.4a: the Leader and the last Assassin lose at
    once: the Assassins can't win (all have lost), the Guardian loses with the
    Leader, and with nobody left nobody wins."""
    g = make_game(FIVE)
    g.lose(T_)
    g.lose(A1)
    refresh(g)
    g.lose([L_, A2])
    assert g.is_over and g.winners == set()
    assert g.players[G_].has_lost and not any(p.won for p in g.players)
    assert [e["reason"] for e in events(g, "loses") if e["seat"] == G_] == ["team"]


def test_the_oracle_protects_leader_players_only():
    """TR3.9 and its worked example (CR 314.7): The Oracle gives protection to
    "Leader players"; a face-down Guardian is not a Guardian player nor a Leader
    player and is not affected, nor is the Oracle's own (face-up Guardian)
    controller."""
    g = make_game(SEVEN, lands=2)
    unveil_action(g, 6, 0)                         # The Grenadier: meets Undercover
    resolve_stack(g)
    unveil_action(g, 1, 0)                         # The Oracle
    resolve_stack(g)
    assert g.players[1].face_up and not g.players[2].face_up
    assert g.damage(3, ("p", 0), 3) == 0 and g.players[0].life == 40
    assert g.damage(3, ("p", 2), 3) == 3 and g.players[2].life == 37
    assert g.damage(3, ("p", 1), 3) == 3 and g.players[1].life == 37
    assert ("p", 2) in g.target_candidates(3, {"type": "player"})
    assert ("p", 0) not in g.target_candidates(3, {"type": "player"})


def test_unveiling_in_response_to_a_spell():
    """CR 115.2tr, 702.187c, FAQ "Unveiling": a player may unveil whenever they
    have priority, with a spell on the stack on another player's turn; the
    "when unveiled" trigger goes on the stack above that spell and resolves
    first."""
    g = make_game(FIVE, lands=1)
    give_priority(g, A1)
    g.step(g.layout.HAND + 0)                      # Shock ...
    g.step(g.layout.PLAYER + g.rel(A1, T_))        # ... at the Traitor
    assert [it.source for it in g.stack] == ["Shock"] and g.active == L_
    give_priority(g, T_)
    g.step(g.layout.UNVEIL + 1)                    # The Grenadier, X = 1
    assert g.players[T_].face_up and [it.source for it in g.stack] == ["Shock", "The Grenadier"]
    pass_priority_until(g, lambda g: len(g.stack) == 1)
    assert g.players[T_].tokens["Explosive"] == 4 and g.players[T_].life == 40
    resolve_stack(g)
    assert g.players[T_].life == 38


def test_every_guardian_and_no_other_identity_is_undercover():
    """TR5.1: Undercover is an ability word on Guardians; in the Treachery.app set
    every Guardian has it (7 uncommon, 7 rare, 4 mythic)."""
    from treachery_env.identities import all_identities
    guardians = [i for i in all_identities() if i.role == Role.GUARDIAN]
    assert sorted(i.rarity for i in guardians).count("uncommon") == 7 and len(guardians) == 18
    assert all(i.undercover == (i.role == Role.GUARDIAN) for i in all_identities())


def test_a_face_down_copy_of_an_undercover_guardian_is_undercover():
    """CR 314.11, 702.187f, TR8.8-8.9: a face-down identity that becomes a copy of an
    Undercover Guardian has the copied unveil ability with its Undercover
    restriction once it would be face up, so it can't be unveiled before the
    condition is met; its own role (kept by the copy effect) stays."""
    g = make_game(FIVE, lands=4)
    g.copy_identity(T_, "The Bodyguard", keep_role=True)
    idc = g.players[T_].identity
    assert idc.undercover and idc.unveil_cost.mana == 4 and idc.role == Role.TRAITOR
    assert not g.can_unveil(T_, ignore_cost=True)
    give_priority(g, T_)
    assert g.layout.UNVEIL not in g.legal_actions()
    g.lose(A1)                                     # a revealed non-Leader identity
    refresh(g)
    assert g.undercover_met(T_)
    give_priority(g, T_)
    g.step(g.layout.UNVEIL)
    assert idc.face_up and g.players[T_].lands_tapped == 4
    assert g.decision.kind == DecisionKind.TARGET       # the copied "when unveiled" trigger's target
    g.step(g.layout.PLAYER + g.rel(T_, T_))
    assert g.stack[-1].source == "The Bodyguard" and g.stack[-1].controller == T_


def test_every_identity_but_the_leaders_has_an_unveil_cost():
    """TR3.1, CR 702.187b: every role but Leader has an unveil cost, so every
    Leader and no other identity starts face up."""
    from treachery_env.identities import all_identities
    assert all((i.unveil_cost is None) == (i.role == Role.LEADER) for i in all_identities())
    assert sum(i.role == Role.LEADER for i in all_identities()) >= 5


def test_decks_are_chosen_before_the_identities_are_dealt():
    """CR 907.2a, TR2.1: the decks are fixed before the identity deck is dealt, so
    no seat's deck depends on its identity: the same seed deals the same decks
    whatever identity deck is then built and dealt."""
    decks = set()
    for seed in range(4):
        a = Game(GameConfig(num_players=6, mulligans="none"), seed=seed)
        b = Game(GameConfig(num_players=6, mulligans="none",
                            role_counts={"leader": 1, "assassin": 3, "traitor": 2}), seed=seed)
        assert [p.deck for p in a.players] == [p.deck for p in b.players]
        assert sorted(p.identity.role for p in a.players) != sorted(p.identity.role for p in b.players)
        decks.add(tuple(p.deck for p in a.players))
    assert len(decks) > 1                       # the decks are drawn, not fixed
