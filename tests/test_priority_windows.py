"""Priority windows (CR 500-514, 117): with ``priority_windows="full"`` (the
default) players get priority in every step that has it, in turn order from the
active player, and the stack resolves in each; ``"main"`` keeps the engine's
earlier, smaller set of windows.  Instants and unveils therefore happen where
Treachery's bluffs happen: in upkeep, at the beginning of combat, after blocks,
at end of turn."""

from __future__ import annotations

import json

import numpy as np
import pytest

from treachery_env.config import GameConfig
from treachery_env.engine import REPLAY_VERSION, DecisionKind, Game

from identity_helpers import resolve_all
from scenario import PASS, add_creature, attack, has_priority, make_game, pass_priority_until

IDS = ["The Blood Empress", "The Bodyguard", "The Ambitious Queen", "The Beastmaster", "The Banisher"]
WINDOWS = ["upkeep", "draw", "main1", "combat_begin", "declare_attackers", "combat_end", "main2", "end"]


def _priority_trace(g: Game, until) -> list[tuple[str, int]]:
    """(step, seat) of every priority decision shown while passing until ``until(g)``."""
    out = []
    for _ in range(2000):
        if until(g):
            return out
        d = g.decision
        if d.kind == DecisionKind.PRIORITY:
            out.append((g.phase, d.seat))
        g.step(PASS)
    raise AssertionError("condition not reached")


def _next_turn_of(seat: int):
    return lambda g: g.active == seat and g.phase == "upkeep"


def test_every_step_with_priority_gets_a_window_in_turn_order():
    """CR 503.1, 504.2, 505.5, 507.2, 508.2, 511.2, 513.2: the active player gets
    priority in upkeep, draw, both main phases, beginning of combat, declare
    attackers (even when nothing attacks), end of combat and the end step; never in
    untap (CR 502.4) or cleanup (CR 514.3).  With no attackers the declare blockers
    and combat damage steps are skipped (CR 508.8).  In each window priority goes
    round in turn order from the active player (CR 117.3a, 117.3d), and the step
    ends once all pass in succession with an empty stack (CR 117.4)."""
    g = make_game(IDS)           # every seat: 1 land and a Shock, so each one is asked
    pass_priority_until(g, _next_turn_of(1))
    trace = _priority_trace(g, _next_turn_of(2))
    steps = [s for s, _ in trace]
    assert list(dict.fromkeys(steps)) == WINDOWS
    for w in WINDOWS:
        assert [seat for s, seat in trace if s == w] == [1, 2, 3, 4, 0], w
    # the next turn starts in upkeep with its own active player first
    assert g.decision.seat == 2 and g.phase == "upkeep"


def test_main_windows_reproduce_the_smaller_set():
    """``priority_windows="main"``: only the main phases and the end step when
    nothing attacks (the engine's game before every window existed)."""
    g = make_game(IDS, priority_windows="main")
    trace = _priority_trace(g, lambda g: g.active == 1)
    assert list(dict.fromkeys(s for s, _ in trace)) == ["main1", "main2", "end"]


def test_combat_windows_after_attackers_blockers_and_damage():
    """CR 508.2, 509.4, 510.3, 511.2-511.3: priority after attackers are declared,
    after blockers, after combat damage is dealt (damage already marked when the
    window opens) and at end of combat, where the creature is still attacking; it
    leaves combat as that step ends."""
    g = make_game(IDS)
    bear = add_creature(g, 0, "Grove Bear")
    attack(g, 0, 2)
    seen = {}
    for _ in range(200):
        if g.phase == "main2":
            break
        d = g.decision
        if d.kind == DecisionKind.PRIORITY and g.phase not in seen:
            seen[g.phase] = (g.players[2].life, bear.attacking)
        g.step(PASS)
    assert list(seen) == ["declare_attackers", "declare_blockers", "combat_damage", "combat_end"]
    assert seen["declare_blockers"] == (40, 2)
    assert seen["combat_damage"] == (38, 2)          # damage dealt before the window
    assert seen["combat_end"] == (38, 2)             # still attacking during end of combat
    assert bear.attacking == -1 and not g.combat_attackers


