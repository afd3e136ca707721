"""Mixed precision in the learner's update (:mod:`training.precision`): which dtype a run's
``update_dtype`` gives, the packed GRU's bfloat16 products, and that a bfloat16 update computes
the float32 one's losses and gradients up to bfloat16's rounding (that it learns:
``tests/test_training.py::test_ppo_updates_fit_a_fixed_batch``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import training.precision as precision
from agents.networks import _PackedGRU
from agents.policy import masked_logits
from training.config import TrainConfig
from training.ppo import make_chunks, pack_chunks
from training.precision import AUTO_MIN_SPEEDUP, autocast_dtype
from training.rollout import Collector, batch_observations

from test_training import tiny

BF16 = torch.bfloat16


def test_update_dtype_names_resolve_and_auto_follows_the_measured_speedup(monkeypatch):
    assert autocast_dtype("float32") is None
    assert autocast_dtype("bfloat16") is BF16
    monkeypatch.setattr(precision, "bfloat16_speedup", lambda: AUTO_MIN_SPEEDUP)
    assert autocast_dtype("auto") is BF16
    monkeypatch.setattr(precision, "bfloat16_speedup", lambda: AUTO_MIN_SPEEDUP * 0.99)
    assert autocast_dtype("auto") is None
    with pytest.raises(ValueError, match=r"^update_dtype must be one of auto, float32, bfloat16, got 'half'$"):
        autocast_dtype("half")


def test_a_deterministic_auto_follows_the_cpus_bfloat16_support_without_timing(monkeypatch):
    """``resolve_update_dtype("auto", measure=False)`` (a deterministic run's) never times: bfloat16
    exactly where :func:`native_bfloat16` says the CPU multiplies it natively (torch's x86 checks,
    AVX512-BF16 or AMX), float32 elsewhere; the other names are themselves."""
    def timed():
        raise AssertionError("timed")

    monkeypatch.setattr(precision, "bfloat16_speedup", timed)
    for native, want in ((True, "bfloat16"), (False, "float32")):
        monkeypatch.setattr(precision, "native_bfloat16", lambda: native)
        assert precision.resolve_update_dtype("auto", measure=False) == (want, None)
        assert precision.resolve_update_dtype("float32", measure=False) == ("float32", None)
    monkeypatch.undo()
    checks = [getattr(torch.cpu, n, lambda: False)() for n in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    assert precision.native_bfloat16() is any(checks)
    monkeypatch.delattr(torch.cpu, "_is_avx512_bf16_supported", raising=False)      # a torch without the checks
    monkeypatch.delattr(torch.cpu, "_is_amx_tile_supported", raising=False)
    assert precision.native_bfloat16() is False


def test_timing_bfloat16_leaves_torchs_global_random_state_as_it_was():
    """:func:`bfloat16_speedup` draws its matrices from a generator of its own: what is drawn from
    torch's global stream after it is the same whether ``"auto"`` was timed or not."""
    precision.bfloat16_speedup.cache_clear()        # measured afresh, not the cached ratio
    before = torch.get_rng_state()
    precision.bfloat16_speedup()
    assert torch.equal(torch.get_rng_state(), before)


def test_config_reads_the_update_dtype_in_any_case_and_refuses_others(tmp_path):
    assert TrainConfig(run_dir=str(tmp_path), update_dtype="BFloat16").update_dtype == "bfloat16"
    assert TrainConfig(run_dir=str(tmp_path)).update_dtype == "auto"
    with pytest.raises(ValueError, match=r"update_dtype = \"half\" is invalid; allowed: 'auto', 'float32', "
                                         r"'bfloat16'$"):
        TrainConfig(run_dir=str(tmp_path), update_dtype="half")


def test_the_packed_grus_bfloat16_products_are_autograds_with_the_operands_rounded():
    """With ``low = bfloat16``, :class:`_PackedGRU` gives the states and the gradients (inputs, the
    state before each step, ``b_hh``; ``W_hh``'s to bfloat16's rounding, since autograd sums its
    per-step terms in bfloat16 and the written-out backward in one float32-accumulated product) of
    the same steps run by autograd with the products' operands rounded to bfloat16; and differs
    from the float32 path by rounding only."""
    torch.manual_seed(5)
    T, B, H = 9, 6, 16
    gi, h0 = torch.randn(T, B, 3 * H), torch.randn(T, B, H)
    w, b = torch.empty(3 * H, H).uniform_(-0.6, 0.6), torch.empty(3 * H).uniform_(-0.6, 0.6)
    starts = torch.rand(T, B) < 0.3
    starts[0] = True
    weights = torch.randn(T, B, H)

    def reference(gi, h0, w, b):
        w_low, h, outs = w.to(BF16), h0[0], []
        for t in range(T):
            h = torch.where(starts[t].unsqueeze(-1), h0[t], h)
            gh = (h.to(BF16) @ w_low.t()).float() + b
            r, z = torch.sigmoid(gi[t, :, :2 * H] + gh[:, :2 * H]).chunk(2, -1)
            n = torch.tanh(gi[t, :, 2 * H:] + r * gh[:, 2 * H:])
            h = (h - n) * z + n
            outs.append(h)
        return torch.stack(outs)

    def run(fn):
        xs = [x.clone().requires_grad_(True) for x in (gi, h0, w, b)]
        out = fn(*xs)
        (out * weights).sum().backward()
        return [out.detach()] + [x.grad for x in xs]

    got = run(lambda *xs: _PackedGRU.apply(xs[0], xs[1], starts, xs[2], xs[3], BF16))
    want = run(reference)
    full = run(lambda *xs: _PackedGRU.apply(xs[0], xs[1], starts, xs[2], xs[3], None))
    for name, a, r in zip(("out", "gi", "h0", "w_hh", "b_hh"), got, want):
        tol = 2e-2 if name == "w_hh" else 1e-4
        assert (a - r).norm() <= tol * r.norm(), (name, float((a - r).norm() / r.norm()))
    for name, a, f in zip(("out", "gi", "h0", "w_hh", "b_hh"), got, full):
        assert not torch.equal(a, f), name                                   # the products were rounded
        assert (a - f).norm() <= 3e-2 * f.norm(), (name, float((a - f).norm() / f.norm()))


def _minibatch(cfg: TrainConfig) -> tuple:
    torch.manual_seed(0)
    col = Collector(cfg, seed=1)
    batch, _, _ = col.collect(400)
    t = {k: torch.from_numpy(v) for k, v in batch.items() if k != "segments" and not k.startswith("obs_")}
    rows, starts = pack_chunks(make_chunks(batch["segments"], cfg.bptt), np.random.default_rng(0))
    idx = torch.from_numpy(rows).T
    flat = idx.clamp(min=0)
    return col.net, batch_observations(batch, col.net.kwargs["obs_size"]).rows(flat), t, flat, idx >= 0, \
        torch.from_numpy(starts).T


@pytest.mark.parametrize("arch", ["flat", "entity"])
def test_a_bfloat16_forward_pass_gives_the_float32_log_probabilities_and_gradient_to_rounding(tmp_path, arch):
    """The update's forward pass under bfloat16 autocast (as :func:`ppo_update` runs it), on a
    network whose policy gives logits of a trained one's size: the taken actions'
    log-probabilities move by ~1e-2 at most, the values too, and the gradient of a policy and
    value loss keeps its direction (cosine > 0.995; 0.9994 and 0.99996 measured) and size."""
    cfg = tiny(tmp_path, arch=arch, privileged_critic=True, prior="heuristic" if arch == "entity" else "")
    net, obs, t, flat, valid, starts = _minibatch(cfg)
    head = net.policy_head if arch == "flat" else net.index_head
    with torch.no_grad():
        head.weight.mul_(300.0)                                  # logits of several units, as trained ones
    mask = t["mask"][flat]

    def run(low):
        net.zero_grad()
        with torch.autocast("cpu", dtype=BF16, enabled=low):
            logits, value, _, _ = net(obs, t["h"][flat], t["priv"][flat], mask=mask, prior=t["prior"][flat],
                                      starts=starts)
        logp = torch.log_softmax(masked_logits(logits.float(), mask), -1)
        logp = logp.gather(-1, t["action"][flat].unsqueeze(-1)).squeeze(-1)
        loss = -(logp * valid).sum() / valid.sum() + ((value.float() - t["ret"][flat]) ** 2 * valid).mean()
        loss.backward()
        grad = torch.cat([p.grad.flatten() for p in net.parameters() if p.grad is not None])
        return logp.detach()[valid], value.detach().float()[valid], grad

    lp32, v32, g32 = run(False)
    lp16, v16, g16 = run(True)
    assert lp32.std() > 0.5                                      # the policy is far from uniform
    assert 0 < (lp16 - lp32).abs().max() < 0.1 and (lp16 - lp32).abs().mean() < 0.02
    assert (v16 - v32).abs().max() < 0.02
    assert torch.nn.functional.cosine_similarity(g16, g32, 0) > 0.995
    assert abs(float(g16.norm() / g32.norm()) - 1) < 0.02

