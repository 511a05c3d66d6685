"""Where tensors live and how runs are made repeatable."""

import os
import random

import torch

DEVICE_ENV = "COURSE_DEVICE"
_KNOWN = ("cuda", "mps", "cpu")


def pick_device(verbose: bool = True) -> torch.device:
    """Return the best device here: CUDA, then Apple MPS, then CPU, and say which.

    Set the environment variable COURSE_DEVICE=cpu (or cuda, mps) to choose by hand.
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
        if wanted not in _KNOWN:
            raise ValueError(
                f"{DEVICE_ENV}={wanted!r} is not a device name: use one of {', '.join(_KNOWN)}, or unset it."
            )
        if not _available(wanted):
            raise RuntimeError(
                f"{DEVICE_ENV}={wanted} was asked for, but no {wanted} device is available here: "
                "unset it to pick automatically."
            )
        return wanted, f"chosen by {DEVICE_ENV}"
    if _available("cuda"):
        return "cuda", f"GPU: {torch.cuda.get_device_name(0)}"
    if _available("mps"):
        return "mps", "Apple GPU"
    return "cpu", "no CUDA or Apple MPS GPU found; everything still runs, a little slower"


def _available(name: str) -> bool:
    """Whether a device of this kind can be used right now."""
    if name == "cuda":
        return torch.cuda.is_available()
    if name == "mps":
        return getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    return True


def seed_everything(seed: int = 1337) -> None:
    """Seed Python's, NumPy's (if present) and PyTorch's random generators."""
    random.seed(seed)
    torch.manual_seed(seed)  # also seeds every CUDA device
    try:
        import numpy as np
    except ImportError:
        pass
    else:
        np.random.seed(seed)
