"""HTML of what a seat sees, for the web table and the notebook widgets.

Made from a seat's :class:`~treachery_env.view.SeatView` only (or the spectators' public view),
with the words of :mod:`treachery_env.text` (:func:`~treachery_env.text.board_sections`): the
board, the seat's own identity (in Throne Magic its Role card), its options, and at the end the
reveal.  Every text is escaped;
card, token and identity names on the board are ``<span class="card" data-name="NAME">``, whose
full texts (:func:`card_texts`) a page shows when they are tapped.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from typing import Any

__all__ = ["board_html", "identity_html", "role_html", "option_details", "prompt_details", "reveal_html",
           "card_texts"]


def card_texts(view: Any) -> dict[str, str]:
    """``name -> full text`` (:func:`treachery_env.text.card_text`) of every card, token and
    identity name ``view`` holds (:func:`treachery_env.text.view_names`) and of its options' cards
    (:func:`option_details`: in Throne Magic the Roles of a Draft, the Throne, a Holding)."""
    from treachery_env.text import card_text, view_names
    names = set(view_names(view))
    if view.decision is not None:
        names.update(o["card"] for o in option_details(view) if o["card"])
    return {name: card_text(name) for name in sorted(names)}


@lru_cache(maxsize=1)
def _throne_names() -> "re.Pattern":
    """A pattern finding Throne Magic's Role, Throne, Holding and Season names in words, longest
    first (:mod:`treachery_env.throne_roles`, :mod:`treachery_env.throne_cards`)."""
    from treachery_env import throne_cards, throne_roles
    names = [*throne_roles.names(), *(c.name for c in (*throne_cards.thrones(), *throne_cards.holdings(),
                                                          *throne_cards.seasons()))]
    return re.compile("|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True)))


def _mark_names(text: str, names: list[str], titles: dict | None = None) -> str:
    """``text`` escaped, each name of ``names`` in it wrapped in a card span (longest names first,
    so "Sera, Dawn Marshal" is not split by "Dawn Marshal"), with its text as the span's ``title``
    when ``titles`` maps it."""
    if not names:
        return escape(text)
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    out, at = [], 0
    for m in pattern.finditer(text):
        out.append(escape(text[at:m.start()]))
        name = m.group(0)
        title = f' title="{escape(titles[name])}"' if titles and name in titles else ""
        out.append(f'<span class="card" data-name="{escape(name)}" tabindex="0"{title}>{escape(name)}</span>')
        at = m.end()
    out.append(escape(text[at:]))
    return "".join(out)


def board_html(view: Any, spectator: bool = False, titles: bool = False) -> str:
    """The board of ``view`` as HTML: a header, a block per player (``class="seat"``, ``you``
    for the viewer, ``out`` once a player left), then the table's talk and stack lines.

    Args:
        view: a seat's view, or with ``spectator`` the public view (:func:`treachery_env.view.public_view`).
        spectator: the view is the spectators' (no seat is "you").
        titles: give each card span its full text as a ``title`` (a tooltip, where no script
            shows :func:`card_texts`: the notebook widgets).
    """
    from treachery_env.text import board_sections, view_names

    names = view_names(view)
    texts = card_texts(view) if titles else None
    viewer = None if spectator else view.seat
    header, seats, table = board_sections(view, viewer)
    parts = [f'<div class="board-head">{escape(header)}</div>']
    for seat, lines in seats:
        p = view.players[seat]
        cls = "seat" + (" you" if seat == viewer else "") + ("" if p.in_game else " out")
        body = "".join(f'<div class="line">{_mark_names(line.strip(), names, texts)}</div>' for line in lines[1:])
        parts.append(f'<div class="{cls}" data-seat="{seat}"><div class="head">{_mark_names(lines[0], names, texts)}</div>'
                     f"{body}</div>")
    parts.extend(f'<div class="table-line">{_mark_names(line, names, texts)}</div>' for line in table)
    return "".join(parts)


def identity_html(view: Any) -> str:
    """The viewer's own identity card: name, role, face up or down, Undercover, and its text; in
    Throne Magic its Role card instead (:func:`role_html`)."""
    from treachery_env.text import card_text

    if view.throne_magic is not None:
        return role_html(view)
    me = view.me
    if me.identity is None:
        return ""
    role = me.role.name.title() if me.role is not None else "?"
    state = "face up" if me.face_up else "face down"
    try:
        text = card_text(me.identity)
    except ValueError:
        text = me.identity
    under = ""
    if not me.face_up and "Undercover" in text:
        under = f'<div class="undercover">Undercover: {"met, you may unveil" if view.undercover_met else "not met yet"}</div>'
    return (f'<h2>Your identity</h2><div class="identity-name">{escape(me.identity)} - {escape(role)}, {state}</div>'
            f'{under}<div class="identity-text">{escape(text.split(chr(10), 1)[-1])}</div>')


def role_html(view: Any) -> str:
    """Throne Magic: the viewer's own Role card (``../shared/rules/throne-magic.txt``, "Role
    Cards", "Winning the Game"): its name and types, the Roles in the game that must leave it for
    the viewer to win and those whose players must eliminate the viewer's (with the seat where the
    view knows it), the other Roles the viewer knows, the Throne when the viewer controls it, and
    the card's text.  During the Draft, before any Role is dealt, that it is being drafted.

    Made from the view's :class:`~treachery_env.view.ThroneView` alone (the Roles in the game and
    the Role graph are public; ``known`` is what the viewer knows)."""
    from treachery_env import throne_roles
    from treachery_env.text import card_text

    tm = view.throne_magic
    mine = view.throne_role
    if mine is None:
        return ('<h2>Your Role</h2><div class="identity-name">Not dealt yet: the Roles are being drafted '
                f'(picked so far: {escape(", ".join(tm.roles) or "none")})</div>')
    role = throne_roles.get(mine)
    holder = {r: s for s, r in enumerate(tm.known) if r is not None and s != view.seat}

    def roles(names: list) -> str:
        return ", ".join(escape(r) + (f" (P{holder[r]})" if r in holder else "") for r in names) or "none"

    targets = [r for r in tm.roles if r in role.must_eliminate]
    hunters = [r for r in tm.roles if r != mine and mine in throne_roles.get(r).must_eliminate]
    known = [f"P{s}: {escape(r)}" for s, r in enumerate(tm.known) if r is not None and s != view.seat]
    types = ", ".join(sorted(role.types)) or "no type"
    lines = [f'<div class="role-goal">To win, these Roles in the game must leave it: {roles(targets)}</div>',
             f'<div class="role-hunters">Roles in the game that must eliminate yours: {roles(hunters)}</div>']
    if known:
        lines.append(f'<div class="role-known">Roles you know: {"; ".join(known)}</div>')
    if tm.controller is not None and tm.controller == view.seat:
        lines.append(f'<div class="role-throne">You control the Throne: {escape(tm.throne)}</div>')
    text = card_text(mine).split("\n", 1)[-1]
    return (f'<h2>Your Role</h2><div class="identity-name">{escape(mine)} - {escape(types)}</div>{"".join(lines)}'
            f'<div class="identity-text">{escape(text)}</div>')


def option_details(view: Any) -> list[dict]:
    """The pending decision's options for buttons: ``{"action", "text", "kind", "card"}`` each
    (``card``: the card or identity it casts, plays or unveils, with a text to show; else None).
    Choices that look the same (the same land in two hand slots) are listed once, with words that tell
    apart those left (:func:`treachery_env.text.choices`).  In Throne Magic an attack on the Throne
    or a Holding has that card, a creature's Throne ability the creature, and a choice the Role,
    Throne or Holding its words name (a Draft's pick, The King's Throne, taking a Holding)."""
    from treachery_env.text import card_names, choices

    known = card_names()
    tm = view.throne_magic
    creatures = {c.uid: c.name for p in view.players for c in p.creatures}
    out = []
    for o, words in choices(view):
        card = o.card if o.card in known else (view.me.identity if o.kind in ("unveil", "identity_ability") else None)
        if tm is not None and card is None:
            if o.kind == "attack_throne":
                card = tm.throne
            elif o.kind == "attack_holding":
                card = next((h.name for h in tm.holdings if h.uid == o.planeswalker), None)
            elif o.kind == "throne_ability":
                card = creatures.get(o.creature)
            elif o.kind in ("choice", "pass"):
                found = _throne_names().search(words)
                card = found.group(0) if found else None
        out.append({"action": o.action, "text": words, "kind": o.kind, "card": card})
    return out


def prompt_details(prompt: Any) -> dict:
    """A person's pending :class:`~table.table.Prompt` for the page: ``{"number", "reason",
    "question", "options"}``, the question in the words people read
    (:meth:`~treachery_env.view.DecisionView.question`: a numbered permanent's number) and the
    options as :func:`option_details`."""
    return {"number": prompt.number, "reason": prompt.reason, "question": prompt.view.decision.question(),
            "options": option_details(prompt.view)}


def reveal_html(reveal: Any) -> str:
    """The end screen (:class:`table.table.Reveal`): a row per seat with its identity and role (in
    Throne Magic its Role card and the card's types), life and result, then the verdict."""
    rows = []
    for s in reveal.seats:
        result = "won" if s.won else ("-" if reveal.truncated or not reveal.winners else "lost")
        dealt = "" if s.dealt == s.identity else f" (dealt {escape(s.dealt)})"
        rows.append(f'<tr class="{result}"><td>P{s.seat}</td><td>{escape(s.label)}</td>'
                    f"<td>{escape(s.identity)}{dealt}</td><td>{escape(s.role)}</td>"
                    f"<td>{s.life if s.in_game else 'out'}</td><td>{result}</td></tr>")
    if reveal.truncated:
        verdict = "A draw: the turn limit was reached."
    elif not reveal.winners:
        verdict = "A draw: nobody won."
    else:
        verdict = "Winners: " + ", ".join(f"P{s}" for s in reveal.winners) + "."
    card, kind = ("Role card", "types") if reveal.game == "throne_magic" else ("identity", "role")
    return (f'<table class="reveal"><tr><th>seat</th><th>player</th><th>{card}</th><th>{kind}</th><th>life</th>'
            f'<th>result</th></tr>{"".join(rows)}</table><p class="verdict">{verdict}</p>')
