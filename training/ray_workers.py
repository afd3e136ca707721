"""Scale-out on a Ray cluster: a tournament's games (``treachery evaluate --ray``) and the
trainer's rollout workers (``treachery train --ray``) run on Ray instead of local processes.

Ray (https://docs.ray.io) is the distributed engine; this module only says what runs there.
It is imported only when Ray is asked for, and imports ``ray`` only then, so the rest of the
toolkit works without Ray installed (``pip install 'ray>=2.60'``, or the project's ``rllib``
extra).

**Where.**  An address of :data:`RAY_DEFAULT` (``--ray`` without a value) calls ``ray.init()``
with no address: ``RAY_ADDRESS`` when it is set, else a cluster already running on this
machine (``ray start --head``), else a new local Ray of this machine's CPUs.  Any other address
is given to ``ray.init(address=...)``: ``auto``, ``HOST:6379`` (the head's GCS), ``ray://HOST:10001``
(Ray Client).  A process already connected (it called ``ray.init`` itself) keeps its connection.

**Evaluation** (:func:`run_chunks`): the process pool's chunks of games, each chunk one Ray task
of one CPU (one torch thread), at most ``--workers`` of them in flight; chunks are collected as
they finish and the records sorted by schedule index as the local path sorts them, so the results
(apart from timing) are those of local workers for the same seed.

**Training** (:class:`RayRollouts`): one Ray actor of one CPU per rollout worker, each holding a
:class:`training.rollout.Collector` seeded as the worker process would be and sent the same
messages (the learner's weights, the pool's changes, then collect), so a seed gives the same
batches as worker processes.

**Code and files.**  The toolkit itself must be installed on every node (as the driver has it).
What a tournament or a run names beyond that travels with the tasks:

* a bot registered at run time (:func:`agents.register`) and an outside bot ``MODULE:CLASS``
  whose code is the user's own (a script, a notebook, a module of the current folder: not an
  installed package) are pickled *by value* (cloudpickle's ``register_pickle_by_value``), so
  the workers need neither the file nor the module on their path; a bot from an installed
  package is pickled by reference and must be installed on every node;
* a policy checkpoint (``policy:PATH``, a shipped model by name, a run's ``kl_policy``) is
  read once here and its bytes shipped through Ray's object store; each node writes them once
  to ``<tempdir>/treachery-ray/<sha256>.pt`` (checked against the SHA-256 of the bytes read
  here, which is what a result's ``meta.entrants[].sha256`` records) and plays that file, so the
  path need not exist on the other nodes.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import signal
import socket
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

__all__ = ["RAY_DEFAULT", "RayFailure", "RemoteTraceback", "connect", "check_cluster", "bot_factories",
           "put_by_value", "ShippedFile", "run_chunks", "RayRollouts"]

#: the address that means ``ray.init()`` with no address (``--ray`` without a value)
RAY_DEFAULT = "default"

#: the toolkit's own packages: installed on every node, pickled by reference
_TOOLKIT = ("agents", "training", "treachery_env")

#: seconds a ``ray.wait`` blocks before Python looks at its signals again (Ctrl-C, SIGTERM)
_POLL_S = 0.2


class RayFailure(RuntimeError):
    """Ray itself failed under a tournament or a run (a worker or node died, an object was
    lost): one line naming what failed; the Ray exception is its ``__cause__``."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a Ray task, as its ``__cause__`` (as
    :mod:`concurrent.futures` attaches a worker process's traceback)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


