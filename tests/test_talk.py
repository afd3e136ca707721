"""Table talk (TR10.5, TR1; treachery_env/engine/talk.py): structured, public,
non-binding messages.

TR10.5: "Table talk is part of the game. You may make claims, accuse, threaten
and strike deals. Deals are never binding. You may not show your face-down
identity or other hidden cards to back up a claim, and you may not use
outside signals to share information secretly."  TR1: "You may say anything
about your identity, true or false."
"""

from __future__ import annotations

import json
import random
from dataclasses import fields

import numpy as np
import pytest
from pettingzoo.test import api_test

import agents
import treachery_env
from agents.belief import RoleBelief
from agents.ismcts import ISMCTSAgent, rollout_action
from agents.play import play_game
from treachery_env import GameConfig
from treachery_env.actions import MAX_CHOICE, MAX_WALKERS, N_LOYALTY_ABILITIES, ActionLayout, talk_size
from treachery_env.engine import DecisionKind, Game, TalkMessage
from treachery_env.observation import TALK_PAIR_FEATURES, TALK_SPEAKER_FEATURES, encode, obs_layout
from treachery_env.view import seat_view
from treachery_env.rules import Role
from treachery_env.text import format_event

from scenario import PASS, add_creature, events, has_priority, make_game, pass_priority_until, refresh
from test_fuzz import check_invariants, check_result
from test_information_sets import _permute_hidden
from conftest import decisions

# 5 players: Leader, Guardian, Assassin, Assassin, Traitor (CR 907.3c); the Leader (seat 0) starts
DEAL5 = ["The Old Ruler", "The Bodyguard", "The Demon", "The Seer", "The Banisher"]
LEADER, GUARDIAN, ASSASSIN, ASSASSIN2, TRAITOR = range(5)


def _main_phase_of(g: Game, seat: int) -> None:
    """Pass until ``seat`` holds priority in its own precombat main phase."""
    pass_priority_until(g, lambda g: g.active == seat and g.phase == "main1" and has_priority(seat)(g))


def _talk_actions(g: Game) -> set[int]:
    L = g.layout
    return {a for a, _ in g.decision.options if a >= L.TALK} if g.decision is not None else set()


def _play_random(g: Game, rng: random.Random) -> Game:
    while not g.is_over:
        g.step(rng.choice(g.legal_actions()))
    return g


def _summary_without_talk(g: Game) -> dict:
    s = g.state_summary()
    s.pop("talk", None)
    s.pop("decision")
    return s


# ---------------------------------------------------------------------------- layout and config
@pytest.mark.parametrize("n", [4, 5, 8, 12])
def test_talk_block_is_appended_and_decodes(n):
    """The TALK block comes after every earlier block (CHOICE, then the
    planeswalker blocks WALKER ((n + 1) x 4) and LOYALTY (4 x 3)), only
    CONCEDE after it, and each of its ``8n + 6`` indices decodes to a message
    and back."""
    L = ActionLayout(n)
    assert L.WALKER == L.CHOICE + MAX_CHOICE and L.LOYALTY == L.WALKER + (n + 1) * MAX_WALKERS
    assert L.TALK == L.LOYALTY + MAX_WALKERS * N_LOYALTY_ABILITIES
    assert L.CONCEDE == L.TALK + talk_size(n) == L.TALK + 8 * n + 6
    seen = set()
    for a in range(L.TALK, L.CONCEDE):
        kind, rel, role = L.talk_decode(a)
        assert L.talk(kind, rel, role) == a
        seen.add(kind)
        assert L.decode(a)[0] == "TALK"
    assert seen == {"claim", "accuse", "defend", "threaten", "protect", "request", "offer", "accept"}
    with pytest.raises(ValueError, match=r"^talk_decode: action \(a talk action\) must be an int from"):
        L.talk_decode(L.CHOICE)
    with pytest.raises(ValueError, match="unknown talk action"):
        L.talk("whisper")


def test_bad_talk_config_is_a_clear_error():
    with pytest.raises(ValueError, match=r"GameConfig.talk: must be one of \['structured', 'none'\]"):
        GameConfig(talk="free")
    with pytest.raises(ValueError, match="GameConfig.talk_limit: must be an int from 0 to 10"):
        GameConfig(talk_limit=11)
    with pytest.raises(ValueError, match="GameConfig.talk_limit"):
        GameConfig(talk_limit=True)
    assert GameConfig().talk == "structured" and GameConfig().talk_limit == 2
    assert GameConfig.from_dict(GameConfig(talk="none", talk_limit=3).to_dict()) == GameConfig(talk="none", talk_limit=3)


