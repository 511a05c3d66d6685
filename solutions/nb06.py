"""Reference solution for notebook 06's "your turn" exercise."""

import torch
import torch.nn.functional as F


def attend(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor) -> torch.Tensor:
    """Causal self-attention without the scale: x (…, T, C), each weight (head_size, C) → (…, T, head_size)."""
    q, k, v = x @ w_q.T, x @ w_k.T, x @ w_v.T
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T, device=x.device))
    wei = (q @ k.transpose(-2, -1)).masked_fill(tril == 0, float("-inf"))
    return F.softmax(wei, dim=-1) @ v
