"""Notebook 03's checkers: they name each mistake the course warns about."""

import pytest
import torch
import torch.nn.functional as F

from helpers.exercises.ex03 import (
    FEATURES,
    MASKED_SOFTMAX_MISTAKES,
    SCORES,
    STANDARDISE_MISTAKES,
    check_masked_softmax_weights,
    check_standardise_rows,
)
from solutions.ex03 import masked_softmax_weights, standardise_rows


def tril_of(scores):
    T = scores.shape[-1]
    return torch.tril(torch.ones(T, T))


# Exercise 1, each mistake written the way a learner would write it, with the name the checker should give.
def no_mask(scores):
    return F.softmax(scores, dim=-1)


def softmax_down_columns(scores):
    wei = scores.masked_fill(tril_of(scores) == 0, float("-inf"))
    return F.softmax(wei, dim=0)


def mask_with_zero(scores):
    wei = scores.masked_fill(tril_of(scores) == 0, 0)
    return F.softmax(wei, dim=-1)


def multiply_by_tril_and_divide(scores):
    wei = scores * tril_of(scores)
    return wei / wei.sum(1, keepdim=True)


def minus_inf_then_divide(scores):
    wei = scores.masked_fill(tril_of(scores) == 0, float("-inf"))
    return wei / wei.sum(-1, keepdim=True)


def zero_future_after_softmax(scores):
    return F.softmax(scores, dim=-1) * tril_of(scores)


def mask_the_diagonal_too(scores):
    T = scores.shape[-1]
    wei = scores.masked_fill(torch.triu(torch.ones(T, T)) == 1, float("-inf"))
    return F.softmax(wei, dim=-1)


def mask_the_past(scores):
    T = scores.shape[-1]
    wei = scores.masked_fill(torch.triu(torch.ones(T, T)) == 0, float("-inf"))
    return F.softmax(wei, dim=-1)


def test_the_reference_solution_passes():
    feedback = check_masked_softmax_weights(masked_softmax_weights)
    assert feedback.passed is True, feedback.message
    assert str(feedback).startswith("✅")


def test_the_solution_is_row_stochastic_and_causal():
    wei = masked_softmax_weights(SCORES)
    assert (wei >= 0).all()
    torch.testing.assert_close(wei.sum(-1), torch.ones(5))
    assert (wei.triu(diagonal=1) == 0).all()


@pytest.mark.parametrize(
    "wrong, mistake, words",
    [
        (no_mask, "forgot_mask", "−∞"),
        (softmax_down_columns, "by_column", "dim=-1"),
        (mask_with_zero, "mask_with_zero", "e^0 = 1"),
        (multiply_by_tril_and_divide, "divide_by_sum", "negative"),
        (minus_inf_then_divide, "divide_by_sum", "NaN"),
        (zero_future_after_softmax, "masked_after_softmax", "no longer sum to 1"),
        (mask_the_diagonal_too, "masked_the_present", "diagonal"),
        (mask_the_past, "masked_the_past", "hid the past"),
    ],
)
def test_each_masked_softmax_mistake_is_named(wrong, mistake, words):
    feedback = check_masked_softmax_weights(wrong)
    assert feedback.passed is False
    assert feedback.mistake == mistake
    assert words in feedback.message


def test_every_listed_mistake_is_tested_and_differs_from_the_answer():
    tested = {
        "forgot_mask",
        "by_column",
        "mask_with_zero",
        "divide_by_sum",
        "masked_after_softmax",
        "masked_the_present",
        "masked_the_past",
    }
    assert {m.name for m in MASKED_SOFTMAX_MISTAKES} == tested
    expected = masked_softmax_weights(SCORES)
    for m in MASKED_SOFTMAX_MISTAKES:
        assert not torch.allclose(m.wrong(SCORES), expected, equal_nan=True), m.name


