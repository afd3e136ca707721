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

Throne Magic: a table created by request (and one from the host page's form, in Chromium) is
played to its end at a person's seat, whose page shows its Role card, the Throne, Holdings and
Season; the requests of one game's fields in the other and of bots that do not play it are
refused in one line; and two tables whose deals differ only in the Roles a seat does not know
send that seat (and the spectators) the same messages until one is shown to it.

Hidden cards decide where the table stops (the engine gives priority only to a seat that can do
more than pass): two deals that differ only in face-down identities a page does not know send that
page, a person's or the spectators', the same messages with the same pauses among them, at tables
of bots alone, of a person and bots, and of two people and bots.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from html import escape

import pytest

from conftest import TREACHERY_CLI, allowed_names, forbidden_in
from table.server import Lobby, create_app
from tests.test_table import NewcomerBot
from treachery_env import throne_cards as tc
from treachery_env import throne_roles as tr
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
        ({"seats": ["human"] * 3}, 'the number of "seats": must be an int from 4 to 12'),
        ({"seats": ["human", "nosuchbot", "random", "random"]}, 'bot "nosuchbot" is not offered here'),
        ({"seats": ["human"] * 4, "seed": -2}, '"seed" must be an int >= 0'),
        ({"seats": ["human"] * 4, "colour": "red"}, 'unknown field(s) ["colour"]'),
        ({"seats": "human,human"}, '"seats" must be a list'),
        ({"seats": ["human"] * 4, "variant": "chess"}, '"variant": '),
        ({"seats": ["human"] * 4, "stops": "sometimes"}, '"stops": unknown stop sometimes'),
        ({"seats": ["human"] * 4, "stops": 5}, '"stops": stops are a string'),
        ({"seats": ["human", "this:x", "random", "random"]}, '"seats": bot "this:x" is not offered here'),
        ({"seats": ["human", "policy:/etc/shadow", "random", "random"]}, 'bot "policy:/etc/shadow" is not offered'),
        ({"seats": ["human", "isolated:heuristic", "random", "random"]}, 'bot "isolated:heuristic" is not offered'),
        # the values a message echoes, as JSON spells them (the request is JSON), not as Python does
        ({"seats": ["human"] * 4, "commander": True, "seed": True}, '"seed" must be an int >= 0, got true'),
        ({"seats": ["human"] * 4, "commander": "yes"}, '"commander": must be true or false, got "yes"'),
        ({"seats": ["human"] * 4, "max_turns": False}, '"max_turns": must be an int from 1 to 10000, got false'),
        ({"seats": ["human"] * 4, "talk": None, "planechase": ["single"]},
         '"planechase": must be one of ["single", "per_player"] (CR 901.16'),
        ({"seats": ["human"] * 4, "variant": True}, '"variant": unknown variant true; allowed: ["standard", '),
        ({"seats": ["human"] * 4, "game": "throne_magic", "throne_roles": ["Priest", None]},
         "the Sculpted set must be a list of Role names, got [\"Priest\", null]"),
        ({"seats": ["human"] * 4, "stops": False}, '"stops": stops are a string such as "default" or '
                                                  '"own_main,attacked", got false'),
        ([1, 2], "a table request is a JSON object"),
    ]:
        r = c.post("/api/tables", json=request)
        assert r.status_code == 400 and message in r.json()["error"], (request, r.json())
        assert "\n" not in r.json()["error"]
    for raw, message in ((b"{not json", "the request body is not JSON"),
                         (b"[" * 100_000 + b"]" * 100_000, "the request body is JSON nested too deeply")):
        r = c.post("/api/tables", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["error"] == message
    bots = c.get("/api/bots").json()["bots"]
    assert {"heuristic", "random", "belief", "flagship"} <= set(bots)
    assert not {"human", "policy", "rllib", "isolated"} & set(bots)
    assert c.get("/").status_code == 200 and "Create the table" in c.get("/").text
    assert c.get("/seat/nosuchtoken").status_code == 404
    assert c.get(f"/seat/{token_of(body['links'], 0)}").status_code == 200
    assert c.get("/static/table.js").status_code == 200


def test_the_readme_s_table_request_creates_the_table_it_says(api):
    """The README's ``curl`` example of ``POST /api/tables`` (the fields the host form sends) is a
    request the server takes, and its answer has the shape the README gives."""
    import re
    from pathlib import Path

    c, lobby = api
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    example = re.search(r"curl -s http://127\.0\.0\.1:8000/api/tables -H 'Content-Type: application/json' \\\n"
                        r"\s*-d '(\{.*?\})'\n", readme, re.S)
    assert example, "the README's POST /api/tables example"
    body = json.loads(example[1])
    host = (Path(__file__).resolve().parent.parent / "table" / "static" / "host.js").read_text()
    always = set(re.findall(r"(\w+):", re.search(r"const body = \{(.*?)\};", host, re.S)[1]))
    assert "body.variant = " in host and set(body) == always | {"variant"}, "the fields the form sends for Treachery"
    r = c.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    answer = r.json()
    assert set(answer) == {"table", "seed", "links"} and answer["seed"] is None
    assert [(link["seat"], link["label"]) for link in answer["links"]] == [(0, "P0"), (1, "P1"), (None, "spectators")]
    assert all(link["url"].startswith("http") and link["qr"].startswith("<svg") for link in answer["links"])
    assert lobby.tables[answer["table"]].table.labels == tuple(body["seats"])


def test_api_bots_says_the_table_sizes_of_the_bots_limited_to_some(api):
    """``GET /api/bots`` names under ``"players"`` each bot limited to some table sizes with them: the
    shipped models, fixed to the size they were trained for (``num_players()``), and no rule-based bot;
    a request that seats one at another size is refused, one at its size is taken."""
    import agents

    c, lobby = api
    got = c.get("/api/bots").json()
    assert set(got["players"]) == set(agents.NAMED_MODELS)
    assert not {"heuristic", "random", "belief", "ismcts", "lookahead"} & set(got["players"])
    for name, sizes in got["players"].items():
        assert sizes == [agents.make(name, seed=0).num_players()] == [5], name
    other = {"seats": ["human", "flagship", "heuristic", "heuristic"]}
    r = c.post("/api/tables", json=other)
    assert r.status_code == 400 and "was trained for 5-player tables and cannot play at 4" in r.json()["error"]
    assert c.post("/api/tables", json={"seats": other["seats"] + ["belief"]}).status_code == 200


def test_the_readme_s_serve_seats_examples_are_tables_serve_opens(monkeypatch, capsys):
    """Every ``treachery serve --seats SPECS`` of the README opens its table through serve's own checks
    (:func:`~table.server.serve_cli`: the specs, the bots made, the table's size for each bot): the
    example of a table of bots alone once seated a 5-player model at 4 seats, which serve refused."""
    import re
    from pathlib import Path

    import uvicorn

    import table.server as server
    from training.cli import main

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    examples = re.findall(r"treachery serve[^`]*?--seats\s+([\w:.,/-]+)", readme)
    assert any("human" not in seats.split(",") for seats in examples), examples    # the table of bots alone
    opened = []
    real_open = server.Lobby.open
    monkeypatch.setattr(server.Lobby, "open", lambda self, *a, **kw: opened.append(real_open(self, *a, **kw)) or
                        opened[-1])
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)     # no serving: the table only
    monkeypatch.setattr(server, "_bind", unbound())
    for seats in examples:
        assert main(["serve", "--port", "8123", "--seats", seats]) == 0, (seats, capsys.readouterr().err)
        assert opened[-1].table.labels == tuple(seats.split(","))


