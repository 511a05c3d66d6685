"""Notebook 02's explorer: type a row of scores and watch "divide by the row sum" turn them into weights.

Dividing by the sum is how scheme two turns the lower triangle into averages. It works for
counts of 1, but arbitrary scores break it in two ways: a negative score becomes a negative
weight, and scores that add up to 0 leave nothing to divide by.
"""

import torch

from ..plots import show_wei
from .core import fmt_row, new_figure, parse_numbers, report, show

MAX_SCORES = 12  # show_wei writes every value up to this width
EXAMPLE = "2, -1, 3"


def explore_divide_by_sum(scores_text: str = EXAMPLE) -> dict | None:
    """Divide a typed row of scores by its sum, say in words what went wrong, and draw both rows.

    Returns {'scores', 'total', 'weights', 'problems'} (CPU float64 tensors; weights is None when
    there is nothing to divide by), or None after reporting input that is not a row of numbers.
    """
    values, problem = parse_numbers(scores_text, EXAMPLE, MAX_SCORES)
    if problem:
        report(problem)
        return None
    scores = torch.tensor(values, dtype=torch.float64)
    total = float(scores.sum())
    weights = scores / total if total != 0 else None
    if weights is not None and not torch.isfinite(weights).all():
        report(f"The scores add up to {total:.3g}, so close to 0 that dividing by it overflows: "
               "make their sum further from 0.")
        return None
    problems = []
    print(f"scores:       {fmt_row(scores)}")
    print(f"sum:          {total:g}")
    if weights is None:
        problems.append(
            "The scores add up to 0, so there is nothing to divide by: dividing gives inf or nan "
            "(not-a-number), and every output blended from these weights would be garbage."
        )
    else:
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
    fig, axes = new_figure((max(0.6 * n + 2.6, 5.5), 1.7 * panels), panels, 1, squeeze=False)
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
    typed = ", ".join(f"{v:g}" for v in scores.tolist())
    show(fig, f"The scores {typed} as a one-row heatmap" + (" above the same row divided by its sum, on the 0–1 "
              "weights scale with values outside it in orange." if weights is not None else "; they add up to 0."))
