"""What the advantage gate reads about a choice between two actions, off the observation.

The advantage gate (:class:`agents.networks.EntityNet` with ``gate``,
:mod:`training.gate`) predicts, at a decision the lookahead teacher searches
(:func:`agents.lookahead.search_candidates`: declare attackers, declare
blockers, and priority with an empty stack when a spell, the commander, an
unveil or an identity ability may be used), how much better the teacher's
paired rollouts score a candidate action than the proposal it would
replace.  :func:`advantage_inputs` is that input, in one of four feature sets
(:data:`GATE_FEATURES`, a network's ``gate_features``), each made of blocks
(:data:`GATE_BLOCKS`) that follow one another in a row in this order:

* ``"combat"`` (56 numbers; the flagship's gate): for the candidate and for
  the proposal, the :data:`agents.combat.COMBAT_FEATURES` of the observer's
  creature it is an action on (attack, block or target with it; zeros
  otherwise) and a flag that it is one; then the
  :data:`agents.combat.TABLE_FEATURES`, the decision kind one-hot and the
  observer's own role one-hot.  At a priority decision every candidate looks
  the same in it: pass, a spell, an unveil and an identity ability all read
  zeros.
* ``"action"`` (``"combat"`` and :data:`ACTION_FEATURES` of the candidate and
  of the proposal, and :data:`SITUATION_FEATURES`): what kind of action each
  is (:data:`ACTION_GROUPS`, the blocks of :mod:`treachery_env.actions`, with
  the observer's creatures apart from the others'); for an action on a hand
  or other-zone slot (casting or playing that card, or choosing it), that
  card's :data:`CARD_FACTS` (read through the slot's card one-hot; the
  commander's card is not read: COMMANDER is a kind only); for an unveil, its
  ``X`` / 15; for an identity ability, its index one-hot; and, per decision,
  the turn, the observer's face-up flag, its hand, its untapped lands and the
  opponents still in the game.
* ``"leader"`` (``"combat"`` and the :data:`agents.combat.LEADER_FEATURES`
  of the candidate's creature and of the proposal's, zeros where it is not
  an action on the observer's creature, and the
  :data:`agents.combat.LEADER_TABLE_FEATURES`): the same fights against the
  Leader alone, and the Leader's position.
* ``"all"``: the three blocks, ``"combat"``, ``"action"``, ``"leader"``.

Since every set starts with the combat block and a set's blocks keep their
order, the inputs of a set are columns of the inputs of any set holding its
blocks (:func:`feature_columns`): a run that keeps ``"all"`` can be replayed
on every set (``bench/gate_replay.py``).

Everything is read off the observation (:mod:`treachery_env.observation`), a
function of the seat's information set, and the action indices, so the gate
sees nothing a seat could not know.  Card facts are the card pool's printed
facts (:mod:`treachery_env.cards`), the same for every seat.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from treachery_env.actions import MAX_HAND, MAX_OTHER, MAX_PERMS, MAX_X, N_IDENTITY_ABILITIES, ActionLayout
from treachery_env.cards import CARDS, CardDef
from treachery_env.engine.state import DecisionKind
from treachery_env.observation import (N_CARDS, N_PHASES, PLAYER_FACE_UP, PLAYER_FEATURES, PLAYER_HAND,
                                       PLAYER_IN_GAME, PLAYER_ROLE, PLAYER_UNTAPPED_LANDS, obs_layout)

from .combat import (COMBAT_FEATURES, LEADER_FEATURES, LEADER_TABLE_FEATURES, TABLE_FEATURES, combat_features,
                     leader_features)

__all__ = ["CARD_FACTS", "ACTION_GROUPS", "ACTION_FEATURES", "SITUATION_FEATURES", "GATE_BLOCKS", "GATE_FEATURES", "GATE_READS",
           "KIND_COLUMN", "card_facts", "action_features", "advantage_inputs", "feature_columns"]

CARD_FACTS = ("creature", "instant", "sorcery", "planeswalker", "land", "cost", "power", "toughness",
              "keywords", "x", "flash", "targets",
              "removal", "sweeper", "draw", "mana", "tokens", "pump", "counter", "life", "drain", "other")
"""Printed facts of a card (:func:`card_facts`): its type, mana value / 10, power / 10,
toughness / 10, keyword count / 4, an X cost, flash, targets, and the classes of its effects
(a planeswalker's: of its loyalty abilities'), multi-hot: ``removal`` (damage to a creature or
any target, destroy, exile, bounce, tap, stun), ``sweeper`` (every creature), ``draw``,
``mana`` (ramp, Treasure), ``tokens``, ``pump`` (+N/+N, +1/+1 counters), ``counter`` (a spell),
``life`` (gain), ``drain`` (damage that may hit a player, any target's included; life loss,
discard, Head Games), ``other``
(any other effect: fog, an extra turn)."""

ACTION_GROUPS = ("pass", "hand", "commander", "unveil", "identity_ability", "token_ability", "other_zone",
                 "player", "own_creature", "creature", "stack", "choice", "walker", "loyalty", "talk", "concede")
"""Kinds of action (:mod:`treachery_env.actions` blocks; PERM split into the observer's creatures and the others')."""

ACTION_FEATURES = (tuple(f"is_{g}" for g in ACTION_GROUPS) + tuple(f"card_{f}" for f in CARD_FACTS)
                   + ("unveil_x",) + tuple(f"identity_ability_{i}" for i in range(N_IDENTITY_ABILITIES)))
"""Features of one action in the ``"action"`` set (see the module docstring)."""

SITUATION_FEATURES = ("turn", "face_up", "hand", "untapped_lands", "opponents_in_game")
"""Features of the decision in the ``"action"`` set: turn / max turns, the observer's face-up flag,
hand / 10, untapped lands / 10, opponents still in the game / (n - 1)."""

KIND_COLUMN = 2 * (len(COMBAT_FEATURES) + 1) + len(TABLE_FEATURES)
"""Where the decision kind one-hot (``DecisionKind.COUNT``) starts in a row of :func:`advantage_inputs`;
the observer's own role one-hot (4) follows it."""

