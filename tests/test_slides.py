"""tools.slides: slide types come from rules, and `make stamp` writes them idempotently (run on scratch copies only)."""

import base64
import shutil

import nbformat
import pytest

from tools.notebooks import NOTEBOOK_DIR, notebook_paths, stamp
from tools.slides import (
    DECK_STAGE_PX,
    DECK_STYLE_KEY,
    DECK_STYLES,
    cell_height,
    deck_cells,
    estimated_height,
    is_setup_cell,
    png_height,
    prose_height,
    slide_type_for,
)


def md(source):
    return nbformat.v4.new_markdown_cell(source)


def code(source):
    return nbformat.v4.new_code_cell(source)


BADGE = md("[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://example.org)")
TITLE = md("# 07 · A title\n\nWhat this notebook earns.")
SETUP = code("# Course setup (identical in every notebook)\nimport sys")


def picture_cell(source="show_wei(wei)", height=300, printed=""):
    """A code cell whose stored outputs hold text it printed (if any) and then a PNG `height` pixels tall."""
    cell = code(source)
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (600).to_bytes(4, "big") + height.to_bytes(4, "big")
    outputs = [nbformat.v4.new_output("stream", text=printed)] if printed else []
    outputs.append(nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(png + bytes(20)).decode(),
                                                               "text/plain": "<Figure>"}))
    cell.outputs = outputs
    return cell


def test_title_slide_then_skipped_setup_then_a_new_slide():
    cells = [BADGE, TITLE, SETUP, md("The usual imports."), code("import torch")]
    assert slide_type_for(cells) == ["skip", "slide", "skip", "slide", "-"]


def test_the_colab_badge_is_skipped_so_no_slide_shows_an_image_from_the_network():
    assert slide_type_for([BADGE, TITLE, SETUP])[:2] == ["skip", "slide"]


def test_a_cell_that_shows_a_picture_starts_a_subslide_of_its_own_and_so_does_the_next():
    cells = [BADGE, TITLE, SETUP, md("## Idea"), md("Long words introducing the picture."), code("x = 1"),
             picture_cell(), code("assert x == 1"), code("y = 2"), md("What it shows.")]
    assert slide_type_for(cells)[3:] == ["slide", "-", "-", "subslide", "subslide", "-", "-"]


def test_a_picture_cell_too_tall_for_a_deck_slide_is_split_into_code_then_picture():
    long_code = "\n".join(f"x{i} = {i}" for i in range(20))
    tall, short = picture_cell(long_code, height=500, printed="one\ntwo\n"), picture_cell("show(x)", height=300)
    assert png_height(tall.outputs[1]) == 500
    assert estimated_height(tall.source, tall.outputs) > DECK_STAGE_PX >= estimated_height(short.source, short.outputs)
    nb = nbformat.v4.new_notebook(cells=[BADGE, TITLE, SETUP, md("## Idea"), tall, short])
    nb.cells[4].metadata["slideshow"] = nb.cells[5].metadata["slideshow"] = {"slide_type": "subslide"}
    cells = deck_cells(nb).cells
    assert len(cells) == 7
    code_half, picture_half = cells[4], cells[5]
    assert code_half.source == long_code and [o.output_type for o in code_half.outputs] == ["stream"]
    assert picture_half.metadata["slideshow"] == {"slide_type": "subslide"}
    assert picture_half.metadata["transient"] == {"remove_source": True}
    assert "image/png" in picture_half.outputs[0].data and len(picture_half.outputs) == 1
    assert cells[6].outputs == short.outputs and "transient" not in cells[6].metadata


def test_each_level_two_heading_starts_a_slide_and_level_three_a_subslide():
    cells = [BADGE, TITLE, SETUP, md("## One idea"), code("x = 1"), md("### A step of it"), code("y = 2"),
             md("## The next idea"), md("More words on the same slide.")]
    assert slide_type_for(cells) == ["skip", "slide", "skip", "slide", "-", "subslide", "-", "slide", "-"]


