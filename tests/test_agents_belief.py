"""The belief bot (agents/belief.py): deduction beats the prior, posteriors are
valid, the same information set gives the same action and beliefs, and it
never crashes."""

from __future__ import annotations

import math
import random

import numpy as np
from scenario import random_game
from test_information_sets import _permute_hidden

import agents
from agents.base import BaseAgent, legal_actions
from agents.belief import (ACCUSE_RATIO, CLAIM_LIKELIHOOD, DEFEND_LEADER, HARM_UNIT, THREAT_LEADER, BeliefAgent,
                           RoleBelief, _assignments)
from agents.play import play_game
from treachery_env import GameConfig
from treachery_env.engine import Game
from treachery_env.engine.talk import TalkMessage
from treachery_env.view import seat_view
from treachery_env.rules import Role

ROLES = (Role.LEADER, Role.GUARDIAN, Role.ASSASSIN, Role.TRAITOR)


class ScriptedRoleBot(BaseAgent):
    """A simple role-aware opponent (test only): plays lands and spells, attacks
    with everything, and picks whom to attack or target by its own role with
    some randomness: an Assassin goes for the Leader 70% of the time, a Guardian
    never attacks the Leader and prefers unveiled enemies, a Traitor spreads
    its attacks, the Leader attacks at random.  Every other choice is random."""

    name = "scripted"

    def _pick_player(self, view, players):
        me = view.players[view.seat]
        role = me.role
        leader = [s for s in players if view.players[s].leader_player or view.players[s].role == Role.LEADER]
        others = [s for s in players if s not in leader and s != view.seat]
        r = self.rng.random()
        if role == Role.ASSASSIN and leader and r < 0.7:
            return leader[0]
        if role == Role.GUARDIAN:
            enemies = [s for s in others if view.players[s].face_up
                       and view.players[s].role in (Role.ASSASSIN, Role.TRAITOR)]
            pool = enemies or others
            return pool[self.rng.integers(len(pool))] if pool else None
        if role == Role.TRAITOR and leader and r < 0.25:
            return leader[0]
        pool = [s for s in players if s != view.seat]
        return pool[self.rng.integers(len(pool))] if pool else None

    def act(self, observation, info):
        legal = legal_actions(observation)
        view = info["view"]
        d = view.decision
        opts = d.options
        by_kind = {}
        for o in opts:
            by_kind.setdefault(o.kind, []).append(o)
        if d.kind == "priority" and not view.stack and view.active == view.seat:
            for k in ("land", "cast", "commander"):
                if k in by_kind:
                    return by_kind[k][0].action
        if d.kind == "attacker" and "attack_with" in by_kind:
            return by_kind["attack_with"][0].action
        if d.kind in ("defender", "target"):
            players = [o.player for o in opts if o.player is not None and o.creature is None]
            if players:
                s = self._pick_player(view, sorted(set(players)))
                for o in opts:
                    if o.player == s and o.creature is None:
                        return o.action
        if d.kind == "priority":
            return by_kind["pass"][0].action if "pass" in by_kind else int(legal[0])
        return int(legal[self.rng.integers(legal.size)])


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a binomial proportion k/n."""
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return c - h, c + h


N_DEDUCTION_GAMES = 128


def _deduction_samples(n_games: int, players=(5, 6), first_turn: int = 6, seed0: int = 0, max_turns: int = 30,
                       model: RoleBelief | None = None):
    """Play the belief bot in one seat against scripted opponents; for every
    face-down opponent and every turn >= ``first_turn``, the belief bot's and
    the prior's probabilities of the true role at its last decision of that turn.

    Returns a list of ``(game, opponent, turn, p_belief_row, p_prior_row, true_role)``.
    """
    out = []
    for g in range(n_games):
        n = players[g % len(players)]
        seat = g % n
        bots = [ScriptedRoleBot(seed=1000 * g + k) for k in range(n)]
        bots[seat] = BeliefAgent(seed=g, belief=model)
        prior_at = {}
        orig = bots[seat].act

        def act(obs, info, _orig=orig, _prior=prior_at):
            a = _orig(obs, info)
            _prior[len(_prior)] = RoleBelief.prior_beliefs(info["view"])
            return a

        bots[seat].act = act
        r = play_game(bots, GameConfig(num_players=n, starting_life=20, max_turns=max_turns), seed=seed0 + g,
                      record_beliefs=True)
        last = {}
        for k, ((turn, s, b), true) in enumerate(zip(r.beliefs, r.true_roles_at)):
            last[turn] = (b, prior_at[k], true)
        for turn, (b, pr, true) in sorted(last.items()):
            if turn < first_turn:
                continue
            for s, row in b.items():
                if s == seat or max(row.values()) >= 1.0 - 1e-12:
                    continue        # known roles are not a deduction
                out.append((g, s, turn, row, pr[s], Role(true[s])))
    return out


def _metrics(samples):
    """Top-1 hits, prior top-1 accuracy, log-loss, prior log-loss, Brier, prior Brier."""
    top = lambda d: max(d, key=lambda r: (d[r], -r))   # ties: the lower role
    hits = sum(top(b) == t for *_, b, _, t in samples)
    pacc = float(np.mean([top(p) == t for *_, p, t in samples]))
    ll = -float(np.mean([math.log(max(b[t], 1e-12)) for *_, b, _, t in samples]))
    pll = -float(np.mean([math.log(max(p[t], 1e-12)) for *_, p, t in samples]))
    brier = float(np.mean([sum((b[r] - (r == t)) ** 2 for r in ROLES) for *_, b, _, t in samples]))
    pbrier = float(np.mean([sum((p[r] - (r == t)) ** 2 for r in ROLES) for *_, p, t in samples]))
    return hits, pacc, ll, pll, brier, pbrier


def test_deduction_beats_the_prior_against_role_aware_opponents():
    """Top-1 accuracy of the true role of face-down opponents, 5-6 players, one
    belief bot against scripted role-aware opponents (about 5 rounds).  One
    sample per (game, opponent): the belief bot's last decision at a turn from
    6 to 20, so no opponent is counted many times.  The 95% Wilson interval of
    the belief bot's accuracy lies above the prior's accuracy (always the most
    common remaining role, same samples); log-loss and Brier score beat the
    prior's too.  The games end after turn 21, one past the last turn sampled,
    so that turn 20 is played as in a longer game (the samples were exactly
    those of the 30-turn games this test played before)."""
    samples = _deduction_samples(N_DEDUCTION_GAMES, max_turns=21)
    latest = {}
    for smp in samples:
        g, s, turn = smp[:3]
        if turn <= 20:
            latest[(g, s)] = smp          # samples come in turn order
    units = list(latest.values())
    hits, pacc, ll, pll, brier, pbrier = _metrics(units)
    n = len(units)
    lo, hi = wilson(hits, n)
    assert lo > pacc, (hits / n, pacc, lo, hi, n)
    assert ll < pll and brier < pbrier, (ll, pll, brier, pbrier)


def _check_valid(view, beliefs):
    n = len(view.players)
    assert sorted(beliefs) == list(range(n))
    for s, row in beliefs.items():
        assert set(row) == set(ROLES)
        assert all(0.0 <= p <= 1.0 + 1e-9 for p in row.values())
        assert abs(sum(row.values()) - 1.0) < 1e-9
        known = view.players[s].role
        if known is not None:
            assert row[Role(known)] == 1.0
    remaining, unknown, known = RoleBelief.role_counts(view)
    if remaining is not None:
        for r in ROLES:
            expected = sum(beliefs[s][r] for s in unknown)
            assert abs(expected - remaining[r]) < 1e-9
            if remaining[r] == 0:
                assert all(beliefs[s][r] == 0.0 for s in unknown)


def test_posteriors_are_valid_distributions_consistent_with_known_roles_and_counts():
    """Every row sums to 1, known seats put 1 on their role, the expected number
    of each role among the unknown seats equals what the deck has left, and a
    role with no card left gets 0; checked on random states of 4-12 players."""
    checked = 0
    for k in range(40):
        n = 4 + k % 9
        g = random_game(k, 150 + 37 * k, n=n, max_turns=40)
        for seat in range(n):
            view = seat_view(g, seat)
            _check_valid(view, RoleBelief().beliefs(view))
            _check_valid(view, RoleBelief.prior_beliefs(view))
            checked += 1
    assert checked > 100


def test_enumeration_matches_brute_force():
    """The distinct-assignment enumeration gives the posterior of brute force
    over all seat permutations (each distinct assignment counted equally)."""
    import itertools
    counts = (0, 2, 3, 1)
    A = _assignments(counts)
    assert len(A) == math.factorial(6) // (math.factorial(2) * math.factorial(3))
    assert len({tuple(r) for r in A}) == len(A)
    rng = np.random.default_rng(0)
    ll = rng.normal(size=(6, 4))
    lp = ll[np.arange(6)[None, :], A].sum(1)
    w = np.exp(lp - lp.max()); w /= w.sum()
    fast = np.stack([w @ (A == r) for r in range(4)], axis=1)
    deck = [r for r in range(4) for _ in range(counts[r])]
    tot = np.zeros((6, 4)); z = 0.0
    for perm in itertools.permutations(deck):
        p = math.exp(sum(ll[i, perm[i]] for i in range(6)))
        z += p
        for i in range(6):
            tot[i, perm[i]] += p
    assert np.allclose(fast, tot / z)


def test_behaviour_moves_the_posterior_the_right_way():
    """A face-down seat that has hit the Leader hard is more likely an Assassin
    than a Guardian; one that hit only a face-down seat is the likelier Guardian."""
    g = random_game(1, 0, n=5, max_turns=40)
    leader = next(p.seat for p in g.players if p.identity.face_up)
    viewer = (leader + 1) % 5
    hitter, quiet = (leader + 2) % 5, (leader + 3) % 5
    g.attacks[hitter][leader] += 4
    g.harm[hitter][leader] += 9
    g.attacks[quiet][viewer] += 4
    b = RoleBelief().beliefs(seat_view(g, viewer))
    assert b[hitter][Role.ASSASSIN] > b[hitter][Role.GUARDIAN]
    assert b[quiet][Role.GUARDIAN] > b[hitter][Role.GUARDIAN]


def _random_states(count: int, seed: int, every: int = 90):
    """``count`` game states (clones) taken every ``every`` random actions along
    random games of 4-8 players (30 starting life, 40 turns)."""
    out = []
    k = 0
    while len(out) < count:
        n = 4 + k % 5
        g = Game(GameConfig(num_players=n, starting_life=30, max_turns=40), seed=seed + k)
        rng = random.Random(seed + k)
        steps = 0
        while not g.is_over and len(out) < count:
            g.step(rng.choice(g.legal_actions()))
            steps += 1
            if steps % every == 0 and not g.is_over:
                out.append(g.clone())
        k += 1
    return out


def test_same_information_set_same_action_and_beliefs():
    """Permuting what the seat cannot see (others' face-down identities, hands,
    library orders) changes neither the belief bot's action nor its beliefs."""
    rng = random.Random(7)
    compared = 0
    for k, g in enumerate(_random_states(45, seed=100)):
        seat = g.decision.seat
        for _ in range(2):
            h = _permute_hidden(g, seat, rng)
            a, b = BeliefAgent(seed=k), BeliefAgent(seed=k)
            a.reset(seat)
            b.reset(seat)
            act_g = a.act(g.observation(seat), {"view": g.view(seat)})
            act_h = b.act(h.observation(seat), {"view": h.view(seat)})
            assert act_g == act_h
            assert a.beliefs() == b.beliefs()
            compared += 1
    assert compared >= 80


