"""Notebook 05: query and key. Type a word and see its (T, T) scores q · k and the weights they give."""

import torch
import torch.nn.functional as F
from matplotlib.figure import Figure

from ..attention import future_mask
from ..data import VOCAB_SIZE
from ..plots import show_wei_stages
from .core import fmt_row, parse_word, report, show

BLOCK_SIZE = 8
N_EMBD = 16
HEAD_SIZE = 8


def explorer_weights(seed: int = 5) -> dict[str, torch.Tensor]:
    """Fixed random tables: token (VOCAB_SIZE, N_EMBD), position (BLOCK_SIZE, N_EMBD), W_q and W_k (N_EMBD, HEAD_SIZE).

    The projections are drawn small (std 0.15) so the scores stay in a range where softmax is not one-hot.
    """
    g = torch.Generator().manual_seed(seed)
    return {
        "token": torch.randn(VOCAB_SIZE, N_EMBD, generator=g),
        "position": torch.randn(BLOCK_SIZE, N_EMBD, generator=g),
        "W_q": 0.15 * torch.randn(N_EMBD, HEAD_SIZE, generator=g),
        "W_k": 0.15 * torch.randn(N_EMBD, HEAD_SIZE, generator=g),
    }


WEIGHTS = explorer_weights()


def word_scores(indices: list[int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(raw scores q kᵀ, masked scores, softmaxed weights) for a word's character indices, each (T, T)."""
    T = len(indices)
    x = WEIGHTS["token"][indices] + WEIGHTS["position"][:T]
    q, k = x @ WEIGHTS["W_q"], x @ WEIGHTS["W_k"]
    raw = q @ k.transpose(-2, -1)
    masked = raw.masked_fill(future_mask(T, raw.device), float("-inf"))
    return raw, masked, F.softmax(masked, dim=-1)


def explore_word_scores(word: str = "thou"):
    """Print and draw a word's raw scores, masked scores and weights under fixed random W_q and W_k.

    Returns the (T, T) weights (a CPU tensor), or None after printing one sentence about unusable input.
    """
    indices, problem = parse_word(word, BLOCK_SIZE, example="thou")
    if problem:
        report(problem)
        return None
    raw, masked, wei = word_scores(indices)
    last = word[-1]
    print(f"the last position ({last!r}) scores its past: {fmt_row(raw[-1])}")
    print(f"                     and shares out weights: {fmt_row(wei[-1])}")
    draw_stages(word, raw, masked, wei)
    return wei


def draw_stages(word: str, raw: torch.Tensor, masked: torch.Tensor, wei: torch.Tensor) -> None:
    """The three stages side by side (show_wei_stages), on a figure pyplot never sees.

    The two score panels share one colour scale; the weights panel has the fixed 0–1 scale.
    """
    panels = [(raw, "raw", "wei — raw scores q · k"), (masked, "masked"), (wei, "softmax")]
    fig = show_wei_stages(panels, labels=word, axis_names="qk", fig=Figure())
    show(fig, fig.get_label())
