# @title Course setup (run me first) { display-mode: "form" }
# The same in every notebook (`make stamp` writes it from tools/setup_cell.py). It finds the course's helpers/ from
# here upwards; on Colab it first clones the course (set COURSE_REPO_URL to clone a fork or a mirror).
import os
import pathlib
import shutil
import subprocess
import sys

REPO = "OWNER/NAME"  # `make stamp` writes helpers/course.py's REPO here
REPO_URL = os.environ.get("COURSE_REPO_URL", f"https://github.com/{REPO}")
CLONE, START, CLONED_NOW = pathlib.Path(REPO.split("/")[-1]), pathlib.Path.cwd(), False


def course_root():
    """The nearest folder, from here upwards, that holds the course's helpers/ package (None when none does)."""
    here = pathlib.Path.cwd()
    return next((p for p in (here, *here.parents) if (p / "helpers" / "__init__.py").is_file()), None)


try:  # only Colab has google.colab: there the course is cloned beside the notebook, once
    import google.colab  # noqa: F401
except ImportError:
    pass
else:
    if course_root() is None and not CLONE.exists():
        partial = CLONE.with_name(CLONE.name + ".partial")  # renamed once whole: a half-done clone never looks done
        shutil.rmtree(partial, ignore_errors=True)
        try:
            run = subprocess.run(["git", "clone", "-q", "--depth", "1", REPO_URL, partial], capture_output=True,
                                 text=True)
        except OSError:
            raise RuntimeError("git is not installed here, so the course cannot be cloned.") from None
        if run.returncode != 0 or not (partial / "helpers" / "__init__.py").is_file():
            shutil.rmtree(partial, ignore_errors=True)
            why = (run.stderr.strip().splitlines() or ["it has no helpers/ folder"])[-1].removeprefix("fatal: ")
            raise RuntimeError(f"Could not clone the course from {REPO_URL} ({why}): check the address and the "
                               "network.")
        partial.rename(CLONE)
        CLONED_NOW = True
    if course_root() is None:
        if not (CLONE / "helpers" / "__init__.py").is_file():
            raise RuntimeError(f"{CLONE}/ is here but is not a whole copy of the course: delete it and run this again.")
        os.chdir(CLONE / "notebooks")
COURSE_ROOT = course_root()
if COURSE_ROOT is None:
    raise RuntimeError("helpers/ not found: open this notebook from the course's notebooks/ folder, or in Colab.")
if str(COURSE_ROOT) not in sys.path:
    sys.path.insert(0, str(COURSE_ROOT))
from helpers.runtime import describe_device  # noqa: E402  (importable only now)

WHERE = os.path.relpath(COURSE_ROOT, START)
print(f"Course {'cloned into' if CLONED_NOW else 'found at'} {WHERE}; device: {describe_device()}")
