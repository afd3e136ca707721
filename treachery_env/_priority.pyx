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
reduction).  Whatever needs the rules themselves -- targets
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

from cpython.dict cimport PyDict_GetItemWithError
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.object cimport PyObject
from cpython.ref cimport Py_INCREF, Py_XDECREF
from libc.stdint cimport uint64_t

from treachery_env.engine.state cimport GameState, IdentityCard, Player

from . import identity_abilities as _IA
from .actions import MAX_HAND, MAX_OTHER, TOKEN_ABILITIES
from .compiled import state_compiled

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


def can_act(GameState game, long seat):
    """Whether ``seat`` has a priority action other than passing in ``game`` now.

    Args:
        game: a running :class:`~treachery_env.engine.Game` (a ``GameState``).
        seat: a seat of the table (``game.players[seat]``).

    Returns:
        ``len(game._priority_options(seat)) > 1`` (a bool), computed as
        :meth:`~treachery_env.engine.priority.PriorityMixin._can_act` does: at
        sorcery timing (the active player, empty stack, a main phase;
        CR 307.1) the options are built; otherwise only what has instant speed
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
    if active and not stack and (ph == "main1" or ph == "main2"):
        return len(game._priority_options(seat)) > 1
    # not sorcery timing: no land, commander, loyalty ability, Map or Junk (CR 307.1, 606.3)
    cdef Player p = game.players[seat]
    cdef dict tok = p.tokens
    cdef long avail = p.mana_pool + p.lands - p.lands_tapped + tok["Treasure"]
    cdef list hand = p.hand
    cdef Py_ssize_t i, k, nh = PyList_GET_SIZE(hand)
    cdef PyObject* v
    if nh > C_MAX_HAND:
        nh = C_MAX_HAND
    for i in range(nh):
        c = <object>PyList_GET_ITEM(hand, i)
        # priority_cast: an instant, or a nonland card with flash (CardDef)
        k = _card(c)
        if _card_instant[k] and _card_cost[k] <= avail and game.castable_targets(seat, c):
            return True
    for name in C_TOKEN_ABILITIES:
        # borrowed (and no save and restore of the error state, as PyDict_GetItem does);
        # a missing name raises KeyError, as tok[name]
        v = PyDict_GetItemWithError(tok, name)
        if (tok[name] if v is NULL else <object>v) and game._token_ability_ok(seat, name, avail, False):
            return True
    cdef IdentityCard idc = p.identity
    copy_of = idc.copy_of
    card = idc.identity if copy_of is None else copy_of        # IdentityCard.card
    if idc.face_up:
        impl = IMPLEMENTATIONS.get(card.name)        # (IdentityCard.name)
        if impl is not None and _may_activate(impl.activated, idc.counters, avail) and (
                _IA.can_activate(game, seat)):
            return True
    else:
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
    perms = p.permissions
    if perms:
        for perm in perms[:C_MAX_OTHER]:
            if game._permission_ok(seat, perm, avail, False):
                return True
    # talk outside one's own main phases: the end step of another player's turn (talk_window)
    return bool(ph == "end" and not active and not stack and game.talk_on and game._can_talk(seat))
