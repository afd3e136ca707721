"""Table talk (TR10.5, TR1): structured, public, non-binding messages.

TR10.5: "Table talk is part of the game. You may make claims, accuse,
threaten and strike deals. Deals are never binding. You may not show your
face-down identity or other hidden cards to back up a claim, and you may not
use outside signals to share information secretly."  TR1 (the golden rule):
"You may say anything about your identity, true or false. What you may not do
is show your face-down identity to another player to prove a claim. The only
proof is unveiling it."

Talk is a small fixed vocabulary, in the manner of the ACCUSE / DEFEND / CLAIM
messages of social-deduction game environments and the AIWolf protocol; each
message is one TALK action (:class:`~treachery_env.actions.ActionLayout`):

=========  ===============================  =====================================
kind       words                            about
=========  ===============================  =====================================
claim      "I am a R"                       oneself; any of the four roles, true or false
accuse     "X is a R"                       another seat X and a role R
defend     "X is on my side"                another seat (vouching)
threaten   "I will attack X"                another seat
protect    "I will protect X"               another seat
request    "Don't attack me"                nobody
offer      "Truce, X: neither of us         another seat, who answers at once
           attacks or harms the other       (a ``DEAL`` decision: accept, or
           until my next turn"              PASS to reject)
=========  ===============================  =====================================

What is modelled (docs/fidelity.md, "Table talk"):

* **Public.**  Every message is a public log event (``"talk"``, ``to=None``),
  is kept in :attr:`Game.talk` (a :class:`TalkState`) and appears in every
  seat's observation vector and view.  There is no private channel (TR10.5:
  no secret signals).
* **Only words.**  No message shows or carries hidden information: a claim is
  just a claim, and which messages are legal depends on public facts only
  (the window, what the speaker already said this turn, standing truces),
  never on the speaker's identity or hand, so even the *availability* of a
  message reveals nothing (DESIGN section 4).
* **Not binding.**  Nothing enforces a truce or a threat: the dealer may attack
  its partner the moment the truce is struck.  A truce stands until the start
  of the dealer's next turn (a truce with a party that left the game ends at the
  start of the next turn, whoever's it is); when it ends
  the log records who broke it (``"deal_ended"`` with ``broken_by``: the
  parties that attacked or harmed the other while it stood).
* **Windows** (an abstraction: at a real table talk never stops).  A player
  may talk while it has priority with an empty stack (a) in its own main
  phases, and (b) as a reaction, in the end step of another player's turn if
  another player attacked it or harmed it (damage or life loss) during that
  turn.  Both conditions are public.  Window (a) lies where the active player
  nearly always has a decision anyway (a land, a spell); window (b) opens only
  for players something happened to, so a silent table pays few extra
  decisions (offering talk at every priority window would turn all ~10
  windows per turn of every seat into shown decisions).
* **Not a game action.**  Talking does not pass priority and does not break a
  run of passes (CR 117.3d counts passes only): the speaker keeps priority and
  decides again.
* **Bounded.**  At most :attr:`GameConfig.talk_limit` messages per player per
  turn, and the same message is not offered twice in one turn, so games end.
  Answering a truce offer is not a message and costs nothing; an offer asks
  exactly one extra decision.
* ``GameConfig.talk == "none"``: the silent game, no talk action is legal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

try:
    import cython
except ImportError:         # run from source without Cython: its decorators do nothing (_cython_shim)
    from .. import _cython_shim as cython

from ..rules import Role
from .state import Decision, DecisionKind, GameState, Player

__all__ = ["TalkMixin", "TalkState", "TalkMessage", "Deal", "TALK_KINDS", "SPOKEN_KINDS"]

_ROLES = tuple(Role)
"""Each :class:`Role` at its value's index (``Role(v)`` without the enum's call)."""
_ROLE_NAMES = tuple(r.name for r in _ROLES)
"""Each role's name at its value's index (``Role.name`` is an enum property that runs
Python code at every read)."""

TALK_KINDS = ("claim", "accuse", "defend", "threaten", "protect", "request", "offer", "accept", "reject")
"""Kinds of :class:`TalkMessage`; "accept" and "reject" are answers to an offer."""
SPOKEN_KINDS = frozenset(TALK_KINDS[:7])
"""Kinds that count against :attr:`GameConfig.talk_limit` (answers do not)."""
_PAIR_KINDS = ("accuse", "defend", "threaten", "protect", "offer")


@dataclass(frozen=True, slots=True)
class TalkMessage:
    """One message said at the table (public).

    Attributes:
        turn: the turn it was said in.
        speaker: absolute seat of the speaker.
        kind: one of :data:`TALK_KINDS`.
        subject: absolute seat it is about (accuse, defend, threaten, protect,
            offer; for accept/reject the seat that offered), else None.
        role: the role it names (claim, accuse), else None.
    """

    turn: int
    speaker: int
    kind: str
    subject: int | None = None
    role: Role | None = None

    def __deepcopy__(self, memo: dict) -> "TalkMessage":   # immutable: clones share it
        return self

    def words(self) -> str:
        """The message as a sentence, e.g. ``"P2: P4 is an Assassin"``."""
        who = f"P{self.speaker}"
        x = f"P{self.subject}" if self.subject is not None else ""
        r = _role_words(self.role)
        return {
            "claim": f'{who}: "I am {r}"',
            "accuse": f'{who}: "{x} is {r}"',
            "defend": f'{who}: "{x} is on my side"',
            "threaten": f'{who}: "I will attack {x}"',
            "protect": f'{who}: "I will protect {x}"',
            "request": f'{who}: "Don\'t attack me"',
            "offer": f'{who} offers {x} a truce until {who}\'s next turn',
            "accept": f"{who} accepts {x}'s truce",
            "reject": f"{who} rejects {x}'s truce",
        }[self.kind]


@dataclass(frozen=True, slots=True)
class Deal:
    """A standing truce: ``dealer`` offered it, ``partner`` accepted it in
    ``turn``; it ends as the dealer's next turn starts.  ``base`` holds the
    public hostility (``harm + attacks``) dealer -> partner and partner ->
    dealer when it was struck, to tell at the end who broke it."""

    dealer: int
    partner: int
    turn: int
    base: tuple[int, int] = (0, 0)

    def __deepcopy__(self, memo: dict) -> "Deal":
        return self

    def involves(self, a: int, b: int) -> bool:
        """Whether the truce is between seats ``a`` and ``b`` (either way round)."""
        return {a, b} == {self.dealer, self.partner}


_new_object = object.__new__
# the slots' own setters (member descriptors): a frozen class's slots are set through them
_set_turn, _set_speaker, _set_kind, _set_subject, _set_role = (
    TalkMessage.__dict__[f].__set__ for f in ("turn", "speaker", "kind", "subject", "role"))


def _message(turn: int, speaker: int, kind: str, subject: int | None = None,
             role: Role | None = None) -> TalkMessage:
    """``TalkMessage(turn, speaker, kind, subject, role)``, made as the dataclass's own
    ``__init__`` makes it (a frozen class: each slot set past its ``__setattr__``),
    without calling the class: that call runs the generated ``__init__`` as Python code
    even in the compiled engine, which made it most of the cost of a message."""
    m = _new_object(TalkMessage)
    _set_turn(m, turn)
    _set_speaker(m, speaker)
    _set_kind(m, kind)
    _set_subject(m, subject)
    _set_role(m, role)
    return m


def _role_words(role: Role | None) -> str:
    if role is None:
        return ""
    name = Role(role).name.title()
    return ("an " if name[0] in "AEIOU" else "a ") + name


class TalkState:
    """Everything said at the table so far (all public; plain data).

    Attributes:
        messages: every :class:`TalkMessage`, in order.
        claims: seat -> its latest claim.
        stances: ``(speaker, subject)`` -> the speaker's latest accuse/defend
            message about the subject.
        intents: ``(speaker, subject)`` -> latest threaten/protect message.
        requests: seat -> its latest request.
        deals: the standing truces (:class:`Deal`).
        broken: ``(breaker, victim)`` -> the turn a truce between them ended
            broken by ``breaker`` (latest).
        hurt_at_start: per seat, the harm and attacks it had received from
            other seats when the current turn began (public history), to open
            the reaction window.
    """

    __slots__ = ("messages", "claims", "stances", "intents", "requests", "deals", "broken", "hurt_at_start")

    def __init__(self, n: int):
        self.messages: list[TalkMessage] = []
        self.claims: dict[int, TalkMessage] = {}
        self.stances: dict[tuple[int, int], TalkMessage] = {}
        self.intents: dict[tuple[int, int], TalkMessage] = {}
        self.requests: dict[int, TalkMessage] = {}
        self.deals: list[Deal] = []
        self.broken: dict[tuple[int, int], int] = {}
        self.hurt_at_start: tuple[int, ...] = (0,) * n

    def record(self, m: TalkMessage) -> None:
        """Add ``m`` and update the latest-statement tables."""
        self.messages.append(m)
        k = m.kind
        if k == "claim":
            self.claims[m.speaker] = m
        elif k in ("accuse", "defend"):
            self.stances[(m.speaker, m.subject)] = m
        elif k in ("threaten", "protect"):
            self.intents[(m.speaker, m.subject)] = m
        elif k == "request":
            self.requests[m.speaker] = m

    @cython.locals(messages=list, i=cython.long)
    def said_this_turn(self, seat: int, turn: int) -> list[TalkMessage]:
        """The messages ``seat`` said in ``turn`` that count against the limit, latest first."""
        out = []
        messages = self.messages
        i = len(messages)
        while i > 0:            # from the latest back (by index: a reversed() iterator cost more than the loop)
            i -= 1
            m = messages[i]
            if m.turn != turn:
                break
            if m.speaker == seat and m.kind in SPOKEN_KINDS:
                out.append(m)
        return out

    def has_deal(self, a: int, b: int) -> bool:
        """Whether a truce between ``a`` and ``b`` stands."""
        return any(d.involves(a, b) for d in self.deals)

    @classmethod
    def from_view(cls, talk: Any, n: int) -> "TalkState":
        """A state holding what a :class:`~treachery_env.view.TalkView`
        shows (all of it is public), e.g. for a determinized game."""
        t = cls(n)
        t.messages = list(talk.messages)
        t.claims = dict(talk.claims)
        t.stances = dict(talk.stances)
        t.intents = dict(talk.intents)
        t.requests = dict(talk.requests)
        t.deals = list(talk.deals)
        t.broken = dict(talk.broken)
        t.hurt_at_start = tuple(talk.hurt_at_start)
        return t


_TALK_TABLES: dict[tuple, tuple[tuple, dict]] = {}


def _talk_table(layout: Any, seat: int, others: tuple[int, ...]) -> tuple[tuple, dict]:
    """Every message ``seat`` could say with the seats ``others`` still in the
    game, in option order: claims by role, accusations by relative seat then
    role, defend / threaten / protect by relative seat, the request, offers by
    relative seat.  Returns ``(options, position)``: the ``(action, ("talk",
    key))`` option of each message and the position of each key ``(kind,
    subject, role)``.  Built once per table size, TALK offset (a layout with the PLANAR
    block, Planechase, has TALK one further on), seat and set of remaining seats and shared
    by every game (never modify it)."""
    n = layout.n
    ck = (n, layout.TALK, seat, others)
    table = _TALK_TABLES.get(ck)
    if table is not None:
        return table
    keys: list = []
    opts: list = []

    def add(action: int, key: tuple) -> None:
        keys.append(key)
        opts.append((action, ("talk", key)))

    base = layout.talk("claim")
    for r in range(4):
        add(base + r, ("claim", None, r))
    rels = sorted((s - seat) % n for s in others)
    base = layout.talk("accuse")
    for rel in rels:
        for r in range(4):
            add(base + 4 * rel + r, ("accuse", (seat + rel) % n, r))
    for kind in ("defend", "threaten", "protect"):
        base = layout.talk(kind)
        for rel in rels:
            add(base + rel, (kind, (seat + rel) % n, None))
    add(layout.talk("request"), ("request", None, None))
    base = layout.talk("offer")
    for rel in rels:
        add(base + rel, ("offer", (seat + rel) % n, None))
    table = (tuple(opts), {k: i for i, k in enumerate(keys)})
    if len(_TALK_TABLES) > 20000:      # bounded: many table sizes and eliminations in one process
        _TALK_TABLES.clear()
    _TALK_TABLES[ck] = table
    return table


class TalkMixin:
    """Table talk (TR10.5): methods of :class:`~treachery_env.engine.game.Game`
    (see the module docstring for the rules)."""

    @cython.locals(self=GameState, total=cython.long, s=cython.long, harm=list, attacks=list, row=list)
    def _hurt_total(self, seat: int) -> int:
        """Harm and attacks ``seat`` has received from other seats (public history)."""
        harm, attacks = self.harm, self.attacks
        s = seat
        total = -harm[s][s] - attacks[s][s]
        for row in harm:
            total += row[s]
        for row in attacks:
            total += row[s]
        return total

    @cython.locals(self=GameState, p=Player)
    def talk_window(self, seat: int) -> bool:
        """Whether ``seat`` may talk when it has priority now: an empty stack
        and either its own main phase, or the end step of another player's
        turn in which another player attacked or harmed it (public facts only).
        False in the silent game."""
        if not self.talk_on or self.stack:
            return False
        p = self.players[seat]
        if p.has_lost:
            return False
        ph = self.phase
        if seat == self.active:
            return ph == "main1" or ph == "main2"
        return ph == "end" and self._hurt_total(seat) > self.talk.hurt_at_start[seat]

    @cython.locals(self=GameState, n=cython.long, pos=dict)
    def _talk_options(self, seat: int) -> list:
        """The talk actions of ``seat`` at its priority now, as ``(action,
        ("talk", (kind, subject, role)))`` options (empty outside a window or
        once the limit is reached): every message of :func:`_talk_table` not
        said this turn, offers only to seats without a standing truce."""
        if not self.talk_window(seat):
            return []
        t = self.talk
        said = t.said_this_turn(seat, self.turn)
        if len(said) >= self.config.talk_limit:
            return []
        n = self.n
        players = self.players
        others = tuple([s for s in range(n) if s != seat and not players[s].has_lost])    # no generator object
        opts, pos = _talk_table(self.layout, seat, others)
        drop = set()
        for m in said:          # the messages said this turn are not offered again
            i = pos.get((m.kind, m.subject, None if m.role is None else int(m.role)))
            if i is not None:
                drop.add(i)
        for d in t.deals:       # nor a truce to a seat one already stands with
            if d.dealer == seat or d.partner == seat:
                i = pos.get(("offer", d.partner if d.dealer == seat else d.dealer, None))
                if i is not None:
                    drop.add(i)
        if not drop:
            return list(opts)
        out: list = []
        k = 0
        for i in sorted(drop):
            out += opts[k:i]
            k = i + 1
        out += opts[k:]
        return out

    @cython.locals(self=GameState)
    def _can_talk(self, seat: int) -> bool:
        """Whether ``seat`` has a talk action now: ``bool(self._talk_options(seat))``
        without building the options (the same conditions, first found first)."""
        if not self.talk_window(seat):
            return False
        t = self.talk
        said = t.said_this_turn(seat, self.turn)
        if len(said) >= self.config.talk_limit:
            return False
        done = {(m.kind, m.subject, None if m.role is None else int(m.role)) for m in said}
        if ("request", None, None) not in done or any(("claim", None, r) not in done for r in range(4)):
            return True
        for s in range(self.n):
            if s == seat or self.players[s].has_lost:
                continue
            if any(("accuse", s, r) not in done for r in range(4)):
                return True
            if any((kind, s, None) not in done for kind in ("defend", "threaten", "protect")):
                return True
            if ("offer", s, None) not in done and not t.has_deal(seat, s):
                return True
        return False

    @cython.locals(self=GameState)
    def _say(self, seat: int, kind: str, subject: int | None, role: int | None) -> None:
        """``seat`` says a message (TR10.5): public, recorded, never binding.
        An offer asks its subject to accept or reject at once.  ``role``: a
        :class:`Role` value (0-3) or None."""
        r = None if role is None else _ROLES[role]
        m = _message(self.turn, seat, kind, subject, r)
        self.talk.record(m)
        # lower() makes a new string for each entry, as the enum's name.lower() did (entries sharing
        # one string would pickle otherwise)
        self._log("talk", seat=seat, kind=kind, subject=subject,
                  role=None if role is None else _ROLE_NAMES[role].lower())
        if kind == "offer":
            L = self.layout
            self.decision = Decision(subject, DecisionKind.DEAL, [(L.PASS, None), (L.talk("accept"), True)],
                                     "_h_deal", (seat, subject),
                                     f"P{seat} offers you a truce (neither attacks or harms the other until "
                                     f"P{seat}'s next turn; never binding): accept?",
                                     ["reject the truce", "accept the truce"])

    def _h_deal(self, ctx: tuple[int, int], payload: Any) -> None:
        """The answer to a truce offer: accepted (``True``) or rejected (PASS)."""
        dealer, partner = ctx
        accept = payload is True
        m = _message(self.turn, partner, "accept" if accept else "reject", dealer)
        self.talk.record(m)
        self._log("talk", seat=partner, kind=m.kind, subject=dealer, role=None)
        if accept and not self.talk.has_deal(dealer, partner):
            h, a = self.harm, self.attacks
            self.talk.deals.append(Deal(dealer, partner, self.turn,
                                        (h[dealer][partner] + a[dealer][partner], h[partner][dealer] + a[partner][dealer])))

    def _talk_new_turn(self, seat: int) -> None:
        """As ``seat``'s turn starts: its truces end (and those of players who
        left), and the reaction window's baseline is taken."""
        t = self.talk
        if t.deals:
            keep = []
            for d in t.deals:
                if d.dealer == seat or self.players[d.dealer].has_lost or self.players[d.partner].has_lost:
                    self._end_deal(d)
                else:
                    keep.append(d)
            t.deals = keep
        if self.talk_on:
            t.hurt_at_start = tuple(self._hurt_total(j) for j in range(self.n))

    def _end_deal(self, d: Deal) -> None:
        h, a = self.harm, self.attacks
        broken = []
        if h[d.dealer][d.partner] + a[d.dealer][d.partner] > d.base[0]:
            broken.append(d.dealer)
        if h[d.partner][d.dealer] + a[d.partner][d.dealer] > d.base[1]:
            broken.append(d.partner)
        for s in broken:
            self.talk.broken[(s, d.partner if s == d.dealer else d.dealer)] = self.turn
        self._log("deal_ended", seat=d.dealer, partner=d.partner, broken_by=broken)