def test_the_links_get_qr_codes_only_where_a_phone_can_open_them():
    """``POST /api/tables`` gives a link's QR code only where its host is reachable from another
    device, as ``treachery serve`` prints them: not for this machine's loopback (``127.0.0.1``,
    ``localhost``, ``::1``), whether the server was given its base URL or answers on the request's."""
    from fastapi.testclient import TestClient

    from table.server import phone_can_open

    for base_url, client_url, codes in [("http://127.0.0.1:8000", "http://testserver", False),
                                        (None, "http://localhost:8000", False),
                                        (None, "http://127.0.0.1:8000", False),
                                        ("http://192.168.1.5:8000", "http://testserver", True),
                                        (None, "http://192.168.1.5:8000", True)]:
        with TestClient(create_app(Lobby(delay=0.0), base_url=base_url), base_url=client_url) as c:
            links = c.post("/api/tables", json={"seats": ["human", "heuristic", "human", "random"]}).json()["links"]
        assert all(link["url"].startswith(base_url or client_url) for link in links)
        assert [link["qr"] is not None and link["qr"].startswith("<svg") for link in links] == [codes] * 3, base_url
    assert [phone_can_open(f"http://{host}:8000/seat/x") for host in
            ("127.0.0.1", "127.0.1.1", "localhost", "[::1]", "0.0.0.0", "192.168.1.5", "[fe80::1]", "table.lan")] == \
        [False] * 5 + [True] * 3


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
        while web.asked is None and time.time() < deadline:
            time.sleep(0.01)
        p = web.asked
        asked, other = (ws0, ws2) if p.seat == 0 else (ws2, ws0)
        before = web.table.replay_json()
        legal = [o.action for o in p.view.decision.options]
        for sock, message, error in [
            (other, {"type": "answer", "prompt": p.number, "action": legal[0]}, "has no decision to make now"),
            (asked, {"type": "answer", "prompt": p.number + 5, "action": legal[0]},
             f"there is no prompt {p.number + 5}; answer prompt {p.number}"),
            (asked, {"type": "answer", "prompt": 0, "action": legal[0]}, "there is no prompt 0"),
            (asked, {"type": "answer", "prompt": "7", "action": legal[0]}, 'there is no prompt "7"'),
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
            assert web.table.replay_json() == before and web.asked == p
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
    with pytest.raises(ValueError, match='bot "random:x" is not offered'):
        lobby.create({"seats": ["human", "random:x", "heuristic", "heuristic"]})
    web = Lobby(delay=0).create({"seats": ["human", spec, "heuristic", "heuristic", "heuristic"]}, trusted=True)
    assert web.table.labels[1] == spec


def unbound(bound: list | None = None):
    """A stand-in for ``table.server._bind`` that binds nothing: it notes each ``(host, port)`` in
    ``bound`` and returns a socket's stand-in bound there (its ``getsockname``, which serve's links read)."""
    from types import SimpleNamespace

    def bind(host, port):
        if bound is not None:
            bound.append((host, port))
        return SimpleNamespace(getsockname=lambda: (host, port))
    return bind


def test_serve_port_0_binds_a_free_port_and_its_links_carry_it(monkeypatch, capsys):
    """``treachery serve --port 0`` binds a port the system picks, and the links it prints carry that
    port (not 0), so a test (or a script) can start a server with no free port found beforehand, which
    another process could take before serve binds it."""
    import re

    import uvicorn

    from training.cli import main

    served = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: served.extend(sockets))     # no serving
    try:
        assert main(["serve", "--port", "0", "--seats", "human,heuristic,random,random"]) == 0
        port = served[0].getsockname()[1]
    finally:
        for sock in served:
            sock.close()
    out = capsys.readouterr().out
    assert port != 0 and out.startswith(f"Treachery table server at http://127.0.0.1:{port}/ ")
    assert len(re.findall(rf"(P0|spectators): http://127\.0\.0\.1:{port}/seat/", out)) == 2, out


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
            (["--port", "-1"], "--port must be from 0 (a free one) to 65535, got -1"),
            (["--port", "99999"], "--port must be from 0 (a free one) to 65535"),
            (["--port", str(port)], f"--port {port}: cannot listen on 127.0.0.1:{port}"),
            (["--host", "192.0.2.1"], "--host 192.0.2.1: cannot listen on 192.0.2.1:8000: "),    # not this machine's
            (["--variant", "simple_roles"], "--variant sets the table of --seats; without it, create tables"),
            (["--game", "throne_magic", "--holdings", "--seed", "3"], "--game, --holdings, --seed set the table of "
                                                                      "--seats"),
            (["--seats", "human,ismcts,random,random", "--game", "throne_magic"],
             "--seats: 'ismcts' does not play Throne Magic; its bots: heuristic, belief, random"),
            (["--seats", "human,random,random,random", "--holdings"], "--holdings: is a Throne Magic option"),
            (["--seats", "human,random,random,random", "--game", "throne_magic", "--throne", "Throne of Nothing"],
             "--throne: unknown Throne Magic"),
            (["--seats", "human,random,random,random", "--game", "throne_magic", "--variant", "simple_roles"],
             "--variant: is a Treachery option"),
            (["--seats", "human,nosuchbot,random,random"], "--seats: unknown agent 'nosuchbot'"),
            (["--seats", "human,nosuchbot"], "--seats: unknown agent 'nosuchbot'"),    # before the count
            (["--seats", "human,human,human"], "the number of --seats: must be an int from 4 to 12"),
            (["--seats", "human,random,random,random", "--variant", "chess"], "--variant: "),
            (["--bot", "policy:/nonexistent.pt"], "--bot policy:/nonexistent.pt: "),
            (["--bot", "human"], "--bot human: a person's seat is not a bot"),
            (["--replay", str(tmp_path / "missing.json")], "--replay: cannot read"),
            (["--replay", str(truncated)], f"--replay {truncated}: not a replay: invalid JSON"),
            (["--max-tables", "0"], "--max-tables must be an int from 1 to 1,000 (the open tables, whose games "
                                    "the server's one process plays), got 0"),
            (["--max-replays", "-1"], "--max-replays must be an int from 1 to 1,000 (the replays kept, about half "
                                      "a MB each once viewed), got -1"),
            (["--idle-minutes", "0"], "--idle-minutes must be a number of minutes from 1 to 10080 (a week; a table "
                                      "closes that long after nobody played at it: less closes tables before their "
                                      "links are opened, more holds its place for days), got 0"),
            (["--idle-minutes", "1e-9"], "--idle-minutes must be a number of minutes from 1 to 10080"),
            (["--idle-minutes", "nan"], "--idle-minutes must be a number of minutes from 1 to 10080 (a week; "),
            (["--idle-minutes", "inf"], ", got inf"),
            (["--idle-minutes", "1e300"], "--idle-minutes must be a number of minutes from 1 to 10080 (a week; "),
            (["--idle-minutes", "10080.5"], ", got 10080.5"),
            (["--delay", "nan"], "--delay must be a number of seconds from 0 to 60, got nan"),
            (["--delay", "-1"], "--delay must be a number of seconds from 0 to 60, got -1"),
            (["--delay", "1e9"], "--delay must be a number of seconds from 0 to 60, got 1e+09"),
            (["--max-replays", "1", "--replay", str(truncated), str(truncated)], "--replay: 2 files, more than "
                                                                                 "--max-replays 1"),
        ]:
            assert main(["serve", *argv]) == 2, argv
            err = capsys.readouterr().err
            assert err.startswith("treachery serve: error: ") and message in err and err.count("\n") == 1, (argv, err)
            assert "from_json" not in err
    finally:
        busy.close()


def test_max_tables_and_max_replays_have_an_upper_bound_said_in_help(capsys):
    """``treachery serve --max-tables`` and ``--max-replays`` took any whole number (``10**30``: no
    limit on the memory that anyone reaching the server can fill); each is refused above its bound
    in one line, as ``--idle-minutes`` is, and ``--help`` says the bound."""
    from table.server import MAX_REPLAYS, MAX_TABLES
    from training.cli import main

    for flag, most in (("--max-tables", MAX_TABLES), ("--max-replays", MAX_REPLAYS)):
        for value in (most + 1, 10 ** 30):
            assert main(["serve", flag, str(value)]) == 2
            err = capsys.readouterr().err
            assert err.startswith(f"treachery serve: error: {flag} must be an int from 1 to {most:,} (") and \
                err.endswith(f"), got {value}\n") and err.count("\n") == 1, err
        with pytest.raises(ValueError, match=f"^{flag} must be an int from 1 to {most:,} "):
            Lobby(**{flag[2:].replace("-", "_"): most + 1})
        Lobby(**{flag[2:].replace("-", "_"): most})           # the bound itself is taken
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"open tables the server holds at most, from 1 to {MAX_TABLES:,};" in text
    assert f"finished games and --replay files, from 1 to {MAX_REPLAYS:,};" in text


def test_a_drawn_seed_is_never_shown_while_the_game_runs(api, monkeypatch, capsys):
    """A seed deals every identity (``env().reset(seed=...)`` shows them all): a table's drawn seed is
    neither in the create answer nor on the serve console, only in the replay once the game is over
    (refused while it runs); a seed the host gave is echoed."""
    import uvicorn

    import table.server as server
    from table.server import Lobby
    from training.cli import main

    c, lobby = api
    body = c.post("/api/tables", json={"seats": ["human", "heuristic", "human", "random"]}).json()
    assert body["seed"] is None and str(lobby.tables[body["table"]].table.seed) not in json.dumps(body)
    assert c.get(f"/replay/{body['table']}.json").status_code == 403
    assert c.post("/api/tables", json={"seats": ["human"] * 4, "seed": 7}).json()["seed"] == 7
    opened = []
    real_open = Lobby.open
    monkeypatch.setattr(Lobby, "open", lambda self, *a, **kw: opened.append(real_open(self, *a, **kw)) or opened[-1])
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)     # no serving: the table only
    bound, port = [], 8123        # nor a port bound (a free one found here could be taken before serve binds it)
    monkeypatch.setattr(server, "_bind", unbound(bound))
    assert main(["serve", "--port", str(port), "--seats", "human,heuristic,human,random"]) == 0
    assert bound == [("127.0.0.1", port)]
    out = capsys.readouterr().out
    assert f"Table {opened[-1].id}:" in out and "seed" not in out.lower()
    assert str(opened[-1].table.seed) not in out


