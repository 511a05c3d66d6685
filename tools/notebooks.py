"""Stamp, execute and time the course notebooks.

    python -m tools.notebooks stamp      # write the badge, the setup cell, Colab's GPU request and the slide types
                                         # into every notebook, and the README's notebook table
    python -m tools.notebooks execute    # re-run every notebook top to bottom, outputs kept
    python -m tools.notebooks bench      # time each notebook under nbval, print a table, write it into the README
    python -m tools.notebooks slides     # print each cell's slide type (tools/slides.py's rules), change nothing
Each command takes optional notebook names (00_bigram_baseline.ipynb, or just 00) to limit it; through make:
`make execute NOTEBOOKS="03 08"`. `stamp` writes the README's notebook table from every notebook even so.
"""

import copy
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from helpers.course import REPO
from helpers.data import write_atomically as write_bytes_atomically
from tools import readme
from tools.slides import SETUP_MARKER, apply_slide_types, describe, is_setup_cell
from tools.widgets import drop_widget_views

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
# The setup cell's source, a real Python file (linted, and run by the tests), and the line that gets the address.
SETUP_CELL = ROOT / "tools" / "setup_cell.py"
SETUP_REPO_LINE = 'REPO = "OWNER/NAME"'
# Colab folds the setup cell into its title; JupyterLab collapses its source.
SETUP_METADATA = {"cellView": "form", "jupyter": {"source_hidden": True}}
# Colab opens every notebook on a GPU runtime.
COLAB_METADATA = {"accelerator": "GPU", "colab": {"provenance": [], "gpuType": "T4", "toc_visible": True}}
# Set it to clone a fork or a mirror in the setup cell (forks, mirrors, tests).
REPO_URL_ENV = "COURSE_REPO_URL"


def notebook_paths(names=()) -> list[Path]:
    """The course notebooks, in order, or just the ones named (by file name, or by number: "03")."""
    paths = sorted(NOTEBOOK_DIR.glob("[0-9][0-9]_*.ipynb"))
    if names:
        wanted = {Path(n).name for n in names}
        missing = wanted - {p.name for p in paths} - {p.name[:2] for p in paths}
        if missing:
            raise SystemExit(f"No such notebook(s) in notebooks/: {', '.join(sorted(missing))}")
        paths = [p for p in paths if p.name in wanted or p.name[:2] in wanted]
    return paths


def strip_magics(source: str) -> str:
    """A code cell's source with its IPython magic and shell lines blanked, so that `ast` can parse it."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def badge_source(name: str) -> str:
    """The first cell of notebook `name`: an Open-in-Colab badge."""
    return readme.badge(name)


def setup_source() -> str:
    """The setup cell, byte-identical in every notebook: tools/setup_cell.py with the course's address filled in."""
    source = SETUP_CELL.read_text(encoding="utf-8").rstrip("\n")
    if source.count(SETUP_REPO_LINE) != 1:
        raise SystemExit(f"tools/setup_cell.py must hold the line {SETUP_REPO_LINE!r} once: make stamp fills it in.")
    return source.replace(SETUP_REPO_LINE, SETUP_REPO_LINE.replace("OWNER/NAME", REPO))


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
    apply_slide_types(nb)
    changed = nb != before
    if changed:
        write_atomically(nb, path)
    return changed


def read_all(paths) -> list:
    """(file name, notebook) pairs for `paths`, in order."""
    return [(path.name, nbformat.read(path, as_version=4)) for path in paths]


def stamp_readme(text: str | None = None) -> str:
    """The README with its notebook table as `make stamp` writes it, from every notebook's metadata."""
    text = readme.README.read_text(encoding="utf-8") if text is None else text
    return readme.replace_block(text, readme.NOTEBOOK_TABLE, readme.notebook_table(read_all(notebook_paths())))


def write_atomically(nb, path: Path) -> None:
    """Write a notebook to a temporary file beside `path`, then move it into place (never half-written)."""
    text = nbformat.writes(nb)
    text += "" if text.endswith("\n") else "\n"  # as nbformat.write ends a file
    write_bytes_atomically(Path(path), text.encode("utf-8"))


class Interrupted(KeyboardInterrupt):
    """A notebook's run stopped from outside (Ctrl-C, or the SIGTERM of a time limit) before its end."""