def test_prose_after_code_opens_a_subslide_but_prose_after_prose_continues():
    cells = [BADGE, TITLE, SETUP, md("## Idea"), md("Words."), code("a = 1"), md("Then this."), code("b = 2")]
    assert slide_type_for(cells)[3:] == ["slide", "-", "-", "subslide", "-"]


def printing(source, lines):
    """A code cell whose stored output is `lines` printed lines."""
    cell = code(source)
    cell.outputs = [nbformat.v4.new_output("stream", text="".join(f"line {i}\n" for i in range(lines)))]
    return cell


def test_words_about_a_printout_share_its_slide_when_both_fit():
    # prose after code that leads in to more code opens a subslide; words that only speak of what the code printed
    # stay with it, unless together they would not fit the screen
    words, wall = md("What the printout shows."), md("\n\n".join(["A long paragraph of words. " * 12] * 6))
    assert prose_height(wall.source) > DECK_STAGE_PX // 2
    short = [BADGE, TITLE, SETUP, md("## Idea"), printing("print(x)", 3), words, md("## Next")]
    assert slide_type_for(short)[3:] == ["slide", "-", "-", "slide"]
    lead_in = [BADGE, TITLE, SETUP, md("## Idea"), printing("print(x)", 3), words, code("y = 2")]
    assert slide_type_for(lead_in)[3:] == ["slide", "-", "subslide", "-"]
    too_tall = [BADGE, TITLE, SETUP, md("## Idea"), printing("print(x)", 12), wall, md("## Next")]
    assert cell_height(too_tall[4]) + cell_height(wall) > DECK_STAGE_PX
    assert slide_type_for(too_tall)[3:] == ["slide", "-", "subslide", "slide"]


def test_a_cell_that_would_push_its_slide_past_the_screen_starts_a_subslide():
    long_code = code("\n".join(f"x{i} = {i}" for i in range(20)))
    cells = [BADGE, TITLE, SETUP, md("## Idea"), code("a = 1"), long_code, long_code, code("b = 2")]
    assert cell_height(long_code) * 2 > DECK_STAGE_PX > cell_height(long_code) + cell_height(cells[4]) + 100
    assert slide_type_for(cells)[3:] == ["slide", "-", "-", "subslide", "-"]


def test_words_that_lead_in_to_code_open_its_screen_with_it():
    # a code cell that would overflow the screen starts a subslide, and the words just above it go along
    long_code = code("\n".join(f"x{i} = {i}" for i in range(20)))
    cells = [BADGE, TITLE, SETUP, md("## Idea"), long_code, md("Now the same again:"), long_code]
    assert slide_type_for(cells)[3:] == ["slide", "-", "subslide", "-"]
    # a picture opens a subslide with the words just above it when both fit; a tall picture leaves them behind
    with_words = [BADGE, TITLE, SETUP, md("## Idea"), code("x = 1"), md("Drawn here:"), code("y = 2"),
                  md("Look at the diagonal:"), picture_cell(height=300)]
    assert slide_type_for(with_words)[3:] == ["slide", "-", "subslide", "-", "subslide", "-"]
    tall = [BADGE, TITLE, SETUP, md("## Idea"), md("Look at the diagonal:"), picture_cell(height=690)]
    assert slide_type_for(tall)[3:] == ["slide", "-", "subslide"]


def test_a_picture_in_an_exercise_leaves_the_fragment_before_it_as_it_is():
    cells = [BADGE, TITLE, SETUP, md("## Your turn: draw it"), md("Draw the weights:"), picture_cell(height=300)]
    assert slide_type_for(cells)[3:] == ["slide", "fragment", "subslide"]


