"""Metrics of docs/methodology.md §2, as pure functions returning values in [0, 1].

Canonical names (see :mod:`evaluation.tasks`): mcc, macro_f1, micro_f1_no_misc, micro_f1,
f1, em, accuracy, chrf3pp, rouge_l, meteor, sari (the last two in
:mod:`evaluation.simplification_metrics`). :func:`compute_task_metrics` returns the primary and
secondary metric of a task for one iteration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from evaluation.answer_metrics import (  # noqa: F401 (reading comprehension, summarization: metrics of this module too)
    chrf3pp,
    normalize_answer,
    squad_em,
    squad_em_single,
    squad_f1,
    squad_f1_single,
)
from evaluation.simplification_metrics import meteor, sari
from evaluation.stats import mean_ci
from evaluation.tasks import get_task

# --- classification --------------------------------------------------------------------


def mcc(y_true: Sequence, y_pred: Sequence) -> float:
    """Matthews correlation coefficient (multi-class, as sklearn); 0 when undefined."""
    from sklearn.metrics import matthews_corrcoef

    if len(y_true) == 0:
        return 0.0
    return float(matthews_corrcoef(list(y_true), list(y_pred)))


def macro_f1(y_true: Sequence, y_pred: Sequence, labels: Sequence | None = None) -> float:
    """Unweighted mean of per-class F1 over ``labels`` (default: classes seen in either list)."""
    from sklearn.metrics import f1_score

    if len(y_true) == 0:
        return 0.0
    return float(f1_score(list(y_true), list(y_pred), labels=labels, average="macro", zero_division=0))


def accuracy(y_true: Sequence, y_pred: Sequence) -> float:
    """The share of predictions equal to their gold label (0 for no rows)."""
    if len(y_true) == 0:
        return 0.0
    return float(np.mean([t == p for t, p in zip(y_true, y_pred, strict=True)]))


# --- named-entity recognition ----------------------------------------------------------


def _without_misc(sequences: Sequence[Sequence[str]]) -> list[list[str]]:
    return [["O" if tag.endswith("MISC") else tag for tag in seq] for seq in sequences]


def micro_f1(true_tags: Sequence[Sequence[str]], pred_tags: Sequence[Sequence[str]]) -> float:
    """Entity-level micro F1 of IOB2 sequences (seqeval, default mode)."""
    from seqeval.metrics import f1_score

    return float(f1_score([list(s) for s in true_tags], [list(s) for s in pred_tags], average="micro", zero_division=0))


def micro_f1_no_misc(true_tags: Sequence[Sequence[str]], pred_tags: Sequence[Sequence[str]]) -> float:
    """Micro F1 after MISC entities are replaced by ``O`` in both gold and predictions."""
    return micro_f1(_without_misc(true_tags), _without_misc(pred_tags))


# --- summarization -----------------------------------------------------------------------


def rouge_l(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Mean ROUGE-L F-measure over pairs (rouge-score, with stemming off)."""
    from rouge_score import rouge_scorer

    if not predictions:
        return 0.0
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    scores = [scorer.score(ref, pred)["rougeL"].fmeasure for pred, ref in zip(predictions, references, strict=True)]
    return float(np.mean(scores))


# --- per task -----------------------------------------------------------------------------


def _macro_f1_over_seen_labels(golds: Sequence, predictions: Sequence) -> float:
    return macro_f1(golds, predictions, labels=sorted(set(golds) | set(predictions), key=str))


# Every metric a task may name (``TaskSpec.metrics``), as ``f(golds, predictions)``.
METRIC_FUNCTIONS: dict[str, Callable[[Sequence, Sequence], float]] = {
    "mcc": mcc,
    "macro_f1": _macro_f1_over_seen_labels,
    "accuracy": accuracy,
    "micro_f1_no_misc": micro_f1_no_misc,
    "micro_f1": micro_f1,
    "f1": lambda golds, predictions: squad_f1(predictions, golds),
    "em": lambda golds, predictions: squad_em(predictions, golds),
    "chrf3pp": lambda golds, predictions: chrf3pp(predictions, golds),
    "rouge_l": lambda golds, predictions: rouge_l(predictions, golds),
    # simplification: golds are {"source", "references"} (task_kinds.Rewriting)
    "meteor": lambda golds, predictions: meteor(predictions, [g["references"] for g in golds]),
    "sari": lambda golds, predictions: sari(
        [g["source"] for g in golds], predictions, [g["references"] for g in golds]
    ),
}


def compute_task_metrics(task: str, golds: Sequence, predictions: Sequence) -> dict[str, float]:
    """Primary and secondary metric of ``task`` for one iteration.

    ``golds``/``predictions`` are what the task's kind compares (``TaskKind.gold``): label
    strings (classification), label indices (multiple choice), tag sequences (NER), gold
    answer lists / answer strings (reading comprehension), reference / generated texts
    (summarization) or ``{"source", "references"}`` / generated texts (simplification).
    """
    spec = get_task(task)
    missing = [metric for metric in spec.metrics if metric not in METRIC_FUNCTIONS]
    if missing:
        raise ValueError(f"no metric function for {', '.join(missing)} (task {spec.name!r})")
    return {metric: METRIC_FUNCTIONS[metric](golds, predictions) for metric in spec.metrics}


def totals(raw: Sequence[dict[str, float]], split: str = "test") -> dict[str, float]:
    """EuroEval ``results.total``: ``<split>_<m>`` = mean×100, ``<split>_<m>_se`` = CI×100."""
    out: dict[str, float] = {}
    if not raw:
        return out
    for metric in raw[0]:
        mean, ci = mean_ci(it[metric] for it in raw)
        out[f"{split}_{metric}"] = mean * 100
        out[f"{split}_{metric}_se"] = (ci or 0.0) * 100
    return out
