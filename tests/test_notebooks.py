"""Structure of every committed notebook: stamped, executed fresh, clean.

nbval re-executes the notebooks themselves (pytest --nbval-lax); these tests check what is stored.
"""

import ast
import copy
import os
import re
import sys
from itertools import pairwise
from pathlib import Path

import nbformat
import pytest

from helpers.course import REPO_URL, colab_url
from tools import readme
from tools.notebooks import (
    COLAB_METADATA,
    NOTEBOOK_DIR,
    badge_source,
    is_setup_cell,
    notebook_paths,
    read_all,
    setup_source,
    stamp_readme,
    strip_magics,
)
from tools.slides import apply_slide_types

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = notebook_paths()
ABSOLUTE_PATH = re.compile(
    r"(/(root|home|Users|tmp|work|private|var/folders|content)/"  # POSIX home, temp and Colab folders
    r"|\b[A-Za-z]:\\\\(Users|Documents))"  # Windows user folders, as escaped in JSON
)


@pytest.fixture(params=NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def notebook(request):
    return request.param, nbformat.read(request.param, as_version=4)


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def test_the_course_has_notebooks_from_00():
    assert NOTEBOOKS and NOTEBOOKS[0].name == "00_bigram_baseline.ipynb"
    assert all(p.parent == NOTEBOOK_DIR for p in NOTEBOOKS)


def test_first_cell_is_the_colab_badge(notebook):
    path, nb = notebook
    assert nb.cells[0].source == badge_source(path.name) and nb.cells[0].cell_type == "markdown", (
        f"{path.name}: the first cell must be its Open-in-Colab badge: run `make stamp`"
    )
    assert colab_url(path.name) in nb.cells[0].source


def test_setup_cell_is_identical_everywhere_first_and_folded(notebook):
    _, nb = notebook
    setup = code_cells(nb)[0]
    assert is_setup_cell(setup)
    assert setup.source == setup_source(), "the setup cell differs from tools/setup_cell.py: run `make stamp`"
    assert setup.metadata.get("cellView") == "form", "Colab should fold the setup cell into its title"
    assert setup.metadata.get("jupyter", {}).get("source_hidden") is True, "JupyterLab should collapse it"


def test_colab_opens_the_notebook_on_a_gpu(notebook):
    path, nb = notebook
    asks = nb.metadata.get("accelerator") == "GPU"
    assert asks and nb.metadata.get("colab", {}).get("gpuType") == COLAB_METADATA["colab"]["gpuType"], (
        f"{path.name}: its metadata does not ask Colab for a GPU: run `make stamp`"
    )


def test_slide_types_are_what_make_stamp_writes(notebook):
    path, nb = notebook
    stamped = copy.deepcopy(nb)
    apply_slide_types(stamped)
    differ = [i for i, (cell, want) in enumerate(zip(nb.cells, stamped.cells, strict=True))
              if cell.metadata.get("slideshow") != want.metadata.get("slideshow")]
    assert not differ, (
        f"{path.name}: cells {differ} lack the slide types tools/slides.py gives them from the stored outputs (the "
        "live slides would differ from what make check-slides measured): run `make execute`, which stamps them"
    )


def test_executed_top_to_bottom_in_one_fresh_run(notebook):
    _, nb = notebook
    counts = [c.execution_count for c in code_cells(nb)]
    assert counts == list(range(1, len(counts) + 1)), "run `make execute` to refresh the stored outputs"


def test_outputs_are_stored_and_hold_no_error(notebook):
    _, nb = notebook
    outputs = [o for c in code_cells(nb) for o in c.outputs]
    assert outputs, "no outputs stored: run `make execute`"
    assert any("image/png" in o.get("data", {}) for o in outputs), "every notebook shows at least one heatmap"
    errors = [o for o in outputs if o.output_type == "error" or o.get("name") == "stderr" and "Traceback" in o.text]
    assert not errors


def test_printed_text_is_stored_in_one_piece(notebook):
    """The kernel splits printed text wherever its buffer flushed; `make execute` joins the pieces, so a re-run
    stores the same outputs."""
    path, nb = notebook
    split = sorted({i for i, cell in enumerate(nb.cells) for a, b in pairwise(cell.get("outputs", []))
                    if a.output_type == b.output_type == "stream" and a.name == b.name})
    assert not split, f"{path.name}: cells {split} store printed text in pieces: run `make execute`, which joins them"


def test_no_widget_state_is_stored(notebook):
    _, nb = notebook
    assert "widgets" not in nb.metadata
    assert all("widgets" not in c.metadata for c in nb.cells)


PLACEHOLDER = re.compile(r"(VBox|HBox|interactive|Output|Text|IntSlider)\(children=|\b(VBox|interactive)\(")


def test_no_widget_placeholder_is_stored(notebook):
    _, nb = notebook
    for cell in code_cells(nb):
        for out in cell.outputs:
            assert "application/vnd.jupyter.widget-view+json" not in out.get("data", {}), cell.source[:60]
            text = out.get("text", "") + out.get("data", {}).get("text/plain", "")
            assert not PLACEHOLDER.search(text), f"widget placeholder text stored under: {cell.source[:60]!r}"


def test_no_picture_is_stored_twice(notebook):
    _, nb = notebook
    pictures = [o["data"]["image/png"] for c in code_cells(nb) for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(pictures) == len(set(pictures)), "the same picture is stored twice: draw each picture once"


def test_no_absolute_paths(notebook):
    path, _ = notebook
    text = path.read_text(encoding="utf-8")
    assert not ABSOLUTE_PATH.search(text), ABSOLUTE_PATH.search(text)


def checks_in(source: str) -> list[str]:
    """The checks a code cell makes: its assert statements and its calls to assert_close / assert_* functions."""
    found = []
    for node in ast.walk(ast.parse(strip_magics(source))):
        if isinstance(node, ast.Assert):
            found.append("assert")
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name.startswith("assert_"):
                found.append(name)
    return found


def test_checks_in_finds_real_asserts_only():
    assert checks_in("assert x == 1") == ["assert"]
    assert checks_in("%time y = 2\ntorch.testing.assert_close(a, b)") == ["assert_close"]
    assert checks_in("print('assert nothing')  # assert in a comment\nassertion = 3") == []


def test_every_notebook_asserts_something(notebook):
    _, nb = notebook
    assert any(checks_in(c.source) for c in code_cells(nb)), "no assert statement or assert_close call in any cell"


def test_every_notebook_has_the_metadata_the_readme_tables_are_made_from(notebook):
    path, nb = notebook
    meta = readme.course_metadata(nb, path.name)  # raises a sentence naming what to add
    assert meta["bench_target_s"] > 0


def test_readme_notebook_table_is_what_make_stamp_writes():
    text = readme.README.read_text(encoding="utf-8")
    assert stamp_readme(text) == text, (
        "README.md's notebook table differs from the notebooks' metadata (course.name, course.summary): "
        "run `make stamp`"
    )


def test_readme_timing_table_has_every_notebook_and_its_target():
    text = readme.README.read_text(encoding="utf-8")
    recorded = readme.recorded_rows(text)
    untimed = [path.name for path in NOTEBOOKS if path.name[:2] not in recorded]
    assert not untimed, f"README.md's timing table has no row for {', '.join(untimed)}: run `make bench`"
    notebooks = read_all(NOTEBOOKS)
    expected = readme.timing_table(notebooks, {name: recorded[name[:2]] for name, _ in notebooks})
    assert readme.read_block(text, readme.TIMING_TABLE) == expected, (
        "README.md's timing table lists other notebooks, names or targets than the notebooks' metadata: "
        "run `make bench`"
    )


def course_python_files():
    """The course's own .py files, not walking into .venv/, .colab-venv/, .aside/ (installed packages: gigabytes) or
    node_modules/."""
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if not name.startswith(".") and name != "node_modules"]
        yield from (Path(folder, name) for name in files if name.endswith(".py"))


def test_public_address_is_written_in_one_source_file():
    holders = [p.relative_to(ROOT).as_posix() for p in course_python_files()
               if REPO_URL.split("//")[1] in p.read_text(encoding="utf-8")]
    assert holders == [], f"only helpers/course.py may spell out the address (via REPO): {holders}"
    assert (ROOT / "helpers" / "course.py").read_text(encoding="utf-8").count('REPO = "') == 1


def test_notebooks_are_valid_nbformat(notebook):
    _, nb = notebook
    nbformat.validate(nb)  # raises ValidationError on a malformed notebook


# The import cell: one shape everywhere ----------------------------------------------------------------------

MAX_IMPORT_LINES = 12
DEVICE_CELL = "device = pick_device(verbose=False)  # the setup cell has already said which one\nseed_everything(1337)"


def import_group(module: str) -> int:
    """0 for the standard library, 1 for other packages, 2 for the course's own helpers (isort's sections)."""
    top = module.split(".")[0]
    return 2 if top == "helpers" else 0 if top in sys.stdlib_module_names else 1


def name_order(name: str) -> tuple:
    """isort's order by type: CONSTANTS, then Classes, then functions and variables."""
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def import_cell_problems(source: str) -> list[str]:
    """What keeps a cell from being a course import cell: only imports, at most 12 lines, sorted in three groups."""
    problems = []
    lines = source.splitlines()
    if len(lines) > MAX_IMPORT_LINES:
        problems.append(f"{len(lines)} lines, more than {MAX_IMPORT_LINES}")
    statements = ast.parse(source).body
    if not all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in statements):
        problems.append("it holds something other than imports")
        return problems
    keys = []
    for s in statements:
        module = s.names[0].name if isinstance(s, ast.Import) else s.module
        keys.append((import_group(module), isinstance(s, ast.ImportFrom), module))
        if isinstance(s, ast.ImportFrom):
            names = [alias.name for alias in s.names]
            if names != sorted(names, key=name_order):
                problems.append(f"the names from {module} are not sorted")
    if keys != sorted(keys):
        problems.append("the imports are not sorted (standard library, packages, helpers; `import` before `from`)")
    for i in range(1, len(statements)):
        gap = statements[i].lineno - statements[i - 1].end_lineno - 1
        if gap != (0 if keys[i][0] == keys[i - 1][0] else 1):
            problems.append(f"line {statements[i].lineno}: one blank line between groups, none inside a group")
    if not any(k[2] == "helpers" for k in keys):
        problems.append("it does not import the subject from `helpers`")
    return problems


