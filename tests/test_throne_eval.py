"""Throne Magic's tournaments (training/throne_eval.py, ``treachery evaluate --game throne_magic``;
issue #16): duplicate deals by Role on Treachery's schedules, the refusals in one line."""

from __future__ import annotations

import json
import re

import pytest

import treachery_env
from treachery_env import GameConfig
from treachery_env import throne_roles as tr
from training import cli
from training.throne_eval import evaluate_throne, role_table


def throne(**kw) -> GameConfig:
    return GameConfig(game="throne_magic", num_players=4, max_turns=30, **kw)


def test_a_candidate_equal_to_the_reference_plays_the_very_same_games():
    """Substitution pairs each seat with the same deal's all-reference game: the heuristic against
    itself (its own seeds in the substituted seat) has a difference of exactly 0 in every Role,
    with no interval (no spread seen); a reference not among the agents joins them."""
    res = evaluate_throne(["random"], throne(), games=2 * 5, seed=3, mode="substitution",
                          reference="heuristic", progress=False)
    assert res["meta"]["deals"] == 2 and res["meta"]["games_per_deal"] == 1 + 4 * 1
    assert list(res["agents"]) == ["random"] and res["meta"]["reference"] == "heuristic"
    assert [e["label"] for e in res["meta"]["entrants"]] == ["random", "heuristic"]
    res = evaluate_throne(["heuristic", "heuristic"], throne(), games=2 * 5, seed=3, mode="substitution",
                          progress=False)
    same = res["agents"]["heuristic"]
    assert set(same["by_role"]) == set(tr.basic_roles(4))
    for cell in [same["overall"], *same["by_role"].values()]:
        assert cell["delta"] == 0.0 and cell["lo"] is None and cell["candidate"] == cell["reference"]
    assert same["overall"]["n"] == 2 * 4 and all(c["n"] == 2 for c in same["by_role"].values())
    by_role = res["reference"]["by_role"]
    assert sum(c["n"] for c in by_role.values()) == 2 * 4


def test_two_deals_whose_differences_sum_alike_print_no_interval(tmp_path, capsys):
    """Substitution over 2 deals: on seed 1 the random bot's seat differences sum to -2 in each deal,
    so the deal-clustered standard error is 0; the overall difference (-0.50, rows not all equal) is
    printed with no interval, as a Role's all-equal one is, not as ``-0.50 [-0.50, -0.50]``; no cell
    anywhere has an interval of zero width."""
    out = tmp_path / "res"
    assert cli.main(["evaluate", "--game", "throne_magic", "--players", "4", "--starting-life", "8",
                     "--max-turns", "120", "--mode", "substitution", "--agents", "random,heuristic",
                     "--games", "10", "--seed", "1", "--out", str(out), "--no-progress"]) == 0
    printed, md = capsys.readouterr().out, (out / "results.md").read_text()
    res = json.loads((out / "results.json").read_text())
    assert res["meta"]["deals"] == 2
    overall = res["agents"]["random"]["overall"]
    assert overall["delta"] == -0.5 and overall["lo"] is None and overall["hi"] is None
    assert "| all | 8 | 0.00 (-0.50) | 0.50 |" in printed and "| all | 8 | 0.00 (-0.50) | 0.50 |" in md
    assert "none where the spread between deals cannot be estimated" in printed
    assert "a difference has none where the spread between deals cannot be estimated" in md
    # the summary and the report name the game's settings (the 8 life was left out of both)
    game = "(game: starting_life=8, max_turns=120; the other fields GameConfig's defaults)"
    assert game in printed and game in md and "throne_roles='basic'" in md
    for cell in [overall, *res["agents"]["random"]["by_role"].values()]:
        assert cell["lo"] is None or cell["lo"] < cell["hi"]


def test_a_throne_report_of_fewer_than_50_deals_says_so_as_a_treachery_one_does(tmp_path, capsys):
    """The README's "a report of fewer than 50 deals says so" holds for Throne Magic too: the printed
    summary and ``results.md`` carry :func:`training.evaluate.few_deals_note`, one of 50 deals not."""
    from training.evaluate import few_deals_note
    from training.throne_eval import render_markdown

    out = tmp_path / "res"
    assert cli.main(["evaluate", "--game", "throne_magic", "--players", "4", "--max-turns", "6", "--mode",
                     "substitution", "--agents", "random,heuristic", "--games", "10", "--out", str(out),
                     "--no-progress"]) == 0
    printed, md = capsys.readouterr().out, (out / "results.md").read_text()
    res = json.loads((out / "results.json").read_text())
    note = few_deals_note(res)
    assert res["meta"]["deals"] == 2 and note.startswith("only 2 deals: ")
    assert f"note: {note}\n" in printed and f"Note: {note}." in md
    res["meta"]["deals"] = 50
    assert "Note:" not in render_markdown(res)


