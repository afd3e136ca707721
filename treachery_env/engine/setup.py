"""Starting the game (CR 103, 907.3-907.6): decks, the identity deck and its
deal, the Vanguard cards (CR 902, :mod:`.vanguard`, with ``config.vanguard``),
opening hands, the first player, then the mulligans (CR 103.5, in
:mod:`treachery_env.engine.mulligan`) or directly the first turn.  A Throne
Magic game deals Role cards instead of identities (:mod:`.throne`).
"""

from __future__ import annotations

from .. import identities as ids
from ..cards import DECKS, deck_list
from ..rules import Role
from .state import IdentityCard
from .throne import ThroneMagic

__all__ = ["SetupMixin"]


class SetupMixin:
    """Starting the game (CR 103, 907.3-907.6): methods of :class:`~treachery_env.engine.game.Game`."""

    def _setup(self) -> None:
        """Decks first (TR2.1), then the identity deck is built, shuffled and
        dealt (CR 907.3-907.4); with ``config.vanguard`` each player's Vanguard
        card then modifies the starting life, hand and maximum hand size (CR
        902.3-902.5b, :mod:`.vanguard`), before the identities' bonuses (CR
        907.5); the Leader turns face up and starts (CR 907.6), after the
        mulligans when ``config.mulligans`` is "london" (CR 103.5)."""
        cfg = self.config
        rng = self.rng
        deck_names = list(cfg.decks) if cfg.decks is not None else [
            rng.choice(sorted(DECKS)) for _ in range(self.n)]
        if cfg.archenemy is not None:       # CR 904.4: the scheme decks, before the game's other cards
            self._deal_schemes()
        if cfg.game == "throne_magic":
            self._setup_throne_magic(deck_names)
            return
        # identity deck
        simple = cfg.variant == "simple_roles"
        if cfg.identities is not None:
            deal = [ids.simple_role_card(nm) if simple else ids.get(nm) for nm in cfg.identities]
        else:
            dist = cfg.distribution()    # role_counts, else the recommended deck (CR 907.3b-c, TR11)
            deal = []
            if simple:       # TR11: basic lands as role cards
                for role in Role:
                    deal.extend([ids.simple_role_card(role)] * dist[role])
            else:
                pool = cfg.pool()
                for role in Role:
                    cands = [nm for nm in pool if ids.get(nm).role == role]
                    deal.extend(ids.get(nm) for nm in rng.sample(cands, dist[role]))
            rng.shuffle(deal)
        # the identity deck's composition is public (TR2.3): cards per role, in Role order
        self.role_counts = tuple(sum(1 for c in deal if c.role == r) for r in Role)
        for seat, p in enumerate(self.players):
            self._deal_deck(p, deck_names[seat])
            idc = IdentityCard(self._new_uid(), deal[seat], seat)
            p.identity = idc
        self._deal_vanguards()      # CR 902.3-902.6: the life modifier before the identities' bonuses
        leaders = [p for p in self.players if p.identity.role == Role.LEADER]
        hand_sizes = self._opening_sizes()
        for p in self.players:
            idc = p.identity
            start = idc.identity.start
            p.life += start.get("life", 0)
            hand_sizes[p.seat] += start.get("hand_size", 0)
            p.max_hand_size += start.get("max_hand_size", 0)
            idc.counters.update(idc.identity.starting_counters(self.n))
            if idc.identity.unveil_cost is None:   # no unveil: starts face up (CR 702.187b)
                idc.face_up = True
                idc.known_by = set(range(self.n))
        for p in self.players:
            self._log("deal", to=[p.seat], seat=p.seat, identity=p.identity.name)
        for p in leaders:
            self._log("leader", seat=p.seat, identity=p.identity.name)
        self._draw_opening_hands(hand_sizes)
        self._refresh_statics()
        # CR 907.6 / 314.3a: the Leader player starts; several -> random among them
        starters = [p.seat for p in leaders] or [0]
        self._begin(starters[0] if len(starters) == 1 else rng.choice(starters), hand_sizes)

    def _setup_throne_magic(self, deck_names: list[str]) -> None:
        """Starting a Throne Magic game: decks as in Treachery, then the Roles
        are chosen and dealt (:meth:`ThroneMagic.deal`, "Choosing Role Cards for
        the Game"; the Draft's picks first, as decisions); nobody holds an
        identity card.  Then the hands, the starting player and the Throne
        (:meth:`ThroneMixin._roles_dealt`)."""
        for seat, p in enumerate(self.players):
            self._deal_deck(p, deck_names[seat])
        self._deal_vanguards()      # CR 902.3-902.6
        self.social = ThroneMagic.deal(self)
        if self.social.method == "draft":       # the seats choose the Roles first, from a random one
            first = self.rng.randrange(self.n)
            self._log("draft", first=first)
            self._draft_pick(first, [])
            return
        self._roles_dealt()

    def _deal_deck(self, p, deck_name: str) -> None:
        """Give ``p`` the preset deck ``deck_name`` (commander in the command zone
        with ``config.commander``, CR 903.6; else shuffled in), shuffled, with the
        starting life and maximum hand size (CR 103.3-103.4)."""
        cfg = self.config
        p.deck = deck_name
        cmd, cards = deck_list(deck_name, cfg.recommended_exclusions)
        p.commander = cmd if cfg.commander else None
        if not cfg.commander:
            cards = cards + [cmd]
        p.library = list(cards)
        self.rng.shuffle(p.library)
        p.life = cfg.life
        p.max_hand_size = cfg.max_hand_size

    def _draw_opening_hands(self, hand_sizes: list[int]) -> None:
        """Each player draws their opening hand (CR 103.5), ``hand_sizes[seat]`` cards."""
        for p in self.players:
            for _ in range(hand_sizes[p.seat]):
                if p.library:
                    p.hand.append(p.library.pop())

    def _begin(self, first: int, hand_sizes: list[int]) -> None:
        """``first`` takes the first turn, after the London mulligans when
        ``config.mulligans`` is "london" (CR 103.5)."""
        self.active = first
        self.order_seat = self.active
        self.turn = 0
        if self.config.mulligans == "london":
            self._start_mulligans(hand_sizes)      # the first turn starts once every hand is kept
        else:
            if self.planar is not None:
                self._planar_start()        # Planechase: the starting plane (CR 901.5)
            self._start_turn(self.active)
