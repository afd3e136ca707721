"""What one seat may know, as a vector: the observation.

The same information as objects is :mod:`treachery_env.view`.  Both are functions of the seat's *information set* only (DESIGN section 4):
its own hand and identity; every public fact (life, board, graveyards, the
stack, face-up identities, counts of hidden cards); identities it has seen or
been shown (``IdentityCard.known_by``: cards that were face up and turned face
down again are remembered, TR4.8); cards only it may look at (The
Oneiromancer's face-down exile).  It never includes other hands, library order,
face-down identities it was not shown, or other seats' pending decisions.

Seats are **relative** to the observer: block 0 is the observer, then the
other seats in turn order.

Two implementations give the same bytes: :func:`encode_python` here, the
reference, and the compiled ``treachery_env._observation`` (Cython, built by
``setup.py`` when a C compiler is there; ~7x faster).  :func:`encode` is the
compiled one unless it is not built or ``TREACHERY_PURE_PYTHON=1``;
:data:`ENCODER` says which.  A change to the vector is made in both (and
``tests/test_compiled.py`` compares them at every decision of
random games).

The vector (float32, shape ``(obs_size(n),)``) is laid out by :class:`ObsLayout`:

* global: step one-hot (13), own decision kind one-hot
  (``DecisionKind.COUNT``; zeros unless the observer is deciding), turn /
  max_turns, stack size / 10, active player (relative one-hot, n), own
  Undercover condition met, own land played;
* per player (n blocks of :data:`PLAYER_FEATURES`): in game, life / 40, hand,
  library, graveyard, exile and face-down-exile sizes, lands, untapped lands,
  creature count, commander zone one-hot (3), commander casts, highest
  commander damage taken / 21, mana pool, 7 artifact-token counts, face up,
  known role one-hot (4), known identity one-hot (62), identity counters,
  Leader player, attacked a Leader, damage-prevention shield, gem / nut / rad
  player counters / 10, cards usable from other zones / 4, mulligans taken / 3
  (public, CR 103.5);
* public history (2 x n x n, rows = source seat, columns = target seat,
  both relative): damage dealt and life loss caused / 40, creatures attacked
  with / 10 (``Game.harm``, ``Game.attacks``);
* per creature slot (n x 20 slots of ``ObsLayout.creature_features`` =
  ``CREATURE_FEATURES - 1 + n``): present,
  power / 10, toughness / 10, damage / 10, tapped, can't attack yet
  (summoning sick), attacking, attacked player (relative, one-hot n),
  blocking, blocked, +1/+1 counters / 5, stun counters, token, commander,
  11 keyword bits, attacked planeswalker (slot one-hot in the defending
  player's attackable slots, 4);
* per attackable-permanent slot ((n + 1) x 4 slots of ``walker_features``;
  rows = relative seat of the controller, row n reserved for uncontrolled
  ones, Throne Magic; the same slots as the WALKER actions): present, kind
  one-hot (planeswalker, throne, holding), card one-hot over the pool's
  planeswalker cards (``cards.WALKER_CARDS``), loyalty / 10, a loyalty
  ability activated this turn (CR 606.3), creatures attacking it / 5,
  targeted by a stack object, owner is not the controller;
* own hand: 15 slots x card one-hot (every card of the pool);
* stack: 10 slots (top first) of present, controller (relative one-hot), spell,
  identity source, card one-hot, X / 10, targeted players (relative multi-hot);
* own face-down exile (The Oneiromancer): counts by card / 4;
* own cards usable from other zones: 8 slots (the OTHER actions) x card one-hot;
* own decision context (all zeros unless the observer is deciding; fields in
  ``ObsLayout.ctx``): the stack object the choice is for -- the one being
  cast / activated / triggered, the one an identity's question names, else
  the one resolving -- as kind one-hot (spell, trigger, ability), stage
  one-hot (being put on the stack, on the stack, resolving), identity source,
  copy, card one-hot (a spell's card, a creature trigger's creature card, a
  planeswalker's for its loyalty ability, or a declared creature's), identity
  one-hot (62) of an identity-sourced object (or the own identity while paying
  its unveil cost), token-ability one-hot (5), loyalty-ability index one-hot
  (3), X / 10; the creature it is about (own slot one-hot, 20: the one being
  declared, else the object's source creature); for a target choice
  (``_h_target``, The Reflector-style retargeting) which target of the object
  (index one-hot, :data:`MAX_TARGET_INDEX`, the last slot "that one or
  later"), the target type one-hot (:data:`TARGET_TYPES`) and whether it may
  be skipped; the object's targets already chosen, multi-hot: players
  (relative, n), creatures (relative controller x slot, n x 20), planeswalkers
  (n x 4), stack objects (depth, 10); an amount / 10 (cards still to discard
  after this one, cards still to take with Head Games, triggers left to
  order); what the decision is for, one-hot over :data:`DECISION_PURPOSES`
  (the engine's handlers and the identities' ``Game.ask`` callbacks);
* table talk (TR10.5; :mod:`treachery_env.engine.talk`; all zeros in the
  silent game ``GameConfig.talk="none"``), every statement public:
  per speaker (n x :data:`TALK_SPEAKER_FEATURES`): latest claimed role
  one-hot (4), latest "don't attack me" request, messages said this turn /
  ``talk_limit``; per speaker x subject (n x n x :data:`TALK_PAIR_FEATURES`,
  rows = speaker, columns = subject): latest stance one-hot (accused of being
  Leader / Guardian / Assassin / Traitor, or defended), latest intent one-hot
  (threaten, protect), a truce stands between them (both directions), the
  speaker broke a truce with the subject; the last message: speaker one-hot
  (n), kind one-hot (9, ``talk.TALK_KINDS``), subject one-hot (n), role
  one-hot (4) -- the context of a truce offer being answered.  Recency: only
  a speaker's latest statement in each slot counts, and it is written as
  ``0.5 ** rounds`` where ``rounds = (turn - turn said) // n`` (1 this round,
  halving every round after), so old words fade but are not forgotten.

A Throne Magic game (``GameConfig(game="throne_magic")``) has its own layout,
:class:`ThroneObsLayout` (``obs_layout(n, "throne_magic")``): the blocks above,
where no player has identity features (nobody holds an identity card) and the
uncontrolled Throne is slot 0 of the reserved attackable row, then a block of
the Roles and the Throne (:func:`encode_throne_magic`, from the Python
reference encoder: the compiled one reads Treachery games only).  A creature
attacking the uncontrolled Throne has its attacking bit set and no attacked
player.

The CR 900 variants (Treachery or Throne Magic) append public blocks to their
game's layout (:func:`config_layout`, ``obs_layout(n, game, planechase=...,
vanguard=..., schemes=...)``), in this order:

* Planechase (``GameConfig(planechase=...)``, CR 901; offset ``planar``, its fields
  in ``planar_fields``, see :meth:`ObsLayout._add_planar`): the face-up card, the
  planar controller and the owner relative to the viewer, the die's rolls this
  turn, the mode and the planar controller's deck size;
* Vanguard (``GameConfig(vanguard=...)``, CR 902; offset ``vanguard``): each
  seat's Vanguard card, one-hot over :func:`treachery_env.vanguards.names` (12),
  in relative seat order (the viewer first), n x 12; fixed for the game (CR 902.3);
* the schemes (``GameConfig(archenemy=...)``, CR 904; offset ``schemes``): per
  relative seat, its face-up schemes (a count per scheme of
  :func:`treachery_env.schemes.names`) and its scheme deck's cards / 20, n x 13.

The game's own part comes from its encoder (the compiled one for Treachery), the
blocks from :func:`encode_variant`.  Without the variants the layouts are exactly
as before (the shipped checkpoints read them).
"""