def test_deal_decision_kind_and_placeholders():
    """The truce answer is DecisionKind 17 ("deal"); 13-16 are reserved names."""
    assert DecisionKind.DEAL == 17 and DecisionKind.COUNT == 18 == len(DecisionKind.NAMES)
    assert DecisionKind.NAMES[13:] == ("order", "keep", "mulligan", "bottom", "deal")


# ---------------------------------------------------------------------------- a lie, in public
def test_a_traitor_may_claim_guardian_and_every_seat_sees_it():
    """TR1: "You may say anything about your identity, true or false": the
    Traitor says "I am a Guardian".  The lie is a public event in the log, in
    every seat's observation vector and view; it shows nothing hidden (the
    Traitor's identity stays face down and unknown to the others), and the
    Traitor keeps priority (talking is not a game action)."""
    g = make_game(DEAL5)
    _main_phase_of(g, TRAITOR)
    L = g.layout
    lie = L.talk("claim", 0, Role.GUARDIAN)
    assert lie in _talk_actions(g)
    assert g.describe_action(lie) == 'say "I am a Guardian" (true or false)'
    g.step(lie)
    assert g.decision.seat == TRAITOR and g.decision.kind == DecisionKind.PRIORITY   # still its priority
    e = events(g, "talk")[-1]
    assert (e["seat"], e["kind"], e["role"], e["subject"], e["to"]) == (TRAITOR, "claim", "guardian", None, None)
    assert format_event(e) == 'P4: "I am a Guardian"'
    idc = g.players[TRAITOR].identity
    assert not idc.face_up and idc.known_by == {TRAITOR} and idc.role == Role.TRAITOR
    O = obs_layout(5)
    for viewer in range(5):
        v = seat_view(g, viewer)
        assert v.talk.claims[TRAITOR].role == Role.GUARDIAN
        assert v.talk.messages[-1] == TalkMessage(g.turn, TRAITOR, "claim", None, Role.GUARDIAN)
        if viewer != TRAITOR:
            assert v.players[TRAITOR].role is None and v.players[TRAITOR].identity is None
        o = encode(g, viewer)
        b = O.talk + ((TRAITOR - viewer) % 5) * TALK_SPEAKER_FEATURES
        assert o[b:b + 4].tolist() == [0.0, 1.0, 0.0, 0.0]              # claimed Guardian
        assert o[b + 5] == pytest.approx(1 / g.config.talk_limit)        # one message this turn
        last = O.talk_last
        assert o[last + (TRAITOR - viewer) % 5] == 1.0                   # the last message's speaker
        assert o[last + 5] == 1.0                                        # ... its kind: claim
        assert o[last + 5 + 9 + 5 + Role.GUARDIAN] == 1.0                # ... the role it names
    assert "P4 claims to be a Guardian" in g.render_text(None)


def test_a_claim_is_only_words():
    """No message carries hidden information (TR10.5: no showing hidden cards):
    a message has only turn, speaker, kind, subject and role, and no talk event
    names an identity."""
    assert [f.name for f in fields(TalkMessage)] == ["turn", "speaker", "kind", "subject", "role"]
    g = _play_random(Game(GameConfig(num_players=6, max_turns=40), seed=4), random.Random(4))
    talk = events(g, "talk")
    assert len(talk) > 50
    for e in talk:
        assert e["to"] is None and "identity" not in e and set(e) == {"turn", "event", "seat", "kind", "subject",
                                                                      "role", "to"}


