"""Planechase (CR 901, ``../shared/rules/cr-900-casual-variants-italian.txt``) on the
engine, in Treachery or Throne Magic (``GameConfig(planechase="single" | "per_player")``).

A game's planar state is ``Game.planar``: None without Planechase, else a
:class:`Planar` (the planar decks, the face-up plane or phenomenon, the planar
controller, the die rolls of the turn).  :class:`PlanechaseMixin` holds the rules:

* the starting plane, flipped by the starting player once every hand is kept
  (CR 901.5: phenomena to the bottom, nothing triggers);
* the planar controller: the active player, or, when the planar controller would
  leave the game, the next player in turn order not leaving (CR 901.6);
* the planar die, a special action of the active player in their main phase with
  priority and an empty stack, costing {N} generic for the N-th roll of the turn
  (CR 901.9); chaos (1/6) triggers the face-up plane's chaos ability (CR 901.9b),
  the planeswalker face (1/6) the planeswalking ability, which has no source
  (CR 901.8, 901.9c), blank (4/6) does nothing (CR 901.9a); the game's random stream
  rolls it (CR 901.3a);
* planeswalking (CR 701.31, 901.12): the face-up card to the bottom of its owner's
  planar deck, the planeswalking player flips the top of their own; effects "until a
  player planeswalks" end; the new plane's "when you planeswalk to" and a
  phenomenon's "when you encounter" abilities trigger;
* a player leaving (CR 901.10-901.11): the planar controller's succession first;
  with a planar deck per player, the leaver's deck and the face-up card they own
  leave the game, the planar controller flips a new one at once (not a
  state-based action), and a planeswalking ability whose plane left ceases to
  exist (CR 901.10a);
* the state-based action of CR 704.6f: a face-up phenomenon whose encounter
  ability has left the stack makes the planar controller planeswalk.

With the single planar deck (CR 901.16) the planar controller is the owner of every
planar card (CR 901.16b), so a leaving player owns none of them: the face-up plane
never leaves with a player.  The planar cards' data: :mod:`treachery_env.planes`.
"""

from __future__ import annotations

from .. import planes as pl
from .state import Decision, DecisionKind, StackItem, StateRecord

__all__ = ["Planar", "PlanechaseMixin", "PLANAR_KEYS", "DIE_FACES", "PLANAR_DIE"]

PLANAR_DIE = "Planar die"
"""The source name the planeswalking ability shows (it has none, CR 901.8): ``text.card_text`` knows it."""
PLANAR_KEYS = frozenset({"plane", "planeswalk"})
"""Stack keys of Planechase's abilities: a planar card's triggered or chaos ability ("plane"),
the planeswalking ability of the planar die ("planeswalk", CR 901.8)."""

DIE_FACES = ("chaos", "planeswalk", "blank", "blank", "blank", "blank")
"""The planar die's six faces (CR 901.3a): one chaos, one planeswalker symbol, four blank."""


class Planar(StateRecord):
    """The planar cards of one Planechase game (state, copied by ``Game.clone`` slot by slot).

    Attributes:
        mode: "single" (one communal planar deck, CR 901.16) or "per_player" (CR 901.3).
        decks: the planar decks, face down, top last: ``[deck]`` in "single", one per seat
            in "per_player" (a leaver's is emptied: it left the game, CR 901.10).  Their
            order is hidden from everyone.
        face_up: the name of the face-up plane or phenomenon (public), None before the
            starting plane.
        owner: the face-up card's owner's seat in "per_player" (CR 901.6), -1 in "single"
            (the planar controller owns every card, CR 901.16b).
        uid: the face-up card's object id: a new one whenever a card turns face up
            (CR 901.7a).
        controller: the planar controller's seat (CR 901.6; public).
        rolls: the times the active player took the planar-die special action this turn
            (its next cost, CR 901.9; public).
    """

    __slots__ = ("mode", "decks", "face_up", "owner", "uid", "controller", "rolls")

    def __init__(self, mode: str, decks: list):
        self.mode = mode
        self.decks = decks
        self.face_up = None
        self.owner = -1
        self.uid = 0
        self.controller = 0
        self.rolls = 0

    @classmethod
    def deal(cls, game) -> "Planar":
        """The planar decks of ``game`` (CR 901.4: each shuffled at the start of the game, with
        the game's random stream): ``config.planar_deck`` (every planar card when None), once
        ("single") or once per seat ("per_player")."""
        cfg = game.config
        names = list(cfg.planar_deck) if cfg.planar_deck is not None else list(pl.names())
        decks = [list(names) for _ in range(1 if cfg.planechase == "single" else game.n)]
        for d in decks:
            game.rng.shuffle(d)
        return cls(cfg.planechase, decks)

    def deck_of(self, seat: int) -> list:
        """``seat``'s planar deck (CR 901.16c: the communal one in "single")."""
        return self.decks[0] if self.mode == "single" else self.decks[seat]

    @property
    def card(self) -> "pl.PlanarCard | None":
        """The face-up planar card's definition, None before the starting plane."""
        return None if self.face_up is None else pl.get(self.face_up)


