"""The wei heatmap: labels, masked cells, colour scales, devices and shapes."""

import itertools
import math
import re

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
import torch.nn.functional as F
from matplotlib.patches import Arc, Circle, FancyArrowPatch
from matplotlib.path import Path

from helpers.plots import (
    CELL_TEXT_PT,
    MAX_STAGES_WIDTH,
    MIN_EDGE_WIDTH,
    TITLE_GAP_PX,
    Panel,
    alt_text,
    cell_numbers,
    cell_value_text,
    char_label,
    contrast_ratio,
    draw_graph,
    figure_alt_metadata,
    graph_edges,
    grid_row,
    heatmap_axes,
    masked_cells,
    masked_runs,
    numbers_inside_cells,
    plot_batch_losses,
    plot_losses,
    register_alt_text,
    running_mean,
    show_wei,
    show_wei_stages,
    text_colour_on,
    tick_labels,
    to_matrix,
    two_lines,
)
from tests.figure_texts import figure_texts, numbers_wider_than_their_cells


def hatched_cells(ax) -> set:
    """The (row, column) cells whose centre lies under a hatched patch: each closed shape of the patch is tested
    against the centres of the rows it reaches (testing every centre against the whole patch takes seconds)."""
    T, S = ax.images[0].get_array().shape
    columns = np.arange(S, dtype=float)
    covered = set()
    for patch in ax.patches:
        if patch.get_hatch():
            for shape in patch.get_path().to_polygons():
                rows = range(max(0, math.ceil(shape[:, 1].min())), min(T - 1, math.floor(shape[:, 1].max())) + 1)
                for i in rows:
                    inside = Path(shape).contains_points(np.column_stack([columns, np.full(S, float(i))]))
                    covered.update((i, int(j)) for j in columns[inside])
    return covered


def hatched(ax):
    return sorted(hatched_cells(ax))


def tick_texts(axis) -> list[str]:
    return [t.get_text() for t in axis.get_ticklabels()]


def cell_texts(ax):
    return [t.get_text() for t in ax.texts]


def test_positions_and_characters_label_both_axes_and_space_is_visible():
    ax = show_wei(torch.full((3, 3), 1 / 3), labels="h u", stage="weights", causal=False)
    assert tick_texts(ax.xaxis) == ["0 h", "1 ␣", "2 u"]
    assert tick_texts(ax.yaxis) == ["0 h", "1 ␣", "2 u"]
    assert char_label("\n") == "↵"


def test_a_repeated_letter_gets_two_different_labels():
    ax = show_wei(torch.eye(8), labels="First Ci", stage="weights")
    rows = tick_texts(ax.yaxis)
    assert rows[1] == "1 i" and rows[7] == "7 i"
    assert len(set(rows)) == 8 and tick_texts(ax.xaxis) == rows


def test_labels_that_are_names_or_positions_are_kept_as_they_are():
    assert tick_labels(["row"], 1) == ["row"]
    assert tick_labels(["0", "1", "2"], 3) == ["0", "1", "2"]
    assert tick_labels(None, 2) == ["0", "1"]
    assert tick_labels(list("hou"), 3) == ["0 h", "1 o", "2 u"]


def test_axes_are_named_in_words_by_default_and_as_query_and_key_on_request():
    ax = show_wei(torch.eye(2), labels="ab")
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("position looking (row)", "position looked at (column)")
    ax = show_wei(torch.eye(2), labels="ab", axis_names="qk")
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("query: position looking", "key: position looked at")
    fig = show_wei_stages([(torch.eye(2), "softmax")], labels="ab", axis_names="qk")
    assert fig.axes[0].get_ylabel().startswith("query")
    with pytest.raises(ValueError, match="Unknown axis_names"):
        show_wei(torch.eye(2), axis_names="QK")


def test_masked_scores_are_hatched_and_marked_minus_infinity():
    scores = torch.tensor([[1.0, -math.inf], [2.0, 3.0]])
    ax = show_wei(scores, labels="ab", stage="masked")
    assert hatched(ax) == [(0, 1)]
    assert "−∞" in cell_texts(ax)
    assert "masked" in ax.get_title()


def test_masked_weights_differ_from_true_zeros():
    # Softmaxed weights hold 0 in the future; with the causal mask those cells are hatched, a real 0 is not.
    wei = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])
    ax = show_wei(wei, labels="abc", stage="softmax")
    assert hatched(ax) == [(0, 1), (0, 2), (1, 2)]  # the upper triangle only
    assert cell_texts(ax).count("0.00") == 2  # the two true zeros below the diagonal are written out


def test_weights_without_a_mask_are_not_hatched():
    # An encoder's weights (no mask): every future cell holds a real weight, so nothing is hatched.
    wei = F.softmax(torch.tensor([[1.0, 2.0], [0.5, 0.1]]), dim=-1)
    assert hatched(show_wei(wei, labels="ab", stage="softmax")) == []
    assert hatched(show_wei(torch.ones(3, 3), labels="abc", stage="visibility")) == []


def test_a_weights_panel_with_zeros_in_the_future_is_hatched_in_show_wei_stages():
    tril = torch.ones(3, 3).tril()
    fig = show_wei_stages([(tril, "visibility"), (tril / tril.sum(1, keepdim=True), "weights")], labels="hou")
    for ax in heatmap_axes(fig):
        assert hatched(ax) == [(0, 1), (0, 2), (1, 2)]
        assert cell_texts(ax).count("0.00") == 0  # a masked cell never shows a white 0


