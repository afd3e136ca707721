"""Information-set Monte Carlo search by determinization (``agents.make("ismcts")``).

What is implemented (precisely)
-------------------------------
This is *flat* determinized Monte Carlo search with UCB1 over the root actions
of the seat's information set: the single-node ("ISMCTS-lite", or PIMC with
UCB at the root) case of the Single-Observer ISMCTS of Cowling, Powley &
Whitehouse, "Information Set Monte Carlo Tree Search", IEEE Transactions on
Computational Intelligence and AI in Games 4(2), 2012, pp. 120-143.  Statistics
are kept for one node, the bot's current information set; each iteration

1. selects a root action with UCB1 (``c = exploration``; unvisited actions first,
   in action-index order);
2. takes a determinization (a full game state consistent with the bot's
   information set, :func:`determinize`) from ``determinizations`` samples
   drawn afresh for this decision: the ``j``-th visit of every action uses
   sample ``j mod determinizations`` and the ``j``-th rollout seed (common
   random numbers, so actions are compared on the same worlds and dice,
   which lowers the variance of their differences);
3. clones the determinized game, applies the action and plays on with a fast
   stochastic rule policy for every seat (:func:`rollout_action`, which, being
   inside the imagined world, knows that world's sampled roles) until
   ``horizon`` more turns have begun or the game ends;
4. scores the end point for the bot's team (+1 win, -1 loss, 0 draw; at the
   horizon a bounded board/life differential of the bot's allies against its
   enemies, :func:`evaluate`) and backs the score up into the chosen action.

The action with the best mean score is played (ties: more visits, then lower
index).  Because every root action is legal in every determinization (the bot
checks that the rebuilt decision has exactly the real legal actions, else it
does not search), there is no subset-armed-bandit correction (Cowling et al.
section 5.2) to make.  Deeper trees are not built.

Which decisions are searched: the bot's priority decisions with an empty stack
(except that in its own main phase a land, when it may play one, is played
first without search: every land is a Wastes making generic mana)
(main phases and other steps), its declare-attackers decisions and its
declare-blockers decisions.  Other decisions (targets, X, the defending player,
the attacker a creature blocks, modes, discards, the mulligans before the
first turn: keep or mulligan and the cards put on the bottom, CR 103.5) and any decision the
determinization cannot rebuild exactly are answered by the heuristic bot if one
is registered (``agents.make("heuristic")``), else by :func:`simple_policy`.
The bot never concedes: a CONCEDE action (``GameConfig.concession``) is left
out of the searched actions and of the rebuilt decision's check.

Table talk (TR10.5) is not searched: words change nothing in a simulated
world.  At a decision that offers talk the bot says what the heuristic bot
would say (:meth:`agents.heuristic.HeuristicAgent.talk_action`) and otherwise
searches the other actions; determinized worlds carry the public talk state
(so the rebuilt decision offers the same talk actions), and rollouts never
talk (:func:`rollout_action` skips talk actions).

Hidden roles are sampled uniformly over the deals consistent with the public
role distribution and the identities the seat knows, or, when
``agents/belief.py`` is there, seat by seat from its posterior
(``RoleBelief().beliefs(view)``, itself a function of the view).

Hidden information: the bot uses only ``observation`` and ``info["view"]``.
:func:`determinize` rebuilds a :class:`~treachery_env.engine.Game` from the
:class:`~treachery_env.view.SeatView`; it never sees the real game.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections import Counter
from typing import Any

import numpy as np

from treachery_env import identities as ids
from treachery_env.cards import CARD_INDEX, CARDS, COUNTER_TOKENS, DECKS, TOKENS, card as card_def, deck_list
from treachery_env.config import GameConfig
from treachery_env.engine import Attackable, Creature, Decision, DecisionKind, Game, IdentityCard, TalkState
from treachery_env.observation import N_DECISIONS, N_PHASES, PLAYER_FEATURES, obs_layout
from treachery_env.rules import Role, team_of

from . import register
from .base import TreacheryOnlyAgent, legal_actions, seat_view, treachery_only

__all__ = ["ISMCTSAgent", "determinize", "setup_decision", "fast_clone", "rollout_action", "evaluate", "simple_policy",
           "ISMCTS_KINDS", "SETUP_KINDS"]

ISMCTS_KINDS = ("priority", "attacker", "blocker")
"""Decision kinds the ISMCTS bot searches (when :func:`determinize` can rebuild them; the lookahead
bot's default is :data:`agents.lookahead.SEARCHED_KINDS`)."""

SETUP_KINDS = ("priority", "attacker", "blocker", "defender")
"""Decision kinds :func:`setup_decision` can make pending in a determinized world."""

_HARMFUL = {"damage", "destroy", "exile", "bounce", "tap", "stun", "lose", "discard", "counter", "head_games"}
_SIMPLE_NAMES = set(ids.SIMPLE_ROLE_NAMES.values())


# ---------------------------------------------------------------------------- helpers
def _py_rng(rng: Any) -> random.Random:
    """A ``random.Random`` from a numpy Generator, a Random or an int seed."""
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, np.random.Generator):
        return random.Random(int(rng.integers(0, 2**63 - 1)))
    return random.Random(rng)


