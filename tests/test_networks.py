"""The policy networks (issue 13): shapes, masking, action scoring from entity
features, the privileged critic's isolation from the actor, checkpoints, and
the training condition and anchor schedule that go with them."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace

import numpy as np
import pytest
import torch

from agents.networks import (MASKED, EntityNet, ObservationEmbedding, PolicyNet, SparseObs, _PackedGRU, _run_core,
                             build_network)
from agents.policy import load_checkpoint, masked_logits, save_checkpoint
from training.config import TrainConfig
from training.ppo import latest_checkpoint, ppo_update, train
from training.rollout import Collector, batch_observations, privileged_features, sparse_rows
from treachery_env import GameConfig
from treachery_env.actions import MAX_PERMS, ActionLayout
from treachery_env.observation import obs_layout

from scenario import random_game
from test_training import assert_policy_uses_only_its_information_set, tiny


def _entity(n: int = 5, priv: bool = True, seed: int = 0) -> EntityNet:
    torch.manual_seed(seed)
    return EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16,
                     privileged_size=4 * n if priv else 0).eval()


def _states(n: int = 5, count: int = 6) -> list:
    """(observation dict, game, seat) at decisions of seeded random games."""
    out = []
    for seed in range(40):
        g = random_game(seed, 30 + 17 * seed, n=n, max_turns=60)
        if not g.is_over:
            s = g.current_player
            out.append((g.observation(s), g, s))
        if len(out) == count:
            break
    return out


def test_entity_network_shapes_and_masked_scoring():
    n = 5
    net = _entity(n)
    states = _states(n)
    obs = torch.from_numpy(np.stack([o["observation"] for o, _, _ in states]))
    mask = torch.from_numpy(np.stack([o["action_mask"] for o, _, _ in states]))
    priv = torch.from_numpy(np.stack([privileged_features(g, s) for _, g, s in states]))
    B, A = len(states), ActionLayout(n).size
    h0 = net.initial_state(B)
    logits, value, belief, h = net(obs, h0, priv)
    assert logits.shape == (B, A) and value.shape == (B,) and belief.shape == (B, n - 1, 4) and h.shape == (B, 32)
    # with the mask only legal actions are scored, to the same values
    ml, mv, mb, mh = net(obs, h0, priv, mask=mask)
    legal = mask.bool()
    torch.testing.assert_close(ml[legal], logits[legal], rtol=1e-5, atol=1e-5)
    assert torch.all(ml[~legal] == MASKED)
    torch.testing.assert_close(mv, value)
    torch.testing.assert_close(mh, h)
    # a sequence (T, B, D) gives the step-by-step results
    seq = obs.unsqueeze(0).expand(3, B, -1)
    sl, sv, sb, sh = net(seq, h0, priv.unsqueeze(0).expand(3, B, -1), mask=mask.unsqueeze(0).expand(3, B, -1))
    assert sl.shape == (3, B, A) and sv.shape == (3, B) and sb.shape == (3, B, n - 1, 4)
    torch.testing.assert_close(sl[0], ml)
    _, _, _, h1 = net(obs, h0, priv)
    _, _, _, h2 = net(obs, h1, priv)
    _, _, _, h3 = net(obs, h2, priv)
    torch.testing.assert_close(sh, h3, rtol=1e-5, atol=1e-5)


def test_the_rows_actions_refer_to_are_read_from_the_tables_parts_as_from_the_whole_table():
    """``EntityNet._referred`` reads each action's entity row from the table's parts
    (no concatenation): for every action of every row, the same bytes as indexing the
    concatenated table (whose row 0, for actions that refer to no entity, is zeros)."""
    from agents.networks import TABLE_PARTS
    n = 5
    net = _entity(n)
    AL = ActionLayout(n)
    sizes = {"players": n, "creatures": n * MAX_PERMS}
    sizes.update({name: slots for name, (_, slots, _) in net.blocks.items()})
    torch.manual_seed(1)
    parts = [torch.randn(3, 2, sizes[name], 16) for name in TABLE_PARTS[1:]]
    table = torch.cat([torch.zeros(3, 2, 1, 16), *parts], dim=-2)
    row = torch.arange(6).repeat_interleave(AL.size)
    act = torch.arange(AL.size).repeat(6)
    got = net._referred(parts, row, act)
    assert torch.equal(got, net._referred([table], row, act))
    assert torch.equal(got, table.reshape(6, -1, 16)[row, net.action_ref[act]])
    assert (net.action_ref == 0).any() and torch.all(got[net.action_ref[act] == 0] == 0)


def test_an_action_is_scored_from_the_features_of_what_it_refers_to():
    """Swap two creature slots of one player: their PERM actions' logits swap
    (with equal per-index embeddings and index-head rows), since the torso pools creatures without
    order and each PERM logit reads its own slot's embedding."""
    _assert_swapping_two_creatures_swaps_their_logits(_entity(5, priv=False), 5)


def _assert_swapping_two_creatures_swaps_their_logits(net: torch.nn.Module, n: int) -> None:
    """Player 1's creatures in slots 2 and 7 (a third creature, of player 3, beside
    them), then swapped: with equal per-index embeddings and index-head rows for
    the two PERM actions, their logits swap."""
    L, AL = obs_layout(n), ActionLayout(n)
    cf = L.creature_features
    a, b = AL.perm(1, 2), AL.perm(1, 7)
    with torch.no_grad():
        net.action_emb[b] = net.action_emb[a]
        net.index_head.weight[b] = net.index_head.weight[a]
        net.index_head.bias[b] = net.index_head.bias[a]
        obs = torch.zeros(L.size)
        x = obs[L.creatures:L.creatures + n * MAX_PERMS * cf].view(n * MAX_PERMS, cf)
        x[1 * MAX_PERMS + 2, :5] = torch.tensor([1.0, 0.3, 0.2, 0.0, 1.0])   # present, 3/2, tapped
        x[1 * MAX_PERMS + 7, :5] = torch.tensor([1.0, 0.5, 0.5, 0.1, 0.0])   # present, 5/5, damaged
        x[3 * MAX_PERMS + 0, :5] = torch.tensor([1.0, 0.4, 0.4, 0.0, 0.0])   # another player's 4/4
        swapped = obs.clone()
        y = swapped[L.creatures:L.creatures + n * MAX_PERMS * cf].view(n * MAX_PERMS, cf)
        y[[1 * MAX_PERMS + 2, 1 * MAX_PERMS + 7]] = x[[1 * MAX_PERMS + 7, 1 * MAX_PERMS + 2]]
        h0 = net.initial_state(1)
        l1 = net(obs[None], h0)[0][0]
        l2 = net(swapped[None], h0)[0][0]
    assert not torch.isclose(l1[a], l1[b])
    torch.testing.assert_close(l2[a], l1[b])
    torch.testing.assert_close(l2[b], l1[a])


def test_the_actor_never_reads_the_privileged_input():
    """Policy and belief logits are the same whatever the critic's hidden input
    says; only the value changes.  Without it (play time) the value is None."""
    net = _entity(5)
    states = _states(5)
    obs = torch.from_numpy(np.stack([o["observation"] for o, _, _ in states]))
    mask = torch.from_numpy(np.stack([o["action_mask"] for o, _, _ in states]))
    h0 = torch.randn(len(states), 32)
    true = torch.from_numpy(np.stack([privileged_features(g, s) for _, g, s in states]))
    lies = true[:, torch.randperm(true.shape[1], generator=torch.Generator().manual_seed(1))]
    l1, v1, b1, h1 = net(obs, h0, true, mask=mask)
    l2, v2, b2, h2 = net(obs, h0, lies, mask=mask)
    l3, v3, b3, h3 = net(obs, h0, mask=mask)
    for other in ((l2, b2, h2), (l3, b3, h3)):
        torch.testing.assert_close(other[0], l1, rtol=0, atol=0)
        torch.testing.assert_close(other[1], b1, rtol=0, atol=0)
        torch.testing.assert_close(other[2], h1, rtol=0, atol=0)
    assert not torch.allclose(v1, v2) and v3 is None
    # and the gradient of the actor's outputs reaches no privileged weight
    net.zero_grad()
    l, _, b, _ = net(obs, h0, true)
    (l.sum() + b.sum()).backward()
    first = net.critic.net[0]
    assert first.weight.grad is None or torch.all(first.weight.grad == 0)


def test_privileged_features_are_every_seats_true_role_relative():
    g = random_game(3, 40, n=5, max_turns=60)
    f = privileged_features(g, 2)
    assert f.dtype == np.float32 and f.shape == (20,)
    roles = [int(p.role) for p in g.players]
    assert [int(np.argmax(f[4 * k:4 * k + 4])) for k in range(5)] == [roles[(2 + k) % 5] for k in range(5)]
    assert f.sum() == 5


def test_entity_policy_bot_uses_only_its_information_set(tmp_path):
    """The entity policy as a bot: permuting hidden information changes neither
    its action nor its beliefs (its critic is privileged but never runs at play time)."""
    n = 5
    cfg = GameConfig(num_players=n)
    path = save_checkpoint(tmp_path / "e.pt", _entity(n, seed=4), cfg.to_dict())
    assert_policy_uses_only_its_information_set(path, n)


def test_checkpoints_say_which_network_they_hold(tmp_path):
    n = 4
    L, AL = obs_layout(n), ActionLayout(n)
    ent = EntityNet(L.size, AL.size, n, hidden=16, entity=8, privileged_size=16)
    p = load_checkpoint(save_checkpoint(tmp_path / "e.pt", ent, {"num_players": n}))
    assert isinstance(p["net"], EntityNet) and p["model_kwargs"]["arch"] == "entity"
    for k, v in ent.state_dict().items():
        assert torch.equal(p["net"].state_dict()[k], v)
    flat = PolicyNet(L.size, AL.size, n, hidden=8)              # written before "arch" existed: no key
    assert "arch" not in flat.kwargs
    assert isinstance(load_checkpoint(save_checkpoint(tmp_path / "f.pt", flat, {"num_players": n}))["net"], PolicyNet)
    with pytest.raises(ValueError, match="unknown network architecture 'transformer'"):
        build_network({"arch": "transformer", "obs_size": 1})
    with pytest.raises(ValueError, match="layouts for 4 players"):
        EntityNet(L.size + 1, AL.size, n)
    payload = torch.load(tmp_path / "e.pt", weights_only=True)
    payload["model_kwargs"]["arch"] = "transformer"
    torch.save(payload, tmp_path / "bad.pt")
    with pytest.raises(ValueError, match="do not fit its network.*transformer"):
        load_checkpoint(tmp_path / "bad.pt")


def test_flat_network_with_a_privileged_critic():
    torch.manual_seed(0)
    net = PolicyNet(10, 7, 4, hidden=8, privileged_size=16)
    obs, h0 = torch.randn(3, 10), torch.zeros(3, 8)
    l1, v1, b1, _ = net(obs, h0, torch.zeros(3, 16))
    l2, v2, b2, _ = net(obs, h0, torch.ones(3, 16))
    assert torch.equal(l1, l2) and torch.equal(b1, b2) and not torch.allclose(v1, v2)
    assert net(obs, h0)[1] is None
    with pytest.raises(ValueError, match="privileged input has 3 features; the critic reads 16"):
        net(obs, h0, torch.zeros(3, 3))


