"""What every explorer shares: parsing typed input, range checks, row formatting, reporting, link_range, explore().

The explore() and link_range() tests use real ipywidgets controls without a browser; they must pass
under ipywidgets 8 and under 7.7.1 (Colab's): tests/test_ipywidgets7.py reruns them with it.
"""

import os

import IPython
import IPython.display
import matplotlib.pyplot as plt
import nbformat
import pytest
import torch
from ipywidgets import IntSlider, Output, Text, VBox
from matplotlib.figure import Figure
from traitlets.config import Config

from helpers.data import STOI
from helpers.explorers.core import (
    SIGNS,
    check_position,
    explore,
    fmt_number,
    fmt_row,
    link_range,
    live_frontend,
    new_figure,
    parse_numbers,
    parse_word,
    quote,
    report,
    seeded_randn,
    show,
)
from tools.notebooks import ROOT

EXAMPLE = "2, -1, 3"


def one_sentence(message: str) -> bool:
    """A message is one sentence: it ends with a full stop and has no other sentence end before it."""
    body = message[:-1].replace(SIGNS, "")  # the list of allowed signs includes a full stop
    return message.endswith(".") and ". " not in body.replace("e.g. ", "") and "\n" not in message


# --- fmt_row ---------------------------------------------------------------------------------------


def test_fmt_row_writes_two_decimals_and_infinities():
    assert fmt_row(torch.tensor([2.0, -0.25, float("-inf"), float("inf")])) == "[2.00, -0.25, −∞, ∞]"


def test_fmt_row_writes_huge_values_with_a_power_of_ten():
    assert fmt_row(torch.tensor([3e38, 0.5], dtype=torch.float64)) == "[3.00e+38, 0.50]"


def test_fmt_row_takes_plain_lists_too():
    assert fmt_row([1, 0.125]) == "[1.00, 0.12]"


# --- quote ----------------------------------------------------------------------------------------


def test_quote_keeps_a_short_value_whole():
    assert quote("hou") == "'hou'"
    assert quote(1.5) == "1.5"


def test_quote_cuts_a_long_string_to_a_window_around_the_position():
    word = "a" * 5000 + "#" + "b" * 5000
    quoted = quote(word, 5000)
    assert quoted.startswith("…'") and quoted.endswith("'…") and "#" in quoted
    assert len(quoted) < 60


def test_quote_cuts_a_long_repr_too():
    assert len(quote(list(range(10_000)))) < 60


# --- report ----------------------------------------------------------------------------------------


def test_report_prints_the_sentence_and_returns_none(capsys):
    assert report("The word is empty: type a word.") is None
    assert capsys.readouterr().out == "The word is empty: type a word.\n"


# --- parse_numbers ---------------------------------------------------------------------------------


def test_parse_numbers_reads_spaces_signs_decimals_and_the_prose_minus():
    assert parse_numbers(" 2 ,-1,  3.5 ", EXAMPLE, 12) == ([2.0, -1.0, 3.5], None)
    assert parse_numbers("2, −1, 1e3", EXAMPLE, 12) == ([2.0, -1.0, 1000.0], None)
    assert parse_numbers("7", EXAMPLE, 1) == ([7.0], None)
    assert parse_numbers("1,2,3", EXAMPLE, 3) == ([1.0, 2.0, 3.0], None)  # commas alone: no decimal comma


