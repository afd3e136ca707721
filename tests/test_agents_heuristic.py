"""The role-aware heuristic bot (issue 4): it beats the random bot in every role,
acts on its information set only, and always answers legally and quickly."""

from __future__ import annotations

import copy
import hashlib
import random

import numpy as np
import pytest

import agents
from agents.heuristic import HeuristicAgent
from agents.play import play_game
from treachery_env import GameConfig
from treachery_env import identities as ids
from treachery_env.engine import Game
from treachery_env.env import raw_env
from treachery_env.rules import Role, role_distribution

from test_information_sets import _permute_hidden
from training.evaluate import wilson_interval

from conftest import decisions


_IMPL = set(ids.implemented())
_UNCOMMON = {r: [i.name for i in ids.all_identities() if i.role == r and i.rarity == "uncommon" and i.name in _IMPL]
             for r in Role}


def _deal(seed: int, seat: int, role: Role, n: int = 5) -> list[str]:
    """A fixed uncommon deal for ``n`` seats with ``role`` at ``seat``."""
    rng = random.Random(seed)
    roles = [r for r, c in role_distribution(n).items() for _ in range(c)]
    roles.remove(role)
    rng.shuffle(roles)
    roles.insert(seat, role)
    out: list[str] = []
    for r in roles:
        out.append(rng.choice([x for x in _UNCOMMON[r] if x not in out]))
    return out


def _wins(role: Role, who: str, games: int) -> int:
    """Games won by ``who`` in the role's seat against four random bots (same deals for every ``who``)."""
    k = 0
    for g in range(games):
        seat = g % 5
        seed = 1000 * int(role) + g
        cfg = GameConfig(num_players=5, commander=False, starting_life=10, max_turns=100,
                         identities=_deal(seed, seat, role))
        bots = [agents.make("random", seed=seed * 7 + i) for i in range(5)]
        bots[seat] = agents.make(who, seed=seed)
        k += seat in play_game(bots, cfg, seed=seed).winners
    return k


# games per role: enough that the 95% Wilson lower bound clears the random bot's rate
# (72 Guardian games since the London mulligan: random Guardians win about half of them; 60
# Assassin games since the identity fixes of session 60 moved these deals: 21 of 30 against
# random's 16 left the bound at 0.521, under 16/30; 47 of 60 against 30)
_GAMES = {Role.LEADER: 50, Role.GUARDIAN: 72, Role.ASSASSIN: 60, Role.TRAITOR: 20}


@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.name.lower())
def test_heuristic_beats_random_in_every_role(role):
    n = _GAMES[role]
    heuristic = _wins(role, "heuristic", n)
    baseline = _wins(role, "random", n)
    lo, _ = wilson_interval(heuristic, n)
    assert lo > baseline / n, (role.name, heuristic, baseline, n)


def test_registered_and_deterministic():
    assert "heuristic" in agents.available()
    assert isinstance(agents.make("heuristic", seed=1), HeuristicAgent)
    cfg = GameConfig(num_players=5, commander=False, starting_life=10, max_turns=60)
    runs = [play_game([agents.make("heuristic", seed=i) for i in range(5)], cfg, seed=11) for _ in range(2)]
    assert (runs[0].winners, runs[0].decisions, runs[0].turns) == (runs[1].winners, runs[1].decisions, runs[1].turns)


def _drive(g: Game, bots: list, steps: int) -> None:
    for _ in range(steps):
        if g.is_over:
            return
        s = g.current_player
        g.step(bots[s].act(g.observation(s), {"view": g.view(s)}))


@pytest.mark.parametrize("variant", ["standard", "backstab_rumble", "simple_roles"])
def test_same_information_set_same_action(variant):
    """Permuting what the acting seat can't see (others' face-down identities and
    hands, library orders) never changes the action of the bot, in the same state."""
    checked = 0
    for seed in range(16):
        n = 4 + seed % 5
        cfg = GameConfig(num_players=n, commander=bool(seed % 2), starting_life=12, max_turns=40,
                         identity_pool="all", variant=variant)
        g = Game(cfg, seed=seed)
        bots = [agents.make("heuristic", seed=seed * 10 + i) for i in range(n)]
        for i, b in enumerate(bots):
            b.reset(i)
        rng = random.Random(seed)
        for _ in range(8):
            _drive(g, bots, rng.randint(5, 80))
            if g.is_over:
                break
            s = g.current_player
            want = copy.deepcopy(bots[s]).act(g.observation(s), {"view": g.view(s)})
            for _ in range(2):
                h = _permute_hidden(g, s, rng)
                got = copy.deepcopy(bots[s]).act(h.observation(s), {"view": h.view(s)})
                assert got == want, (seed, g.describe_action(want), h.describe_action(got))
                checked += 1
    assert checked >= 150


