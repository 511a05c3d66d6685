"""Notebook 01's own helpers: the bag-of-words explorer, which shows order is lost, and the running-average exercise."""

from collections import Counter

import torch
from matplotlib.lines import Line2D
from matplotlib.transforms import offset_copy

from ..averaging import average_loop
from ..data import CHARS, STOI, encode
from ..exercises import Exercise, Mistake
from ..exercises.core import close, fmt, unwritten_rows
from ..plots import TEXT_PT, char_label, text_ems
from ..words import counted
from .core import explorer, fmt_row, new_figure, parse_word, report, show

MAX_LEN = 12  # longest word the explorer accepts: its bar charts still have room for every position

# One small vector per character, so a word turns into a (T, 2) sequence we can average by hand.
# Whole numbers make every sum exact, so two orders of the same characters give bit-identical means.
# h, o and u keep the values of the worked example: [2, 7], [6, 4], [6, 5]; d, g and s those notebook 04 gives
# them: [1, 0], [2, 1], [1, 1].
CHAR_VECTORS = torch.randint(0, 10, (len(CHARS), 2), generator=torch.Generator().manual_seed(1337)).float()
for char, vector in {"h": [2, 7], "o": [6, 4], "u": [6, 5], "d": [1, 0], "g": [2, 1], "s": [1, 1]}.items():
    CHAR_VECTORS[STOI[char]] = torch.tensor(vector, dtype=torch.float32)


def word_vectors(word: str) -> torch.Tensor:
    """The (T, 2) sequence of CHAR_VECTORS for the characters of `word`."""
    return CHAR_VECTORS[torch.tensor(encode(word))]


@explorer(refuses=[
    ({"word": ""}, "The first word is empty: type 1 to 12 characters"),
    ({"word": "café"}, "The first word 'café' has 'é' at position 3"),
    ({"other": "g0ds"}, "The second word 'g0ds' has '0' at position 1"),
    ({"other": "y" * (MAX_LEN + 1)}, f"has {MAX_LEN + 1} characters: keep it to {MAX_LEN} or fewer"),
    ({"word": None}, "The first word is NoneType, not text"),
])
def explore_bag_of_words(word: str = "dogs", other: str = "gods") -> dict | None:
    """Print and draw both words' running averages under scheme one, and where they are identical (the average
    forgets order). Leave `other` empty to see one word.

    Returns {'word', 'other', 'averages', 'other_averages', 'same'} (CPU tensors; 'same' is one bool per position
    the words share; 'other_averages' and 'same' are None without a second word), or None after reporting bad input.
    """
    _, problem = parse_word(word, MAX_LEN, "first word", "dogs")
    if problem is None and other != "":
        _, problem = parse_word(other, MAX_LEN, "second word", "gods")
    if problem:
        return report(problem)

    words = [w for w in (word, other) if w]
    averages = [average_loop(word_vectors(w).unsqueeze(0))[0] for w in words]
    same = None
    if other:
        same = torch.tensor([torch.equal(a, b) for a, b in zip(*averages, strict=False)], dtype=torch.bool)
    letters = dict.fromkeys("".join(words))  # each character once, in order of first appearance
    print("vectors:", ",  ".join(f"{c!r} {fmt_row(CHAR_VECTORS[STOI[c]])}" for c in letters))
    _print_averages(words, averages, same)
    _draw(words, averages, same)
    return {"word": word, "other": other or None, "averages": averages[0],
            "other_averages": averages[1] if other else None, "same": same}


