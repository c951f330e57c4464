"""Reference token counts: GPT-2's byte-level BPE, the same for every model.

A model's own tokenizer decides how many tokens a text is, so tokens per second of two models
with different tokenizers do not compare. Counting the same text with one fixed tokenizer does
(EuroEval's speed task counted GPT-2 tokens). The merge list ships with the engine
(``reference_data/``, checked against its published SHA-256 on load); the vocabulary is rebuilt
from it, and the ``tokenizers`` library does the encoding.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
from collections.abc import Sequence
from pathlib import Path

from evaluation.errors import EvaluationError

NAME = "gpt2"  # what records call it (``reference_tokenizer``)
MERGES_FILE = Path(__file__).parent / "reference_data" / "gpt2-vocab.bpe.gz"
MERGES_SHA256 = "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5"
MERGES = 50_000
END_OF_TEXT = "<|endoftext|>"


def byte_symbols() -> list[str]:
    """GPT-2's printable stand-in for each byte value, in the order of its vocabulary: the
    printable Latin-1 bytes keep their own character, the other 68 get code points from 256 up."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    symbol = {b: chr(b) for b in printable} | {b: chr(256 + k) for k, b in enumerate(others)}
    return [symbol[b] for b in printable + others]


def read_merges(path: Path = MERGES_FILE) -> list[tuple[str, str]]:
    """GPT-2's merge list, checked against its SHA-256 and its length."""
    raw = gzip.decompress(path.read_bytes())
    if hashlib.sha256(raw).hexdigest() != MERGES_SHA256:
        raise EvaluationError(f"the reference tokenizer's merge list {path} is not GPT-2's (SHA-256 differs)")
    lines = raw.decode("utf-8").splitlines()[1:]  # the first line is "#version: 0.2"
    merges = [tuple(line.split(" ")) for line in lines if line]
    if len(merges) != MERGES or any(len(pair) != 2 for pair in merges):
        raise EvaluationError(f"the reference tokenizer's merge list {path} is damaged")
    return merges  # type: ignore[return-value]


@functools.cache
def tokenizer():
    """GPT-2's tokenizer (ids as GPT-2's: the byte symbols, then one per merge, then end-of-text)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    merges = read_merges()
    vocab = {symbol: k for k, symbol in enumerate(byte_symbols())}
    for left, right in merges:
        vocab[left + right] = len(vocab)
    vocab[END_OF_TEXT] = len(vocab)
    tok = Tokenizer(models.BPE(vocab, merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    return tok


def encode(text: str) -> list[int]:
    """The reference tokenizer's token ids of ``text``."""
    return tokenizer().encode(text, add_special_tokens=False).ids


def count(text: str) -> int:
    """How many reference tokens ``text`` has."""
    return len(encode(text))


def count_all(texts: Sequence[str]) -> int:
    """Reference tokens of all ``texts`` together (encoded as a batch, in parallel; without
    the offsets, and without turning each encoding's ids into a Python list)."""
    if not texts:
        return 0
    return sum(len(e) for e in tokenizer().encode_batch_fast(list(texts), add_special_tokens=False))
