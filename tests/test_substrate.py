"""Scenario tests of the Magic-lite substrate (DESIGN section 2, docs/fidelity.md
section 3 "Magic-lite substrate: what is abstracted").

Each test cites the Magic Comprehensive Rule it models.  Where the substrate
abstracts a rule on purpose (menace, the legend rule, commanders going straight
to the command zone, explore, Junk), the documented behaviour is what is
tested.  Scenarios are built with ``tests/scenario.py``: every seat starts with
one untapped land, a Shock in hand and a library of 30 Wastes, so draws are
predictable and each seat holding priority is really asked.
"""

from __future__ import annotations

from collections import Counter

import pytest

from treachery_env import cards
from treachery_env.config import GameConfig
from treachery_env.engine import PHASES, DecisionKind, Game
from treachery_env.view import seat_view

from scenario import (PASS, add_creature, attack, events, give_priority, has_priority, make_game,
                      pass_priority_until, refresh, resolve_stack)

# Leader first (seat 0 takes the first turn, CR 907.6); the others' unveil costs
# are {4} or more, so with one land nobody has an identity action in the way.
DEAL = ["The Void Tyrant", "The Bodyguard", "The Beastmaster", "The Demon", "The Banisher"]
TOKEN_AB = {name: k for k, name in enumerate(("Clue", "Food", "Blood", "Map", "Junk"))}


# ----------------------------------------------------------------------------- helpers
def game(**kw) -> Game:
    """``make_game(DEAL, ...)``, checked to stand at seat 0's first main phase."""
    g = make_game(DEAL, **kw)
    assert g.turn == 1 and g.phase == "main1" and g.current_player == 0
    return g


def names(zone) -> list[str]:
    return [c.name for c in zone]


def deciding(g: Game, kind: int, seat: int) -> bool:
    d = g.decision
    return d is not None and d.kind == kind and d.seat == seat


def cast(g: Game, seat: int, name: str, targets=(), x: int | None = None) -> None:
    """Give ``seat`` priority, cast ``name`` from its hand, choose X and targets
    (``("p", seat)``, ``("c", Creature)`` or ``("s", StackItem)``).  A choice with
    a single legal option is taken by the engine itself."""
    if not has_priority(seat)(g):
        give_priority(g, seat)
    g.step(g.layout.HAND + names(g.players[seat].hand).index(name))
    if x is not None:
        assert deciding(g, DecisionKind.NUMBER, seat)
        g.step(g.layout.CHOICE + x)
    for t in targets:
        if deciding(g, DecisionKind.TARGET, seat):
            g.step(g.target_action(seat, t))
    last = events(g, "cast")[-1]
    assert last["card"] == name and last["seat"] == seat


def declare(g: Game, seat: int, assignments) -> None:
    """Drive ``seat``'s declare-attackers step: each ``(creature, defending seat)``
    attacks, then finish declaring (CR 508.1)."""
    pass_priority_until(g, lambda g: deciding(g, DecisionKind.ATTACKER, seat))
    L = g.layout
    for c, d in assignments:
        assert deciding(g, DecisionKind.ATTACKER, seat)
        g.step(L.perm(0, g.players[seat].creatures.index(c)))
        if deciding(g, DecisionKind.DEFENDER, seat):
            g.step(L.PLAYER + g.rel(seat, d))
        assert c.attacking == d
    if deciding(g, DecisionKind.ATTACKER, seat):
        g.step(PASS)


def block(g: Game, seat: int, pairs) -> None:
    """Drive ``seat``'s declare-blockers decisions: each ``(blocker, attacker)``
    (CR 509.1a), then finish.  Earlier defenders who are asked first don't block."""
    pass_priority_until(g, lambda g: deciding(g, DecisionKind.BLOCKER, seat))
    for b, a in pairs:
        g.step(g.layout.perm(0, g.players[seat].creatures.index(b)))
        if deciding(g, DecisionKind.BLOCKED, seat):
            g.step(g.target_action(seat, ("c", a)))
        assert b in a.blocked_by or a.has("menace")   # menace: see _op_blocks_done
    if deciding(g, DecisionKind.BLOCKER, seat):
        g.step(PASS)


def after_combat(g: Game) -> None:
    """Pass until the combat of this turn is over."""
    turn = g.turn
    pass_priority_until(g, lambda g: g.turn != turn or PHASES.index(g.phase) > PHASES.index("combat_end"))


def hand_options(g: Game) -> set[int]:
    """Hand slots the deciding seat may play or cast now."""
    L = g.layout
    return {a - L.HAND for a in g.legal_actions() if L.HAND <= a < L.COMMANDER}


def option_actions(g: Game) -> set[int]:
    return {a for a, _ in g.decision.options}


# ============================================================================= turn structure
def test_untap_step_untaps_lands_and_creatures_but_stun_keeps_one_tapped():
    """CR 502.3 (the active player untaps their permanents) and CR 122.1d (a stun
    counter: if the permanent would untap, remove a counter instead).  An untapped
    creature keeps its stun counter; `Game.untap` does the same for one creature."""
    g = game()
    p = g.players[1]
    p.lands, p.lands_tapped = 3, 3
    plain = add_creature(g, 1, "Grove Bear")
    plain.tapped = True
    stunned = add_creature(g, 1, "Grove Bear")
    stunned.tapped, stunned.stun = True, 1
    idle = add_creature(g, 1, "Grove Bear")
    idle.stun = 1
    other = add_creature(g, 2, "Grove Bear")
    other.tapped = True
    refresh(g)
    pass_priority_until(g, lambda g: g.active == 1 and g.phase == "main1")
    assert g.turn == 2
    assert p.lands_tapped == 0
    assert not plain.tapped
    assert stunned.tapped and stunned.stun == 0
    assert not idle.tapped and idle.stun == 1
    assert other.tapped                       # only the active player untaps
    pass_priority_until(g, lambda g: g.active == 1 and g.turn == 7)
    assert not stunned.tapped and stunned.stun == 0
    # the engine's untap, one creature at a time
    c = add_creature(g, 3, "Grove Bear")
    c.tapped, c.stun = True, 2
    g.untap(c)
    assert c.tapped and c.stun == 1
    g.untap(c)
    assert c.tapped and c.stun == 0
    g.untap(c)
    assert not c.tapped and c.stun == 0


def test_draw_step_draws_one_card_even_on_the_first_turn_of_a_multiplayer_game():
    """CR 504.1: the active player draws a card in the draw step.  The starting
    player skips that draw only in a two-player game (CR 103.8a), so in Treachery
    the Leader draws on turn 1 too."""
    cfg = GameConfig(num_players=5, identities=DEAL, decks=["aggro"] * 5)
    g = Game(cfg, seed=3)
    pass_priority_until(g, lambda g: g.phase == "main1")
    assert g.turn == 1
    assert [len(p.hand) for p in g.players] == [8, 7, 7, 7, 7]
    assert [len(p.library) for p in g.players] == [91, 92, 92, 92, 92]
    assert events(g, "draw") == [{"turn": 1, "event": "draw", "seat": 0, "n": 1, "to": None}]
    g = game()
    g.players[1].library[-1] = cards.card("Grove Bear")     # the top card
    pass_priority_until(g, lambda g: g.active == 1 and g.phase == "main1")
    assert names(g.players[1].hand) == ["Shock", "Grove Bear"]
    assert len(g.players[1].library) == 29 and len(g.players[2].hand) == 1


