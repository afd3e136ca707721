"""Hidden information is sacred (DESIGN section 4), checked by paired games.

tests/test_information_sets.py permutes what a seat cannot see within one game state; the
public log is the same in both copies, so a public event whose presence, count, order or
wording depends on hidden information passes it.  Here two games are played from deals that
differ only in hidden information -- two seats' face-down identities swapped, one player's
hand, or the deeper part of every library put in another order -- by bots whose choices never
depend on it
(:class:`_PublicBot`), through the AEC environment, with table talk on.  Every seat that
cannot know the difference must be handed the same thing at each of its decisions -- the
observation bytes, the view (``info["view"]``: options, labels, log lines), the rendered
text -- and be asked equally often; the log events it may see must be the same, in the same
order, until the first event from which the difference may legitimately show (a swapped
identity unveiled, revealed, looked at or moved, a swapped seat's loss, a card of the changed
hand shown, a card from a changed part of a library drawn or searched for, the end of the game).

The engine stops for a seat that could unveil at every priority window it has (the seat is
asked though it would pass otherwise): which seats the engine stops for depends on their
identities.  In the AEC environment a seat is handed only its own decisions, so that cadence
reaches no other seat; :func:`test_the_engine_asks_an_unveilable_seat_more_often_unseen`
shows that the games compared here do differ in it.  The parallel env, where every seat steps at
every decision and is told who acts, shows every decision (``forced_decisions="shown"``), so the
cadence is the same in both games there (with ``"auto"`` the parallel test below fails for
unveilable identities).
"""

from __future__ import annotations

import random

import pytest

import treachery_env
from treachery_env import GameConfig
from treachery_env.cards import CARDS
from treachery_env.identities import all_identities
from treachery_env.rules import Role

from test_no_game_reachable import assert_hands_nothing_of

_ROLE = {i.name: i.role for i in all_identities()}
_BY_ROLE = {r: sorted(n for n, rr in _ROLE.items() if rr == r) for r in set(_ROLE.values())}
_FACE_DOWN = sorted(n for n, r in _ROLE.items() if r != Role.LEADER)
"""Every identity that can be dealt face down (all but the Leaders)."""

# events after which a swapped identity may show: its holder unveils or reveals it, loses (the loss
# reveals it, CR 702.187g) or the game ends; an effect looks at, reveals, moves, copies or turns
# face down identities (whoever's: conservative)
_SHOWS_SEAT = frozenset({"unveil", "reveal", "loses"})
_SHOWS_ANY = frozenset({"game_over", "truncated", "reveal_identities", "look_at_identities", "reveal_role",
                        "look_at_role", "identity_control", "face_down", "copy_identity", "gain_control_stack",
                        "metamorph_takes", "identity_removed", "puppet_master"})


class _PublicBot:
    """Random legal play that never concedes nor takes an option of a kind in ``never`` (a seat whose
    identity differs between the paired games never unveils; one whose hand differs never plays a
    land or casts a spell), and draws from its generator only when it has a real choice, so it plays
    the same in both games whenever it is offered the same options."""

    def __init__(self, seed: int, never: frozenset = frozenset()):
        self.rng = random.Random(seed)
        self.never = never | {"concede"}

    def __call__(self, view) -> int:
        opts = [o for o in view.decision.options if o.kind not in self.never]
        return opts[0].action if len(opts) == 1 else self.rng.choice(opts).action


_HIDES_IDENTITY = frozenset({"unveil"})
_HIDES_HAND = frozenset({"unveil", "land", "cast"})


def _identity_shows(hidden: set[int]):
    def shows(e: dict) -> bool:
        if e["event"] in _SHOWS_SEAT:
            return e.get("seat") in hidden
        return e["event"] in _SHOWS_ANY
    return shows


