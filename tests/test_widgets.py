"""Play and replay in a notebook (table/widgets.py), driven headless: the buttons are clicked from code,
as notebook 04 does when it plays unattended."""

from __future__ import annotations

import json
from html import escape

import pytest

from table import HUMAN, Stops, Table
from table.html import option_details
from table.widgets import ReplayWidget, TableWidget
from conftest import allowed_names, forbidden_in


def test_a_seat_plays_a_whole_game_by_clicking_and_sees_only_its_seat():
    t = Table([HUMAN, "heuristic", "heuristic", "random", "heuristic"], seed=12)
    w = TableWidget(t, 0)
    shown = []
    while not t.over:
        assert w.buttons and all(b.action in {o.action for o in t.prompt.view.decision.options} for b in w.buttons)
        assert "your decision" in w.status.value
        shown.append(" ".join(x.value for x in (w.identity, w.board, w.log, w.question)))
        w.click("pass")
    assert w.clicks == t.asked[0] > 3 and not w.buttons and "game over" in w.status.value
    assert all(s.identity in w.end.value for s in t.reveal().seats)
    cards, idents = allowed_names(t.replay_json(), 0)
    dealt = {s.identity for s in t.reveal().seats} | {s.dealt for s in t.reveal().seats}
    for html in shown:
        assert not forbidden_in(html, cards, idents, dealt)
    me = t.view(0).me.identity
    assert me in shown[0] and 'title="' in shown[0]          # its identity, and card texts as tooltips


def test_a_widget_only_for_a_person_s_seat_and_its_buttons_follow_the_stops():
    t = Table([HUMAN, "heuristic", HUMAN, "heuristic", "heuristic"], seed=3, stops=Stops(every=True))
    with pytest.raises(ValueError, match="P1 is not a person's seat"):
        TableWidget(t, 1)
    w0, w2 = TableWidget(t, 0), TableWidget(t, 2)
    asked = t.prompt.seat
    waiting, deciding = (w2, w0) if asked == 0 else (w0, w2)
    waiting._refresh()
    assert deciding.buttons and not waiting.buttons and "waiting for another player" in waiting.status.value
    with pytest.raises(RuntimeError, match="has nothing to decide now"):
        waiting.click()
    assert [b.description for b in deciding.buttons] == [o["text"] for o in option_details(t.prompt.view)]


def test_the_replay_widget_steps_through_a_game_from_any_chair():
    t = Table([HUMAN, "heuristic", "heuristic", "heuristic"], seed=2)
    w = TableWidget(t, 0)
    while not t.over:
        w.click("pass")
    r = ReplayWidget(t.replay_json())
    assert "step 0 of" in r.what.value and r.step.max == len(json.loads(t.replay_json())["actions"])
    r.step.value = 30
    assert "step 30 of" in r.what.value and escape(r.replay.label(30)) in r.what.value
    r.chair.value = 1
    assert "(you)" in r.board.value
    r.step.value = r.step.max
    assert "every identity is revealed" in r.what.value
