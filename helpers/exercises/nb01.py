"""Notebook 01, "your turn": the running average of one (T, C) sequence, written with a loop."""

import torch

from ..averaging import average_loop
from .core import Exercise, Mistake, declare

# Two sequences of whole numbers (every sum exact), T ≠ C in each so a mix-up of the two shows.
# The first starts with the lesson's h, o, u vectors.
SHORT = torch.tensor([[2.0, 7.0], [6.0, 4.0], [6.0, 5.0], [0.0, 8.0]])
LONG = torch.tensor(
    [
        [2.0, 7.0, 1.0],
        [6.0, 4.0, 3.0],
        [6.0, 5.0, 9.0],
        [0.0, 8.0, 2.0],
        [4.0, 1.0, 5.0],
        [9.0, 3.0, 0.0],
        [1.0, 6.0, 4.0],
    ]
)


def reference(x: torch.Tensor) -> torch.Tensor:
    """Scheme one from helpers.averaging, applied to a single sequence."""
    return average_loop(x.unsqueeze(0))[0]


def by_rows(x: torch.Tensor, rows) -> torch.Tensor:
    """A (T, C) tensor whose row t is rows(t), the way a learner's loop fills it in."""
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = rows(t)
    return out


def _in_place(x):
    for t in range(x.shape[0]):
        x[t] = x[: t + 1].mean(0)  # rows 0…t-1 were already replaced by averages
    return x


def _skips_self_row0_patched(x):
    out = by_rows(x, lambda t: x[:t].mean(0))
    out[0] = x[0]  # the NaN of row 0 patched away, so only the later rows give it away
    return out


SKIPS_SELF_HINT = "row t averages only x[0] … x[t-1]: x[:t] leaves position t itself out. Use x[: t + 1]."


def explain_running_average(got: torch.Tensor, expected: torch.Tensor, inputs: tuple) -> str | None:
    """Plain words for a wrong running average that matches no named mistake."""
    if torch.isnan(got).any():
        row = int(torch.isnan(got).any(-1).nonzero()[0])
        return f"row {row} is NaN: did it average an empty slice? Row t averages x[: t + 1], never nothing."
    rows_ok = [bool(torch.allclose(got[t], expected[t], atol=1e-4)) for t in range(len(got))]
    if not rows_ok[0]:
        return "row 0 should be x[0] itself: the average of one vector is that vector."
    if all(rows_ok):
        return None
    wrong = rows_ok.index(False)
    right = "row 0 is" if wrong == 1 else f"rows 0…{wrong - 1} are"
    return f"{right} right, but row {wrong} is not the average of x[0] … x[{wrong}]."


declare(
    Exercise(
        name="running_average",
        reference=reference,
        cases=((SHORT,), (LONG,)),
        explain=explain_running_average,
        mistakes=(
            Mistake(
                "future",
                lambda x: x.mean(0, keepdim=True).expand_as(x).clone(),
                "every row is the average of the WHOLE sequence, so position t looks at the future. "
                "Row t may only use x[0] … x[t]: slice x[: t + 1].",
            ),
            Mistake(
                "peeks_ahead",
                lambda x: by_rows(x, lambda t: x[: t + 2].mean(0)),
                "row t also averages x[t + 1], one step into its future: x[: t + 2] goes one row too far. "
                "The slice x[: t + 1] stops just after position t.",
            ),
            Mistake(
                "skips_self",
                lambda x: by_rows(x, lambda t: x[:t].mean(0)),
                "row 0 is NaN (the average of nothing) and " + SKIPS_SELF_HINT,
            ),
            Mistake("skips_self", _skips_self_row0_patched, SKIPS_SELF_HINT),
            Mistake(
                "sum",
                lambda x: x.cumsum(0),
                "each row is the running SUM, not the average: the last row is T times too big. "
                "Divide by the number of positions, t + 1 (or use .mean(0)).",
            ),
            Mistake(
                "wrong_dim",
                lambda x: x.cumsum(1) / torch.arange(1, x.shape[1] + 1, dtype=x.dtype),
                "you averaged along the channels (dim 1) of each row instead of along time (dim 0). "
                "Row t should average the rows x[0] … x[t], one channel at a time: x[: t + 1].mean(0).",
            ),
            Mistake(
                "wrong_dim_shape",
                lambda x: by_rows(x, lambda t: x[: t + 1].mean(1)),
                "your loop hit a size clash: x[: t + 1].mean(1) averages over dim 1 (the channels), which leaves "
                "t + 1 numbers per row instead of C. Average over time: x[: t + 1].mean(0).",
            ),
            Mistake(
                "all_dims",
                lambda x: by_rows(x, lambda t: x[: t + 1].mean()),
                "each row holds one repeated number: .mean() without a dim averages over time AND channels. "
                "Average over time only: .mean(0).",
            ),
            Mistake(
                "in_place",
                _in_place,
                "you wrote the averages back into x while still reading it, so later rows average earlier "
                "averages. Write into a new tensor, e.g. out = torch.zeros_like(x).",
            ),
        ),
    )
)