def test_no_crash_over_random_states_and_games():
    """A few hundred random states of 4-8 players: the bot returns a legal
    action with valid beliefs; and full games of belief bots (with random
    bots) of 4-8 players finish without error."""
    for k, g in enumerate(_random_states(300, seed=2000, every=37)):
        seat = g.decision.seat
        bot = agents.make("belief", seed=k)
        bot.reset(seat)
        obs = g.observation(seat)
        view = g.view(seat)
        a = bot.act(obs, {"view": view})
        assert obs["action_mask"][a] == 1
        _check_valid(seat_view(g, seat), bot.beliefs())
    for k in range(10):
        n = 4 + k % 5
        bots = [agents.make("belief" if (i + k) % 2 else "random", seed=10 * k + i) for i in range(n)]
        r = play_game(bots, GameConfig(num_players=n, starting_life=10, max_turns=40), seed=k)
        assert r.turns >= 1


def test_registered_and_plays_whole_games():
    """``agents.make("belief")`` builds it and it plays whole 6-player games
    (its speed: ``python -m agents.benchmark``)."""
    assert isinstance(agents.make("belief", seed=0), BeliefAgent)
    for k in range(3):
        bots = [agents.make("belief", seed=k * 10 + i) for i in range(6)]
        result = play_game(bots, GameConfig(num_players=6, starting_life=20, max_turns=30), seed=k)
        assert result.turns >= 1


