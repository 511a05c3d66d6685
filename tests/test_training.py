"""The training loop and the loss estimate."""

import pytest
import torch

from helpers.models import BigramLanguageModel
from helpers.training import estimate_loss, train


def test_estimate_loss_reports_each_split_and_restores_training_mode():
    torch.manual_seed(0)
    model = BigramLanguageModel()
    model.train()
    data = torch.randint(0, 65, (200,))
    losses = estimate_loss(model, {"train": data, "val": data}, block_size=8, batch_size=4, eval_iters=5)
    assert set(losses) == {"train", "val"} and all(v > 0 for v in losses.values())
    assert model.training


def test_train_learns_a_pattern_and_shows_progress(capsys):
    torch.manual_seed(0)
    data = torch.tensor([0, 1, 2, 3] * 100)  # every character has one certain successor
    history = train(BigramLanguageModel(), data, data, steps=200, lr=0.1, block_size=8, batch_size=8,
                    eval_interval=100, eval_iters=5)
    assert [h["step"] for h in history] == [0, 100, 200]
    assert history[-1]["val"] < 0.1 < history[0]["val"]
    printed = capsys.readouterr().out
    assert "step     0: train loss" in printed and "step   200:" in printed


def test_train_rejects_zero_steps():
    with pytest.raises(ValueError, match="at least 1"):
        train(BigramLanguageModel(), torch.arange(20), torch.arange(20), steps=0, lr=0.1, block_size=4)
