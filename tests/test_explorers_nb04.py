"""Notebook 04's explorer: two words' last-position outputs, without and with position embeddings."""

import pytest
import torch

from helpers.examples import similarity_blend, similarity_weights
from helpers.explorers.nb04 import BLOCK_SIZE, N_EMBD, explore_word_order

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_dogs_and_gods_agree_only_without_positions(capsys, shown_figures):
    shown = explore_word_order("dogs", "gods")
    without, with_positions = shown["without"], shown["with"]
    assert without[0].shape == (N_EMBD,)
    torch.testing.assert_close(without[0], without[1], atol=1e-6, rtol=0)
    assert not torch.allclose(with_positions[0], with_positions[1], atol=0.1)
    out = capsys.readouterr().out
    assert "token vectors only: the last position's output is the same" in out
    assert "token + position vectors: the last position's output is different" in out
    assert len(shown_figures) == 1


@pytest.mark.parametrize("first, second", [("lemon", "melon"), ("care", "race"), ("below", "elbow")])
def test_anagrams_ending_alike_need_positions(first, second):
    shown = explore_word_order(first, second)
    torch.testing.assert_close(shown["without"][0], shown["without"][1], atol=1e-5, rtol=0)
    assert not torch.allclose(shown["with"][0], shown["with"][1], atol=1e-3)


def test_the_same_word_twice_is_identical_in_both_panels():
    shown = explore_word_order("thou", "thou")
    assert torch.equal(shown["without"][0], shown["without"][1])
    assert torch.equal(shown["with"][0], shown["with"][1])


def test_different_last_letters_differ_even_without_positions():
    shown = explore_word_order("dogs", "dogy")
    assert not torch.allclose(shown["without"][0], shown["without"][1], atol=1e-3)


@pytest.mark.parametrize(
    "first, second, words",
    [
        ("", "gods", "first word is empty"),
        ("dogs", "", "second word is empty"),
        ("dogs", "go#s", "'#'"),
        ("a" * (BLOCK_SIZE + 1), "gods", f"keep it to {BLOCK_SIZE} or fewer"),
        (None, "gods", "not text"),
    ],
)
def test_bad_input_gets_one_sentence_and_no_picture(first, second, words, refused):
    refused(explore_word_order(first, second), words)


def test_similarity_weights_are_causal_and_row_stochastic():
    x = torch.randn(2, 5, 3)
    wei = similarity_weights(x)
    torch.testing.assert_close(wei.sum(-1), torch.ones(2, 5))
    assert (wei.triu(diagonal=1) == 0).all()
    torch.testing.assert_close(similarity_blend(x), wei @ x)
