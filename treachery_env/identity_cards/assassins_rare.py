"""Assassins identity cards of TRD-2025, rare (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.

Substrate notes shared by these cards (docs/fidelity.md, section 3):

* **Permanents.** The Magic-lite battlefield has lands and noncreature artifact
  tokens as per-player *counts* and creatures as objects, so every permanent
  that can be *targeted* is a creature ("target permanent", "target nonland
  permanent" = target creature).  Effects that don't target ("sacrifice half
  your nonland permanents") count the artifact tokens too.
* **Mill N** (CR 701.13): the top N cards of the library (the end of
  ``Player.library``, where draws come from) go to the graveyard, in public
  (logged as ``mill`` with the card names); fewer if the library is smaller,
  which is not a loss.
* **"Only on its controller's turn"** (The Necromancer, The Pyromancer, The
  Rebel General, The Villain; card text: "Only on its controller's turn: ...")
  is an intervening "if" (CR 603.4, ``IdentityImpl.unveil_if``): unveiled on
  another player's turn, the "when unveiled" ability doesn't trigger; it is
  checked again on resolution, for the ability's controller (a stolen trigger,
  The Reflector, does nothing unless it is its new controller's turn).
* There are no colours, creature types or indestructible in the substrate;
  clauses about them hold trivially (said at each card).  Planeswalkers exist
  (docs/fidelity.md, section 3); which cards reach them is said at each card.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..actions import MAX_CHOICE
from ..cards import COUNTER_TOKENS
from ..identity_abilities import (IdentityImpl, creature_options, register, register_callbacks,
                                  targets_of)

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, StackItem  # noqa: F401


def _corpse_mill(game: "Game", seat: int, n: int) -> list:
    """``seat`` mills ``n`` cards (CR 701.13): the top ``n`` cards of their library
    go to their graveyard (fewer if the library is smaller).  Public.  Returns
    the milled cards.  Shared by The Corpse Snatcher and rad counters."""
    p = game.players[seat]
    if p.has_lost or n <= 0:
        return []
    out = [p.library.pop() for _ in range(min(n, len(p.library)))]
    p.graveyard.extend(out)
    if out:
        game._log("mill", seat=seat, n=len(out), cards=[c.name for c in out])
    return out


def _corpse_creature_cards(game: "Game", seats: Any) -> list:
    """``[(owner, card)]``: creature cards in the graveyards of ``seats`` (players
    still in the game), one entry per owner and card name, at most MAX_CHOICE."""
    out = []
    for s in seats:
        p = game.players[s]
        if p.has_lost:
            continue
        seen = set()
        for c in p.graveyard:
            if c.is_creature and c.name not in seen:
                seen.add(c.name)
                out.append((s, c))
    return out[:MAX_CHOICE]


def _corpse_own_turn(game: "Game", seat: int) -> bool:
    """The "only on its controller's turn" condition (module docstring), the
    ``unveil_if`` of those cards."""
    return game.active == seat and not game.players[seat].has_lost


# ---------------------------------------------------------------- The Corpse Snatcher
# The Corpse Snatcher ({4}): every player mills two; then a creature card chosen
# from any graveyard enters the battlefield under a targeted player's control
# and becomes a black Zombie on top of its other colours and types.
def _corpse_unveil(game: "Game", item: "StackItem") -> None:
    """The Corpse Snatcher.  Each player in the game mills two cards (APNAP
    order; simultaneous in effect).  "When you do" is a reflexive trigger
    (CR 603.12): it triggers if at least one card was milled, and its target
    player is chosen as it goes on the stack; on its resolution the Corpse
    Snatcher's controller chooses a creature card in any graveyard (chosen, not
    targeted) and it enters under the target player's control (its owner keeps
    ownership; its enters ability triggers).  Abstraction: the substrate has no
    colours or creature types, so "it's a black Zombie in addition to its other
    colours and types" changes nothing (no effect can see it)."""
    from ..engine import StackItem
    milled = 0
    for s in game._apnap():
        milled += len(_corpse_mill(game, s, 2))
    if not milled:
        return
    reflex = StackItem(game._new_uid(), "trigger", item.controller, source=item.source, key="corpse_reflex",
                       identity_source=True)
    reflex.data["resolve"] = "_corpse_reanimate"
    reflex.data["specs"] = [{"type": "player"}]
    game.add_trigger(reflex)


