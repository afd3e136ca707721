"""Guardians identity cards of TRD-2025, rare (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.

Substrate notes shared by these cards (docs/fidelity.md): the only permanents
that are objects are creatures, so "permanent" targets are creatures; a spell's
mana value on the stack is its card's generic cost plus X (CR 202.3e); colours
and creature types don't exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import MAX_PERMS
from ..identity_abilities import IdentityImpl, register, register_callbacks, targets_of

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Creature, Game, StackItem


def _spell_mana_value(spell: "StackItem") -> int:
    """CR 202.3e: a spell's mana value on the stack counts the value chosen for X."""
    return spell.card.cost + spell.x


def _creatures_targetable(game: "Game") -> int:
    """Creatures that have a target slot in the action layout (MAX_PERMS per seat)."""
    return sum(len(p.creatures[:MAX_PERMS]) for p in game.players if not p.has_lost)


# ---------------------------------------------------------------------------- The Ætherist
# The Ætherist ({3}, Undercover): counter target spell.  At the beginning of
# target player's next main phase, that player gains life and adds {C} equal to
# that spell's mana value (even if it couldn't be countered).
def _aetherist_unveil(game: "Game", item: "StackItem") -> None:
    """The Ætherist.  The mana value is the spell's (card cost + X) if it is still
    a legal target on resolution; every spell of the substrate can be countered,
    so "even if it can't be countered" only matters for a spell that has left
    the stack, whose mana value then counts as 0 (abstraction: no last-known
    information for a spell target that became illegal)."""
    mv = 0
    for _, spell in targets_of(item, "s"):
        mv = _spell_mana_value(spell)
        game.counter(spell)
    for _, s in targets_of(item, "p"):
        _aetherist_schedule(game, s, mv, item.uid)


def _aetherist_specs(game: "Game", seat: int, x: int) -> list:
    """Target a spell and a player.  CR 603.3d: with no spell to target, the
    trigger is removed as it would go on the stack, and no player is chosen;
    nothing can resolve between the unveil and that moment, so the spells on
    the stack are the same now."""
    spell = {"type": "spell"}
    return [spell, {"type": "player"}] if game.target_candidates(seat, spell) else [spell]


def _aetherist_schedule(game: "Game", seat: int, mv: int, key: int) -> None:
    """Delayed trigger (CR 603.7) at the beginning of ``seat``'s next main phase:
    that is this turn's postcombat main phase when ``seat`` is the active player
    and its precombat main phase has begun; otherwise ``seat``'s next precombat
    main phase.  Both are registered when either can come first (a turn ended
    early, CR 723, skips the postcombat one); the first to fire disarms the other."""
    from ..engine import PHASES
    ph = PHASES.index(game.phase)
    if game.active == seat and PHASES.index("main1") <= ph < PHASES.index("main2"):
        game.add_delayed("main2", "_aetherist_delayed", seat=seat, n=mv, key=key)
    game.add_delayed("main_phase", "_aetherist_delayed", seat=seat, n=mv, key=key)
    game._log("delayed_trigger", seat=seat, source="The Ætherist", n=mv)


def _aetherist_delayed(game: "Game", d: dict) -> None:
    if d.get("done"):
        return
    for o in game.delayed:
        if o is not d and o.get("fn") == "_aetherist_delayed" and o.get("key") == d["key"]:
            o["done"] = True
    s, n = d["seat"], d["n"]
    p = game.players[s]
    if p.has_lost:
        return
    game.gain_life(s, n)
    p.mana_pool += n             # colorless mana; it empties at the end of the step (CR 500.4)
    game._log("add_mana", seat=s, n=n, source="The Ætherist")


register(IdentityImpl("The Ætherist", on_unveil="_aetherist_unveil", unveil_specs=_aetherist_specs))


# ---------------------------------------------------------------------------- The Augur
# The Augur ({X}, Undercover): target player shuffles their library, then scries
# X, then exiles the top card of their library; they gain twice its mana value in
# life and may cast it without paying its mana cost.
def _augur_unveil(game: "Game", item: "StackItem") -> None:
    """The Augur.  Scry X (CR 701.22) is asked of the targeted player card by card:
    each looked-at card stays on top or goes to the bottom (abstraction, as for
    The Seer: kept cards keep their order).  The exiled card is public; a land's
    mana value is 0.  The free cast happens during resolution, ignoring timing
    (CR 608.2g, 601.2): the player says yes or no; a card not cast stays exiled."""
    for _, s in targets_of(item, "p"):
        p = game.players[s]
        game.rng.shuffle(p.library)
        game._log("shuffle", seat=s)
        n = min(item.x, len(p.library))
        game.turn_effects["augur_scry"] = {"seat": s, "cards": [p.library.pop() for _ in range(n)],
                                           "top": [], "bottom": []}
        game._log("scry", seat=s, n=n)
        game.then(*[("call", "_augur_scry", k) for k in range(n)], ("call", "_augur_exile", s))


