"""The lookahead bot (agents/lookahead.py): rollout policy improvement over the
heuristic bot -- registration and bad parameters, information-set invariance,
that it plays the heuristic's action where it does not search and deviates
only when a candidate's paired rollouts beat it, the decision kinds it
searches, a forced win it finds, and the playout helper."""

from __future__ import annotations

from collections import Counter

import pytest

import agents
from agents.heuristic import HeuristicAgent
from agents.lookahead import LookaheadAgent, heuristic_playout
from treachery_env.engine import DecisionKind, Game

from scenario import has_priority, make_game, pass_priority_until, refresh
from test_agents_ismcts import CFG, _states, assert_search_uses_only_its_information_set


def test_registered_and_bad_parameters():
    assert isinstance(agents.make("lookahead", seed=1), LookaheadAgent)
    for kw in ({"worlds": 0}, {"horizon": -1}, {"max_candidates": 1}, {"margin": -0.1}):
        with pytest.raises(ValueError, match="lookahead: worlds >= 1"):
            LookaheadAgent(**kw)


def test_same_information_set_same_action():
    """Permuting what the seat cannot see (hidden identities, other hands,
    library orders) never changes the bot's action or its search (same seed)."""
    assert_search_uses_only_its_information_set(lambda: LookaheadAgent(seed=9, worlds=2, horizon=0),
                                                _states(range(4), every=9), 40, 5)


def _play_seat_0(cfg, seed: int, decide) -> None:
    """One game of ``cfg``: ``decide(g, obs, info)`` returns seat 0's actions, heuristic bots play the rest."""
    g = Game(cfg, seed=seed)
    others = [HeuristicAgent(seed=s) for s in range(cfg.num_players)]
    for s, o in enumerate(others):
        o.reset(s)
    while not g.is_over:
        s = g.decision.seat
        obs, info = g.observation(s), {"view": g.view(s)}
        g.step(decide(g, obs, info) if s == 0 else others[s].act(obs, info))


def test_heuristic_action_unless_a_candidate_pays():
    """Over whole games: where the bot does not search, and wherever no
    candidate beats the heuristic's action by the margin, it plays what the
    heuristic plays (an impossible margin makes it the heuristic, move for
    move); with the default margin it searches and sometimes deviates.
    ``last_scores`` holds each searched decision's candidate scores (the
    heuristic's action and the played one among them; a deviation scores
    above the heuristic's action by more than the margin) and is None after
    a decision it did not search."""
    cfg = CFG.replace(num_players=5)
    for margin, expect_deviation in ((1.99, False), (0.02, True)):
        deviated = searched = scored = 0
        for seed in range(3):
            bot, ref = LookaheadAgent(seed=seed, worlds=2, horizon=1, margin=margin), HeuristicAgent(seed=seed)
            bot.reset(0)
            ref.reset(0)

            def decide(g, obs, info):
                nonlocal scored
                a, r = bot.act(obs, info), ref.act(obs, info)
                assert a in g.legal_actions()
                assert bot.last_base == r
                if margin > 1.5:
                    assert a == r
                sc = bot.last_scores
                if sc is not None:
                    scored += 1
                    assert r in sc and a in sc and set(sc) <= set(g.legal_actions())
                    assert a == r or sc[a] > sc[r] + margin
                return a

            _play_seat_0(cfg, seed, decide)
            searched += bot.stats["searched"]
            deviated += bot.stats["deviated"]
        assert searched > 20 and scored == searched
        assert (deviated > 0) == expect_deviation, (margin, deviated, searched)


def test_search_finds_the_lethal_burn():
    """The Leader, with one enemy left at 2 life, casts Shock at it in its
    main phase and wins (the heuristic's choice or a searched one: the
    rollout with the burn spell wins outright)."""
    g = make_game(["The Old Ruler", "The Seer", "The Demon", "The Gatekeeper"], commander=False, life=10)
    g.lose([2, 3])
    g.players[1].life = 2
    refresh(g)
    pass_priority_until(g, lambda g: has_priority(0)(g) and g.phase == "main1")
    bot = LookaheadAgent(seed=0, worlds=2, horizon=1)
    bot.reset(0)
    for _ in range(40):
        if g.is_over or g.active != 0:
            break
        g.step(bot.act(g.observation(0), {"view": g.view(0)}) if g.decision.seat == 0 else 0)
    assert g.is_over and g.winners == {0}


