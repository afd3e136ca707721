"""Throne Magic's Role cards as data, how a game's Roles are chosen, and who has won.

Throne Magic (``../shared/rules/throne-magic.txt``) is an older hidden-role
Magic variant than Treachery: each player's secret Role card says which other
Roles must leave the game for that player to win, a *directed* graph rather
than fixed teams (the Wizard hunts The King, The King does not hunt the
Wizard).  ``treachery_env/data/throne_roles.json`` holds the 17 Roles with
their must-eliminate lists and types, recovered from public sources
(``../shared/reference/variants.md`` section 1.3; where the sources are
silent, the types are inferred from the graph, and each inference is listed in
``docs/fidelity.md``, section 8).

The rules text has no paragraph numbers; docstrings cite its headings
("Winning the Game", "Choosing Role Cards for the Game").  The four
role-selection methods are :func:`basic_roles`, :func:`draft_options` (with
:func:`check_draft` for a whole draft), :func:`random_roles` and
:func:`check_sculpted`; :func:`winners` is the win check.  The game mode that plays
them on the engine is planned in ``docs/throne_magic.md``.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

__all__ = ["ThroneRole", "all_roles", "get", "names", "hunters", "count", "role_list", "SELECTION_METHODS", "BASIC_PLAYERS",
           "basic_roles", "draft_options", "draft_picks", "check_draft", "random_roles", "check_sculpted", "winners"]

SELECTION_METHODS = ("basic", "draft", "random", "sculpted")
"""The four ways of choosing a game's Roles ("Choosing Role Cards for the Game")."""

BASIC_PLAYERS = range(4, 8)
"""Player counts the Basic Game is for (four to seven)."""

_DATA = Path(__file__).parent / "data" / "throne_roles.json"


@dataclass(frozen=True)
class ThroneRole:
    """One Throne Magic Role card.

    Attributes:
        name: the card's name ("The King", "Usurper's Bannerman").
        base_set: whether the rules text names it (the other nine come from a
            later list, variants.md section 1.3).
        types: its types, a subset of ``{"Claimant", "Good"}``.  Only a
            Claimant may take and control the Throne ("Taking the Throne");
            the Angel needs another Good Role in the game.
        must_eliminate: the Roles that must leave the game for its player to
            win ("Winning the Game"); Roles not in the game do not count.  The
            Dragon's and the Titan's name every other Role: they have no win
            condition of their own and must eliminate all other players.
        note: where a fact comes from, and what is inferred.
    """

    name: str
    base_set: bool
    types: frozenset
    must_eliminate: frozenset
    note: str = ""

    @property
    def claimant(self) -> bool:
        """Whether the Role has the type Claimant (may take the Throne)."""
        return "Claimant" in self.types

    @property
    def good(self) -> bool:
        """Whether the Role has the type Good."""
        return "Good" in self.types


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, ThroneRole], tuple[str, ...]]:
    raw = json.loads(_DATA.read_text(encoding="utf-8"))
    roles = {r["name"]: ThroneRole(r["name"], bool(r["base_set"]), frozenset(r["types"]),
                                   frozenset(r["must_eliminate"]), r.get("note", ""))
             for r in raw["roles"]}
    return roles, tuple(raw["basic"])


def all_roles() -> tuple[ThroneRole, ...]:
    """The 17 Role cards, in the data file's order."""
    return tuple(_load()[0].values())


def names() -> list[str]:
    """The Role cards' names, in the data file's order."""
    return list(_load()[0])


def get(name: str) -> ThroneRole:
    """The Role card called ``name`` (exact spelling).

    Raises:
        ValueError: for a name that is not a Throne Magic Role.
    """
    roles = _load()[0]
    if name not in roles:
        raise ValueError(f"unknown Throne Magic Role {name!r}; the Roles are {list(roles)}")
    return roles[name]


def hunters(name: str) -> frozenset:
    """The Roles whose must-eliminate list names ``name`` (raises ValueError for an unknown name)."""
    get(name)
    return frozenset(r.name for r in all_roles() if name in r.must_eliminate)