def _deck_cards(name: str, commander_game: bool) -> Counter:
    """Card-name multiset of preset deck ``name`` (library; plus the commander
    when it is shuffled in, i.e. not a Commander game).  A fresh Counter."""
    key = (name, commander_game)
    c = _DECK_CACHE.get(key)
    if c is None:
        cmd, cards = deck_list(name, True)
        c = Counter(x.name for x in cards)
        if not commander_game:
            c[cmd.name] += 1
        _DECK_CACHE[key] = c
    return Counter(c)


_DECK_CACHE: dict = {}


def fast_clone(g: Game, seed: int = 0) -> Game:
    """``g.clone()`` made cheaper for simulations: the immutable config, action
    layout and identity definitions are shared, the log and replay are dropped
    (a simulation needs neither), card zones are copied as flat lists (cards are
    immutable), and the copy's private random stream is ``random.Random(seed)``
    instead of a copy of ``g``'s; everything else is deep-copied as
    :meth:`Game.clone` does."""
    memo: dict = {id(g.config): g.config, id(g.layout): g.layout, id(g.log): [], id(g.actions): [],
                  id(g.rng): random.Random(seed)}
    for p in g.players:
        for z in (p.hand, p.library, p.graveyard, p.exile):
            memo[id(z)] = list(z)
        idc = p.identity
        memo[id(idc.identity)] = idc.identity
        if idc.copy_of is not None:
            memo[id(idc.copy_of)] = idc.copy_of
    return copy.deepcopy(g, memo)


_CMD_TO_DECK = {d["commander"]: k for k, d in DECKS.items()}


def _seen_cards(view: Any, seat: int) -> Counter:
    """Cards of ``seat`` the viewer has seen in public zones (and its own hand)."""
    p = view.players[seat]
    seen = Counter(p.graveyard) + Counter(p.exile)
    for c in p.creatures:
        if not c.token and c.name in CARD_INDEX and not c.commander:
            seen[c.name] += 1
    seen["Wastes"] += p.lands
    for q in view.players:          # its planeswalkers, whoever controls them (public)
        for w in q.planeswalkers:
            if w.owner == seat and w.name in CARD_INDEX:
                seen[w.name] += 1
    if p.hand is not None:
        seen.update(p.hand)
    return seen


def _infer_deck(view: Any, seat: int, commander_game: bool, rng: random.Random) -> str:
    """The preset deck of ``seat``: from its public commander, else sampled
    uniformly among the decks containing every card of it seen so far (the
    one overlapping most if none contains them all)."""
    p = view.players[seat]
    if p.commander is not None and p.commander in _CMD_TO_DECK:
        return _CMD_TO_DECK[p.commander]
    seen = _seen_cards(view, seat)
    names = sorted(DECKS)
    fits, best, best_k = [], names[0], -1
    for d in names:
        have = _deck_cards(d, commander_game)
        k = sum(min(v, have[c]) for c, v in seen.items() if c != "Wastes")
        if all(have[c] >= v for c, v in seen.items() if c != "Wastes"):
            fits.append(d)
        if k > best_k:
            best, best_k = d, k
    return rng.choice(fits) if fits else best


def _sample_from(pool: Counter, k: int, npr: np.random.Generator) -> list:
    """``k`` card definitions drawn without replacement, in random order, from
    the multiset ``pool`` (consumed); Wastes pad an exhausted pool."""
    flat = sorted(pool.elements())
    out = [flat[i] for i in npr.permutation(len(flat))[:k]] if flat else []
    for c in out:
        pool[c] -= 1
    out += ["Wastes"] * (k - len(out))
    return [CARD_INDEX[c] for c in out]


def _sample_roles(view: Any, rng: random.Random, beliefs: dict | None) -> dict[int, Role]:
    """Roles for the seats whose identity the viewer does not know: the public
    distribution minus the known roles, assigned uniformly at random (or, with
    ``beliefs`` = ``{seat: {Role: p}}``, seat by seat in random order with
    probability proportional to ``p`` times the copies of the role left)."""
    left = Counter({r: view.role_counts[r] for r in Role})     # the public identity deck (TR2.3)
    unknown = []
    for p in view.players:
        if p.role is not None:
            left[Role(p.role)] -= 1
        else:
            unknown.append(p.seat)
    bag = [r for r in Role for _ in range(max(0, left[r]))]
    if len(bag) < len(unknown):      # identities moved or left: fall back to non-Leader roles
        bag += [Role.ASSASSIN, Role.TRAITOR, Role.GUARDIAN] * len(unknown)
    out: dict[int, Role] = {}
    if beliefs:
        order = list(unknown)
        rng.shuffle(order)
        pool = Counter(bag)
        for s in order:
            b = beliefs.get(s) or {}
            roles = [r for r in Role if pool[r] > 0]
            w = [max(1e-6, float(b.get(r, b.get(int(r), 0.0)))) * pool[r] for r in roles]
            r = rng.choices(roles, weights=w)[0]
            out[s] = r
            pool[r] -= 1
        return out
    rng.shuffle(bag)
    for s, r in zip(unknown, bag):
        out[s] = r
    return out


_ALL_NAMES = frozenset(ids.names())


