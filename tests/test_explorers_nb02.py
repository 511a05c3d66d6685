"""Notebook 02's explorer: dividing a typed row of scores by its sum, and every kind of bad input."""

import pytest
import torch

from helpers.explorers.nb02 import MAX_SCORES, explore_divide_by_sum

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_the_worked_row_shows_a_negative_weight(capsys, shown_figures):
    shown = explore_divide_by_sum("2, -1, 3")
    assert shown["total"] == 4
    torch.testing.assert_close(shown["weights"], torch.tensor([0.5, -0.25, 0.75], dtype=torch.float64))
    assert len(shown["problems"]) == 1
    out = capsys.readouterr().out
    assert "Weight 1 is -0.25: negative" in out
    assert "[0.50, -0.25, 0.75]" in out
    assert len(shown_figures[-1].axes) == 4  # two one-row panels, each with its colour bar


def test_the_default_is_the_first_worked_row():
    torch.testing.assert_close(explore_divide_by_sum()["scores"], torch.tensor([2.0, -1.0, 3.0], dtype=torch.float64))


def test_a_zero_sum_is_division_by_zero_and_draws_only_the_scores(capsys, shown_figures):
    shown = explore_divide_by_sum("1, -1, 0")
    assert shown["total"] == 0
    assert shown["weights"] is None
    assert "nothing to divide by" in capsys.readouterr().out
    assert len(shown_figures[-1].axes) == 2


def test_non_negative_scores_give_a_proper_average(capsys):
    shown = explore_divide_by_sum("1, 1, 2")
    torch.testing.assert_close(shown["weights"], torch.tensor([0.25, 0.25, 0.5], dtype=torch.float64))
    assert shown["problems"] == []
    assert "proper weighted average" in capsys.readouterr().out


def test_weights_above_one_are_pointed_out():
    shown = explore_divide_by_sum("3, -1")
    torch.testing.assert_close(shown["weights"], torch.tensor([1.5, -0.5], dtype=torch.float64))
    assert any("above 1" in p for p in shown["problems"])


def test_dividing_by_the_sum_always_gives_weights_that_sum_to_one():
    shown = explore_divide_by_sum("0.5, -2, 7, 1")
    torch.testing.assert_close(float(shown["weights"].sum()), 1.0)


def test_the_largest_scores_still_divide(capsys):
    shown = explore_divide_by_sum("3e38, 3e38")
    torch.testing.assert_close(shown["weights"], torch.tensor([0.5, 0.5], dtype=torch.float64))
    assert "[3.00e+38, 3.00e+38]" in capsys.readouterr().out


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "There are no scores: type numbers separated by commas"),
        (None, "There are no scores"),
        ("2, x, 3", "Score 1, 'x', is not a number"),
        ("1,,2", "Score 1 is empty: remove the extra comma"),
        ("1, 2,", "Score 2 is empty: remove the extra comma"),
        ("inf, 1", "Score 0, 'inf', is too large"),
        ("1e39, 1", "Score 0, '1e39', is too large"),
        (",".join(["1"] * (MAX_SCORES + 1)), f"give at most {MAX_SCORES}"),
        ("1, -1, 1e-310", "so close to 0 that dividing by it overflows"),
    ],
)
def test_bad_input_gets_one_sentence_and_no_picture(text, words, refused):
    refused(explore_divide_by_sum(text), words)
