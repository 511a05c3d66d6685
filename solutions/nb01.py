"""Reference solution for notebook 01's exercise: the running average of one (T, C) sequence."""

import torch


def running_average(x: torch.Tensor) -> torch.Tensor:
    """Row t of the result is the mean of rows 0…t of x (never a later row)."""
    T = x.shape[0]
    out = torch.zeros_like(x)
    for t in range(T):
        out[t] = x[: t + 1].mean(0)  # rows 0…t, averaged over time, each channel on its own
    return out
