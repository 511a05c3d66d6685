"""The course in a real browser: JupyterLab, live RISE slides, the offline decks and the static site.

Headless Chromium from Debian's packages (/usr/bin/chromium), driven by Playwright for Python. The tests
start and stop everything themselves: a JupyterLab server on a free port over a scratch copy of the course
(the repository's notebooks are never written), and decks and pages built into a temporary folder.
Screenshots at 1280×720 land in build/screenshots/ (git-ignored).

The page checks (`assert_heatmap_visible`, `assert_widget_live`, ...) are plain functions; the last tests
prove they fail when the widget frontend is missing or a heatmap is absent.

All browser tests live in this one module, so pytest-xdist's `--dist loadscope` runs them on one worker.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from tools.notebooks import ROOT
from tools.slides import stamp_slides

CHROMIUM = Path("/usr/bin/chromium")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
if not CHROMIUM.exists() and not IN_CI:
    pytest.skip(
        "headless Chromium is not installed (apt-get install chromium); CI installs it and runs these tests",
        allow_module_level=True,
    )

from playwright.sync_api import expect, sync_playwright  # noqa: E402

NOTEBOOK = "01_bag_of_words.ipynb"  # it has a heatmap and an explorer with a text box
TITLE = "01 · The bag of words"
SCREENSHOTS = ROOT / "build" / "screenshots"
VIEWPORT = {"width": 1280, "height": 720}
TOKEN = "browser-test-token"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]
WIDGET_MANAGER = "**/@jupyter-widgets/jupyterlab-manager/**"
# An image in a notebook output (JupyterLab, nbconvert's lab template, or a reveal.js deck).
OUTPUT_IMAGE = ".jp-OutputArea-output img"
# A control of a live explorer: an ipywidgets text box (interact() or a hand-built VBox of controls).
WIDGET_INPUT = ".jupyter-widgets input[type='text'], .widget-text input"
RUN_TIMEOUT_MS = int(os.environ.get("BROWSER_RUN_TIMEOUT_MS", 180_000))


# ----- page checks: plain functions, each raising AssertionError with a plain message ---------------------

def visible_output_images(scope):
    """The output images under `scope` (a page or a locator) that are visible and have really loaded."""
    images = scope.locator(OUTPUT_IMAGE)
    return [
        images.nth(i) for i in range(images.count())
        if images.nth(i).is_visible() and images.nth(i).evaluate("img => img.complete && img.naturalWidth > 100")
    ]


def assert_heatmap_visible(scope) -> None:
    """At least one heatmap-sized picture is drawn in an output under `scope`."""
    assert visible_output_images(scope), "no heatmap: no visible, loaded image in any cell output"


def explorer_cell(page):
    """The notebook cell whose output holds a live widget text box."""
    return page.locator(".jp-Cell").filter(has=page.locator(WIDGET_INPUT)).first


def assert_widget_live(page) -> None:
    """An explorer renders as a live widget: a text box you can type in, with its picture in a widget area."""
    boxes = page.locator(WIDGET_INPUT)
    assert boxes.count() and boxes.first.is_visible(), (
        "no live widget: no ipywidgets text box rendered (is the widget frontend missing?)"
    )
    assert boxes.first.is_editable(), "the explorer's text box is not editable"
    pictures = explorer_cell(page).locator(".jupyter-widgets img, .widget-output img")
    assert pictures.count() and pictures.first.is_visible(), "the explorer shows no picture inside its widget"


def explorer_picture_src(page) -> str:
    """The data: URL of the picture the explorer shows now."""
    return explorer_cell(page).locator(".jupyter-widgets img, .widget-output img").first.get_attribute("src")


def assert_widget_redraws(page, new_value: str, timeout_s: float = 60) -> None:
    """Typing `new_value` into the explorer's text box (and pressing Enter) changes its picture."""
    before = explorer_picture_src(page)
    box = page.locator(WIDGET_INPUT).first
    box.fill(new_value)
    box.press("Enter")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        after = explorer_cell(page).locator(".jupyter-widgets img, .widget-output img")
        if after.count() and after.first.get_attribute("src") not in (None, before):
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"the explorer's picture did not change within {timeout_s} s of typing {new_value!r}")