def test_visibility_marks_get_no_colour_bar_and_weights_keep_theirs():
    tril = torch.ones(3, 3).tril()
    assert len(show_wei(tril, labels="hou", stage="visibility").figure.axes) == 1  # 0/1 marks: no scale to read
    assert len(show_wei(tril / tril.sum(1, keepdim=True), labels="hou", stage="weights").figure.axes) == 2


def test_weights_share_a_fixed_zero_to_one_scale():
    ax = show_wei(torch.tensor([[0.2, 0.0], [0.1, 0.1]]), stage="weights", causal=False)
    assert ax.images[0].get_clim() == (0.0, 1.0)


def test_scores_use_a_scale_centred_on_zero():
    ax = show_wei(torch.tensor([[-4.0, 1.0], [2.0, 3.0]]), stage="raw")
    assert ax.images[0].get_clim() == (-4.0, 4.0)


def test_title_names_the_stage():
    assert show_wei(torch.zeros(2, 2), stage="raw").get_title() == "wei — raw scores"
    assert show_wei(torch.eye(2), stage="softmax").get_title() == "wei — softmaxed weights (rows sum to 1)"


def test_accepts_lists_grad_tensors_and_a_batch_of_one():
    assert to_matrix([[1, 0], [0.5, 0.5]]).shape == (2, 2)
    assert to_matrix(torch.ones(1, 3, 3, requires_grad=True)).shape == (3, 3)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_accepts_gpu_tensors():
    ax = show_wei(torch.eye(3, device="cuda"), labels="hou", stage="weights", causal=False)
    assert ax.images[0].get_array().tolist() == torch.eye(3).tolist()


def test_big_matrices_are_drawn_without_numbers():
    ax = show_wei(torch.rand(20, 20), stage="weights", causal=False)
    assert cell_texts(ax) == []


