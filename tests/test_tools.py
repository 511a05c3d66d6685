"""The notebook stamping tool, the README's tables, the tools' imports and the CI entry point."""

import ast
import re
import shutil
import subprocess
import sys
from datetime import date

import nbformat
import pytest
import torch

from helpers.course import colab_url
from tools import notebooks as tool
from tools import readme
from tools.notebooks import ROOT, badge_source, setup_source, stamp
from tools.slides import slide_type_for


def make_notebook(path, cells):
    nbformat.write(nbformat.v4.new_notebook(cells=cells), path)


def test_stamp_writes_badge_setup_and_colab_metadata_then_is_idempotent(tmp_path):
    path = tmp_path / "07_example.ipynb"
    make_notebook(path, [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("# Course setup")])
    assert stamp(path) is True
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[0].source == badge_source("07_example.ipynb")
    assert nb.cells[2].source == setup_source()
    assert nb.cells[2].metadata["cellView"] == "form" and nb.cells[2].metadata["jupyter"]["source_hidden"] is True
    assert nb.metadata["accelerator"] == "GPU" and nb.metadata["colab"]["gpuType"] == "T4"
    written = path.read_bytes()
    assert stamp(path) is False
    assert path.read_bytes() == written


def test_stamp_restores_metadata_someone_removed(tmp_path):
    path = tmp_path / "07_example.ipynb"
    make_notebook(path, [nbformat.v4.new_code_cell(setup_source())])
    stamp(path)
    nb = nbformat.read(path, as_version=4)
    del nb.metadata["accelerator"], nb.cells[1].metadata["jupyter"]
    nbformat.write(nb, path)
    assert stamp(path) is True
    restored = nbformat.read(path, as_version=4)
    assert restored.metadata["accelerator"] == "GPU" and restored.cells[1].metadata["jupyter"]["source_hidden"] is True


def test_setup_cell_is_recognised_by_its_first_line():
    assert tool.is_setup_cell(nbformat.v4.new_code_cell(setup_source()))
    first_line = setup_source().splitlines()[0]
    assert first_line.startswith("# @title Course setup") and first_line.endswith('{ display-mode: "form" }')
    assert tool.is_setup_cell(nbformat.v4.new_code_cell("# Course setup (older form)\nimport os"))
    assert not tool.is_setup_cell(nbformat.v4.new_code_cell("import os  # Course setup"))
    assert not tool.is_setup_cell(nbformat.v4.new_markdown_cell("# Course setup"))


def test_stamp_refuses_a_notebook_without_setup_cell(tmp_path):
    path = tmp_path / "08_example.ipynb"
    make_notebook(path, [nbformat.v4.new_code_cell("print('hi')")])
    before = path.read_bytes()
    with pytest.raises(SystemExit, match="first code cell must be the setup cell"):
        stamp(path)
    assert path.read_bytes() == before  # nothing half-written


def test_setup_cell_finds_helpers_from_a_subfolder_and_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    monkeypatch.setattr(sys, "path", list(sys.path))
    namespace = {}
    exec(setup_source(), namespace)
    assert namespace["COURSE_ROOT"] == tmp_path
    assert str(tmp_path) in sys.path
    out = capsys.readouterr().out
    assert out.startswith("Course found at ..; device: ") and out.count("\n") == 1, out


def test_setup_cell_explains_when_helpers_cannot_be_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuntimeError, match="helpers/ not found"):
        exec(setup_source(), {})


def test_unknown_notebook_name_is_refused():
    with pytest.raises(SystemExit, match="No such notebook"):
        tool.notebook_paths(["99_nothing.ipynb"])
    with pytest.raises(SystemExit, match=r"No such notebook\(s\) in notebooks/: 99$"):
        tool.notebook_paths(["03", "99"])


def test_a_notebook_without_its_metadata_does_not_stop_the_collection(tmp_path):
    import importlib.util  # the root conftest.py (tests/ has one too): it marks the long notebooks slow

    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    nb = nbformat.v4.new_notebook()
    nbformat.write(nb, tmp_path / "12_new.ipynb")
    item = type("Item", (), {"path": tmp_path / "12_new.ipynb", "add_marker": lambda self, mark: marks.append(mark)})()
    marks = []
    conftest.pytest_collection_modifyitems(None, [item])  # tests/test_notebooks.py says what is missing
    assert marks == []
    with pytest.raises(readme.MissingMetadata, match="has no name or summary in its metadata"):
        readme.course_metadata(nb, "12_new.ipynb")


def test_notebooks_are_named_by_file_or_by_number_and_kept_in_order():
    everything = tool.notebook_paths()
    picked = tool.notebook_paths(["08", everything[3].name])
    assert picked == [everything[3], next(p for p in everything if p.name.startswith("08_"))]


