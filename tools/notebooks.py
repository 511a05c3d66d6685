"""Stamp, execute and time the course notebooks.

    python -m tools.notebooks stamp      # write the badge and setup cell into every notebook
    python -m tools.notebooks execute    # re-run every notebook top to bottom, outputs kept
    python -m tools.notebooks bench      # time each notebook under nbval and print a table
Each command takes optional notebook names (e.g. 00_bigram_baseline.ipynb) to limit it.
"""

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from helpers.course import REPO, REPO_URL, colab_url

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
SETUP_MARKER = "# Course setup"
# Seconds each notebook may take under nbval on a 2-core machine (the targets `bench` reports).
TIME_BUDGET_S = {"00": 20, "01": 15, "02": 15, "03": 15}


def notebook_paths(names=()) -> list[Path]:
    """The course notebooks, in order, or just the ones named."""
    paths = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))
    if names:
        wanted = {Path(n).name for n in names}
        missing = wanted - {p.name for p in paths}
        if missing:
            raise SystemExit(f"No such notebook(s) in notebooks/: {', '.join(sorted(missing))}")
        paths = [p for p in paths if p.name in wanted]
    return paths


def badge_source(name: str) -> str:
    """The first cell of notebook `name`: an Open-in-Colab badge."""
    return f"[![Open In Colab]({BADGE_IMAGE})]({colab_url(name)})"


def setup_source() -> str:
    """The setup cell, byte-identical in every notebook."""
    folder = REPO.split("/")[-1]
    return f'''{SETUP_MARKER} (identical in every notebook; `make stamp` writes it): make helpers/ importable.
import os
import pathlib
import subprocess
import sys

REPO_URL = "{REPO_URL}"


def find_course_root():
    """The nearest folder, from here upwards, that holds the course's helpers/ package."""
    here = pathlib.Path.cwd()
    return next((p for p in (here, *here.parents) if (p / "helpers" / "__init__.py").is_file()), None)


try:
    import google.colab  # noqa: F401  (present only on Colab)
    ON_COLAB = True
except ImportError:
    ON_COLAB = False
if find_course_root() is None and ON_COLAB:
    if not pathlib.Path("{folder}").is_dir():
        subprocess.run(["git", "clone", "--depth", "1", REPO_URL, "{folder}"], check=True)
    os.chdir("{folder}/notebooks")
COURSE_ROOT = find_course_root()
if COURSE_ROOT is None:
    raise RuntimeError("helpers/ not found: open this notebook from the course's notebooks/ folder, or in Colab.")
if str(COURSE_ROOT) not in sys.path:
    sys.path.insert(0, str(COURSE_ROOT))'''


def first_code_cell(nb):
    """The notebook's first code cell (where the setup cell lives)."""
    return next(c for c in nb.cells if c.cell_type == "code")


def stamp(path: Path) -> bool:
    """Write the badge (first cell) and the setup cell (first code cell); return whether it changed."""
    nb = nbformat.read(path, as_version=4)
    badge, setup = badge_source(path.name), setup_source()
    if not nb.cells or nb.cells[0].cell_type != "markdown" or "colab-badge" not in nb.cells[0].source:
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(badge))
    cell = first_code_cell(nb)
    if not cell.source.startswith(SETUP_MARKER):
        raise SystemExit(f"{path.name}: its first code cell must be the setup cell (start it with {SETUP_MARKER!r}).")
    changed = nb.cells[0].source != badge or cell.source != setup
    nb.cells[0].source, cell.source = badge, setup
    if changed:
        write_atomically(nb, path)
    return changed


COLAB_LINK = re.compile(r"https://colab\.research\.google\.com/github/[^/\s]+/[^/\s]+/blob/[^/\s]+/notebooks/")


def stamp_readme(readme: Path = ROOT / "README.md") -> bool:
    """Point the README's Colab badges at the current address; return whether it changed."""
    text = readme.read_text(encoding="utf-8")
    new = COLAB_LINK.sub(colab_url(""), text)
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


def write_atomically(nb, path: Path) -> None:
    """Write a notebook to a temporary file beside `path`, then move it into place."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".ipynb.part")
    os.close(fd)
    try:
        nbformat.write(nb, tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; a notebook is not
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def execute(path: Path, timeout: int = 900) -> float:
    """Run a notebook top to bottom in its own folder, keep the outputs, and return the seconds taken.

    The file is replaced only after a run without errors; a failing run leaves it untouched.
    """
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
        store_widget_state=False,
    )
    # Headless, nobody renders widgets: ignoring their comms avoids nbclient's occasional deadlock with
    # interact() (jupyter/nbclient#312). What an explorer draws is then stored as an ordinary output.
    client.comm_open_handlers.pop("jupyter.widget", None)
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    nb.metadata.pop("widgets", None)
    write_atomically(nb, path)
    return seconds


def bench(paths) -> int:
    """Time `pytest --nbval-lax` on each notebook and print a table; return how many failed."""
    print(f"{'notebook':<36} {'seconds':>8} {'target':>7}  result")
    failures = 0
    for path in paths:
        budget = TIME_BUDGET_S.get(path.name[:2])
        start = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - start
        verdict = "passed" if run.returncode == 0 else "FAILED"
        if budget is not None and seconds > budget:
            verdict += ", over target"
        failures += run.returncode != 0
        print(f"{path.name:<36} {seconds:8.1f} {budget if budget else '-':>7}  {verdict}")
    return failures


def main(argv) -> int:
    if not argv or argv[0] not in ("stamp", "execute", "bench"):
        print(__doc__)
        return 2
    command, paths = argv[0], notebook_paths(argv[1:])
    if command == "stamp":
        for path in paths:
            print(f"{path.name}: {'stamped' if stamp(path) else 'already up to date'}")
        print(f"README.md: {'badges updated' if stamp_readme() else 'already up to date'}")
    elif command == "execute":
        for path in paths:
            stamp(path)
            print(f"{path.name}: executed in {execute(path):.1f} s", flush=True)
    else:
        return 1 if bench(paths) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
