"""The four "special" Traitors of TRD-2025: The Metamorph, The Puppet Master,
The Treacherous Masochist and The Wearer of Masks (card facts:
data/identities.json; rulings: the official oracle).  Each test checks roles,
teams and the win checks after the effect (CR 907.7, TR6-TR8)."""

from __future__ import annotations

import random

import pytest
from identity_helpers import (
    at_main,
    deal5,
    give_priority,
    hand,
    resolve_all,
    unveil_actions,
)
from test_fuzz import check_invariants, check_result

from treachery_env import GameConfig
from treachery_env.engine import DecisionKind, Game
from treachery_env.identity_cards import traitors_special
from treachery_env.view import seat_view
from treachery_env.rules import Role, Team

L_, G_, A1, A2, T_ = range(5)          # seats of deal5: Leader, Guardian, Assassin, Assassin, Traitor


def _game(name: str, lands: int = 10) -> Game:
    g = at_main(deal5(T=name))
    g.players[T_].lands = lands
    hand(g, T_, "Shock", "Wastes")
    give_priority(g, T_)
    return g


def _answer(g: Game, yes: bool) -> None:
    assert g.decision.kind == DecisionKind.YES_NO and g.decision.seat == T_
    g.step(g.layout.CHOICE if yes else g.layout.PASS)


# ---------------------------------------------------------------------------- The Metamorph
def _metamorph(roles: set[Role]) -> Game:
    """The Metamorph (seat 4) unveiled and resolved, answering "yes" for ``roles``."""
    g = _game("The Metamorph")
    g.unveil(T_)
    g.step(g.layout.HAND + 0)                          # discard the Shock
    resolve_all(g)
    asked = []
    while g.decision is not None and g.decision.kind == DecisionKind.YES_NO:
        role = Role(g.decision.ctx[1]["ask"][g.decision.ctx[1]["k"]])
        asked.append(role)
        _answer(g, role in roles)
    assert asked == [Role.LEADER, Role.GUARDIAN, Role.ASSASSIN]   # one Traitor in the deck: not asked
    return g


def test_metamorph_unveil_cost_is_8_life_and_a_discard():
    """The Metamorph: Unveil - pay 8 life, discard a card (CR 702.187c, 119.4):
    not payable below 8 life or with an empty hand."""
    g = _game("The Metamorph")
    p = g.players[T_]
    p.life = 7
    give_priority(g, T_)
    assert unveil_actions(g) == []
    p.life, p.hand = 40, []
    give_priority(g, T_)
    assert unveil_actions(g) == []
    hand(g, T_, "Shock", "Wastes")
    give_priority(g, T_)
    assert unveil_actions(g) == [0]
    g.unveil(T_)
    assert g.decision.kind == DecisionKind.COST            # which card to discard
    g.step(g.layout.HAND + 0)
    assert p.life == 32 and [c.name for c in p.hand] == ["Wastes"] and [c.name for c in p.graveyard] == ["Shock"]
    assert p.identity.face_up and p.lands_tapped == 0


def test_metamorph_takes_the_leader_identity_and_the_game_goes_on():
    """TR8.6 example / card ruling: The Metamorph takes the Leader's identity as
    the Leader loses; its player is now the Leader, the Leader team is still in
    the game, the old Leader keeps its last-known team (TR7.4) and shares the
    later Leader-team win; the Metamorph leaves the game."""
    g = _metamorph({Role.LEADER})
    meta = g.players[T_].identity
    leader_card = g.players[L_].identity
    g.lose([L_])
    assert not g.is_over
    assert g.players[T_].identity is leader_card and leader_card.face_up and leader_card.controller == T_
    assert g.is_leader_player(T_) and g.players[T_].role == Role.LEADER and g.players[T_].team == Team.LEADER
    assert not meta.in_game
    assert g.players[L_].has_lost and g.players[L_].team == Team.LEADER
    assert not g.players[G_].has_lost                     # Guardians don't lose: a Leader is still in the game
    assert g.is_opponent(T_, G_)                          # the Guardian is still face down (TR3.11)
    check_invariants(g)
    g.lose([A1, A2])                                      # every Assassin and Traitor gone: the Leader team wins
    assert g.is_over and g.winners == {L_, G_, T_}
    check_result(g)


def test_metamorph_new_leader_losing_lets_the_assassins_win():
    """After taking the Leader identity, the Metamorph's player is the Leader:
    when they lose, the Guardians lose (TR6.3) and the Assassins win (CR 907.7d)."""
    g = _metamorph({Role.LEADER})
    g.lose([L_])
    g.lose([T_])
    assert g.is_over and g.winners == {A1, A2}
    assert g.players[G_].has_lost and g.players[T_].team == Team.LEADER
    check_result(g)


