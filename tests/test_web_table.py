"""The web table (table/server.py, table/static/): its API through FastAPI's TestClient, and whole
games in real headless Chromium (Debian's ``chromium``, driven by Playwright; ``make browser``
installs it, ``TREACHERY_CHROMIUM`` names another binary; the ``browser`` and ``server``
fixtures and the name checks live in conftest.py, shared with the replay viewer's tests).

In the browser two people at two seats, each in a browser context of their own, play a whole
game against heuristic bots.  Every websocket message a seat's page receives and its DOM at
every prompt hold no name the seat could not know at that point of the game: no face-down
identity of another seat it was never shown, no card of another seat's hand or of a library
that never became visible to it (the allowed names are recomputed from the replay, step by
step, from the seat's own information set).  One seat reconnects with its link mid-game and
plays on.
"""

from __future__ import annotations

import json
import time

import pytest

from conftest import allowed_names, forbidden_in
from table.server import Lobby, create_app
from treachery_env.engine import Game


@pytest.fixture
def api():
    """``(TestClient, lobby)``: one event loop for every request and websocket (the client is
    entered), as under uvicorn."""
    from fastapi.testclient import TestClient
    lobby = Lobby(delay=0.0)
    with TestClient(create_app(lobby)) as c:
        yield c, lobby


def token_of(links: list, seat) -> str:
    return next(link["url"].rsplit("/", 1)[1] for link in links if link["seat"] == seat)


