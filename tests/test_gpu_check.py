"""`make gpu-check`: the runner, its table, its no-GPU answer and the offline-wheel plumbing."""

import json
import signal
import subprocess
import sys
import time

import nbformat
import pytest

from tools import gpu_check, notebooks
from tools.gpu_check import Result, markdown_table, requirement_names, run_notebook, wheels_to_install
from tools.notebooks import ROOT, Interrupted, notebook_paths

ENV = {"date_utc": "2030-01-01 00:00 UTC", "torch": "9.9", "cuda": "12.8"}


@pytest.fixture
def no_gpu(monkeypatch):
    """Make the check see no CUDA GPU, whatever machine the tests run on."""
    monkeypatch.setattr(gpu_check, "cuda_device_name", lambda: None)


def tiny_notebook(folder, name, source):
    """Write a one-cell notebook and return its path."""
    path = folder / name
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)]), path)
    return path


def test_without_gpu_every_notebook_is_listed_and_nothing_runs(no_gpu, capsys):
    assert gpu_check.main([]) == 0
    out = capsys.readouterr().out
    for path in notebook_paths():
        assert f"| {path.name} | skipped | - | - |" in out
    assert "No CUDA GPU found (torch.cuda.is_available() is False): nothing was run." in out


def test_without_gpu_require_gpu_fails(no_gpu, capsys):
    assert gpu_check.main(["--require-gpu"]) == 3


def test_report_files_are_written(no_gpu, tmp_path, capsys):
    gpu_check.main(["--out", str(tmp_path), notebook_paths()[0].name])
    report = json.loads((tmp_path / "gpu-check.json").read_text())
    assert [r["result"] for r in report["results"]] == ["skipped"]
    assert "| notebook | result | seconds | device |" in (tmp_path / "gpu-check.md").read_text()


def test_table_renders_pass_fail_and_skipped_rows():
    results = [
        Result("00_a.ipynb", passed=True, seconds=12.34, device="NVIDIA H200"),
        Result("01_b.ipynb", passed=False, seconds=3.0, device="NVIDIA H200", error="AssertionError: a | b"),
        Result("02_c.ipynb", passed=None),
    ]
    table = markdown_table(results, ENV)
    assert table.startswith("GPU check, 2030-01-01 00:00 UTC: torch 9.9, cuda 12.8")
    assert "| 00_a.ipynb | pass | 12.3 | NVIDIA H200 |" in table
    assert "| 01_b.ipynb | FAIL: AssertionError: a \\| b | 3.0 | NVIDIA H200 |" in table
    assert "| 02_c.ipynb | skipped | - | - |" in table


@pytest.mark.slow  # two kernels
def test_runner_reports_pass_and_fail_and_leaves_notebooks_alone(tmp_path):
    good = tiny_notebook(tmp_path, "good.ipynb", "import os\nassert os.environ['COURSE_DEVICE'] == 'cpu'")
    bad = tiny_notebook(tmp_path, "bad.ipynb", "raise ValueError('row 2 sums to 1.5')")
    before = bad.read_bytes()
    kept = tmp_path / "out"
    passed = run_notebook(good, device="cpu", timeout=60, keep=kept)
    failed = run_notebook(bad, device="cpu", timeout=60, keep=kept)
    assert passed.verdict == "pass" and passed.device.startswith("cpu")
    assert failed.verdict == "FAIL: ValueError: row 2 sums to 1.5"
    assert bad.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.ipynb", "good.ipynb", "out"]  # no copies left behind
    assert [p.name for p in kept.iterdir()] == ["good.ipynb"]  # only the run that passed is kept, executed
    assert nbformat.read(kept / "good.ipynb", as_version=4).cells[0].execution_count == 1
    assert good.read_bytes() != (kept / "good.ipynb").read_bytes()


def test_wheel_list_is_pinned_and_leaves_torch_to_the_gpu_machine():
    names = {name.lower().replace("_", "-") for name in requirement_names()}
    assert {"nbclient", "nbformat", "ipykernel", "jupyter-client", "ipywidgets", "matplotlib", "nbval"} <= names
    assert "torch" not in names
    lines = [line for line in gpu_check.REQUIREMENTS.read_text().splitlines() if line and not line.startswith("#")]
    assert all("==" in line for line in lines)


def test_only_the_wheels_pip_still_needs_are_installed():
    report = {"install": [{"download_info": {"url": "file:///repo/.whl/nbclient-0.11.0-py3-none-any.whl"}}]}
    assert wheels_to_install(report) == ["/repo/.whl/nbclient-0.11.0-py3-none-any.whl"]
    assert wheels_to_install({"install": []}) == []


