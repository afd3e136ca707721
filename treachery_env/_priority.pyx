# cython: language_level=3, nonecheck=True
"""The priority check, compiled: :func:`can_act` is
:meth:`Game._can_act <treachery_env.engine.priority.PriorityMixin._can_act>`
(the reference), which says whether a seat holding priority has an action
other than passing (CR 117.1, 117.3): exactly
``len(game._priority_options(seat)) > 1``.

:meth:`Game._offer_priority` asks it about every seat that gets priority, and
most seats can only pass, so what it reads most is answered in C: the game's,
players' and identity cards' C fields (``engine/state.pxd``: the engine's state
classes compiled to extension types), the numbers as C integers, and
the tests that need no more than that (cost against available mana, token
counts, an identity implementation without activated abilities or cost
reduction).  What a card in hand, an identity and its implementation say
(frozen dataclasses shared by every game) is read once and kept in C tables
keyed by the object, and the token counts are read in one pass over the
player's ``tokens`` (keys compared by identity), falling back to the
reference's lookups for anything not as the engine makes it.  Whatever needs the rules themselves -- targets
(``castable_targets``), token abilities (``_token_ability_ok``), identity
abilities and unveil costs (:mod:`treachery_env.identity_abilities`), cards
other zones allow (``_permission_ok``), table talk (``_can_talk``) and all of
sorcery timing (``_priority_options``) -- is asked of the engine's own
methods, in the reference's order and with its arguments, so the answer is
the reference's in every state (``tests/test_engine_fast_paths.py``).

Built by ``setup.py`` (an optional extension); :mod:`treachery_env.engine.priority`
uses it when it is there, is not older than this file or the state's types
(``engine/state.py``, ``state.pxd``), the engine's state runs compiled, and
``TREACHERY_PURE_PYTHON`` is not ``1`` (:func:`treachery_env.compiled.compiled_pyx`).
"""

from cpython.dict cimport PyDict_GetItemWithError, PyDict_Next
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.long cimport PyLong_AsLongAndOverflow, PyLong_CheckExact
from cpython.object cimport PyObject, Py_SIZE
from cpython.ref cimport Py_INCREF, Py_XDECREF
from cpython.unicode cimport PyUnicode_Compare, PyUnicode_GET_LENGTH
from libc.limits cimport LONG_MAX, LONG_MIN
from libc.stdint cimport uint64_t

from treachery_env.engine.state cimport GameState, IdentityCard, Player

from . import identity_abilities as _IA
from .actions import MAX_HAND, MAX_OTHER, TOKEN_ABILITIES
from .compiled import state_compiled
from .identities import Identity, UnveilCost

# state.py's plain classes (run from source) have none of the C fields read here (compiled.compiled_pyx
# checks it first; a direct import is refused too)
if not state_compiled():
    raise ImportError(f"{__name__}: the engine's state classes are not the compiled extension types "
                      f"(engine/state.py runs from source)")

__all__ = ["can_act"]

cdef Py_ssize_t C_MAX_HAND = MAX_HAND
cdef object C_MAX_OTHER = MAX_OTHER
cdef tuple C_TOKEN_ABILITIES = tuple(TOKEN_ABILITIES)
cdef dict IMPLEMENTATIONS = _IA.IMPLEMENTATIONS      # the same dict object (filled at import, never rebound)
cdef object C_IDENTITY = Identity, C_UNVEIL_COST = UnveilCost, C_IMPL = _IA.IdentityImpl

# ---- what a card in hand says, read once
#
# CardDef is a frozen dataclass shared by every game and clone: whether it can
# be cast at instant speed (``priority_cast``) and its cost are read on first
# sight and kept in a table keyed by the card's address, which holds a
# reference to the card (so the address cannot be reused while the entry
# lives); a table half full is emptied.

cdef enum:
    CARD_SLOTS = 1024         # a power of two

cdef PyObject* _card_keys[CARD_SLOTS]      # a strong reference; NULL: a free slot
cdef bint _card_instant[CARD_SLOTS]
cdef long _card_cost[CARD_SLOTS]
cdef Py_ssize_t _cards_used = 0