@pytest.mark.parametrize(
    "wrong, words",
    [
        (lambda s: masked_softmax_weights(s) * 0.5, "row 0 sums to 0.50: did you normalise by row?"),
        (lambda s: masked_softmax_weights(s) - 0.1, "negative weight"),
        (lambda s: masked_softmax_weights(s) + torch.ones(5, 5).triu(1) * 0.1, "in its future"),
        (lambda s: masked_softmax_weights(s) / 0.0 * 0.0, "NaN"),
    ],
)
def test_unknown_wrong_weights_get_a_plain_words_hint(wrong, words):
    def learner(scores):
        return wrong(scores)

    feedback = check_masked_softmax_weights(learner)
    assert feedback.passed is False and feedback.mistake is None
    assert words in feedback.message


def test_a_wrong_shape_is_reported():
    feedback = check_masked_softmax_weights(lambda scores: masked_softmax_weights(scores)[0])
    assert feedback.passed is False and "shape" in feedback.message


def test_the_checker_does_not_let_the_learner_spoil_its_scores():
    def in_place(scores):
        scores.fill_(0)
        return masked_softmax_weights(scores)

    assert check_masked_softmax_weights(in_place).passed is False
    assert check_masked_softmax_weights(masked_softmax_weights).passed is True


# Exercise 2: standardise each row (LayerNorm without the learned scale and shift).
def standardise_columns(x):
    return (x - x.mean(0, keepdim=True)) / torch.sqrt(x.var(0, unbiased=False, keepdim=True) + 1e-5)


def default_std(x):
    return (x - x.mean(-1, keepdim=True)) / x.std(-1, keepdim=True)


def no_keepdim(x):
    return (x - x.mean(-1)) / torch.sqrt(x.var(-1, unbiased=False) + 1e-5)


def no_keepdim_on_the_mean(x):
    return (x - x.mean(-1)) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)


def no_keepdim_on_the_variance(x):
    return (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, unbiased=False) + 1e-5)


def whole_matrix(x):
    return (x - x.mean()) / torch.sqrt(x.var(unbiased=False) + 1e-5)


def centre_only(x):
    return x - x.mean(-1, keepdim=True)


def scale_only(x):
    return x / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + 1e-5)


def test_the_reference_standardisation_passes_and_matches_layer_norm():
    assert check_standardise_rows(standardise_rows).passed is True
    torch.testing.assert_close(standardise_rows(FEATURES), F.layer_norm(FEATURES, (4,)))


def test_forgetting_eps_is_forgiven():
    def without_eps(x):
        return (x - x.mean(-1, keepdim=True)) / x.std(-1, unbiased=False, keepdim=True)

    assert check_standardise_rows(without_eps).passed is True


@pytest.mark.parametrize(
    "wrong, mistake, words",
    [
        (standardise_columns, "by_column", "BatchNorm"),
        (default_std, "unbiased_variance", "unbiased=False"),
        (no_keepdim, "dropped_keepdim", "keepdim=True"),
        (no_keepdim_on_the_mean, "dropped_keepdim", "keepdim=True"),
        (no_keepdim_on_the_variance, "dropped_keepdim", "keepdim=True"),
        (whole_matrix, "as_a_whole", "as a whole"),
        (centre_only, "only_centred", "not variance 1"),
        (scale_only, "not_centred", "subtract"),
    ],
)
def test_each_standardisation_mistake_is_named(wrong, mistake, words):
    feedback = check_standardise_rows(wrong)
    assert feedback.passed is False
    assert feedback.mistake == mistake
    assert words in feedback.message


def test_every_standardisation_mistake_differs_from_the_answer():
    expected = standardise_rows(FEATURES)
    assert {m.name for m in STANDARDISE_MISTAKES} == {
        "by_column",
        "unbiased_variance",
        "dropped_keepdim",
        "as_a_whole",
        "only_centred",
        "not_centred",
    }
    for m in STANDARDISE_MISTAKES:
        assert not torch.allclose(m.wrong(FEATURES), expected, atol=1e-3), m.name


@pytest.mark.parametrize(
    "wrong, words",
    [
        (lambda x: standardise_rows(x) + 1, "row 0 has mean 1.00"),
        (lambda x: standardise_rows(x) * 2, "row 0 has variance 4.00"),
    ],
)
def test_unknown_wrong_standardisations_get_a_hint(wrong, words):
    def learner(x):
        return wrong(x)

    feedback = check_standardise_rows(learner)
    assert feedback.passed is False and feedback.mistake is None
    assert words in feedback.message