def notebook_client(nb, folder: Path, timeout: int = 900):
    """An nbclient client that runs `nb` headless with its kernel working in `folder`.

    Its `execute()` raises Interrupted when Ctrl-C or SIGTERM stops the run. nbclient answers either signal by
    shutting the kernel down, and the run then fails on one of its internal checks (`assert self.kc is not None`, or
    asyncio's CancelledError while the kernel starts), an error that names no cause; the attribute read below is
    the one trace nbclient (0.10 and 0.11) leaves of the signal.
    """
    from nbclient import NotebookClient

    class CourseClient(NotebookClient):
        def execute(self, **kwargs):
            try:
                return super().execute(**kwargs)
            except BaseException as exc:
                if getattr(self, "_async_cleanup_kernel_future", None) is None:
                    raise
                raise Interrupted("stopped by Ctrl-C or SIGTERM before the notebook's end") from exc

    client = CourseClient(
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


def join_split_streams(nb):
    """Join each run of back-to-back stdout (or stderr) outputs of a cell into one; return `nb` (changed in place).

    The kernel sends printed text in pieces, split wherever its buffer happened to flush, so two runs of the same
    cell store the same text split differently. Text on either side of a picture stays where it is.
    """
    for cell in nb.cells:
        joined = []
        for out in cell.get("outputs", []):
            last = joined[-1] if joined else None
            if out.output_type == "stream" and last and last.output_type == "stream" and last.name == out.name:
                last.text += out.text
            else:
                joined.append(out)
        if "outputs" in cell:
            cell.outputs = joined
    return nb


def execute(path: Path, timeout: int = 900) -> float:
    """Run a notebook top to bottom in its own folder, keep the outputs, and return the seconds taken.

    The slide types are stamped again (they follow which cells show pictures). The file is replaced only after a
    run without errors; a failing run leaves it untouched.
    """
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    notebook_client(nb, path.parent, timeout).execute()
    seconds = time.perf_counter() - start
    nb = drop_widget_views(nb)  # a widget view without a kernel shows only as "VBox(children=…)" text
    join_split_streams(nb)
    apply_slide_types(nb)  # a cell that now shows a picture starts a subslide of its own, as make stamp would
    write_atomically(nb, path)
    return seconds


def bench(paths) -> int:
    """Time `pytest --nbval-lax` on each notebook, print a table and write the README's; return how many failed."""
    print(f"{'notebook':<36} {'seconds':>8} {'target':>7}  result")
    failures, seconds_by_name = 0, {}
    for name, nb in read_all(paths):
        path, budget = NOTEBOOK_DIR / name, readme.course_metadata(nb, name)["bench_target_s"]
        start = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax", str(path)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        seconds = seconds_by_name[name] = time.perf_counter() - start
        verdict = "passed" if run.returncode == 0 else "FAILED"
        if seconds > budget:
            verdict += ", over target"
        failures += run.returncode != 0
        print(f"{name:<36} {seconds:8.1f} {budget:>7g}  {verdict}")
    write_timing_table(seconds_by_name)
    return failures


def write_timing_table(measured: dict[str, float]) -> None:
    """Write the README's timing table: `measured` seconds by notebook name, measured here today; the README's own
    row for each notebook not measured."""
    text = readme.README.read_text(encoding="utf-8")
    recorded, here = readme.recorded_rows(text), readme.this_machine()
    notebooks = read_all(notebook_paths())
    rows = {name: (measured[name], here) if name in measured else recorded.get(name[:2]) for name, _ in notebooks}
    unmeasured = [name for name, row in rows.items() if row is None]
    if unmeasured:
        print(f"README.md: timing table not written, {', '.join(unmeasured)} never timed: run `make bench`.")
        return
    changed = readme.write(readme.replace_block(text, readme.TIMING_TABLE, readme.timing_table(notebooks, rows)))
    print(f"README.md: timing table {'written' if changed else 'already up to date'}")


def main(argv) -> int:
    if not argv or argv[0] not in ("stamp", "execute", "bench", "slides"):
        print(__doc__)
        return 2
    try:
        return run_command(argv[0], notebook_paths(argv[1:]))
    except readme.MissingMetadata as problem:
        print(problem, file=sys.stderr)
        return 1


def run_command(command: str, paths) -> int:
    """Run one of the commands the module's docstring lists on `paths`."""
    if command == "stamp":
        text = stamp_readme()  # first: a notebook without its metadata stops the command before anything is written
        for path in paths:
            print(f"{path.name}: {'stamped' if stamp(path) else 'already up to date'}")
        print(f"README.md: {'notebook table written' if readme.write(text) else 'already up to date'}")
    elif command == "slides":
        for path in paths:
            print(describe(nbformat.read(path, as_version=4), path.name))
    elif command == "execute":
        for path in paths:
            stamp(path)
            try:
                print(f"{path.name}: executed in {execute(path):.1f} s", flush=True)
            except Interrupted as stop:
                print(f"{path.name}: {stop}; the file keeps its earlier outputs, and nothing after it ran.")
                return 130
    else:
        return 1 if bench(paths) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
