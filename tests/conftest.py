"""Shared fixtures: small untrained policy checkpoints (no training needed); the web table's
headless Chromium and uvicorn server, and the checks that a page shows a seat nothing it could
not know (tests/test_web_table.py, test_replay_viewer.py, test_widgets.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

# Ctrl-C delivered as a terminal delivers it: a suite started in the background of a script (`make test &`)
# inherits SIGINT ignored, as do pytest-xdist's workers under it and the processes the tests of Ctrl-C
# start, which then never see the signal those tests send (before, they passed only where an earlier
# test had happened to set a handler)
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def absl_never_closes_the_captured_stderr():
    """absl's logging (dm-tree imports it, and RLlib dm-tree; tests/test_frameworks_rllib.py at
    collection) makes a handler on the ``sys.stderr`` of its import, under pytest the capture's file,
    and closes that stream at the next shutdown of the handlers (``logging.config.dictConfig``, which
    ``uvicorn.Config`` calls) if it is not the ``sys.stderr`` of the moment: where that came
    first in a test with ``capsys``, every later test of the process failed with "I/O operation on
    closed file" (under pytest-xdist, by the order a worker was dealt the tests; in one process,
    pytest lost sys.stderr).  The handler, on no logger, is pointed at ``sys.__stderr__``, which absl
    never closes."""
    absl_logging = sys.modules.get("absl.logging")
    if absl_logging is not None:
        absl_logging.get_absl_handler().python_handler.stream = sys.__stderr__


#: ``python -m training.cli`` (the ``treachery`` command) for the processes the tests start and do not wait
#: for (a training of a million steps, a ``treachery serve``), which also ends once the test's process is
#: gone (:func:`agents.isolated.exit_with_parent`): a test killed (a pytest-xdist worker, a SIGTERM to the
#: suite's process group, which one in a session of its own does not get) left them running.  The parent's
#: pid is read first thing, before the imports (0.4 s, seconds on a loaded machine), during which a parent
#: killed went unseen.
def taken_before_write(monkeypatch, target: Path, data: bytes) -> None:
    """Another process takes the name ``target`` (writes ``data`` there) just before the code under
    test writes or renames a file to it, after any check it made that the name was free: the first
    ``os.link``, ``os.rename`` or ``os.replace`` onto ``target`` makes it first."""
    done = []

    def racing(real):
        def call(src, dst, *a, **k):
            if not done and Path(dst) == Path(target):
                done.append(True)
                Path(target).write_bytes(data)
            return real(src, dst, *a, **k)
        return call

    for name in ("link", "rename", "replace"):
        monkeypatch.setattr(os, name, racing(getattr(os, name)))


TREACHERY_CLI = [sys.executable, "-c", "import os; parent = os.getppid(); import runpy; "
                 "from agents.isolated import exit_with_parent; exit_with_parent(parent); "
                 "runpy.run_module('training.cli', run_name='__main__')"]

#: The Chromium the browser tests drive: ``TREACHERY_CHROMIUM``, else Debian's ``chromium``.
CHROMIUM = os.environ.get("TREACHERY_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def package_copy(tmp_path):
    """A copy of the ``treachery_env`` and ``agents`` packages in ``tmp_path``, their compiled
    extensions and every file's time kept (run code on it with :func:`run_on_copy`): the tests that
    make a source newer than its extension do it there, never in the checkout, which the tests
    running beside them in other pytest-xdist workers import from (a test expecting a compiled
    module failed while another had made ``state.py`` newer, and two that each put back the time of
    the same file in turn left it newer for good: the checkout then ran from source)."""
    root = Path(__file__).resolve().parent.parent
    for package in ("treachery_env", "agents"):
        shutil.copytree(root / package, tmp_path / package, ignore=shutil.ignore_patterns("*.c", "__pycache__"))
    return tmp_path


def run_on_copy(copy: Path, code: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``code`` run by a fresh interpreter (``-W always``: every warning shown) on the packages of
    :func:`package_copy`'s ``copy``, without ``TREACHERY_PURE_PYTHON`` and without
    ``TREACHERY_STALE_SAID`` (set where the checkout's own stale modules were warned about: the
    copy's are its own to say, :func:`treachery_env.compiled.warn_stale`)."""
    env = {k: v for k, v in os.environ.items() if k not in ("TREACHERY_PURE_PYTHON", "TREACHERY_STALE_SAID")}
    return subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=copy, capture_output=True, text=True,
                          timeout=timeout, check=False, env={**env, "PYTHONPATH": str(copy)})


