"""The three ways to let each position blend its past, kept side by side so they can be diffed.

Each takes x of shape (B, T, C) (`average_matmul` and `average_softmax` also (T, C)) and returns the
same shape: row t of the output blends rows 0…t of x and never a later one. Notebooks 01, 02 and 03
each define their own scheme in a cell; these are the copies later notebooks import, and
tests/test_notebook_copies.py keeps the two identical.
"""

import torch
import torch.nn.functional as F


def average_loop(x):
    """Scheme one: the running average, with explicit Python loops."""
    B, T, C = x.shape  # B sequences of T positions, C channels each
    out = torch.zeros_like(x)
    for b in range(B):
        for t in range(T):
            out[b, t] = x[b, : t + 1].mean(0)  # rows 0…t of sequence b, averaged channel by channel
    return out


def average_matmul(x):
    """Scheme two: the same average as one matmul with a row-normalised lower triangle."""
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T, device=x.device))
    wei = tril / tril.sum(1, keepdim=True)
    return wei @ x


def average_softmax(x):
    """Scheme three: scores of 0, the future set to −∞, softmax per row, then the matmul."""
    T = x.shape[-2]
    tril = torch.tril(torch.ones(T, T, device=x.device))
    wei = torch.zeros((T, T), device=x.device)
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    return wei @ x
