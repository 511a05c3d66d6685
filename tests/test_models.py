"""The models: shapes, losses, parameter counts, positions, sampling."""

import math

import pytest
import torch

from helpers.data import encode
from helpers.diffing import changed_lines
from helpers.models import (
    BigramLanguageModel,
    CharLanguageModel,
    OneHeadModel,
    PositionalBigramModel,
    SplitBigramModel,
    count_parameters,
)


@pytest.mark.parametrize("make", [BigramLanguageModel, SplitBigramModel])
def test_forward_returns_logits_and_loss(make):
    torch.manual_seed(0)
    model = make()
    idx = torch.randint(0, 65, (4, 8))
    logits, loss = model(idx)
    assert logits.shape == (4, 8, 65) and loss is None
    _, loss = model(idx, torch.randint(0, 65, (4, 8)))
    assert loss.ndim == 0 and math.isfinite(loss.item())


def test_both_models_have_4225_parameters():
    assert count_parameters(BigramLanguageModel()) == 65 * 65 == 4225
    assert count_parameters(SplitBigramModel(n_embd=32)) == 65 * 32 + 32 * 65 + 65 == 4225


def test_bigram_gives_hou_you_thou_the_same_last_logits():
    torch.manual_seed(0)
    model = BigramLanguageModel()
    last = [model(torch.tensor([encode(w)]))[0][0, -1] for w in ("hou", "you", "thou")]
    assert torch.equal(last[0], last[1]) and torch.equal(last[0], last[2])


def test_split_model_starts_nearer_ln65_than_the_bigram():
    torch.manual_seed(0)
    idx, targets = torch.randint(0, 65, (64, 8)), torch.randint(0, 65, (64, 8))
    bigram_loss = BigramLanguageModel()(idx, targets)[1].item()
    split_loss = SplitBigramModel()(idx, targets)[1].item()
    assert abs(split_loss - math.log(65)) < abs(bigram_loss - math.log(65))


@pytest.mark.parametrize("make", [BigramLanguageModel, SplitBigramModel])
def test_generate_appends_valid_characters(make):
    torch.manual_seed(0)
    out = make().generate(torch.zeros((2, 1), dtype=torch.long), max_new_tokens=10)
    assert out.shape == (2, 11) and out.min() >= 0 and out.max() < 65


class _Windowed(CharLanguageModel):
    """A model that records how long a context it is shown."""

    def __init__(self):
        super().__init__(block_size=4)
        self.seen = []
        self.table = torch.nn.Embedding(65, 65)

    def forward(self, idx, targets=None):
        self.seen.append(idx.shape[1])
        logits = self.table(idx)
        return logits, self.loss_for(logits, targets)


def test_generate_crops_the_context_to_block_size():
    model = _Windowed()
    model.generate(torch.zeros((1, 3), dtype=torch.long), max_new_tokens=6)
    assert model.seen == [3, 4, 4, 4, 4, 4]


@pytest.mark.parametrize("bad", [-5, 2.5, "10"])
def test_generate_refuses_a_count_of_new_characters_that_is_not_a_whole_number_from_0(bad):
    with pytest.raises(ValueError, match=f"max_new_tokens must be a whole number of at least 0 .*not {bad!r}"):
        BigramLanguageModel().generate(torch.zeros((1, 1), dtype=torch.long), max_new_tokens=bad)


def test_generate_with_no_new_characters_returns_the_context():
    context = torch.zeros((1, 3), dtype=torch.long)
    assert torch.equal(BigramLanguageModel().generate(context, max_new_tokens=0), context)


@pytest.mark.parametrize("make", [BigramLanguageModel, SplitBigramModel, PositionalBigramModel, OneHeadModel])
@pytest.mark.parametrize("bad", [65, -1])
def test_every_model_names_a_character_id_outside_its_vocabulary(make, bad):
    idx = torch.tensor([[0, 1, bad]])
    with pytest.raises(ValueError, match=f"Character id {bad} is outside this model's vocabulary of 65 .*encode"):
        make()(idx)