def test_metamorph_takes_an_assassin_identity_face_down_and_changes_team():
    """The Metamorph takes an Assassin's identity (turned face down, known to all
    since it was revealed as its owner lost); its player is now an Assassin and
    wins with the Assassins when the Leader falls, and so does the eliminated
    Assassin (last-known team)."""
    g = _metamorph({Role.ASSASSIN})
    demon = g.players[A1].identity
    g.lose([A1])
    assert g.players[T_].identity is demon and not demon.face_up
    assert demon.known_by == set(range(5))
    assert g.players[T_].role == Role.ASSASSIN and g.players[T_].team == Team.ASSASSIN
    assert g.players[A1].has_lost and g.players[A1].identity.face_up and g.players[A1].team == Team.ASSASSIN
    assert g.is_opponent(T_, A2)                          # face down again: everyone's opponent
    assert not g.is_over
    check_invariants(g)
    g.lose([L_])
    assert g.is_over and g.winners == {A1, A2, T_}
    check_result(g)


def test_metamorph_declined_role_and_end_of_turn():
    """A loss of a role answered "no" is not taken; the effect lasts until end of
    turn only (card text)."""
    g = _metamorph({Role.GUARDIAN})
    meta = g.players[T_].identity
    g.lose([A1])                                          # an Assassin: declined
    assert g.players[T_].identity is meta and meta.face_up
    g.turn += 1                                           # a later turn
    g.lose([G_])
    assert g.players[T_].identity is meta and g.players[T_].role == Role.TRAITOR
    g2 = _metamorph(set())
    g2.lose([L_])                                         # declined the Leader: the Assassins win
    assert g2.is_over and g2.winners == {A1, A2}


def test_metamorph_applies_to_a_concession():
    """Official ruling: it applies however the opponent loses, a concession included."""
    g = _metamorph({Role.GUARDIAN})
    body = g.players[G_].identity
    g.concede(G_)
    assert g.players[T_].identity is body and g.players[T_].team == Team.LEADER and not body.face_up


def test_metamorph_losing_at_the_same_time_keeps_the_taken_team():
    """If the Metamorph's player loses together with the Assassin whose identity
    it takes (CR 907.8a: its abilities still apply as it loses), it leaves with
    the Assassin team as last-known team (TR7.4) and wins with the Assassins."""
    g = _metamorph({Role.ASSASSIN})
    demon = g.players[A1].identity
    g.lose([A1, T_])
    assert g.players[T_].has_lost and g.players[T_].identity is demon
    assert g.players[T_].team == Team.ASSASSIN and g.players[T_].identity.face_up    # revealed as it left
    g.lose([L_])
    assert g.is_over and g.winners == {A1, A2, T_}


def test_metamorph_questions_use_public_roles_only():
    """The up-front choices follow the public role distribution (TR2.3): in
    Backstab Rumble (a Leader and Traitors) it asks about the Leader and the
    other Traitors only; each question is a YES_NO decision with words."""
    ids = ["The Old Ruler", "The Metamorph", "The Puppet Master", "The Wearer of Masks", "The Treacherous Masochist"]
    g = Game(GameConfig(num_players=5, identities=ids, variant="backstab_rumble"), seed=1)
    from treachery_env.identity_cards.traitors_special import _metamorph_questions
    assert _metamorph_questions(g, 1) == [Role.LEADER, Role.TRAITOR]
    g = _game("The Metamorph")
    g.unveil(T_)
    g.step(g.layout.HAND + 0)
    resolve_all(g)
    d = g.decision
    assert d.kind == DecisionKind.YES_NO and sorted(g.legal_actions()) == [g.layout.PASS, g.layout.CHOICE]
    assert "Leader" in g.describe_action(g.layout.CHOICE)


# ---------------------------------------------------------------------------- The Puppet Master
def _pm_unveiled(lands: int = 6) -> Game:
    g = _game("The Puppet Master", lands=lands)
    g.unveil(T_)
    return g


def _assign(g: Game, to: int, holder: int) -> None:
    d = g.decision
    assert d.kind == DecisionKind.CARD and d.seat == T_ and f"P{to} " in d.prompt, d.prompt
    g.step(g.layout.PLAYER + g.rel(T_, holder))


def _pm_redistributes(g: Game, moves) -> None:
    """Seat ``T_``'s The Puppet Master, given six lands and priority, unveils and hands out the
    cards: ``moves`` are ``(to, holder)`` pairs in the order asked (:func:`_assign`)."""
    g.players[T_].lands = 6
    give_priority(g, T_)
    g.unveil(T_)
    resolve_all(g)
    for to, holder in moves:
        _assign(g, to, holder)


def test_puppet_master_unveil_cost_is_6():
    """The Puppet Master: Unveil {6}."""
    g = _game("The Puppet Master", lands=5)
    assert unveil_actions(g) == []
    g = _pm_unveiled()
    assert g.players[T_].lands_tapped == 6 and g.players[T_].identity.face_up
    assert g.stack[-1].source == "The Puppet Master"


