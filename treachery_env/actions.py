"""The flat ``Discrete`` action space and what each index means.

Every decision of the game is one choice among action indices laid out in
fixed blocks, so an index keeps its meaning across states (the mask says which
are legal now).  Seats in ``PLAYER`` and ``PERM`` are *relative* to the deciding
seat: 0 is that seat, 1 the next in turn order, and so on (DESIGN section 4).

Blocks, in order (sizes for ``n`` players):

=============  =========  =====================================================
block          size       meaning
=============  =========  =====================================================
PASS           1          pass priority / finish declaring / decline / done
HAND           15         the card in hand slot ``i`` (play, cast, discard, exile)
COMMANDER      1          cast your commander from the command zone
UNVEIL         16         unveil your identity with ``X = i`` (CR 702.187c)
IDENTITY_AB    3          activate ability ``i`` of your face-up identity
TOKEN_AB       5          activate a Clue, Food, Blood, Map or Junk token
OTHER          8          cast or play card ``i`` you may use from another zone
PLAYER         n          the player at relative seat ``i``
PERM           n * 20     the creature in slot ``j`` of relative seat ``i``
STACK          10         the stack object at depth ``i`` (0 = top)
CHOICE         40         option ``i`` of a list (a number, a mode, a card)
WALKER         (n+1) * 4  the attackable permanent (planeswalker) in slot ``j`` of
                          relative seat ``i`` (attack it, target it); row ``n``
                          is reserved for uncontrolled ones (Throne Magic's
                          Throne and Holdings in the middle of the table)
LOYALTY        4 * 3      activate loyalty ability ``k`` of your planeswalker in
                          slot ``j`` (index ``3j + k``; CR 606)
HOLDING        h          Throne Magic's Holding ``i`` of the game (attack it);
                          ``h`` = its Holdings, min(n, 10), with
                          ``GameConfig(holdings=True)``, else 0 (no block)
PLANAR         1 or 0     roll the planar die (Planechase's special action,
                          CR 901.9); present only with ``GameConfig.planechase``
TALK           8n + 6     table talk (:data:`TALK_ACTIONS`): claim role ``r``
                          (4); accuse relative seat ``i`` of role ``r``
                          (``4i + r``, n x 4); defend, threaten, protect
                          relative seat ``i`` (n each); request "don't attack
                          me" (1); offer relative seat ``i`` a truce (n);
                          accept the truce offered to you (1)
CONCEDE        1          concede the game (CR 104.3a); legal only for seats that
                          ``GameConfig.concession`` allows, in shown decisions
=============  =========  =====================================================

Roles ``r`` in TALK are :class:`~treachery_env.rules.Role` values (Leader 0,
Guardian 1, Assassin 2, Traitor 3).  TALK and CONCEDE come last (WALKER and
LOYALTY sit between CHOICE and TALK); CONCEDE is the last index; :meth:`ActionLayout.talk` and
:meth:`ActionLayout.talk_decode` translate within TALK
(:mod:`treachery_env.engine.talk` has the rules).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_action", "is_int", "ActionLayout", "MAX_HAND", "MAX_X", "MAX_PERMS", "MAX_STACK", "MAX_CHOICE",
           "MAX_OTHER", "MAX_WALKERS", "N_LOYALTY_ABILITIES", "TOKEN_ABILITIES", "N_IDENTITY_ABILITIES",
           "TALK_ACTIONS", "talk_size"]

MAX_HAND = 15
MAX_X = 15
N_IDENTITY_ABILITIES = 3
TOKEN_ABILITIES = ("Clue", "Food", "Blood", "Map", "Junk")
MAX_PERMS = 20
MAX_STACK = 10
MAX_CHOICE = 40
MAX_OTHER = 8
MAX_WALKERS = 4
"""Attackable-permanent (planeswalker) slots per player in the WALKER block and the observation."""
N_LOYALTY_ABILITIES = 3
"""Loyalty abilities per planeswalker in the LOYALTY block (CR 606)."""
TALK_ACTIONS = ("claim", "accuse", "defend", "threaten", "protect", "request", "offer", "accept")
"""Sub-blocks of the TALK block, in order (see the table above)."""
N_TALK_ROLES = 4


def _talk_sizes(n: int) -> tuple[int, ...]:
    """Sizes of the TALK sub-blocks for ``n`` players, in :data:`TALK_ACTIONS` order."""
    return (N_TALK_ROLES, n * N_TALK_ROLES, n, n, n, 1, n, 1)


def talk_size(n: int) -> int:
    """Size of the TALK block for ``n`` players (``8n + 6``)."""
    return sum(_talk_sizes(n))


class ActionLayout:
    """Offsets of the action blocks for a table of ``num_players``.

    Attributes:
        n: number of players.
        holdings: Throne Magic's Holdings in the game (the HOLDING block's size; 0: no block,
            Treachery's layout).
        planar: whether the PLANAR block (one action: roll the planar die, CR 901.9) is there
            (Planechase); False: no block, Treachery's layout.
        size: total number of actions (the ``Discrete`` space size).
        PASS, HAND, COMMANDER, UNVEIL, IDENTITY_AB, TOKEN_AB, OTHER, PLAYER, PERM,
        STACK, CHOICE, WALKER, LOYALTY, HOLDING, PLANAR, TALK, CONCEDE: first index of each block.
    """

    __slots__ = ("n", "PASS", "HAND", "COMMANDER", "UNVEIL", "IDENTITY_AB", "TOKEN_AB", "OTHER",
                 "PLAYER", "PERM", "STACK", "CHOICE", "WALKER", "LOYALTY", "HOLDING", "holdings", "TALK", "CONCEDE",
                 "size", "_blocks", "_talk", "PLANAR", "planar")

    def __init__(self, num_players: int, holdings: int = 0, planar: bool = False):
        self.n = num_players
        self.holdings = holdings
        self.planar = bool(planar)
        off = 0
        blocks = []
        for name, size in (("PASS", 1), ("HAND", MAX_HAND), ("COMMANDER", 1), ("UNVEIL", MAX_X + 1),
                           ("IDENTITY_AB", N_IDENTITY_ABILITIES), ("TOKEN_AB", len(TOKEN_ABILITIES)),
                           ("OTHER", MAX_OTHER),
                           ("PLAYER", num_players), ("PERM", num_players * MAX_PERMS),
                           ("STACK", MAX_STACK), ("CHOICE", MAX_CHOICE),
                           ("WALKER", (num_players + 1) * MAX_WALKERS),
                           ("LOYALTY", MAX_WALKERS * N_LOYALTY_ABILITIES), ("HOLDING", holdings),
                           ("PLANAR", 1 if planar else 0), ("TALK", talk_size(num_players)),
                           ("CONCEDE", 1)):
            setattr(self, name, off)
            blocks.append((name, off, size))
            off += size
        self.size = off
        self._blocks = tuple(blocks)
        talk, o = {}, self.TALK
        for kind, size in zip(TALK_ACTIONS, _talk_sizes(num_players)):
            talk[kind] = (o, size)
            o += size
        self._talk = talk

    @staticmethod
    def _arg(value: Any, method: str, name: str, low: int, high: int) -> int:
        """``value``, the argument ``name`` of the method ``method``, as an int from
        ``low`` to ``high``: the one check of this class's arguments, accepting the ints
        ``Game``'s public methods do (:func:`is_int`).

        Raises:
            ValueError: (one line naming ``method``, the argument, the range and the
                value) for a value that is not an int (a numpy integer too; bools,
                floats and strings are refused) from ``low`` to ``high``.
        """
        if type(value) is int and low <= value <= high:      # the common case
            return value
        if not is_int(value) or not low <= value <= high:
            raise ValueError(f"{method}: {name} must be an int from {low} to {high}, got {value!r}")
        return int(value)

    def perm(self, rel_seat: int, slot: int) -> int:
        """Action index of the creature in ``slot`` of relative seat ``rel_seat``.

        Raises:
            ValueError: (one line, :meth:`_arg`) for a seat (0 to n - 1) or slot (0 to
                MAX_PERMS - 1) out of range or not an int.
        """
        rel_seat = self._arg(rel_seat, "perm", "rel_seat", 0, self.n - 1)
        return self.PERM + rel_seat * MAX_PERMS + self._arg(slot, "perm", "slot", 0, MAX_PERMS - 1)

    def walker(self, rel_seat: int, slot: int) -> int:
        """Action index of the attackable permanent (planeswalker) in ``slot`` of
        relative seat ``rel_seat`` (``rel_seat == n``: the uncontrolled row,
        reserved for Throne Magic).

        Raises:
            ValueError: (one line, :meth:`_arg`) for a seat (0 to n) or slot (0 to
                MAX_WALKERS - 1) out of range or not an int.
        """
        rel_seat = self._arg(rel_seat, "walker", "rel_seat", 0, self.n)
        return self.WALKER + rel_seat * MAX_WALKERS + self._arg(slot, "walker", "slot", 0, MAX_WALKERS - 1)

    def holding(self, k: int) -> int:
        """Action index that names Throne Magic's Holding ``k`` of the game (attack it).

        Raises:
            ValueError: (one line) in a game with no Holdings; (:meth:`_arg`) for ``k``
                out of range (the game's Holdings) or not an int.
        """
        if not self.holdings:
            raise ValueError(f"holding: the game has no Holdings, got {k!r}")
        return self.HOLDING + self._arg(k, "holding", "k", 0, self.holdings - 1)

    def loyalty(self, slot: int, ability: int) -> int:
        """Action index that activates loyalty ability ``ability`` of your
        planeswalker in ``slot`` (CR 606).

        Raises:
            ValueError: (one line, :meth:`_arg`) for a slot (0 to MAX_WALKERS - 1) or
                ability (0 to N_LOYALTY_ABILITIES - 1) out of range or not an int.
        """
        slot = self._arg(slot, "loyalty", "slot", 0, MAX_WALKERS - 1)
        return self.LOYALTY + slot * N_LOYALTY_ABILITIES + self._arg(ability, "loyalty", "ability", 0,
                                                                     N_LOYALTY_ABILITIES - 1)

    def talk(self, kind: str, rel_seat: int = 0, role: int = 0) -> int:
        """Action index of a talk message: ``kind`` from :data:`TALK_ACTIONS`,
        about relative seat ``rel_seat`` (accuse, defend, threaten, protect,
        offer) and naming role ``role`` (claim, accuse; a ``Role`` value).

        Raises:
            ValueError: (one line) for an unknown kind; (:meth:`_arg`) for a seat (0 to
                n - 1) or role (0 to 3) out of range or not an int.
        """
        if not isinstance(kind, str) or kind not in self._talk:
            raise ValueError(f"talk: unknown talk action {kind!r}; allowed: {list(TALK_ACTIONS)}")
        rel_seat = self._arg(rel_seat, f"talk {kind}", "rel_seat", 0, self.n - 1)
        role = self._arg(role, f"talk {kind}", "role", 0, N_TALK_ROLES - 1)
        off = self._talk[kind][0]
        if kind == "claim":
            return off + role
        if kind == "accuse":
            return off + rel_seat * N_TALK_ROLES + role
        if kind in ("request", "accept"):
            return off
        return off + rel_seat

    def talk_decode(self, action: int) -> tuple[str, int, int]:
        """``(kind, rel_seat, role)`` of an index in the TALK block (inverse of
        :meth:`talk`; ``rel_seat``/``role`` are 0 where the kind has none).

        Raises:
            ValueError: (one line, :meth:`_arg`) if ``action`` is not an int in the TALK block.
        """
        action = self._arg(action, "talk_decode", "action (a talk action)", self.TALK,
                           self.TALK + talk_size(self.n) - 1)
        for kind, (off, size) in self._talk.items():
            if off <= action < off + size:
                i = action - off
                if kind == "claim":
                    return kind, 0, i
                if kind == "accuse":
                    return kind, i // N_TALK_ROLES, i % N_TALK_ROLES
                return kind, i, 0
        raise AssertionError("unreachable")

    def decode(self, action: int) -> tuple[str, int, int]:
        """``(block, i, j)`` of an action index; ``j`` is the slot for PERM and
        WALKER (``i`` the relative seat), the ability for LOYALTY (``i`` the
        slot), else 0.

        Raises:
            ValueError: (one line, :meth:`_arg`) if ``action`` is not an int from 0 to
                ``size - 1``.
        """
        action = self._arg(action, "decode", "action", 0, self.size - 1)
        for name, off, size in reversed(self._blocks):
            if action >= off:
                i = action - off
                if name == "PERM":
                    return name, i // MAX_PERMS, i % MAX_PERMS
                if name == "WALKER":
                    return name, i // MAX_WALKERS, i % MAX_WALKERS
                if name == "LOYALTY":
                    return name, i // N_LOYALTY_ABILITIES, i % N_LOYALTY_ABILITIES
                return name, i, 0
        raise AssertionError("unreachable")


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer argument (a seat, a seed, an X, a slot; of ``Game``'s public
    methods and :class:`ActionLayout`'s): an int or a numpy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def as_action(action: Any) -> int:
    """``action`` as a Python int: an int, a numpy integer or a 0-d integer array (as some
    RL libraries hand actions over).  Whether it is in the action space or legal is the
    caller's check.

    Raises:
        ValueError: for anything else -- bools, floats, strings, None, arrays of another
            shape or dtype -- naming it and its type.
    """
    if type(action) is int:
        return action
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if not is_int(action):
        raise ValueError(f"action must be an int, got {action!r} ({type(action).__name__})")
    return int(action)
