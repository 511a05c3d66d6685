"""Notebook 02, "your turn": the (T, T) weights that turn one matmul into a running average.

Row i of the answer gives weight 1/(i+1) to each of positions 0…i and 0 to every later one.
The hints quote the numbers of the first case, T = 4, where every named mistake is caught.
"""

import torch

from ..attention import future_mask
from ..averaging import average_matmul
from .core import Exercise, Mistake, declare
from .explain import explain_weights


def reference(T: int) -> torch.Tensor:
    """The weights scheme two uses: average_matmul(I) = wei @ I = wei, read off the lesson's code."""
    return average_matmul(torch.eye(T))


def future(T: int) -> torch.Tensor:
    """Boolean (T, T): True above the diagonal, the weights that must be exactly 0."""
    return future_mask(T)


def tril(T: int) -> torch.Tensor:
    return torch.tril(torch.ones(T, T))


def explain_averaging_weights(got: torch.Tensor, expected: torch.Tensor, inputs: tuple) -> str:
    """The shared weight hints, then the one left for valid but unequal weights."""
    return explain_weights(got, expected, inputs) or (
        "every row sums to 1 and the future gets 0, but the weights are not equal: "
        "row i should give exactly 1/(i+1) to each of positions 0…i."
    )


declare(
    Exercise(
        name="causal_average_weights",
        reference=reference,
        cases=((4,), (7,)),
        exact_zero=future,
        exact_zero_fix="start from torch.tril(torch.ones(T, T)), whose zeros are exact, and divide each row by "
        "its sum.",
        explain=explain_averaging_weights,
        mistakes=(
            Mistake(
                "dropped_keepdim",
                lambda T: tril(T) / tril(T).sum(1),
                "row 1 sums to 1.5 and row 3 to 2.08: did you drop keepdim? `tril.sum(1)` has shape (T,), so it "
                "lines up with the columns and divides column j by j+1 instead of row i by i+1. Keep the summed "
                "dimension with `tril.sum(1, keepdim=True)`, shape (T, 1), and each row is divided by its own sum.",
            ),
            Mistake(
                "normalised_by_column",
                lambda T: tril(T) / tril(T).sum(0, keepdim=True),
                "every column sums to 1, but row 0 sums to 0.25: did you normalise by column? Each row is one "
                "position sharing out its attention, so divide each row by its own sum: `sum(1, keepdim=True)`, "
                "not `sum(0)`.",
            ),
            Mistake(
                "looks_at_future",
                lambda T: torch.ones(T, T) / T,
                "row 0 gives weight 0.25 to positions 1, 2 and 3, which are all in its future: every position is "
                "looking ahead at the answer. Start from `torch.tril(torch.ones(T, T))` so later positions get 0.",
            ),
            Mistake(
                "not_normalised",
                tril,
                "row 2 sums to 3: these are 0/1 marks of who is visible, not weights. Divide each row by its sum "
                "(`sum(1, keepdim=True)`) so that row i gives 1/(i+1) to each position it can see.",
            ),
            Mistake(
                "upper_triangle",
                lambda T: torch.triu(torch.ones(T, T)) / torch.triu(torch.ones(T, T)).sum(1, keepdim=True),
                "row 0 spreads its weight over all four positions while row 3 sees only itself: you kept the upper "
                "triangle (torch.triu), which is the future, and hid the past. Use torch.tril to keep positions 0…i.",
            ),
            Mistake(
                "normalised_whole_matrix",
                lambda T: tril(T) / tril(T).sum(),
                "the whole matrix sums to 1, but row 0 sums to only 0.1: you divided by the sum of everything. "
                "Divide each row by its own sum instead: `sum(1, keepdim=True)`.",
            ),
            Mistake(
                "divided_by_T",
                lambda T: tril(T) / T,
                "row 0 sums to 0.25: dividing by T gives every visible position 1/T, but position 0 sees only "
                "itself, so its row must be [1, 0, 0, 0]. Divide each row by its own sum, the number it can see.",
            ),
        ),
    )
)