# ---------------------------------------------------------------------------- no leak
@pytest.mark.parametrize("seed", range(6))
def test_talk_reveals_no_hidden_identity(seed):
    """DESIGN section 4 after talk: permuting what a seat cannot see (others'
    face-down identities, hands, libraries) leaves its observation, mask, view
    and text identical; and the talk actions a speaker is offered do not depend
    on its own hidden identity (swapping it with another face-down card changes
    none of them), so even when someone may talk reveals nothing."""
    n = 4 + seed % 4
    g = Game(GameConfig(num_players=n, max_turns=40), seed=seed)
    rng = random.Random(seed)
    talk_windows = checked = 0
    for step in range(900):
        if g.is_over:
            break
        seat = g.current_player
        talk = _talk_actions(g) if g.decision.kind == DecisionKind.PRIORITY else set()
        if talk:
            talk_windows += 1
            down = [p.seat for p in g.players if not p.identity.face_up and p.seat != seat]
            if not g.players[seat].identity.face_up and down:
                h = g.clone()
                other = rng.choice(down)
                a, b = h.players[seat].identity, h.players[other].identity
                a.identity, b.identity = b.identity, a.identity
                assert {x for x, _ in h._talk_options(seat)} == talk
                checked += 1
        if step % 25 == 0 and g.talk.messages:
            viewer = rng.randrange(n)
            h = _permute_hidden(g, viewer, rng)
            assert np.array_equal(encode(g, viewer), encode(h, viewer))
            assert np.array_equal(g.observation(viewer)["action_mask"], h.observation(viewer)["action_mask"])
            assert seat_view(g, viewer) == seat_view(h, viewer)
            assert g.render_text(viewer) == h.render_text(viewer)
        g.step(rng.choice(g.legal_actions()))
    assert talk_windows > 20 and checked >= 5 and g.talk.messages


# ---------------------------------------------------------------------------- windows and the bound
def test_bound_per_player_per_turn_and_no_repeats():
    """At most ``talk_limit`` messages per player per turn; the same message is
    not offered twice in one turn; the budget comes back next turn."""
    g = make_game(DEAL5, talk_limit=3)
    L = g.layout
    claim_g = L.talk("claim", 0, Role.GUARDIAN)
    g.step(claim_g)
    assert claim_g not in _talk_actions(g)                    # said this turn: not again
    assert L.talk("claim", 0, Role.TRAITOR) in _talk_actions(g)
    g.step(L.talk("request"))
    g.step(L.talk("accuse", 2, Role.ASSASSIN))
    assert g.decision.seat == LEADER and _talk_actions(g) == set()   # limit reached
    assert len(g.talk.said_this_turn(LEADER, g.turn)) == 3
    # next round: the Leader's budget is back in its main phase
    pass_priority_until(g, lambda g: g.turn == 6 and g.phase == "main1" and has_priority(LEADER)(g))
    assert claim_g in _talk_actions(g) and len(_talk_actions(g)) > 30


def test_talk_windows_are_the_own_main_phases_and_the_reaction():
    """Talk is offered at the speaker's priority with an empty stack in its own
    main phases, and in another player's end step only to a seat that another
    player attacked or harmed during that turn; never with a spell on the stack."""
    g = make_game(DEAL5)
    L = g.layout
    assert _talk_actions(g)                                  # the Leader, main1, empty stack
    shock = g.decision.index_of(L.HAND)
    assert shock is not None
    g.step(L.HAND)                                           # Shock ...
    g.step(L.PLAYER + 2)                                     # ... the Assassin at seat 2
    assert g.stack and _talk_actions(g) == set()            # a spell on the stack: no talk
    seen = {}
    while g.turn == 1:
        d = g.decision
        if d.kind == DecisionKind.PRIORITY:
            seen.setdefault((g.phase, d.seat), bool(_talk_actions(g)))
        g.step(PASS)
    assert seen[("end", 2)] is True                          # hurt this turn: may react
    assert seen[("end", 1)] is False and seen[("end", 3)] is False and seen[("end", 4)] is False
    assert seen[("main1", 0)] is True and seen[("main2", 0)] is True
    assert seen.get(("end", 0), False) is False               # the active player's own end step: no talk
    assert not any(talk for (ph, s), talk in seen.items() if ph not in ("main1", "main2", "end"))


def test_talking_keeps_priority_and_does_not_reset_passes():
    """Talk is not a game action (CR 117.3d counts passes only): after the
    Leader and the Guardian pass in the end step, the hurt Assassin talks and
    passes, the others pass, and the step ends without asking the Leader again."""
    g = make_game(DEAL5)
    L = g.layout
    g.step(L.HAND)
    g.step(L.PLAYER + 2)
    pass_priority_until(g, lambda g: g.phase == "end" and has_priority(2)(g))
    assert g.passes == 2
    g.step(L.talk("accuse", (0 - 2) % 5, Role.LEADER))        # "P0 is a Leader" (true, and useless)
    assert g.decision.seat == 2 and g.passes == 2
    asked = []
    while g.turn == 1:
        asked.append((g.phase, g.decision.seat))
        g.step(PASS)
    assert asked == [("end", 2), ("end", 3), ("end", 4)]


