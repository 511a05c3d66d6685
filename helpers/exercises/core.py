"""Exercises declared as data, and the one generic checker that reads every declaration.

An exercise is one `Exercise(...)` in the EXERCISES tuple of its notebook's module, helpers/explorers/nbNN.py:
the reference answer, the input cases it is tried on (at least two, of different sizes), the named mistakes
the lesson warns about (each a function computing what that mistake returns, or raises), and a
hint for each. The learner's notebook cell calls `check("name", their_function)`; the answer
is one plain sentence, whatever they hand over.

Read from `check` down: judge_cases runs the answer on every case (judge_case judges one result) and tells its first
failure, by a named mistake or by a cause that unnamed_failure's tests find. The sections after those say what an
answer raised, what is wrong with one that is no tensor, and the generic words for a wrong tensor. docs/checker.md
says the same rules in prose, for whoever adds an exercise.
"""

import ast
import contextlib
import copy
import dataclasses
import functools
import inspect
import io
import linecache
import math
import re
import textwrap
import traceback
from dataclasses import dataclass
from typing import Callable

import torch
from torch.overrides import TorchFunctionMode

from ..words import article, counted, listed

HARD_CODED = "hard_coded"  # the mistake name given to an answer that is right for one size only
LOW_PRECISION = "low_precision"  # the mistake name given to an answer in float16 or bfloat16
ONE_SEQUENCE = "one_sequence_only"  # the mistake name given to an answer right per sequence, wrong for a batch
WHOLE_NUMBERS = "whole_numbers"  # the mistake name given to a wrong answer held in an integer tensor
NO_GRADIENT = "no_gradient"  # the mistake name given to a right answer whose gradient is missing, partial or broken
RANDOM = "random_result"  # the mistake name given to an answer that changes from call to call on the same input
FLOOR_DIVISION = "floor_division"  # the mistake name given to an answer that is the right one rounded down
FUTURE_LEAK = "future_leak"  # the mistake name given to an answer that reads positions its reference may not
NO_SOFTMAX = "no_softmax"  # the mistake name given to a wrong answer that takes no softmax where the reference does
MASKED_WEIGHTS = "masked_weights"  # the mistake name given to ±∞ or NaN from a −∞ mask put after the softmax
BATCH_OF_ONE = "batch_of_one"  # the mistake name given to an answer right for every case, wrong for a batch of one
UNWRITTEN = "unwritten_entries"  # the mistake name given to a result holding entries of torch.empty never written
WEIGHT_MAKERS = {"softmax", "special_softmax", "softmin"}  # what turns a row of scores into weights
WEIGHTS_OR_FUSED = WEIGHT_MAKERS | {"scaled_dot_product_attention"}  # a softmax taken, alone or in the fused kernel
SOFTMAX_LIKE = WEIGHTS_OR_FUSED | {"log_softmax", "exp", "exp_", "exp2", "pow", "__rpow__"}  # ... or a softmax by hand
RANDOM_STEPS = {"dropout", "dropout_", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
                "rand", "rand_like", "randn", "randn_like", "randint", "randperm", "bernoulli", "multinomial"}
LEFTOVER_MEMORY = {"empty", "empty_like", "new_empty", "empty_strided"}  # tensors whose entries start as leftovers
RANDOM_FILLS = {"bernoulli_", "uniform_", "normal_", "random_", "exponential_", "geometric_", "cauchy_",
                "log_normal_"}  # what fills a tensor (one of torch.empty's, say) with random numbers
DROPS_FRACTIONS = {"__setitem__", "copy_", "long", "int", "short", "__floordiv__", "__rfloordiv__", "floor_divide",
                   "floor", "trunc", "fix", "round"}  # steps that make a float whole (a store: into whole numbers)
STORED_VALUE = {"__setitem__": 2, "copy_": 1}  # where the value stored is among the arguments (after the tensor)
SIGNIFICANT_DIGITS = {torch.float16: 3, torch.bfloat16: 2}  # about how many a half-precision number keeps
CONVERSIONS = {"half", "bfloat16", "to", "type", "type_as"}  # what turns a tensor into another dtype
SHOWN_LINES = 20  # at most this many lines of what the learner's function prints are shown
CHANGED_INPUT = (  # added to the verdict on a function that changed its input in place
    " Note: your function changed its input in place (with +=, x[t] = … or a method ending in _, say); leave the "
    "input alone (x = x + …): in a model, autograd may still need the input as it was, and then training stops "
    "with an error."
)


@dataclass
class Feedback:
    """What a checker concluded: passed (True/False, or None when not attempted yet) and why."""

    passed: bool | None
    message: str
    mistake: str | None = None

    def __str__(self) -> str:
        mark = {True: "✅ Correct", False: "❌ Not yet", None: "✏️ Your turn"}[self.passed]
        return f"{mark}: {self.message}"

    __repr__ = __str__  # also what IPython shows at the end of a cell


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: `wrong` returns (or raises) what that mistake would, `hint` says what to fix.

    Several mistakes may share a name (two ways to make one error); each keeps a hint of its own. A `wrong` that raises
    is matched by a learner function raising the same exception with the same message (e.g. the size clash of a
    missing transpose). `every_case`: the hint speaks of every input (a number typed in), so the mistake is named only
    where it gives what the answer gave on every case the answer fails.
    """

    name: str
    wrong: Callable
    hint: str
    every_case: bool = False


@dataclass(frozen=True)
class ExactZeros:
    """The entries of an answer the lesson says are exactly 0 (the future), compared with ==, never a tolerance.

    where: `(*inputs) -> bool tensor` marking them. An answer right within the tolerance but not exactly 0 there
    is the mistake `name` (e.g. "finite_mask": a large negative number instead of −∞), told `fix`.
    """

    where: Callable
    name: str = "not_exactly_zero"
    fix: str = "set it to exactly 0."


@dataclass(frozen=True)
class Exercise:
    """One "your turn" exercise, declared once and read by `check` and by the generic test.

    name: the function the learner writes (also the key passed to `check`, and the name of the reference solution in
        solutions/<notebook>.py).
    reference: the correct function; its results are the answers. Its parameter names are the ones quoted to a
        learner whose function takes the wrong number of inputs.
    cases: input tuples, tried in order; at least two, whose first inputs differ in size. Never changed in place: the
        reference's and the mistakes' results on them are worked out once and kept (on_case), so those functions
        must also give the same result for the same inputs (nothing random, nothing read from elsewhere).
    mistakes: the named mistakes, tried in order against a wrong answer.
    exact_zeros: optional ExactZeros, the entries that must be exactly 0.
    explain: optional `(got, expected, inputs, atol) -> str | None`: plain words for a wrong answer that no named
        mistake matches; `atol` is the exercise's own, for every comparison it makes.
    atol: the tolerance for every other entry.
    notebook: the key of the declaring notebook ("nb03"), the name of its module; all_exercises() fills it in.
    """

    name: str
    reference: Callable
    cases: tuple
    mistakes: tuple = ()
    exact_zeros: ExactZeros | None = None
    explain: Callable | None = None
    atol: float = 1e-4
    notebook: str = ""


def all_exercises(modules: dict | None = None) -> dict[str, Exercise]:
    """Every exercise by name: the EXERCISES of each notebook's module, helpers/explorers/nbNN.py (or of `modules`,
    a {notebook key: module} dict), each told the key of its notebook. Read afresh, so an edited module counts."""
    if modules is None:
        from ..explorers import notebook_modules  # here: those modules import this one

        modules = notebook_modules()
    found = {}
    for key, module in modules.items():
        for exercise in getattr(module, "EXERCISES", ()):
            if exercise.name in found:
                raise ValueError(
                    f"Two exercises are called {exercise.name!r} ({found[exercise.name].notebook} and {key}): "
                    "give each a name of its own."
                )
            found[exercise.name] = dataclasses.replace(exercise, notebook=key)
    return found


def check(name: str, fn) -> Feedback:
    """Judge the learner's `fn` against the exercise called `name`; never raises."""
    try:
        exercises = all_exercises()
        exercise = exercises.get(name) if isinstance(name, str) else None
        if exercise is None:
            known = ", ".join(repr(n) for n in sorted(exercises)) or "none loaded"
            return Feedback(False, f"there is no exercise called {name!r}: use one of {known}.")
        return judge(exercise, fn)
    except (Exception, SystemExit) as err:  # last line of defence: the checker itself must never crash a notebook
        return Feedback(False, f"the checker could not judge this answer ({type(err).__name__}: {first_line(err)}).")


# ---- Judging: every case, then the first failure told --------------------------------------------
def judge(exercise: Exercise, fn) -> Feedback:
    """Run `fn` on every case of `exercise` and say, in one sentence, what is right or wrong (what `fn` prints is
    held back while it runs on the cases and shown afterwards, SHOWN_LINES lines at most)."""
    if not callable(fn):
        what = "None" if fn is None else article(type(fn).__name__)
        return Feedback(False, f"you passed {what}; pass the function itself: check({exercise.name!r}, "
                               f"{exercise.name}).")
    if inspect.isclass(fn) or isinstance(fn, torch.nn.Module):
        what = f"the class {fn.__name__}" if inspect.isclass(fn) else f"a module ({type(fn).__name__})"
        return Feedback(False, f"you passed {what}; pass a plain function, `def {exercise.name}(...)`: "
                               f"check({exercise.name!r}, {exercise.name}).")
    label = getattr(fn, "__name__", None)
    if not (isinstance(label, str) and label.isidentifier()):  # a lambda is called by the exercise's name
        label = exercise.name
    if wrong_arity := arity_problem(exercise, fn, label):
        return Feedback(False, wrong_arity)
    printed = CappedOutput()
    try:
        with contextlib.redirect_stdout(printed):
            verdict = judge_cases(exercise, fn, label)
    finally:
        printed.show()
    if not (swapped := swapped_names(exercise, fn, label)):
        return verdict
    if verdict.passed is False and right_by_name(exercise, fn):  # the names are all of it: the inputs come by position
        return Feedback(False, swapped)
    return Feedback(verdict.passed, f"{verdict.message} Note: {swapped}", verdict.mistake)


