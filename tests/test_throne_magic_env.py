"""Throne Magic's observation and environment (docs/throne_magic.md step 4): its own
layout (Treachery's blocks, then the Roles and the Throne), what a seat may know of the
Roles, and the PettingZoo environment over it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from treachery_env import raw_env
from treachery_env import throne_cards as tc
from treachery_env import throne_roles as tr
from treachery_env.engine import Game
from treachery_env.observation import (CREATURE_ATTACKED, CREATURE_ATTACKING, HOLDING_FEATURES, PLAYER_FEATURES,
                                       PLAYER_ROLE, THRONE_PURPOSES, WALKER_FEATURES, ThroneObsLayout, obs_layout)
from treachery_env.actions import MAX_PERMS, MAX_WALKERS
from treachery_env.engine.state import ATTACKABLE_KINDS

from identity_helpers import creature
from test_throne_magic import BASIC5, NO_KING, attack_throne, throne, throne_game, to_take

NAMES = tr.names()
NR = len(NAMES)


def tail(g: Game, seat: int) -> dict[str, np.ndarray]:
    """The Throne Magic block of ``seat``'s observation, by field."""
    x = g.observation(seat)["observation"]
    L = obs_layout(g.n, "throne_magic")
    f = L.throne_fields
    widths = {"roles": NR, "own_role": NR, "known": g.n * NR, "graph": NR * NR, "throne": len(tc.thrones()),
              "controller": g.n + 1, "purpose": len(THRONE_PURPOSES), "season": 4,
              "holdings": 10 * (HOLDING_FEATURES + g.n + 1), "taking": 11}
    return {k: x[f[k]:f[k] + w] for k, w in widths.items()}


def test_the_layout_is_treacherys_then_the_throne_magic_block():
    for n in (4, 5, 10):
        L, T = obs_layout(n), obs_layout(n, "throne_magic")
        assert isinstance(T, ThroneObsLayout) and T.throne == L.size
        assert T.size == (L.size + 2 * NR + n * NR + NR * NR + 7 + n + 1 + len(THRONE_PURPOSES) + 4
                          + 10 * (HOLDING_FEATURES + n + 1) + 11)
        assert (T.players, T.creatures, T.walkers, T.context, T.talk) == (L.players, L.creatures, L.walkers,
                                                                          L.context, L.talk)
    with pytest.raises(ValueError, match="obs_layout: unknown game 'mafia'"):
        obs_layout(5, "mafia")


def test_the_block_holds_the_public_roles_the_own_role_and_the_graph():
    g = Game(throne(throne_deal=BASIC5, throne="Throne of Power"), seed=0)
    t = tail(g, 2)
    assert [NAMES[i] for i in np.flatnonzero(t["roles"])] == [n for n in NAMES if n in BASIC5]
    assert [NAMES[i] for i in np.flatnonzero(t["own_role"])] == [BASIC5[2]]
    known = t["known"].reshape(5, NR)
    # its own, and The King's (seat 0, relative 3): he starts with the Throne, in front of everyone
    assert [list(np.flatnonzero(row)) for row in known] == [[NAMES.index(BASIC5[2])], [], [], [NAMES.index("The King")], []]
    graph = t["graph"].reshape(NR, NR)
    for a in NAMES:
        for b in NAMES:
            want = a in BASIC5 and b in BASIC5 and b in tr.get(a).must_eliminate
            assert graph[NAMES.index(a), NAMES.index(b)] == float(want)
    assert list(np.flatnonzero(t["throne"])) == [[c.name for c in tc.thrones()].index("Throne of Power")]
    assert list(np.flatnonzero(t["controller"])) == [(0 - 2) % 5]      # The King, seat 0, relative to seat 2
    # no identity features for anyone
    x = g.observation(2)["observation"]
    for r in range(5):
        b = obs_layout(5).players + r * PLAYER_FEATURES
        assert not x[b + PLAYER_ROLE:b + PLAYER_ROLE + 4].any()


def test_a_revealed_role_is_known_to_every_seat():
    g = Game(throne(throne_deal=BASIC5), seed=0)
    g.lose(4)
    for seat in range(4):
        known = tail(g, seat)["known"].reshape(5, NR)
        assert known[(4 - seat) % 5, NAMES.index("Dragon")] == 1.0


def test_the_uncontrolled_throne_and_its_attackers_are_encoded():
    """The Throne in the middle is slot 0 of the reserved attackable row; a creature attacking it
    is attacking with no attacked player; the controller field says "uncontrolled"."""
    g = throne_game(NO_KING)
    bear = creature(g, 0, "Grove Bear")
    attack_throne(g, bear)
    x = g.observation(1)["observation"]
    L = obs_layout(4)
    q = L.walkers + 4 * MAX_WALKERS * WALKER_FEATURES
    assert x[q] == 1.0 and x[q + 1 + ATTACKABLE_KINDS.index("throne")] == 1.0
    c = L.creatures + ((0 - 1) % 4) * MAX_PERMS * L.creature_features
    assert x[c + CREATURE_ATTACKING] == 1.0 and not x[c + CREATURE_ATTACKED:c + CREATURE_ATTACKED + 4].any()
    assert tail(g, 1)["controller"][4] == 1.0
    to_take(g)
    assert list(np.flatnonzero(tail(g, 0)["purpose"])) == [THRONE_PURPOSES.index("_h_throne_take")]
    assert not tail(g, 1)["purpose"].any()