# ---------------------------------------------------------------------------- deals
def test_truce_offered_accepted_recorded_and_not_enforced():
    """TR10.5 "Deals are never binding": the Leader offers the Guardian a truce,
    the Guardian answers at once (a DEAL decision) and accepts; the truce is
    public (log, views, both pair slots of every observation); the Leader still
    attacks the Guardian; the truce ends as the Leader's next turn starts, and
    the log says the Leader broke it."""
    g = make_game(DEAL5)
    add_creature(g, LEADER, "Grove Bear")
    L = g.layout
    g.step(L.talk("offer", GUARDIAN))
    d = g.decision
    assert d.seat == GUARDIAN and d.kind == DecisionKind.DEAL
    assert sorted(a for a, _ in d.options) == [PASS, L.talk("accept")]
    v = seat_view(g, GUARDIAN)
    assert v.decision.kind == "deal" and {o.kind for o in v.decision.options} == {"pass", "accept"}
    assert next(o for o in v.decision.options if o.kind == "accept").player == LEADER
    assert g.describe_action(L.talk("accept")) == "accept the truce"
    g.step(L.talk("accept"))
    assert g.decision.seat == LEADER and g.decision.kind == DecisionKind.PRIORITY   # back to the offerer
    assert [(x.dealer, x.partner) for x in g.talk.deals] == [(LEADER, GUARDIAN)]
    assert [e["kind"] for e in events(g, "talk")] == ["offer", "accept"]
    assert L.talk("offer", GUARDIAN) not in _talk_actions(g)   # a truce stands: no second offer
    O = obs_layout(5)
    for viewer in range(5):
        assert seat_view(g, viewer).talk.has_deal(GUARDIAN, LEADER)
        o = encode(g, viewer)
        a, b = (LEADER - viewer) % 5, (GUARDIAN - viewer) % 5
        assert o[O.talk_pairs + (a * 5 + b) * TALK_PAIR_FEATURES + 7] == 1.0
        assert o[O.talk_pairs + (b * 5 + a) * TALK_PAIR_FEATURES + 7] == 1.0
    # not enforced: the dealer attacks its partner anyway
    pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.decision.options[1][0])
    assert g.decision.kind == DecisionKind.DEFENDER and g.decision.index_of(L.PLAYER + GUARDIAN) is not None
    g.step(L.PLAYER + GUARDIAN)
    pass_priority_until(g, lambda g: g.turn == 2)
    assert g.attacks[LEADER][GUARDIAN] == 1 and g.talk.deals
    pass_priority_until(g, lambda g: g.turn == 6)
    assert not g.talk.deals
    end = events(g, "deal_ended")
    assert [(e["seat"], e["partner"], e["broken_by"]) for e in end] == [(LEADER, GUARDIAN, [LEADER])]
    assert format_event(end[0]) == "the truce between P0 and P1 ends (broken by P0)"
    assert (LEADER, GUARDIAN) in g.talk.broken
    o = encode(g, GUARDIAN)
    assert o[O.talk_pairs + ((LEADER - GUARDIAN) % 5 * 5 + 0) * TALK_PAIR_FEATURES + 8] == 1.0   # broke a truce with me


def test_truce_rejected_is_recorded_without_a_deal():
    g = make_game(DEAL5)
    L = g.layout
    g.step(L.talk("offer", TRAITOR))
    assert g.decision.seat == TRAITOR and g.decision.kind == DecisionKind.DEAL
    g.step(PASS)                                              # reject
    assert not g.talk.deals and g.talk.messages[-1] == TalkMessage(1, TRAITOR, "reject", LEADER)
    assert format_event(events(g, "talk")[-1]) == "P4 rejects P0's truce"
    assert g.decision.seat == LEADER
    assert L.talk("offer", TRAITOR) not in _talk_actions(g)   # the same offer, not twice in a turn
    assert L.talk("offer", GUARDIAN) in _talk_actions(g)      # ... and answers cost the answerer nothing
    assert len(g.talk.said_this_turn(TRAITOR, 1)) == 0


