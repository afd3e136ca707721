"""The readable game (issue #15, treachery_env/text.py): the text of every card,
token and identity card, a sentence for every event the engine logs, and a
board picture made only from a seat's view that shows nothing hidden from it."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

import agents
import treachery_env
from agents import play_game
from treachery_env import GameConfig, identities
from treachery_env.cards import CARD_INDEX, CARDS, COUNTER_TOKENS, KEYWORDS, TOKENS, CardDef
from treachery_env.engine import DecisionKind, Game
from treachery_env.text import EVENT_KINDS, card_text, format_event, render, render_view, unveil_cost_text
from treachery_env.view import FrozenDict, freeze, seat_view

from conftest import engine_ops
from scenario import random_game
from test_information_sets import _permute_hidden

PACKAGE = Path(treachery_env.__file__).parent
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _amount_in(n, text: str) -> bool:
    """Whether amount ``n`` of an effect is written in ``text`` (digits, a number word, "a" for one, or X)."""
    if n == "X":
        return "X" in text
    return str(n) in text or NUMBER_WORDS[n] in text.lower() or (n == 1 and re.search(r"\ban? ", text) is not None)


# ------------------------------------------------------------------------------------------ card text
@pytest.mark.parametrize("c", CARDS, ids=lambda c: c.name)
def test_every_pool_card_has_its_facts_in_its_text(c):
    text = card_text(c.name)
    first, type_line = text.split("\n")[:2]
    assert first.startswith(c.name)
    assert c.type in type_line.lower() and (("Legendary" in type_line) == c.legendary)
    if not c.is_land:
        assert f"{{{c.cost}}}" in first or (c.x and c.cost == 0)
        assert ("{X}" in first) == c.x
    if c.is_creature:
        assert text.endswith(f"{c.power}/{c.toughness}")
    lines = text.split("\n")
    for kw in KEYWORDS:             # a line of its own, with its reminder
        assert any(x.startswith(kw.replace("_", " ").capitalize() + " (") for x in lines) == (kw in c.keywords), kw
    assert ("Flash" in text) == c.flash
    for e in c.effects + tuple(e for ab in c.abilities for e in ab["effects"]):
        if "n" in e:
            assert _amount_in(e["n"], text), (e, text)
        if "token" in e:
            assert e["token"] in text
        if "p" in e:
            assert f"+{e['p']}/+{e['q']}" in text
    if c.is_planeswalker:
        assert text.endswith(f"Loyalty: {c.loyalty}")
        for ab in c.abilities:
            assert f"\n{ab['loyalty']:+d}: " in text


@pytest.mark.parametrize("name,lines", [
    ("Shock", "Shock {1}\nInstant\nShock deals 2 damage to any target."),
    ("Blaze", "Blaze {X}{1}\nSorcery\nBlaze deals X damage to any target."),
    ("Blood Siphon", "Blood Siphon {3}\nSorcery\nTarget player loses 3 life. You gain 3 life."),
    ("Trade Secrets", "Trade Secrets {4}\nSorcery\nTarget opponent draws two cards. Draw four cards."),
    ("Lava Axe", "Lava Axe {5}\nSorcery\nLava Axe deals 5 damage to target player."),
    ("Negate", "Negate {2}\nInstant\nCounter target noncreature spell."),
])
def test_spell_texts_in_full(name, lines):
    assert card_text(name) == lines


def test_creature_and_planeswalker_texts_say_what_the_engine_does():
    sera = card_text("Sera, Dawn Marshal")
    assert sera.startswith("Sera, Dawn Marshal {4}\nLegendary Creature\n") and sera.endswith("\n3/3")
    assert "When Sera, Dawn Marshal enters, create two 1/1 Soldier creature tokens." in sera
    assert "When Flame Adept enters, it deals 2 damage to any target." in card_text("Flame Adept")
    assert "When Mossback Hydra enters, put two +1/+1 counters on it." in card_text("Mossback Hydra")
    assert "Tap target creature. Put a stun counter on it" in card_text("Frost Lock")
    assert "Target creature gets +3/+3 until end of turn." in card_text("Giant Growth")
    assert "Search your library for up to two land cards" in card_text("Explosive Vegetation")
    orla = card_text("Orla, Pack Warden")
    assert "+1: Create a 1/1 Soldier creature token.\n-2: Put two +1/+1 counters on target creature." in orla
    assert "-7: Create three 4/4 Beast creature tokens with trample." in card_text("Maren, Dawn Herald")
    assert card_text("Wastes").split("\n")[:2] == ["Wastes", "Basic Land"]


def test_every_token_has_its_text():
    for name, t in TOKENS.items():
        text = card_text(name)
        assert text.split("\n")[0] == name
        if t.type == "creature":
            assert "Token Creature" in text and text.endswith(f"{t.power}/{t.toughness}")
            for kw in t.keywords:
                assert "\n" + kw.replace("_", " ").capitalize() + " (" in text
        else:
            assert f"Token Artifact — {name}" in text and name in COUNTER_TOKENS
    # the activated abilities the engine implements (engine/stack.py, _activate_token and costs.py)
    assert "{2}, Sacrifice this token: Draw a card." in card_text("Clue")
    assert "{2}, Sacrifice this token: You gain 3 life." in card_text("Food")
    assert "{1}, Discard a card, Sacrifice this token: Draw a card." in card_text("Blood")
    assert "explores. Activate only as a sorcery." in card_text("Map")
    assert "Draw a card. Activate only as a sorcery." in card_text("Junk")
    assert "add one mana" in card_text("Treasure")
    assert "The Grenadier" in card_text("Explosive")


@pytest.mark.parametrize("card", identities.all_identities(), ids=lambda c: c.name)
def test_every_identity_has_its_text(card):
    text = card_text(card.name)
    assert text.split("\n")[0] == card.name
    assert f"Identity — {card.role.name.title()}" in text
    assert ("Unveil — " + unveil_cost_text(card.unveil_cost) in text) == (card.unveil_cost is not None)
    assert ("Undercover" in text) == card.undercover
    for ab in card.abilities:
        assert ab["text"] in text
    for kind in card.start.get("counters", {}):
        assert f"{kind} counters" in text


def test_simple_role_lands_and_unveil_costs_in_words():
    for role, name in identities.SIMPLE_ROLE_NAMES.items():
        text = card_text(name)
        assert text.startswith(f"{name}\nBasic Land — {name}") and f"the {role.name.title()}'s role card" in text
    assert unveil_cost_text(identities.get("The Metamorph").unveil_cost) == "pay 8 life, discard a card"
    assert unveil_cost_text(identities.get("The Ambitious Queen").unveil_cost) == (
        "pay 1 life, exile a nonland card from your hand")
    assert unveil_cost_text(identities.get("The Bio-Engineer").unveil_cost) == "sacrifice a nontoken permanent"
    assert unveil_cost_text(identities.get("The Mirror Maestra").unveil_cost) == "{2}{X}{X}"
    assert unveil_cost_text(identities.get("The Treacherous Masochist").unveil_cost) == "free"
    assert unveil_cost_text(None).startswith("none")


@pytest.mark.parametrize("name", ["Nope", "", "shock", "Soldiers", "the seer"])
def test_unknown_names_raise(name):
    with pytest.raises(ValueError, match=re.escape(f"unknown card, token or identity: {name!r}")):
        card_text(name)


def test_every_effect_primitive_has_words(monkeypatch):
    ops = engine_ops()
    used = {e["op"] for c in CARDS for e in c.effects + tuple(e for ab in c.abilities for e in ab["effects"])}
    assert used <= ops and len(ops) >= 20
    for op in sorted(ops):         # any primitive, on a card made for the test
        e = {"op": op, "n": 2, "t": 0, "p": 1, "q": 1, "token": "Soldier"}
        c = CardDef(index=999, name="Test Card", type="sorcery", cost=1, effects=(e,), targets=({"type": "any"},))
        monkeypatch.setitem(CARD_INDEX, "Test Card", c)
        text = card_text("Test Card")
        assert text.startswith("Test Card {1}\nSorcery\n") and text.endswith("."), op
    c = CardDef(index=999, name="Test Card", type="sorcery", cost=1, effects=({"op": "frobnicate"},))
    monkeypatch.setitem(CARD_INDEX, "Test Card", c)
    with pytest.raises(ValueError, match="no words for effect op 'frobnicate'"):
        card_text("Test Card")


# ------------------------------------------------------------------------------------------ events
# a value for each key the engine logs, by key (or by (event, key) where one key means two things)
SAMPLE = {
    "seat": 1, "n": 2, "x": 3, "card": "Shock", "name": "Grove Bear", "identity": "The Seer", "source": "The Augur",
    "targets": [["player", 2], ["creature", 7, "Grove Bear"], None], "target": ["creature", 7, "Grove Bear"],
    "cards": ["Shock", "Wastes"], "zone": "graveyard", "reason": "rules", "seats": [1, 2], "winners": [1, 3],
    "turns": 250, "attackers": [[5, "Grove Bear", 2], [6, "Wolf", 3, 9, "Pyra, Storm Sage"]], "blocks": [[7, 5]],
    "first_strike": True, "to_players": {"2": 3}, "creature": 5, "planeswalker": 9, "loyalty": 5, "ability": 0,
    "cost": 1, "key": "etb", "count": 1, "mulligans": 1, "hand": 6, "bottom": 1, "partner": 3, "broken_by": [1],
    "subject": 3, "kind": "accuse", "role": "assassin", "card_type": "creature", "until": "cleanup", "kept": 5,
    "permanent": "Grove Bear", "owner": 2, "exiled": ["Wastes", "Murder"], "total": 4, "to_seat": 0, "what": "damage",
    "choice": "lose half your life, rounded up", "mode": "white: create four 1/1 Soldier tokens", "modes": [0, 1],
    "results": [3, 6], "identities": ["The Seer", "The Demon"], "moved": [1, 2], "max_mv": 3, "tapped": True,
    "token": "Treasure", "stun": 1, "position": 3, "victim": 3, "previous": 2, "roles": [1, 2],
    ("blocks", "names"): [["Wolf", 2, "Grove Bear", 1]], ("savior", "target"): 3, ("player_counters", "kind"): "rad", ("pay_counters", "kind"): "gem",
    ("metamorph_takes", "role"): 2, ("look_at_identities", "identities"): {2: "The Seer", 4: "The Demon"},
    # Throne Magic (engine/throne.py)
    "method": "basic", "other": 3, "controller": 2, "why": "taken", ("loses", "role"): "Dragon",
    ("roles", "roles"): ["The King", "Dragon"], ("reveal_all", "roles"): ["Dragon", "The King"],
    ("throne", "name"): "Throne of Power", ("throne_control", "name"): "Throne of Power",
    ("king", "seat"): 2, "first": 2, "season": "Summer", "names": ["Galdi", "Ultar"], "holding": 1,
    ("draft_pick", "role"): "Wizard", ("deal_role", "role"): "Wizard", ("reveal_role", "role"): "Wizard",
    ("look_at_role", "role"): "Wizard", ("holding_control", "name"): "Galdi",
    # Archenemy's schemes (engine/archenemy.py)
    "sizes": [20, 20, 20, 20], "ongoing": True, ("scheme", "name"): "The Iron Muster",
    ("scheme_bottom", "name"): "Dark Communion", ("scheme_abandoned", "name"): "Endless Levy",
    # the Vanguard variant (engine/vanguard.py, CR 902)
    ("vanguard", "name"): "Warden of the Vale", ("vanguard", "life"): 6, ("vanguard", "hand"): -1,
    # Planechase (engine/planechase.py)
    "face": "chaos", "abilities_gone": 1, ("plane", "name"): "Emberfall Caldera", ("plane", "kind"): "plane",
    ("plane_to_bottom", "name"): "Cinder Convergence", ("starting_plane", "name"): "Emberfall Caldera",
    ("planeswalk", "source"): "Emberfall Caldera", ("plane_leaves", "name"): "Bloodmire Fen",
}
DYNAMIC = {"kind": ("discard", "exile_from_hand")}
"""Event kinds made at run time: the unparsed first argument of ``_log`` -> the kinds it makes
(unveil costs paid with a card, engine/costs.py)."""


def _logged() -> list:
    """``(kind, keys)`` of every ``_log`` call in the package's source."""
    out = []
    for f in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "_log" and node.args):
                continue
            keys = tuple(k.arg for k in node.keywords if k.arg not in (None, "to"))
            a = node.args[0]
            if isinstance(a, ast.Constant):
                kinds = (a.value,)
            elif isinstance(a, ast.IfExp) and isinstance(a.body, ast.Constant) and isinstance(a.orelse, ast.Constant):
                kinds = (a.body.value, a.orelse.value)
            else:
                src = ast.unparse(a)
                assert src in DYNAMIC, f"{f}:{node.lineno}: a new computed event kind {src}: add it to DYNAMIC"
                kinds = DYNAMIC[src]
            out.extend((kind, keys) for kind in kinds)
    return out