def _augur_scry(game: "Game", k: int) -> None:
    sc = game.turn_effects["augur_scry"]
    c = sc["cards"][k]
    L = game.layout
    game.ask(sc["seat"], 11, [(L.CHOICE + 0, ("top", k)), (L.CHOICE + 1, ("bottom", k))], "_augur_place",
             None, f"scry: keep {c.name} on top or put it on the bottom", labels=["top", "bottom"])


def _augur_place(game: "Game", _data: Any, choice: tuple) -> None:
    side, k = choice
    game.turn_effects["augur_scry"][side].append(k)


def _augur_exile(game: "Game", s: int) -> None:
    p = game.players[s]
    sc = game.turn_effects.pop("augur_scry", None)
    if p.has_lost:
        return
    if sc is not None:
        placed = set(sc["top"]) | set(sc["bottom"])
        top = sc["top"] + [k for k in range(len(sc["cards"])) if k not in placed]
        p.library[:0] = [sc["cards"][k] for k in sc["bottom"]]
        p.library.extend(sc["cards"][k] for k in reversed(top))   # the first kept card ends on top
        game._log("scry_done", seat=s, bottom=len(sc["bottom"]))
    if not p.library:
        return
    c = p.library.pop()
    p.exile.append(c)
    game._log("exile_top", seat=s, card=c.name, source="The Augur")
    mv = 0 if c.is_land else c.cost
    game.gain_life(s, 2 * mv)
    if not c.is_land and game.castable_targets(s, c):
        L = game.layout
        game.ask(s, 12, [(L.CHOICE + 0, True), (L.PASS, False)], "_augur_cast", (s, len(p.exile) - 1, c.name),
                 f"cast {c.name} without paying its mana cost?", labels=["cast it", "don't"])


def _augur_cast(game: "Game", data: tuple, yes: bool) -> None:
    s, idx, name = data
    p = game.players[s]
    if not yes or p.has_lost or idx >= len(p.exile) or p.exile[idx].name != name:
        return
    card = p.exile.pop(idx)
    game._begin_cast(s, card, "exile", free=True, source="The Augur")


register(IdentityImpl("The Augur", on_unveil="_augur_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player"}]))


# ---------------------------------------------------------------------------- The Cryomancer
# The Cryomancer ({X}, Undercover): tap X target permanents and remove them from
# combat; if it's your turn, distribute X stun counters among them.
def _cryo_x_ok(game: "Game", seat: int, x: int) -> bool:
    return x <= _creatures_targetable(game)


def _cryo_remove_from_combat(game: "Game", c: "Creature") -> None:
    """CR 506.4: ``c`` stops being an attacking, blocking or blocked creature.  An
    attacker it blocked stays blocked (CR 509.1h); the creatures that blocked it
    no longer block anything."""
    if c in game.combat_attackers:
        game.combat_attackers.remove(c)
    c.attacking = -1
    c.attacking_obj = None
    for b in c.blocked_by:
        if b.blocking is c:
            b.blocking = None
    c.blocked_by = []
    c.was_blocked = False
    if c.blocking is not None:
        if c in c.blocking.blocked_by:
            c.blocking.blocked_by.remove(c)
        c.blocking = None


def _cryo_unveil(game: "Game", item: "StackItem") -> None:
    """The Cryomancer.  Distributing X counters among X targets gives each target
    exactly one (CR 601.2d: each target gets at least one); a target that became
    illegal loses its share.  "Your turn" is checked on resolution."""
    stun = game.active == item.controller
    for _, c in targets_of(item, "c"):
        c.tapped = True
        _cryo_remove_from_combat(game, c)
        if stun:
            c.stun += 1
        game._log("tap", creature=c.uid, name=c.name, stun=int(stun), source="The Cryomancer", **game._labels(c))


register(IdentityImpl("The Cryomancer", on_unveil="_cryo_unveil", x_ok=_cryo_x_ok,
                       unveil_specs=lambda g, s, x: [{"type": "permanent", "max": x, "exact": True}] if x > 0 else []))