def test_a_long_sequence_draws_on_a_capped_figure_with_few_artists_and_ticks():
    T = 512
    scores = torch.randn(T, T).masked_fill(torch.ones(T, T).tril() == 0, -math.inf)
    ax = show_wei(F.softmax(scores, dim=-1), labels="ab" * (T // 2), stage="softmax")
    width, height = ax.figure.get_size_inches()
    assert width <= 9 and height <= 9
    assert len(ax.patches) + len(ax.texts) <= 2  # one hatched overlay, no per-cell rectangles or numbers
    assert len(ax.get_xticks()) <= 32 and len(ax.get_yticks()) <= 32
    assert tick_texts(ax.yaxis)[:2] == ["0 a", "16 a"]
    cells = hatched_cells(ax)  # 262,144 cell centres tested against the overlay: once
    assert cells >= {(0, 1), (0, T - 1), (T - 2, T - 1)} and (T - 1, T - 1) not in cells


def test_masked_cells_are_hatched_by_runs_along_each_row():
    masked = torch.tensor([[0, 1, 1, 0, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]]).bool()
    assert masked_runs(masked) == [(0, 1, 3), (0, 4, 5), (2, 0, 5)]
    ax = show_wei(torch.zeros(3, 5), stage="raw", mask=masked)
    assert len(ax.patches) == 1
    assert hatched_cells(ax) == {tuple(ij) for ij in masked.nonzero().tolist()}


def overlapping_texts(fig) -> list[tuple[str, str]]:
    """Pairs of texts of different panels (titles, axis names, tick labels, colour-bar numbers) whose boxes overlap,
    and a panel's title or axis name running into another of its own; numbers inside cells are left out."""
    fig.draw_without_rendering()
    texts = []
    for ax in fig.axes:
        named = [ax.title, ax.xaxis.label, ax.yaxis.label]
        for t in [*named, *ax.get_xticklabels(), *ax.get_yticklabels()]:
            if t.get_visible() and t.get_text().strip():
                texts.append((ax, t in named, t.get_text(), t.get_window_extent().shrunk(0.98, 0.9)))
    return [(a[2], b[2]) for i, a in enumerate(texts) for b in texts[i + 1:]
            if (a[0] is not b[0] or (a[1] and b[1])) and a[3].overlaps(b[3])]


@pytest.mark.parametrize("panels, options", [
    ([(torch.randn(2, 2), "raw", "wei — raw scores q · k"), (torch.randn(2, 2), "masked"), (torch.eye(2), "softmax")],
     {"labels": "hu", "axis_names": "qk"}),
    ([(torch.eye(3), "weights", "sum(1, keepdim=True): rows sum to 1"), (torch.eye(3), "weights", "sum(1): rows sum to "
      "1, 1.5, 1.83")], {"labels": "hou"}),
    ([(torch.zeros(6, 6), "masked"), (torch.eye(6), "softmax")], {"labels": "First "}),
    ([(torch.eye(3), "weights", f"head {h} — 'hou'", "hou") for h in range(4)], {"axis_names": "qk", "ncols": 4}),
    ([(torch.eye(4), "weights", f"head {h} — 'thou'", "thou") for h in range(4)], {"axis_names": "qk", "ncols": 4}),
    ([(torch.eye(3), "softmax", f"wei for {w!r}", w) for w in ("hou", "you")], {"axis_names": "qk"}),  # as in 06
    ([(torch.eye(n), "weights", f"trained wei — {w!r}", w) for n, w in ((3, "hou"), (3, "you"), (4, "thou"))],
     {"axis_names": "qk"}),
])
def test_panels_titles_and_axis_names_run_into_nothing(panels, options):
    fig = show_wei_stages(panels, **options)
    assert overlapping_texts(fig) == []
    panels = heatmap_axes(fig)
    for names in ([ax.get_xlabel() for ax in panels], [ax.get_ylabel() for ax in panels]):
        assert names[0] and not any(names[1:]), "a name every panel of the row shares: once, on the first panel"
    for ax in panels:  # a row name taller than its panel would run past the figure's top and bottom
        assert ax.yaxis.label.get_window_extent().height <= ax.get_window_extent().height, ax.get_ylabel()
    titles = [ax.title.get_window_extent() for ax in panels if ax.get_title()]
    for left, right in itertools.permutations(titles, 2):  # two titles side by side closer than this read as one
        assert not (left.x1 <= right.x0 < left.x1 + TITLE_GAP_PX - 0.5 and left.y0 < right.y1 and right.y0 < left.y1)
    for ax, other in itertools.permutations(panels, 2):  # a column name reaching under the next panel reads as its
        if ax.get_xlabel() and grid_row(ax) == grid_row(other):
            name, span = ax.xaxis.label.get_window_extent(), other.get_window_extent()
            assert not (name.x1 > span.x0 and name.x0 < span.x1), f"{ax.get_xlabel()!r} runs under the next panel"


@pytest.mark.parametrize("text, lines", [
    ("wei — masked scores (future = −∞)", "wei — masked scores\n(future = −∞)"),  # before the bracket
    ("query: position looking", "query:\nposition looking"),  # after the colon: the name, then what it means
    ("scaled: q·kᵀ / √64 (rows)", "scaled:\nq·kᵀ / √64 (rows)"),  # the colon first
    ("trained wei — 'hou'", "trained wei\n— 'hou'"),  # else at the middlemost space
    ("hou", "hou"),
])
def test_a_long_text_breaks_after_its_colon_or_before_its_bracket_else_at_its_middle_space(text, lines):
    assert two_lines(text) == lines


def test_the_overlap_check_sees_titles_that_run_into_each_other():
    fig = show_wei_stages([(torch.eye(3), "weights", "hou"), (torch.eye(3), "weights", "you")], labels="hou")
    fig.axes[0].set_title("a title far too long for one small panel of three cells")
    assert overlapping_texts(fig)


def smallest_text_px(fig) -> tuple[float, str]:
    """The smallest text of a figure in pixels (at its dpi) and what kind of text it is."""
    kind, _, px = min(figure_texts(fig), key=lambda t: t[2])
    return px, kind


@pytest.mark.parametrize("draw", [
    lambda: show_wei(torch.eye(8) * 0.5, labels="First Ci", stage="weights").figure,
    lambda: show_wei(torch.randn(40, 40), stage="raw").figure,
    lambda: show_wei_stages([(torch.randn(8, 8), "raw"), (torch.eye(8), "softmax")], labels="First Ci"),
    lambda: show_wei_stages([(torch.randn(3, 3), "raw"), (torch.randn(3, 3), "masked"), (torch.eye(3), "softmax")],
                            labels="hou", size=3.6, axis_names="qk"),
    lambda: show_wei_stages([(torch.eye(n), "weights", w, w) for n, w in ((3, "hou"), (3, "you"), (4, "thou"))]),
    lambda: show_wei_stages([(torch.eye(4), "softmax", "dogs", "dogs")] * 4, ncols=2),
    lambda: plot_losses([{"step": 0, "train": 4.2, "val": 4.2}, {"step": 100, "train": 2.5, "val": 2.6}],
                        reference=2.49).figure,
    lambda: plot_batch_losses({"+ LayerNorm, 3e-2": [4.2, 3.1, 2.5] * 50, "+ residual, 3e-2": [4.2, 3.3] * 75},
                              references={"count-based bigram (validation)": 2.48, "frequencies": 3.35}).figure,
])
def test_every_text_of_a_helper_figure_is_16_px_or_more_at_100_dpi(draw):
    fig = draw()
    assert fig.dpi == 100
    px, kind = smallest_text_px(fig)
    assert px >= 16, f"{kind} are {px:.1f} px"
    assert fig.get_size_inches()[0] <= MAX_STAGES_WIDTH + 0.01  # never wider than a slide can show unscaled


def test_three_8_by_8_panels_keep_one_row_within_the_slide_width_with_smaller_numbers():
    # 24 columns of numbers like "−0.9" need about 1,100 px at 16 px: more than a 1280 px slide leaves, so
    # the numbers shrink (the other texts do not) and the figure stays one row that fits.
    fig = show_wei_stages([(torch.randn(8, 8), "raw"), (torch.randn(8, 8), "masked"), (torch.eye(8), "softmax")],
                          labels="First Ci")
    assert fig.get_size_inches()[0] <= MAX_STAGES_WIDTH + 0.01
    assert len({round(ax.get_position().y0, 2) for ax in heatmap_axes(fig)}) == 1
    numbers = [t.get_fontsize() for t in cell_numbers(fig)]
    assert 9.5 <= min(numbers) < 12
    assert min(px for kind, _, px in figure_texts(fig) if kind != "cell numbers") >= 16


def test_neighbouring_panels_on_one_scale_share_one_colour_bar_and_their_row_names():
    fig = show_wei_stages([(torch.randn(4, 4), "raw"), (torch.randn(4, 4), "masked"), (torch.eye(4), "softmax")],
                          labels="abcd")
    raw, masked, weights = heatmap_axes(fig)
    assert [ax.images[0].colorbar is not None for ax in (raw, masked, weights)] == [False, True, True]
    assert raw.get_ylabel() and not masked.get_ylabel() and not weights.get_ylabel()
    assert [t.get_text() for t in raw.get_yticklabels()][0] == "0 a"


def test_every_cell_number_stands_out_4_5_to_1_from_its_cell():
    values = torch.linspace(-1, 1, 49).reshape(7, 7)
    for ax in (show_wei(values, stage="raw"), show_wei(values.abs(), stage="weights", causal=False),
               show_wei(values * 1.4, stage="weights", causal=False)):  # some "weights" out of range: orange
        image = ax.images[0]
        for text in ax.texts:
            j, i = (round(c) for c in text.get_position())
            cell = image.cmap(image.norm(image.get_array()[i, j]))
            assert contrast_ratio(text.get_color(), cell) >= 4.5, (text.get_text(), text.get_color(), cell)
    assert contrast_ratio("white", "black") == pytest.approx(21)
    assert text_colour_on("#08306b") == "white" and text_colour_on("#f7fbff") == "black"


def layout_moves_without_numbers(fig) -> float:
    """How far (a share of the figure) any panel moves when the figure is laid out without its cell numbers."""
    def laid_out():
        fig.draw_without_rendering()
        return np.array([ax.get_position().bounds for ax in fig.axes])

    laid_out()  # constrained layout moves a little at each pass before it settles
    numbers = cell_numbers(fig)
    with_numbers = laid_out()
    for text in numbers:
        text.set_visible(False)
    without = laid_out()
    for text in numbers:
        text.set_visible(True)
    return float(np.abs(with_numbers - without).max())


def test_cell_numbers_sit_out_the_layout_passes_only_where_they_change_nothing():
    # Its axis names run into each other, so it is laid out several times; its numbers, inside their cells, sit out
    # every pass (measuring them is the slow part).
    small = show_wei_stages([(torch.rand(3, 3), "softmax")] * 2, labels="hou", axis_names="qk")
    # "−3.4e38" is wider than a cell of 12 × 12 even at the numbers' least size: these numbers stay in every layout.
    wide = show_wei_stages([(torch.full((12, 12), -3.4e38), "raw")])
    assert numbers_inside_cells(small) and not numbers_inside_cells(wide)
    for fig, n in ((small, 3), (wide, 12)):
        numbers = cell_numbers(fig)
        assert len(numbers) == n * n * len(heatmap_axes(fig)) and all(text.get_visible() for text in numbers)
    assert layout_moves_without_numbers(small) < 1e-4 < 1e-3 < layout_moves_without_numbers(wide)


@pytest.mark.parametrize("value", [-1234.5, -999.4, -12.34])  # written −1.2e3, −999 and −12.3
def test_a_number_wider_than_four_characters_makes_its_panels_numbers_smaller_to_fit_their_cells(value):
    values = torch.full((4, 4), value)
    values[0, 0] = -0.9  # the widest of the ordinary numbers
    wide = show_wei_stages([(values, "raw"), (torch.eye(4), "softmax")], labels="abcd")
    raw, weights = heatmap_axes(wide)
    assert numbers_wider_than_their_cells(wide) == []
    assert CELL_TEXT_PT[0] < raw.texts[0].get_fontsize() < 0.95 * weights.texts[0].get_fontsize()  # in its own panel
    ordinary = show_wei_stages([(values.sign() * 0.9, "raw"), (torch.eye(4), "softmax")], labels="abcd")  # −0.9
    assert len({round(text.get_fontsize(), 6) for text in cell_numbers(ordinary)}) == 1


def test_three_stage_panels_share_one_row_and_more_wrap():
    three = show_wei_stages([(torch.eye(8), "softmax")] * 3, labels="First Ci")
    rows = {round(ax.get_position().y0, 2) for ax in heatmap_axes(three)}
    assert len(heatmap_axes(three)) == 3 and len(rows) == 1 and three.get_size_inches()[0] <= 14.5
    five = show_wei_stages([(torch.eye(8), "softmax", f"panel {k}") for k in range(5)], labels="First Ci", size=4.4)
    assert len({round(ax.get_position().y0, 2) for ax in heatmap_axes(five)}) == 2  # wrapped onto a second row
    # the sixth place of the grid is removed, not left as an empty frame with ticks: 5 heatmaps and 2 colour bars
    assert len(five.axes) == 7 and all(ax.images or hasattr(ax, "_colorbar") for ax in five.axes)


def test_visibility_marks_are_written_as_whole_numbers():
    ax = show_wei(torch.tril(torch.ones(3, 3)), labels="hou", stage="visibility")
    assert sorted(set(cell_texts(ax))) == ["1"]  # the future is hatched, the rest are plain 1s, not "1.00"
    ax = show_wei(torch.eye(3), labels="hou", stage="visibility", causal=False)
    assert sorted(set(cell_texts(ax))) == ["0", "1"]


def test_minus_infinity_stands_on_a_white_box_over_the_hatching():
    ax = show_wei(torch.tensor([[1.0, -math.inf], [2.0, 3.0]]), labels="ab", stage="masked")
    minus_inf = [t for t in ax.texts if t.get_text() == "−∞"]
    assert minus_inf and all(t.get_bbox_patch() is not None for t in minus_inf)
    assert all(t.get_bbox_patch() is None for t in ax.texts if t.get_text() != "−∞")


@pytest.mark.parametrize(
    "value, text",
    [(0.0, "0.00"), (2.4e-6, "≈0"), (0.0049, "≈0"), (0.005, "0.01"), (0.9949, "0.99"), (0.9951, "≈1"),
     (0.99995, "≈1"), (1.0, "1.00"), (-0.001, "≈0"), (1.003, "≈1"), (-0.006, "−0.01"), (1.006, "1.01")],
)
def test_only_an_exact_0_or_1_weight_reads_0_00_or_1_00(value, text):
    # A saturated softmax (notebook 07) holds weights like 2e-6 and 0.99995: not 0 and 1, so not written as them.
    assert cell_value_text(value, is_weights=True) == text
    assert cell_value_text(value, is_weights=True, whole=True) in ("0", "1")  # a 0/1 mark is written whole


def test_a_saturated_row_shows_no_rounded_zero_or_one():
    # softmax([0, -8, -20, 0.5]) = [0.38, 0.0001, 8e-10, 0.62] and softmax([12, 0, 0, 0]) ≈ [0.99982, 6e-6, …]
    wei = F.softmax(torch.tensor([[0.0, -8.0, -20.0, 0.5], [12.0, 0.0, 0.0, 0.0]]), dim=-1)
    texts = cell_texts(show_wei(wei, labels=None, key_labels="abcd", stage="softmax", causal=False))
    assert texts == ["0.38", "≈0", "≈0", "0.62", "≈1", "≈0", "≈0", "≈0"]


def test_a_weight_of_exactly_one_beside_tiny_ones_is_float32s_rounding():
    # What notebook 07 says of a row that reads 1.00 beside ≈0 cells: in float32, 1 plus less than about 6e-8 is
    # exactly 1, so the largest weight, e⁰ over that sum, is exactly 1 while the others are not 0.
    row = F.softmax(torch.tensor([0.0, -20.0, -25.0]), dim=-1)
    assert row[0] == 1.0 and (row[1:] > 0).all() and float(row[1:].sum()) < 6e-8
    assert F.softmax(torch.tensor([0.0, -16.0]), dim=-1)[0] < 1.0  # e^-16 ≈ 1.1e-7: 1 + it is no longer 1
    assert cell_texts(show_wei(row[None], key_labels="abc", stage="softmax", causal=False)) == ["1.00", "≈0", "≈0"]


def test_minus_zero_is_written_as_zero():
    assert cell_value_text(-0.04, is_weights=False) == "0.0"
    assert cell_value_text(-1.25, is_weights=False) == "−1.2"
    assert cell_value_text(0.274, is_weights=True) == "0.27"


@pytest.mark.parametrize(
    "value, text",
    [(99.9, "99.9"), (123.4, "123"), (-999.4, "−999"), (1000.0, "1e3"), (-2345.0, "−2.3e3"), (3.4e38, "3.4e38"),
     (5.4e15, "5.4e15")],
)
def test_a_large_value_is_written_short_enough_for_its_cell(value, text):
    assert cell_value_text(value, is_weights=value > 1e10) == text
    assert len(text) <= 6


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: show_wei(torch.ones(2, 3, 3)), "pass one sequence"),
        (lambda: show_wei(torch.eye(2), stage="final"), "Unknown stage"),
        (lambda: show_wei_stages([(torch.eye(2), "final")]), "Unknown stage 'final'"),
        (lambda: show_wei(torch.eye(3), labels="ab"), "3×3 but got 2 row labels"),
        (lambda: show_wei(torch.zeros(0, 0)), r"empty matrix, of shape \(0, 0\): pass wei for at least one position"),
        (lambda: show_wei(torch.zeros(3, 0)), r"empty matrix, of shape \(3, 0\)"),
        (lambda: show_wei(None), "not a NoneType: pass a tensor, an array or nested lists"),
        (lambda: show_wei_stages([]), r"a list of panels, each a \(wei, stage\) pair"),
        (lambda: show_wei_stages(torch.eye(3)), r"to draw one matrix alone, use show_wei\(wei\)"),
        (lambda: show_wei_stages([torch.eye(3)]), r"each a \(wei, stage\) pair"),
        (lambda: show_wei_stages([(torch.zeros(0, 0), "raw")]), "empty matrix"),
    ],
)
def test_bad_input_gets_a_clear_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_causal_mask_for_non_square_matrices_hides_the_future_of_the_last_rows():
    assert masked_cells(torch.zeros(2, 3), causal=True).tolist() == [[False, False, True], [False, False, False]]