def _corpse_reanimate(game: "Game", item: "StackItem") -> None:
    tgt = targets_of(item, "p")
    if not tgt:
        return
    seat = item.controller
    cands = _corpse_creature_cards(game, range(game.n))
    if not cands:
        return
    L = game.layout
    game.ask(seat, 8, [(L.CHOICE + k, o) for k, o in enumerate(cands)], "_corpse_put", tgt[0][1],
             "choose a creature card in a graveyard", labels=[f"{c.name} (P{s})" for s, c in cands])


def _corpse_put(game: "Game", target: int, choice: tuple) -> None:
    owner, card = choice
    o = game.players[owner]
    if game.players[target].has_lost or o.has_lost or card not in o.graveyard:
        return
    o.graveyard.remove(card)
    game._log("reanimate", seat=target, owner=owner, card=card.name, source="The Corpse Snatcher")
    game.put_onto_battlefield(target, card, owner=owner)


register(IdentityImpl("The Corpse Snatcher", on_unveil="_corpse_unveil"))


# ---------------------------------------------------------------- The Madwoman
# The Madwoman ({4}): tap up to two target creatures; each deals damage equal to
# its power to its controller; prevent all combat damage dealt to and by them
# this turn.
def _madwoman_unveil(game: "Game", item: "StackItem") -> None:
    """The Madwoman (exact).  Each target creature taps, then deals damage equal
    to its power to its controller: the creature is the source (its lifelink
    applies; ``source_seat`` is its controller, so the damage is not "from an
    opponent"), and the public ``harm`` history also charges it to the
    Madwoman's controller, whose ability caused it.  A ``game.effects`` damage
    replacement until end of turn (``_madwoman_prevent``) prevents combat damage
    dealt to or by those creatures (tracked by object id: a creature that
    changes zones is a new object, CR 400.7)."""
    seat = item.controller
    cs = [c for _, c in targets_of(item, "c")]
    for c in cs:
        c.tapped = True
    for c in cs:
        if c not in game.players[c.controller].creatures or c.power <= 0:
            continue
        victim = c.controller
        dealt = game.damage(victim, ("p", victim), c.power, source_name=c.name, source_creature=c,
                            source_label=c.label if c.ordinal > 1 else "")
        if dealt and victim != seat:
            game.harm[seat][victim] += dealt
    if cs:
        game.effects.append({"kind": "damage", "fn": "_madwoman_prevent", "controller": seat, "until": "eot",
                             "uids": [c.uid for c in cs]})


def _madwoman_prevent(game: "Game", effect: dict, ev: dict) -> None:
    if not ev.get("combat"):
        return
    src, tgt = ev.get("source_creature"), ev.get("target")
    if (src is not None and src.uid in effect["uids"]) or (
            tgt is not None and tgt[0] == "c" and tgt[1].uid in effect["uids"]):
        ev["amount"] = 0