# --------------------------------------------------------------------------- the rollouts' inference step
def _step_inputs(n: int = 5) -> tuple:
    """Observations (dense and sparse), states, masks, privileged inputs and proposals at decisions
    of random games (a zero state and a random one per decision, so the GRU's both terms count)."""
    states = _states(n) * 2
    obs = torch.from_numpy(np.stack([o["observation"] for o, _, _ in states]))
    mask = torch.from_numpy(np.stack([o["action_mask"] for o, _, _ in states]))
    priv = torch.from_numpy(np.stack([privileged_features(g, s) for _, g, s in states]))
    h0 = torch.cat([torch.zeros(len(states) // 2, 32),
                    torch.randn(len(states) // 2, 32, generator=torch.Generator().manual_seed(2))])
    prior = torch.tensor([int(np.flatnonzero(m)[0]) if i % 3 else -1 for i, m in enumerate(mask.numpy())])
    return obs, SparseObs.from_dense(obs), h0, mask, priv, prior


def _flat(n: int, privileged: int, seed: int) -> PolicyNet:
    torch.manual_seed(seed)
    return PolicyNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, privileged_size=privileged).eval()


@pytest.mark.parametrize("arch,privileged", [("flat", 0), ("flat", 20), ("entity", 0), ("entity", 20)])
def test_step_gives_the_forward_passs_masked_logits_value_and_state(arch, privileged):
    """``step`` (the rollouts' inference: :class:`PolicyNet`'s reads the weights directly) returns
    what ``forward`` then ``masked_logits`` give, bit for bit, with and without a mask, a
    privileged critic (its value None without the input), dense or sparse rows and a proposal."""
    n = 5
    obs, sp, h0, mask, priv, prior = _step_inputs(n)
    torch.manual_seed(1)
    net = _flat(n, privileged, 0) if arch == "flat" else \
        EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, privileged_size=privileged,
                  prior="heuristic").eval()
    P = priv if privileged else None
    with torch.no_grad():
        for x, m, p in ((sp, mask, P), (obs, mask, P), (sp, None, P), (sp, mask, None)):
            logits, value, _, h = net(x, h0, p, mask=m, prior=prior)
            want = (logits if m is None else masked_logits(logits, m), value, h)
            got = net.step(x, h0, m, p, prior)
            assert not any(t.requires_grad for t in got if t is not None)
            for u, v in zip(got, want):
                assert (u is None and v is None) or torch.equal(u, v)
            assert (got[1] is None) == (privileged > 0 and p is None)
            if m is not None:
                assert torch.all(got[0][~m.bool()] == MASKED)


def test_step_reads_weights_loaded_after_it_ran():
    """Nothing is kept from the weights between steps: after ``load_state_dict`` (the collector's
    ``set_weights`` every iteration) a step gives the loaded network's outputs."""
    n = 5
    _, sp, h0, mask, _, _ = _step_inputs(n)
    net, other = _flat(n, 0, 0), _flat(n, 0, 1)
    with torch.no_grad():
        other.policy_head.bias.normal_()                       # its logits differ in more than the last bits
        before = net.step(sp, h0, mask)
        net.load_state_dict(other.state_dict())
        after, want = net.step(sp, h0, mask), other.step(sp, h0, mask)
    assert not torch.equal(before[0], after[0])
    for u, v in zip(after, want):
        assert torch.equal(u, v)
    with pytest.raises(ValueError, match="observation has 7 features"):
        net.step(torch.zeros(2, 7), net.initial_state(2), None)


def test_trusted_sparse_rows_equal_the_checked_ones():
    """``SparseObs.trusted`` (the collector's rows, no checks) holds what the constructor holds; the
    constructor still refuses bad rows."""
    sp = SparseObs.from_dense(_sparse_like_obs(9, 40))
    t = SparseObs.trusted(sp.nnz, sp.cols, sp.vals, 40)
    assert t.shape == (9,) and t.size == 40 and torch.equal(t.offsets, sp.offsets)
    assert torch.equal(t.dense(), sp.dense())
    assert torch.equal(t.rows(torch.tensor([4, 0])).dense(), sp.dense()[[4, 0]])
    bad = sp.cols.clone()
    bad[-1] = 40
    with pytest.raises(ValueError, match=r"feature indices must lie in \[0, 40\)"):
        SparseObs(sp.nnz, bad, sp.vals, 40)


# --------------------------------------------------------------------------- the sparse observation path
def _sparse_like_obs(rows: int, size: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    x = torch.zeros(rows, size)
    keep = torch.rand(rows, size, generator=g) < 0.03               # ~3% nonzero, as observations are
    x[keep] = torch.rand(int(keep.sum()), generator=g) * 2 - 0.5
    x[1] = 0                                                         # a row with no feature at all
    return x


def test_sparse_observations_hold_exactly_the_dense_rows():
    x = _sparse_like_obs(12, 50)
    sp = SparseObs.from_dense(x)
    assert torch.equal(sp.dense(), x) and sp.shape == (12,) and int(sp.nnz[1]) == 0
    idx = torch.tensor([[3, 1, 3], [0, 11, 7]])                      # any shape, repeats allowed
    assert torch.equal(sp.rows(idx).dense(), x[idx])
    assert sp.rows(idx).shape == (2, 3)
    b = sparse_rows(x.numpy())                                       # the batch keys training stores
    assert b["obs_cols"].dtype == np.int32 and b["obs_nnz"].sum() == len(b["obs_vals"]) == int((x != 0).sum())
    assert torch.equal(batch_observations(b, 50).dense(), x)
    with pytest.raises(ValueError, match="rows"):
        SparseObs(sp.nnz, sp.cols, sp.vals, 50, shape=(5, 2))
    with pytest.raises(ValueError, match="nonzeros"):
        SparseObs(sp.nnz, sp.cols[:-1], sp.vals[:-1], 50)


def test_the_observation_embedding_is_the_linear_layer_it_replaced():
    """The flat network's first layer reads the nonzero features only; it is
    ``Linear(D, H)`` in value, dense or sparse input alike, gradients too; a state
    dict of the ``nn.Linear`` (``weight (H, D)``) loads transposed."""
    torch.manual_seed(0)
    emb = ObservationEmbedding(50, 8)
    with torch.no_grad():
        emb.bias.normal_()
    x = _sparse_like_obs(6, 50)
    want = x @ emb.weight + emb.bias
    assert torch.allclose(emb(x), want, atol=1e-6)
    assert torch.equal(emb(SparseObs.from_dense(x)), emb(x))
    assert torch.equal(emb(x.reshape(2, 3, 50)), emb(x).reshape(2, 3, 8))
    emb(x).square().sum().backward()
    got = emb.weight.grad.clone()
    w = emb.weight.detach().clone().requires_grad_(True)
    (x @ w + emb.bias.detach()).square().sum().backward()
    assert torch.allclose(got, w.grad, atol=1e-5)
    assert torch.all(got[(x != 0).sum(0) == 0] == 0)                # features never seen get no gradient
    old = torch.nn.Linear(50, 8)                                     # the layer's form before
    fresh = ObservationEmbedding(50, 8)
    fresh.load_state_dict(old.state_dict())
    assert torch.allclose(fresh(x), old(x), atol=1e-6)
    with pytest.raises(ValueError, match="49 features"):
        emb(torch.zeros(2, 49))


def test_the_observation_embeddings_backward_gives_the_dense_products_gradients():
    """The sparse path's own backward (the nonzeros regrouped by feature and summed
    by ``embedding_bag``) gives the weight and bias gradients of ``x @ W + b``, and
    ``embedding_bag``'s own backward's to rounding: rows with no feature, a feature
    in every other row, repeated rows, a leading shape."""
    torch.manual_seed(0)
    emb = ObservationEmbedding(60, 16)
    with torch.no_grad():
        emb.bias.normal_()
    x = _sparse_like_obs(30, 60, seed=3)
    x[::2, 7] = torch.rand(15) + 0.5                                 # a feature in many rows
    x[[1, 4]] = 0                                                    # rows with no feature at all
    idx = torch.randint(0, 30, (4, 9), generator=torch.Generator().manual_seed(4))
    idx[0, :3] = 1                                                   # an empty row, repeated
    idx[1, :3] = 0                                                   # a full one, repeated
    sp = SparseObs.from_dense(x).rows(idx)
    g = torch.randn(4, 9, 16)
    y = emb(sp)
    y.backward(g)
    w = emb.weight.detach().clone().requires_grad_(True)
    b = emb.bias.detach().clone().requires_grad_(True)
    want = x[idx] @ w + b
    want.backward(g)
    assert torch.allclose(y, want, atol=1e-6)
    assert torch.allclose(emb.weight.grad, w.grad, rtol=1e-5, atol=1e-6)
    assert torch.allclose(emb.bias.grad, b.grad, rtol=1e-5, atol=1e-6)
    assert torch.all(emb.weight.grad[(x[idx] != 0).sum((0, 1)) == 0] == 0)
    w2 = emb.weight.detach().clone().requires_grad_(True)            # embedding_bag's own backward
    torch.nn.functional.embedding_bag(sp.cols, w2, sp.offsets, mode="sum", per_sample_weights=sp.vals).backward(
        g.reshape(-1, 16))
    assert torch.allclose(emb.weight.grad, w2.grad, rtol=1e-6, atol=1e-7)
    emb.zero_grad()
    emb(SparseObs.from_dense(torch.zeros(3, 60))).sum().backward()   # no nonzero anywhere
    assert torch.equal(emb.weight.grad, torch.zeros(60, 16)) and torch.equal(emb.bias.grad, torch.full((16,), 3.0))
    emb64 = ObservationEmbedding(60, 16).double()                    # and as gradcheck sees it
    sp64 = SparseObs.from_dense(x[:6].double())
    assert torch.autograd.gradcheck(lambda wt: torch.func.functional_call(
        emb64, {"weight": wt, "bias": emb64.bias}, (sp64,)), (emb64.weight.detach().clone().requires_grad_(True),))


def test_a_flat_network_reads_dense_and_sparse_observations_alike():
    from test_training import TINY_GAME, _sizes
    n = TINY_GAME["num_players"]
    d, a = _sizes()
    net = PolicyNet(d, a, n, hidden=32).eval()
    g = torch.Generator().manual_seed(1)
    dense = torch.zeros(3, 2, d)
    dense[torch.rand(3, 2, d, generator=g) < 0.02] = 1.0
    h0 = net.initial_state(2)
    with torch.no_grad():
        out_dense = net(dense, h0)
        out_sparse = net(SparseObs.from_dense(dense), h0)
        one_dense = net(dense[0], h0)
        one_sparse = net(SparseObs.from_dense(dense[0]), h0)
    for u, v in zip(out_dense + one_dense, out_sparse + one_sparse):
        assert (u is None and v is None) or torch.equal(u, v)
    assert out_dense[0].shape == (3, 2, a) and one_sparse[0].shape == (2, a)
    reference = net(dense.clone().requires_grad_(True), h0)      # the dense product x W + b
    for u, v in zip(out_sparse, reference):
        assert (u is None and v is None) or torch.allclose(u, v.detach(), atol=1e-5)


@pytest.mark.parametrize("privileged", [0, 8])
def test_forward_hooks_on_every_layer_fire_with_and_without_gradients(privileged):
    """Hook-based tools (Captum's layer attribution, activation capture) see every layer of the
    flat network in training and saliency (gradients on) as at play (no_grad): each module's
    forward hook fires once a forward pass (a stacked product of the heads made them silent)."""
    torch.manual_seed(0)
    net = PolicyNet(60, 7, 4, hidden=8, privileged_size=privileged)
    fired: dict = {}
    for name, m in net.named_modules():
        if name and not list(m.children()):
            m.register_forward_hook(lambda mod, inp, out, name=name: fired.__setitem__(name, fired.get(name, 0) + 1))
    x, h0 = _sparse_like_obs(5, 60), net.initial_state(5)
    priv = torch.zeros(5, privileged) if privileged else None
    for grad in (True, False):
        fired.clear()
        with torch.set_grad_enabled(grad):
            net(x, h0, priv)
        assert fired and set(fired.values()) == {1}, (grad, fired)
        assert {"policy_head", "belief_head"} <= set(fired)
        assert ("critic.net.0" if privileged else "value_head") in fired


def test_the_flat_network_keeps_input_gradients_and_other_dtypes():
    """A dense input that asks for its gradient gets it at every feature, zero
    ones too (saliency); the network runs in float64 as in float32."""
    torch.manual_seed(0)
    net = PolicyNet(60, 7, 4, hidden=8).eval()
    x = _sparse_like_obs(5, 60)
    x.requires_grad_(True)
    net(x, net.initial_state(5))[0].sum().backward()
    dense = torch.nn.Linear(60, 8)
    with torch.no_grad():
        dense.weight.copy_(net.encoder[0].weight.t())
        dense.bias.copy_(net.encoder[0].bias)
    x2 = x.detach().clone().requires_grad_(True)
    e = net.encoder[1:](dense(x2))
    z, _ = _run_core(net.core, e[None], net.initial_state(5))
    net.policy_head(z).sum().backward()
    assert torch.allclose(x.grad, x2.grad, atol=1e-6)
    assert (x.grad[x.detach() == 0] != 0).sum() > 100             # zero features get their gradient too
    with torch.no_grad():
        lo = net(x.detach(), net.initial_state(5))[0]
        hi = net.double()(x.detach().double(), net.initial_state(5).double())[0]
    assert hi.dtype == torch.float64 and torch.allclose(hi.float(), lo, atol=1e-5)


def test_the_packed_gru_is_nn_grus_cell_step_by_step():
    """``_run_core`` with ``starts`` (the input side of every step in one product, the
    gates per step, the backward written out) gives the outputs, last state and
    gradients (input, the state before each step, all four GRU weights) of torch's own
    GRU cell stepped with the restarts, and of ``nn.GRU`` run over each sequence of a
    row on its own; the written-out backward passes ``gradcheck`` in float64."""
    torch.manual_seed(3)
    T, B, H = 9, 6, 16
    core = torch.nn.GRU(H, H)
    with torch.no_grad():
        for p in core.parameters():
            p.uniform_(-0.6, 0.6)                         # gates away from saturation and from 1/2
    e = torch.randn(T, B, H)
    h0 = torch.randn(T, B, H)
    starts = torch.rand(T, B) < 0.3
    starts[0] = True
    starts[:, 0] = False
    starts[0, 0] = True                                   # one row a single sequence
    starts[1:, 1] = True                                  # one a new sequence at every step
    weights = torch.randn(T, B, 2 * H)
    names = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")

    def grads(run):
        core.zero_grad()
        x, s = e.clone().requires_grad_(True), h0.clone().requires_grad_(True)
        z, h = run(x, s)
        ((z * weights).sum() + (h * weights[0, :, :H]).sum()).backward()
        return [z, h, x.grad, s.grad] + [getattr(core, k).grad.clone() for k in names]

    def cell(x, s):                                       # the per-step cell the packed path replaced
        w = [getattr(core, k) for k in names]
        h, outs = s[0], []
        for t in range(T):
            h = torch.gru_cell(x[t], torch.where(starts[t].unsqueeze(-1), s[t], h), *w)
            outs.append(h)
        return torch.cat([x, torch.stack(outs)], -1), h

    def whole(x, s):                                      # nn.GRU over each sequence of each row
        cols, last = [], []
        for b in range(B):
            at = starts[:, b].nonzero().squeeze(-1).tolist() + [T]
            parts = [core(x[a:c, b:b + 1], s[a, b][None, None])[0] for a, c in zip(at, at[1:])]
            cols.append(torch.cat(parts))
            last.append(cols[-1][-1])
        return torch.cat([x, torch.cat(cols, 1)], -1), torch.cat(last)

    got = grads(lambda x, s: _run_core(core, x, s, starts))
    for ref in (grads(cell), grads(whole)):
        for a, b in zip(got, ref):
            assert a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-6), (a - b).abs().max()
    assert all(g.abs().sum() > 0 for g in got[2:])
    small = (slice(0, 4), slice(0, 3), slice(0, 3))                       # (T, B, H) = (4, 3, 3)
    dbl = [x.double().requires_grad_(True) for x in (torch.randn(4, 3, 9), h0[small], torch.randn(9, 3),
                                                       torch.randn(9))]
    assert torch.autograd.gradcheck(lambda gi, s, w, b: _PackedGRU.apply(gi, s, starts[small[:2]], w, b, None), dbl)


@pytest.mark.parametrize("low", [None, torch.bfloat16], ids=["float32", "bfloat16 products"])
def test_the_compiled_gru_gates_give_the_torch_operations_results(low, monkeypatch):
    """``agents/_gru_gates.pyx`` (one pass a step over the gates, forward and backward) gives
    :class:`_PackedGRU`'s states and gradients (input side, stored states, ``W_hh``, ``b_hh``)
    as its torch operations do, to float32 rounding (with bfloat16 products, to the rounding
    of their operands, which the two paths' float32 differences move), at the update's shape
    and with sequences restarting mid-row."""
    import agents.networks as networks
    if networks.GRU_GATES != "compiled":
        pytest.skip("the gate kernels are not built here (tests/test_compiled.py says where they must be)")
    g = torch.Generator().manual_seed(7)
    T, B, H = 16, 64, 256
    gi, h0 = torch.randn(T, B, 3 * H, generator=g), torch.randn(T, B, H, generator=g)
    w, b = torch.empty(3 * H, H).uniform_(-0.1, 0.1, generator=g), torch.randn(3 * H, generator=g) * 0.1
    starts = torch.rand(T, B, generator=g) < 0.2
    starts[0] = True
    weights = torch.randn(T, B, H, generator=g)

    def run():
        xs = [x.clone().requires_grad_(True) for x in (gi, h0, w, b)]
        out = _PackedGRU.apply(xs[0], xs[1], starts.T.contiguous().T, xs[2], xs[3], low)   # starts non-contiguous
        out.backward(weights)
        return [out.detach()] + [x.grad for x in xs]

    compiled = run()
    monkeypatch.setattr(networks, "_GATES", None)
    reference = run()
    tol = 1e-6 if low is None else 2e-3
    for name, a, r in zip(("out", "gi", "h0", "w_hh", "b_hh"), compiled, reference):
        assert (a - r).norm() <= tol * r.norm(), (name, float((a - r).norm() / r.norm()))
        assert (a - r).abs().max() <= 50 * tol * r.abs().max(), name


@pytest.mark.parametrize("make, phrase", [
    (lambda: SparseObs([2], [0, 50], [1.0, 1.0], 50), r"lie in \[0, 50\)"),
    (lambda: SparseObs([2, -1], [0, 1], [1.0], 50), "negative"),
    (lambda: SparseObs([2], [[0, 1]], [1.0, 1.0], 50), "1-D"),
    (lambda: batch_observations({"obs": np.zeros((2, 3), np.float32)}, 3), "sparse_rows"),
    (lambda: sparse_rows(np.zeros(3, np.float32)), r"\(N, D\)"),
], ids=["index out of range", "negative count", "2-D indices", "dense batch", "1-D rows"])
def test_bad_sparse_observations_are_one_line_errors(make, phrase):
    with pytest.raises(ValueError, match=phrase) as err:
        make()
    assert len(str(err.value).splitlines()) == 1


def test_sparse_observations_take_arrays_and_lists():
    a = SparseObs(np.array([1, 0, 2]), [4, 0, 9], np.array([0.5, 1.0, -2.0]), 10)
    assert a.dense().dtype == torch.float64 and a.dense()[2, 9] == -2.0 and a.shape == (3,)


def test_optimizer_state_loads_with_this_torchs_fused_setting():
    """A checkpoint's Adam state from the per-tensor loop runs fused where torch can,
    and one written fused resumes in an optimizer that is not (torch 2.3)."""
    from training.ppo import _load_optimizer_state, make_optimizer
    torch.manual_seed(0)
    net = PolicyNet(30, 4, 3, hidden=8)
    loop = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-5)
    net(_sparse_like_obs(4, 30), net.initial_state(4))[0].sum().backward()
    loop.step()
    fused = make_optimizer(net, 1e-3)
    _load_optimizer_state(fused, loop.state_dict())
    assert all(g["fused"] == fused.defaults["fused"] for g in fused.param_groups)
    back = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-5)
    _load_optimizer_state(back, fused.state_dict())
    assert all(not g["fused"] for g in back.param_groups)
    net(_sparse_like_obs(4, 30), net.initial_state(4))[0].sum().backward()
    back.step()
    fused.step()


