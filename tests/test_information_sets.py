"""Hidden information is sacred (DESIGN section 4): a seat's observation and view
are functions of its information set only.  Checked by permuting what the seat
cannot see: other players' face-down identities it was not shown, other hands,
every library order, face-down exiles it may not look at."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treachery_env import GameConfig
from treachery_env.cards import CARDS, card
from treachery_env.engine import Game
from treachery_env.identity_cards.traitors import may_look_at_pile
from treachery_env.observation import N_DECISIONS, N_PHASES, encode, obs_layout
from treachery_env.view import seat_view

from scenario import random_game


def _permute_hidden(g: Game, viewer: int, rng: random.Random) -> Game:
    """A copy of ``g`` that differs only in what ``viewer`` cannot see."""
    h = g.clone()
    # face-down identities of others that the viewer was not shown
    hidden = [p for p in h.players
              if p.seat != viewer and not p.identity.face_up and viewer not in p.identity.known_by]
    defs = [p.identity.identity for p in hidden]
    rng.shuffle(defs)
    for p, d in zip(hidden, defs):
        p.identity.identity = d
    # other hands: same sizes, other cards
    nonland = [c for c in CARDS]
    for p in h.players:
        if p.seat != viewer:
            p.hand = [rng.choice(nonland) for _ in p.hand]
        rng.shuffle(p.library)
        idc = p.identity
        if "dream" in idc.data and (p.seat != viewer or not may_look_at_pile(idc, viewer)):
            idc.data["dream"] = [(owner, rng.choice(nonland)) for owner, _ in idc.data["dream"]]
    # The Corrupted Regent's hidden draw, kept by its trigger: another player's cards
    for it in h.stack + h.pending_triggers:
        if "_drawn" in it.data:
            it.data["_drawn"] = [(s, c if s == viewer else rng.choice(nonland).name) for s, c in it.data["_drawn"]]
    # another player's Seer scry in progress: the cards taken from the top of the library, kept or not
    sc = h.turn_effects.get("scry")
    if sc is not None and sc["seat"] != viewer:
        other = {id(c): rng.choice(nonland) for c in sc["cards"]}
        for k in ("cards", "top", "bottom"):
            sc[k][:] = [other[id(c)] for c in sc[k]]
    return h


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.integers(4, 8), steps=st.integers(0, 500), which=st.integers(0, 7))
def test_observation_depends_only_on_information_set(seed, n, steps, which):
    g = random_game(seed, steps, n=n, max_turns=60)
    viewer = which % n
    rng = random.Random(seed + 1)
    for _ in range(3):
        h = _permute_hidden(g, viewer, rng)
        assert np.array_equal(encode(g, viewer), encode(h, viewer))
        assert np.array_equal(g.observation(viewer)["action_mask"], h.observation(viewer)["action_mask"])
        assert seat_view(g, viewer) == seat_view(h, viewer)
        assert g.render_text(viewer) == h.render_text(viewer)
    if g.decision is not None and g.decision.seat != viewer:
        # another seat's pending decision: neither its mask, nor its kind, nor its context
        lay, vec = obs_layout(n), encode(g, viewer)
        assert not g.observation(viewer)["action_mask"].any() and seat_view(g, viewer).decision is None
        assert not vec[lay.glob + N_PHASES:lay.glob + N_PHASES + N_DECISIONS].any()
        assert not vec[lay.context:lay.context_end].any()


def test_permutation_changes_what_the_owner_sees():
    """The check above is not vacuous: the permuted seat itself sees the change."""
    g = random_game(3, 50, n=5, max_turns=60)
    rng = random.Random(0)
    others = [p.seat for p in g.players if not p.identity.face_up]
    changed = False
    for _ in range(20):
        h = _permute_hidden(g, 0, rng)
        for s in others:
            if s != 0 and not np.array_equal(encode(g, s), encode(h, s)):
                changed = True
    assert changed


def test_face_down_again_is_remembered_and_reveal_on_loss_is_public():
    """TR4.7: players who saw an identity may remember it after it turns face
    down; a loss reveals the identity to everyone (CR 702.187g)."""
    cfg = GameConfig(num_players=5, identities=["The Old Ruler", "The Bodyguard", "The Seer", "The Demon",
                                                "The Gatekeeper"], decks=["aggro"] * 5)
    g = Game(cfg, seed=0)
    gk = g.players[4].identity
    assert 1 not in gk.known_by
    v1 = seat_view(g, 1)
    assert v1.players[4].identity is None
    gk.face_up = True
    gk.known_by = set(range(5))
    g.turn_face_down(4)
    v1 = seat_view(g, 1)
    assert v1.players[4].identity == "The Gatekeeper" and not v1.players[4].face_up
    assert seat_view(g, 2).players[1].identity is None
    g.lose([1])
    assert seat_view(g, 2).players[1].identity == "The Bodyguard"


def _check_all_viewers(g: Game, rng: random.Random) -> None:
    for viewer in range(g.n):
        h = _permute_hidden(g, viewer, rng)
        assert np.array_equal(encode(g, viewer), encode(h, viewer))
        assert seat_view(g, viewer) == seat_view(h, viewer)


@pytest.mark.parametrize("name,deal", [
    ("The Puppet Master", ["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Puppet Master"]),
    ("The Metamorph", ["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Metamorph"]),
    ("The Gatekeeper", ["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Gatekeeper"]),
    ("The Ferryman", ["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Ferryman"]),
])
def test_information_sets_after_identity_moving_effects(name, deal):
    """The property above also holds in games where identities moved, were
    looked at or turned face down again (The Puppet Master, The Metamorph, The
    Gatekeeper, The Ferryman): checked every few decisions after the card was
    unveiled, for every seat."""
    checked_after = 0
    for seed in range(12):
        g = Game(GameConfig(num_players=5, identities=deal, decks=["aggro"] * 5, starting_life=10,
                            max_turns=30), seed=seed)
        for p in g.players:
            p.lands = 10
        rng = random.Random(seed)
        steps = 0
        while not g.is_over and steps < 600:
            g.step(rng.choice(g.legal_actions()))
            steps += 1
            if steps % 25 == 0 and any(e["event"] == "unveil" and e["identity"] == name for e in g.log):
                _check_all_viewers(g, rng)
                checked_after += 1
    assert checked_after >= 5, f"{name} was not unveiled often enough to test"


def test_neither_own_decisions_nor_the_parallel_cadence_tell_another_seat_s_identity():
    """docs/environment.md, "Infos": two deals that differ only in P2's face-down identity (The Seer,
    unveilable from the first turn, so asked at every priority window, or The Pyromancer), bots
    that play the same whatever they hold: every other seat gets the same observations and views
    at each of its own AEC decisions, though the games show different numbers of decisions.  The
    parallel form, where every seat steps at every decision of any seat, shows every seat's
    priority (``forced_decisions="shown"``), so P0's whole stream (observations and
    ``active_agent``) is the same too; with ``forced_decisions="auto"`` it differs within the
    first turn (the leak the default closes)."""
    import treachery_env
    from tests.test_play import UNVEILABLE
    from tests.test_table import newcomer

    own, shown = [], []
    cadence: dict[str, list] = {"shown": [], "auto": []}
    for deal in UNVEILABLE:
        config = GameConfig(num_players=5, identities=deal, commander=False, max_turns=3)
        env = treachery_env.env(config=config)
        env.reset(seed=0)
        seen, decisions = {s: [] for s in (0, 1, 3, 4)}, 0
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            decisions += 1
            seat = int(agent.split("_")[1])
            if seat in seen:
                seen[seat].append((obs["observation"].tobytes(), info["view"].to_dict()))
            env.step(newcomer(info["view"]))
        own.append(seen)
        shown.append(decisions)
        for forced, limit in (("shown", 10_000), ("auto", 20)):
            par = treachery_env.parallel_env(config=config, forced_decisions=forced)
            obs, infos = par.reset(seed=0)
            stream = []
            while par.agents and len(stream) < limit:
                stream.append((obs["player_0"]["observation"].tobytes(), infos["player_0"].get("active_agent")))
                obs, _, _, _, infos = par.step({a: newcomer(infos[a]["view"]) if "view" in infos[a] else 0
                                                for a in par.agents})
            cadence[forced].append(stream)
    assert own[0] == own[1] and all(own[0][s] for s in own[0])
    assert shown[0] > shown[1], "the Seer is asked where the Pyromancer is not: the test compares that"
    assert cadence["shown"][0] == cadence["shown"][1] and not par.agents      # the whole game
    assert len(cadence["shown"][0]) > 3 * 8 * 5                 # every seat at each window of 3 turns
    assert cadence["auto"][0] != cadence["auto"][1]


# Identities whose card keeps data (a face-down pile, a Metamorph's plan, a Lich Queen's grants, the
# Gathering's used modes, debt and grave counters, The Cathar's linked exile, the Regent's hidden draw)
# at a table with the effects that move identities, turn them face down, copy them or take their
# triggers: The Puppet Master, The Metamorph, The Reflector, The Gatekeeper, The Ferryman, The Wearer
# of Masks.  Seven seats: a Leader, three Assassins and three Guardians or Traitors (CR 907.3b).
_MOVING_DEALS = [
    ["The Old Ruler", "The Oneiromancer", "The Reflector", "The Puppet Master", "The Demon", "The Seer",
     "The Beastmaster"],
    ["The Corrupted Regent", "The Reflector", "The Metamorph", "The Cathar", "The Demon", "The Seer",
     "The Physician"],
    ["The Debt Collector", "The Wearer of Masks", "The Gatekeeper", "The Oneiromancer", "The Demon",
     "The Madwoman", "The Seer"],
    ["The Gathering", "The Puppet Master", "The Ferryman", "The Cathar", "The Demon", "The Seer",
     "The Corpse Snatcher"],
    ["The Lich Queen", "The Metamorph", "The Oneiromancer", "The Wearer of Masks", "The Demon",
     "The Beastmaster", "The Seer"],
]
_MOVES = frozenset({"identity_control", "face_down", "copy_identity", "gain_control_stack", "metamorph_takes",
                    "identity_removed"})


@pytest.mark.parametrize("deal", _MOVING_DEALS, ids=lambda d: "+".join(n.split()[-1] for n in d))
def test_information_sets_after_identities_with_data_move(deal):
    """Every seat's observation, view and text stay functions of its information
    set once an identity card that keeps data changed hands, face or copy, or
    The Reflector took one of its triggers: at each such game's decisions after
    the first move (every fifth), for every seat, a copy of the game that
    differs only in what the seat cannot see gives the same bytes, view and
    text; and nothing reachable from the view is engine state."""
    from test_no_game_reachable import assert_hands_nothing_of
    moved_games = 0
    for seed in range(6):
        g = Game(GameConfig(num_players=7, identities=deal, decks=["aggro"] * 7, starting_life=12,
                            max_turns=20), seed=seed)
        rng = random.Random(seed)
        moved = False
        steps = 0
        while not g.is_over and steps < 500:
            for p in g.players:
                p.lands = max(p.lands, 8)           # every unveil cost payable: the moves happen often
            g.step(rng.choice(g.legal_actions()))
            steps += 1
            if not moved:
                moved = any(e["event"] in _MOVES for e in g.log)
                moved_games += moved
            if moved and steps % 5 == 0 and not g.is_over:
                for viewer in range(g.n):
                    h = _permute_hidden(g, viewer, rng)
                    assert np.array_equal(encode(g, viewer), encode(h, viewer)), (seed, steps, viewer)
                    v = seat_view(g, viewer)
                    assert v == seat_view(h, viewer), (seed, steps, viewer)
                    assert g.render_text(viewer) == h.render_text(viewer), (seed, steps, viewer)
                    if steps % 50 == 0:
                        assert_hands_nothing_of(g, v, v.to_dict())
    assert moved_games >= 2, "too few games where an identity moved to test"


def _identity_table(name: str, mover: str, seed: int):
    """Seven seats (CR 907.3b): The Old Ruler, ``mover`` (seat 1), two Guardians
    and three Assassins, ``name`` in the seat of its role (a Leader in the Old
    Ruler's, a Traitor in a Guardian's); every player with 14
    lands and random cards in hand and library, Undercover met.  Returns the
    game at main phase 1, ``name``'s seat and a random generator."""
    from identity_helpers import at_main
    from treachery_env.identities import all_identities
    from treachery_env.rules import Role
    role = {i.name: i.role for i in all_identities()}
    assassins = ["The Beastmaster", "The Bio-Engineer", "The Demon"]
    guardians = ["The Bodyguard", "The Immortal"]
    leader = "The Old Ruler"
    if role[name] == Role.LEADER:
        leader = name
    elif role[name] == Role.ASSASSIN:
        assassins = [name] + [a for a in assassins if a != name][:2]
    else:
        guardians = [guardians[0] if name != guardians[0] else guardians[1], name]
    deal = [leader, mover] + guardians + assassins
    g = at_main(deal, seed=seed)
    rng = random.Random(seed)
    pool = ["Shock", "Murder", "Grove Bear", "Wastes", "Banish", "Blaze", "Ambush Viper"]
    for p in g.players:
        p.lands = 14
        p.library = [card(rng.choice(pool)) for _ in range(14)]
        p.hand = [card(rng.choice(pool[:4])) for _ in range(3)]
    g.revealed_identities.add(-1)                   # Undercover met (scenario set-up)
    return g, deal.index(name), rng


