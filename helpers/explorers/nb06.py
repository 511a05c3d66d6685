"""Notebook 06's own helpers (value): edit the value weight and watch `wei` stay put; type a word and watch `wei`
change; the exercise, one head by hand.

Both explorers use the notebook's hand-set example: one-hot characters over a five-letter alphabet,
and query, key and value weights whose h, o, u columns are the ones worked through by hand.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..attention import future_mask, weights_and_output
from ..examples import ALPHABET, KEY_WEIGHT, QUERY_WEIGHT, VALUE_WEIGHT
from ..exercises import Exercise, Mistake
from ..exercises.explain import (
    FORGOT_MASK_CALL,
    LOG_SOFTMAX,
    MASKED_THE_PAST,
    MASKED_THE_PRESENT,
    MASKED_WITH_ZERO,
    PLUS_INFINITY,
    SOFTMAX_WITHOUT_DIM,
    SWAPPED_Q_AND_K,
    T_MEETS_HEAD_SIZE,
    TRANSPOSED_WEIGHTS,
    slipped_weights,
    typed_number_slips,
    typed_scale,
)
from ..plots import show_wei
from ..words import counted
from .core import explorer, fmt_row, new_figure, parse_numbers, parse_word, report, seeded_randn, show

HOU_VALUE_TEXT = "10, 0, 5, 0, 10, 5"  # the hou example's 2×3 value weight, row by row
SWAPPED_VALUE_TEXT = "0, 10, 5, 10, 0, 5"  # ... with its two channels swapped: where notebook 06's explorer starts
MAX_LETTERS = 8


def one_hot(word: str) -> torch.Tensor:
    """(len(word), 5): each letter of `word` as a one-hot row over ALPHABET."""
    return F.one_hot(torch.tensor([ALPHABET.index(c) for c in word]), len(ALPHABET)).float()


def linear(weight) -> nn.Linear:
    """An nn.Linear without bias whose weight is `weight` (a list of rows or a tensor), copied in."""
    weight = torch.as_tensor(weight, dtype=torch.float32)
    layer = nn.Linear(weight.shape[1], weight.shape[0], bias=False)
    with torch.no_grad():
        layer.weight.copy_(weight)
    return layer


def draw(word: str, wei: torch.Tensor, bars: dict[str, torch.Tensor]) -> None:
    """`wei` as a heatmap beside bar charts {title: (T, 2) tensor}, two bars per position (channel 0, channel 1), on
    one y range: the outputs alone, or the values v then the outputs, so that each output reads as a blend of them."""
    with_values = len(bars) == 2
    grow = 0.55 * max(0, len(word) - 4)  # inches: from 5 letters on the figure grows, so its numbers stay legible
    size = (10.5, 3.6 + grow) if with_values else (9 + grow, 3.6 + grow)
    ratios = [1, 1, 1] if with_values else [1, 1.2 if grow == 0 else 1]  # a growing heatmap gets half the width
    fig, axes = new_figure(size, 1, 1 + len(bars), gridspec_kw={"width_ratios": ratios})
    show_wei(wei, labels=list(word), stage="weights", ax=axes[0], title="wei (who looks at whom)", axis_names="qk",
             colour_bar=not with_values)
    every = torch.cat(list(bars.values()))
    limits = (min(0.0, float(every.min()) - 1), max(13.0, float(every.max()) + 3))
    positions = torch.arange(len(word)).numpy()
    for ax, (title, rows) in zip(axes[1:], bars.items(), strict=True):
        ax.bar(positions - 0.2, rows[:, 0].numpy(), width=0.4, label="channel 0")
        ax.bar(positions + 0.2, rows[:, 1].numpy(), width=0.4, label="channel 1")
        ax.set_xticks(list(positions), [f"{t}:{c}" for t, c in enumerate(word)])
        ax.set_ylim(*limits)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set(title=title, xlabel="position: character")
    # compact handles and spacing: two entries side by side fit inside a third of the figure's width
    axes[-1].legend(loc="upper left", ncol=2, handlelength=1.0, handletextpad=0.4, columnspacing=0.8)
    fig.tight_layout()
    values = " the values v and of" if with_values else ""
    show(fig, f"Heatmap of wei for {word!r} beside bar charts of{values} out = wei @ v, two bars per position: "
              f"{list(bars)[-1]}.")


@explorer(refuses=[
    ({"value_weight": "1, 2, 3"}, "type 6"),
    ({"value_weight": "1, 2, 3, 4, 5, 6, 7"}, "at most 6"),
    ({"value_weight": "1, 2, x, 4, 5, 6"}, "Entry 2, 'x', is not a number"),  # not "Number 2, 'x', is not a number"
    ({"value_weight": None}, "There are no numbers"),
])
def explore_value_weight(value_weight: str = SWAPPED_VALUE_TEXT):
    """`hou` with a typed 2×3 value weight (six numbers, row by row): print and draw `wei` and `out`.

    Returns {'wei': (3, 3), 'v': (3, 2), 'out': (3, 2)} CPU tensors, or None after one sentence about bad input.
    """
    numbers, problem = parse_numbers(value_weight, HOU_VALUE_TEXT, max_count=6, what="number",
                                     limit="the value weight is 2×3")
    if problem is None and len(numbers) != 6:
        problem = (f"That is {counted(len(numbers), 'number')}: the value weight is 2×3, so type 6, row by row, "
                   f"e.g. {HOU_VALUE_TEXT}.")
    if problem:
        return report(problem)
    w_v = torch.tensor(numbers).reshape(2, 3)
    x = one_hot("hou")[:, :3]
    query, key = linear([row[:3] for row in QUERY_WEIGHT]), linear([row[:3] for row in KEY_WEIGHT])
    with torch.no_grad():
        wei, out = weights_and_output(x, query, key, linear(w_v))
    print(f"W_vᵀ as typed, columns h, o, u: channel 0 {fmt_row(w_v[0])}, channel 1 {fmt_row(w_v[1])}")
    for t, ch in enumerate("hou"):
        print(f"{ch}: wei {fmt_row(wei[t])}   v {fmt_row(w_v[:, t])}   out {fmt_row(out[t])}")
    v = w_v.T  # row t: what position t (one-hot) hands over
    draw("hou", wei, {"v (what each hands over)": v, "out = wei @ v": out})
    return {"wei": wei, "v": v, "out": out}


@explorer(refuses=[
    ({"word": ""}, "empty"),
    ({"word": "youyouyou"}, "9 characters"),
    ({"word": "yax"}, "only knows the letters"),
    ({"word": "é"}, "'é'"),
    ({"word": 3}, "not text"),
])
def explore_word(word: str = "thou"):
    """A word over h, o, u, y, t with the fixed weights: print and draw its `wei` and `out`.

    Returns {'wei': (T, T), 'v': (T, 2), 'out': (T, 2)} CPU tensors, or None after one sentence about bad input.
    """
    _, problem = parse_word(word, MAX_LETTERS, what="word", example="you", alphabet=ALPHABET)
    if problem:
        return report(problem)
    query, key, value = linear(QUERY_WEIGHT), linear(KEY_WEIGHT), linear(VALUE_WEIGHT)
    with torch.no_grad():
        wei, out = weights_and_output(one_hot(word), query, key, value)
        v = value(one_hot(word))
    for t, ch in enumerate(word):
        print(f"{t}:{ch}  wei {fmt_row(wei[t, : t + 1])}   out {fmt_row(out[t])}")
    draw(word, wei, {f"out for {word!r}": out})
    return {"wei": wei, "v": v, "out": out}


# ---- Your turn: one causal self-attention head by hand (no scale yet), blending v, not x -----------------------------


def _weights(x, w_q, w_k, **slip):
    """wei from x and the query and key weights (nn.Linear layout), or one of its slips."""
    return slipped_weights(x @ w_q.T, x @ w_k.T, **slip)


def _attend(x, w_q, w_k, w_v, **slip):
    """The reference head (no scale yet), or with one of the slips of its weights (see slipped_weights)."""
    return _weights(x, w_q, w_k, **slip) @ (x @ w_v.T)


def _slip(**slip):
    """The head with `slip` (see slipped_weights), as a function of the exercise's inputs."""
    return lambda x, w_q, w_k, w_v: _attend(x, w_q, w_k, w_v, **slip)


