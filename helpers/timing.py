"""Honest wall-clock timing of a function call on CPU, CUDA or Apple MPS.

A GPU runs work asynchronously: a call returns as soon as its kernels are queued, long before
they finish. Reading the clock then would time the queueing, not the work, so every timing here
waits for the device to finish before the clock is read, both before and after the call.
"""

import time

import torch


def devices_of(*values) -> set[torch.device]:
    """The devices of the tensors among `values` (other values are ignored)."""
    return {v.device for v in values if isinstance(v, torch.Tensor)}


def synchronize(device) -> None:
    """Wait until every piece of work queued on `device` has finished (nothing to wait for on a CPU)."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def time_call(fn, *args, repeats: int = 3, warmup: int = 1, device=None, **kwargs) -> float:
    """Seconds one call `fn(*args, **kwargs)` takes: the fastest of `repeats` timed calls.

    `warmup` untimed calls come first (the first call on a GPU pays one-off start-up costs).
    The device(s) waited on are those of the tensor arguments, plus `device` if given.
    The fastest run is the one least disturbed by whatever else the machine was doing.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, not {repeats}.")
    if warmup < 0:
        raise ValueError(f"warmup cannot be negative, not {warmup}.")
    devices = devices_of(*args, *kwargs.values())
    if device is not None:
        devices.add(torch.device(device))

    def wait():
        for d in devices:
            synchronize(d)

    for _ in range(warmup):
        fn(*args, **kwargs)
    best = float("inf")
    for _ in range(repeats):
        wait()
        start = time.perf_counter()
        fn(*args, **kwargs)
        wait()
        best = min(best, time.perf_counter() - start)
    return best
