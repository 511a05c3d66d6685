"""The offline first run: a fresh copy without the corpus and without a network stops at once, with one message."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers.data import CORPUS_URL_ENV
from tests.conftest import NO_CORPUS_EXIT, copy_of_the_course, corpus_problem, no_corpus_message

# Nothing listens on the discard port of this machine, so a download from here fails at once, as offline.
UNREACHABLE = "http://127.0.0.1:9/tinyshakespeare.txt"


@pytest.mark.slow  # a fresh copy of the course
def test_make_test_without_corpus_or_network_stops_with_one_message(tmp_path):
    fresh = tmp_path / "fresh-clone"
    copy_of_the_course(fresh)
    start = time.monotonic()
    run = subprocess.run(  # `make test` itself, with this environment's Python (-o: the set-up is done)
        ["make", "--silent", "--no-print-directory", "-o", ".venv/.installed", "-o", ".aside/.installed", "test",
         f"BIN={Path(sys.executable).parent}"],
        cwd=fresh,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}, CORPUS_URL_ENV: UNREACHABLE},
        capture_output=True,
        text=True,
        timeout=120,
    )
    seconds = time.monotonic() - start
    output = run.stdout + run.stderr
    message, failed = output.strip().rsplit("\n", 1)  # pytest's one message, then make's report of its exit status
    assert message == no_corpus_message(UNREACHABLE), output
    assert run.returncode != 0 and failed.endswith(f"test] Error {int(NO_CORPUS_EXIT)}"), output
    assert "data/tinyshakespeare.txt" in output and "Troubleshooting" in output
    assert "Traceback" not in output
    assert not (fresh / "data" / "tinyshakespeare.txt").exists()
    print(f"stopped after {seconds:.1f} s")  # the target is "within seconds"; not asserted


def test_a_corpus_problem_other_than_a_failed_download_is_named_as_itself(tmp_path):
    where = tmp_path / "tinyshakespeare.txt"
    where.mkdir()  # a folder where the file should be: downloading would not help
    problem = corpus_problem(where, UNREACHABLE)
    assert problem.startswith("Cannot run the tests: ") and "is a folder, not the corpus file" in problem, problem
    assert problem != no_corpus_message(UNREACHABLE)


def test_a_failed_download_gets_the_offline_message(tmp_path):
    assert corpus_problem(tmp_path / "tinyshakespeare.txt", UNREACHABLE) == no_corpus_message(UNREACHABLE)