def test_parse_numbers_accepts_the_largest_float32_values():
    values, problem = parse_numbers("3.4e38, -3.4e38", EXAMPLE, 12)
    assert problem is None
    assert torch.isfinite(torch.tensor(values, dtype=torch.float32)).all()


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "There are no scores"),
        ("   ", "There are no scores"),
        (None, "There are no scores"),
        ("2, x, 3", "Score 1, 'x', is not a number: type digits"),
        ("2 3", "Score 0, '2 3', is not a number: separate the numbers with commas"),
        ("2; -1", "Score 0, '2; -1', is not a number: separate the numbers with commas"),
        # 1.5 and 2.5, or 1, 5, 2 and 5? Refused, naming the piece and what to type
        ("1,5, 2,5", "has '1,5', which could be one number (1.5 written 1,5, or 1,000) or two: write numbers without a "
                     "comma inside (1.5, 1000) and put a comma and a space between them"),
        ("1,5 2,5", "has '1,5', which could be one number"),
        ("0,5, 1", "has '0,5', which could be one number"),
        ("1,000, 2", "has '1,000', which could be one number"),  # the prose's thousands
        ("2, -1,3", "has '1,3', which could be one number"),  # or a space left out: the fix is the same
        ("1, nan", "Score 1, 'nan', is not a number"),
        ("1,,2", "Score 1 is empty: remove the extra comma"),
        ("1, 2,", "Score 2 is empty: remove the extra comma"),
        ("inf, 1", "Score 0, 'inf', is infinite: type finite scores"),
        ("1, −∞", "is infinite: type finite scores"),  # the explorers' own way of printing a masked score
        ("2, - 1", "Score 1, '- 1', is not a number: leave out the space after the sign"),
        ("1, -1e39", "Score 1, '-1e39', is too large"),
        ("1, 2, 3, 4", "There are 4 scores: give at most 3, so every value fits on the picture."),
    ],
)
def test_parse_numbers_says_what_is_wrong_in_one_sentence(text, words):
    values, problem = parse_numbers(text, EXAMPLE, 3)
    assert values is None
    assert words in problem
    assert one_sentence(problem)


def test_parse_numbers_names_what_it_reads_and_why_there_is_a_limit():
    _, problem = parse_numbers("", "1, 2", 5, what="weight")
    assert problem == "There are no weights: type numbers separated by commas, e.g. 1, 2."
    _, problem = parse_numbers("1, 2, 3", "1, 2", 2, what="number", limit="the weight is 1×2")
    assert problem == "There are 3 numbers: give at most 2, the weight is 1×2."


# --- parse_word ------------------------------------------------------------------------------------


def test_parse_word_encodes_a_good_word():
    assert parse_word("hou", 8) == ([STOI["h"], STOI["o"], STOI["u"]], None)
    assert parse_word("a b!", 4)[0] == [STOI[c] for c in "a b!"]


@pytest.mark.parametrize(
    "word, words",
    [
        ("", "The word is empty: type 1 to 5 characters, e.g. 'hou'"),
        ("abcdef", "The word 'abcdef' has 6 characters: keep it to 5 or fewer"),
        ("café", "The word 'café' has 'é' at position 3"),
        ("h0u", "'0' at position 1"),
        (None, "The word is NoneType, not text"),
        (42, "The word is int, not text"),
    ],
)
def test_parse_word_says_what_is_wrong_in_one_sentence(word, words):
    indices, problem = parse_word(word, 5)
    assert indices is None
    assert words in problem
    assert one_sentence(problem)


def test_parse_word_out_of_vocabulary_lists_what_may_be_typed():
    _, problem = parse_word("x#", 5, what="first word")
    assert problem.startswith("The first word 'x#' has '#' at position 1")
    assert "! $ & ' , - . 3 : ; ?" in problem


# --- check_position --------------------------------------------------------------------------------


@pytest.mark.parametrize("now", [0, 2, 3])
def test_check_position_accepts_every_position_of_the_row(now):
    assert check_position(now, 4) is None


@pytest.mark.parametrize(
    "now, words",
    [
        (4, "past the end of 4 scores (positions 0 to 3): move it to 3 or lower"),
        (-1, "positions count from 0"),
        (1.5, "is 1.5, not a whole number"),
        (True, "is True, not a whole number"),
        (None, "is None, not a whole number"),
    ],
)
def test_check_position_says_what_is_wrong_in_one_sentence(now, words):
    problem = check_position(now, 4)
    assert words in problem
    assert one_sentence(problem)


def test_check_position_counts_one_score_in_the_singular():
    assert "past the end of 1 score (positions 0 to 0)" in check_position(2, 1)


# --- seeded_randn ----------------------------------------------------------------------------------


def test_seeded_randn_draws_every_shape_in_order_from_one_seeded_generator():
    generator = torch.Generator().manual_seed(3)
    expected = torch.randn(2, 3, generator=generator), torch.randn(4, generator=generator)
    drawn = seeded_randn(3, (2, 3), (4,))
    assert [t.shape for t in drawn] == [(2, 3), (4,)]
    assert all(torch.equal(a, b) for a, b in zip(drawn, expected, strict=True))
    assert not torch.equal(seeded_randn(4, (2, 3))[0], drawn[0])