def test_a_flat_checkpoint_from_before_the_embedding_loads_and_resumes(tmp_path):
    """A run whose first layer was an ``nn.Linear`` (weight and Adam moments ``(H, D)``)
    resumes: weights and moments are transposed to the new layout, and it trains on."""
    cfg = tiny(tmp_path, total_steps=128)
    train(cfg, progress=False)
    ckpt = latest_checkpoint(cfg.run_dir)
    payload = torch.load(ckpt, weights_only=False)
    w = payload["model_state"]["encoder.0.weight"]
    payload["model_state"]["encoder.0.weight"] = w.t().contiguous()          # as a Linear stored it
    opt_state = payload["training_state"]["optimizer"]["state"]
    for st in opt_state.values():
        for k, v in st.items():
            if torch.is_tensor(v) and v.shape == w.shape:
                st[k] = v.t().contiguous()
    torch.save(payload, ckpt)
    net = PolicyNet(**{k: v for k, v in payload["model_kwargs"].items() if k != "arch"})
    net.load_state_dict(payload["model_state"])
    assert torch.equal(net.encoder[0].weight, w)
    result = train(replace(cfg, total_steps=600), resume=True, progress=False)
    assert result["steps"] >= 600
    resumed = torch.load(latest_checkpoint(cfg.run_dir), weights_only=False)
    shapes = [tuple(v.shape) for v in resumed["model_state"].values()]
    moments = [tuple(v.shape) for st in resumed["training_state"]["optimizer"]["state"].values()
               for k, v in st.items() if k.startswith("exp_avg")]
    assert tuple(w.shape) in moments and tuple(w.shape)[::-1] not in moments    # each in its parameter's layout
    assert set(moments) <= set(shapes)


# --------------------------------------------------------------------------- training with them
def _solo_learner_roles(col: Collector, games: int) -> np.ndarray:
    """Counts by role (Role values) of the learner's seat in ``games`` new games of ``col``,
    each checked to give the learner exactly one seat."""
    roles = []
    for _ in range(games):
        slot = col._new_game(col.slots[0])
        learner = [s for s, c in enumerate(slot.ctrl) if c == "learner"]
        assert len(learner) == 1
        roles.append(int(slot.roles[learner[0]]))
    return np.bincount(roles, minlength=4)


def test_solo_games_give_the_learner_one_seat_of_each_role_equally(tmp_path):
    cfg = tiny(tmp_path, opponents={"random": 1}, solo=1.0, games_per_worker=4)
    counts = _solo_learner_roles(Collector(cfg, seed=2), 400)
    # 4 players: a Leader, two Assassins, a Traitor and no Guardian; each role present
    # drawn uniformly (not each seat): about 133 of 400 each, sd about 9.4
    assert counts[1] == 0 and counts[[0, 2, 3]].min() >= 100 and counts.max() <= 166, counts
    mixed = Collector(tiny(tmp_path, opponents={"random": 1}, solo=0.0), seed=2)
    sizes = {sum(c == "learner" for c in mixed._new_game(mixed.slots[0]).ctrl) for _ in range(60)}
    assert sizes == {1, 2, 3}


def test_solo_roles_give_the_learner_only_those_roles(tmp_path):
    cfg = tiny(tmp_path, opponents={"random": 1}, solo=1.0, solo_roles=["assassin", "traitor"], games_per_worker=4)
    counts = _solo_learner_roles(Collector(cfg, seed=2), 200)
    # drawn uniformly between the two roles: about 100 each, sd about 7
    assert counts[0] == counts[1] == 0 and counts[[2, 3]].min() >= 75, counts
    assert _solo_learner_roles(Collector(replace(cfg, solo_roles=[" Assassin"]), seed=3), 20)[2] == 20
    with pytest.raises(ValueError, match=r"solo_roles = \[\"guardian\"\] is invalid; allowed: roles this game's "
                                         r"identity deck deals: \['assassin', 'leader', 'traitor'\]"):
        tiny(tmp_path, opponents={"random": 1}, solo=1.0, solo_roles=["guardian"])      # 4 players: no Guardian
    with pytest.raises(ValueError, match="solo_roles.*unless solo > 0"):
        TrainConfig(solo_roles=["assassin"])
    with pytest.raises(ValueError, match="solo_roles.*not self-play"):
        TrainConfig(solo=1.0, solo_roles=["assassin"], opponents={"self": 1.0})
    for bad, why in ((["wizard"], "unknown role 'wizard'"), (["leader", "Leader"], "leader named twice"),
                     ("assassin", "a list, not one name"), ([1], "unknown role 1")):
        with pytest.raises(ValueError, match=rf"solo_roles.*distinct role names.*\({why}"):
            TrainConfig(solo=1.0, solo_roles=bad)


def test_anchor_schedule():
    c = TrainConfig(imitation=0.2, imitation_coef=0.5, anchor_schedule="linear")
    assert c.anchor_coef(0.1) == 0.5 and c.anchor_coef(0.2) == 0.5
    assert c.anchor_coef(0.6) == pytest.approx(0.25) and c.anchor_coef(1.0) == 0.0
    assert TrainConfig(imitation=0.2, imitation_coef=0.5).anchor_coef(0.9) == 0.5
    with pytest.raises(ValueError, match="anchor_schedule"):
        TrainConfig(anchor_schedule="cosine")
    with pytest.raises(ValueError, match="solo"):
        TrainConfig(solo=1.5)
    with pytest.raises(ValueError, match="arch"):
        TrainConfig(arch="mlp")


def test_entity_rollouts_and_updates_learn_the_expert(tmp_path):
    """End to end on the tiny config: the entity network with a privileged critic
    collects a batch (with the critic's inputs) and imitation updates fit the expert."""
    cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, imitation=0.5, epochs=1,
               opponents={"self": 1, "heuristic": 1}, solo=0.5)
    torch.manual_seed(0)
    col = Collector(cfg, seed=1)
    assert isinstance(col.net, EntityNet) and col.net.kwargs["privileged_size"] == 16
    batch, _, _ = col.collect(400, label_expert=True)
    assert batch["priv"].shape == (len(batch["action"]), 16) and np.all(batch["priv"].sum(1) == 4)
    opt = torch.optim.Adam(col.net.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    hist = [ppo_update(col.net, opt, batch, cfg, rng, imitate=True) for _ in range(40)]
    assert hist[-1]["imitation_loss"] < 0.65 * hist[0]["imitation_loss"]
    assert hist[-1]["imitation_accuracy"] > hist[0]["imitation_accuracy"] + 0.2
    assert np.isfinite(hist[-1]["value_loss"])
    ppo = ppo_update(col.net, opt, batch, cfg, rng, anchor=0.0)      # the PPO objective runs too
    assert np.isfinite(ppo["policy_loss"]) and ppo["epochs_run"] >= 1
    # masked_logits leaves the entity network's masked logits unchanged
    o = batch_observations(batch, col.net.kwargs["obs_size"]).rows(torch.arange(4)).dense()
    m = torch.from_numpy(batch["mask"][:4])
    lg = col.net(o, col.net.initial_state(4), mask=m)[0]
    assert torch.equal(masked_logits(lg, m), lg)


# --------------------------------------------------------------------------- the proposal input (residual policy)
def _prior_net(n: int = 5, seed: int = 0) -> EntityNet:
    torch.manual_seed(seed)
    return EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, privileged_size=4 * n,
                     prior="heuristic").eval()


