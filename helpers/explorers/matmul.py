"""Notebook 02's explorer: type a row of scores and watch "divide by the row sum" turn them into weights.

Dividing by the sum is how scheme two turns the lower triangle into averages. It works for
counts of 1, but arbitrary scores break it in two ways: a negative score becomes a negative
weight, and scores that add up to 0 leave nothing to divide by.
"""

import math

import matplotlib.pyplot as plt
import torch

from ..plots import show_wei
from . import fmt_row

MAX_SCORES = 12  # show_wei writes every value up to this width
EXAMPLE = "2, -1, 3"


def parse_scores(text) -> tuple[list[float] | None, str | None]:
    """Read comma-separated numbers; return (values, None), or (None, a message saying what is wrong)."""
    if not isinstance(text, str) or not text.strip():
        return None, f"Type at least one score, with commas between them, e.g. {EXAMPLE}."
    pieces = [p.strip() for p in text.split(",")]
    values = []
    for position, piece in enumerate(pieces):
        if not piece:
            return None, f"Score {position} is empty: remove the extra comma, e.g. {EXAMPLE}."
        try:
            value = float(piece)
        except ValueError:
            return None, f"{piece!r} (score {position}) is not a number: type numbers only, e.g. {EXAMPLE}."
        if not math.isfinite(value):
            return None, f"{piece!r} (score {position}) is not an ordinary number: use finite values, e.g. {EXAMPLE}."
        values.append(value)
    if len(values) > MAX_SCORES:
        return None, f"That is {len(values)} scores: give at most {MAX_SCORES}, so every value fits on the picture."
    return values, None


def divide_by_row_sum(text: str = EXAMPLE, draw: bool = True) -> dict | None:
    """Divide a typed row of scores by its sum, say in words what went wrong, and draw both rows.

    Returns {'scores', 'total', 'weights', 'problems'} (weights is None when the sum is 0), or
    None after printing a message when the text is not a list of numbers.
    """
    values, error = parse_scores(text)
    if error:
        print(error)
        return None
    scores = torch.tensor(values, dtype=torch.float64)
    total = float(scores.sum())
    problems = []
    weights = None
    print(f"scores:       {fmt_row(scores)}")
    print(f"sum:          {total:g}")
    if total == 0:
        problems.append(
            "The scores add up to 0, so there is nothing to divide by: dividing gives inf or nan "
            "(not-a-number), and every output blended from these weights would be garbage."
        )
    else:
        weights = scores / total
        print(f"÷ sum:        {fmt_row(weights)}   (these do add up to 1)")
        for position in (weights < 0).nonzero().flatten().tolist():
            problems.append(
                f"Weight {position} is {weights[position]:.2f}: negative. A blend would subtract that "
                "position's vector instead of adding a share of it."
            )
        if (weights > 1).any():
            problems.append(
                "Some weights are above 1: a position gets more than all of the blend, paid for by the negative ones."
            )
    if problems:
        print("\n".join(["", *(f"❌ {p}" for p in problems)]))
    else:
        print("\n✅ Every weight lies between 0 and 1 and they add up to 1: a proper weighted average.")
    if draw:
        _draw(scores, weights)
    return {"scores": scores, "total": total, "weights": weights, "problems": problems}




def _draw(scores: torch.Tensor, weights) -> None:
    """The typed scores and, when there are any, the weights, as one-row show_wei panels.

    The weights panel uses the fixed 0–1 colour scale of real weights, on which show_wei paints a
    value outside 0–1 (a negative weight, or one above 1) orange.
    """
    n = len(scores)
    positions = [str(j) for j in range(n)]
    panels = 1 if weights is None else 2
    fig, axes = plt.subplots(panels, 1, figsize=(max(0.6 * n + 2.6, 5.5), 1.7 * panels), squeeze=False)
    title = "the scores you typed" if weights is not None else "the scores you typed add up to 0: no weights"
    show_wei(scores[None, :], labels=["row"], key_labels=positions, stage="raw", ax=axes[0, 0], title=title)
    if weights is not None:
        show_wei(
            weights[None, :],
            labels=["row"],
            key_labels=positions,
            stage="weights",
            ax=axes[1, 0],
            title="÷ their sum (orange: outside 0–1)",
        )
    for ax in axes[:, 0]:
        ax.set_xlabel("position looked at")
        ax.set_ylabel("")
    fig.tight_layout()
    plt.show()