def _identity_pool(view: Any) -> dict[Role, list[str]]:
    """Implemented identity names by role that a hidden seat may hold: the
    default (uncommon) pool widened by the rarities of the identities seen."""
    rar = set(GameConfig().identity_pool)
    for p in view.players:
        if p.identity is not None and p.identity in _ALL_NAMES:   # simple-roles lands have no rarity
            rar.add(ids.get(p.identity).rarity)
    impl = set(ids.implemented())
    taken = {p.identity for p in view.players if p.identity is not None}
    pool: dict[Role, list[str]] = {r: [] for r in Role}
    for i in ids.all_identities():
        if i.name in impl and i.rarity in rar and i.name not in taken:
            pool[i.role].append(i.name)
    return pool


def _make_creature(g: Game, cv: Any, seat: int) -> Creature:
    """A :class:`Creature` rebuilt from a :class:`CreatureView` (owner = controller)."""
    if cv.token and cv.name in TOKENS:
        t = TOKENS[cv.name]
        cd, bp, bt, kw, leg = None, t.power, t.toughness, t.keywords, t.legendary
    else:
        cd = CARD_INDEX.get(cv.name)
        if cd is None:
            cd, bp, bt, kw, leg = None, cv.power - cv.plus_counters, cv.toughness - cv.plus_counters, cv.keywords, False
        else:
            bp, bt, kw, leg = cd.power, cd.toughness, cd.keywords, cd.legendary
    c = Creature(cv.uid, cv.name, cd, cv.token, seat, bp, bt, kw, g.turn if cv.summoning_sick else g.turn - 1, leg)
    c.tapped = cv.tapped
    c.damage = cv.damage
    c.p1p1 = cv.plus_counters
    c.stun = cv.stun
    c.pump_p = cv.power - bp - cv.plus_counters
    c.pump_q = cv.toughness - bt - cv.plus_counters
    c.pump_kw = frozenset(cv.keywords) - kw
    c.is_commander = cv.commander
    c.attacking = cv.attacking
    c.ordinal = cv.ordinal          # the public number that tells same-named permanents apart
    return c


def _make_attackable(g: Game, wv: Any, seat: int, turn: int) -> Attackable:
    """An :class:`Attackable` rebuilt from a :class:`PlaneswalkerView` (all public):
    same uid, card, owner, loyalty, once-per-turn use (CR 606.3) and number (``ordinal``)."""
    w = Attackable(wv.uid, wv.kind, CARD_INDEX.get(wv.name), wv.owner, seat, wv.loyalty, turn - 1, wv.name)
    w.used_turn = turn if wv.used_this_turn else -1
    w.ordinal = wv.ordinal
    return w


def _obs_player(observation: dict | None, n: int, rel: int, k: int) -> float | None:
    if observation is None:
        return None
    L = obs_layout(n)
    return float(observation["observation"][L.players + rel * PLAYER_FEATURES + k])


