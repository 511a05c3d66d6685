"""Checkers for notebook 03's exercises: masked softmax weights, and standardising by row (LayerNorm)."""

import torch
import torch.nn.functional as F

from . import Feedback, Mistake, check

# Fixed scores for a 5-character chunk: mixed signs, and no row of the past sums to 0,
# so every known mistake gives a result of its own (and none divides by zero by accident).
SCORES = torch.tensor(
    [
        [1.0, -2.0, 0.5, 3.0, -1.0],
        [2.0, 0.0, -1.5, 4.0, 1.0],
        [-1.0, 3.0, 1.0, -2.0, 2.5],
        [0.5, 1.5, -0.5, 2.0, -3.0],
        [2.5, -1.0, 1.0, 0.5, 1.5],
    ]
)

# Four samples (rows) of four features (columns), each row and column on a scale of its own.
# Square on purpose: a dropped keepdim then broadcasts silently instead of raising an error.
FEATURES = torch.tensor(
    [
        [1.0, 2.0, 3.0, 4.0],
        [10.0, 0.0, 5.0, 1.0],
        [-2.0, -2.0, 4.0, 0.0],
        [3.0, 7.0, 1.0, 9.0],
    ]
)
EPS = 1e-5


def _future(T: int) -> torch.Tensor:
    """Boolean (T, T): True above the diagonal, where a position would see its future."""
    return torch.ones(T, T, dtype=torch.bool).triu(diagonal=1)


def _fill_future(scores: torch.Tensor, value: float) -> torch.Tensor:
    return scores.masked_fill(_future(scores.shape[-1]), value)


def _masked_softmax(scores: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return F.softmax(_fill_future(scores, float("-inf")), dim=dim)


def _divide_by_sum(masked: torch.Tensor) -> torch.Tensor:
    return masked / masked.sum(-1, keepdim=True)


MASKED_SOFTMAX_MISTAKES = [
    Mistake(
        "forgot_mask",
        lambda s: F.softmax(s, dim=-1),
        "the future gets weight: row 0 shares its attention with positions 1 to 4. "
        "Fill the upper triangle with −∞ (masked_fill with tril == 0) before the softmax.",
    ),
    Mistake(
        "by_column",
        lambda s: _masked_softmax(s, dim=0),
        "your columns sum to 1, not your rows: the softmax ran down each column (dim=0). "
        "Each row is a position sharing out its attention, so use softmax(..., dim=-1).",
    ),
    Mistake(
        "mask_with_zero",
        lambda s: F.softmax(_fill_future(s, 0.0), dim=-1),
        "the future still gets weight: you filled it with 0, and e^0 = 1, so softmax gives it a share. "
        "Fill it with float('-inf'): e^−∞ = 0 is what makes a weight exactly 0.",
    ),
    Mistake(
        "divide_by_sum",
        lambda s: _divide_by_sum(_fill_future(s, 0.0)),
        "some weights are negative: dividing the scores by their row sum is scheme two's normalisation, "
        "and it breaks on negative scores (and on rows that sum to 0). Use softmax, which makes every weight positive.",
    ),
    Mistake(
        "divide_by_sum",
        lambda s: _divide_by_sum(_fill_future(s, float("-inf"))),
        "you got NaN: after the −∞ mask, dividing by the row sum computes −∞/−∞. "
        "Replace the division by softmax(..., dim=-1), which turns −∞ into a weight of exactly 0.",
    ),
    Mistake(
        "masked_after_softmax",
        lambda s: _fill_future(F.softmax(s, dim=-1), 0.0),
        "the future is 0 but the rows no longer sum to 1: you zeroed it after the softmax. "
        "Mask first (−∞), then softmax, so the weights are shared out among the past only.",
    ),
    Mistake(
        "masked_the_present",
        lambda s: F.softmax(s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(), float("-inf")), dim=-1),
        "you masked the diagonal too, so row 0 has nothing left to look at (NaN). "
        "A position may look at itself: mask only above the diagonal (tril == 0, or triu(diagonal=1)).",
    ),
    Mistake(
        "masked_the_past",
        lambda s: F.softmax(s.masked_fill(_future(s.shape[-1]).T, float("-inf")), dim=-1),
        "you hid the past and kept the future: the −∞ belongs above the diagonal, where the column "
        "index is larger than the row index (tril == 0), not below it.",
    ),
]


