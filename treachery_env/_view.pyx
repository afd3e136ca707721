# cython: language_level=3, nonecheck=True
"""The seat view, compiled: :class:`ViewBuilder` builds the same
:class:`~treachery_env.view.SeatView` as
:class:`treachery_env.view.PythonViewBuilder` (the reference), equal field by
field and of the same types (``tests/test_view_compiled.py``).

It reads the engine's objects (the game, players, identity cards, creatures,
planeswalkers, the decision) as the extension types of ``engine/state.pxd``,
whose typed C fields it reads directly (it cimports them: locals typed
``Player``, ``Creature``, ...; each assignment to one checks the type), and the
talk state (a plain class) from its ``__slots__`` (``_slots.pxi``); what
immutable objects say (a card's name, an identity's name and role) is read once
per object.  :mod:`treachery_env.view` uses it only when the engine's state
classes are those extension types (``compiled.compiled_pyx``).

Between builds it keeps what it gave and gives it again while what it was
made of is the same -- compared in C, never assumed:

* per player and viewer, the :class:`~treachery_env.view.PlayerView`, while
  the player's and its identity card's fields hold what they held (numbers and
  truth values by value, objects by address against a kept reference to each,
  which keeps the addresses from being reused: :class:`_PlayerRaw`) and its
  parts are the kept ones;
* per player, the names of its hand, graveyard and exile while the lists hold
  the same card objects; its counter mappings while the dict is the same with
  the same version tag (CPython < 3.12) or holds the same items in order; its
  creatures' views while their fields hold the same values in the same turn
  (:class:`_CreatureRaw`),
  and any record whose fields come out equal;
* the rows of the harm and attack tables, the talk view through its parts, the
  events each viewer was given (extended by the entries logged since);
* option views: talk options (the option tuples the engine shares between
  decisions) by object, seat and kind; pass options by kind and action; a few
  others (a player target, a loyalty ability, an identity ability) by what
  their words and fields are made of.

A Throne Magic game's :class:`~treachery_env.view.ThroneView` (a few short tuples) is
made anew at each build by ``view._throne_view``, and the options of its own decisions
by ``view._option_view``; its players have no identity card (``Player.identity`` None).

The commonest option views (attackers, blockers, defenders, creature targets
and choices, cards cast, played, discarded, paid with or put on the bottom,
numbers, unveils, labelled passes and choices, ...) are not kept: they are made
here word for word as ``text.option_text`` and ``view._option_view`` make them
(:func:`_fast_option`, :func:`_fast_labelled`), which costs less than a look-up.

Built by ``setup.py`` (an optional extension); :mod:`treachery_env.view`
uses it when it is there and ``TREACHERY_PURE_PYTHON`` is not ``1``.
"""

cimport cython
from cpython.dict cimport PyDict_GetItem, PyDict_Next, PyDict_SetItem, PyDict_Size, PyDict_Update
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE, PyList_New, PyList_SET_ITEM
from cpython.mem cimport PyMem_Calloc
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.sequence cimport PySequence_Fast_GET_ITEM, PySequence_Fast_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from libc.limits cimport LONG_MIN
from libc.stdint cimport uint64_t

from treachery_env.engine.state cimport Attackable, Creature, Decision, GameState, IdentityCard, Player

from . import view as _py
from .cards import CardDef
from .compiled import state_compiled
from .engine.state import DecisionKind

# state.py's plain classes (run from source): their instances have none of the C fields read here, and Cython's
# check of the cimported types at import may only warn (a larger type), so refuse them here
if not state_compiled():
    raise ImportError(f"{__name__}: the engine's state classes are not the compiled extension types "
                      f"(engine/state.py runs from source)")

from .engine.talk import TalkState
from .identities import Identity
from .identity_cards.traitors import may_look_at_pile
from .view import CreatureView, DecisionView, FrozenDict, OptionView, PlaneswalkerView, PlayerView, SeatView, TalkView

__all__ = ["ViewBuilder", "slot_reads"]

cdef object _EMPTY = _py._EMPTY
cdef object _LEADER = _py._LEADER
cdef dict _SIMPLE_OPTIONS = _py._SIMPLE_OPTIONS
cdef object _NAMES = DecisionKind.NAMES
_option_view = _py._option_view
_stack_view = _py._stack_view
_freeze_event = _py._freeze_event
_names_of = _py._names_of
_throne_view = _py._throne_view
_vanguards_view = _py._vanguards_view
_schemes_view = _py._schemes_view
_planar_view = _py._planar_view
_turn_marks_view = _py._turn_marks_view


include "_slots.pxi"


# ---- the view's own C helpers (records, dict versions)

cdef extern from *:
    """
    /* An instance of the tuple subclass tp (a NamedTuple: no __new__ of its own
       is run, as tuple.__new__(tp, items) does) holding the items of the tuple items. */
    static PyObject *treachery_view_record(PyTypeObject *tp, PyObject *items) {
        Py_ssize_t i, n = PyTuple_GET_SIZE(items);
        PyObject *o = tp->tp_alloc(tp, n);
        if (o == NULL) return NULL;
        for (i = 0; i < n; i++) {
            PyObject *v = PyTuple_GET_ITEM(items, i);
            Py_INCREF(v);
            PyTuple_SET_ITEM(o, i, v);
        }
        return o;
    }

    /* The version tag of dict d (CPython < 3.12: a new number from one global
       counter at every change of any dict, so the same dict with the same tag
       has not changed), or 0 where there is none to read. */
    static uint64_t treachery_view_dict_version(PyObject *d) {
    #if PY_VERSION_HEX < 0x030C0000
        return ((PyDictObject *)d)->ma_version_tag;
    #else
        (void)d;
        return 0;
    #endif
    }

    /* kept (a record of tp) when the n values v are its items (each the same
       object, or an equal one of the same type), else a new record of tp
       holding them; takes the references in v either way.  NULL with an
       exception set if a comparison or the allocation fails. */
    static PyObject *treachery_view_fields(PyTypeObject *tp, PyObject *kept, PyObject **v, Py_ssize_t n) {
        Py_ssize_t i;
        PyObject *o;
        if (Py_TYPE(kept) == tp && PyTuple_GET_SIZE(kept) == n) {
            for (i = 0; i < n; i++) {
                PyObject *a = v[i], *b = PyTuple_GET_ITEM(kept, i);
                if (a != b) {
                    int eq;
                    if (Py_TYPE(a) != Py_TYPE(b)) break;
                    eq = PyObject_RichCompareBool(a, b, Py_EQ);
                    if (eq < 0) goto fail;
                    if (!eq) break;
                }
            }
            if (i == n) {
                for (i = 0; i < n; i++) Py_DECREF(v[i]);
                Py_INCREF(kept);
                return kept;
            }
        }
        o = tp->tp_alloc(tp, n);
        if (o == NULL) goto fail;
        for (i = 0; i < n; i++) PyTuple_SET_ITEM(o, i, v[i]);
        return o;
    fail:
        for (i = 0; i < n; i++) Py_DECREF(v[i]);
        return NULL;
    }
    """
    object record "treachery_view_record" (PyTypeObject* tp, tuple items)
    object fields "treachery_view_fields" (PyTypeObject* tp, object kept, PyObject** v, Py_ssize_t n)
    uint64_t dict_version "treachery_view_dict_version" (object d)


cdef inline object _item(object record, Py_ssize_t i):
    """Item ``i`` of a record (a tuple), read in C."""
    return <object>PyTuple_GET_ITEM(record, i)


cdef inline void _put(PyObject** v, Py_ssize_t i, object o):
    """``v[i] = o``, a new reference (for :func:`fields`)."""
    Py_INCREF(o)
    v[i] = <PyObject*>o