register(IdentityImpl("The Madwoman", on_unveil="_madwoman_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "creature", "min": 0, "max": 2}]))


# ---------------------------------------------------------------- The Necromancer
# The Necromancer ({6}): only on its controller's turn: from each player's
# graveyard, up to one target creature card enters the battlefield under your
# control.
def _necro_prepare(game: "Game", item: "StackItem") -> None:
    """Targets of The Necromancer, as the trigger goes on the stack: for each
    player in the game (APNAP order), up to one creature card in their graveyard
    (PASS = none).  Cards in graveyards are not engine target objects, so the
    choices are kept in ``item.data["picks"]`` and logged publicly."""
    item.data["picks"] = []
    game.then(*[("call", "_necro_ask", item, s) for s in game._apnap()])


def _necro_ask(game: "Game", item: "StackItem", s: int) -> None:
    cands = _corpse_creature_cards(game, [s])
    if not cands:
        return
    L = game.layout
    game.ask(item.controller, 8, [(L.PASS, None)] + [(L.CHOICE + k, c) for k, (_, c) in enumerate(cands)],
             "_necro_pick", (item, s), f"target up to one creature card in P{s}'s graveyard",
             labels=["none"] + [c.name for _, c in cands])


def _necro_pick(game: "Game", data: tuple, card: Any) -> None:
    item, s = data
    if card is not None:
        item.data["picks"].append((s, card))
        game._log("target_card", seat=item.controller, owner=s, card=card.name, source=item.source)


def _necro_unveil(game: "Game", item: "StackItem") -> None:
    """The Necromancer.  Only on its controller's turn (module docstring).  Each
    chosen card still in its owner's graveyard (owner still in the game) enters
    the battlefield under the Necromancer's controller's control; the owner
    keeps ownership.  Abstraction: graveyard cards are identified by owner and
    name (identical cards are interchangeable in the substrate), so a card that
    left and came back counts as the same one."""
    seat = item.controller
    for owner, card in item.data.get("picks", ()):
        o = game.players[owner]
        if o.has_lost or card not in o.graveyard:
            continue
        o.graveyard.remove(card)
        game._log("reanimate", seat=seat, owner=owner, card=card.name, source=item.source)
        game.put_onto_battlefield(seat, card, owner=owner)


register(IdentityImpl("The Necromancer", on_unveil="_necro_unveil", unveil_prepare="_necro_prepare",
                       unveil_if=_corpse_own_turn))


# ---------------------------------------------------------------- The Physician
# The Physician ({X}): any number of target players each get 2X+4 rad counters.
# Rad (CR 122.1 player counters): at the beginning of that player's precombat
# main phase, if they have rad counters, they mill that many cards; for each
# nonland card milled, they lose 1 life and a rad counter.
def _physician_unveil(game: "Game", item: "StackItem") -> None:
    """The Physician (exact).  Each target player gets 2X+4 rad counters
    (``Player.counters["rad"]``) and gets the rad trigger armed
    (:func:`_physician_arm`)."""
    n = 2 * item.x + 4
    for _, s in targets_of(item, "p"):
        p = game.players[s]
        if p.has_lost:
            continue
        p.counters["rad"] = p.counters.get("rad", 0) + n
        game._log("player_counters", seat=s, kind="rad", n=n, total=p.counters["rad"])
        _physician_arm(game, s)


def _physician_arm(game: "Game", s: int) -> None:
    """Where the recurring rad trigger lives.  Rad counters are a rule of the
    game, not of The Physician: the trigger belongs to the player who has the
    counters and keeps working after the Physician's controller leaves or the
    Physician is turned face down.  ``fire_event`` reaches only face-up
    identities, so the trigger is a self-renewing entry of ``game.delayed`` for
    the "main_phase" of seat ``s`` (at most one per player): when it fires it
    puts the rad trigger on the stack and re-arms itself while ``s`` still has
    rad counters; new rad counters arm it again."""
    p = game.players[s]
    if p.has_lost or p.counters.get("rad", 0) <= 0:
        return
    if any(d["fn"] == "_physician_rad_check" and d.get("seat") == s for d in game.delayed):
        return
    game.add_delayed("main_phase", "_physician_rad_check", seat=s)


def _physician_rad_check(game: "Game", d: dict) -> None:
    """Beginning of ``d["seat"]``'s precombat main phase: if they have a rad
    counter (intervening "if", CR 603.4), the rad trigger, controlled by that
    player, goes on the stack."""
    from ..engine import StackItem
    s = d["seat"]
    p = game.players[s]
    if not p.has_lost and p.counters.get("rad", 0) > 0:
        t = StackItem(game._new_uid(), "trigger", s, source="rad counters", key="rad", identity_source=False)
        t.data["resolve"] = "_physician_rad_resolve"
        game.add_trigger(t)
    # re-arm after Game._fire_delayed has rebuilt its list
    game.then(("call", "_physician_arm", s))


def _physician_rad_resolve(game: "Game", item: "StackItem") -> None:
    """Rad trigger: mill as many cards as rad counters (counted now); for each
    nonland card milled, lose 1 life and remove a rad counter."""
    s = item.controller
    p = game.players[s]
    n = p.counters.get("rad", 0)
    if p.has_lost or n <= 0:
        return
    milled = _corpse_mill(game, s, n)
    k = sum(1 for c in milled if not c.is_land)
    if k:
        game.lose_life(s, k)
        left = max(0, p.counters.get("rad", 0) - k)
        if left:
            p.counters["rad"] = left
        else:
            p.counters.pop("rad", None)
        game._log("player_counters", seat=s, kind="rad", n=-k, total=left)


register(IdentityImpl("The Physician", on_unveil="_physician_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player", "min": 0, "max": g.n}]))