def _plain_and_gated(n: int = 5) -> tuple[EntityNet, EntityNet]:
    """A proposal network and the same network with an advantage gate (width 8, threshold 0.05)."""
    plain = _prior_net(n, seed=2)
    gated = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, privileged_size=4 * n,
                      prior="heuristic", gate=8, gate_threshold=0.05).eval()
    gated.load_state_dict({**plain.state_dict(), **{f"gate.{k}": v for k, v in gated.gate.state_dict().items()}})
    return plain, gated


def test_the_proposal_changes_only_the_proposed_actions_logit():
    """``prior=p`` adds to action p's key and logit alone: every other logit, the
    value, the beliefs and the recurrent state are those of ``prior=-1``; the
    masked and unmasked paths agree; a network without ``prior`` ignores it."""
    n = 5
    net = _prior_net(n)
    with torch.no_grad():
        net.prior_key.normal_()                  # a trained-looking key, not the zero initial one
    states = _states(n)
    obs = torch.from_numpy(np.stack([o["observation"] for o, _, _ in states]))
    mask = torch.from_numpy(np.stack([o["action_mask"] for o, _, _ in states]))
    priv = torch.from_numpy(np.stack([privileged_features(g, s) for _, g, s in states]))
    B = len(states)
    h0 = net.initial_state(B)
    prop = torch.tensor([int(np.flatnonzero(m)[-1]) for m in mask.numpy()])
    none = torch.full((B,), -1)
    with torch.no_grad():
        l0, v0, b0, h_0 = net(obs, h0, priv, mask=mask, prior=none)
        l1, v1, b1, h_1 = net(obs, h0, priv, mask=mask, prior=prop)
        u1 = net(obs, h0, priv, prior=prop)[0]
    hit = torch.zeros_like(mask, dtype=torch.bool)
    hit[torch.arange(B), prop] = True
    assert torch.equal(l0[~hit], l1[~hit])
    assert torch.all(l1[hit] != l0[hit])
    torch.testing.assert_close(u1[mask.bool()], l1[mask.bool()], rtol=1e-5, atol=1e-5)
    assert torch.equal(v0, v1) and torch.equal(b0, b1) and torch.equal(h_0, h_1)
    torch.testing.assert_close(l0, net(obs, h0, priv, mask=mask)[0])    # None: no proposal anywhere
    plain = _entity(n)
    assert torch.equal(plain(obs, h0, priv, mask=mask)[0], plain(obs, h0, priv, mask=mask, prior=prop)[0])
    with pytest.raises(ValueError, match="prior must be one of"):
        EntityNet(obs_layout(n).size, ActionLayout(n).size, n, prior="lookahead")


def test_a_policy_with_a_proposal_input_plays_from_its_view(tmp_path):
    """The bot makes its own heuristic proposer (reset with it), refuses to act
    without ``info["view"]`` (one line), keeps to its information set, and a
    network whose proposal bonus dominates plays exactly the heuristic bot."""
    from agents import make, play_game
    from agents.heuristic import HeuristicAgent
    from test_training import assert_policy_uses_only_its_information_set

    n = 5
    cfg = GameConfig(num_players=n)
    net = _prior_net(n, seed=2)
    path = save_checkpoint(tmp_path / "p.pt", net, cfg.to_dict())
    bot = make(f"policy:{path}", seed=1)
    assert isinstance(bot.prior_bot, HeuristicAgent) and bot.net.kwargs["prior"] == "heuristic"
    o, g, s = _states(n, 1)[0]
    bot.reset(s)
    with pytest.raises(ValueError, match=r"reads the 'heuristic' bot's proposal, which needs info\['view'\]"):
        bot.act(o, {})
    from training.model_card import model_card
    assert "proposal input (at every decision the network also reads the action the `heuristic` bot proposes" \
        in model_card(path, "p")
    assert_policy_uses_only_its_information_set(path, n)
    with torch.no_grad():
        net.prior_bonus.fill_(1e4)
    path = save_checkpoint(tmp_path / "copy.pt", net, cfg.to_dict())
    a = play_game([make(f"policy:{path}", seed=0)] + [make("heuristic", seed=s) for s in range(1, n)], seed=5,
                  config=cfg)
    b = play_game([make("heuristic", seed=s) for s in range(n)], seed=5, config=cfg)
    assert a == b


def test_rollouts_record_the_proposals_the_network_read(tmp_path):
    """With ``prior = "heuristic"`` every policy seat's decision records the
    heuristic's proposal (equal to the heuristic expert's label), the update
    trains on it, and ``init`` from a checkpoint without the input loads every
    shared weight and keeps the proposal's initial parameters."""
    from test_training import _sizes
    from training.ppo import init_weights

    with pytest.raises(ValueError, match="prior"):
        TrainConfig(prior="heuristic")                  # arch = 'flat'
    with pytest.raises(ValueError, match="prior"):
        TrainConfig(arch="entity", prior="random")
    cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic", imitation=0.5,
               epochs=1, opponents={"self": 1, "heuristic": 1}, solo=0.5)
    torch.manual_seed(0)
    col = Collector(cfg, seed=1)
    assert col.net.kwargs["prior"] == "heuristic"
    batch, _, _ = col.collect(400, label_expert=True)
    assert np.all(batch["prior"] >= 0) and np.array_equal(batch["prior"], batch["expert"])
    assert np.all(batch["mask"][np.arange(len(batch["prior"])), batch["prior"]] == 1)
    opt = torch.optim.Adam(col.net.parameters(), lr=1e-3)
    before = col.net.prior_bonus.item()
    out = ppo_update(col.net, opt, batch, cfg, np.random.default_rng(0), anchor=0.5)
    assert np.isfinite(out["policy_loss"]) and col.net.prior_bonus.item() != before
    plain_cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True)
    plain = build_network(plain_cfg.network_kwargs(*_sizes()))
    path = save_checkpoint(tmp_path / "plain.pt", plain, plain_cfg.game_config().to_dict())
    net = build_network(cfg.network_kwargs(*_sizes()))
    init_weights(net, path)
    for k, v in plain.state_dict().items():
        assert torch.equal(net.state_dict()[k], v)
    assert net.prior_bonus.item() == 3.0 and torch.all(net.prior_key == 0)
    with pytest.warns(UserWarning, match="prior = expert = 'heuristic': every label is the proposal"):
        train(tiny(tmp_path / "same", arch="entity", entity=16, prior="heuristic", total_steps=100,
                   rollout_steps=100), progress=False, log=False)
    with pytest.raises(ValueError, match=r"differs from the config's in entity \(16 in the checkpoint vs 8\)$"):
        init_weights(build_network(tiny(tmp_path, arch="entity", entity=8, privileged_critic=True,
                                        prior="heuristic").network_kwargs(*_sizes())), path)


def test_departures_from_the_proposal_are_weighted_and_reported(tmp_path):
    """``departure_weight`` w weights a labelled step whose expert label differs
    from the proposal (``batch["prior"]``): the imitation loss is the weighted
    mean (w S_D + S_N) / (w |D| + |N|), checked for three weights on one batch
    with the network held still; ``departure_share`` and ``departure_accuracy``
    report those steps, and a network whose proposal bonus dominates follows
    the proposal on every one of them (accuracy 0)."""
    from test_training import _sizes

    for bad in (0, -1, float("inf"), float("nan"), True, 1e39):
        with pytest.raises(ValueError, match="departure_weight"):
            TrainConfig(departure_weight=bad)
    cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic", imitation=0.5,
               epochs=1, minibatch_steps=4096, opponents={"heuristic": 1}, solo=1.0)
    torch.manual_seed(0)
    col = Collector(cfg, seed=2)
    batch, _, _ = col.collect(300, label_expert=True)
    assert np.array_equal(batch["prior"], batch["expert"])     # the heuristic expert never departs
    # make every step with another legal action a departure to its lowest other action, on every third step
    legal_other = [int(np.flatnonzero(m)[0] if np.flatnonzero(m)[0] != p else np.flatnonzero(m)[-1])
                   for m, p in zip(batch["mask"], batch["prior"])]
    rows = [i for i in range(0, len(batch["prior"]), 3) if legal_other[i] != batch["prior"][i]]
    assert len(rows) >= 20
    batch["expert"][rows] = np.asarray(legal_other)[rows]

    def update(w: float, bonus: float | None = None) -> dict:
        c = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic", imitation=0.5,
                 epochs=1, minibatch_steps=4096, departure_weight=w)
        torch.manual_seed(3)
        net = build_network(c.network_kwargs(*_sizes())).eval()
        if bonus is not None:
            with torch.no_grad():
                net.prior_bonus.fill_(bonus)
        return ppo_update(net, torch.optim.Adam(net.parameters(), lr=0.0), batch, c, np.random.default_rng(0),
                          imitate=True)

    out = {w: update(w) for w in (1.0, 5.0, 9.0)}
    share = len(rows) / len(batch["expert"])
    for o in out.values():
        assert o["departure_share"] == pytest.approx(share)
    # solve S_D, S_N (per-step sums divided by the number of labelled steps) from w = 1 and w = 5, predict w = 9
    d, m = share, 1 - share
    l1, l5 = out[1.0]["imitation_loss"], out[5.0]["imitation_loss"]
    # l1 = sd + sn; l5 (5 d' + m') = 5 sd + sn, with sd = S_D / N, sn = S_N / N
    sd = (l5 * (5 * d + m) - l1) / 4
    sn = l1 - sd
    assert sd > 0 and sn > 0
    assert out[9.0]["imitation_loss"] == pytest.approx((9 * sd + sn) / (9 * d + m), rel=1e-4)
    assert out[5.0]["imitation_loss"] > out[1.0]["imitation_loss"]   # departures are the network's worst fit
    follow = update(1.0, bonus=1e4)
    assert follow["departure_accuracy"] == 0.0
    assert follow["imitation_accuracy"] == pytest.approx(1 - share)
    # gain_weight: a departure weighs departure_weight + gain_weight * its search gain (batch["expert_gain"])
    for bad in (-0.5, float("inf"), float("nan"), "2", 1e39):       # 1e39 overflows a float32 loss
        with pytest.raises(ValueError, match="gain_weight"):
            TrainConfig(gain_weight=bad)
    assert np.all(batch["expert_gain"] == 0)                    # the heuristic expert does not search
    batch["expert_gain"][rows] = 0.25
    c = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic", imitation=0.5,
             epochs=1, minibatch_steps=4096, departure_weight=1.0, gain_weight=16.0)
    torch.manual_seed(3)
    net = build_network(c.network_kwargs(*_sizes())).eval()
    gained = ppo_update(net, torch.optim.Adam(net.parameters(), lr=0.0), batch, c, np.random.default_rng(0),
                        imitate=True)
    assert gained["imitation_loss"] == pytest.approx(out[5.0]["imitation_loss"], rel=1e-5)   # 1 + 16 * 0.25 = 5
    assert gained["departure_gain"] == pytest.approx(0.25)
    assert 0.0 <= gained["gain_captured"] <= 1.0
    assert update(1.0, bonus=1e4)["gain_captured"] == 0.0        # it follows the proposal: no gain taken
    batch["expert_gain"][rows] = 0.0
    assert np.isnan(update(1.0)["gain_captured"])


def test_departure_settings_that_do_nothing_warn(tmp_path):
    """``departure_weight`` or ``gain_weight`` without ``prior`` (nothing is a
    departure) or without expert labels, and ``gain_weight`` with an expert
    that reports no search scores (every gain is 0), warn before the run
    starts; so does ``score_coef`` without labels or search scores."""
    cases = (({"departure_weight": 3.0}, "a network without prior reads none"),
             ({"gain_weight": 10.0}, "a network without prior reads none"),
             ({"arch": "entity", "entity": 16, "prior": "heuristic", "expert": "belief", "gain_weight": 10.0},
              "the expert 'belief' reports no search scores"),
             ({"arch": "entity", "entity": 16, "prior": "heuristic", "expert": "lookahead", "gain_weight": 10.0,
               "imitation": 0.0, "imitation_coef": 0.0}, "the expert labels nothing"),
             ({"expert": "belief", "score_coef": 1.0}, "the expert 'belief' reports no search scores"),
             ({"expert": "lookahead", "score_coef": 1.0, "imitation": 0.0, "imitation_coef": 0.0},
              "score_coef distils the expert's search scores, .* the expert labels nothing"))
    for i, (kw, match) in enumerate(cases):
        with pytest.warns(UserWarning, match=match):
            train(tiny(tmp_path / str(i), total_steps=100, rollout_steps=100, **kw), progress=False, log=False)


def test_lookahead_labels_carry_their_search_gain(tmp_path):
    """With the lookahead expert, a label that departs from the heuristic's
    proposal carries its search gain (the teacher's mean rollout score of the
    label minus its score of the proposal, ``LookaheadAgent.last_scores``),
    which is above the teacher's margin since it deviates only then; every
    label equal to the proposal has gain 0."""
    from agents.lookahead import LookaheadAgent

    cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic", expert="lookahead",
               imitation=0.5, opponents={"heuristic": 1}, solo=1.0, games_per_worker=4)
    torch.manual_seed(0)
    batch, _, _ = Collector(cfg, seed=4).collect(300, label_expert=True)
    departed = batch["expert"] != batch["prior"]
    gain = batch["expert_gain"]
    assert departed.sum() >= 3, departed.sum()
    assert np.all(gain[~departed] == 0.0)
    assert np.all(gain[departed] > LookaheadAgent().margin) and np.all(gain <= 2.0)