cdef Py_ssize_t TS_MESSAGES = _attr(TalkState, "messages"), TS_CLAIMS = _attr(TalkState, "claims")
cdef Py_ssize_t TS_STANCES = _attr(TalkState, "stances"), TS_INTENTS = _attr(TalkState, "intents")
cdef Py_ssize_t TS_REQUESTS = _attr(TalkState, "requests"), TS_DEALS = _attr(TalkState, "deals")
cdef Py_ssize_t TS_BROKEN = _attr(TalkState, "broken"), TS_HURT_AT_START = _attr(TalkState, "hurt_at_start")


cdef inline object _uid(object o):
    """``o.uid``: a creature's or planeswalker's C field, read directly; ``getattr`` for any other object."""
    if type(o) is Creature:
        return (<Creature>o).uid
    if type(o) is Attackable:
        return (<Attackable>o).uid
    return o.uid


# ---- what the immutable objects say, kept by the object's address
#
# A card's name (CardDef), an identity's (name, role) (Identity) and the view
# of a talk option (the option tuples of engine.talk._talk_table, shared by
# every decision and game) are kept in a table keyed by the object's address,
# with the seat for an option; the table holds a reference to the object, so
# the address cannot be reused while the entry lives.  A full table is emptied.

cdef struct MemoEntry:
    PyObject* key              # a strong reference; NULL: a free slot
    PyObject* value            # a strong reference
    long tag                   # for an option's view, its seat * 64 + decision kind; else 0


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


cdef inline Py_ssize_t _memo_slot(Memo* m, PyObject* key, long tag):
    """The slot of ``(key, tag)``, or the free slot where it would go."""
    cdef Py_ssize_t i = <Py_ssize_t>((((<uint64_t><size_t>key >> 4) + <uint64_t>tag)
                                      * <uint64_t>0x9E3779B97F4A7C15) >> m.shift)
    while m.e[i].key != NULL and (m.e[i].key != key or m.e[i].tag != tag):
        i = (i + 1) & m.mask
    return i


cdef int _memo_put(Memo* m, object key, long tag, object value) except -1:
    """Keep ``value`` for ``(key, tag)``."""
    cdef Py_ssize_t i
    if m.used >= m.full:
        for i in range(m.mask + 1):
            Py_XDECREF(m.e[i].key)
            Py_XDECREF(m.e[i].value)
            m.e[i].key = NULL
            m.e[i].value = NULL
        m.used = 0
    i = _memo_slot(m, <PyObject*>key, tag)
    Py_INCREF(value)
    if m.e[i].key == NULL:
        Py_INCREF(key)
        m.e[i].key = <PyObject*>key
        m.e[i].tag = tag
        m.used += 1
    else:
        Py_XDECREF(m.e[i].value)
    m.e[i].value = <PyObject*>value
    return 0


cdef inline PyObject* _memo_get(Memo* m, object key, long tag):
    """The value kept for ``(key, tag)`` (borrowed), or NULL."""
    return m.e[_memo_slot(m, <PyObject*>key, tag)].value


cdef Memo _card_names, _identities, _talk_options
_memo_init(&_card_names, 10)
_memo_init(&_identities, 8)
_memo_init(&_talk_options, 14)


cdef inline object _card_name(object c):
    """``c.name``, kept per CardDef."""
    cdef PyObject* v
    if type(c) is not CardDef:
        return c.name
    v = _memo_get(&_card_names, c, 0)
    if v != NULL:
        return <object>v
    name = c.name
    _memo_put(&_card_names, c, 0, name)
    return name


cdef inline tuple _identity(object card):
    """``(card.name, card.role)``, kept per Identity."""
    cdef PyObject* v
    if type(card) is not Identity:
        return (card.name, card.role)
    v = _memo_get(&_identities, card, 0)
    if v != NULL:
        return <tuple>v
    out = (card.name, card.role)
    _memo_put(&_identities, card, 0, out)
    return out


cdef frozenset _ATOMS = _py._ATOMS
_freeze = _py.freeze


cdef object _NONE_TYPE = type(None)
cdef tuple _NO_ARGS = ()


cdef inline bint _atom(object t) except -1:
    """``t in _ATOMS``, the commonest types first."""
    return t is int or t is str or t is _NONE_TYPE or t is bool or t in _ATOMS


cdef inline object _new_frozen():
    """``dict.__new__(FrozenDict)``: an empty FrozenDict, through dict's ``tp_new`` directly."""
    return (<PyTypeObject*>dict).tp_new(<type>FrozenDict, <PyObject*>_NO_ARGS, NULL)


cdef object _freeze_value(object v):
    """``view.freeze(v)``: lists and tuples (a new tuple) and dicts (a new FrozenDict) made here,
    recursively; sets and anything else by ``freeze``."""
    cdef Py_ssize_t i, n
    cdef PyObject* k
    cdef PyObject* x
    t = type(v)
    if t is list or t is tuple:          # the Fast macros read either
        n = PySequence_Fast_GET_SIZE(v)
        out = PyTuple_New(n)
        for i in range(n):
            y = <object>PySequence_Fast_GET_ITEM(v, i)
            if not _atom(type(y)):
                y = _freeze_value(y)
            Py_INCREF(y)
            PyTuple_SET_ITEM(out, i, y)
        return out
    if t is dict or t is FrozenDict:
        out = _new_frozen()
        i = 0
        while PyDict_Next(v, &i, &k, &x):
            y = <object>x
            PyDict_SetItem(out, <object>k, y if _atom(type(y)) else _freeze_value(y))
        return out
    return _freeze(v)


cdef object _freeze_entry(object e):
    """A log entry as an immutable mapping with the same keys (``view._freeze_event``):
    a copy of the dict, with its non-atomic values frozen in place."""
    cdef Py_ssize_t i = 0
    cdef PyObject* k
    cdef PyObject* v
    if type(e) is not dict:
        return _freeze_event(e)
    out = _new_frozen()
    PyDict_Update(out, e)
    while PyDict_Next(e, &i, &k, &v):
        if not _atom(type(<object>v)):
            PyDict_SetItem(out, <object>k, _freeze_value(<object>v))
    return out


# ---- what is kept between builds

@cython.final
cdef class _Names:
    """The names of a list of cards, kept while the list holds the same cards."""

    cdef tuple cards, names

    cdef tuple of(self, object cards):
        """``tuple(c.name for c in cards)`` (``()`` for none)."""
        cdef Py_ssize_t i, n
        if type(cards) is not list:
            return _names_of(cards)
        n = PyList_GET_SIZE(cards)
        if n == 0:
            return ()
        kept = self.cards
        if kept is not None and PyTuple_GET_SIZE(kept) == n:
            for i in range(n):
                if PyList_GET_ITEM(cards, i) != PyTuple_GET_ITEM(kept, i):
                    break
            else:
                return self.names
        names = PyTuple_New(n)
        for i in range(n):
            name = _card_name(<object>PyList_GET_ITEM(cards, i))
            Py_INCREF(name)
            PyTuple_SET_ITEM(names, i, name)
        self.cards = tuple(cards)
        self.names = names
        return names


cdef bint _same_items(object a, object b) except -1:
    """Whether dicts ``a`` and ``b`` hold the same items in the same order (keys and
    values the same object, or equal ints, strings, ... of the same type)."""
    cdef Py_ssize_t i = 0, j = 0
    cdef PyObject* ka
    cdef PyObject* va
    cdef PyObject* kb
    cdef PyObject* vb
    if PyDict_Size(a) != PyDict_Size(b):
        return False
    while PyDict_Next(a, &i, &ka, &va):
        PyDict_Next(b, &j, &kb, &vb)
        if ka != kb and not (type(<object>ka) is type(<object>kb) and type(<object>ka) in _ATOMS
                             and <object>ka == <object>kb):
            return False
        if va != vb and not (type(<object>va) is type(<object>vb) and type(<object>va) in _ATOMS
                             and <object>va == <object>vb):
            return False
    return True


