"""The "one line changed" diff helper."""

import pytest

from helpers.averaging import average_matmul, average_softmax
from helpers.diffing import (
    DiffDisplay,
    changed_lines,
    diff_display,
    function_body,
    journey,
    journey_display,
    show_diff,
    show_journey,
    source_diff,
)


def mean_scores(x):
    """Doc strings are not code."""
    wei = x * 0
    return wei + x


def attention_scores(x):
    """A different doc string."""
    wei = x @ x
    return wei + x


def test_body_leaves_out_the_def_line_and_docstring():
    assert function_body(mean_scores) == ["wei = x * 0", "return wei + x"]


def test_changed_lines_finds_exactly_the_one_line():
    assert changed_lines(mean_scores, attention_scores) == (["wei = x * 0"], ["wei = x @ x"])


def test_scheme_two_to_three_replaces_the_normalisation_with_softmax():
    removed, added = changed_lines(average_matmul, average_softmax)
    assert removed == ["wei = tril / tril.sum(1, keepdim=True)"]
    assert added[-1] == "wei = F.softmax(wei, dim=-1)" and len(added) == 3


def test_source_diff_is_named_after_the_functions(capsys):
    diff = source_diff(mean_scores, attention_scores)
    assert diff.startswith("--- mean_scores\n+++ attention_scores")
    assert "-wei = x * 0" in diff and "+wei = x @ x" in diff
    show_diff(mean_scores, attention_scores)
    assert "1 line removed, 1 line added." in capsys.readouterr().out


def test_the_summary_counts_in_plain_english():
    shown = diff_display(average_matmul, average_softmax)  # one line out, three in
    assert shown.summary == "1 line removed, 3 lines added."
    assert diff_display(mean_scores, mean_scores).summary == "0 lines removed, 0 lines added."
    assert diff_display(attention_scores, scaled_scores).summary == "1 line removed, 1 line added."


def test_lambdas_are_refused():
    with pytest.raises(TypeError, match="not a function defined with def"):
        function_body(lambda x: x)


def test_show_source_prints_the_function_as_written(capsys):
    from helpers.diffing import show_source

    show_source(mean_scores)
    printed = capsys.readouterr().out
    assert printed.startswith("def mean_scores(x):") and "return wei + x" in printed


def test_the_display_carries_a_coloured_markdown_diff_and_a_plain_text_fallback():
    shown = diff_display(mean_scores, attention_scores)
    plain = repr(shown)
    assert plain == source_diff(mean_scores, attention_scores) + "\n\n1 line removed, 1 line added."
    markdown = shown._repr_markdown_()
    assert markdown.startswith("```diff\n--- mean_scores\n")
    assert "\n-wei = x * 0\n+wei = x @ x\n" in markdown
    assert markdown.endswith("```\n\n1 line removed, 1 line added.")


def test_backticks_in_the_code_cannot_close_the_fence_early():
    shown = DiffDisplay("-a = '```'\n+a = ''", "1 line removed, 1 line added.")
    assert shown._repr_markdown_().startswith("````diff\n") and "\n````\n" in shown._repr_markdown_()


def test_show_diff_prints_plain_text_outside_ipython(capsys):
    show_diff(mean_scores, attention_scores)
    assert capsys.readouterr().out == repr(diff_display(mean_scores, attention_scores)) + "\n"


def test_show_diff_hands_the_rich_object_to_ipythons_display(capsys, monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    show_diff(mean_scores, attention_scores)
    assert capsys.readouterr().out == ""
    assert len(shown) == 1 and shown[0]._repr_markdown_().startswith("```diff")


def scaled_scores(x):
    """A third step: the second with its scores line changed again."""
    wei = x @ x * 2
    return wei + x


def test_a_journey_labels_every_line_with_the_step_that_wrote_or_replaced_it():
    steps = [("01", mean_scores), ("02", attention_scores), ("03", scaled_scores)]
    assert journey(steps) == [
        ("-", "01→02", "wei = x * 0"),
        ("-", "02→03", "wei = x @ x"),
        ("+", "03", "wei = x @ x * 2"),
        (" ", "01", "return wei + x"),
    ]


def test_a_journey_of_two_steps_is_their_diff_with_labels():
    marks = journey([("a", mean_scores), ("b", attention_scores)])
    removed = [line for mark, _, line in marks if mark == "-"]
    added = [line for mark, _, line in marks if mark == "+"]
    assert (removed, added) == changed_lines(mean_scores, attention_scores)


def test_the_course_journey_from_the_loop_to_the_head(capsys):
    from helpers.attention import attend_qk, attend_qkv, attend_scaled
    from helpers.averaging import average_loop

    steps = [("01", average_loop), ("02", average_matmul), ("03", average_softmax), ("05", attend_qk),
             ("06", attend_qkv), ("07", attend_scaled)]
    kept = [(label, line) for mark, label, line in journey(steps) if mark != "-"]
    assert [line for _, line in kept] == function_body(attend_scaled)  # the end is exactly the head's code
    # T and tril from 02, the scaled scores from 07, the mask and the softmax from 03, the blend of values from 06
    assert [label for label, _ in kept] == ["02", "02", "07", "03", "03", "06"]
    show_journey(steps)
    printed = capsys.readouterr().out
    assert printed.startswith("--- 01 average_loop(x)\n+++ 07 attend_scaled(x, query, key, value)\n")
    assert repr(journey_display(steps)) + "\n" == printed