def test_instant_in_the_declare_blockers_step_kills_an_attacker_before_damage():
    """CR 509.4 / 510: a defending player with priority after blockers are declared
    Shocks the attacking 2/2; it dies (CR 704.5g) and deals no combat damage."""
    g = make_game(IDS)
    add_creature(g, 0, "Grove Bear")
    attack(g, 0, 2)
    pass_priority_until(g, lambda g: g.phase == "declare_blockers" and has_priority(2)(g))
    g.step(g.layout.HAND + 0)                           # Shock
    g.step(g.layout.perm(g.rel(2, 0), 0))               # the attacking bear
    pass_priority_until(g, lambda g: not g.stack)
    assert not g.players[0].creatures
    pass_priority_until(g, lambda g: g.phase == "main2")
    assert g.players[2].life == 40


def test_declare_blockers_and_damage_steps_happen_once_attackers_were_declared():
    """CR 508.8 skips the declare blockers and combat damage steps only if no
    creature was declared as an attacker.  Here the one attacker dies in the
    declare attackers step (a Shock, CR 508.2 priority), so nothing is attacking
    any more, yet both steps still happen, each with its priority window (CR
    509.4, 510.3); no first-strike damage step, as no combatant has first strike
    (CR 510.4)."""
    g = make_game(IDS)
    add_creature(g, 0, "Grove Bear")
    attack(g, 0, 2)
    pass_priority_until(g, lambda g: g.phase == "declare_attackers" and has_priority(2)(g))
    g.step(g.layout.HAND + 0)                           # Shock
    g.step(g.layout.perm(g.rel(2, 0), 0))               # the attacking bear
    pass_priority_until(g, lambda g: not g.stack)
    assert not g.players[0].creatures and not g.combat_attackers
    trace = _priority_trace(g, lambda g: g.phase == "main2")
    steps = list(dict.fromkeys(s for s, _ in trace))
    assert steps == ["declare_attackers", "declare_blockers", "combat_damage", "combat_end"]
    assert g.players[2].life == 40


def test_second_combat_damage_step_after_first_strike_killed_every_attacker():
    """CR 510.4: once a first-strike combat damage step happened, the phase gets a
    second combat damage step, with its priority window (CR 510.3), even if the
    first-strike damage killed every attacker (CR 508.8 skips the step only when
    no creature was declared as an attacker)."""
    g = make_game(IDS)
    add_creature(g, 0, "Grove Bear")                    # 2/2
    squire = add_creature(g, 2, "Blade Squire")         # 2/1 first strike
    attack(g, 0, 2)
    pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER and g.decision.seat == 2)
    g.step(g.layout.perm(0, g.players[2].creatures.index(squire)))
    if g.decision.kind == DecisionKind.BLOCKED:
        g.step(g.decision.options[0][0])                # the bear
    g.step(PASS)                                        # done declaring blockers
    trace = _priority_trace(g, lambda g: g.phase == "main2")
    assert list(dict.fromkeys(s for s, _ in trace)) == [
        "declare_blockers", "first_strike_damage", "combat_damage", "combat_end"]
    assert not g.players[0].creatures and squire in g.players[2].creatures


def test_instant_in_an_opponents_upkeep():
    """CR 503.1: in the upkeep a non-active player casts an instant (Shock the
    active player) and it resolves in that step."""
    g = make_game(IDS)
    pass_priority_until(g, lambda g: g.phase == "upkeep" and has_priority(3)(g))
    g.step(g.layout.HAND + 0)
    g.step(g.layout.PLAYER + g.rel(3, 0))
    pass_priority_until(g, lambda g: not g.stack)
    assert g.phase == "upkeep" and g.players[0].life == 38