_BLOCK_WIDTH = {"combat": KIND_COLUMN + DecisionKind.COUNT + 4,
                "action": 2 * len(ACTION_FEATURES) + len(SITUATION_FEATURES),
                "leader": 2 * len(LEADER_FEATURES) + len(LEADER_TABLE_FEATURES)}

GATE_BLOCKS = {"combat": ("combat",), "action": ("combat", "action"), "leader": ("combat", "leader"),
               "all": ("combat", "action", "leader")}
"""The blocks of each feature set, in the order they follow one another in a row (module docstring)."""

GATE_FEATURES = {name: sum(_BLOCK_WIDTH[b] for b in blocks) for name, blocks in GATE_BLOCKS.items()}
"""Width of :func:`advantage_inputs`' rows for each feature set (``"combat"``: 56, ``"action"``: 145,
``"leader"``: 73, ``"all"``: 162)."""

GATE_READS = {"combat": "the combat features",
              "action": "the combat features and what each action is",
              "leader": "the combat features and the same fights against the Leader",
              "all": "the combat features, what each action is and the fights against the Leader"}
"""Each feature set in words (model cards)."""


def feature_columns(kept: str, features: str) -> np.ndarray:
    """int64 column indices of the ``features`` set's inputs within rows of the ``kept`` set.

    Raises:
        ValueError: for an unknown set, or a ``features`` set with a block ``kept`` lacks.
    """
    for name in (kept, features):
        if name not in GATE_BLOCKS:
            raise ValueError(f"feature_columns: feature sets are {sorted(GATE_BLOCKS)}, got {name!r}")
    missing = [b for b in GATE_BLOCKS[features] if b not in GATE_BLOCKS[kept]]
    if missing:
        raise ValueError(f"the {features!r} inputs need the {' and '.join(map(repr, missing))} block, which "
                         f"the {kept!r} inputs lack; keep examples with gate_features = \"all\" to replay any set")
    start, at = 0, {}
    for b in GATE_BLOCKS[kept]:
        at[b] = np.arange(start, start + _BLOCK_WIDTH[b])
        start += _BLOCK_WIDTH[b]
    return np.concatenate([at[b] for b in GATE_BLOCKS[features]])

