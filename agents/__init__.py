"""LLM-free bots for Treachery (DESIGN section 5).

``agents.make(spec, seed=None)`` builds a bot by name; every bot has
``act(observation, info) -> int`` and ``reset(seat)`` and uses only its own
seat's information set (``info["view"]``, the observation vector and mask).
"""

from __future__ import annotations

import os
from typing import Callable, Iterable

import numpy as np

from treachery_env.words import with_article

from . import play
from .base import Agent, BaseAgent, RandomAgent, legal_actions
from .play import GameResult, play_game

__all__ = ["Agent", "BaseAgent", "RandomAgent", "legal_actions", "make", "names_a_bot", "is_outside", "unknown_text",
           "weights_file", "split_spec", "canonical_spec", "check_table",
           "register", "available", "registered_at_run_time", "play", "play_game", "GameResult", "NAMED_MODELS"]

_REGISTRY: dict[str, Callable[..., Agent]] = {"random": RandomAgent}


def register(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``agents.make(name, seed)`` build ``factory(seed=seed)``.

    Raises:
        ValueError: if the name is already registered.
    """
    if name in _REGISTRY:
        raise ValueError(f"agent {name!r} is already registered")
    _REGISTRY[name] = factory


def available(bare: bool = False) -> list[str]:
    """Names ``make`` accepts; with ``bare``, only those it builds as given, without an argument
    (not ``policy``, ``rllib`` or ``isolated``, which need ``NAME:ARGUMENT``)."""
    return sorted(n for n in _REGISTRY if not (bare and n in _WITH_ARGUMENT))


def _registered(name: str) -> str:
    """The registered name ``name`` spells in any case (``"Heuristic"``: ``"heuristic"``), or
    ``name`` itself where none does (an outside bot's module keeps its case) or, for names
    registered in two cases, where it is not one of them exactly."""
    if name in _REGISTRY:
        return name
    folded = [n for n in _REGISTRY if n.casefold() == name.casefold()]
    return folded[0] if len(folded) == 1 else name


def split_spec(spec: str) -> tuple[str, str, str]:
    """The one reading of an agent spec: ``(name, ":" or "", argument)``, split at the first colon,
    the name as registered when it names a registered bot in any case (bot names are
    case-insensitive, as role names are; a policy's path and an outside bot's module and class
    keep theirs)."""
    name, sep, arg = spec.partition(":")
    return _registered(name), sep, arg


def canonical_spec(spec: str) -> str:
    """``spec`` as this registry spells it: the bot's name as registered and a policy's (or an
    RLlib checkpoint's) modes after the path in lower case (``"Policy:Runs/X.pt:Greedy"``:
    ``"policy:Runs/X.pt:greedy"``; an isolated bot's spec likewise), everything else as given,
    so the same bot given in two cases is one entrant.  Never raises: a spec :func:`make` would
    refuse comes back with its name alone read."""
    name, sep, arg = split_spec(spec)
    try:
        if name == "policy" and arg:
            path = _policy_options(arg)[0]
            arg = path + arg[len(path):].lower()
        elif name == "rllib" and arg:
            path = _rllib_options(arg)[0]
            arg = path + arg[len(path):].lower()
        elif name == "isolated" and arg:
            arg = canonical_spec(arg)
    except ValueError:          # a spec make() refuses: its name read, the rest as given, for make() to say why
        return f"{name}{sep}{spec.partition(':')[2]}"
    return f"{name}{sep}{arg}"


def names_a_bot(spec: str) -> bool:
    """Whether ``spec`` has the form of a bot spec :func:`make` reads: a registered name
    (with its argument), or ``MODULE:CLASS`` (whether that imports is :func:`make`'s to say)."""
    name, sep, arg = split_spec(spec)
    return name in _REGISTRY or _outside_form(name, sep, arg)


def is_outside(spec: str) -> bool:
    """Whether ``spec`` names an outside bot, ``MODULE:CLASS`` (not a registered name): the bots
    ``treachery evaluate --isolate`` runs in processes of their own (``"isolated:" + spec``)."""
    name, sep, arg = split_spec(spec)
    return name not in _REGISTRY and _outside_form(name, sep, arg)


def _outside_form(name: str, sep: str, arg: str) -> bool:
    """``MODULE:CLASS`` with a dotted module name of identifiers and a class name."""
    return bool(sep) and arg.isidentifier() and all(part.isidentifier() for part in name.split("."))


def make(spec: str, seed: int | None = None) -> Agent:
    """Build a bot from a spec such as ``"random"``, ``"heuristic"``, ``"belief"``,
    ``"ismcts"``, ``"lookahead"``, a shipped model's name (``"flagship"``: its greedy
    policy, :mod:`agents.models`) or ``"policy:PATH"`` (a trained checkpoint; ``"policy:PATH:greedy"``
    takes the most probable action instead of sampling, ``":gate=T"`` after either plays a
    policy with an advantage gate at the threshold ``T`` instead of its own, and
    ``":gate_only=ROLE[+ROLE]"`` makes the seats dealt those roles leave the network's proposal
    only where its gate departs, instead of the roles the checkpoint names (``":gate_only=none"``:
    no role, the network decides in every seat):
    :class:`agents.policy.PolicyAgent`), or ``"rllib:PATH"``
    (an RLlib checkpoint, :mod:`agents.rllib`; ``":greedy"`` as for a policy).  ``"isolated:SPEC"``
    plays the bot ``SPEC`` in a process of its own that receives only the seat's observation
    and serialised view (:mod:`agents.isolated`).
    ``"MODULE:CLASS"`` (an unregistered name before the colon) is an outside bot,
    ``CLASS(seed=seed)`` imported from ``MODULE``.  Bot names and a policy's modes may be
    given in any case (``"Heuristic"``, ``"policy:PATH:Greedy"``; :func:`split_spec`).

    Raises:
        ValueError: for a ``seed`` that is neither None nor an int >= 0, an unknown spec
            (lists the available ones), an outside bot
            that cannot be imported or made, an argument
            given to a bot that takes none (a shipped model's, ``"flagship:greedy"``, says
            that the model is greedy already and how to load its file in another mode),
            ``"policy"`` without a path, an
            unreadable checkpoint, or a named model whose file is not the one
            its card records.
    """
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be None or an int >= 0, got {seed!r}")
    name, sep, arg = split_spec(spec)
    if name not in _REGISTRY:
        if _outside_form(name, sep, arg):
            return _outside(name, arg, spec, seed)
        raise ValueError(unknown_text([spec]))
    if name in _WITH_ARGUMENT:
        if not arg:
            raise ValueError(f"agent {name!r} needs an argument: {name}:{_WITH_ARGUMENT[name]}")
        return _REGISTRY[name](seed=seed, arg=arg)
    if sep:
        if name in NAMED_MODELS:        # "flagship:greedy", as a policy's mode is given
            raise ValueError(f"agent {name!r} takes no argument, got {spec!r}: a shipped model plays its "
                             f"policy greedy already ({name!r} is the greedy policy); for another mode load "
                             f"its file, policy:{models.shown_path(NAMED_MODELS[name].policy)}[:greedy][:gate=T] "
                             f"(without ':greedy' it samples)")
        raise ValueError(f"agent {name!r} takes no argument, got {spec!r}")
    return _REGISTRY[name](seed=seed)


def unknown_text(specs: list[str], why: str = "") -> str:
    """The one line for agent specs that name no bot: each, with the registered name it is
    closest to where one is close (a misspelling, ``"heuristc"``: ``did you mean 'heuristic'?``),
    and the names :func:`make` takes, in the forms they are written (``policy:PATH[:greedy]...``),
    or ``MODULE:CLASS``; ``why`` (``": ..."``) follows the specs."""
    import difflib

    names = [f"{n}:{_WITH_ARGUMENT[n]}" if n in _WITH_ARGUMENT else n for n in sorted(_REGISTRY)]
    near = {s: difflib.get_close_matches(split_spec(s)[0].casefold(), sorted(_REGISTRY), n=1) for s in specs}
    hints = "".join(f" (did you mean {m[0]!r} for {s!r}?)" if len(specs) > 1 else f" (did you mean {m[0]!r}?)"
                    for s, m in near.items() if m)
    what = f"agent {specs[0]!r}" if len(specs) == 1 else f"agent specs {specs}"
    return f"unknown {what}{why}{hints}; available: {names}, or MODULE:CLASS for a bot of your own"


def _outside(module: str, attr: str, spec: str, seed: int | None) -> Agent:
    """An outside bot, ``MODULE:CLASS``: ``CLASS(seed=seed)`` from the importable ``MODULE``
    (a benchmarker's bot enters a tournament without editing the project; the ``treachery``
    command also looks in the current folder).  It must have ``act`` and ``reset``.

    Raises:
        ValueError: (one line) if the module cannot be imported, has no ``CLASS``, or
            ``CLASS(seed=...)`` fails or is not a bot.
    """
    import importlib

    try:
        mod = importlib.import_module(module)
    except ImportError as err:
        raise ValueError(unknown_text([spec], f": not a registered bot, and module {module!r} cannot be imported "
                                              f"({err})")) from None
    except Exception as err:   # noqa: BLE001 - a module's own code can raise anything (a SyntaxError too)
        raise ValueError(f"agent {spec!r}: importing module {module!r} raised {type(err).__name__}: "
                         f"{play.first_line(err)}") from None
    factory = getattr(mod, attr, None)
    if not callable(factory):
        raise ValueError(f"agent {spec!r}: module {module!r} has no class or function {attr!r}")
    try:
        bot = factory(seed=seed)
    except Exception as err:   # noqa: BLE001 - an outside bot's constructor can raise anything; say which
        # not the seed's value: a table's bot seeds tell its seed, which deals every identity
        raise ValueError(f"agent {spec!r}: {attr}(seed=...) raised {type(err).__name__}: "
                         f"{play.first_line(err)}") from None
    missing = [m for m in ("act", "reset") if not callable(getattr(bot, m, None))]
    if missing:
        raise ValueError(f"agent {spec!r}: {attr}(seed=...) gave {with_article(type(bot).__name__)} without "
                         f"{' and '.join(missing)}(); a bot has act(observation, info) -> int and reset(seat) "
                         f"(agents.BaseAgent)")
    return bot


def _policy_options(arg: str) -> tuple[str, bool, float | None, tuple[str, ...] | None]:
    """``PATH[:greedy][:gate=T][:gate_only=ROLE[+ROLE]|none]`` -> ``(path, greedy, gate threshold
    or None, gate_only roles (``()`` for none) or None)``; the modes in any case, in any order.

    Raises:
        ValueError: for an option given twice, a gate without a number, a gate_only without
            roles, or an unknown option.
    """
    path, greedy, gate, gate_only = arg, False, None, None
    while not os.path.exists(path):      # the options after the path, in any order (a path may hold ':')
        head, sep, mode = path.rpartition(":")
        if not sep:
            break
        low = mode.lower()
        if (low == "greedy" and greedy) or (low.startswith("gate=") and gate is not None) \
                or (low.startswith("gate_only=") and gate_only is not None):
            raise ValueError(f"policy spec 'policy:{arg}': ':{low.split('=')[0]}' given twice")
        if low == "greedy":
            greedy = True
        elif low.startswith("gate="):
            try:
                gate = float(low[len("gate="):])
            except ValueError:
                raise ValueError(f"policy spec 'policy:{arg}': {mode!r} needs a number, e.g. ':gate=0.01'") from None
        elif low.startswith("gate_only="):
            gate_only = tuple(r for r in low[len("gate_only="):].split("+"))
            if gate_only == ("none",):       # no role: the network decides in every seat
                gate_only = ()
            elif "none" in gate_only:
                raise ValueError(f"policy spec 'policy:{arg}': {mode!r}: 'none' stands alone (no role plays "
                                 f"gate-only); it cannot be joined with roles")
            elif not all(gate_only):
                raise ValueError(f"policy spec 'policy:{arg}': {mode!r} needs role names joined by '+', "
                                 f"e.g. ':gate_only=assassin'")
        elif head.endswith(".pt"):
            raise ValueError(f"policy spec 'policy:{arg}': unknown mode {mode!r} after the checkpoint path "
                             f"(the modes are ':greedy', ':gate=T' and ':gate_only=ROLE[+ROLE]' or ':gate_only=none')")
        else:
            break
        path = head
    return path, greedy, gate, gate_only


def _policy(seed: int | None = None, arg: str = "") -> Agent:
    from .policy import PolicyAgent   # torch is imported only when a policy is used
    path, greedy, gate, gate_only = _policy_options(arg)
    return PolicyAgent(path, seed=seed, greedy=greedy, gate_threshold=gate, gate_only=gate_only)


def _rllib_options(arg: str) -> tuple[str, bool]:
    """``PATH[:greedy]`` -> ``(path, greedy)`` (a path may hold ':'; the mode in any case)."""
    head, sep, mode = arg.rpartition(":")
    if sep and mode.lower() == "greedy" and not os.path.exists(arg):
        return head, True
    return arg, False


def _rllib(seed: int | None = None, arg: str = "") -> Agent:
    from .rllib import RLlibAgent   # Ray is imported only when an RLlib policy is used
    path, greedy = _rllib_options(arg)
    return RLlibAgent(path, seed=seed, greedy=greedy)


def _isolated(seed: int | None = None, arg: str = "") -> Agent:
    from .isolated import IsolatedAgent
    if split_spec(arg)[0] == "isolated":
        raise ValueError(f"agent 'isolated:{arg}': a bot is isolated once (isolated:SPEC, SPEC not isolated)")
    if split_spec(arg)[0] == "human":     # its process has no terminal: it would wait for input forever
        raise ValueError(f"agent 'isolated:{arg}': a person plays at the terminal, not in a process of its own")
    if registered_at_run_time([arg]):
        # its process imports agents afresh; sending the factory would send what its code reaches
        # (a notebook's globals: the env and its game), which isolation is there to keep from it
        raise ValueError(f"agent 'isolated:{arg}': {split_spec(arg)[0]!r} was registered in this process "
                         f"(agents.register), which the bot's own process does not share: give the bot as "
                         f"MODULE:CLASS from a module of your own")
    return IsolatedAgent(arg, seed=seed)


def weights_file(spec: str) -> str | None:
    """The checkpoint a spec plays (``policy:PATH...``, ``rllib:PATH...`` or a shipped model's name),
    else None (a rule-based bot); so a result can record which file's bytes played
    (:func:`models.sha256_of`; for an RLlib checkpoint, its module's weights file)."""
    name, _, arg = split_spec(spec)
    if name == "isolated" and arg:
        return weights_file(arg)
    if name == "policy" and arg:
        try:
            return _policy_options(arg)[0]
        except ValueError:
            return None
    if name == "rllib" and arg:
        from .rllib import module_path
        try:
            return os.path.join(module_path(_rllib_options(arg)[0]), "module_state.pkl")
        except ValueError:
            return None
    model = NAMED_MODELS.get(name) if not arg else None
    return str(model.policy) if model is not None else None


_REGISTRY["policy"] = _policy
_REGISTRY["rllib"] = _rllib
_REGISTRY["isolated"] = _isolated
_WITH_ARGUMENT = {"policy": "PATH[:greedy][:gate=T][:gate_only=ROLE[+ROLE]|none]", "rllib": "PATH[:greedy]", "isolated": "SPEC"}   # bots whose spec carries an argument


# the built-in bots register themselves on import
from . import belief, heuristic, human, ismcts, lookahead  # noqa: E402,F401
from . import models  # noqa: E402


def _named_model(model: "models.Model") -> Callable[..., Agent]:
    def factory(seed: int | None = None) -> Agent:
        from .policy import PolicyAgent
        return PolicyAgent(str(models.checked_policy(model)), seed=seed, greedy=True)
    factory.__doc__ = f"The shipped model {model.name!r}, greedy ({model.policy})."
    return factory


# the shipped checkpoints by name (agents.models), after the bots: a bot's name is never taken
NAMED_MODELS: dict[str, "models.Model"] = {}
"""The shipped models registered by name (those whose name no bot has), for :func:`make`."""
for _m in models.models().values():
    if _m.name not in _REGISTRY:
        _REGISTRY[_m.name] = _named_model(_m)
        NAMED_MODELS[_m.name] = _m

_BUILT_IN = frozenset(_REGISTRY)       # what ``import agents`` registers: the bots and the shipped models


def registered_at_run_time(specs: Iterable[str]) -> dict[str, Callable[..., Agent]]:
    """The factories of the bots among ``specs`` (``NAME`` or ``NAME:ARGUMENT``) that were
    registered at run time (:func:`register`), not by ``import agents`` (the toolkit's bots and
    shipped models), by name: what a process started afresh, which imports ``agents`` anew,
    does not know (:mod:`training.evaluate` sends them to its spawned workers)."""
    names = (split_spec(s)[0] for s in specs)
    return {n: _REGISTRY[n] for n in names if n in _REGISTRY and n not in _BUILT_IN}


def check_table(bot: Agent, spec: str, num_players: int, config=None) -> None:
    """Refuse a bot that cannot sit at a table of ``num_players``; with the game's
    ``config`` (a :class:`treachery_env.GameConfig`), also warn once when a
    trained policy was trained on another game configuration (its
    ``check_config``, :class:`agents.policy.GameConfigMismatchWarning`).

    Raises:
        ValueError: for a trained policy made for another table size (its
            observation and action sizes depend on the number of players);
            with ``config``, for a game the bot's ``check_config`` refuses (a
            search bot's or a policy's in Throne Magic or a CR 900 variant), or naming what
            either method raised and where when it raises otherwise (:func:`agents.play.method_failure`).
    """
    try:
        fixed = bot.num_players() if hasattr(bot, "num_players") else None
    except Exception as err:   # noqa: BLE001 - an outside bot's method can raise anything; say which and where
        raise ValueError(play.method_failure(spec, "num_players", err)) from err
    if fixed is not None and fixed != num_players:
        raise ValueError(f"agent {spec!r} was trained for {fixed}-player tables and cannot play at "
                         f"{num_players} players; seat it at a table of {fixed}, or choose another agent")
    if config is not None and hasattr(bot, "check_config"):
        try:
            bot.check_config(config)
        except ValueError:          # its refusal of the game, in its own words
            raise
        except Exception as err:   # noqa: BLE001 - as num_players()
            raise ValueError(play.method_failure(spec, "check_config", err)) from err

