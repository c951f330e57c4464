"""Reads for the model and dataset pages."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from evaluation.datasets import SPLITS, DatasetInfo, InvalidDataset, find_local
from evaluation.stats import mean_ci
from evaluation.tasks import UnknownTask, get_task
from evaluation.tasks import short_label as task_short_label
from leaderboard.models import (
    Dataset,
    Evaluation,
    EvaluationExamples,
    IterationScore,
    LanguageModel,
    LeaderboardEntry,
    ModelType,
    Submission,
)
from leaderboard.ranking import (
    entry_display_name,  # noqa: F401  (the contract's display name)
)
from leaderboard.record_fields import DATASET_NAME
from leaderboard.registry.languages import language_name
from leaderboard.selectors import model_facts
from leaderboard.selectors.dataset_facts import boards_counting, euroeval_facts
from leaderboard.selectors.formatting import (
    MODEL_TYPES,
    board_url,
    dataset_url,
    examples_url,
    format_count,
    format_int,
    format_number,
    metric_label,
    model_url,
)
from leaderboard.selectors.model_history import commit_history, short_commit

# --- model page ---------------------------------------------------------------------


def _load_scores(evaluation_ids: list[int]) -> dict[int, dict[str, list[float]]]:
    """evaluation id → metric → iteration values (in iteration order), one query."""
    out: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    rows = (
        IterationScore.objects.filter(evaluation_id__in=evaluation_ids)
        .order_by("evaluation_id", "metric", "iteration")
        .values_list("evaluation_id", "metric", "value")
    )
    for evaluation_id, metric, value in rows:
        out[evaluation_id][metric].append(value)
    return out


def _metric_summary(values: list[float] | None) -> dict | None:
    if not values:
        return None
    m, ci = mean_ci(values)
    ci = ci or 0.0
    return {"mean": m * 100, "ci": ci * 100, "text": format_number(m * 100), "ci_text": format_number(ci * 100)}


def find_model(model_id: str) -> LanguageModel | None:
    """The model named ``model_id``; tolerates a missing or extra trailing slash (path ids)."""
    candidates = [model_id, model_id.rstrip("/"), model_id + "/"]
    models = {m.model_id: m for m in LanguageModel.objects.filter(model_id__in=candidates)}
    return next((models[c] for c in candidates if c in models), None)


def _engine_measures(record: dict) -> dict:
    """Bits per byte and the membership probe from a record (evaluation/intrinsic.py), each
    with its standard error where the record has one."""
    intrinsic = record.get("intrinsic") if isinstance(record.get("intrinsic"), dict) else {}
    probe = record.get("contamination") if isinstance(record.get("contamination"), dict) else {}
    bits, auc, p_value = intrinsic.get("bits_per_byte"), probe.get("auc"), probe.get("p_value")
    return {
        "bits_per_byte": f"{bits:.3f}{_plus_minus(intrinsic.get('bits_per_byte_se'), 3)}"
        if isinstance(bits, int | float)
        else "",
        "probe": (
            f"AUC {auc:.2f}{_plus_minus(probe.get('auc_se'), 2)}, p {p_value:.2g} "
            f"({probe.get('n_test')} test / {probe.get('n_train')} train texts)"
            if isinstance(auc, int | float) and isinstance(p_value, int | float)
            else ""
        ),
        "probe_flag": probe.get("flag") is True,
    }


def _plus_minus(se, digits: int) -> str:
    return f" ± {se:.{digits}f}" if isinstance(se, int | float) else ""


def _examples_link(model: LanguageModel, evaluation: Evaluation, with_examples: set[int]) -> str:
    if evaluation.pk not in with_examples:
        return ""
    url = examples_url(model.model_id, evaluation.dataset.name)
    return f"{url}?evaluation={evaluation.pk}" if url else ""


def _task_metrics(task: str) -> tuple[str, str]:
    """The task's primary and secondary metric; empty for a task the site does not know."""
    try:
        spec = get_task(task)
    except ValueError:
        return "", ""
    return spec.primary_metric, spec.secondary_metric


def _dataset_languages(record: dict) -> str:
    """The record's dataset languages, comma-separated (anything but a list of codes: none)."""
    listed = record.get("dataset_languages")
    languages = [code for code in listed if isinstance(code, str)] if isinstance(listed, list) else []
    return ", ".join(languages)


