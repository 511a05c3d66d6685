"""The language models the course grows, one small class per stage.

Notebook 04 defines `PositionalBigramModel` and notebook 09 `OneHeadModel` in their own cells; these
are the copies other notebooks import, and tests/test_notebook_copies.py keeps the two identical.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from .attention import Head
from .data import VOCAB_SIZE, check_positive_int


def check_tokens(model: nn.Module, args: tuple) -> None:
    """Before each forward pass: refuse, in plain words, a batch that is empty or holds ids outside the vocabulary."""
    idx = args[0] if args else None
    if not isinstance(idx, torch.Tensor) or idx.is_floating_point() or idx.is_complex():
        return  # not character ids: the model's own layers say what they expected
    if idx.numel() == 0:
        raise ValueError(
            f"The batch is empty (shape {tuple(idx.shape)}): pass at least one chunk of at least one character, "
            f"e.g. a (1, 1) tensor of character ids."
        )
    vocab = getattr(getattr(model, "token_embedding_table", None), "num_embeddings", None)
    low, high = int(idx.min()), int(idx.max())
    if vocab is not None and (low < 0 or high >= vocab):
        bad = low if low < 0 else high
        raise ValueError(
            f"Character id {bad} is outside this model's vocabulary of {vocab} characters (ids 0…{vocab - 1}): "
            f"make ids with helpers.data.encode, which only gives ids in that range."
        )


class CharLanguageModel(nn.Module):
    """What every model here shares: its context length, a loss from (B, T, V) logits, positions, and sampling.

    `block_size` is how many characters the model is shown at once: the length of the chunks it is
    trained and evaluated on, and the context `generate` hands it. Subclasses define
    `forward(idx, targets=None)` returning `(logits, loss)` by calling `self.loss_for(logits, targets)`.
    """

    def __init__(self, block_size: int):
        super().__init__()
        self.block_size = block_size
        self.register_forward_pre_hook(check_tokens)  # an empty batch or an unknown id: one plain sentence

    @staticmethod
    def loss_for(logits: torch.Tensor, targets=None):
        """Cross-entropy of (B, T, V) logits against (B, T) targets, or None without targets."""
        if targets is None:
            return None
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())  # (B·T, V) against (B·T,)

    def positions(self, idx: torch.Tensor) -> torch.Tensor:
        """The positions 0…T−1 of a (B, T) batch; more than `block_size` of them is refused in plain words."""
        T = idx.shape[1]
        if T > self.block_size:
            raise ValueError(
                f"The position table has rows for positions 0…{self.block_size - 1} only, but the input has "
                f"T={T} positions: crop it to its last {self.block_size}, e.g. idx[:, -{self.block_size}:]."
            )
        return torch.arange(T, device=idx.device)

    @torch.no_grad()
    def generate(self, idx: torch.Tensor, max_new_tokens: int, generator=None) -> torch.Tensor:
        """Extend the (B, T) context `idx` by `max_new_tokens` sampled characters.

        `generator` (optional, for repeatable samples) may live on the CPU or on the model's device.
        """
        if idx.dim() != 2 or idx.shape[1] == 0:
            raise ValueError(f"generate() needs a (B, T) context with T >= 1, not shape {tuple(idx.shape)}.")
        check_positive_int("max_new_tokens", max_new_tokens, "how many characters to add, e.g. 100", at_least=0)
        for _ in range(max_new_tokens):
            context = idx[:, -self.block_size :]  # at most the last block_size characters
            logits, _ = self(context)
            probs = F.softmax(logits[:, -1, :], dim=-1)
            if generator is not None:
                probs = probs.to(generator.device)  # multinomial draws on the generator's own device
            nxt = torch.multinomial(probs, num_samples=1, generator=generator).to(idx.device)
            idx = torch.cat((idx, nxt), dim=1)
        return idx


class BigramLanguageModel(CharLanguageModel):
    """Each character's row of a (V, V) table is, directly, the scores for the next character.

    It reads only each position's own character; `block_size` only sets how long its chunks are.
    """

    def __init__(self, vocab_size: int = VOCAB_SIZE, block_size: int = 8):
        super().__init__(block_size)
        self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

    def forward(self, idx, targets=None):
        logits = self.token_embedding_table(idx)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


class SplitBigramModel(CharLanguageModel):
    """The bigram split in two: characters → n_embd-wide vectors → scores via `lm_head`."""

    def __init__(self, vocab_size: int = VOCAB_SIZE, n_embd: int = 32, block_size: int = 8):
        super().__init__(block_size)
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)  # what a character is
        self.lm_head = nn.Linear(n_embd, vocab_size)  # representation → next-character scores

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx)  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


def embed(model: CharLanguageModel, idx: torch.Tensor) -> torch.Tensor:
    """What a model's first layer reads: token + position embedding of a (B, T) batch (its forward's first line)."""
    return model.token_embedding_table(idx) + model.position_embedding_table(model.positions(idx))


def count_parameters(model: nn.Module) -> int:
    """How many numbers the model learns."""
    return sum(p.numel() for p in model.parameters())


class PositionalBigramModel(CharLanguageModel):
    """Notebook 04: each position's vector is its character's embedding plus its position's, then scores."""

    def __init__(self, vocab_size=VOCAB_SIZE, n_embd=32, block_size=8):
        super().__init__(block_size)
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx) + self.position_embedding_table(self.positions(idx))  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


class OneHeadModel(CharLanguageModel):
    """Notebook 09: token + position embedding → one causal self-attention head → next-character scores."""

    def __init__(self, vocab_size=VOCAB_SIZE, n_embd=32, block_size=8, head_size=32):
        super().__init__(block_size)
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.sa_head = Head(n_embd, head_size)
        self.lm_head = nn.Linear(head_size, vocab_size)

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx) + self.position_embedding_table(self.positions(idx))  # (B, T, C)
        x = self.sa_head(x)  # (B, T, head_size)
        logits = self.lm_head(x)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


def counted_bigram(data: torch.Tensor, vocab_size: int = VOCAB_SIZE) -> BigramLanguageModel:
    """Notebook 09's count-based bigram, filled from the pairs in `data`: log next-character frequencies, +1 each."""
    counts = torch.ones(vocab_size, vocab_size)  # +1 smoothing: no pair gets probability 0
    counts.index_put_((data[:-1], data[1:]), torch.ones(len(data) - 1), accumulate=True)
    model = BigramLanguageModel(vocab_size)
    with torch.no_grad():
        model.token_embedding_table.weight.copy_(counts.log() - counts.sum(1, keepdim=True).log())
    return model.eval()
