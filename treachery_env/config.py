"""Game configuration: every option of a Treachery game, validated.

Invalid values raise ``ValueError`` naming the field and what is allowed.
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import asdict, dataclass, fields
from typing import Any, Iterable

import numpy as np

from .rules import MIN_PLAYERS, VARIANTS, Role, check_identity_deck, format_role_counts, role_distribution
from .words import with_article

__all__ = ["GameConfig", "did_you_mean", "VARIANTS", "RARITIES", "MAX_PLAYERS", "RARITY_POOLS", "PRIORITY_WINDOWS", "MULLIGANS",
           "TALK_MODES", "GAMES", "THRONE_ROLE_METHODS", "ARCHENEMY", "field_text"]

def _short(v: Any) -> str:
    """``v`` for a one-line error: its repr when short, else its type and length."""
    text = repr(v)
    if len(text) <= 80 and "\n" not in text:
        return f"{type(v).__name__} {text}"
    kind = with_article(type(v).__name__)
    return f"{kind} of {len(v)}" if hasattr(v, "__len__") else kind


GAMES = ("treachery", "throne_magic")
"""Values of :attr:`GameConfig.game`: the hidden-role game played on the shared Magic-lite engine."""
THRONE_ROLE_METHODS = ("basic", "random", "draft")
"""Role-selection methods :attr:`GameConfig.throne_roles` may name (a list of Roles is the Sculpted method)."""
ARCHENEMY = (None, "supervillain_rumble")
"""Values of :attr:`GameConfig.archenemy`: no schemes, or CR 904.12's Supervillain Rumble."""

RARITIES = ("uncommon", "rare", "mythic", "special")
PRIORITY_WINDOWS = ("full", "main")
"""Values of :attr:`GameConfig.priority_windows`."""
FORCED_DECISIONS = ("auto", "shown")
"""Values of :attr:`GameConfig.forced_decisions`."""
MULLIGANS = ("london", "none")
"""Values of :attr:`GameConfig.mulligans` (CR 103.5 London mulligan, or none)."""
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
the four "special" Traitors only when asked for).  Left at its default,
``GameConfig.identity_pool`` is the first of these, in this order, that can
deal the table."""
MAX_PLAYERS = 12
"""Largest table the environment's fixed-size spaces are built for."""


def did_you_mean(unknown: Iterable[str], known: Iterable[str], prefix: str = "") -> str:
    """`` (did you mean x?)`` naming, for each of the ``unknown`` names in sorted order, the
    closest of the ``known`` ones (:func:`difflib.get_close_matches`, cutoff 0.6), for an
    unknown-key error; ``""`` when none is close.  Names are compared without ``prefix`` (e.g.
    ``"--"`` for command-line flags, which would otherwise look alike) and named with it."""
    known = sorted(k.removeprefix(prefix) for k in known)
    near = [m[0] for u in sorted(unknown)
            if (m := difflib.get_close_matches(u.removeprefix(prefix), known, n=1, cutoff=0.6))]
    return f" (did you mean {', '.join(prefix + n for n in dict.fromkeys(near))}?)" if near else ""


_UNSET_TEXT = {"starting_life": "by the rules", "identities": "dealt at random", "identity_pool": "the narrowest that deals the table",
               "decks": "random presets", "role_counts": "recommended", "talk": "the game's default",
               "throne_deal": "shuffled", "vanguard": "off", "archenemy": "off", "scheme_decks": "random",
               "planechase": "off", "planar_deck": "every planar card"}
"""What a :class:`GameConfig` field left at None means, in words (:func:`field_text`)."""


