"""Per-example evidence of one evaluation: what the model answered on each
test example, whether the answer could be read, how it scored, and in which bootstrap
iterations the example was drawn.

One entry per evaluated row of the test split (or the validation split, when that is what
was evaluated), in row order::

    {"example_id": "test:17",          # split and row number: stable within a dataset version
     "input": "...",                   # the document the prompt showed (the task kind's)
     "gold": ..., "label": ...,        # what the metrics compare with; the gold label (or null)
     "output": "...", "parsed": ...,   # the raw output (null when labels were scored), the answer read from it
     "valid": true,                    # the answer could be read (see TaskKind.answer_valid)
     "scores": {"correct": 1.0},       # TaskKind.example_scores, averaged over the attempts
     "iterations": [0, 0, 3],          # the bootstrap iterations that drew it, once per draw
     "attempts": [...]}                # only when the row was answered more than once

Decoders answer a row once per iteration that draws it, with that iteration's few-shot
examples, so the answers can differ: ``output``, ``parsed`` and ``valid`` are the first
attempt's, ``scores`` the mean over attempts, and ``attempts`` lists each one
(``iteration``, ``prompt_hash``, ``output``, ``parsed``, ``valid``, ``scores``). Encoders are
fine-tuned anew in each iteration, likewise.

Files: ``<model>.<dataset>.examples.jsonl.gz`` beside the predictions file (gzip, one JSON
object per line); :func:`write_examples` and :func:`read_examples`.
"""

from __future__ import annotations

import gzip
import io
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from evaluation.compressed import TooLarge, gzip_lines
from evaluation.example_shape import BadExample, check_example, shown

EXAMPLES_SUFFIX = ".examples.jsonl.gz"
FIELDS = ("example_id", "input", "gold", "label", "output", "parsed", "valid", "scores", "iterations")


def _mean_scores(scores: Sequence[dict[str, float]]) -> dict[str, float]:
    keys = scores[0].keys()
    return {key: sum(s[key] for s in scores) / len(scores) for key in keys}


def build_examples(kind, fmt, rows: Sequence[dict], answers: Iterable[dict], split: str = "test") -> list[dict]:
    """The examples of one evaluation from its per-iteration answers.

    ``answers``: one dict per (iteration, row) answered, as the runner writes them to the
    predictions file: ``iteration``, ``row``, ``times`` (how often the iteration drew the
    row), ``prediction`` and the ``predict`` fields (``output``, ``valid_json``,
    ``prompt_hash``)."""
    by_row: dict[int, list[dict]] = defaultdict(list)
    for answer in answers:
        by_row[int(answer["row"])].append(answer)
    examples = []
    for r in sorted(by_row):
        row = rows[r]
        gold = kind.gold(row)
        attempts = []
        for answer in sorted(by_row[r], key=lambda a: a["iteration"]):
            attempt = {
                "iteration": int(answer["iteration"]),
                "prompt_hash": answer.get("prompt_hash"),
                "output": answer.get("output"),
                "parsed": answer["prediction"],
                "valid": bool(kind.answer_valid(fmt, row, answer)),
                "scores": kind.example_scores(gold, answer["prediction"]),
            }
            attempts.append((attempt, int(answer.get("times", 1))))
        first = attempts[0][0]
        example = {
            "example_id": f"{split}:{r}",
            "input": kind.document(fmt, row),
            "gold": gold,
            "label": kind.gold_label(row),
            "output": first["output"],
            "parsed": first["parsed"],
            "valid": first["valid"],
            "scores": _mean_scores([a["scores"] for a, _ in attempts]),
            "iterations": [a["iteration"] for a, times in attempts for _ in range(times)],
        }
        if len(attempts) > 1:
            example["attempts"] = [a for a, _ in attempts]
        examples.append(example)
    return examples


