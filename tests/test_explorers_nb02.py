"""Notebook 02's explorer: dividing a typed row of scores by its sum, and every kind of bad input."""

import matplotlib.pyplot as plt
import pytest
import torch

from helpers.explorers.matmul import EXAMPLE, MAX_SCORES, divide_by_row_sum, parse_scores


def test_the_default_shows_a_negative_weight(capsys):
    result = divide_by_row_sum()
    assert EXAMPLE == "2, -1, 3"
    assert result["total"] == 4
    torch.testing.assert_close(result["weights"], torch.tensor([0.5, -0.25, 0.75], dtype=torch.float64))
    assert len(result["problems"]) == 1
    out = capsys.readouterr().out
    assert "Weight 1 is -0.25: negative" in out
    assert "[0.50, -0.25, 0.75]" in out
    assert len(plt.gcf().axes) == 4  # two one-row panels, each with its colour bar


def test_a_zero_sum_is_division_by_zero_and_draws_only_the_scores(capsys):
    result = divide_by_row_sum("1, -1, 0")
    assert result["total"] == 0
    assert result["weights"] is None
    assert "nothing to divide by" in capsys.readouterr().out
    assert len(plt.gcf().axes) == 2


def test_non_negative_scores_give_a_proper_average(capsys):
    result = divide_by_row_sum("1, 1, 2")
    torch.testing.assert_close(result["weights"], torch.tensor([0.25, 0.25, 0.5], dtype=torch.float64))
    assert result["problems"] == []
    assert "proper weighted average" in capsys.readouterr().out


def test_weights_above_one_are_pointed_out():
    result = divide_by_row_sum("3, -1", draw=False)
    torch.testing.assert_close(result["weights"], torch.tensor([1.5, -0.5], dtype=torch.float64))
    assert any("above 1" in p for p in result["problems"])
    assert not plt.get_fignums()


def test_dividing_by_the_sum_always_gives_weights_that_sum_to_one():
    result = divide_by_row_sum("0.5, -2, 7, 1", draw=False)
    torch.testing.assert_close(float(result["weights"].sum()), 1.0)


def test_parse_scores_reads_spaces_signs_and_decimals():
    assert parse_scores(" 2 ,-1,  3.5 ") == ([2.0, -1.0, 3.5], None)
    assert parse_scores("7") == ([7.0], None)


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "Type at least one score"),
        ("   ", "Type at least one score"),
        (None, "Type at least one score"),
        ("2, x, 3", "'x' (score 1) is not a number"),
        ("2 3", "'2 3' (score 0) is not a number"),
        ("1,,2", "Score 1 is empty"),
        ("1, 2,", "Score 2 is empty"),
        ("1, nan", "not an ordinary number"),
        ("inf, 1", "not an ordinary number"),
        (",".join(["1"] * (MAX_SCORES + 1)), f"at most {MAX_SCORES}"),
    ],
)
def test_bad_input_prints_a_message_not_a_traceback(capsys, text, words):
    assert divide_by_row_sum(text) is None
    assert words in capsys.readouterr().out
    assert not plt.get_fignums()
