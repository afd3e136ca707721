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

Not built yet (``docs/throne_magic.md``, order of work): the Throne itself
(attacking, taking and abandoning it, its ability), the creatures' two
Throne abilities, Holdings, Seasons, the Draft method, and the observation,
view, text and environment of the mode.
"""

from __future__ import annotations

import numpy as np

from .. import throne_roles as tr
from .state import StateRecord

__all__ = ["ThroneMagic"]


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
    """

    __slots__ = ("roles", "role_set", "known_by", "method")

    def __init__(self, roles: list[str], method: str):
        order = {n: i for i, n in enumerate(tr.names())}
        self.roles = tuple(roles)
        self.role_set = tuple(sorted(roles, key=order.__getitem__))
        self.known_by = [{s} for s in range(len(roles))]
        self.method = method

    @classmethod
    def deal(cls, game) -> "ThroneMagic":
        """Choose the game's Roles by ``config.throne_roles`` and deal them
        ("Choosing Role Cards for the Game"; "Public and Private Information":
        the set is chosen openly, then shuffled face down and dealt one per
        player), or seat ``config.throne_deal`` as given.  Logs the public
        ``roles`` event (the set) and a private ``deal_role`` per seat.

        The Random method draws from a numpy generator seeded by the game's
        random stream, so a game's seed fixes its Roles.
        """
        cfg = game.config
        rng = game.rng
        method = cfg.throne_roles
        if isinstance(method, tuple):
            roles, name = list(method), "sculpted"
        elif method == "basic":
            roles, name = tr.basic_roles(game.n), "basic"
        else:
            roles = tr.random_roles(game.n, np.random.default_rng(rng.getrandbits(64)))
            name = "random"
        if cfg.throne_deal is not None:
            roles = list(cfg.throne_deal)
        else:
            rng.shuffle(roles)
        social = cls(roles, name)
        game._log("roles", roles=list(social.role_set), method=name)
        for seat, role in enumerate(roles):
            game._log("deal_role", to=[seat], seat=seat, role=role)
        return social

    def role(self, seat: int) -> str:
        """``seat``'s Role name (hidden information: callers show it only to the seats in ``known_by``)."""
        return self.roles[seat]

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
