"""The table options of the ``treachery`` command: the game a table plays, from the command line.

``treachery evaluate``, ``treachery play`` and ``treachery serve`` (for its ``--seats`` table,
whose seats are the players: no ``--players``) take the same options for the game:
``--players``, ``--starting-life``, ``--max-turns``, ``--no-commander``, ``--variant``,
``--identity-pool``, ``--role-counts``, ``--mulligans``, ``--talk``, and for Throne Magic
``--game``, ``--throne-roles``, ``--throne``, ``--holdings``, ``--seasons``, and in either
game the CR 900 variants ``--archenemy``, ``--vanguard`` and ``--planechase``.
:func:`game_config_from_args` turns them into a :class:`treachery_env.GameConfig`, and an
invalid value's error names the option that was typed, not the ``GameConfig`` field.
"""

from __future__ import annotations

import argparse
import re

__all__ = ["add_game_arguments", "game_config_from_args", "game_options", "game_options_given", "parse_role_counts",
           "parse_identity_pool", "renamed", "check_delay", "FLAGS", "MAX_DELAY"]

FLAGS = {"num_players": "--players", "starting_life": "--starting-life", "max_turns": "--max-turns",
         "commander": "--no-commander", "variant": "--variant", "identity_pool": "--identity-pool",
         "role_counts": "--role-counts", "mulligans": "--mulligans", "talk": "--talk", "game": "--game",
         "throne_roles": "--throne-roles", "throne": "--throne", "holdings": "--holdings", "seasons": "--seasons",
         "archenemy": "--archenemy", "vanguard": "--vanguard", "planechase": "--planechase"}
"""The option of each :class:`~treachery_env.GameConfig` field the table options set."""

MAX_DELAY = 60.0
"""The longest ``--delay`` (``treachery play`` and ``serve``), seconds: a pause after each event
longer than a minute is a typo (``1e9`` waits for decades), not a pace."""


def check_delay(delay: float) -> None:
    """Check a ``--delay`` (seconds after each event shown, ``treachery play`` and ``serve``).

    Raises:
        ValueError: (one line, naming ``--delay`` and its range) for a delay below 0, above
            :data:`MAX_DELAY`, or not a number (NaN).
    """
    if not 0 <= delay <= MAX_DELAY:        # (a NaN compares false)
        raise ValueError(f"--delay must be a number of seconds from 0 to {MAX_DELAY:g}, got {delay:g}")


def add_game_arguments(p: argparse.ArgumentParser, players: bool = True) -> None:
    """Add the table options shared by ``evaluate``, ``play`` and ``serve``: ``--players``,
    ``--starting-life``, ``--max-turns``, ``--no-commander``, ``--variant``,
    ``--identity-pool``, ``--role-counts``, ``--mulligans``, ``--talk``, ``--game``,
    ``--throne-roles``, ``--throne``, ``--holdings``, ``--seasons``, ``--archenemy``, ``--vanguard``,
    ``--planechase`` (see
    :func:`game_config_from_args`).

    Args:
        p: the parser.
        players: add ``--players`` (``treachery serve`` does not: its ``--seats`` are the players).
    """
    if players:
        p.add_argument("--players", type=int, default=5, help="seats at the table, 4-12 (default 5)")
    p.add_argument("--starting-life", type=int, default=None, help="starting life (default: game default)")
    p.add_argument("--max-turns", type=int, default=None, help="end the game as a draw after this many turns")
    p.add_argument("--no-commander", action="store_true", help="play without commanders")
    p.add_argument("--variant", default=None, help="identity-deck variant (standard, backstab_rumble, simple_roles)")
    p.add_argument("--identity-pool", default=None,
                   help="identity pool: uncommon, rare, mythic or all (all: with the special Traitors), or "
                        "comma-separated rarities from uncommon, rare, mythic, special (e.g. uncommon,special) "
                        "(default: the smallest named pool that can deal the table)")
    p.add_argument("--role-counts", default=None, metavar="ROLE=N,...",
                   help="identity deck, any legal under CR 907.3b, e.g. leader=1,assassin=3,traitor=2 "
                        "(default: the recommended deck of CR 907.3c)")
    p.add_argument("--mulligans", default=None, choices=["london", "none"],
                   help="mulligans before the first turn: london (CR 103.5, the first one free, the default) "
                        "or none")
    p.add_argument("--talk", default=None, choices=["structured", "none"],
                   help="table talk: structured (the default) or none (the silent game)")
    p.add_argument("--game", default="treachery", choices=["treachery", "throne_magic"],
                   help="the hidden-role game: treachery (the default) or throne_magic (Throne Magic: Role cards, "
                        "the Throne)")
    p.add_argument("--throne-roles", default=None, metavar="METHOD|ROLE,...",
                   help="Throne Magic's Roles: basic (4-7 players, the default), random, draft, or Role names "
                        "separated by commas (the Sculpted method)")
    p.add_argument("--throne", default=None, help="Throne Magic's Throne: random (the default), king (The King "
                                                   "chooses) or a Throne's name")
    p.add_argument("--holdings", action="store_true", help="Throne Magic: play with Holdings")
    p.add_argument("--seasons", action="store_true", help="Throne Magic: play with Seasons")
    p.add_argument("--archenemy", default=None, choices=["supervillain_rumble"],
                   help="Archenemy's schemes (CR 904.12 Supervillain Rumble: every player an archenemy with a "
                        "scheme deck, 40 life), in either game")
    p.add_argument("--vanguard", default=None, metavar="random|NAME,...",
                   help="the Vanguard variant (CR 902, either game): random (a different Vanguard card per seat) "
                        "or a Vanguard name per seat separated by commas")
    p.add_argument("--planechase", default=None, choices=["single", "per_player"],
                   help="the Planechase variant (CR 901), in either game: single (one communal planar deck, "
                        "CR 901.16) or per_player (a planar deck per player)")