def test_puppet_master_peeks_as_it_turns_face_up_only_for_its_controller():
    """Static: its controller may look at face-down identities it doesn't
    control, from the moment it is face up (before the trigger resolves); only
    that seat learns them (hidden information stays per seat)."""
    g = at_main(deal5(T="The Puppet Master"))
    g.players[T_].lands = 6
    give_priority(g, T_)
    g.unveil(T_)
    for s in (G_, A1, A2):
        assert T_ in g.players[s].identity.known_by
        assert seat_view(g, T_).players[s].identity == g.players[s].identity.name
    assert seat_view(g, G_).players[A1].identity is None and seat_view(g, A1).players[G_].identity is None
    [look] = [e for e in g.log if e["event"] == "look_at_identities"]
    assert look["to"] == [T_]
    assert {s: seat_view(g, s).players[A2].identity for s in (G_, A1)} == {G_: None, A1: None}


def test_puppet_master_redistribution_roles_teams_and_win():
    """When unveiled: redistribute the other identity cards (The Puppet Master
    doesn't move), redistributed non-Leaders turn face down, players take the
    roles they now hold (TR8.2-8.4, 8.7).  An Assassin given the Leader card is
    the Leader player; the old Leader is now an Assassin; when the new Leader
    loses, the Assassins win -- the old Leader among them."""
    g = _pm_unveiled()
    cards = {s: g.players[s].identity for s in range(5)}
    cards[A2].face_up = True                          # The Beastmaster, unveiled earlier: not moved, stays up
    cards[G_].face_up = True                          # The Bodyguard, unveiled earlier: kept, stays face up
    cards[G_].known_by = set(range(5))
    resolve_all(g)
    _assign(g, L_, A1)        # the old Leader gets the Assassin card (The Demon)
    _assign(g, G_, G_)        # the Guardian keeps its card
    _assign(g, A1, L_)        # the Assassin gets the Leader card
    assert g.decision is None or g.decision.kind != DecisionKind.CARD   # A2 takes the last card (its own)
    assert g.players[T_].identity is cards[T_] and cards[T_].face_up
    assert g.players[A1].identity is cards[L_] and cards[L_].face_up and g.is_leader_player(A1)
    assert g.players[L_].identity is cards[A1] and not cards[A1].face_up
    assert g.players[L_].role == Role.ASSASSIN and g.players[L_].team == Team.ASSASSIN
    assert g.players[A1].team == Team.LEADER
    assert g.players[G_].identity is cards[G_] and cards[G_].face_up     # not redistributed: unchanged
    assert g.players[A2].identity is cards[A2] and cards[A2].face_up
    assert L_ in cards[A1].known_by and A1 in cards[L_].known_by
    assert [e for e in g.log if e["event"] == "puppet_master"][-1]["moved"] == [L_, A1]
    check_invariants(g)
    g.lose([A1])                                      # the new Leader falls: Guardians lose, Assassins win
    assert g.is_over and g.winners == {L_, A2}
    assert g.players[G_].has_lost
    check_result(g)


def test_puppet_master_moved_face_up_identity_turns_face_down_and_leader_team_wins():
    """A moved face-up non-Leader identity turns face down (its copy/abilities
    off; players who saw it remember it, TR4.8); the Leader team's win follows
    the new roles (TR6.6)."""
    g = _pm_unveiled()
    cards = {s: g.players[s].identity for s in range(5)}
    cards[G_].face_up = True
    cards[G_].known_by = set(range(5))
    resolve_all(g)
    _assign(g, L_, L_)        # the Leader keeps its card
    _assign(g, G_, A1)        # Guardian <-> Assassin (The Demon)
    _assign(g, A1, G_)
    assert g.decision is None or g.decision.kind != DecisionKind.CARD   # A2: the last card, no decision
    assert g.players[A1].identity is cards[G_] and not cards[G_].face_up and cards[G_].known_by == set(range(5))
    assert g.players[A1].team == Team.LEADER and g.players[G_].team == Team.ASSASSIN
    g.lose([G_, A2, T_])                              # every Assassin and Traitor gone
    assert g.is_over and g.winners == {L_, A1}
    check_result(g)


def test_puppet_master_player_leaving_during_the_choices():
    """Official ruling: a player who concedes during the resolution takes their
    card out with them; a card assigned to them goes to a player still without
    one, so everyone in the game still controls exactly one identity (TR8.3)."""
    g = _pm_unveiled()
    cards = {s: g.players[s].identity for s in range(5)}
    resolve_all(g)
    _assign(g, L_, G_)        # the Leader would get the Bodyguard
    _assign(g, G_, L_)        # the Guardian would get the Leader card
    g.players[G_].has_lost = True       # the Guardian leaves (as a concession would) mid-resolution
    g.n_alive -= 1
    g.players[G_].identity.face_up = True
    _assign(g, A1, A2)        # A1 <-> A2
    assert g.players[L_].identity is cards[L_] and g.is_leader_player(L_)       # its card came back to it
    assert g.players[A1].identity is cards[A2] and g.players[A2].identity is cards[A1]
    assert len({id(p.identity) for p in g.players}) == 5


