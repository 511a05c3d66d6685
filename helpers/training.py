"""A plain training loop with visible progress, and an honest loss estimate."""

import math

import torch

from .data import check_positive_int, get_batch


class TrainingError(RuntimeError):
    """Training went wrong in a way the learner can fix, e.g. the loss blew up to NaN."""


def model_device(model) -> torch.device:
    """The device the model's parameters live on (the CPU for a model without parameters)."""
    first = next(model.parameters(), None)
    return torch.device("cpu") if first is None else first.device


def same_device(a: torch.device, b: torch.device) -> bool:
    """True when `a` and `b` name the same device ('cuda' and 'cuda:0' count as the same)."""
    return a.type == b.type and (a.index is None or b.index is None or a.index == b.index)


def resolve_device(model, device=None) -> torch.device:
    """The device batches must go to: the model's own, which `device` (when given) must match."""
    home = model_device(model)
    if device is None:
        return home
    if not same_device(torch.device(device), home):
        raise ValueError(
            f"The model's parameters are on {home} but device={str(device)!r}, so the batches would land on a "
            f"different device from the model. Move the model first, e.g. model = model.to(device), "
            "or leave device out and the model's own device is used."
        )
    return home


@torch.no_grad()
def estimate_loss(
    model, splits: dict, block_size: int, batch_size: int = 32, eval_iters: int = 200, device=None, generator=None
) -> dict:
    """Mean loss over `eval_iters` random batches of each named split, e.g. {'train': …, 'val': …}.

    Batches go to the model's device; `device`, when given, must be that device.
    """
    check_positive_int("eval_iters", eval_iters, "how many batches to average the loss over, e.g. 200")
    device = resolve_device(model, device)
    was_training = model.training
    model.eval()
    out = {}
    try:
        for name, data in splits.items():
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                x, y = get_batch(data, block_size, batch_size, device, generator)
                _, loss = model(x, y)
                losses[k] = loss.item()
            out[name] = losses.mean().item()
    finally:
        model.train(was_training)
    return out


def check_finite(loss: torch.Tensor, step: int, lr: float) -> None:
    """Stop with a TrainingError when the training loss is NaN or infinite."""
    value = loss.item()
    if not math.isfinite(value):
        raise TrainingError(
            f"The training loss became {value} at step {step}: the updates are too big, so the learning rate "
            f"lr={lr:g} is probably too high. Re-create the model and train again with a lower one, "
            f"e.g. lr={lr / 10:g}."
        )


def train(
    model,
    train_data,
    val_data,
    *,
    steps: int,
    lr: float,
    block_size: int,
    batch_size: int = 32,
    eval_interval: int = 300,
    eval_iters: int = 200,
    device=None,
    verbose: bool = True,
    generator=None,
) -> list[dict]:
    """Train with AdamW, printing train/val loss every `eval_interval` steps and at the end.

    Batches go to the model's device (`device`, when given, must be that device). Pass a seeded
    `torch.Generator` as `generator` to make the sampled batches repeatable. A NaN or infinite
    training loss stops training with a TrainingError. Returns the history: one
    {'step', 'train', 'val'} dict per evaluation.
    """
    check_positive_int("steps", steps, "how many optimisation steps to take")
    check_positive_int("eval_interval", eval_interval, "how many steps between two loss reports, e.g. 300")
    check_positive_int("eval_iters", eval_iters, "how many batches to average the loss over, e.g. 200")
    device = resolve_device(model, device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    splits = {"train": train_data, "val": val_data}
    history = []
    for step in range(steps + 1):
        if step % eval_interval == 0 or step == steps:
            losses = estimate_loss(model, splits, block_size, batch_size, eval_iters, device, generator)
            history.append({"step": step, **losses})
            if verbose:
                print(f"step {step:5d}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if step == steps:
            break
        xb, yb = get_batch(train_data, block_size, batch_size, device, generator)
        _, loss = model(xb, yb)
        check_finite(loss, step, lr)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return history
