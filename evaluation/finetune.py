"""Encoder evaluation by fine-tuning (docs/methodology.md §1, "Encoders").

In every bootstrap iteration *i*: load the pretrained encoder with a fresh task head
(seed ``4242 + i``), fine-tune it on the iteration's train resample, early-stopping on
the val resample, then score the test resample with the same metrics as generative
models (:func:`evaluation.metrics.compute_task_metrics`).

The runner calls :func:`evaluate_encoder_dataset` for models of type ``encoder``.
Helpers live in :mod:`evaluation.encoders` (heads, training loop, NER alignment, QA).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from evaluation.backends.base import Usage
from evaluation.encoders.heads import Head, head_for, needs_prefix_space
from evaluation.encoders.training import (
    DEFAULT_EVAL_EVERY,
    BatchSize,
    TrainingReport,
    TrainingSettings,
    train,
)
from evaluation.errors import EvaluationError, ModelLoadError
from evaluation.hardware import CpuDevice, CudaDevice, RunSettings
from evaluation.metrics import compute_task_metrics
from evaluation.tasks import get_task

logger = logging.getLogger(__name__)

BASE_SEED = 4242
MAX_SEQUENCE_LENGTH_CAP = 512


class UnsupportedEncoderTask(EvaluationError):
    """The task needs text generation, which an encoder cannot do."""


def _info_get(dataset_info: Any, key: str, default: Any = None) -> Any:
    if isinstance(dataset_info, Mapping):
        return dataset_info.get(key, default)
    return getattr(dataset_info, key, default)


def check_task_supported(task: str) -> str:
    """The canonical task name, if an encoder head can be fine-tuned for it (its kind says)."""
    spec = get_task(task)
    if spec.kind.encoder_head is None:
        raise UnsupportedEncoderTask(f"{spec.name} {spec.kind.encoder_refusal.format(task=spec.name)}")
    return spec.name


def task_labels(task: str, dataset_info: Any, train_rows: Sequence[dict]) -> list[str]:
    """The dataset's label list (dataset.json ``labels``), else what the task's kind takes from train."""
    declared = list(_info_get(dataset_info, "labels", ()) or ())
    return get_task(task).kind.encoder_labels(declared, train_rows)


def model_max_length(tokenizer, config) -> int:
    """The longest input the encoder takes: the least of our cap, the tokenizer's limit and the model's positions."""
    limits = [MAX_SEQUENCE_LENGTH_CAP]
    if getattr(tokenizer, "model_max_length", None) and tokenizer.model_max_length < 1_000_000:
        limits.append(int(tokenizer.model_max_length))
    if getattr(config, "max_position_embeddings", None):
        limits.append(int(config.max_position_embeddings))
    return min(limits)


def load_tokenizer(model_dir: str, config, task: str):
    """The model's tokenizer, with a prefix space where the task's pre-split words need one."""
    from transformers import AutoTokenizer

    kwargs = {"add_prefix_space": True} if needs_prefix_space(getattr(config, "model_type", ""), get_task(task)) else {}
    try:
        return AutoTokenizer.from_pretrained(model_dir, **kwargs)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"could not load the tokenizer of {model_dir}: {exc}") from exc


def make_head(model_dir: str, dataset_info: Any, train_rows: Sequence[dict]) -> Head:
    """The head that fine-tunes the encoder in ``model_dir`` on the dataset's task, with its tokenizer, length and
    labels."""
    from transformers import AutoConfig

    task = check_task_supported(_info_get(dataset_info, "task"))
    try:
        config = AutoConfig.from_pretrained(model_dir)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(f"could not read the model configuration in {model_dir}: {exc}") from exc
    tokenizer = load_tokenizer(model_dir, config, task)
    head_class = head_for(get_task(task))
    return head_class(
        tokenizer, max_length=model_max_length(tokenizer, config), labels=task_labels(task, dataset_info, train_rows)
    )


class FineTuneRun:
    """What an encoder's evaluation computed, for its efficiency object (evaluation/measurement.py):
    each iteration's prediction pass over its test rows is one batch (each row's latency is that
    pass's time), and the model loads (a fresh head per iteration) are ``load_seconds``."""

    name = "transformers (fine-tuned)"

    def __init__(self, device: str):
        self.device = device
        self.usage = Usage()
        self.load_seconds = 0.0
        self.predicted: list[tuple[list[int], float]] = []  # test rows of each pass, its seconds

    def device_profile(self):
        """Where the encoder runs: the GPU, or this machine's CPU."""
        return CudaDevice() if self.device == "cuda" else CpuDevice()

    def run_settings(self):
        """How the encoder runs: this engine, in float32."""
        return RunSettings(backend=self.name, dtype="float32")

    def predict(self, head: Head, model, rows: Sequence[dict], ids: list[int], batch, tokens: list[int]) -> list:
        """The head's predictions for the rows ``ids``, timed and counted as one batch."""
        started = time.perf_counter()
        out = head.predict(model, [rows[j] for j in ids], batch, self.device)
        seconds = time.perf_counter() - started
        self.usage.add(len(ids), seconds, sum(tokens[j] for j in ids))
        self.predicted.append((ids, seconds))
        return out


