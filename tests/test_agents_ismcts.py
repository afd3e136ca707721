"""The ISMCTS bot (agents/ismcts.py): determinization from the seat's view,
information-set invariance, a forced win found by search, and strength
against the random bot."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

import agents
from agents.ismcts import ISMCTSAgent, determinize, setup_decision
from agents.play import play_game
from treachery_env import GameConfig
from treachery_env.engine import DecisionKind, Game
from treachery_env.rules import role_distribution

from identity_helpers import cast, pass_until, target_creature
from scenario import has_priority, make_game, pass_priority_until, refresh
from test_cleanup_step import _stolen_legend, _to_cleanup_priority
from test_information_sets import _permute_hidden
from training.evaluate import wilson_interval

CFG = GameConfig(num_players=4, commander=False, starting_life=10, max_turns=40)


def _states(seeds, every=7, cfg=CFG, limit=300):
    """(game, seat) pairs at decisions of random games, every ``every`` steps."""
    for seed in seeds:
        g = Game(cfg, seed=seed)
        rng = random.Random(seed)
        for step in range(limit):
            if g.is_over:
                break
            if step % every == 0:
                yield g, g.decision.seat
            g.step(rng.choice(g.legal_actions()))


def test_registered():
    bot = agents.make("ismcts", seed=3)
    assert isinstance(bot, ISMCTSAgent) and "ismcts" in agents.available()


@pytest.mark.parametrize("commander", [False, True])
def test_determinize_matches_everything_the_seat_knows(commander):
    """The determinized game looks, to the seat, exactly like the real one:
    same view (life, board, graveyards, exiles, hand, known identities, hand
    and library sizes, history) and, at the decisions the bot searches, the
    same observation vector and every real legal action."""
    cfg = CFG.replace(commander=commander)
    checked = searched = 0
    for g, seat in _states(range(6), cfg=cfg):
        view = g.view(seat)
        obs = g.observation(seat)
        h = determinize(view, random.Random(checked), observation=obs)
        hv = h.view(seat)
        assert hv.players == view.players
        for f in ("turn", "phase", "active", "harm", "attacks", "undercover_met", "dream"):
            assert getattr(hv, f) == getattr(view, f), f
        if setup_decision(h, view):
            searched += 1
            assert np.array_equal(h.observation(seat)["observation"], obs["observation"])
            assert set(g.legal_actions()) <= set(h.legal_actions())
            assert h.decision.seat == seat
        checked += 1
    assert checked >= 60 and searched >= 20, (checked, searched)


def test_determinize_samples_the_hidden_parts():
    """Hidden identities follow the public role distribution and vary with the
    rng, as do other hands and library orders; the seat's own hand does not."""
    g, seat = next((g, s) for g, s in _states([11], every=1)
                   if sum(p.identity is None for p in g.view(s).players) >= 2)
    view = g.view(seat)
    hidden = [p.seat for p in view.players if p.identity is None]
    roles, hands, libs = set(), set(), set()
    for k in range(30):
        h = determinize(view, np.random.default_rng(k))
        assert Counter(p.identity.role for p in h.players) == Counter(
            {r: c for r, c in role_distribution(4).items() if c})
        assert [c.name for c in h.players[seat].hand] == list(view.me.hand)
        roles.add(tuple(h.players[s].identity.role for s in hidden))
        hands.add(tuple(tuple(c.name for c in h.players[s].hand) for s in range(4) if s != seat))
        libs.add(tuple(c.name for c in h.players[seat].library))
    assert len(roles) > 1 and len(hands) > 1 and len(libs) > 1
    a = determinize(view, np.random.default_rng(5))
    b = determinize(view, np.random.default_rng(5))
    assert a.state_summary() == b.state_summary()


def assert_search_uses_only_its_information_set(make, states, min_states: int, min_searched: int) -> None:
    """Two bots built by ``make()`` (same seed), one on each decision of
    ``states`` and one on the same decision with what the seat cannot see
    permuted (hidden identities, other hands, library orders), choose the same
    action and search the same way (their ``stats``)."""
    rng = random.Random(4)
    n = searched = 0
    for g, seat in states:
        h = _permute_hidden(g, seat, rng)
        a, b = make(), make()
        a.reset(seat)
        b.reset(seat)
        assert a.act(g.observation(seat), {"view": g.view(seat)}) == b.act(h.observation(seat), {"view": h.view(seat)})
        assert a.stats == b.stats
        n += 1
        searched += a.stats["searched"]
    assert n > min_states and searched > min_searched, (n, searched)


def test_same_information_set_same_action():
    """Permuting what the seat cannot see never changes the bot's action (same seed)."""
    assert_search_uses_only_its_information_set(
        lambda: ISMCTSAgent(seed=9, iterations=6, determinizations=2, horizon=2, fallback=None),
        _states(range(3), every=11), 30, 10)


