"""Words for the game: actions, card texts, log events and a text picture of
the board that hides what the viewer cannot see (DESIGN section 4:
``describe_action``, ``ansi``/``human`` rendering; issue #15, a readable game).

* :func:`describe_action` / :func:`option_text`: an action in words.
* :func:`card_text`: the full text of any card, token or identity card.
* :func:`format_event`: a log entry as a sentence (:data:`EVENT_KINDS`).
* :func:`render_view`: the board from a :class:`~treachery_env.view.SeatView`
  only; :func:`render` (``Game.render_text``, ``env.render()``) uses it.

Same-named permanents (two Web Weavers, three Soldier tokens) are told apart by a
number, since people never see uids: a creature or planeswalker gets, as it enters
the battlefield, the lowest number no permanent of its name on the battlefield has
then (anyone's: the battlefield is public), and keeps it until it leaves.  Number 1
is not written, so a lone Web Weaver is "Web Weaver" and one that enters beside it is
"Web Weaver #2" (a third, "#3"; if the first has left meanwhile, the next one is
"Web Weaver" again).  Two permanents of one name on the battlefield at once never
share a number, so every line that names one is unambiguous: the board lines, the
log (attacks, blocks, damage, targets, enters and leaves, ...: the engine adds a
``"labels"`` list to an entry that names a numbered permanent, ``Game._labels``) and
the options (:func:`option_text`, :func:`choices`).  The number is
``CreatureView.ordinal`` / ``PlaneswalkerView.ordinal`` (``Game._number``); the terminal
and the web table both show it through this module.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import TYPE_CHECKING, Any, NamedTuple

from . import identities
from . import planes, schemes, throne_cards, throne_roles, vanguards
from .actions import TOKEN_ABILITIES
from .cards import CARD_INDEX, COUNTER_TOKENS, KEYWORDS, TOKENS
from .engine import DecisionKind
from .engine.planechase import PLANAR_DIE
from .engine.state import Attackable, numbered_name
from .rules import Role

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game
    from .view import SeatView

__all__ = ["describe_action", "option_text", "choices", "render", "render_view", "board_sections", "BoardSections",
           "PRIORITY_QUESTION", "format_event",
           "card_text", "card_names", "find_name", "view_names", "unveil_cost_text", "EVENT_KINDS"]


def _who(game: "Game", viewer: int, seat: int) -> str:
    return "yourself" if seat == viewer else f"P{seat}"


def describe_action(game: "Game", action: int, seat: int | None = None) -> str:
    """What ``action`` means for the seat now deciding (or ``seat``), in words.

    Uses the pending decision when the action is one of its options (e.g.
    "cast Shock", "attack P3 with Grove Bear"); otherwise describes the action
    block generically.

    Raises:
        ValueError: if ``action`` is outside the action space.
    """
    L = game.layout
    block, i, j = L.decode(action)
    d = game.decision
    viewer = seat if seat is not None else (d.seat if d is not None else 0)
    if block == "CONCEDE":
        return "concede the game (you lose; CR 104.3a)"
    if d is not None and (seat is None or seat == d.seat):
        k = d.index_of(action)
        if k is not None:
            text = option_text(game, d, k)
            if text is not None:
                return text
    # generic meaning of the block
    if block == "PASS":
        return "pass / done"
    if block == "HAND":
        return f"hand card #{i}"
    if block == "COMMANDER":
        return "cast your commander"
    if block == "UNVEIL":
        return f"unveil your identity with X={i}"
    if block == "IDENTITY_AB":
        return f"activate identity ability #{i}"
    if block == "TOKEN_AB":
        return f"activate a {TOKEN_ABILITIES[i]} token"
    if block == "OTHER":
        return f"cast or play card #{i} you may use from another zone"
    if block == "PLAYER":
        return f"player at relative seat {i}"
    if block == "PERM":
        return f"creature slot {j} of relative seat {i}"
    if block == "STACK":
        return f"stack object {i} from the top"
    if block == "WALKER":
        if i == game.n:
            if game.social is not None and j == 0:
                return "the Throne, in the middle of the table (no one controls it)"
            return f"uncontrolled attackable permanent slot {j}"
        return f"planeswalker slot {j} of relative seat {i}"
    if block == "LOYALTY":
        return f"loyalty ability #{j} of your planeswalker in slot {i}"
    if block == "PLANAR":               # Planechase: the planar die (CR 901.9)
        return _planar_die_words(game.planar.rolls if game.planar is not None else 0)
    if block == "HOLDING":              # Throne Magic: Holding i of the game
        return f"the Holding {game.social.holdings[i].name}" if game.social.holdings else f"Holding #{i}"
    if block == "TALK":
        kind, rel, role = L.talk_decode(action)
        if kind == "accept":
            return "accept the truce offered to you"
        subject = None if kind in ("claim", "request") else game.abs_seat(viewer, rel)
        return _talk_words(game, viewer, kind, subject, role)
    return f"option {i}"


def option_text(game: "Game", d: Any, k: int) -> str | None:
    """Option ``k`` of decision ``d`` (the game's pending one) in words, for
    the deciding seat: its label when the decision has labels, else words made
    from its payload; None when the payload has no words of its own (then
    :func:`describe_action` gives the action block's generic meaning)."""
    action, payload = d.options[k]
    if action == game.layout.CONCEDE:
        return "concede the game (you lose; CR 104.3a)"
    viewer = d.seat
    if d.handler in _THRONE_HANDLERS:
        return _throne_option(game, d, payload)
    if d.labels is not None and len(d.labels) == len(d.options):
        return str(d.labels[k])
    p = game.players[d.seat]
    if d.kind == DecisionKind.BOTTOM:
        return f"put {p.hand[payload].name} on the bottom of your library"
    if d.kind == DecisionKind.MULLIGAN:
        return "keep this hand" if payload == "keep" else "take a mulligan"
    if d.kind == DecisionKind.PRIORITY:
        if payload is None:
            return "pass priority"
        kind, arg = payload
        if kind == "talk":
            return _talk_words(game, viewer, *arg)
        if kind == "land":
            return "play a land"
        if kind == "cast":
            return f"cast {p.hand[arg].name}"
        if kind == "commander":
            return f"cast your commander {p.commander.name} (tax {2 * p.commander_casts})"
        if kind == "unveil":
            cost = p.identity.unveil_cost
            return f"unveil {p.identity.name}" + (f" with X={arg}" if cost and cost.x else "")
        if kind == "identity_ability":
            from .identity_abilities import IMPLEMENTATIONS
            return f"activate {p.identity.name}: {IMPLEMENTATIONS[p.identity.name].activated[arg].text}"
        if kind == "token":
            return f"activate a {arg} token"
        if kind == "loyalty":
            w = p.attackables[arg[0]]
            return f"activate {_label(w)} (loyalty {w.loyalty}): {w.card.abilities[arg[1]]['text']}"
        if kind == "permission":
            perm = p.permissions[arg]
            verb = "play" if perm["card"].is_land else "cast"
            return f"{verb} {perm['card'].name} from {perm['zone']}" + (" for free" if perm["free"] else "")
        if kind == "throne_creature":           # Throne Magic: a creature's Throne ability (engine/throne.py)
            slot, key = arg
            c = p.creatures[slot]
            if key == "throne_give":            # "Giving Creatures to the Monarch"
                return f"give {_label(c)} to the Throne's controller (P{game.social.throne.controller})"
            return f"give {_label(c)} to a player of your choice"   # "The Monarch Distributing Creatures"
        if kind == "planar_die":                # Planechase: the special action of CR 901.9
            return _planar_die_words(arg)
    if d.kind == DecisionKind.ATTACKER:
        return "finish declaring attackers" if payload is None else f"attack with {_label(payload)}"
    if d.kind == DecisionKind.DEFENDER:
        if not isinstance(payload, int):
            if payload.kind == "throne" or payload.kind == "holding":    # "Attacking the Throne", Holdings
                where = ("in the middle of the table, no one defends it" if payload.controller < 0
                         else f"P{payload.controller}'s")
                what = "the Throne, " if payload.kind == "throne" else "the Holding "
                return f"{_label(d.ctx)} attacks {what}{payload.name} ({where})"
            return (f"{_label(d.ctx)} attacks {_label(payload)} (P{payload.controller}'s planeswalker, "
                    f"loyalty {payload.loyalty})")
        return f"{_label(d.ctx)} attacks P{payload}"
    if d.kind == DecisionKind.BLOCKER:
        return "finish declaring blockers" if payload is None else f"block with {_label(payload)}"
    if d.kind == DecisionKind.BLOCKED:
        return f"{_label(d.ctx[1])} blocks {_label(payload)} (P{payload.controller})"
    if d.kind == DecisionKind.COST and payload == "land":
        return "sacrifice a land"            # The Bio-Engineer's sacrifice cost
    if d.kind == DecisionKind.COST and hasattr(payload, "base_power"):
        return f"sacrifice {_label(payload)}"
    if d.kind in (DecisionKind.DISCARD, DecisionKind.COST):
        verb = "discard" if d.kind == DecisionKind.DISCARD else "pay with"
        return f"{verb} {p.hand[payload].name}"
    if d.kind == DecisionKind.NUMBER:
        return f"X = {payload}"
    if payload is None:
        return "done / no more"
    if isinstance(payload, tuple) and len(payload) == 2 and payload[0] in ("p", "c", "s", "w"):
        kind, obj = payload
        if kind == "p":
            return f"target {_who(game, viewer, obj)}"
        if kind == "c":
            return f"target {_label(obj)} (P{obj.controller})"
        if kind == "w":
            return f"target {_label(obj)} (P{obj.controller}'s planeswalker, loyalty {obj.loyalty})"
        return f"target {obj.label or obj.source} on the stack"
    if hasattr(payload, "base_power"):
        return f"{_label(payload)} (P{payload.controller})"
    if isinstance(payload, Attackable) and payload.kind == "planeswalker":     # chosen, not targeted
        return f"{_label(payload)} (P{payload.controller}'s planeswalker, loyalty {payload.loyalty})"
    return None


_THRONES = frozenset(c.name for c in throne_cards.thrones())
"""Throne Magic's Thrones' names (a logged attackable of one of them is the Throne: an entry names no kind)."""
_ROLES = frozenset(throne_roles.names())
"""Throne Magic's Role cards' names."""
_HOLDINGS = frozenset(c.name for c in throne_cards.holdings())
"""Throne Magic's Holdings' names."""
_SEASONS = frozenset(c.name for c in throne_cards.seasons())
"""Throne Magic's Seasons' names."""
_THRONE_MAGIC_NAMES = tuple(sorted(_THRONES | _ROLES | _HOLDINGS | _SEASONS))
"""Every Throne Magic name :func:`card_text` knows, for :func:`find_name`."""
_SCHEMES = frozenset(schemes.names())
"""Archenemy's schemes' names (CR 904)."""
_VANGUARDS = vanguards.names()
"""The Vanguard cards' names (CR 902), which :func:`card_text` and :func:`find_name` know."""
_PLANECHASE_NAMES = tuple(sorted(planes.names() + (PLANAR_DIE,)))
"""Every Planechase name :func:`card_text` knows (planes, phenomena, the die), for :func:`find_name`."""


def _planar_die_words(cost: int) -> str:
    """The planar-die special action in words, with its cost now (CR 901.9)."""
    return (f"roll the planar die (costs {{{cost}}}: chaos 1 in 6, planeswalk 1 in 6, blank 4 in 6; "
            f"CR 901.9)")
_THRONE_HANDLERS = frozenset(("_h_choose_throne", "_h_throne_take", "_h_throne_may", "_h_throne_accept",
                              "_h_draft_role", "_h_holding_take"))
"""The handlers of Throne Magic's own decisions (engine/throne.py), worded by :func:`_throne_option`."""


def _throne_option(game: "Game", d: Any, payload: Any) -> str:
    """An option of a Throne Magic decision in words, for its deciding seat (who knows its own
    Role: the take option says what it does for that Role)."""
    if d.handler == "_h_choose_throne":         # "Choosing a Throne Card for the Game"
        return f"choose {payload} as the game's Throne"
    if d.handler == "_h_draft_role":            # "Choosing Role Cards for the Game", Draft
        return f"choose {payload} to be in the game"
    if d.handler == "_h_holding_take":          # "Holdings (Advanced)": anyone may take one
        w, seat, rest = d.ctx
        if payload:
            return f"take {w.name}"
        if rest:
            return f"decline {w.name}: {_and([_p(s) for s in rest])} may take it next"
        return f"decline {w.name}: it " + ("goes to" if w.controller >= 0 and w.controller != seat
                                           else "stays in") + " the middle of the table"
    if d.handler == "_h_throne_may":            # "Throne Abilities": a "may" ability
        item = d.ctx
        return f"use {item.source}'s ability" if payload else f"don't use {item.source}'s ability"
    if d.handler == "_h_throne_accept":         # the receiver of a creature's Throne ability
        item, _ = d.ctx
        c = item.creature
        return f"accept {_label(c)} from P{item.controller}" if payload else f"refuse {_label(c)}"
    seat, rest = d.ctx                          # "Taking the Throne", "Controlling the Throne"
    w = game.social.throne
    if rest:
        otherwise = f"{_and([_p(s) for s in rest])} may take it next"
    elif w.controller >= 0 and w.controller != seat:
        otherwise = "it goes to the middle of the table"
    else:
        otherwise = "it stays in the middle of the table"
    if not payload:
        return f"decline the Throne: {otherwise}"
    if game.social.claimant(seat):
        return f"take the Throne, {w.name}"
    return f"take the Throne: only a Claimant can, and you are not one, so {otherwise}"


def _label(obj: Any) -> str:
    """A creature's or planeswalker's name as people see it (the engine's object or its
    view): ``"Web Weaver #2"`` for an ordinal of 2 or more, else the name (see the module
    docstring; :func:`~treachery_env.engine.state.numbered_name`)."""
    return numbered_name(obj.name, getattr(obj, "ordinal", 1))


def _role_name(role: int | None) -> str:
    name = Role(role).name.title()
    return ("an " if name[0] in "AEIOU" else "a ") + name


def _talk_words(game: "Game", viewer: int, kind: str, subject: int | None, role: int | None) -> str:
    """A talk action in words, for the speaker (TR10.5: only words, never binding)."""
    x = f"P{subject}" if subject is not None else ""
    if kind == "claim":
        return f'say "I am {_role_name(role)}" (true or false)'
    if kind == "accuse":
        return f'accuse {x}: "{x} is {_role_name(role)}"'
    if kind == "defend":
        return f'defend {x}: "{x} is on my side"'
    if kind == "threaten":
        return f'threaten {x}: "I will attack {x}"'
    if kind == "protect":
        return f'promise {x}: "I will protect {x}"'
    if kind == "request":
        return 'ask the table: "Don\'t attack me"'
    if kind == "offer":
        return f"offer {x} a truce until your next turn (never binding)"
    return f"talk: {kind}"


# ------------------------------------------------------------------------------------------ card text
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_BASIC_LANDS = frozenset(("Wastes", "Plains", "Island", "Mountain", "Swamp"))
_KEYWORD_REMINDERS = {     # CR 702: what the engine does with each keyword
    "flying": "can't be blocked except by creatures with flying or reach",
    "reach": "can block creatures with flying",
    "haste": "can attack the turn it comes under your control",
    "vigilance": "attacking doesn't cause it to tap",
    "lifelink": "damage dealt by it also causes its controller to gain that much life",
    "deathtouch": "any amount of damage it deals to a creature is enough to destroy it",
    "trample": "combat damage beyond what its blockers need goes to the player or planeswalker it attacks",
    "menace": "can't be blocked except by two or more creatures",
    "defender": "can't attack",
    "first_strike": "deals combat damage before creatures without first strike",
    "double_strike": "deals both first-strike and regular combat damage",
}
_TARGET_NOUNS = {
    "any": "any target", "creature": "target creature", "player": "target player", "spell": "target spell",
    "noncreature_spell": "target noncreature spell", "instant_sorcery_spell": "target instant or sorcery spell",
    "nonland_permanent": "target nonland permanent", "permanent": "target permanent",
    "leader_player": "target Leader player",
    "stack_object": "target spell or ability whose source is not an identity card",
    "instant_sorcery_or_ability": "target instant or sorcery spell or ability",
}
_TOKEN_ABILITY_TEXT = {    # the engine's counted artifact tokens (engine/stack.py _activate_token, costs.py)
    "Treasure": "Sacrifice this token: add one mana. (Treasures are spent automatically, after your mana pool "
                "and untapped lands, whenever you pay mana.)",
    "Clue": "{2}, Sacrifice this token: Draw a card.",
    "Food": "{2}, Sacrifice this token: You gain 3 life.",
    "Blood": "{1}, Discard a card, Sacrifice this token: Draw a card.",
    "Map": "{1}, Sacrifice this token: Target creature you control explores. Activate only as a sorcery. "
           "(Reveal the top card of your library. If it's a land card, put it into your hand; otherwise put a "
           "+1/+1 counter on that creature and leave the card on top. CR 701.40)",
    "Junk": "Sacrifice this token: Draw a card. Activate only as a sorcery. (It stands in for \"exile the top "
            "card of your library; you may play it this turn\".)",
    "Explosive": "No ability of its own: The Grenadier's ability sacrifices an Explosive ({1}, sacrifice an "
                 "Explosive: destroy target nonland permanent or target player loses 3 life).",
}
_ROLE_TEXT = {             # CR 907.4-907.7: how each identity type wins and loses
    Role.LEADER: "Starts face up and takes the first turn (CR 907.4, 907.6). Wins when every player other than "
                 "the Guardians has lost (CR 907.7b).",
    Role.GUARDIAN: "On the Leader's team: wins if the Leader wins, even after losing, and loses if the Leader "
                   "loses (CR 907.7c).",
    Role.ASSASSIN: "Wins if the Leader loses, even after losing; can't win once every Assassin has lost "
                   "(CR 907.7d-e).",
    Role.TRAITOR: "Has no team: every other player is an opponent; wins when all of them have lost (CR 907.7f).",
}
_ABILITY_KINDS = {"on_unveil": "When {name} is unveiled: ", "as_unveiled": "As {name} is unveiled: ",
                  "triggered": "Triggered: ", "activated": "Activated: ", "static": "Static: ", "other": ""}
_COUNTER_FORMULAS = {"number_of_players": "one for each player",
                     "floor(number_of_players / 2)": "half the number of players, rounded down"}


def _count(n: "int | str") -> str:
    """``n`` in words ("two"), or ``"X"``; digits from eleven on."""
    if n == "X":
        return "X"
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def _cards(n: "int | str") -> str:
    return "a card" if n == 1 else f"{_count(n)} cards"


def _a(n: "int | str", noun: str) -> str:
    """``"a noun"`` for one, else ``"two nouns"``."""
    if n == 1:
        return ("an " if noun[0] in "aeiouAEIOU" else "a ") + noun
    return f"{_count(n)} {noun}s"


def _and(words: list) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    if len(words) < 2:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _keywords(kws: "frozenset | set") -> list:
    """Keyword names in :data:`~treachery_env.cards.KEYWORDS` order, in words ("first strike")."""
    return [k.replace("_", " ") for k in KEYWORDS if k in kws]


def _token_phrase(name: str, n: "int | str") -> str:
    """``"create two 1/1 Soldier creature tokens"`` or ``"create a Treasure token"`` (CR 111)."""
    t = TOKENS[name]
    if t.type != "creature":
        return "create " + _a(n, f"{name} token")
    kws = _keywords(t.keywords)
    legend = "legendary " if t.legendary else ""
    return ("create " + _a(n, f"{t.power}/{t.toughness} {legend}{name} creature token")
            + (f" with {_and(kws)}" if kws else ""))


def _effect_sentence(e: dict, specs: tuple, source: str, said: set, card: str) -> str:
    """One effect primitive of ``card`` (data/cards.json; run by
    ``Game._op_effect`` in engine/effects.py) as a clause, lower-case first.

    ``specs`` are the targets it may refer to by index (``"t"``), ``source``
    names what deals damage, and ``said`` holds the target indices already
    named (later mentions say "it" / "that player").

    Raises:
        ValueError: for an op without words (a new primitive needs words here).
    """
    op = e["op"]
    n = e.get("n", 0)
    t = e.get("t")

    def target() -> str:
        if t == "self":
            return "it"
        spec = specs[t]
        if t in said:
            return "that player" if spec["type"] in ("player", "leader_player") else "it"
        said.add(t)
        if spec["type"] == "player" and spec.get("opponent"):
            return "target opponent"
        noun = ("another " + _TARGET_NOUNS[spec["type"]]) if spec.get("other") else _TARGET_NOUNS[spec["type"]]
        return noun + (" you control" if spec.get("own") else "")

    if op == "damage":                      # CR 120
        return f"{source} deals {n} damage to {target()}"
    if op == "damage_each_creature":
        return f"{source} deals {n} damage to each creature"
    if op == "destroy":                     # CR 701.8
        return f"destroy {target()}"
    if op == "exile":
        return f"exile {target()}"
    if op == "bounce":
        return f"return {target()} to its owner's hand"
    if op == "counter":                     # CR 701.5
        return f"counter {target()}"
    if op == "draw":                        # CR 121
        return f"draw {_cards(n)}" if t is None else f"{target()} draws {_cards(n)}"
    if op == "gain":                        # CR 119
        return f"you gain {n} life" if t is None else f"{target()} gains {n} life"
    if op == "lose":
        return f"{target()} loses {n} life"
    if op == "each_opponent_loses":         # opponents per CR 907.7g: everyone while face down
        return f"each opponent loses {n} life"
    if op == "head_games":
        who = target()
        return (f"{who} puts the cards from their hand on top of their library; you search that library for "
                "that many cards, that player puts them into their hand, then shuffles")
    if op == "extra_turn":                  # CR 500.7
        return "take an extra turn after this one"
    if op == "wipe":
        return "destroy all creatures"
    if op == "tokens":
        return _token_phrase(e["token"], n)
    if op == "pump":
        kw = _keywords(e.get("kw", ()))
        return (f"{target()} gets {e.get('p', 0):+d}/{e.get('q', 0):+d}" + (f" and gains {_and(kw)}" if kw else "")
                + " until end of turn")
    if op == "pump_team":
        return f"creatures you control get {e.get('p', 0):+d}/{e.get('q', 0):+d} until end of turn"
    if op == "counters":                    # CR 122
        return f"put {_a(n, '+1/+1 counter')} on {target()}"
    if op == "ramp":
        if n == 1:
            return "search your library for a land card, put it onto the battlefield tapped, then shuffle"
        return (f"search your library for up to {_count(n)} land cards, put them onto the battlefield tapped, "
                "then shuffle")
    if op == "tap":
        return f"tap {target()}"
    if op == "stun":                        # CR 122.1d
        return (f"put {_a(n, 'stun counter')} on {target()} (if a permanent with a stun counter would become "
                "untapped, remove one from it instead)")
    if op == "discard":                     # the discarding player chooses (CR 701.9)
        return f"{target()} discards {_cards(n)}"
    if op == "fog":                         # CR 615
        return "prevent all combat damage that would be dealt this turn"
    if op == "look_at_role":                # Throne Magic (Throne of Visions, "Throne Abilities")
        return f"look at {target()}'s Role card"
    if op == "lose_self":                   # Throne Magic (Winter): the player the ability is about
        return f"that player loses {n} life"
    if op == "prevent_until_planeswalk":    # Planechase (CR 901.12)
        return "prevent all damage that would be dealt to you and permanents you control until a player planeswalks"
    raise ValueError(f"no words for effect op {op!r} of {card!r}: add them to treachery_env/text.py")


def _effects_text(effects: tuple, specs: tuple, source: str, card: str) -> list:
    """The clauses of an effect list, in order (see :func:`_effect_sentence`)."""
    said: set = set()
    return [_effect_sentence(e, specs, source, said, card) for e in effects]


def _pool_card_text(c: Any) -> list:
    """The lines of a pool card's text (:class:`~treachery_env.cards.CardDef`)."""
    cost = "" if c.is_land else " " + ("{X}" if c.x else "") + (f"{{{c.cost}}}" if c.cost or not c.x else "")
    lines = [c.name + cost]
    kind = {"land": "Land", "creature": "Creature", "planeswalker": "Planeswalker", "instant": "Instant",
            "sorcery": "Sorcery"}[c.type]
    lines.append(("Basic " if c.name in _BASIC_LANDS else "") + ("Legendary " if c.legendary else "") + kind)
    if c.flash:
        lines.append("Flash (you may cast it any time you could cast an instant; CR 702.8)")
    for k in KEYWORDS:
        if k in c.keywords:
            lines.append(f"{_cap(k.replace('_', ' '))} ({_KEYWORD_REMINDERS[k]})")
    if c.is_land:
        lines.append("Tap: add one mana. (Lands are counted, not separate objects: untapped ones are tapped "
                     "automatically to pay costs.)")
    if c.is_planeswalker:           # CR 606: loyalty abilities, one per turn, as a sorcery
        for ab in c.abilities:
            words = _effects_text(ab["effects"], ab["targets"], c.name, c.name)
            lines.append(f"{ab['loyalty']:+d}: " + " ".join(_cap(s) + "." for s in words))
        lines.append("(Activate one loyalty ability of it per turn, any time you could cast a sorcery.)")
    elif c.effects:
        words = _effects_text(c.effects, c.targets, "it" if c.is_creature else c.name, c.name)
        if c.is_creature:           # an enters-the-battlefield trigger (CR 603.6a)
            words[0] = f"When {c.name} enters, {words[0]}"
        lines.append(" ".join(_cap(s) + "." for s in words))
    if c.is_creature:
        lines.append(f"{c.power}/{c.toughness}")
    if c.is_planeswalker:
        lines.append(f"Loyalty: {c.loyalty}")
    return lines


def _token_text(name: str) -> list:
    """The lines of a token's text (data/cards.json ``tokens``)."""
    t = TOKENS[name]
    if t.type != "creature":
        return [name, "Token Artifact — " + name, _TOKEN_ABILITY_TEXT[name],
                "(Noncreature artifact tokens are counted per player, not separate objects.)"]
    lines = [name, ("Legendary " if t.legendary else "") + "Token Creature — " + name]
    for k in KEYWORDS:
        if k in t.keywords:
            lines.append(f"{_cap(k.replace('_', ' '))} ({_KEYWORD_REMINDERS[k]})")
    lines.append(f"{t.power}/{t.toughness}")
    return lines


def unveil_cost_text(cost: Any) -> str:
    """An unveil cost (:class:`~treachery_env.identities.UnveilCost`, CR
    702.187c) in words, e.g. ``"{3}{X}, pay 2 life"``; ``"none (it starts
    face up)"`` for a Leader's missing cost, ``"free"`` for a zero cost."""
    if cost is None:
        return "none (it starts face up)"
    parts = []
    mana = (f"{{{cost.mana}}}" if cost.mana else "") + "{X}" * cost.x + "{Y}" * cost.y
    if mana:
        parts.append(mana)
    if cost.life:
        parts.append(f"pay {cost.life} life")
    for verb, spec, where in (("discard", cost.discard, ""), ("exile", cost.exile_from_hand, " from your hand"),
                              ("sacrifice", cost.sacrifice, "")):
        if spec:
            flt = "" if spec["filter"] == "any" else spec["filter"]
            whole = "permanent" if verb == "sacrifice" else "card"
            noun = flt if flt.endswith(whole) else f"{flt} {whole}".strip()
            parts.append(f"{verb} {_a(spec['count'], noun)}{where}")
    text = ", ".join(parts) or "free"
    if cost.reduction:
        text += f" (it costs {cost.reduction})"
    if cost.constraint:
        text += f" ({cost.constraint})"
    return text


def _identity_text(card: Any, simple: bool) -> list:
    """The lines of an identity card's text (:class:`~treachery_env.identities.Identity`)."""
    role = card.role.name.title()
    if simple:      # TR11: basic lands dealt as role cards
        lines = [card.name, f"Basic Land — {card.name}; in the simple-roles variant, the {role}'s role card (TR11)",
                 _ROLE_TEXT[card.role]]
        lines.append("It has no abilities. " + ("It starts face up." if card.unveil_cost is None else
                                                "Dealt face down; unveiling it is free and just turns it face up."))
        return lines
    lines = [card.name, f"Identity — {role} ({card.rarity}, card #{card.id})", _ROLE_TEXT[card.role]]
    if card.unveil_cost is not None:        # CR 702.187
        lines.append("Unveil — " + unveil_cost_text(card.unveil_cost) + " (pay this any time you have priority "
                     "to turn it face up; CR 702.187c)")
    if card.undercover:                     # CR 702.187f, TR5
        lines.append("Undercover — you can't unveil it until another non-Leader identity has been turned face up "
                     "or another player has attacked the Leader player (CR 702.187f).")
    for kind, formula in card.start.get("counters", {}).items():
        lines.append(f"It starts the game with {kind} counters: {_COUNTER_FORMULAS.get(formula, formula)}.")
    for ab in card.abilities:
        lines.append(_ABILITY_KINDS.get(ab["kind"], "").format(name=card.name) + ab["text"])
    return lines


@functools.lru_cache(maxsize=1)
def card_names() -> tuple[str, ...]:
    """Every name :func:`card_text` knows, sorted: the pool's cards, the tokens, the identities
    and the simple-roles lands (computed once)."""
    return tuple(sorted(set(CARD_INDEX) | set(TOKENS) | set(identities.names())
                        | set(identities.SIMPLE_ROLE_NAMES.values())))


def find_name(query: str, view: "SeatView | None" = None) -> str:
    """The card, token or identity name ``query`` means: equal to a name (case and spaces
    ignored), else the one name it begins, else the one name that contains it.

    With ``view`` (a seat's view, or the public one) the names of its game come first: those the
    view shows (:func:`view_names`: the board, the hand, the options, Throne Magic's Throne,
    Holdings, Season and Roles in the game, the face-up plane and schemes, the Vanguard cards),
    then every name of the kinds its game has (the pool's cards and the tokens; Treachery's
    identities, or Throne Magic's Roles, Thrones, Holdings and Seasons; the planes, Vanguard
    cards and schemes of the CR 900 variants it plays); among them an exact name comes before a
    beginning and a beginning before a part, the view's names first at each.  Only then the
    names of the other game and variants, in the same order.  Without ``view``, the game is
    plain Treachery.

    Raises:
        ValueError: (one line) when it names nothing or several names (listing up to eight).
    """
    key = " ".join(query.lower().split())
    if view is None:
        shown, game = (), card_names()
    else:
        shown = tuple(view_names(view))
        game = tuple(sorted(set(CARD_INDEX) | set(TOKENS)
                            | (set(_THRONE_MAGIC_NAMES) if view.throne_magic is not None
                               else set(identities.names()) | set(identities.SIMPLE_ROLE_NAMES.values()))
                            | (set(_VANGUARDS) if getattr(view, "vanguards", None) is not None else set())
                            | (_SCHEMES if view.schemes is not None else set())
                            | (set(_PLANECHASE_NAMES) if view.planechase is not None else set())))
    known = set(game)
    other = tuple(n for n in sorted(set(card_names()) | set(_THRONE_MAGIC_NAMES) | set(_VANGUARDS) | _SCHEMES
                                    | set(_PLANECHASE_NAMES)) if n not in known)
    for groups in ((shown, game), (other,)):
        for test in (lambda n: n.lower() == key, lambda n: n.lower().startswith(key), lambda n: key in n.lower()):
            for names in groups:
                found = [n for n in names if test(n)]
                if len(found) == 1:
                    return found[0]
                if len(found) > 1:
                    raise ValueError(f"{query!r} could be {', '.join(found[:8])}{', ...' if len(found) > 8 else ''}"
                                     f": type more of the name")
    raise ValueError(f"no card, token or identity is called {query!r}")


def view_names(view: "SeatView") -> list[str]:
    """The card, token and identity names in ``view`` (a seat's information set, or the public
    view): hands it may see, every creature, planeswalker, graveyard and exile card, commander,
    counted token, known identity, stack object's source, the cards it may look at and its
    options' cards, in Throne Magic the Throne and the Roles in the game, and in a Vanguard game
    the Vanguard cards, sorted.  Each has a :func:`card_text` (tests/test_play.py checks it in
    every variant)."""
    seen = set()
    for p in view.players:
        seen.update(p.hand or ())
        seen.update(p.graveyard)
        seen.update(p.exile)
        seen.update(c.name for c in p.creatures)
        seen.update(w.name for w in p.planeswalkers)
        seen.update(k for k, v in p.tokens.items() if v)
        seen.update(x for x in (p.commander, p.identity) if x)
    seen.update(s.source for s in view.stack)
    seen.update(view.dream)
    if view.schemes is not None:            # Archenemy: the face-up schemes (public)
        for up in view.schemes.face_up:
            seen.update(up)
    tm = view.throne_magic
    if tm is not None:                      # Throne Magic: the Roles in the game and the Throne (public)
        seen.update(tm.roles)
        seen.update(h.name for h in tm.holdings)
        if tm.throne is not None:
            seen.add(tm.throne)
        if tm.season is not None:
            seen.add(tm.season)
    vg = getattr(view, "vanguards", None)   # CR 902.3: face up in the command zone (public)
    if vg is not None:
        seen.update(vg)
    pc = view.planechase
    if pc is not None and pc.face_up is not None:      # Planechase: the face-up plane (public)
        seen.add(pc.face_up)
    if view.decision is not None:
        seen.update(o.card for o in view.decision.options if o.card)
    return sorted(seen)


def card_text(name: str) -> str:
    """The full text of a card, token or identity card, like its Oracle text.

    Lines: the name (with the mana cost for a spell, e.g. ``Blaze {X}{1}``),
    the type line, keywords with reminders, the rules text made from the
    card's effect primitives and targets (what the engine does), then
    power/toughness or loyalty.  A counted artifact token (Treasure, Clue, ...)
    has the ability the engine implements; an identity card its role and how
    that role wins (CR 907.7), its unveil cost (CR 702.187), Undercover (CR
    702.187f), starting counters and abilities.  Pool cards (``Wastes``
    included), tokens, the 62 identities and the simple-roles lands (Plains,
    Island, Mountain, Swamp; TR11) are known (:func:`card_names`), and so are
    Throne Magic's 7 Thrones and 17 Role cards (what the Throne does; whom the
    Role must eliminate) with its 17 Holdings and 4 Seasons, the Vanguard cards
    (CR 902: modifiers and ability), the schemes (CR 904) and the planar cards
    (CR 901), which :func:`find_name` looks among after Treachery's names unless
    a view says its game has them.

    Returns:
        the text, lines joined by ``"\\n"``.

    Raises:
        ValueError: ``unknown card, token or identity: 'X'`` for any other name.
    """
    c = CARD_INDEX.get(name)
    if c is not None:
        return "\n".join(_pool_card_text(c))
    if name in TOKENS:
        return "\n".join(_token_text(name))
    card = identities.find(name)
    if card is not None:
        return "\n".join(_identity_text(card, simple=False))
    if name in identities.SIMPLE_ROLE_NAMES.values():
        return "\n".join(_identity_text(identities.simple_role_card(name), simple=True))
    if name in _THRONES:
        return "\n".join(_throne_text(name))
    if name in _ROLES:
        return "\n".join(_throne_role_text(name))
    if name in _HOLDINGS:
        return "\n".join(_holding_text(name))
    if name in _SEASONS:
        return "\n".join(_season_text(name))
    if name in _SCHEMES:
        return "\n".join(_scheme_text(name))
    if name in _VANGUARDS:
        return "\n".join(_vanguard_text(name))
    if name in _PLANECHASE_NAMES:
        return "\n".join(_planar_text(name))
    raise ValueError(f"unknown card, token or identity: {name!r}")



def _throne_text(name: str) -> list:
    """The lines of a Throne card's text (Throne Magic, data/throne_cards.json)."""
    return [name, "Throne (Throne Magic)", throne_cards.get("throne", name).text,
            "Attacked like a planeswalker, by anyone, even while no one controls it; only combat damage affects "
            "it. A Claimant whose creature deals it combat damage may take control of it (\"Taking the Throne\")."]


def _planar_text(name: str) -> list:
    """The lines of a plane's or phenomenon's text (Planechase, data/planes.json), or the planar
    die's rules (``engine.planechase.PLANAR_DIE``, the planeswalking ability's source name)."""
    if name == PLANAR_DIE:
        return [name, "Planechase (CR 901.3a, 901.8-901.9)",
                "The active player may roll it in their main phase with priority and an empty stack, a special "
                "action costing {N} for the N-th roll that turn (the first is free). Chaos (1 in 6): the face-up "
                "plane's chaos ability triggers. Planeswalker symbol (1 in 6): \"planeswalk\" triggers (it has no "
                "source): the face-up plane goes to the bottom of its planar deck and a new one is turned face up. "
                "Blank (4 in 6): nothing happens."]
    card = planes.get(name)
    if card.is_phenomenon:
        return [name, "Phenomenon (Planechase)", card.text,
                "When it is face up and its encounter ability has left the stack, the planar controller "
                "planeswalks (CR 704.6f)."]
    return [name, "Plane (Planechase)", card.text, "Chaos: " + card.chaos_text]


def _holding_text(name: str) -> list:
    """The lines of a Holding's text (Throne Magic, data/throne_cards.json)."""
    return [name, "Holding (Throne Magic)", throne_cards.get("holding", name).text,
            "Attacked like a planeswalker, even while no one controls it; only combat damage affects it. "
            "Any player whose creature deals it combat damage may take control of it (\"Holdings\")."]


def _season_text(name: str) -> list:
    """The lines of a Season's text (Throne Magic, data/throne_cards.json)."""
    return [name, "Season (Throne Magic)", throne_cards.get("season", name).text,
            "The Season moves on at an untap step when a player left the game during the previous turn; "
            "nothing can affect or stop it (\"Seasons\")."]


def _scheme_text(name: str) -> list:
    """The lines of a scheme card's text (Archenemy, data/schemes.json; CR 311, 904)."""
    card = schemes.get(name)
    return [name, "Ongoing Scheme (Archenemy)" if card.ongoing else "Scheme (Archenemy)", card.text,
            "Set in motion from the top of its owner's scheme deck as their precombat main phase begins (CR 904.9)"
            + ("; stays face up until abandoned (CR 904.11)." if card.ongoing else
               "; then face down to the bottom of the deck (CR 904.10).")]
def _vanguard_words(name: str) -> str:
    """``"Warden of the Vale (life +6, hand -1)"``: a Vanguard card and its modifiers (CR 902.4-902.5)."""
    v = vanguards.get(name)
    return f"{name} (life {v.life:+d}, hand {v.hand:+d})"


def _vanguard_text(name: str) -> list:
    """The lines of a Vanguard card's text (CR 902, data/vanguards.json)."""
    v = vanguards.get(name)
    return [name, "Vanguard (CR 902)",
            f"Life modifier {v.life:+d}: its owner starts the game with that much more life (CR 902.4).",
            f"Hand modifier {v.hand:+d}: its owner's opening hand and maximum hand size are seven plus it "
            f"(CR 902.5, 902.5b).", v.text,
            "It stays face up in its owner's command zone all game; its ability works from there (CR 902.3, 902.7)."]


def _throne_role_text(name: str) -> list:
    """The lines of a Role card's text (Throne Magic, data/throne_roles.json)."""
    role = throne_roles.get(name)
    types = ", ".join(sorted(role.types))
    order = [r for r in throne_roles.names() if r in role.must_eliminate]
    return [name, "Role (Throne Magic)" + (f" — {types}" if types else ""),
            "Wins when these Roles in the game have all left it: " + ", ".join(order) + "."]


# ------------------------------------------------------------------------------------------ the board
_PHASE_WORDS = {"untap": "untap step", "upkeep": "upkeep", "draw": "draw step", "main1": "precombat main phase",
                "combat_begin": "beginning of combat", "declare_attackers": "declare attackers step",
                "declare_blockers": "declare blockers step", "first_strike_damage": "first-strike damage step",
                "combat_damage": "combat damage step", "combat_end": "end of combat", "main2": "postcombat main phase",
                "end": "end step", "cleanup": "cleanup step"}
_COMMANDER_ZONES = {"command": "in the command zone", "battlefield": "on the battlefield", "stack": "on the stack",
                    "out": "out of the game"}
_STACK_KINDS = {"spell": "spell", "ability": "activated ability", "trigger": "triggered ability"}
PRIORITY_QUESTION = "You have priority: act, or pass"
"""A priority window (a decision whose :meth:`~treachery_env.view.DecisionView.question` is
``"priority"``) as people are asked it: by the terminal, the notebook's table and, in lower case,
the board's "you decide" line.  The web page writes it out itself (``table/static/table.js``: its
prompt payload has the question, ``"priority"``, not these words)."""
_IDENTITY_LEGEND = "  identity: its name (role) when you know it (face up, your own, or shown to you), else hidden."
"""The legend's line for a Treachery player's identity; :data:`_ROLE_LEGEND` replaces it in Throne Magic."""
_ROLE_LEGEND = ("  Role: the player's Role card when you know it (your own, one made public, or one shown to you), "
                "else hidden.")
"""The legend's line for a Throne Magic player's Role (players hold no identity there)."""
_YOU_LEGEND = '; "(you)" marks yours.'
"""The seats line's words on the viewer's own seat (a spectator's legend leaves them out)."""
_PUBLIC_LEGEND = {_IDENTITY_LEGEND: "  identity: its name (role) once it is public (face up, or revealed to every "
                                    "player), else hidden.",
                  _ROLE_LEGEND: "  Role: the player's Role card once it is public (made public, or revealed to "
                                "every player), else hidden."}
"""The identity's and the Role's legend lines for the spectators' board."""
_LEGEND = "\n".join((      # an entry a line: a terminal wraps each under its start (agents.human.wrap_text)
    "legend:",
    f"  P0, P1, ...: seats in turn order{_YOU_LEGEND} life N, or OUT once the player has left the game.",
    _IDENTITY_LEGEND,
    "  lands: N (M untapped): lands are counted; each untapped land pays one mana (tapped automatically).",
    "  creatures: name power/toughness [keywords] (state): tapped; attacking P3 / a planeswalker; blocking X; "
    "summoning sick = came under its controller's control this turn, can't attack (CR 302.6); "
    "N damage = damage marked this turn; +1/+1 and stun counters (a stun counter keeps it tapped once, CR 122.1d).",
    "  artifact tokens: counted per player; a Treasure pays one mana, the others have abilities (see each card's "
    "text).",
    "  commander damage taken: combat damage from each commander; 21 from one commander loses the game "
    "(CR 903.10a).",
    "  graveyard, exile: public card names, oldest first.  stack: top first (the top resolves first, CR 608)."))


def _player_line(p: Any, viewer: "int | None", throne: Any = None) -> str:
    """A player's summary line; ``throne``: the view's :class:`~treachery_env.view.ThroneView`
    in a Throne Magic game (the Role where the view knows it, instead of an identity)."""
    status = "OUT" if not p.in_game else f"{p.life} life"
    me = " (you)" if p.seat == viewer else ""
    state = "face up" if p.face_up else "face down"
    if throne is not None:
        role = throne.known[p.seat]
        ident = f"Role: {role}" if role is not None else "Role [hidden]"
    elif p.identity is not None:
        ident = f"{p.identity} ({p.role.name.title()}), {state}"
    else:
        ident = f"identity [hidden], {state}"
    mull = f" | {p.mulligans} mulligan{'s' if p.mulligans != 1 else ''}" if p.mulligans else ""
    return (f"P{p.seat}{me}: {status} | {ident} | hand {p.hand_size} | library {p.library_size} | "
            f"lands: {p.lands} ({p.untapped_lands} untapped){mull}")


def _creature_words(c: Any, names: dict) -> str:
    kws = _keywords(c.keywords)
    state = []
    if c.commander:
        state.append("commander")
    if c.token:
        state.append("token")
    if c.tapped:
        state.append("tapped")
    if c.summoning_sick:
        state.append("summoning sick")
    if c.attacking >= 0:
        if c.attacking_planeswalker is not None:
            state.append(f"attacking {names.get(c.attacking_planeswalker, f'a planeswalker of P{c.attacking}')}")
        else:
            state.append(f"attacking P{c.attacking}")
    if c.blocking is not None:
        state.append(f"blocking {names.get(c.blocking, 'an attacker')}")
    if c.damage:
        state.append(f"{c.damage} damage")
    if c.plus_counters:
        state.append(_a(c.plus_counters, "+1/+1 counter"))
    if c.stun:
        state.append(_a(c.stun, "stun counter"))
    return (f"{_label(c)} {c.power}/{c.toughness}" + (f" [{', '.join(kws)}]" if kws else "")
            + (f" ({', '.join(state)})" if state else ""))


def _counters(counters: Any) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counters.items()) if n)


