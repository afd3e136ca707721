"""The view and the text of a Throne Magic game (``../shared/rules/throne-magic.txt``, cited by
its headings; docs/throne_magic.md step 4): :class:`~treachery_env.view.ThroneView` in every
seat's :class:`~treachery_env.view.SeatView`, the spectators' view, the board, the words of the
mode's decisions and log events; the information set (permuting the Roles the viewer does not
know changes nothing it is shown; nothing of the Role state is reachable from a view); and both
view builders over random games."""

from __future__ import annotations

import json
import random

import pytest
from test_no_game_reachable import reachable
from test_throne_magic import (BASIC5, KING_FIRST, KING_SECOND, NO_KING, attack_throne, seat_of, throne,
                               throne_game, to_take, visions_asked)
from test_view_compiled import identical

from treachery_env import GameConfig
from treachery_env import throne_cards as tc
from treachery_env import throne_roles as tr
from treachery_env import view as V
from treachery_env.engine import Attackable, DecisionKind, Game
from treachery_env.engine.throne import ThroneMagic
from treachery_env.text import EVENT_KINDS, card_text, format_event, render, render_view, view_names
from treachery_env.view import SeatView, ThroneView, public_view, seat_view

from identity_helpers import creature, give_priority, pass_until

BUILDERS = [V.PythonViewBuilder] + ([V.ViewBuilder] if V.VIEW_BUILDER == "compiled" else [])


def texts(view: SeatView) -> dict[str, int]:
    """The viewer's options, words -> action."""
    return {o.text: o.action for o in view.decision.options}


def events(view: SeatView, kind: str) -> list[str]:
    return [format_event(e) for e in view.events if e["event"] == kind]


# ----------------------------------------------------------------------------- the view
def test_each_seat_sees_the_roles_in_the_game_its_own_role_and_the_throne():
    """"Public and Private Information": the set is public, each Role known to its seat;
    "Throne Cards": The King starts controlling the Throne (one of his attackables), so every
    seat knows who The King is."""
    g = Game(throne(throne_deal=BASIC5, throne="Throne of Power"), seed=0)
    king = seat_of(g, "The King")
    w = g.social.throne
    for seat in range(5):
        v = g.view(seat)
        tm = v.throne_magic
        assert type(tm) is ThroneView
        assert tm == ThroneView(g.social.role_set, tuple(r if s in (seat, king) else None
                                                         for s, r in enumerate(BASIC5)),
                                "Throne of Power", king, w.uid)
        assert v.throne_role == BASIC5[seat] and tm.known[seat] == BASIC5[seat]
        assert v.role_counts == () and v.dream == () and v.undercover_met is False
        for p in v.players:
            assert (p.identity, p.role, p.face_up, p.leader_player, dict(p.identity_counters)) == (None, None, False,
                                                                                                  False, {})
        assert [[(x.kind, x.name, x.uid) for x in p.planeswalkers] for p in v.players] == [
            [("throne", "Throne of Power", w.uid)] if s == king else [] for s in range(5)]
        assert events(v, "deal_role") == [f"P{seat} is dealt the Role {BASIC5[seat]}"]
        assert events(v, "roles") == ["the Roles in the game (the Basic Game): " + ", ".join(g.social.role_set)]
        assert events(v, "throne") == [f"the Throne is Throne of Power: P{king}, The King, starts controlling it"]
    assert Game(GameConfig(), seed=0).view(0).throne_magic is None
    assert Game(GameConfig(), seed=0).view(0).throne_role is None


def test_the_board_shows_the_roles_the_seat_knows_and_the_throne():
    g = Game(throne(throne_deal=BASIC5, throne="Throne of Power"), seed=0)
    king = seat_of(g, "The King")
    text = render(g, 2)
    for s, role in enumerate(BASIC5):
        line = next(x for x in text.splitlines() if x.startswith(f"P{s}"))
        assert (f"Role: {role}" in line) == (s in (2, king)) and ("Role [hidden]" in line) == (s not in (2, king)), line
        assert "identity" not in line
    assert "Roles in the game: " + ", ".join(g.social.role_set) in text
    assert f"the Throne: Throne of Power, controlled by P{king}" in text
    assert "    controls the Throne: Throne of Power" in text and "planeswalkers:" not in text
    public = [x for x in render(g, None).splitlines() if "Role: " in x]
    assert public == [x for x in public if x.startswith(f"P{king}")] and len(public) == 1    # The King's only
    assert render(g) == g.render_text()