def count(value, what: str) -> int:
    """``value`` as an int when it is a whole number (numpy's too), not a bool.

    Raises:
        ValueError: naming ``what``, for anything else.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    return int(value)


def role_list(roles, what: str) -> list[str]:
    """``roles`` as a list of known Role names, each once.

    Raises:
        ValueError: naming ``what``, for a str or anything not a sequence of names, an
            unknown name, or a name twice.
    """
    if isinstance(roles, np.ndarray) and roles.ndim == 1:
        roles = [str(n) for n in roles]                 # a numpy array of names, as in_game may be
    if isinstance(roles, str) or not isinstance(roles, Sequence) or not all(isinstance(n, str) for n in roles):
        raise ValueError(f"Throne Magic: the {what} must be a list of Role names, got {roles!r}")
    for n in roles:
        get(n)
    if len(set(roles)) != len(roles):
        twice = sorted({n for n in roles if list(roles).count(n) > 1})
        raise ValueError(f"Throne Magic: a Role card is in a game once, {twice} twice in the {what} {list(roles)}")
    return list(roles)


def _check_players(num_players, method: str, low: int = 4, high: int | None = None) -> int:
    high = len(_load()[0]) if high is None else high
    n = count(num_players, f"Throne Magic, {method} method: the number of players")
    if not low <= n <= high:
        raise ValueError(f"Throne Magic, {method} method: needs {low} to {high} players, got {num_players!r}")
    return n


def basic_roles(num_players: int) -> list[str]:
    """The Basic Game's Roles ("Choosing Role Cards for the Game", Basic).

    The King, The Usurper, the King's Bannerman and the Usurper's Bannerman;
    the Dragon fifth, the Barbarian sixth, the Wizard seventh.

    Raises:
        ValueError: for a player count outside 4-7 (the method is for four to seven players).
    """
    n = _check_players(num_players, "Basic", BASIC_PLAYERS.start, BASIC_PLAYERS.stop - 1)
    return list(_load()[1][:n])


def _joins(role: ThroneRole, chosen: Sequence[str]) -> bool:
    """Whether ``role`` must eliminate one of ``chosen`` and one of them must eliminate it."""
    return (any(c in role.must_eliminate for c in chosen)
            and any(role.name in get(c).must_eliminate for c in chosen))


def _angel_ok(role: ThroneRole, chosen: Sequence[str]) -> bool:
    """The Angel only when another Good Role is already in (the note under each method)."""
    return role.name != "Angel" or any(get(c).good for c in chosen if c != "Angel")


def draft_options(chosen: Sequence[str], pool: Sequence[str] | None = None) -> list[str]:
    """The Roles the next drafter may choose ("Choosing Role Cards for the Game", Draft).

    The first may choose any Role; each later one a Role that must eliminate
    one of those already chosen and must be eliminated by one of them (the
    second: the first and second must eliminate each other).  The Angel only
    once another Good Role has been chosen (read at the pick, so a draft never
    ends in a set the rule forbids).

    Args:
        chosen: the Roles chosen so far, in order.
        pool: the Roles available (default: all 17), in the order returned.

    Raises:
        ValueError: for ``chosen`` or ``pool`` not a list of known Role names, each once.
    """
    chosen = role_list(chosen, "chosen Roles")
    pool = names() if pool is None else role_list(pool, "pool")
    out = []
    for n in pool:
        r = get(n)
        if n in chosen or not _angel_ok(r, chosen):
            continue
        if not chosen or _joins(r, chosen):
            out.append(n)
    return out


@lru_cache(maxsize=None)
def _completable(chosen: frozenset, left: int) -> bool:
    """Whether ``left`` more picks can follow the Roles ``chosen`` under the Draft rule
    (which Roles may be picked depends on the set chosen, not its order)."""
    if left == 0:
        return True
    ordered = [n for n in names() if n in chosen]
    return any(_completable(chosen | {r}, left - 1) for r in draft_options(ordered))


def draft_picks(chosen: Sequence[str], num_players: int) -> list[str]:
    """The picks a game offers the next drafter: :func:`draft_options` after ``chosen``,
    less those after which the draft could not be completed for ``num_players``
    players (the text does not say what happens when no Role can be chosen; a game
    never gets there: an abstraction, docs/fidelity.md section 8).

    Raises:
        ValueError: for ``chosen`` not a list of known Role names each once, a player
            count out of 4 to 17, or ``chosen`` already as long as the table.
    """
    chosen = role_list(chosen, "chosen Roles")
    n = _check_players(num_players, "Draft")
    if len(chosen) >= n:
        raise ValueError(f"Throne Magic, Draft method: {len(chosen)} Roles already chosen for {n} players")
    left = n - len(chosen) - 1
    return [r for r in draft_options(chosen) if _completable(frozenset(chosen) | {r}, left)]


def check_draft(roles: Sequence[str], num_players: int | None = None) -> None:
    """Check that ``roles``, in pick order, is a whole legal Draft: every pick among
    :func:`draft_options`, four or more (as many as ``num_players`` if given).

    Raises:
        ValueError: for names that are not a list of known Roles each once, naming the first
            pick the Draft method does not allow and why, or for a count out of range.
    """
    roles = role_list(roles, "draft")
    for i, n in enumerate(roles):
        if n not in draft_options(roles[:i]):
            why = ("the Angel needs another Good Role chosen before it" if n == "Angel"
                   and not _angel_ok(get(n), roles[:i]) else
                   "it must eliminate one of the Roles chosen before it and be eliminated by one of them")
            raise ValueError(f"Throne Magic, Draft method: pick {i + 1}, {n!r}, is not allowed: {why} "
                             f"(chosen before: {list(roles[:i])})")
    if num_players is not None and len(roles) != count(num_players, "the number of players"):
        raise ValueError(f"Throne Magic, Draft method: {len(roles)} Roles for {num_players} players")
    _check_players(len(roles), "Draft")


def random_roles(num_players: int, rng: np.random.Generator, pool: Sequence[str] | None = None,
                 attempts: int = 1000) -> list[str]:
    """A Random-method Role set ("Choosing Role Cards for the Game", Random).

    The first Role at random, each next one at random among the Roles that
    must eliminate one of those already drawn and must be eliminated by one of
    them (:func:`draft_options`, the same rule); a draw that runs out of such
    Roles before ``num_players`` starts again.

    Args:
        num_players: Roles to draw, 4 to the pool's size.
        rng: the draws' generator.
        pool: the Roles to draw from (default: all 17).
        attempts: draws tried before giving up.

    Returns:
        ``num_players`` Role names, in draw order.

    Raises:
        ValueError: for a player count out of range (4 to the pool's size), ``rng``
            not a numpy Generator, ``pool`` not a list of known Role names each
            once, or no complete set within ``attempts`` draws.
    """
    pool = names() if pool is None else role_list(pool, "pool")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"Throne Magic, Random method: rng must be a numpy Generator "
                         f"(np.random.default_rng(seed)), got {rng!r}")
    if len(pool) < 4:
        raise ValueError(f"Throne Magic, Random method: a pool of {len(pool)} Roles cannot seat 4 or more players")
    num_players = _check_players(num_players, "Random", 4, len(pool))
    for _ in range(attempts):
        chosen: list[str] = []
        while len(chosen) < num_players:
            options = draft_options(chosen, pool)
            if not options:
                break
            chosen.append(options[int(rng.integers(len(options)))])
        if len(chosen) == num_players:
            return chosen
    raise ValueError(f"Throne Magic, Random method: no set of {num_players} Roles from {pool} "
                     f"in {attempts} draws (each must eliminate and be eliminated by one drawn before it)")


def check_sculpted(roles: Sequence[str], num_players: int | None = None, hunted: bool = True) -> None:
    """Check a Sculpted Role set ("Choosing Role Cards for the Game", Sculpted).

    Each Role must have another Role of the set it must eliminate (the rules
    text); with ``hunted`` (the default) also one that must eliminate it, the
    Draft and Random methods' other half, which issue #16 asks of every method
    (stricter than the text: King, Usurper, both Bannermen and the Barbarian
    pass only with ``hunted=False``, nobody hunting the Barbarian); the Angel
    needs another Good Role; a Role card is in a game once; four or more Roles.

    Raises:
        ValueError: naming the broken rule and the Role that breaks it.
    """
    roles = role_list(roles, "Sculpted set")
    if num_players is not None and len(roles) != count(num_players, "the number of players"):
        raise ValueError(f"Throne Magic, Sculpted method: {len(roles)} Roles for {num_players} players")
    _check_players(len(roles), "Sculpted")
    for n in roles:
        r = get(n)
        if not any(o in r.must_eliminate for o in roles):
            raise ValueError(f"Throne Magic, Sculpted method: {n!r} has no Role to eliminate among {roles}")
        if hunted and not any(n in get(o).must_eliminate for o in roles):
            raise ValueError(f"Throne Magic, Sculpted method: no Role among {roles} must eliminate {n!r}")
    if "Angel" in roles and not any(get(o).good for o in roles if o != "Angel"):
        raise ValueError(f"Throne Magic, Sculpted method: the Angel needs another Good Role in the game, got {roles}")


def winners(roles: Sequence[str], in_game: Sequence[bool]) -> frozenset:
    """The seats that win now ("Winning the Game"); empty while the game goes on, or on a draw.

    A player still in the game wins when every player whose Role is on its
    must-eliminate list has left (Roles not dealt do not count); several may
    win at once (The King and his Bannerman share a list).  If no one has, the
    only player left wins.  Check after each event that makes players leave,
    once they have all left; when someone wins, everyone else loses, even a
    player still in the game.  Nobody left is a draw (empty).  It does not
    judge the deal: in a set no selection method allows (the Angel's bloc
    alone, where nobody is on anyone's list) everyone has won at once, so a
    game checks its Roles with the selection methods first.

    Args:
        roles: each seat's Role name (each Role once).
        in_game: whether each seat is still in the game.

    Raises:
        ValueError: for ``roles`` not a list of known Role names each once, ``in_game``
            not a True/False per seat, or lengths that differ.
    """
    roles = role_list(roles, "dealt Roles")
    if isinstance(in_game, str) or not isinstance(in_game, (Sequence, np.ndarray)) \
            or not all(isinstance(x, (bool, np.bool_)) for x in in_game):
        raise ValueError(f"winners: in_game must hold True or False for each seat, got {in_game!r}")
    if len(roles) != len(in_game):
        raise ValueError(f"winners: {len(roles)} Roles for {len(in_game)} seats")
    cards = [get(n) for n in roles]
    present = [i for i, here in enumerate(in_game) if here]
    won = frozenset(i for i in present
                    if all(not in_game[j] for j, other in enumerate(roles) if other in cards[i].must_eliminate))
    if not won and len(present) == 1:
        return frozenset(present)
    return won