cdef bint _same_seq(tuple kept, object seq):
    """Whether the list or tuple ``seq`` holds the objects of ``kept``, in order."""
    cdef Py_ssize_t i, n = PyTuple_GET_SIZE(kept)
    if type(seq) is list:
        if PyList_GET_SIZE(seq) != n:
            return False
        for i in range(n):
            if PyList_GET_ITEM(seq, i) != PyTuple_GET_ITEM(kept, i):
                return False
        return True
    if type(seq) is tuple:
        if PyTuple_GET_SIZE(seq) != n:
            return False
        for i in range(n):
            if PyTuple_GET_ITEM(seq, i) != PyTuple_GET_ITEM(kept, i):
                return False
        return True
    return False


@cython.final
cdef class _Frozen:
    """``FrozenDict`` copies of one mapping of the game, the last one given again
    while the dict has not changed: the same dict with the same version tag
    (:func:`dict_version`), or one with the same items in the same order."""

    cdef object value                 # the FrozenDict last given (None before the first)
    cdef PyObject* dict               # the dict it was made of, by address only (with its tag)
    cdef uint64_t version

    cdef object of(self, object d):
        """``FrozenDict(d)`` (the shared empty one for none), or the last one given while it is the same."""
        cdef uint64_t version
        if type(d) is not dict:
            return FrozenDict(d) if d else _EMPTY
        version = dict_version(d)
        if version != 0 and <PyObject*>d == self.dict and version == self.version:
            return self.value
        if not d:
            value = _EMPTY
        elif self.value is not None and _same_items(self.value, d):
            value = self.value
        else:
            value = _new_frozen()                       # FrozenDict(d)
            PyDict_Update(value, d)
        self.value, self.dict, self.version = value, <PyObject*>d, version
        return value


@cython.final
cdef class _CreatureRaw:
    """What the C fields of a creature its view is made of held when the view was
    made (numbers and truth values, and the objects by address: the references
    kept here keep the addresses from being reused); ``ok`` when it was attacking
    and blocking nothing then (what :meth:`_Parts.views_of` needs to give the view again)."""

    cdef bint ok, tapped, token, is_commander
    cdef long uid, base_power, base_toughness, p1p1, pump_p, pump_q, damage, entered_turn, attacking, stun
    cdef object name, base_keywords, pump_kw

    cdef void take(self, Creature c):
        """Note what ``c``'s fields hold now."""
        self.ok = c.blocking is None and c.attacking_obj is None
        self.uid, self.base_power, self.base_toughness = c.uid, c.base_power, c.base_toughness
        self.p1p1, self.pump_p, self.pump_q, self.damage = c.p1p1, c.pump_p, c.pump_q, c.damage
        self.entered_turn, self.attacking, self.stun = c.entered_turn, c.attacking, c.stun
        self.tapped, self.token, self.is_commander = c.tapped, c.token, c.is_commander
        self.name, self.base_keywords, self.pump_kw = c.name, c.base_keywords, c.pump_kw

    cdef bint same(self, Creature c):
        """Whether it was attacking and blocking nothing and ``c``'s fields hold what they held."""
        return (self.ok and c.blocking is None and c.attacking_obj is None
                and c.uid == self.uid and c.base_power == self.base_power
                and c.base_toughness == self.base_toughness and c.p1p1 == self.p1p1 and c.pump_p == self.pump_p
                and c.pump_q == self.pump_q and c.damage == self.damage and c.entered_turn == self.entered_turn
                and c.attacking == self.attacking and c.stun == self.stun and c.tapped == self.tapped
                and c.token == self.token and c.is_commander == self.is_commander and c.name is self.name
                and c.base_keywords is self.base_keywords and c.pump_kw is self.pump_kw)


cdef _CreatureRaw _creature_raw(object o):
    """A new :class:`_CreatureRaw` of creature ``o``."""
    cdef _CreatureRaw r = _CreatureRaw.__new__(_CreatureRaw)
    r.take(o)
    return r


@cython.final
cdef class _PlayerRaw:
    """What the C fields of a player and of its identity card its view is made of,
    besides what the lists and dicts they hold give, held when the view was made
    (numbers and truth values, and the objects by address, kept here)."""

    cdef long seat, life, lands, lands_tapped, mulligans, commander_casts
    cdef Py_ssize_t hand_size, library_size   # the view's (set by _player_view)
    cdef bint has_lost, face_up
    cdef object hand, library, graveyard, exile, tokens, creatures, identity, commander, commander_zone
    cdef object cmd_damage, counters, permissions, attackables
    cdef object known_by, copy_of, card, role_override, id_counters

    cdef void take(self, Player p, IdentityCard idc):
        """Note what the fields of ``p`` and of its identity card ``idc`` (None in Throne Magic) hold now."""
        self.seat, self.life, self.lands, self.lands_tapped = p.seat, p.life, p.lands, p.lands_tapped
        self.mulligans, self.commander_casts, self.has_lost = p.mulligans, p.commander_casts, p.has_lost
        self.hand, self.library, self.graveyard, self.exile = p.hand, p.library, p.graveyard, p.exile
        self.tokens, self.creatures, self.identity, self.commander = p.tokens, p.creatures, p.identity, p.commander
        self.commander_zone, self.cmd_damage, self.counters = p.commander_zone, p.cmd_damage, p.counters
        self.permissions, self.attackables = p.permissions, p.attackables
        if idc is None:
            self.face_up, self.known_by, self.copy_of, self.card = False, None, None, None
            self.role_override, self.id_counters = None, None
            return
        self.face_up, self.known_by, self.copy_of, self.card = idc.face_up, idc.known_by, idc.copy_of, idc.identity
        self.role_override, self.id_counters = idc.role_override, idc.counters

    cdef bint same(self, Player p, IdentityCard idc):
        """Whether the fields of ``p`` and ``idc`` (None in Throne Magic) hold what they held."""
        if not (p.life == self.life and p.seat == self.seat and p.lands == self.lands
                and p.lands_tapped == self.lands_tapped and p.mulligans == self.mulligans
                and p.commander_casts == self.commander_casts and p.has_lost == self.has_lost
                and p.hand is self.hand and p.library is self.library and p.graveyard is self.graveyard
                and p.exile is self.exile and p.tokens is self.tokens and p.creatures is self.creatures
                and p.identity is self.identity and p.commander is self.commander
                and p.commander_zone is self.commander_zone and p.cmd_damage is self.cmd_damage
                and p.counters is self.counters and p.permissions is self.permissions
                and p.attackables is self.attackables):
            return False
        if idc is None:                 # and p.identity is self.identity: None then too
            return True
        return (idc.face_up == self.face_up
                and idc.known_by is self.known_by and idc.copy_of is self.copy_of and idc.identity is self.card
                and idc.role_override is self.role_override and idc.counters is self.id_counters)