def test_one_land_per_turn_and_only_on_your_own_turn():
    """CR 305.2: a player may play one land during each of their turns, in a main
    phase with an empty stack (CR 305.1)."""
    g = game(hand=["Wastes", "Wastes", "Shock"])
    L = g.layout
    assert {L.HAND + 0, L.HAND + 1, L.HAND + 2} <= set(g.legal_actions())
    g.step(L.HAND + 0)
    p = g.players[0]
    assert p.lands == 2 and p.land_played and names(p.hand) == ["Wastes", "Shock"]
    assert has_priority(0)(g)
    assert L.HAND + 0 not in g.legal_actions() and L.HAND + 1 in g.legal_actions()
    pass_priority_until(g, lambda g: g.phase == "main2" and has_priority(0)(g))
    assert L.HAND + 0 not in g.legal_actions()
    give_priority(g, 1)                          # on someone else's turn: no land
    assert g.active == 0 and L.HAND + 0 not in g.legal_actions()
    pass_priority_until(g, lambda g: g.active == 1 and g.phase == "main1" and has_priority(1)(g))
    assert L.HAND + 0 in g.legal_actions()
    pass_priority_until(g, lambda g: g.active == 0 and g.phase == "main1" and has_priority(0)(g))
    assert g.turn == 6 and L.HAND + 0 in g.legal_actions()
    g.step(L.HAND + 0)
    assert p.lands == 3


def test_sorcery_speed_needs_your_main_phase_and_an_empty_stack_instants_do_not():
    """CR 307.1 / 302.1 (sorceries and creature spells: your main phase, empty
    stack), CR 117.3c (the caster keeps priority) and CR 304.1 (instants whenever
    you have priority)."""
    g = game(lands=4, hand=["Grove Bear", "Pyroclasm", "Shock", "Shock"])
    assert hand_options(g) == {0, 1, 2, 3}
    cast(g, 0, "Shock", [("p", 3)])
    assert has_priority(0)(g) and len(g.stack) == 1
    assert names(g.players[0].hand) == ["Grove Bear", "Pyroclasm", "Shock"]
    assert hand_options(g) == {2}                    # the stack isn't empty
    resolve_stack(g)
    assert g.players[3].life == 38
    # another player, in the active player's main phase with an empty stack
    give_priority(g, 1)
    assert g.active == 0 and g.phase == "main1" and not g.stack
    assert hand_options(g) == {2, 3}
    # the end step of your own turn is not a main phase
    pass_priority_until(g, lambda g: g.phase == "end" and has_priority(0)(g))
    assert not g.stack and hand_options(g) == {2}
    cast(g, 0, "Shock", [("p", 3)])
    resolve_stack(g)
    assert g.players[3].life == 36


def test_cleanup_discards_down_to_maximum_hand_size_by_choice():
    """CR 514.1: in the cleanup step the active player discards down to their
    maximum hand size (7), choosing the cards; other players don't discard."""
    g = game(hand=["Elder Titan"] * 8 + ["Shock"])
    pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.DISCARD)
    d = g.decision
    assert d.seat == 0 and g.phase == "cleanup"
    assert option_actions(g) == {g.layout.HAND + i for i in range(9)}
    g.step(g.layout.HAND + 8)
    assert deciding(g, DecisionKind.DISCARD, 0)
    g.step(g.layout.HAND + 0)
    p = g.players[0]
    assert names(p.hand) == ["Elder Titan"] * 7
    assert names(p.graveyard) == ["Shock", "Elder Titan"]
    # seat 1 kept its 9 cards through seat 0's cleanup, then drew on its own turn
    assert g.active == 1 and len(g.players[1].hand) == 9
    pass_priority_until(g, lambda g: g.phase == "main1")
    assert g.active == 1 and len(g.players[1].hand) == 10
    assert [e["seat"] for e in events(g, "discard")] == [0, 0]


def test_damage_wears_off_and_until_end_of_turn_effects_end_at_cleanup():
    """CR 514.2: in the cleanup step all damage is removed and "until end of turn"
    effects end, simultaneously: a 5/5 (Giant Growth) with 3 damage is a
    2/2 without damage on the next turn, not a dead creature."""
    g = game(lands=3, hand=["Giant Growth", "Lightning Strike", "Shock"])
    bear = add_creature(g, 0, "Grove Bear")
    refresh(g)
    cast(g, 0, "Giant Growth", [("c", bear)])
    resolve_stack(g)
    assert (bear.power, bear.toughness) == (5, 5)
    cast(g, 0, "Lightning Strike", [("c", bear)])
    resolve_stack(g)
    assert bear.damage == 3 and bear in g.players[0].creatures
    pass_priority_until(g, lambda g: g.phase == "end")
    assert (bear.power, bear.toughness, bear.damage) == (5, 5, 3)
    pass_priority_until(g, lambda g: g.active == 1)
    assert bear in g.players[0].creatures
    assert (bear.power, bear.toughness, bear.damage) == (2, 2, 0)


# ============================================================================= the stack
def test_stack_resolves_last_in_first_out():
    """CR 405.5 / 608.1: when all players pass in succession, the top object
    (the last one cast) resolves, then priority starts again (CR 117.3b)."""
    g = game(lands=2, hand=["Lightning Strike", "Shock"])
    cast(g, 0, "Lightning Strike", [("p", 3)])
    cast(g, 1, "Shock", [("p", 3)])
    cast(g, 2, "Lightning Strike", [("p", 4)])
    assert [(it.controller, it.source) for it in g.stack] == [
        (0, "Lightning Strike"), (1, "Shock"), (2, "Lightning Strike")]
    pass_priority_until(g, lambda g: len(g.stack) == 2)
    assert g.players[4].life == 37 and g.players[3].life == 40
    pass_priority_until(g, lambda g: len(g.stack) == 1)
    assert g.players[3].life == 38
    resolve_stack(g)
    assert g.players[3].life == 35
    assert [e["seat"] for e in events(g, "resolve")] == [2, 1, 0]


def test_spell_whose_only_target_is_gone_does_not_resolve():
    """CR 608.2b: a spell whose targets are all illegal doesn't resolve (it
    "fizzles") and goes to its owner's graveyard (CR 608.2n)."""
    g = game(lands=1, hand=["Giant Growth", "Shock"])
    g.players[1].hand = [cards.card("Shock")]
    bear = add_creature(g, 0, "Grove Bear")
    refresh(g)
    cast(g, 0, "Giant Growth", [("c", bear)])
    cast(g, 1, "Shock", [("c", bear)])
    resolve_stack(g)
    assert bear not in g.players[0].creatures
    assert names(g.players[0].graveyard) == ["Grove Bear", "Giant Growth"]
    assert [e["source"] for e in events(g, "fizzle")] == ["Giant Growth"]
    assert [e["source"] for e in events(g, "resolve")] == ["Shock"]


def test_counterspell_counters_a_spell():
    """CR 701.5a: a countered spell is removed from the stack to its owner's
    graveyard and has no effect."""
    g = game(lands=5, hand=["Lava Axe"])
    g.players[1].hand = [cards.card("Counterspell"), cards.card("Shock")]
    g.players[1].lands = 2
    refresh(g)
    cast(g, 0, "Lava Axe", [("p", 1)])
    axe = g.stack[-1]
    cast(g, 1, "Counterspell", [("s", axe)])
    resolve_stack(g)
    assert g.players[1].life == 40
    assert names(g.players[0].graveyard) == ["Lava Axe"]
    assert names(g.players[1].graveyard) == ["Counterspell"]
    assert [e["source"] for e in events(g, "counter")] == ["Lava Axe"]
    assert g.players[1].lands_tapped == 2


def test_negate_cannot_target_creature_spells():
    """CR 115.1 / 601.2c: a spell can only target what its text allows: Negate
    counters a noncreature spell, so it can't be cast with only a creature spell
    on the stack; Counterspell can."""
    g = game(lands=3, hand=["Grove Bear", "Shock"])
    g.players[1].hand = [cards.card("Negate"), cards.card("Counterspell")]
    g.players[1].lands = 4
    refresh(g)
    cast(g, 0, "Grove Bear")
    give_priority(g, 1)
    L = g.layout
    assert L.HAND + 0 not in g.legal_actions() and L.HAND + 1 in g.legal_actions()
    assert g.target_candidates(1, {"type": "noncreature_spell"}) == []
    assert g.target_candidates(1, {"type": "spell"}) == [("s", g.stack[-1])]
    resolve_stack(g)
    assert names(g.players[0].creatures) == ["Grove Bear"]
    cast(g, 0, "Shock", [("p", 1)])
    cast(g, 1, "Negate", [("s", g.stack[-1])])
    resolve_stack(g)
    assert g.players[1].life == 40 and names(g.players[0].graveyard) == ["Shock"]


