"""Notebook 10's own helpers (several heads, then feed-forward): the exercise, the multi-head forward, from each
head's weight matrices to the projection."""

from itertools import permutations

import torch

from ..exercises import Exercise, Mistake
from ..exercises.core import as_float, close
from ..exercises.explain import MASKED_THE_PRESENT, SOFTMAX_WITHOUT_DIM, slipped_weights
from .core import seeded_randn


def _right(x, wq, wk, wv, proj, dim=-1, scale=None, mask="before", project=True, softmax_dim=-1, heads=None,
           join="cat", diagonal=1):
    """The multi-head forward, or one of its slips (concatenation dimension, scale, mask: "before" the softmax,
    "after" it or None, softmax, projection, `heads`: whose weights each place in the concatenation gets, `join`:
    "cat", or "interleave" each head's numbers, or "reshape" a (B, n_head, T, head_size) stack without transposing;
    `diagonal`: where the mask begins, 1 above the diagonal)."""
    scale = wq.shape[-1] ** -0.5 if scale is None else scale
    outs = [slipped_weights(x @ wq[h], x @ wk[h], scale, mask, diagonal=diagonal, dim=softmax_dim) @ (x @ wv[h])
            for h in (range(wq.shape[0]) if heads is None else heads)]
    if join == "interleave":
        out = torch.stack(outs, dim=-1).flatten(-2)
    elif join == "reshape":
        out = torch.stack(outs, dim=-3).reshape(*x.shape[:-1], -1)
    else:
        out = torch.cat(outs, dim=dim)
    return proj(out) if project else out


def _projection(wp: torch.Tensor, T: int):
    """The output projection as a function of the heads' concatenation (a learner's call cannot change wp)."""

    def proj(out):
        if out.shape[-2:] != (T, wp.shape[0]):
            raise ValueError(
                f"proj reads (…, {T}, {wp.shape[0]}) tensors (T = {T} positions of n_head · head_size numbers), "
                f"not one of shape {tuple(out.shape)}: put every head's output side by side first, "
                "proj(torch.cat(outs, dim=-1))."
            )
        return out @ wp

    return proj


def _explain_heads(got, expected, inputs, atol) -> str | None:
    """Words for heads that are each right but side by side in another order, or that all use one head's weights."""
    x, wq, wk, wv, proj = inputs
    n_head = len(wq)
    for heads in [*permutations(range(n_head)), *([h] * n_head for h in range(n_head))]:
        if list(heads) == list(range(n_head)):
            continue
        same = _right(x, wq, wk, wv, proj, heads=heads)
        if got.shape == same.shape and close(got, as_float(same), atol):
            if len(set(heads)) == 1:
                return (f"every head used head {heads[0]}'s weights: head h must use its own, wq[h], wk[h] and wv[h] "
                        "(check the index inside your loop).")
            return (f"each head is right, but they are side by side in the order {', '.join(map(str, heads))}: proj "
                    "reads head 0's numbers first, then head 1's, and so on, so put the outputs in the order of the "
                    "heads.")
    return None


def _case(seed: int, shape: tuple, n_head: int) -> tuple:
    """Seeded x of `shape` (…, T, C), n_head heads of size hs = C // n_head (wq, wk, wv: (n_head, C, hs)), proj."""
    C = shape[-1]
    wq, wk, wv, x, wp = seeded_randn(seed, *[(n_head, C, C // n_head)] * 3, shape, (C, C))
    return x, wq * C**-0.5, wk * C**-0.5, wv * C**-0.5, _projection(wp * C**-0.5, shape[-2])


EXERCISES = (
    Exercise(
        name="multi_head",
        reference=lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj),
        cases=(_case(10, (2, 6, 24), 4), _case(11, (3, 5, 12), 3)),  # head_size 6 and 4: never √C or n_head
        explain=_explain_heads,
        mistakes=(
            Mistake(
                "concatenated_along_time",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, dim=-2),
                "you concatenated the heads along the time dimension, so the sequence got n_head times longer: "
                "put the heads side by side along the last dimension, torch.cat(outs, dim=-1).",
            ),
            Mistake(
                "concatenated_along_batch",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, dim=0),
                "you concatenated the heads along the batch dimension (dim=0), so each head became extra "
                "sequences: put them side by side along the last dimension, torch.cat(outs, dim=-1).",
            ),
            Mistake(
                "forgot_projection",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, project=False),
                "the heads are concatenated correctly, but the projection is missing: return "
                "proj(torch.cat(outs, dim=-1)).",
            ),
            Mistake(
                "scaled_by_n_embd",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=x.shape[-1] ** -0.5),
                "you scaled the scores by 1/√n_embd (x.shape[-1]): each score is a dot product of head_size "
                "numbers, so scale by head_size ** -0.5, the width of one head (wq.shape[-1]).",
            ),
            Mistake(
                "scaled_by_d",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=1 / wq.shape[-1]),
                "you divided the scores by head_size itself: their spread grows like √head_size, so divide by the "
                "square root, multiplying by head_size ** -0.5 (wq.shape[-1] ** -0.5), as in notebook 07.",
            ),
            Mistake(
                "scaled_by_n_head",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=len(wq) ** -0.5),
                "you scaled the scores by 1/√n_head (len(wq), the number of heads): each score is a dot product of "
                "head_size numbers, so scale by head_size ** -0.5, the width of one head (wq.shape[-1]).",
            ),
            Mistake(
                "forgot_scale",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=1.0),
                "the heads' scores are not scaled: multiply each head's q @ kᵀ by head_size ** -0.5 "
                "(wq.shape[-1] ** -0.5) before the mask and the softmax, as in notebook 07.",
            ),
            Mistake(
                "softmax_wrong_dim",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, softmax_dim=-2),
                "your softmax ran down the columns: each position's row shares out its attention, so use "
                "softmax(..., dim=-1).",
            ),
            Mistake(
                "softmax_without_dim",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, softmax_dim=0 if x.dim() == 3 else -1),
                SOFTMAX_WITHOUT_DIM,
            ),
            Mistake(
                "interleaved_heads",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, join="interleave"),
                "your heads' numbers are interleaved (head 0's first number, then head 1's first, …), as "
                "torch.stack(outs, dim=-1).flatten(-2) leaves them: proj reads all of head 0's numbers first, then "
                "head 1's, so put the heads side by side, torch.cat(outs, dim=-1).",
            ),
            Mistake(
                "reshaped_without_transpose",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, join="reshape"),
                "you reshaped a (B, n_head, T, head_size) tensor to (B, T, n_head · head_size) without moving the "
                "heads next to head_size first, so each row mixes several positions: transpose(1, 2) before the "
                "reshape, or put the heads side by side with torch.cat(outs, dim=-1).",
            ),
            Mistake(
                "weights_transposed",
                lambda x, wq, wk, wv, proj: x @ wq[0].T,
                "here each head's weights are stored ready to use, (C, head_size): q = x @ wq[h], with no .T (the .T "
                "belongs to nn.Linear's layout, (head_size, C), as in notebook 06).",
            ),
            Mistake(
                "masked_after_softmax",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, mask="after"),
                "you masked the future after the softmax, so each head's rows no longer sum to 1. Mask each head's "
                "scores first (−∞), then softmax, so the past shares all of a position's attention.",
            ),
            Mistake(
                "masked_the_present",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, diagonal=0),
                MASKED_THE_PRESENT,
            ),
            Mistake(
                "forgot_mask",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, mask=None),
                "every position reads its future: mask each head's scores above the diagonal with −∞ before "
                "the softmax, as in notebook 03.",
            ),
        ),
    ),
)
