"""The course in a real browser: JupyterLab, its explorers, live slides, the offline decks and the static site.

Headless Chromium from Debian's packages (/usr/bin/chromium), driven by Playwright for Python. The tests
start and stop everything themselves: a JupyterLab server on a free port over a scratch copy of the course
(the repository's notebooks are never written), and decks and pages built into a temporary folder.
Screenshots at 1280×720 land in build/screenshots/ (git-ignored).

The page checks (`assert_heatmap_visible`, `assert_widget_live`, ...) are plain functions; the last tests
prove they fail when the widget frontend is missing or a heatmap is absent.

All browser tests live in this one module, so pytest-xdist's `--dist loadscope` runs them on one worker.
"""

import base64
import io
import json
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
import numpy as np
import pytest
from PIL import Image

from tools.headless import explorer_notebooks
from tools.notebooks import ROOT, notebook_paths
from tools.slides import apply_slide_types

pytestmark = pytest.mark.slow  # a JupyterLab server and Chromium: minutes
CHROMIUM = Path("/usr/bin/chromium")  # as tests/conftest.py's browser fixture starts it
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
if not CHROMIUM.exists() and not IN_CI:
    pytest.skip(
        "headless Chromium is not installed (apt-get install chromium); CI installs it and runs these tests",
        allow_module_level=True,
    )

from playwright.sync_api import expect  # noqa: E402

NOTEBOOK = "01_bag_of_words.ipynb"  # it has a heatmap and an explorer with a text box
TITLE = "01 · The bag of words"
SCREENSHOTS = ROOT / "build" / "screenshots"
VIEWPORT = {"width": 1280, "height": 720}
# The room one explorer control (a text box or a slider, margins included) takes above the picture on a live slide
# (jupyterlab-slideshow, the deck's 16 px widget type; 32 px measured). A stored run shows no controls, so `make
# check-slides` puts a stand-in this tall per control above an explorer's output; the live slideshow test below
# checks that the real controls take no more.
EXPLORER_CONTROL_PX = 36
TOKEN = "browser-test-token"
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


# An explorer's live picture: the image inside its ipywidgets Output.
EXPLORER_IMAGE = ".widget-output img"
# The controls explorers use: text boxes, sliders (IntSlider, SelectionSlider) and checkboxes.
TEXT_BOX, SLIDER, CHECKBOX = ".widget-text input[type='text']", ".widget-slider .noUi-handle", ".widget-checkbox input"
CHANGES_PER_EXPLORER = 3  # control changes per explorer, taking its controls in turn
MIN_PICTURE_PX = (250, 150)  # width, height: the smallest explorer figure is about 360 × 330
MIN_INK = 0.02  # the share of a picture's pixels that are not near-white: a blank figure has none
REDRAW_TIMEOUT_S = 30  # a redraw takes about a second; a missing one is reported after this


def explorer_cells(page):
    """The notebook cells that hold a live explorer: controls and an Output widget in a VBox."""
    return page.locator(".jp-Cell").filter(has=page.locator(".widget-vbox .widget-output"))


def decode_picture(src: str) -> np.ndarray:
    """The RGBA pixels of a data:image/png URL, as an (H, W, 4) array."""
    assert src and src.startswith("data:image/png;base64,"), f"the picture is not an inline PNG: {str(src)[:40]}"
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGBA"))


def picture_problem(pixels: np.ndarray, before: np.ndarray | None) -> str | None:
    """None for a whole, new picture; else what is wrong with it (blank, see-through, too small, unchanged)."""
    height, width = pixels.shape[:2]
    if width < MIN_PICTURE_PX[0] or height < MIN_PICTURE_PX[1]:
        return f"it is only {width}×{height} px"
    see_through = float((pixels[..., 3] < 255).mean())
    if see_through:
        return f"{see_through:.0%} of it is transparent (a figure closed or cleared while it was drawn)"
    ink = float((pixels[..., :3].min(axis=-1) < 200).mean())
    if ink < MIN_INK:
        return f"it is blank ({ink:.1%} of its pixels are not white)"
    if before is not None and before.shape == pixels.shape and np.array_equal(before, pixels):
        return "it is the same picture as before the change"
    return None


def explorer_pictures(cell) -> list[str]:
    images = cell.locator(EXPLORER_IMAGE)
    return [images.nth(i).get_attribute("src") for i in range(images.count())]