def test_kept_beliefs_equal_a_fresh_posterior_of_the_whole_view():
    """The beliefs kept from a seat's last decision (unchanged :meth:`RoleBelief.evidence`)
    are exactly the posterior computed afresh from the whole view, at every decision of
    belief bots sharing one model (kept per viewing seat) in games with and without talk;
    most decisions reuse one, and what a caller does to the returned dict changes nothing."""
    model = RoleBelief()
    decisions = reused = 0
    last = {}
    for k in range(6):
        n = 5 + k % 3
        bots = [BeliefAgent(seed=10 * k + i, belief=model) if i % 2 == 0 else agents.make("heuristic", seed=i)
                for i in range(n)]
        for b in bots[::2]:
            orig = b.act

            def act(obs, info, _orig=orig, _b=b):
                nonlocal decisions, reused
                view = info["view"]
                ev = RoleBelief.evidence(view)
                reused += last.get(view.seat) == ev
                last[view.seat] = ev
                a = _orig(obs, info)
                fresh = model.posterior(view)
                assert _b.beliefs() == fresh
                got = model.beliefs(view)
                got[view.seat].clear()
                assert model.beliefs(view) == fresh
                decisions += 1
                return a

            b.act = act
        talk = "none" if k % 3 == 2 else "structured"
        play_game(bots, GameConfig(num_players=n, starting_life=20, max_turns=30, talk=talk), seed=k)
    assert decisions > 500 and decisions // 2 < reused < decisions, (decisions, reused)


