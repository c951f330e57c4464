"""Task definitions: metrics, few-shot counts and generation lengths (METHODOLOGY §1-2).

Metric names are the canonical keys of ``results.raw`` iteration dicts and of stored
iteration scores. Old result files write some of them with a ``test_`` prefix and call
reading comprehension ``question-answering``; :func:`canonical_task` and
:func:`canonical_metric` normalise both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TaskSpec:
    name: str
    primary_metric: str
    secondary_metric: str
    num_shots: int
    max_new_tokens: int
    label_based: bool  # classification or multiple choice: answers are label words


TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        TaskSpec("sentiment-classification", "mcc", "macro_f1", 12, 10, True),
        TaskSpec("linguistic-acceptability", "mcc", "macro_f1", 12, 10, True),
        TaskSpec("named-entity-recognition", "micro_f1_no_misc", "micro_f1", 8, 128, False),
        TaskSpec("reading-comprehension", "f1", "em", 4, 32, False),
        TaskSpec("knowledge", "mcc", "accuracy", 5, 10, True),
        TaskSpec("common-sense-reasoning", "mcc", "accuracy", 5, 10, True),
        TaskSpec("summarization", "chrf3pp", "rouge_l", 1, 256, False),
    )
}

TASK_ALIASES = {"question-answering": "reading-comprehension"}
NON_TASKS = frozenset({"speed"})  # pseudo-tasks in result files that carry no scores

METRIC_LABELS = {
    "mcc": "MCC",
    "macro_f1": "Macro-F1",
    "micro_f1_no_misc": "Micro-F1 (no MISC)",
    "micro_f1": "Micro-F1",
    "f1": "F1",
    "em": "Exact match",
    "accuracy": "Accuracy",
    "chrf3pp": "chrF3++",
    "rouge_l": "ROUGE-L",
}


class UnknownTask(ValueError):
    pass


def canonical_task(name: str) -> str:
    return TASK_ALIASES.get(name, name)


def get_task(name: str) -> TaskSpec:
    try:
        return TASKS[canonical_task(name)]
    except KeyError:
        raise UnknownTask(f"unknown task {name!r}; known tasks: {', '.join(sorted(TASKS))}") from None


def canonical_metric(name: str) -> str:
    """``test_mcc`` → ``mcc``; ``val_f1`` → ``f1``."""
    for prefix in ("test_", "val_"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name
