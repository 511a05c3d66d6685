"""Notebook 05's own helpers (query and key): type a word and see its (T, T) scores q · k and the weights they give;
the exercise, the scores line q @ kᵀ for a batch."""

from functools import partial

import torch
import torch.nn.functional as F
from matplotlib.figure import Figure

from ..attention import future_mask
from ..data import VOCAB_SIZE
from ..exercises import Exercise, Mistake
from ..exercises.explain import ELEMENTWISE_SCORES, explain_scores
from ..plots import Panel, show_wei_stages
from .core import explorer, fmt_row, parse_word, report, seeded_randn, show

BLOCK_SIZE = 8
N_EMBD = 16
HEAD_SIZE = 8


# Fixed random tables: token, position, and W_q and W_k, drawn small (std 0.15) so that the scores stay in a range
# where softmax is not one-hot.
_TOKEN, _POSITION, _W_Q, _W_K = seeded_randn(
    5, (VOCAB_SIZE, N_EMBD), (BLOCK_SIZE, N_EMBD), (N_EMBD, HEAD_SIZE), (N_EMBD, HEAD_SIZE)
)
WEIGHTS = {"token": _TOKEN, "position": _POSITION, "W_q": 0.15 * _W_Q, "W_k": 0.15 * _W_K}


def word_scores(indices: list[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(raw scores q kᵀ, masked scores, softmaxed weights) for a word's character indices, each (T, T)."""
    T = len(indices)
    x = WEIGHTS["token"][indices] + WEIGHTS["position"][:T]
    q, k = x @ WEIGHTS["W_q"], x @ WEIGHTS["W_k"]
    raw = q @ k.transpose(-2, -1)
    masked = raw.masked_fill(future_mask(T, raw.device), float("-inf"))
    return raw, masked, F.softmax(masked, dim=-1)


@explorer(refuses=[
    ({"word": ""}, "is empty"),
    ({"word": "th#u"}, "'#'"),
    ({"word": "a" * (BLOCK_SIZE + 1)}, f"keep it to {BLOCK_SIZE} or fewer"),
    ({"word": 3}, "not text"),
])
def explore_word_scores(word: str = "thou"):
    """Print and draw a word's raw scores, masked scores and weights under fixed random W_q and W_k.

    Returns {'raw', 'masked', 'wei'}, the three (T, T) stages (CPU tensors), or None after printing one sentence
    about unusable input.
    """
    indices, problem = parse_word(word, BLOCK_SIZE, example="thou")
    if problem:
        return report(problem)
    raw, masked, wei = word_scores(indices)
    scores = f"the last position ({word[-1]!r}) scores itself and its past:"
    print(f"{scores} {fmt_row(raw[-1])}")
    print(f"{'and shares out its weights:':>{len(scores)}} {fmt_row(wei[-1], tiny=True)}")
    # The three stages side by side, on a figure pyplot never sees: the two score panels share one colour scale.
    panels = [Panel(raw, "raw", "wei — raw scores q · k"), Panel(masked, "masked"), Panel(wei, "softmax")]
    fig = show_wei_stages(panels, labels=word, axis_names="qk", fig=Figure())
    show(fig, fig.get_label())
    return {"raw": raw, "masked": masked, "wei": wei}


# ---- Your turn: the scores line, q @ kᵀ, for a batch of sequences ----------------------------------------------------


_DRAWN = seeded_randn(5, (2, 4, 3), (2, 4, 3), (3, 7, 5), (3, 7, 5))  # (q, k) pairs, (B, T, head_size): T ≠ head_size

EXERCISES = (
    Exercise(
        name="attention_scores",
        reference=lambda q, k: q @ k.transpose(-2, -1),
        cases=(_DRAWN[:2], _DRAWN[2:]),
        explain=partial(explain_scores, scale="return q @ kᵀ unscaled here (scaling is notebook 07's step)"),
        mistakes=(
            Mistake(
                "no_transpose",
                lambda q, k: q @ k,
                "the matmul raised a shape error: q's last dimension (head_size) must meet k's head_size, so swap "
                "k's last two dimensions with k.transpose(-2, -1). Leave the batch alone: k.T or k.transpose(0, 1) "
                "move it.",
            ),
            Mistake(
                "scaled_early",
                lambda q, k: q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5,
                "your scores are scaled by 1/√head_size: that comes later (notebook 07). Return q @ kᵀ alone.",
            ),
            Mistake(
                "masked_early",
                lambda q, k: (q @ k.transpose(-2, -1)).masked_fill(future_mask(q.shape[-2], q.device), float("-inf")),
                "your scores have −∞ over the future: this step scores every pair, future included. The mask is "
                "the head's next line; return q @ k.transpose(-2, -1) alone.",
            ),
            Mistake(
                "softmaxed",
                lambda q, k: F.softmax(q @ k.transpose(-2, -1), dim=-1),
                "you returned weights: this step stops at the scores, q @ k.transpose(-2, -1). Turning them into "
                "weights is what the head's next two lines do: the mask, then the softmax.",
            ),
            Mistake("multiplied_entry_by_entry", lambda q, k: q * k.transpose(-2, -1), ELEMENTWISE_SCORES),
            Mistake(
                "key_first",
                lambda q, k: k.transpose(-2, -1) @ q,
                "your result is (B, head_size, head_size): the matmul paired up the positions instead of the numbers "
                "of each vector. Put q first and the transposed k second, q @ k.transpose(-2, -1), which gives "
                "(B, T, T).",
            ),
            Mistake(
                "reshaped_for_a_transpose",
                lambda q, k: q @ k.reshape(*k.shape[:-2], k.shape[-1], k.shape[-2]),
                "you reshaped k (view or reshape) to swap its last two sizes: that regroups k's numbers in the order "
                "they are stored, it does not turn rows into columns. Swap the dimensions themselves, "
                "k.transpose(-2, -1).",
            ),
            Mistake(
                "paired_positions",
                lambda q, k: (q * k).sum(-1),
                "each query met only the key at its own position ((q * k).sum(-1) pairs them up): every query meets "
                "every key, q @ k.transpose(-2, -1), (…, T, T).",
            ),
            Mistake(
                "transposed_q",
                lambda q, k: q.transpose(-2, -1) @ k,
                "your result is (B, head_size, head_size): you transposed q instead of k. The scores are (B, T, T), "
                "q @ k.transpose(-2, -1).",
            ),
        ),
    ),
)