# ---------------------------------------------------------------------------- the API
def test_creating_a_table_and_its_errors(api):
    c, lobby = api
    r = c.post("/api/tables", json={"seats": ["human", "heuristic", "human", "random", "heuristic"], "seed": 4})
    assert r.status_code == 200
    body = r.json()
    assert body["seed"] == 4 and [link["seat"] for link in body["links"]] == [0, 2, None]
    assert all(link["qr"].startswith("<svg") for link in body["links"])
    assert len({link["url"] for link in body["links"]}) == 3
    web = lobby.tables[body["table"]]
    assert web.table.labels == ("human", "heuristic", "human", "random", "heuristic")
    for request, message in [
        ({"seats": ["heuristic"] * 5}, 'needs at least one "human" seat'),
        ({"seats": ["human"] * 3}, 'the number of "seats": must be an int from 4 to 12'),
        ({"seats": ["human", "nosuchbot", "random", "random"]}, "bot 'nosuchbot' is not offered here"),
        ({"seats": ["human"] * 4, "seed": -2}, '"seed" must be an int >= 0'),
        ({"seats": ["human"] * 4, "colour": "red"}, "unknown field(s) ['colour']"),
        ({"seats": "human,human"}, '"seats" must be a list'),
        ({"seats": ["human"] * 4, "variant": "chess"}, '"variant": '),
        ({"seats": ["human"] * 4, "stops": "sometimes"}, '"stops": unknown stop sometimes'),
        ({"seats": ["human"] * 4, "stops": 5}, '"stops": stops are a string'),
        ({"seats": ["human", "this:x", "random", "random"]}, "\"seats\": bot 'this:x' is not offered here"),
        ({"seats": ["human", "policy:/etc/shadow", "random", "random"]}, "bot 'policy:/etc/shadow' is not offered"),
        ({"seats": ["human", "isolated:heuristic", "random", "random"]}, "bot 'isolated:heuristic' is not offered"),
        ([1, 2], "a table request is a JSON object"),
    ]:
        r = c.post("/api/tables", json=request)
        assert r.status_code == 400 and message in r.json()["error"], (request, r.json())
        assert "\n" not in r.json()["error"]
    for raw in (b"{not json", b"[" * 100_000 + b"]" * 100_000):
        r = c.post("/api/tables", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["error"] == "the request body is not JSON"
    bots = c.get("/api/bots").json()["bots"]
    assert {"heuristic", "random", "belief", "flagship"} <= set(bots)
    assert not {"human", "policy", "rllib", "isolated"} & set(bots)
    assert c.get("/").status_code == 200 and "Create the table" in c.get("/").text
    assert c.get("/seat/nosuchtoken").status_code == 404
    assert c.get(f"/seat/{token_of(body['links'], 0)}").status_code == 200
    assert c.get("/static/table.js").status_code == 200


def test_a_seat_socket_answers_and_refuses_bad_answers(api):
    c, lobby = api
    links = c.post("/api/tables", json={"seats": ["human", "heuristic", "human", "heuristic", "heuristic"],
                                        "seed": 2}).json()["links"]
    tokens = {seat: token_of(links, seat) for seat in (0, 2, None)}
    web = next(iter(lobby.tables.values()))
    with c.websocket_connect(f"/ws/{tokens[0]}") as ws0, c.websocket_connect(f"/ws/{tokens[2]}") as ws2:
        states = {0: ws0.receive_json(), 2: ws2.receive_json()}
        assert states[0]["type"] == "state" and states[0]["seat"] == 0 and states[0]["events_from"] == 0
        deadline = time.time() + 30
        while web.table.prompt is None and time.time() < deadline:
            time.sleep(0.01)
        p = web.table.prompt
        asked, other = (ws0, ws2) if p.seat == 0 else (ws2, ws0)
        before = web.table.replay_json()
        legal = [o.action for o in p.view.decision.options]
        for sock, message, error in [
            (other, {"type": "answer", "prompt": p.number, "action": legal[0]}, "has no decision to make now"),
            (asked, {"type": "answer", "prompt": p.number + 5, "action": legal[0]},
             f"there is no prompt {p.number + 5}; answer prompt {p.number}"),
            (asked, {"type": "answer", "prompt": 0, "action": legal[0]}, "there is no prompt 0"),
            (asked, {"type": "answer", "prompt": "7", "action": legal[0]}, "there is no prompt '7'"),
            *([(asked, {"type": "answer", "prompt": p.number - 1, "action": legal[0]}, "was already answered")]
              if p.number > 1 else []),
            (asked, {"type": "answer", "prompt": p.number, "action": "1"}, "an answer is an option's action number"),
            (asked, {"type": "answer", "prompt": p.number, "action": 99999}, "is not one of"),
            (asked, {"type": "hello"}, 'a message is {"type": "answer"'),
            (asked, {"type": "stops", "stops": {"sometimes": True}}, "stops are {NAME: true or false}"),
            (asked, {"type": "stops", "stops": {"every": "yes"}}, "stops are {NAME: true or false}"),
        ]:
            sock.send_json(message)
            got = sock.receive_json()
            while got["type"] != "error":
                got = sock.receive_json()
            assert error in got["message"] and "\n" not in got["message"]
            assert web.table.replay_json() == before and web.table.prompt == p
        seat = p.seat
        asked.send_json({"type": "stops", "stops": {"end_of_turn": True, "truces": False}})
        got = asked.receive_json()
        while got["type"] != "state" or not got["stops"]["end_of_turn"]:
            got = asked.receive_json()
        assert got["stops"]["truces"] is False and got["stops"]["own_main"] is True
        assert web.table.stops[seat].end_of_turn and not web.table.stops[seat].truces
        for text in ("not json {", "[" * 100_000 + "]" * 100_000):
            asked.send_text(text)
            got = asked.receive_json()
            while got["type"] != "error":
                got = asked.receive_json()
            assert "a message must be JSON" in got["message"]
        asked.send_json({"type": "answer", "prompt": p.number, "action": legal[0]})
        deadline = time.time() + 30
        while web.table.prompt is not None and web.table.prompt.number == p.number and time.time() < deadline:
            time.sleep(0.01)
        assert web.table.prompt is None or web.table.prompt.number > p.number
    with c.websocket_connect(f"/ws/{tokens[None]}") as spectator:
        state = spectator.receive_json()
        assert state["seat"] is None and state["prompt"] is None and state["identity"] is None
        spectator.send_json({"type": "answer", "prompt": 1, "action": 0})
        got = spectator.receive_json()
        while got["type"] != "error":
            got = spectator.receive_json()
        assert got["message"] == "a spectator has no seat: it cannot answer or set stops"
    assert c.get(f"/replay/{web.id}.json").status_code == 403
    assert c.get("/replay/nosuchtable.json").status_code == 404


def test_the_host_may_offer_more_bots_and_the_command_line_seats_any(tmp_path):
    spec = "policy:checkpoints/flagship/policy.pt"
    lobby = Lobby(delay=0, bots=(spec,))
    assert spec in lobby.bots and "heuristic" in lobby.bots
    web = lobby.create({"seats": ["human", spec, "heuristic", "heuristic", "heuristic"]})
    assert web.table.labels[1] == spec
    with pytest.raises(ValueError, match="bot 'random:x' is not offered"):
        lobby.create({"seats": ["human", "random:x", "heuristic", "heuristic"]})
    web = Lobby(delay=0).create({"seats": ["human", spec, "heuristic", "heuristic", "heuristic"]}, trusted=True)
    assert web.table.labels[1] == spec


def test_serve_refuses_bad_options_in_one_line(tmp_path, capsys):
    import socket

    from training.cli import main

    truncated = tmp_path / "cut.json"
    truncated.write_text('{"format": "treachery-replay", "actions": [1, 2')
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        for argv, message in [
            (["--port", "0"], "--port must be from 1 to 65535, got 0"),
            (["--port", "99999"], "--port must be from 1 to 65535"),
            (["--port", str(port)], f"--port {port}: cannot listen on 127.0.0.1:{port}"),
            (["--variant", "simple_roles"], "--variant and --seed are the table of --seats"),
            (["--seats", "heuristic,heuristic,heuristic,heuristic"], '--seats needs at least one "human" seat'),
            (["--seats", "human,nosuchbot,random,random"], "--seats: unknown agent 'nosuchbot'"),
            (["--seats", "human,human,human"], "the number of --seats: must be an int from 4 to 12"),
            (["--seats", "human,random,random,random", "--variant", "chess"], "--variant: "),
            (["--bot", "policy:/nonexistent.pt"], "--bot policy:/nonexistent.pt: "),
            (["--bot", "human"], "--bot human: a person's seat is not a bot"),
            (["--replay", str(tmp_path / "missing.json")], "--replay: cannot read"),
            (["--replay", str(truncated)], f"--replay {truncated}: not a replay: invalid JSON"),
        ]:
            assert main(["serve", *argv]) == 2, argv
            err = capsys.readouterr().err
            assert err.startswith("treachery serve: error: ") and message in err and err.count("\n") == 1, (argv, err)
            assert "from_json" not in err
    finally:
        busy.close()


# ---------------------------------------------------------------------------- in Chromium
def play_in_browser(browser, base: str, lobby, seats: list, seed: int, reconnect_at: int | None = None) -> dict:
    """Two people play a whole game in two browser contexts, always choosing a pass (else the first
    option); returns what each seat's pages received and showed."""
    import urllib.request

    req = urllib.request.Request(f"{base}/api/tables", method="POST", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"seats": seats, "seed": seed, "max_turns": 14}).encode())
    body = json.loads(urllib.request.urlopen(req).read())
    web = lobby.tables[body["table"]]
    humans = [k for k, s in enumerate(seats) if s == "human"]
    urls = {link["seat"]: link["url"] for link in body["links"]}
    frames = {k: [] for k in humans}
    doms = {k: [] for k in humans}
    pages = {}

    def open_page(seat):
        page = browser.new_context().new_page()
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames[seat].append(payload)))
        page.goto(urls[seat])
        pages[seat] = page

    for k in humans:
        open_page(k)
    # from the page of the seat that is not asked: an answer out of turn, and a message that is not JSON,
    # through the page's own socket: each gets a one-line error on the page, and the game does not move
    while web.table.prompt is None:
        time.sleep(0.02)
    asked = web.table.prompt
    idle = pages[next(k for k in humans if k != asked.seat)]
    idle.wait_for_selector("#board .seat")
    before = web.table.replay_json()
    for bad, error in [(f'JSON.stringify({{type: "answer", prompt: {asked.number}, action: 0}})', "has no decision"),
                       ('"not json"', "a message must be JSON")]:
        idle.evaluate(f"socket.send({bad})")
        idle.wait_for_selector("#error:not([hidden])")
        assert error in idle.inner_text("#error")
        idle.evaluate("document.getElementById('error').hidden = true")
    assert web.table.replay_json() == before and web.table.prompt == asked
    clicks, reconnected = 0, None
    deadline = time.time() + 240
    while not all(pages[k].locator("#end").is_visible() for k in humans):
        assert time.time() < deadline, "the game did not end in the browser"
        for k in humans:
            page = pages[k]
            buttons = page.locator("#options button.option:not([disabled])")
            if page.locator("#prompt").is_visible() and buttons.count():
                doms[k].append(page.content())
                passing = page.locator("#options button.kind-pass:not([disabled])")
                (passing.first if passing.count() else buttons.first).click()
                clicks += 1
                if reconnect_at is not None and clicks == reconnect_at:
                    page.context.close()
                    reconnected = k
                    open_page(k)
                    pages[k].wait_for_selector("#board .seat")
        pages[humans[0]].wait_for_timeout(20)
    return {"web": web, "frames": frames, "doms": doms, "pages": pages, "clicks": clicks, "reconnected": reconnected}


