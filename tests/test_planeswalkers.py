"""Planeswalkers, the first kind of attackable permanent (CR 306, 506.3,
508.1b, 606, 120.3c, 704.5i, 800.4a): casting, loyalty abilities, attacks on
them, damage to them, state-based actions, leaving the game, replays, the
observation and the action layout.

Scenarios use 5 players (``identity_helpers.deal5``: seat 0 the face-up
Leader, 1 a Guardian, 2 and 3 Assassins, 4 a Traitor; face-down players are
everyone's opponents, CR 907.7g) from the Leader's first main phase.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from treachery_env import GameConfig, cards
from treachery_env.actions import MAX_WALKERS, N_LOYALTY_ABILITIES, ActionLayout
from treachery_env.cards import WALKER_CARDS
from treachery_env.engine import Attackable, DecisionKind, Game
from treachery_env.observation import WALKER_FEATURES, encode, obs_layout
from treachery_env.text import format_event

from identity_helpers import at_main, cast, creature, deal5, give_priority, hand, is_priority, pass_until, resolve_all
from test_fuzz import check_invariants, check_result

PYRA, ORLA, MAREN = "Pyra, Storm Sage", "Orla, Pack Warden", "Maren, Dawn Herald"


def walker(g: Game, seat: int, name: str = PYRA, owner: int | None = None, loyalty: int | None = None) -> Attackable:
    """Put planeswalker ``name`` onto the battlefield under ``seat`` (scenario set-up)."""
    w = g.put_planeswalker_onto_battlefield(seat, cards.card(name), owner=owner)
    if loyalty is not None:
        w.loyalty = loyalty
    return w


def game() -> Game:
    return at_main(deal5())


def to_decision(g: Game, kind: int, seat: int) -> None:
    """PASS until ``seat`` must make a ``kind`` decision."""
    pass_until(g, lambda g: g.decision is not None and g.decision.kind == kind and g.decision.seat == seat)


def attack_with(g: Game, c, target) -> None:
    """Seat 0 declares ``c`` attacking ``target`` (a seat or an Attackable), then finishes."""
    to_decision(g, DecisionKind.ATTACKER, 0)
    g.step(g.target_action(0, ("c", c)))
    if isinstance(target, Attackable):
        g.step(g.attackable_action(0, target))
    else:
        g.step(g.layout.PLAYER + g.rel(0, target))
    g.step(g.layout.PASS)


def after_combat(g: Game) -> None:
    pass_until(g, lambda g: g.phase in ("combat_end", "main2"))


# ---------------------------------------------------------------------------- the data and the layout
def test_pool_has_three_planeswalkers_in_the_preset_decks():
    """Three Magic-lite planeswalkers (CR 306): printed loyalty (CR 306.5b) and
    loyalty abilities (CR 606) as data; each preset deck still has 99 cards."""
    assert [c.name for c in WALKER_CARDS] == [PYRA, ORLA, MAREN]
    assert [(c.cost, c.loyalty, [a["loyalty"] for a in c.abilities]) for c in WALKER_CARDS] == [
        (4, 4, [1, -2, -5]), (3, 3, [1, -2]), (5, 5, [1, -3, -7])]
    in_decks = {name: {k for k, d in cards.DECKS.items() if name in d["cards"]} for name in (PYRA, ORLA, MAREN)}
    assert in_decks == {PYRA: {"aggro"}, ORLA: {"tokens", "ramp"}, MAREN: {"control", "ramp"}}
    for k in cards.DECKS:
        assert len(cards.deck_list(k)[1]) == 99


@pytest.mark.parametrize("n", [4, 5, 8])
def test_walker_and_loyalty_blocks_decode(n):
    """WALKER ((n + 1) x MAX_WALKERS: relative seat x slot, row n reserved for
    uncontrolled attackable permanents) and LOYALTY (slot x ability) sit
    between CHOICE and TALK; each index decodes back to its seat/slot."""
    L = ActionLayout(n)
    assert L.LOYALTY - L.WALKER == (n + 1) * MAX_WALKERS and L.TALK - L.LOYALTY == MAX_WALKERS * N_LOYALTY_ABILITIES
    for r in range(n + 1):
        for j in range(MAX_WALKERS):
            assert L.decode(L.walker(r, j)) == ("WALKER", r, j)
    assert L.decode(L.loyalty(3, 2)) == ("LOYALTY", 3, 2)
    with pytest.raises(ValueError, match="slot"):
        L.walker(0, MAX_WALKERS)
    with pytest.raises(ValueError, match="ability"):
        L.loyalty(0, N_LOYALTY_ABILITIES)


# ---------------------------------------------------------------------------- casting
def test_cast_planeswalker_at_sorcery_timing_enters_with_loyalty():
    """A planeswalker spell is cast at sorcery timing only (CR 307.1 by way of
    CR 306: not an instant, no flash) and enters with its printed loyalty
    (CR 306.5b) under its caster's control; the card leaves the hand."""
    g = game()
    hand(g, 0, PYRA, "Shock", "Shock")
    g.players[0].lands = 7
    give_priority(g, 0)
    pyra = g.layout.HAND + 0
    assert pyra in g.legal_actions()
    cast(g, 0, "Shock")
    g.step(g.layout.PLAYER + 2)                     # Shock targets seat 2
    assert g.stack and g.decision.seat == 0 and is_priority(g)
    assert pyra not in g.legal_actions()            # a spell on the stack: not sorcery timing
    resolve_all(g)
    give_priority(g, 0)
    cast(g, 0, PYRA)
    resolve_all(g)
    [w] = g.players[0].attackables
    assert (w.kind, w.name, w.loyalty, w.owner, w.controller) == ("planeswalker", PYRA, 4, 0, 0)
    assert [c.name for c in g.players[0].hand] == ["Shock"] and PYRA not in [c.name for c in g.players[0].graveyard]
    assert g.players[0].untapped_lands == 7 - 1 - 4