def test_a_truce_with_a_party_who_left_ends_as_the_next_turn_starts():
    """A truce whose partner leaves the game stands (unbroken, in every view) until the next turn
    starts, then ends with its ``deal_ended`` event; no new offer is made to a player who left."""
    g = make_game(DEAL5)
    L = g.layout
    g.step(L.talk("offer", GUARDIAN))
    g.step(L.talk("accept"))
    g.lose([GUARDIAN])
    refresh(g)
    assert g.turn == 1 and g.talk.has_deal(LEADER, GUARDIAN)
    assert seat_view(g, ASSASSIN).talk.has_deal(GUARDIAN, LEADER)
    assert not events(g, "deal_ended")
    assert L.talk("offer", ASSASSIN) in _talk_actions(g) and L.talk("offer", GUARDIAN) not in _talk_actions(g)
    pass_priority_until(g, lambda g: g.turn == 2)
    assert not g.talk.deals and not seat_view(g, ASSASSIN).talk.has_deal(GUARDIAN, LEADER)
    end = events(g, "deal_ended")
    assert [(e["turn"], e["seat"], e["partner"], e["broken_by"]) for e in end] == [(2, LEADER, GUARDIAN, [])]


# ---------------------------------------------------------------------------- silent game
def test_silent_game_offers_no_talk_and_zeros_the_block():
    """talk="none": no talk action is ever legal and the talk block of every
    observation stays zeros; the action space is the same, so one policy fits
    both games."""
    cfg = GameConfig(num_players=5, max_turns=40, talk="none")
    g = Game(cfg, seed=2)
    O = obs_layout(5)
    rng = random.Random(2)
    steps = 0
    while not g.is_over:
        assert not _talk_actions(g)
        if steps % 20 == 0:
            for viewer in range(5):
                assert not encode(g, viewer)[O.talk:].any()
        g.step(rng.choice(g.legal_actions()))
        steps += 1
    assert not g.talk.messages and not events(g, "talk") and steps > 100
    assert Game(cfg, seed=2).layout.size == Game(cfg.replace(talk="structured"), seed=2).layout.size
    # with talk, the block is written once something is said
    g = make_game(DEAL5)
    g.step(g.layout.talk("request"))
    assert encode(g, 3)[O.talk:].any() and encode(g, 3)[O.talk + ((0 - 3) % 5) * TALK_SPEAKER_FEATURES + 4] == 1.0
    g = make_game(DEAL5, talk_limit=0)
    assert not _talk_actions(g)


def test_recency_halves_every_round():
    """Only a speaker's latest word in a slot counts, written 0.5 ** rounds ago."""
    g = make_game(DEAL5)
    L = g.layout
    g.step(L.talk("claim", 0, Role.GUARDIAN))
    O = obs_layout(5)
    b = O.talk + 0 * TALK_SPEAKER_FEATURES
    pass_priority_until(g, lambda g: g.turn == 6 and g.phase == "main1" and has_priority(LEADER)(g))
    assert encode(g, LEADER)[b + Role.GUARDIAN] == 0.5
    g.step(L.talk("claim", 0, Role.LEADER))
    o = encode(g, LEADER)
    assert o[b + Role.LEADER] == 1.0 and o[b + Role.GUARDIAN] == 0.0


# ---------------------------------------------------------------------------- replays
def test_replays_round_trip_with_talk():
    """Game.to_json / from_json rebuild a talking game (messages, truces and
    digest); a version-2 replay (before talk) is read as the silent game."""
    g = _play_random(Game(GameConfig(num_players=5, max_turns=30), seed=8), random.Random(8))
    assert g.talk.messages and any(m.kind == "offer" for m in g.talk.messages)
    d = json.loads(g.to_json())
    assert d["version"] == 3 and d["config"]["talk"] == "structured" and d["config"]["talk_limit"] == 2
    h = Game.from_json(d)
    assert h.digest() == g.digest() and h.talk.messages == g.talk.messages and h.talk.deals == g.talk.deals
    assert h.to_json() == g.to_json()
    silent = _play_random(Game(GameConfig(num_players=5, max_turns=30, talk="none"), seed=8), random.Random(8))
    old = json.loads(silent.to_json())
    del old["config"]["talk"], old["config"]["talk_limit"]
    old["version"] = 2
    assert Game.from_json(old).digest() == silent.digest()
    assert "talk" not in silent.state_summary() and "talk" in g.state_summary()


