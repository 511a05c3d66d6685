"""The language models the course grows, one small class per stage."""

import torch
import torch.nn as nn
import torch.nn.functional as F

from .attention import Head
from .data import VOCAB_SIZE


class CharLanguageModel(nn.Module):
    """What every model here shares: a loss from (B, T, V) logits, and sampling.

    Subclasses define `forward(idx, targets=None)` returning `(logits, loss)` by calling
    `self.loss_for(logits, targets)`. A model with a fixed context sets `block_size`.
    """

    block_size = None  # None: the model can read a context of any length

    @staticmethod
    def loss_for(logits: torch.Tensor, targets=None):
        """Cross-entropy of (B, T, V) logits against (B, T) targets, or None without targets."""
        if targets is None:
            return None
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())  # (B·T, V) against (B·T,)

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int, generator=None) -> torch.Tensor:
        """Extend the (B, T) context `idx` by `max_new_tokens` sampled characters.

        `generator` (optional, for repeatable samples) may live on the CPU or on the model's device.
        """
        if idx.dim() != 2 or idx.shape[1] == 0:
            raise ValueError(f"generate() needs a (B, T) context with T >= 1, not shape {tuple(idx.shape)}.")
        for _ in range(max_new_tokens):
            context = idx if self.block_size is None else idx[:, -self.block_size :]
            logits, _ = self(context)
            probs = F.softmax(logits[:, -1, :], dim=-1)
            if generator is not None:
                probs = probs.to(generator.device)  # multinomial draws on the generator's own device
            nxt = torch.multinomial(probs, num_samples=1, generator=generator).to(idx.device)
            idx = torch.cat((idx, nxt), dim=1)
        return idx


class BigramLanguageModel(CharLanguageModel):
    """Each character's row of a (V, V) table is, directly, the scores for the next character."""

    def __init__(self, vocab_size: int = VOCAB_SIZE):
        super().__init__()
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        logits = self.token_embedding_table(idx)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


class SplitBigramModel(CharLanguageModel):
    """The bigram split in two: characters → n_embd-wide vectors → scores via `lm_head`."""

    def __init__(self, vocab_size: int = VOCAB_SIZE, n_embd: int = 32):
        super().__init__()
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)  # what a character is
        self.lm_head = nn.Linear(n_embd, vocab_size)  # representation → next-character scores

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx)  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


def count_parameters(model: nn.Module) -> int:
    """How many numbers the model learns."""
    return sum(p.numel() for p in model.parameters())


class PositionalBigramModel(CharLanguageModel):
    """Notebook 04: each position's vector is its character's embedding plus its position's, then scores.

    No position looks at any other yet, so the positions add information that nothing can use.
    """

    def __init__(self, vocab_size: int = VOCAB_SIZE, n_embd: int = 32, block_size: int = 8):
        super().__init__()
        self.block_size = block_size
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def embed(self, idx: torch.Tensor) -> torch.Tensor:
        """Token embedding plus position embedding: (B, T) indices → (B, T, n_embd)."""
        T = idx.shape[1]
        if T > self.block_size:
            raise ValueError(
                f"The position table has rows for positions 0…{self.block_size - 1} only, but the input has "
                f"T={T} positions: crop it to its last {self.block_size}, e.g. idx[:, -{self.block_size}:]."
            )
        positions = torch.arange(T, device=idx.device)
        return self.token_embedding_table(idx) + self.position_embedding_table(positions)

    def forward(self, idx, targets=None):
        logits = self.lm_head(self.embed(idx))  # (B, T, V)
        return logits, self.loss_for(logits, targets)


class OneHeadModel(PositionalBigramModel):
    """Notebook 09: token + position embedding → one causal self-attention head → next-character scores."""

    def __init__(self, vocab_size: int = VOCAB_SIZE, n_embd: int = 32, block_size: int = 8, head_size: int = 32):
        super().__init__(vocab_size, n_embd, block_size)
        self.sa_head = Head(n_embd, head_size, block_size)
        self.lm_head = nn.Linear(head_size, vocab_size)

    def forward(self, idx, targets=None):
        logits = self.lm_head(self.sa_head(self.embed(idx)))  # (B, T, V)
        return logits, self.loss_for(logits, targets)