def test_puppet_master_trigger_stolen_by_the_reflector_shows_no_face_down_identity():
    """Hidden information (CR 314.9): The Reflector's controller takes the
    Puppet Master's trigger and its copies and redistributes, but lacks the
    Puppet Master's static ability; the labels of its redistribution choices
    name only identities it may see (face up), never a face-down one."""
    g = at_main(["The Old Ruler", "The Reflector", "The Demon", "The Beastmaster", "The Puppet Master"])
    g.players[T_].lands = 6
    g.players[1].lands = 5
    hand(g, 1, "Shock")
    give_priority(g, T_)
    g.unveil(T_)
    assert g.stack[-1].source == "The Puppet Master"
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)                       # the only stack object: the Puppet Master's trigger
    hidden = {g.players[s].identity.name for s in (A1, A2)}
    asked = 0
    for _ in range(200):
        d = g.decision
        if d is None:
            break
        if d.kind == DecisionKind.CARD:
            assert d.seat == 1
            assert not any(name in label for label in d.labels for name in hidden), d.labels
            v = seat_view(g, 1)
            assert all(v.players[s].identity is None for s in (A1, A2) if not g.players[s].identity.face_up)
            asked += 1
        g.step(g.layout.PASS if g.layout.PASS in g.legal_actions() else d.options[0][0])
    assert asked > 0


def test_a_face_down_oneiromancer_shows_its_pile_to_no_one():
    """The Oneiromancer's "you may look at the cards exiled with it" is an
    ability of the face-up card (CR 314.4; a face-down identity has none, CR
    314.4b): once The Puppet Master moves the card, face down, to another
    player, its new holder doesn't see the face-down pile (view and
    observation), and neither does anyone else."""
    from treachery_env import cards
    from treachery_env.observation import encode, obs_layout
    g = at_main(["The Old Ruler", "The Oneiromancer", "The Demon", "The Beastmaster", "The Puppet Master"])
    for q in g.players:
        q.library = [cards.card("Wastes")] * 5 + [cards.card("Shock")]
    g.players[1].lands = 2
    hand(g, 1, "Shock")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL + 1)                       # X = 1: the top card of each library
    resolve_all(g)
    oneiro = g.players[1].identity
    assert len(oneiro.data["dream"]) == 5 and seat_view(g, 1).dream == ("Shock",) * 5
    dream = obs_layout(5).dream
    assert encode(g, 1)[dream:dream + len(cards.CARDS)].any()
    _pm_redistributes(g, ((L_, L_), (1, A1), (A1, 1)))   # the Demon and the Oneiromancer change hands
    assert g.players[A1].identity is oneiro and not oneiro.face_up and len(oneiro.data["dream"]) == 5
    for s in range(5):
        assert seat_view(g, s).dream == ()
        assert not encode(g, s)[dream:dream + len(cards.CARDS)].any()



def test_a_stolen_oneiromancer_pile_is_seen_by_the_thief_not_by_the_next_holder_of_its_card():
    """The Reflector takes The Oneiromancer's trigger: its controller's pile
    fills ("you may look at them": the trigger's controller; docs/fidelity.md,
    "This identity" through the controller) and it sees the cards.  The Puppet
    Master then moves the Reflector card, face down, to another player, who
    unveils it: that player never controlled the trigger, and The Reflector has
    no ability linked to the pile, so it sees none of the face-down cards
    (CR 314.9; view, observation and text)."""
    from treachery_env import cards
    from treachery_env.observation import encode, obs_layout
    from identity_helpers import cast
    g = at_main(["The Old Ruler", "The Oneiromancer", "The Reflector", "The Beastmaster", "The Puppet Master",
                 "The Demon", "The Seer"])
    for q in g.players:
        q.library = [cards.card("Wastes")] * 5 + [cards.card("Shock")]
    g.players[1].lands = 2
    g.players[2].lands = 5
    give_priority(g, 1)
    g.step(g.layout.UNVEIL + 1)                       # X = 1: the top card of each library
    give_priority(g, 2)
    g.step(g.layout.UNVEIL)                           # The Reflector targets the Oneiromancer's trigger
    while g.stack:
        g.step(g.layout.PASS if g.decision.kind == DecisionKind.PRIORITY else g.decision.options[0][0])
    reflector = g.players[2].identity
    pile = reflector.data["dream"]
    assert len(pile) == 7 * 6 and "dream" not in g.players[1].identity.data   # every library, by the copies
    assert seat_view(g, 2).dream == tuple(c.name for _, c in pile)
    _pm_redistributes(g, ((5, 5), (6, 6), (0, 0), (1, 1), (2, 3)))   # P3 gets the Reflector card
    assert g.players[3].identity is reflector and not reflector.face_up
    g.players[3].lands = 6
    hand(g, 3, "Shock")
    give_priority(g, 3)
    cast(g, 3, "Shock")
    while g.decision.kind != DecisionKind.PRIORITY:
        g.step(g.decision.options[0][0])
    g.step(g.layout.UNVEIL)                           # P3 unveils the Reflector it was given
    assert reflector.face_up and g.players[3].identity is reflector and len(reflector.data["dream"]) == 42
    dream = obs_layout(7).dream
    for s in range(7):
        assert seat_view(g, s).dream == ()
        assert not encode(g, s)[dream:dream + len(cards.CARDS)].any()
    assert "face-down exile" not in g.render_text(3)

