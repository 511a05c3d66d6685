"""Notebook 04's own helpers (position embeddings): an explorer of two typed words' last outputs without and with
positions, and the add-positions exercise."""

import torch

from ..data import VOCAB_SIZE
from ..examples import similarity_blend
from ..exercises import Exercise, Mistake
from .core import explorer, fmt_row, new_figure, parse_word, report, show

BLOCK_SIZE = 8  # positions 0…7 have a row in the position table
N_EMBD = 4  # small enough to read every number of an output vector


def explorer_tables(seed: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    """A fixed random token table (VOCAB_SIZE, N_EMBD) and position table (BLOCK_SIZE, N_EMBD).

    Drawn with std 0.5, so the scores x_t · x_s stay small and no softmax row collapses onto one position.
    """
    g = torch.Generator().manual_seed(seed)
    return 0.5 * torch.randn(VOCAB_SIZE, N_EMBD, generator=g), 0.5 * torch.randn(BLOCK_SIZE, N_EMBD, generator=g)


TOKEN_TABLE, POSITION_TABLE = explorer_tables()


def last_outputs(indices: list[int]) -> dict[str, torch.Tensor]:
    """The similarity blend's output at the last position, from token vectors alone and from token + position."""
    tokens = TOKEN_TABLE[indices]
    with_positions = tokens + POSITION_TABLE[: len(indices)]
    return {"without": similarity_blend(tokens)[-1], "with": similarity_blend(with_positions)[-1]}


@explorer(refuses=[
    ({"first": ""}, "first word is empty"),
    ({"second": "go#s"}, "'#'"),
    ({"first": "a" * (BLOCK_SIZE + 1)}, f"keep it to {BLOCK_SIZE} or fewer"),
    ({"second": None}, "not text"),
])
def explore_word_order(first: str = "dogs", second: str = "gods"):
    """Print and draw the last position's output for two words, without and with position embeddings.

    Returns {'without': (first's row, second's row), 'with': (…)} as CPU tensors, or None after
    printing one sentence about unusable input.
    """
    words = []
    for label, word in (("first word", first), ("second word", second)):
        indices, problem = parse_word(word, BLOCK_SIZE, what=label, example="dogs")
        if problem:
            return report(problem)
        words.append((word, last_outputs(indices)))
    shown, verdicts = {}, []
    fig, axes = new_figure((9, 2.8), 1, 2, sharey=True)
    panels = (("without", "token vectors only"), ("with", "token + position vectors"))
    for ax, (kind, title) in zip(axes, panels, strict=True):
        rows = tuple(outputs[kind] for _, outputs in words)
        same = bool(torch.allclose(rows[0], rows[1], atol=1e-6, rtol=0))
        shown[kind] = rows
        verdicts.append(f"{'the same' if same else 'different'} from {title}")
        print(f"{title}: the last position's output is {'the same' if same else 'different'}")
        for k, (word, row) in enumerate(zip((w for w, _ in words), rows, strict=True)):
            print(f"    {word!r:>10} → {fmt_row(row)}")
            offsets = torch.arange(N_EMBD) + (k - 0.5) * 0.38
            ax.bar(offsets.numpy(), row.numpy(), width=0.36, label=repr(word))
        ax.axhline(0, color="#8c8c8c", linewidth=0.8)
        ax.set_xticks(range(N_EMBD), [f"dim {i}" for i in range(N_EMBD)])
        ax.set_title(f"{title}\nlast position: {'identical' if same else 'different'}")
    axes[0].set_ylabel("last position's output")
    axes[1].legend(loc="best")
    fig.tight_layout()
    show(fig, f"Bar charts of the last position's output for {first!r} and {second!r}: {', '.join(verdicts)}.")
    return shown


# ---- Your turn: add the position embedding to the token embedding ----------------------------------------------------


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


EXERCISES = (
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
    ),
)
