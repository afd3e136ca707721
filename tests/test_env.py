"""The PettingZoo environment contract (DESIGN section 4)."""

from __future__ import annotations

import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

import treachery_env
from treachery_env import GameConfig
from treachery_env.env import raw_env


@pytest.mark.parametrize("n,seed", [(4, 0), (5, 1), (6, 2), (8, 3)])
def test_api_test(n, seed):
    api_test(treachery_env.env(num_players=n), num_cycles=3000)


def test_seed_test():
    seed_test(lambda: treachery_env.env(num_players=5), num_cycles=1000)


def test_render_test():
    render_test(lambda render_mode=None: treachery_env.env(num_players=5, render_mode=render_mode))


def _outcome(fn):
    """(exception type, message) of calling ``fn``, or ("ok", repr of the result)."""
    try:
        return ("ok", repr(type(fn())))
    except Exception as exc:  # noqa: BLE001 - the point is to compare whatever is raised
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("use", [
    lambda e: e.rewards, lambda e: e.terminations, lambda e: e.truncations, lambda e: e.infos,
    lambda e: e.agent_selection, lambda e: e.num_agents, lambda e: e.agents, lambda e: e.step(0),
    lambda e: e.observe("player_0"), lambda e: e.last(), lambda e: e.state(), lambda e: e.render(),
    lambda e: e.agent_iter(), lambda e: e.possible_agents, lambda e: e.max_num_agents,
    lambda e: e.observation_space("player_1").shape, lambda e: e.action_space("player_1").n,
    lambda e: e._private_thing, lambda e: e.unwrapped.config.num_players,
])
def test_lean_wrapper_behaves_as_the_stock_one_before_reset(use):
    """env() is PettingZoo's order enforcing without the __getattr__ chain: the
    same values and the same errors (type and message) before reset()."""
    lean = treachery_env.env(num_players=5)
    stock = wrappers.OrderEnforcingWrapper(raw_env(num_players=5))
    assert isinstance(lean, wrappers.OrderEnforcingWrapper)
    assert _outcome(lambda: use(lean)) == _outcome(lambda: use(stock))


def test_lean_wrapper_after_reset_and_after_the_end():
    """After reset the hot attributes are the raw env's own objects; a step once
    every agent is done warns as the stock wrapper does; the loop must step."""
    e = treachery_env.env(num_players=4, max_turns=3)
    e.reset(seed=1)
    raw = e.unwrapped
    assert e.infos is raw.infos and e._cumulative_rewards is raw._cumulative_rewards
    assert e.agent_selection == raw.agent_selection and e.num_agents == 4
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.agents == []
    with pytest.raises(RuntimeError, match=r"^last\(\) after the game ended \(every agent is done\): call reset\(\)$"):
        e.last()
    EnvLogger.flush()
    e.step(None)
    assert EnvLogger.mqueue and "step() called after all agents are terminated" in EnvLogger.mqueue[-1]
    EnvLogger.flush()
    e.reset(seed=2)
    it = iter(e.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="need to call step"):
        next(it)


def test_registry_make():
    e = pettingzoo.make("aec", "treachery/treachery-v0", num_players=4)
    e.reset(seed=3)
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]


def _play(e, seed, policy_seed=0, limit=100_000):
    """Random legal play; returns (trajectory of (agent, action), final rewards by agent)."""
    rng = np.random.default_rng(policy_seed)
    e.reset(seed=seed)
    traj = []
    final = {}
    for agent in e.agent_iter(limit):
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            final[agent] = rew
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any(), "acting agent must have a legal action"
        a = int(rng.choice(np.flatnonzero(mask)))
        traj.append((agent, a))
        e.step(a)
    return traj, final


def test_same_seed_same_trajectory_and_reseed_after_play():
    e1 = raw_env(num_players=5, max_turns=20)
    e2 = raw_env(num_players=5, max_turns=20)
    t1, r1 = _play(e1, seed=7)
    _play(e2, seed=99)            # play something else first: reseeding must fully reset
    t2, r2 = _play(e2, seed=7)
    assert t1 == t2 and r1 == r2


def test_truncation_at_max_turns_gives_zero_rewards():
    e = raw_env(num_players=4, max_turns=3)
    _, final = _play(e, seed=0)
    g = e.game
    assert g.truncated and g.turn == 3
    assert set(final) == set(e.possible_agents)
    assert all(r == 0.0 for r in final.values())


