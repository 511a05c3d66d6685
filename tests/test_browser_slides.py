"""The offline decks and pages in Chromium at 1280×720, as an instructor projects them.

Always run (with `make test-slow`): the built deck and page load nothing from the network (images included) and
show no broken image; every colour of highlighted code stands out 4.5:1 from its background.

Run by `make check-slides` (CI runs it after `make test`; it re-executes every notebook, a few minutes on two
cores): every notebook is executed afresh with the current helpers, its decks are built, and on every slide
of every deck it measures that each figure is wholly inside the 1280×720 stage (no scrolling) and clear of
reveal's navigation arrows, and that every text is at least 16 px on screen: the slide's prose and code as
Chromium lays them out, and the texts inside each figure (their size in the PNG, recorded while the kernel
drew it, times the scale the picture is shown at). It measures the live slides the same way: each notebook,
freshly executed, presented with jupyterlab-slideshow in JupyterLab and stepped through with Space, as the
README teaches; each explorer's cell gets a stand-in for the controls a live kernel shows above its output
(EXPLORER_CONTROL_PX each, checked by tests/test_browser.py's live slideshow test). A failure names the
notebook, the cell, what is too small and by how much.
`COURSE_SLIDE_NOTEBOOKS="01 04"` limits the run to the notebooks whose names start with those words.
"""

import ast
import copy
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from tools.notebooks import NOTEBOOK_DIR, ROOT, is_setup_cell, notebook_client, notebook_paths, strip_magics
from tools.slides import apply_slide_types, picture_outputs

pytestmark = pytest.mark.slow  # decks built and measured in Chromium
CHROMIUM = Path("/usr/bin/chromium")  # as tests/conftest.py's browser fixture starts it
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
if not CHROMIUM.exists() and not IN_CI:
    pytest.skip("headless Chromium is not installed (apt-get install chromium); CI installs it",
                allow_module_level=True)

from playwright.sync_api import expect  # noqa: E402

from tests.test_browser import EXPLORER_CONTROL_PX, lab_settings, run_command  # noqa: E402

STAGE = {"width": 1280, "height": 720}
MIN_TEXT_PX = 16
MIN_CONTRAST = 4.5
SLIDE_CHECK_ENV = "COURSE_SLIDE_CHECK"  # set by `make check-slides`
NOTEBOOKS_ENV = "COURSE_SLIDE_NOTEBOOKS"  # e.g. "01 04": check only those notebooks (while fixing a few)
needs_fresh_run = pytest.mark.skipif(
    not os.environ.get(SLIDE_CHECK_ENV),
    reason="re-executes every notebook (minutes): run `make check-slides` (CI does, after make test)",
)
# Put into each notebook after its setup cell (and taken out again after the run): every figure shown
# also records its texts and their sizes in pixels in its output's metadata.
RECORD_TEXTS = """\
from IPython import get_ipython
from matplotlib.figure import Figure
from helpers.plots import figure_alt_metadata
from tests.figure_texts import figure_texts


def _alt_and_texts(fig):
    data, metadata = figure_alt_metadata(fig)
    metadata["image/png"]["course_test_texts"] = figure_texts(fig)
    return data, metadata


get_ipython().display_formatter.mimebundle_formatter.for_type(Figure, _alt_and_texts)
"""
TEXTS_KEY = "course_test_texts"
REPORT = ROOT / "build" / "slide-text-report.txt"  # what `make check-slides` prints at the end
LIVE_REPORT = ROOT / "build" / "slide-live-report.txt"
LAB_TOKEN = "slide-check-token"


# ----- what the browser measures (JavaScript run in the page) -------------------------------------------