def test_serve_prints_the_seats_qr_codes_only_for_links_a_phone_can_open(monkeypatch, capsys):
    """As the README says: ``treachery serve --seats`` prints each person's seat link and the
    spectators'; a QR code for each person's link only with ``--lan`` on a machine with a LAN
    address (not for ``127.0.0.1`` links, by default or with no network)."""
    import re

    import segno
    import uvicorn

    import table.server as server
    from training.cli import main

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)     # no serving: the table only
    monkeypatch.setattr(server, "_bind", unbound())                                # nor a port bound
    printed = []
    monkeypatch.setattr(segno.QRCode, "terminal", lambda self, **kw: printed.append(self))
    for argv, address, codes in [([], "127.0.0.1", 0), (["--lan"], "127.0.0.1", 0), (["--lan"], "192.168.1.5", 2)]:
        printed.clear()
        monkeypatch.setattr(server, "lan_address", lambda address=address: address)
        assert main(["serve", *argv, "--seats", "human,heuristic,human,random"]) == 0
        out = capsys.readouterr().out
        assert len(printed) == codes and len(re.findall(rf"(P0|P2|spectators): http://{address}:8000/seat/", out)) == 3


def test_serve_links_of_an_ipv6_host_are_urls(monkeypatch, capsys):
    """``--host ::1`` printed ``http://::1:8000/seat/...``, which no browser opens: an IPv6 address is
    bracketed in the links (``http://[::1]:8000/``), and ``::`` (every interface) links this
    machine's LAN address as ``0.0.0.0`` does."""
    import uvicorn

    import table.server as server
    from training.cli import main

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)     # no serving: the table only
    monkeypatch.setattr(server, "_bind", unbound())                                # nor a port bound
    monkeypatch.setattr(server, "lan_address", lambda: "192.168.1.5")
    for host, shown in [("::1", "[::1]"), ("::", "192.168.1.5"), ("fe80::1", "[fe80::1]")]:
        assert main(["serve", "--host", host, "--seats", "human,heuristic,random,random"]) == 0
        out = capsys.readouterr().out
        assert out.startswith(f"Treachery table server at http://{shown}:8000/ ") and \
            out.count(f": http://{shown}:8000/seat/") == 2, (host, out)


def test_serve_seats_a_table_of_the_game_options_of_play(monkeypatch, capsys):
    """``treachery serve --seats ...`` takes ``treachery play``'s game options: a Throne Magic table
    with its Roles, Throne, Holdings and Seasons, and Treachery's options for a Treachery one."""
    import uvicorn

    import table.server as server
    from table.server import Lobby
    from training.cli import main

    opened = []
    real_open = Lobby.open
    monkeypatch.setattr(Lobby, "open", lambda self, *a, **kw: opened.append(real_open(self, *a, **kw)) or opened[-1])
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)     # no serving: the table only
    bound, port = [], 8123        # nor a port bound (a free one found here could be taken before serve binds it)
    monkeypatch.setattr(server, "_bind", unbound(bound))
    for argv, want in [
        (["--game", "throne_magic", "--throne-roles", "draft", "--throne", "random", "--holdings", "--seasons",
          "--max-turns", "9"], {"game": "throne_magic", "throne_roles": "draft", "holdings": True, "seasons": True,
                                "max_turns": 9}),
        (["--variant", "simple_roles", "--mulligans", "none", "--no-commander"],
         {"game": "treachery", "variant": "simple_roles", "mulligans": "none", "commander": False}),
    ]:
        assert main(["serve", "--port", str(port), "--seats", "human,heuristic,belief,random,human", "--seed", "4",
                     *argv]) == 0, capsys.readouterr().err
        config = opened[-1].table.config
        assert config.num_players == 5 and opened[-1].table.seed == 4
        assert {k: getattr(config, k) for k in want} == want
        assert "P4: http" in capsys.readouterr().out
    assert main(["serve", "--port", str(port), "--seats", "heuristic,random,belief,heuristic", "--seed", "2"]) == 0
    assert bound == [("127.0.0.1", port)] * 3
    out = capsys.readouterr().out
    assert f"Table {opened[-1].id}, seed 2 (given: whoever knows it knows every identity):" in out
    web = opened[-1]
    assert web.table.humans == () and list(web.tokens.values()) == [None]
    assert "spectators: http" in out and "P0: http" not in out
    assert f"Bots alone: they play while the spectators' page is open; once the game ends, its replay: " \
           f"http://127.0.0.1:{port}/replay/{web.id}" in out


# ---------------------------------------------------------------------------- bots alone, watched
def test_a_table_of_bots_alone_plays_while_a_spectator_watches():
    """Every seat a bot: the table has the spectators' link only; it plays nothing until a page
    watches (a table nobody watches costs no work on a public server), pauses when the last page
    closes, plays on when one opens again, and ends with the reveal and the replay."""
    from fastapi.testclient import TestClient

    lobby = Lobby(delay=0.005)          # paced: the game is still running when the page closes
    with TestClient(create_app(lobby)) as c:
        body = c.post("/api/tables", json={"seats": ["heuristic", "random", "heuristic", "belief"], "seed": 6,
                                           "max_turns": 12}).json()
        assert [link["seat"] for link in body["links"]] == [None] and body["links"][0]["label"] == "spectators"
        web = lobby.tables[body["table"]]
        time.sleep(0.3)
        assert web.table.bot_actions == 0 and web.table.turn == 0          # nobody watches: nothing played
        token = token_of(body["links"], None)
        with c.websocket_connect(f"/ws/{token}") as ws:
            first = ws.receive_json()
            assert first["seat"] is None and first["identity"] is None and first["prompt"] is None
            while ws.receive_json()["turn"] < 2:
                pass
        deadline = time.time() + 60
        while web._sockets or web._page_opened.is_set():    # the step under way when the page closed ends,
            assert time.time() < deadline, "the table did not pause"   # then the table waits for a page
            time.sleep(0.01)
        paused = web.table.bot_actions
        time.sleep(0.3)
        assert web.table.bot_actions == paused and not web.table.over and paused > 0
        assert c.get(f"/replay/{web.id}.json").status_code == 403
        with c.websocket_connect(f"/ws/{token}") as ws:
            deadline = time.time() + 120
            while not (m := ws.receive_json())["over"]:
                assert time.time() < deadline, "the game did not end"
        assert web.error is None and web.table.bot_actions > paused
        assert all(escape(s.identity) in m["reveal"] for s in web.table.reveal().seats)
        assert m["replay"] == f"/replay/{web.id}.json" and c.get(m["replay"]).status_code == 200


class Page:
    """A spectators' page: the messages its websocket is sent, as JSON."""

    def __init__(self):
        self.got = []

    async def send_text(self, text):
        self.got.append(json.loads(text))


def still() -> float:
    """A clock that does not move, for a :class:`WebTable`'s ``clock``: a bot's thought takes no
    time on it, so every pause is the whole delay whatever the machine's load (on the real clock a
    bot that thinks longer than the delay, as on a loaded machine, takes a pause away)."""
    return 0.0


def run_in_own_loop(main):
    """``asyncio.run(main())`` in a thread of its own, and its result: once a test of the session has
    started Chromium (the session's ``browser`` fixture, Playwright's sync API), an event loop runs
    in this thread for the rest of the session, and ``asyncio.run`` refuses to run here."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(main())).result()


def watch(web, monkeypatch) -> tuple:
    """The messages a spectators' page connected from the start gets, the game played to its end in
    an event loop of its own (:func:`run_in_own_loop`), and the number of the delay's pauses (not waited)."""
    import asyncio

    pauses, real = [], asyncio.sleep

    async def sleep(seconds):
        pauses.append(seconds)
        await real(0)

    async def run():
        page = Page()
        await web.connect(page, None)
        web.start()
        await web._task
        return page.got

    monkeypatch.setattr(asyncio, "sleep", sleep)
    try:
        got = run_in_own_loop(run)
    finally:
        monkeypatch.setattr(asyncio, "sleep", real)
    return got, sum(1 for s in pauses if s)


@pytest.mark.parametrize("game,deals", [
    ("treachery", (["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Banisher"],
                   ["The Old Ruler", "The Banisher", "The Demon", "The Bodyguard", "The Seer"])),
    ("treachery", (["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Banisher"],
                   ["The Old Ruler", "The Bodyguard", "The Pyromancer", "The Demon", "The Banisher"])),
    ("throne_magic", (["The King", "The Usurper", "King's Bannerman", "Usurper's Bannerman", "Dragon"],
                      ["The King", "Dragon", "Usurper's Bannerman", "The Usurper", "King's Bannerman"])),
], ids=["moved", "unveilable", "roles"])
def test_a_spectator_of_bots_alone_is_sent_nothing_of_the_hidden_identities(game, deals, monkeypatch):
    """Two tables of bots alone whose deals differ only in face-down identities (moved among the
    seats, or P2's an identity it can unveil from the first turn, which the engine stops for, or
    not; in Throne Magic the Roles but The King's), with bots whose play does not depend on them
    (:class:`tests.test_table.NewcomerBot`): the spectators' page is sent the same messages, with as
    many pauses, until one of those identities is revealed."""
    from table import Table
    from table.server import WebTable
    from tests.test_table import NEWCOMER
    from treachery_env import GameConfig

    if game == "treachery":
        configs = [GameConfig(num_players=5, identities=d, commander=False, max_turns=8) for d in deals]
    else:
        configs = [GameConfig(game="throne_magic", num_players=5, throne_deal=d, holdings=True, talk="none",
                              commander=False, max_turns=8) for d in deals]
    runs = [watch(WebTable("t", Table([NEWCOMER] * 5, config, seed=3), 0.25, still), monkeypatch) for config in configs]

    def cut(messages):      # the first message that reveals an identity or a Role (the end's at the latest)
        return next(k for k, m in enumerate(messages)
                    if m["over"] or {e["kind"] for e in m["events"]} & {"unveil", "reveal", "reveal_role", "loses"})

    (a, pauses_a), (b, pauses_b) = runs
    assert cut(a) == cut(b) and a[:cut(a)] == b[:cut(b)]
    assert cut(a) > 40 and a[cut(a) - 1]["turn"] >= 4 and pauses_a > 40, "compare some turns"
    assert pauses_a == pauses_b or not a[cut(a)]["over"]        # as many pauses, to the end if nothing was revealed
    assert a != b and a[-1]["over"] and b[-1]["over"]


