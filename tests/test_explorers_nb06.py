"""Notebook 06's explorers: the value weight moves `out` but never `wei`; a word's letters change `wei`."""

import ipywidgets as widgets
import pytest
import torch

from helpers.attention import attend_qkv
from helpers.explorers.core import explore
from helpers.explorers.nb06 import (
    ALPHABET,
    HOU_VALUE_TEXT,
    KEY_WEIGHT,
    QUERY_WEIGHT,
    VALUE_WEIGHT,
    explore_value_weight,
    explore_word,
    linear,
    one_hot,
)

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_the_default_is_the_hand_worked_hou_example(capsys, shown_figures):
    shown = explore_value_weight()
    torch.testing.assert_close(shown["wei"][2], torch.tensor([0.80, 0.02, 0.18]), atol=0.005, rtol=0)
    torch.testing.assert_close(shown["out"][2], torch.tensor([8.87, 1.13]), atol=0.005, rtol=0)
    assert (shown["wei"].triu(diagonal=1) == 0).all()
    assert "u: wei [0.80, 0.02, 0.18]" in capsys.readouterr().out
    assert len(shown_figures) == 1


def test_the_value_weight_moves_out_and_never_wei():
    first = explore_value_weight(HOU_VALUE_TEXT)
    for text in ["1, 2, 3, 4, 5, 6", "−3, 0, 0, 0, 0, 7", "0, 0, 0, 0, 0, 0"]:
        other = explore_value_weight(text)
        assert torch.equal(other["wei"], first["wei"])  # bit for bit
        assert not torch.equal(other["out"], first["out"])
        w_v = torch.tensor([float(v.replace("−", "-")) for v in text.split(",")]).reshape(2, 3)
        torch.testing.assert_close(other["out"], first["wei"] @ w_v.T)


def test_out_is_the_course_stage_attend_qkv():
    shown = explore_value_weight("1, 2, 3, 4, 5, 6")
    x = torch.eye(3)
    q, k = linear([r[:3] for r in QUERY_WEIGHT]), linear([r[:3] for r in KEY_WEIGHT])
    with torch.no_grad():
        expected = attend_qkv(x, q, k, linear([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    torch.testing.assert_close(shown["out"], expected)


def test_hou_over_the_five_letters_is_the_three_letter_example():
    assert ALPHABET[:3] == "hou"
    torch.testing.assert_close(explore_word("hou")["wei"], explore_value_weight()["wei"])
    torch.testing.assert_close(explore_word("hou")["out"], explore_value_weight()["out"])


def test_you_gets_different_weights_from_hou():
    you, hou = explore_word("you"), explore_word("hou")
    assert not torch.allclose(you["wei"], hou["wei"])
    for shown in (you, hou, explore_word("thou"), explore_word("y")):
        torch.testing.assert_close(shown["wei"].sum(-1), torch.ones(shown["wei"].shape[0]))
        assert (shown["wei"].triu(diagonal=1) == 0).all()


def test_one_hot_picks_the_letter_columns():
    x = one_hot("thou")
    assert x.shape == (4, 5) and torch.equal(x.sum(-1), torch.ones(4))
    assert linear(VALUE_WEIGHT)(x).shape == (4, 2)


@pytest.mark.parametrize(
    "text, words",
    [("1, 2, 3", "type 6"), ("1, 2, 3, 4, 5, 6, 7", "at most 6"), ("1, 2, x, 4, 5, 6", "not a number"),
     ("", "There are no numbers"), (None, "There are no numbers"), ("1,,2,3,4,5", "empty")],
)
def test_bad_value_weights_get_one_sentence(text, words, refused):
    refused(explore_value_weight(text), words)


@pytest.mark.parametrize(
    "word, words",
    [("", "empty"), ("youyouyou", "9 characters"), ("yax", "only knows the letters"), ("you!", "only knows"),
     ("é", "é"), (3, "not text")],
)
def test_bad_words_get_one_sentence(word, words, refused):
    refused(explore_word(word), words)


def test_explore_draws_once_and_redraws_on_change(shown_figures, live_explorers):
    control = widgets.Text(value=HOU_VALUE_TEXT, continuous_update=False)
    shown = explore(explore_value_weight, value_weight=control)
    torch.testing.assert_close(shown["out"][2], torch.tensor([8.87, 1.13]), atol=0.005, rtol=0)
    control.value = "1, 2, 3, 4, 5, 6"  # redraws without raising
    assert len(shown_figures) == 2
    word = widgets.Text(value="you", continuous_update=False)
    assert explore(explore_word, word=word)["wei"].shape == (3, 3)
    word.value = "x"  # bad input: one sentence, no exception
