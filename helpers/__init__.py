"""Shared helpers for the One Line Changed course: data, models, training, pictures, diffs."""

from .averaging import average_loop, average_matmul, average_softmax
from .course import REPO_URL, colab_url
from .data import (
    CHARS,
    CORPUS_PATH,
    CORPUS_SHA256,
    CORPUS_URL,
    ITOS,
    STOI,
    VOCAB_SIZE,
    CorpusError,
    consecutive_chunks,
    decode,
    encode,
    ensure_corpus,
    get_batch,
    load_text,
    train_val_split,
)
from .diffing import changed_lines, show_diff, show_source, source_diff
from .models import BigramLanguageModel, CharLanguageModel, SplitBigramModel, count_parameters
from .plots import plot_losses, show_wei, show_wei_stages
from .runtime import pick_device, seed_everything
from .training import TrainingError, estimate_loss, train
