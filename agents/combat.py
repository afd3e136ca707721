"""What a fight would do, read off the public board: combat features of the observer's creatures.

The lookahead teacher's gain over the heuristic is mostly in combat (issue 13:
on the flagship's labelled rollouts, declare-attackers decisions carry 51% of
it and declare-blockers 16%), and a head on the policy network's own action
features recovers almost none of it, while one on these few features
recovers four times as much (README, "Where training stands").  They are
computed from the observation tensor alone (:mod:`treachery_env.observation`:
creature slots and player blocks), so they are a function of the seat's
information set like everything else the network reads, and they need no
change to the observation.

The combat rules read (the substrate's keywords, :data:`treachery_env.cards.KEYWORDS`):
a tapped creature can't block (CR 509.1a); a creature with flying can't be
blocked except by creatures with flying or reach (CR 702.9b, 702.17b); one
with menace can't be blocked except by two or more (CR 702.110b); combat
damage is dealt by power (CR 510.1), twice with double strike (CR 702.4b),
and first (before a creature without it strikes back) with first strike or
double strike (CR 702.7b, 510.4); any damage from a creature with deathtouch
is lethal (CR 702.2b); a creature is destroyed by damage at least its
toughness less the damage already marked on it (CR 704.5g).  A "fight" here
is one attacker against one blocker, as the heuristic bot judges blocks
(:mod:`agents.heuristic`); pump spells, abilities and trample's assignment
are not foreseen.

Per creature slot of the observer (20 slots; zeros for an empty slot), in
:data:`COMBAT_FEATURES` order, where an opponent's *blockers* for it are that
opponent's untapped creatures that may block it:

* ``safe``: share of the opponents still in the game none of whose blockers
  would kill it without dying first;
* ``unblockable``: share of those opponents with no blocker for it;
* ``fewest_killers``: the fewest blockers that would kill it, over those
  opponents, / 5 (capped);
* ``most_eaters``: the most blockers that would kill it and survive, / 5 (capped);
* ``trades``: some opponent has a blocker it would kill;
* ``finishes``: it alone deals lethal damage to an opponent with no blocker for it;
* ``exposure``: if it taps to attack (not with vigilance), the damage all
  opponents' creatures could deal back less the toughness of the observer's
  other untapped creatures less (life - 1), / 20, clipped to [-2, 2]
  (positive: a counter-attack could be lethal);
* ``good_block``, ``safe_block``, ``trade_block``, ``chump_block``: among the
  creatures attacking the observer that it may block, one it kills and
  survives, one it survives, one it kills, any;
* ``biggest_blockable``: the most damage of an attacker it may block, / 10;
* ``untapped``: it is untapped;

and, apart, six features of the table (:data:`TABLE_FEATURES`):
the observer's life / 40; the damage all opponents' creatures could deal / 40;
that less the observer's untapped creatures' toughness less its life, / 20,
clipped to [-2, 2]; the unblocked damage of the creatures attacking it now / 20;
whether that is lethal; the lowest life of an opponent in the game / 40.

The same fights *against the Leader alone* (:func:`leader_features`; the
Leader turns its identity face up at the start, CR 907.4, so every seat knows who it is):
what an Assassin is dealt to do (its team wins when the Leader leaves the
game, CR 907.7d) and a Guardian to prevent, which the features over all opponents blur.
Per creature slot (:data:`LEADER_FEATURES`): ``leader_safe``, none of the
Leader's blockers would kill it without dying first; ``leader_unblockable``,
the Leader has no blocker for it; ``leader_killers``, how many of them would
kill it, / 5 (capped); ``leader_trades``, it would kill one of them;
``leader_finishes``, it alone deals the Leader lethal damage unblocked.  Of
the table (:data:`LEADER_TABLE_FEATURES`): a Leader is known in the game (the
observer is not it); its life / 40; its untapped creatures' toughness / 20;
the damage of the observer's untapped creatures it has no blocker for / 20,
and whether that is lethal; the damage every other player's creatures could
deal less its defence less its life, / 20, clipped to [-2, 2]; the damage of
the creatures attacking it now / 20.  All zero where no opponent is the
known Leader.

:func:`agents.candidates.advantage_inputs` puts them together for a *choice
between actions* (the input of the learned advantage gate,
:class:`agents.networks.EntityNet` with ``gate``).
"""

