"""The tiny Shakespeare corpus: fetching it safely, the 65-character vocabulary, batches."""

import hashlib
import itertools
import numbers
import os
import stat
import tempfile
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import numpy as np
import torch

from .runtime import PlainError

CORPUS_URL = "https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt"
CORPUS_URL_ENV = "COURSE_CORPUS_URL"  # set, it names a mirror to download the corpus from instead
CORPUS_SHA256 = "86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
CORPUS_PATH = DATA_DIR / "tinyshakespeare.txt"
CORPUS_BYTES = 1_115_394  # plain ASCII: one byte per character; no check reads more than this

# The 65 distinct characters of the corpus, in sorted order (a test checks them against the file).
CHARS = "\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
VOCAB_SIZE = len(CHARS)
STOI = {ch: i for i, ch in enumerate(CHARS)}
QUOTE_AROUND = 20  # encode()'s message quotes at most this many characters either side of a bad one


class CorpusError(PlainError):
    """The corpus is missing and cannot be fetched, or its contents are wrong (shown without a traceback)."""


class CorpusDownloadError(CorpusError):
    """The corpus is not here and the download failed (no network, or the address does not answer)."""


# What may stand where a file should be, by the test that recognises it
NOT_FILES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def not_a_file(path: Path, mode: int) -> CorpusError:
    """The error for something at `path` that is not a regular file, naming what it is."""
    kind = next((name for is_kind, name in NOT_FILES if is_kind(mode)), "not a regular file")
    if path.is_symlink():
        kind = f"a link to {os.readlink(path)}, which is {kind}"
    return CorpusError(
        f"{path} is {kind}, not the corpus file: move it out of the way (rename it, or delete it if you do not "
        "need it), then run this cell again to download the corpus there."
    )


