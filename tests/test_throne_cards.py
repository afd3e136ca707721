"""Throne Magic's Thrones, Holdings and Seasons as data (``treachery_env.throne_cards``):
the names of variants.md 1.4, the two abilities of the rules text, abilities in the card
pool's primitives, the Throne-selection methods, the Holdings' draw and the Seasons' cycle
(``../shared/rules/throne-magic.txt``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from treachery_env import throne_cards as C
from treachery_env import throne_roles

from conftest import engine_ops

PACKAGE = Path(__file__).resolve().parent.parent / "treachery_env"


def test_the_names_are_variants_md_1_4_and_the_rules_abilities_are_the_rules():
    """7 Thrones, 17 Holdings, 4 Seasons; Throne of the Ancient Kings gains 1 life per player
    still in the game and Esseldell 2, both optional, at their controller's upkeep; Spring has
    no effect and Autumn a triggered ability."""
    assert [c.name for c in C.thrones()] == [
        "Throne of the Ancient Kings", "Throne of Power", "Throne of the Abyss", "Throne of the Spider Queen",
        "Throne of Tyrants", "Throne of Visions", "Throne of Wisdom"]
    assert len(C.holdings()) == 17 and len({c.name for c in C.holdings()}) == 17
    assert {"Esseldell", "Calanar, City of Sorcerers", "The Black Citadel", "Ultar"} <= {c.name for c in C.holdings()}
    assert [c.name for c in C.seasons()] == list(C.SEASON_ORDER)
    kings = C.get("throne", "Throne of the Ancient Kings").ability
    assert (kings.trigger, kings.optional, kings.effects) == ("controller_upkeep", True, ({"op": "gain", "n": "players"},))
    ess = C.get("holding", "Esseldell").ability
    assert (ess.trigger, ess.optional, ess.effects) == ("controller_upkeep", True, ({"op": "gain", "n": 2},))
    assert C.get("season", "Spring").ability is None
    assert C.get("season", "Autumn").ability.trigger == "each_upkeep"
    assert {c.source for c in C.thrones() + C.holdings() + C.seasons()} >= {"rules", "designed"}
    assert [c.name for c in C.thrones() + C.holdings() + C.seasons() if c.source == "rules"] == [
        "Throne of the Ancient Kings", "Esseldell", "Spring"]


def test_every_ability_is_in_the_card_pools_primitives_or_a_declared_new_one():
    """Each effect an engine primitive (engine/effects.py), THRONE_PRIMITIVES among them;
    targets of the pool's kinds and indices in range; tokens that exist; one ability per card
    but Spring; every Throne Magic primitive used."""
    ops = engine_ops()
    assert len(ops) >= 20 and set(C.THRONE_PRIMITIVES) <= ops
    used = set()
    for card in C.thrones() + C.holdings() + C.seasons():
        a = card.ability
        if a is None:
            continue
        assert a.trigger in C.TRIGGERS and a.effects and card.text.endswith(".")
        for e in a.effects:
            assert e["op"] in ops, (card.name, e)
            assert e.get("t") is None or 0 <= e["t"] < len(a.targets)
            used.add(e["op"])
    assert set(C.THRONE_PRIMITIVES) <= used
    assert all(c.ability.trigger == "controller_upkeep" for c in C.thrones() + C.holdings())


def test_a_malformed_ability_is_a_one_line_error_naming_the_card(tmp_path, monkeypatch):
    """The loader refuses a trigger, target kind, amount, target index or token it does not know."""
    raw = json.loads((PACKAGE / "data" / "throne_cards.json").read_text("utf-8"))
    raw["holdings"][0]["ability"] = {"trigger": "dawn", "optional": False, "targets": [{"type": "planet"}],
                                     "effects": [{"op": "tokens", "token": "Dragonling", "n": "lots", "t": 3}]}
    bad = tmp_path / "throne_cards.json"
    bad.write_text(json.dumps(raw), "utf-8")
    monkeypatch.setattr(C, "_DATA", bad)
    C._load.cache_clear()
    try:
        with pytest.raises(ValueError) as err:
            C.thrones()
        message = str(err.value)
        assert "\n" not in message and "Balmecia" in message
        for part in ("trigger 'dawn'", "target type 'planet'", "amount 'lots'", "target index 3", "token 'Dragonling'"):
            assert part in message
    finally:
        monkeypatch.undo()
        C._load.cache_clear()
    with pytest.raises(ValueError, match="unknown Throne Magic holding 'Camelot'"):
        C.get("holding", "Camelot")
    with pytest.raises(ValueError, match="unknown Throne Magic card kind 'plane'"):
        C.get("plane", "Esseldell")


def test_the_three_ways_to_choose_the_throne():
    """Random: any Throne; The King's choice: any, but only with The King in the game; agreed:
    the one named, which must exist and be named only then."""
    basic = throne_roles.basic_roles(5)
    names = [c.name for c in C.thrones()]
    assert C.throne_candidates("random", basic) == names == C.throne_candidates("king", basic)
    assert C.throne_candidates("agreed", basic, "Throne of Tyrants") == ["Throne of Tyrants"]
    with pytest.raises(ValueError, match="The King chooses it only when The King is in the game"):
        C.throne_candidates("king", ["Cultist", "Priest", "Dragon", "The Usurper"])
    with pytest.raises(ValueError, match="unknown Throne Magic throne 'Iron Throne'"):
        C.throne_candidates("agreed", basic, "Iron Throne")
    with pytest.raises(ValueError, match="exactly when the method is 'agreed'"):
        C.throne_candidates("random", basic, "Throne of Tyrants")
    with pytest.raises(ValueError, match="exactly when the method is 'agreed'"):
        C.throne_candidates("agreed", basic)
    with pytest.raises(ValueError, match="unknown method 'vote'"):
        C.throne_candidates("vote", basic)


@pytest.mark.parametrize("players,count", [(1, 1), (5, 5), (10, 10), (11, 10), (17, 10)])
def test_one_holding_per_starting_player_up_to_ten(players, count):
    """Holdings: as many as starting players, all 10 with more than 10, drawn without repeats."""
    rng = np.random.default_rng(players)
    drawn = C.draw_holdings(players, rng)
    assert len(drawn) == len(set(drawn)) == count
    assert set(drawn) <= {c.name for c in C.holdings()}
    assert drawn == C.draw_holdings(players, np.random.default_rng(players))   # seeded
    with pytest.raises(ValueError, match="need at least 1 player"):
        C.draw_holdings(0, rng)


def test_the_seasons_move_on_by_one_when_someone_left_last_turn():
    """Seasons: Spring first; a change only when one or more players left during the previous
    turn, and by one Season however many left; Spring follows Winter."""
    assert C.season_after("Spring", 0) == "Spring"
    assert C.season_after("Spring", 1) == "Summer"
    assert C.season_after("Summer", 3) == "Autumn"          # several left: still one step
    assert C.season_after("Winter", 1) == "Spring"
    season = C.SEASON_ORDER[0]
    for _ in range(8):
        season = C.season_after(season, 2)
    assert season == "Spring"
    with pytest.raises(ValueError, match="unknown Throne Magic season 'Monsoon'"):
        C.season_after("Monsoon", 1)
    with pytest.raises(ValueError, match="cannot be negative"):
        C.season_after("Spring", -1)


def test_the_fidelity_table_lists_every_designed_ability_as_the_data_words_it():
    """docs/fidelity.md section 8 names each designed card with the data file's text, so the two
    cannot drift apart; the cards whose abilities the rules text gives are not in that list."""
    doc = (PACKAGE.parent / "docs" / "fidelity.md").read_text("utf-8")
    section = doc[doc.index("## 8. Throne Magic"):]
    for card in C.thrones() + C.holdings() + C.seasons():
        row = f"| {card.name} | {card.text} |"
        assert (row in section) == (card.source != "rules"), card.name


def test_bad_input_to_the_selection_helpers_is_a_one_line_error():
    """A string where a list of Roles goes, a bool or None for a count, a fraction of a
    player, a generator that is not one: one-line ValueErrors, not TypeErrors or a string
    searched as text; numpy's integers are counts."""
    rng = np.random.default_rng(0)
    assert len(C.draw_holdings(np.int64(5), rng)) == 5
    assert C.season_after("Spring", np.int64(2)) == "Summer"
    cases = [
        (lambda: C.throne_candidates("king", "The King"), "Roles of the game must be a list of Role names"),
        (lambda: C.throne_candidates("king", None), "Roles of the game must be a list of Role names"),
        (lambda: C.throne_candidates("random", []), "a game has 4 or more Roles, got \\[\\]"),
        (lambda: C.draw_holdings(True, rng), "the number of players must be a whole number, got True"),
        (lambda: C.draw_holdings(5, None), "rng must be a numpy Generator"),
        (lambda: C.season_after("Spring", None), "the players who left must be a whole number, got None"),
        (lambda: C.season_after("Spring", 0.5), "the players who left must be a whole number, got 0.5"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message) as err:
            call()
        assert "\n" not in str(err.value)

