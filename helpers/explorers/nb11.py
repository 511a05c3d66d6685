"""Notebook 11's explorer: type a text, pick a layer and a head of the trained Transformer, see that head's `wei`."""

import torch

from ..attention import attend_scaled, attention_weights
from ..plots import show_wei
from .core import fmt_row, new_figure, parse_word, quote, report, show

EXAMPLE = "thou art"


@torch.no_grad()
def layer_weights(model, idx: list[int], layer: int) -> torch.Tensor:
    """Every head's (T, T) weights in block `layer` of a TransformerModel, for one text's indices: (n_head, T, T).

    The head reads what its block gives it: the stream after the blocks below, LayerNormed by the block's ln1.
    """
    device = next(model.parameters()).device
    idx = torch.tensor([idx], device=device)
    x = model.token_embedding_table(idx) + model.position_embedding_table(model.positions(idx))
    for block in model.blocks[:layer]:
        x = block(x)
    x = model.blocks[layer].ln1(x)
    heads = model.blocks[layer].sa_heads.heads
    return torch.stack([attention_weights(attend_scaled, x, head.query, head.key)[0] for head in heads]).cpu()


def whole_number_problem(value, what: str, count: int) -> str | None:
    """One sentence when `value` is not a whole number from 0 to count − 1, else None."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        return f"The {what} is a whole number from 0 to {count - 1} (this model has {count}), not {quote(value)}."
    return None


def explore_layers(model, text: str = EXAMPLE, layer: int = 0, head: int = 0):
    """Draw head `head` of block `layer` of the trained `model` reading `text`; print what the last position reads.

    Returns the (T, T) weights on the CPU, or None after one sentence about unusable input.
    """
    n_layer, n_head = len(model.blocks), len(model.blocks[0].sa_heads.heads)
    idx, problem = parse_word(text, model.block_size, "text", EXAMPLE)
    problem = problem or whole_number_problem(layer, "layer", n_layer) or whole_number_problem(head, "head", n_head)
    if problem:
        report(problem)
        return None
    wei = layer_weights(model, idx, layer)[head]
    fig, ax = new_figure((6.4, 5))
    show_wei(wei, labels=text, stage="weights", ax=ax, axis_names="qk", title=f"layer {layer}, head {head} — {text!r}")
    fig.tight_layout()
    show(fig, f"Heatmap of the trained model's wei in layer {layer}, head {head}, for {text!r}: the last position "
              f"reads its strongest, position {int(wei[-1].argmax())}, with weight {float(wei[-1].max()):.2f}.")
    print(f"layer {layer}, head {head}: the last position ({text[-1]!r}) reads {fmt_row(wei[-1])}")
    return wei