def test_ci_runs_every_tier_the_readme_names_and_make_check_runs_the_same():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "`make test`" in readme and "\nmake test\n" in ci
    after = ci.split("\nmake test\n", 1)[1]  # what CI runs after the test command: documented make targets only
    commands = [line for line in after.splitlines() if line.strip() and not line.startswith("#")]
    undocumented = [line for line in commands if not (line.startswith("make ") and f"`{line}`" in readme)]
    assert commands and not undocumented, f"CI runs commands the README does not name: {undocumented}"
    check = re.search(r"^check: (.*)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert check and check[1].split() == ["test"] + [line.removeprefix("make ") for line in commands], (
        "`make check` must run what CI runs, in the same order"
    )
    assert "`make check`" in readme and "../shared/data/tinyshakespeare.txt" in ci


def test_execute_replaces_a_notebook_only_after_a_clean_run(tmp_path):
    path = tmp_path / "09_fails.ipynb"
    make_notebook(path, [nbformat.v4.new_code_cell("raise ValueError('boom')")])
    before = path.read_bytes()
    with pytest.raises(Exception, match="boom"):
        tool.execute(path, timeout=60)
    assert path.read_bytes() == before


def test_printed_text_split_by_the_kernel_is_joined_but_never_moved_past_a_picture():
    def printed(text, name="stdout"):
        return nbformat.v4.new_output("stream", name=name, text=text)

    cell = nbformat.v4.new_code_cell(outputs=[
        printed("a\n"), printed("b\n"), printed("warning\n", name="stderr"), printed("c\n"),
        nbformat.v4.new_output("display_data", data={"image/png": ""}), printed("d\n"), printed("e\n"),
    ])
    tool.join_split_streams(nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_markdown_cell("no outputs")]))
    assert [(o.output_type, o.get("name"), o.get("text")) for o in cell.outputs] == [
        ("stream", "stdout", "a\nb\n"), ("stream", "stderr", "warning\n"), ("stream", "stdout", "c\n"),
        ("display_data", None, None), ("stream", "stdout", "d\ne\n"),
    ]


@pytest.mark.slow
def test_execute_stamps_the_slide_type_of_a_cell_that_now_shows_a_picture(tmp_path):
    path = tmp_path / "09_picture.ipynb"
    svg = "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>"
    make_notebook(path, [nbformat.v4.new_markdown_cell("# 09 · A picture"), nbformat.v4.new_markdown_cell("Below:"),
                         nbformat.v4.new_code_cell(f'from IPython.display import SVG\nSVG("{svg}")')])
    assert slide_type_for(nbformat.read(path, as_version=4).cells) == ["slide", "-", "-"], "no picture yet"
    tool.execute(path, timeout=60)
    words, cell = nbformat.read(path, as_version=4).cells[1:]
    assert "image/svg+xml" in cell.outputs[0]["data"], "the cell shows a picture"
    # a picture opens a subslide, as make stamp writes it, with the words that lead in to it when both fit
    assert words.metadata["slideshow"]["slide_type"] == "subslide" and "slideshow" not in cell.metadata


def readme_with_tables(folder):
    text = ("intro\n<!-- notebook table: x -->\nold\n<!-- end of notebook table -->\n"
            "<!-- timing table: y -->\n| 00 first | 3.0 | 15 | 1 Dec 2026, 2 CPU cores, no GPU |\n"
            "<!-- end of timing table -->\nend\n")
    (folder / "README.md").write_text(text, encoding="utf-8")
    return text


def course_notebook(**course):
    nb = nbformat.v4.new_notebook()
    nb.metadata["course"] = course
    return nb


def test_the_readme_tables_are_made_from_each_notebooks_metadata():
    first = course_notebook(name="first", summary="one thing", bench_target_s=20)
    second = course_notebook(name="second", summary="another")
    table = readme.notebook_table([("00_first.ipynb", first), ("01_second.ipynb", second)]).splitlines()
    assert table[2] == f"| 00 | [first](notebooks/00_first.ipynb) | one thing | {badge_source('00_first.ipynb')} |"
    assert colab_url("01_second.ipynb") in table[3]
    timing = readme.timing_table([("00_first.ipynb", first), ("01_second.ipynb", second)],
                                 {"00_first.ipynb": (8.66, "here"), "01_second.ipynb": (5.0, "there")})
    assert timing.splitlines()[2:] == ["| 00 first | 8.7 | 20 | here |",
                                       f"| 01 second | 5.0 | {readme.DEFAULT_TARGET_S} | there |"]


def test_a_table_is_replaced_between_its_markers_only(tmp_path):
    text = readme_with_tables(tmp_path)
    new = readme.replace_block(text, readme.NOTEBOOK_TABLE, "| new |")
    assert new == text.replace("\nold\n", "\n| new |\n")
    assert readme.recorded_rows(new) == {"00": (3.0, "1 Dec 2026, 2 CPU cores, no GPU")}
    with pytest.raises(readme.MissingMetadata, match="README.md has no <!-- timing table: ... -->"):
        readme.replace_block("no markers\n", readme.TIMING_TABLE, "| x |")


