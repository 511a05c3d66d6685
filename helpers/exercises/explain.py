"""Plain words for a wrong (T, T) weight matrix, shared by every exercise whose answer is `wei`; hints that several
exercises share; and `slipped_weights`, the weights with one of the slips that 06's and 10's exercises name."""

import math

import torch
import torch.nn.functional as F

from ..attention import future_mask
from ..words import listed
from .core import Mistake, as_float, close, first_index, fmt, fmt_apart, scaled_by, unwritten_rows

MASKED_THE_PRESENT = (  # the hint for a mask that hides the diagonal too, in notebook 06's and 10's exercises
    "you masked the diagonal too, so position 0 has nothing to look at (NaN): a position may read itself, so mask "
    "only above the diagonal, triu(diagonal=1) (or tril == 0)."
)
SOFTMAX_WITHOUT_DIM = (  # the hint for a softmax along dim 0 of a batch, in notebook 06's and 10's exercises
    "your softmax ran along dim 0, sharing each weight out across the sequences of the batch (where every sequence "
    "has −∞, in the future, that is 0/0: NaN). dim=0 does that, and so does a softmax without dim=: PyTorch then "
    "picks one (and warns), the rows of one sequence's (T, T) scores but dim 0 of a batch's (B, T, T). Each "
    "position's row shares out its attention: softmax(..., dim=-1)."
)
MASKED_THE_PAST = (  # the hint for a mask turned the wrong way, in notebook 06's and 10's exercises
    "your mask hides the past and lets each position see its future (torch.triu where torch.tril belongs, or "
    "masked_fill(tril != 0, …)): row t may see positions 0…t, so keep the lower triangle, tril = "
    "torch.tril(torch.ones(T, T)), and fill where tril == 0."
)
LOG_SOFTMAX = (  # the hint for log_softmax where softmax belongs, in notebook 06's and 10's exercises
    "F.log_softmax gives log-weights (−∞ for the future, 0 or below elsewhere), not weights that sum to 1, and −∞ "
    "times values of both signs adds up to ∞ − ∞, NaN: blend with F.softmax(..., dim=-1)."
)
FORGOT_MASK_CALL = (  # what to check when a mask seems forgotten though masked_fill is called, in 03, 06 and 10
    ". If you call masked_fill already, keep its result (it returns a new tensor: wei = wei.masked_fill(…)), and check "
    "that its condition picks the future: tril == 0, with tril = torch.tril(torch.ones(T, T))."
)
T_MEETS_HEAD_SIZE = (  # the hint for a (T, T) tensor meeting a head_size-wide one, in notebook 06's and 10's exercises
    "a (T, T) tensor met one that is head_size wide: the scores are q @ k.transpose(-2, -1), (T, T) (kᵀ @ q or "
    "qᵀ @ k would be (head_size, head_size), which the mask does not fit), and the output blends v with a matrix "
    "product, wei @ v, not wei * v."
)
ELEMENTWISE_SCORES = (  # the hint for q * kᵀ, in notebook 05's, 07's and 10's exercises
    "you combined q and kᵀ entry by entry (with *, + or -), which needs shapes that line up entry for entry: a "
    "score is a query dotted with a key, a sum of products that the matrix product @ makes, q @ k.transpose(-2, -1)."
)
PLUS_INFINITY = (  # the hint for a future filled with +∞, in notebook 03's, 06's and 10's exercises
    "you filled the future with +∞, float('inf') without its minus sign: the softmax of a row holding +∞ computes "
    "∞ − ∞, NaN. Fill it with float('-inf'), since e^−∞ is exactly 0."
)
MASKED_WITH_ZERO = (  # the hint for a future filled with 0 before the softmax, in notebook 06's and 10's exercises
    "you filled the future with 0 before the softmax: e⁰ is 1, so every future position still gets a share. Fill it "
    "with float('-inf'), which the softmax turns into exactly 0 (notebook 03)."
)
TRANSPOSED_WEIGHTS = (  # the hint for wei.transpose(-2, -1) @ v, in notebook 06's and 10's exercises
    "you blended v with the transposed weights: row t of wei says how much position t takes from each position, so "
    "the output is wei @ v as it stands."
)
SWAPPED_Q_AND_K = (  # the hint for k @ qᵀ, in notebook 06's and 10's exercises
    "your scores are k @ qᵀ, the transpose of q @ kᵀ: row t must hold query t dotted with every key, so compute "
    "q @ k.transpose(-2, -1)."
)


