"""Reference solution for notebook 05's "your turn" exercise."""

import torch


def attention_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """(B, T, head_size) queries and keys → (B, T, T) scores: cell [b, t, s] is q[b, t] · k[b, s]."""
    return q @ k.transpose(-2, -1)
