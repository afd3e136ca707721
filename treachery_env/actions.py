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
CONCEDE        1          concede the game (CR 104.3a); legal only for seats that
                          ``GameConfig.concession`` allows, in shown decisions
=============  =========  =====================================================

CONCEDE is the last block, so the indices of every other block do not depend
on it.
"""

from __future__ import annotations

__all__ = ["ActionLayout", "MAX_HAND", "MAX_X", "MAX_PERMS", "MAX_STACK", "MAX_CHOICE", "MAX_OTHER",
           "TOKEN_ABILITIES", "N_IDENTITY_ABILITIES"]

MAX_HAND = 15
MAX_X = 15
N_IDENTITY_ABILITIES = 3
TOKEN_ABILITIES = ("Clue", "Food", "Blood", "Map", "Junk")
MAX_PERMS = 20
MAX_STACK = 10
MAX_CHOICE = 40
MAX_OTHER = 8


class ActionLayout:
    """Offsets of the action blocks for a table of ``num_players``.

    Attributes:
        n: number of players.
        size: total number of actions (the ``Discrete`` space size).
        PASS, HAND, COMMANDER, UNVEIL, IDENTITY_AB, TOKEN_AB, OTHER, PLAYER, PERM,
        STACK, CHOICE, CONCEDE: first index of each block.
    """

    __slots__ = ("n", "PASS", "HAND", "COMMANDER", "UNVEIL", "IDENTITY_AB", "TOKEN_AB", "OTHER",
                 "PLAYER", "PERM", "STACK", "CHOICE", "CONCEDE", "size", "_blocks")

    def __init__(self, num_players: int):
        self.n = num_players
        off = 0
        blocks = []
        for name, size in (("PASS", 1), ("HAND", MAX_HAND), ("COMMANDER", 1), ("UNVEIL", MAX_X + 1),
                           ("IDENTITY_AB", N_IDENTITY_ABILITIES), ("TOKEN_AB", len(TOKEN_ABILITIES)),
                           ("OTHER", MAX_OTHER),
                           ("PLAYER", num_players), ("PERM", num_players * MAX_PERMS),
                           ("STACK", MAX_STACK), ("CHOICE", MAX_CHOICE), ("CONCEDE", 1)):
            setattr(self, name, off)
            blocks.append((name, off, size))
            off += size
        self.size = off
        self._blocks = tuple(blocks)

    def perm(self, rel_seat: int, slot: int) -> int:
        """Action index of the creature in ``slot`` of relative seat ``rel_seat``."""
        return self.PERM + rel_seat * MAX_PERMS + slot

    def decode(self, action: int) -> tuple[str, int, int]:
        """``(block, i, j)`` of an action index; ``j`` is the slot for PERM, else 0.

        Raises:
            ValueError: if ``action`` is outside ``[0, size)``.
        """
        if not 0 <= action < self.size:
            raise ValueError(f"action {action} is outside the action space [0, {self.size})")
        for name, off, size in reversed(self._blocks):
            if action >= off:
                i = action - off
                if name == "PERM":
                    return name, i // MAX_PERMS, i % MAX_PERMS
                return name, i, 0
        raise AssertionError("unreachable")
