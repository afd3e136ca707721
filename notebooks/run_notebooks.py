"""Run the notebooks headless, top to bottom, each in a fresh kernel: ``make notebooks-run``.

``python notebooks/run_notebooks.py [NAME ...] [--out DIR]`` executes the
notebooks named (default: every ``notebooks/*.ipynb``) with nbclient in a
kernel of *this* interpreter (a kernelspec written to a temporary folder, so a
user-level ``python3`` spec cannot redirect it), with ``notebooks/`` as working
directory and the parameters as committed; notebook 04 plays unattended
(``TREACHERY_NOTEBOOK_AUTOPLAY=1``).  The files in ``notebooks/`` are never
written; with ``--out`` the executed copies, outputs included, go to ``DIR``.
It prints each notebook's time, or the cell that failed (counting every cell
from 1) and its error, and exits 1 when any notebook failed.
``tests/test_notebooks.py`` runs each through :func:`main`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from agents.files import check_folder

NOTEBOOKS = Path(__file__).resolve().parent
CELL_TIMEOUT = 300      # seconds per cell (each notebook takes well under a minute)


def kernel_specs(folder: str | os.PathLike) -> KernelSpecManager:
    """A kernelspec ``python3`` written under ``folder`` that launches ipykernel with
    ``sys.executable``, and the manager that finds only it."""
    d = Path(folder) / "python3"
    d.mkdir(parents=True, exist_ok=True)
    (d / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (this interpreter)", "language": "python"}))
    return KernelSpecManager(kernel_dirs=[str(d.parent)], ensure_native_kernel=False)


def execute(nb: nbformat.NotebookNode, specs: KernelSpecManager, timeout: int = CELL_TIMEOUT,
            env: dict[str, str] | None = None) -> None:
    """Execute ``nb`` (a notebook of ``notebooks/``, as ``nbformat.read`` gives it) in place, in a
    fresh kernel with ``notebooks/`` as working directory and the environment ``env`` (default:
    this process's); the kernel is shut down when it is done, a failed run's too (nbclient keeps a
    kernel whose manager it was given alive, so each notebook's kernel stayed until this process
    ended: five at once in ``make notebooks-run``, and in the test suite to its end).

    Raises:
        nbclient.exceptions.CellExecutionError: a cell raised; ``nb`` holds the outputs up to it.
        nbclient.exceptions.CellTimeoutError, DeadKernelError: a cell ran past ``timeout``
            seconds, or the kernel died.
    """
    km = KernelManager(kernel_name="python3", kernel_spec_manager=specs)
    NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute(env=dict(env or os.environ),
                                                                            cleanup_kc=True)


def main(argv: list[str] | None = None) -> int:
    """Run the notebooks of the command line; 0 when every one ran without an error, else 1."""
    p = argparse.ArgumentParser(prog="run_notebooks.py", description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help="notebook file names in notebooks/ (default: all)")
    p.add_argument("--out", metavar="DIR", help="folder for the executed copies (default: none written); not notebooks/")
    args = p.parse_args(argv)
    names = args.names or sorted(q.name for q in NOTEBOOKS.glob("*.ipynb"))
    unknown = [n for n in names if not (NOTEBOOKS / n).is_file()]
    if unknown:
        p.error(f"no notebook {unknown[0]!r} in {NOTEBOOKS}; there are "
                f"{', '.join(sorted(q.name for q in NOTEBOOKS.glob('*.ipynb')))}")
    out = Path(args.out) if args.out else None
    if out is not None and out.resolve().is_relative_to(NOTEBOOKS):
        p.error(f"--out {args.out!r} is in notebooks/, whose notebooks are committed without outputs; give a "
                f"folder outside it (e.g. runs/notebooks)")
    if out is not None:
        try:
            check_folder(out, "--out")          # before the notebooks run, not after the first
        except ValueError as err:
            p.error(str(err))
    env = {**os.environ, "TREACHERY_NOTEBOOK_AUTOPLAY": "1"}
    failed = 0
    with tempfile.TemporaryDirectory(prefix="kernelspec-") as kernels:
        specs = kernel_specs(kernels)
        for name in names:
            nb, error, t0 = nbformat.read(NOTEBOOKS / name, as_version=4), "", time.perf_counter()
            try:
                execute(nb, specs, env=env)
            except CellExecutionError as err:
                where = next((i for i, c in enumerate(nb.cells) if any(o.output_type == "error"
                                                                       for o in c.get("outputs", []))), None)
                error = (f"{'' if where is None else f'cell {where + 1} of {len(nb.cells)}: '}"
                         f"{err.ename}: {err.evalue}")
                failed += 1
            except (CellTimeoutError, DeadKernelError) as err:
                error = f"{type(err).__name__}: {(str(err).strip().splitlines() or [''])[0]}"
                failed += 1
            took = time.perf_counter() - t0
            if out is not None:             # a failed one too: its outputs up to the error
                out.mkdir(parents=True, exist_ok=True)
                nbformat.write(nb, out / name)
            print(f"{name}: {'failed: ' + error if error else 'ran'} in {took:.1f} s"
                  + (f" -> {out / name}" if out is not None else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