# ---------------------------------------------------------------------------- fuzz
@pytest.mark.parametrize("chunk", range(3))
def test_random_play_with_talk_ends_and_keeps_invariants(chunk):
    """Random legal play with talk (the random bot talks whenever it may) ends
    within max_turns about as often as the silent game, at the same length in
    turns; at every step the rules invariants hold, no seat says more than
    ``talk_limit`` messages in a turn, and saying something changes nothing
    but the talk: the speaker keeps priority in the same state (or, its last
    message said and nothing else to do, passes automatically; an offer asks
    its subject)."""
    tables = (4, 5, 6, 8)
    turns = {"structured": [], "none": []}
    won = {"structured": 0, "none": 0}
    for k in range(24):
        seed = 500 * chunk + k
        n = tables[k % len(tables)]
        for mode in ("structured", "none"):
            rng = random.Random(seed)
            cfg = GameConfig(num_players=n, max_turns=80, talk=mode, talk_limit=1 + seed % 3,
                             starting_life=rng.choice([6, 10]), identity_pool="all")
            g = Game(cfg, seed=seed)
            while not g.is_over:
                check_invariants(g)
                a = rng.choice(g.legal_actions())
                d = g.decision
                payload = d.options[d.index_of(a)][1]
                talking = isinstance(payload, tuple) and payload[0] == "talk"
                if talking:
                    before, seat = _summary_without_talk(g), d.seat
                    only_pass = sum(1 for _, pl in d.options if not (isinstance(pl, tuple) and pl[0] == "talk")) == 1
                g.step(a)
                if talking:
                    if payload[1][0] == "offer":
                        assert g.decision.kind == DecisionKind.DEAL and g.decision.seat == payload[1][1]
                    spent = len(g.talk.said_this_turn(seat, before["turn"])) == cfg.talk_limit
                    if _summary_without_talk(g) != before:    # the game moved on: the limit reached with
                        assert only_pass and spent and payload[1][0] != "offer"  # only PASS left, passed for it
                    elif g.decision.kind == DecisionKind.PRIORITY and g.decision.seat != seat:
                        assert only_pass and spent                              # else the speaker keeps priority
            check_invariants(g)
            check_result(g)
            per = {}
            for m in g.talk.messages:
                if m.kind not in ("accept", "reject"):
                    per[(m.turn, m.speaker)] = per.get((m.turn, m.speaker), 0) + 1
            assert all(c <= cfg.talk_limit for c in per.values())
            assert (mode == "none") == (not g.talk.messages)
            turns[mode].append(g.turn)
            won[mode] += bool(g.winners)
    assert won["structured"] >= 16 and won["none"] >= 16, won
    assert abs(np.mean(turns["structured"]) - np.mean(turns["none"])) <= 0.25 * np.mean(turns["none"]), turns


def test_env_api_with_talk_and_silent():
    """The PettingZoo API test passes with talk and in the silent game."""
    api_test(treachery_env.env(num_players=5, talk="structured"), num_cycles=2000)
    api_test(treachery_env.env(num_players=4, talk="none"), num_cycles=1000)


# ---------------------------------------------------------------------------- bots
def _bot_games(specs, games, n=5, seed0=0, **cfg):
    out = []
    for s in range(games):
        bots = [agents.make(sp, seed=s * 10 + i) for i, sp in enumerate(specs)]
        cfg_ = GameConfig(num_players=n, commander=False, starting_life=20, max_turns=80, **cfg)
        env = None
        for env, bot, obs, info in decisions(cfg_, seed0 + s, bots):
            env.step(bot.act(obs, info))
        out.append(env.unwrapped.game)
    return out


def test_heuristic_talks_per_its_role():
    """The heuristic bot talks as its role would (agents/heuristic.py, "Table
    talk"): Guardians claim Guardian (true), Traitors and covered Assassins
    claim Guardian (a lie) and no one ever claims its true role as an Assassin
    or a Traitor; the Leader claims nothing and accuses only as "Assassin"; a
    Guardian never threatens the Leader; truces are offered to the Leader
    only, who accepts some and rejects others."""
    games = _bot_games(["heuristic"] * 5, 6)
    claims = {Role.LEADER: set(), Role.GUARDIAN: set(), Role.ASSASSIN: set(), Role.TRAITOR: set()}
    offers = answers = 0
    answer_kinds = set()
    for g in games:
        role = {p.seat: p.identity.identity.role for p in g.players}
        leader = next(s for s, r in role.items() if r == Role.LEADER)
        for m in g.talk.messages:
            r = role[m.speaker]
            if m.kind == "claim":
                claims[r].add(m.role)
            if m.kind == "threaten":
                assert not (r == Role.GUARDIAN and m.subject == leader)
            if m.kind == "accuse" and r == Role.LEADER:
                assert m.role == Role.ASSASSIN
            if m.kind == "offer":
                offers += 1
                assert m.subject == leader and r != Role.LEADER
            if m.kind in ("accept", "reject"):
                answers += 1
                answer_kinds.add(m.kind)
    assert claims == {Role.LEADER: set(), Role.GUARDIAN: {Role.GUARDIAN}, Role.ASSASSIN: {Role.GUARDIAN},
                      Role.TRAITOR: {Role.GUARDIAN}}
    assert offers == answers > 10 and answer_kinds == {"accept", "reject"}


