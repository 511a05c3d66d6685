"""Notebook 07's exercise: the scaled scores q kᵀ / √head_size."""

import torch

from .core import Exercise, Mistake, declare


def _scaled(q, k, scale):
    return q @ k.transpose(-2, -1) * scale


def _case(seed: int, shape: tuple) -> tuple:
    """Seeded q and k of `shape` (…, T, head_size), with T ≠ head_size so every mistake shows."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g), torch.randn(shape, generator=g)


declare(
    Exercise(
        name="scaled_scores",
        reference=lambda q, k: _scaled(q, k, k.shape[-1] ** -0.5),
        cases=(_case(7, (5, 4)), _case(8, (2, 6, 16))),
        mistakes=(
            Mistake(
                "forgot_scale",
                lambda q, k: _scaled(q, k, 1.0),
                "these are the raw scores q @ kᵀ: multiply them by head_size ** -0.5 so their variance is "
                "about 1 instead of about head_size.",
            ),
            Mistake(
                "scaled_by_d",
                lambda q, k: _scaled(q, k, 1 / k.shape[-1]),
                "you divided by head_size itself: the variance grows like head_size, so the standard deviation "
                "grows like √head_size; divide by the square root, head_size ** 0.5.",
            ),
            Mistake(
                "scaled_by_sqrt_T",
                lambda q, k: _scaled(q, k, q.shape[-2] ** -0.5),
                "you divided by √T, the number of positions: the variance comes from the head_size terms "
                "of each dot product, so divide by √head_size (k.shape[-1]).",
            ),
            Mistake(
                "transposed_batch_dim",
                lambda q, k: q @ k.transpose(0, 1) * k.shape[-1] ** -0.5,
                "transpose(0, 1) swaps the batch and time dimensions once a batch is added: use "
                "k.transpose(-2, -1), which always swaps the last two.",
            ),
            Mistake(
                "no_transpose",
                lambda q, k: q @ k * k.shape[-1] ** -0.5,
                "q @ k does not line up: each score is a query dotted with a key, so transpose the key's last "
                "two dimensions first, k.transpose(-2, -1).",
            ),
        ),
    )
)