def _ray():
    """The ``ray`` module.

    Raises:
        ValueError: (one line) when Ray is not installed.
    """
    try:
        import ray
    except ImportError as err:
        raise ValueError(f"running on Ray (--ray, ray_address) needs Ray, which is not installed here ({err}); "
                         f"install it with pip install 'ray>=2.60' (or the toolkit's extra: pip install -e "
                         f"'.[rllib]')") from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``HOST:PORT`` or ``ray://HOST:PORT`` address, None for another form
    (``auto``, ``local``: Ray's own words)."""
    rest = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    return host.strip("[]"), int(port)


def _check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Refuse an address where nothing accepts a connection, at once: ``ray.init`` itself would
    retry for minutes before it gives up.

    Raises:
        ValueError: (one line) naming the address and why it cannot be reached.
    """
    hp = _host_port(address)
    if hp is None:
        return
    try:
        socket.create_connection(hp, timeout=timeout_s).close()
    except OSError as err:
        why = err.strerror or type(err).__name__
        raise ValueError(f"Ray address {address!r}: no Ray cluster answers at {hp[0]}:{hp[1]} ({why}); give the "
                         f"head node's address (HOST:6379, or ray://HOST:10001 for Ray Client), or --ray alone "
                         f"for a local Ray") from None


def connect(address: str) -> bool:
    """Connect this process to Ray (see the module docstring for the addresses), unless it
    already is; SIGTERM keeps the handler it had (``ray.init`` replaces it).

    Args:
        address: :data:`RAY_DEFAULT`, or an address for ``ray.init(address=...)``.

    Returns:
        whether this call connected (False: the process was connected already).

    Raises:
        ValueError: (one line) when Ray is not installed, the address is malformed, nothing
            answers there, or ``ray.init`` fails.
    """
    ray = _ray()
    if ray.is_initialized():
        return False
    target = None if address == RAY_DEFAULT else address
    env = os.environ.get("RAY_ADDRESS")
    _check_reachable(env if env and target in (None, "auto") else (target or ""))
    main = threading.current_thread() is threading.main_thread()
    old = signal.getsignal(signal.SIGTERM) if main else None
    try:
        import logging

        from treachery_env.compiled import starting_workers
        with starting_workers():        # a local Ray's workers inherit this environment
            ray.init(address=target, logging_level=logging.WARNING)
    except Exception as err:  # noqa: BLE001 - ray.init raises ConnectionError, ValueError, RuntimeError, ...
        from agents.play import first_line
        where = "a local Ray" if target is None and not env else repr(env if target is None else address)
        raise ValueError(f"cannot connect to Ray at {where}: {type(err).__name__}: {first_line(err)}") from None
    finally:
        if main and old is not None:
            signal.signal(signal.SIGTERM, old)
    return True


# --------------------------------------------------------------------------- what travels
def _own_module(name: str) -> bool:
    """Whether the module ``name`` is the user's own code (``__main__``, a script's, a notebook's,
    a module of the current folder), not the toolkit's nor an installed package's (the standard
    library's, site-packages'): its code then travels by value."""
    if name == "__main__":
        return True
    if name.split(".")[0] in _TOOLKIT:
        return False
    mod = sys.modules.get(name)
    file = getattr(mod, "__file__", None)
    if file is None:
        return mod is not None and not hasattr(mod, "__path__")     # a module made at run time: by value
    file = os.path.realpath(file)
    parts = file.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    roots = {os.path.realpath(p) for key in ("stdlib", "platstdlib", "purelib", "platlib")
             if (p := sysconfig.get_paths().get(key))}
    return not any(file.startswith(r + os.sep) for r in roots)


def _own_code(obj: Any) -> bool:
    """Whether ``obj`` (a class or function) is the user's own code (:func:`_own_module`)."""
    return _own_module(getattr(obj, "__module__", None) or "__main__")


def _by_value_root(name: str) -> str:
    """The module to pickle by value for the user's module ``name``: its top package when that
    is the user's own too (the package's other modules travel with it), else ``name``."""
    root = name.split(".")[0]
    return root if root in sys.modules and _own_module(root) else name


class ShippedFile:
    """A file's bytes in Ray's object store, written once per node where it is needed.

    Args:
        path: the file to ship (read now).

    Raises:
        ValueError: (one line) when the file cannot be read.
    """

    def __init__(self, path: str | os.PathLike):
        ray = _ray()
        try:
            data = Path(path).read_bytes()
        except OSError as err:
            raise ValueError(f"{str(path)!r} cannot be read: {err.strerror or err}") from None
        self.name = str(path)
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.ref = ray.put(data)

    def local_path(self) -> str:
        """The file on this node (written from the object store the first time).

        Raises:
            RayFailure: when the bytes that arrived are not the ones shipped.
        """
        folder = Path(tempfile.gettempdir()) / "treachery-ray"
        dest = folder / f"{self.sha256}.pt"
        if not dest.is_file():
            import ray

            from agents.files import atomic_write_bytes
            data = ray.get(self.ref)
            if hashlib.sha256(data).hexdigest() != self.sha256:
                raise RayFailure(f"the bytes of {self.name!r} arrived with another SHA-256 than they were shipped with")
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(dest, data)          # workers of one node may race: each write is whole
        return str(dest)


