"""A person at the terminal as a bot (``agents.make("human")``).

:class:`HumanAgent` implements the bot protocol ``act(observation, info) ->
int`` (and :meth:`HumanAgent.choose` for a view) by showing the seat's own
identity card and its legal actions, numbered and in words, on a ``rich``
console and reading the chosen number from an input stream; at a prompt ``b``
shows the board (and lists the options again under it) and ``? NAME`` the full text of any card, token or identity
(:func:`treachery_env.text.card_text`).  Like every bot it reads only its own
seat's information set (``info["view"]`` and the action mask), never the game.
When it is asked and the events around the decisions are the game loop's job
(:mod:`table.terminal`, on :class:`table.Table`).

``rich`` is imported only when a HumanAgent is made, so ``agents`` works
without it.
"""

from __future__ import annotations

import re
import sys
from typing import IO, Any


from . import register
from .base import BaseAgent, legal_actions

__all__ = ["HumanAgent", "QuitGame", "card_line", "wrap_prompt", "wrap_text", "CONCEDE"]

QUIT_WORDS = ("q", "quit", "exit")
BOARD_WORDS = ("b", "board")
INFO_WORDS = ("i", "id", "identity", "role")
CONCEDE_WORDS = ("c", "concede")
YES_WORDS = ("y", "yes")
CONCEDE = 0
"""What :meth:`HumanAgent.ask` returns when the person concedes (and confirms)."""
SAY_HEADING = "Say (everyone hears it; true or false, never binding):"
"""The line above the table talk's list of messages."""


class QuitGame(Exception):
    """The person typed a quit word (``q``, ``quit``, ``exit``) at a prompt."""


def card_line(name: str) -> str:
    """A card's text on one line without reminder texts, for an option that casts it: e.g.
    ``"{1} Instant: Shock deals 2 damage to any target."`` (the full text is
    :func:`treachery_env.text.card_text`); ``""`` for a name without a text."""
    from treachery_env.text import card_text
    try:
        first, *rest = card_text(name).splitlines()
    except ValueError:
        return ""
    cost = first[len(name):].strip()
    rest = [re.sub(r" \([^)]*\)", "", line) for line in rest]
    return (f"{cost} " if cost else "") + rest[0] + (": " + " ".join(rest[1:]) if rest[1:] else "")


def _units(text: str, width: int) -> list[str]:
    """The pieces :func:`wrap_text` never breaks: the words of ``text`` (a word of
    closing punctuation alone, such as ``>``, or a board line's ``|`` separator stuck to the
    one before, so no line starts with one), except that a parenthesised
    group is one piece when it fits in ``width``, else one piece per item (up to and with
    its comma) that fits, an item that does not fit being its words."""
    words: list[str] = []
    for w in text.split(" "):
        if w and words and not w.strip(">)]}.,;:|"):
            words[-1] += " " + w
        elif w:
            words.append(w)
    pieces: list[str] = []
    k = 0
    while k < len(words):
        if not words[k].startswith("("):
            pieces.append(words[k])
            k += 1
            continue
        j, depth = k, 0
        while j < len(words):              # j: the word that closes the group (or the last one)
            depth += words[j].count("(") - words[j].count(")")
            if depth <= 0:
                break
            j += 1
        group = words[k:j + 1]
        if len(" ".join(group)) <= width:
            pieces.append(" ".join(group))
        else:
            item: list[str] = []
            for i, w in enumerate(group, 1):
                item.append(w)
                if w.endswith(",") or i == len(group):
                    joined = " ".join(item)
                    pieces.extend([joined] if len(joined) <= width else item)
                    item = []
        k = j + 1
    return pieces


