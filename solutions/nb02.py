"""Reference solution for notebook 02's exercise: the (T, T) weights of the causal running average."""

import torch


def causal_average_weights(T: int) -> torch.Tensor:
    """Row i gives 1/(i+1) to each of positions 0…i and 0 to every later position."""
    tril = torch.tril(torch.ones(T, T))  # 1 where position i may see position j (j ≤ i)
    return tril / tril.sum(1, keepdim=True)  # (T, T) / (T, 1): each row divided by its own count