def _play(deal: list[str], seed: int, hidden: set[int], shows, modify=None, max_turns: int = 12,
          never: frozenset = _HIDES_IDENTITY) -> tuple:
    """Play ``deal`` through the AEC environment (``env.reset(seed=seed)``) with a :class:`_PublicBot`
    at every seat (those in ``hidden`` never take an option of a kind in ``never``), every player
    with 8 lands so that unveils happen; ``modify(game)``, if given, is applied as the first turn
    begins (after the mulligans), at the same decision in both games.  Stops after the first
    log event for which ``shows`` is true.  Returns the game, the index of that event (None: none),
    and for each seat not in ``hidden`` what it was handed at each of its decisions: (log length,
    observation bytes, view as a dict, rendered text)."""
    n = len(deal)
    env = treachery_env.env(config=GameConfig(num_players=n, identities=deal, max_turns=max_turns))
    env.reset(seed=seed)
    g = env.unwrapped.game
    for p in g.players:
        p.lands = 8
    bots = [_PublicBot(seed * 100 + s, never if s in hidden else frozenset()) for s in range(n)]
    handed: dict[int, list] = {s: [] for s in range(n) if s not in hidden}
    stop = None
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if modify is not None and g.turn >= 1:
            modify(g)
            modify = None
            obs, _, _, _, info = env.last()
        seat = int(agent.split("_")[1])
        view = info["view"]
        if seat in handed:
            handed[seat].append((len(g.log), obs["observation"].tobytes(), view.to_dict(), g.render_text(seat)))
            if len(handed[seat]) % 40 == 1:
                assert_hands_nothing_of(g, obs, info, view.to_dict())
        start = len(g.log)
        env.step(bots[seat](view))
        stop = next((i for i in range(start, len(g.log)) if shows(g.log[i])), None)
        if stop is not None:
            break
    return g, stop, handed


def _seen(log: list, seat: int) -> list:
    return [e for e in log if e["to"] is None or seat in e["to"]]


def _assert_same_to_the_others(a: tuple, b: tuple, label: str) -> int:
    """Compare two :func:`_play` results up to the earlier stop; returns the decisions compared."""
    ga, stop_a, handed_a = a
    gb, stop_b, handed_b = b
    end = min(len(ga.log) if stop_a is None else stop_a, len(gb.log) if stop_b is None else stop_b)
    compared = 0
    for seat in handed_a:
        la, lb = _seen(ga.log[:end], seat), _seen(gb.log[:end], seat)
        first = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
        assert la == lb, (f"{label}: P{seat}'s log differs at its event {first}: "
                          f"{la[first:first + 2]} / {lb[first:first + 2]}")
        xa = [h[1:] for h in handed_a[seat] if h[0] < end]
        xb = [h[1:] for h in handed_b[seat] if h[0] < end]
        assert len(xa) == len(xb), f"{label}: P{seat} is asked {len(xa)} / {len(xb)} times"
        for k, (x, y) in enumerate(zip(xa, xb)):
            for what, u, v in zip(("observation", "view", "text"), x, y):
                assert u == v, f"{label}: P{seat}'s {what} differs at its decision {k}"
        compared += len(xa)
    return compared


def _swap_deal(name: str, k: int) -> tuple[list[str], int]:
    """Five seats (CR 907.3b: a Leader, a Guardian, two Assassins, a Traitor) with ``name`` at P2, the
    others drawn from the identities of their roles by ``k``; and the seat P2 swaps with (one of
    another role)."""
    need = [Role.GUARDIAN, Role.ASSASSIN, Role.ASSASSIN, Role.TRAITOR]
    need.remove(_ROLE[name])
    used, others = {name}, []
    for i, role in enumerate(need):
        pool = [x for x in _BY_ROLE[role] if x not in used]
        others.append(pool[(7 * k + i) % len(pool)])
        used.add(others[-1])
    leaders = _BY_ROLE[Role.LEADER]
    deal = [leaders[k % len(leaders)], others[0], name, others[1], others[2]]
    partner = next(j for j in (3, 4, 1) if _ROLE[deal[j]] != _ROLE[name])
    return deal, partner


@pytest.mark.parametrize("name", _FACE_DOWN)
def test_a_face_down_identity_moved_to_another_seat_shows_to_no_other_seat(name):
    """``name`` face down at P2 in one game and at another seat (of another role) in the other, that
    seat's identity at P2; the other identities, the Leader and the other seats' bots (which may
    unveil) the same.  The three other seats are handed the same at each of their decisions, as
    often, and see the same log, until a swapped identity may show."""
    k = _FACE_DOWN.index(name)
    compared = 0
    for seed in range(k, k + 4 * len(_FACE_DOWN), len(_FACE_DOWN)):    # another table if one shows early
        deal, partner = _swap_deal(name, seed)
        swapped = list(deal)
        swapped[2], swapped[partner] = swapped[partner], swapped[2]
        hidden = {2, partner}
        shows = _identity_shows(hidden)
        a = _play(deal, seed, hidden, shows)
        b = _play(swapped, seed, hidden, shows)
        compared += _assert_same_to_the_others(a, b, f"{name} at P2 / P{partner}, seed {seed}")
        if compared >= 20:
            break
    assert compared >= 20, f"only {compared} decisions before a swapped identity showed"


