"""Notebook 03's explorer: masking and softmaxing a typed row of scores, its `now` slider, and bad input."""

import pytest
import torch
from ipywidgets import Text

from helpers.explorers import explore
from helpers.explorers.nb03 import MAX_SCORES, count_scores, explore_masked_softmax, masked_softmax_row, now_slider

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_the_default_is_the_worked_example(capsys, shown_figures):
    shown = explore_masked_softmax()
    weights = shown["weights"]
    torch.testing.assert_close(weights, torch.tensor([0.27, 0.01, 0.72, 0.0]), atol=0.005, rtol=0)
    assert weights[3] == 0  # exactly: the future is masked, not merely small
    assert torch.equal(shown["masked"][3], torch.tensor(float("-inf")))
    out = capsys.readouterr().out
    assert "[2.00, -1.00, 3.00, −∞]" in out
    assert "[7.39, 0.37, 20.09, 0.00]" in out
    assert "27.84" in out
    assert "every future weight is exactly 0: True" in out
    assert len(shown_figures) == 1
    assert len(shown_figures[-1].axes) == 6  # raw, masked, softmax, each with its colour bar


def test_the_shown_numbers_are_cpu_float32_and_sum_to_one():
    shown = explore_masked_softmax("0.5, -2, 4, 1, 3", now=3)
    weights = shown["weights"]
    assert weights.device.type == "cpu" and weights.dtype == torch.float32 and weights.shape == (5,)
    torch.testing.assert_close(weights.sum(), torch.tensor(1.0))
    assert (weights[:4] > 0).all() and weights[4] == 0
    assert shown["now"] == 3


@pytest.mark.parametrize("future_score", ["5", "1000", "1e30", "-7"])
def test_the_future_gets_exactly_zero_whatever_its_score(future_score):
    weights = explore_masked_softmax(f"2, -1, 3, {future_score}", now=2)["weights"]
    assert weights[3] == 0
    assert torch.equal(weights, explore_masked_softmax("2, -1, 3, 5", now=2)["weights"])


def test_now_at_the_end_masks_nothing_and_does_not_claim_zeros(capsys):
    weights = explore_masked_softmax("2, -1, 3, 5", now=3)["weights"]
    torch.testing.assert_close(weights, torch.softmax(torch.tensor([2.0, -1.0, 3.0, 5.0]), dim=-1))
    assert (weights > 0).all()
    out = capsys.readouterr().out
    assert "nothing is masked: `now` is the last position" in out
    assert "every future weight is exactly 0" not in out


def test_equal_scores_give_the_plain_average():
    weights = explore_masked_softmax("4, 4, 4, 4, 4", now=1)["weights"]
    torch.testing.assert_close(weights, torch.tensor([0.5, 0.5, 0.0, 0.0, 0.0]))


def test_shifting_every_score_changes_nothing():
    torch.testing.assert_close(
        explore_masked_softmax("12, 9, 13, 15", now=2)["weights"], explore_masked_softmax("2, -1, 3, 5")["weights"]
    )


def test_huge_scores_are_shifted_instead_of_overflowing(capsys):
    weights = explore_masked_softmax("1000, 2, 3", now=1)["weights"]
    assert torch.equal(weights, torch.tensor([1.0, 0.0, 0.0]))
    assert "overflows" in capsys.readouterr().out


def test_the_extreme_float32_scores_give_weights_not_nan():
    weights = explore_masked_softmax("3e38, -3e38", now=1)["weights"]
    assert torch.equal(weights, torch.tensor([1.0, 0.0]))  # the difference −6e38 overflows to −∞: e^−∞ = 0


def test_the_minus_sign_of_the_prose_is_accepted():
    assert torch.equal(
        explore_masked_softmax("2, −1, 3, 5", now=2)["weights"], explore_masked_softmax("2, -1, 3, 5")["weights"]
    )


