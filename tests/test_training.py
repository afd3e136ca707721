"""Self-play PPO (issue 5): config, GAE, the policy bot, checkpoints, training, resume, CLI."""

from __future__ import annotations

import itertools
import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import agents
import treachery_env
from agents.policy import (PolicyAgent, PolicyNet, load_checkpoint, masked_logits, save_checkpoint)
from training import cli
from training.config import TrainConfig, load_config
from agents.networks import build_network
from training.ppo import (init_weights, latest_checkpoint, make_chunks, minibatch_bounds, pack_chunks,
                          ppo_update, train)
from training.precision import autocast_dtype
from training.rollout import Collector, batch_observations, compute_gae, legal_probs, sample_actions
from treachery_env import GameConfig
from treachery_env.env import raw_env

from conftest import write_policy

# a tiny, fast configuration: 4 seats, short games, a small network
TINY_GAME = {"num_players": 4, "commander": False, "starting_life": 8, "max_turns": 12}


def tiny(tmp_path, **kw) -> TrainConfig:
    base = dict(run_dir=str(tmp_path / "run"), seed=3, total_steps=1200, rollout_steps=300, games_per_worker=6,
                hidden=32, minibatch_steps=128, bptt=8, epochs=2, snapshot_every=1, checkpoint_every=2,
                pool_size=2, game=dict(TINY_GAME))
    base.update(kw)
    return TrainConfig(**base)