cdef inline Py_ssize_t _card_slot(PyObject* key):
    """The slot of ``key``, or the free slot where it would go."""
    cdef Py_ssize_t i = <Py_ssize_t>(((<uint64_t><size_t>key >> 4) * <uint64_t>0x9E3779B97F4A7C15) >> 54)
    while _card_keys[i] != NULL and _card_keys[i] != key:
        i = (i + 1) & (CARD_SLOTS - 1)
    return i


cdef Py_ssize_t _card(object c) except -1:
    """The table slot holding ``c.priority_cast`` and ``c.cost`` of CardDef ``c``."""
    global _cards_used
    cdef Py_ssize_t i = _card_slot(<PyObject*>c)
    if _card_keys[i] != NULL:
        return i
    instant = bool(c.priority_cast)
    cost = <long>c.cost
    if _cards_used >= CARD_SLOTS // 2:
        for i in range(CARD_SLOTS):
            Py_XDECREF(_card_keys[i])
            _card_keys[i] = NULL
        _cards_used = 0
        i = _card_slot(<PyObject*>c)
    Py_INCREF(c)
    _card_keys[i] = <PyObject*>c
    _card_instant[i] = instant
    _card_cost[i] = cost
    _cards_used += 1
    return i


cdef bint _may_activate(tuple activated, dict counters, long avail) except -1:
    """Whether one of the identity's activated abilities ``activated`` passes the
    first tests of ``identity_abilities._ability_ok``: its mana within ``avail``
    (what ``Game.available_mana`` gives) and, if it removes a counter, such a
    counter on the card (``counters``).  False means ``can_activate`` is False;
    True leaves the rest (once each turn, extra conditions, targets) to it."""
    for ab in activated:
        if avail < <long>ab.mana:
            continue
        kind = ab.counter
        if kind and counters.get(kind, 0) <= 0:
            continue
        return True
    return False


# ---- the token counts, in one pass
#
# A player's ``tokens`` holds every kind of COUNTER_TOKENS under the strings of
# that tuple (interned, as TOKEN_ABILITIES' are), mostly 0: one PyDict_Next pass
# that compares keys by identity finds the Treasure count and which token
# abilities have a count of exactly int 0, where the reference's loop would do
# six hashed lookups and five truth tests to learn the same.  Anything else (a
# key that is an equal but other string, a count that is not int 0) leaves its
# bit clear, and the reference's own loop runs.

cdef enum:
    N_TOKEN_AB = 5            # len(TOKEN_ABILITIES), checked at import

if len(TOKEN_ABILITIES) != N_TOKEN_AB:
    raise ImportError(f"{__name__}: TOKEN_ABILITIES has {len(TOKEN_ABILITIES)} names, not {N_TOKEN_AB}")

cdef PyObject* _tok_names[N_TOKEN_AB]       # borrowed from C_TOKEN_ABILITIES (kept for the module's life)
for _j in range(N_TOKEN_AB):
    _tok_names[_j] = <PyObject*>C_TOKEN_ABILITIES[_j]
cdef object C_TREASURE = "Treasure"
cdef int ALL_TOKEN_AB_ZERO = (1 << N_TOKEN_AB) - 1
cdef int ALL_SEEN = (1 << (N_TOKEN_AB + 1)) - 1     # and Treasure


cdef int _scan_tokens(dict tok, PyObject** treasure):
    """The bits ``1 << j`` of the names ``TOKEN_ABILITIES[j]`` that are keys of
    ``tok`` (the same string object) with the value int 0 or False (so
    ``tok[name]`` is false); sets ``treasure[0]`` (borrowed) to the value of
    the key ``"Treasure"`` (the same object), if there is one.  Runs no
    Python code: keys and values are only compared by address and type."""
    cdef Py_ssize_t pos = 0
    cdef PyObject* k
    cdef PyObject* v
    cdef int found = 0, seen = 0, j
    while PyDict_Next(tok, &pos, &k, &v):
        if k == <PyObject*>C_TREASURE:
            treasure[0] = v
            seen |= 1 << N_TOKEN_AB
        else:
            for j in range(N_TOKEN_AB):
                if k == _tok_names[j]:
                    seen |= 1 << j
                    if v == <PyObject*>False or (PyLong_CheckExact(<object>v) and Py_SIZE(<object>v) == 0):
                        found |= 1 << j
                    break
        if seen == ALL_SEEN:        # the rest of the dict (Explosive) says nothing here
            break
    return found