class _ShippedPolicy:
    """Builds a policy bot from a shipped checkpoint: ``policy:<the node's copy><options>``."""

    def __init__(self, file: ShippedFile, options: str):
        self.file, self.options = file, options

    def __call__(self, seed: int | None = None):
        import agents
        return agents.make(f"policy:{self.file.local_path()}{self.options}", seed=seed)


def bot_factories(specs: Iterable[str]) -> dict[str, Callable[..., Any]]:
    """What a Ray worker builds each of ``specs`` from, where ``agents.make`` there would not
    build what it builds here: ``{spec: factory}``, ``factory(seed=...)`` giving the bot.

    * ``policy:PATH[...]`` and a shipped model's name: the checkpoint's bytes, shipped
      (:class:`ShippedFile`; one copy per file), played with the spec's options (a named
      model greedily, as :func:`agents.make` plays it);
    * a name registered at run time whose factory is the user's own code, and ``MODULE:CLASS``
      whose class is: that factory or class (to be pickled by value, :func:`put_by_value`).

    Built-in bots, and bots of installed packages, are left to ``agents.make`` on the worker.
    Call it connected to Ray (:func:`connect`).

    Raises:
        ValueError: (one line) for a checkpoint that cannot be read, or an outside bot whose
            module or class cannot be found (as :func:`agents.make` says it).
    """
    import agents

    out: dict[str, Callable[..., Any]] = {}
    files: dict[str, ShippedFile] = {}
    for spec in dict.fromkeys(specs):
        name, sep, arg = agents.split_spec(spec)
        path = agents.weights_file(spec)
        if path is not None:
            if name in agents.NAMED_MODELS and not sep:       # the file its model card records, or a ValueError
                agents.models.checked_policy(agents.NAMED_MODELS[name])
            real = os.path.realpath(path)
            if real not in files:
                files[real] = ShippedFile(path)
            options = arg[len(path):] if name == "policy" else ":greedy"     # a named model plays greedily
            out[spec] = _ShippedPolicy(files[real], options)
        elif name in agents._REGISTRY:      # noqa: SLF001 - the factory itself, to ship where it is one's own
            factory = agents._REGISTRY[name]
            if _own_code(factory):
                out[spec] = factory
        elif sep:
            try:
                cls = getattr(importlib.import_module(name), arg)
            except (ImportError, AttributeError):
                agents.make(spec, seed=0)       # raises its one-line ValueError
                raise
            if _own_code(cls):
                out[spec] = cls
    return out


def put_by_value(obj: Any) -> Any:
    """``ray.put(obj)`` with the modules of the user's own classes and functions in it (the
    values of a :func:`bot_factories` table) pickled by value, so Ray workers that cannot import
    them get their code (a module registered already is left registered).

    Returns:
        the ``ObjectRef``.
    """
    import ray
    from ray import cloudpickle

    values = obj.values() if isinstance(obj, dict) else [obj]
    modules = {_by_value_root(v.__module__) for v in values
               if not isinstance(v, _ShippedPolicy) and v.__module__ != "__main__" and _own_code(v)}
    known = set(cloudpickle.list_registry_pickle_by_value())
    added = [m for m in modules if m not in known and m in sys.modules]
    for m in added:
        cloudpickle.register_pickle_by_value(sys.modules[m])
    try:
        return ray.put(obj)
    finally:
        for m in added:
            cloudpickle.unregister_pickle_by_value(sys.modules[m])


# --------------------------------------------------------------------------- errors
def _get(refs: Any, what: str) -> Any:
    """``ray.get(refs)``, an exception of the task's own raised as itself (its remote traceback
    as ``__cause__``), Ray's own failures as :class:`RayFailure`.

    Raises:
        Exception: what the task raised.
        RayFailure: when a worker, an actor or a node died, or an object was lost.
    """
    import ray
    from ray.exceptions import RayError, RayTaskError

    from agents.play import first_line

    try:
        return ray.get(refs)
    except RayTaskError as err:
        cause = getattr(err, "cause", None)
        if isinstance(cause, BaseException) and not isinstance(cause, RayError):
            raise cause from RemoteTraceback(getattr(err, "traceback_str", "") or str(err))
        raise RayFailure(f"{what} failed on Ray: {first_line(err)}") from err
    except RayError as err:
        raise RayFailure(f"{what} failed on Ray: {type(err).__name__}: {first_line(err)}") from err