def test_every_seat_gets_team_result_including_eliminated():
    """Rewards reach eliminated players through their last-known team (TR7.4)."""
    cfg = GameConfig(num_players=5, identities=["The Old Ruler", "The Bodyguard", "The Seer", "The Demon",
                                                "The Banisher"], decks=["aggro"] * 5)
    e = raw_env(config=cfg)
    e.reset(seed=0)
    g = e.game
    g.lose([2])                      # an Assassin is knocked out first
    assert "player_2" in e.agents    # stays in the game's agent list
    g.lose([0])                      # the Leader falls: the Assassins win, the dead one too
    e._after_game_step()             # what env.step does after the engine moved (rules set directly here)
    e._accumulate_rewards()
    assert g.is_over and g.winners == {2, 3}
    seen = {}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        assert term and not trunc
        seen[agent] = rew
        e.step(None)
    assert seen == {"player_0": -1.0, "player_1": -1.0, "player_2": 1.0, "player_3": 1.0, "player_4": -1.0}


def test_eliminated_player_is_never_selected():
    e = raw_env(num_players=6, max_turns=40)
    rng = np.random.default_rng(0)
    for seed in range(3):
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            assert not e.game.players[int(agent.split("_")[1])].has_lost
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_illegal_action_raises_value_error_with_meaning():
    e = treachery_env.env(num_players=5, mulligans="none")     # the first decision is a priority
    e.reset(seed=0)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=r"illegal action .*legal: 0: pass"):
        e.step(illegal)


def test_bad_config_and_render_mode():
    with pytest.raises(ValueError, match="num_players"):
        raw_env(num_players=3)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="render_seat"):
        raw_env(render_seat=9)


def test_spaces_identity_and_masks_of_non_acting_agents():
    e = raw_env(num_players=5)
    e.reset(seed=1)
    for a in e.possible_agents:
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a) is e.action_space(a)
        o = e.observe(a)
        assert o["observation"].dtype == np.float32
        assert e.observation_space(a).contains(o)
        if a != e.agent_selection:
            assert not o["action_mask"].any()


def test_describe_action_and_view_in_info():
    e = raw_env(num_players=5, mulligans="none")     # the first decision is a priority (no mulligans)
    e.reset(seed=2)
    obs, _, _, _, info = e.last()
    legal = np.flatnonzero(obs["action_mask"])
    words = [e.describe_action(e.agent_selection, int(a)) for a in legal]
    assert "pass priority" in words
    assert all(isinstance(w, str) and w for w in words)
    view = info["view"]
    seat = int(e.agent_selection.split("_")[1])
    assert view.seat == seat and view.me.hand is not None
    assert all(p.hand is None for p in view.players if p.seat != seat)
    assert sorted(view.decision.actions()) == sorted(int(a) for a in legal)
    kinds = {o.kind for o in view.decision.options}
    assert "pass" in kinds and kinds <= {"pass", "land", "cast", "commander", "unveil", "identity_ability", "token",
                                         "permission", "talk"}
    for o in view.decision.options:
        if o.kind in ("land", "cast"):
            assert o.card in view.me.hand
        if o.kind == "talk":                     # table talk (TR10.5): a message kind, about a seat or none
            assert o.talk in ("claim", "accuse", "defend", "threaten", "protect", "request", "offer")
            assert (o.player is None) == (o.talk in ("claim", "request")) and o.player != seat
    e.step(int(legal[0]))
    assert view.seat == seat                     # a view read before stepping stays a valid snapshot
    obs, _, _, _, info2 = e.last()
    now = e.game.view(int(e.agent_selection.split("_")[1]))
    assert info2["view"] == now
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert info2["view"] == now                  # read after the game moved on: still that moment's view
    assert info2["view"] != e.game.view(now.seat)


def test_state_is_privileged_and_observation_is_not():
    e = raw_env(num_players=5)
    e.reset(seed=4)
    st = e.state()
    assert st.shape == e.state_space.shape and st.dtype == np.float32
    roles = st[: 5 * 4].reshape(5, 4)
    assert (roles.sum(axis=1) == 1).all()
    for p in e.game.players:
        assert roles[p.seat, int(p.identity.role)] == 1


