"""Archenemy's scheme cards as data, and the scheme decks a game deals (CR 904, 311).

``treachery_env/data/schemes.json`` holds 12 schemes designed for this project in the
card pool's effect primitives (``data/cards.json``, run by ``Game._op_effect``): ten that
act once "when you set this scheme in motion" and two ongoing ones (CR 311.7, 904.11) whose
ability triggers at their controller's upkeep until they are abandoned (CR 701.22) "when a
player deals combat damage to you".  No printed scheme's text is copied; each is listed as an
abstraction in ``docs/fidelity.md`` section 11.  The engine plays them in
``engine/archenemy.py``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .throne_cards import CardAbility, read_ability

__all__ = ["SchemeCard", "schemes", "names", "get", "TRIGGERS", "MIN_DECK", "MAX_COPIES", "check_deck", "draw_deck"]

TRIGGERS = ("set_in_motion", "controller_upkeep")
"""When a scheme's ability triggers: as it is set in motion (CR 701.21), or at the beginning of its
controller's upkeep while it is face up (an ongoing scheme)."""

MIN_DECK = 20
"""CR 904.3: a scheme deck holds at least twenty scheme cards."""

MAX_COPIES = 2
"""CR 904.3: a scheme deck holds no more than two cards of one English name."""

_DATA = Path(__file__).parent / "data" / "schemes.json"


@dataclass(frozen=True)
class SchemeCard:
    """A scheme card (CR 311).

    Attributes:
        name: its name.
        ongoing: an ongoing scheme stays face up once set in motion until abandoned
            (CR 311.7, 904.11); the others go to the bottom of their deck (CR 904.10).
        text: its ability in the project's words.
        ability: the triggered ability (:class:`~treachery_env.throne_cards.CardAbility`:
            trigger, optional, effects, targets), its trigger one of :data:`TRIGGERS`.
    """

    name: str
    ongoing: bool
    text: str
    ability: CardAbility


@lru_cache(maxsize=1)
def _load() -> dict[str, SchemeCard]:
    raw = json.loads(_DATA.read_text(encoding="utf-8"))
    out = {}
    for c in raw["schemes"]:
        ab = read_ability(c["ability"], c["name"], TRIGGERS, _DATA.name)
        if ab.optional:         # engine/archenemy.py resolves every ability without asking
            raise ValueError(f"{_DATA.name}: {c['name']}: a scheme's ability cannot be optional here")
        if (ab.trigger == "controller_upkeep") != bool(c["ongoing"]):
            raise ValueError(f"{_DATA.name}: {c['name']}: an ongoing scheme triggers at its controller's upkeep, "
                             f"any other as it is set in motion")
        out[c["name"]] = SchemeCard(c["name"], bool(c["ongoing"]), c["text"], ab)
    return out


def schemes() -> tuple[SchemeCard, ...]:
    """The 12 schemes, in the data file's order."""
    return tuple(_load().values())


def names() -> tuple[str, ...]:
    """The schemes' names, in the data file's order."""
    return tuple(_load())


def get(name: str) -> SchemeCard:
    """The scheme called ``name``.

    Raises:
        ValueError: for an unknown name (the message lists the names).
    """
    cards = _load()
    if name not in cards:
        raise ValueError(f"unknown scheme {name!r}; the schemes are {list(cards)}")
    return cards[name]


def check_deck(deck: Sequence[str], what: str = "scheme deck") -> tuple[str, ...]:
    """``deck`` (scheme names) as a tuple, once it is a legal scheme deck (CR 904.3).

    Raises:
        ValueError: naming ``what`` and CR 904.3 for fewer than :data:`MIN_DECK` cards, more than
            :data:`MAX_COPIES` of one name, or an unknown scheme.
    """
    if isinstance(deck, str) or not isinstance(deck, Sequence):
        raise ValueError(f"{what}: a list of scheme names (CR 904.3), got {deck!r}")
    deck = tuple(deck)
    for name in deck:
        if not isinstance(name, str) or name not in _load():
            raise ValueError(f"{what}: unknown scheme {name!r}; the schemes are {list(names())}")
    if len(deck) < MIN_DECK:
        raise ValueError(f"{what}: CR 904.3 asks for at least {MIN_DECK} scheme cards, got {len(deck)}")
    over = sorted(n for n, k in Counter(deck).items() if k > MAX_COPIES)
    if over:
        raise ValueError(f"{what}: CR 904.3 allows at most {MAX_COPIES} cards of one name, got more of {over}")
    return deck


def draw_deck(rng: np.random.Generator) -> list[str]:
    """A random legal scheme deck (CR 904.3): :data:`MIN_DECK` cards drawn without replacement
    from :data:`MAX_COPIES` copies of each scheme, in a random order (CR 904.4's shuffle).

    Raises:
        ValueError: for ``rng`` not a numpy Generator.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"scheme deck: rng must be a numpy Generator, got {rng!r}")
    pool = [n for n in names() for _ in range(MAX_COPIES)]
    return [pool[i] for i in rng.permutation(len(pool))[:MIN_DECK]]
