"""Vanguard cards as data (CR 902, ``../shared/rules/cr-900-casual-variants-italian.txt``),
and how a game picks them.

``treachery_env/data/vanguards.json`` holds 12 Vanguard cards (as many as the largest
table's seats, so a random deal gives every seat a different one) designed for this
project: each has a life modifier (CR 902.4), a hand modifier (CR 902.5, 902.5b)
and one triggered ability in the card pool's effect primitives (``data/cards.json``,
run by ``Game._op_effect``), read with :func:`treachery_env.throne_cards.read_ability`
as the Thrones' are.  No printed Vanguard card's text is copied; the abilities are
in the spirit of the variant (docs/fidelity.md section 10).  The engine's side (the
deal, the modifiers, the triggers) is ``engine/vanguard.py``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .throne_cards import CardAbility, read_ability

__all__ = ["Vanguard", "names", "get", "all_vanguards", "TRIGGERS", "check_assignment"]

TRIGGERS = ("upkeep", "end_step")
"""When a Vanguard's ability triggers: at the beginning of its controller's upkeep or end
step (its controller is its owner, CR 902.6; it works from the command zone, CR 902.7)."""

_DATA = Path(__file__).parent / "data" / "vanguards.json"


@dataclass(frozen=True)
class Vanguard:
    """A Vanguard card (CR 902.1).

    Attributes:
        name: its name.
        life: its life modifier (CR 902.4): added to the starting life total.
        hand: its hand modifier (CR 902.5, 902.5b): added to the opening hand's size and to
            the maximum hand size.
        text: its ability in the project's words.
        ability: its one triggered ability (a :class:`~treachery_env.throne_cards.CardAbility`
            whose ``trigger`` is one of :data:`TRIGGERS`).
    """

    name: str
    life: int
    hand: int
    text: str
    ability: CardAbility


@lru_cache(maxsize=1)
def _load() -> dict[str, Vanguard]:
    raw = json.loads(_DATA.read_text(encoding="utf-8"))
    out = {}
    for c in raw["vanguards"]:
        if not all(isinstance(c[k], int) and not isinstance(c[k], bool) for k in ("life", "hand")):
            raise ValueError(f"{_DATA.name}: {c['name']}: the life and hand modifiers must be ints")
        ab = read_ability(c["ability"], c["name"], TRIGGERS, _DATA.name)
        if ab.optional:         # engine/vanguard.py resolves every ability without asking
            raise ValueError(f"{_DATA.name}: {c['name']}: a Vanguard's ability cannot be optional here")
        out[c["name"]] = Vanguard(c["name"], c["life"], c["hand"], c["text"], ab)
    return out


def all_vanguards() -> tuple[Vanguard, ...]:
    """Every Vanguard card, in the data file's order (the observation's one-hot order)."""
    return tuple(_load().values())


def names() -> tuple[str, ...]:
    """The Vanguard cards' names, in the data file's order."""
    return tuple(_load())


def get(name: str) -> Vanguard:
    """The Vanguard card called ``name``.

    Raises:
        ValueError: for an unknown name (the message lists the names).
    """
    cards = _load()
    if name not in cards:
        raise ValueError(f"unknown vanguard {name!r}; the vanguards are {list(cards)}")
    return cards[name]


def check_assignment(chosen: Sequence[str], num_players: int, starting_hand_size: int = 7,
                     max_hand_size: int = 7) -> None:
    """Check a Vanguard per seat (CR 902.3: each player has one; two players may have the same).

    Args:
        chosen: a Vanguard name per seat, in seat order.
        num_players: the seats.
        starting_hand_size: the opening hand before the hand modifier (the seven of CR 902.5,
            ``GameConfig.starting_hand_size``).
        max_hand_size: the maximum hand size before it (the seven of CR 902.5b,
            ``GameConfig.max_hand_size``).

    Raises:
        ValueError: for a count other than ``num_players``, an unknown name, or a hand
            modifier that leaves an opening hand or a maximum hand size below zero (CR 902.5,
            902.5b).
    """
    for name in chosen:             # an unknown name first: "got 1" would hide a typo
        get(name)
    if len(chosen) != num_players:
        raise ValueError(f"needs one Vanguard name per seat, {num_players} (CR 902.3; on the command line "
                         f"separated by commas, or 'random'), got {len(chosen)}")
    for name in chosen:
        v = get(name)
        if starting_hand_size + v.hand < 0 or max_hand_size + v.hand < 0:
            raise ValueError(f"{name}'s hand modifier {v.hand:+d} leaves a negative hand size (CR 902.5, 902.5b)")
