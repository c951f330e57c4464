"""Gzip data from outside, read no further than a bound (a gzip bomb is refused unread)."""

from __future__ import annotations

import gzip
import io


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