def test_every_logged_event_kind_has_a_sentence():
    logged = _logged()
    assert len(logged) > 150
    assert {k for k, _ in logged} == EVENT_KINDS          # none without words, no words for nothing
    for kind, keys in logged:
        entry = {"turn": 5, "event": kind, **{k: SAMPLE.get((kind, k), SAMPLE.get(k)) for k in keys}, "to": None}
        assert all(k in SAMPLE or (kind, k) in SAMPLE for k in keys), (kind, keys)
        for e in (entry, freeze(entry)):      # a log entry, and a view's frozen one
            text = format_event(e)
            assert text and "=" not in text and "None" not in text, (kind, text)
    # a kind the engine never logs is still told, recognisably (the fallback)
    assert format_event({"turn": 1, "event": "new_thing", "seat": 2, "n": 1, "to": None}) == "P2 new thing (n: 1)"


def test_event_sentences():
    assert format_event({"turn": 3, "event": "tokens", "seat": 4, "name": "Blood", "n": 1, "to": None}) == (
        "P4 creates a Blood token")
    assert format_event({"turn": 3, "event": "tokens", "seat": 4, "name": "Soldier", "n": 2, "to": None}) == (
        "P4 creates two Soldier tokens")
    assert format_event({"turn": 3, "event": "gain_life", "seat": 2, "n": 3, "to": None}) == "P2 gains 3 life"
    assert format_event({"turn": 3, "event": "cast", "seat": 1, "card": "Blaze", "x": 4,
                         "targets": [["creature", 8, "Grove Bear"]], "to": None}) == (
        "P1 casts Blaze (X is 4) targeting Grove Bear")
    # CR 601.2a: the card, its caster and the zone it comes from, before X and targets
    casting = {"turn": 3, "event": "casting", "seat": 1, "card": "Blaze", "zone": "hand", "owner": 1, "to": None}
    assert format_event(casting) == "P1 begins to cast Blaze from their hand"
    assert format_event(dict(casting, card="Pyra, Storm Sage", zone="command")) == (
        "P1 begins to cast Pyra, Storm Sage from the command zone")
    assert format_event(dict(casting, zone="graveyard", owner=3, source="The Sigil Mage")) == (
        "P1 begins to cast Blaze from P3's graveyard (The Sigil Mage)")
    assert format_event(dict(casting, zone="exile", source="The Augur")) == (
        "P1 begins to cast Blaze from exile (The Augur)")
    assert format_event(dict(casting, zone="exile", owner=0, source="The Spellsnatcher")) == (
        "P1 begins to cast Blaze from exile (P0's card) (The Spellsnatcher)")
    assert format_event({"turn": 3, "event": "land", "seat": 2, "to": None}) == "P2 plays a land"
    assert format_event({"turn": 3, "event": "land", "seat": 2, "card": "Wastes", "zone": "graveyard", "owner": 2,
                         "source": "The Lich Queen", "to": None}) == (
        "P2 plays Wastes from their graveyard (The Lich Queen)")
    assert format_event(FrozenDict({"turn": 3, "event": "activate", "seat": 0, "source": "Clue", "targets": (),
                                    "to": None})) == "P0 sacrifices a Clue token to activate it"
    assert format_event({"turn": 3, "event": "attacks", "seat": 1, "to": None,
                         "attackers": [[5, "Wolf", 2, 9, "Pyra, Storm Sage"]]}) == (
        "P1 attacks: Wolf attacks Pyra, Storm Sage (P2's planeswalker)")
    assert format_event({"turn": 3, "event": "loses", "seat": 2, "identity": "The Seer", "reason": "concede",
                         "to": None}).startswith("P2 CONCEDES and leaves the game")