def parse_role_counts(text: str) -> dict[str, int]:
    """The ``--role-counts`` value ``"leader=1,assassin=3,traitor=2"`` as
    ``{"leader": 1, "assassin": 3, "traitor": 2}`` (role names are checked by
    :class:`treachery_env.GameConfig`, the deck by CR 907.3b there).

    Args:
        text: comma-separated ``role=count`` items.

    Raises:
        ValueError: for an item that is not ``role=count`` with a whole number
            ``count >= 0``, or a role given twice (one line, naming the option).
    """
    out: dict[str, int] = {}
    for item in [x.strip() for x in text.split(",")]:
        role, eq, num = (x.strip() for x in item.partition("="))
        if not eq or not role or not num.isdigit():
            raise ValueError(f"--role-counts: {item!r} is not role=count; write e.g. "
                             "leader=1,assassin=3,traitor=2 (roles: leader, guardian, assassin, traitor)")
        if role.lower() in out:
            raise ValueError(f"--role-counts: {role!r} is given twice")
        out[role.lower()] = int(num)
    return out


def parse_identity_pool(text: str, option: str = "--identity-pool") -> str | list[str]:
    """The ``--identity-pool`` value as :class:`treachery_env.GameConfig` takes it: a pool's name
    (``"rare"``: :data:`treachery_env.config.RARITY_POOLS`) as given, else its comma-separated
    rarities as a list (``"uncommon,special"`` -> ``["uncommon", "special"]``; one rarity that names
    no pool, ``"special"``, a list of one); names in any case.

    Raises:
        ValueError: (one line, naming ``option``) for a name that is neither a pool nor a rarity,
            or a rarity given twice.
    """
    from treachery_env.config import RARITIES, RARITY_POOLS

    name = text.strip().lower()
    if name in RARITY_POOLS:
        return name
    items = [x.strip().lower() for x in text.split(",")]
    unknown = [x for x in items if x not in RARITIES]
    if unknown:
        raise ValueError(f"{option}: {unknown[0]!r} is not a rarity; give a pool ({', '.join(RARITY_POOLS)}) "
                         f"or comma-separated rarities from {', '.join(RARITIES)} (e.g. uncommon,special)")
    twice = [x for x in dict.fromkeys(items) if items.count(x) > 1]
    if twice:
        raise ValueError(f"{option}: {twice[0]!r} is given twice")
    return items


def game_config_from_args(args: argparse.Namespace, num_players: int | None = None,
                          names: dict[str, str] | None = None):
    """The :class:`treachery_env.GameConfig` of the table options of
    :func:`add_game_arguments`; options left unset keep the game's defaults.

    Args:
        args: the parsed options.
        num_players: the number of players where the parser has no ``--players`` (``treachery
            serve``: its seats); None: ``args.players``.
        names: how the errors name the fields (default :data:`FLAGS`; those it leaves out are
            named as in :data:`FLAGS`).

    Raises:
        ValueError: for an invalid value (the message names the option, e.g. ``--players``).
    """
    from treachery_env import GameConfig

    kw = {"num_players": args.players if num_players is None else num_players, "commander": not args.no_commander}
    for field in ("starting_life", "max_turns", "variant", "mulligans", "talk", "throne", "archenemy", "planechase"):
        if getattr(args, field, None) is not None:
            kw[field] = getattr(args, field)
    if getattr(args, "identity_pool", None) is not None:
        kw["identity_pool"] = parse_identity_pool(args.identity_pool, {**FLAGS, **(names or {})}["identity_pool"])
    if getattr(args, "game", "treachery") != "treachery":
        kw["game"] = args.game
    for flag in ("holdings", "seasons"):
        if getattr(args, flag, False):
            kw[flag] = True
    roles = getattr(args, "throne_roles", None)
    if roles is not None:
        kw["throne_roles"] = roles if roles in ("basic", "random", "draft") else [r.strip() for r in roles.split(",")]
    if getattr(args, "role_counts", None) is not None:
        kw["role_counts"] = parse_role_counts(args.role_counts)
    vanguard = getattr(args, "vanguard", None)
    if vanguard is not None:
        kw["vanguard"] = vanguard if vanguard == "random" else [v.strip() for v in vanguard.split(",")]
    try:
        return GameConfig(**kw)
    except ValueError as err:       # "GameConfig.num_players: ..." -> "--players: ..."
        raise renamed(err, {**FLAGS, **(names or {})}) from None


