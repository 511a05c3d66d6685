"""Every "your turn" exercise, discovered from its declaration and proved by one set of tests.

For each declared exercise: its solution in solutions/<notebook>.py passes, an untouched stub is
"your turn", each named mistake gets its own name and hint, a hard-coded or memoised answer fails,
odd things a learner may hand over get one plain sentence (never a traceback), a weight that must be
exactly 0 but is not is named, and changing the input in place is reported. Adding an exercise
(a declaration and a solution) adds its tests here without editing this file.
"""

import importlib
import inspect
import re
from pathlib import Path

import nbformat
import pytest
import torch

import helpers.exercises  # noqa: F401  (importing the package declares every exercise)
from helpers.exercises.core import EXERCISES, HARD_CODED, Exercise, Mistake, check, declare, fmt, fresh, judge
from helpers.exercises.explain import explain_weights

ROOT = Path(__file__).resolve().parents[1]
ALL = sorted(EXERCISES.values(), key=lambda e: (e.notebook, e.name))
MISTAKES = [(e, m) for e in ALL for m in e.mistakes]
EXACT = [e for e in ALL if e.exact_zero is not None]
TENSOR_INPUT = [e for e in ALL if isinstance(e.cases[0][0], torch.Tensor)]


def ids(items):
    return [f"{e.name}-{m.name}" if isinstance(m, Mistake) else e.name for e, m in items]


def solution(exercise: Exercise):
    """The reference solution the learner's stub is named after, from solutions/<notebook>.py."""
    return getattr(importlib.import_module(f"solutions.{exercise.notebook}"), exercise.name)


def answer(exercise: Exercise, number: int) -> torch.Tensor:
    return exercise.reference(*fresh(exercise.cases[number]))


def one_plain_sentence(message: str) -> bool:
    return bool(message.strip()) and "\n" not in message and "Traceback" not in message


# ---------------------------------------------------------------------------------------------
# What every exercise's declaration must hold


def test_exercises_are_discovered():
    assert {"running_average", "causal_average_weights", "masked_softmax_weights", "standardise_rows"} <= set(EXERCISES)


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_at_least_two_cases_of_different_sizes(exercise):
    assert len(exercise.cases) >= 2
    sizes = [tuple(c[0].shape) if isinstance(c[0], torch.Tensor) else c[0] for c in exercise.cases]
    assert len(set(sizes)) >= 2, sizes


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_no_two_differently_named_mistakes_look_alike(exercise):
    """Each mistake is told apart by the first case where it differs from the answer, and its result there."""

    def signature(mistake):
        for number, inputs in enumerate(exercise.cases):
            try:
                got = mistake.wrong(*fresh(inputs))
            except Exception as err:
                return number, f"{type(err).__name__}: {err}"
            expected = answer(exercise, number)
            if got.shape != expected.shape or not torch.equal(got, expected):
                return number, got
        raise AssertionError(f"{mistake.name} gives the right answer for every case")

    seen = []
    for mistake in exercise.mistakes:
        number, result = signature(mistake)
        for other, (other_number, other_result) in seen:
            if other.name != mistake.name and number == other_number:
                if isinstance(result, str) or isinstance(other_result, str):
                    assert result != other_result, (mistake.name, other.name)
                else:
                    same = result.shape == other_result.shape and torch.allclose(
                        result.double(), other_result.double(), atol=exercise.atol, equal_nan=True
                    )
                    assert not same, (mistake.name, other.name)
        seen.append((mistake, (number, result)))


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_every_exercise_has_a_solution(exercise):
    assert callable(solution(exercise)), f"add {exercise.name} to solutions/{exercise.notebook}.py"