def test_the_engine_asks_an_unveilable_seat_more_often_unseen():
    """The games compared above differ in the engine's cadence: The Seer (unveilable from the first
    turn) is asked at priority windows where The Pyromancer is not, so the engine stops more often in
    one game; no other seat is handed a different thing or asked a different number of times, and
    table talk was part of what they saw."""
    deal = ["The Old Ruler", "The Bodyguard", "The Seer", "The Pyromancer", "The Banisher"]
    swapped = ["The Old Ruler", "The Bodyguard", "The Pyromancer", "The Seer", "The Banisher"]
    shows = _identity_shows({2, 3})
    results = []
    for d in (deal, swapped):
        g, stop, handed = r = _play(d, 0, {2, 3}, shows)
        assert stop is None or g.log[stop]["event"] == "truncated"
        results.append(r)
    assert _assert_same_to_the_others(*results, "Seer / Pyromancer") >= 30
    assert any(e["event"] == "talk" for e in results[0][0].log)
    steps = []
    for d in (deal, swapped):
        env = treachery_env.env(config=GameConfig(num_players=5, identities=d, max_turns=3))
        env.reset(seed=0)
        bots = [_PublicBot(s, _HIDES_IDENTITY if s in (2, 3) else frozenset()) for s in range(5)]
        count = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            count += agent == "player_2"
            env.step(bots[int(agent.split("_")[1])](info["view"]))
        steps.append(count)
    assert steps[0] > steps[1], "the Seer is asked where the Pyromancer is not: the test compares that"


# events that may show a card of a player's hand: it leaves the hand (discarded, put into the library,
# exiled, cast, played) or is revealed
_SHOWS_HAND = frozenset({"discard", "reveal_hand", "reveal_all", "revealed_to_hand", "put_on_top", "exile_card",
                         "to_library", "wheel", "casting", "cast", "land", "land_put", "game_over", "truncated"})


@pytest.mark.parametrize("seed", range(6))
def test_a_hand_shows_to_no_other_seat(seed):
    """Two games that differ only in one player's hand (other cards, as many, from the first turn
    on), that player never playing a land or casting a spell: every other seat is handed the same
    at each of its decisions, as often, and sees the same log, until a card of that hand may show
    (discarded, revealed, put elsewhere).  The engine stops for the player where its hand holds
    something it could cast, so the two games may stop for it at different moments."""
    g = treachery_env.env(config=GameConfig(num_players=5))
    g.reset(seed=seed)
    deal = [p.identity.name for p in g.unwrapped.game.players]
    holder = 1 + seed % 4

    def other_hand(game) -> None:
        rng = random.Random(seed)
        hand = game.players[holder].hand
        hand[:] = [rng.choice(CARDS) for _ in hand]

    def shows(e: dict) -> bool:
        return e["to"] is None and (e["event"] in _SHOWS_HAND and (e.get("seat") == holder or e["event"] in
                                                                    ("game_over", "truncated", "reveal_all"))
                                    or e.get("victim") == holder)
    a = _play(deal, seed, {holder}, shows, max_turns=15, never=_HIDES_HAND)
    b = _play(deal, seed, {holder}, shows, modify=other_hand, max_turns=15, never=_HIDES_HAND)
    assert [p.hand for p in a[0].players] != [p.hand for p in b[0].players]
    assert _assert_same_to_the_others(a, b, f"P{holder}'s hand, seed {seed}") >= 10


_LIBRARY_TOP = 30
"""The top cards of each library left in place when the rest is put in another order."""

_LOOK = 12
"""The most top cards of a library an effect looks at or reveals in these games: the games are
compared while the top ``_LOOK`` of every library are the same cards in both."""


