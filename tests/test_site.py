"""tools.site without a browser or npm: titles, the index page, and offline-only asset addresses."""

import re

import nbformat

from tools.notebooks import notebook_paths
from tools.site import (
    index_html,
    is_executed,
    notebook_title,
    offline_config,
    slides_config,
)
from tools.widgets import WIDGET_VIEW, drop_widget_views


def test_notebook_title_is_the_first_level_one_heading():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("[badge](x)"),
        nbformat.v4.new_markdown_cell("Intro\n# 05 · Query and key\n\ntext\n## Not this"),
    ])
    assert notebook_title(nb) == "05 · Query and key"
    assert notebook_title(nbformat.v4.new_notebook()) == ""


def test_every_course_notebook_has_a_title_and_is_stored_executed():
    for path in notebook_paths():
        nb = nbformat.read(path, as_version=4)
        assert notebook_title(nb).startswith(path.name[:2] + " "), path.name
        assert is_executed(nb), path.name


def test_index_lists_pages_and_decks_in_order():
    page = index_html([("00_a", "00 · First"), ("01_b", "01 · Second <&>")])
    assert page.index('href="00_a.html"') < page.index('href="01_b.html"')
    assert 'href="../slides/00_a.slides.html"' in page and 'href="../slides/01_b.slides.html"' in page
    assert "01 · Second &lt;&amp;&gt;" in page
    assert not re.search(r"(src|href)=\"https?:", page), "the index must not load anything from the network"


def test_pages_and_decks_load_their_scripts_from_build_lib():
    for config in (offline_config(), slides_config()):
        urls = [config.HTMLExporter.require_js_url, config.HTMLExporter.jquery_url, config.HTMLExporter.mathjax_url]
        assert all(url.startswith("../lib/") for url in urls), urls
    assert slides_config().SlidesExporter.reveal_url_prefix == "../lib/reveal.js"


def test_widget_views_are_dropped_and_pictures_kept():
    cell = nbformat.v4.new_code_cell("explore()")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"image/png": "iVBOR", "text/plain": "<Figure>"}),
        nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {"model_id": "x"}, "text/plain": "interactive(...)"}),
        nbformat.v4.new_output("stream", text="printed\n"),
    ]
    nb = drop_widget_views(nbformat.v4.new_notebook(cells=[cell]))
    assert [o.output_type for o in nb.cells[0].outputs] == ["display_data", "stream"]
    assert "image/png" in nb.cells[0].outputs[0].data
