"""Pictures of `wei` (who looks at whom, and how much) and of training progress."""

import math

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.patches import PathPatch
from matplotlib.path import Path

# stage name → (title text, whether the values are weights drawn on a fixed 0–1 scale)
STAGES = {
    "raw": ("raw scores", False),
    "masked": ("masked scores (future = −∞)", False),
    "softmax": ("softmaxed weights (rows sum to 1)", True),
    "weights": ("weights (rows sum to 1)", True),
    "visibility": ("who may see whom (1 = visible)", True),
}
# axis_names → (row axis label, column axis label); "qk" is for notebooks 05 on, once q and k exist
AXIS_NAMES = {
    "plain": ("position looking (row)", "position looked at (column)"),
    "qk": ("query: the position looking", "key: the position looked at"),
}
OUT_OF_RANGE = "#f59e0b"  # a "weight" below 0 or above 1 is painted orange: it is not a real weight
MASKED_GREY = "#d9d9d9"
HATCH_GREY = "#8c8c8c"
ANNOTATE_UP_TO = 12  # write each cell's value when the matrix is at most this wide
MAX_TICKS = 32  # above this many positions, label every k-th one
MAX_FIGURE_INCHES = 9.0  # a single heatmap never grows beyond this, however long the sequence
MAX_STAGES_WIDTH = 14.0  # panels side by side wrap onto a new row beyond this width (three always fit)
CELL_INCHES = 0.5  # a cell that holds a number in a legible font
_SHOWN_AS = {" ": "␣", "\n": "↵", "\t": "⇥"}


def char_label(ch: str) -> str:
    """A printable tick label for one character (space and newline made visible)."""
    return _SHOWN_AS.get(ch, ch)


def stage_info(stage: str) -> tuple[str, bool]:
    """(title text, whether it is a weights stage) for a stage name, or a clear error."""
    if stage not in STAGES:
        raise ValueError(f"Unknown stage {stage!r}: use one of {', '.join(STAGES)}.")
    return STAGES[stage]


def tick_labels(labels, n: int) -> list[str]:
    """Tick labels for `n` positions: "0 F", "1 i", … for characters, so a repeated letter stays unambiguous.

    Without labels, the positions alone; labels that are already the positions, or longer names
    (such as "row" or "t=3"), are shown as they are.
    """
    positions = [str(i) for i in range(n)]
    if labels is None:
        return positions
    labels = [str(c) for c in labels]
    if labels == positions or not all(len(c) == 1 for c in labels):
        return [char_label(c) for c in labels]
    return [f"{i} {char_label(c)}" for i, c in enumerate(labels)]


def to_matrix(wei) -> torch.Tensor:
    """One (T, S) float matrix on the CPU from a tensor on any device, an array or nested lists."""
    try:
        m = torch.as_tensor(wei).detach().to("cpu", torch.float32)
    except (TypeError, ValueError, RuntimeError):
        raise ValueError(
            f"show_wei draws a matrix of numbers, not a {type(wei).__name__}: pass a tensor, an array or nested lists."
        ) from None
    while m.dim() > 2 and m.shape[0] == 1:
        m = m[0]
    if m.dim() != 2:
        raise ValueError(
            f"show_wei draws one (T, T) matrix, got shape {tuple(m.shape)}: pass one sequence, e.g. wei[0]."
        )
    if m.numel() == 0:
        raise ValueError(
            f"show_wei got an empty matrix, of shape {tuple(m.shape)}: pass wei for at least one position, e.g. "
            "the weights of a word of one character or more."
        )
    return m


def future_cells(T: int, S: int) -> torch.Tensor:
    """Boolean (T, S): True where a key lies in the query's future (the last rows end at the last key)."""
    return torch.ones(T, S).triu(diagonal=1 + S - T).bool()


