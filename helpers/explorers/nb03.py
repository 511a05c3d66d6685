"""Notebook 03's own helpers (softmax with the −∞ mask): an explorer for one row of scores and its weights, and two
exercises, the masked softmax weights and standardising by row (LayerNorm by hand)."""

import math

import torch
import torch.nn.functional as F

from ..attention import future_mask
from ..exercises import ExactZeros, Exercise, Mistake
from ..exercises.core import close, first_index, fmt, fmt_apart, scaled_by, unwritten_rows
from ..exercises.explain import FORGOT_MASK_CALL, PLUS_INFINITY, explain_weights, typed_number_slips, typed_scale
from ..plots import ANNOTATE_UP_TO, show_wei, symmetric_bound
from .core import check_position, explorer, fmt_number, fmt_row, link_range, new_figure, parse_numbers, report, show

EXAMPLE = "2, -1, 3, 5"
MAX_SCORES = ANNOTATE_UP_TO  # show_wei writes every value up to this width


def count_scores(text) -> int:
    """How many scores `text` holds, or 0 when it is not a usable row (the explorer then says why)."""
    values, _ = parse_numbers(text, EXAMPLE, MAX_SCORES)
    return len(values) if values else 0


def now_slider(scores_control, value: int = 2):
    """An IntSlider for `now` whose range always ends at the last score typed in `scores_control`."""
    from ipywidgets import IntSlider

    slider = IntSlider(value=value, min=0, max=max(value, 0), description="now")
    link_range(scores_control, slider, count_scores)
    return slider


@explorer(refuses=[
    ({"scores_text": None}, "There are no scores"),
    ({"scores_text": "1e39, 2", "now": 1}, "Score 0, '1e39', is too large to compute with (float32 overflows)"),
    ({"scores_text": "2, -1, 3, 5", "now": 4}, "past the end of 4 scores"),
    ({"scores_text": "2, -1", "now": 7}, "(positions 0 to 1): move it to 1 or lower"),
    ({"now": -1}, "count from 0"),
    ({"now": 1.5}, "not a whole number"),
    ({"now": "1"}, "not a whole number (write 1, without the quotes)"),
])
def explore_masked_softmax(scores_text: str = EXAMPLE, now: int = 2) -> dict | None:
    """Mask the future of a typed row of scores, softmax it, print each step and draw the three stages.

    Positions after `now` are the future: whatever their scores, they get weight exactly 0.
    Returns {'scores', 'masked', 'weights'} (1-D CPU float32 tensors) and 'now', or None after
    reporting why the input is unusable.
    """
    values, problem = parse_numbers(scores_text, EXAMPLE, MAX_SCORES)
    problem = problem or check_position(now, len(values))
    if problem:
        return report(problem)

    raw = torch.tensor(values, dtype=torch.float32)
    masked = raw.masked_fill(torch.arange(len(values)) > now, float("-inf"))  # position `now`'s view: no future
    weights = torch.softmax(masked, dim=-1)
    exps = masked.exp()
    last = now == len(values) - 1
    print(f"position {now} is now, the last one: there is no future" if last
          else f"position {now} is now; positions after it are the future")
    print(f"① mask the future:  {fmt_row(masked)}")
    total = float(exps.sum())  # float32: ∞ once the exps add up past the largest float32, about 3.4e38
    if math.isinf(total) or total < 0.005:  # would print as ∞ or 0.00: shift the scores first, as softmax does
        shifted = (masked - masked.max()).exp()
        if torch.isinf(exps).any():
            step = "overflows (a score above about 88.7 gives e^score > the largest float32);"
        elif math.isinf(total):
            step = f"{fmt_row(exps, tiny=True)}, whose sum overflows (past the largest float32, about 3.4e38);"
        elif total == 0:
            step = (f"{fmt_row(exps)}: each rounds to exactly 0 in float32 (every visible score is below about −104), "
                    "so ÷ sum would be 0 ÷ 0;")
        else:
            step = f"{fmt_row(exps, tiny=True)}, too small for two decimals (every visible score is below about −5);"
        print(f"② exp:              {step}")
        print(f"   exp(score − max): {fmt_row(shifted, tiny=True)}   (shifting every score changes no weight)")
        print(f"③ sum:              {fmt_number(float(shifted.sum()), tiny=True)}   (of the shifted exps)")
    else:
        print(f"② exp:              {fmt_row(exps, tiny=True)}")
        print(f"③ sum:              {fmt_number(float(exps.sum()), tiny=True)}")
    print(f"④ weights:          {fmt_row(weights, tiny=True)}   sum {float(weights.sum()):.2f}")
    print("   nothing is masked: `now` is the last position, so every score counts" if last
          else f"   every future weight is exactly 0: {bool((weights[now + 1 :] == 0).all())}")
    _draw(raw, masked, weights, now)
    return {"scores": raw, "masked": masked, "weights": weights, "now": now}