# ---------------------------------------------------------------------------- determinization
def determinize(view: Any, rng: Any, observation: dict | None = None, beliefs: dict | None = None,
                variant: str | None = None, template: Game | None = None) -> Game:
    """A full game state consistent with ``view`` (one seat's information set).

    Copied from the view (what the seat knows): turn, step, active player, public
    history (harm, attacks), the public marks of this turn (``view.turn_marks``:
    a cleanup step that another follows, CR 514.3a, an ended turn, CR 723, a
    creature declared as an attacker, CR 508.8, a fog, first strikers); per player: in game, life, lands and untapped
    lands, artifact tokens, player counters, creatures (rebuilt from their
    :class:`CreatureView`: card or token definition, counters, damage, pumps,
    tapped, summoning sickness, same uids and slot order, the planeswalker
    each attacks), planeswalkers (from their :class:`PlaneswalkerView`: card,
    owner, loyalty, ability used this turn, same uids and order), graveyard, exile,
    commander and its zone, commander damage taken, identity counters, known
    identities (face up or shown), the seat's own hand, usable-elsewhere cards
    and land drop.  From the observation vector when given: commander casts and
    mana pools.  Sampled (the hidden part): roles of face-down identities the
    seat was not shown (:func:`_sample_roles`: uniform over assignments
    consistent with the public role distribution, or weighted by ``beliefs``),
    then an identity of that role from the pool; each deck (public commander,
    else sampled among preset decks consistent with the cards seen); other
    hands (right sizes) and every library (right size, shuffled) drawn from
    what is left of the deck.  Not reconstructed (approximations): the stack,
    continuous effects, shields, delayed triggers, extra turns, once-per-turn
    ability use, creature ownership (taken as the controller).  The table
    talk (all public) is copied from ``view.talk``, with the table's talk mode.

    The returned game has no pending decision (``decision is None``); see
    :func:`setup_decision`.

    Args:
        view: a :class:`~treachery_env.view.SeatView`.
        rng: numpy Generator, ``random.Random`` or int seed.
        observation: the seat's observation dict (optional; see above).
        beliefs: optional ``{seat: {Role: probability}}`` for hidden seats.
        variant: identity variant; None infers "simple_roles" from a role-card
            identity, else "standard".
        template: a game returned by an earlier call for the same view; it is
            copied (:func:`fast_clone`) instead of building a new Game, which is
            faster.  Every field set here is overwritten.

    Raises:
        ValueError: if the view has no players.
    """
    r = _py_rng(rng)
    n = len(view.players)
    if n == 0:
        raise ValueError("determinize: the view has no players")
    me = view.seat
    commander_game = any(p.commander is not None for p in view.players)
    if variant is None:
        variant = "simple_roles" if view.players[me].identity in _SIMPLE_NAMES else "standard"
    decks = [_infer_deck(view, s, commander_game, r) for s in range(n)]
    npr = np.random.default_rng(r.randrange(2**63))
    if template is not None:
        g = fast_clone(template, r.randrange(2**31))
    else:
        max_turns = 10000
        glob = obs_layout(n).glob + N_PHASES + N_DECISIONS
        if observation is not None and observation["observation"][glob] > 0:
            max_turns = max(view.turn, int(round(view.turn / float(observation["observation"][glob]))))
        talk = {} if view.talk is None else {"talk": view.talk.mode, "talk_limit": view.talk.limit}
        cfg = GameConfig(num_players=n, commander=commander_game, decks=decks, max_turns=min(10000, max_turns),
                         variant=variant, identity_pool="all" if variant == "standard" else None,
                         priority_windows=view.priority_windows, mulligans="none", **talk)
        g = Game(cfg, seed=r.randrange(2**31))
    glob = obs_layout(n).glob + N_PHASES + N_DECISIONS
    g.is_over = False
    g.truncated = False
    g.winners = set()
    g.resolving = None
    # ---- global state
    g.turn = view.turn
    g.active = view.active
    g.order_seat = view.active
    g.phase = view.phase
    g.role_counts = tuple(view.role_counts)
    g.log = []
    g.actions = []
    g.stack = []
    g.queue.clear()
    g.decision = None
    g.priority_seat = None
    g.passes = 0
    g.pending_triggers = []
    g.delayed = []
    g.shields = []
    g.effects = []
    g.extra_turns = []
    # the public marks of this turn (CR 508.8, 514.3a, 723, ...), sets of uids as sets again
    g.turn_effects = {k: set(v) if type(v) is tuple else v for k, v in view.turn_marks.items()}
    g.combat_attackers = []
    g.mulligan_state = None      # searched decisions come after the mulligans (CR 103.5)
    g.concessions = []
    g.harm = [list(row) for row in view.harm]
    g.attacks = [list(row) for row in view.attacks]
    g.talk = TalkState(n) if view.talk is None else TalkState.from_view(view.talk, n)
    # ---- identities
    roles = _sample_roles(view, r, beliefs)
    pool = _identity_pool(view)
    max_uid = max([c.uid for p in view.players for c in p.creatures]
                  + [w.uid for p in view.players for w in p.planeswalkers] + [0])
    g._uid = max_uid + 1000
    g.revealed_identities = set()
    g.leader_attacked_by = set()
    for p in view.players:
        s = p.seat
        if p.identity is not None:
            idef = ids.simple_role_card(p.identity) if p.identity in _SIMPLE_NAMES else ids.get(p.identity)
        elif variant == "simple_roles":
            idef = ids.simple_role_card(roles[s])
        else:
            cands = pool[roles[s]] or [i.name for i in ids.all_identities() if i.role == roles[s]]
            name = r.choice(cands)
            if name in pool[roles[s]]:
                pool[roles[s]].remove(name)
            idef = ids.get(name)
        idc = IdentityCard(g._new_uid(), idef, s)
        idc.face_up = p.face_up
        idc.known_by = set(range(n)) if p.face_up else ({s, me} if p.identity is not None else {s})
        idc.counters = dict(p.identity_counters)
        idc.in_game = p.in_game
        if s == me and view.dream:
            idc.data["dream"] = [(me, card_def(c)) for c in view.dream]
        pl = g.players[s]
        pl.identity = idc
        pl.deck = decks[s]
        pl.max_hand_size = g.config.max_hand_size + (idef.start.get("max_hand_size", 0) if p.identity else 0)
        if p.face_up and idc.role != Role.LEADER:
            g.revealed_identities.add(idc.uid)
    # ---- players
    for p in view.players:
        s = p.seat
        pl = g.players[s]
        rel = (s - me) % n
        pl.life = p.life
        pl.mulligans = p.mulligans
        pl.has_lost = not p.in_game
        pl.last_role = pl.last_team = None
        pl.won = pl.cant_lose = False
        if pl.has_lost:
            pl.last_role = pl.identity.role
            pl.last_team = team_of(pl.identity.role)
        pl.lands = p.lands
        pl.lands_tapped = p.lands - p.untapped_lands
        pl.tokens = {k: int(p.tokens.get(k, 0)) for k in COUNTER_TOKENS}
        pl.counters = dict(p.player_counters)
        pl.graveyard = [card_def(c) for c in p.graveyard]
        pl.exile = [card_def(c) for c in p.exile]
        pl.cmd_damage = dict(p.commander_damage_taken)
        pl.commander = card_def(p.commander) if p.commander is not None else None
        pl.commander_zone = p.commander_zone
        casts = _obs_player(observation, n, rel, 13)
        pl.commander_casts = int(round(casts * 5)) if casts is not None else 0
        pool_mana = _obs_player(observation, n, rel, 15)
        pl.mana_pool = int(round(pool_mana * 10)) if pool_mana is not None else 0
        pl.creatures = [_make_creature(g, cv, s) for cv in p.creatures]
        pl.attackables = [_make_attackable(g, wv, s, view.turn) for wv in p.planeswalkers]
        if s == me and observation is not None:
            pl.land_played = bool(observation["observation"][glob + 2 + n + 1])
        else:
            pl.land_played = any(e.get("event") == "land" and e.get("seat") == s and e.get("turn") == view.turn
                                 for e in view.events)
        pl.permissions = []
        pl.drew_from_empty = False
        # hidden cards: hand (others) and library, from what is left of the deck
        left = _deck_cards(decks[s], commander_game) - _seen_cards(view, s)
        if s == me:
            pl.hand = [card_def(c) for c in p.hand]
        else:
            pl.hand = _sample_from(left, p.hand_size, npr)
        pl.library = _sample_from(left, p.library_size, npr)
    g.n_alive = sum(1 for p in g.players if not p.has_lost)
    # combat: attackers of the active player and the blocks declared so far
    byuid = {c.uid: c for p in g.players for c in p.creatures}
    g.combat_attackers = [c for c in g.players[g.active].creatures if c.attacking >= 0]
    walkers = {w.uid: w for p in g.players for w in p.attackables}
    for p in view.players:
        for cv in p.creatures:
            if cv.attacking_planeswalker is not None:
                c = byuid[cv.uid]
                c.attacking_obj = walkers.get(cv.attacking_planeswalker)
                if c.attacking_obj is None:   # the planeswalker it attacked has left (CR 506.4)
                    c.attacking_obj = Attackable(cv.attacking_planeswalker, "planeswalker", None, cv.attacking,
                                                 cv.attacking, 0, 0, "(gone)")
    for p in view.players:
        for cv in p.creatures:
            if cv.blocking is not None:
                b, a = byuid[cv.uid], byuid.get(cv.blocking)
                if a is None:     # the attacker it blocked has left the battlefield
                    a = Creature(cv.blocking, "(gone)", None, True, p.seat, 0, 0, frozenset(), 0)
                b.blocking = a
                a.blocked_by.append(b)
                a.was_blocked = True
    # own cards usable from other zones (same order as the view)
    mine = g.players[me]
    for name, zone, free in view.players[me].usable_elsewhere or ():
        owner = me
        for q in [me] + [x for x in range(n) if x != me]:
            z = g.players[q].exile if zone == "exile" else g.players[q].graveyard
            if any(c.name == name for c in z):
                owner = q
                break
        mine.permissions.append({"card": card_def(name), "owner": owner, "zone": zone, "free": free,
                                 "until_turn": None, "source": ""})
    # Undercover history: Leaders attacked (approximated from public attacks on face-up Leaders)
    for i in range(n):
        for j in range(n):
            if g.attacks[i][j] and g.players[j].identity.face_up and g.players[j].identity.role == Role.LEADER:
                g.leader_attacked_by.add(i)
    if not view.players[me].in_game:
        pass                                    # nothing to match: the view reports False
    elif view.undercover_met and not g.undercover_met(me):
        g.revealed_identities.add(-1)           # an identity revealed earlier, no longer visible
    elif not view.undercover_met and g.undercover_met(me):
        g.leader_attacked_by.clear()
    g._refresh_statics()
    g._dirty = False
    return g