def test_render_ansi_hides_hidden_identities():
    cfg = GameConfig(num_players=5, identities=["The Old Ruler", "The Bodyguard", "The Seer", "The Demon",
                                                "The Banisher"], decks=["aggro"] * 5)
    e = raw_env(config=cfg, render_mode="ansi", render_seat=2)
    e.reset(seed=0)
    text = e.render()
    assert "The Seer" in text                      # the viewer's own identity
    assert "The Old Ruler" in text                 # the face-up Leader
    for hidden in ("The Bodyguard", "The Demon", "The Banisher"):
        assert hidden not in text
    assert "[hidden]" in text
    spectator = raw_env(config=cfg, render_mode="ansi")
    spectator.reset(seed=0)
    assert "The Seer" not in spectator.render()


def test_pickle_roundtrip_env():
    e = raw_env(num_players=4)
    e2 = pickle.loads(pickle.dumps(e))
    e2.reset(seed=0)
    assert e2.agent_selection.startswith("player_")


def test_package_imports_only_numpy_gymnasium_pettingzoo():
    """DESIGN section 1: treachery_env runs with numpy + pettingzoo + gymnasium
    only; in particular it never imports torch."""
    import subprocess
    import sys
    code = ("import sys, treachery_env\n"
            "e = treachery_env.env(num_players=4); e.reset(seed=0)\n"
            "bad = [m for m in ('torch', 'rich', 'tqdm', 'matplotlib') if m in sys.modules]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("bad", [1.5, "abc", -1, 10_000, True, np.float32(0.0), np.bool_(False), "0",
                                 np.array([0]), np.array(0.0)])
def test_bad_action_types_and_ranges_raise_value_error(bad):
    e = treachery_env.env(num_players=4)
    e.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        e.step(bad)
    with pytest.raises(ValueError, match="action"):
        e.unwrapped.describe_action(e.agent_selection, bad)


def test_an_action_may_be_a_numpy_integer_or_a_0d_integer_array():
    """As ``Game.step``, the env takes what RL libraries hand over (``actions.as_action``):
    numpy integers and 0-d integer arrays play as the int they hold."""
    runs = []
    for wrap in (int, np.int64, np.uint16, np.array):
        e = treachery_env.env(num_players=4)
        e.reset(seed=0)
        for _ in range(30):
            a = int(np.flatnonzero(e.last()[0]["action_mask"])[-1])
            assert e.unwrapped.describe_action(e.agent_selection, wrap(a)) == e.unwrapped.describe_action(
                e.agent_selection, a)
            e.step(wrap(a))
        runs.append(e.unwrapped.game.digest())
    assert len(set(runs)) == 1


@pytest.mark.parametrize("kwargs,field", [
    ({"foo": 1}, "foo"),
    ({"max_cycles": 100}, "max_turns"),
    ({"identity_pool": 5}, "identity_pool"),
    ({"decks": 5}, "decks"),
    ({"decks": [["aggro"]] * 5}, "decks"),
    ({"identities": [1, 2, 3, 4, 5]}, "identities"),
    ({"banned_identities": "The Seer"}, "banned_identities"),
])
def test_bad_config_values_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        raw_env(**kwargs)


@pytest.mark.parametrize("use", [lambda e: e.state(), lambda e: e.describe_action("player_0", 0),
                                 lambda e: e.observe("player_0"), lambda e: e.last(), lambda e: e.last(False),
                                 lambda e: e.step(0)],
                         ids=["state", "describe_action", "observe", "last", "last without observing", "step"])
def test_using_the_raw_env_before_reset_is_a_clear_error(use):
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before using the environment$"):
        use(raw_env(num_players=4))


@pytest.mark.parametrize("agent", ["player_9", 0, "Player_0", ["player_0"]], ids=["name", "seat number", "case", "list"])
def test_an_unknown_agent_is_named_in_one_line(agent):
    """observe, the spaces and describe_action of an agent not in possible_agents (a misspelt
    name, a seat number): one ValueError naming it and the agents, through the wrapper too
    (a bare ``KeyError: 0`` named neither)."""
    e = treachery_env.env(num_players=4)
    e.reset(seed=0)
    for use in (e.observe, e.observation_space, e.action_space, lambda a: e.unwrapped.describe_action(a, 0)):
        with pytest.raises(ValueError, match=r"^unknown agent .*; agents are \['player_0', "):
            use(agent)


