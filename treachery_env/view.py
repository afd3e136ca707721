"""What one seat may know, as objects: the structured view ``info["view"]``.

:class:`SeatView` holds the same information set as the observation vector
(:mod:`treachery_env.observation`, DESIGN sections 4-5): the viewer's own hand
and identity, every public fact, identities it has seen or was shown, cards
only it may look at, its own pending decision with every legal action
described (:class:`OptionView`), the public events of this turn and the last,
and the table talk.  Seats here are absolute.  Rule-based bots read only this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .rules import Role

from .engine.state import DecisionKind

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game

__all__ = ["seat_view", "SeatView", "LazySeatView", "DecisionView", "OptionView", "PlayerView", "CreatureView",
           "PlaneswalkerView", "StackView", "TalkView"]


@dataclass(frozen=True)
class CreatureView:
    """A creature as everyone sees it.  ``attacking`` is an absolute seat (the
    defending player) or -1; ``attacking_planeswalker`` the uid of the
    planeswalker it attacks (CR 506.3), None when it attacks the player."""

    uid: int
    name: str
    power: int
    toughness: int
    damage: int
    tapped: bool
    summoning_sick: bool
    keywords: frozenset
    attacking: int
    blocking: int | None
    plus_counters: int
    stun: int
    token: bool
    commander: bool
    attacking_planeswalker: int | None = None


@dataclass(frozen=True)
class PlaneswalkerView:
    """An attackable permanent as everyone sees it (all public): a planeswalker
    (``kind``, CR 306) with its loyalty (CR 306.5b), whether one of its
    loyalty abilities was activated this turn (CR 606.3), its abilities'
    loyalty costs and texts (``abilities``: ``((cost, text), ...)``), and the
    uids of the creatures attacking it."""

    uid: int
    name: str
    kind: str
    owner: int
    controller: int
    loyalty: int
    used_this_turn: bool
    abilities: tuple
    attackers: tuple = ()


@dataclass(frozen=True)
class PlayerView:
    """A player as the viewer knows them.

    ``identity``/``role`` are None when the viewer does not know them;
    ``hand`` is None for other players (``hand_size`` is public);
    ``usable_elsewhere`` lists the cards the viewer may cast from other zones
    (the OTHER actions, in order), None for other players; ``mulligans`` is
    the number of mulligans the player took before the game (public, CR 103.5);
    ``planeswalkers`` the attackable permanents it controls
    (:class:`PlaneswalkerView`, in slot order).
    """

    seat: int
    in_game: bool
    life: int
    hand_size: int
    hand: tuple | None
    library_size: int
    graveyard: tuple
    exile: tuple
    lands: int
    untapped_lands: int
    tokens: dict
    creatures: tuple
    face_up: bool
    identity: str | None
    role: Role | None
    identity_counters: dict
    commander: str | None
    commander_zone: str
    commander_damage_taken: dict
    leader_player: bool
    player_counters: dict
    usable_elsewhere: tuple | None
    mulligans: int = 0
    planeswalkers: tuple = ()


@dataclass(frozen=True)
class StackView:
    """A stack object: ``targets`` are ``("player", seat)``, ``("creature", uid)``,
    ``("planeswalker", uid)`` or ``("stack", uid)``."""

    uid: int
    kind: str
    controller: int
    source: str
    identity_source: bool
    x: int
    targets: tuple


@dataclass(frozen=True)
class OptionView:
    """One legal action of the viewer's decision, with what it refers to.

    Attributes:
        action: the action index.
        text: :meth:`Game.describe_action` of it.
        kind: what choosing it does: ``"pass"`` (pass priority, done, no, keep;
            keep the hand at a mulligan decision), ``"mulligan"`` (take a
            mulligan, CR 103.5), ``"bottom"`` (put ``card`` on the bottom of the
            library after a mulligan), ``"concede"`` (concede the game, CR 104.3a),
            ``"land"``, ``"cast"``, ``"commander"``, ``"unveil"``,
            ``"identity_ability"``, ``"token"``, ``"permission"``, ``"loyalty"``
            (activate loyalty ability ``ability`` of ``planeswalker``, CR 606)
            (priority); ``"attack_with"``, ``"attack_player"``,
            ``"attack_planeswalker"`` (``planeswalker``, controlled by
            ``player``, CR 506.3), ``"block_with"``, ``"block"`` (combat); ``"target"``, ``"number"``, ``"discard"``, ``"cost"``,
            ``"choice"`` (other decisions).
        card: name of the card it casts, plays, discards or pays with.
        player: absolute seat it targets or attacks.
        creature: uid of the creature it attacks or blocks with, blocks, or targets.
        stack: uid of the stack object it targets.
        x: X of an unveil, a number, or the index of a choice.
        ability: index of an identity ability, or the token kind for ``"token"``.
        talk: for ``kind == "talk"`` (a table-talk message, TR10.5), the
            message kind (``"claim"``, ``"accuse"``, ``"defend"``,
            ``"threaten"``, ``"protect"``, ``"request"``, ``"offer"``);
            ``player`` is the seat it is about and ``role`` the role it names.
            ``kind == "accept"`` accepts the truce ``player`` offered (a
            ``"deal"`` decision, whose ``"pass"`` rejects it).
        role: the role a claim or accusation names.
        planeswalker: uid of the planeswalker it attacks, targets or activates.
    """

    action: int
    text: str
    kind: str
    card: str | None = None
    player: int | None = None
    creature: int | None = None
    stack: int | None = None
    x: int | None = None
    ability: "int | str | None" = None
    talk: str | None = None
    role: Role | None = None
    planeswalker: int | None = None


@dataclass(frozen=True)
class DecisionView:
    """The viewer's pending decision: ``kind`` (a ``DecisionKind.NAMES`` entry),
    ``prompt`` in words, one :class:`OptionView` per legal action, and
    ``creature``: the uid of the viewer's own creature the decision is about
    (the attacker whose defending player, or the blocker whose attacker, is
    being chosen; CR 508.1, 509.1), else None."""

    kind: str
    prompt: str
    options: tuple
    creature: "int | None" = None

    def actions(self) -> list[int]:
        """The legal action indices."""
        return [o.action for o in self.options]


def _option_view(game: "Game", d: Any, action: int, payload: Any) -> OptionView:
    text = game.describe_action(action)
    p = game.players[d.seat]
    kind = d.kind
    if action == game.layout.CONCEDE:
        return OptionView(action, text, "concede")
    if payload is None or (kind == DecisionKind.MULLIGAN and payload == "keep"):
        return OptionView(action, text, "pass")
    if kind == DecisionKind.MULLIGAN:
        return OptionView(action, text, "mulligan")
    if kind == DecisionKind.BOTTOM:
        return OptionView(action, text, "bottom", card=p.hand[payload].name)
    if kind == DecisionKind.PRIORITY:
        what, arg = payload
        if what == "talk":
            talk, subject, role = arg
            return OptionView(action, text, "talk", player=subject, talk=talk,
                              role=None if role is None else Role(role))
        if what in ("land", "cast"):
            return OptionView(action, text, what, card=p.hand[arg].name)
        if what == "commander":
            return OptionView(action, text, what, card=p.commander.name)
        if what == "unveil":
            return OptionView(action, text, what, x=arg)
        if what == "identity_ability":
            return OptionView(action, text, what, ability=arg)
        if what == "token":
            return OptionView(action, text, what, ability=arg)
        if what == "permission":
            return OptionView(action, text, what, card=p.permissions[arg]["card"].name)
        if what == "loyalty":
            w = p.attackables[arg[0]]
            return OptionView(action, text, what, card=w.name, ability=arg[1], planeswalker=w.uid)
    if kind == DecisionKind.DEAL:
        return OptionView(action, text, "accept", player=d.ctx[0])
    if kind == DecisionKind.ATTACKER:
        return OptionView(action, text, "attack_with", creature=payload.uid)
    if kind == DecisionKind.DEFENDER:
        if not isinstance(payload, int):
            return OptionView(action, text, "attack_planeswalker", player=payload.controller, planeswalker=payload.uid)
        return OptionView(action, text, "attack_player", player=payload)
    if kind == DecisionKind.BLOCKER:
        return OptionView(action, text, "block_with", creature=payload.uid)
    if kind == DecisionKind.BLOCKED:
        return OptionView(action, text, "block", creature=payload.uid, player=payload.controller)
    if kind == DecisionKind.NUMBER and isinstance(payload, int):
        return OptionView(action, text, "number", x=payload)
    if kind in (DecisionKind.DISCARD, DecisionKind.COST) and isinstance(payload, int):
        return OptionView(action, text, "discard" if kind == DecisionKind.DISCARD else "cost",
                          card=p.hand[payload].name)
    if isinstance(payload, tuple) and len(payload) == 2 and payload[0] in ("p", "c", "s", "w"):
        t, obj = payload
        if t == "p":
            return OptionView(action, text, "target", player=obj)
        if t == "c":
            return OptionView(action, text, "target", creature=obj.uid, player=obj.controller)
        if t == "w":
            return OptionView(action, text, "target", planeswalker=obj.uid, player=obj.controller)
        return OptionView(action, text, "target", stack=obj.uid)
    if hasattr(payload, "base_power"):
        return OptionView(action, text, "cost" if kind == DecisionKind.COST else "choice", creature=payload.uid,
                          player=payload.controller)
    L = game.layout
    return OptionView(action, text, "choice", x=action - L.CHOICE if action >= L.CHOICE else None)


@dataclass(frozen=True)
class TalkView:
    """What was said at the table (TR10.5), all public; seats are absolute.

    Attributes:
        mode: ``GameConfig.talk`` ("structured" or "none"); limit: messages
            per player per turn (``GameConfig.talk_limit``).
        messages: every :class:`~treachery_env.engine.talk.TalkMessage` so
            far, in order (answers to truce offers included).
        claims: seat -> its latest claim message (``.role`` is the claimed role).
        stances: ``(speaker, subject)`` -> the latest accuse/defend message.
        intents: ``(speaker, subject)`` -> the latest threaten/protect message.
        requests: seat -> its latest "don't attack me" message.
        deals: the standing truces (:class:`~treachery_env.engine.talk.Deal`).
        broken: ``(breaker, victim)`` -> turn a truce ended broken by ``breaker``.
        hurt_at_start: per seat, harm + attacks it had received from others
            as this turn began (opens the reaction window).
    """

    mode: str
    limit: int
    messages: tuple
    claims: dict
    stances: dict
    intents: dict
    requests: dict
    deals: tuple
    broken: dict
    hurt_at_start: tuple

    def said_this_turn(self, seat: int, turn: int) -> int:
        """How many messages ``seat`` said in ``turn`` (counted against the limit)."""
        k = 0
        for m in reversed(self.messages):
            if m.turn != turn:
                break
            k += m.speaker == seat and m.kind not in ("accept", "reject")
        return k

    def has_deal(self, a: int, b: int) -> bool:
        """Whether a truce between seats ``a`` and ``b`` stands."""
        return any(d.involves(a, b) for d in self.deals)


def _talk_view(game: "Game") -> TalkView:
    t = game.talk
    return TalkView(game.config.talk, game.config.talk_limit, tuple(t.messages), dict(t.claims), dict(t.stances),
                    dict(t.intents), dict(t.requests), tuple(t.deals), dict(t.broken), tuple(t.hurt_at_start))


@dataclass(frozen=True)
class SeatView:
    """Read-only snapshot of one seat's information set (``info["view"]``).

    Attributes:
        seat: the viewer.  turn, phase, active: public turn state.
        players: :class:`PlayerView` by absolute seat.
        harm, attacks: public history by absolute seats, ``harm[i][j]`` = damage
            and life loss seat i caused to seat j (and j's creatures),
            ``attacks[i][j]`` = creatures i attacked j with.
        me: ``players[seat]`` (with ``hand``).
        stack: :class:`StackView`, bottom first.
        undercover_met: whether the viewer's Undercover condition holds.
        dream: cards the viewer may look at in its face-down exile (Oneiromancer).
        decision: the viewer's pending :class:`DecisionView`, else None.
        events: log entries visible to the viewer this turn and the previous one.
        priority_windows: the table's public rule for priority windows
            (:attr:`GameConfig.priority_windows`, "full" or "main").
        role_counts: the identity deck's cards per role, indexed by
            :class:`Role` value (Leader, Guardian, Assassin, Traitor); public
            (TR2.3), whatever deck was dealt (CR 907.3b, ``role_counts``, TR11).
        talk: what was said at the table (:class:`TalkView`, public).
    """

    seat: int
    turn: int
    phase: str
    active: int
    players: tuple
    stack: tuple
    harm: tuple
    attacks: tuple
    undercover_met: bool
    dream: tuple
    decision: "DecisionView | None"
    events: tuple
    priority_windows: str = "full"
    role_counts: tuple = ()
    talk: "TalkView | None" = None

    @property
    def me(self) -> PlayerView:
        """The viewer's own :class:`PlayerView` (with its hand)."""
        return self.players[self.seat]

    def opponents(self) -> list[int]:
        """Seats still in the game other than the viewer."""
        return [p.seat for p in self.players if p.in_game and p.seat != self.seat]


def _creature_view(game: "Game", c: Any) -> CreatureView:
    return CreatureView(c.uid, c.name, c.power, c.toughness, c.damage, c.tapped,
                        c.entered_turn >= game.turn and not c.has("haste"), c.base_keywords | c.pump_kw,
                        c.attacking, None if c.blocking is None else c.blocking.uid, c.p1p1, c.stun, c.token,
                        c.is_commander, None if c.attacking_obj is None else c.attacking_obj.uid)


def _planeswalker_view(game: "Game", w: Any) -> PlaneswalkerView:
    abilities = () if w.card is None else tuple((ab["loyalty"], ab["text"]) for ab in w.card.abilities)
    attackers = tuple(a.uid for a in game.combat_attackers if a.attacking_obj is w)
    return PlaneswalkerView(w.uid, w.name, w.kind, w.owner, w.controller, w.loyalty, w.used_turn == game.turn,
                            abilities, attackers)


def _target_view(t: Any) -> tuple:
    if t is None:
        return ("none", -1)
    kind, obj = t
    if kind == "p":
        return ("player", obj)
    return ({"c": "creature", "w": "planeswalker"}.get(kind, "stack"), obj.uid)


def seat_view(game: "Game", viewer: int) -> SeatView:
    """Build the :class:`SeatView` of ``viewer`` (same information as :func:`encode`)."""
    players = []
    for p in game.players:
        idc = p.identity
        known = idc.face_up or viewer in idc.known_by
        players.append(PlayerView(
            seat=p.seat, in_game=not p.has_lost, life=p.life, hand_size=len(p.hand),
            hand=tuple(c.name for c in p.hand) if p.seat == viewer else None,
            library_size=len(p.library), graveyard=tuple(c.name for c in p.graveyard),
            exile=tuple(c.name for c in p.exile), lands=p.lands, untapped_lands=p.lands - p.lands_tapped,
            tokens=dict(p.tokens), creatures=tuple(_creature_view(game, c) for c in p.creatures),
            face_up=idc.face_up, identity=idc.name if known else None, role=idc.role if known else None,
            identity_counters=dict(idc.counters),
            commander=p.commander.name if p.commander else None, commander_zone=p.commander_zone,
            commander_damage_taken=dict(p.cmd_damage), leader_player=game.is_leader_player(p.seat),
            player_counters=dict(p.counters),
            usable_elsewhere=tuple((q["card"].name, q["zone"], q["free"]) for q in p.permissions)
            if p.seat == viewer else None, mulligans=p.mulligans,
            planeswalkers=tuple(_planeswalker_view(game, w) for w in p.attackables) if p.attackables else ()))
    stack = tuple(StackView(it.uid, it.kind, it.controller, it.source, it.identity_source, it.x,
                            tuple(_target_view(t) for t in it.targets)) for it in game.stack)
    me = game.players[viewer]
    dream = tuple(c.name for _, c in me.identity.data.get("dream", ()))
    d = game.decision
    decision = None
    if d is not None and d.seat == viewer:
        cre = d.declared_creature(viewer)
        decision = DecisionView(DecisionKind.NAMES[d.kind], d.prompt,
                                tuple(_option_view(game, d, a, pl) for a, pl in d.options),
                                None if cre is None else cre.uid)
    first_turn = game.turn - 1
    events = []
    for e in reversed(game.log):
        if e["turn"] < first_turn:
            break
        if e["to"] is None or viewer in e["to"]:
            events.append(e)
    events.reverse()
    return SeatView(viewer, game.turn, game.phase, game.active, tuple(players), stack,
                    tuple(map(tuple, game.harm)), tuple(map(tuple, game.attacks)),
                    (not me.has_lost) and game.undercover_met(viewer), dream, decision, tuple(events),
                    game.config.priority_windows, game.role_counts, _talk_view(game))


class LazySeatView:
    """A :class:`SeatView` built on first use (``info["view"]``), so that agents
    that read only the vector pay nothing for it.  Attribute access is forwarded
    to the view.  The view must be read before the game moves on.

    Raises:
        RuntimeError: on first use after the game has taken another action.
    """

    __slots__ = ("_game", "_seat", "_stamp", "_view")

    def __init__(self, game: "Game", seat: int):
        self._game = game
        self._seat = seat
        self._stamp = (len(game.actions), len(game.log))
        self._view: SeatView | None = None

    def get(self) -> SeatView:
        """The :class:`SeatView` (built once)."""
        if self._view is None:
            g = self._game
            if (len(g.actions), len(g.log)) != self._stamp:
                raise RuntimeError("stale view: the game has moved on since this info dict was made; "
                                   "read info['view'] before stepping the environment")
            self._view = seat_view(g, self._seat)
            self._game = None
        return self._view

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazySeatView):
            return self.get() == other.get()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazySeatView(seat={self._seat}, built={self._view is not None})"
