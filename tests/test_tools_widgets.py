"""tools/widgets.py: stored notebooks keep an explorer's picture and lose its widget placeholder."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tools.widgets import WIDGET_VIEW, drop_widget_views


def explorer_cell():
    """A code cell as a headless run stores an explorer: printed text, its picture, then the widget view."""
    return new_code_cell(
        "shown = explore(explore_masked_softmax, ...)",
        outputs=[
            new_output("stream", name="stdout", text="④ weights: [0.27, 0.01, 0.72, 0.00]\n"),
            new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure size 640x480>"}),
            new_output(
                "display_data",
                data={WIDGET_VIEW: {"model_id": "abc", "version_major": 2, "version_minor": 0},
                      "text/plain": "VBox(children=(Text(value='2, -1, 3, 5'), IntSlider(value=2), Output()))"},
            ),
        ],
    )


def test_the_widget_view_goes_and_the_picture_and_text_stay():
    nb = new_notebook(cells=[new_markdown_cell("# Explorer"), explorer_cell()])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    assert drop_widget_views(nb) is nb
    outputs = nb.cells[1].outputs
    assert [out.output_type for out in outputs] == ["stream", "display_data"]
    assert "image/png" in outputs[1].data
    assert "widgets" not in nb.metadata
    stored = nbformat.writes(nb)
    assert "VBox(children=" not in stored and WIDGET_VIEW not in stored
    nbformat.validate(nb)


def test_an_execute_result_holding_a_widget_is_dropped_too():
    cell = new_code_cell("Text()", outputs=[new_output("execute_result", data={WIDGET_VIEW: {}, "text/plain": "Text()"},
                                                       execution_count=1)])
    nb = drop_widget_views(new_notebook(cells=[cell]))
    assert nb.cells[0].outputs == []


def test_a_notebook_without_widgets_is_unchanged():
    nb = new_notebook(cells=[new_markdown_cell("text"), explorer_cell()])
    nb.cells[1].outputs.pop()
    before = nbformat.writes(nb)
    assert nbformat.writes(drop_widget_views(nb)) == before


def test_cell_level_widget_metadata_is_dropped():
    cell = explorer_cell()
    cell.metadata["widgets"] = {"state": {}}
    drop_widget_views(new_notebook(cells=[cell]))
    assert "widgets" not in cell.metadata
