"""Identity control changes, copies and turning face down as mechanisms (TR8,
CR 314.10-314.11); the cards that use them (The Puppet Master, The Metamorph,
The Wearer of Masks) come with issue #3."""

from __future__ import annotations

import pytest

from scenario import give_priority, make_game
from treachery_env.engine import DecisionKind
from treachery_env.view import seat_view
from treachery_env.rules import Role, Team

FIVE = ["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Grenadier"]
L_, G_, A1, A2, T_ = range(5)


def test_redistribution_moves_roles_teams_and_face_down_state():
    """TR8.2-8.4, 8.7: each player ends with exactly one identity, roles and teams
    follow the cards at once, moved non-Leaders turn face down, a moved Leader
    stays face up and its new controller is the Leader player."""
    g = make_game(FIVE)
    cards = {s: g.players[s].identity for s in range(5)}
    cards[A1].face_up = True                       # an unveiled Seer, moved: turns face down
    g.redistribute_identities({L_: cards[T_], T_: cards[A1], A1: cards[L_]})
    assert g.players[A1].identity is cards[L_] and g.is_leader_player(A1) and cards[L_].face_up
    assert g.players[T_].identity is cards[A1] and not cards[A1].face_up
    assert g.players[T_].role == Role.ASSASSIN and g.players[T_].team == Team.ASSASSIN
    assert g.players[L_].role == Role.TRAITOR and not g.is_leader_player(L_)
    assert T_ in cards[A1].known_by and L_ in cards[T_].known_by       # new controllers may look (CR 314.9)
    assert len({id(p.identity) for p in g.players}) == 5
    assert all(p.identity.controller == p.seat for p in g.players)
    # the win check reads the new roles: the new Leader falls while Assassins remain
    g.lose([A1])
    assert g.is_over and g.winners == {T_, A2}        # the Seer's new controller and The Demon


def test_redistribution_rejects_anything_but_a_permutation():
    g = make_game(FIVE)
    c = {s: g.players[s].identity for s in range(5)}
    with pytest.raises(ValueError, match="permutation"):
        g.redistribute_identities({L_: c[T_], T_: c[T_]})
    g.lose([G_])
    with pytest.raises(ValueError, match="not a player"):
        g.redistribute_identities({G_: c[A1], A1: c[G_]})


def test_take_identity_keeps_the_leader_team_alive():
    """TR8.5-8.6 (The Metamorph): taking the Leader identity as the Leader loses
    keeps the Leader team in the game; the old Leader keeps its last-known team
    and shares the later win; the taker's own identity leaves the game."""
    g = make_game(FIVE)
    grenadier = g.players[T_].identity
    g.take_identity(T_, L_)
    g.lose([L_])
    assert not g.is_over
    assert g.is_leader_player(T_) and g.players[T_].team == Team.LEADER
    assert not grenadier.in_game
    assert g.players[L_].team == Team.LEADER          # last-known team
    g.lose([A1, A2])                                  # every Assassin and Traitor gone
    assert g.is_over and g.winners == {L_, G_, T_}


def test_copy_of_an_identity_keeps_role_and_ends_face_down():
    """CR 314.11 / TR8.8-8.9: a face-down copy has no characteristics for others;
    its unveil cost and "when unveiled" ability are the copied card's; a copy
    that keeps its role stays a Traitor; turning it face down ends the copy."""
    g = make_game(FIVE, lands=3)
    g.copy_identity(T_, "The Seer", keep_role=True)
    idc = g.players[T_].identity
    assert idc.name == "The Seer" and idc.role == Role.TRAITOR and idc.unveil_cost.x == 1
    assert seat_view(g, A1).players[T_].identity is None          # still hidden from others
    assert seat_view(g, T_).players[T_].identity == "The Seer"
    give_priority(g, T_)
    g.unveil(T_, 2)                                   # The Seer's {X}, not The Grenadier's
    assert g.stack[-1].source == "The Seer" and g.stack[-1].x == 2
    assert g.players[T_].lands_tapped == 2
    assert seat_view(g, A1).players[T_].identity == "The Seer"
    assert g.players[T_].team == Team.TRAITOR
    # pass, keep scried cards on top, target anything, until the Seer has resolved (its scry
    # choices come after it left the stack) and priority is back
    while g.stack or g.decision.kind != DecisionKind.PRIORITY:
        d = g.decision
        g.step(0 if d.index_of(0) is not None else d.options[0][0])
    assert len(g.players[T_].hand) == 2               # Shock + the Seer's revealed card
    g.turn_face_down(T_)
    assert idc.name == "The Grenadier" and idc.copy_of is None and idc.role == Role.TRAITOR
