"""A role-aware rule-based bot (``agents.make("heuristic", seed)``), issue 4.

The bot reads only ``info["view"]`` (the acting seat's information set, a
:class:`treachery_env.view.SeatView`) and answers every decision with a
few fixed rules; it never looks at the game object, ``state()`` or other
seats' hidden data.  It is deterministic: ties are broken by action order, so
the seed only names the bot (``self.rng`` is unused by the rules).  Without
``info["view"]`` (an environment made with ``view_in_info=False``) it refuses to
act, as the belief, lookahead and ISMCTS bots do, rather than play on as a
weaker bot unnoticed.  In the simple-roles variant (role cards without
abilities) it never unveils.  A decision costs well under a millisecond
(its view and ``act``: mean and p95 µs from ``python -m agents.benchmark``).

Whom to hurt and whom to help
-----------------------------
Every decision starts from one number per other seat, ``want[s]``: positive
means "I want ``s`` to lose life, creatures and cards", negative means "I want
``s`` alive and strong" (allies; the bot itself is strongly negative).  It is
computed from the seat's role (always known to itself), the roles it knows
(face-up or shown identities, and those revealed on leaving), the public role
distribution (how many Assassins are still in) and the public history
``view.harm`` / ``view.attacks`` (who hurt and attacked whom).

* **Leader** -- defends and punishes attackers: known Assassins and Traitors
  are enemies, known Guardians allies; an unknown seat is a mild enemy, more
  so the more it hurt or attacked the Leader (it attacks and burns those
  first).  The Leader keeps blockers back when a board that could attack it
  threatens lethal damage, blocks more readily (trades too) and heals itself
  first.
* **Guardian** -- protects the Leader: never attacks or burns the Leader;
  targets known Assassins/Traitors and the unknown seats that hurt the Leader
  most; helps (heals, pumps) the Leader before itself; unveils when
  Undercover allows and the effect saves the Leader (protection identities
  when the Leader is under lethal attack or low on life) or simply helps
  (value identities, sweepers when the enemy board is bigger).
* **Assassin** -- pressures the Leader while keeping cover: the Leader is the
  main target of attacks and burn (always when the Leader is low, finishing
  it off); Assassins it knows are allies; it does not unveil a value identity
  before the third round unless the Leader is low, its own life is low, or
  its cover is already gone (it attacked or hurt the Leader).
* **Traitor** -- keeps the sides balanced and outlasts the Assassins: while
  Assassins remain it does not attack or burn the Leader once the Leader is
  low (the Leader falling then ends the game for the Assassins) and attacks
  whoever is strongest (life + board) among the others, known Assassins first;
  once no Assassin is left, every seat is an enemy, the Leader included.
  Traitor identities unveil late (few players left) or when about to die.

Magic substrate play
--------------------
* Priority: respond to an enemy spell with a counter (card or identity);
  otherwise, with sorcery timing: unveil when the identity's timing says so,
  play a land, then cast the most expensive useful spell (curve out) --
  creatures always, removal only with an enemy creature worth it, burn on the
  creature or player it serves best, lifegain when an ally is low, sweepers
  when the enemy board outweighs the own one; then cheap token abilities;
  else pass.
* Attacks: planned once per combat.  A creature attacks the best legal target
  (highest ``want``, with a bonus when the total attack is lethal) when it
  survives every possible blocker of that player, or that player cannot block
  well; the Leader (and any player at 10 life or less) keeps back enough
  creatures to block when the largest board that could attack it next turn
  threatens lethal damage.
* Blocks: planned once per combat: first blocks that kill the attacker and
  survive, then trades the seat wants, then safe walls, then chump blocks
  while the unblocked damage is lethal.
* Targets: harmful effects go to the target with the highest
  ``want x value`` (a creature's value, or the damage to a player with a
  bonus when lethal), helpful effects (pumps, lifegain, tokens, draws) to the
  allied target with the highest value; counters go to the costliest enemy
  spell.
* Mulligans (CR 103.5 London mulligan, 103.5c free first mulligan): keep a
  hand with between 2 and 5 lands in 7 (scaled to other hand sizes), else
  take a mulligan, at most twice; after mulligans, put on the bottom excess
  lands (more than 3 in 7 of the hand that stays) first, else the most
  expensive spell.  The bot never concedes.
* Other choices (modes, cards, numbers, scry, yes/no): option text rules
  (largest X, keep a useful top card, discard the least useful card,
  search for the most expensive castable card), else the first option.

Throne Magic (``view.throne_magic``; ``want`` from the Role graph, :mod:`agents.throne`):
the Throne and the Holdings worth attacking (:func:`agents.throne.locations_to_attack`: the
Throne for a Claimant in the middle or an enemy's hands, for anyone else only an enemy's, a
Holding in the middle or an enemy's) get one attacker each, the weakest that survives every
blocker of their controller (none in the middle): the Throne and the Holdings in the middle
before the attacks on players, unless some player can be killed this combat; one enemy's
Holding a combat instead gets the weakest creature sent at its controller; creatures attacking the bot's Throne or Holdings are also
blocked by trades; the yes/no answers and the creature gifts are
:func:`agents.throne.throne_answer` and :func:`agents.throne.gift` (the distribution's target
is the receiver chosen with it).

Unveil timing by identity (``_UNVEIL_CLASS``): counter identities when an
enemy spell is on the stack; spell-stealers when an enemy instant or sorcery
is; Leader-protecting Guardians when the Leader is in danger; sweepers when
the board favours enemies; value identities on the own main phase (Assassins
after keeping cover for a while, Traitors late); the rest never.

Table talk (TR10.5; :meth:`HeuristicAgent.talk_action`)
--------------------------------------------------------
When a priority decision offers talk, the bot says the first statement of its
role's list that is not already standing (its latest word in that slot, said
within the last three rounds), so it speaks when its opinion changes and
stays quiet otherwise.  The *prime suspect* is the face-down seat that harmed
and attacked the Leader most (at least 4 points of harm, an attack counting
2); for the Leader, the one that harmed it most.

* **Leader** -- accuses its prime suspect of being an Assassin; vouches for
  known Guardians; asks not to be attacked at 15 life or less.  It accepts a
  truce from a known Guardian or from a face-down seat that has hurt it less
  than 4 and never broke a truce with it; it rejects the others.
* **Guardian** -- claims Guardian (true); promises to protect the Leader;
  accuses and threatens its prime suspect (as an Assassin); offers the Leader
  a truce.
* **Assassin** -- while its cover holds (it never hurt or attacked the
  Leader) claims Guardian (a lie) and, while the Leader is above 12 life,
  offers the Leader a truce (which it will not keep); accuses the face-down
  seat that hurt it most of being a Traitor; asks not to be attacked at 10
  life or less.  Once its cover is blown it claims nothing.
* **Traitor** -- claims Guardian (a lie); while Assassins remain it accuses
  the prime suspect of being an Assassin and offers the Leader a truce; asks
  not to be attacked at 10 life or less.

Other seats accept a truce unless they want the offerer hurt hard (``want >=
1``) or it broke a truce with them before.  A standing truce halves the
bot's ``want`` against its partner (kept, though nothing binds it), except an
Assassin's against the Leader; a seat that broke a truce with the bot gets
``want + 0.5``.
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from operator import attrgetter, eq, is_, ne

import numpy as np

from treachery_env.cards import CARD_INDEX
from treachery_env.rules import Role

from . import register
from .base import BaseAgent, legal_actions, seat_view
from .throne import gift, locations_to_attack, throne_answer, throne_want

__all__ = ["HeuristicAgent", "blockers_for", "survives_blocks"]

LEADER, GUARDIAN, ASSASSIN, TRAITOR = Role.LEADER, Role.GUARDIAN, Role.ASSASSIN, Role.TRAITOR
_kind = attrgetter("kind")
_talk_key = attrgetter("talk", "player", "role")
# what HeuristicAgent._compute_want reads of each player: a Traitor also weighs life and board
_want_reads = attrgetter("seat", "in_game", "leader_player", "role")
_traitor_want_reads = attrgetter("seat", "in_game", "leader_player", "role", "life", "creatures")
_life = attrgetter("life")

# --------------------------------------------------------------------------- card knowledge
_HARM_OPS = {"damage", "destroy", "exile", "bounce", "tap", "stun", "lose", "discard", "counter", "head_games"}
_HELP_OPS = {"pump", "gain", "counters", "draw"}

# identity (or other non-card) sources whose targets are helped rather than harmed
_HELP_SOURCES = {
    "The Augur", "The Bodyguard", "The Immortal", "The Marshal", "The Summoner", "The Supplier", "The Demon",
    "The Beastmaster", "The Corpse Snatcher", "He Who Comes To Save The Day", "The Ætherist", "Map",
    "The Bio-Engineer", "The Oracle", "The Great Martyr",
}
# sources that copy: the best creature anywhere
_COPY_SOURCES = {"The Mirror Maestra", "The Shapeshifting Slayer"}

# unveil timing classes (see the module docstring)
_UNVEIL_CLASS = {
    # counter a spell on the stack
    "The Ætherist": "counter", "The Spellsnatcher": "counter", "The Ambitious Queen": "counter_nc",
    # take over / copy an instant or sorcery on the stack
    "The Reflector": "steal", "The Sorceress": "steal",
    # protect the Leader
    "The Bodyguard": "protect", "The Oracle": "protect", "The Great Martyr": "protect", "The Immortal": "protect",
    "The Warlock": "protect_combat", "The Cryomancer": "protect_combat", "The Golem": "golem",
    # sweepers and removal
    "The Quellmaster": "sweep", "The Cathar": "sweep", "The Flickering Mage": "sweep", "The Banisher": "sweep",
    "The Cleaner": "sweep", "The War Shaman": "sweep", "The Madwoman": "sweep", "The Pyromancer": "sweep",
    "The Villain": "pressure",
    # value
    "The Augur": "value", "The Summoner": "value", "The Supplier": "value", "The Mirror Maestra": "value",
    "The Inquisitor": "value", "The Marshal": "value", "The Beastmaster": "value", "The Bio-Engineer": "value",
    "The Chaos Wielder": "value", "The Corpse Snatcher": "value", "The Demon": "value", "The Depths Caller": "value",
    "The Necromancer": "value", "The Physician": "pressure", "The Rebel General": "value", "The Seer": "value",
    "The Shapeshifting Slayer": "value", "The Sigil Mage": "value", "The Gatekeeper": "value",
    "The Grenadier": "value", "The Oneiromancer": "value", "The Wearer of Masks": "value",
    "The Time Bender": "late", "The Puppet Master": "late", "The Ferryman": "late",
    "He Who Comes To Save The Day": "save_self", "The Treacherous Masochist": "now",
}
# identity abilities worth activating when affordable (matched in the option text)
_GOOD_ABILITIES = ("The Queen of Light", "The Grenadier", "The Bio-Engineer", "The Void Tyrant")

_FOR_RE = re.compile(r" for (.+?)(?: on the stack)?(?:\? \(PASS keeps it\))?$")
_SEAT_RE = re.compile(r"\(P(\d+)")


def _without_talk(options):
    """``options`` less the table-talk ones (which only :meth:`HeuristicAgent._talk_now` reads), in order."""
    if "talk" not in map(_kind, options):
        return options
    return list(compress(options, map(ne, map(_kind, options), repeat("talk"))))


def _same_objects(a: tuple, b: tuple | None) -> bool:
    """Whether ``a`` and ``b`` hold the same objects (by identity), in order."""
    return b is not None and len(a) == len(b) and all(map(is_, a, b))


def _talk_option(options, key: tuple):
    """The last of ``options`` whose message ``(kind, subject, role)`` is ``key``, or None (other
    options have no message kind and match nothing; a Role and its int value are equal)."""
    return next(compress(reversed(options), map(eq, map(_talk_key, reversed(options)), repeat(key))), None)


def _legal(observation: dict, conceding) -> list:
    """The legal actions less ``conceding`` (all of them if that leaves none).

    Raises:
        ValueError: if the mask allows no action.
    """
    legal = legal_actions(observation).tolist()
    return [a for a in legal if a not in conceding] or legal if conceding else legal


def _allows(observation: dict, a: int) -> bool:
    """Whether the observation's mask, a 1-D array, allows action ``a`` (False for another mask: ask
    :func:`_legal`); cheaper than listing the legal actions."""
    mask = observation["action_mask"]
    return type(mask) is np.ndarray and mask.ndim == 1 and 0 <= a < mask.shape[0] and mask[a] != 0


def _card(name):
    return CARD_INDEX.get(name) if name else None


def _intent(source: str | None) -> str:
    """``"harm"``, ``"help"`` or ``"copy"`` for the targets of ``source``."""
    if source in _COPY_SOURCES:
        return "copy"
    if source in _HELP_SOURCES:
        return "help"
    c = _card(source)
    if c is not None:
        ops = {e.get("op") for e in _effects_of(c) if e.get("t", None) == 0}
        if ops & _HELP_OPS and not ops & _HARM_OPS:
            return "help"
    return "harm"


def _effects_of(c) -> tuple:
    """A card's effects; for a planeswalker, those of all its loyalty abilities
    (a target prompt names the planeswalker, not the ability)."""
    if c.is_planeswalker:
        return tuple(e for ab in c.abilities for e in ab["effects"])
    return c.effects


def _damage_of(source: str | None, x: int = 0) -> int:
    """Damage a card deals to its target (0 for non-damage cards); X spells use ``x``."""
    c = _card(source)
    if c is None:
        return 0
    for e in _effects_of(c):
        if e.get("op") == "damage" and e.get("t") == 0:
            n = e.get("n", 0)
            return x if n == "X" else int(n)
    return 0


def _cvalue(c) -> float:
    """Rough worth of a creature (a :class:`CreatureView`)."""
    v = c.power * 1.5 + c.toughness * 0.5 + 0.5
    kw = c.keywords
    for k, w in (("flying", 1.0), ("deathtouch", 1.5), ("double_strike", c.power), ("lifelink", 0.5),
                 ("first_strike", 0.5), ("trample", 0.5), ("menace", 0.5)):
        if k in kw:
            v += w
    if "defender" in kw:
        v -= c.power
    return v


def _hits(c) -> int:
    """Combat damage a creature deals if unblocked."""
    return c.power * (2 if "double_strike" in c.keywords else 1)


def _can_block(b, a) -> bool:
    return "flying" not in a.keywords or "flying" in b.keywords or "reach" in b.keywords


def _kills(a, b) -> bool:
    """Whether ``a`` deals lethal damage to ``b`` in a fight."""
    if a.power <= 0:
        return False
    return "deathtouch" in a.keywords or _hits(a) >= b.toughness - b.damage


def _first(a, b) -> bool:
    fs = ("first_strike" in a.keywords or "double_strike" in a.keywords)
    bfs = ("first_strike" in b.keywords or "double_strike" in b.keywords)
    return fs and not bfs


def _survives(x, y) -> bool:
    """Whether ``x`` survives fighting ``y``."""
    if _first(x, y) and _kills(x, y):
        return True
    return not _kills(y, x)


def blockers_for(p, c) -> list:
    """The creatures of the player ``p`` (a :class:`~treachery_env.view.PlayerView`) that may
    block the attacker ``c`` now: the untapped ones (CR 509.1a), only those with flying or reach
    against a flier (CR 702.9b, 702.17b); none when ``c`` has menace and they are fewer than two
    (CR 702.110b)."""
    blockers = [b for b in p.creatures if not b.tapped and _can_block(b, c)]
    return [] if "menace" in c.keywords and len(blockers) < 2 else blockers


def survives_blocks(players, c, seat: int) -> bool:
    """Whether the attacker ``c`` survives whichever creature of ``seat`` blocks it, one on one
    (:func:`blockers_for`): how the heuristic and belief bots choose a creature to attack a Throne
    Magic Throne or Holding with (its controller blocks for it, "Attacking the Throne",
    "Holdings (Advanced)"), where a blocked attacker takes nothing and one that dies is lost
    for nothing.  True for ``seat < 0`` (in the middle nobody blocks).

    Args:
        players: the view's :class:`~treachery_env.view.PlayerView` s, by seat.
        c: the attacker (a :class:`~treachery_env.view.CreatureView`).
        seat: the controller of what ``c`` attacks, -1 for none.
    """
    return seat < 0 or all(_survives(c, b) for b in blockers_for(players[seat], c))


class HeuristicAgent(BaseAgent):
    """Role-aware rule-based bot (see the module docstring for the strategy).

    Args:
        seed: seed of ``self.rng`` (kept for the protocol; the rules are deterministic).
    """

    name = "heuristic"
    uses_observation_vector = False

    def __init__(self, seed: int | None = None):
        super().__init__(seed)
        self._plan_key = None
        self._attack_plan: dict = {}
        self._block_key = None
        self._block_plan: dict = {}
        self._gift_to = None
        self.forget_kept()

    def reset(self, seat: int) -> None:
        """Forget the combat plans of the previous game and what was kept from its views."""
        super().reset(seat)
        self._plan_key = None
        self._attack_plan = {}
        self._block_key = None
        self._block_plan = {}
        self._gift_to = None
        self.forget_kept()

    def forget_kept(self) -> None:
        """Forget what :meth:`_compute_want` and :meth:`_wanted_talk` kept from earlier views, so
        the next decision works them out afresh (its action is the same either way: the kept
        results are given only while what they read of the view is equal)."""
        self._want_key = None
        self._want_players = None
        self._want_read = None
        self._want_kept: tuple = ()
        self._wanted_key = None
        self._wanted_kept: list = []

    # ------------------------------------------------------------------ entry point
    def act(self, observation: dict, info: dict) -> int:
        """A legal action for the acting seat, chosen from ``info["view"]`` only.

        Raises:
            ValueError: if the mask allows no action, or ``info`` holds no view
                (:func:`agents.base.seat_view`).
        """
        view = seat_view(self.name, info)
        d = view.decision
        conceding = ()
        if d is not None and "concede" in map(_kind, d.options):
            # the bot never concedes (CR 104.3a is the person's choice)
            conceding = {o.action for o in d.options if o.kind == "concede"}
            d = d._replace(options=tuple(o for o in d.options if o.kind != "concede"))
        if d is None or not d.options:
            return int(_legal(observation, conceding)[0])
        self._v = view
        self._me = view.seat
        self._want = self._compute_want(view)
        if d.kind == "priority":
            t = self._talk_now(d)
            if t is not None and _allows(observation, t):   # a statement the mask refuses: the rules below
                return int(t)
        handler = getattr(self, "_d_" + d.kind, None)
        a = handler(d) if handler is not None else None
        if a is None or a in conceding or not _allows(observation, a):
            legal = _legal(observation, conceding)     # raises when the mask allows nothing
            if a is None or int(a) not in legal:
                a = self._default(d)
        return int(a)

    # ------------------------------------------------------------------ relations
    def _compute_want(self, v) -> dict:
        """``want`` by seat for view ``v`` (see the module docstring); sets ``self._leaders``
        and ``self._assassins_left``.  The previous call's results are given again while
        everything this reads of the view is equal to what it read then (compared by value; the
        view builder hands the unchanged parts over as the same objects, so that is cheap): the
        seat, the role counts, the harm and attack tables, the truces, and of each player what
        ``_want_reads`` (a Traitor's: ``_traitor_want_reads``) takes -- looked at only when the
        players' views are not the very objects of the previous call."""
        if getattr(v, "throne_magic", None) is not None:     # Throne Magic: no Treachery roles (agents/throne.py)
            self._leaders, self._assassins_left = [], 0
            return self._throne_want(v)
        players = v.players
        talk = getattr(v, "talk", None)
        key = (v.seat, v.role_counts, v.harm, v.attacks, None if talk is None else (talk.deals, talk.broken))
        if key != self._want_key or not _same_objects(players, self._want_players):
            reads = _want_reads if players[v.seat].role in (LEADER, GUARDIAN, ASSASSIN) else _traitor_want_reads
            read = tuple(map(reads, players))
            if key != self._want_key or read != self._want_read:
                self._want_kept = (self._fresh_want(v), self._leaders, self._assassins_left)
            self._want_key, self._want_players, self._want_read = key, players, read
        want, self._leaders, self._assassins_left = self._want_kept
        return want

    def _throne_want(self, v) -> dict:
        """``want`` in a Throne Magic game: :func:`agents.throne.throne_want` over the Roles the
        view knows, the others uniform (the belief bot passes its posterior instead)."""
        return throne_want(v)

    def _fresh_want(self, v) -> dict:
        """:meth:`_compute_want` computed from the view."""
        me = v.me
        role = me.role
        players = v.players
        self._leaders = leaders = [p.seat for p in players if p.in_game and (p.leader_player or p.role == LEADER)]
        deck = v.role_counts                # the public identity deck (TR2.3)
        gone_assassins = sum(1 for p in players if not p.in_game and p.role == ASSASSIN)
        self._assassins_left = max(0, deck[ASSASSIN] - gone_assassins)
        harm, attacks = v.harm, v.attacks
        mine = self._me
        want = {}
        for p in players:
            s = p.seat
            if s == mine:
                want[s] = -3.0
                continue
            if not p.in_game:
                want[s] = 0.0
                continue
            known = p.role
            if role == LEADER:
                if known == GUARDIAN:
                    w = -1.5
                elif known == ASSASSIN or known == TRAITOR:
                    w = 1.2
                else:
                    w = 0.5 + min(1.0, (harm[s][mine] + 2 * attacks[s][mine]) / 10.0)
            elif role == GUARDIAN:
                if s in leaders:
                    w = -4.0
                elif known == GUARDIAN:
                    w = -1.0
                elif known == ASSASSIN or known == TRAITOR:
                    w = 1.2
                else:
                    w = 0.4 + min(1.0, sum(harm[s][l] + 2 * attacks[s][l] for l in leaders) / 8.0)
            elif role == ASSASSIN:
                if s in leaders:
                    w = 1.6
                elif known == ASSASSIN:
                    w = -1.0
                elif known == GUARDIAN:
                    w = 0.9
                else:
                    w = 0.3
            else:  # Traitor (or anything unexpected)
                if s in leaders:
                    if self._assassins_left > 0:
                        w = -0.5 if p.life <= 10 else 0.2
                    else:
                        w = 1.0
                elif known == ASSASSIN:
                    w = 1.3
                else:           # strength of the player: board + life
                    w = 0.6 + min(0.6, (sum(_hits(c) for c in p.creatures) + p.life / 4.0) / 30.0)
            want[s] = w
        talk = getattr(v, "talk", None)
        if talk is not None and (talk.deals or talk.broken):      # truces: kept by choice, never binding
            # the seats with which a truce stands (TalkView.has_deal(mine, s) for s != mine)
            partners = {d.partner for d in talk.deals if d.dealer == mine} | {d.dealer for d in talk.deals
                                                                               if d.partner == mine}
            broken = talk.broken
            for s in want:
                if s == mine:
                    continue
                if s in partners and want[s] > 0 and not (role == ASSASSIN and s in leaders):
                    want[s] *= 0.5
                if (s, mine) in broken:
                    want[s] += 0.5
        return want

    # ------------------------------------------------------------------ table talk (TR10.5)
    def talk_action(self, view) -> int | None:
        """The talk action this bot would take at ``view``'s decision, or None
        to stay quiet (see "Table talk" in the module docstring); used by
        :class:`agents.ismcts.ISMCTSAgent`, which does not search talk."""
        d = view.decision
        if d is None or not any(o.kind == "talk" for o in d.options):
            return None
        self._v = view
        self._me = view.seat
        self._want = self._compute_want(view)
        return self._talk_now(d)

    def _talk_now(self, d):
        if "talk" not in map(_kind, d.options):
            return None
        wanted = self._wanted_talk()
        if not wanted:
            return None
        v = self._v
        talk = v.talk
        n = len(v.players)
        recent = 3 * n

        def standing(m, role=None) -> bool:
            return m is not None and v.turn - m.turn < recent and (role is None or m.role == role)

        me = self._me
        for kind, subject, role in wanted:
            if kind == "claim" and standing(talk.claims.get(me), role):
                continue
            if kind in ("accuse", "defend"):
                m = talk.stances.get((me, subject))
                if standing(m) and m.kind == kind and m.role == role:
                    continue
            if kind in ("threaten", "protect"):
                m = talk.intents.get((me, subject))
                if standing(m) and m.kind == kind:
                    continue
            if kind == "request" and standing(talk.requests.get(me)) and v.turn - talk.requests[me].turn < n:
                continue
            o = _talk_option(d.options, (kind, subject, role))
            if o is not None:
                return o.action
        return None

    def _wanted_talk(self) -> list:
        """What the bot's role wants said now: ``[(kind, subject, role)]``, first first.  It reads
        what :meth:`_compute_want` read of the same view (whose results it uses; its keys) and
        every player's life: the previous call's list is given again while those are equal."""
        key = (self._want_key, self._want_read, tuple(map(_life, self._v.players)))
        if key != self._wanted_key:
            self._wanted_key = key
            self._wanted_kept = self._fresh_wanted_talk()
        return self._wanted_kept

    def _fresh_wanted_talk(self) -> list:
        """:meth:`_wanted_talk` computed from the view."""
        v = self._v
        me = v.me
        role = me.role
        harm, attacks = v.harm, v.attacks
        leaders = self._leaders
        hidden = [p.seat for p in v.players if p.in_game and p.seat != self._me and p.role is None]

        def hurt(s, targets) -> float:
            return sum(harm[s][t] + 2 * attacks[s][t] for t in targets)

        def suspect(targets):
            best = max(hidden, key=lambda s: (hurt(s, targets), -s), default=None)
            return best if best is not None and hurt(best, targets) >= 4 else None

        out: list = []
        talk = v.talk
        if role == LEADER:
            s = suspect([self._me])
            if s is not None:
                out.append(("accuse", s, ASSASSIN))
            out += [("defend", p.seat, None) for p in v.players
                    if p.in_game and p.seat != self._me and p.role == GUARDIAN]
            if me.life <= 15:
                out.append(("request", None, None))
        elif role == GUARDIAN:
            out.append(("claim", None, GUARDIAN))
            out += [("protect", l, None) for l in leaders]
            s = suspect(leaders)
            if s is not None:
                out += [("accuse", s, ASSASSIN), ("threaten", s, None)]
            out += [("offer", l, None) for l in leaders if not talk.has_deal(self._me, l)]
        elif role == ASSASSIN:
            cover = not any(attacks[self._me][l] or harm[self._me][l] for l in leaders)
            if cover:
                out.append(("claim", None, GUARDIAN))
            allies = {p.seat for p in v.players if p.role == ASSASSIN}
            hidden_foes = [s for s in hidden if s not in allies]
            best = max(hidden_foes, key=lambda s: (hurt(s, [self._me]), -s), default=None)
            if best is not None and hurt(best, [self._me]) >= 4:
                out.append(("accuse", best, TRAITOR))
            if cover:
                out += [("offer", l, None) for l in leaders
                        if v.players[l].life > 12 and not talk.has_deal(self._me, l)]
            if me.life <= 10:
                out.append(("request", None, None))
        else:   # Traitor
            out.append(("claim", None, GUARDIAN))
            if self._assassins_left > 0:
                s = suspect(leaders)
                if s is not None:
                    out.append(("accuse", s, ASSASSIN))
                out += [("offer", l, None) for l in leaders if not talk.has_deal(self._me, l)]
            if me.life <= 10:
                out.append(("request", None, None))
        return out

    def _d_deal(self, d):
        """Answer a truce offer (see "Table talk" in the module docstring)."""
        acc = next((o for o in d.options if o.kind == "accept"), None)
        rej = self._default(d)
        if acc is None:
            return rej
        v = self._v
        s = acc.player
        talk = v.talk
        if talk is not None and (s, self._me) in talk.broken:
            return rej
        if v.me.role == LEADER:
            known = v.players[s].role
            if known == GUARDIAN:
                return acc.action
            if known is not None:
                return rej
            hurt = v.harm[s][self._me] + 2 * v.attacks[s][self._me]
            return acc.action if hurt < 4 else rej
        return acc.action if self._want.get(s, 0.0) < 1.0 else rej

    def _enemy(self, s) -> bool:
        return self._want.get(s, 0.0) > 0

    # ------------------------------------------------------------------ fallbacks
    def _default(self, d) -> int:
        for o in d.options:
            if o.kind == "pass":
                return o.action
        return d.options[0].action

    def _source(self, prompt: str) -> str | None:
        m = _FOR_RE.search(prompt)
        if m:
            return m.group(1)
        if ":" in prompt:
            return prompt.split(":", 1)[0]
        return None

    # ------------------------------------------------------------------ threat estimates
    def _incoming(self, seat: int) -> int:
        """Damage the creatures that may attack ``seat`` next could deal (largest single enemy board)."""
        best = 0
        for p in self._v.players:
            if p.seat == seat or not p.in_game:
                continue
            if seat == self._me and self._want.get(p.seat, 1) < -0.5:
                continue
            best = max(best, sum(_hits(c) for c in p.creatures if "defender" not in c.keywords))
        return best

    def _attacking_at(self, seat: int, players_only: bool = False) -> list:
        """Creatures attacking ``seat`` or (unless ``players_only``) its planeswalkers."""
        return [c for p in self._v.players for c in p.creatures if c.attacking == seat
                and not (players_only and c.attacking_planeswalker is not None)]

    def _fog_worth(self) -> bool:
        """Whether the combat damage now coming would take half or more of our
        life, or put a Leader we protect in danger."""
        me = self._v.me
        at_me = sum(_hits(c) for c in self._attacking_at(self._me, players_only=True))
        if at_me and at_me * 2 >= me.life:
            return True
        return self._v.me.role in (LEADER, GUARDIAN) and self._leader_in_danger()

    def _leader_in_danger(self) -> bool:
        v = self._v
        for l in self._leaders:
            lp = v.players[l]
            at = sum(_hits(c) for c in self._attacking_at(l, players_only=True))
            if lp.life <= 6 or (at and at >= lp.life - 2) or (v.stack and lp.life <= 10):
                return True
        return False

    def _board_values(self):
        mine = 0.0
        enemy = 0.0
        for p in self._v.players:
            w = self._want.get(p.seat, 0.0)
            val = sum(_cvalue(c) for c in p.creatures)
            if w > 0:
                enemy += val * min(w, 1.5)
            elif w < 0:
                mine += val
        return mine, enemy

    # ------------------------------------------------------------------ priority
    def _d_priority(self, d):
        v = self._v
        me = v.me
        opts = _without_talk(d.options)
        my_main = v.active == self._me and not v.stack and v.phase in ("main1", "main2")
        # 1. respond to the stack
        if v.stack:
            top = v.stack[-1]
            if top.controller != self._me and self._enemy(top.controller) and top.kind == "spell":
                c = _card(top.source)
                worth = (c is None) or c.cost >= 3 or self._stack_hurts_us(top)
                if worth:
                    for o in opts:
                        if o.kind == "cast" and o.card in ("Counterspell", "Negate"):
                            if o.card == "Negate" and c is not None and c.is_creature:
                                continue
                            return o.action
        # 2. unveil
        u = self._choose_unveil(opts, my_main)
        if u is not None:
            return u
        if not my_main:
            # instant-speed help: lifegain on a dying ally
            for o in opts:
                if o.kind == "cast" and o.card == "Soothing Light" and self._ally_low(5):
                    return o.action
            # a fog once blocks are declared, when the blows would hurt us or the Leader badly
            if v.phase == "declare_blockers" and not v.stack:
                for o in opts:
                    c = _card(o.card) if o.kind == "cast" else None
                    if c is not None and any(e.get("op") == "fog" for e in c.effects) and self._fog_worth():
                        return o.action
            # Throne Magic: a creature for an ally in danger, at the end of the turn before its own
            if getattr(v, "throne_magic", None) is not None:
                g = gift(v, self._want, opts)
                if g is not None:
                    self._gift_to = g[1]        # the distribution's target, chosen next
                    return g[0]
            # a flash creature at the end of the turn before ours (the mana would go unused anyway)
            if v.phase == "end" and not v.stack and v.active != self._me:
                nxt = next((p.seat for k in range(1, len(v.players))
                            for p in [v.players[(v.active + k) % len(v.players)]] if p.in_game), None)
                if nxt == self._me:
                    flash = [o for o in opts if o.kind == "cast" and (c := _card(o.card)) is not None
                             and c.is_creature and c.flash]
                    if flash:
                        return max(flash, key=lambda o: _card(o.card).cost).action
            return self._default(d)
        # 3. land
        for o in opts:
            if o.kind == "land":
                return o.action
        # 4. the most expensive useful spell
        best, best_key = None, None
        for o in opts:
            if o.kind not in ("cast", "commander", "permission"):
                continue
            c = _card(o.card)
            if c is None:
                continue
            useful = self._spell_value(c) if o.kind != "commander" else 1.0
            if useful <= 0:
                continue
            key = (c.cost + (1 if o.kind == "commander" else 0), useful)
            if best_key is None or key > best_key:
                best, best_key = o.action, key
        if best is not None:
            return best
        # 5. loyalty abilities of our planeswalkers (CR 606), then identity and token abilities
        a = self._choose_loyalty([o for o in opts if o.kind == "loyalty"])
        if a is not None:
            return a
        for o in opts:
            if o.kind == "identity_ability" and any(n in o.text for n in _GOOD_ABILITIES):
                if "Void Tyrant" in o.text:
                    continue
                return o.action
        for o in opts:
            if o.kind == "token":
                a = o.ability
                if a in ("Clue", "Map", "Junk") or (a == "Food" and me.life <= 12):
                    return o.action
        # 6. Planechase: the planar die (CR 901.9) with the mana left: free rolls, and in the
        # postcombat main phase one or two paid ones
        for o in opts:
            if o.kind == "planar_die" and (o.x == 0 or (o.x <= 2 and v.phase == "main2")):
                return o.action
        return self._default(d)

    def _choose_loyalty(self, opts: list):
        """The loyalty ability to activate, one planeswalker at a time: an
        ultimate (cost -5 or less) when affordable; a minus ability whose best
        target scores 2 or more (a kill, a threat removed) while the walker
        survives it or the target is worth it; else the plus ability."""
        best, best_sc = None, 0.0
        walkers = {w.uid: w for w in self._v.me.planeswalkers}
        for o in opts:
            w = walkers.get(o.planeswalker)
            c = _card(o.card)
            if w is None or c is None or o.ability is None or o.ability >= len(c.abilities):
                continue
            ab = c.abilities[o.ability]
            cost = ab["loyalty"]
            if cost >= 0:
                sc = 1.0
            elif cost <= -5:
                sc = 8.0
            elif ab["targets"]:
                ops = {e.get("op") for e in ab["effects"]}
                intent = "help" if ops & _HELP_OPS and not ops & _HARM_OPS else "harm"
                dmg = next((int(e["n"]) for e in ab["effects"] if e.get("op") == "damage"
                            and isinstance(e.get("n"), int)), 0)
                spec = ab["targets"][0]
                tsc = max((x for _, x in self._candidate_scores(spec["type"], intent, dmg, c.name,
                                                                 spec.get("opponent", False))), default=0.0)
                sc = tsc if tsc >= 2.0 and (w.loyalty + cost >= 1 or tsc >= 5.0) else 0.0
            else:
                sc = 0.5
            if sc > best_sc:
                best, best_sc = o.action, sc
        return best

    def _ally_low(self, thr: int) -> bool:
        return any(p.in_game and self._want.get(p.seat, 0) < -0.9 and p.life <= thr for p in self._v.players)

    def _stack_hurts_us(self, top) -> bool:
        for kind, x in top.targets:
            if kind == "player" and self._want.get(x, 0) < 0:
                return _intent(top.source) == "harm"
            if kind == "creature":
                owner = self._owner_of(x)
                if owner is not None and self._want.get(owner, 0) < 0:
                    return _intent(top.source) == "harm"
            if kind == "planeswalker":          # one of ours or an ally's (CR 115.4)
                owner = next((p.seat for p in self._v.players for w in p.planeswalkers if w.uid == x), None)
                if owner is not None and self._want.get(owner, 0) < 0:
                    return _intent(top.source) == "harm"
        c = _card(top.source)
        return c is not None and any(e.get("op") in ("wipe", "damage_each_creature", "each_opponent_loses")
                                     for e in c.effects)

    def _owner_of(self, uid):
        for p in self._v.players:
            for c in p.creatures:
                if c.uid == uid:
                    return p.seat
        return None

    def _spell_value(self, c) -> float:
        """How useful casting ``c`` now is (<= 0: don't)."""
        if c.is_creature or c.is_planeswalker:
            return 1.0 + c.cost
        ops = [e.get("op") for e in c.effects]
        v = self._v
        me = v.me
        if "counter" in ops or "fog" in ops:
            return 0.0
        if "pump" in ops or "pump_team" in ops:
            return 0.0 if "pump" in ops else (1.0 if v.phase == "main1" and sum(
                1 for x in me.creatures if not x.tapped and not x.summoning_sick) >= 3 else 0.0)
        if "wipe" in ops or "damage_each_creature" in ops:
            mine, enemy = self._board_values()
            if "damage_each_creature" in ops:
                mine = sum(_cvalue(x) for p in v.players if self._want.get(p.seat, 0) <= 0
                           for x in p.creatures if x.toughness - x.damage <= 2)
                enemy = sum(_cvalue(x) * min(self._want.get(p.seat, 0), 1.5) for p in v.players
                            if self._want.get(p.seat, 0) > 0 for x in p.creatures if x.toughness - x.damage <= 2)
            return enemy - mine - 4.0
        if "gain" in ops and c.targets:
            return 1.0 if self._ally_low(12) else 0.0
        if "each_opponent_loses" in ops:
            return sum(self._want.get(p.seat, 0) for p in v.players if p.in_game and p.seat != self._me)
        if c.targets:
            spec = c.targets[0]
            intent = _intent(c.name)
            dmg = _damage_of(c.name, max(0, me.untapped_lands - c.cost))
            best = max((sc for _, sc in self._candidate_scores(spec["type"], intent, dmg, c.name,
                                                               spec.get("opponent", False))), default=0.0)
            return best - 1.0
        return 1.0   # draw, ramp, tokens, extra turn

    # ------------------------------------------------------------------ target scoring
    def _player_score(self, s: int, intent: str, dmg: int, source: str | None) -> float:
        v = self._v
        p = v.players[s]
        w = self._want.get(s, 0.0)
        if intent == "help" or intent == "copy":
            return -w
        # harm
        amount = dmg if dmg else 3
        sc = w * amount / 3.0
        if w > 0 and amount >= p.life:
            sc += 10.0 * w
        if s == self._me:
            sc = -10.0
        return sc

    def _creature_score(self, c, owner: int, intent: str, dmg: int) -> float:
        w = self._want.get(owner, 0.0)
        if intent == "copy":
            return _cvalue(c) + (0.5 if owner == self._me else 0)
        if intent == "help":
            return -w * _cvalue(c)
        val = _cvalue(c)
        if dmg and not (dmg >= c.toughness - c.damage):
            val *= 0.1
        return w * val

    def _candidate_scores(self, ttype, intent, dmg, source, opponent_only=False):
        v = self._v
        out = []
        if ttype in ("any", "player"):
            for p in v.players:
                if p.in_game and not (opponent_only and p.seat == self._me):
                    out.append((("player", p.seat), self._player_score(p.seat, intent, dmg, source)))
        if ttype in ("any", "creature"):
            for p in v.players:
                for c in p.creatures:
                    out.append((("creature", c.uid), self._creature_score(c, p.seat, intent, dmg)))
        if ttype == "any":
            for p in v.players:
                for w in p.planeswalkers:
                    out.append((("planeswalker", w.uid), self._walker_score(w, p.seat, intent, dmg)))
        return out

    def _walker_score(self, w, owner: int, intent: str, dmg: int) -> float:
        """Worth of hitting planeswalker ``w`` (a :class:`PlaneswalkerView`) of
        ``owner``: a kill is worth much more than chipping loyalty."""
        want = self._want.get(owner, 0.0)
        if intent != "harm":
            return -want
        val = 2.0 + 0.5 * w.loyalty
        if dmg:
            val = val + 4.0 if dmg >= w.loyalty else val * 0.3
        return want * val

    def _stack_score(self, uid: int, intent: str) -> float:
        for it in self._v.stack:
            if it.uid == uid:
                w = self._want.get(it.controller, 0.0)
                c = _card(it.source)
                cost = c.cost if c is not None else 4
                if intent == "harm":
                    return w * (cost + 1) + (3 if self._stack_hurts_us(it) else 0)
                return -w * (cost + 1)
        return 0.0

    # ------------------------------------------------------------------ targets
    def _d_target(self, d):
        if self._gift_to is not None and d.prompt.startswith("choose a target (player)"):
            to, self._gift_to = self._gift_to, None     # "The Monarch Distributing Creatures": its target
            for o in d.options:
                if o.kind == "target" and o.player == to and o.creature is None and o.planeswalker is None:
                    return o.action
        src = self._source(d.prompt)
        intent = _intent(src)
        if "to take until end of turn" in d.prompt:
            intent = "harm"
        if "choose the player who gets the copies" in d.prompt:
            intent = "help"
        dmg = _damage_of(src, self._last_x)
        best, best_sc = None, None
        has_pass = None
        for o in d.options:
            if o.kind == "pass":
                has_pass = o.action
                continue
            sc = self._option_target_score(o, intent, dmg, src)
            if best_sc is None or sc > best_sc:
                best, best_sc = o.action, sc
        if has_pass is not None and (best_sc is None or best_sc <= 0.05):
            return has_pass
        return best if best is not None else self._default(d)

    _last_x = 0

    def _option_target_score(self, o, intent, dmg, src) -> float:
        if o.stack is not None:
            return self._stack_score(o.stack, "harm")
        if o.planeswalker is not None:
            for p in self._v.players:
                for w in p.planeswalkers:
                    if w.uid == o.planeswalker:
                        return self._walker_score(w, p.seat, intent, dmg)
            return 0.0
        if o.creature is not None:
            for p in self._v.players:
                for c in p.creatures:
                    if c.uid == o.creature:
                        return self._creature_score(c, p.seat, intent, dmg)
            return 0.0
        if o.player is not None:
            return self._player_score(o.player, intent, dmg, src)
        if o.x is not None and "relative seat" in o.text:       # "player at relative seat i"
            s = (self._me + o.x) % len(self._v.players)
            return -self._want.get(s, 0.0)
        return self._text_card_score(o.text, intent)

    def _text_card_score(self, text: str, intent: str) -> float:
        name = text.split(" (")[0]
        if name.startswith("tap "):
            return -1.0
        c = _card(name)
        base = 0.0 if c is None else 1.0 + c.cost + c.power
        m = _SEAT_RE.search(text)
        if m:
            w = self._want.get(int(m.group(1)), 0.0)
            return base * (w if intent == "harm" else -w if intent == "help" else 1.0)
        return base

    # ------------------------------------------------------------------ unveil
    def _choose_unveil(self, opts, my_main: bool):
        if "unveil" not in map(_kind, opts):
            return None
        unv = [o for o in opts if o.kind == "unveil"]
        v = self._v
        me = v.me
        name = me.identity
        cls = _UNVEIL_CLASS.get(name)
        if cls is None:
            return None
        role = me.role
        best = max(unv, key=lambda o: (o.x or 0))
        n_in = sum(1 for p in v.players if p.in_game)
        top = v.stack[-1] if v.stack else None
        enemy_top = top is not None and top.controller != self._me and self._enemy(top.controller)
        if cls == "counter" or cls == "counter_nc":
            if enemy_top and top.kind == "spell":
                c = _card(top.source)
                if cls == "counter_nc" and (c is None or c.is_creature):
                    return None
                if (c is None or c.cost >= 3 or self._stack_hurts_us(top)):
                    return best.action
            return None
        if cls == "steal":
            if enemy_top and top.kind == "spell":
                c = _card(top.source)
                if c is not None and c.type in ("instant", "sorcery") and _intent(c.name) == "harm" and (
                        self._stack_hurts_us(top) or _damage_of(c.name, top.x) >= 3):
                    return best.action
            return None
        if cls in ("protect", "protect_combat"):
            if role != GUARDIAN and not (role == TRAITOR and self._assassins_left > 0):
                # an Assassin with a protecting identity (Wearer of Masks) or a Traitor late: protect itself
                if me.life <= 5 and self._attacking_at(self._me):
                    return best.action
                return None
            if cls == "protect_combat":
                if v.phase in ("declare_attackers", "declare_blockers") and any(
                        sum(_hits(c) for c in self._attacking_at(l)) >= max(1, v.players[l].life - 2)
                        for l in self._leaders):
                    return best.action
                return None
            return best.action if self._leader_in_danger() else None
        if cls == "golem":
            if any(v.players[l].life >= 16 and sum(v.attacks[s][l] for s in range(len(v.players))) >= 4
                   for l in self._leaders) and my_main:
                return best.action
            return None
        if cls == "save_self":
            if me.life <= 3 or (me.life <= 8 and sum(_hits(c) for c in self._attacking_at(self._me)) >= me.life):
                return best.action
            return None
        if cls == "now":
            return best.action
        if not my_main:
            return None
        cover_blown = any(v.attacks[self._me][l] or v.harm[self._me][l] for l in self._leaders)
        leader_low = any(v.players[l].life <= 12 for l in self._leaders)
        rounds = v.turn / max(1, n_in)
        if cls in ("sweep", "pressure"):
            mine, enemy = self._board_values()
            if cls == "pressure" and role == ASSASSIN and (leader_low or rounds >= 3 or cover_blown):
                return best.action
            if enemy >= mine + 8 or (cls == "pressure" and enemy >= 6):
                return best.action
            return None
        if cls == "late":
            if n_in <= 3 or me.life <= 6:
                return best.action
            return None
        # value
        if role == ASSASSIN:
            if leader_low or rounds >= 3 or cover_blown or me.life <= 8:
                return best.action
            return None
        if role == TRAITOR:
            if rounds >= 4 or me.life <= 8 or n_in <= 3:
                return best.action
            return None
        if role == GUARDIAN and name == "The Marshal" and (best.x or 0) < 3:
            return best.action if (best.x or 0) >= 1 else None
        return best.action

    # ------------------------------------------------------------------ combat: attacks
    def _plan_attacks(self, candidates: list) -> dict:
        v = self._v
        me = v.me
        role = me.role
        targets = [p for p in v.players if p.in_game and p.seat != self._me and self._want.get(p.seat, 0) > 0]
        if role == GUARDIAN:
            targets = [p for p in targets if p.seat not in self._leaders]
        places = locations_to_attack(v, self._want) if getattr(v, "throne_magic", None) is not None else []
        if not targets and not places:
            return {}
        mine = {c.uid: c for c in me.creatures}
        cands = [mine[u] for u in candidates if u in mine]
        # keep blockers back when the boards that could attack us threaten our life
        incoming = self._incoming(self._me)
        keep = set()
        cautious = role == LEADER or me.life <= 10
        if incoming and cautious:
            need = incoming - (me.life - 1)
            for c in sorted(cands, key=lambda c: (-c.toughness, c.uid)):
                if need <= 0:
                    break
                if "vigilance" in c.keywords:
                    continue
                keep.add(c.uid)
                need -= max(2, c.toughness)
        plan = {}
        # pick the main target: highest want, bonus for low life (a kill)
        total = sum(_hits(c) for c in cands if c.uid not in keep)

        def tscore(p):
            w = self._want[p.seat]
            blockers = [b for b in p.creatures if not b.tapped]
            sc = w * 10 - p.life * 0.2 - len(blockers) * 0.5
            if total >= p.life + sum(b.toughness for b in blockers):
                sc += 8 * w
            return sc

        ordered = sorted(targets, key=lambda p: (-tscore(p), p.seat))
        # Throne Magic: the Throne and the Holdings in the middle first; enemies' Holdings last
        throne = getattr(v, "throne_magic", None)
        first = [(u, c) for u, c in places if c < 0 or u == throne.uid]
        if first and not any(total >= p.life + sum(b.toughness for b in p.creatures if not b.tapped)
                             for p in targets):
            self._attack_places(cands, keep, first, plan)
        # enemy planeswalkers worth attacking (CR 506.3): low enough to die to what we
        # can send this combat, or close to their ultimate
        loyalty_left = {w.uid: w.loyalty for p in targets for w in p.planeswalkers
                        if w.kind == "planeswalker" and (w.loyalty <= total or w.loyalty >= 6)}
        for c in sorted(cands, key=lambda c: (-_hits(c), c.uid)):
            if c.uid in keep or c.power <= 0 or c.uid in plan:
                continue
            if loyalty_left and self._attack_walker(c, targets, loyalty_left, plan):
                continue
            for p in ordered:
                blockers = blockers_for(p, c)
                safe = all(_survives(c, b) or (not _survives(b, c) and _cvalue(b) >= _cvalue(c))
                           for b in blockers)
                if safe or not blockers:
                    plan[c.uid] = p.seat
                    break
        # one enemy's Holding a combat: the weakest creature sent at its controller goes for it instead
        for uid, ctl in places[len(first):]:
            sent = [c for c in cands if plan.get(c.uid) == ctl]
            if sent:
                plan[min(sent, key=lambda c: (_cvalue(c), c.uid)).uid] = ("planeswalker", uid)
                break
        return plan

    def _attack_places(self, cands: list, keep: set, places: list, plan: dict) -> None:
        """Throne Magic: one attacker for each of ``places`` (``(uid, controller)``,
        :func:`agents.throne.locations_to_attack`), the least valuable creature not kept back
        that deals damage and survives every blocker its controller has for it ("Attacking the
        Throne": in the middle, nobody blocks); one combat damage is enough to take it.
        Updates ``plan`` (creature uid -> ``("planeswalker", uid)``)."""
        players = self._v.players
        for uid, ctl in places:
            for c in sorted(cands, key=lambda c: (_cvalue(c), c.uid)):
                if c.uid in keep or c.uid in plan or c.power <= 0:
                    continue
                if survives_blocks(players, c, ctl):
                    plan[c.uid] = ("planeswalker", uid)
                    break

    def _attack_walker(self, c, targets: list, loyalty_left: dict, plan: dict) -> bool:
        """Send ``c`` at an enemy planeswalker still standing in ``loyalty_left``
        (uid -> loyalty not yet covered by planned attackers) when its
        controller can't block it profitably; updates ``plan``."""
        for p in targets:
            for w in p.planeswalkers:
                if loyalty_left.get(w.uid, 0) <= 0:
                    continue
                blockers = [b for b in p.creatures if not b.tapped and _can_block(b, c)]
                if blockers and not all(_survives(c, b) for b in blockers):
                    continue
                plan[c.uid] = ("planeswalker", w.uid)
                loyalty_left[w.uid] -= _hits(c)
                return True
        return False

    def _d_attacker(self, d):
        key = (self._v.turn, self._v.active)
        if self._plan_key != key:
            self._plan_key = key
            self._attack_plan = self._plan_attacks([o.creature for o in d.options if o.kind == "attack_with"])
        for o in d.options:
            if o.kind == "attack_with" and o.creature in self._attack_plan:
                return o.action
        return self._default(d)

    def _d_defender(self, d):
        # the creature being declared comes from the decision, not from memory of our own
        # last choice, so the bot also labels states reached by another policy (DAgger)
        want = self._attack_plan.get(d.creature)
        for o in d.options:
            if isinstance(want, tuple) and o.planeswalker == want[1]:
                return o.action
            if o.kind == "attack_player" and o.player == want:
                return o.action
        role = self._v.me.role
        best, best_sc = None, None
        for o in d.options:
            if o.player is None or o.kind != "attack_player":
                continue
            sc = self._want.get(o.player, 0.0)
            if role == GUARDIAN and o.player in self._leaders:
                sc -= 10
            sc -= self._v.players[o.player].life * 0.01
            if best_sc is None or sc > best_sc:
                best, best_sc = o.action, sc
        return best

    # ------------------------------------------------------------------ combat: blocks
    def _plan_blocks(self, blocker_uids: list) -> dict:
        v = self._v
        me = v.me
        mine = {c.uid: c for c in me.creatures}
        blockers = [mine[u] for u in blocker_uids if u in mine]
        attackers = sorted(self._attacking_at(self._me), key=lambda a: (-_hits(a), a.uid))
        plan: dict = {}
        blocked: set = set()
        used: set = set()
        leader = me.role == LEADER

        def free(pred):
            for a in attackers:
                if a.uid in blocked or "menace" in a.keywords:
                    continue
                opts = [b for b in blockers if b.uid not in used and _can_block(b, a) and pred(b, a)]
                if opts:
                    b = min(opts, key=lambda b: (_cvalue(b), b.uid))
                    plan[b.uid] = a.uid
                    used.add(b.uid)
                    blocked.add(a.uid)

        free(lambda b, a: _kills(b, a) and _survives(b, a))                 # good blocks
        free(lambda b, a: _survives(b, a) and _hits(a) > 0)                   # safe walls
        tm = getattr(v, "throne_magic", None)
        if tm is not None:       # Throne Magic: the bot's Throne and Holdings are worth a trade
            held = {tm.uid} if tm.controller == self._me else set()
            held |= {h.uid for h in tm.holdings if h.controller == self._me}
            free(lambda b, a: a.attacking_planeswalker in held and _kills(b, a) and _cvalue(a) >= _cvalue(b))
        if leader or me.life <= 10:
            free(lambda b, a: _kills(b, a) and _cvalue(a) >= _cvalue(b))      # trades
        unblocked = sum(_hits(a) for a in attackers if a.uid not in blocked and a.attacking_planeswalker is None)
        for a in attackers:                                                    # chump while lethal
            if unblocked < me.life:
                break
            if a.uid in blocked or "menace" in a.keywords or a.attacking_planeswalker is not None:
                continue
            opts = [b for b in blockers if b.uid not in used and _can_block(b, a)]
            if opts:
                b = min(opts, key=lambda b: (_cvalue(b), b.uid))
                plan[b.uid] = a.uid
                used.add(b.uid)
                blocked.add(a.uid)
                unblocked -= _hits(a) if "trample" not in a.keywords else min(_hits(a), b.toughness)
        return plan

    def _d_blocker(self, d):
        key = (self._v.turn, self._v.active)
        if self._block_key != key:
            self._block_key = key
            self._block_plan = self._plan_blocks([o.creature for o in d.options if o.kind == "block_with"])
        for o in d.options:
            if o.kind == "block_with" and o.creature in self._block_plan:
                return o.action
        return self._default(d)

    def _d_blocked(self, d):
        want = self._block_plan.pop(d.creature, None)
        for o in d.options:
            if o.creature == want:
                return o.action
        # the biggest attacker
        best, best_sc = None, None
        for o in d.options:
            a = next((c for c in self._attacking_at(self._me) if c.uid == o.creature), None)
            sc = _hits(a) if a is not None else 0
            if best_sc is None or sc > best_sc:
                best, best_sc = o.action, sc
        return best

    # ------------------------------------------------------------------ other decisions
    def _d_number(self, d):
        nums = [o for o in d.options if o.kind == "number" or o.x is not None]
        if not nums:
            return self._default(d)
        best = max(nums, key=lambda o: (o.x if o.x is not None else -1))
        self._last_x = best.x or 0
        return best.action

    def _d_discard(self, d):
        return self._worst_card(d)

    def _worst_card(self, d):
        me = self._v.me
        hand = me.hand or ()
        land_cards = sum(1 for h in hand if _card(h) is not None and _card(h).is_land)
        best, best_sc = None, None
        for o in d.options:
            c = _card(o.card) if o.card else None
            if c is None:
                sc = 0.0
            elif c.is_land:
                sc = 5.0 if me.lands + land_cards <= 5 else 0.5
            else:
                sc = 3.0 + c.cost if c.cost <= me.lands + 2 else 1.0
            if best_sc is None or sc < best_sc:
                best, best_sc = o.action, sc
        return best

    def _d_cost(self, d):
        if any(o.kind == "cost" and o.card for o in d.options):
            return self._worst_card(d)
        best, best_sc = None, None
        for o in d.options:
            if "a land" in o.text:
                sc = 2.0 if self._v.me.lands >= 6 else 8.0
            else:
                c = None
                if o.creature is not None:
                    c = next((x for x in self._v.me.creatures if x.uid == o.creature), None)
                sc = _cvalue(c) if c is not None else 3.0
            if best_sc is None or sc < best_sc:
                best, best_sc = o.action, sc
        return best

    def _d_scry(self, d):
        m = re.search(r"keep (.+?) on top", d.prompt)
        c = _card(m.group(1)) if m else None
        me = self._v.me
        keep = True
        if c is not None:
            keep = (me.lands < 5) if c.is_land else (c.cost <= me.lands + 2)
        want_text = "top" if keep else None
        for o in d.options:
            if want_text and o.text == "top":
                return o.action
            if not want_text and o.text != "top":
                return o.action
        return self._default(d)

    def _d_mulligan(self, d):
        """CR 103.5: keep 2-5 lands in 7 (scaled), else mulligan, at most twice."""
        me = self._v.me
        hand = me.hand or ()
        keep = next((o.action for o in d.options if o.kind == "pass"), None)
        mull = next((o.action for o in d.options if o.kind == "mulligan"), None)
        if mull is None or me.mulligans >= 2:
            return keep
        n = len(hand)
        lands = sum(1 for h in hand if _card(h) is not None and _card(h).is_land)
        edge = max(1, round(2 * n / 7))
        return keep if edge <= lands <= n - edge else mull

    def _d_bottom(self, d):
        """London mulligan bottom (CR 103.5): an excess land (more than 3 in 7 of
        the hand left), else the most expensive spell."""
        hand = self._v.me.hand or ()
        lands = [o for o in d.options if _card(o.card) is not None and _card(o.card).is_land]
        spells = [o for o in d.options if o not in lands]
        if lands and (not spells or len(lands) > round(3 * (len(hand) - 1) / 7)):
            return lands[-1].action
        return max(spells, key=lambda o: (_card(o.card).cost if _card(o.card) is not None else 0, o.action)).action

    def _d_yes_no(self, d):
        a = throne_answer(self._v, d)
        if a is not None:
            return a
        p = d.prompt
        if "His Beloved Majesty" in p:
            give = self._v.me.role == GUARDIAN
            for o in d.options:
                if (o.text == "give") == give:
                    return o.action
        return d.options[0].action

    def _d_mode(self, d):
        p = d.prompt
        texts = [(o, o.text.lower()) for o in d.options]
        prefs = []
        if "pay" in p and "life" in p:
            prefs = ["pay"] if self._v.me.life > 12 else ["put it"]
        elif "villainous" in p:
            n_perm = len(self._v.me.creatures)
            m = re.search(r"lose (\d+) life", " ".join(t for _, t in texts))
            loss = int(m.group(1)) if m else 99
            prefs = ["lose"] if self._v.me.life - loss > 5 and n_perm >= 2 else ["sacrifice", "lose"]
        else:
            prefs = ["opponent loses", "treasure", "extra turn", "white", "red", "green", "blue", "creature",
                     "thrull", "draws seven"]
        for want in prefs:
            for o, t in texts:
                if want in t:
                    return o.action
        for o, t in texts:
            if o.kind != "pass":
                return o.action
        return self._default(d)

    def _d_card(self, d):
        p = d.prompt
        worst = "sacrifice" in p
        intent = "harm" if ("exile" in p and "graveyard or exile" not in p) or "take" in p else "copy"
        best, best_sc = None, None
        for o in d.options:
            if o.kind == "pass":
                continue
            sc = self._text_card_score(o.text, intent)
            if "keeps their identity" in o.text:
                sc += 100
            if worst:
                sc = -sc
            if best_sc is None or sc > best_sc:
                best, best_sc = o.action, sc
        return best if best is not None else self._default(d)


register("heuristic", HeuristicAgent)