# --- link_range ------------------------------------------------------------------------------------


def count_commas(text):
    values, _ = parse_numbers(text, EXAMPLE, 12)
    return len(values) if values else 0


def test_link_range_sets_the_slider_max_from_the_text_at_once():
    slider = IntSlider(value=1, min=0, max=9)
    link_range(Text(value="1, 2, 3"), slider, count_commas)
    assert slider.max == 2 and slider.value == 1


def test_link_range_follows_the_text_and_pulls_the_value_down():
    text, slider = Text(value="1, 2, 3, 4"), IntSlider(value=3, min=0, max=3)
    link_range(text, slider, count_commas)
    text.value = "1, 2, 3, 4, 5, 6"
    assert (slider.max, slider.value) == (5, 3)
    text.value = "1, 2"
    assert (slider.max, slider.value) == (1, 1)


def test_link_range_leaves_the_slider_alone_when_the_text_is_unusable():
    text, slider = Text(value="1, 2, 3"), IntSlider(value=2, min=0, max=9)
    link_range(text, slider, count_commas)
    text.value = "1, x"
    assert (slider.max, slider.value) == (2, 2)


def test_link_range_keeps_the_slider_minimum():
    slider = IntSlider(value=2, min=2, max=9)
    link_range(Text(value="5"), slider, count_commas)
    assert slider.max == 2


# --- explore ---------------------------------------------------------------------------------------


@pytest.fixture
def displayed(monkeypatch, live_explorers):
    """What a live explore() hands to IPython's display(), captured instead of shown."""
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs, **kw: shown.extend(objs))
    return shown


def test_explore_calls_back_once_at_once_and_returns_its_result(displayed):
    calls = []

    def callback(word, size):
        calls.append((word, size))
        return {"word": word, "size": size}

    word, size = Text(value="hou"), IntSlider(value=3, min=1, max=8)
    assert explore(callback, word=word, size=size) == {"word": "hou", "size": 3}
    assert calls == [("hou", 3)]


def test_explore_displays_the_controls_then_one_output(displayed):
    word, size = Text(value="hou"), IntSlider(value=3, min=1, max=8)
    explore(lambda word, size: None, word=word, size=size)
    assert len(displayed) == 1
    box = displayed[0]
    assert isinstance(box, VBox)
    assert box.children[:2] == (word, size)
    assert len(box.children) == 3 and isinstance(box.children[2], Output)


def test_explore_redraws_with_the_new_value_when_a_control_changes(displayed, capsys):
    calls = []

    def callback(word, size):
        calls.append((word, size))
        print(f"drawing {word} {size}")

    word, size = Text(value="hou"), IntSlider(value=3, min=1, max=8)
    explore(callback, word=word, size=size)
    word.value = "you"
    size.value = 5
    assert calls == [("hou", 3), ("you", 3), ("you", 5)]
    # Without a kernel the draws print straight to stdout, with no terminal codes from clearing.
    assert capsys.readouterr().out == "drawing hou 3\ndrawing you 3\ndrawing you 5\n"


def test_explore_draws_once_when_one_edit_changes_two_linked_controls(displayed):
    calls = []
    text, now = Text(value="1, 2, 3, 4"), IntSlider(value=3, min=0, max=3)
    link_range(text, now, count_commas)
    explore(lambda scores, now: calls.append((scores, now)), scores=text, now=now)
    text.value = "1, 2"  # lowers now's max, which pulls now down to 1: two changes, one new picture
    assert calls == [("1, 2, 3, 4", 3), ("1, 2", 1)]


def test_a_static_explore_draws_once_and_displays_no_widget(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_EXPLORERS", "static")
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *objs, **kw: shown.extend(objs))
    calls = []
    word = Text(value="hou")
    assert explore(lambda word: calls.append(word) or word.upper(), word=word) == "HOU"
    word.value = "you"  # nobody could have typed it: nothing redraws
    assert calls == ["hou"] and shown == []


# --- where explorers are live --------------------------------------------------------------------


class FakeShell:
    """What live_frontend() reads of IPython's shell: its kernel (None in a terminal) and its configuration."""

    def __init__(self, kernel=True, hist_file=None):
        self.kernel = object() if kernel else None
        self.config = Config()
        if hist_file is not None:
            self.config.HistoryManager.hist_file = hist_file


