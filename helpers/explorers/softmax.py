"""Notebook 03: softmax with the −∞ mask. An explorer for one row of scores and its weights."""


import matplotlib.pyplot as plt
import torch

from ..plots import show_wei
from . import fmt_row
from .matmul import parse_scores  # notebook 02 reads a typed row of scores the same way

EXAMPLE = "2, -1, 3, 5"


def now_problem(now, length: int) -> str | None:
    """A plain-words reason why `now` is not a position of a row of `length` scores, or None."""
    if isinstance(now, bool) or not isinstance(now, int):
        return f"The position 'now' must be a whole number, not {now!r}."
    if now < 0:
        return f"The position 'now' is {now}: positions count from 0."
    if now >= length:
        return (
            f"The position 'now' is {now}, past the end: {length} score(s) means positions 0 to {length - 1}. "
            f"Move the slider to {length - 1} or lower, or type more scores."
        )
    return None


def masked_softmax_row(scores: torch.Tensor, now: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Position `now`'s view of a row of scores: (the scores with the future set to −∞, the weights)."""
    future = torch.arange(scores.shape[-1], device=scores.device) > now
    masked = scores.masked_fill(future, float("-inf"))
    return masked, torch.softmax(masked, dim=-1)




def explore_masked_softmax(scores_text: str = EXAMPLE, now: int = 2):
    """Mask the future of a typed row of scores, softmax it, print each step and draw the three stages.

    Positions after `now` are the future: whatever their scores, they get weight exactly 0.
    Returns the weights it shows (a 1-D CPU tensor), or None after printing why the input is unusable.
    """
    if isinstance(scores_text, str):
        scores_text = scores_text.replace("−", "-")  # the course's prose writes minus as −; accept it when pasted
    scores, problem = parse_scores(scores_text)
    if problem is None:
        problem = now_problem(now, len(scores))
    if problem:
        print(problem)
        return None

    raw = torch.tensor(scores)
    masked, weights = masked_softmax_row(raw, now)
    exps = masked.exp()
    print(f"position {now} is now; positions after it are the future")
    print(f"① mask the future:  {fmt_row(masked)}")
    if torch.isinf(exps).any():
        shifted = (masked - masked.max()).exp()
        print("② exp:              overflows (a score above about 88 gives e^score > the largest float32);")
        print(f"   exp(score − max): {fmt_row(shifted)}   (shifting every score changes no weight)")
        print(f"③ sum:              {float(shifted.sum()):.2f}   (of the shifted exps)")
    else:
        print(f"② exp:              {fmt_row(exps)}")
        print(f"③ sum:              {float(exps.sum()):.2f}")
    print(f"④ weights:          {fmt_row(weights)}   sum {float(weights.sum()):.2f}")
    future_zero = bool((weights[now + 1 :] == 0).all())
    print(f"   every future weight is exactly 0: {future_zero}")

    keys = [str(j) for j in range(len(scores))]
    row = [f"t={now}"]
    fig, axes = plt.subplots(3, 1, figsize=(0.62 * len(scores) + 2.6, 4.6))
    panels = [
        (raw, "raw", "① raw scores (the future still holds a number)"),
        (masked, "masked", "② future set to −∞"),
        (weights, "softmax", "③ softmax: weights (they sum to 1)"),
    ]
    future = (torch.arange(len(scores)) > now).unsqueeze(0)
    for ax, (values, stage, title) in zip(axes, panels, strict=True):
        mask = None if stage == "raw" else future  # the raw panel still shows the future's score
        show_wei(values.unsqueeze(0), labels=row, key_labels=keys, stage=stage, ax=ax, causal=False, title=title,
                 mask=mask)
        ax.set_xlabel("")
        ax.set_ylabel("")
    axes[-1].set_xlabel("position looked at")
    fig.tight_layout()
    plt.show()
    return weights