@pytest.mark.parametrize("seed,reconnect_at", [(3, 6), (8, None), (21, 2)])
def test_two_people_play_a_whole_game_in_chromium_and_see_only_their_seats(server, browser, seed, reconnect_at,
                                                                           request):
    base, lobby = server
    seats = ["human", "heuristic", "human", "heuristic", "heuristic"]
    got = play_in_browser(browser, base, lobby, seats, seed, reconnect_at)
    request.addfinalizer(lambda: [page.context.close() for page in got["pages"].values()])  # the browser is shared
    web = got["web"]
    assert web.table.over and got["clicks"] > 4
    replay = web.table.replay_json()
    dealt = {s.dealt for s in web.table.reveal().seats} | {s.identity for s in web.table.reveal().seats}
    for seat in (0, 2):
        cards, idents = allowed_names(replay, seat)
        messages = [json.loads(f) for f in got["frames"][seat]]
        assert messages and messages[0]["type"] == "state"
        checked = 0
        for m in messages:
            if m["type"] == "error":                    # the refused answers' one-line errors
                assert not forbidden_in(m["message"], cards, idents, dealt)
                continue
            if m.get("over"):
                break
            assert m["seat"] == seat
            assert not forbidden_in(json.dumps(m), cards, idents, dealt), (seat, m["turn"])
            checked += 1
        assert checked > 5
        for dom in got["doms"][seat]:
            assert not forbidden_in(dom, cards, idents, dealt)
        page = got["pages"][seat]
        reveal = page.inner_text("#reveal")
        assert all(name in reveal for name in {s.identity for s in web.table.reveal().seats})
        assert page.get_attribute("#replay", "href") == f"/replay/{web.id}.json"
    # the replay is given once the game is over, and it is this game
    import urllib.request
    text = urllib.request.urlopen(f"{base}/replay/{web.id}.json").read().decode()
    assert Game.from_json(text).digest() == Game.from_json(replay).digest()
    if reconnect_at is not None:       # the page opened again got the whole state again, log and all
        seat = got["reconnected"]
        starts = [m for m in map(json.loads, got["frames"][seat]) if m.get("events_from") == 0]
        assert len(starts) == 2 and len(starts[1]["events"]) >= len(starts[0]["events"])