def test_x_spell_chooses_x_up_to_the_mana_available_and_deals_x():
    """CR 107.3 / 601.2b: X is announced while casting, and the total cost
    (1 + X for Blaze) must be payable (CR 601.2f-h, Treasures included)."""
    g = game(lands=4, hand=["Blaze", "Shock"])
    g.players[0].tokens["Treasure"] = 1
    refresh(g)
    g.step(g.layout.HAND + 0)
    assert deciding(g, DecisionKind.NUMBER, 0)
    assert option_actions(g) == {g.layout.CHOICE + x for x in range(5)}
    g.step(g.layout.CHOICE + 4)
    g.step(g.target_action(0, ("p", 2)))
    assert g.stack[-1].x == 4 and events(g, "cast")[-1]["x"] == 4
    assert g.players[0].lands_tapped == 4 and g.players[0].tokens["Treasure"] == 0
    resolve_stack(g)
    assert g.players[2].life == 36
    assert names(g.players[0].graveyard) == ["Blaze"]


def _announced(g: Game, start: int, seat: int, card: str, zone: str, owner: int, **more) -> None:
    """The log's first entry from ``start`` is ``seat``'s public ``casting`` of ``card`` from ``zone``
    (CR 601.2a), naming nothing else (``more``: the source), and every seat's view shows it."""
    e = g.log[start]
    assert e == {"turn": g.turn, "event": "casting", "seat": seat, "card": card, "zone": zone, "owner": owner,
                 **more, "to": None}
    for s in range(g.n):
        assert e in [dict(v) for v in seat_view(g, s).events]


def test_a_spell_is_public_from_the_moment_its_casting_begins():
    """CR 601.2a-c, 601.2i: the card moves to the stack, public, before its caster announces X and
    chooses targets; it becomes cast (the ``cast`` event, cast triggers) once they are chosen and
    paid.  Every seat sees the card's name before the caster's first decision, and nobody else
    decides in between."""
    g = game(lands=4, hand=["Blaze", "Shock"])
    start = len(g.log)
    g.step(g.layout.HAND + 0)
    _announced(g, start, 0, "Blaze", "hand", 0)
    assert len(g.log) == start + 1
    assert not g.stack and g.players[0].lands_tapped == 0     # it joins the stack as it becomes cast
    deciders = [g.decision.seat]
    assert deciding(g, DecisionKind.NUMBER, 0)
    g.step(g.layout.CHOICE + 2)
    deciders.append(g.decision.seat)
    assert deciding(g, DecisionKind.TARGET, 0) and [e["event"] for e in g.log[start:]] == ["casting"]
    g.step(g.target_action(0, ("p", 2)))
    assert deciders == [0, 0]
    assert [e["event"] for e in g.log[start:]] == ["casting", "cast"]
    assert g.log[-1]["x"] == 2 and g.log[-1]["targets"] == [["player", 2]] and g.stack[-1].card.name == "Blaze"
    # an instant in response, announced too; its only target is Blaze, not itself (CR 115.5), so
    # the engine takes that single choice and it is cast at once
    give_priority(g, 1)
    g.players[1].hand = [cards.card("Negate")]
    refresh(g)
    start = len(g.log)
    g.step(g.layout.HAND + 0)
    _announced(g, start, 1, "Negate", "hand", 1)
    assert [e["event"] for e in g.log[start:]] == ["casting", "cast"]
    assert g.log[-1]["targets"] == [["stack", g.stack[-2].uid, "Blaze"]]


def test_a_spell_cast_from_another_player_s_graveyard_is_announced_with_its_zone_and_owner():
    """CR 601.2a for a card another zone lets a seat cast (``Game.grant_permission``): the
    announcement names the zone, whose card it is and what allows it, before its target."""
    g = game(hand=["Wastes"])
    shock = cards.card("Shock")
    g.players[3].graveyard.append(shock)
    g.grant_permission(0, shock, 3, "graveyard", free=True, source="The Lich Queen")
    refresh(g)
    start = len(g.log)
    g.step(g.layout.OTHER + 0)
    _announced(g, start, 0, "Shock", "graveyard", 3, source="The Lich Queen")
    assert len(g.log) == start + 1
    assert deciding(g, DecisionKind.TARGET, 0) and shock not in g.players[3].graveyard
    g.step(g.target_action(0, ("p", 2)))
    assert [e["event"] for e in g.log[start:start + 2]] == ["casting", "cast"]
    resolve_stack(g)
    assert g.players[3].graveyard[-1] is shock and g.players[2].life == 38       # back to its owner's


# ============================================================================= combat
def test_summoning_sickness_haste_and_defender():
    """CR 302.6 (a creature can't attack unless controlled continuously since your
    most recent turn began), CR 702.10 (haste) and CR 702.3b (defender can't
    attack, but can block)."""
    g = game()
    fresh = add_creature(g, 0, "Grove Bear", ready=False)
    imp = add_creature(g, 0, "Ember Imp", ready=False)
    wall = add_creature(g, 0, "Thornwall")
    old = add_creature(g, 0, "Dune Lion")
    refresh(g)
    assert set(g._attack_candidates()) == {imp, old}
    pass_priority_until(g, lambda g: deciding(g, DecisionKind.ATTACKER, 0))
    L = g.layout
    assert option_actions(g) == {PASS, L.perm(0, 1), L.perm(0, 3)}
    g.step(PASS)
    # on its controller's next turn the Bear can attack; the wall never can
    pass_priority_until(g, lambda g: deciding(g, DecisionKind.ATTACKER, 0))
    assert g.turn == 6 and set(g._attack_candidates()) == {fresh, imp, old}
    assert wall not in g._attack_candidates()
    # the wall blocks on an opponent's turn
    g.step(PASS)
    lion = add_creature(g, 1, "Dune Lion")
    declare(g, 1, [(lion, 0)])
    block(g, 0, [(wall, lion)])
    after_combat(g)
    assert g.players[0].life == 40 and wall.damage == 2 and lion.damage == 0
    assert wall in g.players[0].creatures and lion in g.players[1].creatures


def test_vigilance_attacker_does_not_tap():
    """CR 508.1f / 702.20b: attacking creatures tap unless they have vigilance."""
    g = game()
    knight = add_creature(g, 0, "Shield Knight")
    bear = add_creature(g, 0, "Grove Bear")
    refresh(g)
    attack(g, 0, 1)
    assert knight.attacking == 1 and bear.attacking == 1
    assert not knight.tapped and bear.tapped
    after_combat(g)
    assert g.players[1].life == 36


def test_flying_can_only_be_blocked_by_flying_or_reach():
    """CR 702.9b (flying) and CR 702.17b (reach)."""
    g = game()
    sprite = add_creature(g, 0, "Cloud Sprite")
    ground = add_creature(g, 1, "Grove Bear")
    weaver = add_creature(g, 1, "Web Weaver")
    flyer = add_creature(g, 1, "Cloud Sprite")
    refresh(g)
    declare(g, 0, [(sprite, 1)])
    pass_priority_until(g, lambda g: deciding(g, DecisionKind.BLOCKER, 1))
    L = g.layout
    assert option_actions(g) == {PASS, L.perm(0, 1), L.perm(0, 2)}
    assert not g._can_block(ground, sprite) and g._can_block(weaver, sprite) and g._can_block(flyer, sprite)
    block(g, 1, [(weaver, sprite)])
    after_combat(g)
    assert (sprite.damage, weaver.damage, g.players[1].life) == (1, 1, 40)


