"""How far each model of notebooks 10 and 11 moves from one seed to the next, with their one recipe.

    python -m helpers.stage_spread               # seeds 1337, 1338, 1339: about two and a half minutes on a quiet CPU
    python -m helpers.stage_spread 1337 7        # the seeds you name

The notebooks train each model once, from seed 1337, and quote this command's summary to say how much of
each figure is the luck of the seed. Every run is `train_and_measure`: the notebooks' recipe and evaluator.
"""

import sys
import time

import torch

from .blocks import FeedForwardModel, LayerNormModel, MultiHeadModel, ResidualModel, TransformerModel
from .data import encode, load_text, train_val_split
from .models import OneHeadModel
from .seed_spread import parse_seeds
from .training import train_and_measure

STAGES = {
    "one head": OneHeadModel,
    "4 heads": MultiHeadModel,
    "+ feed-forward": FeedForwardModel,
    "+ residual": ResidualModel,
    "+ LayerNorm": LayerNormModel,
    "3 blocks": TransformerModel,
}
SEEDS = (1337, 1338, 1339)


def main(argv) -> int:
    seeds = parse_seeds(argv, "helpers.stage_spread", SEEDS)
    if seeds is None:
        return 2
    train_data, val_data = train_val_split(torch.tensor(encode(load_text()), dtype=torch.long))
    for name, make in STAGES.items():
        losses = []
        for seed in seeds:
            start = time.perf_counter()
            losses.append(train_and_measure(make, train_data, val_data, seed=seed)[1])
            print(f"{name:<15} seed {seed:>5}: {losses[-1]:.3f} ({time.perf_counter() - start:.1f} s)", flush=True)
        print(f"{name:<15} over {len(losses)} seeds: mean {sum(losses) / len(losses):.3f}, lowest {min(losses):.3f}, "
              f"highest {max(losses):.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