from __future__ import annotations

import torch

from treachery_env.actions import MAX_PERMS
from treachery_env.cards import KEYWORDS
from treachery_env.observation import (CREATURE_ATTACKED, CREATURE_ATTACKING, CREATURE_DAMAGE, CREATURE_POWER,
                                       CREATURE_PRESENT, CREATURE_TAPPED, CREATURE_TOUGHNESS, PLAYER_FEATURES,
                                       PLAYER_FACE_UP, PLAYER_IN_GAME, PLAYER_LIFE, PLAYER_ROLE, obs_layout)
from treachery_env.rules import Role

__all__ = ["COMBAT_FEATURES", "TABLE_FEATURES", "LEADER_FEATURES", "LEADER_TABLE_FEATURES", "combat_features",
           "leader_features"]

COMBAT_FEATURES = ("safe", "unblockable", "fewest_killers", "most_eaters", "trades", "finishes", "exposure",
                   "good_block", "safe_block", "trade_block", "chump_block", "biggest_blockable", "untapped")
"""Features of each of the observer's creature slots (see the module docstring)."""

TABLE_FEATURES = ("life", "incoming", "incoming_margin", "attacking_me", "lethal_on_me", "lowest_opponent_life")
"""Features of the table as the observer sees it (see the module docstring)."""

LEADER_FEATURES = ("leader_safe", "leader_unblockable", "leader_killers", "leader_trades", "leader_finishes")
"""Features of each of the observer's creature slots against the Leader (see the module docstring)."""

LEADER_TABLE_FEATURES = ("leader_known", "leader_life", "leader_defence", "leader_reach", "leader_reach_lethal",
                         "leader_pressure", "leader_attacked")
"""Features of the Leader's position as the observer sees it (see the module docstring)."""


def _fights(obs: torch.Tensor, num_players: int) -> dict[str, torch.Tensor]:
    """The one-on-one fights of the observer's creatures against every opponent, read off the observation.

    Shared by :func:`combat_features` and :func:`leader_features`.  Shapes: ``S`` = 20 creature
    slots, ``O`` = the ``n - 1`` opponents in relative seat order; per-creature tensors are
    ``(..., n, S)``, per-player ``(..., n)``, the observer's slots against an opponent's
    ``(..., S, O)``.

    Raises:
        ValueError: if the last axis is not the observation size for ``num_players``.
    """
    n = num_players
    L = obs_layout(n)
    if obs.shape[-1] != L.size:
        raise ValueError(f"combat_features: observations of {n} players have {L.size} features, "
                         f"got {obs.shape[-1]}")
    cf = L.creature_features
    c = obs[..., L.creatures:L.creatures + n * MAX_PERMS * cf].unflatten(-1, (n, MAX_PERMS, cf))   # (..., n, S, cf)
    has = {k: c[..., L.creature_keywords + i] > 0.5 for i, k in enumerate(KEYWORDS)}          # (..., n, S) each
    present = c[..., CREATURE_PRESENT] > 0.5
    power = torch.round(c[..., CREATURE_POWER] * 10)
    left = torch.round(c[..., CREATURE_TOUGHNESS] * 10) - torch.round(c[..., CREATURE_DAMAGE] * 10)  # less damage
    tapped = c[..., CREATURE_TAPPED] > 0.5
    attacking = present & (c[..., CREATURE_ATTACKING] > 0.5)
    attacked = attacking.unsqueeze(-1) & (c[..., CREATURE_ATTACKED:CREATURE_ATTACKED + n] > 0.5)   # (..., n, S, n)
    first = has["first_strike"] | has["double_strike"]
    hits = power * torch.where(has["double_strike"], 2.0, 1.0)
    p = obs[..., L.players:L.players + n * PLAYER_FEATURES].unflatten(-1, (n, PLAYER_FEATURES))

    def mine(x):    # the observer's slots as one side of every pair: (..., S, 1, 1)
        return x[..., 0, :, None, None]

    def theirs(x):  # the opponents' slots as the other side: (..., 1, n-1, S)
        return x[..., 1:, :].unsqueeze(-3)

    i_kill = (mine(power) > 0) & (mine(has["deathtouch"]) | (mine(hits) >= theirs(left)))     # mine kills theirs
    o_kill = (theirs(power) > 0) & (theirs(has["deathtouch"]) | (theirs(hits) >= mine(left)))
    i_first, o_first = mine(first) & ~theirs(first), theirs(first) & ~mine(first)
    i_live = (i_first & i_kill) | ~o_kill                                    # mine survives the fight
    o_live = (o_first & o_kill) | ~i_kill
    # mine attacking, theirs blocking
    may_block = theirs(present & ~tapped) & (~mine(has["flying"]) | theirs(has["flying"]) | theirs(has["reach"]))
    blockers = may_block.sum(-1)                                                        # (..., S, n-1)
    blocked = (blockers > 0) & ~(has["menace"][..., 0, :, None] & (blockers < 2))
    guard = present & ~tapped & ~attacking                                              # could block: (..., n, S)
    # mine blocking, theirs attacking the observer (relative seat 0)
    blockable = (theirs(attacked[..., 0]) & (~theirs(has["flying"]) | mine(has["flying"]) | mine(has["reach"])))
    return {"has": has, "present": present, "hits": hits, "tapped": tapped, "attacked": attacked,
            "alive": p[..., PLAYER_IN_GAME] > 0.5, "life": p[..., PLAYER_LIFE] * 40,
            "known_leader": (p[..., PLAYER_FACE_UP] > 0.5) & (p[..., PLAYER_ROLE + Role.LEADER] > 0.5),
            "i_kill": i_kill, "i_live": i_live, "o_live": o_live, "may_block": may_block,
            "blocked": blocked, "killers": (may_block & ~i_live).sum(-1) * blocked,
            "guard_toughness": left.clamp(min=0) * guard, "blockable": blockable}