def _public(g: Game) -> list:
    return [e for e in g.log if e["to"] is None]


@pytest.mark.parametrize("seed", range(4))
def test_permuting_the_roles_a_seat_does_not_know_leaves_its_observation_unchanged(seed):
    """The no-leak property (DESIGN section 4) for Throne Magic: two games whose deals differ
    only in the Roles of the seats the viewer does not know give the viewer the same
    observation (and mask) at every decision while their public histories agree."""
    rng = random.Random(seed)
    roles = tr.random_roles(6, np.random.default_rng(seed))
    viewer = seed % 6
    # The King's seat is public (he starts with the Throne); the others' Roles are hidden from the viewer
    others = [s for s in range(6) if s != viewer and roles[s] != "The King"]
    shuffled = others[:]
    while shuffled == others:
        rng.shuffle(shuffled)
    deal_b = list(roles)
    for s, t in zip(others, shuffled):
        deal_b[s] = roles[t]
    cfg = dict(num_players=6, throne_roles=list(roles), throne="Throne of Power", starting_life=4, commander=False,
               max_turns=30, mulligans="none")
    a = Game(throne(throne_deal=list(roles), **cfg), seed=seed)
    b = Game(throne(throne_deal=deal_b, **cfg), seed=seed)
    steps = 0
    while not a.is_over and not b.is_over and _public(a) == _public(b):
        oa, ob = a.observation(viewer), b.observation(viewer)
        assert np.array_equal(oa["observation"], ob["observation"]) and np.array_equal(oa["action_mask"], ob["action_mask"])
        acts = a.legal_actions()
        if acts != b.legal_actions():
            break                          # another seat's options differ: the hidden deal decides them
        act = rng.choice(acts)
        a.step(act)
        b.step(act)
        steps += 1
    assert steps >= 20


# ----------------------------------------------------------------------------- the environment
def test_the_environment_plays_throne_magic_with_its_spaces_and_state():
    env = raw_env(config=throne(num_players=5, starting_life=5, commander=False, max_turns=40), view_in_info=False)
    env.reset(seed=4)
    size = obs_layout(5, "throne_magic").size
    assert env.observation_space("player_0")["observation"].shape == (size,)
    state = env.state()
    assert state.shape == env.state_space.shape
    roles = state[:5 * NR].reshape(5, NR)
    assert [NAMES[int(np.argmax(row))] for row in roles] == list(env.game.social.roles)
    r = random.Random(4)
    steps = 0
    final = {}
    for agent in env.agent_iter(max_iter=5000):
        obs, rew, term, trunc, info = env.last()
        assert obs["observation"].shape == (size,)
        if term or trunc:
            final[agent] = rew
            env.step(None)
            continue
        env.step(r.choice(list(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    g = env.game
    assert g.is_over and steps > 10 and set(final) == set(env.possible_agents)
    for seat in range(5):
        want = 0.0 if g.truncated or not g.winners else 1.0 if seat in g.winners else -1.0
        assert final[f"player_{seat}"] == want


def test_the_holdings_are_in_the_block_by_their_place_in_the_game():
    g = Game(throne(num_players=5, holdings=True, throne_deal=BASIC5), seed=2)
    hs = g.social.holdings
    g._holding_to(hs[3], 2, "taken")
    t = tail(g, 1)["holdings"].reshape(10, HOLDING_FEATURES + 6)
    pool = [c.name for c in tc.holdings()]
    for k in range(10):
        row = t[k]
        if k >= 5:
            assert not row.any()
            continue
        assert row[0] == 1.0 and list(np.flatnonzero(row[1:18])) == [pool.index(hs[k].name)]
        where = list(np.flatnonzero(row[18:24]))
        assert where == ([(2 - 1) % 5] if k == 3 else [5])
    env = raw_env(config=throne(num_players=5, holdings=True), view_in_info=False)
    env.reset(seed=0)
    assert env.action_space("player_0").n == env.game.layout.size == raw_env(config=throne()).layout.size + 5


@pytest.mark.parametrize("kw", [dict(num_players=5), dict(num_players=7, throne_roles="draft", holdings=True,
                                                           seasons=True)])
def test_pettingzoos_api_and_seed_tests_pass_for_throne_magic(kw):
    import treachery_env
    from pettingzoo.test import api_test, seed_test
    api_test(treachery_env.env(game="throne_magic", **kw), num_cycles=1500)
    seed_test(lambda: treachery_env.env(game="throne_magic", **kw), num_cycles=500)


def test_nothing_of_the_game_is_reachable_from_a_throne_magic_environment():
    """A seat's observation and info (its view) lead to no engine object (as for Treachery,
    tests/test_no_game_reachable.py)."""
    from test_no_game_reachable import reachable
    from treachery_env.engine.throne import ThroneMagic
    env = raw_env(config=throne(num_players=6, holdings=True, seasons=True, starting_life=5, commander=False))
    env.reset(seed=1)
    r = random.Random(1)
    for k, agent in enumerate(env.agent_iter(max_iter=400)):
        obs, rew, term, trunc, info = env.last()
        if k % 20 == 0:
            found = reachable(obs, info)
            assert len(found) > 50 and not any(isinstance(x, (Game, ThroneMagic)) for x in found.values())
        env.step(None if term or trunc else r.choice(list(np.flatnonzero(obs["action_mask"]))))