from __future__ import annotations

from array import array
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .actions import (MAX_HAND, MAX_OTHER, MAX_PERMS, MAX_STACK, MAX_WALKERS, N_LOYALTY_ABILITIES,
                      TOKEN_ABILITIES)
from .cards import CARDS, COUNTER_TOKENS, KEYWORDS, WALKER_CARDS
from .compiled import compiled_pyx
from .identities import all_identities
from . import planes, schemes, throne_cards, throne_roles, vanguards

from .engine.state import ATTACKABLE_KINDS, PHASE_INDEX, DecisionKind, StackItem
from .engine.talk import TALK_KINDS, TalkMessage
from .identity_cards.traitors import may_look_at_pile

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game

__all__ = ["ObsLayout", "obs_layout", "encode", "encode_python", "encode_sparse", "encode_sparse_python", "encode_sparse_rows", "encode_sparse_rows_python", "action_mask", "action_mask_python", "legal_actions", "legal_actions_python",
           "observation_dict", "observation_dict_python", "ENCODER", "WALKER_FEATURES", "PLAYER_FEATURES", "PLAYER_ROLE",
           "PLAYER_IN_GAME", "PLAYER_LIFE", "PLAYER_HAND", "PLAYER_UNTAPPED_LANDS", "PLAYER_FACE_UP",
           "CREATURE_PRESENT", "CREATURE_POWER", "CREATURE_TOUGHNESS", "CREATURE_DAMAGE", "CREATURE_TAPPED",
           "CREATURE_ATTACKING", "CREATURE_ATTACKED",
           "CREATURE_FEATURES", "TALK_SPEAKER_FEATURES", "TALK_PAIR_FEATURES", "DECISION_PURPOSES",
           "TARGET_TYPES", "MAX_TARGET_INDEX", "ThroneObsLayout", "encode_throne_magic", "encode_variant",
           "observation_dict_variant", "config_layout", "THRONE_PURPOSES", "PLANAR_PURPOSES", "HOLDING_FEATURES", "VANGUARD_FEATURES",
           "SCHEME_FEATURES"]

N_CARDS = len(CARDS)
_IDENTITY_INDEX = {i.name: k for k, i in enumerate(all_identities())}
N_IDENTITIES = len(_IDENTITY_INDEX)
_KW_INDEX = {k: i for i, k in enumerate(KEYWORDS)}
N_PHASES = 13
N_DECISIONS = DecisionKind.COUNT
_CZ = {"command": 10, "battlefield": 11, "stack": 12}
_TOK = {name: 16 + j for j, name in enumerate(COUNTER_TOKENS)}
PLAYER_COUNTERS = ("gem", "nut", "rad")
# in game .. mana pool (16), tokens, face up + role (5), identity one-hot, counters .. shield (4),
# player counters, usable elsewhere (1), mulligans taken (1)
PLAYER_FEATURES = 16 + len(COUNTER_TOKENS) + 5 + N_IDENTITIES + 4 + len(PLAYER_COUNTERS) + 2
PLAYER_ROLE = 16 + len(COUNTER_TOKENS) + 1
"""Where the known role one-hot (4, :class:`treachery_env.rules.Role` order) starts in a player block."""
PLAYER_IN_GAME, PLAYER_LIFE, PLAYER_HAND, PLAYER_UNTAPPED_LANDS = 0, 1, 2, 8
"""Fields of a player block read by the agents' features: in game (0/1), life / 40, hand size / 10,
untapped lands / 10."""
PLAYER_FACE_UP = PLAYER_ROLE - 1
"""The player's identity is face up (0/1); the known role one-hot follows it."""
CREATURE_PRESENT, CREATURE_POWER, CREATURE_TOUGHNESS, CREATURE_DAMAGE, CREATURE_TAPPED = 0, 1, 2, 3, 4
"""Fields of a creature slot: occupied (0/1), power / 10, toughness / 10, marked damage / 10, tapped (0/1)."""
CREATURE_ATTACKING, CREATURE_ATTACKED = 6, 7
"""A creature slot's attacking flag (0/1), and where the attacked player's relative one-hot (n) starts."""
CREATURE_FEATURES = 14 + len(KEYWORDS) + MAX_WALKERS
_WALKER_INDEX = {c.index: k for k, c in enumerate(WALKER_CARDS)}
_KIND_INDEX = {k: i for i, k in enumerate(ATTACKABLE_KINDS)}
WALKER_FEATURES = 1 + len(ATTACKABLE_KINDS) + len(WALKER_CARDS) + 5
"""Features of one attackable-permanent slot (see the module docstring)."""
TALK_SPEAKER_FEATURES = 6     # claim one-hot (4), request, said this turn / limit
TALK_PAIR_FEATURES = 9        # stance one-hot (4 accused roles, defended), threaten, protect, truce, broke a truce
_STANCE = {"accuse": 0, "defend": 4}
_INTENT = {"threaten": 5, "protect": 6}
_TALK_KIND_INDEX = {k: i for i, k in enumerate(TALK_KINDS)}

# ---- the own decision context (see the module docstring)
_CARD_BY_NAME = {c.name: c for c in CARDS}
_ITEM_KINDS = {"spell": 0, "trigger": 1, "ability": 2}
_TOKEN_INDEX = {name: k for k, name in enumerate(TOKEN_ABILITIES)}
MAX_TARGET_INDEX = 8
"""Slots of the one-hot "which target of its item is being chosen" (the last: that one or a later one; an
unveil may target up to 99 creatures, or X, or every player)."""
TARGET_TYPES = ("any", "player", "leader_player", "creature", "nonland_permanent", "permanent", "spell",
                "noncreature_spell", "instant_sorcery_spell", "stack_object", "instant_sorcery_or_ability")
"""The ``spec["type"]`` of a target (``Game._iter_targets``), one-hot in the context of a target choice."""
DECISION_PURPOSES = (
    # the engine's decision handlers (``Decision.handler``); an unveil cost's card by its kind
    "_h_priority", "_h_attacker", "_h_defender", "_h_blocker", "_h_blocked", "_h_target", "_h_x", "_h_y",
    "_h_cost_sacrifice", "_h_cost_card:discard", "_h_cost_card:exile_from_hand", "_h_head_games", "_h_discard",
    "_h_order_trigger", "_h_legend_rule", "_h_mulligan", "_h_bottom", "_h_deal",
    # the callbacks of ``Game.ask`` (identities' questions), by name
    "_augur_cast", "_augur_place", "_bender_mode", "_bio_steal_target", "_cascade_cast", "_chaos_token",
    "_chaos_type", "_corpse_put", "_demon_pick", "_depths_pick", "_depths_tap_lands", "_depths_tapped",
    "_depths_type", "_empress_mode", "_ferry_pick", "_gather_card", "_gather_green_kind", "_gather_green_player",
    "_gather_mode", "_grenadier_mode", "_inquisitor_exile", "_king_make", "_lich_card", "_light_pick",
    "_lmyth_scry_set", "_maestra_player", "_majesty_give", "_majesty_yes", "_martyr_sac_pick", "_metamorph_answer",
    "_necro_pick", "_oneiro_cast", "_pm_pick", "_rebel_pick", "_regent_extra", "_regent_pay", "_regent_pick",
    "_retarget_set", "_savior_put", "_seer_place", "_sigil_cast", "_slayer_copy", "_supplier_keep_pick",
    "_supplier_recycle_pick", "_twin_target", "_villain_chosen", "_villain_pick", "_wearer_pick")