def test_stages_side_by_side_with_titles():
    fig = show_wei_stages([(torch.zeros(2, 2), "raw"), (torch.eye(2), "softmax", "my title")], labels="ab")
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles[0].endswith("raw scores") and titles[1] == "my title"


def test_panels_are_named_and_plain_tuples_still_work():
    fig = show_wei_stages([Panel(torch.eye(3), "softmax", labels="you"), (torch.zeros(3, 3), "raw", "zeros")],
                          labels="hou")
    axes = heatmap_axes(fig)
    assert [ax.get_title() for ax in axes] == ["wei — softmaxed weights (rows sum to 1)", "zeros"]
    assert [t.get_text() for t in axes[0].get_yticklabels()] == ["0 y", "1 o", "2 u"]  # its own labels
    assert [t.get_text() for t in axes[1].get_yticklabels()] == ["0 h", "1 o", "2 u"]  # the figure's


def test_options_are_passed_by_name():
    with pytest.raises(TypeError, match="positional"):
        show_wei(torch.eye(2), "ab", "raw")
    with pytest.raises(TypeError, match="positional"):
        show_wei_stages([(torch.eye(2), "raw")], "ab")


def test_plot_losses_draws_train_val_and_reference():
    history = [{"step": 0, "train": 4.0, "val": 4.1}, {"step": 10, "train": 3.0, "val": 3.2}]
    ax = plot_losses(history, reference=2.49)
    assert [line.get_label() for line in ax.lines] == ["train", "val", "2.49"]
    plt.close(ax.figure)