_EFFECT_CLASS = {"destroy": "removal", "exile": "removal", "bounce": "removal", "tap": "removal",
                 "stun": "removal", "wipe": "sweeper", "damage_each_creature": "sweeper", "draw": "draw",
                 "ramp": "mana", "pump": "pump", "pump_team": "pump", "counters": "pump", "counter": "counter",
                 "gain": "life", "lose": "drain", "each_opponent_loses": "drain", "discard": "drain",
                 "head_games": "drain"}


def _facts(c: CardDef) -> list[float]:
    """:data:`CARD_FACTS` of one card."""
    f = dict.fromkeys(CARD_FACTS, 0.0)
    if c.type in f:
        f[c.type] = 1.0
    f.update(cost=c.cost / 10, power=c.power / 10, toughness=c.toughness / 10, keywords=len(c.keywords) / 4,
             x=float(c.x), flash=float(c.flash))
    parts = [(c.effects, c.targets)] + [(a["effects"], a["targets"]) for a in c.abilities]
    for effects, targets in parts:
        if targets:
            f["targets"] = 1.0
        for e in effects:
            op = e["op"]
            if op == "damage":
                t = e.get("t")
                kind = targets[t]["type"] if isinstance(t, int) and t < len(targets) else "any"
                if kind in ("any", "creature"):
                    f["removal"] = 1.0
                if kind in ("any", "player"):
                    f["drain"] = 1.0
            elif op == "tokens":
                f["mana" if e.get("token") == "Treasure" else "tokens"] = 1.0
            else:
                f[_EFFECT_CLASS.get(op, "other")] = 1.0
    return [f[k] for k in CARD_FACTS]


@lru_cache(maxsize=None)
def card_facts() -> torch.Tensor:
    """float32 ``(N_CARDS, len(CARD_FACTS))``: the :data:`CARD_FACTS` of every card, by card index."""
    t = torch.zeros(N_CARDS, len(CARD_FACTS))
    for c in CARDS:
        t[c.index] = torch.tensor(_facts(c))
    return t


