"""Notebook 04's own helpers (position embeddings): an explorer of two typed words' weights and last outputs without
and with positions, and the add-positions exercise."""

import torch

from ..data import VOCAB_SIZE
from ..examples import similarity_weights
from ..exercises import Exercise, Mistake
from ..plots import char_label, show_wei
from .core import explorer, fmt_row, new_figure, parse_word, report, seeded_randn, show

BLOCK_SIZE = 8  # positions 0…7 have a row in the position table
N_EMBD = 4  # small enough to read every number of an output vector


# A fixed random token table and position table, drawn with std 0.5 so that the scores x_t · x_s stay small and no
# softmax row collapses onto one position.
TOKEN_TABLE, POSITION_TABLE = (0.5 * table for table in seeded_randn(4, (VOCAB_SIZE, N_EMBD), (BLOCK_SIZE, N_EMBD)))


def blend_both_ways(indices: list[int]) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    """The content-based weights and the last position's output, from token vectors alone ('without') and from
    token + position ('with'): {kind: (wei, last output)}."""
    tokens = TOKEN_TABLE[indices]
    blends = {}
    for kind, x in (("without", tokens), ("with", tokens + POSITION_TABLE[: len(indices)])):
        wei = similarity_weights(x)
        blends[kind] = (wei, (wei @ x)[-1])  # notebook 04's similarity_blend, its weights kept
    return blends


@explorer(refuses=[
    ({"first": ""}, "first word is empty"),
    ({"second": "go#s"}, "'#'"),
    ({"first": "a" * (BLOCK_SIZE + 1)}, f"keep it to {BLOCK_SIZE} or fewer"),
    ({"second": None}, "not text"),
])
def explore_word_order(first: str = "dogs", second: str = "gods"):
    """Print the last position's output for two words, without and with position embeddings, and draw the weights
    behind each: the last row of each word's weights, token vectors only in the top row, token + position below.

    Returns {'without': (first's row, second's row), 'with': (…), 'wei': {'without': (first's wei, second's wei),
    'with': (…)}} as CPU tensors, or None after printing one sentence about unusable input.
    """
    words, blends = (first, second), []
    for label, word in zip(("first word", "second word"), words, strict=True):
        indices, problem = parse_word(word, BLOCK_SIZE, what=label, example="dogs")
        if problem:
            return report(problem)
        blends.append(blend_both_ways(indices))
    shown, verdicts = {"wei": {}}, []
    fig, axes = new_figure((max(6.4, 1.0 * max(map(len, words)) + 3.0), 3.3), 2, 2)
    kinds = (("without", "token vectors only", "tokens only"), ("with", "token + position vectors", "token + position"))
    for row, (kind, title, short) in zip(axes, kinds, strict=True):
        weights, outputs = zip(*(blend[kind] for blend in blends), strict=True)
        verdict = "the same" if torch.allclose(outputs[0], outputs[1], atol=1e-6, rtol=0) else "different"
        shown[kind], shown["wei"][kind] = outputs, weights
        verdicts.append(f"{verdict} from {title}")
        print(f"{title}: the last position's output is {verdict}")
        for ax, word, output, wei in zip(row, words, outputs, weights, strict=True):
            print(f"    {word!r:>10} → {fmt_row(output)}")
            # the last position's weights over the word, as a one-row heatmap with every weight in its cell
            last = f"{len(word) - 1} {char_label(word[-1])}"  # as show_wei labels the columns
            show_wei(wei[-1:], labels=[last], key_labels=list(word), stage="weights", ax=ax, causal=False,
                     title=f"{word!r}: {short}", colour_bar=False)
            ax.set(xlabel="", ylabel="")
    fig.tight_layout(h_pad=1.5)  # room between the top panels and the titles below them
    show(fig, f"The last position's output for {first!r} and {second!r} is {' and '.join(verdicts)}. "
              + " ".join(ax.get_label() for ax in axes.flat))
    return shown


# ---- Your turn: add the position embedding to the token embedding ----------------------------------------------------


# (tok_emb, pos_table) pairs: token embeddings (B, T, C) and a table with more rows (block_size) than the chunk has
# positions. C stays far from T, and the table's rows from C, so that each slip of the slice gives a result of its own,
# and slips with different causes (a slice one row off, C rows, the table's .T) raise different size clashes, which is
# how a raising mistake is recognised (the table's .T and its columns clash alike, and share a hint).
_DRAWN = seeded_randn(4, (2, 4, 7), (10, 7), (3, 7, 3), (11, 3), (2, 9, 5), (12, 5))  # the last T past block_size 8

