"""The corpus download and checks, the vocabulary, encode/decode, splits and batches."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from helpers import data
from helpers.data import (
    CHARS,
    CorpusError,
    consecutive_chunks,
    decode,
    encode,
    ensure_corpus,
    get_batch,
    load_text,
    train_val_split,
)

ROOT = Path(__file__).resolve().parent.parent
OFFLINE_URL = "http://127.0.0.1:9/tinyshakespeare.txt"  # nothing listens on port 9: the request fails at once


@pytest.fixture(scope="module")
def corpus_bytes() -> bytes:
    return data.CORPUS_PATH.read_bytes()


def file_url(path: Path) -> str:
    return path.resolve().as_uri()


def test_the_corpus_in_data_is_the_verified_one(corpus_bytes):
    assert hashlib.sha256(corpus_bytes).hexdigest() == data.CORPUS_SHA256
    text = load_text()
    assert len(text) == 1_115_394
    assert "".join(sorted(set(text))) == CHARS and len(CHARS) == 65


def test_u_is_index_59_and_round_trip():
    assert encode("u") == [59]
    assert decode(encode("thou art")) == "thou art"
    assert decode(torch.tensor(encode("hou"))) == "hou"


def test_unknown_character_is_named():
    with pytest.raises(ValueError, match=r"'é' \(U\+00E9\) at position 3"):
        encode("café")


def test_unknown_character_in_a_huge_string_quotes_only_a_short_window():
    text = "a" * 500_000 + "é" + "b" * 500_000
    with pytest.raises(ValueError) as err:
        encode(text)
    message = str(err.value)
    assert len(message) < 400
    assert "'é' (U+00E9) at position 500000" in message
    assert "…'" + "a" * 20 + "é" + "b" * 20 + "'…" in message
    assert "punctuation" in message  # still says what is allowed


def test_unknown_character_near_the_start_has_no_leading_ellipsis():
    with pytest.raises(ValueError, match=r"of 'hé'[^…]"):
        encode("hé")


def test_empty_string_gets_a_clear_message():
    with pytest.raises(ValueError, match="empty string"):
        encode("")


def test_encode_rejects_non_strings():
    with pytest.raises(TypeError, match="takes a string"):
        encode(["h", "o"])


def test_decode_rejects_out_of_range_indices():
    with pytest.raises(ValueError, match="65 is not|not an index"):
        decode([1, 65])


@pytest.mark.parametrize(
    "indices",
    [
        torch.tensor(59),
        torch.tensor([59]),
        [59],
        59,
        np.array([59]),
        np.int64(59),
        [np.int32(59)],
        torch.tensor([[59]])[0],
    ],
    ids=["0-d tensor", "1-d tensor", "list", "int", "numpy array", "numpy scalar", "list of numpy ints", "row"],
)
def test_decode_accepts_every_integer_form(indices):
    assert decode(indices) == "u"


def test_decode_of_an_argmax_gives_one_character():
    logits = torch.zeros(65)
    logits[59] = 1.0
    assert decode(logits.argmax()) == "u"


@pytest.mark.parametrize(
    "indices",
    [
        None,
        True,
        [True, False],
        torch.tensor([True]),
        np.array([True]),
        torch.tensor([1.0]),
        [1.5],
        np.array([2.0]),
        "hou",
    ],
    ids=[
        "None",
        "bool",
        "list of bools",
        "bool tensor",
        "bool array",
        "float tensor",
        "float list",
        "float array",
        "string",
    ],
)
def test_decode_rejects_what_is_not_an_index_and_says_what_to_pass(indices):
    with pytest.raises(TypeError, match="pass character indices"):
        decode(indices)


def test_good_file_is_kept_without_network(tmp_path, corpus_bytes):
    target = tmp_path / "tinyshakespeare.txt"
    target.write_bytes(corpus_bytes)
    assert ensure_corpus(target, url=OFFLINE_URL) == target


def test_missing_corpus_is_downloaded_verified_and_moved_into_place(tmp_path, corpus_bytes):
    source = tmp_path / "served.txt"
    source.write_bytes(corpus_bytes)
    target = tmp_path / "data" / "tinyshakespeare.txt"
    ensure_corpus(target, url=file_url(source))
    assert target.read_bytes() == corpus_bytes
    assert sorted(p.name for p in target.parent.iterdir()) == ["tinyshakespeare.txt"]  # no temporary file left


def test_missing_corpus_offline_names_the_address_and_the_path(tmp_path):
    target = tmp_path / "tinyshakespeare.txt"
    with pytest.raises(CorpusError) as err:
        ensure_corpus(target, url=OFFLINE_URL)
    assert OFFLINE_URL in str(err.value) and str(target) in str(err.value)
    assert not target.exists()


def test_a_mirror_named_in_course_corpus_url_is_where_the_notebooks_download_from(tmp_path, corpus_bytes, monkeypatch):
    source = tmp_path / "mirror.txt"
    source.write_bytes(corpus_bytes)
    target = tmp_path / "data" / "tinyshakespeare.txt"
    monkeypatch.setenv(data.CORPUS_URL_ENV, file_url(source))
    assert load_text(target) == corpus_bytes.decode("utf-8")  # as a notebook asks: no address given
    monkeypatch.setenv(data.CORPUS_URL_ENV, OFFLINE_URL)
    with pytest.raises(CorpusError) as err:
        load_text(tmp_path / "elsewhere" / "tinyshakespeare.txt")
    assert OFFLINE_URL in str(err.value), "a mirror that does not answer is the address the message names"
    assert data.CORPUS_URL in str(err.value), "and the corpus's own address beside it"
    monkeypatch.delenv(data.CORPUS_URL_ENV)
    assert data.corpus_url() == data.CORPUS_URL


def test_download_with_wrong_checksum_is_discarded(tmp_path, corpus_bytes):
    source = tmp_path / "served.txt"
    source.write_bytes(corpus_bytes[:-1] + b"?")
    target = tmp_path / "data" / "tinyshakespeare.txt"
    target.parent.mkdir()
    with pytest.raises(CorpusError, match="SHA-256"):
        ensure_corpus(target, url=file_url(source))
    assert list(target.parent.iterdir()) == []  # neither the bad file nor a temporary one


def test_corrupt_local_file_is_moved_aside_and_replaced(tmp_path, corpus_bytes):
    source = tmp_path / "served.txt"
    source.write_bytes(corpus_bytes)
    target = tmp_path / "tinyshakespeare.txt"
    target.write_bytes(b"not shakespeare")
    ensure_corpus(target, url=file_url(source))
    assert target.read_bytes() == corpus_bytes
    assert (tmp_path / "tinyshakespeare.txt.corrupt").read_bytes() == b"not shakespeare"


def test_corrupt_local_file_offline_is_not_used(tmp_path):
    target = tmp_path / "tinyshakespeare.txt"
    target.write_bytes(b"not shakespeare")
    with pytest.raises(CorpusError, match="could not be downloaded"):
        ensure_corpus(target, url=OFFLINE_URL)
    assert not target.exists()
    assert (tmp_path / "tinyshakespeare.txt.corrupt").read_bytes() == b"not shakespeare"


def test_a_second_corrupt_file_never_overwrites_the_first_kept_aside(tmp_path, corpus_bytes):
    source = tmp_path / "served.txt"
    source.write_bytes(corpus_bytes)
    target = tmp_path / "tinyshakespeare.txt"
    for n, junk in enumerate([b"first junk", b"second junk", b"third junk"]):
        target.write_bytes(junk)
        ensure_corpus(target, url=file_url(source))
        assert target.read_bytes() == corpus_bytes, n
    assert (tmp_path / "tinyshakespeare.txt.corrupt").read_bytes() == b"first junk"
    assert (tmp_path / "tinyshakespeare.txt.corrupt.1").read_bytes() == b"second junk"
    assert (tmp_path / "tinyshakespeare.txt.corrupt.2").read_bytes() == b"third junk"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left


def test_a_good_copy_that_arrives_after_the_check_is_never_moved_aside(tmp_path, corpus_bytes, monkeypatch):
    # Another process replaced the corrupt file with a verified copy between our check and our move.
    target = tmp_path / "tinyshakespeare.txt"
    target.write_bytes(corpus_bytes)
    real_is_verified = data.is_verified
    calls = []

    def stale_first_check(path):
        calls.append(path)
        return False if len(calls) == 1 else real_is_verified(path)

    monkeypatch.setattr(data, "is_verified", stale_first_check)
    assert ensure_corpus(target, url=OFFLINE_URL) == target  # no download was needed
    assert target.read_bytes() == corpus_bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tinyshakespeare.txt"]
    assert len(calls) >= 2 and calls[1] != target  # the re-check hashed the renamed file, not the path


def test_a_file_another_process_already_moved_aside_is_simply_fetched(tmp_path, corpus_bytes, monkeypatch):
    source = tmp_path / "served.txt"
    source.write_bytes(corpus_bytes)
    target = tmp_path / "data" / "tinyshakespeare.txt"
    target.parent.mkdir()
    target.write_bytes(b"junk")
    real_rename = os.rename

    def rename_after_the_other_process(src, dst):
        if Path(src) == target:
            real_rename(src, str(target) + ".corrupt")  # the other process wins the race
        return real_rename(src, dst)

    monkeypatch.setattr(data.os, "rename", rename_after_the_other_process)
    ensure_corpus(target, url=file_url(source))
    assert target.read_bytes() == corpus_bytes
    assert sorted(p.name for p in target.parent.iterdir()) == ["tinyshakespeare.txt", "tinyshakespeare.txt.corrupt"]


def deny(*args, **kwargs):
    raise PermissionError(13, "Permission denied")


def test_a_corrupt_file_in_a_read_only_folder_gives_advice_not_a_traceback(tmp_path, monkeypatch):
    target = tmp_path / "tinyshakespeare.txt"
    target.write_bytes(b"junk")
    monkeypatch.setattr(data.os, "rename", deny)  # what a read-only folder does (tests may run as root)
    with pytest.raises(CorpusError, match="permissions") as err:
        ensure_corpus(target, url=OFFLINE_URL)
    assert str(tmp_path) in str(err.value) and OFFLINE_URL in str(err.value)
    assert target.read_bytes() == b"junk"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tinyshakespeare.txt"]


# ---------------------------------------------------------------------------------------------
# Whatever stands where the corpus should be: one sentence naming it, nothing read beyond the
# corpus's size, nothing waited on


def ensure_corpus_in_a_fresh_python(target: Path) -> str:
    """ensure_corpus(target) offline in a child Python held to 2 GB of memory and 60 s, so that a check
    which reads endlessly or waits fails this test instead of filling the machine or hanging it;
    returns the CorpusError's message."""
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
        "from helpers.data import CorpusError, ensure_corpus\n"
        "try:\n"
        f"    ensure_corpus(sys.argv[1], url={OFFLINE_URL!r})\n"
        "except CorpusError as err:\n"
        "    print(err)\n"
    )
    run = subprocess.run([sys.executable, "-c", script, str(target)], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.strip()


@pytest.mark.slow  # a fresh Python (torch imported afresh): `make test-slow`
@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_link_to_dev_zero_is_refused_without_reading_it(tmp_path):
    target = tmp_path / "tinyshakespeare.txt"
    target.symlink_to("/dev/zero")
    message = ensure_corpus_in_a_fresh_python(target)
    assert message == (
        f"{target} is a link to /dev/zero, which is a device, not the corpus file: move it out of the way (rename "
        "it, or delete it if you do not need it), then run this cell again to download the corpus there."
    )
    assert target.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["tinyshakespeare.txt"]


@pytest.mark.slow  # a fresh Python (torch imported afresh): `make test-slow`
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_is_refused_without_waiting_on_it(tmp_path):
    target = tmp_path / "tinyshakespeare.txt"
    os.mkfifo(target)
    message = ensure_corpus_in_a_fresh_python(target)
    assert message.startswith(f"{target} is a named pipe (FIFO), not the corpus file: move it out of the way")


def test_a_folder_where_the_corpus_should_be_is_named(tmp_path):
    target = tmp_path / "tinyshakespeare.txt"
    (target / "notes").mkdir(parents=True)
    with pytest.raises(CorpusError, match="is a folder, not the corpus file: move it out of the way") as err:
        ensure_corpus(target, url=OFFLINE_URL)
    assert "permissions" not in str(err.value) and "\n" not in str(err.value)
    assert (target / "notes").is_dir()  # left as it was


def test_a_file_where_the_data_folder_should_be_is_named(tmp_path):
    (tmp_path / "data").write_text("not a folder")
    target = tmp_path / "data" / "tinyshakespeare.txt"
    with pytest.raises(CorpusError) as err:
        ensure_corpus(target, url=OFFLINE_URL)
    assert str(err.value) == (
        f"{tmp_path / 'data'} is a file, but the corpus goes in a folder of that name: rename or move that file, "
        "then run this cell again."
    )
    assert (tmp_path / "data").read_text() == "not a folder"


def test_an_unreadable_corpus_names_the_file_not_the_folder(tmp_path, monkeypatch):
    # The tests may run as root, whom no permission bit stops: make opening the file fail as it would for a
    # mode-000 file (the next test does it with chmod where it can).
    target = tmp_path / "tinyshakespeare.txt"
    target.write_bytes(b"junk")
    real_open = os.open

    def denied_for_the_corpus(path, *args, **kwargs):
        if Path(path) == target:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(data.os, "open", denied_for_the_corpus)
    with pytest.raises(CorpusError) as err:
        ensure_corpus(target, url=OFFLINE_URL)
    assert str(err.value) == (
        f"{target} cannot be read (Permission denied): give yourself permission to read it "
        f"(e.g. `chmod u+r {target}`), then run this cell again."
    )
    assert target.read_bytes() == b"junk"


def test_a_mode_000_corpus_names_the_file(tmp_path):
    # Root (or a process allowed to override permissions) reads it anyway; as root, run this test under
    # `setpriv --bounding-set=-dac_override,-dac_read_search` to take that power away.
    target = tmp_path / "tinyshakespeare.txt"
    target.write_bytes(b"junk")
    target.chmod(0)
    try:
        try:
            target.open("rb").close()
        except PermissionError:
            pass
        else:
            pytest.skip("this process may read a mode-000 file")
        with pytest.raises(CorpusError, match="cannot be read .*chmod u\\+r"):
            ensure_corpus(target, url=OFFLINE_URL)
    finally:
        target.chmod(0o644)


def test_the_check_hashes_in_chunks_and_never_reads_past_the_corpus_size(tmp_path, corpus_bytes, monkeypatch):
    hashed = []
    real_sha256 = hashlib.sha256

    class CountingHash:
        def __init__(self):
            self.inner = real_sha256()

        def update(self, chunk):
            hashed.append(len(chunk))
            self.inner.update(chunk)

        def hexdigest(self):
            return self.inner.hexdigest()

    monkeypatch.setattr(data.hashlib, "sha256", CountingHash)
    good = tmp_path / "good.txt"
    good.write_bytes(corpus_bytes)
    assert data.is_verified(good)
    assert len(hashed) > 1 and sum(hashed) == data.CORPUS_BYTES == len(corpus_bytes)
    hashed.clear()
    longer = tmp_path / "longer.txt"
    longer.write_bytes(corpus_bytes + b"x" * 10_000_000)
    assert not data.is_verified(longer) and hashed == []  # the wrong size is enough: nothing is read


def test_a_download_reads_no_more_than_one_byte_past_the_corpus(tmp_path, monkeypatch):
    asked = []

    class EndlessResponse:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self, n=-1):
            asked.append(n)
            return b"x" * n if n >= 0 else b""

    monkeypatch.setattr(data.urllib.request, "urlopen", lambda url, timeout: EndlessResponse())
    with pytest.raises(CorpusError, match="SHA-256"):
        ensure_corpus(tmp_path / "tinyshakespeare.txt", url="http://mirror.invalid/tinyshakespeare.txt")
    assert asked == [data.CORPUS_BYTES + 1]


