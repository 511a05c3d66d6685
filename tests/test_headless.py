"""tools/headless.py: which notebooks it runs, the race notebook it writes, and how it tells a hang from a failure.

The runs themselves (plain `jupyter nbconvert --execute`, minutes) are `make headless-check`, which CI runs
after `make test`.
"""

import subprocess

import nbformat
import pytest

from tools import headless
from tools.notebooks import notebook_paths


def test_it_runs_exactly_the_notebooks_that_call_explore():
    names = [path.name[:2] for path in headless.explorer_notebooks()]
    assert names == ["01", "02", "03", "04", "05", "06", "07", "08"]  # 00 and 09 have no explorer
    assert len(notebook_paths()) == 10


def test_the_race_notebook_opens_one_explorer_per_cell(tmp_path):
    nb = nbformat.read(headless.race_notebook(tmp_path, cells=7), as_version=4)
    assert len(nb.cells) == 8 and "from helpers.explorers import explore" in nb.cells[0].source
    assert all(cell.source.startswith("shown = explore(echo") for cell in nb.cells[1:])


def fake_run(outcome):
    def run(command, **kwargs):
        assert command[1:6] == ["-m", "jupyter", "nbconvert", "--to", "notebook"] and "--execute" in command
        if outcome == "timeout":
            raise subprocess.TimeoutExpired(command, kwargs["timeout"])
        return subprocess.CompletedProcess(command, outcome, "", "CellExecutionError: boom")

    return run


@pytest.mark.parametrize("outcome, verdict", [(0, "ok"), (1, "failed"), ("timeout", "hung")])
def test_run_once_tells_a_hang_from_a_failure(monkeypatch, tmp_path, outcome, verdict):
    monkeypatch.setattr(headless.subprocess, "run", fake_run(outcome))
    assert headless.run_once(tmp_path / "x.ipynb", tmp_path, timeout_s=5)[0] == verdict


def test_check_counts_the_bad_runs_and_says_so(monkeypatch, tmp_path, capsys):
    outcomes = iter(["ok", "hung", "ok", "failed"])
    monkeypatch.setattr(headless, "run_once", lambda path, out, timeout: (next(outcomes), 1.0))
    paths = headless.explorer_notebooks(["01_bag_of_words.ipynb", "02_matmul_weighted_sum.ipynb"])
    assert headless.check(paths, runs=2, timeout_s=5, race_runs=0) == 2
    out = capsys.readouterr().out
    assert "01_bag_of_words.ipynb" in out and "2 run(s) hung (over 5 s) or failed" in out


@pytest.mark.parametrize("args", [["--runs", "0"], ["--timeout", "0"], ["--race-runs", "-1"]])
def test_bad_options_are_refused(args):
    with pytest.raises(SystemExit) as stop:
        headless.main(args)
    assert stop.value.code == 2