# The scales a slip may put on the scores, as (n, root): 1/√n for n from 2 to 64 but squares (1/√25 is 1/5), and 1/n
TYPED_SCALES = [(n, True) for n in range(2, 65) if math.isqrt(n) ** 2 != n] + [(n, False) for n in range(2, 65)]


def typed_scale(head, got: torch.Tensor, atol: float, sizes: dict[str, int]) -> str | None:
    """The scale of TYPED_SCALES with which `head(scale)`, a head's result with its scores times `scale`, gives `got`
    (within `atol`), in words with the `sizes` (by name) it comes from (scale_words); None when none does."""
    for n, root in TYPED_SCALES:
        typed = as_float(head(n**-0.5 if root else 1 / n))
        if got.shape == typed.shape and close(got, typed, atol):
            return scale_words(n, root, sizes)
    return None


def scale_words(n: int, root: bool, sizes: dict[str, int]) -> str:
    """1/√n or 1/n in words, with which of the `sizes` n is: "1/√6 (6 is T − 1 here)", "1/2"; 1/3 is told as 1/√9
    when 9 is one of the sizes and 3 is not."""
    def named(k: int) -> list[str]:
        return [name for name, size in sizes.items() if size == k]

    if not root and not named(n) and named(n * n):
        n, root = n * n, True
    words = f"1/√{n}" if root else f"1/{n}"
    return f"{words} ({n} is {listed(named(n))} here)" if named(n) else words


def scale_name(value: float) -> str:
    """A scale as a learner may have written it, 1/n or 1/√n for a whole n from 2 on: "1/10 (0.1)", "1/√128
    (0.0884)", or else the number alone, "0.35" (and for a scale below 1e-6, which no one types as 1/n)."""
    if not 1e-6 <= value < 1:
        return f"{value:.3g}"
    if (n := round(1 / value)) >= 2 and math.isclose(value, 1 / n, rel_tol=1e-5):
        return f"1/{n} ({value:.3g})"
    if (n := round(value**-2)) >= 2 and math.isclose(value, n**-0.5, rel_tol=1e-5):
        return f"1/√{n} ({value:.3g})"
    return f"{value:.3g}"


def slipped_weights(q, k, scale=1.0, mask="before", fill=float("-inf"), diagonal=1, dim=-1, product=None,
                    softmax=F.softmax) -> torch.Tensor:
    """A head's wei from q and k, or one of the slips the exercises name: the scores `product(q, k)` (q @ kᵀ unless
    given) times `scale`; the future (from `diagonal` up) set to `fill` "before" the softmax, to 0 "after" it, or never
    (None), or, with "past", the mirror image of the future set to `fill` (the past, from `diagonal` down); `softmax`
    (F.softmax unless given) along `dim`."""
    hidden = future_mask(q.shape[-2], q.device, diagonal)
    if mask == "past":
        hidden = hidden.T
    wei = (q @ k.transpose(-2, -1) if product is None else product(q, k)) * scale
    wei = softmax(wei.masked_fill(hidden, fill) if mask in ("before", "past") else wei, dim=dim)
    return wei.masked_fill(hidden, 0.0) if mask == "after" else wei