"""What a decision is for, one-hot in its context: the handler of an engine decision, the callback of an
identity's question (``Game.ask``); ``tests/test_observation_context.py`` checks that every one in the
package is here."""
_PURPOSE_INDEX = {k: i for i, k in enumerate(DECISION_PURPOSES)}
_TARGET_TYPE_INDEX = {k: i for i, k in enumerate(TARGET_TYPES)}
_UNVEIL_COSTS = ("_h_y", "_h_cost_sacrifice", "_h_cost_card")
_NO_DATA: dict = {}             # the identity data of a player without an identity card (Throne Magic)
PLANAR_PURPOSES = ("_h_planar_may",)
"""Planechase's decisions, one-hot in its block (:meth:`ObsLayout._add_planar`): a planar card's
"may" ability (Treachery's own purposes stay as the shipped checkpoints read them)."""
THRONE_PURPOSES = ("_h_draft_role", "_h_choose_throne", "_h_throne_take", "_h_holding_take", "_h_throne_may",
                   "_h_throne_accept")
"""Throne Magic's decisions, one-hot in its tail block: a Draft pick, The King's choice of Throne,
taking the Throne or a Holding after combat damage, a Throne's or Holding's "may" ability,
accepting a creature."""
_THRONE_PURPOSE_INDEX = {k: i for i, k in enumerate(THRONE_PURPOSES)}
HOLDING_FEATURES = 1 + len(throne_cards.holdings()) + 1
_THRONE_INDEX = {c.name: k for k, c in enumerate(throne_cards.thrones())}
_HOLDING_INDEX = {c.name: k for k, c in enumerate(throne_cards.holdings())}
"""A Holding slot of Throne Magic's block without its controller one-hot (n + 1 wide): present,
card one-hot (the 17 Holdings), creatures attacking it / 5."""


VANGUARD_FEATURES = len(vanguards.names())
"""Width of one seat's row of the Vanguard block: the one-hot over :func:`treachery_env.vanguards.names`."""
_VANGUARD_INDEX = {nm: k for k, nm in enumerate(vanguards.names())}
SCHEME_FEATURES = len(schemes.names()) + 1
"""Width of one seat's row of the schemes block: its face-up schemes, a count per scheme
(:func:`treachery_env.schemes.names`), then its scheme deck's cards / 20."""
_SCHEME_INDEX = {nm: k for k, nm in enumerate(schemes.names())}
_PLANE_INDEX = {nm: k for k, nm in enumerate(planes.names())}


class ObsLayout:
    """Offsets of the observation blocks for ``n`` players (see module docstring).

    Attributes:
        planar, vanguard, schemes: offsets of the CR 900 variants' blocks at the end (Planechase's,
            fields in ``planar_fields``; n x :data:`VANGUARD_FEATURES`; n x :data:`SCHEME_FEATURES`),
            None in a layout without them (:func:`obs_layout`'s flags add them).
        n, size, and the offsets ``glob``, ``players``, ``creatures`` (slots of
        ``creature_features``, their keyword bits from ``creature_keywords``),
        ``walkers`` ((n + 1) x MAX_WALKERS slots of ``WALKER_FEATURES``), ``hand``,
        ``stack``, ``dream``, ``context`` (to ``context_end``; its fields in
        ``ctx``, a ``_ContextOffsets``), ``talk`` (per speaker),
        ``talk_pairs`` (per speaker x subject), ``talk_last`` (the last
        message); ``stack_features`` per stack slot.
    """

    def __init__(self, n: int):
        self.n = n
        off = 0
        self.glob = off
        off += N_PHASES + N_DECISIONS + 2 + n + 2
        self.players = off
        off += n * PLAYER_FEATURES
        self.history = off
        off += 2 * n * n
        self.creatures = off
        self.creature_features = CREATURE_FEATURES - 1 + n   # attacked player one-hot of n
        self.creature_keywords = 7 + n + 6                    # where a creature slot's keyword bits start
        off += n * MAX_PERMS * self.creature_features
        self.walkers = off
        off += (n + 1) * MAX_WALKERS * WALKER_FEATURES
        self.hand = off
        off += MAX_HAND * N_CARDS
        self.stack = off
        self.stack_features = 1 + n + 2 + N_CARDS + 1 + n
        off += MAX_STACK * self.stack_features
        self.dream = off
        off += N_CARDS
        self.other = off
        off += MAX_OTHER * N_CARDS
        self.context = off
        c = _ContextOffsets(n, off)
        self.ctx = c
        off = c.end
        self.context_end = off
        self.talk = off
        off += n * TALK_SPEAKER_FEATURES
        self.talk_pairs = off
        off += n * n * TALK_PAIR_FEATURES
        self.talk_last = off
        off += 2 * n + len(TALK_KINDS) + 4
        self.size = off
        self.zeros = bytes(4 * off)   # float32 zeros, copied into a fresh array per observation
        self.chunks: dict = {}        # creature feature key -> encoded block (cache)
        self.planar = None
        self.vanguard = None
        self.schemes = None

    def _add_planar(self) -> None:
        """Append the Planechase block (CR 901; all public) at the end, at ``planar`` (fields,
        absolute offsets, in ``planar_fields``):

        * ``face_up``: the face-up plane or phenomenon, one-hot over :func:`treachery_env.planes.names`;
        * ``controller``: the planar controller, relative one-hot (n);
        * ``owner``: the face-up card's owner, relative one-hot (n), then "the planar controller"
          (1: the single planar deck, CR 901.16b);
        * ``rolls``: the planar-die special actions of this turn / 5 (the next roll costs that many, CR 901.9);
        * ``mode``: "single", "per_player" one-hot (:data:`treachery_env.planes.MODES`);
        * ``deck``: the cards left in the planar controller's planar deck / 20;
        * ``purpose``: the viewer's decision is one of :data:`PLANAR_PURPOSES` (a planar card's
          "may" ability), one-hot.
        """
        n = self.n
        off = self.size
        self.planar = off
        f = {}
        for name, width in (("face_up", len(planes.names())), ("controller", n), ("owner", n + 1), ("rolls", 1),
                            ("mode", len(planes.MODES)), ("deck", 1), ("purpose", len(PLANAR_PURPOSES))):
            f[name] = off
            off += width
        self.planar_fields = f
        self.size = off
        self.zeros = bytes(4 * off)

    def _add_vanguard(self) -> None:
        """Append the Vanguard block (CR 902; see the module docstring) at the end."""
        self.vanguard = self.size
        self.size += self.n * VANGUARD_FEATURES
        self.zeros = bytes(4 * self.size)

    def _add_schemes(self) -> None:
        """Append the schemes block (CR 904; see the module docstring) at the end."""
        self.schemes = self.size
        self.size += self.n * SCHEME_FEATURES
        self.zeros = bytes(4 * self.size)


