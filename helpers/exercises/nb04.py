"""Notebook 04's exercise: add the position embedding to the token embedding."""

import torch

from .core import Exercise, Mistake, declare


def _cases() -> tuple:
    """(tok_emb, pos_table) pairs: the table has more rows (block_size) than the chunk has positions."""
    g = torch.Generator().manual_seed(4)
    return (
        (torch.randn(2, 4, 3, generator=g), torch.randn(8, 3, generator=g)),
        (torch.randn(3, 6, 5, generator=g), torch.randn(10, 5, generator=g)),
    )


def _add_positions(tok_emb: torch.Tensor, pos_table: torch.Tensor) -> torch.Tensor:
    return tok_emb + pos_table[: tok_emb.shape[1]]


def _concatenated(tok_emb: torch.Tensor, pos_table: torch.Tensor) -> torch.Tensor:
    B, T, C = tok_emb.shape
    return torch.cat([tok_emb, pos_table[:T].expand(B, T, C)], dim=-1)


declare(
    Exercise(
        name="add_positions",
        reference=_add_positions,
        cases=_cases(),
        mistakes=(
            Mistake(
                "whole_table",
                lambda tok_emb, pos_table: tok_emb + pos_table,
                "the shapes do not match: the table has a row for every position up to block_size, but this chunk "
                "has only T positions. Add just the first T rows, pos_table[:T].",
            ),
            Mistake(
                "concatenated",
                _concatenated,
                "your vectors are twice as wide: you concatenated the two embeddings. Add them instead, so each "
                "vector keeps its C numbers and nothing after it has to change.",
            ),
            Mistake(
                "positions_from_one",
                lambda tok_emb, pos_table: tok_emb + pos_table[1 : tok_emb.shape[1] + 1],
                "every position got the next position's row: positions count from 0, so use pos_table[:T] "
                "(rows 0 to T − 1), not rows 1 to T.",
            ),
            Mistake(
                "no_positions",
                lambda tok_emb, pos_table: tok_emb,
                "you returned the token embeddings unchanged: add the position rows, or the same character looks "
                "the same wherever it stands.",
            ),
        ),
    )
)