def test_planeswalker_not_castable_on_another_players_turn():
    """CR 307.1: seat 2 holds priority during seat 0's turn and can't cast its planeswalker."""
    g = game()
    hand(g, 2, ORLA, "Shock")
    g.players[2].lands = 5
    give_priority(g, 2)
    assert g.layout.HAND + 1 in g.legal_actions() and g.layout.HAND + 0 not in g.legal_actions()


# ---------------------------------------------------------------------------- loyalty abilities
def test_loyalty_ability_once_per_turn_at_sorcery_timing():
    """CR 606.3: one loyalty ability of a planeswalker per turn, at sorcery
    timing; CR 606.4: the cost (+1) is paid on activation; CR 606.6: the -5
    can't be activated with 4 loyalty.  The +1 draws on resolution.  On a
    later turn it may be activated again."""
    g = game()
    w = walker(g, 0, PYRA)
    give_priority(g, 0)
    L = g.layout
    legal = g.legal_actions()
    assert L.loyalty(0, 0) in legal and L.loyalty(0, 1) in legal and L.loyalty(0, 2) not in legal
    before = len(g.players[0].hand)
    g.step(L.loyalty(0, 0))
    assert w.loyalty == 5 and w.used_turn == g.turn
    assert g.stack and g.stack[-1].key == "loyalty"
    assert not any(L.LOYALTY <= a < L.TALK for a in g.legal_actions())       # stack not empty
    resolve_all(g)
    assert len(g.players[0].hand) == before + 1
    give_priority(g, 0)
    assert not any(L.LOYALTY <= a < L.TALK for a in g.legal_actions())       # used this turn
    g.turn += 1                                                               # a later turn
    give_priority(g, 0)
    assert L.loyalty(0, 2) in g.legal_actions()                               # 5 loyalty now
    ev = [e for e in g.log if e["event"] == "loyalty"]
    assert ev[-1]["cost"] == 1 and ev[-1]["loyalty"] == 5
    assert format_event(ev[-1]) == f"P0 activates {PYRA} (+1, loyalty now 5)"


def test_loyalty_abilities_not_on_another_players_turn():
    """CR 606.3: sorcery timing means only during its controller's main phase."""
    g = game()
    walker(g, 2, PYRA)
    hand(g, 2, "Shock")
    g.players[2].lands = 1
    give_priority(g, 2)
    assert not any(g.layout.LOYALTY <= a < g.layout.TALK for a in g.legal_actions())