def explain_weights(got: torch.Tensor, expected: torch.Tensor, inputs: tuple, atol: float) -> str | None:
    """The first thing wrong with weights `got` of the right shape, in words, or None (rows are compared within `atol`).
    `expected` may be None: then no factor or unwritten row is looked for."""
    got = as_float(got)
    if torch.isnan(got).any():
        row = first_index(torch.isnan(got))[0]
        return (f"row {row} contains NaN (not a number), which 0 / 0, ∞ − ∞ and 0 × ∞ give: does the row see no "
                "position at all (a mask must leave each position itself: a sum of 0 divided into 0, or a softmax of "
                "a row that is −∞ everywhere, is NaN), is −∞ multiplied by 0 (mask with masked_fill instead), or was "
                "the future filled with +∞ (its minus sign missing)?")
    if torch.isinf(got).any():
        row, col = first_index(torch.isinf(got))
        return (f"row {row} gives position {col} the weight {fmt(got[row, col])}, but a weight lies between 0 and 1: "
                "did you return the masked scores (or a log) instead of the weights a softmax makes of them, or "
                "divide by a sum of 0?")
    if (got < 0).any():
        row, col = first_index(got < 0)
        return (f"row {row} gives position {col} a negative weight ({fmt(got[row, col])}): a weight can never be "
                "negative.")
    future = future_mask(got.shape[-1])
    if (got[future] != 0).any():
        row, col = first_index(future & (got != 0))
        return (f"row {row} gives weight {fmt(got[row, col])} to position {col}, which is in its future: everything "
                "above the diagonal must be exactly 0.")
    if expected is not None:
        empty = (got == 0).all(-1)  # a row never written; a written row that gives itself 0 says more
        blind = (got.diagonal(0, -2, -1) == 0) & (as_float(expected).diagonal(0, -2, -1) != 0)
        if not (blind & ~empty).any() and (unwritten := unwritten_rows(got, as_float(expected), atol, besides=True)):
            return unwritten
        if blind.any():
            row = first_index(blind)[-1]
            return (f"row {row} gives position {row}, itself, weight 0: a position sees itself too, so row t's past "
                    "runs from 0 up to and including t (a slice [: t + 1], or tril, whose diagonal is 1).")
        factor = scaled_by(got, expected)
        if factor is not None:
            return (f"every weight is {fmt(factor)} times the right one, so every row sums to {fmt(factor)}: divide "
                    "each row by its sum, so that it sums to 1.")
    sums = got.sum(-1)
    off = (sums - 1).abs() > atol
    if off.any():
        row = first_index(off)[0]
        return f"row {row} sums to {fmt_apart(sums[row], 1)[0]}: did you normalise by row, so that each row sums to 1?"
    return None


def explain_scores(got: torch.Tensor, expected: torch.Tensor, inputs: tuple, atol: float, *, scale) -> str | None:
    """A wrong (…, T, T) score matrix that a mask, a softmax, a transpose or a scale changed, in words (the past and
    present compared within `atol`); `scale` is the sentence that says what the right scale is, or a function of the
    factor found and the inputs that writes it. None when it is none of these."""
    future = future_mask(got.shape[-1])
    filled = got[..., future]
    one_value = filled.numel() > 0 and bool((filled == filled.flatten()[0]).all())
    if one_value and close(got[..., ~future], expected[..., ~future], atol):
        return ("your scores for the past and the present are right, but every future one is "
                f"{fmt(filled.flatten()[0])}: this step scores every pair, future included. Masking the future is the "
                "head's next line, so leave it out here.")
    if ((got >= 0) & (got <= 1)).all() and any(torch.allclose(got.sum(d), torch.ones(()).double()) for d in (-1, -2)):
        return ("your result looks like weights (every entry from 0 to 1, rows or columns summing to 1): this step "
                "stops at the scores. The mask and the softmax come after it.")
    if close(got.transpose(-2, -1), expected, atol):
        return ("your scores are the right ones transposed (k @ qᵀ, say): a row is the position asking, by its query, "
                "and a column the position asked, by its key, so the query comes first: q @ k.transpose(-2, -1).")
    factor = scaled_by(got, expected)
    if factor is None:
        return None
    return f"your scores are the right ones times {fmt(factor)}: {scale(factor, inputs) if callable(scale) else scale}."


# Head sizes a learner may type in or find in another cell: the lesson's chunks of 8, notebook 05's head_size = 16, the
# models' n_embd = 32, 07's √64 = 8, and its loops' and explorer's 256 and 1024.
TYPED_HEAD_SIZES = (8, 16, 32, 64, 256, 1024)


# The numbers a learner may type in as a scale, once each: 1/2 to 1/10, 1/√2 to 1/√10 and 1/√ of the head sizes above
TYPED_NUMBERS = tuple(dict.fromkeys([1 / n for n in range(2, 11)]
                                    + [n**-0.5 for n in (2, 3, 5, 6, 7, 8, 10, *TYPED_HEAD_SIZES)]))