# ---------------------------------------------------------------- The Pyromancer
# The Pyromancer ({6}): only on its controller's turn: 6 damage to target player
# and each creature and planeswalker they control; creatures damaged this way
# lose indestructible until end of turn.
def _pyro_unveil(game: "Game", item: "StackItem") -> None:
    """The Pyromancer.  Only on its controller's turn (module docstring).  The
    Pyromancer (source: the identity, controlled by ``item.controller``) deals
    6 damage to the target player and to each creature and each planeswalker
    that player controls (CR 120.3c: six loyalty counters come off a
    planeswalker).  Abstraction: no indestructible in the substrate, so "lose
    indestructible" changes nothing (every creature dealt lethal damage dies,
    CR 704.5g)."""
    seat = item.controller
    for _, s in targets_of(item, "p"):
        q = game.players[s]
        creatures = list(q.creatures)
        walkers = [w for w in q.attackables if w.kind == "planeswalker"]
        game.damage(seat, ("p", s), 6, source_name=item.source)
        for c in creatures:
            game.damage(seat, ("c", c), 6, source_name=item.source)
        for w in walkers:
            game.damage(seat, ("w", w), 6, source_name=item.source)


register(IdentityImpl("The Pyromancer", on_unveil="_pyro_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player"}], unveil_if=_corpse_own_turn))


# ---------------------------------------------------------------- The Rebel General
# The Rebel General ({5}): only on its controller's turn: for each non-Leader
# player, gain control of up to one target permanent they control until end of
# turn; untap those permanents; they gain haste until end of turn.
def _rebel_prepare(game: "Game", item: "StackItem") -> None:
    """Targets of The Rebel General, as the trigger goes on the stack: for each
    non-Leader player in the game (CR 314.7: a player without a face-up Leader
    identity, the controller included), in APNAP order, up to one creature that
    player controls (PASS = none).  Each is recorded as an engine target with a
    spec naming that player (``"player"``), so the usual legality check on
    resolution applies, plus "still controlled by that player"."""
    game.then(*[("call", "_rebel_ask", item, s) for s in game._apnap() if not game.is_leader_player(s)])


def _rebel_ask(game: "Game", item: "StackItem", s: int) -> None:
    if game.players[s].has_lost:
        return
    L = game.layout
    opts = creature_options(game, item.controller, list(game.players[s].creatures))
    if not opts:
        return
    game.ask(item.controller, 5, [(L.PASS, None)] + opts, "_rebel_pick", (item, s),
             f"target up to one permanent of P{s} to take until end of turn")


