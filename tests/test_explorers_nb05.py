"""Notebook 05's explorer: a typed word's scores q · k and weights under fixed random W_q and W_k."""

import pytest
import torch

from helpers.data import encode
from helpers.explorers.nb05 import BLOCK_SIZE, WEIGHTS, explore_word_scores, word_scores

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_thou_gives_causal_row_stochastic_weights(capsys, shown_figures):
    wei = explore_word_scores("thou")
    assert wei.shape == (4, 4) and wei.device.type == "cpu"
    torch.testing.assert_close(wei.sum(-1), torch.ones(4))
    assert (wei.triu(diagonal=1) == 0).all()
    torch.testing.assert_close(wei[-1], torch.tensor([0.66, 0.02, 0.10, 0.22]), atol=0.005, rtol=0)
    out = capsys.readouterr().out
    assert "[0.66, 0.02, 0.10, 0.22]" in out and "'u'" in out
    assert len(shown_figures) == 1
    assert len(shown_figures[-1].axes) == 5  # raw, masked, softmax; raw and masked share one colour bar


def test_scores_are_query_dot_key():
    indices = encode("noon")
    raw, masked, wei = word_scores(indices)
    x = WEIGHTS["token"][indices] + WEIGHTS["position"][:4]
    q, k = x @ WEIGHTS["W_q"], x @ WEIGHTS["W_k"]
    torch.testing.assert_close(raw[3, 1], q[3] @ k[1])
    assert torch.isneginf(masked.triu(diagonal=1)[0, 1])
    assert not torch.allclose(raw[:, 1], raw[:, 2])  # the two o's offer different keys: their positions differ


def test_the_weights_depend_on_the_word():
    assert not torch.allclose(explore_word_scores("thou")[1:, 1:], explore_word_scores("hou"))


@pytest.mark.parametrize(
    "word, words",
    [("", "is empty"), ("th#u", "'#'"), ("a" * (BLOCK_SIZE + 1), f"keep it to {BLOCK_SIZE} or fewer"), (3, "text")],
)
def test_bad_input_gets_one_sentence_and_no_picture(word, words, refused):
    refused(explore_word_scores(word), words)
