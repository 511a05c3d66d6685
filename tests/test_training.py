"""The training loop and the loss estimate."""

import pytest
import torch

from helpers.models import BigramLanguageModel, OneHeadModel
from helpers.training import TrainingError, cpu_threads, estimate_loss, model_device, say_no_fused_adamw, train


def test_estimate_loss_reports_each_split_and_restores_training_mode():
    torch.manual_seed(0)
    model = BigramLanguageModel()
    model.train()
    data = torch.randint(0, 65, (200,))
    losses = estimate_loss(model, {"train": data, "val": data}, batch_size=4, eval_iters=5)
    assert set(losses) == {"train", "val"} and all(v > 0 for v in losses.values())
    assert model.training


def test_train_learns_a_pattern_and_shows_progress(capsys):
    torch.manual_seed(0)
    data = torch.tensor([0, 1, 2, 3] * 100)  # every character has one certain successor
    history = train(BigramLanguageModel(), data, data, steps=200, lr=0.1, batch_size=8, eval_interval=100,
                    eval_iters=5)
    assert [h["step"] for h in history] == [0, 100, 200]
    assert history[-1]["val"] < 0.1 < history[0]["val"]
    printed = capsys.readouterr().out
    assert "step     0: train loss" in printed and "step   200:" in printed


def test_train_rejects_zero_steps():
    with pytest.raises(ValueError, match="at least 1"):
        train(BigramLanguageModel(block_size=4), torch.arange(20), torch.arange(20), steps=0, lr=0.1)


def small_run(**overrides):
    """Keyword arguments for a tiny, fast train() call, with `overrides` applied."""
    data = torch.tensor([0, 1, 2, 3] * 25)
    return {"train_data": data, "val_data": data, "steps": 4, "lr": 0.1, "batch_size": 2, "eval_interval": 2,
            "eval_iters": 2, "verbose": False, **overrides}


@pytest.mark.parametrize("name", ["eval_interval", "eval_iters", "steps"])
@pytest.mark.parametrize("bad", [0, -3, 1.5])
def test_train_rejects_intervals_and_counts_below_one(name, bad):
    with pytest.raises(ValueError, match=f"{name} must be a whole number of at least 1"):
        train(BigramLanguageModel(), **small_run(**{name: bad}))


def test_estimate_loss_rejects_zero_eval_iters():
    data = torch.arange(20)
    with pytest.raises(ValueError, match="eval_iters must be a whole number of at least 1"):
        estimate_loss(BigramLanguageModel(block_size=4), {"val": data}, batch_size=2, eval_iters=0)


def test_a_loss_that_blows_up_stops_training_naming_the_step_and_a_lower_learning_rate():
    torch.manual_seed(0)
    with pytest.raises(TrainingError, match=r"at step 2: .*lr=1e\+30 is probably too high") as err:
        train(BigramLanguageModel(), **small_run(lr=1e30))
    assert "e.g. lr=1e+29" in str(err.value)


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), 0, -0.1, "0.01", True, None])
def test_train_refuses_a_learning_rate_that_is_not_a_positive_finite_number(bad):
    with pytest.raises(ValueError, match=r"lr must be a positive, finite number .*e\.g\. lr=1e-3") as err:
        train(BigramLanguageModel(), **small_run(lr=bad))
    assert "lr=inf" not in str(err.value), "never suggest an infinite learning rate"
    assert issubclass(TrainingError, RuntimeError)


def test_batches_go_to_the_models_own_device():
    model = BigramLanguageModel()
    assert model_device(model) == torch.device("cpu")
    assert model_device(BigramLanguageModel().to("meta")) == torch.device("meta")
    history = train(model, **small_run())
    assert [h["step"] for h in history] == [0, 2, 4]


