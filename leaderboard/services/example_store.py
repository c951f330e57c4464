"""Per-example evidence stored with its evaluation.

Examples arrive as the engine writes them (gzip-compressed JSON lines,
``evaluation/examples.py``): from a GPU worker's ``record`` event, or from the
``*.examples.jsonl.gz`` file beside a results file that ``import_results`` reads. They are
hostile input like the record: a file that is not what the record says it is (other rows,
other draws, more rows than the split, an example of another shape or with other scores than
the task's: :mod:`evaluation.example_shape`) is refused with the reason, and the record's
scores are stored all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evaluation.examples import EXAMPLES_SUFFIX, MAX_COMPRESSED_BYTES, decode_examples
from evaluation.tasks import UnknownTask, get_task
from leaderboard.models import Evaluation, EvaluationExamples
from leaderboard.record_fields import MAX_ITERATIONS


class InvalidExamples(ValueError):
    pass


class ExamplesNotFound(InvalidExamples):
    pass


@dataclass(frozen=True)
class CheckedExamples:
    """Examples proven to be a record's evidence: the bytes to store and what they decode to."""

    data: bytes
    examples: list[dict]
    score_keys: tuple[str, ...] = ()


def score_keys_of(task: object) -> tuple[str, ...]:
    """The per-example score keys of ``task`` (a task name); InvalidExamples when unknown."""
    try:
        return get_task(task).kind.example_score_keys  # type: ignore[arg-type]
    except UnknownTask:
        raise InvalidExamples(f"examples of an unknown task {str(task)[:60]!r}") from None


def _rows_evaluated(record: dict, split: str) -> int:
    sizes = record.get("dataset_split_sizes")
    size = sizes.get(split) if isinstance(sizes, dict) else None
    limit = record.get("limit")
    rows = [n for n in (limit, size) if isinstance(n, int) and not isinstance(n, bool) and n > 0]
    if not rows:
        raise InvalidExamples("the record does not say how many rows were evaluated")
    return min(rows)


def _iterations(record: dict, iterations: int | None) -> int:
    if iterations is None:
        iterations = record.get("iterations")
        if iterations is None:
            raw = (record.get("results") or {}).get("raw") if isinstance(record.get("results"), dict) else None
            iterations = len(raw) if isinstance(raw, list) else 0
    if not isinstance(iterations, int) or isinstance(iterations, bool) or not 0 < iterations <= MAX_ITERATIONS:
        raise InvalidExamples("the record does not say how many iterations were run")
    return iterations


def check_examples(data: bytes, record: dict, iterations: int | None = None) -> CheckedExamples:
    """The examples in ``data`` if they are the evidence of ``record`` (``iterations``: the
    record's count when known, else its ``iterations`` field); InvalidExamples otherwise.
    Every example must have the exact shape of :mod:`evaluation.example_shape`, with the
    task's score keys."""
    if not isinstance(data, bytes | bytearray) or not data:
        raise InvalidExamples("no examples")
    if len(data) > MAX_COMPRESSED_BYTES:
        raise InvalidExamples(f"examples file larger than {MAX_COMPRESSED_BYTES} bytes")
    keys = score_keys_of(record.get("task"))
    iterations = _iterations(record, iterations)
    split = "val" if record.get("validation_split") is True else "test"
    rows = _rows_evaluated(record, split)
    try:
        examples = decode_examples(bytes(data), score_keys=keys)
    except ValueError as exc:
        raise InvalidExamples(str(exc)) from None
    ids = [example["example_id"] for example in examples]
    if len(set(ids)) != len(ids):
        raise InvalidExamples("an example id appears twice")
    bad = [i for i in ids if not (i.startswith(f"{split}:") and i[len(split) + 1 :].isdigit() and i.isascii())]
    if bad or any(int(i.split(":")[1]) >= rows for i in ids):
        raise InvalidExamples(f"example ids must be {split}:<row> with a row below {rows}, found {(bad or ids)[0]!r}")
    draws = [i for example in examples for i in example["iterations"]]
    if not all(0 <= i < iterations for i in draws) or len(draws) != iterations * rows:
        raise InvalidExamples(
            f"the examples' draws are not the record's: {iterations} iterations of {rows} rows "
            f"make {iterations * rows} draws, the examples list {len(draws)}"
        )
    return CheckedExamples(bytes(data), examples, keys)


def store_examples(evaluation: Evaluation, checked: CheckedExamples) -> bool:
    """Store checked examples as ``evaluation``'s (replacing older ones); True when they changed."""
    examples = checked.examples
    keys = list(checked.score_keys) or sorted({key for example in examples for key in example["scores"]})
    fields = {
        "data": checked.data,
        "num_examples": len(examples),
        "num_invalid": sum(1 for example in examples if not example["valid"]),
        "score_keys": keys,
    }
    current = EvaluationExamples.objects.filter(evaluation=evaluation).first()
    if current is not None and bytes(current.data) == fields["data"]:
        return False
    EvaluationExamples.objects.update_or_create(evaluation=evaluation, defaults=fields)
    return True


def examples_beside(results_file: Path, record: dict) -> Path | None:
    """The examples file a record names, looked up beside ``results_file`` (where the
    engine's CLI writes it: ``<stem>.predictions/``) by its name only: a record cannot
    point the importer anywhere else."""
    name = Path(str(record.get("examples_file") or "")).name
    if not name.endswith(EXAMPLES_SUFFIX):
        return None
    results_file = Path(results_file)
    stems = {results_file.stem, Path(results_file.stem).stem}  # out.jsonl, out.jsonl.gz → out
    folders = [results_file.parent / f"{stem}.predictions" for stem in sorted(stems)] + [results_file.parent]
    for candidate in (folder / name for folder in folders):
        if candidate.is_file() and not candidate.is_symlink():
            return candidate
    return None


def examples_for_import(results_file: Path, record: dict, iterations: int | None = None) -> CheckedExamples | None:
    """The checked examples file ``record`` names, read from beside ``results_file``; None
    when it names none. Raises ExamplesNotFound or InvalidExamples (with the file's name)."""
    if not record.get("examples_file"):
        return None
    found = examples_beside(results_file, record)
    if found is None:
        raise ExamplesNotFound(f"{Path(str(record['examples_file'])).name} is not beside {Path(results_file).name}")
    try:
        if found.stat().st_size > MAX_COMPRESSED_BYTES:
            raise InvalidExamples(f"{found.name}: larger than {MAX_COMPRESSED_BYTES} bytes")
        data = found.read_bytes()
    except OSError as exc:
        raise InvalidExamples(f"{found.name}: unreadable ({exc})") from None
    try:
        return check_examples(data, record, iterations)
    except InvalidExamples as exc:
        raise InvalidExamples(f"{found.name}: {exc}") from None
