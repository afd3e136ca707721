"""Mulligans before the first turn (CR 103.5 London mulligan; 103.5c free
first mulligan in multiplayer), with :attr:`GameConfig.mulligans` = "london".

Source: the Comprehensive Rules as remembered (CR 103 is not in
``shared/rules/``): CR 103.5: once the starting player is known (the Leader,
CR 907.6), each player may take mulligans.  The starting player declares
first whether they keep their hand or take a mulligan, then each other player
in turn order.  Once everyone has declared, the players who chose to take a
mulligan do so at the same time: each shuffles their hand into their library
and draws a new hand of their starting hand size.  A player who keeps may not
take further mulligans.  This repeats until nobody takes a mulligan.  A player
who keeps after ``N`` mulligans puts ``N`` cards from their hand on the bottom of
their library in any order.  CR 103.5c: in a multiplayer game the first
mulligan a player takes is free: it doesn't count toward that number, so the
player bottoms ``N - 1`` cards.

Decisions (one seat at a time, shown only when there is a choice):

* :data:`DecisionKind.MULLIGAN`: ``PASS`` keeps the hand, ``CHOICE + 0`` takes
  a mulligan.  The mulligan option is offered while keeping afterwards would
  leave a card to keep or nothing to bottom beyond the hand (abstraction: no
  mulligan below an empty hand; with a 7-card hand that is 8 mulligans), so
  the loop always ends.
* :data:`DecisionKind.BOTTOM`: ``HAND + i`` puts hand card ``i`` on the bottom
  of the library, asked once per card.  Each chosen card goes under the ones
  chosen before it ("in any order": the last chosen ends up at the very
  bottom).

Information (DESIGN section 4): a declaration and a mulligan are public
(``mulligan_keep`` and ``mulligan`` log events to everyone; the count is
``Player.mulligans``); the new hand and the bottomed cards are private (the
``bottom`` event goes to the seat alone).  Shuffles use the game's random
stream, so a seed and the actions fix the game (replays reproduce it).
"""

from __future__ import annotations

from typing import Any

from ..actions import MAX_HAND
from .state import Decision, DecisionKind

__all__ = ["MulliganMixin"]


