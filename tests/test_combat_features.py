"""The combat features of the observer's creatures (agents/combat.py) on boards set by hand, read
from the engine's own observation, and the entity network option that adds them (``combat``)."""

from __future__ import annotations

import pytest
import torch

from agents.combat import (COMBAT_FEATURES, LEADER_FEATURES, LEADER_TABLE_FEATURES, TABLE_FEATURES,
                           combat_features, leader_features)
from training.config import TrainConfig

from scenario import ASSASSINS, GUARDIANS, LEADERS, TRAITORS, add_creature, make_game
from test_networks import _assert_swapping_two_creatures_swaps_their_logits, added_to_trained_weights

NAMES = COMBAT_FEATURES + TABLE_FEATURES


def _table(life: int = 20):
    return make_game([LEADERS[0], GUARDIANS[0], ASSASSINS[0], ASSASSINS[1], TRAITORS[0]], commander=False,
                     life=life)


def _features(g, seat: int = 0) -> list[dict]:
    """The features of ``seat``'s creature slots, by name, from its observation."""
    obs = torch.from_numpy(g.observation(seat)["observation"])
    slots, table = combat_features(obs, len(g.players))
    assert slots.shape == (20, len(COMBAT_FEATURES)) and table.shape == (len(TABLE_FEATURES),)
    return [dict(zip(NAMES, row.tolist() + table.tolist())) for row in slots]


def _close(row: dict, **want) -> None:
    for k, v in want.items():
        assert row[k] == pytest.approx(v, abs=1e-6), (k, row[k], v)


def test_attacking_creatures_against_each_opponents_untapped_blockers():
    """Blocks judged as fights (CR 510.1): a 2/2 trades with a 2/2 and dies to a deathtouch 1/1
    (CR 702.2b); first strike kills both first (CR 702.7b); a flier meets no blocker without flying
    or reach (CR 702.9b); tapped creatures don't block (CR 509.1a); menace needs two (CR 702.110b)."""
    g = _table()
    add_creature(g, 0, "Grove Bear")                  # 2/2
    add_creature(g, 0, "Messenger Owl")               # 1/1 flying
    add_creature(g, 0, "Blade Squire")                # 2/1 first strike
    acolyte = add_creature(g, 1, "Healer Acolyte")    # 2/2
    add_creature(g, 2, "Bog Rat")                     # 1/1 deathtouch
    f = _features(g)
    _close(f[0], safe=0.5, unblockable=0.5, fewest_killers=0, most_eaters=0, trades=1, finishes=0, untapped=1)
    _close(f[1], safe=1, unblockable=1, trades=0)
    _close(f[2], safe=1, unblockable=0.5, trades=1)
    # all opponents' creatures could hit back for 3; without the bear, the owl and the squire guard 2
    _close(f[0], exposure=(3 - 2 - 20 + 1) / 20, life=0.5, incoming=3 / 40, incoming_margin=(3 - 4 - 20) / 20,
           attacking_me=0, lethal_on_me=0, lowest_opponent_life=0.5)
    assert not any(any(row[k] for k in COMBAT_FEATURES) for row in f[3:])          # empty slots are zeros
    # a 3/3 blocker eats the bear (kills it, survives): one eater, and seat 1 is no longer safe for the squire
    acolyte.tapped = True
    big = add_creature(g, 1, "Mossback Hydra")
    f = _features(g)
    _close(f[0], safe=0.5, unblockable=0.5, most_eaters=0.2)
    _close(f[2], safe=0.75, unblockable=0.5)
    big.tapped = True
    f = _features(g)
    _close(f[0], safe=0.75, unblockable=0.75, trades=1)
    # an opponent at 2 life with no blocker for it is finished by the bear alone
    g.players[3].life = 2
    _close(_features(g)[0], finishes=1, lowest_opponent_life=2 / 40)
    # menace: one untapped blocker cannot block it
    ogre = add_creature(g, 0, "Rage Ogre")            # 3/2 menace
    row = _features(g)[3]
    assert g.players[0].creatures.index(ogre) == 3
    _close(row, unblockable=1, safe=1)


