"""Set-up for every pytest run, notebooks included (tests/conftest.py holds the rest).

One PyTorch thread per process: the suite runs two notebook kernels at once on two cores
(pytest-xdist), and PyTorch's threads fighting over the cores made a training cell ten times
slower. Kernels started by nbval inherit this.

One of the notebooks that train longest (its `course.bench_target_s` above tools.readme.SLOW_NOTEBOOK_S) is marked slow,
so that `make test` stays near a minute, and `make test-slow` re-executes it (CI runs both).
"""

import os
from functools import cache
from pathlib import Path

import pytest

os.environ.setdefault("OMP_NUM_THREADS", "1")


@cache
def is_slow_notebook(path: Path) -> bool:
    """Whether the notebook at `path` is one of the long training runs (tools.readme.is_slow)."""
    import nbformat

    from tools.readme import is_slow

    return is_slow(nbformat.read(path, as_version=4), path.name)


def pytest_collection_modifyitems(config, items):
    from tools.readme import MissingMetadata

    for item in items:
        try:
            slow = item.path.suffix == ".ipynb" and is_slow_notebook(item.path)
        except MissingMetadata:  # tests/test_notebooks.py fails on it with the same sentence; the run goes on
            slow = False
        if slow:
            item.add_marker(pytest.mark.slow)
