"""The code and the notebooks stay clean under ruff (the same check as `make lint`)."""

import subprocess
import sys

from tools.notebooks import ROOT


def test_ruff_finds_nothing():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
