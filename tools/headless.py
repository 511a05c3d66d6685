"""Run the explorer notebooks headless with plain `jupyter nbconvert --execute`, several times each, and catch hangs.

    python -m tools.headless                   # every explorer notebook 5 times, then the race notebook twice
    python -m tools.headless --runs 50 03_softmax_mask.ipynb
    python -m tools.headless --timeout 120     # seconds one run may take (default 300)
    python -m tools.headless --jobs 1          # one run at a time (default: one per core)

A user's own pipeline runs notebooks with the standard tools (nbconvert, papermill, nbclient), not with
the course's `tools.notebooks`. Widget traffic from an explorer could deadlock such a run (jupyter/nbclient#312):
the kernel finished, the run never did. Each run here is the plain command, in a fresh kernel, under a
timeout; its output goes to a temporary folder (the repository's notebooks are never written). A run
still going at the timeout counts as hung when it is idle (a deadlock waits on nothing), as slow when it
is still computing (a crowded machine); both fail the check. Runs are independent, so as many go at once
as the machine has cores (each kernel computes on one thread, OMP_NUM_THREADS=1), the longest notebooks
first so that none is left running alone at the end.

Besides the notebooks, it runs a generated "race" notebook: RACE_CELLS cells that each open an explorer
and end at once. While explorers still opened an Output widget headless, plain runs of the explorer
notebooks hung about once in forty, and this notebook hung 5 runs of 6. Exit status: 0 when every run
finished without error, 1 when any hung or failed.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from tools.notebooks import ROOT, notebook_paths
from tools.readme import course_metadata

RUNS = 5
TIMEOUT_S = 300  # a run takes 5–15 s on a quiet 2-core machine, and up to 2 minutes on a crowded one
IDLE_CHECK_S = 3  # past the timeout, how long to watch a run's CPU use to tell a hang from a slow run
IDLE_CPU = 0.1  # a run using less than this share of one core is waiting on nothing: hung
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


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by process `pid` and all its descendants (nbconvert and its kernel)."""
    import psutil  # installed with ipykernel

    try:
        parent = psutil.Process(pid)
        family = [parent, *parent.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0.0
    for process in family:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def stop_tree(pid: int) -> None:
    """Kill process `pid` and all its descendants."""
    import psutil

    try:
        parent = psutil.Process(pid)
        family = [*parent.children(recursive=True), parent]
    except psutil.Error:
        return
    for process in family:
        try:
            process.kill()
        except psutil.Error:
            pass


def run_once(path: Path, out_dir: Path, timeout_s: float) -> tuple[str, float]:
    """Run `jupyter nbconvert --to notebook --execute` on `path`; return (verdict, seconds).

    The verdict is 'ok', 'failed' (an error), 'hung' (still running at the timeout, and idle: nbconvert and
    its kernel used under IDLE_CPU of a core for IDLE_CHECK_S seconds), or 'slow' (still running, but busy).
    """
    command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", str(path),
               "--output-dir", str(out_dir), "--log-level=ERROR"]
    env = {**os.environ}
    env.setdefault("OMP_NUM_THREADS", "1")  # as the test suite's kernels: two threads per kernel thrash 2 cores
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        _, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        seconds = time.perf_counter() - start
        before = tree_cpu_seconds(process.pid)
        time.sleep(IDLE_CHECK_S)
        busy = tree_cpu_seconds(process.pid) - before > IDLE_CPU * IDLE_CHECK_S
        stop_tree(process.pid)
        process.communicate()
        return ("slow" if busy else "hung"), seconds
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        print(f"    {path.name} failed: {(stderr.strip().splitlines() or ['no message'])[-1]}", flush=True)
        return "failed", seconds
    return "ok", seconds


def expected_seconds(path: Path) -> float:
    """How long a run of the notebook at `path` is expected to take: its bench target (0 for the race notebook)."""
    if not path.name[:2].isdigit():
        return 0.0
    return course_metadata(nbformat.read(path, as_version=4), path.name)["bench_target_s"]


def check(paths, runs: int, timeout_s: float, race_runs: int = RACE_RUNS, jobs: int = 1) -> int:
    """Run each notebook `runs` times (the race notebook `race_runs` times), `jobs` runs at a time, the notebooks
    with the longest bench targets first; print a table in the notebooks' order. Returns how many runs hung or
    failed."""
    print(f"{'notebook':<32} {'runs':>4} {'ok':>4} {'hung':>4} {'slow':>4} {'failed':>6} {'slowest s':>9}", flush=True)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="headless-") as tmp, ThreadPoolExecutor(max_workers=jobs) as pool:
        out_dir = Path(tmp)
        plan = [(path, runs) for path in paths]
        if race_runs:
            plan.append((race_notebook(out_dir), race_runs))
        started = {}
        for path, count in sorted(plan, key=lambda item: -expected_seconds(item[0])):
            started[path] = [pool.submit(run_once, path, out_dir, timeout_s) for _ in range(count)]
        for path, count in plan:
            results = [future.result() for future in started[path]]
            tally = {kind: sum(r == kind for r, _ in results) for kind in ("ok", "hung", "slow", "failed")}
            bad += count - tally["ok"]
            slowest = max(seconds for _, seconds in results)
            counts = f"{count:>4} {tally['ok']:>4} {tally['hung']:>4} {tally['slow']:>4} {tally['failed']:>6}"
            print(f"{path.name:<32} {counts} {slowest:>9.1f}", flush=True)
    verdict = "every run finished" if not bad else f"{bad} run(s) hung, ran over {timeout_s:g} s or failed"
    print(f"Headless check: {verdict}.")
    return bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.headless", description=__doc__.split("\n", 1)[0])
    parser.add_argument("names", nargs="*", help="notebooks to run (default: every notebook with an explorer)")
    parser.add_argument("--runs", type=int, default=RUNS, help=f"runs of each notebook, in a row (default {RUNS})")
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S,
                        help=f"seconds a run may take before it counts as a hang (default {TIMEOUT_S})")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="runs at a time (default: one per core this process may use)")
    parser.add_argument("--race-runs", type=int, default=RACE_RUNS,
                        help=f"runs of the generated race notebook (default {RACE_RUNS}; 0 leaves it out)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.timeout <= 0 or args.race_runs < 0 or args.jobs < 1:
        parser.error("--runs and --jobs must be at least 1, --timeout above 0 and --race-runs 0 or more")
    paths = explorer_notebooks(args.names)
    if not paths and not args.race_runs:
        parser.error("none of those notebooks has an explorer, and the race notebook is left out: nothing to run")
    return 1 if check(paths, args.runs, args.timeout, args.race_runs, args.jobs) else 0


if __name__ == "__main__":
    sys.exit(main())
