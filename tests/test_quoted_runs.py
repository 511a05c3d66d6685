"""Claims a notebook makes from runs it does not make in its own cells, re-run here (CI's `make test-slow`).

Notebook 11 quotes three such runs for its whys, left out of its cells to keep its run short: that at learning rate
1e-2 the falling rate, not the longer run, closes LayerNorm's gap; that a stack of blocks without residual paths or
LayerNorm can learn at a smaller learning rate; and that the finished model does not overfit yet (so its dropout is
0). Each is re-run here at the notebook's seed, 1337, with the notebook's own models and recipe. Each test prints
its figures: `python -m pytest -s tests/test_quoted_runs.py` shows them.
"""

import ast

import pytest
import torch
import torch.nn as nn

from helpers import counted_bigram
from helpers.blocks import Block, LayerNormModel, ResidualModel, TransformerModel
from helpers.data import VOCAB_SIZE, encode, load_text, train_val_split
from helpers.training import token_losses, train_and_measure
from tests.test_notebook_copies import notebook_definition


@pytest.fixture(scope="module")
def splits():
    """(train_data, val_data), as every notebook makes them."""
    return train_val_split(torch.tensor(encode(load_text()), dtype=torch.long))


def notebook_11_stack():
    """11's own `stack(residual, layer_norm)` (and the PlainBlock it uses), run from the notebook's definitions."""
    namespace = {"Block": Block, "TransformerModel": TransformerModel, "nn": nn}
    for name in ("PlainBlock", "stack"):
        _, node = notebook_definition("11", name)
        exec(compile(ast.Module([node], type_ignores=[]), f"notebook 11's {name}", "exec"), namespace)
    return namespace["stack"]


def layer_norms_gap(splits, **recipe) -> float:
    """Validation loss without LayerNorm minus with it, after `recipe` (below 0: LayerNorm behind)."""
    without = train_and_measure(ResidualModel, *splits, **recipe)[1]
    return without - train_and_measure(LayerNormModel, *splits, **recipe)[1]


@pytest.mark.slow  # eight trainings, about half a minute
def test_11_the_falling_rate_not_the_longer_run_closes_layer_norms_gap(splits):
    constant = layer_norms_gap(splits, steps=500, decay=False)  # the gap 11's cell 28 prints and asserts
    longer = layer_norms_gap(splits, steps=1500, decay=False)
    falling = layer_norms_gap(splits, steps=500, decay=True)
    smaller = layer_norms_gap(splits, steps=500, lr=5.5e-3, decay=False)
    figures = (f"LayerNorm's gap after 500 steps at 1e-2: {constant:.3f}; 1,500 steps: {longer:.3f}; 500 steps "
               f"falling to 1e-3: {falling:.3f}; 500 steps at 5.5e-3: {smaller:.3f}")
    print(figures)
    assert longer > constant / 2, f"three times as many steps at 1e-2 close less than half the gap ({figures})"
    assert falling < 0, f"500 steps falling to 1e-3 put LayerNorm behind ({figures})"
    assert falling < smaller < constant, f"a constant 5.5e-3 closes part of the gap ({figures})"


@pytest.mark.slow  # two trainings of a three-block stack, about 40 s
def test_11_the_stack_with_neither_learns_at_a_smaller_learning_rate(splits):
    train_data, val_data = splits
    bigram = token_losses(counted_bigram(train_data), val_data).mean().item()
    counts = torch.bincount(train_data, minlength=VOCAB_SIZE).float()  # as 11 scores the frequencies' loss
    frequencies = nn.functional.cross_entropy(counts.log().expand(len(val_data), -1), val_data).item()
    neither = notebook_11_stack()(residual=False, layer_norm=False)
    smaller = train_and_measure(neither, *splits, lr=3e-3)[1]
    recipes = train_and_measure(neither, *splits)[1]
    figures = (f"the stack with neither: {smaller:.3f} at 3e-3, {recipes:.3f} at 1e-2; the bigram {bigram:.3f}, "
               f"the frequencies {frequencies:.3f}")
    print(figures)
    assert smaller < bigram - 0.02, f"at 3e-3 it learns, below the bigram ({figures})"
    assert abs(recipes - frequencies) <= 0.01, f"at the recipe's 1e-2 it ends at the frequencies' loss ({figures})"


@pytest.mark.slow  # two trainings of the finished model, about 50 s
def test_11_the_finished_model_does_not_overfit_yet(splits):
    recipe = train_and_measure(TransformerModel, *splits)[1]
    longer = train_and_measure(TransformerModel, *splits, steps=2000)[1]
    print(f"the finished model on the validation text: {recipe:.3f} after 1,500 steps, {longer:.3f} after 2,000")
    assert longer < recipe - 0.005, f"2,000 steps end lower than 1,500: {longer:.3f} against {recipe:.3f}"