EXERCISES = (
    Exercise(
        name="add_positions",
        reference=lambda tok_emb, pos_table: tok_emb + pos_table[: tok_emb.shape[1]],
        cases=(_DRAWN[:2], _DRAWN[2:4], _DRAWN[4:]),
        mistakes=(
            Mistake(
                "whole_table",
                lambda tok_emb, pos_table: tok_emb + pos_table,
                "the shapes do not match: the table has a row for every position up to block_size, but this chunk "
                "has only T positions. Add just the first T rows, pos_table[:T].",
            ),
            Mistake(
                "concatenated",
                lambda tok_emb, pos_table: torch.cat([tok_emb, pos_table[: tok_emb.shape[1]].expand_as(tok_emb)], -1),
                "your vectors are twice as wide: you concatenated the two embeddings. Add them instead, so each "
                "vector keeps its C numbers and nothing after it has to change.",
            ),
            Mistake(
                "positions_from_one",
                lambda tok_emb, pos_table: tok_emb + pos_table[1 : tok_emb.shape[1] + 1],
                "every position got the next position's row: positions count from 0, so use pos_table[:T] "
                "(rows 0 to T − 1), not rows 1 to T.",
            ),
            *(Mistake(
                "one_row",
                lambda tok_emb, pos_table, row=row: tok_emb + pos_table[row(tok_emb.shape[1])],
                f"every position got the same row of the table ({index} picks one row; the colon of pos_table[:T] "
                "makes a slice, rows 0 to T − 1): take pos_table[:T], so that position t gets row t.",
            ) for index, row in (("pos_table[T]", lambda T: T), ("pos_table[T - 1]", lambda T: T - 1),
                                 ("pos_table[-1]", lambda T: -1))),
            *(Mistake(
                "slice_off_by_one",
                lambda tok_emb, pos_table, more=more: tok_emb + pos_table[: tok_emb.shape[1] + more],
                f"your slice of the table has T {'+' if more > 0 else '−'} 1 rows, but the chunk has T positions: "
                "pos_table[:T] is rows 0 to T − 1, exactly T of them.",
            ) for more in (1, -1)),
            Mistake(
                "rows_by_sequence",
                lambda tok_emb, pos_table: tok_emb + pos_table[: tok_emb.shape[0]].unsqueeze(1),
                "sequence b got row b of the table at every position: the table is indexed by position, not by "
                "sequence, so add pos_table[:T] to every sequence alike, tok_emb + pos_table[:T].",
            ),
            Mistake(
                "last_rows",
                lambda tok_emb, pos_table: tok_emb + pos_table[-tok_emb.shape[1]:],
                "you took the table's last T rows (pos_table[-T:]): position t's row is row t, counted from the "
                "start, so take the first T rows, pos_table[:T].",
            ),
            Mistake(
                "multiplied",
                lambda tok_emb, pos_table: tok_emb * pos_table[: tok_emb.shape[1]],
                "you multiplied the two embeddings: add them, tok_emb + pos_table[:T], so that each character's "
                "vector is shifted by its position's, not scaled by it.",
            ),
            Mistake(
                "T_from_the_last_dimension",
                lambda tok_emb, pos_table: tok_emb + pos_table[: tok_emb.shape[-1]],
                "your slice of the table meets tok_emb with C where T belongs: either it has C rows, not T "
                "(tok_emb.shape[-1] is C, the width of each vector; the number of positions is T = tok_emb.shape[1], "
                "or shape[-2]), or an unsqueeze(-1) made it (T, C, 1). Take pos_table[:T] and add it as it is.",
            ),
            Mistake(
                "unsqueezed_the_table",
                lambda tok_emb, pos_table: tok_emb + pos_table[: tok_emb.shape[1]].unsqueeze(1),
                "pos_table[:T] is already (T, C), which lines up with the last two dimensions of tok_emb, (B, T, C): "
                "add it as it is; unsqueeze(1) makes it (T, 1, C), which does not.",
            ),
            Mistake(
                "ends_in_T",  # (C, T) from .T, or (T,): a sum or a column; every such clash raises the same error
                lambda tok_emb, pos_table: tok_emb + pos_table[: tok_emb.shape[1]].T,
                "what you added ends in T numbers, where tok_emb's vectors have C: the positions are the table's "
                "rows, so take its first T rows, pos_table[:T], which is already (T, C), lined up with the last two "
                "dimensions of tok_emb, (B, T, C), and add it as it is: no .T, no sum, mean or maximum over its last "
                "dimension, not one column (pos_table[:T, 0]), and not its columns (pos_table[:, :T]).",
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
