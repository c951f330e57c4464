"""Evaluate a model on datasets → EuroEval result records (COMMON contract #2 and #4).

The model is loaded once; each dataset runs the 10 bootstrap iterations of docs/methodology.md §1
(few-shot prompts, label scoring or generation, metrics per iteration) and yields one
record. Outputs are cached by prompt hash, so repeated prompts are computed once.

Every record says what it is a score of: the model commit (``model_commit``), the dataset
version (``dataset_version``, the folder's fingerprint, and ``dataset_split_sizes``) and the
protocol (``iterations``, ``limit``). A dataset that cannot be loaded fails alone when the
caller passes ``on_dataset_error``: the other datasets are still evaluated. With an
``output_dir``, each record names the files written there: its predictions and its
per-example evidence (``examples_file``, :mod:`evaluation.examples`).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluation.backends import load_backend, needs_weights
from evaluation.backends.base import Backend
from evaluation.bootstrap import bootstrap_indices, select_shots
from evaluation.cache import OutputCache, prompt_key
from evaluation.datasets import SPLITS, LoadedDataset, load_dataset
from evaluation.errors import DatasetNotFound, EvaluationError, InvalidDataset
from evaluation.examples import build_examples, write_examples
from evaluation.intrinsic import budget, intrinsic_evidence
from evaluation.measurement import DatasetMeter, MeteredBackend, can_measure
from evaluation.metrics import compute_task_metrics
from evaluation.models import ModelInfo, local_weights, resolve_model
from evaluation.predictor import Predictor
from evaluation.prompts import TaskFormat, fit_prompt
from evaluation.record import build_record, write_predictions
from evaluation.tasks import engine_task, get_task

CHUNK = 64  # prompts per backend call (progress granularity)


@dataclass
class EvaluationSettings:
    """How a model is evaluated: revision, shots, iterations, row limit, backend, data and output folders."""

    revision: str = "main"
    few_shot: bool = True
    iterations: int = 10
    limit: int | None = None  # first K rows of the evaluated split, taken before bootstrapping
    backend: str = "transformers"
    trust_remote_code: bool = False
    data_dir: str | Path | None = None
    max_train_steps: int | None = None  # encoders only
    output_dir: str | Path | None = None  # where per-sample prediction files go
    validation_split: bool = False
    intrinsic: bool = True  # decoders: bits per byte and the membership probe (evaluation/intrinsic.py)
    efficiency: bool = True  # measure what each dataset cost (evaluation/measurement.py)


ProgressFn = Callable[[str, int, int], None]
DatasetErrorFn = Callable[[str, str], None]  # (dataset name, reason)


def evaluate_model(
    model_id: str,
    dataset_names: Sequence[str],
    settings: EvaluationSettings | None = None,
    *,
    on_record: Callable[[dict], None] | None = None,
    on_progress: ProgressFn | None = None,
    on_dataset_error: DatasetErrorFn | None = None,
) -> list[dict]:
    """One record per dataset evaluated. A dataset that cannot be loaded (missing, invalid
    folder) raises, unless ``on_dataset_error`` is given: then it is told the dataset and
    the reason, and the other datasets are evaluated (the model is not loaded at all when
    none is left)."""
    settings = settings or EvaluationSettings()
    if settings.iterations < 1:
        raise EvaluationError("iterations must be at least 1")
    if settings.limit is not None and settings.limit < 1:
        raise EvaluationError("limit must be a positive number of test rows")
    info = resolve_model(model_id, settings.revision, allow_remote_code=settings.trust_remote_code)
    loaded = _load_datasets(dataset_names, settings, on_dataset_error)  # before loading weights
    loaded = _ready_datasets(info, loaded, on_dataset_error)  # prompts, labels, heads: before any weights
    if not loaded:
        return []
    if not info.generative:
        return _evaluate_encoder(info, loaded, settings, on_record, on_progress)
    if settings.intrinsic:
        _check_intrinsic_budget()  # the deployment's budget settings: before any weights, not after the evaluation
    weights = local_weights(info) if needs_weights(settings.backend) or info.source == "bundled" else None
    backend = load_backend(settings.backend, info.model_id, weights, trust_remote_code=settings.trust_remote_code)
    cache = OutputCache()
    records = []
    try:
        for dataset in loaded:
            record, predictions, examples = evaluate_dataset(
                backend, info, dataset, settings, cache=cache, on_progress=on_progress
            )
            if settings.output_dir:
                record["predictions_file"] = str(write_predictions(Path(settings.output_dir), record, predictions))
                record["examples_file"] = str(write_examples(Path(settings.output_dir), record, examples))
            records.append(record)
            if on_record:
                on_record(record)
    finally:
        backend.close()
    return records


def _check_intrinsic_budget() -> None:
    try:
        budget(0)
    except ValueError as exc:
        raise EvaluationError(str(exc)) from exc


def _load_datasets(
    names: Sequence[str], settings: EvaluationSettings, on_error: DatasetErrorFn | None
) -> list[LoadedDataset]:
    loaded = []
    for name in names:
        try:
            loaded.append(load_dataset(name, settings.data_dir))
        except (DatasetNotFound, InvalidDataset) as exc:
            if on_error is None:
                raise
            on_error(name, str(exc))
    return loaded


def check_dataset_ready(info: ModelInfo, dataset: LoadedDataset) -> None:
    """Raise an :class:`EvaluationError` saying what is missing if ``info``'s model cannot be
    evaluated on ``dataset``: an encoder needs a head for the task (no prompts: it reads the
    dataset's own text); a decoder needs prompts for the dataset's language and task and a
    word for each of its labels. Called for every dataset before any model is loaded."""
    ds_info = dataset.info
    if not info.generative:
        from evaluation.finetune import check_task_supported  # torch: loaded only when an encoder is evaluated

        check_task_supported(ds_info.task)
        return
    TaskFormat(engine_task(ds_info.task).name, _prompt_language(ds_info), ds_info.labels)


def _prompt_language(ds_info) -> str:
    return ds_info.languages[0] if ds_info.languages else "en"


def _ready_datasets(info: ModelInfo, loaded: list[LoadedDataset], on_error: DatasetErrorFn | None) -> list:
    ready = []
    for dataset in loaded:
        try:
            check_dataset_ready(info, dataset)
        except EvaluationError as exc:
            if on_error is None:
                raise
            on_error(dataset.info.name, str(exc))
            continue
        ready.append(dataset)
    return ready


def _evaluate_encoder(info, loaded, settings, on_record, on_progress) -> list[dict]:
    """Encoders are fine-tuned per iteration (evaluation.finetune), on the same resamples."""
    from types import SimpleNamespace

    from evaluation.finetune import FineTuneRun, evaluate_encoder_dataset  # torch: for encoders only

    model_dir = str(local_weights(info))
    records = []
    for dataset in loaded:
        ds_info = dataset.info
        eval_split, rows = _evaluated_rows(dataset, settings)
        splits = {"train": dataset.splits["train"], "val": dataset.splits["val"], "test": rows}
        sizes = {split: len(splits[split]) for split in SPLITS}
        indices = bootstrap_indices(sizes, settings.iterations)
        answers: list[dict] = []
        run = FineTuneRun(_training_device()) if settings.efficiency else None
        meter = DatasetMeter(run).start() if run else None
        progress: Callable[[int, int], None] | None = None
        if on_progress:
            progress = lambda done, total, name=ds_info.name: on_progress(name, done, total)  # noqa: E731
        raw = evaluate_encoder_dataset(
            model_dir,
            ds_info,
            splits,
            indices,
            iterations=settings.iterations,
            max_steps=settings.max_train_steps,
            device=_training_device(),
            progress=progress,
            answers=answers,
            run=run,
        )
        spec = get_task(ds_info.task)
        fmt = TaskFormat.dataset_text(spec.name, ds_info.labels)  # encoders need no prompts
        record = build_record(
            info,
            ds_info,
            spec.name,
            raw,
            settings,
            SimpleNamespace(name="transformers"),
            "finetune",
            [[] for _ in raw],
        )
        if meter is not None and run is not None:
            for ids, seconds in run.predicted:  # the texts each prediction pass read, in GPT-2 tokens
                meter.called([fmt.document(rows[j]) for j in ids], seconds)
            record["efficiency"] = meter.finish()
        if settings.output_dir:
            examples = build_examples(spec.kind, fmt, rows, answers, split=eval_split)
            record["examples_file"] = str(write_examples(Path(settings.output_dir), record, examples))
        records.append(record)
        if on_record:
            on_record(record)
    return records


def _training_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


# --- one dataset ---------------------------------------------------------------------------


def _evaluated_rows(dataset: LoadedDataset, settings: EvaluationSettings) -> tuple[str, list[dict]]:
    """The evaluated split (``val`` or ``test``) and its rows, the first ``limit`` of them
    when the settings set one; raises when there are none."""
    eval_split = "val" if settings.validation_split else "test"
    rows = dataset.splits[eval_split][: settings.limit] if settings.limit else dataset.splits[eval_split]
    if not rows:
        raise EvaluationError(f"dataset {dataset.info.name!r} has no {eval_split} rows to evaluate")
    return eval_split, rows


def evaluate_dataset(
    backend: Backend,
    info: ModelInfo,
    dataset: LoadedDataset,
    settings: EvaluationSettings,
    *,
    cache: OutputCache | None = None,
    on_progress: ProgressFn | None = None,
) -> tuple[dict, list[dict], list[dict]]:
    """Evaluate a loaded model on one dataset over the settings' bootstrap iterations;
    returns its record, its predictions (one per distinct row of each iteration) and its
    per-example evidence."""
    cache = cache if cache is not None else OutputCache()
    meter = DatasetMeter(backend).start() if settings.efficiency and can_measure(backend) else None
    model = MeteredBackend(backend, meter) if meter else backend  # what the task code calls
    ds_info = dataset.info
    spec = engine_task(ds_info.task)
    fmt = TaskFormat(spec.name, _prompt_language(ds_info), ds_info.labels)
    eval_split, rows = _evaluated_rows(dataset, settings)
    train = dataset.splits["train"]
    sizes = {split: len(dataset.splits[split]) for split in SPLITS}
    sizes[eval_split] = len(rows)
    idx = bootstrap_indices(sizes, settings.iterations)
    style = "chat" if info.model_type.chats and backend.has_chat_template else "base"
    num_shots = spec.num_shots if settings.few_shot else 0
    max_prompt_tokens = max(16, backend.max_context - spec.max_new_tokens)
    predictor = Predictor(model, style, spec.max_new_tokens, cache)

    def render(shots, row):
        return fmt.render_base(shots, row) if style == "base" else backend.render_chat(fmt.messages(shots, row))

    def prompt(shots: list[dict], row: dict) -> str:
        return fit_prompt(render, shots, row, spec.name, backend.count_tokens, max_prompt_tokens)[0]

    uniques = [sorted({int(r) for r in idx[eval_split][i]}) for i in range(settings.iterations)]
    progress = _progress_counter(on_progress, ds_info.name, sum(len(u) for u in uniques))
    raw: list[dict] = []
    shot_ids_all: list[list[int]] = []
    predictions: list[dict] = []
    for i in range(settings.iterations):
        shot_ids = _shot_ids(fmt, train, idx["train"][i], num_shots, i)
        shot_ids_all.append(shot_ids)
        shot_prompt = functools.partial(prompt, [train[j] for j in shot_ids])
        per_row = _predict_rows(predictor, spec, fmt, rows, uniques[i], shot_prompt, progress)
        sample = [int(r) for r in idx[eval_split][i]]
        golds = [spec.kind.gold(rows[r]) for r in sample]
        raw.append(compute_task_metrics(spec.name, golds, [per_row[r]["prediction"] for r in sample]))
        predictions += _iteration_predictions(spec, rows, per_row, i, Counter(sample))
    record = build_record(info, ds_info, spec.name, raw, settings, backend, style, shot_ids_all)
    valid_flags = [entry["valid_json"] for entry in predictions if "valid_json" in entry]
    if valid_flags:
        record["structured_output_valid"] = float(np.mean(valid_flags))
    examples = build_examples(spec.kind, fmt, rows, predictions, split=eval_split)
    if settings.intrinsic:
        _add_intrinsic(record, model, backend, info, fmt, (rows, train, sum(map(len, uniques))))
    record["efficiency"] = meter.finish() if meter else None  # evaluation/efficiency.py
    return record, predictions, examples


def _progress_counter(on_progress: ProgressFn | None, dataset: str, total: int) -> Callable[[int], None]:
    """A function that counts ``n`` more rows done and reports the running count."""
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if on_progress:
            on_progress(dataset, done, total)

    return advance


def _shot_ids(fmt: TaskFormat, train: list[dict], train_sample, num_shots: int, iteration: int) -> list[int]:
    """The few-shot examples of one iteration (indices into ``train``); none when zero-shot."""
    if not (num_shots and train):
        return []
    return select_shots(
        train,
        train_sample,
        num_shots=num_shots,
        iteration=iteration,
        text_of=fmt.shot_text,
        dedupe_key=fmt.shot_text,
        label_of=fmt.gold_label if fmt.gold_label(train[0]) is not None else None,
        labels=fmt.canonical_labels(train[0]) or None,
    )


def _predict_rows(
    predictor: Predictor,
    spec,
    fmt: TaskFormat,
    rows: list[dict],
    wanted: list[int],
    prompt: Callable[[dict], str],
    advance: Callable[[int], None],
) -> dict[int, dict]:
    """Predict the ``wanted`` rows in chunks of ``CHUNK`` prompts: row index → the task
    kind's result with the hash of its prompt."""
    per_row: dict[int, dict] = {}
    for start in range(0, len(wanted), CHUNK):
        chunk = wanted[start : start + CHUNK]
        prompts = [prompt(rows[r]) for r in chunk]
        results = spec.kind.predict(predictor, fmt, [rows[r] for r in chunk], prompts)
        for r, text, res in zip(chunk, prompts, results, strict=True):
            per_row[r] = {"prompt_hash": prompt_key("prompt", text), **res}
        advance(len(chunk))
    return per_row


def _iteration_predictions(
    spec, rows: list[dict], per_row: dict[int, dict], iteration: int, times: Counter
) -> list[dict]:
    """One iteration's predictions in row order, each with how often the bootstrap sample
    drew its row and its gold answer."""
    return [
        {"iteration": iteration, "row": r, "times": times[r], **per_row[r], "gold": spec.kind.gold(rows[r])}
        for r in chunk_order(per_row)
    ]


def _add_intrinsic(record: dict, model, backend: Backend, info: ModelInfo, fmt: TaskFormat, work: tuple) -> None:
    """Bits per byte and the probe (evaluation/intrinsic.py); ``work``: evaluated rows, train rows, rows scored."""
    scorer, (rows, train, scored) = getattr(model, "token_logprobs", None), work
    if scorer is None:
        return
    texts, chars = budget(scored)
    documents = [fmt.document(r) for r in rows[:texts]], [fmt.document(r) for r in train[:texts]]
    weights = (info.model_id, info.commit_sha, backend.name, str(getattr(backend, "dtype", "")))
    record.update(intrinsic_evidence(scorer, *documents, weights=weights, texts=texts, chars=chars))


def chunk_order(per_row: dict[int, dict]) -> list[int]:
    """The order rows are computed in: by row index."""
    return sorted(per_row)
