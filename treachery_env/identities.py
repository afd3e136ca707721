"""Identity cards (CR 314) as data: ``treachery_env/data/identities.json``.

The file holds the 62 identities of set TRD-2025 in the project's own words
(role, rarity, unveil cost, Undercover, starting modifiers, abilities as
paraphrased text).  Their rules are implemented in
:mod:`treachery_env.identity_abilities`; :func:`implemented` tells which are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .rules import Role

__all__ = ["UnveilCost", "Identity", "all_identities", "get", "names", "implemented", "SIMPLE_ROLE_NAMES",
           "simple_role_card"]


@dataclass(frozen=True)
class UnveilCost:
    """The cost of the unveil special action (CR 702.187c).

    Attributes:
        mana: fixed generic mana.
        x: number of ``{X}`` symbols (the player chooses X; pays ``x * X``).
        y: number of ``{Y}`` symbols.
        life: life to pay.
        discard, exile_from_hand, sacrifice: ``{"count": n, "filter": str}`` or None.
        reduction: free-text cost reduction (only The Quellmaster), or None.
        constraint: free-text constraint on X/Y, or None.
    """

    def __deepcopy__(self, memo):  # immutable: share, don't copy (Game.clone)
        return self

    mana: int = 0
    x: int = 0
    y: int = 0
    life: int = 0
    discard: dict | None = None
    exile_from_hand: dict | None = None
    sacrifice: dict | None = None
    reduction: str | None = None
    constraint: str | None = None


@dataclass(frozen=True)
class Identity:
    """One identity card (CR 314).

    Attributes:
        id: official card number (1-62).
        name: card name.
        role: its identity type (:class:`Role`).
        rarity: ``"uncommon"``, ``"rare"``, ``"mythic"`` or ``"special"``.
        unveil_cost: :class:`UnveilCost`, or None for Leaders (they start face up).
        undercover: whether unveiling needs the Undercover condition (CR 702.187f).
        start: starting modifiers (``life``, ``hand_size``, ``max_hand_size``,
            ``counters`` as ``{kind: formula}``).
        abilities: ``({"kind": ..., "text": ...}, ...)`` paraphrased rules text.
    """

    def __deepcopy__(self, memo):  # immutable: share, don't copy (Game.clone)
        return self

    id: int
    name: str
    role: Role
    rarity: str
    unveil_cost: UnveilCost | None
    undercover: bool
    start: dict = field(default_factory=dict)
    abilities: tuple = ()

    def starting_counters(self, num_players: int) -> dict[str, int]:
        """Counters this identity starts the game with, for a table of ``num_players``."""
        out = {}
        for kind, formula in self.start.get("counters", {}).items():
            if formula == "number_of_players":
                out[kind] = num_players
            elif formula == "floor(number_of_players / 2)":
                out[kind] = num_players // 2
            else:  # pragma: no cover - data validated at load
                raise ValueError(f"unknown counter formula {formula!r} on {self.name}")
        return out


def _load() -> dict[str, Identity]:
    raw = json.loads((Path(__file__).parent / "data" / "identities.json").read_text("utf-8"))
    out: dict[str, Identity] = {}
    for d in raw["identities"]:
        c = d["unveil_cost"]
        cost = None if c is None else UnveilCost(
            mana=c.get("mana", 0), x=c.get("x", 0), y=c.get("y", 0), life=c.get("life", 0),
            discard=c.get("discard"), exile_from_hand=c.get("exile_from_hand"),
            sacrifice=c.get("sacrifice"), reduction=c.get("reduction"), constraint=c.get("constraint"))
        out[d["name"]] = Identity(
            id=d["id"], name=d["name"], role=Role.parse(d["role"]), rarity=d["rarity"],
            unveil_cost=cost, undercover=bool(d["undercover"]), start=d.get("start", {}),
            abilities=tuple(d["abilities"]))
    return out


_ALL = _load()
_BY_ID = sorted(_ALL.values(), key=lambda i: i.id)


def all_identities() -> list[Identity]:
    """Every identity card of the set, ordered by card number."""
    return list(_BY_ID)


def names() -> list[str]:
    """Names of every identity card, ordered by card number."""
    return [i.name for i in _BY_ID]


def find(name: str) -> Identity | None:
    """The identity card named ``name``, or None where no identity card has that name (a
    membership test: :func:`get` spends a fuzzy search on the close names of its error)."""
    return _ALL.get(name)


def get(name: str) -> Identity:
    """The identity card named ``name``.

    Raises:
        ValueError: for an unknown name (the message suggests close names).
    """
    card = find(name)
    if card is None:
        import difflib
        close = difflib.get_close_matches(name, list(_ALL), n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(f"unknown identity {name!r}{hint} ({len(_ALL)} identities exist)")
    return card


SIMPLE_ROLE_NAMES = {Role.LEADER: "Plains", Role.GUARDIAN: "Island", Role.ASSASSIN: "Mountain",
                     Role.TRAITOR: "Swamp"}
"""Simple roles (TR11): basic lands dealt as role cards."""

_SIMPLE = {role: Identity(id=0, name=name, role=role, rarity="basic",
                          unveil_cost=None if role == Role.LEADER else UnveilCost(), undercover=False)
           for role, name in SIMPLE_ROLE_NAMES.items()}


def simple_role_card(role_or_name: "Role | str") -> Identity:
    """The role card of the simple-roles variant (TR11) for a role or a land name:
    no abilities, no Undercover; "unveiling just flips" (a free unveil) and the
    Leader (Plains) starts face up.

    Raises:
        ValueError: for a name that is not Plains, Island, Mountain or Swamp.
    """
    if isinstance(role_or_name, Role):
        return _SIMPLE[role_or_name]
    for card in _SIMPLE.values():
        if card.name == role_or_name:
            return card
    raise ValueError(f"{role_or_name!r} is not a simple-roles card; allowed: {list(SIMPLE_ROLE_NAMES.values())}")


def implemented() -> list[str]:
    """Names of identities whose abilities the engine implements."""
    from . import identity_cards  # noqa: F401  (registers the implementations)
    from .identity_abilities import IMPLEMENTATIONS
    return [i.name for i in _BY_ID if i.name in IMPLEMENTATIONS]
