"""Notebook 08's explorer: the demo head's `wei` as a heatmap and as a graph, with the causal mask on or off.

A fixed, seeded demo head reads a typed word. With the mask (a decoder) each position reads
only itself and its past; without it (an encoder) every position reads every other.
"""

import torch
import torch.nn.functional as F

from ..attention import causal_softmax
from ..examples import demo_head
from ..plots import draw_graph, graph_edges, kept_arrows, show_wei
from ..words import counted
from .core import explorer, fmt_row, new_figure, parse_word, quote, report, show

BLOCK_SIZE = 8  # the longest word the demo head reads
EXAMPLE = "thou art"
ARROWS_PER_POSITION = 1  # the graph keeps each position's strongest incoming arrow, so 8 positions stay readable


@torch.no_grad()
def demo_weights(idx: list[int], causal: bool = True) -> torch.Tensor:
    """The demo head's (T, T) weights for one word's indices, with the causal mask or without it."""
    embedding, head = demo_head()
    x = embedding(torch.tensor(idx))
    q, k = head.query(x), head.key(x)
    scores = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
    return causal_softmax(scores) if causal else F.softmax(scores, dim=-1)


@explorer(refuses=[
    ({"word": ""}, "empty"),
    ({"word": "x" * (BLOCK_SIZE + 1)}, f"keep it to {BLOCK_SIZE} or fewer"),
    ({"word": "thé"}, "never uses"),
    ({"word": 7}, "text"),
    ({"causal": "False"}, "yes/no switch"),
    ({"causal": None}, "yes/no switch"),
])
def explore_mask(word: str = EXAMPLE, causal: bool = True):
    """Draw the demo head's `wei` for a typed word as a heatmap and a graph, with the causal mask on or off.

    Returns {'wei': the (T, T) weights on the CPU, 'drawn': how many arrows the graph draws}, or None after one
    sentence about unusable input.
    """
    idx, problem = parse_word(word, BLOCK_SIZE, "word", EXAMPLE)
    if problem is None and not isinstance(causal, bool):
        problem = (f"'causal' is a yes/no switch, not {quote(causal)}: pass True (decoder) or False (encoder), "
                   "without quotes.")
    if problem:
        return report(problem)
    wei = demo_weights(idx, causal)
    kind = "decoder: causal mask on" if causal else "encoder: no mask"
    # The graph keeps its shape (one unit per position), so only width makes it bigger: it gets as much as the
    # heatmap, whose cells stay 0.45 in or more (numbers of 12 pt or more, 16 px on a 1280×720 slide), and the
    # whole picture stays under about 1,050 px wide, clear of a slide's navigation arrows.
    fig, (left, right) = new_figure((10.6, 5.2), 1, 2, width_ratios=[1, 1.05])
    show_wei(wei, labels=word, stage="weights", ax=left, causal=causal, axis_names="qk", title=f"wei — {kind}")
    draw_graph(wei, word, ax=right, title="the same weights as a graph", per_row=ARROWS_PER_POSITION)
    fig.tight_layout()
    show(fig, f"Heatmap of the demo head's wei for {word!r} ({kind}) beside the same weights drawn as a graph of "
              "arrows from the position read to the position reading.")
    print(f"{kind}: the last position ({word[-1]!r}) reads {fmt_row(wei[-1], tiny=True)}")
    nonzero = int((wei > 0).sum())
    drawn = len(graph_edges(wei, ARROWS_PER_POSITION))
    ties = (f"; weights that tie for the strongest are all kept, so some positions keep more than {ARROWS_PER_POSITION}"
            if drawn > ARROWS_PER_POSITION * len(idx) else "")
    print(f"{counted(nonzero, 'non-zero weight')} of {counted(len(idx) ** 2, 'cell')}; the graph keeps "
          f"{kept_arrows(ARROWS_PER_POSITION)}: {counted(drawn, 'arrow')}, loops included{ties}")
    return {"wei": wei, "drawn": drawn}
