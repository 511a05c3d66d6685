"""Each reference solution changed at one point (a number, an operator, a dim, a call dropped), as a slip would change
it, and handed to the checker: whatever the checker passes must be right on inputs it has never seen, and it judges
every change with a sentence of its own. So the cases of an exercise leave no one-point slip room to pass."""

import ast
import copy
import importlib
import inspect
import textwrap

import pytest
import torch

from helpers.exercises.core import all_exercises, check, fresh

EXERCISES = all_exercises()
SWAPPED_OPERATORS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.MatMult: ast.Mult,
                     ast.Pow: ast.Mult}
SWAPPED_COMPARISONS = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
                       ast.GtE: ast.Gt}
SWAPPED_METHODS = {"tril": "triu", "triu": "tril", "mean": "sum", "sum": "mean", "var": "std", "softmax": "log_softmax",
                   "sqrt": "rsqrt", "cat": "stack"}


def replacements(node: ast.AST) -> list[ast.AST]:
    """What one slip could put in the place of `node`."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return [ast.Constant(v) for v in sorted({node.value + 1, node.value - 1, 0, -node.value} - {node.value})]
    if isinstance(node, ast.Constant) and node.value == "-inf":
        return [ast.Constant("inf")]
    if isinstance(node, ast.BinOp):
        swapped = SWAPPED_OPERATORS.get(type(node.op))
        kept = [node.left, node.right]  # an operand and its operator left out
        return kept if swapped is None else [ast.BinOp(node.left, swapped(), node.right), *kept]
    if isinstance(node, ast.Compare) and type(node.ops[0]) in SWAPPED_COMPARISONS:
        return [ast.Compare(node.left, [SWAPPED_COMPARISONS[type(node.ops[0])]()], node.comparators)]
    if isinstance(node, ast.Call):
        calls = [ast.Call(node.func, node.args, node.keywords[:k] + node.keywords[k + 1:])
                 for k in range(len(node.keywords))]  # a keyword argument left out (keepdim=True, dim=-1)
        method = getattr(node.func, "attr", None)
        if method in SWAPPED_METHODS:  # torch.triu where torch.tril belongs, .sum for .mean, …
            calls.append(ast.Call(ast.Attribute(node.func.value, SWAPPED_METHODS[method]), node.args, node.keywords))
        unwrapped = [node.args[0]] if len(node.args) == 1 and not node.keywords else []  # f(x) written as x
        return calls + unwrapped
    if isinstance(node, ast.Attribute) and node.attr == "T" or isinstance(node, ast.Subscript):
        return [node.value]  # a .T or an index left out (pos_table for pos_table[:T])
    return []


def one_point_changes(fn) -> dict[str, str]:
    """{source of fn with one node replaced: what changed, in words}, for every replacement that changes the source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    original = ast.unparse(tree)
    changes = {}
    for index, node in enumerate(ast.walk(tree)):
        for new in replacements(node):
            changed = copy.deepcopy(tree)
            target = list(ast.walk(changed))[index]
            for parent in ast.walk(changed):
                for field, value in ast.iter_fields(parent):
                    if value is target:
                        setattr(parent, field, copy.deepcopy(new))
                    elif isinstance(value, list) and target in value:
                        value[value.index(target)] = copy.deepcopy(new)
            source = ast.unparse(ast.fix_missing_locations(changed))
            if source != original:
                changes.setdefault(source, f"{ast.unparse(node)} → {ast.unparse(new)}")
    return changes


def redrawn(inputs: tuple, seed: int) -> tuple:
    """`inputs` with every float tensor drawn afresh (same shape, gradient and spread) and a whole number (a size, T)
    one larger."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            finite = x[torch.isfinite(x)]
            spread = finite.std() if finite.numel() > 1 else torch.tensor(1.0)
            out.append((torch.randn(x.shape, generator=g) * spread).requires_grad_(x.requires_grad))
        else:
            out.append(x + 1 if isinstance(x, int) and not isinstance(x, bool) else x)
    return tuple(out)


def agrees(exercise, fn, inputs: tuple) -> bool:
    """Whether fn gives the reference's answer for `inputs` (NaN where it has NaN), within the exercise's tolerance."""
    expected = exercise.reference(*fresh(inputs)).detach().double()
    try:
        got = fn(*fresh(inputs))
    except Exception:
        return False
    if not isinstance(got, torch.Tensor) or got.shape != expected.shape:
        return False
    got = got.detach().double()
    return torch.equal(got.isnan(), expected.isnan()) and torch.allclose(
        got.nan_to_num(), expected.nan_to_num(), rtol=1e-4, atol=exercise.atol)


def solution(exercise):
    return getattr(importlib.import_module(f"solutions.{exercise.notebook}"), exercise.name)


@pytest.mark.filterwarnings("ignore:Implicit dimension choice for softmax")
@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_the_checker_passes_no_one_point_slip_and_judges_each_one(name):
    exercise, reference = EXERCISES[name], solution(EXERCISES[name])
    namespace = vars(inspect.getmodule(reference))
    changes = one_point_changes(reference)
    assert len(changes) >= 5, f"too few changes to test the checker of {name}: {len(changes)}"
    passed_wrongly, unjudged = [], []
    for source, change in changes.items():
        scope = dict(namespace)
        exec(compile(source, f"{name} with {change}", "exec"), scope)
        mutant = scope[name]
        feedback = check(name, mutant)
        if feedback.passed is None or "could not judge" in feedback.message:
            unjudged.append(f"{change}: {feedback}")
        elif feedback.passed and not all(agrees(exercise, mutant, redrawn(case, seed))
                                         for case in exercise.cases for seed in range(3)):
            passed_wrongly.append(f"{change}: {feedback}")
    assert not passed_wrongly, f"{name}'s checker passes changes that are wrong on new inputs: {passed_wrongly}"
    assert not unjudged, f"{name}'s checker could not judge: {unjudged}"
