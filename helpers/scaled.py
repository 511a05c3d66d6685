"""The finished Transformer of notebook 11 at the large size, for a GPU (not part of the tests or CI).

    python -m helpers.scaled                 # on a CUDA GPU: train 5,000 steps, print the validation loss and time
    python -m helpers.scaled --steps 500     # a shorter run
    make gpu-train                           # the same as the first line

The model is notebook 11's `TransformerModel`, unchanged, with the large configuration below (about 10.8
million weights); the recipe is the one usually quoted for it: batch 64, AdamW at a constant learning rate of
3e-4, 5,000 steps. Progress is estimated every 500 steps from 20 random batches; the final figure is notebook
09's evaluator, the whole validation text cut into consecutive chunks of 256 characters. The lecture reported about
1.48; on an NVIDIA H200 (4 December 2026) this ended at 1.571 after 251 s, its estimate lowest near step 4,000
(notebook 11 says more). On a CPU, where one step took about 6 s on a two-core Intel Xeon (6 December 2026), it
refuses unless told --allow-cpu (the tests take a few steps that way).
"""

import argparse
import sys
import time

import torch
import torch.nn.functional as F

from .blocks import TransformerModel
from .data import VOCAB_SIZE, consecutive_chunks, encode, load_text, train_val_split
from .models import count_parameters
from .runtime import seed_everything
from .training import model_device, train

LARGE = {"n_embd": 384, "n_head": 6, "n_layer": 6, "block_size": 256, "dropout": 0.2}
RECIPE = {"steps": 5000, "lr": 3e-4, "batch_size": 64, "eval_interval": 500, "eval_iters": 20}


def large_model(**overrides) -> TransformerModel:
    """Notebook 11's TransformerModel with the LARGE configuration (any entry may be overridden)."""
    return TransformerModel(VOCAB_SIZE, **{**LARGE, **overrides})


@torch.no_grad()
def whole_text_loss(model, data, batch: int = 32) -> float:
    """Notebook 09's evaluator, a few chunks at a time: the mean loss over every character of `data`."""
    was_training = model.training
    model.eval()
    x, y = consecutive_chunks(data, model.block_size, device=model_device(model))
    total = 0.0
    for i in range(0, len(x), batch):
        logits, _ = model(x[i : i + batch])
        total += F.cross_entropy(logits.flatten(0, 1), y[i : i + batch].flatten(), reduction="sum").item()
    model.train(was_training)
    return total / y.numel()


def train_large(steps: int = RECIPE["steps"], seed: int = 1337, device: str = "cuda", out=print) -> dict:
    """Build, train and measure the large model on `device`; print progress and the result; return the figures."""
    seed_everything(seed)
    train_data, val_data = train_val_split(torch.tensor(encode(load_text()), dtype=torch.long))
    model = large_model().to(device)
    out(f"large configuration {LARGE}: {count_parameters(model):,} weights, on {device}")
    recipe = {**RECIPE, "steps": steps, "eval_interval": min(RECIPE["eval_interval"], steps)}
    start = time.perf_counter()
    train(model, train_data, val_data, **recipe)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    val_loss = whole_text_loss(model, val_data)
    out(f"whole validation text: {val_loss:.3f} after {steps:,} steps, {seconds:.0f} s of training")
    return {"val_loss": val_loss, "seconds": seconds, "model": model}


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="python -m helpers.scaled", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=RECIPE["steps"], help="training steps (default 5000)")
    parser.add_argument("--allow-cpu", action="store_true", help="run on the CPU even so (very slow)")
    args = parser.parse_args(argv)
    if args.steps < 1:
        print(f"--steps is how many training steps to take, a whole number of at least 1, not {args.steps}.")
        return 2
    if not torch.cuda.is_available() and not args.allow_cpu:
        print("No CUDA GPU here: the large model would take hours on a CPU. Run this on a GPU machine "
              "(or Colab with a GPU runtime), or add --allow-cpu to try a few steps anyway.")
        return 3
    train_large(args.steps, device="cuda" if torch.cuda.is_available() else "cpu")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
