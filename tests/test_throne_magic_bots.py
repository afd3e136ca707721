"""The bots in Throne Magic (issue #16, docs/throne_magic.md step 5): the heuristic and belief
bots read the Role graph (agents/throne.py), the search bots refuse the mode clearly."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import treachery_env
from agents.throne import ALLY, ENEMY, HUNTER, ThroneBelief, role_probabilities, throne_want
from treachery_env.engine import Game

from test_throne_magic import BASIC5, throne


def play(names: list[str], seed: int, **kw) -> Game:
    """A whole Throne Magic game on the environment with one bot per seat."""
    env = treachery_env.env(game="throne_magic", num_players=len(names), max_turns=120, **kw)
    env.reset(seed=seed)
    bots = {a: agents.make(nm, seed=i) for i, (a, nm) in enumerate(zip(env.possible_agents, names))}
    for i, b in enumerate(bots.values()):
        b.reset(i)
    for agent in env.agent_iter(max_iter=40000):
        obs, r, t, tr_, info = env.last()
        env.step(None if t or tr_ else bots[agent].act(obs, info))
    return env.unwrapped.game


@pytest.mark.parametrize("seed", range(3))
def test_the_heuristic_and_belief_bots_play_throne_magic_games_to_their_end(seed):
    g = play(["heuristic", "belief", "heuristic", "belief", "random", "heuristic"][:5 + seed % 2], seed,
             throne_roles="random", holdings=seed > 0, seasons=seed != 1)
    assert g.is_over
    ended = [e for e in g.log if e["event"] == "game_over"]
    assert g.truncated or ended


def test_play_game_plays_throne_magic_with_its_roles():
    """``agents.play_game`` plays a Throne Magic game as the environment loop above does
    (regression: it read Treachery identities, AttributeError): the same winners, the Role
    cards' names as the dealt and final roles, rewards +1 for the winners; deduction
    (``record_beliefs``) is refused in one line."""
    from agents.play import play_game

    names = ["heuristic", "belief", "heuristic", "belief", "random"]
    config = treachery_env.GameConfig(game="throne_magic", num_players=5, max_turns=120, talk="none")
    bots = [agents.make(nm, seed=i) for i, nm in enumerate(names)]
    r = play_game(bots, config, seed=1)
    g = play(names, 1)
    assert r.winners == set(g.winners) and r.truncated == g.truncated and r.turns == g.turn
    assert r.dealt_roles == r.roles == list(g.social.roles)
    assert sorted(r.dealt_roles) == sorted(BASIC5)
    assert [s for s, x in enumerate(r.rewards) if x == 1.0] == sorted(r.winners)
    with pytest.raises(ValueError, match="record_beliefs: .*Treachery's roles"):
        play_game([agents.make(nm, seed=i) for i, nm in enumerate(names)], config, seed=1, record_beliefs=True)


def test_the_want_of_the_king_follows_the_role_graph():
    """The King must eliminate The Usurper, the Usurper's Bannerman and the Dragon; the Dragon
    and the Usurper's side hunt him; his Bannerman shares his list: an ally."""
    g = Game(throne(throne_deal=BASIC5), seed=0)
    for s in range(5):
        g.social.known_by[s].add(0)         # suppose The King (seat 0) knew every Role
    want = throne_want(g.view(0))
    assert want == {0: -3.0, 1: ENEMY + HUNTER, 2: ALLY, 3: ENEMY + HUNTER, 4: ENEMY + HUNTER}


def test_unknown_roles_are_spread_uniformly_over_unknown_seats():
    g = Game(throne(throne_deal=BASIC5), seed=0)
    probs = role_probabilities(g.view(2))
    assert probs[2] == {"King's Bannerman": 1.0} and probs[0] == {"The King": 1.0}
    rest = ["The Usurper", "Usurper's Bannerman", "Dragon"]
    for s in (1, 3, 4):
        assert probs[s] == {r: pytest.approx(1 / 3) for r in rest}


