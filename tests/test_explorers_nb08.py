"""Notebook 08's explorer (the causal mask on and off). The graph it draws is tested in test_plots.py."""

import pytest
import torch
from ipywidgets import Checkbox, Text

from helpers.data import encode
from helpers.explorers.core import explore
from helpers.explorers.nb08 import ARROWS_PER_POSITION, BLOCK_SIZE, EXAMPLE, demo_weights, explore_mask

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_decoder_weights_are_causal_and_row_stochastic(capsys):
    wei = explore_mask(EXAMPLE, causal=True)
    T = len(EXAMPLE)
    assert wei.shape == (T, T) and wei.device.type == "cpu"
    assert (wei.triu(diagonal=1) == 0).all()  # the future: exactly 0
    assert (wei[torch.ones(T, T).tril().bool()] > 0).all()  # the past and itself: every one an edge
    torch.testing.assert_close(wei.sum(-1), torch.ones(T))
    out = capsys.readouterr().out
    drawn = 1 + ARROWS_PER_POSITION * (T - 1)  # position 0 has only itself; every other keeps its strongest two
    assert "decoder" in out and f"{T * (T + 1) // 2} non-zero weights" in out
    assert f"strongest: {drawn} arrows, loops included" in out
    assert drawn < T * (T + 1) // 2  # far fewer than every weight


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


def test_explore_draws_once_and_returns_the_weights(live_explorers):
    shown = explore(
        explore_mask,
        word=Text(value="you", continuous_update=False),
        causal=Checkbox(value=False, description="causal mask"),
    )
    torch.testing.assert_close(shown, explore_mask("you", causal=False))