def _game_configs() -> list:
    return [GameConfig(num_players=5, max_turns=60),
            GameConfig(num_players=5, commander=False, identity_pool="all", max_turns=60),
            GameConfig(num_players=5, variant="simple_roles", max_turns=60),
            GameConfig(num_players=5, max_turns=60, identities=("Her Seedborn Highness", "The Supplier",
                                                                 "The Bio-Engineer", "The Physician", "The Grenadier")),
            GameConfig(num_players=6, identity_pool="all", max_turns=80)]


def _play(cfg: GameConfig, seed: int, every: int = 0) -> tuple:
    """A game of random bots; returns it and, with ``every``, ``(game clone, seat)`` taken every
    ``every`` decisions (mid-game states to view)."""
    holder: dict = {}
    taken: list = []

    def on_decision(game, seat, bot, seconds):
        holder["game"] = game
        holder["k"] = holder.get("k", 0) + 1
        if every and holder["k"] % every == 0:
            taken.append((game.clone(), seat))

    bots = [agents.make("random", seed=100 * seed + s) for s in range(cfg.num_players)]
    play_game(bots, cfg, seed=seed, on_decision=on_decision)
    return holder["game"], taken


@pytest.mark.parametrize("k", range(5))
def test_random_games_log_only_events_with_sentences(k):
    cfg = _game_configs()[k]
    seen = set()
    for seed in range(6):
        g, _ = _play(cfg, seed)
        assert g.is_over
        for e in g.log:
            seen.add(e["event"])
            assert e["event"] in EVENT_KINDS
            text = format_event(e)
            assert text and "=" not in text, text
        for s in range(cfg.num_players):            # a view's frozen events (tuples) read as the log's
            shown = [e for e in g.log if e["turn"] >= g.turn - 1 and (e["to"] is None or s in e["to"])]
            assert [format_event(e) for e in seat_view(g, s).events] == [format_event(e) for e in shown]
    assert {"turn", "cast", "draw", "resolve"} <= seen