# --------------------------------------------------------------------------- pieces
def test_gae_matches_hand_computation():
    r = np.array([0.0, 0.0, 1.0], np.float32)
    v = np.array([0.5, 0.2, 0.4], np.float32)
    g, lam = 0.9, 0.8
    adv, ret = compute_gae(r, v, bootstrap=123.0, done=True, gamma=g, lam=lam)
    d2 = 1.0 - 0.4                       # terminal: no bootstrap
    d1 = 0.0 + g * 0.4 - 0.2
    d0 = 0.0 + g * 0.2 - 0.5
    a2 = d2
    a1 = d1 + g * lam * a2
    a0 = d0 + g * lam * a1
    np.testing.assert_allclose(adv, [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(ret, adv + v, rtol=1e-6)
    adv2, _ = compute_gae(r * 0, v, bootstrap=1.0, done=False, gamma=g, lam=lam)
    assert adv2[-1] == pytest.approx(g * 1.0 - 0.4)      # open segment: bootstrapped


def test_chunks_cover_every_step_once():
    segs = np.array([[0, 5], [5, 3], [8, 8]])
    ch = make_chunks(segs, 4)
    assert ch.shape == (5, 4)
    steps = ch[ch >= 0]
    assert sorted(steps.tolist()) == list(range(16))
    assert ch[1].tolist() == [4, -1, -1, -1]               # the tail of the first segment, padded


def test_packed_rows_hold_every_chunk_once_from_its_start():
    """``pack_chunks``: every step once, each chunk whole and in order from a
    ``starts`` mark, padding only at a row's end, full chunks alone in a row, and
    rows for the short ones no more than best-fit needs (here the optimum)."""
    rng = np.random.default_rng(0)
    lengths = [4, 1, 3, 2, 2, 4, 1, 1, 3, 2]
    segs = np.array([[sum(lengths[:i]), k] for i, k in enumerate(lengths)])
    ch = make_chunks(segs, 4)
    for seed in range(5):
        rows, starts = pack_chunks(ch, np.random.default_rng(seed))
        assert rows.dtype == np.int64 and starts.dtype == bool and rows.shape == starts.shape
        assert sorted(rows[rows >= 0].tolist()) == list(range(sum(lengths)))
        assert starts[:, 0].all() and not starts[rows < 0].any()
        assert len(rows) == -(-sum(lengths) // 4) == 6                  # 23 steps: 6 rows of 4, none wasted
        for r, st in zip(rows, starts):
            k = int((r >= 0).sum())
            assert np.all(r[k:] == -1)
            bounds = [*np.flatnonzero(st), k]
            pieces = [r[a:b].tolist() for a, b in zip(bounds, bounds[1:])]
            assert all(p in [c[c >= 0].tolist() for c in ch] for p in pieces)   # whole chunks, in order
    big = make_chunks(np.array([[0, 37], [37, 9], [46, 16], [62, 5]]), 16)
    rows, starts = pack_chunks(big, rng)
    assert len(rows) == 5 and starts.sum() == len(big)     # chunks 16, 16, 5 | 9 | 16 | 5: three full rows,
    assert sorted(int((r >= 0).sum()) for r in rows) == [5, 14, 16, 16, 16]   # 9 + 5 in one, 5 alone


def test_minibatches_split_an_epoch_evenly_with_no_small_last_one():
    """``minibatch_bounds``: every row once, in order, in ``round(rows / per)`` minibatches whose sizes
    differ by at most one row and lie within half a minibatch of ``per``.  The defect it mends: two
    workers' 4,151 decisions packed into 261 rows made minibatches of 64, 64, 64, 64 and **5** rows, an
    optimizer step on 5 rows (their advantages normalised among themselves) each epoch."""
    assert minibatch_bounds(261, 64).tolist() == [0, 65, 130, 195, 261]
    assert minibatch_bounds(256, 64).tolist() == [0, 64, 128, 192, 256]
    assert minibatch_bounds(0, 64).tolist() == [0]
    assert minibatch_bounds(5, 64).tolist() == [0, 5]                  # fewer rows than half: one minibatch
    for rows in range(1, 600):
        for per in (1, 2, 3, 7, 64, 100):
            b = minibatch_bounds(rows, per)
            sizes = np.diff(b)
            assert b[0] == 0 and b[-1] == rows and sizes.min() >= 1
            assert sizes.max() - sizes.min() <= 1
            assert len(sizes) == max(1, math.floor(rows / per + 0.5))
            if len(sizes) > 1:
                assert per / 2 <= sizes.min() and sizes.max() <= 1.5 * per


def test_packed_rows_give_each_step_what_one_chunk_a_row_gives(tmp_path):
    """The networks read packed rows (several chunks to a row, each from its stored
    state) as they read one chunk a row: the same logits, values and beliefs at every
    step, flat and entity."""
    from agents.networks import EntityNet
    for arch in ("flat", "entity"):
        cfg = tiny(tmp_path / arch, arch=arch, entity=16, bptt=8)
        col = Collector(cfg, seed=2)
        batch, _, _ = col.collect(120)
        net = col.net
        if isinstance(net, EntityNet):
            assert net.kwargs["arch"] == "entity"
        obs = batch_observations(batch, net.kwargs["obs_size"])
        t = {k: torch.from_numpy(v) for k, v in batch.items() if k != "segments" and not k.startswith("obs_")}
        ch = make_chunks(batch["segments"], 8)
        rows, starts = pack_chunks(ch, np.random.default_rng(1))
        assert len(rows) < len(ch)
        outs = {}
        for name, idx, st in (("chunks", ch, None), ("packed", rows, starts)):
            i = torch.from_numpy(idx).T
            f = i.clamp(min=0)
            h = t["h"][f] if st is not None else t["h"][f[0]]
            with torch.no_grad():
                lg, v, b, _ = net(obs.rows(f), h, t["priv"][f], mask=t["mask"][f], prior=t["prior"][f],
                                  starts=None if st is None else torch.from_numpy(st).T)
            valid = i >= 0
            order = torch.argsort(i[valid])
            outs[name] = [x[valid][order] for x in (lg, v, b)]
        for a, b in zip(outs["chunks"], outs["packed"]):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_the_update_runs_with_the_thread_count_measured_cheaper():
    """A warm-up and a first measurement with the fewer threads (never the slow choice
    beside a busy process), then the more, then the cheaper one, the other again for
    ``probe_len`` units after every ``probe_every``, and a change of load is followed."""
    from training.threads import ThreadChoice

    choice = ThreadChoice(2, probe_every=4, probe_len=2, warmup=1)
    load = {2: 1.0, 1: 1.5}                    # quiet: two threads are faster
    seen = []
    for unit in range(22):
        if unit == 12:
            load = {2: 4.0, 1: 1.6}            # another process takes a core
        n = choice.next()
        seen.append(n)
        choice.record(n, load[n])
    # warm-up, 1 twice, 2 twice, 2 x4, 1 x2 (the re-try: 2 stays cheaper, the interval doubles
    # to 8), 2 x2 (the second at the new load: its mean rises past 1's), 1 x6, 2 once (the
    # re-try, ended at once: 4.0 > 2 x 1.6; the interval doubles again), 1 x2
    assert seen == [1, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 2, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1]
    assert choice.best() == 1 and choice.cost(2) == 4.0 and choice.cost(1) == 1.6 and choice.interval == 16
    busy = ThreadChoice(2, probe_every=5, probe_len=4, warmup=1)     # beside a test suite: 2 threads 25x dearer
    seen = []
    for unit in range(60):
        n = busy.next()
        seen.append(n)
        busy.record(n, {2: 25.0, 1: 1.0}[n])
    # each try of 2 is one unit, and the re-tries come after 5, 10, 20, 40 units (at most 8 x 5)
    assert [i for i, n in enumerate(seen) if n == 2] == [5, 11, 22, 43] and busy.interval == 40
    assert ThreadChoice(1).next() == 1 and ThreadChoice(16).counts == [16, 8]
    with pytest.raises(ValueError, match="not one of"):
        choice.record(3, 1.0)
    with pytest.raises(ValueError, match="most >= 1"):
        ThreadChoice(0)
    with pytest.raises(ValueError, match="probe_len >= 1"):
        ThreadChoice(2, probe_len=0)
    with pytest.raises(ValueError, match="abort > 1"):
        ThreadChoice(2, abort=1.0)
    with pytest.raises(ValueError, match="size must be > 0"):
        choice.record(2, 1.0, 0)
    mean = ThreadChoice(2, probe_len=3, warmup=0)      # a cost is seconds over size, not a median
    for seconds in (1.0, 1.0, 7.0):
        assert mean.next() == 1
        mean.record(1, seconds, 2.0)
    assert mean.cost(1) == 1.5 and mean.cost(2) == math.inf


def test_an_update_re_tries_the_other_thread_count_for_a_few_minibatches_not_all():
    """``ppo_update`` asks the choice before every minibatch: on a machine where the
    more threads are ten times slower, each try of them is one minibatch of an update (the
    measurement ends once it costs more than twice the other), and the update reports the
    mean count (``update_threads``)."""
    from training.threads import ThreadChoice

    cfg = TrainConfig(games_per_worker=4, minibatch_steps=32, bptt=8, epochs=2, seed=0)
    col = Collector(cfg, seed=0)
    batch = col.collect(300)[0]
    opt = torch.optim.Adam(col.net.parameters(), lr=1e-4)
    before = torch.get_num_threads()          # (1 where the suite runs single-threaded; 2 and 1 work anywhere)
    choice = ThreadChoice(2, probe_every=5, probe_len=2, warmup=0)
    slow = max(choice.counts)
    record = choice.record
    counts, set_to = [], []

    def slower_with_more(threads, seconds, size):      # the more threads cost 10x, whatever the clock says
        counts.append(threads)
        set_to.append(torch.get_num_threads())
        assert seconds > 0 and size > 0
        record(threads, 10.0 if threads == slow else 1.0)

    choice.record = slower_with_more
    try:
        out = ppo_update(col.net, opt, batch, cfg, np.random.default_rng(0), threads=choice)
    finally:
        torch.set_num_threads(before)
    assert set_to == counts                                             # each minibatch ran with its count
    assert len(counts) > 12
    assert counts[:3] == [min(choice.counts)] * 2 + [slow]              # each measured, the fewer first
    runs = [len(list(g)) for c, g in itertools.groupby(counts[2:]) if c == slow]
    assert len(runs) >= 2 and all(r == 1 for r in runs)                 # tries: one minibatch each (10x > 2x)
    assert out["update_threads"] == pytest.approx(np.mean(counts))


def test_metrics_lines_are_strict_json_and_read_back_nan(tmp_path):
    """A metric not defined this iteration (NaN) is written ``null`` (strict JSON,
    readable by any parser), :func:`read_metrics` gives it back as NaN, and the
    lines a resume keeps are rewritten strict too."""
    from training.ppo import _log_iteration, _truncate_metrics, read_metrics

    path = tmp_path / "metrics.jsonl"
    for it in (1, 2):
        _log_iteration(tmp_path, None, {"iteration": it, "steps": 10 * it, "wall_s": 1.0, "games": 2,
                                        "departure_accuracy": float("nan"), "lr": np.float32(3e-4),
                                        "nested": {"a": [float("inf"), 1.5]}})

    def refuse(constant):
        raise AssertionError(f"{constant} is not JSON")

    for text in (path.read_text(), None):
        if text is None:
            _truncate_metrics(path, 1)                  # what a resume from iteration 1 keeps
            text = path.read_text()
        parsed = [json.loads(ln, parse_constant=refuse) for ln in text.splitlines()]
        assert parsed[0]["departure_accuracy"] is None and parsed[0]["nested"] == {"a": [None, 1.5]}
    assert [p["iteration"] for p in parsed] == [1]
    (row,) = read_metrics(path)
    assert math.isnan(row["departure_accuracy"]) and math.isnan(row["nested"]["a"][0])
    assert row["nested"]["a"][1] == 1.5 and row["lr"] == pytest.approx(3e-4) and row["iteration"] == 1


def test_masked_logits_give_illegal_actions_zero_probability():
    logits = torch.tensor([[5.0, 1.0, 3.0]])
    p = torch.softmax(masked_logits(logits, torch.tensor([[0, 1, 1]], dtype=torch.int8)), -1)
    assert p[0, 0] == 0.0 and p[0, 1:].sum() == pytest.approx(1.0)


def test_config_validation_names_the_field(tmp_path):
    with pytest.raises(ValueError, match="gamma"):
        TrainConfig(gamma=1.5)
    with pytest.raises(ValueError, match="opponents"):
        TrainConfig(opponents={"heuristic": -1})
    with pytest.raises(ValueError, match="opponents"):
        TrainConfig(opponents={"ismcts": 1.0})
    with pytest.raises(ValueError, match="unknown keys"):
        TrainConfig.from_dict({"learning_rat": 1e-3})
    with pytest.raises(ValueError, match="num_players"):
        TrainConfig(game={"num_players": 2})
    with pytest.raises(ValueError, match="minibatch_steps"):
        TrainConfig(minibatch_steps=4, bptt=8)
    with pytest.raises(ValueError, match="imitation"):
        TrainConfig(imitation=1.0)
    with pytest.raises(ValueError, match="imitation_coef"):
        TrainConfig(imitation_coef=-0.1)
    with pytest.raises(ValueError, match=r'expert = "human".*heuristic'):
        TrainConfig(expert="human")
    f = tmp_path / "c.toml"
    f.write_text('learning_rate = 1e-4\n[opponents]\nrandom = 0.5\n[game]\nnum_players = 6\n')
    c = load_config(f, ["epochs=7", "game.starting_life=30", 'lr_schedule="constant"'])
    assert c.learning_rate == 1e-4 and c.epochs == 7 and c.lr_schedule == "constant"
    assert c.game == {"num_players": 6, "starting_life": 30}
    assert c.opponents["random"] == 0.5 and c.opponents["heuristic"] == TrainConfig().opponents["heuristic"]
    bad = tmp_path / "bad.toml"
    bad.write_text("learning_rate = = 3")
    with pytest.raises(ValueError, match="not valid TOML"):
        load_config(bad)
    with pytest.raises(ValueError, match="key=value"):
        load_config(None, ["epochs"])
    with pytest.raises(ValueError, match="is a folder, not a TOML file"):
        load_config(tmp_path)
    # a setting of the advantage gate without a gate would be silently unused
    (tmp_path / "g.toml").write_text("gate_threshold = 0.05\n")
    with pytest.raises(ValueError, match=r"^train config: gate_threshold set but gate = 0 \(no advantage gate to use "
                                         r"it\); set gate > 0 or remove gate_threshold$"):
        load_config(tmp_path / "g.toml")
    with pytest.raises(ValueError, match="gate_epochs, gate_features set but gate = 0 .* use them"):
        load_config(None, ["gate_epochs=3", 'gate_features="leader"'])
    with pytest.raises(ValueError, match="gate_features = \"nope\" is invalid"):   # the bad value, before what
        TrainConfig(gate=128, gate_features="nope")                          # a gate needs besides
    gated = load_config(Path(__file__).parent.parent / "training" / "configs" / "advantage_gate.toml",
                        ['gate_features="all"'])
    assert gated.gate == 128 and gated.gate_features == "all"


def test_config_reads_bot_names_in_any_case_and_stores_one_spelling(tmp_path):
    """``expert = "Heuristic"`` and ``[opponents] Heuristic = 1`` were refused (exact case) where
    the CLI reads bot names in any case; they are read as the registry spells them, and the
    stored config (config.json, checkpoints) records the lower-case name."""
    c = TrainConfig(expert="Heuristic", opponents={"SELF": 0.5, "Heuristic": 0.3, "Flagship": 0.2, "pool": 0.1})
    assert c.expert == "heuristic"
    assert c.opponents == {"self": 0.5, "heuristic": 0.3, "flagship": 0.2, "pool": 0.1}
    assert json.loads(json.dumps(c.to_dict()))["opponents"] == c.opponents
    f = tmp_path / "c.toml"
    f.write_text('expert = "LookAhead"\n[opponents]\nBelief = 1.0\n')
    loaded = load_config(f, ["opponents.Random=0.5"])
    assert loaded.expert == "lookahead" and loaded.opponents["belief"] == 1.0 and loaded.opponents["random"] == 0.5
    assert "Belief" not in loaded.opponents and "Random" not in loaded.opponents
    with pytest.raises(ValueError, match=r'^train config: expert = "human" is invalid'):
        TrainConfig(expert="Human")                  # read in any case, still not an expert
    with pytest.raises(ValueError, match=r'"heuristic" and "Heuristic" name one kind: give it once$'):
        TrainConfig(opponents={"heuristic": 1.0, "Heuristic": 2.0})


def test_an_expert_that_cannot_play_as_given_is_refused_by_the_config(tmp_path, capsys):
    """``expert = "isolated"`` and ``"rllib"`` passed validation (the error for a bad expert listed
    them) and failed after the run began (they need ``NAME:ARGUMENT``); ``expert = "ismcts"`` (or
    ``lookahead``) in a Planechase, Vanguard or Archenemy game failed at its first decision, after
    config.json and tb/ were written; ``expert = "flagship"`` at a table it was not trained for, at
    its first label.  Each is refused in one line before anything is written, and the allowed list
    names only what works as given; an expert that labels nothing is not checked."""
    from training import cli

    for bad in ("isolated", "rllib", "policy"):
        with pytest.raises(ValueError, match=rf'^train config: expert = "{bad}" is invalid; allowed: one of') as err:
            TrainConfig(expert=bad)
        assert not any(f"'{name}'" in str(err.value) for name in ("isolated", "rllib", "policy", "human", "random"))
    for game, why in ((dict(TINY_GAME, planechase="single"), "without Planechase only"),
                      (dict(TINY_GAME, vanguard="random"), "without Vanguard cards only"),
                      (dict(TINY_GAME, archenemy="supervillain_rumble"), "without schemes only")):
        for bot in ("ismcts", "lookahead"):
            with pytest.raises(ValueError, match=rf'^train config: expert = "{bot}" cannot play this game: '
                                                 rf'the {bot} bot plays (games )?{why}'):
                TrainConfig(expert=bot, game=game)
        TrainConfig(expert="ismcts", game=game, imitation=0.0, imitation_coef=0.0)    # labels nothing
    run = tmp_path / "run"
    for sets in (["expert=isolated"], ["expert=rllib"], ["expert=ismcts", "game.planechase='single'"],
                 ["expert=flagship"]):
        argv = ["train", "--run-dir", str(run), "--no-progress", "--set", "game.num_players=4"]
        assert cli.main([*argv, *(x for s in sets for x in ("--set", s))]) == 2
        err = capsys.readouterr().err
        assert err.startswith("treachery train: error: train config: expert = ") and err.count("\n") == 1, err
        assert not run.exists()


def test_config_reads_the_prior_in_any_case_and_stores_one_spelling(tmp_path):
    """``prior = "Heuristic"`` was refused (exact case) where ``expert`` is read in any case: it is
    read as the registry spells it, in the constructor, a file and an override, and the stored
    config records the lower-case name; a bot that is not a prior is still refused."""
    c = TrainConfig(arch="entity", prior="Heuristic")
    assert c.prior == "heuristic" and json.loads(json.dumps(c.to_dict()))["prior"] == "heuristic"
    f = tmp_path / "c.toml"
    f.write_text('arch = "entity"\nprior = "HEURISTIC"\n')
    assert load_config(f).prior == "heuristic"
    assert load_config(None, ["arch=entity", "prior=HeUrIsTiC"]).prior == "heuristic"
    assert TrainConfig(arch="entity").prior == ""
    with pytest.raises(ValueError, match=r'^train config: prior = "belief" is invalid'):
        TrainConfig(arch="entity", prior="Belief")                # read in any case, still not a prior


def test_config_reads_keyword_fields_in_any_case_and_stores_them_in_lower_case(tmp_path):
    """``arch = "Entity"`` was refused while bot names are read in any case: the keyword fields
    (``arch``, ``lr_schedule``, ``anchor_schedule``, ``gate_features``) are read in any case, in the
    constructor, a file and an override, and stored in lower case; an unknown one is still refused."""
    c = TrainConfig(arch="Entity", lr_schedule="CONSTANT", anchor_schedule="Linear")
    assert (c.arch, c.lr_schedule, c.anchor_schedule) == ("entity", "constant", "linear")
    assert json.loads(json.dumps(c.to_dict()))["arch"] == "entity"
    f = tmp_path / "c.toml"
    f.write_text('arch = "ENTITY"\nprior = "heuristic"\ngate = 8\nexpert = "lookahead"\ngate_features = "Leader"\n')
    assert (load_config(f).arch, load_config(f).gate_features) == ("entity", "leader")
    assert load_config(None, ["arch=Flat"]).arch == "flat"
    with pytest.raises(ValueError, match=r'^train config: arch = "conv" is invalid'):
        TrainConfig(arch="Conv")


# --------------------------------------------------------------------------- rollouts
def test_rollout_batch_is_consistent_and_labels_never_enter_the_inputs(tmp_path):
    cfg = tiny(tmp_path, opponents={"self": 1, "heuristic": 1, "random": 1})
    col = Collector(cfg, seed=5)
    batch, games, info = col.collect(200)
    n = len(batch["action"])
    assert n >= 200 and info["learner_steps"] == n and info["decisions"] >= n
    assert batch["segments"][:, 1].sum() == n
    starts = batch["segments"][:, 0]
    assert starts[0] == 0 and np.all(np.diff(starts) == batch["segments"][:-1, 1])
    # every action was legal under its own mask
    assert np.all(batch["mask"][np.arange(n), batch["action"]] == 1)
    assert np.all(np.isfinite(batch["adv"])) and np.all(np.abs(batch["ret"]) <= 1.0 + 1e-5)
    labels = batch["belief_label"]
    assert labels.shape == (n, 3) and labels.min() >= -1 and labels.max() <= 3 and (labels >= 0).any()
    for g in games:
        assert g.kind in ("self", "heuristic", "random")
        assert all(r in (-1.0, 0.0, 1.0) for _, r in g.seats)
    # the stored input is exactly the seat's observation vector, which has no hidden roles
    size = raw_env(config=cfg.game_config()).observation_space("player_0")["observation"].shape[0]
    dense = batch_observations(batch, size).dense()
    assert dense.shape == (n, size) and len(batch["obs_cols"]) == len(batch["obs_vals"]) == batch["obs_nnz"].sum()
    assert np.all(batch["obs_vals"] != 0) and batch["obs_cols"].max() < size


def test_sampled_actions_follow_the_probabilities_and_never_take_an_impossible_one():
    """``sample_actions`` (the rollouts' draw): rows that need not sum to 1, zeros at the
    ends and inside; 200,000 draws a row land within 4 standard errors of each share."""
    probs = torch.tensor([[0.0, 0.2, 0.0, 0.5, 0.3, 0.0],
                          [0.7, 0.0, 0.0, 0.0, 0.0, 0.0],
                          [0.0, 0.0, 0.0, 0.0, 0.0, 3e-8],
                          [1e-3, 2e-3, 0.0, 0.0, 0.0, 4e-3]])       # sums 1, 0.7, 3e-8, 7e-3
    gen = torch.Generator().manual_seed(3)
    draws = 200_000
    counts = np.zeros(probs.shape)
    for _ in range(20):
        a = sample_actions(probs.repeat_interleave(draws // 20, 0), gen).view(4, -1)
        assert a.dtype == torch.int64
        for r in range(4):
            counts[r] += np.bincount(a[r].numpy(), minlength=probs.shape[1])
    assert np.all(counts[probs.numpy() == 0] == 0)
    p = (probs / probs.sum(-1, keepdim=True)).numpy()
    se = np.sqrt(p * (1 - p) / draws)
    assert np.all(np.abs(counts / draws - p) <= 4 * se + 1e-12), counts / draws


def test_legal_probs_are_the_exponential_of_the_masked_log_probabilities():
    """``legal_probs`` (what the rollouts sample from) equals ``logp.exp()`` bit for bit: legal
    log-probabilities over the float range (ordinary, denormal and underflowing exponentials),
    rows with one legal action, the masked actions' ~-1e9 giving 0."""
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(64, 287, generator=g) * torch.tensor([1.0, 30.0, 300.0, 3000.0]).repeat(16)[:, None]
    legal = torch.rand(64, 287, generator=g) < 0.1
    legal[::7] = False
    legal[::7, 5] = True                                             # one legal action
    legal[:, 0] = True
    logp = torch.log_softmax(masked_logits(logits, legal), -1)
    assert logp[legal].min() < -110                                  # exponentials that underflow to 0
    assert torch.equal(legal_probs(logp, legal), logp.exp())


def test_a_shipped_model_fills_the_opponents_seats(tmp_path, recwarn):
    """``opponents = {flagship = 1}`` (issue #14): the greedy shipped policy plays every seat the
    learner does not hold; a table it was not trained for is refused before a run folder is made."""
    cfg = tiny(tmp_path, opponents={"flagship": 1.0}, games_per_worker=2, game=dict(TINY_GAME, num_players=5))
    col = Collector(cfg, seed=2)
    batch, games, _ = col.collect(300)
    assert games and {g.kind for g in games} == {"flagship"}
    assert all(len(g.seats) < 5 for g in games)          # the learner never holds the whole table
    assert np.all(batch["mask"][np.arange(len(batch["action"])), batch["action"]] == 1)
    with pytest.raises(ValueError, match=r"'flagship' was trained for 5-player tables"):
        train(tiny(tmp_path, opponents={"flagship": 1.0}), progress=False)
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match=r"or the shipped models \[.*'flagship'"):
        TrainConfig(opponents={"flagshp": 1.0})


def test_expert_labels_are_the_experts_legal_actions(tmp_path):
    """DAgger labels: the expert's own choice at each learner decision, on the learner's states.
    An expert that does not search (the heuristic) sends no ``expert_scores``: an (N, A) array
    of NaN would be 2.3 MB a 2,048-step batch carried from each worker for nothing."""
    cfg = tiny(tmp_path, imitation=0.5, opponents={"self": 1, "random": 1})
    assert not cfg.expert_searches and TrainConfig(expert="lookahead").expert_searches
    col = Collector(cfg, seed=4)
    batch, _, _ = col.collect(200, label_expert=True)
    assert "expert_scores" not in batch
    n = len(batch["action"])
    assert batch["expert"].shape == (n,) and batch["expert"].min() >= 0
    assert np.all(batch["mask"][np.arange(n), batch["expert"]] == 1)
    # the learner (an untrained network) acts on its own: it often disagrees with the expert
    assert 0 < np.mean(batch["action"] == batch["expert"]) < 1
    plain, _, _ = col.collect(100)
    assert np.all(plain["expert"] == -1)


def test_imitation_updates_learn_the_expert(tmp_path):
    cfg = tiny(tmp_path, imitation=0.5, epochs=1, learning_rate=1e-3)
    torch.manual_seed(0)
    col = Collector(cfg, seed=1)
    batch, _, _ = col.collect(400, label_expert=True)
    opt = torch.optim.Adam(col.net.parameters(), lr=cfg.learning_rate)
    rng = np.random.default_rng(0)
    hist = [ppo_update(col.net, opt, batch, cfg, rng, imitate=True) for _ in range(30)]
    assert hist[-1]["imitation_loss"] < 0.6 * hist[0]["imitation_loss"]
    assert hist[-1]["imitation_accuracy"] > hist[0]["imitation_accuracy"] + 0.2
    with pytest.raises(ValueError, match="expert labels"):
        ppo_update(col.net, opt, col.collect(50)[0], cfg, rng, imitate=True)


def test_ppo_with_an_imitation_anchor_moves_towards_the_expert(tmp_path):
    cfg = tiny(tmp_path, imitation=0.0, imitation_coef=2.0, epochs=1, target_kl=0.0, learning_rate=1e-3)
    torch.manual_seed(0)
    col = Collector(cfg, seed=1)
    batch, _, _ = col.collect(400, label_expert=True)
    opt = torch.optim.Adam(col.net.parameters(), lr=cfg.learning_rate)
    rng = np.random.default_rng(0)
    hist = [ppo_update(col.net, opt, batch, cfg, rng) for _ in range(30)]
    assert hist[-1]["imitation_loss"] < 0.7 * hist[0]["imitation_loss"]
    assert hist[-1]["imitation_accuracy"] > hist[0]["imitation_accuracy"]


def test_pool_policies_leave_only_when_their_games_end(tmp_path):
    """A frozen policy evicted from the pool keeps playing the games it was drawn
    for (regression: the flagship run crashed with KeyError when the pool rolled)."""
    cfg = tiny(tmp_path, opponents={"pool": 1.0})
    col = Collector(cfg, seed=2)
    state = col.net.state_dict()
    col.update_pool({1: state})
    for _ in range(30):          # the first games (no pool yet) were self-play; wait for pool games
        col.collect(60)
        if any(isinstance(c, tuple) and c[1] == 1 for slot in col.slots for c in slot.ctrl):
            break
    assert any(isinstance(c, tuple) and c[1] == 1 for slot in col.slots for c in slot.ctrl)
    col.update_pool({1: None, 2: state})      # evict 1 while its games are in progress
    for _ in range(30):
        col.collect(60)
        ids = {c[1] for slot in col.slots for c in slot.ctrl if isinstance(c, tuple)}
        assert ids <= set(col.pool)
        if 1 not in ids:
            break
    assert 1 not in col.pool and col.retired == set() and 2 in col.pool   # dropped once its games ended


def test_collector_is_deterministic(tmp_path):
    cfg = tiny(tmp_path)
    c1, c2 = Collector(cfg, seed=9), Collector(cfg, seed=9)
    c2.set_weights(c1.net.state_dict())
    a, _, _ = c1.collect(150)
    b, _, _ = c2.collect(150)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


@pytest.mark.parametrize("privileged", [False, True])
def test_collect_samples_what_the_forward_pass_would(tmp_path, monkeypatch, privileged):
    """The collector's inference step (the flat network's ``step``, reading the weights directly)
    gives the batch that the forward pass gives, array for array: the same sampled actions,
    log-probabilities, values and states, with expert labels, pool networks (made in the
    collector), new weights set between collects and (with the privileged critic) a KL reference
    policy's probabilities; the privileged inputs only for a network whose critic reads them
    (``priv`` is ``(N, 0)`` otherwise)."""
    kl = dict(kl_policy=str(write_policy(tmp_path / "ref.pt", 4, hidden=32, seed=2)), kl_coef=0.1) \
        if privileged else {}
    cfg = tiny(tmp_path, opponents={"pool": 2, "heuristic": 1}, privileged_critic=privileged, **kl)

    def forward_step(net, obs, h0, mask=None, privileged=None, prior=None):
        logits, value, _, h = net(obs, h0, privileged, mask=mask, prior=prior)
        return (logits if mask is None else masked_logits(logits, mask)), value, h

    torch.manual_seed(5)
    kw = Collector(cfg, seed=4).net_kwargs
    states = [build_network(kw).state_dict() for _ in range(4)]

    def run() -> list:
        col = Collector(cfg, seed=4)
        col.update_pool({1: states[0], 2: states[1]})
        out = []
        kinds = set()
        for state in states[2:]:
            col.set_weights(state)                                            # new weights every collect
            batch, games, _ = col.collect(150, label_expert=True)
            out.append(batch)
            kinds |= {g.kind for g in games} | {slot.kind for slot in col.slots}
        assert "pool" in kinds
        return out

    fused = run()
    monkeypatch.setattr(PolicyNet, "step", forward_step)
    reference = run()
    for a, b in zip(fused, reference):
        assert a.keys() == b.keys()
        for k in a:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        assert a["priv"].shape == (len(a["action"]), 16 if privileged else 0)
        assert ("ref_probs" in a) == privileged


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_ppo_updates_fit_a_fixed_batch(tmp_path, dtype):
    # 30 turns and 1200 steps: the batch holds finished games, so the value targets carry the +-1 rewards;
    # in either dtype of the update's products (training.precision)
    cfg = tiny(tmp_path, epochs=1, target_kl=0.0, ent_coef=0.0, learning_rate=1e-3, update_dtype=dtype,
               game=dict(TINY_GAME, max_turns=30))
    torch.manual_seed(0)
    col = Collector(cfg, seed=1)
    batch, _, _ = col.collect(1200)
    assert np.abs(np.asarray(batch["ret"])).max() > 0.5
    net = col.net
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    rng = np.random.default_rng(0)
    hist = [ppo_update(net, opt, batch, cfg, rng) for _ in range(12)]
    for k in ("value_loss", "belief_loss"):
        assert hist[-1][k] < 0.7 * hist[0][k], (k, hist[0][k], hist[-1][k])
    assert hist[-1]["approx_kl"] > 0     # the policy moved away from the behaviour policy


# --------------------------------------------------------------------------- training
@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny run of a few thousand steps (shared by the tests below)."""
    d = tmp_path_factory.mktemp("train")
    cfg = tiny(d, total_steps=4000, rollout_steps=500, checkpoint_every=3, keep_checkpoints=2, imitation=0.25,
               opponents={"self": 1, "heuristic": 1, "random": 1})
    import agents.policy

    threads = torch.get_num_threads()
    most = agents.policy.torch_threads()                # the update's most (a PolicyAgent's one thread aside)
    res = train(cfg, progress=False)
    assert torch.get_num_threads() == threads           # the update's choice does not outlive the run
    res["torch_threads"] = most
    return cfg, res


def test_a_policy_agent_made_before_does_not_leave_training_on_one_thread(tmp_path, monkeypatch):
    """A PolicyAgent sets this process's torch to one thread (one decision at a time); a run
    started after one (a notebook that played or evaluated a policy, then trains) still chooses
    its update's threads among the count from before it, and gives back the count it found; a
    count set since by anyone stands."""
    import agents.policy as P
    import training.ppo
    from training.threads import ThreadChoice

    before = torch.get_num_threads()
    monkeypatch.setattr(P, "_THREADS_BEFORE", None)
    seen = []
    monkeypatch.setattr(training.ppo, "ThreadChoice", lambda most, **kw: seen.append(most) or ThreadChoice(most, **kw))
    try:
        torch.set_num_threads(2)
        write_policy(tmp_path / "p.pt", 4)
        P.PolicyAgent(tmp_path / "p.pt")
        assert torch.get_num_threads() == 1 and P.torch_threads() == 2
        train(tiny(tmp_path, total_steps=300, rollout_steps=300), progress=False)
        assert seen == [2] and torch.get_num_threads() == 1          # chose among 2 and 1; gave back 1
        torch.set_num_threads(3)
        assert P.torch_threads() == 3                                # a count set since stands
    finally:
        torch.set_num_threads(before)


def test_training_reduces_the_losses(trained):
    cfg, res = trained
    h = res["history"]
    assert res["steps"] >= cfg.total_steps and len(h) == res["iterations"] >= 8
    first, last = h[:2], h[-3:]
    mean = lambda rows, k: float(np.mean([r[k] for r in rows]))   # noqa: E731
    # the supervised part of the loss (role prediction) falls as the network learns from new games
    assert mean(last, "belief_loss") < mean(first, "belief_loss") - 0.05
    assert mean(last, "belief_accuracy") > mean(first, "belief_accuracy")
    assert all(math.isfinite(r["policy_loss"]) and r["entropy"] > 0 for r in h)
    assert {"perf/agent_steps_per_s", "approx_kl", "explained_variance", "belief_accuracy"} <= set(h[-1])


def test_imitation_phase_then_ppo(trained):
    """The first ``imitation`` fraction of the steps imitates the expert, then PPO takes over
    (anchored to the expert by ``imitation_coef``)."""
    cfg, res = trained
    h = res["history"]
    phase = [r["imitating"] for r in h]
    assert phase == sorted(phase, reverse=True) and phase[0] == 1.0 and phase[-1] == 0.0
    for i, r in enumerate(h):
        before = h[i - 1]["steps"] if i else 0          # learner steps when the iteration began
        assert r["imitating"] == float(before / cfg.total_steps < cfg.imitation)
        # the experts keep labelling after the phase: the loss keeps imitation_coef x the cross-entropy
        assert 0 <= r["imitation_accuracy"] <= 1 and r["imitation_loss"] > 0


def test_run_files_logs_and_checkpoint_rotation(trained):
    cfg, res = trained
    run = cfg.run_dir
    import os
    names = sorted(os.listdir(run))
    ckpts = [n for n in names if n.startswith("ckpt_")]
    assert len(ckpts) == 2 and "policy.pt" in names and "config.json" in names
    assert not [n for n in names if n.endswith(".tmp")]           # atomic writes leave no temporaries
    assert json.loads(open(f"{run}/config.json").read())["total_steps"] == cfg.total_steps
    lines = [json.loads(ln) for ln in open(f"{run}/metrics.jsonl")]
    assert [ln["iteration"] for ln in lines] == list(range(1, res["iterations"] + 1))
    assert any(k.startswith("winrate/heuristic/") for ln in lines for k in ln)
    assert all(1 <= ln["perf/update_threads"] <= res["torch_threads"] for ln in lines)
    low = autocast_dtype(cfg.update_dtype) is not None                  # the dtype this machine's "auto" gives
    assert all(ln["perf/update_bfloat16"] == float(low) for ln in lines)
    assert any(f.startswith("events.out.tfevents") for f in os.listdir(f"{run}/tb"))
    assert str(latest_checkpoint(run)).endswith(f"ckpt_{res['iterations']:06d}.pt")


def test_checkpoint_round_trip_gives_the_same_actions(trained):
    cfg, res = trained
    payload = load_checkpoint(res["checkpoint"])
    bare = load_checkpoint(res["policy"])
    for k, v in payload["model_state"].items():
        assert torch.equal(v, bare["model_state"][k])
    assert payload["train_config"] == {**cfg.to_dict(), "run_id": payload["train_config"]["run_id"]}    # its own id
    assert "training_state" in payload and "training_state" not in bare
    net = payload["net"].eval()
    # replay a game: the reloaded bot and the in-memory network choose the same actions
    bot = PolicyAgent(res["policy"], seed=0, greedy=True)
    env = raw_env(config=GameConfig(**TINY_GAME))
    env.reset(seed=11)
    bot.reset(0)
    h = net.initial_state(1)
    checked = 0
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if name == "player_0":
            with torch.no_grad():
                logits, _, _, h = net(torch.from_numpy(obs["observation"])[None], h)
            want = int(torch.argmax(masked_logits(logits, torch.from_numpy(obs["action_mask"])[None])))
            got = bot.act(obs, {})          # the bot needs no view: observation vector and mask only
            assert got == want
            checked += 1
            env.step(got)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert checked > 5


def test_resume_continues_the_same_run(trained, tmp_path):
    cfg, res = trained
    import shutil
    run = tmp_path / "resumed"
    shutil.copytree(cfg.run_dir, run)
    c2 = TrainConfig.from_dict({**cfg.to_dict(), "run_dir": str(run), "total_steps": cfg.total_steps + 1000})
    with pytest.raises(ValueError, match="already holds a run"):
        train(c2, progress=False, log=False)
    before = load_checkpoint(latest_checkpoint(run))["training_state"]
    out = train(c2, resume=True, progress=False, log=False)
    assert out["history"][0]["iteration"] == before["iteration"] + 1
    assert out["steps"] >= cfg.total_steps + 1000
    after = load_checkpoint(out["checkpoint"])["training_state"]
    assert after["iteration"] == out["iterations"] > before["iteration"]
    # the opponent pool was restored (full from the first resumed iteration) and kept rolling
    assert len(before["pool"]) == cfg.pool_size and out["history"][0]["pool/size"] == cfg.pool_size
    assert sorted(int(k) for k in after["pool"]) == [after["iteration"] - 1, after["iteration"]]
    adam_steps = lambda st: max(int(s["step"]) for s in st["optimizer"]["state"].values())   # noqa: E731
    assert adam_steps(after) > adam_steps(before)                 # the optimizer state carried on
    lines = [json.loads(ln)["iteration"] for ln in open(run / "metrics.jsonl")]
    assert lines == list(range(1, out["iterations"] + 1))
    with pytest.raises(ValueError, match="^run folder .* does not exist$"):
        train(TrainConfig.from_dict({**c2.to_dict(), "run_dir": str(tmp_path / "empty")}), resume=True,
              progress=False, log=False)


def test_cli_resume_keeps_the_runs_own_budget_and_config(trained, tmp_path, capsys):
    """``treachery train --resume`` continues with the checkpoint's config: without
    ``--steps`` a finished run stays finished, and says there is nothing to
    train (regression: it fell back to the default 2M steps and went back
    into the imitation phase)."""
    cfg, res = trained
    import shutil
    run = tmp_path / "r"
    shutil.copytree(cfg.run_dir, run)
    assert cli.main(["train", "--run-dir", str(run), "--resume", "--no-progress"]) == 2
    assert "nothing to train" in capsys.readouterr().err
    assert json.loads((run / "config.json").read_text())["total_steps"] == cfg.total_steps
    assert len((run / "metrics.jsonl").read_text().splitlines()) == res["iterations"]     # nothing more to do
    assert cli.main(["train", "--resume", str(latest_checkpoint(run)), "--steps", str(cfg.total_steps + 500),
                     "--no-progress"]) == 0                                             # the checkpoint's folder
    rows = [json.loads(ln) for ln in (run / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) > res["iterations"] and not rows[-1]["imitating"]
    assert json.loads((run / "config.json").read_text())["learning_rate"] == cfg.learning_rate
    capsys.readouterr()
    assert cli.main(["train", "--run-dir", str(run), "--resume", "--set", "learning_rate=1e-5"]) == 2
    assert "cannot change" in capsys.readouterr().err
    assert cli.main(["train", "--run-dir", str(tmp_path / "none"), "--resume"]) == 2
    assert cli.main(["train", "--steps", "10", "--eval-workers", "0", "--evaluate", "4"]) == 2


def test_two_worker_processes(tmp_path):
    cfg = tiny(tmp_path, workers=2, total_steps=400, rollout_steps=200)
    res = train(cfg, progress=False, log=False)
    assert res["steps"] >= 400 and res["iterations"] == 2


# --------------------------------------------------------------------------- deterministic runs
def _numbers(run_dir) -> list[dict]:
    """A run's metrics.jsonl rows without what the clock measures (``wall_s``, the ``perf/``
    timings); the update's thread count and dtype stay."""
    rows = [json.loads(ln) for ln in (Path(run_dir) / "metrics.jsonl").read_text().splitlines()]
    kept = ("perf/update_threads", "perf/update_bfloat16")
    return [{k: v for k, v in r.items() if k != "wall_s" and (not k.startswith("perf/") or k in kept)} for r in rows]


def _weights(policy) -> dict:
    return load_checkpoint(policy)["model_state"]


def _same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("workers", [1, 2])
def test_deterministic_runs_of_one_seed_write_the_same_numbers_and_weights(tmp_path, monkeypatch, workers):
    """Same-seed runs parted where a timing chose for them: ``update_dtype = "auto"`` timed bfloat16
    (0.79 times float32's speed beside another run: float32) and the update's threads were the
    cheaper count measured minibatch by minibatch.  Here the timing differs between two runs as
    load would make it (2.0, then 0.79), and they part; with ``deterministic`` nothing is timed (the
    timings raise if asked), the update runs on one thread (``OMP_NUM_THREADS`` unset) and takes bfloat16
    by the CPU's own support, and the two runs write the same metrics.jsonl, but for ``wall_s``
    and the ``perf/`` timings, and the same weights, with one worker or two."""
    import training.ppo
    import training.precision as precision

    timings = iter([2.0, 0.79])
    monkeypatch.setattr(precision, "bfloat16_speedup", lambda: next(timings))
    # two iterations: one imitating, one PPO, whose new games may draw the first's snapshot (pool)
    kw = dict(total_steps=400, rollout_steps=200, workers=workers, opponents={"self": 1, "heuristic": 1, "pool": 1})
    if workers == 1:        # what the mode mends: the same seed in two dtypes, by the timing
        timed = [train(tiny(tmp_path / f"timed{i}", **kw), progress=False, log=False) for i in range(2)]
        assert [r["perf/update_bfloat16"] for r in _numbers(tmp_path / "timed0" / "run")] == [1.0] * 2
        assert [r["perf/update_bfloat16"] for r in _numbers(tmp_path / "timed1" / "run")] == [0.0] * 2
        assert not _same_weights(*(_weights(r["policy"]) for r in timed))

    def timed_again():
        raise AssertionError("a deterministic run timed something")

    monkeypatch.setattr(precision, "bfloat16_speedup", timed_again)
    monkeypatch.setattr(training.ppo, "ThreadChoice", lambda *a, **k: timed_again())
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    most = 1
    runs = [train(tiny(tmp_path / f"det{i}", deterministic=True, **kw), progress=False, log=False) for i in range(2)]
    first, second = (_numbers(tmp_path / f"det{i}" / "run") for i in range(2))
    assert len(first) == 2 and first == second and [r["imitating"] for r in first] == [1.0, 0.0]
    assert [r["perf/update_threads"] for r in first] == [most] * 2
    assert {r["perf/update_bfloat16"] for r in first} == {float(precision.native_bfloat16())}
    assert _same_weights(*(_weights(r["policy"]) for r in runs))
    state = load_checkpoint(runs[0]["checkpoint"])["training_state"]
    assert (state["update_threads"], state["bfloat16_speedup"]) == (most, None)
    assert state["update_dtype"] == ("bfloat16" if precision.native_bfloat16() else "float32")


def test_a_deterministic_run_does_not_depend_on_the_threads_it_starts_with(tmp_path, monkeypatch):
    """A fresh user's trial found deterministic runs with ``OMP_NUM_THREADS=1`` and without it (the
    same one update thread) parting from the first update: the network's orthogonal initialisation
    (a QR decomposition) rounds by the thread count it runs on.  A deterministic run initialises on
    one thread, so runs started with one or two torch threads write the same numbers and weights."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = torch.get_num_threads()
    runs = []
    try:
        for i, n in enumerate((1, 2)):
            torch.set_num_threads(n)
            runs.append(train(tiny(tmp_path / f"t{i}", total_steps=200, rollout_steps=200, deterministic=True),
                              progress=False, log=False))
            assert torch.get_num_threads() == n          # given back
    finally:
        torch.set_num_threads(before)
    assert _numbers(tmp_path / "t0" / "run") == _numbers(tmp_path / "t1" / "run")
    assert _same_weights(*(_weights(r["policy"]) for r in runs))


def test_deterministic_is_true_or_false_and_the_cli_flag_sets_it(tmp_path, capsys):
    assert TrainConfig(run_dir=str(tmp_path)).deterministic is False
    for bad, shown in (("yes", '"yes"'), (1, "1")):
        with pytest.raises(ValueError, match=rf"^train config: deterministic = {shown} is invalid; allowed: true or "
                                             rf"false$"):
            TrainConfig(run_dir=str(tmp_path), deterministic=bad)
    assert load_config(None, ["deterministic=true"]).deterministic is True
    assert cli.main(["train", "--run-dir", str(tmp_path / "x"), "--set", "deterministic=1"]) == 2
    err = capsys.readouterr().err
    assert err == "treachery train: error: train config: deterministic = 1 is invalid; allowed: true or false\n"
    run = tmp_path / "flag"
    assert cli.main(["train", "--run-dir", str(run), "--deterministic", "--steps", "200", "--no-progress",
                     "--set", "rollout_steps=200", "--set", "hidden=16", "--set", "minibatch_steps=64",
                     "--set", "bptt=8", "--set", "game.num_players=4", "--set", "game.starting_life=6",
                     "--set", "game.max_turns=8"]) == 0
    out = capsys.readouterr().out
    assert json.loads((run / "config.json").read_text())["deterministic"] is True
    assert "(update_dtype auto, deterministic: this CPU has" in out and "\ndeterministic: the update runs" in out


def test_a_deterministic_run_refuses_a_bot_that_decides_by_the_clock(tmp_path, monkeypatch):
    """An ISMCTS bot with a time budget searches as many iterations as the clock allows, so its labels
    (the expert) would follow the machine's load: a deterministic config refuses it in one line that
    says what to give instead; one that searches a fixed number of iterations is accepted, as is the
    timed bot where the run is not deterministic or the expert labels nothing (it is never made)."""
    from agents.ismcts import ISMCTSAgent

    monkeypatch.setitem(agents._REGISTRY, "timed_ismcts", lambda seed=None: ISMCTSAgent(seed=seed, time_budget=0.05))
    monkeypatch.setitem(agents._REGISTRY, "counted_ismcts", lambda seed=None: ISMCTSAgent(seed=seed, iterations=8))
    with pytest.raises(ValueError, match=r'^train config: expert = "timed_ismcts" decides by the clock \(time_budget '
                                         r"= 0.05 s a decision\), so deterministic = true could not repeat its labels "
                                         r"or games; give a bot that searches a fixed number of iterations instead "
                                         r"\(time_budget = None, iterations = N, as the registered 'ismcts' searches "
                                         r"24\)$"):
        TrainConfig(run_dir=str(tmp_path), expert="timed_ismcts", deterministic=True)
    for expert in ("counted_ismcts", "ismcts", "lookahead"):
        assert TrainConfig(run_dir=str(tmp_path), expert=expert, deterministic=True).expert == expert
    assert TrainConfig(run_dir=str(tmp_path), expert="timed_ismcts").expert == "timed_ismcts"
    TrainConfig(run_dir=str(tmp_path), expert="timed_ismcts", deterministic=True, imitation=0.0, imitation_coef=0.0)


def test_a_deterministic_run_with_a_time_budget_and_imitation_warns_that_its_phase_follows_the_clock(tmp_path):
    with pytest.warns(UserWarning, match=r"^deterministic with a time budget: imitation follows the run's progress, "
                                         r"which a time budget measures by the clock"):
        train(tiny(tmp_path, total_steps=200, rollout_steps=200, deterministic=True, time_budget_s=600.0),
              progress=False, log=False)


def test_a_deterministic_run_with_a_time_budget_and_policy_lag_1_warns_that_its_batches_follow_the_clock(tmp_path):
    """policy_lag 1 starts the next collection beside the update where the clock forecasts another
    iteration (_goes_on); where it forecasts the end and the run goes on, that batch is collected
    from the updated weights, so a time budget parts same-seed runs before their last iteration."""
    import training.ppo as ppo
    kw = dict(deterministic=True, time_budget_s=600.0, imitation=0.0, policy_lag=1)
    lag = (r"policy_lag = 1 collects the next batch beside the update only where the clock forecasts another "
           r"iteration, and where it forecasts the end but the run goes on, that batch is collected from the "
           r"updated weights \(as with policy_lag = 0\), so same-seed runs can part before the last iteration; "
           r"end the run by total_steps alone")
    with pytest.warns(UserWarning, match=r"^deterministic with a time budget: " + lag):
        ppo._open_run(tiny(tmp_path, **kw), False)
    with pytest.warns(UserWarning, match=r"^deterministic with a time budget: imitation follows the run's progress, "
                                         r".* and part there; and " + lag):
        ppo._open_run(tiny(tmp_path, **{**kw, "imitation": 0.5}), False)
    for quiet in (dict(policy_lag=0), dict(time_budget_s=0.0), dict(deterministic=False)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ppo._open_run(tiny(tmp_path, **{**kw, **quiet}), False)


@pytest.mark.parametrize("lag", [0, 1])
def test_each_batch_is_collected_from_the_weights_policy_lag_updates_back(tmp_path, monkeypatch, lag):
    """policy_lag 0: batch k from the weights after update k-1; policy_lag 1: from those
    after update k-2 (the first two batches from the initial weights), the next collection
    started before the update runs; no collection is started that no update reads."""
    import training.ppo as ppo
    from training.rollout import WorkerPool

    started, updated = [], []
    real_start, real_update = WorkerPool.start, ppo.ppo_update

    def start(self, weights, *a, **kw):
        started.append({k: v.detach().clone() for k, v in weights.items()})
        return real_start(self, weights, *a, **kw)

    def update(net, *a, **kw):
        updated.append({k: v.detach().clone() for k, v in net.state_dict().items()})     # before the update
        return real_update(net, *a, **kw)

    monkeypatch.setattr(WorkerPool, "start", start)
    monkeypatch.setattr(ppo, "ppo_update", update)
    res = train(tiny(tmp_path, total_steps=1200, rollout_steps=300, policy_lag=lag), progress=False, log=False)
    iterations = res["iterations"]
    assert iterations == len(updated) == len(started) >= 3
    same = [all(torch.equal(s[k], u[k]) for k in s) for s, u in zip(started, [updated[0]] * lag + updated)]
    assert all(same), same
    assert not all(torch.equal(updated[0][k], updated[-1][k]) for k in updated[0])     # the weights did move


def test_the_next_collection_starts_before_an_iteration_s_checkpoint_and_metrics_are_written(tmp_path, monkeypatch):
    """policy_lag 0: the workers start the next collection (from the updated weights) before the
    iteration's metrics and checkpoint are written, so they do not wait for them; after the last
    iteration none is started."""
    import training.ppo as ppo
    from training.rollout import WorkerPool

    events: list[str] = []
    real_start, real_ckpt, real_log, real_update = WorkerPool.start, ppo._checkpoint, ppo._log_iteration, ppo.ppo_update

    def update(*a, **kw):
        events.append("update")
        return real_update(*a, **kw)

    def start(self, *a, **kw):
        events.append("start")
        return real_start(self, *a, **kw)

    def checkpoint(*a, **kw):
        events.append("checkpoint")
        return real_ckpt(*a, **kw)

    def log(run_dir, writer, record):
        events.append("log")
        return real_log(run_dir, writer, record)

    monkeypatch.setattr(WorkerPool, "start", start)
    monkeypatch.setattr(ppo, "_checkpoint", checkpoint)
    monkeypatch.setattr(ppo, "_log_iteration", log)
    monkeypatch.setattr(ppo, "ppo_update", update)
    res = train(tiny(tmp_path, total_steps=1200, rollout_steps=300, checkpoint_every=2), progress=False, log=False)
    n = res["iterations"]
    assert n >= 4 and events.count("start") == n and events.count("log") == n
    logs = [i for i, e in enumerate(events) if e == "log"]
    for k, i in enumerate(logs[:-1]):       # the update, the next collection, then this iteration's writing
        assert events[i - 2:i] == ["update", "start"], (k, events)
    assert events[-3:] == ["update", "log", "checkpoint"]
    assert events.count("checkpoint") == n // 2 + n % 2


@pytest.mark.parametrize("workers", [1, 2])
def test_a_collection_reads_the_weights_given_when_it_started(workers):
    """WorkerPool.start copies the weights: changing them before finish() does not change the
    batch (in this process and in worker processes alike); a second start before finish(), and a
    finish() with nothing started, are one-line errors."""
    from training.rollout import WorkerPool

    cfg = TrainConfig(**{**tiny(Path("unused")).to_dict(), "workers": workers})
    torch.manual_seed(0)
    weights = build_network(Collector(cfg, 0).net_kwargs).state_dict()
    kept = {k: v.clone() for k, v in weights.items()}
    batches = []
    for changed in (False, True):
        pool = WorkerPool(cfg, [11 + i for i in range(workers)])
        try:
            pool.start(weights if changed else kept, {}, 100)
            if changed:
                with pytest.raises(RuntimeError, match="a collection is under way"):
                    pool.start(kept, {}, 100)
                for v in weights.values():
                    v.add_(1.0)                 # in place, as the optimizer changes them
            assert pool.busy
            batches.append(pool.finish()[0])
            assert not pool.busy
            with pytest.raises(RuntimeError, match="no collection is under way"):
                pool.finish()
        finally:
            pool.close()
    for a, b in zip(*batches):
        assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_weights_through_shared_memory_give_the_batches_of_weights_through_the_pipe(monkeypatch):
    """Worker processes read the learner's weights from one shared-memory block (training.shared_weights):
    two collections, the weights changed between them, give the batches the same weights sent through
    the pipe give (where shared memory is short, SharedWeights.write returns None and they go by pipe);
    the block is removed when the pool closes."""
    import os

    import training.shared_weights as sw
    from training.rollout import WorkerPool

    cfg = TrainConfig(**{**tiny(Path("unused")).to_dict(), "workers": 2})
    torch.manual_seed(0)
    weights = build_network(Collector(cfg, 0).net_kwargs).state_dict()
    second = {k: v + 0.01 for k, v in weights.items()}

    def two_collections() -> tuple[list, str | None]:
        pool = WorkerPool(cfg, [11, 12])
        try:
            out = [pool.collect(w, {}, 100)[0] for w in (weights, second)]
            name = None if pool._shared._handle is None else pool._shared._handle.name
        finally:
            pool.close()
        return out, name

    shared, name = two_collections()
    assert name is not None and not os.path.exists(os.path.join(sw.SHM_DIR, name))   # made, then removed
    monkeypatch.setattr(sw, "_room_for", lambda nbytes: False)
    piped, none = two_collections()
    assert none is None
    for s_batches, p_batches in zip(shared, piped):
        for a, b in zip(s_batches, p_batches):
            assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    # the second collection read the changed weights: its batches differ from the first's
    assert any(not np.array_equal(a["logp"], b["logp"]) for a, b in zip(shared[0], shared[1]))


def test_only_a_pool_of_worker_processes_holds_shared_weights():
    """Every WorkerPool made a SharedWeights, even one whose collections run in this process (one
    worker) or on Ray, where nothing reads it: only worker processes get one."""
    from training.rollout import WorkerPool

    pool = WorkerPool(tiny(Path("unused")), [3])
    try:
        assert pool.local is not None and pool._shared is None
    finally:
        pool.close()


_KILLED_LEARNER = """
import json, sys, time
from training.config import TrainConfig
from training.rollout import Collector, WorkerPool
from agents.networks import build_network
cfg = TrainConfig.from_dict(json.loads(sys.argv[1]))
weights = build_network(Collector(cfg, 0).net_kwargs).state_dict()
pool = WorkerPool(cfg, [11, 12])
pool.collect(weights, {}, 100)            # the weights' block made, and read by both workers
if sys.argv[2] == "collecting":
    pool.start(weights, {}, 10 ** 7)      # a collection that outlasts the test
print(json.dumps([[p.pid for p in pool.procs], pool._shared._handle.name]), flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("when", ["idle", "collecting"])
def test_workers_of_a_killed_learner_end_quietly_and_remove_the_weights_block(when):
    """A learner killed by SIGKILL, its rollout workers idle or collecting: each worker printed two
    chained BrokenPipeError tracebacks, and the resource tracker that the shared-memory block of
    the weights was "leaked".  The workers end by themselves without a word (exit status 1) and
    remove the block: nothing at all is written to stderr, and the block is gone."""
    import os
    import subprocess
    import sys
    import time

    from training.shared_weights import SHM_DIR

    cfg = TrainConfig(**{**tiny(Path("unused")).to_dict(), "workers": 2})
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_LEARNER, json.dumps(cfg.to_dict()), when],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        workers, block = json.loads(proc.stdout.readline())
        assert os.path.exists(os.path.join(SHM_DIR, block))
        proc.kill()
        proc.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(os.path.exists(f"/proc/{pid}") for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        _, err = proc.communicate(timeout=30)   # once every holder of its stderr (workers, tracker) ended
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not any(os.path.exists(f"/proc/{pid}") for pid in workers)
    assert err == "" and not os.path.exists(os.path.join(SHM_DIR, block))


def test_shared_weights_are_rewritten_in_place_and_remade_for_another_layout():
    """SharedWeights.write copies into one block while the layout stays (the same handle), makes a new
    block for another layout (the old one removed); a reader sees what was last written."""
    import os

    from training.shared_weights import SHM_DIR, SharedWeights, WeightsReader

    shared, reader = SharedWeights(), WeightsReader()
    try:
        a = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "n": np.array([7], np.int64)}
        h1 = shared.write(a)
        got = reader.read(h1)
        assert got.keys() == a.keys() and all(np.array_equal(got[k], a[k]) and got[k].dtype == a[k].dtype for k in a)
        del got
        h2 = shared.write({"w": a["w"] * 2, "n": a["n"] + 1})
        assert h2 == h1
        got = reader.read(h2)
        assert np.array_equal(got["w"], a["w"] * 2) and got["n"][0] == 8
        del got
        h3 = shared.write({"w": np.ones((4, 4), np.float32)})
        assert h3.name != h1.name and not os.path.exists(os.path.join(SHM_DIR, h1.name))
        got = reader.read(h3)
        assert np.array_equal(got["w"], np.ones((4, 4), np.float32))
        del got
    finally:
        reader.close()
        shared.close()
    assert not os.path.exists(os.path.join(SHM_DIR, h3.name))


def test_a_pool_network_holds_the_frozen_weights_alone():
    """Collector.update_pool copies the learner's network and loads the frozen weights into it: the
    pool member gives the outputs a network built from those weights gives, and a later change of the
    learner's weights does not reach it."""
    cfg = tiny(Path("unused"))
    col = Collector(cfg, 0)
    torch.manual_seed(5)
    frozen = build_network(col.net_kwargs).eval()
    col.update_pool({3: frozen.state_dict()})
    member = col.pool[3]
    assert member is not col.net and not member.training
    col.set_weights({k: v + 1.0 for k, v in col.net.state_dict().items()})
    torch.manual_seed(0)
    x = torch.rand(4, col.obs_size)
    h = torch.zeros(4, cfg.hidden)
    for got, want in zip(member.step(x, h), frozen.step(x, h)):
        assert torch.equal(got, want)


def test_worker_processes_ignore_ctrl_c_from_their_first_instruction():
    """A process started inside children_ignore_sigint ignores SIGINT before any of its own code runs
    (so a Ctrl-C to the group while a spawned worker imports prints nothing); outside it does not, and
    the parent's handler is back after the block."""
    import signal
    import subprocess
    import sys

    from training.interrupts import children_ignore_sigint

    probe = [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"]
    before = signal.getsignal(signal.SIGINT)
    with children_ignore_sigint():
        inside = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    assert signal.getsignal(signal.SIGINT) is before
    outside = subprocess.run(probe, capture_output=True, text=True, check=True).stdout.strip()
    assert (inside, outside) == ("True", "False")


def test_an_ignored_ctrl_c_stays_ignored_through_an_update():
    """A run started with SIGINT ignored (`cmd &` in a script) is not stopped by a SIGINT that
    arrives during an update (DeferInterrupt held it and raised it after): ignored stays ignored."""
    import os
    import signal

    from training.interrupts import DeferInterrupt

    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with DeferInterrupt():
            os.kill(os.getpid(), signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)


@pytest.mark.parametrize("first, then, raised", [("SIGTERM", "SIGINT", "Terminated"),
                                                  ("SIGINT", "SIGTERM", "KeyboardInterrupt")])
def test_of_several_signals_in_an_update_the_first_is_raised_and_noticed_once(first, then, raised):
    """DeferInterrupt holds the first of several signals (SIGTERM then Ctrl-C ends as SIGTERM, as
    StopOnce keeps the first), calls its notice once, with that signal, as soon as it arrives
    (before the block's work goes on), and raises it when the block ends."""
    import os
    import signal

    from training.interrupts import DeferInterrupt, Terminated

    seen = []
    with pytest.raises(KeyboardInterrupt) as why:
        with DeferInterrupt(notice=seen.append):
            os.kill(os.getpid(), getattr(signal, first))
            assert seen == [getattr(signal, first)]              # said at once, inside the block
            os.kill(os.getpid(), getattr(signal, then))
    assert type(why.value) is (Terminated if raised == "Terminated" else KeyboardInterrupt)
    assert seen == [getattr(signal, first)]


def test_after_the_first_stop_signal_later_ones_wait_for_the_stop():
    """StopOnce: the first SIGINT (SIGTERM: Terminated) raises, and later ones are ignored (also once
    an interrupt DeferInterrupt held is raised) until the outermost block ends; then the handlers
    are back, or with ignore_after, for a program on its way out, both signals stay ignored."""
    import os
    import signal
    import time

    from training.interrupts import DeferInterrupt, StopOnce, Terminated

    stops = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.getsignal(s) for s in stops}
    try:
        for held in (False, True):
            with StopOnce():
                with pytest.raises(Terminated):
                    with StopOnce():
                        if held:
                            with DeferInterrupt():
                                os.kill(os.getpid(), signal.SIGTERM)
                        else:
                            os.kill(os.getpid(), signal.SIGTERM)
                            time.sleep(5)
                for s in (signal.SIGINT, signal.SIGTERM):       # the run stops: these are ignored
                    os.kill(os.getpid(), s)
                time.sleep(0.05)
            assert {s: signal.getsignal(s) for s in stops} == before
        with StopOnce(ignore_after=True):                       # not stopped: the handlers are back
            pass
        assert {s: signal.getsignal(s) for s in stops} == before
        with StopOnce(ignore_after=True):
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
        assert all(signal.getsignal(s) is signal.SIG_IGN for s in stops)
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def _a_signal_arrives_at(monkeypatch, call: int, signum: int) -> None:
    """From now on, the ``call``-th ``signal.signal`` call (1-based) happens just after ``signum``
    arrived (``signal.raise_signal`` handles it at once, with the handler then in place: as a
    signal checked for at that call's start is)."""
    import signal

    real, calls = signal.signal, []

    def arriving(s, handler):
        calls.append(s)
        if len(calls) == call:
            signal.raise_signal(signum)
        return real(s, handler)

    monkeypatch.setattr(signal, "signal", arriving)


@pytest.mark.parametrize("call", [1, 2])
def test_a_ctrl_c_as_an_update_ends_stops_the_run_once_with_one_notice(monkeypatch, call):
    """A Ctrl-C that arrives as DeferInterrupt gives back the handlers (the CI failure of
    test_ctrl_c_twice_saves_the_last_iteration_and_exits_130[0.2-group]: after the block had
    looked for a held signal, before its handler was gone; the notice was written, nothing raised,
    and the next update wrote it again): held by the block (call 1) or raised by StopOnce's handler
    given back (call 2), it stops the block once with one notice, every handler is StopOnce's
    after it (none of the closed block's), and a second Ctrl-C is ignored."""
    import os
    import signal
    import time

    from training.interrupts import DeferInterrupt, StopOnce

    stops = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.getsignal(s) for s in stops}
    seen = []
    try:
        with StopOnce():
            outer = {s: signal.getsignal(s) for s in stops}
            with monkeypatch.context() as m:
                with pytest.raises(KeyboardInterrupt):
                    with DeferInterrupt(notice=seen.append):
                        _a_signal_arrives_at(m, call, signal.SIGINT)
            assert {s: signal.getsignal(s) for s in stops} == outer
            os.kill(os.getpid(), signal.SIGINT)                 # stopping: ignored
            time.sleep(0.05)
        assert seen == ([signal.SIGINT] if call == 1 else [])
        assert {s: signal.getsignal(s) for s in stops} == before
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def test_a_signal_as_a_stop_block_gives_back_its_handlers_is_raised_and_the_next_block_stops():
    """StopOnce: a Ctrl-C that arrives while the block gives back the handlers (after SIGINT's,
    before SIGTERM's) is raised once they all are back, and the blocks' count is closed: the next
    block's first Ctrl-C raises (the count left open, it was ignored) and a SIGTERM arriving as a
    DeferInterrupt takes the handlers is raised with none of the block's left in place."""
    import os
    import signal
    import time

    from training.interrupts import DeferInterrupt, StopOnce, Terminated

    stops = (signal.SIGINT, signal.SIGTERM)
    before = {s: signal.getsignal(s) for s in stops}
    try:
        with pytest.raises(KeyboardInterrupt):
            with pytest.MonkeyPatch.context() as m:
                with StopOnce():
                    _a_signal_arrives_at(m, 2, signal.SIGINT)
        assert {s: signal.getsignal(s) for s in stops} == before
        with StopOnce():
            with pytest.raises(KeyboardInterrupt):
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
        with StopOnce():
            outer = {s: signal.getsignal(s) for s in stops}
            with pytest.MonkeyPatch.context() as m:
                _a_signal_arrives_at(m, 2, signal.SIGTERM)      # SIGINT is the block's, SIGTERM not yet
                entered = []
                with pytest.raises(Terminated):
                    with DeferInterrupt():
                        entered.append(True)
            assert not entered                                  # stopped as it began, before its work
            assert {s: signal.getsignal(s) for s in stops} == outer
        assert {s: signal.getsignal(s) for s in stops} == before
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def test_an_iterations_rates_are_over_its_share_of_the_runs_wall_time(tmp_path, monkeypatch):
    """``perf/learner_steps_per_s`` (and the agent-step and game rates) of an iteration are over its
    share of the run's ``wall_s``, the writing of the iteration before (metrics, checkpoint) included,
    so that the iterations' times add up to the run's: with ``policy_lag = 1`` they were over its wait
    for the batch and its update alone, and a slow write (here 0.3 s) was in no iteration's rate."""
    import time as clock

    import training.ppo as ppo

    real = ppo._log_iteration

    def slow_log(*a, **kw):
        real(*a, **kw)
        clock.sleep(0.3)

    monkeypatch.setattr(ppo, "_log_iteration", slow_log)
    out = train(tiny(tmp_path, total_steps=1500, rollout_steps=300, policy_lag=1), progress=False, log=False)
    h = out["history"]
    assert len(h) >= 3
    for before, r in zip([{"steps": 0, "wall_s": 0.0, "games": 0}] + h, h):
        took = r["wall_s"] - before["wall_s"]
        assert (r["steps"] - before["steps"]) / r["perf/learner_steps_per_s"] == pytest.approx(took, rel=1e-9), r
        assert r["perf/games_per_s"] * took == pytest.approx(r["games"] - before["games"], rel=1e-9), r
        assert r["iteration"] == 1 or took > 0.3            # the write before it is in its time


def test_the_collection_in_this_process_runs_with_one_torch_thread(monkeypatch):
    """With workers = 1 the collection runs in the learner's process with one torch thread, as a
    worker process's does (with the learner's two, a batch of a few dozen rows waited on the other
    thread: ~10x slower on a busy machine), and the learner's count is back after it."""
    from training.rollout import WorkerPool

    seen = []
    real = Collector.collect

    def collect(self, *a, **kw):
        seen.append(torch.get_num_threads())
        return real(self, *a, **kw)

    monkeypatch.setattr(Collector, "collect", collect)
    cfg = tiny(Path("unused"))
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        pool = WorkerPool(cfg, [3])
        pool.collect(build_network(pool.local.net_kwargs).state_dict(), {}, 20)
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_policy_lag_is_0_or_1():
    with pytest.raises(ValueError, match=r"^train config: policy_lag = 2 is invalid; allowed: 0 \(collect, then "
                                         r"update\) or 1 \(collect the next batch while updating\)$"):
        tiny(Path("unused"), policy_lag=2)


# --------------------------------------------------------------------------- checkpoint errors
def test_bad_checkpoints_are_clear_errors(tmp_path, policy_4p, monkeypatch):
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(tmp_path / "none.pt")
    trunc = tmp_path / "trunc.pt"
    trunc.write_bytes(policy_4p.read_bytes()[:1000])
    with pytest.raises(ValueError, match="corrupt") as err:
        load_checkpoint(trunc)
    assert "\n" not in str(err.value)                  # one line, not torch's paragraph
    text = tmp_path / "notes.pt"
    text.write_text("not a checkpoint at all\n" * 20)
    with pytest.raises(ValueError, match=r"corrupt or not a torch checkpoint \(torch.load raised") as err:
        load_checkpoint(text)
    assert "\n" not in str(err.value)
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(ValueError, match="not a Treachery policy checkpoint"):
        load_checkpoint(other)
    mism = tmp_path / "mism.pt"
    p = torch.load(policy_4p, weights_only=True)
    p["model_kwargs"]["hidden"] = 64
    torch.save(p, mism)
    with pytest.raises(ValueError, match=r"do not fit its network: .*size mismatch for \S+: copying a param") as err:
        load_checkpoint(mism)
    assert "\n" not in str(err.value) and "\t" not in str(err.value)    # one line, not torch's indented list
    monkeypatch.setattr(treachery_env, "__version__", "9.9.9")
    with pytest.raises(ValueError, match="treachery_env"):
        load_checkpoint(policy_4p)


def test_resume_from_a_bare_policy_is_refused(tmp_path, policy_4p):
    with pytest.raises(ValueError, match="bare policy"):
        train(tiny(tmp_path), resume=policy_4p, progress=False, log=False)


# --------------------------------------------------------------------------- the policy bot
def test_policy_specs(policy_4p, tmp_path):
    bot = agents.make(f"policy:{policy_4p}", seed=1)
    assert isinstance(bot, PolicyAgent) and not bot.greedy
    assert agents.make(f"policy:{policy_4p}:greedy").greedy
    with pytest.raises(ValueError, match="needs an argument"):
        agents.make("policy")
    with pytest.raises(ValueError, match="takes no argument"):
        agents.make("random:3")
    with pytest.raises(ValueError, match="does not exist"):
        agents.make(f"policy:{tmp_path / 'missing.pt'}")
    with pytest.raises(ValueError, match="unknown mode 'greed'.*':greedy'"):
        agents.make(f"policy:{policy_4p}:greed")
    with pytest.raises(ValueError, match="has no advantage gate"):
        agents.make(f"policy:{policy_4p}:greedy:gate=0")
    with pytest.raises(ValueError, match="'gate=x' needs a number"):
        agents.make(f"policy:{policy_4p}:gate=x")


def test_policy_bot_plays_legally_and_reports_beliefs(policy_4p):
    res = agents.play_game([agents.make(f"policy:{policy_4p}", seed=s) for s in range(4)],
                           GameConfig(**TINY_GAME), seed=2, record_beliefs=True)
    assert res.decisions > 0 and res.beliefs
    turn, seat, b = res.beliefs[0]
    assert set(b) == {s for s in range(4) if s != seat}
    for dist in b.values():
        assert sum(dist.values()) == pytest.approx(1.0, abs=1e-5)


def test_policy_bot_rejects_another_table_size(tmp_path):
    path = write_policy(tmp_path / "p5.pt", 5)
    bot = PolicyAgent(path)
    env = raw_env(config=GameConfig(num_players=4))
    env.reset(seed=0)
    obs, *_ = env.last()
    bot.reset(0)
    with pytest.raises(ValueError, match="5 players"):
        bot.act(obs, {})


def test_a_policy_in_a_game_it_was_not_trained_on_warns_once_naming_the_fields(policy_4p, monkeypatch):
    """A policy trained with table talk ("structured", its checkpoint's
    game_config) in a silent game: one warning naming each field that differs,
    with both values (in words), however many games; the same game warns nothing (issue #13)."""
    import warnings

    import agents.policy as ap

    monkeypatch.setattr(ap, "_WARNED", set())
    silent = GameConfig(num_players=4, talk="none", max_turns=3)
    with pytest.warns(ap.GameConfigMismatchWarning) as got:
        for seed in range(2):
            agents.play_game([agents.make(f"policy:{policy_4p}", seed=s) for s in range(4)], silent, seed=seed)
        agents.check_table(agents.make(f"policy:{policy_4p}"), "policy", 4, silent)
    assert len(got) == 1
    msg = str(got[0].message)
    assert msg.startswith(f"policy {str(policy_4p)!r} was trained on a different game configuration (")
    assert "max_turns 250 in training, 3 here" in msg and "talk 'structured' in training, 'none' here" in msg
    bot = agents.make(f"policy:{policy_4p}")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bot.check_config(GameConfig(num_players=4)) == {}
        assert bot.check_config(GameConfig(num_players=4, concession=True, decks=("aggro",) * 4)) == {}
    assert bot.check_config(silent) == {"talk": ("structured", "none"), "max_turns": (250, 3)}
    # a value left unset, or on or off, in words (treachery_env.config.field_text), not None, True, False
    with pytest.warns(ap.GameConfigMismatchWarning) as got:
        bot.check_config(GameConfig(num_players=4, commander=False, starting_life=20))
    assert ("(commander on in training, off here; starting_life by the rules in training, 20 here)"
            in str(got[0].message))


def test_a_policy_in_its_own_env_loop_compares_what_the_view_shows(policy_4p, monkeypatch):
    """``agents.make("policy:...")`` stepped by hand in an env whose config
    differs: its first act reads the talk rule from ``info["view"]`` and warns."""
    import agents.policy as ap

    monkeypatch.setattr(ap, "_WARNED", set())
    env = raw_env(config=GameConfig(num_players=4, talk="none"))
    env.reset(seed=0)
    bot = agents.make(f"policy:{policy_4p}", seed=0)
    bot.reset(int(env.agent_selection.split("_")[1]))
    obs, _r, _t, _tr, info = env.last()
    with pytest.warns(ap.GameConfigMismatchWarning, match=r"\(talk 'structured' in training, 'none' here\)"):
        bot.act(obs, info)


def test_network_shapes():
    net = PolicyNet(10, 7, 5, hidden=8)
    logits, value, belief, h = net(torch.zeros(3, 10), net.initial_state(3))
    assert logits.shape == (3, 7) and value.shape == (3,) and belief.shape == (3, 4, 4) and h.shape == (3, 8)
    logits, value, belief, h = net(torch.zeros(6, 3, 10), net.initial_state(3))
    assert logits.shape == (6, 3, 7) and belief.shape == (6, 3, 4, 4)
    with pytest.raises(ValueError, match="num_players"):
        PolicyNet(10, 7, 1)


def test_save_is_atomic_under_failure(tmp_path, policy_4p, monkeypatch):
    net = load_checkpoint(policy_4p)["net"]
    target = tmp_path / "keep.pt"
    save_checkpoint(target, net, {"num_players": 4})
    good = target.read_bytes()

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError):
        save_checkpoint(target, net, {"num_players": 4})
    assert target.read_bytes() == good                      # the old checkpoint is intact
    assert [p.name for p in tmp_path.iterdir()] == ["keep.pt"]


# --------------------------------------------------------------------------- CLI
def test_cli_train_then_evaluate(tmp_path, capsys):
    run = tmp_path / "cli"
    rc = cli.main(["train", "--run-dir", str(run), "--steps", "300", "--no-progress", "--evaluate", "8",
                   "--set", "rollout_steps=300", "--set", "games_per_worker=6", "--set", "hidden=16",
                   "--set", "minibatch_steps=64", "--set", "bptt=8",
                   "--set", "game.num_players=4", "--set", "game.commander=false",
                   "--set", "game.starting_life=6", "--set", "game.max_turns=8"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "the policy against random" in out and "the policy against heuristic" in out
    assert "| Leader | Guardian | Assassin | Traitor | overall |" in out and "in every role:" in out
    res = json.loads((run / "eval-vs-heuristic" / "results.json").read_text())
    assert f"policy:{run / 'policy.pt'}:greedy" in json.dumps(res)      # greedy unless --eval-sampled
    # ship it with a model card
    notes = tmp_path / "notes.md"
    notes.write_text("trained for a test")
    ship = tmp_path / "checkpoints" / "tiny"
    assert cli.main(["export", str(run), "--out", str(ship), "--results", str(run / "eval-vs-random"),
                     str(run / "eval-vs-heuristic" / "results.json"), "--notes", str(notes)]) == 0
    card = (ship / "MODEL_CARD.md").read_text()
    assert load_checkpoint(ship / "policy.pt")["meta"]["steps"] >= 300
    for want in ("# Model card: `tiny`", "learner agent-steps", "Against random", "Against heuristic",
                 "Substitution delta", "| Leader | Guardian | Assassin | Traitor | overall |", "Belief head",
                 "95% intervals over deals", "| turns | n | top-1 | prior top-1 |",
                 "trained for a test", '"num_players": 4', "imitation warm start (DAgger)",
                 'from this card\'s folder: `agents.make("policy:policy.pt:greedy")`',    # not where export ran
                 "(the run ended in that phase: no PPO)"):                     # one iteration, imitating
        assert want in card, want
    assert re.search(r"learner agent-steps in 1 iteration, \d+ games, ", card)
    from agents.models import models, sha256_of
    assert f"* policy file SHA-256: `{sha256_of(ship / 'policy.pt')}`" in card
    assert models(ship.parent)["tiny"].sha256 == sha256_of(ship / "policy.pt")     # a named model there
    assert cli.main(["export", str(tmp_path / "nope"), "--out", str(ship)]) == 2
    # a results file from before the table by turns still gives the overall line, and says so
    from training.model_card import _deduction_table
    old = {k: v for k, v in res["deduction"][next(iter(res["deduction"]))].items() if k != "by_band"}
    lines = _deduction_table({"deduction": {"p": old}}, "p")
    assert lines.startswith("Belief head") and "evaluate again" in lines


def test_cli_train_errors(tmp_path, capsys):
    assert cli.main(["train", "--run-dir", str(tmp_path / "x"), "--set", "gamma=2"]) == 2
    assert "gamma" in capsys.readouterr().err
    # a misspelt key names the key meant, in the train config and in its game table
    assert cli.main(["train", "--run-dir", str(tmp_path / "x"), "--set", "learning_rat=1e-4"]) == 2
    assert "unknown keys ['learning_rat'] (did you mean learning_rate?)" in capsys.readouterr().err
    assert cli.main(["train", "--run-dir", str(tmp_path / "x"), "--set", "game.num_player=4"]) == 2
    assert "unknown GameConfig fields ['num_player'] (did you mean num_players?)" in capsys.readouterr().err
    # and in the opponents table, where the whole merged table was shown with the allowed kinds
    assert cli.main(["train", "--run-dir", str(tmp_path / "x"), "--set", "opponents.heuristc=0.5"]) == 2
    assert ("train config: unknown opponents ['heuristc'] (did you mean heuristic?)"
            in capsys.readouterr().err)
    assert cli.main(["train", "--run-dir", str(tmp_path / "x"), "--set", "opponents.zzzz=0.5"]) == 2
    err = capsys.readouterr().err
    assert "unknown opponents ['zzzz']; allowed: ['self', 'pool', 'heuristic', 'belief', 'random'] or " in err
    assert cli.main(["train", "--run-dir", str(tmp_path / "x"), "--set", "zzzz=1"]) == 2
    err = capsys.readouterr().err
    assert "did you mean" not in err and "; known: ['anchor_schedule'," in err    # nothing close: every key
    assert cli.main(["train", "--run-dir", str(tmp_path / "x"), "--minutes", "-1"]) == 2
    assert cli.main(["train", "--run-dir", str(tmp_path / "y"), "--resume"]) == 2
    assert f"run folder {str(tmp_path / 'y')!r} does not exist" in capsys.readouterr().err


def test_policy_bot_uses_only_its_information_set(tmp_path):
    """Permuting what the acting seat cannot see (others' face-down identities and
    hands, library orders) changes neither the policy's action nor its beliefs."""
    assert_policy_uses_only_its_information_set(write_policy(tmp_path / "p5.pt", 5, hidden=32, seed=4))


def assert_policy_uses_only_its_information_set(path, n: int = 5) -> None:
    """At decisions of 8 seeded random games, the policy at ``path`` acts and
    believes the same when what its seat cannot see is permuted 3 times."""
    import copy
    import random

    from scenario import random_game
    from test_information_sets import _permute_hidden

    from treachery_env.view import ViewBuilder

    checked = 0
    for seed in range(8):
        g = random_game(seed, 40 + 30 * seed, n=n, max_turns=60)
        if g.is_over:
            continue
        s = g.current_player
        bot = PolicyAgent(path, seed=seed)
        bot.reset(s)
        ref = copy.deepcopy(bot)
        want = ref.act(g.observation(s), {"view": ViewBuilder(g).build(s)})
        assert g.observation(s)["action_mask"][want]
        rng = random.Random(seed)
        for _ in range(3):
            other = copy.deepcopy(bot)
            h = _permute_hidden(g, s, rng)
            assert other.act(h.observation(s), {"view": ViewBuilder(h).build(s)}) == want
            assert other.beliefs() == ref.beliefs()
            checked += 1
    assert checked >= 12


# --------------------------------------------------------------------------- warm start and expert iteration
def _sizes() -> tuple[int, int]:
    e = raw_env(config=GameConfig(**TINY_GAME))
    return int(e.observation_space("player_0")["observation"].shape[0]), int(e.action_space("player_0").n)


def test_init_starts_a_new_run_from_trained_weights(tmp_path):
    """``init`` loads a checkpoint's weights into a new run's network (checked
    against the file, before any update), refuses one whose network differs
    (one line naming the fields), and a run started from it trains."""
    first = train(tiny(tmp_path / "a", total_steps=300), progress=False)
    cfg = tiny(tmp_path / "b", total_steps=300, init=first["policy"])
    net = build_network(cfg.network_kwargs(*_sizes()))
    init_weights(net, first["policy"])
    stored = load_checkpoint(first["policy"])["model_state"]
    assert all(torch.equal(v, stored[k]) for k, v in net.state_dict().items())
    wide = build_network(tiny(tmp_path / "c", hidden=48).network_kwargs(*_sizes()))
    with pytest.raises(ValueError, match=r"^init: the network of .* differs from the config's in hidden "
                                         r"\(32 in the checkpoint vs 48\)$"):
        init_weights(wide, first["policy"])
    # named by the config's settings, not the network's arguments; refused before any folder is made
    with pytest.raises(ValueError, match=r"in arch \('flat' in the checkpoint vs 'entity'\), entity \(none in the "
                                         r"checkpoint vs 16\), privileged_critic \(off in the checkpoint vs on\)$"):
        train(tiny(tmp_path / "e", init=first["policy"], arch="entity", entity=16, privileged_critic=True),
              progress=False)
    assert not (tmp_path / "e").exists()
    with pytest.raises(ValueError, match="^init: checkpoint .* does not exist"):
        init_weights(net, tmp_path / "missing.pt")
    with pytest.raises(ValueError, match="^init: checkpoint .* does not exist") as err:     # before any folder is made
        train(tiny(tmp_path / "d", init=str(tmp_path / "missing.pt")), progress=False)
    assert not (tmp_path / "d").exists() and "current folder" not in str(err.value)
    # a relative path (as in the shipped configs) says where it was looked for
    with pytest.raises(ValueError, match=r"^init: checkpoint 'checkpoints/x\.pt' does not exist "
                                         r"\(a relative path, read from the current folder .*\)$"):
        train(tiny(tmp_path / "d", init="checkpoints/x.pt"), progress=False)
    second = train(cfg, progress=False)
    assert second["steps"] >= 300
    # recorded relative to the run folder (a moved run folder: test_training_resume)
    assert json.loads((tmp_path / "b" / "run" / "config.json").read_text())["init"] == "../../a/run/policy.pt"
    ship = tmp_path / "ship"
    assert cli.main(["export", str(tmp_path / "b" / "run"), "--out", str(ship)]) == 0
    assert "* warm start: the run began from the weights of `../../a/run/policy.pt`" in (ship / "MODEL_CARD.md").read_text()


def test_expert_iteration_with_the_lookahead_teacher(tmp_path):
    """The policy-improvement step on a tiny config: the lookahead bot (paired
    heuristic rollouts at attack, block and main-phase decisions) labels the
    learner's decisions, the imitation update distils its labels, and the
    labels include decisions where it departs from the heuristic."""
    cfg = tiny(tmp_path, total_steps=300, imitation=0.9, expert="lookahead", opponents={"heuristic": 1.0})
    col = Collector(cfg, seed=5)
    batch, games, info = col.collect(300, label_expert=True)
    labelled = batch["expert"] >= 0
    assert labelled.all()
    assert all(batch["mask"][i, a] for i, a in enumerate(batch["expert"]))
    experts = [e for slot in col.slots for e in slot.experts.values()]
    assert sum(e.stats["searched"] for e in experts) > 0
    result = train(cfg, progress=False)
    assert result["history"][0]["imitating"] == 1.0 and np.isfinite(result["history"][0]["imitation_loss"])


@pytest.mark.parametrize("name", sorted(p.name for p in (Path(__file__).parent.parent / "training" / "configs").glob("*.toml")))
def test_every_shipped_config_loads(name):
    """Each config in training/configs/ loads and validates (the README's recipes)."""
    cfg = load_config(Path(__file__).parent.parent / "training" / "configs" / name)
    assert cfg.run_dir.startswith("runs/") and cfg.game_config().num_players == 5


def test_the_progress_bar_shows_no_nan_win_rate_for_iterations_without_heuristic_games(tmp_path, capsys):
    """The bar's ``vs_heur`` (the learner's win rate against heuristic bots) said ``nan`` in every
    iteration that finished no game against them; it says ``–`` until one does, then keeps the last
    such iteration's rate."""
    train(tiny(tmp_path, opponents={"self": 1.0}, total_steps=600), progress=True)
    err = capsys.readouterr().err
    assert "vs_heur=–" in err and "nan" not in err
    train(tiny(tmp_path / "h", opponents={"heuristic": 1.0}, total_steps=900), progress=True)
    err = capsys.readouterr().err
    assert re.search(r"vs_heur=[01]\.\d\d", err) and "nan" not in err


def test_a_rollout_worker_runs_one_thread_with_its_start_frozen_and_rarer_young_collections():
    """worker_collector (what every worker process and Ray actor starts with): one torch thread,
    the collector's long-lived objects in the permanent generation, and the youngest generation
    collected after WORKER_GC_THRESHOLD net allocations (checked in a fresh interpreter: these
    settings are process-wide)."""
    import subprocess
    import sys

    probe = ("import gc, torch; from training.rollout import worker_collector, WORKER_GC_THRESHOLD; "
             "torch.set_num_threads(2); before = gc.get_threshold(); "
             "c = worker_collector({'games_per_worker': 2}, 0); "
             "print(torch.get_num_threads(), gc.get_freeze_count() > 1000, "
             "gc.get_threshold()[0] == WORKER_GC_THRESHOLD, gc.get_threshold()[1:] == before[1:], len(c.slots))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout.split()
    assert out == ["1", "True", "True", "True", "2"]


def _recorded_worker_pools(monkeypatch) -> list:
    """The WorkerPools made from now on in this test, in order (so that a test kills its own run's
    worker processes, not every child of the test process)."""
    from training.rollout import WorkerPool

    made, real_init = [], WorkerPool.__init__

    def init(self, *a, **kw):
        real_init(self, *a, **kw)
        made.append(self)

    monkeypatch.setattr(WorkerPool, "__init__", init)
    return made


def test_sigterm_to_the_process_group_during_an_update_keeps_the_iteration(tmp_path, monkeypatch):
    """SIGTERM to the whole process group (a batch scheduler's time limit, `kill -TERM -PGID`) kills the
    worker processes at once while the learner holds the signal through its update: the iteration is
    still finished and saved, and the run ends as a SIGTERM stop (TrainingInterrupted), not with the
    BrokenPipeError of starting the next collection (policy_lag 0) on the dead workers' pipes."""
    import os
    import signal

    import training.ppo as ppo
    from training.ppo import TrainingInterrupted

    real_update, calls = ppo.ppo_update, []
    pools = _recorded_worker_pools(monkeypatch)

    def update(*a, **kw):
        calls.append(1)
        if len(calls) == 2:         # the group's SIGTERM: the workers die (default action), the learner holds it
            for p in pools[0].procs:
                p.kill()
                p.join(timeout=10)
            os.kill(os.getpid(), signal.SIGTERM)
        return real_update(*a, **kw)

    monkeypatch.setattr(ppo, "ppo_update", update)
    with pytest.raises(TrainingInterrupted) as stop:
        train(tiny(tmp_path, total_steps=3000, workers=2, checkpoint_every=5), progress=False, log=False)
    assert stop.value.signal_name == "SIGTERM" and stop.value.iteration == 2
    assert stop.value.checkpoint is not None and Path(stop.value.checkpoint).name == "ckpt_000002.pt"


@pytest.mark.parametrize("when", ["update", "collect"])
def test_a_killed_worker_process_is_said_in_one_line(tmp_path, monkeypatch, when):
    """A worker process killed from outside (kill -9, the OOM killer), during an update (the next
    collection, started early with policy_lag 0, is sent to its closed pipe) or during a collection,
    ends the run with WorkerLost naming it (one line for the command), not a pipe's BrokenPipeError
    or EOFError; killed during an update, that iteration is still finished and logged."""
    import training.ppo as ppo
    from training.rollout import WorkerLost, WorkerPool

    real_update, real_finish, calls = ppo.ppo_update, WorkerPool.finish, []
    pools = _recorded_worker_pools(monkeypatch)

    def kill_one():
        p = pools[0].procs[0]       # this run's own worker (not another test's leftover child process)
        p.kill()
        p.join(timeout=10)

    def update(*a, **kw):
        calls.append(1)
        if when == "update" and len(calls) == 2:
            kill_one()
        return real_update(*a, **kw)

    def finish(self):
        if when == "collect" and len(calls) == 2:
            kill_one()
        return real_finish(self)

    monkeypatch.setattr(ppo, "ppo_update", update)
    monkeypatch.setattr(WorkerPool, "finish", finish)
    cfg = tiny(tmp_path, total_steps=3000, workers=2, checkpoint_every=5)
    with pytest.raises(WorkerLost, match=r"^rollout worker \d of 2 \(process \d+\) ended during a collection: "
                                         r"it was killed by SIGKILL"):
        train(cfg, progress=False, log=False)
    lines = (Path(cfg.run_dir) / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 2
