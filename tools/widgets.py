"""Keep live-widget leftovers out of stored notebooks (no ipywidgets needed).

A headless run cannot render a widget: what it stores for one is a widget-view output whose only
readable part is placeholder text such as "VBox(children=(Text(value='hou'), …))". GitHub and
`nbconvert --to html` show that text under the explorer's picture. The picture itself is an
ordinary output of the same cell, so dropping the widget views loses nothing a static reader sees.
"""

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def drop_widget_views(nb):
    """Remove every output that displays a widget, and any saved widget state; return `nb` (changed in place)."""
    for cell in nb.get("cells", []):
        if "outputs" in cell:
            cell["outputs"] = [out for out in cell["outputs"] if WIDGET_VIEW not in out.get("data", {})]
        cell.get("metadata", {}).pop("widgets", None)
    nb.get("metadata", {}).pop("widgets", None)
    return nb
