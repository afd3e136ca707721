"""Traitors identity cards of TRD-2025, rare (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..identity_abilities import IdentityImpl, copy_on_stack, register, register_callbacks, targets_of

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, StackItem  # noqa: F401


# The Cleaner ({8}): only if it is its controller's turn, exile every nonland
# permanent that player doesn't control and all opponents' graveyards.
def _cleaner_turn(game: "Game", seat: int) -> bool:
    """The intervening "if" of The Cleaner's trigger: it is its controller's turn."""
    return game.active == seat


def _cleaner_unveil(game: "Game", item: "StackItem") -> None:
    """The Cleaner (TRD-2025; CR 702.187d).  "Only if it is its controller's
    turn" is an intervening "if" (CR 603.4, ``IdentityImpl.unveil_if``):
    unveiled on another player's turn, the trigger doesn't trigger at all;
    the framework checks it again on resolution.  Nonland permanents are the
    creatures (tokens cease to exist, a commander goes to the command zone, CR
    903.9b), the planeswalkers (a token one ceases to exist) and the
    noncreature artifact tokens, kept as counts (abstraction,
    docs/fidelity.md); lands are never exiled.  "Opponents" per CR
    907.7f-g: a Traitor opposes every other player."""
    seat = item.controller
    for p in game.players:
        if p.has_lost or p.seat == seat:
            continue
        for c in list(p.creatures):
            game.exile_creature(c)
        for w in list(p.attackables):
            if w.kind == "planeswalker":
                game._attackable_leaves(w, "exile")
        n = sum(p.tokens.values())
        if n:
            p.tokens = dict.fromkeys(p.tokens, 0)
            game._log("tokens_exiled", seat=p.seat, n=n)
    for p in game.players:
        if p.has_lost or not game.is_opponent(seat, p.seat) or not p.graveyard:
            continue
        n = len(p.graveyard)
        p.exile.extend(p.graveyard)
        p.graveyard = []
        game._log("graveyard_exiled", seat=p.seat, n=n)


register(IdentityImpl("The Cleaner", on_unveil="_cleaner_unveil", unveil_if=_cleaner_turn))


# The Reflector ({5}): gain control of target instant or sorcery spell or
# ability on the stack, you may choose new targets for it, then copy it once for
# each opponent; you may choose new targets for each copy.
def _reflector_unveil(game: "Game", item: "StackItem") -> None:
    """The Reflector (TRD-2025): exact on the stack model.  The target may be
    any ability, identity abilities included (only The Void Tyrant's ability
    excludes them, by its own text): target type
    ``"instant_sorcery_or_ability"``.  Gaining control sets the stack object's
    controller (CR 108.4a: "you" in its text is now the Reflector's
    controller); a spell keeps its owner.  The control effect is recorded
    (``Game.gain_control_of_stack_object``): if the Reflector's controller
    leaves the game, the object goes back to its previous controller and still
    resolves (CR 800.4a).  Each target may be changed
    (``_retarget``, PASS keeps it; candidates are legal for the new controller,
    CR 115.7), then one copy per opponent of the Reflector's controller
    (CR 707.10, 907.7f-g: every other player for a Traitor), each created and
    retargeted in turn."""
    seat = item.controller
    for _, it in targets_of(item, "s"):
        if it not in game.stack:
            continue
        game.gain_control_of_stack_object(it, seat, source=item.source)
        ops = [("call", "_retarget", seat, it, k) for k in range(len(it.targets))]
        ops.append(("call", "_reflector_copies", seat, it))
        game.then(*ops)


def _reflector_copies(game: "Game", seat: int, it: "StackItem") -> None:
    if game.players[seat].has_lost:
        return
    n = sum(1 for s in game._apnap() if game.is_opponent(seat, s))
    game.then(*[("call", "_reflector_copy", seat, it) for _ in range(n)])


def _reflector_copy(game: "Game", seat: int, it: "StackItem") -> None:
    """One copy of spell or ability ``it`` controlled by ``seat`` (copiable
    values and choices: X, modes, targets, linked data; CR 707.10), put on the
    stack; then its targets may be changed."""
    if game.players[seat].has_lost:
        return
    copy_on_stack(game, it, seat)


register(IdentityImpl("The Reflector", on_unveil="_reflector_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "instant_sorcery_or_ability"}]))


# The Time Bender ({6}): choose two - each player shuffles their hand and
# graveyard into their library, then draws seven cards; you take an extra turn
# after this one; end the turn.
TIME_BENDER_MODES = ("each player shuffles hand and graveyard into their library, then draws seven",
                     "take an extra turn after this one", "end the turn")


def _bender_prepare(game: "Game", item: "StackItem") -> None:
    """Two different modes, chosen as the trigger is put on the stack (CR 700.2a)."""
    item.data["modes"] = []
    game.then(("call", "_bender_ask", item), ("call", "_bender_ask", item))


def _bender_ask(game: "Game", item: "StackItem") -> None:
    L = game.layout
    opts = [(L.CHOICE + m, m) for m in range(3) if m not in item.data["modes"]]
    game.ask(item.controller, 7, opts, "_bender_mode", item, "choose a mode of The Time Bender",
             labels=[TIME_BENDER_MODES[m] for _, m in opts])


def _bender_mode(game: "Game", item: "StackItem", m: int) -> None:
    item.data["modes"].append(m)
    if len(item.data["modes"]) == 2:
        game._log("modes", seat=item.controller, source=item.source, modes=sorted(item.data["modes"]))


def _bender_unveil(game: "Game", item: "StackItem") -> None:
    """The Time Bender: the chosen modes happen in printed order (CR 700.2d):
    the wheel (APNAP order; hands and graveyards are shuffled into libraries,
    then every player draws seven), the extra turn (``game.extra_turns``,
    CR 500.7: taken right after this turn; the normal turn order then resumes
    from this turn's player), and ending the turn (``Game.end_turn``, CR 723:
    the stack is exiled, combat ends, the cleanup step follows)."""
    seat = item.controller
    modes = sorted(item.data.get("modes", ()))
    if 0 in modes:
        order = game._apnap()
        for s in order:
            p = game.players[s]
            p.library.extend(p.hand)
            p.library.extend(p.graveyard)
            p.hand = []
            p.graveyard = []
            game.rng.shuffle(p.library)
        game._log("wheel", seat=seat)
        for s in order:
            game.draw(s, 7)
    if 1 in modes:
        game.extra_turns.append(seat)
        game._log("extra_turn", seat=seat)
    if 2 in modes:
        game.end_turn()


register(IdentityImpl("The Time Bender", on_unveil="_bender_unveil", unveil_prepare="_bender_prepare"))


register_callbacks(globals())