class _ContextOffsets:
    """Offsets of the fields of the own decision context (absolute, from ``base``); see the module docstring."""

    def __init__(self, n: int, base: int):
        off = base
        self.item_kind = off          # spell, trigger, ability (3)
        off += 3
        self.stage = off              # being put on the stack, on the stack, resolving (3)
        off += 3
        self.flags = off              # identity source, copy (2)
        off += 2
        self.card = off
        off += N_CARDS
        self.identity = off
        off += N_IDENTITIES
        self.token = off
        off += len(TOKEN_ABILITIES)
        self.loyalty = off
        off += N_LOYALTY_ABILITIES
        self.x = off
        off += 1
        self.creature = off
        off += MAX_PERMS
        self.target_index = off
        off += MAX_TARGET_INDEX
        self.target_type = off
        off += len(TARGET_TYPES)
        self.optional = off
        off += 1
        self.chosen_players = off
        off += n
        self.chosen_creatures = off
        off += n * MAX_PERMS
        self.chosen_walkers = off
        off += n * MAX_WALKERS
        self.chosen_stack = off
        off += MAX_STACK
        self.amount = off
        off += 1
        self.purpose = off
        off += len(DECISION_PURPOSES)
        self.end = off
        self.size = off - base


class ThroneObsLayout(ObsLayout):
    """Throne Magic's observation layout: Treachery's blocks (its identity features stay
    zeros: no player holds an identity card) followed by the Throne Magic block at
    ``throne`` (its fields, absolute offsets, in ``throne_fields``):

    * ``roles``: the Roles in the game, multi-hot over :func:`treachery_env.throne_roles.names`
      (17; public, "Public and Private Information");
    * ``own_role``: the viewer's Role, one-hot (17);
    * ``known``: each seat's Role as the viewer knows it (relative seats, n x 17; zeros where
      unknown): revealed on leaving and at the end, looked at (Throne of Visions), the own;
    * ``graph``: the must-eliminate lists among the Roles in the game (17 x 17, row = Role,
      column = a Role it must eliminate; public and fixed for the game);
    * ``throne``: the Throne's card one-hot (:func:`treachery_env.throne_cards.thrones`, 7);
    * ``controller``: its controller, relative one-hot (n), then "uncontrolled" (1);
    * ``purpose``: the viewer's pending Throne Magic decision, one-hot over :data:`THRONE_PURPOSES`;
    * ``season``: the Season in effect, one-hot (Spring, Summer, Autumn, Winter; zeros without Seasons);
    * ``holdings``: 10 slots (Holding ``k`` of the game, the HOLDING action ``k``) of
      :data:`HOLDING_FEATURES` = present, card one-hot (17, :func:`treachery_env.throne_cards.holdings`),
      controller (relative one-hot n, then "uncontrolled"), creatures attacking it / 5 (so a slot is
      ``HOLDING_FEATURES + n + 1`` wide);
    * ``taking``: what the viewer's pending take decision is about, one-hot: the Throne, then Holding ``k``.
    """

    def __init__(self, n: int):
        super().__init__(n)
        nr = len(throne_roles.names())
        off = self.size
        self.throne = off
        f = {}
        for name, width in (("roles", nr), ("own_role", nr), ("known", n * nr), ("graph", nr * nr),
                            ("throne", len(throne_cards.thrones())), ("controller", n + 1),
                            ("purpose", len(THRONE_PURPOSES)), ("season", len(throne_cards.SEASON_ORDER)),
                            ("holdings", throne_cards.MAX_HOLDINGS * (HOLDING_FEATURES + n + 1)),
                            ("taking", 1 + throne_cards.MAX_HOLDINGS)):
            f[name] = off
            off += width
        self.throne_fields = f
        self.size = off
        self.zeros = bytes(4 * off)


@lru_cache(maxsize=None)
def obs_layout(n: int, game: str = "treachery", *, planechase: bool = False, vanguard: bool = False,
               schemes: bool = False) -> ObsLayout:
    """The (cached) :class:`ObsLayout` for ``n`` players of ``game`` ("treachery", or
    "throne_magic": a :class:`ThroneObsLayout`), then the CR 900 variants' blocks at its end, in
    this order: Planechase's when ``planechase`` (CR 901), the Vanguard cards' when ``vanguard``
    (CR 902), the schemes' when ``schemes`` (CR 904; see the module docstring).  A game's layout
    is :func:`config_layout` of its config.

    Raises:
        ValueError: for an unknown game.
    """
    if game == "treachery":
        L = ObsLayout(n)
    elif game == "throne_magic":
        L = ThroneObsLayout(n)
    else:
        raise ValueError(f"obs_layout: unknown game {game!r}; the games are 'treachery' and 'throne_magic'")
    if planechase:
        L._add_planar()
    if vanguard:
        L._add_vanguard()
    if schemes:
        L._add_schemes()
    return L


def config_layout(config: Any) -> ObsLayout:
    """The observation layout of a game of ``config`` (a :class:`~treachery_env.GameConfig`): its
    game's, with the blocks of the CR 900 variants it plays (:func:`obs_layout`).  The last config
    asked about is remembered with its layout (a config is frozen; :func:`encode_variant` asks at
    every step)."""
    global _LAST_LAYOUT
    last = _LAST_LAYOUT
    if last[0] is config:
        return last[1]
    L = obs_layout(config.num_players, config.game, planechase=config.planechase is not None,
                   vanguard=config.vanguard is not None, schemes=config.archenemy is not None)
    _LAST_LAYOUT = (config, L)          # one tuple, so a thread reading it sees a pair
    return L


_LAST_LAYOUT: tuple = (None, None)


@lru_cache(maxsize=None)
def _throne_graph(role_set: tuple) -> np.ndarray:
    """The must-eliminate bits among ``role_set`` (17 x 17, flat float32; see :class:`ThroneObsLayout`)."""
    names = throne_roles.names()
    nr = len(names)
    x = np.zeros(nr * nr, np.float32)
    for a in role_set:
        targets = throne_roles.get(a).must_eliminate
        for b in role_set:
            if b in targets:
                x[names.index(a) * nr + names.index(b)] = 1.0
    x.flags.writeable = False
    return x