def test_the_kings_choice_of_the_throne_in_words():
    """"Choosing a Throne Card for the Game": before The King chooses there is no Throne."""
    g = Game(throne(throne_deal=BASIC5, throne="king"), seed=0)
    king = seat_of(g, "The King")
    v = g.view(king)
    assert v.throne_magic.throne is v.throne_magic.controller is v.throne_magic.uid is None
    assert "the Throne: not chosen yet (The King chooses it)" in render_view(v)
    names = [c.name for c in tc.thrones()]
    assert [(o.text, o.kind, o.x) for o in v.decision.options] == [
        (f"choose {n} as the game's Throne", "choice", k) for k, n in enumerate(names)]
    assert g.describe_action(g.layout.CHOICE + 2) == f"choose {names[2]} as the game's Throne"
    g.step(g.layout.CHOICE + 2)
    assert g.view(0).throne_magic.throne == names[2] and g.view(0).throne_magic.controller == king


def test_attacking_and_taking_the_throne_in_the_middle_in_words():
    """"Attacking the Throne" in the middle (no defending player); "Taking the Throne" by a Claimant."""
    g = throne_game(NO_KING)                        # seat 0 the Dragon, a Claimant
    bear = creature(g, 0, "Grove Bear")
    w = g.social.throne
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.target_action(0, ("c", bear)))
    v = g.view(0)
    o = next(o for o in v.decision.options if o.action == g.attackable_action(0, w))
    assert o == o._replace(text="Grove Bear attacks the Throne, Throne of Wisdom (in the middle of the table, "
                                "no one defends it)", kind="attack_throne", player=None, planeswalker=w.uid)
    assert g.describe_action(g.layout.walker(4, 0), seat=1) == "the Throne, in the middle of the table (no one controls it)"
    g.step(o.action)
    g.step(g.layout.PASS)
    text = render(g, 1)
    assert "Grove Bear 2/2 (tapped, attacking the Throne, Throne of Wisdom (in the middle of the table))" in text
    assert ("the Throne: Throne of Wisdom, in the middle of the table (no one controls it) "
            "(attacked by Grove Bear (P0))") in text
    assert events(g.view(1), "attacks") == ["P0 attacks: Grove Bear attacks the Throne, Throne of Wisdom"]
    to_take(g)
    v = g.view(0)
    assert texts(v) == {"take the Throne, Throne of Wisdom": g.layout.CHOICE,
                        "decline the Throne: it stays in the middle of the table": g.layout.PASS}
    assert events(v, "combat_damage") == ["combat damage: the Throne, Throne of Wisdom (in the middle of the table) takes 2"]
    g.step(g.layout.CHOICE)
    v = g.view(3)
    assert v.throne_magic.controller == 0 and v.throne_magic.known[0] is None
    assert events(v, "throne_control") == ["P0 takes the Throne (Throne of Wisdom) from the middle of the table"]


def test_a_non_claimant_is_told_that_taking_does_what_declining_does():
    """"Controlling the Throne": a non-Claimant cannot take it; the words say so to that seat alone."""
    g = throne_game(["Wizard", "Dragon", "The Usurper", "Usurper's Bannerman"])
    attack_throne(g, creature(g, 0, "Grove Bear"))
    to_take(g)
    assert texts(g.view(0)) == {
        "take the Throne: only a Claimant can, and you are not one, so it stays in the middle of the table":
            g.layout.CHOICE,
        "decline the Throne: it stays in the middle of the table": g.layout.PASS}


def test_attacking_a_controlled_throne_and_declining_it_in_words():
    g = throne_game(KING_SECOND)                    # The King, seat 1, controls it
    bear = creature(g, 0, "Grove Bear")
    creature(g, 1, "Grove Bear")
    w = g.social.throne
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.target_action(0, ("c", bear)))
    o = next(o for o in g.view(0).decision.options if o.kind == "attack_throne")
    assert (o.text, o.player, o.planeswalker) == ("Grove Bear attacks the Throne, Throne of Wisdom (P1's)", 1, w.uid)
    g.step(o.action)
    g.step(g.layout.PASS)
    assert "(attacked by Grove Bear (P0))" in next(x for x in render(g, 1).splitlines() if "controls the Throne" in x)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER)
    g.step(g.layout.PASS)                           # The King does not block
    to_take(g)
    assert texts(g.view(0))["decline the Throne: it goes to the middle of the table"] == g.layout.PASS
    assert events(g.view(0), "combat_damage") == ["combat damage: the Throne, Throne of Wisdom (P1's) takes 2"]
    g.step(g.layout.PASS)
    assert events(g.view(2), "throne_control") == [
        "nobody takes the Throne (Throne of Wisdom) from P1: it goes to the middle of the table"]
    assert g.view(2).throne_magic.controller == -1 and g.view(1).players[1].planeswalkers == ()