# WCAG contrast between an element's colour and the first opaque background behind it.
CONTRAST_JS = """
(selector) => {
  const channel = c => { c /= 255; return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
  const rgba = s => s.match(/[\\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  const background = el => {
    for (; el; el = el.parentElement) {
      const c = rgba(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c;
    }
    return [255, 255, 255];
  };
  return [...document.querySelectorAll(selector)].filter(el => el.textContent.trim()).map(el => {
    const [a, b] = [luminance(rgba(getComputedStyle(el).color)), luminance(background(el))];
    return {cls: el.className, text: el.textContent.trim().slice(0, 30), colour: getComputedStyle(el).color,
            ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)};
  });
}
"""

# What one slide shows (a function of the slide element, the scale it is drawn at and the selector of the
# navigation controls): each visible output picture's box (with a key per picture), the navigation controls,
# and the on-screen size of every visible text (MathJax is measured as a whole, not its inner glyphs). A
# fragment not shown yet counts as hidden, as does a cell the live slideshow keeps off the screen.
MEASURE_SLIDE_JS = """
(slide, scale, controls) => {
  const box = el => { const r = el.getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width, h: r.height}; };
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden"
    && getComputedStyle(el).display !== "none" && !el.closest(".fragment:not(.visible)");
  const pictures = [...slide.querySelectorAll(".jp-OutputArea-output img")].filter(shown).map(img => (
    {...box(img), natural: img.naturalWidth, loaded: img.complete && img.naturalWidth > 0,
     key: img.naturalWidth + ":" + img.src.slice(100, 220)}));
  const arrows = [...document.querySelectorAll(controls)].filter(shown).map(box)
    .filter(b => b.w > 0 && b.h > 0);
  const texts = [];
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    let el = node.parentElement;
    if (!node.textContent.trim() || el.closest("aside.notes, .MathJax_Preview, script, style")) continue;
    el = el.closest("mjx-container, .MathJax_CHTML") || el;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === "hidden") continue;
    texts.push({px: parseFloat(getComputedStyle(el).fontSize) * scale, text: node.textContent.trim().slice(0, 40),
                tag: el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ")[0] : "")});
  }
  return {pictures, arrows, texts};
}
"""

# Every slide of an offline deck in turn, all its fragments shown (they take their room even when hidden).
MEASURE_DECK_JS = f"""
async () => {{
  const measure = {MEASURE_SLIDE_JS};
  const Reveal = await new Promise(done => require(["../lib/reveal.js/dist/reveal.js"], done));
  const frame = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  const slides = [];
  for (const slide of Reveal.getSlides()) {{
    const where = Reveal.getIndices(slide);
    Reveal.slide(where.h, where.v);
    slide.querySelectorAll(".fragment").forEach(f => f.classList.add("visible"));
    await frame();
    slides.push({{h: where.h, v: where.v, ...measure(slide, Reveal.getScale(), ".reveal .controls button")}});
  }}
  return slides;
}}
"""

# The step jupyterlab-slideshow shows now (a slide, or a slide with some of its fragments shown): the cells it
# puts on the screen, named by their index in the notebook, measured with its on-screen remote as the arrows.
MEASURE_LIVE_JS = f"""
() => {{
  const notebook = document.querySelector(".jp-Notebook");
  const cells = [...notebook.querySelectorAll(":scope > .jp-WindowedPanel-outer .jp-Cell, :scope > .jp-Cell")];
  const onscreen = cells.map((c, i) => c.classList.contains("jp-deck-mod-onscreen") ? i : -1).filter(i => i >= 0);
  const where = onscreen.join(",");
  return {{where, h: "cells " + where, v: "", ...({MEASURE_SLIDE_JS})(notebook, 1, ".jp-Deck-Remote button")}};
}}
"""

# A stand-in, `px` tall per control, at the top of the output of each explorer cell ({cell index: controls}).
STAND_IN_JS = """
([controls, px]) => {
  const notebook = document.querySelector(".jp-Notebook");
  const cells = [...notebook.querySelectorAll(":scope > .jp-WindowedPanel-outer .jp-Cell, :scope > .jp-Cell")];
  for (const [index, n] of Object.entries(controls)) {
    const area = cells[Number(index)].querySelector(".jp-OutputArea");
    const standIn = document.createElement("div");
    standIn.className = "course-controls-stand-in";
    standIn.style.height = `${n * px}px`;
    area.prepend(standIn);
  }
}
"""


