"""What every explorer shares: reading typed input, formatting rows, reporting bad input, and `explore`.

An explorer is a plain callback (keyword arguments = the controls' names) that prints and draws,
then returns the numbers it showed, or None after printing one plain sentence about bad input.
`explore(callback, **controls)` draws it once right away (that picture is what a reader on GitHub
sees) inside an ipywidgets Output, shows the controls above it, and redraws on every change.
"""

import math

from ..data import encode


def fmt_row(values) -> str:
    """A row of numbers as the explorers print it: two decimals, −∞ written out."""
    return "[" + ", ".join("−∞" if v == -math.inf else f"{v:.2f}" for v in values.tolist()) + "]"


def report(problem: str) -> None:
    """Say what is wrong with the input, in one sentence; the callback then returns None."""
    print(problem)


def parse_numbers(text, example: str, max_count: int) -> tuple[list[float] | None, str | None]:
    """Read comma-separated numbers (− accepted for minus); return (values, None) or (None, what is wrong)."""
    if not isinstance(text, str) or not text.strip():
        return None, f"Type at least one number, with commas between them, e.g. {example}."
    values = []
    for position, piece in enumerate(p.strip() for p in text.replace("−", "-").split(",")):
        if not piece:
            return None, f"Number {position} is empty: remove the extra comma, e.g. {example}."
        try:
            value = float(piece)
        except ValueError:
            return None, f"{piece!r} (number {position}) is not a number: type numbers only, e.g. {example}."
        if not math.isfinite(value):
            return None, f"{piece!r} (number {position}) is not a finite number: use ordinary values, e.g. {example}."
        values.append(value)
    if len(values) > max_count:
        return None, f"That is {len(values)} numbers: give at most {max_count}, so every value fits on the picture."
    return values, None


def parse_word(word, max_len: int, what: str = "word", example: str = "hou") -> tuple[list[int] | None, str | None]:
    """Encode a typed word; return (indices, None) or (None, a sentence saying what is wrong)."""
    if not isinstance(word, str):
        return None, f"The {what} must be text, not {type(word).__name__}."
    if not word:
        return None, f"The {what} is empty: type 1 to {max_len} characters, e.g. {example!r}."
    if len(word) > max_len:
        return None, f"The {what} {word!r} has {len(word)} characters: keep it to {max_len} or fewer."
    try:
        return encode(word), None
    except ValueError as err:  # names the character and lists what is allowed
        return None, f"The {what}: {err}"


def explore(callback, **controls):
    """Draw `callback` once now, show its ipywidgets `controls` above the picture, redraw on change.

    Returns what the first draw returned, so a notebook can assert on the numbers it shows.
    """
    import ipywidgets as widgets
    from IPython.display import clear_output, display

    output = widgets.Output()

    def draw(change=None):
        with output:
            clear_output(wait=True)
            return callback(**{name: control.value for name, control in controls.items()})

    first = draw()
    for control in controls.values():
        control.observe(draw, names="value")
    display(widgets.VBox([*controls.values(), output]))
    return first
