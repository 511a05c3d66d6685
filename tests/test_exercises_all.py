"""What every "your turn" checker must do: accept its reference solution, and treat an untouched
stub as "not attempted" (so an unfilled notebook still runs green). The mistakes each checker
names are tested beside it, in test_exercises_NN.py."""

import pytest

from helpers.exercises.ex01 import check_running_average
from helpers.exercises.ex02 import check_causal_weights
from helpers.exercises.ex03 import check_masked_softmax_weights, check_standardise_rows
from solutions.ex01 import running_average
from solutions.ex02 import causal_average_weights
from solutions.ex03 import masked_softmax_weights, standardise_rows

EXERCISES = [
    (check_running_average, running_average),
    (check_causal_weights, causal_average_weights),
    (check_masked_softmax_weights, masked_softmax_weights),
    (check_standardise_rows, standardise_rows),
]
IDS = [checker.__name__ for checker, _ in EXERCISES]


def stub(*args):
    # YOUR CODE HERE
    raise NotImplementedError


def returns_nothing(*args):
    result = args[0]  # noqa: F841  (computed, but the learner forgot to return it)


@pytest.mark.parametrize("checker, solution", EXERCISES, ids=IDS)
def test_reference_solution_passes(checker, solution):
    feedback = checker(solution)
    assert feedback.passed is True, feedback.message
    assert str(feedback).startswith("✅")


@pytest.mark.parametrize("checker, solution", EXERCISES, ids=IDS)
def test_untouched_stub_is_not_attempted(checker, solution):
    feedback = checker(stub)
    assert feedback.passed is None and feedback.mistake is None
    assert "fill in `stub`" in feedback.message
    assert str(feedback).startswith("✏️")


@pytest.mark.parametrize("checker, solution", EXERCISES, ids=IDS)
def test_forgetting_to_return_is_not_attempted(checker, solution):
    feedback = checker(returns_nothing)
    assert feedback.passed is None
    assert "returns None" in feedback.message
