"""What one seat may know: the observation vector and the structured view.

Both are functions of the seat's *information set* only (DESIGN section 4):
its own hand and identity; every public fact (life, board, graveyards, the
stack, face-up identities, counts of hidden cards); identities it has seen or
been shown (``IdentityCard.known_by``: cards that were face up and turned face
down again are remembered, TR4.8); cards only it may look at (The
Oneiromancer's face-down exile).  It never includes other hands, library order,
face-down identities it was not shown, or other seats' pending decisions.

Seats are **relative** to the observer: block 0 is the observer, then the
other seats in turn order.

The vector (float32, shape ``(obs_size(n),)``) is laid out by :class:`ObsLayout`:

* global: step one-hot (13), own decision kind one-hot
  (``DecisionKind.COUNT``; zeros unless the observer is deciding), turn /
  max_turns, stack size / 10, active player (relative one-hot, n), own
  Undercover condition met, own land played;
* per player (n blocks of :data:`PLAYER_FEATURES`): in game, life / 40, hand,
  library, graveyard, exile and face-down-exile sizes, lands, untapped lands,
  7 artifact-token counts, creature count, commander zone one-hot (3),
  commander casts, highest commander damage taken / 21, mana pool, face up,
  known role one-hot (4), known identity one-hot (62), identity counters,
  Leader player, attacked a Leader, damage-prevention shield, gem / nut / rad
  player counters / 10, cards usable from other zones / 4, mulligans taken / 3
  (public, CR 103.5);
* public history (2 x n x n, rows = source seat, columns = target seat,
  both relative): damage dealt and life loss caused / 40, creatures attacked
  with / 10 (``Game.harm``, ``Game.attacks``);
* per creature slot (n x 20 slots of :data:`CREATURE_FEATURES`): present,
  power / 10, toughness / 10, damage / 10, tapped, can't attack yet
  (summoning sick), attacking, attacked player (relative, one-hot n),
  blocking, blocked, +1/+1 counters / 5, stun counters, token, commander,
  11 keyword bits, attacked planeswalker (slot one-hot in the defending
  player's attackable slots, 4);
* per attackable-permanent slot ((n + 1) x 4 slots of ``walker_features``;
  rows = relative seat of the controller, row n reserved for uncontrolled
  ones, Throne Magic; the same slots as the WALKER actions): present, kind
  one-hot (planeswalker, throne, holding), card one-hot over the pool's
  planeswalker cards (``cards.WALKER_CARDS``), loyalty / 10, a loyalty
  ability activated this turn (CR 606.3), creatures attacking it / 5,
  targeted by a stack object, owner is not the controller;
* own hand: 15 slots x card one-hot (every card of the pool);
* stack: 10 slots (top first) of present, controller (relative one-hot), spell,
  identity source, card one-hot, X / 10, targeted players (relative multi-hot);
* own face-down exile (The Oneiromancer): counts by card / 4;
* own cards usable from other zones: 8 slots (the OTHER actions) x card one-hot;
* own decision context: the card being cast or resolved (one-hot) and the
  creature being declared (own slot one-hot, 20);
* table talk (TR10.5; :mod:`treachery_env.engine.talk`; all zeros in the
  silent game ``GameConfig.talk="none"``), every statement public:
  per speaker (n x :data:`TALK_SPEAKER_FEATURES`): latest claimed role
  one-hot (4), latest "don't attack me" request, messages said this turn /
  ``talk_limit``; per speaker x subject (n x n x :data:`TALK_PAIR_FEATURES`,
  rows = speaker, columns = subject): latest stance one-hot (accused of being
  Leader / Guardian / Assassin / Traitor, or defended), latest intent one-hot
  (threaten, protect), a truce stands between them (both directions), the
  speaker broke a truce with the subject; the last message: speaker one-hot
  (n), kind one-hot (9, ``talk.TALK_KINDS``), subject one-hot (n), role
  one-hot (4) -- the context of a truce offer being answered.  Recency: only
  a speaker's latest statement in each slot counts, and it is written as
  ``0.5 ** rounds`` where ``rounds = (turn - turn said) // n`` (1 this round,
  halving every round after), so old words fade but are not forgotten.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .actions import MAX_HAND, MAX_OTHER, MAX_PERMS, MAX_STACK, MAX_WALKERS
from .cards import CARDS, COUNTER_TOKENS, KEYWORDS, WALKER_CARDS
from .identities import all_identities
from .rules import Role

from .engine.state import ATTACKABLE_KINDS, PHASE_INDEX, DecisionKind
from .engine.talk import TALK_KINDS, TalkMessage

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game

__all__ = ["ObsLayout", "obs_layout", "encode", "seat_view", "SeatView", "LazySeatView", "DecisionView", "OptionView", "PlayerView", "CreatureView",
           "PlaneswalkerView", "StackView", "WALKER_FEATURES", "TalkView", "TalkMessage", "PLAYER_FEATURES", "CREATURE_FEATURES", "TALK_SPEAKER_FEATURES",
           "TALK_PAIR_FEATURES"]

N_CARDS = len(CARDS)
_IDENTITY_INDEX = {i.name: k for k, i in enumerate(all_identities())}
N_IDENTITIES = len(_IDENTITY_INDEX)
_KW_INDEX = {k: i for i, k in enumerate(KEYWORDS)}
N_PHASES = 13
N_DECISIONS = DecisionKind.COUNT
_CZ = {"command": 10, "battlefield": 11, "stack": 12}
_TOK = {name: 16 + j for j, name in enumerate(COUNTER_TOKENS)}
PLAYER_COUNTERS = ("gem", "nut", "rad")
# in game .. mana pool (16), tokens, face up + role (5), identity one-hot, counters .. shield (4),
# player counters, usable elsewhere (1), mulligans taken (1)
PLAYER_FEATURES = 16 + len(COUNTER_TOKENS) + 5 + N_IDENTITIES + 4 + len(PLAYER_COUNTERS) + 2
CREATURE_FEATURES = 14 + len(KEYWORDS) + MAX_WALKERS
_WALKER_INDEX = {c.index: k for k, c in enumerate(WALKER_CARDS)}
_KIND_INDEX = {k: i for i, k in enumerate(ATTACKABLE_KINDS)}
WALKER_FEATURES = 1 + len(ATTACKABLE_KINDS) + len(WALKER_CARDS) + 5
"""Features of one attackable-permanent slot (see the module docstring)."""
TALK_SPEAKER_FEATURES = 6     # claim one-hot (4), request, said this turn / limit
TALK_PAIR_FEATURES = 9        # stance one-hot (4 accused roles, defended), threaten, protect, truce, broke a truce
_STANCE = {"accuse": 0, "defend": 4}
_INTENT = {"threaten": 5, "protect": 6}
_TALK_KIND_INDEX = {k: i for i, k in enumerate(TALK_KINDS)}


class ObsLayout:
    """Offsets of the observation blocks for ``n`` players (see module docstring).

    Attributes:
        n, size, and the offsets ``glob``, ``players``, ``creatures``,
        ``walkers`` ((n + 1) x MAX_WALKERS slots of ``WALKER_FEATURES``), ``hand``,
        ``stack``, ``dream``, ``context``, ``talk`` (per speaker),
        ``talk_pairs`` (per speaker x subject), ``talk_last`` (the last
        message); ``stack_features`` per stack slot.
    """

    def __init__(self, n: int):
        self.n = n
        off = 0
        self.glob = off
        off += N_PHASES + N_DECISIONS + 2 + n + 2
        self.players = off
        off += n * PLAYER_FEATURES
        self.history = off
        off += 2 * n * n
        self.creatures = off
        self.creature_features = CREATURE_FEATURES - 1 + n   # attacked player one-hot of n
        off += n * MAX_PERMS * self.creature_features
        self.walkers = off
        off += (n + 1) * MAX_WALKERS * WALKER_FEATURES
        self.hand = off
        off += MAX_HAND * N_CARDS
        self.stack = off
        self.stack_features = 1 + n + 2 + N_CARDS + 1 + n
        off += MAX_STACK * self.stack_features
        self.dream = off
        off += N_CARDS
        self.other = off
        off += MAX_OTHER * N_CARDS
        self.context = off
        off += N_CARDS + MAX_PERMS
        self.talk = off
        off += n * TALK_SPEAKER_FEATURES
        self.talk_pairs = off
        off += n * n * TALK_PAIR_FEATURES
        self.talk_last = off
        off += 2 * n + len(TALK_KINDS) + 4
        self.size = off
        self.zeros = bytes(4 * off)   # float32 zeros, copied into a fresh array per observation
        self.chunks: dict = {}        # creature feature key -> encoded block (cache)


@lru_cache(maxsize=None)
def obs_layout(n: int) -> ObsLayout:
    """The (cached) :class:`ObsLayout` for ``n`` players."""
    return ObsLayout(n)


def _creature_chunk(key: tuple, n: int, cf: int) -> array:
    """Encoded block of one creature slot from its feature key (see :func:`encode`)."""
    power, toughness, damage, tapped, sick, att_rel, blocking, blocked, p1p1, stun, token, cmdr, kws, att_w = key
    o = array("f", bytes(4 * cf))
    o[0] = 1.0
    o[1] = power / 10.0
    o[2] = toughness / 10.0
    o[3] = damage / 10.0
    o[4] = float(tapped)
    o[5] = float(sick)
    if att_rel >= 0:
        o[6] = 1.0
        o[7 + att_rel] = 1.0
    q2 = 7 + n
    o[q2] = float(blocking)
    o[q2 + 1] = float(blocked)
    o[q2 + 2] = p1p1 / 5.0
    o[q2 + 3] = float(stun)
    o[q2 + 4] = float(token)
    o[q2 + 5] = float(cmdr)
    for kw in kws:
        o[q2 + 6 + _KW_INDEX[kw]] = 1.0
    if att_w >= 0:
        o[q2 + 6 + len(KEYWORDS) + att_w] = 1.0
    return o


def _walker_slot(game: "Game", w: Any) -> int:
    """Slot of attackable permanent ``w`` among its controller's (-1 if gone or beyond the slots)."""
    ws = game.players[w.controller].attackables
    if w not in ws:
        return -1
    k = ws.index(w)
    return k if k < MAX_WALKERS else -1