def _unveil(g: Game, seat: int) -> bool:
    """``seat`` takes priority and unveils (X = 2 where it may), if it can."""
    from identity_helpers import give_priority
    L = g.layout
    give_priority(g, seat)
    xs = [a for a in g.legal_actions() if L.UNVEIL <= a < L.UNVEIL + 16]
    if xs:
        g.step(xs[min(2, len(xs) - 1)])
    return bool(xs)


def _play_out(g: Game, rng: random.Random, check: bool, limit: int = 300) -> int:
    """Random legal choices, every priority passed, until the stack is empty at a
    priority; every seat's information set checked at each decision if ``check``.
    Returns the decisions checked."""
    from identity_helpers import is_priority
    L = g.layout
    n = 0
    while (g.stack or not is_priority(g)) and n < limit and not g.is_over:
        if check:
            _check_with_text(g, rng)
        acts = g.legal_actions()
        g.step(L.PASS if is_priority(g) and L.PASS in acts else rng.choice(acts))
        n += 1
    return n


def _check_with_text(g: Game, rng: random.Random) -> None:
    """:func:`_check_all_viewers`, and every seat's text too."""
    _check_all_viewers(g, rng)
    for viewer in range(g.n):
        assert g.render_text(viewer) == _permute_hidden(g, viewer, rng).render_text(viewer)