def test_search_scores_are_recorded_and_distilled(tmp_path):
    """With the lookahead expert, ``batch["expert_scores"]`` holds the teacher's
    mean rollout score of every candidate it compared (legal actions; NaN
    elsewhere and at steps it did not search), its departures are its best
    scored candidate, and their scores give ``expert_gain``; ``score_coef``
    adds the cross-entropy from softmax(scores / ``score_temperature``) to the
    policy renormalised over the candidates, which ``score_loss`` reports
    equal to the same sum computed here step by step (``bptt`` 1, the network
    held still)."""
    from test_training import _sizes

    for key, bad in (("score_coef", -1.0), ("score_coef", float("nan")), ("score_coef", 1e39),
                     ("score_temperature", 0.0), ("score_temperature", -0.1), ("score_temperature", "x")):
        with pytest.raises(ValueError, match=key):
            TrainConfig(**{key: bad})
    cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic", expert="lookahead",
               imitation=0.5, opponents={"heuristic": 1}, solo=1.0, games_per_worker=4, bptt=1,
               minibatch_steps=4096, epochs=1, score_coef=1.0, score_temperature=0.05)
    torch.manual_seed(0)
    batch, _, _ = Collector(cfg, seed=4).collect(300, label_expert=True)
    sc = batch["expert_scores"]
    assert sc.shape == batch["mask"].shape and sc.dtype == np.float32
    scored = ~np.isnan(sc)
    searched = scored.any(1)
    assert searched.sum() >= 10 and (~searched).sum() >= 10
    assert np.all(batch["mask"][scored] == 1) and np.all(scored.sum(1)[searched] >= 2)
    departed = np.flatnonzero(batch["expert_gain"] > 0)
    assert departed.size >= 3
    for i in departed:
        e, p = batch["expert"][i], batch["prior"][i]
        assert sc[i, e] == np.nanmax(sc[i])
        assert batch["expert_gain"][i] == pytest.approx(sc[i, e] - sc[i, p], abs=1e-6)
    assert np.all(batch["expert_gain"][~searched] == 0)
    net = build_network(cfg.network_kwargs(*_sizes())).eval()
    out = ppo_update(net, torch.optim.Adam(net.parameters(), lr=0.0), batch, cfg, np.random.default_rng(0),
                     imitate=True)
    with torch.no_grad():
        t = {k: torch.from_numpy(batch[k]) for k in ("h", "priv", "mask", "prior")}
        obs = batch_observations(batch, net.kwargs["obs_size"])
        logits, *_ = net(obs.rows(torch.arange(len(batch["action"]))[None]), t["h"], t["priv"][None],
                         mask=t["mask"][None], prior=t["prior"][None])
    logits = logits[0].double().numpy()
    losses, hits = [], []
    for i in np.flatnonzero(searched):
        c = np.flatnonzero(scored[i])
        target = np.exp((sc[i, c] - sc[i, c].max()) / 0.05)
        target /= target.sum()
        logq = logits[i, c] - logits[i, c].max()
        logq -= np.log(np.exp(logq).sum())
        losses.append(-(target * logq).sum())
        hits.append(c[logits[i, c].argmax()] == c[sc[i, c].argmax()])
    assert out["score_loss"] == pytest.approx(np.mean(losses), rel=1e-4)
    assert out["score_top1"] == pytest.approx(np.mean(hits))


def test_ppo_kept_near_a_reference_policy_by_a_kl(tmp_path):
    """``kl_policy`` / ``kl_coef``: the collector records the reference policy's
    action probabilities at every learner step (a distribution over the legal
    actions, run with its own recurrent state and the learner's proposal);
    the update reports ``ref_kl`` = KL(pi_ref || pi), 0 when the learner is
    the reference, and with the KL alone in the loss, gradient steps bring a
    different learner nearer the reference.  A missing or unfit reference is
    refused in one line before the run folder is made."""
    from test_training import _sizes

    cfg0 = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic",
                imitation=0.0, imitation_coef=0.0, opponents={"heuristic": 1}, solo=1.0)
    torch.manual_seed(0)
    ref_net = build_network(cfg0.network_kwargs(*_sizes()))
    ref_path = str(save_checkpoint(tmp_path / "ref.pt", ref_net, cfg0.game_config().to_dict()))
    cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic", imitation=0.0,
               imitation_coef=0.0, opponents={"heuristic": 1}, solo=1.0, kl_policy=ref_path, kl_coef=1.0,
               epochs=1, minibatch_steps=4096, ent_coef=0.0, vf_coef=0.0, belief_coef=0.0)
    col = Collector(cfg, seed=3)
    col.set_weights(ref_net.state_dict())
    batch, _, _ = col.collect(200, label_expert=False)
    pr = batch["ref_probs"]
    assert pr.shape == batch["mask"].shape and pr.dtype == np.float32
    assert np.allclose(pr.sum(1), 1.0, atol=1e-5) and np.all(pr[batch["mask"] == 0] == 0)
    # the learner's own sampling probabilities equal the reference's when they are the same network
    assert np.allclose(np.log(pr[np.arange(len(pr)), batch["action"]]), batch["logp"], atol=1e-4)
    same = ppo_update(col.net, torch.optim.SGD(col.net.parameters(), lr=0.0), batch, cfg, np.random.default_rng(0))
    assert abs(same["ref_kl"]) < 1e-4
    torch.manual_seed(7)
    other = build_network(cfg.network_kwargs(*_sizes())).eval()
    with torch.no_grad():
        other.prior_bonus.fill_(0.5)                                # far from the reference's 3.0
    kl_only = cfg
    adv = dict(batch, adv=np.zeros_like(batch["adv"]))             # no policy-gradient signal: the KL alone
    opt = torch.optim.Adam(other.parameters(), lr=2e-2)
    first = ppo_update(other, opt, adv, kl_only, np.random.default_rng(0))["ref_kl"]
    for _ in range(8):
        last = ppo_update(other, opt, adv, kl_only, np.random.default_rng(0))["ref_kl"]
    assert first > 0.05 and last < 0.5 * first, (first, last)
    for kw in ({"kl_coef": 0.5}, {"kl_policy": ref_path}):
        with pytest.raises(ValueError, match="kl_policy names a checkpoint exactly when kl_coef > 0"):
            TrainConfig(**kw)
    for bad, match in ((str(tmp_path / "missing.pt"), "kl_policy: checkpoint .* does not exist"),):
        with pytest.raises(ValueError, match=match):
            train(TrainConfig.from_dict({**cfg.to_dict(), "kl_policy": bad, "run_dir": str(tmp_path / "r1")}),
                  progress=False, log=False)
        assert not (tmp_path / "r1").exists()
    plain = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, kl_policy=ref_path, kl_coef=1.0,
                 run_dir=str(tmp_path / "r2"))
    with pytest.raises(ValueError, match="kl_policy: .* reads the 'heuristic' bot's proposal and this run's network "
                                         "does not"):
        train(plain, progress=False, log=False)
    assert not (tmp_path / "r2").exists()


# --------------------------------------------------------------------------- entities that see each other
def test_an_interaction_block_is_attention_over_the_occupied_rows_alone():
    """With trained-looking (nonzero) output projections, the packed block gives,
    row by row, the transformer block computed over that row's occupied entities
    and its context token only; unoccupied rows are unchanged; the result does
    not depend on where in the table the occupied rows sit."""
    from agents.networks import EntityInteraction

    torch.manual_seed(0)
    E, C = 8, 6
    block = EntityInteraction(E, C, heads=2).eval()
    with torch.no_grad():
        for layer in (block.attn.out_proj, block.ff[-1]):
            layer.weight.normal_()
            layer.bias.normal_()
    table = torch.randn(3, 7, E)
    present = torch.tensor([[0, 1, 1, 0, 0, 1, 0], [1, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1]], dtype=torch.float32)
    z = torch.randn(3, C)
    with torch.no_grad():
        out = block(table, present, z)
        for r in range(3):
            rows = present[r].nonzero().squeeze(1)
            tokens = torch.cat([block.context(z[r])[None], table[r, rows]])[None]
            t = block.norm_attn(tokens)
            tokens = tokens + block.attn(t, t, t, need_weights=False)[0]
            tokens = tokens + block.ff(block.norm_ff(tokens))
            torch.testing.assert_close(out[r, rows], tokens[0, 1:], rtol=1e-5, atol=1e-5)
            empty = present[r] == 0
            assert torch.equal(out[r, empty], table[r, empty])
        perm = torch.tensor([6, 4, 0, 2, 1, 3, 5])
        torch.testing.assert_close(block(table[:, perm], present[:, perm], z), out[:, perm], rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="not divisible by 4 attention heads"):
        EntityInteraction(6, C)


def added_to_trained_weights(tmp_path, states: int = 6, **option) -> tuple:
    """A network option (``interaction=1``, ``combat=True``) added by ``init`` to a checkpoint
    without it: asserts that it loads every shared weight and gives exactly that network's
    outputs, takes two Adam steps on the masked logits, and asserts that the actor still
    ignores the privileged input and that the policy moved.  Returns ``(net, obs)``."""
    from test_training import _sizes
    from training.ppo import init_weights

    plain_cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic")
    n = plain_cfg.game_config().num_players
    cfg = replace(plain_cfg, **option)
    torch.manual_seed(0)
    plain = build_network(plain_cfg.network_kwargs(*_sizes())).eval()
    with torch.no_grad():
        plain.prior_key.normal_()
    path = save_checkpoint(tmp_path / "plain.pt", plain, plain_cfg.game_config().to_dict())
    net = build_network(cfg.network_kwargs(*_sizes())).eval()
    (key, value), = option.items()
    assert net.kwargs[key] == value and key not in plain.kwargs
    init_weights(net, path)
    states = _states(n, count=states)
    obs = torch.from_numpy(np.stack([o["observation"] for o, _, _ in states]))
    mask = torch.from_numpy(np.stack([o["action_mask"] for o, _, _ in states]))
    priv = torch.from_numpy(np.stack([privileged_features(g, s) for _, g, s in states]))
    prop = torch.tensor([int(np.flatnonzero(m)[0]) for m in mask.numpy()])
    h0 = torch.randn(len(states), 32)
    with torch.no_grad():
        for a, b in zip(plain(obs, h0, priv, mask=mask, prior=prop), net(obs, h0, priv, mask=mask, prior=prop)):
            assert torch.equal(a, b)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(2):
        opt.zero_grad()
        logits = net(obs, h0, priv, mask=mask, prior=prop)[0]
        (-(masked_logits(logits, mask).log_softmax(-1)[torch.arange(len(states)), prop]).mean()).backward()
        opt.step()
    with torch.no_grad():
        l1, v1, b1, _ = net(obs, h0, priv, mask=mask, prior=prop)
        l2, v2, b2, _ = net(obs, h0, priv.flip(-1), mask=mask, prior=prop)
        l3 = plain(obs, h0, priv, mask=mask, prior=prop)[0]
    assert torch.equal(l1, l2) and torch.equal(b1, b2) and not torch.equal(v1, v2)
    assert not torch.equal(l1, l3)
    return net, obs


def test_interaction_blocks_start_as_the_identity_on_trained_weights(tmp_path):
    """``interaction = 1`` added by ``init`` to a checkpoint without it loads every
    shared weight and gives exactly that network's outputs; it then learns (its
    parameters get gradients and change); the actor still ignores the privileged
    input; a swap of two creature slots swaps their actions' logits (entities
    seen as a set); configs that cannot have it are refused in one line."""
    net, _ = added_to_trained_weights(tmp_path, interaction=1)
    block = net.interaction[0]
    assert block.attn.out_proj.weight.abs().sum() > 0 and block.ff[-1].weight.abs().sum() > 0
    assert block.attn.in_proj_weight.grad.abs().sum() > 0
    # entities as a set: swapping two creature slots swaps their actions' logits
    _assert_swapping_two_creatures_swaps_their_logits(net, net.num_players)
    for bad in (dict(interaction=1), dict(arch="entity", interaction=-1), dict(arch="entity", interaction=1.5)):
        with pytest.raises(ValueError, match="interaction"):
            TrainConfig(**bad)
    with pytest.raises(ValueError, match=r"entity = 6 is invalid; allowed: a multiple of 4 with interaction > 0"):
        TrainConfig(arch="entity", entity=6, interaction=1)
    assert TrainConfig(arch="entity", entity=6).entity == 6


