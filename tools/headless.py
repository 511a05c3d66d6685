"""Run the explorer notebooks headless with plain `jupyter nbconvert --execute`, several times each, and catch hangs.

    python -m tools.headless                   # every explorer notebook 5 times, then the race notebook twice
    python -m tools.headless --runs 50 03_softmax_mask.ipynb
    python -m tools.headless --timeout 60      # seconds one run may take before it counts as a hang

A user's own pipeline runs notebooks with the standard tools (nbconvert, papermill, nbclient), not with
the course's `tools.notebooks`. Widget traffic from an explorer could deadlock such a run (jupyter/nbclient#312):
the kernel finished, the run never did. Each run here is the plain command, in a fresh kernel, under a
timeout; its output goes to a temporary folder (the repository's notebooks are never written).

Besides the notebooks, it runs a generated "race" notebook: RACE_CELLS cells that each open an explorer
and end at once. While explorers still opened an Output widget headless, plain runs of the explorer
notebooks hung about once in forty, and this notebook hung 5 runs of 6. Exit status: 0 when every run
finished without error, 1 when any hung or failed.
"""

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from tools.notebooks import ROOT, notebook_paths

RUNS = 5
TIMEOUT_S = 120  # a run takes 5–15 s on a 2-core machine; ten times that is a hang
RACE_RUNS = 2
RACE_CELLS = 150
EXPLORE_CALL = re.compile(r"\bexplore\(")


def explorer_notebooks(names=()) -> list[Path]:
    """The course notebooks (or the ones named) with at least one `explore(...)` call in a code cell."""
    found = []
    for path in notebook_paths(names):
        nb = nbformat.read(path, as_version=4)
        if any(EXPLORE_CALL.search(cell.source) for cell in nb.cells if cell.cell_type == "code"):
            found.append(path)
    return found


def race_notebook(folder: Path, cells: int = RACE_CELLS) -> Path:
    """Write a notebook whose `cells` cells each open one explorer (a cheap one) and end; return its path."""
    setup = (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom ipywidgets import Text\n"
        "from helpers.explorers import explore\n\n\n"
        "def echo(word):\n    print('word:', word)\n    print('again:', word)\n    return word"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(setup)])
    nb.cells += [nbformat.v4.new_code_cell(f"shown = explore(echo, word=Text(value='w{i}'))") for i in range(cells)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "race.ipynb"
    nbformat.write(nb, path)
    return path


def run_once(path: Path, out_dir: Path, timeout_s: float) -> tuple[str, float]:
    """Run `jupyter nbconvert --to notebook --execute` on `path`; return ('ok' | 'hung' | 'failed', seconds)."""
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", str(path),
               "--output-dir", str(out_dir), "--log-level=ERROR"]
    start = time.perf_counter()
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        # nbconvert is killed; its kernel notices its parent is gone and exits by itself
        return "hung", time.perf_counter() - start
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        print(f"    {path.name} failed: {(run.stderr.strip().splitlines() or ['no message'])[-1]}", flush=True)
        return "failed", seconds
    return "ok", seconds


def check(paths, runs: int, timeout_s: float, race_runs: int = RACE_RUNS) -> int:
    """Run each notebook `runs` times in a row (the race notebook `race_runs` times) and print a table.

    Returns how many runs hung or failed.
    """
    print(f"{'notebook':<32} {'runs':>4} {'ok':>4} {'hung':>4} {'failed':>6} {'slowest s':>9}", flush=True)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="headless-") as tmp:
        out_dir = Path(tmp)
        plan = [(path, runs) for path in paths]
        if race_runs:
            plan.append((race_notebook(out_dir), race_runs))
        for path, count in plan:
            results = [run_once(path, out_dir, timeout_s) for _ in range(count)]
            tally = {kind: sum(r == kind for r, _ in results) for kind in ("ok", "hung", "failed")}
            bad += tally["hung"] + tally["failed"]
            slowest = max(seconds for _, seconds in results)
            counts = f"{count:>4} {tally['ok']:>4} {tally['hung']:>4} {tally['failed']:>6}"
            print(f"{path.name:<32} {counts} {slowest:>9.1f}", flush=True)
    verdict = "every run finished" if not bad else f"{bad} run(s) hung (over {timeout_s:g} s) or failed"
    print(f"Headless check: {verdict}.")
    return bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.headless", description=__doc__.split("\n", 1)[0])
    parser.add_argument("names", nargs="*", help="notebooks to run (default: every notebook with an explorer)")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"runs of each notebook, in a row (default {RUNS})")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S,
                        help=f"seconds a run may take before it counts as a hang (default {TIMEOUT_S})")
    parser.add_argument("--race-runs", type=int, default=RACE_RUNS,
                        help=f"runs of the generated race notebook (default {RACE_RUNS}; 0 leaves it out)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.timeout <= 0 or args.race_runs < 0:
        parser.error("--runs must be at least 1, --timeout above 0 and --race-runs 0 or more")
    paths = explorer_notebooks(args.names)
    if not paths and not args.race_runs:
        parser.error("none of those notebooks has an explorer, and the race notebook is left out: nothing to run")
    return 1 if check(paths, args.runs, args.timeout, args.race_runs) else 0


if __name__ == "__main__":
    sys.exit(main())