class MulliganMixin:
    """Mulligans (CR 103.5, 103.5c): methods of :class:`~treachery_env.engine.game.Game`."""

    def _free_mulligans(self) -> int:
        """Mulligans that don't count toward the cards bottomed: 1 in a
        multiplayer game (CR 103.5c), which every Treachery game is."""
        return 1 if self.n > 2 else 0

    def to_bottom(self, seat: int) -> int:
        """Cards ``seat`` puts on the bottom of their library when they keep now:
        mulligans taken minus the free first one (CR 103.5, 103.5c), at least 0.

        Raises:
            ValueError: for a seat out of range.
        """
        return max(0, self.players[self._seat_arg(seat, "to_bottom")].mulligans - self._free_mulligans())

    @property
    def in_mulligans(self) -> bool:
        """Whether the game is still in the mulligan process (before the first turn)."""
        return self.mulligan_state is not None

    def _start_mulligans(self, hand_sizes: list[int]) -> None:
        """Queue the mulligan rounds, then the first turn (CR 103.5).

        Args:
            hand_sizes: each seat's starting hand size (the configured size plus
                identity start bonuses), the size of every new hand.
        """
        self.mulligan_state = {"sizes": list(hand_sizes), "kept": [False] * self.n, "declared": []}
        self.queue.append(("mulligan_round",))
        self.queue.append(("first_turn",))

    def _op_mulligan_round(self) -> None:
        """One round: the players who have not kept declare, the starting player
        first and then in turn order (CR 103.5), then the mulligans are taken."""
        st = self.mulligan_state
        order = [(self.active + k) % self.n for k in range(self.n)]
        ask = [s for s in order if not st["kept"][s] and not self.players[s].has_lost]
        self._push_front([("mulligan_ask", s) for s in ask] + [("mulligan_apply",)])

    def _op_mulligan_ask(self, seat: int) -> None:
        p = self.players[seat]
        if p.has_lost:
            return
        L = self.layout
        size = self.mulligan_state["sizes"][seat]
        bottom = self.to_bottom(seat)
        after = max(0, p.mulligans + 1 - self._free_mulligans())    # bottomed after one more mulligan
        opts: list = [(L.PASS, "keep")]
        labels = [f"keep these {len(p.hand)} cards" + (f", then put {bottom} on the bottom" if bottom else "")]
        if after <= size:
            opts.append((L.CHOICE, "mulligan"))
            labels.append(f"take a mulligan: shuffle your hand away and draw {size} new cards"
                          + (f", keeping {size - after}" if after else " (free, CR 103.5c)"))
        taken = f"{p.mulligans} mulligan{'s' if p.mulligans != 1 else ''} taken"
        self.decision = Decision(seat, DecisionKind.MULLIGAN, opts, "_h_mulligan", seat,
                                 f"mulligan (CR 103.5): keep your opening hand? ({taken})", labels)

    def _h_mulligan(self, seat: int, payload: Any) -> None:
        st = self.mulligan_state
        p = self.players[seat]
        if payload == "keep":
            st["kept"][seat] = True
            n = min(self.to_bottom(seat), len(p.hand))
            self._log("mulligan_keep", seat=seat, mulligans=p.mulligans, hand=len(p.hand) - n, bottom=n)
            self._push_front([("mulligan_bottom", seat, k) for k in range(n, 0, -1)])
        else:
            st["declared"].append(seat)
            self._log("mulligan_declare", seat=seat)

    def _op_mulligan_bottom(self, seat: int, left: int) -> None:
        p = self.players[seat]
        if p.has_lost or not p.hand:
            return
        opts = [(self.layout.HAND + i, i) for i in range(min(len(p.hand), MAX_HAND))]
        more = f" ({left - 1} more after this one)" if left > 1 else ""
        self.decision = Decision(seat, DecisionKind.BOTTOM, opts, "_h_bottom", seat,
                                 f"London mulligan (CR 103.5): put a card from your hand on the bottom "
                                 f"of your library{more}")

    def _h_bottom(self, seat: int, i: int) -> None:
        p = self.players[seat]
        c = p.hand.pop(i)
        p.library.insert(0, c)           # the library's top is its end: index 0 is the bottom
        self._log("bottom", to=[seat], seat=seat, card=c.name)

    def _op_mulligan_apply(self) -> None:
        """The declared mulligans are taken together (CR 103.5): hand shuffled
        into the library, a new hand of the starting hand size drawn; then
        another round while anyone took one."""
        st = self.mulligan_state
        declared, st["declared"] = st["declared"], []
        for s in declared:
            p = self.players[s]
            if p.has_lost:
                continue
            p.library.extend(p.hand)
            p.hand = []
            self.rng.shuffle(p.library)
            for _ in range(st["sizes"][s]):
                if p.library:
                    p.hand.append(p.library.pop())
            p.mulligans += 1
            self._log("mulligan", seat=s, count=p.mulligans)
        if declared:
            self._push_front([("mulligan_round",)])

    def _op_first_turn(self) -> None:
        """The mulligans are over: the starting player's first turn begins (CR 103).  A starting
        player who left the game during the mulligans (conceded, CR 104.3a) takes no turn: the
        first turn is the next player's in turn order who is still in the game, as every later
        turn passes over the seats that left (CR 800.4)."""
        self.mulligan_state = None
        if self.players[self.active].has_lost:
            self.active = self.order_seat = self._next_alive(self.active)     # the turn order goes on from it
        if self.planar is not None:
            self._planar_start()        # Planechase: the starting plane, once every hand is kept (CR 901.5)
        self._start_turn(self.active)