# --------------------------------------------------------------------------- the advantage gate
def test_the_advantage_gate_departs_where_it_predicts_a_gain(tmp_path):
    """A network with an advantage gate: its forward pass is the network's without it; a gate that
    predicts no gain plays exactly that network; one that predicts the same gain everywhere plays, at
    every decision the lookahead bot would search, the first of its candidates other than the
    proposal (in action order) and the network's choice elsewhere; the gate keeps to the information
    set and round-trips through a checkpoint; bad settings are refused."""
    from agents import make, play_game
    from agents.lookahead import search_candidates
    from test_training import assert_policy_uses_only_its_information_set
    from training.model_card import model_card
    from treachery_env.engine import Game
    from treachery_env.view import ViewBuilder

    n = 5
    cfg = GameConfig(num_players=n)
    plain, gated = _plain_and_gated(n)
    states = _states(n)
    obs = torch.from_numpy(np.stack([o["observation"] for o, _, _ in states]))
    mask = torch.from_numpy(np.stack([o["action_mask"] for o, _, _ in states]))
    prop = torch.tensor([int(np.flatnonzero(m)[-1]) for m in mask.numpy()])
    h0 = plain.initial_state(len(states))
    with torch.no_grad():
        for a, b in zip(plain(obs, h0, mask=mask, prior=prop), gated(obs, h0, mask=mask, prior=prop)):
            assert (a is None and b is None) or torch.equal(a, b)
        cands = torch.stack([torch.from_numpy(np.flatnonzero(m)[:2]) for m in mask.numpy()])
        assert gated.advantages(obs, cands, prop).shape == cands.shape
    with pytest.raises(ValueError, match="no advantage gate"):
        plain.advantages(obs, cands, prop)

    def with_gate(bias: float, name: str) -> str:
        with torch.no_grad():
            gated.gate[-1].weight.zero_()
            gated.gate[-1].bias.fill_(bias)             # every prediction is bias / GATE_SCALE
        return str(save_checkpoint(tmp_path / name, gated, cfg.to_dict()))

    never, always = with_gate(-1.0, "never.pt"), with_gate(1.0, "always.pt")   # -0.1 and +0.1 against 0.05
    path = save_checkpoint(tmp_path / "plain.pt", plain, cfg.to_dict())
    heur = [make("heuristic", seed=s) for s in range(1, n)]
    assert play_game([make(f"policy:{never}", seed=0)] + heur, seed=5, config=cfg) == \
        play_game([make(f"policy:{path}", seed=0)] + heur, seed=5, config=cfg)
    bot = make(f"policy:{always}:greedy", seed=0)
    assert bot.net.kwargs["gate"] == 8 and bot.net.gate_threshold == bot.gate_threshold == 0.05
    # ':gate=T' plays the gate at another threshold (in either order with ':greedy'), for that agent only:
    # every prediction is +0.1, so at 0.5 the gate never decides and the policy plays as without it
    high = [make(f"policy:{always}:greedy:gate=0.5", seed=0), make(f"policy:{always}:gate=0.5:greedy", seed=0)]
    assert all(b.greedy and b.gate_threshold == 0.5 for b in high) and bot.gate_threshold == 0.05
    assert play_game([high[0]] + heur, seed=5, config=cfg) == \
        play_game([make(f"policy:{path}:greedy", seed=0)] + heur, seed=5, config=cfg)
    for bad, msg in ((":gate=2", r"a gate threshold lies in \[0, 2\)"), (":gate=-0.1", "lies in"),
                     (":gate=0.1:gate=0.2", "':gate' given twice"), (":greedy:greedy", "':greedy' given twice")):
        with pytest.raises(ValueError, match=msg):
            make(f"policy:{always}{bad}")
    g = Game(cfg, seed=7)
    bots = [bot] + [make("heuristic", seed=s) for s in range(1, n)]
    for s, b in enumerate(bots):
        b.reset(s)
    views, departed, kept = ViewBuilder(g), 0, 0
    while not g.is_over and g.decisions_taken < 3000:
        s = g.current_player
        view = views.build(s)
        a = bots[s].act(g.observation(s), {"view": view})
        if s == 0:
            c = search_candidates(view, bot.last_proposal)
            assert bot.last_gated == bot.last_searched == (c is not None) and bot.has_gate
            if c is not None:
                assert a == min(x for x in c if x != bot.last_proposal)
                departed += 1
            else:
                kept += 1
        g.step(a)
    assert departed > 5 and kept > 5
    assert "advantage gate (an MLP of width 8 on the combat features" in model_card(always, "g")
    # the evaluator counts, per entrant with a gate, the decisions it weighed and those it decided
    from training.evaluate import evaluate, gate_table
    for spec, departs in ((f"policy:{always}:greedy", True), (f"policy:{never}:greedy", False)):
        res = evaluate([spec, "heuristic"], games=n, seed=1, mode="substitution", reference="heuristic",
                       config=cfg, progress=False, observer=False)
        g_ = res["gate"][spec]
        assert set(res["gate"]) == {spec} and g_["seat_games"] == n and 0 < g_["searched"] < g_["decisions"]
        assert g_["departures"] == (g_["searched"] if departs else 0)
        assert sum(r["searched"] for r in g_["roles"].values()) == g_["searched"]
        assert g_["of_searched"]["rate"] == float(departs)
        assert g_["of_searched"]["deals"] == len({g["env_seed"] for g in res["games"]})     # clustered by deal
        assert "Advantage gate" in gate_table(res)
    assert not make(f"policy:{path}").has_gate
    assert_policy_uses_only_its_information_set(always, n)
    for bad, msg in ((dict(gate=8), "needs prior"),
                     *((dict(prior="heuristic", gate=8, gate_threshold=t), r"gate_threshold must be a number in \[0, 2\)")
                       for t in (float("nan"), -0.01, 2.0, True))):
        with pytest.raises(ValueError, match=msg):
            EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, **bad)


def _seat_0_assassin_and_not(cfg: GameConfig, seeds):
    """``(game, seat 0's role)`` for the first deal of ``seeds`` that deals seat 0 an Assassin and
    the first that deals it another role, in the order met (AssertionError if ``seeds`` lack either)."""
    from treachery_env.engine import Game
    from treachery_env.rules import Role

    seen = set()
    for seed in seeds:
        g = Game(cfg, seed=seed)
        role = Role(g.players[0].identity.role)
        if (role == Role.ASSASSIN) not in seen:
            seen.add(role == Role.ASSASSIN)
            yield g, role
            if len(seen) == 2:
                return
    raise AssertionError(f"seeds {seeds!r} do not deal seat 0 both an Assassin and another role")


def test_gate_only_roles_leave_the_proposal_only_through_the_gate(tmp_path):
    """``:gate_only=ROLE[+ROLE]`` (``PolicyAgent(gate_only=...)``): in a seat dealt one of those
    roles the policy plays its proposal wherever the gate does not depart, never the network's own
    choice; other seats play as without it.  With a gate that never departs and every role named it
    plays the proposal bot's game exactly; bad roles and a network without a gate are refused."""
    from agents import make, play_game
    from treachery_env.rules import Role
    from treachery_env.view import ViewBuilder

    n = 5
    cfg = GameConfig(num_players=n)
    plain, gated = _plain_and_gated(n)
    with torch.no_grad():
        gated.gate[-1].weight.zero_()
        gated.gate[-1].bias.fill_(-1.0)                 # every prediction -0.1: the gate never departs
    never = str(save_checkpoint(tmp_path / "never.pt", gated, cfg.to_dict()))
    heur = [make("heuristic", seed=s) for s in range(1, n)]
    every = "leader+guardian+assassin+traitor"
    for seed in (3, 4):
        assert play_game([make(f"policy:{never}:greedy:gate_only={every}", seed=0)] + heur, seed=seed, config=cfg) \
            == play_game([make("heuristic", seed=0)] + heur, seed=seed, config=cfg)
    differs = 0
    for g, role in _seat_0_assassin_and_not(cfg, range(30)):
        only, free = make(f"policy:{never}:gate_only=Assassin", seed=0), make(f"policy:{never}", seed=0)   # drawn
        assert only.gate_only == {"assassin"}
        bots = [make("heuristic", seed=k) for k in range(1, n)]
        for s, b in enumerate([only, free, *bots]):
            b.reset(max(0, s - 1))
        views = ViewBuilder(g)
        while not g.is_over and g.decisions_taken < 1500:
            s = g.current_player
            obs, info = g.observation(s), {"view": views.build(s)}
            if s == 0:
                a, b = only.act(obs, info), free.act(obs, info)
                assert a == (only.last_proposal if role == Role.ASSASSIN else b)
                differs += a != b
                a = b               # both bots see the same game: the one played without gate_only
            else:
                a = bots[s - 1].act(obs, info)
            g.step(a)
    assert differs > 0        # the network's own draw left the proposal somewhere
    path = str(save_checkpoint(tmp_path / "plain.pt", plain, cfg.to_dict()))
    for spec, msg in ((f"policy:{never}:gate_only=wizard", r"gate_only: unknown role 'wizard'"),
                      (f"policy:{never}:gate_only=assassin+Assassin", "gate_only: assassin named twice"),
                      (f"policy:{never}:gate_only=", "needs role names joined by"),
                      (f"policy:{never}:gate_only=assassin:gate_only=leader", "':gate_only' given twice"),
                      (f"policy:{path}:gate_only=assassin", "no gate of this network decides for 'assassin'")):
        with pytest.raises(ValueError, match=msg):
            make(spec)


