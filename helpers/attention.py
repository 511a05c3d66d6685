"""The steps from scheme three's average to one causal self-attention head, each kept as it is taught.

Every stage has the same body as the one before it except for one line, so `show_diff` can show
the step exactly as it is:

    average_softmax (notebook 03)  scores are all 0
    attend_qk       (notebook 05)  scores come from queries and keys
    attend_qkv      (notebook 06)  the blend mixes values, not x
    attend_scaled   (notebook 07)  the scores are scaled by head_size ** -0.5

`query`, `key` and `value` are projections (e.g. `nn.Linear(C, head_size, bias=False)`) applied
to x of shape (B, T, C) or (T, C). `Head` (notebook 07) is the module that holds the three
projections and runs `attend_scaled`. Each notebook defines its own step in a cell; these are the
copies later notebooks import, and tests/test_notebook_copies.py keeps the two identical.
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
    wei = query(x) @ key(x).transpose(-2, -1) * key.out_features ** -0.5
    wei = wei.masked_fill(tril == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    return wei @ value(x)


class Head(nn.Module):
    """One head of causal self-attention: its three projections, run through `attend_scaled`.

    x has shape (B, T, n_embd) or (T, n_embd), any T; the output has shape (…, T, head_size).
    """

    def __init__(self, n_embd, head_size):
        super().__init__()
        if head_size < 1:  # the scale line would divide by √0
            raise ValueError(f"head_size must be at least 1 (numbers per query, key and value), not {head_size}.")
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)

    def forward(self, x):
        return attend_scaled(x, self.query, self.key, self.value)


def attention_weights(attend, x, query, key) -> torch.Tensor:
    """The (…, T, T) weights `wei` an attention step uses, read off the step itself.

    `attend(x, query, key, value)` returns `wei @ value(x)`. Handed values that are the one-hot
    positions (the T × T identity), it returns `wei @ I`, which is `wei` exactly: notebook 01 read
    scheme one's weights off the same way.
    """
    T = x.shape[-2]
    return attend(x, query, key, lambda x: torch.eye(T, device=x.device))


def weights_and_output(x, query, key, value) -> tuple[torch.Tensor, torch.Tensor]:
    """Notebook 06's step, `attend_qkv`: the weights `wei` it uses, and its output."""
    return attention_weights(attend_qkv, x, query, key), attend_qkv(x, query, key, value)


def causal_softmax(scores: torch.Tensor) -> torch.Tensor:
    """The weights `wei` from (…, T, T) scores: the future set to −∞, then a softmax along each row."""
    T = scores.shape[-1]
    tril = torch.tril(torch.ones(T, T, device=scores.device))
    return F.softmax(scores.masked_fill(tril == 0, float("-inf")), dim=-1)


def future_mask(T: int, device=None, diagonal: int = 1) -> torch.Tensor:
    """Boolean (T, T): True above the diagonal, where position t would see its future (`diagonal=0` marks the
    diagonal too, the present: the checkers' slip of masking a position from itself)."""
    return torch.ones(T, T, dtype=torch.bool, device=device).triu(diagonal=diagonal)
