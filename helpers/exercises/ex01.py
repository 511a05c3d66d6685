"""Notebook 01, "your turn": the running average of one (T, C) sequence, written with a loop."""

import torch

from ..averaging import average_loop
from . import Feedback, Mistake, check, same_values

# One fixed sequence: T = 6 positions, C = 3 channels (T ≠ C, so a mix-up of the two shows).
# Whole numbers keep every sum exact.
EXERCISE_X = torch.tensor(
    [[2.0, 7.0, 1.0], [6.0, 4.0, 3.0], [6.0, 5.0, 9.0], [0.0, 8.0, 2.0], [4.0, 1.0, 5.0], [9.0, 3.0, 0.0]]
)


def reference_running_average(x: torch.Tensor) -> torch.Tensor:
    """Scheme one from helpers.averaging, applied to a single sequence."""
    return average_loop(x.unsqueeze(0))[0]


def _counts(T: int, like: torch.Tensor) -> torch.Tensor:
    return torch.arange(1, T + 1, dtype=like.dtype).unsqueeze(1)  # (T, 1): 1, 2, …, T


def _whole_sequence(x):
    return x.mean(0, keepdim=True).expand_as(x).clone()  # every row sees the future too


def _skips_self(x):
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = x[:t].mean(0)  # row 0 averages nothing: NaN
    return out


def _sums(x):
    return x.cumsum(0)


def _along_channels(x):
    return x.cumsum(1) / _counts(x.shape[1], x).T  # running average across the C channels of each row


def _no_dim(x):
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = x[: t + 1].mean()  # one number: the mean over time AND channels
    return out


def _in_place(x):
    x = x.clone()
    for t in range(x.shape[0]):
        x[t] = x[: t + 1].mean(0)  # rows 0…t-1 were already replaced by averages
    return x


# What a loop over x[:t] gives when it treats row 0 specially (so no NaN gives it away).
SKIPS_SELF_HINT = "row t averages only x[0] … x[t-1]: x[:t] leaves position t itself out. Use x[: t + 1]."

MISTAKES = [
    Mistake(
        "future",
        _whole_sequence,
        "every row is the average of the WHOLE sequence, so position t looks at the future. "
        "Row t may only use x[0] … x[t]: slice x[: t + 1].",
    ),
    Mistake(
        "skips_self",
        _skips_self,
        "row 0 is NaN (the average of nothing) and " + SKIPS_SELF_HINT,
    ),
    Mistake(
        "sum",
        _sums,
        "each row is the running SUM, not the average: the last row is T times too big. "
        "Divide by the number of positions, t + 1 (or use .mean(0)).",
    ),
    Mistake(
        "wrong_dim",
        _along_channels,
        "you averaged along the channels (dim 1) of each row instead of along time (dim 0). "
        "Row t should average the rows x[0] … x[t], one channel at a time: x[: t + 1].mean(0).",
    ),
    Mistake(
        "all_dims",
        _no_dim,
        "each row holds one repeated number: .mean() without a dim averages over time AND channels. "
        "Average over time only: .mean(0).",
    ),
    Mistake(
        "in_place",
        _in_place,
        "you wrote the averages back into x while still reading it, so later rows average earlier "
        "averages. Write into a new tensor, e.g. out = torch.zeros_like(x).",
    ),
]


def _explain(got: torch.Tensor, expected: torch.Tensor):
    """Hints for wrong answers that match no mistake exactly."""
    x = EXERCISE_X
    exclusive = torch.stack([x[:t].mean(0) for t in range(1, x.shape[0])])
    if same_values(got[1:], exclusive):
        return SKIPS_SELF_HINT
    if not same_values(got[0], expected[0]):
        return "row 0 should be x[0] itself: the average of one vector is that vector."
    wrong = [t for t in range(expected.shape[0]) if not same_values(got[t], expected[t])]
    if not wrong:
        return None
    return f"rows 0…{wrong[0] - 1} are right, but row {wrong[0]} is not the average of x[0] … x[{wrong[0]}]."


def check_running_average(fn) -> Feedback:
    """Check `fn(x)`, which should return the (T, C) running average of a (T, C) sequence x."""
    feedback = check(fn, reference_running_average, (EXERCISE_X,), MISTAKES, explain_difference=_explain)
    if feedback.passed is False and feedback.mistake is None:
        if feedback.message.startswith(f"`{fn.__name__}` raised") and "size" in feedback.message:
            return Feedback(
                False,
                feedback.message + "\nA size clash like this usually means averaging over dim 1 (the channels), "
                "which leaves t + 1 numbers per row instead of C. Average over time: x[: t + 1].mean(0).",
                "wrong_dim_shape",
            )
        if feedback.message == SKIPS_SELF_HINT:
            return Feedback(False, feedback.message, "skips_self")
    return feedback
