"""A finished game step by step (table/replay.py), and its pages on the web table (table/server.py)."""

from __future__ import annotations

import json

import pytest

from table import HUMAN, Table
from table.replay import Replay
from tests.test_table import play
from treachery_env.engine import Game
from treachery_env.text import format_event
from treachery_env.view import public_view, seat_view


@pytest.fixture(scope="module")
def finished() -> Table:
    return play(Table([HUMAN, "heuristic", "random", "heuristic", "heuristic"], seed=9))


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
    for step, seat, message in [(-1, None, "step must be an int from 0 to"), (r.steps + 1, 0, "step must be"),
                                (True, 0, "step must be"), (0, 5, "seat must be None"), (0, "P1", "seat must be")]:
        with pytest.raises(ValueError, match=message):
            r.frame(step, seat)
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
        for t in (0, 1, 3, 10**6):                # a turn's first step: the step before it is in an earlier turn
            k = c.get(f"/api/replay/{replay_id}/turn/{t}").json()["step"]
            assert k == r.turn_start(t)
            assert k == r.steps or r.frame(k).turn >= t
            assert k == 0 or r.frame(k - 1).turn < t
        assert c.get("/api/replay/nosuch/turn/3").status_code == 404
        assert c.get(f"/api/replay/{replay_id}/3?seat=9").status_code == 400
        assert c.get("/api/replay/nosuch/3").status_code == 404
        assert c.get("/replay/nosuch").status_code == 404
        # a table still playing has no replay yet
        body = c.post("/api/tables", json={"seats": ["human", "heuristic", "heuristic", "heuristic"]}).json()
        assert c.get(f"/replay/{body['table']}").status_code == 404
        assert c.get(f"/api/replay/{body['table']}/0").status_code == 404
    with pytest.raises(ValueError, match="not a replay"):
        lobby.add_replay("[]")
    bare = json.loads(finished.replay_json())
    del bare["seats"]                    # a replay without the seats (Game.to_json's, or an older table's)
    assert Replay(json.dumps(bare)).labels is None and Game.from_json(finished.replay_json()).digest() == bare["digest"]
