"""From one head to a small Transformer, one change at a time (notebooks 10 and 11).

    MultiHeadAttention, MultiHeadModel   notebook 10: several heads side by side, concatenated, projected
    FeedForward, FeedForwardModel        notebook 10: then each position on its own through a small network
    ResidualModel                        notebook 11: each part's output is added to its input
    LayerNormModel                       notebook 11: each part reads a LayerNormed copy (pre-norm)
    Block, TransformerModel              notebook 11: the parts as one block, blocks stacked

Each notebook defines its classes in its own cells; these are the copies later notebooks (and
`helpers.scaled`) import, and tests/test_notebook_copies.py keeps the two identical.
"""

import torch
import torch.nn as nn

from .attention import Head
from .data import VOCAB_SIZE
from .models import CharLanguageModel


class MultiHeadAttention(nn.Module):
    """n_head heads side by side on the same x, each of size n_embd // n_head; concatenated, then projected."""

    def __init__(self, n_embd, n_head):
        super().__init__()
        head_size = n_embd // n_head
        self.heads = nn.ModuleList([Head(n_embd, head_size) for _ in range(n_head)])
        self.proj = nn.Linear(n_head * head_size, n_embd)

    def forward(self, x):
        out = torch.cat([head(x) for head in self.heads], dim=-1)  # (B, T, n_head · head_size)
        return self.proj(out)  # (B, T, n_embd)


class MultiHeadModel(CharLanguageModel):
    """Notebook 10: token + position embedding → n_head heads side by side → next-character scores."""

    def __init__(self, vocab_size=VOCAB_SIZE, n_embd=32, block_size=8, n_head=4):
        super().__init__(block_size)
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.sa_heads = MultiHeadAttention(n_embd, n_head)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx) + self.position_embedding_table(self.positions(idx))  # (B, T, C)
        x = self.sa_heads(x)  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


class FeedForward(nn.Module):
    """Each position on its own: n_embd → 4·n_embd → ReLU → n_embd. No position reads another."""

    def __init__(self, n_embd):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.ReLU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        return self.net(x)


class FeedForwardModel(CharLanguageModel):
    """Notebook 10: the heads gather (communication), then a feed-forward network per position (computation)."""

    def __init__(self, vocab_size=VOCAB_SIZE, n_embd=32, block_size=8, n_head=4):
        super().__init__(block_size)
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.sa_heads = MultiHeadAttention(n_embd, n_head)
        self.ffwd = FeedForward(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx) + self.position_embedding_table(self.positions(idx))  # (B, T, C)
        x = self.sa_heads(x)  # (B, T, C)
        x = self.ffwd(x)  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


class ResidualModel(FeedForwardModel):
    """Notebook 11: the same parts, but each one's output is added to its input instead of replacing it."""

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx) + self.position_embedding_table(self.positions(idx))  # (B, T, C)
        x = x + self.sa_heads(x)  # (B, T, C)
        x = x + self.ffwd(x)  # (B, T, C)
        logits = self.lm_head(x)  # (B, T, V)
        return logits, self.loss_for(logits, targets)


class LayerNormModel(FeedForwardModel):
    """Notebook 11: each part reads a LayerNormed copy of x (pre-norm), and one more LayerNorm before lm_head."""

    def __init__(self, vocab_size=VOCAB_SIZE, n_embd=32, block_size=8, n_head=4):
        super().__init__(vocab_size, n_embd, block_size, n_head)
        self.ln1 = nn.LayerNorm(n_embd)
        self.ln2 = nn.LayerNorm(n_embd)
        self.ln_f = nn.LayerNorm(n_embd)

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx) + self.position_embedding_table(self.positions(idx))  # (B, T, C)
        x = x + self.sa_heads(self.ln1(x))  # (B, T, C)
        x = x + self.ffwd(self.ln2(x))  # (B, T, C)
        logits = self.lm_head(self.ln_f(x))  # (B, T, V)
        return logits, self.loss_for(logits, targets)


class Block(nn.Module):
    """Communication, then computation, each reading a LayerNormed x and adding to x; dropout on what they add."""

    def __init__(self, n_embd, n_head, dropout=0.0):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.sa_heads = MultiHeadAttention(n_embd, n_head)
        self.ln2 = nn.LayerNorm(n_embd)
        self.ffwd = FeedForward(n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.dropout(self.sa_heads(self.ln1(x)))  # (B, T, C)
        x = x + self.dropout(self.ffwd(self.ln2(x)))  # (B, T, C)
        return x


class TransformerModel(CharLanguageModel):
    """Notebook 11: n_layer Blocks stacked, a final LayerNorm, then the next-character scores."""

    def __init__(self, vocab_size=VOCAB_SIZE, n_embd=32, block_size=8, n_head=4, n_layer=3, dropout=0.0):
        super().__init__(block_size)
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head, dropout) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        x = self.token_embedding_table(idx) + self.position_embedding_table(self.positions(idx))  # (B, T, C)
        x = self.blocks(x)  # (B, T, C)
        logits = self.lm_head(self.ln_f(x))  # (B, T, V)
        return logits, self.loss_for(logits, targets)
