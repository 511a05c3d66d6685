"""Every "your turn" exercise, discovered from its declaration and proved by one set of tests.

For each declared exercise: its solution in solutions/<notebook>.py passes, an untouched stub is
"your turn", each named mistake gets its own name and hint, a hard-coded or memoised answer fails,
odd things a learner may hand over get one plain sentence (never a traceback), a weight that must be
exactly 0 but is not is named, and changing the input in place is reported. Adding an exercise
(an Exercise in its notebook module's EXERCISES, and a solution) adds its tests here without editing this file.
"""

import importlib
import inspect
import math
import re
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
import torch
import torch.nn.functional as F

from helpers.attention import future_mask
from helpers.exercises import core
from helpers.exercises.core import (
    FLOOR_DIVISION,
    HARD_CODED,
    LOW_PRECISION,
    MASKED_WEIGHTS,
    NO_GRADIENT,
    NO_SOFTMAX,
    ONE_SEQUENCE,
    RANDOM,
    SHOWN_LINES,
    UNWRITTEN,
    WHOLE_NUMBERS,
    Exercise,
    FilledEmpty,
    Mistake,
    all_exercises,
    as_float,
    check,
    explain_difference,
    fmt,
    fmt_apart,
    fresh,
    gives_the_answer,
    judge,
    not_exactly_zero,
    outcome,
    random_words,
    size_of,
    torch_calls,
)
from helpers.exercises.explain import explain_scores, explain_weights
from helpers.explorers import nb11

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = all_exercises()
ALL = sorted(EXERCISES.values(), key=lambda e: (e.notebook, e.name))
MISTAKES = [(e, m) for e in ALL for m in e.mistakes]
EXACT = [e for e in ALL if e.exact_zeros is not None]
TENSOR_INPUT = [e for e in ALL if isinstance(e.cases[0][0], torch.Tensor)]


def ids(items):
    return [f"{e.name}-{m.name}" if isinstance(m, Mistake) else e.name for e, m in items]


def solution(exercise: Exercise):
    """The reference solution the learner's stub is named after, from solutions/<notebook>.py."""
    where = f"solutions/{exercise.notebook}.py"
    if not (ROOT / where).is_file():
        pytest.fail(f"{where} is missing: write the reference solution of {exercise.name} there, a function of that "
                    "name.", pytrace=False)
    found = getattr(importlib.import_module(f"solutions.{exercise.notebook}"), exercise.name, None)
    if not callable(found):
        pytest.fail(f"add {exercise.name}, its reference solution, to {where}: a function of that name.", pytrace=False)
    return found


def answer(exercise: Exercise, number: int) -> torch.Tensor:
    return exercise.reference(*fresh(exercise.cases[number]))


def one_plain_sentence(message: str) -> bool:
    return bool(message.strip()) and "\n" not in message and "Traceback" not in message


# ---------------------------------------------------------------------------------------------
# What every exercise's declaration must hold


def test_each_notebook_modules_exercises_are_found_and_told_their_notebook():
    mine = Exercise("mine", lambda x: x, ((torch.ones(2),), (torch.ones(3),)))
    found = all_exercises({"nb42": SimpleNamespace(EXERCISES=(mine,)), "nb43": SimpleNamespace()})
    assert list(found) == ["mine"] and found["mine"].notebook == "nb42" and mine.notebook == ""
    for exercise in ALL:  # each one is declared by the module its notebook key names
        module = importlib.import_module(f"helpers.explorers.{exercise.notebook}")
        assert exercise.name in [e.name for e in module.EXERCISES]


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_at_least_two_cases_of_different_sizes(exercise):
    assert len(exercise.cases) >= 2
    sizes = [tuple(c[0].shape) if isinstance(c[0], torch.Tensor) else c[0] for c in exercise.cases]
    assert len(set(sizes)) >= 2, sizes


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_no_two_differently_named_mistakes_look_alike(exercise):
    """Each mistake is told apart by the cases the checker fails it on: another mistake with another name may give
    its result on the first of them (1/8 is 1/(2 · head_size) for a head size of 4), but then not on every other one,
    since the checker names the mistake that gives the answer's result on the most failed cases."""

    def failed_cases(mistake):
        failed = {}
        for number, inputs in enumerate(exercise.cases):
            got = outcome(mistake, fresh(inputs))
            if isinstance(got, Exception):
                failed[number] = f"{type(got).__name__}: {got}"
            elif not (gives_the_answer(exercise, mistake, inputs)
                      and not not_exactly_zero(exercise, inputs, as_float(got)).any()):
                failed[number] = got
        assert failed, f"{mistake.name} gives the right answer for every case"
        return failed

    def alike(result, other):
        if isinstance(result, str) or isinstance(other, str):
            return result == other
        return result.shape == other.shape and torch.allclose(result.double(), other.double(), atol=exercise.atol,
                                                              equal_nan=True)

    seen = []
    for mistake in exercise.mistakes:
        failed = failed_cases(mistake)
        for other, other_failed in seen:
            if other.name != mistake.name and min(failed) == min(other_failed):
                assert not all(number in other_failed and alike(result, other_failed[number])
                               for number, result in failed.items()), (mistake.name, other.name)
        seen.append((mistake, failed))


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_every_exercise_has_a_solution(exercise):
    assert callable(solution(exercise))  # solution() fails first, saying what to add, when solutions/nbNN.py lacks it


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
            assert name in EXERCISES, (
                f"{nb['path']} checks {name!r}, which no helpers/explorers/nbNN.py declares in its EXERCISES"
            )
            assert EXERCISES[name].notebook == key, f"{name} is declared in {EXERCISES[name].notebook}, not {key}"
            assert fn == name, f"{nb['path']}: pass the stub named like the exercise, check({name!r}, {name})"
            assert name in nb["stubs"], f"{nb['path']} has no stub `def {name}(...)` in a code cell"
            assert "NotImplementedError" in nb["stubs"][name], (
                f"{nb['path']}: the stub `def {name}(...)` must end in `raise NotImplementedError` (the learner "
                "writes the body; until then check() answers \"your turn\"), not hold an answer"
            )


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_every_exercise_is_checked_in_its_notebook(exercise):
    nb = notebook_checks().get(exercise.notebook)
    assert nb is not None, f"no notebook {exercise.notebook[2:]}_*.ipynb for {exercise.name}"
    assert exercise.name in {name for name, _ in nb["calls"]}, f"{nb['path']} never calls check({exercise.name!r}, ...)"


def quoted_case_shapes(path: Path, name: str) -> list[tuple[int, ...]]:
    """The shapes that the "Your turn" text of exercise `name` says its checker tries: every (4, 2) or 5 × 5 in the
    sentences from "The checker" on, up to the end of that sentence (or of the next, where it goes on)."""
    for cell in nbformat.read(path, as_version=4).cells:
        text = " ".join(cell.source.split())
        if cell.cell_type == "markdown" and f"`{name}(" in text and "The checker" in text:
            sentence = re.match(r"The checker.*?\.(?=\s[A-Z]|$)", text[text.index("The checker"):])[0]
            tuples = [tuple(map(int, t.split(", "))) for t in re.findall(r"\((\d+(?:, \d+)+)\)", sentence)]
            return tuples + [(int(a), int(b)) for a, b in re.findall(r"(\d+) × (\d+)", sentence)]
    return []


def test_the_sizes_each_exercise_text_says_its_checker_tries_are_its_cases():
    quoted = 0
    for exercise in ALL:
        path = ROOT / "notebooks" / notebook_checks()[exercise.notebook]["path"]
        shapes = {tuple(case[0].shape) for case in exercise.cases if torch.is_tensor(case[0])}
        for shape in quoted_case_shapes(path, exercise.name):
            quoted += 1
            assert shape in shapes, f"{path.name} says the checker of {exercise.name} tries {shape}, not among {shapes}"
    assert quoted >= 12, f"only {quoted} shapes quoted: does the sentence 'The checker tries …' still exist?"


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


def test_a_slip_on_one_size_but_not_the_next_is_told_the_right_sizes_once():
    # Right for n = 3, like the every-case slip "times n" for n = 4, like nothing for n = 5: it follows some sizes
    # only, and the sentence says which were right once (not again in front of the hard-coded words).
    toy = Exercise("double", lambda x: x * 2, cases=tuple((torch.arange(n) + 1.0,) for n in (3, 4, 5)),
                   mistakes=(Mistake("times_n", lambda x: x * x.shape[0], "you multiplied by n.", every_case=True),))

    def double(x):
        return x * {3: 2, 4: 4, 5: 7}[x.shape[0]]

    feedback = judge(toy, double)
    assert feedback.mistake == HARD_CODED, feedback.message
    assert feedback.message.startswith("right for a (3,) input but wrong for a (4,) input: "), feedback.message


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
def test_every_reference_and_mistake_gives_the_same_on_a_case_whatever_the_random_state(exercise):
    # The checker keeps what they give on each case (on_case): that is right only if nothing in them is random.
    def run(fn, inputs, seed):
        torch.manual_seed(seed)
        got = outcome(Mistake("", fn, ""), fresh(inputs))
        return f"{type(got).__name__}: {got}" if isinstance(got, BaseException) else as_float(got)

    for fn in (exercise.reference, *(m.wrong for m in exercise.mistakes)):
        for inputs in exercise.cases:
            first, again = run(fn, inputs, 0), run(fn, inputs, 1)
            same = first == again if isinstance(first, str) else torch.equal(first.nan_to_num(), again.nan_to_num())
            assert same, f"{exercise.name}: {getattr(fn, '__name__', fn)} gives two results for one case"


def test_a_result_kept_under_one_default_dtype_is_not_used_under_another(monkeypatch):
    monkeypatch.setattr(core, "KEPT", {})  # nothing kept yet: the first check below keeps its results under float64

    def block_forward(x, ln1, heads, ln2, ffwd):  # new LayerNorms: under float64 the slip's own ones raise
        ln = torch.nn.LayerNorm(x.shape[-1])
        x = x + heads(ln(x))
        return x + ffwd(ln(x))

    try:
        torch.set_default_dtype(torch.float64)  # a learner's cell, say
        in_float64 = check("block_forward", block_forward)
    finally:
        torch.set_default_dtype(torch.float32)
    assert in_float64.mistake == check("block_forward", block_forward).mistake == "default_layer_norms"


def test_the_checker_runs_on_a_pytorch_without_get_default_device(monkeypatch):
    # torch.get_default_device came in PyTorch 2.3; older versions ran the course (README, Supported versions)
    monkeypatch.delattr(torch, "get_default_device")
    monkeypatch.setattr(core, "KEPT", {})
    assert core.default_device() == torch.device("cpu")
    assert check("multi_head", solution(EXERCISES["multi_head"])).passed


def test_the_results_kept_between_checks_stay_few_and_change_no_verdict(monkeypatch):
    right = solution(EXERCISES["multi_head"])
    answers = [right, lambda *args: right(*args) * 2, lambda *args: right(*args)[..., :-1]]  # right, doubled, cut
    verdicts = [check("multi_head", fn) for fn in answers]
    monkeypatch.setattr(core, "KEPT_AT_MOST", 5)
    monkeypatch.setattr(core, "KEPT", {})
    assert [check("multi_head", fn) for fn in answers] == verdicts
    assert 0 < len(core.KEPT) <= 5


def test_what_an_answer_prints_is_shown_for_each_case_and_not_for_the_reruns(capsys):
    def running_average(x):  # random: the checker calls it again and again to find that out
        print("x has shape", tuple(x.shape))
        return F.dropout(x.cumsum(-2) / torch.arange(1, x.shape[-2] + 1).unsqueeze(-1), 0.1)

    assert check("running_average", running_average).mistake == RANDOM
    cases = all_exercises()["running_average"].cases
    assert capsys.readouterr().out.splitlines() == [f"x has shape {tuple(x.shape)}" for x, in cases]


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
        return out + 5e-5 * exercise.exact_zeros.where(*args)

    feedback = check(exercise.name, nearly)
    assert feedback.passed is False and feedback.mistake == exercise.exact_zeros.name, feedback.message
    assert "0.00" not in feedback.message


def test_the_exact_zero_rule_prints_the_tiny_weight_itself():
    feedback = check(
        "causal_average_weights",
        lambda T: torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None] + 5e-5 * torch.ones(T, T).triu(1),
    )
    assert feedback.mistake == "not_exactly_zero"
    assert "every weight that must be exactly 0 is 5e-05, one number in every such place" in feedback.message


def test_a_small_number_added_to_tril_is_told_to_keep_its_zeros_not_only_to_start_from_it():
    def tril_plus_epsilon(T):  # a learner who did start from tril, then added a tiny number "to be safe"
        tril = torch.tril(torch.ones(T, T)) + 1e-9
        return tril / tril.sum(1, keepdim=True)

    feedback = check("causal_average_weights", tril_plus_epsilon)
    assert feedback.mistake == "not_exactly_zero" and "add nothing to the zeros" in feedback.message, feedback.message


def test_averaging_weights_from_a_softmax_with_a_finite_mask_are_told_to_mask_with_minus_infinity():
    def softmax_of_zeros(T):  # a softmax, ahead of notebook 03, its future masked with −20: e^−20 is 2.1e-09
        return F.softmax(torch.zeros(T, T).masked_fill(torch.ones(T, T).triu(1).bool(), -20.0), dim=-1)

    feedback = check("causal_average_weights", softmax_of_zeros)
    assert feedback.mistake == "not_exactly_zero" and "mask with float('-inf')" in feedback.message, feedback.message


