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
from treachery_env.view import seat_view

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


SEEDS = range(24)
"""Seeds of the order checks: 0-11 the default game, 12-17 six players dealt from every identity,
18-23 Throne Magic (its hidden Roles swapped instead of identities)."""


@pytest.mark.parametrize("seed", SEEDS)
def test_who_decides_next_depends_only_on_public_information(seed):
    """DESIGN section 4, no leak, for the order of decisions: a game and a copy that differs
    only in what one seat cannot see (other seats' face-down identities or Throne Magic Roles,
    hands, libraries; ``_permute_hidden``), played on by seats that pass wherever they may, ask
    the same seats the same kinds of decision in the same order with "shown", for as long as
    the public log is the same (a discarded or milled card, public, may then differ)."""
    first, second = _orders(seed, "shown")
    assert first == second and len(first) >= 30


def test_the_order_check_has_teeth():
    """With "auto" the order tells who holds what (a face-down identity that can be unveiled is
    asked at every window): the copies of the check above differ in several of its seeds."""
    differ = [seed for seed in SEEDS if (lambda o: o[0] != o[1])(_orders(seed, "auto"))]
    assert len(differ) >= 3, differ


def _orders(seed: int, forced: str) -> tuple[list, list]:
    """The (seat, kind) of each decision of a random game's continuation by passing seats, for
    the game and for a copy with what a seat cannot see permuted (:data:`SEEDS` says which game),
    in step until the two public logs differ or 3,000 decisions."""
    rng = random.Random(seed)
    kw = (dict(num_players=5) if seed < 12 else dict(num_players=6, identity_pool="all") if seed < 18
          else dict(num_players=5, game="throne_magic", talk="none"))
    g = Game(GameConfig(max_turns=20, forced_decisions=forced, **kw), seed=seed)
    turn = rng.randrange(1, 8)
    while not g.is_over and g.turn < turn:      # random play to a turn, the same in both modes
        g.step(rng.choice(g.legal_actions()))
    viewer = rng.randrange(g.n)
    h = (_permute_roles if g.social else _permute_hidden)(g, viewer, random.Random(seed))
    orders: tuple[list, list] = ([], [])
    public = len(g.log)
    while not (g.is_over or h.is_over) and len(orders[0]) < 3000:
        if [e for e in g.log[public:] if e["to"] is None] != [e for e in h.log[public:] if e["to"] is None]:
            break
        for game, order in zip((g, h), orders):
            order.append((game.decision.seat, game.decision.kind))
            game.step(_passing(game))
    return orders


def _permute_roles(g: Game, viewer: int, rng: random.Random) -> Game:
    """A copy of the Throne Magic game ``g`` whose Roles unknown to ``viewer`` are shuffled among
    their seats (and every library)."""
    h = g.clone()
    soc = h.social
    hidden = [s for s in range(h.n) if viewer not in soc.known_by[s] and not h.players[s].has_lost]
    roles = list(soc.roles)
    moved = [roles[s] for s in hidden]
    rng.shuffle(moved)
    for s, r in zip(hidden, moved):
        roles[s] = r
    soc.roles = tuple(roles)
    for p in h.players:
        rng.shuffle(p.library)
    return h


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


def test_a_spell_is_named_to_every_seat_before_its_caster_s_x_and_targets_in_the_parallel_form():
    """CR 601.2a in the parallel form ("shown", every seat stepping at every decision): the step
    that begins a cast logs the public ``casting`` event naming the card, its caster and its zone,
    and every seat's view holds it; the decisions that follow until the spell becomes cast (the
    ``cast`` event, CR 601.2i) are its caster's own X and targets, nobody else's."""
    par = treachery_env.parallel_env(num_players=5, max_turns=12, view_in_info=False)
    rng = random.Random(11)
    casts = between = 0
    for seed in range(3):
        obs, _ = par.reset(seed=seed)
        g = par.unwrapped.game
        casting = None                  # the open casting event: announced, not yet cast
        while par.agents:
            (agent,) = [a for a in par.agents if obs[a]["action_mask"].any()]
            seat = par.possible_agents.index(agent)
            if casting is not None:
                assert seat == casting["seat"] and g.decision.kind in (DecisionKind.NUMBER, DecisionKind.TARGET)
                between += 1
            start = len(g.log)
            move = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
            obs, *_ = par.step({a: (move if a == agent else 0) for a in par.agents})
            for e in g.log[start:]:
                if e["event"] == "casting":
                    assert casting is None and e["to"] is None and set(e) <= {
                        "turn", "event", "seat", "card", "zone", "owner", "source", "to"}
                    casting = e
                elif e["event"] == "cast":
                    assert casting is not None and (e["seat"], e["card"]) == (casting["seat"], casting["card"])
                    casting, casts = None, casts + 1
            if casting is not None:         # its caster's X or targets next: every seat sees the card
                assert g.log[-1] is casting
                for s in range(g.n):
                    assert casting in [dict(v) for v in seat_view(g, s).events]
        assert casting is None
    assert casts >= 10 and between >= 5, (casts, between)
