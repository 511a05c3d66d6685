"""Reference solution for notebook 07's "your turn" exercise."""

import torch


def scaled_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """(…, T, head_size) queries and keys → (…, T, T) scores q kᵀ / √head_size."""
    return q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
