"""Notebook 03: softmax with the −∞ mask. An explorer for one row of scores and its weights."""

import torch

from ..plots import show_wei, symmetric_bound
from .core import check_position, fmt_row, link_range, new_figure, parse_numbers, report, show

EXAMPLE = "2, -1, 3, 5"
MAX_SCORES = 12  # show_wei writes every value up to this width


def masked_softmax_row(scores: torch.Tensor, now: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Position `now`'s view of a row of scores: (the scores with the future set to −∞, the weights)."""
    future = torch.arange(scores.shape[-1], device=scores.device) > now
    masked = scores.masked_fill(future, float("-inf"))
    return masked, torch.softmax(masked, dim=-1)


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


def explore_masked_softmax(scores_text: str = EXAMPLE, now: int = 2) -> dict | None:
    """Mask the future of a typed row of scores, softmax it, print each step and draw the three stages.

    Positions after `now` are the future: whatever their scores, they get weight exactly 0.
    Returns {'scores', 'masked', 'weights'} (1-D CPU float32 tensors) and 'now', or None after
    reporting why the input is unusable.
    """
    values, problem = parse_numbers(scores_text, EXAMPLE, MAX_SCORES)
    if problem is None:
        problem = check_position(now, len(values), "now", "scores")
    if problem:
        report(problem)
        return None

    raw = torch.tensor(values, dtype=torch.float32)
    masked, weights = masked_softmax_row(raw, now)
    exps = masked.exp()
    last = now == len(values) - 1
    print(f"position {now} is now, the last one: there is no future" if last
          else f"position {now} is now; positions after it are the future")
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
    if last:
        print("   nothing is masked: `now` is the last position, so every score counts")
    else:
        future_zero = bool((weights[now + 1 :] == 0).all())
        print(f"   every future weight is exactly 0: {future_zero}")
    _draw(raw, masked, weights, now)
    return {"scores": raw, "masked": masked, "weights": weights, "now": now}


def _draw(raw: torch.Tensor, masked: torch.Tensor, weights: torch.Tensor, now: int) -> None:
    """The row's three stages, one above the other: raw scores, future set to −∞, softmax weights."""
    n = len(raw)
    keys = [str(j) for j in range(n)]
    row = [f"t={now}"]
    fig, axes = new_figure((0.62 * n + 2.6, 4.6), 3, 1)
    panels = [
        (raw, "raw", "raw scores"),
        (masked, "masked", "future set to −∞" if now < n - 1 else "nothing to mask: now is the last position"),
        (weights, "softmax", "softmax weights"),
    ]
    future = (torch.arange(n) > now).unsqueeze(0)
    bound = symmetric_bound([raw])  # both score panels share one colour scale, so a colour means one score
    for ax, (values, stage, title) in zip(axes, panels, strict=True):
        mask = None if stage == "raw" else future  # the raw panel still shows the future's score
        show_wei(values.unsqueeze(0), labels=row, key_labels=keys, stage=stage, ax=ax, causal=False, title=title,
                 mask=mask, bound=None if stage == "softmax" else bound)
        ax.set_xlabel("")
        ax.set_ylabel("")
    axes[-1].set_xlabel("position looked at")
    fig.tight_layout()
    show(fig, f"Three one-row heatmaps of the scores {fmt_row(raw)} seen from position {now}: raw, with the "
              f"future set to minus infinity (hatched), and the softmax weights {fmt_row(weights)}.")