def test_minus_ability_needs_enough_loyalty_and_resolves_after_the_walker_dies():
    """CR 606.6: a -2 needs 2 loyalty.  Paid down to 0, the planeswalker goes
    to its owner's graveyard (CR 704.5i) while the ability stays on the stack
    and resolves (CR 113.7a): 3 damage to the target."""
    g = game()
    w = walker(g, 0, PYRA, loyalty=1)
    give_priority(g, 0)
    L = g.layout
    assert L.loyalty(0, 1) not in g.legal_actions() and L.loyalty(0, 0) in g.legal_actions()
    w.loyalty = 2
    give_priority(g, 0)
    life = g.players[3].life
    g.step(L.loyalty(0, 1))
    g.step(L.PLAYER + g.rel(0, 3))
    assert g.players[0].attackables == [] and PYRA in [c.name for c in g.players[0].graveyard]
    resolve_all(g)
    assert g.players[3].life == life - 3


def test_minus_ability_targets_a_creature_only_where_it_says_creature():
    """Maren's -3 "destroy target creature" (CR 115.4: "creature" excludes
    planeswalkers): with only an opposing planeswalker and no creature on the
    battlefield it can't be activated; with a creature it destroys it."""
    g = game()
    walker(g, 0, MAREN)
    walker(g, 2, PYRA)
    give_priority(g, 0)
    L = g.layout
    assert L.loyalty(0, 1) not in g.legal_actions()
    bear = creature(g, 2, "Grove Bear")
    give_priority(g, 0)
    g.step(L.loyalty(0, 1))
    resolve_all(g)
    assert bear not in g.players[2].creatures and g.players[0].attackables[0].loyalty == 2


# ---------------------------------------------------------------------------- attacks
def test_attack_planeswalker_unblocked_damage_removes_loyalty():
    """CR 506.3, 508.1b: an attacker may attack a planeswalker an opponent
    controls (its controller is the defending player); unblocked combat damage
    to it removes loyalty counters (CR 120.3c), not life, and counts as harm to
    its controller (not as an attack on them); deathtouch means nothing to it
    (CR 702.2b)."""
    g = game()
    bear = creature(g, 0, "Grove Bear")
    rat = creature(g, 0, "Bog Rat")
    w = walker(g, 2, PYRA)
    life = [p.life for p in g.players]
    to_decision(g, DecisionKind.ATTACKER, 0)
    g.step(g.target_action(0, ("c", bear)))
    d = g.decision
    assert d.kind == DecisionKind.DEFENDER and g.attackable_action(0, w) in g.legal_actions()
    assert "attacks Pyra, Storm Sage (P2's planeswalker, loyalty 4)" in g.describe_action(g.attackable_action(0, w))
    g.step(g.attackable_action(0, w))
    assert (bear.attacking, bear.attacking_obj) == (2, w)
    g.step(g.target_action(0, ("c", rat)))
    g.step(g.attackable_action(0, w))
    g.step(g.layout.PASS)
    view = g.view(3)
    assert view.players[2].planeswalkers[0].attackers == (bear.uid, rat.uid)
    assert g.attacks[0][2] == 0                  # not an attack on the player (CR 506.3)
    after_combat(g)
    assert w.loyalty == 4 - 2 - 1 and [p.life for p in g.players] == life and g.harm[0][2] == 3
    dmg = [e for e in g.log if e["event"] == "combat_damage"][-1]
    assert dmg["to_planeswalkers"] == {str(w.uid): 3} and dmg["to_players"] == {}


def test_planeswalker_controller_blocks_and_dies_at_zero_loyalty():
    """CR 509.1a: the defending player (the planeswalker's controller) declares
    blockers for it; other players are not asked.  An attacker whose damage
    takes it to 0 loyalty puts it into its owner's graveyard (CR 704.5i)."""
    g = game()
    troll = creature(g, 0, "Thicket Troll")
    bear = creature(g, 0, "Grove Bear")
    w = walker(g, 2, ORLA, loyalty=2)
    blocker = creature(g, 2, "Web Weaver")       # 1/4
    creature(g, 3, "Web Weaver")                 # seat 3 could block but isn't attacked
    to_decision(g, DecisionKind.ATTACKER, 0)
    for c in (troll, bear):
        g.step(g.target_action(0, ("c", c)))
        g.step(g.attackable_action(0, w))
    g.step(g.layout.PASS)
    asked = []
    for _ in range(200):
        d = g.decision
        if d.kind == DecisionKind.BLOCKER:
            asked.append(d.seat)
            if d.seat == 2 and blocker.blocking is None:
                g.step(g.target_action(2, ("c", blocker)))
                if g.decision.kind == DecisionKind.BLOCKED:
                    g.step(g.target_action(2, ("c", troll)))
                continue
        if g.phase in ("combat_end", "main2"):
            break
        g.step(g.layout.PASS)
    assert set(asked) == {2} and blocker.blocking is troll
    # Troll (4, trample) assigns 4 to the 1/4 blocker (lethal), none beyond; the Bear's 2 take Orla to 0
    assert w not in g.players[2].attackables and ORLA in [c.name for c in g.players[2].graveyard]
    assert blocker not in g.players[2].creatures