def test_menace_blocked_by_one_creature_is_unblocked_by_two_is_blocked():
    """CR 702.110b: a creature with menace can't be blocked except by two or more
    creatures.  Documented abstraction: a lone blocker is removed from combat
    instead of the block being declared again (docs/fidelity.md, Combat)."""
    g = game()
    ogre = add_creature(g, 0, "Rage Ogre")
    bear = add_creature(g, 1, "Grove Bear")
    refresh(g)
    declare(g, 0, [(ogre, 1)])
    block(g, 1, [(bear, ogre)])
    assert ogre.blocked_by == [] and bear.blocking is None and not ogre.was_blocked
    after_combat(g)
    assert g.players[1].life == 37 and bear.damage == 0 and ogre.damage == 0
    # two blockers: the block stands; 2 (lethal) to the first, the last 1 to the second
    g = game()
    ogre = add_creature(g, 0, "Rage Ogre")
    b1 = add_creature(g, 1, "Grove Bear")
    b2 = add_creature(g, 1, "Grove Bear")
    refresh(g)
    declare(g, 0, [(ogre, 1)])
    block(g, 1, [(b1, ogre), (b2, ogre)])
    after_combat(g)
    assert g.players[1].life == 40
    assert ogre not in g.players[0].creatures and b1 not in g.players[1].creatures
    assert b2 in g.players[1].creatures and b2.damage == 1


def test_first_strike_damage_comes_first_and_only_once():
    """CR 702.7b / 510.4: first-strike creatures deal combat damage in a first
    combat damage step; a creature killed there deals no damage, and a first
    striker doesn't deal damage again in the regular step."""
    g = game()
    squire = add_creature(g, 0, "Blade Squire")      # 2/1 first strike
    squire2 = add_creature(g, 0, "Blade Squire")
    bear = add_creature(g, 1, "Grove Bear")          # 2/2
    weaver = add_creature(g, 1, "Web Weaver")        # 1/4
    refresh(g)
    declare(g, 0, [(squire, 1), (squire2, 1)])
    block(g, 1, [(bear, squire), (weaver, squire2)])
    after_combat(g)
    assert bear not in g.players[1].creatures
    assert squire in g.players[0].creatures and squire.damage == 0
    assert weaver.damage == 2                        # not 4
    assert squire2 not in g.players[0].creatures     # the Weaver's regular damage
    steps = [e["first_strike"] for e in events(g, "combat_damage")]
    assert steps == [True, False]
    # a first-strike blocker kills a 2/1 attacker before it deals damage
    g = game()
    lion = add_creature(g, 0, "Dune Lion")
    guard = add_creature(g, 1, "Blade Squire")
    refresh(g)
    declare(g, 0, [(lion, 1)])
    block(g, 1, [(guard, lion)])
    after_combat(g)
    assert lion not in g.players[0].creatures and guard.damage == 0


def test_double_strike_deals_damage_twice():
    """CR 702.4b: a double striker deals damage in both combat damage steps."""
    g = game()
    d1 = add_creature(g, 0, "Twin-Blade Duelist")    # 2/2 double strike
    d2 = add_creature(g, 0, "Twin-Blade Duelist")
    weaver = add_creature(g, 1, "Web Weaver")        # 1/4
    refresh(g)
    declare(g, 0, [(d1, 1), (d2, 1)])
    block(g, 1, [(weaver, d2)])
    after_combat(g)
    assert g.players[1].life == 36                   # 2 + 2 from the unblocked one
    assert weaver not in g.players[1].creatures      # 2 + 2 = 4 damage
    assert d2 in g.players[0].creatures and d2.damage == 1
    assert [e["to_players"] for e in events(g, "combat_damage")] == [{"1": 2}, {"1": 2}]


def test_trample_assigns_lethal_to_blockers_and_the_rest_to_the_player():
    """CR 702.19b-c / 510.1c: a trampler assigns lethal damage to its blockers,
    counting damage already marked, and the rest to the player."""
    g = game()
    troll = add_creature(g, 0, "Thicket Troll")      # 4/3 trample
    mammoth = add_creature(g, 0, "War Mammoth")      # 5/5 trample
    bear = add_creature(g, 1, "Grove Bear")
    weaver = add_creature(g, 1, "Web Weaver")        # 1/4 with 2 damage already
    weaver.damage = 2
    refresh(g)
    declare(g, 0, [(troll, 1), (mammoth, 1)])
    block(g, 1, [(bear, troll), (weaver, mammoth)])
    after_combat(g)
    assert g.players[1].life == 40 - 2 - 3
    assert bear not in g.players[1].creatures and weaver not in g.players[1].creatures
    assert troll.damage == 2 and mammoth.damage == 1


def test_deathtouch_makes_one_damage_lethal_also_for_trample():
    """CR 702.2b (any damage from a deathtouch source is lethal, CR 704.5h) and
    CR 702.2c / 702.19c (a deathtouch trampler needs to assign only 1 to each
    blocker)."""
    g = game()
    rat = add_creature(g, 0, "Bog Rat")              # 1/1 deathtouch
    troll = add_creature(g, 0, "Thicket Troll")      # 4/3 trample, given deathtouch
    troll.pump_kw = frozenset({"deathtouch"})
    mammoth = add_creature(g, 1, "War Mammoth")      # 5/5
    weaver = add_creature(g, 1, "Web Weaver")        # 1/4
    bear = add_creature(g, 1, "Grove Bear")          # 2/2
    refresh(g)
    declare(g, 0, [(rat, 1), (troll, 1)])
    block(g, 1, [(mammoth, rat), (weaver, troll), (bear, troll)])
    after_combat(g)
    assert g.players[1].creatures == []              # all three blockers died
    assert rat not in g.players[0].creatures         # 5 damage from the Mammoth
    assert troll not in g.players[0].creatures       # 1 + 2 = 3 damage
    assert g.players[1].life == 38                   # 4 - 1 - 1 trampled over
    # a deathtouch blocker kills a big attacker, which still tramples over it
    g = game()
    troll = add_creature(g, 0, "Thicket Troll")
    rat = add_creature(g, 1, "Bog Rat")
    refresh(g)
    declare(g, 0, [(troll, 1)])
    block(g, 1, [(rat, troll)])
    after_combat(g)
    assert troll not in g.players[0].creatures and rat not in g.players[1].creatures
    assert g.players[1].life == 37


def test_lifelink_gains_the_damage_dealt():
    """CR 702.15b: damage dealt by a lifelink source also makes its controller
    gain that much life, to players and creatures alike (the full 6, not the
    blocker's toughness)."""
    g = game()
    bat = add_creature(g, 0, "Bloodfang Bat")        # 1/2 flying lifelink
    colossus = add_creature(g, 0, "Dawnbreaker Colossus")   # 6/6 vigilance lifelink
    bear = add_creature(g, 1, "Grove Bear")
    refresh(g)
    declare(g, 0, [(bat, 1), (colossus, 1)])
    block(g, 1, [(bear, colossus)])
    after_combat(g)
    assert g.players[0].life == 40 + 1 + 6
    assert g.players[1].life == 39 and bear not in g.players[1].creatures