def test_the_creatures_throne_abilities_and_the_receivers_answer_in_words():
    """"Giving Creatures to the Monarch", "The Monarch Distributing Creatures"."""
    g = throne_game(KING_SECOND)
    bear = creature(g, 0, "Grove Bear")
    give_priority(g, 0)
    o = next(o for o in g.view(0).decision.options if o.kind == "throne_ability")
    assert o == o._replace(text="give Grove Bear to the Throne's controller (P1)", creature=bear.uid,
                           ability="throne_give", player=1)
    g.step(o.action)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert texts(g.view(1)) == {"accept Grove Bear from P0": g.layout.CHOICE, "refuse Grove Bear": g.layout.PASS}
    g.step(g.layout.PASS)
    assert events(g.view(3), "refuses_creature") == ["P1 refuses Grove Bear: its controller keeps it"]
    g = throne_game(KING_FIRST)
    bear = creature(g, 0, "Grove Bear")
    give_priority(g, 0)
    o = next(o for o in g.view(0).decision.options if o.kind == "throne_ability")
    assert (o.text, o.ability, o.player) == ("give Grove Bear to a player of your choice", "throne_distribute", None)
    assert g.describe_action(o.action) == o.text


def test_the_throne_of_visions_shows_a_role_to_its_controller_alone():
    """"Throne Abilities": the look is private; the Role becomes known to the looker only."""
    g = visions_asked()
    assert texts(g.view(0)) == {"use Throne of Visions's ability": g.layout.CHOICE,
                                "don't use Throne of Visions's ability": g.layout.PASS}
    g.step(g.layout.CHOICE)
    assert g.view(0).throne_magic.known == ("The King", None, "King's Bannerman", None, None)
    assert all(g.view(s).throne_magic.known[2] is None for s in (1, 3, 4))
    assert events(g.view(0), "look_at_role") == ["P0 looks at P2's Role card: King's Bannerman"]
    assert all(not events(g.view(s), "look_at_role") for s in range(1, 5))
    assert public_view(g).throne_magic.known == ("The King",) + (None,) * 4       # The King holds the Throne
    assert "Role: King's Bannerman" in render(g, 0) and "King's Bannerman" not in render(g, None).split("Roles in")[0]
    assert card_text("Throne of Visions").splitlines()[:3] == [
        "Throne of Visions", "Throne (Throne Magic)", tc.get("throne", "Throne of Visions").text]


def test_a_player_leaving_reveals_the_role_to_every_view_and_the_public_one():
    """"Leaving the Game": the Role card is revealed; "Abandoned Thrones"; the end shows every Role."""
    g = Game(throne(throne_deal=BASIC5, throne="Throne of Power"), seed=0)
    king, dragon = seat_of(g, "The King"), seat_of(g, "Dragon")
    assert public_view(g).throne_magic.known == tuple("The King" if s == king else None for s in range(5))
    g.lose(dragon)
    for s in range(5):
        assert g.view(s).throne_magic.known[dragon] == "Dragon"
    pub = public_view(g)
    assert pub.throne_magic.known == tuple("Dragon" if s == dragon else "The King" if s == king else None
                                           for s in range(5))
    assert events(pub, "reveal_role") == [f"P{dragon}'s Role is revealed: Dragon"]
    assert events(pub, "loses") == [f"P{dragon} LOSES the game (state-based actions, CR 704.5); they were Dragon"]
    g.lose(king)
    assert events(g.view(0), "throne_control") == [
        f"the Throne (Throne of Power) is abandoned: P{king} left the game, it goes to the middle of the table"]
    g.lose([seat_of(g, "King's Bannerman")])
    assert g.is_over
    pub = public_view(g)
    assert pub.throne_magic.known == tuple(BASIC5)
    assert events(pub, "reveal_all") == ["every Role is revealed: " + ", ".join(f"P{s} {r}" for s, r in enumerate(BASIC5))]
    won = sorted(g.winners)
    assert ("GAME OVER: winners " + ", ".join(f"P{s} ({BASIC5[s]})" for s in won)) in render(g, None)


def test_a_throne_magic_view_round_trips_through_json_and_a_treachery_one_has_no_new_key():
    g = Game(throne(throne_deal=BASIC5), seed=0)
    v = g.view(1)
    again = SeatView.from_dict(json.loads(json.dumps(v.to_dict())))
    identical(again, v)
    d = Game(GameConfig(), seed=0).view(0).to_dict()
    assert "throne_magic" not in d
    assert SeatView.from_dict(d).throne_magic is None


