"""Reference solutions for notebook 03's "your turn" exercises."""

import torch
import torch.nn.functional as F


def masked_softmax_weights(scores: torch.Tensor) -> torch.Tensor:
    """(T, T) scores → (T, T) weights: the future set to −∞, then a softmax along each row."""
    T = scores.shape[-1]
    tril = torch.tril(torch.ones(T, T, device=scores.device))
    wei = scores.masked_fill(tril == 0, float("-inf"))
    return F.softmax(wei, dim=-1)


def standardise_rows(x: torch.Tensor, eps: float = 1e-5) -> torch.Tensor:
    """Give every row of x mean 0 and variance 1, as LayerNorm does (without its learned scale and shift)."""
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)