@cython.final
cdef class _Parts:
    """What is kept of one player: the names of its zones, its mappings, its
    creatures' and planeswalkers' views and its views by viewer, as last given."""

    cdef object player                # the Player they are of
    cdef _Names hand, graveyard, exile
    cdef _Frozen tokens, counters, id_counters, cmd_damage
    cdef tuple creatures, creature_views  # its Creature objects and their views
    cdef list creature_raw            # per creature, a _CreatureRaw of when its view was made
    cdef long turn                    # the game's turn when its creatures' views were looked at (LONG_MIN: never)
    cdef tuple walkers, walker_views  # its Attackable objects and their views
    cdef list views                   # its PlayerView by viewer
    cdef list raws                    # by viewer, a _PlayerRaw of when that view was made

    def __cinit__(self, player, Py_ssize_t n):
        self.player = player
        self.hand = _Names()
        self.graveyard = _Names()
        self.exile = _Names()
        self.tokens, self.counters, self.id_counters, self.cmd_damage = _Frozen(), _Frozen(), _Frozen(), _Frozen()
        self.creatures = self.creature_views = self.walkers = self.walker_views = ()
        self.creature_raw = []
        self.turn = LONG_MIN
        self.views = [None] * n
        self.raws = [None] * n

    cdef tuple views_of(self, list objs, bint walkers, long turn, list attackers):
        """The views of the creatures, or the planeswalkers (``walkers``; ``attackers``:
        the game's attacking creatures), ``objs``, the kept ones where they are the same (the kept tuple when all
        are).  A creature whose fields hold what they held when its view
        was made (the same turn, attacking and blocking nothing) keeps it
        without a look at the rest."""
        cdef Py_ssize_t i, j, n = PyList_GET_SIZE(objs)
        cdef bint raw_ok
        cdef _CreatureRaw raw
        kept_objs = self.walkers if walkers else self.creatures
        kept_views = self.walker_views if walkers else self.creature_views
        cdef Py_ssize_t k = PyTuple_GET_SIZE(kept_objs)
        raws = self.creature_raw
        cdef bint same_turn = turn == self.turn
        out = None
        for i in range(n):
            o = <object>PyList_GET_ITEM(objs, i)
            old = None
            raw_ok = False
            if i < k and PyTuple_GET_ITEM(kept_objs, i) == <PyObject*>o:
                old = <object>PyTuple_GET_ITEM(kept_views, i)
                if not walkers:
                    raw = <object>PyList_GET_ITEM(raws, i)           # made by _creature_raw (checked)
                    raw_ok = same_turn and raw.same(o)
            if raw_ok:
                v = old
            elif walkers:
                v = _walker_view(o, turn, attackers, old)
            else:
                v = _creature_view(o, turn, old)
                if i < k and old is not None:
                    raw.take(o)
            if out is None:
                if v is old:
                    continue
                out = PyTuple_New(n)
                for j in range(i):
                    Py_INCREF(<object>PyTuple_GET_ITEM(kept_views, j))
                    PyTuple_SET_ITEM(out, j, <object>PyTuple_GET_ITEM(kept_views, j))
            Py_INCREF(v)
            PyTuple_SET_ITEM(out, i, v)
        if not walkers:
            self.turn = turn
        if out is None:
            if n == k:
                return kept_views
            out = kept_views[:n]
        if walkers:
            self.walkers, self.walker_views = tuple(objs), out
        else:
            new_raws = PyList_New(n)                # the raws of the creatures kept in place (noted above) again
            for i in range(n):
                o = <object>PyList_GET_ITEM(objs, i)
                if i < k and PyTuple_GET_ITEM(kept_objs, i) == <PyObject*>o:
                    r = <object>PyList_GET_ITEM(raws, i)
                else:
                    r = _creature_raw(o)
                Py_INCREF(r)
                PyList_SET_ITEM(new_raws, i, r)
            self.creatures, self.creature_views = tuple(objs), out
            self.creature_raw = new_raws
        return out


cdef tuple _rows(tuple kept, object m):
    """``tuple(map(tuple, m))`` for a list of lists of ints, reusing ``kept`` (its last value)
    and its rows where they hold the same objects."""
    cdef Py_ssize_t i, j, n, k
    cdef bint same
    if type(m) is not list or kept is None or PyTuple_GET_SIZE(kept) != PyList_GET_SIZE(m):
        return tuple(map(tuple, m))
    n = PyList_GET_SIZE(m)
    out = None
    for i in range(n):
        row = <object>PyList_GET_ITEM(m, i)
        old = <object>PyTuple_GET_ITEM(kept, i)
        if type(row) is not list:
            return tuple(map(tuple, m))
        k = PyList_GET_SIZE(row)
        same = PyTuple_GET_SIZE(old) == k
        if same:
            for j in range(k):
                if PyList_GET_ITEM(row, j) != PyTuple_GET_ITEM(old, j):
                    same = False
                    break
        if not same:
            if out is None:
                out = list(kept)
            out[i] = tuple(row)
    return kept if out is None else tuple(out)


cdef object _creature_view(Creature c, long turn, object kept):
    """The :class:`CreatureView` of ``c`` (``view._creature_view``), ``kept`` (its last one) if it is the same."""
    cdef PyObject* v[16]
    cdef object sick
    kw = c.base_keywords
    if type(kw) is not frozenset:
        kw = frozenset(kw)
    pkw = c.pump_kw
    b = c.blocking
    w = c.attacking_obj
    cdef long p1 = c.p1p1
    sick = c.entered_turn >= turn and "haste" not in kw and "haste" not in pkw
    keywords = kw | pkw if pkw else kw
    _put(v, 0, c.uid)
    _put(v, 1, c.name)
    _put(v, 2, c.base_power + p1 + c.pump_p)
    _put(v, 3, c.base_toughness + p1 + c.pump_q)
    _put(v, 4, c.damage)
    _put(v, 5, c.tapped)
    _put(v, 6, sick)
    _put(v, 7, keywords)
    _put(v, 8, c.attacking)
    _put(v, 9, None if b is None else _uid(b))
    _put(v, 10, p1)
    _put(v, 11, c.stun)
    _put(v, 12, c.token)
    _put(v, 13, c.is_commander)
    _put(v, 14, None if w is None else _uid(w))
    _put(v, 15, c.ordinal)        # fixed as it entered (Game._number): not in _CreatureRaw
    return fields(<PyTypeObject*>CreatureView, kept, v, 16)


cdef dict _ABILITIES = _py._ABILITIES


cdef object _walker_view(Attackable w, long turn, list attackers, object kept):
    """The :class:`PlaneswalkerView` of ``w`` (``view._planeswalker_view``), ``kept`` (its last one) if it is the same."""
    cdef PyObject* v[10]
    cdef Creature a
    card = w.card
    if card is None:
        abilities = ()
    else:
        name = _card_name(card)
        abilities = _ABILITIES.get(name)
        if abilities is None:
            abilities = _ABILITIES[name] = tuple([(ab["loyalty"], ab["text"]) for ab in card.abilities])
    attacked_by = []
    for a in attackers:
        if a.attacking_obj is w:
            attacked_by.append(a.uid)
    _put(v, 0, w.uid)
    _put(v, 1, w.name)
    _put(v, 2, w.kind)
    _put(v, 3, w.owner)
    _put(v, 4, w.controller)
    _put(v, 5, w.loyalty)
    _put(v, 6, w.used_turn == turn)
    _put(v, 7, abilities)
    _put(v, 8, tuple(attacked_by))
    _put(v, 9, w.ordinal)
    return fields(<PyTypeObject*>PlaneswalkerView, kept, v, 10)


