"""Notebook 02's own helpers: the divide-by-the-sum explorer and the causal-average-weights exercise."""

import math
from fractions import Fraction

import torch

from ..attention import future_mask
from ..averaging import average_matmul
from ..exercises import ExactZeros, Exercise, Mistake
from ..exercises.explain import explain_weights
from ..plots import ANNOTATE_UP_TO, show_wei
from .core import explorer, fmt_number, fmt_row, new_figure, parse_numbers, report, show

MAX_SCORES = ANNOTATE_UP_TO  # show_wei writes every value up to this width
EXAMPLE = "2, -1, 3"


def _to_float(value: Fraction) -> float:
    """`value` as a float, ±inf where it is beyond float64 (where float() raises instead)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


@explorer(refuses=[
    ({"scores_text": ""}, "There are no scores: type numbers separated by commas"),
    ({"scores_text": "2, x, 3"}, "Score 1, 'x', is not a number"),
    ({"scores_text": ",".join(["1"] * (MAX_SCORES + 1))}, f"give at most {MAX_SCORES}"),
    ({"scores_text": "1, -1, 1e-310"}, "so close to 0 that dividing by it overflows"),
])
def explore_divide_by_sum(scores_text: str = EXAMPLE) -> dict | None:
    """Divide a typed row of scores by its sum, say in words what went wrong, and draw both rows.

    Dividing by the sum is how scheme two turns the lower triangle into averages. It works for counts of 1, but
    arbitrary scores break it: a negative score becomes a negative weight, scores that add up to 0 leave nothing to
    divide by, and scores that add up to a negative number give the lowest one the largest weight. The sum is the one
    on paper (float64's own can round: 1e16 + 1 − 1e16 is 0 there). Returns {'scores', 'total', 'weights',
    'problems'} (scores and weights CPU float64 tensors, weights None when there is nothing to divide by; total, the
    sum on paper, a float), or None after reporting input that is not a row of numbers.
    """
    values, problem = parse_numbers(scores_text, EXAMPLE, MAX_SCORES)
    if problem:
        return report(problem)
    scores = torch.tensor(values, dtype=torch.float64)
    exact = [Fraction(repr(v)) for v in values]  # exact at any spread of sizes (1e30 + 1 − 1e30 is 1)
    on_paper = sum(exact)  # 0.1 + 0.2 - 0.3 is 0 here, 5.6e-17 in float64; 1e16 + 1 - 1e16 is 1 here, 0 there
    total, floats = float(on_paper), float(scores.sum())
    weights = torch.tensor([_to_float(v / on_paper) for v in exact], dtype=torch.float64) if on_paper else None
    if weights is not None and not torch.isfinite(weights.float()).all():  # drawn in float32, like every explorer
        return report(f"The scores add up to {total:.3g}, so close to 0 that dividing by it overflows: "
                      "make their sum further from 0.")
    print(f"scores:       {fmt_row(scores, tiny=True)}")
    rounding = "" if f"{floats:g}" == f"{total:g}" else f"   (on paper; float64 rounds its own sum to {floats:g}" + (
        ", so the weights divide by the sum on paper)" if weights is not None else ")")
    print(f"sum:          {total:g}{rounding}")
    if weights is None:
        problems = ["The scores add up to 0, so there is nothing to divide by: dividing gives inf or nan "
                    "(not-a-number), and every output blended from these weights would be garbage."]
    else:
        print(f"÷ sum:        {fmt_row(weights, tiny=True)}   (these do add up to 1)")
        problems = [f"The weight at position {position} is {fmt_number(weights[position], tiny=True)}: negative. A "
                    "blend would subtract that position's vector instead of adding a share of it."
                    for position in (weights < 0).nonzero().flatten().tolist()]
        if (weights > 1).any():
            problems.append("Some weights are above 1: a position gets more than all of the blend, paid for by the "
                            "negative ones.")
        if total < 0 and not problems and len(set(values)) > 1:  # weights in 0–1, but in the scores' reverse order
            low = int(scores.argmin())
            problems.append(f"The scores add up to a negative number, so their order is turned around: the lowest "
                            f"score, {fmt_number(scores[low])}, gets the largest weight, {fmt_number(weights[low])}. "
                            "A higher score should count for more.")
    if problems:
        print("\n".join(["", *(f"❌ {p}" for p in problems)]))
    else:
        print("\n✅ Every weight lies between 0 and 1 and they add up to 1: a proper weighted average.")
    _draw(scores, weights)
    return {"scores": scores, "total": total, "weights": weights, "problems": problems}


def _draw(scores: torch.Tensor, weights) -> None:
    """The typed scores and, when there are any, the weights, as one-row show_wei panels (on the weights' 0–1
    scale show_wei paints a negative weight, or one above 1, orange)."""
    n = len(scores)
    panels = 1 if weights is None else 2
    height = 1.7 if weights is None else 3.7  # the weights' title takes two lines
    fig, axes = new_figure((max(0.6 * n + 2.6, 5.5), height), panels, 1, squeeze=False)
    title = "the scores you typed" if weights is not None else "the scores you typed add up to 0: no weights"
    show_wei(scores[None, :], labels=["row"], key_labels=range(n), stage="raw", ax=axes[0, 0], title=title)
    if weights is not None:
        show_wei(weights[None, :], labels=["row"], key_labels=range(n), stage="weights", ax=axes[1, 0],
                 title="÷ their sum\n(orange: outside 0–1)")
    for ax in axes[:, 0]:
        ax.set(xlabel="position looked at", ylabel="")
    fig.tight_layout()
    typed = ", ".join(f"{v:g}" for v in scores.tolist())
    show(fig, f"The scores {typed} as a one-row heatmap" + (" above the same row divided by its sum, on the 0–1 "
              "weights scale with values outside it in orange." if weights is not None else "; they add up to 0."))


# ---- Your turn: the (T, T) weights that turn one matmul into a running average ---------------------------------------
# Row i of the answer gives weight 1/(i+1) to each of positions 0…i and 0 to every later one.
# The hints quote the numbers of the first case, T = 4, where every named mistake is caught.


def reference_weights(T: int) -> torch.Tensor:
    """The weights scheme two uses: average_matmul(I) = wei @ I = wei, read off the lesson's code."""
    return average_matmul(torch.eye(T))