def _draw(raw: torch.Tensor, masked: torch.Tensor, weights: torch.Tensor, now: int) -> None:
    """The row's three stages, one above the other: raw scores, future set to −∞, softmax weights."""
    n = len(raw)
    fig, axes = new_figure((0.62 * n + 2.6, 4.1), 3, 1)
    panels = [
        (raw, "raw", "raw scores"),
        (masked, "masked", "future set to −∞" if now < n - 1 else "nothing to mask: now is the last position"),
        (weights, "softmax", "softmax weights"),
    ]
    future = (torch.arange(n) > now).unsqueeze(0)
    bound = symmetric_bound([raw])  # both score panels share one colour scale, so a colour means one score
    for ax, (values, stage, title) in zip(axes, panels, strict=True):
        mask = None if stage == "raw" else future  # the raw panel still shows the future's score
        show_wei(values.unsqueeze(0), labels=[f"t={now}"], key_labels=range(n), stage=stage, ax=ax, causal=False,
                 title=title, mask=mask, bound=None if stage == "softmax" else bound)
        ax.set(xlabel="", ylabel="")
    axes[-1].set_xlabel("position looked at")
    fig.tight_layout()
    middle = "with the future set to minus infinity (hatched)" if now < n - 1 else "with nothing to mask (no future)"
    show(fig, f"Three one-row heatmaps of the scores {fmt_row(raw)} seen from position {now}: raw, {middle}, and the "
              f"softmax weights {fmt_row(weights)}.")


# ---- Your turn: masked softmax weights, and standardising by row (LayerNorm by hand) ---------------------------------

# Scores for a 5-character chunk: mixed signs, and no row of the past sums to 0, so every named
# mistake gives a result of its own (and none divides by zero by accident). The hints quote it.
SCORES = torch.tensor(
    [
        [1.0, -2.0, 0.5, 3.0, -1.0],
        [2.0, 0.0, -1.5, 4.0, 1.0],
        [-1.0, 3.0, 1.0, -2.0, 2.5],
        [0.5, 1.5, -0.5, 2.0, -3.0],
        [2.5, -1.0, 1.0, 0.5, 1.5],
    ]
)
# A second, larger chunk. Row 2's past scores are the lowest float32 number, −3.4e38: only −∞ is
# below every score, so any finite mask (−1e9, −1e30, even that lowest number) lets the future take
# weight there; and e^x of them rounds to 0, so a softmax written without the max shift gives 0/0.
LOWEST = torch.finfo(torch.float32).min
SCORES_7 = torch.tensor(
    [
        [0.5, 2.0, -1.0, 1.5, 0.0, 3.0, -2.0],
        [-1.5, 1.0, 2.5, -0.5, 1.0, 0.5, 2.0],
        [LOWEST, LOWEST, LOWEST, 1.0, -2.0, 0.5, 1.5],
        [2.0, -3.0, 0.5, 1.0, -1.0, 2.5, 0.0],
        [0.0, 1.5, -2.0, 3.0, 0.5, -1.0, 1.0],
        [1.0, -0.5, 2.0, -1.5, 2.5, 0.5, -3.0],
        [-2.0, 0.5, 1.0, 2.0, -1.0, 1.5, 0.5],
    ]
)
# A third, larger than the lesson's block_size of 8: a tril of block_size cut to [:T, :T] is right for the two above
# only.
SCORES_9 = torch.tensor(
    [
        [1.5, 2.0, -2.5, 0.0, 1.5, 2.5, -2.0, -2.0, -1.0],
        [2.5, -2.0, 2.5, 2.5, 1.5, 3.0, 0.5, 1.0, 1.0],
        [-0.5, 3.0, -0.5, -3.0, -1.5, 1.0, -2.5, -2.0, 3.0],
        [1.0, 0.5, -0.5, 1.5, -1.5, -1.0, -2.5, -2.0, 3.0],
        [-2.0, 2.0, -1.0, 1.0, 2.0, -2.0, 2.0, -1.5, -0.5],
        [-3.0, -1.0, 2.5, 1.0, 2.5, -1.5, 2.0, 2.5, -1.5],
        [-1.5, -2.5, -3.0, 2.0, 2.0, -1.0, 2.0, 1.0, -1.0],
        [2.0, 1.0, 1.5, 1.5, -1.5, -0.5, -2.0, 1.0, -2.0],
        [-1.0, -2.0, -3.0, -1.5, 1.5, 2.0, 0.5, 3.0, 0.0],
    ]
)