def test_heuristic_leader_accepts_a_truce_only_from_a_seat_it_trusts():
    """The Leader accepts the truce of a seat that never hurt it and rejects the
    one of a seat that attacked it (harm history)."""
    bot = agents.make("heuristic", seed=0)
    bot.reset(LEADER)
    for attacked, want in ((0, "accept"), (3, "pass")):
        g = make_game(DEAL5)
        g.attacks[ASSASSIN][LEADER] = attacked
        pass_priority_until(g, lambda g: g.active == ASSASSIN and g.phase == "main1" and has_priority(ASSASSIN)(g))
        g.step(g.layout.talk("offer", (LEADER - ASSASSIN) % 5))
        assert g.decision.seat == LEADER and g.decision.kind == DecisionKind.DEAL
        v = g.view(LEADER)
        a = bot.act(g.observation(LEADER), {"view": v})
        assert next(o.kind for o in v.decision.options if o.action == a) == want


def test_belief_moves_on_talk_in_the_expected_direction():
    """Talk is evidence, modest because cheap (an Assassin also claims
    Guardian): seen by the Guardian, a Guardian claim raises that seat's
    Guardian probability and lowers its Assassin probability; a threat against
    the Leader raises the Assassin probability; being accused of being an
    Assassin raises it too; repeating a statement adds nothing; and no ratio
    is large (one claim moves a probability by less than 0.15)."""
    g = make_game(DEAL5)
    L = g.layout
    viewer = GUARDIAN
    prior = RoleBelief().beliefs(seat_view(g, viewer))
    assert prior[TRAITOR][Role.ASSASSIN] == pytest.approx(2 / 3, abs=1e-9)
    pass_priority_until(g, lambda g: g.active == ASSASSIN and g.phase == "main1" and has_priority(ASSASSIN)(g))
    g.step(L.talk("threaten", (LEADER - ASSASSIN) % 5))
    g.step(L.talk("accuse", (TRAITOR - ASSASSIN) % 5, Role.ASSASSIN))
    pass_priority_until(g, lambda g: g.active == TRAITOR and g.phase == "main1" and has_priority(TRAITOR)(g))
    g.step(L.talk("claim", 0, Role.GUARDIAN))
    b = RoleBelief().beliefs(seat_view(g, viewer))
    assert b[ASSASSIN][Role.ASSASSIN] > prior[ASSASSIN][Role.ASSASSIN] + 0.01        # threatened the Leader
    # a model that trusts the table to play by role applies the ratios in full: 0.5 : 0.35 for a threat
    sure = RoleBelief(random_player=0.0, random_table=0.0)
    only_threat = make_game(DEAL5)
    pass_priority_until(only_threat, lambda g: g.active == ASSASSIN and g.phase == "main1"
                        and has_priority(ASSASSIN)(g))
    only_threat.step(L.talk("threaten", (LEADER - ASSASSIN) % 5))
    t = sure.beliefs(seat_view(only_threat, viewer))
    assert t[ASSASSIN][Role.TRAITOR] == pytest.approx((0.35 / 3) / (0.35 / 3 + 2 * 0.5 / 3))
    # a Guardian claim alone, on another table
    h = make_game(DEAL5)
    pass_priority_until(h, lambda g: g.active == TRAITOR and g.phase == "main1" and has_priority(TRAITOR)(g))
    h.step(L.talk("claim", 0, Role.GUARDIAN))
    c = RoleBelief().beliefs(seat_view(h, viewer))
    assert c[TRAITOR][Role.ASSASSIN] < prior[TRAITOR][Role.ASSASSIN]                   # a Guardian claim
    assert c[TRAITOR][Role.TRAITOR] > prior[TRAITOR][Role.TRAITOR]                     # ... favours a Traitor
    assert prior[TRAITOR][Role.ASSASSIN] - c[TRAITOR][Role.ASSASSIN] < 0.15           # cheap talk: modest
    # accused of being an Assassin (by another seat): more likely an Assassin
    k = make_game(DEAL5)
    pass_priority_until(k, lambda g: g.active == ASSASSIN and g.phase == "main1" and has_priority(ASSASSIN)(g))
    k.step(L.talk("accuse", (TRAITOR - ASSASSIN) % 5, Role.ASSASSIN))
    acc = RoleBelief().beliefs(seat_view(k, viewer))
    assert acc[TRAITOR][Role.ASSASSIN] > prior[TRAITOR][Role.ASSASSIN]
    # talk_weight=0 ignores talk; the same words again (next round) add nothing
    assert RoleBelief(talk_weight=0).beliefs(seat_view(g, viewer)) == prior
    before = RoleBelief().beliefs(seat_view(h, viewer))
    pass_priority_until(h, lambda g: g.turn == 10 and g.phase == "main1" and has_priority(TRAITOR)(g))
    h.step(L.talk("claim", 0, Role.GUARDIAN))
    again = RoleBelief().beliefs(seat_view(h, viewer))
    assert all(again[s_] == pytest.approx(before[s_]) for s_ in range(5))


