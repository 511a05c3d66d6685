"""The explorers under Colab's ipywidgets 7.7.1, as well as under the 8.x that `make setup` installs.

Colab has long shipped ipywidgets 7.7.1 and must not be made to reinstall it, so the explorers have
to work with both. This module installs 7.7.1 into a temporary folder and reruns every explorer test
with that folder first on the path.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.install_aside import install_aside

ROOT = Path(__file__).resolve().parent.parent
COLAB_WIDGETS = ["ipywidgets==7.7.1", "widgetsnbextension==3.6.*", "jupyterlab_widgets==1.1.*", "ipython_genutils"]


@pytest.fixture(scope="module")
def widgets7(tmp_path_factory) -> Path:
    """A folder holding ipywidgets 7.7.1 (and what it needs beyond our environment)."""
    return install_aside(tmp_path_factory.mktemp("ipywidgets7"), COLAB_WIDGETS, "ipywidgets 7.7.1")


def run_with(widgets: Path, *args: str) -> subprocess.CompletedProcess:
    """Run this Python with `widgets` first on the path, from the repository's root."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(widgets), str(ROOT)])}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_the_explorer_tests_pass_under_ipywidgets_7(widgets7):
    version = run_with(widgets7, "-c", "import ipywidgets; print(ipywidgets.__version__)")
    assert version.stdout.strip() == "7.7.1", version.stderr
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_explorers_*.py"))
    run = run_with(widgets7, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", "-o", "addopts=",
                   "-W", "ignore::DeprecationWarning", *tests)
    assert run.returncode == 0, run.stdout[-3000:]
    assert " passed" in run.stdout.splitlines()[-1]