def test_a_numpy_integer_seed_is_the_same_seed():
    """``reset(seed=np.int64(3))`` (a seed drawn with numpy) plays seed 3's game; gymnasium
    refused it ("Seed must be a python integer"); a negative seed is still refused."""
    import gymnasium

    a, b = raw_env(num_players=4), raw_env(num_players=4)
    a.reset(seed=3)
    b.reset(seed=np.int64(3))
    assert a.game.digest() == b.game.digest() and a.np_random_seed == b.np_random_seed == 3
    with pytest.raises(gymnasium.error.Error, match="greater or equal to zero"):
        b.reset(seed=np.int64(-1))


def test_the_parallel_env_s_step_refuses_bad_actions_in_one_line():
    """``parallel_env().step``: before ``reset()``, actions that are not a dict by agent, an
    agent name not in possible_agents, and a dict without the acting agent's action are each
    one clear error (PettingZoo's wrapper gave a bare AttributeError or KeyError, or played on
    past a misspelt name); the game is untouched by a refused step, and the full dict plays."""
    par = treachery_env.parallel_env(num_players=4)
    with pytest.raises(RuntimeError, match=r"^parallel env: call reset\(\) before step\(\)$"):
        par.step({"player_0": 0})
    obs, _ = par.reset(seed=3)
    acting = next(a for a in par.agents if obs[a]["action_mask"].any())
    move = int(np.flatnonzero(obs[acting]["action_mask"])[0])
    before = par.unwrapped.game.digest()
    with pytest.raises(TypeError, match="^actions must be a dict of actions by agent, got list$"):
        par.step([move])
    with pytest.raises(ValueError, match=r"^actions name unknown agents \['player_9', 0\]; agents are "):
        par.step({acting: move, "player_9": 0, 0: move})
    with pytest.raises(ValueError, match=f"^actions has no action for '{acting}', the agent to act"):
        par.step({a: 0 for a in par.agents if a != acting})
    assert par.unwrapped.game.digest() == before
    par.step({a: move if a == acting else 0 for a in par.agents})
    assert par.unwrapped.game.digest() != before


def test_commander_leaves_the_game_with_its_owner():
    """CR 800.4a: a player's commander leaves with them; the view says so."""
    e = raw_env(num_players=5)
    e.reset(seed=0)
    g = e.game
    seat = next(s for s in range(5) if not g.players[s].identity.face_up)
    g.lose([seat])
    assert g.players[seat].commander_zone == "out"
    assert g.view((seat + 1) % 5).players[seat].commander_zone == "out"


def test_keyword_fields_that_contradict_the_config_are_refused():
    """``env(num_players=6, config=GameConfig(num_players=5))`` used to give 6 players
    silently; a keyword that agrees with the config is fine (issue #14)."""
    cfg = GameConfig(num_players=5)
    with pytest.raises(ValueError, match=r"^num_players=6 contradicts the config's num_players=5; give each field once"):
        treachery_env.env(num_players=6, config=cfg)
    with pytest.raises(ValueError, match="unknown GameConfig fields"):
        raw_env(config=cfg, nplayers=5)
    assert raw_env(config=cfg, num_players=5).config is cfg


def test_numpy_scalars_are_the_numbers_they_hold_in_a_config():
    """numpy integers and booleans (as a script computing a table size gives them) are
    accepted as actions are, and stored as plain ints and bools (issue #14)."""
    cfg = GameConfig(num_players=np.int64(5), commander=np.True_, max_turns=np.int32(30), concession=[np.int64(1)])
    assert cfg == GameConfig(num_players=5, max_turns=30, concession=[1])
    assert type(cfg.num_players) is int and type(cfg.commander) is bool and type(cfg.concession[0]) is int
    assert raw_env(config=cfg).possible_agents == [f"player_{i}" for i in range(5)]
    with pytest.raises(ValueError, match="num_players"):
        GameConfig(num_players=np.float64(5))


def test_a_fixed_deal_holding_a_banned_identity_is_refused():
    deal = ["The Blood Empress", "The Bodyguard", "The Ambitious Queen", "The Beastmaster", "The Banisher"]
    assert GameConfig(num_players=5, identities=deal).identities == tuple(deal)
    with pytest.raises(ValueError, match=r"GameConfig.identities: the deal holds \['The Banisher'\], which "
                                         r"banned_identities bans"):
        GameConfig(num_players=5, identities=deal, banned_identities=["The Banisher"])