# ----- helpers -------------------------------------------------------------------------------------------

def overlaps(a, b) -> bool:
    across = a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
    return across and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"]


def fit_problems(slide) -> list[str]:
    """What keeps each picture of a measured slide from being wholly visible at 1280×720."""
    problems = []
    for k, pic in enumerate(slide["pictures"]):
        where = f"picture {k + 1} ({pic['w']:.0f}×{pic['h']:.0f} px)"
        if not pic["loaded"]:
            problems.append(f"{where} did not load")
        if pic["y"] < 0 or pic["y"] + pic["h"] > STAGE["height"]:
            problems.append(f"{where} spans y = {pic['y']:.0f}…{pic['y'] + pic['h']:.0f}, outside 0…720")
        if pic["x"] < 0 or pic["x"] + pic["w"] > STAGE["width"]:
            problems.append(f"{where} spans x = {pic['x']:.0f}…{pic['x'] + pic['w']:.0f}, outside 0…1280")
        for arrow in (a for a in slide["arrows"] if overlaps(pic, a)):
            problems.append(f"{where} at x = {pic['x']:.0f}…{pic['x'] + pic['w']:.0f}, y = {pic['y']:.0f}…"
                            f"{pic['y'] + pic['h']:.0f} lies under reveal's navigation arrows (x = {arrow['x']:.0f}…"
                            f"{arrow['x'] + arrow['w']:.0f}, y = {arrow['y']:.0f}…{arrow['y'] + arrow['h']:.0f})")
            break
    return problems


def figure_text_problems(figure, shown_width: float, natural_width: float) -> list[str]:
    """Texts of one figure smaller than MIN_TEXT_PX as shown, one line per kind of text."""
    scale = shown_width / natural_width
    smallest = {}
    for kind, text, px in figure["texts"]:
        if kind not in smallest or px < smallest[kind][1]:
            smallest[kind] = (text, px)
    return [f"{figure['where']}: {kind} such as {text!r} are {px * scale:.1f} px, "
            f"{MIN_TEXT_PX - px * scale:.1f} px short" for kind, (text, px) in sorted(smallest.items())
            if px * scale < MIN_TEXT_PX]


def slide_text_problems(deck: str, slide) -> list[str]:
    """Texts on one measured slide smaller than MIN_TEXT_PX."""
    small = {}
    for t in slide["texts"]:
        if t["px"] < MIN_TEXT_PX and (t["tag"] not in small or t["px"] < small[t["tag"]]["px"]):
            small[t["tag"]] = t
    return [f"{deck} slide {slide['h']}{'/' if slide['v'] != '' else ''}{slide['v']}: {t['tag']} text "
            f"{t['text']!r} is {t['px']:.1f} px, {MIN_TEXT_PX - t['px']:.1f} px short" for t in small.values()]


def run_fresh(path: Path):
    """The notebook at `path`, executed now in its folder with RECORD_TEXTS after its setup cell."""
    nb = nbformat.read(path, as_version=4)
    at = next(i for i, cell in enumerate(nb.cells) if is_setup_cell(cell)) + 1
    nb.cells.insert(at, nbformat.v4.new_code_cell(RECORD_TEXTS))
    notebook_client(nb, NOTEBOOK_DIR).execute()
    del nb.cells[at]
    return path, nb


def explorer_controls(source: str) -> int:
    """How many controls a cell's explore(...) call makes (its keyword arguments): 0 for a cell with no explorer.

    A live kernel shows them above the explorer's picture; a stored run, as measured here, shows none.
    """
    calls = [node for node in ast.walk(ast.parse(strip_magics(source))) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "explore"]
    return sum(len([k for k in call.keywords if k.arg]) for call in calls)