def _evaluation_row(
    model: LanguageModel, ev: Evaluation, metric_values: dict[str, list[float]], with_examples: set[int]
) -> dict:
    """One row of the model page's evaluations table: scores, run facts and how to reproduce it."""
    task = ev.dataset.task
    primary_metric, secondary_metric = _task_metrics(task)
    record = ev.record or {}
    return {
        "dataset": ev.dataset.name,
        "dataset_url": dataset_url(ev.dataset.name),
        "examples_url": _examples_link(model, ev, with_examples),
        **_engine_measures(record),
        "task": task,
        "task_label": task_short_label(task),
        "languages": _dataset_languages(record),
        "variant": model_facts.variant(ev, model),
        "few_shot": ev.few_shot,
        "validation_split": ev.validation_split,
        "primary_metric": metric_label(primary_metric),
        "secondary_metric": metric_label(secondary_metric),
        "primary": _metric_summary(metric_values.get(primary_metric)),
        "secondary": _metric_summary(metric_values.get(secondary_metric)),
        "primary_values": [v * 100 for v in metric_values.get(primary_metric, [])],
        "iterations": len(metric_values.get(primary_metric, [])) or ev.num_iterations,
        "revision": record.get("model_revision") or ev.revision or "",
        "commit": record.get("model_commit") or "",
        **model_facts.runtime(record, model),
        "prompt_style": record.get("prompt_style") or "",
        "seed": record.get("seed"),
        "limit": record.get("limit"),
        "versions": _versions_text(record.get("versions")),
        "created_at": record.get("created_at") or "",
        "source": ev.source,
        **model_facts.command(ev, model),
    }


def _board_row(model: LanguageModel, e: LeaderboardEntry) -> dict:
    """One row of the model page's boards table: the entry's rank, score and commit."""
    return {
        "code": e.leaderboard.code,
        "name": e.leaderboard.name,
        "url": board_url(e.leaderboard.code),
        "variant": entry_display_name(model.model_id, e.few_shot, e.validation_split),
        "rank": e.rank,
        "rank_set": (e.extra or {}).get("rank_set_marginal"),  # 95% set for this entry's rank
        "position": e.position,
        "of": e.leaderboard.num_entries,
        "score": format_number(e.rank_score),
        "score_ci": (
            f"{format_number(e.rank_score_ci_low)}–{format_number(e.rank_score_ci_high)}"
            if e.rank_score_ci_low is not None and e.rank_score_ci_high is not None
            else ""
        ),
        "task_rank_scores": e.task_rank_scores,
        "missing": ", ".join(e.missing_datasets or []),
        "commit": e.commit_sha,
        "commit_short": short_commit(e.commit_sha) if e.commit_sha else "",
    }


def model_page(model: LanguageModel) -> dict:
    """Everything the model page shows: the model's facts, its evaluations, its board
    entries, its commit history and its latest submissions."""
    evaluations = list(
        Evaluation.objects.filter(model=model)
        .select_related("dataset", "dataset_version")
        .order_by("dataset__task", "dataset__name", "-few_shot", "validation_split")
    )
    scores = _load_scores([e.id for e in evaluations])
    with_examples = set(
        EvaluationExamples.objects.filter(evaluation__in=evaluations).values_list("evaluation_id", flat=True)
    )
    rows = [_evaluation_row(model, ev, scores.get(ev.id, {}), with_examples) for ev in evaluations]
    entries = list(
        LeaderboardEntry.objects.filter(model=model)
        .select_related("leaderboard")
        .order_by("leaderboard__name", "position")
    )
    history = commit_history(
        model, evaluations, scores, {e.commit_sha for e in entries if e.commit_sha}, _metric_summary
    )
    submissions = list(Submission.objects.filter(model=model).order_by("-created_at")[:50])
    badge, type_label = MODEL_TYPES.get(model.model_type, MODEL_TYPES[ModelType.UNKNOWN])
    return {
        "model": model,
        **model_facts.identity(model),
        "type": model_facts.type_facts(model),
        "precision": model_facts.precision_text(model),
        "type_badge": badge,
        "type_label": type_label,
        "parameters": format_count(model.num_parameters),
        "vocabulary": format_count(model.vocabulary_size),
        "context": format_int(model.max_sequence_length),
        "evaluations": rows,
        "boards": [_board_row(model, e) for e in entries],
        "submissions": submissions,
        "history": history,
        "pinned_commit_short": short_commit(model.pinned_commit) if model.pinned_commit else "",
    }


def _versions_text(versions: object) -> str:
    """``{"transformers": "4.46"}`` as "transformers 4.46"; anything else stored is not shown."""
    if not isinstance(versions, dict):
        return ""
    return ", ".join(f"{k} {v}" for k, v in sorted(versions.items(), key=lambda kv: str(kv[0])))


# --- dataset page -------------------------------------------------------------------


def dataset_leaderboard(dataset: Dataset) -> list[dict]:
    """Every (model, variant) evaluated on ``dataset``, best primary mean first."""
    try:
        spec = get_task(dataset.task)
    except UnknownTask:
        return []  # a task the site does not know has no metrics to rank by
    evaluations = list(
        Evaluation.objects.filter(dataset=dataset)
        .select_related("model")
        .only("id", "few_shot", "validation_split", "model__model_id", "model__model_type", "model__num_parameters")
    )
    scores = _load_scores([e.id for e in evaluations])
    rows = []
    for ev in evaluations:
        primary = _metric_summary(scores.get(ev.id, {}).get(spec.primary_metric))
        if primary is None:
            continue
        badge, type_label = MODEL_TYPES.get(ev.model.model_type, MODEL_TYPES[ModelType.UNKNOWN])
        rows.append(
            {
                "name": entry_display_name(ev.model.model_id, ev.few_shot, ev.validation_split),
                "url": model_url(ev.model.model_id),
                "type": ev.model.model_type,
                "type_badge": badge,
                "type_label": type_label,
                "parameters": format_count(ev.model.num_parameters),
                "primary": primary,
                "secondary": _metric_summary(scores.get(ev.id, {}).get(spec.secondary_metric)),
            }
        )
    rows.sort(key=lambda r: -r["primary"]["mean"])
    for position, row in enumerate(rows, start=1):
        row["position"] = position
    return rows


