"""Every notebook's explorers: one contract, driven by what each declares, then what each one shows.

The contract (helpers/explorers/core.py): a notebook's explore_* callbacks are declared with
@explorer(refuses=[...]); drawn with its defaults (its example input) each shows one labelled figure
made without pyplot and returns a dict; given each declared bad input it prints one sentence holding the
declared words, draws nothing and returns None. Each declared explorer appears in its notebook, and
every explorer a notebook uses is declared. Adding an explorer adds its tests here without editing this file.

conftest.py puts matplotlib on the off-screen Agg backend and keeps the figures explorers display.
"""

import ast
import inspect
import re

import ipywidgets as widgets
import matplotlib.pyplot as plt
import nbformat
import pytest
import torch

from helpers.attention import attend_qkv, causal_softmax
from helpers.averaging import average_loop
from helpers.blocks import TransformerModel
from helpers.data import encode
from helpers.examples import similarity_weights
from helpers.explorers import explore, nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb08, nb11, notebook_modules
from helpers.plots import MAX_STAGES_WIDTH, cell_numbers, fit_numbers_to_cells, graph_edges
from tests.figure_texts import figure_texts, numbers_wider_than_their_cells
from tools.notebooks import NOTEBOOK_DIR, notebook_paths, strip_magics

MODULES = notebook_modules()
EXPLORE_FUNCTIONS = {  # "nb05.explore_word_scores" → the function, for every explore_* a notebook's module defines
    f"{key}.{name}": fn
    for key, module in MODULES.items()
    for name, fn in inspect.getmembers(module, inspect.isfunction)
    if name.startswith("explore_") and fn.__module__ == module.__name__
}
DECLARED = {name: fn for name, fn in EXPLORE_FUNCTIONS.items() if hasattr(fn, "refuses")}
BAD_INPUTS = [(name, bad, words) for name, fn in DECLARED.items() for bad, words in fn.refuses]
NOTEBOOK_CODE = {  # "nb05" → (file name, every code cell of notebooks/05_*.ipynb joined)
    "nb" + path.name[:2]: (path.name, "\n".join(c.source for c in nbformat.read(path, as_version=4).cells
                                               if c.cell_type == "code"))
    for path in notebook_paths()
}
EXPLORER_IMPORT = re.compile(r"from helpers\.explorers\.(nb\d\d) import ([\w, ()\n]+)")

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


# --- the contract ----------------------------------------------------------------------------------------------------


def test_explorers_are_found():
    assert len(DECLARED) >= 9 and "nb06.explore_word" in DECLARED


@pytest.mark.parametrize("name", sorted(EXPLORE_FUNCTIONS))
def test_every_explore_function_is_declared_with_its_bad_inputs(name):
    key, function = name.split(".")
    fn = EXPLORE_FUNCTIONS[name]
    assert hasattr(fn, "refuses"), (
        f"helpers/explorers/{key}.py: {function} is not declared: put @explorer(refuses=[...]) above it, with bad "
        "inputs it must refuse, so that tests/test_explorers.py holds it to the explorers' contract."
    )
    assert fn.refuses, f"helpers/explorers/{key}.py: {function} declares no bad input: name at least one it refuses."
    no_default = [p.name for p in inspect.signature(fn).parameters.values() if p.default is inspect.Parameter.empty]
    assert not no_default, (
        f"helpers/explorers/{key}.py: {function} has no default for {', '.join(no_default)}: an explorer's defaults "
        "are its example input, the one its notebook starts from."
    )


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_drawn_with_its_defaults_it_shows_one_labelled_figure_and_returns_a_dict(name, shown_figures):
    shown = DECLARED[name]()
    assert isinstance(shown, dict), (
        f"{name} returned a {type(shown).__name__}: an explorer returns a dict of the numbers it showed."
    )
    for value in shown.values():
        if isinstance(value, torch.Tensor):
            assert value.device.type == "cpu"
    assert len(shown_figures) == 1, f"{name} displayed {len(shown_figures)} figures: an explorer draws one."
    figure = shown_figures[0]
    assert figure.axes and figure.canvas.manager is None  # made without pyplot: no figure manager
    assert plt.get_fignums() == []
    label = figure.get_label()
    assert label[0].isupper() and label.endswith(".") and len(label) > 30, label
    sizes = [text.get_fontsize() for text in cell_numbers(figure)]
    fit_numbers_to_cells(figure)
    assert [text.get_fontsize() for text in cell_numbers(figure)] == sizes, "numbers sized before the figure's layout"
    assert numbers_wider_than_their_cells(figure) == []


@pytest.mark.parametrize("name, bad, words", BAD_INPUTS, ids=[f"{n}-{w}" for n, _, w in BAD_INPUTS])
def test_each_declared_bad_input_is_refused_in_one_sentence_with_no_figure(name, bad, words, refused):
    refused(DECLARED[name](**bad), words)


@pytest.mark.parametrize("name", sorted(DECLARED))
@pytest.mark.parametrize("typed", ["x" * 10_000, "1, " + "9" * 10_000])
def test_a_10000_character_input_is_quoted_as_a_window(name, typed, refused):
    refused(DECLARED[name](typed), "")  # refused: one short sentence (the fixture checks its length), no picture