def test_batch_losses_are_drawn_as_running_means_with_labelled_reference_lines():
    losses = [4.0, 3.0, 2.0, 1.0, 0.0]
    ax = plot_batch_losses({"a": losses, "b": losses[::-1]}, window=2, references={"bigram": 2.48, "frequencies": 3.35})
    a, b, bigram, frequencies = ax.lines
    assert list(a.get_xdata()) == [1, 2, 3, 4], "each point sits at the last batch it averages"
    assert list(a.get_ydata()) == [3.5, 2.5, 1.5, 0.5] and list(b.get_ydata()) == [0.5, 1.5, 2.5, 3.5]
    assert running_mean(losses, 2).tolist() == [3.5, 2.5, 1.5, 0.5], "the points drawn, as a notebook can check them"
    assert [line.get_linestyle() for line in (bigram, frequencies)] == ["--", ":"], "two references, two styles"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "bigram", "frequencies"]
    text = alt_text(ax.figure)
    assert "of 2 runs: a 3.50 to 0.50; b 0.50 to 3.50; grey lines at 2.48 (bigram) and 3.35 (frequencies)" in text
    plt.close(ax.figure)


@pytest.mark.parametrize("curves, window, says", [
    ({}, 25, "curves is empty"),
    ({"a": [1.0] * 10}, 0, "from 1 to 10"),
    ({"a": [1.0] * 10, "b": [1.0] * 30}, 25, "from 1 to 10 (the shortest run's batches), not 25: e.g. window=10"),
    ({"a": [1.0] * 10}, True, "not True"),
])
def test_batch_losses_refuse_what_they_cannot_draw_with_what_to_pass(curves, window, says):
    before = plt.get_fignums()
    with pytest.raises(ValueError, match=re.escape(says)):
        plot_batch_losses(curves, window=window)
    assert plt.get_fignums() == before, "no figure is left half-drawn"


