"""The three ways to let each position blend its past, kept side by side so they can be diffed.

Each takes x of shape (B, T, C) (or (T, C)) and returns the same shape: row t of the output
blends rows 0…t of x and never a later one.
"""

import torch
import torch.nn.functional as F


def average_loop(x: torch.Tensor) -> torch.Tensor:
    """Scheme one: the running average, with explicit Python loops."""
    B, T, C = x.shape
    out = torch.zeros_like(x)
    for b in range(B):
        for t in range(T):
            out[b, t] = x[b, : t + 1].mean(0)
    return out


def average_matmul(x: torch.Tensor) -> torch.Tensor:
    """Scheme two: the same average as one matmul with a row-normalised lower triangle."""
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T, device=x.device))
    wei = tril / tril.sum(1, keepdim=True)
    return wei @ x


def average_softmax(x: torch.Tensor) -> torch.Tensor:
    """Scheme three: scores of 0, the future set to −∞, softmax per row, then the matmul."""
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T, device=x.device))
    wei = torch.zeros((T, T), device=x.device)
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    return wei @ x