def setup_decision(g: Game, view: Any) -> bool:
    """Make ``g`` (from :func:`determinize`) pending on the decision the viewer
    faces in ``view``, for the kinds in :data:`SETUP_KINDS`.

    * priority with an empty stack: priority goes to the viewer with the passes
      of the seats before it in turn order counted (nobody acted this step);
    * declare attackers: the creatures already declared are attacking; the
      next declaration is asked;
    * the defending player of an attacker (CR 508.1b): the creatures already
      declared are attacking and the one being declared
      (``view.decision.creature``) asks whom it attacks;
    * declare blockers: attackers and blocks declared so far are restored and
      the defending players after the viewer are queued to declare theirs.

    Returns:
        True if every legal action of the real decision is legal in ``g``'s
        decision (``g`` may allow more, e.g. an identity ability whose
        once-per-turn use the view does not show); False otherwise (the caller
        should not search).
    """
    d = view.decision
    me = view.seat
    if d is None or d.kind not in SETUP_KINDS:
        return False
    g.decision = None
    g.queue.clear()
    if d.kind == "priority":
        if view.stack:
            return False
        alive = [s for s in range(g.n) if not g.players[s].has_lost]
        k = 0
        s = g.active
        while s != me and k <= g.n:
            if s in alive:
                k += 1
            s = (s + 1) % g.n
        if k > g.n:
            return False
        g.priority_seat = me
        g.passes = k
        g._offer_priority()
    elif d.kind in ("attacker", "defender"):
        if me != g.active or g.phase != "declare_attackers":
            return False
        if d.kind == "attacker":
            g._op_declare_attackers()
        else:
            c = next((c for c in g.players[me].creatures if c.uid == d.creature and c.attacking < 0), None)
            if c is None:
                return False
            g._h_attacker(me, c)
    elif d.kind == "blocker":
        if g.phase != "declare_blockers":
            return False
        order = g._apnap()
        defenders = [s for s in order if any(a.attacking == s for a in g.combat_attackers)]
        if me not in defenders:
            return False
        later = defenders[defenders.index(me) + 1:]
        g.queue.extend([("block_for", s) for s in later] + [("blocks_done",)])
        g.decision = Decision(me, DecisionKind.BLOCKER, g._block_options(me), "_h_blocker", me,
                              "declare blockers: choose a creature, or PASS when done")
    if g.decision is None or g.decision.seat != me:
        return False
    return {o.action for o in d.options if o.kind != "concede"} <= {a for a, _ in g.decision.options}