def figures_of(path: Path, nb) -> list[dict]:
    """Each picture output of `nb`, in order: where it is, the texts its kernel recorded, and how many explorer
    controls a live kernel shows above it."""
    return [
        {"where": f"{path.name} cell {i}", "texts": cell.outputs[k].metadata.get("image/png", {}).get(TEXTS_KEY, []),
         "controls": explorer_controls(cell.source)}
        for i, cell in enumerate(nb.cells) for k in picture_outputs(cell)
    ]


@pytest.fixture
def page(browser):
    """A 1280×720 page with the network cut off; every request it makes that is not file:// is refused
    and listed in `page.remote_requests`, and every error it logs or throws is listed in `page.console_errors`."""
    context = browser.new_context(viewport=STAGE, offline=True)
    page = context.new_page()
    page.remote_requests = []
    page.console_errors = []  # what the page logs as an error, or throws
    page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
    page.on("pageerror", lambda error: page.console_errors.append(str(error)))

    def refuse(route):
        page.remote_requests.append(route.request.url)
        route.abort()

    context.route(lambda url: not url.startswith(("file:", "data:")), refuse)
    yield page
    context.close()


@pytest.fixture(scope="module")
def stored_build(tmp_path_factory):
    """Notebook 00's deck and page and the index, built from the stored notebook by the make slides/html code."""
    from tools.site import build_site, build_slides

    out = tmp_path_factory.mktemp("build")
    build_slides(["00_bigram_baseline.ipynb"], out / "slides")
    build_site(["00_bigram_baseline.ipynb"], out / "site")
    return out


def checked_notebooks() -> list[Path]:
    """Every notebook, or those whose names start with a word of COURSE_SLIDE_NOTEBOOKS."""
    words = os.environ.get(NOTEBOOKS_ENV, "").replace(",", " ").split()
    paths = [path for path in notebook_paths() if not words or path.name.startswith(tuple(words))]
    assert paths, f"{NOTEBOOKS_ENV}={os.environ[NOTEBOOKS_ENV]!r} names no notebook in notebooks/"
    return paths


@pytest.fixture(scope="module")
def fresh_run():
    """Every notebook executed now (two kernels at a time), with its figures' texts recorded: (path, notebook)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(run_fresh, checked_notebooks()))


@pytest.fixture(scope="module")
def fresh_build(fresh_run, tmp_path_factory):
    """The decks of the freshly executed notebooks, and each notebook's figures."""
    from tools.site import build_slides

    figures = {path.stem: figures_of(path, nb) for path, nb in fresh_run}
    out = tmp_path_factory.mktemp("fresh")
    decks = build_slides(out_dir=out / "slides", notebooks=[(path, copy.deepcopy(nb)) for path, nb in fresh_run])
    return decks, figures


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def live_lab(fresh_run, tmp_path_factory):
    """JupyterLab (with jupyterlab-slideshow) over a scratch course holding the freshly executed notebooks, their
    slides stamped by tools.slides's rules; yields its address, then stops it."""
    root = tmp_path_factory.mktemp("live")
    shutil.copytree(ROOT / "helpers", root / "helpers", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "notebooks").mkdir()
    for path, nb in fresh_run:
        apply_slide_types(nb)
        nbformat.write(nb, root / "notebooks" / path.name)
    (root / "data").mkdir()
    (root / "data" / "tinyshakespeare.txt").symlink_to(ROOT / "data" / "tinyshakespeare.txt")
    state, port = tmp_path_factory.mktemp("lab"), free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(state / "config"), JUPYTER_RUNTIME_DIR=str(state / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(lab_settings(state / "settings")),
               JUPYTERLAB_WORKSPACES_DIR=str(state / "workspaces"), COURSE_DEVICE="cpu")
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               f"--IdentityProvider.token={LAB_TOKEN}", f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
               "--allow-root"]
    with open(state / "lab.log", "wb") as log:
        server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        try:
            for _ in range(180):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={LAB_TOKEN}", timeout=5)
                    break
                except OSError:
                    assert server.poll() is None, (state / "lab.log").read_text(errors="replace")
                    time.sleep(0.5)
            yield f"http://127.0.0.1:{port}"
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=60)