def encode_throne_magic(game: "Game", viewer: int) -> np.ndarray:
    """Observation vector of ``viewer`` in a Throne Magic game: Treachery's blocks
    (:func:`encode_python`; the compiled encoder does not read Throne Magic games yet)
    then the Throne Magic block (:class:`ThroneObsLayout`).

    Returns:
        A fresh float32 array of shape ``(obs_layout(game.n, "throne_magic").size,)``.

    Raises:
        IndexError: for a seat outside the table.
    """
    n = game.n
    L = obs_layout(n, "throne_magic")
    out = np.zeros(L.size, np.float32)
    out[:L.throne] = encode_python(game, viewer)
    f = L.throne_fields
    social = game.social
    names = throne_roles.names()
    nr = len(names)
    index = {nm: i for i, nm in enumerate(names)}
    for r in social.role_set:
        out[f["roles"] + index[r]] = 1.0
    if social.roles:            # empty while the seats draft them (their picks are the set so far)
        out[f["own_role"] + index[social.roles[viewer]]] = 1.0
        for rel in range(n):
            s = (viewer + rel) % n
            if viewer in social.known_by[s]:
                out[f["known"] + rel * nr + index[social.roles[s]]] = 1.0
    out[f["graph"]:f["graph"] + nr * nr] = _throne_graph(social.role_set)
    w = social.throne
    if w is not None:
        out[f["throne"] + _THRONE_INDEX[w.name]] = 1.0
        out[f["controller"] + ((w.controller - viewer) % n if w.controller >= 0 else n)] = 1.0
    d = game.decision
    if d is not None and d.seat == viewer:
        ix = _THRONE_PURPOSE_INDEX.get(d.handler)
        if ix is not None:
            out[f["purpose"] + ix] = 1.0
    if social.season is not None:
        out[f["season"] + throne_cards.SEASON_ORDER.index(social.season)] = 1.0
    if social.holdings:
        hw = HOLDING_FEATURES + n + 1
        nh = len(_HOLDING_INDEX)
        attackers: dict = {}
        for a in game.combat_attackers:
            if a.attacking_obj is not None:
                attackers[a.attacking_obj.uid] = attackers.get(a.attacking_obj.uid, 0) + 1
        for k, h in enumerate(social.holdings):
            q = f["holdings"] + k * hw
            out[q] = 1.0
            out[q + 1 + _HOLDING_INDEX[h.name]] = 1.0
            out[q + 1 + nh + ((h.controller - viewer) % n if h.controller >= 0 else n)] = 1.0
            out[q + 1 + nh + n + 1] = attackers.get(h.uid, 0) / 5.0
    if d is not None and d.seat == viewer:
        if d.handler == "_h_throne_take":
            out[f["taking"]] = 1.0
        elif d.handler == "_h_holding_take":
            out[f["taking"] + 1 + social.holdings.index(d.ctx[0])] = 1.0
    return out


def encode_variant(game: "Game", viewer: int) -> np.ndarray:
    """Observation vector of ``viewer`` in a game with a layout of its own
    (:func:`config_layout`): Throne Magic's (:func:`encode_throne_magic`) or Treachery's
    (:func:`encode`, compiled where built), then the blocks of the CR 900 variants it plays
    (see the module docstring): Planechase's (CR 901; the face-up card, the planar controller and
    the owner relative to the viewer, the rolls, the mode, the planar controller's deck size),
    the Vanguard cards' (CR 902; each seat's one-hot, relative seats), the schemes' (CR 904; each
    seat's face-up schemes and deck size, relative seats).  All of them public.

    Returns:
        A fresh float32 array of shape ``(config_layout(game.config).size,)``.

    Raises:
        IndexError: for a seat outside the table.
    """
    n = game.n
    if not 0 <= viewer < n:
        raise IndexError(f"seat {viewer} is outside the table of {n}")
    base = encode_throne_magic(game, viewer) if game.social is not None else encode(game, viewer)
    if not game.config.has_variant_blocks:
        return base
    L = config_layout(game.config)
    out = _lengthened(base, L.size)
    pz = game.planar
    if pz is not None:
        f = L.planar_fields
        if pz.face_up is not None:
            out[f["face_up"] + _PLANE_INDEX[pz.face_up]] = 1.0
        out[f["controller"] + (pz.controller - viewer) % n] = 1.0
        out[f["owner"] + ((pz.owner - viewer) % n if pz.owner >= 0 else n)] = 1.0
        out[f["rolls"]] = pz.rolls / 5.0
        out[f["mode"] + planes.MODES.index(pz.mode)] = 1.0
        out[f["deck"]] = len(pz.deck_of(pz.controller)) / 20.0
        d = game.decision
        if d is not None and d.seat == viewer and d.handler in PLANAR_PURPOSES:
            out[f["purpose"] + PLANAR_PURPOSES.index(d.handler)] = 1.0
    players = game.players
    if L.vanguard is not None:
        for rel in range(n):
            v = players[(viewer + rel) % n].vanguard
            out[L.vanguard + rel * VANGUARD_FEATURES + _VANGUARD_INDEX[v.name]] = 1.0
    st = game.schemes
    if st is not None:
        for rel in range(n):
            s = (viewer + rel) % n
            row = L.schemes + rel * SCHEME_FEATURES
            for _, name in st.face_up[s]:
                out[row + _SCHEME_INDEX[name]] += 1.0
            out[row + SCHEME_FEATURES - 1] = len(st.decks[s]) / 20.0
    return out


def _lengthened(base: np.ndarray, size: int) -> np.ndarray:
    """``base``, an encoder's fresh float32 vector, lengthened to ``size`` with zeros (the variants'
    blocks go there).  In place where ``base`` owns its data (the compiled encoder's and
    :func:`encode_throne_magic`'s arrays: no second array and copy at every step; nothing else
    refers to a fresh vector, so no reference check), else copied into a new array (the Python
    encoder's wraps an ``array("f")``)."""
    if base.flags.owndata:
        base.resize(size, refcheck=False)
        return base
    out = np.zeros(size, np.float32)
    out[:base.size] = base
    return out


def observation_dict_variant(game: "Game", seat: int) -> dict[str, np.ndarray]:
    """What :meth:`Game.observation <treachery_env.engine.Game.observation>` gives in a
    Throne Magic game or one with a CR 900 variant: ``{"observation": encode_variant(...) float32,
    "action_mask": int8 (layout.size,)}``, the mask all zeros unless ``seat`` is deciding.

    Raises:
        IndexError: for a seat outside the table."""
    d = game.decision
    mask = (action_mask(d.options, game.layout.size) if d is not None and d.seat == seat
            else np.zeros(game.layout.size, np.int8))
    return {"observation": encode_variant(game, seat), "action_mask": mask}


def _creature_chunk(key: tuple, n: int, cf: int) -> array:
    """Encoded block of one creature slot from its feature key (see :func:`encode`)."""
    power, toughness, damage, tapped, sick, att_rel, blocking, blocked, p1p1, stun, token, cmdr, kws, att_w = key
    o = array("f", bytes(4 * cf))
    o[CREATURE_PRESENT] = 1.0
    o[CREATURE_POWER] = power / 10.0
    o[CREATURE_TOUGHNESS] = toughness / 10.0
    o[CREATURE_DAMAGE] = damage / 10.0
    o[CREATURE_TAPPED] = float(tapped)
    o[5] = float(sick)
    if att_rel >= 0:
        o[CREATURE_ATTACKING] = 1.0
        o[CREATURE_ATTACKED + att_rel] = 1.0
    elif att_rel == -2:         # attacking with no defending player (Throne Magic's Throne in the middle)
        o[CREATURE_ATTACKING] = 1.0
    q2 = 7 + n
    o[q2] = float(blocking)
    o[q2 + 1] = float(blocked)
    o[q2 + 2] = p1p1 / 5.0
    o[q2 + 3] = float(stun)
    o[q2 + 4] = float(token)
    o[q2 + 5] = float(cmdr)
    k = obs_layout(n).creature_keywords
    for kw in kws:
        o[k + _KW_INDEX[kw]] = 1.0
    if att_w >= 0:
        o[k + len(KEYWORDS) + att_w] = 1.0
    return o