class _Recording(OneHeadModel):
    """A one-head model that records the shape of every batch it is handed."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.shapes = set()

    def forward(self, idx, targets=None):
        self.shapes.add(tuple(idx.shape))
        return super().forward(idx, targets)


@pytest.mark.parametrize("block_size", [3, 5])
def test_chunks_are_as_long_as_the_models_own_block_size(block_size):
    """Nothing to pass and nothing to disagree: train and estimate_loss read block_size off the model."""
    model = _Recording(n_embd=8, head_size=8, block_size=block_size)
    train(model, **small_run())
    estimate_loss(model, {"val": torch.arange(40) % 4}, batch_size=3, eval_iters=2)
    assert model.shapes == {(2, block_size), (3, block_size)}


@pytest.mark.parametrize("call", ["train", "estimate_loss"])
@pytest.mark.parametrize("argument", ["device", "block_size"])
def test_what_the_model_already_knows_is_not_an_argument(call, argument):
    model = BigramLanguageModel()
    with pytest.raises(TypeError, match=argument):
        if call == "train":
            train(model, **small_run(**{argument: 8 if argument == "block_size" else "cpu"}))
        else:
            estimate_loss(model, {"val": torch.arange(20)}, **{argument: 8 if argument == "block_size" else "cpu"})


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_model_on_the_gpu_trains_on_the_gpu_without_being_told():
    history = train(BigramLanguageModel().to("cuda"), **small_run())
    assert len(history) == 3


@pytest.fixture
def two_threads():
    """PyTorch on two CPU threads for the test (the suite runs on one), then as it was."""
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


def test_cpu_threads_sets_the_count_inside_the_block_only(two_threads):
    with cpu_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 2
    with pytest.raises(RuntimeError), cpu_threads(1):
        raise RuntimeError("training failed")
    assert torch.get_num_threads() == 2  # given back even when the block fails
    with pytest.raises(ValueError, match="n must be a whole number of at least 1"), cpu_threads(0):
        pass
    assert torch.get_num_threads() == 2


def test_a_seeded_generator_makes_training_repeatable():
    def run(global_seed):
        torch.manual_seed(0)
        model = BigramLanguageModel()
        torch.manual_seed(global_seed)  # only the generator picks the batches, not the global state
        return train(model, **small_run(generator=torch.Generator().manual_seed(7)))

    assert run(1) == run(2)


def test_token_losses_gives_one_loss_per_character_of_consecutive_chunks():
    from helpers.training import token_losses

    torch.manual_seed(0)
    model = BigramLanguageModel(vocab_size=5, block_size=4)
    data = torch.randint(5, (4 * 6 + 3,))  # six whole chunks of 4 (each needs one more character for its target)
    losses = token_losses(model, data)
    assert losses.shape == (6, 4) and losses.device.type == "cpu"
    x, y = data[:24].view(6, 4), data[1:25].view(6, 4)
    torch.testing.assert_close(losses.mean(), model(x, y)[1].detach())  # the mean is the model's own loss
    logits = model(x)[0].detach()
    torch.testing.assert_close(losses[2, 3], torch.nn.functional.cross_entropy(logits[2, 3], y[2, 3]))


def test_train_updates_the_weights_exactly_as_plain_adamw_would(monkeypatch):
    # train() asks AdamW for its foreach form (fewer calls per step); the weights must come out bit for bit the
    # same as with the one-weight-at-a-time form, so that no trained figure in the notebooks moves.
    real, asked = torch.optim.AdamW, []

    def trained(foreach):
        def adamw(params, lr, **options):
            asked.append(options)
            return real(params, lr=lr, foreach=foreach)

        monkeypatch.setattr(torch.optim, "AdamW", adamw)
        torch.manual_seed(0)
        model = OneHeadModel(n_embd=16, block_size=8, head_size=16)
        train(model, torch.randint(0, 65, (500,)), torch.randint(0, 65, (100,)), steps=30, lr=1e-2, lr_min=1e-3,
              batch_size=8, eval_interval=10, eval_iters=2, verbose=False)
        return [p.detach().clone() for p in model.parameters()]

    assert all(torch.equal(a, b) for a, b in zip(trained(True), trained(False), strict=True))
    assert asked == [{"foreach": True}] * 2, "train() asks AdamW for foreach=True"


def test_without_an_eval_interval_train_estimates_no_loss_and_prints_nothing(monkeypatch, capsys):
    # Notebooks 10 and 11's recipe trains this way: no estimate is made (none would be shown), only the steps.
    def no_estimates(*args, **kwargs):
        raise AssertionError("estimate_loss was called")

    monkeypatch.setattr("helpers.training.estimate_loss", no_estimates)
    torch.manual_seed(0)
    model = BigramLanguageModel()
    before = model.token_embedding_table.weight.detach().clone()
    history = train(model, **small_run(eval_interval=None, verbose=True))
    assert history == [] and capsys.readouterr().out == ""
    assert not torch.equal(model.token_embedding_table.weight, before), "it still trained"


def test_batch_losses_get_each_steps_training_loss_and_change_nothing():
    from helpers.data import get_batch

    def trained(batch_losses=None):
        torch.manual_seed(0)
        model = BigramLanguageModel(block_size=4)
        train(model, **small_run(eval_interval=None, generator=torch.Generator().manual_seed(7),
                                 batch_losses=batch_losses))
        return model.token_embedding_table.weight.detach()

    kept = []
    assert torch.equal(trained(kept), trained()), "keeping the losses does not change the training"
    torch.manual_seed(0)
    x, y = get_batch(small_run()["train_data"], 4, 2, generator=torch.Generator().manual_seed(7))
    assert len(kept) == 4 and kept[0] == BigramLanguageModel(block_size=4)(x, y)[1].item(), "the first batch's loss"


def test_after_step_sees_the_optimiser_after_each_update_with_its_gradients():
    model, seen = BigramLanguageModel(block_size=4), []

    def after_step(optimizer):
        weight = model.token_embedding_table.weight
        seen.append((optimizer, int(optimizer.state[weight]["step"]), weight.grad is not None))

    train(model, **small_run(eval_interval=None, after_step=after_step))
    assert [step for _, step, _ in seen] == [1, 2, 3, 4], "called once per update, after it"
    assert all(isinstance(opt, torch.optim.AdamW) and has_grad for opt, _, has_grad in seen), "AdamW, gradients kept"


def test_train_and_measure_hands_the_batch_losses_on():
    from helpers.training import train_and_measure

    data = torch.tensor([0, 1, 2, 3] * 50)
    kept = []
    model, loss = train_and_measure(lambda: BigramLanguageModel(block_size=4), data, data, steps=3, batch_losses=kept)
    assert len(kept) == 3 and all(value > 0 for value in kept) and loss > 0 and not model.training


def fused_adamw_on_the_cpu() -> bool:
    """Whether this PyTorch has AdamW's fused form for the CPU (from 2.4 on)."""
    try:
        torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))], fused=True)
    except RuntimeError:
        return False
    return True