def assert_first_slide(page, title: str) -> None:
    """reveal.js shows its first slide, and that slide carries the notebook's title."""
    present = page.locator(".reveal .slides > section.present").first
    expect(present).to_be_visible(timeout=30_000)
    first = page.evaluate("document.querySelector('.reveal .slides > section').classList.contains('present')")
    assert first, "the deck did not open on its first slide"
    assert title.lower() in present.inner_text().lower(), f"the first slide does not show the title {title!r}"


def next_slide(page) -> None:
    """Move to the next slide as the arrows in reveal's corner do: down into a subslide, else right."""
    down = page.locator(".reveal .controls .navigate-down.enabled")
    (down if down.count() else page.locator(".reveal .controls .navigate-right.enabled")).first.click()
    page.wait_for_timeout(200)


def next_slide_with_image(page, max_steps: int = 60):
    """Step through the deck to the first slide that shows a picture; return that slide."""
    for _ in range(max_steps):
        present = page.locator(".reveal .slides section.present").last
        if visible_output_images(present):
            return present
        next_slide(page)
    raise AssertionError(f"no slide with a picture within {max_steps} steps")


def screenshot(page, name: str) -> Path:
    """Save what the page shows now as build/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


# ----- driving JupyterLab ------------------------------------------------------------------------------

def execution_counts(page) -> list[int]:
    """The numbers in the cells' [n]: prompts (−1 for a cell still queued or running, [*]:)."""
    texts = page.locator(".jp-InputArea-prompt").all_inner_texts()
    counts = []
    for text in texts:
        inside = text.strip().removeprefix("[").removesuffix("]:")
        counts.append(-1 if inside == "*" else int(inside) if inside.isdigit() else 0)
    return counts


def run_all_cells(page) -> None:
    """Run → Run All Cells, then wait until the run has finished (no [*] left, new numbers in the prompts).

    A click that lands while JupyterLab is still wiring the notebook to its kernel can be lost, so the
    menu is used again when nothing has started after a few seconds.
    """
    before = max(execution_counts(page), default=0)
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    started = False
    for _attempt in range(3):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        retry_at = time.monotonic() + 10
        while time.monotonic() < retry_at:
            counts = execution_counts(page)
            if -1 in counts or max(counts, default=0) > before:
                started = True
                break
            page.wait_for_timeout(250)
        if started:
            break
    while True:
        counts = execution_counts(page)
        if started and -1 not in counts and max(counts, default=0) > before:
            return
        if time.monotonic() > deadline or not started:
            screenshot(page, "run_all_timed_out")
            raise AssertionError(f"Run All Cells did not finish within {RUN_TIMEOUT_MS // 1000} s; prompts: {counts}")
        page.wait_for_timeout(500)


def open_notebook(page, base: str, name: str) -> None:
    """Open notebooks/<name> in JupyterLab and wait for its kernel to be idle."""
    page.goto(f"{base}/lab/tree/notebooks/{name}?reset&token={TOKEN}")
    expect(page.locator(".jp-Notebook .jp-Cell").first).to_be_visible(timeout=60_000)
    expect(page.locator(".jp-StatusBar-Widget").filter(has_text="| Idle").first).to_be_visible(timeout=60_000)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(port: int, server: subprocess.Popen, log: Path, timeout_s: float = 90) -> None:
    """Poll the server's /api/status until it answers; fail with its log if it dies or is too slow."""
    deadline = time.monotonic() + timeout_s
    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/status", headers={"Authorization": f"token {TOKEN}"})
    while True:
        try:
            with urllib.request.urlopen(request, timeout=5):
                return
        except OSError:
            assert server.poll() is None, "JupyterLab exited:\n" + log.read_text(errors="replace")
            assert time.monotonic() < deadline, f"JupyterLab did not answer within {timeout_s} s"
            time.sleep(0.5)


