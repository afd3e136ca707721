"""Bluffing, cooperation, team-play and talk metrics of the evaluator
(training.social, wired into training.evaluate and ``treachery evaluate``)."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace

import numpy as np
import pytest

import agents
from agents.base import BaseAgent, legal_actions
from agents.heuristic import HeuristicAgent
from training import evaluate as ev
from training import social
from training.cli import main
from treachery_env import GameConfig
from treachery_env.engine.talk import TalkMessage
from treachery_env.rules import Role
from treachery_env.view import seat_view

from conftest import decisions

FIVE = GameConfig(num_players=5, starting_life=20, max_turns=40)
L, G, A, T = Role


class _LeaderHitter(HeuristicAgent):
    """The heuristic bot, but it attacks with every creature it can, at a
    face-up Leader whenever it may."""

    name = "test_leader_hitter"

    def _d_attacker(self, d):
        for o in d.options:
            if o.kind == "attack_with":
                return o.action
        return self._default(d)

    def _d_defender(self, d):
        for o in d.options:
            if o.kind == "attack_player" and self._v.players[o.player].leader_player:
                return o.action
        return super()._d_defender(d)


class _Passive(BaseAgent):
    """Never casts, attacks or talks: PASS whenever it may, else the first option."""

    name = "test_passive"
    uses_observation_vector = False

    def act(self, observation, info):
        legal = legal_actions(observation)
        d = info["view"].decision
        if d is not None:
            for o in d.options:
                if o.kind == "pass" and o.action in set(legal.tolist()):
                    return int(o.action)
        return int(legal[0])


class _LeaderClaimer(HeuristicAgent):
    """The heuristic bot whose only table talk is "I am the Leader"."""

    name = "test_leader_claimer"

    def _wanted_talk(self):
        return [("claim", None, Role.LEADER)]


for _name, _cls in [("test_leader_hitter", _LeaderHitter), ("test_passive", _Passive),
                    ("test_leader_claimer", _LeaderClaimer)]:
    if _name not in agents.available():
        agents.register(_name, _cls)


def _advance(seed: int, turns: int):
    """A 5-player game of heuristic bots played until ``turns`` (the live env)."""
    bots = [agents.make("heuristic", seed=s) for s in range(5)]
    for env, bot, obs, info in decisions(FIVE, seed, bots):
        if env.game.turn >= turns:
            break
        env.step(bot.act(obs, info))
    return env


# --------------------------------------------------------------------------- the observer
def test_public_prior_is_the_deck_minus_the_known_roles():
    """One public-count prior for the deduction baseline and the bluffing
    yardstick (training.social.public_prior; training.evaluate has no copy)."""
    dist = {L: 1, G: 1, A: 2, T: 1}
    roles = [int(L), int(A), int(G), int(A), int(T)]
    assert social.public_prior(dist, roles, []) == pytest.approx([0.2, 0.2, 0.4, 0.2])
    assert social.public_prior(dist, roles, [0, 1]) == pytest.approx([0.0, 1 / 3, 1 / 3, 1 / 3])
    assert social.public_prior(dist, roles, [0, 0, 1]) == pytest.approx([0.0, 1 / 3, 1 / 3, 1 / 3])  # a seat once
    assert social.public_prior(dist, roles, range(5)) == pytest.approx([0.25] * 4)          # nothing left
    assert not hasattr(ev, "_public_prior")


def test_public_observer_sees_no_hidden_information():
    """Swapping the hidden identities of two face-down seats changes what those
    seats know, but not the public view nor the observer's beliefs."""
    env = _advance(seed=3, turns=7)
    g = env.game
    assert g.turn >= 7 and not g.winners
    down = [s for s in range(5) if not social.is_public(g, s)]
    pair = next((a, b) for a in down for b in down if a < b and g.players[a].role != g.players[b].role)
    obs = social.PublicObserver()
    before_view = social.public_view(g)
    before = obs.beliefs(g)
    assert all(before_view.players[s].role is None and before_view.players[s].identity is None for s in down)
    assert all(p.hand is None for p in before_view.players) and before_view.decision is None
    assert before_view.seat == -1
    assert not np.allclose(before[down], social._spectator_prior(FIVE.distribution(), g))   # evidence was used
    g2 = copy.deepcopy(g)
    a, b = pair
    ia, ib = g2.players[a].identity, g2.players[b].identity
    ia.identity, ib.identity = ib.identity, ia.identity
    assert g2.players[a].role == g.players[b].role and g2.players[a].role != g.players[a].role
    assert seat_view(g2, a).me.role != seat_view(g, a).me.role          # the seat itself knows the change
    after_view = social.public_view(g2)
    assert after_view.players == before_view.players and after_view.harm == before_view.harm
    np.testing.assert_array_equal(obs.beliefs(g2), before)
    # every permutation of the face-down roles gives the same beliefs
    roles = [g.players[s].identity.identity for s in down]
    for shift in range(1, len(down)):
        g3 = copy.deepcopy(g)
        for k, s in enumerate(down):
            g3.players[s].identity.identity = roles[(k + shift) % len(down)]
        np.testing.assert_array_equal(obs.beliefs(g3), before)
    env.close()