def test_trample_over_a_blocker_assigns_the_excess_to_the_planeswalker():
    """CR 702.19c (and 510.1c-d): a trampler blocked while attacking a
    planeswalker assigns lethal damage to its blocker and the rest to the
    planeswalker; lifelink gains life for damage to a planeswalker (CR 702.15b)."""
    g = game()
    troll = creature(g, 0, "Thicket Troll")       # 4/3 trample
    bat = creature(g, 0, "Bloodfang Bat")         # 1/2 flying lifelink
    w = walker(g, 2, MAREN)                       # loyalty 5
    lion = creature(g, 2, "Dune Lion")            # 2/1
    life0 = g.players[0].life
    to_decision(g, DecisionKind.ATTACKER, 0)
    for c in (troll, bat):
        g.step(g.target_action(0, ("c", c)))
        g.step(g.attackable_action(0, w))
    g.step(g.layout.PASS)
    to_decision(g, DecisionKind.BLOCKER, 2)
    g.step(g.target_action(2, ("c", lion)))
    if g.decision.kind == DecisionKind.BLOCKED:
        g.step(g.target_action(2, ("c", troll)))
    after_combat(g)
    assert lion not in g.players[2].creatures
    assert w.loyalty == 5 - 3 - 1 and g.players[2].life == 40
    assert g.players[0].life == life0 + 1


def test_attacks_on_a_leaders_planeswalker_under_the_golem():
    """The Golem makes Leader players unattackable; its planeswalkers still
    can be attacked (CR 506.3: a planeswalker is attacked on its own; the
    restriction names the player).  Design choice, docs/fidelity.md."""
    g = game()
    w = walker(g, 0, PYRA)
    g._statics.add("leaders_unattackable")
    g.active = 2
    assert not g.can_attack(2, 0) and g.can_attack_object(2, w)
    assert not g.can_attack_object(0, w)              # never your own
    assert g.attackable_objects(2) == [w]


def test_attacker_of_a_planeswalker_that_left_deals_no_damage():
    """CR 506.4: a planeswalker removed from combat (destroyed before damage)
    leaves its attackers attacking but they deal no combat damage."""
    g = game()
    bear = creature(g, 0, "Grove Bear")
    w = walker(g, 2, PYRA)
    attack_with(g, bear, w)
    g.destroy(w)
    life = [p.life for p in g.players]
    after_combat(g)
    assert [p.life for p in g.players] == life and PYRA in [c.name for c in g.players[2].graveyard]


# ---------------------------------------------------------------------------- targets
def test_burn_to_any_target_hits_planeswalkers_creature_spells_cannot():
    """CR 115.4: "any target" includes planeswalkers (damage removes loyalty,
    CR 120.3c, and 0 loyalty sends it to the graveyard, CR 704.5i); "target
    creature" (Murder) has no planeswalker candidate."""
    g = game()
    w = walker(g, 2, PYRA)
    hand(g, 0, "Shock", "Murder", "Lightning Strike")
    g.players[0].lands = 6
    give_priority(g, 0)
    L = g.layout
    assert L.HAND + 1 not in g.legal_actions()          # Murder: no creature to target
    assert ("w", w) in g.target_candidates(0, {"type": "any"})
    assert ("w", w) not in g.target_candidates(0, {"type": "creature"})
    cast(g, 0, "Shock")
    assert g.attackable_action(0, w) in g.legal_actions()
    g.step(g.attackable_action(0, w))
    view = g.view(1)
    assert view.stack[-1].targets == (("planeswalker", w.uid),)
    resolve_all(g)
    assert w.loyalty == 2 and g.players[2].life == 40 and g.harm[0][2] == 2
    give_priority(g, 0)
    cast(g, 0, "Lightning Strike")
    g.step(g.attackable_action(0, w))
    resolve_all(g)
    assert g.players[2].attackables == [] and PYRA in [c.name for c in g.players[2].graveyard]


