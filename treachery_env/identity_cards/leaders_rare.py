"""Leaders identity cards of TRD-2025, rare (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..actions import MAX_STACK
from ..identity_abilities import identity_trigger, Activated, IdentityImpl, copy_on_stack, register, register_callbacks

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Creature, Game, IdentityCard, StackItem  # noqa: F401


# ============================================================== The Corrupted Regent
# In your draw step you may draw one extra card; if you do, choose a card drawn
# this turn and either pay 3 life or put it back on top of your library.
def _regent_draw_step(game: "Game", idc: "IdentityCard", seat: int, drawn: list) -> None:
    """TR / card: a triggered ability at the beginning of its controller's draw
    step (after the turn-based draw, CR 504.1-504.2).  Remembers the card that
    draw put into the hand (``drawn``, the event's: none from an empty
    library): "a card drawn this turn" is abstracted as a card
    drawn in this draw step (the regular draw or the extra one), still in hand
    on resolution; cards of one name are identical in the Magic-lite pool, so
    the card is chosen by name.  The names are hidden (``_drawn``: a data entry
    the rules leave out when they compare triggers, ``Game._trigger_key``), each
    with the seat that drew it: "you" is whoever controls the trigger as it
    resolves (The Reflector may take it), who chooses among the cards they drew."""
    if seat != idc.controller:
        return
    identity_trigger(game, idc, "regent", "_regent_resolve", _drawn=[(seat, c.name) for c in drawn])


def _regent_resolve(game: "Game", item: "StackItem") -> None:
    L = game.layout
    game.ask(item.controller, 12, [(L.CHOICE + 0, True), (L.PASS, False)], "_regent_extra", item,
             "The Corrupted Regent: draw an extra card?", labels=["draw", "don't"])


def _regent_extra(game: "Game", item: "StackItem", yes: bool) -> None:
    if not yes:
        return
    seat = item.controller
    p = game.players[seat]
    item.data["_drawn"] += [(seat, c.name) for c in game.draw(seat, 1)]
    game._log("regent_extra_draw", seat=seat)
    names: list[str] = []
    left = [c.name for c in p.hand]
    for by, nm in item.data["_drawn"]:
        if by == seat and nm in left:       # cards another player drew are theirs and hidden (CR 402.3)
            left.remove(nm)
            if nm not in names:
                names.append(nm)
    # asked even when none of them is in the hand any more (PASS alone: an empty
    # library's draw), so whether it is asked does not tell what the hand holds
    L = game.layout
    opts = [(L.CHOICE + k, nm) for k, nm in enumerate(names[:40])] or [(L.PASS, None)]
    game.ask(seat, 8, opts, "_regent_pick", item, "The Corrupted Regent: choose a card drawn this turn",
             labels=names[:40] or ["none of them is in your hand"])


def _regent_pick(game: "Game", item: "StackItem", name: str | None) -> None:
    if name is None:
        return
    seat = item.controller
    L = game.layout
    opts = [(L.CHOICE + 1, ("top", name))]
    labels = ["put it on top of your library"]
    if game.can_pay_life(seat, 3):
        opts.insert(0, (L.CHOICE + 0, ("life", name)))
        labels.insert(0, "pay 3 life")
    game.ask(seat, 7, opts, "_regent_pay", item, f"The Corrupted Regent: pay 3 life or put {name} back on top",
             labels=labels)


def _regent_pay(game: "Game", item: "StackItem", choice: tuple) -> None:
    """Pay 3 life (CR 119.4, a payment: The Oracle / Masochist can forbid it, then
    the card must go back) or put the card back on top (hidden: only its
    controller learns which card)."""
    seat = item.controller
    how, name = choice
    p = game.players[seat]
    if how == "life":
        game._lose_life(seat, 3, paid=True)
        return
    k = max(i for i, c in enumerate(p.hand) if c.name == name)
    p.library.append(p.hand.pop(k))
    game._log("put_on_top", seat=seat)
    game._log("put_on_top_card", to=[seat], seat=seat, card=name)


register(IdentityImpl("The Corrupted Regent", events={"draw_step": _regent_draw_step}))


# ============================================================== The King over the Scrapyard
# Whenever one of your attacking or blocking creatures dies, create your choice
# of a Junk or a Treasure token.  Whenever an opponent's spell or ability
# directly makes a nontoken permanent you control leave the battlefield, create
# a Junk and a Treasure token.
def _king_left(game: "Game", idc: "IdentityCard", creature: "Creature", zone: str | None) -> None:
    """``creature`` left the battlefield for ``zone`` (None: it left the game
    with a player, CR 800.4a, which is neither dying nor an effect).
    "Dies" = put into a graveyard from the battlefield (CR 700.4): a commander
    dies too before it moves to the command zone (CR 903.9a).  The attacking /
    blocking state is still on the object as it leaves.  "Directly" (second
    ability): the creature left during the resolution of a spell or ability
    (``Game.resolving``) controlled by an opponent (CR 907.7g: while face down
    everyone is an opponent); deaths by state-based actions after damage (a burn
    spell, combat) are not direct.  Lands and artifact tokens are counts in the
    Magic-lite layer and no opponent effect removes a land, so the nontoken
    permanents concerned are the nontoken creatures."""
    seat = idc.controller
    c = creature
    if c.controller != seat:
        return
    if zone is None:
        return
    if zone == "graveyard" and (c.attacking >= 0 or c.blocking is not None):
        identity_trigger(game, idc, "king_combat", "_king_choice", creature=c.name)
    cause = game.resolving
    if (not c.token and cause is not None and cause.controller != seat
            and game.is_opponent(seat, cause.controller)):
        identity_trigger(game, idc, "king_effect", "_king_both", creature=c.name, cause=cause.controller)


def _king_choice(game: "Game", item: "StackItem") -> None:
    L = game.layout
    game.ask(item.controller, 7, [(L.CHOICE + 0, "Junk"), (L.CHOICE + 1, "Treasure")], "_king_make", item.controller,
             "The King over the Scrapyard: create a Junk or a Treasure token", labels=["Junk", "Treasure"])


def _king_make(game: "Game", seat: int, name: str) -> None:
    game.create_tokens(seat, name, 1)


def _king_both(game: "Game", item: "StackItem") -> None:
    game.create_tokens(item.controller, "Junk", 1)
    game.create_tokens(item.controller, "Treasure", 1)


register(IdentityImpl("The King over the Scrapyard", events={"creature_left": _king_left}))


# ============================================================== The Twin Princesses
# {2}, once each turn: copy target activated or triggered ability you control;
# you may choose new targets for the copy.
def _twin_cands(game: "Game", seat: int) -> list:
    """Abilities (activated or triggered, CR 113.3b-c) ``seat`` controls on the
    stack that have a stack slot in the action layout."""
    n = len(game.stack)
    return [it for k, it in enumerate(game.stack)
            if it.kind in ("trigger", "ability") and it.controller == seat and n - 1 - k < MAX_STACK]


def _twin_ok(game: "Game", seat: int) -> bool:
    return bool(_twin_cands(game, seat))


def _twin_prepare(game: "Game", item: "StackItem") -> None:
    """The target is chosen on activation (CR 602.2b).  Abstraction: kept in
    ``item.data["target"]`` instead of ``item.targets`` because the engine's
    ``stack_object`` target type leaves out identity-sourced abilities, which
    the Twin Princesses may copy; legality is checked on resolution (CR 608.2b)."""
    seat = item.controller
    opts = []
    for it in _twin_cands(game, seat):
        a = game.target_action(seat, ("s", it))
        if a is not None:
            opts.append((a, it))
    if not opts:
        return
    game.ask(seat, 5, opts, "_twin_target", item, "The Twin Princesses: choose an ability to copy")


def _twin_target(game: "Game", item: "StackItem", it: "StackItem") -> None:
    item.data["target"] = it


def _twin_resolve(game: "Game", item: "StackItem") -> None:
    """CR 707.10: the copy is put on the stack, controlled by the Twin Princesses'
    controller, with the original's modes, X and targets (CR 707.10c: it may get
    new targets, one offer per target, PASS keeps it).  If the original left the
    stack, the ability does nothing (its only target is illegal)."""
    seat = item.controller
    it = item.data.get("target")
    if it is None or it not in game.stack:
        game._log("fizzle", seat=seat, source=item.source)
        return
    copy_on_stack(game, it, seat)


register(IdentityImpl("The Twin Princesses", activated=(
    Activated("{2}: copy target activated or triggered ability you control (once each turn)", "_twin_resolve",
              mana=2, once_per_turn=True, extra_ok=_twin_ok, prepare="_twin_prepare"),)))


register_callbacks(globals())