def _print_averages(words, averages, same) -> None:
    """Each position's prefix and running average, one column per word, whether the two are equal, and why."""
    width = max(len(f"prefix of {w!r}") for w in words) + 2
    header = " t  " + "".join(f"{'prefix of ' + repr(w):<{width}}{'average':<15}" for w in words)
    print((header + "same?" * (len(words) > 1)).rstrip())
    for t in range(max(map(len, words))):
        line = f"{t:2d}  "
        for w, avg in zip(words, averages, strict=True):
            line += f"{w[: t + 1]!r:<{width}}{fmt_row(avg[t]):<15}" if t < len(w) else " " * (width + 15)
        if same is not None and t < len(same):
            line += "identical" if same[t] else "differs"
        print(line.rstrip())
    if same is None:
        print("Type a second word (an anagram such as 'gods' for 'dogs') to compare the averages.")
    elif words[0] == words[1]:
        print("The two words are the same, so every average is too: type an anagram (such as 'gods' for 'dogs') to "
              "see order forgotten.")
    else:
        _print_why_identical(words, averages, same)


def _print_why_identical(words, averages, same) -> None:
    """Where two different words' averages are identical, say why: the same text, the same characters in another
    order, or chance; and whether their last averages agree, with why (an average keeps proportions, not counts)."""
    identical = same.nonzero().flatten().tolist()
    same_text = [t for t in identical if words[0][: t + 1] == words[1][: t + 1]]
    order_lost = [t for t in identical if t not in same_text and sorted(words[0][: t + 1]) == sorted(words[1][: t + 1])]
    by_chance = [t for t in identical if t not in same_text + order_lost]
    if same_text:
        print(f"Identical at {positions(same_text)}, where the two prefixes are the same text.")
    if order_lost:
        print(f"Identical at {positions(order_lost)}, where the two prefixes hold the same "
              "characters: the average cannot see their order.")
    if by_chance:
        print(f"Identical at {positions(by_chance)} although the prefixes hold different "
              "characters: their vectors happen to add up alike (two whole numbers per character cannot keep "
              "every mix apart).")
    if sorted(words[0]) != sorted(words[1]):
        counts = [Counter(w) for w in words]
        if all(counts[0][ch] * len(words[1]) == counts[1][ch] * len(words[0]) for ch in counts[0] | counts[1]):
            print(f"{words[0]!r} and {words[1]!r} hold the same characters in the same shares: an average keeps the "
                  "shares, not the counts, so their last averages are equal.")
            return
        alike = torch.equal(averages[0][-1], averages[1][-1])
        what = ("are not made of the same characters" if set(words[0]) != set(words[1])
                else "hold the same characters, but in other shares")
        print(f"{words[0]!r} and {words[1]!r} {what}"
              + (", yet their last averages are equal: by chance, their vectors add up alike." if alike
                 else ", so their last averages differ."))


def _label_height(value: float, written: bool, upright: bool) -> float:
    """Points from the top of a bar to just above its written value: where its "=" goes."""
    if not written:
        return 3
    width, height = (TEXT_PT * ems for ems in text_ems(fmt(value)))
    return 5 + (width if upright else height)  # an upright value is as tall as it is wide; 2 points of padding


def positions(where: list[int]) -> str:
    """"position 2" or "positions 2, 3"."""
    return f"position{'s' * (len(where) != 1)} {', '.join(map(str, where))}"