def test_legal_in_every_variant():
    """Hundreds of short games, 4-8 players, all variants and identities: every
    decision is legal and none crashes (its speed: ``python -m agents.benchmark``)."""
    games = 0
    for variant in ("standard", "backstab_rumble", "simple_roles"):
        for seed in range(70):
            n = 4 + seed % 5
            cfg = GameConfig(num_players=n, commander=bool(seed % 2), starting_life=8, max_turns=16,
                             identity_pool="all", variant=variant)
            rng = np.random.default_rng(seed)
            bots = [agents.make("heuristic" if rng.random() < 0.7 else "random", seed=seed + i) for i in range(n)]
            for env, bot, obs, info in decisions(cfg, seed, bots):
                a = bot.act(obs, info)
                assert obs["action_mask"][a] == 1
                env.step(a)
            games += 1
    assert games >= 200


def test_guardians_never_attack_the_leader():
    """Role play: a heuristic Guardian sends no attacker at a Leader player
    (unless the Leader is the only player it may attack), and a heuristic
    Traitor does not attack a Leader at 10 life or less while Assassins remain."""
    checked = 0
    for seed in range(30):
        cfg = GameConfig(num_players=5 + seed % 3, commander=False, starting_life=10, max_turns=60)
        bots = [agents.make("heuristic", seed=seed + i) for i in range(cfg.num_players)]
        for env, bot, obs, info in decisions(cfg, seed, bots):
            a = bot.act(obs, info)
            v = info["view"]
            if v.decision.kind == "defender":
                leaders = {p.seat for p in v.players if p.leader_player}
                chosen = next(o.player for o in v.decision.options if o.action == a)
                others = [o for o in v.decision.options if o.player not in leaders]
                if v.me.role == Role.GUARDIAN and others:
                    assert chosen not in leaders
                    checked += 1
                gone = sum(1 for p in v.players if not p.in_game and p.role == Role.ASSASSIN)
                if (v.me.role == Role.TRAITOR and others and gone < role_distribution(cfg.num_players)[Role.ASSASSIN]
                        and chosen in leaders):
                    assert v.players[chosen].life > 10
            env.step(a)
    assert checked >= 20


def test_no_view_is_refused_in_one_line_not_played_blind():
    """An info without ``view`` (``view_in_info=False``): a ValueError naming the bot and the
    remedy, as the belief, lookahead and ISMCTS bots give (it used to take the first legal
    action, a much weaker bot no one was told of)."""
    bot = agents.make("heuristic", seed=0)
    mask = np.zeros(12, np.int8)
    mask[[3, 9]] = 1
    for info in ({}, None):
        with pytest.raises(ValueError, match=r"^the heuristic bot reads info\['view'\], .*view_in_info=True"):
            bot.act({"observation": None, "action_mask": mask}, info)


def test_combat_labels_follow_the_declared_creature():
    """As a DAgger expert the bot labels states another policy reached: after that
    policy declared some other attacker (or blocker) than the bot would have, the
    bot's defending-player (or attacker-to-block) choice is its plan for the
    creature actually being declared, which the decision names (CR 508.1, 509.1)."""
    checked = {"defender": 0, "blocked": 0}
    for seed in range(200):         # stops as soon as both kinds were checked (blocks are rarer)
        env = raw_env(config=GameConfig(num_players=4, commander=False, starting_life=20, max_turns=30))
        env.reset(seed=seed)
        g = env.game
        expert = HeuristicAgent(seed=seed)
        expert.reset(0)
        others = [agents.make("random", seed=seed * 7 + s) for s in range(4)]
        for s, a in enumerate(others):
            a.reset(s)
        while not g.is_over:
            seat, info = g.current_player, env.infos[env.agent_selection]
            obs = g.observation(seat)
            if seat == 0:
                d = info["view"].decision
                if d.kind in checked:
                    assert d.creature in {c.uid for c in info["view"].me.creatures}
                    plan = expert._attack_plan if d.kind == "defender" else expert._block_plan
                    want = plan.get(d.creature)         # the bot's plan for the creature being declared
                label = expert.act(obs, info)          # the expert labels every decision of seat 0
                if d.kind in checked and want is not None:
                    if isinstance(want, tuple):          # ("planeswalker", uid): attack a planeswalker
                        assert label == next(o.action for o in d.options if o.planeswalker == want[1])
                    else:
                        key = "player" if d.kind == "defender" else "creature"
                        assert label == next(o.action for o in d.options if getattr(o, key) == want
                                             and o.kind != "attack_planeswalker")
                    checked[d.kind] += 1
            env.step(others[seat].act(obs, info))   # ... while the random policy plays
        if checked["defender"] >= 5 and checked["blocked"] >= 1:
            break
    assert checked["defender"] >= 5 and checked["blocked"] >= 1, checked


