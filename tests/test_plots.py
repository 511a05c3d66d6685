"""The wei heatmap: labels, masked cells, colour scales, devices and shapes."""

import math

import matplotlib
import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.patches import Rectangle

from helpers.plots import char_label, masked_cells, plot_losses, show_wei, show_wei_stages, to_matrix


def hatched(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch()]


def cell_texts(ax):
    return [t.get_text() for t in ax.texts]


def test_characters_label_both_axes_and_space_is_visible():
    ax = show_wei(torch.full((3, 3), 1 / 3), labels="h u", stage="weights", causal=False)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["h", "␣", "u"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["h", "␣", "u"]
    assert char_label("\n") == "↵"


def test_masked_scores_are_hatched_and_marked_minus_infinity():
    scores = torch.tensor([[1.0, -math.inf], [2.0, 3.0]])
    ax = show_wei(scores, labels="ab", stage="masked")
    assert len(hatched(ax)) == 1
    assert "−∞" in cell_texts(ax)
    assert "masked" in ax.get_title()


def test_masked_weights_differ_from_true_zeros():
    # Softmaxed weights hold 0 in the future; with the causal mask those cells are hatched, a real 0 is not.
    wei = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.0]])
    ax = show_wei(wei, labels="abc", stage="softmax")
    assert len(hatched(ax)) == 3  # the upper triangle only
    assert cell_texts(ax).count("0.00") == 2  # the two true zeros below the diagonal are written out


def test_weights_share_a_fixed_zero_to_one_scale():
    ax = show_wei(torch.tensor([[0.2, 0.0], [0.1, 0.1]]), stage="weights", causal=False)
    assert ax.images[0].get_clim() == (0.0, 1.0)


def test_scores_use_a_scale_centred_on_zero():
    ax = show_wei(torch.tensor([[-4.0, 1.0], [2.0, 3.0]]), stage="raw")
    assert ax.images[0].get_clim() == (-4.0, 4.0)


def test_title_names_the_stage():
    assert "raw scores" in show_wei(torch.zeros(2, 2), stage="raw").get_title()
    assert "softmaxed" in show_wei(torch.eye(2), stage="softmax").get_title()


def test_accepts_lists_grad_tensors_and_a_batch_of_one():
    assert to_matrix([[1, 0], [0.5, 0.5]]).shape == (2, 2)
    assert to_matrix(torch.ones(1, 3, 3, requires_grad=True)).shape == (3, 3)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_accepts_gpu_tensors():
    show_wei(torch.eye(3, device="cuda"), labels="hou")


def test_big_matrices_are_drawn_without_numbers():
    ax = show_wei(torch.rand(20, 20), stage="weights", causal=False)
    assert cell_texts(ax) == []


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: show_wei(torch.ones(2, 3, 3)), "pass one sequence"),
        (lambda: show_wei(torch.eye(2), stage="final"), "Unknown stage"),
        (lambda: show_wei(torch.eye(3), labels="ab"), "3×3 but got 2 row labels"),
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


def test_plot_losses_draws_train_val_and_reference():
    history = [{"step": 0, "train": 4.0, "val": 4.1}, {"step": 10, "train": 3.0, "val": 3.2}]
    ax = plot_losses(history, reference=2.49)
    assert [line.get_label() for line in ax.lines] == ["train", "val", "2.49"]
    plt.close(ax.figure)


def test_all_zero_scores_get_a_readable_scale():
    ax = show_wei(torch.zeros(3, 3), stage="raw")
    assert ax.images[0].get_clim() == (-1.0, 1.0)


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
