# cython: language_level=3, cdivision=True
"""The observation vector, compiled: the same function as
:func:`treachery_env.observation.encode_python` (the reference; layout in the
docstring of :mod:`treachery_env.observation`), bit for bit.

It reads the engine's objects through the same attributes, writes only the
nonzero features into a zeroed float32 array through a C pointer, and keeps
every number in C (no Python floats).  Every value is computed as the Python
encoder computes it -- in double precision, then rounded once to float32 -- so
both give the same bytes (``tests/test_observation_compiled.py``).

Built by ``setup.py`` (an optional extension); :mod:`treachery_env.observation`
imports it when it is there and ``TREACHERY_PURE_PYTHON`` is not ``1``.
"""

from cpython.buffer cimport PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.dict cimport PyDict_Next
from cpython.object cimport PyObject
from libc.math cimport pow
from libc.stdint cimport uint64_t

import numpy as np

from . import observation as _py
from .observation import (
    COUNTER_TOKENS,
    KEYWORDS,
    MAX_HAND,
    MAX_OTHER,
    MAX_PERMS,
    MAX_STACK,
    MAX_WALKERS,
    N_CARDS,
    N_DECISIONS,
    N_IDENTITIES,
    N_PHASES,
    PLAYER_COUNTERS,
    PLAYER_FEATURES,
    TALK_KINDS,
    TALK_PAIR_FEATURES,
    TALK_SPEAKER_FEATURES,
    WALKER_CARDS,
    WALKER_FEATURES,
    obs_layout,
)

__all__ = ["encode"]

# the lookup tables of the Python encoder, typed (direct dict access)
cdef dict _CZ = _py._CZ
cdef dict _IDENTITY_INDEX = _py._IDENTITY_INDEX
cdef dict _INTENT = _py._INTENT
cdef dict _KIND_INDEX = _py._KIND_INDEX
cdef dict _KW_INDEX = _py._KW_INDEX
cdef dict _STANCE = _py._STANCE
cdef dict _TALK_KIND_INDEX = _py._TALK_KIND_INDEX
cdef dict _TOK = _py._TOK
cdef dict _WALKER_INDEX = _py._WALKER_INDEX
cdef dict PHASE_INDEX = _py.PHASE_INDEX

# feature offsets inside the blocks (the same arithmetic as observation.encode_python)
cdef Py_ssize_t C_N_CARDS = N_CARDS
cdef Py_ssize_t C_PF = PLAYER_FEATURES
cdef Py_ssize_t P_ROLE = 16 + len(COUNTER_TOKENS)           # face up, role one-hot, identity one-hot
cdef Py_ssize_t P_COUNTERS = P_ROLE + 5 + N_IDENTITIES       # identity counters .. mulligans
cdef Py_ssize_t N_PLAYER_COUNTERS = len(PLAYER_COUNTERS)
cdef Py_ssize_t N_KEYWORDS = len(KEYWORDS)
cdef Py_ssize_t C_MAX_PERMS = MAX_PERMS
cdef Py_ssize_t C_MAX_WALKERS = MAX_WALKERS
cdef Py_ssize_t C_MAX_HAND = MAX_HAND
cdef Py_ssize_t C_MAX_OTHER = MAX_OTHER
cdef Py_ssize_t C_MAX_STACK = MAX_STACK
cdef Py_ssize_t C_WF = WALKER_FEATURES
cdef Py_ssize_t W_LOYALTY = 1 + len(_KIND_INDEX) + len(WALKER_CARDS)
cdef Py_ssize_t C_N_PHASES = N_PHASES
cdef Py_ssize_t C_N_DECISIONS = N_DECISIONS
cdef Py_ssize_t C_TSF = TALK_SPEAKER_FEATURES
cdef Py_ssize_t C_TPF = TALK_PAIR_FEATURES
cdef Py_ssize_t N_TALK_KINDS = len(TALK_KINDS)
cdef Py_ssize_t STANCE_DEFEND = _STANCE["defend"]
cdef long HASTE_BIT = 1 << _KW_INDEX["haste"]
cdef tuple _PLAYER_COUNTERS = tuple(PLAYER_COUNTERS)

