# cython: language_level=3, cdivision=True, nonecheck=True
"""The observation vector, compiled: the same function as
:func:`treachery_env.observation.encode_python` (the reference; layout in the
docstring of :mod:`treachery_env.observation`), bit for bit.

It reads the same attributes of the engine's objects, in C: the game, players,
identity cards, creatures, planeswalkers, stack objects and the decision as the
typed C fields of their extension types (``engine/state.pxd``, cimported: the
compiled engine only, see :func:`treachery_env.compiled.compiled_pyx`), the talk
state straight from its ``__slots__`` (``_slots.pxi``), and what the immutable
objects hold (talk messages, cards, identities, keyword sets) once per object; it writes only the nonzero features, through a C pointer, into a
zeroed float32 array, with every number in C.  Each value is computed as the
Python encoder computes it -- in double precision, rounded once to float32 --
so both give the same bytes (``tests/test_observation_compiled.py``).

Built by ``setup.py`` (an optional extension); :mod:`treachery_env.observation`
imports it when it is there and ``TREACHERY_PURE_PYTHON`` is not ``1``.
"""

from cpython.buffer cimport PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from cpython.dict cimport PyDict_Next
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE, PyList_New, PyList_SET_ITEM
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.exc cimport PyErr_Clear, PyErr_Occurred
from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Realloc
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from libc.math cimport pow
from libc.stdint cimport uint64_t
from libc.string cimport memcpy, memset

import numpy as np

from treachery_env.engine.state cimport Attackable, Creature, Decision, GameState, IdentityCard, Player, StackItem

