"""Exercises declared as data, and the one generic checker that reads every declaration.

An exercise is one `Exercise(...)` declaration in helpers/exercises/nbNN.py: the reference
answer, the input cases it is tried on (at least two, of different sizes), the named mistakes
the lesson warns about (each a function computing what that mistake returns, or raises), and a
hint for each. The learner's notebook cell calls `check("name", their_function)`; the answer
is one plain sentence, whatever they hand over.
"""

import copy
import math
from dataclasses import dataclass, field
from typing import Callable

import torch

EXERCISES: dict[str, "Exercise"] = {}  # name → declaration, filled in by declare()


@dataclass
class Feedback:
    """What a checker concluded: passed (True/False, or None when not attempted yet) and why."""

    passed: bool | None
    message: str
    mistake: str | None = None

    def __str__(self) -> str:
        mark = {True: "✅ Correct", False: "❌ Not yet", None: "✏️ Your turn"}[self.passed]
        return f"{mark}: {self.message}"

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer, cycle):  # how IPython shows it at the end of a cell
        printer.text(str(self))


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: `wrong` returns (or raises) what that mistake would, `hint` says what to fix."""

    name: str
    wrong: Callable
    hint: str


@dataclass(frozen=True)
class Exercise:
    """One "your turn" exercise, declared once and read by `check` and by the generic test.

    name: the function the learner writes (also the key passed to `check`).
    reference: the correct function; its results are the answers.
    cases: input tuples, tried in order; at least two of different sizes.
    mistakes: the named mistakes, tried in order against a wrong answer.
    exact_zero: optional `inputs -> bool tensor` of the answer's entries that must be exactly 0
        (the future), compared with ==, never with a tolerance.
    explain: optional `(got, expected, inputs) -> str | None` for a wrong answer no mistake matches.
    atol: the tolerance for every other entry.
    """

    name: str
    reference: Callable
    cases: tuple
    mistakes: tuple = ()
    exact_zero: Callable | None = None
    explain: Callable | None = None
    atol: float = 1e-4
    notebook: str = field(default="", compare=False)


def declare(exercise: Exercise) -> Exercise:
    """Register an exercise so `check(exercise.name, fn)` and the generic test find it."""
    if exercise.name in EXERCISES and EXERCISES[exercise.name] is not exercise:
        raise ValueError(f"Two exercises are called {exercise.name!r}: give each a name of its own.")
    EXERCISES[exercise.name] = exercise
    return exercise


def check(name: str, fn) -> Feedback:
    """Judge the learner's `fn` against the exercise called `name`; never raises."""
    exercise = EXERCISES.get(name)
    if exercise is None:
        known = ", ".join(sorted(EXERCISES)) or "none loaded"
        return Feedback(False, f"there is no exercise called {name!r} (known: {known}).")
    try:
        return judge(exercise, fn)
    except Exception as err:  # last line of defence: the checker itself must never crash a notebook
        return Feedback(False, f"the checker could not judge this answer ({type(err).__name__}: {err}).")


def judge(exercise: Exercise, fn) -> Feedback:
    """Run `fn` on every case of `exercise` and say, in one sentence, what is right or wrong."""
    if not callable(fn):
        return Feedback(
            False,
            f"pass the function itself, `check({exercise.name!r}, {exercise.name})`, not "
            f"{'None' if fn is None else 'a ' + type(fn).__name__}.",
        )
    label = getattr(fn, "__name__", exercise.name)
    changed_inputs = False
    for number, inputs in enumerate(exercise.cases):
        given = fresh(inputs)
        try:
            got = fn(*given)
        except NotImplementedError:
            return Feedback(None, f"fill in `{label}` above, then run this cell again.")
        except Exception as err:
            return explain_raise(exercise, inputs, err, label)
        if got is None:
            return Feedback(None, f"`{label}` returns None so far: make it return your tensor.")
        changed_inputs |= not same_inputs(given, inputs)
        verdict = judge_case(exercise, inputs, got, number)
        if verdict is not None:
            return verdict
    message = "your function matches the reference on every input it was tried on."
    if changed_inputs:
        message += " Note: it changed its input in place; a function that leaves its input alone is safer."
    return Feedback(True, message)


