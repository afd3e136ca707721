"""The cleanup step (CR 514): when a state-based action is performed or an
ability triggers during it, players get priority and another cleanup step
follows (CR 514.3a).

In the pool this happens when a control effect "until end of turn" ends (The
Rebel General's, ``Game.gain_control(..., until_end_of_turn=True)``) and the
creature goes back to a player who controls another legendary creature of its
name: the legend rule (CR 704.5j) puts one into the graveyard, and The Blood
Empress's "whenever a creature an opponent controls leaves the battlefield"
may trigger.  Scenarios as in tests/test_identities.py (``identity_helpers``):
seat 0, the Leader, is active in its first main phase.
"""

from __future__ import annotations

import pytest

from treachery_env.engine import DecisionKind, Game

from identity_helpers import at_main, cast, creature, deal5, hand, is_priority, pass_until, target_creature

KAELEN = "Kaelen, Warband Chief"


def _stolen_legend(leader: str, windows: str = "full"):
    """Seat 2 controls a Kaelen; seat 0 controls seat 2's other Kaelen until end
    of turn; seat 3 has a 2/3 Briar Ambusher; seat 0 holds a Shock and two lands.
    ``windows``: the game's ``priority_windows``."""
    g = at_main(deal5(L=leader), priority_windows=windows)
    creature(g, 2, KAELEN)
    stolen = creature(g, 2, KAELEN)
    g.gain_control(stolen, 0, until_end_of_turn=True)
    ambusher = creature(g, 3, "Briar Ambusher")
    g.players[0].lands = 2
    hand(g, 0, "Wastes", "Shock")
    return g, ambusher


def _to_cleanup_priority(g) -> None:
    """Pass to the cleanup step, seat 2 keeping its first Kaelen (CR 704.5j) and
    The Blood Empress's modes (if it triggers) taken first and its trigger
    resolved, until seat 0 has priority there with an empty stack."""
    pass_until(g, lambda g: g.phase == "cleanup")
    for _ in range(10):
        d = g.decision
        if is_priority(g) and d.seat == 0 and not g.stack:
            return
        assert d.kind in (DecisionKind.KEEP, DecisionKind.MODE, DecisionKind.PRIORITY), d.prompt
        g.step(g.layout.PASS if g.layout.PASS in g.legal_actions() else d.options[0][0])
    raise AssertionError("no priority in the cleanup step")


def test_a_trigger_in_cleanup_gives_priority_and_another_cleanup_step():
    """The stolen Kaelen goes back to seat 2 in the cleanup step (CR 514.2), the
    legend rule puts one into the graveyard and The Blood Empress (seat 0)
    triggers: the trigger goes on the stack and is resolved in the cleanup step,
    and players get priority there (CR 514.3a).  The Shock seat 0 casts then
    marks 2 damage on the Briar Ambusher, which the second cleanup step removes
    before the next turn begins (CR 514.2)."""
    g, ambusher = _stolen_legend("The Blood Empress")
    _to_cleanup_priority(g)
    assert any(e["event"] == "legend_rule" for e in g.log)
    assert any(e["event"] == "resolve" and e["source"] == "The Blood Empress" for e in g.log)
    assert g.phase == "cleanup" and g.turn == 1
    cast(g, 0, "Shock")
    target_creature(g, ambusher)
    pass_until(g, lambda g: g.active == 1)
    assert ambusher in g.players[3].creatures and ambusher.damage == 0
    assert g.turn == 2


def test_a_state_based_action_in_cleanup_gives_priority_too():
    """With no trigger (the Leader is not The Blood Empress), the legend rule
    alone in the cleanup step still gives players priority (CR 514.3a), and the
    damage dealt then wears off in another cleanup step."""
    g, ambusher = _stolen_legend("The Old Ruler")
    _to_cleanup_priority(g)
    assert g.phase == "cleanup" and not g.stack
    cast(g, 0, "Shock")
    target_creature(g, ambusher)
    pass_until(g, lambda g: g.active == 1)
    assert ambusher.damage == 0 and g.turn == 2


