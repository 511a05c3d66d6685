"""What every explorer shares: its declaration, reading and checking typed input, formatting, and `explore`.

An explorer is a plain callback whose keyword arguments are named like its controls, and whose defaults are
its example input. It prints and draws one figure, then returns a dict of the numbers it showed (CPU tensors
and plain values), or `return report(problem)`: print one sentence saying what is wrong with the input and
what to do, and return None. `@explorer(refuses=...)` declares it, with bad inputs it must refuse, and
`explore(callback, **controls)` shows it.

Explorers draw on a `matplotlib.figure.Figure` made by `new_figure`, never through pyplot, and show
it with `show`. pyplot keeps a global list of open figures that hooks on other threads act on:
JupyterLab 4.6 handles widget messages on a kernel subshell thread, and matplotlib-inline's
post-execute hook there (or a cell running meanwhile) shows and closes every open pyplot figure,
including an explorer's half-drawn one. A figure pyplot does not know of is out of their reach.
"""

import math
import os
import re

import torch
from matplotlib.figure import Figure

from ..data import CHARS, QUOTE_AROUND, STOI, quote_around
from ..plots import fit_numbers_to_cells
from ..words import counted

# Explorers compute in float32: a number beyond this is infinite there, and softmax of it is nan.
FLOAT32_MAX = torch.finfo(torch.float32).max
# The prose's minus sign, en dash, hyphen and non-breaking hyphen (autocorrect's dashes) read as "-", and ∞ as inf
TYPED_SIGNS = str.maketrans({"−": "-", "–": "-", "‐": "-", "‑": "-", "∞": "inf"})
LOOKALIKES = {  # characters that look like one of tiny Shakespeare's, and what to type instead
    "\u00a0": "a non-breaking space, which looks like a space: type an ordinary space",
    "’": "a curly apostrophe: type the straight one, '",
    "‘": "a curly quote: type the straight apostrophe, '",
    "\t": "a tab: type an ordinary space",
}
# The characters besides letters and whitespace that a typed word may contain, for the error message.
SIGNS = " ".join(ch for ch in CHARS if not ch.isalpha() and not ch.isspace())


def explorer(refuses):
    """Declare a notebook's explorer, with the bad inputs it must refuse: ({parameter: value}, words) pairs.
    tests/test_explorers.py holds it to the contract above, each bad input given with the other parameters at their
    defaults: one sentence holding the words, no figure."""

    def declare(callback):
        callback.refuses = tuple(refuses)
        return callback

    return declare


def fmt_row(values, tiny: bool = False) -> str:
    """A row of numbers as the explorers print it: two decimals, ±∞ written out (`tiny`: see fmt_number)."""
    return "[" + ", ".join(fmt_number(v, tiny) for v in torch.as_tensor(values).tolist()) + "]"


def fmt_number(v: float, tiny: bool = False) -> str:
    """Two decimals, never "-0.00"; powers of ten for huge values (a score may be up to 3.4e38) and, with `tiny`, for
    values that are not 0 but would print as 0.00 (so that only an exact 0 reads 0.00)."""
    if math.isinf(v):
        return "−∞" if v < 0 else "∞"
    if abs(v) >= 1e6 or (tiny and 0 < abs(v) < 0.005):
        return f"{v:.2e}"
    text = f"{v:.2f}"
    return text[1:] if text == "-0.00" else text


def quote(value, at: int = 0) -> str:
    """`value` as a refusal quotes it: a string as a window around position `at` (… marks the cuts), as
    encode() does, anything else by its repr cut to the same length; a 10,000-character input stays short."""
    if isinstance(value, str):
        return quote_around(value, at)
    text = repr(value)
    return text if len(text) <= 2 * QUOTE_AROUND + 1 else text[: 2 * QUOTE_AROUND + 1] + "…"


def report(problem: str) -> None:
    """Print what is wrong with the input, in one sentence; return None, which the callback returns."""
    print(problem)


