"""The tiny Shakespeare corpus: fetching it safely, the 65-character vocabulary, batches."""

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import torch

CORPUS_URL = "https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt"
CORPUS_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
CORPUS_PATH = DATA_DIR / "tinyshakespeare.txt"

# The 65 distinct characters of the corpus, in sorted order (a test checks them against the file).
CHARS = "\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
VOCAB_SIZE = len(CHARS)
STOI = {ch: i for i, ch in enumerate(CHARS)}
ITOS = dict(enumerate(CHARS))


class CorpusError(RuntimeError):
    """The corpus is missing and cannot be fetched, or its contents are wrong."""


def sha256_of(path: Path) -> str:
    """The hex SHA-256 digest of a file."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def ensure_corpus(path: Path = CORPUS_PATH, url: str = CORPUS_URL, timeout: float = 30) -> Path:
    """Make sure a verified corpus sits at `path`, downloading it if needed; return the path.

    A file already there with the wrong checksum is moved aside to `<name>.corrupt` (never used,
    never deleted) and a fresh copy is fetched. A download lands in a temporary file first and
    is moved into place only after its checksum matches.
    """
    path = Path(path)
    if path.exists():
        if sha256_of(path) == CORPUS_SHA256:
            return path
        aside = path.with_name(path.name + ".corrupt")
        os.replace(path, aside)
        print(f"{path.name} did not match its checksum; moved it aside to {aside.name} and fetching a fresh copy.")
    return download_corpus(path, url, timeout)


def download_corpus(path: Path = CORPUS_PATH, url: str = CORPUS_URL, timeout: float = 30) -> Path:
    """Download the corpus from `url`, verify its SHA-256, and only then move it to `path`."""
    path = Path(path)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            payload = response.read()
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise CorpusError(
            f"The corpus is not at {path} and could not be downloaded ({err}).\n"
            f"Download it by hand from\n  {url}\nand save it as\n  {path}\n"
            "(or run `make data` on a machine with internet), then run this cell again."
        ) from None
    digest = hashlib.sha256(payload).hexdigest()
    if digest != CORPUS_SHA256:
        raise CorpusError(
            f"The file downloaded from {url} has SHA-256 {digest}, not the expected {CORPUS_SHA256}.\n"
            f"It was discarded, and nothing was written to {path}. Try again later, or fetch the file by hand."
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".download-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; the corpus is not
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    print(f"Downloaded and verified the corpus ({len(payload):,} bytes).")
    return path


def load_text(path: Path = CORPUS_PATH) -> str:
    """Return the whole corpus as one string, fetching and verifying it on first use."""
    return ensure_corpus(path).read_text(encoding="utf-8")


def encode(text: str) -> list[int]:
    """Turn a string into a list of character indices (0…64)."""
    if not isinstance(text, str):
        raise TypeError(f"encode() takes a string, not {type(text).__name__}.")
    if not text:
        raise ValueError("encode() got an empty string: give it at least one character, e.g. encode('hou').")
    unknown = [(i, ch) for i, ch in enumerate(text) if ch not in STOI]
    if unknown:
        i, ch = unknown[0]
        raise ValueError(
            f"Character {ch!r} (U+{ord(ch):04X}) at position {i} of {text!r} is not in the 65-character "
            "vocabulary of tiny Shakespeare. Use plain English letters, digit 3, space, newline "
            "and the punctuation ! $ & ' , - . : ; ? only."
        )
    return [STOI[ch] for ch in text]


def decode(indices) -> str:
    """Turn a sequence of indices (a list or a tensor) back into a string."""
    if isinstance(indices, torch.Tensor):
        indices = indices.tolist()
    bad = [i for i in indices if not (isinstance(i, int) and 0 <= i < VOCAB_SIZE)]
    if bad:
        raise ValueError(f"decode() got {bad[0]!r}, which is not an index from 0 to {VOCAB_SIZE - 1}.")
    return "".join(ITOS[i] for i in indices)


def train_val_split(data: torch.Tensor, train_fraction: float = 0.9) -> tuple[torch.Tensor, torch.Tensor]:
    """Split an encoded corpus into its first 90% (train) and the rest (validation)."""
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be strictly between 0 and 1, not {train_fraction}.")
    n = int(train_fraction * len(data))
    return data[:n], data[n:]


def get_batch(data: torch.Tensor, block_size: int, batch_size: int, device="cpu", generator=None):
    """Sample `batch_size` random chunks: inputs x and next-character targets y, both (B, T) on `device`."""
    if len(data) <= block_size:
        raise ValueError(f"The data has {len(data)} characters: it needs more than block_size={block_size}.")
    starts = torch.randint(len(data) - block_size, (batch_size,), generator=generator)
    x = torch.stack([data[i : i + block_size] for i in starts])
    y = torch.stack([data[i + 1 : i + block_size + 1] for i in starts])
    return x.to(device), y.to(device)