def field_text(name: str, value: Any) -> str:
    """A :class:`GameConfig` field's value as a line for people says it: None in words, as the
    field's documentation means it (``planechase`` ``off``, ``decks`` ``random presets``,
    ``starting_life`` ``by the rules``; ``none`` for a field this version does not have), True
    and False as ``on`` and ``off``, anything else as its repr (``'single'``, ``20``,
    ``['a', 'b']``).  The one wording of config values in messages and reports (a results
    file's config, compared, pooled or summed up; a policy's game against the one played; a
    training setting, whose None is ``none``)."""
    if value is None:
        return _UNSET_TEXT.get(name, "none")
    if isinstance(value, bool):
        return "on" if value else "off"
    return repr(value)


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
            None deals from the pool at random (CR 907.4).  Any legal
            identity deck may be dealt (CR 907.3b, :func:`rules.check_identity_deck`),
            not only the recommended one of CR 907.3c.
        identity_pool: rarities dealt from (``uncommon``, ``rare``, ``mythic``,
            ``special``), or a name of :data:`RARITY_POOLS` ("uncommon",
            "rare", "mythic", "all"); only implemented identities are dealt.
            None (the default) picks the first named pool, in the order of
            :data:`RARITY_POOLS`, that holds enough implemented identities of
            each role (after bans) for the table: "uncommon" whenever it can,
            wider for e.g. Backstab Rumble at 6+ players.  The attribute always
            holds the resolved tuple of rarities (so :meth:`to_dict` records
            the pool a replay needs).  A pool given explicitly is never widened:
            too few cards of a role raises ``ValueError`` naming the pool to pass.
        banned_identities: identity names never dealt.
        variant: identity-deck variant, one of :data:`VARIANTS`: "standard",
            "backstab_rumble" (TR11: one Leader, all others Traitors; the one
            variant whose deck breaks CR 907.3b, on purpose) or
            "simple_roles" (basic lands as role cards, no identity abilities;
            a fixed deal then names Plains, Island, Mountain, Swamp).
        role_counts: the identity deck of a dealt game, cards per role, e.g.
            ``{"leader": 1, "assassin": 3, "traitor": 2}`` (keys are role names,
            case-insensitive, or :class:`Role`; roles left out count 0).  Any
            deck legal under CR 907.3b; None (the default) deals the
            recommended deck (CR 907.3c, the FAQ for 9+; :func:`role_distribution`).
            Works with "standard" and "simple_roles"; "backstab_rumble" fixes
            its own deck, so role_counts is refused there.  With a fixed deal
            (``identities``) the deal must have exactly these counts.  Stored as
            ``(role name, count)`` pairs for all four roles in :class:`Role`
            order, e.g. ``(("leader", 1), ("guardian", 0), ("assassin", 3),
            ("traitor", 2))``, so the config stays hashable; :meth:`to_dict`
            writes a ``{name: count}`` dict.
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
        mulligans: "london" (default): before the first turn each player, the
            starting player first and then in turn order, keeps or takes a
            mulligan; a kept hand after N mulligans puts N - 1 cards on the
            bottom of the library (CR 103.5 London mulligan; 103.5c: the first
            mulligan is free in multiplayer); "none": the opening hands are
            kept as dealt (the engine's game before issue #11 section 2).
        forced_decisions: what happens to a decision with a single legal action
            (CR 117.3: every player receives priority; most of the time the only
            thing one can do with it is pass).  "auto" (default; DESIGN section 4):
            it is taken automatically and never shown, and a seat that can only
            pass passes without a decision, so which seats are asked depends on
            what they hold (a face-down identity that can be unveiled, an
            instant); other seats do not learn it in the AEC environment, where
            each reads only its own decisions.  "shown": every decision is shown,
            a single-option one included, and every seat still in the game gets a
            PRIORITY decision each time it receives priority, so the order in
            which seats decide depends only on public information and public
            actions (but for what the rules make so: the game ends, and a team
            loses, on hidden roles, revealed as it happens, CR 907.7, 907.9; and
            a spell cast from hand is logged once its X and targets are chosen,
            no other seat deciding in between): what
            :func:`treachery_env.parallel_env` uses, where every seat steps at
            every decision of any seat.  More decisions a game (about
            5.5 times as many in a default 5-player game of random play:
            ``python -m treachery_env.benchmark --forced auto shown``).
        concession: who may concede as an action (the CONCEDE action, CR
            104.3a): False (default: nobody; bots and training never see it),
            True (every seat), or a list of seats (e.g. the person's seat in
            ``treachery play``; the bots' seats never see the action).  The
            action is added to every shown decision (two or more options, any with
            forced_decisions="shown") of
            such a seat.  ``Game.concede`` works for every seat regardless.
        talk: table talk (TR: "Table talk is part of the game"; see
            :mod:`treachery_env.engine.talk`): "structured" (default) lets
            players make public, non-binding claims, accusations, threats,
            requests and truce offers from a fixed vocabulary (the TALK
            actions); "none" is the silent game: no talk action is ever legal
            and the observation's talk block stays zeros.
        talk_limit: messages a player may say per turn (each player's turn
            counts one), 0-10; answering a truce offer does not count.
        game: the hidden-role game, one of :data:`GAMES`: "treachery" (the
            default; every field above) or "throne_magic" (Throne Magic,
            ``../shared/rules/throne-magic.txt``: a secret Role card per
            player instead of an identity, the Throne, Holdings and Seasons;
            see ``docs/throne_magic.md``).  With
            "throne_magic" the identity fields (``identities``,
            ``identity_pool``, ``banned_identities``, ``variant``,
            ``role_counts``) must stay at their defaults and ``talk`` is
            "none" (its vocabulary names Treachery's roles).
        throne_roles: Throne Magic's Roles ("Choosing Role Cards for the
            Game"): "basic" (default; the Basic Game, 4-7 players), "random"
            (the Random method, drawn from the game's seed), "draft" (the
            seats choose them in turn from a random one, as decisions, before
            the deal) or a list of Role names, one per seat (the Sculpted
            method, checked by :func:`treachery_env.throne_roles.check_sculpted`).  The Roles are
            then shuffled and dealt one per seat.  Ignored by Treachery
            (must stay "basic").
        throne_deal: a fixed Throne Magic deal (scenarios, tests): one Role
            name per seat, in seat order, instead of a shuffled deal; the set
            must be the one ``throne_roles`` gives ("basic" or a Sculpted
            list; "random" is refused).  None (default): shuffled.
        throne: Throne Magic's Throne ("Choosing a Throne Card for the
            Game"): "random" (default; drawn from the game's seed), "king"
            (The King chooses it before the first turn: The King must be in
            the game, so ``throne_roles`` is "basic" or a Sculpted list naming
            The King) or a Throne's name (the one the players agreed on).
        seasons: Throne Magic's Seasons ("Seasons (Advanced)"): Spring first,
            the next Season at a turn's untap step when a player left during
            the previous turn; Summer, Autumn and Winter act at each player's
            upkeep.  False (default): no Seasons.
        holdings: Throne Magic's Holdings ("Holdings (Advanced)"): one per
            starting player, all 10 with more than 10 players, drawn at random,
            uncontrolled at first; any player may take one by combat damage.
            False (default): none.
        vanguard: the Vanguard variant (CR 902, :mod:`treachery_env.vanguards`), in
            Treachery and in Throne Magic: None (default: no vanguards), "random"
            (a different Vanguard card per seat, drawn from the game's seed) or a
            Vanguard name per seat, in seat order (two seats may share one).  Each
            player's card is face up in the command zone (CR 902.3): starting life
            ``life`` plus its life modifier, then identity bonuses (CR 902.4); an
            opening hand of ``starting_hand_size`` plus its hand modifier, every
            mulligan's hand included (CR 902.5, 902.5a); a maximum hand size of
            ``max_hand_size`` plus it (CR 902.5b); its ability triggers from the
            command zone (CR 902.7).  A modifier leaving a negative hand size is
            refused.  The observation gets a vanguard block (its own layout).
        archenemy: Archenemy's schemes (CR 904, ``docs/fidelity.md`` section 11):
            None (default: no schemes) or "supervillain_rumble" (CR 904.12: every
            player is an archenemy with a scheme deck of their own, 40 starting
            life (CR 904.5) unless ``starting_life`` says otherwise, a scheme set
            in motion at the start of each of their precombat main phases, CR
            904.9); in Treachery and in Throne Magic.  The classic team game (one
            archenemy against a team, CR 904.2) is not modelled.
        scheme_decks: a fixed scheme deck per seat (scenarios, tests), each a list of
            scheme names (:mod:`treachery_env.schemes`) in order, top first, legal by
            CR 904.3 (20 or more cards, at most two of a name) and not shuffled; None
            (default): each a random legal deck from the game's seed.  Only with
            ``archenemy``.
        planechase: the Planechase variant (CR 901), in Treachery or Throne Magic: None
            (default: none), "single" (one communal planar deck, CR 901.16) or "per_player"
            (a planar deck per player, CR 901.3-901.4: each player's is ``planar_deck``
            shuffled on its own).  A face-up plane, the planar controller and the planar
            die (the PLANAR action); see :mod:`treachery_env.engine.planechase`.
        planar_deck: the planes and phenomena of the planar deck (CR 901.3), names from
            :func:`treachery_env.planes.names`, all different, at least
            :data:`treachery_env.planes.MIN_PLANAR_DECK`; None (default) with
            ``planechase``: every planar card of :mod:`treachery_env.planes`.  Only with
            ``planechase``.
    """

    num_players: int = 5
    commander: bool = True
    starting_life: int | None = None
    starting_hand_size: int = 7
    max_hand_size: int = 7
    identities: tuple[str, ...] | None = None
    identity_pool: tuple[str, ...] | None = None
    banned_identities: tuple[str, ...] = ()
    variant: str = "standard"
    max_turns: int = 250
    decks: tuple[str, ...] | None = None
    recommended_exclusions: bool = True
    role_counts: tuple[tuple[str, int], ...] | None = None
    priority_windows: str = "full"
    mulligans: str = "london"
    forced_decisions: str = "auto"
    concession: bool | tuple[int, ...] = False
    talk: str | None = None
    talk_limit: int = 2
    game: str = "treachery"
    throne_roles: str | tuple[str, ...] = "basic"
    throne_deal: tuple[str, ...] | None = None
    throne: str = "random"
    seasons: bool = False
    holdings: bool = False
    vanguard: str | tuple[str, ...] | None = None
    archenemy: str | None = None
    scheme_decks: tuple[tuple[str, ...], ...] | None = None
    planechase: str | None = None
    planar_deck: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        # not fields: whether the pool / talk were left to the default (``replace`` then resolves them anew)
        object.__setattr__(self, "_default_pool", self.identity_pool is None)
        object.__setattr__(self, "_default_talk", self.talk is None)
        if self.talk is None:       # structured talk in Treachery; Throne Magic's is not built yet
            object.__setattr__(self, "talk", "none" if self.game == "throne_magic" else "structured")
        if not isinstance(self.throne_roles, (str, tuple)) and isinstance(self.throne_roles, (list, np.ndarray)):
            # a list of Role names (a numpy array of them too): a tuple, so the config stays hashable
            object.__setattr__(self, "throne_roles", tuple(str(x) if isinstance(x, np.str_) else x
                                                            for x in self.throne_roles))
        if self.identity_pool is None:
            object.__setattr__(self, "identity_pool", RARITY_POOLS["uncommon"])   # widened in _validate
        elif isinstance(self.identity_pool, str):
            if self.identity_pool not in RARITY_POOLS:
                raise ValueError(f"GameConfig.identity_pool: unknown pool {self.identity_pool!r}; use a list of "
                                 f"rarities from {list(RARITIES)} or one of {list(RARITY_POOLS)}")
            object.__setattr__(self, "identity_pool", RARITY_POOLS[self.identity_pool])
        # normalise lists to tuples so the config stays hashable
        for name in ("identities", "identity_pool", "banned_identities", "decks", "throne_deal", "planar_deck"):
            v = getattr(self, name)
            if v is None:
                if name in ("identities", "decks", "throne_deal", "planar_deck"):
                    continue
                raise ValueError(f"GameConfig.{name}: must be a list of names, got None")
            if isinstance(v, np.ndarray) and v.ndim == 1:     # a numpy array of names is the list it holds
                v = [str(x) if isinstance(x, np.str_) else x for x in v.tolist()]
            if not isinstance(v, (list, tuple)):
                raise ValueError(f"GameConfig.{name}: must be a list of names, got {_short(v)}")
            bad = [x for x in v if not isinstance(x, str)]
            if bad:
                raise ValueError(f"GameConfig.{name}: every entry must be a name (str), got {bad[0]!r}")
            object.__setattr__(self, name, tuple(v))
        if isinstance(self.concession, list):
            object.__setattr__(self, "concession", tuple(self.concession))
        if isinstance(self.vanguard, (list, np.ndarray)):      # a name per seat: a tuple, so the config stays hashable
            object.__setattr__(self, "vanguard", tuple(str(x) if isinstance(x, np.str_) else x for x in self.vanguard))
        if isinstance(self.scheme_decks, (list, tuple, np.ndarray)) and all(
                isinstance(d, (list, tuple, np.ndarray)) for d in self.scheme_decks):     # numpy arrays of names too
            object.__setattr__(self, "scheme_decks", tuple(
                tuple(str(x) if isinstance(x, np.str_) else x for x in (d.tolist() if isinstance(d, np.ndarray) else d))
                for d in self.scheme_decks))
        # numpy scalars (np.int64(5), np.True_) are the numbers they hold, as actions are
        for f_ in fields(self):
            v = getattr(self, f_.name)
            if isinstance(v, (np.integer, np.bool_)):
                object.__setattr__(self, f_.name, v.item())
            elif isinstance(v, tuple) and any(isinstance(x, np.integer) for x in v):
                object.__setattr__(self, f_.name, tuple(x.item() if isinstance(x, np.integer) else x for x in v))
        self._validate()
        object.__setattr__(self, "_variant_blocks", self.planechase is not None or self.vanguard is not None
                           or self.archenemy is not None)

    # ------------------------------------------------------------------
    @property
    def life(self) -> int:
        """Starting life points: ``starting_life``, else 40 for an archenemy (CR 904.5, 904.12c),
        else the Commander default (CR 907.5)."""
        if self.starting_life is not None:
            return self.starting_life
        if self.archenemy is not None:      # CR 904.5 with 904.12c: every archenemy starts at 40
            return 40
        return 40 if self.commander else 20

    def replace(self, **changes: Any) -> "GameConfig":
        """A copy with ``changes`` applied (validated).  A pool left to the
        default is chosen again for the new table (see ``identity_pool``)."""
        d = asdict(self)
        unknown = set(changes) - set(d)
        if unknown:
            raise ValueError(f"unknown GameConfig fields {sorted(unknown)}"
                             + (did_you_mean(unknown, d) or f"; allowed: {sorted(d)}"))
        if getattr(self, "_default_pool", False):
            d["identity_pool"] = None
        if getattr(self, "_default_talk", False):
            d["talk"] = None
        d.update(changes)
        return GameConfig(**d)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form (tuples become lists, ``role_counts`` a ``{name: count}``
        dict); :meth:`from_dict` rebuilds an equal config (the resolved
        ``identity_pool`` is written out, so a replay deals from the same pool)."""
        d = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}
        if self.role_counts is not None:
            d["role_counts"] = dict(self.role_counts)
        return d

    def distribution(self) -> dict[Role, int]:
        """Cards of each role in this game's identity deck (public, TR2.3):
        ``role_counts``, else the roles of the fixed deal (``identities``), else
        the variant's recommended deck (:func:`role_distribution`).

        Returns:
            ``{Role.LEADER: l, Role.GUARDIAN: g, Role.ASSASSIN: a, Role.TRAITOR: t}``.
        """
        if self.role_counts is not None:
            return {Role.parse(r): c for r, c in self.role_counts}
        if self.identities is not None:
            from . import identities as ids
            get = ids.simple_role_card if self.variant == "simple_roles" else ids.get
            got = Counter(get(n).role for n in self.identities)
            return {r: got.get(r, 0) for r in Role}
        return role_distribution(self.num_players, self.variant)

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
            raise ValueError(f"unknown GameConfig fields {sorted(unknown)}"
                             + (hint or did_you_mean(unknown, allowed) or f"; allowed: {sorted(allowed)}"))
        return cls(**d)

    @property
    def has_variant_blocks(self) -> bool:
        """Whether a game of this config has CR 900 variant blocks at the end of its observation
        (:func:`treachery_env.observation.config_layout`): Planechase, Vanguard or Archenemy's schemes
        (set once as the config is made: ``Game.observation`` reads it at every step)."""
        return self._variant_blocks

    @property
    def holding_count(self) -> int:
        """Throne Magic's Holdings in a game of this config: min(players, 10) with
        ``holdings`` ("Holdings (Advanced)"), else 0 (the HOLDING action block's size)."""
        if self.game != "throne_magic" or not self.holdings:
            return 0
        from .throne_cards import MAX_HOLDINGS
        return min(self.num_players, MAX_HOLDINGS)

    def may_concede(self, seat: int) -> bool:
        """Whether ``seat`` gets the CONCEDE action in its shown decisions
        (:attr:`concession`; CR 104.3a)."""
        c = self.concession
        return c if isinstance(c, bool) else seat in c

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

        if self.game not in GAMES:
            bad("game", f"must be one of {list(GAMES)}, got {self.game!r}")
        if not is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            why = ('Throne Magic: four or more players, "Choosing Role Cards for the Game"; the environment\'s '
                   'tables go up to 12' if self.game == "throne_magic" else "CR 907.2 needs four or more players")
            bad("num_players", f"must be an int from {MIN_PLAYERS} to {MAX_PLAYERS} ({why}), got {self.num_players!r}")
        changed = [] if self.game == "throne_magic" else [
            f for f, default in (("throne_roles", "basic"), ("throne_deal", None), ("throne", "random"),
                                 ("seasons", False), ("holdings", False))
            if type(getattr(self, f)) is not type(default) or getattr(self, f) != default]
        if changed:
            which = changed[0]
            bad(which, f"is a Throne Magic option; pass game='throne_magic' to play it (this game is "
                f"{self.game!r}), got {getattr(self, which)!r}")
        if not isinstance(self.commander, bool):
            bad("commander", f"must be True or False, got {self.commander!r}")
        self._validate_schemes()
        if self.priority_windows not in PRIORITY_WINDOWS:
            bad("priority_windows", f"must be one of {list(PRIORITY_WINDOWS)} (CR 500-514 windows, or the main "
                f"phases only), got {self.priority_windows!r}")
        if self.forced_decisions not in FORCED_DECISIONS:
            bad("forced_decisions", f"must be one of {list(FORCED_DECISIONS)} (single-option decisions taken "
                f"automatically, or shown), got {self.forced_decisions!r}")
        if self.mulligans not in MULLIGANS:
            bad("mulligans", f"must be one of {list(MULLIGANS)} (CR 103.5 London mulligan, or no mulligans), "
                f"got {self.mulligans!r}")
        c = self.concession
        if not isinstance(c, bool):
            if (not isinstance(c, tuple) or not all(is_int(x) and 0 <= x < self.num_players for x in c)
                    or len(set(c)) != len(c)):
                bad("concession", f"must be True, False or a list of distinct seats from 0 to "
                    f"{self.num_players - 1} (who may concede, CR 104.3a), got {c!r}")
        if self.talk not in TALK_MODES:
            bad("talk", f"must be one of {list(TALK_MODES)} (structured table talk, or the silent game), "
                f"got {self.talk!r}")
        if not is_int(self.talk_limit) or not 0 <= self.talk_limit <= MAX_TALK_LIMIT:
            bad("talk_limit", f"must be an int from 0 to {MAX_TALK_LIMIT} (messages per player per turn), "
                f"got {self.talk_limit!r}")
        if not isinstance(self.recommended_exclusions, bool):
            bad("recommended_exclusions", f"must be True or False, got {self.recommended_exclusions!r}")
        if self.starting_life is not None and (not is_int(self.starting_life) or not 1 <= self.starting_life <= 1000):
            bad("starting_life", f"must be an int from 1 to 1000 (unset: the game's default), "
                f"got {self.starting_life!r}")
        for f_ in ("starting_hand_size", "max_hand_size"):
            v = getattr(self, f_)
            if not is_int(v) or not 0 <= v <= 15:
                bad(f_, f"must be an int from 0 to 15, got {v!r}")
        if not is_int(self.max_turns) or not 1 <= self.max_turns <= 10000:
            bad("max_turns", f"must be an int from 1 to 10000, got {self.max_turns!r}")
        from .cards import DECKS
        if self.decks is not None:
            if len(self.decks) != self.num_players:
                bad("decks", f"needs one deck per seat ({self.num_players}), got {len(self.decks)}")
            for d in self.decks:
                if d not in DECKS:
                    bad("decks", f"unknown deck {d!r}; allowed: {sorted(DECKS)}")
        self._validate_vanguard()
        self._validate_planechase()
        if self.game == "throne_magic":
            self._validate_throne()     # the identity fields are Treachery's: checked there instead
            return
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


        if self.role_counts is not None:
            if self.variant == "backstab_rumble":
                bad("role_counts", "Backstab Rumble (TR11) fixes its own identity deck (1 Leader, the others "
                    "Traitors); role_counts works with the standard and simple_roles variants")
            try:
                counts = check_identity_deck(self.role_counts, self.num_players, self.variant)
            except ValueError as e:
                bad("role_counts", str(e))
            object.__setattr__(self, "role_counts", tuple((r.name.lower(), c) for r, c in counts.items()))
        asked = {Role.parse(r): c for r, c in self.role_counts} if self.role_counts is not None else None
        impl = set(ids.implemented())
        if self.identities is not None:
            simple = self.variant == "simple_roles"
            if len(self.identities) != self.num_players:
                what = "role card" if simple else "identity"
                bad("identities", f"needs one {what} per seat ({self.num_players}), got {len(self.identities)}")
            roles: Counter = Counter()
            for n in self.identities:
                try:
                    card = ids.simple_role_card(n) if simple else ids.get(n)
                except ValueError as e:
                    bad("identities", str(e))
                if not simple and n not in impl:
                    bad("identities", f"{n!r} is not implemented yet; implemented: {sorted(impl)}")
                roles[card.role] += 1
            if not simple:
                dup = [n for n, c in Counter(self.identities).items() if c > 1]
                if dup:
                    bad("identities", f"each identity card exists once, but {dup} is dealt more than once")
                banned = [n for n in self.identities if n in self.banned_identities]
                if banned:
                    bad("identities", f"the deal holds {banned}, which banned_identities bans; a fixed deal and "
                        f"the bans must agree")
            try:
                got = check_identity_deck(roles, self.num_players, self.variant)
            except ValueError as e:
                bad("identities", str(e))
            if asked is not None and got != asked:
                bad("identities", f"the deal has {format_role_counts(got)} but role_counts asks for "
                    f"{format_role_counts(asked)}")
        elif self.variant != "simple_roles":
            self._resolve_pool(asked or role_distribution(self.num_players, self.variant))

    def _validate_vanguard(self) -> None:
        """The Vanguard option (CR 902): None, "random", or a known Vanguard per seat whose hand
        modifier leaves no negative hand (CR 902.3, 902.5, 902.5b; :func:`vanguards.check_assignment`)."""
        v = self.vanguard
        if v is None:
            return
        from . import vanguards
        if isinstance(v, str):
            if v != "random":
                raise ValueError(f"GameConfig.vanguard: must be 'random' or a list of a Vanguard name per seat "
                                 f"(CR 902.3; unset: no Vanguard), got {v!r}")
            if self.num_players > len(vanguards.names()):
                raise ValueError(f"GameConfig.vanguard: 'random' deals a different Vanguard per seat, but there are "
                                 f"{len(vanguards.names())} for {self.num_players} players")
            low = min(c.hand for c in vanguards.all_vanguards())
            if min(self.starting_hand_size, self.max_hand_size) + low < 0:
                raise ValueError(f"GameConfig.vanguard: a random Vanguard's hand modifier may be {low:+d}, which "
                                 f"leaves a negative hand size from starting_hand_size={self.starting_hand_size}, "
                                 f"max_hand_size={self.max_hand_size} (CR 902.5, 902.5b)")
            return
        if not isinstance(v, tuple) or not all(isinstance(x, str) for x in v):
            raise ValueError(f"GameConfig.vanguard: must be 'random' or a list of a Vanguard name per seat "
                             f"(CR 902.3; unset: no Vanguard), got {v!r}")
        try:
            vanguards.check_assignment(v, self.num_players, self.starting_hand_size, self.max_hand_size)
        except ValueError as e:
            raise ValueError(f"GameConfig.vanguard: {e}") from None

    def _validate_schemes(self) -> None:
        """The checks of ``archenemy`` and ``scheme_decks`` (CR 904.3, 904.12).

        Raises:
            ValueError: for an unknown Archenemy option (the classic team game among them), decks
                without the option, or decks that are not one legal scheme deck per seat.
        """
        from . import schemes

        def bad(fld: str, msg: str) -> None:
            raise ValueError(f"GameConfig.{fld}: {msg}")

        if self.archenemy not in ARCHENEMY:
            bad("archenemy", f"must be one of {list(ARCHENEMY)[1:]} (CR 904.12, every player an archenemy; "
                f"the classic team game of CR 904.2, one archenemy against a team taking shared turns, is not "
                f"modelled; unset: no Archenemy), got {self.archenemy!r}")
        if self.scheme_decks is None:
            return
        if self.archenemy is None:
            bad("scheme_decks", "scheme decks are Archenemy's (CR 904.3); pass archenemy='supervillain_rumble'")
        if not isinstance(self.scheme_decks, tuple) or len(self.scheme_decks) != self.num_players:
            bad("scheme_decks", f"needs one scheme deck (a list of scheme names) per seat, {self.num_players}, got "
                f"{_short(self.scheme_decks)}")
        for i, deck in enumerate(self.scheme_decks):
            try:
                schemes.check_deck(deck, f"seat {i}'s deck")
            except ValueError as e:
                bad("scheme_decks", str(e))

    def _validate_planechase(self) -> None:
        """The checks of the Planechase options (CR 901.3, 901.16a): the mode, and a planar deck
        of at least :data:`~treachery_env.planes.MIN_PLANAR_DECK` known planar cards with
        different names (with at most 2 phenomena in the pool, such a deck holds a plane, CR 901.5)."""
        from . import planes as pl

        if self.planechase is None:
            if self.planar_deck is not None:
                raise ValueError(f"GameConfig.planar_deck: is a Planechase option; pass planechase='single' or "
                                 f"'per_player' to play it, got {list(self.planar_deck)!r}")
            return
        if self.planechase not in pl.MODES:
            raise ValueError(f"GameConfig.planechase: must be one of {list(pl.MODES)} (CR 901.16 single "
                             f"planar deck, or one per player, CR 901.3; unset: no Planechase), "
                             f"got {self.planechase!r}")
        deck = self.planar_deck if self.planar_deck is not None else pl.names()
        for nm in deck:
            try:
                pl.get(nm)
            except ValueError as e:
                raise ValueError(f"GameConfig.planar_deck: {e}") from None
        dup = sorted(nm for nm, c in Counter(deck).items() if c > 1)
        if dup:
            raise ValueError(f"GameConfig.planar_deck: every card in a planar deck must have a different name "
                             f"(CR 901.3, 901.16a), but {dup} appear more than once")
        if len(deck) < pl.MIN_PLANAR_DECK:
            raise ValueError(f"GameConfig.planar_deck: Planechase without enough planes: a planar deck needs at "
                             f"least {pl.MIN_PLANAR_DECK} cards (CR 901.3, 901.16a), got {len(deck)}")

    def _validate_throne(self) -> None:
        """The checks of a Throne Magic config: the fields every game shares have been
        checked; Treachery's identity fields must stay at their defaults, ``talk`` is
        "none", and the Roles chosen must be a legal set ("Choosing Role Cards for the
        Game"; :mod:`treachery_env.throne_roles`)."""
        from . import throne_roles as tr

        def bad(fld: str, msg: str) -> None:
            raise ValueError(f"GameConfig.{fld}: {msg}")

        kept = {"identities": self.identities is None,
                "identity_pool": self._default_pool or self.identity_pool == RARITY_POOLS["uncommon"],
                "banned_identities": not self.banned_identities, "variant": self.variant == "standard",
                "role_counts": self.role_counts is None}
        for fld, ok in kept.items():
            if not ok:
                bad(fld, f"is a Treachery option; Throne Magic deals Role cards (throne_roles, throne_deal), "
                    f"so leave it at its default, got {getattr(self, fld)!r}")
        if self.talk != "none":
            bad("talk", "Throne Magic has no table talk yet (the structured vocabulary names Treachery's "
                "roles); pass talk='none' or leave it out")
        n = self.num_players
        method = self.throne_roles
        try:
            if isinstance(method, str):
                if method not in THRONE_ROLE_METHODS:
                    bad("throne_roles", f"must be one of {list(THRONE_ROLE_METHODS)} or a list of Role names "
                        f"(the Sculpted method), got {method!r}")
                if method == "basic":
                    tr.basic_roles(n)
            else:
                tr.check_sculpted(method, n)
        except ValueError as e:
            if str(e).startswith("GameConfig."):
                raise
            bad("throne_roles", str(e))
        if self.throne_deal is not None:
            if method in ("random", "draft"):
                bad("throne_deal", f"a fixed deal needs a set known in advance: throne_roles 'basic' or a "
                    f"Sculpted list, not {method!r}")
            try:
                deal = tr.role_list(self.throne_deal, "throne_deal")
            except ValueError as e:
                bad("throne_deal", str(e))
            want = tr.basic_roles(n) if method == "basic" else list(method)
            if sorted(deal) != sorted(want):
                bad("throne_deal", f"deals {sorted(deal)} but throne_roles={method!r} gives the Roles "
                    f"{sorted(want)}; a fixed deal seats the game's own Roles")
        from . import throne_cards as tc
        for fld in ("seasons", "holdings"):
            if not isinstance(getattr(self, fld), bool):
                bad(fld, f"must be True or False, got {getattr(self, fld)!r}")
        if not isinstance(self.throne, str):
            bad("throne", f"must be 'random', 'king' or a Throne's name, got {self.throne!r}")
        if self.throne == "king":
            if method in ("random", "draft"):
                bad("throne", f"The King chooses the Throne only when The King is in the game; the "
                    f"{method.title()} method may leave him out: use throne_roles 'basic' or a Sculpted list "
                    f"with The King")
            try:
                tc.throne_candidates("king", tr.basic_roles(n) if method == "basic" else list(method))
            except ValueError as e:
                bad("throne", str(e))
        elif self.throne != "random":
            try:
                tc.get("throne", self.throne)
            except ValueError as e:
                bad("throne", f"{e} (or 'random', 'king')")

    def _shortfall(self, rarities: tuple[str, ...], dist: dict[Role, int]) -> tuple[Role, int, int] | None:
        """The first role of ``dist`` that the implemented, unbanned identities
        of ``rarities`` cannot fill, as ``(role, have, need)``; None if all can."""
        from . import identities as ids
        impl = set(ids.implemented())
        have: Counter = Counter(i.role for i in ids.all_identities()
                                if i.rarity in rarities and i.name in impl and i.name not in self.banned_identities)
        for role in Role:
            if have[role] < dist.get(role, 0):
                return role, have[role], dist[role]
        return None

    def _resolve_pool(self, dist: dict[Role, int]) -> None:
        """Check that the pool can deal ``dist``; a default pool is widened to
        the first named pool of :data:`RARITY_POOLS` that can (see ``identity_pool``)."""
        short = self._shortfall(self.identity_pool, dist)
        if short is None:
            return
        fits = [name for name, rar in RARITY_POOLS.items() if self._shortfall(rar, dist) is None]
        if self._default_pool and fits:
            object.__setattr__(self, "identity_pool", RARITY_POOLS[fits[0]])
            return
        rarities = self.identity_pool if not self._default_pool else RARITY_POOLS["all"]
        role, have, need = self._shortfall(rarities, dist) or short
        bans = " after bans" if self.banned_identities else ""
        deck = ("the Backstab Rumble deck (TR11)" if self.variant == "backstab_rumble"
                else "the identity deck (CR 907.3b)")
        wider = [name for name in fits if set(self.identity_pool) <= set(RARITY_POOLS[name])]
        if fits:
            pick = (wider or fits)[0]
            fix = f"pass identity_pool={pick!r} (rarities {list(RARITY_POOLS[pick])})"
        else:
            fix = "no rarity pool has enough, not even identity_pool='all'; ban fewer identities"
        raise ValueError(f"GameConfig.identity_pool: rarities {list(rarities)} give {have} implemented "
                         f"{role.name.title()} identities{bans}, but {deck} for {self.num_players} players "
                         f"needs {need}; {fix}")