# ---- what an identity and its implementation say, read once
#
# Identity (identities.py) and IdentityImpl (identity_abilities.py) are frozen
# dataclasses shared by every game (the IdentityCard's ``identity`` or
# ``copy_of``; the value of IMPLEMENTATIONS): the facts read here are kept in
# a table keyed by the object's address, as the cards' are (the entry holds a
# reference to the key and to what it keeps).  Only objects of exactly those
# classes whose facts have the plain types (str name, bool undercover, an
# UnveilCost with an int mana fitting a C long, a tuple of activated
# abilities) are kept; for anything else the attributes are read each time,
# as the reference does.  IMPLEMENTATIONS itself is looked up each time (a
# test may add to it).

cdef struct Facts:
    PyObject* key       # a strong reference; NULL: a free slot
    PyObject* a         # an Identity's name (IMPLEMENTATIONS' own key object when it has one),
                        # an IdentityImpl's activated (a strong reference)
    PyObject* b         # an Identity's unveil_cost (a strong reference, None for a Leader); else NULL
    long mana           # an Identity's unveil_cost.mana (0 without a cost)
    int flags

cdef enum:
    FACT_SLOTS = 256          # a power of two
    F_IDENTITY = 1            # key: an Identity
    F_UNDERCOVER = 2          # its ``undercover`` is True
    F_IMPL = 4                # key: an IdentityImpl
    F_REDUCTION = 8           # its ``cost_reduction`` is not None

cdef Facts _facts[FACT_SLOTS]
cdef Py_ssize_t _facts_used = 0


cdef inline Py_ssize_t _fact_slot(PyObject* key):
    """The slot of ``key``, or the free slot where it would go."""
    cdef Py_ssize_t i = <Py_ssize_t>(((<uint64_t><size_t>key >> 4) * <uint64_t>0x9E3779B97F4A7C15) >> 56)
    while _facts[i].key != NULL and _facts[i].key != key:
        i = (i + 1) & (FACT_SLOTS - 1)
    return i


cdef Py_ssize_t _fact_put(object key, object a, object b, long mana, int flags) except -1:
    """Keep the facts of ``key`` (``b`` only for an Identity: F_IDENTITY in ``flags``);
    their slot.  Runs no Python code."""
    global _facts_used
    cdef Py_ssize_t i
    if _facts_used >= FACT_SLOTS // 2:
        for i in range(FACT_SLOTS):
            Py_XDECREF(_facts[i].key)
            Py_XDECREF(_facts[i].a)
            Py_XDECREF(_facts[i].b)
            _facts[i].key = _facts[i].a = _facts[i].b = NULL
        _facts_used = 0
    i = _fact_slot(<PyObject*>key)
    Py_INCREF(key)
    Py_INCREF(a)
    _facts[i].key = <PyObject*>key
    _facts[i].a = <PyObject*>a
    if flags & F_IDENTITY:
        Py_INCREF(b)
        _facts[i].b = <PyObject*>b
    else:
        _facts[i].b = NULL
    _facts[i].mana = mana
    _facts[i].flags = flags
    _facts_used += 1
    return i


