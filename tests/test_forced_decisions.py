"""``GameConfig.forced_decisions`` (CR 117.3: every player receives priority): "auto" takes a
single-option decision without showing it (DESIGN section 4), "shown" shows every decision and
every seat's priority, so the order in which seats decide is public: what the parallel form
(``treachery_env.parallel_env``), where every seat steps at every decision, needs."""

from __future__ import annotations

import random

import numpy as np
import pytest

import treachery_env
from treachery_env import GameConfig
from treachery_env.engine import Game
from treachery_env.engine.state import DecisionKind

from test_information_sets import _permute_hidden

CONFIGS = [
    dict(num_players=5),
    dict(num_players=4, priority_windows="main", talk="none", commander=False),
    dict(num_players=6, identity_pool="all", concession=True, mulligans="none"),
    dict(num_players=5, game="throne_magic", holdings=True, seasons=True, talk="none"),
    dict(num_players=4, planechase="single", vanguard="random", archenemy="supervillain_rumble"),
]


def _chosen(g: Game) -> list[int]:
    """The options of ``g``'s decision but CONCEDE (which only shown decisions get)."""
    return [a for a, _ in g.decision.options if a != g.layout.CONCEDE]


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_shown_forced_decisions_play_the_same_game(kw):
    """Random play of the "auto" game, then the same choices in the "shown" game, whose extra
    decisions are single-option ones (a pass, a forced choice) taken as their only option: the
    same log, winners and end, and the extra decisions are the "auto" game's automatic ones."""
    for seed in range(4):
        rng = random.Random(seed)
        cfg = GameConfig(max_turns=20, **kw)
        auto = Game(cfg, seed=seed)
        choices = []
        while not auto.is_over:
            choices.append(rng.choice(_chosen(auto)))
            auto.step(choices[-1])
        shown = Game(cfg.replace(forced_decisions="shown"), seed=seed)
        it, single = iter(choices), 0
        while not shown.is_over:
            opts = _chosen(shown)
            if len(opts) == 1:
                single += 1
                shown.step(opts[0])
            else:
                shown.step(next(it))
        assert next(it, None) is None, "the shown game ended before the auto game's choices ran out"
        assert shown.log == auto.log
        assert (shown.winners, shown.truncated, shown.turn) == (auto.winners, auto.truncated, auto.turn)
        assert shown.auto_decisions == 0
        assert single == auto.auto_decisions > 0


def _passing(g: Game) -> int:
    """PASS where it is legal, else the first option: a play that tells nothing of a hand."""
    opts = _chosen(g)
    return g.layout.PASS if g.layout.PASS in opts else opts[0]


def _priority_rounds(forced: str, turns: int) -> list[list[int]]:
    """The seats asked for priority, round by round (a round ends at any other decision or when
    every seat still in was asked), in the first ``turns`` turns of a 5-player game of passes."""
    g = Game(GameConfig(num_players=5, forced_decisions=forced, mulligans="none"), seed=3)
    rounds, current = [], []
    while g.turn <= turns:
        d = g.decision
        if d.kind == DecisionKind.PRIORITY:
            current.append(d.seat)
        if current and (d.kind != DecisionKind.PRIORITY or len(current) == g.n_alive):
            rounds.append(current)
            current = []
        g.step(_passing(g))
    return rounds


def test_every_seat_still_in_the_game_gets_priority_in_turn_order():
    """CR 117.3a-d: with "shown", a priority round asks every seat in turn order from the
    active player, whether it can do more than pass or not (nobody plays a land); with "auto"
    only the seats that can do more (here: talk) are asked, fewer than half."""
    rounds = _priority_rounds("shown", 2)
    # 8 windows a turn: upkeep, draw, main 1, beginning of combat, declare attackers, end of
    # combat, main 2, end (CR 508.8: no attackers, no blockers or damage steps)
    assert len(rounds) == 16
    for r in rounds:
        assert r == [(r[0] + k) % 5 for k in range(5)]
    asked = sum(len(r) for r in _priority_rounds("auto", 2))
    assert asked < sum(len(r) for r in rounds) // 2      # talk is all most seats can do


