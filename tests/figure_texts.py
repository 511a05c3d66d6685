"""What the tests read off a figure: each visible text and its size in pixels (the projector rule of helpers/plots.py).

Used by tests/test_plots.py, and inside each notebook's kernel by `make check-slides` (tests/test_browser_slides.py).
"""


def figure_texts(fig) -> list[tuple[str, str, float]]:
    """(kind, text, size in pixels at the figure's dpi) for every visible text of a figure.

    Kinds: "titles", "axis ticks", "axis labels", "colour-bar ticks", "colour-bar label", "legends",
    "cell numbers" (texts on a heatmap), "texts in a plot" (bar labels, annotations), "figure texts".
    A PNG of the figure shows it at its own dpi, so these are its sizes on screen when shown unscaled.
    """
    px_per_pt = fig.dpi / 72
    found = []

    def add(kind, texts):
        found.extend((kind, t.get_text(), t.get_fontsize() * px_per_pt) for t in texts
                     if t.get_visible() and t.get_text().strip())

    def axes_texts(ax):
        bar = hasattr(ax, "_colorbar")
        add("colour-bar ticks" if bar else "axis ticks", [*ax.get_xticklabels(), *ax.get_yticklabels()])
        add("colour-bar label" if bar else "axis labels", [ax.xaxis.label, ax.yaxis.label])
        add("titles", [ax.title, ax._left_title, ax._right_title])
        add("cell numbers" if ax.images else "texts in a plot", ax.texts)
        if ax.get_legend() is not None:
            add("legends", [*ax.get_legend().get_texts(), ax.get_legend().get_title()])
        for child in ax.child_axes:
            axes_texts(child)

    for ax in fig.axes:
        if ax.get_visible():
            axes_texts(ax)
    add("figure texts", [*fig.texts, *([fig._suptitle] if fig._suptitle else [])])
    for legend in fig.legends:
        add("legends", [*legend.get_texts(), legend.get_title()])
    return found


def numbers_wider_than_their_cells(fig) -> list[str]:
    """The numbers written in the figure's heatmaps that are wider than a cell, as drawn."""
    from helpers.plots import heatmap_axes

    fig.draw_without_rendering()
    return [text.get_text() for ax in heatmap_axes(fig) for text in ax.texts
            if text.get_window_extent().width > ax.get_window_extent().width / ax.images[0].get_array().shape[1]]
