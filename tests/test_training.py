"""The training loop and the loss estimate."""

import pytest
import torch

from helpers.models import BigramLanguageModel
from helpers.training import TrainingError, estimate_loss, resolve_device, same_device, train


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


def small_run(**overrides):
    """Keyword arguments for a tiny, fast train() call, with `overrides` applied."""
    data = torch.tensor([0, 1, 2, 3] * 25)
    return {"train_data": data, "val_data": data, "steps": 4, "lr": 0.1, "block_size": 4, "batch_size": 2,
            "eval_interval": 2, "eval_iters": 2, "verbose": False, **overrides}


@pytest.mark.parametrize("name", ["eval_interval", "eval_iters", "steps"])
@pytest.mark.parametrize("bad", [0, -3, 1.5])
def test_train_rejects_intervals_and_counts_below_one(name, bad):
    with pytest.raises(ValueError, match=f"{name} must be a whole number of at least 1"):
        train(BigramLanguageModel(), **small_run(**{name: bad}))


def test_estimate_loss_rejects_zero_eval_iters():
    data = torch.arange(20)
    with pytest.raises(ValueError, match="eval_iters must be a whole number of at least 1"):
        estimate_loss(BigramLanguageModel(), {"val": data}, block_size=4, batch_size=2, eval_iters=0)


def test_a_loss_that_blows_up_stops_training_naming_the_step_and_a_lower_learning_rate():
    torch.manual_seed(0)
    with pytest.raises(TrainingError, match=r"at step 1: .*lr=inf is probably too high") as err:
        train(BigramLanguageModel(), **small_run(lr=float("inf")))
    assert "lower" in str(err.value)
    assert issubclass(TrainingError, RuntimeError)


def test_device_defaults_to_the_models_own():
    model = BigramLanguageModel()
    assert resolve_device(model) == torch.device("cpu")
    assert resolve_device(BigramLanguageModel().to("meta")) == torch.device("meta")
    history = train(model, **small_run())  # no device given: the model's CPU is used
    assert [h["step"] for h in history] == [0, 2, 4]


@pytest.mark.parametrize("call", ["train", "estimate_loss"])
def test_a_device_that_differs_from_the_models_is_refused(call):
    model = BigramLanguageModel().to("meta")  # stands in for a model on the GPU, with no GPU needed
    with pytest.raises(ValueError, match=r"model's parameters are on meta but device='cpu'.*model.to\(device\)"):
        if call == "train":
            train(model, **small_run(device="cpu"))
        else:
            estimate_loss(model, {"val": torch.arange(20)}, block_size=4, batch_size=2, device="cpu")


def test_cuda_and_cuda_0_name_the_same_device():
    assert same_device(torch.device("cuda"), torch.device("cuda:0"))
    assert not same_device(torch.device("cuda:1"), torch.device("cuda:0"))
    assert not same_device(torch.device("cpu"), torch.device("cuda"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_model_on_the_gpu_trains_on_the_gpu_without_being_told():
    history = train(BigramLanguageModel().to("cuda"), **small_run())
    assert len(history) == 3
    with pytest.raises(ValueError, match="different device"):
        train(BigramLanguageModel().to("cuda"), **small_run(device="cpu"))


def test_a_seeded_generator_makes_training_repeatable():
    def run(global_seed):
        torch.manual_seed(0)
        model = BigramLanguageModel()
        torch.manual_seed(global_seed)  # only the generator picks the batches, not the global state
        return train(model, **small_run(generator=torch.Generator().manual_seed(7)))

    assert run(1) == run(2)
