"""How many torch threads the learner's update runs with, chosen by measurement.

torch's intra-op threads (OpenMP) wait for each other at every operator; when
another process holds one of the cores, the thread that lost its core holds
up the others.  Measured on 2 cores (`python bench/update_threads.py`:
the default flat configuration's update of 4,096 learner steps, 3 epochs;
one run): quiet, 0.74 s with 2 threads and 1.04 s with 1; beside one busy
process, 2.70 s with 2 threads and 1.14 s with 1.  Neither count is right on every
machine at every moment, so :class:`ThreadChoice` measures: the update runs
with the count whose latest measured cost is lowest, and every
``probe_every`` updates once with the other, so a change of load is noticed.
"""

from __future__ import annotations

__all__ = ["ThreadChoice"]


class ThreadChoice:
    """The learner's thread count for each update: the cheaper of ``most`` and ``most // 2``, by measurement.

    Call :meth:`next` before an update, set that many threads
    (``torch.set_num_threads``), and :meth:`record` its cost after it.  The
    first update is a warm-up (allocations) and is not compared; the next two
    measure each count, the fewer threads first; from then on the cheaper count
    runs, except every ``probe_every``-th update, which measures the other
    again.  The warm-up and the first measurement run with the fewer threads
    because they cost at most ~1.4x the more on a quiet machine, where the
    more threads beside a busy process cost several times the fewer (a
    newcomer's one-minute run on a busy machine spent two updates of ~20 s
    each with 2 threads where 1 thread took ~1.1 s, and ended before trying 1).

    Args:
        most: the most threads to use (torch's default at the start: the cores
            it may use, or ``OMP_NUM_THREADS``); >= 1.  With 1 there is nothing to choose.
        probe_every: updates between measurements of the count not in use; >= 2.

    Raises:
        ValueError: for ``most < 1`` or ``probe_every < 2``.
    """

    def __init__(self, most: int, probe_every: int = 10):
        if most < 1 or probe_every < 2:
            raise ValueError(f"need most >= 1 and probe_every >= 2, got {most} and {probe_every}")
        self.counts = [most] if most == 1 else [most, max(1, most // 2)]
        self.probe_every = probe_every
        self.cost: dict[int, float] = {}      # latest measured seconds per unit of work, by count
        self.updates = 0

    def next(self) -> int:
        """The thread count for the next update."""
        if len(self.counts) == 1:
            return self.counts[0]
        fewer = min(self.counts)
        if self.updates == 0:
            return fewer
        untried = sorted(c for c in self.counts if c not in self.cost)
        if untried:
            return untried[0]
        best = min(self.counts, key=lambda c: self.cost[c])
        if self.updates % self.probe_every == 0:
            return next(c for c in self.counts if c != best)
        return best

    def record(self, threads: int, seconds_per_unit: float) -> None:
        """What the update just run with ``threads`` cost (seconds per unit of work: per epoch run).

        Raises:
            ValueError: for a count this choice never gives.
        """
        if threads not in self.counts:
            raise ValueError(f"thread count {threads} is not one of {self.counts}")
        if self.updates:                      # the first update is a warm-up
            self.cost[threads] = float(seconds_per_unit)
        self.updates += 1
