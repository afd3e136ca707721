"""What the advantage gate reads about a choice between actions (agents/candidates.py): the combat
set (the flagship's gate), the action set (what each action is: its kind, the card it casts, an
unveil's X) and the Leader set (the same fights against the Leader), read off the engine's own observation, and the networks, configs and fits that use them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.candidates import (ACTION_FEATURES, ACTION_GROUPS, CARD_FACTS, GATE_FEATURES, SITUATION_FEATURES,
                               action_features, advantage_inputs, card_facts, feature_columns)
from agents.combat import COMBAT_FEATURES, LEADER_FEATURES, TABLE_FEATURES, combat_features, leader_features
from agents.networks import EntityNet, build_network
from agents.policy import PolicyAgent, load_checkpoint, save_checkpoint
from training.config import TrainConfig
from treachery_env import GameConfig, cards
from treachery_env.actions import MAX_HAND, MAX_X, ActionLayout
from treachery_env.engine.state import DecisionKind
from treachery_env.observation import obs_layout

from scenario import ASSASSINS, GUARDIANS, LEADERS, TRAITORS, add_creature, make_game

HAND = ("Shock", "Murder", "Grove Bear", "Lava Axe", "Wastes", "Gilded Hoard")
CARD = len(ACTION_GROUPS)                          # where an action's card facts start


def _table(hand=HAND, lands: int = 5):
    return make_game([LEADERS[0], GUARDIANS[0], ASSASSINS[0], ASSASSINS[1], TRAITORS[0]], commander=False,
                     hand=hand, lands=lands)


def _facts(name: str) -> dict:
    return dict(zip(CARD_FACTS, card_facts()[cards.card(name).index].tolist()))


def test_card_facts_are_the_printed_card():
    """Type, mana value, body and effect classes of cards of each kind (a planeswalker's from its
    loyalty abilities); damage to any target is both removal and reach to a player."""
    want = {"Murder": dict(instant=1, cost=0.3, targets=1, removal=1),
            "Lava Axe": dict(sorcery=1, cost=0.5, targets=1, drain=1),
            "Shock": dict(instant=1, cost=0.1, targets=1, removal=1, drain=1),
            "Pyroclasm": dict(sorcery=1, cost=0.2, sweeper=1),
            "Gilded Hoard": dict(sorcery=1, cost=0.2, mana=1),
            "Raise the Alarm": dict(instant=1, cost=0.2, tokens=1),
            "Counterspell": dict(instant=1, cost=0.2, targets=1, counter=1),
            "Expropriate": dict(sorcery=1, cost=0.9, other=1),
            "Grove Bear": dict(creature=1, cost=0.2, power=0.2, toughness=0.2),
            "Venom Stalker": dict(creature=1, cost=0.4, power=0.2, toughness=0.2, keywords=0.5),
            "Ambush Viper": dict(creature=1, cost=0.2, power=0.1, toughness=0.1, keywords=0.25, flash=1),
            "Blaze": dict(sorcery=1, cost=0.1, targets=1, removal=1, drain=1, x=1),
            "Pyra, Storm Sage": dict(planeswalker=1, cost=0.4, targets=1, draw=1, removal=1, drain=1),
            "Wastes": dict(land=1)}
    for name, facts in want.items():
        got = _facts(name)
        assert got == pytest.approx({k: float(facts.get(k, 0)) for k in CARD_FACTS}), name
    assert card_facts().shape == (len(cards.CARDS), len(CARD_FACTS))


def test_action_features_say_what_each_action_is_and_what_card_it_casts():
    """At a priority decision with six cards in hand: every legal action's kind one-hot is its block;
    a hand action's card facts are those of the card in that hand slot, read through the slot's card
    one-hot; an unveil carries its X / 15, an identity ability its index; an attack with one of the
    observer's creatures is "own_creature", one on another seat's creature is "creature"."""
    g = _table()
    AL = ActionLayout(5)
    assert g.current_player == 0 and g.decision.kind == DecisionKind.PRIORITY
    obs = torch.from_numpy(g.observation(0)["observation"])[None]
    legal = np.flatnonzero(g.observation(0)["action_mask"])
    hand_acts = [a for a in legal if AL.HAND <= a < AL.HAND + MAX_HAND]
    assert len(hand_acts) >= 4                                          # the spells and the land
    extra = [AL.UNVEIL + 3, AL.IDENTITY_AB + 1, AL.perm(0, 2), AL.perm(2, 0), AL.CONCEDE, AL.PLAYER + 1]
    acts = torch.tensor([list(legal) + extra])
    f = action_features(obs, acts, 5)[0]
    assert f.shape == (len(legal) + len(extra), len(ACTION_FEATURES))
    groups = [ACTION_GROUPS[int(i)] for i in f[:, :CARD].argmax(1)]
    assert (f[:, :CARD].sum(1) == 1).all()
    for a, grp, row in zip(acts[0].tolist(), groups, f):
        if AL.HAND <= a < AL.HAND + MAX_HAND:
            assert grp == "hand"
            card = g.players[0].hand[a - AL.HAND]
            assert row[CARD:CARD + len(CARD_FACTS)].tolist() == card_facts()[card.index].tolist(), card.name
        else:
            assert not row[CARD:CARD + len(CARD_FACTS)].any()
    assert groups[:1] == ["pass"] and legal[0] == AL.PASS
    assert groups[-6:] == ["unveil", "identity_ability", "own_creature", "creature", "concede", "player"]
    tail = f[:, CARD + len(CARD_FACTS):]
    assert tail[-6].tolist() == pytest.approx([3 / MAX_X, 0, 0, 0]) and tail[-5].tolist() == [0, 0, 1, 0]
    assert not tail[:-6].any() and not tail[-4:].any()
    with pytest.raises(ValueError, match="actions must be in"):
        action_features(obs, torch.tensor([[AL.size]]), 5)


def test_the_action_set_extends_the_combat_set_and_keeps_to_the_information_set():
    """``"action"`` inputs begin with the ``"combat"`` inputs (the flagship's gate reads those), then
    the candidate's action features, the proposal's and the situation (turn, face up, hand, untapped
    lands, opponents in the game); another deal of the other seats' hands and libraries (hidden from
    seat 0) changes none of it."""
    g = _table()
    add_creature(g, 0, "Grove Bear")
    AL = ActionLayout(5)
    obs = torch.from_numpy(g.observation(0)["observation"])[None]
    acts = torch.tensor([[AL.HAND + 1, AL.PASS, AL.perm(0, 0)]])
    prop = torch.tensor([AL.HAND + 0])
    c, x = advantage_inputs(obs, acts, prop, 5), advantage_inputs(obs, acts, prop, 5, "action")
    assert c.shape == (1, 3, GATE_FEATURES["combat"]) and GATE_FEATURES["combat"] == 56
    assert x.shape == (1, 3, GATE_FEATURES["action"]) == (1, 3, 56 + 2 * len(ACTION_FEATURES) + len(SITUATION_FEATURES))
    assert torch.equal(x[..., :56], c)
    k = len(ACTION_FEATURES)
    assert torch.equal(x[0, :, 56:56 + k], action_features(obs, acts, 5)[0])
    assert torch.equal(x[0, :, 56 + k:56 + 2 * k], action_features(obs, prop[:, None].expand(1, 3), 5)[0])
    me = g.players[0]
    situation = dict(zip(SITUATION_FEATURES, x[0, 0, -len(SITUATION_FEATURES):].tolist()))
    assert situation == pytest.approx({"turn": g.turn / g.config.max_turns, "face_up": 1.0,
                                       "hand": len(me.hand) / 10, "untapped_lands": 0.5,
                                       "opponents_in_game": 1.0})
    for p in g.players[1:]:                                   # what seat 0 cannot see
        p.hand = [cards.card("Elder Titan")] * 3
        p.library = [cards.card("Murder")] * 30
    again = advantage_inputs(torch.from_numpy(g.observation(0)["observation"])[None], acts, prop, 5, "action")
    assert torch.equal(again, x)
    with pytest.raises(ValueError, match="features must be one of"):
        advantage_inputs(obs, acts, prop, 5, "cards")


def test_the_leader_and_all_sets_are_blocks_of_one_row_and_keep_to_the_information_set():
    """``"leader"`` inputs are the combat inputs, then the candidate's and the proposal's
    fights against the Leader (zeros for an action not on the observer's creature) and the
    Leader's table features; ``"all"`` is combat, action and Leader blocks, and every set's inputs
    are its columns of the ``"all"`` row (:func:`feature_columns`); another deal of what seat 2
    cannot see (the other seats' hands, libraries and face-down identities) changes none of it."""
    g = make_game([LEADERS[0], GUARDIANS[0], ASSASSINS[0], ASSASSINS[1], TRAITORS[0]], commander=False)
    add_creature(g, 2, "Grove Bear")
    add_creature(g, 2, "Messenger Owl")
    add_creature(g, 0, "Healer Acolyte")
    AL = ActionLayout(5)
    obs = torch.from_numpy(g.observation(2)["observation"])[None]
    acts = torch.tensor([[AL.perm(0, 1), AL.PASS, AL.perm(0, 0)]])
    prop = torch.tensor([AL.perm(0, 0)])
    rows = {f: advantage_inputs(obs, acts, prop, 5, f) for f in GATE_FEATURES}
    assert {f: r.shape[-1] for f, r in rows.items()} == GATE_FEATURES == {"combat": 56, "action": 145, "leader": 73,
                                                                         "all": 162}
    for f in GATE_FEATURES:
        assert torch.equal(rows["all"][..., torch.from_numpy(feature_columns("all", f))], rows[f])
        assert torch.equal(rows[f][..., :56], rows["combat"])
    lead, table = leader_features(obs[0], 5)
    k = len(LEADER_FEATURES)
    x = rows["leader"][0]
    assert x[0, 56:56 + k].tolist() == lead[1].tolist() and x[0, 56 + k:56 + 2 * k].tolist() == lead[0].tolist()
    assert not x[1, 56:56 + k].any() and x[2, 56:56 + k].tolist() == lead[0].tolist()   # a pass reads zeros
    assert x[0, 56 + 2 * k:].tolist() == table.tolist() and table[0] == 1              # a Leader is known
    assert lead[1].tolist() == pytest.approx([1, 1, 0, 0, 0]) and lead[0, LEADER_FEATURES.index("leader_trades")] == 1
    for p in g.players:                                       # what seat 2 cannot see
        if p.seat != 2:
            p.hand = [cards.card("Elder Titan")] * 3
            p.library = [cards.card("Murder")] * 30
    g.players[1].identity, g.players[3].identity = g.players[3].identity, g.players[1].identity   # both face down
    again = torch.from_numpy(g.observation(2)["observation"])[None]
    assert torch.equal(advantage_inputs(again, acts, prop, 5, "all"), rows["all"])
    with pytest.raises(ValueError, match="the 'leader' inputs need the 'leader' block, which the 'action' inputs lack"):
        feature_columns("action", "leader")
    with pytest.raises(ValueError, match="feature sets are"):
        feature_columns("all", "cards")


def test_the_combat_inputs_read_the_candidate_and_the_proposal_off_the_observation():
    """A choice's combat inputs: the candidate's own-creature features and flag, the proposal's, then
    the table, the decision kind one-hot and the observer's own role one-hot, all off the observation."""
    g = _table(hand=("Shock",), lands=1)
    add_creature(g, 0, "Grove Bear")
    add_creature(g, 0, "Messenger Owl")
    add_creature(g, 1, "Healer Acolyte")
    AL, k = ActionLayout(5), len(COMBAT_FEATURES)
    obs = torch.from_numpy(g.observation(0)["observation"])
    slots, table = combat_features(obs, 5)
    acts = torch.tensor([[AL.perm(0, 1), AL.PASS, AL.perm(1, 0)]])
    x = advantage_inputs(obs[None], acts, torch.tensor([AL.perm(0, 0)]), 5)
    assert x.shape == (1, 3, 56)
    assert x[0, 0, :k].tolist() == slots[1].tolist() and x[0, 0, k] == 1        # own creature slot 1
    assert not x[0, 1:, :k + 1].any()                                          # a pass, an opponent's creature
    for r in range(3):                                                          # the proposal: own slot 0
        assert x[0, r, k + 1:2 * k + 1].tolist() == slots[0].tolist() and x[0, r, 2 * k + 1] == 1
        assert x[0, r, 2 * k + 2:2 * k + 2 + len(TABLE_FEATURES)].tolist() == table.tolist()
    kind, role = x[0, 0, -DecisionKind.COUNT - 4:-4], x[0, 0, -4:]
    assert g.current_player == 0 and kind.tolist() == [float(i == g.decision.kind) for i in range(DecisionKind.COUNT)]
    assert role.tolist() == [1.0, 0.0, 0.0, 0.0]                               # seat 0 is the Leader
    with pytest.raises(ValueError, match="need obs"):
        advantage_inputs(obs, acts, torch.tensor([0]), 5)


def test_a_network_config_and_fit_with_the_action_set(tmp_path):
    """``gate_features = "action"`` gives the gate the wider input, goes into the checkpoint's
    ``model_kwargs`` (absent: ``"combat"``, as the shipped flagship's) and plays through
    :class:`agents.policy.PolicyAgent`; the fit keeps examples of that width; an unknown set is a one-line error in the network and the
    config."""
    from test_training import _sizes, tiny
    from training.gate import GateFit
    from training.rollout import Collector

    n = 5
    kw = dict(prior="heuristic", gate=8, gate_threshold=0.0)
    net = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, gate_features="action", **kw)
    assert net.gate[0].in_features == GATE_FEATURES["action"] and net.kwargs["gate_features"] == "action"
    old = EntityNet(obs_layout(n).size, ActionLayout(n).size, n, hidden=32, entity=16, **kw)
    assert old.gate[0].in_features == 56 and "gate_features" not in old.kwargs
    path = save_checkpoint(tmp_path / "a.pt", net, GameConfig(num_players=n).to_dict())
    bot = PolicyAgent(path, seed=0, greedy=True)
    assert bot.net.gate_features == "action"
    flagship = load_checkpoint("checkpoints/flagship/policy.pt")["model_kwargs"]
    assert build_network(flagship).gate_features == "combat"
    with pytest.raises(ValueError, match=r"gate_features must be one of \['action', 'all', 'combat', 'leader'\], got 'cards'"):
        EntityNet(obs_layout(n).size, ActionLayout(n).size, n, gate_features="cards", **kw)
    for bad, lit in (("cards", '"cards"'), (["action"], r'\["action"\]'), (3, "3")):
        with pytest.raises(ValueError, match=f'^train config: gate_features = {lit} is invalid; allowed: "combat" or "action" or "leader" or "all"$'):
            TrainConfig(gate_features=bad)
    cfg = tiny(tmp_path, arch="entity", entity=16, privileged_critic=True, prior="heuristic", expert="lookahead",
               opponents={"heuristic": 1}, solo=1.0, games_per_worker=4, imitation=0.0, imitation_coef=0.0,
               gate=16, gate_features="action")
    assert cfg.network_kwargs(*_sizes())["gate_features"] == "action"
    # init from a gated checkpoint of the combat set into the action set: refused in one line
    from training.ppo import init_weights
    combat = save_checkpoint(tmp_path / "c.pt", build_network({**cfg.network_kwargs(*_sizes()), "gate_features": "combat"}),
                             cfg.game_config().to_dict())
    with pytest.raises(ValueError, match=r"^init: .* differs from the config's in gate_features \('combat' in the checkpoint vs 'action'\)$"):
        init_weights(build_network(cfg.network_kwargs(*_sizes())), combat)
    plain = save_checkpoint(tmp_path / "p.pt", build_network({**cfg.network_kwargs(*_sizes()), "gate": 0}),
                            cfg.game_config().to_dict())
    init_weights(build_network(cfg.network_kwargs(*_sizes())), plain)       # a gate of either set is added
    torch.manual_seed(0)
    batch, _, _ = Collector(cfg, seed=4).collect(300, label_expert=True)
    fit = GateFit(build_network(cfg.network_kwargs(*_sizes())), tmp_path / "gate")
    m = fit.update(batch, 1, 4, np.random.default_rng(0))
    assert m["gate/examples"] > 0 and np.isfinite(m["gate/corr"])
    assert np.load(tmp_path / "gate" / "examples_000001.npz")["x"].shape == (m["gate/examples"], GATE_FEATURES["action"])
