"""The proposal-input ablation's checkpoint (README, "What bought it"): a
shipped policy's weights in the same network with the heuristic bot's proposal
as an input (``prior = "heuristic"``, :mod:`agents.networks`), its proposal
parameters at their initial values (bonus :data:`agents.networks.PRIOR_BONUS_INIT`),
no training.  Then evaluate it as any policy:

    python bench/untrained_proposal.py [--base checkpoints/entity-ppo/policy.pt] [--out runs/ablation/p.pt] [--force]
    treachery evaluate --agents policy:runs/ablation/p.pt:greedy,heuristic --mode substitution \\
        --reference heuristic --games 1200 --workers 2 --seed 13

An ``--out`` that exists is refused unless ``--force`` (then it is replaced
atomically), as ``treachery graft`` does; ``--out`` is never ``--base``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from agents.files import check_writable_file
from agents.networks import build_network
from agents.policy import load_checkpoint, save_checkpoint
from training.ppo import init_weights


def main(argv: list[str] | None = None) -> int:
    """Write the untrained proposal-input checkpoint; returns 0.

    Raises:
        ValueError: (one line) for an unreadable base checkpoint or one whose
            network cannot read a proposal (not the entity network), or an ``--out``
            that cannot be written, exists (without ``--force``) or is ``--base``.
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="checkpoints/entity-ppo/policy.pt", help="the policy whose weights are used")
    ap.add_argument("--out", default="runs/ablation/flagship_plus_proposal.pt", help="the checkpoint to write")
    ap.add_argument("--force", action="store_true", help="replace --out if it exists (default: refuse)")
    a = ap.parse_args(argv)
    check_writable_file(a.out, "--out")
    if Path(a.out).exists():
        if os.path.exists(a.base) and os.path.samefile(a.out, a.base):
            raise ValueError(f"--out {a.out!r} is --base: write the checkpoint to a new file (its base stays as it is)")
        if not a.force:
            raise ValueError(f"--out {a.out!r} exists; give --force to replace it")
    base = load_checkpoint(a.base)
    if base["model_kwargs"].get("arch") != "entity":
        raise ValueError(f"{a.base!r} holds a {base['model_kwargs'].get('arch', 'flat')!r} network; only the entity "
                         "network reads a proposal")
    net = build_network(dict(base["model_kwargs"], prior="heuristic"))
    init_weights(net, a.base)
    # without --force never over a file, even one made after the check: the next free name then
    path = save_checkpoint(a.out, net, base["game_config"],
                           meta={"note": f"{a.base} with an untrained heuristic proposal input"}, new=not a.force)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except ValueError as err:
        raise SystemExit(f"untrained_proposal: error: {str(err).splitlines()[0]}")
