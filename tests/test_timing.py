"""helpers.timing: it calls the function the right number of times and reads a clock that waits for a GPU.

Nothing here asserts on speed: the machine running the tests may be busy with anything.
"""

from pathlib import Path

import pytest
import torch

from helpers import timing
from helpers.timing import time_call

STATUS = Path("/proc/self/status").read_text() if Path("/proc/self/status").is_file() else ""


def test_time_call_returns_seconds_as_a_non_negative_float():
    seconds = time_call(torch.ones, 3, repeats=2)
    assert isinstance(seconds, float)
    assert seconds >= 0


def test_time_call_reports_the_fastest_timed_call(monkeypatch):
    clock = iter([0.0, 5.0, 10.0, 12.0, 20.0, 23.0])  # start and end of three timed calls: 5 s, 2 s, 3 s
    monkeypatch.setattr(timing, "clock", lambda: next(clock))
    assert time_call(lambda: None, repeats=3, warmup=0) == 2.0


def test_time_call_makes_warmup_plus_repeats_calls_with_the_given_arguments():
    calls = []

    def fn(a, b, scale=1):
        calls.append((a, b, scale))

    time_call(fn, 1, 2, repeats=4, warmup=2, scale=3)
    assert calls == [(1, 2, 3)] * 6


def test_time_call_without_warmup_calls_exactly_repeats_times():
    calls = []
    time_call(lambda: calls.append(1), repeats=1, warmup=0)
    assert len(calls) == 1


@pytest.mark.parametrize("repeats, warmup", [(0, 1), (-1, 1), (1, -1)])
def test_time_call_rejects_impossible_counts(repeats, warmup):
    with pytest.raises(ValueError):
        time_call(lambda: None, repeats=repeats, warmup=warmup)


def test_on_a_cpu_the_clock_waits_for_nothing(monkeypatch):
    monkeypatch.setattr(torch.accelerator, "is_available", lambda: False)
    monkeypatch.setattr(torch.accelerator, "synchronize", lambda *device: pytest.fail("waited on a CPU"))
    assert time_call(torch.ones, 3, repeats=2) >= 0


def test_time_call_waits_for_a_gpu_before_and_after_each_timed_call(monkeypatch):
    events = []
    monkeypatch.setattr(torch.accelerator, "is_available", lambda: True)  # a CUDA or Apple GPU, as PyTorch sees it
    monkeypatch.setattr(torch.accelerator, "synchronize", lambda *device: events.append("sync"))
    time_call(lambda: events.append("call"), repeats=2, warmup=1)
    assert events == ["call", "sync", "call", "sync", "sync", "call", "sync"]


def naive(head, x):
    """A head that builds its (B, T, T) matrix."""
    return head(x)


def vectors_only(head, x):
    """A head-shaped call that never builds a (T, T) matrix."""
    return head.value(x)