def wait_for_new_picture(cell, before: str, timeout_s: float = REDRAW_TIMEOUT_S) -> str | None:
    """The explorer's picture once a new one has replaced `before` and stayed alone for a moment, or None."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pictures = explorer_pictures(cell)
        if pictures and pictures[-1] != before:
            cell.page.wait_for_timeout(500)  # let the redraw finish: a second picture would show up here
            settled = explorer_pictures(cell)
            return settled[0] if len(settled) == 1 else None
        cell.page.wait_for_timeout(100)
    return None


def rotated(text: str) -> str:
    """A new value for a text box that its explorer still accepts: the same items, the first moved to the end.

    Comma-separated numbers keep their count; a word keeps its characters (so 'dogs' stays an anagram of 'gods').
    """
    if "," in text:
        items = [item.strip() for item in text.split(",")]
        return ", ".join(items[1:] + items[:1])
    return text[1:] + text[:1]


def change_control(control, kind: str) -> str:
    """Change one explorer control as a user would; return what was done, for the failure message."""
    if kind == "text":
        value = control.input_value()
        control.fill(rotated(value))
        control.press("Enter")
        return f"typed {rotated(value)!r} over {value!r}"
    if kind == "slider":
        now, low = (float(control.get_attribute(name)) for name in ("aria-valuenow", "aria-valuemin"))
        key = "ArrowLeft" if now > low else "ArrowRight"
        control.focus()
        control.press(key)
        return f"pressed {key} on a slider at {control.get_attribute('aria-valuetext')}"
    control.click()
    return "clicked a checkbox"


def explorer_controls(cell) -> list[tuple]:
    """(locator, kind) for each control of the explorer in `cell`, in the order shown."""
    controls = []
    for selector, kind in ((TEXT_BOX, "text"), (SLIDER, "slider"), (CHECKBOX, "checkbox")):
        found = cell.locator(selector)
        controls += [(found.nth(i), kind) for i in range(found.count())]
    return controls


def check_explorer_redraws(cell, changes: int = CHANGES_PER_EXPLORER, before_each=None) -> tuple[int, list[str]]:
    """Change the explorer's controls in turn, `changes` times (calling `before_each()` first); decode each picture.

    Returns (pictures checked, one line per bad redraw). A good redraw is one picture, at least
    MIN_PICTURE_PX, fully opaque, not blank, and different from the picture before the change.
    """
    controls = explorer_controls(cell)
    assert controls, "the explorer shows no control"
    pictures = explorer_pictures(cell)
    assert len(pictures) == 1, f"the explorer shows {len(pictures)} pictures before any change, not 1"
    before_src, before = pictures[0], decode_picture(pictures[0])
    problems = []
    for step in range(changes):
        control, kind = controls[step % len(controls)]
        if before_each:
            before_each()
        done = change_control(control, kind)
        src = wait_for_new_picture(cell, before_src)
        if src is None:
            problems.append(f"change {step + 1} ({done}): no single new picture within {REDRAW_TIMEOUT_S} s "
                            f"(pictures now: {len(explorer_pictures(cell))})")
            before_src = (explorer_pictures(cell) or [before_src])[-1]
            continue
        pixels = decode_picture(src)
        problem = picture_problem(pixels, before)
        if problem:
            problems.append(f"change {step + 1} ({done}): {problem}")
        before_src, before = src, pixels
    return changes, problems


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
    """Run → Run All Cells, then wait until the run has finished (it started, and no [*] is left).

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
        if started and -1 not in counts:  # Run All queues every cell at once: no [*] left means done
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