def _draw(words, averages, same) -> None:
    """One panel per number: at each position a bar per word, its value written on it, and "=" over identical pairs."""
    T = max(len(w) for w in words)
    identical = [] if same is None else same.nonzero().flatten().tolist()
    labels = [f"{t}\n" + "/".join(dict.fromkeys(char_label(w[t]) for w in words if t < len(w))) for t in range(T)]
    fig, axes = new_figure((10, 3.75), 1, 2, sharey=True)
    width = 0.8 / len(words)
    # Each bar's value is written over it: across the bar while it is wide enough for "4.67" (up to 8 bars a panel),
    # upright up to 16 bars; beyond that the values would run into each other, and the printout has them. The axis
    # leaves room above the tallest bar for its value and an "=" over that.
    bars_per_panel = T * len(words)
    written, upright = bars_per_panel <= 16, bars_per_panel > 8
    top = max(max(float(avg.max()) for avg in averages), 1.0) * ((1.5 if upright else 1.35) if written else 1.2)
    for channel, ax in enumerate(axes):
        for k, (w, avg, color) in enumerate(zip(words, averages, ("tab:blue", "tab:orange"), strict=False)):
            xs = torch.arange(len(w)) + (k - (len(words) - 1) / 2) * width  # this word's bars, side by side
            bars = ax.bar(xs.tolist(), avg[:, channel].tolist(), width=width, color=color, label=repr(w))
            if written:
                ax.bar_label(bars, [fmt(v) for v in avg[:, channel].tolist()], padding=2, fontsize=TEXT_PT,
                             rotation=90 if upright else 0)
        for t in identical:
            value = float(averages[0][t, channel])
            over_value = offset_copy(ax.transData, fig=fig, y=_label_height(value, written, upright), units="points")
            ax.text(t, value, "=", ha="center", va="bottom", fontsize=16, fontweight="bold", transform=over_value)
        ax.set_xticks(range(T), labels)
        ax.set(ylim=(0, top), title=f"{('first', 'second')[channel]} number of the running average",
               xlabel="position t and its character")
    axes[0].set_ylabel("value of the average")
    handles, names = axes[0].get_legend_handles_labels()
    if identical:
        names.append("=  identical at this position")
        handles.append(Line2D([], [], linestyle="none"))
    fig.legend(handles, names, loc="lower center", ncol=len(names), frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    compared = " and ".join(repr(w) for w in words)
    show(fig, f"Bar charts of the running averages of {compared}, position by position, one panel per number"
              + (", with = over the positions where the two are identical." if identical else "."))


# ---- Your turn: the running average of one (T, C) sequence, written with a loop --------------------------------------

# Two sequences of whole numbers (every sum exact), T ≠ C in each so a mix-up of the two shows.
# The first starts with the lesson's h, o, u vectors.
SHORT = torch.tensor([[2.0, 7.0], [6.0, 4.0], [6.0, 5.0], [0.0, 8.0]])
LONG = torch.tensor(
    [
        [2.0, 7.0, 1.0],
        [6.0, 4.0, 3.0],
        [6.0, 5.0, 9.0],
        [0.0, 8.0, 2.0],
        [4.0, 1.0, 5.0],
        [9.0, 3.0, 0.0],
        [1.0, 6.0, 4.0],
    ]
)
# A third, LONG with three more rows, longer than the lessons' chunks of 8 (an (8, 8) weight matrix from a lesson cell,
# cut to [:T, :T], is right for the first two only), and a half added along its diagonal (sums kept in a tensor of
# whole numbers drop it; every sum stays exact in float32).
LONGER = torch.cat([LONG, torch.tensor([[3.0, 2.0, 7.0], [5.0, 9.0, 1.0], [8.0, 0.0, 6.0]])]) + 0.5 * torch.eye(10, 3)


def reference_average(x: torch.Tensor) -> torch.Tensor:
    """Scheme one from helpers.averaging, applied to a single sequence."""
    return average_loop(x.unsqueeze(0))[0]


def by_rows(x: torch.Tensor, rows) -> torch.Tensor:
    """A (T, C) tensor whose row t is rows(t), the way a learner's loop fills it in."""
    out = torch.zeros_like(x)
    for t in range(x.shape[0]):
        out[t] = rows(t)
    return out


def _in_place(x):
    for t in range(x.shape[0]):
        x[t] = x[: t + 1].mean(0)  # rows 0…t-1 were already replaced by averages
    return x


def _skips_self_row0_patched(x):
    out = by_rows(x, lambda t: x[:t].mean(0))
    out[0] = x[0]  # the NaN of row 0 patched away, so only the later rows give it away
    return out


SKIPS_SELF_HINT = "row t averages only x[0] … x[t-1]: x[:t] leaves position t itself out. Use x[: t + 1]."


def explain_running_average(got: torch.Tensor, expected: torch.Tensor, inputs: tuple, atol: float) -> str | None:
    """Plain words for a wrong running average that matches no named mistake."""
    if torch.isnan(got).any():
        row = int(torch.isnan(got).any(-1).nonzero()[0])
        return f"row {row} is NaN: did it average an empty slice? Row t averages x[: t + 1], never nothing."
    if torch.isinf(got).any():
        row = int(torch.isinf(got).any(-1).nonzero()[0])
        return (f"row {row} is infinite: did it divide by 0? Row t's sum is divided by its count, t + 1 (t itself is "
                "0 for row 0; and / binds tighter than +, so write / (t + 1), not / t + 1).")
    x = inputs[0]
    row_before = (any(close(got[t], (x[:t].sum(0) / n).to(got.dtype), atol) for n in (t, t + 1))  # x[:t], ÷ t or t + 1
                  for t in range(1, len(x)))
    if all(row_before):
        return ("row t holds the average of x[0] … x[t-1], the row before's: either x[:t] leaves position t itself "
                "out (use x[: t + 1]), or each average is written one row late (out[t + 1] = …, or a shift or a pad "
                "of the right result).")  # whatever row 0 became (0, x[0] patched in, NaN made 0)
    rows_ok = [close(got[t], expected[t], atol) for t in range(len(got))]
    if all(rows_ok):
        return None
    wrong = rows_ok.index(False)
    for end in range(wrong + 2, len(x) + 1):  # the first wrong row averages x[: end], past its own position?
        if close(got[wrong], x[:end].mean(0).to(got.dtype), atol):
            return (f"row {wrong} is the average of x[0] … x[{end - 1}], {counted(end - 1 - wrong, 'step')} into its "
                    f"future: row t may only use x[0] … x[t], so slice x[: t + 1].")
    if wrong == 0:
        return (unwritten_rows(got, expected, atol, given=x)  # row 0 never written, or left as x had it
                or _sum_divided(got[0], x, 0, atol)
                or "row 0 should be x[0] itself: the average of one vector is that vector.")
    right = "row 0 is" if wrong == 1 else f"rows 0…{wrong - 1} are"
    if words := unwritten_rows(got, expected, atol, given=x):  # the loop stopped early: the rows after it as before
        width = " Here x.shape[1] and x.shape[-1] are C, the width of each vector; x.shape[0] counts the rows."
        return words + (width if wrong == inputs[0].shape[1] else "")
    if words := _sum_divided(got[wrong], x, wrong, atol):
        return f"{right} right, but {words}"
    return f"{right} right, but row {wrong} is not the average of x[0] … x[{wrong}]."


def _sum_divided(row: torch.Tensor, x: torch.Tensor, t: int, atol: float) -> str | None:
    """Words for a wrong row t that is x[0] + … + x[t] divided by a count other than t + 1 (1, t, T, …), or x[t]
    alone; None when it is neither."""
    total = x[: t + 1].sum(0).to(row.dtype)
    if t > 0 and close(row, x[t].to(row.dtype), atol):
        return f"row {t} is x[{t}] alone: row t averages every vector up to it, x[0] … x[{t}], not only its own."
    for count in (n for n in range(1, 2 * len(x) + 2) if n != t + 1):
        if not close(row, total / count, atol):
            continue
        if t == 0:
            return (f"row 0 is x[0] divided by {count}: the average of one vector is that vector, so divide row t's "
                    "sum by t + 1, which is 1 here.")
        summed = f"the sum of x[0] … x[{t}]" + (", not their average" if count == 1 else f" divided by {count}")
        return (f"row {t} is {summed}: it adds up {counted(t + 1, 'vector')}, so divide by t + 1 = {t + 1} (or take "
                ".mean(0) of x[: t + 1]).")
    return None


EXERCISES = (
    Exercise(
        name="running_average",
        reference=reference_average,
        cases=((SHORT,), (LONG,), (LONGER,)),
        explain=explain_running_average,
        mistakes=(
            Mistake(
                "future",
                lambda x: x.mean(0, keepdim=True).expand_as(x).clone(),
                "every row of your answer here is the average of the WHOLE sequence, so position t looks at its "
                "future (a slice x[: t + k] reaches the end of a short input once t + k ≥ T). Row t may only use "
                "x[0] … x[t]: slice x[: t + 1].",
            ),
            Mistake(
                "peeks_ahead",
                lambda x: by_rows(x, lambda t: x[: t + 2].mean(0)),
                "row t also averages x[t + 1], one step into its future: x[: t + 2] goes one row too far (the "
                "slice x[: t + 1] stops just after position t), or each average is written one row early, "
                "out[t - 1] = x[: t + 1].mean(0). Row t holds the average of x[0] … x[t].",
            ),
            Mistake(
                "skips_self",
                lambda x: by_rows(x, lambda t: x[:t].mean(0)),
                "row 0 is NaN (the average of nothing) and " + SKIPS_SELF_HINT,
            ),
            Mistake("skips_self", _skips_self_row0_patched, SKIPS_SELF_HINT + " (Or each average is written one row "
                    "late, out[t + 1] = …, into a copy of x whose row 0 stays x[0].)"),
            Mistake(
                "sum",
                lambda x: x.cumsum(0),
                "each row is the running SUM, not the average: the last row is T times too big. "
                "Divide by the number of positions, t + 1 (or use .mean(0)).",
            ),
            Mistake(
                "wrong_dim",
                lambda x: x.cumsum(1) / torch.arange(1, x.shape[1] + 1, dtype=x.dtype),
                "you averaged along the channels (dim 1) of each row instead of along time (dim 0). "
                "Row t should average the rows x[0] … x[t], one channel at a time: x[: t + 1].mean(0).",
            ),
            Mistake(
                "wrong_dim_shape",
                lambda x: by_rows(x, lambda t: x[: t + 1].mean(1)),
                "your loop hit a size clash: x[: t + 1].mean(1) averages over dim 1 (the channels), which leaves "
                "t + 1 numbers per row instead of C. Average over time: x[: t + 1].mean(0).",
            ),
            Mistake(
                "all_dims",
                lambda x: by_rows(x, lambda t: x[: t + 1].mean()),
                "each row holds one repeated number: .mean() without a dim averages over time AND channels. "
                "Average over time only: .mean(0).",
            ),
            Mistake(
                "averaged_the_future",
                lambda x: by_rows(x, lambda t: x[t:].mean(0)),
                "row t averages x[t] … x[T − 1], itself and everything after it (x[t:], or triu where tril "
                "belongs): that is the future. Row t may only use x[0] … x[t]: slice x[: t + 1].",
            ),
            Mistake(
                "divided_by_t",
                lambda x: by_rows(x, lambda t: x[: t + 1].sum(0) / t),
                "row t adds up t + 1 rows but divides by t, so row 0 divides by 0 (inf) and every later row is too "
                "big. Divide by t + 1, the number of rows added up (or use .mean(0)).",
            ),
            Mistake(
                "divided_by_T",
                lambda x: by_rows(x, lambda t: x[: t + 1].sum(0) / x.shape[0]),
                "row t adds up t + 1 rows but divides by T, the whole length, so every row but the last is too "
                "small (row 0 is x[0] / T). Divide by t + 1, the number of rows added up (or use .mean(0)).",
            ),
            Mistake(
                "divided_the_columns",
                lambda x: x.cumsum(0) / torch.arange(1, x.shape[0] + 1, dtype=x.dtype),
                "torch.arange(1, T + 1) has shape (T,), which lines up with the channels, the last dimension, not "
                "with the rows: make it a column of shape (T, 1), torch.arange(1, T + 1).unsqueeze(1), so that "
                "row t is divided by t + 1.",
            ),
            Mistake(
                "in_place",
                _in_place,
                "you wrote the averages back into x while still reading it, so later rows average earlier "
                "averages. Write into a new tensor, e.g. out = torch.zeros_like(x).",
            ),
        ),
    ),
)
