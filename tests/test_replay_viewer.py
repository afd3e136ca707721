"""A finished game step by step (table/replay.py), and its pages on the web table (table/server.py)."""

from __future__ import annotations

import json
import re

import pytest

from table import HUMAN, Table
from table.replay import Replay
from tests.test_table import play
from treachery_env.engine import Game
from treachery_env.engine.state import DecisionKind
from treachery_env.text import format_event, view_names
from treachery_env.view import public_view, seat_view


@pytest.fixture(scope="module")
def finished() -> Table:
    return play(Table([HUMAN, "heuristic", "random", "heuristic", "heuristic"], seed=30))


def test_frames_are_the_game_step_by_step_as_each_chair_saw_it(finished):
    text = finished.replay_json()
    r = Replay(text)
    actions = json.loads(text)["actions"]
    assert r.steps == len(actions) > 50 and r.num_players == 5
    g = Game.from_json(text, stop=0)
    seen = {k: [] for k in (None, 0, 3)}
    for step in range(r.steps + 1):
        if step:
            g.step(actions[step - 1])
        if step % 37 and step != r.steps:
            continue                                       # every 37th step, and the last
        for seat in seen:
            f = r.frame(step, seat)
            assert f.step == step and f.turn == g.turn and f.seat == seat
            assert f.view == (public_view(g) if seat is None else seat_view(g, seat))
            assert f.label == r.label(step, seat) and f.key == (step in r.key_steps)
            seen[seat].append(f)
    last = r.frame(r.steps, None)
    assert any(e.startswith("every identity is revealed (CR 907.9)") for e in last.events)
    first = r.frame(0, 0)
    assert first.actor is None and first.action == "" and any("dealt" in e for e in first.events)


def test_a_frame_shows_an_action_s_words_to_its_seat_only(finished):
    r = Replay(finished.replay_json())
    prev = Game.from_json(finished.replay_json(), stop=40)
    actor = prev.current_player
    mine = r.frame(41, actor)
    assert mine.actor == actor and mine.action == prev.describe_action(json.loads(finished.replay_json())["actions"][40])
    other = r.frame(41, (actor + 1) % 5)
    assert other.actor == actor and other.action == ""
    log = Game.from_json(finished.replay_json(), stop=41).log
    visible = [format_event(e) for e in log[len(prev.log):] if e["to"] is None or (actor + 1) % 5 in e["to"]]
    assert list(other.events) == visible


def test_bad_replays_and_frames_are_refused_in_one_line(finished):
    r = Replay(finished.replay_json())
    chairs = "seats are 0-4, or none for the spectators' view"
    for step, seat, message in [(-1, None, "step must be an int from 0 to"), (r.steps + 1, 0, "step must be"),
                                (True, 0, "step must be"),
                                (0, 5, f"seat 5 is not at this 5-seat table; {chairs}"),
                                (0, -1, f"seat -1 is not at this 5-seat table; {chairs}"),
                                (0, "P1", f"seat must be a seat number, got 'P1'; {chairs}"),
                                (0, True, f"seat must be a seat number, got True; {chairs}")]:
        with pytest.raises(ValueError, match=re.escape(message)):
            r.frame(step, seat)
    for call in (lambda: r.label(r.steps + 1), lambda: r.next_key_step(-1), lambda: r.prev_key_step("3")):
        with pytest.raises(ValueError, match="step must be an int from 0 to"):
            call()
    with pytest.raises(ValueError, match="seat 5 is not at this 5-seat table"):
        r.label(3, 5)
    with pytest.raises(ValueError, match="not a replay"):
        Replay("{}")
    d = json.loads(finished.replay_json())
    d["actions"] = d["actions"][:-3]
    with pytest.raises(ValueError, match="digest mismatch"):
        Replay(json.dumps(d))