def arity_problem(exercise: Exercise, fn, label: str) -> str | None:
    """A sentence when `fn` cannot take the case's inputs as they come (too many or too few, or some by name only)."""
    count = len(exercise.cases[0])
    wanted = input_names(exercise)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # no signature to read (some built-ins, odd callables): calling it will tell
    try:
        signature.bind(*range(count))
    except TypeError:
        by_name = [name for name, p in signature.parameters.items()
                   if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
        if by_name and len(signature.parameters) == count:
            return (f"`{label}` takes {listed(by_name)} by name only (after a `*`), but the inputs come by position: "
                    f"change its first line to `def {label}({', '.join(wanted)})`.")
        inputs = "one input" if count == 1 else f"{count} inputs"
        return (f"`{label}` should take {inputs}, ({', '.join(wanted)}), but it takes "
                f"({', '.join(signature.parameters)}): change its first line, `def {label}(...)`.")
    return None


def swapped_names(exercise: Exercise, fn, label: str) -> str | None:
    """A sentence when `fn`'s parameters are the reference's names in another order (def f(k, q) for (q, k)): the
    inputs still come by position, so the answer is judged as it stands, and the sentence is a note beside the verdict
    (or the whole verdict, where the answer is right with its inputs by name)."""
    count = len(exercise.cases[0])
    wanted = input_names(exercise)
    try:
        names = list(inspect.signature(fn).parameters)[:count]
    except (TypeError, ValueError):
        return None
    if sorted(names) != sorted(wanted) or names == wanted:
        return None
    return (f"`{label}` takes ({', '.join(names)}), but the inputs come in the order ({', '.join(wanted)}): its first "
            f"input is {wanted[0]}, whatever you call it. Name them in that order, `def {label}({', '.join(wanted)})`, "
            "and check that each line uses the one it means.")


def right_by_name(exercise: Exercise, fn) -> bool:
    """Whether `fn` gives every case's answer, with its gradient, when given its inputs by name (f(q=…, k=…))."""
    names = input_names(exercise)
    for inputs in exercise.cases:
        got = attempt(fn, **dict(zip(names, fresh(inputs), strict=True)))
        wrong = not same_answer(got, answer(exercise, inputs), exercise.atol)
        if wrong or attempt(gradient_problem, exercise, inputs, got):  # an error too: a graph it cannot go back through
            return False
    return True


class CappedOutput(io.StringIO):
    """Stands in for sys.stdout while the learner's function runs: keeps its first SHOWN_LINES lines."""

    dropped = 0  # lines printed once SHOWN_LINES were kept

    def write(self, text) -> int:
        text = str(text)
        if self.getvalue().count("\n") < SHOWN_LINES:
            super().write(text)
        else:
            self.dropped += text.count("\n")
        return len(text)

    def show(self) -> None:
        """Print the lines kept, and say how many more there were."""
        lines = self.getvalue().splitlines(keepends=True)
        dropped = self.dropped + max(0, len(lines) - SHOWN_LINES)
        print("".join(lines[:SHOWN_LINES]), end="")
        if dropped:
            print(f"… and {dropped:,} more lines printed by your function, not shown here.")


def judge_cases(exercise: Exercise, fn, label: str) -> Feedback:
    """The verdict on every case, told by the first case that fails (or a pass)."""
    changed_input = False
    failures = []  # (case number, Feedback, the tensor fn returned or None) of each case it got wrong
    shapes = []  # the shapes of the tensors it returned
    for number, inputs in enumerate(exercise.cases):
        given = fresh(inputs)
        try:
            got = fn(*given)
        except NotImplementedError:
            return Feedback(None, f"fill in `{label}` above, then run this cell again.")
        except (Exception, SystemExit) as err:
            right_before = number if not failures else 0  # how many cases before this one were right
            failures.append((number, explain_raise(exercise, inputs, err, label, fn, right_before), None))
            continue
        if got is None:
            return Feedback(None, f"`{label}` returns None so far: make it return your tensor.")
        changed_input |= not same_inputs(given, inputs)
        if problem := not_a_tensor_like(got, answer(exercise, inputs), fn, label, exercise.atol):
            failures.append((number, Feedback(False, problem + what_joined_lacks(exercise, inputs, got, fn)), None))
            continue
        shapes.append(tuple(got.shape))
        verdict = judge_case(exercise, inputs, got, fn)
        if verdict and strays_to_infinity(got, answer(exercise, inputs)) and torch_calls(fn, inputs).masked_weights:
            # What the code did, traced: surer than a named mistake whose NaNs fall alike
            verdict = Feedback(False, f"`{label}` puts an infinity into the weights after the softmax: it stays there "
                                      "and turns the result into ±∞ and NaN. Put the −∞ mask on the scores before the "
                                      "softmax, which turns it into a weight of exactly 0.", MASKED_WEIGHTS)
        if verdict is None and (problem := gradient_problem(exercise, inputs, got)):
            verdict = Feedback(False, problem, NO_GRADIENT)
        if verdict:
            failures.append((number, verdict, got))
    note = CHANGED_INPUT if changed_input else ""
    last = failures[0][0] if failures else len(exercise.cases) - 1
    if (failures or mentions_leftover_memory(fn)) and (leftover := leftover_case(exercise, fn, last)):
        number, entry = leftover  # a pass or a verdict that hangs on leftovers would change from run to run
        return after_right_cases(exercise, number, Feedback(False, (
            f"`{label}` returns entries that depend on torch.empty's leftovers (entry {list(entry)} is one): "
            "torch.empty makes a tensor that holds whatever was left in memory, a different leftover from run to run, "
            "and an entry your code never writes, or only adds to, keeps it. Start from torch.zeros, or write every "
            "entry." + note), UNWRITTEN))
    if not failures and (problem := batch_of_one_problem(exercise, fn, label)):
        return Feedback(False, problem + note, BATCH_OF_ONE)
    if not failures:
        sizes = listed(size_of(exercise, inputs) for inputs in exercise.cases)
        return Feedback(True, f"your function matches the reference for {sizes}.{note}")
    number, first, got = failures[0]
    named = {m.name for m in exercise.mistakes}
    failed = {k for k, _, _ in failures}
    alike = [k for k, case in enumerate(exercise.cases)  # the cases it got right with as many dimensions as this one
             if k not in failed and dimensions(case) == dimensions(exercise.cases[number])]
    if first.mistake in named:
        first = fits_most_failures(exercise, failures, first, fn, alike)
    if first.mistake is None:
        first = unnamed_failure(exercise, fn, label, number, first, got, shapes)
        if first.mistake is None and got is not None and (later := named_raise(exercise, failures[1:])):
            first = later  # two slips, say: one that only shows on a square input, and one named where it raises
    elif first.mistake in named:
        first = named_after_right_cases(exercise, number, first, alike, raised=got is None)
    # A cause found by a test of its own, led by the sizes that were right (the earlier cases asked no gradient, and
    # hard_coded names the right sizes itself)
    elif first.mistake not in (NO_GRADIENT, HARD_CODED):
        first = after_right_cases(exercise, number, first)
    if first.mistake == NO_GRADIENT or writes_into_its_input(exercise, first.mistake):
        note = ""  # its sentence already says what the in-place change does
    return Feedback(first.passed, first.message + note, first.mistake)


def judge_case(exercise: Exercise, inputs: tuple, got: torch.Tensor, fn) -> Feedback | None:
    """None when the tensor `got` is right for this case; otherwise the Feedback that says why not. `fn`, the answer,
    is run again for a wrong result, to see which steps it took."""
    if got.dtype in SIGNIFICANT_DIGITS:
        return Feedback(False, f"your result is in {got.dtype}, which keeps only about "
                               f"{SIGNIFICANT_DIGITS[got.dtype]} significant digits, too few to tell a right answer "
                               "from a wrong one: compute in float32, as the lesson does (leave out .half(), "
                               ".bfloat16() and autocast).", LOW_PRECISION)
    expected = answer(exercise, inputs)
    dtype, got = got.dtype, as_float(got)
    if got.shape != expected.shape:
        wrong_shape = f"your result has shape {tuple(got.shape)}, but it should be {tuple(expected.shape)}."
        return match_mistake(exercise, inputs, got) or Feedback(False, wrong_shape)
    is_close = close(got, expected, exercise.atol)
    off_zero = not_exactly_zero(exercise, inputs, got)
    if is_close and not off_zero.any():
        return None
    if is_close and (lifted := lifted_zeros(exercise, inputs, got)):
        return lifted
    if matched := match_mistake(exercise, inputs, got):
        return matched
    if is_close:  # right within the tolerance, but a weight that must be exactly 0 is not
        index = first_index(off_zero)
        i, j = index[-2:]
        return Feedback(False, f"row {i} gives position {j} the weight {fmt(got[index])}, close to 0 but not 0: a "
                               "weight the lesson says is exactly 0 must be exactly 0, so "
                               f"{exercise.exact_zeros.fix}", exercise.exact_zeros.name)
    whole = not dtype.is_floating_point and not torch.equal(expected, expected.round())
    if whole and (bool(((got - expected).abs() < 1).all())  # within 1 everywhere: what dropped fractions leave
                  or DROPS_FRACTIONS & torch_calls(fn, inputs).names):  # or a step that drops them
        return Feedback(False, f"your result holds whole numbers ({dtype}), which cannot hold fractions: // and "
                               "storing a value into them drop everything after the decimal point. Keep your tensors "
                               "in floats (torch.zeros and torch.ones make floats unless given a dtype; .float() "
                               "converts one).", WHOLE_NUMBERS)
    if into := torch_calls(fn, inputs).stored_fractions:
        return Feedback(False, f"your code stores numbers with fractions into a tensor of whole numbers ({into}), "
                               "which keeps only their whole part (1.5 becomes 1): make that tensor a float one "
                               "(torch.zeros and torch.ones make floats unless given a dtype).", WHOLE_NUMBERS)
    first = inputs[0]
    if torch.is_tensor(first) and first.shape == got.shape and torch.equal(got, as_float(first)):
        given = input_names(exercise)[0]
        return Feedback(False, f"your result is the input {given} itself, unchanged: does your function return {given} "
                               "where it should return the tensor it computed, or does each step leave its row as "
                               "it came in (a slice of that row alone, such as x[t : t + 1]; == typed for =; a "
                               "result not kept)?")
    if not got.any():  # in every exercise: a result that was never filled in
        return Feedback(False, "every entry of your result is 0: was a tensor never filled in (an == typed where an = "
                               "was meant, say)?")
    if close(got, expected.floor(), exercise.atol):
        return Feedback(False, "every entry of your result is the right one rounded down to a whole number: is there "
                               "a // where / belongs (// is floor division: 7 // 2 is 3, and 1 // 2 is 0), or a "
                               "rounding step?", FLOOR_DIVISION)
    if same_answer(run_exactly(fn, inputs), expected, exercise.atol):  # roundings: all of it
        off_by = float((got - expected).abs().nan_to_num(math.inf).max())
        near = math.isfinite(off_by)
        how_far = (f"every entry of your result is within {fmt(off_by)} of the right one, but" if near
                   else "your result holds NaN or ∞ where the right one holds numbers, because")
        room = "" if near else ", and nothing beyond ±65,504 in float16, where −3.4e38 becomes −∞"
        return Feedback(False, f"{how_far} a step drops digits: a rounding (round, with or without decimals=) or a "
                               f"half-precision tensor (.half(), .bfloat16(): about 3 significant digits{room}). "
                               "Compute in float32 from start to end, as the lesson does, and leave the rounding to "
                               "printing.", LOW_PRECISION)
    hint = exercise.explain(got, expected, inputs, exercise.atol) if exercise.explain else None
    note = (f" (Your result is also in whole numbers, {dtype}, which cannot hold fractions: keep it in floats.)"
            if whole else "")
    if not hint:  # the generic words, told the first input as the answer got it
        given = as_float(inputs[0]) if torch.is_tensor(inputs[0]) else None
        hint = explain_difference(got, expected, exercise.atol, takes_softmax(exercise, inputs), given)
    return Feedback(False, hint + note)


def lifted_zeros(exercise: Exercise, inputs: tuple, got: torch.Tensor) -> Feedback | None:
    """For `got` right within the tolerance: a Feedback when every entry that must be exactly 0 holds one and the same
    number instead (a starting value, a clamp; a finite mask leaves numbers that differ)."""
    zeros = torch.as_tensor(exercise.exact_zeros.where(*fresh(inputs)), dtype=torch.bool).expand_as(got)
    values = got[zeros]
    if values.numel() < 2 or values[0] == 0 or not (values == values[0]).all():
        return None
    return Feedback(False, f"every weight that must be exactly 0 is {fmt(values[0])}, one number in every such place: "
                           "where does it come from? A starting value (torch.full, ones times a number), or a step "
                           "after the zeros were made (a clamp, an epsilon added, smoothing). Start from exact zeros "
                           "and add nothing to them, so that those weights stay exactly 0.", exercise.exact_zeros.name)


def not_exactly_zero(exercise: Exercise, inputs: tuple, got: torch.Tensor) -> torch.Tensor:
    """Where `got` is not exactly 0 although the exercise's exact_zeros says it must be: a bool tensor like `got`."""
    if exercise.exact_zeros is None:
        return torch.zeros_like(got, dtype=torch.bool)
    where = torch.as_tensor(exercise.exact_zeros.where(*fresh(inputs)), dtype=torch.bool).expand_as(got)
    return where & (got != 0)


def match_mistake(exercise: Exercise, inputs: tuple, got: torch.Tensor) -> Feedback | None:
    """The Feedback of the first named mistake whose result equals `got` (float64), or None."""
    mistake = next((m for m in exercise.mistakes if gives(exercise, m, inputs, got)), None)
    return None if mistake is None else Feedback(False, mistake.hint, mistake.name)


def gives(exercise: Exercise, mistake: Mistake, inputs: tuple, got: torch.Tensor) -> bool:
    """Whether `mistake` returns `got` (float64) on `inputs`, exact zeros in the same places (a mistake that would pass
    this case cannot be what made `got` fail it)."""
    wrong = on_case(exercise, mistake.wrong, inputs)  # what it raises is never the same answer
    if gives_the_answer(exercise, mistake, inputs) and not not_exactly_zero(exercise, inputs, as_float(wrong)).any():
        return False
    return same_answer(wrong, got, exercise.atol) and torch.equal(
        not_exactly_zero(exercise, inputs, got), not_exactly_zero(exercise, inputs, as_float(wrong)))


def gradient_problem(exercise: Exercise, inputs: tuple, got: torch.Tensor) -> str | None:
    """For inputs that carry a gradient (a model's x, say): a sentence when the right answer `got` carries none, when
    autograd cannot go back through it, or when less of it reaches an input than through the reference; else None."""
    needs = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor) and x.requires_grad]
    if not needs:
        return None
    if not got.requires_grad:
        return ("your result is right but carries no gradient, so a model built on it could not learn: leave out "
                "torch.no_grad() and .detach().")
    originals = [inputs[i] for i in needs]  # the learner got copies of these: reaching them crosses the whole graph
    # The gradient of (result · probe) for a fixed random probe: the gradient of a plain sum misses any path whose
    # output always adds up to the same (the rows of a LayerNorm without its scale, for one, always sum to 0).
    probe = torch.randn(got.shape, generator=torch.Generator().manual_seed(0)).to(got.device, got.dtype)
    try:
        grads = torch.autograd.grad((got * probe).sum(), originals, allow_unused=True)
    except RuntimeError as err:
        if "inplace" in str(err):
            return ("your result is right, but a tensor autograd still needed was changed in place (with +=, say), so "
                    "training would stop with an error at backward(): write x = x + … instead.")
        if "a second time" in str(err):
            return ("your result is right, but your function already called .backward() on it, which frees what "
                    "autograd needs to go back through it: leave backward() to the training loop.")
        raise
    reference = exercise.reference(*fresh(inputs))
    expected = torch.autograd.grad((reference * probe.to(reference.device, reference.dtype)).sum(), originals)
    names = input_names(exercise)
    for i, grad, wanted in zip(needs, grads, expected, strict=True):
        if grad is None or not torch.allclose(as_float(grad), as_float(wanted), rtol=1e-3, atol=exercise.atol):
            return (f"your result is right, but its gradient with respect to `{names[i]}` is not the reference's: part "
                    "of it was computed under torch.no_grad(), from a .detach()ed copy, as a new tensor or through a "
                    "step with no gradient (round, argmax), so in a model the layers on that path would never learn. "
                    "Build the result from the inputs themselves, without those steps.")
    return None