def _encode_walkers(game: "Game", p: Any, o: array, base: int) -> None:
    """Write the attackable-permanent slots of player ``p`` (see the module docstring) at ``base``."""
    attackers: dict = {}
    for a in game.combat_attackers:
        if a.attacking_obj is not None:
            attackers[a.attacking_obj.uid] = attackers.get(a.attacking_obj.uid, 0) + 1
    targeted = {t[1].uid for it in game.stack for t in it.targets if t is not None and t[0] == "w"}
    nk = len(ATTACKABLE_KINDS)
    nw = len(WALKER_CARDS)
    for slot, w in enumerate(p.attackables[:MAX_WALKERS]):
        q = base + slot * WALKER_FEATURES
        o[q] = 1.0
        o[q + 1 + _KIND_INDEX[w.kind]] = 1.0
        if w.card is not None and w.card.index in _WALKER_INDEX:
            o[q + 1 + nk + _WALKER_INDEX[w.card.index]] = 1.0
        q += 1 + nk + nw
        o[q] = w.loyalty / 10.0
        o[q + 1] = float(w.used_turn == game.turn)
        o[q + 2] = attackers.get(w.uid, 0) / 5.0
        o[q + 3] = float(w.uid in targeted)
        o[q + 4] = float(w.owner != w.controller)