def _cathar_exiled_a_bear(deal: list) -> tuple:
    """Seat 1's The Cathar unveiled and resolved, exiling seat 3's Grove Bear."""
    from identity_helpers import creature, target_creature
    g = at_main(deal)
    bear = creature(g, A2, "Grove Bear")
    g.players[1].lands = 5
    g.revealed_identities.add(-1)                     # Undercover met (scenario set-up)
    hand(g, 1, "Shock")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    target_creature(g, bear)
    g.step(g.layout.PASS)                             # no second target
    resolve_all(g)
    assert bear not in g.players[A2].creatures and [c.name for c in g.players[A2].exile] == ["Grove Bear"]
    return g


def test_cathar_exile_ends_when_its_player_loses_after_the_puppet_master_moved_the_card():
    """The Cathar's "until you lose the game" (data: "until The Cathar's
    controller loses"): the player who controlled its trigger as it resolved
    (a duration fixed on resolution).  The Puppet Master moves the card face
    down to another player: the exiled permanent doesn't come back when the
    card's new holder loses, and does when the Cathar's player loses."""
    g = _cathar_exiled_a_bear(["The Old Ruler", "The Cathar", "The Demon", "The Beastmaster",
                               "The Puppet Master"])
    cathar = g.players[1].identity
    _pm_redistributes(g, ((L_, L_), (1, A1), (A1, 1)))   # the Cathar and the Demon change hands
    assert g.players[A1].identity is cathar and not cathar.face_up
    g.lose([A1])                                      # the card's new holder
    assert g.players[A2].creatures == [] and [c.name for c in g.players[A2].exile] == ["Grove Bear"]
    g.lose([1])                                       # the Cathar's player
    assert [c.name for c in g.players[A2].creatures] == ["Grove Bear"] and g.players[A2].exile == []


def test_cathar_trigger_stolen_by_the_reflector_ends_when_the_thief_loses():
    """The Reflector takes The Cathar's trigger: "you" is now the Reflector's
    controller, whose loss ends the exile (the Cathar's player's doesn't)."""
    from identity_helpers import creature, target_creature
    g = at_main(["The Old Ruler", "The Cathar", "The Demon", "The Beastmaster", "The Reflector"])
    bear = creature(g, A2, "Grove Bear")
    g.players[1].lands = 5
    g.players[T_].lands = 5
    g.revealed_identities.add(-1)                     # Undercover met (scenario set-up)
    hand(g, 1, "Shock")
    hand(g, T_, "Shock")
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    target_creature(g, bear)
    g.step(g.layout.PASS)
    assert g.stack[-1].source == "The Cathar"
    give_priority(g, T_)
    g.step(g.layout.UNVEIL)                           # the only stack object: the Cathar's trigger
    for _ in range(50):                               # keep its target; the copies target nothing new
        if not g.stack and (g.decision is None or g.decision.kind == DecisionKind.PRIORITY):
            break
        g.step(g.layout.PASS if g.layout.PASS in g.legal_actions() else g.decision.options[0][0])
    assert bear not in g.players[A2].creatures and [c.name for c in g.players[A2].exile] == ["Grove Bear"]
    g.lose([1])                                       # the Cathar's player: nothing comes back
    assert [c.name for c in g.players[A2].exile] == ["Grove Bear"]
    g.lose([T_])                                      # the thief
    assert [c.name for c in g.players[A2].creatures] == ["Grove Bear"] and g.players[A2].exile == []


def test_puppet_master_draws_two_at_its_controllers_end_step():
    """At the beginning of its controller's end step, they draw two cards (only
    their own end step)."""
    g = _pm_unveiled()
    resolve_all(g)
    while g.decision is not None and g.decision.kind == DecisionKind.CARD:
        g.step(g.layout.PLAYER + g.rel(T_, g.decision.ctx[1]["current"]))    # everyone keeps their card
    start = len(g.log)
    for _ in range(2000):                            # play one full round: seats 0..4, back to seat 0
        if any(e["event"] == "turn" and e["seat"] == L_ for e in g.log[start:]):
            break
        d = g.decision
        g.step(g.layout.PASS if d.index_of(g.layout.PASS) is not None else d.options[0][0])
    end = next(i for i in range(start, len(g.log)) if g.log[i]["event"] == "turn" and g.log[i]["seat"] == L_)
    draws = [e for e in g.log[start:end] if e["event"] == "draw"]
    # seat 4's draw step (1) + its end-step trigger (2); no other end step draws
    assert [(e["seat"], e["n"]) for e in draws] == [(1, 1), (2, 1), (3, 1), (T_, 1), (T_, 2)]