def test_observer_rows_of_a_game():
    tasks = ev.rotation_schedule(ev.entrants_from_specs(["heuristic", "belief"]), 5, 1, seed=0)
    rec = ev.play_task(tasks[0], FIVE)
    o = rec.observer
    assert o.shape[0] > 0 and o.shape[1] == len(social.OBS_COLS)
    assert o[:, 0].min() >= 1 and o[:, 0].max() < rec.turns            # turn 0 and the last turn not scored
    assert not np.any(o[:, 2] == int(L))                                  # the Leader is face up
    keys = {(int(t), int(s)) for t, s in o[:, :2]}
    assert len(keys) == o.shape[0]                                        # one row per turn and seat
    assert np.all((o[:, 3] >= 0) & (o[:, 3] <= 1 + 1e-12)) and np.any(np.abs(o[:, 3] - o[:, 4]) > 1e-6)
    assert ev.play_task(tasks[0], FIVE, observer=False).observer.shape[0] == 0


# --------------------------------------------------------------------------- bluffing
def _fake_record(lineup, observer=None, claims=None, coop=None, deal=0):
    return SimpleNamespace(task=SimpleNamespace(lineup=tuple(lineup), deal=deal),
                           observer=np.asarray(observer if observer is not None else np.zeros((0, 5)), float),
                           claims=np.asarray(claims if claims is not None else np.zeros((0, 7)), float),
                           coop=np.asarray(coop if coop is not None else np.zeros((0, 5)), float))


def _deals(records):
    """The records' deals as the metrics take them, one int per deal (here one seed's deal numbers)."""
    return [rec.task.deal for rec in records]


