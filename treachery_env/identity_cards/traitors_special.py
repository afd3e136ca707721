"""Traitors identity cards of TRD-2025, special (card facts: data/identities.json).

Each card is an :class:`~treachery_env.identity_abilities.IdentityImpl`; the
functions it names are registered as callbacks by name at the end of the module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..actions import MAX_CHOICE
from ..identity_abilities import IdentityImpl, register, register_callbacks

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Game, IdentityCard, StackItem


# ---------------------------------------------------------------------------- The Metamorph
# Unveil: pay 8 life, discard a card (generic costs, Game._begin_unveil).  When
# unveiled, until end of turn, as an opponent loses the game, its controller may
# remove The Metamorph from the game to gain control of that player's identity
# card, turned face down unless it is a Leader; the Metamorph's player takes that
# role and win condition (TR8.5-8.6; official ruling: it applies however the
# opponent loses, a concession included).
#
# Abstraction (documented): the engine runs Game.lose to completion without a
# decision point, so the "you may" is decided as the trigger resolves, by role:
# one YES_NO decision per role an opponent could have (Leader only while an
# opponent is a Leader player; other roles when the identity deck holds one; a
# Traitor when the deck holds a Traitor besides the Metamorph).  Each question
# depends only on public information.  The first opponent to lose this turn
# whose identity has a role answered "yes" is taken over, at once, by the
# "losing" event (before the victim leaves, so a taken Leader identity keeps the
# Leader team in the game, TR8.6); among simultaneous losers, the first in the
# order Game.lose processes them.  The victim's card is revealed as they lose
# (CR 702.187a / 907.9), so every player knows the card the Metamorph's player
# now holds face down (known_by = everyone, TR4.8).  The effect lives on the
# face-up Metamorph card: if the card is turned face down or changes hands
# before an opponent loses, nothing is taken.  If the Metamorph's player loses
# at the same time, the take-over still happens (CR 907.8a: a losing player's
# identity abilities still apply) and they leave with the taken card's team as
# their last-known team (TR7.4).
_META_ROLE_TEXT = ("a Leader", "a Guardian", "an Assassin", "a Traitor")


def _metamorph_questions(game: "Game", seat: int) -> list[int]:
    """Roles (ints) worth asking about, from public information only."""
    from ..rules import Role
    dealt = [p.identity.identity.role for p in game.players]
    out = []
    if any(game.is_leader_player(s) and game.is_opponent(seat, s) for s in game.alive()):
        out.append(int(Role.LEADER))
    for role in (Role.GUARDIAN, Role.ASSASSIN):
        if role in dealt:
            out.append(int(role))
    if dealt.count(Role.TRAITOR) >= 2:
        out.append(int(Role.TRAITOR))
    return out


def _metamorph_unveil(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    idc = game.players[seat].identity
    if not idc.face_up or idc.name != "The Metamorph":
        return
    idc.data["metamorph"] = {"turn": game.turn, "roles": []}
    plan = {"seat": seat, "ask": _metamorph_questions(game, seat), "k": 0}
    _metamorph_next(game, plan)


def _metamorph_next(game: "Game", plan: dict) -> None:
    from ..engine import DecisionKind
    if plan["k"] >= len(plan["ask"]):
        idc = game.players[plan["seat"]].identity
        st = idc.data.get("metamorph")
        if st is not None:
            game._log("metamorph_ready", to=[plan["seat"]], seat=plan["seat"], roles=list(st["roles"]))
        return
    role = plan["ask"][plan["k"]]
    L = game.layout
    text = f"take over the identity of {_META_ROLE_TEXT[role]} opponent who loses this turn"
    game.ask(plan["seat"], DecisionKind.YES_NO, [(L.CHOICE + 0, True), (L.PASS, False)], "_metamorph_answer",
             plan, f"The Metamorph: {text}?", labels=[text, "don't"])


def _metamorph_answer(game: "Game", plan: dict, yes: bool) -> None:
    idc = game.players[plan["seat"]].identity
    st = idc.data.get("metamorph")
    if yes and st is not None:
        st["roles"].append(plan["ask"][plan["k"]])
    plan["k"] += 1
    _metamorph_next(game, plan)


def _metamorph_losing(game: "Game", idc: "IdentityCard", seat: int) -> None:
    """As ``seat`` loses (Game.lose's "losing" event, before they leave)."""
    st = idc.data.get("metamorph")
    taker = idc.controller
    if (st is None or st["turn"] != game.turn or game.is_over or seat == taker
            or idc.name != "The Metamorph" or game.players[taker].identity is not idc):
        return
    if game.players[taker].has_lost or game.players[seat].has_lost or not game.is_opponent(taker, seat):
        return
    victim_card = game.players[seat].identity
    if int(victim_card.role) not in st["roles"]:
        return
    idc.data.pop("metamorph")
    game.take_identity(taker, seat)
    card = game.players[taker].identity
    card.known_by = set(range(game.n))      # revealed to all as the victim loses (CR 702.187a)
    game._log("metamorph_takes", seat=taker, victim=seat, identity=card.name, role=int(card.role))


register(IdentityImpl("The Metamorph", on_unveil="_metamorph_unveil", events={"losing": _metamorph_losing}))


# ---------------------------------------------------------------------------- The Puppet Master
# Unveil {6}.  When unveiled, its controller redistributes control of the other
# identity cards (each player still controls exactly one; The Puppet Master does
# not move), then each redistributed card that isn't a Leader turns face down;
# players take the roles of the cards they now hold (TR8.2-8.4, 8.7).  Static:
# its controller may look at face-down identities they don't control.  At the
# beginning of its controller's end step, they draw two cards.
#
# The redistribution is a sequence of decisions of its controller, one for each
# other player in the game in turn order: PLAYER + the relative seat of the
# player whose card (as it was when the ability began to resolve) this player
# gets; choosing the player themselves leaves their card where it is (official
# ruling: "leave it or exchange it").  The last player takes the last card
# without a decision.  Then Game.redistribute_identities moves the cards that
# changed hands.  A player who leaves the game during the choices: their card
# leaves with them and a card assigned to them goes to the first player still
# without a valid card (official ruling).
# The peeking static adds its controller to IdentityCard.known_by of every
# face-down identity of another player in the game, logged only to that seat:
# as the card turns face up (the as_unveiled hook, before anyone can act), as
# the trigger resolves, and at every upkeep and end step while it is face up
# (the only other ways a face-down identity changes are control changes and
# turning face down, which never show a card this seat hasn't seen).
def _pm_peek(game: "Game", seat: int) -> None:
    seen = {}
    for p in game.players:
        idc = p.identity
        if p.seat == seat or p.has_lost or idc.face_up or seat in idc.known_by:
            continue
        idc.known_by.add(seat)
        seen[p.seat] = idc.name
    if seen:
        game._log("look_at_identities", to=[seat], seat=seat, identities=seen)


def _pm_as_unveiled(game: "Game", seat: int) -> None:
    _pm_peek(game, seat)


def _pm_unveil(game: "Game", item: "StackItem") -> None:
    seat = item.controller
    idc = game.players[seat].identity
    if idc.face_up and idc.name == "The Puppet Master":
        _pm_peek(game, seat)
    others = [(seat + k) % game.n for k in range(1, game.n)]
    others = [s for s in others if not game.players[s].has_lost]
    plan = {"seat": seat, "order": others, "cards": {s: game.players[s].identity.uid for s in others},
            "assigned": {}}
    _pm_next(game, plan)


def _pm_next(game: "Game", plan: dict) -> None:
    from ..engine import DecisionKind
    seat = plan["seat"]
    if game.players[seat].has_lost:
        return
    todo = [s for s in plan["order"] if s not in plan["assigned"] and not game.players[s].has_lost]
    if not todo:
        _pm_finish(game, plan)
        return
    s = todo[0]
    used = set(plan["assigned"].values())
    holders = [h for h in plan["order"] if h not in used and not game.players[h].has_lost]
    L = game.layout
    opts = [(L.PLAYER + game.rel(seat, h), h) for h in holders]
    labels = [f"P{s} gets the identity P{h} held ({_pm_seen(game, seat, h)})" if h != s
              else f"P{s} keeps their identity ({_pm_seen(game, seat, h)})" for h in holders]
    plan["current"] = s
    game.ask(seat, DecisionKind.CARD, opts, "_pm_pick", plan,
             f"The Puppet Master: choose whose identity card P{s} will control", labels=labels)


def _pm_seen(game: "Game", viewer: int, holder: int) -> str:
    """The identity card ``holder`` controls as ``viewer`` may see it (CR 314.9):
    its name if face up or known to ``viewer``, else "face down".  The one
    choosing is the Puppet Master's controller, who has seen every card, unless
    another player controls the trigger (The Reflector) without that static."""
    idc = game.players[holder].identity
    return idc.name if idc.face_up or viewer in idc.known_by else "face down"


def _pm_pick(game: "Game", plan: dict, holder: int) -> None:
    plan["assigned"][plan.pop("current")] = holder
    _pm_next(game, plan)


def _pm_finish(game: "Game", plan: dict) -> None:
    seat = plan["seat"]
    alive = [s for s in plan["order"] if not game.players[s].has_lost]
    by_uid = {game.players[s].identity.uid: game.players[s].identity for s in alive}
    final: dict = {}
    used: set = set()
    for s in alive:                              # assignments still valid
        h = plan["assigned"].get(s)
        uid = plan["cards"].get(h) if h is not None else None
        if uid in by_uid and uid not in used:
            final[s] = by_uid[uid]
            used.add(uid)
    spare = [by_uid[plan["cards"][s]] for s in alive if plan["cards"][s] not in used]
    for s in alive:                              # a card whose recipient left goes to the next player without one
        if s not in final:
            final[s] = spare.pop(0)
    moved = {s: c for s, c in final.items() if game.players[s].identity is not c}
    if moved:
        game.redistribute_identities(moved)
    game._log("puppet_master", seat=seat, moved=sorted(moved))
    if game.players[seat].identity.face_up and game.players[seat].identity.name == "The Puppet Master":
        _pm_peek(game, seat)


def _pm_upkeep(game: "Game", idc: "IdentityCard", seat: int) -> None:
    _pm_peek(game, idc.controller)


def _pm_end_step(game: "Game", idc: "IdentityCard", seat: int) -> None:
    from ..engine import StackItem
    _pm_peek(game, idc.controller)
    if seat != idc.controller:
        return
    t = StackItem(game._new_uid(), "trigger", seat, source=idc.name, key="pm_draw", identity_source=True)
    t.data["resolve"] = "_pm_draw"
    game.add_trigger(t)


def _pm_draw(game: "Game", item: "StackItem") -> None:
    game.draw(item.controller, 2)


register(IdentityImpl("The Puppet Master", on_unveil="_pm_unveil", as_unveiled="_pm_as_unveiled",
                       events={"upkeep": _pm_upkeep, "end_step": _pm_end_step}))


# ---------------------------------------------------------------------------- The Treacherous Masochist
# Unveil {0}.  While face up: (1) if its controller would be the first player to
# lose the game, or tied for first, they win the game instead (a "lose_game"
# replacement; a Traitor wins alone, CR 907.7f; a concession or the Leader
# team's loss is never replaced, TR6.10 / official ruling; a player who can't
# lose isn't affected, as Game.lose drops them first); (2) as long as no player
# has lost, spells and abilities its controller controls can't cause them to
# lose the game, and they can't pay life (forbids "pay_life"; paying 0 life is
# always allowed, Game.can_pay_life).
#
# Abstraction for (2): Magic-lite has no "you lose the game" card, so the loss
# such an effect causes is the state-based loss at 0 life: it counts as caused
# by its controller's own spells and abilities when the last damage or life loss
# dealt to them came from a source they control (recorded by pass-through
# "damage" and "lose_life" replacements) and they lose for no other reason.
# Such a loss doesn't happen (they stay in the game at 0 or less life and are
# checked again at the next state-based check); once another player has lost,
# they lose normally (a "player_lost" handler makes the engine check again).
# The loss kept from happening is logged ("cant_lose") once per harm that leaves
# them at 0 or less life (``loss_kept``, cleared by each new harm), not at every
# state-based check that finds them there: the checks that follow perform
# nothing (CR 704.3) and change nothing a reader of the log could see.
# A loss from drawing from an empty library is not traced to the effect that
# made them draw and counts as a loss for rule (1).
def _masochist_first_loss(game: "Game", idc: "IdentityCard", ev: dict) -> None:
    seat = idc.controller
    if game.is_over or seat not in ev["seats"] or not ev.get("first"):
        return
    p = game.players[seat]
    own = (ev.get("reason") == "rules" and p.life <= 0 and idc.data.get("last_harm") == seat
           and seat not in ev["empty_draw"]
           and not (game.config.commander and any(v >= 21 for v in p.cmd_damage.values())))
    ev["seats"].remove(seat)
    if own:
        if not idc.data.get("loss_kept"):
            idc.data["loss_kept"] = True
            game._log("cant_lose", seat=seat, source=idc.name)
        return
    game._log("loss_becomes_win", seat=seat, source=idc.name)
    game.win(seat)


def _masochist_damage(game: "Game", idc: "IdentityCard", ev: dict) -> None:
    t = ev.get("target")
    if t is not None and t[0] == "p" and t[1] == idc.controller and ev.get("amount", 0) > 0:
        idc.data["last_harm"] = ev.get("source_seat")
        idc.data["loss_kept"] = False


def _masochist_lose_life(game: "Game", idc: "IdentityCard", ev: dict) -> None:
    if ev.get("seat") == idc.controller and ev.get("amount", 0) > 0:
        idc.data["last_harm"] = ev.get("source_seat")
        idc.data["loss_kept"] = False


def _masochist_no_life(game: "Game", idc: "IdentityCard", seat: int = -1, **kw) -> bool:
    return seat == idc.controller and not any(p.has_lost for p in game.players)


def _masochist_player_lost(game: "Game", idc: "IdentityCard", seat: int) -> None:
    if game.players[idc.controller].life <= 0:
        game._dirty = True               # no longer protected: state-based actions check again


register(IdentityImpl("The Treacherous Masochist", statics=frozenset({"masochist"}),
                       replacements={"lose_game": _masochist_first_loss, "damage": _masochist_damage,
                                     "lose_life": _masochist_lose_life},
                       forbids={"pay_life": _masochist_no_life},
                       events={"player_lost": _masochist_player_lost}))


# ---------------------------------------------------------------------------- The Wearer of Masks
# Unveil {X}.  As it is unveiled (CR 314.12: a replacement, no one can act in
# between), reveal up to X random non-Leader identity cards from outside the
# game; its controller may choose one; until the Wearer is turned face down it is
# a copy of that card, except it is a Traitor (Game.copy_identity, keep_role);
# the copied card's "when unveiled" (and "as unveiled") abilities then apply,
# with X = 0 (official rulings).
#
# "Outside the game" (documented choice): the identity cards the engine
# implements that are not Leaders, not banned by the config (TR11.4) and not
# any player's identity card in this game (The Metamorph, once removed from the
# game, is outside it); unimplemented cards are left out because a copy of a
# card without rules would have no abilities at all.  They are sampled with
# Game.rng, revealed to everyone, and the choice is a CARD decision (CHOICE + i
# for the i-th revealed card, PASS for none).
def _wearer_pool(game: "Game", seat: int) -> list[str]:
    from ..identities import all_identities
    from ..identity_abilities import IMPLEMENTATIONS
    from ..rules import Role
    in_game = {p.identity.identity.name for p in game.players}
    banned = set(game.config.banned_identities or ())
    return [i.name for i in all_identities()
            if i.role != Role.LEADER and i.name in IMPLEMENTATIONS and i.name not in in_game
            and i.name not in banned]


def _wearer_as_unveiled(game: "Game", seat: int) -> None:
    from ..engine import DecisionKind
    idc = game.players[seat].identity
    pool = _wearer_pool(game, seat)
    k = min(idc.x, len(pool))
    shown = game.rng.sample(pool, k) if k else []
    game._log("reveal_identities", seat=seat, source="The Wearer of Masks", identities=list(shown))
    if not shown:
        return
    L = game.layout
    opts = [(L.CHOICE + i, name) for i, name in enumerate(shown[:MAX_CHOICE])] + [(L.PASS, None)]
    game.ask(seat, DecisionKind.CARD, opts, "_wearer_pick", seat,
             "The Wearer of Masks: choose an identity to become a copy of",
             labels=[f"become a copy of {n}" for n in shown[:MAX_CHOICE]] + ["don't copy"])


def _wearer_pick(game: "Game", seat: int, name: "str | None") -> None:
    from ..identity_abilities import IMPLEMENTATIONS
    p = game.players[seat]
    if name is None or p.has_lost:
        return
    game.copy_identity(seat, name, keep_role=True)
    p.identity.x = 0                      # the copied card's X is 0 (official ruling)
    impl = IMPLEMENTATIONS.get(name)
    if impl is not None and impl.as_unveiled is not None:
        game.then(("call", impl.as_unveiled, seat))


register(IdentityImpl("The Wearer of Masks", as_unveiled="_wearer_as_unveiled"))



register_callbacks(globals())