# ---------------------------------------------------------------------------- The Treacherous Masochist
def _masochist() -> Game:
    g = _game("The Treacherous Masochist", lands=0)
    assert unveil_actions(g) == [0]                    # Unveil {0}
    g.unveil(T_)
    assert g.players[T_].identity.face_up and g.players[T_].lands_tapped == 0
    return g


def test_masochist_unveil_cost_is_zero():
    """The Treacherous Masochist: Unveil {0}, payable with no mana."""
    g = _masochist()
    assert g.players[T_].role == Role.TRAITOR and not g.stack   # no "when unveiled" ability


def test_masochist_first_loss_becomes_a_win():
    """If its controller would be the first player to lose, they win instead; a
    Traitor wins alone (CR 907.7f)."""
    g = _masochist()
    g.damage(L_, ("p", T_), 50)
    refresh_sba(g)
    assert g.is_over and g.winners == {T_} and not g.players[T_].has_lost
    check_invariants(g)


def test_masochist_tied_for_first_wins_and_later_loses_normally():
    """Tied for first (a simultaneous loss) still wins; once another player has
    lost, a loss is a loss (and the replacement never applies face down)."""
    g = _masochist()
    g.lose([G_, T_])
    assert g.is_over and g.winners == {T_}
    g = _masochist()
    g.lose([G_])
    g.lose([T_])
    assert not g.is_over and g.players[T_].has_lost and g.players[T_].team == Team.TRAITOR
    g = at_main(deal5(T="The Treacherous Masochist"))
    g.lose([T_])                                       # face down: no replacement (official ruling)
    assert g.players[T_].has_lost and not g.is_over


def test_masochist_cant_pay_life_while_nobody_has_lost():
    """As long as no player has lost, its controller can't pay life (0 is always
    payable); face down, or once someone lost, they can."""
    g = at_main(deal5(T="The Treacherous Masochist"))
    assert g.can_pay_life(T_, 1)
    g = _masochist()
    assert not g.can_pay_life(T_, 1) and g.can_pay_life(T_, 0) and g.can_pay_life(A1, 1)
    g.lose([G_])
    assert g.can_pay_life(T_, 1)


def test_masochist_own_spells_cant_make_it_lose():
    """As long as no player has lost, its controller's own spells and abilities
    can't cause them to lose: damage from their own source to 0 life is not a
    loss (and not a win); an opponent's damage then is; after another player
    lost, the pending loss happens normally."""
    g = _masochist()
    g.damage(T_, ("p", T_), 50)                        # their own Shock-like source
    refresh_sba(g)
    assert not g.is_over and not g.players[T_].has_lost and g.players[T_].life <= 0
    assert [e["seat"] for e in g.log if e["event"] == "cant_lose"] == [T_]
    g.damage(A1, ("p", T_), 1)                         # an opponent's damage: first loss -> win
    refresh_sba(g)
    assert g.is_over and g.winners == {T_}
    g = _masochist()
    g.damage(T_, ("p", T_), 50)
    refresh_sba(g)
    assert not g.players[T_].has_lost
    g.lose([A1])                                       # someone lost: no more protection
    refresh_sba(g)
    assert g.players[T_].has_lost and not g.players[T_].won


def test_masochist_empty_library_draw_is_not_kept_from_happening():
    """A loss from drawing from an empty library is not traced to the effect
    that made them draw (fidelity: The Treacherous Masochist): at 0 life from
    their own source and with such an attempt since the last check, the loss is
    no own loss but a first one, which becomes a win; the same harm alone is
    kept from happening."""
    g = _masochist()
    g.damage(T_, ("p", T_), 50)
    g.players[T_].library = []
    g.draw(T_, 1)
    refresh_sba(g)
    assert g.is_over and g.winners == {T_}
    assert not [e for e in g.log if e["event"] == "cant_lose"]


def test_masochist_loss_kept_from_happening_is_logged_once_per_harm():
    """The loss kept from happening is logged ("cant_lose") once when its own
    source's harm leaves the controller at 0 or less life, not again at each
    state-based check that finds them there (those perform nothing, CR 704.3),
    neither in the log nor in the events any seat's view shows; a new harm
    from their own source is kept from happening, and logged, again."""
    g = _masochist()
    t0 = g.turn
    g.damage(T_, ("p", T_), 50)
    refresh_sba(g)
    shown = set()
    while g.turn < t0 + 2:                             # two cleanup steps' checks, an untap step's
        for s in range(5):
            shown.add(sum(e["event"] == "cant_lose" for e in seat_view(g, s).events))
        g.step(g.layout.PASS)
    assert [e["seat"] for e in g.log if e["event"] == "cant_lose"] == [T_]
    assert shown == {1} and not g.players[T_].has_lost
    g.damage(T_, ("p", T_), 1)
    refresh_sba(g)
    assert [e["turn"] for e in g.log if e["event"] == "cant_lose"] == [t0, g.turn]


