"""Callbacks behind the notebooks' interactive explorers: plain functions, tested directly."""

import math


def fmt_row(values) -> str:
    """A row of numbers as the explorers print it: two decimals, −∞ written out."""
    return "[" + ", ".join("−∞" if v == -math.inf else f"{v:.2f}" for v in values.tolist()) + "]"


def explore(callback, **controls):
    """Wire `callback` to ipywidgets controls (name=widget), showing only what it draws and prints.

    The callbacks return the numbers they show so tests can check them; the widget must not
    print that return value under the picture, so this wrapper drops it.
    """
    from ipywidgets import interact

    def redraw(**values):
        callback(**values)

    return interact(redraw, **controls)