def test_every_solution_has_a_declaration():
    modules = sorted(p.stem for p in (ROOT / "solutions").glob("nb[0-9][0-9].py"))
    assert modules, "no solutions/nbNN.py found"
    for key in modules:
        module = importlib.import_module(f"solutions.{key}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ == module.__name__ and not name.startswith("_"):
                assert name in EXERCISES, f"solutions/{key}.py defines {name} but no exercise declares it"
                assert EXERCISES[name].notebook == key


CHECK_CALL = re.compile(r"""check\(\s*["'](\w+)["']\s*,\s*(\w+)\s*\)""")


def notebook_checks() -> dict[str, dict]:
    """notebook key → {"calls": [(exercise name, function name)], "stubs": {name: source}}, from the code cells."""
    found = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        stubs = {}
        for source in cells:
            for name in re.findall(r"^def (\w+)\(", source, flags=re.M):
                stubs[name] = source
        calls = [call for source in cells for call in CHECK_CALL.findall(source)]
        found["nb" + path.name[:2]] = {"calls": calls, "stubs": stubs, "path": path.name}
    return found


def test_every_notebook_check_names_a_declared_exercise_and_its_stub():
    notebooks = notebook_checks()
    assert any(nb["calls"] for nb in notebooks.values()), "no notebook calls check(...)"
    for key, nb in notebooks.items():
        for name, fn in nb["calls"]:
            assert name in EXERCISES, f"{nb['path']} checks {name!r}, which no helpers/exercises/nbNN.py declares"
            assert EXERCISES[name].notebook == key, f"{name} is declared in {EXERCISES[name].notebook}, not {key}"
            assert fn == name, f"{nb['path']}: pass the stub named like the exercise, check({name!r}, {name})"
            assert "NotImplementedError" in nb["stubs"].get(name, ""), f"{nb['path']} has no stub `def {name}(...)`"


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_every_exercise_is_checked_in_its_notebook(exercise):
    nb = notebook_checks().get(exercise.notebook)
    assert nb is not None, f"no notebook {exercise.notebook[2:]}_*.ipynb for {exercise.name}"
    assert exercise.name in {name for name, _ in nb["calls"]}, f"{nb['path']} never calls check({exercise.name!r}, ...)"


# ---------------------------------------------------------------------------------------------
# What the checker says


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_reference_solution_passes(exercise):
    feedback = check(exercise.name, solution(exercise))
    assert feedback.passed is True, feedback.message
    assert str(feedback).startswith("✅") and "in place" not in feedback.message


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_untouched_stub_is_your_turn(exercise):
    def stub(*args):
        # YOUR CODE HERE
        raise NotImplementedError

    feedback = check(exercise.name, stub)
    assert feedback.passed is None and feedback.mistake is None
    assert "fill in `stub`" in feedback.message and str(feedback).startswith("✏️")


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_forgetting_to_return_is_your_turn(exercise):
    def returns_nothing(*args):
        solution(exercise)(*args)

    feedback = check(exercise.name, returns_nothing)
    assert feedback.passed is None and "returns None" in feedback.message


@pytest.mark.parametrize("exercise, mistake", MISTAKES, ids=ids(MISTAKES))
def test_each_named_mistake_gets_its_own_name_and_hint(exercise, mistake):
    feedback = check(exercise.name, mistake.wrong)
    assert feedback.passed is False
    assert feedback.mistake == mistake.name, feedback.message
    assert mistake.hint in feedback.message


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_an_answer_hard_coded_for_the_first_case_fails(exercise):
    fixed = answer(exercise, 0)
    feedback = check(exercise.name, lambda *args: fixed.clone())
    assert feedback.passed is False and feedback.mistake == HARD_CODED, feedback.message
    assert "hard-code a size" in feedback.message


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_a_memoised_answer_fails(exercise):
    remembered = []

    def memoised(*args):
        if not remembered:
            remembered.append(solution(exercise)(*args))
        return remembered[0]

    feedback = check(exercise.name, memoised)
    assert feedback.passed is False and feedback.mistake == HARD_CODED, feedback.message


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_an_answer_of_one_fixed_shape_is_told_it_hard_codes_a_size(exercise):
    shape = answer(exercise, 0).shape
    feedback = check(exercise.name, lambda *args: torch.full(shape, 0.5))
    assert feedback.passed is False and feedback.mistake == HARD_CODED, feedback.message
    assert f"shape {tuple(shape)} whatever the input" in feedback.message


class RaisesWhenCalled:
    def __call__(self, *args):
        raise ValueError("broken on purpose")


def generator(*args):
    yield answer(ALL[0], 0)


def odd_answers(exercise: Exercise) -> dict:
    """Things a learner may hand over instead of a working function, by what they are."""
    shape = answer(exercise, 0).shape
    return {
        "None": None,
        "a tensor": answer(exercise, 0),
        "a string": "running average",
        "an object that raises": RaisesWhenCalled(),
        "returns a string": lambda *args: "tensor([[1., 0.], [0.5, 0.5]])",
        "returns a list": lambda *args: answer(exercise, 0).tolist(),
        "returns a dict": lambda *args: {"wei": answer(exercise, 0)},
        "returns a number": lambda *args: 0.5,
        "returns NaN": lambda *args: torch.full(shape, float("nan")),
        "returns a meta tensor": lambda *args: torch.empty(shape, device="meta"),
        "returns a bool tensor": lambda *args: torch.ones(shape, dtype=torch.bool),
        "returns a complex tensor": lambda *args: torch.ones(shape, dtype=torch.complex64),
        "returns an int tensor": lambda *args: solution(exercise)(*args).round().long() + 1,
        "is a generator": generator,
        "takes no input": lambda: answer(exercise, 0),
        "takes one input too many": with_inputs(len(exercise.cases[0]) + 1, answer(exercise, 0)),
        "divides by zero": lambda *args: 1 / 0,
        "indexes out of range": lambda *args: torch.zeros(3)[10],
    }


def with_inputs(count: int, result):
    """A function of exactly `count` inputs that ignores them and returns `result`."""
    return eval(f"lambda {', '.join(f'p{i}' for i in range(count))}: result", {"result": result})


ODD = [(e, what) for e in ALL for what in odd_answers(e)]


@pytest.mark.parametrize("exercise, what", ODD, ids=[f"{e.name}-{w}" for e, w in ODD])
def test_odd_answers_get_one_plain_sentence_and_never_raise(exercise, what):
    feedback = judge(exercise, odd_answers(exercise)[what])  # judge itself, not check's last-resort catch
    assert feedback.passed is False, feedback.message
    assert one_plain_sentence(feedback.message), feedback.message


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_a_function_with_the_wrong_parameters_is_told_what_to_take(exercise):
    wanted = list(inspect.signature(exercise.reference).parameters)[: len(exercise.cases[0])]
    too_many = with_inputs(len(wanted) + 1, None)  # one input too many

    feedback = check(exercise.name, too_many)
    count = "one input" if len(wanted) == 1 else f"{len(wanted)} inputs"
    assert feedback.passed is False and f"should take {count}, ({', '.join(wanted)})" in feedback.message


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_a_function_that_prints_still_passes(exercise, capsys):
    def chatty(*args):
        print("debugging", args)
        return solution(exercise)(*args)

    assert check(exercise.name, chatty).passed is True
    assert "debugging" in capsys.readouterr().out


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_an_answer_in_double_precision_or_needing_grad_passes(exercise):
    feedback = check(exercise.name, lambda *args: solution(exercise)(*args).double().requires_grad_())
    assert feedback.passed is True, feedback.message


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_an_answer_on_the_gpu_passes(exercise):
    feedback = check(exercise.name, lambda *args: solution(exercise)(*args).cuda())
    assert feedback.passed is True, feedback.message


@pytest.mark.parametrize("exercise", EXACT, ids=lambda e: e.name)
def test_a_weight_close_to_but_not_exactly_zero_is_named(exercise):
    def nearly(*args):
        out = exercise.reference(*args).clone()
        return out + 5e-5 * exercise.exact_zero(*args)

    feedback = check(exercise.name, nearly)
    assert feedback.passed is False and feedback.mistake == exercise.exact_zero_name, feedback.message
    assert "0.00" not in feedback.message


def test_the_exact_zero_rule_prints_the_tiny_weight_itself():
    feedback = check(
        "causal_average_weights",
        lambda T: torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None] + 5e-5 * torch.ones(T, T).triu(1),
    )
    assert feedback.mistake == "not_exactly_zero"
    assert "row 0 gives position 1 the weight 5e-05" in feedback.message