def refresh_sba(g: Game) -> None:
    if g.decision is not None and g.decision.kind == DecisionKind.PRIORITY:
        g.decision = None
    g._advance()


def test_masochist_concession_is_not_replaced():
    """TR6.10 / ruling: conceding is never replaced by the win."""
    g = _masochist()
    g.concede(T_)
    assert g.players[T_].has_lost and not g.is_over and T_ not in g.winners


# ---------------------------------------------------------------------------- The Wearer of Masks
POOL = ["The Grenadier", "The Demon", "The Gatekeeper", "The Immortal"]


@pytest.fixture
def fixed_pool(monkeypatch):
    """A fixed "outside the game" pool, so the random reveal does not depend on
    which other cards are implemented."""
    monkeypatch.setattr(traitors_special, "_wearer_pool", lambda g, s: list(POOL))


def _wear(x: int, pick: str | None, lands: int = 10) -> Game:
    g = _game("The Wearer of Masks", lands=lands)
    g.unveil(T_, x)
    if x:
        d = g.decision
        assert d.kind == DecisionKind.CARD and d.seat == T_
        shown = [p for _, p in d.options if p is not None]
        assert len(shown) == min(x, len(POOL)) and set(shown) <= set(POOL)
        [rev] = [e for e in g.log if e["event"] == "reveal_identities"]
        assert rev["to"] is None and rev["identities"] == shown          # revealed to everyone
        g.step(next(a for a, p in d.options if p == pick) if pick in shown else g.layout.PASS)
    return g


def test_wearer_unveil_cost_is_x(fixed_pool):
    """The Wearer of Masks: Unveil {X}; X up to the mana available."""
    g = _game("The Wearer of Masks", lands=3)
    assert unveil_actions(g) == [0, 1, 2, 3]
    g = _wear(3, None, lands=3)
    assert g.players[T_].lands_tapped == 3 and g.players[T_].identity.face_up
    assert g.players[T_].identity.name == "The Wearer of Masks" and not g.stack


def test_wearer_copy_triggers_with_x_zero_and_stays_a_traitor(fixed_pool):
    """As unveiled: reveal up to X random non-Leader identities, become a copy of
    the chosen one, except it's a Traitor; the copied card's "when unveiled"
    triggers with X = 0 (The Grenadier: X+3 = 3 Explosives, not 7)."""
    g = _wear(4, "The Grenadier")
    idc = g.players[T_].identity
    assert idc.name == "The Grenadier" and idc.identity.name == "The Wearer of Masks" and idc.copy_of is not None
    assert g.players[T_].role == Role.TRAITOR and g.players[T_].team == Team.TRAITOR
    assert g.stack[-1].source == "The Grenadier" and g.stack[-1].x == 0
    resolve_all(g)
    assert g.players[T_].tokens["Explosive"] == 3
    assert seat_view(g, A1).players[T_].identity == "The Grenadier"
    assert g.players[T_].lands_tapped == 4


def test_wearer_copy_of_an_assassin_is_a_traitor_for_the_win_checks(fixed_pool):
    """Copying an Assassin (The Demon) keeps the Traitor role: when the Leader
    loses the Assassins win without the Wearer; it is everyone's opponent."""
    g = _wear(4, "The Demon")
    assert g.players[T_].identity.name == "The Demon" and g.players[T_].role == Role.TRAITOR
    assert g.is_opponent(A1, T_) and g.is_opponent(T_, A1)
    g.lose([L_])
    assert g.is_over and g.winners == {A1, A2}
    g = _wear(4, "The Demon")
    g.lose([L_, G_, A1, A2])                           # the lone survivor is a Traitor: wins alone
    assert g.is_over and g.winners == {T_}


def test_wearer_copy_applies_the_copied_as_unveiled_and_when_unveiled(monkeypatch):
    """Official ruling: the copied card's "as unveiled" and "when unveiled"
    abilities apply: a copy of The Puppet Master may look at face-down
    identities at once, and its redistribution trigger goes on the stack."""
    monkeypatch.setattr(traitors_special, "_wearer_pool", lambda g, s: ["The Puppet Master"])
    g = _game("The Wearer of Masks")
    g.unveil(T_, 1)
    g.step(g.layout.CHOICE + 0)
    idc = g.players[T_].identity
    assert idc.name == "The Puppet Master" and idc.role == Role.TRAITOR
    assert all(T_ in g.players[s].identity.known_by for s in (G_, A1, A2))
    assert g.stack[-1].source == "The Puppet Master" and g.stack[-1].x == 0


