"""Stored evaluations → Every Eval Ever files: one log per evaluation (:mod:`.writer`), its
examples as EEE's instance-level sidecar (:mod:`.instances`) and as Glossa's own examples
file (so a re-import gets them back), for one evaluation, a model, or what a board counts.

File names: ``<model>.<dataset>.e<pk>.json`` (``/`` in the model id written ``--``), with
``.instances.jsonl`` and ``.examples.jsonl.gz`` beside it under the same stem.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.examples import EXAMPLES_SUFFIX, decode_examples
from evaluation.tasks import UnknownTask, get_task
from leaderboard.eee.instances import instance_row
from leaderboard.eee.writer import StoredEvaluation, eee_log, evaluation_id
from leaderboard.models import Evaluation, EvaluationExamples, Leaderboard, ModelType
from leaderboard.selectors.board_data import board_datasets, counted_board_evaluations, suite_datasets
from leaderboard.selectors.export import LeaderboardNotFound

INSTANCES_SUFFIX = ".instances.jsonl"
_UNSAFE = re.compile(r"[^A-Za-z0-9._#@+=-]")


@dataclass
class EvaluationFiles:
    """The files of one evaluation: name → bytes (the log first)."""

    stem: str
    files: dict[str, bytes] = field(default_factory=dict)


def file_stem(evaluation: Evaluation) -> str:
    model = _UNSAFE.sub("_", evaluation.model.model_id.replace("/", "--"))
    return f"{model}.{_UNSAFE.sub('_', evaluation.dataset.name)}.e{evaluation.pk}"


def _iterations(evaluation: Evaluation) -> list[dict[str, float]]:
    iterations: list[dict[str, float]] = [{} for _ in range(evaluation.num_iterations)]
    for iteration, metric, value in evaluation.scores.values_list("iteration", "metric", "value"):
        while len(iterations) <= iteration:
            iterations.append({})
        iterations[iteration][metric] = value
    return iterations


def stored_evaluation(evaluation: Evaluation, examples_file: str = "") -> StoredEvaluation:
    record = evaluation.record if isinstance(evaluation.record, dict) else {}
    return StoredEvaluation(
        record=record,
        iterations=_iterations(evaluation),
        dataset_version=evaluation.dataset_version.fingerprint,
        commit=evaluation.commit_sha,
        protocol=evaluation.protocol.key,
        retrieved=int(evaluation.updated_at.timestamp()),
        evaluated_at=str(record.get("created_at") or evaluation.created_at.isoformat()),
        source=evaluation.source,
        encoder=evaluation.model.model_type == ModelType.ENCODER,
        examples_file=examples_file,
    )


def _primary_result_id(evaluation: Evaluation, log: dict) -> str:
    try:
        primary = get_task(evaluation.dataset.task).primary_metric
    except UnknownTask:
        primary = ""
    results = log["evaluation_results"]
    for result in results:
        if result["evaluation_name"].endswith(primary) and primary:
            return result["evaluation_result_id"]
    return results[0]["evaluation_result_id"] if results else f"{evaluation.dataset.name}/"


def instance_lines(evaluation: Evaluation, examples: list[dict], log: dict) -> bytes:
    """The instance-level sidecar (JSON lines) of an evaluation's examples."""
    result_id = _primary_result_id(evaluation, log)
    rows = (
        instance_row(
            example,
            evaluation_id=log["evaluation_id"],
            model=evaluation.model.model_id,
            dataset=evaluation.dataset.name,
            result_id=result_id,
        )
        for example in examples
    )
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


def evaluation_files(evaluation: Evaluation) -> EvaluationFiles:
    """The EEE log of one evaluation, with its sidecars when it has stored examples."""
    stem = file_stem(evaluation)
    stored_examples = EvaluationExamples.objects.filter(evaluation=evaluation).first()
    examples_name = f"{stem}{EXAMPLES_SUFFIX}" if stored_examples else ""
    stored = stored_evaluation(evaluation, examples_name)
    log = eee_log(stored)
    out = EvaluationFiles(stem)
    if stored_examples is not None:
        data = bytes(stored_examples.data)
        sidecar = instance_lines(evaluation, decode_examples(data), log)
        log["detailed_evaluation_results"] = {
            "format": "jsonl",
            "file_path": f"{stem}{INSTANCES_SUFFIX}",
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(sidecar).hexdigest(),
            "total_rows": stored_examples.num_examples,
        }
        out.files[f"{stem}.json"] = _json_bytes(log)
        out.files[f"{stem}{INSTANCES_SUFFIX}"] = sidecar
        out.files[examples_name] = data
    else:
        out.files[f"{stem}.json"] = _json_bytes(log)
    return out


def _json_bytes(document: dict) -> bytes:
    return (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def log_of(evaluation: Evaluation) -> dict:
    """The one log of an evaluation, as the API serves it."""
    files = evaluation_files(evaluation)
    return json.loads(files.files[f"{files.stem}.json"])


def _counted_on(code: str, datasets) -> set[int]:
    """The evaluations a language (or suite) board counts, chosen as aggregation chooses them."""
    return set(counted_board_evaluations(code, datasets)[1])


def counted_evaluation_ids(code: str) -> list[int]:
    """The evaluations board ``code`` counts (a group board: its languages' boards)."""
    board = Leaderboard.objects.filter(code=code).first()
    if board is None:
        raise LeaderboardNotFound(f"no leaderboard {code!r}")
    available = {**board_datasets(), **suite_datasets()}
    codes = list(board.boards or []) if board.kind == "group" else [code]
    ids: set[int] = set()
    for member in codes:
        if member in available:
            ids |= _counted_on(member, available[member])
    return sorted(ids)


def selected_evaluations(board: str | None = None, model: str | None = None):
    """Evaluations to export: all, a board's counted ones, a model's, or both filters."""
    qs = Evaluation.objects.select_related("model", "dataset", "dataset_version").order_by("pk")
    if board:
        qs = qs.filter(pk__in=counted_evaluation_ids(board))
    if model:
        qs = qs.filter(model__model_id=model)
    return qs


def write_files(outdir: Path, evaluations: Iterable[Evaluation]) -> tuple[int, int]:
    """Write each evaluation's files into ``outdir``; (logs, files) written."""
    outdir.mkdir(parents=True, exist_ok=True)
    logs = files = 0
    for evaluation in evaluations:
        for name, data in evaluation_files(evaluation).files.items():
            (outdir / name).write_bytes(data)
            files += 1
        logs += 1
    return logs, files


def board_zip(code: str) -> bytes:
    """A board's counted evaluations as one zip of EEE files (logs and sidecars)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for evaluation in selected_evaluations(board=code):
            for name, data in evaluation_files(evaluation).files.items():
                archive.writestr(name, data)
    return buffer.getvalue()


__all__ = ["board_zip", "counted_evaluation_ids", "evaluation_files", "evaluation_id", "log_of", "write_files"]
