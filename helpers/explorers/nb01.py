"""Notebook 01: the bag of words. Scheme one's hidden weights, and an explorer that shows order is lost."""

import matplotlib.pyplot as plt
import torch

from ..averaging import average_loop
from ..data import CHARS, STOI, encode
from ..plots import show_wei
from .core import fmt_row, parse_word, report

MAX_LEN = 12  # longest word the explorer accepts: its heatmap still has room for every value

# One small vector per character, so a word turns into a (T, 2) sequence we can average by hand.
# Whole numbers make every sum exact, so two orders of the same characters give bit-identical means.
# h, o and u keep the values of the worked example: [2, 7], [6, 4], [6, 5].
CHAR_VECTORS = torch.randint(0, 10, (len(CHARS), 2), generator=torch.Generator().manual_seed(1337)).float()
CHAR_VECTORS[STOI["h"]] = torch.tensor([2.0, 7.0])
CHAR_VECTORS[STOI["o"]] = torch.tensor([6.0, 4.0])
CHAR_VECTORS[STOI["u"]] = torch.tensor([6.0, 5.0])


def uniform_wei(T: int) -> torch.Tensor:
    """The (T, T) weights scheme one uses without ever writing them down.

    Feed it the T one-hot vectors (the rows of the identity): the average of e_0 … e_t has
    1/(t+1) in columns 0…t and 0 after, so row t of the output is exactly row t of `wei`.
    """
    return average_loop(torch.eye(T).unsqueeze(0))[0]


def word_vectors(word: str) -> torch.Tensor:
    """The (T, 2) sequence of CHAR_VECTORS for the characters of `word`."""
    return CHAR_VECTORS[torch.tensor(encode(word))]


def explore_bag_of_words(word: str = "dogs", other: str = "gods") -> dict | None:
    """Scheme one's weights (once: they are the same for every word of that length) and both words' running averages.

    Prints the two words' running averages side by side with, at each position, whether they are
    exactly equal (they are wherever the two prefixes hold the same characters: the average forgets
    order), and draws the weights next to the two averages' paths. Leave `other` empty to see one word.
    Returns {'word', 'other', 'wei', 'averages', 'other_averages', 'same'} (CPU tensors; 'same' is one
    bool per position the words share, and 'other_averages' and 'same' are None without a second
    word), or None after reporting bad input.
    """
    _, problem = parse_word(word, MAX_LEN, "first word", "dogs")
    if problem is None and other != "":
        _, problem = parse_word(other, MAX_LEN, "second word", "gods")
    if problem:
        report(problem)
        return None

    words = [w for w in (word, other) if w]
    averages = [average_loop(word_vectors(w).unsqueeze(0))[0] for w in words]
    T = max(len(w) for w in words)
    shown = {"word": word, "other": other or None, "wei": uniform_wei(T), "averages": averages[0],
             "other_averages": None, "same": None}
    if len(words) == 2:
        shown["other_averages"] = averages[1]
        shown["same"] = torch.tensor(
            [torch.equal(a, b) for a, b in zip(averages[0], averages[1], strict=False)], dtype=torch.bool
        )
    _print_averages(words, averages, shown["same"])
    _draw(words, averages, shown["wei"], shown["same"])
    return shown


def _print_averages(words, averages, same) -> None:
    """Each position's prefix and running average, one column per word, and whether the two are equal."""
    lengths = sorted({len(w) for w in words})
    corner = f" (the {lengths[0]}-character word uses their top-left corner)" if len(lengths) == 2 else ""
    print(f"The weights depend only on the positions: every {lengths[-1]}-character word gets the ones drawn{corner}.")
    width = max(len(f"prefix of {w!r}") for w in words) + 2
    header = " t  " + "".join(f"{'prefix of ' + repr(w):<{width}}{'average':<15}" for w in words)
    print((header + "same?" * (len(words) > 1)).rstrip())
    for t in range(lengths[-1]):
        line = f"{t:2d}  "
        for w, avg in zip(words, averages, strict=True):
            line += f"{w[: t + 1]!r:<{width}}{fmt_row(avg[t]):<15}" if t < len(w) else " " * (width + 15)
        if same is not None and t < len(same):
            line += "identical" if same[t] else "differs"
        print(line.rstrip())
    if same is None:
        print("Type a second word (an anagram such as 'gods' for 'dogs') to compare the averages.")
        return
    equal_at = same.nonzero().flatten().tolist()
    if equal_at:
        print(f"Identical at position(s) {', '.join(map(str, equal_at))}, where the two prefixes hold the same "
              "characters: the average cannot see their order.")
    if sorted(words[0]) != sorted(words[1]):
        print(f"{words[0]!r} and {words[1]!r} are not made of the same characters, so their last averages differ.")


def _draw(words, averages, wei, same) -> None:
    """Left: the weights, drawn once. Right: each word's running averages as a path in the plane."""
    labels = ["/".join(dict.fromkeys(w[t] for w in words if t < len(w))) for t in range(len(wei))]
    fig, (ax_wei, ax_avg) = plt.subplots(1, 2, figsize=(10, 4.4))
    title = "scheme one's weights (any word this long)" if len(words) == 1 or len(set(map(len, words))) == 1 else (
        "scheme one's weights (the shorter word uses the top-left corner)")
    show_wei(wei, labels=labels, stage="weights", ax=ax_wei, title=title)
    styles = [({"marker": "o", "color": "tab:blue"}, (-14, 6)),
              ({"marker": "s", "color": "tab:orange", "linestyle": "--"}, (8, -14))]
    for w, avg, (style, offset) in zip(words, averages, styles, strict=False):
        ax_avg.plot(avg[:, 0], avg[:, 1], label=repr(w), markersize=7, **style)
        for t, (x, y) in enumerate(avg.tolist()):
            ax_avg.annotate(f"{t}", (x, y), textcoords="offset points", xytext=offset, color=style["color"])
    if same is not None and same.any():
        shared = averages[0][: len(same)][same]
        ax_avg.scatter(shared[:, 0], shared[:, 1], s=260, facecolors="none", edgecolors="black", linewidths=1.5,
                       label="identical at this position", zorder=3)
    ax_avg.margins(0.15)
    ax_avg.set_title("running average at each position (numbered)")
    ax_avg.set_xlabel("first number of the average")
    ax_avg.set_ylabel("second number of the average")
    ax_avg.legend(loc="best", fontsize=9)
    fig.tight_layout()
    plt.show()