@pytest.mark.parametrize("make", [BigramLanguageModel, OneHeadModel])
def test_every_model_refuses_an_empty_batch_instead_of_a_nan_loss(make):
    empty = torch.zeros((0, 5), dtype=torch.long)
    with pytest.raises(ValueError, match=r"The batch is empty \(shape \(0, 5\)\)"):
        make()(empty, empty)


def test_generate_rejects_an_empty_context():
    with pytest.raises(ValueError, match="T >= 1"):
        BigramLanguageModel().generate(torch.zeros((1, 0), dtype=torch.long), max_new_tokens=1)


def test_the_loss_accepts_targets_sliced_out_of_a_larger_tensor():
    data = torch.randint(0, 65, (4, 9))
    x, y = data[:, :-1], data[:, 1:]  # y is a view that is not contiguous in memory
    assert not y.is_contiguous()
    _, loss = BigramLanguageModel()(x, y)
    assert torch.isfinite(loss)


def test_generate_repeats_itself_with_a_seeded_generator():
    model = BigramLanguageModel()
    start = torch.zeros((1, 1), dtype=torch.long)
    runs = [model.generate(start, 20, generator=torch.Generator().manual_seed(7)) for _ in range(2)]
    assert torch.equal(runs[0], runs[1]) and runs[0].shape == (1, 21)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_generate_on_a_gpu_takes_a_cpu_or_a_gpu_generator():
    model = BigramLanguageModel().to("cuda")
    start = torch.zeros((1, 1), dtype=torch.long, device="cuda")
    for generator in (torch.Generator().manual_seed(7), torch.Generator(device="cuda").manual_seed(7)):
        out = model.generate(start, 5, generator=generator)
        assert out.device.type == "cuda" and out.shape == (1, 6)


@pytest.mark.parametrize("make", [BigramLanguageModel, SplitBigramModel, PositionalBigramModel, OneHeadModel])
def test_every_model_knows_its_block_size(make):
    assert make().block_size == 8 and make(block_size=5).block_size == 5


@pytest.mark.parametrize("make", [PositionalBigramModel, OneHeadModel])
def test_a_model_with_a_position_table_refuses_a_longer_context_in_plain_words(make):
    model = make(block_size=8)
    logits, _ = model(torch.zeros((2, 8), dtype=torch.long))
    assert logits.shape == (2, 8, 65)
    with pytest.raises(ValueError, match=r"positions 0…7 only.*T=9.*crop it to its last 8"):
        model(torch.zeros((1, 9), dtype=torch.long))


def test_the_one_head_model_is_the_positional_model_with_one_line_added():
    added_line = "x = self.sa_head(x)  # (B, T, head_size)"
    assert changed_lines(PositionalBigramModel.forward, OneHeadModel.forward) == ([], [added_line])
    assert changed_lines(SplitBigramModel.forward, PositionalBigramModel.forward)[1] == [
        "x = self.token_embedding_table(idx) + self.position_embedding_table(self.positions(idx))  # (B, T, C)"
    ]


def test_the_one_head_model_builds_each_layer_once_in_reading_order():
    """A flat class: every layer it builds is used, none is built and replaced (notebook 09 counts them)."""
    model = OneHeadModel(n_embd=32, block_size=8, head_size=32)
    assert [name for name, _ in model.named_children()] == [
        "token_embedding_table", "position_embedding_table", "sa_head", "lm_head"
    ]
    torch.manual_seed(0)
    OneHeadModel()
    after_one_model = torch.rand(1)
    torch.manual_seed(0)
    for size in [(65, 32), (8, 32)]:
        torch.nn.Embedding(*size)
    for _ in range(3):
        torch.nn.Linear(32, 32, bias=False)
    torch.nn.Linear(32, 65)
    assert torch.equal(torch.rand(1), after_one_model)  # no random numbers drawn for a layer thrown away