# ------------------------------------------------------------------------------------------ the board
def _check_view_text(g: Game, seat: int) -> None:
    """What render_view shows of ``g`` for ``seat``: the public zones, counters, commander damage, and
    no face-down identity the seat does not know."""
    v = seat_view(g, seat)
    text = render_view(v)
    assert text == render(g, seat)
    known = {p.identity for p in v.players if p.identity is not None}
    for p in v.players:
        if p.graveyard:
            assert f"graveyard ({len(p.graveyard)}): " + ", ".join(p.graveyard) in text
        if p.exile:
            assert f"exile ({len(p.exile)}): " + ", ".join(p.exile) in text
        for s, n in p.commander_damage_taken.items():
            if n:
                assert f"{n} from P{s}'s {v.players[s].commander}" in text
        for kind, n in p.identity_counters.items():
            if n:
                assert f"{n} {kind}" in text.split("identity counters: ", 1)[1]
        for kind, n in p.player_counters.items():
            if n:
                assert f"{n} {kind}" in text.split("counters on the player: ", 1)[1]
        assert f"lands: {p.lands} ({p.untapped_lands} untapped)" in text
        casts = g.players[p.seat].commander_casts
        assert p.commander_casts == casts                   # public (CR 903.8), and in every seat's view
        if casts:
            said = {1: "once", 2: "twice"}.get(casts, f"{casts} times")
            assert f"{p.commander} (" in text and f"cast {said}, tax {{{2 * casts}}})" in text
        for c in p.creatures:           # "Soldier #2": same-named permanents are numbered
            assert f"{c.name}{f' #{c.ordinal}' if c.ordinal > 1 else ''} {c.power}/{c.toughness}" in text
        if p.identity is None:              # hidden from the seat: its name appears nowhere
            real = g.players[p.seat].identity.name
            assert "[hidden]" in text
            if real not in known:           # (simple roles: two Assassins are both Mountains)
                assert real not in text, (seat, real)
        else:
            assert p.identity in text
    assert ("your hand: " + (", ".join(v.me.hand) if v.me.hand else "(empty)")) in text
    assert text.count("your hand") == 1


@pytest.mark.parametrize("k", range(5))
def test_render_view_of_mid_game_views(k):
    cfg = _game_configs()[k]
    shown = {"graveyard": 0, "exile": 0, "commander damage": 0, "identity counters": 0, "hidden": 0}
    for seed in range(2):
        _, taken = _play(cfg, seed, every=37)
        for g, seat in taken:
            for s in (seat, (seat + 1) % g.n):
                _check_view_text(g, s)
                text = render(g, s)
                for what in shown:
                    shown[what] += ("[hidden]" if what == "hidden" else what) in text
    assert shown["graveyard"] and shown["hidden"]
    if cfg.commander:
        assert shown["commander damage"]
    if cfg.identities:          # Her Seedborn Highness starts with seed counters
        assert shown["identity counters"]