def strays_to_infinity(got, expected: torch.Tensor) -> bool:
    """Whether the tensor `got` has `expected`'s shape and holds ±∞ or NaN where `expected` is finite."""
    return got.shape == expected.shape and bool((~torch.isfinite(as_float(got)) & torch.isfinite(expected)).any())


def fits_most_failures(exercise: Exercise, failures: list, first: Feedback, fn, alike: list) -> Feedback:
    """Of the named mistakes that give what the answer gave on its first failed case, the one that also gives it on
    the most of its later `failures` (`first`, the first one named, on a tie), leaving out those whose hint speaks of
    every input (`every_case`) but that miss one of them: a number typed in can look like a slip on one size (1/8 is
    1/(2 · head_size) for a head size of 4) and unlike it on another. Where only such mistakes fit, the answer follows
    some sizes, not the input's, if a case `alike` was right (hard_coded); else the case is judged without them.
    `failures`: (case number, Feedback, what `fn` returned or None) for each case it failed."""
    (number, _, got), *later = failures
    if got is None:
        return first
    inputs = exercise.cases[number]
    named = [m for m in exercise.mistakes if gives(exercise, m, inputs, as_float(got))]
    if not named:  # `first` was named by a cause of its own (an exact 0 missed), not by a mistake's result
        return first
    later = [(exercise.cases[k], as_float(returned)) for k, _, returned in later if returned is not None]

    def fits_later(mistake: Mistake) -> int:
        return sum(gives(exercise, mistake, case, returned) for case, returned in later)

    raised_later = any(returned is None for _, _, returned in failures[1:])  # its hint would speak of that case too
    kept = [m for m in named if not m.every_case or (fits_later(m) == len(later) and not raised_later)]
    if not kept:
        if alike:  # a scale right for one size and like a slip for another: it follows some sizes, not the input's
            return hard_coded(exercise, number, right=alike)
        others = tuple(m for m in exercise.mistakes if m not in named)
        return judge_case(dataclasses.replace(exercise, mistakes=others), inputs, got, fn)
    best = max(kept, key=fits_later)
    return first if best is named[0] else Feedback(False, best.hint, best.name)


def named_after_right_cases(exercise: Exercise, number: int, verdict: Feedback, alike: list, raised: bool) -> Feedback:
    """A named mistake that case `number` matched, where the cases `alike` (earlier or later, with as many dimensions)
    were right. If that mistake's result would have been wrong on one of those, the learner did not make it: their
    answer follows the size of some inputs only (÷ 2 typed in is ÷ √n_head for 4 heads). So does an answer that raises
    (`raised`) where the mistake raises on those cases too (a slice one row short, against a table cut to a size typed
    in). Else the hint stands, naming the sizes that were right before it (a batch's extra dimension turns dim=1 into
    another dimension, and so the mistake)."""
    named = [m for m in exercise.mistakes if m.name == verdict.mistake]
    fits_them = any(all(gives_the_answer(exercise, m, exercise.cases[k]) for k in alike) for m in named)
    # A slip that raises on the cases the answer got right as well (a slice one row short) is not what it did
    raises_on_them = all(isinstance(on_case(exercise, m.wrong, exercise.cases[k]), Exception)
                         for m in named for k in alike)
    if alike and not fits_them and (not raised or raises_on_them):
        return hard_coded(exercise, number, right=alike)
    return after_right_cases(exercise, number, verdict)


def gives_the_answer(exercise: Exercise, mistake: Mistake, inputs: tuple) -> bool:
    """Whether `mistake` gives the reference's answer on `inputs` (where the slip changes nothing, as a square root
    rounded to a whole number does for a head size of 4)."""
    return same_answer(on_case(exercise, mistake.wrong, inputs), answer(exercise, inputs), exercise.atol)


def after_right_cases(exercise: Exercise, number: int, verdict: Feedback) -> Feedback:
    """`verdict` on case `number`, its message led by the sizes that were right: "for a (3, 6, 12) input (a (2, 10,
    24) input was right), …" (as it is for case 0)."""
    if number == 0:
        return verdict
    right = listed(size_of(exercise, earlier) for earlier in exercise.cases[:number])
    were = "was" if number == 1 else "were"
    return Feedback(False, f"for {size_of(exercise, exercise.cases[number])} ({right} {were} right), {verdict.message}",
                    verdict.mistake)


def dimensions(inputs: tuple) -> int | None:
    """How many dimensions a case's first input has (None when it is no tensor)."""
    return inputs[0].dim() if isinstance(inputs[0], torch.Tensor) else None


def hard_coded(exercise: Exercise, failed: int, shapes: list = (), right: list | None = None) -> Feedback:
    """The feedback for an answer that cannot follow the size of its input: wrong for case `failed`, right for the
    cases `right` (case 0 unless given; for case 0, none: its shape, the first of `shapes`, is every case's)."""
    wrong = size_of(exercise, exercise.cases[failed])
    right = [0] if right is None and failed else right
    if right:
        what = f"right for {listed(size_of(exercise, exercise.cases[k]) for k in right)} but wrong for {wrong}"
    else:
        what = f"your result has shape {shapes[0]} whatever the input, even for {wrong}"
    return Feedback(False, f"{what}: does your code hard-code a size (like range(6) or torch.ones(5, 5)), take one "
                           "from another cell (a T or a tril of its own), or remember an earlier answer? Compute "
                           "everything from the input it is given.", HARD_CODED)


