"""Notebook 11's explorer: type a text, pick a layer and a head of the trained Transformer, see that head's `wei`."""

import torch

from ..attention import attend_scaled, attention_weights
from ..blocks import TransformerModel
from ..models import embed
from ..plots import show_wei
from .core import explorer, fmt_row, new_figure, parse_word, quote, report, show

EXAMPLE = "thou art"


@torch.no_grad()
def layer_weights(model, idx: list[int], layer: int) -> torch.Tensor:
    """Every head's (T, T) weights in block `layer` of a TransformerModel, for one text's indices: (n_head, T, T).

    The head reads what its block gives it: the stream after the blocks below, LayerNormed by the block's ln1.
    """
    device = next(model.parameters()).device
    idx = torch.tensor([idx], device=device)
    x = embed(model, idx)
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


def untrained_model() -> TransformerModel:
    """The notebook's TransformerModel (3 blocks of 4 heads) as seed 0 initialises it, untrained: the model an
    explorer called without one draws (the notebook hands it the trained one)."""
    with torch.random.fork_rng():  # the caller's random state stays as it was
        torch.manual_seed(0)
        return TransformerModel().eval()


@explorer(refuses=[
    ({"text": ""}, "empty"),
    ({"text": "thou art!!"}, "8 or fewer"),
    ({"layer": 3}, "layer is a whole number from 0 to 2"),
    ({"head": 4}, "head is a whole number from 0 to 3"),
    ({"layer": True}, "layer"),
    ({"head": 1.5}, "head"),
])
def explore_layers(text: str = EXAMPLE, layer: int = 0, head: int = 0, model=None):
    """Draw head `head` of block `layer` of `model` (the trained one, in the notebook; an untrained one when None)
    reading `text`; print what the last position reads.

    Returns {'wei': (T, T) weights on the CPU}, or None after one sentence about unusable input.
    """
    model = untrained_model() if model is None else model
    n_layer, n_head = len(model.blocks), len(model.blocks[0].sa_heads.heads)
    idx, problem = parse_word(text, model.block_size, "text", EXAMPLE)
    problem = problem or whole_number_problem(layer, "layer", n_layer) or whole_number_problem(head, "head", n_head)
    if problem:
        return report(problem)
    wei = layer_weights(model, idx, layer)[head]
    fig, ax = new_figure((6.4, 4.6))
    show_wei(wei, labels=text, stage="weights", ax=ax, axis_names="qk", title=f"layer {layer}, head {head} — {text!r}")
    fig.tight_layout()
    show(fig, f"Heatmap of the model's wei in layer {layer}, head {head}, for {text!r}: the last position "
              f"reads its strongest, position {int(wei[-1].argmax())}, with weight {float(wei[-1].max()):.2f}.")
    print(f"layer {layer}, head {head}: the last position ({text[-1]!r}) reads {fmt_row(wei[-1])}")
    return {"wei": wei}