def test_the_belief_reads_attacks_on_the_king_as_the_usurpers_side():
    """A seat that attacked The King again and again is likelier to hold a Role that must
    eliminate him than one that does not; the posterior is a distribution over the Roles not
    placed, each placed once (exact enumeration)."""
    g = Game(throne(throne_deal=BASIC5), seed=0)
    g.attacks[3][0] = 6              # the Usurper's Bannerman keeps attacking The King
    b = ThroneBelief().beliefs(g.view(2))        # seen by the King's Bannerman
    assert b[0] == {"The King": 1.0} and b[2] == {"King's Bannerman": 1.0}
    rest = ["The Usurper", "Usurper's Bannerman", "Dragon"]
    m = np.array([[b[s][r] for r in rest] for s in (1, 3, 4)])
    assert np.allclose(m.sum(axis=0), 1.0) and np.allclose(m.sum(axis=1), 1.0)
    # every unplaced Role hunts The King, but the Dragon hunts everyone: attacks aimed at The King
    # alone are likelier from the Usurper's side, whose list is narrower
    assert b[3]["The Usurper"] == pytest.approx(b[3]["Usurper's Bannerman"])
    assert b[3]["The Usurper"] > 1 / 3 > b[3]["Dragon"]
    # and against a Wizard, whose list does not name The King's Bannerman:
    deal = ["The King", "The Usurper", "King's Bannerman", "Wizard", "Dragon"]
    g = Game(throne(num_players=5, throne_roles=deal, throne_deal=deal), seed=0)
    g.attacks[1][0] = 6
    b = ThroneBelief().beliefs(g.view(2))
    assert b[1]["The Usurper"] > b[3]["The Usurper"] and b[1]["The Usurper"] > 1 / 3


@pytest.mark.parametrize("name", ["ismcts", "lookahead"])
def test_the_search_bots_refuse_throne_magic_in_one_line(name):
    env = treachery_env.env(game="throne_magic", num_players=5)
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    with pytest.raises(ValueError, match=rf"the {name} bot plays Treachery only"):
        agents.make(name, seed=0).act(obs, info)


# ----------------------------------------------------------------------------- the Throne, Holdings, gifts
# Scenarios on a fixed deal (tests/test_throne_magic.py's throne_game: seat 0's precombat main
# phase, boards and hands cleared).  The bot decides from the view its seat gets.
from identity_helpers import creature, give_priority, pass_until          # noqa: E402
from test_throne_magic import KING_FIRST, NO_KING, attack_throne, throne_game, to_take  # noqa: E402
from treachery_env.engine import DecisionKind                              # noqa: E402
from agents.throne import claimant, gift, locations_to_attack              # noqa: E402

BOTS = ["heuristic", "belief"]


def decide(g: Game, bot) -> int:
    """``bot``'s action for the deciding seat, from that seat's observation and view."""
    s = g.decision.seat
    return bot.act(g.observation(s), {"view": g.view(s)})


def declare(g: Game, name: str) -> dict:
    """Seat 0's bot ``name`` declares its attackers (every other seat passes to get there):
    ``{creature uid: what it attacks (an Attackable, or a seat)}``."""
    bot = agents.make(name, seed=0)
    bot.reset(0)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    while g.decision.kind in (DecisionKind.ATTACKER, DecisionKind.DEFENDER):
        g.step(decide(g, bot))
    return {c.uid: (c.attacking_obj if c.attacking_obj is not None else c.attacking)
            for c in g.players[0].creatures if c.attacking is not None}


@pytest.mark.parametrize("name", BOTS)
def test_a_claimant_bot_attacks_the_throne_in_the_middle_and_takes_it(name):
    """The Dragon (a Claimant) sends a creature at the uncontrolled Throne (nobody may block
    for it) and takes it after combat damage ("Taking the Throne")."""
    g = throne_game(NO_KING)
    w = g.social.throne
    bear = creature(g, 0, "Grove Bear")
    assert claimant(g.view(0)) and locations_to_attack(g.view(0), throne_want(g.view(0))) == [(w.uid, -1)]
    assert declare(g, name) == {bear.uid: w}
    to_take(g)
    assert g.decision.seat == 0
    a = decide(g, agents.make(name, seed=0))
    assert a == g.layout.CHOICE
    g.step(a)
    assert w.controller == 0


