"""The README's two generated tables, made from each notebook's own metadata (`course` in the notebook's metadata).

    "course": {"name": "bigram baseline", "summary": "what you will see", "bench_target_s": 20}

`make stamp` writes the notebook table (name, summary, Colab badge); `make bench` writes the timing table (the
measured seconds against `bench_target_s`, DEFAULT_TARGET_S when a notebook does not set it, and when and on what
each notebook was measured). Each table sits between a pair of markers in README.md, and tests/test_notebooks.py
fails when either drifts from what its command would write.
"""

import os
import re
from datetime import date
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
SLOW_NOTEBOOK_S = 20  # seconds: a notebook whose bench target is longer runs under `make test-slow`, not `make test`
# (07, 09, 10 and 11 today: with 07 and 09 in it, `make test` took 66 to 100 s here, without them 45 to 66 s)
DEFAULT_TARGET_S = 15  # seconds a notebook may take under nbval on a 2-core machine, unless its metadata says
NOTEBOOK_TABLE = "notebook table"  # the markers' names: <!-- notebook table: ... --> and <!-- end of notebook table -->
TIMING_TABLE = "timing table"


class MissingMetadata(ValueError):
    """A notebook lacks what the README's tables are made from."""


def course_metadata(nb, name: str) -> dict:
    """The notebook's `course` metadata, checked: a non-empty name and summary, and a positive target if set."""
    meta = nb.metadata.get("course", {})
    missing = [key for key in ("name", "summary") if not isinstance(meta.get(key), str) or not meta[key].strip()]
    if missing:
        raise MissingMetadata(f"notebooks/{name} has no {' or '.join(missing)} in its metadata: add "
                              '"course": {"name": "...", "summary": "..."} (the README\'s notebook table is made '
                              "from them), then run `make stamp`.")
    target = meta.get("bench_target_s", DEFAULT_TARGET_S)
    if isinstance(target, bool) or not isinstance(target, int | float) or target <= 0:
        raise MissingMetadata(f"notebooks/{name}: course.bench_target_s must be a positive number of seconds, not "
                              f"{target!r}.")
    return {**meta, "bench_target_s": target}


def is_slow(nb, name: str) -> bool:
    """Whether notebook `name` is one of the long trainings (a bench target above SLOW_NOTEBOOK_S): the root
    conftest.py marks its nbval cells slow, so that `make test-slow` runs it and `make test` stays quick."""
    return course_metadata(nb, name)["bench_target_s"] > SLOW_NOTEBOOK_S


def badge(name: str) -> str:
    """An Open-in-Colab badge for notebook `name`, in markdown."""
    from helpers.course import colab_url  # here, not at the top: importing helpers imports torch (1.5 s), which
    # the root conftest.py, reading every notebook's bench target at collection, does not need

    return f"[![Open In Colab]({BADGE_IMAGE})]({colab_url(name)})"


def notebook_table(notebooks) -> str:
    """The README's notebook table, from (file name, notebook) pairs in order."""
    rows = ["| # | notebook | what you will see | open |", "|---|---|---|---|"]
    for name, nb in notebooks:
        meta = course_metadata(nb, name)
        rows.append(f"| {name[:2]} | [{meta['name']}](notebooks/{name}) | {meta['summary']} | {badge(name)} |")
    return "\n".join(rows)


def timing_table(notebooks, measured: dict[str, tuple[float, str]]) -> str:
    """The README's timing table, from (file name, notebook) pairs in order and, for each, (seconds, measured on)."""
    rows = ["| notebook | seconds | target | measured on |", "|---|---:|---:|---|"]
    for name, nb in notebooks:
        meta, (seconds, measured_on) = course_metadata(nb, name), measured[name]
        rows.append(f"| {name[:2]} {meta['name']} | {seconds:.1f} | {meta['bench_target_s']:g} | {measured_on} |")
    return "\n".join(rows)


def this_machine(today: date | None = None) -> str:
    """When and on what `make bench` measures, for its table: e.g. "1 Dec 2026, 2 CPU cores, 1 thread a kernel, no GPU".

    The threads are PyTorch's per kernel: OMP_NUM_THREADS as `make bench` was given it, else the 1 that the root
    conftest.py sets for every kernel the tests start.
    """
    import torch  # here, not at the top: the root conftest.py imports this module and needs no torch

    today = today or date.today()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cpu = f" ({name})" if (name := cpu_name()) else ""
    threads = os.environ.get("OMP_NUM_THREADS", "1")
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return (f"{today.day} {today:%b %Y}, {cores} CPU cores{cpu}, {threads} thread{'s' * (threads != '1')} a kernel, "
            f"{gpu}")


def cpu_name(cpuinfo: str | None = None) -> str:
    """The CPU's model as Linux names it, trimmed ("AMD EPYC", "Intel Xeon Platinum 8488C"); "" where it is not told
    (other systems). Machines of the same size differ: the CPU decides the timings, and the rounding."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
    found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    if not found:
        return ""
    name = re.sub(r"\((R|TM)\)|\bCPU\b|@.*|\d+-Core Processor", " ", found.group(1))
    return " ".join(name.split())


def block(marker: str) -> re.Pattern:
    """The table between `<!-- {marker}: ... -->` and `<!-- end of {marker} -->`, the markers kept."""
    return re.compile(rf"(<!-- {marker}: [^\n]*-->\n)(.*?)(\n<!-- end of {marker} -->)", re.DOTALL)


def read_block(text: str, marker: str) -> str:
    """The current text of the README's table named `marker`."""
    found = block(marker).search(text)
    if found is None:
        raise MissingMetadata(f"README.md has no <!-- {marker}: ... --> and <!-- end of {marker} --> markers: put "
                              "them back around the table.")
    return found[2]


def replace_block(text: str, marker: str, table: str) -> str:
    """`text` with the table named `marker` replaced by `table`."""
    read_block(text, marker)
    return block(marker).sub(lambda m: m[1] + table + m[3], text, count=1)


def recorded_rows(text: str) -> dict[str, tuple[float, str]]:
    """What the README's timing table records, by notebook number ("00"): (seconds, measured on)."""
    rows = re.findall(r"^\| (\d\d) [^|]*\| ([0-9.]+) \| [^|]*\| ([^|\n]*?) \|$", read_block(text, TIMING_TABLE),
                      re.MULTILINE)
    return {number: (float(seconds), measured_on) for number, seconds, measured_on in rows}


def write(text: str, readme: Path | None = None) -> bool:
    """Write `text` into `readme` (README.md by default) if it differs; return whether it did."""
    readme = readme or README
    changed = readme.read_text(encoding="utf-8") != text
    if changed:
        readme.write_text(text, encoding="utf-8")
    return changed