def _rebel_pick(game: "Game", data: tuple, c: Any) -> None:
    item, s = data
    if c is not None:
        item.targets.append(("c", c))
        item.target_specs.append({"type": "creature", "player": s})


def _rebel_unveil(game: "Game", item: "StackItem") -> None:
    """The Rebel General.  Only on its controller's turn (module docstring).
    Each target still controlled by its player: gain control of it until end of
    turn (``Game.gain_control(..., until_end_of_turn=True)``; taking one's own
    permanent changes nothing), untap it (a stun counter is removed instead,
    CR 122.1d), and it gains haste until end of turn (``Creature.pump_kw``,
    cleared in cleanup).  Abstraction: permanents are creatures (lands and
    artifact tokens are counts and can't be targeted)."""
    seat = item.controller
    for t, spec in zip(item.targets, item.target_specs):
        if t is None or t[0] != "c":
            continue
        c = t[1]
        if c.controller != spec.get("player") or c not in game.players[c.controller].creatures:
            continue
        game.gain_control(c, seat, until_end_of_turn=True, source=item.source)
        game.untap(c)
        c.pump_kw = c.pump_kw | {"haste"}


register(IdentityImpl("The Rebel General", on_unveil="_rebel_unveil", unveil_prepare="_rebel_prepare",
                       unveil_if=_corpse_own_turn))


# ---------------------------------------------------------------- The Villain
# The Villain ({5}): only on its controller's turn: target opponent faces a
# villainous choice: sacrifice half their nonland permanents, or lose half
# their life (each rounded up); at the beginning of your next upkeep, they face
# that choice again.
VILLAIN_MODES = ("sacrifice half your nonland permanents, rounded up", "lose half your life, rounded up")


def _villain_unveil(game: "Game", item: "StackItem") -> None:
    """The Villain.  Only on its controller's turn (module docstring).  The
    target opponent faces the villainous choice (:func:`_villain_choice`); a
    delayed trigger (``game.add_delayed("upkeep", ..., seat=controller)``)
    makes them face it again at the Villain's controller's next upkeep: it uses
    the stack, is controlled by the Villain's controller (it ends if that
    player leaves, CR 800.4a) and does nothing if the opponent left."""
    seat = item.controller
    for _, s in targets_of(item, "p"):
        game.add_delayed("upkeep", "_villain_again", seat=seat, target=s, villain=seat)
        _villain_choice(game, s, seat)


def _villain_again(game: "Game", d: dict) -> None:
    from ..engine import StackItem
    if game.players[d["villain"]].has_lost:
        return
    t = StackItem(game._new_uid(), "trigger", d["villain"], source="The Villain", key="villain_again",
                  identity_source=True)
    t.data["resolve"] = "_villain_again_resolve"
    t.data["target"] = d["target"]
    game.add_trigger(t)


def _villain_again_resolve(game: "Game", item: "StackItem") -> None:
    _villain_choice(game, item.data["target"], item.controller)


def _villain_nonland(game: "Game", s: int) -> int:
    """Nonland permanents of ``s``: creatures and noncreature artifact tokens."""
    p = game.players[s]
    return len(p.creatures) + sum(p.tokens.values())


def _villain_choice(game: "Game", s: int, villain: int) -> None:
    """A villainous choice (CR 701.55), made by the opponent ``s``: sacrifice
    half their nonland permanents, rounded up (creatures and artifact tokens,
    which they choose one by one, then sacrifice together), or lose half their
    life, rounded up.  Either may be chosen even if it would do nothing."""
    p = game.players[s]
    if p.has_lost:
        return
    L = game.layout
    n_sac = (_villain_nonland(game, s) + 1) // 2
    n_life = (max(p.life, 0) + 1) // 2
    game.ask(s, 7, [(L.CHOICE + 0, 0), (L.CHOICE + 1, 1)], "_villain_chosen", (s, villain),
             "villainous choice", labels=[f"sacrifice {n_sac} nonland permanents", f"lose {n_life} life"])


