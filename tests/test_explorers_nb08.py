"""Notebook 08's explorer (the causal mask on and off) and its graph drawing."""

import pytest
import torch
from ipywidgets import Checkbox, Text
from matplotlib.patches import Arc, FancyArrowPatch

from helpers.data import encode
from helpers.explorers.core import explore
from helpers.explorers.nb08 import (
    BLOCK_SIZE,
    EXAMPLE,
    EXPLORER_MIN_WEIGHT,
    MIN_EDGE_WIDTH,
    demo_weights,
    draw_graph,
    explore_mask,
)

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_decoder_weights_are_causal_and_row_stochastic(capsys):
    wei = explore_mask(EXAMPLE, causal=True)
    T = len(EXAMPLE)
    assert wei.shape == (T, T) and wei.device.type == "cpu"
    assert (wei.triu(diagonal=1) == 0).all()  # the future: exactly 0
    assert (wei[torch.ones(T, T).tril().bool()] > 0).all()  # the past and itself: every one an edge
    torch.testing.assert_close(wei.sum(-1), torch.ones(T))
    out = capsys.readouterr().out
    drawn = int((wei.round(decimals=2) >= EXPLORER_MIN_WEIGHT).sum())  # as the heatmap labels them
    assert "decoder" in out and f"{T * (T + 1) // 2} non-zero weights" in out
    assert f"draws the {drawn} labelled at least" in out
    assert drawn < T * (T + 1) // 2  # the example has light edges that the explorer leaves out


def test_encoder_weights_see_every_position_and_agree_on_the_last_row(capsys):
    decoder, encoder = explore_mask("hou", causal=True), explore_mask("hou", causal=False)
    assert (encoder > 0).all()
    torch.testing.assert_close(encoder.sum(-1), torch.ones(3))
    assert not torch.equal(encoder, decoder)
    torch.testing.assert_close(encoder[-1], decoder[-1])  # the last position has no future to lose
    assert "9 non-zero weights of 9 cells" in capsys.readouterr().out


def test_the_head_is_fixed_and_leaves_the_global_random_state_alone():
    torch.manual_seed(0)
    before = torch.rand(3)
    torch.manual_seed(0)
    first = demo_weights(encode("thou"))
    assert torch.equal(torch.rand(3), before)
    assert torch.equal(demo_weights(encode("thou")), first)


@pytest.mark.parametrize(
    "word, phrase",
    [("", "empty"), ("x" * (BLOCK_SIZE + 1), f"keep it to {BLOCK_SIZE} or fewer"), ("thé", "never uses"), (7, "text")],
)
def test_bad_words_get_one_sentence_and_no_picture(word, phrase, refused):
    refused(explore_mask(word, causal=True), phrase)


@pytest.mark.parametrize("causal", ["False", "True", 0, None])
def test_causal_must_be_a_real_yes_or_no(causal, refused):
    refused(explore_mask(EXAMPLE, causal=causal), "yes/no switch")


def arrows_and_loops(ax):
    return (sum(isinstance(p, FancyArrowPatch) for p in ax.patches), sum(isinstance(p, Arc) for p in ax.patches))


def test_graph_has_one_edge_per_nonzero_weight_and_none_for_masked_cells():
    wei = torch.tensor([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.5, 0.2, 0.3]])
    assert arrows_and_loops(draw_graph(wei, "hou")) == (3, 3)
    full = torch.full((3, 3), 1 / 3)
    assert arrows_and_loops(draw_graph(full, "hou")) == (6, 3)


def test_graph_edge_width_follows_the_weight():
    ax = draw_graph(torch.tensor([[1.0, 0.0], [0.25, 0.75]]), "ab")
    (arrow,) = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    loop_widths = sorted(p.get_linewidth() for p in ax.patches if isinstance(p, Arc))
    assert loop_widths[0] == pytest.approx(loop_widths[1] * 0.75, rel=1e-6)  # self-weights 0.75 and 1
    assert arrow.get_linewidth() == pytest.approx(loop_widths[1] * 0.25, rel=1e-6)  # weight 0.25


def test_graph_leaves_out_light_edges_only_when_asked_and_keeps_faint_ones_visible():
    wei = torch.tensor([[1.0, 0.0], [0.01, 0.99]])
    assert arrows_and_loops(draw_graph(wei, "ab")) == (1, 2)
    (arrow,) = [p for p in draw_graph(wei, "ab").patches if isinstance(p, FancyArrowPatch)]
    assert arrow.get_linewidth() == MIN_EDGE_WIDTH  # weight 0.01 would be a hairline
    ax = draw_graph(wei, "ab", min_weight=0.05)
    assert arrows_and_loops(ax) == (0, 2)
    assert "≥ 0.05" in ax.get_legend().get_title().get_text()


def test_graph_draws_an_edge_whose_heatmap_label_reaches_the_threshold():
    wei = torch.tensor([[1.0, 0.0], [0.046, 0.954]])  # labelled 0.05 on the heatmap
    assert arrows_and_loops(draw_graph(wei, "ab", min_weight=0.05)) == (1, 2)
    wei = torch.tensor([[1.0, 0.0], [0.044, 0.956]])  # labelled 0.04
    assert arrows_and_loops(draw_graph(wei, "ab", min_weight=0.05)) == (0, 2)


def test_graph_legend_names_future_edges_only_when_there_are_some():
    causal = torch.tensor([[1.0, 0.0], [0.5, 0.5]])
    labels = [t.get_text() for t in draw_graph(causal, "ab").get_legend().get_texts()]
    assert labels == ["from the past, or a loop: itself"]
    labels = [t.get_text() for t in draw_graph(torch.full((2, 2), 0.5), "ab").get_legend().get_texts()]
    assert labels == ["from the past, or a loop: itself", "from the future"]


def test_graph_refuses_a_shape_that_does_not_match_its_labels():
    with pytest.raises(ValueError, match="square"):
        draw_graph(torch.ones(2, 3) / 3, "ab")


def test_explore_draws_once_and_returns_the_weights(live_explorers):
    shown = explore(
        explore_mask,
        word=Text(value="you", continuous_update=False),
        causal=Checkbox(value=False, description="causal mask"),
    )
    torch.testing.assert_close(shown, explore_mask("you", causal=False))