def test_wearer_turned_face_down_ends_the_copy(fixed_pool):
    """The copy lasts until the Wearer is turned face down (The Gatekeeper's own
    {2} ability here): it is The Wearer of Masks again, {X}, a Traitor."""
    g = _wear(4, "The Gatekeeper")
    resolve_all(g)
    p = g.players[T_]
    assert [c.name for c in p.creatures] == ["Cerberus"]
    p.lands_tapped = 0
    give_priority(g, T_)
    g.step(g.layout.IDENTITY_AB)
    resolve_all(g)
    idc = p.identity
    assert not idc.face_up and idc.copy_of is None and idc.name == "The Wearer of Masks"
    assert idc.unveil_cost.x == 1 and p.role == Role.TRAITOR


def test_wearer_declines_or_x_zero_copies_nothing(fixed_pool):
    g = _wear(2, None)
    assert g.players[T_].identity.name == "The Wearer of Masks" and not g.stack
    g = _wear(0, None)
    assert g.players[T_].identity.face_up and g.players[T_].identity.copy_of is None
    assert [e["identities"] for e in g.log if e["event"] == "reveal_identities"] == [[]]


def test_wearer_pool_is_outside_the_game_and_not_leaders():
    """The real pool: implemented non-Leader identities that are no player's card."""
    g = at_main(deal5(T="The Wearer of Masks"))
    pool = traitors_special._wearer_pool(g, T_)
    from treachery_env.identities import get
    assert pool and all(get(n).role != Role.LEADER for n in pool)
    assert not set(pool) & {p.identity.name for p in g.players}


# ---------------------------------------------------------------------------- fuzz
SPECIAL = ["The Metamorph", "The Puppet Master", "The Treacherous Masochist", "The Wearer of Masks"]


def _deal(k: int) -> tuple[GameConfig, list[str]]:
    if k % 2 == 0:                                     # Backstab Rumble: a Leader and the four special Traitors
        ids = ["The Old Ruler"] + SPECIAL
        random.Random(k).shuffle(ids)
        return GameConfig(num_players=5, identities=ids, variant="backstab_rumble", max_turns=14,
                          starting_life=12), ids
    a, b = SPECIAL[(k // 2) % 4], SPECIAL[(k // 2 + 1) % 4]
    ids = ["The Blood Empress", "The Bodyguard", "The Golem", "The Seer", "The Demon", "The Beastmaster", a, b]
    random.Random(k).shuffle(ids)
    return GameConfig(num_players=8, identities=ids, max_turns=14, starting_life=12), ids


def _check_result(g: Game) -> None:
    """check_result, plus: The Treacherous Masochist's win in place of the first
    loss leaves its controller in the game and every other player too."""
    check_result(g)
    if any(e["event"] == "loss_becomes_win" for e in g.log):
        [s] = g.winners
        assert g.players[s].team == Team.TRAITOR and not any(p.has_lost for p in g.players)


def test_fuzz_special_traitors():
    """200 random games with fixed deals holding the special Traitors (every
    player has 10 lands): invariants at every step, consistent results, and
    every card is unveiled and does its thing at least once (The Metamorph's
    take-over comes in about one game in fifty)."""
    unveiled, events = set(), set()
    for k in range(200):
        cfg, _ = _deal(k)
        g = Game(cfg, seed=k)
        for p in g.players:
            p.lands = 10
        g._advance()
        rng = random.Random(k)
        while not g.is_over:
            check_invariants(g)
            g.step(rng.choice(g.legal_actions()))
        check_invariants(g)
        _check_result(g)
        unveiled |= {e["identity"] for e in g.log if e["event"] == "unveil"}
        events |= {e["event"] for e in g.log}
        events |= {"copy:" + e["identity"] for e in g.log if e["event"] == "copy_identity"}
    assert set(SPECIAL) <= unveiled, set(SPECIAL) - unveiled
    assert {"metamorph_ready", "metamorph_takes", "puppet_master", "look_at_identities", "reveal_identities",
            "copy_identity", "loss_becomes_win"} <= events, events


def test_information_sets_with_special_traitors():
    """No leak (DESIGN section 4) with the special Traitors in play: a seat's
    observation, view and text depend only on what it may know, after peeks
    (The Puppet Master), take-overs (The Metamorph) and copies (The Wearer)."""
    import numpy as np
    from test_information_sets import _permute_hidden

    from treachery_env.observation import encode
    checked, peeked = 0, 0
    for k in range(10):
        cfg, _ = _deal(k)
        g = Game(cfg, seed=k)
        for p in g.players:
            p.lands = 10
        g._advance()
        rng = random.Random(k)
        step = 0
        while not g.is_over and step < 400:
            if step % 40 == 39:
                peeked += any(p.identity.name == "The Puppet Master" and p.identity.face_up for p in g.players)
                for viewer in range(g.n):
                    h = _permute_hidden(g, viewer, random.Random(step + viewer))
                    assert np.array_equal(encode(g, viewer), encode(h, viewer))
                    assert seat_view(g, viewer) == seat_view(h, viewer)
                    assert g.render_text(viewer) == h.render_text(viewer)
                    checked += 1
            g.step(rng.choice(g.legal_actions()))
            step += 1
    assert checked > 50 and peeked > 3, (checked, peeked)
