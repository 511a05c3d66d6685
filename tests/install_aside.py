"""Colab's older packages, installed into a folder of their own that a test puts first on the path."""

import os
import subprocess
import sys
from pathlib import Path

import pytest


def install_aside(target: Path, packages: list[str], what: str) -> Path:
    """pip-install `packages` (without dependencies) into `target`; skip the test (fail it on CI) offline."""
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check",
         "--target", str(target), *packages],
        capture_output=True, text=True, timeout=300,
    )
    if install.returncode != 0:
        message = f"could not install {what} (is the package index reachable?): {install.stderr[-500:]}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return target