def test_attacking_several_players_each_defender_blocks_only_its_attackers():
    """CR 506.2 / 508.1b / 802.2: in multiplayer an attacker attacks one player
    of its controller's choice; CR 509.1a / 802.4a: each defending player, in turn
    order, blocks only creatures attacking them."""
    g = game()
    a = add_creature(g, 0, "Grove Bear")
    b = add_creature(g, 0, "Grove Bear")
    c = add_creature(g, 0, "Grove Bear")
    w1 = add_creature(g, 1, "Web Weaver")
    w2 = add_creature(g, 2, "Web Weaver")
    w3 = add_creature(g, 3, "Web Weaver")
    refresh(g)
    declare(g, 0, [(a, 1), (b, 1), (c, 2)])
    assert [x.attacking for x in (a, b, c)] == [1, 1, 2]
    pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER)
    assert g.decision.seat == 1                      # APNAP: seat 1 first
    g.step(g.layout.perm(0, 0))
    assert deciding(g, DecisionKind.BLOCKED, 1)
    assert option_actions(g) == {g.target_action(1, ("c", a)), g.target_action(1, ("c", b))}
    g.step(g.target_action(1, ("c", a)))
    assert w1.blocking is a
    # seat 1 has no other creature: its "done" is automatic; seat 2 decides next
    assert deciding(g, DecisionKind.BLOCKER, 2)
    g.step(g.layout.perm(0, 0))                      # one attacker on seat 2: chosen automatically
    assert w2.blocking is c
    # seat 3 isn't attacked, so it isn't asked: players get priority after blocks
    assert g.decision.kind == DecisionKind.PRIORITY and w3.blocking is None
    after_combat(g)
    assert events(g, "blocks")[-1]["blocks"] == [[w1.uid, a.uid], [w2.uid, c.uid]]
    assert (g.players[1].life, g.players[2].life, g.players[3].life) == (38, 40, 40)
    assert w1.damage == 2 and w2.damage == 2


def test_blocked_creature_whose_blocker_left_deals_no_damage_unless_trample():
    """CR 509.1h / 506.4: a blocked creature stays blocked when its blockers leave
    combat and then deals no combat damage, unless it has trample, which assigns
    all its damage to the player (CR 702.19e)."""
    g = game(lands=3, hand=["Shock", "Unsummon"])
    bear = add_creature(g, 0, "Grove Bear")
    troll = add_creature(g, 0, "Thicket Troll")
    sprite = add_creature(g, 1, "Cloud Sprite")
    lion = add_creature(g, 1, "Dune Lion")
    refresh(g)
    declare(g, 0, [(bear, 1), (troll, 1)])
    block(g, 1, [(sprite, bear), (lion, troll)])
    assert g.phase == "declare_blockers"
    cast(g, 0, "Shock", [("c", sprite)])
    cast(g, 0, "Unsummon", [("c", lion)])
    resolve_stack(g)
    assert sprite not in g.players[1].creatures
    assert names(g.players[1].hand) == ["Shock", "Unsummon", "Dune Lion"]
    assert bear.was_blocked and troll.was_blocked
    after_combat(g)
    assert g.players[1].life == 36                   # 4 from the Troll, 0 from the Bear
    assert bear.damage == 0 and troll.damage == 0


# ============================================================================= commander (CR 903)
def test_commander_cast_from_command_zone_with_tax():
    """CR 903.8: casting a commander from the command zone costs {2} more for
    each previous time it was cast from there; CR 903.9a-b: it returns to the
    command zone (documented abstraction: always, at once)."""
    g = game(lands=8)
    p = g.players[0]
    L = g.layout
    assert p.commander.name == "Kaelen, Warband Chief" and p.commander_zone == "command"
    assert L.COMMANDER in g.legal_actions()
    start = len(g.log)
    g.step(L.COMMANDER)
    assert p.commander_zone == "stack" and p.lands_tapped == 3 and g.stack[-1].from_zone == "command"
    # CR 601.2a, 601.2i: announced from the command zone, then cast (a creature spell has no targets)
    assert [e["event"] for e in g.log[start:]] == ["casting", "cast"]
    _announced(g, start, 0, "Kaelen, Warband Chief", "command", 0)
    resolve_stack(g)
    kaelen = p.creatures[0]
    assert kaelen.is_commander and p.commander_zone == "battlefield"
    g.destroy(kaelen)
    refresh(g)
    assert p.commander_zone == "command" and p.graveyard == []
    assert L.COMMANDER in g.legal_actions()           # 3 + 2 = 5 of the 5 left
    g.step(L.COMMANDER)
    assert p.lands_tapped == 8 and p.commander_casts == 2
    resolve_stack(g)
    g.exile_creature(p.creatures[0])
    refresh(g)
    assert p.commander_zone == "command" and p.exile == []
    # seat 0 has no mana left, so seat 1 holds priority now: ask the engine what
    # seat 0 could do with 6 and with 7 mana available (3 + 4 needed)
    p.lands_tapped = 2
    assert (L.COMMANDER, ("commander", 0)) not in g._priority_options(0)
    p.lands_tapped = 1
    assert (L.COMMANDER, ("commander", 0)) in g._priority_options(0)


@pytest.mark.parametrize("spell, zone", [("Murder", "graveyard"), ("Banish", "exile"),
                                         ("Unsummon", "hand"), ("Lightning Strike", "graveyard")])
def test_commander_leaving_the_battlefield_returns_to_the_command_zone(spell, zone):
    """CR 903.9a-b: a commander that would go to a graveyard, exile or a hand goes
    to the command zone instead (documented abstraction: always chosen).  The
    Lightning Strike case dies by state-based action (CR 704.5g)."""
    g = game(lands=6, hand=[spell, "Shock"])
    p = g.players[0]
    g.step(g.layout.COMMANDER)
    resolve_stack(g)
    kaelen = p.creatures[0]
    cast(g, 0, spell, [("c", kaelen)])
    resolve_stack(g)
    assert p.creatures == [] and p.commander_zone == "command"
    assert names(p.graveyard) == [spell] and p.exile == [] and names(p.hand) == ["Shock"]
    assert events(g, "leaves")[-1]["zone"] == zone


def test_countered_commander_returns_to_the_command_zone():
    """CR 903.9a with CR 701.5a: a countered commander spell goes to the command
    zone, and the cast still counts for the tax (CR 903.8)."""
    g = game(lands=8)
    g.players[1].hand = [cards.card("Counterspell")]
    g.players[1].lands = 2
    refresh(g)
    p = g.players[0]
    g.step(g.layout.COMMANDER)
    cast(g, 1, "Counterspell", [("s", g.stack[-1])])
    resolve_stack(g)
    assert p.commander_zone == "command" and p.graveyard == [] and p.creatures == []
    assert names(g.players[1].graveyard) == ["Counterspell"]
    give_priority(g, 0)
    g.step(g.layout.COMMANDER)
    assert p.lands_tapped == 3 + 5


def test_21_combat_damage_from_one_commander_loses():
    """CR 903.10a / 704.6c: a player dealt 21 or more combat damage by the same
    commander over the game loses.  Only combat damage from a commander counts,
    and damage from different commanders isn't added together."""
    g = game(lands=3)
    p1 = g.players[1]
    p1.cmd_damage = {0: 18}
    g.players[3].cmd_damage = {0: 20, 4: 20}
    refresh(g)
    assert not g.players[3].has_lost
    g.step(g.layout.COMMANDER)
    resolve_stack(g)
    kaelen = g.players[0].creatures[0]               # 3/3 haste first strike
    bear = add_creature(g, 0, "Grove Bear")
    refresh(g)
    # non-combat damage from the commander doesn't count
    assert g.damage(0, ("p", 2), 5, source_name=kaelen.name, source_creature=kaelen) == 5
    assert g.players[2].cmd_damage == {} and g.players[2].life == 35
    declare(g, 0, [(kaelen, 1), (bear, 2)])
    after_combat(g)
    assert p1.cmd_damage == {0: 21} and p1.life == 37 and p1.has_lost
    assert events(g, "loses")[-1]["seat"] == 1
    assert g.players[2].cmd_damage == {} and g.players[2].life == 33 and not g.players[2].has_lost
    assert not g.players[3].has_lost