@pytest.mark.parametrize("seed", range(12))
def test_who_decides_next_depends_only_on_public_information(seed):
    """DESIGN section 4, no leak, for the order of decisions: a game and a copy that differs
    only in what one seat cannot see (other seats' face-down identities, hands, libraries;
    ``_permute_hidden``), played on by seats that pass wherever they may, ask the same seats
    the same kinds of decision in the same order with "shown".  With "auto" the order tells who
    holds what (a face-down identity that can be unveiled is asked at every window): the
    copies differ in some of these seeds (checked over all of them below)."""
    for forced in ("shown", "auto"):
        order = _orders(seed, forced)
        if forced == "shown":
            assert order[0] == order[1]
        _AUTO_DIFFERS[seed] = order[0] != order[1]


_AUTO_DIFFERS: dict[int, bool] = {}


def _orders(seed: int, forced: str) -> list[list[tuple[int, int]]]:
    """The (seat, kind) of each decision of a random game's continuation by passing seats, for
    the game and for a copy with another seat's hidden information permuted."""
    rng = random.Random(seed)
    g = Game(GameConfig(num_players=5, max_turns=12, forced_decisions=forced), seed=seed)
    for _ in range(rng.randrange(300)):
        if g.is_over:
            break
        g.step(rng.choice(g.legal_actions()))
    viewer = rng.randrange(5)
    orders = []
    for h in (g, _permute_hidden(g, viewer, random.Random(seed))):
        order = []
        while not h.is_over and len(order) < 3000:
            order.append((h.decision.seat, h.decision.kind))
            h.step(_passing(h))
        orders.append(order)
    return orders


def test_the_auto_order_check_has_teeth():
    """The "auto" copies above differed in some seeds: the "shown" check compares games whose
    "auto" order does tell hidden information."""
    got = _AUTO_DIFFERS or {seed: (lambda o: o[0] != o[1])(_orders(seed, "auto")) for seed in range(12)}
    assert sum(got.values()) >= 2, got


def test_a_shown_game_replays():
    """The replay records the config, ``forced_decisions`` in it, and every shown action."""
    g = Game(GameConfig(num_players=5, forced_decisions="shown", max_turns=15), seed=4)
    rng = random.Random(4)
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    again = Game.from_json(g.to_json())
    assert again.config.forced_decisions == "shown"
    assert again.log == g.log and again.actions == g.actions and again.winners == g.winners


def test_a_bad_value_is_a_one_line_error():
    with pytest.raises(ValueError, match=r"^GameConfig.forced_decisions: must be one of \['auto', 'shown'\].*'always'"):
        GameConfig(forced_decisions="always")


def test_the_parallel_form_shows_every_decision_unless_asked_not_to():
    """``parallel_env`` plays "shown" by default, a ``config`` given included; ``forced_decisions
    ="auto"`` is the AEC env's game.  The AEC env keeps "auto"."""
    def forced(par):
        return par.aec_env.unwrapped.config.forced_decisions

    assert forced(treachery_env.parallel_env(num_players=4)) == "shown"
    assert forced(treachery_env.parallel_env(config=GameConfig(num_players=4, talk="none"))) == "shown"
    assert forced(treachery_env.parallel_env(num_players=4, forced_decisions="auto")) == "auto"
    assert forced(treachery_env.parallel_env(config=GameConfig(num_players=4), forced_decisions="auto")) == "auto"
    assert treachery_env.env(num_players=4).unwrapped.config.forced_decisions == "auto"
    with pytest.raises(ValueError, match="forced_decisions"):
        treachery_env.parallel_env(num_players=4, forced_decisions="sometimes")
    par = treachery_env.parallel_env(num_players=4, view_in_info=False)
    obs, _ = par.reset(seed=1)
    masks = [int(obs[a]["action_mask"].sum()) for a in par.agents]
    assert sorted(masks)[:-1] == [0, 0, 0] and max(masks) >= 1


def test_a_seat_with_a_single_option_in_the_shown_game_sees_a_mask_of_one():
    """A shown single-option decision is an ordinary decision of the AEC env: its mask has one 1,
    its info lists that action, and ``describe_action`` names it."""
    env = treachery_env.env(num_players=4, forced_decisions="shown", mulligans="none", talk="none")
    env.reset(seed=2)
    for agent in env.agent_iter(200):
        obs, _, term, trunc, info = env.last()
        if obs["action_mask"].sum() == 1:
            (a,) = np.flatnonzero(obs["action_mask"])
            assert info["legal_actions"] == [a] and env.describe_action(agent, a) == "pass priority"
            return
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    raise AssertionError("no single-option decision in 200 steps")
