"""Callbacks behind the notebooks' interactive explorers: plain functions, tested directly."""


def explore(callback, **controls):
    """Wire `callback` to ipywidgets controls (name=widget), showing only what it draws and prints.

    The callbacks return the numbers they show so tests can check them; the widget must not
    print that return value under the picture, so this wrapper drops it.
    """
    from ipywidgets import interact

    def redraw(**values):
        callback(**values)

    return interact(redraw, **controls)
