"""Every notebook survives a learner re-running cells: each code cell executed twice in a row, in one kernel."""

import pytest

from tools import twice
from tools.notebooks import notebook_paths
from tools.twice import run_each_cell_twice

NOTEBOOKS = notebook_paths()


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_cell_gives_the_same_result_when_run_twice(path):
    problem = run_each_cell_twice(path)
    assert problem is None, f"{path.name}: {problem}"


def test_ctrl_c_stops_the_rerun_tool_and_says_where(monkeypatch, capsys):
    ran = []

    def interrupted(path):
        ran.append(path.name)
        raise KeyboardInterrupt

    monkeypatch.setattr(twice, "run_each_cell_twice", interrupted)
    assert twice.main(["00", "01"]) == 130
    assert ran == ["00_bigram_baseline.ipynb"]
    stopped = "00_bigram_baseline.ipynb: stopped by Ctrl-C before its end, and nothing after it ran\n"
    assert capsys.readouterr().out == stopped
