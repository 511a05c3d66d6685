"""The steps from scheme three's average to one causal self-attention head, each kept as it is taught.

Every stage has the same body as the one before it except for one line, so `show_diff` can show
the step exactly as it is:

    average_softmax (notebook 03)  scores are all 0
    attend_qk       (notebook 05)  scores come from queries and keys
    attend_qkv      (notebook 06)  the blend mixes values, not x
    attend_scaled   (notebook 07)  the scores are scaled by head_size ** -0.5

`query`, `key` and `value` are projections (e.g. `nn.Linear(C, head_size, bias=False)`) applied
to x of shape (B, T, C) or (T, C). `Head` is the finished module notebook 09 trains.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def attend_qk(x, query, key):
    """Step 05: the scores are queries dotted with keys; the blend still mixes x itself."""
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T, device=x.device))
    wei = query(x) @ key(x).transpose(-2, -1)
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    return wei @ x


def attend_qkv(x, query, key, value):
    """Step 06: the same weights now blend each position's value, not its raw x."""
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T, device=x.device))
    wei = query(x) @ key(x).transpose(-2, -1)
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    return wei @ value(x)


def attend_scaled(x, query, key, value):
    """Step 07: the scores are scaled by 1/√head_size before the softmax."""
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T, device=x.device))
    wei = query(x) @ key(x).transpose(-2, -1) * key.out_features**-0.5
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    return wei @ value(x)


def future_mask(T: int, device=None) -> torch.Tensor:
    """Boolean (T, T): True above the diagonal, where position t would see its future."""
    return torch.ones(T, T, dtype=torch.bool, device=device).triu(diagonal=1)


def causal_softmax(scores: torch.Tensor) -> torch.Tensor:
    """The weights `wei` from (…, T, T) scores: the future set to −∞, then a softmax along each row."""
    return F.softmax(scores.masked_fill(future_mask(scores.shape[-1], scores.device), float("-inf")), dim=-1)


class Head(nn.Module):
    """One head of causal self-attention: softmax(q kᵀ / √head_size, future masked) @ v.

    x has shape (B, T, n_embd) with T ≤ block_size; the output has shape (B, T, head_size).
    """

    def __init__(self, n_embd: int, head_size: int, block_size: int):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.block_size = block_size
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x: torch.Tensor, return_weights: bool = False):
        """The head's output; with `return_weights=True`, also its (B, T, T) weights `wei`."""
        T = x.shape[-2]
        if T > self.block_size:
            raise ValueError(
                f"This head reads at most block_size={self.block_size} positions, but got T={T}: "
                f"crop the input to its last {self.block_size} positions, e.g. idx[:, -{self.block_size}:]."
            )
        k = self.key(x)  # (B, T, head_size)
        q = self.query(x)  # (B, T, head_size)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        out = wei @ self.value(x)  # (B, T, head_size)
        return (out, wei) if return_weights else out