def _resampled(features: Sequence[list[dict]], idx: np.ndarray) -> list[dict]:
    return [feature for j in idx for feature in features[int(j)]]


def _check_indices(splits: Mapping[str, Sequence[dict]], indices: Mapping[str, np.ndarray], iterations: int) -> None:
    for split in ("train", "val", "test"):
        if split not in splits or split not in indices:
            raise ValueError(f"missing split {split!r} (need train, val and test rows and indices)")
        idx = np.asarray(indices[split])
        if idx.ndim != 2 or idx.shape[0] < iterations:
            raise ValueError(f"indices[{split!r}] must have shape (iterations >= {iterations}, n), got {idx.shape}")
        if idx.size and (idx.min() < 0 or idx.max() >= len(splits[split])):
            raise ValueError(f"indices[{split!r}] point outside the {len(splits[split])} rows of {split}")
    if not len(splits["train"]) or not len(splits["test"]):
        raise ValueError("encoder fine-tuning needs a non-empty train and test split")


def _load_model(head: Head, model_dir: str, device: str):
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the fresh head's "newly initialized" warning is expected
    try:
        model = head.load_model(model_dir)
    except ValueError as exc:
        raise ModelLoadError(
            f"{model_dir} has no {head.auto_class_name.removeprefix('AutoModelFor')} head "
            f"in transformers, so it cannot be fine-tuned for this task: {exc}"
        ) from exc
    except OSError as exc:
        raise ModelLoadError(f"could not load the weights in {model_dir}: {exc}") from exc
    finally:
        hf_logging.set_verbosity(verbosity)
    return model.to(device)


