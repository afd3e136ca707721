# The game's objects as extension types with typed fields, for the compiled engine
# (Cython reads this beside state.py, whose classes it compiles into these types).
#
# The engine's other compiled modules cimport them: a function that declares a local's
# type (``@cython.locals(p=Player)``) reads ``p.life`` at its offset.  Run from source,
# state.py's classes are plain classes with the same slots.
#
# Types: ``long`` for numbers (seats, uids, counts, life, turns), ``bint`` for truth
# values (assigning a number stores whether it is nonzero), ``list``/``dict`` where the
# engine keeps only that type there (or None), ``object`` for the rest (anything that
# may be None, a set, a tuple, a string or another object).  Every field stays
# readable and writable from Python (``public``) under its name in state.py.

cdef class StateRecord:
    pass        # no fields: the base that gives every state class its pickling (state.py)


cdef class Creature(StateRecord):
    cdef public long uid
    cdef public object name, card, base_keywords, pump_kw, blocking, attacking_obj
    cdef public bint token, tapped, deathtouched, was_blocked, is_commander, legendary
    cdef public long owner, controller, base_power, base_toughness, damage, p1p1, stun, entered_turn
    cdef public long pump_p, pump_q, attacking, base_controller, ordinal
    cdef public list blocked_by, control_effects


cdef class Attackable(StateRecord):
    cdef public long uid, owner, controller, base_controller, loyalty, used_turn, entered_turn, ordinal
    cdef public object kind, name, card
    cdef public bint token


cdef class IdentityCard(StateRecord):
    cdef public long uid, owner, controller, x
    cdef public object identity, known_by, copy_of, role_override
    cdef public bint face_up, in_game
    cdef public dict counters, used, data


cdef class VanguardCard(StateRecord):
    cdef public long uid, owner
    cdef public object name


cdef class Player(StateRecord):
    cdef public long seat, life, lands, lands_tapped, commander_casts, lost_turn, mana_pool, max_hand_size
    cdef public long mulligans
    cdef public list hand, library, graveyard, exile, creatures, permissions, borrowed, attackables
    cdef public dict tokens, cmd_damage, counters
    cdef public IdentityCard identity
    cdef public VanguardCard vanguard
    cdef public object commander, commander_zone, last_team, last_role, deck
    cdef public bint has_lost, land_played, drew_from_empty, cant_lose, won


cdef class StackItem(StateRecord):
    cdef public long uid, controller, x, owner, base_controller
    cdef public object kind, card, source, key, from_zone, creature, label
    cdef public bint identity_source, is_copy
    cdef public list targets, target_specs, control_effects
    cdef public dict data


cdef class Decision(StateRecord):
    cdef public long seat, kind
    cdef public list options
    cdef public object handler, ctx, prompt, labels, label, _index


cdef class GameState(StateRecord):
    cdef public object config, seed, layout, rng, phase, queue, priority_seat, winners, mulligan_state
    cdef public object concession_seats, revealed_identities, leader_attacked_by, resolving, role_counts
    cdef public object _statics, suspended, talk, social, schemes
    cdef public object planar
    cdef public long n, turn, active, passes, order_seat, decisions_taken, auto_decisions, _uid, n_alive
    cdef public list players, stack, pending_triggers, delayed, shields, effects, extra_turns, log, actions
    cdef public list concessions, combat_attackers, harm, attacks, leaving
    cdef public Decision decision
    cdef public dict turn_effects
    cdef public bint is_over, truncated, _dirty, full_windows, show_forced, talk_on
