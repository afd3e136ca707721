"""Game configuration: every option of a Treachery game, validated.

Invalid values raise ``ValueError`` naming the field and what is allowed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, fields
from typing import Any

from .rules import MIN_PLAYERS, VARIANTS, Role, role_distribution

__all__ = ["GameConfig", "VARIANTS", "RARITIES", "MAX_PLAYERS", "RARITY_POOLS", "PRIORITY_WINDOWS", "TALK_MODES"]

RARITIES = ("uncommon", "rare", "mythic", "special")
PRIORITY_WINDOWS = ("full", "main")
"""Values of :attr:`GameConfig.priority_windows`."""
TALK_MODES = ("structured", "none")
"""Values of :attr:`GameConfig.talk`."""
MAX_TALK_LIMIT = 10
RARITY_POOLS = {
    "uncommon": ("uncommon",),
    "rare": ("uncommon", "rare"),
    "mythic": ("uncommon", "rare", "mythic"),
    "all": ("uncommon", "rare", "mythic", "special"),
}
"""Named rarity pools (TR11: uncommons for a first game, then rares and mythics;
the four "special" Traitors only when asked for)."""
MAX_PLAYERS = 12
"""Largest table the environment's fixed-size spaces are built for."""


@dataclass(frozen=True)
class GameConfig:
    """All options of a game.  Frozen; build a new one with :meth:`replace`.

    Attributes:
        num_players: seats, 4 to 12 (CR 907.2; 9+ use the FAQ distribution).
        commander: play the Commander variant (CR 907.2a): a commander per
            player in the command zone, commander tax, 21 commander damage.
        starting_life: life points at the start; None means 40 with
            ``commander`` and 20 without (CR 907.5).
        starting_hand_size: cards drawn at the start (CR 907.5), 0-15.
        max_hand_size: hand size kept at cleanup, 0-15.
        identities: fixed deal, one identity name per seat (scenarios, tests);
            None deals from the pool at random (CR 907.4).
        identity_pool: rarities dealt from (``uncommon``, ``rare``, ``mythic``,
            ``special``), or a name of :data:`RARITY_POOLS` ("uncommon",
            "rare", "mythic", "all"); only implemented identities are dealt.
        banned_identities: identity names never dealt.
        variant: identity-deck variant, one of :data:`VARIANTS`: "standard",
            "backstab_rumble" (one Leader, all others Traitors) or
            "simple_roles" (basic lands as role cards, no identity abilities;
            a fixed deal then names Plains, Island, Mountain, Swamp).
        max_turns: turns (each player's turn counts one) after which the
            episode is truncated, 1-10000.
        decks: preset deck name per seat, or None to draw a random preset for
            each seat before identities are dealt (TR: decks first).
        recommended_exclusions: leave out the cards of TR12's recommended
            exclusion list (Expropriate, Head Games, Trade Secrets), each replaced
            by a basic land in the preset decks.
        priority_windows: "full" (default): players get priority in every step
            of CR 500-514 that has it (upkeep, draw, main phases, beginning of
            combat, declare attackers, declare blockers, the combat damage steps,
            end of combat, end step); "main": only in the main phases, the end
            step and after attackers or blockers are declared (plus whenever
            the stack is not empty) -- the engine's game before issue #11,
            fewer decisions and faster.
        talk: table talk (TR: "Table talk is part of the game"; see
            :mod:`treachery_env.engine.talk`): "structured" (default) lets
            players make public, non-binding claims, accusations, threats,
            requests and truce offers from a fixed vocabulary (the TALK
            actions); "none" is the silent game: no talk action is ever legal
            and the observation's talk block stays zeros.
        talk_limit: messages a player may say per turn (each player's turn
            counts one), 0-10; answering a truce offer does not count.
    """

    num_players: int = 5
    commander: bool = True
    starting_life: int | None = None
    starting_hand_size: int = 7
    max_hand_size: int = 7
    identities: tuple[str, ...] | None = None
    identity_pool: tuple[str, ...] = ("uncommon",)
    banned_identities: tuple[str, ...] = ()
    variant: str = "standard"
    max_turns: int = 250
    decks: tuple[str, ...] | None = None
    recommended_exclusions: bool = True
    priority_windows: str = "full"
    talk: str = "structured"
    talk_limit: int = 2

    def __post_init__(self) -> None:
        if isinstance(self.identity_pool, str):
            if self.identity_pool not in RARITY_POOLS:
                raise ValueError(f"GameConfig.identity_pool: unknown pool {self.identity_pool!r}; use a list of "
                                 f"rarities from {list(RARITIES)} or one of {list(RARITY_POOLS)}")
            object.__setattr__(self, "identity_pool", RARITY_POOLS[self.identity_pool])
        # normalise lists to tuples so the config stays hashable
        for name in ("identities", "identity_pool", "banned_identities", "decks"):
            v = getattr(self, name)
            if v is None:
                if name in ("identities", "decks"):
                    continue
                raise ValueError(f"GameConfig.{name}: must be a list of names, got None")
            if not isinstance(v, (list, tuple)):
                raise ValueError(f"GameConfig.{name}: must be a list of names, got {type(v).__name__} {v!r}")
            bad = [x for x in v if not isinstance(x, str)]
            if bad:
                raise ValueError(f"GameConfig.{name}: every entry must be a name (str), got {bad[0]!r}")
            object.__setattr__(self, name, tuple(v))
        self._validate()

    # ------------------------------------------------------------------
    @property
    def life(self) -> int:
        """Starting life points after the Commander default (CR 907.5)."""
        if self.starting_life is not None:
            return self.starting_life
        return 40 if self.commander else 20

    def replace(self, **changes: Any) -> "GameConfig":
        """A copy with ``changes`` applied (validated)."""
        d = asdict(self)
        unknown = set(changes) - set(d)
        if unknown:
            raise ValueError(f"unknown GameConfig fields {sorted(unknown)}; allowed: {sorted(d)}")
        d.update(changes)
        return GameConfig(**d)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form (tuples become lists)."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> "GameConfig":
        """``GameConfig(**kwargs)``, with unknown names reported as ``ValueError``.

        Raises:
            ValueError: for an unknown field (lists the allowed ones) or a bad value.
        """
        return cls.from_dict(kwargs)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GameConfig":
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: for unknown keys or invalid values.
        """
        if not isinstance(d, dict):
            raise ValueError(f"a GameConfig needs a dict of fields, got {type(d).__name__}")
        allowed = {f.name for f in fields(cls)}
        unknown = set(d) - allowed
        if unknown:
            hint = " (turn limits are max_turns)" if "max_cycles" in unknown else ""
            raise ValueError(f"unknown GameConfig fields {sorted(unknown)}{hint}; allowed: {sorted(allowed)}")
        return cls(**d)

    def pool(self) -> list[str]:
        """Identity names that may be dealt: implemented, in the rarity pool, not banned."""
        from . import identities as ids
        impl = set(ids.implemented())
        return [i.name for i in ids.all_identities()
                if i.rarity in self.identity_pool and i.name not in self.banned_identities
                and i.name in impl]

    # ------------------------------------------------------------------
    def _validate(self) -> None:
        def bad(fld: str, msg: str) -> None:
            raise ValueError(f"GameConfig.{fld}: {msg}")

        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        if not is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            bad("num_players", f"must be an int from {MIN_PLAYERS} to {MAX_PLAYERS} "
                f"(CR 907.2 needs four or more players), got {self.num_players!r}")
        if not isinstance(self.commander, bool):
            bad("commander", f"must be True or False, got {self.commander!r}")
        if self.priority_windows not in PRIORITY_WINDOWS:
            bad("priority_windows", f"must be one of {list(PRIORITY_WINDOWS)} (CR 500-514 windows, or the main "
                f"phases only), got {self.priority_windows!r}")
        if self.talk not in TALK_MODES:
            bad("talk", f"must be one of {list(TALK_MODES)} (structured table talk, or the silent game), "
                f"got {self.talk!r}")
        if not is_int(self.talk_limit) or not 0 <= self.talk_limit <= MAX_TALK_LIMIT:
            bad("talk_limit", f"must be an int from 0 to {MAX_TALK_LIMIT} (messages per player per turn), "
                f"got {self.talk_limit!r}")
        if not isinstance(self.recommended_exclusions, bool):
            bad("recommended_exclusions", f"must be True or False, got {self.recommended_exclusions!r}")
        if self.starting_life is not None and (not is_int(self.starting_life) or not 1 <= self.starting_life <= 1000):
            bad("starting_life", f"must be None or an int from 1 to 1000, got {self.starting_life!r}")
        for f_ in ("starting_hand_size", "max_hand_size"):
            v = getattr(self, f_)
            if not is_int(v) or not 0 <= v <= 15:
                bad(f_, f"must be an int from 0 to 15, got {v!r}")
        if not is_int(self.max_turns) or not 1 <= self.max_turns <= 10000:
            bad("max_turns", f"must be an int from 1 to 10000, got {self.max_turns!r}")
        if self.variant not in VARIANTS:
            bad("variant", f"unknown variant {self.variant!r}; allowed: {list(VARIANTS)}")
        bad_r = [r for r in self.identity_pool if r not in RARITIES]
        if bad_r or not self.identity_pool:
            bad("identity_pool", f"must be a non-empty list of rarities from {list(RARITIES)}, got {list(self.identity_pool)}")

        from . import identities as ids
        for n in self.banned_identities:
            try:
                ids.get(n)
            except ValueError as e:
                bad("banned_identities", str(e))

        from .cards import DECKS
        if self.decks is not None:
            if len(self.decks) != self.num_players:
                bad("decks", f"needs one deck per seat ({self.num_players}), got {len(self.decks)}")
            for d in self.decks:
                if d not in DECKS:
                    bad("decks", f"unknown deck {d!r}; allowed: {sorted(DECKS)}")

        dist = role_distribution(self.num_players, self.variant)
        impl = set(ids.implemented())
        if self.identities is not None and self.variant == "simple_roles":
            if len(self.identities) != self.num_players:
                bad("identities", f"needs one role card per seat ({self.num_players}), got {len(self.identities)}")
            roles = Counter()
            for n in self.identities:
                try:
                    roles[ids.simple_role_card(n).role] += 1
                except ValueError as e:
                    bad("identities", str(e))
            want = {r: c for r, c in dist.items() if c}
            if dict(roles) != want:
                bad("identities", f"the deal must match the simple_roles distribution for {self.num_players} "
                    "players: " + ", ".join(f"{c} {ids.SIMPLE_ROLE_NAMES[r]} ({r.name.title()})"
                                            for r, c in sorted(want.items())))
        elif self.identities is not None:
            if len(self.identities) != self.num_players:
                bad("identities", f"needs one identity per seat ({self.num_players}), got {len(self.identities)}")
            roles: Counter = Counter()
            for n in self.identities:
                try:
                    card = ids.get(n)
                except ValueError as e:
                    bad("identities", str(e))
                if n not in impl:
                    bad("identities", f"{n!r} is not implemented yet; implemented: {sorted(impl)}")
                roles[card.role] += 1
            dup = [n for n, c in Counter(self.identities).items() if c > 1]
            if dup:
                bad("identities", f"each identity card exists once, but {dup} is dealt more than once")
            want = {r: c for r, c in dist.items() if c}
            got = {r: roles.get(r, 0) for r in Role if roles.get(r, 0)}
            if got != want:
                fmt = lambda m: ", ".join(f"{c} {r.name.title()}" for r, c in sorted(m.items()))  # noqa: E731
                bad("identities", f"the deal must match the {self.variant} distribution for "
                    f"{self.num_players} players ({fmt(want)}), got {fmt(got)}")
        elif self.variant != "simple_roles":
            pool = self.pool()
            for role, need in dist.items():
                have = sum(1 for n in pool if ids.get(n).role == role)
                if have < need:
                    bans = " after bans" if self.banned_identities else ""
                    bad("identity_pool", f"rarities {list(self.identity_pool)} give {have} implemented "
                        f"{role.name.title()} identities{bans}, but {self.num_players} players need {need}")