def named_raise(exercise: Exercise, later: list) -> Feedback | None:
    """The first of the `later` failures (case number, Feedback, None where it raised) that raised as a named mistake
    raises, or on a line that reduces without keepdim, its message led by its input; None when none did."""
    names = {m.name for m in exercise.mistakes}
    for number, verdict, got in later:
        if got is None and (verdict.mistake in names or KEEPDIM_ADVICE in verdict.message):
            where = size_of(exercise, exercise.cases[number])
            return Feedback(False, f"for {where}, {verdict.message}", verdict.mistake)
    return None


def writes_into_its_input(exercise: Exercise, name: str | None) -> bool:
    """Whether a named mistake of `exercise` is one that writes into its own input (its hint then says so)."""
    for mistake in (m for m in exercise.mistakes if m.name == name):
        given = fresh(exercise.cases[0])
        if not isinstance(outcome(mistake, given), Exception) and not same_inputs(given, exercise.cases[0]):
            return True
    return False


def typed_size_advice(exercise: Exercise, number: int) -> str:
    """What to look for when an answer right for the cases before case `number` raises a size clash or has the wrong
    shape on it: a size typed in, or taken from another cell or the wrong dimension."""
    first = input_names(exercise)[0]
    tensor = torch.is_tensor(exercise.cases[number][0])
    example = f", counting dimensions from the end (T = {first}.shape[-2])" if tensor else ""
    earlier = "size" if number == 1 else "sizes"
    return (f"It was right for the earlier {earlier}: is a size typed in (torch.ones(5, 5), range(6)), taken from "
            "another cell (a T or a tril of its own), or read from the wrong dimension? Take each size from the "
            f"input{example}.")


# ---- A failure no named mistake explains: the causes found by tests of their own -----------------
def unnamed_failure(exercise: Exercise, fn, label: str, number: int, verdict: Feedback, got, shapes) -> Feedback:
    """A first failure that no named mistake explains, told by the first cause found below (else by the case's own
    reason), naming its input when an earlier one was right."""
    inputs = exercise.cases[number]
    # Right for each sequence alone: the batch is mishandled, even where the result has an earlier case's shape
    one_at_a_time = right_one_sequence_at_a_time(exercise, fn, inputs)
    if not one_at_a_time and (replays_earlier(exercise, number, got) or one_shape_for_all(exercise, shapes)):
        return hard_coded(exercise, number, shapes)
    if got is not None and changes_from_call_to_call(fn, inputs, got, exercise.atol):
        return Feedback(False, random_words(label, torch_calls(fn, inputs).names), RANDOM)
    if got is not None and (words := unwritten_rows(as_float(got), answer(exercise, inputs), exercise.atol, dim=0)):
        return after_right_cases(exercise, number, Feedback(False, words))
    if got is not None and (words := sequences_left_out(exercise, inputs, as_float(got))):
        return after_right_cases(exercise, number, Feedback(False, words, HARD_CODED))
    if one_at_a_time:
        batch, x = tuple(inputs[0].shape), input_names(exercise)[0]
        if sequences_mix(fn, inputs, exercise.atol):
            return Feedback(False, f"`{label}` is right for each sequence on its own, but in a batch, {batch}, its "
                                   "sequences read each other: changing only the first sequence changes the last one's "
                                   "result. Does a reshape or view merge the batch with the positions "
                                   f"({x}.reshape(-1, …)), or a sum, mean or softmax run along dim 0? Keep the batch "
                                   "in front, and name the other dimensions counting from the end (transpose(-2, -1), "
                                   "softmax(dim=-1)).", ONE_SEQUENCE)
        words = (f"`{label}` is right for each sequence on its own but not for the batch of {batch[0]} in a {batch} "
                 f"input: count sizes from the end ({x}.shape[-2]; {x}.shape[0] and len({x}) count the batch, not the "
                 "positions), and where you swap dimensions, swap only the last two with transpose(-2, -1) (.T "
                 "reverses every dimension of a batch, and .t(), torch.mm and a 2-D einsum take one matrix only).")
        if MASK_AS_INDEX in verdict.message:  # a cause of its own
            words += f" On the batch, {verdict.message}"
        return Feedback(False, words, ONE_SEQUENCE)
    expected = answer(exercise, inputs)
    same_shape = got is not None and got.shape == expected.shape
    if got is not None and not same_shape and number and verdict.mistake is None:
        verdict = Feedback(False, f"{verdict.message} {typed_size_advice(exercise, number)}")
    # A softmax of its own needs exp: an answer that calls nothing like one takes none
    if same_shape and takes_softmax(exercise, inputs) and not SOFTMAX_LIKE & torch_calls(fn, inputs).names:
        verdict = Feedback(False, f"`{label}` takes no softmax, so its rows are scores, not weights (a row of weights "
                                  "is never negative and sums to 1): mask the future of the scores with "
                                  "float('-inf'), then turn each row into weights with F.softmax(wei, dim=-1), and "
                                  "only then use them.", NO_SOFTMAX)
    elif (same_shape and verdict.mistake is None and "future" not in verdict.message  # words that miss the future
          and not strays_to_infinity(got, expected)  # a change cannot be told through ±∞ and NaN
          and lets_the_future_in(exercise, fn, inputs)):
        verdict = Feedback(False, future_leak_words(exercise, fn, label, inputs), FUTURE_LEAK)
    return after_right_cases(exercise, number, verdict)


def right_one_sequence_at_a_time(exercise: Exercise, fn, inputs: tuple) -> bool:
    """Whether `fn`, wrong for a batched case, is right for each of its sequences alone: the inputs shaped like the
    first up to its last dimension (x, or q and k) are cut along the batch, the others (weights, tables) kept whole."""
    first = inputs[0]
    if not isinstance(first, torch.Tensor) or first.dim() < 3:
        return False
    expected = answer(exercise, inputs)
    for b in range(first.shape[0]):
        one = tuple(x[b] if isinstance(x, torch.Tensor) and x.shape[:-1] == first.shape[:-1] else x
                    for x in fresh(inputs))
        if not same_answer(attempt(fn, *one), expected[b], exercise.atol):
            return False
    return True


def replays_earlier(exercise: Exercise, number: int, got) -> bool:
    """Whether `got`, the answer to case `number`, is an earlier case's answer or has its shape (where the
    shapes of the two answers differ): what an answer remembered, or sized for that case, gives."""
    if got is None or number == 0:
        return False
    got, expected = as_float(got), answer(exercise, exercise.cases[number])
    earlier_answers = (answer(exercise, earlier) for earlier in exercise.cases[:number])
    return any(got.shape == before.shape and (before.shape != expected.shape or close(got, before, exercise.atol))
               for before in earlier_answers)


def one_shape_for_all(exercise: Exercise, shapes: list) -> bool:
    """Whether the learner returned one shape for every case although the answers' shapes differ, with as many
    dimensions as one of the answers (a number, say, comes from a reduction, not a size typed in)."""
    if len(shapes) != len(exercise.cases) or len(set(shapes)) != 1:
        return False
    answers = {tuple(answer(exercise, inputs).shape) for inputs in exercise.cases}
    return len(answers) > 1 and any(len(shape) == len(shapes[0]) for shape in answers)


def changes_from_call_to_call(fn, inputs: tuple, got: torch.Tensor, atol: float, tries: int = 8) -> bool:
    """Whether `fn`, called up to `tries` times more on fresh copies of `inputs`, gives something other than `got`
    (a dropout of 1 % leaves most calls' numbers of a small case alone)."""
    for _ in range(tries):
        again = attempt(fn, *fresh(inputs))
        if isinstance(again, BaseException):
            return False
        if comparable(again) and again.shape == got.shape and not close(as_float(again), as_float(got), atol):
            return True
    return False


def random_words(label: str, names: set[str]) -> str:
    """Why `label`'s result changes from call to call, from the PyTorch functions it calls (`names`): a random step,
    a layer made inside it, entries of torch.empty never written, or else the usual random steps."""
    words = f"`{label}` gives a different result each time it is called on the same input, "
    if "kaiming_uniform_" in names and not RANDOM_STEPS & names:  # how a new nn.Linear draws its weights
        return words + ("so something in it is random: a layer made inside your function (a new nn.Linear starts "
                        "from random weights and, unless given bias=False, a random bias) should not be there: use "
                        "the weights you are given, x @ w.T or F.linear(x, w).")
    if LEFTOVER_MEMORY & names and not (RANDOM_STEPS | RANDOM_FILLS) & names:
        return words + ("so some entries change: torch.empty makes a tensor that holds whatever was left in memory, "
                        "and an entry your code never writes keeps that leftover. Start from torch.zeros, or write "
                        "every entry.")
    return words + ("so something in it is random: a dropout step (F.dropout drops numbers unless told "
                    "training=False) or torch.rand has no place here, and a layer made inside your function should be "
                    "the one you are given.")


def sequences_left_out(exercise: Exercise, inputs: tuple, got: torch.Tensor) -> str | None:
    """Words for a batch's answer that holds the first sequences' right answers and none for the others (a loop over
    range(2) typed in, say); else None."""
    expected = answer(exercise, inputs)
    n = got.shape[0] if got.dim() == expected.dim() >= 3 else None
    if n is None or n >= expected.shape[0] or not same_answer(got, expected[:n], exercise.atol):
        return None
    first = "first sequence" if n == 1 else f"first {n} sequences"
    given = input_names(exercise)[0]
    return (f"your result holds the right answers for the {first} of this batch of {expected.shape[0]} and none for "
            f"the others: does a loop over the batch stop at a number typed in (range({n}))? Count from the input, "
            f"range({given}.shape[0]), or leave the loop out: written with dimensions counted from the end "
            "(transpose(-2, -1), softmax(dim=-1)), each step handles every sequence of a batch at once.")


def sequences_mix(fn, inputs: tuple, atol: float) -> bool:
    """Whether `fn`'s result for the last sequence of a batch changes when only the first sequence changes: a causal
    mask over a batch merged into one long sequence lets each sequence read those before it."""
    first = inputs[0]
    if not torch.is_tensor(first) or first.dim() < 3 or first.shape[0] < 2:
        return False
    changed = fresh(inputs)
    for x in changed:
        if torch.is_tensor(x) and x.shape[:-1] == first.shape[:-1]:
            with torch.no_grad():
                x[0] += torch.randn(x[0].shape, generator=torch.Generator().manual_seed(0)).to(x.device, x.dtype)
    before, after = attempt(fn, *fresh(inputs)), attempt(fn, *changed)
    usable = all(torch.is_tensor(t) and t.dim() >= 1 and len(t) == len(first) for t in (before, after))
    return usable and not close(as_float(before[-1]), as_float(after[-1]), atol)