_zeros = np.zeros
_float32 = np.float32


cdef class _Offsets:
    """The block offsets of :class:`~treachery_env.observation.ObsLayout` for one table size, as C ints."""

    cdef Py_ssize_t n, size, glob, players, history, creatures, cf, walkers, hand, stack, sf, dream, other
    cdef Py_ssize_t context, talk, talk_pairs, talk_last


cdef dict _offsets = {}


cdef _Offsets _offsets_for(Py_ssize_t n):
    """The (cached) offsets for ``n`` players, read from :func:`obs_layout`."""
    cdef _Offsets off = _offsets.get(n)
    if off is not None:
        return off
    L = obs_layout(n)
    off = _Offsets()
    off.n = n
    off.size = L.size
    off.glob = L.glob
    off.players = L.players
    off.history = L.history
    off.creatures = L.creatures
    off.cf = L.creature_features
    off.walkers = L.walkers
    off.hand = L.hand
    off.stack = L.stack
    off.sf = L.stack_features
    off.dream = L.dream
    off.other = L.other
    off.context = L.context
    off.talk = L.talk
    off.talk_pairs = L.talk_pairs
    off.talk_last = L.talk_last
    _offsets[n] = off
    return off


cdef dict _kw_masks = {}


cdef long _kw_mask(object kws) except -1:
    """Bit ``KEYWORDS.index(kw)`` set for every keyword in the frozenset ``kws`` (cached per set)."""
    m = _kw_masks.get(kws)
    if m is not None:
        return m
    cdef long bits = 0
    for kw in kws:
        bits |= 1 << <long>_KW_INDEX[kw]
    _kw_masks[kws] = bits
    return bits


cdef struct Out:
    float* o
    Py_ssize_t size


cdef inline int put(Out* out, Py_ssize_t i, double v) except -1:
    """``o[i] = v`` rounded to float32, with the bounds check of ``array('f')``."""
    if i < 0 or i >= out.size:
        raise IndexError("observation index out of range")
    out.o[i] = <float>v
    return 0


cdef inline int add(Out* out, Py_ssize_t i, double v) except -1:
    """``o[i] += v`` as ``array('f')`` does it: the sum in double, rounded to float32."""
    if i < 0 or i >= out.size:
        raise IndexError("observation index out of range")
    out.o[i] = <float>(<double>out.o[i] + v)
    return 0


cdef inline Py_ssize_t rel(long s, long viewer, long n):
    """``(s - viewer) % n`` with Python's sign convention."""
    cdef long r = (s - viewer) % n
    return r + n if r < 0 else r


cdef inline double fade(long turn, long said, long n):
    """``0.5 ** ((turn - said) // n)`` (Python's floor division and float power)."""
    cdef long d = turn - said
    cdef long q = d // n
    if (d % n != 0) and ((d < 0) != (n < 0)):
        q -= 1
    if 0 <= q < 64:
        return 1.0 / <double>((<uint64_t>1) << q)     # exact, as pow is for a power of two
    return pow(0.5, <double>q)


cdef Py_ssize_t _walker_slot(object players, object w) except -2:
    """Slot of attackable permanent ``w`` among its controller's (-1 if gone or beyond the slots)."""
    ws = players[w.controller].attackables
    cdef Py_ssize_t k = 0
    for x in ws:
        if x is w:
            return k if k < C_MAX_WALKERS else -1
        k += 1
    return -1


