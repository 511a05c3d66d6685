"""Shared test set-up: make sure the corpus is here before anything runs; draw off-screen and close figures."""

import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import IPython.display  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from helpers.data import CORPUS_PATH, CorpusDownloadError, CorpusError, corpus_url, ensure_corpus  # noqa: E402

# Exit status of a session stopped because the corpus is missing (pytest's own "usage error").
NO_CORPUS_EXIT = pytest.ExitCode.USAGE_ERROR


def no_corpus_message(url: str) -> str:
    """The one message `make test` gives when the corpus is missing and cannot be downloaded."""
    return (
        f"Cannot run the tests: data/{CORPUS_PATH.name} is missing (or fails its SHA-256 check) "
        f"and could not be downloaded from {url}.\n"
        "Put a copy there as README.md explains under Troubleshooting (No internet), then run `make test` again."
    )


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Stop before anything runs, with one message, when the corpus is neither here nor downloadable (offline)."""
    if config.option.help or config.option.version:
        return None
    problem = corpus_problem(CORPUS_PATH, corpus_url())
    if problem:
        print(problem, file=sys.stderr)
        return NO_CORPUS_EXIT
    return None


def corpus_problem(path, url: str) -> str | None:
    """None when a verified corpus is (or could be put) at `path`; else the one message that stops the tests.

    A failed download gets the offline message; any other problem (a folder where the file should be, an
    unreadable file) is named in the corpus check's own words.
    """
    try:
        ensure_corpus(path, url=url, timeout=5)
    except CorpusDownloadError:
        return no_corpus_message(url)
    except CorpusError as err:
        return f"Cannot run the tests: {err}"
    return None


ROOT = Path(__file__).resolve().parent.parent


def copy_of_the_course(folder: Path) -> Path:
    """The course as a fresh clone would hold it, copied into `folder`: the files git tracks, and new files it
    does not ignore (so not .venv/, data/, node_modules/ or build/). Returns `folder`."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():  # a file deleted but not yet committed is still listed
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    return folder


CHROMIUM = Path("/usr/bin/chromium")  # Debian's headless Chromium, which the browser tests drive
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium, started once per test module (tests/test_browser*.py skip where it is missing)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def shown_figures(monkeypatch):
    """The matplotlib figures handed to IPython's display() during the test, in order, kept instead of shown.

    Explorers draw on figures pyplot never sees, so plt.gcf() cannot find them: tests look here.
    """
    figures = []

    def display(*objs, **kwargs):
        figures.extend(obj for obj in objs if isinstance(obj, Figure))

    monkeypatch.setattr(IPython.display, "display", display)
    return figures


@pytest.fixture
def live_explorers(monkeypatch):
    """Explorers behave as under a frontend that renders widgets (tests have no kernel, so they would not)."""
    monkeypatch.setenv("COURSE_EXPLORERS", "live")


@pytest.fixture
def refused(capsys, shown_figures):
    """Check that an explorer refused bad input the course's way: None, one printed sentence, no picture."""

    def check(result, words: str) -> None:
        out = capsys.readouterr().out.strip()
        assert result is None, f"the explorer drew something: {result!r}"
        assert words in out, out
        assert len(out.splitlines()) == 1 and out.endswith(".") and "Traceback" not in out, out
        assert len(out) < 300, f"the refusal is {len(out)} characters long: {out[:120]}…"
        assert shown_figures == [] and plt.get_fignums() == [], "nothing may be half-drawn"

    return check