def test_all_zero_scores_get_no_meaningless_colour_bar():
    assert show_wei(torch.zeros(3, 3), stage="raw").images[0].colorbar is None
    assert show_wei(torch.eye(3), stage="raw").images[0].colorbar is not None
    assert show_wei(torch.zeros(3, 3), stage="weights", causal=False).images[0].colorbar is not None


def test_score_panels_share_one_symmetric_colour_scale():
    raw = torch.tensor([[1.0, 5.0], [-2.0, 0.5]])  # the future cell holds the largest score
    masked = raw.masked_fill(torch.ones(2, 2).tril() == 0, -math.inf)
    fig = show_wei_stages([(raw, "raw"), (masked, "masked"), (F.softmax(masked, -1), "softmax")], labels="ab")
    limits = [ax.images[0].get_clim() for ax in heatmap_axes(fig)]
    assert limits == [(-5.0, 5.0), (-5.0, 5.0), (0.0, 1.0)]


def test_zero_score_panels_beside_weights_have_no_colour_bar():
    zeros = torch.zeros(3, 3)
    masked = zeros.masked_fill(torch.ones(3, 3).tril() == 0, -math.inf)
    fig = show_wei_stages([(zeros, "raw"), (masked, "masked"), (F.softmax(masked, -1), "softmax")], labels="abc")
    bars = [ax.images[0].colorbar is not None for ax in heatmap_axes(fig)]
    assert bars == [False, False, True]


def test_explicit_mask_hatches_the_named_cells():
    ax = show_wei(torch.tensor([[0.3, 0.7, 0.0]]), labels="h", key_labels="hou", stage="weights",
                  mask=torch.tensor([[False, False, True]]))
    assert len(hatched(ax)) == 1
    with pytest.raises(ValueError, match="mask has shape"):
        show_wei(torch.eye(2), mask=torch.ones(3, 3))


def test_weights_outside_zero_to_one_are_painted_apart():
    from helpers.plots import OUT_OF_RANGE

    ax = show_wei(torch.tensor([[0.5, -0.25, 0.75]]), labels=["row"], key_labels="abc", stage="weights", causal=False)
    cmap = ax.images[0].get_cmap()
    orange = matplotlib.colors.to_rgba(OUT_OF_RANGE)
    assert tuple(cmap.get_under()) == tuple(cmap.get_over()) == orange


def test_panels_can_carry_words_of_their_own_and_a_column_count():
    fig = show_wei_stages(
        [(torch.eye(3), "softmax", "hou", "hou"), (torch.eye(4), "softmax", "thou", "thou")] * 2, ncols=2
    )
    axes = heatmap_axes(fig)
    assert [ax.get_title() for ax in axes] == ["hou", "thou", "hou", "thou"]
    assert [t.get_text() for t in axes[1].get_yticklabels()] == ["0 t", "1 h", "2 o", "3 u"]
    assert len({round(ax.get_position().y0, 2) for ax in axes}) == 2  # two rows of two


# ----- alt text --------------------------------------------------------------------------------------------

def test_a_heatmap_says_which_word_which_stage_and_its_strongest_weights():
    wei = torch.tensor([[1.0, 0.0, 0.0], [0.4, 0.6, 0.0], [0.80, 0.02, 0.18]])
    fig = show_wei(wei, labels="hou", stage="softmax").figure
    text = alt_text(fig)
    assert "'hou'" in text and "softmaxed weights" in text and "3 masked cells hatched" in text
    assert "2 u → 0 h 0.80" in text and "1 o → 1 o 0.60" in text
    scores = show_wei(torch.tensor([[1.0, -math.inf], [4.0, 2.0]]), labels="hu", stage="masked").figure
    assert "masked scores" in alt_text(scores) and "largest values: 1 u → 0 h 4.00; 1 u → 1 u 2.00; 0 h → 0 h 1.00" \
        in alt_text(scores)