def test_blocking_the_creatures_attacking_the_observer():
    """Against a 4/3 and a flying 3/3 attacking seat 0: a 2/2 can only chump the 4/3, a reach 2/5
    walls both, a 5/5 kills the 4/3 and lives; the attackers' damage is lethal at 7 life."""
    g = _table()
    for seat, name in ((1, "Thicket Troll"), (2, "Griffin Rider")):
        c = add_creature(g, seat, name)
        c.tapped, c.attacking = True, 0
    add_creature(g, 0, "Grove Bear")
    add_creature(g, 0, "Watchtower Golem")            # 2/5 reach vigilance
    add_creature(g, 0, "War Mammoth")                 # 5/5
    f = _features(g)
    _close(f[0], good_block=0, safe_block=0, trade_block=0, chump_block=1, biggest_blockable=0.4)
    _close(f[1], good_block=0, safe_block=1, trade_block=0, chump_block=1, biggest_blockable=0.4)
    _close(f[2], good_block=1, safe_block=1, trade_block=1, chump_block=1, biggest_blockable=0.4)
    _close(f[0], attacking_me=7 / 20, lethal_on_me=0, incoming=7 / 40)
    # vigilance: attacking with the golem costs no defence, so its exposure is that of keeping everything home
    _close(f[1], exposure=(7 - 12 - 20 + 1) / 20)
    _close(f[0], exposure=(7 - 10 - 20 + 1) / 20)
    g.players[0].life = 7
    _close(_features(g)[0], lethal_on_me=1)
    # another seat's view: nothing attacks seat 1, so its creatures have no blocks to make
    assert _features(g, 1)[0]["chump_block"] == 0


def _leader(g, seat: int) -> list[dict]:
    """The fights of ``seat``'s creature slots against the Leader, by name, from its observation."""
    slots, table = leader_features(torch.from_numpy(g.observation(seat)["observation"]), len(g.players))
    assert slots.shape == (20, len(LEADER_FEATURES)) and table.shape == (len(LEADER_TABLE_FEATURES),)
    return [dict(zip(LEADER_FEATURES + LEADER_TABLE_FEATURES, row.tolist() + table.tolist())) for row in slots]


def test_fights_against_the_leader():
    """An Assassin's creatures against the Leader's blockers alone (its team wins when the Leader
    loses, CR 907.7d; the Leader is face up from the start, CR 907.4): a 2/2 trades with the
    Leader's 2/2, a flier is unblockable by it and finishes it at 1 life; the table's damage against
    the Leader's defence; what attacks the Leader now; nothing for the Leader itself or once it has
    left the game."""
    g = _table()
    add_creature(g, 2, "Grove Bear")                  # 2/2
    add_creature(g, 2, "Messenger Owl")               # 1/1 flying
    add_creature(g, 0, "Healer Acolyte")              # 2/2, the Leader's
    add_creature(g, 1, "Grove Bear")                  # the Guardian's 2/2: blocks for nobody but itself
    f = _leader(g, 2)
    _close(f[0], leader_safe=0, leader_unblockable=0, leader_killers=0.2, leader_trades=1, leader_finishes=0)
    _close(f[1], leader_safe=1, leader_unblockable=1, leader_killers=0, leader_trades=0, leader_finishes=0)
    # every other seat's creatures (2 + 1 + 2) against the acolyte's 2 toughness and 20 life
    _close(f[0], leader_known=1, leader_life=0.5, leader_defence=2 / 20, leader_reach=1 / 20, leader_reach_lethal=0,
           leader_pressure=(5 - 2 - 20) / 20, leader_attacked=0)
    assert not any(any(row[k] for k in LEADER_FEATURES) for row in f[2:])            # empty slots are zeros
    g.players[0].life = 1
    _close(_leader(g, 2)[1], leader_finishes=1, leader_reach_lethal=1, leader_life=1 / 40)
    g.players[0].life = 20
    troll = add_creature(g, 3, "Thicket Troll")       # 4/3, attacking the Leader
    troll.tapped, troll.attacking = True, 0
    _close(_leader(g, 2)[0], leader_attacked=4 / 20, leader_pressure=(9 - 2 - 20) / 20)
    _close(_leader(g, 3)[0], leader_attacked=4 / 20)   # the same from the attacker's seat
    assert not any(any(v for v in row.values()) for row in _leader(g, 0))           # the Leader itself
    g.players[0].has_lost = True
    assert not any(any(v for v in row.values()) for row in _leader(g, 2))