def _walker_slot(game: "Game", w: Any) -> int:
    """Slot of attackable permanent ``w`` among its controller's (-1 if gone or beyond the slots);
    0 for an uncontrolled one (Throne Magic's Throne, slot 0 of the reserved row)."""
    if w.kind == "holding":     # Throne Magic's Holdings are in its own block
        return -1
    if w.controller < 0:
        return 0
    ws = game.players[w.controller].attackables
    if w not in ws:
        return -1
    k = ws.index(w)
    return k if k < MAX_WALKERS else -1


def _encode_walkers(game: "Game", ws: list, o: array, base: int) -> None:
    """Write the attackable-permanent slots ``ws`` of one row (a player's ``attackables``, or the
    uncontrolled ones; see the module docstring) at ``base``."""
    attackers: dict = {}
    for a in game.combat_attackers:
        if a.attacking_obj is not None:
            attackers[a.attacking_obj.uid] = attackers.get(a.attacking_obj.uid, 0) + 1
    targeted = {t[1].uid for it in game.stack for t in it.targets if t is not None and t[0] == "w"}
    nk = len(ATTACKABLE_KINDS)
    nw = len(WALKER_CARDS)
    for slot, w in enumerate(ws[:MAX_WALKERS]):
        q = base + slot * WALKER_FEATURES
        o[q] = 1.0
        o[q + 1 + _KIND_INDEX[w.kind]] = 1.0
        if w.card is not None and w.card.index in _WALKER_INDEX:
            o[q + 1 + nk + _WALKER_INDEX[w.card.index]] = 1.0
        q += 1 + nk + nw
        o[q] = w.loyalty / 10.0
        o[q + 1] = float(w.used_turn == game.turn)
        o[q + 2] = attackers.get(w.uid, 0) / 5.0
        o[q + 3] = float(w.uid in targeted)
        o[q + 4] = float(w.owner != w.controller)


def encode_python(game: "Game", viewer: int) -> np.ndarray:
    """Observation vector of ``viewer`` in pure Python: the reference that the
    compiled encoder (``treachery_env._observation``) matches bit for bit, and
    the fallback where it is not built.

    Returns:
        A fresh float32 array of shape ``(obs_layout(game.n).size,)``.

    Raises:
        IndexError: for a seat outside the table.
    """
    n = game.n
    if not 0 <= viewer < n:
        raise IndexError(f"viewer {viewer} is outside the table of {n}")
    L = obs_layout(n)
    # array('f') item assignment is several times cheaper than numpy's; the result
    # is wrapped without a copy at the end
    o = array("f", L.zeros)
    players = game.players
    me = players[viewer]
    d = game.decision
    mine = d is not None and d.seat == viewer
    # ---- global
    g = L.glob
    o[g + PHASE_INDEX[game.phase]] = 1.0
    g += N_PHASES
    if mine:
        o[g + d.kind] = 1.0
    g += N_DECISIONS
    o[g] = game.turn / game.config.max_turns
    o[g + 1] = len(game.stack) / 10.0
    g += 2
    o[g + (game.active - viewer) % n] = 1.0
    g += n
    if not me.has_lost and me.identity is not None:
        o[g] = float(game.undercover_met(viewer))
    o[g + 1] = float(me.land_played)
    chunks = L.chunks
    if len(chunks) > 100_000:
        chunks.clear()
    # ---- players (only nonzero features are written)
    shields = {s["seat"] for s in game.shields}
    attacked = game.leader_attacked_by
    pf = PLAYER_FEATURES
    cf = L.creature_features
    turn = game.turn
    for r in range(n):
        s = (viewer + r) % n
        p = players[s]
        b = L.players + r * pf
        idc = p.identity        # None in Throne Magic: its Roles are in the tail (encode_throne_magic)
        up = idc is not None and idc.face_up
        if not p.has_lost:
            o[b + PLAYER_IN_GAME] = 1.0
        o[b + PLAYER_LIFE] = p.life / 40.0
        o[b + PLAYER_HAND] = len(p.hand) / 10.0
        o[b + 3] = len(p.library) / 100.0
        if p.graveyard:
            o[b + 4] = len(p.graveyard) / 20.0
        if p.exile:
            o[b + 5] = len(p.exile) / 20.0
        data = idc.data if idc is not None else _NO_DATA
        if "dream" in data:
            o[b + 6] = len(data["dream"]) / 10.0
        o[b + 7] = p.lands / 10.0
        o[b + PLAYER_UNTAPPED_LANDS] = (p.lands - p.lands_tapped) / 10.0
        if p.creatures:
            o[b + 9] = len(p.creatures) / 10.0
        if p.commander is not None:
            cz = _CZ.get(p.commander_zone)
            if cz is not None:
                o[b + cz] = 1.0
            o[b + 13] = p.commander_casts / 5.0
        if p.cmd_damage:
            o[b + 14] = max(p.cmd_damage.values()) / 21.0
        if p.mana_pool:
            o[b + 15] = p.mana_pool / 10.0
        tok = p.tokens
        if any(tok.values()):
            for name, v in tok.items():
                if v:
                    o[b + _TOK[name]] = v / 5.0
        k = b + PLAYER_FACE_UP
        if idc is not None:
            card = idc.copy_of or idc.identity
            role = card.role if idc.role_override is None else idc.role_override
            if up or viewer in idc.known_by:
                if up:
                    o[k] = 1.0
                o[b + PLAYER_ROLE + role] = 1.0
                ix = _IDENTITY_INDEX.get(card.name)     # simple-roles cards have only a role
                if ix is not None:
                    o[k + 5 + ix] = 1.0
        k += 5 + N_IDENTITIES
        if idc is not None:
            if idc.counters:          # counters on identities are public, face up or not (debt)
                o[k] = sum(idc.counters.values()) / 10.0
            if up and role == 0 and not p.has_lost:
                o[k + 1] = 1.0
        if s in attacked:
            o[k + 2] = 1.0
        if s in shields:
            o[k + 3] = 1.0
        if p.counters:
            for j, name in enumerate(PLAYER_COUNTERS):
                v = p.counters.get(name)
                if v:
                    o[k + 4 + j] = v / 10.0
        if p.permissions:
            o[k + 4 + len(PLAYER_COUNTERS)] = len(p.permissions) / 4.0
        if p.mulligans:
            o[k + 5 + len(PLAYER_COUNTERS)] = p.mulligans / 3.0
        # creatures of this player
        cb = L.creatures + r * MAX_PERMS * cf
        for slot, c in enumerate(p.creatures[:MAX_PERMS]):
            kws = c.base_keywords
            if c.pump_kw:
                kws = kws | c.pump_kw
            key = (c.base_power + c.p1p1 + c.pump_p, c.base_toughness + c.p1p1 + c.pump_q, c.damage, c.tapped,
                   c.entered_turn >= turn and "haste" not in kws,
                   -1 if c.attacking < 0 else -2 if c.attacking == n else (c.attacking - viewer) % n,
                   c.blocking is not None,
                   bool(c.blocked_by), c.p1p1, c.stun, c.token, c.is_commander, kws,
                   -1 if c.attacking_obj is None else _walker_slot(game, c.attacking_obj))
            chunk = chunks.get(key)
            if chunk is None:
                chunk = chunks[key] = _creature_chunk(key, n, cf)
            q = cb + slot * cf
            o[q:q + cf] = chunk
        if p.attackables:
            _encode_walkers(game, p.attackables, o, L.walkers + r * MAX_WALKERS * WALKER_FEATURES)
        if s == viewer and up and "dream" in data and may_look_at_pile(idc, s):    # CR 314.4b, 607
            for _, card in data["dream"]:
                o[L.dream + card.index] += 0.25
    social = game.social
    if social is not None and social.throne is not None and social.throne.controller < 0:
        # the reserved row n: the uncontrolled Throne (Throne Magic)
        _encode_walkers(game, [social.throne], o, L.walkers + n * MAX_WALKERS * WALKER_FEATURES)
    # ---- public history: harm and attacks between seats (relative rows and columns)
    hb = L.history
    nn = n * n
    harm, attacks = game.harm, game.attacks
    for ri in range(n):
        i = (viewer + ri) % n
        hi, ai = harm[i], attacks[i]
        for rj in range(n):
            j = (viewer + rj) % n
            if hi[j]:
                o[hb + ri * n + rj] = hi[j] / 40.0
            if ai[j]:
                o[hb + nn + ri * n + rj] = ai[j] / 10.0
    # ---- own cards usable from other zones (the OTHER actions)
    for i, perm in enumerate(me.permissions[:MAX_OTHER]):
        o[L.other + i * N_CARDS + perm["card"].index] = 1.0
    # ---- own hand
    h = L.hand
    for i, c in enumerate(me.hand[:MAX_HAND]):
        o[h + i * N_CARDS + c.index] = 1.0
    # ---- stack, top first
    sf = L.stack_features
    for depth, it in enumerate(reversed(game.stack[-MAX_STACK:])):
        q = L.stack + depth * sf
        o[q] = 1.0
        o[q + 1 + (it.controller - viewer) % n] = 1.0
        q2 = q + 1 + n
        o[q2] = float(it.kind == "spell")
        o[q2 + 1] = float(it.identity_source)
        if it.card is not None:
            o[q2 + 2 + it.card.index] = 1.0
        o[q2 + 2 + N_CARDS] = it.x / 10.0
        for t in it.targets:
            if t is not None and t[0] == "p":
                o[q2 + 3 + N_CARDS + (t[1] - viewer) % n] = 1.0
    # ---- own decision context
    if mine:
        _encode_context(game, viewer, d, o, L)
    # ---- table talk (public)
    if game.talk_on and game.talk.messages:
        _encode_talk(game, viewer, o, L)
    return np.frombuffer(o, dtype=np.float32)


