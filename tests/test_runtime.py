"""Choosing the device and seeding."""

import os
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from helpers.runtime import DeviceError, describe_device, pick_device, seed_everything
from tests.install_aside import aside

ROOT = Path(__file__).resolve().parent.parent


def test_pick_device_says_which(capsys, monkeypatch):
    monkeypatch.delenv("COURSE_DEVICE", raising=False)
    device = pick_device()
    assert device.type in ("cuda", "mps", "cpu")
    assert f"Using device: {device.type}" in capsys.readouterr().out


def test_pick_device_prefers_cuda_then_mps(monkeypatch):
    monkeypatch.delenv("COURSE_DEVICE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert pick_device(verbose=False).type == "mps"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: "test GPU")
    assert pick_device(verbose=False).type == "cuda"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert pick_device(verbose=False).type == "cpu"


def test_describe_device_names_what_pick_device_picks(capsys, monkeypatch):
    monkeypatch.delenv("COURSE_DEVICE", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: "Tesla T4")
    assert describe_device() == "cuda (GPU: Tesla T4)"
    assert capsys.readouterr().out == ""  # describing prints nothing: the setup cell prints it in its own line
    pick_device()
    assert capsys.readouterr().out == "Using device: cuda (GPU: Tesla T4)\n"
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    assert describe_device() == "cpu (chosen by COURSE_DEVICE)"


def test_course_device_can_force_the_cpu(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    assert pick_device(verbose=False).type == "cpu"


@pytest.mark.parametrize("typo", ["gpu", "cuda:x", "cpu:"])
def test_course_device_typo_gets_a_clear_message(monkeypatch, typo):
    monkeypatch.setenv("COURSE_DEVICE", typo)
    with pytest.raises(DeviceError, match=f"COURSE_DEVICE='{typo}' is not a device name: use one of cuda, mps, cpu"):
        pick_device()


def pretend_gpus(monkeypatch, count: int) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count)


def test_course_device_unavailable_gets_a_clear_message(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "cuda")
    pretend_gpus(monkeypatch, 0)
    with pytest.raises(DeviceError, match="COURSE_DEVICE=cuda was asked for, but this machine has no cuda device"):
        pick_device()


@pytest.mark.parametrize("wanted", ["cuda", "cuda:0", "cuda:1", "CUDA:1 ", "cpu:0"])
def test_course_device_accepts_indexed_devices(monkeypatch, wanted):
    monkeypatch.setenv("COURSE_DEVICE", wanted)
    pretend_gpus(monkeypatch, 2)
    assert pick_device(verbose=False) == torch.device(wanted.strip().lower())
    assert describe_device() == f"{wanted.strip().lower()} (chosen by COURSE_DEVICE)"


@pytest.mark.parametrize("wanted, has", [("cuda:2", "2 cuda devices (numbered from 0)"), ("cpu:1", "1 cpu device")])
def test_course_device_beyond_the_last_index_names_what_is_here(monkeypatch, wanted, has):
    monkeypatch.setenv("COURSE_DEVICE", wanted)
    pretend_gpus(monkeypatch, 2)
    with pytest.raises(DeviceError, match=re.escape(f"this machine has {has}: set it to a device that is here")):
        describe_device()


# What the setup cell runs, in an IPython shell: the cell must stop with the sentence alone, no traceback.
SHELL_SCRIPT = textwrap.dedent(
    """
    import IPython, torch
    from IPython.core.interactiveshell import InteractiveShell
    torch.cuda.is_available = lambda: False  # a machine without a GPU, wherever the test runs
    shell = InteractiveShell.instance()
    result = shell.run_cell("from helpers.runtime import describe_device\\nprint(describe_device())")
    print("IPYTHON", IPython.__version__, "STOPPED" if result.error_in_exec else "RAN ON")
    """
)


def run_setup_line(extra_path: str = "") -> subprocess.CompletedProcess:
    """Run SHELL_SCRIPT in a fresh Python with COURSE_DEVICE=cuda (and `extra_path` first on the path)."""
    env = {**os.environ, "COURSE_DEVICE": "cuda", "PYTHONPATH": os.pathsep.join(filter(None, [extra_path, str(ROOT)]))}
    return subprocess.run([sys.executable, "-c", SHELL_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)


def assert_one_sentence_and_stopped(run: subprocess.CompletedProcess, version_prefix: str) -> None:
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    assert lines[-1].startswith(f"IPYTHON {version_prefix}") and lines[-1].endswith("STOPPED"), run.stdout + run.stderr
    assert lines[:-1] == [
        "DeviceError: COURSE_DEVICE=cuda was asked for, but this machine has no cuda device: set it to a device "
        "that is here, or unset it to pick automatically, then run this cell again."
    ], run.stdout
    assert "Traceback" not in run.stdout + run.stderr


@pytest.mark.slow  # a fresh Python
def test_an_unavailable_device_stops_the_cell_with_one_sentence_in_ipython():
    assert_one_sentence_and_stopped(run_setup_line(), "")


@pytest.mark.slow  # a fresh Python with Colab's IPython
def test_an_unavailable_device_stops_the_cell_with_one_sentence_in_colabs_ipython_7():
    """Colab has long shipped IPython 7.34 (installed once into .aside/ by `make setup`)."""
    assert_one_sentence_and_stopped(run_setup_line(str(aside("ipython-7.34"))), "7.34.0")


def test_seed_everything_makes_runs_repeat():
    seed_everything(7)
    first = (random.random(), torch.rand(3))
    seed_everything(7)
    second = (random.random(), torch.rand(3))
    assert first[0] == second[0] and torch.equal(first[1], second[1])