def parse_numbers(text, example: str, max_count: int, what: str = "score",
                  limit: str = "so every value fits on the picture") -> tuple[list[float] | None, str | None]:
    """Read comma-separated numbers (the prose's − is read as minus): (values, None), or (None, one sentence saying
    what is wrong and what to type instead). Every value must be finite in float32, the precision the explorers
    compute in; `limit` says why there may be at most `max_count`."""
    if not isinstance(text, str) or not text.strip():
        return None, f"There are no {what}s: type numbers separated by commas, e.g. {example}."
    text = text.translate(TYPED_SIGNS).strip()
    if text[:1] in "[(" and text[-1:] in "])":  # a row copied as the prose writes it, [2, −1, 3]
        text = text.replace("[", "").replace("]", "").replace("(", "").replace(")", "")
    joined = re.search(r"\d+,\d+", text)  # 1,5 or 1,000 beside a comma and a space: one number or two?
    if joined and re.search(r",\s|\d\s+\d", text):
        return None, (f"{quote(text)} has {quote(joined.group())}, which could be one number (1.5 written 1,5, or "
                      f"1,000) or two: write numbers without a comma inside (1.5, 1000) and put a comma and a space "
                      f"between them, e.g. {example}.")
    values = []
    for position, piece in enumerate(p.strip() for p in text.split(",")):
        which = f"{'Entry' if what == 'number' else what.capitalize()} {position}"  # "Score 2"; not "Number 2"
        if not piece:
            return None, f"{which} is empty: remove the extra comma, e.g. {example}."
        try:
            value = float(piece)
        except ValueError:
            value = math.nan
        if math.isnan(value):
            several = len(piece.replace(";", " ").split()) > 1
            fix = ("leave out the space after the sign" if re.fullmatch(r"[+-]\s+[\d.].*", piece)
                   else "separate the numbers with commas (or, for one number, leave out the space)" if several
                   else "type digits")
            return None, f"{which}, {quote(piece)}, is not a number: {fix}, e.g. {example}."
        if math.isinf(value) and "inf" in piece.lower():
            return None, f"{which}, {quote(piece)}, is infinite: type finite {what}s, between -3.4e38 and 3.4e38."
        if abs(value) > FLOAT32_MAX:
            return None, (f"{which}, {quote(piece)}, is too large to compute with (float32 overflows): keep every "
                          f"{what} between -3.4e38 and 3.4e38.")
        values.append(value)
    if len(values) > max_count:
        return None, f"There are {len(values)} {what}s: give at most {max_count}, {limit}."
    return values, None


def parse_word(word, max_len: int, what: str = "word", example: str = "hou",
               alphabet: str | None = None) -> tuple[list[int] | None, str | None]:
    """Encode a typed word; return (indices, None), or (None, one sentence saying what is wrong and what to do).
    `alphabet`: the only characters this explorer knows (default: every character of tiny Shakespeare)."""
    if not isinstance(word, str):
        return None, f"The {what} is {type(word).__name__}, not text: type characters, e.g. {example!r}."
    if not word:
        return None, f"The {what} is empty: type 1 to {max_len} characters, e.g. {example!r}."
    if len(word) > max_len:
        return None, f"The {what} {quote(word)} has {len(word)} characters: keep it to {max_len} or fewer."
    unknown = [(i, ch) for i, ch in enumerate(word) if ch not in (alphabet or STOI)]
    if unknown:
        i, ch = unknown[0]
        allowed = (f"this example only knows the letters {', '.join(alphabet)}: type only those" if alphabet
                   else f"it is {LOOKALIKES[ch]}" if ch in LOOKALIKES
                   else f"tiny Shakespeare never uses it: type letters, spaces and {SIGNS} only")
        return None, f"The {what} {quote(word, i)} has {ch!r} at position {i}, but {allowed}, e.g. {example!r}."
    return [STOI[ch] for ch in word], None


def int_hint(value) -> str:
    """For a whole number given as a float (64.0) or as text ('64'), how to write it instead; else ""."""
    if isinstance(value, float) and value.is_integer():
        return f" (write {int(value)}, without the decimal point)"
    if isinstance(value, str) and value.strip().isdigit():
        return f" (write {value.strip()}, without the quotes)"
    return ""