def test_bench_writes_when_and_on_what_it_measured_and_keeps_the_rows_it_did_not_measure(monkeypatch, tmp_path):
    for name in ("00_first", "01_second"):
        nbformat.write(course_notebook(name=name[3:], summary="x"), tmp_path / f"{name}.ipynb")
    readme_with_tables(tmp_path)
    monkeypatch.setattr(tool, "NOTEBOOK_DIR", tmp_path)
    monkeypatch.setattr(readme, "README", tmp_path / "README.md")
    monkeypatch.setattr(readme, "this_machine", lambda: "30 Nov 2026, 16 CPU cores, a GPU")
    tool.write_timing_table({"01_second.ipynb": 4.04})
    assert readme.recorded_rows((tmp_path / "README.md").read_text(encoding="utf-8")) == {
        "00": (3.0, "1 Dec 2026, 2 CPU cores, no GPU"), "01": (4.0, "30 Nov 2026, 16 CPU cores, a GPU")}


@pytest.mark.parametrize("threads, gpu, says", [
    (None, None, "1 thread a kernel, no GPU"),  # the tests' own setting, on a machine without a GPU
    ("2", "NVIDIA H200", "2 threads a kernel, NVIDIA H200"),
])
def test_this_machine_names_the_day_the_cores_the_threads_and_the_gpu(monkeypatch, threads, gpu, says):
    if threads is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", threads)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu is not None)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index: gpu)
    monkeypatch.setattr(readme, "cpu_name", lambda: "AMD EPYC")
    day, cores, rest = readme.this_machine(date(2026, 12, 1)).split(", ", 2)
    assert day == "1 Dec 2026" and rest == says
    assert re.fullmatch(r"[1-9]\d* CPU cores \(AMD EPYC\)", cores)


@pytest.mark.parametrize("model, name", [
    ("Intel(R) Xeon(R) Platinum 8488C", "Intel Xeon Platinum 8488C"),
    ("Intel(R) Xeon(R) CPU @ 2.20GHz", "Intel Xeon"),
    ("AMD EPYC 7B13 64-Core Processor", "AMD EPYC 7B13"),
    (None, ""),  # a system that does not tell: the table names the cores only
])
def test_the_timing_table_names_the_cpu_as_linux_does_trimmed(monkeypatch, model, name):
    cpuinfo = "processor\t: 0\n" + (f"model name\t: {model}\n" if model else "")
    assert readme.cpu_name(cpuinfo) == name
    monkeypatch.setattr(readme, "cpu_name", lambda: name)
    assert (f" CPU cores ({name}), " if name else " CPU cores, ") in readme.this_machine()


@pytest.mark.parametrize("course, missing", [
    ({}, "has no name or summary in its metadata"),
    ({"name": "x", "summary": " "}, "has no summary in its metadata"),
    ({"name": "x", "summary": "y", "bench_target_s": "20"}, "must be a positive number of seconds"),
    ({"name": "x", "summary": "y", "bench_target_s": 0}, "must be a positive number of seconds"),
])
def test_a_notebook_without_its_metadata_is_named_with_what_to_add(course, missing):
    with pytest.raises(readme.MissingMetadata, match=rf"^notebooks/10_new.ipynb.*{missing}"):
        readme.course_metadata(course_notebook(**course), "10_new.ipynb")


def test_stamp_says_which_notebook_lacks_metadata_in_one_sentence(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(tool, "NOTEBOOK_DIR", tmp_path)
    monkeypatch.setattr(readme, "README", tmp_path / "README.md")
    readme_with_tables(tmp_path)
    make_notebook(tmp_path / "10_new.ipynb", [nbformat.v4.new_code_cell("# Course setup")])
    before = (tmp_path / "10_new.ipynb").read_bytes()
    assert tool.main(["stamp"]) == 1
    assert (tmp_path / "10_new.ipynb").read_bytes() == before  # nothing half-done
    assert capsys.readouterr().err.startswith("notebooks/10_new.ipynb has no name or summary in its metadata: add")


def tools_imports() -> dict[str, set[str]]:
    """{"notebooks": {"slides", ...}}: the tools modules each tools module imports, at the top or inside a function."""
    graph = {}
    for path in sorted((ROOT / "tools").glob("*.py")):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module == "tools":  # from tools import readme
                names |= {f"tools.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        graph[path.stem] = {name.split(".")[1] for name in names if name.startswith("tools.")}
    return graph


def test_no_tools_module_imports_itself_back_through_another():
    graph = tools_imports()
    assert graph["notebooks"] >= {"slides", "readme"}  # the walk sees imports (so it could see a circle)

    def reaches(start, goal, seen=()):
        return any(m == goal or (m not in seen and reaches(m, goal, (*seen, m))) for m in graph.get(start, ()))

    circles = sorted(m for m in graph if reaches(m, m))
    assert not circles, f"tools modules that import themselves back through others: {circles}"


@pytest.mark.parametrize("target", ["test-slow", "slides", "check-slides"])
def test_every_target_that_builds_decks_installs_the_browser_libraries_first(tmp_path, target):
    """`make -n` in a copy without node_modules/: the target's plan includes `npm ci` before its tests.
    (CI once failed because NODE_ASSETS was defined below the rule that needed it, so make read it as empty.)"""
    (tmp_path / "tests").mkdir()
    for name in ("Makefile", "package.json", "package-lock.json", "requirements.txt", "tests/install_aside.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    plan = subprocess.run(["make", "-n", target], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "npm ci" in plan, f"`make {target}` would run without installing the browser libraries (npm ci):\n{plan}"