def _unveil_triggers() -> list:
    from treachery_env.identity_abilities import IMPLEMENTATIONS
    # their trigger needs what this table lacks (a spell, permanent or graveyard card to target, its
    # controller's turn): it never goes on the stack here
    absent = {"The Ambitious Queen", "The Cleaner", "The Ferryman", "The Necromancer", "The Pyromancer",
              "The Rebel General", "The Shapeshifting Slayer", "The Sorceress", "The Spellsnatcher", "The Villain",
              "The Ætherist", "The Reflector"}
    return sorted(n for n, impl in IMPLEMENTATIONS.items() if impl.on_unveil and n not in absent
                  and n not in ("The Old Ruler", "The Queen of Light"))


@pytest.mark.parametrize("name", _unveil_triggers())
def test_information_sets_when_the_reflector_takes_an_unveil_trigger(name):
    """The Reflector (seat 1) takes ``name``'s "when unveiled" trigger and makes
    its copies: at every decision until the stack is empty (the thief's choices
    of targets, modes and cards, the copies'), every seat's observation, view
    and text are functions of its information set: a trigger's data captured
    from its first controller (a hidden draw, a face-down pile) reaches no one
    else (CR 108.4a, 402.3)."""
    from identity_helpers import give_priority, is_priority, target_stack
    g, me, rng = _identity_table(name, "The Reflector", seed=0)
    assert _unveil(g, me)
    while not (g.stack and g.stack[-1].source == name and is_priority(g)):
        g.step(rng.choice(g.legal_actions()))
    trig = g.stack[-1]
    give_priority(g, 1)
    g.step(g.layout.UNVEIL)
    if not is_priority(g):
        target_stack(g, trig)
    _play_out(g, rng, check=True)
    _check_with_text(g, rng)
    assert trig.controller == 1 or trig not in g.stack
    assert any(e["event"] == "gain_control_stack" and e["seat"] == 1 for e in g.log)


