"""Planechase's planes and phenomena (CR 901, CR 309-310) as data, and the planar deck.

``treachery_env/data/planes.json`` holds 12 planes and 2 phenomena designed for
this project in the card pool's effect primitives (``data/cards.json``, run by
``Game._op_effect``): no real card's text.  Each plane has one "while face up"
triggered ability (:data:`TRIGGERS`: at the beginning of its controller's upkeep,
or when a player planeswalks to it) and one chaos ability ("Whenever you roll
chaos", CR 901.9b); each phenomenon one "When you encounter" ability (CR 310.7).
One primitive is new with Planechase (:data:`PLANAR_PRIMITIVES`).  The rules
are in :mod:`treachery_env.engine.planechase`; the abstractions are listed in
``docs/fidelity.md``, "CR 901 Planechase".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .throne_cards import CardAbility, read_ability

__all__ = ["PlanarCard", "names", "get", "planes", "phenomena", "TRIGGERS", "PLANAR_PRIMITIVES",
           "MIN_PLANAR_DECK", "MODES"]

TRIGGERS = ("upkeep", "arrive", "encounter")
"""When a face-up planar card's ability triggers: at the beginning of its controller's upkeep
(the planar controller's, CR 901.6: "your upkeep"), when a player planeswalks to the plane
(CR 901.12), or when a player encounters the phenomenon (CR 310.7: planeswalks to it)."""

PLANAR_PRIMITIVES = {"prevent_until_planeswalk": "prevent all damage that would be dealt to the ability's "
                                                 "controller and their permanents until a player planeswalks "
                                                 "(CR 901.12)"}
"""Primitives Planechase adds to the card pool's (engine/effects.py runs them), with what they do."""

MIN_PLANAR_DECK = 10
"""Cards a planar deck needs (CR 901.3: at least ten; the single deck's min(40, 10 x players)
of CR 901.16a is abstracted to this, docs/fidelity.md)."""

MODES = ("single", "per_player")
"""Values of ``GameConfig.planechase``: one communal planar deck (CR 901.16), or a planar deck
per player (CR 901.3-901.4), each the game's ``planar_deck`` shuffled on its own."""

_DATA = Path(__file__).parent / "data" / "planes.json"


@dataclass(frozen=True)
class PlanarCard:
    """A plane (CR 309) or phenomenon (CR 310) card.

    Attributes:
        name: its name (all names distinct, CR 901.3).
        kind: ``"plane"`` or ``"phenomenon"``.
        text: its "while face up" ability in the project's words.
        chaos_text: its chaos ability in words (``""`` for a phenomenon).
        abilities: its triggered abilities (:class:`CardAbility`, trigger in :data:`TRIGGERS`).
        chaos: its chaos ability (trigger ``"chaos"``), None for a phenomenon.
    """

    name: str
    kind: str
    text: str
    chaos_text: str
    abilities: tuple
    chaos: CardAbility | None

    @property
    def is_phenomenon(self) -> bool:
        """Whether it is a phenomenon (CR 310), not a plane."""
        return self.kind == "phenomenon"


@lru_cache(maxsize=1)
def _load() -> dict[str, PlanarCard]:
    raw = json.loads(_DATA.read_text(encoding="utf-8"))
    out: dict[str, PlanarCard] = {}
    for c in raw["planes"] + raw["phenomena"]:
        if c["name"] in out:
            raise ValueError(f"{_DATA.name}: the name {c['name']!r} is used twice (CR 901.3)")
        abilities = tuple(read_ability(a, c["name"], TRIGGERS, _DATA.name) for a in c["abilities"])
        chaos = read_ability(c["chaos"], c["name"], ("chaos",), _DATA.name, trigger="chaos")
        out[c["name"]] = PlanarCard(c["name"], c["type"], c["text"], c["chaos_text"], abilities, chaos)
    return out


def names() -> tuple[str, ...]:
    """Every planar card's name: the 12 planes, then the 2 phenomena, in the data file's order
    (the observation's one-hot order)."""
    return tuple(_load())


def planes() -> tuple[PlanarCard, ...]:
    """The planes (CR 309), in the data file's order."""
    return tuple(c for c in _load().values() if not c.is_phenomenon)


def phenomena() -> tuple[PlanarCard, ...]:
    """The phenomena (CR 310), in the data file's order."""
    return tuple(c for c in _load().values() if c.is_phenomenon)


def get(name: str) -> PlanarCard:
    """The planar card called ``name``.

    Raises:
        ValueError: for an unknown name (the message lists the names).
    """
    cards = _load()
    if name not in cards:
        raise ValueError(f"unknown plane or phenomenon {name!r}; the planar cards are {list(cards)}")
    return cards[name]
