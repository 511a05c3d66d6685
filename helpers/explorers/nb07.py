"""Notebook 07's own helpers (scaling by √dₖ): slide the head size, toggle the scale, watch the softmax sharpen or
stay calm; the exercise, the scaled scores."""

from functools import partial

import torch
import torch.nn.functional as F

from ..attention import causal_softmax
from ..exercises import Exercise, Mistake
from ..exercises.explain import ELEMENTWISE_SCORES, explain_scores, scale_name, scale_slips
from ..plots import show_wei
from .core import explorer, fmt_row, int_hint, new_figure, quote, report, seeded_randn, show

TEXT = "thou art"  # the characters on the axes; the q and k are random, as at initialisation
HEAD_SIZES = (4, 16, 64, 256, 1024)


def random_qk(T: int, head_size: int, seed: int = 1337) -> tuple[torch.Tensor, torch.Tensor]:
    """(T, head_size) queries and keys with independent N(0, 1) entries, as an untrained head gives."""
    return seeded_randn(seed, (T, head_size), (T, head_size))


def scores(q: torch.Tensor, k: torch.Tensor, scaled: bool) -> torch.Tensor:
    """q kᵀ, multiplied by head_size ** -0.5 when `scaled`."""
    return q @ k.transpose(-2, -1) * (q.shape[-1] ** -0.5 if scaled else 1.0)


@explorer(refuses=[
    ({"head_size": 0}, "at least 1"),
    ({"head_size": 2.5}, "whole number"),
    ({"head_size": 64.0}, "not 64.0 (write 64, without the decimal point)"),
    ({"head_size": True}, "whole number"),
    ({"head_size": 10_000}, "4096 or less"),
    ({"scaled": "yes"}, "yes/no"),
])
def explore_scaling(head_size: int = 1024, scaled: bool = True):
    """Random q, k of `head_size` for the characters of TEXT: print each row's largest weight, draw `wei`.

    Returns {'wei': (T, T), 'max_weight': (T,) each row's largest weight, 'mean_max_weight': float
    (over rows 1…T−1; row 0 can only look at itself)}, or None after one sentence about bad input.
    """
    if isinstance(head_size, bool) or not isinstance(head_size, int) or head_size < 1:
        return report(f"The head size must be a whole number of at least 1, e.g. 64, not {quote(head_size)}"
                      f"{int_hint(head_size)}.")
    if head_size > 4096:
        return report(f"A head size of {head_size} is larger than this picture needs: pick 4096 or less, e.g. 1024.")
    if not isinstance(scaled, bool):
        return report(f"'scale by 1/√dₖ' is a yes/no switch (True or False), not {quote(scaled)}.")
    q, k = random_qk(len(TEXT), head_size)
    raw = scores(q, k, scaled)
    wei = causal_softmax(raw)
    max_weight = wei.max(dim=-1).values
    mean_max = float(max_weight[1:].mean())
    print(f"head size {head_size}, {'scaled by 1/√dₖ' if scaled else 'NOT scaled'}: "
          f"scores have standard deviation {float(raw.std()):.2f}")
    print(f"largest weight in each row: {fmt_row(max_weight)}   (mean over rows 1–{len(TEXT) - 1}: {mean_max:.2f})")
    fig, ax = new_figure((6.4, 4.6))
    title = f"wei · head size {head_size}, {'scaled' if scaled else 'unscaled'}"
    show_wei(wei, labels=list(TEXT), stage="softmax", ax=ax, title=title, axis_names="qk")
    fig.tight_layout()
    show(fig, f"Heatmap of the softmax weights wei for {TEXT!r} from random queries and keys of head size {head_size}, "
              f"{'scaled' if scaled else 'not scaled'} by 1/√dₖ: each row's largest weight averages {mean_max:.2f}.")
    return {"wei": wei, "max_weight": max_weight, "mean_max_weight": mean_max}


# ---- Your turn: the scaled scores q kᵀ / √head_size ------------------------------------------------------------------

# Seeded q and k of shape (…, T, head_size), with T, T − 1 and head_size apart so every mistake shows, and 8 as a head
# size, whose square root is no whole number, so that one rounded to a whole number shows too.
CASES = (seeded_randn(7, (6, 4), (6, 4)), seeded_randn(8, (2, 6, 8), (2, 6, 8)))


def scale_used(factor, inputs: tuple) -> str:
    """What scores `factor` times the right ones were scaled by, beside the scale of the input's own head size."""
    head_size = inputs[1].shape[-1]
    return (f"you scaled by {scale_name(float(factor) * head_size**-0.5)}, but this input's head size, k.shape[-1], "
            f"is {head_size}, so its scale is 1/√{head_size} ({head_size**-0.5:.3g}). Scale by k.shape[-1] ** -0.5")


EXERCISES = (
    Exercise(
        name="scaled_scores",
        reference=lambda q, k: scores(q, k, scaled=True),
        cases=CASES,
        explain=partial(explain_scores, scale=scale_used),
        mistakes=(
            Mistake(
                "forgot_scale",
                lambda q, k: scores(q, k, scaled=False),
                "these are the raw scores q @ kᵀ: multiply them by head_size ** -0.5 so their variance is "
                "about 1 instead of about head_size.",
            ),
            *scale_slips(lambda inputs, scale: scores(*inputs, scaled=False) * scale,
                         lambda inputs: inputs[1].shape[-1], "k.shape[-1]",
                         ", then ".join(str(k.shape[-1]) for _, k in CASES)),
            Mistake(
                "softmaxed",
                lambda q, k: F.softmax(scores(q, k, scaled=True), dim=-1),
                "you returned weights: this function stops at the scaled scores, q @ kᵀ · head_size ** -0.5. The "
                "mask and the softmax come after it.",
            ),
            Mistake(
                "scaled_by_sqrt_T",
                lambda q, k: scores(q, k, scaled=False) * (q.shape[1] ** -0.5),
                "you divided by √(q.shape[1]): for one sequence, (T, head_size), that is the head size, but once a "
                "batch comes first, (B, T, head_size), q.shape[1] is T. Count from the end: k.shape[-1] is the head "
                "size in both.",
            ),
            Mistake(
                "scaled_by_sqrt_T",
                lambda q, k: scores(q, k, scaled=False) * (q.shape[-2] ** -0.5),
                "you divided by √T, the number of positions: the variance comes from the head_size terms "
                "of each dot product, so divide by √head_size (k.shape[-1]).",
            ),
            Mistake(
                "transposed_batch_dim",
                lambda q, k: q @ k.transpose(0, 1) * k.shape[-1] ** -0.5,
                "transpose(0, 1) swaps the batch and time dimensions once a batch is added: use "
                "k.transpose(-2, -1), which always swaps the last two.",
            ),
            Mistake("multiplied_entry_by_entry", lambda q, k: q * k.transpose(-2, -1) * k.shape[-1] ** -0.5,
                    ELEMENTWISE_SCORES),
            Mistake(
                "no_transpose",
                lambda q, k: q @ k * k.shape[-1] ** -0.5,
                "q @ k does not line up: each score is a query dotted with a key, so transpose the key's last "
                "two dimensions first, k.transpose(-2, -1) (transpose(-2, 1) swaps them for one sequence only: on a "
                "batch it swaps dimension 1 with itself).",
            ),
        ),
    ),
)
