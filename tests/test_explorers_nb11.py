"""Notebook 11's explorer: any layer, any head of a TransformerModel; bad input gets one sentence."""

import pytest
import torch

from helpers.blocks import TransformerModel
from helpers.data import encode
from helpers.explorers.nb11 import explore_layers, layer_weights

pytestmark = pytest.mark.usefixtures("shown_figures")  # explorers' figures are kept, not printed


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return TransformerModel(n_layer=2).eval()


def test_each_layer_and_head_gives_causal_row_stochastic_weights(model, capsys):
    for layer in range(2):
        for head in range(4):
            wei = explore_layers(model, "thou art", layer, head)
            assert wei.shape == (8, 8) and (wei.triu(1) == 0).all()
            torch.testing.assert_close(wei.sum(-1), torch.ones(8))
    assert "layer 1, head 3" in capsys.readouterr().out


def test_layers_read_different_inputs(model):
    first, second = layer_weights(model, encode("thou art"), 0), layer_weights(model, encode("thou art"), 1)
    assert first.shape == second.shape == (4, 8, 8) and not torch.allclose(first, second)


@pytest.mark.parametrize(
    "text, layer, head, phrase",
    [("", 0, 0, "empty"), ("thou art!!", 0, 0, "8 or fewer"), ("thou", 2, 0, "layer is a whole number from 0 to 1"),
     ("thou", 0, 4, "head is a whole number from 0 to 3"), ("thou", True, 0, "layer"), ("thou", 0, 1.5, "head")],
)
def test_bad_input_gets_one_sentence_and_no_picture(model, capsys, text, layer, head, phrase):
    assert explore_layers(model, text, layer, head) is None
    assert phrase in capsys.readouterr().out