def test_every_import_cell_is_short_sorted_and_shaped_alike(notebook):
    _, nb = notebook
    cells = code_cells(nb)
    assert is_setup_cell(cells[0])
    problems = import_cell_problems(cells[1].source)
    assert problems == [], f"the import cell (the first after the setup cell): {'; '.join(problems)}"
    assert cells[2].source == DEVICE_CELL, "the cell after the imports picks the device and fixes the seed"


def test_the_import_cell_check_catches_each_problem():
    good = "import math\n\nimport torch\n\nfrom helpers import VOCAB_SIZE, Head, train\nfrom helpers.data import encode"
    assert import_cell_problems(good) == []
    assert import_cell_problems(good.replace("import math\n\n", "import math\n")) != []  # groups run together
    assert import_cell_problems("import torch\nimport math\n\nfrom helpers import train") != []  # unsorted
    assert import_cell_problems("import torch\n\nfrom helpers import train, Head") != []  # names unsorted
    assert import_cell_problems("import torch\n\nfrom helpers import train\ndevice = 1") != []  # not only imports
    assert import_cell_problems("import torch\n\nfrom helpers.data import encode") != []  # no subject from helpers
    long = "\n".join(f"import m{i:02d}" for i in range(11)) + "\n\nfrom helpers import train"
    assert import_cell_problems(long) == [f"13 lines, more than {MAX_IMPORT_LINES}"]