cdef Py_ssize_t _identity(object card) except -2:
    """The slot of Identity ``card``'s name, unveil cost, its mana and undercover;
    -1 if ``card`` is not an Identity with facts of the plain types (then its
    attributes are read where they are needed).  The slot is good until the
    next ``_fact_put``: read it at once."""
    cdef Py_ssize_t i = _fact_slot(<PyObject*>card)
    cdef int ovf = 0
    cdef long mana = 0
    if _facts[i].key != NULL:
        return i
    if type(card) is not C_IDENTITY:
        return -1
    name = card.name
    cost = card.unveil_cost
    undercover = card.undercover
    if type(name) is not str or type(undercover) is not bool:
        return -1
    # kept as the equal key of IMPLEMENTATIONS, if there is one: a lookup then finds its key by
    # address instead of comparing the characters (the same entry, the strings being equal)
    for key in IMPLEMENTATIONS:
        if type(key) is str and key == name:
            name = key
            break
    if cost is not None:
        if type(cost) is not C_UNVEIL_COST:
            return -1
        m = cost.mana
        if type(m) is not int:
            return -1
        mana = PyLong_AsLongAndOverflow(m, &ovf)
        if ovf:
            return -1
    return _fact_put(card, name, cost, mana, F_IDENTITY | (F_UNDERCOVER if undercover is True else 0))


cdef Py_ssize_t _impl(object impl) except -2:
    """The slot of IdentityImpl ``impl``'s activated abilities and whether it has a
    cost reduction; -1 if ``impl`` is not an IdentityImpl whose ``activated`` is
    a tuple.  Good until the next ``_fact_put``."""
    cdef Py_ssize_t i = _fact_slot(<PyObject*>impl)
    if _facts[i].key != NULL:
        return i
    if type(impl) is not C_IMPL:
        return -1
    activated = impl.activated
    if type(activated) is not tuple:
        return -1
    return _fact_put(impl, activated, None, 0, F_IMPL | (0 if impl.cost_reduction is None else F_REDUCTION))


cdef inline bint _str_eq(object a, str s) except -1:
    """``a == s`` for a step name ``s`` (``game.phase``): the engine sets the
    interned strings of PHASES, so mostly the same object; a str of another
    length is not equal (Cython's ``==`` of two str would call
    PyUnicode_Compare, which orders them), one of the same length is compared,
    anything else by ``==``."""
    if a is s:
        return True
    if type(a) is str:
        return PyUnicode_GET_LENGTH(a) == PyUnicode_GET_LENGTH(s) and PyUnicode_Compare(a, s) == 0
    return a == s