from . import observation as _py
from .engine.talk import TalkState
from .identity_cards.traitors import may_look_at_pile
from .observation import (
    COUNTER_TOKENS,
    KEYWORDS,
    MAX_HAND,
    MAX_OTHER,
    MAX_PERMS,
    MAX_STACK,
    MAX_TARGET_INDEX,
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

__all__ = ["encode", "encode_sparse", "action_mask", "legal_actions", "observation_dict", "slot_reads",
           "talk_kept_counts"]

# the lookup tables of the Python encoder, typed (direct dict access)
cdef dict _CZ = _py._CZ
cdef object _CZ_KEY_COMMAND = "command", _CZ_KEY_BATTLEFIELD = "battlefield"      # the usual zones, by identity
cdef object _CZ_COMMAND = _CZ[_CZ_KEY_COMMAND], _CZ_BATTLEFIELD = _CZ[_CZ_KEY_BATTLEFIELD]
cdef dict _IDENTITY_INDEX = _py._IDENTITY_INDEX
cdef dict _KIND_INDEX = _py._KIND_INDEX
cdef dict _KW_INDEX = _py._KW_INDEX
cdef dict _TALK_KIND_INDEX = _py._TALK_KIND_INDEX
cdef dict _TOK = _py._TOK
cdef dict _WALKER_INDEX = _py._WALKER_INDEX
cdef dict PHASE_INDEX = _py.PHASE_INDEX
cdef dict _PURPOSE_INDEX = _py._PURPOSE_INDEX
cdef dict _TARGET_TYPE_INDEX = _py._TARGET_TYPE_INDEX
cdef dict _ITEM_KINDS = _py._ITEM_KINDS
cdef dict _TOKEN_INDEX = _py._TOKEN_INDEX
cdef dict _CARD_BY_NAME = _py._CARD_BY_NAME
cdef tuple _UNVEIL_COSTS = _py._UNVEIL_COSTS
cdef long C_MAX_TARGET_INDEX = MAX_TARGET_INDEX
cdef long C_N_LOYALTY = _py.N_LOYALTY_ABILITIES

# feature offsets inside the blocks (the same arithmetic as observation.encode_python)
cdef Py_ssize_t C_N_CARDS = N_CARDS
cdef Py_ssize_t C_PF = PLAYER_FEATURES
cdef Py_ssize_t F_ROLE = 16 + len(COUNTER_TOKENS)           # face up, role one-hot, identity one-hot
cdef Py_ssize_t F_COUNTERS = F_ROLE + 5 + N_IDENTITIES       # identity counters .. mulligans
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
cdef long HASTE_BIT = 1 << _KW_INDEX["haste"]
cdef tuple _PLAYER_COUNTERS = tuple(PLAYER_COUNTERS)

_zeros = np.zeros
_float32 = np.dtype(np.float32)          # dtype instances: np.zeros converts them cheaper than the types
_int8 = np.dtype(np.int8)


include "_slots.pxi"       # TalkState (a Python class with __slots__) is read at its slots


# The engine's objects are read as the extension types of engine/state.pxd: a local
# declared ``Player`` (a checked assignment: another type raises TypeError) reads
# ``p.life`` as a C field.  That holds only for the compiled engine: run from source
# (TREACHERY_PURE_PYTHON, or state.py newer than its extension), state.py's classes are
# Python classes with __slots__ and this module must not be used (compiled.compiled_pyx
# checks it first; this import fails as well, and so does Cython's check of the types'
# sizes with a ValueError).
from .compiled import state_compiled

if not state_compiled():
    raise ImportError(f"{__name__}: the engine's state classes are not the compiled extension types "
                      f"(engine/state.py runs from source)")


# ---- what the immutable objects say, decoded once
#
# TalkMessage, CardDef and Identity are frozen dataclasses that every clone of
# a game shares, and keyword sets are frozensets.  The numbers the encoder
# needs from one (a message's turn, speaker, kind, subject and role; a card's
# index; an identity's role and one-hot index; a keyword set's bits) are read
# on first sight and kept in a table keyed by the object's address; the table
# holds a reference to the object, so the address cannot be reused while the
# entry lives.  A full table is emptied.

cdef enum:
    MEMO_VALUES = 5

cdef struct MemoEntry:
    PyObject* key              # a strong reference; NULL: a free slot
    long v[MEMO_VALUES]

cdef struct Memo:
    MemoEntry* e
    Py_ssize_t mask, used, full
    int shift                  # 64 - log2(slots)


cdef int _memo_init(Memo* m, int bits) except -1:
    """An empty table of ``2 ** bits`` slots, emptied at half full."""
    m.e = <MemoEntry*>PyMem_Calloc(<size_t>1 << bits, sizeof(MemoEntry))
    if m.e == NULL:
        raise MemoryError()
    m.mask = (<Py_ssize_t>1 << bits) - 1
    m.used = 0
    m.full = (<Py_ssize_t>1 << bits) // 2
    m.shift = 64 - bits
    return 0


cdef inline Py_ssize_t _memo_slot(Memo* m, PyObject* key):
    """The slot of ``key``, or the free slot where it would go."""
    cdef Py_ssize_t i = <Py_ssize_t>(((<uint64_t><size_t>key >> 4) * <uint64_t>0x9E3779B97F4A7C15) >> m.shift)
    while m.e[i].key != NULL and m.e[i].key != key:
        i = (i + 1) & m.mask
    return i


cdef int _memo_put(Memo* m, object key, long* v) except -1:
    """Keep ``v`` (MEMO_VALUES numbers) for ``key``."""
    cdef Py_ssize_t i
    if m.used >= m.full:
        for i in range(m.mask + 1):
            Py_XDECREF(m.e[i].key)
            m.e[i].key = NULL
        m.used = 0
    i = _memo_slot(m, <PyObject*>key)
    if m.e[i].key == NULL:
        Py_INCREF(key)
        m.e[i].key = <PyObject*>key
        m.used += 1
    memcpy(m.e[i].v, v, sizeof(long) * MEMO_VALUES)
    return 0


cdef inline bint _memo_get(Memo* m, object key, long* v):
    """Copy the numbers kept for ``key`` into ``v``; False if there are none."""
    cdef Py_ssize_t i = _memo_slot(m, <PyObject*>key)
    if m.e[i].key == NULL:
        return False
    memcpy(v, m.e[i].v, sizeof(long) * MEMO_VALUES)
    return True


cdef Memo _messages, _cards, _identities, _kwsets
_memo_init(&_messages, 14)
_memo_init(&_cards, 10)
_memo_init(&_identities, 8)
_memo_init(&_kwsets, 10)

cdef long TK_ACCUSE = TALK_KINDS.index("accuse"), TK_DEFEND = TALK_KINDS.index("defend")
cdef long TK_THREATEN = TALK_KINDS.index("threaten"), TK_PROTECT = TALK_KINDS.index("protect")
cdef long TK_ACCEPT = TALK_KINDS.index("accept"), TK_REJECT = TALK_KINDS.index("reject")
cdef long STANCE_ACCUSE = _py._STANCE["accuse"], STANCE_DEFEND = _py._STANCE["defend"]
cdef long INTENT_THREATEN = _py._INTENT["threaten"], INTENT_PROTECT = _py._INTENT["protect"]


cdef int _message(object m, long* v) except -1:
    """``v = [turn, speaker, kind, subject, role]`` of a TalkMessage: the kind as its index in
    TALK_KINDS (-1 for another), subject and role -1 when None."""
    if _memo_get(&_messages, m, v):
        return 0
    v[0] = m.turn
    v[1] = m.speaker
    x = _TALK_KIND_INDEX.get(m.kind)
    v[2] = -1 if x is None else <long>x
    x = m.subject
    v[3] = -1 if x is None else <long>x
    x = m.role
    v[4] = -1 if x is None else <long>x
    return _memo_put(&_messages, m, v)


cdef inline long _card_index(object c) except? -1:
    """``c.index`` of a CardDef."""
    cdef long v[MEMO_VALUES]
    if not _memo_get(&_cards, c, v):
        v[0] = c.index
        _memo_put(&_cards, c, v)
    return v[0]


cdef int _identity(object card, long* v) except -1:
    """``v = [role, one-hot index]`` of an Identity (the index -1 for a card with only a role)."""
    if _memo_get(&_identities, card, v):
        return 0
    v[0] = card.role
    x = _IDENTITY_INDEX.get(card.name)
    v[1] = -1 if x is None else <long>x
    return _memo_put(&_identities, card, v)


cdef Py_ssize_t TS_MESSAGES = _attr(TalkState, "messages"), TS_CLAIMS = _attr(TalkState, "claims")
cdef Py_ssize_t TS_STANCES = _attr(TalkState, "stances"), TS_INTENTS = _attr(TalkState, "intents")
cdef Py_ssize_t TS_REQUESTS = _attr(TalkState, "requests"), TS_DEALS = _attr(TalkState, "deals")
cdef Py_ssize_t TS_BROKEN = _attr(TalkState, "broken")


cdef class _Offsets:
    """The block offsets of :class:`~treachery_env.observation.ObsLayout` for one table size, as C ints."""

    cdef Py_ssize_t n, size, glob, players, history, creatures, cf, walkers, hand, stack, sf, dream, other
    cdef Py_ssize_t context, talk, talk_pairs, talk_last
    cdef object cx                # the fields of the own decision context (observation._ContextOffsets)


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
    off.cx = L.ctx
    off.talk = L.talk
    off.talk_pairs = L.talk_pairs
    off.talk_last = L.talk_last
    _offsets[n] = off
    return off


cdef dict _kw_masks = {}       # keyword set -> its bits, by value (a clone's sets are new objects)


cdef long _kw_mask(object kws) except -1:
    """Bit ``KEYWORDS.index(kw)`` set for every keyword in ``kws`` (kept per frozenset)."""
    cdef bint frozen = type(kws) is frozenset
    cdef long v[MEMO_VALUES]
    if frozen and _memo_get(&_kwsets, kws, v):
        return v[0]
    bits = _kw_masks.get(kws) if frozen else None
    if bits is None:
        v[0] = 0
        for kw in kws:
            v[0] |= 1 << <long>_KW_INDEX[kw]
        if frozen:
            _kw_masks[kws] = v[0]
    else:
        v[0] = bits
    if frozen:
        _memo_put(&_kwsets, kws, v)
    return v[0]


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


cdef Py_ssize_t _walker_slot(list players, Attackable w) except -2:
    """Slot of attackable permanent ``w`` among its controller's (-1 if gone or beyond the slots)."""
    cdef Py_ssize_t k = 0
    cdef Player ctrl = players[w.controller]
    for x in ctrl.attackables:
        if x is w:
            return k if k < C_MAX_WALKERS else -1
        k += 1
    return -1


cdef enum:
    N_ZERO_DICTS = 64

cdef uint64_t _zero_dicts[N_ZERO_DICTS]      # version tags of token dicts seen with every value the int 0
cdef object _last_config = None              # the last GameConfig seen (frozen) and its max_turns
cdef long _last_max_turns = 0


cdef long _max_turns(object config) except? -1:
    """``config.max_turns`` as a long (kept for the last config: GameConfig is frozen)."""
    global _last_config, _last_max_turns
    if config is not _last_config or config is None:
        _last_max_turns = <long>config.max_turns
        _last_config = config
    return _last_max_turns


cdef object _ZERO = 0          # the int 0 (CPython's cached small int: the usual value of a count)


cdef long _dict_max(dict d) except? -1:
    """``max(d.values())`` of a non-empty dict of ints, as a long (the values compared in C
    when all are ints that fit; else by ``max``)."""
    cdef PyObject* key
    cdef PyObject* val
    cdef Py_ssize_t pos = 0
    cdef long best = 0, v
    cdef int overflow
    cdef bint first = True
    while PyDict_Next(d, &pos, &key, &val):
        if not _long_exact(val):
            return max(d.values())
        v = _as_long_overflow(val, &overflow)
        if overflow:
            return max(d.values())
        if first or v > best:
            best = v
            first = False
    if first:
        return max(d.values())        # empty: max's ValueError
    return best


cdef long _dict_sum(dict d) except? -1:
    """``sum(d.values())`` of a dict of ints, as a long (added in C when all are ints below 2**40; else by ``sum``)."""
    cdef PyObject* key
    cdef PyObject* val
    cdef Py_ssize_t pos = 0
    cdef long total = 0, v
    cdef int overflow
    while PyDict_Next(d, &pos, &key, &val):
        if not _long_exact(val):
            return sum(d.values())
        v = _as_long_overflow(val, &overflow)
        if overflow or v > (<long>1 << 40) or v < -(<long>1 << 40):
            return sum(d.values())
        total += v
    return total


def encode(GameState game not None, int viewer):
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
    _check_classes()
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


# The dense scratch row encode_sparse_rows writes each observation into (zero between calls);
# grown to the largest layout asked for.
cdef float* _scratch = NULL
cdef Py_ssize_t _scratch_size = 0
_int32 = np.int32
_empty = np.empty


cdef int _grow_scratch(Py_ssize_t size) except -1:
    global _scratch, _scratch_size
    cdef float* row
    if size <= _scratch_size:
        return 0
    row = <float*>PyMem_Calloc(size, sizeof(float))
    if row == NULL:
        raise MemoryError()
    PyMem_Free(_scratch)
    _scratch, _scratch_size = row, size
    return 0


def encode_sparse(GameState game not None, int viewer):
    """The nonzero features of ``viewer``'s observation vector (compiled; the
    same indices and bytes as :func:`treachery_env.observation.encode_sparse_python`):
    what :func:`encode` gives, without the dense array; :func:`encode_sparse_rows` of
    one row.

    Args:
        game: a :class:`treachery_env.engine.Game`.
        viewer: the observing seat, ``0 <= viewer < game.n``.

    Returns:
        ``(cols, vals)``: int32 ``(k,)`` ascending feature indices and float32
        ``(k,)`` their values (fresh arrays), ``k`` the vector's nonzeros.

    Raises:
        IndexError: as :func:`encode`.
    """
    _, cols, vals = encode_sparse_rows([game], [viewer])
    return cols, vals


# The rows encode_sparse_rows gathers (indices and values, one row after another), grown as needed.
cdef int* _rows_cols = NULL
cdef float* _rows_vals = NULL
cdef Py_ssize_t _rows_cap = 0
_int64 = np.int64


cdef int _grow_rows(Py_ssize_t need) except -1:
    global _rows_cols, _rows_vals, _rows_cap
    cdef Py_ssize_t cap = _rows_cap
    cdef int* cols
    cdef float* vals
    if need <= cap:
        return 0
    while cap < need:
        cap = max(2 * cap, 1 << 16)
    cols = <int*>PyMem_Realloc(_rows_cols, cap * sizeof(int))
    if cols == NULL:
        raise MemoryError()
    _rows_cols = cols
    vals = <float*>PyMem_Realloc(_rows_vals, cap * sizeof(float))
    if vals == NULL:
        raise MemoryError()
    _rows_vals, _rows_cap = vals, cap
    return 0


def encode_sparse_rows(list games not None, list viewers not None):
    """The nonzero features of several observations at once (compiled; row ``b`` the
    nonzeros of :func:`encode` of ``games[b]``, ``viewers[b]``, the same indices and bytes as
    :func:`treachery_env.observation.encode_sparse_rows_python`), gathered into three arrays:
    what a batch of a network that reads :class:`agents.networks.SparseObs` needs
    (:class:`training.rollout.Collector`).  Each observation is written into a dense scratch
    row kept by this module (zero between calls, so no fresh zeroed array per row), read
    back in index order into a growing row buffer, and zeroed again.

    Args:
        games: ``B`` :class:`treachery_env.engine.Game` (any table sizes).
        viewers: the observing seat of each, ``0 <= viewers[b] < games[b].n``.

    Returns:
        ``(nnz, cols, vals)``: int64 ``(B,)`` the nonzeros of each row, int32 ``(M,)``
        their ascending feature indices row after row and float32 ``(M,)`` their values,
        ``M = nnz.sum()`` (fresh arrays).

    Raises:
        ValueError: when the lists differ in length.
        IndexError: as :func:`encode`, for a seat outside its table.
    """
    _check_classes()
    cdef Py_ssize_t B = len(games), b, i, k, m = 0
    cdef long n, viewer
    cdef _Offsets L
    cdef Out out
    cdef GameState game
    cdef Py_buffer nb, cb, vb
    if len(viewers) != B:
        raise ValueError(f"{B} games and {len(viewers)} viewers")
    nnz = _empty(B, _int64)
    PyObject_GetBuffer(nnz, &nb, PyBUF_WRITABLE)
    try:
        for b in range(B):
            game = games[b]
            viewer = viewers[b]
            n = game.n
            L = _offsets_for(n)
            _grow_scratch(L.size)
            _grow_rows(m + L.size)
            out.o = _scratch
            out.size = L.size
            try:
                _encode(&out, L, game, viewer, n)
                k = m
                for i in range(L.size):
                    if _scratch[i] != 0:
                        _rows_cols[k] = <int>i
                        _rows_vals[k] = _scratch[i]
                        k += 1
            finally:
                memset(_scratch, 0, L.size * sizeof(float))
            (<long long*>nb.buf)[b] = k - m
            m = k
    finally:
        PyBuffer_Release(&nb)
    cols = _empty(m, _int32)
    vals = _empty(m, _float32)
    PyObject_GetBuffer(cols, &cb, PyBUF_WRITABLE)
    try:
        memcpy(cb.buf, _rows_cols, m * sizeof(int))
    finally:
        PyBuffer_Release(&cb)
    PyObject_GetBuffer(vals, &vb, PyBUF_WRITABLE)
    try:
        memcpy(vb.buf, _rows_vals, m * sizeof(float))
    finally:
        PyBuffer_Release(&vb)
    return nnz, cols, vals

cdef int _mark(char* m, object options, Py_ssize_t size) except -1:
    """``m[action] = 1`` for every ``(action, payload)`` of ``options`` (a bytearray's index
    rules: negative from the end, IndexError outside); a list of (int, payload) pairs is read in place."""
    cdef Py_ssize_t a, i, k
    cdef PyObject* item
    cdef PyObject* x
    cdef int overflow
    if type(options) is not list:
        for action, _ in options:
            _mark_one(m, action, size)
        return 0
    k = PyList_GET_SIZE(options)
    for i in range(k):
        item = PyList_GET_ITEM(options, i)
        if _tuple_exact(item) and _tuple_size(item) == 2:
            x = _tuple_item(item, 0)
            if _long_exact(x):
                a = _as_long_overflow(x, &overflow)
                if not overflow:
                    if a < 0:
                        a += size
                    if a < 0 or a >= size:
                        raise IndexError("bytearray index out of range")
                    m[a] = 1
                    continue
        action, _ = <object>item
        _mark_one(m, action, size)
    return 0


cdef inline int _mark_one(char* m, object action, Py_ssize_t size) except -1:
    cdef Py_ssize_t a = action
    if a < 0:
        a += size
    if a < 0 or a >= size:
        raise IndexError("bytearray index out of range")
    m[a] = 1
    return 0


def action_mask(object options, Py_ssize_t size):
    """The legal-action mask of a decision's ``options`` (``(action, payload)``
    pairs) in an action space of ``size`` (compiled; the same array as
    :func:`treachery_env.observation.action_mask_python`).

    Returns:
        A fresh int8 array of shape ``(size,)``, 1 at every option's action.

    Raises:
        IndexError: for an action outside ``[-size, size)`` (as a bytearray's index).
    """
    cdef Py_buffer buf
    arr = _zeros(size, _int8)
    PyObject_GetBuffer(arr, &buf, PyBUF_WRITABLE)
    try:
        _mark(<char*>buf.buf, options, size)
    finally:
        PyBuffer_Release(&buf)
    return arr


def legal_actions(object options):
    """The actions of a decision's ``options`` (``(action, payload)`` pairs), ascending: a new
    list (compiled; the same list as :func:`treachery_env.observation.legal_actions_python`).
    A list of (int, payload) pairs is read in place and sorted only when it is not in order."""
    cdef Py_ssize_t i, k
    cdef PyObject* item
    cdef long prev = 0, cur
    cdef int overflow
    cdef bint ordered = True
    if type(options) is not list:
        return _py.legal_actions_python(options)
    k = PyList_GET_SIZE(options)
    for i in range(k):
        item = PyList_GET_ITEM(options, i)
        if not (_tuple_exact(item) and _tuple_size(item) == 2 and _long_exact(_tuple_item(item, 0))):
            return _py.legal_actions_python(options)
    out = PyList_New(k)
    for i in range(k):
        a = <object>_tuple_item(PyList_GET_ITEM(options, i), 0)
        Py_INCREF(a)
        PyList_SET_ITEM(out, i, a)
        cur = _as_long_overflow(<PyObject*>a, &overflow)
        if overflow or (i > 0 and cur < prev):
            ordered = False
        prev = cur
    if not ordered:
        out.sort()
    return out


def observation_dict(GameState game not None, int seat):
    """``{"observation": encode(game, seat), "action_mask": ...}``: the mask of the decision's
    options when ``seat`` is deciding, else all zeros (compiled; what
    :func:`treachery_env.observation.observation_dict_python` gives)."""
    cdef Decision d = game.decision
    cdef Py_buffer buf
    size = game.layout.size
    mask = _zeros(size, _int8)
    if d is not None and d.seat == seat:
        PyObject_GetBuffer(mask, &buf, PyBUF_WRITABLE)
        try:
            _mark(<char*>buf.buf, d.options, <Py_ssize_t>size)
        finally:
            PyBuffer_Release(&buf)
    return {"observation": encode(game, seat), "action_mask": mask}


cdef int _encode(Out* out, _Offsets L, GameState game, long viewer, long n) except -1:
    """Write every block of ``viewer``'s observation into ``out`` (zeroed)."""
    cdef list players = game.players
    if viewer < 0 or viewer >= n:
        raise IndexError(f"viewer {viewer} is outside the table of {n}")
    cdef Player me = players[viewer]
    cdef Decision d = game.decision
    cdef bint mine = d is not None and d.seat == viewer
    cdef long turn = game.turn
    cdef Py_ssize_t g, b, k, q, q2, cb, r, s, slot, i, j, ri, rj, depth, m, nst
    cdef long v, best, role
    cdef long idv[MEMO_VALUES]
    cdef list stack = game.stack
    cdef Player p
    cdef IdentityCard idc
    cdef StackItem it
    cdef list creatures
    cdef bint up, lost, nz, dream
    cdef PyObject* hx
    cdef list xl
    cdef dict xd
    cdef uint64_t tv
    # ---- global
    g = L.glob
    put(out, g + <long>PHASE_INDEX[game.phase], 1.0)
    g += C_N_PHASES
    if mine:
        put(out, g + d.kind, 1.0)
    g += C_N_DECISIONS
    put(out, g, <double>turn / <double>_max_turns(game.config))
    put(out, g + 1, len(stack) / 10.0)
    g += 2
    put(out, g + rel(game.active, viewer, n), 1.0)
    g += n
    if not me.has_lost:
        put(out, g, 1.0 if game.undercover_met(viewer) else 0.0)
    put(out, g + 1, 1.0 if me.land_played else 0.0)
    # ---- players (only nonzero features are written)
    shields = game.shields
    shields = {sh["seat"] for sh in shields} if shields else None
    attacked = game.leader_attacked_by
    cdef bint no_attacked = type(attacked) is set and not attacked
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
        lost = p.has_lost
        if not lost:
            put(out, b, 1.0)
        put(out, b + 1, p.life / 40.0)
        put(out, b + 2, len(p.hand) / 10.0)
        put(out, b + 3, len(p.library) / 100.0)
        xl = p.graveyard
        if xl:
            put(out, b + 4, len(xl) / 20.0)
        xl = p.exile
        if xl:
            put(out, b + 5, len(xl) / 20.0)
        data = idc.data
        dream = False if type(data) is dict and not data else "dream" in data
        if dream:
            put(out, b + 6, len(data["dream"]) / 10.0)
        v = p.lands
        put(out, b + 7, v / 10.0)
        put(out, b + 8, (v - p.lands_tapped) / 10.0)
        creatures = p.creatures
        if creatures:
            put(out, b + 9, len(creatures) / 10.0)
        if p.commander is not None:
            x = p.commander_zone
            czo = (_CZ_COMMAND if x is _CZ_KEY_COMMAND else _CZ_BATTLEFIELD if x is _CZ_KEY_BATTLEFIELD
                   else _CZ.get(x))
            if czo is not None:
                put(out, b + <long>czo, 1.0)
            put(out, b + 13, p.commander_casts / 5.0)
        xd = p.cmd_damage
        if xd:
            best = _dict_max(xd)
            put(out, b + 14, best / 21.0)
        v = p.mana_pool
        if v:
            put(out, b + 15, v / 10.0)
        xd = p.tokens
        tv = obs_dict_version(xd) if xd is not None else 0
        if tv == 0 or _zero_dicts[tv & (N_ZERO_DICTS - 1)] != tv:
            nz = False                               # a value other than the int 0 seen
            pos = 0
            while PyDict_Next(xd, &pos, &key, &val):
                if val == <PyObject*>_ZERO:
                    continue
                nz = True
                v = <object>val
                if v:
                    put(out, b + <long>_TOK[<object>key], v / 5.0)
            if not nz and tv != 0:
                _zero_dicts[tv & (N_ZERO_DICTS - 1)] = tv
        k = b + F_ROLE
        _identity(idc.copy_of or idc.identity, idv)
        ro = idc.role_override
        role = idv[0] if ro is None else <long>ro
        if up or viewer in idc.known_by:
            if up:
                put(out, k, 1.0)
            put(out, k + 1 + role, 1.0)
            if idv[1] >= 0:                         # simple-roles cards have only a role
                put(out, k + 5 + idv[1], 1.0)
        k = b + F_COUNTERS
        xd = idc.counters
        if xd:
            put(out, k, _dict_sum(xd) / 10.0)
        if up and role == 0 and not lost:
            put(out, k + 1, 1.0)
        if not no_attacked and s in attacked:
            put(out, k + 2, 1.0)
        if shields is not None and s in shields:
            put(out, k + 3, 1.0)
        xd = p.counters
        if xd:
            for j in range(N_PLAYER_COUNTERS):
                y = xd.get(_PLAYER_COUNTERS[j])
                if y:
                    put(out, k + 4 + j, <long>y / 10.0)
        xl = p.permissions
        if xl:
            put(out, k + 4 + N_PLAYER_COUNTERS, len(xl) / 4.0)
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
        if s == viewer and up and dream and may_look_at_pile(idc, s):    # CR 314.4b, 607
            for entry in data["dream"]:
                add(out, L.dream + _card_index(entry[1]), 0.25)
    # ---- public history: harm and attacks between seats (relative rows and columns)
    cdef Py_ssize_t hb = L.history, nn = n * n
    harm, attacks = game.harm, game.attacks
    for ri in range(n):
        i = (viewer + ri) % n
        hi = harm[i]
        ai = attacks[i]
        if (type(hi) is list and PyList_GET_SIZE(hi) >= n and type(ai) is list
                and PyList_GET_SIZE(ai) >= n):       # read in place; the usual 0 skipped unconverted
            for rj in range(n):
                j = (viewer + rj) % n
                hx = PyList_GET_ITEM(hi, j)
                if hx != <PyObject*>_ZERO:
                    v = <object>hx
                    if v:
                        put(out, hb + ri * n + rj, v / 40.0)
                hx = PyList_GET_ITEM(ai, j)
                if hx != <PyObject*>_ZERO:
                    v = <object>hx
                    if v:
                        put(out, hb + nn + ri * n + rj, v / 10.0)
            continue
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
        put(out, L.other + i * C_N_CARDS + _card_index(perm["card"]), 1.0)
        i += 1
    # ---- own hand
    i = 0
    for c in me.hand:
        if i >= C_MAX_HAND:
            break
        put(out, L.hand + i * C_N_CARDS + _card_index(c), 1.0)
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
            put(out, q2 + 2 + _card_index(c), 1.0)
        put(out, q2 + 2 + C_N_CARDS, it.x / 10.0)
        for t in it.targets:
            if t is not None and t[0] == "p":
                put(out, q2 + 3 + C_N_CARDS + rel(t[1], viewer, n), 1.0)
    # ---- own decision context
    if mine:
        _encode_context(out, L, game, viewer, n, d, me)
    # ---- table talk (public)
    if game.talk_on:
        t = game.talk
        if get(t, TS_MESSAGES):
            _encode_talk_kept(out, L, game, t, viewer, n, turn)
    return 0


cdef int _encode_context(Out* out, _Offsets L, GameState game, long viewer, long n, Decision d,
                         Player me) except -1:
    """Write the own decision context (``observation._encode_context``)."""
    c = L.cx
    cdef Py_ssize_t slot, depth, nst
    cdef long k, amount
    cdef StackItem item
    cdef Creature cre
    cdef Player owner
    handler = d.handler
    ctx = d.ctx
    if handler == "_h_call":
        purpose = ctx[0]
        data = ctx[1]
    else:
        purpose = "_h_cost_card:" + ctx[1] if handler == "_h_cost_card" else handler
        data = ctx
    ix = _PURPOSE_INDEX.get(purpose)
    if ix is not None:
        put(out, c.purpose + <long>ix, 1.0)
    if isinstance(data, StackItem):
        item = data
    elif isinstance(data, tuple) and data and isinstance(data[0], StackItem):
        item = data[0]
    else:
        item = game.resolving
    card = None
    cre = d.declared_creature(viewer)
    if cre is not None:
        card = cre.card
    cdef list stack = game.stack
    cdef list players = game.players
    if item is not None:
        ix = _ITEM_KINDS.get(item.kind)
        if ix is not None:
            put(out, c.item_kind + <long>ix, 1.0)
        onstack = False
        for x in stack:
            if x is item:
                onstack = True
                break
        if onstack:
            put(out, c.stage + 1, 1.0)
        elif item is game.resolving:
            put(out, c.stage + 2, 1.0)
        else:
            put(out, c.stage, 1.0)
        src = item.source
        if item.identity_source:
            put(out, c.flags, 1.0)
            ix = _IDENTITY_INDEX.get(src)
            if ix is not None:
                put(out, c.identity + <long>ix, 1.0)
        else:
            if item.kind == "ability":
                ix = _TOKEN_INDEX.get(item.key)
                if ix is not None:
                    put(out, c.token + <long>ix, 1.0)
            card = item.card
            ic = item.creature
            if card is None and ic is not None:
                card = (<Creature?>ic).card
            if card is None:
                card = _CARD_BY_NAME.get(src)
        if item.is_copy:
            put(out, c.flags + 1, 1.0)
        if item.key == "loyalty":
            k = item.data.get("ability", -1)
            if 0 <= k < C_N_LOYALTY:
                put(out, c.loyalty + k, 1.0)
        k = item.x
        if k:
            put(out, c.x, k / 10.0)
        if cre is None and item.creature is not None:
            cre = item.creature
        nst = len(stack)
        for t in item.targets:
            if t is None:
                continue
            tk = t[0]
            obj = t[1]
            if tk == "p":
                put(out, c.chosen_players + rel(obj, viewer, n), 1.0)
            elif tk == "c":
                ctrl = (<Creature?>obj).controller
                owner = players[ctrl]
                slot = 0
                for x in owner.creatures:
                    if slot >= C_MAX_PERMS:
                        break
                    if x is obj:
                        put(out, c.chosen_creatures + rel(ctrl, viewer, n) * C_MAX_PERMS + slot, 1.0)
                        break
                    slot += 1
            elif tk == "w":
                slot = _walker_slot(players, obj)
                if slot >= 0:
                    put(out, c.chosen_walkers + rel((<Attackable?>obj).controller, viewer, n) * C_MAX_WALKERS
                        + slot, 1.0)
            else:
                for depth in range(nst if nst < C_MAX_STACK else C_MAX_STACK):
                    if stack[nst - 1 - depth] is obj:
                        put(out, c.chosen_stack + depth, 1.0)
                        break
        spec = None
        if handler == "_h_target":
            spec = ctx[1]
            k = len(item.targets)
        elif purpose == "_retarget_set":
            k = data[1]
            spec = item.target_specs[k]
        if spec is not None:
            put(out, c.target_index + (k if k < C_MAX_TARGET_INDEX - 1 else C_MAX_TARGET_INDEX - 1), 1.0)
            ix = _TARGET_TYPE_INDEX.get(spec["type"])
            if ix is not None:
                put(out, c.target_type + <long>ix, 1.0)
            if spec.get("min", 1) == 0 or (spec.get("_more", False) and not spec.get("exact")):
                put(out, c.optional, 1.0)
    elif handler in _UNVEIL_COSTS:       # paying the own unveil cost: the own identity is the source
        ix = _IDENTITY_INDEX.get(me.identity.name)
        if ix is not None:
            put(out, c.identity + <long>ix, 1.0)
    if card is not None:
        put(out, c.card + _card_index(card), 1.0)
    if cre is not None:
        slot = 0
        for x in me.creatures:
            if slot >= C_MAX_PERMS:
                break
            if x is cre:
                put(out, c.creature + slot, 1.0)
                break
            slot += 1
    if handler == "_h_discard":
        amount = ctx[1]
    elif handler == "_h_head_games":
        amount = ctx[2]
    elif handler == "_h_order_trigger":
        amount = len(ctx[1])
    else:
        amount = 0
    if amount:
        put(out, c.amount, amount / 10.0)
    return 0


cdef int _encode_creature(Out* out, Py_ssize_t q, Creature c, list players, long turn, long viewer,
                          long n) except -1:
    """Write one creature slot at ``q`` (the features of ``observation._creature_chunk``)."""
    cdef long mask = _kw_mask(c.base_keywords)
    pkw = c.pump_kw
    if pkw:
        mask |= _kw_mask(pkw)
    cdef Py_ssize_t q2 = q + 7 + n, ws
    if q < 0 or q2 + 6 + N_KEYWORDS + C_MAX_WALKERS > out.size:       # every index below is inside
        return _encode_creature_checked(out, q, c, players, turn, viewer, n, mask)
    cdef float* o = out.o
    cdef long p1p1 = c.p1p1
    o[q] = 1.0
    o[q + 1] = <float>((c.base_power + p1p1 + c.pump_p) / 10.0)
    o[q + 2] = <float>((c.base_toughness + p1p1 + c.pump_q) / 10.0)
    o[q + 3] = <float>(c.damage / 10.0)
    if c.tapped:
        o[q + 4] = 1.0
    if c.entered_turn >= turn and not (mask & HASTE_BIT):
        o[q + 5] = 1.0
    cdef long att = c.attacking
    if att >= 0:
        o[q + 6] = 1.0
        o[q + 7 + rel(att, viewer, n)] = 1.0
    if c.blocking is not None:
        o[q2] = 1.0
    if c.blocked_by:
        o[q2 + 1] = 1.0
    o[q2 + 2] = <float>(p1p1 / 5.0)
    o[q2 + 3] = <float><double>c.stun
    if c.token:
        o[q2 + 4] = 1.0
    if c.is_commander:
        o[q2 + 5] = 1.0
    cdef unsigned long bits = (<unsigned long>mask) & ((1UL << N_KEYWORDS) - 1)
    while bits:                        # the keywords, lowest bit first
        o[q2 + 6 + _ctzl(bits)] = 1.0
        bits &= bits - 1
    w = c.attacking_obj
    if w is not None:
        ws = _walker_slot(players, w)
        if ws >= 0:                    # below C_MAX_WALKERS
            o[q2 + 6 + N_KEYWORDS + ws] = 1.0
    return 0


cdef int _encode_creature_checked(Out* out, Py_ssize_t q, Creature c, list players, long turn, long viewer,
                                  long n, long mask) except -1:
    """:func:`_encode_creature` with every index checked (a slot that would not fit the vector)."""
    cdef long p1p1 = c.p1p1
    put(out, q, 1.0)
    put(out, q + 1, (c.base_power + p1p1 + c.pump_p) / 10.0)
    put(out, q + 2, (c.base_toughness + p1p1 + c.pump_q) / 10.0)
    put(out, q + 3, c.damage / 10.0)
    if c.tapped:
        put(out, q + 4, 1.0)
    if c.entered_turn >= turn and not (mask & HASTE_BIT):
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
    put(out, q2 + 3, <double>c.stun)
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


cdef tuple _walker_attention(GameState game):
    """``({attackable uid: creatures attacking it}, {uids of attackables targeted on the stack})``."""
    cdef dict attackers = {}
    cdef set targeted = set()
    cdef Creature a
    cdef StackItem it
    for a in game.combat_attackers:
        w = a.attacking_obj
        if w is not None:
            u = (<Attackable?>w).uid
            attackers[u] = attackers.get(u, 0) + 1
    for it in game.stack:
        for t in it.targets:
            if t is not None and t[0] == "w":
                targeted.add((<Attackable?>t[1]).uid)
    return attackers, targeted


cdef int _encode_walkers(Out* out, Py_ssize_t base, list ws, dict attackers, set targeted,
                         long turn) except -1:
    """Write the attackable-permanent slots of one player (``ws``: its attackables) at ``base``."""
    cdef Py_ssize_t slot = 0, q
    cdef Py_ssize_t nk = len(_KIND_INDEX)
    cdef Attackable w
    for w in ws:
        if slot >= C_MAX_WALKERS:
            break
        q = base + slot * C_WF
        put(out, q, 1.0)
        put(out, q + 1 + <long>_KIND_INDEX[w.kind], 1.0)
        card = w.card
        if card is not None:
            ix = _WALKER_INDEX.get(_card_index(card))
            if ix is not None:
                put(out, q + 1 + nk + <long>ix, 1.0)
        q = base + slot * C_WF + W_LOYALTY
        put(out, q, w.loyalty / 10.0)
        if w.used_turn == turn:
            put(out, q + 1, 1.0)
        u = w.uid
        put(out, q + 2, <long>attackers.get(u, 0) / 5.0)
        if u in targeted:
            put(out, q + 3, 1.0)
        if w.owner != w.controller:
            put(out, q + 4, 1.0)
        slot += 1
    return 0


# ---- the talk block, kept per talk state and viewer
#
# The talk block (from L.talk to the end of the vector) is made of the talk
# state only (its messages, claims, requests, stances, intents, truces and
# broken truces), the turn, the viewer, the talk limit and which players left.
# It is kept, per talk state and viewer, with what it was made of, and copied
# again while all of that is the same -- compared, never assumed: the same
# objects (held by the entry, so their addresses are not reused), the message
# list as long as it was with the same last message (messages are only ever
# appended), the same dict version tags (CPython < 3.12: a new number at every
# change of any dict; without them nothing is kept), the same truces, turn,
# viewer, config and players in the game.
#
# When only some of that changed in the same turn -- messages appended, a dict
# changed (a version tag moved), the truces or the players in the game -- the
# kept block is brought up to date instead of made again: each part of the
# block has its own features (claims: a speaker's role columns, requests and
# said-this-turn: one column each, stances, intents, truces and broken truces:
# their columns of a speaker x subject pair, the last message: its own tail),
# and every dict entry writes one feature, which the entry keeps (a snapshot of
# the dict: key, value, the index written).  A changed dict is walked against
# its snapshot: an entry with the same key and value is left, one whose value
# changed has its old feature zeroed and its new one written, new entries at
# the end are written; anything else (a key gone or moved) makes the block
# again.  That holds only for seats inside the table and roles 0-3 (no two
# entries write one feature): a state with any other entry is made again every
# time.  Appended messages add to the said-this-turn counts (the same
# increment each: the float32 sum is the same in any order) when all of them
# are of this turn, and rewrite the last-message tail.

cdef extern from "Python.h":
    # the checks on a borrowed reference, without taking one
    bint _long_exact "PyLong_CheckExact" (PyObject* o)
    long _as_long_overflow "PyLong_AsLongAndOverflow" (PyObject* o, int* overflow)
    long _as_long "PyLong_AsLong" (PyObject* o)
    bint _tuple_exact "PyTuple_CheckExact" (PyObject* o)
    Py_ssize_t _tuple_size "PyTuple_GET_SIZE" (PyObject* o)
    PyObject* _tuple_item "PyTuple_GET_ITEM" (PyObject* o, Py_ssize_t i)

cdef extern from *:
    """
    static inline int treachery_obs_ctz(unsigned long x) {     /* x != 0 */
    #if defined(__GNUC__) || defined(__clang__)
        return __builtin_ctzl(x);
    #else
        int k = 0;
        while (!(x & 1)) { x >>= 1; k++; }
        return k;
    #endif
    }
    static uint64_t treachery_obs_dict_version(PyObject *d) {
    #if PY_VERSION_HEX < 0x030C0000
        return ((PyDictObject *)d)->ma_version_tag;
    #else
        (void)d;
        return 0;
    #endif
    }
    """
    uint64_t obs_dict_version "treachery_obs_dict_version" (object d)
    int _ctzl "treachery_obs_ctz" (unsigned long x)


cdef struct SnapEntry:
    PyObject* key              # strong references
    PyObject* val
    Py_ssize_t idx             # the feature the entry wrote
    long said                  # the turn it fades from (the message's turn, a broken truce's value)


cdef class _Snap:
    """A talk dict's entries, in order, as the kept block was made of them, and the feature each wrote."""

    cdef SnapEntry* e
    cdef Py_ssize_t k, cap

    def __dealloc__(self):
        self.clear()
        PyMem_Free(self.e)

    cdef void clear(self):
        cdef Py_ssize_t i
        cdef PyObject* x
        cdef PyObject* y
        for i in range(self.k):
            x, y = self.e[i].key, self.e[i].val
            self.e[i].key = NULL
            self.e[i].val = NULL
            Py_XDECREF(x)
            Py_XDECREF(y)
        self.k = 0

    cdef int push(self, PyObject* key, PyObject* val, Py_ssize_t idx, long said) except -1:
        cdef SnapEntry* grown
        cdef Py_ssize_t cap
        if self.k == self.cap:
            cap = 2 * self.cap if self.cap else 16
            grown = <SnapEntry*>PyMem_Realloc(self.e, <size_t>cap * sizeof(SnapEntry))
            if grown == NULL:
                raise MemoryError()
            self.e, self.cap = grown, cap
        Py_INCREF(<object>key)
        Py_INCREF(<object>val)
        self.e[self.k].key = key
        self.e[self.k].val = val
        self.e[self.k].idx = idx
        self.e[self.k].said = said
        self.k += 1
        return 0


cdef enum:
    K_CLAIMS, K_REQUESTS, K_STANCES, K_INTENTS, K_BROKEN


cdef class _TalkKept:
    """One kept talk block and what it was made of."""

    cdef object talk, config, messages, last
    cdef tuple deals
    cdef object claims, requests, stances, intents, broken
    cdef uint64_t v_claims, v_requests, v_stances, v_intents, v_broken
    cdef Py_ssize_t n_messages, start, count
    cdef long turn, viewer, n
    cdef uint64_t lost
    cdef float* block
    cdef bint incremental      # every dict entry is in the snapshots (seats in the table, roles 0-3)
    cdef _Snap s_claims, s_requests, s_stances, s_intents, s_broken

    def __cinit__(self):
        self.s_claims, self.s_requests, self.s_stances = _Snap(), _Snap(), _Snap()
        self.s_intents, self.s_broken = _Snap(), _Snap()

    def __dealloc__(self):
        PyMem_Free(self.block)

    cdef void clear(self):
        self.incremental = False
        self.s_claims.clear()
        self.s_requests.clear()
        self.s_stances.clear()
        self.s_intents.clear()
        self.s_broken.clear()


cdef enum:
    N_TALK_KEPT = 64

cdef object _talk_kept = [None] * N_TALK_KEPT     # direct-mapped by talk state address and viewer
cdef Py_ssize_t _talk_copied = 0, _talk_updated = 0, _talk_made = 0


def talk_kept_counts():
    """``(copied, brought up to date, made)``: how the kept talk blocks were used since the
    import (the blocks copied unchanged, those brought up to date, those made again)."""
    return _talk_copied, _talk_updated, _talk_made


cdef uint64_t _lost_mask(list players, long n) except? 0xFFFFFFFFFFFFFFFF:
    """Bit ``s`` set for each seat ``s`` (below 64) that left the game; all bits for a larger table."""
    cdef uint64_t m = 0
    cdef long s
    cdef Player p
    if n > 64:
        return <uint64_t>0xFFFFFFFFFFFFFFFE         # never equal to a kept mask: nothing is kept
    for s in range(n):
        p = players[s]
        if p.has_lost:
            m |= (<uint64_t>1) << s
    return m


cdef bint _same_deals(tuple kept, object deals):
    """Whether the list ``deals`` holds the objects of ``kept``, in order."""
    cdef Py_ssize_t i, k = PyTuple_GET_SIZE(kept)
    if type(deals) is not list or PyList_GET_SIZE(deals) != k:
        return False
    for i in range(k):
        if PyList_GET_ITEM(deals, i) != PyTuple_GET_ITEM(kept, i):
            return False
    return True


cdef inline long _seat_key(PyObject* key, long n):
    """``key`` as a seat when it is an int from 0 to n - 1, else -1."""
    cdef long s
    if not _long_exact(key):
        return -1
    s = _as_long(key)
    if s == -1 and PyErr_Occurred():
        PyErr_Clear()
        return -1
    return s if 0 <= s < n else -1


cdef Py_ssize_t _talk_entry(int kind, PyObject* key, PyObject* val, _Offsets L, long viewer, long n,
                            long* said) except -2:
    """The feature one entry of talk dict ``kind`` writes, and in ``said`` the turn it fades from
    (the value :func:`_encode_talk` writes is ``fade(turn, said, n)``), or -1 for an entry the snapshots do not hold (a seat
    outside the table, a role outside 0-3, an unknown kind, a key that is not an int or a pair of ints)."""
    cdef long m[MEMO_VALUES]
    cdef long a, b, k
    cdef object v
    if kind == K_CLAIMS or kind == K_REQUESTS:
        a = _seat_key(key, n)
        if a < 0:
            return -1
        _message(<object>val, m)
        if kind == K_CLAIMS:
            if m[4] < 0 or m[4] >= 4:
                return -1
            k = m[4]
        else:
            k = 4
        said[0] = m[0]
        return L.talk + rel(a, viewer, n) * C_TSF + k
    if not _tuple_exact(key) or _tuple_size(key) != 2:
        return -1
    a = _seat_key(_tuple_item(key, 0), n)
    b = _seat_key(_tuple_item(key, 1), n)
    if a < 0 or b < 0:
        return -1
    if kind == K_BROKEN:
        if not _long_exact(val):
            return -1
        said[0] = <long><object>val
        k = 8
    else:
        _message(<object>val, m)
        if kind == K_STANCES:
            if m[2] == TK_ACCUSE:
                if m[4] < 0 or m[4] >= 4:
                    return -1
                k = STANCE_ACCUSE + m[4]
            elif m[2] == TK_DEFEND:
                k = STANCE_DEFEND
            else:
                return -1
        elif m[2] == TK_THREATEN:
            k = INTENT_THREATEN
        elif m[2] == TK_PROTECT:
            k = INTENT_PROTECT
        else:
            return -1
        said[0] = m[0]
    return L.talk_pairs + (rel(a, viewer, n) * n + rel(b, viewer, n)) * C_TPF + k


cdef int _talk_diff(Out* out, object d, _Snap s, int kind, _Offsets L, long viewer, long n, long turn) except -1:
    """Bring the features of talk dict ``d`` (of ``kind``) in ``out`` from its snapshot ``s`` to
    its entries now, and the snapshot with them: 0, or 1 when that cannot be done (a key gone or
    moved, an entry the snapshots do not hold) and the block must be made again."""
    cdef PyObject* key
    cdef PyObject* val
    cdef PyObject* old
    cdef Py_ssize_t pos = 0, i = 0, idx
    cdef long said
    cdef SnapEntry* se
    while PyDict_Next(d, &pos, &key, &val):
        if i < s.k:
            se = &s.e[i]
            if se.key != key:
                return 1
            if se.val != val:
                idx = _talk_entry(kind, key, val, L, viewer, n, &said)
                if idx < 0:
                    return 1
                out.o[se.idx] = 0
                put(out, idx, fade(turn, said, n))
                old = se.val
                Py_INCREF(<object>val)
                se.val = val
                se.idx = idx
                se.said = said
                Py_XDECREF(old)
        else:
            idx = _talk_entry(kind, key, val, L, viewer, n, &said)
            if idx < 0:
                return 1
            put(out, idx, fade(turn, said, n))
            s.push(key, val, idx, said)
        i += 1
    return 0 if i == s.k else 1


cdef int _write_deals(Out* out, _Offsets L, GameState game, object deals, long viewer, long n) except -1:
    """Write the standing truces (both directions) of the players still in the game."""
    cdef Py_ssize_t pb = L.talk_pairs, a, b
    cdef list players = game.players
    cdef Player pd, pp
    for deal in deals:
        dealer, partner = deal.dealer, deal.partner
        pd = players[dealer]
        if pd.has_lost:
            continue
        pp = players[partner]
        if pp.has_lost:
            continue
        a = rel(dealer, viewer, n)
        b = rel(partner, viewer, n)
        put(out, pb + (a * n + b) * C_TPF + 7, 1.0)
        put(out, pb + (b * n + a) * C_TPF + 7, 1.0)
    return 0


cdef int _write_last(Out* out, _Offsets L, object last, long viewer, long n) except -1:
    """Write the last message's features (speaker, kind, subject, role)."""
    cdef long m[MEMO_VALUES]
    _message(last, m)
    cdef Py_ssize_t q = L.talk_last
    put(out, q + rel(m[1], viewer, n), 1.0)
    q += n
    if m[2] < 0:
        raise KeyError(last.kind)
    put(out, q + m[2], 1.0)
    q += N_TALK_KINDS
    if m[3] >= 0:
        put(out, q + rel(m[3], viewer, n), 1.0)
    q += n
    if m[4] >= 0:
        put(out, q + m[4], 1.0)
    return 0


cdef int _refade(Out* out, _Snap s, long n, long turn) except -1:
    """Write again the features of the entries of snapshot ``s`` with their fading at ``turn``."""
    cdef Py_ssize_t i
    for i in range(s.k):
        out.o[s.e[i].idx] = <float>fade(turn, s.e[i].said, n)
    return 0


cdef int _count_said(Out* out, _Offsets L, object messages, long viewer, long n, long turn, double per) except -1:
    """Add ``per`` to the said-this-turn feature of each speaker of the messages of ``turn`` at the
    end of ``messages`` (answers to truce offers not counted)."""
    cdef long m[MEMO_VALUES]
    cdef Py_ssize_t k
    for k in range(len(messages) - 1, -1, -1):
        _message(messages[k], m)
        if m[0] != turn:
            break
        if m[2] != TK_ACCEPT and m[2] != TK_REJECT:
            add(out, L.talk + rel(m[1], viewer, n) * C_TSF + 5, per)
    return 0


cdef int _talk_update(Out* out, _Offsets L, GameState game, object t, _TalkKept e, long viewer, long n,
                      long turn, object messages, Py_ssize_t nm, object deals, uint64_t lost,
                      uint64_t v_claims, uint64_t v_requests, uint64_t v_stances, uint64_t v_intents,
                      uint64_t v_broken) except -1:
    """Bring the kept block, copied into ``out``, up to the talk state now (see above): 0, or 1
    when the block must be made again (``out``'s talk block and ``e``'s snapshots are then spoilt)."""
    cdef long m[MEMO_VALUES]
    cdef Py_ssize_t k, i, last_end = L.talk_last + 2 * n + N_TALK_KINDS + 4
    cdef double per
    cdef bint new_turn = turn != e.turn, recount = new_turn
    if last_end > e.start + e.count:
        return 1
    if new_turn:                       # every entry fades at the new turn
        if (_refade(out, e.s_claims, n, turn)
                or _refade(out, e.s_requests, n, turn)
                or _refade(out, e.s_stances, n, turn)
                or _refade(out, e.s_intents, n, turn)
                or _refade(out, e.s_broken, n, turn)):
            return 1
    if e.v_claims != v_claims and _talk_diff(out, e.claims, e.s_claims, K_CLAIMS, L, viewer, n, turn):
        return 1
    if e.v_requests != v_requests and _talk_diff(out, e.requests, e.s_requests, K_REQUESTS, L, viewer, n, turn):
        return 1
    if e.v_stances != v_stances and _talk_diff(out, e.stances, e.s_stances, K_STANCES, L, viewer, n, turn):
        return 1
    if e.v_intents != v_intents and _talk_diff(out, e.intents, e.s_intents, K_INTENTS, L, viewer, n, turn):
        return 1
    if e.v_broken != v_broken and _talk_diff(out, e.broken, e.s_broken, K_BROKEN, L, viewer, n, turn):
        return 1
    if nm != e.n_messages or recount:
        per = 1.0 / <long>game.config.talk_limit
    if nm != e.n_messages and not recount:    # appended messages all of this turn: added to the counts
        for k in range(e.n_messages, nm):
            _message(<object>PyList_GET_ITEM(messages, k), m)
            if m[0] != turn:
                recount = True
                break
            if m[2] != TK_ACCEPT and m[2] != TK_REJECT:
                add(out, L.talk + rel(m[1], viewer, n) * C_TSF + 5, per)
    if recount:                        # counted again
        for i in range(n):
            out.o[L.talk + i * C_TSF + 5] = 0
        _count_said(out, L, messages, viewer, n, turn, per)
    if nm != e.n_messages:             # the last message
        memset(out.o + L.talk_last, 0, sizeof(float) * (last_end - L.talk_last))
        _write_last(out, L, <object>PyList_GET_ITEM(messages, nm - 1), viewer, n)
    if lost != e.lost or not _same_deals(e.deals, deals):
        for i in range(n * n):
            out.o[L.talk_pairs + i * C_TPF + 7] = 0
        _write_deals(out, L, game, deals, viewer, n)
    return 0


cdef int _encode_talk_kept(Out* out, _Offsets L, GameState game, object t, long viewer, long n, long turn) except -1:
    """Write the talk block of ``viewer`` (:func:`_encode_talk`), copied from the kept one while it is
    the same, or brought up to date from it."""
    global _talk_copied, _talk_updated, _talk_made
    cdef _TalkKept e
    cdef Py_ssize_t start = L.talk, count = L.size - L.talk, slot
    cdef uint64_t v_claims, v_requests, v_stances, v_intents, v_broken, lost
    cdef int r
    if count <= 0 or start + count > out.size:
        return _encode_talk(out, L, game, t, viewer, n, turn, None)
    claims, requests, stances = get(t, TS_CLAIMS), get(t, TS_REQUESTS), get(t, TS_STANCES)
    intents, broken, messages, deals = get(t, TS_INTENTS), get(t, TS_BROKEN), get(t, TS_MESSAGES), get(t, TS_DEALS)
    if (type(claims) is not dict or type(requests) is not dict or type(stances) is not dict
            or type(intents) is not dict or type(broken) is not dict or type(messages) is not list):
        return _encode_talk(out, L, game, t, viewer, n, turn, None)
    v_claims, v_requests, v_stances = obs_dict_version(claims), obs_dict_version(requests), obs_dict_version(stances)
    v_intents, v_broken = obs_dict_version(intents), obs_dict_version(broken)
    if v_claims == 0 or v_requests == 0 or v_stances == 0 or v_intents == 0 or v_broken == 0:
        return _encode_talk(out, L, game, t, viewer, n, turn, None)
    config = game.config
    lost = _lost_mask(game.players, n)
    slot = <Py_ssize_t>(((<uint64_t><size_t><PyObject*>t >> 4) * <uint64_t>0x9E3779B97F4A7C15
                         + <uint64_t>viewer) % N_TALK_KEPT)
    kept = _talk_kept[slot]
    cdef Py_ssize_t nm = PyList_GET_SIZE(messages)
    if kept is not None:
        e = <_TalkKept>kept
        if (e.talk is t and e.viewer == viewer and e.n == n and e.config is config
                and e.start == start and e.count == count and e.messages is messages and nm > 0
                and e.claims is claims and e.requests is requests and e.stances is stances
                and e.intents is intents and e.broken is broken):
            if (e.turn == turn and e.lost == lost and e.n_messages == nm and PyList_GET_ITEM(messages, nm - 1) == <PyObject*>e.last
                    and e.v_claims == v_claims and e.v_requests == v_requests and e.v_stances == v_stances
                    and e.v_intents == v_intents and e.v_broken == v_broken and _same_deals(e.deals, deals)):
                memcpy(out.o + start, e.block, sizeof(float) * count)
                _talk_copied += 1
                return 0
            if (e.incremental and nm >= e.n_messages > 0
                    and PyList_GET_ITEM(messages, e.n_messages - 1) == <PyObject*>e.last):
                memcpy(out.o + start, e.block, sizeof(float) * count)
                e.talk = None          # spoilt until brought up to date
                try:
                    r = _talk_update(out, L, game, t, e, viewer, n, turn, messages, nm, deals, lost,
                                     v_claims, v_requests, v_stances, v_intents, v_broken)
                except Exception:      # made again below, which raises what the encoder raises
                    r = 1
                if r == 0:
                    memcpy(e.block, out.o + start, sizeof(float) * count)
                    e.turn = turn
                    _keep(e, t, config, messages, nm, deals, lost, v_claims, v_requests, v_stances, v_intents,
                          v_broken)
                    _talk_updated += 1
                    return 0
                memset(out.o + start, 0, sizeof(float) * count)
    if kept is None or (<_TalkKept>kept).count != count:
        e = _TalkKept()
        e.block = <float*>PyMem_Calloc(<size_t>count, sizeof(float))
        if e.block == NULL:
            raise MemoryError()
        _talk_kept[slot] = e
    else:
        e = <_TalkKept>kept
    e.talk = None                      # spoilt until made
    _encode_talk(out, L, game, t, viewer, n, turn, e)
    _talk_made += 1
    memcpy(e.block, out.o + start, sizeof(float) * count)
    e.claims, e.requests, e.stances, e.intents, e.broken = claims, requests, stances, intents, broken
    e.start, e.count = start, count
    e.turn, e.viewer, e.n = turn, viewer, n
    _keep(e, t, config, messages, nm, deals, lost, v_claims, v_requests, v_stances, v_intents, v_broken)
    return 0


cdef int _keep(_TalkKept e, object t, object config, object messages, Py_ssize_t nm, object deals, uint64_t lost,
               uint64_t v_claims, uint64_t v_requests, uint64_t v_stances, uint64_t v_intents,
               uint64_t v_broken) except -1:
    """Record in ``e`` the state its block is now made of (the dicts, turn, viewer and sizes set by the caller)."""
    e.talk, e.config, e.messages = t, config, messages
    e.last = <object>PyList_GET_ITEM(messages, nm - 1) if nm > 0 else None
    e.deals = tuple(deals) if type(deals) is list else ()
    e.v_claims, e.v_requests, e.v_stances, e.v_intents, e.v_broken = v_claims, v_requests, v_stances, v_intents, v_broken
    e.n_messages = nm
    e.lost = lost
    return 0


cdef inline bint _snapshot_entry(Out* out, _TalkKept e, _Snap snap, int kind, PyObject* key, PyObject* val,
                                 _Offsets L, long viewer, long n, long turn) except -1:
    """Write talk dict entry ``key: val`` of ``kind`` as its snapshot in ``snap`` says (:func:`_talk_entry`)
    and record it there: True; False where the snapshots cannot follow it (``e`` no longer
    incremental: the caller writes the entry as without ``e``)."""
    cdef long said
    cdef Py_ssize_t i = _talk_entry(kind, key, val, L, viewer, n, &said)
    if i < 0:
        e.incremental = False
        return False
    put(out, i, fade(turn, said, n))
    snap.push(key, val, i, said)
    return True


cdef int _encode_talk(Out* out, _Offsets L, GameState game, object t, long viewer, long n, long turn,
                      _TalkKept e) except -1:
    """Write the talk block of ``viewer`` (see the docstring of :mod:`treachery_env.observation`);
    with ``e``, record each dict entry in its snapshots (``e.incremental``: all of them are)."""
    cdef Py_ssize_t tb = L.talk, pb = L.talk_pairs, q, a, b, k
    cdef long m[MEMO_VALUES]
    cdef PyObject* key
    cdef PyObject* val
    cdef Py_ssize_t pos = 0
    cdef bint rec = e is not None
    if rec:
        e.clear()
        e.incremental = True
    while PyDict_Next(get(t, TS_CLAIMS), &pos, &key, &val):
        if rec and _snapshot_entry(out, e, e.s_claims, K_CLAIMS, key, val, L, viewer, n, turn):
            continue
        _message(<object>val, m)
        put(out, tb + rel(<object>key, viewer, n) * C_TSF + _role(m), fade(turn, m[0], n))
    pos = 0
    while PyDict_Next(get(t, TS_REQUESTS), &pos, &key, &val):
        if rec and _snapshot_entry(out, e, e.s_requests, K_REQUESTS, key, val, L, viewer, n, turn):
            continue
        _message(<object>val, m)
        put(out, tb + rel(<object>key, viewer, n) * C_TSF + 4, fade(turn, m[0], n))
    messages = get(t, TS_MESSAGES)
    _count_said(out, L, messages, viewer, n, turn, 1.0 / <long>game.config.talk_limit)
    pos = 0
    while PyDict_Next(get(t, TS_STANCES), &pos, &key, &val):
        if rec and _snapshot_entry(out, e, e.s_stances, K_STANCES, key, val, L, viewer, n, turn):
            continue
        v = <object>val
        _message(v, m)
        if m[2] == TK_ACCUSE:
            k = STANCE_ACCUSE + _role(m)
        elif m[2] == TK_DEFEND:
            k = STANCE_DEFEND
        else:
            raise KeyError(v.kind)
        pair = <object>key
        put(out, pb + (rel(pair[0], viewer, n) * n + rel(pair[1], viewer, n)) * C_TPF + k, fade(turn, m[0], n))
    pos = 0
    while PyDict_Next(get(t, TS_INTENTS), &pos, &key, &val):
        if rec and _snapshot_entry(out, e, e.s_intents, K_INTENTS, key, val, L, viewer, n, turn):
            continue
        v = <object>val
        _message(v, m)
        if m[2] == TK_THREATEN:
            k = INTENT_THREATEN
        elif m[2] == TK_PROTECT:
            k = INTENT_PROTECT
        else:
            raise KeyError(v.kind)
        pair = <object>key
        put(out, pb + (rel(pair[0], viewer, n) * n + rel(pair[1], viewer, n)) * C_TPF + k, fade(turn, m[0], n))
    _write_deals(out, L, game, get(t, TS_DEALS), viewer, n)
    pos = 0
    while PyDict_Next(get(t, TS_BROKEN), &pos, &key, &val):
        if rec and _snapshot_entry(out, e, e.s_broken, K_BROKEN, key, val, L, viewer, n, turn):
            continue
        pair = <object>key
        put(out, pb + (rel(pair[0], viewer, n) * n + rel(pair[1], viewer, n)) * C_TPF + 8,
            fade(turn, <object>val, n))
    _write_last(out, L, messages[len(messages) - 1], viewer, n)
    return 0


cdef inline long _role(long* m) except -1:
    """The role a decoded message names (a TypeError without one, as ``int(None)``)."""
    if m[4] < 0:
        raise TypeError("the message names no role")
    return m[4]
