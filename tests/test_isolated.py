"""Bots in their own process (agents/isolated.py, issue #14): ``isolated:SPEC`` plays exactly as the
bot in-process does, yet a bot that searches its process for the game finds nothing, and what the
bot or its process does wrong is one line."""

from __future__ import annotations

import re

import pytest

import agents
from agents.play import BotError, play_game
from treachery_env import GameConfig

SNOOPING_BOTS = '''
import gc
import os

import numpy as np


class Snooper:
    """Looks for the engine's Game among every object of its process."""

    def __init__(self, seed=None):
        self.seat = None

    def reset(self, seat):
        self.seat = seat

    def act(self, observation, info):
        from treachery_env.engine import Game
        # by the objects' types: isinstance reads an object's __class__, and reading any attribute of
        # torch.distributed's reduce_op (in the objects once torch.distributed is imported) warns that
        # it is deprecated (a FutureWarning of the suite's)
        games = [o for o in gc.get_objects() if issubclass(type(o), Game)]
        if games:
            raise RuntimeError(f"found {len(games)} game(s): seat 0 holds {games[0].players[0].identity.name}")
        return int(np.flatnonzero(observation["action_mask"])[0])


class Crashing(Snooper):
    def act(self, observation, info):
        return {}["missing"]


class Exiting(Snooper):
    def act(self, observation, info):
        os._exit(3)


class Fractional(Snooper):
    def act(self, observation, info):
        return 0.7


class Believer(Snooper):
    """Plays the first legal action and has beliefs, its keys in each form the evaluator reads."""

    def act(self, observation, info):
        self.turn = info["view"].turn
        return int(np.flatnonzero(observation["action_mask"])[0])

    def beliefs(self):
        from treachery_env.rules import Role
        lean = 0.1 * (getattr(self, "turn", 0) % 4)
        return {s if s % 2 else str(s): {Role.LEADER: 0.1 + lean, "guardian": np.float32(0.2), 2: 0.3,
                                         Role.TRAITOR: 0.4 - lean / 2}
                for s in range(4) if s != self.seat}
'''