def takes_softmax(exercise: Exercise, inputs: tuple) -> bool:
    """Whether the exercise's reference takes a softmax on `inputs` (its own, or the fused attention's)."""
    return bool(WEIGHTS_OR_FUSED & torch_calls(exercise.reference, inputs).names)


def lets_the_future_in(exercise: Exercise, fn, inputs: tuple) -> bool:
    """Whether `fn`'s result at some earlier position changes with the last position of the first input, where the
    reference's does not, in an exercise whose answer at position t blends positions 0…t (a head, a block)."""
    reference_last = moved_positions(exercise.reference, inputs, -1, exercise.atol)
    reference_first = moved_positions(exercise.reference, inputs, 0, exercise.atol)
    if reference_last is None or reference_first is None or reference_last[:-1].any() or not reference_first[1:].any():
        return False
    moved = moved_positions(fn, inputs, -1, exercise.atol)
    return moved is not None and bool(moved[:-1].any())


def moved_positions(fn, inputs: tuple, at: int, atol: float) -> torch.Tensor | None:
    """Which positions of `fn`'s result (a bool per position, over the last but one dimension) change when only
    position `at` of the first input changes; None when that cannot be asked: the first input is no sequence of
    positions, a result is not one of the same length (or raises), or two calls on one input differ (a random one)."""
    x = inputs[0]
    if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.dim() >= 2 and x.shape[-2] >= 2):
        return None
    before, again = (attempt(fn, *fresh(inputs)) for _ in range(2))
    after, after_again = (attempt(fn, *with_position_changed(inputs, at)) for _ in range(2))
    usable = all(comparable(t) and t.shape == before.shape for t in (before, again, after, after_again))
    if not usable or before.dim() < 2 or before.shape[-2] != x.shape[-2]:
        return None
    if not (close(as_float(before), as_float(again), atol) and close(as_float(after), as_float(after_again), atol)):
        return None  # a random answer: no change can be told from its noise
    gap = (as_float(after) - as_float(before)).abs().nan_to_num(0.0)  # a NaN in both counts as no change
    return (gap > atol).movedim(-2, 0).flatten(1).any(1)


def with_position_changed(inputs: tuple, at: int) -> tuple:
    """Fresh copies of a case's inputs whose first input has position `at` (…, at, :) moved by a fixed random amount."""
    first, *others = fresh(inputs)
    x = first.detach().clone()
    x[..., at, :] += torch.randn(x[..., at, :].shape, generator=torch.Generator().manual_seed(0)).to(x.device, x.dtype)
    return (x, *others)


def future_leak_words(exercise: Exercise, fn, label: str, inputs: tuple) -> str:
    """The sentence for a result that reads the future, and its likely cause: F.scaled_dot_product_attention given a
    mask (without is_causal=True), when `fn`'s code does that; else the usual causes as questions, about the mask
    and the weights only when it takes a softmax on `inputs`."""
    first = input_names(exercise)[0]
    words = (f"`{label}` lets the future in: changing only the last position of `{first}` changes its result at "
             "earlier positions, yet position t may read positions 0…t alone.")
    if sdpa_given_a_mask(parsed_source(fn)):
        return words + (" F.scaled_dot_product_attention adds a float attn_mask to the scores (a mask of 0s and 1s "
                        "only nudges them) and reads a boolean one as True where a position may look: give it "
                        "is_causal=True instead.")
    if torch_calls(fn, inputs).names & WEIGHTS_OR_FUSED:
        words += (" Is the future masked with float('-inf') before a softmax that runs along each row (dim=-1), and "
                  "are the weights used as they are (wei @ v, not transposed)?")
    return words + (" Does a step take a sum, a mean, a norm or a spread over all positions, read a slice that reaches "
                    "past t, or reshape the batch into one long sequence?")


def sdpa_given_a_mask(tree: ast.AST | None) -> bool:
    """Whether the code in `tree` calls scaled_dot_product_attention with an attn_mask and without is_causal=True."""
    for node in ast.walk(tree) if tree is not None else ():
        name = getattr(node.func, "attr", getattr(node.func, "id", "")) if isinstance(node, ast.Call) else ""
        if name == "scaled_dot_product_attention":
            given = {k.arg: k.value for k in node.keywords}
            causal = isinstance(given.get("is_causal"), ast.Constant) and given["is_causal"].value is True
            if ("attn_mask" in given or len(node.args) > 3) and not causal:
                return True
    return False


def parsed_source(fn) -> ast.AST | None:
    """`fn`'s source as a syntax tree, or None when it cannot be read or parsed (exec, a built-in, or a file edited
    since into something that does not parse)."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except Exception:
        return None


def batch_of_one_problem(exercise: Exercise, fn, label: str) -> str | None:
    """For an exercise with a batched case (a batch of 2 or more): a sentence when `fn`, right on every case, is wrong
    for that case's first sequence kept as a batch of one (a .squeeze() drops its dimension of size 1); else None."""
    inputs = next((c for c in reversed(exercise.cases)
                   if torch.is_tensor(c[0]) and c[0].dim() >= 3 and c[0].shape[0] > 1), None)
    if inputs is None:
        return None
    first = inputs[0]
    one = tuple(x[:1] if torch.is_tensor(x) and x.shape[:-1] == first.shape[:-1] else x for x in fresh(inputs))
    expected = answer(exercise, one)
    got = attempt(fn, *one)
    if isinstance(got, BaseException):
        return (f"`{label}` is right for every case but raises {type(got).__name__} on a batch of one sequence, "
                f"{tuple(one[0].shape)}: {first_line(got)}. Does a step drop the batch's dimension of size 1 "
                "(.squeeze() drops every dimension of size 1)?")
    if same_answer(got, expected, exercise.atol):
        return None
    lead = f"`{label}` is right for every case but not for a batch of one sequence, {tuple(one[0].shape)}: "
    if not torch.is_tensor(got):
        return lead + f"it returns {article(type(got).__name__)} there. Return one tensor for any batch."
    if got.shape != expected.shape:
        squeezed = (" Does a .squeeze() drop the batch's dimension of size 1? Leave it out, or squeeze only the "
                    "dimension you mean." if got.dim() < expected.dim() else "")
        return lead + f"it returns {tuple(got.shape)} where the answer is {tuple(expected.shape)}.{squeezed}"
    return lead + explain_difference(as_float(got), expected, exercise.atol, takes_softmax(exercise, one))


def leftover_case(exercise: Exercise, fn, last: int) -> tuple[int, tuple[int, ...]] | None:
    """The first case, up to `last`, whose result from `fn` depends on torch.empty's leftovers, with the index of one
    such entry; None when there is none, or when `fn` makes no such tensor."""
    if not LEFTOVER_MEMORY & torch_calls(fn, exercise.cases[last]).names:
        return None
    for number in range(last + 1):
        if (entry := leftover_entry(fn, exercise.cases[number])) is not None:
            return number, entry
    return None


def leftover_entry(fn, inputs: tuple) -> tuple[int, ...] | None:
    """The index of an entry of `fn`'s result that comes from torch.empty's leftovers, or None: run with them filled
    with 0, then with 1 (and the same random numbers), such an entry differs."""
    results = []
    for value in (0.0, 1.0):
        with torch.random.fork_rng(devices=[]), FilledEmpty(value):
            torch.manual_seed(0)
            results.append(attempt(fn, *fresh(inputs)))
    if not all(comparable(t) for t in results) or results[0].shape != results[1].shape:
        return None
    zeros, ones = (as_float(t) for t in results)
    differs = (zeros != ones) & ~(zeros.isnan() & ones.isnan())
    return first_index(differs) if differs.any() else None


class FilledEmpty(TorchFunctionMode):
    """While active, fills every tensor that torch.empty or its kin (LEFTOVER_MEMORY) makes with `value`."""

    def __init__(self, value: float):
        super().__init__()
        self.value = value

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if getattr(func, "__name__", "") in LEFTOVER_MEMORY and isinstance(result, torch.Tensor):
            with torch.no_grad():
                result.fill_(self.value)
        return result


def mentions_leftover_memory(fn) -> bool:
    """Whether the source of `fn`, or of a function of its own that it uses (own_functions), names torch.empty or
    its kin (read before a pass, which runs no trace)."""
    trees = (parsed_source(f) for f in own_functions(fn))
    return any(getattr(node, "attr", getattr(node, "id", None)) in LEFTOVER_MEMORY
               for tree in trees if tree is not None for node in ast.walk(tree))


def own_functions(fn, most: int = 20) -> list:
    """`fn`, and the functions written beside it (in its module: a notebook's cells) that it names, theirs in turn, and
    the methods of the classes it names or of the objects it names whose class is written there (`most` at most)."""
    found, todo = [], [fn]
    while todo and len(found) < most:
        f = todo.pop()
        if any(f is seen for seen in found):
            continue
        found.append(f)
        try:
            names = inspect.getclosurevars(f)
        except TypeError:  # not a Python function: a built-in, a partial, a callable object
            continue
        for obj in (*names.globals.values(), *names.nonlocals.values()):
            owner = obj if inspect.isfunction(obj) or inspect.isclass(obj) else type(obj)
            if getattr(owner, "__module__", None) != getattr(fn, "__module__", None):
                continue
            todo += [m for m in vars(owner).values() if inspect.isfunction(m)] if inspect.isclass(owner) else [owner]
    return found