@pytest.mark.parametrize("value", [-10.0, -20.0, -1e4, -1e3])
def test_a_finite_mask_is_named_even_where_the_values_are_close(value):
    def finite(scores):
        T = scores.shape[-1]
        return torch.softmax(scores.masked_fill(torch.tril(torch.ones(T, T)) == 0, value), dim=-1)

    feedback = check("masked_softmax_weights", finite)
    assert feedback.passed is False and feedback.mistake == "finite_mask", feedback.message
    assert "float('-inf')" in feedback.message


@pytest.mark.parametrize("exercise", TENSOR_INPUT, ids=lambda e: e.name)
def test_changing_the_input_in_place_is_reported(exercise):
    before = fresh(exercise.cases[0])

    def scribbles(*args):
        result = solution(exercise)(*fresh(args))
        args[0].mul_(2)
        return result

    feedback = check(exercise.name, scribbles)
    assert feedback.passed is True and "changed its input in place" in feedback.message
    assert torch.equal(exercise.cases[0][0], before[0]), "the learner spoiled the exercise's own input"


# ---------------------------------------------------------------------------------------------
# Plain words for wrong answers that no named mistake matches


def shifted_row(fn, row, by=1.0):
    def learner(*args):
        out = fn(*args).clone()
        out[row] += by
        return out

    return learner


def running_average_range_6(x):
    out = torch.zeros_like(x)
    for t in range(6):
        out[t] = x[: t + 1].mean(0)
    return out