def test_ismcts_copes_with_talk():
    """ISMCTS in a talking game: determinized worlds carry the public talk (the
    rebuilt decision offers the same talk actions), its rollouts never talk,
    and it plays whole games without errors, saying what the heuristic would."""
    from agents.ismcts import determinize, setup_decision
    g = Game(GameConfig(num_players=4, commander=False, starting_life=10, max_turns=30), seed=3)
    rng = random.Random(3)
    rebuilt = 0
    while not g.is_over and rebuilt < 8:
        seat = g.current_player
        if _talk_actions(g) and g.talk.messages and g.decision.kind == DecisionKind.PRIORITY:
            view = g.view(seat)
            h = determinize(view, random.Random(rebuilt), observation=g.observation(seat))
            assert h.talk.messages == g.talk.messages
            if setup_decision(h, view):
                assert set(g.legal_actions()) <= set(h.legal_actions())
                assert np.array_equal(h.observation(seat)["observation"], g.observation(seat)["observation"])
                for k in range(20):
                    a = rollout_action(h, random.Random(k))
                    assert a < h.layout.TALK
                rebuilt += 1
        g.step(rng.choice(g.legal_actions()))
    assert rebuilt >= 4
    bots = [ISMCTSAgent(seed=1, iterations=4, determinizations=2, horizon=1), agents.make("heuristic", seed=2),
            agents.make("random", seed=3), agents.make("belief", seed=4)]
    r = play_game(bots, GameConfig(num_players=4, commander=False, starting_life=10, max_turns=30), seed=5)
    assert r.turns > 0 and bots[0].stats["errors"] == 0 and bots[0].stats["talk"] > 0
    assert bots[0].stats["searched"] > 0


def test_a_person_talks_through_one_menu_entry():
    """At the terminal, table talk is one entry that opens the messages (and
    "back"); a person may lie as freely as a bot (TR1)."""
    import io

    from rich.console import Console

    from agents.human import HumanAgent
    g = make_game(DEAL5)
    n_talk = len(_talk_actions(g))
    entry = len(g.decision.options) - n_talk + 1          # after the game's own options
    buf = io.StringIO()
    person = HumanAgent(input_stream=io.StringIO(f"{entry}\n{n_talk + 1}\n{entry}\n2\n"),
                        console=Console(file=buf, width=200))
    person.reset(LEADER)
    a = person.act(g.observation(LEADER), {"view": g.view(LEADER)})
    assert a == g.layout.talk("claim", 0, Role.GUARDIAN)
    out = buf.getvalue()
    assert f"{entry}. say something at the table... ({n_talk} messages, none binding)" in out
    assert out.count('1. say "I am a Leader" (true or false)') == 2 and f"{n_talk + 1}. back" in out


def test_a_message_made_past_the_class_call_is_the_class_calls_message():
    """talk._message (the engine's fast constructor, which sets the frozen
    dataclass's slots itself) makes what ``TalkMessage(...)`` makes, for
    every field the class has: a field added to the class and not to
    ``_message`` fails here."""
    from treachery_env.engine import talk

    assert [f.name for f in fields(TalkMessage)] == ["turn", "speaker", "kind", "subject", "role"]
    for args in [(3, 1, "claim", None, Role.TRAITOR), (0, 4, "offer", 2, None), (7, 2, "accept", 0)]:
        made, called = talk._message(*args), TalkMessage(*args)
        assert type(made) is TalkMessage
        assert made == called and hash(made) == hash(called)
        assert [getattr(made, f.name) for f in fields(TalkMessage)] == [getattr(called, f.name) for f in fields(TalkMessage)]
        with pytest.raises(AttributeError):
            made.turn = 9           # still frozen
