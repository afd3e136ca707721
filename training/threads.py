"""How many torch threads the learner's update runs with, chosen by measurement.

torch's intra-op threads (OpenMP) wait for each other at every operator; when
another process holds one of the cores, the thread that lost its core holds
up the others.  Measured on 2 cores (`python bench/update_threads.py`:
the default flat configuration's update of 4,096 learner steps, 3 epochs;
one run): quiet, 0.74 s with 2 threads and 1.04 s with 1; beside one busy
process, 2.70 s with 2 threads and 1.14 s with 1.  Neither count is right on every
machine at every moment, so :class:`ThreadChoice` measures, a minibatch at a
time: the update runs with the count whose latest measured cost is lowest,
and every ``probe_every`` minibatches (more while re-tries change nothing) it
tries the other for a few, ending a try that costs more than twice the other
at once, so a change of load is noticed at the price of a minibatch or a few,
not of a whole update.
A cost is a mean (seconds over work), not a median: beside a busy process the
more threads run most minibatches at full speed and lose a whole scheduler
time slice in some, and those are what makes them dearer.
Different counts round the update's sums differently, so a run whose counts follow
the load is not repeated exactly by the same seed; a deterministic run
(``TrainConfig.deterministic``) measures nothing and runs every minibatch on the
most threads (:func:`training.ppo.train`).
"""

from __future__ import annotations

from collections import deque

__all__ = ["ThreadChoice"]


class ThreadChoice:
    """The learner's thread count for each minibatch: the cheaper of ``most`` and ``most // 2``, by measurement.

    Call :meth:`next` before a unit of work (the update runs one a minibatch),
    set that many threads (``torch.set_num_threads``), and :meth:`record` its
    seconds and size after it (the update: padded steps), so units of
    different sizes compare.  The first ``warmup`` units (allocations,
    thread start-up) run with the fewer threads and are not compared; then
    each count is measured for ``probe_len`` units, the fewer first; from then
    on the cheaper runs (seconds over size of each count's latest ``probe_len``
    units), except that after every ``probe_every`` units the other runs for
    ``probe_len`` units to be measured again; a re-try that leaves the cheaper
    count as it was doubles that interval (up to 8 times ``probe_every``), one
    that changes it sets it back.  A measurement stops early, after
    any of its units, once its cost so far is more than ``abort`` times the
    other count's: beside a test suite one two-thread minibatch cost ~1 s where
    one thread took 0.04 s, so four of them stalled an update for 4-6 s.  The
    fewer threads go first because they cost at most ~1.4x the more on a quiet
    machine, where the more threads beside a busy process cost many times the
    fewer; and a re-try is a few minibatches at most because a whole update at
    the slow count stalled a newcomer's run beside a test suite for 12-17 s
    each tenth update (1 thread: ~0.6 s).

    Args:
        most: the most threads to use (training passes :func:`agents.policy.torch_threads`:
            torch's count at the start, the cores it may use or ``OMP_NUM_THREADS``, as
            if no PolicyAgent had set one); >= 1.  With 1 there is nothing to choose.
        probe_every: units between re-measurements of the count not in use; >= 1.
        probe_len: units each measurement runs at most (and each count's costs kept); >= 1.
        warmup: units run first with the fewer threads and not compared; >= 0.
        abort: a measurement costing more than this many times the other count
            so far ends at once; > 1.

    Raises:
        ValueError: for ``most < 1``, ``probe_every < 1``, ``probe_len < 1``, ``warmup < 0`` or ``abort <= 1``.
    """

    def __init__(self, most: int, probe_every: int = 120, probe_len: int = 4, warmup: int = 4,
                 abort: float = 2.0):
        if most < 1 or probe_every < 1 or probe_len < 1 or warmup < 0 or not abort > 1:
            raise ValueError(f"need most >= 1, probe_every >= 1, probe_len >= 1, warmup >= 0 and abort > 1, "
                             f"got {most}, {probe_every}, {probe_len}, {warmup} and {abort}")
        self.counts = [most] if most == 1 else [most, max(1, most // 2)]
        self.probe_every, self.probe_len, self.warmup, self.abort = probe_every, probe_len, warmup, abort
        self.costs: dict[int, deque] = {c: deque(maxlen=probe_len) for c in self.counts}   # (seconds, size)
        self.units = 0              # units recorded, the warm-up's included
        self.since_probe = 0        # units run at the cheaper count since the last measurement ended
        self.interval = probe_every # units between re-tries now (doubled while re-tries change nothing)
        self.measuring: int | None = None   # the count being measured (first or again), if one is
        self._units: list = []      # that measurement's (seconds, size) so far

    @staticmethod
    def _rate(units) -> float:
        """Seconds per unit of size over ``(seconds, size)`` pairs (inf for none)."""
        return sum(s for s, _ in units) / sum(n for _, n in units) if units else float("inf")

    def cost(self, threads: int) -> float:
        """Seconds per unit of size over ``threads``' latest measured units (inf before any)."""
        return self._rate(self.costs[threads])

    def best(self) -> int:
        """The count whose latest measured cost is lowest (the fewer on a tie or before any measurement)."""
        return min(sorted(self.counts), key=self.cost)

    def next(self) -> int:
        """The thread count for the next unit of work."""
        if len(self.counts) == 1 or self.units < self.warmup:
            return min(self.counts)
        if self.measuring is None:
            unmeasured = [c for c in sorted(self.counts) if not self.costs[c]]     # the fewer first
            if unmeasured:
                self.measuring = unmeasured[0]
            elif self.since_probe >= self.interval:
                self.measuring = next(c for c in self.counts if c != self.best())
        return self.best() if self.measuring is None else self.measuring

    def record(self, threads: int, seconds: float, size: float = 1.0) -> None:
        """What the unit just run with ``threads`` took: ``seconds`` for work of ``size`` (> 0).

        Raises:
            ValueError: for a count this choice never gives, or a size <= 0.
        """
        if threads not in self.counts:
            raise ValueError(f"thread count {threads} is not one of {self.counts}")
        if not size > 0:
            raise ValueError(f"a unit's size must be > 0, got {size}")
        if self.units >= self.warmup:
            unit = (float(seconds), float(size))
            if threads == self.measuring:
                self._units.append(unit)
                other = min(self.cost(c) for c in self.counts if c != threads)
                if len(self._units) == self.probe_len or self._rate(self._units) > self.abort * other:
                    retry = all(self.costs.values())          # not a count's first measurement
                    before = self.best()
                    self.costs[threads] = deque(self._units, maxlen=self.probe_len)   # its latest measurement
                    self.measuring, self._units, self.since_probe = None, [], 0
                    if retry:
                        same = self.best() == before
                        self.interval = min(2 * self.interval, 8 * self.probe_every) if same else self.probe_every
            else:
                self.costs[threads].append(unit)
                if all(self.costs.values()):    # a unit at the cheaper count, not a first measurement
                    self.since_probe += 1
        self.units += 1