def check_position(value, length: int) -> str | None:
    """None when `value` is a position 'now' of a row of `length` scores, else one sentence saying what to do."""
    if isinstance(value, bool) or not isinstance(value, int):
        return (f"The position 'now' is {quote(value)}, not a whole number{int_hint(value)}: pick one from 0 to "
                f"{length - 1}.")
    if value < 0:
        return f"The position 'now' is {value}, but positions count from 0: pick one from 0 to {length - 1}."
    if value >= length:
        return (f"The position 'now' is {value}, past the end of {counted(length, 'score')} (positions 0 to "
                f"{length - 1}): move it to {length - 1} or lower, or type more scores.")
    return None


def seeded_randn(seed: int, *shapes: tuple) -> tuple[torch.Tensor, ...]:
    """Standard-normal tensors of the given shapes, drawn in order from one generator seeded with `seed`."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=generator) for shape in shapes)


def link_range(text_control, slider, count_fn) -> None:
    """Keep `slider.max` at the last position of what `text_control` holds, now and whenever it changes (lowering
    `max` also pulls the slider's value down to it). `count_fn(text)` says how many items the text holds: 0 when it
    is unusable, and the slider is then left alone while the explorer reports the problem."""

    def follow(change=None):
        count = count_fn(text_control.value)
        if count:
            slider.max = max(slider.min, count - 1)

    follow()
    text_control.observe(follow, names="value")


def live_frontend() -> bool:
    """Whether explorers are live widgets here: yes in JupyterLab, Notebook, Colab, VS Code and live slides.

    No in plain Python or a terminal (no kernel), and no under the headless runners built on nbclient
    (`jupyter nbconvert --execute`, papermill, `jupyter execute`, the course's own tools), known by the kernel's
    history in memory (`--HistoryManager.hist_file=:memory:`): they render no widget, and their imitation of an
    Output widget can deadlock the run (jupyter/nbclient#312). COURSE_EXPLORERS=live or =static overrides the
    guess (see README, Troubleshooting).
    """
    choice = os.environ.get("COURSE_EXPLORERS", "").strip().lower()
    if choice in ("live", "static"):
        return choice == "live"
    if choice:
        report(f"COURSE_EXPLORERS is {quote(choice)}: set it to live or static, or unset it to let the course choose.")
    from IPython import get_ipython

    shell = get_ipython()
    if getattr(shell, "kernel", None) is None:
        return False
    history = shell.config.HistoryManager if "HistoryManager" in shell.config else {}
    return str(history.get("hist_file", "")) != ":memory:"


def new_figure(figsize, nrows: int = 1, ncols: int = 1, **subplots):
    """(figure, axes) like plt.subplots, but a `Figure` that pyplot never sees (the module docstring says why)."""
    figure = Figure(figsize=figsize)
    return figure, figure.subplots(nrows, ncols, **subplots)


def show(figure, description: str) -> None:
    """Display `figure` (from new_figure, laid out) as the cell's picture, `description` (one sentence) as its label.
    The numbers in its heatmaps are sized to their cells as laid out (show_wei sized them before the layout)."""
    from IPython.display import display
    from matplotlib import pyplot

    fit_numbers_to_cells(figure)
    # Load pyplot's backend, as drawing anything with pyplot would. In a kernel that is matplotlib-inline, and
    # loading it is what teaches IPython to show a Figure as a picture: before it, display(figure) in a notebook
    # that has not drawn yet gives only "<Figure size …>". (Private in matplotlib, there since 3.5; creates no figure.)
    pyplot._get_backend_mod()
    figure.set_label(description)
    display(figure)


def explore(callback, **controls):
    """Draw `callback` once now; where widgets are live, show its `controls` above the picture and redraw on change.

    The first draw happens here, before anything is displayed (it is the picture a reader on GitHub sees), and
    returns what the callback returned, so a notebook can assert on the numbers it shows. Live (live_frontend()),
    it draws inside an Output widget that each control change redraws. Headless, it draws as an ordinary output
    and displays no widget: a stored notebook keeps the picture and no "VBox(children=…)" placeholder, and
    nbclient has no Output widget to imitate. Needs no `interact`, so it behaves the same under ipywidgets 7
    (Colab's) and 8; imports ipywidgets only when live.
    """
    if not live_frontend():
        return callback(**{name: control.value for name, control in controls.items()})
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