def newcomer_choice(seat, prompt):
    """A person who plays a land or a spell when offered, else passes, else takes the first option
    (``prompt``: a state message's, as the page shows it)."""
    options = [o for o in prompt["options"] if o["kind"] != "concede"]
    return next((o for kind in ("land", "cast", "pass") for o in options if o["kind"] == kind), options[0])["action"]


class SeatPage(Page):
    """A person's page: the messages it is sent; it answers each prompt it is shown with
    ``choose(seat, prompt)`` through :meth:`WebTable.answer`, as the page's websocket does (None:
    the person stops the game there)."""

    def __init__(self, web, seat, choose):
        super().__init__()
        self.web, self.seat, self.choose = web, seat, choose

    async def send_text(self, text):
        import asyncio

        await super().send_text(text)
        p = self.got[-1]["prompt"]
        if p is not None:
            action = self.choose(self.seat, p)
            if action is None:
                self.web._task.cancel()
                return
            asyncio.get_running_loop().create_task(
                self.web.answer(self.seat, {"type": "answer", "prompt": p["number"], "action": action}))


def sit(web, monkeypatch, choose=newcomer_choice) -> dict:
    """The pages of a table with people: what each person's page (:class:`SeatPage`, answering with
    ``choose``) and a spectators' page (key None), all open from the start, are sent, the game
    played to its end (or until ``choose`` stops it) in an event loop of its own (:func:`run_in_own_loop`), with the
    pauses of the delay (not waited) in the order they came among the messages (a pause is the
    string ``"pause"`` in every page's list)."""
    import asyncio

    real = asyncio.sleep
    pages = {seat: SeatPage(web, seat, choose) for seat in web.table.humans}
    pages[None] = Page()

    async def sleep(seconds):
        if seconds:
            for page in pages.values():
                page.got.append("pause")
        await real(0)

    async def run():
        for seat, page in pages.items():
            await web.connect(page, seat)
        web.start()
        with contextlib.suppress(asyncio.CancelledError):
            await web._task
        return {seat: page.got for seat, page in pages.items()}

    monkeypatch.setattr(asyncio, "sleep", sleep)
    try:
        return run_in_own_loop(run)
    finally:
        monkeypatch.setattr(asyncio, "sleep", real)


@pytest.mark.parametrize("deals", [
    (["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Banisher"],
     ["The Old Ruler", "The Banisher", "The Demon", "The Bodyguard", "The Seer"]),
    (["The Old Ruler", "The Bodyguard", "The Seer", "The Demon", "The Banisher"],
     ["The Old Ruler", "The Bodyguard", "The Pyromancer", "The Demon", "The Banisher"]),
], ids=["moved", "unveilable"])
@pytest.mark.parametrize("seed", [4, 5])
def test_a_person_and_the_spectators_are_sent_nothing_of_the_hidden_identities(deals, seed, monkeypatch):
    """A person at P0 (the Leader, whose identity is public) and bots whose play does not depend on
    their identities (:class:`tests.test_table.NewcomerBot`), in two deals that differ only in the
    face-down identities of the bots' seats (moved among them, or P2's one it can unveil from the
    first turn, for which the engine stops, or not): P0's page and the spectators' page are sent the
    same messages, with the same pauses among them, until one of those identities is revealed."""
    from table import Table
    from table.server import WebTable
    from tests.test_table import NEWCOMER
    from treachery_env import GameConfig

    runs, stops = [], []
    for deal in deals:
        table = Table(["human"] + [NEWCOMER] * 4, GameConfig(num_players=5, identities=deal, commander=False,
                                                             max_turns=8), seed=seed)
        runs.append(sit(WebTable("t", table, 0.25, still), monkeypatch))
        stops.append(len(Game.from_json(table.replay_json()).actions))

    def cut(messages):      # the first message that reveals an identity (the end's at the latest)
        return next(k for k, m in enumerate(messages) if m != "pause" and (
            m["over"] or {e["kind"] for e in m["events"]} & {"unveil", "reveal", "loses"}))

    for page in (0, None):        # P0's, the spectators'
        a, b = runs[0][page], runs[1][page]
        assert cut(a) == cut(b) and a[:cut(a)] == b[:cut(b)], page
        assert cut(a) > 40 and a[:cut(a)].count("pause") > 20, "compare some turns"
    assert sum(m["prompt"] is not None for m in runs[0][0][:cut(runs[0][0])] if m != "pause") > 5
    if deals[1][2] == "The Pyromancer":
        assert stops[0] > stops[1], "the engine stops for the unveil P2 can make: the test compares that"


@pytest.mark.parametrize("seed", [4, 5])
def test_no_page_is_sent_anything_of_another_person_s_face_down_identity(seed, monkeypatch):
    """People at P0 (the Leader) and P2, P2 holding The Seer, which it can unveil from the first
    turn (the engine stops for it at every priority window, and P2, asked at every decision, is
    asked there), or The Pyromancer, and never unveiling, among bots whose play does not depend on
    identities: P2 is asked more often with The Seer, and P0's page and the spectators' are sent the
    same messages, with the same pauses, until an identity is revealed (nothing says when the table
    stops for, or waits for, P2, nor how often P2 was asked)."""
    from table import Stops, Table
    from table.server import WebTable
    from tests.test_table import NEWCOMER
    from treachery_env import GameConfig

    runs, stops = [], []
    for identity in ("The Seer", "The Pyromancer"):
        deal = ["The Old Ruler", "The Bodyguard", identity, "The Demon", "The Banisher"]
        table = Table(["human", NEWCOMER, "human", NEWCOMER, NEWCOMER],
                      GameConfig(num_players=5, identities=deal, commander=False, max_turns=8), seed=seed,
                      stops={0: Stops(), 2: Stops(every=True)})
        runs.append(sit(WebTable("t", table, 0.25, still), monkeypatch))
        stops.append(len(Game.from_json(table.replay_json()).actions))

    def cut(messages):      # the first message that reveals an identity (the end's at the latest)
        return next(k for k, m in enumerate(messages) if m != "pause" and (
            m["over"] or {e["kind"] for e in m["events"]} & {"unveil", "reveal", "loses"}))

    for page in (0, None):
        a, b = runs[0][page], runs[1][page]
        assert cut(a) == cut(b) and a[:cut(a)] == b[:cut(b)], page
        assert cut(a) > 40 and a[:cut(a)].count("pause") > 20, "compare some turns"

    def asked(messages):
        return sum(m["prompt"] is not None for m in messages[:cut(messages)] if m != "pause")
    assert asked(runs[0][0]) > 3 and asked(runs[0][2]) > asked(runs[1][2]) + 10, "the test compares that"
    assert stops[0] > stops[1]


# ---------------------------------------------------------------------------- a server for friends
@contextlib.contextmanager
def serving(**options):
    """``(TestClient, lobby)`` of a server on ``Lobby(delay=0, **options)``, the client entered: the
    app's lifespan runs, and with it the lobby's sweeper (:meth:`Lobby.sweep`)."""
    from fastapi.testclient import TestClient
    lobby = Lobby(delay=0.0, **options)
    with TestClient(create_app(lobby)) as c:
        yield c, lobby


def tells_no_identity(text: str) -> bool:
    """Whether ``text`` names no identity card and no role."""
    from treachery_env import identities
    return not any(name.lower() in text.lower() for name in
                   [*identities.names(), "leader", "guardian", "assassin", "traitor"])


def closed_with(sock) -> tuple:
    """The code and reason a test client's websocket is closed with, its messages until then read."""
    from starlette.websockets import WebSocketDisconnect
    with pytest.raises(WebSocketDisconnect) as closed:
        while True:
            sock.receive_json()
    return closed.value.code, closed.value.reason


PEOPLE_AND_BOTS = {"seats": ["human", "heuristic", "human", "heuristic"], "seed": 3}