def _stack_target(t: tuple, names: dict) -> str:
    kind, x = t[0], t[1]
    if kind == "player":
        return f"P{x}"
    if kind == "none":
        return "no target"
    return names.get(x, f"a {kind}")


def _attacked_by(uids: tuple, names: dict) -> str:
    """`` (attacked by Grove Bear (P1))`` for the attackers ``uids``, or nothing."""
    return " (attacked by " + ", ".join(names.get(u, "a creature") for u in uids) + ")" if uids else ""


def _throne_lines(view: Any, names: dict) -> list:
    """The table's Throne Magic lines: the Roles in the game (public; each player's line shows
    the Role where the view knows it; during a Draft, those picked so far), the Throne, with its
    controller or in the middle of the table, the Holdings and the Season."""
    tm = view.throne_magic
    drafting = len(tm.roles) < len(tm.known)       # a Draft: fewer Roles picked than seats
    lines = [("Roles chosen so far (the Draft): " if drafting else "Roles in the game: ") + ", ".join(tm.roles)]
    if tm.throne is None:
        lines.append("the Throne: not chosen yet" + ("" if drafting else " (The King chooses it)"))
    elif tm.controller >= 0:
        lines.append(f"the Throne: {tm.throne}, controlled by P{tm.controller}")
    else:
        attackers = tuple(c.uid for p in view.players for c in p.creatures if c.attacking_planeswalker == tm.uid)
        lines.append(f"the Throne: {tm.throne}, in the middle of the table (no one controls it)"
                     + _attacked_by(attackers, names))
    if tm.holdings:
        lines.append("Holdings: " + "; ".join(
            f"{h.name} (" + (f"P{h.controller}" if h.controller >= 0 else "in the middle") + ")"
            + _attacked_by(h.attackers, names) for h in tm.holdings))
    if tm.season is not None:
        lines.append(f"the Season: {tm.season}")
    return lines


