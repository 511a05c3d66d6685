"""Show that one step of the course differs from the last by a line or two of code."""

import ast
import difflib
import inspect
import re
import textwrap

from .words import counted


def function_body(fn) -> list[str]:
    """The lines of a function's body, dedented, without its `def` line(s) and docstring."""
    source = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(source).body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise TypeError(f"{fn!r} is not a function defined with def.")
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # leave the docstring out: it describes the code, it is not the code
    lines = source.splitlines()
    return textwrap.dedent("\n".join(lines[body[0].lineno - 1 :])).splitlines()


def changed_lines(old_fn, new_fn) -> tuple[list[str], list[str]]:
    """The body lines only `old_fn` has, and those only `new_fn` has (stripped)."""
    diff = list(difflib.ndiff(function_body(old_fn), function_body(new_fn)))
    removed = [line[2:].strip() for line in diff if line.startswith("- ")]
    added = [line[2:].strip() for line in diff if line.startswith("+ ")]
    return removed, added


def source_diff(old_fn, new_fn) -> str:
    """A unified diff of the two functions' bodies, named after the functions."""
    diff = difflib.unified_diff(function_body(old_fn), function_body(new_fn), fromfile=old_fn.__qualname__,
                                tofile=new_fn.__qualname__, lineterm="", n=10)
    return "\n".join(diff)


class DiffDisplay:
    """A diff that notebooks show coloured (a Markdown ```diff block) and consoles show as plain text."""

    def __init__(self, diff: str, summary: str):
        self.diff = diff
        self.summary = summary

    def __repr__(self) -> str:
        return f"{self.diff}\n\n{self.summary}"

    def _repr_markdown_(self) -> str:
        longest = max((len(run) for run in re.findall(r"`+", self.diff)), default=0)
        fence = "`" * max(3, longest + 1)  # a fence no backtick run in the code can close early
        return f"{fence}diff\n{self.diff}\n{fence}\n\n{self.summary}"


def diff_display(old_fn, new_fn) -> DiffDisplay:
    """The difference between two functions, ready to be displayed coloured or printed, and how many lines changed."""
    removed, added = changed_lines(old_fn, new_fn)
    summary = f"{counted(len(removed), 'line')} removed, {counted(len(added), 'line')} added."
    return DiffDisplay(source_diff(old_fn, new_fn), summary)


def journey(steps) -> list[tuple[str, str, str]]:
    """One cumulative diff across a chain of functions, each line labelled by the step that changed it.

    `steps` is [(label, fn), ...] in the order the steps were taught. Every line that was ever part of
    a body appears once, in place, as (mark, label, line): ' ' with the first step's label for a line
    that was there from the start and still is, '+' with the label of the step that wrote it for a line
    added on the way and kept, '-' with 'written→removed' labels for a line that did not last.
    """
    (first_label, first_fn), *rest = steps
    entries = [{"line": line, "born": first_label, "died": None} for line in function_body(first_fn)]
    for label, fn in rest:
        alive = [e for e in entries if e["died"] is None]
        new = function_body(fn)
        matcher = difflib.SequenceMatcher(None, [e["line"] for e in alive], new, autojunk=False)
        for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):  # from the end, so indices stay valid
            if tag == "equal":
                continue
            for e in alive[i1:i2]:
                e["died"] = label
            if i2 > i1:  # after the lines it replaces
                at = entries.index(alive[i2 - 1]) + 1
            else:  # before the line it was inserted in front of
                at = entries.index(alive[i1]) if i1 < len(alive) else len(entries)
            entries[at:at] = [{"line": line, "born": label, "died": None} for line in new[j1:j2]]
    marks = []
    for e in entries:
        if e["died"] is not None:
            marks.append(("-", f"{e['born']}→{e['died']}", e["line"]))
        else:
            marks.append((" " if e["born"] == first_label else "+", e["born"], e["line"]))
    return marks


def journey_display(steps) -> DiffDisplay:
    """`journey(steps)` as a diff block, headed by the first and the last function's signature."""
    (first_label, first_fn), (last_label, last_fn) = steps[0], steps[-1]
    marks = journey(steps)
    width = max(len(label) for _, label, _ in marks)
    lines = [f"{mark} {label:<{width}}  {line}" for mark, label, line in marks]
    header = [f"--- {first_label} {first_fn.__qualname__}{inspect.signature(first_fn)}",
              f"+++ {last_label} {last_fn.__qualname__}{inspect.signature(last_fn)}"]
    summary = ("Each line is labelled with the notebook that wrote it; a line marked - with the notebook that wrote "
               "it and the one that replaced it.")
    return DiffDisplay("\n".join(header + lines), summary)


def show_diff(old_fn, new_fn) -> None:
    """Show the literal difference between two functions, and how many lines changed (coloured under IPython)."""
    from IPython.display import display

    display(diff_display(old_fn, new_fn))


def show_journey(steps) -> None:
    """Show one cumulative diff across the chain `steps` = [(label, fn), ...], each line labelled (see `journey`)."""
    from IPython.display import display

    display(journey_display(steps))


def show_source(fn) -> None:
    """Print a function's source exactly as it is written (in helpers/, or in a notebook cell)."""
    print(textwrap.dedent(inspect.getsource(fn)))
