"""Roles, teams and the identity-deck distribution of Treachery.

Implements CR 205.3tr / 314.3 (the four identity types), CR 907.3b-c (the
identity deck for 4-8 players), the FAQ rule for 9+ players, and CR 907.7a
(teams).  Nothing here depends on the rest of the engine.
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Role", "Team", "role_distribution", "team_of", "ROLE_TABLE", "MIN_PLAYERS", "VARIANTS"]

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


class Team(IntEnum):
    """Teams of CR 907.7a.  Each Traitor is a team of one; ``TRAITOR`` marks that."""

    LEADER = 0  # the Leader and the Guardians
    ASSASSIN = 1
    TRAITOR = 2


def team_of(role: Role) -> Team:
    """The team of a role (CR 907.7a): Leader and Guardian share ``Team.LEADER``."""
    if role == Role.LEADER or role == Role.GUARDIAN:
        return Team.LEADER
    if role == Role.ASSASSIN:
        return Team.ASSASSIN
    return Team.TRAITOR


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