# ============================================================================= state-based actions (CR 704)
def test_zero_life_loses_and_deal_damage_runs_state_based_actions():
    """CR 704.5a: a player with 0 or less life loses.  `Game.deal_damage(seat, n)`
    (DESIGN section 3) checks state-based actions at once, even while a decision
    is pending."""
    g = game()
    assert g.deal_damage(1, 39) == 39
    assert g.players[1].life == 1 and not g.players[1].has_lost
    assert g.deal_damage(1, 1) == 1
    assert g.players[1].life == 0 and g.players[1].has_lost
    assert [e["seat"] for e in events(g, "loses")] == [1]
    assert g.deal_damage(1, 5) == 0                  # a player who left takes no damage
    g.players[2].life = 3
    g.deal_damage(2, 7)
    assert g.players[2].life == -4 and g.players[2].has_lost
    assert g.current_player == 0 and not g.is_over


def test_deal_damage_to_the_deciding_player_passes_the_decision_on():
    """CR 704.5a with CR 800.4a: if the player who must decide loses, the game
    goes on with the next decision."""
    g = game()
    give_priority(g, 2)
    g.deal_damage(2, 40)
    assert g.players[2].has_lost and g.current_player not in (None, 2)


def test_damage_to_players_and_creatures():
    """CR 120.3a (damage to a player: loses that much life), CR 120.3e (to a
    creature: marked), CR 120.3f / 702.15b (lifelink of the source); `Game.damage`
    returns the damage dealt."""
    g = game()
    bat = add_creature(g, 0, "Bloodfang Bat")
    bear = add_creature(g, 1, "Grove Bear")
    refresh(g)
    assert g.damage(0, ("c", bear), 1, source_name="Bloodfang Bat", source_creature=bat) == 1
    assert bear.damage == 1 and g.players[0].life == 41
    assert g.damage(0, ("p", 1), 3) == 3 and g.players[1].life == 37
    assert g.damage(0, ("p", 1), 0) == 0 and g.players[1].life == 37
    assert g.damage(0, ("c", bear), 1) == 1
    assert bear in g.players[1].creatures              # dies at the next check
    refresh(g)
    assert bear not in g.players[1].creatures
    assert g.damage(0, ("c", bear), 2) == 0           # gone: no damage


def test_drawing_from_an_empty_library_loses_at_the_next_check():
    """CR 704.5b / 121.4: a player who attempted to draw from an empty library
    since the last check loses; an empty library alone doesn't."""
    g = game()
    g.players[1].library = []
    g.players[2].library = []
    g.draw(2, 1)
    assert not g.players[2].has_lost and g.players[2].drew_from_empty
    refresh(g)
    assert g.players[2].has_lost
    assert not g.players[1].has_lost
    pass_priority_until(g, lambda g: g.players[1].has_lost)
    assert g.turn == 2 and g.active == 1
    assert events(g, "loses")[-1]["seat"] == 1


def test_an_empty_library_draw_counts_at_the_next_check_only():
    """CR 704.5b: the attempt counts "since the last time state-based actions
    were checked": a player whose loss was kept from happening at that check
    (an effect says they can't lose) does not lose for it at a later check,
    with no new attempt; a new attempt makes them lose at the next check."""
    g = game()
    p = g.players[2]
    p.library = []
    p.cant_lose = True
    g.draw(2, 1)
    refresh(g)
    assert not p.has_lost and not p.drew_from_empty
    p.cant_lose = False
    refresh(g)
    assert not p.has_lost
    g.draw(2, 1)
    refresh(g)
    assert p.has_lost


def test_lethal_damage_and_zero_toughness_destroy():
    """CR 704.5f (0 or less toughness: put into its owner's graveyard) and
    CR 704.5g (damage at least equal to toughness: destroyed)."""
    g = game()
    hurt = add_creature(g, 1, "Grove Bear")
    scratched = add_creature(g, 1, "Web Weaver")
    shrunk = add_creature(g, 1, "Dune Lion")
    hurt.damage = 2
    scratched.damage = 3
    shrunk.pump_q = -1
    refresh(g)
    assert names(g.players[1].creatures) == ["Web Weaver"]
    assert sorted(names(g.players[1].graveyard)) == ["Dune Lion", "Grove Bear"]


def test_deathtouch_damage_counts_at_the_next_check_only(monkeypatch):
    """CR 704.5h: deathtouch damage counts "since the last time state-based
    actions were checked": a creature that survived the check that found it
    (an effect kept it from being destroyed; the pool has none, a test
    stand-in here) is not destroyed for it at a later check, with no new such
    damage; new deathtouch damage destroys it at the next check."""
    g = game()
    rat = add_creature(g, 0, "Bog Rat")              # 1/1 deathtouch
    troll = add_creature(g, 1, "Thicket Troll")      # 4/3
    refresh(g)
    destroy = Game.destroy
    monkeypatch.setattr(Game, "destroy", lambda self, c: c is not troll and destroy(self, c))
    g.damage(0, ("c", troll), 1, source_creature=rat)
    refresh(g)
    assert troll in g.players[1].creatures and not troll.deathtouched
    monkeypatch.undo()
    refresh(g)
    assert troll in g.players[1].creatures and troll.damage == 1
    g.damage(0, ("c", troll), 1, source_creature=rat)
    refresh(g)
    assert troll not in g.players[1].creatures


def test_legend_rule_lets_the_controller_keep_one():
    """CR 704.5j: two legendary permanents with the same name under one
    controller: the controller chooses one (here the newer), the other goes to
    the graveyard.  Different controllers are fine."""
    g = game()
    old = add_creature(g, 1, "Kaelen, Warband Chief")
    other = add_creature(g, 2, "Kaelen, Warband Chief")
    refresh(g)
    assert old in g.players[1].creatures and other in g.players[2].creatures
    new = add_creature(g, 1, "Kaelen, Warband Chief")
    refresh(g)
    assert g.decision.kind == DecisionKind.KEEP and g.decision.seat == 1
    g.step(g.layout.perm(0, 1))
    assert g.players[1].creatures == [new]
    assert names(g.players[1].graveyard) == ["Kaelen, Warband Chief"]
    assert other in g.players[2].creatures


# ============================================================================= tokens
def test_creature_tokens_from_raise_the_alarm_and_call_the_pack():
    """CR 111.1 / 111.3: token-making spells create creature tokens with the
    given characteristics; CR 111.7 / 704.5d: a token that leaves the battlefield
    goes to no zone."""
    g = game(lands=7, hand=["Raise the Alarm", "Call the Pack"])
    cast(g, 0, "Raise the Alarm")
    resolve_stack(g)
    cast(g, 0, "Call the Pack")
    resolve_stack(g)
    cr = g.players[0].creatures
    assert [(c.name, c.power, c.toughness, c.token) for c in cr] == (
        [("Soldier", 1, 1, True)] * 2 + [("Wolf", 2, 2, True)] * 3)
    assert g.players[0].lands_tapped == 7
    g.destroy(cr[0])
    assert len(cr) == 4 and names(g.players[0].graveyard) == ["Raise the Alarm", "Call the Pack"]


def test_treasure_pays_after_lands():
    """CR 111.10a (Treasure: sacrifice for one mana).  Abstraction: mana is paid
    from the pool, then untapped lands, then Treasures (`Game._pay_mana`)."""
    g = game(lands=1, hand=["Lightning Strike", "Shock"])
    p = g.players[0]
    p.tokens["Treasure"] = 2
    refresh(g)
    assert g.available_mana(0) == 3
    cast(g, 0, "Lightning Strike", [("p", 1)])
    assert p.lands_tapped == 1 and p.tokens["Treasure"] == 1 and g.available_mana(0) == 1
    p.mana_pool, p.lands_tapped = 1, 0
    p.lands, p.tokens["Treasure"] = 2, 2
    assert g.available_mana(0) == 5
    g._pay_mana(0, 2)
    assert (p.mana_pool, p.lands_tapped, p.tokens["Treasure"]) == (0, 1, 2)
    g._pay_mana(0, 2)
    assert (p.mana_pool, p.lands_tapped, p.tokens["Treasure"]) == (0, 2, 1)
    g._pay_mana(0, 1)
    assert p.tokens["Treasure"] == 0 and g.available_mana(0) == 0
    with pytest.raises(AssertionError):
        g._pay_mana(0, 1)


