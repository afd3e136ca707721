"""Guardian identity cards of TRD-2025 (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import MAX_CHOICE, MAX_PERMS
from ..identity_abilities import (IdentityImpl, exile_linked, forbids, register,
                                  register_callbacks, return_from_exile, targets_of)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, StackItem


# The Bodyguard: prevent all damage to a target player and their permanents until
# the Bodyguard's controller's next turn.
def _bodyguard_unveil(game: "Game", item: "StackItem") -> None:
    for _, s in targets_of(item, "p"):
        game.shields.append({"kind": "prevent_damage", "seat": s, "until_turn_of": item.controller,
                             "owner": item.controller})
        game._log("shield", seat=s, source=item.source)


register(IdentityImpl("The Bodyguard", on_unveil="_bodyguard_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player"}]))


# The Cathar: exile up to three target nonland permanents until you lose the game.
def _cathar_unveil(game: "Game", item: "StackItem") -> None:
    """The Cathar.  "Until you lose the game" (data: "until The Cathar's
    controller loses"): "you" is the player who controls the trigger as it
    resolves (a duration fixed on resolution; The Reflector's controller if it
    took the trigger), whoever controls the card later (The Puppet Master).
    The exile ends as that player loses, before their identity objects resolve
    (CR 907.8a): an ``"on:losing"`` effect, ``_cathar_return``.  If that player
    has lost since the trigger triggered (it resolves before they leave), the
    duration has already ended and nothing moves (CR 610.3b)."""
    if item.controller in game.leaving or game.players[item.controller].has_lost:
        game._log("cathar_already_lost", seat=item.controller)
        return
    back = exile_linked(game, [c for _, c in targets_of(item, "c")])
    if back:
        game.effects.append({"kind": "on:losing", "fn": "_cathar_return", "controller": item.controller,
                             "until": None, "cards": back, "source": "The Cathar"})


def _cathar_return(game: "Game", e: dict, kw: dict) -> None:
    """As the Cathar's player loses: the exiled cards return to the battlefield
    under their owners' control (owners still in the game)."""
    if kw["seat"] != e["controller"]:
        return
    game.effects.remove(e)
    return_from_exile(game, e["cards"], tapped=False)


register(IdentityImpl("The Cathar", on_unveil="_cathar_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "nonland_permanent", "min": 0, "max": 3}]))


# The Flickering Mage: exile up to four target nonland permanents; return them
# tapped at the beginning of the next end step (tokens don't return).
def _flickering_unveil(game: "Game", item: "StackItem") -> None:
    back = exile_linked(game, [c for _, c in targets_of(item, "c")])
    if back:
        game.delayed.append({"when": "end_step", "fn": "_flickering_return", "cards": back})


def _flickering_return(game: "Game", d: dict) -> None:
    return_from_exile(game, d["cards"], tapped=True)


register(IdentityImpl("The Flickering Mage", on_unveil="_flickering_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "nonland_permanent", "min": 0, "max": 4}]))


# The Golem: a target Leader player loses 6 life and you gain 6; while face up,
# Leader players have hexproof and can't be attacked (until its controller loses:
# not while they are leaving, CR 907.8a; ``statics_until_loss``).
def _golem_unveil(game: "Game", item: "StackItem") -> None:
    for _, s in targets_of(item, "p"):
        game.lose_life(s, 6, source_seat=item.controller)
        game.gain_life(item.controller, 6)


register(IdentityImpl("The Golem", on_unveil="_golem_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "leader_player"}],
                       statics=frozenset({"leaders_hexproof", "leaders_unattackable"}),
                       statics_until_loss=True))


# The Immortal: up to one target player gains 15 life; up to one target player
# shuffles their graveyard into their library.
def _immortal_unveil(game: "Game", item: "StackItem") -> None:
    t = item.targets
    if len(t) > 0 and t[0] is not None:
        game.gain_life(t[0][1], 15)
    if len(t) > 1 and t[1] is not None:
        p = game.players[t[1][1]]
        p.library.extend(p.graveyard)
        p.graveyard = []
        game.rng.shuffle(p.library)
        game._log("shuffle_graveyard", seat=p.seat)


register(IdentityImpl("The Immortal", on_unveil="_immortal_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player", "min": 0}, {"type": "player", "min": 0}]))


# The Inquisitor ({X}{1}): X other target players reveal their hands; for each,
# you exile a card from that player's hand or graveyard.
def _inquisitor_x_ok(game: "Game", seat: int, x: int) -> bool:
    """X is at most the number of other players that will be legal targets when
    the trigger's targets are chosen, i.e. once the Inquisitor is face up: a
    Leader player with hexproof (The Golem) is then an opponent only if the
    Inquisitor's controller is not on the Leader team (CR 907.7g); a player an
    effect keeps from being targeted (The Oracle's, until end of turn) is not
    counted."""
    from ..rules import Team, team_of
    on_leader_team = team_of(game.players[seat].identity.role) == Team.LEADER
    others = [s for s in game.alive() if s != seat and (
        on_leader_team or not (game.has_static("leaders_hexproof") and game.is_leader_player(s)))
        and not (game.effects and forbids(game, "target_player", seat=seat, target=s))]
    return x <= len(others)


def _inquisitor_unveil(game: "Game", item: "StackItem") -> None:
    game.then(*[("call", "_inquisitor_pick", item.controller, s) for _, s in targets_of(item, "p")])


def _inquisitor_pick(game: "Game", seat: int, victim: int) -> None:
    p = game.players[victim]
    if p.has_lost:
        return
    game._log("reveal_hand", seat=victim, cards=[c.name for c in p.hand])
    options = [("hand", i, c) for i, c in enumerate(p.hand)]
    seen = set()
    for c in p.graveyard:
        if c.name not in seen:
            seen.add(c.name)
            options.append(("graveyard", -1, c))
    options = options[:MAX_CHOICE]
    L = game.layout
    game.ask(seat, 8, [(L.CHOICE + k, (victim,) + o[:2] + (o[2].name,)) for k, o in enumerate(options)],
             "_inquisitor_exile", None, f"exile a card from P{victim}'s hand or graveyard",
             labels=[f"{o[2].name} ({o[0]})" for o in options])


def _inquisitor_exile(game: "Game", _data: Any, choice: tuple) -> None:
    victim, zone, i, name = choice
    p = game.players[victim]
    if zone == "hand":
        c = p.hand.pop(i)
    else:
        k = next(j for j, c in enumerate(p.graveyard) if c.name == name)
        c = p.graveyard.pop(k)
    p.exile.append(c)
    game._log("exile_card", seat=victim, card=c.name, zone=zone)


register(IdentityImpl("The Inquisitor", on_unveil="_inquisitor_unveil", x_ok=_inquisitor_x_ok,
                       unveil_specs=lambda g, s, x: [{"type": "player", "other": True, "max": x, "exact": True}]
                       if x > 0 else []))


# The Mirror Maestra ({X}{X}{2}): choose a player and X target permanents; that
# player creates a token copy of each.
def _maestra_x_ok(game: "Game", seat: int, x: int) -> bool:
    return x <= sum(len(p.creatures[:MAX_PERMS]) for p in game.players if not p.has_lost)


def _maestra_prepare(game: "Game", item: "StackItem") -> None:
    L = game.layout
    opts = [(L.PLAYER + game.rel(item.controller, s), s) for s in game.alive()]
    game.ask(item.controller, 5, opts, "_maestra_player", item, "choose the player who gets the copies")


def _maestra_player(game: "Game", item: "StackItem", s: int) -> None:
    item.data["player"] = s


def _maestra_unveil(game: "Game", item: "StackItem") -> None:
    s = item.data.get("player", item.controller)
    if game.players[s].has_lost:
        return
    for _, c in targets_of(item, "c"):
        game.create_creature_token(s, c.name, 1, copy_of=c)


register(IdentityImpl("The Mirror Maestra", on_unveil="_maestra_unveil", x_ok=_maestra_x_ok,
                       unveil_prepare="_maestra_prepare",
                       unveil_specs=lambda g, s, x: [{"type": "permanent", "max": x, "exact": True}] if x > 0 else []))


register_callbacks(globals())
