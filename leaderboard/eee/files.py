"""Reading a results file that may hold Every Eval Ever logs.

EEE keeps one evaluation per ``.json`` file (often pretty-printed over many lines);
EuroEval's ``euroeval_benchmark_results.jsonl`` holds one record per line, EEE or not. A
``.json`` file is read as one JSON document (at most :data:`MAX_LOG_BYTES`, never more);
one that is not a single document (JSON lines under a ``.json`` name) and every other
file go to the importer's line reader, and each line's format is told apart later
(:func:`leaderboard.eee.records.as_legacy`), so mixed files import.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

MAX_LOG_BYTES = 10_000_000  # one EEE log, as the line reader bounds one line

Lines = Iterator[tuple[int, object | None, str | None]]


def _whole_document(path: Path) -> tuple[object | None, str | None, bool]:
    """(document, error, is_single_document) of a ``.json`` file read within the bound."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_LOG_BYTES + 1)
    except OSError as exc:
        return None, f"file unreadable ({type(exc).__name__}: {exc})", True
    if len(data) > MAX_LOG_BYTES:
        return None, f"a .json log larger than {MAX_LOG_BYTES} bytes is not read", True
    try:
        return json.loads(data.decode("utf-8", errors="replace")), None, True
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            return None, None, False  # several documents: JSON lines
        return None, f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})", True
    except RecursionError:
        return None, "not valid JSON (nested too deep)", True


def read_results(path: Path | str, read_lines: Callable[[Path], Lines]) -> Lines:
    """(line number, decoded record or None, error or None) for each record of ``path``:
    a ``.json`` EEE log is one record (line 1), anything else is read by ``read_lines``."""
    path = Path(path)
    if path.suffix.lower() == ".json":
        document, error, single = _whole_document(path)
        if single:
            yield 1, document, error
            return
    yield from read_lines(path)