@pytest.mark.parametrize("target, needs, runs", [
    ("gpu-check", "nbclient, ipykernel, ipywidgets, matplotlib", "-m tools.gpu_check"),
    ("gpu-train", "matplotlib, IPython, numpy", "-m helpers.scaled"),  # what importing helpers/ needs beyond torch
])
def test_the_gpu_targets_never_build_the_venv_and_install_only_what_the_machine_lacks(target, needs, runs):
    plan = subprocess.run(
        ["make", "-n", target, "PYTHON=python3"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert ".venv" not in plan and "requirements.txt" not in plan
    assert f'if ! python3 -c "import {needs}"' in plan and "python3 -m tools.gpu_check --install-wheels .whl" in plan
    assert f"python3 {runs}" in plan


def test_a_signal_stops_the_whole_run_and_the_table_says_where(monkeypatch, capsys):
    calls = []

    def stopped(path, *args, **kwargs):
        calls.append(path.name)
        raise Interrupted("stopped by Ctrl-C or SIGTERM before the notebook's end")

    monkeypatch.setattr(gpu_check, "cuda_device_name", lambda: "Fake GPU")
    monkeypatch.setattr(gpu_check, "run_notebook", stopped)
    assert gpu_check.main(["00_bigram_baseline.ipynb", "01_bag_of_words.ipynb"]) == 130
    out = capsys.readouterr().out
    assert calls == ["00_bigram_baseline.ipynb"]  # nothing runs after the signal
    stopped = "FAIL: stopped by Ctrl-C or SIGTERM before the notebook's end"
    assert f"| 00_bigram_baseline.ipynb | {stopped} | - | Fake GPU |" in out
    assert "| 01_bag_of_words.ipynb | skipped | - | - |" in out


@pytest.mark.slow  # a kernel, stopped by SIGTERM as a time limit stops it
def test_sigterm_during_a_run_is_named_and_the_notebook_is_left_alone(tmp_path):
    started = tmp_path / "started"  # the kernel works in the notebook's folder
    path = tiny_notebook(tmp_path, "slow.ipynb", "open('started', 'w').close()\nimport time\ntime.sleep(120)")
    before = path.read_bytes()
    code = f"from pathlib import Path; from tools.notebooks import execute; execute(Path({str(path)!r}))"
    run = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 90
    while not started.exists() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert started.exists(), "the kernel never reached the notebook's cell"
    run.send_signal(signal.SIGTERM)
    err = run.communicate(timeout=90)[1]
    assert run.returncode != 0
    assert err.strip().splitlines()[-1] == (
        "tools.notebooks.Interrupted: stopped by Ctrl-C or SIGTERM before the notebook's end"
    ), err  # not nbclient's bare AssertionError
    assert path.read_bytes() == before


def test_make_execute_stops_at_a_signal_and_says_which_notebook(monkeypatch, tmp_path, capsys):
    paths = [tmp_path / "00_a.ipynb", tmp_path / "01_b.ipynb"]
    executed = []

    def interrupted(path, *args):
        executed.append(path.name)
        raise Interrupted("stopped by Ctrl-C or SIGTERM before the notebook's end")

    monkeypatch.setattr(notebooks, "stamp", lambda path: False)
    monkeypatch.setattr(notebooks, "execute", interrupted)
    assert notebooks.run_command("execute", paths) == 130
    assert executed == ["00_a.ipynb"]
    assert capsys.readouterr().out == (
        "00_a.ipynb: stopped by Ctrl-C or SIGTERM before the notebook's end; the file keeps its earlier outputs, "
        "and nothing after it ran.\n"
    )


# ---- `make colab-check` reports with the same table ----------------------------------------------------------------

def colab_run(monkeypatch, capsys, found, results, stopped=False):
    """colab_check.main on the first notebook, its kernel reporting `found`, the run giving `results`: (status, out)."""
    from tools import colab_check

    monkeypatch.setattr(colab_check, "kernel_versions", lambda folder: found)
    monkeypatch.setattr(colab_check, "run_in_turn", lambda paths, device: (results, stopped))
    status = colab_check.main([notebook_paths()[0].name])
    return status, capsys.readouterr().out


def test_colab_check_prints_one_row_per_notebook_and_fails_when_one_fails(monkeypatch, capsys):
    from tools.colab_check import pinned_versions

    results = [Result("00_a.ipynb", passed=True, seconds=4.56, device="cpu (x86_64)"),
               Result("01_b.ipynb", passed=False, seconds=1.0, device="cpu (x86_64)", error="AssertionError: x")]
    status, out = colab_run(monkeypatch, capsys, pinned_versions(), results)
    assert status == 1 and "| 00_a.ipynb | pass | 4.6 | cpu (x86_64) |" in out
    assert "| 01_b.ipynb | FAIL: AssertionError: x | 1.0 | cpu (x86_64) |" in out and "1 passed, 1 failed" in out
    status, out = colab_run(monkeypatch, capsys, pinned_versions(), results[:1])
    assert status == 0 and "1 passed, 0 failed" in out
    status, out = colab_run(monkeypatch, capsys, pinned_versions(), results[:1] + [Result("01_b.ipynb", None)], True)
    assert status == 130 and "| 01_b.ipynb | skipped | - | - |" in out and "the rest not run" in out


def test_colab_check_runs_nothing_on_other_versions_than_colabs(monkeypatch, capsys):
    from tools.colab_check import pinned_versions

    found = {**pinned_versions(), "torch": "9.9.9+cpu"}
    status, out = colab_run(monkeypatch, capsys, found, results=[])
    assert status == 2 and "Not Colab's versions, nothing was run" in out
    assert f"torch: the kernel has 9.9.9+cpu, Colab's is {pinned_versions()['torch']}" in out
    found["torch"] = pinned_versions()["torch"] + "+cu124"  # a local build tag is the same version
    assert colab_run(monkeypatch, capsys, found, results=[])[0] == 0