def encode(object game, int viewer):
    """Observation vector of ``viewer`` in ``game`` (compiled; the same bytes as
    :func:`treachery_env.observation.encode_python`).

    Args:
        game: a :class:`treachery_env.engine.Game`.
        viewer: the observing seat, ``0 <= viewer < game.n``.

    Returns:
        A fresh float32 array of shape ``(obs_layout(game.n).size,)`` (the
        caller may keep it).

    Raises:
        IndexError: for a seat outside the table, or a state whose features
            fall outside their blocks (as the Python encoder does).
    """
    cdef long n = game.n
    cdef _Offsets L = _offsets_for(n)
    arr = _zeros(L.size, _float32)
    cdef Py_buffer buf
    PyObject_GetBuffer(arr, &buf, PyBUF_WRITABLE)
    cdef Out out
    out.o = <float*>buf.buf
    out.size = L.size
    try:
        _encode(&out, L, game, viewer, n)
    finally:
        PyBuffer_Release(&buf)
    return arr


cdef int _encode(Out* out, _Offsets L, object game, long viewer, long n) except -1:
    """Write every block of ``viewer``'s observation into ``out`` (zeroed)."""
    players = game.players
    if viewer < 0 or viewer >= n:
        raise IndexError(f"viewer {viewer} is not a seat of a {n}-player game")
    me = players[viewer]
    d = game.decision
    cdef bint mine = d is not None and d.seat == viewer
    cdef long turn = game.turn
    cdef Py_ssize_t g, b, k, q, q2, cb, r, s, slot, i, j, ri, rj, depth, m, nst
    cdef long v, best
    stack = game.stack
    # ---- global
    g = L.glob
    put(out, g + <long>PHASE_INDEX[game.phase], 1.0)
    g += C_N_PHASES
    if mine:
        put(out, g + <long>d.kind, 1.0)
    g += C_N_DECISIONS
    put(out, g, <double>turn / <double><long>game.config.max_turns)
    put(out, g + 1, len(stack) / 10.0)
    g += 2
    put(out, g + rel(game.active, viewer, n), 1.0)
    g += n
    if not me.has_lost:
        put(out, g, 1.0 if game.undercover_met(viewer) else 0.0)
    put(out, g + 1, 1.0 if me.land_played else 0.0)
    # ---- players (only nonzero features are written)
    shields = {sh["seat"] for sh in game.shields} if game.shields else None
    attacked = game.leader_attacked_by
    cdef Py_ssize_t cf = L.cf
    cdef object attackers = None, targeted = None
    cdef PyObject* key
    cdef PyObject* val
    cdef Py_ssize_t pos
    for r in range(n):
        s = (viewer + r) % n
        p = players[s]
        b = L.players + r * C_PF
        idc = p.identity
        up = idc.face_up
        if not p.has_lost:
            put(out, b, 1.0)
        put(out, b + 1, <long>p.life / 40.0)
        put(out, b + 2, len(p.hand) / 10.0)
        put(out, b + 3, len(p.library) / 100.0)
        x = p.graveyard
        if x:
            put(out, b + 4, len(x) / 20.0)
        x = p.exile
        if x:
            put(out, b + 5, len(x) / 20.0)
        data = idc.data
        if "dream" in data:
            put(out, b + 6, len(data["dream"]) / 10.0)
        v = p.lands
        put(out, b + 7, v / 10.0)
        put(out, b + 8, (v - <long>p.lands_tapped) / 10.0)
        creatures = p.creatures
        if creatures:
            put(out, b + 9, len(creatures) / 10.0)
        if p.commander is not None:
            czo = _CZ.get(p.commander_zone)
            if czo is not None:
                put(out, b + <long>czo, 1.0)
            put(out, b + 13, <long>p.commander_casts / 5.0)
        x = p.cmd_damage
        if x:
            best = max(x.values())
            put(out, b + 14, best / 21.0)
        v = p.mana_pool
        if v:
            put(out, b + 15, v / 10.0)
        tok = p.tokens
        pos = 0
        while PyDict_Next(tok, &pos, &key, &val):
            v = <object>val
            if v:
                put(out, b + <long>_TOK[<object>key], v / 5.0)
        k = b + P_ROLE
        card = idc.copy_of or idc.identity
        ro = idc.role_override
        role = card.role if ro is None else ro
        if up or viewer in idc.known_by:
            if up:
                put(out, k, 1.0)
            put(out, k + 1 + <long>role, 1.0)
            ix = _IDENTITY_INDEX.get(card.name)     # simple-roles cards have only a role
            if ix is not None:
                put(out, k + 5 + <long>ix, 1.0)
        k = b + P_COUNTERS
        x = idc.counters
        if x:
            put(out, k, <long>sum(x.values()) / 10.0)
        if up and role == 0 and not p.has_lost:
            put(out, k + 1, 1.0)
        if s in attacked:
            put(out, k + 2, 1.0)
        if shields is not None and s in shields:
            put(out, k + 3, 1.0)
        x = p.counters
        if x:
            for j in range(N_PLAYER_COUNTERS):
                y = x.get(_PLAYER_COUNTERS[j])
                if y:
                    put(out, k + 4 + j, <long>y / 10.0)
        x = p.permissions
        if x:
            put(out, k + 4 + N_PLAYER_COUNTERS, len(x) / 4.0)
        v = p.mulligans
        if v:
            put(out, k + 5 + N_PLAYER_COUNTERS, v / 3.0)
        # creatures of this player
        cb = L.creatures + r * C_MAX_PERMS * cf
        slot = 0
        for c in creatures:
            if slot >= C_MAX_PERMS:
                break
            _encode_creature(out, cb + slot * cf, c, players, turn, viewer, n)
            slot += 1
        ws = p.attackables
        if ws:
            if attackers is None:
                attackers, targeted = _walker_attention(game)
            _encode_walkers(out, L.walkers + r * C_MAX_WALKERS * C_WF, ws, <dict>attackers, <set>targeted, turn)
        if s == viewer and "dream" in data:
            for entry in data["dream"]:
                add(out, L.dream + <long>entry[1].index, 0.25)
    # ---- public history: harm and attacks between seats (relative rows and columns)
    cdef Py_ssize_t hb = L.history, nn = n * n
    harm, attacks = game.harm, game.attacks
    for ri in range(n):
        i = (viewer + ri) % n
        hi = harm[i]
        ai = attacks[i]
        for rj in range(n):
            j = (viewer + rj) % n
            v = hi[j]
            if v:
                put(out, hb + ri * n + rj, v / 40.0)
            v = ai[j]
            if v:
                put(out, hb + nn + ri * n + rj, v / 10.0)
    # ---- own cards usable from other zones (the OTHER actions)
    i = 0
    for perm in me.permissions:
        if i >= C_MAX_OTHER:
            break
        put(out, L.other + i * C_N_CARDS + <long>perm["card"].index, 1.0)
        i += 1
    # ---- own hand
    i = 0
    for c in me.hand:
        if i >= C_MAX_HAND:
            break
        put(out, L.hand + i * C_N_CARDS + <long>c.index, 1.0)
        i += 1
    # ---- stack, top first
    nst = len(stack)
    m = nst if nst < C_MAX_STACK else C_MAX_STACK
    for depth in range(m):
        it = stack[nst - 1 - depth]
        q = L.stack + depth * L.sf
        put(out, q, 1.0)
        put(out, q + 1 + rel(it.controller, viewer, n), 1.0)
        q2 = q + 1 + n
        if it.kind == "spell":
            put(out, q2, 1.0)
        if it.identity_source:
            put(out, q2 + 1, 1.0)
        c = it.card
        if c is not None:
            put(out, q2 + 2 + <long>c.index, 1.0)
        put(out, q2 + 2 + C_N_CARDS, <long>it.x / 10.0)
        for t in it.targets:
            if t is not None and t[0] == "p":
                put(out, q2 + 3 + C_N_CARDS + rel(t[1], viewer, n), 1.0)
    # ---- own decision context
    if mine:
        ctx = d.ctx
        item = ctx if hasattr(ctx, "card") else (
            ctx[0] if isinstance(ctx, tuple) and ctx and hasattr(ctx[0], "card") else None)
        if item is not None:
            c = getattr(item, "card", None)
            if c is not None:
                put(out, L.context + <long>c.index, 1.0)
        cre = d.declared_creature(viewer)
        if cre is not None:
            slot = 0
            for c in me.creatures:
                if c is cre:
                    if slot < C_MAX_PERMS:
                        put(out, L.context + C_N_CARDS + slot, 1.0)
                    break
                slot += 1
    # ---- table talk (public)
    if game.talk_on:
        t = game.talk
        if t.messages:
            _encode_talk(out, L, game, t, viewer, n, turn)
    return 0


