"""Throne Magic's hidden-role layer (``../shared/rules/throne-magic.txt``, cited
by its headings): the Role deal, the reveal on leaving, the win check and the
end-of-game reveal, on the same engine as Treachery.

A game's hidden-role layer is ``Game.social``: None in Treachery (whose layer
is the engine's own, in :mod:`.setup`, :mod:`.treachery` and :mod:`.outcome`),
a :class:`ThroneMagic` in a Throne Magic game (``GameConfig(game="throne_magic")``).
The engine asks it at four points: the deal (:meth:`ThroneMagic.deal`, from
``Game._setup``), a player leaving (:meth:`ThroneMagic.reveal`, from
``Game.lose`` and ``Game._finish_leaving``), after every leave
(:meth:`ThroneMagic.check_end`, from ``Game._check_game_end``) and at the end
(:meth:`ThroneMagic.end_reveal`, from ``Game._end_game_reveal``).  A Throne
Magic player holds no identity card (``Player.identity`` is None), so the
identity layer's per-player reads find nothing to do: no unveil or identity
options, no Leader, and every other player an opponent (a free-for-all,
CR 102.3 as CR 907.7g's face-down case reads).

The Throne ("Throne Cards" to "Abandoned Thrones") is an
:class:`~treachery_env.engine.state.Attackable` of kind ``"throne"``: in its
controller's ``Player.attackables`` while controlled (attacked, blocked for and
named by action like a planeswalker), with ``controller == -1`` and in no list
while uncontrolled ("in the middle of the table": the WALKER action block's
reserved row, and creatures attacking it have ``attacking == n``, no defending
player).  Only combat damage affects it: no target spec finds it, damage from
anything else does nothing, and it has no loyalty.  :class:`ThroneMixin` holds
the engine's side: the Throne's choice, taking it after combat damage, its
abandonment and its upkeep ability.

Every creature has the two Throne abilities ("Giving Creatures to the
Monarch", "The Monarch Distributing Creatures"): a priority action on the
creature's own PERM slot activates the one that can do something (the first
when another player controls the Throne, the second when its controller
does).

Holdings (``ThroneMagic.holdings``, the HOLDING action block), the Seasons
(``ThroneMagic.season``) and the Draft (the seats' picks before the deal) are
here too; the mode's observation, view and text are in the modules of
Treachery's (``treachery_env/observation.py``, ``view.py``, ``text.py``).
"""

from __future__ import annotations

import numpy as np

from .. import throne_cards as tc
from .. import throne_roles as tr
from ..actions import MAX_PERMS
from .state import Attackable, Decision, DecisionKind, StackItem, StateRecord

__all__ = ["ThroneMagic", "ThroneMixin", "GIVE", "DISTRIBUTE", "THRONE_KEYS"]

GIVE = "throne_give"
"""Stack key of "T: The controller of the Throne may gain control of this creature."
("Giving Creatures to the Monarch")."""
DISTRIBUTE = "throne_distribute"
"""Stack key of "T: Target player may gain control of this creature.  Activate this ability
only if you control the Throne." ("The Monarch Distributing Creatures")."""
THRONE_KEYS = frozenset({"throne", "holding", GIVE, DISTRIBUTE})
"""Stack keys of Throne Magic's abilities (the Throne's, the Holdings', the creatures' two)."""
_RECEIVER = {"type": "player", "opponent": True}
"""The distribution's target: another player (everyone else is an opponent in Throne Magic;
targeting oneself, who already controls the creature, would do nothing)."""


