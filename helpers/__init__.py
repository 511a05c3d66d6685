"""The One Line Changed course's helpers: what a learner works with, by name.

The steps of the journey (each also defined in the notebook that teaches it), the head and the
models, training, the checkers and explorers, and the pictures and diffs. Corpus plumbing lives in
`helpers.data`.
"""

from .attention import Head, attend_qk, attend_qkv, attend_scaled, attention_weights, causal_softmax
from .averaging import average_loop, average_matmul, average_softmax
from .blocks import (
    Block,
    FeedForward,
    FeedForwardModel,
    LayerNormModel,
    MultiHeadAttention,
    MultiHeadModel,
    ResidualModel,
    TransformerModel,
)
from .diffing import changed_lines, show_diff, show_journey, show_source
from .exercises import check
from .explorers import explore
from .models import (
    BigramLanguageModel,
    CharLanguageModel,
    OneHeadModel,
    PositionalBigramModel,
    SplitBigramModel,
    count_parameters,
    counted_bigram,
    embed,
)
from .plots import draw_graph, plot_batch_losses, plot_losses, running_mean, show_wei, show_wei_stages
from .runtime import pick_device, seed_everything
from .training import cpu_threads, estimate_loss, token_losses, train, train_and_measure