def test_tied_weights_and_equal_values_are_described_as_ties_not_as_one_pick():
    wei = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.4, 0.4, 0.2]])
    text = alt_text(show_wei(wei, labels="hou", stage="softmax").figure)
    assert "1 o → all 0.50 each" in text and "2 u → 0 h and 1 o 0.40 each" in text and "0 h → 0 h 1.00" in text
    zeros = alt_text(show_wei(torch.zeros(3, 3), labels="hou", stage="masked").figure)
    assert "every visible value 0.00" in zeros and "largest values" not in zeros


def test_nan_weights_are_drawn_and_described_where_they_stand():
    nan = float("nan")  # what a learner's weights hold after, e.g., masking the diagonal too
    ax = show_wei(torch.tensor([[nan, nan, nan], [0.5, 0.5, 0.0], [0.2, nan, 0.8]]), labels="hou")
    text = alt_text(ax.figure)
    assert ("NaN in 4 cells (the first: 0 h → 0 h); strongest weight in each row: 1 o → 0 h and 1 o 0.50 each; "
            "2 u → 2 u 0.80.") in text, "a NaN is named on its own, and ranks nowhere"
    assert "nan" in [t.get_text() for t in ax.texts], "a NaN cell says so"
    scores = alt_text(show_wei(torch.tensor([[nan, 1.0, 2.0], [3.0, nan, 0.5]]), stage="raw", causal=False).figure)
    assert "NaN in 2 cells (the first: 0 → 0); largest values: 1 → 0 3.00; 0 → 2 2.00; 0 → 1 1.00." in scores
    empty = alt_text(show_wei(torch.full((2, 2), nan), stage="raw", causal=False).figure)
    assert empty.endswith("NaN in 4 cells (the first: 0 → 0); no cell holds a number.")
    one = alt_text(show_wei(torch.tensor([[1.0, 0.0], [0.5, 0.5]])).figure)
    assert "1 masked cell hatched" in one
    plt.close("all")


def test_an_empty_loss_history_is_refused_with_what_to_do():
    open_before = plt.get_fignums()
    with pytest.raises(ValueError, match="history is empty: train.. records losses only every eval_interval steps"):
        plot_losses([])
    assert plt.get_fignums() == open_before, "no figure is left half-drawn"


def test_a_one_row_heatmap_is_described_as_one_row():
    assert ", 1 row × 4 columns" in alt_text(show_wei(torch.tensor([[2.0, -1.0, 3.0, 5.0]]), stage="raw").figure)
    assert ", 1 row × 1 column" in alt_text(show_wei(torch.ones(1, 1), labels="a").figure)


def test_panels_side_by_side_are_each_described():
    fig = show_wei_stages([(torch.eye(3), "weights", "wei for 'hou'", "hou"), (torch.eye(3), "weights", "you", "you")])
    text = alt_text(fig)
    assert text.startswith("A figure of 2 heatmaps.") and "'hou'" in text and "'you'" in text


def test_a_loss_plot_says_where_its_curves_start_and_end():
    ax = plot_losses([{"step": 0, "train": 4.2, "val": 4.3}, {"step": 300, "train": 2.51, "val": 2.55}],
                     reference=2.49, reference_label="bigram")
    text = alt_text(ax.figure)
    assert "step 0 to step 300" in text and "train 4.20 to 2.51, val 4.30 to 2.55" in text and "2.49 (bigram)" in text


def test_any_other_figure_is_described_by_its_titles_axis_names_and_legend():
    fig, (left, right) = plt.subplots(1, 2)
    left.plot([1, 2], label="naive, masked")
    left.plot([2, 1], label="fused")
    left.set(title="time on cpu", xlabel="T (positions)", ylabel="seconds")
    left.legend()
    fig.suptitle("cost")
    # each legend entry quoted, so that entries which hold commas of their own do not run together
    assert alt_text(fig) == ("cost. 2 panels: 'time on cpu'; T (positions) across, seconds up; legend: "
                             "'naive, masked', 'fused'. a plot.")
    fig.set_label("Two log-log plots of cost against T.")
    assert alt_text(fig) == "Two log-log plots of cost against T."
    assert figure_alt_metadata(fig) == ({}, {"image/png": {"alt": "Two log-log plots of cost against T."}})


def test_ipython_stores_the_alt_text_beside_the_png():
    from IPython.core.interactiveshell import InteractiveShell

    assert register_alt_text() is False  # pytest is not IPython: nothing to register, nothing breaks
    shell = InteractiveShell.instance()
    try:
        from IPython.core.pylabtools import select_figure_formats

        select_figure_formats(shell, {"png"})  # what the inline backend registers for a Figure
        assert register_alt_text(shell) is True
        fig = show_wei(torch.eye(2), labels="ab", stage="weights").figure
        data, metadata = shell.display_formatter.format(fig)
        assert data["image/png"] and metadata["image/png"]["alt"] == alt_text(fig)
        select_figure_formats(shell, {"png"})  # matplotlib registering its formatters again keeps ours
        assert shell.display_formatter.format(fig)[1]["image/png"]["alt"] == alt_text(fig)
    finally:
        InteractiveShell.clear_instance()


# Attention as a graph (notebook 08) --------------------------------------------------------------------------


def arrows_and_loops(ax):
    return (sum(isinstance(p, FancyArrowPatch) for p in ax.patches), sum(isinstance(p, Arc) for p in ax.patches))


