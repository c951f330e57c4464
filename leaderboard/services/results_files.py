"""Reading a JSONL results file, gzip-compressed when named ``*.gz``: each non-blank line
decoded on its own, in bounded chunks, so a malformed, overlong or truncated line is an
error for that line and never takes the file down."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path

from evaluation.compressed import bounded_lines

__all__ = ["MAX_LINE", "read_records"]

MAX_LINE = 10_000_000  # bytes in one JSONL line


def read_records(path: Path) -> Iterator[tuple[int, object | None, str | None]]:
    """Yield (line number, decoded record or None, error or None) for each non-blank line
    of a JSONL file, gzip-compressed when its name ends in ``.gz``. Lines are read in
    bounded chunks: one longer than MAX_LINE bytes is an error and is never held whole. A
    file that cannot be read to its end (a truncated archive) yields one last error
    instead of raising."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    number = 0
    try:
        with opener(path, "rb") as handle:
            for number, line in enumerate(bounded_lines(handle, MAX_LINE), start=1):
                yield from _decode_line(number, line)
    except (OSError, EOFError, zlib.error) as exc:
        yield number + 1, None, f"file unreadable from here on ({type(exc).__name__}: {exc})"


def _decode_line(number: int, line: bytes | None) -> Iterator[tuple[int, object | None, str | None]]:
    if line is None:
        yield number, None, f"line longer than {MAX_LINE} bytes"
        return
    text = line.decode("utf-8", errors="replace")
    if not text.strip():
        return
    try:
        yield number, json.loads(text), None
    except json.JSONDecodeError as exc:
        yield number, None, f"not valid JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        yield number, None, "not valid JSON (nested too deep)"
