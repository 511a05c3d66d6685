"""A plain training loop with visible progress, and an honest loss estimate."""

import torch

from .data import get_batch


@torch.no_grad()
def estimate_loss(
    model, splits: dict, block_size: int, batch_size: int, eval_iters: int = 200, device="cpu", generator=None
) -> dict:
    """Mean loss over `eval_iters` random batches of each named split, e.g. {'train': …, 'val': …}."""
    was_training = model.training
    model.eval()
    out = {}
    for name, data in splits.items():
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            x, y = get_batch(data, block_size, batch_size, device, generator)
            _, loss = model(x, y)
            losses[k] = loss.item()
        out[name] = losses.mean().item()
    model.train(was_training)
    return out


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
    device="cpu",
    verbose: bool = True,
) -> list[dict]:
    """Train with AdamW, printing train/val loss every `eval_interval` steps and at the end.

    Returns the history: one {'step', 'train', 'val'} dict per evaluation.
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, not {steps}.")
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    splits = {"train": train_data, "val": val_data}
    history = []
    for step in range(steps + 1):
        if step % eval_interval == 0 or step == steps:
            losses = estimate_loss(model, splits, block_size, batch_size, eval_iters, device)
            history.append({"step": step, **losses})
            if verbose:
                print(f"step {step:5d}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        if step == steps:
            break
        xb, yb = get_batch(train_data, block_size, batch_size, device)
        _, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return history
