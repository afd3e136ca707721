"""The benchmark drivers measure what they say (their figures live in `make bench`, never in tests)."""

from __future__ import annotations

import os
import re

import pytest

from agents.benchmark import main as agents_bench_main, run_decisions, run_playouts
from treachery_env import GameConfig
from treachery_env.benchmark import game_memory, main as env_bench_main, midgame_states, run_engine, time_clone


def test_midgame_states_are_live_games_at_the_turn():
    cfg = GameConfig(num_players=5)
    states = midgame_states(cfg, 4, seed=3, turn=6)
    assert len(states) == 4 and len({id(g) for g in states}) == 4
    assert all(not g.is_over and g.turn >= 6 and g.decision is not None for g in states)


def test_midgame_states_refuse_a_turn_the_game_never_reaches():
    with pytest.raises(ValueError, match="max_turns"):
        midgame_states(GameConfig(num_players=4, max_turns=6), 1, turn=8)


def test_clone_time_and_memory_are_positive_and_clone_leaves_the_state_alone():
    cfg = GameConfig(num_players=4)
    states = midgame_states(cfg, 2, seed=1)
    before = [g.digest() for g in states]
    assert time_clone(states, repeat=1) > 0
    assert [g.digest() for g in states] == before
    one, many = game_memory(cfg, 1), game_memory(cfg, 8)
    assert 0 < one < many


def test_drivers_count_whole_games_and_decisions():
    cfg = GameConfig(num_players=4, max_turns=6)
    r = run_engine(cfg, 0.01)
    assert r["games"] >= 1 and r["steps"] >= r["games"]
    for bot in ("heuristic", "belief"):
        h = run_decisions(cfg, 0.01, bot=bot)
        assert h["games"] >= 1 and h["decisions"] >= h["games"] and h["us_per_decision"] > 0 and h["p95_us"] > 0
        assert h["games"] <= h["turns"] <= 6 * h["games"]
        assert h["decisions_per_game"] == h["decisions"] / h["games"]
        assert h["decisions_per_turn"] == h["decisions"] / h["turns"]
    p = run_playouts(GameConfig(num_players=4), 0.01, states=2)
    assert p["playouts"] >= 1 and p["decisions_per_playout"] > 0


def test_drivers_play_one_whole_game_however_late_the_clock_is_read(monkeypatch):
    """A process preempted between starting a row's clock and reading it (a loaded machine; here a
    clock that moves 0.02 s a read, past the row's 0.01 s) still plays one whole game (a playout):
    it played none, and a row divided by zero games."""
    import time

    from treachery_env.benchmark import run_env
    from treachery_env.env import raw_env

    clock = [0.0]

    def late():
        clock[0] += 0.02
        return clock[0]

    monkeypatch.setattr(time, "perf_counter", late)
    cfg = GameConfig(num_players=4, max_turns=6)
    assert run_engine(cfg, 0.01)["games"] == 1
    assert run_env(lambda: raw_env(config=cfg), 0.01)["games"] == 1
    h = run_decisions(cfg, 0.01)
    assert h["games"] == 1 and h["decisions_per_game"] == h["decisions"] > 0
    assert run_playouts(GameConfig(num_players=4), 0.01, states=2)["playouts"] == 1


def test_command_lines_print_their_tables(capsys):
    env_bench_main(["--players", "4", "--seconds", "0.01", "--max-turns", "6", "--forced", "auto", "shown"])
    out = capsys.readouterr().out
    for word in ("engine", "raw_env", "env", "clone() µs", "64 games"):
        assert word in out
    rows = [line.split() for line in out.splitlines() if line.split()[4:5] in (["engine"], ["env"])]
    assert [r[3] for r in rows] == ["auto", "auto", "shown", "shown"]
    agents_bench_main(["--players", "4", "--seconds", "0.01"])
    out = capsys.readouterr().out
    assert "decisions/s" in out and "decisions/turn" in out and "heuristic" in out and "belief" in out
    agents_bench_main(["--players", "4", "--seconds", "0.01", "--bots", "heuristic", "--talk", "structured", "none"])
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines()[1:]]
    assert [r[:3] for r in rows] == [["4", "structured", "heuristic"], ["4", "none", "heuristic"]]


def test_the_bots_benchmark_times_a_trained_policy_and_refuses_bad_bots(policy_4p, capsys):
    """``--bots`` takes any agent spec: a policy bot's decisions (its observation encoded,
    as the environment gives it) are timed in whole games; a bot that cannot sit at the
    table, or is unknown, is refused before anything runs."""
    import torch

    threads = torch.get_num_threads()
    try:
        agents_bench_main(["--players", "4", "--seconds", "0.01", "--bots", f"policy:{policy_4p}:greedy"])
    finally:
        torch.set_num_threads(threads)          # a policy bot sets torch to one thread
    rows = [ln.split() for ln in capsys.readouterr().out.splitlines()[1:]]
    assert len(rows) == 1 and rows[0][:3] == ["4", "structured", f"policy:{policy_4p}:greedy"]
    assert float(rows[0][3].replace(",", "")) > 0 and float(rows[0][4]) > 0
    h = run_decisions(GameConfig(num_players=4, max_turns=4), 0.01, bot=f"policy:{policy_4p}")
    assert h["games"] >= 1 and h["decisions"] >= h["games"]
    for bad, phrase in ((["--players", "5", "--bots", f"policy:{policy_4p}"], "trained for 4-player tables"),
                        (["--bots", "nobot"], "unknown agent 'nobot'")):
        with pytest.raises(SystemExit):
            agents_bench_main(["--seconds", "0.01", *bad])
        assert phrase in capsys.readouterr().err


