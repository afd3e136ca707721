"""The engine's fast paths give exactly what the full builders give (issue #12,
speed): :meth:`Game._can_act` is ``len(_priority_options) > 1`` for every seat
in every state random play reaches, :meth:`Game._can_talk` is
``bool(_talk_options)``, the talk options are those of the straightforward
builder they replaced, and :func:`identity_abilities.can_activate` is
``bool(activatable)``; the compiled priority check
(``treachery_env._priority.can_act``) is :meth:`Game._can_act`."""

from __future__ import annotations

import random

import pytest

from treachery_env import GameConfig
from treachery_env import identity_abilities as IA
from treachery_env.engine import Game, priority
from treachery_env.rules import VARIANTS


def reference_talk_options(g: Game, seat: int) -> list:
    """The talk options of ``seat`` built message by message (the builder
    :meth:`Game._talk_options` replaced): the specification it must match."""
    if not g.talk_window(seat):
        return []
    t = g.talk
    said = t.said_this_turn(seat, g.turn)
    if len(said) >= g.config.talk_limit:
        return []
    done = {(m.kind, m.subject, None if m.role is None else int(m.role)) for m in said}
    L, n = g.layout, g.n
    opts = []
    base = L.talk("claim")
    for r in range(4):
        if ("claim", None, r) not in done:
            opts.append((base + r, ("talk", ("claim", None, r))))
    others = sorted((s - seat) % n for s in range(n) if s != seat and not g.players[s].has_lost)
    base = L.talk("accuse")
    for rel in others:
        s = (seat + rel) % n
        for r in range(4):
            if ("accuse", s, r) not in done:
                opts.append((base + 4 * rel + r, ("talk", ("accuse", s, r))))
    for kind in ("defend", "threaten", "protect"):
        base = L.talk(kind)
        for rel in others:
            s = (seat + rel) % n
            if (kind, s, None) not in done:
                opts.append((base + rel, ("talk", (kind, s, None))))
    if ("request", None, None) not in done:
        opts.append((L.talk("request"), ("talk", ("request", None, None))))
    base = L.talk("offer")
    for rel in others:
        s = (seat + rel) % n
        if ("offer", s, None) not in done and not t.has_deal(seat, s):
            opts.append((base + rel, ("talk", ("offer", s, None))))
    return opts


def check_fast_paths(g: Game) -> int:
    """Compare every fast path with its full builder for every seat still in
    the game; returns how many seats could act."""
    acting = 0
    for s in range(g.n):
        if g.players[s].has_lost:
            continue
        full = g._priority_options(s)
        assert g._can_act(s) == (len(full) > 1), (s, g.phase, full)
        acting += len(full) > 1
        talk = g._talk_options(s)
        assert talk == reference_talk_options(g, s)
        assert g._can_talk(s) == bool(talk)
        if g.players[s].identity.face_up:
            assert IA.can_activate(g, s) == bool(IA.activatable(g, s))
    return acting