def _planar_lines(pc: Any) -> list:
    """The table's Planechase line (public, CR 901): the face-up plane or phenomenon with its
    chaos ability, the planar controller, the die's next cost."""
    if pc.face_up is None:
        return ["Planechase: no plane face up yet (the starting plane is turned face up once every hand is kept)"]
    card = planes.get(pc.face_up)
    what = "phenomenon" if card.is_phenomenon else "plane"
    chaos = "" if card.is_phenomenon else f"; chaos: {card.chaos_text}"
    owner = f", owned by P{pc.owner}" if pc.owner >= 0 else ""
    return [f"{what}: {pc.face_up}{owner} ({card.text}{chaos})",
            f"planar controller: P{pc.controller}; the planar die was rolled {pc.rolls} time(s) this turn "
            f"(the next roll costs {{{pc.rolls}}})"]


def _game_result(view: Any) -> "str | None":
    """The end of the game as the view's events tell it, or None while it goes on."""
    for e in view.events:
        if e["event"] == "truncated":
            return f"GAME OVER: truncated after {e['turns']} turns (turn limit), no winner"
        if e["event"] == "game_over":
            if not e["winners"]:
                return "GAME OVER: a draw"
            won = []
            tm = view.throne_magic
            for s in e["winners"]:
                if tm is not None:
                    role = tm.known[s]
                    won.append(f"P{s}" + (f" ({role})" if role is not None else ""))
                    continue
                role = view.players[s].role
                won.append(f"P{s}" + (f" ({role.name.title()})" if role is not None else ""))
            return "GAME OVER: winners " + ", ".join(won)
    return None


