"""Notebook 01's explorer and helpers: uniform weights, the mean counter, anagrams, bad input.

conftest.py puts matplotlib on the off-screen Agg backend and closes every figure after each test.
"""

import matplotlib.pyplot as plt
import pytest
import torch

from helpers.averaging import average_loop
from helpers.explorers.bag_of_words import (
    MAX_LEN,
    count_mean_calls,
    explore_bag_of_words,
    uniform_wei,
    word_vectors,
)


@pytest.mark.parametrize("T", [1, 3, 8, 12])
def test_uniform_wei_is_the_causal_average(T):
    wei = uniform_wei(T)
    assert wei.shape == (T, T)
    torch.testing.assert_close(wei.sum(1), torch.ones(T))
    assert torch.equal(wei.triu(1), torch.zeros(T, T))
    for t in range(T):
        torch.testing.assert_close(wei[t, : t + 1], torch.full((t + 1,), 1 / (t + 1)))


def test_uniform_wei_reproduces_scheme_one():
    x = torch.randn(8, 5, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(uniform_wei(8) @ x, average_loop(x.unsqueeze(0))[0])


def test_hou_keeps_the_worked_example_vectors():
    x = word_vectors("hou")
    assert torch.equal(x, torch.tensor([[2.0, 7.0], [6.0, 4.0], [6.0, 5.0]]))
    avg = average_loop(x.unsqueeze(0))[0]
    torch.testing.assert_close(avg, torch.tensor([[2.0, 7.0], [4.0, 5.5], [4.67, 5.33]]), atol=0.01, rtol=0)


def test_count_mean_calls_counts_one_per_position():
    out, calls = count_mean_calls(average_loop, torch.zeros(3, 5, 2))
    assert calls == 15
    assert out.shape == (3, 5, 2)


def test_anagrams_share_the_last_average(capsys):
    result = explore_bag_of_words("dogs", "gods")
    assert result["last_identical"] is True
    assert torch.equal(result["averages"][-1], result["other_averages"][-1])
    assert not torch.equal(result["averages"][1], result["other_averages"][1])  # 'do' and 'go' differ
    assert torch.equal(result["wei"], uniform_wei(4))
    out = capsys.readouterr().out
    assert "identical" in out and "cannot see order" in out
    assert len(plt.gcf().axes) >= 2


def test_different_letters_are_reported(capsys):
    result = explore_bag_of_words("hou", "you")
    assert result["last_identical"] is False
    assert "not made of the same characters" in capsys.readouterr().out


def test_one_word_alone_asks_for_a_second(capsys):
    result = explore_bag_of_words("thou", "")
    assert result["last_identical"] is None
    assert result["averages"].shape == (4, 2)
    assert "Type a second word" in capsys.readouterr().out


@pytest.mark.parametrize(
    "word, other, words",
    [
        ("", "gods", "first word is empty"),
        ("café", "gods", "'é'"),
        ("dogs", "g0ds", "'0'"),
        ("x" * (MAX_LEN + 1), "gods", f"{MAX_LEN} or fewer"),
        ("dogs", "y" * 20, "20 characters"),
        (None, "gods", "must be text"),
    ],
)
def test_bad_input_prints_a_message_not_a_traceback(capsys, word, other, words):
    assert explore_bag_of_words(word, other) is None
    assert words in capsys.readouterr().out
    assert not plt.get_fignums()
