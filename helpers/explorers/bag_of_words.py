"""Notebook 01: the bag of words. Scheme one's hidden weights, and an explorer that shows order is lost."""

import matplotlib.pyplot as plt
import torch
from torch.overrides import TorchFunctionMode

from ..averaging import average_loop
from ..data import CHARS, STOI, encode
from ..plots import show_wei
from . import fmt_row

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


class MeanCounter(TorchFunctionMode):
    """While active, counts every call to `Tensor.mean` (scheme one makes one per inner iteration)."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.mean:
            self.calls += 1
        return func(*args, **(kwargs or {}))


def count_mean_calls(fn, x: torch.Tensor):
    """Run `fn(x)` and return (its output, how many times it called `.mean`)."""
    with MeanCounter() as counter:
        out = fn(x)
    return out, counter.calls


def word_problem(word, what: str = "word") -> str | None:
    """A plain-words reason why `word` cannot be explored, or None when it is fine."""
    if not isinstance(word, str):
        return f"The {what} must be text, not {type(word).__name__}."
    if not word:
        return f"The {what} is empty: type 1 to {MAX_LEN} characters, e.g. 'dogs'."
    if len(word) > MAX_LEN:
        return f"The {what} {word!r} has {len(word)} characters: keep it to {MAX_LEN} or fewer."
    try:
        encode(word)
    except ValueError as err:  # names the character and lists what is allowed
        return f"The {what}: {err}"
    return None




def explore_bag_of_words(word: str = "dogs", other: str = "gods"):
    """Draw scheme one's weights for `word` (and `other`) and compare their running averages.

    Prints every position's running average of each word and whether the last positions agree
    (they always do for an anagram: the average forgets the order). Returns a dict with the
    weights, the averages and the verdict, or None (after printing why) when the input is bad.
    """
    problem = word_problem(word, "first word")
    if problem:
        print(problem)
        return None
    compare = other != ""
    if compare:
        problem = word_problem(other, "second word")
        if problem:
            print(problem)
            return None

    words = [word, other] if compare else [word]
    result = {"word": word, "other": other if compare else None}
    fig, axes = plt.subplots(1, len(words), figsize=(4.6 * len(words), 4.2), squeeze=False)
    lines = []
    for ax, w, key in zip(axes[0], words, ("", "other_"), strict=False):
        wei = uniform_wei(len(w))
        averages = average_loop(word_vectors(w).unsqueeze(0))[0]
        show_wei(wei, labels=w, stage="weights", ax=ax, title=f"{w!r}: scheme one's weights")
        result[key + "wei"], result[key + "averages"] = wei, averages
        lines.append(f"{w!r}: running average at each position")
        lines += [f"  {t:2d} {ch!r:5} {fmt_row(averages[t])}" for t, ch in enumerate(w)]
    fig.tight_layout()
    plt.show()
    print("\n".join(lines))

    if not compare:
        print("Type a second word (an anagram such as 'gods' for 'dogs') to compare the last positions.")
        result["last_identical"] = None
        return result
    same = torch.equal(result["averages"][-1], result["other_averages"][-1])
    result["last_identical"] = same
    anagram = sorted(word) == sorted(other)
    verdict = "identical" if same else "different"
    print(f"Last position: {word!r} → {fmt_row(result['averages'][-1])}, {other!r} → "
          f"{fmt_row(result['other_averages'][-1])}: {verdict}.")
    if anagram and word != other:
        print("Same characters in a different order give the same bag: the average cannot see order.")
    elif not anagram:
        print(f"{word!r} and {other!r} are not made of the same characters, so their bags differ.")
    return result
