"""The bots in Throne Magic (issue #16, docs/throne_magic.md step 5): the heuristic and belief
bots read the Role graph (agents/throne.py), the search bots refuse the mode clearly."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import treachery_env
from agents.throne import ALLY, ENEMY, HUNTER, ThroneBelief, role_probabilities, throne_want
from treachery_env.engine import Game

from test_throne_magic import BASIC5, throne


def play(names: list[str], seed: int, **kw) -> Game:
    """A whole Throne Magic game on the environment with one bot per seat."""
    env = treachery_env.env(game="throne_magic", num_players=len(names), max_turns=120, **kw)
    env.reset(seed=seed)
    bots = {a: agents.make(nm, seed=i) for i, (a, nm) in enumerate(zip(env.possible_agents, names))}
    for i, b in enumerate(bots.values()):
        b.reset(i)
    for agent in env.agent_iter(max_iter=40000):
        obs, r, t, tr_, info = env.last()
        env.step(None if t or tr_ else bots[agent].act(obs, info))
    return env.unwrapped.game


@pytest.mark.parametrize("seed", range(3))
def test_the_heuristic_and_belief_bots_play_throne_magic_games_to_their_end(seed):
    g = play(["heuristic", "belief", "heuristic", "belief", "random", "heuristic"][:5 + seed % 2], seed,
             throne_roles="random", holdings=seed > 0, seasons=seed != 1)
    assert g.is_over
    ended = [e for e in g.log if e["event"] == "game_over"]
    assert g.truncated or ended


def test_the_want_of_the_king_follows_the_role_graph():
    """The King must eliminate The Usurper, the Usurper's Bannerman and the Dragon; the Dragon
    and the Usurper's side hunt him; his Bannerman shares his list: an ally."""
    g = Game(throne(throne_deal=BASIC5), seed=0)
    for s in range(5):
        g.social.known_by[s].add(0)         # suppose The King (seat 0) knew every Role
    want = throne_want(g.view(0))
    assert want == {0: -3.0, 1: ENEMY + HUNTER, 2: ALLY, 3: ENEMY + HUNTER, 4: ENEMY + HUNTER}


def test_unknown_roles_are_spread_uniformly_over_unknown_seats():
    g = Game(throne(throne_deal=BASIC5), seed=0)
    probs = role_probabilities(g.view(2))
    assert probs[2] == {"King's Bannerman": 1.0} and probs[0] == {"The King": 1.0}
    rest = ["The Usurper", "Usurper's Bannerman", "Dragon"]
    for s in (1, 3, 4):
        assert probs[s] == {r: pytest.approx(1 / 3) for r in rest}


def test_the_belief_reads_attacks_on_the_king_as_the_usurpers_side():
    """A seat that attacked The King again and again is likelier to hold a Role that must
    eliminate him than one that does not; the posterior is a distribution over the Roles not
    placed, each placed once (exact enumeration)."""
    g = Game(throne(throne_deal=BASIC5), seed=0)
    g.attacks[3][0] = 6              # the Usurper's Bannerman keeps attacking The King
    b = ThroneBelief().beliefs(g.view(2))        # seen by the King's Bannerman
    assert b[0] == {"The King": 1.0} and b[2] == {"King's Bannerman": 1.0}
    rest = ["The Usurper", "Usurper's Bannerman", "Dragon"]
    m = np.array([[b[s][r] for r in rest] for s in (1, 3, 4)])
    assert np.allclose(m.sum(axis=0), 1.0) and np.allclose(m.sum(axis=1), 1.0)
    # every unplaced Role hunts The King, but the Dragon hunts everyone: attacks aimed at The King
    # alone are likelier from the Usurper's side, whose list is narrower
    assert b[3]["The Usurper"] == pytest.approx(b[3]["Usurper's Bannerman"])
    assert b[3]["The Usurper"] > 1 / 3 > b[3]["Dragon"]
    # and against a Wizard, whose list does not name The King's Bannerman:
    deal = ["The King", "The Usurper", "King's Bannerman", "Wizard", "Dragon"]
    g = Game(throne(num_players=5, throne_roles=deal, throne_deal=deal), seed=0)
    g.attacks[1][0] = 6
    b = ThroneBelief().beliefs(g.view(2))
    assert b[1]["The Usurper"] > b[3]["The Usurper"] and b[1]["The Usurper"] > 1 / 3


@pytest.mark.parametrize("name", ["ismcts", "lookahead"])
def test_the_search_bots_refuse_throne_magic_in_one_line(name):
    env = treachery_env.env(game="throne_magic", num_players=5)
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    with pytest.raises(ValueError, match=rf"the {name} bot plays Treachery only"):
        agents.make(name, seed=0).act(obs, info)