def _seat_by_seat_log_likelihood(model, view, unknown):
    """:meth:`RoleBelief.log_likelihood` the plain way, one unknown seat at a time (test reference)."""
    n = len(view.players)
    cats = np.array([0 if p.leader_player or p.role == Role.LEADER       # Leader, face-up G/A/T (1-3), face-down
                     else int(p.role) if p.role is not None and (p.face_up or not p.in_game) else 4
                     for p in view.players])
    talk_ll, talk_unif, subj_ll, subj_unif = model.talk_log_likelihood(view, unknown)
    out, unif = np.zeros((len(unknown), 4)), np.zeros(len(unknown))
    acted = silent = 0
    for k, i in enumerate(unknown):
        counts = np.array([view.attacks[i][j] + view.harm[i][j] / HARM_UNIT for j in range(n)], float)
        counts[i] = 0.0
        role_ll, unif_ll = talk_ll[k].copy(), talk_unif[k]
        if counts.sum() > 0:
            acted += 1
            mask = np.arange(n) != i
            w = model.target_weights[:, cats][:, mask]
            p = (1.0 - model.noise) * (w / w.sum(axis=1, keepdims=True)) + model.noise / (n - 1)
            role_ll += model.temperature * (np.log(p) @ counts[mask])
            unif_ll += -model.temperature * counts.sum() * np.log(n - 1)
        elif not unif_ll:
            silent += 1
            out[k], unif[k] = subj_ll[k], subj_unif[k]
            continue
        if model.random_player > 0:
            role_ll = np.logaddexp(np.log1p(-model.random_player) + role_ll, np.log(model.random_player) + unif_ll)
        out[k], unif[k] = role_ll + subj_ll[k], unif_ll + subj_unif[k]
    return out, unif, acted, silent


def test_log_likelihood_of_all_seats_at_once_equals_seat_by_seat():
    """The likelihoods of every unknown seat, computed together, are those of each seat on
    its own (within 1e-12), on random states of 4-8 players and of 9-12 after 200 random
    actions, for the default model, one without the random-player mixture and one with
    other target weights; seats that acted, and seats that neither acted nor spoke, are
    both met."""
    models = [RoleBelief(), RoleBelief(random_player=0.0, temperature=1.0),
              RoleBelief(target_weights=np.arange(1.0, 21.0).reshape(4, 5), noise=0.3)]
    acted = silent = 0
    for g in _random_states(40, seed=300, every=23) + [random_game(k, 200, n=9 + k, max_turns=40) for k in range(4)]:
        for seat in range(g.n):
            view = seat_view(g, seat)
            _, unknown, _ = RoleBelief.role_counts(view)
            for model in models:
                ll, unif = model.log_likelihood(view, unknown)
                ref, ref_unif, a, q = _seat_by_seat_log_likelihood(model, view, unknown)
                np.testing.assert_allclose(ll, ref, rtol=0, atol=1e-12)
                np.testing.assert_allclose(unif, ref_unif, rtol=0, atol=1e-12)
                acted += a
                silent += q
    assert acted > 100 and silent > 20, (acted, silent)