def open_regular(path: Path):
    """`path` opened for reading bytes if it is a regular file; anything else is refused, never waited on."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except PermissionError as err:
        raise CorpusError(
            f"The folder {path.parent} cannot be searched ({err.strerror}): give yourself access to it "
            f"(e.g. `chmod u+rwx {path.parent}`), then run this cell again."
        ) from None
    if not stat.S_ISREG(mode):
        raise not_a_file(path, mode)
    try:  # O_NONBLOCK: should a named pipe appear here after the check above, opening it does not wait
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except PermissionError as err:
        raise CorpusError(
            f"{path} cannot be read ({err.strerror}): give yourself permission to read it "
            f"(e.g. `chmod u+r {path}`), then run this cell again."
        ) from None
    mode = os.fstat(fd).st_mode  # what was opened, whatever stands at `path` now
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise not_a_file(path, mode)
    return os.fdopen(fd, "rb")


def is_verified(path: Path) -> bool:
    """True when `path` is a regular file of exactly the corpus's size and SHA-256.

    The size is checked first and the file is hashed a chunk at a time, so nothing beyond CORPUS_BYTES
    is ever read; anything but a regular file (a folder, a named pipe, a link to /dev/zero) gives a
    CorpusError that names it.
    """
    with open_regular(path) as f:
        if os.fstat(f.fileno()).st_size != CORPUS_BYTES:
            return False
        digest, left = hashlib.sha256(), CORPUS_BYTES
        while left and (chunk := f.read(min(1 << 20, left))):  # a mebibyte at a time
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest() == CORPUS_SHA256


def corpus_url() -> str:
    """Where the corpus is downloaded from: the mirror COURSE_CORPUS_URL names, when set, else CORPUS_URL."""
    return os.environ.get(CORPUS_URL_ENV) or CORPUS_URL


def ensure_corpus(path: Path = CORPUS_PATH, url: str | None = None, timeout: float = 30) -> Path:
    """Make sure a verified corpus sits at `path`, downloading it from `url` (by default corpus_url()) if needed;
    return the path.

    A file already there with the wrong checksum is moved aside to `<name>.corrupt` (or
    `.corrupt.1`, `.corrupt.2`… so an earlier one is never overwritten; never used, never deleted)
    and a fresh copy is fetched. A download lands in a temporary file first and is moved into
    place only after its checksum matches. Anything that is not a regular file, a file where the
    folder should be, and folders that cannot be read or written give a CorpusError naming the problem.
    """
    path, url = Path(path), url or corpus_url()
    nearest = next((place for place in (path.parent, *path.parent.parents) if place.exists()), None)
    if nearest is not None and not nearest.is_dir():  # a file where the corpus's folder, or one above it, should be
        raise CorpusError(
            f"{nearest} is a file, but the corpus goes in a folder of that name: rename or move that file, "
            "then run this cell again."
        )
    try:
        if path.exists():
            if is_verified(path):
                return path
            aside = move_aside_if_corrupt(path)
            if aside is not None:
                print(f"{path.name} did not match its checksum; moved it aside to {aside.name}, fetching a fresh copy.")
            elif path.exists() and is_verified(path):  # another process put a good copy there meanwhile
                return path
    except OSError as err:
        raise CorpusError(
            f"The corpus at {path} could not be checked or moved aside ({err}).\n"
            f"Fix the permissions of {path.parent} (it must be readable and writable), or replace the file\n"
            f"by hand with a verified copy downloaded from\n  {url}\nthen run this cell again."
        ) from None
    return download_corpus(path, url, timeout)


def move_aside_if_corrupt(path: Path):
    """Move a corrupt corpus at `path` to a free `.corrupt` name and return that name.

    The file is first renamed (atomically) to a name of its own and checked again there, so the
    exact bytes checked are the bytes moved: if another process has meanwhile put a verified copy
    at `path`, that copy is put back and None is returned. None also when the file has gone.
    """
    checking = path.with_name(f".{path.name}.{uuid.uuid4().hex}.checking")
    try:
        os.rename(path, checking)
    except FileNotFoundError:  # another process moved it first
        return None
    try:
        if is_verified(checking):
            os.replace(checking, path)  # a good copy: put it back
            return None
        return claim_free_name(checking, path)
    except BaseException:
        if checking.exists() and not path.exists():
            os.rename(checking, path)  # leave the folder as it was found
        raise


def claim_free_name(src: Path, path: Path) -> Path:
    """Move `src` to the first free name of `path.corrupt`, `path.corrupt.1`, … and return it."""
    for n in itertools.count():
        aside = path.with_name(path.name + ".corrupt" + (f".{n}" if n else ""))
        try:
            os.link(src, aside)  # fails if the name is taken, so nothing kept aside is overwritten
        except FileExistsError:
            continue
        except OSError:  # a file system without hard links
            if aside.exists():
                continue
            os.rename(src, aside)
            return aside
        os.unlink(src)
        return aside


def download_corpus(path: Path = CORPUS_PATH, url: str | None = None, timeout: float = 30) -> Path:
    """Download the corpus from `url` (by default corpus_url()), verify its SHA-256, and only then move it to `path`."""
    path, url = Path(path), url or corpus_url()
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            payload = response.read(CORPUS_BYTES + 1)  # one byte more than the corpus is enough to reject it
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise CorpusDownloadError(
            f"The corpus is not at {path} and could not be downloaded ({err}).\n"
            f"Download it by hand from\n  {url}\n{also_from(url)}and save it as\n  {path}\n"
            "(or run `make data` on a machine with internet), then run this cell again."
        ) from None
    digest = hashlib.sha256(payload).hexdigest()
    if digest != CORPUS_SHA256:
        raise CorpusError(
            f"The file downloaded from {url} has SHA-256 {digest}, not the expected {CORPUS_SHA256}.\n"
            f"It was discarded, and nothing was written to {path}. Try again later, or fetch the file by hand."
        )
    try:
        write_atomically(path, payload)
    except OSError as err:
        raise CorpusError(
            f"The corpus was downloaded and verified, but it cannot be saved in {path.parent} ({err}).\n"
            f"Make that folder writable (e.g. `chmod u+w {path.parent}`), or save the file from\n  {url}\n"
            f"there by hand as {path.name}, then run this cell again."
        ) from None
    print(f"Downloaded and verified the corpus ({len(payload):,} bytes).")
    return path


def also_from(url: str) -> str:
    """For a download from a mirror that failed: a line naming the corpus's own address too."""
    return "" if url == CORPUS_URL else f"(a mirror) or from its own address\n  {CORPUS_URL}\n"