class BoardSections(NamedTuple):
    """The board in words, in parts a front end lays out (:func:`board_sections`).

    Attributes:
        header: the turn, the active player and the step (or the mulligans, or GAME OVER).
        players: per player in seat order, ``(seat, lines)``: its summary line, then one line per
            thing it has (counters, tokens, creatures, planeswalkers, commander, graveyard, exile,
            the viewer's hand...), without indentation.
        table: the table talk, the stack, then the result or the viewer's pending decision.
    """

    header: str
    players: tuple
    table: tuple


def _object_names(view: "SeatView") -> dict:
    """uid -> the words of each permanent and stack object in ``view``."""
    names: dict = {}
    for p in view.players:
        for c in p.creatures:
            names[c.uid] = f"{_label(c)} (P{p.seat})"
        for w in p.planeswalkers:
            names[w.uid] = (f"the Throne, {w.name} (P{p.seat}'s)" if w.kind == "throne"
                            else f"{_label(w)} (P{p.seat}'s planeswalker)")
    tm = getattr(view, "throne_magic", None)       # (a view-like object without it: none)
    if tm is not None and tm.uid is not None and tm.controller == -1:
        names[tm.uid] = f"the Throne, {tm.throne} (in the middle of the table)"
    if tm is not None:
        for h in tm.holdings:
            names[h.uid] = f"the Holding {h.name} (" + (f"P{h.controller}'s" if h.controller >= 0 else
                                                         "in the middle of the table") + ")"
    for it in view.stack:
        names[it.uid] = f"{it.label or it.source} on the stack"
    return names