class ThroneMagic(StateRecord):
    """The Role cards of one Throne Magic game and who knows them (state, copied
    by ``Game.clone`` slot by slot).

    Attributes:
        roles: each seat's Role name, in seat order (hidden: a seat's own is
            known to it alone until revealed).
        role_set: the Roles in the game, in the data file's order (public:
            "Public and Private Information").
        known_by: per seat, the set of seats that know its Role (itself at the
            deal; every seat once it is revealed).
        method: how the Roles were chosen: "basic", "random" or "sculpted".
        throne: the game's Throne (an :class:`Attackable` of kind "throne";
            None until chosen: The King's choice comes before the first turn).
        season: the Season in effect ("Spring", "Summer", "Autumn", "Winter"),
            None without Seasons (``GameConfig.seasons``).
        holdings: the game's Holdings (:class:`Attackable` of kind "holding", in
            the order drawn: Holding ``k`` is the action ``layout.holding(k)``),
            empty without them (``GameConfig.holdings``).  They are in no
            player's ``attackables``: ``controller`` says who holds one (-1: the
            middle of the table).
    """

    __slots__ = ("roles", "role_set", "known_by", "method", "throne", "season", "holdings")

    def __init__(self, roles: list[str], method: str, seasons: bool = False):
        self.method = method
        self.throne = None
        self.holdings = []
        self.season = tc.SEASON_ORDER[0] if seasons else None
        self._seat(roles)

    def _seat(self, roles: list[str]) -> None:
        """Hold ``roles`` as dealt, seat by seat (empty during a Draft: ``role_set`` is then the
        Roles picked so far)."""
        order = {n: i for i, n in enumerate(tr.names())}
        self.roles = tuple(roles)
        self.role_set = tuple(sorted(roles, key=order.__getitem__))
        self.known_by = [{s} for s in range(len(roles))]

    def claimant(self, seat: int) -> bool:
        """Whether ``seat``'s Role has the type Claimant (hidden: only the engine's rules ask)."""
        return tr.get(self.roles[seat]).claimant

    @classmethod
    def deal(cls, game) -> "ThroneMagic":
        """Choose the game's Roles by ``config.throne_roles`` and deal them
        ("Choosing Role Cards for the Game"; "Public and Private Information":
        the set is chosen openly, then shuffled face down and dealt one per
        player), or seat ``config.throne_deal`` as given.  Logs the public
        ``roles`` event (the set) and a private ``deal_role`` per seat.

        The Random method draws from a numpy generator seeded by the game's
        random stream, so a game's seed fixes its Roles.  The Draft method
        returns with no Roles yet: the seats choose them first
        (:meth:`ThroneMixin._draft_pick`), then :meth:`deal_roles` deals them.
        """
        cfg = game.config
        method = cfg.throne_roles
        if method == "draft":
            return cls([], "draft", cfg.seasons)
        if isinstance(method, tuple):
            roles, name = list(method), "sculpted"
        elif method == "basic":
            roles, name = tr.basic_roles(game.n), "basic"
        else:
            roles = tr.random_roles(game.n, np.random.default_rng(game.rng.getrandbits(64)))
            name = "random"
        social = cls([], name, cfg.seasons)
        social.deal_roles(game, roles)
        return social

    def deal_roles(self, game, roles: list[str]) -> None:
        """Shuffle the Roles ``roles`` face down and deal one per seat (or seat
        ``config.throne_deal`` as given); log the public set (``roles``) and each
        seat's own, privately (``deal_role``).  The King, if dealt, is known to every
        seat at once (``king``): he begins the game controlling the Throne, and
        chooses it in public with ``throne="king"``."""
        roles = list(roles)
        if game.config.throne_deal is not None:
            roles = list(game.config.throne_deal)
        else:
            game.rng.shuffle(roles)
        self._seat(roles)
        game._log("roles", roles=list(self.role_set), method=self.method)
        for seat, role in enumerate(roles):
            game._log("deal_role", to=[seat], seat=seat, role=role)
        if "The King" in roles:         # "Throne Cards": he begins the game controlling the Throne, in public
            king = roles.index("The King")
            self.known_by[king].update(range(game.n))
            game._log("king", seat=king)

    def role(self, seat: int) -> str:
        """``seat``'s Role name (hidden information: callers show it only to the seats in ``known_by``)."""
        return self.roles[seat]

    def look(self, game, seat: int, other: int) -> None:
        """``seat`` looks at ``other``'s Role card (Throne of Visions): known to them
        from now on, told privately (``look_at_role``)."""
        if seat not in self.known_by[other]:
            self.known_by[other].add(seat)
        game._log("look_at_role", to=[seat], seat=seat, other=other, role=self.roles[other])

    def reveal(self, game, seat: int) -> None:
        """"Leaving the Game": a player who leaves reveals their Role card; logged
        once (``reveal_role``), when it becomes known to all."""
        known = self.known_by[seat]
        if len(known) < game.n:
            known.update(range(game.n))
            game._log("reveal_role", seat=seat, role=self.roles[seat])

    def check_end(self, game) -> None:
        """"Winning the Game", after players have left: a player still in the game
        whose must-eliminate Roles have all left wins (several may at once); else
        the last player standing wins; nobody left is a draw.  When someone wins,
        every other player loses, in the game or not (``Game._win``)."""
        in_game = [not p.has_lost for p in game.players]
        won = tr.winners(self.roles, in_game)
        if won or not any(in_game):
            game._win(set(won))

    def end_reveal(self, game) -> None:
        """At the end of the game every Role is shown (``reveal_all``; the rules
        text is silent, the record needs it: listed in docs/fidelity.md)."""
        for known in self.known_by:
            known.update(range(game.n))
        game._log("reveal_all", roles=list(self.roles))