def _declared_creature(d: Any, viewer: int) -> Any:
    """The viewer's own creature that decision ``d`` is about, else None: the
    attacker whose defending player is being chosen (DEFENDER, context ``c``)
    or the blocker whose attacker is being chosen (BLOCKED, context
    ``(seat, b)``); CR 508.1, 509.1."""
    if d.kind == DecisionKind.DEFENDER:
        cre = d.ctx
    elif d.kind == DecisionKind.BLOCKED:
        cre = d.ctx[1]
    else:
        return None
    return cre if cre.controller == viewer else None


def encode(game: "Game", viewer: int) -> np.ndarray:
    """Observation vector of ``viewer``: float32, shape ``(obs_layout(n).size,)``."""
    n = game.n
    L = obs_layout(n)
    # array('f') item assignment is several times cheaper than numpy's; the result
    # is wrapped without a copy at the end
    o = array("f", L.zeros)
    players = game.players
    me = players[viewer]
    d = game.decision
    mine = d is not None and d.seat == viewer
    # ---- global
    g = L.glob
    o[g + PHASE_INDEX[game.phase]] = 1.0
    g += N_PHASES
    if mine:
        o[g + d.kind] = 1.0
    g += N_DECISIONS
    o[g] = game.turn / game.config.max_turns
    o[g + 1] = len(game.stack) / 10.0
    g += 2
    o[g + (game.active - viewer) % n] = 1.0
    g += n
    if not me.has_lost:
        o[g] = float(game.undercover_met(viewer))
    o[g + 1] = float(me.land_played)
    chunks = L.chunks
    if len(chunks) > 100_000:
        chunks.clear()
    # ---- players (only nonzero features are written)
    shields = {s["seat"] for s in game.shields}
    attacked = game.leader_attacked_by
    pf = PLAYER_FEATURES
    cf = L.creature_features
    turn = game.turn
    for r in range(n):
        s = (viewer + r) % n
        p = players[s]
        b = L.players + r * pf
        idc = p.identity
        up = idc.face_up
        if not p.has_lost:
            o[b] = 1.0
        o[b + 1] = p.life / 40.0
        o[b + 2] = len(p.hand) / 10.0
        o[b + 3] = len(p.library) / 100.0
        if p.graveyard:
            o[b + 4] = len(p.graveyard) / 20.0
        if p.exile:
            o[b + 5] = len(p.exile) / 20.0
        data = idc.data
        if "dream" in data:
            o[b + 6] = len(data["dream"]) / 10.0
        o[b + 7] = p.lands / 10.0
        o[b + 8] = (p.lands - p.lands_tapped) / 10.0
        if p.creatures:
            o[b + 9] = len(p.creatures) / 10.0
        if p.commander is not None:
            cz = _CZ.get(p.commander_zone)
            if cz is not None:
                o[b + cz] = 1.0
            o[b + 13] = p.commander_casts / 5.0
        if p.cmd_damage:
            o[b + 14] = max(p.cmd_damage.values()) / 21.0
        if p.mana_pool:
            o[b + 15] = p.mana_pool / 10.0
        tok = p.tokens
        if any(tok.values()):
            for name, v in tok.items():
                if v:
                    o[b + _TOK[name]] = v / 5.0
        k = b + 16 + len(COUNTER_TOKENS)
        card = idc.copy_of or idc.identity
        role = card.role if idc.role_override is None else idc.role_override
        if up or viewer in idc.known_by:
            if up:
                o[k] = 1.0
            o[k + 1 + role] = 1.0
            ix = _IDENTITY_INDEX.get(card.name)     # simple-roles cards have only a role
            if ix is not None:
                o[k + 5 + ix] = 1.0
        k += 5 + N_IDENTITIES
        if idc.counters:          # counters on identities are public, face up or not (debt)
            o[k] = sum(idc.counters.values()) / 10.0
        if up:
            if role == 0 and not p.has_lost:
                o[k + 1] = 1.0
        if s in attacked:
            o[k + 2] = 1.0
        if s in shields:
            o[k + 3] = 1.0
        if p.counters:
            for j, name in enumerate(PLAYER_COUNTERS):
                v = p.counters.get(name)
                if v:
                    o[k + 4 + j] = v / 10.0
        if p.permissions:
            o[k + 4 + len(PLAYER_COUNTERS)] = len(p.permissions) / 4.0
        if p.mulligans:
            o[k + 5 + len(PLAYER_COUNTERS)] = p.mulligans / 3.0
        # creatures of this player
        cb = L.creatures + r * MAX_PERMS * cf
        for slot, c in enumerate(p.creatures[:MAX_PERMS]):
            kws = c.base_keywords
            if c.pump_kw:
                kws = kws | c.pump_kw
            key = (c.base_power + c.p1p1 + c.pump_p, c.base_toughness + c.p1p1 + c.pump_q, c.damage, c.tapped,
                   c.entered_turn >= turn and "haste" not in kws,
                   -1 if c.attacking < 0 else (c.attacking - viewer) % n, c.blocking is not None,
                   bool(c.blocked_by), c.p1p1, c.stun, c.token, c.is_commander, kws,
                   -1 if c.attacking_obj is None else _walker_slot(game, c.attacking_obj))
            chunk = chunks.get(key)
            if chunk is None:
                chunk = chunks[key] = _creature_chunk(key, n, cf)
            q = cb + slot * cf
            o[q:q + cf] = chunk
        if p.attackables:
            _encode_walkers(game, p, o, L.walkers + r * MAX_WALKERS * WALKER_FEATURES)
        if s == viewer and "dream" in data:
            for _, card in data["dream"]:
                o[L.dream + card.index] += 0.25
    # ---- public history: harm and attacks between seats (relative rows and columns)
    hb = L.history
    nn = n * n
    harm, attacks = game.harm, game.attacks
    for ri in range(n):
        i = (viewer + ri) % n
        hi, ai = harm[i], attacks[i]
        for rj in range(n):
            j = (viewer + rj) % n
            if hi[j]:
                o[hb + ri * n + rj] = hi[j] / 40.0
            if ai[j]:
                o[hb + nn + ri * n + rj] = ai[j] / 10.0
    # ---- own cards usable from other zones (the OTHER actions)
    for i, perm in enumerate(me.permissions[:MAX_OTHER]):
        o[L.other + i * N_CARDS + perm["card"].index] = 1.0
    # ---- own hand
    h = L.hand
    for i, c in enumerate(me.hand[:MAX_HAND]):
        o[h + i * N_CARDS + c.index] = 1.0
    # ---- stack, top first
    sf = L.stack_features
    for depth, it in enumerate(reversed(game.stack[-MAX_STACK:])):
        q = L.stack + depth * sf
        o[q] = 1.0
        o[q + 1 + (it.controller - viewer) % n] = 1.0
        q2 = q + 1 + n
        o[q2] = float(it.kind == "spell")
        o[q2 + 1] = float(it.identity_source)
        if it.card is not None:
            o[q2 + 2 + it.card.index] = 1.0
        o[q2 + 2 + N_CARDS] = it.x / 10.0
        for t in it.targets:
            if t is not None and t[0] == "p":
                o[q2 + 3 + N_CARDS + (t[1] - viewer) % n] = 1.0
    # ---- own decision context
    if mine:
        ctx = d.ctx
        item = ctx if hasattr(ctx, "card") else (ctx[0] if isinstance(ctx, tuple) and ctx and hasattr(ctx[0], "card") else None)
        if item is not None and getattr(item, "card", None) is not None:
            o[L.context + item.card.index] = 1.0
        cre = _declared_creature(d, viewer)
        if cre is not None and cre in me.creatures:
            slot = me.creatures.index(cre)
            if slot < MAX_PERMS:
                o[L.context + N_CARDS + slot] = 1.0
    # ---- table talk (public)
    if game.talk_on and game.talk.messages:
        _encode_talk(game, viewer, o, L)
    return np.frombuffer(o, dtype=np.float32)