def test_render_view_is_a_function_of_the_information_set():
    """Two games that differ only in what a seat cannot see (others' face-down identities and
    hands, libraries, face-down exiles) render the same for it, and for a spectator."""
    rng = random.Random(5)
    for seed in range(12):
        g = random_game(seed, rng.randrange(0, 600), n=5, max_turns=60)
        viewer = seed % 5
        for _ in range(3):
            h = _permute_hidden(g, viewer, rng)
            assert render_view(seat_view(g, viewer), legend=True) == render_view(seat_view(h, viewer), legend=True)
            assert render(g, viewer) == render(h, viewer)
            assert render(g, None) == render(h, None)


def test_spectator_sees_only_public_information():
    cfg = GameConfig(num_players=5, identities=["The Old Ruler", "The Bodyguard", "The Seer", "The Demon",
                                                "The Banisher"], decks=["aggro"] * 5)
    g = Game(cfg, seed=0)
    text = render(g, None)
    assert "The Old Ruler (Leader), face up" in text
    for hidden in ("The Bodyguard", "The Seer", "The Demon", "The Banisher"):
        assert hidden not in text
    assert text.count("[hidden]") == 4 and "your hand" not in text and "(you)" not in text
    assert "you decide" not in text
    own = render(g, 2)
    assert "P2 (you): " in own and "The Seer (Assassin), face down" in own and "Undercover" not in own
    hand = ", ".join(c.name for c in g.players[2].hand)
    assert f"your hand: {hand}" in own


def test_legend_and_words_for_the_state():
    g = random_game(3, 400, n=5, max_turns=60)
    v = seat_view(g, 0)
    assert "\nlegend:\n" in render_view(v, legend=True) and "legend:" not in render_view(v)
    assert render_view(v, legend=True).startswith(render_view(v))
    text = render_view(v)
    assert " T " not in text and " A " not in text and "lands 0/" not in text
    for p in v.players:
        for c in p.creatures:
            if c.tapped:
                assert re.search(re.escape(f"{c.name} {c.power}/{c.toughness}") + r"[^;]*\(.*tapped", text)


def test_the_end_of_the_game_shows_every_identity_and_the_result():
    g, _ = _play(GameConfig(num_players=5, max_turns=40), 1)
    for s in range(5):
        text = render(g, s)
        assert "GAME OVER" in text and "you decide" not in text
        for p in g.players:
            assert p.identity.name in text
    assert "GAME OVER" in render(g, None)


def test_a_persons_choices_merge_what_looks_the_same_and_tell_apart_the_rest():
    """``text.choices``: options equal but for their action index, or for the uid and number
    ("#2") of a creature whose board line is otherwise the same, are one choice (the first);
    choices that share words get the creature's board line; the web table's buttons are those
    choices, in the decision's order."""
    from table.html import option_details
    from treachery_env.text import _creature_words, _label, _object_names, choices
    from treachery_env.view import ViewBuilder

    merged = told_apart = 0
    for seed in range(60):
        g = Game(GameConfig(num_players=5), seed=seed)
        rng, views = random.Random(seed), ViewBuilder(g)
        while not g.is_over and g.decisions_taken < 1500:
            view = views.build(g.current_player)
            opts, listed = view.decision.options, choices(view)
            kept = [o for o, _ in listed]
            assert [o for o in opts if o in kept] == kept                                   # the decision's order
            lines = {c.uid: (p.seat, _creature_words(c._replace(ordinal=1), _object_names(view)))
                     for p in view.players for c in p.creatures}
            numbered = {c.uid: (_label(c), c.name) for p in view.players for c in p.creatures}

            def looks(o):
                label, name = numbered.get(o.creature, ("", ""))
                text = re.sub(re.escape(label) + r"(?!\d)", name, o.text) if label != name else o.text
                return (text, *o[2:5]), o[6:], lines.get(o.creature, o.creature)

            for k, o in enumerate(opts):
                same = [e for e in opts[:k] if e in kept and looks(e) == looks(o)]
                assert (o in kept) == (not same or o.kind == "concede")
            merged += len(kept) < len(opts)
            for o, w in listed:
                if w != o.text:
                    assert w.startswith(o.text + " - P") and sum(e.text == o.text for e in kept) > 1
                if o.creature in numbered and numbered[o.creature][0] != numbered[o.creature][1]:
                    told_apart += 1         # a numbered creature: its number tells it apart
                    assert numbered[o.creature][0] in w
            assert len({w for _, w in listed}) == len(listed)          # no two choices read the same
            assert [(b["action"], b["text"]) for b in option_details(view)] == [(o.action, w) for o, w in listed]
            g.step(rng.choice(g.legal_actions()))
        if merged >= 5 and told_apart >= 2:
            break
    assert merged >= 5 and told_apart >= 2, (merged, told_apart)


