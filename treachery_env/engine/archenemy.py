"""Archenemy's schemes (CR 904, 311, 701.21-701.22) on the engine: the Supervillain Rumble
option (CR 904.12), every player an archenemy with a scheme deck of their own, in Treachery and
in Throne Magic (``GameConfig(archenemy="supervillain_rumble")``).

The state is ``Game.schemes``, a :class:`SchemeState` (None without the option): each seat's
face-down scheme deck, top first, and its face-up schemes, all in the command zone (CR 904.4).
The engine asks it at five points, each a rare event or a test of ``schemes is None``:

- the start (:meth:`SchemeMixin._deal_schemes`, from ``Game._setup``): the decks (CR 904.3-904.4);
- the precombat main phase (:meth:`SchemeMixin._set_scheme_in_motion`, from ``Game._step_forward``):
  the turn-based action of CR 904.9, the top scheme face up, its "when you set this scheme in
  motion" ability triggering (CR 701.21);
- the upkeep (:meth:`SchemeMixin._scheme_upkeep`): an ongoing scheme's upkeep ability;
- the state-based check (:meth:`SchemeMixin._scheme_sba`, from ``Game._state_based_actions``): a
  face-up scheme that is not ongoing and is the source of no triggered ability waiting or on the
  stack goes face down to the bottom of its owner's deck (CR 904.10);
- combat damage (:meth:`SchemeMixin._schemes_hit`, from ``Game._op_combat_damage``): the ongoing
  schemes of a player dealt combat damage are abandoned (CR 701.22; their "when a player deals
  combat damage to you, abandon this scheme" applied at once, an abstraction listed in
  ``docs/fidelity.md`` section 11);
- a player leaving (:meth:`SchemeState.leave`): the objects they own leave the game (CR 800.4a).

Scheme cards are data (:mod:`treachery_env.schemes`); their abilities run on the card pool's
effect primitives (``Game._op_effect``).  Everything here is public but the order of the decks,
which nobody knows (CR 904.4: shuffled face down).
"""

from __future__ import annotations

import numpy as np

from .. import schemes as sc
from .state import StackItem

__all__ = ["SchemeState", "SchemeMixin", "SCHEME_KEY"]

SCHEME_KEY = "scheme"
"""``StackItem.key`` of a scheme's triggered ability."""


class SchemeState:
    """The scheme decks and face-up schemes of a game (CR 904.4, 904.7, 904.11).

    Attributes:
        decks: per seat, the scheme names of its face-down deck, top first.
        face_up: per seat, its face-up schemes as ``[uid, name]`` lists, oldest first (a scheme
            turned face up again is a new object with a new uid, CR 311.6 reading 901.7a's rule
            for planes).
    """

    __slots__ = ("decks", "face_up")

    def __init__(self, decks: list[list[str]]):
        self.decks = decks
        self.face_up: list[list[list]] = [[] for _ in decks]

    def leave(self, seat: int) -> None:
        """``seat`` leaves the game: its scheme deck and face-up schemes leave with it (CR 800.4a)."""
        self.decks[seat] = []
        self.face_up[seat] = []

    def ongoing(self, seat: int) -> list[str]:
        """The names of ``seat``'s face-up ongoing schemes, oldest first."""
        return [name for _, name in self.face_up[seat] if sc.get(name).ongoing]


