"""Each step's code is defined in a cell of the notebook that teaches it; helpers/ keeps the copy later ones import.

The pairs are found, never listed: every def, class or UPPER_CASE constant a notebook defines in its own cells
under a name that a helpers/ module also defines at its top. For every such pair, the notebook's defining cell and
the helpers copy must parse to the same code (docstrings aside) and have the same lines, comments included
(`show_diff` compares text). The notebook must use its own definition: it may not import the name from helpers/,
and only one cell may define it. Then one spelling for the scale and one for the mask across the stages, `Head`
and the reference solutions.
"""

import ast
import inspect
import re
import textwrap
from pathlib import Path

import nbformat
import pytest

from helpers import attention, averaging
from tools.notebooks import is_setup_cell, notebook_paths, strip_magics

ROOT = Path(__file__).resolve().parent.parent
HELPERS = ROOT / "helpers"


def is_copyable(node) -> bool:
    """A statement that can be step code kept in helpers/: a def, a class, or an UPPER_CASE constant."""
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return True
    return isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets)


def helpers_names() -> dict[str, Path]:
    """Every def, class and constant at the top of a helpers/ module (not exercises/ or explorers/): its file."""
    found = {}
    for path in sorted(HELPERS.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if is_copyable(node):
                for name in defined_names(node):
                    found[name] = path
    return found


def notebook_copies() -> list[tuple[str, str, Path]]:
    """(notebook number, name, helpers file) for every def, class or constant a notebook defines in its own cells
    (the setup cell aside) under a name that a helpers/ module also defines: the copies, found, never listed."""
    in_helpers = helpers_names()
    pairs = []
    for path in notebook_paths():
        nb = nbformat.read(path, as_version=4)
        names = {
            name
            for cell in nb.cells
            if cell.cell_type == "code" and not is_setup_cell(cell)
            for node in ast.parse(strip_magics(cell.source)).body
            if is_copyable(node)
            for name in defined_names(node)
        }
        pairs += [(path.name[:2], name, in_helpers[name]) for name in sorted(names & in_helpers.keys())]
    return pairs


def notebook(number: str):
    (path,) = [p for p in notebook_paths() if p.name.startswith(number + "_")]
    return path, nbformat.read(path, as_version=4)


def code_cells(nb) -> list[str]:
    """The source of every code cell, parsable as Python."""
    return [strip_magics(c.source) for c in nb.cells if c.cell_type == "code"]


def defined_names(node) -> list[str]:
    """The names a top-level statement defines: a def's, a class's, or an assignment's targets."""
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return []


def definitions(source: str, name: str) -> list[ast.stmt]:
    return [node for node in ast.parse(source).body if name in defined_names(node)]


def is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def without_docstrings(node):
    """A copy of the tree with every module, class and function docstring removed."""
    node = ast.parse(ast.unparse(node)).body[0]  # a fresh copy
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.ClassDef)) and sub.body:
            first = sub.body[0]
            if is_docstring(first):
                sub.body = sub.body[1:] or [ast.Pass()]
    return node


def code_lines(source: str, node) -> list[str]:
    """The definition's lines as written, comments included, without its docstrings (dedented)."""
    lines = source.splitlines()[node.lineno - 1 : node.end_lineno]
    skip = set()
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.ClassDef)) and sub.body:
            first = sub.body[0]
            if is_docstring(first):
                skip.update(range(first.lineno, first.end_lineno + 1))
    kept = [line for number, line in enumerate(lines, start=node.lineno) if number not in skip]
    return [line.rstrip() for line in textwrap.dedent("\n".join(kept)).splitlines() if line.strip()]


def notebook_definition(number: str, name: str):
    """(cell source, node) of the one top-level definition of `name` in the notebook's code cells."""
    _, nb = notebook(number)
    found = [(source, node) for source in code_cells(nb) for node in definitions(source, name)]
    assert len(found) == 1, f"notebook {number} should define {name} in exactly one cell, found {len(found)}"
    return found[0]


def helpers_definition(path: Path, name: str):
    source = path.read_text(encoding="utf-8")
    (node,) = definitions(source, name)
    return source, node


def same_code(number: str, name: str, path: Path) -> list[str]:
    """What differs between the notebook's definition and the helpers copy: [] when they are the same code."""
    nb_source, nb_node = notebook_definition(number, name)
    py_source, py_node = helpers_definition(path, name)
    problems = []
    if ast.dump(without_docstrings(nb_node)) != ast.dump(without_docstrings(py_node)):
        problems.append("their parsed code differs")
    if code_lines(nb_source, nb_node) != code_lines(py_source, py_node):
        problems.append("their lines (comments included) differ")
    return problems


PAIRS = notebook_copies()