def test_games_rounded_up_to_whole_deals_are_said_without_the_bar_too(capsys):
    """Treachery's tournaments say it with the bar or without it; Throne Magic's said it only with the bar
    (``--no-progress`` played 5 games of 3 without a word).  Whole deals: nothing to say."""
    res = evaluate_throne(["random"], throne(), games=3, seed=3, mode="substitution", reference="heuristic",
                          progress=False)
    assert res["summary"]["games"] == 5
    assert capsys.readouterr().err == "5 games: 1 deal (--games 3 rounded up to whole deals of 5 games)\n"
    evaluate_throne(["random"], throne(), games=5, seed=3, mode="substitution", reference="heuristic", progress=False)
    assert capsys.readouterr().err == ""


def test_rotate_seats_every_agent_in_every_seat_and_the_workers_change_nothing():
    """Two agents at four seats: each deal is played twice (ABAB and BABA), so each agent holds
    two seats a game, four a deal; one process or two give the same results."""
    one = evaluate_throne(["heuristic", "random"], throne(), games=6, seed=1, progress=False)
    assert one["meta"]["games_per_deal"] == 2 and one["summary"]["games"] == 6
    for label in ("heuristic", "random"):
        cell = one["agents"][label]
        assert cell["overall"]["n"] == 3 * 4 and sum(c["n"] for c in cell["by_role"].values()) == 3 * 4
        c = cell["overall"]
        assert 0.0 <= c["lo"] <= c["rate"] + 1e-12 and c["rate"] <= c["hi"] <= 1.0
    two = evaluate_throne(["heuristic", "random"], throne(), games=6, seed=1, workers=2, progress=False)
    assert one["agents"] == two["agents"] and one["summary"] == two["summary"]
    table = role_table(one)
    assert table.splitlines()[0] == "| Role | heuristic win [95%] (seats) | random win [95%] (seats) |"
    assert table.splitlines()[-1].startswith("| all |") and "The King" in table


@pytest.mark.parametrize("kw, match", [
    (dict(config=GameConfig()), "a Throne Magic config"),
    (dict(mode="crossplay"), "Throne Magic has no teams"),
    (dict(specs=["ismcts", "heuristic"]), "agent 'ismcts' does not play Throne Magic"),
    (dict(specs=["heuristic"], mode="substitution"), "needs a candidate besides the reference 'heuristic'"),
    (dict(games=0), "games and workers must be 1 or more"),
    (dict(games=10 ** 7), r"^games must be an int from 1 to 1,000,000 \(one tournament; "),
])
def test_what_throne_magic_tournaments_refuse(kw, match):
    args = dict(specs=["heuristic", "random"], config=throne(), games=1, progress=False) | kw
    with pytest.raises(ValueError, match=match):
        evaluate_throne(**args)