# Samples (rows) of features (columns), each row and column on a scale of its own. The first is
# square on purpose: a dropped keepdim then broadcasts silently instead of raising an error.
FEATURES = torch.tensor([[1.0, 2.0, 3.0, 4.0], [10.0, 0.0, 5.0, 1.0], [-2.0, -2.0, 4.0, 0.0], [3.0, 7.0, 1.0, 9.0]])
FEATURES_3x6 = torch.tensor(
    [[4.0, -1.0, 2.0, 8.0, 0.0, 3.0], [1.0, 1.0, 6.0, -3.0, 2.0, 5.0], [7.0, 2.0, -4.0, 0.0, 9.0, 1.0]]
)
# Row 0 has variance 0 and row 2 a variance of 2e-6, below eps: where eps goes, and how large it is, shows in both.
FLAT_ROW = torch.tensor([[3.0, 3.0, 3.0, 3.0, 3.0], [2.0, -1.0, 0.0, 4.0, 1.0], [-0.002, -0.001, 0.0, 0.001, 0.002]])
EPS = 1e-5


def future(scores: torch.Tensor) -> torch.Tensor:
    """Boolean (T, T): True above the diagonal, where a position would see its future."""
    return future_mask(scores.shape[-1])


def fill_future(scores: torch.Tensor, value: float, diagonal: int = 1) -> torch.Tensor:
    return scores.masked_fill(future_mask(scores.shape[-1], diagonal=diagonal), value)


