"""The own decision context of the observation (``ObsLayout.ctx``, issue #13):
every decision says what it is for (its purpose), and a choice made for a
stack object says which object (kind, stage, card / identity / token source),
which of its targets is being chosen and what the earlier ones are."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from treachery_env import cards
from treachery_env.actions import TOKEN_ABILITIES
from treachery_env.engine.state import DecisionKind
from treachery_env.observation import (DECISION_PURPOSES, PLANAR_PURPOSES, TARGET_TYPES, THRONE_PURPOSES,
                                       _IDENTITY_INDEX, encode, encode_python, obs_layout)

from identity_helpers import at_main, creature, deal5, give_priority, target_player, unveil_actions

PACKAGE = Path(__file__).resolve().parent.parent / "treachery_env"
FIELDS = ("item_kind", "stage", "flags", "card", "identity", "token", "loyalty", "x", "creature", "target_index",
          "target_type", "optional", "chosen_players", "chosen_creatures", "chosen_walkers", "chosen_stack", "amount",
          "purpose")


def context(g, seat: int) -> dict:
    """``{field: [indices set within it]}`` of ``seat``'s context (only the fields with any); both encoders agree."""
    o = encode_python(g, seat)
    assert o.tobytes() == encode(g, seat).tobytes()
    L = obs_layout(g.n)
    c = L.ctx
    starts = [getattr(c, f) for f in FIELDS] + [c.end]
    out = {}
    for f, a, b in zip(FIELDS, starts, starts[1:]):
        nz = np.flatnonzero(o[a:b])
        if len(nz):
            out[f] = nz.tolist()
    return out


def purpose(name: str) -> list:
    return [DECISION_PURPOSES.index(name)]


def test_every_decision_handler_and_question_has_a_purpose():
    """The purposes are exactly the engine's Decision handlers (an unveil cost's
    card by kind) and the callbacks of every ``Game.ask`` in the package; Throne
    Magic's are in its own block (:data:`THRONE_PURPOSES`), Planechase's in its (:data:`PLANAR_PURPOSES`)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name) and node.func.id == "Decision":
                found.add(node.args[3].value)
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "ask" and len(node.args) > 3:
                found.add(node.args[3].value)
    found.discard("_h_call")                       # Game.ask itself: its callback is the purpose
    found.discard("_h_cost_card")
    found |= {"_h_cost_card:discard", "_h_cost_card:exile_from_hand"}
    # Throne Magic's decisions have their purposes in its own block (ThroneObsLayout), Planechase's in its
    assert found == set(DECISION_PURPOSES) | set(THRONE_PURPOSES) | set(PLANAR_PURPOSES)
    assert not set(DECISION_PURPOSES) & (set(THRONE_PURPOSES) | set(PLANAR_PURPOSES))
    assert len(DECISION_PURPOSES) == len(set(DECISION_PURPOSES))


def test_identity_trigger_shows_its_identity_and_which_target():
    """The Beastmaster's unveil trigger (up to two target players): the first
    choice shows the identity, a trigger being put on the stack, target 0 of
    type player, optional; the second shows target 1 and the first one chosen.
    No other seat sees any of it."""
    g = at_main(deal5(A1="The Beastmaster"))
    s = 2
    g.players[s].lands = 10
    give_priority(g, s)
    g.step(g.layout.UNVEIL + unveil_actions(g)[0])
    assert g.decision.kind == DecisionKind.TARGET and g.decision.seat == s
    first = context(g, s)
    assert first == {"item_kind": [1], "stage": [0], "flags": [0], "identity": [_IDENTITY_INDEX["The Beastmaster"]],
                     "target_index": [0], "target_type": [TARGET_TYPES.index("player")], "optional": [0],
                     "purpose": purpose("_h_target")}
    for other in range(g.n):
        if other != s:
            assert context(g, other) == {}
    target_player(g, 3)
    assert g.decision.kind == DecisionKind.TARGET and g.decision.seat == s
    second = context(g, s)
    assert second["target_index"] == [1]
    assert second["chosen_players"] == [(3 - s) % g.n]
    assert second["identity"] == first["identity"]


def test_spell_target_shows_the_card():
    """Casting Shock: a spell being put on the stack, its card, target 0 (any target, not optional)."""
    g = at_main(deal5())
    g.step(g.layout.HAND + 1)                      # Shock (the Wastes is hand card 0)
    assert g.decision.kind == DecisionKind.TARGET
    ctx = context(g, 0)
    assert ctx == {"item_kind": [0], "stage": [0], "card": [cards.card("Shock").index], "target_index": [0],
                   "target_type": [TARGET_TYPES.index("any")], "purpose": purpose("_h_target")}


def test_token_ability_shows_the_token():
    """A Map's ability (target creature you control explores): an activated ability of a Map token."""
    g = at_main(deal5())
    p = g.players[0]
    creature(g, 0, "Blade Squire")
    creature(g, 0, "Blade Squire")
    p.tokens["Map"] = 1
    p.lands = 3
    give_priority(g, 0)
    g.step(g.layout.TOKEN_AB + TOKEN_ABILITIES.index("Map"))
    assert g.decision.kind == DecisionKind.TARGET
    ctx = context(g, 0)
    assert ctx["item_kind"] == [2] and ctx["token"] == [TOKEN_ABILITIES.index("Map")]
    assert ctx["target_index"] == [0] and "card" not in ctx and "identity" not in ctx


def test_discard_says_how_many_more():
    """A discard of two cards: the first choice says one more follows; the second says none."""
    g = at_main(deal5())
    p = g.players[0]
    p.hand = [cards.card("Shock")] * 4
    g.decision = None
    g._push_front([("discard", 0, 2, None)])
    g._advance()
    assert g.decision.kind == DecisionKind.DISCARD
    assert context(g, 0) == {"amount": [0], "purpose": purpose("_h_discard")}
    g.step(g.layout.HAND + 0)
    assert context(g, 0) == {"purpose": purpose("_h_discard")}