def scratch_course(folder: Path) -> Path:
    """A copy of the course to run in: helpers/, notebook 01 with its outputs cleared and its slides
    stamped, and the corpus linked in (the repository's files are never written)."""
    shutil.copytree(ROOT / "helpers", folder / "helpers", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "notebooks").mkdir()
    nb = nbformat.read(ROOT / "notebooks" / NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, folder / "notebooks" / NOTEBOOK)
    stamp_slides(folder / "notebooks" / NOTEBOOK)
    (folder / "data").mkdir()
    corpus = ROOT / "data" / "tinyshakespeare.txt"
    if corpus.exists():
        (folder / "data" / "tinyshakespeare.txt").symlink_to(corpus)
    return folder


def lab_settings(folder: Path) -> Path:
    """User settings for the test server: every cell stays in the page (no windowing), no news pop-ups."""
    settings = {
        "notebook-extension/tracker": '{"windowingMode": "none"}',
        "apputils-extension/notification": '{"fetchNews": "false", "checkForUpdates": false}',
    }
    for name, text in settings.items():
        path = folder / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


# ----- fixtures ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server over a scratch copy of the course; yields its base URL, stops it afterwards."""
    root = scratch_course(tmp_path_factory.mktemp("course"))
    state = tmp_path_factory.mktemp("jupyter")
    port = free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(state / "config"), JUPYTER_RUNTIME_DIR=str(state / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(lab_settings(state / "settings")),
               JUPYTERLAB_WORKSPACES_DIR=str(state / "workspaces"), COURSE_DEVICE="cpu")
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               f"--IdentityProvider.token={TOKEN}", "--ServerApp.open_browser=False",
               f"--ServerApp.root_dir={root}", "--LabApp.news_url=None"]
    if os.geteuid() == 0:
        command.append("--allow-root")
    log = open(state / "lab.log", "wb")  # a file, not a pipe: a full pipe would stall the server
    server = subprocess.Popen(command, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        wait_for_server(port, server, state / "lab.log")
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


@pytest.fixture(scope="module")
def ran_notebook(browser, lab):
    """Notebook 01 opened in JupyterLab, all its cells run in a live kernel, then saved (for the slides)."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    open_notebook(page, lab, NOTEBOOK)
    run_all_cells(page)
    page.keyboard.press("Control+s")
    page.wait_for_timeout(1000)
    yield page
    context.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The decks and the site, built by tools.site into a temporary build/ (the same code as make slides/html)."""
    from tools.site import build_site, build_slides

    out = tmp_path_factory.mktemp("build")
    build_slides([NOTEBOOK], out / "slides")
    build_site([NOTEBOOK, "00_bigram_baseline.ipynb"], out / "site")
    return out


@pytest.fixture
def offline_page(browser):
    """A fresh 1280×720 page with the network cut off (file:// still loads)."""
    context = browser.new_context(viewport=VIEWPORT, offline=True)
    yield context.new_page()
    context.close()


# ----- JupyterLab and RISE -----------------------------------------------------------------------------

def test_run_all_draws_a_heatmap(ran_notebook):
    page = ran_notebook
    assert_heatmap_visible(page)
    visible_output_images(page)[0].scroll_into_view_if_needed()
    screenshot(page, "lab_heatmap")


def test_explorer_is_a_live_widget_that_redraws(ran_notebook):
    page = ran_notebook
    explorer_cell(page).scroll_into_view_if_needed()
    assert_widget_live(page)
    screenshot(page, "lab_explorer_before")
    assert_widget_redraws(page, "tensor")
    screenshot(page, "lab_explorer_after")


def test_rise_opens_on_the_title_slide(ran_notebook, lab):
    page = ran_notebook.context.new_page()
    page.goto(f"{lab}/rise/notebooks/{NOTEBOOK}?token={TOKEN}")
    assert_first_slide(page, TITLE)
    screenshot(page, "rise_title_slide")
    slide = next_slide_with_image(page)
    assert_heatmap_visible(slide)
    screenshot(page, "rise_heatmap_slide")
    page.close()


# ----- the static decks and site, read offline from disk ----------------------------------------------

def test_static_deck_opens_offline(built, offline_page):
    page = offline_page
    page.goto((built / "slides" / NOTEBOOK.replace(".ipynb", ".slides.html")).as_uri())
    assert_first_slide(page, TITLE)
    screenshot(page, "deck_title_slide")
    slide = next_slide_with_image(page)
    assert_heatmap_visible(slide)
    screenshot(page, "deck_heatmap_slide")


def test_static_site_opens_offline(built, offline_page):
    page = offline_page
    page.goto((built / "site" / "index.html").as_uri())
    links = page.locator("ol.notebooks > li")
    expect(links).to_have_count(2)
    assert links.first.inner_text().startswith("00 ·") and TITLE in links.nth(1).inner_text()
    screenshot(page, "site_index")
    links.nth(1).locator("a").first.click()
    expect(page.locator("h1").first).to_contain_text(TITLE)
    assert_heatmap_visible(page)
    visible_output_images(page)[0].scroll_into_view_if_needed()
    screenshot(page, "site_heatmap")
    page.go_back()
    links.nth(1).locator(".deck a").click()
    assert_first_slide(page, TITLE)


def test_built_pages_load_nothing_from_the_network(built):
    pages = [*(built / "slides").glob("*.html"), *(built / "site").glob("*.html")]
    assert len(pages) == 4  # one deck, two pages, the index
    for page in pages:
        text = page.read_text(encoding="utf-8")
        loads = re.findall(r"<script[^>]*\ssrc=\"([^\"]+)|<link[^>]*\shref=\"([^\"]+)|import \w+ from '([^']+)'", text)
        remote = [url for group in loads for url in group if url.startswith(("http:", "https:", "//"))]
        assert not remote, f"{page.name} loads {remote}"
    assert (built / "lib" / "reveal.js" / "dist" / "reveal.js").is_file()


# ----- the checks are real: they fail when the thing they check is missing -----------------------------

def test_heatmap_check_fails_when_images_are_absent(built, offline_page):
    from nbconvert import HTMLExporter

    from tools.site import export, offline_config, offline_exporter

    nb = nbformat.read(ROOT / "notebooks" / NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if "image/png" not in o.get("data", {})]
    page_path = export(offline_exporter(HTMLExporter, offline_config(), template_name="lab"), nb,
                       ROOT / "notebooks" / NOTEBOOK, built / "site" / "without_images.html")
    offline_page.goto(page_path.as_uri())
    expect(offline_page.locator("h1").first).to_contain_text(TITLE)
    with pytest.raises(AssertionError, match="no heatmap"):
        assert_heatmap_visible(offline_page)


def test_widget_check_fails_on_a_static_page(built, offline_page):
    offline_page.goto((built / "site" / NOTEBOOK.replace(".ipynb", ".html")).as_uri())
    assert_heatmap_visible(offline_page)  # the explorer's first picture is there, but not as a live widget
    with pytest.raises(AssertionError, match="no live widget"):
        assert_widget_live(offline_page)


def test_widget_check_fails_without_the_widget_frontend(browser, lab, ran_notebook):
    """JupyterLab with the ipywidgets frontend (@jupyter-widgets/jupyterlab-manager) blocked: the explorer
    cannot render as a widget, and the check says so."""
    context = browser.new_context(viewport=VIEWPORT)
    context.route(WIDGET_MANAGER, lambda route: route.abort())
    page = context.new_page()
    try:
        open_notebook(page, lab, NOTEBOOK)
        run_all_cells(page)
        assert_heatmap_visible(page)
        with pytest.raises(AssertionError, match="no live widget"):
            assert_widget_live(page)
        fallback = page.locator(".jp-OutputArea-output").filter(has_text=re.compile(r"Loading widget|interactive\("))
        if fallback.count():  # what shows instead of the explorer, for the screenshot
            fallback.first.scroll_into_view_if_needed()
        screenshot(page, "lab_without_widget_frontend")
    finally:
        context.close()
