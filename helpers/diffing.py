"""Show that one step of the course differs from the last by a line or two of code."""

import ast
import difflib
import inspect
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


def show_diff(old_fn, new_fn) -> None:
    """Print the literal difference between two functions, and how many lines changed."""
    print(source_diff(old_fn, new_fn))
    removed, added = changed_lines(old_fn, new_fn)
    print(f"\n{len(removed)} line(s) removed, {len(added)} line(s) added.")


def show_source(fn) -> None:
    """Print a function's source exactly as it is written in helpers/."""
    print(textwrap.dedent(inspect.getsource(fn)))
