"""LLM-free bots for Treachery (DESIGN section 5).

``agents.make(spec, seed=None)`` builds a bot by name; every bot has
``act(observation, info) -> int`` and ``reset(seat)`` and uses only its own
seat's information set (``info["view"]``, the observation vector and mask).
"""

from __future__ import annotations

from typing import Callable

from . import play
from .base import Agent, BaseAgent, RandomAgent, legal_actions
from .play import GameResult, play_game

__all__ = ["Agent", "BaseAgent", "RandomAgent", "legal_actions", "make", "register", "available", "play",
           "play_game", "GameResult"]

_REGISTRY: dict[str, Callable[..., Agent]] = {"random": RandomAgent}


def register(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``agents.make(name, seed)`` build ``factory(seed=seed)``.

    Raises:
        ValueError: if the name is already registered.
    """
    if name in _REGISTRY:
        raise ValueError(f"agent {name!r} is already registered")
    _REGISTRY[name] = factory


def available() -> list[str]:
    """Names ``make`` accepts."""
    return sorted(_REGISTRY)


def make(spec: str, seed: int | None = None) -> Agent:
    """Build a bot from a spec such as ``"random"``, ``"heuristic"``, ``"belief"``,
    ``"ismcts"``.

    Raises:
        ValueError: for an unknown spec (lists the available ones).
    """
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}")
    name = spec.split(":", 1)[0]
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {spec!r}; available: {sorted(_REGISTRY)}")
    return _REGISTRY[name](seed=seed)


# the built-in bots register themselves on import
from . import belief, heuristic, ismcts  # noqa: E402,F401