def masked_cells(m: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """Boolean (T, S) matrix: True where a cell is masked (−∞, or in the future when `causal`)."""
    masked = torch.isneginf(m)
    if causal:
        masked |= future_cells(*m.shape)
    return masked


def looks_causal(m: torch.Tensor) -> bool:
    """True for a square matrix whose every future cell holds exactly 0 (causal weights)."""
    T, S = m.shape
    return T == S and T > 1 and bool((m[future_cells(T, S)] == 0).all())


def symmetric_bound(matrices) -> float:
    """The largest |value| among the finite values of all `matrices` (0 when there are none)."""
    finite = [m[torch.isfinite(m)] for m in matrices]
    return max((float(f.abs().max()) for f in finite if f.numel()), default=0.0)


def colour_scale(is_weights: bool, bound: float):
    """(vmin, vmax, colour map, whether a colour bar means anything) for weights or scores."""
    if is_weights:
        cmap = plt.get_cmap("Blues").with_extremes(bad=MASKED_GREY, under=OUT_OF_RANGE, over=OUT_OF_RANGE)
        return 0.0, 1.0, cmap, True
    cmap = plt.get_cmap("RdBu_r").with_extremes(bad=MASKED_GREY)
    if bound == 0:  # every score is 0 (or masked): a colour bar would only show a made-up scale
        return -1.0, 1.0, cmap, False
    return -bound, bound, cmap, True


def masked_runs(masked: torch.Tensor) -> list[tuple[int, int, int]]:
    """(row, first column, one past the last column) of each horizontal run of masked cells."""
    runs = []
    padded = torch.nn.functional.pad(masked.to(torch.int8), (1, 1))
    edges = padded.diff(dim=1)  # +1 where a run starts, −1 one past where it ends
    for i, (starts, stops) in enumerate(zip((edges == 1).tolist(), (edges == -1).tolist(), strict=True)):
        begin = [j for j, s in enumerate(starts) if s]
        end = [j for j, s in enumerate(stops) if s]
        runs.extend((i, a, b) for a, b in zip(begin, end, strict=True))
    return runs


def hatch_masked(ax, masked: torch.Tensor):
    """Hatch every masked cell with ONE patch (one rectangle per run of cells), so size costs nothing."""
    runs = masked_runs(masked)
    if not runs:
        return None
    r = np.array(runs, dtype=float)
    i, a, b = r[:, 0], r[:, 1] - 0.5, r[:, 2] - 0.5
    corners = np.stack([np.stack(xy, axis=1) for xy in [(a, i - 0.5), (b, i - 0.5), (b, i + 0.5), (a, i + 0.5),
                                                        (a, i - 0.5)]], axis=1)
    codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], len(runs))
    patch = PathPatch(Path(corners.reshape(-1, 2), codes), fill=False, hatch="///", edgecolor=HATCH_GREY, linewidth=0)
    return ax.add_patch(patch)


def figure_size(T: int, S: int) -> tuple[float, float]:
    """Inches for one heatmap: legible cells when small, capped at MAX_FIGURE_INCHES when large."""
    cell = CELL_INCHES if max(T, S) <= ANNOTATE_UP_TO else min(CELL_INCHES, 6.5 / max(T, S))
    return min(cell * S + 2.6, MAX_FIGURE_INCHES), min(cell * T + 1.8, MAX_FIGURE_INCHES)


def cell_points(ax, T: int, S: int) -> float:
    """The side of one (square) cell on the page, in points, from the axes' size."""
    box = ax.get_position()
    width, height = ax.figure.get_size_inches()
    return 72 * min(box.width * width / S, box.height * height / T)


def set_position_ticks(ax, rows: list[str], cols: list[str]) -> None:
    """Label positions on both axes (every k-th one when there are more than MAX_TICKS), keys on top."""
    size = 12 if max(len(rows), len(cols)) <= ANNOTATE_UP_TO else 9
    for labels, set_ticks in ((rows, ax.set_yticks), (cols, ax.set_xticks)):
        every = math.ceil(len(labels) / MAX_TICKS)
        shown = range(0, len(labels), every)
        set_ticks(list(shown), [labels[k] for k in shown], fontsize=size)
    ax.xaxis.tick_top()
    if len(cols) > ANNOTATE_UP_TO or max(map(len, cols), default=0) > 4:
        plt.setp(ax.get_xticklabels(), rotation=90)


def show_wei(wei, labels=None, stage="softmax", ax=None, causal=None, key_labels=None, title=None, mask=None, *,
             bound=None, axis_names="plain"):
    """Draw `wei` as a heatmap: the looking positions down the side, the looked-at positions along the top.

    stage: one of STAGES ('raw', 'masked', 'softmax', 'weights', 'visibility'); it names the panel
    ("wei — raw scores") and picks the colour scale (weights share a fixed 0–1 scale so panels compare).
    causal: also mark the future cells as masked; by default on for weights whose future cells
    all hold exactly 0. mask: optionally, a boolean matrix of wei's shape, True where masked.
    bound: the ± limit of a scores colour scale (show_wei_stages passes one shared by its panels).
    axis_names: "plain" (default, "position looking (row)") or "qk" ("query: the position looking").
    Masked cells are always hatched grey, so a masked cell never looks like a true 0; on the
    weights scale, a value below 0 or above 1 is painted orange. Axis ticks read "0 F", "1 i", …
    Up to 12×12 each cell's value is written; a large matrix is drawn plainly, on a capped figure.
    """
    stage_title, is_weights = stage_info(stage)
    if axis_names not in AXIS_NAMES:
        raise ValueError(f"Unknown axis_names {axis_names!r}: use 'plain' (words) or 'qk' (query and key).")
    m = to_matrix(wei)
    T, S = m.shape
    rows = tick_labels(labels, T)
    cols = tick_labels(key_labels if key_labels is not None else labels, S)
    if len(rows) != T or len(cols) != S:
        raise ValueError(f"wei is {T}×{S} but got {len(rows)} row labels and {len(cols)} column labels.")
    masked = masked_cells(m, causal if causal is not None else is_weights and looks_causal(m))
    if mask is not None:
        mask = torch.as_tensor(mask, device="cpu").bool()
        if mask.shape != m.shape:
            raise ValueError(f"mask has shape {tuple(mask.shape)} but wei is {T}×{S}.")
        masked |= mask

    if bound is None:
        bound = symmetric_bound([m[~masked]])
    vmin, vmax, cmap, with_bar = colour_scale(is_weights, bound)
    if ax is None:
        _, ax = plt.subplots(figsize=figure_size(T, S))
    image = ax.imshow(m.masked_fill(masked, math.nan).numpy(), cmap=cmap, vmin=vmin, vmax=vmax)
    if with_bar:
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    hatch_masked(ax, masked)
    if T <= ANNOTATE_UP_TO and S <= ANNOTATE_UP_TO:
        _annotate(ax, m, masked, is_weights, vmax, whole=stage == "visibility")
    set_position_ticks(ax, rows, cols)
    row_name, col_name = AXIS_NAMES[axis_names]
    ax.set_xlabel(col_name, fontsize=11)
    ax.set_ylabel(row_name, fontsize=11)
    ax.set_title(title or f"wei — {stage_title}", fontsize=12)
    return ax


