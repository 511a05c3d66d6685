"""Run every notebook top to bottom on a CUDA GPU and print one row per notebook.

    python -m tools.gpu_check [--out DIR] [--timeout S] [--require-gpu] [notebooks...]
    python -m tools.gpu_check --install-wheels WHEEL_DIR SITE_DIR

Each notebook runs as `make execute` runs it (tools.notebooks.execute), but on a hidden copy beside it,
in a fresh kernel with COURSE_DEVICE=cuda so that the helpers' pick_device() must use the GPU.
The committed notebooks are never written to.
The result is a Markdown table (notebook, pass/FAIL, seconds, device), printed and, with --out,
also written as gpu-check.md and gpu-check.json, beside a copy of each notebook that passed, with the
outputs of its GPU run (so that a run on another machine brings back its figures and timings).

Exit status: 0 when every notebook passed, or when there is no CUDA GPU (every notebook is listed
as skipped; nothing was run); 1 when a notebook failed; 3 when there is no GPU and --require-gpu
was given; 130 when Ctrl-C or SIGTERM stopped the run (the table still comes, with the notebooks
after the one it hit listed as skipped). --install-wheels is for `make gpu-check` on a machine without
internet: it installs, from wheels `make gpu-wheels` prepared, only the packages this Python lacks (see
README.md).
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = Path(__file__).with_name("gpu-requirements.txt")
NO_GPU = "No CUDA GPU found ({why}): nothing was run."


@dataclass
class Result:
    """How one notebook fared: `passed` is None when it was not run."""

    notebook: str
    passed: bool | None
    seconds: float | None = None
    device: str = "-"
    error: str = ""

    @property
    def verdict(self) -> str:
        """pass, skipped, or FAIL followed by the first error line."""
        if self.passed is None:
            return "skipped"
        return "pass" if self.passed else f"FAIL: {self.error}"


# --- finding the GPU ---------------------------------------------------------------------------


def cuda_device_name() -> str | None:
    """The first CUDA GPU's name, or None when torch sees no CUDA GPU (or is not installed)."""
    try:
        import torch
    except ImportError:
        return None
    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else None


def device_name(device: str) -> str:
    """A readable name for `device` ("cuda", "mps" or "cpu") on this machine."""
    if device == "cuda":
        return cuda_device_name() or "cuda (not available)"
    return f"{device} ({platform.machine() or 'unknown machine'})"


def environment() -> dict:
    """Date (UTC), Python, torch and CUDA versions, and the float32 matmul precision, for the report."""
    info = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
    }
    try:
        import torch
    except ImportError:
        return {**info, "torch": "not installed"}
    return {
        **info,
        "torch": torch.__version__,
        "cuda": torch.version.cuda or "none",
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda_matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
    }


# --- running one notebook ----------------------------------------------------------------------


def first_error_line(exc: Exception) -> str:
    """One line naming what went wrong: the cell's exception name and value, or the runner's error."""
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    text = f"{ename}: {evalue}" if ename else f"{type(exc).__name__}: {exc}"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


