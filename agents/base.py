"""The bot protocol and the simplest bot.

Every bot implements ``act(observation, info) -> int``: the observation dict of
the acting seat (``{"observation", "action_mask"}``) and its info dict, whose
``info["view"]`` is the seat's information set as objects
(:class:`treachery_env.view.SeatView`, with ``view.decision.options``
describing each legal action; a snapshot that refers to nothing of the
game).  A bot may use nothing else: never ``env.state()``, the game object
or another seat's data (DESIGN section 5).  ``reset(seat)`` is called at the
start of each game.

A bot that reads only the mask and ``info["view"]`` says so with the class
attribute ``uses_observation_vector = False``; a caller may then hand it an
observation dict without the ``"observation"`` vector (training rollouts do,
to save encoding it).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Agent", "BaseAgent", "TreacheryOnlyAgent", "RandomAgent", "legal_actions", "seat_view",
           "treachery_only", "treachery_only_game"]


@runtime_checkable
class Agent(Protocol):
    """What every bot provides."""

    def act(self, observation: dict, info: dict) -> int:
        """Choose a legal action index for the acting seat."""
        ...

    def reset(self, seat: int) -> None:
        """Start a new game playing ``seat``."""
        ...


def legal_actions(observation: dict) -> np.ndarray:
    """Legal action indices (int64, ascending) from an observation's int8 mask.

    Raises:
        ValueError: if the mask allows no action (the seat is not deciding).
    """
    mask = observation["action_mask"]
    legal = mask.nonzero()[0] if type(mask) is np.ndarray and mask.ndim == 1 else np.flatnonzero(mask)
    if legal.size == 0:
        raise ValueError("the action mask allows no action: this seat is not deciding now")
    return legal


def seat_view(name: str, info: dict):
    """``info["view"]``, the acting seat's :class:`~treachery_env.view.SeatView`, for the bot
    ``name`` that reads it.

    Raises:
        ValueError: naming the bot when ``info`` holds no view (an environment made with
            ``view_in_info=False``, the tensor-friendly infos, leaves it out).
    """
    view = info.get("view") if isinstance(info, dict) else None
    if view is None:
        raise ValueError(f"the {name} bot reads info['view'], which this info lacks: make the environment "
                         f"with view_in_info=True (view_in_info=False leaves it out)")
    return view


class BaseAgent(ABC):
    """Shared plumbing: a seeded ``numpy.random.Generator`` in ``self.rng``
    and the seat in ``self.seat``.

    Args:
        seed: seed of the bot's own random stream (None: nondeterministic).
    """

    name = "base"
    uses_observation_vector = True
    """Whether :meth:`act` reads ``observation["observation"]`` (False: only the
    mask and ``info["view"]``, and the vector may be left out)."""

    def __init__(self, seed: int | None = None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.seat: int | None = None

    def reset(self, seat: int) -> None:
        """Remember the seat for a new game."""
        self.seat = seat

    def num_players(self) -> int | None:
        """The table size this bot is limited to, or None when it plays any
        (rule bots read the view; a trained policy has fixed input sizes)."""
        return None

    @abstractmethod
    def act(self, observation: dict, info: dict) -> int:
        """Choose a legal action index for the acting seat."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


#: what a bot that plays Treachery without the CR 900 variants only says of each game it cannot
#: play: (the view's field, the game config's field, why)
_NOT_PLAYED = (("throne_magic", "game", "plays Treachery only (its search deals Treachery identities); "
                "Throne Magic's bots: heuristic, belief, random"),
               ("vanguards", "vanguard", "plays games without Vanguard cards only (its search deals none, CR 902); "
                "the Vanguard variant's bots: heuristic, belief, random"),
               ("schemes", "archenemy", "plays games without schemes only (its search deals none, CR 904); "
                "Archenemy's bots: heuristic, belief, random"),
               ("planechase", "planechase", "plays without Planechase only (its search would see the planar "
                "decks' hidden order); Planechase's bots: heuristic, belief, random"))


def treachery_only(name: str, view) -> None:
    """Refuse a Throne Magic view, or a game with a CR 900 variant (Vanguard, CR 902; schemes, CR
    904; Planechase, CR 901), in a bot that plays Treachery without them only: its search deals
    Treachery identities to games without Vanguard or scheme cards, and would copy the game with
    the planar decks' order, which no seat knows.

    Raises:
        ValueError: naming the bot and the bots that play the game, when ``view`` is one.
    """
    for field, _, why in _NOT_PLAYED:
        if getattr(view, field, None) is not None:
            raise ValueError(f"the {name} bot {why}")


def treachery_only_game(name: str, config) -> None:
    """:func:`treachery_only` before the game: refuse the game ``config`` (a
    :class:`treachery_env.GameConfig`, or a dict of some of its fields) when it is Throne
    Magic or has a CR 900 variant, with the same words (a search bot's ``check_config``).

    Raises:
        ValueError: naming the bot and the bots that play the game.
    """
    def get(field: str):
        return config.get(field) if isinstance(config, dict) else getattr(config, field, None)

    for _, field, why in _NOT_PLAYED:
        value = get(field)
        if (value == "throne_magic") if field == "game" else value is not None:
            raise ValueError(f"the {name} bot {why}")


class TreacheryOnlyAgent(BaseAgent):
    """A bot that plays Treachery without the CR 900 variants only (a search bot: its search deals
    Treachery identities to games without Vanguard or scheme cards, and copies the game with the
    planar decks' order, which no seat knows; :func:`treachery_only`)."""

    def check_config(self, config) -> None:
        """Refuse, before the game, a game this bot cannot play (:func:`treachery_only_game`):
        Throne Magic, or one with a CR 900 variant; :func:`agents.check_table`, ``treachery train``'s
        config and :func:`agents.play_game` call it.

        Raises:
            ValueError: naming the bot and the bots that play the game.
        """
        treachery_only_game(self.name, config)


class RandomAgent(BaseAgent):
    """Uniform over the legal actions (``agents.make("random")``)."""

    name = "random"
    uses_observation_vector = False

    def act(self, observation: dict, info: dict) -> int:
        """A uniformly random legal action."""
        legal = legal_actions(observation)
        return int(legal[self.rng.integers(legal.size)])