def choices(view: "SeatView") -> list[tuple[Any, str]]:
    """The pending decision's options as a person chooses among them, with the words to show.

    Options that look the same to the seat are one choice, the first in the decision's order:
    equal in everything but the action index and, for an option about a creature, that
    creature's uid and number (``#2``) where its board line (the controller's, its state,
    counters) is the same, e.g. the same land in two hand slots or two untapped Soldier
    tokens ("attack with Soldier" stands for "attack with Soldier #2" too: once it is
    declared, the next choice offers Soldier #2).  Where choices left share their words
    (two creatures whose numbers don't tell them apart), each creature's board line is added.
    Every concession is kept.

    Returns:
        ``[(OptionView, words)]`` in the decision's order.
    """
    names = _object_names(view)
    where = {c.uid: (p.seat, c) for p in view.players for c in p.creatures}

    def board(o: Any, numbered: bool = True) -> "str | None":
        seat_c = where.get(o.creature)
        if seat_c is None:
            return None
        c = seat_c[1] if numbered else seat_c[1]._replace(ordinal=1)
        return f"P{seat_c[0]}'s {_creature_words(c, names)}"

    def unnumbered(o: Any) -> tuple:
        """``o`` as it would look if its creature had no number (what tells copies apart)."""
        seat_c = where.get(o.creature)
        c = None if seat_c is None else seat_c[1]
        if c is None or c.ordinal < 2:
            text = o.text
        else:                   # "Soldier #2" (not "#23") back to "Soldier"
            text = re.sub(re.escape(_label(c)) + r"(?!\d)", lambda m: c.name, o.text)
        return (text, *o[2:5]), o[6:], board(o, numbered=False) or o.creature

    seen: set = set()
    kept = []
    for o in view.decision.options:
        looks = unnumbered(o)
        if o.kind == "concede" or looks not in seen:
            seen.add(looks)
            kept.append(o)
    shared = Counter(o.text for o in kept)
    return [(o, o.text + (f" - {board(o)}" if shared[o.text] > 1 and board(o) else "")) for o in kept]


def board_sections(view: "SeatView", viewer: "int | None", decision: bool = True) -> BoardSections:
    """The board of ``view`` in parts (:class:`BoardSections`), made from the view alone.

    Args:
        view: a seat's view, or the public view (:func:`~treachery_env.view.public_view`).
        viewer: ``view.seat`` for a seat's board; None for the spectators' (no "(you)", no hand).
        decision: end with the viewer's pending decision ("you decide: ..."); False for a
            board printed right before the decision is asked (the terminal's).
    """
    result = _game_result(view)
    tm = getattr(view, "throne_magic", None)
    if view.turn == 0 and result is None and tm is not None and (len(tm.roles) < len(tm.known) or tm.throne is None):
        # Throne Magic before its first turn: the Draft, or The King choosing the Throne
        header = ("=== Before the first turn: the Draft of the Roles ===" if len(tm.roles) < len(tm.known)
                  else "=== Before the first turn: The King chooses the Throne ===")
    elif view.turn == 0 and result is None:
        header = f"=== Before the first turn: mulligans (CR 103.5); P{view.active} starts ==="
    else:
        header = (f"=== Turn {view.turn}: P{view.active}'s turn, {_PHASE_WORDS.get(view.phase, view.phase)}"
                  + (" - GAME OVER" if result else "") + " ===")
    names = _object_names(view)
    vg = getattr(view, "vanguards", None)   # (a view-like object without it: none)
    players = []
    for p in view.players:
        lines = [_player_line(p, viewer, view.throne_magic)]
        if vg is not None:                  # CR 902.3: face up in the command zone
            lines.append("vanguard: " + _vanguard_words(vg[p.seat]))
        if p.seat == viewer and p.identity is not None and not p.face_up:
            try:
                undercover = identities.get(p.identity).undercover
            except ValueError:      # a simple-roles land: no Undercover
                undercover = False
            if undercover:
                lines.append("Undercover (CR 702.187f): " + ("met, you may unveil" if view.undercover_met
                                                                 else "not met yet"))
        if p.identity_counters and _counters(p.identity_counters):
            lines.append("identity counters: " + _counters(p.identity_counters))
        if p.player_counters and _counters(p.player_counters):
            lines.append("counters on the player: " + _counters(p.player_counters))
        toks = ", ".join(f"{n} {k}" for k, n in p.tokens.items() if n)
        if toks:
            lines.append("artifact tokens: " + toks)
        if p.creatures:
            lines.append("creatures: " + "; ".join(_creature_words(c, names) for c in p.creatures))
        if p.planeswalkers:
            ws = []
            for w in p.planeswalkers:
                if w.kind == "throne":
                    lines.append(f"controls the Throne: {w.name}" + _attacked_by(w.attackers, names))
                    continue
                state = ["used this turn"] if w.used_this_turn else []
                if w.attackers:
                    state.append("attacked by " + ", ".join(names.get(u, "a creature") for u in w.attackers))
                ws.append(f"{_label(w)} (loyalty {w.loyalty}" + "".join(", " + s for s in state) + ")")
            if ws:
                lines.append("planeswalkers: " + "; ".join(ws))
        if p.commander is not None:
            n = p.commander_casts
            tax = (f"; cast {({1: 'once', 2: 'twice'}.get(n) or f'{n} times')}, tax {{{2 * n}}}"
                   if n else "")
            lines.append(f"commander: {p.commander} ({_COMMANDER_ZONES.get(p.commander_zone, p.commander_zone)}"
                         f"{tax})")
        taken = [f"{n} from P{s}'s {view.players[s].commander or 'commander'}"
                 for s, n in sorted(p.commander_damage_taken.items()) if n]
        if taken:
            lines.append("commander damage taken: " + ", ".join(taken))
        if p.graveyard:
            lines.append(f"graveyard ({len(p.graveyard)}): " + ", ".join(p.graveyard))
        if p.exile:
            lines.append(f"exile ({len(p.exile)}): " + ", ".join(p.exile))
        if p.seat == viewer:
            lines.append("your hand: " + (", ".join(p.hand) if p.hand else "(empty)"))
            if p.usable_elsewhere:
                lines.append("you may also use: " + ", ".join(
                    f"{name} from {zone}" + (" for free" if free else "") for name, zone, free in p.usable_elsewhere))
            if view.dream:
                lines.append("your face-down exile (you may look): " + ", ".join(view.dream))
        players.append((p.seat, tuple(lines)))
    lines = []
    if view.throne_magic is not None:
        lines.extend(_throne_lines(view, names))
    if view.schemes is not None:
        st = view.schemes
        up = [f"P{s}: " + ", ".join(names_) for s, names_ in enumerate(st.face_up) if names_]
        lines.append("schemes face up (Archenemy): " + ("; ".join(up) if up else "none") + "; scheme decks: "
                     + ", ".join(f"P{s} {k}" for s, k in enumerate(st.deck_sizes)))
    if view.planechase is not None:
        lines.extend(_planar_lines(view.planechase))
    t = view.talk
    if t is not None and (t.claims or t.deals):
        said = [f"P{s} claims to be {_role_name(m.role)}" for s, m in sorted(t.claims.items())]
        said += [f"truce P{d.dealer}-P{d.partner} until P{d.dealer}'s next turn (not binding)" for d in t.deals]
        lines.append("table talk: " + "; ".join(said))
    if view.stack:
        items = []
        for it in reversed(view.stack):
            what = f"{it.label or it.source} ({_STACK_KINDS.get(it.kind, it.kind)}" + (
                ", from an identity" if it.identity_source else "") + f", P{it.controller}" + (
                f", X is {it.x}" if it.x else "") + ")"
            ts = [_stack_target(x, names) for x in it.targets]
            items.append(what + (f" targeting {_and(ts)}" if ts else ""))
        lines.append("stack (top first): " + "; ".join(items))
    if result is not None:
        lines.append(result)
    elif view.decision is not None and viewer is not None and decision:
        prompt = view.decision.question()
        lines.append("you decide: " + (PRIORITY_QUESTION.lower() if prompt == "priority" else prompt))
    return BoardSections(header, tuple(players), tuple(lines))


