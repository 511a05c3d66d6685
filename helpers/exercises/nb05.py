"""Notebook 05's exercise: the scores line, q @ kᵀ, for a batch of sequences."""

import torch

from .core import Exercise, Mistake, declare


def _cases() -> tuple:
    """(q, k) pairs of shape (B, T, head_size): (2, 4, 3) and (3, 7, 5), so T ≠ head_size."""
    g = torch.Generator().manual_seed(5)
    return tuple((torch.randn(B, T, hs, generator=g), torch.randn(B, T, hs, generator=g)) for B, T, hs in
                 ((2, 4, 3), (3, 7, 5)))


def _scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q @ k.transpose(-2, -1)


declare(
    Exercise(
        name="attention_scores",
        reference=_scores,
        cases=_cases(),
        mistakes=(
            Mistake(
                "no_transpose",
                lambda q, k: q @ k,
                "the matmul raised a shape error: q's last dimension (head_size) must meet k's head_size, so swap "
                "k's last two dimensions with k.transpose(-2, -1). Leave the batch alone: k.T or k.transpose(0, 1) "
                "move it.",
            ),
            Mistake(
                "asker_in_columns",
                lambda q, k: k @ q.transpose(-2, -1),
                "you computed k @ qᵀ, the transpose of the answer: rows must be the position asking (its query), "
                "columns the position asked (its key). Use q @ k.transpose(-2, -1).",
            ),
            Mistake(
                "scaled_early",
                lambda q, k: q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5,
                "your scores are scaled by 1/√head_size: that comes later (notebook 07). Return q @ kᵀ alone.",
            ),
            Mistake(
                "transposed_q",
                lambda q, k: q.transpose(-2, -1) @ k,
                "your result is (B, head_size, head_size): you transposed q instead of k. The scores are (B, T, T), "
                "q @ k.transpose(-2, -1).",
            ),
        ),
    )
)