def test_clue_and_food_tokens():
    """CR 111.10f (Clue: {2}, sacrifice: draw a card) and CR 111.10b (Food: {2},
    sacrifice: gain 3 life); the abilities use the stack (CR 602.2)."""
    g = game(lands=2)
    p = g.players[0]
    p.tokens["Clue"] = 1
    p.tokens["Food"] = 1
    refresh(g)
    L = g.layout
    assert {L.TOKEN_AB + TOKEN_AB["Clue"], L.TOKEN_AB + TOKEN_AB["Food"]} <= set(g.legal_actions())
    g.step(L.TOKEN_AB + TOKEN_AB["Clue"])
    assert p.tokens["Clue"] == 0 and p.lands_tapped == 2 and g.stack[-1].key == "Clue"
    assert len(p.hand) == 1
    resolve_stack(g)
    assert names(p.hand) == ["Shock", "Wastes"] and len(p.library) == 29
    assert not g._token_ability_ok(0, "Food", g.available_mana(0), True)     # no mana left
    p.lands_tapped = 0
    refresh(g)
    give_priority(g, 0)
    g.step(L.TOKEN_AB + TOKEN_AB["Food"])
    resolve_stack(g)
    assert p.tokens["Food"] == 0 and p.life == 43 and p.lands_tapped == 2


def test_blood_token_discards_then_draws():
    """CR 111.10g (Blood: {1}, {T}, discard a card, sacrifice: draw a card); the
    discard is a cost chosen by the player.  Not activatable with an empty hand."""
    g = game(lands=2, hand=["Grove Bear", "Shock"])
    p = g.players[0]
    p.tokens["Blood"] = 2
    refresh(g)
    a = g.layout.TOKEN_AB + TOKEN_AB["Blood"]
    g.step(a)
    assert deciding(g, DecisionKind.DISCARD, 0)
    g.step(g.layout.HAND + 0)
    assert names(p.graveyard) == ["Grove Bear"] and p.lands_tapped == 1 and p.tokens["Blood"] == 1
    resolve_stack(g)
    assert names(p.hand) == ["Shock", "Wastes"]
    p.hand = []
    refresh(g)
    assert not g._token_ability_ok(0, "Blood", g.available_mana(0), True)


def test_map_token_explores_at_sorcery_speed():
    """CR 111.10 (the predefined Map token: {1}, {T}, sacrifice: target creature you
    control explores; activate only as a sorcery) and CR 701.40a explore: a land card goes to hand,
    else a +1/+1 counter (documented abstraction: the nonland card stays on top)."""
    g = game(lands=3)
    p = g.players[0]
    p.tokens["Map"] = 2
    bear = add_creature(g, 0, "Grove Bear")
    add_creature(g, 1, "Grove Bear")
    p.library[-1] = cards.card("Grove Bear")
    refresh(g)
    a = g.layout.TOKEN_AB + TOKEN_AB["Map"]
    g.step(a)                                        # only one creature of its own: chosen
    assert g.stack[-1].key == "Map" and g.stack[-1].targets == [("c", bear)]
    assert a not in g.legal_actions()                # not with a non-empty stack
    resolve_stack(g)
    assert bear.p1p1 == 1 and (bear.power, bear.toughness) == (3, 3)
    assert p.library[-1].name == "Grove Bear" and names(p.hand) == ["Shock"]
    assert events(g, "reveal_top")[-1]["card"] == "Grove Bear"
    p.library.pop()                                  # a Wastes on top now
    refresh(g)
    g.step(a)
    resolve_stack(g)
    assert bear.p1p1 == 1 and names(p.hand) == ["Shock", "Wastes"] and p.lands_tapped == 2
    # not on another player's turn, nor in your own end step
    p.tokens["Map"] = 1
    g.players[1].tokens["Map"] = 1
    refresh(g)
    give_priority(g, 1)
    assert g.available_mana(1) == 3 and g.players[1].creatures
    assert a not in g.legal_actions()
    pass_priority_until(g, lambda g: g.phase == "end" and has_priority(0)(g))
    assert g.available_mana(0) == 1 and a not in g.legal_actions()
    assert p.tokens["Map"] == 1



def test_map_ability_does_not_resolve_once_its_target_is_no_longer_a_creature_you_control():
    """CR 608.2b: a target is checked again on resolution against every
    requirement of its "target" word; the Map token's is "target creature you
    control" (CR 111.10).  The creature changes control while the ability is on
    the stack, so its only target is illegal: the ability doesn't resolve,
    nothing explores and no card is revealed."""
    g = game(lands=3)
    p = g.players[0]
    p.tokens["Map"] = 1
    bear = add_creature(g, 0, "Grove Bear")
    refresh(g)
    g.step(g.layout.TOKEN_AB + TOKEN_AB["Map"])
    assert g.stack[-1].key == "Map" and g.stack[-1].targets == [("c", bear)]
    g.gain_control(bear, 2)                          # an effect in response takes the bear
    resolve_stack(g)
    assert bear.controller == 2 and bear.p1p1 == 0
    assert not events(g, "reveal_top") and events(g, "fizzle")[-1]["source"] == "Map"

def test_junk_token_draws_at_sorcery_speed():
    """CR 111.10 (the predefined Junk token: {T}, sacrifice: exile the top card, you may play it this
    turn; activate only as a sorcery).  Documented abstraction: it draws a card."""
    g = game()
    p = g.players[0]
    p.tokens["Junk"] = 1
    g.players[1].tokens["Junk"] = 1
    refresh(g)
    a = g.layout.TOKEN_AB + TOKEN_AB["Junk"]
    assert a in g.legal_actions()
    give_priority(g, 1)                              # another player's turn
    assert a not in g.legal_actions()
    pass_priority_until(g, lambda g: g.phase == "main2" and has_priority(0)(g))
    g.step(a)
    resolve_stack(g)
    assert p.tokens["Junk"] == 0 and names(p.hand) == ["Shock", "Wastes"]
    assert p.lands_tapped == 0


# ============================================================================= mana
def test_mana_pool_empties_between_steps():
    """CR 500.4 / 106.4: unused mana empties from the pool at the end of each step
    and phase."""
    g = game()
    p = g.players[0]
    p.mana_pool = 3
    refresh(g)
    assert g.available_mana(0) == 4 and g.phase == "main1"
    pass_priority_until(g, lambda g: g.phase != "main1")
    assert p.mana_pool == 0 and g.available_mana(0) == 1


# ============================================================================= card effects
def test_rampant_growth_puts_a_land_onto_the_battlefield_tapped():
    """CR 701.23 search / 305.4: Rampant Growth puts a land card from the library
    onto the battlefield tapped; Explosive Vegetation two."""
    lib = ["Wastes"] * 3 + ["Grove Bear"] * 5
    g = game(lands=6, hand=["Rampant Growth", "Explosive Vegetation", "Shock"], library=lib)
    p = g.players[0]
    cast(g, 0, "Rampant Growth")
    resolve_stack(g)
    assert p.lands == 7 and p.lands_tapped == 3
    assert Counter(names(p.library)) == {"Wastes": 2, "Grove Bear": 5}
    cast(g, 0, "Explosive Vegetation")
    resolve_stack(g)
    assert p.lands == 9 and p.lands_tapped == 9
    assert Counter(names(p.library)) == {"Grove Bear": 5}