# ---- Watching the answer run: what it calls, and what it gives with its roundings made exact -----
class TorchCalls(TorchFunctionMode):
    """While active, notes in `names` the name of every PyTorch function called (F.softmax and x.softmax as
    "softmax", torch.empty as "empty", a new nn.Linear's first weights as "kaiming_uniform_"), and in
    `masked_weights` whether a mask (masked_fill, where) put ±∞ into what a softmax returned. Nothing is noted while
    a function wrapped by `given` runs (a part handed to the code, whose insides are not the code's own)."""

    def __init__(self):
        super().__init__()
        self.names, self.weights, self.masked_weights, self.inside_given = set(), [], False, 0
        self.stored_fractions = None  # the dtype of a tensor of whole numbers that numbers with fractions went into

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if not self.inside_given:
            self.names.add(name)
            if name in ("masked_fill", "masked_fill_", "where"):
                filled = [*args[1:], *kwargs.values()]  # the fill (masked_fill) or the two sides (where)
                self.masked_weights |= (any(arg is w for arg in filled[:2] + [args[0]] for w in self.weights)
                                        and any(is_infinite(arg) for arg in filled))
            stored = STORED_VALUE.get(name)
            if stored is not None and len(args) > stored and drops_fractions(args[0], args[stored]):
                self.stored_fractions = args[0].dtype
        result = func(*args, **kwargs)
        if name in WEIGHT_MAKERS and not self.inside_given:
            self.weights.append(result)
        return result

    def given(self, part):
        """`part`, a function handed to the code, wrapped so that what it calls inside goes unnoted."""
        if not callable(part) or isinstance(part, (torch.Tensor, torch.nn.Module)):
            return part

        @functools.wraps(part)
        def unnoted(*args, **kwargs):
            self.inside_given += 1
            try:
                return part(*args, **kwargs)
            finally:
                self.inside_given -= 1

        return unnoted


def drops_fractions(target, value) -> bool:
    """Whether storing `value` into the tensor `target` drops fractions: a tensor of whole numbers taking a number, or
    numbers, with a fractional part."""
    whole = isinstance(target, torch.Tensor) and not target.is_floating_point() and target.dtype != torch.bool
    if isinstance(value, torch.Tensor):
        return whole and value.is_floating_point() and bool((value != value.trunc()).any())
    return whole and isinstance(value, float) and not value.is_integer()


def is_infinite(value) -> bool:
    """Whether `value`, a number or a tensor, is or holds ±∞."""
    if isinstance(value, torch.Tensor):
        return value.is_floating_point() and bool(torch.isinf(value).any())
    return isinstance(value, float) and math.isinf(value)


def torch_calls(fn, inputs: tuple) -> TorchCalls:
    """What `fn` itself calls on fresh copies of `inputs` (up to an error), not what functions among the inputs call."""
    seen = TorchCalls()
    with seen:
        attempt(fn, *(seen.given(x) for x in fresh(inputs)))
    return seen


class ExactSteps(TorchFunctionMode):
    """While active, a rounding hands back what it was given, a conversion to half precision keeps float32, and a
    tensor asked for in half precision is made in float32: the code as it would run without losing digits."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if kwargs.get("dtype") in SIGNIFICANT_DIGITS:
            kwargs["dtype"] = torch.float32
        result = func(*args, **kwargs)
        given = args[0] if args and torch.is_tensor(args[0]) else None
        if given is None or not torch.is_tensor(result) or given.shape != result.shape:
            return result
        name = getattr(func, "__name__", "")
        if name in ("round", "round_") and given.is_floating_point():
            return given
        if name in CONVERSIONS and result.dtype in SIGNIFICANT_DIGITS and given.dtype not in SIGNIFICANT_DIGITS:
            return given if given.is_floating_point() else given.to(torch.float32)  # a bool or int mask: float32
        return result


def run_exactly(fn, inputs: tuple):
    """What `fn` returns (or raises) on fresh copies of `inputs`, with roundings and half-precision steps made exact."""
    with ExactSteps():
        return attempt(fn, *fresh(inputs))


# ---- An answer that raised -----------------------------------------------------------------------
COUNT_FROM_THE_END = (  # the advice for an error that a batch dimension, present or absent, caused
    " Your code asks for a dimension this tensor does not have: one sequence's tensors have two dimensions "
    "((T, C), (T, T)), and a batch adds one in front. Count dimensions from the end, so that the code works "
    "for both: x.shape[-2], transpose(-2, -1), sum(-1)."
)
SIZE_CLASHES = (  # what PyTorch says when two sizes that must agree do not
    "must match the size of tensor", "The expanded size of the tensor", "shapes cannot be multiplied",
    "is invalid for input of size",
)
FIXED_DIMENSIONS = (  # what PyTorch says when a call made for a set number of dimensions gets another number
    "must be a 3D tensor", "must be a matrix", "does not match the length of the desired ordering"
)
KEEPDIM_ADVICE = (  # the advice for a size clash on a line that reduces over a dimension without keepdim
    " That line divides or subtracts by a sum, mean or maximum over a dimension, which drops that dimension: one "
    "number per row then lines up with the columns. Keep it with keepdim=True (e.sum(-1, keepdim=True)), so that each "
    "row's number meets its own row."
)
MASK_AS_INDEX = (  # the advice for a boolean mask used as an index on the wrong dimensions
    " A mask used as an index, wei[mask], lines up with the first dimensions of what it indexes, so a (T, T) mask fits "
    "one sequence's (T, T) scores but not a batch's (B, T, T), and wei[:, mask] the other way round. Use "
    "wei.masked_fill(mask, float('-inf')), or index from the end, wei[..., mask]: both work with and without a batch."
)


def explain_raise(exercise: Exercise, inputs: tuple, err: BaseException, label: str, fn, right_before: int) -> Feedback:
    """Feedback for a learner function that raised: the named mistake that raises alike, or the error in words, and the
    line that raised. A size clash after `right_before` right cases is told to look for a size typed in."""
    line, names = raising_line(err, fn)
    where = f" The line that raised: `{line}`." if line else ""
    for mistake in exercise.mistakes:
        alike = on_case(exercise, mistake.wrong, inputs)
        if isinstance(alike, Exception) and type(alike) is type(err) and first_line(alike) == first_line(err):
            return Feedback(False, mistake.hint + where, mistake.name)
    mask_of_other_size = "shape of the mask" in str(err) and not mask_meets_other_dimensions(str(err))
    if right_before and (mask_of_other_size or any(words in str(err) for words in SIZE_CLASHES)):
        advice = " " + typed_size_advice(exercise, right_before)
    else:
        advice = advice_for(err, input_names(exercise)[0], line, names)
    return Feedback(False, f"`{label}` raised {type(err).__name__}: {first_line(err)}.{where}{advice}")


def raising_line(err: BaseException, fn, width: int = 100) -> tuple[str, dict]:
    """The last line of the learner's own code (the cell or file that defined `fn`) that `err` passed through, cut to
    `width` characters, and the names that frame could read; ("", {}) when there is none or it cannot be read."""
    filename = getattr(getattr(fn, "__code__", None), "co_filename", None)
    line, names = "", {}
    for frame, number in traceback.walk_tb(err.__traceback__):
        if frame.f_code.co_filename == filename and linecache.getline(filename, number).strip():
            line, names = linecache.getline(filename, number).strip(), {**frame.f_globals, **frame.f_locals}
    return (line if len(line) <= width else line[: width - 1] + "…"), names


def advice_for(err: BaseException, first_input: str, line: str, names: dict) -> str:
    """A hint for an error with a well-known cause (quoting code with the exercise's first input), or "". `line`, the
    learner's line that raised, and `names`, what its frame held, tell a shape's missing dimension (x.shape[3], or s[3]
    after s = x.shape) from a tuple of the learner's own that is too short."""
    text = str(err)
    kept_shapes = [name for name, value in names.items() if isinstance(value, torch.Size)]
    reads_a_shape = (not line or ".shape" in line or ".size(" in line
                     or any(re.search(rf"\b{re.escape(name)}\s*\[", line) for name in kept_shapes))
    if isinstance(err, IndexError) and ("Dimension out of range" in text
                                        or ("tuple index out of range" in text and reads_a_shape)):
        return COUNT_FROM_THE_END
    if isinstance(err, RuntimeError) and any(words in text for words in FIXED_DIMENSIONS):
        return (COUNT_FROM_THE_END[:-1] + ", and @, which takes one matrix or a batch of them alike (torch.bmm takes "
                "a batch only, torch.mm one matrix only, and permute wants every dimension named).")
    if isinstance(err, ValueError) and reads_a_shape and "not enough values to unpack (expected 3" in text:
        return (" The input here is one sequence, (T, C): two dimensions, no batch in front. Unpack what it has, "
                "T, C = x.shape, or count from the end, T = x.shape[-2].")
    if isinstance(err, ValueError) and reads_a_shape and "too many values to unpack (expected 2" in text:
        return (" The input here has a batch in front, (B, T, C): unpack from the end, T, C = x.shape[-2:], so "
                "that the code works with and without a batch.")
    if "numpy() on Tensor that requires grad" in text:
        return (" The inputs carry a gradient, as a model's do, and a NumPy array carries none (nor would a "
                ".detach()ed copy): the layers before it could not learn. Compute with torch from start to end.")
    if "only one element tensors can be converted to Python scalars" in text:
        return " torch.tensor(...) cannot build one tensor out of a list of tensors: join them with torch.stack(...)."
    if isinstance(err, IndexError):
        if mask_meets_other_dimensions(text) or ("too many indices" in text and indexes_by_mask(line, names)):
            return MASK_AS_INDEX
        if "too many indices for tensor of dimension 1" in text:
            return (" That line gives a tensor of one dimension two indices, [i, j]: was it made with one size "
                    "(torch.zeros(T)) where it needs two (torch.zeros(T, T), or torch.zeros_like(x))?")
        if "too many indices" in text:  # x[b, :, :] on one sequence's (T, C)
            return COUNT_FROM_THE_END
        if "tuple index out of range" in text:
            return " That line asks a tuple of your own for an item past its end: a pair holds items 0 and 1."
        if "out of bounds" in text:
            return (" Your code asks for an item past the end of a dimension (items are counted from 0): does a "
                    "range() or an index assume a size (range(6)), or take its length from the wrong dimension? Take "
                    "sizes from the input, from the dimension that holds the count (print the tensor's .shape to see "
                    "which).")
        return " Does your code assume a size? Take sizes from the input (.shape)."
    if isinstance(err, SystemExit):
        return " sys.exit() and exit() stop the whole program: return your answer instead."
    if "shapes cannot be multiplied" in text or "Expected size for first two dimensions of batch2" in text:
        return (" In a @ b the last dimension of a must equal the last but one of b: is a transpose missing (the "
                "scores are q @ k.transpose(-2, -1)), are the two the wrong way round (the weights come first: "
                "wei @ x, wei @ v), or was a matrix made with a size from the wrong dimension (T × T weights need "
                "T, .shape[-2], not C, .shape[-1])?")
    if "Given normalized_shape" in text:
        return (" normalized_shape is the size of the last dimension, the one each row is standardised over: "
                f"nn.LayerNorm({first_input}.shape[-1]) or F.layer_norm({first_input}, {first_input}.shape[-1:]).")
    if "'function'" in text or "'method'" in text:
        return (" A function stands where a tensor belongs: call it on its input, as in proj(out) or heads(x), "
                "instead of multiplying by it or reading its .weight.")
    if "The expanded size of the tensor" in text:
        return (" Sizes disagree where one tensor is written into, or stretched to the shape of, another: is a size "
                "typed in (torch.zeros(4, 2)), or a whole tensor used where only its first rows belong? Take sizes "
                "from the input.")
    if "must match the size of tensor" in text and drops_a_dimension(line):
        return KEEPDIM_ADVICE
    if "must match the size of tensor" in text:
        return (" Two tensors of different sizes met (entry by entry, in *, /, +, - or masked_fill, or in the batch "
                "dimensions in front of an @'s two matrix dimensions): does your code assume a size, read one from "
                "the wrong dimension, or move a batch dimension? Take sizes from the input and name dimensions "
                "counting from the end (.shape[-2], transpose(-2, -1)). If you meant a matrix product, write @, not *.")
    if "same dtype" in text:
        return (" Two tensors of different dtypes met (float64 and float32, say): compute in float32, as the lesson "
                "does, or convert back with .float() before they meet.")
    if "same device" in text:
        return (" The checker hands your function CPU tensors: make new tensors on the input's device, "
                f"e.g. torch.ones(T, T, device={first_input}.device), not device=device.")
    return ""


def indexes_by_mask(line: str, names: dict) -> bool:
    """Whether an index in `line` is a mask: a comparison, tril or triu, a name holding a bool tensor, or a call of
    the learner's own function named like one (upper, causal, mask); not b, t, :, x.size(-1) or int(j)."""
    for inside in re.findall(r"\w\[([^\]]*)", line):
        if re.search(r"==|!=|<|>|tril|triu|mask|\.bool\(\)", inside):
            return True
        for name in re.findall(r"\b[A-Za-z_]\w*\b", inside):
            value = names.get(name)
            if torch.is_tensor(value) and value.dtype == torch.bool:
                return True
            if inspect.isfunction(value) and re.search(r"mask|upper|lower|causal|future|tri", name, re.I):
                return True
    return False


def drops_a_dimension(line: str) -> bool:
    """Whether `line` reduces over a dimension and drops it: e.sum(-1), torch.sum(e, -1), s.max(-1).values, with no
    keepdim, no second argument and no unsqueeze or [..., None] after it."""
    reduction = r"(?:\.(?:sum|mean|amax|var|std)\(|torch\.(?:sum|mean|amax|var|std)\(\s*\w+\s*,)\s*(?:dim=)?-?\d+\s*\)"
    reductions = re.finditer(rf"(?:{reduction}|\.max\(\s*(?:dim=)?-?\d+\s*\)\.values)", line)
    return any(not re.match(r"\s*(\.unsqueeze|\[)", line[m.end():]) for m in reductions)


def mask_meets_other_dimensions(text: str) -> bool:
    """Whether PyTorch's error says a mask used as an index has another number of dimensions than what it indexes
    ((T, T) on a batch's (B, T, T)), not merely other sizes (an 8 × 8 mask typed in, on 9 × 9 scores)."""
    shapes = re.search(r"shape of the mask \[([^\]]*)\].*?shape of the indexed tensor \[([^\]]*)\]", text)
    return bool(shapes) and shapes[1].count(",") != shapes[2].count(",")


# ---- An answer that is no tensor -----------------------------------------------------------------
def not_a_tensor_like(got, expected: torch.Tensor | None = None, fn=None, label: str = "", atol: float = 0.0):
    """A sentence saying why `got` cannot be compared with the tensor answer `expected` (within `atol`), or None."""
    if not isinstance(got, torch.Tensor):
        kind = type(got).__name__
        if isinstance(got, (list, tuple)):
            return several_items(got, expected, fn, label, atol)
        if kind == "ndarray":  # a tensor turned into NumPy's array on its way out
            return ("return a torch tensor, not an ndarray (NumPy's array): build it with torch (torch.tril, not "
                    "np.tril) and leave out .numpy().")
        return f"return a tensor (like torch.tensor(...)), not {article(kind)}."
    if got.is_nested:
        return "return one ordinary tensor, not a nested tensor: build the whole result in one piece (no torch.nested)."
    if got.is_meta:
        return "your tensor lives on the 'meta' device and holds no numbers: build it from the real input."
    if got.is_complex() or got.dtype == torch.bool:
        return f"return a tensor of real numbers, not of dtype {got.dtype}."
    return None


def comparable(x) -> bool:
    """Whether `x` is a tensor of real numbers that an answer can be compared with (not_a_tensor_like says why not)."""
    return isinstance(x, torch.Tensor) and not not_a_tensor_like(x)


def several_items(got, expected: torch.Tensor, fn, label: str, atol: float) -> str:
    """Why a list or tuple is not the answer, and what to return instead."""
    kind = type(got).__name__
    held = next((i for i, item in enumerate(got) if same_answer(item, expected, atol)), None)
    comma = " (the comma in `return …,` makes one)" if kind == "tuple" else ""
    if held is not None:
        name = returned_name(fn, held)
        what = f"`{name}`" if name else "that tensor"
        if len(got) == 1:
            return (f"`{label}` returns {article(kind)} of one item{comma}, and that item is the right answer: return "
                    f"only {what}.")
        which = ("the first", "the second", "the third")[held] if held < 3 else f"item {held + 1}"
        return (f"`{label}` returns {len(got)} things ({article(kind)}), and {which}{f', {what},' if name else ''} is "
                f"the right answer: return only {what}.")
    tensors = [item for item in got if isinstance(item, torch.Tensor)]
    if len(tensors) == len(got) == 1:
        return f"`{label}` returns {article(kind)} of one tensor{comma}: return the tensor itself."
    if fits := joins(got, expected):  # the join that gives the answer, if one does
        words = next((words for words, joined in fits if same_answer(joined, expected, atol)), fits[0][0])
        return (f"`{label}` returns {len(got)} tensors ({article(kind)}): join them into one tensor of the answer's "
                f"shape with {words}.")
    if tensors:
        return (f"`{label}` returns {len(got)} things ({article(kind)}), and none of them is the right answer: return "
                "your answer alone, one tensor.")
    return f"return a tensor, not {article(kind)}: wrap your numbers in torch.tensor(...) or use torch.stack(...)."


def what_joined_lacks(exercise: Exercise, inputs: tuple, got, fn) -> str:
    """For several tensors that one join alone gives the answer's shape (several_items tells the learner to join
    them), what the joined tensor still gets wrong, " Joined, …" (the list of heads, say: joined, they still need the
    projection); else "". Where two joins fit (a square answer's rows and columns) it cannot tell which was meant."""
    fits = joins(got, answer(exercise, inputs))
    if len(fits) != 1 or len(got) < 2 or not comparable(joined := fits[0][1]):
        return ""
    still = judge_case(exercise, inputs, joined, fn)
    return f" Joined, {still.message}" if still else ""


def joins(got, expected: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
    """For a list or tuple of tensors alike in shape, every torch.stack or torch.cat call that gives them the answer's
    shape, in words ("torch.stack(..., dim=1)"), with what it gives."""
    tensors = list(got) if isinstance(got, (list, tuple)) else []
    if not tensors or not all(isinstance(t, torch.Tensor) and t.shape == tensors[0].shape for t in tensors):
        return []
    last = tensors[0].dim() - 1
    stacked = [(f"torch.stack(..., dim={dim})", torch.stack(tensors, dim)) for dim in range(last + 2)]  # a new one
    joined = [(f"torch.cat(..., dim={-1 if dim == last else dim})", torch.cat(tensors, dim))  # side by side along one
              for dim in range(last + 1)]  # they have (the heads' outputs along the last)
    return [(words, t) for words, t in stacked + joined if t.shape == expected.shape]


def returned_name(fn, index: int) -> str | None:
    """The expression at `index` of the tuple that `fn`'s source returns (e.g. "out" in `return out, wei`)."""
    tree = parsed_source(fn)
    if tree is None:
        return None
    outer = tree.body[0] if isinstance(tree.body[0], ast.FunctionDef) else tree
    inner = {id(node) for helper in ast.walk(outer) if helper is not outer
             and isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)) for node in ast.walk(helper)}
    for node in ast.walk(outer):  # the function's own returns, not those of a helper defined inside it
        returns_tuple = isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple)
        if returns_tuple and id(node) not in inner and index < len(node.value.elts):
            return ast.unparse(node.value.elts[index])
    return None