def bare_asserts(source: str) -> list[int]:
    """Line numbers of the `assert` statements in `source` that carry no message saying what they check."""
    tree = ast.parse(strip_magics(source))
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert) and node.msg is None]


def test_bare_asserts_finds_asserts_without_a_message_only():
    assert bare_asserts("assert x == 1\nassert y, 'y is set'\nif x:\n    assert z") == [1, 4]
    assert bare_asserts("%time assert a, 'a holds'\nprint('assert b')") == []


def test_no_notebook_assert_is_bare(notebook):
    path, nb = notebook
    found = [f"cell {i} line {line}" for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
             for line in bare_asserts(cell.source)]
    assert found == [], f"{path.name}: give each assert a message saying what it checks: {', '.join(found)}"


def test_every_quoted_run_a_notebook_points_to_is_a_test(notebook):
    path, nb = notebook
    tree = ast.parse((ROOT / "tests" / "test_quoted_runs.py").read_text(encoding="utf-8"))
    tests = [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    # `-k word` picks the tests whose names hold the word: each command a notebook gives must pick at least one
    words = re.findall(r"tests/test_quoted_runs\.py\s+-k\s+(\w+)", text)
    missing = [word for word in words if not any(word in name for name in tests)]
    assert missing == [], f"{path.name} points to tests/test_quoted_runs.py -k {missing}, but no test's name holds it"


def test_09_quotes_the_factor_its_stored_run_printed():
    """09's text gives the jump its stored copy printed; a timing changes with every run, so re-executing 09 must
    update the text (this test says so when it was not)."""
    path = NOTEBOOK_DIR / "09_one_head_trained.ipynb"
    nb = nbformat.read(path, as_version=4)
    printed = "".join(out.get("text", "") for cell in code_cells(nb) for out in cell.outputs)
    text = " ".join(" ".join(cell.source.split()) for cell in nb.cells if cell.cell_type == "markdown")
    factor = re.search(r"our head from T = 512 to 1,024: ×([\d.]+)", printed)
    quoted = re.findall(r"\(×([\d.]+) in this copy;", text)
    assert factor, f"{path.name} no longer prints its head's factor from T = 512 to 1,024"
    assert quoted == [factor[1]], (
        f"{path.name} printed ×{factor[1]} from T = 512 to 1,024, but its text says {quoted} 'in this copy': "
        "write the printed factor there"
    )


@pytest.mark.slow  # two fresh Pythons collect the notebooks
def test_the_long_training_notebooks_run_under_make_test_slow_and_the_others_under_make_test():
    import subprocess

    def collected(marks: str) -> set[str]:
        run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "--nbval-lax",
                              "-m", marks, "notebooks"], cwd=ROOT, capture_output=True, text=True)
        return {line.split("::")[0].removeprefix("notebooks/") for line in run.stdout.splitlines() if "::" in line}

    names = {path.name for path in notebook_paths()}
    slow = {path.name for path in notebook_paths() if readme.is_slow(nbformat.read(path, as_version=4), path.name)}
    assert collected("slow") == slow and collected("not slow") == names - slow
    assert slow and slow < names, "some notebooks, not none or all, are long training runs"
