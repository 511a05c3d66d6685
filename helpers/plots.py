"""Pictures of `wei` (who looks at whom, and how much) and of training progress."""

import math

import matplotlib.pyplot as plt
import torch
from matplotlib.patches import Rectangle

# stage name → (title text, whether the values are weights drawn on a fixed 0–1 scale)
STAGES = {
    "raw": ("raw scores", False),
    "masked": ("masked scores (future = −∞)", False),
    "softmax": ("softmaxed weights (rows sum to 1)", True),
    "weights": ("weights (rows sum to 1)", True),
    "visibility": ("who may see whom (1 = visible)", True),
}
OUT_OF_RANGE = "#f59e0b"  # a "weight" below 0 or above 1 is painted orange: it is not a real weight
ANNOTATE_UP_TO = 12  # write each cell's value when the matrix is at most this wide
_SHOWN_AS = {" ": "␣", "\n": "↵", "\t": "⇥"}


def char_label(ch: str) -> str:
    """A printable tick label for one character (space and newline made visible)."""
    return _SHOWN_AS.get(ch, ch)


def to_matrix(wei) -> torch.Tensor:
    """One (T, S) float matrix on the CPU from a tensor on any device, an array or nested lists."""
    m = torch.as_tensor(wei).detach().to("cpu", torch.float32)
    while m.dim() > 2 and m.shape[0] == 1:
        m = m[0]
    if m.dim() != 2:
        raise ValueError(
            f"show_wei draws one (T, T) matrix, got shape {tuple(m.shape)}: pass one sequence, e.g. wei[0]."
        )
    return m


def masked_cells(m: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """Boolean (T, S) matrix: True where a cell is masked (−∞, or in the future when `causal`)."""
    masked = torch.isneginf(m)
    if causal:
        T, S = m.shape
        masked |= torch.ones(T, S).triu(diagonal=1 + S - T).bool()
    return masked


def show_wei(wei, labels=None, stage="softmax", ax=None, causal=None, key_labels=None, title=None, mask=None):
    """Draw `wei` as a heatmap: query characters down the side, key characters along the top.

    stage: one of STAGES ('raw', 'masked', 'softmax', 'weights', 'visibility'); it names the
    panel and picks the colour scale (weights share a fixed 0–1 scale so panels compare).
    causal: also mark the future cells as masked (for weights, whose masked cells hold 0);
    by default it is on for the softmax and weights stages of a square matrix.
    mask: optionally, a boolean matrix of wei's shape, True where a cell is masked.
    Masked cells are hatched grey, so a masked cell never looks like a true 0; on the weights
    scale, a value below 0 or above 1 is painted orange, so it cannot pass for a real weight.
    """
    if stage not in STAGES:
        raise ValueError(f"Unknown stage {stage!r}: use one of {', '.join(STAGES)}.")
    stage_title, is_weights = STAGES[stage]
    m = to_matrix(wei)
    T, S = m.shape
    rows = [char_label(c) for c in (labels if labels is not None else range(T))]
    cols = [
        char_label(c) for c in (key_labels if key_labels is not None else (labels if labels is not None else range(S)))
    ]
    if len(rows) != T or len(cols) != S:
        raise ValueError(f"wei is {T}×{S} but got {len(rows)} row labels and {len(cols)} column labels.")
    if causal is None:
        causal = stage in ("softmax", "weights") and T == S
    masked = masked_cells(m, causal)
    if mask is not None:
        mask = torch.as_tensor(mask, device="cpu").bool()
        if mask.shape != m.shape:
            raise ValueError(f"mask has shape {tuple(mask.shape)} but wei is {T}×{S}.")
        masked |= mask

    shown = m.clone()
    shown[masked] = math.nan
    if is_weights:
        vmin, vmax, cmap = 0.0, 1.0, "Blues"
    else:
        finite = m[~masked]
        bound = float(finite.abs().max()) if finite.numel() else 0.0
        bound = bound or 1.0  # all zero (or all masked): any symmetric scale will do
        vmin, vmax, cmap = -bound, bound, "RdBu_r"
    cmap = plt.get_cmap(cmap).with_extremes(bad="#d9d9d9")
    if is_weights:
        cmap = cmap.with_extremes(under=OUT_OF_RANGE, over=OUT_OF_RANGE)

    if ax is None:
        _, ax = plt.subplots(figsize=(0.45 * S + 2.2, 0.45 * T + 1.2))
    image = ax.imshow(shown.numpy(), cmap=cmap, vmin=vmin, vmax=vmax)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    for i, j in masked.nonzero().tolist():
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", edgecolor="#8c8c8c", linewidth=0))
    if T <= ANNOTATE_UP_TO and S <= ANNOTATE_UP_TO:
        _annotate(ax, m, masked, is_weights, vmax)
    ax.set_xticks(range(S), cols)
    ax.set_yticks(range(T), rows)
    ax.xaxis.tick_top()
    ax.set_xlabel("key: the position looked at")
    ax.set_ylabel("query: the position looking")
    ax.set_title(title or f"wei · {stage_title}", fontsize=10, pad=22)
    return ax


def _annotate(ax, m, masked, is_weights, vmax):
    """Write each cell's value (−∞ for masked scores) in a colour readable on its background."""
    T, S = m.shape
    for i in range(T):
        for j in range(S):
            v = float(m[i, j])
            if masked[i, j]:
                text, colour = ("−∞" if v == -math.inf else ""), "#404040"
            else:
                text = f"{v:.2f}" if is_weights else f"{v:.1f}"
                colour = "white" if abs(v) > 0.6 * vmax else "black"
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour)


def show_wei_stages(panels, labels=None, causal=None, size=4.2):
    """Draw several `wei` matrices side by side.

    `panels` is a list of (wei, stage) or (wei, stage, title) tuples; returns the figure.
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(size * len(panels) + 0.5, size), squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        wei, stage, *title = panel
        show_wei(wei, labels, stage=stage, ax=ax, causal=causal, title=title[0] if title else None)
    fig.tight_layout()
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