@pytest.mark.parametrize(
    "shell, live",
    [
        (None, False),  # plain Python
        (FakeShell(kernel=False), False),  # IPython in a terminal
        (FakeShell(), True),  # a kernel as JupyterLab, Notebook, Colab and VS Code start it
        (FakeShell(hist_file="/home/me/.ipython/history.sqlite"), True),
        (FakeShell(hist_file=":memory:"), False),  # a kernel as nbclient starts it (nbconvert, papermill)
    ],
)
def test_live_frontend_guesses_from_the_kernel(monkeypatch, shell, live):
    monkeypatch.delenv("COURSE_EXPLORERS", raising=False)
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    assert live_frontend() is live


@pytest.mark.parametrize("value, live", [("live", True), ("static", False), (" LIVE ", True)])
def test_course_explorers_overrides_the_guess(monkeypatch, value, live):
    monkeypatch.setenv("COURSE_EXPLORERS", value)
    monkeypatch.setattr(IPython, "get_ipython", lambda: FakeShell(hist_file=":memory:" if live else None))
    assert live_frontend() is live


def test_an_unknown_course_explorers_value_is_one_sentence_and_the_guess(monkeypatch, capsys):
    monkeypatch.setenv("COURSE_EXPLORERS", "yes please")
    monkeypatch.setattr(IPython, "get_ipython", lambda: FakeShell())
    assert live_frontend() is True
    out = capsys.readouterr().out
    assert out.startswith("COURSE_EXPLORERS is 'yes please': set it to live or static") and one_sentence(out.strip())


def run_in_kernel(source: str, **client_options) -> list:
    """The outputs of one code cell that nbclient runs in a fresh kernel (helpers/ importable)."""
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    NotebookClient(nb, kernel_name="python3", timeout=120, **client_options).execute(
        env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    return nb.cells[0].outputs


def printed(outputs) -> str:
    return "".join(out.get("text", "") for out in outputs)


@pytest.mark.slow  # two kernels
def test_a_real_kernel_is_live_unless_nbclient_keeps_its_history_in_memory(monkeypatch):
    monkeypatch.delenv("COURSE_EXPLORERS", raising=False)
    source = "from helpers.explorers.core import live_frontend\nprint(live_frontend())"
    assert printed(run_in_kernel(source)).strip() == "False"  # nbclient's default: --HistoryManager.hist_file=:memory:
    assert printed(run_in_kernel(source, ipython_hist_file="")).strip() == "True"  # as JupyterLab starts it


@pytest.mark.slow  # a kernel
def test_in_a_kernel_that_has_drawn_nothing_yet_an_explorer_shows_a_picture(monkeypatch):
    monkeypatch.delenv("COURSE_EXPLORERS", raising=False)
    outputs = run_in_kernel("from helpers.explorers.nb06 import explore_word\nshown = explore_word('hou')")
    pictures = [out for out in outputs if "image/png" in out.get("data", {})]
    assert len(pictures) == 1, [sorted(out.get("data", {})) for out in outputs]


# --- figures pyplot never sees ---------------------------------------------------------------------


def test_new_figure_is_unknown_to_pyplot():
    figure, axes = new_figure((4, 3), 1, 2, sharey=True)
    assert isinstance(figure, Figure) and len(axes) == 2
    assert plt.get_fignums() == []


def test_show_labels_the_figure_and_displays_the_figure_itself(shown_figures):
    figure, _ = new_figure((4, 3))
    show(figure, "An empty test picture.")
    assert shown_figures == [figure] and figure.get_label() == "An empty test picture."


@pytest.mark.parametrize("text", ["2, –1, 3", "2, ‐1, 3", "[2, −1, 3]", "(2, -1, 3)", " [2,-1,3] "])
def test_parse_numbers_reads_a_row_typed_with_a_dash_or_copied_with_its_brackets(text):
    assert parse_numbers(text, EXAMPLE, 3) == ([2.0, -1.0, 3.0], None)


def test_fmt_number_never_prints_minus_zero_and_shows_tiny_values_when_asked():
    assert fmt_number(-0.0) == fmt_number(-1e-3) == "0.00"
    assert fmt_number(2e-3, tiny=True) == "2.00e-03" and fmt_number(0.0, tiny=True) == "0.00"
