"""tools/headless.py: which notebooks it runs, the race notebook it writes, and how it tells hung, slow and failed.

The runs themselves (plain `jupyter nbconvert --execute`, minutes) are `make headless-check`, which CI runs
after `make test`.
"""

import inspect
import os
import subprocess

import nbformat
import pytest

from helpers.explorers import notebook_modules
from tools import headless
from tools.notebooks import notebook_paths


def test_it_runs_exactly_the_notebooks_whose_module_declares_an_explorer():
    declared = [key[2:] for key, module in notebook_modules().items()
                if any(hasattr(fn, "refuses") and fn.__module__ == module.__name__
                       for _, fn in inspect.getmembers(module, inspect.isfunction))]
    names = [path.name[:2] for path in headless.explorer_notebooks()]
    assert names == declared, (
        f"notebooks with an explore(...) call: {names}; modules declaring an explorer: {declared}. Each explorer a "
        "notebook opens is declared with @explorer(refuses=[...]) in its helpers/explorers/nbNN.py, and each "
        "declared one is opened by its notebook")
    assert "01" in names and "00" not in names  # 00 has no explorer
    assert len(notebook_paths()) >= 10


def test_the_race_notebook_opens_one_explorer_per_cell(tmp_path):
    nb = nbformat.read(headless.race_notebook(tmp_path, cells=7), as_version=4)
    assert len(nb.cells) == 8 and "from helpers.explorers import explore" in nb.cells[0].source
    assert all(cell.source.startswith("shown = explore(echo") for cell in nb.cells[1:])


class FakeRun:
    """Stands in for subprocess.Popen: finishes with `outcome` (an exit status) or never finishes ('timeout')."""

    def __init__(self, outcome):
        self.outcome, self.pid, self.calls = outcome, 12345, 0

    def __call__(self, command, **kwargs):
        assert command[1:6] == ["-m", "jupyter", "nbconvert", "--to", "notebook"] and "--execute" in command
        assert kwargs["env"]["OMP_NUM_THREADS"]
        return self

    def communicate(self, timeout=None):
        self.calls += 1
        if self.outcome == "timeout" and self.calls == 1:
            raise subprocess.TimeoutExpired("nbconvert", timeout)
        self.returncode = 0 if self.outcome == "timeout" else self.outcome
        return "", "CellExecutionError: boom"


@pytest.mark.parametrize("outcome, cpu_used, verdict", [
    (0, 0, "ok"), (1, 0, "failed"),
    ("timeout", 0.0, "hung"),  # still running at the timeout and idle: a deadlock
    ("timeout", 2.5, "slow"),  # still running and computing: a crowded machine
])
def test_run_once_tells_a_hang_from_a_slow_run_and_a_failure(monkeypatch, tmp_path, outcome, cpu_used, verdict):
    monkeypatch.setattr(headless.subprocess, "Popen", FakeRun(outcome))
    readings = iter([10.0, 10.0 + cpu_used])
    monkeypatch.setattr(headless, "tree_cpu_seconds", lambda pid: next(readings))
    monkeypatch.setattr(headless, "stop_tree", lambda pid: None)
    monkeypatch.setattr(headless.time, "sleep", lambda seconds: None)
    assert headless.run_once(tmp_path / "x.ipynb", tmp_path, timeout_s=5)[0] == verdict


def test_check_counts_the_bad_runs_and_says_so(monkeypatch, tmp_path, capsys):
    outcomes = iter(["ok", "hung", "slow", "failed"])
    monkeypatch.setattr(headless, "run_once", lambda path, out, timeout: (next(outcomes), 1.0))
    paths = headless.explorer_notebooks(["01_bag_of_words.ipynb", "02_matmul_weighted_sum.ipynb"])
    assert headless.check(paths, runs=2, timeout_s=5, race_runs=0) == 3
    out = capsys.readouterr().out
    assert "01_bag_of_words.ipynb" in out and "3 run(s) hung, ran over 5 s or failed" in out


def test_check_runs_at_once_the_longest_notebooks_first_and_prints_them_in_order(monkeypatch, capsys):
    started = []

    def run_once(path, out, timeout):
        started.append(path.name[:2])
        return ("failed" if path.name.startswith("07") else "ok"), 1.0

    monkeypatch.setattr(headless, "run_once", run_once)
    paths = headless.explorer_notebooks(["01_bag_of_words.ipynb", "07_scaling.ipynb"])
    assert headless.check(paths, runs=3, timeout_s=5, race_runs=0, jobs=2) == 3
    assert started.index("01") >= 2  # both workers took a run of 07 first: its bench target (25 s) is above 01's
    out = capsys.readouterr().out
    assert out.index("01_bag_of_words.ipynb") < out.index("07_scaling.ipynb")


@pytest.mark.parametrize("args", [["--runs", "0"], ["--timeout", "0"], ["--race-runs", "-1"], ["--jobs", "0"]])
def test_bad_options_are_refused(args):
    with pytest.raises(SystemExit) as stop:
        headless.main(args)
    assert stop.value.code == 2


def test_tree_cpu_seconds_and_stop_tree_work_on_real_processes():
    assert headless.tree_cpu_seconds(os.getpid()) > 0
    child = subprocess.Popen(["sleep", "30"])
    headless.stop_tree(child.pid)
    assert child.wait(timeout=10) != 0  # killed, not finished