def test_role_and_throne_names_have_a_card_text():
    for name in tr.names():
        lines = card_text(name).splitlines()
        assert lines[0] == name and lines[1].startswith("Role (Throne Magic)")
    assert card_text("The King").splitlines()[1] == "Role (Throne Magic) — Claimant"
    for c in tc.thrones():
        assert card_text(c.name).splitlines()[2] == c.text


# ----------------------------------------------------------------------------- the information set
def _lockstep(n: int, seed: int, viewer: int) -> int:
    """Two games of the Basic set whose deals differ only among the seats ``viewer`` does not
    know (The King stays: he starts with the Throne, so his seat is public), played with the
    same actions: while none of those seats is known to ``viewer`` its views (both builders)
    and its board are the same.  Other seats decline the Throne (a Claimant's take changes
    what everyone sees).  Returns the number of decisions compared."""
    rng = random.Random(seed)
    base = tr.basic_roles(n)
    rng.shuffle(base)
    hidden = [s for s in range(n) if s != viewer and base[s] != "The King"]
    other = list(base)
    while other == base:
        moved = [base[s] for s in hidden]
        rng.shuffle(moved)
        for s, r in zip(hidden, moved):
            other[s] = r
    cfgs = [throne(num_players=n, throne_deal=d, starting_life=3, commander=False, max_turns=30,
                   mulligans="london") for d in (base, other)]
    a, b = Game(cfgs[0], seed=seed), Game(cfgs[1], seed=seed)
    builders = [(B(a), B(b)) for B in BUILDERS]
    compared = 0
    while not a.is_over and not any(viewer in a.social.known_by[s] for s in hidden):
        for ba, bb in builders:
            va, vb = ba.build(viewer), bb.build(viewer)
            assert va == vb, f"seed {seed}, decision {compared}"
        assert render(a, viewer) == render(b, viewer) and render(a) == render(b)
        compared += 1
        d = a.decision
        assert d.seat == b.decision.seat and [o[0] for o in d.options] == [o[0] for o in b.decision.options]
        act = rng.choice(a.legal_actions())
        if d.handler == "_h_throne_take" and d.seat != viewer:
            act = a.layout.PASS
        a.step(act)
        b.step(act)
    return compared


@pytest.mark.parametrize("n,seed", [(5, 1), (6, 2), (7, 3), (4, 4)])
def test_the_roles_the_viewer_does_not_know_change_nothing_it_is_shown(n, seed):
    assert sum(_lockstep(n, seed, viewer) for viewer in range(n)) >= 100


def test_nothing_of_the_role_state_is_reachable_from_a_view():
    """A walk of references (tests/test_no_game_reachable.py) from every seat's view, and from
    the public one, at every decision of a game finds no :class:`ThroneMagic`, no game, no
    engine object (the Throne included) and none of the containers of the hidden Role state
    (the Roles by seat, who knows them).  (The Role names themselves are the public set's
    strings: which seat holds which is what the permutation test above checks.)"""
    g = Game(throne(num_players=6, starting_life=3, commander=False, max_turns=30, throne="king"), seed=5)
    social = g.social
    hidden = {id(social.roles), id(social.known_by), *map(id, social.known_by)}
    rng = random.Random(5)
    builders = [B(g) for B in BUILDERS]
    k = 0
    while not g.is_over:
        if k % 3 == 0:
            views = [b.build(s) for b in builders for s in range(g.n)] + [public_view(g)]
            got = reachable(*views)
            bad = {type(o).__name__ for o in got.values() if isinstance(o, (ThroneMagic, Game, Attackable))}
            assert not bad and not hidden & set(got), (k, bad)
            assert social.throne is None or id(social.throne) not in got
        g.step(rng.choice(g.legal_actions()))
        k += 1
    assert k > 30


