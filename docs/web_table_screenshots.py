"""The README's screenshots of the web table (``make screenshots``): a seat's page on a phone mid-game,
and the host page after creating a table.

Runs the server in this process on a free port, drives Debian's Chromium with Playwright (``make browser``),
plays a fixed game (seed 5) in which the person plays lands and passes until their main phase of turn 9, and writes
``docs/images/web-table-seat.png`` and ``docs/images/web-table-host.png``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images"


def main() -> int:
    import uvicorn
    from playwright.sync_api import sync_playwright

    from table.server import Lobby, create_app

    chromium = os.environ.get("TREACHERY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("web_table_screenshots: no Chromium: run `make browser` or set TREACHERY_CHROMIUM", file=sys.stderr)
        return 2
    lobby = Lobby(delay=0.0)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    # the links as `treachery serve --lan` gives them, on a LAN address (a private one for the picture), so the
    # host page shows their QR codes (it shows none for 127.0.0.1 links, which a phone cannot open)
    lan = f"http://192.168.1.20:{port}"
    srv = uvicorn.Server(uvicorn.Config(create_app(lobby, base_url=lan), log_level="warning"))
    threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not srv.started:
        time.sleep(0.05)
    request = {"seats": ["human", "heuristic", "heuristic", "flagship", "belief"], "seed": 5}
    body = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"{base}/api/tables", data=json.dumps(request).encode(), method="POST",
        headers={"Content-Type": "application/json"})).read())
    web = lobby.tables[body["table"]]
    seat_url = next(link["url"] for link in body["links"] if link["seat"] == 0).replace(lan, base)
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        phone = browser.new_context(viewport={"width": 412, "height": 915}, device_scale_factor=2)
        page = phone.new_page()
        page.goto(seat_url)
        deadline = time.time() + 120
        while time.time() < deadline:
            while web.asked is None and not web.table.over:
                time.sleep(0.05)
            if web.table.over:
                print(f"web_table_screenshots: the game ended on turn {web.table.turn} first", file=sys.stderr)
                return 1
            page.wait_for_selector("#prompt:not([hidden]) #options button:not([disabled])")
            p = web.asked
            if p is not None and p.view.turn >= 9 and p.reason == "your precombat main phase" and \
                    any(o.kind == "cast" for o in p.view.decision.options):
                break
            land = page.locator("#options button.kind-land")
            passing = page.locator("#options button.kind-pass")
            (land if land.count() else passing if passing.count() else page.locator("#options button.option")).first.click()
            page.wait_for_timeout(30)
        page.wait_for_timeout(200)
        page.screenshot(path=str(OUT / "web-table-seat.png"), full_page=True)
        host = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        host.goto(base + "/")
        host.locator("#host button[type=submit]").click()
        host.wait_for_selector("#created:not([hidden]) svg")
        host.screenshot(path=str(OUT / "web-table-host.png"), full_page=True)
        browser.close()
    srv.should_exit = True
    print(f"wrote {OUT / 'web-table-seat.png'} and {OUT / 'web-table-host.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
