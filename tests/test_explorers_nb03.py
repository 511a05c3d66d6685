"""Notebook 03's explorer: masking and softmaxing a typed row of scores, and every kind of bad input."""

import matplotlib.pyplot as plt
import pytest
import torch

from helpers.explorers.softmax import EXAMPLE, explore_masked_softmax, masked_softmax_row


def test_the_default_is_the_worked_example(capsys):
    weights = explore_masked_softmax()
    assert EXAMPLE == "2, -1, 3, 5"
    torch.testing.assert_close(weights, torch.tensor([0.27, 0.01, 0.72, 0.0]), atol=0.005, rtol=0)
    assert weights[3] == 0
    torch.testing.assert_close(weights, torch.softmax(torch.tensor([2.0, -1.0, 3.0, float("-inf")]), dim=-1))
    out = capsys.readouterr().out
    assert "[2.00, -1.00, 3.00, −∞]" in out
    assert "[7.39, 0.37, 20.09, 0.00]" in out
    assert "27.84" in out
    assert "[0.27, 0.01, 0.72, 0.00]" in out
    assert "every future weight is exactly 0: True" in out
    assert len(plt.get_fignums()) == 1
    assert len(plt.gcf().axes) == 6  # raw, masked, softmax, each with its colour bar


def test_weights_live_on_the_cpu_and_sum_to_one():
    weights = explore_masked_softmax("0.5, -2, 4, 1, 3", now=3)
    assert weights.device.type == "cpu" and weights.shape == (5,)
    torch.testing.assert_close(weights.sum(), torch.tensor(1.0))
    assert (weights[:4] > 0).all() and weights[4] == 0


@pytest.mark.parametrize("future_score", ["5", "1000", "1e30", "-7"])
def test_the_future_gets_exactly_zero_whatever_its_score(future_score):
    weights = explore_masked_softmax(f"2, -1, 3, {future_score}", now=2)
    assert weights[3] == 0
    torch.testing.assert_close(weights, explore_masked_softmax("2, -1, 3, 5", now=2), atol=0, rtol=0)


def test_now_at_the_end_masks_nothing():
    weights = explore_masked_softmax("2, -1, 3, 5", now=3)
    torch.testing.assert_close(weights, torch.softmax(torch.tensor([2.0, -1.0, 3.0, 5.0]), dim=-1))
    assert (weights > 0).all()


def test_equal_scores_give_the_plain_average():
    weights = explore_masked_softmax("4, 4, 4, 4, 4", now=1)
    torch.testing.assert_close(weights, torch.tensor([0.5, 0.5, 0.0, 0.0, 0.0]))


def test_shifting_every_score_changes_nothing():
    torch.testing.assert_close(explore_masked_softmax("12, 9, 13, 15", now=2), explore_masked_softmax(EXAMPLE, now=2))


def test_huge_scores_do_not_overflow(capsys):
    weights = explore_masked_softmax("1000, 2, 3", now=1)
    assert torch.isfinite(weights).all()
    torch.testing.assert_close(weights, torch.tensor([1.0, 0.0, 0.0]))
    assert "overflows" in capsys.readouterr().out


def test_the_minus_sign_of_the_prose_is_accepted():
    torch.testing.assert_close(explore_masked_softmax("2, −1, 3, 5", now=2), explore_masked_softmax(EXAMPLE, now=2))


@pytest.mark.parametrize(
    "text, now, words",
    [
        ("", 2, "score"),
        ("   ", 0, "score"),
        (None, 0, "score"),
        ("2, x, 3", 0, "not a number"),
        ("2,,3", 0, "empty"),
        ("2, inf, 3", 0, "finite"),
        (", ".join(["1"] * 13), 0, "13 scores"),
        ("2, -1, 3, 5", 4, "past the end"),
        ("2, -1", 7, "positions 0 to 1"),
        ("2, -1, 3", -1, "count from 0"),
        ("2, -1, 3", 1.5, "whole number"),
    ],
)
def test_bad_input_gets_a_message_not_a_traceback(capsys, text, now, words):
    assert explore_masked_softmax(text, now) is None
    out = capsys.readouterr().out
    assert words in out
    assert "Traceback" not in out
    assert plt.get_fignums() == []  # nothing half-drawn


def test_masked_softmax_row_on_any_device_sized_row():
    scores = torch.tensor([[0.3, -1.2, 2.0, 0.0, 5.0]])
    for now in range(5):
        masked, weights = masked_softmax_row(scores[0], now)
        assert torch.isneginf(masked[now + 1 :]).all() and torch.isfinite(masked[: now + 1]).all()
        torch.testing.assert_close(weights.sum(), torch.tensor(1.0))
        assert (weights[now + 1 :] == 0).all()