# ---------------------------------------------------------------------------- rollouts
def _enemies_of(g: Game, seat: int) -> list[int]:
    """Seats ``seat`` wants to hurt in the (determinized) world, by true roles."""
    me = g.players[seat].identity.role
    alive = [p.seat for p in g.players if not p.has_lost and p.seat != seat]
    roles = {s: g.players[s].identity.role for s in alive}
    if me in (Role.LEADER, Role.GUARDIAN):
        return [s for s in alive if roles[s] in (Role.ASSASSIN, Role.TRAITOR)]
    if me == Role.ASSASSIN:
        lead = [s for s in alive if roles[s] == Role.LEADER]
        return lead + [s for s in alive if roles[s] == Role.GUARDIAN]
    # Traitor: the others, the Leader last
    others = [s for s in alive if roles[s] != Role.LEADER]
    return others or alive


def _harmful(item: Any) -> bool:
    effects = ()
    if getattr(item, "card", None) is not None:
        effects = item.card.effects
    if getattr(item, "data", None) and "effects" in item.data:
        effects = item.data["effects"]
    return any(e.get("op") in _HARMFUL for e in effects)


def rollout_action(g: Game, rng: random.Random) -> int:
    """A fast stochastic rule move for the seat deciding in ``g`` (used inside
    simulations only, where ``g`` is an imagined world): play lands and spells
    at sorcery speed (pass 15%), rarely act at instant speed, never talk, attack with
    each creature (70%) an enemy under the world's roles, block when the
    incoming damage is lethal or at random (30%), aim harmful targets at
    enemies and helpful ones at oneself; other decisions at random."""
    d = g.decision
    opts = d.options
    seat = d.seat
    k = d.kind
    if k == DecisionKind.PRIORITY:
        opts = [(a, pl) for a, pl in opts if pl is None or pl[0] != "talk"]    # rollouts never talk
        acts = [(a, pl) for a, pl in opts if pl is not None and pl[0] != "unveil"]
        unveil = [a for a, pl in opts if pl is not None and pl[0] == "unveil"]
        sorcery = seat == g.active and not g.stack and g.phase in ("main1", "main2")
        if unveil and rng.random() < 0.1:
            return unveil[0]
        if acts:
            lands = [a for a, pl in acts if pl[0] == "land"]
            if lands:
                return lands[0]
            if sorcery and rng.random() < 0.85:
                return rng.choice(acts)[0]
            if not sorcery and rng.random() < 0.15:
                return rng.choice(acts)[0]
        return opts[0][0] if opts[0][1] is None else rng.choice(opts)[0]
    if k == DecisionKind.ATTACKER:
        cands = [a for a, pl in opts if pl is not None]
        if cands and rng.random() < 0.7:
            return rng.choice(cands)
        return g.layout.PASS if d.index_of(g.layout.PASS) is not None else opts[0][0]
    if k == DecisionKind.DEFENDER:
        en = _enemies_of(g, seat)
        good = [a for a, pl in opts if pl in en[:1]] or [a for a, pl in opts if pl in en]
        return rng.choice(good or [a for a, _ in opts])
    if k == DecisionKind.BLOCKER:
        cands = [a for a, pl in opts if pl is not None]
        incoming = sum(a.power for a in g.combat_attackers if a.attacking == seat and not a.was_blocked)
        if cands and (incoming >= g.players[seat].life or rng.random() < 0.3):
            return rng.choice(cands)
        return g.layout.PASS if d.index_of(g.layout.PASS) is not None else opts[0][0]
    if k == DecisionKind.TARGET:
        item = d.ctx[0] if isinstance(d.ctx, tuple) else None
        en = set(_enemies_of(g, seat))
        harm = _harmful(item) if item is not None else True

        def owner(t: Any) -> int | None:
            if isinstance(t, tuple) and len(t) == 2:
                return t[1] if t[0] == "p" else getattr(t[1], "controller", None)
            return getattr(t, "controller", None)     # identity abilities' own payloads
        if harm:
            good = [a for a, t in opts if owner(t) in en]
        else:
            good = [a for a, t in opts if owner(t) == seat]
        return rng.choice(good or [a for a, _ in opts])
    return rng.choice(opts)[0]


def _strength(g: Game, s: int) -> float:
    p = g.players[s]
    if p.has_lost:
        return 0.0
    return (max(0, p.life) + 1.5 * sum(c.power for c in p.creatures) + 0.5 * sum(c.toughness for c in p.creatures)
            + 0.5 * p.lands + 0.3 * len(p.hand))


