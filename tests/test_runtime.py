"""Choosing the device and seeding."""

import random

import pytest
import torch

from helpers.runtime import describe_device, pick_device, seed_everything


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


def test_course_device_typo_gets_a_clear_message(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "gpu")
    with pytest.raises(ValueError, match="use one of cuda, mps, cpu"):
        pick_device()


def test_course_device_unavailable_gets_a_clear_message(monkeypatch):
    monkeypatch.setenv("COURSE_DEVICE", "cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="no cuda device is available"):
        pick_device()


def test_seed_everything_makes_runs_repeat():
    seed_everything(7)
    first = (random.random(), torch.rand(3))
    seed_everything(7)
    second = (random.random(), torch.rand(3))
    assert first[0] == second[0] and torch.equal(first[1], second[1])