cdef object _player_view(Player p, object viewer, Py_ssize_t seat, long turn, list attackers, _Parts kept):
    """The :class:`PlayerView` of ``p`` for ``viewer`` (``view._player_view``; ``seat``
    is the viewer as an index of the kept views, -1 for none; ``attackers``: the game's attacking
    creatures), the kept one if it is the same.

    The kept view is given at once when the fields of the player and of its
    identity card hold what they held when it was made (:class:`_PlayerRaw`), and its lists and dicts
    give the kept names, mappings and creature and planeswalker views (the
    same hand and library sizes; whether the viewer knows the identity; for
    the viewer's own view, no cards usable from other zones)."""
    cdef PyObject* v[25]
    cdef object leader
    cdef IdentityCard idc = p.identity            # None in Throne Magic (no identity card)
    cdef _PlayerRaw raw
    cdef Py_ssize_t hand_size, library_size
    own = p.seat == viewer
    cdef bint face_up = False
    if idc is None:
        known = False
    else:
        face_up = idc.face_up
        known = face_up or viewer in idc.known_by
    cre = p.creatures
    if not cre:
        creatures = ()
    elif type(cre) is list:
        creatures = kept.views_of(cre, False, turn, attackers)
    else:
        creatures = tuple([_creature_view(c, turn, None) for c in cre])
    walkers = p.attackables
    if not walkers:
        planeswalkers = ()
    elif type(walkers) is list:
        planeswalkers = kept.views_of(walkers, True, turn, attackers)
    else:
        planeswalkers = tuple([_walker_view(w, turn, attackers, None) for w in walkers])
    hand = p.hand
    hand_size, library_size = len(hand), len(p.library)
    hand_names = kept.hand.of(hand) if own else None
    graveyard, exile = kept.graveyard.of(p.graveyard), kept.exile.of(p.exile)
    tokens = kept.tokens.of(p.tokens)
    id_counters = _EMPTY if idc is None else kept.id_counters.of(idc.counters)
    cmd_damage = kept.cmd_damage.of(p.cmd_damage)
    counters = kept.counters.of(p.counters)
    views, raws = kept.views, kept.raws
    view = views[seat] if seat >= 0 else None
    if view is not None:
        raw = raws[seat]
        if (raw.same(p, idc)
                and _item(view, 11) is creatures and _item(view, 23) is planeswalkers
                and _item(view, 4) is hand_names and _item(view, 6) is graveyard and _item(view, 7) is exile
                and _item(view, 10) is tokens and _item(view, 15) is id_counters and _item(view, 18) is cmd_damage
                and _item(view, 20) is counters and raw.hand_size == hand_size and raw.library_size == library_size
                and (not known) == (_item(view, 13) is None)
                and not (own and (p.permissions or _item(view, 21)))):
            return view
    cdef bint lost = p.has_lost
    if idc is None:
        name = role = None
        leader = False
    else:
        card = idc.copy_of
        if card is None:
            card = idc.identity
        name, role = _identity(card)
        override = idc.role_override
        if override is not None:
            role = override
        leader = face_up and not lost and role == _LEADER          # Game.is_leader_player (CR 314.7)
    cmd = p.commander
    commander = None if cmd is None else _card_name(cmd)
    usable = tuple([(_card_name(q["card"]), q["zone"], q["free"]) for q in p.permissions]) if own else None
    _put(v, 0, p.seat)
    _put(v, 1, not lost)
    _put(v, 2, p.life)
    _put(v, 3, hand_size)
    _put(v, 4, hand_names)
    _put(v, 5, library_size)
    _put(v, 6, graveyard)
    _put(v, 7, exile)
    _put(v, 8, p.lands)
    _put(v, 9, p.lands - p.lands_tapped)
    _put(v, 10, tokens)
    _put(v, 11, creatures)
    _put(v, 12, face_up)
    _put(v, 13, name if known else None)
    _put(v, 14, role if known else None)
    _put(v, 15, id_counters)
    _put(v, 16, commander)
    _put(v, 17, p.commander_zone)
    _put(v, 18, cmd_damage)
    _put(v, 19, leader)
    _put(v, 20, counters)
    _put(v, 21, usable)
    _put(v, 22, p.mulligans)
    _put(v, 23, planeswalkers)
    _put(v, 24, p.commander_casts)
    view = fields(<PyTypeObject*>PlayerView, view, v, 25)
    if seat >= 0:
        views[seat] = view
        raw = raws[seat]
        if raw is None:
            raw = raws[seat] = _PlayerRaw.__new__(_PlayerRaw)
        raw.take(p, idc)
        raw.hand_size, raw.library_size = hand_size, library_size
    return view


cdef long _PRIORITY_K = DecisionKind.PRIORITY, _TARGET = DecisionKind.TARGET, _ATTACKER = DecisionKind.ATTACKER
cdef long _BLOCKER = DecisionKind.BLOCKER, _DEFENDER = DecisionKind.DEFENDER, _BLOCKED = DecisionKind.BLOCKED
cdef long _DISCARD = DecisionKind.DISCARD, _COST = DecisionKind.COST, _BOTTOM = DecisionKind.BOTTOM
cdef dict _OPTIONS = {}                # _option_key -> OptionView (emptied when full)


cdef object _option_key(list players, Decision d, long kind, object action, object payload):
    """What the view of option ``(action, payload)`` of ``d`` (no labels) is made of, for
    the common options whose words and fields name only it (``view._option_view``,
    ``text.option_text``), a key of :data:`_OPTIONS`; None for the others (made anew
    each time).  A card from hand (cast, played, discarded, paid with, put on the
    bottom) by its name, the commander by its name and tax, a loyalty ability by its
    planeswalker's name, uid, loyalty, card and ordinal; an attacker, blocker or
    creature target by its name, uid, ordinal (and controller), a defending player by
    the attacker's name and ordinal, a player target by the deciding seat (ordinals:
    the words say "Soldier #2"; uids repeat from game to game, ordinals may not).
    An object of another type than the engine's where one is named: None."""
    cdef Player p
    cdef Attackable w
    cdef Creature c, b
    tp = type(payload)
    if tp is tuple and len(payload) == 2:
        what, arg = payload
        if kind == _PRIORITY_K:
            if (what == "cast" or what == "land") and type(arg) is int:
                p = players[d.seat]
                return (kind, action, what, _card_name(p.hand[arg]))
            if what == "commander":
                p = players[d.seat]
                return (kind, action, what, _card_name(p.commander), p.commander_casts)
            if what == "identity_ability":
                p = players[d.seat]
                return (kind, action, what, arg, p.identity.name)
            if what == "loyalty" and type(arg) is tuple:
                p = players[d.seat]
                o = p.attackables[arg[0]]
                if type(o) is not Attackable:
                    return None
                w = o
                return (kind, action, what, arg, w.name, w.uid, w.loyalty, _card_name(w.card), w.ordinal)
        elif kind == _TARGET:
            if what == "c" and type(arg) is Creature:
                c = arg
                return (kind, action, what, c.name, c.uid, c.controller, c.ordinal)
            if what == "p" and type(arg) is int:
                return (kind, action, what, arg, d.seat)
    elif tp is Creature:
        c = payload
        if kind == _ATTACKER or kind == _BLOCKER:
            return (kind, action, c.name, c.uid, c.ordinal)
        if kind == _BLOCKED:
            o = d.ctx[1]
            if type(o) is not Creature:
                return None
            b = o
            return (kind, action, b.name, b.ordinal, c.name, c.uid, c.controller, c.ordinal)
    elif tp is int:
        if kind == _DEFENDER:
            o = d.ctx
            if type(o) is Creature:
                c = o
                return (kind, action, c.name, c.ordinal, payload)
        elif kind == _DISCARD or kind == _COST or kind == _BOTTOM:
            p = players[d.seat]
            return (kind, action, _card_name(p.hand[payload]))
    return None


cdef inline object _label(Creature c):
    """``text._label(c)``: ``numbered_name(c.name, c.ordinal)``."""
    if c.ordinal < 2:
        return c.name
    return f"{c.name} #{c.ordinal}"


cdef inline object _walker_label(Attackable w):
    """``text._label(w)`` of a planeswalker."""
    if w.ordinal < 2:
        return w.name
    return f"{w.name} #{w.ordinal}"


cdef inline object _new_option(object action, object text, object what, object card=None, object player=None,
                               object creature=None, object x=None, object ability=None,
                               object planeswalker=None):
    """``view._option(action, text, what, ...)`` (no stack, talk or role), made in one allocation."""
    cdef PyObject* v[12]
    _put(v, 0, action)
    _put(v, 1, text)
    _put(v, 2, what)
    _put(v, 3, card)
    _put(v, 4, player)
    _put(v, 5, creature)
    _put(v, 6, None)
    _put(v, 7, x)
    _put(v, 8, ability)
    _put(v, 9, None)
    _put(v, 10, None)
    _put(v, 11, planeswalker)
    return fields(<PyTypeObject*>OptionView, None, v, 12)