def explain_weights(got: torch.Tensor, expected: torch.Tensor) -> str | None:
    """Plain words for a wrong (T, T) weight matrix that matches no known mistake."""
    got = got.detach().cpu().float()
    if torch.isnan(got).any():
        row = int(torch.isnan(got).any(-1).nonzero()[0])
        return f"row {row} contains NaN: check the mask and that nothing is divided by zero or by −∞."
    if (got < 0).any():
        row, col = (int(i) for i in (got < 0).nonzero()[0])
        return f"row {row} gives position {col} a negative weight ({got[row, col]:.2f}): weights must be ≥ 0."
    future = got.masked_select(_future(got.shape[-1]))
    if (future != 0).any():
        row, col = (int(i) for i in (got * _future(got.shape[-1])).nonzero()[0])
        return f"row {row} gives weight {got[row, col]:.2f} to position {col}, in its future: it must be exactly 0."
    sums = got.sum(-1)
    off = (sums - 1).abs() > 1e-4
    if off.any():
        row = int(off.nonzero()[0])
        return f"row {row} sums to {sums[row]:.2f}: did you normalise by row?"
    return None


def check_masked_softmax_weights(fn) -> Feedback:
    """Judge `fn(scores)` for a (T, T) score matrix: the masked, row-softmaxed weights `wei`."""
    return check(fn, _masked_softmax, (SCORES,), MASKED_SOFTMAX_MISTAKES, explain_weights)


def _standardise(x: torch.Tensor, dim, keep: bool = True, unbiased: bool = False) -> torch.Tensor:
    mean = x.mean(dim, keepdim=keep)
    var = x.var(dim, unbiased=unbiased, keepdim=keep)
    return (x - mean) / torch.sqrt(var + EPS)


def _layer_norm(x: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, x.shape[-1:], eps=EPS)


def _drop_keepdim(x: torch.Tensor, on_mean: bool, on_var: bool) -> torch.Tensor:
    mean = x.mean(-1, keepdim=not on_mean)
    var = x.var(-1, unbiased=False, keepdim=not on_var)
    return (x - mean) / torch.sqrt(var + EPS)


_KEEPDIM_HINT = (
    "your result has the right shape but the wrong numbers: mean(-1) and var(-1) without keepdim=True "
    "have shape (4,), which lines up with the columns, not the rows. Keep the dimension: keepdim=True."
)

STANDARDISE_MISTAKES = [
    Mistake(
        "by_column",
        lambda x: _standardise(x, 0),
        "your columns have mean 0, not your rows: you standardised across samples (x.mean(0)), "
        "which is what BatchNorm does. LayerNorm works across each row's features: x.mean(-1).",
    ),
    Mistake(
        "unbiased_variance",
        lambda x: _standardise(x, -1, unbiased=True),
        "close, but torch.var and torch.std divide by C − 1 by default. LayerNorm divides by C: "
        "pass unbiased=False (or correction=0).",
    ),
    Mistake("dropped_keepdim", lambda x: _drop_keepdim(x, True, True), _KEEPDIM_HINT),
    Mistake("dropped_keepdim", lambda x: _drop_keepdim(x, True, False), _KEEPDIM_HINT),
    Mistake("dropped_keepdim", lambda x: _drop_keepdim(x, False, True), _KEEPDIM_HINT),
    Mistake(
        "as_a_whole",
        lambda x: (x - x.mean()) / torch.sqrt(x.var(unbiased=False) + EPS),
        "you standardised the matrix as a whole (one mean for everything). Give each row its own mean and "
        "variance: mean(-1, keepdim=True).",
    ),
    Mistake(
        "only_centred",
        lambda x: x - x.mean(-1, keepdim=True),
        "each row now has mean 0, but not variance 1: divide by the square root of the row's variance (+ eps).",
    ),
    Mistake(
        "not_centred",
        lambda x: x / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + EPS),
        "you divided by the standard deviation but did not subtract each row's mean first.",
    ),
]


def explain_standardised(got: torch.Tensor, expected: torch.Tensor) -> str | None:
    """Plain words for a wrong standardisation that matches no known mistake."""
    got = got.detach().cpu().float()
    means = got.mean(-1)
    if (means.abs() > 1e-3).any():
        row = int((means.abs() > 1e-3).nonzero()[0])
        return f"row {row} has mean {means[row]:.2f}; after standardising by row every row's mean is 0."
    var = got.var(-1, unbiased=False)
    if ((var - 1).abs() > 1e-3).any():
        row = int(((var - 1).abs() > 1e-3).nonzero()[0])
        return f"row {row} has variance {var[row]:.2f}; after standardising by row every row's variance is 1."
    return None


def check_standardise_rows(fn) -> Feedback:
    """Judge `fn(x)` for an (N, C) matrix: each row standardised to mean 0, variance 1 (LayerNorm, no affine)."""
    return check(fn, _layer_norm, (FEATURES,), STANDARDISE_MISTAKES, explain_standardised)