def masked_softmax(scores: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """The reference: the future set to −∞, then a softmax along `dim`."""
    return F.softmax(fill_future(scores, float("-inf")), dim=dim)


def shifted_exp(masked: torch.Tensor, shift: bool) -> torch.Tensor:
    """e^score of each masked score, after subtracting each row's largest (visible) score when `shift`."""
    return (masked - masked.max(-1, keepdim=True).values).exp() if shift else masked.exp()


def divide_by_sum(masked: torch.Tensor) -> torch.Tensor:
    return masked / masked.sum(-1, keepdim=True)


EXP_LIMITS = (-103.0, 88.0)  # in float32, e^x rounds to 0 below about −104 and overflows to inf above about 88


def explain_masked_weights(got: torch.Tensor, expected: torch.Tensor, inputs: tuple, atol: float) -> str | None:
    """A NaN row whose visible scores leave float32's range for e^x, a row whose scores are too large for float32 to
    shift, or rows short of 1 whose past is in the right proportions (the future's share taken away), in words; else
    the shared weight hints."""
    scores = inputs[0].double()
    visible_top = fill_future(scores, float("-inf")).max(-1).values  # each row's largest visible score
    spread = visible_top - scores.max(-1).values.clamp(min=0)  # how far below the row's top (or 0) it lies
    low, high = EXP_LIMITS
    for row in torch.isnan(got).any(-1).nonzero().flatten().tolist():
        if spread[row] < low or visible_top[row] > high:
            way = "rounds to 0, so the row sums to 0 and 0/0" if spread[row] < low else "overflows, and inf/inf"
            return (
                f"row {row} contains NaN: its visible scores are about {fmt(visible_top[row])}, where e^x {way} is "
                "NaN in float32. Mask the future with −∞ first, then subtract each row's largest visible score (the "
                "largest after the mask: the future's may be far larger) before e^x, or use torch.softmax(..., "
                "dim=-1) on the masked scores, which does that (shift invariance), so that score becomes e⁰ = 1 and "
                "the sum stays sound."
            )
    sums = got.sum(-1)
    for row in ((sums - 1).abs() > atol).nonzero().flatten().tolist():
        if visible_top[row].abs() > 1e30:  # where a float32 has no room for fractions: −3.4e38 + 1 is −3.4e38
            return (
                f"row {row} sums to {fmt_apart(sums[row], 1)[0]}: its visible scores are about "
                f"{fmt(visible_top[row])}, where float32 keeps only about 7 digits, so adding or subtracting a small "
                "number (a log-sum, say) rounds back to the same score. Mask the future with −∞ and use "
                "torch.softmax(..., dim=-1), which subtracts each row's largest score first, so that score becomes "
                "e⁰ = 1."
            )
    if unwritten := unwritten_rows(got, expected, atol):  # a row all 0 is short of 1 too, but no share was taken
        return unwritten
    T = got.shape[-1]
    if scale := typed_scale(lambda scale: masked_softmax(inputs[0] * scale), got, atol, {"T": T, "T − 1": T - 1}):
        return (f"your weights are the softmax of the scores times {scale}: this step takes the scores as they are "
                "(scaling them comes in notebook 07).")
    future = future_mask(got.shape[-1])
    short = sums < 1 - atol
    in_proportion = close(got, sums[:, None] * expected, atol)  # each row's past as the right one's, only smaller
    valid = not torch.isnan(got).any() and (got[future] == 0).all() and in_proportion
    if valid and short.any() and scaled_by(got, expected) is None:
        row = first_index(short)[0]
        return (f"row {row} sums to {fmt_apart(sums[row], 1)[0]}, less than 1, though its past is in the right "
                "proportions and its future 0: the future's share was taken away instead of handed to the past, by "
                "setting the future to 0 after the softmax (tril() or masked_fill on the weights), or by dividing by "
                "more than the row's own sum. Fill the scores' future with float('-inf') before a softmax along each "
                "row, so that the past shares the whole row.")
    return explain_weights(got, expected, inputs, atol)


EXERCISES = (
    Exercise(
        name="masked_softmax_weights",
        reference=masked_softmax,
        cases=((SCORES,), (SCORES_7,), (SCORES_9,)),
        exact_zeros=ExactZeros(
            future,
            name="finite_mask",
            fix="fill the future with float('-inf') before the softmax, not a large negative number: "
            "e^−∞ is exactly 0.",
        ),
        explain=explain_masked_weights,
        mistakes=(
            Mistake(
                "forgot_mask",
                lambda scores: F.softmax(scores, dim=-1),
                "the future gets weight: row 0 shares its attention with positions 1 to 4. "
                "Fill the upper triangle with −∞ (masked_fill with tril == 0) before the softmax" + FORGOT_MASK_CALL,
            ),
            Mistake(
                "by_column",
                lambda scores: masked_softmax(scores, dim=0),
                "your columns sum to 1, not your rows: the softmax ran down each column (dim=0). "
                "Each row is a position sharing out its attention, so use softmax(..., dim=-1).",
            ),
            Mistake(
                "mask_with_zero",
                lambda scores: F.softmax(fill_future(scores, 0.0), dim=-1),
                "the future still gets weight: you filled it with 0, and e^0 = 1, so softmax gives it a share. "
                "Fill it with float('-inf'): e^−∞ = 0 is what makes a weight exactly 0.",
            ),
            Mistake("plus_infinity", lambda scores: F.softmax(fill_future(scores, float("inf")), dim=-1),
                    PLUS_INFINITY),
            *(Mistake(  # a softmax by hand, with or without the shift by the largest score, and keepdim dropped
                "dropped_keepdim",
                lambda scores, shift=shift: (e := shifted_exp(fill_future(scores, float("-inf")), shift)) / e.sum(-1),
                "you divided by row sums that line up with the columns, so each column is divided by one row's sum: "
                "e.sum(-1) without keepdim=True gives them as a (T,) vector (and a (T, 1) sum turned by .T as a "
                "(1, T) row), which on square scores gives wrong numbers and no error. Divide by e.sum(-1, "
                "keepdim=True) as it stands, or use torch.softmax(..., dim=-1).",
            ) for shift in (False, True)),
            Mistake(
                "divide_by_sum",
                lambda scores: divide_by_sum(fill_future(scores, 0.0)),
                "some weights are negative: dividing the scores by their row sum is scheme two's normalisation, "
                "and it breaks on negative scores (and on rows that sum to 0). Use softmax, which makes every "
                "weight positive.",
            ),
            Mistake(
                "divide_by_sum",
                lambda scores: divide_by_sum(fill_future(scores, float("-inf"))),
                "you got NaN: after the −∞ mask, dividing by the row sum computes −∞/−∞. "
                "Replace the division by softmax(..., dim=-1), which turns −∞ into a weight of exactly 0.",
            ),
            Mistake(
                "masked_by_value",
                lambda scores: F.softmax(scores.tril().masked_fill(scores.tril() == 0, float("-inf")), dim=-1),
                "a score of exactly 0 in the past was masked too (row 1 scores position 1 at 0): you picked the cells "
                "to mask by their value. Pick the future by its place, tril == 0 with tril = "
                "torch.tril(torch.ones(T, T)), whatever the scores are.",
            ),
            Mistake(
                "masked_after_softmax",
                lambda scores: fill_future(F.softmax(scores, dim=-1), 0.0),
                "the future is 0 but the rows no longer sum to 1: you zeroed it after the softmax. "
                "Mask first (−∞), then softmax, so the weights are shared out among the past only.",
            ),
            Mistake(
                "masked_the_present",
                lambda scores: F.softmax(fill_future(scores, float("-inf"), diagonal=0), -1),
                "you masked the diagonal too, so row 0 has nothing left to look at (NaN). "
                "A position may look at itself: mask only above the diagonal (tril == 0, or triu(diagonal=1)).",
            ),
            Mistake(
                "masked_the_past",
                lambda scores: F.softmax(scores.masked_fill(future(scores).T, float("-inf")), dim=-1),
                "you hid the past and kept the future: the −∞ belongs above the diagonal, where the column "
                "index is larger than the row index (tril == 0), not below it.",
            ),
            Mistake(
                "masked_the_past",
                lambda scores: F.softmax(scores.masked_fill(~future(scores), float("-inf")), dim=-1),
                "you hid the past and the diagonal and kept the future, so the last row, which has no future, is "
                "left with nothing to see (NaN): the −∞ belongs above the diagonal only, where the column index is "
                "larger than the row index (tril == 0).",
            ),
            Mistake(
                "returned_the_scores",
                lambda scores: scores.clone(),
                "you returned the scores as they came in. If you did mask and softmax them: masked_fill and softmax "
                "return new tensors and leave scores as it was, so keep what they return and return that, "
                "wei = F.softmax(scores.masked_fill(...), dim=-1). If not: mask the future with −∞, then softmax "
                "each row.",
            ),
            Mistake(
                "finite_mask",
                lambda scores: F.softmax(fill_future(scores, -10.0), dim=-1),
                "the future gets a tiny weight instead of exactly 0: a finite mask such as −10 still leaves "
                "e^−10 > 0. Fill the future with float('-inf'), the only value whose e^score is exactly 0.",
            ),
            Mistake(
                "finite_mask",
                lambda scores: F.softmax(fill_future(scores, -1e4), dim=-1),
                "a finite mask works on ordinary scores, but not below them: row 2 of the 7 × 7 scores has past "
                "scores of −3.4e38 (the lowest float32 number), below your mask, so the future took all of that "
                "row's weight. This exercise asks for the mask that gives exactly 0 whatever the scores: fill the "
                "future with float('-inf').",
            ),
            Mistake(
                "finite_mask",
                lambda scores: F.softmax(fill_future(scores, LOWEST), dim=-1),
                "a finite mask works on ordinary scores, but not below them: row 2 of the 7 × 7 scores has past "
                "scores equal to the lowest float32 number, −3.4e38 (torch.finfo(torch.float32).min, your mask), so "
                "the future shares that row's weight equally with the past. This exercise asks for the mask that "
                "gives exactly 0 whatever the scores: fill the future with float('-inf').",
            ),
            *typed_number_slips(  # the same scale for every input: scores / 2, or a later notebook's head_size
                lambda inputs, scale: masked_softmax(inputs[0] * scale),
                "your weights are the softmax of the scores times {scale}: this step takes the scores as they are "
                "(scaling them comes in notebook 07).",
            ),
        ),
    ),
)


def standardise(x: torch.Tensor, dim=None, unbiased=False, keep_mean=True, keep_var=True) -> torch.Tensor:
    """(x − mean) / √(var + eps) along `dim` (None: over everything), each kept dimension dropped if asked."""
    mean = x.mean(dim, keepdim=keep_mean)
    var = x.var(dim, unbiased=unbiased, keepdim=keep_var)
    return (x - mean) / torch.sqrt(var + EPS)


def layer_norm(x: torch.Tensor) -> torch.Tensor:
    """The reference: torch's LayerNorm over each row, without the learned scale and shift."""
    return F.layer_norm(x, x.shape[-1:], eps=EPS)


KEEPDIM_HINT = (
    "mean(-1) and var(-1) without keepdim=True have shape (N,), one number per row, which lines up with the columns, "
    "not the rows: on a square input that gives wrong numbers without an error, on any other a size clash. Keep the "
    "dimension: keepdim=True."
)


ROWS_FOR_THE_WIDTH = (  # the hint for a row's sum divided by the number of rows instead of its own length
    "you divided a row's sum by the number of rows (x.shape[0], or len(x), which counts rows): a row's mean and "
    "variance divide by its own length, the number of columns, C = x.shape[-1] (or use x.mean(-1, keepdim=True)).")


def eps_added(got: torch.Tensor, x: torch.Tensor) -> float | None:
    """The eps that a row standardisation of `x` returning `got` added to the variance, when one eps larger than
    EPS explains every row, or when the rows of tiny variance show one smaller than EPS/3 (0 included); else None.
    Each row of `got` is then (x − mean) / √(var + eps): the centred row scaled."""
    centred = (x - x.mean(-1, keepdim=True)).double()
    var = centred.pow(2).mean(-1)
    scale = (got * centred).sum(-1) / centred.pow(2).sum(-1).clamp_min(1e-12)  # the best scale, row by row
    spread = var > 0  # a row of equal numbers says nothing about eps
    if not spread.any() or not close(got[spread], scale[spread, None] * centred[spread], 1e-5):
        return None
    tiny = spread & (var < 1e-3)  # only there can an eps far below EPS show: elsewhere it is lost in the rounding
    if tiny.any() and (small := 1 / scale[tiny] ** 2 - var[tiny]).max() < EPS / 3:
        return max(float(small.mean()), 0.0)
    rows = var > 0.1
    eps = 1 / scale[rows] ** 2 - var[rows]
    return float(eps.mean()) if rows.any() and eps.min() > 3 * EPS and eps.max() < 1.5 * eps.min() else None


def explain_standardised(got: torch.Tensor, expected: torch.Tensor, inputs: tuple, atol: float) -> str | None:
    """Plain words for a wrong standardisation that matches no named mistake (a mean or variance off by more than
    1e-3, looser than `atol`: each sums a whole row's errors)."""
    eps = eps_added(got, inputs[0])
    if eps is not None and eps > EPS:
        return (f"every value is nearer 0 than it should be, as an eps of about {fmt(eps)} makes them (the rows of "
                "small variance most): add eps = 1e-5, the one asked for (and LayerNorm's default), to the variance.")
    if eps is not None:
        added = "no eps" if eps < 1e-9 else f"an eps of about {fmt(eps)}"
        return (f"a row of tiny spread (variance far below 1e-5) comes out larger than it should, as {added} makes "
                "it: add eps = 1e-5, the one asked for (and LayerNorm's default), to the variance.")
    if unwritten := unwritten_rows(got, expected, atol):
        return unwritten
    means = got.mean(-1)
    if (means.abs() > 1e-3).any():
        row = int((means.abs() > 1e-3).nonzero()[0])
        return f"row {row} has mean {fmt(means[row])}; after standardising by row every row's mean is 0."
    var = got.var(-1, unbiased=False)
    off = ((var - 1).abs() > 1e-3) & (expected.var(-1) > 0.5)  # a row of equal numbers stays at variance 0
    if off.any():
        row = int(off.nonzero()[0])
        return (
            f"row {row} has variance {fmt_apart(var[row], 1)[0]}; after standardising by row every row's variance "
            "is 1."
        )
    return None


EXERCISES += (
    Exercise(
        name="standardise_rows",
        reference=layer_norm,
        cases=((FEATURES,), (FEATURES_3x6,), (FLAT_ROW,)),
        explain=explain_standardised,
        mistakes=(
            Mistake(
                "by_column",
                lambda x: standardise(x, 0),
                "your columns have mean 0, not your rows: you standardised across samples (x.mean(0)), "
                "which is what BatchNorm does. LayerNorm works across each row's features: x.mean(-1).",
            ),
            Mistake(
                "unbiased_variance",
                lambda x: standardise(x, -1, unbiased=True),
                "close, but your variance divides by C − 1, as torch.var and torch.std do by default. LayerNorm "
                "divides by C: pass unbiased=False (or correction=0), or, written out, divide the sum of squares by "
                "C.",
            ),
            Mistake("dropped_keepdim", lambda x: standardise(x, -1, keep_mean=False, keep_var=False), KEEPDIM_HINT),
            Mistake("dropped_keepdim", lambda x: standardise(x, -1, keep_mean=False), KEEPDIM_HINT),
            Mistake("dropped_keepdim", lambda x: standardise(x, -1, keep_var=False), KEEPDIM_HINT),
            Mistake(
                "as_a_whole",
                lambda x: standardise(x),
                "you standardised the matrix as a whole (one mean for everything). Give each row its own mean "
                "and variance: mean(-1, keepdim=True).",
            ),
            Mistake(
                "counted_the_rows",
                lambda x: (x - x.mean(-1, keepdim=True)) / torch.sqrt(
                    (x - x.mean(-1, keepdim=True)).pow(2).sum(-1, keepdim=True) / x.shape[0] + EPS),
                ROWS_FOR_THE_WIDTH,
            ),
            Mistake(
                "counted_the_rows",
                lambda x: (x - x.sum(-1, keepdim=True) / len(x)) / torch.sqrt(
                    (x - x.sum(-1, keepdim=True) / len(x)).pow(2).sum(-1, keepdim=True) / len(x) + EPS),
                ROWS_FOR_THE_WIDTH,
            ),
            Mistake(
                "only_centred",
                lambda x: x - x.mean(-1, keepdim=True),
                "each row now has mean 0, but not variance 1: divide by the square root of the row's variance (+ eps).",
            ),
            Mistake(
                "no_eps",
                lambda x: (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True)),
                "a row whose numbers are all equal has variance 0, and your square root of its variance is 0 (or, "
                "with eps negative or subtracted, NaN), so that row comes out NaN: add eps = 1e-5 to the variance "
                "inside the square root, √(var + eps).",
            ),
            Mistake(
                "eps_outside_the_root",
                lambda x: (x - x.mean(-1, keepdim=True)) / (x.var(-1, unbiased=False, keepdim=True).sqrt() + EPS),
                "you added eps after the square root, √var + eps: add it to the variance inside the root, "
                "√(var + eps), as LayerNorm does (x.std(...) + eps puts it outside too). It shows in a row of tiny "
                "spread, whose √var is not far above eps.",
            ),
            Mistake(
                "variance_by_column",
                lambda x: (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(0, unbiased=False, keepdim=True) + EPS),
                "each row is centred on its own mean, but the variance was taken down the columns (var(0)): take "
                "it along each row too, var(-1, unbiased=False, keepdim=True).",
            ),
            Mistake(
                "mean_by_column",
                lambda x: (x - x.mean(0, keepdim=True)) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + EPS),
                "the variance was taken along each row, but the mean you subtract is each column's (mean(0)), so the "
                "rows are not centred: take the mean along each row too, x.mean(-1, keepdim=True).",
            ),
            Mistake(
                "square_root_of_std",
                lambda x: (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.std(-1, unbiased=False, keepdim=True) + EPS),
                "you took the square root of the standard deviation: x.std is already √var, so put the variance under "
                "the square root, torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + eps).",
            ),
            Mistake(
                "no_square_root",
                lambda x: (x - x.mean(-1, keepdim=True)) / (x.var(-1, unbiased=False, keepdim=True) + EPS),
                "you divided by the variance itself: divide by its square root, the standard deviation, "
                "torch.sqrt(var + eps).",
            ),
            Mistake(
                "subtracted_after_dividing",
                lambda x: x - x.mean(-1, keepdim=True) / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + EPS),
                "x - mean / std divides only the mean: / goes before -. Put the subtraction in brackets, "
                "(x - mean) / std.",
            ),
            Mistake(
                "not_centred",
                lambda x: x / torch.sqrt(x.var(-1, unbiased=False, keepdim=True) + EPS),
                "you divided by the standard deviation but did not subtract each row's mean first.",
            ),
        ),
    ),
)