# ---------------------------------------------------------------------------- The Marshal
# The Marshal ({X}{4}, Undercover): choose a colour and a creature type; target
# player creates X plus four 1/1 creature tokens of that colour and type; then,
# if X is 3 or more, destroy all other creatures.
def _marshal_unveil(game: "Game", item: "StackItem") -> None:
    """The Marshal.  Abstraction: the substrate has no colours or creature types,
    so nothing is named and the tokens are the 1/1 Soldier tokens.  With X >= 3
    every creature other than the new tokens is destroyed (card text: 3; one
    ruling's "4" is outdated)."""
    for _, s in targets_of(item, "p"):
        if game.players[s].has_lost:
            continue
        new = {c.uid for c in game.create_creature_token(s, "Soldier", item.x + 4)}
        if item.x >= 3:
            for p in game.players:
                for c in list(p.creatures):
                    if c.uid not in new:
                        game.destroy(c)


register(IdentityImpl("The Marshal", on_unveil="_marshal_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player"}]))


# ---------------------------------------------------------------------------- The Quellmaster
# The Quellmaster ({9}, Undercover; costs {1} less for each creature non-Leader
# players control): tap all creatures non-Leader players control; put a stun
# counter on each of them.
def _quell_reduction(game: "Game", seat: int) -> int:
    """Creatures controlled by players who aren't Leader players (CR 314.7: a Leader
    player controls a face-up Leader identity), the Quellmaster's controller included."""
    return sum(len(p.creatures) for p in game.players if not p.has_lost and not game.is_leader_player(p.seat))


def _quell_unveil(game: "Game", item: "StackItem") -> None:
    n = 0
    for p in game.players:
        if p.has_lost or game.is_leader_player(p.seat):
            continue
        for c in p.creatures:
            c.tapped = True
            c.stun += 1
            n += 1
    game._log("tap_all", n=n, source="The Quellmaster")


register(IdentityImpl("The Quellmaster", on_unveil="_quell_unveil", cost_reduction=_quell_reduction))


# ---------------------------------------------------------------------------- The Spellsnatcher
# The Spellsnatcher ({4}, Undercover): counter target spell; if that spell is
# countered this way, exile it instead of putting it into its owner's graveyard;
# you may cast it without paying its mana cost for as long as it remains exiled.
def _snatcher_unveil(game: "Game", item: "StackItem") -> None:
    """The Spellsnatcher.  A copy of a spell ceases to exist (nothing to cast); a
    countered commander goes to the command zone instead (CR 903.9a, always
    chosen by the engine), so no permission is granted for it.  The exiled card
    is cast with the OTHER actions at its normal timing (CR 601.3), for free,
    while it stays in its owner's exile (``Game.grant_permission``)."""
    for _, spell in targets_of(item, "s"):
        exiled = not spell.is_copy and spell.from_zone != "command" and not game.players[spell.owner].has_lost
        spell.data["exile_after"] = True
        if game.counter(spell) and exiled:
            game.grant_permission(item.controller, spell.card, spell.owner, "exile", free=True, until_turn=None,
                                  source="The Spellsnatcher")
            game._log("exile_spell", seat=spell.owner, card=spell.card.name, source="The Spellsnatcher")


register(IdentityImpl("The Spellsnatcher", on_unveil="_snatcher_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "spell"}]))


# ---------------------------------------------------------------------------- The Summoner
# The Summoner ({X}{Y}, Undercover; X >= 1, Y >= 1): target player creates X
# 0/0 colorless Shapeshifter creature tokens with changeling and reach, and puts
# Y +1/+1 counters on each of them.
def _summoner_prepare(game: "Game", item: "StackItem") -> None:
    """Y is remembered as the trigger goes on the stack (the engine stores the Y
    paid in the identity's data when it is chosen, after X)."""
    item.data["y"] = max(1, int(game.players[item.controller].identity.data.get("y", 1)))


def _summoner_unveil(game: "Game", item: "StackItem") -> None:
    """The Summoner.  Abstraction: changeling (every creature type) has no effect
    without creature types.  The counters go on in the same step as the tokens
    are created, so the 0/0 tokens never meet state-based actions."""
    y = item.data.get("y", 1)
    for _, s in targets_of(item, "p"):
        if game.players[s].has_lost:
            continue
        for c in game.create_creature_token(s, "Shapeshifter", item.x):
            c.p1p1 += y


register(IdentityImpl("The Summoner", on_unveil="_summoner_unveil", unveil_prepare="_summoner_prepare",
                       unveil_specs=lambda g, s, x: [{"type": "player"}]))


register_callbacks(globals())
