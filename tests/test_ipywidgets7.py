"""The explorers under Colab's ipywidgets 7.7.1, as well as under the 8.x that `make setup` installs.

Colab has long shipped ipywidgets 7.7.1 and must not be made to reinstall it, so the explorers have
to work with both. This module reruns every explorer test with ipywidgets 7.7.1 (installed once into
.aside/ by `make setup`) first on the path.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.install_aside import aside

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # a fresh Python with Colab's ipywidgets


def run_with(widgets: Path, *args: str) -> subprocess.CompletedProcess:
    """Run this Python with `widgets` first on the path, from the repository's root."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(widgets), str(ROOT)])}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def test_the_explorer_tests_pass_under_ipywidgets_7():
    widgets7 = aside("ipywidgets-7.7.1")
    version = run_with(widgets7, "-c", "import ipywidgets; print(ipywidgets.__version__)")
    assert version.stdout.strip() == "7.7.1", version.stderr
    tests = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_explorers*.py"))
    run = run_with(widgets7, "-m", "pytest", "-q", "-m", "not slow", "-W", "ignore::DeprecationWarning", *tests)
    assert run.returncode == 0, run.stdout[-3000:]
    assert " passed" in run.stdout.splitlines()[-1]