def evaluate(g: Game, seat: int) -> float:
    """Score of a (simulated) game for ``seat``'s team, in [-1, 1].

    Over: +1 if ``seat`` is among the winners, 0 for a draw or truncation, -1
    otherwise.  Else ``0.9 * (A - E) / (A + E + 1)`` where A and E are the mean
    strengths (life + 1.5 power + 0.5 toughness + 0.5 lands + 0.3 cards in
    hand; 0 once out) of the seat's allies (itself included) and of its
    enemies under the world's roles (Leader team vs Assassins and Traitors;
    Assassins vs the Leader team; a Traitor vs everyone)."""
    if g.is_over:
        if not g.winners:
            return 0.0
        return 1.0 if seat in g.winners else -1.0
    me = g.players[seat]
    role = me.role
    allies, enemies = [seat], []
    for p in g.players:
        if p.seat == seat:
            continue
        r = p.role
        if role in (Role.LEADER, Role.GUARDIAN):
            (allies if r in (Role.LEADER, Role.GUARDIAN) else enemies).append(p.seat)
        elif role == Role.ASSASSIN:
            if r == Role.ASSASSIN:
                allies.append(p.seat)
            elif r != Role.TRAITOR:
                enemies.append(p.seat)
        else:
            enemies.append(p.seat)
    a = sum(_strength(g, s) for s in allies) / len(allies)
    e = sum(_strength(g, s) for s in enemies) / len(enemies) if enemies else 0.0
    return 0.9 * (a - e) / (a + e + 1.0)


def _rollout(g: Game, seat: int, horizon: int, rng: random.Random, max_steps: int = 600) -> float:
    limit = g.turn + horizon
    steps = 0
    while not g.is_over and g.turn <= limit and steps < max_steps:
        g.step(rollout_action(g, rng))
        steps += 1
    return evaluate(g, seat)


# ---------------------------------------------------------------------------- fallback rules
def simple_policy(view: Any, rng: Any = None) -> int:
    """A rule move from the seat's view alone (used when no heuristic bot is
    registered): pass priority; attack with nothing more; choose as the
    defending player the Leader (an Assassin) or the seat that harmed the
    Leader team most; aim harmful targets (by the card's effects, named in the
    prompt) at a player: an Assassin at the Leader, others at the opponent who
    has caused the most harm (never the Leader for the Leader team), and
    helpful ones at oneself; otherwise PASS, else the first option."""
    d = view.decision
    opts = [o for o in d.options if o.kind != "concede"] or list(d.options)   # never concede
    me = view.seat
    role = view.me.role
    if d.kind == "defender":
        leader = [o for o in opts if o.player is not None and view.players[o.player].leader_player]
        if role == Role.ASSASSIN and leader:
            return leader[0].action
        foes = [o for o in opts if not view.players[o.player].leader_player] or list(opts)
        return max(foes, key=lambda o: (sum(view.harm[o.player]), -o.action)).action
    if d.kind == "target":
        card = None
        for c in CARDS:                # the card being cast or resolved, named in the prompt
            if c.name in d.prompt and (card is None or len(c.name) > len(card.name)):
                card = c
        harmful = card is None or not card.effects or any(e.get("op") in _HARMFUL for e in card.effects)
        players = [o for o in opts if o.player is not None and o.creature is None]
        if harmful:
            foes = [o for o in players if o.player != me]
            leader = [o for o in foes if view.players[o.player].leader_player]
            if role == Role.ASSASSIN and leader:
                return leader[0].action
            if role in (Role.LEADER, Role.GUARDIAN):
                foes = [o for o in foes if not view.players[o.player].leader_player]
            elif role == Role.TRAITOR:
                foes = [o for o in foes if not view.players[o.player].leader_player] or foes
            if foes:
                return max(foes, key=lambda o: (sum(view.harm[o.player]), -o.action)).action
        else:
            mine = [o for o in opts if o.player == me]
            if mine:
                return mine[0].action
    for o in opts:
        if o.kind == "pass":
            return o.action
    return opts[0].action


