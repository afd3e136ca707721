"""Play and replay in a Jupyter notebook, with ipywidgets.

:class:`TableWidget` is a person's seat at a :class:`~table.table.Table`: the seat's identity
(in Throne Magic its Role card), the board from its seat (an HTML board, :mod:`table.html`;
hover a card for its text), the legal actions as buttons, the log in words, and the reveal at
the end.  A click answers the
prompt and plays the bots on to the seat's next prompt.  :class:`ReplayWidget` shows a finished
game (:class:`~table.replay.Replay`) step by step, from any seat or the spectators' chairs.

Both are plain Python objects holding widgets (``.box`` to display); their buttons can be
clicked from code (``widget.click("pass")``), which is how a notebook plays unattended.
"""

from __future__ import annotations

from html import escape
from typing import Any

from treachery_env.text import PRIORITY_QUESTION

from .html import board_html, identity_html, option_details, reveal_html
from .replay import Replay
from .table import Table

__all__ = ["TableWidget", "ReplayWidget"]

_STYLE = """<style>
.treachery .seat { border-top: 1px solid #ddd; padding: .3em 0; } .treachery .seat.you { background: #fbf7ee; }
.treachery .seat .head { font-weight: 600; } .treachery .seat .line { margin-left: 1em; }
.treachery .card { text-decoration: underline dotted; cursor: help; } .treachery .out { opacity: .6; }
.treachery table.reveal td, .treachery table.reveal th { padding: .1em .5em; text-align: left; }
</style>"""


def _box(html: str) -> str:
    return f'{_STYLE}<div class="treachery">{html}</div>'


class TableWidget:
    """A person's seat at ``table``, in a notebook.

    Args:
        table: the game; ``seat`` must be one of its people's seats.
        seat: the seat this widget plays.
        log_lines: how many of the latest events the log shows.

    Attributes:
        box: the ``ipywidgets.VBox`` to display.
        buttons: the current prompt's option buttons (``ipywidgets.Button``, ``.action`` the
            action each answers); empty while the seat has nothing to decide.
        clicks: prompts answered through this widget.

    Raises:
        ValueError: for a seat that is not a person's.
        ImportError: without ipywidgets (``pip install ipywidgets``; the notebooks extra has it).
    """

    def __init__(self, table: Table, seat: int, log_lines: int = 14):
        import ipywidgets as w

        if seat not in table.humans:
            raise ValueError(f"P{seat} is not a person's seat at this table (people: {list(table.humans)})")
        self.table, self.seat, self.log_lines = table, seat, log_lines
        self.clicks = 0
        self.buttons: list = []
        self.status = w.HTML()
        self.identity = w.HTML()
        self.question = w.HTML()
        self.options = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.board = w.HTML()
        self.log = w.HTML()
        self.end = w.HTML()
        self.box = w.VBox([self.status, self.question, self.options, self.end, self.identity, self.board, self.log])
        self._advance()

    def click(self, kind: str | None = None) -> None:
        """Click the first button whose option is of ``kind`` (``"pass"``, ``"cast"``...), else the
        first button (None: the first).

        Raises:
            RuntimeError: when the seat has no prompt (the game is over, or another seat decides).
        """
        if not self.buttons:
            raise RuntimeError(f"P{self.seat} has nothing to decide now")
        chosen = next((b for b in self.buttons if kind is not None and b.kind == kind), self.buttons[0])
        chosen.click()

    # ------------------------------------------------------------------ pieces
    def _answer(self, button: Any) -> None:
        self.table.answer(self.seat, button.action)
        self.clicks += 1
        self._advance()

    def _advance(self) -> None:
        self.table.advance()
        self._refresh()

    def _refresh(self) -> None:
        import ipywidgets as w

        t = self.table
        view = t.view(self.seat)
        p = t.prompt if t.prompt is not None and t.prompt.seat == self.seat else None
        turn = f"turn {t.turn}" if t.turn else "mulligans"
        state = "game over" if t.over else "your decision" if p else (
            "waiting for another player" if t.prompt is not None else "")
        game = "Throne Magic" if t.config.game == "throne_magic" else "Treachery"
        self.status.value = f"<b>{game} - P{self.seat}</b>: {turn}, {state}"
        self.identity.value = _box(identity_html(view))
        self.board.value = _box(board_html(view, titles=True))
        events = t.events(self.seat)[-self.log_lines:]
        self.log.value = _box("<b>What happened</b><ol start='%d'>%s</ol>" % (
            events[0].number + 1 if events else 1, "".join(f"<li>{escape(e.text)}</li>" for e in events)))
        self.buttons = []
        if p is not None:
            asked = p.view.decision.question()
            reason = f" <i>({escape(p.reason)})</i>" if p.reason != asked else ""
            question = PRIORITY_QUESTION if asked == "priority" else asked
            self.question.value = f"<b>{escape(question)}</b>{reason}"
            for o in option_details(p.view):
                b = w.Button(description=o["text"], tooltip=o["text"], layout=w.Layout(width="auto"),
                             button_style="danger" if o["kind"] == "concede" else "")
                b.action, b.kind = o["action"], o["kind"]
                b.on_click(self._answer)
                self.buttons.append(b)
        else:
            self.question.value = ""
        self.options.children = tuple(self.buttons)
        self.end.value = _box(reveal_html(t.reveal())) if t.over else ""


class ReplayWidget:
    """A finished game step by step: a slider over the actions, a chair (a seat or the
    spectators), the board as that chair saw it, and the step's events.

    Args:
        replay: a :class:`~table.replay.Replay`, or replay JSON text.
        seat: the chair to start from (None: the spectators).

    Attributes:
        box: the ``ipywidgets.VBox`` to display.  step: the slider.  chair: the chair's dropdown.

    Raises:
        ValueError: for text that is not a replay (from :class:`Replay`).
    """

    def __init__(self, replay: "Replay | str", seat: int | None = None):
        import ipywidgets as w

        self.replay = replay if isinstance(replay, Replay) else Replay(replay)
        n = self.replay.num_players
        self.step = w.IntSlider(value=0, min=0, max=self.replay.steps, description="step",
                                layout=w.Layout(width="95%"))
        self.chair = w.Dropdown(options=[("spectators", None)] + [(f"P{k}", k) for k in range(n)], value=seat,
                                description="seen by")
        self.what = w.HTML()
        self.board = w.HTML()
        self.box = w.VBox([w.HBox([self.chair]), self.step, self.what, self.board])
        self.step.observe(lambda _: self.show(), names="value")
        self.chair.observe(lambda _: self.show(), names="value")
        self.show()

    def show(self) -> None:
        """Draw the frame of the slider's step from the dropdown's chair."""
        f = self.replay.frame(self.step.value, self.chair.value)
        head = f"step {f.step} of {self.replay.steps}, turn {f.turn}"
        if f.actor is not None:
            head += f": {escape(f.label)}"           # the step in words, as far as this chair saw it
        events = "".join(f"<li>{escape(e)}</li>" for e in f.events)
        self.what.value = _box(f"<b>{head}</b><ul>{events}</ul>")
        self.board.value = _box(board_html(f.view, spectator=f.seat is None, titles=True))
