"""Hidden information when The Metamorph takes an identity and when The Wearer of Masks copies one.

The sweeps of tests/test_information_sets.py (The Reflector taking each "when unveiled" trigger,
The Puppet Master moving each identity) for the other two cards that make a player hold another
identity: The Metamorph taking each identity it can (any opponent's, a Leader's included), and
The Wearer of Masks copying each identity it can (any implemented non-Leader card outside the
game).  At every decision from the unveil on, every seat's observation, view and text are
functions of its information set (:func:`test_information_sets._check_with_text`: a copy of the
game that differs only in what the seat cannot see gives the same bytes, view and text).
"""

from __future__ import annotations

import pytest

from treachery_env.identities import all_identities, get
from treachery_env.identity_abilities import IMPLEMENTATIONS
from treachery_env.identity_cards import traitors_special
from treachery_env.rules import Role

from identity_helpers import give_priority, is_priority
from test_information_sets import _check_all_viewers, _check_with_text, _identity_table, _play_out, _unveil

_ROLE = {i.name: i.role for i in all_identities()}


def _takeable() -> list:
    return sorted(n for n in IMPLEMENTATIONS if n != "The Metamorph")


def _play_checked(g, rng, limit: int = 300) -> None:
    """Random legal choices (priority passed) until the stack is empty at a priority, every seat's
    information set checked at each decision, text included."""
    _play_out(g, rng, check=True, limit=limit)
    _check_with_text(g, rng)


def _say_yes_until(g, rng, prompt: str, done) -> None:
    """Seat 1 takes the first choice of each decision whose prompt starts with ``prompt``; the
    others pass priority or choose at random; every seat's information set is checked at each
    decision, until the stack is empty at a priority and ``done()`` (200 decisions at most)."""
    for _ in range(200):
        if not g.stack and is_priority(g) and done():
            break
        _check_all_viewers(g, rng)
        d = g.decision
        if d.seat == 1 and d.prompt.startswith(prompt):
            g.step(g.layout.CHOICE)
        else:
            g.step(g.layout.PASS if is_priority(g) else rng.choice(g.legal_actions()))


@pytest.mark.parametrize("name", _takeable())
def test_information_sets_when_the_metamorph_takes_an_identity(name):
    """The Metamorph (seat 1) is unveiled and its controller says yes to every role; ``name``'s
    player (an opponent) loses that turn, and the Metamorph's player takes ``name`` (face down
    unless a Leader, known to all: the loss revealed it), then unveils it where it can: at every
    decision from the Metamorph's unveil on, every seat's observation, view and text are functions
    of its information set (TR8.5-8.6, CR 702.187a)."""
    g, me, rng = _identity_table(name, "The Metamorph", seed=0)
    assert _unveil(g, 1)
    _say_yes_until(g, rng, "The Metamorph:", lambda: "metamorph" in g.players[1].identity.data)
    assert g.players[1].identity.data["metamorph"]["roles"], "the Metamorph was asked about no role"
    _check_with_text(g, rng)
    g.lose([me])
    give_priority(g, 0)
    _play_checked(g, rng)
    card = g.players[1].identity
    assert any(e["event"] == "metamorph_takes" and e["victim"] == me for e in g.log)
    assert card.name == name and card.face_up == (_ROLE[name] == Role.LEADER)
    assert card.known_by == set(range(g.n))
    if not card.face_up and _unveil(g, 1):
        _check_with_text(g, rng)
        _play_checked(g, rng)


def _copyable() -> list:
    return sorted(n for n, impl in IMPLEMENTATIONS.items()
                  if _ROLE[n] != Role.LEADER and n not in ("The Wearer of Masks", "The Metamorph"))


@pytest.mark.parametrize("name", _copyable())
def test_information_sets_when_the_wearer_of_masks_copies_an_identity(name, monkeypatch):
    """The Wearer of Masks (seat 1) is unveiled with X = 1 and its one revealed card (the random
    pick from outside the game made ``name``) is copied; ``name``'s "as unveiled" and "when
    unveiled" abilities apply with X = 0 and resolve: at every decision from the unveil on, every
    seat's observation, view and text are functions of its information set (TR8.8, CR 314.11)."""
    g, _, rng = _identity_table("The Bodyguard", "The Wearer of Masks", seed=0)
    for p in g.players:                 # ``name`` outside the game: its player gets another of its role
        if p.identity.name == name:
            dealt = {q.identity.name for q in g.players}
            p.identity.identity = get(next(n for n in _copyable() if _ROLE[n] == _ROLE[name] and n not in dealt))
    assert name not in {p.identity.name for p in g.players}
    monkeypatch.setattr(traitors_special, "_wearer_pool", lambda game, seat: [name])
    L = g.layout
    give_priority(g, 1)
    g.step(L.UNVEIL + 1)
    _say_yes_until(g, rng, "The Wearer of Masks:", lambda: not g.pending_triggers)
    idc = g.players[1].identity
    assert idc.name == name and idc.role == Role.TRAITOR and idc.face_up
    assert any(e["event"] == "copy_identity" and e["identity"] == name for e in g.log)
    _check_with_text(g, rng)
    _play_checked(g, rng)