def api(base: str, path: str, method: str = "GET"):
    """Call JupyterLab's REST API; return the decoded JSON answer (None when it has no body)."""
    request = urllib.request.Request(f"{base}{path}", method=method, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        body = answer.read()
    return json.loads(body) if body else None


def shut_down_kernels(base: str) -> None:
    """End every notebook session and its kernel (each holds a few hundred MB)."""
    for session in api(base, "/api/sessions"):
        api(base, f"/api/sessions/{session['id']}", method="DELETE")


def drawing_cell(page):
    return page.locator(".jp-Cell").filter(has_text="a learner's own cell").first


def is_running(cell) -> bool:
    return "[*]" in cell.locator(".jp-InputArea-prompt").first.inner_text()


def start_drawing(page) -> None:
    """Run DRAWING_CELL (Ctrl+Enter: run and stay) and wait until it is running."""
    cell = drawing_cell(page)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Control+Enter")
    deadline = time.monotonic() + 30
    while not is_running(cell) and time.monotonic() < deadline:
        page.wait_for_timeout(50)


def wait_until_idle(cell, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while is_running(cell) and time.monotonic() < deadline:
        cell.page.wait_for_timeout(100)


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


# Appended to each explorer notebook of the scratch course: a learner's own cell that draws with pyplot for
# DRAW_S seconds. The test starts it, then changes an explorer while it runs, as a learner would while a
# cell (or Run All) is still going. The explorer's redraw then runs as that cell ends, while matplotlib-inline's
# post-execute hook shows and closes every open pyplot figure: the moment that blanked redraws.
DRAW_S = 3
DRAWING_CELL = f"""# a learner's own cell: draw a few figures for {DRAW_S} seconds
import time

stop_at = time.monotonic() + {DRAW_S}
while time.monotonic() < stop_at:
    plt.imshow(torch.rand(8, 8).numpy(), cmap="Blues")
    plt.title("another cell's picture")
    plt.show()"""


def scratch_course(folder: Path) -> Path:
    """A copy of the course to run in: helpers/, every notebook with its slides stamped (from its stored outputs,
    as in the learner's copy) and then its outputs cleared (an explorer notebook also gets DRAWING_CELL at its
    end), and the corpus linked in (the repository's files are never written)."""
    shutil.copytree(ROOT / "helpers", folder / "helpers", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "notebooks").mkdir()
    with_explorers = {path.name for path in explorer_notebooks()}
    for path in notebook_paths():
        nb = nbformat.read(path, as_version=4)
        apply_slide_types(nb)  # before the outputs go: a picture cell starts a subslide, as in the learner's copy
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        if path.name in with_explorers:
            nb.cells.append(nbformat.v4.new_code_cell(DRAWING_CELL))
        nbformat.write(nb, folder / "notebooks" / path.name)
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
def course(tmp_path_factory) -> Path:
    """The scratch copy of the course that JupyterLab serves (see scratch_course)."""
    return scratch_course(tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="module")
def lab(course, tmp_path_factory):
    """A JupyterLab server, with its default settings, over the scratch course; yields its base URL."""
    root = course
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


# ----- JupyterLab and live slides -----------------------------------------------------------------------

def test_run_all_draws_a_heatmap(ran_notebook):
    page = ran_notebook
    assert_heatmap_visible(page)
    visible_output_images(page)[0].scroll_into_view_if_needed()
    screenshot(page, "lab_heatmap")


def run_command(page, label: str) -> None:
    """Run a JupyterLab command by its label from the command palette (Ctrl+Shift+C), as the README teaches.

    The label is typed only once the palette has opened: on a slow machine a page just loaded can let the first
    Ctrl+Shift+C pass unheard, and the label's letters would then reach the notebook as its one-key shortcuts.
    """
    page.keyboard.press("Escape")
    in_palette = "document.activeElement !== null && document.activeElement.matches('.lm-CommandPalette-input')"
    assert press_until(page, "Control+Shift+c", lambda: page.evaluate(in_palette)), "the command palette never opened"
    page.keyboard.type(label)
    expect(page.locator(".lm-CommandPalette-item.lm-mod-active", has_text=label).first).to_be_visible(timeout=10_000)
    page.keyboard.press("Enter")


def press_until(page, key: str, done, tries: int = 10) -> bool:
    """Press `key` until `done()` holds (one press once the page listens); return whether it came to hold."""
    for _ in range(tries):
        page.keyboard.press(key)
        page.wait_for_timeout(500)
        if done():
            return True
    return False


def stop_deck(page) -> None:
    """Leave the deck as the README says (Stop Deck from the palette), from the slide rather than a widget."""
    page.keyboard.press("Escape")
    # focus leaves the widget (a text box would take the palette's keys); a slide may hold no cell safe to click
    page.evaluate("document.activeElement && document.activeElement.blur()")
    run_command(page, "Stop Deck")
    expect(page.locator("body[data-jp-deck-mode='presenting']")).to_have_count(0, timeout=30_000)


def test_live_slideshow_opens_on_the_title_and_an_explorer_redraws_in_it(ran_notebook):
    """jupyterlab-slideshow presents the notebook itself, so its explorers stay live widgets."""
    page = ran_notebook
    page.locator(".jp-Cell").first.click()  # start from the first cell: the title slide
    run_command(page, "Start Deck")
    expect(page.locator("body[data-jp-deck-mode='presenting']")).to_be_attached(timeout=30_000)
    title = page.get_by_role("heading", name=TITLE).first
    expect(title).to_be_visible(timeout=30_000)
    screenshot(page, "slideshow_title_slide")
    # the keys the README's instructor section teaches (the deck may take a moment to listen for them)
    assert press_until(page, "Space", lambda: not title.is_visible()), "Space does not leave the title slide"
    assert press_until(page, "Shift+Space", title.is_visible), "Shift+Space does not go back to the title slide"
    cells = explorer_cells(page)
    for _ in range(200):  # Space walks every slide, subslide and fragment in reading order
        if cells.count() and cells.first.locator(TEXT_BOX).first.is_visible():
            break
        page.keyboard.press("Space")
        page.wait_for_timeout(150)
    assert cells.first.locator(TEXT_BOX).first.is_visible(), "no slide shows the explorer's controls"
    try:
        page.wait_for_timeout(500)  # the slide settles
        controls = cells.first.locator(".widget-vbox > :not(.widget-output)")
        top = controls.first.bounding_box()["y"]
        below = cells.first.locator(".widget-output").first.bounding_box()["y"]  # what the explorer shows
        picture = cells.first.locator(".widget-output img").first.bounding_box()
        n_controls = controls.count()
        checked, problems = check_explorer_redraws(cells.first, changes=3)
        screenshot(page, "slideshow_explorer")
    finally:
        stop_deck(page)  # the deck is a saved setting: left on, it would open every later notebook as slides
    room = (below - top) / n_controls
    print(f"live slide: {n_controls} controls, {room:.1f} px each; picture y = {picture['y']:.0f}…"
          f"{picture['y'] + picture['height']:.0f}")
    assert n_controls == 2, f"01's explorer has a word box and a compare box; the live slide shows {n_controls}"
    assert room <= EXPLORER_CONTROL_PX, (
        f"each of the explorer's {n_controls} controls takes {room:.0f} px above its picture on a live slide, more "
        f"than the {EXPLORER_CONTROL_PX} px make check-slides allows for it: raise EXPLORER_CONTROL_PX"
    )
    assert 0 <= picture["y"] and picture["y"] + picture["height"] <= VIEWPORT["height"], (
        f"the explorer's picture spans y = {picture['y']:.0f}…{picture['y'] + picture['height']:.0f} on its live "
        "slide, not wholly inside 0…720"
    )
    assert not problems, f"{len(problems)} of {checked} redraws in the slideshow went wrong:\n" + "\n".join(problems)


# ----- every explorer, in every notebook, redraws a whole new picture on every change -----------------

def explorer_count(name: str) -> int:
    """How many explore(...) calls the notebook's code cells make."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    return sum(len(re.findall(r"\bexplore\(", cell.source)) for cell in nb.cells if cell.cell_type == "code")


@pytest.mark.parametrize("name", [path.name for path in explorer_notebooks()])
def test_every_explorer_redraws_a_whole_new_picture_on_every_change(name, browser, lab):
    """Run All in JupyterLab (default settings); change each explorer's controls, each time while another cell draws.

    Every redrawn picture is decoded from the page: one picture, of plausible size, fully opaque, not
    blank, and different from the one before. All bad redraws of the notebook are listed, not just the first.
    """
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    checked, problems = 0, []
    try:
        open_notebook(page, lab, name)
        run_all_cells(page)
        cells = explorer_cells(page)
        assert cells.count() == explorer_count(name), (
            f"{name} calls explore() {explorer_count(name)} times but shows {cells.count()} live explorers"
        )
        for k in range(cells.count()):
            count, found = check_explorer_redraws(cells.nth(k), before_each=lambda: start_drawing(page))
            checked += count
            problems += [f"explorer {k + 1}, {problem}" for problem in found]
            wait_until_idle(drawing_cell(page))
        cells.last.scroll_into_view_if_needed()
        screenshot(page, f"explorer_{name.removesuffix('.ipynb')}")
    finally:
        context.close()
        shut_down_kernels(lab)
    print(f"{name}: {len(problems)} of {checked} redraws bad")
    assert not problems, f"{len(problems)} of {checked} redraws in {name} went wrong:\n" + "\n".join(problems)


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
    page.wait_for_load_state("load")  # every picture decoded: on a busy machine the heading comes well before them
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


def test_picture_check_fails_on_see_through_blank_tiny_or_unchanged_pictures():
    good = np.full((330, 364, 4), 255, np.uint8)
    good[40:300, 40:320, :3] = 30  # a dark panel on a white, opaque figure
    assert picture_problem(good, None) is None
    half_drawn = good.copy()
    half_drawn[:, 180:, 3] = 0
    assert "transparent" in picture_problem(half_drawn, None)
    assert "blank" in picture_problem(np.full((330, 364, 4), 255, np.uint8), None)
    assert "only 100×80 px" in picture_problem(good[:80, :100], None)
    assert "same picture" in picture_problem(good, good.copy())


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