cdef long _MODE = DecisionKind.MODE, _CARD = DecisionKind.CARD, _SCRY = DecisionKind.SCRY
cdef long _YES_NO = DecisionKind.YES_NO, _ORDER = DecisionKind.ORDER, _KEEP = DecisionKind.KEEP
cdef long _NUMBER = DecisionKind.NUMBER, _MULLIGAN = DecisionKind.MULLIGAN, _DEAL = DecisionKind.DEAL


cdef inline bint _plain_kind(long kind):
    """Whether options of ``kind`` with a creature or number payload are worded and viewed as
    ``"choice"`` (``text.option_text`` and ``view._option_view`` have no case of their own for it)."""
    return (kind == _TARGET or kind == _MODE or kind == _CARD or kind == _SCRY or kind == _YES_NO
            or kind == _ORDER or kind == _KEEP)


cdef object _layout = None             # the ActionLayout whose CONCEDE and CHOICE these are
cdef long _L_CONCEDE = 0, _L_CHOICE = 0


cdef inline int _read_layout(object layout) except -1:
    """Note the CONCEDE and CHOICE of ``layout`` (read again only for another layout)."""
    global _layout, _L_CONCEDE, _L_CHOICE
    if layout is not _layout:
        _L_CONCEDE, _L_CHOICE = layout.CONCEDE, layout.CHOICE
        _layout = layout
    return 0


cdef object _fast_labelled(GameState game, Decision d, long kind, object action, object payload, object label):
    """The view of option ``(action, payload)`` of ``d`` worded by its label ``label``
    (``view._option_view``, whose text is then the label) for a pass, a mulligan, a truce
    accepted, a number or a numbered choice; None for the others (CONCEDE included)."""
    cdef long ac
    if type(label) is not str or type(action) is not int:
        return None
    _read_layout(game.layout)
    ac = action
    if ac == _L_CONCEDE:
        return None
    if payload is None:
        return _new_option(action, label, "pass")
    if kind == _MULLIGAN:
        return _new_option(action, label, "pass" if payload == "keep" else "mulligan")
    if kind == _DEAL:
        return _new_option(action, label, "accept", None, d.ctx[0])
    if type(payload) is int:
        if kind == _NUMBER:
            return _new_option(action, label, "number", None, None, None, payload)
        if _plain_kind(kind):
            return _new_option(action, label, "choice", None, None, None, ac - _L_CHOICE if ac >= _L_CHOICE else None)
    return None


cdef object _fast_option(list players, Decision d, long kind, object action, object payload):
    """The view of option ``(action, payload)`` of ``d`` (no labels; not CONCEDE, whose payload
    is a string) made here, for the commonest options (``view._option_view`` with
    ``text.option_text``, word for word): an attacker, a blocker, a blocked attacker, a
    defending player or planeswalker, a creature target or choice, a creature sacrificed, a
    number, a card cast or played from hand, the commander cast, an unveil, a token ability, a
    card discarded, paid with or put on the bottom; None for the others (and for objects of
    another type than the engine's)."""
    cdef Creature c, b
    cdef Attackable w
    cdef Player p
    cdef IdentityCard idc
    tp = type(payload)
    if tp is Creature:
        c = payload
        if kind == _ATTACKER:
            return _new_option(action, f"attack with {_label(c)}", "attack_with", None, None, c.uid)
        if kind == _BLOCKER:
            return _new_option(action, f"block with {_label(c)}", "block_with", None, None, c.uid)
        if kind == _BLOCKED:
            ctx = d.ctx
            if type(ctx) is not tuple or PyTuple_GET_SIZE(ctx) < 2:
                return None
            o = <object>PyTuple_GET_ITEM(ctx, 1)
            if type(o) is not Creature:
                return None
            b = o
            return _new_option(action, f"{_label(b)} blocks {_label(c)} (P{c.controller})", "block",
                               None, c.controller, c.uid)
        if kind == _COST:
            return _new_option(action, f"sacrifice {_label(c)}", "cost", None, c.controller, c.uid)
        if _plain_kind(kind):
            return _new_option(action, f"{_label(c)} (P{c.controller})", "choice", None, c.controller, c.uid)
        return None
    if tp is tuple:
        if PyTuple_GET_SIZE(payload) != 2:
            return None
        what = <object>PyTuple_GET_ITEM(payload, 0)
        arg = <object>PyTuple_GET_ITEM(payload, 1)
        if kind == _TARGET:
            if type(arg) is Creature and what == "c":
                c = arg
                return _new_option(action, f"target {_label(c)} (P{c.controller})", "target",
                                   None, c.controller, c.uid)
            return None
        if kind == _PRIORITY_K:
            if type(what) is not str:
                return None
            if what == "cast" and type(arg) is int:
                p = players[d.seat]
                name = _card_name(p.hand[arg])
                return _new_option(action, f"cast {name}", what, name)
            if what == "land" and type(arg) is int:
                p = players[d.seat]
                return _new_option(action, "play a land", what, _card_name(p.hand[arg]))
            if what == "token":
                return _new_option(action, f"activate a {arg} token", what, None, None, None, None, arg)
            if what == "commander":
                p = players[d.seat]
                name = _card_name(p.commander)
                return _new_option(action, f"cast your commander {name} (tax {2 * p.commander_casts})", what, name)
            if what == "unveil":
                p = players[d.seat]
                idc = p.identity
                card = idc.copy_of
                if card is None:
                    card = idc.identity
                if type(card) is not Identity:
                    return None
                cost = card.unveil_cost
                text = f"unveil {_identity(card)[0]}"
                if cost and cost.x:
                    text = text + f" with X={arg}"
                return _new_option(action, text, what, None, None, None, arg)
        return None
    if tp is int:
        if kind == _DEFENDER:
            o = d.ctx
            if type(o) is not Creature:
                return None
            c = o
            return _new_option(action, f"{_label(c)} attacks P{payload}", "attack_player", None, payload)
        if kind == _DISCARD:
            p = players[d.seat]
            name = _card_name(p.hand[payload])
            return _new_option(action, f"discard {name}", "discard", name)
        if kind == _COST:
            p = players[d.seat]
            name = _card_name(p.hand[payload])
            return _new_option(action, f"pay with {name}", "cost", name)
        if kind == _BOTTOM:
            p = players[d.seat]
            name = _card_name(p.hand[payload])
            return _new_option(action, f"put {name} on the bottom of your library", "bottom", name)
        if kind == _NUMBER:
            return _new_option(action, f"X = {payload}", "number", None, None, None, payload)
        return None
    if tp is Attackable and kind == _DEFENDER:
        o = d.ctx
        if type(o) is not Creature:
            return None
        c = o
        w = payload
        if w.kind == "throne" or w.kind == "holding":     # Throne Magic's: view._option_view
            return None
        return _new_option(action, f"{_label(c)} attacks {_walker_label(w)} (P{w.controller}'s planeswalker, "
                                   f"loyalty {w.loyalty})", "attack_planeswalker", None, w.controller,
                           None, None, None, w.uid)
    return None


cdef object _declared(Decision d, object viewer):
    """``d.declared_creature(viewer)``, read from its C fields."""
    if type(d) is not Decision:
        return d.declared_creature(viewer)
    if d.kind == _DEFENDER:
        cre = d.ctx
    elif d.kind == _BLOCKED:
        cre = d.ctx[1]
    else:
        return None
    if type(cre) is Creature:
        return cre if viewer == (<Creature>cre).controller else None
    return cre if cre.controller == viewer else None


