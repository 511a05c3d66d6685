"""Notebook 01's checker: it names each mistake the course warns about."""

import pytest
import torch

from helpers.exercises.ex01 import EXERCISE_X, MISTAKES, check_running_average, reference_running_average
from solutions.ex01 import running_average


# Each wrong answer written the way a learner would write it, with the mistake the checker should name.
def looks_at_future(x):
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = x.mean(0)
    return out


def skips_self(x):
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = x[:t].mean(0)
    return out


def skips_self_row0_patched(x):
    out = torch.zeros_like(x)
    out[0] = x[0]
    for t in range(1, x.shape[0]):
        out[t] = x[:t].mean(0)
    return out


def sums(x):
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = x[: t + 1].sum(0)
    return out


def along_channels(x):
    out = torch.zeros_like(x)
    for c in range(x.shape[1]):
        out[:, c] = x[:, : c + 1].mean(1)
    return out


def channels_in_the_loop(x):
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = x[: t + 1].mean(1)
    return out


def no_dim(x):
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = x[: t + 1].mean()
    return out


def in_place(x):
    for t in range(x.shape[0]):
        x[t] = x[: t + 1].mean(0)
    return x


def test_reference_is_scheme_one_and_matches_the_formula():
    got = reference_running_average(EXERCISE_X)
    T = EXERCISE_X.shape[0]
    by_formula = EXERCISE_X.cumsum(0) / torch.arange(1, T + 1).unsqueeze(1)
    torch.testing.assert_close(got, by_formula)


@pytest.mark.parametrize(
    "fn, name, words",
    [
        (looks_at_future, "future", "WHOLE sequence"),
        (skips_self, "skips_self", "x[:t] leaves position t itself out"),
        (skips_self_row0_patched, "skips_self", "x[:t] leaves position t itself out"),
        (sums, "sum", "running SUM"),
        (along_channels, "wrong_dim", "along the channels"),
        (channels_in_the_loop, "wrong_dim_shape", "averaging over dim 1 (the channels)"),
        (no_dim, "all_dims", ".mean() without a dim"),
        (in_place, "in_place", "wrote the averages back into x"),
    ],
)
def test_each_named_mistake_is_recognised(fn, name, words):
    feedback = check_running_average(fn)
    assert feedback.passed is False
    assert feedback.mistake == name, feedback.message
    assert words in feedback.message


def test_every_mistake_differs_from_the_answer_and_from_each_other():
    expected = reference_running_average(EXERCISE_X)
    wrongs = [m.wrong(EXERCISE_X.clone()) for m in MISTAKES]
    for m, w in zip(MISTAKES, wrongs, strict=True):
        assert not torch.allclose(torch.nan_to_num(w), expected), m.name
    for i in range(len(wrongs)):
        for j in range(i + 1, len(wrongs)):
            a, b = torch.nan_to_num(wrongs[i]), torch.nan_to_num(wrongs[j])
            assert not torch.allclose(a, b), (MISTAKES[i].name, MISTAKES[j].name)


def test_an_unnamed_error_points_at_the_first_wrong_row():
    def off_at_row_3(x):
        out = running_average(x)
        out[3] += 1
        return out

    feedback = check_running_average(off_at_row_3)
    assert feedback.passed is False and feedback.mistake is None
    assert "row 3" in feedback.message


def test_a_wrong_row_0_is_explained():
    def bad_first_row(x):
        out = running_average(x)
        out[0] = 0
        return out

    feedback = check_running_average(bad_first_row)
    assert feedback.passed is False
    assert "row 0 should be x[0]" in feedback.message


def test_the_learner_cannot_spoil_the_exercise_input():
    before = EXERCISE_X.clone()
    check_running_average(in_place)
    assert torch.equal(EXERCISE_X, before)