class SchemeMixin:
    """Archenemy's schemes (CR 904): methods of :class:`~treachery_env.engine.game.Game`."""

    def _deal_schemes(self) -> None:
        """CR 904.3-904.4 with 904.12b: each player's scheme deck, ``config.scheme_decks`` as given
        (top first), else a random legal deck (:func:`treachery_env.schemes.draw_deck`) from the
        game's seed, face down in the command zone.  Logged publicly (``scheme_decks``: their
        sizes; what is in them and their order stay unknown)."""
        cfg = self.config
        if cfg.scheme_decks is not None:
            decks = [list(d) for d in cfg.scheme_decks]
        else:
            rng = np.random.default_rng(self.rng.getrandbits(64))
            decks = [sc.draw_deck(rng) for _ in range(self.n)]
        self.schemes = SchemeState(decks)
        self._log("scheme_decks", sizes=[len(d) for d in decks])

    def _set_scheme_in_motion(self, seat: int) -> None:
        """CR 904.9 (and 701.21): immediately after ``seat``'s precombat main phase begins, it turns
        the top card of its scheme deck face up; that scheme's "when you set this scheme in motion"
        ability triggers.  A turn-based action: no stack for the turning.  Logged publicly
        (``scheme``: seat, name, ongoing)."""
        st = self.schemes
        deck = st.decks[seat]
        if self.players[seat].has_lost or not deck:
            return
        name = deck.pop(0)
        card = sc.get(name)
        uid = self._new_uid()
        st.face_up[seat].append([uid, name])
        self._log("scheme", seat=seat, name=name, ongoing=card.ongoing)
        self._dirty = True
        if card.ability.trigger == "set_in_motion":
            self._scheme_trigger(seat, uid, card)

    def _scheme_trigger(self, seat: int, uid: int, card: sc.SchemeCard) -> None:
        """``card``'s ability (face-up scheme ``uid`` of ``seat``) triggers: waiting to be put on
        the stack with the other pending triggers (CR 603.3), targets chosen then."""
        trig = StackItem(self._new_uid(), "trigger", seat, source=card.name, key=SCHEME_KEY)
        trig.data["scheme"] = uid
        if card.ability.targets:
            trig.data["specs"] = [dict(t) for t in card.ability.targets]
        self.pending_triggers.append(trig)

    def _scheme_upkeep(self) -> None:
        """An ongoing scheme's ability, "at the beginning of your upkeep" (CR 311.7, 904.11): each
        face-up ongoing scheme of the active player triggers, oldest first."""
        seat = self.active
        if self.players[seat].has_lost:
            return
        for uid, name in list(self.schemes.face_up[seat]):
            card = sc.get(name)
            if card.ability.trigger == "controller_upkeep":
                self._scheme_trigger(seat, uid, card)

    def _resolve_scheme(self, item: StackItem) -> None:
        """A scheme's triggered ability resolves: its effects, in the card pool's primitives."""
        card = sc.get(item.source)
        self._dirty = True          # its scheme, once the ability has left the stack, is CR 904.10's
        self._push_front([("effect", item, dict(e)) for e in card.ability.effects])

    def _scheme_sba(self) -> bool:
        """CR 904.10: a face-up scheme that is not ongoing, and is not the source of a triggered
        ability that has triggered but not yet left the stack, is turned face down and put on the
        bottom of its owner's scheme deck.  Returns True if one moved.  Logged publicly
        (``scheme_bottom``)."""
        st = self.schemes
        moved = False
        busy = None
        for seat, up in enumerate(st.face_up):
            for entry in list(up):
                uid, name = entry
                if sc.get(name).ongoing:
                    continue
                if busy is None:        # the schemes whose abilities wait or are on the stack
                    busy = {t.data.get("scheme") for t in self.pending_triggers if t.key == SCHEME_KEY}
                    busy |= {t.data.get("scheme") for t in self.stack if t.key == SCHEME_KEY}
                if uid in busy:
                    continue
                up.remove(entry)
                st.decks[seat].append(name)
                self._log("scheme_bottom", seat=seat, name=name)
                moved = True
        return moved

    def _schemes_hit(self, seats) -> None:
        """Combat damage was dealt to each of ``seats``: their face-up ongoing schemes are
        abandoned (CR 701.22a: turned face down, to the bottom of the owner's scheme deck), each
        scheme's "when a player deals combat damage to you, abandon this scheme" applied at once
        (abstraction: not a triggered ability on the stack).  Logged publicly (``scheme_abandoned``)."""
        st = self.schemes
        for seat in sorted(seats):
            for entry in list(st.face_up[seat]):
                if sc.get(entry[1]).ongoing:
                    st.face_up[seat].remove(entry)
                    st.decks[seat].append(entry[1])
                    self._log("scheme_abandoned", seat=seat, name=entry[1])
