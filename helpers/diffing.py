"""Show that one step of the course differs from the last by a line or two of code."""

import ast
import difflib
import inspect
import re
import textwrap


def function_body(fn) -> list[str]:
    """The lines of a function's body, dedented, without its `def` line(s) and docstring."""
    source = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(source).body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise TypeError(f"{fn!r} is not a function defined with def.")
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]  # leave the docstring out: it describes the code, it is not the code
    lines = source.splitlines()
    return textwrap.dedent("\n".join(lines[body[0].lineno - 1 :])).splitlines()


def changed_lines(old_fn, new_fn) -> tuple[list[str], list[str]]:
    """The body lines only `old_fn` has, and those only `new_fn` has (stripped)."""
    removed, added = [], []
    for line in difflib.ndiff(function_body(old_fn), function_body(new_fn)):
        if line.startswith("- "):
            removed.append(line[2:].strip())
        elif line.startswith("+ "):
            added.append(line[2:].strip())
    return removed, added


def source_diff(old_fn, new_fn) -> str:
    """A unified diff of the two functions' bodies, named after the functions."""
    diff = difflib.unified_diff(
        function_body(old_fn),
        function_body(new_fn),
        fromfile=old_fn.__name__,
        tofile=new_fn.__name__,
        lineterm="",
        n=10,
    )
    return "\n".join(diff)


def change_summary(old_fn, new_fn) -> str:
    """'N line(s) removed, M line(s) added.' for the two functions' bodies."""
    removed, added = changed_lines(old_fn, new_fn)
    return f"{len(removed)} line(s) removed, {len(added)} line(s) added."


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
    """The difference between two functions, ready to be displayed coloured or printed."""
    return DiffDisplay(source_diff(old_fn, new_fn), change_summary(old_fn, new_fn))


def running_in_ipython() -> bool:
    """True inside Jupyter, Colab or an IPython console, where rich output can be displayed."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


def show_diff(old_fn, new_fn) -> None:
    """Show the literal difference between two functions, and how many lines changed.

    Under IPython (JupyterLab, Colab, and GitHub's view of the saved notebook) it is displayed as a
    coloured Markdown diff block that also carries the plain text; elsewhere it is printed.
    """
    shown = diff_display(old_fn, new_fn)
    if running_in_ipython():
        from IPython.display import display

        display(shown)
    else:
        print(repr(shown))


def show_source(fn) -> None:
    """Print a function's source exactly as it is written in helpers/."""
    print(textwrap.dedent(inspect.getsource(fn)))