def game_options(config) -> list[str]:
    """The table options of :func:`add_game_arguments` that give ``config``, as a command is typed
    (``["--players", "4", "--starting-life", "6"]``): :func:`game_config_from_args` turns them
    back into an equal config.  ``--players`` always, the others only where ``config`` differs
    from what the table would have without them.

    Raises:
        ValueError: (one line) naming the fields of ``config`` that no table option sets (``decks``,
            ``starting_hand_size``, ...) when they are away from their defaults, with their values
            in words (:func:`treachery_env.config.field_text`: ``concession=on``).
    """
    from dataclasses import fields

    from treachery_env.config import RARITY_POOLS, field_text

    def parsed(options: list[str]):
        ref = argparse.ArgumentParser()
        add_game_arguments(ref)
        return game_config_from_args(ref.parse_args(options))

    def typed(field: str, value) -> list[str]:
        if isinstance(value, bool):                 # --no-commander, --holdings, --seasons
            return [FLAGS[field]]
        if field == "role_counts":
            return [FLAGS[field], ",".join(f"{role}={n}" for role, n in value)]
        if field == "identity_pool":
            names = [name for name, pool in RARITY_POOLS.items() if pool == value]
            return [FLAGS[field], names[0] if names else ",".join(value)]
        return [FLAGS[field], ",".join(value) if isinstance(value, tuple) else str(value)]

    options = ["--players", str(config.num_players)]
    # the pool and the talk are resolved from the other fields: compared once those are set
    for group in ([f for f in FLAGS if f not in ("num_players", "identity_pool", "talk")], ["identity_pool", "talk"]):
        base = parsed(options)
        for field in group:
            if getattr(config, field) != getattr(base, field):
                options += typed(field, getattr(config, field))
    back = parsed(options)
    differ = [f.name for f in fields(config) if getattr(back, f.name) != getattr(config, f.name)]
    if differ:
        raise ValueError(f"no table option sets the game's "
                         f"{', '.join(f'{f}={field_text(f, getattr(config, f))}' for f in differ)}")
    return options


def game_options_given(args: argparse.Namespace) -> list[str]:
    """The options of :func:`add_game_arguments` that ``args`` sets away from their defaults, as
    typed (``["--game", "--holdings"]``), in :data:`FLAGS`' order; ``--players`` is left out
    (``treachery serve``, which asks, has none)."""
    ref = argparse.ArgumentParser()
    add_game_arguments(ref, players=False)
    defaults = vars(ref.parse_args([]))
    dest = {"commander": "no_commander"}
    return [flag for field, flag in FLAGS.items() if field != "num_players"
            and getattr(args, dest.get(field, field), None) != defaults[dest.get(field, field)]]


def renamed(err: ValueError, names: dict[str, str]) -> ValueError:
    """``err`` (a :class:`~treachery_env.GameConfig` error, ``"GameConfig.FIELD: ..."``) with each
    field named as ``names`` says (a command-line option, a request's field), for the person who
    typed it; fields not in ``names`` keep the ``GameConfig.`` name.  A setting the message
    suggests in the Python API's keyword form, ``FIELD='VALUE'`` or ``FIELD=N``, is written as the
    option is typed where ``names`` gives the field an option (``--game throne_magic``), so
    that the wording stays :class:`~treachery_env.GameConfig`'s alone."""
    def setting(m: re.Match) -> str:
        option = names.get(m.group(1), "")
        return f"{option} {m.group(2).strip(chr(39))}" if option.startswith("--") else m.group(0)

    text = re.sub(r"\b(\w+)=('[^']*'|\d+\b)", setting, str(err))
    return ValueError(re.sub(r"GameConfig\.(\w+)", lambda m: names.get(m.group(1), m.group(0)), text))
