"""What every explorer shares: reading typed input, range checks, formatting rows, reporting, and `explore`.

An explorer is a plain callback whose keyword arguments are named like its controls. It prints and
draws, then returns a dict of the numbers it showed (CPU tensors and plain values), or returns None
after `report(problem)` has printed one sentence saying what is wrong with the input and what to do.
`explore(callback, **controls)` draws it once right away inside an ipywidgets Output (that picture is
what a reader on GitHub sees), shows the controls above it, and redraws whenever a control changes.
It works with ipywidgets 7 (Colab's) and 8, and imports ipywidgets only when called.
"""

import math

import torch

from ..data import CHARS, STOI

# Explorers compute in float32: a number beyond this is infinite there, and softmax of it is nan.
FLOAT32_MAX = torch.finfo(torch.float32).max
# The characters besides letters and whitespace that a typed word may contain, for the error message.
SIGNS = " ".join(ch for ch in CHARS if not ch.isalpha() and not ch.isspace())


def fmt_row(values) -> str:
    """A row of numbers as the explorers print it: two decimals, ±∞ written out."""
    return "[" + ", ".join(_fmt_number(v) for v in torch.as_tensor(values).tolist()) + "]"


def _fmt_number(v: float) -> str:
    """Two decimals; powers of ten for huge values (a score may be up to 3.4e38)."""
    if math.isinf(v):
        return "−∞" if v < 0 else "∞"
    return f"{v:.2f}" if abs(v) < 1e6 else f"{v:.2e}"


def report(problem: str) -> None:
    """Print what is wrong with the input, in one sentence; the callback then returns None."""
    print(problem)


def parse_numbers(text, example: str, max_count: int, what: str = "score") -> tuple[list[float] | None, str | None]:
    """Read comma-separated numbers (the prose's − is read as minus).

    Returns (values, None), or (None, one sentence saying what is wrong and what to type instead).
    Every value must be finite in float32, the precision the explorers compute in.
    """
    if not isinstance(text, str) or not text.strip():
        return None, f"There are no {what}s: type numbers separated by commas, e.g. {example}."
    values = []
    for position, piece in enumerate(p.strip() for p in text.replace("−", "-").split(",")):
        if not piece:
            return None, f"{what.capitalize()} {position} is empty: remove the extra comma, e.g. {example}."
        try:
            value = float(piece)
        except ValueError:
            return None, f"{what.capitalize()} {position}, {piece!r}, is not a number: type digits, e.g. {example}."
        if math.isnan(value):
            return None, f"{what.capitalize()} {position}, {piece!r}, is not a number: type digits, e.g. {example}."
        if abs(value) > FLOAT32_MAX:
            return None, (
                f"{what.capitalize()} {position}, {piece!r}, is too large to compute with (float32 overflows): "
                f"keep every {what} between -3.4e38 and 3.4e38."
            )
        values.append(value)
    if len(values) > max_count:
        return None, f"There are {len(values)} {what}s: give at most {max_count}, so every value fits on the picture."
    return values, None


def parse_word(word, max_len: int, what: str = "word", example: str = "hou") -> tuple[list[int] | None, str | None]:
    """Encode a typed word; return (indices, None), or (None, one sentence saying what is wrong and what to do)."""
    if not isinstance(word, str):
        return None, f"The {what} is {type(word).__name__}, not text: type characters, e.g. {example!r}."
    if not word:
        return None, f"The {what} is empty: type 1 to {max_len} characters, e.g. {example!r}."
    if len(word) > max_len:
        return None, f"The {what} {word!r} has {len(word)} characters: keep it to {max_len} or fewer."
    unknown = [(i, ch) for i, ch in enumerate(word) if ch not in STOI]
    if unknown:
        i, ch = unknown[0]
        return None, (
            f"The {what} {word!r} has {ch!r} at position {i}, which tiny Shakespeare never uses: "
            f"type letters, spaces and {SIGNS} only."
        )
    return [STOI[ch] for ch in word], None


def check_position(value, length: int, what: str = "now", more: str = "scores") -> str | None:
    """None when `value` is a position of a row of `length` items, else one sentence saying what to do."""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"The position {what!r} is {value!r}, not a whole number: pick one from 0 to {length - 1}."
    if value < 0:
        return f"The position {what!r} is {value}, but positions count from 0: pick one from 0 to {length - 1}."
    if value >= length:
        return (
            f"The position {what!r} is {value}, past the end of {length} {more} (positions 0 to {length - 1}): "
            f"move it to {length - 1} or lower, or type more {more}."
        )
    return None


def link_range(text_control, slider, count_fn) -> None:
    """Keep `slider.max` at the last position of what `text_control` holds, now and whenever it changes.

    `count_fn(text)` says how many items the text holds (0 when it is unusable: the slider is then left
    alone, and the explorer reports the problem). Lowering `max` also pulls the slider's value down to it.
    """

    def follow(change=None):
        count = count_fn(text_control.value)
        if count:
            slider.max = max(slider.min, count - 1)

    follow()
    text_control.observe(follow, names="value")


def explore(callback, **controls):
    """Draw `callback` once now, show its ipywidgets `controls` above the picture, redraw on every change.

    The first draw happens here, before anything is displayed (so it also runs, and is stored, without
    a browser), inside an Output widget that a live notebook keeps redrawing. Returns what the first
    draw returned, so a notebook can assert on the numbers it shows. Needs no `interact`, so it behaves
    the same under ipywidgets 7 and 8.
    """
    import ipywidgets as widgets
    from IPython import get_ipython
    from IPython.display import clear_output, display

    output = widgets.Output()
    last_drawn = {}

    def draw(change=None):
        values = {name: control.value for name, control in controls.items()}
        if change is not None and values == last_drawn:
            return None  # one edit can fire several changes (e.g. a linked slider); draw it once
        last_drawn.clear()
        last_drawn.update(values)
        with output:
            if change is not None and get_ipython() is not None:
                clear_output(wait=True)  # a redraw replaces the picture (without a kernel there is none)
            return callback(**values)

    first = draw()
    for control in controls.values():
        control.observe(draw, names="value")
    display(widgets.VBox([*controls.values(), output]))
    return first