# ----------------------------------------------------------------------------- random games
@pytest.mark.parametrize("method", ["basic", "random", "draft"])
def test_random_games_give_every_seat_a_view_and_words_at_every_decision(method):
    """A few short random Throne Magic games: at every decision every seat's view from each
    builder (the compiled one equal to the Python one, field by field), its board, the
    spectators' board, every option's words, every log event's sentence and every name's text."""
    kinds: set = set()
    for seed in range(3):
        n = 4 + (seed + (method == "random")) % 4
        cfg = throne(num_players=n, throne_roles=method, starting_life=3, commander=False, max_turns=30,
                     throne="king" if method == "basic" and seed == 0 else "random",
                     mulligans="london" if seed % 2 else "none", holdings=seed != 1, seasons=seed != 2)
        g = Game(cfg, seed=seed)
        rng = random.Random(seed)
        builders = [B(g) for B in BUILDERS]
        while True:
            for s in range(g.n):
                views = [b.build(s) for b in builders]
                for v in views[1:]:
                    identical(v, views[0], f"seed {seed}, seat {s}, turn {g.turn}")
                assert views[0] == seat_view(g, s)
                render_view(views[0], legend=True)
                for name in view_names(views[0]):
                    card_text(name)
                known = views[0].throne_magic.known
                if g.social.roles:
                    assert all((r is not None) == (s in g.social.known_by[t]) for t, r in enumerate(known))
                else:           # the Draft: nothing dealt yet
                    assert known == (None,) * g.n
            render(g, None)
            if g.is_over:
                break
            d = g.decision
            for o in g.view(d.seat).decision.options:
                assert o.text == g.describe_action(o.action) and "P-1" not in o.text
                kinds.add(o.kind)
            g.step(rng.choice(g.legal_actions()))
        for e in g.log:
            assert e["event"] in EVENT_KINDS and "P-1" not in format_event(e), e
    assert {"attack_throne", "throne_ability"} & kinds


# ----------------------------------------------------------------------------- Holdings, Seasons, the Draft
def test_the_holdings_and_the_season_are_in_the_view_and_on_the_board():
    g = Game(throne(throne_deal=BASIC5, holdings=True, seasons=True), seed=1)
    hs = g.social.holdings
    g._holding_to(hs[2], 3, "taken")
    tm = g.view(0).throne_magic
    assert tm.season == "Spring" and [(h.name, h.controller, h.uid) for h in tm.holdings] == [
        (h.name, h.controller, h.uid) for h in hs]
    assert type(tm.holdings[0]) is V.HoldingView
    text = render(g, 0)
    assert "the Season: Spring" in text and f"{hs[2].name} (P3)" in text and f"{hs[0].name} (in the middle)" in text
    assert events(g.view(0), "holdings") == ["the Holdings in the game, in the middle of the table: "
                                             + ", ".join(h.name for h in hs)]
    assert events(g.view(0), "holding_control") == [f"P3 takes the Holding {hs[2].name} from the middle of the table"]
    assert SeatView.from_dict(json.loads(json.dumps(g.view(0).to_dict()))) == g.view(0)


def test_attacking_and_taking_a_holding_in_words():
    g = throne_game(KING_SECOND, holdings=True)
    h = g.social.holdings[0]
    bear = creature(g, 0, "Grove Bear")
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.target_action(0, ("c", bear)))
    words = texts(g.view(0))
    assert words[f"Grove Bear attacks the Holding {h.name} (in the middle of the table, no one defends it)"] == \
        g.layout.holding(0)
    opt = next(o for o in g.view(0).decision.options if o.action == g.layout.holding(0))
    assert (opt.kind, opt.player, opt.planeswalker) == ("attack_holding", None, h.uid)
    g.step(g.layout.holding(0))
    g.step(g.layout.PASS)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert texts(g.view(0)) == {f"take {h.name}": g.layout.CHOICE,
                                f"decline {h.name}: it stays in the middle of the table": g.layout.PASS}


def test_the_draft_in_the_view_and_in_words():
    g = Game(throne(num_players=5, throne_roles="draft"), seed=4)
    d = g.decision
    v = g.view(d.seat)
    assert v.throne_magic.known == (None,) * 5 and v.throne_magic.roles == () and v.throne_role is None
    assert texts(v) == {f"choose {n} to be in the game": g.layout.CHOICE + k for k, n in enumerate(d.labels)}
    assert "Roles chosen so far (the Draft): " in render(g, d.seat)
    first = d.labels[0]
    g.step(g.layout.CHOICE)
    assert g.view(0).throne_magic.roles == (first,)
    assert events(g.view(0), "draft_pick") == [f"P{d.seat} chooses {first} to be in the game"]
    assert events(g.view(0), "draft") == [f"the Draft of the Roles begins with P{d.seat}, then each player in turn"]


def test_throne_magic_names_can_be_looked_up_and_a_holding_action_has_words_for_anyone():
    from treachery_env.text import find_name
    assert [find_name(q) for q in ("throne of wis", "galdi", "Summer", "the usurper")] == [
        "Throne of Wisdom", "Galdi", "Summer", "The Usurper"]
    assert find_name("Grove Bear") == "Grove Bear"      # Treachery's names first, as before
    g = Game(throne(num_players=5, holdings=True), seed=0)
    other = (g.decision.seat + 1) % 5
    assert g.describe_action(g.layout.holding(2), other) == f"the Holding {g.social.holdings[2].name}"
