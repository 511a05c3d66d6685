"""A plain training loop with visible progress, and an honest loss estimate.

Both take nothing the model already knows: batches go to the device its parameters live on, in
chunks of its own `block_size`.
"""

import contextlib
import functools
import math
import numbers

import torch
import torch.nn.functional as F

from .data import check_positive_int, consecutive_chunks, get_batch
from .runtime import pick_device, seed_everything


class TrainingError(RuntimeError):
    """Training went wrong in a way the learner can fix, e.g. the loss blew up to NaN."""


def model_device(model) -> torch.device:
    """The device the model's parameters live on (the CPU for a model without parameters)."""
    first = next(model.parameters(), None)
    return torch.device("cpu") if first is None else first.device


@torch.no_grad()
def estimate_loss(model, splits: dict, batch_size: int = 32, eval_iters: int = 200, generator=None) -> dict:
    """Mean loss over `eval_iters` random batches of each named split, e.g. {'train': …, 'val': …}.

    Each batch holds `batch_size` chunks of `model.block_size` characters, on the model's device.
    """
    check_positive_int("eval_iters", eval_iters, "how many batches to average the loss over, e.g. 200")
    device = model_device(model)
    was_training = model.training
    model.eval()
    out = {}
    try:
        for name, data in splits.items():
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                x, y = get_batch(data, model.block_size, batch_size, device, generator)
                _, loss = model(x, y)
                losses[k] = loss.item()
            out[name] = losses.mean().item()
    finally:
        model.train(was_training)
    return out


@torch.no_grad()
def token_losses(model, data):
    """The loss at every character of `data` cut into consecutive chunks: an (n_chunks, block_size) tensor."""
    x, y = consecutive_chunks(data, model.block_size, device=next(model.parameters()).device)
    logits, _ = model(x)  # (n_chunks, block_size, vocab)
    return F.cross_entropy(logits.transpose(1, 2), y, reduction="none").cpu()  # one loss per character


def check_finite(loss: torch.Tensor, step: int, lr: float) -> None:
    """Stop with a TrainingError when the training loss is NaN or infinite."""
    value = loss.item()
    if not math.isfinite(value):
        raise TrainingError(
            f"The training loss became {value} at step {step}: the updates are too big, so the learning rate "
            f"lr={lr:g} is probably too high. Re-create the model and train again with a lower one, "
            f"e.g. lr={lr / 10:g}."
        )


def check_learning_rate(lr) -> None:
    """Raise a ValueError unless `lr` is a positive, finite number (a float or an int, not text)."""
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real) or not math.isfinite(lr) or lr <= 0:
        raise ValueError(
            f"lr must be a positive, finite number (how big each update step is), not {lr!r}: e.g. lr=1e-3."
        )


def adamw(params: list, lr: float, fused: bool) -> torch.optim.AdamW:
    """AdamW for `params`: its fused form if asked for and this PyTorch has one for their device, else foreach.

    foreach: each update step handles all the weights in a few calls, not a few calls per weight: the same numbers
    as the default (tests/test_training.py), sooner on a CPU; on a GPU PyTorch already does it this way. The fused
    form runs on a CPU from PyTorch 2.4 on: before, it is refused there, and foreach is used with a printed note.
    """
    if not fused:
        return torch.optim.AdamW(params, lr=lr, foreach=True)
    try:
        return torch.optim.AdamW(params, lr=lr, fused=True)
    except RuntimeError as error:  # "`fused=True` requires all the params to be … Tensors of supported devices"
        if "fused" not in str(error):
            raise
        say_no_fused_adamw(params[0].device.type)
        return torch.optim.AdamW(params, lr=lr, foreach=True)


@functools.cache  # once per device type: notebooks 10 and 11 train several models
def say_no_fused_adamw(device_type: str) -> None:
    """Print that this PyTorch has no fused AdamW for `device_type`, so `adamw` uses foreach."""
    print(f"PyTorch {torch.__version__} has no fused AdamW for {device_type}: training with foreach AdamW, the same "
          "update rounded differently, so a loss may end up to about 0.01 from the text's.")