@pytest.mark.parametrize("name", BOTS)
def test_a_non_claimant_bot_leaves_the_open_throne_alone_and_declines_to_take_it(name):
    """The Wizard cannot take the Throne: it attacks a player rather than the Throne in the
    middle, and asked after damage it had to deal there, it passes."""
    g = throne_game(["Wizard", "Dragon", "The Usurper", "Usurper's Bannerman"])
    bear = creature(g, 0, "Grove Bear")
    assert not claimant(g.view(0)) and locations_to_attack(g.view(0), throne_want(g.view(0))) == []
    assert isinstance(declare(g, name)[bear.uid], int)
    g = throne_game(["Wizard", "Dragon", "The Usurper", "Usurper's Bannerman"])
    attack_throne(g, creature(g, 0, "Grove Bear"))
    to_take(g)
    assert g.decision.seat == 0 and decide(g, agents.make(name, seed=0)) == g.layout.PASS


@pytest.mark.parametrize("name", BOTS)
def test_a_non_claimant_knocks_the_throne_out_of_an_enemys_hands_but_not_an_allys(name):
    """The Usurper's Bannerman must eliminate The King (public: he starts with the Throne):
    it attacks his Throne, which then goes to the middle; The King's Bannerman, his ally,
    leaves it be."""
    deal = ["Usurper's Bannerman", "The King", "The Usurper", "King's Bannerman", "Dragon"]
    g = throne_game(deal)
    w = g.social.throne
    bear = creature(g, 0, "Grove Bear")
    assert declare(g, name) == {bear.uid: w}
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    g.step(decide(g, agents.make(name, seed=0)))
    assert w.controller == -1
    deal = ["King's Bannerman", "The King", "The Usurper", "Usurper's Bannerman", "Dragon"]
    g = throne_game(deal)
    bear = creature(g, 0, "Grove Bear")
    assert locations_to_attack(g.view(0), throne_want(g.view(0))) == []
    assert declare(g, name)[bear.uid] != g.social.throne


@pytest.mark.parametrize("name", BOTS)
def test_any_bot_attacks_an_open_holding_and_takes_it(name):
    """"Holdings (Advanced)": the Wizard, no Claimant, takes a Holding in the middle (the
    Throne in the middle is nothing to it)."""
    g = throne_game(["Wizard", "Dragon", "The Usurper", "Usurper's Bannerman"], holdings=True)
    h = g.social.holdings[0]
    for k in g.social.holdings[1:]:
        g._holding_to(k, 0, "taken")            # the others already its own
    bear = creature(g, 0, "Grove Bear")
    assert declare(g, name) == {bear.uid: h}
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    a = decide(g, agents.make(name, seed=0))
    assert a == g.layout.CHOICE
    g.step(a)
    assert h.controller == 0


def test_the_heuristic_bot_keeps_its_blockers_home_and_sends_the_weakest_creature_at_the_throne():
    """One attacker is enough to take the Throne: the least valuable one that deals damage."""
    g = throne_game(NO_KING)
    owl, mammoth = creature(g, 0, "Messenger Owl"), creature(g, 0, "War Mammoth")
    plan = declare(g, "heuristic")
    assert plan[owl.uid] is g.social.throne and plan[mammoth.uid] != g.social.throne


def test_the_throne_holder_trades_a_blocker_for_an_attacker_of_its_throne():
    """The King (20 life: no trades for his own life) blocks a Grove Bear attacking his Throne
    with his own Grove Bear, a trade the Throne is worth."""
    g = throne_game(KING_FIRST)
    w = g.social.throne
    guard = creature(g, 0, "Grove Bear")
    g.active = g.order_seat = 2
    bear = creature(g, 2, "Grove Bear")
    give_priority(g, 2)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.ATTACKER)
    g.step(g.target_action(2, ("c", bear)))
    g.step(g.attackable_action(2, w))
    g.step(g.layout.PASS)
    pass_until(g, lambda g: g.decision.kind == DecisionKind.BLOCKER)
    bot = agents.make("heuristic", seed=0)
    bot.reset(0)
    assert g.decision.seat == 0
    a = decide(g, bot)
    assert a == g.target_action(0, ("c", guard))
    g.step(a)
    if g.decision.kind == DecisionKind.BLOCKED:
        g.step(decide(g, bot))
    assert guard.blocking is bear


def at_end_step(deal, active: int, seat: int) -> Game:
    """``throne_game(deal)`` at the end step of ``active``'s turn, ``seat`` holding priority."""
    g = throne_game(deal)
    g.active = g.order_seat = active
    g.phase = "end"
    give_priority(g, seat)
    return g