def test_final_judgment_destroys_every_creature():
    """CR 701.8a: destroy moves each creature to its owner's graveyard; tokens
    cease to exist (CR 704.5d); a commander goes to the command zone (CR 903.9a)."""
    g = game(lands=7, hand=["Final Judgment", "Shock"])
    p = g.players[0]
    g.step(g.layout.COMMANDER)
    resolve_stack(g)
    add_creature(g, 0, "Grove Bear")
    add_creature(g, 1, "Elder Titan")
    g.create_tokens(2, "Wolf", 2)
    refresh(g)
    cast(g, 0, "Final Judgment")
    resolve_stack(g)
    assert all(q.creatures == [] for q in g.players)
    assert names(p.graveyard) == ["Grove Bear", "Final Judgment"]
    assert names(g.players[1].graveyard) == ["Elder Titan"] and g.players[2].graveyard == []
    assert p.commander_zone == "command"


def test_pyroclasm_deals_two_damage_to_each_creature():
    """CR 120.3e: Pyroclasm marks 2 damage on each creature, its caster's too."""
    g = game(lands=2, hand=["Pyroclasm", "Shock"])
    mine = add_creature(g, 0, "Grove Bear")
    weaver = add_creature(g, 1, "Web Weaver")
    lion = add_creature(g, 3, "Dune Lion")
    refresh(g)
    cast(g, 0, "Pyroclasm")
    resolve_stack(g)
    assert mine not in g.players[0].creatures and lion not in g.players[3].creatures
    assert weaver.damage == 2 and weaver in g.players[1].creatures


def test_mind_rot_target_player_chooses_two_discards():
    """CR 701.9b: a player who discards chooses the cards, unless the effect says
    otherwise: Mind Rot asks the target player, once per card."""
    g = game(lands=2, hand=["Mind Rot", "Shock"])
    g.players[1].hand = [cards.card(c) for c in ("Shock", "Grove Bear", "Murder")]
    refresh(g)
    cast(g, 0, "Mind Rot", [("p", 1)])
    pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.DISCARD)
    assert g.decision.seat == 1 and option_actions(g) == {g.layout.HAND + i for i in range(3)}
    g.step(g.layout.HAND + 2)
    assert deciding(g, DecisionKind.DISCARD, 1) and len(g.decision.options) == 2
    g.step(g.layout.HAND + 0)
    assert names(g.players[1].hand) == ["Grove Bear"]
    assert names(g.players[1].graveyard) == ["Murder", "Shock"]
    assert names(g.players[0].hand) == ["Shock"]


def test_frost_lock_taps_and_stuns():
    """CR 701.21a (tap) and CR 122.1d (stun counter): the creature misses its
    controller's next untap step and untaps on the one after."""
    g = game(lands=2, hand=["Frost Lock", "Shock"])
    target = add_creature(g, 1, "War Mammoth")
    refresh(g)
    cast(g, 0, "Frost Lock", [("c", target)])
    resolve_stack(g)
    assert target.tapped and target.stun == 1
    pass_priority_until(g, lambda g: g.active == 1)
    assert target.tapped and target.stun == 0
    assert target not in g._attack_candidates()
    pass_priority_until(g, lambda g: g.active == 1 and g.turn == 7)
    assert not target.tapped


def test_rally_the_troops_pumps_only_your_creatures_until_end_of_turn():
    """CR 611.2c: "creatures you control get +1/+1 until end of turn" affects only
    the caster's creatures on the battlefield as it resolves; it ends at cleanup
    (CR 514.2)."""
    g = game(lands=5, hand=["Rally the Troops", "Grove Bear", "Shock"])
    mine = add_creature(g, 0, "Grove Bear")
    token = g.create_creature_token(0, "Soldier")[0]
    theirs = add_creature(g, 1, "Grove Bear")
    refresh(g)
    cast(g, 0, "Rally the Troops")
    resolve_stack(g)
    cast(g, 0, "Grove Bear")
    resolve_stack(g)
    later = g.players[0].creatures[-1]
    assert [(c.power, c.toughness) for c in (mine, token, theirs, later)] == [(3, 3), (2, 2), (2, 2), (2, 2)]
    pass_priority_until(g, lambda g: g.active == 1)
    assert (mine.power, token.power) == (2, 1)


def test_mossback_hydra_enters_with_two_counters():
    """CR 122.1a / 614.1c: Mossback Hydra (3/3) enters with two +1/+1 counters
    (documented abstraction: the counters come from an enters trigger)."""
    g = game(lands=5, hand=["Mossback Hydra", "Shock"])
    cast(g, 0, "Mossback Hydra")
    resolve_stack(g)
    hydra = g.players[0].creatures[0]
    assert hydra.p1p1 == 2 and (hydra.power, hydra.toughness) == (5, 5)
    assert [e["source"] for e in events(g, "resolve")] == ["Mossback Hydra", "Mossback Hydra"]


def test_flame_adept_chooses_its_target_as_the_trigger_goes_on_the_stack():
    """CR 603.3d: the target of an enters-the-battlefield trigger is chosen when
    it is put on the stack, after the creature spell resolved; the trigger then
    uses the stack (CR 603.3)."""
    g = game(lands=3, hand=["Flame Adept", "Shock"])
    cast(g, 0, "Flame Adept")
    assert [it.source for it in g.stack] == ["Flame Adept"]
    assert g.stack[-1].targets == []                 # the creature spell itself has none
    pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.TARGET)
    assert g.decision.seat == 0 and g.stack == []
    adept = g.players[0].creatures[0]
    assert g.target_action(0, ("c", adept)) in option_actions(g)
    g.step(g.target_action(0, ("p", 4)))
    assert g.stack[-1].key == "etb" and g.stack[-1].targets == [("p", 4)]
    resolve_stack(g)
    assert g.players[4].life == 38


# ============================================================================= card pool and decks
def test_preset_decks_are_99_cards_plus_a_legendary_commander():
    """CR 903.5a (a Commander deck is 100 cards including the commander) and
    CR 903.3 (the commander is a legendary creature).  Documented abstraction:
    not singleton.  Every seat's library starts with 99 - 7 cards."""
    assert sorted(cards.DECKS) == ["aggro", "control", "ramp", "tokens"]
    for name in cards.DECKS:
        cmd, lib = cards.deck_list(name)
        assert len(lib) == 99 and cmd.legendary and cmd.is_creature
    g = Game(GameConfig(num_players=4, decks=["aggro", "control", "ramp", "tokens"]), seed=1)
    assert [len(p.library) + len(p.hand) for p in g.players] == [99] * 4
    assert all(p.commander_zone == "command" and p.commander.legendary for p in g.players)


def test_card_pool_size_and_creature_curve():
    """DESIGN section 2: a pool rich enough for real choices: at least 40
    distinct cards and creatures at every mana value from 1 to 7; planeswalkers
    (CR 306) are the one noncreature permanent card type."""
    assert len({c.name for c in cards.CARDS}) == len(cards.CARDS) >= 40
    curve = {c.cost for c in cards.CARDS if c.is_creature}
    assert set(range(1, 8)) <= curve
    assert {c.type for c in cards.CARDS} == {"land", "creature", "planeswalker", "instant", "sorcery"}


def test_a_creature_whose_control_changed_this_turn_cannot_attack_without_haste():
    """CR 302.6: a creature can attack only if its controller has controlled it
    continuously since their most recent turn began.  Gained on its new
    controller's own turn it can't attack until their next turn; gained on
    another player's turn it can attack on the new controller's next turn."""
    g = game()
    bear = add_creature(g, 1, "Grove Bear")
    lion = add_creature(g, 2, "Dune Lion")
    g.gain_control(bear, 0)                     # seat 0's own turn
    refresh(g)
    assert bear.controller == 0 and bear not in g._attack_candidates()
    pass_priority_until(g, lambda g: g.active == 1 and g.phase == "main1")
    g.gain_control(lion, 0)                     # another player's turn
    pass_priority_until(g, lambda g: deciding(g, DecisionKind.ATTACKER, 0))
    assert {bear, lion} <= set(g._attack_candidates())