def test_graph_has_one_edge_per_nonzero_weight_and_none_for_masked_cells():
    wei = torch.tensor([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.5, 0.2, 0.3]])
    assert arrows_and_loops(draw_graph(wei, "hou")) == (3, 3)
    full = torch.full((3, 3), 1 / 3)
    assert arrows_and_loops(draw_graph(full, "hou")) == (6, 3)
    plt.close("all")


def test_graph_edge_width_follows_the_weight_and_faint_edges_stay_visible():
    ax = draw_graph(torch.tensor([[1.0, 0.0], [0.25, 0.75]]), "ab")
    (arrow,) = [p for p in ax.patches if isinstance(p, FancyArrowPatch)]
    loop_widths = sorted(p.get_linewidth() for p in ax.patches if isinstance(p, Arc))
    assert loop_widths[0] == pytest.approx(loop_widths[1] * 0.75, rel=1e-6)  # self-weights 0.75 and 1
    assert arrow.get_linewidth() == pytest.approx(loop_widths[1] * 0.25, rel=1e-6)  # weight 0.25
    (faint,) = [p for p in draw_graph(torch.tensor([[1.0, 0.0], [0.01, 0.99]]), "ab").patches
                if isinstance(p, FancyArrowPatch)]
    assert faint.get_linewidth() == MIN_EDGE_WIDTH  # weight 0.01 would be a hairline
    plt.close("all")


def test_graph_arrowheads_stop_at_the_node_rims_where_they_can_be_seen():
    ax = draw_graph(torch.tensor([[1.0, 0.0, 0.0], [0.3, 0.7, 0.0], [0.9, 0.05, 0.05]]), "hou")
    ax.figure.draw_without_rendering()
    nodes = {round(c.center[0]): c for c in ax.patches if isinstance(c, Circle)}
    for arrow in (p for p in ax.patches if isinstance(p, FancyArrowPatch)):
        outline = arrow.get_path().vertices  # data coordinates (equal on both axes), head included
        for node in nodes.values():  # no part of an arrow is hidden under a node
            assert (((outline - node.center) ** 2).sum(1) ** 0.5 >= 0.98 * node.radius).all()
    plt.close("all")


def test_graph_keeps_each_rows_strongest_edges_when_asked():
    wei = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.3, 0.7, 0.0, 0.0], [0.1, 0.6, 0.3, 0.0], [0.4, 0.05, 0.15, 0.4]])
    edges = graph_edges(wei, per_row=2)
    assert [(t, s) for t, s, _ in edges] == [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2), (3, 0), (3, 3)]
    assert [w for _, _, w in edges] == pytest.approx([1.0, 0.3, 0.7, 0.6, 0.3, 0.4, 0.4])
    assert len(graph_edges(wei)) == 10  # every non-zero weight
    ax = draw_graph(wei, "thou", per_row=2)
    assert arrows_and_loops(ax) == (3, 4)
    assert "strongest" in ax.get_legend().get_title().get_text()
    assert ax.get_label().startswith("Attention drawn as a graph over the 4 positions of 'thou': 7 arrows")
    plt.close("all")


def test_graph_legend_names_future_edges_only_when_there_are_some():
    causal = torch.tensor([[1.0, 0.0], [0.5, 0.5]])
    labels = [t.get_text() for t in draw_graph(causal, "ab").get_legend().get_texts()]
    assert labels == ["from the past, or itself"]
    labels = [t.get_text() for t in draw_graph(torch.full((2, 2), 0.5), "ab").get_legend().get_texts()]
    assert labels == ["from the past, or itself", "from the future"]
    plt.close("all")


def test_graph_without_a_legend_gives_its_room_to_the_arrows():
    causal = torch.tensor([[1.0, 0.0], [0.5, 0.5]])
    with_legend, without = draw_graph(causal, "ab"), draw_graph(causal, "ab", legend=False)
    assert without.get_legend() is None and with_legend.get_legend() is not None
    assert without.get_ylim()[0] > with_legend.get_ylim()[0]  # less room below the nodes
    assert without.get_ylim()[1] == with_legend.get_ylim()[1]
    future = draw_graph(torch.full((2, 2), 0.5), "ab", legend=False)
    assert future.get_ylim() == draw_graph(torch.full((2, 2), 0.5), "ab").get_ylim()  # arcs below the nodes keep theirs
    plt.close("all")


@pytest.mark.parametrize("per_row, kept", [(None, "(one per non-zero weight)"),
                                           (1, "(each position's strongest weight)"),
                                           (2, "(each position's 2 strongest weights)")])
def test_graph_description_says_which_arrows_it_keeps(per_row, kept):
    ax = draw_graph(torch.full((3, 3), 1 / 3).tril(), "hou", per_row=per_row)
    assert kept in ax.get_label()
    plt.close("all")


def test_graph_text_is_projector_sized():
    fig = draw_graph(torch.full((8, 8), 1 / 8).tril(), "thou art").figure
    assert min(size for _, _, size in figure_texts(fig)) >= 16  # 12 pt at 100 dpi
    plt.close(fig)


@pytest.mark.parametrize("wei, labels, phrase", [(torch.ones(2, 3) / 3, "ab", "square"),
                                                 (torch.eye(2), "abc", "one label per position")])
def test_graph_refuses_a_shape_that_does_not_match_its_labels(wei, labels, phrase):
    with pytest.raises(ValueError, match=phrase):
        draw_graph(wei, labels)


@pytest.mark.parametrize("per_row", [0, 1.5, True])
def test_graph_refuses_a_per_row_that_is_not_a_count(per_row):
    with pytest.raises(ValueError, match="per_row"):
        graph_edges(torch.eye(2), per_row)
