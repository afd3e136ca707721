"""Throne Magic's Thrones, Holdings and Seasons as data, and how a game picks them.

``treachery_env/data/throne_cards.json`` holds the 7 Thrones, 17 Holdings and 4
Seasons whose names were recovered (``../shared/reference/variants.md`` section
1.4).  The rules text gives two abilities (Throne of the Ancient Kings,
Esseldell) and says Spring has none and Autumn a triggered one; every other
ability is designed in the spirit of its name from the card pool's effect
primitives (``data/cards.json``, run by ``Game._op_effect``), each listed as an
abstraction in ``docs/fidelity.md`` section 8.  Two primitives and one amount are
new with Throne Magic (:data:`THRONE_PRIMITIVES`).

Headings of ``../shared/rules/throne-magic.txt`` cited: "Throne Abilities",
"Choosing a Throne Card for the Game", "Holdings (Advanced)", "Seasons
(Advanced)".  The Role cards are in :mod:`treachery_env.throne_roles`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .cards import TARGET_TYPES, TOKENS
from .throne_roles import count, role_list

__all__ = ["CardAbility", "ThroneCard", "thrones", "holdings", "seasons", "get", "TRIGGERS", "THRONE_PRIMITIVES", "THRONE_METHODS", "throne_candidates", "MAX_HOLDINGS",
           "draw_holdings", "SEASON_ORDER", "season_after", "read_ability"]

TRIGGERS = ("controller_upkeep", "each_upkeep")
"""When an ability triggers: at the beginning of its controller's upkeep (Thrones, Holdings:
"Throne Abilities"), or of each player's upkeep, for that player (Seasons, which no one
controls and which "affect the entire table")."""

THRONE_PRIMITIVES = {"look_at_role": "the controller looks at the target player's Role card (Throne of Visions)",
                     "lose_self": "the player the ability is about loses ``n`` life (Winter)"}
"""Primitives Throne Magic adds to the card pool's (engine/effects.py runs them), with what they
do; an amount ``n`` may also be ``"players"``: the number of players still in the game (Throne
of the Ancient Kings)."""

THRONE_METHODS = ("random", "king", "agreed")
"""The three ways of choosing the game's Throne ("Choosing a Throne Card for the Game"):
at random, by The King at the start of the game, or one the players agree on."""

MAX_HOLDINGS = 10
"""Holdings in a game: one per starting player, 10 when more than 10 play ("Holdings")."""

SEASON_ORDER = ("Spring", "Summer", "Autumn", "Winter")
"""The Seasons in the order they change; the game begins in Spring, Spring follows Winter."""

_DATA = Path(__file__).parent / "data" / "throne_cards.json"


@dataclass(frozen=True)
class CardAbility:
    """One triggered ability of a command-zone card given as data: a Throne, Holding or Season
    card's, and the CR 900 variants' (a Vanguard's, :mod:`treachery_env.vanguards`; a scheme's,
    :mod:`treachery_env.schemes`; a planar card's or a plane's chaos ability,
    :mod:`treachery_env.planes`), each read with :func:`read_ability`.

    Attributes:
        trigger: one of :data:`TRIGGERS`, or of the triggers of the card's module.
        optional: whether its player may decline it ("may gain 1 life").
        effects: primitive operations, as in ``data/cards.json`` (``op``, ``n``,
            ``t`` the index of a target, ``token``, ``p``/``q``).
        targets: target specs (``{"type": one of TARGET_TYPES}``, ``opponent``).
    """

    trigger: str
    optional: bool
    effects: tuple
    targets: tuple = ()


@dataclass(frozen=True)
class ThroneCard:
    """A Throne, Holding or Season card.

    Attributes:
        kind: ``"throne"``, ``"holding"`` or ``"season"``.
        name: its name.
        text: its ability in the project's words.
        ability: a :class:`CardAbility`, or None (Spring).
        source: ``"rules"`` where the rules text gives the ability, else how it was designed.
    """

    kind: str
    name: str
    text: str
    ability: CardAbility | None
    source: str


def read_ability(raw: dict | None, where: str, triggers: tuple = TRIGGERS, data: str = _DATA.name,
                 trigger: str | None = None) -> CardAbility | None:
    """Read and check one ability of a command-zone card's data file ``data`` (None stays None).

    Args:
        raw: the ability as in the data file (``trigger``, ``optional``, ``effects``, ``targets``).
        where: the card's name, for the error.
        triggers: the trigger names allowed (default :data:`TRIGGERS`).
        data: the data file's name, for the error.
        trigger: the trigger of an ability whose data names none (a plane's chaos ability);
            ``optional`` left out is False.

    Raises:
        ValueError: naming the file and the card, for an unknown trigger, target type or token, a
            malformed amount or target index.  That each ``op`` is an engine primitive
            (:data:`THRONE_PRIMITIVES` among them) is a test's job (``tests/test_throne_cards.py``,
            ``tests/test_vanguard.py`` read the engine's list where it lives, engine/effects.py).
    """
    if raw is None:
        return None
    targets = tuple(raw.get("targets", ()))
    bad = []
    trigger = raw.get("trigger", trigger)
    if trigger not in triggers:
        bad.append(f"trigger {trigger!r}")
    for t in targets:
        if t.get("type") not in TARGET_TYPES:
            bad.append(f"target type {t.get('type')!r}")
    for e in raw["effects"]:
        op, n, t = e.get("op"), e.get("n", 0), e.get("t")
        if not isinstance(op, str):
            bad.append(f"effect {op!r}")
        if not (isinstance(n, int) or n == "players"):
            bad.append(f"amount {n!r}")
        if t is not None and not (isinstance(t, int) and 0 <= t < len(targets)):
            bad.append(f"target index {t!r}")
        if op == "tokens" and e.get("token") not in TOKENS:
            bad.append(f"token {e.get('token')!r}")
    if bad:
        raise ValueError(f"{data}: {where}: unknown or malformed {', '.join(bad)}")
    return CardAbility(trigger, bool(raw.get("optional", False)), tuple(raw["effects"]), targets)


@lru_cache(maxsize=1)
def _load() -> dict[str, dict[str, ThroneCard]]:
    raw = json.loads(_DATA.read_text(encoding="utf-8"))
    out = {}
    for kind, key in (("throne", "thrones"), ("holding", "holdings"), ("season", "seasons")):
        out[kind] = {c["name"]: ThroneCard(kind, c["name"], c["text"], read_ability(c["ability"], c["name"]), c["source"])
                     for c in raw[key]}
    return out


def thrones() -> tuple[ThroneCard, ...]:
    """The 7 Thrones, in the data file's order."""
    return tuple(_load()["throne"].values())


def holdings() -> tuple[ThroneCard, ...]:
    """The 17 Holdings, in the data file's order."""
    return tuple(_load()["holding"].values())


def seasons() -> tuple[ThroneCard, ...]:
    """The 4 Seasons, in :data:`SEASON_ORDER`."""
    return tuple(_load()["season"][n] for n in SEASON_ORDER)


def get(kind: str, name: str) -> ThroneCard:
    """The ``kind`` (``"throne"``, ``"holding"``, ``"season"``) card called ``name``.

    Raises:
        ValueError: for an unknown kind or name (the message lists the names).
    """
    cards = _load()
    if kind not in cards:
        raise ValueError(f"unknown Throne Magic card kind {kind!r}; the kinds are {list(cards)}")
    if name not in cards[kind]:
        raise ValueError(f"unknown Throne Magic {kind} {name!r}; the {kind}s are {list(cards[kind])}")
    return cards[kind][name]


def throne_candidates(method: str, roles: Sequence[str], agreed: str | None = None) -> list[str]:
    """The Thrones a game may start with ("Choosing a Throne Card for the Game").

    ``"random"``: all of them, one to be drawn; ``"king"``: all of them, for The
    King to choose at the start of the game, so The King must be among
    ``roles``; ``"agreed"``: the one the players agreed on, ``agreed``.

    Raises:
        ValueError: for an unknown method or Throne, ``roles`` not a list of
            Role names, a King's choice without The King, or ``agreed`` given
            (or missing) against the method.
    """
    if method not in THRONE_METHODS:
        raise ValueError(f"Throne Magic, choosing a Throne: unknown method {method!r}; the methods are "
                         f"{list(THRONE_METHODS)}")
    if (agreed is not None) != (method == "agreed"):
        raise ValueError("Throne Magic, choosing a Throne: name the Throne exactly when the method is 'agreed'")
    roles = role_list(roles, "Roles of the game")
    if len(roles) < 4:
        raise ValueError(f"Throne Magic, choosing a Throne: a game has 4 or more Roles, got {roles}")
    if method == "agreed":
        return [get("throne", agreed).name]
    if method == "king" and "The King" not in roles:
        raise ValueError(f"Throne Magic, choosing a Throne: The King chooses it only when The King is in the "
                         f"game; the Roles are {list(roles)}")
    return [c.name for c in thrones()]


def draw_holdings(num_players: int, rng: np.random.Generator) -> list[str]:
    """The Holdings of a game ("Holdings (Advanced)"): one per starting player, at most
    :data:`MAX_HOLDINGS`, drawn at random from the 17 without repeats; all start uncontrolled.

    Raises:
        ValueError: for a player count that is not a whole number >= 1, or ``rng`` not a numpy Generator.
    """
    n = count(num_players, "Throne Magic, Holdings: the number of players")
    if n < 1:
        raise ValueError(f"Throne Magic, Holdings: need at least 1 player, got {num_players!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"Throne Magic, Holdings: rng must be a numpy Generator, got {rng!r}")
    names = [c.name for c in holdings()]
    picks = rng.choice(len(names), size=min(n, MAX_HOLDINGS), replace=False)
    return [names[i] for i in picks]


def season_after(current: str, players_left_last_turn: int) -> str:
    """The Season once the next player's untap step is checked ("Seasons (Advanced)").

    It moves on by exactly one (Spring, Summer, Autumn, Winter, Spring...) when at
    least one player left the game during the previous turn, however many did,
    and stays otherwise.

    Raises:
        ValueError: for an unknown Season, or a count that is not a whole number >= 0.
    """
    if current not in SEASON_ORDER:
        raise ValueError(f"unknown Throne Magic season {current!r}; the seasons are {list(SEASON_ORDER)}")
    players_left_last_turn = count(players_left_last_turn, "Throne Magic, Seasons: the players who left")
    if players_left_last_turn < 0:
        raise ValueError(f"players who left cannot be negative, got {players_left_last_turn}")
    if players_left_last_turn == 0:
        return current
    return SEASON_ORDER[(SEASON_ORDER.index(current) + 1) % len(SEASON_ORDER)]