def _context_item(game: "Game", d: Any) -> Any:
    """The stack object decision ``d`` is about: the one being cast, activated or
    triggered (its X or a target being chosen), or the one an identity's question
    names; otherwise the one resolving, if any (None)."""
    data = d.ctx[1] if d.handler == "_h_call" else d.ctx
    if isinstance(data, StackItem):
        return data
    if isinstance(data, tuple) and data and isinstance(data[0], StackItem):
        return data[0]
    return game.resolving


def _encode_context(game: "Game", viewer: int, d: Any, o: array, L: ObsLayout) -> None:
    """Write the own decision context of ``viewer`` (deciding ``d``; see the module docstring) into ``o``."""
    n = game.n
    c = L.ctx
    me = game.players[viewer]
    handler = d.handler
    ctx = d.ctx
    if handler == "_h_call":
        purpose = ctx[0]
    elif handler == "_h_cost_card":
        purpose = "_h_cost_card:" + ctx[1]
    else:
        purpose = handler
    ix = _PURPOSE_INDEX.get(purpose)
    if ix is not None:
        o[c.purpose + ix] = 1.0
    item = _context_item(game, d)
    card = None
    cre = d.declared_creature(viewer)
    if cre is not None:
        card = cre.card
    if item is not None:
        k = _ITEM_KINDS.get(item.kind)
        if k is not None:
            o[c.item_kind + k] = 1.0
        if any(x is item for x in game.stack):
            o[c.stage + 1] = 1.0
        elif item is game.resolving:
            o[c.stage + 2] = 1.0
        else:
            o[c.stage] = 1.0
        if item.identity_source:
            o[c.flags] = 1.0
            ix = _IDENTITY_INDEX.get(item.source)
            if ix is not None:
                o[c.identity + ix] = 1.0
        else:
            if item.kind == "ability":
                ix = _TOKEN_INDEX.get(item.key)
                if ix is not None:
                    o[c.token + ix] = 1.0
            card = item.card
            if card is None and item.creature is not None:
                card = item.creature.card
            if card is None:
                card = _CARD_BY_NAME.get(item.source)
        if item.is_copy:
            o[c.flags + 1] = 1.0
        if item.key == "loyalty":
            k = item.data.get("ability", -1)
            if 0 <= k < N_LOYALTY_ABILITIES:
                o[c.loyalty + k] = 1.0
        if item.x:
            o[c.x] = item.x / 10.0
        if cre is None and item.creature is not None:
            cre = item.creature
        players = game.players
        for t in item.targets:
            if t is None:
                continue
            kind, obj = t
            if kind == "p":
                o[c.chosen_players + (obj - viewer) % n] = 1.0
            elif kind == "c":
                cs = players[obj.controller].creatures
                for slot, x in enumerate(cs[:MAX_PERMS]):
                    if x is obj:
                        o[c.chosen_creatures + ((obj.controller - viewer) % n) * MAX_PERMS + slot] = 1.0
                        break
            elif kind == "w":
                slot = _walker_slot(game, obj)
                if slot >= 0:
                    o[c.chosen_walkers + ((obj.controller - viewer) % n) * MAX_WALKERS + slot] = 1.0
            else:
                st = game.stack
                for depth in range(min(len(st), MAX_STACK)):
                    if st[len(st) - 1 - depth] is obj:
                        o[c.chosen_stack + depth] = 1.0
                        break
        spec = None
        if handler == "_h_target":
            spec = ctx[1]
            k = len(item.targets)
        elif purpose == "_retarget_set":
            k = ctx[1][1]
            spec = item.target_specs[k]
        if spec is not None:
            o[c.target_index + min(k, MAX_TARGET_INDEX - 1)] = 1.0
            ix = _TARGET_TYPE_INDEX.get(spec["type"])
            if ix is not None:
                o[c.target_type + ix] = 1.0
            if spec.get("min", 1) == 0 or (spec.get("_more", False) and not spec.get("exact")):
                o[c.optional] = 1.0
    elif handler in _UNVEIL_COSTS:       # paying the own unveil cost: the own identity is the source
        ix = _IDENTITY_INDEX.get(me.identity.name)
        if ix is not None:
            o[c.identity + ix] = 1.0
    if card is not None:
        o[c.card + card.index] = 1.0
    if cre is not None:
        for slot, x in enumerate(me.creatures[:MAX_PERMS]):
            if x is cre:
                o[c.creature + slot] = 1.0
                break
    if handler == "_h_discard":
        amount = ctx[1]
    elif handler == "_h_head_games":
        amount = ctx[2]
    elif handler == "_h_order_trigger":
        amount = len(ctx[1])
    else:
        amount = 0
    if amount:
        o[c.amount] = amount / 10.0


