"""What a call costs: honest wall-clock time on CPU, CUDA or Apple MPS, and measured peak memory.

A GPU runs work asynchronously: a call returns as soon as its kernels are queued, long before
they finish. Reading the clock then would time the queueing, not the work, so every timing here
reads PyTorch's benchmark clock (`torch.utils.benchmark.timer`), which first waits for a GPU to finish.

`peak_bytes` measures how much memory `fn(head, x)` adds at its peak, with a fresh `Head(width, width)` and
random inputs x of shape (batch, T, width), once per T. On CUDA, PyTorch counts its own allocations. On a CPU it
keeps no such count, so the call runs in a fresh Python process (the notebook's own `fn`, sent as source code)
and we read how far that process's resident memory rose above what it held just before the call: Linux's
high-water mark (VmHWM in /proc/self/status), reset before each call. Large blocks go back to the system as soon
as they are freed (glibc's MALLOC_MMAP_THRESHOLD_), so one call's leftovers do not hide the next call's needs.
`resource.getrusage` would not do: a process started from a notebook inherits the kernel's own peak in its
`ru_maxrss`.

`time_under_malloc_rules` times `fn(head, x)` in a fresh process for each glibc malloc rule and each T, and counts the
memory that arrives from the operating system during a call (minor page faults, in 4 KiB pages: small_pages_only).
"""

import inspect
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

import torch
from torch.utils.benchmark import timer as clock  # seconds, read once the GPU (if any) has finished its work


def time_call(fn, *args, repeats: int = 3, warmup: int = 1, **kwargs) -> float:
    """Seconds one call `fn(*args, **kwargs)` takes: the fastest of `repeats` timed calls.

    `warmup` untimed calls come first (the first call on a GPU pays one-off start-up costs).
    The fastest run is the one least disturbed by whatever else the machine was doing.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, not {repeats}.")
    if warmup < 0:
        raise ValueError(f"warmup cannot be negative, not {warmup}.")
    for _ in range(warmup):
        fn(*args, **kwargs)
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        fn(*args, **kwargs)
        best = min(best, clock() - start)
    return best


STATUS = Path("/proc/self/status")
CLEAR_REFS = Path("/proc/self/clear_refs")


def status_bytes(key: str) -> int:
    """One of Linux's memory figures for this process, e.g. VmRSS (resident now) or VmHWM (its high-water mark)."""
    return int(re.search(rf"^{key}:\s+(\d+) kB", STATUS.read_text(), re.M).group(1)) * 1024


def reset_high_water_mark() -> None:
    """Set this process's VmHWM back to what it holds now (Linux: writing 5 to /proc/self/clear_refs)."""
    CLEAR_REFS.write_text("5")


def cpu_measurable() -> bool:
    """Whether this machine lets a process read and reset its peak resident memory (Linux, with /proc)."""
    if not STATUS.is_file() or not os.access(CLEAR_REFS, os.W_OK):
        return False
    try:
        reset_high_water_mark()
        status_bytes("VmHWM")
    except (OSError, AttributeError):
        return False
    return True


def warm_up(fn, head, batch: int, T: int, width: int, device) -> None:
    """One unmeasured call: it sets up what any call needs (threads, buffers, libraries), not the head's own cost."""
    with torch.no_grad():
        fn(head, torch.randn(batch, T, width, device=device))


def cuda_peak_bytes(fn, lengths, batch: int, width: int, device) -> list[int]:
    """Peak bytes PyTorch allocates on the GPU during each call, beyond what was allocated before it."""
    from .attention import Head

    head = Head(width, width).to(device)
    warm_up(fn, head, batch, lengths[0], width, device)
    peaks = []
    for T in lengths:
        x = torch.randn(batch, T, width, device=device)
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        with torch.no_grad():
            fn(head, x)
        torch.cuda.synchronize(device)
        peaks.append(torch.cuda.max_memory_allocated(device) - before)
    return peaks


def arrived_bytes(fn, *args) -> int:
    """Bytes of memory that arrived from the operating system, page by page, during one call fn(*args) (Unix)."""
    import resource  # Unix only

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt  # this process's minor page faults so far
    fn(*args)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) * resource.getpagesize()


def measure_peak(fn, head, x) -> int:
    """Bytes one call adds to this process's resident memory at its peak."""
    reset_high_water_mark()
    before = status_bytes("VmRSS")
    fn(head, x)
    return status_bytes("VmHWM") - before


# Calls whose arrivals measure_time compares, and the figure it keeps: the lower median, what a typical call needs.
# Now and then one call is unlike the others. With every freed block kept, glibc's heap is still settling after the
# timing calls, and a call that finds no free stretch large enough grows the heap: in 8 runs at the notebook's sizes
# (4 December 2026, a fresh process for each T), 2 or 3 of the 10 calls at a T did at most. Under the usual rules
# every one of those 80 calls at T = 1,024 fetched all four 32 MiB matrices (128 to 136 MiB). When every T shared
# one process, a call could find a freed 32 MiB block left in the heap by an earlier T and fetch only three.
ARRIVAL_CALLS = 10


