"""The explore() wrapper shared by every interactive explorer."""

from ipywidgets import Text

from helpers.explorers import explore


def test_explore_calls_back_with_the_controls_values_and_drops_the_result():
    seen = []

    def callback(word):
        seen.append(word)
        return {"numbers": "for tests only"}

    widget = explore(callback, word=Text(value="hou"))
    assert seen == ["hou"]
    assert widget.widget.result is None  # nothing for the widget to print under the picture
    widget.widget.children[0].value = "you"
    assert seen[-1] == "you"


def test_fmt_row_writes_two_decimals_and_minus_infinity():
    import torch

    from helpers.explorers import fmt_row

    assert fmt_row(torch.tensor([2.0, -0.25, float("-inf")])) == "[2.00, -0.25, −∞]"