class PlanechaseMixin:
    """Planechase's rules on the engine (CR 901): methods of
    :class:`~treachery_env.engine.game.Game`, active only when ``Game.planar`` is set."""

    # ------------------------------------------------------------------ flipping
    def _planar_flip(self, seat: int) -> None:
        """``seat`` moves the top card of their planar deck off it and turns it face up (a new
        object, CR 901.7a); logged publicly (``plane``)."""
        planar = self.planar
        name = planar.deck_of(seat).pop()
        planar.face_up = name
        planar.owner = seat if planar.mode == "per_player" else -1
        planar.uid = self._new_uid()
        self._log("plane", name=name, seat=seat, kind=pl.get(name).kind)

    def _planar_start(self) -> None:
        """CR 901.5, once every player kept their opening hand: the starting player (the active
        player now) flips the top of their planar deck; a phenomenon goes to the bottom and
        they flip again, until a plane is face up: the starting plane.  Nothing triggers.
        The starting player is the planar controller (CR 901.6)."""
        planar = self.planar
        seat = self.active
        planar.controller = seat
        while True:
            self._planar_flip(seat)
            if not pl.get(planar.face_up).is_phenomenon:
                break
            planar.deck_of(seat).insert(0, planar.face_up)
            self._log("plane_to_bottom", name=planar.face_up, seat=seat)
        self._log("starting_plane", name=planar.face_up, seat=seat)

    def planeswalk(self, seat: int) -> None:
        """``seat`` planeswalks (CR 701.31, 901.12): the face-up card goes to the bottom of its
        owner's planar deck face down, then ``seat`` flips the top of their own.  Effects that
        last until a player planeswalks end; the new plane's "when you planeswalk to" ability
        or the phenomenon's encounter ability triggers, controlled by the planar controller.
        Logged publicly (``planeswalk``, then ``plane``)."""
        planar = self.planar
        old = planar.face_up
        if old is not None:
            planar.deck_of(planar.owner).insert(0, old)
        self._log("planeswalk", seat=seat, source=old)
        self._planar_arrive(seat)

    def _planar_arrive(self, seat: int) -> None:
        """The second half of planeswalking (CR 901.12): ``seat`` flips a new card; "until a
        player planeswalks" effects end; its arrival or encounter abilities trigger."""
        if self.shields:
            self.shields = [s for s in self.shields if s.get("until") != "planeswalk"]
        self._planar_flip(seat)
        planar = self.planar
        for k, ab in enumerate(planar.card.abilities):
            if ab.trigger == "arrive" or ab.trigger == "encounter":
                self._planar_trigger(k, planar.controller)
        self._dirty = True          # a phenomenon: CR 704.6f is checked

    # ------------------------------------------------------------------ its abilities
    def _planar_trigger(self, k: int, seat: int) -> None:
        """The face-up card's ability ``k`` (an index of its ``abilities``, -1: its chaos ability)
        triggers, controlled by ``seat`` (CR 901.7)."""
        planar = self.planar
        trig = StackItem(self._new_uid(), "trigger", seat, source=planar.face_up, key="plane")
        trig.data["ability"] = k
        trig.data["plane"] = planar.uid
        ab = self._planar_ability(trig)
        if ab.targets:
            trig.data["specs"] = [dict(t) for t in ab.targets]
        self.pending_triggers.append(trig)

    def _planar_upkeep(self) -> None:
        """The face-up plane's "at the beginning of your upkeep" abilities trigger for the
        planar controller when it is their upkeep (CR 901.7)."""
        planar = self.planar
        seat = self.active
        if planar.controller != seat or self.players[seat].has_lost or planar.face_up is None:
            return
        for k, ab in enumerate(planar.card.abilities):
            if ab.trigger == "upkeep":
                self._planar_trigger(k, seat)

    def _resolve_planar_item(self, item: StackItem) -> None:
        """Resolve a Planechase stack object: the planeswalking ability (its controller
        planeswalks, CR 901.8) or a planar card's ability ("may" abilities ask first: YES_NO,
        CHOICE + 0 = yes, PASS = no)."""
        if item.key == "planeswalk":
            self.planeswalk(item.controller)
            return
        ab = self._planar_ability(item)
        self._dirty = True          # an encounter ability left the stack: CR 704.6f is checked
        if ab.optional:
            L = self.layout
            self.decision = Decision(item.controller, DecisionKind.YES_NO, [(L.CHOICE, True), (L.PASS, False)],
                                     "_h_planar_may", item, f"{item.source}: {self._planar_text(ab, item.source)}")
            return
        self._push_front([("effect", item, dict(e)) for e in ab.effects])

    def _h_planar_may(self, item: StackItem, yes: bool) -> None:
        if yes:
            self._push_front([("effect", item, dict(e)) for e in self._planar_ability(item).effects])

    @staticmethod
    def _planar_ability(item: StackItem) -> "pl.CardAbility":
        """The planar card's ability a "plane" stack object ``item`` is (its source's
        ``abilities[k]``, or its chaos ability for ``k == -1``)."""
        card = pl.get(item.source)
        k = item.data["ability"]
        return card.chaos if k < 0 else card.abilities[k]

    @staticmethod
    def _planar_text(ab: "pl.CardAbility", name: str) -> str:
        """The words of ability ``ab`` of the planar card ``name``."""
        card = pl.get(name)
        return card.chaos_text if ab.trigger == "chaos" else card.text

    # ------------------------------------------------------------------ the planar die
    def _planar_die_options(self, seat: int, avail: int) -> list:
        """The PLANAR priority option of ``seat`` (called at sorcery timing: the active
        player in a main phase with an empty stack, CR 901.9) when they can pay its cost,
        {N} generic for the N-th roll of the turn: ``[(PLANAR, ("planar_die", cost))]``
        or ``[]``."""
        cost = self.planar.rolls
        if cost > avail:
            return []
        return [(self.layout.PLANAR, ("planar_die", cost))]

    def _roll_planar_die(self, seat: int) -> None:
        """The planar-die special action (CR 901.9; no stack): ``seat`` pays {N} (N = rolls
        so far this turn), rolls (:data:`DIE_FACES`, from the game's random stream); chaos
        triggers the face-up plane's chaos ability (CR 901.9b), the planeswalker symbol the
        planeswalking ability, which has no source and is controlled by ``seat`` (CR 901.8,
        901.9c).  ``seat`` keeps priority.  Logged publicly (``planar_die``, with the face)."""
        planar = self.planar
        cost = planar.rolls
        self._pay_mana(seat, cost)
        planar.rolls += 1
        face = DIE_FACES[self.rng.randrange(6)]
        self._log("planar_die", seat=seat, face=face, cost=cost)
        if face == "chaos":
            if planar.card.chaos is not None:
                self._planar_trigger(-1, seat)
        elif face == "planeswalk":
            trig = StackItem(self._new_uid(), "trigger", seat, source=PLANAR_DIE, key="planeswalk")
            trig.data["plane"] = planar.uid         # CR 901.10a: it ceases if that plane leaves
            self.pending_triggers.append(trig)

    # ------------------------------------------------------------------ turns, leaving, CR 704.6f
    def _planar_new_turn(self, seat: int) -> None:
        """As ``seat``'s turn begins it becomes the planar controller (CR 901.6) and has
        rolled the die 0 times this turn (CR 901.9)."""
        planar = self.planar
        planar.rolls = 0
        if planar.controller != seat:
            planar.controller = seat
            self._log("planar_controller", seat=seat)

    def _planar_leave(self, seats: list[int]) -> None:
        """``seats`` are leaving the game (called before their objects leave, CR 800.4a).
        CR 901.6: a leaving planar controller first hands the role to the next player in
        turn order who is not leaving.  CR 901.11b: the abilities of phenomena the leavers
        control stay on the stack (or pending), controlled by the planar controller.  CR 901.10 (per-player decks): the leavers' planar
        decks leave; if the face-up card is theirs it leaves too, a planeswalking ability
        whose plane it was ceases to exist (CR 901.10a), and the planar controller flips the
        top of their planar deck at once: they planeswalked (CR 901.12a)."""
        planar = self.planar
        left = set(seats)
        self._dirty = True              # CR 704.6f is checked: a phenomenon's ability may have gone
        if planar.controller in left:
            nxt = self._next_alive(planar.controller)       # the leavers have has_lost set already
            if nxt is None:
                return                  # nobody is left to control it
            planar.controller = nxt
            self._log("planar_controller", seat=nxt)
        for t in self.stack + self.pending_triggers:
            if t.key == "plane" and t.controller in left and pl.get(t.source).is_phenomenon:
                t.controller = planar.controller     # CR 901.11b: a phenomenon's ability stays
        if planar.mode != "per_player":
            return                      # CR 901.16b: the planar controller owns every planar card
        for s in seats:
            planar.decks[s] = []
        if planar.owner not in left:
            return
        uid = planar.uid
        gone = [it for it in self.stack if it.key == "planeswalk" and it.data.get("plane") == uid]
        if gone:
            self.stack = [it for it in self.stack if not any(it is g for g in gone)]
        self.pending_triggers = [t for t in self.pending_triggers
                                 if not (t.key == "planeswalk" and t.data.get("plane") == uid)]
        self._log("plane_leaves", name=planar.face_up, owner=planar.owner, abilities_gone=len(gone))
        planar.face_up = None
        self._planar_arrive(planar.controller)

    def _planar_sba(self) -> bool:
        """CR 704.6f: a face-up phenomenon that is not the source of an encounter ability
        that has triggered and not yet left the stack makes the planar controller
        planeswalk.  Returns whether it did."""
        planar = self.planar
        if planar.face_up is None or not pl.get(planar.face_up).is_phenomenon:
            return False
        uid = planar.uid
        for t in self.pending_triggers:
            if t.key == "plane" and t.data.get("plane") == uid:
                return False
        for t in self.stack:
            if t.key == "plane" and t.data.get("plane") == uid:
                return False
        self.planeswalk(planar.controller)
        return True