def test_the_server_holds_at_most_max_tables_and_refuses_more_in_one_line(monkeypatch):
    """Beyond ``--max-tables`` open tables a request gets a 503 and one line, and nothing is made for
    it (no game, no bots); a bad request is still told its fault; a table closed as idle leaves room."""
    import table.server as server

    built, real = [], server.Table
    monkeypatch.setattr(server, "Table", lambda *a, **kw: built.append(1) or real(*a, **kw))
    now = [0.0]
    with serving(max_tables=2, clock=lambda: now[0]) as (c, lobby):
        ids = [c.post("/api/tables", json=PEOPLE_AND_BOTS).json()["table"] for _ in range(2)]
        for _ in range(3):
            r = c.post("/api/tables", json=PEOPLE_AND_BOTS)
            assert r.status_code == 503 and r.json() == {"error": "this server holds 2 open tables, its most "
                                                                  "(treachery serve --max-tables): try again once a "
                                                                  "game has ended"}
        assert list(lobby.tables) == ids and len(built) == 2
        r = c.post("/api/tables", json={"seats": ["human"] * 3})
        assert r.status_code == 400 and "must be an int from 4 to 12" in r.json()["error"]
        now[0] = 61 * 60                        # nobody played at either for the default 60 minutes
        r = c.post("/api/tables", json=PEOPLE_AND_BOTS)
        assert r.status_code == 200 and list(lobby.tables) == [r.json()["table"]] and len(built) == 3
    for options, message in [({"max_tables": 0}, r"--max-tables must be an int from 1 to 1,000 \(.*\), got 0"),
                             ({"max_replays": 1.5}, r"--max-replays must be an int from 1 to 1,000 \(.*\), got 1.5"),
                             ({"idle_minutes": -1}, r"--idle-minutes must be > 0 and at most 10080 \(a week\), got -1"),
                             ({"idle_minutes": float("inf")}, r"--idle-minutes must be > 0 and at most 10080 "
                                                              r"\(a week\), got inf"),
                             ({"idle_minutes": float("nan")}, r"--idle-minutes must be > 0 .*, got nan")]:
        with pytest.raises(ValueError, match=f"^{message}$"):
            Lobby(**options)


def finished_game(seed: int) -> str:
    """The replay of a short game of newcomers."""
    from table import Table
    from tests.test_table import NEWCOMER
    from treachery_env import GameConfig

    t = Table([NEWCOMER] * 4, GameConfig(num_players=4, max_turns=1), seed=seed)
    assert t.advance() is None and t.over
    return t.replay_json()


def test_the_server_keeps_at_most_max_replays_the_oldest_going_first():
    with serving(max_replays=2) as (c, lobby):
        ids = [lobby.add_replay(finished_game(seed)) for seed in range(3)]
        assert list(lobby.replays) == ids[1:]
        assert c.get(f"/replay/{ids[0]}").status_code == 404 and c.get(f"/replay/{ids[0]}.json").status_code == 404
        assert c.get(f"/replay/{ids[2]}").status_code == 200 and c.get(f"/replay/{ids[2]}.json").status_code == 200


def test_the_sweeper_waits_a_quarter_of_the_idle_time_within_its_bounds(monkeypatch):
    """A tiny ``idle_minutes`` (the API takes any above 0) kept the sweeper looping with no wait (a
    core busy); the wait is a quarter of it within ``SWEEP_SECONDS``; a lobby of one table says
    "1 open table"."""
    import asyncio

    import table.server as server

    def waits(idle_minutes):
        slept = []

        async def sleep(seconds):
            slept.append(seconds)
            if len(slept) == 2:
                raise asyncio.CancelledError

        async def main():
            monkeypatch.setattr(server.asyncio, "sleep", sleep)
            try:
                await Lobby(idle_minutes=idle_minutes).sweep()
            except asyncio.CancelledError:
                return slept
        return run_in_own_loop(main)

    assert waits(1e-9) == [0.25, 0.25] and waits(2) == [30.0, 30.0] and waits(60) == [60.0, 60.0]
    lobby = Lobby(max_tables=1)
    lobby.create({"seats": ["human", "random", "random", "random"]})
    with pytest.raises(server.LobbyFull, match="^this server holds 1 open table, its most"):
        lobby.create({"seats": ["human", "random", "random", "random"]})


def test_a_table_nobody_plays_at_is_closed_and_its_links_say_so():
    """No person's page connected and no person answered for ``--idle-minutes`` (a spectator's page
    does not count): the sweeper closes the table with no request coming, its task cancelled and
    its pages told why (4410, and they stop reconnecting); its links then give a "closed" page
    (404) that names no identity, and an unfinished game has no replay."""
    now = [0.0]
    with serving(idle_minutes=0.001, clock=lambda: now[0]) as (c, lobby):      # 0.06 s; swept every 15 ms
        body = c.post("/api/tables", json=PEOPLE_AND_BOTS).json()
        web = lobby.tables[body["table"]]
        person, spectators = token_of(body["links"], 0), token_of(body["links"], None)
        why = "This table has closed: nobody played at it for 0.001 minutes."
        with c.websocket_connect(f"/ws/{person}") as ws:
            ws.receive_json()
            time.sleep(0.2)
            assert lobby.tables.get(web.id) is web, "idleness is on the lobby's clock"
            now[0] = 0.05
            with c.websocket_connect(f"/ws/{spectators}") as watcher:
                watcher.receive_json()
                now[0] = 0.07               # 0.07 s since the person's page came, 0.02 since the spectator's
                assert closed_with(ws) == (4410, why) and closed_with(watcher) == (4410, why)
        assert web.id not in lobby.tables and web.closed and web._task.cancelled() and web.error is None
        for token in (person, spectators):
            page = c.get(f"/seat/{token}")
            assert page.status_code == 404 and why in page.text and "/replay/" not in page.text
            assert "<title>Treachery - This table has closed</title>" in page.text and 'name="viewport"' in page.text
            assert tells_no_identity(page.text)
            with c.websocket_connect(f"/ws/{token}") as again:
                assert closed_with(again) == (4410, why)
        assert c.get(f"/replay/{web.id}.json").status_code == 404
        assert "<title>Treachery - No such seat</title>" in c.get("/seat/nosuchtoken").text
        with c.websocket_connect("/ws/nosuchtoken") as nowhere:
            assert closed_with(nowhere) == (4404, "no such seat")


def test_a_finished_table_closes_once_its_pages_are_closed_and_its_replay_stays():
    """A game over with a page still open stays; once the pages are closed the table goes, its
    links' page says so with the replay's link, and the replay stays until the cap takes it."""
    from tests.test_table import NEWCOMER

    with serving(max_replays=1) as (c, lobby):
        web = lobby.create({"seats": [NEWCOMER] * 4, "max_turns": 2, "seed": 1}, trusted=True)
        (token,) = web.tokens
        with c.websocket_connect(f"/ws/{token}") as ws:
            while not ws.receive_json()["over"]:
                pass
            deadline = time.time() + 10
            while not web.ended:
                assert time.time() < deadline
                time.sleep(0.01)
            assert c.post("/api/tables", json=PEOPLE_AND_BOTS).status_code == 200
            assert web.id in lobby.tables, "a page shows the reveal"
        deadline = time.time() + 10
        while web.pages:
            assert time.time() < deadline
            time.sleep(0.01)
        assert c.post("/api/tables", json=PEOPLE_AND_BOTS).status_code == 200 and web.id not in lobby.tables
        page = c.get(f"/seat/{token}")
        assert page.status_code == 404 and "This table has closed: its game is over." in page.text
        assert f'href="/replay/{web.id}"' in page.text
        assert c.get(f"/replay/{web.id}").status_code == 200
        assert c.get(f"/replay/{web.id}.json").text == web.table.replay_json()
        lobby.add_replay(finished_game(0))
        assert c.get(f"/replay/{web.id}.json").status_code == 404 and "/replay/" not in c.get(f"/seat/{token}").text


class SlowBot(NewcomerBot):
    """A newcomer who thinks :attr:`seconds` over each decision (``time.sleep``), logging in
    :attr:`log` each thought's start and end and its closing."""

    seconds = 0.03
    log: list = []

    def act(self, observation, info):
        SlowBot.log.append("think")
        time.sleep(SlowBot.seconds)
        action = super().act(observation, info)
        SlowBot.log.append("thought")
        return action

    def close(self):
        SlowBot.log.append("closed")


SLOW = f"{__name__}:SlowBot"


class ClockedBot(NewcomerBot):
    """A newcomer each of whose thoughts takes :attr:`seconds` on :attr:`now`, a clock it moves (the
    table's clock in a test: the machine's load does not lengthen a thought on it), logging in
    :attr:`log` each thought's end."""

    seconds = 0.25
    now: list = [0.0]
    log: list = []

    def act(self, observation, info):
        action = super().act(observation, info)
        ClockedBot.now[0] += ClockedBot.seconds
        ClockedBot.log.append("thought")
        return action