@pytest.mark.parametrize("name, fn", [
    ("masked_softmax_weights", lambda s: F.softmax(s.masked_fill(torch.ones_like(s).triu(1) > 0, float("-inf")),
                                                   dim=-1).clamp(min=1e-9)),
    ("causal_average_weights", lambda T: (torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]).clamp(1e-6)),
])
def test_a_step_that_lifts_the_exact_zeros_after_they_were_made_is_told_so_not_to_change_the_mask(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and "a step after the zeros were made (a clamp" in feedback.message, (
        feedback.message)
    assert "float('-inf')" not in feedback.message


def test_a_finite_mask_still_varies_in_the_future_and_is_told_it_is_finite():
    feedback = check("masked_softmax_weights",
                     lambda s: F.softmax(s.masked_fill(torch.ones_like(s).triu(1) > 0, -20.0), dim=-1))
    assert feedback.passed is False and "one number in every such place" not in feedback.message, feedback.message


@pytest.mark.parametrize("value", [-10.0, -20.0, -1e4, -1e3])
def test_a_finite_mask_is_named_even_where_the_values_are_close(value):
    def finite(scores):
        T = scores.shape[-1]
        return torch.softmax(scores.masked_fill(torch.tril(torch.ones(T, T)) == 0, value), dim=-1)

    feedback = check("masked_softmax_weights", finite)
    assert feedback.passed is False and feedback.mistake == "finite_mask", feedback.message
    assert "float('-inf')" in feedback.message


IN_PLACE = {  # ways a learner's function can change its input in place
    "values": lambda x: x.mul_(2),
    "shape": lambda x: x.unsqueeze_(0),
    "dtype": lambda x: setattr(x, "data", x.data.double()),
}


@pytest.mark.parametrize("change", IN_PLACE)
@pytest.mark.parametrize("exercise", TENSOR_INPUT, ids=lambda e: e.name)
def test_changing_the_input_in_place_is_reported(exercise, change):
    before = fresh(exercise.cases[0])

    def scribbles(*args):
        result = solution(exercise)(*fresh(args))
        IN_PLACE[change](args[0])
        return result

    feedback = check(exercise.name, scribbles)  # its result does not depend on the input it changed afterwards
    assert feedback.passed is True and "changed its input in place" in feedback.message
    assert "training stops with an error" in feedback.message, "and why that can matter in a model"
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


def running_average_over_the_width(x):
    out = torch.zeros_like(x)
    for t in range(x.shape[1]):  # C, not T
        out[t] = x[: t + 1].mean(0)
    return out


def running_average_one_row_short(x):
    out = torch.zeros_like(x)
    for t in range(len(x) - 1):
        out[t] = x[: t + 1].mean(0)
    return out


def running_average_written_into_x(x):
    out = x  # not a copy: out and x are one tensor
    for t in range(len(x)):
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
    ("running_average", lambda: running_average_over_the_width,
     "rows 2 and 3 are all 0, as if never written: your loop stopped after 2 rows"),
    ("running_average", lambda: running_average_one_row_short,
     "row 3 is all 0, as if never written: your loop stopped after 3 rows."),
    (  # a batch's dimension asked of a (T, T) matrix
        "causal_average_weights",
        lambda: lambda T: torch.tril(torch.ones(T, T)) / torch.tril(torch.ones(T, T)).sum(2, keepdim=True),
        "asks for a dimension this tensor does not have",
    ),
    (  # * where @ belongs, where no named mistake raises alike
        "attend",
        lambda: lambda x, w_q, w_k, w_v: torch.softmax(x * w_q.T, dim=-1),
        "If you meant a matrix product, write @, not *",
    ),
    ("causal_average_weights", lambda: lambda T: torch.tril(torch.ones(T, T)) / T - 0.5 * torch.eye(T), "negative"),
    (
        "causal_average_weights",
        lambda: lambda T: (torch.tril(torch.ones(T, T)) + torch.eye(T)) / (torch.arange(T)[:, None] + 2),
        "not equal",
    ),
    (
        "causal_average_weights",
        lambda: lambda T: torch.full((T, T), float("inf")).tril(),
        "row 0 gives position 0 the weight inf, but a weight lies between 0 and 1",
    ),
    (  # the mask written as a product: 0 × (−∞) is NaN
        "masked_softmax_weights",
        lambda: lambda s: torch.softmax(s * s.new_ones(s.shape).tril() + s.new_ones(s.shape).triu(1) * float("-inf"),
                                        -1),
        "is −∞ multiplied by 0",
    ),
    (
        "masked_softmax_weights",
        lambda: lambda s: torch.softmax(s.masked_fill(torch.ones_like(s).triu(1) == 1, float("-inf")), -1) * 0.5,
        "every weight is 0.5 times the right one, so every row sums to 0.5",
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
    said = explain_weights(torch.tensor(weights), None, (), atol=1e-4)
    assert said == words if words is None else words in said


def test_explain_weights_judges_a_row_sum_by_the_tolerance_it_is_given():
    weights = torch.tensor([[1.0, 0.0], [0.5, 0.502]])
    assert "row 1 sums to 1" in explain_weights(weights, None, (), atol=1e-4)
    assert explain_weights(weights, None, (), atol=1e-2) is None


def test_explain_scores_compares_the_past_within_the_tolerance_it_is_given():
    expected = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    got = torch.tensor([[1.001, 7.0], [3.0, 4.0]], dtype=torch.float64)  # past 0.001 off, the future filled with 7
    assert "every future one is 7" in explain_scores(got, expected, (), 1e-2, scale="")
    assert explain_scores(got, expected, (), 1e-4, scale="") is None


def test_every_explain_is_handed_the_exercises_own_tolerance():
    told = []

    def explain(got, expected, inputs, atol):
        told.append(atol)
        return "said by explain"

    loose = Exercise("loose", lambda x: x * 2, ((torch.ones(2),), (torch.ones(3),)), explain=explain, atol=0.05)
    feedback = judge(loose, lambda x: x * 3)
    assert feedback.passed is False and "said by explain" in feedback.message
    assert told and set(told) == {0.05}  # once per case it judged


@pytest.mark.parametrize("exercise", [e for e in ALL if e.explain], ids=lambda e: e.name)
def test_each_declared_explain_takes_the_tolerance(exercise):
    try:
        inspect.signature(exercise.explain).bind("got", "expected", "inputs", "atol")
    except TypeError as err:
        pytest.fail(f"{exercise.name}'s explain must take (got, expected, inputs, atol), the exercise's tolerance "
                    f"last: {err}", pytrace=False)


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
    twice = {"nb01": SimpleNamespace(EXERCISES=(known,)), "nb99": SimpleNamespace(EXERCISES=(known,))}
    with pytest.raises(ValueError, match=r"Two exercises are called 'running_average' \(nb01 and nb99\)"):
        all_exercises(twice)


def test_a_first_entry_nearly_right_comes_with_the_largest_difference():
    got, expected = torch.tensor([[1.35, 0.0], [0.0, 2.5]]), torch.tensor([[1.36, 0.0], [0.0, 1.4]])
    said = explain_difference(got, expected, atol=1e-4)
    assert "entry [0, 0] is 1.35 where the reference has 1.36; the largest difference is 1.1, at entry [1, 1];" in said
    assert "largest" not in explain_difference(torch.tensor([1.0, 5.0]), torch.tensor([2.0, 5.5]), atol=1e-4)


@pytest.mark.parametrize("exercise", [e for e in ALL if len(e.cases[0]) > 1], ids=lambda e: e.name)
def test_parameters_in_another_order_are_named_with_the_order_to_use(exercise):
    names = list(inspect.signature(exercise.reference).parameters)[: len(exercise.cases[0])]
    reversed_names = ", ".join(reversed(names))
    namespace = {}
    exec(f"def {exercise.name}({reversed_names}):\n    return None", namespace)
    feedback = check(exercise.name, namespace[exercise.name])  # returns None so far: "your turn", and the order
    assert feedback.passed is None and f"the inputs come in the order ({', '.join(names)})" in feedback.message


@pytest.mark.parametrize("passed, said", [(torch.nn.Module, "the class Module"),
                                          (torch.nn.LayerNorm(4), "a module (LayerNorm)")])
def test_a_class_or_a_module_is_told_to_pass_a_plain_function(passed, said):
    feedback = check("block_forward", passed)
    assert feedback.passed is False and feedback.message.startswith(f"you passed {said}; pass a plain function")


@pytest.mark.parametrize("cut", [lambda out: out.detach(), lambda out: torch.tensor(out.tolist())])
def test_a_right_block_that_carries_no_gradient_is_not_yet_right(cut):
    feedback = check("block_forward", lambda *parts: cut(solution(EXERCISES["block_forward"])(*parts)))
    assert feedback.passed is False and feedback.mistake == NO_GRADIENT and "carries no gradient" in feedback.message


def parts_without_gradient(x, ln1, heads, ln2, ffwd):
    with torch.no_grad():  # the right numbers, but the heads and the feed-forward would never learn
        a = heads(ln1(x))
    x = x + a
    with torch.no_grad():
        b = ffwd(ln2(x))
    return x + b


def parts_read_a_detached_x(x, ln1, heads, ln2, ffwd):
    x = x + heads(ln1(x.detach()))
    return x + ffwd(ln2(x.detach()))


@pytest.mark.parametrize("fn", [
    parts_without_gradient,
    parts_read_a_detached_x,
    lambda *parts: solution(EXERCISES["block_forward"])(*parts).detach().requires_grad_(),
    lambda *parts: torch.tensor(solution(EXERCISES["block_forward"])(*parts).tolist(), requires_grad=True),
], ids=["no_grad parts", "detached x", "detach then requires_grad_", "new leaf"])
def test_a_right_block_whose_gradient_misses_x_is_not_yet_right(fn):
    # each result carries a gradient, so only comparing the gradient with the reference's tells these apart
    feedback = check("block_forward", fn)
    assert feedback.passed is False and feedback.mistake == NO_GRADIENT, feedback.message
    assert "its gradient with respect to `x` is not the reference's" in feedback.message


def test_a_gradient_that_a_plain_sum_would_miss_is_still_compared():
    def extra_gradient(x, *parts):  # the right numbers, plus a term whose value is 0 but whose gradient is not
        normed = torch.nn.functional.layer_norm(x, x.shape[-1:])  # rows that always sum to 0
        return solution(EXERCISES["block_forward"])(x, *parts) + (normed - normed.detach())

    feedback = check("block_forward", extra_gradient)
    assert feedback.passed is False and feedback.mistake == NO_GRADIENT, feedback.message


def test_a_block_that_adds_in_place_is_told_that_backward_would_fail():
    def in_place(x, ln1, heads, ln2, ffwd):
        x += heads(ln1(x))  # ln1 kept x for the gradient; += changes it
        x += ffwd(ln2(x))
        return x

    feedback = check("block_forward", in_place)
    assert feedback.passed is False and feedback.mistake == NO_GRADIENT and "changed in place" in feedback.message


def test_a_block_whose_feed_forward_reads_the_heads_copy_is_told_it_never_sees_what_they_added():
    def old_copy(x, ln1, heads, ln2, ffwd):
        h = ln1(x)
        x = x + heads(h)
        return x + ffwd(ln2(h))  # h is the copy of the x that came in

    feedback = check("block_forward", old_copy)
    assert feedback.passed is False and feedback.mistake == "old_copy", feedback.message
    assert "never sees what the heads added" in feedback.message


@pytest.mark.parametrize("factor", [0.5, 2.0])
def test_an_answer_scaled_by_one_factor_is_told_so_where_no_hint_of_its_own_says_more(factor):
    feedback = check("block_forward", lambda *parts: factor * solution(EXERCISES["block_forward"])(*parts))
    assert feedback.passed is False and feedback.mistake is None, feedback.message
    assert f"every entry is {factor:g} times the reference's" in feedback.message


def test_an_answer_off_in_sign_or_by_a_hair_is_not_called_scaled():
    for wrong in (lambda *parts: -solution(EXERCISES["block_forward"])(*parts),
                  lambda *parts: 1.005 * solution(EXERCISES["block_forward"])(*parts)):
        feedback = check("block_forward", wrong)
        assert feedback.passed is False and "times the reference's" not in feedback.message, feedback.message


def test_explain_difference_uses_the_tolerance_it_is_given():
    got, expected = torch.tensor([1.0, 2.0005]), torch.tensor([1.0, 2.0])
    assert "entry 1 is 2.0005 where the reference has 2" in explain_difference(got, expected, atol=1e-4)
    said = explain_difference(got, expected, atol=1e-3)  # nothing differs by more: a sentence, not an IndexError
    assert one_plain_sentence(said) and "entry" not in said


@pytest.mark.parametrize("name, first_input", [("masked_softmax_weights", "scores"), ("attend", "x")])
def test_a_tensor_made_on_another_device_is_explained(name, first_input):
    def on_the_lesson_device(*inputs):
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices")

    feedback = check(name, on_the_lesson_device)
    assert feedback.passed is False
    assert f"device={first_input}.device" in feedback.message and "CPU tensors" in feedback.message


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_an_answer_that_builds_its_mask_on_the_gpu_is_told_why_it_fails():
    def copied_from_the_lesson(scores):
        tril = torch.tril(torch.ones(scores.shape[-1], scores.shape[-1], device="cuda"))
        return torch.softmax(scores.masked_fill(tril == 0, float("-inf")), dim=-1)

    feedback = check("masked_softmax_weights", copied_from_the_lesson)
    assert feedback.passed is False and "device=scores.device" in feedback.message


# ---------------------------------------------------------------------------------------------
# Issue 17: the real reason, never "hard-coded" in its place


def attend_with_dot_T(x, w_q, w_k, w_v):
    """A head written for one sequence: k.T reverses every dimension of a batch."""
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    wei = (q @ k.T).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1) @ v


FOR_ONE_SEQUENCE = [  # the issue's examples, verbatim where it gives them
    ("scaled_scores", lambda q, k: q @ k.T * k.shape[-1] ** -0.5),
    ("scaled_scores", lambda q, k: q @ k.t() * k.shape[-1] ** -0.5),
    ("scaled_scores", lambda q, k: torch.mm(q, k.T) * k.shape[-1] ** -0.5),
    ("scaled_scores", lambda q, k: torch.einsum("td,sd->ts", q, k) * k.shape[-1] ** -0.5),
    ("attention_scores", lambda q, k: q @ k.T),
    ("attend", attend_with_dot_T),
]


@pytest.mark.filterwarnings("ignore:The use of `x.T`")
@pytest.mark.parametrize("name, fn", FOR_ONE_SEQUENCE, ids=["k.T", "k.t()", "torch.mm", "2-D einsum", "scores k.T",
                                                          "attend k.T"])
def test_a_step_written_for_one_matrix_gets_the_lessons_transpose_diagnosis(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and feedback.mistake == ONE_SEQUENCE, feedback.message
    assert "transpose(-2, -1)" in feedback.message and ".T reverses every dimension" in feedback.message
    assert "hard-code" not in feedback.message


def multi_head_for_one_sequence(x, wq, wk, wv, proj):
    """Notebook 10's heads written for one sequence: T read from the first dimension, k.T for the transpose."""
    T = x.shape[0]
    outs = []
    for h in range(wq.shape[0]):
        q, k, v = x @ wq[h], x @ wk[h], x @ wv[h]
        wei = (q @ k.T * k.shape[-1] ** -0.5).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
        outs.append(torch.softmax(wei, dim=-1) @ v)
    return proj(torch.cat(outs, dim=-1))


@pytest.mark.filterwarnings("ignore:The use of `x.T`")
def test_the_one_sequence_diagnosis_cuts_the_batch_but_not_the_heads_weights():
    # multi_head's weights (n_head, C, head_size) have as many dimensions as x (B, T, C): only x is a batch
    feedback = check("multi_head", multi_head_for_one_sequence)
    assert feedback.passed is False and feedback.mistake == ONE_SEQUENCE, feedback.message
    assert "count sizes from the end (x.shape[-2]" in feedback.message


@pytest.mark.parametrize(
    "name, fn",
    [
        ("running_average", lambda x: x.mean()),
        ("attention_scores", lambda q, k: (q * k).sum()),
        ("standardise_rows", lambda x: x.std()),
    ],
    ids=["mean", "sum", "std"],
)
def test_a_reduction_to_one_number_is_told_its_shape_not_a_hard_coded_size(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and feedback.mistake != HARD_CODED, feedback.message
    assert "your result has shape (), but it should be (" in feedback.message and "hard-code" not in feedback.message


def attend_masking_by_product(x, w_q, w_k, w_v):
    """notebook 06's attend with the mask added as −∞ times a 0/1 matrix: 0 × (−∞) is NaN wherever it may look."""
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    wei = q @ k.transpose(-2, -1) + torch.ones(T, T).triu(1) * float("-inf")
    return torch.softmax(wei, dim=-1) @ v


def attend_masking_itself(x, w_q, w_k, w_v):
    """notebook 06's attend with tril(diagonal=-1): position 0 may see nothing, and its softmax is NaN."""
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    wei = (q @ k.transpose(-2, -1)).masked_fill(torch.tril(torch.ones(T, T), diagonal=-1) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1) @ v


def test_masking_the_diagonal_too_is_named_however_it_is_written():
    feedback = check("attend", attend_masking_itself)
    assert feedback.passed is False and feedback.mistake == "masked_the_present", feedback.message


def test_a_nan_in_an_exercise_without_its_own_explanation_is_told_what_makes_nan():
    feedback = check("attend", attend_masking_by_product)
    assert feedback.passed is False, feedback.message
    assert "entry [0, 0] is NaN (not a number)" in feedback.message
    assert "does each position still see itself" in feedback.message


def running_average_into_whole_numbers(x):
    out = torch.zeros(x.shape, dtype=torch.long)  # each average is truncated as it is stored
    for t in range(len(x)):
        out[t] = x[: t + 1].mean(0)
    return out


def averaging_weights_in_whole_numbers(T):
    tril = torch.tril(torch.ones(T, T, dtype=torch.long))
    return tril // tril.sum(1, keepdim=True)


@pytest.mark.parametrize(
    "name, fn", [("running_average", running_average_into_whole_numbers),
                 ("causal_average_weights", averaging_weights_in_whole_numbers)]
)
def test_a_wrong_answer_in_whole_numbers_is_told_about_whole_numbers(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and feedback.mistake == WHOLE_NUMBERS, feedback.message
    assert "(torch.int64), which cannot hold fractions" in feedback.message


@pytest.mark.parametrize("answer, mistake, words", [
    (lambda x: x // 2, FLOOR_DIVISION, "the right one rounded down"),
    (lambda x: (x.long() // 2) if len(x) > 2 else x / 2, WHOLE_NUMBERS, "holds whole numbers (torch.int64)"),
    (lambda x: x.half() / 2 if len(x) > 2 else x / 2, LOW_PRECISION, "is in torch.float16"),
])
def test_a_cause_of_its_own_found_after_right_cases_names_the_sizes_that_were_right(answer, mistake, words):
    halves = Exercise("halves", lambda x: x / 2, ((torch.tensor([2.0, 4.0]),), (torch.tensor([1.0, 3.0, 5.0]),)))
    feedback = judge(halves, answer)
    assert feedback.passed is False and feedback.mistake == mistake, feedback.message
    assert feedback.message.startswith("for a (3,) input (a (2,) input was right), ") and words in feedback.message


def test_a_right_answer_in_whole_numbers_still_passes():
    exercise = EXERCISES["causal_average_weights"]
    whole = Exercise("whole", lambda T: torch.tril(torch.ones(T, T)), exercise.cases)
    assert judge(whole, lambda T: torch.tril(torch.ones(T, T, dtype=torch.long))).passed is True


def test_standardising_without_eps_is_caught_by_a_row_of_equal_numbers():
    def no_eps(x):
        return (x - x.mean(-1, keepdim=True)) / x.var(-1, unbiased=False, keepdim=True).sqrt()

    feedback = check("standardise_rows", no_eps)
    assert feedback.passed is False and feedback.mistake == "no_eps", feedback.message
    passed = check("standardise_rows", solution(EXERCISES["standardise_rows"]))
    assert "for a (4, 4) input, a (3, 6) input and a (3, 5) input." in passed.message


@pytest.mark.parametrize("eps, named", [(2e-4, "0.0002"), (5e-4, "0.0005"), (1e-3, "0.001"), (0.1, "0.1")])
def test_a_larger_eps_is_named_with_the_eps_it_added(eps, named):
    feedback = check("standardise_rows", lambda x: F.layer_norm(x, x.shape[-1:], eps=eps))
    assert feedback.passed is False, feedback.message
    assert f"as an eps of about {named} makes them" in feedback.message and "add eps = 1e-5" in feedback.message


@pytest.mark.parametrize("wrong", [
    lambda x: 0.99 * F.layer_norm(x, x.shape[-1:]),  # every row scaled alike: no one eps makes that
    lambda x: (x - x.mean(-1, keepdim=True)) / (x.var(-1, unbiased=False, keepdim=True).sqrt() + 1e-2),  # eps outside
])
def test_an_answer_scaled_otherwise_is_not_blamed_on_eps(wrong):
    feedback = check("standardise_rows", wrong)
    assert feedback.passed is False and "eps" not in feedback.message, feedback.message


@pytest.mark.parametrize(
    "make, noun", [(lambda x: 3, "an int"), (lambda x: "x", "a str"), (lambda x: x.numpy(), "an ndarray")],
    ids=["int", "str", "ndarray"],
)
def test_a_returned_non_tensor_is_named_with_its_article(make, noun):
    feedback = check("running_average", make)
    assert f"not {noun}" in feedback.message
    assert ("leave out .numpy()" in feedback.message) == (noun == "an ndarray"), "an ndarray: say how it got there"


def first_case_only(exercise: Exercise, then):
    """A learner function right for the first case, then `then(right_answer)` for every later call."""
    calls = []

    def learner(*args):
        calls.append(1)
        right = solution(exercise)(*args)
        return right if len(calls) == 1 else then(right)

    return learner


def raise_value_error(right):
    raise ValueError("my own words")


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_a_raise_in_a_later_case_only_is_told_with_its_own_text_and_input(exercise):
    feedback = check(exercise.name, first_case_only(exercise, raise_value_error))
    assert feedback.passed is False and feedback.mistake is None, feedback.message
    later = size_of(exercise, exercise.cases[1])
    assert feedback.message.startswith(f"for {later} ({size_of(exercise, exercise.cases[0])} was right), ")
    assert "raised ValueError: my own words." in feedback.message and "hard-code" not in feedback.message


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_a_nan_in_a_later_case_only_is_told_as_nan_with_its_input(exercise):
    def nan_in_last_row(right):
        right = right.clone()
        right[(..., -1, slice(None)) if right.dim() > 1 else -1] = float("nan")  # the last row, or the last entry
        return right

    feedback = check(exercise.name, first_case_only(exercise, nan_in_last_row))
    assert feedback.passed is False and feedback.mistake is None, feedback.message
    assert feedback.message.startswith(f"for {size_of(exercise, exercise.cases[1])} (")
    assert "nan" in feedback.message.lower() and "hard-code" not in feedback.message


def test_a_later_nan_keeps_the_lessons_nan_explanation():
    def nan_for_seven(T):
        tril = torch.tril(torch.ones(T, T))
        return tril / tril.sum(1, keepdim=True) * (float("nan") if T == 7 else 1.0)

    feedback = check("causal_average_weights", nan_for_seven)
    assert feedback.message.startswith("for T = 7 (T = 4 was right), row 0 contains NaN"), feedback.message


def test_a_mask_sized_for_the_first_case_is_told_its_own_size_clash():
    def mask_of_five(scores):
        return torch.softmax(scores.masked_fill(torch.ones(5, 5).triu(1) == 1, float("-inf")), dim=-1)

    feedback = check("masked_softmax_weights", mask_of_five)
    assert feedback.passed is False, feedback.message
    assert "for a (7, 7) input (a (5, 5) input was right), `mask_of_five` raised RuntimeError" in feedback.message
    assert "must match the size of tensor b (7)" in feedback.message and "hard-code" not in feedback.message


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_an_answer_sized_for_the_first_case_is_still_hard_coded(exercise):
    first_shape = answer(exercise, 0).shape
    feedback = check(exercise.name, first_case_only(exercise, lambda right: torch.zeros(first_shape)))
    assert feedback.mistake == HARD_CODED and "hard-code a size" in feedback.message, feedback.message


# ---------------------------------------------------------------------------------------------
# Right answers written by hand, and the −∞ rule


def exp_over_row_sum(scores):
    """Softmax by hand, as notebook 03's four steps show it, without subtracting the row's largest score."""
    e = scores.masked_fill(torch.ones_like(scores).triu(1) == 1, float("-inf")).exp()
    return e / e.sum(-1, keepdim=True)


def softmax_zero_future_renormalise(scores):
    w = torch.softmax(scores, dim=-1) * torch.tril(torch.ones_like(scores))
    return w / w.sum(-1, keepdim=True)


@pytest.mark.parametrize("fn", [exp_over_row_sum, softmax_zero_future_renormalise])
def test_a_numerically_naive_masked_softmax_is_told_what_underflows(fn):
    feedback = check("masked_softmax_weights", fn)
    assert feedback.passed is False and "hard-code" not in feedback.message, feedback.message
    assert feedback.message.startswith("for a (7, 7) input (a (5, 5) input was right), row 2 contains NaN")
    assert "e^x rounds to 0" in feedback.message and "subtract each row's largest visible score" in feedback.message


def test_a_masked_softmax_by_hand_with_the_max_shift_passes():
    def shifted(scores):
        masked = scores.masked_fill(torch.ones_like(scores).triu(1) == 1, float("-inf"))
        e = (masked - masked.max(-1, keepdim=True).values).exp()
        return e / e.sum(-1, keepdim=True)

    assert check("masked_softmax_weights", shifted).passed is True


@pytest.mark.parametrize(
    "name, fn",
    [
        ("running_average", lambda x: x.cumsum(0) / torch.arange(1, len(x) + 1)[:, None]),
        ("causal_average_weights", lambda T: torch.tril(torch.ones(T, T)) / torch.arange(1.0, T + 1)[:, None]),
        ("standardise_rows", lambda x: (x - x.mean(-1, keepdim=True))
         / ((x**2).mean(-1, keepdim=True) - x.mean(-1, keepdim=True) ** 2 + 1e-5).sqrt()),
        ("scaled_scores", lambda q, k: (q / k.shape[-1] ** 0.5) @ k.transpose(-2, -1)),
        ("add_positions", lambda tok_emb, pos_table: tok_emb + pos_table[: tok_emb.shape[-2]]),
    ],
    ids=["cumsum", "tril over counts", "E[x²] − E[x]²", "scale q first", "slice by shape[-2]"],
)
def test_other_right_answers_written_another_way_pass(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is True, feedback.message


@pytest.mark.parametrize("value", [-1e9, -1e30, torch.finfo(torch.float32).min])
def test_every_finite_mask_fails_the_minus_infinity_exercise_and_is_told_why(value):
    def finite(scores):
        return torch.softmax(scores.masked_fill(torch.ones_like(scores).triu(1) == 1, value), dim=-1)

    feedback = check("masked_softmax_weights", finite)
    assert feedback.passed is False and feedback.mistake == "finite_mask", feedback.message
    assert "exactly 0 whatever the scores" in feedback.message and "−3.4e38" in feedback.message


# ---------------------------------------------------------------------------------------------
# One rule for half precision; numbers printed apart


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_an_answer_in_half_precision_is_told_to_compute_in_float32(exercise, dtype):
    feedback = check(exercise.name, lambda *args: solution(exercise)(*args).to(dtype))
    assert feedback.passed is False and feedback.mistake == LOW_PRECISION, feedback.message
    assert f"your result is in {dtype}" in feedback.message and "compute in float32" in feedback.message


SAID_EQUAL = [
    r"is (\S+) where the reference has (\S+);",
    r"sums to (\S+): did you normalise by row, so that each row sums to (1)\?",
    r"has variance (\S+); after standardising by row every row's variance is (1)\.",
]


@pytest.mark.parametrize("exercise", ALL, ids=lambda e: e.name)
def test_numbers_that_differ_are_never_printed_alike(exercise):
    def a_hair_off(*args):
        return solution(exercise)(*args) * (1 + 3e-4) + 3e-4 * (1 - exercise.exact_zeros.where(*args).float()
                                                                 if exercise.exact_zeros else 1)

    feedback = check(exercise.name, a_hair_off)
    assert feedback.passed is False, feedback.message
    for pattern in SAID_EQUAL:
        for pair in re.findall(pattern, feedback.message):
            assert pair[0] != pair[1], feedback.message


@pytest.mark.parametrize(
    "a, b, shown",
    [(-1.3398, -1.3416, ("-1.34", "-1.34")), (1.00003, 1.0, ("1", "1")), (0.25, 0.5, ("0.25", "0.5"))],
)
def test_fmt_apart_adds_digits_only_where_fmt_would_print_two_numbers_alike(a, b, shown):
    assert (fmt(a), fmt(b)) == shown
    yours, other = fmt_apart(a, b)
    assert yours != other and float(yours) != float(other)
    assert abs(float(yours) - a) <= 0.01 * abs(a) and abs(float(other) - b) <= 0.01 * abs(b)
    if shown[0] != shown[1]:
        assert (yours, other) == shown


def test_the_issues_float16_standardise_message_no_longer_contradicts_itself():
    def in_half_then_back(x):
        h = x.half()
        return ((h - h.mean(-1, keepdim=True)) / (h.var(-1, unbiased=False, keepdim=True) + 1e-5).sqrt()).float()

    feedback = check("standardise_rows", in_half_then_back)  # told the step, not two numbers that print alike
    assert feedback.mistake == LOW_PRECISION and "within 0.00056 of the right one" in feedback.message, feedback.message


# ---------------------------------------------------------------------------------------------
# attend's diagnoses, and whatever else a learner may do


def attend_parts(x, w_q, w_k, w_v):
    T = x.shape[-2]
    wei = ((x @ w_q.T) @ (x @ w_k.T).transpose(-2, -1)).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1), x @ w_v.T


def attend_returning_wei(x, w_q, w_k, w_v):
    wei, v = attend_parts(x, w_q, w_k, w_v)
    return wei


def attend_returning_both(x, w_q, w_k, w_v):
    wei, v = attend_parts(x, w_q, w_k, w_v)
    out = wei @ v
    return out, wei


def test_attend_returning_wei_alone_is_not_told_it_blended_x():
    feedback = check("attend", attend_returning_wei)
    assert feedback.mistake == "returned_wei" and "blended x" not in feedback.message, feedback.message


def test_attends_cases_tell_wei_from_wei_at_x():
    for inputs in EXERCISES["attend"].cases[:1]:
        x, w_q, w_k, _ = inputs
        wei, _ = attend_parts(*inputs)
        assert wei.shape != (wei @ x).shape or not torch.allclose(wei, wei @ x)


def test_attend_returning_out_and_wei_is_told_to_return_only_out():
    feedback = check("attend", attend_returning_both)
    assert feedback.passed is False, feedback.message
    assert "return only `out`" in feedback.message and "torch.stack" not in feedback.message


def attend_blending_x_and_returning_wei(x, w_q, w_k, w_v):
    wei, _ = attend_parts(x, w_q, w_k, w_v)
    return wei @ x, wei


def attend_with_a_stray_comma(x, w_q, w_k, w_v):
    wei, _ = attend_parts(x, w_q, w_k, w_v)
    return (wei @ x,)


def test_a_tuple_of_tensors_none_of_them_right_is_told_to_return_one_tensor():
    feedback = check("attend", attend_blending_x_and_returning_wei)
    assert feedback.passed is False and "returns 2 things (a tuple), and none of them is the right answer" in (
        feedback.message
    )
    assert "torch.stack" not in feedback.message


def test_a_tuple_of_one_is_traced_to_its_comma():
    wrong = check("attend", attend_with_a_stray_comma)
    assert wrong.passed is False and wrong.message.endswith(
        "returns a tuple of one tensor (the comma in `return …,` makes one): return the tensor itself."
    )
    right = check("attend", lambda *inputs: (solution(EXERCISES["attend"])(*inputs),))
    said = "a tuple of one item (the comma in `return …,` makes one), and that item is the right answer"
    assert right.passed is False and said in right.message and "1 things" not in right.message


def test_rows_or_columns_returned_as_a_list_are_told_how_to_stack_them():
    rows = check("running_average", lambda x: list(solution(EXERCISES["running_average"])(x)))
    assert rows.passed is False and rows.message.endswith("with torch.stack(..., dim=0)."), rows.message
    columns = check("running_average", lambda x: list(solution(EXERCISES["running_average"])(x).unbind(1)))
    assert columns.passed is False and columns.message.endswith("with torch.stack(..., dim=1)."), columns.message
    # A square answer's columns stack into its shape along dim 0 too, as its transpose: the right join is named
    square = check("masked_softmax_weights", lambda s: list(solution(EXERCISES["masked_softmax_weights"])(s).unbind(1)))
    assert square.passed is False and square.message.endswith("with torch.stack(..., dim=1)."), square.message


def test_the_heads_outputs_returned_as_a_list_are_told_to_concatenate_them_and_then_to_project():
    def heads_alone(x, wq, wk, wv, proj):
        return [torch.nn.functional.scaled_dot_product_attention(x @ q, x @ k, x @ v, is_causal=True)
                for q, k, v in zip(wq, wk, wv, strict=True)]

    feedback = check("multi_head", heads_alone)
    assert feedback.passed is False, feedback.message
    assert "join them into one tensor of the answer's shape with torch.cat(..., dim=-1). Joined, " in feedback.message
    assert feedback.message.endswith("the projection is missing: return proj(torch.cat(outs, dim=-1)).")


def unscaled_heads(x, wq, wk, wv, proj):
    """Notebook 10's heads, each without its scale, as a list."""
    T = x.shape[-2]
    return [torch.softmax((x @ q @ (x @ k).mT).masked_fill(torch.ones(T, T).triu(1) > 0, float("-inf")), -1) @ (x @ v)
            for q, k, v in zip(wq, wk, wv, strict=True)]


@pytest.mark.parametrize("joined", [False, True])
def test_heads_without_the_projection_and_with_another_slip_are_told_both(joined):
    answer = (lambda *inputs: torch.cat(unscaled_heads(*inputs), dim=-1)) if joined else unscaled_heads
    feedback = check("multi_head", answer)
    assert feedback.passed is False and ("Joined, " in feedback.message) is not joined, feedback.message
    assert ("the projection is missing (return proj(torch.cat(outs, dim=-1))), and projected, your heads are still "
            "wrong: the heads' scores are not scaled") in feedback.message, feedback.message


def test_heads_in_another_order_and_not_projected_are_told_both():
    reversed_heads = heads_in_order(lambda n: reversed(range(n)))
    feedback = check("multi_head", lambda x, wq, wk, wv, proj: reversed_heads(x, wq, wk, wv, lambda out: out))
    assert "the projection is missing" in feedback.message and "in the order 3, 2, 1, 0" in feedback.message, (
        feedback.message)


def test_a_wrong_tensor_returned_beside_something_else_is_told_to_return_the_answer_alone():
    feedback = check("running_average", lambda x: (x.cumsum(0), "debug"))
    assert feedback.passed is False and "return your answer alone, one tensor" in feedback.message
    assert "torch.stack" not in feedback.message


def attend_with_a_helper_inside(x, w_q, w_k, w_v):
    def project():
        return x @ w_q.T, x @ w_k.T  # a tuple return of its own, which must not be quoted

    wei, v = attend_parts(x, w_q, w_k, w_v)
    project()
    return wei, v, wei @ v


def test_the_right_item_of_a_tuple_is_named_from_the_functions_own_return():
    feedback = check("attend", attend_with_a_helper_inside)
    assert feedback.passed is False and "and the third, `wei @ v`, is the right answer" in feedback.message, (
        feedback.message
    )


def test_a_block_that_calls_backward_itself_is_told_to_leave_it_to_training():
    def trains(*parts):
        out = solution(EXERCISES["block_forward"])(*parts)
        out.sum().backward()
        return out

    feedback = check("block_forward", trains)
    assert feedback.passed is False and feedback.mistake == NO_GRADIENT and "called .backward()" in feedback.message


@pytest.mark.parametrize("exercise", TENSOR_INPUT, ids=lambda e: e.name)
def test_a_result_never_filled_in_is_told_so(exercise):
    feedback = check(exercise.name, lambda *inputs: torch.zeros_like(solution(exercise)(*inputs)))
    assert feedback.passed is False and "every entry of your result is 0" in feedback.message, feedback.message


@pytest.mark.parametrize("name, fn, said", [
    ("attention_scores", lambda q, k: (q @ k.mT).masked_fill(torch.ones(q.shape[-2], q.shape[-2]).triu(1) > 0, -1e9),
     "right, but every future one is -1e+09"),
    ("attention_scores", lambda q, k: (q @ k.mT).tril(), "right, but every future one is 0"),
    ("scaled_scores", lambda q, k: (q @ k.mT * k.shape[-1] ** -0.5).tril(), "right, but every future one is 0"),
    ("scaled_scores", lambda q, k: q @ k.mT / k.shape[-1] ** 1 / 2, "you scaled by 1/(2 · head_size)"),
    ("scaled_scores", lambda q, k: q @ k.mT / (k.shape[-1] ** 1 / 2), "you scaled by 2/head_size"),
    ("attention_scores", lambda q, k: torch.softmax(q @ k.mT, dim=-2), "looks like weights"),
    ("attention_scores", lambda q, k: q @ k.mT / q.shape[-2] ** 0.5,
     "the right ones times 0.5: return q @ kᵀ unscaled"),
    ("scaled_scores", lambda q, k: q @ k.mT / (q.shape[-2] * k.shape[-1]) ** 0.5,
     "the right ones times 0.41: you scaled by 1/√24 (0.204), but this input's head size, k.shape[-1], is 4, so its "
     "scale is 1/√4 (0.5)"),
    ("scaled_scores", lambda q, k: q @ k.mT / 128 ** 0.5,  # a head size no named mistake types in
     "the right ones times 0.18: you scaled by 1/√128 (0.0884), but this input's head size"),
    ("scaled_scores", lambda q, k: q @ k.mT * 0.35, "the right ones times 0.7: you scaled by 0.35, but"),
    # far below any 1/n typed in: the number alone (1/n's n would run to 170 digits, and its square overflowed)
    ("scaled_scores", lambda q, k: (q.double() @ k.double().mT) * 1e-170, "you scaled by 1e-170, but"),
])
def test_scores_changed_by_a_mask_a_softmax_or_a_scale_are_told_which(name, fn, said):
    feedback = check(name, fn)
    assert feedback.passed is False and said in feedback.message, feedback.message


@pytest.mark.parametrize("name, fn", [
    ("attention_scores", lambda q, k: k @ q.mT),
    ("scaled_scores", lambda q, k: k @ q.mT * k.shape[-1] ** -0.5),  # 07 names it as 05 does
])
def test_scores_with_keys_in_the_rows_are_told_the_query_comes_first(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and "the right ones transposed" in feedback.message, feedback.message
    assert "q @ k.transpose(-2, -1)" in feedback.message


def test_a_slice_given_a_last_dimension_is_not_only_told_it_has_c_rows():
    # pos_table[:T].unsqueeze(-1) clashes with tok_emb exactly as pos_table[:C] does: the hint names both causes
    feedback = check("add_positions", lambda tok_emb, pos_table: tok_emb + pos_table[: tok_emb.shape[1]].unsqueeze(-1))
    assert feedback.mistake == "T_from_the_last_dimension" and "unsqueeze(-1)" in feedback.message, feedback.message


@pytest.mark.parametrize("added, said", [
    (lambda table: table.T, "no .T"),
    (lambda table: table.sum(-1), "no sum, mean or maximum over its last dimension"),
    (lambda table: table.max(-1).values, "no sum, mean or maximum over its last dimension"),
    (lambda table: table[:, 0], "not one column (pos_table[:T, 0])"),
])
def test_whatever_ends_in_t_numbers_is_told_its_own_cause(added, said):
    # a (C, T) slice, a sum over each row and one column all clash with tok_emb's C the same way: one hint names each
    feedback = check("add_positions", lambda tok_emb, pos_table: tok_emb + added(pos_table[: tok_emb.shape[1]]))
    assert feedback.mistake == "ends_in_T" and said in feedback.message, feedback.message


def test_positions_given_one_row_of_the_table_are_told_to_slice():
    feedback = check("add_positions", lambda tok_emb, pos_table: tok_emb + pos_table[tok_emb.shape[1]])
    assert feedback.passed is False and feedback.mistake == "one_row", feedback.message


@pytest.mark.parametrize("name, fn", [
    ("attention_scores", lambda q, k: (q @ k.mT).tril() + (q @ k.mT).tril(-1).mT),  # the past mirrored, not masked
    ("attention_scores", lambda q, k: -(q @ k.mT)),  # a sign, not a scale
    ("attention_scores", lambda q, k: (q @ k.mT) * 1.005),  # a stray constant: "times 1" would say nothing
    ("scaled_scores", lambda q, k: -(q @ k.mT) * k.shape[-1] ** -0.5),
])
def test_scores_wrong_another_way_are_not_blamed_on_a_mask_or_a_scale(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and "future" not in feedback.message and "times" not in feedback.message, (
        feedback.message
    )


def heads_in_order(order):
    """A multi_head answer, right but for which heads' outputs it puts side by side, in which order."""

    def multi_head(x, wq, wk, wv, proj):
        T, hs = x.shape[-2], wq.shape[-1]
        outs = []
        for h in order(len(wq)):
            wei = (x @ wq[h]) @ (x @ wk[h]).mT * hs**-0.5
            outs.append(torch.softmax(wei.masked_fill(torch.ones(T, T).triu(1) > 0, float("-inf")), -1) @ (x @ wv[h]))
        return proj(torch.cat(outs, dim=-1))

    return multi_head


@pytest.mark.parametrize("order, said", [
    (lambda n: reversed(range(n)), "side by side in the order 3, 2, 1, 0: proj reads head 0's numbers first"),
    (lambda n: [1, 0, *range(2, n)], "side by side in the order 1, 0, 2, 3"),
    (lambda n: [0] * n, "every head used head 0's weights"),
    (lambda n: [n - 1] * n, "every head used head 3's weights"),
])
def test_heads_each_right_but_misplaced_are_told_so(order, said):
    assert check("multi_head", heads_in_order(lambda n: range(n))).passed  # the helper itself is right
    feedback = check("multi_head", heads_in_order(order))
    assert feedback.passed is False and said in feedback.message, feedback.message


def test_heads_wrong_another_way_are_not_blamed_on_their_order():
    feedback = check("multi_head", heads_in_order(lambda n: [0, 1, 1, 3][:n]))  # head 2 missing, head 1 twice
    assert feedback.passed is False and "order" not in feedback.message and "head 0's" not in feedback.message


def test_a_learners_system_exit_never_leaves_check():
    def quits(*args):
        raise SystemExit(1)

    feedback = check("scaled_scores", quits)
    assert feedback.passed is False and "SystemExit" in feedback.message and "return your answer" in feedback.message


def test_a_flood_of_prints_is_cut_short(capsys):
    def chatty(q, k):
        for i in range(1000):
            print("debug", i)
        return q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5

    assert check("scaled_scores", chatty).passed is True
    shown = capsys.readouterr().out.splitlines()
    assert shown[: SHOWN_LINES] == [f"debug {i}" for i in range(SHOWN_LINES)]
    more = 2 * 1000 - SHOWN_LINES  # two cases, a thousand lines each
    assert shown[SHOWN_LINES:] == [f"… and {more:,} more lines printed by your function, not shown here."]


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_a_nested_tensor_gets_a_sentence():
    feedback = check("scaled_scores", lambda q, k: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]))
    assert feedback.passed is False and "nested tensor" in feedback.message
    assert "could not judge" not in feedback.message and one_plain_sentence(feedback.message)


# ---------------------------------------------------------------------------------------------
# Slips written the way a learner writes them: each reaches the named mistake that explains it


def running_average_by_column_counts(x):
    return x.cumsum(0) / torch.arange(1, len(x) + 1)  # (T,) lines up with the channels


def running_average_over_t(x):
    out = torch.zeros_like(x)
    for t in range(len(x)):
        out[t] = x[: t + 1].sum(0) / t
    return out


def standardise_with_column_variance(x):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(0, unbiased=False, keepdim=True) + 1e-5)


def masked_softmax_inverted(scores):
    T = scores.shape[-1]
    return torch.softmax(scores.masked_fill(torch.tril(torch.ones(T, T)) == 1, float("-inf")), dim=-1)


def attend_without_softmax_dim(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    wei = (q @ k.transpose(-2, -1)).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return F.softmax(wei) @ v  # no dim: PyTorch picks 0 for a (B, T, T) batch


def attend_untransposed(x, w_q, w_k, w_v):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v


def attend_t_from_dimension_1(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[1]
    wei = (q @ k.transpose(-2, -1)).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1) @ v


def each_heads_output(x, wq, wk, wv):
    """notebook 10's heads, each right: their outputs in a list, before they are joined."""
    T = x.shape[-2]
    outs = []
    for h in range(len(wq)):
        wei = (x @ wq[h]) @ (x @ wk[h]).transpose(-2, -1) * wq.shape[-1] ** -0.5
        wei = torch.softmax(wei.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf")), dim=-1)
        outs.append(wei @ (x @ wv[h]))
    return outs


def multi_head_interleaved(x, wq, wk, wv, proj):
    return proj(torch.stack(each_heads_output(x, wq, wk, wv), dim=-1).flatten(-2))


def attention_scores_entry_by_entry(q, k):
    return q * k.transpose(-2, -1)


def attention_scores_key_first(q, k):
    return k.transpose(-2, -1) @ q


def scaled_scores_entry_by_entry(q, k):
    return q * k.transpose(-2, -1) / k.shape[-1] ** 0.5


def causal_average_floor_divided(T):
    tril = torch.tril(torch.ones(T, T))
    return tril // tril.sum(1, keepdim=True)


def masked_softmax_plus_infinity(scores):
    T = scores.shape[-1]
    return torch.softmax(scores.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("inf")), dim=-1)


def standardise_with_column_mean(x):
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - x.mean(0, keepdim=True)) / torch.sqrt(var + 1e-5)


def standardise_with_std_under_the_root(x):
    std = x.std(-1, unbiased=False, keepdim=True)
    return (x - x.mean(-1, keepdim=True)) / torch.sqrt(std + 1e-5)


def standardise_floor_divided(x):
    return (x - x.mean(-1, keepdim=True)) // torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)


def attend_masked(x, w_q, w_k, w_v, which, fill=float("-inf")):
    """notebook 06's head with its mask written as `which(tril)` (the cells to fill) and filled with `fill`."""
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T))
    return torch.softmax((q @ k.transpose(-2, -1)).masked_fill(which(tril), fill), dim=-1) @ v


def attend_with_scores(x, w_q, w_k, w_v, scores, softmax=F.softmax):
    """notebook 06's head with its scores written as `scores(q, k)` and its softmax as `softmax`."""
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    wei = scores(q, k).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return softmax(wei, dim=-1) @ v


def attend_blending_entry_by_entry(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    wei = (q @ k.transpose(-2, -1)).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1) * v  # * where @ belongs


def attend_mask_not_kept(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    wei = q @ k.transpose(-2, -1)
    wei.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))  # returns a new tensor, dropped here
    return torch.softmax(wei, dim=-1) @ v


def multi_head_with(x, wq, wk, wv, proj, head):
    """notebook 10's heads side by side and projected, each head's output written as `head(q, k, v, T)`."""
    T = x.shape[-2]
    return proj(torch.cat([head(x @ wq[h], x @ wk[h], x @ wv[h], T) for h in range(len(wq))], dim=-1))


def keys_transposed_from_dimension_1(q, k, v, T):
    wei = (q @ k.transpose(-2, 1) * k.shape[-1] ** -0.5).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1) @ v


def scaled_by_dimension_1(q, k, v, T):
    wei = (q @ k.transpose(-2, -1) * k.shape[1] ** -0.5).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1) @ v


def keys_first(q, k, v, T):
    wei = (k.transpose(-2, -1) @ q * q.shape[-1] ** -0.5).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1) @ v