def _play_on(e, pick, limit: int | None = None) -> list:
    """Step ``e`` with ``pick(mask)`` (None for a finished agent) until no agent is left
    or ``limit`` steps; the (agent, action) sequence."""
    out = []
    while e.agents and (limit is None or len(out) < limit):
        obs, _, term, trunc, _ = e.last()
        a = None if term or trunc else pick(np.flatnonzero(obs["action_mask"]))
        out.append((e.agent_selection, a))
        e.step(a)
    return out


@pytest.mark.parametrize("make", [treachery_env.env, raw_env])
def test_a_deep_copy_is_the_same_game_going_on_independently(make):
    """``copy.deepcopy(env)`` mid-game gives an env in the same state (it used to be one
    never reset): played on with the same actions, both make the same moves and end
    with the same winners, and playing the copy leaves the original where it was."""
    import copy
    e = make(num_players=4, max_turns=40)
    e.reset(seed=3)
    _play_on(e, lambda legal: int(legal[0]), limit=200)
    c = copy.deepcopy(e)
    assert type(c) is type(e) and c.unwrapped.game is not e.unwrapped.game
    assert c.agent_selection == e.agent_selection and c.unwrapped.game.digest() == e.unwrapped.game.digest()
    before = e.unwrapped.game.digest()
    tail = _play_on(c, lambda legal: int(legal[-1]))
    assert e.unwrapped.game.digest() == before
    assert _play_on(e, lambda legal: int(legal[-1])) == tail and len(tail) > 0
    assert c.unwrapped.game.winners == e.unwrapped.game.winners


def test_stepping_a_raw_env_after_the_end_says_so():
    """The raw env raised ``KeyError: 'player_0'`` for a step or ``last()`` once every agent
    was done (the wrapped env warns at a step, as PettingZoo's does: test above)."""
    e = raw_env(num_players=4, max_turns=3)
    with pytest.raises(RuntimeError, match="call reset"):
        e.step(0)
    e.reset(seed=1)
    _play_on(e, lambda legal: int(legal[0]))
    with pytest.raises(RuntimeError, match=r"^step\(\) after the game ended \(every agent is done\): call reset\(\)"):
        e.step(0)
    with pytest.raises(RuntimeError, match=r"^last\(\) after the game ended"):
        e.last()


@pytest.mark.parametrize("n", [4, 5])
def test_the_parallel_env_passes_pettingzoos_parallel_api_test_and_plays_the_same_game(n):
    """``treachery_env.parallel_env()`` (issue #14): PettingZoo's ``parallel_api_test``; at
    every step exactly one seat has a nonzero mask, and playing that seat's first legal
    action (the others' actions ignored) gives the AEC game of the same seed, choices and
    ``forced_decisions`` (the parallel form's "shown" by default, or "auto")."""
    from pettingzoo.test import parallel_api_test

    parallel_api_test(treachery_env.parallel_env(num_players=n, max_turns=20), num_cycles=300)
    forced = ("shown", "auto")[n % 2]
    par = treachery_env.parallel_env(num_players=n, max_turns=20, forced_decisions=forced)
    obs, _ = par.reset(seed=7)
    aec = treachery_env.env(num_players=n, max_turns=20, forced_decisions=forced)
    aec.reset(seed=7)
    steps = 0
    while par.agents:
        acting = [a for a in par.agents if obs[a]["action_mask"].any()]
        assert len(acting) == 1
        a = acting[0]
        move = int(np.flatnonzero(obs[a]["action_mask"])[0])
        assert aec.agent_selection == a
        np.testing.assert_array_equal(aec.last()[0]["observation"], obs[a]["observation"])
        aec.step(move)
        while aec.agents and (aec.terminations[aec.agent_selection] or aec.truncations[aec.agent_selection]):
            aec.step(None)
        obs, rewards, terms, truncs, _ = par.step({b: (move if b == a else 0) for b in par.agents})
        steps += 1
    assert steps > 50 and par.unwrapped.game.digest() == aec.unwrapped.game.digest()
    assert par.unwrapped.game.winners == aec.unwrapped.game.winners