cdef int _encode_creature(Out* out, Py_ssize_t q, object c, object players, long turn, long viewer,
                          long n) except -1:
    """Write one creature slot at ``q`` (the features of ``observation._creature_chunk``)."""
    cdef long mask = _kw_mask(c.base_keywords)
    pkw = c.pump_kw
    if pkw:
        mask |= _kw_mask(pkw)
    cdef long p1p1 = c.p1p1
    put(out, q, 1.0)
    put(out, q + 1, (<long>c.base_power + p1p1 + <long>c.pump_p) / 10.0)
    put(out, q + 2, (<long>c.base_toughness + p1p1 + <long>c.pump_q) / 10.0)
    put(out, q + 3, <long>c.damage / 10.0)
    if c.tapped:
        put(out, q + 4, 1.0)
    if <long>c.entered_turn >= turn and not (mask & HASTE_BIT):
        put(out, q + 5, 1.0)
    cdef long att = c.attacking
    if att >= 0:
        put(out, q + 6, 1.0)
        put(out, q + 7 + rel(att, viewer, n), 1.0)
    cdef Py_ssize_t q2 = q + 7 + n
    if c.blocking is not None:
        put(out, q2, 1.0)
    if c.blocked_by:
        put(out, q2 + 1, 1.0)
    put(out, q2 + 2, p1p1 / 5.0)
    put(out, q2 + 3, <double><long>c.stun)
    if c.token:
        put(out, q2 + 4, 1.0)
    if c.is_commander:
        put(out, q2 + 5, 1.0)
    cdef Py_ssize_t kw
    for kw in range(N_KEYWORDS):
        if mask & (1 << kw):
            put(out, q2 + 6 + kw, 1.0)
    w = c.attacking_obj
    cdef Py_ssize_t ws
    if w is not None:
        ws = _walker_slot(players, w)
        if ws >= 0:
            put(out, q2 + 6 + N_KEYWORDS + ws, 1.0)
    return 0