def test_the_web_table_serves_a_finished_game_and_a_loaded_replay(finished, tmp_path, capsys):
    from fastapi.testclient import TestClient

    from table.server import Lobby, create_app

    lobby = Lobby(delay=0)
    replay_id = lobby.add_replay(finished.replay_json())
    with TestClient(create_app(lobby)) as c:
        assert c.get(f"/replay/{replay_id}").status_code == 200
        download = c.get(f"/replay/{replay_id}.json")
        assert download.status_code == 200 and download.text == finished.replay_json()
        f = c.get(f"/api/replay/{replay_id}/12?seat=2").json()
        assert f["step"] == 12 and f["steps"] == Replay(finished.replay_json()).steps and f["players"] == 5
        assert f["board"].startswith('<div class="board-head">') and isinstance(f["cards"], dict)
        assert f["labels"] == ["human", "heuristic", "random", "heuristic", "heuristic"]       # who sat where
        assert c.get(f"/api/replay/{replay_id}/99999").status_code == 400
        r = Replay(finished.replay_json())
        assert f["last_turn"] == r.last_turn == r.frame(r.steps).turn > 3
        for t in (0, 1, 3, r.last_turn):          # a turn's first step: the step before it is in an earlier turn
            k = c.get(f"/api/replay/{replay_id}/turn/{t}").json()["step"]
            assert k == r.turn_start(t)
            assert r.frame(k).turn == t
            assert k == 0 or r.frame(k - 1).turn < t
        for t in (-3, r.last_turn + 1, 999):      # refused as the steps out of range are
            got = c.get(f"/api/replay/{replay_id}/turn/{t}")
            assert got.status_code == 400 and got.json() == {
                "error": f"turn must be an int from 0 to {r.last_turn}, got {t}"}, (t, got.json())
        assert c.get("/api/replay/nosuch/turn/3").status_code == 404
        got = c.get(f"/api/replay/{replay_id}/3?seat=9")      # words for people, not Python's "None"
        assert got.status_code == 400 and got.json() == {
            "error": "seat 9 is not at this 5-seat table; seats are 0-4, or none for the spectators' view"}
        for path, message in ((f"/api/replay/{replay_id}/next/abc", 'step must be a whole number, got "abc"'),
                              (f"/api/replay/{replay_id}/3?seat=x", 'seat must be a whole number, got "x"'),
                              (f"/api/replay/{replay_id}/turn/2.5", 'turn must be a whole number, got "2.5"')):
            got = c.get(path)          # one line in the API's own shape, not FastAPI's 422 list
            assert got.status_code == 400 and got.json() == {"error": message}, (path, got.json())
        assert c.get("/api/replay/nosuch/3").status_code == 404
        assert c.get("/replay/nosuch").status_code == 404
        # a table still playing has no replay yet
        body = c.post("/api/tables", json={"seats": ["human", "heuristic", "heuristic", "heuristic"]}).json()
        assert c.get(f"/replay/{body['table']}").status_code == 404
        assert c.get(f"/api/replay/{body['table']}/0").status_code == 404
        # from key step to key step, each way, by the API the viewer's back and next use
        f = c.get(f"/api/replay/{replay_id}/{r.key_steps[0]}?seat=1").json()
        assert f["key"] is True and f["label"] == r.label(r.key_steps[0], 1)
        walk, k = [], 0
        while k < r.steps:
            nxt = c.get(f"/api/replay/{replay_id}/next/{k}").json()
            assert nxt["from"] == k and nxt["step"] > k
            k = nxt["step"]
            walk.append(k)
        assert tuple(walk) == r.key_steps
        assert c.get(f"/api/replay/{replay_id}/prev/{r.steps}").json()["step"] == r.key_steps[-2]
        assert c.get(f"/api/replay/{replay_id}/prev/{r.key_steps[0]}").json()["step"] == 0
        plain = next(k for k in range(1, r.steps) if k not in r.key_steps)
        assert c.get(f"/api/replay/{replay_id}/{plain}").json()["key"] is False
        assert c.get(f"/api/replay/{replay_id}/next/{r.steps + 1}").status_code == 400
        assert c.get(f"/api/replay/{replay_id}/sideways/3").status_code == 404
        assert c.get("/api/replay/nosuch/next/3").status_code == 404
    with pytest.raises(ValueError, match="not a replay"):
        lobby.add_replay("[]")
    bare = json.loads(finished.replay_json())
    del bare["seats"]                    # a replay without the seats (Game.to_json's, or an older table's)
    assert Replay(json.dumps(bare)).labels is None and Game.from_json(finished.replay_json()).digest() == bare["digest"]