EXAMPLES_PER_SPLIT = 3
EXAMPLE_TEXT_LIMIT = 600


def _head_jsonl(path: Path, count: int) -> list[dict]:
    """The first ``count`` rows of a JSONL file, without reading the rest of it."""
    rows: list[dict] = []
    if not path.is_file():
        return rows
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    break
            if len(rows) >= count:
                break
    return rows


def _shorten(text: str, limit: int = EXAMPLE_TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def format_example(row: dict) -> list[tuple[str, str]]:
    """A data row as (field, text) pairs for display; NER tokens are shown with their tags."""
    if "tokens" in row and "labels" in row:
        tagged = " ".join(t if tag == "O" else f"[{t}|{tag}]" for t, tag in zip(row["tokens"], row["labels"]))
        return [("tokens", _shorten(tagged))]
    pairs = []
    for key, value in row.items():
        if key == "answers" and isinstance(value, dict):
            value = " | ".join(value.get("text", []))
        elif key == "choices" and isinstance(value, list):
            value = "  ".join(f"{'abcdefgh'[i]}. {choice}" for i, choice in enumerate(value))
        elif not isinstance(value, str):
            value = json.dumps(value, ensure_ascii=False)
        pairs.append((key, _shorten(value)))
    return pairs


def dataset_files(
    dataset: Dataset, data_dir: Path
) -> tuple[DatasetInfo | None, dict[str, list[list[tuple[str, str]]]]]:
    """The dataset's ``dataset.json`` (found and parsed with evaluation.datasets) and the first
    few rows of each split; never the whole files, never the Hub (this runs in a page view)."""
    if dataset.path:
        folder = Path(dataset.path)
    elif DATASET_NAME.match(dataset.name):
        folder = find_local(dataset.name, data_dir) or Path(data_dir) / dataset.name
    else:
        return None, {}  # a stored name that is no folder name (``x/ds``): never a path outside the data dir
    meta_file = folder / "dataset.json"
    info = None
    if meta_file.is_file():
        try:
            info = DatasetInfo.from_json(json.loads(meta_file.read_text(encoding="utf-8")), folder)
        except (ValueError, InvalidDataset):
            info = None
    examples = {}
    for split in SPLITS:
        rows = _head_jsonl(folder / f"{split}.jsonl", EXAMPLES_PER_SPLIT)
        if rows:
            examples[split] = [format_example(row) for row in rows]
    return info, examples


def dataset_page(dataset: Dataset, data_dir: Path) -> dict:
    info, examples = dataset_files(dataset, data_dir)
    try:
        spec = get_task(dataset.task)
        primary, secondary = metric_label(spec.primary_metric), metric_label(spec.secondary_metric)
    except UnknownTask:
        primary, secondary = "primary", "secondary"
    euroeval = euroeval_facts(dataset.name)
    published_sizes = (euroeval or {}).get("splits", {})
    sizes = {
        "train": dataset.train_size if dataset.train_size is not None else (info.splits.get("train") if info else None),
        "val": dataset.val_size if dataset.val_size is not None else (info.splits.get("val") if info else None),
        "test": dataset.test_size if dataset.test_size is not None else (info.splits.get("test") if info else None),
    }
    shown_sizes = {split: format_int(size) for split, size in sizes.items()}
    sizes_from_euroeval = all(size is None for size in sizes.values()) and bool(published_sizes)
    if sizes_from_euroeval:
        shown_sizes = {split: published_sizes.get(split, "–") for split in sizes}  # EuroEval's own
    languages = [language.name for language in dataset.languages.all()]
    if not languages and info:
        languages = [language_name(code) for code in info.languages]
    return {
        "dataset": dataset,
        "task_label": task_short_label(dataset.task),
        "languages": ", ".join(languages),
        "description": dataset.description or (info.description if info else ""),
        "source": dataset.source or (info.source if info else ""),
        "license": dataset.license or (info.license if info else ""),
        "citation": dataset.citation or (info.citation if info else ""),
        "sizes": shown_sizes,
        "sizes_from_euroeval": shown_sizes is not None
        and all(size is None for size in sizes.values())
        and bool(published_sizes),
        "euroeval": euroeval,
        "counted_on": boards_counting(dataset),
        "examples": examples,
        "primary_metric": primary,
        "secondary_metric": secondary,
        "leaderboard": dataset_leaderboard(dataset),
    }
