"""The bot protocol, the registry and the random bot."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.play import play_game
from treachery_env import GameConfig


def test_make_random_is_seeded_and_legal():
    cfg = GameConfig(num_players=4, starting_life=10, max_turns=40)
    a = play_game([agents.make("random", seed=s) for s in range(4)], cfg, seed=5)
    b = play_game([agents.make("random", seed=s) for s in range(4)], cfg, seed=5)
    assert (a.winners, a.decisions, a.turns, a.rewards) == (b.winners, b.decisions, b.turns, b.rewards)
    assert a.decisions > 0 and len(a.roles) == 4


def test_make_rejects_unknown_specs():
    with pytest.raises(ValueError, match="unknown agent"):
        agents.make("grandmaster")
    with pytest.raises(ValueError, match="string"):
        agents.make(3)


def test_random_agent_uses_only_the_mask():
    bot = agents.make("random", seed=0)
    mask = np.zeros(10, np.int8)
    mask[[2, 7]] = 1
    picks = {bot.act({"observation": None, "action_mask": mask}, {}) for _ in range(50)}
    assert picks == {2, 7}
    with pytest.raises(ValueError, match="no action"):
        bot.act({"observation": None, "action_mask": np.zeros(10, np.int8)}, {})


def test_play_game_checks_seat_count():
    with pytest.raises(ValueError, match="agents for"):
        play_game([agents.make("random")] * 3, GameConfig(num_players=4))


def test_a_policy_for_another_table_size_is_refused_before_the_game(tmp_path):
    """A trained policy's input and output sizes depend on the number of players:
    evaluate and play refuse it at a table of another size up front, with one
    line naming both sizes (not a traceback at its first decision)."""
    import io

    from training.evaluate import evaluate
    from training.play import PlaySession
    spec = "policy:checkpoints/flagship/policy.pt"
    bot = agents.make(spec, seed=0)
    assert bot.num_players() == 5 and agents.make("heuristic").num_players() is None
    agents.check_table(bot, spec, 5)
    with pytest.raises(ValueError, match="trained for 5-player tables and cannot play at 6 players"):
        agents.check_table(bot, spec, 6)
    with pytest.raises(ValueError, match="trained for 5-player tables"):
        evaluate([spec, "random"], num_players=6, games=6, progress=False)
    with pytest.raises(ValueError, match="trained for 5-player tables"):
        PlaySession(GameConfig(num_players=6), seed=0, human_seat=0, opponent_specs=[spec],
                    input_stream=io.StringIO(""), console=None, delay=0.0, replay_path=tmp_path / "r.json")
