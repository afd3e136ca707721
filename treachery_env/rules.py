"""Roles, teams and the identity-deck distribution of Treachery.

Implements CR 205.3tr / 314.3 (the four identity types), CR 907.3b (which
identity decks are legal, :func:`check_identity_deck`), CR 907.3c (the
recommended decks for 4-8 players), the FAQ rule for 9+ players, and CR 907.7a
(teams).  Nothing here depends on the rest of the engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import IntEnum

__all__ = ["Role", "Team", "role_distribution", "team_of", "ROLE_TABLE", "MIN_PLAYERS", "VARIANTS",
           "check_identity_deck", "format_role_counts"]

MIN_PLAYERS = 4
"""CR 907.2: a Treachery game has four or more players."""


class Role(IntEnum):
    """The four identity types (CR 205.3tr).  Values index one-hot encodings."""

    LEADER = 0
    GUARDIAN = 1
    ASSASSIN = 2
    TRAITOR = 3

    @classmethod
    def parse(cls, name: "str | Role") -> "Role":
        """Return the role named ``name`` (case-insensitive).

        Raises:
            ValueError: for a name that is not Leader, Guardian, Assassin or Traitor.
        """
        if isinstance(name, Role):
            return name
        try:
            return cls[str(name).strip().upper()]
        except KeyError:
            raise ValueError(
                f"unknown role {name!r}: allowed are Leader, Guardian, Assassin, Traitor"
            ) from None

    @classmethod
    def parse_many(cls, names: "Iterable[str | Role]") -> "tuple[Role, ...]":
        """Return the roles named in ``names``, in order, each read as :meth:`parse` reads it
        (no names give ``()``; a caller that needs one says so).

        Raises:
            ValueError: (one line) for an empty or unknown name, or a role named twice.
        """
        names = list(names)
        roles: list[Role] = []
        for name in names:
            if not isinstance(name, Role) and not str(name).strip():
                raise ValueError(f"an empty role name in {names!r}")
            role = cls.parse(name)
            if role in roles:
                raise ValueError(f"{role.name.lower()} named twice")
            roles.append(role)
        return tuple(roles)


class Team(IntEnum):
    """Teams of CR 907.7a.  Each Traitor is a team of one; ``TRAITOR`` marks that."""

    LEADER = 0  # the Leader and the Guardians
    ASSASSIN = 1
    TRAITOR = 2


# team_of's table: read once here, since every ``Role.X`` / ``Team.X`` read goes
# through the enum metaclass's ``__getattr__`` hook (~850 instructions)
_TEAMS = {Role.LEADER: Team.LEADER, Role.GUARDIAN: Team.LEADER, Role.ASSASSIN: Team.ASSASSIN}
_TRAITOR = Team.TRAITOR


def team_of(role: Role) -> Team:
    """The team of a role (CR 907.7a): Leader and Guardian share ``Team.LEADER``,
    an Assassin is ``Team.ASSASSIN``, any other value ``Team.TRAITOR``."""
    return _TEAMS.get(role, _TRAITOR)


# CR 907.3c, the recommended setups (the FAQ's table agrees).
ROLE_TABLE: dict[int, tuple[int, int, int, int]] = {
    4: (1, 0, 2, 1),
    5: (1, 1, 2, 1),
    6: (1, 1, 3, 1),
    7: (1, 2, 3, 1),
    8: (1, 2, 3, 2),
}


VARIANTS = ("standard", "backstab_rumble", "simple_roles")
"""Identity-deck variants: the standard deck (CR 907.3), Backstab Rumble (TR11:
one Leader, everyone else a Traitor) and simple roles (TR11: basic lands as role
cards, the standard distribution)."""


def role_distribution(num_players: int, variant: str = "standard") -> dict[Role, int]:
    """Number of identity cards of each role for a table of ``num_players``.

    4-8 players follow the table of CR 907.3c.  From 9 players on, the FAQ rule:
    floor(n/2) Assassins, one Leader, and the remaining seats split evenly
    between Guardians and Traitors, Guardians taking the odd seat.  Backstab
    Rumble (TR11): one Leader and ``num_players - 1`` Traitors.  Simple roles
    use the standard distribution.

    Returns:
        ``{Role.LEADER: 1, Role.GUARDIAN: g, Role.ASSASSIN: a, Role.TRAITOR: t}``
        with ``1 + g + a + t == num_players``.

    Raises:
        ValueError: for fewer than 4 players (CR 907.2), a non-integer count or
            an unknown variant.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; allowed: {list(VARIANTS)}")
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise ValueError(f"num_players must be an int >= {MIN_PLAYERS}, got {num_players!r}")
    if num_players < MIN_PLAYERS:
        raise ValueError(
            f"num_players must be >= {MIN_PLAYERS} (CR 907.2: Treachery is played with "
            f"four or more players), got {num_players}"
        )
    if variant == "backstab_rumble":
        return {Role.LEADER: 1, Role.GUARDIAN: 0, Role.ASSASSIN: 0, Role.TRAITOR: num_players - 1}
    if num_players in ROLE_TABLE:
        l, g, a, t = ROLE_TABLE[num_players]
    else:
        a = num_players // 2
        rest = num_players - 1 - a
        t = rest // 2
        g = rest - t
        l = 1
    return {Role.LEADER: l, Role.GUARDIAN: g, Role.ASSASSIN: a, Role.TRAITOR: t}