def test_combat_lines_name_the_blocks_and_the_planeswalkers_hit():
    """The blockers' line says what blocks what (CR 509.1) and combat damage names the planeswalker
    it hit (CR 510.2), both public; entries logged before the names were keep their old words."""
    e = {"turn": 3, "event": "blocks", "to": None, "blocks": [[7, 5], [8, 6]],
         "names": [["Wolf", 2, "Grove Bear", 1], ["Soldier", 2, "Bog Rat", 4]]}
    assert format_event(e) == "blockers declared: Wolf (P2) blocks Grove Bear (P1); Soldier (P2) blocks Bog Rat (P4)"
    old = {k: v for k, v in e.items() if k != "names"}
    assert format_event(old) == "blockers declared: 2 creatures block"
    hit = {"turn": 3, "event": "combat_damage", "to": None, "to_players": {"2": 3}, "to_planeswalkers": {"9": 2},
           "planeswalkers": {"9": ["Pyra, Storm Sage", 3]}}
    assert format_event(hit) == "combat damage: P2 takes 3, Pyra, Storm Sage (P3's planeswalker) takes 2"
    seen = 0
    for seed in range(30):          # the engine logs them so: one name pair per block
        g = random_game(seed, 1500)
        for entry in g.log:
            if entry["event"] == "blocks":
                assert len(entry["names"]) == len(entry["blocks"]) and format_event(entry).count(" blocks ") == \
                    len(entry["blocks"])
                seen += 1
            if entry["event"] == "combat_damage" and entry.get("to_planeswalkers"):
                assert "a planeswalker takes" not in format_event(entry)
        if seen >= 5:
            break
    assert seen >= 5


def test_a_creature_attacking_a_planeswalker_names_its_controller_once():
    from types import SimpleNamespace

    from treachery_env.text import _creature_words

    c = SimpleNamespace(name="Wolf", power=2, toughness=2, keywords=(), commander=False, token=True, tapped=True,
                        summoning_sick=False, attacking=4, attacking_planeswalker=9, blocking=None, damage=0,
                        plus_counters=0, stun=0)
    names = {9: "Orla, Pack Warden (P4's planeswalker)"}
    assert _creature_words(c, names) == "Wolf 2/2 (token, tapped, attacking Orla, Pack Warden (P4's planeswalker))"
    assert _creature_words(c, {}).endswith("attacking a planeswalker of P4)")


def test_same_named_permanents_are_numbered_on_the_board_in_the_log_and_in_the_choices():
    """People never see uids: two Web Weavers read "Web Weaver" and "Web Weaver #2" (the
    lowest number free among the permanents of that name on the battlefield as it entered,
    1 not written; text's docstring), alike on the board, in the log (attacks, blocks,
    targets, damage, dies, enters) and in the choices (the terminal's and the web table's).
    Before, the attack line read "Web Weaver attacks P3; Web Weaver attacks P3"."""
    from identity_helpers import at_main, cast, creature, deal5, give_priority, pass_until, target_creature
    from table.html import option_details
    from treachery_env.engine import DecisionKind
    from treachery_env.text import choices

    def words(seat):
        return [w for _, w in choices(seat_view(g, seat))]

    g = at_main(deal5())
    w1, w2, w3 = creature(g, 0, "Web Weaver"), creature(g, 0, "Web Weaver"), creature(g, 3, "Web Weaver")
    bear = creature(g, 1, "Grove Bear")
    for seat in range(5):                  # public: every seat's board says the same
        board = render_view(seat_view(g, seat))
        assert "creatures: Web Weaver 1/4 [reach]; Web Weaver #2 1/4 [reach]" in board
        assert "creatures: Web Weaver #3 1/4 [reach]" in board and "Grove Bear 2/2" in board
        assert [c.ordinal for c in seat_view(g, seat).players[0].creatures] == [1, 2]
    assert [c.ordinal for c in (w1, w2, w3, bear)] == [1, 2, 3, 1]
    start = len(g.log)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER and g.decision.seat == 0)
    # the two untapped Weavers are one choice (the same but for the number); once one attacks,
    # the other is offered by its number
    assert "attack with Web Weaver" in words(0) and "attack with Web Weaver #2" not in words(0)
    g.step(g.target_action(0, ("c", w1)))
    assert "Web Weaver attacks P3" in words(0)
    g.step(g.layout.PLAYER + g.rel(0, 3))
    assert "attack with Web Weaver #2" in words(0)
    g.step(g.target_action(0, ("c", w2)))
    assert g.decision.prompt == "choose the player or planeswalker Web Weaver #2 attacks"
    assert "Web Weaver #2 attacks P3" in words(0)
    g.step(g.layout.PLAYER + g.rel(0, 3))
    g.step(g.layout.PASS)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER and g.decision.seat == 3)
    assert "block with Web Weaver #3" in words(3)
    g.step(g.target_action(3, ("c", w3)))
    assert g.decision.prompt == "choose the attacker Web Weaver #3 blocks"
    assert "Web Weaver #3 blocks Web Weaver (P0)" in words(3)
    assert [b["text"] for b in option_details(seat_view(g, 3))] == words(3)      # the web table's buttons
    g.step(next(a for a, p in g.decision.options if p is w2))
    pass_until(g, lambda g: g.phase == "main2" and g.decision.seat == 0 and g.decision.kind == DecisionKind.PRIORITY)
    give_priority(g, 0)
    cast(g, 0, "Shock")
    assert "target Web Weaver #3 (P3)" in words(0) and "target Web Weaver #2 (P0)" in words(0)
    target_creature(g, w3)
    pass_until(g, lambda g: not g.stack)
    g.destroy(w2)
    w4 = creature(g, 0, "Web Weaver")      # the lowest number free again: 1 and 3 are taken
    assert w4.ordinal == 2
    lines = [format_event(e) for e in g.log[start:]]
    for line in ("P0 attacks: Web Weaver attacks P3; Web Weaver #2 attacks P3",
                 "blockers declared: Web Weaver #3 (P3) blocks Web Weaver #2 (P0)",
                 "P0 casts Shock targeting Web Weaver #3",
                 "Shock deals 2 damage to Web Weaver #3",
                 "Web Weaver #2 (P0) is put into its owner's graveyard",
                 "Web Weaver #2 enters the battlefield under P0's control"):
        assert line in lines, (line, lines)
    # the numbers are in the entries (what every seat's stream and the web table read), and only there
    # where a numbered permanent is named
    assert all("labels" not in e for e in g.log[:start] if e["event"] != "enters")
    board = render_view(seat_view(g, 1))
    assert "creatures: Web Weaver 1/4 [reach] (tapped); Web Weaver #2 1/4 [reach]" in board
    assert "Web Weaver #3 1/4 [reach] (3 damage)" in board


