"""Stamp, execute and time the course notebooks.

    python -m tools.notebooks stamp      # write the badge, the setup cell and Colab's GPU request into every notebook
    python -m tools.notebooks execute    # re-run every notebook top to bottom, outputs kept
    python -m tools.notebooks bench      # time each notebook under nbval and print a table
Each command takes optional notebook names (e.g. 00_bigram_baseline.ipynb) to limit it.
"""

import copy
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from helpers.course import REPO, REPO_URL, colab_url
from helpers.data import write_atomically as write_bytes_atomically
from tools.widgets import drop_widget_views

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
# The setup cell is recognised by its first line: a comment that names it (Colab shows it as the form's title).
SETUP_MARKER = "Course setup"
SETUP_TITLE = f"# @title {SETUP_MARKER} (run me first) {{ display-mode: \"form\" }}"
# Colab folds the setup cell into its title; JupyterLab collapses its source.
SETUP_METADATA = {"cellView": "form", "jupyter": {"source_hidden": True}}
# Colab opens every notebook on a GPU runtime.
COLAB_METADATA = {"accelerator": "GPU", "colab": {"provenance": [], "gpuType": "T4", "toc_visible": True}}
# Set it to clone a fork or a mirror in the setup cell (forks, mirrors, tests).
REPO_URL_ENV = "COURSE_REPO_URL"
# Seconds each notebook may take under nbval on a 2-core machine (the targets `bench` reports).
TIME_BUDGET_S = {
    "00": 20, "01": 15, "02": 15, "03": 15, "04": 15, "05": 15, "06": 15, "07": 15, "08": 15, "09": 30,
    "10": 60, "11": 60,
}


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
    return f'''{SETUP_TITLE}
# Identical in every notebook (`make stamp` writes it). It makes the course's helpers/ importable, walking up
# from here to find them; on Colab it first clones the course (set {REPO_URL_ENV} to clone a fork or a mirror).
import os
import pathlib
import shutil
import subprocess
import sys

REPO_URL = os.environ.get("{REPO_URL_ENV}", "{REPO_URL}")
CLONE = pathlib.Path("{folder}")


def find_course_root():
    """The nearest folder, from here upwards, that holds the course's helpers/ package."""
    here = pathlib.Path.cwd()
    return next((p for p in (here, *here.parents) if (p / "helpers" / "__init__.py").is_file()), None)


def clone_course(url, folder):
    """Clone the course into `folder` through a temporary sibling, so a half-done clone never looks finished."""
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)  # our own leftover from an interrupted clone
    command = ["git", "clone", "--quiet", "--depth", "1", url, str(partial)]
    try:
        run = subprocess.run(command, capture_output=True, text=True)
    except OSError:
        raise RuntimeError("git is not installed here, so the course cannot be cloned.") from None
    if run.returncode != 0 or not (partial / "helpers" / "__init__.py").is_file():
        shutil.rmtree(partial, ignore_errors=True)
        reason = (run.stderr.strip().splitlines() or ["it has no helpers/ folder"])[-1].removeprefix("fatal: ")
        message = f"Could not clone the course from {{url}} ({{reason}}): check the address and the network."
        raise RuntimeError(message)
    partial.rename(folder)


try:
    import google.colab  # noqa: F401  (present only on Colab)
    ON_COLAB = True
except ImportError:
    ON_COLAB = False
START = pathlib.Path.cwd()
CLONED_NOW = False
if find_course_root() is None and ON_COLAB:
    if CLONE.exists() and not (CLONE / "helpers" / "__init__.py").is_file():
        raise RuntimeError(f"{{CLONE}}/ is here but is not a whole copy of the course: delete it and run this again.")
    if not CLONE.exists():
        clone_course(REPO_URL, CLONE)
        CLONED_NOW = True
    os.chdir(CLONE / "notebooks")
COURSE_ROOT = find_course_root()
if COURSE_ROOT is None:
    raise RuntimeError("helpers/ not found: open this notebook from the course's notebooks/ folder, or in Colab.")
if str(COURSE_ROOT) not in sys.path:
    sys.path.insert(0, str(COURSE_ROOT))
from helpers.runtime import describe_device

WHERE = os.path.relpath(COURSE_ROOT, START)
print(f"Course {{'cloned into' if CLONED_NOW else 'found at'}} {{WHERE}}; device: {{describe_device()}}")'''


def is_setup_cell(cell) -> bool:
    """Whether `cell` is the setup cell: a code cell whose first line is a comment naming it."""
    first_line = cell.source.split("\n", 1)[0]
    return cell.cell_type == "code" and first_line.startswith("#") and SETUP_MARKER in first_line


def first_code_cell(nb):
    """The notebook's first code cell (where the setup cell lives)."""
    return next(c for c in nb.cells if c.cell_type == "code")


def stamp(path: Path) -> bool:
    """Write the badge (first cell), the setup cell (first code cell), Colab's GPU request and the slide types.

    Returns whether anything changed; an unchanged notebook is not rewritten.
    """
    nb = nbformat.read(path, as_version=4)
    before = copy.deepcopy(nb)
    badge = badge_source(path.name)
    if not nb.cells or nb.cells[0].cell_type != "markdown" or "colab-badge" not in nb.cells[0].source:
        nb.cells.insert(0, nbformat.v4.new_markdown_cell(badge))
    cell = first_code_cell(nb)
    if not is_setup_cell(cell):
        raise SystemExit(
            f"{path.name}: its first code cell must be the setup cell (a first line like {'# ' + SETUP_MARKER!r})."
        )
    nb.cells[0].source, cell.source = badge, setup_source()
    cell.metadata.update(copy.deepcopy(SETUP_METADATA))
    nb.metadata.update(copy.deepcopy(COLAB_METADATA))
    from tools.slides import apply_slide_types  # here, not at the top: tools.slides imports this module

    apply_slide_types(nb)
    changed = nb != before
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
    """Write a notebook to a temporary file beside `path`, then move it into place (never half-written)."""
    text = nbformat.writes(nb)
    text += "" if text.endswith("\n") else "\n"  # as nbformat.write ends a file
    write_bytes_atomically(Path(path), text.encode("utf-8"))


def notebook_client(nb, folder: Path, timeout: int = 900):
    """An nbclient client that runs `nb` headless with its kernel working in `folder`."""
    from nbclient import NotebookClient

    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
        record_timing=False,
        store_widget_state=False,
    )
    # Nobody renders widgets here. The explorers see that (nbclient keeps the kernel's history in memory) and
    # open no Output widget; ignoring widget comms as well keeps any other Output widget from reaching
    # nbclient's imitation of one, which can deadlock a run (jupyter/nbclient#312).
    client.comm_open_handlers.pop("jupyter.widget", None)
    return client


def execute(path: Path, timeout: int = 900) -> float:
    """Run a notebook top to bottom in its own folder, keep the outputs, and return the seconds taken.

    The file is replaced only after a run without errors; a failing run leaves it untouched.
    """
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    notebook_client(nb, path.parent, timeout).execute()
    seconds = time.perf_counter() - start
    nb = drop_widget_views(nb)  # a widget view without a kernel shows only as "VBox(children=…)" text
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