def test_bluff_metrics_counts_turns_at_or_below_the_prior():
    rows = [(1, 0, int(A), 0.50, 0.50),    # at the prior: cover held
            (2, 0, int(A), 0.70, 0.50),    # above: blown
            (1, 1, int(T), 0.10, 0.25),    # below: held (seat 1 is "y")
            (1, 2, int(G), 0.00, 0.25),    # a Guardian: not a bluff row
            (3, 0, int(T), 0.20, 0.25)]    # held
    res = social.bluff_metrics([_fake_record(["x", "y", "x"], rows)], ["x", "y", "z"], [0])
    assert set(res) == {"x", "y"}
    x = res["x"]
    assert (x["count"], x["n"]) == (2, 3) and x["rate"] == pytest.approx(2 / 3)
    assert (x["lo"], x["hi"]) == pytest.approx(ev.wilson_interval(2 / 3, 1))     # one deal: one draw
    assert x["roles"]["Assassin"]["n"] == 2 and x["roles"]["Assassin"]["count"] == 1
    assert x["roles"]["Traitor"]["rate"] == 1.0
    assert x["mean_p_obs"] == pytest.approx((0.5 + 0.7 + 0.2) / 3)
    assert res["y"]["count"] == 1 and res["y"]["n"] == 1
    # the turns of one game move together: the interval counts deals (here one game each), not turns:
    # r = 1/2, residuals c - r t = +-10 in 10 deals, var = 10/9 * 1000 / 200^2, n_eff = r (1 - r) / var = 9
    held = [(t, 0, int(T), 0.1, 0.25) for t in range(1, 21)]
    blown = [(t, 0, int(T), 0.9, 0.25) for t in range(1, 21)]
    recs = [_fake_record(["x"], held if k % 2 else blown, deal=k) for k in range(10)]
    x = social.bluff_metrics(recs, ["x"], _deals(recs))["x"]
    assert (x["count"], x["n"], x["deals"]) == (100, 200, 10)
    assert (x["lo"], x["hi"]) == pytest.approx(ev.wilson_interval(4.5, 9.0))
    assert x["roles"]["Traitor"]["deals"] == 10


def test_bluffing_and_talk_intervals_take_deals_not_games_as_the_draws():
    """The games of one deal (its rotations, its substitutions) share its cards: 4 deals of 3 games
    each, every game of a deal alike, give the intervals of 4 draws, not 12 (worked by hand; the
    intervals over games had a variance (G k - 1) / (G - 1) = 11/3 times too small)."""
    from training.stats import Z95
    recs = []
    shift = {0: 0.1, 1: 0.3, 2: 0.2, 3: 0.2}        # the observer's shift of each deal's claims
    for deal in range(4):
        cover = 0.1 if deal < 2 else 0.9             # deals 0, 1: cover held every turn; 2, 3: blown
        observer = [(t, 0, int(T), cover, 0.25) for t in range(1, 6)]
        true = int(T) if deal < 2 else int(G)         # a Traitor's Guardian claims are false, a Guardian's true
        claims = [(t, 0, true, int(G), 1.0, 0.0, shift[deal]) for t in (1, 2)]
        recs += [_fake_record(["x", "y"], observer, claims, deal=100 + deal) for _game in range(3)]
    # bluffing: per deal 15 or 0 of 15 rows; r = 1/2, residuals +-7.5, var = 4/3 * 4 * 7.5^2 / 60^2 = 1/12,
    # n_eff = r (1 - r) / var = 3 (over the 12 games it was 11)
    b = social.bluff_metrics(recs, ["x"], _deals(recs))["x"]
    assert (b["count"], b["n"], b["deals"]) == (30, 60, 4)
    assert (b["lo"], b["hi"]) == pytest.approx(ev.wilson_interval(1.5, 3.0))
    assert b["lo"] < ev.wilson_interval(5.5, 11.0)[0]
    assert ev._fr(b).endswith("n=60 in 4 deals")
    # false claims: per deal 6 or 0 of 6; residuals +-3, var = 4/3 * 4 * 9 / 24^2 = 1/12: n_eff 3 again
    talk = social.talk_metrics(recs, ["x"], _deals(recs))["x"]["overall"]
    assert (talk["false"]["count"], talk["false"]["n"], talk["false"]["deals"]) == (12, 24, 4)
    assert (talk["false"]["lo"], talk["false"]["hi"]) == pytest.approx(ev.wilson_interval(1.5, 3.0))
    # the false claims' shift: deals 0 and 1, 6 claims each, shifts 0.1 and 0.3: mean 0.2, deal
    # deviations 6 * -0.1 and 6 * +0.1, se = sqrt(2/1 * 2 * 0.36) / 12 = 0.1 (over the 6 games it was
    # sqrt(6/5 * 6 * 0.04) / 12, sqrt(5) times narrower)
    sf = talk["shift_false"]
    assert (sf["n"], sf["deals"]) == (12, 2)
    assert (sf["mean"], sf["lo"], sf["hi"]) == pytest.approx((0.2, 0.2 - Z95 * 0.1, 0.2 + Z95 * 0.1))
    st = talk["shift_true"]                          # deals 2 and 3 alike: no spread between deals, no interval
    assert (st["n"], st["deals"], st["mean"], st["lo"]) == (12, 2, pytest.approx(0.2), None)


