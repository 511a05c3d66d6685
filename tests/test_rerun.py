"""Every notebook survives a learner re-running cells: each code cell executed twice in a row, in one kernel."""

import pytest

from tools.notebooks import notebook_paths
from tools.twice import run_each_cell_twice

NOTEBOOKS = notebook_paths()


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_cell_gives_the_same_result_when_run_twice(path):
    problem = run_each_cell_twice(path)
    assert problem is None, f"{path.name}: {problem}"