# ---------------------------------------------------------------------------- the bot
class ISMCTSAgent(TreacheryOnlyAgent):
    """Flat determinized Monte Carlo search with UCB1 at the information-set root
    (see the module docstring; Cowling, Powley & Whitehouse 2012).

    Args:
        seed: seed of the bot's random stream (determinizations, UCB ties, rollouts).
        iterations: rollouts per searched decision (default 24: a searched
            decision takes about 0.1-0.3 s on a 4-player table).
        time_budget: seconds per searched decision instead of ``iterations``
            (None: use iterations; then the bot is deterministic given its seed).
        determinizations: worlds sampled per decision (default 6).
        horizon: turns a rollout plays past the current one (default 4).
        exploration: UCB1 constant (default 0.7, rewards are in [-1, 1]).
        beliefs: "auto" to sample hidden roles from the belief bot's posterior
            (``agents.belief.RoleBelief().beliefs(view)``, a function of the
            seat's view) when that module is there, None for uniform sampling.
        fallback: "auto" to answer unsearched decisions with the heuristic bot
            when one is registered, None to always use :func:`simple_policy`.

    Attributes:
        stats: counters: searched, fallback (decision kinds not searched),
            mismatch (determinization could not rebuild the decision), errors
            (exceptions inside determinization or rollouts; the last one is in
            ``last_error``), land_rule (lands played without search), talk
            (messages said, taken from the heuristic bot).
        times: seconds spent per ``act`` call.
    """

    name = "ismcts"

    def __init__(self, seed: int | None = None, iterations: int = 24, time_budget: float | None = None,
                 determinizations: int = 6, horizon: int = 4, exploration: float = 0.7,
                 beliefs: str | None = "auto", fallback: str | None = "auto"):
        super().__init__(seed)
        self.iterations = int(iterations)
        self.time_budget = time_budget
        self.determinizations = max(1, int(determinizations))
        self.horizon = int(horizon)
        self.exploration = float(exploration)
        self.use_beliefs = beliefs
        self.use_fallback = fallback
        self.stats = Counter()
        self.times: list[float] = []
        self.last_error: str | None = None
        self._fallback = None
        self._belief = None
        self._init_helpers()

    def _init_helpers(self) -> None:
        import agents
        sub_seed = None if self.seed is None else int(self.seed) + 7919
        if self.use_fallback == "auto" and "heuristic" in agents.available():
            self._fallback = agents.make("heuristic", seed=sub_seed)
        if self.use_beliefs == "auto":
            from .belief import RoleBelief   # the belief bot's deduction model: a function of the view
            self._belief = RoleBelief()

    def reset(self, seat: int) -> None:
        """Start a new game at ``seat`` (resets the helper bots too)."""
        super().reset(seat)
        if self._fallback is not None and hasattr(self._fallback, "reset"):
            self._fallback.reset(seat)

    def _beliefs(self, view: Any) -> dict | None:
        if self._belief is None or all(p.role is not None for p in view.players):
            return None
        return self._belief.beliefs(view)

    def _fallback_action(self, observation: dict, info: dict, view: Any) -> int:
        if self._fallback is not None:
            return int(self._fallback.act(observation, info))
        return simple_policy(view, self.rng)

    def act(self, observation: dict, info: dict) -> int:
        """Choose an action: search the decision when it can be rebuilt, else the fallback.

        Raises:
            ValueError: if the mask allows no action, without ``info["view"]``, or in a game this bot
                does not play (:func:`~agents.base.treachery_only`).
        """
        t0 = time.perf_counter()
        try:
            return self._act(observation, info)
        finally:
            self.times.append(time.perf_counter() - t0)

    def _act(self, observation: dict, info: dict) -> int:
        legal = legal_actions(observation)
        view = seat_view(self.name, info)
        treachery_only(self.name, view)
        if self.seat is None:
            self.seat = view.seat
        if view.decision is not None:           # never concede
            conceding = {o.action for o in view.decision.options if o.kind == "concede"}
            legal = [int(a) for a in legal if int(a) not in conceding] or list(legal)
        if len(legal) == 1:
            return int(legal[0])
        d = view.decision
        if d is not None and d.kind == "priority" and view.active == view.seat and not view.stack:
            lands = [o.action for o in d.options if o.kind == "land"]
            if lands:                 # lands are generic mana: playing one first is never worse here
                self.stats["land_rule"] += 1
                return lands[0]
        if d is None or d.kind not in ISMCTS_KINDS or (d.kind == "priority" and view.stack):
            self.stats["fallback"] += 1
            return self._fallback_action(observation, info, view)
        talk = {o.action for o in d.options if o.kind == "talk"}
        if talk:      # words change nothing in a simulated world: say what the heuristic would, else search the rest
            said = self._fallback.talk_action(view) if hasattr(self._fallback, "talk_action") else None
            if said is not None and int(said) in talk:
                self.stats["talk"] += 1
                return int(said)
            legal = [a for a in legal if int(a) not in talk]
            if len(legal) == 1:
                return int(legal[0])
        return self._search(observation, info, view, self._beliefs(view), [int(a) for a in legal])

    def _search(self, observation: dict, info: dict, view: Any, beliefs: dict | None, legal: list[int]) -> int:
        rng = random.Random(int(self.rng.integers(0, 2**63 - 1)))
        worlds = []
        for _ in range(self.determinizations):
            try:
                g = determinize(view, rng, observation=observation, beliefs=beliefs,
                                template=worlds[0] if worlds else None)
                ok = setup_decision(g, view)
            except Exception as e:      # a view the rebuild does not cover: don't search it
                self.stats["errors"] += 1
                self.last_error = f"determinize: {e!r}"
                ok = False
            if ok:
                worlds.append(g)
        if not worlds:
            self.stats["mismatch"] += 1
            return self._fallback_action(observation, info, view)
        self.stats["searched"] += 1
        me = view.seat
        n_vis = {a: 0 for a in legal}
        total = {a: 0.0 for a in legal}
        t_end = None if self.time_budget is None else time.perf_counter() + self.time_budget
        it = 0
        seeds: list[int] = []
        while True:
            if t_end is None:
                if it >= self.iterations:
                    break
            elif it >= len(legal) and time.perf_counter() >= t_end:
                break
            unvisited = [a for a in legal if n_vis[a] == 0]
            if unvisited:
                a = unvisited[0]
            else:
                ln = math.log(it)
                a = max(legal, key=lambda x: (total[x] / n_vis[x] + self.exploration * math.sqrt(ln / n_vis[x]), -x))
            j = n_vis[a]       # common random numbers: visit j of every action uses world j and seed j
            while len(seeds) <= j:
                seeds.append(rng.randrange(2**31))
            g = fast_clone(worlds[j % len(worlds)], seeds[j])
            try:
                g.step(a)
                v = _rollout(g, me, self.horizon, random.Random(seeds[j]))
            except Exception as e:      # an engine error inside an imagined world: score it neutral
                self.stats["errors"] += 1
                self.last_error = f"rollout: {e!r}"
                v = 0.0
            n_vis[a] += 1
            total[a] += v
            it += 1
        return max(legal, key=lambda x: (total[x] / n_vis[x] if n_vis[x] else -2.0, n_vis[x], -x))


register("ismcts", ISMCTSAgent)
