"""Run a notebook with every code cell executed twice in a row, as a learner who re-runs cells does.

    python -m tools.twice [notebooks...]    # all notebooks by default; prints one line per notebook

A cell that changes state a later cell depends on (more training, one more draw from the global
random stream) breaks that later cell when it is run twice. Every cell must either give the same
result when re-run, or stop with one sentence saying which cell to run first.
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from tools.notebooks import notebook_client, notebook_paths


def run_each_cell_twice(path: Path, timeout: int = 600) -> str | None:
    """Execute `path` top to bottom in one kernel, each code cell twice; None, or what failed and where."""
    nb = nbformat.read(path, as_version=4)
    client = notebook_client(nb, path.parent, timeout)
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            for attempt in ("first", "second"):
                try:
                    client.execute_cell(cell, index)
                except CellExecutionError as err:
                    first_line = cell.source.strip().splitlines()[0][:70] if cell.source.strip() else ""
                    reason = f"{err.ename}: {err.evalue}".strip().splitlines()[0][:200]
                    where = f"cell {index} ({first_line!r}) failed on its {attempt} run"
                    return f"{where}, every cell above having run twice: {reason}"
    return None


def main(argv) -> int:
    failures = 0
    for path in notebook_paths(argv):
        start = time.perf_counter()
        try:
            problem = run_each_cell_twice(path)
        except KeyboardInterrupt:  # the kernel is shut down on the way out; say where the run stopped
            print(f"{path.name}: stopped by Ctrl-C before its end, and nothing after it ran", flush=True)
            return 130
        failures += problem is not None
        print(f"{path.name}: {problem or 'every cell ran twice'} ({time.perf_counter() - start:.1f} s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