@pytest.mark.parametrize("name", BOTS)
def test_a_bot_gives_a_creature_to_an_allied_monarch_in_danger_and_not_to_an_enemy(name):
    """"Giving Creatures to the Monarch": The King's Bannerman (seat 3) gives The King (seat 0,
    public, its ally; 5 life, no creature, a War Mammoth across the table) the least tough
    creature that stops the Mammoth's blow, at the end of the turn before his; nothing when no
    creature of its own could save him (a Thicket Troll too), or when the Throne is in the
    Usurper's hands (a Claimant who hunts it)."""
    g = at_end_step(KING_FIRST, active=4, seat=3)
    g.players[0].life = 5
    creature(g, 2, "War Mammoth")
    bear, wall = creature(g, 3, "Grove Bear"), creature(g, 3, "Web Weaver")
    give_priority(g, 3)
    assert g.decision.seat == 3 and g.decision.kind == DecisionKind.PRIORITY
    bot = agents.make(name, seed=0)
    bot.reset(3)
    a = decide(g, bot)
    assert a == g.target_action(3, ("c", bear))
    g.step(a)
    assert [it.key for it in g.stack] == ["throne_give"]
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    assert g.decision.seat == 0
    a = decide(g, agents.make(name, seed=1))          # The King accepts
    assert a == g.layout.CHOICE
    g.step(a)
    assert bear.controller == 0 and wall.controller == 3
    # past saving: 9 power against 5 life and no blocker; a 1/4 or a 2/2 would not stop it
    g = at_end_step(KING_FIRST, active=4, seat=3)
    g.players[0].life = 5
    creature(g, 2, "War Mammoth")
    creature(g, 2, "Thicket Troll")
    creature(g, 3, "Grove Bear")
    creature(g, 3, "Web Weaver")
    give_priority(g, 3)
    assert decide(g, agents.make(name, seed=0)) == g.layout.PASS
    # the Throne with the Usurper: an enemy
    g = at_end_step(KING_FIRST, active=1, seat=3)
    g._throne_to(2, "taken")
    g.players[2].life = 5
    creature(g, 4, "War Mammoth")
    creature(g, 3, "Web Weaver")
    give_priority(g, 3)
    assert any(o.kind == "throne_ability" for o in g.view(3).decision.options)
    assert decide(g, agents.make(name, seed=0)) == g.layout.PASS


@pytest.mark.parametrize("name", BOTS)
def test_the_monarch_distributes_a_creature_to_an_ally_it_knows_and_names_it_as_the_target(name):
    """"The Monarch Distributing Creatures": The King (seat 0), who has seen that seat 3 holds
    his Bannerman (a Throne of Visions look), gives it a creature when it is in danger, at the
    end of the turn before its own; not when he does not know it (an unknown seat may be an
    enemy)."""
    for knows in (True, False):
        g = at_end_step(KING_FIRST, active=2, seat=0)
        if knows:
            g.social.known_by[3].add(0)
        g.players[3].life = 4
        creature(g, 2, "War Mammoth")
        bear = creature(g, 0, "Grove Bear")
        give_priority(g, 0)
        bot = agents.make(name, seed=0)
        bot.reset(0)
        a = decide(g, bot)
        if not knows:
            assert a == g.layout.PASS
            continue
        assert a == g.target_action(0, ("c", bear))
        g.step(a)
        assert g.decision.kind == DecisionKind.TARGET
        a = decide(g, bot)
        assert a == g.layout.PLAYER + g.rel(0, 3)


def test_gifts_wait_for_the_end_of_the_turn_before_the_receivers():
    """Not in the receiver's own turn or two turns ahead of it: the creature could not help yet."""
    for active in (0, 3):
        g = at_end_step(KING_FIRST, active=active, seat=3)
        g.players[0].life = 5
        creature(g, 2, "War Mammoth")
        creature(g, 3, "Web Weaver")
        give_priority(g, 3)
        v = g.view(3)
        assert gift(v, throne_want(v), v.decision.options) is None