def write_atomically(path: Path, payload: bytes) -> None:
    """Write `payload` to a temporary file beside `path`, then rename it into place (never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; the corpus and the notebooks are not
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_text(path: Path = CORPUS_PATH) -> str:
    """Return the whole corpus as one string, fetching and verifying it on first use."""
    return ensure_corpus(path).read_text(encoding="utf-8")


def quote_around(text: str, i: int, width: int = QUOTE_AROUND) -> str:
    """`text` quoted with at most `width` characters either side of position `i`, … marking cuts."""
    start, stop = max(0, i - width), min(len(text), i + width + 1)
    return ("…" if start else "") + repr(text[start:stop]) + ("…" if stop < len(text) else "")


def encode(text: str) -> list[int]:
    """Turn a string into a list of character indices (0…64)."""
    if not isinstance(text, str):
        raise TypeError(f"encode() takes a string, not {type(text).__name__}.")
    if not text:
        raise ValueError("encode() got an empty string: give it at least one character, e.g. encode('hou').")
    i = next((i for i, ch in enumerate(text) if ch not in STOI), None)
    if i is not None:
        ch = text[i]
        raise ValueError(
            f"Character {ch!r} (U+{ord(ch):04X}) at position {i} of {quote_around(text, i)} is not in the "
            "65-character vocabulary of tiny Shakespeare. Use plain English letters, digit 3, space, newline "
            "and the punctuation ! $ & ' , - . : ; ? only."
        )
    return [STOI[ch] for ch in text]


DECODE_HINT = "pass character indices: a list of ints, or an integer tensor or array such as logits.argmax(-1)"


def is_integer_dtype(dtype) -> bool:
    """True for a torch or NumPy integer dtype (booleans, floats and complex numbers are not indices)."""
    if isinstance(dtype, torch.dtype):
        return not (dtype == torch.bool or dtype.is_floating_point or dtype.is_complex)
    return dtype.kind in "iu"


def index_list(indices) -> list:
    """The indices as a flat Python list, from a tensor, NumPy array or scalar, list or int."""
    if indices is None or isinstance(indices, (bool, np.bool_, str, bytes)):
        raise TypeError(f"decode() got {indices!r}: {DECODE_HINT}.")
    if isinstance(indices, (torch.Tensor, np.ndarray, np.generic)):
        dtype = indices.dtype
        if not is_integer_dtype(dtype):
            raise TypeError(f"decode() got a {type(indices).__name__} of dtype {dtype}: {DECODE_HINT}.")
        indices = indices.tolist()
    if isinstance(indices, numbers.Integral):
        return [indices]
    try:
        return list(indices)
    except TypeError:
        raise TypeError(f"decode() got a {type(indices).__name__}: {DECODE_HINT}.") from None


def decode(indices) -> str:
    """Turn indices back into a string: a list, a tensor (0-d, e.g. `logits.argmax()`, or 1-d) or an array."""
    indices = index_list(indices)
    for i in indices:
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
            raise TypeError(f"decode() got {i!r} among the indices: {DECODE_HINT}.")
        if not 0 <= i < VOCAB_SIZE:
            raise ValueError(f"decode() got {i!r}, which is not an index from 0 to {VOCAB_SIZE - 1}.")
    return "".join(CHARS[int(i)] for i in indices)


def train_val_split(data: torch.Tensor, train_fraction: float = 0.9) -> tuple[torch.Tensor, torch.Tensor]:
    """Split an encoded corpus into its first 90% (train) and the rest (validation)."""
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be strictly between 0 and 1, not {train_fraction}.")
    n = int(train_fraction * len(data))
    return data[:n], data[n:]


def check_positive_int(name: str, value, meaning: str, at_least: int = 1) -> None:
    """Raise a ValueError naming `name` unless `value` is a whole number of at least `at_least` (1 by default)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < at_least:
        raise ValueError(f"{name} must be a whole number of at least {at_least} ({meaning}), not {value!r}.")


def get_batch(data: torch.Tensor, block_size: int, batch_size: int, device="cpu", generator=None):
    """Sample `batch_size` random chunks: inputs x and next-character targets y, both (B, T) on `device`."""
    check_positive_int("block_size", block_size, "how many characters each chunk holds, e.g. 8")
    check_positive_int("batch_size", batch_size, "how many chunks to sample at once, e.g. 32")
    if len(data) <= block_size:
        raise ValueError(f"The data has {len(data)} characters: it needs more than block_size={block_size}.")
    on = generator.device if generator is not None else "cpu"  # a CPU or a GPU generator: draw where it lives
    starts = torch.randint(len(data) - block_size, (batch_size,), generator=generator, device=on)
    rows = starts.to(data.device)[:, None] + torch.arange(block_size + 1, device=data.device)  # (B, T + 1) indices
    chunks = data[rows]  # each chunk and the character after it
    return chunks[:, :-1].to(device), chunks[:, 1:].to(device)


def consecutive_chunks(data: torch.Tensor, block_size: int, n_chunks=None, device="cpu"):
    """The text cut into back-to-back chunks, so each character is predicted once: x and y, (n, block_size).

    y is x shifted by one character; `n_chunks` takes only the first ones (default: all that fit).
    """
    check_positive_int("block_size", block_size, "how many characters each chunk holds, e.g. 8")
    fit = (len(data) - 1) // block_size
    n = fit if n_chunks is None else n_chunks
    if not 1 <= n <= fit:
        raise ValueError(f"{n} chunks of {block_size} do not fit in {len(data)} characters: ask for 1 to {fit}.")
    x = data[: n * block_size].view(n, block_size)
    y = data[1 : n * block_size + 1].view(n, block_size)
    return x.to(device), y.to(device)