def _non_leaders() -> list:
    from treachery_env.identities import all_identities
    from treachery_env.identity_abilities import IMPLEMENTATIONS
    from treachery_env.rules import Role
    return sorted(i.name for i in all_identities() if i.role != Role.LEADER and i.name in IMPLEMENTATIONS
                  and i.name not in ("The Puppet Master", "The Bodyguard"))


@pytest.mark.parametrize("name", _non_leaders())
def test_information_sets_when_the_puppet_master_moves_an_unveiled_identity(name):
    """``name`` is unveiled and its trigger resolved (the card may now keep
    data: a pile, a plan, linked cards); The Puppet Master moves the card face
    down to another player, who unveils it again: at every decision from the
    Puppet Master's unveil on, every seat's observation, view and text are
    functions of its information set (CR 314.4b, 314.9)."""
    from identity_helpers import is_priority
    g, me, rng = _identity_table(name, "The Puppet Master", seed=0)
    to = 2 if me != 2 else 3
    assert _unveil(g, me)
    _play_out(g, rng, check=False)
    card = g.players[me].identity
    assert _unveil(g, 1)
    for _ in range(200):
        if g.players[to].identity is card:
            break
        _check_all_viewers(g, rng)
        d = g.decision
        if d.seat == 1 and f"P{to} " in d.prompt and "Puppet Master" in d.prompt:
            g.step(g.layout.PLAYER + g.rel(1, me))
        else:
            g.step(g.layout.PASS if is_priority(g) else rng.choice(g.legal_actions()))
    assert g.players[to].identity is card and not card.face_up
    _check_with_text(g, rng)
    _play_out(g, rng, check=True)
    _check_with_text(g, rng)
    assert _unveil(g, to)
    _check_with_text(g, rng)
    _play_out(g, rng, check=True)
    _check_with_text(g, rng)


