"""Messages built from a name that varies (a type's, a card type's, a count) take the article the
name needs: "not an integer", "its top is an int", "an 8-player game", never "a int"."""

from __future__ import annotations

import json

import pytest

import agents
from table.table import Table
from treachery_env import GameConfig
from treachery_env.cards import CARDS
from treachery_env.engine.game import Game
from treachery_env.view import SeatView, seat_view
from treachery_env.words import with_article


@pytest.mark.parametrize("word,said", [("int", "an int"), ("object", "an object"), ("list", "a list"),
                                       ("OptionView", "an OptionView"), ("assassin", "an assassin"),
                                       ("artifact", "an artifact"), ("8-player", "an 8-player"),
                                       ("11-player", "an 11-player"), ("18", "an 18"), ("12-player", "a 12-player"),
                                       ("110", "a 110"), ("'entity'", "an 'entity'"), ("`flat`", "a `flat`")])
def test_a_name_takes_the_article_it_is_spoken_with(word, said):
    assert with_article(word) == said


@pytest.mark.parametrize("field,value,kind", [("config", "x", "an object"), ("seed", "7", "an integer"),
                                              ("seed", True, "an integer"), ("actions", {}, "a list"),
                                              ("digest", 5, "a string")])
def test_a_replay_field_of_the_wrong_kind_is_named_in_jsons_words(field, value, kind):
    """A replay with a string seed said "replay field 'seed' is missing or not a int"."""
    game = Game(GameConfig(num_players=4), seed=3)
    d = json.loads(game.to_json())
    d[field] = value
    with pytest.raises(ValueError, match=f"^replay field '{field}' is missing or not {kind}$"):
        Game.from_json(json.dumps(d))


def test_the_messages_made_from_type_names_take_their_article(tmp_path, monkeypatch):
    """A view's dict whose top is an int, an option's dict without its fields, an outside bot
    whose factory gives an int, an instant put on the battlefield as a planeswalker, seven names
    for a table of another size: each message reads as English ("a int", "a OptionView", "a
    instant", "a 8-player game" before)."""
    with pytest.raises(ValueError, match=r"its top is an int\)$"):
        SeatView.from_dict(5)
    d = seat_view(Game(GameConfig(), seed=1), 0).to_dict()
    with pytest.raises(ValueError, match=r"not a view's dict: an OptionView without \["):
        SeatView.from_dict({**d, "decision": {"__type__": "OptionView"}})
    (tmp_path / "int_bots.py").write_text("def Number(seed=None):\n    return 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match=r"gave an int without act and reset\(\)"):
        agents.make("int_bots:Number", seed=0)
    instant = next(c for c in CARDS if c.type == "instant")
    with pytest.raises(ValueError, match=f"^'{instant.name}' is an instant, not a planeswalker"):
        Game(GameConfig(), seed=1).put_planeswalker_onto_battlefield(0, instant)
    with pytest.raises(ValueError, match="^7 seats for an 8-player game$"):
        Table([f"P{i}" for i in range(7)], GameConfig(num_players=8))