def test_a_bot_that_fails_in_the_bots_benchmark_is_one_line_naming_it(tmp_path, monkeypatch, capsys):
    """``python -m agents.benchmark`` did not wrap the bots' errors: a bot whose ``act`` or ``reset``
    raised, or whose action the game refused, ended it with a raw traceback.  Each is one line naming
    the spec, the seat, the bot and what it raised where (:func:`agents.play.bot_call`, as
    ``treachery evaluate`` and ``treachery play`` say it), exit status 1."""
    import sys

    (tmp_path / "failing_bots.py").write_text(
        "from agents.base import RandomAgent\n\n\n"
        "class ActFails(RandomAgent):\n    def act(self, observation, info):\n        return {}['x']\n\n\n"
        "class ResetFails(RandomAgent):\n    def reset(self, seat):\n        raise RuntimeError('no seat')\n\n\n"
        "class Illegal(RandomAgent):\n    def act(self, observation, info):\n        return 10 ** 6\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.chdir(tmp_path)
    for bot, said in (("ActFails", r"raised KeyError at failing_bots\.py:6 in act on turn \d+: 'x'"),
                      ("ResetFails", r"raised RuntimeError at failing_bots\.py:11 in reset on turn 0: no seat"),
                      ("Illegal", r"chose 1000000 on turn \d+: illegal action 1000000 \(outside the action space\)")):
        with pytest.raises(SystemExit) as end:
            agents_bench_main(["--players", "4", "--seconds", "0.01", "--bots", f"failing_bots:{bot}"])
        err = capsys.readouterr().err
        assert end.value.code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
        assert re.match(rf"^\S+: error: agent 'failing_bots:{bot}': the bot in seat \d \({bot}\) {said}", err), err


def test_the_view_cost_script_prints_each_builder(capsys):
    """``bench/view_cost.py`` plays its episodes with both builders and without the view."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("view_cost", Path(__file__).parent.parent / "bench" / "view_cost.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--episodes", "1", "--players", "4"])
    out = capsys.readouterr().out
    assert "4 players, 1 episodes" in out
    assert all(f"  {m} " in out for m in ("compiled", "python", "none")) and out.count("µs a step") == 2
    from treachery_env import view
    assert importlib.import_module("treachery_env.env").ViewBuilder is view.ViewBuilder     # put back


def test_the_identity_callbacks_script_counts_card_code_in_pure_python():
    """``bench/identity_callbacks.py`` (docs/native_core.md) runs the engine in pure Python in a
    process of its own, so its profiler sees the framework's entry points and the card code."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parent.parent / "bench" / "identity_callbacks.py"
    out = subprocess.run([sys.executable, str(script), "--games", "2", "--top", "3"], capture_output=True,
                         text=True, check=True).stdout
    assert out.startswith("2 games, ")
    calls = dict(re.findall(r"\| `(\w+)` \| ([\d.]+) \|", out))
    assert float(calls["can_activate"]) > 0.5 and float(calls["fire_event"]) > 0   # every priority check asks
    entries = re.search(r"entries into card code: ([\d,.]+) a game", out)
    assert entries and float(entries.group(1).replace(",", "")) > 0
    shares = re.findall(r"\| `\w+` \| [\d.]+ \| (\d+)% \|", out)            # by caller: the shares add up
    assert shares and abs(sum(map(int, shares)) - 100) <= len(shares)
    assert re.search(r"\| `\S+ \(\w+\.py:\d+\)` \| `\w+` \| [\d.]+ \|", out)      # card functions with file:line
    bad = subprocess.run([sys.executable, str(script), "--games", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--games and --top must be at least 1" in bad.stderr


def test_the_rollout_cost_script_times_plain_labelled_and_pooled_collects(capsys):
    """``bench/rollout_cost.py`` collects with the same worker pool as training, without and with
    the expert's labels and a pool, and refuses bad arguments in one line."""
    import importlib.util
    import re
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("rollout_cost", Path(__file__).parent.parent / "bench" /
                                                  "rollout_cost.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--workers", "1", "--steps", "64", "--collects", "2", "--warmup", "1", "--pool", "1"]) == 0
    rows = re.findall(r"\| (plain|labels|labels\+pool of 1) \| ([\d.]+) \| ([\d.]+) \|", capsys.readouterr().out)
    assert [r[0] for r in rows] == ["plain", "labels", "labels+pool of 1"]
    assert all(float(ms) > 0 and float(d) >= 1 for _, ms, d in rows)
    for bad in (["--warmup", "3", "--collects", "3"], ["--workers", "0"]):
        with pytest.raises(SystemExit) as err:
            mod.main(bad)
        assert err.value.code == 2


def test_the_imitation_agreement_script_fits_and_scores_each_network(capsys):
    """``bench/imitation_agreement.py`` on a tiny run: both networks fitted on the
    same heuristic games, agreement in [0, 1] overall and by kind, one table."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("imitation_agreement",
                                                  Path(__file__).parent.parent / "bench" / "imitation_agreement.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = mod.main(["--games", "1", "--test-games", "1", "--epochs", "1", "--hidden", "16"])
    assert set(res) == {"flat", "entity"}
    for overall, by_kind in res.values():
        assert 0.0 <= overall <= 1.0 and "priority" in by_kind
    out = capsys.readouterr().out
    assert "| kind | flat | entity |" in out and "| all |" in out


@pytest.mark.parametrize("script,option", [("departure_fit", "--save"), ("advantage_fit", "--save"),
                                           ("untrained_proposal", "--out")])
def test_the_scripts_that_save_a_policy_check_where_before_the_work(tmp_path, capsys, script, option):
    """The bench scripts that write a policy at the end (after minutes of collecting and fitting)
    refuse a path that cannot be written first, in one line (they failed at the end with a
    traceback, the work lost); the inputs are not even read (a missing --policy / --base would
    be the error otherwise)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(script, Path(__file__).parent.parent / "bench" / f"{script}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = str(tmp_path / ("x" * 300) / "p.pt")
    missing = str(tmp_path / "none.pt")
    why = f"{option} {out!r} cannot be written: File name too long"
    if script == "untrained_proposal":
        with pytest.raises(ValueError, match=f"^{re.escape(why)}$"):
            mod.main(["--base", missing, "--out", out])
    else:
        gate = ["--features", "combat"] if script == "advantage_fit" else []     # what --save needs
        with pytest.raises(SystemExit):
            mod.main(["--policy", missing, option, out, *gate])
        err = capsys.readouterr().err
        assert err.strip().endswith(f"error: {why}"), err
    assert list(tmp_path.iterdir()) == []


def test_the_untrained_proposal_script_adds_the_input_to_a_policys_weights(tmp_path):
    """bench/untrained_proposal.py (the README's ablation): every weight of the
    base policy, the proposal's parameters at their initial values; a flat base
    is refused with one line."""
    import importlib.util
    from pathlib import Path

    import torch

    from agents.networks import PRIOR_BONUS_INIT, EntityNet, PolicyNet
    from agents.policy import load_checkpoint, save_checkpoint
    from treachery_env.actions import ActionLayout
    from treachery_env.observation import obs_layout

    spec = importlib.util.spec_from_file_location("untrained_proposal",
                                                  Path(__file__).parent.parent / "bench" / "untrained_proposal.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    n = 4
    base = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=16, entity=8, privileged_size=4 * n)
    save_checkpoint(tmp_path / "base.pt", base, {"num_players": n})
    assert mod.main(["--base", str(tmp_path / "base.pt"), "--out", str(tmp_path / "p.pt")]) == 0
    net = load_checkpoint(tmp_path / "p.pt")["net"]
    assert net.kwargs["prior"] == "heuristic" and net.prior_bonus.item() == PRIOR_BONUS_INIT
    assert all(torch.equal(net.state_dict()[k], v) for k, v in base.state_dict().items())
    save_checkpoint(tmp_path / "flat.pt", PolicyNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=8),
                    {"num_players": n})
    with pytest.raises(ValueError, match="holds a 'flat' network; only the entity network reads a proposal"):
        mod.main(["--base", str(tmp_path / "flat.pt"), "--out", str(tmp_path / "q.pt")])


def test_the_untrained_proposal_script_replaces_out_only_with_force(tmp_path):
    """bench/untrained_proposal.py refuses an ``--out`` that exists in one line, before reading
    ``--base``, and leaves it as it was; ``--force`` replaces it; ``--out`` that is ``--base`` is
    refused even with ``--force`` (the policy it is made from stays)."""
    import importlib.util
    from pathlib import Path

    from agents.networks import EntityNet
    from agents.policy import load_checkpoint, save_checkpoint
    from treachery_env.actions import ActionLayout
    from treachery_env.observation import obs_layout

    spec = importlib.util.spec_from_file_location("untrained_proposal",
                                                  Path(__file__).parent.parent / "bench" / "untrained_proposal.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    n = 4
    base = tmp_path / "base.pt"
    save_checkpoint(base, EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=16, entity=8,
                                    privileged_size=4 * n), {"num_players": n})
    out = tmp_path / "p.pt"
    out.write_bytes(b"earlier")
    with pytest.raises(ValueError, match=f"^--out {re.escape(repr(str(out)))} exists; give --force to replace it$"):
        mod.main(["--base", str(tmp_path / "none.pt"), "--out", str(out)])
    assert out.read_bytes() == b"earlier"
    assert mod.main(["--base", str(base), "--out", str(out), "--force"]) == 0
    assert load_checkpoint(out)["net"].kwargs["prior"] == "heuristic"
    kept = base.read_bytes()
    for force in ([], ["--force"]):
        with pytest.raises(ValueError, match=r"^--out .* is --base: write the checkpoint to a new file"):
            mod.main(["--base", str(base), "--out", str(base), *force])
    assert base.read_bytes() == kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.pt", "p.pt"]


def test_the_search_departures_script_measures_the_lookahead_bots_departures(capsys, monkeypatch):
    """``bench/search_departures.py``: every departure of the lookahead bot from
    the heuristic's action is a searched decision with a positive gain (above
    the bot's margin), non-departures have gain 0, and the tables add up.
    Each set of games is played once: the command line's ``main`` asks for the
    very games played here (checked) and prints them."""
    import importlib.util
    import inspect
    from pathlib import Path

    from agents.lookahead import LookaheadAgent

    spec = importlib.util.spec_from_file_location("search_departures",
                                                  Path(__file__).parent.parent / "bench" / "search_departures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    play, played = mod.departures, {}

    def departures(*args, **kwargs):
        """``mod.departures``, each distinct call played once."""
        bound = inspect.signature(play).bind(*args, **kwargs)
        bound.apply_defaults()
        key = tuple(bound.arguments.items())
        if key not in played:
            played[key] = play(*args, **kwargs)
        return played[key]

    monkeypatch.setattr(mod, "departures", departures)
    rows, wins = mod.departures(2, seed=5)
    dep = [r for r in rows if r["chosen"] != r["proposal"]]
    assert rows and dep and wins in (0, 1, 2)
    assert all(r["gain"] > LookaheadAgent().margin for r in dep)
    assert all(r["gain"] == 0.0 for r in rows if r["chosen"] == r["proposal"])
    mod.main(["--games", "2", "--seed", "5", "--top", "2"])
    out = capsys.readouterr().out
    assert f"{len(rows)} searched decisions, {len(dep)} departures" in out
    assert "| 0.00 | " + str(len(dep)) + " | 100% |" in out and out.count("  +0.") == 2
    again, _ = mod.departures(2, seed=5, repeat=True)
    assert [{k: v for k, v in r.items() if k != "again"} for r in again] == rows   # the second bot does not play
    same = sum(r["again"] == r["chosen"] for r in again if r["chosen"] != r["proposal"])
    mod.main(["--games", "2", "--seed", "5", "--top", "0", "--repeat"])
    out = capsys.readouterr().out
    assert f"the same departure at {same} of the {len(dep)} " in out
    by_kind = [line.split(" | ") for line in out.splitlines()
               if line.startswith("| ") and line.split(" | ")[0][2:] in {r["kind"] for r in rows}
               and line.count("|") == 6]
    assert {k[0][2:] for k in by_kind} == {r["kind"] for r in rows}           # one row per searched kind
    assert sum(int(k[1]) for k in by_kind) == len(dep)                        # the kinds' rows add up
    assert sum(int(k[2].split()[0]) for k in by_kind if k[1] != "0") == same   # "–" where a kind has none
    assert all(k[2] == "–" for k in by_kind if k[1] == "0")
    for bad, msg in ((["--kinds", "attacker,target"], "--kinds: unknown decision kind 'target'"),
                     (["--kinds", "attacker,attacker"], "--kinds: decision kind 'attacker' given twice"),
                     (["--kinds", ","], "--kinds: name at least one kind")):
        with pytest.raises(SystemExit):
            mod.main(bad)
        assert msg in capsys.readouterr().err
    assert len(played) == 2      # main played no games but those of departures(2, seed=5) with and without repeat


def test_the_step_instructions_script_replays_to_the_recorded_fingerprint(tmp_path, capsys):
    """``bench/step_instructions.py`` without valgrind: a recorded game replays to
    the fingerprint of its recording (the command line says it matches); a
    replay of a changed action list, or of one action too few, is refused in
    one line; the fingerprint covers the views (another view, another print)."""
    import importlib.util
    import json
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("step_instructions",
                                                  Path(__file__).parent.parent / "bench" / "step_instructions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rec = mod.record(1, seed=3)
    steps, fp = mod.replay(rec)
    assert steps == rec["steps"] == len(rec["games"][0]) > 100 and fp == rec["fingerprint"]
    path = tmp_path / "games.json"
    path.write_text(json.dumps(rec))
    assert mod.main(["--replay", str(path), "--no-valgrind"]) == 0
    assert f"fingerprint {fp} (1 games, {steps:,} agent-steps): matches the recording's" in capsys.readouterr().out

    acts = rec["games"][0]
    k = len(acts) // 2
    changed = {**rec, "games": [acts[:k] + [10**6] + acts[k + 1:]]}
    path.write_text(json.dumps(changed))
    assert mod.main(["--replay", str(path), "--no-valgrind"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"agent-step {k}: recorded action 1000000 is not legal here" in err
    with pytest.raises(ValueError, match=rf"^replay: game 0, agent-step {k}: recorded action 1000000 is not legal "
                                         r"here \(\d+ legal actions\); the recording does not match this game$"):
        mod.replay(changed)
    with pytest.raises(ValueError, match=r"^replay: game 0 goes on past its \d+ recorded actions$"):
        mod.replay({**rec, "games": [acts[:-1]]})
    assert mod.replay(rec, fingerprint=False) == (steps, None)
    assert mod.record(1, seed=4)["fingerprint"] != fp


def test_the_step_instructions_script_replaces_its_outputs_only_with_force(tmp_path, capsys):
    """``bench/step_instructions.py`` refuses, before recording, a ``--record`` file that exists
    and a ``--keep`` folder that holds this run's callgrind files, in one line on stderr (exit 2),
    and leaves them as they were; with ``--force`` the recording replaces the file."""
    import importlib.util
    import json
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("step_instructions",
                                                  Path(__file__).parent.parent / "bench" / "step_instructions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rec = tmp_path / "games.json"
    rec.write_text("earlier")
    assert mod.main(["--games", "1", "--record", str(rec), "--no-valgrind"]) == 2
    assert capsys.readouterr().err == f"step_instructions: --record {str(rec)!r} exists; give --force to replace it\n"
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "callgrind.3.out").write_text("earlier")
    assert mod.main(["--games", "3", "--keep", str(keep)]) == 2
    assert capsys.readouterr().err == (f"step_instructions: --keep {str(keep)!r} already holds callgrind.3.out; "
                                       f"give --force to replace them\n")
    assert rec.read_text() == "earlier" and (keep / "callgrind.3.out").read_text() == "earlier"
    assert mod.main(["--games", "1", "--seed", "3", "--record", str(rec), "--no-valgrind", "--force"]) == 0
    assert json.loads(rec.read_text())["format"] == mod.FORMAT
    assert "matches the recording's" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.json", "keep"]


def _tiny_expert_setup(tmp_path):
    """A tiny 4-player entity network with the heuristic's proposal, saved as ``tmp_path/p.pt``, and a
    training configuration ``tmp_path/c.toml`` distilling the lookahead bot in one seat among heuristic bots:
    what the departure and advantage fit scripts collect with, in seconds."""
    from agents.networks import EntityNet
    from agents.policy import save_checkpoint
    from treachery_env.actions import ActionLayout
    from treachery_env.observation import obs_layout

    n = 4
    net = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=16, entity=8, privileged_size=4 * n,
                    prior="heuristic")
    save_checkpoint(tmp_path / "p.pt", net, {"num_players": n})
    cfg = tmp_path / "c.toml"
    cfg.write_text('arch = "entity"\nprivileged_critic = true\nprior = "heuristic"\nexpert = "lookahead"\n'
                   'imitation = 0.9\nhidden = 16\nentity = 8\ngames_per_worker = 2\nsolo = 1.0\n'
                   '[opponents]\nheuristic = 1.0\nself = 0.0\npool = 0.0\nbelief = 0.0\nrandom = 0.0\n'
                   '[game]\nnum_players = 4\nmax_turns = 12\n')
    return net, cfg


def test_the_departure_fit_script_scores_agreement_on_departures_and_reuses_its_data(tmp_path, capsys, monkeypatch):
    """``bench/departure_fit.py`` on a tiny network: ``score`` counts agreement,
    departures and false departures exactly; a run collects labelled rollouts
    (kept in ``--data``), prints one row per pass, and a second run reuses them.  ``--save``
    never replaces a file, even one made during the run, after its check (the fit then goes to
    the next free name)."""
    import importlib.util
    from pathlib import Path

    import numpy as np


    spec = importlib.util.spec_from_file_location("departure_fit",
                                                  Path(__file__).parent.parent / "bench" / "departure_fit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    # labels 3, 3, 5, 7, -1 (unlabelled); proposals 3, 4, 5, 6, 3: departures at steps 1 and 3
    batch = {"expert": np.array([3, 3, 5, 7, -1]), "prior": np.array([3, 4, 5, 6, 3])}
    s = mod.score(np.array([3, 3, 2, 6, 9]), batch)
    assert s == {"agree": 0.5, "departures": 2, "dep_agree": 0.5, "false_dep": 0.5}
    # margin_table: logits over 8 actions; the proposal's logit 0, the best other action's logit as given
    logits = np.full((5, 8), -1e9, np.float32)
    for i, (best, x) in enumerate([(2, 1.5), (3, 0.7), (6, 0.2), (7, 3.0), (5, 9.0)]):
        logits[i, batch["prior"][i]] = 0.0
        logits[i, best] = x
    # step 0: takes 2 where the teacher kept 3 (false, gap 1.5); step 1: takes 3, the teacher's 3 (right, 0.7);
    # step 2: takes 6 where the teacher kept 5 (false, 0.2); step 3: takes 7, the teacher's 7 (right, 3.0);
    # step 4 is unlabelled
    rows = mod.margin_table(logits, batch, margins=(0.0, 1.0, 2.0, 5.0))
    assert [(r["taken"], r["right"], r["false"]) for r in rows] == [(4, 2, 2), (2, 1, 1), (1, 1, 0), (0, 0, 0)]
    assert rows[0]["precision"] == 0.5 and rows[2]["precision"] == 1.0 and np.isnan(rows[3]["precision"])
    net, cfg = _tiny_expert_setup(tmp_path)
    args = ["--policy", str(tmp_path / "p.pt"), "--config", str(cfg), "--batches", "2", "--steps", "48",
            "--heldout", "1", "--passes", "1", "--workers", "1", "--data", str(tmp_path / "data")]
    assert mod.main(args) == 0
    out = capsys.readouterr().out
    assert "collected 2/2 batches" in out and "| 0 | " in out and "| 1 | " in out and "| precision |" in out
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["batch_000.npz", "batch_001.npz", "manifest.json"]
    assert mod.main(args) == 0
    assert "collected" not in capsys.readouterr().out
    steps = [int(line.split()[2]) for line in out.splitlines() if line.startswith("fitted on ")]
    assert mod.main(args + ["--batches", "3", "--fit-batches", "1"]) == 0     # collects one more, fits on one
    out = capsys.readouterr().out
    assert "collected 3/3" in out and "collected 2/3" not in out and f"fitted on {steps[0]} steps" in out
    assert mod.main(args + ["--save", str(tmp_path / "fitted.pt")]) == 0
    import agents
    bot = agents.make(f"policy:{tmp_path / 'fitted.pt'}")             # the fitted policy plays
    assert bot is not None
    collect = mod.collect

    def collect_while_another_saves(*a, **k):
        (tmp_path / "raced.pt").write_bytes(b"another's")
        return collect(*a, **k)
    monkeypatch.setattr(mod, "collect", collect_while_another_saves)
    assert mod.main(args + ["--save", str(tmp_path / "raced.pt")]) == 0
    assert f"fitted policy written to {tmp_path / 'raced-2.pt'}\n" in capsys.readouterr().out
    assert (tmp_path / "raced.pt").read_bytes() == b"another's" and agents.make(f"policy:{tmp_path / 'raced-2.pt'}")
    monkeypatch.setattr(mod, "collect", collect)
    for bad in (["--batches", "2", "--heldout", "2"], ["--fit-batches", "2"],
                ["--save", str(tmp_path / "fitted.pt")],                     # never replaced
                ["--steps", "64"], ["--seed", "7"],                          # not how --data was collected
                ["--data", str(tmp_path / "fitted.pt")]):                    # a file, not a folder
        with pytest.raises(SystemExit):
            mod.main(args + bad)
    assert "collected with other steps (48, not 64)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main(args + ["--workers", "100000"])
    assert "--workers 100000 is too many" in capsys.readouterr().err


def test_the_departure_fit_batches_are_never_written_over_a_file(tmp_path, monkeypatch):
    """``bench/departure_fit.py --data``: a batch was named from the count of batches read
    (``batch_{count}.npz``), so after a gap in the numbering (000 and 002: the next was named 002)
    or beside another run sharing the folder (both writing 002) it replaced one.  Each takes the
    first free number from the count on, even one another run took after this one looked."""
    import importlib.util
    from pathlib import Path
    from types import SimpleNamespace

    import numpy as np

    from conftest import taken_before_write

    spec = importlib.util.spec_from_file_location("departure_fit",
                                                  Path(__file__).parent.parent / "bench" / "departure_fit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    collected = iter(range(100, 200))

    class Pool:                 # each collect gives one batch, marked with a number of its own
        def __init__(self, config, seeds):
            """No worker processes: the batches come from ``collected``."""

        def collect(self, *a, **k):
            return [{"x": np.array([next(collected)])}], None, None

        def close(self):
            """Nothing to stop."""

    monkeypatch.setattr(mod, "WorkerPool", Pool)
    monkeypatch.setattr(mod, "_probe_sizes", lambda game: ())
    monkeypatch.setattr(mod, "build_network", lambda kwargs: SimpleNamespace(state_dict=dict))
    monkeypatch.setattr(mod, "init_weights", lambda net, policy: None)
    config = SimpleNamespace(workers=1, game_config=lambda: None, network_kwargs=lambda *a: {})
    data = tmp_path / "data"
    data.mkdir()
    for k in (0, 2):                                    # a gap: batch_001 was removed
        np.savez(data / f"batch_{k:03d}.npz", x=np.array([k]))
    other = (data / "batch_002.npz").read_bytes()
    with monkeypatch.context() as m:                    # another run sharing the folder takes 003 meanwhile
        taken_before_write(m, data / "batch_003.npz", b"another run's")
        got = mod.collect(config, "p.pt", 4, 8, 0, data)
    assert [int(b["x"][0]) for b in got] == [0, 2, 100, 101]
    assert (data / "batch_002.npz").read_bytes() == other and (data / "batch_003.npz").read_bytes() == b"another run's"
    assert sorted(p.name for p in data.iterdir()) == [f"batch_{k:03d}.npz" for k in (0, 2, 3, 4, 5)]
    assert [int(np.load(data / f"batch_{k:03d}.npz")["x"][0]) for k in (4, 5)] == [100, 101]


def test_the_departure_fit_manifest_is_never_written_over_one_made_meanwhile(tmp_path, capsys, monkeypatch):
    """``bench/departure_fit.py --data``: a new folder's ``manifest.json`` is written only where
    none is, even one another run wrote after this one saw the name free (it used to be replaced,
    and the folder then held that run's rollouts under this run's manifest): the other's is kept
    and compared, as any manifest; one that is not this script's JSON is a one-line error."""
    import argparse
    import importlib.util
    import json
    from pathlib import Path

    from conftest import taken_before_write

    spec = importlib.util.spec_from_file_location("departure_fit",
                                                  Path(__file__).parent.parent / "bench" / "departure_fit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ap = argparse.ArgumentParser(prog="departure_fit")
    mine = dict(policy="p.pt", config="c.toml", steps=48, seed=0, workers=1)
    other = json.dumps(dict(mine, steps=64), indent=1).encode()
    data = tmp_path / "data"
    with monkeypatch.context() as m:
        taken_before_write(m, data / "manifest.json", other)
        with pytest.raises(SystemExit):
            mod.open_data(ap, argparse.Namespace(data=str(data), **mine))
    assert "collected with other steps (64, not 48)" in capsys.readouterr().err
    assert (data / "manifest.json").read_bytes() == other and sorted(os.listdir(data)) == ["manifest.json"]
    same = tmp_path / "same"
    with monkeypatch.context() as m:       # the other run's manifest is this one's: its rollouts are reused
        taken_before_write(m, same / "manifest.json", json.dumps(mine).encode())
        assert mod.open_data(ap, argparse.Namespace(data=str(same), **mine)) == same
    assert json.loads((same / "manifest.json").read_text()) == mine
    new = tmp_path / "new"
    assert mod.open_data(ap, argparse.Namespace(data=str(new), **mine)) == new
    assert json.loads((new / "manifest.json").read_text()) == mine and sorted(os.listdir(new)) == ["manifest.json"]
    (new / "manifest.json").write_text("[not this script's]")
    with pytest.raises(SystemExit):
        mod.open_data(ap, argparse.Namespace(data=str(new), **mine))
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[1].endswith("its manifest.json cannot be read as the JSON object this script writes "
                                             "(how the rollouts were collected); use another --data folder"), err


def test_the_update_threads_script_times_each_count_quiet_and_busy(capsys):
    """``bench/update_threads.py`` times the same update at each thread count and dtype, alone and beside a
    spinner."""
    import importlib.util
    from pathlib import Path

    import torch

    from training.precision import autocast_dtype

    spec = importlib.util.spec_from_file_location("update_threads",
                                                  Path(__file__).parent.parent / "bench" / "update_threads.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    threads = torch.get_num_threads()
    try:
        assert mod.main(["--steps", "64", "--threads", "1", "--busy", "1", "--repeats", "1"]) == 0
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    rows = [ln for ln in out.splitlines() if ln.startswith("| ") and "busy |" in ln]
    assert [r.split(" | ")[:3] for r in rows] == [["| 0 busy", "1", d] for d in ("float32", "bfloat16")] + \
        [["| 1 busy", "1", d] for d in ("float32", "bfloat16")]
    assert all(float(r.split(" | ")[k].rstrip(" |")) > 0 for r in rows for k in (4, 5, 6))   # s, GFLOP/s, GEMM
    import re
    gflop, per_step = map(float, re.search(r"([\d.]+) GFLOP an update \(([\d.]+) MFLOP a learner step\)",
                                           out).groups())
    assert per_step > 0 and gflop == pytest.approx(per_step * 1e6 * int(re.search(r"(\d+) learner steps", out)
                                                                          .group(1)) / 1e9, abs=0.06)
    with pytest.raises(SystemExit):
        mod.main(["--threads", "two"])
    assert mod.main(["--steps", "64", "--threads", "1", "--busy", "0", "--repeats", "1", "--dtypes",
                     " Auto"]) == 0
    chosen = "bfloat16" if autocast_dtype("auto") is not None else "float32"
    assert f"| 0 busy | 1 | auto ({chosen}) | " in capsys.readouterr().out
    with pytest.raises(SystemExit):
        mod.main(["--dtypes", "float32,half"])
    assert "--dtypes must be comma-separated names of auto, float32, bfloat16, got 'float32,half'" in \
        capsys.readouterr().err


def _policy_departures_module():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("policy_departures",
                                                  Path(__file__).parent.parent / "bench" / "policy_departures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("bonus", [1e3, -1e3])
def test_the_policy_departures_script_counts_where_the_policy_leaves_its_proposal(tmp_path, capsys, bonus):
    """``bench/policy_departures.py`` on a proposal-reading network whose bonus
    makes it always keep its proposal (+1e3: no departure, none right or false)
    or leave it wherever it can (-1e3: a departure at every decision with a
    choice); right departures are the teacher's own to the same action, false
    ones fall where the teacher kept the proposal, and the table adds up."""
    import torch

    from agents.networks import EntityNet
    from agents.policy import save_checkpoint
    from treachery_env.actions import ActionLayout
    from treachery_env.observation import obs_layout

    mod = _policy_departures_module()
    n = 5
    torch.manual_seed(0)
    net = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=16, entity=8, prior="heuristic")
    with torch.no_grad():
        net.prior_bonus.fill_(bonus)
    save_checkpoint(tmp_path / "p.pt", net, {"num_players": n})
    rows, record = mod.departures(str(tmp_path / "p.pt"), 2, seed=11, role=mod.Role.ASSASSIN, max_turns=6)
    assert rows and set(record) == {"Assassin"} and record["Assassin"][0] == 2
    assert all(r["role"] == "Assassin" for r in rows)
    if bonus > 0:
        assert not any(r["departs"] or r["right"] for r in rows)
        assert all(r["policy"] == r["proposal"] for r in rows)
    else:
        assert sum(r["departs"] for r in rows) > len(rows) // 2
    assert all(r["departs"] and r["teacher_departs"] for r in rows if r["right"])
    mod.main(["--policy", str(tmp_path / "p.pt"), "--games", "2", "--seed", "11", "--role", "assassin",
              "--max-turns", "6"])
    out = capsys.readouterr().out
    pd = sum(r["departs"] for r in rows)
    false = sum(r["departs"] and not r["teacher_departs"] for r in rows)
    assert f"| Assassin | 2 | {record['Assassin'][1]} | {len(rows)} | " in out
    assert f"| {pd} ({pd / len(rows):.1%}) | {sum(r['right'] for r in rows)} | {false} ({false / len(rows):.1%}) |" in out


def test_the_policy_departures_script_refuses_a_policy_without_a_proposal(tmp_path, capsys):
    """A network that reads no proposal has nothing to leave: one line, exit 2."""
    from agents.networks import PolicyNet
    from agents.policy import save_checkpoint
    from treachery_env.actions import ActionLayout
    from treachery_env.observation import obs_layout

    mod = _policy_departures_module()
    save_checkpoint(tmp_path / "flat.pt", PolicyNet(obs_layout(5).size, ActionLayout(5).size, 5, hidden=8),
                    {"num_players": 5})
    with pytest.raises(SystemExit) as stop:
        mod.main(["--policy", str(tmp_path / "flat.pt"), "--games", "1"])
    assert stop.value.code == 2
    assert "reads no proposal (model_kwargs['prior'] is not set): nothing to leave" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mod.main(["--policy", str(tmp_path / "missing.pt")])
    assert "is not a file" in capsys.readouterr().err


def test_the_advantage_fit_script_measures_realised_gain_and_fits_a_head(tmp_path, capsys):
    """``bench/advantage_fit.py``: ``realised`` takes each step's best-predicted candidate
    above a threshold and sums its true advantage per 1,000 searched steps; the
    reference rows count the policy's and the teacher's departures exactly; a run on
    a tiny network prints the tables and refuses bad options in one line."""
    import importlib.util
    from pathlib import Path

    import numpy as np

    from agents.networks import PolicyNet
    from treachery_env.actions import ActionLayout
    from treachery_env.observation import obs_layout

    spec = importlib.util.spec_from_file_location("advantage_fit",
                                                  Path(__file__).parent.parent / "bench" / "advantage_fit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    # three steps, candidates (step, pred, true advantage): step 0 has two, the best predicted is the 0.03 one
    step = np.array([0, 0, 1, 2])
    pred = np.array([0.05, 0.01, 0.015, -0.2])
    y = np.array([0.03, 0.5, -0.04, 0.9])
    rows = mod.realised(step, pred, y, 10, (-1.0, 0.0, 0.02, 0.1))
    assert [(r["taken"], r["won"], r["lost"]) for r in rows] == [(3, 2, 1), (2, 1, 1), (1, 1, 0), (0, 0, 0)]
    assert np.isclose(rows[0]["gain"], 1000 * (0.03 - 0.04 + 0.9) / 10)
    assert np.isclose(rows[2]["gain"], 1000 * 0.03 / 10) and rows[3]["gain"] == 0.0
    # steps: 0 searched (proposal 1 scored 0.0, action 2 scored 0.1); 1 searched (proposal 0 at 0.2, action 3 at
    # 0.1); 2 not searched (one score); 3 searched but the proposal not scored (so not counted)
    nan = np.nan
    sc = np.full((4, 5), nan, np.float32)
    sc[0, [1, 2]] = [0.0, 0.1]
    sc[1, [0, 3]] = [0.2, 0.1]
    sc[2, 4] = 0.3
    sc[3, [2, 3]] = [0.0, 0.5]
    batch = {"expert_scores": sc, "prior": np.array([1, 0, 4, 1]), "expert": np.array([2, 0, 4, 3])}
    assert mod.searched(batch).tolist() == [True, True, False, False]
    assert mod.teacher_row(batch) == {"taken": 1, "gain": 1000 * np.float32(0.1) / 2, "won": 1, "lost": 0}
    p = mod.policy_row(np.array([2, 3, 0, 2]), batch)        # departs at both searched steps, +0.1 and -0.1
    assert (p["taken"], p["won"], p["lost"], p["unscored"]) == (2, 1, 1, 0) and abs(p["gain"]) < 1e-6
    assert mod.policy_row(np.array([4, 0, 4, 1]), batch)["unscored"] == 1
    net, cfg = _tiny_expert_setup(tmp_path)
    args = ["--policy", str(tmp_path / "p.pt"), "--config", str(cfg), "--batches", "2", "--steps", "96",
            "--heldout", "1", "--workers", "1", "--data", str(tmp_path / "data"), "--epochs", "2", "--every", "1"]
    assert mod.main(args) == 0
    out = capsys.readouterr().out
    assert "| the teacher (in sample: an upper bound) |" in out and "| the policy, greedy (" in out
    assert "| decision kind | searched steps | departures | share of the gain |" in out
    assert "| 1 | " in out and "| 2 | " in out
    assert "by decision kind and by the own role" in out and "| group | threshold | taken |" in out
    ex = mod.examples(net, dict(np.load(tmp_path / "data" / "batch_000.npz")), 16)
    assert len(ex["y"]) > 0 and ex["x"].shape == (len(ex["y"]), 2 * 8 + 2 * 16)
    assert len(ex["step"]) == len(ex["act"]) == len(ex["y"])
    # the combat inputs: per candidate and proposal the features of the own creature it refers to and a flag,
    # then the table's features, the decision kind and the own role, read off the step's observation
    import torch

    from agents.combat import COMBAT_FEATURES, TABLE_FEATURES, combat_features
    from training.rollout import batch_observations
    b0 = dict(np.load(tmp_path / "data" / "batch_000.npz"))
    AL, k = ActionLayout(4), len(COMBAT_FEATURES)
    c = mod.gate_inputs(b0, ex["step"], ex["act"], 4)
    assert c.shape == (len(ex["y"]), 2 * (k + 1) + len(TABLE_FEATURES) + 18 + 4)
    own = (ex["act"] >= AL.PERM) & (ex["act"] < AL.PERM + 20)
    assert c[:, k].tolist() == own.astype(np.float32).tolist() and not c[~own, :k].any()
    e = int(ex["step"][0])
    slots, table = combat_features(batch_observations(b0, obs_layout(4).size).rows(torch.tensor([e])).dense(), 4)
    assert np.allclose(c[0, 2 * (k + 1):2 * (k + 1) + len(TABLE_FEATURES)], table[0].numpy())
    assert c[:, -22:-4].sum(1).tolist() == [1.0] * len(c) and c[:, -4:].sum(1).tolist() == [1.0] * len(c)
    kind, role = mod.step_groups(b0, ex["step"], 4)                       # the same kinds and roles, by step
    assert kind.tolist() == c[:, -22:-4].argmax(1).tolist() and role.tolist() == c[:, -4:].argmax(1).tolist()
    by_kind = mod.teacher_by_kind(b0, 4)
    assert sum(m for m, _, _ in by_kind.values()) == int(mod.searched(b0).sum())
    assert set(by_kind) <= {"priority", "attacker", "blocker"}             # the kinds the teacher searches
    shares = [x for _, _, x in by_kind.values()]
    assert sum(d for _, d, _ in by_kind.values()) == 0 or np.isclose(sum(shares), 1.0)
    from agents.candidates import GATE_FEATURES
    for features, width in (("combat", c.shape[1]), ("both", 2 * 8 + 2 * 16 + c.shape[1]),
                            ("action", GATE_FEATURES["action"])):
        assert mod.main(args + ["--features", features, "--epochs", "1"]) == 0
        assert f"({width} inputs), held out" in capsys.readouterr().out
    # --save: the policy with the fitted head as its advantage gate, which predicts what the bench printed
    from agents.policy import PolicyAgent
    saved = tmp_path / "gated.pt"
    assert mod.main(args + ["--features", "combat", "--save", str(saved), "--gate-threshold", "0.03"]) == 0
    assert f"threshold 0.03) written to {saved}" in capsys.readouterr().out
    bot = PolicyAgent(saved)
    assert bot.net.kwargs["gate"] == 128 and bot.net.gate_threshold == 0.03
    for k, v in net.state_dict().items():
        assert torch.equal(bot.net.state_dict()[k], v)                  # the policy's own weights unchanged
    o = batch_observations(b0, obs_layout(4).size).rows(torch.from_numpy(ex["step"][:5])).dense()
    pred = bot.net.advantages(o, torch.from_numpy(ex["act"][:5, None]),
                              torch.from_numpy(b0["prior"][ex["step"][:5]]))
    assert torch.allclose(pred[:, 0], bot.net.gate(torch.from_numpy(c[:5])).squeeze(-1) / 10)
    saved = tmp_path / "gated_action.pt"
    assert mod.main(args + ["--features", "action", "--epochs", "1", "--save", str(saved)]) == 0
    capsys.readouterr()
    assert PolicyAgent(saved).net.gate_features == "action"
    with pytest.raises(SystemExit):
        mod.main(args + ["--features", "both", "--save", str(tmp_path / "no.pt")])
    assert "it needs --features combat or action, got both" in capsys.readouterr().err
    for bad in (["--save", str(saved)], ["--save", str(tmp_path / "x.pt")]):     # exists; features not combat
        with pytest.raises(SystemExit):
            mod.main(args + bad + (["--features", "combat"] if bad[1] == str(saved) else []))
    flat = PolicyNet(obs_layout(4).size, ActionLayout(4).size, 4, hidden=16)
    with pytest.raises(ValueError, match="entity network"):
        mod.examples(flat, dict(np.load(tmp_path / "data" / "batch_000.npz")), 16)
    for bad in (["--epochs", "0"], ["--batches", "2", "--heldout", "2"], ["--thresholds", "nan"],
                ["--policy", str(cfg)], ["--features", "hands"], ["--steps", "64"]):
        with pytest.raises(SystemExit):
            mod.main(args + bad)
    assert "collected with other steps (96, not 64)" in capsys.readouterr().err


def _gate_run(folder, width: int, iterations: int = 12, seed: int = 0, with_step: bool = True,
              signal: int | None = None):
    """A gated run's kept examples, made up: ``y`` follows column ``signal`` (default: the first
    action column, the candidate is a pass) at a priority decision, so only the inputs holding
    that column can predict it."""
    import numpy as np

    from agents.candidates import GATE_FEATURES
    from treachery_env.engine.state import DecisionKind
    rng = np.random.default_rng(seed)
    (folder / "gate").mkdir(parents=True)
    kind0 = 2 * (13 + 1) + 6
    for it in range(1, iterations + 1):
        step = np.repeat(np.arange(300), 2)
        x = np.zeros((len(step), width), np.float32)
        x[:, :kind0] = rng.random((len(step), kind0))
        x[:, kind0 + DecisionKind.PRIORITY] = 1.0
        x[:, kind0 + DecisionKind.COUNT + 2] = 1.0                         # an Assassin
        passes = rng.random(len(step)) < 0.5                                  # the candidate is a pass
        if width > GATE_FEATURES["combat"]:
            x[:, GATE_FEATURES["combat"] if signal is None else signal] = passes
        y = (0.08 * passes - 0.04 + 0.005 * rng.standard_normal(len(step))).astype(np.float32)
        keep = {"x": x, "y": y, **({"step": step} if with_step else {})}
        np.savez(folder / "gate" / f"examples_{it:06d}.npz", **keep)


def test_the_gate_replay_compares_feature_sets_on_a_runs_examples(tmp_path, capsys):
    """``bench/gate_replay.py`` replays a gated run's fit on each feature set: where the advantage
    follows what the action is, the action set's held-out correlation and gain are far above the combat
    set's (which cannot see it); the groups are read off the combat columns; runs kept without
    ``step``, or narrower than a feature set, are refused in one line."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("gate_replay", Path(__file__).parent.parent / "bench" / "gate_replay.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import torch
    threads = torch.get_num_threads()
    try:
        _check_gate_replay(mod, tmp_path, capsys)
    finally:
        torch.set_num_threads(threads)                  # main() sets one thread, as a PolicyAgent does


def _check_gate_replay(mod, tmp_path, capsys) -> None:
    import numpy as np
    import torch

    from agents.candidates import GATE_FEATURES
    torch.set_num_threads(1)
    _gate_run(tmp_path / "run", GATE_FEATURES["action"])
    batches = mod.read_run(tmp_path / "run")
    assert [it for it, _ in batches] == list(range(1, 13))
    rows = {f: mod.replay(batches, f, 10, 32, 0.01, 0)[0] for f in ("combat", "action")}
    late = {f: np.mean([r["corr"] for r in rows[f][-4:]]) for f in rows}
    gain = {f: np.mean([r["gain"] for r in rows[f][-4:]]) for f in rows}
    assert late["action"] > 0.9 and abs(late["combat"]) < 0.3, late
    assert gain["action"] > 30 and gain["action"] > gain["combat"] + 20, gain  # +0.04 at half the 300 decisions
    assert mod.main([str(tmp_path / "run"), "--hidden", "32", "--first", "2", "--last", "4"]) == 0
    out = capsys.readouterr().out
    assert "| combat | 56 |" in out and f"| action | {GATE_FEATURES['action']} |" in out
    assert "| priority | 3,600 |" in out and "| assassin | 3,600 |" in out and "| attacker |" not in out
    assert mod.main([str(tmp_path / "run"), "--hidden", "32", "--features", "combat", "combat"]) == 0
    out = capsys.readouterr().out                       # each set once; --first and --last capped at 12
    assert out.count("| combat | 56 |") == 1 and "correlation, first 10 | last 12 |" in out
    (tmp_path / "run" / "config.json").write_text('{"gate": 16, "gate_threshold": 0.0, "gate_epochs": 2}')
    assert mod.main([str(tmp_path / "run"), "--features", "combat"]) == 0      # the run's own settings
    assert "threshold 0, 2 draws an example, width 16" in capsys.readouterr().out
    for bad, msg in ((["--threshold", "5"], "--threshold must be a number in [0, 2)"),
                     (["--threshold", "nan"], "--threshold must be a number in [0, 2)")):
        with pytest.raises(SystemExit):
            mod.main([str(tmp_path / "run"), "--features", "combat"] + bad)
        assert msg in capsys.readouterr().err
    (tmp_path / "run" / "config.json").write_text('{"gate": 16,')          # torn: not silently the defaults
    with pytest.raises(SystemExit):
        mod.main([str(tmp_path / "run"), "--features", "combat"])
    assert "config.json cannot be read" in capsys.readouterr().err
    (tmp_path / "run" / "config.json").unlink()
    # a run kept with every block, its advantage following a Leader column: every set is replayed by default,
    # and only the sets reading the Leader block predict it
    _gate_run(tmp_path / "all", GATE_FEATURES["all"], signal=GATE_FEATURES["action"] + 3)
    assert mod.main([str(tmp_path / "all"), "--hidden", "32", "--last", "4"]) == 0
    out = capsys.readouterr().out
    lines = {f: next(ln for ln in out.splitlines() if ln.startswith(f"| {f} | {GATE_FEATURES[f]} |"))
             for f in GATE_FEATURES}
    last_corr = {f: float(lines[f].split("|")[4]) for f in lines}
    assert min(last_corr["leader"], last_corr["all"]) > 0.9, last_corr
    assert max(abs(last_corr["combat"]), abs(last_corr["action"])) < 0.3, last_corr
    _gate_run(tmp_path / "old", GATE_FEATURES["action"], iterations=1, with_step=False)
    _gate_run(tmp_path / "narrow", GATE_FEATURES["combat"], iterations=1)
    _gate_run(tmp_path / "torn", GATE_FEATURES["action"], iterations=2)
    (tmp_path / "torn" / "gate" / "examples_000002.npz").write_bytes(b"torn")
    _gate_run(tmp_path / "mixed", GATE_FEATURES["action"], iterations=1)
    _gate_run(tmp_path / "mixed2", GATE_FEATURES["combat"], iterations=2)
    (tmp_path / "mixed2" / "gate" / "examples_000002.npz").rename(tmp_path / "mixed" / "gate" / "examples_000002.npz")
    _gate_run(tmp_path / "odd", 60, iterations=1)
    for run, extra, msg in (("narrow", ["--features", "combat", "action"],
                             "the 'action' inputs need the 'action' block, which the 'combat' inputs lack"),
                            ("odd", [], "examples of 60 inputs are of no feature set (combat: 56, action: 145")):
        with pytest.raises(SystemExit):
            mod.main([str(tmp_path / run)] + extra)
        assert msg in capsys.readouterr().err
    assert mod.main([str(tmp_path / "narrow")]) == 0                  # the set it holds
    assert "| combat | 56 |" in capsys.readouterr().out
    for run, msg in (("old", "no 'step' (kept before the examples named their decisions)"),
                     ("torn", "examples_000002.npz: the gate's examples cannot be read (not an .npz archive: torn"),
                     ("mixed", "examples_000002.npz: 56 inputs an example, the run's first file 145"),
                     ("none", "is not a directory")):
        with pytest.raises(SystemExit):
            mod.main([str(tmp_path / run)])
        assert msg in capsys.readouterr().err


def test_the_collect_instructions_script_collects_what_it_measures_and_refuses_bad_options(tmp_path, capsys):
    """``bench/collect_instructions.py``: its measured body (run here without valgrind) collects a
    worker's learner steps and says how many; bad options, and a ``--keep`` folder already holding
    its callgrind files (without ``--force``), are refused in one line before valgrind runs."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("collect_instructions",
                                                  Path(__file__).parent.parent / "bench" / "collect_instructions.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--child", "2", "--steps", "16", "--pool", "1"]) == 0
    steps = int(capsys.readouterr().out.split("child steps ")[1])
    assert steps >= 32
    for bad, said in ((["--steps", "0"], "--steps must be at least 1"), (["--warmup", "-1"], "--warmup must be at least 0"),
                      (["--policy", str(tmp_path / "none.pt")], "no such file")):
        with pytest.raises(SystemExit) as stop:
            mod.main(bad)
        assert stop.value.code == 2 and said in capsys.readouterr().err
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "callgrind.collect.measured").write_text("earlier")
    assert mod.main(["--keep", str(keep)]) == 2
    assert capsys.readouterr().err == (f"collect_instructions: {keep / 'callgrind.collect.measured'} exists "
                                       "(--force replaces it)\n")
    assert (keep / "callgrind.collect.measured").read_text() == "earlier"


@pytest.mark.parametrize("bad", ["inf", "nan", "0", "-1", "1e9", "ten"])
def test_every_benchmark_command_refuses_seconds_it_cannot_time_in_one_line(bad, capsys):
    """``--seconds`` of ``python -m treachery_env.benchmark``, ``python -m agents.benchmark`` and
    ``bench/aec_floor.py`` (one check, ``treachery_env.benchmark.seconds_per_row``): ``inf`` timed
    one row for ever (nothing refused it, or only ``<= 0``), ``nan`` and 0 timed nothing; each is one
    line on stderr, exit 2, before anything runs."""
    import importlib.util
    import sys
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("aec_floor", Path(__file__).parent.parent / "bench" / "aec_floor.py")
    floor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(floor)

    def aec_floor_main(argv):
        old = sys.argv
        sys.argv = ["aec_floor.py", *argv]
        try:
            floor.main()
        finally:
            sys.argv = old

    for main in (env_bench_main, agents_bench_main, aec_floor_main):
        with pytest.raises(SystemExit) as stop:
            main(["--seconds", bad])
        err = capsys.readouterr().err.strip().splitlines()
        assert stop.value.code == 2 and "argument --seconds:" in err[-1]
        assert ("is not a number of seconds" if bad == "ten" else "must be above 0 and at most 3600 seconds") in err[-1]