def _encode_talk(game: "Game", viewer: int, o: array, L: ObsLayout) -> None:
    """Write the talk block of ``viewer`` (see the module docstring) into ``o``."""
    n = game.n
    t = game.talk
    turn = game.turn

    def fade(m: TalkMessage) -> float:
        return 0.5 ** ((turn - m.turn) // n)

    sf, pf = TALK_SPEAKER_FEATURES, TALK_PAIR_FEATURES
    for s, m in t.claims.items():
        o[L.talk + ((s - viewer) % n) * sf + int(m.role)] = fade(m)
    for s, m in t.requests.items():
        o[L.talk + ((s - viewer) % n) * sf + 4] = fade(m)
    limit = game.config.talk_limit
    for m in reversed(t.messages):
        if m.turn != turn:
            break
        if m.kind != "accept" and m.kind != "reject":
            o[L.talk + ((m.speaker - viewer) % n) * sf + 5] += 1.0 / limit
    pb = L.talk_pairs
    for (i, j), m in t.stances.items():
        k = _STANCE[m.kind] + (int(m.role) if m.kind == "accuse" else 0)
        o[pb + (((i - viewer) % n) * n + (j - viewer) % n) * pf + k] = fade(m)
    for (i, j), m in t.intents.items():
        o[pb + (((i - viewer) % n) * n + (j - viewer) % n) * pf + _INTENT[m.kind]] = fade(m)
    players = game.players
    for d in t.deals:
        if players[d.dealer].has_lost or players[d.partner].has_lost:
            continue
        a, b = (d.dealer - viewer) % n, (d.partner - viewer) % n
        o[pb + (a * n + b) * pf + 7] = 1.0
        o[pb + (b * n + a) * pf + 7] = 1.0
    for (i, j), when in t.broken.items():
        o[pb + (((i - viewer) % n) * n + (j - viewer) % n) * pf + 8] = 0.5 ** ((turn - when) // n)
    m = t.messages[-1]
    q = L.talk_last
    o[q + (m.speaker - viewer) % n] = 1.0
    q += n
    o[q + _TALK_KIND_INDEX[m.kind]] = 1.0
    q += len(TALK_KINDS)
    if m.subject is not None:
        o[q + (m.subject - viewer) % n] = 1.0
    q += n
    if m.role is not None:
        o[q + int(m.role)] = 1.0


def action_mask_python(options: list, size: int) -> np.ndarray:
    """The legal-action mask of a decision's ``options`` (``(action, payload)``
    pairs) in an action space of ``size``: a fresh int8 array of shape
    ``(size,)``, 1 at every option's action (the reference of the compiled
    ``treachery_env._observation.action_mask``)."""
    buf = bytearray(size)
    for a, _ in options:      # a few dozen bytes: cheaper than a numpy index array
        buf[a] = 1
    return np.frombuffer(buf, dtype=np.int8)


def legal_actions_python(options: list) -> list[int]:
    """The actions of a decision's ``options`` (``(action, payload)`` pairs), ascending: a new
    list (the reference of the compiled ``treachery_env._observation.legal_actions``)."""
    out = [a for a, _ in options]
    out.sort()
    return out


def observation_dict_python(game: "Game", seat: int) -> dict[str, np.ndarray]:
    """``{"observation": encode_python(game, seat), "action_mask": int8 (layout.size,)}``: the
    mask of the decision's options when ``seat`` is deciding, else all zeros (what
    :meth:`Game.observation <treachery_env.engine.Game.observation>` gives; the reference of the
    compiled ``treachery_env._observation.observation_dict``)."""
    d = game.decision
    size = game.layout.size
    mask = action_mask_python(d.options, size) if d is not None and d.seat == seat else np.zeros(size, np.int8)
    return {"observation": encode_python(game, seat), "action_mask": mask}


def encode_sparse_python(game: "Game", viewer: int) -> tuple[np.ndarray, np.ndarray]:
    """The nonzero features of :func:`encode_python`'s vector: ``(cols, vals)``,
    int32 ``(k,)`` ascending indices and float32 ``(k,)`` values (the reference
    of the compiled ``treachery_env._observation.encode_sparse``)."""
    x = encode_python(game, viewer)
    cols = np.flatnonzero(x).astype(np.int32)
    return cols, x[cols]


def encode_sparse_rows_python(games: list, viewers: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`encode_sparse_python` of each ``(games[b], viewers[b])`` gathered into
    ``(nnz, cols, vals)``: int64 ``(B,)`` nonzeros a row, int32 ``(M,)`` and float32
    ``(M,)`` row after row (the reference of the compiled
    ``treachery_env._observation.encode_sparse_rows``).

    Raises:
        ValueError: when the lists differ in length; IndexError as :func:`encode_python`."""
    if len(games) != len(viewers):
        raise ValueError(f"{len(games)} games and {len(viewers)} viewers")
    rows = [encode_sparse_python(g, v) for g, v in zip(games, viewers)]
    nnz = np.array([len(c) for c, _ in rows], np.int64)
    if not rows:
        return nnz, np.zeros(0, np.int32), np.zeros(0, np.float32)
    return nnz, np.concatenate([c for c, _ in rows]), np.concatenate([v for _, v in rows])


def _select_encoder() -> tuple[Any, Any, Any, Any, Any, Any, str]:
    """The encoders :func:`encode`, :func:`encode_sparse` and :func:`encode_sparse_rows`, the mask builder
    :func:`action_mask`, :func:`legal_actions` and :func:`observation_dict`, and their
    name for :data:`ENCODER`: the compiled ones
    unless ``TREACHERY_PURE_PYTHON=1``, they are not built, or they are older than
    ``_observation.pyx`` (then with a warning)."""
    mod = compiled_pyx("_observation", "the compiled encoder")
    if mod is None:
        return (encode_python, encode_sparse_python, encode_sparse_rows_python, action_mask_python,
                legal_actions_python, observation_dict_python, "python")
    return (mod.encode, mod.encode_sparse, mod.encode_sparse_rows, mod.action_mask, mod.legal_actions,
            mod.observation_dict, "compiled")


encode, encode_sparse, encode_sparse_rows, action_mask, legal_actions, observation_dict, ENCODER = _select_encoder()
"""``encode(game, viewer) -> float32 (obs_layout(game.n).size,)``: the observation
vector of ``viewer`` (a fresh array each call).  :data:`ENCODER` says which
implementation it is: ``"compiled"`` (``treachery_env._observation``, Cython) or
``"python"`` (:func:`encode_python`); both give the same bytes.
``action_mask(options, size) -> int8 (size,)``: a decision's legal-action mask,
from the same module (:func:`action_mask_python` in pure Python); ``legal_actions(options)
-> list[int]``: its actions, ascending (:func:`legal_actions_python`);
``observation_dict(game, seat) -> {"observation", "action_mask"}``: what
:meth:`Game.observation <treachery_env.engine.Game.observation>` gives
(:func:`observation_dict_python`).
``encode_sparse(game, viewer) -> (int32 (k,), float32 (k,))``: the same vector by
its nonzero features, ascending, without making the dense array (what a network
that reads :class:`agents.networks.SparseObs` needs; :func:`encode_sparse_python`
in pure Python).
``encode_sparse_rows(games, viewers) -> (int64 (B,), int32 (M,), float32 (M,))``: those
of ``B`` observations gathered row after row, with each row's count
(:func:`encode_sparse_rows_python`)."""
