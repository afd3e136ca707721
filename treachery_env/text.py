"""Words for actions and a text picture of the game, hiding what the viewer
cannot see (DESIGN section 4: ``describe_action``, ``ansi``/``human`` rendering)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actions import TOKEN_ABILITIES
from .engine import DecisionKind
from .rules import Role

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Game

__all__ = ["describe_action", "option_text", "render", "format_event"]


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
            return f"uncontrolled attackable permanent slot {j}"
        return f"planeswalker slot {j} of relative seat {i}"
    if block == "LOYALTY":
        return f"loyalty ability #{j} of your planeswalker in slot {i}"
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
            return f"activate {w.name} (loyalty {w.loyalty}): {w.card.abilities[arg[1]]['text']}"
        if kind == "permission":
            perm = p.permissions[arg]
            verb = "play" if perm["card"].is_land else "cast"
            return f"{verb} {perm['card'].name} from {perm['zone']}" + (" for free" if perm["free"] else "")
    if d.kind == DecisionKind.ATTACKER:
        return "finish declaring attackers" if payload is None else f"attack with {payload.name}"
    if d.kind == DecisionKind.DEFENDER:
        if not isinstance(payload, int):
            return (f"{d.ctx.name} attacks {payload.name} (P{payload.controller}'s planeswalker, "
                    f"loyalty {payload.loyalty})")
        return f"{d.ctx.name} attacks P{payload}"
    if d.kind == DecisionKind.BLOCKER:
        return "finish declaring blockers" if payload is None else f"block with {payload.name}"
    if d.kind == DecisionKind.BLOCKED:
        return f"{d.ctx[1].name} blocks {payload.name} (P{payload.controller})"
    if d.kind == DecisionKind.COST and payload == "land":
        return "sacrifice a land"            # The Bio-Engineer's sacrifice cost
    if d.kind == DecisionKind.COST and hasattr(payload, "base_power"):
        return f"sacrifice {payload.name}"
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
            return f"target {obj.name} (P{obj.controller})"
        if kind == "w":
            return f"target {obj.name} (P{obj.controller}'s planeswalker, loyalty {obj.loyalty})"
        return f"target {obj.source} on the stack"
    if hasattr(payload, "base_power"):
        return f"{payload.name} (P{payload.controller})"
    return None


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


def render(game: "Game", viewer: int | None = None) -> str:
    """Text picture of the game as ``viewer`` sees it (None: spectator view with
    only public information).  Face-down identities the viewer does not know
    show as ``[hidden]`` until the game ends (CR 907.9 reveals them all); other
    hands show only their size."""
    lines = []
    over = " - GAME OVER" if game.is_over else ""
    if game.mulligan_state is not None and not game.is_over:
        lines.append(f"=== Mulligans before the first turn (CR 103.5), P{game.active} starts ===")
    else:
        lines.append(f"=== Turn {game.turn}, P{game.active} active, step {game.phase}{over} ===")
    for p in game.players:
        idc = p.identity
        known = idc.face_up or game.is_over or (viewer is not None and viewer in idc.known_by)
        ident = f"{idc.name} ({idc.role.name.title()})" if known else "[hidden]"
        state = "face up" if idc.face_up else "face down"
        status = "OUT" if p.has_lost else f"{p.life} life"
        me = " (you)" if p.seat == viewer else ""
        mull = f" | {p.mulligans} mulligan{'s' if p.mulligans != 1 else ''}" if p.mulligans else ""
        lines.append(f"P{p.seat}{me}: {status} | identity {ident}, {state} | hand {len(p.hand)} | "
                     f"library {len(p.library)} | lands {p.lands - p.lands_tapped}/{p.lands}{mull}")
        toks = ", ".join(f"{k} x{v}" for k, v in p.tokens.items() if v)
        if toks:
            lines.append(f"    tokens: {toks}")
        if p.creatures:
            cs = []
            for slot, c in enumerate(p.creatures):
                flags = "".join(("T" if c.tapped else "", "A" if c.attacking >= 0 else "",
                                 "B" if c.blocking is not None else ""))
                kws = ",".join(sorted(c.base_keywords | c.pump_kw))
                cs.append(f"[{slot}] {c.name} {c.power}/{c.toughness}" + (f" dmg{c.damage}" if c.damage else "")
                          + (f" {flags}" if flags else "") + (f" ({kws})" if kws else ""))
            lines.append("    " + "; ".join(cs))
        if p.attackables:
            ws = []
            for slot, w in enumerate(p.attackables):
                flags = (" used" if w.used_turn == game.turn else "") + (
                    " attacked" if any(a.attacking_obj is w for a in game.combat_attackers) else "")
                ws.append(f"[{slot}] {w.name} loyalty {w.loyalty}{flags}")
            lines.append("    planeswalkers: " + "; ".join(ws))
        if p.commander is not None:
            lines.append(f"    commander {p.commander.name}: {p.commander_zone}, cast {p.commander_casts}x")
        if viewer == p.seat:
            lines.append("    your hand: " + (", ".join(c.name for c in p.hand) or "(empty)"))
            dream = idc.data.get("dream")
            if dream:
                lines.append("    your face-down exile: " + ", ".join(c.name for _, c in dream))
    t = game.talk
    if t.claims or t.deals:
        said = [f"P{s} claims {Role(m.role).name.title()}" for s, m in sorted(t.claims.items())]
        said += [f"truce P{d.dealer}-P{d.partner}" for d in t.deals]
        lines.append("table talk: " + "; ".join(said))
    if game.stack:
        lines.append("stack (top first): " + "; ".join(
            f"{it.source}{' (ability)' if it.kind != 'spell' else ''} (P{it.controller})"
            for it in reversed(game.stack)))
    if game.is_over:
        if game.truncated:
            lines.append("result: truncated (turn limit), no winner")
        elif game.winners:
            lines.append("winners: " + ", ".join(f"P{s} ({game.players[s].role.name.title()})"
                                                 for s in sorted(game.winners)))
        else:
            lines.append("result: draw")
    elif game.decision is not None and viewer is not None and game.decision.seat == viewer:
        lines.append(f"you decide: {game.decision.prompt}")
    return "\n".join(lines)


def format_event(e: dict) -> str:
    """One log entry (``Game.log``) as a sentence."""
    ev = e["event"]
    s = e.get("seat")
    who = f"P{s}" if s is not None else ""

    def tgt(t: list | None) -> str:
        if not t:
            return "nothing"
        return f"P{t[1]}" if t[0] == "player" else (t[2] if len(t) > 2 else f"#{t[1]}")

    if ev == "turn":
        return f"--- turn {e['turn']}: P{s} ---"
    if ev == "deal":
        return f"{who} is dealt {e['identity']}"
    if ev == "leader":
        return f"{who} is the Leader: {e['identity']} is face up"
    if ev == "cast":
        ts = ", ".join(tgt(t) for t in e.get("targets", ()) if t)
        return f"{who} casts {e['card']}" + (f" (X={e['x']})" if e.get("x") else "") + (f" targeting {ts}" if ts else "")
    if ev == "unveil":
        return f"{who} UNVEILS {e['identity']}" + (f" with X={e['x']}" if e.get("x") else "")
    if ev == "reveal":
        return f"{who}'s identity is revealed: {e['identity']}"
    if ev == "loses":
        if e["reason"] == "concede":
            return f"{who} CONCEDES and leaves the game; they were {e['identity']}"
        return f"{who} LOSES ({e['reason']}); they were {e['identity']}"
    if ev == "resolve_before_leaving":
        return ("identity abilities of " + ", ".join(f"P{x}" for x in e["seats"])
                + " resolve before they leave the game")
    if ev == "mulligan_declare":
        return f"{who} takes a mulligan"
    if ev == "mulligan":
        return f"{who} shuffles their hand away and draws a new one (mulligan #{e['count']})"
    if ev == "mulligan_keep":
        what = f"{e['hand']} cards" + (f", putting {e['bottom']} on the bottom" if e["bottom"] else "")
        return f"{who} keeps {what}"
    if ev == "bottom":
        return f"{who} puts {e['card']} on the bottom of their library"
    if ev == "game_over":
        w = e["winners"]
        return "game over: " + (f"winners {', '.join(f'P{x}' for x in w)}" if w else "a draw")
    if ev == "truncated":
        return f"game truncated after {e['turns']} turns"
    if ev == "attacks":
        return f"{who} attacks: " + ", ".join(f"{a[1]} -> P{a[2]}" + (f"'s {a[4]}" if len(a) > 3 else "")
                                             for a in e["attackers"])
    if ev == "loyalty":
        return f"{who} activates {e['name']} ({e['cost']:+d}, loyalty now {e['loyalty']})"
    if ev == "combat_damage":
        hits = ", ".join([f"P{k} takes {v}" for k, v in e["to_players"].items()]
                         + [f"planeswalker #{k} takes {v}" for k, v in e.get("to_planeswalkers", {}).items()])
        return f"combat damage{' (first strike)' if e.get('first_strike') else ''}" + (f": {hits}" if hits else "")
    if ev == "enters":
        return f"{e['name']} enters under P{s}"
    if ev == "leaves":
        if e["zone"] == "out":      # CR 800.4a: a player's objects leave the game with them
            return f"{e['name']} leaves the game with its owner"
        return f"{e['name']} goes to {e['zone']}"
    if ev == "damage":
        return f"{e['source']} deals {e['n']} to {tgt(e['target'])}"
    if ev == "blocks":
        return f"blockers declared: {len(e['blocks'])} block(s)"
    if ev == "talk":
        from .engine.talk import TalkMessage
        role = e.get("role")
        return TalkMessage(e["turn"], s, e["kind"], e.get("subject"),
                           None if role is None else Role[role.upper()]).words()
    if ev == "deal_ended":
        broken = e.get("broken_by") or []
        how = ("broken by " + ", ".join(f"P{b}" for b in broken)) if broken else "kept"
        return f"the truce between P{s} and P{e['partner']} ends ({how})"
    if ev == "chaos_type":
        return f"{who} names {e['card_type']}: their {e['card_type']} spells have cascade this turn"
    if ev == "trigger_removed":
        return f"{who}'s {e['source']} trigger has no legal target and is removed"
    if ev == "trigger":
        return f"{who}'s {e['source']} triggers"
    if ev == "resolve":
        return f"{e['source']} resolves"
    if ev == "counter":
        return f"{e['source']} is countered"
    rest = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("turn", "event", "to", "seat"))
    return f"{who} {ev.replace('_', ' ')}" + (f" ({rest})" if rest else "")