@contextmanager
def scratch_copy(path: Path):
    """A hidden copy of the notebook beside it (so it runs in the same folder), removed afterwards."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=".gpu-check-", suffix=".ipynb.part")
    os.close(fd)
    try:
        shutil.copyfile(path, name)
        yield Path(name)
    finally:
        os.remove(name)


@contextmanager
def course_device(device: str):
    """Set COURSE_DEVICE (which kernels started meanwhile inherit) and restore it afterwards."""
    from helpers.runtime import DEVICE_ENV

    before = os.environ.get(DEVICE_ENV)
    os.environ[DEVICE_ENV] = device
    try:
        yield
    finally:
        if before is None:
            del os.environ[DEVICE_ENV]
        else:
            os.environ[DEVICE_ENV] = before


def run_notebook(path: Path, device: str = "cuda", timeout: int = 900, keep: Path | None = None) -> Result:
    """Run the notebook as `make execute` would, with COURSE_DEVICE=`device`, on a copy: never write it back.

    `timeout` is per cell, in seconds (nbclient's notion). Any failure, a cell's exception or a dead
    kernel, becomes a FAIL row with the first error line: one bad notebook does not stop the others. A signal
    does (Ctrl-C or SIGTERM: tools.notebooks.Interrupted passes through; see run_in_turn). With `keep` (a
    folder), a run that passed leaves its executed copy there, under the notebook's name.
    """
    from tools.notebooks import execute

    start = time.perf_counter()
    try:
        with scratch_copy(path) as copy, course_device(device):
            execute(copy, timeout)
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(copy, keep / path.name)
    except Exception as exc:  # noqa: BLE001  (report every kind of failure as a row)
        error = first_error_line(exc)
    else:
        error = ""
    seconds = time.perf_counter() - start
    return Result(path.name, passed=not error, seconds=seconds, device=device_name(device), error=error)


def run_in_turn(paths, device: str = "cuda", timeout: int = 900, keep: Path | None = None) -> tuple[list, bool]:
    """Run the notebooks one at a time, printing each verdict as it ends; return the results and whether a signal
    stopped them.

    Ctrl-C or SIGTERM (a time limit's) stops the whole run: the notebook it hit becomes a FAIL row that says so, and
    the ones after it are listed as skipped.
    """
    results = []
    for i, path in enumerate(paths):
        print(f"running {path.name} on {device} ...", flush=True)
        try:
            results.append(run_notebook(path, device, timeout, keep=keep))
        except KeyboardInterrupt as stop:
            reason = str(stop) or "stopped by Ctrl-C"
            results.append(Result(path.name, passed=False, device=device_name(device), error=reason))
            results += [Result(later.name, passed=None) for later in paths[i + 1 :]]
            print(f"  {reason}; the notebooks after it were not run", flush=True)
            return results, True
        print(f"  {results[-1].verdict} ({results[-1].seconds:.1f} s)", flush=True)
    return results, False


# --- reporting ---------------------------------------------------------------------------------


def markdown_table(results, env: dict) -> str:
    """The report: one line about the machine, then the results_table."""
    versions = ", ".join(f"{key} {value}" for key, value in env.items() if key != "date_utc")
    return f"GPU check, {env.get('date_utc', '')}: {versions}\n\n{results_table(results)}"


def results_table(results) -> str:
    """`| notebook | result | seconds | device |`, one row per Result (also `make colab-check`'s table)."""
    lines = ["| notebook | result | seconds | device |", "|---|---|---:|---|"]
    for r in results:
        seconds = "-" if r.seconds is None else f"{r.seconds:.1f}"
        lines.append(f"| {cell(r.notebook)} | {cell(r.verdict)} | {seconds} | {cell(r.device)} |")
    return "\n".join(lines)


def cell(text: str, limit: int = 160) -> str:
    """`text` made safe for one Markdown table cell: no pipes or line breaks, at most `limit` characters."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def write_report(out: Path, results, env: dict, table: str) -> None:
    """Write gpu-check.md and gpu-check.json into `out` (so a remote run can bring them back)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "gpu-check.md").write_text(table + "\n", encoding="utf-8")
    payload = {**env, "results": [{**asdict(r), "result": r.verdict} for r in results]}
    (out / "gpu-check.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


# --- offline installation from prepared wheels -------------------------------------------------


def requirement_names(path: Path = REQUIREMENTS) -> list[str]:
    """The package names in a pinned requirements file, without their versions or comments."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        spec = line.split("#", 1)[0].strip()
        if spec:
            names.append(spec.split("==", 1)[0].strip())
    return names


def wheels_to_install(report: dict) -> list[str]:
    """The local wheel files a `pip install --dry-run --report` report says are still needed."""
    urls = [item["download_info"]["url"] for item in report.get("install", [])]
    return [url.removeprefix("file://") for url in urls]


def install_missing_wheels(wheel_dir: Path, site_dir: Path) -> int:
    """Install into `site_dir`, from `wheel_dir` only, the packages this Python still lacks.

    pip resolves the names in gpu-requirements.txt against what is installed already, so a package
    the machine has (numpy, say, next to its torch) is kept rather than shadowed.
    """
    if not any(wheel_dir.glob("*.whl")):
        print(f"No wheels in {wheel_dir}/: run `make gpu-wheels` on a machine with internet first.")
        return 2
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    plan = subprocess.run(
        [*pip, "install", "--dry-run", "--quiet", "--no-index", "--find-links", str(wheel_dir),
         "--report", "-", *requirement_names()],
        capture_output=True, text=True,
    )  # fmt: skip
    if plan.returncode != 0:
        print(f"pip could not plan the install from {wheel_dir}/ (pip 22.2 or newer is needed):\n{plan.stderr}")
        return plan.returncode
    wheels = wheels_to_install(json.loads(plan.stdout))
    if not wheels:
        return 0
    print(f"Installing {len(wheels)} wheel(s) from {wheel_dir}/ into {site_dir}/")
    command = [*pip, "install", "--quiet", "--no-index", "--no-deps", "--upgrade", "--target", str(site_dir)]
    return subprocess.run([*command, *wheels]).returncode


# --- the command -------------------------------------------------------------------------------


def parse_args(argv):
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m tools.gpu_check", description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", help="notebook names to run (default: all)")
    parser.add_argument(
        "--out", type=Path, help="also write gpu-check.md, gpu-check.json and the notebooks that passed here"
    )
    parser.add_argument("--timeout", type=int, default=900, help="seconds each cell may take (default 900)")
    parser.add_argument("--require-gpu", action="store_true", help="exit 3 when no CUDA GPU is found")
    parser.add_argument("--install-wheels", nargs=2, type=Path, metavar=("WHEEL_DIR", "SITE_DIR"))
    parser.add_argument("--device", default="cuda", choices=("cuda", "mps", "cpu"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv) -> int:
    """Run the notebooks on the GPU (or list them as skipped when there is none) and report."""
    args = parse_args(argv)
    if args.install_wheels:
        return install_missing_wheels(*args.install_wheels)
    from tools.notebooks import notebook_paths

    paths, env = notebook_paths(args.notebooks), environment()
    runnable = args.device != "cuda" or cuda_device_name() is not None
    if runnable:
        results, stopped = run_in_turn(paths, args.device, args.timeout, keep=args.out)
    else:
        results, stopped = [Result(path.name, passed=None) for path in paths], False
    table = markdown_table(results, env)
    print(table)
    if not runnable:
        why = "torch is not installed" if env["torch"] == "not installed" else "torch.cuda.is_available() is False"
        print("\n" + NO_GPU.format(why=why))
    if args.out:
        write_report(args.out, results, env, table)
    if not runnable:
        return 3 if args.require_gpu else 0
    if stopped:
        return 130
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
