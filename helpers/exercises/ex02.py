"""Notebook 02's "your turn": build the (T, T) weights that turn one matmul into a running average.

Row i of the answer gives weight 1/(i+1) to each of positions 0…i and 0 to every later one.
The checker names the usual ways to get it wrong and says in plain words what to change.
"""

import torch

from ..averaging import average_matmul
from . import Feedback, Mistake, check

T_CHECKED = 4  # small enough that a hint can quote its numbers
T_AGAIN = 7  # a second size, so an answer typed in for T = 4 does not pass


def reference_weights(T: int) -> torch.Tensor:
    """The weights scheme two uses: average_matmul(I) = wei @ I = wei, read off the canonical code."""
    return average_matmul(torch.eye(T))


def _tril(T: int) -> torch.Tensor:
    return torch.tril(torch.ones(T, T))


def _dropped_keepdim(T):
    tril = _tril(T)
    return tril / tril.sum(1)


def _by_column(T):
    tril = _tril(T)
    return tril / tril.sum(0, keepdim=True)


def _no_triangle(T):
    ones = torch.ones(T, T)
    return ones / ones.sum(1, keepdim=True)


def _not_normalised(T):
    return _tril(T)


def _upper_triangle(T):
    triu = torch.triu(torch.ones(T, T))
    return triu / triu.sum(1, keepdim=True)


def _whole_matrix(T):
    tril = _tril(T)
    return tril / tril.sum()


def _divided_by_T(T):
    return _tril(T) / T


CAUSAL_WEIGHT_MISTAKES = (
    Mistake(
        "dropped_keepdim",
        _dropped_keepdim,
        "row 1 sums to 1.5 and row 3 to 2.08: did you drop keepdim? `tril.sum(1)` has shape (T,), so it "
        "lines up with the columns and divides column j by j+1 instead of row i by i+1. Keep the summed "
        "dimension with `tril.sum(1, keepdim=True)`, shape (T, 1), and each row is divided by its own sum.",
    ),
    Mistake(
        "normalised_by_column",
        _by_column,
        "every column sums to 1, but row 0 sums to 0.25: did you normalise by column? Each row is one position "
        "sharing out its attention, so divide each row by its own sum: `sum(1, keepdim=True)`, not `sum(0)`.",
    ),
    Mistake(
        "looks_at_future",
        _no_triangle,
        "row 0 gives weight 0.25 to positions 1, 2 and 3, which are all in its future: every position is "
        "looking ahead at the answer. Start from `torch.tril(torch.ones(T, T))` so later positions get 0.",
    ),
    Mistake(
        "not_normalised",
        _not_normalised,
        "row 2 sums to 3: these are 0/1 marks of who is visible, not weights. Divide each row by its sum "
        "(`sum(1, keepdim=True)`) so that row i gives 1/(i+1) to each position it can see.",
    ),
    Mistake(
        "upper_triangle",
        _upper_triangle,
        "row 0 spreads its weight over all four positions while row 3 sees only itself: you kept the upper "
        "triangle (torch.triu), which is the future. Use torch.tril to keep positions 0…i.",
    ),
    Mistake(
        "normalised_whole_matrix",
        _whole_matrix,
        "the whole matrix sums to 1, but row 0 sums to only 0.1: you divided by the sum of everything. "
        "Divide each row by its own sum instead: `sum(1, keepdim=True)`.",
    ),
    Mistake(
        "divided_by_T",
        _divided_by_T,
        "row 0 sums to 0.25: dividing by T gives every visible position 1/T, but position 0 sees only "
        "itself, so its row must be [1, 0, 0, 0]. Divide each row by its own sum, the number it can see.",
    ),
)


def explain_weights(got: torch.Tensor, expected: torch.Tensor) -> str | None:
    """A plain-words hint for wrong weights that match none of the named mistakes."""
    got = got.detach().cpu().double()
    if not torch.isfinite(got).all():
        return "some entries are inf or nan: did a row sum come out as 0 before you divided by it?"
    i, j = _first(got < -1e-6)
    if i is not None:
        return f"entry [{i}][{j}] is {got[i, j]:.2f}: a weight can never be negative."
    i, j = _first(torch.triu(got.abs(), diagonal=1) > 1e-6)
    if i is not None:
        return (
            f"row {i} gives weight {got[i, j]:.2f} to position {j}, which is in its future: "
            "everything above the diagonal must be 0 (torch.tril)."
        )
    sums = got.sum(1)
    off = ((sums - 1).abs() > 1e-4).nonzero().flatten()
    if len(off):
        row = int(off[0])
        return f"row {row} sums to {sums[row]:.2f}: did you normalise by row, so each row sums to 1?"
    return (
        "every row sums to 1 and the future gets 0, but the weights are not equal: "
        "row i should give exactly 1/(i+1) to each of positions 0…i."
    )


def _first(mask: torch.Tensor):
    """(row, column) of the first True in a 2-D boolean mask, or (None, None)."""
    hits = mask.nonzero()
    return (int(hits[0, 0]), int(hits[0, 1])) if len(hits) else (None, None)


def check_causal_weights(fn) -> Feedback:
    """Judge `fn(T)`, which should return the (T, T) row-normalised lower-triangular weights."""
    feedback = check(fn, reference_weights, (T_CHECKED,), CAUSAL_WEIGHT_MISTAKES, explain_weights)
    if feedback.passed:
        again = check(fn, reference_weights, (T_AGAIN,), CAUSAL_WEIGHT_MISTAKES, explain_weights)
        if not again.passed:
            again.message = f"right for T = {T_CHECKED}, but for T = {T_AGAIN}: {again.message}"
            return again
        feedback.message = f"your weights match the reference for T = {T_CHECKED} and T = {T_AGAIN}."
    return feedback
