"""Plain words for a wrong (T, T) weight matrix, shared by every exercise whose answer is `wei`; hints that several
exercises share; and `slipped_weights`, the weights with one of the slips that 06's and 10's exercises name."""

import torch
import torch.nn.functional as F

from ..attention import future_mask
from .core import NAN_CAUSES, as_float, close, first_index, fmt, fmt_apart, scaled_by

MASKED_THE_PRESENT = (  # the hint for a mask that hides the diagonal too, in notebook 06's and 10's exercises
    "you masked the diagonal too, so position 0 has nothing to look at (NaN): a position may read itself, so mask "
    "only above the diagonal, triu(diagonal=1) (or tril == 0)."
)
SOFTMAX_WITHOUT_DIM = (  # the hint for a softmax left to pick its own dim, in notebook 06's and 10's exercises
    "your softmax has no dim=, so PyTorch picked one (and warned): for one sequence's (T, T) scores it picks the "
    "rows, but for a batch's (B, T, T) it picks dim 0 and shares each weight out across the sequences of the batch "
    "(where every sequence has −∞, in the future, that is 0/0: NaN). Always say which: softmax(..., dim=-1)."
)


def slipped_weights(q, k, scale=1.0, mask="before", fill=float("-inf"), diagonal=1, dim=-1) -> torch.Tensor:
    """A head's wei from q and k, or one of the slips the exercises name: scores times `scale`; the future (from
    `diagonal` up) set to `fill` "before" the softmax, to 0 "after" it, or never (None); the softmax along `dim`."""
    future = future_mask(q.shape[-2], q.device, diagonal)
    wei = q @ k.transpose(-2, -1) * scale
    wei = F.softmax(wei.masked_fill(future, fill) if mask == "before" else wei, dim=dim)
    return wei.masked_fill(future, 0.0) if mask == "after" else wei


def explain_weights(got: torch.Tensor, expected: torch.Tensor, inputs: tuple, atol: float) -> str | None:
    """The first thing wrong with weights `got` of the right shape: NaN/inf, a negative weight,
    a future weight that is not exactly 0, a row that does not sum to 1 within `atol`; None when none of these."""
    got = as_float(got)
    if torch.isnan(got).any():
        row = first_index(torch.isnan(got))[0]
        return f"row {row} contains {NAN_CAUSES}"
    if torch.isinf(got).any():
        row, col = first_index(torch.isinf(got))
        return (
            f"row {row} gives position {col} the weight {fmt(got[row, col])}, but a weight lies between 0 and 1: "
            "did you return the masked scores (or a log) instead of the weights a softmax makes of them, or "
            "divide by a sum of 0?"
        )
    if (got < 0).any():
        row, col = first_index(got < 0)
        return (
            f"row {row} gives position {col} a negative weight ({fmt(got[row, col])}): a weight can never be negative."
        )
    future = future_mask(got.shape[-1])
    if (got[future] != 0).any():
        row, col = first_index(future & (got != 0))
        return (
            f"row {row} gives weight {fmt(got[row, col])} to position {col}, which is in its future: "
            "everything above the diagonal must be exactly 0."
        )
    sums = got.sum(-1)
    off = (sums - 1).abs() > atol
    if off.any():
        row = first_index(off)[0]
        return f"row {row} sums to {fmt_apart(sums[row], 1)[0]}: did you normalise by row, so that each row sums to 1?"
    return None


def explain_scores(got: torch.Tensor, expected: torch.Tensor, inputs: tuple, atol: float, *, scale: str) -> str | None:
    """A wrong (…, T, T) score matrix that a mask, a softmax, a transpose or a scale changed, in words (the past and
    present compared within `atol`); `scale` is the sentence that says what the right scale is. None when it is none
    of these."""
    future = future_mask(got.shape[-1])
    filled = got[..., future]
    one_value = filled.numel() > 0 and bool((filled == filled.flatten()[0]).all())
    if one_value and close(got[..., ~future], expected[..., ~future], atol):
        return (
            f"your scores for the past and the present are right, but every future one is {fmt(filled.flatten()[0])}: "
            "this step scores every pair, future included. Masking the future is the head's next line, so leave it "
            "out here."
        )
    if ((got >= 0) & (got <= 1)).all() and any(torch.allclose(got.sum(d), torch.ones(()).double()) for d in (-1, -2)):
        return (
            "your result looks like weights (every entry from 0 to 1, rows or columns summing to 1): this step stops "
            "at the scores. The mask and the softmax come after it."
        )
    if close(got.transpose(-2, -1), expected, atol):
        return ("your scores are the right ones transposed (k @ qᵀ, say): a row is the position asking, by its query, "
                "and a column the position asked, by its key, so the query comes first: q @ k.transpose(-2, -1).")
    factor = scaled_by(got, expected)
    return None if factor is None else f"your scores are the right ones times {fmt(factor)}: {scale}."
