"""The floor of any core behind PettingZoo's AEC API (docs/native_core.md).

A do-nothing AEC env (``observe`` returns one preallocated observation of the
5-player size, ``step`` only moves ``agent_selection`` on, an episode ends after
1,300 agent steps) driven as ``../shared/bench/peers.py`` drives envs, unwrapped,
with no action choice, inside PettingZoo's stock ``OrderEnforcingWrapper`` and
inside ours (``treachery_env.env.OrderEnforcingEnv``).

    python bench/aec_floor.py [--seconds 4]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from treachery_env.benchmark import seconds_per_row
from treachery_env.env import OrderEnforcingEnv


class DoNothing(AECEnv):
    """An AEC env that does no work: the cost of the API and the loop alone."""

    metadata = {"name": "do_nothing"}

    def __init__(self, n: int = 5, actions: int = 287, size: int = 7131, length: int = 1300):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._obs = {"observation": np.zeros(size, np.float32), "action_mask": np.ones(actions, np.int8)}
        self._length = length

    def observe(self, agent: str) -> dict:
        """The one preallocated observation."""
        return self._obs

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new episode of ``length`` agent steps."""
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = dict(self.rewards)
        self.terminations = {a: False for a in self.agents}
        self.truncations = dict(self.terminations)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._t = self._i = 0

    def step(self, action: int | None) -> None:
        """Move to the next agent; end the episode after ``length`` steps."""
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self._t += 1
        self._i = (self._i + 1) % len(self.agents)
        self.agent_selection = self.agents[self._i]
        if self._t >= self._length:
            for a in self.agents:
                self.terminations[a] = True


def run(env: AECEnv, seconds: float, choose: bool = True) -> float:
    """Agent-steps/s of whole episodes for ``seconds``; ``choose``: a random legal action from the mask."""
    rng = random.Random(0)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset()
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if choose:
                legal = np.flatnonzero(np.asarray(obs["action_mask"])).tolist()
                env.step(legal[rng.randrange(len(legal))])
            else:
                env.step(0)
            steps += 1
    return steps / (time.perf_counter() - t0)


def main() -> None:
    """Print the four floors."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=seconds_per_row, default=4.0,
                    help="wall-clock seconds per floor, above 0 and at most 3600 (default 4)")
    s = ap.parse_args().seconds
    print(f"do-nothing AEC, unwrapped, peers-style random legal action: {run(DoNothing(), s):>12,.0f} steps/s")
    print(f"do-nothing AEC, unwrapped, always action 0:                 {run(DoNothing(), s, False):>12,.0f} steps/s")
    print(f"do-nothing AEC, PettingZoo's OrderEnforcingWrapper:         "
          f"{run(wrappers.OrderEnforcingWrapper(DoNothing()), s):>12,.0f} steps/s")
    print(f"do-nothing AEC, treachery_env's OrderEnforcingEnv:          {run(OrderEnforcingEnv(DoNothing()), s):>12,.0f} steps/s")


if __name__ == "__main__":
    main()