def _config(k: int, rng: random.Random) -> GameConfig:
    tables = (4, 5, 6, 7, 8)
    return GameConfig(num_players=tables[k % len(tables)], max_turns=rng.choice([20, 40, 60]),
                      commander=bool(k % 3), starting_life=rng.choice([None, 8, 14]),
                      variant=VARIANTS[(k // len(tables)) % len(VARIANTS)], identity_pool="all",
                      priority_windows=("full", "main")[(k // 2) % 2], talk=("structured", "none")[k % 4 == 3],
                      talk_limit=rng.choice([1, 2, 4, 10]), concession=k % 7 == 0)


@pytest.mark.parametrize("chunk", range(3))
def test_fast_paths_match_the_full_builders(chunk):
    """60 random games (every variant, 4-8 players, both window modes, talk on
    and off with several limits, identities from every rarity; every other game
    with 10 lands per player so that unveils, identity abilities, flash and
    tokens are within reach): at every shown decision, for every seat, the fast
    paths agree with the full option builders."""
    acting = checked = 0
    for k in range(chunk * 20, chunk * 20 + 20):
        rng = random.Random(k)
        g = Game(_config(k, rng), seed=900 + k)
        if k % 2:
            for p in g.players:
                p.lands = 10
            g._advance()
        while not g.is_over:
            if rng.random() < 0.5:
                acting += check_fast_paths(g)
                checked += 1
            a = rng.choice(g.legal_actions())
            if a == g.layout.CONCEDE and rng.random() < 0.9:
                a = g.decision.options[0][0]
            g.step(a)
    assert checked > 2000 and acting > 1500, (checked, acting)


compiled_check = pytest.mark.skipif(priority.CAN_ACT != "compiled", reason="the compiled priority check is not in use "
                                    "(not built, or TREACHERY_PURE_PYTHON=1; see test_compiled.py)")


@compiled_check
@pytest.mark.parametrize("part", range(3))
def test_the_compiled_priority_check_is_the_reference(part):
    """Every variant at every table size (4-12), the other options in turn
    (talk structured / none, both window modes, Commander on / off, every
    other game with 10 lands per player so that unveils, identity abilities,
    flash, tokens and cards from other zones are within reach): at every
    decision, for every seat still in, ``treachery_env._priority.can_act``
    gives what :meth:`Game._can_act` (the reference) gives, which is
    ``len(_priority_options) > 1``; the answers include both values at and
    outside sorcery timing."""
    from treachery_env._priority import can_act
    seen = set()
    checked = 0
    for n in range(4 + part * 3, 7 + part * 3):
        for v, variant in enumerate(VARIANTS):
            k = n + v
            cfg = GameConfig(num_players=n, variant=variant, identity_pool="all", max_turns=8 * n,
                             talk=("structured", "none")[k % 3 == 2], priority_windows=("full", "main")[k % 2],
                             commander=bool((k // 3) % 2 == 0), concession=k % 5 == 0)
            g = Game(cfg, seed=3000 + k)
            rng = random.Random(k)
            if k % 2:
                for p in g.players:
                    p.lands = 10
                g._advance()
            while not g.is_over:
                for s in range(g.n):
                    if g.players[s].has_lost:
                        continue
                    ref = g._can_act(s)
                    assert can_act(g, s) == ref == (len(g._priority_options(s)) > 1), (k, s, g.phase, g.turn)
                    seen.add((g._sorcery_timing(s), ref))
                    checked += 1
                a = rng.choice(g.legal_actions())
                if a == g.layout.CONCEDE and rng.random() < 0.9:
                    a = g.decision.options[0][0]
                g.step(a)
    assert checked > 10000 and len(seen) == 4, (checked, seen)


def _outcome(f, *args):
    """``("ok", value)`` or ``("raise", exception type, args)`` of ``f(*args)``."""
    try:
        return ("ok", f(*args))
    except Exception as e:      # noqa: BLE001 -- the exceptions are compared
        return ("raise", type(e), e.args)


@compiled_check
def test_the_compiled_priority_check_off_the_engine_s_paths():
    """What the compiled check reads from tables or in one pass instead of as
    the reference does (the token counts by key identity, the Treasure count
    in C, an identity's and its implementation's facts kept per object) gives
    the reference's answer or exception where the state is not as the engine
    makes it: a game through pickle (token names equal but other strings),
    counts of False, True, 1 and beyond a C long, a missing token name, an
    equal copy of the identity and a stand-in of another class, face up and
    down."""
    import dataclasses
    import pickle
    import types

    from treachery_env._priority import can_act
    cfg = GameConfig(num_players=5, identity_pool="all", max_turns=40, talk="structured")
    g = Game(cfg, seed=77)
    for p in g.players:
        p.lands = 10
    g._advance()
    rng = random.Random(5)
    results = set()
    checked = 0
    step = 0
    while not g.is_over and step < 400:
        step += 1
        if step % 7 == 0:
            data = pickle.dumps(g)              # each variant a game of its own, loaded from it
            variants = [pickle.loads(data)]
            for value in (False, True, 1, 2 ** 70):
                for name in ("Treasure", "Clue", "Food", "Blood", "Map", "Junk"):
                    h = pickle.loads(data)
                    h.players[step % g.n].tokens[name] = value
                    variants.append(h)
            h = pickle.loads(data)
            del h.players[step % g.n].tokens["Food"]
            variants.append(h)
            for face_up in (False, True):
                h = pickle.loads(data)
                idc = h.players[step % g.n].identity
                idc.face_up = face_up
                idc.identity = dataclasses.replace(idc.identity)
                variants.append(h)
                h = pickle.loads(data)
                idc = h.players[step % g.n].identity
                idc.face_up = face_up
                idc.identity = types.SimpleNamespace(**{f.name: getattr(idc.identity, f.name)
                                                        for f in dataclasses.fields(idc.identity)})
                variants.append(h)
            for h in variants:
                for s in range(h.n):
                    if not h.players[s].has_lost:
                        ref = _outcome(h._can_act, s)
                        assert _outcome(can_act, h, s) == ref, (step, s, h.phase)
                        results.add(ref[0] if ref[0] == "raise" else ref[1])
                        checked += 1
        a = rng.choice(g.legal_actions())
        if a == g.layout.CONCEDE:
            a = g.decision.options[0][0]
        g.step(a)
    assert checked > 1000 and {True, False, "raise"} <= results, (checked, results)