def test_talk_log_likelihood_sums_the_documented_odds():
    """Each talk term is the logarithm of the documented odds (:data:`CLAIM_LIKELIHOOD`,
    :data:`THREAT_LEADER`, :data:`DEFEND_LEADER`, :data:`ACCUSE_RATIO`, the uniform talker's
    1/4, 1/2 and 1/5) summed over each unknown seat's latest statements and those about it
    (within 1e-12), on random states of 4-8 players with talk, where half the time the face-up
    Leader has also called every other seat "on my side", scaled by ``talk_weight``."""
    met = {"speaker": 0, "accuse": 0, "defend": 0}     # seats that said something, accused seats, the Leader's allies
    for k, g in enumerate(_random_states(30, seed=500, every=41)):
        leader = next(p.seat for p in g.players if p.identity.role == Role.LEADER)
        if k % 2 and g.players[leader].identity.face_up:
            for s in range(g.n):
                if s != leader:
                    g.talk.record(TalkMessage(g.turn, leader, "defend", s))
        for seat in range(g.n):
            view = seat_view(g, seat)
            _, unknown, _ = RoleBelief.role_counts(view)
            t = view.talk
            leaders = {p.seat for p in view.players if p.leader_player or p.role == Role.LEADER}
            sp, sp_u = np.zeros((len(unknown), 4)), np.zeros(len(unknown))
            sb, sb_u = np.zeros((len(unknown), 4)), np.zeros(len(unknown))
            for r, s in enumerate(unknown):
                if s in t.claims:
                    sp[r] += np.log(CLAIM_LIKELIHOOD[:, int(t.claims[s].role)])
                    sp_u[r] += np.log(0.25)
                for (i, j), m in t.intents.items():
                    if i == s and j in leaders:
                        sp[r] += np.log(THREAT_LEADER if m.kind == "threaten" else 1.0 - THREAT_LEADER)
                        sp_u[r] += np.log(0.5)
                for (i, j), m in t.stances.items():
                    if i == s and j in leaders:
                        sp[r] += np.log(DEFEND_LEADER if m.kind == "defend" else 1.0 - DEFEND_LEADER)
                        sp_u[r] += np.log(0.2 if m.kind == "defend" else 0.8)
                    if j == s and i != view.seat and (m.kind == "accuse" or i in leaders):
                        odds = np.ones(4)
                        odds[int(m.role) if m.kind == "accuse" else int(Role.GUARDIAN)] = ACCUSE_RATIO
                        sb[r] += np.log(odds / odds.sum())
                        sb_u[r] += np.log(0.25)
                        met[m.kind] += 1
            for weight in (1.0, 0.5):
                got = RoleBelief(talk_weight=weight).talk_log_likelihood(view, unknown)
                for a, b in zip(got, (sp, sp_u, sb, sb_u)):
                    np.testing.assert_allclose(a, weight * b, rtol=0, atol=1e-12)
            met["speaker"] += int((sp != 0).any(axis=1).sum())
    assert met["speaker"] > 100 and met["accuse"] > 50 and met["defend"] > 50, met


def test_a_recorded_belief_names_the_face_down_seats_it_is_about():
    """play_game records with each belief the seats it is about (``face_down_at``): the observer's
    opponents still in the game with a face-down identity, never the Leader (face up from the
    start) nor the observer; every other seat's role is public, and the belief bot puts 1 on it."""
    seen_shrink = False
    for g in range(6):
        r = play_game([agents.make("belief", seed=10 * g + k) for k in range(5)],
                      GameConfig(num_players=5, starting_life=8, max_turns=12), seed=g, record_beliefs=True)
        assert len(r.face_down_at) == len(r.beliefs) == len(r.true_roles_at) > 0
        for (turn, observer, belief), hidden, true in zip(r.beliefs, r.face_down_at, r.true_roles_at):
            assert observer not in hidden and all(true[s] != Role.LEADER for s in hidden)
            for s in set(belief) - set(hidden) - {observer}:
                assert belief[s][Role(true[s])] == 1.0, (g, turn, observer, s)
            seen_shrink |= len(hidden) < 3          # a Traitor or Assassin unveiled, or a seat lost
    assert seen_shrink