cdef enum:
    N_PASS = 256

cdef struct PassEntry:
    long kind, action
    PyObject* view             # a strong reference; NULL: a free slot

cdef PassEntry _passes[N_PASS]    # the views of pass options (payload None) by (kind, action), direct-mapped


cdef object _pass_view(object game, object d, Py_ssize_t k, long kind, object action):
    """The view of pass option ``k`` (``action``, payload None) of ``d``: it depends on the
    kind and the action only (``view._decision_view``), kept in :data:`_SIMPLE_OPTIONS`
    and, for int actions, in a small table in front of it."""
    cdef long ac
    cdef PassEntry* e
    if type(action) is not int:
        key = (kind, action)
        ov = _SIMPLE_OPTIONS.get(key)
        if ov is None:
            ov = _SIMPLE_OPTIONS[key] = _option_view(game, d, k, action, None)
        return ov
    ac = action
    e = &_passes[<size_t>(kind * 977 + ac) % N_PASS]
    if e.view != NULL and e.kind == kind and e.action == ac:
        return <object>e.view
    key = (kind, action)
    ov = _SIMPLE_OPTIONS.get(key)
    if ov is None:
        ov = _SIMPLE_OPTIONS[key] = _option_view(game, d, k, action, None)
    Py_INCREF(ov)
    Py_XDECREF(e.view)
    e.kind, e.action, e.view = kind, ac, <PyObject*>ov
    return ov


cdef object _decision_view(object game, list players, Decision d, object viewer):
    """The :class:`DecisionView` of ``d`` (``view._decision_view``): talk options kept per
    option object (and seat and kind) in a table by address, the commonest others made
    here (:func:`_fast_option`, :func:`_fast_labelled`), a few more by :func:`_option_key`
    in :data:`_OPTIONS`, the rest by ``view._option_view``."""
    cdef Py_ssize_t k, n
    cdef PyObject* hit
    cdef bint priority, listed
    opts = d.options
    cdef long kind = d.kind
    labels = d.labels
    cdef long tag = <long>viewer * 64 + kind     # a talk option's view depends on the seat (and the kind)
    n = len(opts)
    out = PyTuple_New(n)
    if labels is not None and len(labels) == n:
        for k in range(n):
            action, payload = opts[k]
            ov = _fast_labelled(game, d, kind, action, payload, labels[k])
            if ov is None:
                ov = _option_view(game, d, k, action, payload)
            Py_INCREF(ov)
            PyTuple_SET_ITEM(out, k, ov)
    else:
        priority = kind == _PRIORITY_K
        listed = type(opts) is list
        for k in range(n):
            opt = <object>PyList_GET_ITEM(opts, k) if listed else opts[k]
            hit = _memo_get(&_talk_options, opt, tag)
            if hit != NULL:                              # a talk option seen before
                Py_INCREF(<object>hit)
                PyTuple_SET_ITEM(out, k, <object>hit)
                continue
            action, payload = opt
            if payload is None:
                ov = _pass_view(game, d, k, kind, action)
            elif priority and payload[0] == "talk":
                key = (viewer, action, payload[1])
                ov = _SIMPLE_OPTIONS.get(key)
                if ov is None:
                    ov = _SIMPLE_OPTIONS[key] = _option_view(game, d, k, action, payload)
                _memo_put(&_talk_options, opt, tag, ov)
            else:
                ov = _fast_option(players, d, kind, action, payload)
                if ov is not None:
                    Py_INCREF(ov)
                    PyTuple_SET_ITEM(out, k, ov)
                    continue
                key = _option_key(players, d, kind, action, payload)
                if key is None:
                    ov = _option_view(game, d, k, action, payload)
                else:
                    ov = _OPTIONS.get(key)
                    if ov is None:
                        if len(_OPTIONS) >= 20000:      # bounded: names, uids and seats of many games
                            _OPTIONS.clear()
                        ov = _OPTIONS[key] = _option_view(game, d, k, action, payload)
            Py_INCREF(ov)
            PyTuple_SET_ITEM(out, k, ov)
    cre = _declared(d, viewer)
    cdef PyObject* dv[5]
    _put(dv, 0, _NAMES[kind])
    _put(dv, 1, d.prompt)
    _put(dv, 2, out)
    _put(dv, 3, None if cre is None else _uid(cre))
    _put(dv, 4, d.label)
    return fields(<PyTypeObject*>DecisionView, None, dv, 5)


@cython.final
cdef class _Seen:
    """The events one viewer was last given: from turn ``first`` on, log entries up to ``upto`` looked at."""

    cdef long first
    cdef Py_ssize_t upto
    cdef tuple events


cdef inline bint _visible(object e, object viewer) except -1:
    """Whether frozen log entry ``e`` is public or shown to ``viewer``."""
    cdef PyObject* to = PyDict_GetItem(e, "to")
    if to == NULL:
        return e["to"] is None or viewer in e["to"]
    return to == <PyObject*>None or viewer in <object>to


cdef object _NO_TO = object()          # in ViewBuilder._tos: the entry has no "to"


cdef inline object _to_of(object e):
    """What frozen log entry ``e`` says under ``"to"`` (:data:`_NO_TO` for nothing)."""
    cdef PyObject* to
    if isinstance(e, dict):
        to = PyDict_GetItem(e, "to")
        if to != NULL:
            return <object>to
    return _NO_TO


cdef inline bint _shown(object to, object e, object viewer) except -1:
    """:func:`_visible` of ``e``, whose ``"to"`` is ``to`` (:func:`_to_of`)."""
    if to is None:
        return True
    if to is _NO_TO:
        return _visible(e, viewer)
    return viewer in to