def _wait_one(pending: list) -> list:
    """The finished ones among ``pending`` refs (at least one), waiting in short steps between
    which Ctrl-C and SIGTERM are raised, as themselves: inside ``ray.wait`` Ray would turn the
    signal handler's exception (:class:`training.interrupts.Terminated`) into a plain
    ``KeyboardInterrupt``, so there the signal is only noted (:class:`DeferInterrupt`)."""
    import ray

    from .interrupts import DeferInterrupt
    while True:
        with DeferInterrupt():
            done, _ = ray.wait(pending, num_returns=1, timeout=_POLL_S)
        if done:
            return done


def _cancel(refs: Iterable) -> None:
    """Cancel Ray tasks, those under way too (their workers are stopped); the results of those
    that had finished are read and dropped (Ray would log an error never read as unhandled)."""
    import ray
    refs = list(refs)
    for r in refs:
        try:
            ray.cancel(r, force=True)
        except Exception:  # noqa: BLE001 - a task that has just finished cannot be cancelled: nothing to do
            pass
    done, _ = ray.wait(refs, num_returns=len(refs), timeout=0) if refs else ([], [])
    for r in done:
        try:
            ray.get(r, timeout=0)
        except Exception:  # noqa: BLE001 - its error, or the cancellation: the first error is already raised
            pass


# --------------------------------------------------------------------------- evaluation
_READY = False


def _setup_worker() -> None:
    """Once per Ray worker process, what ``training.evaluate``'s pool workers set
    (:func:`training.evaluate.setup_game_worker`; Ray sets ``OMP_NUM_THREADS`` to the task's one CPU too)."""
    global _READY
    if not _READY:
        from .evaluate import setup_game_worker
        setup_game_worker()
        _READY = True


def _play_chunk(tasks: list, config: Any, record_beliefs: bool, observer: bool, factories: dict,
                lockstep: bool = False) -> list:
    """A chunk of games on a Ray worker (the body of the Ray task)."""
    _setup_worker()
    from .evaluate import play_tasks
    return play_tasks(tasks, config, record_beliefs, observer, factories=factories, lockstep=lockstep)


_REMOTE: dict = {}


def run_chunks(chunks: Sequence[list], config: Any, record_beliefs: bool, observer: bool, in_flight: int,
               address: str = RAY_DEFAULT, on_done: Callable[[int], None] | None = None,
               lockstep: bool = False) -> list:
    """Play chunks of :class:`training.evaluate.GameTask` as Ray tasks of one CPU each, at most
    ``in_flight`` at a time, collected as they finish.

    Args:
        chunks: lists of tasks (one Ray task each).
        config: the :class:`treachery_env.GameConfig`.
        record_beliefs, observer, lockstep: as :func:`training.evaluate.play_tasks`.
        in_flight: the most Ray tasks submitted and not yet collected (>= 1).
        address: where Ray is (:func:`connect`; a connected process keeps its connection).
        on_done: called with a chunk's size when it is collected (a progress bar).

    Returns:
        the :class:`training.evaluate.GameRecord` of every task, in the order chunks finished.

    Raises:
        ValueError: (one line) for Ray missing or an address it cannot connect to, and what a
            game raises (a :class:`agents.play.BotError`, say) as itself.
        RayFailure: when Ray itself fails.
        KeyboardInterrupt: on Ctrl-C (SIGTERM under :func:`training.interrupts.catch_sigterm`).
        In every case the Ray tasks not yet collected are cancelled first.
    """
    if in_flight < 1:
        raise ValueError(f"in_flight must be >= 1, got {in_flight}")
    connect(address)
    import ray
    if "chunk" not in _REMOTE:
        _REMOTE["chunk"] = ray.remote(num_cpus=1)(_play_chunk)
    remote = _REMOTE["chunk"]
    factories = put_by_value(bot_factories({s for c in chunks for t in c for s in t.specs}))
    config_ref = ray.put(config)
    todo = list(chunks)
    todo.reverse()
    pending: dict = {}
    out: list = []
    try:
        while todo or pending:
            while todo and len(pending) < in_flight:
                chunk = todo.pop()
                pending[remote.remote(chunk, config_ref, record_beliefs, observer, factories, lockstep)] = len(chunk)
            for ref in _wait_one(list(pending)):
                n = pending.pop(ref)
                out.extend(_get(ref, "a chunk of games"))
                if on_done is not None:
                    on_done(n)
    except BaseException:
        _cancel(pending)
        raise
    return out