def attempt_in(example: dict, iteration: int) -> dict:
    """The example's answer in ``iteration`` (``output``, ``parsed``, ``valid``, ``scores``)."""
    for attempt in example.get("attempts") or []:
        if attempt["iteration"] == iteration:
            return attempt
    if iteration not in example["iterations"]:
        raise KeyError(f"{example['example_id']} was not drawn in iteration {iteration}")
    return example


def examples_path(folder: Path, record: dict) -> Path:
    """Where a record's examples file goes in ``folder``: named after the model and the dataset."""
    return Path(folder) / f"{record['model'].replace('/', '--')}.{record['dataset']}{EXAMPLES_SUFFIX}"


def encode_examples(examples: Iterable[dict]) -> bytes:
    """The gzip-compressed JSON lines of ``examples`` (what is stored and sent)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as handle:
        for example in examples:
            handle.write((json.dumps(example, ensure_ascii=False) + "\n").encode("utf-8"))
    return buffer.getvalue()


MAX_COMPRESSED_BYTES = 64 * 1024 * 1024  # what is sent and stored; 2,048 generated summaries take a few MB
MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024  # what one file may hold: 1,063 summaries of 10 iterations take ~20 MB
MAX_EXAMPLE_BYTES = 4 * 1024 * 1024  # one line (one example with its attempts)
PAGE_READ_BYTES = 16 * 1024 * 1024  # what a page or a download decompresses at most


def _lines(data: bytes, max_bytes: int):
    """(number, decoded JSON) of each non-blank line; ValueError for a line that is too
    long or not JSON, :class:`TooLarge` past ``max_bytes`` decompressed."""
    number = 0
    for number, line in enumerate(gzip_lines(data, MAX_EXAMPLE_BYTES, max_bytes), 1):
        if line is None:
            raise ValueError(f"example {number} is longer than {MAX_EXAMPLE_BYTES} bytes")
        if not line.strip():
            continue
        try:
            yield number, json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise ValueError(f"line {number} is not a JSON example: {exc}") from None


def decode_examples(
    data: bytes, max_bytes: int = MAX_DECOMPRESSED_BYTES, score_keys: Sequence[str] | None = None
) -> list[dict]:
    """The examples of gzip-compressed JSON lines, read line by line; ValueError for
    anything else, and for data that decompresses to more than ``max_bytes`` (read no
    further: a gzip bomb). With ``score_keys`` (the task kind's), every example is checked
    against the exact shape (:func:`evaluation.example_shape.check_example`)."""
    examples = []
    try:
        for number, example in _lines(data, max_bytes):
            if score_keys is not None:
                examples.append(check_example(example, score_keys, number))
            elif not isinstance(example, dict) or not all(field in example for field in FIELDS):
                raise ValueError(f"example {number} lacks one of the fields {', '.join(FIELDS)}")
            else:
                examples.append(example)
    except TooLarge:
        raise ValueError(f"examples decompress to more than {max_bytes} bytes") from None
    except BadExample:
        raise
    except ValueError as exc:
        raise ValueError(f"not gzip-compressed JSON lines of examples: {exc}") from None
    return examples


def read_shown(data: bytes, score_keys: Sequence[str], max_bytes: int = PAGE_READ_BYTES) -> tuple[list[dict], bool]:
    """The checked examples as a page shows them (:func:`evaluation.example_shape.shown`),
    reading at most ``max_bytes`` decompressed: (examples, whether all were read).
    ValueError (BadExample) when the data or an example read is not what it must be."""
    examples = []
    try:
        for number, example in _lines(data, max_bytes):
            examples.append(shown(check_example(example, score_keys, number)))
    except TooLarge:  # every example read is whole: lines are yielded at their newline
        return examples, False
    return examples, True


def write_examples(folder: Path, record: dict, examples: list[dict]) -> Path:
    """Write the record's examples (gzip-compressed JSON lines) into ``folder``; the file's path."""
    path = examples_path(folder, record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_examples(examples))
    return path


def read_examples(path: Path) -> list[dict]:
    """The examples in a file written by :func:`write_examples`."""
    return decode_examples(Path(path).read_bytes())