def test_corpus_errors_show_without_a_traceback_in_jupyter():
    assert CorpusError("the corpus is missing")._render_traceback_() == ["CorpusError: the corpus is missing"]


@pytest.mark.parametrize("broken", ["mkstemp", "replace"])
def test_a_download_into_a_read_only_folder_gives_advice_and_leaves_nothing(
    tmp_path, corpus_bytes, monkeypatch, broken
):
    source = tmp_path / "served.txt"
    source.write_bytes(corpus_bytes)
    target = tmp_path / "data" / "tinyshakespeare.txt"
    target.parent.mkdir()
    monkeypatch.setattr(data.tempfile if broken == "mkstemp" else data.os, broken, deny)
    with pytest.raises(CorpusError, match="cannot be saved") as err:
        ensure_corpus(target, url=file_url(source))
    assert "writable" in str(err.value) and "by hand" in str(err.value)
    assert list(target.parent.iterdir()) == []  # nothing half-written


def test_train_val_split_is_90_10_in_order():
    d = torch.arange(100)
    train, val = train_val_split(d)
    assert len(train) == 90 and len(val) == 10 and torch.equal(torch.cat([train, val]), d)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        train_val_split(d, 1.0)


def test_get_batch_targets_are_inputs_shifted_by_one():
    d = torch.arange(50)
    x, y = get_batch(d, block_size=8, batch_size=4, generator=torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (4, 8)
    assert torch.equal(y, x + 1)  # in arange data the next character is always one more


def test_get_batch_needs_more_data_than_one_block():
    with pytest.raises(ValueError, match="needs more than block_size"):
        get_batch(torch.arange(8), block_size=8, batch_size=1)


@pytest.mark.parametrize("name", ["block_size", "batch_size"])
@pytest.mark.parametrize("bad", [0, -1, 2.0, True, None])
def test_get_batch_rejects_sizes_that_are_not_positive_whole_numbers(name, bad):
    sizes = {"block_size": 4, "batch_size": 2, name: bad}
    with pytest.raises(ValueError, match=f"{name} must be a whole number of at least 1"):
        get_batch(torch.arange(50), **sizes)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_get_batch_takes_a_gpu_generator_too():
    data = torch.arange(100)
    x, y = get_batch(data, 8, 4, device="cuda", generator=torch.Generator(device="cuda").manual_seed(1))
    assert x.device.type == "cuda" and torch.equal(y[:, :-1], x[:, 1:])


def test_consecutive_chunks_cover_the_text_back_to_back():
    data = torch.arange(20)
    x, y = consecutive_chunks(data, 4)
    assert x.shape == (4, 4) and torch.equal(x.flatten(), data[:16]) and torch.equal(y.flatten(), data[1:17])
    x2, _ = consecutive_chunks(data, 4, n_chunks=2)
    assert torch.equal(x2, x[:2])
    with pytest.raises(ValueError, match="ask for 1 to 4"):
        consecutive_chunks(data, 4, n_chunks=5)
