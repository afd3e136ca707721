"""Helpers to build and drive rules scenarios on :class:`treachery_env.engine.Game`.

A scenario fixes the deal with ``GameConfig.identities``, then sets the state
of each seat directly (life, hand, lands, library, creatures) and drives the
decisions with :meth:`Game.step`.  By default every seat gets one untapped
land and a Shock in hand, so each seat holding priority has a real choice
(PASS or Shock) and is asked instead of being passed automatically; libraries
are 30 Wastes so that draws are predictable.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from treachery_env import cards
from treachery_env.config import GameConfig
from treachery_env.engine import Creature, DecisionKind, Game
from treachery_env.rules import Role

PASS = 0

# Identity names by role, handy for deals.
LEADERS = ("The Blood Empress", "Her Seedborn Highness", "The Old Ruler", "The Queen of Light",
           "The Void Tyrant")
GUARDIANS = ("The Bodyguard", "The Cathar", "The Flickering Mage", "The Golem", "The Immortal",
             "The Inquisitor", "The Mirror Maestra")
ASSASSINS = ("The Ambitious Queen", "The Beastmaster", "The Chaos Wielder", "The Demon", "The Seer",
             "The Sigil Mage", "The Sorceress")
TRAITORS = ("The Banisher", "The Gatekeeper", "The Grenadier", "The Oneiromancer")


def make_game(identities: Sequence[str], *, seed: int = 0, commander: bool = True,
              decks: Sequence[str] | None = None, lands: int = 1, hand: Iterable[str] = ("Shock",),
              library: Iterable[str] | None = ("Wastes",) * 30, life: int | None = None,
              **config) -> Game:
    """A game with the deal fixed to ``identities`` (one name per seat) and every
    seat reset to ``lands`` untapped lands, ``hand`` and ``library`` (None keeps
    the shuffled preset deck), at the first player's precombat main phase of
    turn 1: with every priority window (the default) the upkeep and draw windows
    are passed first, with the dealt hands.  The pending priority decision is
    recomputed."""
    n = len(identities)
    cfg = GameConfig(num_players=n, identities=list(identities), commander=commander,
                     decks=list(decks) if decks is not None else ["aggro"] * n, **config)
    g = Game(cfg, seed=seed)
    while g.phase != "main1":
        d = g.decision
        g.step(PASS if d.index_of(PASS) is not None else d.options[0][0])
    hand = list(hand)
    lib = None if library is None else list(library)
    for p in g.players:
        p.hand = [cards.card(c) for c in hand]
        p.lands = lands
        p.lands_tapped = 0
        if lib is not None:
            p.library = [cards.card(c) for c in lib]
        if life is not None:
            p.life = life
    refresh(g)
    return g


def refresh(g: Game) -> None:
    """Re-check the state after setting it directly: state-based actions run and a
    pending priority decision is rebuilt for the same seat (its options may have
    changed).  Other decisions are left as they are."""
    g._dirty = True
    if g.decision is not None and g.decision.kind == DecisionKind.PRIORITY:
        g.decision = None
    g._advance()


def seat_of(g: Game, name: str) -> int:
    """Seat controlling the identity called ``name``."""
    return next(p.seat for p in g.players if p.identity.name == name and not p.has_lost)


def seats_with_role(g: Game, role: Role) -> list[int]:
    return [p.seat for p in g.players if p.identity.role == role]


def pass_priority_until(g: Game, pred: Callable[[Game], bool], limit: int = 500) -> None:
    """Answer PASS (action 0) until ``pred(g)`` holds.

    Raises:
        AssertionError: if the game ends first, a decision has no PASS option, or
            ``limit`` passes were not enough.
    """
    for _ in range(limit):
        if pred(g):
            return
        d = g.decision
        assert d is not None, "the game ended before the condition held"
        assert d.index_of(PASS) is not None, f"seat {d.seat} cannot pass at '{d.prompt}'"
        g.step(PASS)
    assert pred(g), f"condition not reached after {limit} passes"


def has_priority(seat: int) -> Callable[[Game], bool]:
    """Predicate: ``seat`` is deciding a priority decision."""
    return lambda g: (g.decision is not None and g.decision.kind == DecisionKind.PRIORITY
                      and g.decision.seat == seat)


def give_priority(g: Game, seat: int, limit: int = 500) -> None:
    """Pass until ``seat`` holds priority (it needs a non-PASS option to be asked)."""
    pass_priority_until(g, has_priority(seat), limit)


def resolve_stack(g: Game, limit: int = 500) -> None:
    """Pass until the stack is empty."""
    pass_priority_until(g, lambda g: not g.stack, limit)


def add_creature(g: Game, seat: int, name: str, ready: bool = True) -> Creature:
    """Put creature card ``name`` onto the battlefield under ``seat``'s control;
    ``ready``: as if it had been there since an earlier turn (can attack)."""
    c = g.put_onto_battlefield(seat, cards.card(name))
    if ready:
        c.entered_turn = 0
    return c


def events(g: Game, kind: str) -> list[dict]:
    """Log entries of one event kind."""
    return [e for e in g.log if e["event"] == kind]


def attack(g: Game, attacker_seat: int, defender_seat: int) -> None:
    """Drive the game to ``attacker_seat``'s declare-attackers step and attack
    ``defender_seat`` with every creature that can attack, then finish declaring."""
    pass_priority_until(g, lambda g: g.decision is not None and g.decision.kind == DecisionKind.ATTACKER
                        and g.decision.seat == attacker_seat)
    L = g.layout
    while (g.decision is not None and g.decision.seat == attacker_seat
           and g.decision.kind in (DecisionKind.ATTACKER, DecisionKind.DEFENDER)):
        d = g.decision
        if d.kind == DecisionKind.DEFENDER:
            g.step(L.PLAYER + g.rel(attacker_seat, defender_seat))
        else:
            g.step(d.options[1][0])   # the next creature that can attack


def random_game(seed: int, steps: int, n: int = 5, max_turns: int = 30) -> Game:
    """A game played ``steps`` random legal actions from ``seed`` (or to its end)."""
    import random
    g = Game(GameConfig(num_players=n, max_turns=max_turns), seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.step(rng.choice(g.legal_actions()))
    return g