# ---- The generic words for a wrong tensor --------------------------------------------------------
NAN_GENERAL = (  # what can have made a NaN in any answer, as a question to the learner
    "NaN (not a number), which 0 / 0, ∞ / ∞, ∞ − ∞, 0 × ∞ and the square root or log of a number below 0 give: "
    "does a division divide by 0, or a square root or log get a number below 0?"
)
NAN_CAUSES = (  # ... and in an answer that takes a softmax: the questions about its mask too
    NAN_GENERAL + " With a mask: does each position still see itself (a row that is −∞ everywhere gives NaN), does "
    "the −∞ go on the scores before the softmax (not on the weights after it), is it put in with masked_fill (not "
    "multiplied: 0 × −∞ is NaN), and does it keep its minus sign (+∞ gives NaN)? A softmax written by hand subtracts "
    "each row's largest score first, or e^x overflows to ∞."
)


def explain_difference(got: torch.Tensor, expected: torch.Tensor, atol: float, softmax: bool = True,
                       given: torch.Tensor | None = None) -> str:
    """The generic hint: the first entry that differs by more than `atol`, in words (with digits enough to show
    the difference). A NaN or an infinity there is told its usual causes, those of a mask and a softmax only where
    the answer takes a `softmax`; rows left all 0, or as `given` (the first input) had them, are told so."""
    differs = ~torch.isclose(got, expected, atol=atol, rtol=0, equal_nan=True)
    if not differs.any():
        return ("your result is right within the tolerance but not where it must be exact; compare your steps with "
                "the lesson's.")
    strays = differs & ~torch.isfinite(got) & torch.isfinite(expected)  # told first: no difference can be printed
    index = first_index(strays if strays.any() else differs)
    if torch.isnan(got[index]):
        return f"the shape is right but {entry_words(index)} is {NAN_CAUSES if softmax else NAN_GENERAL}"
    if torch.isinf(got[index]):
        cause = ("a −∞ mask belongs on the scores, before the softmax turns it into a weight of exactly 0; without a "
                 "softmax after it, or put on the weights after the softmax, the −∞ stays in." if softmax
                 else "does a division divide by 0, or a mask fill in ±∞ (this step needs no mask)?")
        return (f"the shape is right but {entry_words(index)} is {fmt(got[index])} where the reference has "
                f"{fmt(expected[index])}: an infinity reached your result: {cause}")
    factor = scaled_by(got, expected)
    if factor is not None:
        return (f"every entry is {fmt(factor)} times the reference's: your steps are right, but something scales the "
                "result (a factor, a division left in or out, or a dropout, which divides what it keeps by 1 − p).")
    if unwritten := unwritten_rows(got, expected, atol, given):
        return unwritten
    yours, reference = fmt_apart(got[index], expected[index])
    gaps = (got - expected).abs().nan_to_num(0.0)
    largest = first_index(gaps == gaps.max())
    far_larger = gaps[largest] > 2 * gaps[index]  # so that a first entry close to right does not look like rounding
    elsewhere = f"; the largest difference is {fmt(gaps[largest])}, at {entry_words(largest)}" if far_larger else ""
    return (f"the shape is right but {entry_words(index)} is {yours} where the reference has {reference}{elsewhere}; "
            "compare your steps with the lesson's.")