def test_cryomancer_unveils_after_attackers_are_declared():
    """CR 702.187c (unveil whenever you have priority) in the declare attackers
    step: The Cryomancer, Undercover met by the attack on the Leader (CR
    702.187f), removes the attacker from combat (CR 506.4) before blockers."""
    g = make_game(["The Blood Empress", "The Cryomancer", "The Ambitious Queen", "The Beastmaster",
                   "The Banisher"])
    pass_priority_until(g, lambda g: g.active == 2 and g.phase == "upkeep")
    bear = add_creature(g, 2, "Grove Bear")
    attack(g, 2, 0)                          # attack the Leader
    pass_priority_until(g, lambda g: g.phase == "declare_attackers" and has_priority(1)(g))
    g.players[1].lands = 1
    g.step(g.layout.UNVEIL + 1)
    resolve_all(g)
    assert bear.tapped and bear.attacking == -1 and not g.combat_attackers
    pass_priority_until(g, lambda g: g.phase == "main2")
    assert g.players[0].life == 40


def test_quellmaster_at_the_beginning_of_combat_stops_the_attack():
    """CR 507.2: priority at the beginning of combat.  The Quellmaster taps every
    creature of non-Leader players there, on an opponent's turn, so the active
    player has nothing to attack with (CR 508.1a)."""
    g = make_game(["The Blood Empress", "The Quellmaster", "The Ambitious Queen", "The Beastmaster",
                   "The Banisher"])
    g.leader_attacked_by.add(3)              # Undercover met
    pass_priority_until(g, lambda g: g.active == 2 and g.phase == "upkeep")
    bears = [add_creature(g, 2, "Grove Bear") for _ in range(3)]
    g.players[1].lands = 9
    pass_priority_until(g, lambda g: g.phase == "combat_begin" and has_priority(1)(g))
    g.step(g.layout.UNVEIL)
    resolve_all(g)
    assert all(b.tapped and b.stun == 1 for b in bears)
    trace = _priority_trace(g, lambda g: g.phase == "main2")
    assert not any(d for d in g.log if d["event"] == "attacks" and d["turn"] == g.turn)
    assert ("declare_attackers", 2) in trace


def test_auto_pass_keeps_seats_with_nothing_to_do_out_of_every_window():
    """DESIGN section 4: a decision with one legal action is never shown.  With
    empty hands and no mana the only decisions of a whole round are land drops in
    the active player's main phases."""
    g = make_game(IDS, hand=(), lands=0)
    shown = []
    while g.turn < 6:
        shown.append((g.phase, g.decision.seat == g.active, g.decision.kind))
        g.step(PASS)
    assert shown and set(shown) <= {("main1", True, DecisionKind.PRIORITY), ("main2", True, DecisionKind.PRIORITY)}


@pytest.mark.parametrize("windows", ["full", "main"])
def test_random_games_end_and_replay_in_both_modes(windows):
    """Random legal play ends in both modes, and the replay of each game rebuilds
    the same state (the mode is part of the recorded config)."""
    rng = np.random.default_rng(3)
    for seed in range(6):
        g = Game(GameConfig(num_players=6, priority_windows=windows, max_turns=60), seed=seed)
        while not g.is_over:
            o = g.decision.options
            g.step(o[int(rng.integers(len(o)))][0])
        d = json.loads(g.to_json())
        assert d["version"] == REPLAY_VERSION and d["config"]["priority_windows"] == windows
        assert Game.from_json(d).digest() == g.digest()


def test_version_1_replays_are_read_with_main_windows():
    """A replay written before the mode existed (version 1, no
    ``priority_windows`` in its config) describes the main-windows game."""
    g = Game(GameConfig(priority_windows="main", max_turns=20), seed=5)
    rng = np.random.default_rng(0)
    while not g.is_over:
        o = g.decision.options
        g.step(o[int(rng.integers(len(o)))][0])
    d = json.loads(g.to_json())
    del d["config"]["priority_windows"]
    d["version"] = 1
    assert Game.from_json(d).digest() == g.digest()
    with pytest.raises(ValueError, match="unsupported replay version 7"):
        Game.from_json({**d, "version": 7})


def test_bad_priority_windows_value_is_a_clear_error():
    with pytest.raises(ValueError, match=r"GameConfig.priority_windows: must be one of \['full', 'main'\]"):
        GameConfig(priority_windows="everywhere")