class ThroneMixin:
    """The Throne on the engine ("Throne Cards" to "Abandoned Thrones"): methods of
    :class:`~treachery_env.engine.game.Game`, active only in a Throne Magic game."""

    # ------------------------------------------------------------------ the Draft, then the hands
    def _draft_pick(self, seat: int, picks: list[str]) -> None:
        """"Choosing Role Cards for the Game", Draft: ``seat`` chooses a Role for the
        game among :func:`treachery_env.throne_roles.draft_picks` (CHOICE + i over
        the names in ``labels``; public); then the next seat in turn order, until
        each player has chosen one; then the Roles are dealt (:meth:`ThroneMagic.deal_roles`)."""
        names = tr.draft_picks(picks, self.n)
        L = self.layout
        self.decision = Decision(seat, DecisionKind.MODE, [(L.CHOICE + k, nm) for k, nm in enumerate(names)],
                                 "_h_draft_role", (seat, picks),
                                 f"choose a Role for the game (the Draft, pick {len(picks) + 1} of {self.n})", names)

    def _h_draft_role(self, ctx: tuple, name: str) -> None:
        seat, picks = ctx
        picks = picks + [name]
        self._log("draft_pick", seat=seat, role=name)
        self.social.role_set = tuple(n for n in tr.names() if n in picks)     # public: the picks so far
        if len(picks) < self.n:
            self._draft_pick((seat + 1) % self.n, picks)
            return
        self.social.deal_roles(self, picks)
        self._roles_dealt()

    def _roles_dealt(self) -> None:
        """Once the Roles are dealt: the opening hands, then the starting player (at
        random, CR 103.1; the Throne Magic text names none) and the Throne
        (:meth:`_choose_throne`, which begins the game)."""
        hand_sizes = self._opening_sizes()          # with a Vanguard's hand modifier (CR 902.5)
        self._draw_opening_hands(hand_sizes)
        self._choose_throne(self.rng.randrange(self.n), hand_sizes)

    # ------------------------------------------------------------------ choosing it
    def _choose_throne(self, first: int, hand_sizes: list[int]) -> None:
        """"Choosing a Throne Card for the Game", after the deal: the Throne named by
        ``config.throne``, one drawn at random, or The King's choice (a decision of
        The King's seat among the 7 Thrones, CHOICE + i; public: The King starts
        controlling the Throne, so his seat is public anyway).  Then the game begins
        (``Game._begin``)."""
        cfg = self.config
        names = [c.name for c in tc.thrones()]
        if cfg.throne == "king":
            king = self.social.roles.index("The King")
            L = self.layout
            self.decision = Decision(king, DecisionKind.MODE, [(L.CHOICE + k, nm) for k, nm in enumerate(names)],
                                     "_h_choose_throne", (first, hand_sizes), "choose the game's Throne", names)
            return
        self._place_throne(self.rng.choice(names) if cfg.throne == "random" else cfg.throne)
        self._place_holdings()
        self._begin(first, hand_sizes)

    def _h_choose_throne(self, ctx: tuple, name: str) -> None:
        """The King chose the Throne ``name``; the game begins."""
        self._place_throne(name)
        self._place_holdings()
        self._begin(*ctx)

    def _place_holdings(self) -> None:
        """"Holdings (Advanced)": with ``config.holdings``, min(players, 10) Holdings
        drawn at random (:func:`treachery_env.throne_cards.draw_holdings`, from the
        game's seed) begin the game uncontrolled.  Logged publicly (``holdings``)."""
        if not self.config.holdings:
            return
        names = tc.draw_holdings(self.n, np.random.default_rng(self.rng.getrandbits(64)))
        self.social.holdings = [Attackable(self._new_uid(), "holding", None, -1, -1, 0, self.turn, name=nm)
                                for nm in names]
        self._log("holdings", names=names)

    def _place_throne(self, name: str) -> None:
        """The Throne ``name`` enters: controlled by The King if he is in the game
        ("Throne Cards"), else uncontrolled.  Logged publicly (``throne``)."""
        social = self.social
        roles = social.roles
        king = roles.index("The King") if "The King" in roles else -1
        w = Attackable(self._new_uid(), "throne", None, -1, king, 0, self.turn, name=name)
        social.throne = w
        if king >= 0:
            self.players[king].attackables.append(w)
        self._log("throne", name=name, controller=king)

    # ------------------------------------------------------------------ control
    def _throne_to(self, seat: int, why: str) -> None:
        """The Throne goes to ``seat`` (``-1``: the middle of the table, uncontrolled);
        logged publicly (``throne_control``, with ``why``: "taken", "declined",
        "abandoned")."""
        w = self.social.throne
        old = w.controller
        self._out_of_combat(w)
        if old >= 0:
            self.players[old].attackables.remove(w)
        w.controller = seat
        w.base_controller = seat
        if seat >= 0:
            self.players[seat].attackables.append(w)
        self._log("throne_control", seat=seat, previous=old, why=why, name=w.name)

    def _out_of_combat(self, w: Attackable) -> None:
        """The Throne or Holding ``w`` changes control: like an attacked planeswalker whose
        controller changes (CR 506.4), it is removed from combat; the creatures attacking it
        stay attacking creatures but deal it no more combat damage this combat
        (``Game._attack_target``; the set is emptied with the turn's effects)."""
        if any(a.attacking_obj is w for a in self.combat_attackers):
            self.turn_effects.setdefault("out_of_combat", set()).add(w.uid)

    def _op_throne_take(self, seats: list[int]) -> None:
        """"Taking the Throne" / "Controlling the Throne": the Throne was dealt combat
        damage by sources of ``seats`` (APNAP order).  Each still in the game, in
        turn, chooses to take it (CHOICE + 0) or not (PASS).  Every one of them gets
        this same two-option decision, so that being asked reveals nothing; taking
        it works only for a Claimant, whose Role stays secret; for anyone else the
        choice puts it in the middle as declining does ("non-Claimants cannot lie and
        take the Throne").  The first Claimant who takes it controls it and no one
        after is asked; if nobody takes it, it goes to the middle, uncontrolled.
        It does not use the stack."""
        seats = [s for s in seats if not self.players[s].has_lost and s not in self.leaving]
        if not seats:
            if self.social.throne.controller >= 0:
                self._throne_to(-1, "declined")
            return
        L = self.layout
        self.decision = Decision(seats[0], DecisionKind.YES_NO, [(L.CHOICE, True), (L.PASS, False)],
                                 "_h_throne_take", (seats[0], seats[1:]),
                                 "take the Throne (only a Claimant can; otherwise it goes to the middle), or PASS")

    def _h_throne_take(self, ctx: tuple, take: bool) -> None:
        seat, rest = ctx
        if take and self.social.claimant(seat):
            if self.social.throne.controller != seat:
                self._throne_to(seat, "taken")
            return
        self._push_front([("throne_take", rest)])

    # ------------------------------------------------------------------ Holdings
    def _holding_to(self, w: Attackable, seat: int, why: str) -> None:
        """Holding ``w`` goes to ``seat`` (-1: the middle); logged publicly
        (``holding_control``, ``why``: "taken", "declined", "abandoned")."""
        old = w.controller
        self._out_of_combat(w)
        w.controller = w.base_controller = seat
        self._log("holding_control", seat=seat, previous=old, why=why, name=w.name,
                  holding=self.social.holdings.index(w))

    def _op_holding_take(self, w: Attackable, seats: list[int]) -> None:
        """"Holdings (Advanced)": Holding ``w`` was dealt combat damage by sources of
        ``seats`` (APNAP order); each still in the game, in turn, may take it
        (CHOICE + 0; any player may control a Holding) or not (PASS); the first who
        takes it controls it; if nobody does, it goes to the middle.  No stack."""
        seats = [s for s in seats if not self.players[s].has_lost and s not in self.leaving]
        if not seats:
            if w.controller >= 0:
                self._holding_to(w, -1, "declined")
            return
        L = self.layout
        self.decision = Decision(seats[0], DecisionKind.YES_NO, [(L.CHOICE, True), (L.PASS, False)],
                                 "_h_holding_take", (w, seats[0], seats[1:]), f"take {w.name}, or PASS")

    def _h_holding_take(self, ctx: tuple, take: bool) -> None:
        w, seat, rest = ctx
        if take:
            if w.controller != seat:
                self._holding_to(w, seat, "taken")
            return
        self._push_front([("holding_take", w, rest)])

    def _locations_taken(self, hits: list) -> None:
        """After combat damage (``hits``: ``(source creature, planeswalker, Throne or Holding)``
        for each source that dealt it 1 or more damage, prevented damage left out): the
        take decisions of the Throne ("Taking the Throne": "dealt 1 or more points of combat
        damage") and of each Holding dealt damage, each among its damage sources' controllers
        in APNAP order."""
        social = self.social
        ops = []
        for w in ([social.throne] if social.throne is not None else []) + social.holdings:
            by = {src.controller for src, obj in hits if obj is w}
            if by:
                seats = [s for s in self._apnap() if s in by]
                ops.append(("throne_take", seats) if w.kind == "throne" else ("holding_take", w, seats))
        if ops:
            self._push_front(ops)

    # ------------------------------------------------------------------ its ability
    def _throne_upkeep(self) -> None:
        """"Throne Abilities" (and the Holdings'): at the beginning of its
        controller's upkeep the ability of the Throne, then of each Holding, that
        the active player controls triggers (on the stack; it may be countered like
        any ability).  Their data: :mod:`treachery_env.throne_cards`."""
        if self.players[self.active].has_lost:
            return
        social = self.social
        for w in ([social.throne] if social.throne is not None else []) + social.holdings:
            if w.controller != self.active:
                continue
            ab = tc.get(w.kind, w.name).ability
            if ab is None or ab.trigger != "controller_upkeep":
                continue
            trig = StackItem(self._new_uid(), "trigger", w.controller, source=w.name, key=w.kind)
            trig.data["card"] = (w.kind, w.name)
            if ab.targets:
                trig.data["specs"] = [dict(t) for t in ab.targets]
            self.pending_triggers.append(trig)

    def _resolve_throne_item(self, item: StackItem) -> None:
        """Resolve a Throne Magic stack object: the Throne's or a Holding's ability
        (key "throne", "holding") or a creature's Throne ability (:data:`GIVE`,
        :data:`DISTRIBUTE`)."""
        if item.key == "throne" or item.key == "holding":
            self._resolve_throne_ability(item)
        else:
            self._resolve_throne_creature(item)

    def _resolve_throne_ability(self, item: StackItem) -> None:
        """Resolve a Throne's triggered ability: "may" abilities ask their player
        first (YES_NO: CHOICE + 0 = yes, PASS = no)."""
        ab = tc.get(*item.data["card"]).ability
        if ab.optional:
            L = self.layout
            self.decision = Decision(item.controller, DecisionKind.YES_NO, [(L.CHOICE, True), (L.PASS, False)],
                                     "_h_throne_may", item, f"{item.source}: {tc.get(*item.data['card']).text}")
            return
        self._push_front([("effect", item, dict(e)) for e in ab.effects])

    def _h_throne_may(self, item: StackItem, yes: bool) -> None:
        if yes:
            ab = tc.get(*item.data["card"]).ability
            self._push_front([("effect", item, dict(e)) for e in ab.effects])

    # ------------------------------------------------------------------ the Seasons
    def _season_check(self) -> None:
        """"Seasons (Advanced)", as a player's untap step begins: the Season moves on
        by one (:func:`treachery_env.throne_cards.season_after`) if one or more
        players left the game during the previous turn; logged publicly (``season``)."""
        social = self.social
        left = sum(1 for p in self.players if p.has_lost and p.lost_turn == self.turn - 1 >= 1)
        new = tc.season_after(social.season, left)
        if new != social.season:
            social.season = new
            self._log("season", season=new)

    def _season_upkeep(self) -> None:
        """The Season in effect acts at the beginning of each player's upkeep, for that
        player (Summer, Autumn, Winter; Spring does nothing).  "Nothing can affect or
        stop the Season cards": its effect applies at once, without the stack
        (abstraction of Autumn's "triggered ability", docs/fidelity.md)."""
        season = self.social.season
        ab = tc.get("season", season).ability
        if ab is None or self.players[self.active].has_lost:
            return
        item = StackItem(self._new_uid(), "trigger", self.active, source=season, key="season")
        self._push_front([("effect", item, dict(e)) for e in ab.effects])

    # ------------------------------------------------------------------ the creatures' two abilities
    def _throne_creature_options(self, seat: int) -> list:
        """Priority options activating a creature's Throne ability (any time ``seat``
        has priority: activated abilities, CR 602.2): for each untapped creature
        ``seat`` has controlled since its turn began (a {T} cost, CR 302.6; haste
        lifts it), PERM(0, slot) = :data:`DISTRIBUTE` when ``seat`` controls the
        Throne and another player is in the game, :data:`GIVE` when another player
        controls it.  Not offered (abstraction, docs/fidelity.md): the activations
        that could do nothing (giving to oneself or to no one)."""
        w = self.social.throne
        if w is None or w.controller < 0:
            return []
        if w.controller == seat:
            if self.n_alive < 2:
                return []
            key = DISTRIBUTE
        else:
            key = GIVE
        L = self.layout
        out = []
        for slot, c in enumerate(self.players[seat].creatures[:MAX_PERMS]):
            if not c.tapped and (c.entered_turn < self.turn or c.has("haste")):
                out.append((L.perm(0, slot), ("throne_creature", (slot, key))))
        return out

    def _activate_throne_creature(self, seat: int, slot: int, key: str) -> None:
        """Activate creature ``slot``'s Throne ability ``key`` (CR 602.2): tap it (the
        cost), choose the distribution's target player, put it on the stack."""
        c = self.players[seat].creatures[slot]
        c.tapped = True
        item = StackItem(self._new_uid(), "ability", seat, source=c.name, key=key)
        item.creature = c
        if c.ordinal > 1:
            item.label = c.label
        ops: list = []
        if key == DISTRIBUTE:
            ops.append(("choose_target", item, _RECEIVER, 1))
        ops.append(("push_item", item))
        self._push_front(ops)

    def _resolve_throne_creature(self, item: StackItem) -> None:
        """The receiver (the Throne's controller now, for :data:`GIVE`; the target
        player, for :data:`DISTRIBUTE`) decides whether to accept the creature
        (YES_NO: CHOICE + 0 = accept, PASS = refuse).  Nothing happens if the
        creature left the battlefield or its controller changed (it is no longer
        "this creature" under the activator), or the receiver already controls it."""
        c = item.creature
        seat = item.controller
        if c is None or c not in self.players[seat].creatures:
            return
        if item.key == GIVE:
            w = self.social.throne
            receiver = w.controller if w is not None else -1
        else:
            t = item.targets[0] if item.targets else None
            receiver = t[1] if t is not None else -1
        if receiver < 0 or receiver == seat or self.players[receiver].has_lost:
            return
        L = self.layout
        self.decision = Decision(receiver, DecisionKind.YES_NO, [(L.CHOICE, True), (L.PASS, False)],
                                 "_h_throne_accept", (item, receiver),
                                 f"accept {c.label} from P{seat}, or PASS")

    def _h_throne_accept(self, ctx: tuple, accept: bool) -> None:
        item, receiver = ctx
        c = item.creature
        if accept and c in self.players[item.controller].creatures:
            self.gain_control(c, receiver, source=item.key)
        else:
            self._log("refuses_creature", seat=receiver, creature=c.uid, name=c.name, **self._labels(c))