@pytest.mark.parametrize("seed", range(4))
def test_the_order_of_the_libraries_below_their_top_shows_to_no_one(seed):
    """Two games that differ only in the order of every library below its top :data:`_LIBRARY_TOP`
    cards (changed as the first turn begins, after the mulligans), played in step by the same bots
    (no one unveils: identities that look at or move library cards do not come into it): every
    seat -- none knows a library's order, its own included -- is handed the same at each decision,
    and the two logs are the same, until a search or a shuffle, or until a card from the changed
    part comes within the top :data:`_LOOK` of its library."""
    leaders = _BY_ROLE[Role.LEADER]
    deal = [leaders[seed % len(leaders)], "The Bodyguard", "The Demon", "The Seer", "The Banisher"]
    envs, games = [], []
    for _ in range(2):
        env = treachery_env.env(config=GameConfig(num_players=5, identities=deal, max_turns=10))
        env.reset(seed=seed)
        envs.append(env)
        games.append(env.unwrapped.game)
    bots = [[_PublicBot(seed * 100 + s, _HIDES_IDENTITY) for s in range(5)] for _ in range(2)]
    ga, gb = games
    rng = random.Random(seed)
    changed = 0          # the log's length when the libraries were changed
    steps = 0
    while ga.decision is not None and not ga.is_over:
        if not changed and ga.turn >= 1:
            for p in gb.players:
                deep = p.library[:-_LIBRARY_TOP]        # the top of a library is its end
                rng.shuffle(deep)
                p.library[:-_LIBRARY_TOP] = deep
            changed = len(ga.log)
        if any(pa.library[-_LOOK:] != pb.library[-_LOOK:] for pa, pb in zip(ga.players, gb.players)):
            break
        if any("shuffle" in e["event"] or "search" in e["event"] or e["event"] in ("tutor", "look_at_library")
               for e in ga.log[changed:]):
            break
        assert ga.log == gb.log, f"seed {seed}: the logs differ after {steps} decisions"
        assert envs[0].agent_selection == envs[1].agent_selection
        infos = [env.last()[4] for env in envs]
        views = [info["view"].to_dict() for info in infos]
        assert views[0] == views[1], f"seed {seed}: the views differ after {steps} decisions"
        for s in range(5):
            assert (ga.observation(s)["observation"].tobytes() == gb.observation(s)["observation"].tobytes()
                    and ga.render_text(s) == gb.render_text(s)), f"seed {seed}: P{s} sees a difference"
        seat = ga.decision.seat
        for env, bot, info in zip(envs, bots, infos):
            env.step(bot[seat](info["view"]))
        steps += 1
    assert changed and steps >= 40, f"only {steps} decisions compared"
    assert [p.library for p in ga.players] != [p.library for p in gb.players]


def _parallel_stream(deal: list[str], seed: int, hidden: set[int], max_turns: int) -> tuple[list, int]:
    """Play ``deal`` through the parallel env (``forced_decisions="shown"``) with :class:`_PublicBot`
    seats until a swapped identity may show (:func:`_identity_shows`); returns, step by step, what
    each seat not in ``hidden`` is handed (observation bytes, its info with the view as a dict), and
    the number of steps."""
    par = treachery_env.parallel_env(config=GameConfig(num_players=len(deal), identities=deal,
                                                       max_turns=max_turns))
    obs, infos = par.reset(seed=seed)
    game = par.aec_env.unwrapped.game
    for p in game.players:
        p.lands = 8
    bots = {a: _PublicBot(seed * 100 + k, _HIDES_IDENTITY if k in hidden else frozenset())
            for k, a in enumerate(par.possible_agents)}
    shows = _identity_shows(hidden)
    stream = []
    while par.agents:
        stream.append([(obs[a]["observation"].tobytes(),
                        {k: v.to_dict() if k == "view" else v for k, v in infos[a].items()})
                       for k, a in enumerate(par.possible_agents) if k not in hidden])
        start = len(game.log)
        obs, _, _, _, infos = par.step({a: bots[a](infos[a]["view"]) if "view" in infos[a] else 0
                                        for a in par.agents})
        if any(shows(e) for e in game.log[start:]):
            break
    return stream, len(stream)


@pytest.mark.parametrize("name", _FACE_DOWN[::6])
def test_in_the_parallel_form_a_moved_face_down_identity_shows_to_no_other_seat(name):
    """The parallel env, where every seat steps at every decision of any seat and is told who acts
    (``active_agent``): with every decision shown (its default), the pairs of
    :func:`test_a_face_down_identity_moved_to_another_seat_shows_to_no_other_seat` hand every other
    seat the same observations and infos at every step, in the same number of steps, until a swapped
    identity may show."""
    k = _FACE_DOWN.index(name)
    deal, partner = _swap_deal(name, k)
    swapped = list(deal)
    swapped[2], swapped[partner] = swapped[partner], swapped[2]
    a, steps_a = _parallel_stream(deal, k, {2, partner}, max_turns=4)
    b, steps_b = _parallel_stream(swapped, k, {2, partner}, max_turns=4)
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
    assert first is None, f"{name} at P2 / P{partner}: another seat is handed something else at step {first}"
    assert steps_a == steps_b and steps_a >= 40
