"""A person at the terminal as a bot (``agents.make("human")``).

:class:`HumanAgent` implements the bot protocol ``act(observation, info) ->
int`` by showing the seat's own identity card and its legal actions, numbered
and in words, on a ``rich`` console and reading the chosen number from an
input stream.  Like every bot it reads only its own seat's information set
(``info["view"]`` and the action mask), never the game.  The board and the
event log around the decisions are the game loop's job
(:mod:`training.play`).

``rich`` is imported only when a HumanAgent is made, so ``agents`` works
without it.
"""

from __future__ import annotations

from typing import IO, Any

from treachery_env import identities
from treachery_env.identities import Identity, UnveilCost

from . import register
from .base import BaseAgent, legal_actions

__all__ = ["HumanAgent", "QuitGame", "identity_card", "unveil_cost_text", "card_summary", "CONCEDE"]

QUIT_WORDS = ("q", "quit", "exit")
INFO_WORDS = ("i", "id", "identity")
CONCEDE_WORDS = ("c", "concede")
YES_WORDS = ("y", "yes")
CONCEDE = 0
"""What :meth:`HumanAgent.ask` returns when the person concedes (and confirms)."""


class QuitGame(Exception):
    """The person typed a quit word (``q``, ``quit``, ``exit``) at a prompt."""


def identity_card(name: str) -> Identity:
    """The printed identity card called ``name`` (a TRD-2025 identity, or a
    simple-roles land: Plains, Island, Mountain, Swamp).

    Raises:
        ValueError: for a name that is neither.
    """
    try:
        return identities.get(name)
    except ValueError:
        if name in identities.SIMPLE_ROLE_NAMES.values():
            return identities.simple_role_card(name)
        raise


def unveil_cost_text(cost: UnveilCost | None) -> str:
    """An unveil cost in words, e.g. ``"{3}{X}, pay 2 life"``; ``"none (starts
    face up)"`` for a Leader's missing cost and ``"free"`` for a zero cost."""
    if cost is None:
        return "none (starts face up)"
    parts = []
    mana = (f"{{{cost.mana}}}" if cost.mana else "") + "{X}" * cost.x + "{Y}" * cost.y
    if mana:
        parts.append(mana)
    if cost.life:
        parts.append(f"pay {cost.life} life")
    for verb, spec in (("discard", cost.discard), ("exile from your hand", cost.exile_from_hand),
                       ("sacrifice", cost.sacrifice)):
        if spec:
            what = "" if spec["filter"] == "any" else f"{spec['filter']} "
            parts.append((f"{verb} {spec['count']} {what}" + ("card(s)" if verb != "sacrifice" else "")).rstrip())
    text = ", ".join(parts) or "free"
    if cost.reduction:
        text += f" (costs {cost.reduction})"
    if cost.constraint:
        text += f" ({cost.constraint})"
    return text


def card_summary(name: str) -> str:
    """A one-line summary of a card of the pool for a person choosing what to
    cast: mana cost, type, power/toughness and keywords, and the effect
    primitives with their amounts, e.g. ``"{1} instant: damage 2"`` or
    ``"{5} creature 4/4 flying, vigilance"``, a planeswalker's loyalty and
    ability texts; ``""`` for a name outside the
    pool (a token or an identity)."""
    from treachery_env.cards import CARD_INDEX

    c = CARD_INDEX.get(name)
    if c is None:
        return ""
    out = f"{{{c.cost}}}" + ("{X}" if c.x else "") + f" {c.type}"
    if c.is_creature:
        out += f" {c.power}/{c.toughness}"
    if c.keywords:
        out += " " + ", ".join(sorted(k.replace("_", " ") for k in c.keywords))
    if c.is_planeswalker:        # loyalty and loyalty abilities (CR 306.5b, 606)
        return out + f" loyalty {c.loyalty}: " + "; ".join(ab["text"] for ab in c.abilities)
    effects = [e["op"].replace("_", " ") + (f" {e['n']}" if "n" in e else "") for e in c.effects]
    if effects:
        out += (": " if not c.is_creature else "; enters: ") + ", ".join(effects)
    return out


