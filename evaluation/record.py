"""The result record of one dataset (COMMON contract #2): what was scored, the scores of every iteration, how
they were computed and with which package versions; and the predictions file beside it."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
from pathlib import Path

from evaluation.backends.base import Backend
from evaluation.bootstrap import SEED
from evaluation.metrics import totals
from evaluation.models import ModelInfo

VERSION_PACKAGES = (
    "glossa",
    "numpy",
    "torch",
    "transformers",
    "xgrammar",
    "scikit-learn",
    "seqeval",
    "sacrebleu",
    "rouge-score",
    "vllm",
    "httpx",
)


def package_versions() -> dict[str, str]:
    """The installed versions of the packages a record names."""
    versions = {}
    for name in VERSION_PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def build_record(
    info: ModelInfo,
    ds_info,
    task: str,
    raw: list[dict],
    settings,
    backend: Backend,
    style: str,
    shot_ids: list[list[int]],
) -> dict:
    """The result record of one dataset: the model, the dataset, the scores of every iteration and their totals, and
    how they were computed. ``settings`` is the run's :class:`evaluation.runner.EvaluationSettings`."""
    return {
        "dataset": ds_info.name,
        "dataset_version": ds_info.fingerprint,
        "dataset_split_sizes": ds_info.split_sizes,
        "task": task,
        "dataset_languages": list(ds_info.languages),
        "model": info.model_id,
        "results": {"raw": raw, "total": totals(raw, "test")},
        "num_model_parameters": info.num_parameters,
        "max_sequence_length": info.max_sequence_length,
        "vocabulary_size": info.vocabulary_size,
        "generative": info.generative,
        "generative_type": info.generative_type,
        "few_shot": bool(settings.few_shot),
        "validation_split": bool(settings.validation_split),
        "model_revision": info.revision,
        "model_commit": info.commit_sha,
        "precision": info.precision,
        "backend": backend.name,
        "prompt_style": style,
        "seed": SEED,
        "iterations": len(raw),
        "limit": settings.limit,
        "shot_ids": shot_ids,
        "versions": package_versions(),
        "predictions_file": None,
        "efficiency": None,  # what it cost (evaluation/measurement.py), where it was measured
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }


def write_predictions(folder: Path, record: dict, predictions: list[dict]) -> Path:
    """Write the predictions as JSON lines into ``folder``, named after the model and the dataset; the file's path."""
    folder.mkdir(parents=True, exist_ok=True)
    safe_model = record["model"].replace("/", "--")
    path = folder / f"{safe_model}.{record['dataset']}.predictions.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for entry in predictions:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
    return path