def test_bluffing_reported_for_entrants_without_beliefs():
    res = ev.evaluate(["heuristic", "random"], games=10, seed=1, config=FIVE, progress=False)
    assert res["deception"] == {}                  # neither bot has beliefs(): no deception numbers...
    for lab in ("heuristic", "random"):            # ...but the fixed observer scores both
        b = res["bluffing"][lab]
        assert b["n"] > 0 and 0 <= b["count"] <= b["n"] and b["lo"] <= b["rate"] <= b["hi"]
        assert set(b["roles"]) <= {"Assassin", "Traitor"}
        assert sum(r["n"] for r in b["roles"].values()) == b["n"]
    md = ev.render_markdown(res)
    assert "Bluffing" in md and "| heuristic |" in md
    off = ev.evaluate(["heuristic", "random"], games=5, seed=1, config=FIVE, progress=False, observer=False)
    assert off["bluffing"] == {} and off["cooperation"]


# --------------------------------------------------------------------------- cooperation
class _FakeIdc:
    def __init__(self, face_up):
        self.face_up = face_up
        self.known_by = set(range(4)) if face_up else set()


class _FakeGame:
    """Just what SocialTracker reads: roles, harm/attacks, Leaders, talk."""

    def __init__(self, roles):
        self.n = len(roles)
        self.turn = 1
        self.harm = [[0] * self.n for _ in range(self.n)]
        self.attacks = [[0] * self.n for _ in range(self.n)]
        self.players = [SimpleNamespace(role=r, has_lost=False, identity=_FakeIdc(r == L)) for r in roles]
        self.talk = SimpleNamespace(messages=[])

    def is_leader_player(self, s):
        return self.players[s].role == L and self.players[s].identity.face_up


def test_tracker_attributes_harm_and_protection_precisely():
    g = _FakeGame([L, G, A, T])
    tr = social.SocialTracker(4, {L: 1, G: 1, A: 1, T: 1}, observer=None)
    tr.update(g)
    g.attacks[1][0] += 2           # the Guardian attacks the Leader with two creatures
    g.harm[1][0] += 3              # ... and deals 3 damage
    g.harm[1][2] += 4              # harm to the Assassin before it did anything: not protection
    tr.update(g)
    g.harm[2][0] += 5              # the Assassin hits the Leader: now an aggressor
    g.harm[3][1] += 1              # the Traitor hits the Guardian (not the Leader)
    tr.update(g)
    g.harm[1][2] += 6              # the Guardian retaliates
    g.attacks[1][2] += 1
    g.harm[1][3] += 2              # the Traitor never touched the Leader: not protection
    g.harm[2][0] += 9              # acts of non-Guardians are not counted
    tr.update(g)
    g.attacks[1][2] += 3           # after the last decision
    tr.finish(g)
    _obs, claims, coop = tr.arrays()
    assert coop[1].tolist() == [1, 3, 2, 6, 4]
    assert coop[[0, 2, 3]].sum() == 0 and claims.shape == (0, 7)


def test_a_leader_hitting_guardian_has_harm_and_a_passive_one_none():
    res = ev.evaluate(["test_leader_hitter", "test_passive", "heuristic"], games=33, seed=2, mode="substitution",
                      reference="heuristic", config=FIVE, progress=False)
    co = res["cooperation"]
    hit, pas = co["test_leader_hitter"], co["test_passive"]
    assert hit["games"] == pas["games"] >= 3                    # one Guardian seat per deal
    assert hit["attacks_leader"]["mean"] > 0 and hit["harm_leader"]["mean"] > 0
    assert hit["any_hostile_to_leader"]["count"] >= 1
    for k in ("harm_leader", "attacks_leader", "protect_harm", "protect_attacks"):
        assert pas[k]["mean"] == 0 and pas[k]["lo"] is None       # never: no spread, no interval
    assert pas["any_hostile_to_leader"]["count"] == 0 and pas["any_protection"]["count"] == 0
    assert co["heuristic"]["games"] > hit["games"]
    md = ev.render_markdown(res)
    assert "Cooperation as a Guardian" in md and "| test_leader_hitter |" in md