def test_a_deck_shows_a_tall_printout_and_a_tall_text_on_screens_of_their_own():
    tall = printing("\n".join(f"x{i} = {i}" for i in range(15)), 20)
    paragraphs = [f"Paragraph {k}: " + "words " * 60 for k in range(8)]
    wall = md("\n\n".join(paragraphs))
    assert estimated_height(tall.source, tall.outputs) > DECK_STAGE_PX and prose_height(wall.source) > DECK_STAGE_PX
    printed = tall.outputs
    nb = nbformat.v4.new_notebook(cells=[TITLE, md("## Idea"), tall, wall])
    cells = deck_cells(nb).cells
    code_half, printed_half = cells[2], cells[3]
    assert code_half.source == tall.source and code_half.outputs == []
    assert printed_half.metadata["transient"] == {"remove_source": True} and printed_half.outputs == printed
    screens = cells[4:]
    assert len(screens) >= 2 and "\n\n".join(s.source for s in screens) == wall.source  # cut between paragraphs
    assert all(prose_height(s.source) <= DECK_STAGE_PX for s in screens)
    assert [s.metadata.get("slideshow") for s in screens[1:]] == [{"slide_type": "subslide"}] * (len(screens) - 1)


def test_a_deck_moves_a_printout_that_the_words_above_would_push_below_the_screen():
    lead_in = md("\n\n".join(["Words about what comes. " * 12] * 4))
    cell = printing("\n".join(f"x{i} = {i}" for i in range(8)), 12)
    assert estimated_height(cell.source, cell.outputs) <= DECK_STAGE_PX  # alone, it would fit
    assert prose_height(lead_in.source) + estimated_height(cell.source, cell.outputs) > DECK_STAGE_PX
    nb = nbformat.v4.new_notebook(cells=[TITLE, lead_in, cell])
    nb.cells[1].metadata["slideshow"] = {"slide_type": "subslide"}
    cells = deck_cells(nb).cells
    assert len(cells) == 4 and cells[2].outputs == [] and cells[3].metadata["transient"] == {"remove_source": True}


def test_a_cut_text_keeps_a_sentence_ending_in_a_colon_with_what_it_introduces():
    paragraphs = [f"Paragraph {k}: " + "words " * 60 for k in range(5)] + ["By the end you will have seen:"] + [
        "\n".join(f"- item {k}: " + "words " * 15 for k in range(6))]
    screens = deck_cells(nbformat.v4.new_notebook(cells=[md("\n\n".join(paragraphs))])).cells
    assert len(screens) >= 2
    assert not any(s.source.rstrip().endswith(":") for s in screens)
    assert any(s.source.startswith("By the end you will have seen:") for s in screens)


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
        stamp(path)
        before = path.read_bytes()
        assert stamp(path) is False, f"{path.name}: a second stamp changed it again"
        assert path.read_bytes() == before
        nb = nbformat.read(path, as_version=4)
        stored = [c.metadata.get("slideshow", {}).get("slide_type", "-") for c in nb.cells]
        assert stored == slide_type_for(nb.cells)
        assert nb.metadata[DECK_STYLE_KEY] == DECK_STYLES and "rise" not in nb.metadata
        assert stored[:2] == ["skip", "slide"] and stored.count("skip") == 2, (  # the badge and the setup cell
            f"{path.name}: after its badge, a notebook opens with a markdown cell holding its title "
            "(# NN · Title), before the setup cell")
        has_exercise = any(c.cell_type == "markdown" and "## Your turn" in c.source for c in nb.cells)
        assert ("fragment" in stored) == has_exercise, (
            f"{path.name}: a '## Your turn' heading must be followed by a cell that shows as a fragment"
            if has_exercise else f"{path.name}: fragments without a '## Your turn' heading to introduce them")


def test_stamp_changes_no_cell_but_the_badge_and_the_setup_cell(scratch_notebooks):
    path = scratch_notebooks[0]
    original = nbformat.read(NOTEBOOK_DIR / path.name, as_version=4)
    stamp(path)
    stamped = nbformat.read(path, as_version=4)
    kept = [(c.cell_type, c.source, c.get("outputs")) for c in stamped.cells[1:] if not is_setup_cell(c)]
    assert kept == [(c.cell_type, c.source, c.get("outputs")) for c in original.cells[1:] if not is_setup_cell(c)]