def test_board_wipes_do_not_hit_planeswalkers():
    """Final Judgment ("destroy all creatures") and Pyroclasm (2 damage to each
    creature) affect creatures only: a planeswalker is not a creature (CR 306)."""
    g = game()
    w = walker(g, 2, ORLA)
    creature(g, 2, "Grove Bear")
    hand(g, 0, "Pyroclasm", "Final Judgment")
    g.players[0].lands = 6
    give_priority(g, 0)
    cast(g, 0, "Pyroclasm")
    resolve_all(g)
    give_priority(g, 0)
    cast(g, 0, "Final Judgment")
    resolve_all(g)
    assert g.players[2].attackables == [w] and w.loyalty == 3 and g.players[2].creatures == []


def test_permanent_targets_per_card():
    """"Nonland permanent" targets include planeswalkers only where the card
    is implemented to (``"walkers": True``: The Grenadier's destroy mode);
    The Cathar's and others' stay creatures (docs/fidelity.md)."""
    g = game()
    w = walker(g, 2, PYRA)
    assert ("w", w) in g.target_candidates(4, {"type": "nonland_permanent", "walkers": True})
    assert ("w", w) not in g.target_candidates(4, {"type": "nonland_permanent"})
    from treachery_env.identity_cards.traitors import _GRENADIER_PERMANENT, _grenadier_explode
    from treachery_env.engine import StackItem
    it = StackItem(g._new_uid(), "ability", 4, source="The Grenadier")
    it.targets, it.target_specs = [("w", w)], [_GRENADIER_PERMANENT]
    _grenadier_explode(g, it)
    assert g.players[2].attackables == [] and PYRA in [c.name for c in g.players[2].graveyard]


# ---------------------------------------------------------------------------- leaving the game
def test_owner_leaves_the_game_with_their_planeswalker():
    """CR 800.4a: a planeswalker its owner owns leaves the game with them (no
    graveyard, no exile), also when another player controls it."""
    g = game()
    walker(g, 2, PYRA)
    stolen = walker(g, 3, ORLA, owner=2)         # owned by 2, controlled by 3
    g.lose(2)
    assert g.players[2].has_lost and g.players[2].attackables == [] and g.players[3].attackables == []
    assert all(c.name not in (PYRA, ORLA) for p in g.players for c in p.graveyard + p.exile)
    assert stolen.owner == 2
    check_invariants(g)


def test_controller_leaves_planeswalker_of_another_is_exiled():
    """CR 800.4a: a planeswalker a leaving player controls but another owns
    (cast from that player's zone) is exiled to its owner's exile; creatures
    attacking the leaver's planeswalker are removed from combat."""
    g = game()
    w = walker(g, 2, MAREN, owner=3)
    bear = creature(g, 0, "Grove Bear")
    attack_with(g, bear, w)
    assert bear in g.combat_attackers
    g.lose(2)
    assert g.players[2].attackables == [] and MAREN in [c.name for c in g.players[3].exile]
    assert bear not in g.combat_attackers and bear.attacking == -1 and bear.attacking_obj is None
    check_invariants(g)


# ---------------------------------------------------------------------------- observation, views, text
def test_observation_and_views_show_planeswalkers_to_everyone():
    """Planeswalkers are public (CR 400.2): every seat sees the same slot
    (present, kind, card, loyalty / 10, used this turn) in the row of the
    controller's relative seat; the views list them; the text shows them."""
    g = game()
    w = walker(g, 2, ORLA)
    n = g.n
    L = obs_layout(n)
    k = WALKER_CARDS.index(cards.card(ORLA))
    for viewer in range(n):
        o = encode(g, viewer)
        q = L.walkers + g.rel(viewer, 2) * MAX_WALKERS * WALKER_FEATURES
        assert o[q] == 1.0 and o[q + 1] == 1.0                     # present, kind planeswalker
        assert o[q + 4 + k] == 1.0
        assert o[q + 4 + len(WALKER_CARDS)] == pytest.approx(0.3)  # loyalty 3 / 10
        v = g.view(viewer)
        [pv] = v.players[2].planeswalkers
        assert (pv.uid, pv.name, pv.loyalty, pv.used_this_turn, pv.controller) == (w.uid, ORLA, 3, False, 2)
        assert pv.abilities[1] == (-2, "-2: put two +1/+1 counters on target creature")
    assert "planeswalkers: Orla, Pack Warden (loyalty 3)" in g.render_text(0)
    assert encode(g, 0).shape == (L.size,)