def test_treachery_evaluate_plays_throne_magic_and_writes_its_results(tmp_path, capsys):
    out = tmp_path / "res"
    status = cli.main(["evaluate", "--game", "throne_magic", "--players", "4", "--max-turns", "30",
                       "--mode", "substitution", "--agents", "random,heuristic", "--games", "5",
                       "--out", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert status == 0 and "| Role | pairs | random win (delta vs heuristic [95%]) | heuristic win |" in printed
    res = json.loads((out / "results.json").read_text())
    assert res["meta"]["game"] == "throne_magic" and res["meta"]["mode"] == "substitution"
    assert res["meta"]["config"]["game"] == "throne_magic" and res["summary"]["games"] == 5
    assert "| The King |" in (out / "results.md").read_text()
    assert res["meta"]["toolkit"]["version"] == treachery_env.__version__      # the toolkit that played them
    assert f"Toolkit: treachery {treachery_env.__version__}" in (out / "results.md").read_text()
    # Treachery's readers refuse it in one line; Treachery-only options too
    assert cli.main(["compare", str(out), str(out)]) == 2
    assert "holds a Throne Magic tournament" in capsys.readouterr().err
    for extra in (["--ray"], ["--shard", "1/2"], ["--lockstep"], ["--mode", "teammates"]):
        assert cli.main(["evaluate", "--game", "throne_magic", "--agents", "heuristic,random", "--games", "2",
                         "--out", str(tmp_path / "x"), *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith("treachery evaluate: error: ") and err.count("\n") == 1
    # an agent that does not play the game is named before an option it does not take
    assert cli.main(["evaluate", "--game", "throne_magic", "--agents", "flagship,heuristic", "--games", "2",
                     "--no-observer", "--out", str(tmp_path / "x")]) == 2
    assert "agent 'flagship' does not play Throne Magic" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_treachery_evaluate_refuses_a_search_bot_in_a_variant_before_any_game(tmp_path, capsys):
    """A Treachery tournament with a CR 900 variant: the bots that do not play it are refused up
    front, in one line (not by a failed game)."""
    status = cli.main(["evaluate", "--agents", "lookahead,heuristic", "--games", "2", "--vanguard", "random",
                       "--out", str(tmp_path / "x"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and err == ("treachery evaluate: error: agent 'lookahead' does not play the CR 900 variants "
                                   "(Planechase, Vanguard, schemes); its agents: heuristic, belief, random, or "
                                   "MODULE:CLASS of your own\n")


def test_results_written_over_earlier_ones_are_both_new_or_both_old(tmp_path, monkeypatch):
    """``results.md`` failing to be put in place after ``results.json`` was (``--force`` over earlier
    results) left the new JSON beside the old report; now both stay as they were."""
    import os

    from training import throne_eval
    kw = dict(games=5, seed=3, mode="substitution", reference="heuristic", progress=False)
    first = evaluate_throne(["random"], throne(), out_dir=tmp_path, **kw)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real, calls = os.replace, []

    def second_fails(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("simulated disk failure")
        return real(src, dst)
    monkeypatch.setattr(os, "replace", second_fails)
    with pytest.raises(OSError):
        throne_eval.write_results(dict(first, summary=dict(first["summary"], games=999)), tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("how", ["ctrl-c", "error"])
def test_ctrl_c_or_an_error_stops_a_throne_tournaments_workers(monkeypatch, how):
    """Throne Magic's games in worker processes run in Treachery's pool
    (:func:`training.evaluate.run_in_processes`): Ctrl-C, or an error where a failed game's
    result would raise one, while chunks are queued stops the workers at once (none is left)
    and is raised."""
    import multiprocessing as mp

    from training import evaluate as ev
    real = ev.as_completed

    def stopped(futs):
        for i, f in enumerate(real(futs)):
            if i == 1:
                if how == "ctrl-c":
                    raise KeyboardInterrupt
                raise RuntimeError("a game failed")
            yield f
    monkeypatch.setattr(ev, "as_completed", stopped)
    before = set(mp.active_children())
    with pytest.raises(KeyboardInterrupt if how == "ctrl-c" else RuntimeError):
        evaluate_throne(["heuristic", "random"], throne(), games=40, seed=1, workers=2, progress=False)
    assert not [p for p in set(mp.active_children()) - before if p.is_alive()]


def test_a_bot_that_fails_in_a_throne_game_is_a_runtime_error_naming_the_agent(tmp_path, monkeypatch, capsys):
    """A bot of one's own whose ``act`` raises in a Throne Magic game ends ``treachery evaluate``
    with exit status 1 (a runtime error; 2 is for arguments refused before any game) and one line
    naming the game and the agent, as a Treachery tournament's does."""
    import sys

    (tmp_path / "oops_bots.py").write_text("from agents.base import BaseAgent\n\n\nclass Oops(BaseAgent):\n"
                                           "    def act(self, observation, info):\n        raise RuntimeError('boom')\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.chdir(tmp_path)
    status = cli.main(["evaluate", "--game", "throne_magic", "--players", "4", "--agents", "oops_bots:Oops,heuristic",
                       "--games", "8", "--out", "res", "--no-progress"])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1, err
    assert re.fullmatch(r"treachery evaluate: error: game \d+ \(deal \d+\): agent 'oops_bots:Oops': the bot in seat \d "
                        r"\(Oops\) raised RuntimeError at oops_bots\.py:6 in act on turn \d+: boom\n", err), err
    assert not (tmp_path / "res").exists()
