"""Notebook 06's exercise: one causal self-attention head by hand (no scale yet), blending v, not x."""

import torch
import torch.nn.functional as F

from ..attention import future_mask
from .core import Exercise, Mistake, declare


def _weights(x, w_q, w_k, dim=-1, mask=True, swap=False, scale=1.0):
    """wei from x and the query and key weights (nn.Linear layout), with one knob per known mistake."""
    q, k = x @ w_q.T, x @ w_k.T
    scores = (k @ q.transpose(-2, -1) if swap else q @ k.transpose(-2, -1)) * scale
    if mask:
        scores = scores.masked_fill(future_mask(x.shape[-2]), float("-inf"))
    return F.softmax(scores, dim=dim)


def _attend(x, w_q, w_k, w_v):
    return _weights(x, w_q, w_k) @ (x @ w_v.T)


def _case(seed: int, shape: tuple, head_size: int) -> tuple:
    """Seeded x of `shape` (…, T, C) and three (head_size, C) weights."""
    g = torch.Generator().manual_seed(seed)
    C = shape[-1]
    return (torch.randn(shape, generator=g), *(torch.randn(head_size, C, generator=g) for _ in range(3)))


HOU = (
    torch.eye(3),
    torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 0.5]]),
    torch.tensor([[2.0, 0.0, 1.0], [0.0, 1.0, 1.0]]),
    torch.tensor([[10.0, 0.0, 5.0], [0.0, 10.0, 5.0]]),
)

declare(
    Exercise(
        name="attend",
        reference=_attend,
        # The random (6, 5) case comes first: with hou's one-hot x = eye(3), wei @ x is wei itself, so
        # returning wei and blending x could not be told apart there.
        cases=(_case(6, (6, 5), 4), HOU, _case(7, (2, 5, 4), 3)),
        mistakes=(
            Mistake(
                "returned_wei",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k),
                "you returned the weights wei, of shape (T, T): the head's output is what they blend, "
                "wei @ v with v = x @ w_v.T, of shape (T, head_size).",
            ),
            Mistake(
                "blended_x",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k) @ x,
                "you blended x itself, as scheme three did: the weights should mix each position's value "
                "v = x @ w_v.T, so the last line is wei @ v.",
            ),
            Mistake(
                "forgot_mask",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k, mask=False) @ (x @ w_v.T),
                "every position also blends in its future: mask the scores above the diagonal with "
                "float('-inf') before the softmax.",
            ),
            Mistake(
                "softmax_wrong_dim",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k, dim=-2) @ (x @ w_v.T),
                "your softmax ran down the columns: each row (one position looking) must share out its "
                "attention, so use softmax(..., dim=-1).",
            ),
            Mistake(
                "swapped_q_and_k",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k, swap=True) @ (x @ w_v.T),
                "your scores are k @ qᵀ, the transpose of q @ kᵀ: row t must hold query t dotted with "
                "every key, so compute q @ k.transpose(-2, -1).",
            ),
            Mistake(
                "scaled_too_early",
                lambda x, w_q, w_k, w_v: _weights(x, w_q, w_k, scale=w_k.shape[0] ** -0.5) @ (x @ w_v.T),
                "you divided the scores by √head_size: that is the next notebook's step. Here the scores "
                "go into the softmax as they are.",
            ),
        ),
    )
)
