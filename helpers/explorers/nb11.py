"""Notebook 11's own helpers: the explorer (type a text, pick a layer and a head of the trained Transformer, see
that head's `wei`) and the exercise, the block's forward from its four parts."""

from functools import partial

import torch
import torch.nn as nn

from ..attention import attend_scaled, attention_weights
from ..blocks import FeedForward, MultiHeadAttention, TransformerModel
from ..exercises import Exercise, Mistake
from ..exercises.core import as_float, close
from ..models import embed
from ..plots import show_wei
from ..training import model_device
from ..words import listed
from .core import explorer, fmt_row, int_hint, new_figure, parse_word, quote, report, show

EXAMPLE = "thou art"


@torch.no_grad()
def layer_weights(model, idx: list[int], layer: int) -> torch.Tensor:
    """Every head's (T, T) weights in block `layer` of a TransformerModel, for one text's indices: (n_head, T, T).

    The head reads what its block gives it: the stream after the blocks below, LayerNormed by the block's ln1.
    """
    x = embed(model, torch.tensor([idx], device=model_device(model)))
    for block in model.blocks[:layer]:
        x = block(x)
    x = model.blocks[layer].ln1(x)
    heads = model.blocks[layer].sa_heads.heads
    return torch.stack([attention_weights(attend_scaled, x, head.query, head.key)[0] for head in heads]).cpu()


def whole_number_problem(value, what: str, count: int) -> str | None:
    """One sentence when `value` is not a whole number from 0 to count − 1, else None."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        return (f"The {what} is a whole number from 0 to {count - 1} (this model has {count}), not {quote(value)}"
                f"{int_hint(value)}.")
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


# ----- the exercise: the block's forward, written from its four parts --------------------------------------------

def _as_function(module: nn.Module, name: str):
    """One of a block's parts as a plain function of x, its weights fixed (a learner's call cannot change them)."""
    module.requires_grad_(False)

    def part(x):
        return module(x)

    part.__name__ = part.__qualname__ = name
    return part


def _block_case(seed: int, shape: tuple, n_head: int) -> tuple:
    """Seeded x of `shape` (…, T, C) and one block's four parts for that C, each a function of x: ln1, heads, ln2,
    ffwd. The two LayerNorms get random γ and β, so that swapping them changes the answer."""
    C = shape[-1]
    with torch.random.fork_rng(devices=[]):  # the caller's random state stays as it was
        torch.manual_seed(seed)
        ln1, ln2 = nn.LayerNorm(C), nn.LayerNorm(C)
        for ln in (ln1, ln2):
            nn.init.normal_(ln.weight, 1.0, 0.3)
            nn.init.normal_(ln.bias, 0.0, 0.3)
        parts = {"ln1": ln1, "heads": MultiHeadAttention(C, n_head), "ln2": ln2, "ffwd": FeedForward(C)}
        x = (torch.randn(shape) * 2 + 1).requires_grad_()  # far from normalised; a model's x carries a gradient
    return (x, *(_as_function(module, name) for name, module in parts.items()))


def _block_forward(x, ln1, heads, ln2, ffwd):
    """Block.forward: communication, then computation, each reading a LayerNormed x and adding to x."""
    x = x + heads(ln1(x))
    return x + ffwd(ln2(x))


LINES = {  # the ways one line of the block can be written: part reads ln's copy and adds to x, or a slip
    "pre-norm": lambda x, ln, part: x + part(ln(x)),
    "post-norm": lambda x, ln, part: ln(x + part(x)),  # the original Transformer's order
    "replaces x": lambda x, ln, part: part(ln(x)),  # no residual path
    "adds to the copy": lambda x, ln, part: ln(x) + part(ln(x)),  # x itself normalised on its way
    "no LayerNorm": lambda x, ln, part: x + part(x),
    "normalises the output": lambda x, ln, part: x + ln(part(x)),  # the LayerNorm after the part, not before it
    "adds x twice": lambda x, ln, part: x + x + part(ln(x)),
    "normalises both": lambda x, ln, part: ln(x + part(ln(x))),  # pre-norm and post-norm at once
}


LINE_WORDS = {  # each slip of LINES, as "your heads' line …" goes on
    "post-norm": "normalises after the addition (post-norm)",
    "replaces x": "replaces x with the part's output (no residual path)",
    "adds to the copy": "adds to the LayerNormed copy instead of to x",
    "no LayerNorm": "reads x itself, without its LayerNorm",
    "normalises the output": "normalises what the part hands back instead of what it reads",
    "adds x twice": "adds x twice",
    "normalises both": "normalises both what the part reads and the sum after it",
}


def _explain_lines(got, expected, inputs, atol) -> str | None:
    """Words for a block whose two lines are each written one of the LINES ways, with slips in both, or with a slip
    and the two LayerNorms swapped (one slip alone is a named mistake, told before this)."""
    x, ln1, heads, ln2, ffwd = inputs
    with torch.no_grad():
        for swapped, (norm_1, norm_2) in ((False, (ln1, ln2)), (True, (ln2, ln1))):
            for heads_way, first in LINES.items():
                middle = first(x, norm_1, heads)  # the heads' line once, for every way of writing the second
                for ffwd_way, second in LINES.items():
                    block = second(middle, norm_2, ffwd)
                    if got.shape == block.shape and close(got, as_float(block), atol):
                        return _line_slips(heads_way, ffwd_way, swapped)
    return None


def _line_slips(heads_way: str, ffwd_way: str, swapped: bool) -> str:
    """What _explain_lines found, in words: each line's slip, and the LayerNorms swapped."""
    if heads_way == ffwd_way != "pre-norm":
        slips = [f"each of your two lines {LINE_WORDS[heads_way]}"]
    else:
        slips = [f"your {where} line {LINE_WORDS[way]}" for where, way in
                 (("heads'", heads_way), ("feed-forward", ffwd_way)) if way != "pre-norm"]
    slips += ["the two LayerNorms are swapped (ln1 belongs to the heads)"] if swapped else []
    return (f"{listed(slips)}: each line reads its own LayerNorm's copy of x and adds what its part computes to x, "
            "x = x + heads(ln1(x)), then x = x + ffwd(ln2(x)).")