def test_search_finds_the_lethal_burn():
    """The Leader, with only one enemy left at 2 life, casts Shock at it (and
    wins) during its turn instead of passing the turn by."""
    g = make_game(["The Old Ruler", "The Seer", "The Demon", "The Gatekeeper"], commander=False, life=10)
    g.lose([2, 3])
    g.players[1].life = 2
    refresh(g)
    pass_priority_until(g, lambda g: has_priority(0)(g) and g.phase == "main1")
    bot = ISMCTSAgent(seed=0, iterations=12, determinizations=3, horizon=2)
    bot.reset(0)
    for _ in range(40):              # the other player only passes; any window of this turn will do
        if g.is_over or g.active != 0:
            break
        g.step(bot.act(g.observation(0), {"view": g.view(0)}) if g.decision.seat == 0 else 0)
    assert g.is_over and g.winners == {0}
    assert bot.stats["searched"] >= 1


def test_beats_random():
    """ISMCTS in one seat against three random bots wins more often than a
    random bot in the same seat of the same deals: the 95% Wilson interval of
    its win rate lies above the random bot's win rate (4 players, life 10,
    40 turns; a small budget, the rule fallback so that the result does not
    depend on other bots being registered)."""
    games = 96
    wins = base = 0
    for k in range(games):
        seat = k % 4
        bots = [agents.make("random", seed=100 * k + s) for s in range(4)]
        bots[seat] = ISMCTSAgent(seed=k, iterations=8, determinizations=2, horizon=3, beliefs=None,
                                  fallback=None)
        wins += seat in play_game(bots, CFG, seed=k).winners
        ref = [agents.make("random", seed=100 * k + s) for s in range(4)]
        base += seat in play_game(ref, CFG, seed=k).winners
    lo, _ = wilson_interval(wins, games)
    print(f"ismcts won {wins}/{games} (Wilson 95% lower bound {lo:.3f}); random in the same seats {base}/{games}")
    assert lo > base / games, (wins, base, games)


def test_larger_commander_table_searches_without_errors():
    """On a 5-player Commander table with every rarity of identity, the bot
    searches (determinization rebuilds its decisions) and no simulation raises."""
    cfg = GameConfig(num_players=5, commander=True, starting_life=20, max_turns=20, identity_pool="all")
    bot = ISMCTSAgent(seed=1, iterations=4, determinizations=2, horizon=2, beliefs=None, fallback=None)
    bots = [agents.make("random", seed=s) for s in range(5)]
    bots[2] = bot
    play_game(bots, cfg, seed=4)
    assert bot.stats["searched"] > 5 and bot.stats["mismatch"] == 0
    assert bot.stats["errors"] == 0, bot.last_error


def test_setup_decision_rebuilds_whom_an_attacker_attacks():
    """At a defending-player decision (CR 508.1b) of random 5-player games, the
    determinized world is pending on the same seat's decision about the same
    creature, the attackers declared before it attack the same players, the
    seat's observation is the same and every real legal action is legal."""
    cfg = CFG.replace(num_players=5)
    rebuilt = 0
    for seed in range(8):
        g = Game(cfg, seed=seed)
        rng = random.Random(seed)
        while not g.is_over and rebuilt < 12:
            if g.decision.kind == DecisionKind.DEFENDER:
                seat = g.decision.seat
                view = g.view(seat)
                h = determinize(view, random.Random(rebuilt), observation=g.observation(seat))
                assert setup_decision(h, view)
                rebuilt += 1
                assert h.decision.seat == seat and h.decision.kind == DecisionKind.DEFENDER
                assert h.decision.ctx.uid == g.decision.ctx.uid == view.decision.creature
                assert ([(c.uid, c.attacking) for c in h.combat_attackers]
                        == [(c.uid, c.attacking) for c in g.combat_attackers])
                assert np.array_equal(h.observation(seat)["observation"], g.observation(seat)["observation"])
                assert set(g.legal_actions()) <= set(h.legal_actions())
            g.step(rng.choice(g.legal_actions()))
    assert rebuilt >= 12, rebuilt


def test_a_search_started_in_a_cleanup_step_plays_the_cleanup_step_that_follows():
    """Seat 0 has priority in a cleanup step after the legend rule was applied
    there (CR 514.3a: another cleanup step follows).  The determinized game keeps
    that public mark of the turn (``view.turn_marks``), so the Shock seat 0 casts
    there marks damage that the next cleanup step removes, as in the real game;
    the rebuild still depends only on the seat's information set, and a hidden
    mark of the turn (another seat's scry in progress, its cards) is not in the
    view."""
    g, ambusher = _stolen_legend("The Old Ruler")
    _to_cleanup_priority(g)
    view = g.view(0)
    assert g.turn_effects == view.turn_marks == {"cleanup_again": True}
    h = determinize(view, random.Random(0), observation=g.observation(0))
    assert h.turn_effects == {"cleanup_again": True} and setup_decision(h, view)
    cast(h, 0, "Shock")
    target_creature(h, next(c for c in h.players[3].creatures if c.uid == ambusher.uid))
    pass_until(h, lambda h: h.active == 1)
    assert h.turn == 2 and all(c.damage == 0 for p in h.players for c in p.creatures)
    permuted = _permute_hidden(g, 0, random.Random(1))
    assert (determinize(permuted.view(0), random.Random(0)).state_summary()
            == determinize(view, random.Random(0)).state_summary())
    g.turn_effects["scry"] = {"seat": 1, "cards": list(g.players[1].library[-2:]), "top": [], "bottom": []}
    assert all(g.view(s).turn_marks == {"cleanup_again": True} for s in range(5))