@pytest.mark.skipif(not fused_adamw_on_the_cpu(), reason="this PyTorch has no fused AdamW for the CPU (before 2.4)")
def test_fused_adamw_trains_to_nearly_the_same_weights_as_the_default():
    # fused=True is AdamW's one-routine form: the same update, rounded a little differently, so close but not equal.
    def trained(**options):
        torch.manual_seed(0)
        model = OneHeadModel(n_embd=16, block_size=8, head_size=16)
        train(model, torch.randint(0, 65, (500,)), torch.randint(0, 65, (100,)), steps=30, lr=1e-2, lr_min=1e-3,
              batch_size=8, eval_interval=None, generator=torch.Generator().manual_seed(1), **options)
        return torch.cat([p.detach().flatten() for p in model.parameters()])

    default, fused = trained(), trained(fused=True)
    torch.testing.assert_close(fused, default, atol=1e-4, rtol=0)
    assert not torch.equal(fused, default), "fused=True must reach AdamW: it rounds differently from the default"


def test_a_pytorch_without_a_fused_adamw_for_the_device_trains_with_foreach_and_says_so(monkeypatch, capsys):
    # Before PyTorch 2.4 AdamW refused fused=True on a CPU (notebooks 10 and 11 ask for it): train on, with foreach.
    real, asked = torch.optim.AdamW, []

    def adamw_before_2_4(params, lr, **options):
        asked.append(options)
        if options.get("fused"):
            raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported "
                               "devices: ['cuda', 'xpu', 'privateuseone'].")
        return real(params, lr=lr, **options)

    monkeypatch.setattr(torch.optim, "AdamW", adamw_before_2_4)
    say_no_fused_adamw.cache_clear()  # again at the end: what this test said is not for the tests after it
    torch.manual_seed(0)
    model = OneHeadModel(n_embd=16, block_size=8, head_size=16)
    before = [p.detach().clone() for p in model.parameters()]
    for _ in range(2):  # as notebook 10 trains one model after another
        train(model, torch.randint(0, 65, (500,)), torch.randint(0, 65, (100,)), steps=3, lr=1e-2, batch_size=8,
              eval_interval=None, fused=True)
    assert asked == [{"fused": True}, {"foreach": True}] * 2, "asked for fused, then foreach"
    assert not any(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True)), "it trained"
    said = capsys.readouterr().out
    say_no_fused_adamw.cache_clear()
    assert said.count("no fused AdamW for cpu") == 1 and "foreach" in said, f"said once: {said}"


def test_an_adamw_error_that_is_not_about_the_fused_form_is_not_taken_for_one(monkeypatch):
    def adamw_with_another_error(params, lr, **options):
        raise RuntimeError("some other trouble with these parameters")

    monkeypatch.setattr(torch.optim, "AdamW", adamw_with_another_error)
    model = OneHeadModel(n_embd=16, block_size=8, head_size=16)
    with pytest.raises(RuntimeError, match="some other trouble"):
        train(model, torch.randint(0, 65, (500,)), torch.randint(0, 65, (100,)), steps=1, lr=1e-2, batch_size=8,
              eval_interval=None, fused=True)