def _render(view: Any, viewer: "int | None", legend: bool, decision: bool = True) -> str:
    """The board of ``view`` as text (:func:`board_sections`, a player's lines indented under it)."""
    sections = board_sections(view, viewer, decision)
    lines = [sections.header]
    for _, (first, *rest) in sections.players:
        lines.append(first)
        lines.extend("    " + line for line in rest)
    lines.extend(sections.table)
    if legend:
        who = _IDENTITY_LEGEND if view.throne_magic is None else _ROLE_LEGEND
        text = _LEGEND.replace(_IDENTITY_LEGEND, who)
        lines.append(text if viewer is not None else text.replace(_YOU_LEGEND, ".").replace(who, _PUBLIC_LEGEND[who]))
    return "\n".join(lines)


def render_view(view: "SeatView", legend: bool = False, decision: bool = True, spectator: bool = False) -> str:
    """A text picture of the board as seat ``view.seat`` knows it, made only
    from its :class:`~treachery_env.view.SeatView` (its information set), so it
    can show nothing the seat may not know; with ``spectator``, as the
    spectators know it, from the public view.

    Shows the turn, the active player and the step (or the mulligans before
    the first turn); per player: life or OUT, identity (name and role when the
    view knows it, else ``[hidden]``), face up or down, identity counters,
    hand size (the viewer's hand by name), library size, lands as ``lands: 3
    (1 untapped)``, counted artifact tokens, creatures in words (``Grove Bear
    2/2 (tapped, attacking P3)``), planeswalkers with loyalty, the commander
    and its zone, commander damage taken, player counters, graveyard and
    exile, mulligans; the viewer's Undercover state, cards it may use from
    other zones and its face-down exile; the claims and truces of the table
    talk; the stack, top first, with targets in words; the result once the
    game is over (from the view's events), else the viewer's pending decision.
    In Throne Magic each player's Role (``Role: The King`` where the view
    knows it, else ``Role [hidden]``) stands for the identity, the Throne's
    controller has a ``controls the Throne`` line, and the table lines start
    with the Roles in the game and where the Throne is.  In a Vanguard game
    each player has a ``vanguard: name (life +n, hand +n)`` line (CR 902.3).

    Args:
        view: the seat's view (``seat_view(game, seat)``, ``info["view"]``), or with
            ``spectator`` the public view (:func:`~treachery_env.view.public_view`).
        legend: append a short legend explaining the notation.
        decision: show the pending decision (False where it is asked right after).
        spectator: the view is the spectators' (no seat is "you").

    Returns:
        the picture, lines joined by ``"\\n"``.
    """
    return _render(view, None if spectator else view.seat, legend, decision)


def render(game: "Game", viewer: int | None = None) -> str:
    """Text picture of the game as ``viewer`` sees it: for a seat,
    :func:`render_view` of its :func:`~treachery_env.view.seat_view`; for
    None, a spectator's picture with only public information (face-down
    identities show as ``[hidden]`` until revealed to all, CR 907.9; hands
    only by size)."""
    from .view import public_view, seat_view        # here: view.py imports this module
    if viewer is None:
        return render_view(public_view(game), spectator=True)
    return render_view(seat_view(game, viewer))


# ------------------------------------------------------------------------------------------ events
def _p(s: Any) -> str:
    return f"P{s}"


def _labels(e: Any) -> dict:
    """uid -> ``"Web Weaver #2"`` for the numbered permanents a log entry names (its
    ``"labels"``, ``Game._labels``; none in an entry that names no numbered one)."""
    labels = e.get("labels")
    return dict(labels) if labels else {}


def _named(e: Any, key: str = "creature") -> str:
    """The permanent a log entry names: its ``"name"``, numbered when the entry's labels
    number the object whose uid is ``e[key]``."""
    return _labels(e).get(e.get(key), e["name"])


def _source(e: Any) -> str:
    """The source a log entry names (``"source"``), numbered when it is a numbered permanent
    (``"source_label"``, ``Game._source_label``)."""
    return e.get("source_label") or e["source"]


def _tgt(t: Any, labels: "dict | None" = None) -> str:
    """A logged target (``Game._target_repr``: ``["player", seat]``,
    ``["creature", uid, name]``, ``["planeswalker", uid, name]``,
    ``["stack", uid, source]``) in words; ``labels`` (:func:`_labels` of its entry)
    number a creature or planeswalker."""
    if not t:
        return "nothing"
    if t[0] == "player":
        return f"P{t[1]}"
    if len(t) < 3:
        return f"a {t[0]}"
    if t[0] == "planeswalker":
        return f"{(labels or {}).get(t[1], t[2])} (a planeswalker)"
    if t[0] == "stack":
        return f"{t[2]} on the stack"
    return (labels or {}).get(t[1], t[2])


def _targeting(e: Any) -> str:
    """`` targeting X and Y``: the targets of log entry ``e`` (its ``"targets"``), if any."""
    labels = _labels(e)
    words = [_tgt(t, labels) for t in e.get("targets") or () if t]
    return f" targeting {_and(words)}" if words else ""


def _x(e: Any) -> str:
    return f" (X is {e['x']})" if e.get("x") else ""


def _from(e: Any) -> str:
    """`` (The Augur)``: the identity or card a logged effect comes from, if the entry names it."""
    return f" ({e['source']})" if e.get("source") else ""


def _names(cards: Any) -> str:
    return ", ".join(cards) if cards else "nothing"


def _ev_cast(e: Any, who: str) -> str:
    return f"{who} casts {e['card']}{_x(e)}{_targeting(e)}"


def _zone_of(e: Any) -> str:
    """`` from their hand``, `` from P2's graveyard``...: the zone a card being cast, or a
    land played by a permission, comes from (``zone``; ``owner``, the seat whose zone it is)."""
    zone = e["zone"]
    if zone == "command":
        return " from the command zone"
    theirs = e.get("owner", e.get("seat")) == e.get("seat")
    if zone == "exile":
        return " from exile" if theirs else f" from exile (P{e['owner']}'s card)"
    return f" from their {zone}" if theirs else f" from P{e['owner']}'s {zone}"


def _ev_casting(e: Any, who: str) -> str:
    return f"{who} begins to cast {e['card']}{_zone_of(e)}{_from(e)}"


def _ev_land(e: Any, who: str) -> str:
    if "card" not in e:                 # from hand: the count of lands is what the game keeps
        return f"{who} plays a land"
    return f"{who} plays {e['card']}{_zone_of(e)}{_from(e)}"


def _ev_activate(e: Any, who: str) -> str:
    src = e["source"]
    if src in TOKEN_ABILITIES:
        return f"{who} sacrifices a {src} token to activate it{_targeting(e)}"
    return f"{who} activates an ability of {src}{_targeting(e)}"


def _ev_loses(e: Any, who: str) -> str:
    why = {"concede": f"{who} CONCEDES and leaves the game",                      # CR 104.3a
           "rules": f"{who} LOSES the game (state-based actions, CR 704.5)",
           "team": f"{who} LOSES the game with the Leader (CR 907.7c)"}
    was = e["identity"] if "identity" in e else e["role"]         # Throne Magic: the Role ("Leaving the Game")
    return why[e["reason"]] + f"; they were {was}"      # a reason of LOSS_REASONS (Game.lose checks it)


def _ev_mulligan_keep(e: Any, who: str) -> str:
    what = f"{e['hand']} cards" + (f", putting {e['bottom']} on the bottom of their library" if e["bottom"] else "")
    return f"{who} keeps {what}"


def _ev_game_over(e: Any, who: str) -> str:
    w = e["winners"]
    if not w:
        return "game over: a draw"
    return f"game over: {_and([_p(x) for x in w])} {'wins' if len(w) == 1 else 'win'}"


def _ev_attacks(e: Any, who: str) -> str:
    labels = _labels(e)
    out = []
    for a in e["attackers"]:
        if len(a) > 3 and a[4] in _THRONES:          # "Attacking the Throne" (a[2] == n: in the middle)
            out.append(f"{labels.get(a[0], a[1])} attacks the Throne, {a[4]}")
        elif len(a) > 3 and a[4] in _HOLDINGS:       # a Holding
            out.append(f"{labels.get(a[0], a[1])} attacks the Holding {a[4]}")
        elif len(a) > 3:
            out.append(f"{labels.get(a[0], a[1])} attacks {labels.get(a[3], a[4])} (P{a[2]}'s planeswalker)")
        else:
            out.append(f"{labels.get(a[0], a[1])} attacks P{a[2]}")
    return f"{who} attacks: " + "; ".join(out)


def _ev_blocks(e: Any, who: str) -> str:
    if "names" in e:        # logged since the names were (older replays' entries have the uids alone)
        labels = _labels(e)
        return "blockers declared: " + "; ".join(
            f"{labels.get(bu, b)} (P{bc}) blocks {labels.get(au, a)} (P{ac})"
            for (bu, au), (b, bc, a, ac) in zip(e["blocks"], e["names"]))
    n = len(e["blocks"])
    return f"blockers declared: {n} creature{'s block' if n != 1 else ' blocks'}"


def _ev_combat_damage(e: Any, who: str) -> str:
    walkers = e.get("planeswalkers", {})
    labels = {str(u): w for u, w in _labels(e).items()}       # "planeswalkers" is keyed by str(uid)
    hits = ([f"P{k} takes {v}" for k, v in e["to_players"].items()]
            + [(_throne_hit(walkers[k]) + f" takes {v}"
                if k in walkers and (walkers[k][0] in _THRONES or walkers[k][0] in _HOLDINGS) else
                f"{labels.get(k, walkers[k][0])} (P{walkers[k][1]}'s planeswalker) takes {v}" if k in walkers
                else f"a planeswalker takes {v}") for k, v in e.get("to_planeswalkers", {}).items()])
    return (f"combat damage{' (first strike)' if e.get('first_strike') else ''}"
            + (f": {', '.join(hits)}" if hits else " to creatures only"))


def _throne_hit(w: Any) -> str:
    """The Throne or a Holding as a combat-damage entry names it (``[name, controller]``)."""
    what = "the Throne, " if w[0] in _THRONES else "the Holding "
    return what + f"{w[0]} (" + ("in the middle of the table" if w[1] < 0 else f"P{w[1]}'s") + ")"


def _ev_enters(e: Any, who: str) -> str:
    if "loyalty" in e:
        return (f"{_named(e, 'planeswalker')} enters the battlefield under {who}'s control with {e['loyalty']} "
                "loyalty")
    return f"{_named(e)} enters the battlefield under {who}'s control"


_LEAVES_TO = {"graveyard": "is put into its owner's graveyard", "exile": "is exiled",
              "hand": "returns to its owner's hand", "library": "is shuffled into its owner's library",
              "out": "leaves the game with its owner"}       # "out": CR 800.4a


def _ev_leaves(e: Any, who: str) -> str:
    name = _named(e, "planeswalker" if "planeswalker" in e else "creature")
    return f"{name} ({who}) " + _LEAVES_TO.get(e["zone"], f"goes to {e['zone']}")