# ------------------------------------------------------------------------------ key steps and labels
def test_the_key_steps_are_every_step_but_the_plain_passes(finished):
    text = finished.replay_json()
    r = Replay(text)
    actions = json.loads(text)["actions"]
    g = Game.from_json(text, stop=0)
    kept, kinds = [], set()
    for k, a in enumerate(actions, 1):
        words, start, d = g.describe_action(a), len(g.log), g.decision
        actor = d.seat
        passed_priority = d.kind == DecisionKind.PRIORITY and d.options[d.index_of(a)][1] is None
        g.step(a)
        public = [e for e in g.log[start:] if e["to"] is None]
        # the test's own reading of the rule: priority passed, nothing public happening but a new turn
        # or the draw step's draw
        if passed_priority and all(e["event"] in ("turn", "draw") for e in public):
            assert k not in r.key_steps and words == "pass priority"          # a skipped step is a plain pass
            assert {e["event"] for e in public} <= {"turn", "draw"}
            assert r.label(k, (actor + 1) % 5) == f"P{actor} passes priority"
        else:
            assert k in r.key_steps                                          # a kept step is not
            assert words != "pass priority" or any(e["event"] not in ("turn", "draw") for e in public)
            kept.append(k)
            kinds.update(e["event"] for e in public)
    assert tuple(kept) == r.key_steps and 50 < len(kept) < r.steps / 3      # most steps are plain passes
    assert {"cast", "attacks", "talk", "mulligan_keep", "resolve", "game_over"} <= kinds
    assert r.key_steps[-1] == r.steps                                       # the end is a key step
    end = format_event(next(e for e in g.log if e["event"] == "game_over"))
    for seat in (None, *range(r.num_players)):                              # and its label says the game ended
        assert r.label(r.steps, seat).endswith(end), (seat, r.label(r.steps, seat), end)
    # next and prev: from any step to the nearest key step each way, else the ends
    for k in range(r.steps + 1):
        after = [x for x in r.key_steps if x > k]
        before = [x for x in r.key_steps if x < k]
        assert r.next_key_step(k) == (after[0] if after else r.steps)
        assert r.prev_key_step(k) == (before[-1] if before else 0)


def test_a_step_s_label_says_what_was_done_as_far_as_its_seat_saw(finished):
    text = finished.replay_json()
    r = Replay(text)
    actions = json.loads(text)["actions"]
    g = Game.from_json(text, stop=0)
    assert r.label(0) == r.label(0, 3) == "The deal"
    found = set()
    for k, a in enumerate(actions, 1):
        words, start, actor = g.describe_action(a), len(g.log), g.current_player
        g.step(a)
        public = [e for e in g.log[start:] if e["to"] is None]
        other = (actor + 2) % 5
        assert r.label(k, actor).startswith(f"P{actor} (you): {words}")    # its own words, to its seat
        for seat in (None, other):
            assert "acted" not in r.label(k, seat)
        mine = [e for e in public if e.get("seat") == actor and e["event"] not in ("turn", "draw")]
        if words.startswith("cast "):          # public at once (CR 601.2a), before its X and targets
            assert mine and mine[0]["event"] == "casting"
            assert r.label(k, None) == r.label(k, other) == format_event(mine[0])
            assert r.label(k, None).startswith(f"P{actor} begins to cast {mine[0]['card']}") and mine[0]["card"] in words
            found.add("casting" if mine[-1]["event"] != "cast" else "casting, then cast")
        elif mine and mine[0]["event"] == "cast":                # its last target chosen: it becomes cast
            assert r.label(k, None) == r.label(k, other) == format_event(mine[0])
            assert r.label(k, None).startswith(f"P{actor} casts {mine[0]['card']}")
            found.add("cast")
        elif words == "pass priority" and [e for e in public if e["event"] == "resolve"]:
            first = next(e for e in public if e["event"] not in ("turn", "draw"))
            assert r.label(k, None) == f"P{actor} passes priority; then {format_event(first)}"
            found.add("resolve")
        elif words.startswith("put ") and "on the bottom of your library" in words:
            assert r.label(k, None) == r.label(k, other) == f"P{actor} puts a card on the bottom of their library"
            found.add("bottom")
        elif [e for e in mine if e["event"] == "talk"]:
            assert r.label(k, None) == format_event(mine[0])
            found.add("talk")
        elif words.startswith("take a mulligan"):
            assert r.label(k, None) == f"P{actor} takes a mulligan"
            found.add("mulligan")
    assert found == {"casting", "casting, then cast", "cast", "resolve", "bottom", "talk", "mulligan"}


def _names_in(text: str, names: set) -> set:
    return {n for n in names if n in text and re.search(rf"(?<![\w']){re.escape(n)}(?![\w'])", text)}