def make_room_for_controls(page, figures) -> None:
    """Put a stand-in for each explorer's controls at the top of its cell's output, as tall as the controls a live
    kernel shows there (EXPLORER_CONTROL_PX each): the stored run shows none, and the slide is laid out anew."""
    controls = {int(f["where"].rsplit(" ", 1)[1]): f["controls"] for f in figures if f["controls"]}
    page.evaluate(STAND_IN_JS, [controls, EXPLORER_CONTROL_PX])


def step_through_deck(page) -> list[dict]:
    """Every step of the deck presented on `page`, from its title slide to its end, measured (MEASURE_LIVE_JS)."""
    slides, unchanged = [page.evaluate(MEASURE_LIVE_JS)], 0
    while unchanged < 4:  # the deck may take a moment to listen; four presses that move nothing: the end
        assert len(slides) < 400, "Space keeps moving after 400 steps"
        page.keyboard.press("Space")
        page.wait_for_timeout(250)
        slide = page.evaluate(MEASURE_LIVE_JS)
        if slide["where"] == slides[-1]["where"]:
            unchanged += 1
        else:
            slides.append(slide)
            unchanged = 0
    return slides


@pytest.fixture(scope="module")
def measured_live(browser, live_lab, fresh_build):
    """{notebook: (the live slides it showed, its figures)}: each notebook presented with jupyterlab-slideshow, as
    the README teaches (its first cell selected, then Start Deck), and stepped through with Space."""
    _, figures = fresh_build
    result = {}
    for path in checked_notebooks():
        context = browser.new_context(viewport=STAGE)
        page = context.new_page()
        page.goto(f"{live_lab}/lab/tree/notebooks/{path.name}?reset&token={LAB_TOKEN}")
        expect(page.locator(".jp-Notebook .jp-Cell").first).to_be_visible(timeout=90_000)
        page.wait_for_timeout(2000)  # MathJax and the pictures
        make_room_for_controls(page, figures[path.stem])
        page.locator(".jp-Cell").first.click()
        run_command(page, "Start Deck")
        expect(page.locator("body[data-jp-deck-mode='presenting']")).to_be_attached(timeout=30_000)
        page.wait_for_timeout(1000)
        try:
            result[path.stem] = (step_through_deck(page), figures[path.stem])
        finally:
            run_command(page, "Stop Deck")  # a saved setting: left on, the next notebook would open as slides
            expect(page.locator("body[data-jp-deck-mode='presenting']")).to_have_count(0, timeout=30_000)
            context.close()
    (ROOT / "build").mkdir(exist_ok=True)
    (ROOT / "build" / "slide-live-measurements.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result


@pytest.fixture(scope="module")
def measured(browser, fresh_build):
    """{deck name: the measured slides} for every freshly built deck, with the figures recorded in its notebook."""
    decks, figures = fresh_build
    context = browser.new_context(viewport=STAGE, offline=True)
    page = context.new_page()
    result = {}
    for deck in decks:
        page.goto(deck.as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        stem = deck.name.removesuffix(".slides.html")
        result[stem] = (page.evaluate(MEASURE_DECK_JS), figures[stem])
    context.close()
    (ROOT / "build").mkdir(exist_ok=True)
    (ROOT / "build" / "slide-measurements.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result


# ----- always: offline, no broken image, readable code colours ------------------------------------------

@pytest.mark.parametrize("built_page", ["slides/00_bigram_baseline.slides.html", "site/00_bigram_baseline.html",
                                        "site/index.html"])
def test_built_pages_request_nothing_from_the_network_and_show_no_broken_image(stored_build, page, built_page):
    page.goto((stored_build / built_page).as_uri())
    page.wait_for_load_state("load")
    page.wait_for_timeout(500)
    assert page.remote_requests == [], f"{built_page} asked the network for {page.remote_requests}"
    assert page.console_errors == [], f"{built_page} logged errors: {page.console_errors}"
    images = page.evaluate("[...document.images].map(i => ({src: i.src.slice(0, 60), ok: i.naturalWidth > 0}))")
    broken = [i["src"] for i in images if not i["ok"]]
    assert not broken, f"{built_page} shows broken images: {broken}"
    if built_page.endswith("00_bigram_baseline.html"):
        assert images, "the page shows no picture at all"
        assert "Open In Colab" in page.inner_text("body")  # the badge's words stay; its image needs the network


@pytest.mark.parametrize("built_page", ["slides/00_bigram_baseline.slides.html", "site/00_bigram_baseline.html"])
def test_every_code_colour_stands_out_4_5_to_1(stored_build, page, built_page):
    page.goto((stored_build / built_page).as_uri())
    page.wait_for_load_state("load")
    tokens = page.evaluate(CONTRAST_JS, ".jp-InputArea .highlight pre span")
    assert len({t["cls"] for t in tokens}) >= 5, "expected highlighted code with several kinds of token"
    low = {t["cls"]: t for t in tokens if t["ratio"] < MIN_CONTRAST}
    assert not low, f"{built_page}: " + "; ".join(
        f"{cls} ({t['colour']}, e.g. {t['text']!r}) is {t['ratio']:.2f}:1" for cls, t in low.items())


@pytest.mark.parametrize("built_page", ["slides/00_bigram_baseline.slides.html", "site/00_bigram_baseline.html"])
def test_headings_keep_their_case_and_printed_output_wraps_between_words(stored_build, page, built_page):
    # reveal's white theme capitalised headings (q · k read as Q · K), and JupyterLab's break-all split numbers
    page.goto((stored_build / built_page).as_uri())
    page.wait_for_load_state("load")
    styles = page.evaluate("""() => ({
        headings: [...document.querySelectorAll('h1, h2, h3')].map(h => getComputedStyle(h).textTransform),
        printed: [...document.querySelectorAll('.jp-OutputArea-output pre')].map(p => getComputedStyle(p).wordBreak),
    })""")
    assert styles["headings"] and set(styles["headings"]) == {"none"}, styles["headings"]
    assert styles["printed"] and set(styles["printed"]) == {"normal"}, styles["printed"]


def test_the_contrast_check_catches_a_pale_colour(stored_build, page):
    page.goto((stored_build / "site/00_bigram_baseline.html").as_uri())
    page.add_style_tag(content=".highlight .c1 { color: #9a9a9a !important; }")
    tokens = page.evaluate(CONTRAST_JS, ".jp-InputArea .highlight pre span.c1")
    assert tokens and max(t["ratio"] for t in tokens) < MIN_CONTRAST


# ----- make check-slides: every deck from a fresh run, every slide measured ------------------------------

@needs_fresh_run
def test_every_figure_slide_fits_1280_by_720_clear_of_the_arrows(measured):
    problems, counted = [], 0
    for deck, (slides, figures) in measured.items():
        shown = [s for s in slides for _ in s["pictures"]]
        assert len(shown) == len(figures), f"{deck}: {len(shown)} pictures on slides, {len(figures)} in the notebook"
        for slide in slides:
            counted += bool(slide["pictures"])
            problems += [f"{deck} slide {slide['h']}/{slide['v']}: {p}" for p in fit_problems(slide)]
    print(f"{counted} figure slides measured")
    assert counted >= 25 or os.environ.get(NOTEBOOKS_ENV)
    assert not problems, "\n".join(problems)


def live_figures(slides, figures) -> list[tuple[dict, dict, dict]]:
    """(slide, picture, figure) for each figure of a notebook, measured on the first live step that shows it."""
    first = {}
    for slide in slides:
        for pic in slide["pictures"]:
            first.setdefault(pic["key"], (slide, pic))
    assert len(first) == len(figures), f"{len(first)} pictures seen in the live slides, {len(figures)} in the notebook"
    return [(slide, pic, figure) for (slide, pic), figure in zip(first.values(), figures, strict=True)]


@needs_fresh_run
def test_every_figure_fits_a_live_slide(measured_live):
    problems = []
    for slides, figures in measured_live.values():
        for slide, pic, figure in live_figures(slides, figures):
            with_controls = f", room for {figure['controls']} explorer controls above it" if figure["controls"] else ""
            problems += [f"{figure['where']} (live, {slide['h']}{with_controls}): {p}"
                         for p in fit_problems({**slide, "pictures": [pic]})]
    LIVE_REPORT.write_text("Figures not wholly visible on a live slide at 1280×720:\n" + "\n".join(problems or ["none"])
                           + "\n", encoding="utf-8")
    assert not problems, "\n".join(problems)


@needs_fresh_run
def test_every_text_on_every_slide_is_at_least_16_px(measured, measured_live):
    problems = []
    for deck, (slides, figures) in measured.items():
        pictures = iter(figures)
        for slide in slides:
            problems += slide_text_problems(deck, slide)
            for pic in slide["pictures"]:
                problems += figure_text_problems(next(pictures), pic["w"], pic["natural"])
    for notebook, (slides, figures) in measured_live.items():
        for slide in slides:
            problems += slide_text_problems(f"{notebook} live", slide)
        for _, pic, figure in live_figures(slides, figures):
            problems += [f"{p} (live)" for p in figure_text_problems(figure, pic["w"], pic["natural"])]
    problems = sorted(set(problems))
    smallest = min((t["px"], t["text"]) for found in (measured, measured_live) for slides, _ in found.values()
                   for s in slides for t in s["texts"])
    summary = [f"Texts under {MIN_TEXT_PX} px at 1280×720 (slides and figures of every deck, from a fresh run):",
               *(problems or ["none"]), f"smallest slide text: {smallest[0]:.1f} px ({smallest[1]!r})"]
    REPORT.write_text("\n".join(summary) + "\n", encoding="utf-8")
    assert not problems, "\n".join(problems)


def test_an_explorers_controls_are_counted_from_its_call():
    assert explorer_controls('shown = explore(draw, word=Text(value="dogs"),\n                other=Text())') == 2
    assert explorer_controls("%%time\nshown = explore(lambda t, l: f(t, l, model=m), text=Text(), layer=S())") == 2
    assert explorer_controls("fig = show_wei(wei)\nplt.show()") == 0


def test_the_size_checks_catch_small_text_and_a_figure_below_the_fold():
    slide = {"h": 1, "v": 0, "pictures": [{"x": 10, "y": 600, "w": 1200, "h": 300, "natural": 1200, "loaded": True}],
             "arrows": [{"x": 1180, "y": 620, "w": 60, "h": 60}],
             "texts": [{"px": 13.0, "text": "x = 1", "tag": "span.n"}, {"px": 20.0, "text": "ok", "tag": "p"}]}
    assert len(fit_problems(slide)) == 2  # below the fold, and under the arrows
    assert slide_text_problems("d", slide) == ["d slide 1/0: span.n text 'x = 1' is 13.0 px, 3.0 px short"]
    figure = {"where": "nb cell 3", "texts": [["axis ticks", "0", 16.7], ["legends", "val", 11.1]]}
    assert figure_text_problems(figure, 600, 600) == ["nb cell 3: legends such as 'val' are 11.1 px, 4.9 px short"]
    assert len(figure_text_problems(figure, 500, 600)) == 2  # shrunk to 5/6: the ticks drop to 13.9 px too
