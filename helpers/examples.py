"""Small fixed examples that a lesson works through and its explorer reuses.

Each lesson defines its own copy in a cell, where the reader can change it; these are the copies the
explorers import, and tests/test_notebook_copies.py keeps the two identical.
"""

import torch

from .attention import Head, causal_softmax
from .data import VOCAB_SIZE


# Notebook 04: weights from content alone, before any learned query or key.
def similarity_weights(x):
    """Weights from content: score(t, s) = x_t · x_s (how alike two vectors are), future masked, softmax per row."""
    return causal_softmax(x @ x.transpose(-2, -1))


# Notebook 06: the hand-set `hou` head over five letters (nn.Linear layout: row = output channel, column = letter).
ALPHABET = "houyt"  # h, o, u are the worked example; y and t make `you` and `thou` possible
QUERY_WEIGHT = [[1.0, 0.0, 2.0, 0.0, 1.0], [0.0, 1.0, 0.5, 2.0, 0.0]]
KEY_WEIGHT = [[2.0, 0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 1.0, 2.0, 0.0]]
VALUE_WEIGHT = [[10.0, 0.0, 5.0, 0.0, 10.0], [0.0, 10.0, 5.0, 10.0, 0.0]]


# Notebook 08: an untrained head to look at.
def demo_head():
    """A fixed character embedding of width 16 and a fixed, untrained Head (the global random state is left alone)."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(8)
        embedding = torch.nn.Embedding(VOCAB_SIZE, 16)
        head = Head(16, 16)
    with torch.no_grad():
        head.query.weight.mul_(3.0)  # sharper queries: several rows sharp, easy to see in the pictures
    return embedding, head
