"""Flash (CR 702.8) and a fog (prevent all combat damage this turn, CR 615),
the combat-speed cards of the pool."""

from __future__ import annotations

from treachery_env import cards
from treachery_env.engine import DecisionKind

from scenario import PASS, add_creature, attack, has_priority, make_game, pass_priority_until

IDS = ["The Blood Empress", "The Bodyguard", "The Ambitious Queen", "The Beastmaster", "The Banisher"]


def _cast_actions(g, seat, name):
    return [a for a, pl in g.decision.options
            if pl and pl[0] == "cast" and g.players[seat].hand[pl[1]].name == name]


def test_flash_creature_is_cast_on_an_opponents_turn():
    """CR 702.8a: a creature with flash can be cast any time its controller could
    cast an instant: here in the end step of another player's turn; a creature
    without flash can't (CR 307.1)."""
    g = make_game(IDS, hand=("Ambush Viper", "Grove Bear"), lands=3)
    pass_priority_until(g, lambda g: g.phase == "end" and has_priority(2)(g))
    assert _cast_actions(g, 2, "Ambush Viper") and not _cast_actions(g, 2, "Grove Bear")
    g.step(_cast_actions(g, 2, "Ambush Viper")[0])
    pass_priority_until(g, lambda g: not g.stack)
    assert [c.name for c in g.players[2].creatures] == ["Ambush Viper"]
    assert cards.card("Ambush Viper").instant_speed and not cards.card("Grove Bear").instant_speed


def test_flash_blocker_ambushes_an_attacker():
    """Cast after attackers are declared (CR 508.2), the flash creature blocks:
    Ambush Viper's deathtouch kills the attacking 2/2 (the Viper dies too)."""
    g = make_game(["The Old Ruler"] + IDS[1:], hand=("Ambush Viper",), lands=2)
    bear = add_creature(g, 0, "Grove Bear")
    attack(g, 0, 2)
    pass_priority_until(g, lambda g: g.phase == "declare_attackers" and has_priority(2)(g))
    g.step(_cast_actions(g, 2, "Ambush Viper")[0])
    pass_priority_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER)
    g.step(g.layout.perm(0, 0))                       # the Viper blocks
    pass_priority_until(g, lambda g: g.phase == "main2")
    assert bear not in g.players[0].creatures and not g.players[2].creatures and g.players[2].life == 40


def test_fog_prevents_all_combat_damage_this_turn_but_not_other_damage():
    """Sanctuary Mist: combat damage this turn is prevented; a Shock still deals
    its damage; the effect ends with the turn (CR 514.2)."""
    g = make_game(IDS, hand=("Sanctuary Mist", "Shock"), lands=2)
    bear = add_creature(g, 0, "Grove Bear")
    attack(g, 0, 2)
    pass_priority_until(g, lambda g: g.phase == "declare_blockers" and has_priority(2)(g))
    g.step(_cast_actions(g, 2, "Sanctuary Mist")[0])
    pass_priority_until(g, lambda g: not g.stack)
    pass_priority_until(g, lambda g: g.phase == "combat_end")
    assert g.players[2].life == 40 and bear.damage == 0
    give = lambda g: g.phase == "combat_end" and has_priority(2)(g)   # noqa: E731
    pass_priority_until(g, give)
    g.step(_cast_actions(g, 2, "Shock")[0])
    g.step(g.layout.PLAYER + g.rel(2, 0))
    pass_priority_until(g, lambda g: not g.stack)
    assert g.players[0].life == 38
    pass_priority_until(g, lambda g: g.active == 1)
    assert "fog" not in g.turn_effects


def test_heuristic_flashes_in_a_creature_at_the_end_of_the_turn_before_its_own():
    """The heuristic bot keeps a flash creature for the end step of the player
    just before it (seat 0's end step for seat 1), and casts it there."""
    import agents
    g = make_game(IDS, hand=("Ambush Viper",), lands=2)
    bot = agents.make("heuristic", seed=0)
    bot.reset(1)
    seen = []
    for _ in range(300):
        if g.active != 0:
            break
        d = g.decision
        if d.seat == 1:
            a = bot.act(g.observation(1), {"view": g.view(1)})
            if _cast_actions(g, 1, "Ambush Viper") and a in _cast_actions(g, 1, "Ambush Viper"):
                seen.append(g.phase)
            g.step(a)
        else:
            g.step(PASS if d.index_of(PASS) is not None else d.options[0][0])
    assert seen == ["end"]


def test_heuristic_fogs_a_lethal_attack():
    """After blocks, facing attackers that would take half or more of its life,
    the heuristic bot casts its fog."""
    import agents
    g = make_game(["The Old Ruler"] + IDS[1:], hand=("Sanctuary Mist",), lands=1)
    g.players[2].life = 6
    for _ in range(2):
        add_creature(g, 0, "Grove Bear")
    attack(g, 0, 2)                                   # both bears
    pass_priority_until(g, lambda g: g.phase == "declare_blockers" and has_priority(2)(g))
    bot = agents.make("heuristic", seed=0)
    bot.reset(2)
    assert bot.act(g.observation(2), {"view": g.view(2)}) in _cast_actions(g, 2, "Sanctuary Mist")