def wrap_text(text: str, width: int, hang: int = 2) -> list[str]:
    """``text`` in lines of at most ``width`` characters (at least 20), each of its lines broken
    at spaces and never inside a parenthesised item: a ``(...)`` group goes whole onto one line
    when it fits in one, else it breaks only after one of its commas (an item too long for a line
    breaks at its words).  A line's continuation lines hang under its start, so that it stays
    one block (a board's player line above the indented lines under it): ``hang`` spaces deeper
    than its leading spaces, or under the words of a numbered option (``"  12. "``).  Trailing
    spaces stay (a prompt's, where the answer is typed); a line that fits is left as it is.  A
    word longer than the line has a line of its own.
    The one way the terminal wraps what it prints (:meth:`HumanAgent.print_text`)."""
    width = max(int(width), 20)
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:          # as it is (a run of spaces in it too)
            out.append(line)
            continue
        body = line.lstrip(" ").rstrip()
        lead = line[:len(line) - len(line.lstrip(" "))]
        number = re.match(r"\d+\. ", body)
        indent = (lead + " " * (number.end() if number else hang))[:width // 2]
        lines = [lead]
        for piece in _units(body, width - len(indent)):
            if lines[-1].strip() and len(lines[-1]) + 1 + len(piece) > width:
                lines.append(indent)
            lines[-1] += (" " if lines[-1].strip() else "") + piece
        lines[-1] += line[len(line.rstrip()):]
        out += lines
    return out


def wrap_prompt(text: str, width: int) -> list[str]:
    """``text`` (a prompt, e.g. ``"Choose 1-4 (i: your identity, ..., q: quit) > "``) in lines
    of at most ``width`` characters (:func:`wrap_text`): never inside a parenthesised hint's
    item, the last line keeping ``text``'s trailing space (where the answer is typed).  Its
    continuation lines start at column 0, so that the hint keeps a line of its own at 80 columns."""
    return wrap_text(text, width, hang=0)


def _is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal (which echoes the newline typed after an answer); False
    for a pipe, a file or an object without ``isatty``."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def _panel(text: str) -> Any:
    """A card's text in a box, its first line (the name) as the title."""
    from rich.panel import Panel
    from rich.text import Text
    first, _, rest = text.partition("\n")
    return Panel(Text(rest or first), title=first, expand=False)


class HumanAgent(BaseAgent):
    """Asks a person for each decision of its seat.

    At each decision it shows the seat's identity (name, role, face up or
    down, unveil cost, Undercover and whether it is met, the card's text; in
    full the first time and whenever it changes, else in one line; in Throne
    Magic its Role card), the decision's prompt and the legal actions numbered
    from 1 in words, then reads a number.  Text, empty lines and numbers out of
    range are refused with a message and asked again; ``i`` shows the identity
    card (the Role card) again.
    When the table lets this seat concede (``GameConfig.concession``, the
    CONCEDE action, CR 104.3a), ``c`` or ``concede`` asks for a confirmation
    (``y``) and then concedes: the seat loses and leaves the game, its team can
    still win (TR7.4).  Conceding is not one of the numbered options, so it is
    never chosen by mistake; ``q`` leaves the program instead (the game is
    saved, not conceded).
    Table talk (TR10.5) is one entry, "say something at the table...", that
    opens the list of messages (with "back").

    Args:
        seed: unused (the protocol of :func:`agents.make`).
        input_stream: where answers are read from, a line each (anything with
            ``readline()``); None reads the terminal through ``input()``
            (with line editing).
        console: the ``rich.console.Console`` to write to (default: a new one
            on standard output).

    Raises (from :meth:`act`):
        QuitGame: when the person types ``q``, ``quit`` or ``exit``.
        EOFError: when the input ends.
        KeyboardInterrupt: on Ctrl-C (or an input stream that raises it).
    """

    name = "human"

    def __init__(self, seed: int | None = None, input_stream: IO[str] | None = None, console: Any = None):
        super().__init__(seed)
        from rich.console import Console
        self.input_stream = input_stream
        self.console = console if console is not None else Console(highlight=False)
        self._shown: tuple | None = None
        self._legend_shown = False

    def reset(self, seat: int) -> None:
        """Start a new game in ``seat`` (the identity is shown in full again)."""
        super().reset(seat)
        self._shown = None

    # ---------------------------------------------------------------- protocol
    def act(self, observation: dict, info: dict) -> int:
        """Show the decision and return the action the person picks (:meth:`choose` with the
        seat's view, or the legal indices of the mask when the info has no view).

        Raises:
            QuitGame, EOFError, KeyboardInterrupt: the person leaves (see the class).
            ValueError: if the mask allows no action.
        """
        view = info.get("view")
        if view is not None and view.decision is not None:
            return self.choose(view)
        options = [(int(a), f"action {int(a)}") for a in legal_actions(observation)]
        if not options:
            raise ValueError("the action mask allows no action")
        self.print_text("Your decision (choose):", style="bold")
        self._print_options([text for _, text in options])
        return options[self.ask(len(options)) - 1][0]

    def choose(self, view: Any, reason: str | None = None) -> int:
        """Ask the person for ``view``'s pending decision and return the chosen action.

        Args:
            view: the seat's :class:`~treachery_env.view.SeatView`; ``view.decision`` must be set.
            reason: why the table asks (a stop's reason, :mod:`table.stops`), shown with the prompt.

        Raises:
            QuitGame, EOFError, KeyboardInterrupt: the person leaves (see the class).
        """
        from treachery_env.text import PRIORITY_QUESTION, choices

        d = view.decision
        options = [(o.action, self._option_text(o, words)) for o, words in choices(view)
                   if o.kind not in ("concede", "talk")]
        concede = next((o.action for o in d.options if o.kind == "concede"), None)
        talk = [(o.action, self._option_text(o, o.text)) for o in d.options if o.kind == "talk"]
        if talk:       # table talk: one entry that opens the list of messages
            options.append((None, f"say something at the table... ({len(talk)} messages, none binding)"))
        self.show_identity(view)
        asked = d.question()           # the prompt as people read it (a numbered permanent's number)
        why = f" ({reason})" if reason and reason != asked else ""
        question = (PRIORITY_QUESTION if asked == "priority" else f"Your decision: {asked}") + why
        words = [text for _, text in options]
        say = [text for _, text in talk] + ["back"]
        while True:
            self.print_text(question, style="bold")
            self._print_options(words)
            k = self.ask(len(options), view, concede=concede is not None, options=words, heading=question)
            if k == CONCEDE:
                return int(concede)
            if options[k - 1][0] is not None:
                return int(options[k - 1][0])
            self.print_text(SAY_HEADING, style="bold")
            self._print_options(say)
            j = self.ask(len(talk) + 1, view, concede=concede is not None, options=say, heading=SAY_HEADING)
            if j == CONCEDE:
                return int(concede)
            if j <= len(talk):
                return int(talk[j - 1][0])

    # ---------------------------------------------------------------- pieces
    def ask(self, n: int, view: Any = None, concede: bool = False, options: list[str] | None = None,
            heading: str | None = None) -> int:
        """Read a number from 1 to ``n``, asking again after any other answer.

        Args:
            n: the number of options (>= 1).
            view: the seat's view, for ``i`` (show the identity again, in Throne Magic the Role card) and
                ``b`` (the board).
            concede: whether the seat may concede now: then ``c`` / ``concede``,
                confirmed with ``y``, returns :data:`CONCEDE` (0); any other
                confirmation answer asks for a number again.
            options: the options' words as they were listed, listed again under the board
                after ``b`` (so that the numbers are on screen); None lists nothing.
            heading: the line printed (bold) above that list when it was first listed (the
                decision's question, or the table talk's heading), printed again above it after
                ``b`` in place of the board's own "you decide" line; None keeps that line.

        Returns:
            the chosen number, 1 to ``n``, or :data:`CONCEDE`.

        Raises:
            QuitGame, EOFError, KeyboardInterrupt: the person leaves.
        """
        throne = getattr(view, "throne_magic", None) is not None     # a Role card, not an identity
        keys = (f"i: your {'Role' if throne else 'identity'}, b: the board, ? NAME: a card's text, "
                if view is not None else "") + ("c: concede, " if concede else "") + "q: quit"
        while True:
            line = self._read_line(f"Choose 1-{n} ({keys}) > ")
            answer = line.strip().lower()
            if answer in QUIT_WORDS:
                raise QuitGame(answer)
            if view is not None and answer.startswith("?"):
                self.read_card(line.strip()[1:].strip(), view)
                continue
            if view is not None and answer in BOARD_WORDS:
                self.show_board(view, decision=heading is None)
                if heading is not None:
                    self.print_text(heading, style="bold")
                if options is not None:
                    self._print_options(options)
                continue
            if answer in CONCEDE_WORDS:
                if not concede:
                    self.print_text("Conceding is not available at this table: type the number of an option "
                                "(q leaves the program).", style="yellow")
                    continue
                after = "a player who left never wins" if throne else "your team can still win"
                sure = self._read_line(f"Concede the game? You lose and leave it; {after}. (y/N) > ").strip().lower()
                if sure in YES_WORDS:
                    return CONCEDE
                self.print_text("Not conceding.", style="dim")
                continue
            if answer in INFO_WORDS and view is not None:
                self._shown = None
                self.show_identity(view)
                continue
            if not answer:
                self.print_text(f"Please type the number of an option, from 1 to {n}.", style="yellow")
                continue
            try:
                k = int(answer)
            except ValueError:
                self.print_text(f"{line.strip()!r} is not a number: type one from 1 to {n}.", style="yellow")
                continue
            if not 1 <= k <= n:
                self.print_text(f"{k} is not an option: type a number from 1 to {n}.", style="yellow")
                continue
            return k

    def show_board(self, view: Any, decision: bool = True, spectator: bool = False) -> None:
        """Print the board as the seat sees it (:func:`treachery_env.text.render_view`: built from
        the view alone), with a legend the first time; ``decision=False`` leaves out the pending
        decision's line (for a board printed right before that decision is asked); ``spectator``:
        ``view`` is the public view, the spectators' board (no seat is "you")."""
        from treachery_env.text import render_view
        self.print_text("")
        self.print_text(render_view(view, legend=not self._legend_shown, decision=decision, spectator=spectator))
        self._legend_shown = True

    def read_card(self, query: str, view: Any) -> None:
        """Print the full text of the card, token or identity ``query`` names (case and spaces
        ignored; a unique beginning of a name is enough; the names of this game first, those the
        view shows before the others: :func:`treachery_env.text.find_name`); with no query, the
        names the board shows that have a text.  A query that names nothing gets a one-line message."""
        from treachery_env.text import card_text, find_name, view_names
        if not query:
            names = view_names(view)
            self.print_text("Type ? and a name: " + (", ".join(names) if names else "(no cards on the board)"),
                        style="dim")
            return
        try:
            name = find_name(query, view)
        except ValueError as err:
            self.print_text(str(err), style="yellow")
            return
        self.console.print(_panel(card_text(name)))

    def show_identity(self, view: Any) -> None:
        """Print the seat's own identity: a panel with its card's text when it is new or changed,
        else one line.  Uses only ``view.me`` (the seat's own, known identity)."""
        from treachery_env.text import card_text

        me = view.me
        if getattr(view, "throne_magic", None) is not None:
            self._show_role(view)
            return
        key = (me.identity, me.face_up, view.undercover_met)
        state = "face up" if me.face_up else "face down"
        role = me.role.name.title() if me.role is not None else "?"
        if key == self._shown:
            self.print_text(f"You are P{view.seat}: {me.identity} ({role}), {state}.", style="dim")
            return
        self._shown = key
        from rich.panel import Panel
        from rich.text import Text
        body = Text(f"{me.identity} - {role}, {state}\n", style="bold")
        try:
            text = card_text(me.identity).split("\n", 1)[1]
        except ValueError:     # not a printed card name: show what the view says
            text = ""
        if "Undercover" in text and not me.face_up:
            body.append(f"Undercover now {'met: you may unveil' if view.undercover_met else 'not met'}\n")
        body.append(text)
        self.console.print(Panel(body, title=f"Your identity (P{view.seat})", expand=False))


    def _show_role(self, view: Any) -> None:
        """Throne Magic: the seat's Role card (its text: whom it must eliminate), once, then a
        reminder line; none yet during the Draft."""
        from treachery_env.text import card_text

        role = view.throne_role
        if role is None:
            self.print_text(f"You are P{view.seat}: the Roles are being drafted, none is dealt yet.", style="dim")
            return
        if self._shown == role:
            self.print_text(f"You are P{view.seat}: {role}.", style="dim")
            return
        self._shown = role
        from rich.panel import Panel
        from rich.text import Text
        body = Text(f"{role}\n", style="bold")
        body.append(card_text(role).split("\n", 1)[1])
        self.console.print(Panel(body, title=f"Your Role (P{view.seat})", expand=False))

    @staticmethod
    def _option_text(option: Any, text: str) -> str:
        if option.card and option.card not in text:
            text += f" ({option.card})"
        if option.card and text.startswith("cast "):
            line = card_line(option.card)
            if line:
                text += f"  [{line}]"
        return text

    def _print_options(self, words: list[str]) -> None:
        """Print ``words`` as the numbered list of options (``"   1. pass"``), numbered from 1."""
        for k, text in enumerate(words, 1):
            self.print_text(f"  {k:>2}. {text}")

    def _read_line(self, prompt: str) -> str:
        """Print ``prompt`` wrapped to the console's width (:func:`wrap_prompt`; rich's width:
        the terminal's, or ``COLUMNS``) and read a line after it.  When the answers do not come
        from a terminal (piped or scripted: the newline typed is not echoed), the prompt's line
        is ended after the answer is read, so that what follows starts on a line of its own."""
        *first, prompt = wrap_prompt(prompt, self.console.width - 1)
        for line in first:
            self.print_text(line)
        if self.input_stream is None:
            line = self.console.input(prompt)           # input(): EOFError at the end
        else:
            line = self.console.input(prompt, stream=self.input_stream)
            if line == "":
                raise EOFError("input ended")
        if not _is_terminal(self.input_stream if self.input_stream is not None else sys.stdin):
            self.console.line()
        return line

    def print_text(self, text: str, style: str | None = None) -> None:
        """Print ``text`` (in the rich ``style``, if any) wrapped to the console's width (rich's:
        the terminal's, or ``COLUMNS``) by :func:`wrap_text`: what the terminal prints is all
        wrapped one way."""
        from rich.text import Text
        self.console.print(Text("\n".join(wrap_text(text, self.console.width)), style=style or ""), soft_wrap=True)


register("human", HumanAgent)