def combat_features(obs: torch.Tensor, num_players: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Combat features of the observer's creature slots, and of the table.

    Args:
        obs: float32 observations ``(..., D)`` with ``D = obs_layout(num_players).size``.
        num_players: seats ``n``.

    Returns:
        ``(slots, table)``: float32 ``(..., 20, len(COMBAT_FEATURES))`` (rows of empty slots are
        zeros) and float32 ``(..., len(TABLE_FEATURES))``.

    Raises:
        ValueError: if the last axis is not the observation size for ``num_players``.
    """
    F = _fights(obs, num_players)
    has, present, hits, alive, life = F["has"], F["present"], F["hits"], F["alive"], F["life"]
    may_block, blocked, killers, blockable = F["may_block"], F["blocked"], F["killers"], F["blockable"]
    i_kill, i_live, o_live = F["i_kill"], F["i_live"], F["o_live"]
    eaters = (may_block & ~i_live & o_live).sum(-1) * blocked
    trades = ((may_block & i_kill).any(-1) & blocked & alive[..., None, 1:]).any(-1)
    opp = alive[..., 1:].unsqueeze(-2)                                                  # (..., 1, n-1)
    n_opp = opp.sum(-1).clamp(min=1)
    safe = ((killers == 0) & opp).sum(-1) / n_opp
    unblockable = (~blocked & opp).sum(-1) / n_opp
    fewest = torch.where(opp, killers, torch.full_like(killers, 10**6)).amin(-1)
    fewest = torch.where(opp.any(-1), fewest, torch.zeros_like(fewest)).clamp(max=5) / 5
    most = torch.where(opp, eaters, torch.zeros_like(eaters)).amax(-1).clamp(max=5) / 5
    finishes = (~blocked & opp & (hits[..., 0, :, None] >= life[..., None, 1:])).any(-1)
    # the counter-attack
    incoming = (hits[..., 1:, :] * present[..., 1:, :]).sum((-1, -2))                  # (...)
    toughness = F["guard_toughness"][..., 0, :]
    defence = toughness.sum(-1)
    my_life = life[..., 0]
    without = defence.unsqueeze(-1) - torch.where(has["vigilance"][..., 0, :], 0.0, toughness)
    exposure = ((incoming.unsqueeze(-1) - without - my_life.unsqueeze(-1) + 1) / 20).clamp(-2, 2)
    # mine blocking, theirs attacking the observer
    theirs_hits = hits[..., 1:, :].unsqueeze(-3)
    good = (blockable & i_kill & i_live).flatten(-2).any(-1)
    wall = (blockable & i_live).flatten(-2).any(-1)
    trade = (blockable & i_kill).flatten(-2).any(-1)
    chump = blockable.flatten(-2).any(-1)
    biggest = torch.where(blockable, theirs_hits, torch.zeros_like(theirs_hits)).flatten(-2).amax(-1)
    unblocked = (hits[..., 1:, :] * F["attacked"][..., 1:, :, 0]).sum((-1, -2))
    lowest = torch.where(alive[..., 1:], life[..., 1:], torch.full_like(life[..., 1:], 10**6)).amin(-1)
    lowest = torch.where(alive[..., 1:].any(-1), lowest, torch.zeros_like(lowest))
    f = obs.dtype
    per = torch.stack([safe, unblockable, fewest, most, trades.to(f), finishes.to(f), exposure, good.to(f),
                       wall.to(f), trade.to(f), chump.to(f), biggest / 10,
                       (present[..., 0, :] & ~F["tapped"][..., 0, :]).to(f)], dim=-1)
    table = torch.stack([my_life / 40, incoming / 40, ((incoming - defence - my_life) / 20).clamp(-2, 2),
                         unblocked / 20, ((unblocked >= my_life) & (unblocked > 0)).to(f), lowest / 40], dim=-1)
    return per * present[..., 0, :].unsqueeze(-1).to(f), table


def leader_features(obs: torch.Tensor, num_players: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The observer's fights against the Leader, and the Leader's position (see the module docstring).

    The Leader is the opponent in the game whose identity the observation shows face up as a
    Leader's (CR 907.4: the Leader turns its identity face up at the start, so every seat knows it); with none (or where
    the observer is the Leader itself) every feature is 0.

    Args:
        obs: float32 observations ``(..., D)`` with ``D = obs_layout(num_players).size``.
        num_players: seats ``n``.

    Returns:
        ``(slots, table)``: float32 ``(..., 20, len(LEADER_FEATURES))`` (rows of empty slots are
        zeros) and float32 ``(..., len(LEADER_TABLE_FEATURES))``.

    Raises:
        ValueError: if the last axis is not the observation size for ``num_players``.
    """
    F = _fights(obs, num_players)
    hits, present, life, f = F["hits"], F["present"], F["life"], obs.dtype
    known = F["known_leader"][..., 1:] & F["alive"][..., 1:]                          # (..., n-1)
    first = torch.nn.functional.one_hot(known.to(torch.int64).argmax(-1), num_players - 1).bool() & known
    is_leader = first.to(f)                                                            # (..., n-1): at most one 1

    def at_leader(x: torch.Tensor) -> torch.Tensor:       # (..., S, n-1) -> (..., S): the Leader's column
        return (x.to(f) * is_leader.unsqueeze(-2)).sum(-1)

    any_leader = is_leader.sum(-1)                                                     # (...): 0 or 1
    blocked, killers = F["blocked"], F["killers"]
    safe = at_leader(killers == 0)
    unblockable = at_leader(~blocked)
    trades = at_leader((F["may_block"] & F["i_kill"]).any(-1) & blocked)
    leader_life = (life[..., 1:] * is_leader).sum(-1)
    finishes = at_leader(~blocked & (hits[..., 0, :, None] >= life[..., None, 1:]))
    ready = (present & ~F["tapped"])[..., 0, :].to(f)
    reach = (at_leader(~blocked) * hits[..., 0, :] * ready).sum(-1)
    defence = (F["guard_toughness"][..., 1:, :].sum(-1) * is_leader).sum(-1)
    others = (hits * present).sum(-1)                                                 # (..., n)
    pressure = (others.sum(-1) - (others[..., 1:] * is_leader).sum(-1)) * any_leader
    attacked = (F["attacked"][..., 1:].to(f) * is_leader[..., None, None, :]).sum(-1)  # (..., n, S)
    on_leader = (hits * attacked).sum((-1, -2))
    per = torch.stack([safe, unblockable, at_leader(killers).clamp(max=5) / 5, trades, finishes], dim=-1)
    table = torch.stack([any_leader, leader_life / 40, defence / 20, reach / 20,
                         ((reach >= leader_life) & (reach > 0)).to(f) * any_leader,
                         ((pressure - defence - leader_life) / 20).clamp(-2, 2) * any_leader, on_leader / 20], dim=-1)
    return per * present[..., 0, :].unsqueeze(-1).to(f) * any_leader[..., None, None], table
