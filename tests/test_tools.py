"""The notebook stamping tool and the CI entry point."""

import re
import sys

import nbformat
import pytest

from tools import notebooks as tool
from tools.notebooks import ROOT, badge_source, setup_source, stamp


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


def test_stamp_readme_points_badges_at_the_current_address(tmp_path):
    readme = tmp_path / "README.md"
    old = "https://colab.research.google.com/github/someone/old-name/blob/dev/notebooks/00_x.ipynb"
    readme.write_text(f"[![Open In Colab](badge.svg)]({old})\n")
    assert tool.stamp_readme(readme) is True
    assert readme.read_text() == f"[![Open In Colab](badge.svg)]({tool.colab_url('00_x.ipynb')})\n"
    assert tool.stamp_readme(readme) is False
