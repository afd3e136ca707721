"""PettingZoo AEC environment over :class:`treachery_env.engine.Game` (DESIGN section 4).

* Agents ``"player_0" .. "player_{n-1}"`` by seat; the agent selected is the
  seat that must decide (several decisions in a row by one seat are normal).
* Observation: ``{"observation": float32 (obs_size,), "action_mask": int8 (A,)}``
  with seats relative to the observer (:mod:`treachery_env.observation`); the
  action space is ``Discrete(A)`` laid out by :mod:`treachery_env.actions`.
* ``infos[agent]["view"]``: the acting seat's :class:`~treachery_env.view.SeatView`
  (same information as the vector), for rule-based bots: a snapshot of plain
  immutable values that holds nothing of the game (it stays valid after the
  game moves on, and pickles); ``infos[agent]["legal_actions"]``: the acting
  seat's legal action indices, a list of ints whose length changes from step to
  step.  Every other seat's info is ``{}``.  At the end of the game every seat's
  info is ``{"winners": sorted list of seats, "truncated": bool}``.
* Tensor-friendly infos, for tensor-based training libraries (TorchRL's
  ``PettingZooWrapper``, Tianshou's ``Collector``: both turn infos into
  tensors or arrays and fail on the view, which is no tensor, and on
  ``legal_actions`` and ``winners``, whose lengths vary):
  ``env(view_in_info=False, legal_actions_in_info=False)`` gives every seat an
  empty info ``{}`` at every step, the end of the game included.  Nothing is
  lost: the action mask is the legal actions, the rewards at the end say who
  won (+1) and the truncations say whether ``max_turns`` cut the game.
  Observations, rewards, terminations and truncations are the same in every
  mode.  ``training/frameworks/torchrl.py`` and ``tianshou.py`` build on it
  (``docs/environment.md``, "Frameworks").
* Rewards at the end of the game, to every seat including eliminated ones:
  +1 for a winner (their team won, TR7.4), -1 for a loser, 0 for a draw or a
  truncation at ``max_turns``.  Eliminated players stay in ``agents`` and are
  never selected until the end.
* An illegal action raises ``ValueError`` (it says which and what is legal).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from .actions import as_action
from .config import GameConfig
from .engine import Game
from . import throne_roles
from .observation import config_layout, encode_variant
from .view import ViewBuilder
from .cards import CARDS
from .rules import Role

__all__ = ["raw_env", "env", "parallel_env", "TreacheryEnv", "OrderEnforcingEnv", "TurnBasedParallelEnv"]


def _make_config(config: GameConfig | None, kwargs: dict) -> GameConfig:
    """The game's configuration from ``config`` or from keyword fields; both only where they agree.

    Raises:
        ValueError: for a ``config`` that is not a :class:`GameConfig`, a keyword field that
            contradicts it (``num_players=6`` with ``GameConfig(num_players=5)``), or a bad field.
    """
    if config is not None:
        if not isinstance(config, GameConfig):
            raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
        if kwargs:
            merged = config.replace(**kwargs)      # unknown or bad fields are reported here
            differ = [k for k in kwargs if getattr(merged, k) != getattr(config, k)]
            if differ:
                raise ValueError(f"{', '.join(f'{k}={kwargs[k]!r}' for k in differ)} contradicts the config's "
                                 f"{', '.join(f'{k}={getattr(config, k)!r}' for k in differ)}; give each field "
                                 f"once (config.replace({differ[0]}=...) makes a changed config)")
        return config
    return GameConfig.from_kwargs(**kwargs)


class raw_env(AECEnv, EzPickle):
    """The unwrapped AEC environment.

    Args:
        config: a :class:`GameConfig`; or its fields as keyword arguments
            (``num_players=5``, ``max_turns=...``); a keyword given with ``config``
            must agree with it.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns a str) or
            ``"human"`` (prints).
        render_seat: the seat whose view ``render()`` shows (None: spectator,
            public information only).
        view_in_info: put the acting seat's :class:`~treachery_env.view.SeatView`
            in its info dict, built at every step (False saves that cost for
            agents that read only the vector and the mask).
        legal_actions_in_info: put the acting seat's legal action indices
            (``info["legal_actions"]``, a list of ints of varying length) in its
            info dict (False leaves them to the observation's ``action_mask``,
            which holds the same actions at a fixed shape).  With
            ``view_in_info=False`` too, the infos are tensor-friendly: every
            seat's info is ``{}`` at every step, the end of the game included
            (where the default mode gives ``{"winners": [...], "truncated":
            bool}``; the rewards, +1 for a winner, and the truncations say the
            same).  Nothing else changes: the same seed and actions give the
            same observations, rewards, terminations and truncations in every
            mode.

    Raises:
        ValueError: for an invalid configuration (or keyword fields contradicting
            ``config``), render mode, or a ``view_in_info`` or ``legal_actions_in_info`` that is not a bool.
    """

    metadata = {"render_modes": ["ansi", "human"], "name": "treachery_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, config: GameConfig | None = None, render_mode: str | None = None,
                 render_seat: int | None = None, view_in_info: bool = True, legal_actions_in_info: bool = True,
                 **kwargs: Any):
        EzPickle.__init__(self, config, render_mode, render_seat, view_in_info, legal_actions_in_info, **kwargs)
        super().__init__()
        self.config = _make_config(config, kwargs)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        n = self.config.num_players
        if render_seat is not None and not (isinstance(render_seat, int) and 0 <= render_seat < n):
            raise ValueError(f"render_seat must be None or a seat from 0 to {n - 1}, got {render_seat!r}")
        self.render_mode = render_mode
        self.render_seat = render_seat
        for name, flag in (("view_in_info", view_in_info), ("legal_actions_in_info", legal_actions_in_info)):
            if not isinstance(flag, (bool, np.bool_)):
                raise ValueError(f"{name} must be a bool, got {flag!r}")
        self.view_in_info = bool(view_in_info)
        self.legal_actions_in_info = bool(legal_actions_in_info)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        from .actions import ActionLayout
        self.layout = ActionLayout(n, self.config.holding_count, self.config.planechase is not None)
        size = config_layout(self.config).size
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.layout.size,), np.int8),
        })
        act_space = gymnasium.spaces.Discrete(self.layout.size)
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: act_space for a in self.possible_agents}
        self._n_roles = len(Role) if self.config.game == "treachery" else len(throne_roles.names())
        n_state = n * self._n_roles + n * len(CARDS) + size
        self.state_space = gymnasium.spaces.Box(-np.inf, np.inf, (n_state,), np.float32)
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.game: Game | None = None
        self._views: ViewBuilder | None = None    # builds info["view"] for self.game

    _SHARED = frozenset({"config", "layout", "_obs_spaces", "_act_spaces", "state_space", "_seat"})

    def __deepcopy__(self, memo: dict) -> "raw_env":
        """``copy.deepcopy(env)``: an independent environment in the same state, which steps on
        from where this one is: its game cloned (:meth:`Game.clone`), its agents, rewards, infos
        and random stream copied; the configuration and the spaces, which never change, shared.
        (Pickling goes by the constructor's arguments, :class:`~gymnasium.utils.EzPickle`, and
        gives an environment before ``reset()``.)"""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            # the view builder is remade for the copy's game at its next decision
            new.__dict__[k] = v if k in self._SHARED else None if k == "_views" else copy.deepcopy(v, memo)
        return new

    # ---------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        """The (shared, cached) observation space: ``Dict(observation=Box(float32), action_mask=Box(int8))``.

        Raises:
            ValueError: for an agent that is not one of ``possible_agents``.
        """
        return self._by_agent(self._obs_spaces, agent)

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        """The (shared, cached) ``Discrete`` action space of :class:`ActionLayout`.

        Raises:
            ValueError: for an agent that is not one of ``possible_agents``.
        """
        return self._by_agent(self._act_spaces, agent)

    def _by_agent(self, table: dict, agent: Any) -> Any:
        """``table[agent]``, or a one-line ValueError for an agent that is not one of
        ``possible_agents`` (a seat number, a misspelt name) instead of a bare KeyError."""
        try:
            return table[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}") from None

    # ---------------------------------------------------------------- API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game.  A seed (an int >= 0, a numpy integer too) reseeds the
        environment's stream; without one the stream continues (each game gets a fresh
        engine seed from it).

        Raises:
            gymnasium.error.Error: for a seed that is not an integer >= 0 (gymnasium's check).
        """
        if seed is not None:
            if isinstance(seed, np.integer):        # np.random.randint's seeds: gymnasium wants a Python int
                seed = int(seed)
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        game_seed = int(self.np_random.integers(0, 2**31 - 1))
        self.game = Game(self.config, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_game_step()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation dict (its mask is all zeros unless it is deciding).

        Raises:
            ValueError: for an agent that is not one of ``possible_agents``.
            RuntimeError: before ``reset()``.
        """
        g = self._require_game()
        return g.observation(self._by_agent(self._seat, agent))

    def step(self, action: Any) -> None:
        """Apply ``action`` for the selected agent (PettingZoo AEC); ``None`` retires a finished agent.

        Raises:
            ValueError: for None while the agent must act, a non-integer, an
                out-of-range or an illegal action.
            RuntimeError: before ``reset()``, or once every agent is done (the
                wrapped :func:`env` warns and ignores it, as PettingZoo's does).
        """
        g = self.game
        if g is None or not self.agents:
            self._require_game()
            raise RuntimeError("step() after the game ended (every agent is done): call reset() to start a new one")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is not int:          # the common case is a plain int; the others are checked here
            if action is None:
                raise ValueError(f"action None is only allowed for a finished agent; {agent} must act")
            action = as_action(action)
        self._cumulative_rewards[agent] = 0.0
        g.step(action)
        if g.is_over:
            for a in self.agents:
                self.rewards[a] = 0.0
            self._after_game_step()
            self._accumulate_rewards()
        else:
            # while the game runs every reward is 0 (rewards come at the end only), so
            # zeroing ``rewards`` and adding them to ``_cumulative_rewards`` would change nothing
            self._select(g, agent)
        mode = self.render_mode
        if mode is not None and mode == "human":
            self.render()

    def _after_game_step(self) -> None:
        g = self.game
        if g.is_over:
            # tensor-friendly infos (neither the view nor the legal actions): {} at the end too
            empty = not self.view_in_info and not self.legal_actions_in_info
            for a in self.agents:
                s = self._seat[a]
                if g.truncated or not g.winners:
                    r = 0.0
                else:
                    r = 1.0 if s in g.winners else -1.0
                self.rewards[a] = r
                self.terminations[a] = not g.truncated
                self.truncations[a] = bool(g.truncated)
                self.infos[a] = {} if empty else {"winners": sorted(g.winners), "truncated": bool(g.truncated)}
            self.agent_selection = self.agents[0]
            return
        self._select(g, self.agent_selection if hasattr(self, "agent_selection") else None)

    def _select(self, g: Game, prev: str | None) -> None:
        """Select the seat deciding in ``g`` (running) and give it its info;
        ``prev``, the agent selected before (None: none), loses its info if it is another."""
        seat = g.decision.seat
        agent = self.possible_agents[seat]
        infos = self.infos
        if prev is not None and prev != agent and prev in infos:
            infos[prev] = {}
        info: dict[str, Any] = {"legal_actions": g.legal_actions()} if self.legal_actions_in_info else {}
        if self.view_in_info:
            views = self._views
            if views is None or views.game is not g:
                views = self._views = ViewBuilder(g)
            info["view"] = views.build(seat)
        infos[agent] = info
        self.agent_selection = agent

    def last(self, observe: bool = True) -> tuple:
        """``(observation, cumulative reward, terminated, truncated, info)`` of the
        selected agent (PettingZoo's ``AECEnv.last``).

        Raises:
            RuntimeError: before ``reset()``; once every agent is done and has left ``agents``
                (PettingZoo's own ``last`` raises a bare ``KeyError`` there), as :meth:`step` does.
        """
        self._require_game()
        agent = self.agent_selection
        if agent not in self._cumulative_rewards:
            raise RuntimeError("last() after the game ended (every agent is done): call reset()")
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def state(self) -> np.ndarray:
        """Privileged full state (centralised critics): every seat's role one-hot
        (n x 4; Throne Magic: n x 17 Roles, :func:`treachery_env.throne_roles.names`),
        every hand as card counts (n x cards), then seat 0's observation vector.
        float32, shape ``state_space.shape``.

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        g = self._require_game()
        n = g.n
        nc = len(CARDS)
        out = np.zeros(self.state_space.shape, np.float32)
        nr = self._n_roles
        names = throne_roles.names()
        for p in g.players:
            if g.social is not None and not g.social.roles:
                pass                    # a Throne Magic Draft: no Role dealt yet, the one-hots stay zeros
            else:
                role = int(p.identity.role) if g.social is None else names.index(g.social.roles[p.seat])
                out[p.seat * nr + role] = 1.0
            base = n * nr + p.seat * nc
            for c in p.hand:
                out[base + c.index] += 1.0
        out[n * nr + n * nc:] = encode_variant(g, 0)
        return out

    def describe_action(self, agent: str, action: int) -> str:
        """What ``action`` does for ``agent`` now, in words.

        For an agent that is not deciding now, it says what the action index
        means in general ("hand card #2").

        Raises:
            ValueError: for an unknown agent, an action that is not an integer
                (:func:`~treachery_env.actions.as_action`) or one outside the space.
            RuntimeError: before :meth:`reset`.
        """
        seat = self._by_agent(self._seat, agent)
        return self._require_game().describe_action(action, seat)

    def render(self) -> str | None:
        """The text picture as ``render_seat`` sees it: returned for ``"ansi"``, printed for ``"human"``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = self.game.render_text(self.render_seat) if self.game is not None else "(not reset)"
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        """Release the game."""
        self.game = None
        self._views = None


TreacheryEnv = raw_env


def _forward(name: str, guarded: bool) -> property:
    """A read-only property forwarding ``name`` to the wrapped env; ``guarded``
    ones raise ``AttributeError`` before ``reset()`` as the stock wrapper's
    ``__getattr__`` does."""
    if guarded:
        def get(self: "OrderEnforcingEnv") -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self.env, name)
    else:
        def get(self: "OrderEnforcingEnv") -> Any:
            return getattr(self.env, name)
    return property(get, doc=f"The wrapped environment's ``{name}``.")


class OrderEnforcingEnv(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` without its per-attribute indirection.

    The stock wrapper resolves every attribute the AEC loop reads
    (``agent_selection``, ``agents``, ``infos``, ``_cumulative_rewards``, ...)
    through a chain of ``__getattr__`` calls, about eight per step.  Here those
    are plain properties and ``last()`` goes straight to the environment; the
    checks and errors are the stock wrapper's: ``AttributeError`` for
    ``rewards``, ``terminations``, ``truncations``, ``infos``,
    ``agent_selection``, ``num_agents`` and ``agents`` before ``reset()``,
    ``AssertionError`` ("reset() needs to be called before ...") for
    ``step``, ``observe``, ``state``, ``render`` and ``agent_iter`` before
    ``reset()`` (``last()`` raises the ``AttributeError`` of ``agent_selection``), and a warning for ``step()`` once no agent is left.
    Being a subclass, it passes ``isinstance(env, OrderEnforcingWrapper)``
    (PettingZoo's order-enforcing iterator requires it).
    """

    rewards = _forward("rewards", True)
    terminations = _forward("terminations", True)
    truncations = _forward("truncations", True)
    infos = _forward("infos", True)
    agent_selection = _forward("agent_selection", True)
    agents = _forward("agents", True)
    _cumulative_rewards = _forward("_cumulative_rewards", False)
    possible_agents = _forward("possible_agents", False)
    metadata = _forward("metadata", False)
    render_mode = _forward("render_mode", False)

    @property
    def num_agents(self) -> int:
        """Agents still in ``agents`` (``AttributeError`` before ``reset()``)."""
        return len(self.agents)

    @property
    def max_num_agents(self) -> int:
        """``len(possible_agents)``."""
        return len(self.env.possible_agents)

    def last(self, observe: bool = True) -> tuple:
        """``(observation, cumulative reward, terminated, truncated, info)`` of the selected agent.

        Raises:
            AttributeError: before ``reset()`` (as the stock wrapper's, which
                reads ``agent_selection`` first).
        """
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        """The wrapped environment's ``step`` (the stock wrapper's checks: ``AssertionError``
        before ``reset()``, a warning once no agent is left)."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        env = self.env
        self._has_updated = True
        if not env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> "_OrderEnforcingIterable":
        """The stock wrapper's ``agent_iter`` (the same checks), iterated without its chain of calls."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        """The wrapped environment's (shared) observation space."""
        return self.env.observation_space(agent)

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        """The wrapped environment's (shared) action space."""
        return self.env.action_space(agent)


class _OrderEnforcingIterable(AECOrderEnforcingIterable):
    """``agent_iter()`` of :class:`OrderEnforcingEnv`: iterates with :class:`_OrderEnforcingIterator`."""

    def __iter__(self) -> "_OrderEnforcingIterator":
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECOrderEnforcingIterator):
    """PettingZoo's ``AECOrderEnforcingIterator`` in one call: the selected agent
    until none is left or ``max_iter`` agents were given, asserting that the
    loop stepped in between (the same checks and message)."""

    def __next__(self) -> str:
        wrapper = self.env
        raw = wrapper.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        agent = raw.agent_selection
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return agent


def parallel_env(forced_decisions: str = "shown", **kwargs: Any) -> Any:
    """The turn-based parallel form (PettingZoo's ``turn_based_aec_to_parallel`` over :func:`env`),
    for libraries that take a ``ParallelEnv`` (SuperSuit's vector envs, say): ``reset`` and
    ``step(actions)`` return every seat's observation, reward, termination, truncation and info;
    only the acting seat's action is played (the others' are ignored), and every other seat's
    action mask is all zeros, so a seat acts when its mask has a 1.  Every seat's observation
    is encoded at every step (the AEC env encodes the acting seat's).  Arguments as
    :class:`raw_env`.

    Every seat steps at every decision of any seat and every info names the ``active_agent``,
    so the order of decisions is public here.  Its games therefore show every decision
    (``forced_decisions="shown"``, :class:`~treachery_env.config.GameConfig`): a seat's
    priority is a decision whether it can do more than pass or not, so another seat learns
    nothing from who is asked (with ``"auto"`` a seat is asked where it holds something it
    could play, which tells the others it has it; ``tests/test_information_sets.py``).
    ``forced_decisions="auto"`` gives the AEC env's decisions (fewer steps) with that leak.
    A ``config`` is played with this ``forced_decisions``.

    ``step`` refuses, each in one line, what PettingZoo's wrapper would meet with a bare
    ``KeyError`` or ``AttributeError`` or pass over (:class:`TurnBasedParallelEnv`).

    Raises:
        ValueError: for an invalid configuration (as :class:`raw_env`).
    """
    config = kwargs.get("config")
    if isinstance(config, GameConfig):
        kwargs["config"] = config.replace(forced_decisions=forced_decisions)
    else:       # no config (a bad one is refused by raw_env): the fields
        kwargs["forced_decisions"] = forced_decisions
    return TurnBasedParallelEnv(env(**kwargs))


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based parallel wrapper over :func:`env` (what :func:`parallel_env`
    returns), whose ``step`` checks its argument first: its ``reset``, observations, rewards
    and infos are the stock wrapper's."""

    def step(self, actions: Any) -> tuple:
        """Play the acting seat's action of ``actions`` (a dict by agent; the others' are
        ignored) and return every live seat's ``(observations, rewards, terminations,
        truncations, infos)``; after the game, five empty dicts (as the stock wrapper).

        Raises:
            RuntimeError: before ``reset()``.
            TypeError: when ``actions`` is not a dict (mapping) by agent.
            ValueError: when it names an agent not in ``possible_agents`` (a misspelt name,
                a seat number) or lacks the acting agent's action (the one whose mask
                has a 1, ``infos[agent]["active_agent"]``); an illegal action is refused
                by :class:`raw_env`.
        """
        if getattr(self, "agents", None) is None:
            raise RuntimeError("parallel env: call reset() before step()")
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict of actions by agent, got {type(actions).__name__}")
        unknown = [a for a in actions if a not in self.possible_agents]
        if unknown:
            raise ValueError(f"actions name unknown agents {unknown}; agents are {self.possible_agents}")
        if self.agents and self.aec_env.agent_selection not in actions:
            raise ValueError(f"actions has no action for {self.aec_env.agent_selection!r}, the agent to act "
                             f"(the one whose action mask has a 1; the others' actions are ignored)")
        return super().step(actions)


def env(**kwargs: Any) -> OrderEnforcingEnv:
    """The wrapped AEC environment: :class:`raw_env` inside
    :class:`OrderEnforcingEnv` (PettingZoo's order enforcing, reset before
    use).  Out-of-range and illegal actions raise ``ValueError`` from the
    environment itself, so no ``AssertOutOfBoundsWrapper`` is needed.
    Arguments as :class:`raw_env`."""
    return OrderEnforcingEnv(raw_env(**kwargs))