def test_cooperation_intervals_take_deals_not_seat_games_as_the_draws():
    """A deal's Guardian seat-games (its rotations, its reference game) share its cards: the means'
    intervals are Cochran's over deals and the shares' Wilson's on the effective number over deals
    (worked by hand)."""
    from training.stats import Z95

    def rec(deal, row):
        coop = np.zeros((4, 5))
        coop[1] = row
        return SimpleNamespace(coop=coop, task=SimpleNamespace(lineup=("x", "g", "x", "x"), deal=deal))

    records = [rec(1, [1, 2, 0, 0, 0]), rec(1, [1, 2, 1, 0, 0]), rec(2, [1, 0, 0, 3, 0]), rec(3, [1, 1, 0, 0, 0])]
    co = social.cooperation_metrics(records, ["g"], _deals(records))["g"]
    # harm to the Leader by deal: [2, 2], [0], [1]; mean 5/4; deal deviations 1.5, -1.25, -0.25
    half = Z95 * np.sqrt(3 / 2 * (1.5 ** 2 + 1.25 ** 2 + 0.25 ** 2)) / 4
    harm = co["harm_leader"]
    assert (co["games"], harm["n"], harm["deals"]) == (4, 4, 3)
    assert (harm["mean"], harm["lo"], harm["hi"]) == pytest.approx((1.25, 1.25 - half, 1.25 + half))
    # any hostile act by deal: 2 of 2, 0 of 1, 1 of 1; r = 3/4, residuals 0.5, -0.75, 0.25,
    # var = 3/2 * 0.875 / 4^2, n_eff = r (1 - r) / var
    hostile = co["any_hostile_to_leader"]
    n_eff = 0.75 * 0.25 / (3 / 2 * 0.875 / 16)
    assert (hostile["count"], hostile["n"], hostile["deals"]) == (3, 4, 3)
    assert (hostile["lo"], hostile["hi"]) == pytest.approx(ev.wilson_interval(0.75 * n_eff, n_eff))
    assert ev._fm(harm) == f"1.25 [{harm['lo']:.2f}, {harm['hi']:.2f}] n=4 in 3 deals"
    assert ev._fr(hostile).endswith("n=4 in 3 deals")