def test_a_role_gate_grafted_from_another_run_gates_that_role_alone(tmp_path, capsys, monkeypatch):
    """``treachery graft``: the donor's gate (a run from the same frozen network) becomes the gate
    of the seats dealt one role; a seat of that role departs where the donor's gate says, every
    other seat where the base's gate says; the donor must share every other weight; the card
    says so; bad settings and files are one-line errors; a file made at ``--out`` after the check
    is kept (the graft takes the next free name)."""
    from conftest import taken_before_write

    from agents import make
    from agents.policy import load_checkpoint
    from training.cli import main
    from training.gate import graft_role_gate
    from training.model_card import model_card
    from training.run_lock import RunLock
    from treachery_env.rules import Role
    from treachery_env.view import ViewBuilder

    n = 5
    cfg = GameConfig(num_players=n)
    plain = _prior_net(n, seed=2)

    def gated(bias: float, name: str, features: str = "combat") -> str:
        net = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, privileged_size=4 * n,
                        prior="heuristic", gate=8, gate_threshold=0.05, gate_features=features).eval()
        net.load_state_dict({**plain.state_dict(), **{f"gate.{k}": v for k, v in net.gate.state_dict().items()}})
        with torch.no_grad():
            net.gate[-1].weight.zero_()
            net.gate[-1].bias.fill_(bias)             # every prediction is bias / GATE_SCALE
        return str(save_checkpoint(tmp_path / name, net, cfg.to_dict()))

    never, always = gated(-1.0, "never.pt"), gated(1.0, "always.pt", "leader")
    out = tmp_path / "grafted.pt"
    assert main(["graft", never, always, "--role", " Assassin", "--out", str(out)]) == 0
    assert "gate for its seats dealt assassin" in capsys.readouterr().out
    payload = load_checkpoint(out)
    assert payload["model_kwargs"]["role_gates"] == {"assassin": {"gate": 8, "gate_features": "leader",
                                                                   "gate_threshold": 0.05}}
    assert payload["meta"]["role_gates"]["assassin"]["donor"] == always
    net = payload["net"]
    assert net.gate_for("assassin")[1:] == ("leader", 0.05) and net.gate_for("guardian")[0] is net.gate
    assert torch.equal(net.role_gates["assassin"][-1].bias, load_checkpoint(always)["net"].gate[-1].bias)
    # seat 0 decides as `always` (its gate departs at every searched decision) when dealt an Assassin, and as
    # `never` (no departure) otherwise: the three bots share every other weight, so their recurrent states agree
    for g, role in _seat_0_assassin_and_not(cfg, range(20)):
        bots = [make(f"policy:{p}:greedy", seed=0) for p in (str(out), always, never)]
        heur = [make("heuristic", seed=k) for k in range(1, n)]
        for b in bots:
            b.reset(0)
        for k, b in enumerate(heur, 1):
            b.reset(k)
        views, gated_here = ViewBuilder(g), 0
        while not g.is_over and g.decisions_taken < 1500:
            s = g.current_player
            obs, info = g.observation(s), {"view": views.build(s)}
            if s == 0:
                a, a_always, a_never = (b.act(obs, info) for b in bots)
                assert a == (a_always if role == Role.ASSASSIN else a_never)
                gated_here += bots[0].last_gated
            else:
                a = heur[s - 1].act(obs, info)
            g.step(a)
        assert (gated_here > 0) == (role == Role.ASSASSIN)
    assert "for a seat dealt assassin, a gate of its own (width 8 on" in model_card(str(out), "g")
    with pytest.raises(SystemExit):
        main(["graft", "--help"])
    assert "usage: treachery graft [-h] --role ROLE --out OUT [--gate-only] [--force]" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["graft"])                 # the first pass (required options relaxed) is what fails here
    assert "usage: treachery graft [-h] --role ROLE --out OUT [--gate-only] [--force]" in capsys.readouterr().err
    plain_path = str(save_checkpoint(tmp_path / "plain.pt", plain, cfg.to_dict()))
    solo = str(save_checkpoint(tmp_path / "solo.pt", load_checkpoint(always)["net"], cfg.to_dict(),
                               {"solo_roles": ["assassin"]}))               # a gate run fitted to Assassin decisions
    assert "the learner's one seat was always dealt Assassin (`solo_roles`)" in model_card(solo, "solo")
    assert main(["graft", never, solo, "--role", "assassin", "--out", str(tmp_path / "ok.pt")]) == 0
    capsys.readouterr()
    assert (f"for a seat dealt assassin, a gate of its own (width 8 on the combat features and the same fights "
            f"against the Leader, threshold 0.05), fitted to that role's decisions alone by the run of `{solo}`"
            in model_card(str(tmp_path / "ok.pt"), "ok"))
    assert "fitted to every role's decisions by the run of" in model_card(str(out), "g")   # `always` has no solo_roles
    # a graft as the donor gives the gate it plays for that role (its own role gate), and that gate's origin
    assert main(["graft", never, str(out), "--role", "assassin", "--out", str(tmp_path / "again.pt")]) == 0
    again = load_checkpoint(tmp_path / "again.pt")
    assert torch.equal(again["net"].role_gates["assassin"][-1].bias, load_checkpoint(always)["net"].gate[-1].bias)
    assert again["meta"]["role_gates"]["assassin"]["donor"] == always
    busy = tmp_path / "busy"                        # the folder of a training in progress: this process holds it
    busy.mkdir()
    lock = RunLock(busy)
    lock.acquire()
    for args, msg in (([never, solo, "--role", "guardian", "--out", str(tmp_path / "x.pt")],
                       "solo.pt' fitted its gate to assassin decisions alone (its run's solo_roles), not to "
                       "guardian's"),
                      ([solo, never, "--role", "assassin", "--out", str(tmp_path / "x.pt")],
                       "so it would gate every other role: BASE is the policy whose other roles keep their gate, DONOR "
                       "the gate run (were they given the other way round?)"),
                      ([never, never, "--role", "leader", "--out", str(tmp_path / "x.pt")],
                       "gates a seat dealt leader with the very gate BASE does: the graft would change nothing"),
                      ([solo, solo, "--role", "assassin", "--out", str(tmp_path / "x.pt")],   # one file: not "swapped"
                       "gates a seat dealt assassin with the very gate BASE does: the graft would change nothing"),
                      ([never, str(out), "--role", "guardian", "--out", str(tmp_path / "x.pt")],
                       "with the very gate BASE does"),                 # the graft's guardian gate is never's
                      ([never, always, "--role", "assassin", "--out", ""], "--out is empty; give a file"),
                      ([never, always, "--role", "assassin", "--out", always, "--force"],
                       "is DONOR: write the graft to a new file"),
                      ([never, always, "--role", "assassin", "--out", never, "--force"], "is BASE"),
                      ([never, never, "--role", "assassin", "--out", str(tmp_path / "new" / "deep" / "x.pt")],
                       "would change nothing"),
                      ([never, always, "--role", "assassin", "--out", str(tmp_path), "--force"],
                       "is a folder, not a file"),
                      ([never, always, "--role", "assassin", "--out", str(tmp_path)],       # not "give --force"
                       "is a folder, not a file: the graft is one policy file"),
                      ([never, always, "--role", "assassin", "--out", str(out / "x.pt")], "is a file"),
                      ([never, always, "--role", "wizard", "--out", str(tmp_path / "x.pt")], "--role: unknown role"),
                      ([never, plain_path, "--role", "assassin", "--out", str(tmp_path / "x.pt")],
                       "has no advantage gate to graft"),
                      ([never, always, "--role", "assassin", "--out", str(out)], f"--out '{out}' exists; give --force"),
                      ([never, always, "--role", "assassin", "--out", str(tmp_path / ("x" * 300))],
                       "cannot be written: File name too long"),
                      ([never, str(tmp_path / "none.pt"), "--role", "assassin", "--out", str(tmp_path / "x.pt")],
                       "DONOR: checkpoint '"),
                      ([str(tmp_path / "none.pt"), always, "--role", "assassin", "--out", str(tmp_path / "x.pt")],
                       "BASE: checkpoint '"),
                      ([never, __file__, "--role", "assassin", "--out", str(tmp_path / "x.pt")], "DONOR: "),
                      ([never, always, "--role", "assassin", "--out", str(out / "x.pt")],
                       f"--out '{out / 'x.pt'}' cannot be written: '{out}' is a file"),
                      ([never, always, "--role", "assassin", "--out", str(busy / "policy.pt")],   # a run's own file
                       f"--out: '{busy}' is the folder of a training in progress (pid {os.getpid()}), which writes "
                       f"its policy.pt; wait for it to end")):
        assert main(["graft", *args]) == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1, err
    assert main(["graft", never, always, "--role", "assassin", "--out", str(busy / "beside.pt")]) == 0
    capsys.readouterr()
    # a DONOR that is the policy.pt of a training in progress: grafted as saved last, and said in one line
    shutil.copy(always, busy / "policy.pt")
    assert main(["graft", never, str(busy / "policy.pt"), "--role", "assassin", "--out", str(tmp_path / "b.pt")]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "training in progress" in line]
    assert warned == [f"treachery: warning: DONOR: '{busy}' is the folder of a training in progress (pid "
                      f"{os.getpid()}), which saves its policy.pt as it goes: grafted the one it saved last, not the "
                      f"one it will end with; graft again once it has ended"], warned
    lock.release()
    # a file another command makes at --out after the check is kept (it was replaced): the next free name
    with monkeypatch.context() as m:
        taken_before_write(m, tmp_path / "raced.pt", b"another's")
        assert main(["graft", never, always, "--role", "assassin", "--out", str(tmp_path / "raced.pt")]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {tmp_path / 'raced-2.pt'}: ")
    assert (tmp_path / "raced.pt").read_bytes() == b"another's"
    # --gate-only: the role's seats leave the proposal only where that gate departs; the checkpoint says so
    only = tmp_path / "only.pt"
    assert main(["graft", never, always, "--role", "assassin", "--gate-only", "--out", str(only)]) == 0
    assert "; gate-only: a seat dealt assassin leaves the proposal only where that gate departs" in \
        capsys.readouterr().out
    assert load_checkpoint(only)["model_kwargs"]["gate_only"] == ["assassin"]
    assert make(f"policy:{only}").gate_only == {"assassin"} and make(f"policy:{out}").gate_only == set()
    assert make(f"policy:{only}:gate_only=leader").gate_only == {"leader"}         # the spec's roles instead
    assert make(f"policy:{only}:gate_only=None").gate_only == set()                # none: the network everywhere
    with pytest.raises(ValueError, match="'none' stands alone"):
        make(f"policy:{only}:gate_only=none+assassin")
    assert "a seat dealt assassin leaves the proposal only where its gate departs" in model_card(str(only), "o")
    # the same gate with --gate-only changes how the role plays; again, nothing; without it, the role plays free
    assert main(["graft", str(out), always, "--role", "assassin", "--gate-only", "--out", str(tmp_path / "o2.pt")]) == 0
    assert "with the same gate for its seats dealt assassin (DONOR's is BASE's); gate-only: " in capsys.readouterr().out
    assert main(["graft", str(only), always, "--role", "assassin", "--gate-only", "--out", str(tmp_path / "x.pt")]) == 2
    assert "(and BASE already plays that role gate-only): the graft would change nothing" in capsys.readouterr().err
    assert main(["graft", str(only), always, "--role", "assassin", "--out", str(tmp_path / "free.pt")]) == 0
    assert "(DONOR's is BASE's); gate-only turned off: BASE played assassin gate-only" in capsys.readouterr().out
    assert "gate_only" not in load_checkpoint(tmp_path / "free.pt")["model_kwargs"]
    for bad, msg in ((["wizard"], "gate_only: unknown role 'wizard'"), ("assassin", "must be a list of role names"),
                     (["assassin", "Assassin"], "assassin named twice"), (["leader"], "no gate of this network decides for 'leader'")):
        with pytest.raises(ValueError, match=msg):
            EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, prior="heuristic",
                      role_gates={"assassin": {"gate": 8, "gate_features": "combat", "gate_threshold": 0.1}},
                      gate_only=bad)
    other = _prior_net(n, seed=3)
    donor = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, privileged_size=4 * n,
                      prior="heuristic", gate=8).eval()
    donor.load_state_dict({**other.state_dict(), **{f"gate.{k}": v for k, v in donor.gate.state_dict().items()}})
    with pytest.raises(ValueError, match="differ in weight .*fitted to another policy"):
        graft_role_gate(never, save_checkpoint(tmp_path / "other.pt", donor, cfg.to_dict()), "assassin",
                        tmp_path / "y.pt")
    assert not (tmp_path / "x.pt").exists() and not (tmp_path / "y.pt").exists()
    assert not (tmp_path / "new").exists()                 # a refused graft made no folder
    for bad, msg in (({"wizard": {"gate": 8, "gate_features": "combat", "gate_threshold": 0.1}}, "unknown role"),
                     ({"assassin": {"gate": 8}}, "must give gate, gate_features and gate_threshold"),
                     ({"assassin": {"gate": 0, "gate_features": "combat", "gate_threshold": 0.1}}, "an int >= 1"),
                     ({"assassin": {"gate": 8, "gate_features": "x", "gate_threshold": 0.1}}, "gate_features must"),
                     ({"assassin": {"gate": 8, "gate_features": "combat", "gate_threshold": 2}}, r"in \[0, 2\)")):
        with pytest.raises(ValueError, match=msg):
            EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, prior="heuristic",
                      role_gates=bad)
    with pytest.raises(ValueError, match="role gates .* need prior"):
        EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16,
                  role_gates={"assassin": {"gate": 8, "gate_features": "combat", "gate_threshold": 0.1}})


def test_graft_and_a_card_record_the_checksums_of_the_bytes_they_loaded(tmp_path, monkeypatch):
    """``treachery graft`` read BASE and DONOR twice, once to load them and again to hash them, and a
    model card its policy likewise: a file replaced in between (a running training rewrites its
    policy.pt) gave the graft the weights of one file and the SHA-256 of another.  Each file is read
    once (:func:`agents.policy.read_checkpoint`): here each is replaced as soon as it was loaded, and
    the checksums are still those of the bytes loaded."""
    import hashlib
    from pathlib import Path

    from agents.models import CHECKSUM_LINE
    from training.gate import graft_role_gate
    from training.model_card import model_card

    cfg = GameConfig(num_players=5)
    plain, gated = _plain_and_gated(5)
    base = save_checkpoint(tmp_path / "base.pt", plain, cfg.to_dict(), {"run_dir": "runs/flagship"})
    donor = save_checkpoint(tmp_path / "donor.pt", gated, cfg.to_dict(), {"solo_roles": ["assassin"]})
    was = {p: hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in (base, donor)}
    loading: list[Path] = []          # the files in the order they are loaded: each replaced once loaded
    real = torch.load

    def load_then_replace(f, *args, **kwargs):
        payload = real(f, *args, **kwargs)
        Path(loading.pop(0)).write_bytes(b"another file now")
        return payload

    monkeypatch.setattr(torch, "load", load_then_replace)
    loading[:] = [base, donor]
    graft = graft_role_gate(base, donor, "assassin", tmp_path / "g.pt").path
    assert not loading
    shipped = Path(graft).read_bytes()
    loading[:] = [graft]
    card = model_card(graft, "g")
    monkeypatch.setattr(torch, "load", real)
    meta = load_checkpoint(tmp_path / "g.pt", data=shipped)["meta"]
    assert meta["graft_base"]["sha256"] == was[base] and meta["role_gates"]["assassin"]["sha256"] == was[donor]
    assert CHECKSUM_LINE.format(hashlib.sha256(shipped).hexdigest()) in card