def evaluate_encoder_dataset(
    model_dir: str,
    dataset_info: Any,
    splits: dict[str, list[dict]],
    indices: dict[str, np.ndarray],
    *,
    iterations: int,
    max_steps: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    device: str = "cpu",
    eval_every: int = DEFAULT_EVAL_EVERY,
    reports: list[TrainingReport] | None = None,
    answers: list[dict] | None = None,
    run: FineTuneRun | None = None,
) -> list[dict[str, float]]:
    """Fine-tune and score ``iterations`` times; one metric dict per iteration.

    ``indices[split][i]`` are the row indices of iteration *i*'s resample of ``split``
    (evaluation.bootstrap). ``max_steps`` bounds the optimizer steps per iteration
    (None: until early stopping, capped at 1000). ``progress(done, total)`` is called
    after each iteration. Training reports are appended to ``reports`` when given, and
    each iteration's answer per test row drawn to ``answers`` (``iteration``, ``row``,
    ``times`` drawn, ``prediction``: what :func:`evaluation.examples.build_examples` reads).
    ``run`` records the model loads and prediction passes (their time and tokens).
    """
    if iterations < 1:
        raise ValueError("iterations must be at least 1")
    _check_indices(splits, indices, iterations)
    task = check_task_supported(_info_get(dataset_info, "task"))
    head = make_head(model_dir, dataset_info, splits["train"])
    train_features = head.encode(splits["train"])
    val_features = head.encode(splits["val"])
    settings = TrainingSettings(max_steps=max_steps, eval_every=eval_every)
    batch = BatchSize.for_device(settings.batch_size, device)
    test_rows = splits["test"]
    tokens = [sum(len(f["input_ids"]) for f in feats) for feats in head.encode(test_rows)] if run else []
    scores = []
    for i in range(iterations):
        train_set = _resampled(train_features, indices["train"][i])
        val_set = _resampled(val_features, indices["val"][i])
        model, report = _fine_tune(head, model_dir, train_set, val_set, settings, BASE_SEED + i, device, batch, run)
        test_idx = np.asarray(indices["test"][i])
        ids = np.unique(test_idx).tolist()  # resamples repeat rows: predict each row once
        predictions = _predict_test(head, model, test_rows, ids, device, batch, run, tokens)
        del model
        if answers is not None:  # per-example evidence (evaluation/examples.py)
            answers.extend(_drawn_answers(i, test_idx, predictions))
        golds = [head.gold(test_rows[j]) for j in test_idx]
        scores.append(compute_task_metrics(task, golds, [predictions[j] for j in test_idx.tolist()]))
        _log_iteration(i, report, batch, scores[-1])
        if reports is not None:
            reports.append(report)
        if progress is not None:
            progress(i + 1, iterations)
    return scores


def _fine_tune(
    head: Head,
    model_dir: str,
    train_set: list[dict],
    val_set: list[dict],
    settings: TrainingSettings,
    seed: int,
    device: str,
    batch: BatchSize,
    run: FineTuneRun | None,
) -> tuple[Any, TrainingReport]:
    """Load the encoder with a fresh head initialised from ``seed`` and fine-tune it on
    ``train_set``, early-stopping on ``val_set``; returns the model and its training report.
    The load's time goes to ``run`` when given."""
    import torch

    torch.manual_seed(seed)  # the fresh head's initialisation
    started = time.perf_counter()
    model = _load_model(head, model_dir, device)
    if run is not None:
        run.load_seconds += time.perf_counter() - started
    report = train(model, train_set, val_set, head.collate, settings, seed=seed, device=device, batch=batch)
    return model, report


def _predict_test(
    head: Head,
    model,
    test_rows: Sequence[dict],
    ids: list[int],
    device: str,
    batch: BatchSize,
    run: FineTuneRun | None,
    tokens: list[int],
) -> dict[int, Any]:
    """Test row index → the fine-tuned model's prediction, for the rows ``ids``; through
    ``run`` when given, which records the pass (its time and tokens)."""
    if run is not None:
        return dict(zip(ids, run.predict(head, model, test_rows, ids, batch, tokens)))
    return dict(zip(ids, head.predict(model, [test_rows[j] for j in ids], batch, device)))


def _drawn_answers(iteration: int, test_idx: np.ndarray, predictions: dict[int, Any]) -> list[dict]:
    """Each predicted test row with how often the iteration's resample drew it (``iteration``,
    ``row``, ``times``, ``prediction``)."""
    times = Counter(test_idx.tolist())
    return [{"iteration": iteration, "row": j, "times": times[j], "prediction": predictions[j]} for j in predictions]


def _log_iteration(iteration: int, report: TrainingReport, batch: BatchSize, scores: dict[str, float]) -> None:
    logger.info(
        "iteration %d: %d steps, best val loss %.4f at step %s, batch %d: %s",
        iteration,
        report.steps,
        report.best_val_loss,
        report.best_step,
        batch.size,
        scores,
    )