def _lines(heads_line: str, ffwd_line: str):
    """The block's forward with its heads' line and its feed-forward line each written one of the LINES ways."""

    def forward(x, ln1, heads, ln2, ffwd):
        x = LINES[heads_line](x, ln1, heads)
        return LINES[ffwd_line](x, ln2, ffwd)

    return forward


def _in_either_line(name: str, slip: str, both: str, heads_line: str, ffwd_line: str | None = None) -> tuple:
    """The mistake `name`, the LINES way `slip`, made in both lines, in the heads' line alone, and (given its hint)
    in the feed-forward line alone: a Mistake each, each with its own hint."""
    alone = () if ffwd_line is None else (Mistake(name, _lines("pre-norm", slip), ffwd_line),)
    return (Mistake(name, _lines(slip, slip), both), Mistake(name, _lines(slip, "pre-norm"), heads_line), *alone)


def _default_layer_norms(x, ln1, heads, ln2, ffwd, lines=("heads", "ffwd")):
    """New LayerNorms (γ = 1, β = 0) instead of the block's own ln1 and ln2, in the `lines` named."""
    fresh = nn.LayerNorm(x.shape[-1]).to(x.device)
    return _block_forward(x, fresh if "heads" in lines else ln1, heads, fresh if "ffwd" in lines else ln2, ffwd)


NORMALISED_OUTPUT = ("you normalised what the block returns: x leaves a block as it is (only ln_f, after the last "
                     "block, normalises it), so return x after the feed-forward line.")