def explorer_starts() -> list[tuple[str, str, str, object]]:
    """(notebook key, explorer, parameter, the value its control starts at) for every control of every
    explore(explore_…, …) call of the notebooks whose starting value is written out: Text(value="dogs"), value=2."""
    found = []
    for key, (_, code) in NOTEBOOK_CODE.items():
        for node in ast.walk(ast.parse(strip_magics(code))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "explore" and node.args and isinstance(
                    node.args[0], ast.Name):
                for keyword in node.keywords:
                    start = next((k.value for k in getattr(keyword.value, "keywords", ()) if k.arg == "value"), None)
                    if isinstance(start, ast.Constant):
                        found.append((key, node.args[0].id, keyword.arg, start.value))
    return found


EXPLORER_STARTS = explorer_starts()


def test_the_notebooks_explorer_controls_are_found():
    assert len(EXPLORER_STARTS) >= 12 and ("nb07", "explore_scaling", "scaled", True) in EXPLORER_STARTS


@pytest.mark.parametrize("key, function, parameter, start", EXPLORER_STARTS,
                         ids=[f"{key}.{function}-{parameter}" for key, function, parameter, _ in EXPLORER_STARTS])
def test_each_explorer_starts_in_its_notebook_from_its_defaults(key, function, parameter, start):
    default = inspect.signature(getattr(MODULES[key], function)).parameters[parameter].default
    assert default == start, (
        f"helpers/explorers/{key}.py: {function}'s default {parameter}={default!r}, but its notebook's control starts "
        f"at {start!r}: an explorer's defaults are its example input, the one its notebook starts from."
    )


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_every_explorer_is_shown_in_its_notebook(name):
    key, function = name.split(".")
    assert key in NOTEBOOK_CODE, f"helpers/explorers/{key}.py declares {function}, but there is no notebook {key[2:]}."
    notebook, code = NOTEBOOK_CODE[key]
    assert re.search(rf"\b{function}\b", code), (
        f"helpers/explorers/{key}.py declares {function}, which {notebook} never shows: call it in a code cell, "
        f"e.g. shown = explore({function}, ...)."
    )


def test_every_explorer_a_notebook_imports_is_declared():
    for key, (notebook, code) in NOTEBOOK_CODE.items():
        for module, names in EXPLORER_IMPORT.findall(code):
            assert module == key, f"{notebook} imports from helpers.explorers.{module}: a notebook uses its own module."
            for name in re.findall(r"explore_\w+", names):
                assert f"{key}.{name}" in DECLARED, f"{notebook} uses {name}, which helpers/explorers/{key}.py does " \
                    "not declare: define it there with @explorer(refuses=[...]) above it."


def test_the_contract_fails_an_undeclared_explorer_and_one_that_returns_a_tensor(shown_figures):
    def explore_plain(word: str = "hou"):
        return torch.ones(2)

    EXPLORE_FUNCTIONS["nb99.explore_plain"] = explore_plain
    try:
        with pytest.raises(AssertionError, match="is not declared: put @explorer"):
            test_every_explore_function_is_declared_with_its_bad_inputs("nb99.explore_plain")
        DECLARED["nb99.explore_plain"] = explore_plain
        with pytest.raises(AssertionError, match="returned a Tensor: an explorer returns a dict"):
            test_drawn_with_its_defaults_it_shows_one_labelled_figure_and_returns_a_dict("nb99.explore_plain", [])
        with pytest.raises(AssertionError, match="declares explore_plain, but there is no notebook 99"):
            test_every_explorer_is_shown_in_its_notebook("nb99.explore_plain")
    finally:
        EXPLORE_FUNCTIONS.pop("nb99.explore_plain")
        DECLARED.pop("nb99.explore_plain", None)


# --- 01: the bag of words --------------------------------------------------------------------------------------------


def test_hou_keeps_the_worked_example_vectors_and_averages():
    shown = nb01.explore_bag_of_words("hou", "")
    assert torch.equal(nb01.word_vectors("hou"), torch.tensor([[2.0, 7.0], [6.0, 4.0], [6.0, 5.0]]))
    torch.testing.assert_close(shown["averages"], torch.tensor([[2.0, 7.0], [4.0, 5.5], [4.67, 5.33]]), atol=0.005,
                               rtol=0)
    assert shown["other_averages"] is None and shown["same"] is None


def test_d_g_and_s_are_the_vectors_notebook_04_gives_them():
    """Notebook 04 tells its reader that notebook 01's explorer gave d, g and s the same numbers: keep it true."""
    nb = nbformat.read(NOTEBOOK_DIR / "04_position_embeddings.ipynb", as_version=4)
    line = next(line for cell in nb.cells if cell.cell_type == "code" for line in cell.source.splitlines()
                if line.startswith("toy = {"))
    toy = ast.literal_eval(line.removeprefix("toy = "))
    assert torch.equal(nb01.word_vectors("dgs"), torch.tensor([toy["d"], toy["g"], toy["s"]]))


def test_dogs_and_gods_differ_until_their_prefixes_hold_the_same_characters(capsys, shown_figures):
    shown = nb01.explore_bag_of_words("dogs", "gods")
    assert shown["same"].tolist() == [False, False, True, True]  # 'd'≠'g', 'do'≠'go', 'dog'~'god', 'dogs'~'gods'
    torch.testing.assert_close(shown["averages"], average_loop(nb01.word_vectors("dogs").unsqueeze(0))[0])
    out = capsys.readouterr().out
    assert "Identical at positions 2, 3" in out
    # The vector of each character, once, so the averages can be checked by hand: (6 + 6 + 8) / 3 = 6.67.
    # d, g and s are notebook 04's [1, 0], [2, 1], [1, 1]; o keeps [6, 4] from notebook 01's worked example.
    assert out.splitlines()[0] == "vectors: 'd' [1.00, 0.00],  'o' [6.00, 4.00],  'g' [2.00, 1.00],  's' [1.00, 1.00]"
    for channel, ax in enumerate(shown_figures[-1].axes):  # one panel per number of the 2-number vectors
        expected = torch.cat([shown["averages"][:, channel], shown["other_averages"][:, channel]]).tolist()
        assert [bar.get_height() for bar in ax.patches] == pytest.approx(expected)
        assert [text.get_position()[0] for text in ax.texts if text.get_text() == "="] == [2, 3]


def test_words_of_different_lengths_or_letters_are_compared_where_both_exist(capsys):
    assert nb01.explore_bag_of_words("dogs", "god")["same"].tolist() == [False, False, True]
    assert not nb01.explore_bag_of_words("hou", "you")["same"][-1]
    assert "not made of the same characters" in capsys.readouterr().out


def test_equal_averages_of_different_characters_are_called_chance_not_order(capsys, shown_figures):
    # e and y share a vector in this small table, so 'the' and 'thy' end with equal averages
    assert torch.equal(nb01.word_vectors("e"), nb01.word_vectors("y"))
    assert nb01.explore_bag_of_words("the", "thy")["same"].tolist() == [True, True, True]
    out = capsys.readouterr().out
    assert "Identical at positions 0, 1, where the two prefixes are the same text." in out  # no order to lose
    assert "Identical at position 2 although the prefixes hold different characters" in out
    assert "yet their last averages are equal" in out and "so their last averages differ" not in out


@pytest.mark.parametrize("word, other, said", [
    ("dogs", "dogsdogs", "'dogs' and 'dogsdogs' hold the same characters in the same shares: an average keeps the "
                         "shares, not the counts, so their last averages are equal."),
    ("a", "aaa", "'a' and 'aaa' hold the same characters in the same shares"),
    ("aabb", "aaabbb", "'aabb' and 'aaabbb' hold the same characters in the same shares"),  # 6 is no multiple of 4
    ("aab", "ab", "'aab' and 'ab' hold the same characters, but in other shares, so their last averages differ."),
])
def test_the_same_characters_in_the_same_shares_average_alike_and_are_not_called_chance(word, other, said, capsys):
    shown = nb01.explore_bag_of_words(word, other)
    out = capsys.readouterr().out
    assert said in out and "chance" not in out, out
    assert torch.equal(shown["averages"][-1], shown["other_averages"][-1]) is ("same shares" in said)


def test_no_identical_position_means_no_equals_sign_in_the_legend(shown_figures):
    assert not nb01.explore_bag_of_words("dogs", "cats")["same"].any()
    legend = shown_figures[-1].legends[0]
    assert [text.get_text() for text in legend.get_texts()] == ["'dogs'", "'cats'"]
    assert not any(text.get_text() == "=" for ax in shown_figures[-1].axes for text in ax.texts)


def test_one_position_is_counted_in_the_singular(capsys):
    nb08.explore_mask("t")
    out = capsys.readouterr().out
    assert "1 non-zero weight of 1 cell; the graph keeps each position's strongest: 1 arrow," in out


def test_a_space_is_labelled_as_a_visible_mark(shown_figures):
    nb01.explore_bag_of_words("a b", "b a")
    assert shown_figures[-1].axes[0].get_xticklabels()[1].get_text() == "1\n␣"


# --- 02: dividing by the sum -----------------------------------------------------------------------------------------


def test_the_worked_row_shows_a_negative_weight(capsys, shown_figures):
    shown = nb02.explore_divide_by_sum("2, -1, 3")
    torch.testing.assert_close(shown["weights"], torch.tensor([0.5, -0.25, 0.75], dtype=torch.float64))
    assert shown["total"] == 4 and len(shown["problems"]) == 1
    assert "The weight at position 1 is -0.25: negative" in capsys.readouterr().out
    assert len(shown_figures[-1].axes) == 4  # two one-row panels, each with its colour bar


def test_a_zero_sum_is_division_by_zero_and_draws_only_the_scores(capsys, shown_figures):
    shown = nb02.explore_divide_by_sum("1, -1, 0")
    assert shown["total"] == 0 and shown["weights"] is None
    assert "nothing to divide by" in capsys.readouterr().out
    assert len(shown_figures[-1].axes) == 2


@pytest.mark.parametrize("row", ["0.1, 0.2, -0.3", "0.1, 0.2, 0.3, -0.6"])
def test_a_row_that_sums_to_0_on_paper_is_not_divided_by_its_rounding_error(row, capsys):
    shown = nb02.explore_divide_by_sum(row)
    assert shown["total"] == 0 and shown["weights"] is None  # the sum on paper; float64 leaves about 1e-16
    out = capsys.readouterr().out
    assert "sum:          0   (on paper; float64 rounds its own sum to " in out and "nothing to divide by" in out


@pytest.mark.parametrize("row, total, weights", [
    ("1e16, 1, -1e16", "1", [1e16, 1.0, -1e16]),  # float64 drops the 1 beside 1e16: its sum is 0, not 1
    ("1e16, 3, -1e16", "3", [1e16 / 3, 1.0, -1e16 / 3]),  # ... and its sum is 4
    ("1e30, 1, -1e30", "1", [1e30, 1.0, -1e30]),  # beyond 28 digits, where Decimal's sums round too
])
def test_a_row_whose_float_sum_is_rounded_is_divided_by_its_sum_on_paper(row, total, weights, capsys):
    shown = nb02.explore_divide_by_sum(row)
    torch.testing.assert_close(shown["weights"], torch.tensor(weights, dtype=torch.float64))
    out = capsys.readouterr().out
    assert f"sum:          {total}   (on paper; float64 rounds its own sum to" in out
    assert "so the weights divide by the sum on paper" in out and "overflows" not in out


def test_huge_weights_are_printed_in_powers_of_ten(capsys):
    nb02.explore_divide_by_sum("1e20, -1e20, 1")
    assert "The weight at position 1 is -1.00e+20: negative" in capsys.readouterr().out


def test_scores_adding_up_to_a_negative_number_are_told_their_order_is_turned_around(capsys):
    shown = nb02.explore_divide_by_sum("-1, -2, -3")
    assert shown["weights"].tolist() == pytest.approx([1 / 6, 2 / 6, 3 / 6])  # in 0–1, adding up to 1
    assert shown["problems"] == ["The scores add up to a negative number, so their order is turned around: the lowest "
                                 "score, -3.00, gets the largest weight, 0.50. A higher score should count for more."]
    assert "✅" not in capsys.readouterr().out
    assert nb02.explore_divide_by_sum("-1, -1")["problems"] == []  # equal scores, equal weights: nothing turned
    assert len(nb02.explore_divide_by_sum("1, -2, -3")["problems"]) == 1  # [−0.25, 0.5, 0.75]: the negative weight


def test_the_largest_scores_draw_without_overflow_warnings(shown_figures):
    import io
    import warnings

    nb02.explore_divide_by_sum("3e38, 3e38")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's colour scale used to subtract −3.4e38 in float32
        shown_figures[-1].savefig(io.BytesIO(), format="png")


def test_weights_above_one_and_the_largest_scores(capsys):
    assert any("above 1" in p for p in nb02.explore_divide_by_sum("3, -1")["problems"])
    assert nb02.explore_divide_by_sum("1, 1, 2")["problems"] == []
    torch.testing.assert_close(nb02.explore_divide_by_sum("3e38, 3e38")["weights"],
                               torch.tensor([0.5, 0.5], dtype=torch.float64))


# --- 03: the masked softmax of one row -------------------------------------------------------------------------------


def test_the_default_is_the_worked_example(capsys, shown_figures):
    shown = nb03.explore_masked_softmax()
    torch.testing.assert_close(shown["weights"], torch.tensor([0.27, 0.01, 0.72, 0.0]), atol=0.005, rtol=0)
    assert shown["weights"][3] == 0 and torch.isneginf(shown["masked"][3])  # exactly: masked, not merely small
    out = capsys.readouterr().out
    for printed in ["[2.00, -1.00, 3.00, −∞]", "[7.39, 0.37, 20.09, 0.00]", "27.84",
                    "every future weight is exactly 0: True"]:
        assert printed in out
    assert len(shown_figures[-1].axes) == 6  # raw, masked, softmax, each with its colour bar


@pytest.mark.parametrize("future_score", ["1000", "-7"])
def test_the_future_gets_exactly_zero_whatever_its_score(future_score):
    weights = nb03.explore_masked_softmax(f"2, -1, 3, {future_score}", now=2)["weights"]
    assert torch.equal(weights, nb03.explore_masked_softmax("2, -1, 3, 5", now=2)["weights"]) and weights[3] == 0


def test_now_at_the_end_masks_nothing_and_does_not_claim_zeros(capsys):
    weights = nb03.explore_masked_softmax("2, -1, 3, 5", now=3)["weights"]
    torch.testing.assert_close(weights, torch.softmax(torch.tensor([2.0, -1.0, 3.0, 5.0]), dim=-1))
    out = capsys.readouterr().out
    assert "nothing is masked: `now` is the last position" in out and "every future weight is exactly 0" not in out


def test_scores_too_wide_for_their_cells_are_written_smaller(shown_figures):
    nb03.explore_masked_softmax(", ".join(["-1234.5"] * nb03.MAX_SCORES), now=3)  # written −1.2e3
    assert numbers_wider_than_their_cells(shown_figures[-1]) == []


def test_huge_scores_are_shifted_instead_of_overflowing(capsys):
    assert torch.equal(nb03.explore_masked_softmax("1000, 2, 3", now=1)["weights"], torch.tensor([1.0, 0.0, 0.0]))
    assert "overflows" in capsys.readouterr().out
    # the difference −6e38 overflows to −∞, and e^−∞ = 0: weights, not NaN
    assert torch.equal(nb03.explore_masked_softmax("3e38, -3e38", now=1)["weights"], torch.tensor([1.0, 0.0]))


def test_scores_too_low_for_float32_are_shown_shifted_and_told_why(capsys):
    weights = nb03.explore_masked_softmax("-198, -201, -197, -195", now=2)["weights"]
    torch.testing.assert_close(weights, torch.tensor([0.27, 0.01, 0.72, 0.0]), atol=0.005, rtol=0)
    out = capsys.readouterr().out
    assert "each rounds to exactly 0 in float32" in out and "0 ÷ 0" in out  # not "too small for two decimals"
    assert "exp(score − max): [0.37, 0.02, 1.00, 0.00]" in out
    nb03.explore_masked_softmax("-6, -7", now=1)  # e^−6 and e^−7: not 0, but 0.00 with two decimals
    assert "[2.48e-03, 9.12e-04], too small for two decimals" in capsys.readouterr().out


def test_exps_whose_sum_overflows_are_shifted_too(capsys):
    # each e^88.5 fits in float32, their sum does not: ÷ ∞ would give 0, not the weights printed below it
    weights = nb03.explore_masked_softmax("88.5, 88.5", now=1)["weights"]
    assert weights.tolist() == [0.5, 0.5]
    out = capsys.readouterr().out
    assert "whose sum overflows" in out and "③ sum:              2.00   (of the shifted exps)" in out


def test_both_score_panels_share_one_colour_scale(shown_figures):
    nb03.explore_masked_softmax("2, -1, 3, 5", now=2)  # the masked panel's visible scores only reach 3
    raw_ax, masked_ax, weights_ax = shown_figures[-1].axes[:3]  # the three panels come before their colour bars
    assert raw_ax.images[0].get_clim() == masked_ax.images[0].get_clim() == (-5.0, 5.0)
    assert weights_ax.images[0].get_clim() == (0.0, 1.0)
    assert [ax.get_title() for ax in (raw_ax, masked_ax, weights_ax)] == [
        "raw scores", "future set to −∞", "softmax weights"]  # named by stage, not by the text's ①–④ steps


def test_the_now_slider_ends_at_the_last_score_typed():
    scores = widgets.Text(value="2, -1, 3, 5")
    now = nb03.now_slider(scores, value=2)
    assert (now.min, now.max, now.value) == (0, 3, 2)
    scores.value = "2, -1, 3, 5, 0, 1"
    assert now.max == 5
    scores.value = "2, -1"
    assert (now.max, now.value) == (1, 1)
    scores.value = "2, oops"  # unusable: the slider stays, the explorer reports the text
    assert now.max == 1


def test_the_explorer_follows_a_shorter_row_without_complaining(capsys, shown_figures, live_explorers):
    scores = widgets.Text(value="2, -1, 3, 5", continuous_update=False)
    shown = explore(nb03.explore_masked_softmax, scores_text=scores, now=nb03.now_slider(scores, value=3))
    assert shown["now"] == 3
    capsys.readouterr()
    scores.value = "2, -1"  # the slider's max drops to 1, pulling now down with it: one redraw, at now=1
    out = capsys.readouterr().out
    assert out.count("position 1 is now, the last one") == 1 and "past the end" not in out
    assert len(shown_figures) == 2  # the first picture and the one redraw


# --- 04: word order --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("first, second", [("dogs", "gods"), ("lemon", "melon")])
def test_anagrams_ending_alike_agree_only_without_positions(first, second, capsys):
    shown = nb04.explore_word_order(first, second)
    assert shown["without"][0].shape == (nb04.N_EMBD,)
    torch.testing.assert_close(shown["without"][0], shown["without"][1], atol=1e-5, rtol=0)
    assert not torch.allclose(shown["with"][0], shown["with"][1], atol=1e-3)
    out = capsys.readouterr().out
    assert "token vectors only: the last position's output is the same" in out
    assert "token + position vectors: the last position's output is different" in out
    # The pictures' claim: without positions each letter keeps its weight wherever it stands; with them it does not.
    for kind, alike in (("without", True), ("with", False)):
        rows = [wei[-1] for wei in shown["wei"][kind]]
        moved = torch.stack([rows[1][second.index(letter)] for letter in first])  # the second word's, in first's order
        assert torch.allclose(rows[0], moved, atol=1e-6) == alike, kind


def test_different_last_letters_differ_even_without_positions():
    shown = nb04.explore_word_order("dogs", "dogy")
    assert not torch.allclose(shown["without"][0], shown["without"][1], atol=1e-3)


def test_similarity_weights_are_causal_and_row_stochastic():
    x = torch.randn(2, 5, 3)
    wei = similarity_weights(x)
    torch.testing.assert_close(wei.sum(-1), torch.ones(2, 5))
    assert (wei.triu(diagonal=1) == 0).all()


# --- 05: scores from query and key -----------------------------------------------------------------------------------


def test_thou_gives_causal_row_stochastic_weights(capsys, shown_figures):
    wei = nb05.explore_word_scores("thou")["wei"]
    assert (wei.triu(diagonal=1) == 0).all()
    torch.testing.assert_close(wei.sum(-1), torch.ones(4))
    torch.testing.assert_close(wei[-1], torch.tensor([0.66, 0.02, 0.10, 0.22]), atol=0.005, rtol=0)
    assert "[0.66, 0.02, 0.10, 0.22]" in capsys.readouterr().out
    assert len(shown_figures[-1].axes) == 5  # raw, masked, softmax; raw and masked share one colour bar


def test_scores_are_query_dot_key_and_depend_on_the_word():
    shown = nb05.explore_word_scores("noon")
    x = nb05.WEIGHTS["token"][encode("noon")] + nb05.WEIGHTS["position"][:4]
    q, k = x @ nb05.WEIGHTS["W_q"], x @ nb05.WEIGHTS["W_k"]
    torch.testing.assert_close(shown["raw"][3, 1], q[3] @ k[1])
    assert torch.isneginf(shown["masked"][0, 1])
    assert not torch.allclose(shown["raw"][:, 1], shown["raw"][:, 2])  # the two o's: their positions differ
    thou, hou = (nb05.word_scores(encode(word))[2] for word in ("thou", "hou"))  # the weights only: no figure
    assert not torch.allclose(thou[1:, 1:], hou)


def test_a_weight_too_small_for_two_decimals_is_not_printed_as_a_masked_0(capsys):
    nb05.explore_word_scores("zzzzzzzz")  # only an exact 0, the future's, reads 0.00
    assert "and shares out its weights: [0.18, 4.21e-03, 0.18" in capsys.readouterr().out


def test_hou_under_random_matrices_gives_u_nearly_the_hand_set_weights_from_other_scores(shown_figures):
    # notebook 05's explorer cell says so: scores far from 4.0, 0.5 and 2.5, weights close to 0.80, 0.02 and 0.18
    shown = nb05.explore_word_scores("hou")
    scores, weights = shown["raw"][2], shown["wei"][2]
    hand_set = torch.tensor([4.0, 0.5, 2.5])
    assert (scores - hand_set).abs().min() > 1
    assert [round(w, 2) for w in weights.tolist()] == [0.80, 0.03, 0.17]
    assert [round(w, 2) for w in torch.softmax(hand_set, 0).tolist()] == [0.80, 0.02, 0.18]
    gaps = scores - scores[2], hand_set - hand_set[2]  # only the differences count: here they are alike
    torch.testing.assert_close(gaps[0], gaps[1], atol=0.3, rtol=0)


# --- 06: value -------------------------------------------------------------------------------------------------------


def test_the_hand_worked_hou_example_gives_the_lessons_numbers(capsys):
    shown = nb06.explore_value_weight(nb06.HOU_VALUE_TEXT)
    torch.testing.assert_close(shown["wei"][2], torch.tensor([0.80, 0.02, 0.18]), atol=0.005, rtol=0)
    torch.testing.assert_close(shown["out"][2], torch.tensor([8.87, 1.13]), atol=0.005, rtol=0)
    assert "u: wei [0.80, 0.02, 0.18]" in capsys.readouterr().out


def test_too_many_numbers_for_the_value_weight_are_refused_for_its_shape(capsys):
    assert nb06.explore_value_weight("1, 2, 3, 4, 5, 6, 7") is None
    assert "There are 7 numbers: give at most 6, the value weight is 2×3." in capsys.readouterr().out


@pytest.mark.parametrize("word", ["hou", "thou", "youth", "youthhou"])
def test_the_word_explorer_grows_with_the_word_so_every_text_stays_16_px_or_more(word, shown_figures):
    nb06.explore_word(word)
    (fig,) = shown_figures
    kind, text, px = min(figure_texts(fig), key=lambda found: found[2])
    assert px >= 16, f"{word}: {kind} ({text!r}) are {px:.1f} px"
    assert fig.get_size_inches()[0] <= MAX_STAGES_WIDTH + 0.01, "never wider than a slide shows unscaled"


@pytest.mark.parametrize("word", ["é", "ﬁ", "🙂", "yax"])
def test_a_character_outside_the_example_names_the_five_letters_it_knows(word, capsys):
    assert nb06.explore_word(word) is None
    assert "this example only knows the letters h, o, u, y, t" in capsys.readouterr().out


def test_the_value_weight_moves_out_and_never_wei():
    first = nb06.explore_value_weight(nb06.HOU_VALUE_TEXT)
    for text in ["1, 2, 3, 4, 5, 6", "−3, 0, 0, 0, 0, 7"]:
        other = nb06.explore_value_weight(text)
        assert torch.equal(other["wei"], first["wei"])  # bit for bit
        w_v = torch.tensor([float(v.replace("−", "-")) for v in text.split(",")]).reshape(2, 3)
        torch.testing.assert_close(other["out"], first["wei"] @ w_v.T)


def test_out_is_the_course_stage_attend_qkv():
    shown = nb06.explore_value_weight("1, 2, 3, 4, 5, 6")
    q, k = nb06.linear([r[:3] for r in nb06.QUERY_WEIGHT]), nb06.linear([r[:3] for r in nb06.KEY_WEIGHT])
    with torch.no_grad():
        expected = attend_qkv(torch.eye(3), q, k, nb06.linear([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    torch.testing.assert_close(shown["out"], expected)


def test_hou_over_five_letters_is_the_three_letter_example_and_you_differs():
    hou = nb06.explore_word("hou")
    worked = nb06.explore_value_weight(nb06.HOU_VALUE_TEXT)
    torch.testing.assert_close(hou["wei"], worked["wei"])
    torch.testing.assert_close(hou["out"], worked["out"])
    assert not torch.allclose(nb06.explore_word("you")["wei"], hou["wei"])


# --- 07: scaling -----------------------------------------------------------------------------------------------------


def test_unscaled_weights_sharpen_as_the_head_grows_and_scaled_ones_stay_calm():
    unscaled = [nb07.explore_scaling(d, False)["mean_max_weight"] for d in nb07.HEAD_SIZES]
    assert unscaled == sorted(unscaled) and unscaled[-1] > 0.95 and unscaled[0] < 0.8
    scaled = [nb07.explore_scaling(d, True)["mean_max_weight"] for d in nb07.HEAD_SIZES]
    assert all(0.4 < s < 0.65 and s < u for s, u in zip(scaled, unscaled, strict=True))


def test_the_weights_are_causal_and_scaling_divides_by_the_root_of_the_head_size():
    shown = nb07.explore_scaling(64, True)
    T = len(nb07.TEXT)
    visible = torch.ones(T, T, dtype=torch.bool).tril()
    assert (shown["wei"][~visible] == 0).all() and (shown["wei"][visible] > 0).all()
    assert torch.equal(shown["max_weight"], shown["wei"].max(-1).values) and shown["max_weight"][0] == 1
    q, k = nb07.random_qk(5, 16)
    torch.testing.assert_close(nb07.scores(q, k, True), nb07.scores(q, k, False) / 4)
    future = ~torch.ones(5, 5).tril().bool()
    expected = torch.softmax((q @ k.T / 4).masked_fill(future, -torch.inf), -1)
    torch.testing.assert_close(causal_softmax(nb07.scores(q, k, True)), expected)


# --- 08: the mask on and off, and the graph --------------------------------------------------------------------------


def test_decoder_weights_are_causal_and_the_graph_keeps_each_positions_strongest_arrows(capsys):
    shown = nb08.explore_mask(nb08.EXAMPLE, causal=True)
    wei, T = shown["wei"], len(nb08.EXAMPLE)
    assert (wei.triu(diagonal=1) == 0).all() and (wei[torch.ones(T, T).tril().bool()] > 0).all()
    out = capsys.readouterr().out
    drawn = 1 + nb08.ARROWS_PER_POSITION * (T - 1)  # position 0 has only itself; every other keeps its strongest
    assert f"{T * (T + 1) // 2} non-zero weights" in out
    assert f"keeps each position's strongest: {drawn} arrows, loops included" in out
    assert shown["drawn"] == drawn < T * (T + 1) // 2


def test_two_equal_weights_are_both_drawn_as_the_two_ts_of_the_example_are_without_the_mask(capsys):
    # notebook 08's explorer cell says so: the demo head has no positions, so both t's weigh the same in every row
    assert nb08.explore_mask(nb08.EXAMPLE, causal=False)["drawn"] > len(nb08.EXAMPLE) == 8
    assert "weights that tie for the strongest are all kept, so some positions keep more than 1" in (
        capsys.readouterr().out)
    nb08.explore_mask(nb08.EXAMPLE, causal=True)  # no tie with the mask: one arrow each, and nothing more said
    assert "tie" not in capsys.readouterr().out


def test_encoder_weights_see_every_position_and_agree_on_the_last_row(capsys):
    decoder, encoder = nb08.explore_mask("hou", causal=True)["wei"], nb08.explore_mask("hou", causal=False)["wei"]
    assert (encoder > 0).all() and not torch.equal(encoder, decoder)
    torch.testing.assert_close(encoder[-1], decoder[-1])  # the last position has no future to lose
    assert "9 non-zero weights of 9 cells" in capsys.readouterr().out


def test_the_demo_head_is_fixed_and_leaves_the_global_random_state_alone():
    torch.manual_seed(0)
    before = torch.rand(3)
    torch.manual_seed(0)
    first = nb08.demo_weights(encode("thou"))
    assert torch.equal(torch.rand(3), before) and torch.equal(nb08.demo_weights(encode("thou")), first)


# --- 11: any layer, any head of a TransformerModel -------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_block_model():
    torch.manual_seed(0)
    return TransformerModel(n_layer=2).eval()


def test_each_layer_and_head_gives_causal_row_stochastic_weights(two_block_model, capsys):
    for layer in range(2):
        heads = nb11.layer_weights(two_block_model, encode("thou art"), layer)  # every head's weights: no figure
        assert heads.shape == (4, 8, 8) and (heads.triu(1) == 0).all()
        torch.testing.assert_close(heads.sum(-1), torch.ones(4, 8))
    shown = nb11.explore_layers("thou art", 1, 3, model=two_block_model)  # one figure: layer 1, head 3
    assert torch.equal(shown["wei"], nb11.layer_weights(two_block_model, encode("thou art"), 1)[3])
    assert "layer 1, head 3" in capsys.readouterr().out


def test_layers_read_different_inputs(two_block_model):
    first = nb11.layer_weights(two_block_model, encode("thou art"), 0)
    second = nb11.layer_weights(two_block_model, encode("thou art"), 1)
    assert first.shape == second.shape == (4, 8, 8) and not torch.allclose(first, second)


def test_the_range_refused_follows_the_model_handed_over(two_block_model, capsys):
    assert nb11.explore_layers("thou", 2, 0, model=two_block_model) is None
    assert "layer is a whole number from 0 to 1" in capsys.readouterr().out


def test_the_default_model_leaves_the_global_random_state_alone():
    state = torch.random.get_rng_state()
    nb11.untrained_model()
    assert torch.equal(torch.random.get_rng_state(), state)


# --- with real ipywidgets controls, as the notebooks build them -------------------------------------------------------


def test_explorers_redraw_from_real_controls(shown_figures, live_explorers):
    value = widgets.Text(value=nb06.HOU_VALUE_TEXT, continuous_update=False)
    torch.testing.assert_close(explore(nb06.explore_value_weight, value_weight=value)["out"][2],
                               torch.tensor([8.87, 1.13]), atol=0.005, rtol=0)
    value.value = "1, 2, 3, 4, 5, 6"
    assert len(shown_figures) == 2
    size, scale = widgets.SelectionSlider(options=nb07.HEAD_SIZES, value=256), widgets.Checkbox(value=False)
    assert explore(nb07.explore_scaling, head_size=size, scaled=scale)["mean_max_weight"] > 0.9
    scale.value, size.value = True, 4
    assert len(shown_figures) == 5
    word, causal = widgets.Text(value="you", continuous_update=False), widgets.Checkbox(value=False)
    assert torch.equal(explore(nb08.explore_mask, word=word, causal=causal)["wei"],
                       nb08.explore_mask("you", causal=False)["wei"])
    word.value = "th#"  # bad input: one sentence, no picture, no exception
    assert len(shown_figures) == 7


# --- inputs people type, from a review that called every explorer 347 times ------------------------------------------


def test_the_graph_draws_every_arrow_that_ties_for_strongest():
    shown = nb08.explore_mask("zzzzzzzz", causal=False)  # eight equal characters: every weight 1/8
    assert shown["drawn"] == 64, "no one of eight equal weights is the strongest"
    assert len(graph_edges(torch.tensor([[0.5, 0.5], [0.2, 0.8]]), per_row=1)) == 3


def test_scores_whose_sum_is_too_small_for_float32_are_refused_not_drawn(capsys):
    assert nb02.explore_divide_by_sum("1, -1, 1e-40") is None
    assert "so close to 0 that dividing by it overflows" in capsys.readouterr().out


def test_exps_too_small_for_two_decimals_are_printed_in_powers_of_ten(capsys):
    nb03.explore_masked_softmax("-6, -6, -6", 2)
    out = capsys.readouterr().out
    assert "0.00" not in out.split("② exp:")[1].split("\n")[0], out  # e^−6 is not 0


def test_a_row_with_no_future_is_not_described_as_masked(shown_figures):
    nb03.explore_masked_softmax("2, -1, 3, 5", 3)
    described = shown_figures[-1].get_label()
    assert "nothing to mask" in described and "minus infinity" not in described, described


def test_the_same_word_twice_is_not_blamed_on_order(capsys):
    nb01.explore_bag_of_words("dogs", "dogs")
    out = capsys.readouterr().out
    assert "The two words are the same" in out and "cannot see their order" not in out


def test_scores_too_small_for_two_decimals_are_not_printed_as_0_00(capsys):
    nb02.explore_divide_by_sum("1e-5, 1e-5")
    assert "scores:       [1.00e-05, 1.00e-05]" in capsys.readouterr().out


def test_a_tiny_negative_weight_is_printed_with_its_sign(capsys):
    nb02.explore_divide_by_sum("1, -0.001, 1")
    assert "The weight at position 1 is -5.00e-04: negative." in capsys.readouterr().out