def test_numbered_name_is_the_one_rule_for_the_engines_objects_and_their_views():
    """One function writes a permanent's number (it was written three times: Creature.label,
    Attackable.label and text's _label): number 1 is not written, 2 and on are " #n"; the
    engine's creatures and planeswalkers and their views all read through it."""
    from identity_helpers import at_main, creature, deal5
    from treachery_env import cards
    from treachery_env.engine.state import numbered_name
    from treachery_env.text import _label

    assert [numbered_name("Web Weaver", k) for k in (0, 1, 2, 3, 12)] == [
        "Web Weaver", "Web Weaver", "Web Weaver #2", "Web Weaver #3", "Web Weaver #12"]
    g = at_main(deal5())
    w1, w2 = creature(g, 0, "Web Weaver"), creature(g, 1, "Web Weaver")
    p1 = g.put_planeswalker_onto_battlefield(2, cards.card("Pyra, Storm Sage"))
    p2 = g.put_planeswalker_onto_battlefield(0, cards.card("Pyra, Storm Sage"))
    assert [o.label for o in (w1, w2, p1, p2)] == ["Web Weaver", "Web Weaver #2", "Pyra, Storm Sage",
                                                   "Pyra, Storm Sage #2"]
    view = seat_view(g, 3)
    seen = [_label(c) for p in view.players for c in p.creatures if c.name == "Web Weaver"]
    seen += [_label(w) for p in view.players for w in p.planeswalkers]
    assert seen == ["Web Weaver", "Web Weaver #2", "Pyra, Storm Sage #2", "Pyra, Storm Sage"]


def test_a_numbered_triggers_target_question_is_numbered_for_people_and_plain_for_bots():
    """Flame Adept #2's trigger asked "choose a target (any) for Flame Adept" beside another Flame
    Adept: people (the terminal, the board's "you decide" line, the web table's question, a stop's
    reason) now read "... for Flame Adept #2" (``DecisionView.label``, :meth:`question`), while the
    prompt the bots parse for the source's name is unchanged; both view builders agree."""
    import io

    from rich.console import Console

    from agents.belief import BeliefAgent
    from agents.heuristic import HeuristicAgent
    from agents.human import HumanAgent
    from identity_helpers import at_main, creature, deal5, give_priority
    from table.html import board_html, prompt_details
    from table.stops import Stops
    from table.table import Prompt
    from treachery_env import cards
    from treachery_env.engine import DecisionKind
    from treachery_env.view import PythonViewBuilder, ViewBuilder

    plain, numbered = "choose a target (any) for Flame Adept", "choose a target (any) for Flame Adept #2"
    g = at_main(deal5())
    creature(g, 0, "Flame Adept")
    g.put_onto_battlefield(0, cards.card("Flame Adept"))
    give_priority(g, 0)
    d = g.decision
    assert d.kind == DecisionKind.TARGET and (d.prompt, d.label) == (plain, numbered)
    view = seat_view(g, 0)
    assert view == PythonViewBuilder(g).build(0) == ViewBuilder(g).build(0)
    assert (view.decision.prompt, view.decision.label, view.decision.question()) == (plain, numbered, numbered)
    assert HeuristicAgent()._source(view.decision.prompt) == "Flame Adept"          # what the bots read
    assert BeliefAgent._card_of(view.decision.prompt).name == "Flame Adept"
    assert f"you decide: {numbered}" in render_view(view)
    reason = Stops(every=True).reason(view, [], frozenset(), frozenset())
    assert reason == numbered and prompt_details(Prompt(0, 1, view, reason))["question"] == numbered
    assert f"you decide: {numbered}" in re.sub(r"<[^>]+>", "", board_html(view))     # the web table's board
    buf = io.StringIO()
    person = HumanAgent(input_stream=io.StringIO("1\n"), console=Console(file=buf, width=200))
    person.reset(0)
    person.choose(view, reason)
    out = buf.getvalue()
    assert f"Your decision: {numbered}\n" in out and f"({numbered})" not in out     # the reason is not repeated
    # a lone Flame Adept's trigger reads the same for everyone: no label
    g = at_main(deal5())
    g.put_onto_battlefield(0, cards.card("Flame Adept"))
    give_priority(g, 0)
    view = seat_view(g, 0)
    assert (g.decision.label, view.decision.label, view.decision.question()) == (None, None, plain)