def test_the_copies_are_found_from_the_notebooks_and_helpers():
    """The steps issue 14 moved into the notebooks are among the pairs found, each with the file that keeps it."""
    found = {(number, name): path.name for number, name, path in PAIRS}
    expected = {
        ("01", "average_loop"): "averaging.py",
        ("05", "attend_qk"): "attention.py",
        ("06", "VALUE_WEIGHT"): "examples.py",
        ("07", "Head"): "attention.py",
        ("09", "OneHeadModel"): "models.py",
        ("10", "MultiHeadModel"): "blocks.py",
        ("11", "TransformerModel"): "blocks.py",
    }
    assert expected.items() <= found.items(), sorted(found.items())
    assert ("09", "journey") not in found, "a lower-case variable is not step code, even if a helper shares its name"


@pytest.mark.parametrize("number, name, path", PAIRS, ids=[f"{n}-{name}" for n, name, _ in PAIRS])
def test_the_helpers_copy_is_the_notebooks_own_definition(number, name, path):
    problems = same_code(number, name, path)
    assert problems == [], (
        f"{name} in notebook {number} and in helpers/{path.name}: {' and '.join(problems)}. "
        "Change both together (the notebook's cell is what the reader sees, helpers/ what later notebooks import); "
        "if they are two different things that share a name, rename one of them."
    )


@pytest.mark.parametrize("number, name, path", PAIRS, ids=[f"{n}-{name}" for n, name, _ in PAIRS])
def test_the_notebook_uses_its_own_definition_not_the_helpers_copy(number, name, path):
    _, nb = notebook(number)
    for source in code_cells(nb):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helpers"):
                imported = {alias.asname or alias.name for alias in node.names}
                assert name not in imported, f"notebook {number} imports {name} from {node.module}: define it instead"


def test_a_change_on_one_side_alone_is_caught():
    """The comparison notices a one-character change in the notebook's copy (here: the scale's exponent)."""
    nb_source, nb_node = notebook_definition("07", "attend_scaled")
    py_source, py_node = helpers_definition(HELPERS / "attention.py", "attend_scaled")
    assert "** -0.5" in nb_source
    changed_source = nb_source.replace("** -0.5", "** -1")  # the learner's experiment in notebook 07
    changed = definitions(changed_source, "attend_scaled")[0]
    assert ast.dump(without_docstrings(changed)) != ast.dump(without_docstrings(py_node))
    commented = nb_source.replace("key.out_features ** -0.5", "key.out_features ** -0.5  # scaled")
    assert code_lines(commented, definitions(commented, "attend_scaled")[0]) != code_lines(py_source, py_node)


def test_docstrings_may_differ():
    first = ast.parse('def f(x):\n    """One."""\n    return x\n').body[0]
    second = ast.parse('def f(x):\n    """Another, longer."""\n    return x\n').body[0]
    assert ast.dump(without_docstrings(first)) == ast.dump(without_docstrings(second))


# One spelling for the scale and one for the mask --------------------------------------------------------------

SCALE = re.compile(r" \* \S+ \*\* -0\.5\b")  # scores * head_size ** -0.5
MASK = 'masked_fill(tril == 0, float("-inf"))'
TRIL = re.compile(r"tril = torch\.tril\(torch\.ones\(T, T(, device=[\w.]+)?\)\)")


def spelled_sources() -> dict[str, str]:
    """Where the scale and the mask are written out: the stages, Head, causal_softmax and the solutions."""
    sources = {
        f"helpers.attention.{fn.__name__}": inspect.getsource(fn)
        for fn in (attention.attend_qk, attention.attend_qkv, attention.attend_scaled, attention.causal_softmax)
    }
    sources["helpers.attention.Head"] = inspect.getsource(attention.Head)
    sources["helpers.averaging.average_softmax"] = inspect.getsource(averaging.average_softmax)
    for path in sorted((ROOT / "solutions").glob("nb*.py")):
        sources[f"solutions/{path.name}"] = path.read_text(encoding="utf-8")
    return sources


def test_every_scale_is_spelled_as_times_head_size_to_the_minus_half():
    scaled = {}
    for where, source in spelled_sources().items():
        for line in source.splitlines():
            if "transpose(-2, -1)" not in line:  # only the lines that compute scores
                continue
            if "sqrt" in line or "0.5" in line and not SCALE.search(line):
                pytest.fail(f"{where} spells the scale another way: {line.strip()}")
            if SCALE.search(line):
                scaled[where] = line.strip()
    assert set(scaled) == {"helpers.attention.attend_scaled", "solutions/nb07.py", "solutions/nb10.py"}, scaled


def test_every_mask_is_spelled_with_the_lower_triangle_and_minus_infinity():
    masks = 0
    for where, source in spelled_sources().items():
        for line in source.splitlines():
            if "masked_fill" in line:
                assert MASK in line, f"{where} masks another way: {line.strip()}"
                masks += 1
            if re.match(r"\s*tril = ", line):
                assert TRIL.search(line), f"{where} builds the triangle another way: {line.strip()}"
    assert masks >= 6  # three stages, scheme three, causal_softmax and the solutions that mask


def test_head_runs_the_last_stage_and_spells_nothing_itself():
    assert "return attend_scaled(x, self.query, self.key, self.value)" in inspect.getsource(attention.Head.forward)