@pytest.fixture
def snoopers(tmp_path, monkeypatch):
    (tmp_path / "snoopers.py").write_text(SNOOPING_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "snoopers"


SMALL = GameConfig(num_players=4, starting_life=8, max_turns=12)


def test_an_isolated_bot_plays_the_same_game_as_in_process():
    for seed in (1, 2):
        plain = play_game([agents.make("heuristic", seed=s) for s in range(5)], seed=seed)
        isolated = play_game([agents.make("isolated:heuristic", seed=s) for s in range(2)]
                             + [agents.make("heuristic", seed=s) for s in range(2, 5)], seed=seed)
        assert (isolated.winners, isolated.turns, isolated.decisions, isolated.roles) == \
            (plain.winners, plain.turns, plain.decisions, plain.roles)


def test_a_bot_in_the_games_process_finds_the_game_and_an_isolated_one_does_not(snoopers):
    import importlib
    import warnings

    importlib.import_module("torch.distributed")     # its deprecated reduce_op among the objects the snooper reads

    with warnings.catch_warnings():
        warnings.simplefilter("error")      # the snooper's search of the objects warns of nothing
        with pytest.raises(BotError, match=r"found \d+ game\(s\): seat 0 holds "):
            play_game([agents.make(f"{snoopers}:Snooper")] + [agents.make("random", seed=s) for s in range(3)],
                      SMALL, seed=0)
    res = play_game([agents.make(f"isolated:{snoopers}:Snooper", seed=0)]
                    + [agents.make("random", seed=s) for s in range(3)], SMALL, seed=0)
    assert res.turns >= 1 and res.decisions > 0


def test_what_goes_wrong_in_the_bots_process_is_one_line(snoopers, monkeypatch):
    with pytest.raises(ValueError, match=re.escape(f"module '{snoopers}' has no class or function 'Missing'")):
        agents.make(f"isolated:{snoopers}:Missing")
    with pytest.raises(ValueError, match="a bot is isolated once"):
        agents.make("isolated:isolated:random")
    # registered in this process alone (agents.register), which the bot's process would not know
    monkeypatch.setitem(agents._REGISTRY, "isolation_test_local", agents.RandomAgent)     # noqa: SLF001
    with pytest.raises(ValueError, match=r"^agent 'isolated:isolation_test_local': 'isolation_test_local' was "
                                         r"registered in this process \(agents.register\), .* MODULE:CLASS "
                                         r"from a module of your own$"):
        agents.make("isolated:isolation_test_local")
    for person in ("human", "Human"):       # a person in a process without a terminal would hang the table
        with pytest.raises(ValueError, match="a person plays at the terminal, not in a process of its own"):
            agents.make(f"isolated:{person}")
    # what the bot raised, and where in its file, come back from its process as text
    crash = SNOOPING_BOTS.splitlines().index('        return {}["missing"]') + 1
    for bot, what in (("Crashing", rf"raised KeyError at \S*/snoopers\.py:{crash} in act on turn \d+: 'missing'$"),
                      ("Exiting", r"raised IsolatedBotError at \S*agents/isolated\.py:\d+ in call on turn \d+: its "
                                  r"process ended \(exit code 3\)$"),
                      # judged by the environment as an in-process bot's action is, not truncated to 0
                      ("Fractional", r"chose 0\.7 on turn \d+: action must be an int")):
        with pytest.raises(BotError) as err:
            play_game([agents.make(f"isolated:{snoopers}:{bot}")] + [agents.make("random", seed=s) for s in range(3)],
                      SMALL, seed=0)
        assert re.search(what, str(err.value)) and "\n" not in str(err.value)


def test_an_isolated_bots_beliefs_are_scored_as_in_process(snoopers):
    """An isolated bot's ``beliefs()`` are asked in its process and come back as JSON, so its
    deduction (and the deception it scores) are what the bot gives in-process: keys that are
    roles, role names, role values and seats as text; a bot without beliefs() has none."""
    from training.evaluate import evaluate

    kw = dict(games=4, seed=3, config=SMALL, progress=False, observer=False)
    here = evaluate([f"{snoopers}:Believer", "random"], **kw)
    isolated = evaluate([f"isolated:{snoopers}:Believer", "random"], **kw)
    assert here["deduction"][f"{snoopers}:Believer"]["overall"]["n"] > 0
    assert isolated["deduction"][f"isolated:{snoopers}:Believer"] == here["deduction"][f"{snoopers}:Believer"]
    assert isolated["deception"]["random"] == here["deception"]["random"]
    assert not hasattr(agents.make("isolated:random", seed=0), "beliefs")


def test_an_isolated_bots_check_config_is_asked_in_its_process(policy_4p, monkeypatch):
    """A bot's ``check_config`` (a search bot's, a trained policy's) was not asked in its process:
    an isolated search bot was not refused a game it cannot play before it (its first decision
    raised), nor an isolated policy said to be in a game it was not trained on.  Its refusal comes
    back as the same one line, its warnings as the same text, once in the game's process as
    in-process (the seats' bots each warn once in a process of their own)."""
    from agents import isolated
    from agents.policy import GameConfigMismatchWarning

    monkeypatch.setattr(isolated, "_SAID", set())

    vanguard = GameConfig(num_players=4, vanguard="random")
    for name in ("ismcts", "lookahead"):
        with pytest.raises(ValueError, match=f"^the {name} bot plays games without Vanguard cards only"):
            agents.check_table(agents.make(f"isolated:{name}", seed=0), f"isolated:{name}", 4, vanguard)
    assert not hasattr(agents.make("isolated:random", seed=0), "check_config")
    silent = GameConfig(num_players=4, talk="none")
    with pytest.warns(GameConfigMismatchWarning) as here:
        agents.make(f"policy:{policy_4p}", seed=0).check_config(silent)
    with pytest.warns(UserWarning) as there:
        bots = [agents.make(f"isolated:policy:{policy_4p}", seed=seed) for seed in (0, 1)]   # two processes
        for bot in bots:
            bot.check_config(silent)
    assert [str(w.message) for w in there] == [str(w.message) for w in here] and len(here) == 1


def test_isolated_processes_are_reused_and_end_with_their_input():
    from agents import isolated

    bot = agents.make("isolated:random", seed=0)
    host = bot._host
    del bot
    assert host in isolated._IDLE
    again = agents.make("isolated:random", seed=1)
    assert again._host is host and again.num_players() is None
    del again
    host = isolated._IDLE.pop()
    host.close()
    assert host.proc.returncode == 0


def test_at_most_max_idle_bot_processes_are_kept_the_longest_idle_ended(tmp_path, monkeypatch):
    """Idle bot processes are kept for reuse up to ``MAX_IDLE``; past it the one idle longest ends
    (they were kept, one per spec and folder ever met, until the process exited: a long-lived
    server leaked them), and those kept are still reused."""
    from agents import isolated

    monkeypatch.setattr(isolated, "MAX_IDLE", 2)
    hosts = []
    for name in ("a", "b", "c"):              # three sources: the same spec made from three folders
        (tmp_path / name).mkdir()
        monkeypatch.chdir(tmp_path / name)
        bot = agents.make("isolated:random", seed=0)
        hosts.append(bot._host)
        del bot
    try:
        assert isolated._IDLE[-2:] == hosts[1:] and hosts[0] not in isolated._IDLE
        assert hosts[0].proc.wait(timeout=10) == 0           # ended, its input closed
        again = agents.make("isolated:random", seed=1)      # from folder c: its process, reused
        assert again._host is hosts[2] and again.num_players() is None
        del again
    finally:
        for host in hosts[1:]:
            if host in isolated._IDLE:
                isolated._IDLE.remove(host)
            host.close()


def test_a_reused_bot_process_never_runs_a_stale_module(tmp_path, monkeypatch):
    """A bot process was reused for any later isolated bot: it kept the modules it had imported and
    its working folder, so ``my_bots:Bot`` made from another folder (or after ``my_bots.py`` was
    edited) ran the first folder's old module.  A process is reused only for the same spec, current
    folder and sys.path, while no module file it imported changed; otherwise the bot is made in a
    new process, which reads the module as it is now."""
    import os
    import sys

    from agents import isolated

    def bots(folder, tables: int) -> None:
        folder.mkdir(exist_ok=True)
        (folder / "my_bots.py").write_text(f"from agents.base import RandomAgent\n\n\nclass Bot(RandomAgent):\n"
                                           f"    def num_players(self):\n        return {tables}\n")

    def made_in(folder) -> tuple[int, object]:
        monkeypatch.chdir(folder)
        monkeypatch.setattr("sys.path", [str(folder), *base_path])
        bot = agents.make("isolated:my_bots:Bot", seed=0)
        return bot.num_players(), bot._host

    base_path = list(sys.path)
    bots(tmp_path / "a", 4)
    bots(tmp_path / "b", 6)
    told, first = made_in(tmp_path / "a")
    assert told == 4 and first in isolated._IDLE       # dropped: idle for the next bot of its source
    assert made_in(tmp_path / "a") == (4, first)        # the same source: reused
    told, other = made_in(tmp_path / "b")               # another folder's my_bots: not that process
    assert told == 6 and other is not first and first in isolated._IDLE
    bots(tmp_path / "a", 5)                             # edited, its file's size and time another
    st = os.stat(tmp_path / "a" / "my_bots.py")
    os.utime(tmp_path / "a" / "my_bots.py", ns=(st.st_atime_ns, st.st_mtime_ns + 10 ** 9))
    told, fresh = made_in(tmp_path / "a")
    assert told == 5 and fresh is not first and first.proc.poll() is not None      # the stale process ended
    for host in (other, fresh):
        isolated._IDLE.remove(host)
        host.close()


def test_evaluate_isolate_runs_every_outside_bot_isolated(snoopers, tmp_path, monkeypatch, capsys):
    """``treachery evaluate --isolate``: each ``MODULE:CLASS`` entrant plays as ``isolated:MODULE:CLASS``
    (a built-in bot stays in-process), in one or two worker processes, with the results the bot
    gives in-process; without ``--isolate`` the snooper finds the game and the tournament stops."""
    import json

    from training.cli import main

    monkeypatch.chdir(tmp_path)
    base = ["evaluate", "--players", "4", "--starting-life", "8", "--max-turns", "12", "--games", "4",
            "--no-progress", "--mode", "substitution", "--reference", "random"]
    assert main([*base, "--agents", f"{snoopers}:Snooper,random", "--out", "plain"]) == 1     # a bot's failure
    assert "found" in capsys.readouterr().err
    for workers in ("1", "2"):
        assert main([*base, "--agents", f"{snoopers}:Snooper,random", "--isolate", "--workers", workers,
                     "--out", f"iso{workers}"]) == 0
    one, two = (json.loads((tmp_path / f"iso{w}" / "results.json").read_text()) for w in "12")
    labels = [e["label"] for e in one["meta"]["entrants"]]
    assert labels == [f"isolated:{snoopers}:Snooper", "random"]
    assert one["substitution"] == two["substitution"]
    assert one["substitution"]["candidates"][labels[0]]["overall"]["pairs"] == 4


def test_a_forked_process_never_shares_its_parents_bot_processes():
    """An evaluation's worker forked after its parent made (and dropped) an isolated bot starts with
    no idle bot process: two processes asking one bot process would mix up its replies."""
    import os

    from agents import isolated

    bot = agents.make("isolated:random", seed=0)
    del bot
    assert isolated._IDLE
    pid = os.fork()
    if pid == 0:
        os._exit(0 if not isolated._IDLE else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and isolated._IDLE