def _phases_with_priority_to_turn_2(g) -> set:
    """PASS at every decision until seat 1's turn begins (200 decisions at most), and the
    phases in which a decision came."""
    seen = set()
    for _ in range(200):
        if g.active == 1:
            return seen
        seen.add(g.phase)
        g.step(g.layout.PASS)
    raise AssertionError("seat 1's turn never began")


def test_a_quiet_cleanup_gives_no_priority():
    """Nothing performed or triggered in the cleanup step: no player gets
    priority there (CR 514.3) and the next turn begins."""
    g = at_main(deal5())
    g.players[0].lands = 2
    hand(g, 0, "Wastes", "Shock")
    assert "cleanup" not in _phases_with_priority_to_turn_2(g)


def test_a_loss_kept_from_happening_is_no_state_based_action_in_cleanup():
    """A player at 0 life who can't lose (an effect keeps the loss from happening: a
    "can't lose" effect, or The Treacherous Masochist's first loss by its own
    source) performs no state-based action (CR 704.3): the cleanup step gives no
    priority and the next turn begins, where counting it as performed made cleanup
    steps follow each other forever (CR 514.3a; tests/test_fuzz.py's random game of
    seed 1090, The Treacherous Masochist at 0 life, logged four million of them)."""
    g = at_main(deal5())
    p = g.players[3]
    p.cant_lose, p.life = True, 0
    assert "cleanup" not in _phases_with_priority_to_turn_2(g)
    assert not p.has_lost and p.life == 0


def _cleanup_steps_to_turn_2(g, monkeypatch) -> tuple[int, set]:
    """Play to seat 1's turn (PASS, or the first option of a choice: seat 2 keeps
    its first Kaelen, The Blood Empress's first mode), and return how many
    cleanup steps turn 1 had and whether, in its cleanup steps, a player got
    priority with an empty stack ("empty") or with a non-empty one ("stack")."""
    steps = []
    op_cleanup = Game._op_cleanup
    monkeypatch.setattr(Game, "_op_cleanup", lambda self: (steps.append(self.turn), op_cleanup(self)))
    priority = set()
    for _ in range(200):
        if g.active == 1:
            return len(steps), priority
        d = g.decision
        if g.phase == "cleanup" and is_priority(g):
            priority.add("stack" if g.stack else "empty")
        g.step(g.layout.PASS if g.layout.PASS in g.legal_actions() else d.options[0][0])
    raise AssertionError("seat 1's turn never began")


@pytest.mark.parametrize("windows, priority", [("full", {"empty"}), ("main", set())])
def test_a_state_based_action_in_cleanup_with_either_priority_windows(monkeypatch, windows, priority):
    """The legend rule alone in the cleanup step (no trigger): another cleanup step
    follows with either setting (CR 514.3a); players get priority there with
    every window ("full"), and none with "main", whose windows do not include the
    cleanup step and whose stack stays empty (docs/fidelity.md, section 3)."""
    g, _ = _stolen_legend("The Old Ruler", windows)
    assert _cleanup_steps_to_turn_2(g, monkeypatch) == (2, priority)
    assert any(e["event"] == "legend_rule" for e in g.log) and g.turn == 2


@pytest.mark.parametrize("windows, priority", [("full", {"stack", "empty"}), ("main", {"stack", "empty"})])
def test_a_trigger_in_cleanup_with_either_priority_windows(monkeypatch, windows, priority):
    """The Blood Empress's trigger in the cleanup step goes on the stack, so players
    get priority there with either setting ("main" gives priority in any step
    whose stack is not empty), and are still given it, stack empty, until all
    pass; another cleanup step follows (CR 514.3a)."""
    g, _ = _stolen_legend("The Blood Empress", windows)
    assert _cleanup_steps_to_turn_2(g, monkeypatch) == (2, priority)
    assert any(e["event"] == "resolve" and e["source"] == "The Blood Empress" for e in g.log)
