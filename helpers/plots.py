"""Pictures of `wei` (who looks at whom, and how much) and of training progress, readable on a projector.

Importing this module applies COURSE_STYLE (matplotlib's text sizes) and, inside IPython, registers
`figure_alt_metadata`, so every matplotlib Figure the course shows carries alt text (see below).
"""

import functools
import itertools
import math
from typing import NamedTuple

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Arc, Circle, FancyArrowPatch, PathPatch
from matplotlib.path import Path
from matplotlib.textpath import text_to_path

from .words import counted, listed

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
    "qk": ("query: position looking", "key: position looked at"),
}
OUT_OF_RANGE = "#f59e0b"  # a "weight" below 0 or above 1 is painted orange: it is not a real weight
MASKED_GREY = "#d9d9d9"
HATCH_GREY = "#8c8c8c"
ANNOTATE_UP_TO = 12  # write each cell's value when the matrix is at most this wide
MAX_TICKS = 32  # above this many positions, label every k-th one
MAX_FIGURE_INCHES = 9.0  # a single heatmap never grows beyond this, however long the sequence
MAX_STAGES_WIDTH = 11.5  # panels side by side wrap onto a new row beyond this width (three always fit)
TEXT_GAP_PX = 6  # the least room between two texts of a figure
TITLE_GAP_PX = 16  # between two panels' titles, about two letters: closer, they read as one line
CELL_INCHES = 0.5  # a cell that holds a number in a legible font
# Text on a projector: at 1280×720 every text must be at least 16 px. Figures are drawn at 100 dpi and shown
# at their own size, so 12 pt is 12 × 100 / 72 ≈ 16.7 px; nothing in a course figure is smaller.
TEXT_PT = 12
TITLE_PT = 13
CELL_TEXT_PT = (8, 15)  # the numbers in cells grow with the cells; cells are sized so that they get TEXT_PT or more
CELL_TEXT_SHARE = 0.37  # a number in a cell is at most this share of the cell's side: "−0.9" (2.4 em) fills 90 %
CELL_TEXT_FILL = 0.9  # ... and a wider one ("−1.2e3", 3.7 em) shrinks to fill no more of the cell's width than that
COURSE_STYLE = {
    "figure.dpi": 100,
    "font.size": TEXT_PT,  # ticks, axis labels and legends ("medium") follow it
    "axes.titlesize": TITLE_PT,
    "legend.title_fontsize": TEXT_PT,
    "figure.titlesize": TITLE_PT + 1,
}


def char_label(ch: str) -> str:
    """A printable tick label for one character (space and newline made visible)."""
    return {" ": "␣", "\n": "↵", "\t": "⇥"}.get(ch, ch)


def stage_info(stage: str) -> tuple[str, bool]:
    """(title text, whether it is a weights stage) for a stage name, or a clear error."""
    if stage not in STAGES:
        raise ValueError(f"Unknown stage {stage!r}: use one of {', '.join(STAGES)}.")
    return STAGES[stage]


def tick_labels(labels, n: int) -> list[str]:
    """Tick labels for `n` positions: "0 F", "1 i", … for characters, so a repeated letter stays unambiguous.
    Without labels, the positions alone; labels that are the positions, or longer names ("row", "t=3"), as they are."""
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
        raise ValueError(f"show_wei draws a matrix of numbers, not a {type(wei).__name__}: pass a tensor, an array "
                         "or nested lists.") from None
    while m.dim() > 2 and m.shape[0] == 1:
        m = m[0]
    if m.dim() != 2:
        raise ValueError(f"show_wei draws one (T, T) matrix, got shape {tuple(m.shape)}: pass one sequence, "
                         "e.g. wei[0].")
    if m.numel() == 0:
        raise ValueError(f"show_wei got an empty matrix, of shape {tuple(m.shape)}: pass wei for at least one "
                         "position, e.g. the weights of a word of one character or more.")
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
    edges = torch.nn.functional.pad(masked.to(torch.int8), (1, 1)).diff(dim=1)  # +1 at a start, −1 one past its end
    starts, stops = (edges == 1).nonzero().tolist(), (edges == -1).nonzero().tolist()  # both in reading order
    return [(i, a, b) for (i, a), (_, b) in zip(starts, stops, strict=True)]


def hatch_masked(ax, masked: torch.Tensor):
    """Hatch every masked cell with ONE patch (one rectangle per run of cells), so size costs nothing."""
    runs = masked_runs(masked)
    if runs:
        top, left, right = np.array(runs, dtype=float).T - 0.5  # cell (i, j) spans i ± 0.5 down, j ± 0.5 across
        bottom = top + 1
        corners = np.stack([left, top, right, top, right, bottom, left, bottom, left, top], axis=1).reshape(-1, 2)
        codes = np.tile([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], len(runs))
        ax.add_patch(PathPatch(Path(corners, codes), fill=False, hatch="///", edgecolor=HATCH_GREY, linewidth=0))


