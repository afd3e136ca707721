"""The bot protocol, the registry and the random bot."""

from __future__ import annotations

import re

import numpy as np
import pytest

import agents
from agents.play import BotError, play_game
from treachery_env import GameConfig


def test_make_random_is_seeded_and_legal():
    cfg = GameConfig(num_players=4, starting_life=10, max_turns=40)
    a = play_game([agents.make("random", seed=s) for s in range(4)], cfg, seed=5)
    b = play_game([agents.make("random", seed=s) for s in range(4)], cfg, seed=5)
    assert (a.winners, a.decisions, a.turns, a.rewards) == (b.winners, b.decisions, b.turns, b.rewards)
    assert a.decisions > 0 and len(a.roles) == 4


def test_make_rejects_unknown_specs():
    with pytest.raises(ValueError, match="unknown agent"):
        agents.make("grandmaster")
    with pytest.raises(ValueError, match="string"):
        agents.make(3)
    # a bad seed named as the seed (numpy said "expected non-negative integer" or "SeedSequence expects int")
    for seed in (-1, "x", 1.5, True):
        with pytest.raises(ValueError, match=rf"seed must be None or an int >= 0, got {seed!r}"):
            agents.make("heuristic", seed=seed)
    assert agents.make("random", seed=np.int64(3)).seed == 3


def test_random_agent_uses_only_the_mask():
    bot = agents.make("random", seed=0)
    mask = np.zeros(10, np.int8)
    mask[[2, 7]] = 1
    picks = {bot.act({"observation": None, "action_mask": mask}, {}) for _ in range(50)}
    assert picks == {2, 7}
    with pytest.raises(ValueError, match="no action"):
        bot.act({"observation": None, "action_mask": np.zeros(10, np.int8)}, {})


def test_play_game_checks_seat_count():
    with pytest.raises(ValueError, match="agents for"):
        play_game([agents.make("random")] * 3, GameConfig(num_players=4))
    # a spec where a bot belongs, or a config as a dict: one line each, not an AttributeError from inside
    with pytest.raises(ValueError, match=r"seat 0: 'random' is not a bot .*agents.make\(spec\) builds one"):
        play_game(["random"] * 4, GameConfig(num_players=4))
    with pytest.raises(ValueError, match=r"config must be a GameConfig, got dict"):
        play_game([agents.make("random")] * 4, {"num_players": 4})


def test_a_policy_for_another_table_size_is_refused_before_the_game(tmp_path):
    """A trained policy's input and output sizes depend on the number of players:
    evaluate and play refuse it at a table of another size up front, with one
    line naming both sizes (not a traceback at its first decision)."""
    import io

    from training.evaluate import evaluate
    from table.terminal import TerminalGame
    spec = "policy:checkpoints/flagship/policy.pt"
    bot = agents.make(spec, seed=0)
    assert bot.num_players() == 5 and agents.make("heuristic").num_players() is None
    agents.check_table(bot, spec, 5)
    with pytest.raises(ValueError, match="trained for 5-player tables and cannot play at 6 players; seat it at a "
                                         "table of 5, or choose another agent$"):
        agents.check_table(bot, spec, 6)
    with pytest.raises(ValueError, match="trained for 5-player tables"):
        evaluate([spec, "random"], num_players=6, games=6, progress=False)
    with pytest.raises(ValueError, match="trained for 5-player tables"):
        TerminalGame(GameConfig(num_players=6), seed=0, human_seat=0, opponent_specs=[spec],
                    input_stream=io.StringIO(""), console=None, delay=0.0, replay_path=tmp_path / "r.json")


OUTSIDE_BOTS = '''
import re

import numpy as np
from agents.base import BaseAgent, legal_actions


class FirstLegal(BaseAgent):
    """Plays the first legal action."""

    def act(self, observation, info):
        return int(legal_actions(observation)[0])


class NotABot:
    def __init__(self, seed=None):
        self.seed = seed


def Raising(seed=None):
    raise RuntimeError("no model file")


class Crashing(BaseAgent):
    def act(self, observation, info):
        return {}["missing"]


class CrashingInNumpy(BaseAgent):
    def act(self, observation, info):
        return int(np.argmax(np.zeros(0)))


class Cheating(BaseAgent):
    def act(self, observation, info):
        return 10_000


class CrashingInReset(FirstLegal):
    def reset(self, seat):
        return {}["at reset"]


class CrashingInBeliefs(FirstLegal):
    def beliefs(self):
        return {}["at beliefs"]


class CrashingInNumPlayers(FirstLegal):
    def num_players(self):
        return {}["at num_players"]


class CrashingInCheckConfig(FirstLegal):
    def check_config(self, config):
        return {}["at check_config"]
'''