def test_a_seat_page_shows_its_identity_options_and_card_texts(server, browser):
    import urllib.request

    base, lobby = server
    req = urllib.request.Request(f"{base}/api/tables", method="POST", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"seats": ["human", "heuristic", "heuristic", "heuristic"],
                                                  "seed": 1}).encode())
    body = json.loads(urllib.request.urlopen(req).read())
    web = lobby.tables[body["table"]]
    page = browser.new_context().new_page()
    page.goto(next(link["url"] for link in body["links"] if link["seat"] == 0))
    page.wait_for_selector("#prompt:not([hidden]) #options button")
    me = web.table.view(0).me
    assert me.identity in page.inner_text("#me")
    options = page.locator("#options button.option")
    assert options.count() >= 2
    hand = page.locator("#board .seat.you .card")
    assert hand.count() > 0
    name = hand.first.get_attribute("data-name")
    hand.first.click()
    assert page.locator("#card").is_visible() and name in page.inner_text("#card-text")
    page.context.close()


def test_the_host_form_says_the_default_turn_limit():
    """The host page's turn-limit field says what an empty field gives: the game's default."""
    from pathlib import Path

    import table
    from treachery_env import GameConfig

    page = (Path(table.__file__).parent / "static" / "host.html").read_text()
    assert f"Turn limit (empty: the default, {GameConfig().max_turns} turns)" in page
