"""Notebook 08: attention drawn as a graph, and an explorer that switches the causal mask on and off.

A fixed, seeded demo head reads a typed word. With the mask (a decoder) each position reads
only itself and its past; without it (an encoder) every position reads every other.
"""

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from matplotlib.lines import Line2D
from matplotlib.patches import Arc, Circle, FancyArrowPatch

from ..attention import causal_softmax
from ..examples import demo_head
from ..plots import char_label, show_wei
from .core import fmt_row, new_figure, parse_word, quote, report, show

BLOCK_SIZE = 8  # the longest word the demo head reads
EXAMPLE = "thou art"
PAST_COLOUR, FUTURE_COLOUR = "#1f77b4", "#d95f02"  # edges from the past, edges from the future
MAX_EDGE_WIDTH = 9.0  # points, for an edge of weight 1
MIN_EDGE_WIDTH = 0.8  # points: the faintest edge drawn stays visible
EXPLORER_MIN_WEIGHT = 0.05  # the explorer draws only edges whose printed label is at least this, so 8 positions
# stay readable


@torch.no_grad()
def demo_weights(idx: list[int], causal: bool = True) -> torch.Tensor:
    """The demo head's (T, T) weights for one word's indices, with the causal mask or without it."""
    embedding, head = demo_head()
    x = embedding(torch.tensor(idx))
    q, k = head.query(x), head.key(x)
    scores = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
    return causal_softmax(scores) if causal else F.softmax(scores, dim=-1)


def as_labelled(weight: float) -> float:
    """A weight rounded to two decimals, as the heatmap prints it (0.046 is labelled 0.05)."""
    return round(weight, 2)


def draw_graph(wei, labels, ax=None, title=None, min_weight=0.0):
    """Draw `wei` as a directed graph: one node per position, an arrow from key s to query t of width ∝ wei[t, s].

    Arrows from the past bend above the nodes (blue); arrows from the future, which only exist
    without a mask, bend below them (orange). A loop over a node is the position reading itself.
    A weight of exactly 0 is no edge at all, so masked cells draw nothing; with `min_weight` > 0,
    edges whose heatmap label (two decimals) is below it are left out too (the legend says so).
    Every drawn edge is at least MIN_EDGE_WIDTH points wide. Returns the axes.
    """
    w = torch.as_tensor(wei).detach().to("cpu", torch.float32)
    T = w.shape[0]
    if w.shape != (T, T) or len(labels) != T:
        raise ValueError(f"draw_graph needs a square (T, T) wei and T labels, got {tuple(w.shape)} and {len(labels)}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(5.0, 1.1 * T + 1), 3.6))
    for t in range(T):  # t: the position reading (query)
        for s in range(T):  # s: the position read (key)
            weight = float(w[t, s])
            if weight == 0 or as_labelled(weight) < min_weight:
                continue
            width = max(MIN_EDGE_WIDTH, MAX_EDGE_WIDTH * weight)
            if s == t:  # a loop over the node: the position reads its own value
                ax.add_patch(Arc((t, 0.33), 0.3, 0.34, theta1=-50, theta2=230, linewidth=width, color=PAST_COLOUR,
                                 alpha=0.55))
                continue
            colour = PAST_COLOUR if s < t else FUTURE_COLOUR
            ax.add_patch(FancyArrowPatch((s, 0.0), (t, 0.0), connectionstyle="arc3,rad=-0.42", arrowstyle="-|>",
                                         mutation_scale=8 + width, linewidth=width, color=colour, alpha=0.55,
                                         shrinkA=11, shrinkB=11))
    for t, label in enumerate(labels):
        ax.add_patch(Circle((t, 0), 0.22, facecolor="white", edgecolor="black", zorder=3))
        ax.text(t, 0, char_label(label), ha="center", va="center", fontsize=13, zorder=4)
        ax.text(t, -0.36, str(t), ha="center", va="top", fontsize=9, color="#555555")
    reach = 0.21 * (T - 1) + 0.55  # how far the longest arc bends away from the line of nodes
    ax.set_xlim(-0.7, T - 0.3)
    ax.set_ylim(-reach - 0.45, reach + 0.2)
    ax.set_aspect("equal")
    ax.axis("off")
    legend = [Line2D([], [], color=PAST_COLOUR, linewidth=3, alpha=0.55, label="from the past, or a loop: itself")]
    if bool(w.triu(diagonal=1).gt(0).any()):
        legend.append(Line2D([], [], color=FUTURE_COLOUR, linewidth=3, alpha=0.55, label="from the future"))
    shown = f"edges labelled ≥ {min_weight:g} only" if min_weight > 0 else "every non-zero weight is an edge"
    ax.legend(handles=legend, title=f"width ∝ weight; {shown}", loc="lower center", ncols=len(legend), fontsize=8,
              title_fontsize=8, frameon=False)
    ax.set_title(title or "attention as a graph: arrow from the position read to the position reading", fontsize=11)
    return ax


def explore_mask(word: str = EXAMPLE, causal: bool = True):
    """Draw the demo head's `wei` for a typed word as a heatmap and a graph, with the causal mask on or off.

    Returns the (T, T) weights on the CPU, or None after one sentence about unusable input.
    """
    idx, problem = parse_word(word, BLOCK_SIZE, "word", EXAMPLE)
    if problem is None and not isinstance(causal, bool):
        problem = (f"'causal' is a yes/no switch, not {quote(causal)}: pass True (decoder) or False (encoder), "
                   "without quotes.")
    if problem:
        report(problem)
        return None
    wei = demo_weights(idx, causal)
    kind = "decoder: causal mask on" if causal else "encoder: no mask"
    fig, (left, right) = new_figure((10, 4.2), 1, 2, width_ratios=[1, 1.5])
    show_wei(wei, labels=word, stage="weights", ax=left, causal=causal, axis_names="qk", title=f"wei — {kind}")
    draw_graph(wei, word, ax=right, title="the same weights as a graph", min_weight=EXPLORER_MIN_WEIGHT)
    fig.tight_layout()
    show(fig, f"Heatmap of the demo head's wei for {word!r} ({kind}) beside the same weights drawn as a graph of "
              "arrows from the position read to the position reading.")
    print(f"{kind}: the last position ({word[-1]!r}) reads {fmt_row(wei[-1])}")
    nonzero = int((wei > 0).sum())
    drawn = sum(as_labelled(w) >= EXPLORER_MIN_WEIGHT for w in wei.flatten().tolist() if w > 0)
    print(f"{nonzero} non-zero weights of {len(idx) ** 2} cells; the graph draws the {drawn} labelled at least "
          f"{EXPLORER_MIN_WEIGHT:g}, self-loops included")
    return wei
