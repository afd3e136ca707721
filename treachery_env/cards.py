"""The Magic-lite card pool, token definitions and preset decks, loaded from
``treachery_env/data/cards.json`` and ``data/decks.json``.

Cards are data; their effects are lists of primitive operations that the
engine interprets (see :mod:`treachery_env.engine`, ``Game._effect_*``).
This is the abstracted substrate of DESIGN section 2; docs/fidelity.md lists
what of Magic it leaves out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

__all__ = ["CardDef", "TokenDef", "CARDS", "CARD_INDEX", "TOKENS", "DECKS", "RECOMMENDED_EXCLUSIONS", "card",
           "deck_list", "WALKER_CARDS",
           "KEYWORDS", "COUNTER_TOKENS", "TARGET_TYPES"]

KEYWORDS = ("flying", "reach", "haste", "vigilance", "lifelink", "deathtouch", "trample",
            "menace", "defender", "first_strike", "double_strike")
"""Creature keywords of the substrate, in the order used by observation bit-fields."""

COUNTER_TOKENS = ("Treasure", "Clue", "Food", "Blood", "Map", "Junk", "Explosive")
"""Noncreature artifact tokens.  They are fungible, so the engine keeps a count per
player instead of objects (abstraction, docs/fidelity.md)."""

TARGET_TYPES = ("any", "creature", "player", "spell", "noncreature_spell",
                "instant_sorcery_spell", "nonland_permanent", "permanent", "leader_player",
                "stack_object", "instant_sorcery_or_ability")
"""Target kinds a card or ability may ask for."""


@dataclass(frozen=True)
class CardDef:
    """A card of the pool.

    Attributes:
        index: position in :data:`CARDS` (stable id used in observations).
        name: card name.
        type: ``"land"``, ``"creature"``, ``"planeswalker"``, ``"instant"`` or
            ``"sorcery"``.
        cost: generic mana value (``X`` excluded).
        power, toughness: base stats for creatures, 0 otherwise.
        keywords: frozenset of :data:`KEYWORDS`.
        effects: primitive operations run on resolution (spells) or as an
            enters-the-battlefield trigger (creatures).
        targets: target specs ``{"type": one of TARGET_TYPES}``, chosen on cast.
        x: whether the spell has ``{X}`` in its cost.
        legendary: legendary creature (can be a commander).
        flash: the card may be cast whenever its controller could cast an
            instant (CR 702.8, Flash).
        loyalty: printed loyalty of a planeswalker (CR 306.5b: it enters with
            that many loyalty counters), 0 otherwise.
        abilities: a planeswalker's loyalty abilities (CR 606), in printed
            order: dicts ``{"loyalty": +n / -n (the cost, CR 606.4),
            "effects": [...], "targets": [...], "text": "..."}``; effects and
            targets are the same primitives as a spell's.
    """

    def __deepcopy__(self, memo):  # immutable: share, don't copy (Game.clone)
        return self

    index: int
    name: str
    type: str
    cost: int
    power: int = 0
    toughness: int = 0
    keywords: frozenset = field(default_factory=frozenset)
    effects: tuple = ()
    targets: tuple = ()
    x: bool = False
    legendary: bool = False
    flash: bool = False
    loyalty: int = 0
    abilities: tuple = ()

    def __post_init__(self) -> None:
        # what the card is, read at every priority check: plain attributes set once (the card is
        # immutable), not properties (a Python call each time); not dataclass fields, so equality,
        # hashing and repr are those of the fields
        t = self.type
        for name, value in (("is_land", t == "land"), ("is_creature", t == "creature"),
                            ("is_planeswalker", t == "planeswalker"), ("is_instant", t == "instant"),
                            ("instant_speed", t == "instant" or self.flash),
                            ("priority_cast", t == "instant" or (self.flash and t != "land"))):
            object.__setattr__(self, name, value)

    #: Whether the card is a land.
    is_land: ClassVar[bool]
    #: Whether the card is a creature card.
    is_creature: ClassVar[bool]
    #: Whether the card is a planeswalker card (CR 306).
    is_planeswalker: ClassVar[bool]
    #: Whether the card is an instant.
    is_instant: ClassVar[bool]
    #: Whether it may be cast whenever its controller has priority: an instant,
    #: or a card with flash (CR 304.5, 702.8a); others need sorcery timing (CR 307.1).
    instant_speed: ClassVar[bool]
    #: Whether it can be cast outside sorcery timing from hand: an instant, or a nonland card with flash.
    priority_cast: ClassVar[bool]


@dataclass(frozen=True)
class TokenDef:
    """A creature token (``type == "creature"``) or counted artifact token."""

    def __deepcopy__(self, memo):  # immutable: share, don't copy (Game.clone)
        return self

    name: str
    type: str
    power: int = 0
    toughness: int = 0
    keywords: frozenset = field(default_factory=frozenset)
    legendary: bool = False


def _load(name: str) -> dict[str, Any]:
    return json.loads((Path(__file__).parent / "data" / name).read_text("utf-8"))


def _build_cards() -> tuple[list[CardDef], dict[str, TokenDef]]:
    raw = _load("cards.json")
    cards = []
    for i, c in enumerate(raw["cards"]):
        kws = frozenset(c.get("keywords", ()))
        bad = kws - set(KEYWORDS)
        if bad:
            raise ValueError(f"card {c['name']!r} has unknown keywords {sorted(bad)}")
        for t in list(c.get("targets", ())) + [t for ab in c.get("abilities", ()) for t in ab.get("targets", ())]:
            if t["type"] not in TARGET_TYPES:
                raise ValueError(f"card {c['name']!r} has unknown target type {t['type']!r}")
        if c["type"] == "planeswalker" and (int(c.get("loyalty", 0)) <= 0 or not c.get("abilities")):
            raise ValueError(f"planeswalker {c['name']!r} needs a positive loyalty and loyalty abilities (CR 306.5b)")
        cards.append(CardDef(
            index=i, name=c["name"], type=c["type"], cost=int(c["cost"]),
            power=int(c.get("power", 0)), toughness=int(c.get("toughness", 0)),
            keywords=kws, effects=tuple(c.get("effects", ())), targets=tuple(c.get("targets", ())),
            x=bool(c.get("x", False)), legendary=bool(c.get("legendary", False)),
            flash=bool(c.get("flash", False)), loyalty=int(c.get("loyalty", 0)),
            abilities=tuple({"loyalty": int(ab["loyalty"]), "effects": tuple(ab.get("effects", ())),
                             "targets": tuple(ab.get("targets", ())), "text": ab.get("text", "")}
                            for ab in c.get("abilities", ())),
        ))
    tokens = {
        name: TokenDef(name=name, type=t["type"], power=int(t.get("power", 0)),
                       toughness=int(t.get("toughness", 0)),
                       keywords=frozenset(t.get("keywords", ())), legendary=bool(t.get("legendary", False)))
        for name, t in raw["tokens"].items()
    }
    return cards, tokens


CARDS, TOKENS = _build_cards()
CARD_INDEX: dict[str, CardDef] = {c.name: c for c in CARDS}
WALKER_CARDS: tuple[CardDef, ...] = tuple(c for c in CARDS if c.is_planeswalker)
"""The planeswalker cards of the pool, in pool order (their one-hot in the
observation's attackable-permanent slots)."""
_DECK_DATA = _load("decks.json")
DECKS: dict[str, dict[str, Any]] = _DECK_DATA["decks"]
RECOMMENDED_EXCLUSIONS: tuple[str, ...] = tuple(_DECK_DATA["recommended_exclusions"]["cards"])
"""TR12: cards the Treachery designers recommend leaving out (they let players
look at or swap hidden information).  Abstracted versions are in the pool."""
_EXCLUSION_REPLACEMENT = _DECK_DATA["recommended_exclusions"]["replacement"]


def card(name: str) -> CardDef:
    """The card named ``name``.

    Raises:
        ValueError: for a name not in the pool (the message lists a few valid names).
    """
    try:
        return CARD_INDEX[name]
    except KeyError:
        raise ValueError(f"unknown card {name!r}; the pool has {len(CARDS)} cards, e.g. "
                         f"{', '.join(sorted(CARD_INDEX)[:5])}") from None


def deck_list(deck_name: str, exclusions: bool = False) -> tuple[CardDef, list[CardDef]]:
    """The commander and the 99-card library list of a preset deck.

    Args:
        exclusions: apply the recommended exclusion list (TR12): each excluded
            card is replaced by a basic land.

    Returns:
        ``(commander, cards)`` where ``cards`` is in data-file order (unshuffled).

    Raises:
        ValueError: for an unknown deck name (lists the preset decks).
    """
    if deck_name not in DECKS:
        raise ValueError(f"unknown deck {deck_name!r}: allowed are {sorted(DECKS)}")
    d = DECKS[deck_name]
    cards: list[CardDef] = []
    for name, count in d["cards"].items():
        if exclusions and name in RECOMMENDED_EXCLUSIONS:
            name = _EXCLUSION_REPLACEMENT
        cards.extend([card(name)] * int(count))
    return card(d["commander"]), cards