UNNAMED = [
    (
        "running_average",
        lambda: shifted_row(solution(EXERCISES["running_average"]), 3),
        "rows 0…2 are right, but row 3",
    ),
    ("running_average", lambda: shifted_row(solution(EXERCISES["running_average"]), 0), "row 0 should be x[0]"),
    ("running_average", lambda: running_average_range_6, "Take sizes from the input"),
    ("causal_average_weights", lambda: lambda T: torch.tril(torch.ones(T, T)) / T - 0.5 * torch.eye(T), "negative"),
    (
        "causal_average_weights",
        lambda: lambda T: (torch.tril(torch.ones(T, T)) + torch.eye(T)) / (torch.arange(T)[:, None] + 2),
        "not equal",
    ),
    ("causal_average_weights", lambda: lambda T: torch.full((T, T), float("inf")).tril(), "row 0 contains inf"),
    (
        "masked_softmax_weights",
        lambda: lambda s: torch.softmax(s.masked_fill(torch.ones_like(s).triu(1) == 1, float("-inf")), -1) * 0.5,
        "row 0 sums to 0.5: did you normalise by row",
    ),
    (
        "masked_softmax_weights",
        lambda: lambda s: torch.softmax(s, -1) * 0 + torch.eye(len(s)) + 0.1 * torch.ones_like(s).triu(1),
        "row 0 gives weight 0.1 to position 1, which is in its future",
    ),
    ("standardise_rows", lambda: lambda x: solution(EXERCISES["standardise_rows"])(x) + 1, "row 0 has mean 1;"),
    ("standardise_rows", lambda: lambda x: solution(EXERCISES["standardise_rows"])(x) * 2, "row 0 has variance 4;"),
]


@pytest.mark.parametrize("name, make, words", UNNAMED, ids=[w for _, _, w in UNNAMED])
def test_unnamed_wrong_answers_get_plain_words(name, make, words):
    feedback = check(name, make())
    assert feedback.passed is False and feedback.mistake is None, feedback.message
    assert words in feedback.message


@pytest.mark.parametrize(
    "weights, words",
    [
        ([[1.0, 0.0], [float("nan"), 0.5]], "row 1 contains NaN"),
        ([[1.0, 0.0], [1.5, -0.5]], "row 1 gives position 1 a negative weight (-0.5)"),
        ([[1.0, 5e-5], [0.5, 0.5]], "row 0 gives weight 5e-05 to position 1"),
        ([[1.0, 0.0], [0.5, 1.0]], "row 1 sums to 1.5"),
        ([[1.0, 0.0], [0.25, 0.75]], None),
    ],
)
def test_explain_weights_names_the_first_problem(weights, words):
    said = explain_weights(torch.tensor(weights), None, ())
    assert said == words if words is None else words in said


@pytest.mark.parametrize(
    "value, text", [(5e-5, "5e-05"), (4.54e-5, "4.5e-05"), (0.25, "0.25"), (2.0833, "2.08"), (3.0, "3"), (0.0, "0")]
)
def test_numbers_are_printed_sensibly(value, text):
    assert fmt(value) == text


# ---------------------------------------------------------------------------------------------
# The registry


def test_an_unknown_exercise_name_is_one_sentence():
    feedback = check("no_such_exercise", lambda x: x)
    assert feedback.passed is False and "running_average" in feedback.message


def test_two_notebooks_cannot_declare_the_same_name():
    known = EXERCISES["running_average"]
    with pytest.raises(ValueError, match="Two exercises"):
        declare(Exercise("running_average", known.reference, known.cases), notebook="nb99")
    assert EXERCISES["running_average"] is known


def test_declare_records_the_declaring_notebook():
    assert {e.notebook for e in ALL} >= {"nb01", "nb02", "nb03"}
    assert all(re.fullmatch(r"nb\d\d", e.notebook) for e in ALL)


def test_a_tensor_made_on_another_device_is_explained():
    def on_the_lesson_device(scores):
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices")

    feedback = check("masked_softmax_weights", on_the_lesson_device)
    assert feedback.passed is False
    assert "device=scores.device" in feedback.message and "CPU tensors" in feedback.message


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_an_answer_that_builds_its_mask_on_the_gpu_is_told_why_it_fails():
    def copied_from_the_lesson(scores):
        tril = torch.tril(torch.ones(scores.shape[-1], scores.shape[-1], device="cuda"))
        return torch.softmax(scores.masked_fill(tril == 0, float("-inf")), dim=-1)

    feedback = check("masked_softmax_weights", copied_from_the_lesson)
    assert feedback.passed is False and "device=scores.device" in feedback.message