@lru_cache(maxsize=None)
def _action_tables(num_players: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For every action index of ``num_players``: its :data:`ACTION_GROUPS` index, its card slot
    (0-14 hand, 15-22 other zone, 23 none) and its ``unveil_x`` / identity-ability features
    (float32 ``(A, 1 + N_IDENTITY_ABILITIES)``)."""
    AL = ActionLayout(num_players)
    group = np.full(AL.size, ACTION_GROUPS.index("choice"), np.int64)
    blocks = {"PASS": "pass", "HAND": "hand", "COMMANDER": "commander", "UNVEIL": "unveil",
              "IDENTITY_AB": "identity_ability", "TOKEN_AB": "token_ability", "OTHER": "other_zone",
              "PLAYER": "player", "PERM": "creature", "STACK": "stack", "CHOICE": "choice", "WALKER": "walker",
              "LOYALTY": "loyalty", "TALK": "talk", "CONCEDE": "concede"}
    names = list(blocks)
    starts = [getattr(AL, b) for b in names] + [AL.size]
    for b, s, e in zip(names, starts, starts[1:]):
        group[s:e] = ACTION_GROUPS.index(blocks[b])
    group[AL.PERM:AL.PERM + MAX_PERMS] = ACTION_GROUPS.index("own_creature")   # relative seat 0 first
    slot = np.full(AL.size, MAX_HAND + MAX_OTHER, np.int64)
    slot[AL.HAND:AL.HAND + MAX_HAND] = np.arange(MAX_HAND)
    slot[AL.OTHER:AL.OTHER + MAX_OTHER] = MAX_HAND + np.arange(MAX_OTHER)
    extra = np.zeros((AL.size, 1 + N_IDENTITY_ABILITIES), np.float32)
    extra[AL.UNVEIL:AL.UNVEIL + MAX_X + 1, 0] = np.arange(MAX_X + 1) / MAX_X
    extra[AL.IDENTITY_AB + np.arange(N_IDENTITY_ABILITIES), 1 + np.arange(N_IDENTITY_ABILITIES)] = 1.0
    return torch.from_numpy(group), torch.from_numpy(slot), torch.from_numpy(extra)


def action_features(obs: torch.Tensor, actions: torch.Tensor, num_players: int) -> torch.Tensor:
    """The :data:`ACTION_FEATURES` of each action (see the module docstring).

    Args:
        obs: float32 observations ``(B, D)``, ``D = obs_layout(num_players).size``.
        actions: int64 action indices ``(B, K)`` (in ``[0, ActionLayout(num_players).size)``).
        num_players: seats ``n``.

    Returns:
        float32 ``(B, K, len(ACTION_FEATURES))``.

    Raises:
        ValueError: for a wrong observation size, mismatched shapes or an action out of range.
    """
    L = obs_layout(num_players)
    if obs.dim() != 2 or obs.shape[1] != L.size or actions.dim() != 2 or actions.shape[0] != obs.shape[0]:
        raise ValueError(f"action_features: need obs (B, {L.size}) and actions (B, K), got {tuple(obs.shape)} "
                         f"and {tuple(actions.shape)}")
    group, slot, extra = _action_tables(num_players)
    if actions.numel() and (int(actions.min()) < 0 or int(actions.max()) >= len(group)):
        raise ValueError(f"action_features: actions must be in [0, {len(group)}), got "
                         f"{int(actions.min())}..{int(actions.max())}")
    B = obs.shape[0]
    hand = obs[:, L.hand:L.hand + MAX_HAND * N_CARDS].reshape(B, MAX_HAND, N_CARDS)
    other = obs[:, L.other:L.other + MAX_OTHER * N_CARDS].reshape(B, MAX_OTHER, N_CARDS)
    facts = torch.cat([hand, other, obs.new_zeros(B, 1, N_CARDS)], dim=1) @ card_facts()    # (B, 24, F)
    s = slot[actions]                                                                        # (B, K)
    card = facts.gather(1, s.unsqueeze(-1).expand(*s.shape, facts.shape[-1]))
    onehot = torch.nn.functional.one_hot(group[actions], len(ACTION_GROUPS)).to(obs.dtype)
    return torch.cat([onehot, card, extra[actions]], dim=-1)


def _situation(obs: torch.Tensor, num_players: int) -> torch.Tensor:
    """float32 ``(B, len(SITUATION_FEATURES))`` (see :data:`SITUATION_FEATURES`)."""
    L, n = obs_layout(num_players), num_players
    p = obs[:, L.players:L.players + n * PLAYER_FEATURES].reshape(-1, n, PLAYER_FEATURES)
    turn = obs[:, L.glob + N_PHASES + DecisionKind.COUNT]
    return torch.stack([turn, p[:, 0, PLAYER_FACE_UP], p[:, 0, PLAYER_HAND], p[:, 0, PLAYER_UNTAPPED_LANDS],
                        p[:, 1:, PLAYER_IN_GAME].sum(-1) / (n - 1)], dim=-1)


def advantage_inputs(obs: torch.Tensor, actions: torch.Tensor, proposal: torch.Tensor, num_players: int,
                     features: str = "combat") -> torch.Tensor:
    """The inputs of a choice between each of ``actions`` and the ``proposal`` it would replace.

    Per candidate, ``GATE_FEATURES[features]`` numbers (see the module
    docstring): the candidate's :data:`~agents.combat.COMBAT_FEATURES` when it
    is an action on one of the observer's creature slots (a PERM action on
    relative seat 0: attack, block or target with it; zeros otherwise) and a
    flag that it is; the same for the proposal; the
    :data:`~agents.combat.TABLE_FEATURES`; the decision kind one-hot
    (``DecisionKind.COUNT``, read off the observation's global block) and the
    observer's own role one-hot (4, its own player block); with ``"action"``
    (or ``"all"``), then the candidate's :data:`ACTION_FEATURES`, the
    proposal's and the :data:`SITUATION_FEATURES`; with ``"leader"`` (or
    ``"all"``), then the candidate's and the proposal's
    :data:`~agents.combat.LEADER_FEATURES` (zeros where not an action on the
    observer's creature) and the :data:`~agents.combat.LEADER_TABLE_FEATURES`.

    Args:
        obs: float32 observations ``(B, D)``, ``D = obs_layout(num_players).size``.
        actions: int64 ``(B, K)``: candidate action indices (any legal ones; padding is allowed,
            its rows are computed like any other).
        proposal: int64 ``(B,)``: the action each candidate would replace.
        num_players: seats ``n``.
        features: a key of :data:`GATE_FEATURES`.

    Returns:
        float32 ``(B, K, GATE_FEATURES[features])``.

    Raises:
        ValueError: for an unknown feature set, a wrong observation size
            (:func:`~agents.combat.combat_features`) or mismatched shapes.
    """
    if features not in GATE_FEATURES:
        raise ValueError(f"advantage_inputs: features must be one of {sorted(GATE_FEATURES)}, got {features!r}")
    if obs.dim() != 2 or actions.dim() != 2 or proposal.shape != (obs.shape[0],) or actions.shape[0] != obs.shape[0]:
        raise ValueError(f"advantage_inputs: need obs (B, D), actions (B, K) and proposal (B,), got "
                         f"{tuple(obs.shape)}, {tuple(actions.shape)} and {tuple(proposal.shape)}")
    L, AL = obs_layout(num_players), ActionLayout(num_players)
    slots, table = combat_features(obs, num_players)                          # (B, S, F), (B, T)

    def on(per_slot: torch.Tensor, a: torch.Tensor) -> torch.Tensor:           # (B, S, F), (B, K) -> (B, K, F)
        own = (a >= AL.PERM) & (a < AL.PERM + MAX_PERMS)                       # relative seat 0's slots come first
        f = per_slot.gather(1, (a - AL.PERM).clamp(0, MAX_PERMS - 1).unsqueeze(-1).expand(*a.shape, per_slot.shape[-1]))
        return f * own.unsqueeze(-1).to(f.dtype)

    def of(a: torch.Tensor) -> torch.Tensor:                                    # (B, K) -> (B, K, F + 1)
        own = (a >= AL.PERM) & (a < AL.PERM + MAX_PERMS)
        return torch.cat([on(slots, a), own.unsqueeze(-1).to(obs.dtype)], dim=-1)

    kind = obs[:, L.glob + N_PHASES:L.glob + N_PHASES + DecisionKind.COUNT]
    role = obs[:, L.players + PLAYER_ROLE:L.players + PLAYER_ROLE + 4]         # the observer's block comes first
    proposals = proposal.unsqueeze(1).expand_as(actions)
    per_row = torch.cat([table, kind, role], dim=-1).unsqueeze(1).expand(-1, actions.shape[1], -1)
    parts = [of(actions), of(proposals), per_row]
    if "action" in GATE_BLOCKS[features]:
        situation = _situation(obs, num_players).unsqueeze(1).expand(-1, actions.shape[1], -1)
        parts += [action_features(obs, actions, num_players), action_features(obs, proposals, num_players),
                  situation]
    if "leader" in GATE_BLOCKS[features]:
        lead, lead_table = leader_features(obs, num_players)
        parts += [on(lead, actions), on(lead, proposals), lead_table.unsqueeze(1).expand(-1, actions.shape[1], -1)]
    return torch.cat(parts, dim=-1)