def multi_head_weights_before_x(x, wq, wk, wv, proj):
    T = x.shape[-2]
    outs = []
    for h in range(len(wq)):
        q, k, v = wq[h] @ x, wk[h] @ x, wv[h] @ x  # the weights first, as W·x is written in maths
        wei = (q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5).masked_fill(torch.tril(torch.ones(T, T)) == 0,
                                                                        float("-inf"))
        outs.append(torch.softmax(wei, dim=-1) @ v)
    return proj(torch.cat(outs, dim=-1))


def divided_by(number):
    """A head whose scores are divided by `number` (n_embd, say) in place of √head_size."""
    def head(q, k, v, T):
        wei = (q @ k.transpose(-2, -1) / number).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
        return torch.softmax(wei, dim=-1) @ v
    return head


def untransposed_keys(q, k, v, T):
    wei = (q @ k * q.shape[-1] ** -0.5).masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
    return torch.softmax(wei, dim=-1) @ v


def blends_x_instead_of_v(x):
    def head(q, k, v, T):
        wei = (q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5).masked_fill(torch.tril(torch.ones(T, T)) == 0,
                                                                        float("-inf"))
        return torch.softmax(wei, dim=-1) @ x
    return head


LEARNER_SLIPS = [
    ("attention_scores", attention_scores_entry_by_entry, "multiplied_entry_by_entry"),
    ("attention_scores", attention_scores_key_first, "key_first"),
    ("scaled_scores", scaled_scores_entry_by_entry, "multiplied_entry_by_entry"),
    ("causal_average_weights", causal_average_floor_divided, "floor_division"),
    ("causal_average_weights", lambda T: torch.tril(torch.ones(T, T)) * torch.arange(1, T + 1)[:, None],
     "multiplied_by_count"),
    ("masked_softmax_weights", masked_softmax_plus_infinity, "plus_infinity"),
    ("standardise_rows", standardise_with_column_mean, "mean_by_column"),
    ("standardise_rows", standardise_with_std_under_the_root, "square_root_of_std"),
    ("standardise_rows", standardise_floor_divided, "floor_division"),
    ("attend", lambda x, w_q, w_k, w_v: attend_masked(x, w_q, w_k, w_v, lambda tril: tril.T == 0), "masked_the_past"),
    ("attend", lambda x, w_q, w_k, w_v: attend_masked(x, w_q, w_k, w_v, lambda tril: tril != 0), "masked_the_past"),
    ("attend", lambda x, w_q, w_k, w_v: attend_masked(x, w_q, w_k, w_v, lambda tril: tril == 0, float("inf")),
     "plus_infinity"),
    ("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, untransposed_keys),
     "product_misaligned"),
    ("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, blends_x_instead_of_v(x)),
     "blended_x"),
    ("multi_head", lambda x, wq, wk, wv, proj: proj(x @ wq), "all_heads_at_once"),
    ("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, divided_by(x.shape[-1])),
     "scaled_by_n_embd"),
    ("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, divided_by(len(wq))),
     "scaled_by_n_head"),
    ("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, keys_transposed_from_dimension_1),
     "product_misaligned"),
    ("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, scaled_by_dimension_1),
     "scaled_by_sqrt_T"),
    ("attend", lambda x, w_q, w_k, w_v: attend_with_scores(x, w_q, w_k, w_v, lambda q, k: k.transpose(-2, -1) @ q),
     "T_meets_head_size"),
    ("attend", lambda x, w_q, w_k, w_v: attend_with_scores(x, w_q, w_k, w_v, lambda q, k: q @ k.transpose(-2, -1),
                                                           F.log_softmax), "log_softmax"),
    ("attend", attend_mask_not_kept, "forgot_mask"),
    ("attend", attend_blending_entry_by_entry, "T_meets_head_size"),
    ("multi_head", multi_head_weights_before_x, "product_misaligned"),
    ("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, keys_first), "T_meets_head_size"),
    ("running_average", running_average_by_column_counts, "divided_the_columns"),
    ("running_average", running_average_over_t, "divided_by_t"),
    ("standardise_rows", standardise_with_column_variance, "variance_by_column"),
    ("masked_softmax_weights", masked_softmax_inverted, "masked_the_past"),
    ("add_positions", lambda tok_emb, pos_table: tok_emb + pos_table[: tok_emb.shape[-1]], "T_from_the_last_dimension"),
    ("attend", attend_without_softmax_dim, "softmax_without_dim"),
    ("attend", attend_untransposed, "weights_not_transposed"),
    ("attend", attend_t_from_dimension_1, "T_from_dimension_1"),
    ("scaled_scores", lambda q, k: q @ k.transpose(-2, -1) / q.shape[1] ** 0.5, "scaled_by_sqrt_T"),
    ("multi_head", multi_head_interleaved, "interleaved_heads"),
    ("causal_average_weights", lambda T: torch.tril(torch.ones(T, T)) / torch.arange(T)[:, None], "counted_from_0"),
    ("block_forward", lambda x, ln1, heads, ln2, ffwd: (lambda x: x + ffwd(F.layer_norm(x, x.shape[-1:])))(
        x + heads(ln1(x))), "default_layer_norms"),
]


@pytest.mark.filterwarnings("ignore:Implicit dimension choice for softmax")
@pytest.mark.parametrize("name, fn, mistake", LEARNER_SLIPS, ids=[m for _, _, m in LEARNER_SLIPS])
def test_a_slip_written_as_a_learner_writes_it_gets_its_named_mistake(name, fn, mistake):
    feedback = check(name, fn)
    assert feedback.passed is False and feedback.mistake == mistake, feedback.message


def test_a_mask_computed_but_not_kept_is_told_masked_fill_returns_a_new_tensor():
    feedback = check("attend", attend_mask_not_kept)
    assert "keep its result (it returns a new tensor: wei = wei.masked_fill(…))" in feedback.message, feedback.message


def test_writing_into_the_input_is_told_once_not_twice():
    feedback = check("running_average", running_average_written_into_x)
    assert feedback.mistake == "in_place" and "Note:" not in feedback.message, feedback.message


def test_a_head_that_blends_x_is_told_each_head_is_too_wide_in_its_projection():
    x, wq, wk, wv, proj = EXERCISES["multi_head"].cases[0]
    with pytest.raises(ValueError, match=r"got 160 numbers per position, 40 per head: each head's output is wei @ v"):
        proj(torch.cat([x] * len(wq), dim=-1))
    with pytest.raises(ValueError, match=r"put every head's output side by side first"):
        proj(x[..., :6])


def test_a_size_clash_after_a_right_case_is_told_to_take_sizes_from_the_input():
    def hard_coded(scores):
        return torch.softmax(scores.masked_fill(torch.tril(torch.ones(5, 5)) == 0, float("-inf")), dim=-1)

    feedback = check("masked_softmax_weights", hard_coded)
    assert feedback.passed is False and "(a (5, 5) input was right)" in feedback.message, feedback.message
    assert "is a size typed in (torch.ones(5, 5), range(6)), taken from another cell" in feedback.message


def test_inputs_taken_by_name_only_are_told_to_drop_the_star():
    feedback = check("attention_scores", lambda *, q, k: q @ k.transpose(-2, -1))
    assert feedback.passed is False and "by name only" in feedback.message, feedback.message
    assert "`def attention_scores(q, k)`" in feedback.message


def test_heads_that_do_not_reach_proj_side_by_side_are_told_to_concatenate():
    feedback = check("multi_head", lambda x, wq, wk, wv, proj: proj(sum(each_heads_output(x, wq, wk, wv))))
    assert feedback.passed is False and "proj(torch.cat(outs, dim=-1))" in feedback.message, feedback.message


def test_a_random_step_is_named_as_one():
    def block_with_dropout(x, ln1, heads, ln2, ffwd):
        x = x + F.dropout(heads(ln1(x)), p=0.2)  # F.dropout drops unless told training=False
        return x + ffwd(ln2(x))

    feedback = check("block_forward", block_with_dropout)
    assert feedback.passed is False and feedback.mistake == "random_result", feedback.message
    assert "F.dropout" in feedback.message


def test_a_named_mistake_that_raises_also_quotes_the_learners_line_that_raised():
    feedback = check("attend", attend_blending_entry_by_entry)
    assert feedback.mistake == "T_meets_head_size", feedback.message
    assert feedback.message.endswith("The line that raised: `return torch.softmax(wei, dim=-1) * v  # * where @ "
                                     "belongs`."), feedback.message


def test_an_error_no_mistake_names_quotes_the_line_that_raised_before_the_advice():
    def scores_of_a_fourth_dimension(q, k):
        return q @ k.transpose(-2, -1) / q.shape[3] ** 0.5

    feedback = check("attention_scores", scores_of_a_fourth_dimension)
    assert feedback.passed is False and feedback.mistake is None, feedback.message
    assert ("raised IndexError: tuple index out of range. The line that raised: `return q @ k.transpose(-2, -1) / "
            "q.shape[3] ** 0.5`. Your code asks for a dimension") in feedback.message, feedback.message


def test_a_function_whose_source_cannot_be_read_gets_no_line():
    namespace = {"torch": torch}
    exec("def attention_scores(q, k):\n    return q @ k", namespace)  # compiled from a string: no source to quote
    feedback = check("attention_scores", namespace["attention_scores"])
    assert feedback.passed is False and "The line that raised" not in feedback.message, feedback.message


def test_a_tuple_of_the_learners_own_that_is_too_short_is_not_told_about_dimensions():
    def scores_from_a_pair(q, k):
        pair = (q, k)
        return pair[0] @ pair[2].transpose(-2, -1)

    feedback = check("attention_scores", scores_from_a_pair)
    assert "tuple index out of range" in feedback.message, feedback.message
    assert "Your code asks for a dimension" not in feedback.message and "holds items 0 and 1" in feedback.message


def test_a_shape_kept_in_a_name_and_read_past_its_end_is_told_about_dimensions():
    def scores_scaled_by_a_kept_shape(q, k):
        s = q.shape
        return q @ k.transpose(-2, -1) / s[3] ** 0.5  # (T, C) and (B, T, C) inputs have no fourth dimension

    feedback = check("attention_scores", scores_scaled_by_a_kept_shape)
    assert "The line that raised: `return q @ k.transpose(-2, -1) / s[3] ** 0.5" in feedback.message, feedback.message
    assert "Your code asks for a dimension" in feedback.message and "a pair holds" not in feedback.message


def test_a_running_average_two_steps_ahead_is_told_how_far_into_the_future_it_reaches():
    def running_average(x):
        out = torch.zeros_like(x)
        for t in range(x.shape[0]):
            out[t] = x[: t + 3].mean(0)  # two steps too far
        return out

    feedback = check("running_average", running_average)
    assert feedback.passed is False, feedback.message
    assert "row 0 is the average of x[0] … x[2], 2 steps into its future" in feedback.message, feedback.message


def test_a_running_average_reaching_past_the_end_of_a_short_input_is_told_it_looks_at_the_future():
    def running_average(x):
        out = torch.zeros_like(x)
        for t in range(x.shape[0]):
            out[t] = x[: t + 4].mean(0)  # at T = 4, every row is the whole sequence's average
        return out

    feedback = check("running_average", running_average)
    assert feedback.passed is False and feedback.mistake == "future", feedback.message
    assert "x[: t + k] reaches the end of a short input" in feedback.message and "slice x[: t + 1]" in feedback.message


# ---------------------------------------------------------------------------------------------
# Slips a learner of notebooks 06, 07, 10 and 11 makes (found by trying learners' answers)


def right_heads(x, wq, wk, wv, head_size):
    """Each head's output, computed right except that the scale is head_size ** -0.5 for the head_size given."""
    T = x.shape[-2]
    outs = []
    for h in range(len(wq)):
        q, k, v = x @ wq[h], x @ wk[h], x @ wv[h]
        wei = (q @ k.transpose(-2, -1)) * head_size**-0.5
        outs.append(F.softmax(wei.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf")), dim=-1) @ v)
    return outs


def test_a_size_typed_in_that_fits_a_later_cases_named_mistake_is_told_it_is_hard_coded():
    def multi_head(x, wq, wk, wv, proj):  # n_head typed in: right for 4 heads, and the 3-head case's C // 4 is 3
        return proj(torch.cat(right_heads(x, wq, wk, wv, x.shape[-1] // 4), dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.mistake == HARD_CODED and "hard-code a size" in feedback.message, feedback.message
    assert "n_head" not in feedback.message, "not told it scaled by the number of heads, which it never read"


def test_a_number_typed_in_that_fits_a_named_mistake_but_is_right_for_a_later_case_is_told_it_is_hard_coded():
    def multi_head(x, wq, wk, wv, proj):  # ÷ 2 typed in: ÷ √n_head for the first case's 4 heads, right for heads of 4
        return proj(torch.cat(right_heads(x, wq, wk, wv, 4), dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.mistake == HARD_CODED, feedback.message
    assert feedback.message.startswith("right for a (3, 6, 12) input but wrong for a (11, 7, 40) input"), (
        feedback.message)
    assert "n_head" not in feedback.message, "not told it scaled by the number of heads, which it never read"


def test_a_named_mistake_keeps_its_hint_where_the_right_cases_have_fewer_dimensions():
    def attend(x, w_q, w_k, w_v):  # softmax over dim=1: the rows of one sequence, the columns of a batch
        T = x.shape[-2]
        scores = ((x @ w_q.T) @ (x @ w_k.T).transpose(-2, -1)).masked_fill(torch.tril(torch.ones(T, T)) == 0,
                                                                           float("-inf"))
        return F.softmax(scores, dim=1) @ (x @ w_v.T)

    feedback = check("attend", attend)
    assert feedback.mistake == "softmax_wrong_dim", feedback.message
    assert feedback.message.startswith("for a (2, 5, 8) input (a (7, 3) input and a (3, 3) input were right), "), (
        feedback.message)


@pytest.mark.parametrize("root", [lambda n: math.isqrt(n), lambda n: n // 2], ids=["isqrt", "half"])
def test_a_named_mistake_that_fits_the_earlier_cases_keeps_its_hint_and_names_what_was_right(root):
    def scaled_scores(q, k):  # right for a head size of 4 (√4 = 4 // 2 = 2), wrong for 8
        return q @ k.transpose(-2, -1) / root(k.shape[-1])

    feedback = check("scaled_scores", scaled_scores)
    assert feedback.passed is False and feedback.mistake in ("rounded_square_root", "power_before_division")
    assert feedback.message.startswith("for a (2, 6, 8) input (a (6, 4) input was right), you "), feedback.message


def test_a_head_size_whose_square_root_is_no_whole_number_is_among_scaled_scores_cases():
    sizes = [q.shape[-1] for q, _ in EXERCISES["scaled_scores"].cases]
    assert any(math.isqrt(n) ** 2 != n for n in sizes), f"head sizes {sizes}: a rounded square root would pass them"


@pytest.mark.parametrize("divisor, words", [
    (lambda x: x.shape[-2] ** 0.5, "you divided the scores by √T,"),
    (lambda x: x.shape[-1] ** 0.5, "you divided the scores by √C,"),
    (lambda x: (x.shape[-2] - 1) ** 0.5, "your scores are scaled by 1/√6 (6 is T − 1 here) before the softmax"),
    (lambda x: x.shape[-1], "your scores are scaled by 1/3 (3 is C here) before the softmax"),
    # a number typed in is the same for every input, not a size it happens to equal on the first case (named
    # typed_scale): 5 is head_size there and 3 is C
    (lambda x: 2, "your scores are scaled by 1/2 (0.5) whatever the input (a number typed in"),
    (lambda x: 5, "your scores are scaled by 1/5 (0.2) whatever the input"),
    (lambda x: 3, "your scores are scaled by 1/3 (0.333) whatever the input"),
], ids=["√T", "√C", "√(T-1)", "C", "2", "5", "3"])
def test_attend_scaled_by_a_size_is_told_that_size_and_never_another(divisor, words):
    def attend(x, w_q, w_k, w_v):  # scaled too early; the first case's sizes all differ (T = 7, C = 3, head_size 5)
        T = x.shape[-2]
        scores = (x @ w_q.T) @ (x @ w_k.T).transpose(-2, -1) / divisor(x)
        return F.softmax(scores.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf")), dim=-1) @ (x @ w_v.T)

    feedback = check("attend", attend)
    assert feedback.passed is False and feedback.message.startswith(words), feedback.message


@pytest.mark.parametrize("divisor, words", [
    (lambda x: x.shape[0], "scaled by 1/11 (11 is B here), but each head here is 10 wide"),
    (lambda x: (x.shape[-2] - 1) ** 0.5, "scaled by 1/√6 (6 is T − 1 here), but each head here is 10 wide"),
    (lambda x: 3, "scaled by 1/3, but each head here is 10 wide"),  # int(√10) for every head size: a number typed in
], ids=["B", "√(T-1)", "⌊√head_size⌋"])
def test_heads_scaled_by_a_size_are_told_the_scale_and_which_size_it_is(divisor, words):
    feedback = check("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, divided_by(
        divisor(x))))
    assert feedback.passed is False and words in feedback.message, feedback.message


def test_heads_projected_on_a_flattened_batch_pass_as_with_an_nn_linear():
    def multi_head(x, wq, wk, wv, proj):
        B, T, C = x.shape
        out = torch.cat(right_heads(x, wq, wk, wv, wq.shape[-1]), dim=-1)
        return proj(out.reshape(B * T, C)).reshape(B, T, C)  # a linear layer takes any dimensions in front

    feedback = check("multi_head", multi_head)
    assert feedback.passed, feedback.message


def test_two_dtypes_that_meet_are_told_to_convert_back():
    def multi_head(x, wq, wk, wv, proj):
        return proj(torch.cat(right_heads(x.double(), wq.double(), wk.double(), wv.double(), wq.shape[-1]), dim=-1))

    feedback = check("multi_head", multi_head)
    assert "Two tensors of different dtypes met" in feedback.message and ".float()" in feedback.message, (
        feedback.message)


def test_a_layer_norm_over_the_wrong_dimension_is_told_normalized_shape_is_the_last():
    feedback = check("standardise_rows", lambda x: F.layer_norm(x, (x.shape[0],)))  # right for the square (4, 4)
    assert "normalized_shape is the size of the last dimension" in feedback.message, feedback.message
    assert "F.layer_norm(x, x.shape[-1:])" in feedback.message, feedback.message


def test_weights_made_from_the_wrong_size_are_told_to_check_the_dimension_a_size_comes_from():
    def running_average(x):
        C = x.shape[-1]  # where T = x.shape[-2] belongs
        wei = torch.tril(torch.ones(C, C))
        return wei / wei.sum(1, keepdim=True) @ x

    feedback = check("running_average", running_average)
    assert "made with a size from the wrong dimension (T × T weights need T, .shape[-2]" in feedback.message, (
        feedback.message)


@pytest.mark.parametrize("loop, words", [
    (lambda T: range(1, T), "row 0 is all 0, as if never written, and the others are right: does a loop skip it"),
    (lambda T: range(T - 1), "are right, but row {last} is all 0, as if never written: your loop stopped after"),
], ids=["from 1", "one short"])
@pytest.mark.parametrize("name", ["causal_average_weights", "masked_softmax_weights"])
def test_weights_with_a_row_a_loop_never_wrote_are_told_so(name, loop, words):
    def weights(arg):  # one row at a time, into zeros; a row the loop skips stays 0
        T = arg if isinstance(arg, int) else arg.shape[-1]
        wei = torch.zeros(T, T)
        for t in loop(T):
            wei[t, : t + 1] = 1 / (t + 1) if isinstance(arg, int) else F.softmax(arg[t, : t + 1], dim=-1)
        return wei

    feedback = check(name, weights)
    T = EXERCISES[name].cases[0][0]
    last = (T if isinstance(T, int) else T.shape[-1]) - 1
    assert feedback.passed is False and words.format(last=last) in feedback.message, feedback.message


def test_positions_a_loop_never_changed_are_told_so():
    def add_positions(tok_emb, pos_table):
        out = tok_emb.clone()
        for t in range(1, tok_emb.shape[-2]):  # position 0 keeps its token embedding alone
            out[..., t, :] += pos_table[t]
        return out

    feedback = check("add_positions", add_positions)
    assert feedback.message.startswith("position 0 is unchanged from the input, and the others are right: does a "
                                       "loop skip it (range(1, …) starts at 1)?"), feedback.message


def test_a_running_average_whose_loop_starts_at_1_is_told_row_0_was_never_written():
    def running_average(x):
        out = torch.zeros_like(x)
        for t in range(1, len(x)):
            out[t] = x[: t + 1].mean(0)
        return out

    feedback = check("running_average", running_average)
    assert feedback.message.startswith("row 0 is all 0, as if never written"), feedback.message


def test_a_log_sum_lost_on_scores_too_large_for_float32_is_told_so():
    def masked_softmax_weights(scores):  # right, but on the trap row −3.4e38 − log 3 rounds back to −3.4e38
        masked = scores.masked_fill(future_mask(scores.shape[-1]), float("-inf"))
        return torch.exp(masked - torch.logsumexp(masked, dim=-1, keepdim=True))

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert "row 2 sums to 3: its visible scores are about -3.4e+38, where float32 keeps only about 7 digits" in (
        feedback.message), feedback.message


def test_a_row_never_written_beside_a_wrong_one_is_told_before_a_blind_diagonal():
    def causal_average_weights(T):  # two slips: 1/i for 1/(i + 1), and the last row never written
        wei = torch.zeros(T, T)
        for i in range(T - 1):
            wei[i, : i + 1] = 1 / max(i, 1)
        return wei

    feedback = check("causal_average_weights", causal_average_weights)
    assert feedback.message.startswith("row 3 is all 0, as if never written (other rows are wrong too): does a loop "
                                       "skip it"), feedback.message


def test_whole_numbers_lead_only_where_a_step_drops_fractions():
    dropped = check("causal_average_weights", lambda T: torch.tril(torch.ones(T, T)).long() // torch.arange(1, T + 1)[
        :, None])  # // and .long(): the fractions are lost, and that is the cause
    assert dropped.mistake in (WHOLE_NUMBERS, FLOOR_DIVISION), dropped.message
    cast = check("causal_average_weights", lambda T: (torch.tril(torch.ones(T, T)) * 3.7).long())  # 3.7 → 3: far off
    assert cast.mistake == WHOLE_NUMBERS, cast.message  # not within 1 of the answer: told by the traced .long()
    kept = check("causal_average_weights", lambda T: torch.ones(T, T, dtype=torch.long))  # no tril, no division
    assert not kept.message.startswith("your result holds whole numbers"), kept.message
    assert kept.message.endswith("(Your result is also in whole numbers, torch.int64, which cannot hold fractions: "
                                 "keep it in floats.)"), kept.message


def test_a_loop_over_the_batch_that_stops_short_is_told_so_not_to_count_from_the_end():
    def scaled_scores(q, k):
        if q.dim() == 2:
            return q @ k.T / k.shape[-1] ** 0.5
        out = torch.zeros(*q.shape[:-1], k.shape[-2])
        for b in range(q.shape[0] - 1):
            out[b] = q[b] @ k[b].T / k.shape[-1] ** 0.5
        return out

    feedback = check("scaled_scores", scaled_scores)
    assert "sequence 0 of the batch is right, but sequence 1 is all 0, as if never written: your loop stopped " \
           "after 1 sequence" in feedback.message, feedback.message


def test_an_infinity_where_the_reference_is_finite_is_the_entry_told():
    def attention_scores(q, k):  # masked and scaled, two steps this exercise does not take
        T = q.shape[-2]
        scores = (q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5).masked_fill(future_mask(T), float("-inf"))
        return scores

    feedback = check("attention_scores", attention_scores)
    assert "is -inf where the reference has" in feedback.message and "e+308" not in feedback.message, feedback.message


def test_a_squeeze_that_drops_a_batch_of_one_is_told_after_every_case_passed():
    feedback = check("attention_scores", lambda q, k: (q @ k.transpose(-2, -1)).squeeze())
    assert feedback.passed is False and feedback.mistake == "batch_of_one", feedback.message
    assert "not for a batch of one sequence" in feedback.message and ".squeeze()" in feedback.message


@pytest.mark.parametrize("one, words", [
    (lambda scores: scores * 2, "every entry is 2 times the reference's"),
    (lambda scores: (scores,), "it returns a tuple there"),
], ids=["numbers", "a tuple"])
def test_a_batch_of_one_gone_wrong_otherwise_is_not_blamed_on_a_squeeze(one, words):
    def attention_scores(q, k):  # right for every case, but something else on a batch of one
        scores = q @ k.transpose(-2, -1)
        return one(scores) if q.dim() == 3 and len(q) == 1 else scores

    feedback = check("attention_scores", attention_scores)
    assert feedback.mistake == "batch_of_one" and words in feedback.message, feedback.message
    assert ".squeeze()" not in feedback.message, feedback.message


def test_every_slip_of_a_block_line_has_its_words():
    assert set(nb11.LINE_WORDS) == set(nb11.LINES) - {"pre-norm"}


@pytest.mark.parametrize("block, words", [
    (lambda x, ln1, heads, ln2, ffwd: (lambda x: x + ffwd(x))(ln1(x + heads(x))),
     "your heads' line normalises after the addition (post-norm) and your feed-forward line reads x itself, "
     "without its LayerNorm:"),
    (lambda x, ln1, heads, ln2, ffwd: ffwd(ln1(heads(ln2(x)))),
     "each of your two lines replaces x with the part's output (no residual path) and the "
     "two LayerNorms are swapped"),
], ids=["post-norm, then no LayerNorm", "no residual path, LayerNorms swapped"])
def test_a_block_with_a_slip_in_each_line_is_told_both(block, words):
    feedback = check("block_forward", block)
    assert feedback.message.startswith(words), feedback.message


@pytest.mark.parametrize("divisor, words", [
    (lambda t, T: max(t, 1), "row 0 is right, but row 1 is the sum of x[0] … x[1], not their average: it adds up 2 "
                             "vectors, so divide by t + 1 = 2"),
    (lambda t, T: T, "row 0 is x[0] divided by 4: the average of one vector is that vector"),
], ids=["by t", "by T"])
def test_a_running_sum_divided_by_the_wrong_count_is_told_the_count(divisor, words):
    def running_average(x):  # with a slip beside it: the last row never written, so no named mistake matches
        out = torch.zeros_like(x)
        for t in range(len(x) - 1):
            out[t] = x[: t + 1].sum(0) / divisor(t, len(x))
        return out

    feedback = check("running_average", running_average)
    assert feedback.message.startswith(words), feedback.message


def test_weights_from_scaled_scores_are_told_the_scale():
    def masked_softmax_weights(scores):
        T = scores.shape[-1]
        return F.softmax((scores / T**0.5).masked_fill(future_mask(T), float("-inf")), dim=-1)

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert feedback.message.startswith("your weights are the softmax of the scores times 1/√5 (5 is T here)"), (
        feedback.message)


@pytest.mark.parametrize("scale, said", [
    (lambda T: 16**-0.5, "times 1/4 (0.25) whatever the input"),  # head_size = 16 from a later notebook's cell
    (lambda T: 1 / 2, "times 1/2 (0.5) whatever the input"),  # halved "for stability"
    (lambda T: 0.2, "times 1/5 (0.2) whatever the input"),  # on the first case 1/T
    (lambda T: 5**-0.5, "times 1/√5 (0.447) whatever the input"),  # on the first case 1/√T
    (lambda T: (T - 1) ** -0.5, "times 1/√4 (4 is T − 1 here)"),  # a scale that follows the input's size
])
def test_weights_from_scores_scaled_by_a_number_typed_in_are_not_told_it_is_a_size(scale, said):
    # on the first case (T = 5) 1/4 and 1/2 are also 1/(T − 1) and 1/√(T − 1): a scale the same for every input is
    # a number typed in, not a size of the input
    def masked_softmax_weights(scores):
        T = scores.shape[-1]
        return F.softmax((scores * scale(T)).masked_fill(future_mask(T), float("-inf")), dim=-1)

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert feedback.passed is False and said in feedback.message, feedback.message


def test_an_attention_mask_that_only_nudges_the_scores_is_told_the_future_gets_in():
    def attend(x, w_q, w_k, w_v):  # a float mask is added to the scores: the future keeps weight
        T = x.shape[-2]
        return F.scaled_dot_product_attention(x @ w_q.T, x @ w_k.T, x @ w_v.T, attn_mask=torch.tril(torch.ones(T, T)),
                                              scale=1.0)

    feedback = check("attend", attend)
    assert feedback.mistake == "future_leak" and "lets the future in" in feedback.message, feedback.message
    assert "is_causal=True" in feedback.message, feedback.message


def test_a_block_that_reads_a_mean_over_time_is_told_the_future_gets_in_without_mask_questions():
    def block_forward(x, ln1, heads, ln2, ffwd):  # the heads are given, masked: the leak is the mean over positions
        x = x + heads(ln1(x))
        return x + ffwd(ln2(x)) + 0.1 * x.mean(-2, keepdim=True)

    feedback = check("block_forward", block_forward)
    assert feedback.mistake == "future_leak" and "a mean, a norm or a spread" in feedback.message, feedback.message
    assert "softmax" not in feedback.message and "scaled_dot_product" not in feedback.message, feedback.message


def test_an_answer_that_mixes_no_positions_is_never_told_the_future_gets_in():
    def scaled_scores(q, k):  # scaled by the scores' own spread, which every score feeds: wrong, but no leak
        scores = q @ k.transpose(-2, -1)
        return scores / scores.std()

    feedback = check("scaled_scores", scaled_scores)
    assert feedback.passed is False and feedback.mistake != "future_leak", feedback.message


def test_a_scale_typed_in_for_the_lessons_head_size_is_told_to_take_it_from_the_input():
    def multi_head(x, wq, wk, wv, proj):  # the lesson's 32 / 4 = 8 typed in; here a head is 6 wide
        return proj(torch.cat(right_heads(x, wq, wk, wv, 8), dim=-1))

    feedback = check("multi_head", multi_head)
    assert "scaled by 1/√8" in feedback.message and "wq.shape[-1]" in feedback.message, feedback.message


def test_a_head_left_out_of_the_concatenation_is_told_so_and_one_heads_width_is_not():
    def three_of_four(x, wq, wk, wv, proj):
        return proj(torch.cat(right_heads(x, wq, wk, wv, wq.shape[-1])[:-1], dim=-1))

    def summed(x, wq, wk, wv, proj):
        return proj(sum(right_heads(x, wq, wk, wv, wq.shape[-1])))

    assert "is a head left out?" in check("multi_head", three_of_four).message
    assert "is a head left out?" not in check("multi_head", summed).message


def test_a_batch_only_call_on_one_sequence_is_told_to_count_dimensions_from_the_end():
    def scaled_scores(q, k):
        return torch.bmm(q, k.permute(0, 2, 1)) / k.shape[-1] ** 0.5

    feedback = check("scaled_scores", scaled_scores)
    assert "Count dimensions from the end" in feedback.message and "torch.bmm takes a batch only" in feedback.message


# Slips a learner of notebooks 01 to 05 makes (found by trying learners' answers)


def test_an_eps_far_below_1e_5_is_named_by_the_row_of_tiny_spread():
    feedback = check("standardise_rows", lambda x: F.layer_norm(x, x.shape[-1:], eps=1e-8))
    assert feedback.passed is False and "an eps of about 1e-08" in feedback.message, feedback.message
    assert feedback.message.startswith("for a (3, 5) input"), "the first two cases, of ordinary spread, were right"


def test_weights_zeroed_after_the_softmax_are_told_so_not_to_normalise_by_row():
    feedback = check("masked_softmax_weights", lambda scores: F.softmax(scores.tril(), dim=-1).tril())
    assert "setting the future to 0 after the softmax" in feedback.message, feedback.message
    assert "normalise by row" not in feedback.message, feedback.message


def test_weights_whose_rows_are_out_of_proportion_are_not_told_the_future_was_zeroed():
    def masked_softmax_weights(scores):  # each row's past scaled unevenly: no softmax's, zeroed or not
        T = scores.shape[-1]
        wei = F.softmax(scores.masked_fill(torch.ones(T, T).triu(1).bool(), float("-inf")), dim=-1)
        return wei * torch.linspace(0.5, 0.9, T)

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert feedback.passed is False and "after the softmax" not in feedback.message, feedback.message


def test_averaging_weights_that_leave_out_the_diagonal_are_told_a_position_sees_itself():
    def causal_average_weights(T):
        wei = torch.zeros(T, T)
        for i in range(T):
            wei[i, :i] = 1 / (i + 1)  # up to i, not including it
        return wei

    feedback = check("causal_average_weights", causal_average_weights)
    assert "row 0 gives position 0, itself, weight 0" in feedback.message, feedback.message


def test_a_batch_unpacked_from_one_sequence_is_told_the_input_has_no_batch():
    def running_average(x):
        B, T, C = x.shape  # the lesson's batched loop, copied
        return x

    feedback = check("running_average", running_average)
    assert "one sequence, (T, C): two dimensions, no batch in front" in feedback.message, feedback.message


def test_torch_tensor_of_a_list_of_tensors_is_told_to_stack_them():
    def running_average(x):
        return torch.tensor([x[: t + 1].mean(0) for t in range(len(x))])

    feedback = check("running_average", running_average)
    assert "join them with torch.stack(...)" in feedback.message, feedback.message


# The checker's new sentences, tried on answers made to mislead them


def test_a_leak_from_a_mean_over_time_gets_questions_and_no_sdpa_advice_when_sdpa_is_causal():
    def attend(x, w_q, w_k, w_v):
        x = x - x.mean(-2, keepdim=True)  # centred over the whole sequence, future included
        return F.scaled_dot_product_attention(x @ w_q.T, x @ w_k.T, x @ w_v.T, is_causal=True, scale=1.0)

    feedback = check("attend", attend)
    assert feedback.mistake == "future_leak" and "a mean, a norm or a spread over all positions" in feedback.message
    assert "is_causal=True." not in feedback.message, "it already passes is_causal=True"


def test_sdpa_named_in_a_comment_only_gets_no_sdpa_advice():
    def attend(x, w_q, w_k, w_v):  # like F.scaled_dot_product_attention(q, k, v, attn_mask=...), written out
        q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
        return F.softmax(q @ k.transpose(-2, -1), dim=-1) @ v  # no mask at all

    feedback = check("attend", attend)
    assert feedback.passed is False and "attn_mask" not in feedback.message, feedback.message


def test_a_source_that_no_longer_parses_still_gets_one_sentence(monkeypatch):
    import tokenize

    def unreadable(fn):
        raise tokenize.TokenError("EOF in multi-line statement", (1, 0))

    monkeypatch.setattr(core.inspect, "getsource", unreadable)
    feedback = check("attend", lambda x, w_q, w_k, w_v: F.scaled_dot_product_attention(
        x @ w_q.T, x @ w_k.T, x @ w_v.T, attn_mask=torch.tril(torch.ones(x.shape[-2], x.shape[-2])), scale=1.0))
    assert feedback.passed is False and "could not judge" not in feedback.message, feedback.message


def test_a_rare_dropout_is_never_told_it_lets_the_future_in():
    def attend(x, w_q, w_k, w_v):
        q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
        wei = (q @ k.transpose(-2, -1)).masked_fill(torch.ones(x.shape[-2], x.shape[-2]).tril() == 0, float("-inf"))
        return F.dropout(F.softmax(wei, dim=-1), p=0.01) @ v  # training=True by default: random

    for seed in range(20):
        torch.manual_seed(seed)
        feedback = check("attend", attend)
        assert feedback.mistake != "future_leak", (seed, feedback.message)
        assert feedback.mistake == RANDOM or "dropout" in feedback.message, (seed, feedback.message)


def test_a_size_clash_found_after_a_square_case_keeps_its_hint_not_hard_coded():
    def standardise_rows(x):  # the row count where the column count belongs: right for a square input only
        mean = x.mean(-1).expand(x.shape[0], -1).T
        var = x.var(-1, unbiased=False).expand(x.shape[0], -1).T
        return (x - mean) / torch.sqrt(var + 1e-5)

    feedback = check("standardise_rows", standardise_rows)
    assert feedback.passed is False and feedback.mistake != HARD_CODED, feedback.message


def test_a_scale_from_the_number_of_positions_less_one_fails():
    def multi_head(x, wq, wk, wv, proj):  # T − 1 is never the head size in multi_head's cases
        return proj(torch.cat(right_heads(x, wq, wk, wv, x.shape[-2] - 1), dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and "not T, the batch" in feedback.message, feedback.message


def attend_from(scores_to_output):
    """A learner's notebook 06 head: q, k, v made as the lesson makes them, then `scores_to_output(q @ kᵀ, v)`."""
    def attend(x, w_q, w_k, w_v):
        q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
        return scores_to_output(q @ k.transpose(-2, -1), v)
    return attend


@pytest.mark.parametrize("name, fn", [
    ("attend", attend_from(lambda wei, v: wei.masked_fill(future_mask(wei.shape[-1]), float("-inf")) @ v)),  # ±∞, NaN
    ("attend", attend_from(lambda wei, v: wei.masked_fill(future_mask(wei.shape[-1]), 0.0) @ v)),
    ("masked_softmax_weights", lambda scores: scores.tril()),
    ("masked_softmax_weights", lambda scores: scores.masked_fill(future_mask(scores.shape[-1]), float("-inf"))),
    ("multi_head", lambda x, wq, wk, wv, proj: proj(torch.cat([
        ((x @ wq[h]) @ (x @ wk[h]).transpose(-2, -1)).masked_fill(
            torch.ones(x.shape[-2], x.shape[-2]).triu(1) == 1, 0.0) @ (x @ wv[h]) for h in range(len(wq))], dim=-1))),
], ids=["attend, -inf", "attend, 0", "weights, tril", "weights, -inf", "multi_head, 0"])
def test_a_softmax_left_out_is_named_whatever_the_mask(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and feedback.mistake == NO_SOFTMAX, feedback.message
    assert "lets the future in" not in feedback.message and "F.softmax(wei, dim=-1)" in feedback.message


def test_a_softmax_of_ones_own_is_not_told_it_takes_none():
    def own_softmax_unnormalised(scores):  # exp without the division: a slip, but a softmax was attempted
        return scores.masked_fill(future_mask(scores.shape[-1]), float("-inf")).exp()

    feedback = check("masked_softmax_weights", own_softmax_unnormalised)
    assert feedback.passed is False and feedback.mistake != NO_SOFTMAX, feedback.message


def test_a_mask_put_on_the_weights_after_the_softmax_is_not_told_it_lets_the_future_in():
    feedback = check("attend", attend_from(
        lambda wei, v: F.softmax(wei, dim=-1).masked_fill(future_mask(wei.shape[-1]), float("-inf")) @ v))
    assert feedback.passed is False and feedback.mistake == MASKED_WEIGHTS, feedback.message
    assert "puts an infinity into the weights after the softmax" in feedback.message


@pytest.mark.parametrize("calls, words, not_said", [
    ({"empty_like", "copy_"}, "torch.empty makes a tensor that holds whatever was left in memory", "nn.Linear"),
    ({"empty", "kaiming_uniform_", "linear"}, "a random bias", "torch.empty"),  # nn.Linear fills its own torch.empty
    ({"dropout", "linear"}, "F.dropout drops numbers", "torch.empty"),  # a layer handed over, called: not new
], ids=["torch.empty", "a new nn.Linear", "dropout"])
def test_a_random_result_is_told_the_cause_its_calls_point_to(calls, words, not_said):
    said = random_words("f", calls)
    assert said.startswith("`f` gives a different result each time") and words in said and not_said not in said


def test_torch_calls_sees_a_new_layer_and_leftover_memory_and_a_mask_put_on_weights():
    def learner(x):
        torch.nn.Linear(3, 2)
        wei = F.softmax(torch.empty_like(x), dim=-1)
        return wei.masked_fill(future_mask(wei.shape[-1]), float("-inf"))

    seen = torch_calls(learner, (torch.zeros(4, 4),))
    assert {"kaiming_uniform_", "empty_like", "softmax", "masked_fill"} <= seen.names and seen.masked_weights
    zeros = (torch.zeros(4, 4),)
    masked_scores = torch_calls(lambda x: F.softmax(x.masked_fill(future_mask(x.shape[-1]), float("-inf")), -1), zeros)
    assert not masked_scores.masked_weights, "a mask on the scores, before the softmax, is no mask on the weights"
    zeroed = torch_calls(lambda x: F.softmax(x, -1).masked_fill(future_mask(x.shape[-1]), 0.0), zeros)
    assert not zeroed.masked_weights, "0 put into the weights is no infinity"


def test_torch_calls_leaves_out_what_the_functions_handed_over_call():
    def block(x, heads):  # heads takes the softmax, not the learner's own code
        return x + heads(x)

    seen = torch_calls(block, (torch.zeros(4, 4), lambda x: F.softmax(x, -1)))
    assert "add" in seen.names and "softmax" not in seen.names, seen.names


def test_a_new_linear_layer_is_told_of_its_random_bias():
    def attend(x, w_q, w_k, w_v):
        layers = [torch.nn.Linear(x.shape[-1], w.shape[0]) for w in (w_q, w_k, w_v)]  # bias=False forgotten
        for layer, w in zip(layers, (w_q, w_k, w_v), strict=True):
            layer.weight.data = w
        q, k, v = (layer(x) for layer in layers)
        wei = (q @ k.transpose(-2, -1)).masked_fill(future_mask(x.shape[-2]), float("-inf"))
        return F.softmax(wei, dim=-1) @ v

    feedback = check("attend", attend)
    assert feedback.passed is False and feedback.mistake == RANDOM, feedback.message
    assert "random bias" in feedback.message and "torch.empty" not in feedback.message


def test_a_mask_the_size_of_the_head_is_told_it_may_be_the_mask():
    def multi_head(x, wq, wk, wv, proj):
        hs = wq.shape[-1]  # the mask built for head_size, not T
        outs = []
        for h in range(len(wq)):
            wei = ((x @ wq[h]) @ (x @ wk[h]).transpose(-2, -1)) * hs ** -0.5
            wei = wei.masked_fill(torch.tril(torch.ones(hs, hs)) == 0, float("-inf"))
            outs.append(F.softmax(wei, dim=-1) @ (x @ wv[h]))
        return proj(torch.cat(outs, dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and "build it from T = x.shape[-2], not from head_size" in feedback.message
    assert "The line that raised: `wei = wei.masked_fill(" in feedback.message, feedback.message


def test_a_scale_typed_in_is_named_beside_the_rounded_root():
    feedback = check("scaled_scores", lambda q, k: q @ k.transpose(-2, -1) / 2)
    assert feedback.passed is False and "a number typed in that fits one head size only" in feedback.message


@pytest.mark.parametrize("fn, words", [
    (attend_from(lambda wei, v: v @ F.softmax(wei.masked_fill(future_mask(wei.shape[-1]), float("-inf")), dim=-1)),
     "the weights come first"),
    (lambda x, w_q, w_k, w_v: (x @ w_q.T) @ (x @ w_k.T), "is a transpose missing"),
], ids=["v @ wei", "q @ k"])
def test_a_product_whose_sizes_do_not_chain_is_told_how_they_must(fn, words):
    feedback = check("attend", fn)
    assert feedback.passed is False and "In a @ b the last dimension of a must equal" in feedback.message
    assert words in feedback.message, feedback.message


@pytest.mark.parametrize("tail", [lambda out, proj: out @ proj, lambda out, proj: out @ proj.weight.T],
                         ids=["@ proj", "proj.weight"])
def test_a_function_used_as_a_matrix_is_told_to_call_it(tail):
    feedback = check("multi_head", lambda x, wq, wk, wv, proj: tail(torch.cat(each_heads_output(x, wq, wk, wv), -1),
                                                                     proj))
    assert feedback.passed is False and "call it on its input, as in proj(out)" in feedback.message, feedback.message


def test_a_result_of_a_size_typed_in_is_told_so_when_it_raises_on_the_next_case():
    def running_average(x):
        out = torch.zeros(4, 2)  # the first case's size
        for t in range(x.shape[0]):
            out[t] = x[: t + 1].mean(0)
        return out

    feedback = check("running_average", running_average)
    assert feedback.passed is False and "is a size typed in" in feedback.message, feedback.message


def test_a_mask_given_to_the_fused_attention_is_named_first():
    def attend(x, w_q, w_k, w_v):
        q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
        ones = torch.ones(x.shape[-2], x.shape[-2]).tril()  # 0s and 1s, added to the scores: a nudge, not a mask
        return F.scaled_dot_product_attention(q, k, v, attn_mask=ones, scale=1.0)

    feedback = check("attend", attend)
    assert feedback.passed is False and "lets the future in" in feedback.message, feedback.message
    first_question = feedback.message.split("alone.")[1]
    assert first_question.lstrip().startswith("F.scaled_dot_product_attention adds a float attn_mask")


def test_a_nan_where_no_mask_belongs_is_told_the_general_causes_only():
    def standardise_rows(x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, unbiased=False, keepdim=True)
        return (x - mean) / torch.sqrt(var - 1e-5)  # eps subtracted: a constant row goes below 0

    x = torch.ones(3, 4)
    said = explain_difference(standardise_rows(x).double(), torch.zeros(3, 4, dtype=torch.float64), 1e-4,
                              softmax=False)
    assert "NaN" in said and "square root" in said and "−∞" not in said and "mask" not in said, said


def masked_then(weights_of):
    """A learner's notebook 03 answer: the scores' future set to −∞, then `weights_of(masked scores)`."""
    return lambda scores: weights_of(scores.masked_fill(future_mask(scores.shape[-1]), float("-inf")))


@pytest.mark.parametrize("name, fn", [
    ("block_forward", lambda x, ln1, heads, ln2, ffwd: x + ffwd(ln1(x))),  # the softmax is inside heads, left out
    ("masked_softmax_weights", masked_then(lambda s: (math.e ** s) / (math.e ** s).sum(-1, keepdim=True))),
    ("masked_softmax_weights", masked_then(lambda s: torch.special.softmax(torch.special.softmax(s, -1), -1))),
    ("masked_softmax_weights", lambda s: F.softmin(s.masked_fill(future_mask(s.shape[-1]), float("inf")), dim=-1)),
], ids=["block without heads", "e ** s without the shift", "special.softmax twice", "softmin"])
def test_an_answer_that_takes_a_softmax_its_own_way_is_not_told_it_takes_none(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and feedback.mistake != NO_SOFTMAX, feedback.message


def test_a_minus_infinity_put_on_the_weights_of_several_heads_is_named_though_proj_makes_all_nan():
    def multi_head(x, wq, wk, wv, proj):
        outs = []
        for h in range(len(wq)):
            wei = F.softmax((x @ wq[h]) @ (x @ wk[h]).transpose(-2, -1) * wq.shape[-1] ** -0.5, dim=-1)
            outs.append(wei.masked_fill(future_mask(wei.shape[-1]), float("-inf")) @ (x @ wv[h]))
        return proj(torch.cat(outs, dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and feedback.mistake == MASKED_WEIGHTS, feedback.message


def test_zeros_put_on_the_weights_and_renormalised_are_not_told_an_infinity_went_in():
    def masked_softmax_weights(scores):  # the past can underflow to 0 too, and 0 / 0 is NaN
        wei = F.softmax(scores, dim=-1).masked_fill(future_mask(scores.shape[-1]), 0.0)
        return wei / wei.sum(-1, keepdim=True)

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert feedback.passed is False and feedback.mistake != MASKED_WEIGHTS, feedback.message


def causal_weights_upper_triangle_unwritten(T):
    wei = torch.empty(T, T)  # the lower triangle written, the future's entries left as they were
    for i in range(T):
        for j in range(i + 1):
            wei[i, j] = 1 / (i + 1)
    return wei


def running_average_without_its_first_row(x):
    out = torch.empty_like(x)
    for t in range(1, len(x)):
        out[t] = x[: t + 1].mean(0)
    return out


@pytest.mark.parametrize("name, fn, entry", [
    ("causal_average_weights", causal_weights_upper_triangle_unwritten, "[0, 1]"),
    ("running_average", running_average_without_its_first_row, "[0, 0]"),
])
def test_entries_of_torch_empty_never_written_are_told_so_every_time(name, fn, entry):
    for _ in range(3):  # whatever the leftovers happen to be: before, tiny ones were told "close to 0 but not 0"
        feedback = check(name, fn)
        assert feedback.passed is False and feedback.mistake == UNWRITTEN, feedback.message
        leads = f"`{fn.__name__}` returns entries that depend on torch.empty's leftovers (entry {entry} is one)"
        assert feedback.message.startswith(leads), "no '(… was right)' before it: case 0 already hangs on them"


def test_leftovers_that_happen_to_be_right_do_not_pass_and_are_told_even_in_deterministic_mode():
    def causal_average_weights(T):
        wei = torch.empty(T, T)  # right only where memory happens to hold zeros above the diagonal
        for i in range(T):
            wei[i, : i + 1] = 1 / (i + 1)
        return wei

    with torch.random.fork_rng(devices=[]):
        for deterministic in (False, True):  # deterministic: PyTorch fills new memory with NaN
            torch.use_deterministic_algorithms(deterministic)
            try:
                feedback = check("causal_average_weights", causal_average_weights)
            finally:
                torch.use_deterministic_algorithms(False)
            assert feedback.mistake == UNWRITTEN and "(entry [0, 1] is one)" in feedback.message, feedback.message


def blank_square(T):
    """A helper a learner might write in a cell of its own: a (T, T) tensor of whatever memory held."""
    return torch.empty(T, T)


class Averager:
    def weights(self, T):
        wei = torch.empty(T, T)
        for i in range(T):
            wei[i, : i + 1] = 1 / (i + 1)
        return wei


AVERAGER = Averager()


def causal_weights_from_a_helper(T):
    wei = blank_square(T)  # torch.empty, in another cell: this function's source does not name it
    for i in range(T):
        wei[i, : i + 1] = 1 / (i + 1)
    return wei


@pytest.mark.parametrize("fn", [causal_weights_from_a_helper, lambda T: AVERAGER.weights(T)],
                         ids=["a helper function", "an object's method"])
def test_leftovers_that_happen_to_be_right_in_a_helper_of_the_answer_do_not_pass(fn):
    with FilledEmpty(0.0):  # memory that happens to hold zeros, the right numbers above the diagonal
        feedback = check("causal_average_weights", fn)
    assert feedback.mistake == UNWRITTEN and "(entry [0, 1] is one)" in feedback.message, feedback.message


def weights_from_empty_then_masked_by_value(scores):
    T = scores.shape[-1]
    tril = torch.tril(torch.ones(T, T))
    wei = torch.empty(T, T)
    for i in range(T):
        wei[i, : i + 1] = scores[i, : i + 1]
    wei = wei * tril  # the leftovers above the diagonal are multiplied away
    return F.softmax(wei.masked_fill(wei == 0, float("-inf")), dim=-1)


def dropout_drawn_into_torch_empty(x, w_q, w_k, w_v):
    q, k = x @ w_q.T, x @ w_k.T
    scores = (q @ k.transpose(-2, -1)).masked_fill(torch.tril(torch.ones(len(x), len(x))) == 0, float("-inf"))
    wei = torch.softmax(scores, dim=-1)
    keep = torch.empty_like(wei).bernoulli_(0.9)  # every entry written, at random
    return (wei * keep / 0.9) @ (x @ w_v.T)


def test_torch_empty_whose_leftovers_change_nothing_gets_the_answers_own_cause():
    feedback = check("masked_softmax_weights", weights_from_empty_then_masked_by_value)
    assert feedback.mistake == "masked_by_value", feedback.message
    random = check("attend", dropout_drawn_into_torch_empty)
    assert random.mistake == RANDOM and "F.dropout" in random.message and "leftover" not in random.message


def test_a_torch_empty_written_whole_is_not_told_it_left_entries_unwritten():
    def averages_off_by_one(x):
        out = torch.empty_like(x)
        for t in range(len(x)):
            out[t] = x[: t + 2].mean(0)  # every entry written, from one position too many
        return out

    feedback = check("running_average", averages_off_by_one)
    assert feedback.passed is False and feedback.mistake != UNWRITTEN, feedback.message


def test_a_dropout_is_named_even_beside_a_torch_empty_written_whole():
    def attend(x, w_q, w_k, w_v):
        q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
        wei = F.dropout(F.softmax((q @ k.transpose(-2, -1)).masked_fill(future_mask(q.shape[-2]),
                                                                        float("-inf")), dim=-1), p=0.1)
        out = torch.empty(*wei.shape[:-1], v.shape[-1])
        out[...] = wei @ v  # every entry written
        return out

    feedback = check("attend", attend)
    assert feedback.passed is False and feedback.mistake == RANDOM, feedback.message
    assert "F.dropout" in feedback.message and "torch.empty" not in feedback.message


def test_an_infinity_from_a_mask_in_a_step_without_one_is_told_so():
    feedback = check("attention_scores", lambda q, k: (q @ k.transpose(-2, -1)).masked_fill(
        torch.ones(q.shape[-2], q.shape[-2]).triu() == 1, float("-inf")))
    assert feedback.passed is False and "or a mask fill in ±∞ (this step needs no mask)" in feedback.message


def test_a_table_stretched_whole_is_told_it_may_need_its_first_rows_only():
    feedback = check("add_positions", lambda tok_emb, pos_table: tok_emb + pos_table.expand_as(tok_emb))
    assert feedback.passed is False and "only its first rows belong" in feedback.message, feedback.message


def test_a_size_typed_in_for_a_number_input_is_not_told_to_read_a_shape():
    def causal_average_weights(T):
        tril = torch.tril(torch.ones(T, T))
        return tril / tril.sum(1, keepdim=True).expand(4, 4)  # the first case's T typed in

    feedback = check("causal_average_weights", causal_average_weights)
    assert feedback.passed is False and "is a size typed in" in feedback.message, feedback.message
    assert ".shape" not in feedback.message


# ----- sizes past the lessons' block_size: a mask of a fixed size, sliced to T, fails ------------------------------

LESSON_T = 8  # the notebooks' chunks are 8 long: a global `T`, `tril` or `wei` from a lesson cell has this size


def lesson_tril(T):
    """The lower triangle of a lesson's 8 × 8 mask, cut to T × T: right for T up to 8 only."""
    return torch.tril(torch.ones(LESSON_T, LESSON_T))[:T, :T]


def average_with_lesson_weights(x):
    wei = lesson_tril(x.shape[0])
    return (wei / wei.sum(1, keepdim=True)) @ x


def causal_weights_from_lesson_tril(T):
    wei = lesson_tril(T)
    return wei / wei.sum(1, keepdim=True)


def softmax_under_lesson_tril(scores):
    return F.softmax(scores.masked_fill(lesson_tril(scores.shape[-1]) == 0, float("-inf")), dim=-1)


def attend_under_lesson_tril(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    return softmax_under_lesson_tril(q @ k.transpose(-2, -1)) @ v


def heads_under_lesson_tril(q, k, v, T):
    return softmax_under_lesson_tril(q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5) @ v


@pytest.mark.parametrize("name, fn", [
    ("running_average", average_with_lesson_weights),
    ("causal_average_weights", causal_weights_from_lesson_tril),
    ("masked_softmax_weights", softmax_under_lesson_tril),
    ("attend", attend_under_lesson_tril),
    ("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, heads_under_lesson_tril)),
], ids=["running_average", "causal_average_weights", "masked_softmax_weights", "attend", "multi_head"])
def test_a_lessons_8_by_8_mask_cut_to_T_fails_for_a_longer_input(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and "taken from another cell (a T or a tril of its own)" in feedback.message, (
        feedback.message)


def test_every_exercise_over_positions_has_a_case_longer_than_the_lessons_chunks():
    def positions(name, inputs):  # T of a case: 02 takes T itself, 04's are tok_emb's, the others' x's or scores'
        first = inputs[0]
        return first if isinstance(first, int) else first.shape[1] if name == "add_positions" else first.shape[-2]

    for name in ("running_average", "causal_average_weights", "masked_softmax_weights", "add_positions", "attend",
                 "multi_head"):
        longest = max(positions(name, inputs) for inputs in EXERCISES[name].cases)
        assert longest > LESSON_T, (f"{name}: its longest case has T = {longest}; add one longer than {LESSON_T}, "
                                    f"or an {LESSON_T} × {LESSON_T} mask from a lesson cell, cut to T, passes")


def test_running_sums_kept_in_whole_numbers_fail_on_fractions():
    def running_average(x):
        sums = torch.zeros(x.shape, dtype=torch.long)
        for t in range(x.shape[0]):
            sums[t] = x[: t + 1].sum(0)  # stored into whole numbers: the halves are dropped
        return sums / torch.arange(1, x.shape[0] + 1).unsqueeze(1)

    feedback = check("running_average", running_average)
    assert feedback.passed is False and "whole numbers" in feedback.message, feedback.message


def test_a_mask_picked_by_the_scores_values_fails_where_a_score_is_exactly_0():
    def masked_by_value(q, k, v, T):  # tril(wei) == 0 also hides a past score that happens to be 0
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        return F.softmax(wei.masked_fill(torch.tril(wei) == 0, float("-inf")), dim=-1) @ v

    feedback = check("multi_head", lambda x, wq, wk, wv, proj: multi_head_with(x, wq, wk, wv, proj, masked_by_value))
    assert feedback.passed is False, feedback.message


@pytest.mark.parametrize("scale, mistake, words", [
    # 1/8 is 1/(2 · head_size) and 1/4 is 1/head_size for a head size of 4; neither for 8
    (lambda q, k: 0.125, "typed_scale", "1/8 whatever the input: a number typed in (8 is √64"),
    (lambda q, k: 1 / 4, "typed_scale", "1/4 whatever the input: a number typed in (4 is √16"),
    (lambda q, k: k.shape[-1] ** -1 / 2, "power_before_division", "1/(2 · head_size)"),
    (lambda q, k: 1 / k.shape[-1], "scaled_by_d", "by head_size itself, or by head_size ** -0.5 twice"),
    (lambda q, k: k.shape[-1] ** -2, None, "the right ones times 0.12"),  # 1/16 for 4, as if typed in, but 1/64 for 8
])
def test_a_number_typed_in_is_told_apart_from_a_slip_it_equals_for_one_head_size(scale, mistake, words):
    feedback = check("scaled_scores", lambda q, k: q @ k.transpose(-2, -1) * scale(q, k))
    assert (feedback.passed, feedback.mistake) == (False, mistake) and words in feedback.message, feedback.message


def test_a_loop_over_a_batch_size_typed_in_is_told_it_left_sequences_out():
    def scaled_scores(q, k):
        if q.dim() == 2:
            return q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        return torch.stack([q[b] @ k[b].transpose(-2, -1) * k.shape[-1] ** -0.5 for b in range(1)])

    feedback = check("scaled_scores", scaled_scores)
    assert feedback.passed is False and feedback.mistake == HARD_CODED, feedback.message
    assert "the first sequence of this batch of 2 and none for the others" in feedback.message
    assert "range(1)" in feedback.message and "range(q.shape[0])" in feedback.message  # the exercise's own input


def test_a_result_that_is_the_input_unchanged_is_told_so():
    def running_average(x):
        out = torch.zeros_like(x)
        for t in range(x.shape[0]):
            out[t] = x[: t + 1].mean(0)
        return x  # the loop is right; the wrong tensor is returned

    feedback = check("running_average", running_average)
    assert feedback.passed is False and "your result is the input x itself, unchanged" in feedback.message, (
        feedback.message)


@pytest.mark.parametrize("fn", [
    lambda x: x.flip(0).cumsum(0).flip(0) / torch.arange(1, x.shape[0] + 1)[:, None],  # sums of the future, ÷ t + 1
    lambda x: torch.stack([x[: t + 2].sum(0) / (t + 1) for t in range(x.shape[0])]),  # one row ahead, ÷ t + 1
])
def test_a_running_average_of_the_future_is_told_it_reads_the_future_not_to_fix_row_0(fn):
    feedback = check("running_average", fn)
    assert feedback.passed is False and feedback.mistake == "future_leak", feedback.message
    assert "row 0 should be x[0] itself" not in feedback.message


def test_scores_that_lose_the_batch_are_told_so_not_that_a_size_is_typed_in():
    feedback = check("scaled_scores", lambda q, k: torch.einsum("...td,...sd->ts", q, k) / math.sqrt(k.shape[-1]))
    assert feedback.passed is False and feedback.mistake == "one_sequence_only", feedback.message


def test_a_table_cut_to_a_size_typed_in_is_not_told_its_slice_is_one_row_short():
    def add_positions(tok_emb, pos_table):
        T = min(tok_emb.shape[1], 8)  # the lesson's block_size typed in: right for T = 4 and 7, raises at 9
        return tok_emb + pos_table[:T]

    feedback = check("add_positions", add_positions)
    assert feedback.passed is False and feedback.mistake == "hard_coded", feedback.message


def test_parameters_named_in_another_order_but_used_by_position_pass_with_a_note():
    def attention_scores(k, q):  # the first input is q whatever it is called: right, but misleading to read
        return k @ q.transpose(-2, -1)

    feedback = check("attention_scores", attention_scores)
    note = "Note: `attention_scores` takes (k, q), but the inputs come in the order (q, k)"
    assert feedback.passed is True and note in feedback.message, feedback.message


def test_multi_head_computed_without_a_gradient_is_told_a_model_could_not_learn():
    def multi_head(x, wq, wk, wv, proj):
        with torch.no_grad():  # as in notebook 10's cells that only look
            return proj(torch.cat(right_heads(x, wq, wk, wv, wq.shape[-1]), dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and "carries no gradient" in feedback.message, feedback.message


@pytest.mark.parametrize("name, fn", [
    ("scaled_scores", lambda q, k: (q * k.shape[-1] ** -0.5) @ k.mT * k.shape[-1] ** -0.5),  # q scaled, then the scores
    ("multi_head", lambda x, wq, wk, wv, proj: proj(torch.cat([F.scaled_dot_product_attention(
        x @ wq[h] * wq.shape[-1] ** -0.5, x @ wk[h], x @ wv[h], is_causal=True) for h in range(len(wq))], dim=-1))),
])
def test_a_scale_taken_twice_is_told_it_may_be_twice_not_only_head_size_itself(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and "by head_size ** -0.5 twice" in feedback.message, feedback.message
    assert "scaled_dot_product_attention, which scales by it itself" in feedback.message


def test_a_block_that_drops_the_heads_result_is_told_to_let_the_next_line_read_it():
    def block_forward(x, ln1, heads, ln2, ffwd):
        y = x + heads(ln1(x))  # kept under another name, then lost: the next line reads x again
        y = x + ffwd(ln2(x))
        return y

    feedback = check("block_forward", block_forward)
    assert feedback.passed is False and "is lost when the next line reads x again" in feedback.message, (
        feedback.message)


def test_a_numpy_round_trip_on_inputs_with_a_gradient_is_told_to_stay_in_torch():
    def multi_head(x, wq, wk, wv, proj):
        return proj(torch.from_numpy(x.numpy()) @ wq[0])

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and "Compute with torch from start to end" in feedback.message, feedback.message


@pytest.mark.parametrize("scale, mistake, words", [
    (lambda hs: 16 ** -0.5, "typed_scale", "1/4 whatever the input: a number typed in (4 is √16"),  # 05's head_size
    (lambda hs: hs ** -1 / 2, "power_before_division", "you scaled by 1/(2 · head_size)"),
    (lambda hs: 1 / math.isqrt(hs), "rounded_square_root", "by √head_size rounded down"),
    (lambda hs: hs ** 0.5, "multiplied_by_sqrt_d", "you multiplied by √head_size"),
])
def test_multi_head_names_the_slips_in_the_scale_that_07_names(scale, mistake, words):
    def multi_head(x, wq, wk, wv, proj):
        return proj(torch.cat(right_heads(x, wq, wk, wv, scale(wq.shape[-1]) ** -2), dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and feedback.mistake == mistake and words in feedback.message, feedback.message


@pytest.mark.filterwarnings("ignore:Implicit dimension choice for softmax")
@pytest.mark.parametrize("softmax", [lambda w: F.softmax(w), lambda w: F.softmax(w, dim=1)])
def test_heads_stacked_and_softmaxed_across_the_heads_are_told_the_dimension(softmax):
    def multi_head(x, wq, wk, wv, proj):  # every head at once: (B, n_head, T, T)
        q, k, v = x.unsqueeze(1) @ wq, x.unsqueeze(1) @ wk, x.unsqueeze(1) @ wv
        T = x.shape[-2]
        wei = (q @ k.transpose(-2, -1) * wq.shape[-1] ** -0.5).masked_fill(torch.ones(T, T).triu(1) > 0, float("-inf"))
        return proj((softmax(wei) @ v).transpose(1, 2).reshape(*x.shape[:-1], -1))

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and feedback.mistake == "softmax_across_heads", feedback.message


def test_a_wrong_answer_on_a_square_input_that_raises_as_a_named_slip_later_is_told_that_slip():
    def standardise_rows(x):  # keepdim dropped (and the unbiased variance): broadcasts on the square case, raises after
        return (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1) + 1e-5)

    feedback = check("standardise_rows", standardise_rows)
    assert feedback.passed is False and feedback.mistake == "dropped_keepdim", feedback.message
    assert feedback.message.startswith("for a (3, 6) input, "), feedback.message


@pytest.mark.parametrize("name, fn", [
    ("causal_average_weights", lambda T: (torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]).round(
        decimals=2)),
    ("masked_softmax_weights", lambda s: F.softmax(s.masked_fill(torch.ones_like(s).triu(1) > 0, float("-inf")).half(),
                                                   dim=-1).float()),
])
def test_a_step_that_drops_digits_on_the_way_is_told_so_not_to_check_the_normalisation(name, fn):
    feedback = check(name, fn)
    assert feedback.passed is False and feedback.mistake == LOW_PRECISION, feedback.message
    assert "a step drops digits" in feedback.message and "normalise" not in feedback.message


def attend_mask_indexed(x, w_q, w_k, w_v):
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    wei = q @ k.mT
    T = x.shape[-2]
    wei[torch.tril(torch.ones(T, T)) == 0] = float("-inf")  # indexes the first two dimensions: a batch's B and T
    return F.softmax(wei, dim=-1) @ v


def test_a_mask_used_as_an_index_is_told_to_index_from_the_end_or_use_masked_fill():
    feedback = check("attend", attend_mask_indexed)
    assert feedback.passed is False and feedback.mistake == "one_sequence_only", feedback.message
    assert "The line that raised: `wei[torch.tril(torch.ones(T, T)) == 0] = float(\"-inf\")" in feedback.message
    assert "wei.masked_fill(mask, float('-inf')), or index from the end, wei[..., mask]" in feedback.message


def test_a_size_clash_on_a_line_that_divides_by_a_sum_without_keepdim_is_told_keepdim():
    def multi_head(x, wq, wk, wv, proj):
        T, outs = x.shape[-2], []
        for h in range(len(wq)):
            q, k, v = x @ wq[h], x @ wk[h], x @ wv[h]
            e = (q @ k.mT * wq.shape[-1] ** -0.5).masked_fill(torch.ones(T, T).triu(1) > 0, float("-inf")).exp()
            outs.append(e / e.sum(-1) @ v)
        return proj(torch.cat(outs, dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and "Keep it with keepdim=True" in feedback.message, feedback.message


@pytest.mark.parametrize("fn, words", [
    (lambda x: torch.stack([x[: t + 1].sum(0) / t + 1 for t in range(x.shape[0])]), "row 0 is infinite"),
    (lambda x: torch.stack([x[:t].sum(0) / (t + 1) for t in range(x.shape[0])]), "x[:t] leaves position t itself out"),
    (lambda x: torch.stack([x[:t].mean(0) for t in range(x.shape[0])]).nan_to_num(0), "x[:t] leaves position t"),
])
def test_a_running_average_that_divides_by_0_or_skips_each_row_itself_is_told_which(fn, words):
    feedback = check("running_average", fn)
    assert feedback.passed is False and words in feedback.message, feedback.message


def test_a_batch_merged_into_one_long_sequence_is_told_its_sequences_read_each_other():
    def attend(x, w_q, w_k, w_v):
        flat = x.reshape(-1, x.shape[-1])  # the batch merged with the positions: one long sequence
        q, k, v = flat @ w_q.T, flat @ w_k.T, flat @ w_v.T
        T = flat.shape[0]
        wei = F.softmax((q @ k.T).masked_fill(torch.ones(T, T).triu(1) > 0, float("-inf")), dim=-1)
        return (wei @ v).reshape(*x.shape[:-1], -1)

    feedback = check("attend", attend)
    assert feedback.passed is False and "its sequences read each other" in feedback.message, feedback.message


def test_parameters_named_in_another_order_with_a_real_slip_are_told_the_slip_and_the_names():
    def attention_scores(k, q):  # right by position but for a scale this step does not take
        return k @ q.transpose(-2, -1) / 2

    feedback = check("attention_scores", attention_scores)
    assert feedback.passed is False and "times 0.5" in feedback.message, feedback.message
    assert "Note: `attention_scores` takes (k, q)" in feedback.message


def test_parameters_used_by_their_names_in_the_wrong_order_are_told_the_order():
    def attention_scores(k, q):  # the names used as named: by position, k holds the queries
        return q @ k.transpose(-2, -1)

    feedback = check("attention_scores", attention_scores)
    assert feedback.passed is False and feedback.message.startswith("`attention_scores` takes (k, q)"), (
        feedback.message)


def test_a_batch_index_on_one_sequence_is_not_told_about_masks():
    def scaled_scores(q, k):
        return torch.stack([q[b, :, :] @ k[b, :, :].mT for b in range(q.shape[0])]) * k.shape[-1] ** -0.5

    feedback = check("scaled_scores", scaled_scores)
    assert feedback.passed is False and "A mask used as an index" not in feedback.message, feedback.message
    assert "Your code asks for a dimension this tensor does not have" in feedback.message, feedback.message


def test_a_size_clash_beside_a_reduction_without_a_dimension_is_not_told_keepdim():
    def attend(x, w_q, w_k, w_v):
        q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
        s = q @ k.mT
        e = torch.exp(s - s.max()) * torch.tril(torch.ones(8, 8))  # the lesson's 8 typed in; max() takes no dim
        return e / e.sum(-1, keepdim=True) @ v

    feedback = check("attend", attend)
    assert feedback.passed is False and "keepdim" not in feedback.message, feedback.message


@pytest.mark.parametrize("fn, words", [
    (lambda x: torch.nn.functional.pad(x.cumsum(0) / torch.arange(1, x.shape[0] + 1)[:, None], (0, 0, 1, 0))[:-1],
     "or each average is written one row late"),
    (lambda x: torch.cat([(x[: t + 1].mean(0, keepdim=True) if t < 3 else x[t: t + 1]) for t in range(x.shape[0])]),
     "unchanged from the input: your loop stopped after 3 rows"),
])
def test_a_running_average_written_late_or_stopped_early_over_a_copy_is_told_so(fn, words):
    feedback = check("running_average", fn)
    assert feedback.passed is False and words in feedback.message, feedback.message


def test_a_scale_like_a_slip_for_one_head_size_only_is_told_the_scale_it_is():
    feedback = check("scaled_scores", lambda q, k: q @ k.mT / (2 * k.shape[-1] ** 0.5))  # 1/4 for 4, 1/(2√8) for 8
    assert feedback.passed is False and feedback.mistake != "scaled_by_d", feedback.message
    assert "you scaled by 1/4 (0.25), but this input's head size" in feedback.message, feedback.message


def test_a_rounding_that_changes_nothing_is_not_told_it_drops_digits():
    def causal_average_weights(T):
        counts = torch.arange(1, T + 1).float().round()  # whole counts: the rounding changes nothing
        return torch.tril(torch.ones(T, T)) / (counts[:, None] + 1e-3)

    feedback = check("causal_average_weights", causal_average_weights)
    assert feedback.passed is False and feedback.mistake != LOW_PRECISION, feedback.message


def test_a_tiny_starting_value_in_the_future_is_asked_where_it_comes_from():
    def causal_average_weights(T):
        wei = torch.full((T, T), 1e-9)
        for i in range(T):
            wei[i, : i + 1] = 1 / (i + 1)
        return wei

    feedback = check("causal_average_weights", causal_average_weights)
    assert feedback.passed is False and "A starting value (torch.full" in feedback.message, feedback.message


CAUSAL_8 = torch.ones(8, 8).triu(1).bool()  # a mask from a lesson cell: block_size 8 typed in


def test_a_mask_kept_outside_and_used_as_an_index_on_one_sequence_is_told_about_masks():
    def masked_softmax_weights(scores):
        T = scores.shape[-1]
        wei = scores.clone()
        wei[:, CAUSAL_8[:T, :T]] = float("-inf")  # one dimension too many for one sequence's (T, T) scores
        return F.softmax(wei, dim=-1)

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert feedback.passed is False and "A mask used as an index" in feedback.message, feedback.message


def test_a_mask_typed_in_for_8_positions_and_used_as_an_index_is_told_it_is_a_size_typed_in():
    def masked_softmax_weights(scores):
        T = scores.shape[-1]
        wei = scores.clone()
        wei[CAUSAL_8[:T, :T]] = float("-inf")  # right for 5 × 5 and 7 × 7, too small for 9 × 9
        return F.softmax(wei, dim=-1)

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert feedback.passed is False and "is a size typed in" in feedback.message, feedback.message
    assert "A mask used as an index" not in feedback.message


def test_a_maximum_kept_with_unsqueeze_beside_a_size_clash_is_not_told_keepdim():
    def attend(x, w_q, w_k, w_v):
        q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
        s = q @ k.mT
        e = torch.exp(s - s.max(-1).values.unsqueeze(-1)) * torch.tril(torch.ones(8, 8))  # the lesson's 8 typed in
        return e / e.sum(-1, keepdim=True) @ v

    feedback = check("attend", attend)
    assert feedback.passed is False and "keepdim" not in feedback.message, feedback.message


def test_a_rounding_only_printed_is_not_told_it_drops_digits():
    def causal_average_weights(T):
        wei = torch.tril(torch.ones(T, T)) / (torch.arange(1, T + 1)[:, None] + 1e-3)  # the real slip: an epsilon
        print(wei.round(decimals=2))
        return wei

    feedback = check("causal_average_weights", causal_average_weights)
    assert feedback.passed is False and feedback.mistake != LOW_PRECISION, feedback.message


def test_a_scale_like_a_slip_on_the_first_case_that_raises_on_the_next_is_told_the_scale_it_is():
    feedback = check("scaled_scores", lambda q, k: q @ k.T / (2 * math.sqrt(k.shape[-1])))  # .T raises on a batch
    assert feedback.passed is False and feedback.mistake != "scaled_by_d", feedback.message


def test_a_block_whose_heads_read_the_batch_as_one_sequence_is_told_its_sequences_read_each_other():
    def block_forward(x, ln1, heads, ln2, ffwd):
        B, T, C = x.shape
        x = x + heads(ln1(x).reshape(1, B * T, C)).reshape(B, T, C)  # one long sequence
        return x + ffwd(ln2(x))

    feedback = check("block_forward", block_forward)  # told as sequences that read each other, or as a future let in
    assert feedback.passed is False and "one long sequence" in feedback.message, feedback.message


@pytest.mark.parametrize("shift", [False, True])
def test_a_softmax_by_hand_without_keepdim_on_square_scores_is_told_keepdim(shift):
    def masked_softmax_weights(scores):
        T = scores.shape[-1]
        wei = scores.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
        e = (wei - wei.max(-1, keepdim=True).values).exp() if shift else wei.exp()
        return e / e.sum(-1)  # (T,) row sums against the columns: every case is square, so nothing raises

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert feedback.passed is False and feedback.mistake == "dropped_keepdim", feedback.message


def test_names_in_another_order_and_no_gradient_are_told_both():
    def multi_head(x, wk, wq, wv, proj):  # the names used as named, under no_grad
        with torch.no_grad():
            return proj(torch.cat(right_heads(x, wq, wk, wv, wq.shape[-1]), dim=-1))

    feedback = check("multi_head", multi_head)
    assert feedback.passed is False and "Note: `multi_head` takes (x, wk, wq, wv, proj)" in feedback.message, (
        feedback.message)


@pytest.mark.parametrize("name, fn, words", [
    ("attend", lambda x, w_q, w_k, w_v: x[0, :, : x.size(-1)] @ w_q.T, "Your code asks for a dimension"),  # a batch
    ("causal_average_weights", lambda T: torch.zeros(T)[0, 0], "was it made with one size (torch.zeros(T))"),
])
def test_an_index_with_too_many_dimensions_but_no_mask_is_not_told_about_masks(name, fn, words):
    feedback = check(name, fn)
    assert feedback.passed is False and words in feedback.message, feedback.message
    assert "A mask used as an index" not in feedback.message


@pytest.mark.parametrize("fn", [
    lambda T: (torch.ones(T, T).tril() / torch.arange(1, T + 1)[:, None]).round(decimals=1),  # off by 0.05
    lambda T: ((w := torch.ones(T, T).tril().bool().to(torch.bfloat16)) / w.sum(-1, keepdim=True)).float(),
])
def test_a_rounding_or_a_half_precision_mask_is_told_it_drops_digits(fn):
    feedback = check("causal_average_weights", fn)
    assert feedback.passed is False and feedback.mistake == LOW_PRECISION, feedback.message


def test_scores_sent_through_float16_are_told_float16_has_no_room_for_the_lowest_float32():
    def masked_softmax_weights(scores):
        T = scores.shape[-1]
        wei = scores.half().float()  # −3.4e38 does not fit in float16: it comes back as −∞
        return F.softmax(wei.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf")), dim=-1)

    feedback = check("masked_softmax_weights", masked_softmax_weights)
    assert feedback.passed is False and feedback.mistake == LOW_PRECISION, feedback.message
    assert "holds NaN or ∞ where the right one holds numbers" in feedback.message and "65,504" in feedback.message