# --------------------------------------------------------------------------- team play
def test_teammates_schedule_and_team_win_rates():
    res = ev.evaluate(["belief", "heuristic"], games=14, seed=0, mode="teammates", config=FIVE, progress=False)
    # 5 players: Leader team (Leader + Guardian) and Assassins (2): 1 + (1 + 2) + (1 + 2) games per deal
    assert res["meta"]["games_per_deal"] == 7 and res["summary"]["games"] == 14
    assert ev.games_per_deal("teammates", 2, 5) == 7
    team = {"Leader": "Leader team", "Guardian": "Leader team", "Assassin": "Assassins", "Traitor": None}
    counts = {}
    for g in res["games"]:
        mine = [s for s in range(5) if g["lineup"][s] == "belief"]
        if g["kind"] == "team_partner":
            assert not mine
            continue
        teams = {team[g["dealt_roles"][s]] for s in mine}
        assert len(teams) == 1 and None not in teams
        t = teams.pop()
        size = sum(1 for r in g["dealt_roles"] if team[r] == t)
        assert len(mine) == (size if g["kind"] == "team_together" else 1)
        c = counts.setdefault((t, g["kind"]), [0, 0])
        c[0] += mine[0] in g["winners"]
        c[1] += 1
    tp = res["teamplay"]
    assert tp["partner"] == "heuristic"
    from training.stats import clustered_rate
    for t in ("Leader team", "Assassins"):
        cell = tp["candidates"]["belief"][t]
        assert (cell["together"]["count"], cell["together"]["n"]) == tuple(counts[(t, "team_together")])
        assert (cell["mixed"]["count"], cell["mixed"]["n"]) == tuple(counts[(t, "team_mixed")])
        for kind in ("together", "mixed"):             # the intervals over deals, from each deal's games
            per = {}
            for g in res["games"]:
                mine = [s for s in range(5) if g["lineup"][s] == "belief"]
                if g["kind"] == f"team_{kind}" and team[g["dealt_roles"][mine[0]]] == t:
                    c = per.setdefault(g["env_seed"], [0, 0])
                    c[0] += mine[0] in g["winners"]
                    c[1] += 1
            want = clustered_rate([c[0] for c in per.values()], [c[1] for c in per.values()])
            assert cell[kind]["deals"] == 2 and (cell[kind]["lo"], cell[kind]["hi"]) == (want["lo"], want["hi"])
        assert cell["partner"]["n"] == 2
        gain = cell["gain"]
        assert gain["diff"] == pytest.approx(cell["together"]["rate"] - cell["mixed"]["rate"])
        assert gain["deals"] == 2                           # paired by deal
    assert set(tp["candidates"]["belief"]["Leader team"]["mixed_by_role"]) == {"Leader", "Guardian"}
    assert "Team play with partner `heuristic`" in ev.render_markdown(res)
    # 4 players: the Leader is alone on its team, only the two Assassins are team-mates
    assert ev._team_sizes({L: 1, G: 0, A: 2, T: 1}) == [2] and ev._team_sizes({L: 1, G: 0, A: 1, T: 2}) == []
    assert ev.games_per_deal("teammates", 2, 4) == 4
    four = ev.evaluate(["belief", "heuristic"], games=4, mode="teammates", progress=False,
                       config=GameConfig(num_players=4, starting_life=10, max_turns=30))
    assert list(four["teamplay"]["candidates"]["belief"]) == ["Assassins"]


