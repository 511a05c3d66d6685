"""The "your turn" machinery: a learner fills in a stub, a checker answers in plain words.

A checker calls the learner's function on fixed inputs and compares the result with the
reference answer. When it is wrong, the checker compares it with the result of each known
mistake (dropping keepdim, normalising by column, forgetting the mask…) and names the one
that matches. A stub that still raises NotImplementedError (or returns None) is reported as
"not attempted yet", never as an error, so an untouched notebook still runs top to bottom.
"""

from dataclasses import dataclass

import torch


@dataclass
class Feedback:
    """What a checker concluded: passed (True/False, or None when not attempted) and why."""

    passed: bool | None
    message: str
    mistake: str | None = None

    def __str__(self) -> str:
        mark = {True: "✅ Correct", False: "❌ Not yet", None: "✏️ Your turn"}[self.passed]
        return f"{mark}: {self.message}"

    def _repr_pretty_(self, printer, cycle):  # how IPython shows it at the end of a cell
        printer.text(str(self))


@dataclass
class Mistake:
    """A known wrong answer: `wrong` computes what that mistake returns, `hint` says what to fix."""

    name: str
    wrong: object  # callable taking the same inputs as the exercise
    hint: str


def same_values(got, expected, atol: float = 1e-4) -> bool:
    """Whether `got` is a tensor of `expected`'s shape with the same values (CPU or GPU)."""
    if not isinstance(got, torch.Tensor):
        return False
    got, expected = got.detach().cpu().float(), expected.detach().cpu().float()
    return got.shape == expected.shape and torch.allclose(got, expected, atol=atol, rtol=1e-4, equal_nan=True)


def check(learner_fn, reference_fn, inputs: tuple, mistakes=(), explain_difference=None) -> Feedback:
    """Run `learner_fn(*inputs)` and judge it against `reference_fn(*inputs)` and known mistakes.

    `explain_difference(got, expected)` may return a plain-words hint for a wrong answer that
    matches no known mistake (e.g. "row 2 sums to 1.5"); otherwise a generic hint is given.
    """
    try:
        got = learner_fn(*[_copy(x) for x in inputs])
    except NotImplementedError:
        return Feedback(None, f"fill in `{learner_fn.__name__}` above, then run this cell again.")
    except Exception as err:  # the learner's code failed: explain, never crash the notebook
        return Feedback(False, f"`{learner_fn.__name__}` raised {type(err).__name__}: {err}")
    if got is None:
        return Feedback(None, f"`{learner_fn.__name__}` returns None so far: make it return your tensor.")
    expected = reference_fn(*[_copy(x) for x in inputs])
    if not isinstance(got, torch.Tensor):
        return Feedback(False, f"expected a tensor, got a {type(got).__name__}.")
    if tuple(got.shape) != tuple(expected.shape):
        return Feedback(False, f"your result has shape {tuple(got.shape)}, but it should be {tuple(expected.shape)}.")
    if same_values(got, expected):
        return Feedback(True, "your result matches the reference on every entry.")
    for mistake in mistakes:
        if same_values(got, mistake.wrong(*[_copy(x) for x in inputs])):
            return Feedback(False, mistake.hint, mistake.name)
    hint = explain_difference(got, expected) if explain_difference else None
    return Feedback(False, hint or "the shape is right but some values differ from the reference; compare row by row.")


def _copy(x):
    """A fresh copy of a tensor input, so a learner's in-place edit cannot spoil the next run."""
    return x.clone() if isinstance(x, torch.Tensor) else x


# The exercises declared as data (see core.py): importing each module registers its declarations.
from . import nb04, nb05  # noqa: E402,F401