cdef tuple _walker_attention(object game):
    """``({attackable uid: creatures attacking it}, {uids of attackables targeted on the stack})``."""
    cdef dict attackers = {}
    cdef set targeted = set()
    for a in game.combat_attackers:
        w = a.attacking_obj
        if w is not None:
            u = w.uid
            attackers[u] = attackers.get(u, 0) + 1
    for it in game.stack:
        for t in it.targets:
            if t is not None and t[0] == "w":
                targeted.add(t[1].uid)
    return attackers, targeted


cdef int _encode_walkers(Out* out, Py_ssize_t base, object ws, dict attackers, set targeted,
                         long turn) except -1:
    """Write the attackable-permanent slots of one player (``ws``: its attackables) at ``base``."""
    cdef Py_ssize_t slot = 0, q
    cdef Py_ssize_t nk = len(_KIND_INDEX)
    for w in ws:
        if slot >= C_MAX_WALKERS:
            break
        q = base + slot * C_WF
        put(out, q, 1.0)
        put(out, q + 1 + <long>_KIND_INDEX[w.kind], 1.0)
        card = w.card
        if card is not None:
            ix = _WALKER_INDEX.get(card.index)
            if ix is not None:
                put(out, q + 1 + nk + <long>ix, 1.0)
        q = base + slot * C_WF + W_LOYALTY
        put(out, q, <long>w.loyalty / 10.0)
        if <long>w.used_turn == turn:
            put(out, q + 1, 1.0)
        u = w.uid
        put(out, q + 2, <long>attackers.get(u, 0) / 5.0)
        if u in targeted:
            put(out, q + 3, 1.0)
        if w.owner != w.controller:
            put(out, q + 4, 1.0)
        slot += 1
    return 0


