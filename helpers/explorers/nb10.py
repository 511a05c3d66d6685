"""Notebook 10's own helpers (several heads, then feed-forward): the exercise, the multi-head forward, from each
head's weight matrices to the projection."""

from itertools import permutations

import torch
import torch.nn.functional as F

from ..attention import future_mask
from ..exercises import Exercise, Mistake
from ..exercises import explain as hints  # the hints and slipped weights several exercises share
from ..exercises.core import as_float, close, match_mistake
from ..words import counted
from .core import seeded_randn


def _right(x, wq, wk, wv, proj, dim=-1, scale=None, mask="before", project=True, softmax_dim=-1, heads=None,
           join="cat", diagonal=1, fill=float("-inf"), product=None, softmax=F.softmax, head=None):
    """The multi-head forward, or one of its slips (concatenation dimension, scale, mask: "before" the softmax,
    "after" it, None or "past" (see hints.slipped_weights), and its `fill`, softmax, projection, `heads`: whose weights
    each place in the concatenation gets, `join`: "cat", or "interleave" each head's numbers, or "reshape" a
    (B, n_head, T, head_size) stack without transposing, or "reshape_stacked_first" an (n_head, B, T, head_size) one;
    `diagonal`: where the mask begins, 1 above the diagonal; `product` and `softmax`: as in hints.slipped_weights;
    `head`: a function (q, k, v, scale) computing each head's output in place of the right one)."""
    scale = wq.shape[-1] ** -0.5 if scale is None else scale
    if head is None:
        def head(q, k, v, scale):
            return hints.slipped_weights(q, k, scale, mask, fill, diagonal, softmax_dim, product, softmax) @ v
    outs = [head(x @ wq[h], x @ wk[h], x @ wv[h], scale) for h in (range(wq.shape[0]) if heads is None else heads)]
    if join == "interleave":
        out = torch.stack(outs, dim=-1).flatten(-2)
    elif join in ("reshape", "reshape_stacked_first"):  # from (B, n_head, T, head_size), or (n_head, B, T, head_size)
        out = torch.stack(outs, dim=-3 if join == "reshape" else 0).reshape(*x.shape[:-1], -1)
    else:
        out = torch.cat(outs, dim=dim)
    return proj(out) if project else out


def _stacked_across_heads(x, wq, wk, wv, proj):
    """Every head at once, as a (…, n_head, T, T) stack, with the softmax along dim -3, across the heads: what a
    softmax without dim= does to a batch's four dimensions (it picks dim 1)."""
    q, k, v = (x.unsqueeze(-3) @ w for w in (wq, wk, wv))  # (…, n_head, T, head_size)
    wei = (q @ k.transpose(-2, -1) * wq.shape[-1] ** -0.5).masked_fill(future_mask(x.shape[-2]), float("-inf"))
    out = F.softmax(wei, dim=-3) @ v
    return proj(out.transpose(-3, -2).flatten(-2))


def _slip(**slip):
    """The multi-head forward with `slip`, one or more of _right's slips, as a function of the exercise's inputs."""
    return lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, **slip)


def _projection(wp: torch.Tensor, T: int, n_head: int):
    """The output projection as a function of the heads' concatenation (a learner's call cannot change wp): like an
    nn.Linear, it takes any dimensions in front of the last, and refuses, in words, a last dimension other than C."""
    C = wp.shape[0]

    def proj(out):
        if out.dim() < 1 or out.shape[-1] != C:  # a linear layer: any dimensions in front, C numbers last
            width, head_size = out.shape[-1] if out.dim() else 0, C // n_head
            got = (f"proj reads (…, {T}, {C}) tensors, {n_head} heads of {head_size} numbers side by side, but got "
                   f"{width} numbers per position")
            if out.dim() >= 2 and out.shape[-2] == T and head_size < width < C and width % head_size == 0:
                raise ValueError(f"{got}, as many as {counted(width // head_size, 'head')} give: is a head left out? "
                                 "Loop over every head, for h in range(len(wq)).")
            if out.dim() >= 2 and out.shape[-2] == T and width > C and width % n_head == 0:
                raise ValueError(f"{got}, {width // n_head} per head: each head's output is wei @ v, with "
                                 f"v = x @ wv[h], {head_size} numbers wide (blending x itself gives {C}, and wei "
                                 "alone T).")
            raise ValueError(
                f"proj reads (…, {T}, {C}) tensors (T = {T} positions of n_head · head_size numbers), "
                f"not one of shape {tuple(out.shape)}: put every head's output side by side first, "
                "proj(torch.cat(outs, dim=-1))."
            )
        return out @ wp

    return proj