class HumanAgent(BaseAgent):
    """Asks a person for each decision of its seat.

    At each decision it shows the seat's identity (name, role, face up or
    down, unveil cost, Undercover and whether it is met, the card's text; in
    full the first time and whenever it changes, else in one line), the
    decision's prompt and the legal actions numbered from 1 in words, then
    reads a number.  Text, empty lines and numbers out of range are refused
    with a message and asked again; ``i`` shows the identity card again.
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

    def reset(self, seat: int) -> None:
        """Start a new game in ``seat`` (the identity is shown in full again)."""
        super().reset(seat)
        self._shown = None

    # ---------------------------------------------------------------- protocol
    def act(self, observation: dict, info: dict) -> int:
        """Show the decision and return the action the person picks.

        Raises:
            QuitGame, EOFError, KeyboardInterrupt: the person leaves (see the class).
            ValueError: if the mask allows no action.
        """
        view = info.get("view")
        mask = observation["action_mask"]
        concede = None
        if view is not None and view.decision is not None:
            options = [(o.action, self._option_text(o)) for o in view.decision.options
                       if mask[o.action] and getattr(o, "kind", None) != "concede"]
            concede = next((o.action for o in view.decision.options
                            if getattr(o, "kind", None) == "concede" and mask[o.action]),
                           None)
            prompt = view.decision.prompt
        else:   # a caller without views: the legal indices are all we know
            options, prompt = [], "choose"
        if not options:
            options = [(int(a), f"action {int(a)}") for a in legal_actions(observation) if int(a) != concede]
        # identical choices (e.g. the same land in two hand slots) are shown once
        seen: set = set()
        options = [o for o in options if not (o[1] in seen or seen.add(o[1]))]
        talk_actions = set() if view is None or view.decision is None else {
            o.action for o in view.decision.options if getattr(o, "kind", None) == "talk"}
        talk = [o for o in options if o[0] in talk_actions]
        if talk:       # table talk: one entry that opens the list of messages
            options = [o for o in options if o[0] not in talk_actions]
            options.append((None, f"say something at the table... ({len(talk)} messages, none binding)"))
        if view is not None:
            self.show_identity(view)
        while True:
            self._print(f"Your decision ({prompt}):", style="bold")
            for k, (_, text) in enumerate(options, 1):
                self._print(f"  {k:>2}. {text}")
            k = self.ask(len(options), view, concede=concede is not None)
            if k == CONCEDE:
                return int(concede)
            if options[k - 1][0] is not None:
                return int(options[k - 1][0])
            self._print("Say (everyone hears it; true or false, never binding):", style="bold")
            for j, (_, text) in enumerate(talk, 1):
                self._print(f"  {j:>2}. {text}")
            self._print(f"  {len(talk) + 1:>2}. back")
            j = self.ask(len(talk) + 1, view, concede=concede is not None)
            if j == CONCEDE:
                return int(concede)
            if j <= len(talk):
                return int(talk[j - 1][0])

    # ---------------------------------------------------------------- pieces
    def ask(self, n: int, view: Any = None, concede: bool = False) -> int:
        """Read a number from 1 to ``n``, asking again after any other answer.

        Args:
            n: the number of options (>= 1).
            view: the seat's view, for ``i`` (show the identity again).
            concede: whether the seat may concede now: then ``c`` / ``concede``,
                confirmed with ``y``, returns :data:`CONCEDE` (0); any other
                confirmation answer asks for a number again.

        Returns:
            the chosen number, 1 to ``n``, or :data:`CONCEDE`.

        Raises:
            QuitGame, EOFError, KeyboardInterrupt: the person leaves.
        """
        keys = "i: your identity, " + ("c: concede, " if concede else "") + "q: quit"
        while True:
            line = self._read_line(f"Choose 1-{n} ({keys}) > ")
            answer = line.strip().lower()
            if answer in QUIT_WORDS:
                raise QuitGame(answer)
            if answer in CONCEDE_WORDS:
                if not concede:
                    self._print("Conceding is not available at this table: type the number of an option "
                                "(q leaves the program).", style="yellow")
                    continue
                sure = self._read_line("Concede the game? You lose and leave it; your team can still win. "
                                       "(y/N) > ").strip().lower()
                if sure in YES_WORDS:
                    return CONCEDE
                self._print("Not conceding.", style="dim")
                continue
            if answer in INFO_WORDS and view is not None:
                self._shown = None
                self.show_identity(view)
                continue
            if not answer:
                self._print(f"Please type the number of an option, from 1 to {n}.", style="yellow")
                continue
            try:
                k = int(answer)
            except ValueError:
                self._print(f"{line.strip()!r} is not a number: type one from 1 to {n}.", style="yellow")
                continue
            if not 1 <= k <= n:
                self._print(f"{k} is not an option: type a number from 1 to {n}.", style="yellow")
                continue
            return k

    def show_identity(self, view: Any) -> None:
        """Print the seat's own identity: a panel when it is new or changed,
        else one line.  Uses only ``view.me`` (the seat's own, known identity)."""
        me = view.me
        key = (me.identity, me.face_up, view.undercover_met)
        state = "face up" if me.face_up else "face down"
        role = me.role.name.title() if me.role is not None else "?"
        if key == self._shown:
            self._print(f"You are P{view.seat}: {me.identity} ({role}), {state}.", style="dim")
            return
        self._shown = key
        from rich.panel import Panel
        from rich.text import Text
        body = Text(f"{me.identity} - {role}, {state}\n", style="bold")
        try:
            card = identity_card(me.identity)
        except ValueError:     # not a printed card name: show what the view says
            card = None
        if card is not None:
            if card.unveil_cost is not None or not me.face_up:
                body.append(f"Unveil cost: {unveil_cost_text(card.unveil_cost)}\n")
            if card.undercover:
                body.append("Undercover: you may unveil it only when its condition holds "
                            f"(now {'met' if view.undercover_met else 'not met'})\n")
            for ab in card.abilities:
                body.append(f"- {ab['text']}\n")
        body.rstrip()
        self.console.print(Panel(body, title=f"Your identity (P{view.seat})", expand=False))

    @staticmethod
    def _option_text(option: Any) -> str:
        text = option.text
        if option.card and option.card not in text:
            text += f" ({option.card})"
        if option.card and text.startswith("cast "):
            summary = card_summary(option.card)
            if summary:
                text += f"  [{summary}]"
        return text

    def _read_line(self, prompt: str) -> str:
        if self.input_stream is None:
            return self.console.input(prompt)           # input(): EOFError at the end
        line = self.console.input(prompt, stream=self.input_stream)
        if line == "":
            raise EOFError("input ended")
        return line

    def _print(self, text: str, style: str | None = None) -> None:
        from rich.text import Text
        self.console.print(Text(text, style=style or ""), soft_wrap=True)


register("human", HumanAgent)