def test_information_sets_during_a_seer_scry():
    """The Seer unveiled with X = 2 shuffles its library and scries 2, one card at a time (the
    cards taken off the library while it decides): at each of its scry decisions every other
    seat's observation, view and text are the same whatever those cards are (the permutation
    changes them)."""
    from identity_helpers import is_priority
    g, me, rng = _identity_table("The Seer", "The Banisher", seed=1)
    assert _unveil(g, me)
    asked = 0
    for _ in range(100):
        d = g.decision
        if d is None or (not g.stack and is_priority(g) and asked):
            break
        if d.seat == me and d.prompt.startswith("scry:"):
            asked += 1
            assert len(g.turn_effects["scry"]["cards"]) == 2
            _check_with_text(g, rng)
            assert any(_permute_hidden(g, (me + 1) % g.n, rng).turn_effects["scry"]["cards"]
                       != g.turn_effects["scry"]["cards"] for _ in range(5))
        g.step(g.layout.PASS if is_priority(g) else rng.choice(g.legal_actions()))
    assert asked == 2


def test_every_turn_mark_is_classified_public_or_hidden():
    """Hidden information is sacred: every key the engine uses in
    ``Game.turn_effects`` (read from the package's sources: subscripts, ``get``,
    ``setdefault``, ``pop`` and ``in`` with a literal key, also through a local
    name bound to it) is either public, shown in every seat's view
    (``view.PUBLIC_TURN_MARKS``), or hidden (``view.HIDDEN_TURN_MARKS``), never
    both; no key is reached other than by a literal (outside the view, which
    reads the public ones by name), and each classified key is in use."""
    import re
    from pathlib import Path

    from treachery_env import view

    root = Path(view.__file__).parent
    literal = r"""\s*["'](\w+)["']"""
    used: dict[str, list[str]] = {}
    unnamed = []
    for path in sorted(p for ext in ("*.py", "*.pyx", "*.pxi") for p in root.rglob(ext)):
        src = path.read_text()
        names = ["turn_effects"] + re.findall(r"^\s*(\w+)\s*=\s*(?:\w+\.)*turn_effects\s*$", src, re.M)
        for name in names:
            ref = (r"(?:\w+\.)*" if name == "turn_effects" else r"(?<![\w.])") + name
            for pat in (ref + r"\s*\[" + literal + r"\s*\]", ref + r"\s*\.\s*(?:get|setdefault|pop)\(" + literal,
                        literal[3:] + r"\s+(?:not\s+)?in\s+" + ref + r"\b"):
                for m in re.finditer(pat, src):
                    used.setdefault(m.group(1), []).append(path.name)
            if path.name != "view.py":
                unnamed += [f"{path.name}: {m.group(0)}" for m in re.finditer(
                    ref + r"\s*(?:\[|\.\s*(?:get|setdefault|pop)\()(?!\s*[\"'])", src)]
    public, hidden = set(view.PUBLIC_TURN_MARKS), set(view.HIDDEN_TURN_MARKS)
    assert {"scry", "augur_scry", "fog", "first_strikers"} <= set(used)     # the scan finds the uses
    assert not unnamed, f"turn_effects keys that are no literal: {unnamed}"
    assert not public & hidden, f"marks both public and hidden: {sorted(public & hidden)}"
    unclassified = {k: v for k, v in used.items() if k not in public | hidden}
    assert not unclassified, (f"turn_effects keys neither in view.PUBLIC_TURN_MARKS nor in "
                              f"view.HIDDEN_TURN_MARKS: {unclassified}")
    assert public | hidden <= set(used), f"classified marks no code uses: {sorted(public | hidden - set(used))}"
