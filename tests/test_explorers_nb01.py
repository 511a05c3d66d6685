"""Notebook 01's explorer: anagrams, bad input.

conftest.py puts matplotlib on the off-screen Agg backend and closes every figure after each test.
"""

import pytest
import torch

from helpers.averaging import average_loop
from helpers.explorers.nb01 import (
    MAX_LEN,
    explore_bag_of_words,
    word_vectors,
)

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


def test_hou_keeps_the_worked_example_vectors():
    x = word_vectors("hou")
    assert torch.equal(x, torch.tensor([[2.0, 7.0], [6.0, 4.0], [6.0, 5.0]]))
    avg = average_loop(x.unsqueeze(0))[0]
    torch.testing.assert_close(avg, torch.tensor([[2.0, 7.0], [4.0, 5.5], [4.67, 5.33]]), atol=0.01, rtol=0)


def test_dogs_and_gods_differ_until_their_prefixes_hold_the_same_characters(capsys, shown_figures):
    shown = explore_bag_of_words("dogs", "gods")
    assert shown["same"].tolist() == [False, False, True, True]  # 'd'≠'g', 'do'≠'go', 'dog'~'god', 'dogs'~'gods'
    for t in range(4):
        assert torch.equal(shown["averages"][t], shown["other_averages"][t]) == bool(shown["same"][t])
    torch.testing.assert_close(shown["averages"], average_loop(word_vectors("dogs").unsqueeze(0))[0])
    out = capsys.readouterr().out
    assert "Identical at position(s) 2, 3" in out
    # The vector of each character, once, so the averages can be checked by hand: (1 + 6 + 2) / 3 = 3.00.
    # d, g and s are notebook 04's [1, 0], [2, 1], [1, 1]; o keeps [6, 4] from notebook 01's worked example.
    assert out.splitlines()[0] == "vectors: 'd' [1.00, 0.00],  'o' [6.00, 4.00],  'g' [2.00, 1.00],  's' [1.00, 1.00]"
    assert len(shown_figures) == 1
    axes = shown_figures[-1].axes
    assert len(axes) == 2  # one panel per number of the 2-number vectors
    for channel, ax in enumerate(axes):
        heights = [bar.get_height() for bar in ax.patches]
        expected = torch.cat([shown["averages"][:, channel], shown["other_averages"][:, channel]]).tolist()
        assert heights == pytest.approx(expected)  # one bar per word and position, at the average's value
        marks = [text.get_position()[0] for text in ax.texts if text.get_text() == "="]
        assert marks == [2, 3]  # '=' over exactly the identical pairs


def test_the_hou_row_shows_the_worked_averages(capsys):
    shown = explore_bag_of_words("hou", "")
    torch.testing.assert_close(
        shown["averages"], torch.tensor([[2.0, 7.0], [4.0, 5.5], [4.67, 5.33]]), atol=0.005, rtol=0
    )
    assert shown["other_averages"] is None and shown["same"] is None
    out = capsys.readouterr().out
    assert "[4.67, 5.33]" in out
    assert "Type a second word" in out


def test_different_letters_differ_at_the_last_position(capsys):
    shown = explore_bag_of_words("hou", "you")
    assert not shown["same"][-1]
    assert "not made of the same characters" in capsys.readouterr().out


def test_words_of_different_lengths_are_compared_where_both_exist(capsys, shown_figures):
    shown = explore_bag_of_words("dogs", "god")
    assert shown["same"].tolist() == [False, False, True]
    assert " 3  'dogs'" in capsys.readouterr().out  # the longer word's last row is still printed
    assert [len(ax.patches) for ax in shown_figures[-1].axes] == [7, 7]


@pytest.mark.parametrize(
    "word, other, words",
    [
        ("", "gods", "The first word is empty: type 1 to 12 characters"),
        ("café", "gods", "The first word 'café' has 'é' at position 3"),
        ("dogs", "g0ds", "The second word 'g0ds' has '0' at position 1"),
        ("x" * (MAX_LEN + 1), "gods", f"keep it to {MAX_LEN} or fewer"),
        ("dogs", "y" * 20, "The second word 'yyyyyyyyyyyyyyyyyyyy' has 20 characters"),
        (None, "gods", "The first word is NoneType, not text"),
    ],
)
def test_bad_input_gets_one_sentence_and_no_picture(word, other, words, refused):
    refused(explore_bag_of_words(word, other), words)


def test_d_g_and_s_are_the_vectors_notebook_04_gives_them():
    """Notebook 04 tells its reader that notebook 01's explorer gave d, g and s the same numbers: keep it true."""
    import ast

    import nbformat

    from tools.notebooks import NOTEBOOK_DIR

    nb = nbformat.read(NOTEBOOK_DIR / "04_position_embeddings.ipynb", as_version=4)
    line = next(line for cell in nb.cells if cell.cell_type == "code" for line in cell.source.splitlines()
                if line.startswith("toy = {"))
    toy = ast.literal_eval(line.removeprefix("toy = "))
    assert torch.equal(word_vectors("dgs"), torch.tensor([toy["d"], toy["g"], toy["s"]]))
