"""Notebook 07's explorer: without the scale the softmax sharpens as the head grows; with it, it stays calm."""

import ipywidgets as widgets
import pytest
import torch

from helpers.attention import causal_softmax
from helpers.explorers.core import explore
from helpers.explorers.nb07 import HEAD_SIZES, TEXT, explore_scaling, random_qk, scores

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_unscaled_weights_sharpen_as_the_head_grows():
    means = [explore_scaling(d, False)["mean_max_weight"] for d in HEAD_SIZES]
    assert means == sorted(means)  # the largest weight in a row only grows with the head size
    assert means[-1] > 0.95 and means[0] < 0.8


def test_scaled_weights_stay_calm_at_every_head_size():
    for d in HEAD_SIZES:
        shown = explore_scaling(d, True)
        assert 0.4 < shown["mean_max_weight"] < 0.65
        assert shown["mean_max_weight"] < explore_scaling(d, False)["mean_max_weight"]


def test_the_weights_are_causal_and_row_stochastic(capsys, shown_figures):
    shown = explore_scaling(64, True)
    wei = shown["wei"]
    assert wei.shape == (len(TEXT), len(TEXT))
    torch.testing.assert_close(wei.sum(-1), torch.ones(len(TEXT)))
    visible = torch.ones(len(TEXT), len(TEXT), dtype=torch.bool).tril()
    assert (wei[~visible] == 0).all() and (wei[visible] > 0).all()
    assert torch.equal(shown["max_weight"], wei.max(-1).values)
    assert shown["max_weight"][0] == 1  # row 0 can only look at itself
    assert "scaled by 1/√dₖ" in capsys.readouterr().out
    assert len(shown_figures) == 1


def test_scaling_divides_the_scores_by_the_root_of_the_head_size():
    q, k = random_qk(5, 16)
    torch.testing.assert_close(scores(q, k, True), scores(q, k, False) / 4)
    future = torch.ones(5, 5).triu(1).bool()
    expected = torch.softmax((q @ k.T / 4).masked_fill(future, float("-inf")), -1)
    torch.testing.assert_close(causal_softmax(scores(q, k, True)), expected)


@pytest.mark.parametrize("head_size, scaled, words", [
    (0, False, "at least 1"), (-4, True, "at least 1"), (2.5, False, "whole number"), (True, False, "whole number"),
    (10_000, False, "4096 or less"), (64, "yes", "yes/no"),
])
def test_bad_input_gets_one_sentence(head_size, scaled, words, refused):
    refused(explore_scaling(head_size, scaled), words)


def test_explore_with_real_widgets(shown_figures, live_explorers):
    size = widgets.SelectionSlider(options=HEAD_SIZES, value=256)
    scale = widgets.Checkbox(value=False)
    shown = explore(explore_scaling, head_size=size, scaled=scale)
    assert shown["mean_max_weight"] > 0.9
    scale.value = True
    size.value = 4