def cell_value_text(v: float, is_weights: bool, whole: bool = False) -> str:
    """A cell's value as written in it: 0.27 for weights, −1.2 for scores, 1 for a 0/1 mark (never "−0.0")."""
    text = f"{v:.0f}" if whole else f"{v:.2f}" if is_weights else f"{v:.1f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text.replace("-", "−")


def fit_cell_text(ax) -> None:
    """Size the numbers written in the cells to the cells as drawn now (four characters fit one)."""
    T, S = ax.images[0].get_array().shape
    size = min(15.0, max(7.0, 0.36 * cell_points(ax, T, S)))
    for text in ax.texts:
        text.set_fontsize(size)


def _annotate(ax, m, masked, is_weights, vmax, whole=False):
    """Write each cell's value (−∞ for masked scores) in a colour readable on its background."""
    T, S = m.shape
    for i in range(T):
        for j in range(S):
            v = float(m[i, j])
            if masked[i, j]:
                text, colour = ("−∞" if v == -math.inf else ""), "black"
            else:
                text = cell_value_text(v, is_weights, whole)
                colour = "white" if abs(v) > 0.6 * vmax else "black"
            if text:
                # masked cells: a white box keeps "−∞" readable on top of the grey hatching
                box = {"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"} if masked[i, j] else None
                ax.text(j, i, text, ha="center", va="center", color=colour, bbox=box)
    fit_cell_text(ax)


def panel_size(T: int, S: int) -> float:
    """Inches for one square panel of show_wei_stages: room for legible numbers when small."""
    n = max(T, S)
    cell = 0.42 if n <= ANNOTATE_UP_TO else min(0.42, 3.6 / n)
    return min(cell * n + 1.9, 4.8)


def show_wei_stages(panels, labels=None, causal=None, size=None, axis_names="plain", ncols=None):
    """Draw several `wei` matrices side by side (wrapping onto more rows beyond 14 inches, or after `ncols`).

    `panels` is a list of (wei, stage), (wei, stage, title) or (wei, stage, title, labels) tuples, the
    last for a panel with characters of its own (two different words side by side); returns the figure.
    Score panels share one colour scale (± the largest finite score of any of them); weight
    panels share the fixed 0–1 scale. `size` is each panel's side in inches (chosen to fit by default).
    """
    if not isinstance(panels, (list, tuple)) or not panels or not all(
        isinstance(panel, (list, tuple)) and 2 <= len(panel) <= 4 for panel in panels
    ):
        raise ValueError(
            "show_wei_stages draws a list of panels, each a (wei, stage) pair, e.g. [(scores, 'raw'), (wei, "
            "'softmax')]; to draw one matrix alone, use show_wei(wei)."
        )
    matrices = [to_matrix(wei) for wei, *_ in panels]
    is_weights = [stage_info(stage)[1] for _, stage, *_ in panels]
    bound = symmetric_bound([m for m, weights in zip(matrices, is_weights, strict=True) if not weights])
    size = size or min(panel_size(*matrices[0].shape), MAX_STAGES_WIDTH / min(len(panels), 3))
    ncols = ncols or max(1, min(len(panels), int(MAX_STAGES_WIDTH / size + 1e-6)))  # + 1e-6: 14 / (14 / 3) is 3
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols + 0.5, size * nrows), squeeze=False)
    for ax, m, (_, stage, *rest) in zip(axes.flat, matrices, panels, strict=False):
        title, own_labels = (rest + [None, None])[:2]
        show_wei(m, own_labels if own_labels is not None else labels, stage=stage, ax=ax, causal=causal, title=title,
                 bound=bound, axis_names=axis_names)
    for ax in axes.flat[len(panels):]:
        ax.remove()
    fig.tight_layout()
    for ax in fig.axes:
        if ax.images and ax.texts:
            fit_cell_text(ax)  # the layout has grown the panels: grow their numbers too
    return fig


def plot_losses(history, reference=None, reference_label=None, ax=None):
    """Plot train and val loss from `train()`'s history, with an optional horizontal reference line."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    steps = [h["step"] for h in history]
    ax.plot(steps, [h["train"] for h in history], marker="o", label="train")
    ax.plot(steps, [h["val"] for h in history], marker="o", label="val")
    if reference is not None:
        ax.axhline(reference, color="grey", linestyle="--", label=reference_label or f"{reference:.2f}")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.legend()
    return ax
