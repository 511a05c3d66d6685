"""Run every notebook on Colab's versions of the packages and print one row per notebook.

    .colab-venv/bin/python -m tools.colab_check [notebooks...]     # what `make colab-check` runs

`make colab-check` builds .colab-venv/ from tools/colab-requirements.txt alone (Colab's torch, numpy,
matplotlib, ipywidgets, IPython and ipykernel, and nothing from requirements.txt), then runs this with
that Python. First a kernel of that environment reports the versions it really has (a mismatch with the
pins stops here: the table would not be about Colab's versions). Then each notebook runs top to bottom
on a hidden copy, on the CPU, as `make execute` runs it (tools.gpu_check.run_notebook): its asserts are
checked, the committed notebook is never written. Exit status: 0 when every notebook passed, 1 when one
failed, 2 when the kernel's versions are not the pinned ones.
"""

import re
import sys
from pathlib import Path

import nbformat

from tools.gpu_check import results_table, run_in_turn
from tools.notebooks import notebook_client, notebook_paths

REQUIREMENTS = Path(__file__).with_name("colab-requirements.txt")
# The packages whose versions are Colab's (the runner's own, nbclient and nbformat, are not checked).
COLAB_PACKAGES = ["torch", "numpy", "matplotlib", "ipywidgets", "ipython", "ipykernel"]
VERSIONS_CELL = """\
import importlib.metadata as metadata
import platform
print("python", platform.python_version())
for name in {names!r}:
    print(name, metadata.version(name))
"""


def pinned_versions(path: Path = REQUIREMENTS) -> dict[str, str]:
    """{package: version} for the `name==version` lines of a requirements file."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\s*([A-Za-z0-9_.-]+)==([^\s#]+)", line)
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def kernel_versions(folder: Path) -> dict[str, str]:
    """{package: version} as a kernel started by this Python reports them (the kernel the notebooks get)."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(VERSIONS_CELL.format(names=COLAB_PACKAGES))])
    notebook_client(nb, folder, timeout=120).execute()
    text = "".join(out.get("text", "") for out in nb.cells[0].outputs)
    return dict(line.split(" ", 1) for line in text.splitlines() if " " in line)


def version_mismatches(found: dict[str, str], pins: dict[str, str]) -> list[str]:
    """One line per Colab package whose version in the kernel is not the pinned one."""
    return [f"{name}: the kernel has {found.get(name, 'nothing')}, Colab's is {pins[name]}"
            for name in COLAB_PACKAGES if found.get(name, "").split("+")[0] != pins.get(name)]


def main(argv) -> int:
    paths = notebook_paths(argv)
    found = kernel_versions(paths[0].parent)
    print("Colab check, kernel versions: " + ", ".join(f"{name} {version}" for name, version in found.items()))
    problems = version_mismatches(found, pinned_versions())
    if problems:
        print("Not Colab's versions, nothing was run:\n  " + "\n  ".join(problems))
        return 2
    results, stopped = run_in_turn(paths, "cpu")
    print("\n" + results_table(results))
    passed, failed = sum(r.passed is True for r in results), sum(r.passed is False for r in results)
    print(f"\n{passed} passed, {failed} failed" + (", the rest not run" if stopped else ""))
    return 130 if stopped else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