def _explain_attend(got, expected, inputs, atol) -> str | None:
    """Words for a head whose scores are scaled by a scale that no named mistake has (1/√(T − 1), 1/C, 1/2, …)."""
    x, w_q, w_k, w_v = inputs
    T, C = x.shape[-2:]
    sizes = {"T": T, "T − 1": T - 1, "C": C, "head_size": len(w_q)}
    if scale := typed_scale(lambda scale: _attend(x, w_q, w_k, w_v, scale=scale), got, atol, sizes):
        return (f"your scores are scaled by {scale} before the softmax: in this notebook they go into the softmax as "
                "they are (scaling is the next notebook's step, by 1/√head_size).")
    return None


def _mask_from_dim_1(x, w_q, w_k, w_v):
    """The head with T read as x.shape[1]: right for a batch, a size clash for one sequence (T, C)."""
    scores = (x @ w_q.T) @ (x @ w_k.T).transpose(-2, -1)
    return F.softmax(scores.masked_fill(future_mask(x.shape[1]), float("-inf")), dim=-1) @ (x @ w_v.T)


def _case(seed: int, shape: tuple, head_size: int) -> tuple:
    """Seeded x of `shape` (…, T, C) and three (head_size, C) weights."""
    return seeded_randn(seed, shape, *[(head_size, shape[-1])] * 3)