@pytest.mark.parametrize(
    "text, now, words",
    [
        ("", 2, "There are no scores"),
        (None, 0, "There are no scores"),
        ("2, x, 3", 0, "Score 1, 'x', is not a number"),
        ("2,,3", 0, "Score 1 is empty: remove the extra comma"),
        ("2, 3,", 0, "Score 2 is empty: remove the extra comma"),
        ("2, inf, 3", 0, "Score 1, 'inf', is too large"),
        ("1e39, 2", 1, "Score 0, '1e39', is too large to compute with (float32 overflows)"),
        (", ".join(["1"] * (MAX_SCORES + 1)), 0, f"There are {MAX_SCORES + 1} scores"),
        ("2, -1, 3, 5", 4, "past the end of 4 scores"),
        ("2, -1", 7, "(positions 0 to 1): move it to 1 or lower"),
        ("2, -1, 3", -1, "count from 0"),
        ("2, -1, 3", 1.5, "not a whole number"),
    ],
)
def test_bad_input_gets_one_sentence_and_no_picture(text, now, words, refused):
    refused(explore_masked_softmax(text, now), words)


def test_masked_softmax_row_masks_exactly_the_future():
    scores = torch.tensor([0.3, -1.2, 2.0, 0.0, 5.0])
    for now in range(5):
        masked, weights = masked_softmax_row(scores, now)
        assert torch.isneginf(masked[now + 1 :]).all() and torch.isfinite(masked[: now + 1]).all()
        torch.testing.assert_close(weights.sum(), torch.tensor(1.0))
        assert (weights[now + 1 :] == 0).all()


def test_count_scores_is_zero_for_unusable_text():
    assert count_scores("2, -1, 3, 5") == 4
    assert count_scores("2, x") == 0
    assert count_scores("") == 0


def test_the_now_slider_ends_at_the_last_score_typed():
    scores = Text(value="2, -1, 3, 5")
    now = now_slider(scores, value=2)
    assert (now.min, now.max, now.value) == (0, 3, 2)
    scores.value = "2, -1, 3, 5, 0, 1"
    assert now.max == 5
    scores.value = "2, -1"
    assert (now.max, now.value) == (1, 1)
    scores.value = "2, oops"  # unusable: the slider stays, the explorer reports the text
    assert now.max == 1


def test_the_explorer_follows_a_shorter_row_without_complaining(capsys, shown_figures, live_explorers):
    scores = Text(value="2, -1, 3, 5", continuous_update=False)
    shown = explore(explore_masked_softmax, scores_text=scores, now=now_slider(scores, value=3))
    assert shown["now"] == 3
    capsys.readouterr()
    scores.value = "2, -1"  # the slider's max drops to 1, pulling now down with it: one redraw, at now=1
    out = capsys.readouterr().out
    assert out.count("position 1 is now, the last one") == 1
    assert "past the end" not in out
    assert len(shown_figures) == 2  # the first picture and the one redraw


def test_both_score_panels_share_one_colour_scale(shown_figures):
    explore_masked_softmax("2, -1, 3, 5", now=2)  # the masked panel's visible scores only reach 3
    raw_ax, masked_ax, weights_ax = shown_figures[-1].axes[:3]  # the three panels come before their colour bars
    limits = [ax.images[0].get_clim() for ax in (raw_ax, masked_ax)]
    assert limits[0] == limits[1] == (-5.0, 5.0)
    assert weights_ax.images[0].get_clim() == (0.0, 1.0)


def test_the_panels_are_named_by_stage_not_by_step_number(shown_figures):
    explore_masked_softmax("2, -1, 3, 5", now=2)
    titles = [ax.get_title() for ax in shown_figures[-1].axes[:3]]
    for title, stage in zip(titles, ["raw scores", "future set to −∞", "softmax weights"], strict=True):
        assert stage in title
        assert not any(mark in title for mark in "①②③④")  # the text's ①–④ are the four steps, not the panels