def engine_ops() -> set:
    """The effect primitives ``Game._op_effect`` runs, read from engine/effects.py (the one list of them)."""
    import treachery_env

    source = (Path(treachery_env.__file__).parent / "engine" / "effects.py").read_text("utf-8")
    return set(re.findall(r'\bop == "(\w+)"', source))


def decisions(config, seed: int, bots: list | None = None):
    """Each decision of a seeded game on ``treachery_env.raw_env(config=config)``, as ``(env,
    bot, obs, info)``: the deciding seat's bot and inputs (the caller steps ``env``; done seats
    are stepped here).  ``bots``: one a seat, reset here; None: an
    :class:`agents.heuristic.HeuristicAgent` seeded by its seat in every seat."""
    from agents.heuristic import HeuristicAgent
    from treachery_env.env import raw_env

    env = raw_env(config=config)
    env.reset(seed=seed)
    bots = bots or [HeuristicAgent(seed=i) for i in range(config.num_players)]
    for i, b in enumerate(bots):
        b.reset(i)
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield env, bots[int(name.split("_")[1])], obs, info


def write_policy(path, num_players: int, hidden: int = 16, seed: int = 0):
    """An untrained :class:`agents.policy.PolicyNet` for ``num_players`` saved at ``path``."""
    import torch

    from agents.policy import PolicyNet, save_checkpoint
    from treachery_env import GameConfig
    from treachery_env.env import raw_env

    torch.manual_seed(seed)
    cfg = GameConfig(num_players=num_players)
    e = raw_env(config=cfg)
    net = PolicyNet(int(e.observation_space("player_0")["observation"].shape[0]),
                    int(e.action_space("player_0").n), num_players, hidden)
    return save_checkpoint(path, net, cfg.to_dict())


@pytest.fixture(scope="session")
def policy_4p(tmp_path_factory):
    """Path of an untrained 4-player policy checkpoint."""
    return write_policy(tmp_path_factory.mktemp("policy") / "p4.pt", 4)


# ---------------------------------------------------------------------------- the web table in Chromium
@pytest.fixture(scope="module")
def server():
    """A uvicorn server of the web table on a free port in a thread: ``(base URL, lobby)``; one
    per test module, so each module's tables are its own."""
    import uvicorn

    from table.server import Lobby, create_app

    lobby = Lobby(delay=0.0)
    srv = uvicorn.Server(uvicorn.Config(create_app(lobby), host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not srv.started and time.time() < deadline:
        time.sleep(0.05)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}", lobby
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium (Playwright) for the whole session, started by the first test that
    asks for it: each test opens a context of its own (``browser.new_context()``) and closes it.

    Fails (not skips) without Chromium, saying how to install it."""
    if CHROMIUM is None:
        pytest.fail("the web table's tests need Chromium: run `make browser` (apt-get install chromium) or set "
                    "TREACHERY_CHROMIUM")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def allowed_names(replay: str, seat: int) -> tuple[set, set]:
    """``(card and token names, identity names)`` seat ``seat`` could know at some point before the
    game ended: the names of its view after every action but the last (the reveal comes with the
    end), and the named fields of the log entries it saw."""
    from treachery_env import GameConfig
    from treachery_env.engine import Game
    from treachery_env.text import view_names
    from treachery_env.view import seat_view

    d = json.loads(replay)
    g = Game(GameConfig.from_dict(d["config"]), seed=d["seed"])
    cards, idents = set(), set()
    for k, action in enumerate(d["actions"]):
        v = seat_view(g, seat)
        cards.update(view_names(v))
        idents.update(p.identity for p in v.players if p.identity)
        if k == len(d["actions"]) - 1:
            break
        g.step(action)
    for e in g.log:
        if e["to"] is None or seat in e["to"]:
            if e["event"] in ("reveal_all", "game_over"):
                break
            cards.update(v for v in e.values() if isinstance(v, str))
            if e["event"] in ("deal", "leader", "unveil", "reveal", "loses"):
                idents.add(e["identity"])
    return cards, idents


def forbidden_in(text: str, cards: set, idents: set, dealt: set) -> list:
    """Names in ``text`` the seat could not know: a dealt identity outside ``idents``, a pool card
    outside ``cards`` (whole words, and not part of a name it knows)."""
    from treachery_env.cards import CARDS

    known = " | ".join(cards | idents)
    bad = [name for name in dealt - idents if name in text]
    for c in CARDS:
        if c.name not in cards and re.search(rf"(?<![\w']){re.escape(c.name)}(?![\w'])", text) \
                and c.name not in known:
            bad.append(c.name)
    return bad