def _explain_heads(got, expected, inputs, atol) -> str | None:
    """Words for heads whose scores are scaled by 1/√n or 1/n for an n other than the head size (a size typed in or
    read elsewhere), or that are each right but side by side in another order, or all use one head's weights; and for
    heads joined without the projection that, projected, would still show a named mistake or a misplaced head (the
    scale left out, say: two slips, which no one mistake gives)."""
    if words := _typed_scale_words(got, inputs, atol) or _misplaced_heads_words(got, inputs, atol):
        return words
    proj = inputs[-1]  # got has the answer's shape, (…, T, C): that of the heads side by side
    projected = as_float(proj(got.float()))  # proj works in float32
    if close(projected, expected, atol):  # the projection alone: a named mistake
        return None
    named = match_mistake(EXERCISES[0], inputs, projected)
    if words := named.message if named else _misplaced_heads_words(projected, inputs, atol):
        return (f"the projection is missing (return proj(torch.cat(outs, dim=-1))), and projected, your heads are "
                f"still wrong: {words}")
    return None


def _typed_scale_words(got, inputs, atol) -> str | None:
    """_explain_heads's words for scores scaled by 1/√n or 1/n, n a size other than the head's or a number typed in."""
    x, wq, wk, wv, proj = inputs
    B, T, C = x.shape
    sizes = {"B": B, "T": T, "T − 1": T - 1, "C": C, "n_head": len(wq)}
    if scale := hints.typed_scale(lambda scale: _right(x, wq, wk, wv, proj, scale=scale), got, atol, sizes):
        return (f"your scores are scaled by {scale}, but each head here is {wq.shape[-1]} wide, so the scale is "
                f"{wq.shape[-1]} ** -0.5: check which size the scale reads (one head's width, head_size = "
                "wq.shape[-1], not T, the batch, n_embd or a number typed in) and how it is computed (head_size ** "
                "-0.5 as one power; (2 * head_size) ** -0.5 or an extra factor is another scale).")
    return None


def _misplaced_heads_words(got, inputs, atol) -> str | None:
    """_explain_heads's words for heads each right but side by side in another order, or all with one head's weights."""
    x, wq, wk, wv, proj = inputs
    n_head = len(wq)
    outs = [_right(x, wq, wk, wv, proj, heads=[h], project=False) for h in range(n_head)]  # each head once
    for heads in [*permutations(range(n_head)), *([h] * n_head for h in range(n_head))]:
        if list(heads) == list(range(n_head)):
            continue
        same = proj(torch.cat([outs[h] for h in heads], dim=-1))  # _right(…, heads=heads), its heads computed once
        if close(got, as_float(same), atol):  # got has the answer's shape, as every explain's does
            if len(set(heads)) == 1:
                return (f"every head used head {heads[0]}'s weights: head h must use its own, wq[h], wk[h] and wv[h] "
                        "(check the index inside your loop).")
            return (f"each head is right, but they are side by side in the order {', '.join(map(str, heads))}: proj "
                    "reads head 0's numbers first, then head 1's, and so on, so put the outputs in the order of the "
                    "heads.")
    return None


