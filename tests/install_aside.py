"""Colab's older packages, installed once into .aside/ (git-ignored), for the tests that put them first on the path.

    python -m tests.install_aside      # what `make setup` runs: install every set that is not there yet

A set is installed without dependencies into .aside/<name>-<hash of its list>/, through a temporary folder
renamed into place when pip is done, so a half-done install is never used and a changed list installs afresh.
A test that needs a set installs it on first use if `make setup` has not (skipped offline, failed on CI).
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASIDE = ROOT / ".aside"
SETS = {
    "ipywidgets-7.7.1": ["ipywidgets==7.7.1", "widgetsnbextension==3.6.*", "jupyterlab_widgets==1.1.*",
                         "ipython_genutils"],
    "ipython-7.34": ["ipython==7.34.0", "backcall", "decorator", "pickleshare"],
}


def folder_for(name: str) -> Path:
    """Where set `name` lives: its name and a hash of its package list, so a changed list gets a new folder."""
    digest = hashlib.sha256("\n".join(SETS[name]).encode()).hexdigest()[:10]
    return ASIDE / f"{name}-{digest}"


def install(name: str) -> Path:
    """The folder holding set `name`, installed now unless it already is; raises RuntimeError when pip fails."""
    target = folder_for(name)
    if target.is_dir():
        return target
    ASIDE.mkdir(exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f"{name}.", suffix=".partial", dir=ASIDE))
    run = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--disable-pip-version-check",
         "--target", str(partial), *SETS[name]],
        capture_output=True, text=True, timeout=300,
    )
    if run.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        raise RuntimeError(f"could not install {name} into .aside/ (is the package index reachable?): "
                           f"{run.stderr.strip()[-500:]}")
    try:
        partial.rename(target)
    except OSError:  # another test process installed it meanwhile: keep theirs
        shutil.rmtree(partial, ignore_errors=True)
    return target


def aside(name: str) -> Path:
    """For a test: the folder of set `name`, installing it if needed; skips the test offline (fails it on CI)."""
    import pytest

    try:
        return install(name)
    except RuntimeError as err:
        if os.environ.get("CI"):
            pytest.fail(str(err))
        pytest.skip(str(err))


if __name__ == "__main__":
    for name in SETS:
        print(f".aside/: {name} ready in {install(name).name}")