HOU = (
    torch.eye(3),
    torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 0.5]]),
    torch.tensor([[2.0, 0.0, 1.0], [0.0, 1.0, 1.0]]),
    torch.tensor([[10.0, 0.0, 5.0], [0.0, 10.0, 5.0]]),
)

EXERCISES = (
    Exercise(
        name="attend",
        reference=_attend,
        # The random (7, 3) case comes first: with hou's one-hot x = eye(3), wei @ x is wei itself, so
        # returning wei and blending x could not be told apart there. Its sizes coincide nowhere (T = 7, T − 1 = 6,
        # C = 3, head_size 5), nor do the batch's (T = 5, C = 8, head_size 3), so each size a slip uses shows. The last
        # (B = 3, T = 10, C = 4, head_size 6) is longer than the lesson's block_size of 8: a tril of block_size cut to
        # [:T, :T] is right for the others only.
        cases=(_case(6, (7, 3), 5), HOU, _case(7, (2, 5, 8), 3), _case(9, (3, 10, 4), 6)),
        explain=_explain_attend,
        mistakes=(
            Mistake(
                "returned_wei",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k),
                "you returned the weights wei, of shape (T, T): the head's output is what they blend, "
                "wei @ v with v = x @ w_v.T, of shape (T, head_size).",
            ),
            Mistake(
                "blended_x",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k) @ x,
                "you blended x itself, as scheme three did: the weights should mix each position's value "
                "v = x @ w_v.T, so the last line is wei @ v.",
            ),
            Mistake(
                "forgot_mask",
                _slip(mask=None),
                "every position also blends in its future: mask the scores above the diagonal with float('-inf') "
                "before the softmax" + FORGOT_MASK_CALL,
            ),
            Mistake("masked_the_past", _slip(mask="past"), MASKED_THE_PAST),
            Mistake("masked_the_past", _slip(mask="past", diagonal=0), MASKED_THE_PAST),
            Mistake("plus_infinity", _slip(fill=float("inf")), PLUS_INFINITY),
            Mistake("log_softmax", _slip(softmax=F.log_softmax), LOG_SOFTMAX),
            # kᵀ @ q raises what wei * v raises too: the hint covers both
            Mistake("T_meets_head_size", _slip(product=lambda q, k: k.transpose(-2, -1) @ q), T_MEETS_HEAD_SIZE),
            Mistake("masked_with_zero", _slip(fill=0.0), MASKED_WITH_ZERO),
            Mistake(
                "masked_after_softmax",
                _slip(mask="after"),
                "you masked the future after the softmax, so each row's weights no longer sum to 1: row 0 keeps only "
                "a share of its attention. Mask the scores first (−∞), then softmax, so the past shares it all.",
            ),
            Mistake(
                "softmax_wrong_dim",
                _slip(dim=-2),
                "your softmax ran down the columns: each row (one position looking) must share out its "
                "attention, so use softmax(..., dim=-1).",
            ),
            Mistake(
                "softmax_without_dim",
                lambda x, w_q, w_k, w_v: _attend(x, w_q, w_k, w_v, dim=0 if x.dim() == 3 else -1),
                SOFTMAX_WITHOUT_DIM,
            ),
            Mistake(
                "weights_not_transposed",
                lambda x, w_q, w_k, w_v: x @ w_q,
                "the weights come as nn.Linear keeps them, (head_size, C), one row per number the head makes: "
                "multiply by their transpose, q = x @ w_q.T (and k = x @ w_k.T, v = x @ w_v.T).",
            ),
            Mistake("masked_the_present", _slip(diagonal=0), MASKED_THE_PRESENT),
            Mistake(
                "value_from_the_query_weight",
                lambda x, w_q, w_k, w_v: _attend(x, w_q, w_k, w_q),
                "your v uses w_q: the values have a weight of their own, v = x @ w_v.T.",
            ),
            Mistake(
                "value_from_the_key_weight",
                lambda x, w_q, w_k, w_v: _attend(x, w_q, w_k, w_k),
                "your v uses w_k: the values have a weight of their own, v = x @ w_v.T.",
            ),
            Mistake(
                "transposed_weights",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k).transpose(-2, -1) @ (x @ w_v.T),
                TRANSPOSED_WEIGHTS,
            ),
            Mistake(
                "scaled_too_early",
                lambda x, w_q, w_k, w_v: _attend(x, w_q, w_k, w_v, scale=1 / w_k.shape[0]),
                "you divided the scores by head_size: scaling is the next notebook's step (and it divides by "
                "√head_size). Here the scores go into the softmax as they are.",
            ),
            Mistake(
                "T_from_dimension_1",
                _mask_from_dim_1,
                "your mask was built for fewer positions than the scores have: for one sequence of shape (T, C), "
                "x.shape[1] (like x.shape[-1]) is C, the width of each vector, and it is T only once a batch comes "
                "first. Count from the end, T = x.shape[-2] (and type no size in).",
            ),
            Mistake("swapped_q_and_k", lambda x, w_q, w_k, w_v: _attend(x, w_k, w_q, w_v), SWAPPED_Q_AND_K),
            Mistake(
                "scaled_too_early",
                lambda x, w_q, w_k, w_v: _attend(x, w_q, w_k, w_v, scale=w_k.shape[0] ** -0.5),
                "you divided the scores by √head_size: that is the next notebook's step (and what "
                "F.scaled_dot_product_attention does unless given scale=1.0). Here the scores go into the softmax as "
                "they are.",
            ),
            Mistake(
                "scaled_too_early",
                lambda x, w_q, w_k, w_v: _attend(x, w_q, w_k, w_v, scale=x.shape[-1] ** -0.5),
                "you divided the scores by √C, the width of x: scaling is the next notebook's step (and it divides "
                "by √head_size). Here the scores go into the softmax as they are.",
            ),
            Mistake(
                "scaled_too_early",
                lambda x, w_q, w_k, w_v: _attend(x, w_q, w_k, w_v, scale=x.shape[-2] ** -0.5),
                "you divided the scores by √T, the number of positions: scaling is the next notebook's step, and it "
                "divides by √head_size, whatever the length. Here the scores go into the softmax as they are.",
            ),
            *typed_number_slips(
                lambda inputs, scale: _attend(*inputs, scale=scale),
                "your scores are scaled by {scale}: in this notebook they go into the softmax as they are (scaling "
                "is the next notebook's step, by 1/√head_size).",
            ),
        ),
    ),
)
