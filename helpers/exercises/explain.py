"""Plain words for a wrong (T, T) weight matrix, shared by every exercise whose answer is `wei`."""

import torch

from ..attention import future_mask
from .core import fmt, fmt_apart


def explain_weights(got: torch.Tensor, expected: torch.Tensor, inputs: tuple) -> str | None:
    """The first thing wrong with weights `got` of the right shape: NaN/inf, a negative weight,
    a future weight that is not exactly 0, a row that does not sum to 1; None when none of these."""
    got = got.detach().cpu().double()
    for what, bad in (("NaN", torch.isnan(got)), ("inf", torch.isinf(got))):
        if bad.any():
            row = int(bad.any(-1).nonzero()[0])
            return (
                f"row {row} contains {what}: something was divided by 0 (or −∞ by −∞); "
                "check the mask and every division."
            )
    if (got < 0).any():
        row, col = first(got < 0)
        return (
            f"row {row} gives position {col} a negative weight ({fmt(got[row, col])}): a weight can never be negative."
        )
    future = future_mask(got.shape[-1])
    if (got[future] != 0).any():
        row, col = first(future & (got != 0))
        return (
            f"row {row} gives weight {fmt(got[row, col])} to position {col}, which is in its future: "
            "everything above the diagonal must be exactly 0."
        )
    sums = got.sum(-1)
    off = (sums - 1).abs() > 1e-4
    if off.any():
        row = int(off.nonzero()[0])
        return f"row {row} sums to {fmt_apart(sums[row], 1)[0]}: did you normalise by row, so that each row sums to 1?"
    return None


def first(mask: torch.Tensor) -> tuple[int, int]:
    """(row, column) of the first True in a 2-D boolean mask that has one."""
    row, col = mask.nonzero()[0]
    return int(row), int(col)
