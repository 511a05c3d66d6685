"""Notebook 02's checker: it names each mistake the course warns about."""

import pytest
import torch

from helpers.exercises.ex02 import (
    CAUSAL_WEIGHT_MISTAKES,
    T_AGAIN,
    T_CHECKED,
    check_causal_weights,
    reference_weights,
)
from solutions.ex02 import causal_average_weights


# Each wrong answer written the way a learner would write it, with the mistake the checker should name.
def drops_keepdim(T):
    tril = torch.tril(torch.ones(T, T))
    return tril / tril.sum(1)


def by_column(T):
    tril = torch.tril(torch.ones(T, T))
    return tril / tril.sum(0, keepdim=True)


def by_column_without_keepdim(T):
    tril = torch.tril(torch.ones(T, T))
    return tril / tril.sum(0)  # (T,) lines up with the columns: the same as normalising by column


def no_triangle(T):
    return torch.ones(T, T) / T


def not_normalised(T):
    return torch.tril(torch.ones(T, T))


def upper_triangle(T):
    wei = torch.ones(T, T).triu()
    return wei / wei.sum(1, keepdim=True)


def whole_matrix(T):
    tril = torch.tril(torch.ones(T, T))
    return tril / tril.sum()


def divided_by_T(T):
    return torch.tril(torch.ones(T, T)) / T


def test_reference_is_the_row_normalised_lower_triangle():
    wei = reference_weights(4)
    expected = torch.tensor(
        [[1, 0, 0, 0], [1 / 2, 1 / 2, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0], [1 / 4, 1 / 4, 1 / 4, 1 / 4]]
    )
    torch.testing.assert_close(wei, expected)


def test_reference_solution_passes_at_both_sizes():
    feedback = check_causal_weights(causal_average_weights)
    assert feedback.passed is True, feedback.message
    assert f"T = {T_CHECKED} and T = {T_AGAIN}" in feedback.message
    assert str(feedback).startswith("✅")


def test_solution_in_double_precision_still_passes():
    feedback = check_causal_weights(lambda T: causal_average_weights(T).double())
    assert feedback.passed is True, feedback.message


@pytest.mark.parametrize(
    "fn, name, words",
    [
        (drops_keepdim, "dropped_keepdim", "row 1 sums to 1.5"),
        (drops_keepdim, "dropped_keepdim", "keepdim=True"),
        (by_column, "normalised_by_column", "did you normalise by column?"),
        (by_column_without_keepdim, "normalised_by_column", "row 0 sums to 0.25"),
        (no_triangle, "looks_at_future", "in its future"),
        (not_normalised, "not_normalised", "row 2 sums to 3"),
        (upper_triangle, "upper_triangle", "torch.triu"),
        (whole_matrix, "normalised_whole_matrix", "sum of everything"),
        (divided_by_T, "divided_by_T", "dividing by T"),
    ],
)
def test_each_named_mistake_is_recognised(fn, name, words):
    feedback = check_causal_weights(fn)
    assert feedback.passed is False
    assert feedback.mistake == name, feedback.message
    assert words in feedback.message


def test_every_mistake_differs_from_the_answer_and_from_each_other():
    expected = reference_weights(T_CHECKED)
    wrongs = [m.wrong(T_CHECKED) for m in CAUSAL_WEIGHT_MISTAKES]
    for m, w in zip(CAUSAL_WEIGHT_MISTAKES, wrongs, strict=True):
        assert w.shape == expected.shape, m.name
        assert not torch.allclose(w, expected), m.name
    for i in range(len(wrongs)):
        for j in range(i + 1, len(wrongs)):
            names = (CAUSAL_WEIGHT_MISTAKES[i].name, CAUSAL_WEIGHT_MISTAKES[j].name)
            assert not torch.allclose(wrongs[i], wrongs[j]), names


def test_a_hard_coded_answer_for_t_4_is_caught_at_the_second_size():
    fixed = reference_weights(T_CHECKED)
    feedback = check_causal_weights(lambda T: fixed.clone())
    assert feedback.passed is False
    assert f"right for T = {T_CHECKED}, but for T = {T_AGAIN}" in feedback.message
    assert f"({T_AGAIN}, {T_AGAIN})" in feedback.message


def test_a_wrong_shape_is_reported():
    feedback = check_causal_weights(lambda T: torch.ones(T))
    assert feedback.passed is False
    assert "shape (4,)" in feedback.message


def test_an_error_in_the_learner_code_is_reported_not_raised():
    def typo(T):
        return torch.tril(torch.ones(T, T)) / torch.tril(torch.ones(T, T)).sum(2)

    feedback = check_causal_weights(typo)
    assert feedback.passed is False
    assert "raised IndexError" in feedback.message


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda w: w - 0.5 * torch.eye(len(w)), "can never be negative"),
        (lambda w: w + 0.1 * torch.ones(len(w), len(w)).triu(1), "row 0 gives weight 0.10 to position 1"),
        (lambda w: w * torch.tensor([[1.0], [1.0], [2.0], [1.0]]), "row 2 sums to 2.00: did you normalise by row"),
        (lambda w: w / 0, "inf or nan"),
    ],
)
def test_unnamed_errors_get_a_plain_words_hint(change, words):
    feedback = check_causal_weights(lambda T: change(reference_weights(T)))
    assert feedback.passed is False and feedback.mistake is None
    assert words in feedback.message


def test_unequal_but_valid_weights_are_explained():
    def favours_self(T):
        wei = torch.tril(torch.ones(T, T)) + torch.eye(T)
        return wei / wei.sum(1, keepdim=True)

    feedback = check_causal_weights(favours_self)
    assert feedback.passed is False
    assert "not equal" in feedback.message
