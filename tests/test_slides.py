"""tools.slides: slide types come from rules, and stamping is idempotent (run on scratch copies only)."""

import shutil

import nbformat
import pytest

from tools.notebooks import NOTEBOOK_DIR, notebook_paths
from tools.slides import RISE_SETTINGS, slide_type_for, stamp_slides


def md(source):
    return nbformat.v4.new_markdown_cell(source)


def code(source):
    return nbformat.v4.new_code_cell(source)


BADGE = md("[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://example.org)")
TITLE = md("# 07 · A title\n\nWhat this notebook earns.")
SETUP = code("# Course setup (identical in every notebook)\nimport sys")


def test_title_slide_then_skipped_setup_then_a_new_slide():
    cells = [BADGE, TITLE, SETUP, md("The usual imports."), code("import torch")]
    assert slide_type_for(cells) == ["slide", "-", "skip", "slide", "-"]


def test_each_level_two_heading_starts_a_slide_and_level_three_a_subslide():
    cells = [BADGE, TITLE, SETUP, md("## One idea"), code("x = 1"), md("### A step of it"), code("y = 2"),
             md("## The next idea"), md("More words on the same slide.")]
    assert slide_type_for(cells) == ["slide", "-", "skip", "slide", "-", "subslide", "-", "slide", "-"]


def test_prose_after_code_opens_a_subslide_but_prose_after_prose_continues():
    cells = [BADGE, TITLE, SETUP, md("## Idea"), md("Words."), code("a = 1"), md("Then this."), code("b = 2")]
    assert slide_type_for(cells)[3:] == ["slide", "-", "-", "subslide", "-"]


def test_your_turn_cells_are_fragments_until_the_next_heading():
    cells = [BADGE, TITLE, SETUP, md("## Your turn: write it"), code("def stub(): ..."), code("check(stub)"),
             md("**2.** Another one."), code("def stub2(): ..."), md("## Summary"), code("print(1)")]
    assert slide_type_for(cells)[3:] == ["slide", "fragment", "fragment", "fragment", "fragment", "slide", "-"]


def test_without_a_badge_the_title_starts_the_first_slide():
    assert slide_type_for([TITLE, SETUP, code("x = 1")]) == ["slide", "skip", "slide"]


def test_a_heading_right_after_the_setup_keeps_its_own_type():
    assert slide_type_for([BADGE, TITLE, SETUP, md("### Straight in")])[3] == "subslide"


@pytest.fixture
def scratch_notebooks(tmp_path):
    """Copies of the course notebooks: the real ones are stamped by the lead, not by tests."""
    for path in notebook_paths():
        shutil.copy(path, tmp_path / path.name)
    return sorted(tmp_path.glob("*.ipynb"))


def test_stamp_writes_the_rules_once_and_then_changes_nothing(scratch_notebooks):
    for path in scratch_notebooks:
        stamp_slides(path)
        before = path.read_bytes()
        assert stamp_slides(path) is False, f"{path.name}: a second stamp changed it again"
        assert path.read_bytes() == before
        nb = nbformat.read(path, as_version=4)
        stored = [c.metadata.get("slideshow", {}).get("slide_type", "-") for c in nb.cells]
        assert stored == slide_type_for(nb.cells)
        assert nb.metadata["rise"] == RISE_SETTINGS
        assert stored[0] == "slide" and stored.count("skip") == 1, path.name
        has_exercise = any(c.cell_type == "markdown" and "## Your turn" in c.source for c in nb.cells)
        assert ("fragment" in stored) == has_exercise, path.name


def test_stamp_changes_only_metadata(scratch_notebooks):
    path = scratch_notebooks[0]
    original = nbformat.read(NOTEBOOK_DIR / path.name, as_version=4)
    stamp_slides(path)
    stamped = nbformat.read(path, as_version=4)
    assert [(c.cell_type, c.source, c.get("outputs")) for c in stamped.cells] == [
        (c.cell_type, c.source, c.get("outputs")) for c in original.cells
    ]