def _villain_chosen(game: "Game", data: tuple, mode: int) -> None:
    s, villain = data
    p = game.players[s]
    game._log("villainous_choice", seat=s, choice=VILLAIN_MODES[mode])
    if mode == 1:
        game.lose_life(s, (max(p.life, 0) + 1) // 2, source_seat=villain)
        return
    st = {"seat": s, "villain": villain, "need": (_villain_nonland(game, s) + 1) // 2,
          "creatures": [], "tokens": {}}
    _villain_next(game, st)


def _villain_next(game: "Game", st: dict) -> None:
    s = st["seat"]
    p = game.players[s]
    if p.has_lost:
        return
    chosen = len(st["creatures"]) + sum(st["tokens"].values())
    if chosen < st["need"]:
        L = game.layout
        left = [c for c in p.creatures if all(c is not x for x in st["creatures"])]
        opts = creature_options(game, s, left)
        for k, name in enumerate(COUNTER_TOKENS):
            if p.tokens.get(name, 0) > st["tokens"].get(name, 0):
                opts.append((L.CHOICE + k, name))
        if not opts and left:               # creatures past the PERM slots: taken in order
            opts = [(L.PASS, left[0])]
        if opts:
            game.ask(s, 8, opts, "_villain_pick", st,
                     f"choose a nonland permanent to sacrifice ({st['need'] - chosen} more)")
            return
    for c in st["creatures"]:
        if c in p.creatures:
            game.sacrifice(c, source_seat=st["villain"])
    for name, k in st["tokens"].items():
        k = min(k, p.tokens.get(name, 0))
        if k:
            p.tokens[name] -= k
            game._log("sacrifice", seat=s, permanent=name, n=k)


def _villain_pick(game: "Game", st: dict, choice: Any) -> None:
    if isinstance(choice, str):
        st["tokens"][choice] = st["tokens"].get(choice, 0) + 1
    else:
        st["creatures"].append(choice)
    _villain_next(game, st)


register(IdentityImpl("The Villain", on_unveil="_villain_unveil",
                       unveil_specs=lambda g, s, x: [{"type": "player", "opponent": True}],
                       unveil_if=_corpse_own_turn))


# ---------------------------------------------------------------- The War Shaman
# The War Shaman ({5}): destroy up to two target nonland permanents; if none of
# them were creatures, create an X/X red Elemental token, X = their total mana
# value.
WAR_SHAMAN_TARGETS = {"type": "nonland_permanent", "min": 0, "max": 2, "walkers": True}
"""Up to two target nonland permanents: creatures and planeswalkers (lands and
artifact tokens are counts, not objects that can be targeted)."""


def _war_shaman_unveil(game: "Game", item: "StackItem") -> None:
    """The War Shaman.  Destroys each legal target (CR 701.8; a commander goes
    to the command zone).  If none of them is a creature, it creates an X/X
    Elemental token, X the total mana value of those permanents (planeswalkers,
    the substrate's noncreature permanents that can be targeted); with no
    target chosen X is 0 and the 0/0 token dies at once to state-based actions
    (CR 704.5f), as it would in Magic.  If every chosen target became illegal
    the ability doesn't resolve (CR 608.2b).  Red: no colours in the substrate."""
    ts = [t for t in targets_of(item) if t[0] in ("c", "w")]
    creature_hit = any(kind == "c" for kind, _ in ts)
    x = sum(obj.card.cost for kind, obj in ts if kind == "w" and obj.card is not None)
    for _, obj in ts:
        game.destroy(obj)
    if not creature_hit:
        tok = game.create_creature_token(item.controller, "Elemental", 1)[0]
        tok.base_power = tok.base_toughness = x      # X = total mana value of those permanents


register(IdentityImpl("The War Shaman", on_unveil="_war_shaman_unveil",
                       unveil_specs=lambda g, s, x: [WAR_SHAMAN_TARGETS]))


register_callbacks(globals())