def test_a_bot_s_thinking_time_counts_toward_the_delay(monkeypatch):
    """The pause before an event (or a board) is the delay less the bots' thinking since the last
    event, and none once they thought longer than it (nor once waited): slow bots are no slower than
    the delay.  The thinking is timed on the table's clock, which only the bots' thoughts move."""
    import asyncio
    import sys

    from table import Table
    from table.server import WebTable
    from treachery_env import GameConfig

    delay, real = 0.375, asyncio.sleep          # one thought (0.25) shortens the pause, two leave none
    monkeypatch.setattr(ClockedBot, "log", [])
    monkeypatch.setattr(ClockedBot, "now", [0.0])
    web = WebTable("t", Table([f"{__name__}:ClockedBot"] * 4, GameConfig(num_players=4, max_turns=20), seed=2),
                   delay, lambda: ClockedBot.now[0])

    async def sleep(seconds):
        if sys._getframe(1).f_code.co_name == "_pace":         # the table's pauses (not waited here)
            ClockedBot.log.append(seconds)
        await real(0)

    class Watching(Page):
        async def send_text(self, text):
            await super().send_text(text)
            if self.got[-1]["events"]:
                ClockedBot.log.append("event")

    async def run():
        await web.connect(Watching(), None)
        web.start()
        while ClockedBot.log.count("thought") < 60 and not web.ended:
            await real(0.01)
        await web.close("the test has seen enough")

    monkeypatch.setattr(asyncio, "sleep", sleep)
    run_in_own_loop(run)
    thoughts, owed, seen = 0, False, {"full": 0, "shortened": 0, "none": 0}
    for entry in ClockedBot.log:
        if entry == "event":
            thoughts, owed = 0, True
        elif entry == "thought":
            thoughts += 1
        elif isinstance(entry, float):
            if not owed:                    # the last event's pause was waited already
                assert entry == 0.0
                continue
            assert entry == max(0.0, delay - thoughts * ClockedBot.seconds), (entry, thoughts)
            seen["full" if entry == delay else "shortened" if entry else "none"] += 1
            owed = False
    assert min(seen.values()) > 0, seen


class GatedBot(NewcomerBot):
    """A newcomer whose thought ends only once :attr:`go` is set (by the test, in the event loop; a
    thought held 60 s, as when it runs on the loop, fails), logging in :attr:`log` each thought's
    start and end and its closing."""

    go = threading.Event()
    log: list = []

    def act(self, observation, info):
        GatedBot.log.append("think")
        if not GatedBot.go.wait(60):
            raise RuntimeError("the thought was never let end: it held the event loop")
        action = super().act(observation, info)
        GatedBot.log.append("thought")
        return action

    def close(self):
        GatedBot.log.append("closed")


def test_a_bot_thinks_off_the_event_loop_and_a_closed_table_closes_it_after_its_thought(monkeypatch):
    """While a bot thinks the event loop serves on (the thought ends only when a coroutine on the
    loop lets it); a table closed mid-thought lets the thought end, then closes its bots, and its
    task is done."""
    import asyncio

    from table import Table
    from table.server import WebTable
    from treachery_env import GameConfig

    monkeypatch.setattr(GatedBot, "log", [])
    monkeypatch.setattr(GatedBot, "go", threading.Event())
    web = WebTable("t", Table([f"{__name__}:GatedBot"] * 4, GameConfig(num_players=4, max_turns=20), seed=2), 0.0)

    async def run():
        await web.connect(Page(), None)
        web.start()
        deadline = time.monotonic() + 60
        while not GatedBot.log:                     # the first thought starts
            assert time.monotonic() < deadline, "no bot thought"
            await asyncio.sleep(0.01)
        thinking = GatedBot.log == ["think"]        # the loop runs this while the thought waits for it
        closing = asyncio.get_running_loop().create_task(web.close("the test has seen enough"))
        for _ in range(20):
            await asyncio.sleep(0)
        waits = not closing.done() and GatedBot.log == ["think"]     # the close waits for the thought
        GatedBot.go.set()
        await closing
        return thinking, waits

    thinking, waits = run_in_own_loop(run)
    assert thinking and waits
    assert GatedBot.log == ["think", "thought"] + ["closed"] * 4
    assert web.ended and web._task.cancelled() and web.closed == "the test has seen enough"


def test_a_server_that_stops_closes_its_tables_and_their_bots(monkeypatch):
    """When the app's lifespan ends (the server stops) every open table closes as an idle one does:
    a table whose game waits for a page and one never started, their bots closed, their links
    saying why; no table is opened after that."""
    import table.server as server

    monkeypatch.setattr(SlowBot, "log", [])
    with serving() as (c, lobby):
        played = lobby.create({"seats": [SLOW] * 4, "seed": 2}, trusted=True)
        (token,) = played.tokens
        with c.websocket_connect(f"/ws/{token}") as ws:     # it plays while watched, then waits for a page
            ws.receive_json()
        waiting = lobby.create({"seats": ["human", SLOW, SLOW, SLOW], "seed": 3}, trusted=True)
    assert lobby.tables == {} and SlowBot.log.count("closed") == 4 + 3
    assert played.ended and played._task.cancelled() and waiting._task is None
    for web in (played, waiting):
        assert web.closed == server.SHUTTING_DOWN and not web.pages
        assert all(lobby.closed(t) == (web.id, "the server is shutting down") for t in web.tokens)
    with pytest.raises(server.LobbyFull, match="^no new table: the server is shutting down$"):
        lobby.create(PEOPLE_AND_BOTS)