def test_an_outside_bot_enters_by_module_and_class(tmp_path, monkeypatch, capsys):
    """``MODULE:CLASS`` names a bot of one's own (issue #14): ``agents.make`` imports it;
    ``treachery evaluate`` finds it in the current folder, also in worker processes;
    what cannot be imported or made, or is not a bot, is one line naming it."""
    import json
    import sys

    from training.cli import main

    (tmp_path / "my_bots.py").write_text(OUTSIDE_BOTS)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.chdir(tmp_path)
    assert agents.names_a_bot("my_bots:FirstLegal") and not agents.names_a_bot("my_bots")
    args = ["evaluate", "--players", "4", "--starting-life", "6", "--max-turns", "10", "--games", "4",
            "--agents", "my_bots:FirstLegal,random", "--workers", "2", "--no-progress", "--out", "res"]
    assert main(args) == 0
    res = json.loads((tmp_path / "res" / "results.json").read_text())
    assert res["winrates"]["my_bots:FirstLegal"]["overall"]["games"] == 8
    bot = agents.make("my_bots:FirstLegal", seed=3)
    assert bot.act({"action_mask": np.array([0, 0, 1, 1], np.int8)}, {}) == 2
    for spec, why in (("no_such_module:Bot", "unknown agent 'no_such_module:Bot': not a registered bot"),
                      ("my_bots:Missing", "module 'my_bots' has no class or function 'Missing'"),
                      ("my_bots:NotABot", "gave a NotABot without act and reset()"),
                      ("my_bots:Raising", "Raising(seed=...) raised RuntimeError: no model file")):
        with pytest.raises(ValueError, match=re.escape(why)):
            agents.make(spec, seed=0)
    capsys.readouterr()
    assert main([*args[:-7], "--agents", "my_bots:Missing,random", "--no-progress", "--out", "res2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("treachery evaluate: error: agent 'my_bots:Missing'") and err.count("\n") == 1
    (tmp_path / "broken_bots.py").write_text("def f(:\n")
    with pytest.raises(ValueError, match=r"importing module 'broken_bots' raised SyntaxError"):
        agents.make("broken_bots:Bot")
    # a bot that fails in play: one line naming the game, the agent and what it did, with 1 or 2 workers, and
    # where in the bot's file it raised (its own line that called numpy, not numpy's where numpy raised)
    crash = line_of('{}["missing"]')
    for bot, what in (("Crashing", rf"raised KeyError at my_bots\.py:{crash} in act on turn \d+: 'missing'$"),
                      ("CrashingInNumpy", rf"raised ValueError at my_bots\.py:{line_of('np.argmax')} in act on turn "
                                          r"\d+: attempt to get argmax of an empty sequence$"),
                      ("Cheating", r"chose 10000 on turn \d+: illegal action 10000")):
        for workers in ("1", "2"):
            assert main([*args[:-7], "--agents", f"my_bots:{bot},random", "--workers", workers, "--no-progress",
                         "--out", "res3"]) == 1      # a runtime error, not a usage error (2)
            err = capsys.readouterr().err
            # with two workers the game that fails first is whichever one a worker reaches first
            assert re.match(rf"treachery evaluate: error: game \d+ \(deal \d+\): agent 'my_bots:{bot}': the bot in "
                            rf"seat \d \({bot}\) {what}", err), err
            assert err.count("\n") == 1
    # in a process of its own the bot's place comes back as text, and it is named by its own class
    assert main([*args[:-7], "--agents", "my_bots:Crashing,random", "--isolate", "--no-progress", "--out", "res4"]) == 1
    err = capsys.readouterr().err
    assert re.match(r"treachery evaluate: error: game \d+ \(deal \d+\): agent 'isolated:my_bots:Crashing': the bot "
                    rf"in seat \d \(Crashing\) raised KeyError at my_bots\.py:{crash} in act "
                    r"on turn \d+: 'missing'$", err), err


def test_an_outside_bot_that_raises_outside_act_is_named_in_one_line(tmp_path, monkeypatch, capsys):
    """Not only ``act``: a bot's ``reset`` or ``beliefs`` that raises in a game, and its ``num_players``
    or ``check_config`` that raises before one, are one line naming the agent, what it raised and
    where in its file, with 1 or 2 workers, in lockstep, in a process of its own and at the terminal."""
    import io
    import sys

    from agents import isolated
    from training.cli import main

    (tmp_path / "my_bots.py").write_text(OUTSIDE_BOTS)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "my_bots", raising=False)     # imported from another test's folder
    isolated._close_all()           # so do the idle bot processes another test used, which would be reused
    monkeypatch.chdir(tmp_path)

    def what(bot: str, method: str, isolated: str = "") -> str:
        at = rf"KeyError at my_bots\.py:{line_of('at ' + method)} in {method}"
        if method in ("reset", "beliefs"):
            return (rf"agent '{isolated}my_bots:{bot}': the bot in seat \d \({bot}\) "
                    rf"raised {at} on turn \d+: 'at {method}'")
        return rf"agent '{isolated}my_bots:{bot}': its {method}\(\) raised {at}: 'at {method}'"     # before the games

    args = ["evaluate", "--players", "4", "--starting-life", "6", "--max-turns", "10", "--games", "2", "--no-progress"]
    methods = {"CrashingInReset": "reset", "CrashingInBeliefs": "beliefs", "CrashingInNumPlayers": "num_players",
               "CrashingInCheckConfig": "check_config"}
    for bot, method in methods.items():
        for how in (["--workers", "1"], ["--workers", "2"], ["--lockstep"], ["--isolate"]):
            isolated = "isolated:" if how == ["--isolate"] else ""
            in_game = method in ("reset", "beliefs")       # a runtime error (1); refused before the games, 2
            assert main([*args, "--agents", f"my_bots:{bot},random", *how, "--out", "res"]) == (1 if in_game else 2)
            err = capsys.readouterr().err
            game = r"game \d+ \(deal \d+\): " if in_game else ""
            assert re.fullmatch(rf"treachery evaluate: error: {game}{what(bot, method, isolated)}\n", err), (how, err)
    for bot in ("CrashingInReset", "CrashingInNumPlayers"):        # play asks no beliefs
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        assert main(["play", "--watch", "--players", "4", "--opponents", f"my_bots:{bot},random", "--delay", "0",
                     "--replay", str(tmp_path)]) == (1 if bot == "CrashingInReset" else 2)
        err = capsys.readouterr().err
        assert re.fullmatch(rf"treachery play: error: {what(bot, methods[bot])}\n", err), err
    # play_game itself, which check_table does not precede
    for bot in ("CrashingInReset", "CrashingInCheckConfig"):
        with pytest.raises(BotError, match=rf"^the bot in seat 0 \({bot}\) raised KeyError at my_bots\.py:"
                                           rf"{line_of('at ' + methods[bot])} in {methods[bot]} on turn 0"):
            play_game([agents.make(f"my_bots:{bot}")] + [agents.make("random") for _ in range(3)],
                      GameConfig(num_players=4, max_turns=2))


def line_of(text: str) -> int:
    """The line of ``OUTSIDE_BOTS`` (as its file holds it) that holds ``text``."""
    return next(i for i, line in enumerate(OUTSIDE_BOTS.splitlines(), 1) if text in line)


def test_what_a_bot_raised_is_named_by_its_innermost_place():
    """The innermost frame outside the toolkit (here this test's, which called it); where no frame
    is a bot's own (a toolkit bot's error), the innermost frame; without a traceback, the type alone."""
    from agents.play import what_raised

    with pytest.raises(ValueError) as err:
        agents.make("no such bot")
    assert re.fullmatch(r"ValueError at \S*test_agents_base\.py:\d+ in test_\w+", what_raised(err.value))
    toolkit_only = err.value.with_traceback(err.value.__traceback__.tb_next)    # without this test's frame
    assert re.fullmatch(r"ValueError at \S*agents/__init__\.py:\d+ in make", what_raised(toolkit_only))
    assert what_raised(KeyError("x")) == "KeyError"


@pytest.mark.parametrize("spec", ["belief", "lookahead", "ismcts"])
def test_a_bot_that_reads_the_view_names_its_absence(spec):
    # with tensor-friendly infos (view_in_info=False) these bots have nothing to read: one line naming the
    # bot and the environment argument, not a bare KeyError 'view'
    import treachery_env
    env = treachery_env.env(num_players=5, view_in_info=False)
    env.reset(seed=0)
    bot = agents.make(spec, seed=0)
    bot.reset(0)
    obs, _, _, _, info = env.last()
    with pytest.raises(ValueError, match=rf"the {spec} bot reads info\['view'\].*view_in_info=False"):
        bot.act(obs, info)


def test_an_unknown_agent_is_told_the_registered_name_it_is_closest_to():
    """A misspelt bot name gets the registered name it is closest to (as ``treachery train``'s
    unknown keys do), and every message lists the names in the forms they are written, the same
    from ``agents.make`` and from the evaluator (found by a fresh user's trial)."""
    from training.evaluate import evaluate

    with pytest.raises(ValueError, match=r"^unknown agent 'heuristc' \(did you mean 'heuristic'\?\); available: "
                                         r"\[.*'policy:PATH\[:greedy\].*\], or MODULE:CLASS"):
        agents.make("heuristc")
    with pytest.raises(ValueError, match=r"^unknown agent specs \['heuristc', 'zzz'\] \(did you mean 'heuristic' "
                                         r"for 'heuristc'\?\); available: \[.*'isolated:SPEC'"):
        evaluate(["heuristc", "zzz"], games=10, progress=False)