def test_the_throne_controller_holds_a_claimant_role():
    """Only a Claimant takes the Throne, and The King starts with it: the controller's unknown
    Role is one of the unknown Claimant Roles; the other unknown seats share the rest."""
    g = Game(throne(throne_deal=BASIC5), seed=0)          # The King 0, The Usurper 1, KB 2, UB 3, Dragon 4
    g._throne_to(1, "taken")
    probs = role_probabilities(g.view(2))
    assert probs[1] == {"The Usurper": 0.5, "Usurper's Bannerman": 0.0, "Dragon": 0.5}
    for s in (3, 4):
        assert probs[s] == pytest.approx({"The Usurper": 0.25, "Usurper's Bannerman": 0.5, "Dragon": 0.25})
    b = ThroneBelief().beliefs(g.view(2))
    assert b[1]["Usurper's Bannerman"] == 0.0 and b[1]["The Usurper"] == pytest.approx(0.5)


@pytest.mark.parametrize("name", BOTS)
def test_one_creature_a_combat_goes_for_an_enemys_holding(name):
    """Every Holding in the Dragon's hands (the Wizard must eliminate it): one of the Wizard's
    two creatures attacks one of them, the other a player (the heuristic: the weaker, the Owl,
    takes the place of an attack on the Dragon itself)."""
    g = throne_game(["Wizard", "Dragon", "The Usurper", "Usurper's Bannerman"], holdings=True)
    for h in g.social.holdings:
        g._holding_to(h, 1, "taken")
    owl, bear = creature(g, 0, "Messenger Owl"), creature(g, 0, "Grove Bear")
    plan = declare(g, name)
    assert sorted(map(type, plan.values()), key=str) == sorted([int, type(g.social.holdings[0])], key=str)
    assert sum(x in g.social.holdings for x in plan.values()) == 1
    if name == "heuristic":
        assert plan == {bear.uid: 1, owl.uid: g.social.holdings[0]}


@pytest.mark.parametrize("name", BOTS)
def test_no_creature_goes_at_the_throne_into_a_blocker_that_kills_it(name):
    """"Attacking the Throne": The King blocks for his Throne.  His untapped Grove Bear kills a
    Dune Lion (2/1) that the Usurper's Bannerman would send at it, and a blocked attacker deals
    the Throne nothing: the Lion does not go, a War Mammoth (which the Bear cannot kill) does,
    and alone the Lion attacks no Throne at all; a Messenger Owl, which no creature of his can
    block (flying), still takes the attack that wins."""
    deal = ["Usurper's Bannerman", "The King", "The Usurper", "King's Bannerman", "Dragon"]
    g = throne_game(deal)
    w = g.social.throne
    creature(g, 1, "Grove Bear")
    lion, mammoth = creature(g, 0, "Dune Lion"), creature(g, 0, "War Mammoth")
    plan = declare(g, name)
    assert plan[mammoth.uid] is w and plan.get(lion.uid) is not w
    g = throne_game(deal)
    creature(g, 1, "Grove Bear")
    lion = creature(g, 0, "Dune Lion")
    assert g.social.throne not in declare(g, name).values()
    g = throne_game(deal)
    w = g.social.throne
    creature(g, 1, "War Mammoth")
    owl = creature(g, 0, "Messenger Owl")
    assert declare(g, name) == {owl.uid: w}
    pass_until(g, lambda g: g.decision.kind == DecisionKind.YES_NO)
    g.step(decide(g, agents.make(name, seed=0)))
    assert w.controller == -1                   # knocked into the middle ("Controlling the Throne")


def test_the_belief_bot_sends_no_creature_at_an_enemys_holding_into_a_blocker_that_kills_it():
    """"Holdings (Advanced)": the Dragon blocks for its Holdings with a Grove Bear; of the
    Wizard's Dune Lion (declared first, the Bear kills it) and War Mammoth, the Mammoth goes
    for a Holding and the Lion at a player."""
    g = throne_game(["Wizard", "Dragon", "The Usurper", "Usurper's Bannerman"], holdings=True)
    for h in g.social.holdings:
        g._holding_to(h, 1, "taken")
    creature(g, 1, "Grove Bear")
    lion, mammoth = creature(g, 0, "Dune Lion"), creature(g, 0, "War Mammoth")
    plan = declare(g, "belief")
    assert plan[mammoth.uid] in g.social.holdings and isinstance(plan[lion.uid], int)