def test_option_views_for_loyalty_attack_and_target():
    """The bots' OptionView names the planeswalker an option activates
    (``"loyalty"``), attacks (``"attack_planeswalker"``) or targets."""
    g = game()
    w = walker(g, 0, PYRA)
    give_priority(g, 0)
    opts = {o.action: o for o in g.view(0).decision.options}
    o = opts[g.layout.loyalty(0, 1)]
    assert (o.kind, o.planeswalker, o.ability, o.card) == ("loyalty", w.uid, 1, PYRA)
    assert o.text == f"activate {PYRA} (loyalty 4): -2: 3 damage to any target"
    enemy = walker(g, 3, ORLA)
    bear = creature(g, 0, "Grove Bear")
    to_decision(g, DecisionKind.ATTACKER, 0)
    g.step(g.target_action(0, ("c", bear)))
    opts = {o.action: o for o in g.view(0).decision.options}
    o = opts[g.attackable_action(0, enemy)]
    assert (o.kind, o.planeswalker, o.player) == ("attack_planeswalker", enemy.uid, 3)


# ---------------------------------------------------------------------------- determinism
def _walker_game(seed: int) -> Game:
    """A random game with the preset decks that have planeswalkers (aggro,
    tokens, control, ramp), played to its end."""
    cfg = GameConfig(num_players=4, decks=["aggro", "tokens", "control", "ramp"], max_turns=30)
    g = Game(cfg, seed=seed)
    rng = random.Random(seed)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    return g