def tril(T: int) -> torch.Tensor:
    return torch.tril(torch.ones(T, T))


def explain_averaging_weights(got: torch.Tensor, expected: torch.Tensor, inputs: tuple, atol: float) -> str:
    """The shared weight hints, then the one left for valid but unequal weights."""
    return explain_weights(got, expected, inputs, atol) or (
        "every row sums to 1 and the future gets 0, but the weights are not equal: "
        "row i should give exactly 1/(i+1) to each of positions 0…i."
    )


EXERCISES = (
    Exercise(
        name="causal_average_weights",
        reference=reference_weights,
        cases=((4,), (7,), (10,)),  # 10: past block_size 8, so an (8, 8) tril cut to [:T, :T] shows
        exact_zeros=ExactZeros(
            future_mask,  # True above the diagonal: the weights that must be exactly 0
            fix="start from torch.tril(torch.ones(T, T)), whose zeros are exact, divide each row by its sum, and "
                "add nothing to the zeros; with a softmax, mask with float('-inf'), not a finite number such as −20, "
                "whose e^x is tiny but not 0.",
        ),
        explain=explain_averaging_weights,
        mistakes=(
            Mistake(
                "dropped_keepdim",
                lambda T: tril(T) / tril(T).sum(1),
                "row 1 sums to 1.5 and row 3 to 2.08: column j was divided by j+1, instead of row i by i+1. If you "
                "divided by `tril.sum(1)`, it has shape (T,), so it lines up with the columns: keep the summed "
                "dimension with `tril.sum(1, keepdim=True)`, shape (T, 1), and each row is divided by its own sum.",
            ),
            Mistake(
                "normalised_by_column",
                lambda T: tril(T) / tril(T).sum(0, keepdim=True),
                "every column sums to 1, but row 0 sums to 0.25: did you normalise by column? Each row is one "
                "position sharing out its attention, so divide each row by its own sum: `sum(1, keepdim=True)`, "
                "not `sum(0)`.",
            ),
            Mistake(
                "looks_at_future",
                lambda T: torch.ones(T, T) / T,
                "row 0 gives weight 0.25 to positions 1, 2 and 3, which are all in its future: every position is "
                "looking ahead at the answer. Start from `torch.tril(torch.ones(T, T))` so later positions get 0.",
            ),
            Mistake(
                "not_normalised",
                tril,
                "row 2 sums to 3: these are 0/1 marks of who is visible, not weights. Divide each row by its sum "
                "(`sum(1, keepdim=True)`) so that row i gives 1/(i+1) to each position it can see.",
            ),
            Mistake(
                "upper_triangle",
                lambda T: torch.triu(torch.ones(T, T)) / torch.triu(torch.ones(T, T)).sum(1, keepdim=True),
                "row 0 spreads its weight over all four positions while row 3 sees only itself: you kept the upper "
                "triangle (torch.triu), which is the future, and hid the past. Use torch.tril to keep positions 0…i.",
            ),
            Mistake(
                "normalised_whole_matrix",
                lambda T: tril(T) / tril(T).sum(),
                "the whole matrix sums to 1, but row 0 sums to only 0.1: you divided by the sum of everything. "
                "Divide each row by its own sum instead: `sum(1, keepdim=True)`.",
            ),
            Mistake(
                "multiplied_by_count",
                lambda T: tril(T) * tril(T).sum(1, keepdim=True),
                "row i gives each position it can see i + 1 instead of 1/(i + 1): you multiplied by the row's sum "
                "where you divide by it, tril / tril.sum(1, keepdim=True).",
            ),
            Mistake(
                "divided_by_T",
                lambda T: tril(T) / T,
                "row 0 sums to 0.25: dividing by T gives every visible position 1/T, but position 0 sees only "
                "itself, so its row must be [1, 0, 0, 0]. Divide each row by its own sum, the number it can see.",
            ),
            Mistake(
                "counted_from_0",
                lambda T: tril(T) / torch.arange(T).unsqueeze(1),
                "row 0 is divided by 0 (1/0 is ∞, and 0/0 NaN), and row i gives 1/i, not 1/(i + 1): torch.arange(T) "
                "counts 0…T − 1, but row i sees i + 1 positions. Divide by torch.arange(1, T + 1).unsqueeze(1), or by "
                "each row's sum, tril.sum(1, keepdim=True).",
            ),
            Mistake(
                "counted_from_0",
                lambda T: tril(T) / torch.arange(T).unsqueeze(1).clamp(min=1),
                "row i gives 1/i, not 1/(i + 1), so row 1 sums to 2: torch.arange(T) counts 0…T − 1, but row i sees "
                "i + 1 positions (a clamp that keeps row 0 from dividing by 0 hides the slip there only). Divide by "
                "torch.arange(1, T + 1).unsqueeze(1), or by each row's sum, tril.sum(1, keepdim=True).",
            ),
            Mistake(
                "rows_of_length_1",
                lambda T: torch.nn.functional.normalize(tril(T), dim=1),
                "each row has length 1, not sum 1: F.normalize divides by the row's length, √(sum of squares), "
                "unless told p=1. Divide each row by its sum, tril / tril.sum(1, keepdim=True).",
            ),
        ),
    ),
)