@pytest.mark.slow  # a fresh Python (torch imported afresh): `make test-slow`
@pytest.mark.skipif(not timing.cpu_measurable(), reason="measuring a process's peak memory needs Linux's /proc")
def test_peak_bytes_on_the_cpu_sees_the_matrices_a_head_builds_in_a_fresh_process():
    ballast = torch.ones(100 * 2**20 // 4)  # 100 MiB in this process: the fresh one must not count it
    lengths, batch = [256, 1024], 4
    peaks = timing.peak_bytes({"naive": naive, "vectors": vectors_only}, lengths, batch=batch, width=8, device="cpu")
    matrix = batch * 1024 * 1024 * 4  # one (B, T, T) float32 matrix at T = 1024: 16 MiB
    assert matrix * 2 <= peaks["naive"][-1] < matrix * 4  # two of them alive at once, not the ballast
    assert peaks["vectors"][-1] < matrix / 4
    assert peaks["naive"][0] < peaks["naive"][1]
    assert ballast.numel() > 0


def test_peak_bytes_says_none_where_the_cpu_cannot_be_measured(monkeypatch):
    monkeypatch.setattr(timing, "cpu_measurable", lambda: False)
    assert timing.peak_bytes({"naive": naive}, [16], batch=1, width=4, device="cpu") is None


@pytest.mark.slow  # a fresh Python (torch imported afresh): `make test-slow`
def test_a_failing_measurement_names_the_function_and_the_reason():
    def broken(head, x):
        raise ValueError("deliberately broken")

    if not timing.cpu_measurable():
        pytest.skip("needs Linux's /proc")
    with pytest.raises(RuntimeError, match="broken.*deliberately broken"):
        timing.peak_bytes({"broken": broken}, [16], batch=1, width=4, device="cpu")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU here")
def test_peak_bytes_on_cuda_counts_the_matrices_pytorch_allocates():
    peaks = timing.peak_bytes({"naive": naive}, [1024], batch=4, width=8, device="cuda")
    assert peaks["naive"][0] >= 2 * 4 * 1024 * 1024 * 4


@pytest.mark.slow  # two fresh Pythons (torch imported afresh): `make test-slow`
@pytest.mark.skipif(not timing.has_glibc(), reason="needs Linux with glibc")
def test_time_under_malloc_rules_sees_fresh_pages_only_under_the_usual_rules():
    rules = {"usual": {}, "kept": {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(2**31 - 1)}}
    runs = timing.time_under_malloc_rules(naive, rules, [1024], batch=8, width=4)
    (usual_seconds, usual_mib), = runs["usual"]
    (kept_seconds, kept_mib), = runs["kept"]
    assert usual_mib > 3.9 * 32  # the four 32 MiB (B, T, T) matrices, fresh from the operating system
    assert kept_mib < 1
    assert usual_seconds > 0 and kept_seconds > 0


def refuses_huge_pages(head, x):
    """A head that fails in any process where Linux may hand out 2 MiB pages (THP_enabled: 1)."""
    if "THP_enabled:\t1" in open("/proc/self/status").read():  # the child has no `re`: only torch, F and Head
        raise ValueError("this process may get huge pages")
    return head(x)


@pytest.mark.slow  # fresh Pythons (torch imported afresh): `make test-slow`
@pytest.mark.skipif(not timing.has_glibc() or "THP_enabled:" not in STATUS,
                    reason="needs Linux 5.0 or later with glibc, whose /proc/self/status shows THP_enabled")
def test_every_fresh_process_asks_for_small_pages_only():
    # where huge pages are on, one page fault could bring 2 MiB, and counting faults would no longer count bytes
    # each call raises the child's ValueError as a RuntimeError if that child may get huge pages
    peaks = timing.peak_bytes({"peak": refuses_huge_pages}, [16], batch=1, width=4, device="cpu")
    runs = timing.time_under_malloc_rules(refuses_huge_pages, {"usual": {}}, [16], batch=1, width=4)
    assert len(peaks["peak"]) == len(runs["usual"]) == 1


def one_length_per_process(head, x, lengths_seen=[]):  # noqa: B006 - the list lives as long as its process
    """A head that fails when one process is given inputs of two lengths."""
    lengths_seen.append(x.shape[-2])
    if len(set(lengths_seen)) > 1:
        raise ValueError(f"one process measured T = {sorted(set(lengths_seen))}")
    return head(x)


@pytest.mark.slow  # fresh Pythons (torch imported afresh): `make test-slow`
@pytest.mark.skipif(not timing.has_glibc(), reason="needs Linux with glibc")
def test_time_under_malloc_rules_measures_each_length_in_a_process_of_its_own():
    # what one T leaves in glibc's heap (a freed 32 MiB block) must not serve the next T's matrices
    runs = timing.time_under_malloc_rules(one_length_per_process, {"usual": {}}, [16, 32], batch=1, width=4)
    assert len(runs["usual"]) == 2


def test_time_under_malloc_rules_says_none_without_glibc(monkeypatch):
    monkeypatch.setattr(timing.platform, "libc_ver", lambda: ("", ""))
    assert timing.time_under_malloc_rules(naive, {"usual": {}}, [16], batch=1, width=4) is None