def measure_time(fn, head, x) -> list:
    """[seconds per call, bytes that arrived from the operating system during a typical call (the lower median)]."""
    return [time_call(fn, head, x), statistics.median_low(arrived_bytes(fn, head, x) for _ in range(ARRIVAL_CALLS))]


def small_pages_only() -> None:
    """Ask Linux to give this process its memory in 4 KiB pages, never in 2 MiB huge ones (where it can).

    Where transparent huge pages are on (/sys/kernel/mm/transparent_hugepage), one page fault can bring 2 MiB instead
    of 4 KiB, so counting faults would no longer count bytes, and fresh memory would cost what it does there, not
    what it cost in the notebook's runs.
    """
    import ctypes

    PR_SET_THP_DISABLE = 41  # from <linux/prctl.h>, Linux 3.15 and later
    ctypes.CDLL(None).prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)  # on an older system it fails, and nothing changes


def child_main() -> None:
    """In the fresh process: define the function it was sent, measure it once per T it was given, print the figures.

    Only torch and the course's Head are loaded (Head straight from attention.py, not the whole helpers package).
    """
    import importlib.util

    small_pages_only()

    import torch.nn.functional as F

    spec = importlib.util.spec_from_file_location("course_attention", Path(__file__).with_name("attention.py"))
    attention = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(attention)
    job = json.loads(sys.argv[1])
    namespace = {"torch": torch, "F": F, "Head": attention.Head}
    exec(job["source"], namespace)
    fn, batch, width = namespace[job["name"]], job["batch"], job["width"]
    measure = {"peak": measure_peak, "time": measure_time}[job["measure"]]
    head = attention.Head(width, width)
    warm_up(fn, head, batch, job["lengths"][0], width, "cpu")
    figures = []
    for T in job["lengths"]:
        x = torch.randn(batch, T, width)
        with torch.no_grad():
            figures.append(measure(fn, head, x))
        del x
    print(json.dumps(figures))


def start_fresh_process(fn, measure: str, lengths, batch: int, width: int, malloc: dict) -> subprocess.Popen:
    """A fresh Python process that measures fn(head, x) ("peak" or "time") at each T, its glibc malloc set by `malloc`.

    `malloc` holds environment variables such as MALLOC_MMAP_MAX_; the process gets the notebook's others too.
    """
    source = textwrap.dedent(inspect.getsource(fn))  # a function defined inside another is indented
    job = {"source": source, "name": fn.__name__, "measure": measure, "lengths": list(lengths), "batch": batch,
           "width": width}
    return subprocess.Popen([sys.executable, __file__, json.dumps(job)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **malloc})


def finish(name: str, run: subprocess.Popen) -> list:
    """What a fresh process printed: one figure per T, or a RuntimeError that names the function and the reason."""
    out, err = run.communicate()
    if run.returncode != 0:
        reason = (err.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"Measuring {name} in a fresh Python process failed ({reason}).")
    return json.loads(out.strip().splitlines()[-1])


def has_glibc() -> bool:
    """Whether this is Linux with glibc, whose malloc the MALLOC_* environment variables set."""
    return sys.platform == "linux" and platform.libc_ver()[0] == "glibc"


def time_under_malloc_rules(fn, rules: dict, lengths, batch: int, width: int):
    """{rule: [(seconds per call, MiB that arrived from the operating system during a call), one per T]}, or None.

    `rules` maps names to glibc malloc settings as environment variables ({} for glibc's usual rules; any other
    variable, such as OMP_NUM_THREADS, reaches the process too). Each rule and each T gets a fresh Python process,
    one after another, so that no measurement inherits what another left in glibc's heap, and none shares the CPU.
    None unless this is Linux with glibc.
    """
    if not has_glibc():
        return None
    results = {}
    for rule, malloc in rules.items():
        figures = [finish(fn.__name__, start_fresh_process(fn, "time", [T], batch, width, malloc))[0] for T in lengths]
        results[rule] = [(seconds, arrived / 2**20) for seconds, arrived in figures]
    return results


def peak_bytes(fns: dict, lengths, batch: int, width: int, device):
    """{name: the bytes fn(head, x) adds at its peak, one figure per T in `lengths`}, or None where unmeasurable.

    `fns` maps names to functions fn(head, x) that use only their arguments, `torch`, `F` and `Head`.
    CUDA: PyTorch's own count of what it allocated. CPU and Apple MPS: measured on the CPU, each function in a
    fresh Python process, which needs Linux; on macOS and Windows the answer is None.
    """
    device = torch.device(device)
    if device.type == "cuda":
        return {name: cuda_peak_bytes(fn, lengths, batch, width, device) for name, fn in fns.items()}
    if not cpu_measurable():
        return None
    malloc = {"MALLOC_MMAP_THRESHOLD_": "65536"}  # bytes: a block this large or larger is unmapped when freed
    # one process per function, all started at once: each measures only itself
    runs = {name: start_fresh_process(fn, "peak", lengths, batch, width, malloc) for name, fn in fns.items()}
    return {name: finish(name, run) for name, run in runs.items()}


if __name__ == "__main__":
    child_main()
