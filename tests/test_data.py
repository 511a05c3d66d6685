"""The corpus download and checks, the vocabulary, encode/decode, splits and batches."""

import hashlib
from pathlib import Path

import pytest
import torch

from helpers import data
from helpers.data import CHARS, CorpusError, decode, encode, ensure_corpus, get_batch, load_text, train_val_split

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


def test_empty_string_gets_a_clear_message():
    with pytest.raises(ValueError, match="empty string"):
        encode("")


def test_encode_rejects_non_strings():
    with pytest.raises(TypeError, match="takes a string"):
        encode(["h", "o"])


def test_decode_rejects_out_of_range_indices():
    with pytest.raises(ValueError, match="65 is not|not an index"):
        decode([1, 65])


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