def typed_number_slips(scaled, hint: str) -> tuple[Mistake, ...]:
    """For an exercise that takes no scale (03's, 06's), the scores times each of TYPED_NUMBERS as a named mistake,
    `typed_scale`, marked every_case: `scaled(inputs, scale)` is the exercise's result with that scale, and `hint`'s
    {scale} becomes "1/4 (0.25) whatever the input (a number typed in, …)". (`typed_scale` in an explain sees one case
    only, and would tell such a number as a size of that case it happens to equal: "1/4 (4 is T − 1 here)".)"""
    typed_in = ("whatever the input (a number typed in, such as scores / 2, or a head size copied from a later "
                "notebook, such as 16 ** -0.5)")
    return tuple(Mistake("typed_scale", lambda *inputs, scale=scale: scaled(inputs, scale),
                         hint.format(scale=f"{scale_name(scale)} {typed_in}"), every_case=True)
                 for scale in TYPED_NUMBERS)


def typed_scale_hint(n: int, where: str, checked: str) -> str:
    """The hint for scores scaled by 1/√n whatever the input's head size, read by `where` (k.shape[-1]), whose values
    in the checks are `checked` ("4, then 8")."""
    root = math.isqrt(n)
    if root * root == n:
        what = f"1/{root} whatever the input: a number typed in ({root} is √{n}, for a head size of {n})"
    else:
        what = f"1/√{n} ({n ** -0.5:.3f}) whatever the input: a head size of {n} typed in"
    return (f"you scaled by {what}, or a head_size taken from another cell. This function's head size is its input's "
            f"own, {where} ({checked}, in the checks): scale by {where} ** -0.5.")


def scale_slips(scaled, head_size, where: str, checked: str) -> tuple[Mistake, ...]:
    """The slips in a 1/√head_size scale as named mistakes, for an exercise whose result with the scores times `scale`
    is `scaled(inputs, scale)` and whose head size is `head_size(inputs)`, read by `where` in its hints (`checked`:
    the head sizes of its cases, for the hint of a number typed in). Each is named only where it gives the answer's
    result on every case the answer fails (every_case): a scale that equals one slip for one head size only (1/(2√4) is
    1/4) is told as the scale it is."""
    def slip(name: str, scale_of, hint: str) -> Mistake:
        return Mistake(name, lambda *inputs: scaled(inputs, scale_of(head_size(inputs))), hint, every_case=True)

    return (
        slip("scaled_by_d", lambda d: 1 / d,
             "you scaled by 1/head_size: by head_size itself, or by head_size ** -0.5 twice (on q and again on the "
             "scores, say, or before F.scaled_dot_product_attention, which scales by it itself). The scores' spread "
             f"grows like √head_size: scale once, by head_size ** -0.5 ({where} ** -0.5)."),
        slip("power_before_division", lambda d: 1 / (2 * d),
             "you scaled by 1/(2 · head_size): in Python ** goes before /, so head_size ** -1/2 is (head_size ** -1) "
             "/ 2, and dividing by head_size ** 1/2 divides by head_size, then by 2. Write the power as one number, "
             "head_size ** -0.5 (or ** (-1/2))."),
        slip("power_before_division", lambda d: 2 / d,
             "you scaled by 2/head_size, dividing by head_size / 2 (which is √head_size only when head_size is 4). "
             "head_size ** 1/2 gives that too: in Python ** goes before /, so it is head_size / 2. Divide by the "
             "square root, head_size ** 0.5 (or ** (1/2))."),
        slip("rounded_square_root", lambda d: 1 / math.isqrt(d),
             "you divided by a whole number where √head_size has a fraction: by √head_size rounded down "
             "(int(math.sqrt(…)) or math.isqrt do that), or by a number typed in that fits one head size only (2 is "
             f"√4). Compute the scale from the input, {where} ** 0.5, which keeps the fraction."),
        slip("multiplied_by_sqrt_d", lambda d: d**0.5,
             "you multiplied by √head_size, which makes the scores larger still: multiply by head_size ** -0.5 (or "
             "divide by head_size ** 0.5)."),
        *(slip("typed_scale", lambda d, n=n: n**-0.5, typed_scale_hint(n, where, checked)) for n in TYPED_HEAD_SIZES),
    )