def _ev_talk(e: Any, who: str) -> str:
    from .engine.talk import TalkMessage
    role = e.get("role")
    return TalkMessage(e["turn"], e["seat"], e["kind"], e.get("subject"),
                       None if role is None else Role[role.upper()]).words()


def _ev_deal_ended(e: Any, who: str) -> str:
    broken = e.get("broken_by") or []
    how = ("broken by " + _and([_p(b) for b in broken])) if broken else "kept"
    return f"the truce between {who} and P{e['partner']} ends ({how})"


def _ev_sacrifice(e: Any, who: str) -> str:
    what = e["permanent"]
    if what == "land":
        return f"{who} sacrifices a land"
    if what in COUNTER_TOKENS:
        return f"{who} sacrifices " + _a(e.get("n", 1), f"{what} token")
    return f"{who} sacrifices {_labels(e).get(e.get('creature'), what)}"


def _ev_control_returns(e: Any, who: str) -> str:
    what = _labels(e).get(e.get("creature")) or e.get("name") or e.get("permanent")
    if what == "land":
        what = "a land"
    elif what in COUNTER_TOKENS:
        what = f"a {what} token"
    return f"control of {what} returns to {who}"


def _ev_gain_control(e: Any, who: str) -> str:
    what = "a land" if e.get("creature") is None and e["name"] == "land" else _named(e)
    return f"{who} gains control of {what} from P{e['previous']}"


def _ev_identity_control(e: Any, who: str) -> str:
    shown = f" ({e['identity']}, face up)" if e.get("identity") else ""
    return f"{who} takes control of P{e['previous']}'s identity card{shown}"


def _ev_identity_removed(e: Any, who: str) -> str:
    shown = f" ({e['identity']})" if e.get("identity") else ""
    return f"{who}'s own identity card{shown} leaves the game"


def _ev_player_counters(e: Any, who: str) -> str:
    n, kind = e["n"], e["kind"]
    left = f" ({e['total']} now)" if "total" in e else ""
    if n < 0:
        return f"{who} loses {_a(-n, kind + ' counter')}{left}"
    return f"{who} gets {_a(n, kind + ' counter')}{left}"


def _ev_redirect(e: Any, who: str) -> str:
    to, n, what = _p(e["to_seat"]), e["n"], e["what"]
    if what == "damage":
        return f"{n} damage to {who} is dealt to {to} instead (The Great Martyr)"
    if what == "lose_life":
        return f"{to} loses {n} life instead of {who} (The Great Martyr)"
    if what == "discard":
        return f"{to} discards {_cards(n)} instead of {who} (The Great Martyr)"
    return f"{to} sacrifices instead of {who} (The Great Martyr)"


def _ev_modes(e: Any, who: str) -> str:
    from .identity_cards.traitors_rare import TIME_BENDER_MODES
    return f"{who} chooses{_from(e)}: " + "; ".join(TIME_BENDER_MODES[m] for m in e["modes"])


def _ev_reveal_all(e: Any, who: str) -> str:
    if "roles" in e:            # Throne Magic: every Role card at the end
        return "every Role is revealed: " + ", ".join(f"P{s} {n}" for s, n in enumerate(e["roles"]))
    return "every identity is revealed (CR 907.9): " + ", ".join(f"P{s} {n}" for s, n in enumerate(e["identities"]))


# ---- Throne Magic (engine/throne.py; ../shared/rules/throne-magic.txt, by heading)
_METHODS = {"basic": "the Basic Game", "random": "the Random method", "sculpted": "the Sculpted method",
            "draft": "the Draft"}


def _control_sentence(kind: str, e: Any, who: str) -> str:
    """A ``throne_control`` or ``holding_control`` event (Throne Magic) in words; ``kind`` is
    "Throne" or "Holding"."""
    prev = e["previous"]
    thing = f"the Throne ({e['name']})" if kind == "Throne" else f"the Holding {e['name']}"
    if e["why"] == "taken":
        return f"{who} takes {thing}" + (f" from P{prev}" if prev >= 0 else " from the middle of the table")
    if e["why"] == "abandoned":
        return f"{thing} is abandoned: P{prev} left the game, it goes to the middle of the table"
    return f"nobody takes {thing} from P{prev}: it goes to the middle of the table"


def _ev_throne(e: Any, who: str) -> str:
    if e["controller"] >= 0:
        return f"the Throne is {e['name']}: P{e['controller']}, The King, starts controlling it"
    return f"the Throne is {e['name']}: no one controls it, it is in the middle of the table"


def _ev_look_at_identities(e: Any, who: str) -> str:
    return f"{who} looks at face-down identities: " + ", ".join(f"P{s} is {n}" for s, n in e["identities"].items())


def _ev_metamorph_ready(e: Any, who: str) -> str:
    roles = [_role_name(r) for r in e["roles"]]
    if not roles:
        return f"{who} (The Metamorph) will take over no identity this turn"
    return f"{who} (The Metamorph) will take over the identity of {' or '.join(roles)} opponent who loses this turn"


def _ev_tap(e: Any, who: str) -> str:
    stun = " and gets a stun counter" if e.get("stun") else ""
    by = f" by P{e['seat']}" if e.get("seat") is not None else ""
    return f"{_named(e)} is tapped{by}{stun}{_from(e)}"


def _ev_tokens(e: Any, who: str) -> str:
    return f"{who} creates " + _a(e["n"], f"{e['name']} token")


