"""How far the trained head's validation loss moves from one seed to the next.

    python -m helpers.seed_spread             # seeds 1337, 1, 2, 3, 4: a few minutes on a quiet CPU
    python -m helpers.seed_spread 1337 7      # the seeds you name

Notebook 09 trains `OneHeadModel` once, with seed 1337, and quotes this command's table. Each run here
builds the model from its seed, trains it on one CPU thread with one of two recipes, and measures it
with notebook 09's evaluator: the mean loss over the whole validation text, every character predicted
once (`token_losses`). Recipe "09" is notebook 09's (batch 64, learning rate 3e-3, 4,000 steps, the
same progress estimates, so seed 1337 repeats the notebook's run exactly); recipe "common" is the one
often quoted for this model (batch 32, learning rate 1e-3, 5,000 steps), with its progress printouts
left out, as only the final figure is compared.
"""

import sys
import time

import torch

from .data import VOCAB_SIZE, encode, load_text, train_val_split
from .models import OneHeadModel
from .runtime import seed_everything
from .training import cpu_threads, token_losses, train

# name → the settings `train` gets; eval_* only say how often training prints, and what it draws to do so
RECIPES = {
    "09": {"batch_size": 64, "lr": 3e-3, "steps": 4000, "eval_interval": 500, "eval_iters": 20},
    "common": {"batch_size": 32, "lr": 1e-3, "steps": 5000, "eval_interval": 5000, "eval_iters": 1},
}
SEEDS = (1337, 1, 2, 3, 4)


def trained_loss(seed: int, recipe: dict, train_data, val_data) -> float:
    """Notebook 09's model, built from `seed` and trained with `recipe`: its mean loss on the whole of `val_data`."""
    seed_everything(seed)
    model = OneHeadModel(vocab_size=VOCAB_SIZE, n_embd=32, block_size=8, head_size=32)
    with cpu_threads(1):
        train(model, train_data, val_data, verbose=False, **recipe)
    return token_losses(model.eval(), val_data).mean().item()


def spread_table(seeds, recipes=RECIPES, out=print) -> dict:
    """Train once per seed and recipe, print one line per run and a summary per recipe; return the losses."""
    train_data, val_data = train_val_split(torch.tensor(encode(load_text()), dtype=torch.long))
    losses = {name: [] for name in recipes}
    out(f"{'recipe':<8} {'seed':>6} {'val loss':>9} {'seconds':>8}")
    for name, recipe in recipes.items():
        for seed in seeds:
            start = time.perf_counter()
            losses[name].append(trained_loss(seed, recipe, train_data, val_data))
            out(f"{name:<8} {seed:>6} {losses[name][-1]:9.3f} {time.perf_counter() - start:8.1f}")
    for name, values in losses.items():
        mean = sum(values) / len(values)
        out(f"{name:<8} over {len(values)} seeds: mean {mean:.3f}, lowest {min(values):.3f}, highest {max(values):.3f}")
    return losses


def parse_seeds(argv, command: str, default=SEEDS) -> list[int] | None:
    """The seeds named on the command line (`default` when none), or None after one sentence on bad input."""
    try:
        return [int(a) for a in argv] or list(default)
    except ValueError:
        print(f"Seeds are whole numbers, e.g. python -m {command} 1337 7, not {' '.join(argv)!r}.")
        return None


def main(argv) -> int:
    seeds = parse_seeds(argv, "helpers.seed_spread")
    if seeds is None:
        return 2
    spread_table(seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