@pytest.mark.parametrize("signum, status, words", [("SIGINT", 130, "Ctrl-C"), ("SIGTERM", 143, "SIGTERM")])
def test_ctrl_c_closes_the_tables_and_tells_each_page_why(signum, status, words, tmp_path):
    """``treachery serve`` stopped with Ctrl-C (or SIGTERM) tells each open page its table closed
    (code 4410, so the page stops reconnecting; uvicorn alone would close it as a restart, 1012),
    says it stopped in one line and exits as the other commands do: 130 (SIGTERM: 143)."""
    import os
    import re
    import signal
    import subprocess
    from pathlib import Path

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    root = Path(__file__).resolve().parent.parent
    # the server ends with this process (conftest.TREACHERY_CLI): it lived on where the test's was killed;
    # --port 0: the port the server binds, read from its links (a free one found here could be taken first)
    proc = subprocess.Popen([*TREACHERY_CLI, "serve", "--port", "0", "--seats",
                             "human,heuristic,heuristic,heuristic"], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(root)})
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        link = re.search(r"P0: http://127\.0\.0\.1:(\d+)/seat/(\S+)", "".join(lines))
        assert link, lines
        port, token = link[1], link[2]
        deadline = time.time() + 30
        while True:
            try:
                ws = connect(f"ws://127.0.0.1:{port}/ws/{token}", open_timeout=5)
                break
            except OSError:
                assert time.time() < deadline, "the server did not start"
                time.sleep(0.1)
        with ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
            proc.send_signal(getattr(signal, signum))
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=10)
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (
            4410, "This table has closed: the server is shutting down.")
        assert proc.wait(timeout=20) == status
        assert proc.stderr.read() == f"treachery serve: stopped ({words}); the tables are closed\n"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_started_with_sigint_ignored_keeps_it_ignored_and_sigterm_stops_it():
    """``treachery serve &`` in a script starts with SIGINT ignored: as ``train`` and ``play`` do, the
    server keeps it ignored (uvicorn would catch it and stop, silently, with status 0) and goes on
    serving; SIGTERM still stops it with its line and 143."""
    import os
    import re
    import signal
    import subprocess
    import sys
    import urllib.request
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    # SIGINT ignored, then the server exec'd in this process (an ignored signal stays ignored across exec)
    ignoring = [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                                      "os.execv(sys.executable, sys.argv[1:])"]
    proc = subprocess.Popen([*ignoring, *TREACHERY_CLI, "serve", "--port", "0"], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(root)})

    def ignored() -> bool:      # the kernel's disposition: SIGINT's bit in the ignored signals' mask
        status = Path(f"/proc/{proc.pid}/status").read_text()
        return bool(int(re.search(r"^SigIgn:\s*([0-9a-f]+)$", status, re.M)[1], 16) >> (signal.SIGINT - 1) & 1)

    def answers() -> bool:
        try:
            return urllib.request.urlopen(f"{base}/api/bots", timeout=10).status == 200
        except OSError:
            return False

    try:
        line = proc.stdout.readline()
        base = re.search(r"at (http://127\.0\.0\.1:\d+)/", line)
        assert base, line
        base = base[1]
        deadline = time.time() + 60
        while not answers():        # serving: uvicorn's signal handlers are in place
            assert proc.poll() is None and time.time() < deadline, "the server did not start"
            time.sleep(0.1)
        assert ignored()
        proc.send_signal(signal.SIGINT)
        for _ in range(3):          # the kernel dropped it: the server goes on
            assert answers() and proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 143
        assert proc.stderr.read() == "treachery serve: stopped (SIGTERM); the tables are closed\n"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_served_table_a_test_starts_ends_with_the_tests_process():
    """The ``treachery serve`` a test starts (conftest.TREACHERY_CLI) ends once the test's process is
    gone, killed without a word (SIGKILL: a pytest-xdist worker, a CI timeout): started as ``python -m
    training.cli``, it lived on, holding its port, after the suite."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    # a stand-in for the test's process: it starts the server as the test does, says its pid and waits
    test = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                             f"p = subprocess.Popen({[*TREACHERY_CLI, 'serve', '--port', '0']!r})\n"
                             "print(p.pid, flush=True)\ntime.sleep(600)"],
                            cwd=root, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(root)})
    server = int(test.stdout.readline())
    try:
        for _ in iter(test.stdout.readline, ""):       # the server's own lines: it has started
            break

        def running() -> bool:
            try:
                return Path(f"/proc/{server}/stat").read_text().split(") ")[1][0] != "Z"      # a zombie has ended
            except (OSError, IndexError):
                return False

        assert running()
        test.kill()
        test.wait()
        deadline = time.time() + 15
        while running() and time.time() < deadline:
            time.sleep(0.2)
        assert not running(), "the server outlived the process that started it"
    finally:
        if test.poll() is None:
            test.kill()
            test.wait()
        with contextlib.suppress(ProcessLookupError):
            os.kill(server, signal.SIGKILL)


# ---------------------------------------------------------------------------- Throne Magic
THRONE_BOTS = ["human", "heuristic", "belief", "random", "heuristic"]


def test_throne_magic_requests_and_their_errors(api):
    """A Throne Magic table by request; the fields of one game refused in the other, a bad Role set
    or Throne, and a bot that does not play Throne Magic, each in one line naming the request's
    field; /api/bots says which bots play which game."""
    c, lobby = api
    r = c.post("/api/tables", json={"seats": THRONE_BOTS, "game": "throne_magic", "throne_roles": "random",
                                    "throne": "Throne of Wisdom", "holdings": True, "seasons": True, "seed": 5})
    assert r.status_code == 200, r.json()
    config = lobby.tables[r.json()["table"]].table.config
    assert (config.game, config.throne_roles, config.throne, config.holdings, config.seasons) == \
        ("throne_magic", "random", "Throne of Wisdom", True, True)
    sculpted = tr.basic_roles(4)[::-1]
    r = c.post("/api/tables", json={"seats": THRONE_BOTS[:4], "game": "throne_magic", "throne_roles": sculpted})
    assert r.status_code == 200 and lobby.tables[r.json()["table"]].table.config.throne_roles == tuple(sculpted)
    four = ["human", "random", "random", "random"]
    for request, message in [
        ({"seats": four, "game": "chess"}, '"game": must be one of'),
        ({"seats": four, "game": "throne_magic", "variant": "simple_roles"}, '"variant": is a Treachery option'),
        ({"seats": four, "game": "throne_magic", "talk": "structured"}, '"talk": Throne Magic has no table talk'),
        ({"seats": four, "holdings": True}, '"holdings": is a Throne Magic option'),
        ({"seats": four, "throne": "king"}, '"throne": is a Throne Magic option'),
        ({"seats": four, "game": "throne_magic", "throne_roles": "sometimes"}, '"throne_roles": must be one of'),
        ({"seats": four, "game": "throne_magic", "throne_roles": ["The King", "Nobody", "Dragon", "Wizard"]},
         '"throne_roles": '),
        ({"seats": four, "game": "throne_magic", "throne": "Throne of Nothing"}, '"throne": unknown Throne Magic'),
        ({"seats": ["human", "ismcts", "random", "random"], "game": "throne_magic"},
         '"seats": "ismcts" does not play Throne Magic; its bots: heuristic, belief, random'),
        ({"seats": ["human", "heuristic", "flagship", "lookahead"], "game": "throne_magic"},
         '"flagship" does not play Throne Magic'),
    ]:
        r = c.post("/api/tables", json=request)
        assert r.status_code == 400 and message in r.json()["error"], (request, r.json())
        assert "\n" not in r.json()["error"] and "GameConfig" not in r.json()["error"]
    games = c.get("/api/bots").json()["games"]
    assert games["throne_magic"] == [b for b in lobby.bots if b in ("heuristic", "belief", "random")]
    assert sorted(games["throne_magic"]) == ["belief", "heuristic", "random"]
    assert games["treachery"] == list(lobby.bots)
    offered = c.get("/api/throne_magic").json()
    assert len(offered["roles"]) == 17 and "Throne of Wisdom" in offered["thrones"]
    assert offered["basic"]["5"] == tr.basic_roles(5)


def test_a_throne_magic_table_plays_to_its_end_through_a_seat_socket(api):
    """A person's seat plays a whole Throne Magic game with Holdings and Seasons against the
    heuristic, belief and random bots through its websocket: its page shows its Role card (not an
    empty identity box), the Throne, Holdings and Season on the board, texts for the Throne Magic
    options' cards, and at the end every Role under Role-card headings."""
    c, lobby = api
    body = c.post("/api/tables", json={"seats": THRONE_BOTS, "game": "throne_magic", "holdings": True,
                                       "seasons": True, "throne": "king", "max_turns": 25, "seed": 1}).json()
    web = lobby.tables[body["table"]]
    kinds, messages = set(), []
    with c.websocket_connect(f"/ws/{token_of(body['links'], 0)}") as ws:
        deadline = time.time() + 120
        while True:
            assert time.time() < deadline, "the game did not end"
            m = ws.receive_json()
            assert m["type"] == "state", m
            messages.append(m)
            if m["over"]:
                break
            p = m["prompt"]
            if p is None:
                continue
            kinds.update(o["kind"] for o in p["options"])
            for o in p["options"]:
                assert o["card"] is None or o["card"] in m["cards"], o
            # plays lands and spells, attacks the Throne or a Holding where it can, else passes
            choice = next((o for kind in ("attack_throne", "attack_holding", "attack_with", "land", "cast", "pass")
                           for o in p["options"] if o["kind"] == kind), p["options"][0])
            ws.send_json({"type": "answer", "prompt": p["number"], "action": choice["action"]})
    assert web.table.over and web.error is None and sum(m["prompt"] is not None for m in messages) > 3
    mine = web.table.reveal().seats[0].identity
    first = messages[0]
    assert first["game"] == "throne_magic" and "Your Role" in first["identity"]
    assert f"{escape(mine)} - " in first["identity"] and "To win, these Roles in the game must leave it" in first["identity"]
    assert mine in first["cards"]
    board = messages[-2]["board"]
    assert "the Throne: " in board and "Holdings: " in board and "the Season: " in board
    assert {"attack_throne", "attack_holding"} & kinds
    end = messages[-1]
    assert "<th>Role card</th><th>types</th>" in end["reveal"]
    assert all(escape(s.identity) in end["reveal"] for s in web.table.reveal().seats)
    assert "Claimant" in end["reveal"]


