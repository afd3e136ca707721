"""The number format of the learner's matrix products: float32, or bfloat16 where the CPU has it natively.

:func:`training.ppo.ppo_update` runs the network's forward pass under
``torch.autocast("cpu", dtype=torch.bfloat16)`` when the run's
``update_dtype`` resolves to bfloat16 (:func:`autocast_dtype`): the layers'
matrix products read bfloat16 copies of their operands (8 bits of mantissa)
and accumulate in float32, their backward passes too, while the weights, the
optimizer's state, the recurrent state, the gates' elementwise arithmetic
(:class:`agents.networks._PackedGRU`), the embedding sum of the first layer
and the losses stay float32 (mixed precision, Micikevicius et al. 2018, with
bfloat16's float32 exponent range, so no loss scaling; Kalamkar et al. 2019).
The rollouts' inference stays float32.

Measured on a 2-core VM whose x86 CPU has ``avx512_bf16`` (native bfloat16
products): :func:`bfloat16_speedup` ~1.9 (a ``(64, 256) x (256, 768)``
product, one step of the recurrent core in the update, ~3 times faster in
bfloat16, a ``(1024, 256) x (256, 768)`` one ~1.9 times); the default flat
update takes 0.84 times the float32 one's time with 2 threads and 0.74 with 1,
the entity network's 0.76 (``python bench/update_threads.py --busy 0``).  On a
CPU without native bfloat16 arithmetic the products are emulated and slower
than float32, so ``"auto"`` (the default) measures: bfloat16 only where it is
at least :data:`AUTO_MIN_SPEEDUP` times faster on the update's own shapes.  A run
measures when it first starts and keeps that choice: its checkpoints record the
dtype chosen and the ratio measured, and a resume takes them from there, not from
a new timing that the machine's load could tip the other way
(:func:`training.ppo.train`; a checkpoint written before the choice was kept is
measured again at its resume, and kept from then on).
A deterministic run (``TrainConfig.deterministic``) resolves ``"auto"`` without
timing, by what the CPU has (:func:`native_bfloat16`): a timing's outcome depends on
the machine's load (of two same-seed runs started side by side, one timed bfloat16 at
0.79 times float32's speed and ran float32, and their numbers parted).
What the rounding moves (log-probabilities, values, the gradient's direction)
is bounded by ``tests/test_precision.py``.
"""

from __future__ import annotations

import functools
import time

import torch

__all__ = ["UPDATE_DTYPES", "AUTO_MIN_SPEEDUP", "autocast_dtype", "resolve_update_dtype", "bfloat16_speedup",
           "native_bfloat16"]

#: The values of ``TrainConfig.update_dtype``.
UPDATE_DTYPES = ("auto", "float32", "bfloat16")

#: How many times faster bfloat16 products must be for ``"auto"`` to take them.
AUTO_MIN_SPEEDUP = 1.5


@functools.cache
def bfloat16_speedup() -> float:
    """How many times faster than float32 this CPU multiplies the update's matrices in bfloat16.

    Times ``(64, 256) x (256, 768)`` and ``(1024, 256) x (256, 768)`` products (a
    step of the recurrent core and a minibatch's input side of it) on one torch
    thread (two threads' time would swing with whatever else holds a core), the
    two dtypes in alternate rounds of a few milliseconds, seven of each, and
    returns the smaller of the two ratios of their fastest rounds.  The matrices
    come from a generator of its own with a fixed seed, so torch's global random
    state, which seeded code may draw from after it, is left as it was.  Measured once
    per process (0.2-0.3 s; more on a busy machine) and cached."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        ratios = []
        gen = torch.Generator().manual_seed(0)
        for rows, reps in ((64, 20), (1024, 2)):
            mats = {d: (torch.randn(rows, 256, generator=gen).to(d), torch.randn(256, 768, generator=gen).to(d))
                    for d in (torch.float32, torch.bfloat16)}
            best = {d: float("inf") for d in mats}
            for _ in range(7):
                for d, (x, w) in mats.items():
                    t = time.perf_counter()
                    for _ in range(reps):
                        x @ w
                    best[d] = min(best[d], time.perf_counter() - t)
            ratios.append(best[torch.float32] / max(best[torch.bfloat16], 1e-9))
        return min(ratios)
    finally:
        torch.set_num_threads(threads)


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 natively, as torch's checks report it: AVX512-BF16
    or AMX on x86 (``torch.cpu._is_avx512_bf16_supported``, ``torch.cpu._is_amx_tile_supported``).
    False elsewhere (ARM's bfloat16 instructions included: not measured here), and where this
    torch lacks the checks.  No timing: the same CPU always gives the same answer."""
    checks = [getattr(torch.cpu, name, None) for name in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")]
    return any(check() for check in checks if check is not None)


def resolve_update_dtype(name: str, measure: bool = True) -> tuple[str, float | None]:
    """What ``update_dtype`` ``name`` gives on this machine now, and the ratio that decided it.

    Args:
        name: a value of :data:`UPDATE_DTYPES`.
        measure: for ``"auto"``, decide by :func:`bfloat16_speedup`'s timing; False
            (a deterministic run): by :func:`native_bfloat16`, with no timing.

    Returns:
        ``(dtype, ratio)``: ``dtype`` ``"float32"`` or ``"bfloat16"``; for ``"auto"``, bfloat16
        when :func:`bfloat16_speedup` (``ratio``) is at least :data:`AUTO_MIN_SPEEDUP`, or without
        ``measure`` when :func:`native_bfloat16` (``ratio`` None); for the others the name itself
        with ``ratio`` None.

    Raises:
        ValueError: for a name not in :data:`UPDATE_DTYPES`.
    """
    if name not in UPDATE_DTYPES:
        raise ValueError(f"update_dtype must be one of {', '.join(UPDATE_DTYPES)}, got {name!r}")
    if name != "auto":
        return name, None
    if not measure:
        return ("bfloat16" if native_bfloat16() else "float32"), None
    ratio = bfloat16_speedup()
    return ("bfloat16" if ratio >= AUTO_MIN_SPEEDUP else "float32"), ratio


def autocast_dtype(name: str) -> torch.dtype | None:
    """The dtype the update's forward pass autocasts to for ``update_dtype`` ``name``.

    Args:
        name: ``"float32"`` (None: no autocast), ``"bfloat16"`` (``torch.bfloat16``),
            or ``"auto"``: ``torch.bfloat16`` when :func:`bfloat16_speedup` is at
            least :data:`AUTO_MIN_SPEEDUP`, else None.

    Raises:
        ValueError: for any other name.
    """
    return torch.bfloat16 if resolve_update_dtype(name)[0] == "bfloat16" else None

