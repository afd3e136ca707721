"""Small helpers for identity-card scenarios (tests/test_identities.py).

A scenario starts from a fixed deal, jumps to the first main phase of the
Leader's first turn with an empty stack and empty hands, then sets the state it
needs directly on ``game.players`` and drives decisions with ``game.step``.
Scenario games are played without mulligans (``mulligans="none"``): they
begin with the Leader's first turn, as the scenarios set the hands anyway.
"""

from __future__ import annotations

from typing import Any, Callable

from treachery_env import cards
from treachery_env.config import GameConfig
from treachery_env.engine import DecisionKind, Game

LEADER = "The Old Ruler"
FILLERS = {"G": "The Bodyguard", "A1": "The Demon", "A2": "The Beastmaster", "T": "The Banisher"}


def deal5(**by_role: str) -> list[str]:
    """Identities for 5 seats: Leader, Guardian, Assassin, Assassin, Traitor
    (keys ``L``, ``G``, ``A1``, ``A2``, ``T``), filled with defaults."""
    d = {"L": LEADER, **FILLERS}
    d.update(by_role)
    spare = {"G": "The Immortal", "A1": "The Seer", "A2": "The Sorceress", "T": "The Grenadier"}
    for k in FILLERS:
        if k not in by_role and d[k] in by_role.values():
            d[k] = spare[k]
    return [d["L"], d["G"], d["A1"], d["A2"], d["T"]]


def new_game(identities: list[str], seed: int = 0, deck: str = "aggro", commander: bool = True,
             **config: Any) -> Game:
    """A game with the deal fixed to ``identities``, no mulligans, at its first
    decision; ``config`` sets further GameConfig fields (e.g. ``concession``)."""
    n = len(identities)
    config.setdefault("mulligans", "none")
    return Game(GameConfig(num_players=n, identities=list(identities), decks=[deck] * n,
                           commander=commander, **config), seed=seed)


def give_priority(g: Game, seat: int) -> None:
    """Offer priority to ``seat`` now, with fresh options (scenario set-up)."""
    g.decision = None
    g.priority_seat = seat
    g.passes = 0
    g._refresh_statics()
    g._advance()


def at_main(identities: list[str], seed: int = 0, commander: bool = True, **config: Any) -> Game:
    """A game at main phase 1 of turn 1 (the Leader, seat 0, active) with an
    empty stack; every hand, land, token and pending trigger cleared.  Seat 0
    holds a Wastes it has not played, a Shock and one untapped land, so the game
    stops at each of its priorities (with or without a stack) instead of
    passing for it automatically; tests of the Leader reset these."""
    g = new_game(identities, seed=seed, commander=commander, **config)
    g.queue.clear()
    g.pending_triggers = []
    g.stack = []
    g.phase = "main1"
    for p in g.players:
        p.hand = []
        p.lands = p.lands_tapped = 0
        p.tokens = dict.fromkeys(p.tokens, 0)
        p.creatures = []
    g.players[0].hand = [cards.card("Wastes"), cards.card("Shock")]
    g.players[0].lands = 1
    give_priority(g, 0)
    return g


def hand(g: Game, seat: int, *names: str) -> None:
    g.players[seat].hand = [cards.card(n) for n in names]


def creature(g: Game, seat: int, name: str, tapped: bool = False):
    c = g.put_onto_battlefield(seat, cards.card(name), tapped=tapped)
    # an enters trigger of the creature is not part of the scenario
    g.pending_triggers = [t for t in g.pending_triggers if t.creature is not c]
    c.entered_turn = 0
    return c


def token(g: Game, seat: int, name: str):
    return g.create_creature_token(seat, name, 1)[0]


def options(g: Game) -> dict[int, Any]:
    """The pending decision's ``{action: payload}``."""
    return dict(g.decision.options)


def unveil_actions(g: Game) -> list[int]:
    """X values of the UNVEIL actions legal for the deciding seat."""
    L = g.layout
    return [a - L.UNVEIL for a in g.legal_actions() if L.UNVEIL <= a < L.UNVEIL + 16]


def pick(g: Game, pred: Callable[[Any], bool]) -> None:
    """Take the (single) option whose payload satisfies ``pred``."""
    hits = [a for a, p in g.decision.options if pred(p)]
    assert len(hits) == 1, (g.decision.prompt, g.decision.options)
    g.step(hits[0])


def target_player(g: Game, seat: int) -> None:
    """Answer a target/choice decision with player ``seat`` (absolute)."""
    g.step(g.layout.PLAYER + g.rel(g.decision.seat, seat))


def target_creature(g: Game, c) -> None:
    a = g.target_action(g.decision.seat, ("c", c))
    g.step(a)


def target_stack(g: Game, item) -> None:
    g.step(g.target_action(g.decision.seat, ("s", item)))


def is_priority(g: Game) -> bool:
    return g.decision is not None and g.decision.kind == DecisionKind.PRIORITY


def resolve_all(g: Game, limit: int = 200) -> None:
    """Everyone passes until the stack is empty or a non-priority decision
    (a choice made while resolving) is pending."""
    for _ in range(limit):
        if not g.stack or not is_priority(g):
            return
        g.step(g.layout.PASS)
    raise AssertionError("stack did not resolve")


def pass_until(g: Game, cond: Callable[[Game], bool], limit: int = 500) -> None:
    """PASS at every decision (priority, attackers, blockers) until ``cond``."""
    for _ in range(limit):
        if cond(g):
            return
        assert g.decision is not None, "game ended"
        assert g.layout.PASS in g.legal_actions(), g.decision.prompt
        g.step(g.layout.PASS)
    raise AssertionError("condition never met")


def cast(g: Game, seat: int, name: str) -> None:
    """``seat`` (deciding, with priority) casts the card ``name`` from hand."""
    assert g.decision.seat == seat and is_priority(g), g.decision.prompt
    i = next(k for k, c in enumerate(g.players[seat].hand) if c.name == name)
    g.step(g.layout.HAND + i)


def passing_decisions(g: Game, limit: int) -> list[tuple[int, int]]:
    """The ``(seat, kind)`` of ``g``'s next ``limit`` decisions (fewer if the game
    ends), the current one first, every seat passing wherever it may and taking
    its first option elsewhere: a play that tells nothing of what a seat holds,
    for comparing the order of decisions of games that differ only in hidden
    information (``GameConfig.forced_decisions="shown"``)."""
    out = []
    while g.decision is not None and len(out) < limit:
        out.append((g.decision.seat, g.decision.kind))
        legal = g.legal_actions()
        g.step(g.layout.PASS if g.layout.PASS in legal else legal[0])
    return out


def log_noise_after(g: Game, event: str, k: int, drop: bool = False) -> None:
    """Make ``g`` log ``k`` unrelated entries (``"noise"``, to nobody) right after
    each ``event`` entry, and with ``drop`` leave the ``event`` entries out: what
    the rules do must not depend on the log, a record (an ability reads the game
    state or the event it answers, never log text).  ``g`` becomes an instance
    of a subclass of its class that logs so (the game's attributes are slots)."""

    class NoisyLog(type(g)):
        __slots__ = ()

        def _log(self, ev: str, to: Any = None, **data: Any) -> None:
            if ev != event or not drop:
                super()._log(ev, to, **data)
            if ev == event:
                for _ in range(k):
                    super()._log("noise", [])
    g.__class__ = NoisyLog