def test_combat_features_are_refused_for_another_table_size():
    obs = torch.from_numpy(_table().observation(0)["observation"])
    with pytest.raises(ValueError, match="observations of 4 players have"):
        combat_features(obs, 4)


def test_the_combat_option_starts_as_the_network_it_is_added_to(tmp_path):
    """``combat = true`` added by ``init`` to a checkpoint without it gives exactly that network's
    outputs; it then learns (its MLP gets gradients and changes); the actor still ignores the
    privileged input; entities stay a set; a flat network cannot have it."""
    net, obs = added_to_trained_weights(tmp_path, states=8, combat=True)
    assert combat_features(obs, net.num_players)[0][..., COMBAT_FEATURES.index("untapped")].sum() > 0   # creatures on the boards
    assert net.combat_enc[-1].weight.abs().sum() > 0 and net.combat_enc[0].weight.grad.abs().sum() > 0
    _assert_swapping_two_creatures_swaps_their_logits(net, net.num_players)
    with pytest.raises(ValueError, match="combat = true is invalid; allowed: true or false, and false with arch"):
        TrainConfig(combat=True)
    with pytest.raises(ValueError, match="combat"):
        TrainConfig(arch="entity", combat=1)


def test_fights_are_judged_as_the_heuristic_bot_judges_them():
    """On the boards of random games, each own creature's ``safe``, ``unblockable`` and
    ``fewest_killers`` agree with the heuristic bot's own fight helpers (``_can_block``,
    ``_survives``) applied to the seat view's creatures, so the two judge a fight alike."""
    import agents
    from agents.heuristic import _can_block, _survives
    from treachery_env import GameConfig
    from treachery_env.engine import Game

    def check(g) -> int:
        seat = g.current_player
        view = g.view(seat)
        slots, _ = combat_features(torch.from_numpy(g.observation(seat)["observation"]), len(g.players))
        opponents = [p for p in view.players if p.seat != seat and p.in_game]
        for i, c in enumerate(view.players[seat].creatures[:20]):
            safe = unblocked = 0
            fewest = None
            for p in opponents:
                blockers = [b for b in p.creatures if not b.tapped and _can_block(b, c)]
                if "menace" in c.keywords and len(blockers) < 2:
                    blockers = []
                killers = sum(not _survives(c, b) for b in blockers)
                safe += killers == 0
                unblocked += not blockers
                fewest = killers if fewest is None else min(fewest, killers)
            row = dict(zip(COMBAT_FEATURES, slots[i].tolist()))
            k = max(len(opponents), 1)
            assert row["safe"] == pytest.approx(safe / k) and row["unblockable"] == pytest.approx(unblocked / k)
            assert row["fewest_killers"] == pytest.approx(min(fewest or 0, 5) / 5)
        return len(view.players[seat].creatures[:20])

    checked = 0
    for seed in range(3):
        g = Game(GameConfig(num_players=5), seed=seed)
        bots = [agents.make("heuristic", seed=s) for s in range(5)]
        for s, b in enumerate(bots):
            b.reset(s)
        for step in range(1500):
            if g.is_over:
                break
            if step % 50 == 49:
                checked += check(g)
            s = g.current_player
            g.step(int(bots[s].act(g.observation(s), {"view": g.view(s)})))
    assert checked >= 50