cdef class ViewBuilder:
    """Builds the :class:`~treachery_env.view.SeatView` of any seat of one
    game, again and again as the game moves on (compiled; the views equal
    those of :class:`treachery_env.view.PythonViewBuilder`).

    The builder refers to the game; the views it returns do not.

    Args:
        game: the game to view.
    """

    cdef readonly object game
    cdef object _log                  # the log list the frozen entries come from
    cdef readonly Py_ssize_t _base    # index in _log of the first frozen entry
    cdef readonly list _frozen        # _freeze_event of _log[_base:], in order
    cdef list _tos                    # _to_of of each of _frozen
    cdef long _checked                # the first turn shown at the last look at the ends of _frozen (LONG_MIN: none)
    cdef dict _seen                   # viewer -> its _Seen
    cdef object _talk                 # the talk view as last given, of _talk_state and _talk_config
    cdef object _talk_state, _talk_config
    cdef _Frozen _claims, _stances, _intents, _requests, _broken   # the talk state's mappings
    cdef list _parts                  # _Parts per seat
    cdef tuple _harm, _attacks        # the tables as last given

    def __init__(self, game):
        self.game = game
        self._log = None
        self._base = 0
        self._frozen = []
        self._tos = []
        self._checked = LONG_MIN
        self._seen = {}
        self._parts = []
        self._claims, self._stances, self._intents = _Frozen(), _Frozen(), _Frozen()
        self._requests, self._broken = _Frozen(), _Frozen()

    cdef tuple _pick(self, tuple old, Py_ssize_t start, object viewer):
        """``old`` followed by the entries of ``_frozen[start:]`` ``viewer`` may see."""
        cdef Py_ssize_t i, j, m, cnt = 0, on
        frozen, tos = self._frozen, self._tos
        m = PyList_GET_SIZE(frozen)
        for i in range(start, m):
            if _shown(<object>PyList_GET_ITEM(tos, i), <object>PyList_GET_ITEM(frozen, i), viewer):
                cnt += 1
        if cnt == 0:
            return old
        on = PyTuple_GET_SIZE(old)
        out = PyTuple_New(on + cnt)
        for j in range(on):
            e = <object>PyTuple_GET_ITEM(old, j)
            Py_INCREF(e)
            PyTuple_SET_ITEM(out, j, e)
        j = on
        for i in range(start, m):
            e = <object>PyList_GET_ITEM(frozen, i)
            if _shown(<object>PyList_GET_ITEM(tos, i), e, viewer):
                Py_INCREF(e)
                PyTuple_SET_ITEM(out, j, e)
                j += 1
        return out

    cdef tuple _events(self, object viewer, object log, long turn):
        """The frozen log entries ``viewer`` may see from the previous turn on
        (``PythonViewBuilder._events``; ``log`` and ``turn`` are the game's).
        The log is only ever appended to and the turns of its entries never go
        down, so the ends of the frozen entries are looked at again only when
        the turn changes."""
        cdef Py_ssize_t n, base, i, k
        cdef long first = turn - 1
        n = len(log)
        frozen = self._frozen
        if log is not self._log or n < self._base + len(frozen):      # another log, or a shorter one
            self._log, self._base, self._seen = log, n, {}
            frozen = self._frozen = []
            self._tos = []
            self._checked = LONG_MIN
        base = self._base
        if base + len(frozen) < n:
            tos = self._tos
            for i in range(base + len(frozen), n):
                e = _freeze_entry(log[i])
                frozen.append(e)
                tos.append(_to_of(e))
        if self._checked != first:
            if base > 0 and log[base - 1]["turn"] >= first:               # older entries needed (a first build)
                i = base - 1
                while i > 0 and log[i - 1]["turn"] >= first:
                    i -= 1
                new = [_freeze_entry(e) for e in log[i:base]]
                frozen[:0] = new
                self._tos[:0] = [_to_of(e) for e in new]
                self._base = base = i
            elif frozen and frozen[0]["turn"] < first:                    # forget the turns no view shows any more
                k = 0
                while k < len(frozen) and frozen[k]["turn"] < first:
                    k += 1
                del frozen[:k]
                del self._tos[:k]
                self._base = base = base + k
            self._checked = first
        cdef _Seen seen = self._seen.get(viewer)
        if seen is None:
            seen = self._seen[viewer] = _Seen()
        elif seen.first == first:
            if seen.upto != n:
                seen.events = self._pick(seen.events, seen.upto - base, viewer)
                seen.upto = n
            return seen.events
        seen.first, seen.upto = first, n
        seen.events = self._pick((), 0, viewer)
        return seen.events

    cdef object _talk_view(self, object t, object config):
        """The talk view (``view._talk_view``) of talk state ``t`` and ``config`` (the game's), the kept one while the talk state holds
        what it was made of: the same messages (only ever appended, so their count
        and the last one tell), truces and hurt totals, and unchanged mappings
        (:class:`_Frozen`); on a change only the changed parts are made anew."""
        cdef Py_ssize_t n
        kept = self._talk
        if kept is not None and (self._talk_state is not t or self._talk_config is not config):
            kept = None
        messages, deals, hurt = get(t, TS_MESSAGES), get(t, TS_DEALS), get(t, TS_HURT_AT_START)
        claims, stances = self._claims.of(get(t, TS_CLAIMS)), self._stances.of(get(t, TS_STANCES))
        intents, requests = self._intents.of(get(t, TS_INTENTS)), self._requests.of(get(t, TS_REQUESTS))
        broken = self._broken.of(get(t, TS_BROKEN))
        if kept is None:
            self._talk = record(<PyTypeObject*>TalkView, (
                config.talk, config.talk_limit, tuple(messages), claims, stances, intents, requests, tuple(deals),
                broken, tuple(hurt)))
            self._talk_state, self._talk_config = t, config
            return self._talk
        km = _item(kept, 2)
        n = len(messages)
        msgs = km if PyTuple_GET_SIZE(km) == n and (
            n == 0 or <PyObject*>messages[n - 1] == PyTuple_GET_ITEM(km, n - 1)) else tuple(messages)
        same_deals, same_hurt = _same_seq(_item(kept, 7), deals), _same_seq(_item(kept, 9), hurt)
        if (msgs is km and same_deals and same_hurt and claims is _item(kept, 3) and stances is _item(kept, 4)
                and intents is _item(kept, 5) and requests is _item(kept, 6) and broken is _item(kept, 8)):
            return kept
        self._talk = record(<PyTypeObject*>TalkView, (
            config.talk, config.talk_limit, msgs, claims, stances, intents, requests,
            _item(kept, 7) if same_deals else tuple(deals), broken, _item(kept, 9) if same_hurt else tuple(hurt)))
        return self._talk

    def build(self, viewer):
        """The :class:`~treachery_env.view.SeatView` of ``viewer`` now (equal to
        ``PythonViewBuilder(game).build(viewer)``).

        Raises:
            IndexError: for a seat outside the table.
        """
        cdef Py_ssize_t i, n, seat
        cdef _Parts kept
        cdef Player p, me
        cdef Decision d
        cdef GameState g = self.game
        cdef PyObject* sv[20]
        if g is None:
            raise TypeError("ViewBuilder: the game is None")
        _check_classes()
        cdef long turn = g.turn
        turn_o = g.turn
        players = g.players
        attackers = g.combat_attackers
        n = len(players)
        me = players[viewer]
        seat = viewer if viewer >= 0 else -1          # a seat counted from the end keeps no views
        parts = self._parts
        if len(parts) != n:
            parts[:] = [_Parts(q, n) for q in players]
        views = PyTuple_New(n)
        for i in range(n):
            p = players[i]
            kept = parts[i]
            if kept.player is not p:
                kept = parts[i] = _Parts(p, n)
            v = _player_view(p, viewer, seat, turn, attackers, kept)
            Py_INCREF(v)
            PyTuple_SET_ITEM(views, i, v)
        stack = g.stack
        idc = me.identity                  # None in Throne Magic: no Undercover, no face-down exile
        # The Oneiromancer's look at its pile: an ability of the face-up card (CR 314.4b) or of the
        # trigger that filled it
        dream = None if idc is None or not may_look_at_pile(idc, me.seat) else idc.data["dream"]
        d = g.decision
        self._harm = _rows(self._harm, g.harm)
        self._attacks = _rows(self._attacks, g.attacks)
        config = g.config
        stack_v = tuple([_stack_view(it) for it in stack]) if stack else ()
        undercover = (not me.has_lost) and idc is not None and g.undercover_met(viewer)
        dream_v = tuple([c.name for _, c in dream]) if dream else ()
        decision = _decision_view(g, players, d, viewer) if d is not None and d.seat == viewer else None
        events = self._events(viewer, g.log, turn)
        windows = config.priority_windows
        roles = tuple(g.role_counts)
        talk = self._talk_view(g.talk, config)
        _put(sv, 0, viewer)
        _put(sv, 1, turn_o)
        _put(sv, 2, g.phase)
        _put(sv, 3, g.active)
        _put(sv, 4, views)
        _put(sv, 5, stack_v)
        _put(sv, 6, self._harm)
        _put(sv, 7, self._attacks)
        _put(sv, 8, undercover)
        _put(sv, 9, dream_v)
        _put(sv, 10, decision)
        _put(sv, 11, events)
        _put(sv, 12, windows)
        _put(sv, 13, roles)
        _put(sv, 14, talk)
        _put(sv, 15, None if g.social is None else _throne_view(g, viewer))
        _put(sv, 16, None if config.vanguard is None else _vanguards_view(g))
        _put(sv, 17, None if g.schemes is None else _schemes_view(g))
        _put(sv, 18, None if g.planar is None else _planar_view(g))
        _put(sv, 19, _turn_marks_view(g))
        return fields(<PyTypeObject*>SeatView, None, sv, 20)