# --------------------------------------------------------------------------- training
class _RolloutWorker:
    """A Ray actor's body: one :class:`training.rollout.Collector`, as ``_worker_main`` holds one."""

    def __init__(self, config_dict: dict, seed: int, bots: dict, kl_file: ShippedFile | None):
        import warnings

        import agents
        # the weights arrive as read-only arrays (Ray's zero-copy numpy); load_state_dict copies them
        warnings.filterwarnings("ignore", message="The given NumPy array is not writable")
        for name, factory in bots.items():          # a runtime-registered expert; the actor's own process
            if name not in agents.available():
                agents.register(name, factory)
        if kl_file is not None:
            config_dict = {**config_dict, "kl_policy": kl_file.local_path()}
        from .rollout import worker_collector
        self.col = worker_collector(config_dict, seed)

    def collect(self, weights: dict, pool_changes: dict, steps: int, label_expert: bool) -> tuple:
        """The learner's weights and the pool's changes, then :meth:`training.rollout.Collector.collect`."""
        self.col.set_weights(weights)
        self.col.update_pool(pool_changes)
        return self.col.collect(steps, label_expert)


def check_cluster(address: str, actors: int) -> None:
    """Connect to Ray (:func:`connect`) and check that the cluster has a CPU for each of
    ``actors`` rollout actors (an actor that finds none would wait for ever).

    Raises:
        ValueError: (one line) as :func:`connect`, or for a cluster with fewer CPUs.
    """
    connect(address)
    import ray
    cpus = float(ray.cluster_resources().get("CPU", 0.0))
    if cpus < actors:
        raise ValueError(f"workers = {actors}: the Ray cluster has {cpus:g} CPU(s) and each rollout actor takes "
                         f"one; give --workers {int(cpus)} or fewer (or a larger cluster)")


class RayRollouts:
    """The rollout workers of :class:`training.rollout.WorkerPool` as Ray actors, one per seed.

    Args:
        config: the run's :class:`training.config.TrainConfig` (``ray_address`` says where).
        seeds: one collector seed per actor.

    Raises:
        ValueError: (one line) for Ray missing, an address it cannot connect to, a cluster with
            fewer CPUs than actors (each takes one), or a ``kl_policy`` that cannot be read.
    """

    def __init__(self, config: Any, seeds: Sequence[int]):
        check_cluster(config.ray_address, len(seeds))
        import ray
        kl_file = ShippedFile(config.kl_policy) if config.kl_policy else None
        bots_ref = put_by_value(bot_factories([config.expert]))     # a runtime-registered expert of one's own
        actor = ray.remote(num_cpus=1)(_RolloutWorker)
        cfg = config.to_dict()
        self.actors = [actor.remote(cfg, int(s), bots_ref, kl_file) for s in seeds]

    def start(self, weights: dict, pool_changes: dict, steps: int, label_expert: bool) -> list:
        """Start one collection on every actor, ``steps`` learner steps each; the weights and
        pool changes (numpy arrays) are put in the object store once for all of them (a copy:
        a later change of the learner's weights does not reach the collection).

        Returns:
            the collections' object references, in actor order, for :meth:`finish`.
        """
        import ray
        w, ch = ray.put(weights), ray.put(pool_changes)
        return [a.collect.remote(w, ch, steps, label_expert) for a in self.actors]

    def finish(self, refs: list) -> list:
        """Wait for the collections :meth:`start` returned.

        Returns:
            ``[(batch, games, info)]`` in actor order.

        Raises:
            RuntimeError: when an actor failed (its exception, first line; the traceback is the
                ``__cause__``'s), :class:`RayFailure` when one died.
            KeyboardInterrupt: on Ctrl-C (:meth:`close` then stops the collections under way).
        """
        pending = list(refs)
        while pending:          # in short waits: Ctrl-C reaches the learner, which closes the actors
            done = set(_wait_one(pending))
            pending = [r for r in pending if r not in done]
        try:
            return _get(refs, "a rollout actor")
        except RayFailure:
            raise
        except Exception as err:
            from agents.play import first_line
            raise RuntimeError(f"rollout worker failed: {type(err).__name__}: {first_line(err)}") from err

    def close(self) -> None:
        """Kill the actors (a collection under way is dropped)."""
        import ray
        for a in self.actors:
            try:
                ray.kill(a)
            except Exception:  # noqa: BLE001 - an actor already gone, or Ray shut down: nothing to kill
                pass
        self.actors = []