def test_a_grafts_card_names_the_donor_run_and_counts_its_steps_on_a_line_of_their_own(tmp_path):
    """The card of a graft names the run that fitted the grafted gate by its run folder (the donor's
    ``run_dir``), not its policy file, and gives that run's learner steps, iterations, games and
    wall time on a line of their own (the "training" line is the base's run); a donor that records
    no run folder is named by its file; the donor's ``solo_roles`` are read as ``Role.parse_many``
    reads them, and a value that names no roles is shown as it is held."""
    from agents.models import sha256_of
    from training.gate import graft_role_gate
    from training.model_card import model_card

    n = 5
    cfg = GameConfig(num_players=n)
    plain, gated = _plain_and_gated(n)
    base = save_checkpoint(tmp_path / "base.pt", plain, cfg.to_dict(), {"run_dir": "runs/flagship"},
                           meta={"steps": 9_000_000, "iteration": 2000, "games": 150_000, "wall_s": 36_000.0})
    tc = {"run_dir": "runs/gate-assassin", "solo_roles": [" Assassin"], "freeze_policy": True, "init": str(base)}
    donor = save_checkpoint(tmp_path / "donor.pt", gated, cfg.to_dict(), tc,
                            meta={"steps": 352_256, "iteration": 86, "games": 7_000, "wall_s": 2_400.0})
    card = model_card(graft_role_gate(base, donor, "assassin", tmp_path / "g.pt").path, "g")
    sha = sha256_of(donor)[:12]
    assert (f"fitted to that role's decisions alone by the run `runs/gate-assassin` (its policy `{donor}`, SHA-256 "
            f"{sha}...); `treachery graft`") in card
    assert "by the run of `" not in card
    assert (f"* graft: the policy `{base}` (SHA-256 {sha256_of(base)[:12]}...) with the gates of other runs for some "
            "roles (`treachery graft`; below); the training, warm start and frozen policy lines are that policy's "
            "run's, with the paths as it recorded them\n") in card
    assert "* graft:" not in model_card(base, "base")            # a policy that is no graft has no such line
    assert ("* training: 9,000,000 learner agent-steps in 2,000 iterations, 150,000 games, 10.00 h wall time (the "
            "base policy's run; the grafted gates' runs are below)\n") in card
    assert (f"* grafted gate for a seat dealt assassin: fitted by the run `runs/gate-assassin` in 352,256 learner "
            f"agent-steps in 86 iterations, 7,000 games, 0.67 h wall time; it fitted only that gate "
            f"(`freeze_policy`), every other weight `{base}`'s (not counted in the training line above)\n") in card
    # a donor without a run folder is named by its file, its run's figures still on their own line; solo_roles
    # that name no role are shown as held (a card renders whatever a file holds)
    bare = save_checkpoint(tmp_path / "bare.pt", gated, cfg.to_dict(), meta={"steps": 1_000, "iteration": 1})
    h = load_checkpoint(graft_role_gate(base, bare, "guardian", tmp_path / "h.pt").path)
    assert f"fitted to every role's decisions by the run of `{bare}` (SHA-256 {sha256_of(bare)[:12]}...)" in \
        model_card(tmp_path / "h.pt", "h")
    h["meta"]["role_gates"]["guardian"]["donor_train_config"]["solo_roles"] = ["guardian", "GUARDIAN"]
    card = model_card(save_checkpoint(tmp_path / "h2.pt", h["net"], h["game_config"], h["train_config"],
                                      meta=h["meta"]), "h2")
    assert (f"fitted with its run's solo_roles = ['guardian', 'GUARDIAN'] (not read as roles: guardian named twice) "
            f"by the run of `{bare}` "
            f"(SHA-256 {sha256_of(bare)[:12]}...)") in card
    assert (f"* grafted gate for a seat dealt guardian: fitted by the run of `{bare}` in 1,000 learner agent-steps "
            f"in 1 iteration, ? games, ? h wall time (not counted in the training line above)") in card


def test_a_gated_run_resumes_with_the_examples_up_to_its_checkpoint(tmp_path):
    """A gated run resumed from an earlier checkpoint deletes the examples of the iterations past it,
    reads back the others (its first iteration's replay counts them), and goes on from the gate's
    fitting state; an unreadable kept file is warned about and skipped; a gated checkpoint without
    the gate's fitting state (written before it was kept) is refused in one line."""
    from test_training import _sizes

    kw = dict(arch="entity", entity=16, privileged_critic=True, prior="heuristic", expert="lookahead",
              opponents={"heuristic": 1}, solo=1.0, games_per_worker=4, imitation=0.0, imitation_coef=0.0,
              gate=16, gate_epochs=4, checkpoint_every=1, keep_checkpoints=5)
    plain = tiny(tmp_path, **{**kw, "gate": 0})
    init = save_checkpoint(tmp_path / "init.pt", build_network(plain.network_kwargs(*_sizes())),
                           plain.game_config().to_dict())
    cfg = tiny(tmp_path, freeze_policy=True, init=str(init), total_steps=600, **kw)
    train(cfg, log=False, progress=False)
    run = tmp_path / "run"
    first = [json.loads(line) for line in open(run / "metrics.jsonl")]
    assert len(first) == 2 and (run / "gate" / "examples_000002.npz").exists()
    ckpt1 = run / "ckpt_000001.pt"
    state = load_checkpoint(ckpt1)["training_state"]["gate_fit"]
    assert state["steps"] == first[0]["gate/steps"]
    res = train(tiny(tmp_path, freeze_policy=True, init=str(init), total_steps=900, **kw), resume=ckpt1,
                log=False, progress=False)
    again = res["history"]
    assert again[0]["iteration"] == 2
    assert again[0]["gate/replay"] == first[0]["gate/examples"] + again[0]["gate/examples"]
    assert load_checkpoint(res["checkpoint"])["training_state"]["gate_fit"]["steps"] == \
        first[0]["gate/steps"] + sum(r["gate/steps"] for r in again)
    (run / "gate" / "examples_000001.npz").write_bytes(b"torn")
    (run / "gate" / "examples_backup.npz").write_bytes(b"someone's copy")     # not the run's: left alone
    with pytest.warns(UserWarning, match=r"examples_000001\.npz: the gate's examples cannot be read"):
        res = train(tiny(tmp_path, freeze_policy=True, init=str(init), total_steps=900, **kw),
                    resume=run / "ckpt_000002.pt", log=False, progress=False)
    assert res["history"][0]["gate/replay"] == again[0]["gate/examples"] + res["history"][0]["gate/examples"]
    assert (run / "gate" / "examples_backup.npz").read_bytes() == b"someone's copy"
    shutil.rmtree(run / "gate")
    with pytest.warns(UserWarning, match=r"gate: no kept examples of the gate's \d+ fitted steps so far"):
        res = train(tiny(tmp_path, freeze_policy=True, init=str(init), total_steps=900, **kw),
                    resume=run / "ckpt_000002.pt", log=False, progress=False)
    assert res["history"][0]["gate/replay"] == res["history"][0]["gate/examples"]
    old = load_checkpoint(ckpt1)
    del old["training_state"]["gate_fit"], old["net"]
    torch.save(old, run / "old.pt")        # in the run folder: another run's is refused first
    with pytest.raises(ValueError, match=r"^old\.pt is from a run that fitted its advantage gate batch by batch"):
        train(cfg, resume=run / "old.pt", log=False, progress=False)


def test_training_does_not_start_from_a_gated_policy(tmp_path):
    """``init`` from a policy with an advantage gate into a config without one is refused in one
    line naming the gate's width and threshold."""
    from test_training import _sizes
    from training.ppo import init_weights

    cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic")
    n = cfg.game_config().num_players
    gated = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, privileged_size=4 * n,
                      prior="heuristic", gate=8, gate_threshold=0.01)
    path = save_checkpoint(tmp_path / "g.pt", gated, cfg.game_config().to_dict())
    want = (r"differs from the config's in gate \(width and threshold of the advantage gate\) \(\(8, 0\.01\) in the "
            r"checkpoint vs none\)$")
    with pytest.raises(ValueError, match=want):
        init_weights(build_network(cfg.network_kwargs(*_sizes())), path)


def test_a_run_fits_the_advantage_gate_to_the_teachers_scores(tmp_path):
    """``gate`` needs the entity network, a prior and the lookahead expert; ``freeze_policy`` needs a gate.
    The examples are one per scored candidate other than the proposal at each searched step, with
    the candidate's score minus the proposal's. ``GateFit.update`` scores the played gate on the fresh
    batch first (its realised gain recomputed here), keeps the examples in its folder, then lowers the
    loss and changes no other weight; the played gate is the running average of the fitted weights
    (checked exactly after one step); the PPO optimizer leaves the gate out. A run with
    ``freeze_policy`` from trained weights keeps every weight but the gate's, logs the gate's metrics
    and is played with its gate; the model card says so."""
    from test_training import _sizes
    from training.gate import GATE_MINIBATCH, GateFit, gate_examples, realised_gain, searched
    from training.model_card import model_card
    from agents.policy import PolicyAgent
    from training.ppo import make_optimizer

    for bad, key in ((dict(gate=8), "gate"), (dict(arch="entity", prior="heuristic", gate=8), "expert"),
                     (dict(gate=-1), "gate"), (dict(freeze_policy=True), "freeze_policy"),
                     (dict(gate_threshold=float("inf")), "gate_threshold"), (dict(gate_threshold=-0.01), "gate_threshold"),
                     (dict(gate_threshold=2), "gate_threshold")):
        with pytest.raises(ValueError, match=f"train config: {key} = "):
            TrainConfig(**bad)
    kw = dict(arch="entity", entity=16, privileged_critic=True, prior="heuristic", expert="lookahead",
              opponents={"heuristic": 1}, solo=1.0, games_per_worker=4, imitation=0.0, imitation_coef=0.0)
    cfg = tiny(tmp_path, gate=16, gate_threshold=0.0, **kw)
    assert cfg.labels_expert and cfg.network_kwargs(*_sizes())["gate"] == 16
    torch.manual_seed(0)
    batch, _, _ = Collector(cfg, seed=4).collect(300, label_expert=True)
    n = cfg.game_config().num_players
    ex = gate_examples(batch, n)
    ok = searched(batch)
    sc, p = batch["expert_scores"], batch["prior"]
    want = [(i, a) for i in np.flatnonzero(ok) for a in np.flatnonzero(~np.isnan(sc[i])) if a != p[i]]
    assert sorted(zip(ex["step"].tolist(), ex["act"].tolist())) == want and ex["rows"] == ok.sum() > 3
    assert np.allclose(ex["y"], [sc[i, a] - sc[i, p[i]] for i, a in zip(ex["step"], ex["act"])])
    net = build_network(cfg.network_kwargs(*_sizes()))
    before = {k: v.clone() for k, v in net.state_dict().items()}
    opt = make_optimizer(net, 1e-3)
    gate_params = {id(p) for p in net.gate.parameters()}
    assert len(opt.param_groups) == 1 and not gate_params & {id(p) for p in opt.param_groups[0]["params"]}
    with torch.no_grad():
        pred = (net.gate(torch.from_numpy(ex["x"])).squeeze(-1) / 10).numpy()
    start = [p.detach().clone() for p in net.gate.parameters()]
    one = GateFit(build_network(cfg.network_kwargs(*_sizes())), None)
    one.net.load_state_dict(net.state_dict())
    assert one.update(batch, 1, GATE_MINIBATCH / 2 / len(ex["y"]), np.random.default_rng(0))["gate/steps"] == 1
    for a, s0, f in zip(one.net.gate.parameters(), start, one.fitted.parameters()):
        assert torch.allclose(a, s0 + (f - s0) * (1 - 2 / 11))      # decay (1 + t) / (10 + t) at t = 1
    fit = GateFit(net, tmp_path / "gate")
    m = fit.update(batch, 1, 400, np.random.default_rng(0))
    r = realised_gain(ex["step"], pred, ex["y"], ex["rows"], 0.0)
    assert m["gate/taken"] == r["taken"] and m["gate/gain"] == pytest.approx(r["gain"])
    assert m["gate/examples"] == m["gate/replay"] == len(ex["y"]) and np.isfinite(m["gate/corr"])
    assert m["gate/steps"] == round(400 * len(ex["y"]) / GATE_MINIBATCH) and fit.steps == m["gate/steps"]
    kept = np.load(tmp_path / "gate" / "examples_000001.npz")
    assert np.array_equal(kept["x"], ex["x"]) and np.array_equal(kept["y"], ex["y"])
    with torch.no_grad():
        after = net.gate(torch.from_numpy(ex["x"])).squeeze(-1)
        y = torch.from_numpy(ex["y"]) * 10
        assert ((after - y) ** 2).mean() < ((torch.from_numpy(pred) * 10 - y) ** 2).mean()
    for k, v in net.state_dict().items():
        assert torch.equal(v, before[k]) != k.startswith("gate."), k
    # a frozen run from trained weights: only the gate changes, and the policy plays with it
    init = save_checkpoint(tmp_path / "init.pt", build_network(tiny(tmp_path, **kw).network_kwargs(*_sizes())),
                           cfg.game_config().to_dict())
    with pytest.warns(UserWarning, match="freeze_policy: the policy does not learn, so imitation_coef does nothing"):
        res = train(tiny(tmp_path, gate=16, freeze_policy=True, init=str(init), total_steps=600,
                         **{**kw, "imitation_coef": 0.5}), log=False, progress=False)
    got = load_checkpoint(res["policy"])
    start = load_checkpoint(init)["model_state"]
    assert all(torch.equal(v, start[k]) for k, v in got["model_state"].items() if not k.startswith("gate."))
    assert any(k.startswith("gate.") for k in got["model_state"])
    rows = [json.loads(line) for line in open(tmp_path / "run" / "metrics.jsonl")]
    assert all("gate/corr" in r and r["gate/examples"] > 0 and r["imitating"] == 0 for r in rows)
    assert "policy_loss" not in rows[0]
    assert [r["gate/replay"] for r in rows] == np.cumsum([r["gate/examples"] for r in rows]).tolist()
    assert sorted(p.name for p in (tmp_path / "run" / "gate").iterdir()) == \
        [f"examples_{r['iteration']:06d}.npz" for r in rows]
    bot = PolicyAgent(res["policy"])
    assert bot.net.kwargs["gate"] == 16 and bot.net.gate_threshold == 0.01
    from training.model_card import training_summary
    summary = training_summary(tmp_path / "run")
    assert summary["belief_accuracy_last10"] is None and summary["entropy_last"] is None
    card = model_card(res["policy"], "g", run=summary)
    assert "frozen policy: this run fitted only the advantage gate" in card and "belief-head accuracy" not in card