def unwritten_rows(got: torch.Tensor, expected: torch.Tensor, atol: float, given: torch.Tensor | None = None,
                   besides: bool = False, dim: int = -2) -> str | None:
    """Words for a result whose every wrong row is all 0, or as `given` (the input it started from) had it, where the
    reference's is not, and some row right: what a loop that skips some leaves. A row runs along `dim`: -2, the
    positions (of every sequence, in a batch), or 0, the sequences of a batch. With `besides`, the rows left all 0 are
    told though other rows are wrong too. None when that is not so."""
    if got.shape != expected.shape or got.dim() < (3 if dim == 0 else 2):
        return None
    noun = "sequence" if dim == 0 else "row" if got.dim() == 2 else "position"
    where = " of the batch" if dim == 0 else ""
    rows, reference = got.movedim(dim, 0).flatten(1), expected.movedim(dim, 0).flatten(1)
    wrong = ~torch.isclose(rows, reference, atol=atol, rtol=0, equal_nan=True).all(1)
    if not wrong.any() or wrong.all():
        return None
    zero = (rows == 0).all(1) & (reference != 0).any(1)
    same_shape = given is not None and given.shape == got.shape
    unchanged = (rows == given.movedim(dim, 0).flatten(1)).all(1) if same_shape else torch.zeros_like(wrong)
    others = ""
    if zero[wrong].all():
        kept = "all 0, as if never written"
    elif unchanged[wrong].all():
        kept = "unchanged from the input"
    elif besides and zero.any():  # a second slip besides: tell the rows left 0, and that it is not all
        wrong, kept, others = zero, "all 0, as if never written", " (other rows are wrong too)"
    else:
        return None
    numbers = wrong.nonzero().flatten().tolist()
    one = len(numbers) == 1
    wrong_ones = f"{noun} {numbers[0]}" if one else f"{noun}s {listed(map(str, numbers))}"
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        wrong_ones = f"{noun}s {numbers[0]}…{numbers[-1]}"
    if others:
        return (f"{wrong_ones}{where} {'is' if one else 'are'} {kept}{others}: does a loop skip "
                f"{'it' if one else 'them'} (range(1, …) starts at 1; a range one short of their number leaves the "
                f"last out)? Loop over all the {noun}s.")
    if numbers == list(range(numbers[0], len(wrong))):  # the last ones: a loop stopped early
        right = f"{noun} 0{where} is" if numbers[0] == 1 else f"{noun}s 0…{numbers[0] - 1}{where} are"
        return (f"{right} right, but {wrong_ones} {'is' if one else 'are'} {kept}: your loop stopped after "
                f"{counted(numbers[0], noun)}. Loop over all the {noun}s (a range one short of their number leaves the "
                "last out).")
    start = " (range(1, …) starts at 1)" if numbers[0] == 0 else ""
    return (f"{wrong_ones}{where} {'is' if one else 'are'} {kept}, and the others are right: does a loop skip "
            f"{'it' if one else 'them'}{start}? Loop over all the {noun}s.")


def scaled_by(got: torch.Tensor, expected: torch.Tensor) -> torch.Tensor | None:
    """The factor c when `got` is `expected` times one positive c that is not 1 (to 0.1 %, over the entries not near
    0), else None: a stray constant of 1.005 or a flipped sign is not a scale."""
    seen = expected.abs() > 1e-3
    ratio = got[seen] / expected[seen]
    factor = ratio[0] if ratio.numel() else torch.tensor(1.0)
    if factor > 0 and abs(factor - 1) > 0.01 and torch.allclose(ratio, factor.expand_as(ratio), rtol=1e-3):
        return factor
    return None


def first_index(mask: torch.Tensor) -> tuple[int, ...]:
    """The index of the first True in a boolean tensor that has one."""
    return tuple(int(i) for i in mask.nonzero()[0])


def entry_words(index: tuple) -> str:
    """An entry's position in words: "entry 3", "entry [0, 2]"."""
    return f"entry {list(index)}" if len(index) != 1 else f"entry {index[0]}"


def fmt(value) -> str:
    """A number as a message should print it: 0.25, 1.5, 2.08, 3, 5e-05 (never a rounded 0.00 for a tiny one)."""
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    if abs(value) < 0.005 or abs(value) >= 1e5:
        return f"{value:.2g}"
    return f"{value:.2f}".rstrip("0").rstrip(".")


def fmt_apart(value, other) -> tuple[str, str]:
    """`value` and `other` printed by fmt, or with more significant digits where fmt would print them alike."""
    value, other = float(value), float(other)
    pair, digits = (fmt(value), fmt(other)), 3
    while pair[0] == pair[1] and value != other and digits <= 17:
        pair, digits = (f"{value:#.{digits}g}", f"{other:#.{digits}g}"), digits + 1
    return pair


# ---- Small pieces --------------------------------------------------------------------------------
def default_device() -> torch.device:
    """The device new tensors go to: torch.get_default_device() from PyTorch 2.3 on, and before it (older versions ran
    the course: README, Supported versions) that of a new empty tensor, which torch.set_default_device also moves."""
    getter = getattr(torch, "get_default_device", None)
    return getter() if getter is not None else torch.empty(0).device


KEPT = {}  # (id of a reference or mistake, id of a case, default dtype and device): (it, the case, its result)
KEPT_AT_MOST = 4096  # all ten exercises need about 600; a module reloaded again and again must not fill memory


def on_case(exercise: Exercise, fn, inputs: tuple):
    """What the reference or named mistake `fn` returns (detached) or raises on fresh copies of `inputs`; kept for the
    exercise's own cases, since one check asks for them hundreds of times. That needs the cases never changed in place
    and `fn` to give the same for the same inputs (see Exercise), under the same default dtype and device, which a
    learner's cell may change (torch.set_default_dtype) and are part of the key. The key's objects are kept with the
    result, so their ids cannot be reused."""
    key = (id(fn), id(inputs), torch.get_default_dtype(), default_device())
    if key not in KEPT:
        got = attempt(fn, *fresh(inputs))
        if isinstance(got, BaseException):
            got = got.with_traceback(None)  # its frames hold the tensors of the run
        elif isinstance(got, torch.Tensor):
            got = got.detach()
        if not any(inputs is case for case in exercise.cases):
            return got
        if len(KEPT) >= KEPT_AT_MOST:
            KEPT.clear()
        KEPT[key] = (fn, inputs, got)
    return KEPT[key][2]


def answer(exercise: Exercise, inputs: tuple) -> torch.Tensor:
    """The reference's answer for one case, as a float64 tensor on the CPU."""
    got = on_case(exercise, exercise.reference, inputs)
    if isinstance(got, BaseException):  # a new error: raising the kept one would hang this run's frames on it
        raise RuntimeError(f"the reference {exercise.name} raised {type(got).__name__}: {first_line(got)}")
    return as_float(got).clone()  # a copy: the kept one must stay as it is


def outcome(mistake: Mistake, given: tuple):
    """What `mistake` returns on the inputs `given`, or the exception it raises."""
    return attempt(mistake.wrong, *given)


def same_answer(x, expected: torch.Tensor, atol: float) -> bool:
    """Whether `x` is a tensor of real numbers (comparable) of `expected`'s shape and values, within `atol`."""
    return comparable(x) and x.shape == expected.shape and close(as_float(x), expected, atol)


def as_float(t: torch.Tensor) -> torch.Tensor:
    """A detached, dense float64 copy on the CPU (integer tensors are compared as numbers)."""
    return t.detach().to_dense().to("cpu", torch.float64)


def close(got: torch.Tensor, expected: torch.Tensor, atol: float) -> bool:
    """Same values within `atol` (NaN only where the other has NaN, ±inf only where the other has it)."""
    return bool(torch.allclose(got, expected, atol=atol, rtol=0, equal_nan=True))


def input_names(exercise: Exercise) -> list[str]:
    """The names the reference gives a case's inputs (every reference is a def that names its inputs)."""
    return list(inspect.signature(exercise.reference).parameters)[:len(exercise.cases[0])]


def size_of(exercise: Exercise, inputs: tuple) -> str:
    """A short description of a case's size, e.g. 'T = 7' or 'a (7, 3) input'."""
    first = inputs[0]
    if isinstance(first, torch.Tensor):
        return f"a {tuple(first.shape)} input"
    return f"{input_names(exercise)[0]} = {first!r}"


def first_line(err: BaseException) -> str:
    """The first line of an exception's message (or 'no message')."""
    try:
        text = str(err).strip()
    except Exception:
        text = ""
    return text.splitlines()[0].rstrip(".") if text else "no message"


def attempt(fn, /, *args, **kwargs):
    """fn(*args, **kwargs), or the exception it raises (exit() too): what the learner's code raises is an answer. What
    it prints is dropped: the learner sees what their function printed on the cases, not on reruns seeking a cause."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return fn(*args, **kwargs)
    except (Exception, SystemExit) as err:
        return err


def fresh(inputs: tuple) -> tuple:
    """A deep copy of a case's inputs, so no call can spoil the next one."""
    return tuple(x.clone() if isinstance(x, torch.Tensor) else copy.deepcopy(x) for x in inputs)


def same_inputs(given: tuple, original: tuple) -> bool:
    """Whether the learner's function left its inputs as they were handed over."""
    for a, b in zip(given, original, strict=True):
        if isinstance(b, torch.Tensor):
            if a.dtype != b.dtype or not torch.equal(a.detach().cpu().nan_to_num(), b.detach().cpu().nan_to_num()):
                return False  # torch.equal also tells a shape changed in place
        elif a != b:
            return False
    return True