cdef int _encode_talk(Out* out, _Offsets L, object game, object t, long viewer, long n, long turn) except -1:
    """Write the talk block of ``viewer`` (see the docstring of :mod:`treachery_env.observation`)."""
    cdef Py_ssize_t tb = L.talk, pb = L.talk_pairs, q, a, b, k
    cdef PyObject* key
    cdef PyObject* val
    cdef Py_ssize_t pos = 0
    while PyDict_Next(t.claims, &pos, &key, &val):
        m = <object>val
        put(out, tb + rel(<object>key, viewer, n) * C_TSF + <long>m.role, fade(turn, m.turn, n))
    pos = 0
    while PyDict_Next(t.requests, &pos, &key, &val):
        m = <object>val
        put(out, tb + rel(<object>key, viewer, n) * C_TSF + 4, fade(turn, m.turn, n))
    cdef double per = 1.0 / <long>game.config.talk_limit
    messages = t.messages
    for k in range(len(messages) - 1, -1, -1):
        m = messages[k]
        if <long>m.turn != turn:
            break
        kind = m.kind
        if kind != "accept" and kind != "reject":
            add(out, tb + rel(m.speaker, viewer, n) * C_TSF + 5, per)
    pos = 0
    while PyDict_Next(t.stances, &pos, &key, &val):
        m = <object>val
        pair = <object>key
        kind = m.kind
        if kind == "accuse":
            k = <long>_STANCE[kind] + <long>m.role
        else:
            k = <long>_STANCE[kind]
        put(out, pb + (rel(pair[0], viewer, n) * n + rel(pair[1], viewer, n)) * C_TPF + k, fade(turn, m.turn, n))
    pos = 0
    while PyDict_Next(t.intents, &pos, &key, &val):
        m = <object>val
        pair = <object>key
        put(out, pb + (rel(pair[0], viewer, n) * n + rel(pair[1], viewer, n)) * C_TPF + <long>_INTENT[m.kind],
            fade(turn, m.turn, n))
    players = game.players
    for deal in t.deals:
        dealer, partner = deal.dealer, deal.partner
        if players[dealer].has_lost or players[partner].has_lost:
            continue
        a = rel(dealer, viewer, n)
        b = rel(partner, viewer, n)
        put(out, pb + (a * n + b) * C_TPF + 7, 1.0)
        put(out, pb + (b * n + a) * C_TPF + 7, 1.0)
    pos = 0
    while PyDict_Next(t.broken, &pos, &key, &val):
        pair = <object>key
        put(out, pb + (rel(pair[0], viewer, n) * n + rel(pair[1], viewer, n)) * C_TPF + 8,
            fade(turn, <object>val, n))
    m = messages[len(messages) - 1]
    q = L.talk_last
    put(out, q + rel(m.speaker, viewer, n), 1.0)
    q += n
    put(out, q + <long>_TALK_KIND_INDEX[m.kind], 1.0)
    q += N_TALK_KINDS
    subject = m.subject
    if subject is not None:
        put(out, q + rel(subject, viewer, n), 1.0)
    q += n
    role = m.role
    if role is not None:
        put(out, q + <long>role, 1.0)
    return 0
