"""Where tensors live and how runs are made repeatable."""

import os
import random

import numpy as np
import torch

DEVICE_ENV = "COURSE_DEVICE"
_KNOWN = ("cuda", "mps", "cpu")


class PlainError(RuntimeError):
    """An error whose message says everything: IPython and Jupyter show that message alone, no traceback.

    IPython (7.x to 9.x) shows the lines an exception's `_render_traceback_()` returns instead of a
    traceback; a cell that raises it still stops a run of all cells there.
    """

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class DeviceError(PlainError):
    """COURSE_DEVICE names no device, or one that is not here."""


def pick_device(verbose: bool = True) -> torch.device:
    """Return the best device here: CUDA, then Apple MPS, then CPU, and say which.

    Set the environment variable COURSE_DEVICE=cpu (or cuda, mps, or an indexed one such as cuda:1)
    to choose by hand.
    """
    name, why = _choose_device()
    if verbose:
        print(f"Using device: {name} ({why})")
    return torch.device(name)


def describe_device() -> str:
    """The device pick_device() chooses and why, in a few words, e.g. 'cuda (GPU: Tesla T4)'."""
    name, why = _choose_device()
    return f"{name} ({why})"


def _choose_device() -> tuple[str, str]:
    """The name of the device to use, and the reason, honouring COURSE_DEVICE."""
    wanted = os.environ.get(DEVICE_ENV, "").strip().lower()
    if wanted:
        return _wanted_device(wanted), f"chosen by {DEVICE_ENV}"
    if _available("cuda"):
        return "cuda", f"GPU: {torch.cuda.get_device_name(0)}"
    if _available("mps"):
        return "mps", "Apple GPU"
    return "cpu", "no CUDA or Apple MPS GPU found; everything still runs, a little slower"


def _wanted_device(wanted: str) -> str:
    """`wanted` (e.g. 'cuda' or 'cuda:1') if it names a device that is here; a DeviceError otherwise."""
    kind, colon, index = wanted.partition(":")
    if kind not in _KNOWN or (colon and not index.isdigit()):
        raise DeviceError(
            f"{DEVICE_ENV}={wanted!r} is not a device name: use one of {', '.join(_KNOWN)} (or an indexed one "
            "such as cuda:1), or unset it to pick automatically."
        )
    count = (torch.cuda.device_count() if kind == "cuda" else 1) if _available(kind) else 0
    if int(index or 0) >= count:
        here = f"{count} {kind} device{'s (numbered from 0)' if count > 1 else ''}" if count else f"no {kind} device"
        raise DeviceError(
            f"{DEVICE_ENV}={wanted} was asked for, but this machine has {here}: set it to a device that is here, "
            "or unset it to pick automatically, then run this cell again."
        )
    return wanted


def _available(name: str) -> bool:
    """Whether a device of this kind can be used right now."""
    if name == "cuda":
        return torch.cuda.is_available()
    if name == "mps":
        return torch.backends.mps.is_available()
    return True


def seed_everything(seed: int = 1337) -> None:
    """Seed Python's, NumPy's and PyTorch's random generators."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device