def format_role_counts(counts: Mapping[Role, int]) -> str:
    """``{Role.LEADER: 1, Role.ASSASSIN: 3, Role.TRAITOR: 2}`` as
    ``"1 Leader, 3 Assassins, 2 Traitors"`` (roles in :class:`Role` order, zero
    counts left out; ``"no cards"`` when all are zero)."""
    parts = [f"{c} {r.name.title()}{'' if c == 1 else 's'}" for r in Role if (c := counts.get(r, 0))]
    return ", ".join(parts) or "no cards"


def _normalise_counts(counts: Mapping[Role | str, int] | Iterable[tuple[Role | str, int]]) -> dict[Role, int]:
    if isinstance(counts, Mapping):
        items = list(counts.items())
    elif isinstance(counts, (list, tuple)) and all(isinstance(x, (list, tuple)) and len(x) == 2 for x in counts):
        items = [tuple(x) for x in counts]
    else:
        raise ValueError(f"role counts must map role names (leader, guardian, assassin, traitor) to "
                         f"numbers of cards, got {counts!r}")
    out = {r: 0 for r in Role}
    seen: set[Role] = set()
    for key, c in items:
        role = Role.parse(key)
        if role in seen:
            raise ValueError(f"role counts: {role.name.title()} is given twice")
        seen.add(role)
        if isinstance(c, bool) or not isinstance(c, int) or c < 0:
            raise ValueError(f"role counts: the number of {role.name.title()} cards must be an int >= 0, got {c!r}")
        out[role] = c
    return out


def check_identity_deck(counts: Mapping[Role | str, int] | Iterable[tuple[Role | str, int]],
                        num_players: int, variant: str = "standard") -> dict[Role, int]:
    """Check that an identity deck with ``counts`` cards of each role is legal
    for ``num_players`` players, and return the counts by :class:`Role`.

    The rule (CR 907.3b, with 907.3a's one card per player): exactly one
    Leader, at least one Traitor, ``num_players // 2`` Assassins, and the
    remaining cards Guardians or Traitors.  The recommended decks of CR 907.3c
    (:data:`ROLE_TABLE`) are a subset, except that the 8-player row has 3
    Assassins where 907.3b asks for 4; that row is accepted too (the rules
    text contradicts itself there and the engine deals the 907.3c row).

    Backstab Rumble (TR11) is a deliberate variant that breaks 907.3b: with
    ``variant="backstab_rumble"`` the only legal deck is one Leader and
    ``num_players - 1`` Traitors.  Simple roles (TR11) follow 907.3b.

    Args:
        counts: cards per role, keyed by :class:`Role` or role name
            (case-insensitive; ``{"leader": 1, "assassin": 3, "traitor": 2}``),
            or ``(role, count)`` pairs; roles left out count 0.
        num_players: players at the table (CR 907.2: four or more).
        variant: one of :data:`VARIANTS`.

    Returns:
        ``{Role.LEADER: l, Role.GUARDIAN: g, Role.ASSASSIN: a, Role.TRAITOR: t}``
        (every role, zeros included).

    Raises:
        ValueError: a one-line message naming CR 907.3b (TR11 for Backstab
            Rumble) and what is wrong, e.g. "CR 907.3b: an identity deck for 6
            players needs exactly 3 Assassins, got 2"; also for an unknown
            role name, a negative or non-integer count, a bad ``num_players``
            or an unknown variant.
    """
    role_distribution(num_players, variant)           # checks num_players and variant
    got = _normalise_counts(counts)
    n = num_players
    total = sum(got.values())
    have = format_role_counts(got)
    if variant == "backstab_rumble":
        want = role_distribution(n, variant)
        if got != want:
            raise ValueError(f"TR11 Backstab Rumble (a variant that replaces CR 907.3b): an identity deck for "
                             f"{n} players holds exactly {format_role_counts(want)}, got {have}")
        return got
    if total != n:
        raise ValueError(f"CR 907.3b: an identity deck for {n} players has one card per player "
                         f"(CR 907.3a), so {n} cards, got {total} ({have})")
    if got[Role.LEADER] != 1:
        raise ValueError(f"CR 907.3b: an identity deck for {n} players needs exactly 1 Leader, "
                         f"got {got[Role.LEADER]} ({have})")
    if got[Role.TRAITOR] < 1:
        raise ValueError(f"CR 907.3b: an identity deck for {n} players needs at least 1 Traitor, got 0 ({have})")
    need_a = n // 2
    recommended = ROLE_TABLE.get(n)
    is_recommended = recommended is not None and tuple(got[r] for r in Role) == recommended
    if got[Role.ASSASSIN] != need_a and not is_recommended:
        also = ""
        if recommended is not None and recommended[Role.ASSASSIN] != need_a:
            also = (f" (or the CR 907.3c deck "
                    f"{format_role_counts(dict(zip(Role, recommended)))})")
        raise ValueError(f"CR 907.3b: an identity deck for {n} players needs exactly {need_a} Assassins{also}, "
                         f"got {got[Role.ASSASSIN]} ({have})")
    return got