def judge_case(exercise: Exercise, inputs: tuple, got, number: int) -> Feedback | None:
    """None when `got` is right for this case; otherwise the Feedback that says why not."""
    expected = exercise.reference(*fresh(inputs))
    problem = not_a_tensor_like(got, expected)
    if problem:
        return Feedback(False, problem)
    got = got.detach().to("cpu", torch.float64)
    expected = expected.detach().to("cpu", torch.float64)
    if got.shape != expected.shape:
        matched = match_mistake(exercise, inputs, got)
        wrong_shape = f"your result has shape {tuple(got.shape)}, but it should be {tuple(expected.shape)}."
        return matched or Feedback(False, wrong_shape)
    if close(got, expected, exercise.atol) and exact_zeros_hold(exercise, inputs, got):
        return None
    matched = match_mistake(exercise, inputs, got)
    if matched:
        return matched
    if close(got, expected, exercise.atol):
        where = exercise.exact_zero(*fresh(inputs))
        worst = float(got[where].abs().max())
        return Feedback(
            False,
            f"a weight that must be exactly 0 is {worst:.1e} instead: use float('-inf') for the mask, "
            "not a large negative number, so e^score is exactly 0.",
            "finite_mask",
        )
    if number > 0 and exercise.reference(*fresh(exercise.cases[0])) is not None:
        size = size_of(inputs)
        return Feedback(
            False,
            f"right for the first input but wrong for a second one ({size}): does your code hard-code a size "
            "or remember an earlier answer? Compute everything from the input it is given.",
            "hard_coded",
        )
    hint = exercise.explain(got, expected, inputs) if exercise.explain else None
    return Feedback(False, hint or "the shape is right but some values differ from the reference; compare row by row.")


def not_a_tensor_like(got, expected) -> str | None:
    """A sentence saying why `got` cannot be compared with the tensor `expected`, or None."""
    if not isinstance(got, torch.Tensor):
        return f"return a tensor (like `torch.tensor(...)`), not a {type(got).__name__}."
    if got.is_meta:
        return "your tensor lives on the 'meta' device and holds no numbers: build it from real values."
    if got.is_complex() or got.dtype == torch.bool:
        return f"return a tensor of real numbers, not of dtype {got.dtype}."
    return None


def close(got: torch.Tensor, expected: torch.Tensor, atol: float) -> bool:
    """Same values within `atol` (NaN only where the reference has NaN)."""
    return bool(torch.allclose(got, expected, atol=atol, rtol=0, equal_nan=True))


def exact_zeros_hold(exercise: Exercise, inputs: tuple, got: torch.Tensor) -> bool:
    """Whether every entry the lesson says is exactly 0 is exactly 0 (compared with ==)."""
    if exercise.exact_zero is None:
        return True
    where = torch.as_tensor(exercise.exact_zero(*fresh(inputs)), dtype=torch.bool)
    return bool((got[where] == 0).all())


def match_mistake(exercise: Exercise, inputs: tuple, got: torch.Tensor) -> Feedback | None:
    """The Feedback of the first named mistake whose result equals `got`, or None."""
    for mistake in exercise.mistakes:
        try:
            wrong = mistake.wrong(*fresh(inputs))
        except Exception:
            continue  # this mistake raises on these inputs: it cannot have produced a result
        if isinstance(wrong, torch.Tensor):
            wrong = wrong.detach().to("cpu", torch.float64)
            if wrong.shape == got.shape and close(got, wrong, exercise.atol):
                return Feedback(False, mistake.hint, mistake.name)
    return None


def explain_raise(exercise: Exercise, inputs: tuple, err: Exception, label: str) -> Feedback:
    """Feedback for a learner function that raised: a named mistake that raises alike, or the error in words."""
    for mistake in exercise.mistakes:
        try:
            mistake.wrong(*fresh(inputs))
        except type(err):
            return Feedback(False, mistake.hint, mistake.name)
        except Exception:
            continue
    first_line = str(err).strip().splitlines()[0] if str(err).strip() else "no message"
    return Feedback(False, f"`{label}` raised {type(err).__name__}: {first_line}")


def fresh(inputs: tuple) -> tuple:
    """A deep copy of a case's inputs, so no call can spoil the next one."""
    return tuple(x.clone() if isinstance(x, torch.Tensor) else copy.deepcopy(x) for x in inputs)


def same_inputs(given: tuple, original: tuple) -> bool:
    """Whether the learner's function left its inputs as they were handed over."""
    for a, b in zip(given, original, strict=True):
        if isinstance(b, torch.Tensor):
            if not (isinstance(a, torch.Tensor) and a.shape == b.shape and torch.equal(a.cpu(), b.cpu())):
                if not (torch.isnan(b).any() and torch.allclose(a.cpu(), b.cpu(), equal_nan=True)):
                    return False
        elif a != b and not (isinstance(a, float) and math.isnan(a)):
            return False
    return True


def size_of(inputs: tuple) -> str:
    """A short description of a case's size, e.g. 'T = 7' or 'shape (2, 7, 4)'."""
    first = inputs[0]
    if isinstance(first, torch.Tensor):
        return f"shape {tuple(first.shape)}"
    return f"{first!r}"