def test_a_label_never_names_a_card_in_a_hand_its_seat_could_not_see(finished):
    """Every step, every chair: a card named by the label that lay in another seat's hand (before or
    after the step), and in none of the chair's own, is one the chair saw then: on its board or in the
    step's log entries shown to it.
    And the check bites: the actor's own label does name hidden cards of its hand (the cards a mulligan
    puts on the bottom; a spell is public from the moment its casting begins, CR 601.2a)."""
    text = finished.replay_json()
    r = Replay(text)
    actions = json.loads(text)["actions"]
    g = Game.from_json(text, stop=0)
    told_its_seat_only = 0

    def known(seat, start):            # what the chair could see at this step, as text
        seen = [dict(e) for e in g.log[start:] if e["to"] is None or (seat is not None and seat in e["to"])]
        view = public_view(g) if seat is None else seat_view(g, seat)
        return " | ".join(view_names(view)) + json.dumps(seen)

    for k, a in enumerate(actions, 1):
        before, actor, start = [{c.name for c in p.hand} for p in g.players], g.current_player, len(g.log)
        g.step(a)
        hands = [b | {c.name for c in p.hand} for b, p in zip(before, g.players)]
        for seat in (None, *range(5)):      # a name also in the chair's own hand tells it nothing of another's
            own = set() if seat is None else hands[seat]
            hidden = set().union(*(h for s, h in enumerate(hands) if s != seat)) - own
            named = _names_in(r.label(k, seat), hidden)
            if named:
                seen = known(seat, start)
                assert all(n in seen for n in named), (k, seat, r.label(k, seat))
        own = _names_in(r.label(k, actor), before[actor])
        secret = {n for n in own if any(n not in known(s, start) for s in (None, *range(5)) if s != actor)}
        if secret:
            told_its_seat_only += 1
            for s in (None, *range(5)):
                if s != actor:
                    assert not _names_in(r.label(k, s), secret)
    assert told_its_seat_only >= 2


def test_the_viewer_page_steps_from_key_step_to_key_step_in_chromium(finished, server, browser):
    """The replay page in Chromium: back and next (buttons, arrow keys) skip the plain passes while
    "skip plain passes" is on, shift+arrow takes one step, and the heading is the chair's label."""
    base, lobby = server
    r = Replay(finished.replay_json())
    key = r.key_steps
    page = browser.new_context().new_page()
    page.goto(f"{base}/replay/{lobby.add_replay(finished.replay_json())}")

    def at(step: int, seat=None) -> None:
        page.wait_for_function("s => document.getElementById('status').textContent.startsWith(s)",
                               arg=f"step {step} of {r.steps},")
        page.wait_for_function("s => document.getElementById('what').textContent === s", arg=r.label(step, seat))

    at(0)
    assert page.inner_text("#what") == "The deal" and page.is_checked("#skip")
    page.click("#next")
    at(key[0])
    page.keyboard.press("End")
    at(r.steps)
    page.keyboard.press("ArrowLeft")
    at(key[-2])
    page.keyboard.press("Shift+ArrowLeft")
    at(key[-2] - 1)
    page.keyboard.press("ArrowRight")
    at(r.next_key_step(key[-2] - 1))
    page.select_option("#chair", "2")
    at(r.next_key_step(key[-2] - 1), 2)
    page.click("#what")                              # the keys are the page's again, not the chair list's
    page.keyboard.press("s")                         # the filter off: one step at a time
    assert not page.is_checked("#skip")
    page.click("#prev")
    at(r.next_key_step(key[-2] - 1) - 1, 2)
    page.context.close()


def test_concessions_are_key_steps_and_the_single_walk_is_the_replay_s():
    """A concession out of turn (a UI's, kept in the replay's ``concessions``) belongs to the step
    after which it was made, as ``Game.from_json(stop=k)`` plays it; one by the CONCEDE action is its
    own step.  Both are key steps, labelled with the loss, and the replay's one walk splits the log
    into steps exactly as the frames do."""
    import random

    from treachery_env import GameConfig

    g = Game(GameConfig(max_turns=6, concession=True), seed=5)
    rng, concede = random.Random(1), g.layout.CONCEDE

    def play_until(done) -> None:
        while not g.is_over and not done():
            g.step(rng.choice([a for a in g.legal_actions() if a != concede]))

    play_until(lambda: g.turn >= 2)
    other = next(s for s in range(g.n) if s != g.current_player and not g.players[s].has_lost)
    out_of_turn = len(g.actions)
    g.concede(other)
    play_until(lambda: g.turn >= 3 and concede in g.legal_actions())
    conceder, by_action = g.current_player, len(g.actions) + 1
    g.step(concede)
    play_until(lambda: False)
    text = g.to_json()
    assert json.loads(text)["concessions"] == [[out_of_turn, other]]
    r = Replay(text)
    assert out_of_turn in r.key_steps and "loses" in r.facts[out_of_turn - 1].public
    assert any(e.startswith(f"P{other} CONCEDES") for e in r.frame(out_of_turn).events)
    assert f"P{other} CONCEDES" in r.label(out_of_turn)
    assert by_action in r.key_steps and r.facts[by_action - 1].actor == conceder
    assert r.label(by_action).startswith(f"P{conceder} CONCEDES")
    assert r.label(by_action, conceder).startswith(f"P{conceder} (you): concede the game")
    for k in range(r.steps + 1):
        n = len(Game.from_json(text, stop=k).log)
        assert (k == r.steps or r.facts[k].log_start == n) and (k == 0 or r.facts[k - 1].log_stop == n)
