"""The checker core every "your turn" exercise uses."""

import torch

from helpers.exercises import Feedback, Mistake, check


def reference(x):
    return x.cumsum(0)


def stub(x):
    # YOUR CODE HERE
    raise NotImplementedError


MISTAKES = [
    Mistake("plain sum", lambda x: x.sum(0, keepdim=True).expand_as(x), "you summed everything, not a running sum."),
]
INPUTS = (torch.tensor([[1.0], [2.0], [3.0]]),)


def test_untouched_stub_is_not_attempted_and_does_not_raise():
    feedback = check(stub, reference, INPUTS, MISTAKES)
    assert feedback.passed is None and "fill in `stub`" in feedback.message
    assert str(feedback).startswith("✏️ Your turn")


def test_function_returning_none_is_not_attempted():
    assert check(lambda x: None, reference, INPUTS).passed is None


def test_correct_answer_passes():
    feedback = check(lambda x: torch.cumsum(x, dim=0), reference, INPUTS, MISTAKES)
    assert feedback == Feedback(True, "your result matches the reference on every entry.")


def test_known_mistake_is_named():
    feedback = check(lambda x: x.sum(0, keepdim=True).expand_as(x), reference, INPUTS, MISTAKES)
    assert feedback.passed is False and feedback.mistake == "plain sum" and "running sum" in feedback.message


def test_wrong_shape_and_errors_are_explained():
    assert "shape (3,)" in check(lambda x: x[:, 0], reference, INPUTS).message
    crash = check(lambda x: 1 / 0, reference, INPUTS)
    assert crash.passed is False and "ZeroDivisionError" in crash.message
    assert "expected a tensor" in check(lambda x: [1, 2, 3], reference, INPUTS).message


def test_unknown_wrong_answer_gets_the_custom_or_generic_hint():
    assert "row by row" in check(lambda x: x * 2, reference, INPUTS).message
    feedback = check(lambda x: x * 2, reference, INPUTS, explain_difference=lambda got, exp: "custom hint")
    assert feedback.message == "custom hint"


def test_learner_cannot_spoil_the_inputs():
    def in_place(x):
        x.mul_(0)
        return reference(x)

    check(in_place, reference, INPUTS)
    assert INPUTS[0].tolist() == [[1.0], [2.0], [3.0]]
