"""Gzip data and JSON lines from outside, read no further than a bound: a gzip bomb is
refused unread, and a line longer than the limit is skipped in chunks, never held whole."""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from typing import BinaryIO

CHUNK_BYTES = 1 << 16


class TooLarge(ValueError):
    """The data decompresses to more than the bound."""


def gunzip_bounded(data: bytes, max_bytes: int) -> bytes:
    """The decompressed bytes; :class:`TooLarge` past ``max_bytes``, ValueError when the
    data is not gzip (or is cut off)."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            raw = handle.read(max_bytes + 1)
    except (OSError, EOFError) as exc:
        raise ValueError(f"not gzip data: {exc}") from None
    if len(raw) > max_bytes:
        raise TooLarge(f"decompresses to more than {max_bytes} bytes")
    return raw


def bounded_lines(
    stream: BinaryIO | io.BufferedIOBase, max_line: int, max_total: int | None = None, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[bytes | None]:
    """Each line of ``stream`` (without its newline), read in chunks of ``chunk_bytes``;
    ``None`` for a line longer than ``max_line`` bytes, whose rest is read and dropped chunk
    by chunk (at most ``max_line + chunk_bytes`` bytes are held at any time). Raises
    :class:`TooLarge` once more than ``max_total`` bytes were read, and whatever the stream
    raises (a cut-off gzip: EOFError, a corrupt one: OSError) where it happens."""
    buffer = bytearray()
    too_long = False
    total = 0
    while chunk := stream.read(chunk_bytes):
        total += len(chunk)
        if max_total is not None and total > max_total:
            raise TooLarge(f"more than {max_total} bytes")
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if not too_long:
                buffer += chunk[start : end if end >= 0 else len(chunk)]
                if len(buffer) > max_line:
                    too_long = True
                    buffer.clear()
            if end < 0:
                break
            yield None if too_long else bytes(buffer)
            buffer.clear()
            too_long = False
            start = end + 1
    if too_long:
        yield None
    elif buffer:
        yield bytes(buffer)


def gzip_lines(data: bytes, max_line: int, max_total: int) -> Iterator[bytes | None]:
    """:func:`bounded_lines` of gzip-compressed ``data``; ValueError when it is not gzip
    (or is cut off), :class:`TooLarge` past ``max_total`` decompressed bytes."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            yield from bounded_lines(handle, max_line, max_total)
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"not gzip data: {exc}") from None