_EVENTS: dict = {
    # turns, the deal, mulligans (CR 103.5, 500, 907.4)
    "turn": lambda e, who: f"--- turn {e['turn']}: {who} ---",
    "steps_ended": lambda e, who: f"the turn ends: the rest of it is skipped up to the {e['until']} step (CR 723)",
    "extra_turn": lambda e, who: f"{who} will take an extra turn after this one",
    "deal": lambda e, who: f"{who} is dealt {e['identity']}",
    "leader": lambda e, who: f"{who} is the Leader: {e['identity']} is face up",
    "vanguard": lambda e, who: (f"{who}'s Vanguard card is {e['name']} (life {e['life']:+d}, hand {e['hand']:+d}), "
                                "face up in the command zone (CR 902.3)"),
    "mulligan_declare": lambda e, who: f"{who} takes a mulligan",
    "mulligan": lambda e, who: f"{who} shuffles their hand away and draws a new one (mulligan #{e['count']})",
    "mulligan_keep": _ev_mulligan_keep,
    "bottom": lambda e, who: f"{who} puts {e['card']} on the bottom of their library",
    # identities (CR 702.187, 907; TR8)
    "unveil_cost": lambda e, who: f"{who} pays the unveil cost of {e['identity']}{_x(e)}",
    "unveil": lambda e, who: f"{who} UNVEILS {e['identity']}{_x(e)}",
    "reveal": lambda e, who: f"{who}'s identity is revealed: {e['identity']}",
    "face_down": lambda e, who: f"{who} turns {e['identity']} face down again",
    "copy_identity": lambda e, who: f"{who}'s identity becomes a copy of {e['identity']}",
    "identity_control": _ev_identity_control,
    "identity_removed": _ev_identity_removed,
    "reveal_all": _ev_reveal_all,
    # winning and losing (CR 104, 800.4, 907.7-907.8)
    "loses": _ev_loses,
    "resolve_before_leaving": lambda e, who: ("identity abilities of " + _and([_p(x) for x in e["seats"]])
                                              + " resolve before they leave the game (CR 907.8a)"),
    "game_over": _ev_game_over,
    "truncated": lambda e, who: f"game truncated after {e['turns']} turns (turn limit): no winner",
    "win_effect": lambda e, who: f"{who} wins the game by an effect",
    "cant_lose": lambda e, who: f"{who} can't lose the game this way{_from(e)}",
    "loss_becomes_win": lambda e, who: f"{who} would lose the game but wins instead{_from(e)}",
    # spells and abilities (CR 601-608)
    "land": _ev_land,
    "casting": _ev_casting,             # CR 601.2a: the card is on the stack, public, before X and targets
    "cast": _ev_cast,                   # CR 601.2i: it becomes cast
    "activate": _ev_activate,
    "loyalty": lambda e, who: (f"{who} activates {_named(e, 'planeswalker')} ({e['cost']:+d}, loyalty now "
                               f"{e['loyalty']}){_targeting(e)}"),
    "trigger": lambda e, who: f"{who}'s {_source(e)} triggers{_targeting(e)}",
    "trigger_removed": lambda e, who: f"{who}'s {_source(e)} trigger has no legal target and is removed",
    "resolve": lambda e, who: f"{_source(e)} resolves",
    "fizzle": lambda e, who: f"{who}'s {_source(e)} does nothing: its targets are gone (CR 608.2b)",
    "counter": lambda e, who: f"{who}'s {e['source']} is countered",
    "copy": lambda e, who: f"{who} copies {e['source']} on the stack",
    "gain_control_stack": lambda e, who: f"{who} gains control of {e['source']} on the stack from P{e['previous']}",
    "control_returns_stack": lambda e, who: f"control of {e['source']} on the stack returns to {who}",
    "spell_exiled": lambda e, who: f"{who}'s {e['card']} is exiled from the stack",
    "exile_spell": lambda e, who: f"{who}'s {e['card']} is exiled; its counterer may cast it for free{_from(e)}",
    "chaos_type": lambda e, who: f"{who} names {e['card_type']}: their {e['card_type']} spells have cascade this turn",
    "cascade": lambda e, who: (f"{who} cascades into {e['card'] or 'nothing'}"
                               + (f", exiling {_names(e['exiled'])} first" if e.get("exiled") else "")),
    "mode": lambda e, who: f"{who} chooses{_from(e)}: {e['mode']}",
    "modes": _ev_modes,
    "villainous_choice": lambda e, who: f"{who} chooses: {e['choice']}",
    "choose_type": lambda e, who: f"{who} chooses the card type {e['card_type']}",
    "roll": lambda e, who: f"{who} rolls for {e['source']}: " + ", ".join(map(str, e["results"])),
    "delayed_trigger": lambda e, who: (f"at {who}'s next main phase they gain {e['n']} life and add {e['n']} mana"
                                       + _from(e)),
    "target_card": lambda e, who: f"{who} targets {e['card']} in P{e['owner']}'s graveyard{_from(e)}",
    "target_token": lambda e, who: f"{who} targets a {e['token']} token of P{e['owner']}",
    # the battlefield (CR 110, 111, 701)
    "attacks": _ev_attacks,                 # CR 508
    "blocks": _ev_blocks,                   # CR 509
    "enters": _ev_enters,
    "leaves": _ev_leaves,
    "tokens": _ev_tokens,
    "copy_token": lambda e, who: f"{who} creates a token copy of {e['name']}" + (
        f": {_named(e)}" if _named(e) != e["name"] else ""),
    "sacrifice": _ev_sacrifice,
    "legend_rule": lambda e, who: (f"legend rule (CR 704.5j): {who} keeps {_named(e, 'kept')} and puts the others "
                                   "into the graveyard"),
    "gain_control": _ev_gain_control,
    "gain_control_token": lambda e, who: f"{who} gains control of a {e['token']} token from P{e['previous']}",
    "control_returns": _ev_control_returns,
    "majesty_gift": lambda e, who: f"{who} gives a permanent to the Leader P{e['to_seat']}",
    "becomes_artifact": lambda e, who: f"{who} puts a +1/+1 counter on {_named(e)}, which becomes an artifact",
    "tap": _ev_tap,
    "tap_all": lambda e, who: (f"{e['n']} creatures of non-Leader players are tapped and get a stun counter"
                               + _from(e)),
    "tap_lands": lambda e, who: f"{who} taps {e['n']} land{'s' if e['n'] != 1 else ''}",
    "untap_all": lambda e, who: f"{who} untaps every permanent they control",
    "land_enters": lambda e, who: f"{e['name']} enters the battlefield tapped under {who}'s control",
    "land_put": lambda e, who: f"{who} puts a land from their hand onto the battlefield",
    "destroy_permanent": lambda e, who: (f"{who}'s " + ("land" if e["permanent"] == "land" else
                                                         f"{e['permanent']} token") + f" is destroyed{_from(e)}"),
    "reanimate": lambda e, who: (f"{who} puts {e['card']} from P{e['owner']}'s graveyard onto the battlefield"
                                 + _from(e)),
    "finality": lambda e, who: (f"{who}'s {e['card']}, cast from their graveyard, gets a finality counter: "
                                "if it would die, it is exiled instead"),
    "finality_exile": lambda e, who: f"{who}'s {e['card']} is exiled instead of staying in the graveyard",
    "tokens_exiled": lambda e, who: f"{who}'s artifact tokens ({e['n']}) are exiled",
    # damage and life (CR 119, 120, 615)
    "damage": lambda e, who: f"{_source(e)} deals {e['n']} damage to {_tgt(e['target'], _labels(e))}",
    "combat_damage": _ev_combat_damage,
    "prevented": lambda e, who: f"{e['n']} damage to {_tgt(e['target'], _labels(e))} is prevented",
    "fog": lambda e, who: f"{who} prevents all combat damage this turn",
    "gain_life": lambda e, who: f"{who} gains {e['n']} life",
    "lose_life": lambda e, who: f"{who} loses {e['n']} life",
    "pay_life": lambda e, who: f"{who} pays {e['n']} life",
    "shield": lambda e, who: (f"damage to {who} and their permanents is prevented until its controller's next turn"
                              + _from(e)),
    "martyr_shield": lambda e, who: ("until end of turn, harm from opponents' sources to Leader players goes to "
                                     f"{who} instead (The Great Martyr)"),
    "oracle_protection": lambda e, who: ("until end of turn, Leader players have protection from everything and "
                                         f"their life totals can't change ({who}'s The Oracle)"),
    "redirect": _ev_redirect,
    "savior": lambda e, who: f"the next time P{e['target']} would lose this turn, {who}'s identity saves them",
    "saved": lambda e, who: (f"{who} is saved instead of losing: they start over with a new hand of 12 and 12 life "
                             "(He Who Comes To Save The Day)"),
    "add_mana": lambda e, who: f"{who} adds {e['n']} mana{_from(e)}",
    "debt_collected": lambda e, who: f"{who} collects debts: {e['n']} life lost in all",
    "debt_counter": lambda e, who: f"{who} gets a debt counter on their identity ({e['n']} now)",
    "player_counters": _ev_player_counters,
    "pay_counters": lambda e, who: f"{who} removes {_a(e['n'], e['kind'] + ' counter')} ({e['total']} left)",
    # cards: draw, discard, libraries, graveyards, exile (CR 121, 701)
    "draw": lambda e, who: f"{who} draws {_cards(e['n'])}",
    "regent_extra_draw": lambda e, who: f"{who} draws an extra card (The Corrupted Regent)",
    "discard": lambda e, who: f"{who} discards {e['card']}",
    "exile_from_hand": lambda e, who: f"{who} exiles {e['card']} from their hand",
    "head_games": lambda e, who: (f"P{e['victim']} puts their hand ({_cards(e['n'])}) on top of their library; "
                                  f"{who} picks that many cards from it for their new hand"),
    "look_at_library": lambda e, who: f"{who} looks through P{e['victim']}'s library ({_cards(len(e['cards']))})",
    "look_top": lambda e, who: f"{who} looks at the top of their library: {_names(e['cards'])}",
    "reveal_top": lambda e, who: f"{who} reveals the top card of their library: {e['card']}",
    "reveal_top_cards": lambda e, who: f"{who} reveals the top cards of their library: {_names(e['cards'])}",
    "revealed_to_hand": lambda e, who: (f"{who} puts {_names(e['cards'])} into their hand and "
                                        f"{_cards(e['bottom'])} on the bottom of their library"),
    "reveal_hand": lambda e, who: f"{who} reveals their hand: {_names(e['cards'])}",
    "scry": lambda e, who: f"{who} scries {e['n']}",
    "surveil": lambda e, who: f"{who} surveils {e['n']}",
    "scry_bottom": lambda e, who: f"{who} puts {_cards(e['n'])} on the bottom of their library",
    "scry_done": lambda e, who: f"{who} finishes scrying ({_cards(e['bottom'])} to the bottom)",
    "surveil_to_graveyard": lambda e, who: f"{who} puts {e['card']} into their graveyard (surveil)",
    "shuffle": lambda e, who: f"{who} shuffles their library",
    "shuffle_graveyard": lambda e, who: f"{who} shuffles their graveyard into their library",
    "wheel": lambda e, who: "every player shuffles their hand and graveyard into their library and draws seven",
    "tutor": lambda e, who: f"{who} searches their library for a card, puts it into their hand and shuffles",
    "search": lambda e, who: (f"{who} searches their library for a {e['card_type']} card with mana value "
                              f"{e['max_mv']} or less"),
    "search_found": lambda e, who: f"{who} finds {e['name']}",
    "mill": lambda e, who: f"{who} mills {_cards(e['n'])}: {_names(e['cards'])}",
    "put_on_top": lambda e, who: f"{who} puts a card from their hand on top of their library",
    "put_on_top_card": lambda e, who: f"{who} puts {e['card']} on top of their library",
    "to_library": lambda e, who: (f"{who} puts {e['card']} from their {e['zone']} into their library, "
                                  "third from the top"),
    "exile_card": lambda e, who: f"{who}'s {e['card']} is exiled from their {e['zone']}",
    "exile_top": lambda e, who: f"{who} exiles the top card of their library: {e['card']}{_from(e)}",
    "exile_face_down": lambda e, who: (f"{who} exiles {_cards(e['n'])} face down"
                                       + (f" from P{e['owner']}'s library" if "owner" in e else "")),
    "graveyard_exiled": lambda e, who: f"{who}'s graveyard ({_cards(e['n'])}) is exiled",
    "may_play_from_graveyard": lambda e, who: f"{who} may play {e['card']} from their graveyard this turn",
    "cathar_already_lost": lambda e, who: f"{who}'s The Cathar does nothing: they have already lost",
    # identity-card specials (TR8)
    "metamorph_ready": _ev_metamorph_ready,
    "metamorph_takes": lambda e, who: (f"{who} takes over P{e['victim']}'s identity {e['identity']} "
                                       f"({Role(e['role']).name.title()})"),
    "look_at_identities": _ev_look_at_identities,
    "reveal_identities": lambda e, who: (f"{who} reveals identities from outside the game: "
                                         f"{_names(e['identities'])}{_from(e)}"),
    "puppet_master": lambda e, who: (f"{who} redistributes the identities of " + _and([_p(s) for s in e["moved"]])
                                     if e["moved"] else f"{who} leaves every identity where it is")
                                    + " (The Puppet Master)",
    # table talk (TR10.5)
    "talk": _ev_talk,
    "deal_ended": _ev_deal_ended,
    # Throne Magic (engine/throne.py): Roles ("Choosing Role Cards for the Game", "Public and Private
    # Information", "Leaving the Game"), the Throne ("Throne Cards" to "Abandoned Thrones", "Throne
    # Abilities"), the creatures' Throne abilities ("Giving Creatures to the Monarch", ...)
    "roles": lambda e, who: (f"the Roles in the game ({_METHODS.get(e['method'], e['method'])}): "
                             + ", ".join(e["roles"])),
    "deal_role": lambda e, who: f"{who} is dealt the Role {e['role']}",
    "reveal_role": lambda e, who: f"{who}'s Role is revealed: {e['role']}",
    "look_at_role": lambda e, who: f"{who} looks at P{e['other']}'s Role card: {e['role']}",
    "throne": _ev_throne,
    "throne_control": lambda e, who: _control_sentence("Throne", e, who),
    "refuses_creature": lambda e, who: f"{who} refuses {_named(e)}: its controller keeps it",
    "king": lambda e, who: f"{who} is The King: he begins the game controlling the Throne",
    "draft": lambda e, who: f"the Draft of the Roles begins with P{e['first']}, then each player in turn",
    "draft_pick": lambda e, who: f"{who} chooses {e['role']} to be in the game",
    "holdings": lambda e, who: "the Holdings in the game, in the middle of the table: " + ", ".join(e["names"]),
    "holding_control": lambda e, who: _control_sentence("Holding", e, who),
    "season": lambda e, who: f"the Season changes: it is now {e['season']}",
    # Archenemy's schemes (engine/archenemy.py; CR 904)
    "scheme_decks": lambda e, who: ("every player shuffles a scheme deck of "
                                    + _and(sorted({str(k) for k in e["sizes"]})) + " cards (Archenemy, CR 904.4)"),
    "scheme": lambda e, who: (f"{who} sets the scheme {e['name']} in motion"
                              + (" (ongoing)" if e["ongoing"] else "")),
    "scheme_bottom": lambda e, who: f"{who}'s scheme {e['name']} goes to the bottom of their scheme deck",
    "scheme_abandoned": lambda e, who: f"{who} abandons the ongoing scheme {e['name']}",
    # Planechase (engine/planechase.py, CR 901)
    "plane": lambda e, who: f"{who} turns {e['name']} face up ({e['kind']})",
    "plane_to_bottom": lambda e, who: f"{who} puts the phenomenon {e['name']} on the bottom of the planar deck "
                                      f"(CR 901.5)",
    "starting_plane": lambda e, who: f"the starting plane is {e['name']}",
    "planar_die": lambda e, who: (f"{who} rolls the planar die (paying {{{e['cost']}}}): "
                                  + {"chaos": "chaos", "planeswalk": "planeswalk", "blank": "blank"}[e["face"]]),
    "planeswalk": lambda e, who: f"{who} planeswalks" + (f" away from {e['source']}" if e["source"] else ""),
    "planar_controller": lambda e, who: f"{who} is now the planar controller",
    "plane_leaves": lambda e, who: f"{e['name']} leaves the game with its owner P{e['owner']} (CR 901.10)",
    "prevent_until_planeswalk": lambda e, who: (f"damage that would be dealt to {who} and their permanents is "
                                                f"prevented until a player planeswalks"),
}
EVENT_KINDS: frozenset = frozenset(_EVENTS)
"""The log event kinds :func:`format_event` has a sentence for (every kind the engine logs)."""


def format_event(e: dict) -> str:
    """One log entry (``Game.log``, or a :class:`~treachery_env.view.FrozenDict`
    of a view's events) as an English sentence, e.g. ``"P4 creates a Blood
    token"``.  Reads only the entry.  An event kind not in
    :data:`EVENT_KINDS` (none the engine logs) gets ``"P2 <kind>: key: value, ..."``.

    Raises:
        KeyError: if the entry lacks ``"event"`` or a key its kind always has.
    """
    ev = e["event"]
    s = e.get("seat")
    who = f"P{s}" if s is not None else "someone"
    words = _EVENTS.get(ev)
    if words is not None:
        return words(e, who)
    rest = ", ".join(f"{k}: {v}" for k, v in e.items() if k not in ("turn", "event", "to", "seat"))
    return f"{who} {ev.replace('_', ' ')}" + (f" ({rest})" if rest else "")