def test_team_play_gain_is_paired_by_deal():
    """Both arms of the team play are played on every deal (its together game and its mixed games
    share its cards), so the gain's interval pairs them by deal: the normal interval of the deals'
    differences (worked by hand), not Newcombe's for two independent rates."""
    from training.stats import Z95, clustered_rate_difference, wilson_interval

    def rec(deal, kind, seats, won):
        lineup = tuple("c" if s in seats else "p" for s in range(5))
        return SimpleNamespace(task=SimpleNamespace(kind=kind, focus="c", lineup=lineup, deal=deal),
                               dealt_roles=[int(L), int(G), int(A), int(A), int(T)], winners=[0, 1] if won else [2, 3])

    # per deal: the together game, the mixed game with the candidate as the Leader, as the Guardian
    games = {0: (1, 1, 1), 1: (1, 1, 0), 2: (0, 0, 0), 3: (1, 0, 0), 4: (0, 0, 1)}
    records = []
    for deal, (tog, m0, m1) in games.items():
        records += [rec(deal, "team_together", (0, 1), tog), rec(deal, "team_mixed", (0,), m0),
                    rec(deal, "team_mixed", (1,), m1)]
    cell = social.teamplay_metrics(records, _deals(records))["candidates"]["c"]["Leader team"]
    assert (cell["together"]["rate"], cell["mixed"]["rate"]) == (0.6, 0.4)
    # the deals' differences together - mean(mixed): 0, 0.5, 0, 1, -0.5: mean 0.2, deviations
    # -0.2, 0.3, -0.2, 0.8, -0.7 (squares 1.3), se = sqrt(1.3 / (4 * 5))
    half = Z95 * np.sqrt(1.3 / 20)
    gain = cell["gain"]
    assert (gain["diff"], gain["lo"], gain["hi"], gain["deals"]) == pytest.approx((0.2, 0.2 - half, 0.2 + half, 5))
    # where the deal's luck moves both arms (20 deals: the team wins all three games of 9, none of 9,
    # and only the together game of 2), it cancels in the pairs: the differences are 0 but in 2
    # deals, se = sqrt((18 * 0.1^2 + 2 * 0.9^2) / (19 * 20)): about half the width of Newcombe's
    lucky = {d: (int(d % 2 == 0), int(d % 2 == 0), int(d % 2 == 0)) for d in range(18)} | {18: (1, 0, 0), 19: (1, 0, 0)}
    lucky_records = [rec(d, kind, seats, won) for d, (tog, m0, m1) in lucky.items()
                     for kind, seats, won in (("team_together", (0, 1), tog), ("team_mixed", (0,), m0),
                                              ("team_mixed", (1,), m1))]
    luck = social.teamplay_metrics(lucky_records, _deals(lucky_records))
    paired = luck["candidates"]["c"]["Leader team"]["gain"]
    half_l = Z95 * np.sqrt((18 * 0.01 + 2 * 0.81) / 380)
    assert (paired["diff"], paired["lo"], paired["hi"]) == pytest.approx((0.1, 0.1 - half_l, 0.1 + half_l))
    lo_t, hi_t = wilson_interval(11, 20)
    lo_m, hi_m = wilson_interval(18, 40)
    newcombe = np.hypot(0.55 - lo_t, hi_m - 0.45) + np.hypot(hi_t - 0.55, 0.45 - lo_m)
    assert paired["hi"] - paired["lo"] < 0.6 * newcombe
    assert ev._fgain(gain) == f"+0.200 [{0.2 - half:+.3f}, {0.2 + half:+.3f}] in 5 deals"
    # the same from the stats function, and no interval where every deal's difference is alike
    assert clustered_rate_difference({d: [t, 1] for d, (t, _, _) in games.items()},
                                     {d: [a + b, 2] for d, (_, a, b) in games.items()})["lo"] == pytest.approx(0.2 - half)
    alike = clustered_rate_difference({0: [1, 1], 1: [0, 1]}, {0: [2, 2], 1: [0, 2]})
    assert (alike["diff"], alike["lo"], alike["hi"]) == (0.0, None, None)
    assert ev._fgain({**alike, "deals": 2}) == "+0.000 in 2 deals"
    assert ev._fgain({"diff": 0.1, "lo": -0.2, "hi": 0.4}) == "+0.100 [-0.200, +0.400]"     # an older result's
    with pytest.raises(ValueError, match=r"need 0 <= count <= rows, got 3 of 2 in 7"):
        clustered_rate_difference({7: [3, 2]}, {7: [1, 2]})


# --------------------------------------------------------------------------- talk
def test_false_leader_claims_count_and_move_nothing():
    res = ev.evaluate(["test_leader_claimer", "heuristic"], games=30, seed=4, mode="substitution",
                      reference="heuristic", config=FIVE, progress=False)
    t = res["talk"]["test_leader_claimer"]
    assert t["overall"]["claimed"] == {"Leader": t["overall"]["claims"], "Guardian": 0, "Assassin": 0,
                                      "Traitor": 0}
    for role in ("Guardian", "Assassin", "Traitor"):
        if role in t["roles"]:
            c = t["roles"][role]
            assert c["false"]["count"] == c["claims"] > 0 and c["false"]["rate"] == 1.0
    assert "Traitor" in t["roles"] and "Assassin" in t["roles"]
    if "Leader" in t["roles"]:
        assert t["roles"]["Leader"]["false"]["count"] == 0
    # the Leader is face up, so the observer gives a face-down seat p(Leader) = 0 before and after
    sf = t["overall"]["shift_false"]
    assert sf["n"] > 0 and sf["mean"] == 0.0
    assert 1 < sf["deals"] <= 5 < sf["n"]          # the shift's interval is over deals, not claims
    # the heuristic bot's false Guardian claims (Assassins, Traitors) do raise p(Guardian) for the speaker
    h = res["talk"]["heuristic"]
    assert h["overall"]["claimed"]["Guardian"] == h["overall"]["claims"]
    assert h["roles"]["Assassin"]["false"]["rate"] == 1.0 and h["roles"]["Guardian"]["false"]["count"] == 0
    assert h["overall"]["shift_false"]["n"] > 0 and h["overall"]["shift_false"]["mean"] > 0
    assert "Talk (role claims" in ev.render_markdown(res)
    assert f"n={sf['n']} in {sf['deals']} deals" in ev.render_markdown(res)