def test_clone_and_replay_are_deterministic_with_planeswalkers():
    """Game.clone is a deep copy (planeswalkers included) and a replay of a
    game where planeswalkers were cast and used gives the same digest."""
    for seed in range(40):
        g = _walker_game(seed)
        if any(e["event"] == "loyalty" for e in g.log):
            break
    else:  # pragma: no cover
        pytest.fail("no random game used a loyalty ability")
    h = Game.from_json(g.to_json())
    assert h.digest() == g.digest() and h.actions == g.actions
    # clone mid-game: both copies continue identically
    cfg = GameConfig(num_players=4, decks=["aggro", "tokens", "control", "ramp"], max_turns=30)
    a = Game(cfg, seed=seed)
    for x in g.actions[: len(g.actions) // 2]:
        a.step(x)
    b = a.clone()
    ws_a = [w for p in a.players for w in p.attackables]
    ws_b = [w for p in b.players for w in p.attackables]
    assert [(w.uid, w.loyalty) for w in ws_a] == [(w.uid, w.loyalty) for w in ws_b]
    assert all(x is not y for x, y in zip(ws_a, ws_b))
    for x in g.actions[len(g.actions) // 2:]:
        a.step(x)
        b.step(x)
    assert a.digest() == b.digest() == g.digest()


def test_fuzz_with_planeswalkers_in_hand_keeps_invariants():
    """150 random games at 4-6 players where every seat starts with each
    planeswalker in hand and 8 lands: invariants hold at every step
    (planeswalkers have positive loyalty between decisions, CR 704.5i; each
    is in its controller's list; none belongs to a player who left) and the
    results are consistent; planeswalkers are cast, used and attacked."""
    seen = {"enters": 0, "loyalty": 0, "attacked": 0, "died": 0}
    for seed in range(150):
        n = 4 + seed % 3
        g = Game(GameConfig(num_players=n, max_turns=25, identity_pool="all"), seed=seed)
        rng = random.Random(seed)
        for p in g.players:
            p.hand += [cards.card(PYRA), cards.card(ORLA), cards.card(MAREN)]
            p.lands = 8
        g._advance()
        while not g.is_over:
            check_invariants(g)
            for p in g.players:
                for w in p.attackables:
                    assert w.controller == p.seat and w.loyalty > 0 and not g.players[w.owner].has_lost
            if rng.random() < 0.05:
                o = g.observation(g.current_player)["observation"]
                assert np.isfinite(o).all()
                assert sorted(g.view(g.current_player).decision.actions()) == g.legal_actions()
            g.step(rng.choice(g.legal_actions()))
        check_invariants(g)
        check_result(g)
        for e in g.log:
            if e["event"] == "enters" and "planeswalker" in e:
                seen["enters"] += 1
            elif e["event"] == "loyalty":
                seen["loyalty"] += 1
            elif e["event"] == "attacks":
                seen["attacked"] += sum(len(a) > 3 for a in e["attackers"])
            elif e["event"] == "leaves" and "planeswalker" in e and e["zone"] == "graveyard":
                seen["died"] += 1
    assert all(v > 20 for v in seen.values()), seen


# ---------------------------------------------------------------------------- bots
def _bot_action(bot, g: Game) -> int:
    seat = g.current_player
    return bot.act(g.observation(seat), {"view": g.view(seat)})


def test_heuristic_burns_a_planeswalker_it_can_kill():
    """The heuristic aims Shock (2 damage, any target, CR 115.4) at a revealed
    Assassin's planeswalker with 2 loyalty rather than at the Assassin at 40 life."""
    from agents.heuristic import HeuristicAgent
    g = game()
    w = walker(g, 2, PYRA, loyalty=2)
    g.players[2].identity.face_up = True               # a revealed Assassin: the Leader's enemy
    hand(g, 0, "Shock")
    give_priority(g, 0)
    cast(g, 0, "Shock")
    assert g.decision.kind == DecisionKind.TARGET
    bot = HeuristicAgent(seed=0)
    bot.reset(0)
    assert _bot_action(bot, g) == g.attackable_action(0, w)


def test_heuristic_attacks_a_planeswalker_low_enough_to_die():
    """With nothing able to block, the heuristic sends its 2-power creature at
    the revealed Assassin's 2-loyalty planeswalker (CR 506.3) instead of the player."""
    from agents.heuristic import HeuristicAgent
    g = game()
    bear = creature(g, 0, "Grove Bear")
    w = walker(g, 2, ORLA, loyalty=2)
    g.players[2].identity.face_up = True
    bot = HeuristicAgent(seed=0)
    bot.reset(0)
    to_decision(g, DecisionKind.ATTACKER, 0)
    a = _bot_action(bot, g)
    assert a == g.target_action(0, ("c", bear))
    g.step(a)
    assert g.decision.kind == DecisionKind.DEFENDER
    assert _bot_action(bot, g) == g.attackable_action(0, w)


def test_heuristic_casts_uses_and_attacks_planeswalkers_in_games():
    """In 20 heuristic games with the preset decks that have planeswalkers, the
    bots cast them, activate loyalty abilities (CR 606) and attack enemy ones."""
    import agents
    from treachery_env.env import raw_env
    seen = {"cast": 0, "loyalty": 0, "attacked": 0}
    for seed in range(20):
        env = raw_env(config=GameConfig(num_players=4, decks=["aggro", "tokens", "control", "ramp"], max_turns=40))
        env.reset(seed=seed)
        bots = [agents.make("heuristic", seed=s) for s in range(4)]
        for s, b in enumerate(bots):
            b.reset(s)
        for _ in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            env.step(None if term or trunc else bots[env.game.current_player].act(obs, info))
        for e in env.game.log:
            seen["cast"] += e["event"] == "enters" and "planeswalker" in e
            seen["loyalty"] += e["event"] == "loyalty"
            if e["event"] == "attacks":
                seen["attacked"] += sum(len(a) > 3 for a in e["attackers"])
    assert seen["cast"] >= 10 and seen["loyalty"] >= 10 and seen["attacked"] >= 5, seen


def test_ismcts_determinize_rebuilds_planeswalkers():
    """Planeswalkers are public (CR 400.2): a determinized game has the same
    ones (uid, card, owner, loyalty, used this turn) and the same attacks on
    them, so the seat's view and observation match the real game's."""
    from agents.ismcts import determinize
    g = game()
    bear = creature(g, 0, "Grove Bear")
    w = walker(g, 2, PYRA)
    mine = walker(g, 0, ORLA)
    give_priority(g, 0)
    g.step(g.layout.loyalty(0, 0))                    # Orla +1: used this turn
    resolve_all(g)
    attack_with(g, bear, w)
    view = g.view(3)
    h = determinize(view, random.Random(0), observation=g.observation(3))
    assert h.view(3).players == view.players
    [hw] = h.players[2].attackables
    assert (hw.uid, hw.name, hw.loyalty, hw.owner) == (w.uid, PYRA, 4, 2)
    assert h.players[0].attackables[0].used_turn == g.turn and mine.used_turn == g.turn
    hb = next(c for c in h.players[0].creatures if c.uid == bear.uid)
    assert hb.attacking_obj is hw and hb in h.combat_attackers