def test_heuristic_playout_stops_at_the_horizon():
    g = Game(CFG, seed=3)
    start = g.turn
    k = heuristic_playout(g, 1, seed=0)
    assert k > 0 and (g.is_over or g.turn == start + 2)
    h = Game(CFG, seed=3)
    assert heuristic_playout(h, 1, seed=0) == k and h.state_summary() == g.state_summary()


def test_kinds_choose_the_decisions_searched():
    """``kinds`` names the decision kinds searched: with ``("defender",)`` the
    bot searches whom each attacker attacks (CR 508.1b) and nothing else, by
    default it never searches that decision; an empty, bare-string, unknown or
    repeated kind is refused in one line that names it.  Permuting what the seat
    cannot see never changes a defender search."""
    for bad, msg in (((), "kinds must be a non-empty collection of"), ("defender", "kinds must be a non-empty"),
                     (5, "kinds must be a non-empty"), (("attacker", "target"), "unknown decision kind 'target'"),
                     (("blocker", "attacker", "blocker"), "decision kind 'blocker' given twice")):
        with pytest.raises(ValueError, match=f"^lookahead: {msg}"):
            LookaheadAgent(kinds=bad)
    cfg = CFG.replace(num_players=5)
    for kinds in (("defender",), None):
        searched_by_kind = Counter()
        for seed in range(3):
            bot = LookaheadAgent(seed=seed, worlds=2, horizon=0) if kinds is None else \
                LookaheadAgent(seed=seed, worlds=2, horizon=0, kinds=kinds)
            bot.reset(0)

            def decide(g, obs, info):
                a = bot.act(obs, info)
                if bot.last_scores is not None:
                    searched_by_kind[info["view"].decision.kind] += 1
                return a

            _play_seat_0(cfg, seed, decide)
        if kinds is None:
            assert searched_by_kind["defender"] == 0 and sum(searched_by_kind.values()) > 20
        else:
            assert set(searched_by_kind) == {"defender"} and searched_by_kind["defender"] >= 5, searched_by_kind
    defender_states = ((g, seat) for g, seat in _states(range(12), every=1, cfg=cfg)
                       if g.decision.kind == DecisionKind.DEFENDER)
    assert_search_uses_only_its_information_set(
        lambda: LookaheadAgent(seed=9, worlds=2, horizon=0, kinds=("defender",)), defender_states, 5, 3)


def test_a_search_that_fails_everywhere_warns_once(monkeypatch):
    """The search catches failures inside determinization and rollouts (an imagined world the
    rebuild does not cover is skipped, a rollout error scores neutral) and counts them; when a
    whole search fails (every determinization, or every rollout, raised) it also warns, once a
    bot, so that such a fault cannot leave the bot, or a training teacher, silently playing the
    heuristic's actions alone (it did once: session 43's lost observation vector)."""
    import agents.lookahead as la

    def states():
        return ((g, seat) for g, seat in _states(range(3), every=1)
                if g.decision.kind == DecisionKind.ATTACKER)

    for target, what in (("determinize", "every determinization of a search raised"),
                         ("heuristic_playout", "every rollout of a search raised")):
        def broken(*args, **kwargs):
            raise RuntimeError("broken on purpose")
        with monkeypatch.context() as m:
            m.setattr(la, target, broken)
            bot = LookaheadAgent(seed=0, worlds=2, horizon=0)
            with pytest.warns(RuntimeWarning, match=f"^lookahead bot: {what} .*broken on purpose") as caught:
                acted = 0
                for g, seat in states():
                    bot.reset(seat)
                    info = {"view": g.view(seat)}
                    before = bot.stats["errors"]
                    assert bot.act(g.observation(seat), info) == bot.last_base     # the heuristic's action
                    acted += bot.stats["errors"] > before
                    if acted >= 3:
                        break
            assert len([w for w in caught if issubclass(w.category, RuntimeWarning)]) == 1
            assert bot.stats["errors"] >= 2
