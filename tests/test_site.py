"""tools.site without a browser or npm: titles, the index page, and offline-only asset addresses."""

import html
import re

import nbformat
import pytest

from tools.notebooks import ROOT, notebook_paths
from tools.site import (
    MISSING_ALT,
    export,
    index_html,
    is_executed,
    notebook_title,
    offline_config,
    offline_exporter,
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
        assert notebook_title(nb).startswith(path.name[:2] + " "), (
            f"{path.name}: no title starting {path.name[:2]!r}: give it a markdown cell `# {path.name[:2]} · Title` "
            "right after the badge")
        assert is_executed(nb), f"{path.name} is stored without outputs: run `make execute NOTEBOOKS={path.name[:2]}`"


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


# ----- what a page says: its title, its index, its pictures' alt text, nothing from the network ----------

def image_alts(page: str) -> list[str]:
    """The alt text of every <img> of an HTML page, in order (None for one without)."""
    alts = []
    for tag in re.findall(r"<img\b[^>]*>", page):
        found = re.search(r'\balt="([^"]*)"', tag)
        alts.append(html.unescape(found.group(1)) if found else None)
    return alts


def course_page(nb, tmp_path, deck=False) -> str:
    """`nb` exported as make html (or make slides) exports it, as HTML text."""
    from nbconvert import HTMLExporter, SlidesExporter

    if deck:
        exporter = offline_exporter(SlidesExporter, slides_config(), template_name="course_reveal")
    else:
        exporter = offline_exporter(HTMLExporter, offline_config(), template_name="course_lab")
    return export(exporter, nb, tmp_path / "nb.ipynb", tmp_path / "page.html").read_text(encoding="utf-8")


def test_a_page_is_titled_by_its_notebook_and_the_index_renders_markdown(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 04 · Telling `dogs` from `gods`")])
    assert "<title>04 · Telling dogs from gods</title>" in course_page(nb, tmp_path)
    assert "<title>04 · Telling dogs from gods slides</title>" in course_page(nb, tmp_path, deck=True)
    page = index_html([("04_x", "04 · Telling `dogs` from `gods`")])
    assert "Telling <code>dogs</code> from <code>gods</code>" in page and "`" not in page


def test_images_from_the_network_are_left_out_of_offline_pages(tmp_path):
    badge = nbformat.v4.new_markdown_cell(
        "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.example/x)")
    nb = nbformat.v4.new_notebook(cells=[badge, nbformat.v4.new_markdown_cell("# 00 · A title")])
    page = course_page(nb, tmp_path)
    assert "colab-badge.svg" not in page and 'href="https://colab.example/x"' in page and "Open In Colab" in page
    assert not re.search(r"<img[^>]*src=\"(https?:)?//", page)


@pytest.mark.slow  # a kernel
def test_a_figure_shown_in_a_kernel_stores_its_alt_text_and_the_page_shows_it(tmp_path):
    from tools.notebooks import notebook_client

    code = nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 00 · Alt text"),
        code(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nimport torch\nimport matplotlib.pyplot as plt\n"
             "from helpers.plots import show_wei"),
        code("show_wei(torch.tensor([[1.0, 0.0], [0.25, 0.75]]), labels='hu', stage='softmax')\nplt.show()"),
        code("from matplotlib.figure import Figure\nfrom IPython.display import display\n"
             "fig = Figure()\nax = fig.subplots()\nax.plot([1, 2])\nax.set_title('a line')\ndisplay(fig)"),
    ])
    notebook_client(nb, tmp_path, timeout=120).execute()
    alts = [out.metadata["image/png"]["alt"] for cell in nb.cells[2:] for out in cell.outputs
            if "image/png" in out.get("data", {})]
    assert len(alts) == 2
    assert "'hu'" in alts[0] and "softmaxed weights" in alts[0] and "1 u → 1 u 0.75" in alts[0]
    assert alts[1] == "A figure: 'a line'."
    for deck in (False, True):
        assert image_alts(course_page(nb, tmp_path, deck)) == alts


def test_a_picture_stored_without_alt_text_says_so_instead_of_no_description(tmp_path):
    cell = nbformat.v4.new_code_cell("plot()")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": "iVBOR", "text/plain": "<Figure>"})]
    page = course_page(nbformat.v4.new_notebook(cells=[cell]), tmp_path)
    assert image_alts(page) == [MISSING_ALT] and "No description has been provided" not in page