def test_a_loyalty_activation_is_one_line_with_its_cost_loyalty_and_targets():
    """A loyalty ability's activation is one log line, "P0 activates Pyra, Storm Sage #2 (-2, loyalty
    now 2) targeting ..." (it was that line without the targets, then "P0 activates an ability of
    Pyra, Storm Sage targeting ...")."""
    from identity_helpers import at_main, creature, deal5, give_priority, target_creature
    from treachery_env import cards

    g = at_main(deal5())
    theirs = g.put_planeswalker_onto_battlefield(2, cards.card("Pyra, Storm Sage"))
    mine = g.put_planeswalker_onto_battlefield(0, cards.card("Pyra, Storm Sage"))
    bear = creature(g, 2, "Grove Bear")
    give_priority(g, 0)
    options = [o.text for o in seat_view(g, 0).decision.options]
    start = len(g.log)
    g.step(g.layout.loyalty(0, 1))              # -2: 3 damage to any target
    target_creature(g, bear)
    said = [format_event(e) for e in g.log[start:] if e["event"] in ("loyalty", "activate")]
    assert said == ["P0 activates Pyra, Storm Sage #2 (-2, loyalty now 2) targeting Grove Bear"]
    assert g.stack[-1].key == "loyalty" and (theirs.ordinal, mine.ordinal) == (1, 2)
    assert "activate Pyra, Storm Sage #2 (loyalty 4): -2: 3 damage to any target" in options
    board = render_view(seat_view(g, 1))
    assert "planeswalkers: Pyra, Storm Sage #2 (loyalty 2, used this turn)" in board
    assert "stack (top first): Pyra, Storm Sage #2 (activated ability, P0) targeting Grove Bear (P2)" in board


def test_a_numbered_permanents_triggers_and_damage_are_numbered_in_the_log():
    """A trial's transcript read "Flame Adept #2 enters ...; P4's Flame Adept triggers targeting P0;
    Flame Adept deals 2 damage to P0" beside another Flame Adept: the trigger, its damage, its
    resolving and its line on the stack now carry the number (``source_label``, ``StackView.label``;
    ``source`` keeps the name bots and rules read)."""
    from identity_helpers import at_main, creature, deal5, give_priority, pass_until, target_player
    from treachery_env import cards
    from treachery_env.engine import DecisionKind

    g = at_main(deal5())
    first = creature(g, 0, "Flame Adept")
    start = len(g.log)
    second = g.put_onto_battlefield(0, cards.card("Flame Adept"))
    assert (first.ordinal, second.ordinal) == (1, 2)
    give_priority(g, 0)
    assert g.decision.kind == DecisionKind.TARGET and g.decision.prompt.endswith("for Flame Adept")  # bots read it
    target_player(g, 1)
    assert [it.label for it in seat_view(g, 2).stack] == ["Flame Adept #2"]          # public, on the stack too
    assert "Flame Adept #2 (triggered ability, P0) targeting P1" in render_view(seat_view(g, 2))
    pass_until(g, lambda g: not g.stack)
    trig = next(e for e in g.log[start:] if e["event"] == "trigger")
    assert trig["source"] == "Flame Adept" and trig["source_label"] == "Flame Adept #2"
    lines = [format_event(e) for e in g.log[start:]]
    for line in ("P0's Flame Adept #2 triggers targeting P1", "Flame Adept #2 resolves",
                 "Flame Adept #2 deals 2 damage to P1"):
        assert line in lines, (line, lines)
    start = len(g.log)
    g.destroy(first)
    third = g.put_onto_battlefield(0, cards.card("Flame Adept"))       # number 1 is free again: no number
    give_priority(g, 0)
    target_player(g, 2)
    pass_until(g, lambda g: not g.stack)
    assert third.ordinal == 1
    assert all("source_label" not in e for e in g.log[start:])
    assert "Flame Adept deals 2 damage to P2" in [format_event(e) for e in g.log[start:]]


def test_the_priority_question_is_written_once(monkeypatch):
    """"You have priority: act, or pass" was written out by the terminal (agents/human.py), the
    notebook's table (table/widgets.py) and the board's "you decide" line: each takes it from
    :data:`treachery_env.text.PRIORITY_QUESTION` now.  (The web page's script writes it itself: its
    prompt payload has the question, "priority".)"""
    import inspect
    import io

    from rich.console import Console

    import table.widgets
    import treachery_env.text as text
    from agents.human import HumanAgent

    g = Game(GameConfig(num_players=4, commander=False), seed=0)
    while g.decision.kind != DecisionKind.PRIORITY:
        g.step(g.decision.options[0][0])
    seat = g.current_player
    view = seat_view(g, seat)
    assert "you decide: you have priority: act, or pass" in render_view(view)
    monkeypatch.setattr(text, "PRIORITY_QUESTION", "Act or pass, P?")
    assert "you decide: act or pass, p?" in render_view(view)
    buf = io.StringIO()
    person = HumanAgent(input_stream=io.StringIO("1\n"), console=Console(file=buf, width=200))
    person.reset(seat)
    person.choose(view)
    assert "Act or pass, P?\n" in buf.getvalue()
    source = inspect.getsource(table.widgets)
    assert "PRIORITY_QUESTION" in source and "have priority" not in source