def _encode_talk(game: "Game", viewer: int, o: array, L: ObsLayout) -> None:
    """Write the talk block of ``viewer`` (see the module docstring) into ``o``."""
    n = game.n
    t = game.talk
    turn = game.turn

    def fade(m: TalkMessage) -> float:
        return 0.5 ** ((turn - m.turn) // n)

    sf, pf = TALK_SPEAKER_FEATURES, TALK_PAIR_FEATURES
    for s, m in t.claims.items():
        o[L.talk + ((s - viewer) % n) * sf + int(m.role)] = fade(m)
    for s, m in t.requests.items():
        o[L.talk + ((s - viewer) % n) * sf + 4] = fade(m)
    limit = game.config.talk_limit
    for m in reversed(t.messages):
        if m.turn != turn:
            break
        if m.kind != "accept" and m.kind != "reject":
            o[L.talk + ((m.speaker - viewer) % n) * sf + 5] += 1.0 / limit
    pb = L.talk_pairs
    for (i, j), m in t.stances.items():
        k = _STANCE[m.kind] + (int(m.role) if m.kind == "accuse" else 0)
        o[pb + (((i - viewer) % n) * n + (j - viewer) % n) * pf + k] = fade(m)
    for (i, j), m in t.intents.items():
        o[pb + (((i - viewer) % n) * n + (j - viewer) % n) * pf + _INTENT[m.kind]] = fade(m)
    players = game.players
    for d in t.deals:
        if players[d.dealer].has_lost or players[d.partner].has_lost:
            continue
        a, b = (d.dealer - viewer) % n, (d.partner - viewer) % n
        o[pb + (a * n + b) * pf + 7] = 1.0
        o[pb + (b * n + a) * pf + 7] = 1.0
    for (i, j), when in t.broken.items():
        o[pb + (((i - viewer) % n) * n + (j - viewer) % n) * pf + 8] = 0.5 ** ((turn - when) // n)
    m = t.messages[-1]
    q = L.talk_last
    o[q + (m.speaker - viewer) % n] = 1.0
    q += n
    o[q + _TALK_KIND_INDEX[m.kind]] = 1.0
    q += len(TALK_KINDS)
    if m.subject is not None:
        o[q + (m.subject - viewer) % n] = 1.0
    q += n
    if m.role is not None:
        o[q + int(m.role)] = 1.0


# ---------------------------------------------------------------------------- structured view
@dataclass(frozen=True)
class CreatureView:
    """A creature as everyone sees it.  ``attacking`` is an absolute seat (the
    defending player) or -1; ``attacking_planeswalker`` the uid of the
    planeswalker it attacks (CR 506.3), None when it attacks the player."""

    uid: int
    name: str
    power: int
    toughness: int
    damage: int
    tapped: bool
    summoning_sick: bool
    keywords: frozenset
    attacking: int
    blocking: int | None
    plus_counters: int
    stun: int
    token: bool
    commander: bool
    attacking_planeswalker: int | None = None


@dataclass(frozen=True)
class PlaneswalkerView:
    """An attackable permanent as everyone sees it (all public): a planeswalker
    (``kind``, CR 306) with its loyalty (CR 306.5b), whether one of its
    loyalty abilities was activated this turn (CR 606.3), its abilities'
    loyalty costs and texts (``abilities``: ``((cost, text), ...)``), and the
    uids of the creatures attacking it."""

    uid: int
    name: str
    kind: str
    owner: int
    controller: int
    loyalty: int
    used_this_turn: bool
    abilities: tuple
    attackers: tuple = ()


@dataclass(frozen=True)
class PlayerView:
    """A player as the viewer knows them.

    ``identity``/``role`` are None when the viewer does not know them;
    ``hand`` is None for other players (``hand_size`` is public);
    ``usable_elsewhere`` lists the cards the viewer may cast from other zones
    (the OTHER actions, in order), None for other players; ``mulligans`` is
    the number of mulligans the player took before the game (public, CR 103.5);
    ``planeswalkers`` the attackable permanents it controls
    (:class:`PlaneswalkerView`, in slot order).
    """

    seat: int
    in_game: bool
    life: int
    hand_size: int
    hand: tuple | None
    library_size: int
    graveyard: tuple
    exile: tuple
    lands: int
    untapped_lands: int
    tokens: dict
    creatures: tuple
    face_up: bool
    identity: str | None
    role: Role | None
    identity_counters: dict
    commander: str | None
    commander_zone: str
    commander_damage_taken: dict
    leader_player: bool
    player_counters: dict
    usable_elsewhere: tuple | None
    mulligans: int = 0
    planeswalkers: tuple = ()


@dataclass(frozen=True)
class StackView:
    """A stack object: ``targets`` are ``("player", seat)``, ``("creature", uid)``,
    ``("planeswalker", uid)`` or ``("stack", uid)``."""

    uid: int
    kind: str
    controller: int
    source: str
    identity_source: bool
    x: int
    targets: tuple


@dataclass(frozen=True)
class OptionView:
    """One legal action of the viewer's decision, with what it refers to.

    Attributes:
        action: the action index.
        text: :meth:`Game.describe_action` of it.
        kind: what choosing it does: ``"pass"`` (pass priority, done, no, keep;
            keep the hand at a mulligan decision), ``"mulligan"`` (take a
            mulligan, CR 103.5), ``"bottom"`` (put ``card`` on the bottom of the
            library after a mulligan), ``"concede"`` (concede the game, CR 104.3a),
            ``"land"``, ``"cast"``, ``"commander"``, ``"unveil"``,
            ``"identity_ability"``, ``"token"``, ``"permission"``, ``"loyalty"``
            (activate loyalty ability ``ability`` of ``planeswalker``, CR 606)
            (priority); ``"attack_with"``, ``"attack_player"``,
            ``"attack_planeswalker"`` (``planeswalker``, controlled by
            ``player``, CR 506.3), ``"block_with"``, ``"block"`` (combat); ``"target"``, ``"number"``, ``"discard"``, ``"cost"``,
            ``"choice"`` (other decisions).
        card: name of the card it casts, plays, discards or pays with.
        player: absolute seat it targets or attacks.
        creature: uid of the creature it attacks or blocks with, blocks, or targets.
        stack: uid of the stack object it targets.
        x: X of an unveil, a number, or the index of a choice.
        ability: index of an identity ability, or the token kind for ``"token"``.
        talk: for ``kind == "talk"`` (a table-talk message, TR10.5), the
            message kind (``"claim"``, ``"accuse"``, ``"defend"``,
            ``"threaten"``, ``"protect"``, ``"request"``, ``"offer"``);
            ``player`` is the seat it is about and ``role`` the role it names.
            ``kind == "accept"`` accepts the truce ``player`` offered (a
            ``"deal"`` decision, whose ``"pass"`` rejects it).
        role: the role a claim or accusation names.
        planeswalker: uid of the planeswalker it attacks, targets or activates.
    """

    action: int
    text: str
    kind: str
    card: str | None = None
    player: int | None = None
    creature: int | None = None
    stack: int | None = None
    x: int | None = None
    ability: "int | str | None" = None
    talk: str | None = None
    role: Role | None = None
    planeswalker: int | None = None


@dataclass(frozen=True)
class DecisionView:
    """The viewer's pending decision: ``kind`` (a ``DecisionKind.NAMES`` entry),
    ``prompt`` in words, one :class:`OptionView` per legal action, and
    ``creature``: the uid of the viewer's own creature the decision is about
    (the attacker whose defending player, or the blocker whose attacker, is
    being chosen; CR 508.1, 509.1), else None."""

    kind: str
    prompt: str
    options: tuple
    creature: "int | None" = None

    def actions(self) -> list[int]:
        """The legal action indices."""
        return [o.action for o in self.options]


def _option_view(game: "Game", d: Any, action: int, payload: Any) -> OptionView:
    text = game.describe_action(action)
    p = game.players[d.seat]
    kind = d.kind
    if action == game.layout.CONCEDE:
        return OptionView(action, text, "concede")
    if payload is None or (kind == DecisionKind.MULLIGAN and payload == "keep"):
        return OptionView(action, text, "pass")
    if kind == DecisionKind.MULLIGAN:
        return OptionView(action, text, "mulligan")
    if kind == DecisionKind.BOTTOM:
        return OptionView(action, text, "bottom", card=p.hand[payload].name)
    if kind == DecisionKind.PRIORITY:
        what, arg = payload
        if what == "talk":
            talk, subject, role = arg
            return OptionView(action, text, "talk", player=subject, talk=talk,
                              role=None if role is None else Role(role))
        if what in ("land", "cast"):
            return OptionView(action, text, what, card=p.hand[arg].name)
        if what == "commander":
            return OptionView(action, text, what, card=p.commander.name)
        if what == "unveil":
            return OptionView(action, text, what, x=arg)
        if what == "identity_ability":
            return OptionView(action, text, what, ability=arg)
        if what == "token":
            return OptionView(action, text, what, ability=arg)
        if what == "permission":
            return OptionView(action, text, what, card=p.permissions[arg]["card"].name)
        if what == "loyalty":
            w = p.attackables[arg[0]]
            return OptionView(action, text, what, card=w.name, ability=arg[1], planeswalker=w.uid)
    if kind == DecisionKind.DEAL:
        return OptionView(action, text, "accept", player=d.ctx[0])
    if kind == DecisionKind.ATTACKER:
        return OptionView(action, text, "attack_with", creature=payload.uid)
    if kind == DecisionKind.DEFENDER:
        if not isinstance(payload, int):
            return OptionView(action, text, "attack_planeswalker", player=payload.controller, planeswalker=payload.uid)
        return OptionView(action, text, "attack_player", player=payload)
    if kind == DecisionKind.BLOCKER:
        return OptionView(action, text, "block_with", creature=payload.uid)
    if kind == DecisionKind.BLOCKED:
        return OptionView(action, text, "block", creature=payload.uid, player=payload.controller)
    if kind == DecisionKind.NUMBER and isinstance(payload, int):
        return OptionView(action, text, "number", x=payload)
    if kind in (DecisionKind.DISCARD, DecisionKind.COST) and isinstance(payload, int):
        return OptionView(action, text, "discard" if kind == DecisionKind.DISCARD else "cost",
                          card=p.hand[payload].name)
    if isinstance(payload, tuple) and len(payload) == 2 and payload[0] in ("p", "c", "s", "w"):
        t, obj = payload
        if t == "p":
            return OptionView(action, text, "target", player=obj)
        if t == "c":
            return OptionView(action, text, "target", creature=obj.uid, player=obj.controller)
        if t == "w":
            return OptionView(action, text, "target", planeswalker=obj.uid, player=obj.controller)
        return OptionView(action, text, "target", stack=obj.uid)
    if hasattr(payload, "base_power"):
        return OptionView(action, text, "cost" if kind == DecisionKind.COST else "choice", creature=payload.uid,
                          player=payload.controller)
    L = game.layout
    return OptionView(action, text, "choice", x=action - L.CHOICE if action >= L.CHOICE else None)


@dataclass(frozen=True)
class TalkView:
    """What was said at the table (TR10.5), all public; seats are absolute.

    Attributes:
        mode: ``GameConfig.talk`` ("structured" or "none"); limit: messages
            per player per turn (``GameConfig.talk_limit``).
        messages: every :class:`~treachery_env.engine.talk.TalkMessage` so
            far, in order (answers to truce offers included).
        claims: seat -> its latest claim message (``.role`` is the claimed role).
        stances: ``(speaker, subject)`` -> the latest accuse/defend message.
        intents: ``(speaker, subject)`` -> the latest threaten/protect message.
        requests: seat -> its latest "don't attack me" message.
        deals: the standing truces (:class:`~treachery_env.engine.talk.Deal`).
        broken: ``(breaker, victim)`` -> turn a truce ended broken by ``breaker``.
        hurt_at_start: per seat, harm + attacks it had received from others
            as this turn began (opens the reaction window).
    """

    mode: str
    limit: int
    messages: tuple
    claims: dict
    stances: dict
    intents: dict
    requests: dict
    deals: tuple
    broken: dict
    hurt_at_start: tuple

    def said_this_turn(self, seat: int, turn: int) -> int:
        """How many messages ``seat`` said in ``turn`` (counted against the limit)."""
        k = 0
        for m in reversed(self.messages):
            if m.turn != turn:
                break
            k += m.speaker == seat and m.kind not in ("accept", "reject")
        return k

    def has_deal(self, a: int, b: int) -> bool:
        """Whether a truce between seats ``a`` and ``b`` stands."""
        return any(d.involves(a, b) for d in self.deals)


def _talk_view(game: "Game") -> TalkView:
    t = game.talk
    return TalkView(game.config.talk, game.config.talk_limit, tuple(t.messages), dict(t.claims), dict(t.stances),
                    dict(t.intents), dict(t.requests), tuple(t.deals), dict(t.broken), tuple(t.hurt_at_start))


@dataclass(frozen=True)
class SeatView:
    """Read-only snapshot of one seat's information set (``info["view"]``).

    Attributes:
        seat: the viewer.  turn, phase, active: public turn state.
        players: :class:`PlayerView` by absolute seat.
        harm, attacks: public history by absolute seats, ``harm[i][j]`` = damage
            and life loss seat i caused to seat j (and j's creatures),
            ``attacks[i][j]`` = creatures i attacked j with.
        me: ``players[seat]`` (with ``hand``).
        stack: :class:`StackView`, bottom first.
        undercover_met: whether the viewer's Undercover condition holds.
        dream: cards the viewer may look at in its face-down exile (Oneiromancer).
        decision: the viewer's pending :class:`DecisionView`, else None.
        events: log entries visible to the viewer this turn and the previous one.
        priority_windows: the table's public rule for priority windows
            (:attr:`GameConfig.priority_windows`, "full" or "main").
        role_counts: the identity deck's cards per role, indexed by
            :class:`Role` value (Leader, Guardian, Assassin, Traitor); public
            (TR2.3), whatever deck was dealt (CR 907.3b, ``role_counts``, TR11).
        talk: what was said at the table (:class:`TalkView`, public).
    """

    seat: int
    turn: int
    phase: str
    active: int
    players: tuple
    stack: tuple
    harm: tuple
    attacks: tuple
    undercover_met: bool
    dream: tuple
    decision: "DecisionView | None"
    events: tuple
    priority_windows: str = "full"
    role_counts: tuple = ()
    talk: "TalkView | None" = None

    @property
    def me(self) -> PlayerView:
        """The viewer's own :class:`PlayerView` (with its hand)."""
        return self.players[self.seat]

    def opponents(self) -> list[int]:
        """Seats still in the game other than the viewer."""
        return [p.seat for p in self.players if p.in_game and p.seat != self.seat]


def _creature_view(game: "Game", c: Any) -> CreatureView:
    return CreatureView(c.uid, c.name, c.power, c.toughness, c.damage, c.tapped,
                        c.entered_turn >= game.turn and not c.has("haste"), c.base_keywords | c.pump_kw,
                        c.attacking, None if c.blocking is None else c.blocking.uid, c.p1p1, c.stun, c.token,
                        c.is_commander, None if c.attacking_obj is None else c.attacking_obj.uid)


def _planeswalker_view(game: "Game", w: Any) -> PlaneswalkerView:
    abilities = () if w.card is None else tuple((ab["loyalty"], ab["text"]) for ab in w.card.abilities)
    attackers = tuple(a.uid for a in game.combat_attackers if a.attacking_obj is w)
    return PlaneswalkerView(w.uid, w.name, w.kind, w.owner, w.controller, w.loyalty, w.used_turn == game.turn,
                            abilities, attackers)


def _target_view(t: Any) -> tuple:
    if t is None:
        return ("none", -1)
    kind, obj = t
    if kind == "p":
        return ("player", obj)
    return ({"c": "creature", "w": "planeswalker"}.get(kind, "stack"), obj.uid)


def seat_view(game: "Game", viewer: int) -> SeatView:
    """Build the :class:`SeatView` of ``viewer`` (same information as :func:`encode`)."""
    players = []
    for p in game.players:
        idc = p.identity
        known = idc.face_up or viewer in idc.known_by
        players.append(PlayerView(
            seat=p.seat, in_game=not p.has_lost, life=p.life, hand_size=len(p.hand),
            hand=tuple(c.name for c in p.hand) if p.seat == viewer else None,
            library_size=len(p.library), graveyard=tuple(c.name for c in p.graveyard),
            exile=tuple(c.name for c in p.exile), lands=p.lands, untapped_lands=p.lands - p.lands_tapped,
            tokens=dict(p.tokens), creatures=tuple(_creature_view(game, c) for c in p.creatures),
            face_up=idc.face_up, identity=idc.name if known else None, role=idc.role if known else None,
            identity_counters=dict(idc.counters),
            commander=p.commander.name if p.commander else None, commander_zone=p.commander_zone,
            commander_damage_taken=dict(p.cmd_damage), leader_player=game.is_leader_player(p.seat),
            player_counters=dict(p.counters),
            usable_elsewhere=tuple((q["card"].name, q["zone"], q["free"]) for q in p.permissions)
            if p.seat == viewer else None, mulligans=p.mulligans,
            planeswalkers=tuple(_planeswalker_view(game, w) for w in p.attackables) if p.attackables else ()))
    stack = tuple(StackView(it.uid, it.kind, it.controller, it.source, it.identity_source, it.x,
                            tuple(_target_view(t) for t in it.targets)) for it in game.stack)
    me = game.players[viewer]
    dream = tuple(c.name for _, c in me.identity.data.get("dream", ()))
    d = game.decision
    decision = None
    if d is not None and d.seat == viewer:
        cre = _declared_creature(d, viewer)
        decision = DecisionView(DecisionKind.NAMES[d.kind], d.prompt,
                                tuple(_option_view(game, d, a, pl) for a, pl in d.options),
                                None if cre is None else cre.uid)
    first_turn = game.turn - 1
    events = []
    for e in reversed(game.log):
        if e["turn"] < first_turn:
            break
        if e["to"] is None or viewer in e["to"]:
            events.append(e)
    events.reverse()
    return SeatView(viewer, game.turn, game.phase, game.active, tuple(players), stack,
                    tuple(map(tuple, game.harm)), tuple(map(tuple, game.attacks)),
                    (not me.has_lost) and game.undercover_met(viewer), dream, decision, tuple(events),
                    game.config.priority_windows, game.role_counts, _talk_view(game))


class LazySeatView:
    """A :class:`SeatView` built on first use (``info["view"]``), so that agents
    that read only the vector pay nothing for it.  Attribute access is forwarded
    to the view.  The view must be read before the game moves on.

    Raises:
        RuntimeError: on first use after the game has taken another action.
    """

    __slots__ = ("_game", "_seat", "_stamp", "_view")

    def __init__(self, game: "Game", seat: int):
        self._game = game
        self._seat = seat
        self._stamp = (len(game.actions), len(game.log))
        self._view: SeatView | None = None

    def get(self) -> SeatView:
        """The :class:`SeatView` (built once)."""
        if self._view is None:
            g = self._game
            if (len(g.actions), len(g.log)) != self._stamp:
                raise RuntimeError("stale view: the game has moved on since this info dict was made; "
                                   "read info['view'] before stepping the environment")
            self._view = seat_view(g, self._seat)
            self._game = None
        return self._view

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazySeatView):
            return self.get() == other.get()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazySeatView(seat={self._seat}, built={self._view is not None})"