def figure_size(T: int, S: int) -> tuple[float, float]:
    """Inches for one heatmap: legible cells when small, capped at MAX_FIGURE_INCHES when large."""
    cell = CELL_INCHES if max(T, S) <= ANNOTATE_UP_TO else min(CELL_INCHES, 6.5 / max(T, S))
    return min(cell * S + 2.6, MAX_FIGURE_INCHES), min(cell * T + 1.8, MAX_FIGURE_INCHES)


def set_position_ticks(ax, rows: list[str], cols: list[str]) -> None:
    """Label positions on both axes (every k-th one when there are more than MAX_TICKS), keys on top."""
    for labels, set_ticks in ((rows, ax.set_yticks), (cols, ax.set_xticks)):
        every = math.ceil(len(labels) / MAX_TICKS)
        shown = range(0, len(labels), every)
        set_ticks(list(shown), [labels[k] for k in shown], fontsize=TEXT_PT)
    ax.xaxis.tick_top()
    if len(cols) > ANNOTATE_UP_TO or max(map(len, cols), default=0) > 4:
        plt.setp(ax.get_xticklabels(), rotation=90)


def show_wei(wei, labels=None, *, stage="softmax", ax=None, causal=None, key_labels=None, title=None, mask=None,
             bound=None, axis_names="plain", colour_bar=True):
    """Draw `wei` as a heatmap: the looking positions down the side, the looked-at positions along the top.

    stage: one of STAGES ('raw', 'masked', 'softmax', 'weights', 'visibility'); it names the panel ("wei — raw
    scores") and picks the colour scale (weights share a fixed 0–1 scale so panels compare).
    causal: also mark the future cells as masked; by default on for weights whose future cells all hold exactly 0.
    mask: optionally, a boolean matrix of wei's shape, True where masked.
    bound: the ± limit of a scores colour scale (show_wei_stages passes one shared by its panels).
    axis_names: "plain" (default, "position looking (row)") or "qk" ("query: position looking").
    colour_bar: False leaves the colour bar out (show_wei_stages draws one per group of panels that share a scale);
    a 'visibility' panel never has one.
    Every text is TEXT_PT or larger; the axes get a label (`ax.get_label()`) describing the heatmap, which is the
    figure's alt text when show_wei drew the figure itself. Masked cells are always hatched grey, so a masked cell
    never looks like a true 0; on the weights scale, a value below 0 or above 1 is painted orange. Axis ticks read
    "0 F", "1 i", … Up to 12×12 each cell's value is written; a large matrix is drawn plainly, on a capped figure.
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
    ax, own_figure = own_axes(ax, figure_size(T, S))
    # float64 for the colour scale: matplotlib subtracts vmin, which overflows float32 for scores near ±3.4e38
    image = ax.imshow(m.masked_fill(masked, math.nan).double().numpy(), cmap=cmap, vmin=vmin, vmax=vmax)
    if with_bar and colour_bar and stage != "visibility":  # as tall as the heatmap, just right of it (0/1 marks,
        # written in their cells, need no scale)
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04).ax.tick_params(labelsize=TEXT_PT)
    hatch_masked(ax, masked)
    if T <= ANNOTATE_UP_TO and S <= ANNOTATE_UP_TO:
        _annotate(ax, m, masked, is_weights, whole=stage == "visibility")
    set_position_ticks(ax, rows, cols)
    row_name, col_name = AXIS_NAMES[axis_names]
    ax.set_xlabel(col_name, fontsize=TEXT_PT)
    ax.set_ylabel(row_name, fontsize=TEXT_PT)
    ax.set_title(title or f"wei — {stage_title}", fontsize=TITLE_PT)
    return labelled(ax, describe_wei(m, masked, labels, rows, cols, ax.get_title(), is_weights), own_figure)


def own_axes(ax, figsize, **subplots):
    """(ax, False) for axes the caller passed; (new axes on a figure of `figsize`, True) when `ax` is None."""
    return (ax, False) if ax is not None else (plt.subplots(figsize=figsize, **subplots)[1], True)


def labelled(ax, description: str, own_figure: bool):
    """Label `ax` with its description, and its figure too when the helper made it (the figure's alt text)."""
    ax.set_label(description)
    if own_figure:
        ax.figure.set_label(description)
    return ax


def describe_wei(m, masked, labels, rows, cols, title, is_weights) -> str:
    """Alt text for one heatmap: the word, the stage (its title) and where the strongest values are."""
    T, S = m.shape
    word = "".join(map(str, labels)) if labels is not None and all(len(str(c)) == 1 for c in labels) else None
    what = f"Heatmap '{title}'" + (f" for {word!r}" if word else "") + f", {counted(T, 'row')} × {counted(S, 'column')}"
    nan = torch.isnan(m) & ~masked
    values = m.masked_fill(masked | nan, -math.inf)  # a NaN ranks nowhere: it is named on its own
    say = (lambda v: cell_value_text(v, True)) if is_weights else (lambda v: f"{v:.2f}")  # weights as their cells
    if (masked | nan).all():
        strongest = "no cell holds a number"
    elif T <= ANNOTATE_UP_TO and is_weights:
        parts = [strongest_in_row(rows[i], cols, values[i]) for i in range(T) if not (masked | nan)[i].all()]
        strongest = "strongest weight in each row: " + "; ".join(parts)
    else:
        flat = values.flatten()
        visible = flat[flat > -math.inf]
        if len(visible) > 1 and (visible == visible[0]).all():  # no value stands out: naming three would mislead
            strongest = f"every visible value {say(float(visible[0]))}"
        else:
            order = [k for k in flat.argsort(descending=True).tolist()[:3] if flat[k] > -math.inf]
            parts = [f"{rows[k // S]} → {cols[k % S]} {say(float(flat[k]))}" for k in order]
            strongest = "largest values: " + "; ".join(parts)
    hidden = int(masked.sum())
    notes = f", {counted(hidden, 'masked cell')} hatched" if hidden else ""
    if nan.any():
        i, j = (int(k) for k in nan.nonzero()[0])
        notes += f", NaN in {counted(int(nan.sum()), 'cell')} (the first: {rows[i]} → {cols[j]})"
    return f"{what} (row looks at column){notes}; {strongest}."


def strongest_in_row(row: str, cols, values: torch.Tensor) -> str:
    """One row's strongest visible weight for alt text ("1 o → 0 h 0.70", written as in its cell: "≈1" for 0.9999),
    naming every column that ties for it."""
    top = values.max()
    tied = [cols[j] for j in (values == top).nonzero().flatten().tolist()]
    visible = int((values > -math.inf).sum())
    weight = cell_value_text(float(top), is_weights=True)
    if len(tied) == 1:
        return f"{row} → {tied[0]} {weight}"
    return f"{row} → {'all' if len(tied) == visible else listed(tied)} {weight} each"


def cell_value_text(v: float, is_weights: bool, whole: bool = False) -> str:
    """A cell's value as written in it: 0.27 for weights, −1.2 for scores, 1 for a 0/1 mark (never "−0.0");
    a weight that two decimals would round to 0 or 1 but is neither, ≈0 or ≈1 (only an exact 0 or 1 reads
    0.00 or 1.00, on either side: −0.001 and 1.003, painted as out of range, are ≈0 and ≈1 too); a large value
    short enough for its cell: 123 from 100 on, 1.2e3 from 1,000 on."""
    if is_weights and not whole and f"{v:.2f}" in ("0.00", "-0.00", "1.00") and v not in (0, 1):
        return "≈0" if abs(v) < 0.5 else "≈1"
    if math.isfinite(v) and abs(v) >= 999.5:
        mantissa, exponent = f"{v:.1e}".split("e")
        return f"{float(mantissa):g}e{int(exponent)}".replace("-", "−")
    text = f"{v:.0f}" if whole or abs(v) >= 99.95 else f"{v:.2f}" if is_weights else f"{v:.1f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text.replace("-", "−")


def fit_cell_text(ax) -> None:
    """Size the numbers written in the cells to the cells as laid out now: four characters fit one, and a wider
    number ("−1.2e3") makes them all smaller, so that none runs into the next cell (down to CELL_TEXT_PT's least)."""
    T, S = ax.images[0].get_array().shape
    box = ax.get_position()
    width, height = ax.figure.get_size_inches()
    cell_points = 72 * min(box.width * width / S, box.height * height / T)  # cells are square
    widest = max((text_ems(text)[0] for text in {t.get_text() for t in ax.texts}), default=1)
    size = min(CELL_TEXT_SHARE * cell_points, CELL_TEXT_FILL * cell_points / widest)
    plt.setp(ax.texts, fontsize=min(CELL_TEXT_PT[1], max(CELL_TEXT_PT[0], size)))


@functools.cache
def text_ems(text: str) -> tuple[float, float]:
    """How wide and how tall `text` is in the course's font, in ems (in points at 1 pt: times a size, its points)."""
    width, height, _ = text_to_path.get_text_width_height_descent(text, FontProperties(size=100), ismath=False)
    return width / 100, height / 100


def fit_numbers_to_cells(fig) -> None:
    """fit_cell_text for every heatmap of the figure, as laid out now (lay it out first: draw it, or run its layout
    engine or tight_layout)."""
    for ax in heatmap_axes(fig):
        fit_cell_text(ax)


def relative_luminance(colour) -> float:
    """WCAG's relative luminance of a matplotlib colour (0 for black, 1 for white)."""
    channels = np.array(matplotlib.colors.to_rgb(colour))
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def contrast_ratio(a, b) -> float:
    """WCAG's contrast ratio between two colours, from 1 (none) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_colour_on(background) -> str:
    """Black or white, whichever stands out more on `background`: either way at least 4.58:1 (WCAG AA)."""
    return "white" if contrast_ratio("white", background) > contrast_ratio("black", background) else "black"


def _annotate(ax, m, masked, is_weights, whole=False):
    """Write each cell's value (−∞ for masked scores) in black or white, whichever reads better on the cell."""
    T, S = m.shape
    image = ax.images[0]
    white_box = {"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"}
    for i, j in itertools.product(range(T), range(S)):
        v = float(m[i, j])
        if not masked[i, j]:
            colour = text_colour_on(image.cmap(image.norm(v)))
            ax.text(j, i, cell_value_text(v, is_weights, whole), ha="center", va="center", color=colour)
        elif v == -math.inf:  # a white box keeps "−∞" readable on top of the grey hatching
            ax.text(j, i, "−∞", ha="center", va="center", color="black", bbox=white_box)
    fit_cell_text(ax)


# Inches a panel of show_wei_stages needs besides its cells: tick labels and axis name on the left (first
# panel of a row only), a gap, and a colour bar with its ticks (last panel of a group sharing a scale).
ROW_NAMES_INCHES, GAP_INCHES, BAR_INCHES = 0.8, 0.2, 0.65
ROW_OVERHEAD_INCHES = 1.1  # a row of panels besides its cells: title, key labels on top, axis name below
STAGE_CELL_INCHES = TEXT_PT / CELL_TEXT_SHARE / 72  # a cell that fits four characters of TEXT_PT (0.45 in)


def panel_size(T: int, S: int) -> float:
    """Inches for the cells of one panel of show_wei_stages: room for TEXT_PT numbers when small."""
    n = max(T, S)
    cell = STAGE_CELL_INCHES if n <= ANNOTATE_UP_TO else min(STAGE_CELL_INCHES, 3.6 / n)
    return min(cell * max(n, 3), 4.8)  # never narrower than three cells: a title and an axis name need the room


class Panel(NamedTuple):
    """One panel of show_wei_stages: a matrix, its stage (one of STAGES), and optionally a title, and labels of its
    own (two different words side by side); without them the panel is titled by its stage and takes the figure's
    labels. A plain tuple in this order, (wei, "raw") or (wei, "softmax", "a title"), works as well."""

    wei: object
    stage: str
    title: str | None = None
    labels: object = None


def two_lines(text: str) -> str:
    """`text` broken once: after its colon, "query:\nposition looking"; before its bracket, "wei — masked
    scores\n(future = −∞)"; else at the middlemost space."""
    if ": " in text:
        return text.replace(": ", ":\n", 1)
    if " (" in text:
        return text.replace(" (", "\n(", 1)
    cut = min((i for i, c in enumerate(text) if c == " "), key=lambda i: abs(i - len(text) / 2), default=None)
    return text if cut is None else f"{text[:cut]}\n{text[cut + 1:]}"


def text_boxes(fig) -> dict:
    """Each visible title, axis name and tick label of the figure as laid out now → (its axes, whether it is a tick
    label, its box in pixels). Measured once per layout: measuring a text is the slow part of finding clashes."""
    boxes = {}
    for ax in fig.axes:
        names = [ax.title, ax.xaxis.label, ax.yaxis.label]
        for text in names + ax.get_xticklabels() + ax.get_yticklabels():  # a colour bar's numbers too
            if text.get_visible() and text.get_text().strip():
                boxes[text] = (ax, text not in names, text.get_window_extent())
    return boxes


def clashes(text, ax, boxes: dict) -> bool:
    """Whether `text` (a title or axis name of `ax`) runs into another text of the figure (boxes: text_boxes(fig)),
    a tick label of its own axes aside: closer than TEXT_GAP_PX, or than TITLE_GAP_PX to another panel's title."""
    box = boxes[text][2]
    return any(box.overlaps(other_box.padded(TITLE_GAP_PX if text is ax.title and other is owner.title else
                                             TEXT_GAP_PX))
               for other, (owner, tick, other_box) in boxes.items() if other is not text and not (tick and owner is ax))


def heatmap_axes(fig) -> list:
    """The figure's heatmap panels (axes showing an image), without their colour bars."""
    return [ax for ax in fig.axes if ax.images and not hasattr(ax, "_colorbar")]


def cell_numbers(fig) -> list:
    """The numbers written in the cells of the figure's heatmaps (matplotlib Text objects)."""
    return [text for ax in heatmap_axes(fig) for text in ax.texts]


def numbers_inside_cells(fig) -> bool:
    """Whether every number written in a heatmap of a laid-out figure lies inside its panel. Then the figure lays out
    the same without them, and setting them aside while it is laid out saves measuring each one every time."""
    return all(ax.get_window_extent().padded(0.5).contains(*corner)
               for ax in heatmap_axes(fig) for text in ax.texts for corner in text.get_window_extent().corners())


def smallest_panel_inches(fig) -> float:
    """The side, in inches, of the smallest heatmap of a laid-out figure (its cells keep their aspect)."""
    panels = heatmap_axes(fig)
    for ax in panels:  # shrink each panel to its cells' shape, as drawing it would: the layout alone leaves it unshrunk
        ax.apply_aspect()
    return min(min(ax.get_window_extent().bounds[2:]) for ax in panels) / fig.dpi


def grid_row(ax) -> int:
    """The row of the figure's grid that a panel stands in (0 at the top), laid out or not."""
    return ax.get_subplotspec().rowspan.start


def name_shared_axis_once(fig) -> None:
    """Write the axis names, alike on every panel, once per row, on its first panel: the same words under every panel
    say nothing new and crowd the figure. Best before the first layout."""
    for ax in heatmap_axes(fig):
        if ax.get_subplotspec().colspan.start > 0:
            ax.xaxis.label.set_text("")
            ax.yaxis.label.set_text("")


def panel_names(fig) -> list:
    """(axes, text) for each heatmap's visible title and axis names."""
    return [(ax, text) for ax in heatmap_axes(fig) for text in (ax.title, ax.xaxis.label, ax.yaxis.label)
            if text.get_text().strip()]


def taller_than_its_panel(text, ax, boxes: dict) -> bool:
    """Whether `text` is the row name of `ax` and taller than the panel, so that it runs past its top and bottom
    (a short panel of three rows, say). Needs a laid-out figure and its text_boxes."""
    return text is ax.yaxis.label and boxes[text][2].height > ax.get_window_extent().height


def runs_under_another_panel(text, ax, boxes: dict) -> bool:
    """Whether `text` is the column name of `ax` and reaches under another panel of its row, where it would read as
    that panel's name too (a long name under a small panel). Needs a laid-out figure and its text_boxes."""
    if text is not ax.xaxis.label:
        return False
    box = boxes[text][2]
    return any(other is not ax and grid_row(other) == grid_row(ax)
               and box.x1 > other.get_window_extent().x0 and box.x0 < other.get_window_extent().x1
               for other in heatmap_axes(ax.figure))


def wrap_clashing_labels(fig, boxes: dict) -> bool:
    """Put a panel's title or axis name that runs into another text, a row name taller than its panel, or a column
    name reaching under the next panel onto two lines, and the same text on every other panel too, so that the
    panels stay alike. Needs a laid-out figure and its text_boxes; True if any text changed."""
    labels = [(ax, text) for ax, text in panel_names(fig) if "\n" not in text.get_text()]
    clashing = {text.get_text() for ax, text in labels if clashes(text, ax, boxes)
                or taller_than_its_panel(text, ax, boxes) or runs_under_another_panel(text, ax, boxes)}
    for _, text in labels:
        if text.get_text() in clashing:
            text.set_text(two_lines(text.get_text()))
    return bool(clashing)


def show_wei_stages(panels, *, labels=None, causal=None, size=None, axis_names="plain", ncols=None, fig=None):
    """Draw several `wei` matrices side by side, three to a row (or `ncols`), a row at most MAX_STAGES_WIDTH wide.

    `panels` is a list of Panel (or of tuples in its order); returns the figure.
    Score panels share one colour scale (± the largest finite score of any of them); weight panels share the fixed
    0–1 scale. Neighbouring panels on one scale share one colour bar, and a panel with the same row labels as its
    left neighbour leaves them to it. An axis name the panels of a row share is written once, under (or beside) the
    row's first panel. No two texts run into each other: a title or axis name that would goes onto two lines (the
    figure grows to keep its cells), as does a row name taller than its panel and a column name reaching under the
    next panel. `size` is each panel's side in inches (chosen to fit by default). `fig`: draw into this Figure (one
    made without pyplot, say) instead of a new pyplot figure. The figure's label (its alt text) describes every panel.
    """
    if not isinstance(panels, (list, tuple)) or not panels or not all(
            isinstance(panel, (list, tuple)) and 2 <= len(panel) <= 4 for panel in panels):
        raise ValueError("show_wei_stages draws a list of panels, each a (wei, stage) pair, e.g. [(scores, 'raw'), "
                         "(wei, 'softmax')]; to draw one matrix alone, use show_wei(wei).")
    panels = [Panel(*panel) for panel in panels]
    matrices = [to_matrix(panel.wei) for panel in panels]
    is_weights = [stage_info(panel.stage)[1] for panel in panels]
    bound = symmetric_bound([m for m, weights in zip(matrices, is_weights, strict=True) if not weights])
    n = len(panels)
    ncols = ncols or min(n, 3)
    nrows = math.ceil(n / ncols)
    room = (MAX_STAGES_WIDTH - ROW_NAMES_INCHES - BAR_INCHES) / ncols - GAP_INCHES - BAR_INCHES / 2
    side = min(size or max(panel_size(*m.shape) for m in matrices), room)  # a row never outgrows the slide
    panel_inches = side + GAP_INCHES + BAR_INCHES / 2
    figsize = (ROW_NAMES_INCHES + BAR_INCHES + panel_inches * ncols, (side + ROW_OVERHEAD_INCHES) * nrows)
    fig = plt.figure() if fig is None else fig
    fig.set_size_inches(figsize)
    fig.set_layout_engine("constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).flatten()
    row_labels = [labels if panel.labels is None else panel.labels for panel in panels]
    for k, (ax, m, panel) in enumerate(zip(axes, matrices, panels, strict=False)):
        row_end = k % ncols == ncols - 1 or k == n - 1
        scale_ends = row_end or is_weights[k + 1] != is_weights[k]  # all scores share one scale, all weights 0–1
        show_wei(m, row_labels[k], stage=panel.stage, ax=ax, causal=causal, title=panel.title, bound=bound,
                 axis_names=axis_names, colour_bar=scale_ends)
        if k % ncols and row_labels[k] == row_labels[k - 1] and m.shape[0] == matrices[k - 1].shape[0]:
            ax.tick_params(labelleft=False)  # the left neighbour already names these rows
    for ax in axes[n:]:  # the empty places of a last row that is not full
        ax.remove()
    name_shared_axis_once(fig)  # before the first layout, which then leaves no room for the emptied names
    numbers = cell_numbers(fig)
    plt.setp(numbers, visible=False)  # set aside while the panels are laid out: measuring each number is the slow part
    # Constrained layout settles only on its second pass: measured after the first, panels can be 8% taller than
    # drawn, and a row name that fits them runs past the drawn ones. So run the layout once first: the layout alone,
    # without drawing every artist (the same figure, byte for byte, in less time).
    fig.get_layout_engine().execute(fig)
    fig.draw_without_rendering()  # the second pass, every text placed where it is measured below
    fit_numbers_to_cells(fig)
    plt.setp(numbers, visible=True)
    if not numbers_inside_cells(fig):  # some reach out of their panels, so the layout must make room for them
        fig.draw_without_rendering()
        fit_numbers_to_cells(fig)
        numbers = []
    plt.setp(numbers, visible=False)  # inside their panels they change nothing in the layout: aside while panels move
    boxes = text_boxes(fig)
    cells = smallest_panel_inches(fig)
    for _ in range(4):  # each change moves the panels, which may make another clash: look again
        if wrap_clashing_labels(fig, boxes):
            fig.get_layout_engine().execute(fig)  # the layout alone: only the panels' size is read before the draw
            lost = cells - smallest_panel_inches(fig)  # the extra line's height, taken from the cells: give it back
            fig.set_size_inches(fig.get_figwidth(), fig.get_figheight() + max(lost, 0) * nrows)
        elif any(clashes(text, ax, boxes) or runs_under_another_panel(text, ax, boxes)  # on two lines, too wide
                 for ax, text in panel_names(fig)):
            fig.set_size_inches(fig.get_figwidth() + 0.3 * ncols, fig.get_figheight())
        else:
            break
        fig.draw_without_rendering()  # laid out again, every text placed where text_boxes measures it
        fit_numbers_to_cells(fig)
        boxes = text_boxes(fig)
    plt.setp(numbers, visible=True)
    fig.set_label(f"A figure of {n} heatmaps. " + " ".join(ax.get_label() for ax in heatmap_axes(fig)))
    return fig


# Attention as a graph (notebook 08): an arrow from the position read to the position reading
PAST_COLOUR, FUTURE_COLOUR = "#1f77b4", "#d95f02"  # arrows from the past (and loops), arrows from the future
MAX_EDGE_WIDTH = 6.0  # points, for an arrow of weight 1
ARC_BEND = 0.8  # an arc between positions d apart rises d × ARC_BEND / 2 above the nodes: long arcs clear short ones
MIN_EDGE_WIDTH = 0.8  # points: the faintest arrow drawn stays visible


def graph_edges(wei, per_row=None) -> list[tuple[int, int, float]]:
    """The arrows (t, s, weight) to draw for a (T, T) `wei`: every non-zero weight, or each row's `per_row` largest
    (with every weight that ties the last of them: a graph must not pick one of two equal weights as the stronger).
    A weight of exactly 0 is never an arrow, so masked cells never are."""
    w = torch.as_tensor(wei).detach().to("cpu", torch.float32)
    if w.dim() != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"A graph needs a square (T, T) wei, not shape {tuple(w.shape)}.")
    if per_row is not None and (isinstance(per_row, bool) or not isinstance(per_row, int) or per_row < 1):
        raise ValueError(f"per_row is how many arrows each position keeps, a whole number from 1, not {per_row!r}.")
    T = w.shape[0]
    edges = []
    for t in range(T):  # t: the position reading (query)
        least = None if per_row is None else w[t].topk(min(per_row, T)).values[-1]  # the weakest arrow kept
        sources = range(T) if least is None else (w[t] >= least * (1 - 1e-6)).nonzero().flatten().tolist()
        edges += [(t, s, float(w[t, s])) for s in sources if w[t, s] > 0]
    return edges


def kept_arrows(per_row=None) -> str:
    """Which arrows a graph of `per_row` keeps, in words: "every non-zero weight", "each position's strongest"…"""
    if per_row is None:
        return "every non-zero weight"
    return "each position's strongest" if per_row == 1 else f"each position's {per_row} strongest"


def draw_graph(wei, labels, ax=None, title=None, per_row=None, legend=True):
    """Draw `wei` as a directed graph: one node per position, an arrow from key s to query t of width ∝ wei[t, s].

    Arrows from the past bend above the nodes (blue); arrows from the future, which only exist without a mask, bend
    below them (orange). A loop over a node is the position reading itself. A weight of exactly 0 is no arrow at all,
    so masked cells draw nothing. With `per_row`, each position keeps only its `per_row` strongest incoming arrows
    (loops included), so that a long word stays readable; the legend says so. Every arrow is at least MIN_EDGE_WIDTH
    points wide. `legend=False` leaves the legend out, and the room below the nodes kept for it goes to the arrows.
    Returns the axes, labelled with a description.
    """
    T = torch.as_tensor(wei).shape[0]
    edges = graph_edges(wei, per_row)
    if len(labels) != T:
        raise ValueError(f"wei is {T}×{T} but got {len(labels)} labels: give one label per position.")
    ax, own_figure = own_axes(ax, (max(5.0, 1.1 * T + 1), 3.8))
    nodes = [Circle((t, 0), 0.22, facecolor="white", edgecolor="black", zorder=3) for t in range(T)]
    for t, s, weight in edges:
        width = max(MIN_EDGE_WIDTH, MAX_EDGE_WIDTH * weight)
        if s == t:  # a loop over the node: the position reads its own value
            ax.add_patch(Arc((t, 0.33), 0.3, 0.34, theta1=-50, theta2=230, linewidth=width, color=PAST_COLOUR,
                             alpha=0.55))
            continue
        colour = PAST_COLOUR if s < t else FUTURE_COLOUR
        # patchA/patchB end the arrow at the nodes' rims, so its head lies outside the node, not under it
        ax.add_patch(FancyArrowPatch((s, 0.0), (t, 0.0), connectionstyle=f"arc3,rad={-ARC_BEND}", arrowstyle="-|>",
                                     mutation_scale=10 + 1.5 * width, linewidth=width, color=colour, alpha=0.55,
                                     patchA=nodes[s], patchB=nodes[t], shrinkA=1, shrinkB=1))
    for t, label in enumerate(labels):
        ax.add_patch(nodes[t])
        ax.text(t, 0, char_label(label), ha="center", va="center", fontsize=TITLE_PT, zorder=4)
        ax.text(t, -0.3, str(t), ha="center", va="top", fontsize=TEXT_PT, color="#555555")
    reach = ARC_BEND / 2 * (T - 1) + 0.55  # how far the longest arc bends away from the line of nodes
    future = any(s > t for t, s, _ in edges)
    ax.set_xlim(-0.7, T - 0.3)
    bottom = -reach - 0.55 if future else -2.2 if legend else -0.6  # below: arcs from the future, the legend, or labels
    ax.set_ylim(bottom, reach + 0.2)
    ax.set_aspect("equal")
    ax.axis("off")
    shown = kept_arrows(per_row)
    if legend:
        keys = [Line2D([], [], color=PAST_COLOUR, linewidth=3, alpha=0.55, label="from the past, or itself")]
        if future:
            keys.append(Line2D([], [], color=FUTURE_COLOUR, linewidth=3, alpha=0.55, label="from the future"))
        ax.legend(handles=keys, title=f"width ∝ weight; {shown}", loc="lower center", ncols=len(keys), frameon=False)
    ax.set_title(title or "attention as a graph: arrow from the position read to the position reading")
    word = "".join(char_label(label) for label in labels)
    kept = "one per non-zero weight" if per_row is None else f"{shown} weight{'s' if per_row != 1 else ''}"
    source = "some from the future" if future else "all from the past or the position itself"
    description = (f"Attention drawn as a graph over the {T} positions of {word!r}: {len(edges)} arrows ({kept}), "
                   f"each as wide as its weight, {source}.")
    return labelled(ax, description, own_figure)


def plot_losses(history, reference=None, reference_label=None, ax=None):
    """Plot train and val loss from `train()`'s history, with an optional horizontal reference line. The axes (and a
    figure plot_losses made itself) get a label saying what the curves show: the alt text."""
    if not history:
        raise ValueError("history is empty: train() records losses only every eval_interval steps (none with "
                         "eval_interval=None). Train with an eval_interval, e.g. 300, and pass the history it returns.")
    ax, own_figure = own_axes(ax, (7, 3.6))
    steps = [h["step"] for h in history]
    ax.plot(steps, [h["train"] for h in history], marker="o", label="train")
    ax.plot(steps, [h["val"] for h in history], marker="o", label="val")
    if reference is not None:
        ax.axhline(reference, color="grey", linestyle="--", label=reference_label or f"{reference:.2f}")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.legend()
    first, last = history[0], history[-1]
    words = (f"Line plot of the training and validation loss from step {first['step']} to step {last['step']}: "
             f"train {first['train']:.2f} to {last['train']:.2f}, val {first['val']:.2f} to {last['val']:.2f}")
    if reference is not None:
        words += f"; dashed line at {reference:.2f} ({reference_label or 'reference'})"
    return labelled(ax, words + ".", own_figure)


def running_mean(losses, window: int) -> torch.Tensor:
    """Each run of `window` consecutive losses averaged: point k is the mean of losses k … k + window − 1, so it
    belongs at step k + window − 1 (what plot_batch_losses draws)."""
    return torch.tensor(losses, dtype=torch.float).unfold(0, window, 1).mean(1)


def plot_batch_losses(curves: dict, window: int = 25, references: dict | None = None, ax=None):
    """One line per run: its training loss batch by batch, each point the mean of the last `window` batches.
    `curves` maps a run's name to its batch losses (the list `train_and_measure` fills as `batch_losses`);
    `references` maps a label to a loss drawn as a grey line (dashed, dotted, then dash-dotted). The axes (and a
    figure this made itself) get a label saying what the curves show: the alt text."""
    if not curves:
        raise ValueError("curves is empty: pass {run name: its list of batch losses}, e.g. {'run': batch_losses}.")
    shortest = min(len(losses) for losses in curves.values())
    if isinstance(window, bool) or not isinstance(window, int) or not 1 <= window <= shortest:
        raise ValueError(f"window must be a whole number from 1 to {shortest} (the shortest run's batches), "
                         f"not {window!r}: e.g. window={min(25, shortest)}.")
    ax, own_figure = own_axes(ax, (10.5, 4), layout="constrained")
    ends = []
    for name, losses in curves.items():
        smooth = running_mean(losses, window)
        ax.plot(range(window - 1, len(losses)), smooth, label=name)  # each point at the last batch it averages
        ends.append(f"{name} {smooth[0]:.2f} to {smooth[-1]:.2f}")
    for (label, loss), style in zip((references or {}).items(), itertools.cycle(("--", ":", "-.")), strict=False):
        ax.axhline(loss, color="grey", linestyle=style, label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title(f"training loss, each point the mean of {window} batches")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the plot, where it hides no curve
    words = (f"Line plot of the training loss, batch by batch (each point the mean of {window} batches), of "
             f"{counted(len(curves), 'run')}: {'; '.join(ends)}")
    if references:
        words += "; grey lines at " + listed([f"{loss:.2f} ({label})" for label, loss in references.items()])
    return labelled(ax, words + ".", own_figure)


# ----- alt text: what a figure shows, in words, stored with every picture the course displays -------------

def describe_axes(ax) -> str:
    """One panel in words: its label when a course helper set one, else its title, axis names and legend."""
    label = ax.get_label()
    if label and not label.startswith("<"):  # "<colorbar>" and other matplotlib-made names are not descriptions
        return label
    parts = [f"'{ax.get_title()}'" if ax.get_title() else "a plot"]
    axis_names = [f"{name} {way}" for name, way in ((ax.get_xlabel(), "across"), (ax.get_ylabel(), "up")) if name]
    if axis_names:
        parts.append(", ".join(axis_names))
    legend = ax.get_legend()
    if legend is not None:
        # each entry quoted: one may hold commas of its own ("decoder, past only")
        parts.append("legend: " + ", ".join(f"'{t.get_text()}'" for t in legend.get_texts()))
    return "; ".join(parts) + "."


def alt_text(fig) -> str:
    """Alt text for a matplotlib Figure: `fig.get_label()` when set, else built from its titles and axis labels."""
    if fig.get_label():
        return fig.get_label()
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>" and ax.get_visible()]
    title = fig._suptitle.get_text() + ". " if getattr(fig, "_suptitle", None) else ""
    if not panels:
        return title + "A figure with no axes."
    described = " ".join(describe_axes(ax) for ax in panels)
    return f"{title}{'A figure' if len(panels) == 1 else f'{len(panels)} panels'}: {described}"


def figure_alt_metadata(fig):
    """IPython formatter for a Figure: no data of its own, only metadata {"image/png": {"alt": ...}}. The PNG itself
    is still drawn by matplotlib's own formatter (whatever figure format is configured); IPython keeps this metadata
    beside it in the output, where nbconvert builds (tools/site.py) read it."""
    return {}, {"image/png": {"alt": alt_text(fig)}}


def register_alt_text(shell=None) -> bool:
    """Attach alt text to every Figure IPython displays (pyplot's inline backend or `display(fig)`): registered on
    IPython's mime-bundle formatter for matplotlib's Figure, which matplotlib's own formatters never replace. Outside
    IPython (a script, pytest) it does nothing and returns False."""
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
    if shell is None:
        return False
    shell.display_formatter.mimebundle_formatter.for_type(Figure, figure_alt_metadata)
    return True


matplotlib.rcParams.update(COURSE_STYLE)
register_alt_text()