def train(
    model,
    train_data,
    val_data,
    *,
    steps: int,
    lr: float,
    batch_size: int = 32,
    eval_interval: int | None = 300,
    eval_iters: int = 200,
    verbose: bool = True,
    generator=None,
    lr_min: float | None = None,
    fused: bool = False,
    batch_losses: list | None = None,
    after_step=None,
) -> list[dict]:
    """Train with AdamW, printing train/val loss every `eval_interval` steps and at the end.

    Each batch holds `batch_size` chunks of `model.block_size` characters, on the model's device.
    Pass a seeded `torch.Generator` as `generator` to make the sampled batches repeatable. A NaN or infinite
    training loss stops training with a TrainingError. With `lr_min`, the learning rate falls from `lr` to
    `lr_min` over the steps along half a cosine (PyTorch's CosineAnnealingLR). Returns the history: one
    {'step', 'train', 'val'} dict per evaluation; with `eval_interval=None` there is none, and no loss is
    estimated or printed. `fused=True` asks AdamW for its fused form: one routine updates all of a weight's
    numbers in one pass, sooner on a CPU, rounding a little differently from the default (see `adamw` for a PyTorch
    without it). Pass a list as `batch_losses` to have each step's training-batch loss appended to it (a float per
    step), and a function as `after_step` to have it called with the optimiser after each update, its gradients
    still in place (notebook 07 reads AdamW's averages this way).
    """
    check_positive_int("steps", steps, "how many optimisation steps to take")
    check_learning_rate(lr)
    if eval_interval is not None:
        check_positive_int("eval_interval", eval_interval, "how many steps between two loss reports, e.g. 300")
    check_positive_int("eval_iters", eval_iters, "how many batches to average the loss over, e.g. 200")
    device = model_device(model)
    optimizer = adamw(list(model.parameters()), lr, fused)
    schedule = None if lr_min is None else torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps, lr_min)
    history = []
    for step in range(steps + 1):
        if eval_interval is not None and (step % eval_interval == 0 or step == steps):
            losses = estimate_loss(model, {"train": train_data, "val": val_data}, batch_size, eval_iters, generator)
            history.append({"step": step, **losses})
            if verbose:
                print(f"step {step:5d}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if step == steps:
            break
        xb, yb = get_batch(train_data, model.block_size, batch_size, device, generator)
        _, loss = model(xb, yb)
        check_finite(loss, step, lr)
        if batch_losses is not None:
            batch_losses.append(loss.item())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if after_step is not None:
            after_step(optimizer)
        if schedule is not None:
            schedule.step()
    return history


@contextlib.contextmanager
def cpu_threads(n: int):
    """Run the `with` block with PyTorch using `n` CPU threads, then give back the count it had before.

    For tiny models more threads gain little, and they can lose a lot when other programs share the cores
    (notebook 09 says what was seen). A GPU's own work is not affected.
    """
    check_positive_int("n", n, "how many CPU threads PyTorch may use, e.g. 1")
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def train_and_measure(make, train_data, val_data, steps=1500, lr=1e-2, decay=True, seed=1337, batch_losses=None,
                      batch_size=64):
    """Notebooks 10 and 11's one recipe: build `make()` from a fixed seed, train it, measure it on all of val_data.

    Batches of `batch_size` chunks (64); AdamW (fused) at `lr`, which (with `decay`) falls to lr / 10 along a cosine;
    no loss is estimated along the way, but each batch's training loss is appended to the list `batch_losses` when
    one is given.
    Returns (the trained model, in eval mode, on the course's device; its loss on the whole validation text, by
    token_losses).
    """
    seed_everything(seed)
    model = make().to(pick_device(verbose=False))
    with cpu_threads(1):  # one CPU thread for the training only, as in notebook 09
        train(model, train_data, val_data, steps=steps, lr=lr, lr_min=lr / 10 if decay else None,
              batch_size=batch_size, eval_interval=None, fused=True, batch_losses=batch_losses)
    model.eval()
    return model, token_losses(model, val_data).mean().item()