def test_claim_shift_is_the_observer_change_for_that_message():
    """A claim row's before/after are the observer's p(claimed role) without and
    with that message (computed here from the public view by hand)."""
    env = _advance(seed=5, turns=4)
    g = env.game
    s = next(s for s in range(5) if not social.is_public(g, s) and not g.players[s].has_lost)
    tr = social.SocialTracker(5, FIVE.distribution(), social.PublicObserver())
    tr.update(g)
    said = sum(1 for m in g.talk.messages if m.kind == "claim")      # the claims made so far are rows too
    assert tr.arrays()[1].shape == (said, 7)
    g.talk.record(TalkMessage(g.turn, s, "claim", None, Role.GUARDIAN))
    tr.update(g)
    _o, claims, _c = tr.arrays()
    assert claims.shape == (said + 1, 7)
    turn, spk, true, claimed, fd, before, after = claims[-1]
    assert (spk, true, claimed, fd) == (s, int(g.players[s].role), int(G), 1.0)
    obs = social.PublicObserver()
    v = social.public_view(g)
    assert after == pytest.approx(obs.beliefs_of_view(v)[s, int(G)])
    assert before == pytest.approx(obs.beliefs_of_view(v._replace(talk=social._talk_prefix(v.talk, len(v.talk.messages) - 1, 5)))[s, int(G)])
    assert after > before                       # CLAIM_LIKELIHOOD: a Guardian claim is evidence for Guardian
    env.close()


def test_no_claims_in_the_silent_game():
    cfg = GameConfig(num_players=5, starting_life=20, max_turns=40, talk="none")
    res = ev.evaluate(["heuristic", "random"], games=5, seed=0, config=cfg, progress=False)
    assert res["talk"] == {}


# --------------------------------------------------------------------------- output, CLI
def test_results_json_and_cli_report_the_social_metrics(tmp_path, capsys):
    out = tmp_path / "cli"
    rc = main(["evaluate", "--players", "5", "--games", "7", "--agents", "belief,heuristic", "--mode",
               "teammates", "--talk", "structured", "--out", str(out), "--no-progress", "--max-turns", "40"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "Bluffing" in text and "Team play with partner `heuristic`" in text and "Talk (role claims" in text
    loaded = json.loads((out / "results.json").read_text())
    assert loaded["teamplay"]["partner"] == "heuristic" and loaded["bluffing"] and loaded["cooperation"]
    assert "Cooperation as a Guardian" in (out / "results.md").read_text()
    assert main(["evaluate", "--players", "5", "--games", "1", "--agents", "heuristic", "--mode", "teammates",
                 "--out", str(out), "--no-progress"]) == 2
    assert "teammates" in capsys.readouterr().err
    rc = main(["evaluate", "--players", "5", "--games", "5", "--agents", "heuristic,random", "--talk", "none",
               "--no-observer", "--out", str(out), "--force", "--no-progress", "--max-turns", "30"])
    assert rc == 0
    loaded = json.loads((out / "results.json").read_text())
    assert loaded["talk"] == {} and loaded["bluffing"] == {} and loaded["meta"]["config"]["talk"] == "none"