class _Recording(HeuristicAgent):
    """The heuristic bot, writing down each action it takes."""

    def __init__(self, seed: int, log: list):
        super().__init__(seed)
        self.log = log

    def act(self, observation: dict, info: dict) -> int:
        """The bot's action, written down."""
        a = super().act(observation, info)
        self.log.append(a)
        return a


# sha256 of the actions the bot took in _PINNED_GAMES, as the bot of commit 0414726 took them
# (before its decisions were made cheaper: the same decisions, kept from one decision to the next)
_PINNED_DIGEST = "5944e907d334037cb7702e4092bccd0fa5eada27095a092d3c2127052866dac7"
_PINNED_GAMES = [(g, GameConfig(num_players=4 + g % 3, commander=bool(g % 2), max_turns=80,
                                talk="none" if g == 5 else "structured")) for g in range(8)]


def test_decisions_pinned():
    """Every action of heuristic bots in every seat of a few seeded games (4-6 players, with and
    without commanders and table talk) is the one the bot took before it was made faster: a change
    of its rules changes this digest on purpose, a change meant only to speed it up must not."""
    log: list = []
    for seed, cfg in _PINNED_GAMES:
        bots = [_Recording(seed * 10 + i, log) for i in range(cfg.num_players)]
        r = play_game(bots, cfg, seed=seed)
        log.append((sorted(r.winners), r.turns))
    assert len(log) > 5000
    assert hashlib.sha256(repr(log).encode()).hexdigest() == _PINNED_DIGEST


def test_mask_is_the_last_word():
    """The bot answers with its rule's action only when the mask allows it (else the decision's
    default, here pass priority; for a statement, what its rules choose without it), and raises
    when the mask allows nothing, view or not."""
    checked = talked = 0
    for env, bot, obs, info in decisions(GameConfig(num_players=5, commander=False, max_turns=40), 3):
        d = info["view"].decision
        a = copy.deepcopy(bot).act(obs, info)
        passing = next((o.action for o in d.options if o.kind == "pass"), None)
        chosen = next(o.kind for o in d.options if o.action == a)
        if d.kind == "priority" and chosen != "pass" and checked < 40:
            refused = dict(obs, action_mask=obs["action_mask"].copy())
            refused["action_mask"][a] = 0
            other = copy.deepcopy(bot).act(refused, info)
            if chosen == "talk":      # a refused statement: what the rules choose without it
                assert other != a and refused["action_mask"][other]
                talked += 1
            else:
                assert other == passing
            with pytest.raises(ValueError, match="no action"):
                copy.deepcopy(bot).act(dict(obs, action_mask=np.zeros_like(obs["action_mask"])), info)
            checked += 1
        env.step(bot.act(obs, info))
    assert checked >= 10 and talked >= 3


@pytest.mark.parametrize("n, talk, variant", [(4, "structured", "standard"), (5, "structured", "standard"),
                                              (6, "none", "backstab_rumble"), (7, "structured", "simple_roles")])
def test_kept_results_are_the_fresh_ones(n, talk, variant):
    """At every decision of a seeded game, the bot that kept what it worked out from earlier views
    (its wants, its wanted statements) holds the same wants and statements and acts as a copy of
    it that forgot them (``forget_kept``); and it did keep them at many decisions, so the
    comparison covers the kept path."""
    compared = kept = 0
    for env, bot, obs, info in decisions(GameConfig(num_players=n, talk=talk, variant=variant,
                                                               max_turns=60), n):
        fresh = copy.deepcopy(bot)
        fresh.forget_kept()
        before = bot._want_kept
        a = bot.act(obs, info)
        assert fresh.act(obs, info) == a
        assert bot._want_kept == fresh._want_kept
        if fresh._wanted_key is not None:          # the statements were asked for at this decision
            assert bot._wanted_kept == fresh._wanted_kept
        compared += 1
        kept += before is bot._want_kept and before != ()
        env.step(a)
    assert compared > 300 and kept > compared // 4
