"""Ordering one's own simultaneous triggers (CR 603.3b) and the legend rule's
choice (CR 704.5j), both decisions of the player they concern."""

from __future__ import annotations

from treachery_env import cards
from treachery_env.engine import DecisionKind
from treachery_env.identity_abilities import identity_trigger

from scenario import PASS, make_game

IDS = ["The Blood Empress", "The Bodyguard", "The Ambitious Queen", "The Beastmaster", "The Banisher"]


def _enter_together(g, seat: int, *names: str) -> list:
    """Put creature cards onto the battlefield at once (their enters triggers are
    pending together), then let the game run to the next decision."""
    made = [g.put_onto_battlefield(seat, cards.card(n)) for n in names]
    g.decision = None
    g._advance()
    return made


def test_a_player_orders_their_different_triggers():
    """CR 603.3b: Messenger Owl's and Healer Acolyte's enters triggers trigger
    together; their controller chooses the one put on the stack first, and the
    last one put resolves first."""
    g = make_game(IDS)
    _enter_together(g, 0, "Messenger Owl", "Healer Acolyte")
    d = g.decision
    assert d.kind == DecisionKind.ORDER and d.seat == 0
    assert d.labels == ["Messenger Owl (etb)", "Healer Acolyte (etb)"]
    g.step(g.layout.CHOICE + 1)                 # Healer Acolyte first: it resolves last
    assert [it.source for it in g.stack] == ["Healer Acolyte", "Messenger Owl"]
    life, hand = g.players[0].life, len(g.players[0].hand)
    while g.stack:
        g.step(PASS)
        if len(g.stack) == 1:
            assert len(g.players[0].hand) == hand + 1 and g.players[0].life == life    # the Owl first
    assert g.players[0].life == life + 4


def test_copies_of_one_trigger_are_not_asked_about():
    """The order matters only between triggers that differ: two Messenger Owls'
    triggers go on the stack without an ORDER decision."""
    g = make_game(IDS)
    _enter_together(g, 0, "Messenger Owl", "Messenger Owl")
    assert g.decision.kind == DecisionKind.PRIORITY
    assert [it.source for it in g.stack] == ["Messenger Owl", "Messenger Owl"]


def test_triggers_differing_only_in_hidden_data_are_not_asked_about():
    """Whether the ORDER decision is asked depends on public information only:
    two triggers of one source and ability that differ only in a data entry
    whose name starts with ``_`` (what only their controller knows, such as The
    Corrupted Regent's cards drawn) go on the stack without it; a difference in
    public data (which creature, for The King over the Scrapyard) asks it."""
    g = make_game(IDS)
    idc = g.players[0].identity
    for hidden in ([(0, "Shock")], [(0, "Murder")]):
        identity_trigger(g, idc, "regent", "_regent_resolve", _drawn=hidden)
    g.decision = None
    g._advance()
    assert g.decision.kind == DecisionKind.PRIORITY and len(g.stack) == 2
    g = make_game(IDS)
    idc = g.players[0].identity
    for name in ("Grove Bear", "Dune Lion"):
        identity_trigger(g, idc, "king_combat", "_king_choice", creature=name)
    g.decision = None
    g._advance()
    assert g.decision.kind == DecisionKind.ORDER and g.decision.seat == 0 and not g.stack


def test_active_player_puts_triggers_on_the_stack_first():
    """CR 603.3b (APNAP): the active player's triggers go on the stack first, then
    each other player's in turn order, so the last player's resolve first."""
    g = make_game(IDS)
    for seat in (3, 0, 1):
        g.put_onto_battlefield(seat, cards.card("Messenger Owl"))
    g.decision = None
    g._advance()
    assert [it.controller for it in g.stack] == [0, 1, 3]


def test_legend_rule_lets_the_controller_choose_which_to_keep():
    """CR 704.5j: a player controlling two legendary creatures with the same name
    chooses one; the other goes to its owner's graveyard.  Another player's
    creature of that name is not involved."""
    g = make_game(IDS)
    first = g.put_onto_battlefield(1, cards.card("Kaelen, Warband Chief"))
    other = g.put_onto_battlefield(2, cards.card("Kaelen, Warband Chief"))
    second = g.put_onto_battlefield(1, cards.card("Kaelen, Warband Chief"))
    g.decision = None
    g._advance()
    d = g.decision
    assert d.kind == DecisionKind.KEEP and d.seat == 1
    assert sorted(a for a, _ in d.options) == [g.layout.perm(0, 0), g.layout.perm(0, 1)]
    g.step(g.layout.perm(0, 0))                 # keep the first one
    assert g.players[1].creatures == [first] and second not in g.players[1].creatures
    assert [c.name for c in g.players[1].graveyard][-1] == "Kaelen, Warband Chief"
    assert g.players[2].creatures == [other]
    assert any(e["event"] == "legend_rule" and e["kept"] == first.uid for e in g.log)


def test_legend_rule_choice_is_visible_only_to_its_decider_as_a_decision():
    """The KEEP decision is the deciding seat's: other seats' observations carry
    no decision kind while it is pending."""
    g = make_game(IDS)
    g.put_onto_battlefield(1, cards.card("Kaelen, Warband Chief"))
    g.put_onto_battlefield(1, cards.card("Kaelen, Warband Chief"))
    g.decision = None
    g._advance()
    assert g.current_player == 1
    assert g.view(1).decision.kind == "keep" and g.view(0).decision is None
    assert g.observation(0)["action_mask"].sum() == 0