EXERCISES = (
    Exercise(
        name="block_forward",
        reference=_block_forward,
        cases=(_block_case(11, (2, 6, 16), 4), _block_case(12, (3, 5, 12), 3)),
        explain=_explain_lines,
        mistakes=(
            *_in_either_line(
                "post_norm", "post-norm",
                "you normalised after each addition (post-norm, the original Transformer's order), so x itself "
                "goes through a LayerNorm at every part: here each part reads a normalised copy and adds to x, "
                "x = x + heads(ln1(x)).",
                "your heads' line normalises after the addition (post-norm): the heads read a normalised copy and "
                "add to x itself, x = x + heads(ln1(x)), as your feed-forward line already does.",
                "your feed-forward line normalises after the addition (post-norm): it reads a normalised copy and "
                "adds to x itself, x = x + ffwd(ln2(x)), as your heads' line already does.",
            ),
            *_in_either_line(
                "replaced_x", "replaces x",
                "each part's output replaces x, as in the stacks without residual paths: add it to x instead, "
                "x = x + heads(ln1(x)), then x = x + ffwd(ln2(x)).",
                "the heads' output replaces x: add it to x instead, x = x + heads(ln1(x)), as your feed-forward "
                "line already does.",
                "the feed-forward layer's output replaces x: add it to x instead, x = x + ffwd(ln2(x)), as your "
                "heads' line already does.",
            ),
            *_in_either_line(
                "added_to_normalised", "adds to the copy",
                "you added each part's output to the LayerNormed copy, so x itself was normalised: keep x as it "
                "is and add to it, x = x + heads(ln1(x)).",
                "your heads' line adds to the LayerNormed copy, so x itself was normalised on its way: keep x as it "
                "is and add to it, x = x + heads(ln1(x)), as your feed-forward line already does.",
                "your feed-forward line adds to the LayerNormed copy, so x itself was normalised on its way: keep x "
                "as it is and add to it, x + ffwd(ln2(x)), as your heads' line already does.",
            ),
            Mistake(
                "second_from_original",
                lambda x, ln1, heads, ln2, ffwd: x + ffwd(ln2(x + heads(ln1(x)))),
                "the feed-forward layer's output is added to the x that came in, so the heads' addition is lost: "
                "update x in the first line, x = x + heads(ln1(x)), and add to that x in the second.",
            ),
            Mistake(
                "old_copy",
                lambda x, ln1, heads, ln2, ffwd: x + heads(ln1(x)) + ffwd(ln2(ln1(x))),
                "your feed-forward line reads ln2 of the copy the heads read, ln1 of the x that came in, so it never "
                "sees what the heads added: after x = x + heads(ln1(x)), it reads ln2 of that new x, ffwd(ln2(x)).",
            ),
            Mistake(
                "old_copy",
                lambda x, ln1, heads, ln2, ffwd: x + heads(ln1(x)) + ffwd(ln1(x)),
                "your feed-forward line reads the copy the heads read, ln1 of the x that came in, so it never sees "
                "what the heads added and skips its own LayerNorm: after x = x + heads(ln1(x)), it reads ln2 of that "
                "new x, ffwd(ln2(x)).",
            ),
            Mistake(
                "normalised_twice",
                lambda x, ln1, heads, ln2, ffwd: _block_forward(x, ln1, heads, lambda y: ln2(ln1(y)), ffwd),
                "your feed-forward line normalises x twice, ln2(ln1(x)): ln1 belongs to the heads alone, and the "
                "feed-forward layer reads ln2(x).",
            ),
            Mistake(
                "swapped_layer_norms",
                lambda x, ln1, heads, ln2, ffwd: _block_forward(x, ln2, heads, ln1, ffwd),
                "the two LayerNorms are swapped: ln1 belongs to the heads and ln2 to the feed-forward layer, "
                "each with its own γ and β.",
            ),
            Mistake(
                "one_layer_norm",
                lambda x, ln1, heads, ln2, ffwd: _block_forward(x, ln1, heads, ln1, ffwd),
                "both parts read ln1(x): each part has a LayerNorm of its own, ffwd reads ln2(x).",
            ),
            Mistake(
                "one_layer_norm",
                lambda x, ln1, heads, ln2, ffwd: _block_forward(x, ln2, heads, ln2, ffwd),
                "both parts read ln2(x): each part has a LayerNorm of its own, the heads read ln1(x).",
            ),
            Mistake(
                "default_layer_norms",
                _default_layer_norms,
                "your LayerNorms are new ones (γ = 1, β = 0): use the ln1 and ln2 you are given, which have a γ "
                "and a β of their own, heads(ln1(x)) and ffwd(ln2(x)).",
            ),
            Mistake(
                "default_layer_norms",
                partial(_default_layer_norms, lines=("heads",)),
                "your heads' line normalises with a new LayerNorm (γ = 1, β = 0; F.layer_norm without weights is "
                "one): use the ln1 you are given, which has a γ and a β of its own, heads(ln1(x)), as your "
                "feed-forward line uses ln2.",
            ),
            Mistake(
                "default_layer_norms",
                partial(_default_layer_norms, lines=("ffwd",)),
                "your feed-forward line normalises with a new LayerNorm (γ = 1, β = 0; F.layer_norm without weights "
                "is one): use the ln2 you are given, which has a γ and a β of its own, ffwd(ln2(x)), as your heads' "
                "line uses ln1.",
            ),
            Mistake(
                "computation_first",
                lambda x, ln1, heads, ln2, ffwd: _block_forward(x, ln2, ffwd, ln1, heads),
                "the feed-forward layer ran first: communication comes first (the heads gather from the past), "
                "then computation on what they gathered.",
            ),
            Mistake(
                "side_by_side",
                lambda x, ln1, heads, ln2, ffwd: x + heads(ln1(x)) + ffwd(ln2(x)),
                "both parts read the same x, so the feed-forward layer never sees what the heads gathered: add "
                "the heads' output to x first, then let ffwd read ln2 of the new x.",
            ),
            *_in_either_line(
                "no_layer_norm", "no LayerNorm",
                "each part read x itself: it should read a LayerNormed copy, heads(ln1(x)) and ffwd(ln2(x)).",
                "the heads read x itself: they should read a LayerNormed copy, heads(ln1(x)), as your feed-forward "
                "line reads ln2(x).",
                "the feed-forward layer reads x itself: it should read a LayerNormed copy, ffwd(ln2(x)), as your "
                "heads read ln1(x).",
            ),
            *_in_either_line(
                "normalised_the_output", "normalises the output",
                "you normalised what each part hands back, ln1(heads(x)): the LayerNorm goes before the part, on "
                "what it reads, heads(ln1(x)) and ffwd(ln2(x)).",
                "your heads' line normalises what the heads hand back, ln1(heads(x)): the LayerNorm goes before "
                "them, on what they read, heads(ln1(x)), as in your feed-forward line.",
                "your feed-forward line normalises what it hands back, ln2(ffwd(x)): the LayerNorm goes before it, "
                "on what it reads, ffwd(ln2(x)), as in your heads' line.",
            ),
            Mistake(
                "left_x_out",
                lambda x, ln1, heads, ln2, ffwd: _block_forward(x, ln1, heads, ln2, ffwd) - x,
                "your answer is what the two parts add, without x itself: the block returns x plus what they add, "
                "x = x + heads(ln1(x)), then x = x + ffwd(ln2(x)).",
            ),
            Mistake(
                "normalised_output",
                lambda x, ln1, heads, ln2, ffwd: ln2(_block_forward(x, ln1, heads, ln2, ffwd)),
                NORMALISED_OUTPUT,
            ),
            Mistake(
                "normalised_output",
                lambda x, ln1, heads, ln2, ffwd: ln1(_block_forward(x, ln1, heads, ln2, ffwd)),
                NORMALISED_OUTPUT,
            ),
            Mistake(
                "added_x_twice",
                lambda x, ln1, heads, ln2, ffwd: _block_forward(x, ln1, heads, ln2, ffwd) + x,
                "your result holds x twice: each line already adds to x (x = x + …), so return that x without adding "
                "the input again.",
            ),
            *_in_either_line(
                "added_x_twice", "adds x twice",
                "each line adds x twice (x + x + …): x carries itself along the residual path, so add only what "
                "each part returns, x = x + heads(ln1(x)), then x = x + ffwd(ln2(x)).",
                "your heads' line adds x twice (x + x + …): add only what the heads return, x = x + heads(ln1(x)), "
                "as your feed-forward line does.",
                "your feed-forward line adds x twice (x + x + …): add only what the feed-forward layer returns, "
                "x = x + ffwd(ln2(x)), as your heads' line does.",
            ),
            Mistake(
                "feed_forward_reads_the_heads",
                lambda x, ln1, heads, ln2, ffwd: x + heads(ln1(x)) + ffwd(ln2(heads(ln1(x)))),
                "your feed-forward line reads ln2 of what the heads returned, not of the updated x: after "
                "x = x + heads(ln1(x)), the feed-forward layer reads ln2 of that x, ffwd(ln2(x)).",
            ),
            # (made in the feed-forward line alone, this slip is normalised_output above)
            *_in_either_line(
                "normalised_after_adding", "normalises both",
                "each line also normalises x after adding to it, ln1(x + heads(ln1(x))): the parts read a "
                "normalised copy, and x itself stays as it is, x = x + heads(ln1(x)), then x = x + ffwd(ln2(x)).",
                "your heads' line also normalises x after adding to it: the heads read a normalised copy, and x "
                "itself stays as it is, x = x + heads(ln1(x)), as in your feed-forward line.",
            ),
            Mistake(
                "unchanged",
                lambda x, ln1, heads, ln2, ffwd: x,
                "you returned x as it came in: return it after both parts have added to it.",
            ),
            Mistake(
                "no_feed_forward",
                lambda x, ln1, heads, ln2, ffwd: x + heads(ln1(x)),
                "your result has the heads' addition but not the feed-forward layer's: after the heads' line "
                "comes x = x + ffwd(ln2(x)), and the function returns that x (check which variable you return).",
            ),
            Mistake(
                "no_heads",
                lambda x, ln1, heads, ln2, ffwd: x + ffwd(ln2(x)),
                "your result has the feed-forward layer's addition but not the heads': start with x = x + "
                "heads(ln1(x)), and let the feed-forward line read the x it made (a result kept under another name, "
                "y = x + heads(ln1(x)), is lost when the next line reads x again).",
            ),
        ),
    ),
)