def can_act(GameState game, long seat):
    """Whether ``seat`` has a priority action other than passing in ``game`` now.

    Args:
        game: a running :class:`~treachery_env.engine.Game` (a ``GameState``).
        seat: a seat of the table (``game.players[seat]``).

    Returns:
        ``len(game._priority_options(seat)) > 1`` (a bool), computed as
        :meth:`~treachery_env.engine.priority.PriorityMixin._can_act` does: at
        sorcery timing (the active player, empty stack, a main phase;
        CR 307.1) and in a Throne Magic game the options are built; otherwise only what has instant speed
        is tested -- instants and flash cards in hand (the first ``MAX_HAND``),
        token abilities, the face-up identity's activated abilities or the
        face-down one's unveil, cards other zones allow, and table talk in the
        end step of another player's turn.

    Raises:
        IndexError: for a seat outside the table (as the reference).
        TypeError: if ``game`` is not a game (its state is read as the C fields of
            ``engine/state.pxd``).
    """
    cdef list stack = game.stack
    ph = game.phase
    cdef bint active = seat == game.active
    if (active and not stack and (_str_eq(ph, "main1") or _str_eq(ph, "main2"))) or game.social is not None:
        # at sorcery timing; or in a Throne Magic game (its creatures' Throne abilities): the options built
        return len(game._priority_options(seat)) > 1
    # not sorcery timing: no land, commander, loyalty ability, Map or Junk (CR 307.1, 606.3)
    cdef Player p = game.players[seat]
    cdef dict tok = p.tokens
    cdef PyObject* t = NULL
    cdef int zero = _scan_tokens(tok, &t)
    cdef long avail = p.mana_pool + p.lands - p.lands_tapped
    cdef long tl
    cdef int ovf = 0
    # + tok["Treasure"]: in C when it is an int that fits (the sum too), else as the reference
    if t != NULL and PyLong_CheckExact(<object>t):
        tl = PyLong_AsLongAndOverflow(<object>t, &ovf)
        if ovf or (tl > 0 and avail > LONG_MAX - tl) or (tl < 0 and avail < LONG_MIN - tl):
            avail = avail + <object>t      # OverflowError, as the reference's conversion
        else:
            avail += tl
    else:
        avail = avail + tok["Treasure"]
    cdef list hand = p.hand
    cdef Py_ssize_t i, k, nh = PyList_GET_SIZE(hand)
    cdef PyObject* v
    if nh > C_MAX_HAND:
        nh = C_MAX_HAND
    for i in range(nh):
        c = <object>PyList_GET_ITEM(hand, i)
        # priority_cast: an instant, or a nonland card with flash (CardDef)
        k = _card(c)
        if _card_instant[k] and _card_cost[k] <= avail:
            if game.castable_targets(seat, c):
                return True
            zero = 0        # (castable_targets changes nothing; the scan is not relied on after Python ran)
    # every token ability's count is 0: the loop below would find nothing
    if zero != ALL_TOKEN_AB_ZERO:
        for name in C_TOKEN_ABILITIES:
            # borrowed (and no save and restore of the error state, as PyDict_GetItem does);
            # a missing name raises KeyError, as tok[name]
            v = PyDict_GetItemWithError(tok, name)
            if (tok[name] if v is NULL else <object>v) and game._token_ability_ok(seat, name, avail, False):
                return True
    cdef IdentityCard idc = p.identity
    cdef Py_ssize_t f
    cdef long cmana
    cdef bint undercover, ok
    if idc is not None:     # None: no identity card (Throne Magic), so no identity ability or unveil
        copy_of = idc.copy_of
        card = idc.identity if copy_of is None else copy_of        # IdentityCard.card
        f = _identity(card)      # its facts' slot, or -1: read its attributes
        if idc.face_up:
            name = card.name if f < 0 else <object>_facts[f].a        # (IdentityCard.name)
            v = PyDict_GetItemWithError(IMPLEMENTATIONS, name)        # IMPLEMENTATIONS.get(name)
            if v is not NULL:
                impl = <object>v
                k = _impl(impl)
                activated = impl.activated if k < 0 else <object>_facts[k].a
                if _may_activate(activated, idc.counters, avail) and _IA.can_activate(game, seat):
                    return True
        elif f < 0:
            cost = card.unveil_cost
            if cost is not None:
                mana = cost.mana
                # The Quellmaster's reduction (never negative) matters only when the full cost is not
                # available; IA.cost_reduction is 0 for an identity without one (IdentityImpl.cost_reduction)
                if not mana <= avail:
                    impl = IMPLEMENTATIONS.get(card.name)
                    if impl is None or impl.cost_reduction is None or not mana - _IA.cost_reduction(game, seat) <= avail:
                        cost = None
                if (cost is not None and (not card.undercover or game.undercover_met(seat))
                        and _IA.unveil_xs(game, seat, avail)):
                    return True
        elif <PyObject*>_facts[f].b != <PyObject*>None:
            # the same with the facts kept (read at once: _impl may refill the table)
            cmana = _facts[f].mana
            undercover = _facts[f].flags & F_UNDERCOVER
            ok = True
            if cmana > avail:
                v = PyDict_GetItemWithError(IMPLEMENTATIONS, <object>_facts[f].a)     # .get(card.name)
                if v is NULL:
                    ok = False
                else:
                    impl = <object>v
                    k = _impl(impl)
                    ok = ((impl.cost_reduction is not None) if k < 0 else (_facts[k].flags & F_REDUCTION) != 0) and (
                        cmana - _IA.cost_reduction(game, seat) <= avail)
            if ok and (not undercover or game.undercover_met(seat)) and _IA.unveil_xs(game, seat, avail):
                return True
    perms = p.permissions
    if perms:
        for perm in perms[:C_MAX_OTHER]:
            if game._permission_ok(seat, perm, avail, False):
                return True
    # talk outside one's own main phases: the end step of another player's turn (talk_window)
    return bool(_str_eq(ph, "end") and not active and not stack and game.talk_on and game._can_talk(seat))