@pytest.mark.parametrize("request_fields,question,names", [
    ({"throne_roles": "draft"}, "choose a Role for the game", set(tr.names())),
    ({"throne": "king"}, "choose the game's Throne", {c.name for c in tc.thrones()}),
])
def test_the_draft_and_the_kings_choice_show_each_option_s_card(request_fields, question, names, monkeypatch):
    """A Draft's pick and The King's choice of the Throne, as a person's page is shown them: each
    option has the Role or Throne it names as its card, with that card's text, and during the Draft
    the seat's Role box says that no Role is dealt yet."""
    web = Lobby(delay=0).create({"seats": ["human"] * 5, "game": "throne_magic", "seed": 1, **request_fields})
    asked = []

    def choose(seat, prompt):           # the first option until the question comes, then stop there
        if prompt["question"].split(" (")[0] == question:
            asked.append(seat)
            return None
        return next(o["action"] for o in prompt["options"] if o["kind"] != "concede")

    pages = sit(web, monkeypatch, choose)
    state = pages[asked[0]][-1]
    assert state["prompt"]["question"].startswith(question)
    options = [o for o in state["prompt"]["options"] if o["kind"] != "concede"]
    assert len(options) > 1
    for o in options:
        assert o["card"] in names and o["card"] in o["text"]
        assert state["cards"][o["card"]].startswith(o["card"])
    if "throne_roles" in request_fields:
        assert "Not dealt yet: the Roles are being drafted" in state["identity"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_throne_magic_seat_is_sent_nothing_of_the_roles_it_does_not_know(seed, monkeypatch):
    """Two tables of people whose deals differ only in the Roles of the seats P0 does not know (The
    King stays: his seat is public), every seat asked at every decision and answering the same: until
    P0 is shown one of those Roles, P0's page and the spectators' are sent the same messages."""
    import random

    from table import Stops, Table
    from table.server import WebTable
    from treachery_env import GameConfig

    rng = random.Random(seed)
    base = tr.basic_roles(5)
    rng.shuffle(base)
    hidden = [s for s in range(1, 5) if base[s] != "The King"]
    other = list(base)
    while other == base:
        moved = [base[s] for s in hidden]
        rng.shuffle(moved)
        for s, r in zip(hidden, moved):
            other[s] = r
    runs = []
    for deal in (base, other):
        answers = random.Random(seed)          # the same answers at both tables

        def choose(seat, prompt, answers=answers):
            options = [o for o in prompt["options"] if o["kind"] != "concede"]
            choice = answers.choice(options)
            if seat != 0 and "take the Throne" in choice["text"]:     # a Claimant's take tells its Role
                choice = next(o for o in options if o["kind"] == "pass")
            return choice["action"]

        table = Table(["human"] * 5, GameConfig(game="throne_magic", num_players=5, throne_deal=deal, holdings=True,
                                                seasons=True, starting_life=4, commander=False, max_turns=20),
                      seed=seed, stops=Stops(every=True))
        runs.append(sit(WebTable("t", table, 0, still), monkeypatch, choose))

    def cut(messages):      # the first message that shows P0 a Role it did not know (the end's at the latest)
        return next(k for k, m in enumerate(messages)
                    if m["over"] or {e["kind"] for e in m["events"]} & {"look_at_role", "reveal_role"})

    for page in (0, None):
        a, b = runs[0][page], runs[1][page]
        assert cut(a) == cut(b) and a[:cut(a)] == b[:cut(b)], (seed, page)
        assert cut(a) > 40, "compare some turns"
    assert sum(m["prompt"] is not None for m in runs[0][0][:cut(runs[0][0])]) > 10
    assert runs[0][0] != runs[1][0]


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
    while web.asked is None:
        time.sleep(0.02)
    asked = web.asked
    idle = pages[next(k for k in humans if k != asked.seat)]
    idle.wait_for_selector("#board .seat")
    before = web.table.replay_json()
    for bad, error in [(f'JSON.stringify({{type: "answer", prompt: {asked.number}, action: 0}})', "has no decision"),
                       ('"not json"', "a message must be JSON")]:
        idle.evaluate(f"socket.send({bad})")
        idle.wait_for_selector("#error:not([hidden])")
        assert error in idle.inner_text("#error")
        idle.evaluate("document.getElementById('error').hidden = true")
    assert web.table.replay_json() == before and web.asked == asked
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


def test_the_host_form_offers_a_bot_only_at_the_table_sizes_it_plays_in_chromium(server, browser):
    """The host page's seats offer a shipped model (5 players, its training size: ``GET /api/bots``'
    ``"players"``) at 5 players and show it disabled, with the sizes it plays, at another count, a
    seat that had it taking a bot that plays there; a negative seed is refused on the page, saying
    from what number."""
    base, lobby = server
    tables = set(lobby.tables)
    host = browser.new_context().new_page()
    host.goto(f"{base}/")
    host.wait_for_function("document.querySelectorAll('.seat-spec option').length > 10")

    def flagship(k: int) -> tuple:
        return host.eval_on_selector(f".seat-spec >> nth={k}", "s => { const o = [...s.options].find("
                                                                "o => o.value === 'flagship'); "
                                                                "return [o.disabled, o.textContent]; }")

    assert host.input_value("#players") == "5" and flagship(2) == [False, "bot: flagship"]
    host.locator(".seat-spec").nth(2).select_option("flagship")
    host.select_option("#players", "4")
    assert host.locator(".seat-spec").count() == 4
    assert all(flagship(k) == [True, "bot: flagship (5 players only)"] for k in range(4))
    assert host.locator(".seat-spec").nth(2).input_value() == "heuristic"
    assert not host.eval_on_selector_all(".seat-spec", "ss => ss.some(s => s.selectedOptions[0].disabled)")
    host.select_option("#players", "5")
    assert flagship(4) == [False, "bot: flagship"]
    host.locator(".seat-spec").nth(2).select_option("flagship")
    host.fill("#seed", "-5")
    host.click("button[type=submit]")
    host.wait_for_selector("#error:not([hidden])")
    assert host.inner_text("#error") == "The seed must be a whole number from 0 up, got -5"
    host.fill("#seed", "x5")
    host.click("button[type=submit]")
    assert host.inner_text("#error") == 'The seed must be a whole number, got "x5"'
    assert set(lobby.tables) <= tables          # no table was asked for
    host.context.close()


def test_a_throne_magic_table_from_the_host_page_played_in_chromium(server, browser):
    """The host page shows Throne Magic's controls only for that game and offers only its bots;
    the table it creates is played at a person's seat, whose page shows its Role card and the
    Throne, and at the end every Role."""
    base, lobby = server
    host = browser.new_context().new_page()
    host.goto(f"{base}/")
    host.wait_for_function("document.querySelectorAll('.seat-spec option').length > 10")

    def offered() -> set:
        return set(host.eval_on_selector(".seat-spec", "s => [...s.options].map(o => o.value)"))

    assert host.locator("#throne-options").is_hidden() and host.locator("#variant-box").is_visible()
    assert {"ismcts", "flagship"} <= offered()
    host.check("#vanguard")                 # a CR 900 variant: the bots that play them (GET /api/bots)
    assert offered() == {"human", "heuristic", "belief", "random"}
    host.uncheck("#vanguard")
    assert {"ismcts", "flagship"} <= offered()
    host.select_option("#game", "throne_magic")
    assert host.locator("#throne-options").is_visible() and host.locator("#variant-box").is_hidden()
    assert offered() == {"human", "heuristic", "belief", "random"}
    host.select_option("#throne_roles", "sculpted")
    assert host.locator("#sculpted").is_visible() and host.locator(".sculpted-role").count() == 17
    host.select_option("#throne_roles", "basic")
    assert host.locator("#sculpted").is_hidden()
    host.select_option("#throne", "king")
    host.check("#holdings")
    host.fill("#max_turns", "25")
    host.fill("#seed", "6")
    host.locator(".seat-spec").nth(1).select_option("belief")
    host.click("button[type=submit]")
    host.wait_for_selector("#created:not([hidden]) .link a")
    # a server on 127.0.0.1: links a phone cannot open, so no QR codes, and one line on how to get them
    assert host.locator("#links svg").count() == 0 and "scan" not in host.inner_text("#created-note")
    assert host.locator("#qr-note").is_visible() and "treachery serve --lan" in host.inner_text("#qr-note")
    web = next(iter(w for w in lobby.tables.values() if w.table.config.game == "throne_magic"))
    assert web.table.config.holdings and web.table.config.throne == "king"
    assert web.table.labels[:2] == ("human", "belief")
    url = host.locator(".link a").first.get_attribute("href")
    page = browser.new_context().new_page()
    page.goto(url)
    page.wait_for_selector("#me:not([hidden]) .identity-name")
    assert "Your Role" in page.inner_text("#me") and page.inner_text("#title") == "Throne Magic - P0"
    role = web.table.view(0).throne_role
    assert page.inner_text("#me .identity-name").startswith(f"{role} - ")
    assert "the Throne: " in page.inner_text("#board") and "Holdings: " in page.inner_text("#board")
    deadline = time.time() + 180
    while not page.locator("#end").is_visible():
        assert time.time() < deadline, "the game did not end in the browser"
        buttons = page.locator("#options button.option:not([disabled])")
        if page.locator("#prompt").is_visible() and buttons.count():
            passing = page.locator("#options button.kind-pass:not([disabled])")
            (passing.first if passing.count() else buttons.first).click()
        page.wait_for_timeout(20)
    reveal = page.inner_text("#reveal")
    assert "Role card" in reveal and all(s.identity in reveal for s in web.table.reveal().seats)
    host.context.close()
    page.context.close()


def test_a_table_with_the_cr_900_variants_by_request(api):
    """Planechase, Vanguard and the schemes by request, in either game: the table's config has them,
    a seat's board shows the plane, the Vanguard cards and the schemes (their card texts sent), a
    bot that does not play them is refused in one line, and /api/bots lists those that do."""
    c, lobby = api
    for game in ("treachery", "throne_magic"):
        r = c.post("/api/tables", json={"seats": THRONE_BOTS, "game": game, "planechase": "single",
                                        "vanguard": "random", "archenemy": "supervillain_rumble", "seed": 2,
                                        "max_turns": 6})
        assert r.status_code == 200, r.json()
        web = lobby.tables[r.json()["table"]]
        cfg = web.table.config
        assert (cfg.planechase, cfg.vanguard, cfg.archenemy) == ("single", "random", "supervillain_rumble")
        state = web.state(0)
        assert "vanguard: " in state["board"] and "scheme decks: " in state["board"]
        vanguards = web.table.view(0).vanguards
        assert all(v in state["cards"] for v in vanguards)
    r = c.post("/api/tables", json={"seats": ["human", "ismcts", "random", "random"], "vanguard": "random"})
    assert r.status_code == 400 and r.json()["error"] == (
        '"seats": "ismcts" does not play the CR 900 variants (Planechase, Vanguard, schemes); its bots: '
        "heuristic, belief, random")
    r = c.post("/api/tables", json={"seats": ["human", "random", "random", "random"], "planechase": "twice"})
    assert r.status_code == 400 and r.json()["error"].startswith('"planechase": must be one of')
    offered = c.get("/api/bots").json()
    assert set(offered) == {"bots", "games", "variants", "players"} and set(offered["games"]) == {"treachery", "throne_magic"}
    assert offered["variants"] == [b for b in lobby.bots if b in ("heuristic", "belief", "random")]
    assert sorted(offered["variants"]) == ["belief", "heuristic", "random"]