def _case(seed: int, shape: tuple, n_head: int, zero_at: tuple | None = None) -> tuple:
    """Seeded x of `shape` (…, T, C), n_head heads of size hs = C // n_head (wq, wk, wv: (n_head, C, hs)), proj, x and
    the heads' weights carrying a gradient (so an answer under torch.no_grad() or .detach() is told it breaks it); with
    `zero_at` (b, t), position t of sequence b all 0, so that its scores are exactly 0 (a mask picked by the scores'
    values, tril(wei) == 0, hides them)."""
    C = shape[-1]
    wq, wk, wv, x, wp = seeded_randn(seed, *[(n_head, C, C // n_head)] * 3, shape, (C, C))
    if zero_at is not None:
        x[zero_at] = 0.0
    weights = (w * C**-0.5 for w in (wq, wk, wv))  # a model's x and weights carry a gradient: so do these
    return (x.requires_grad_(), *(w.requires_grad_() for w in weights), _projection(wp * C**-0.5, shape[-2], n_head))


# head_size 10 and 4, never √C, n_head, B, T or T − 1, nor 8 (the lesson's head size): a slip that swaps or
# drops a transpose changes the shape, and a scale taken from the wrong size is wrong. The third (B = 4, T = 12,
# C = 10, 2 heads of 5) is longer than the lesson's block_size of 8 and than C (a tril of block_size, or of C,
# cut to [:T, :T] is right for the others only), and position 4 of its sequence 1 is all 0 (a mask picked by
# the scores' values, tril(wei) == 0, hides its scores of 0). The first batch is of 11, so that 1/B is no slip's scale
# (1/5 would be 2/head_size, 1/2 is 1/√n_head, 1/8 a typed √64) and 1/√B none either (1/3 is √10 rounded down).
CASES = (_case(10, (11, 7, 40), 4), _case(11, (3, 6, 12), 3), _case(12, (4, 12, 10), 2, zero_at=(1, 4)))


EXERCISES = (
    Exercise(
        name="multi_head",
        reference=lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj),
        cases=CASES,
        explain=_explain_heads,
        mistakes=(
            Mistake(
                "concatenated_along_time",
                _slip(dim=-2),
                "you concatenated the heads along the time dimension, so the sequence got n_head times longer: "
                "put the heads side by side along the last dimension, torch.cat(outs, dim=-1).",
            ),
            Mistake(
                "concatenated_along_batch",
                _slip(dim=0),
                "you concatenated the heads along the batch dimension (dim=0), so each head became extra "
                "sequences: put them side by side along the last dimension, torch.cat(outs, dim=-1).",
            ),
            Mistake(
                "forgot_projection",
                _slip(project=False),
                "the heads are concatenated correctly, but the projection is missing: return "
                "proj(torch.cat(outs, dim=-1)).",
            ),
            Mistake(
                "scaled_by_n_embd",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=x.shape[-1] ** -0.5),
                "you scaled the scores by 1/√n_embd (x.shape[-1]): each score is a dot product of head_size "
                "numbers, so scale by head_size ** -0.5, the width of one head (wq.shape[-1]).",
                every_case=True,
            ),
            *hints.scale_slips(lambda inputs, scale: _right(*inputs, scale=scale), lambda inputs: inputs[1].shape[-1],
                               "wq.shape[-1]", ", then ".join(str(case[1].shape[-1]) for case in CASES)),
            Mistake(
                "scaled_by_n_head",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=len(wq) ** -0.5),
                "you scaled the scores by 1/√n_head (len(wq), the number of heads): each score is a dot product of "
                "head_size numbers, so scale by head_size ** -0.5, the width of one head (wq.shape[-1]).",
                every_case=True,
            ),
            Mistake(
                "scaled_by_n_embd",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=1 / x.shape[-1]),
                "you divided the scores by n_embd (x.shape[-1]): each score is a dot product of head_size numbers, "
                "so scale by head_size ** -0.5, the square root of one head's width (wq.shape[-1] ** -0.5).",
                every_case=True,
            ),
            Mistake(
                "scaled_by_n_head",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=1 / len(wq)),
                "you divided the scores by the number of heads (len(wq)): each score is a dot product of head_size "
                "numbers, so scale by head_size ** -0.5, the square root of one head's width (wq.shape[-1] ** -0.5).",
                every_case=True,
            ),
            Mistake(
                "forgot_scale",
                _slip(scale=1.0),
                "the heads' scores are not scaled: multiply each head's q @ kᵀ by head_size ** -0.5 "
                "(wq.shape[-1] ** -0.5) before the mask and the softmax, as in notebook 07.",
            ),
            Mistake(
                "softmax_wrong_dim",
                _slip(softmax_dim=-2),
                "your softmax ran down the columns: each position's row shares out its attention, so use "
                "softmax(..., dim=-1).",
            ),
            Mistake(
                "softmax_without_dim",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, softmax_dim=0 if x.dim() == 3 else -1),
                hints.SOFTMAX_WITHOUT_DIM,
            ),
            Mistake(
                "softmax_across_heads",
                _stacked_across_heads,
                "your softmax ran across the heads (where every head's score is −∞, in the future, that is 0/0: "
                "NaN): along the stack's dimension of heads, dim 1 of (B, n_head, T, T) or dim 0 of (n_head, B, T, "
                "T). A softmax without dim= on four dimensions picks dim 1. Each position's row shares out its "
                "attention: softmax(..., dim=-1).",
            ),
            Mistake(
                "interleaved_heads",
                _slip(join="interleave"),
                "your heads' numbers are interleaved (head 0's first number, then head 1's first, …), as "
                "torch.stack(outs, dim=-1).flatten(-2) leaves them: proj reads all of head 0's numbers first, then "
                "head 1's, so put the heads side by side, torch.cat(outs, dim=-1).",
            ),
            Mistake(
                "reshaped_without_transpose",
                _slip(join="reshape"),
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
                _slip(mask="after"),
                "you masked the future after the softmax, so each head's rows no longer sum to 1. Mask each head's "
                "scores first (−∞), then softmax, so the past shares all of a position's attention.",
            ),
            Mistake("masked_the_present", _slip(diagonal=0), hints.MASKED_THE_PRESENT),
            *(Mistake(  # q @ k raises what v @ wei raises too, and wq[h] @ x what it raises on x with a gradient
                "product_misaligned",
                wrong,
                "one of your products A @ B pairs A's last dimension, head_size, with B's rows, T. In the scores, "
                "transpose the key's last two dimensions, q @ k.transpose(-2, -1) (untransposed, or with a transpose "
                "such as transpose(-2, 1) that on a batch swaps a dimension with itself, k stays (…, T, head_size)). "
                "Elsewhere keep the lesson's order: x @ wq[h], x @ wk[h], x @ wv[h] and wei @ v.",
            ) for wrong in (_slip(product=lambda q, k: q @ k), lambda x, wq, wk, wv, proj: wq[0] @ x)),
            # kᵀ @ q raises what wei * v raises too
            Mistake("T_meets_head_size", _slip(product=lambda q, k: k.transpose(-2, -1) @ q), hints.T_MEETS_HEAD_SIZE),
            Mistake(
                "multiplied_entry_by_entry",
                _slip(product=lambda q, k: q * k.transpose(-2, -1)),
                "two tensors that must line up entry for entry did not. Either q and kᵀ were combined with *, + or − "
                "(a score is a query dotted with a key, the sum of products that q @ k.transpose(-2, -1) makes), or "
                "the mask has another size than the scores, (T, T): build it from T = x.shape[-2], not from "
                "head_size. The line that raised tells which.",
            ),
            Mistake(
                "returned_wei",
                _slip(head=lambda q, k, v, scale: hints.slipped_weights(q, k, scale)),
                "each head gave its weights wei, (…, T, T): a head's output is what they blend, wei @ v with "
                "v = x @ wv[h], (…, T, head_size).",
            ),
            Mistake(
                "blended_x",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, head=lambda q, k, v, scale: (
                    hints.slipped_weights(q, k, scale) @ x)),
                "each head blended x itself: the weights mix each position's value, v = x @ wv[h], so a head's "
                "output is wei @ v, head_size numbers wide.",
            ),
            Mistake(
                "all_heads_at_once",
                lambda x, wq, wk, wv, proj: x @ wq,
                "wq, wk and wv each hold every head's weights, (n_head, C, head_size): without [h], x @ wq (or wk, "
                "wv) multiplies by all of them at once. Inside the loop take head h's own, x @ wq[h], x @ wk[h] and "
                "x @ wv[h].",
            ),
            Mistake(
                "scaled_by_sqrt_T",
                lambda x, wq, wk, wv, proj: _right(x, wq, wk, wv, proj, scale=x.shape[-2] ** -0.5),
                "you scaled by √T, the number of positions (on a batch, q.shape[1] and k.shape[1] are T: count from "
                "the end, k.shape[-1] is head_size): each score is a dot product of head_size numbers, so scale by "
                "head_size ** -0.5 (wq.shape[-1] ** -0.5).",
                every_case=True,
            ),
            Mistake("masked_the_past", _slip(mask="past"), hints.MASKED_THE_PAST),
            Mistake("masked_the_past", _slip(mask="past", diagonal=0), hints.MASKED_THE_PAST),
            Mistake("log_softmax", _slip(softmax=F.log_softmax), hints.LOG_SOFTMAX),
            Mistake("plus_infinity", _slip(fill=float("inf")), hints.PLUS_INFINITY),
            Mistake("masked_with_zero", _slip(fill=0.0), hints.MASKED_WITH_ZERO),
            Mistake(
                "scaled_after_softmax",
                _slip(head=lambda q, k, v, scale: hints.slipped_weights(q, k) * scale @ v),
                "you scaled each head's weights after the softmax, so its rows no longer sum to 1: the scale belongs "
                "on the scores, (q @ k.transpose(-2, -1)) * head_size ** -0.5, before the mask and the softmax.",
            ),
            Mistake(
                "transposed_weights",
                _slip(head=lambda q, k, v, scale: hints.slipped_weights(q, k, scale).transpose(-2, -1) @ v),
                hints.TRANSPOSED_WEIGHTS,
            ),
            # head_size is the same either way
            Mistake("swapped_q_and_k", lambda x, wq, wk, wv, proj: _right(x, wk, wq, wv, proj), hints.SWAPPED_Q_AND_K),
            *(Mistake(  # the values made with the query's weights, or the key's
                "value_from_another_weight",
                lambda x, wq, wk, wv, proj, which=which: _right(x, wq, wk, (wq, wk)[which], proj),
                f"each head's v uses {name}[h]: the values have weights of their own, v = x @ wv[h].",
            ) for which, name in enumerate(("wq", "wk"))),
            Mistake(
                "reshaped_without_transpose",
                _slip(join="reshape_stacked_first"),
                "you stacked the heads in front, (n_head, B, T, head_size), and reshaped that to (B, T, n_head · "
                "head_size), so each row holds numbers of other sequences and positions: put the heads side by side "
                "instead, torch.cat(outs, dim=-1).",
            ),
            Mistake(
                "forgot_mask",
                _slip(mask=None),
                "every position reads its future: mask each head's scores above the diagonal with −∞ before "
                "the softmax, as in notebook 03" + hints.FORGOT_MASK_CALL,
            ),
        ),
    ),
)
