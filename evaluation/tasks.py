"""Task definitions: metrics, few-shot counts and generation lengths (METHODOLOGY §1-2).

Metric names are the canonical keys of ``results.raw`` iteration dicts and of stored
iteration scores. Result files write them with a ``test_`` (or ``val_``) prefix, EuroEval
spells chrF as ``chr_f3pp`` / ``chr_f4pp``, and old files call reading comprehension
``question-answering``; :func:`canonical_task` and :func:`canonical_metric` normalise all of it.

The table knows more tasks than the engine runs: tasks EuroEval publishes results for
(simplification, instruction following, European values) are imported and shown, but
only tasks with ``evaluable`` set can be evaluated here (:func:`engine_task`). A task
with ``orthogonal`` set measures something other than language ability (EuroEval's
``european-values``): its scores are shown but never count toward a rank score
(``ranked`` is False).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TaskSpec:
    name: str
    primary_metric: str
    secondary_metric: str | None  # None: the task has one metric
    num_shots: int
    max_new_tokens: int
    label_based: bool  # classification or multiple choice: answers are label words
    label: str = ""  # human name, e.g. "Sentiment classification"
    evaluable: bool = True  # Glossa's engine can evaluate it (prompts and metrics exist)
    orthogonal: bool = False  # shown, but kept out of every rank score (EuroEval's orthogonal tasks)

    @property
    def ranked(self) -> bool:
        """Whether scores on this task count toward rank scores."""
        return not self.orthogonal

    @property
    def metrics(self) -> tuple[str, ...]:
        """The task's score metrics, primary first."""
        return (self.primary_metric,) + ((self.secondary_metric,) if self.secondary_metric else ())


TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        TaskSpec("sentiment-classification", "mcc", "macro_f1", 12, 10, True, "Sentiment classification"),
        TaskSpec("linguistic-acceptability", "mcc", "macro_f1", 12, 10, True, "Linguistic acceptability"),
        TaskSpec("named-entity-recognition", "micro_f1_no_misc", "micro_f1", 8, 128, False, "Named-entity recognition"),
        TaskSpec("reading-comprehension", "f1", "em", 4, 32, False, "Reading comprehension"),
        TaskSpec("knowledge", "mcc", "accuracy", 5, 10, True, "Knowledge"),
        TaskSpec("common-sense-reasoning", "mcc", "accuracy", 5, 10, True, "Common-sense reasoning"),
        TaskSpec("summarization", "chrf3pp", "rouge_l", 1, 256, False, "Summarization"),
        # Imported from EuroEval results; Glossa's engine does not evaluate these.
        TaskSpec("simplification", "meteor", "sari", 3, 256, False, "Simplification", evaluable=False),
        TaskSpec(
            "instruction-following",
            "instruction_accuracy",
            None,
            0,
            2048,
            False,
            "Instruction following",
            evaluable=False,
        ),
        TaskSpec(
            "european-values",
            "european_values",
            None,
            0,
            10,
            True,
            "European values",
            evaluable=False,
            orthogonal=True,
        ),
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
    "chrf4pp": "chrF4++",
    "rouge_l": "ROUGE-L",
    "meteor": "METEOR",
    "sari": "SARI",
    "instruction_accuracy": "Instruction accuracy",
    "european_values": "European values",
}

# Other spellings of a canonical metric name (EuroEval writes chrF as ``chr_f``).
METRIC_ALIASES = {"chr_f3pp": "chrf3pp", "chr_f4pp": "chrf4pp"}


class UnknownTask(ValueError):
    pass


def canonical_task(name: str) -> str:
    return TASK_ALIASES.get(name, name)


def get_task(name: str) -> TaskSpec:
    """The spec of a known task (imported, shown, maybe evaluated); raises UnknownTask."""
    try:
        return TASKS[canonical_task(name)]
    except (KeyError, TypeError):
        raise UnknownTask(f"unknown task {name!r}; known tasks: {', '.join(sorted(TASKS))}") from None


def engine_task(name: str) -> TaskSpec:
    """The spec of a task Glossa's engine evaluates; raises UnknownTask for any other."""
    spec = get_task(name)
    if not spec.evaluable:
        evaluable = ", ".join(sorted(n for n, s in TASKS.items() if s.evaluable))
        raise UnknownTask(f"task {spec.name!r} is imported from results only; the engine evaluates: {evaluable}")
    return spec


ENGINE_TASKS: dict[str, TaskSpec] = {name: spec for name, spec in TASKS.items() if spec.evaluable}


def canonical_metric(name: str) -> str:
    """``test_mcc`` → ``mcc``; ``val_f1`` → ``f1``; ``test_chr_f3pp`` → ``chrf3pp``."""
    for prefix in ("test_", "val_"):
        if name.startswith(prefix):
            name = name[len(prefix) :]
            break
    return METRIC_ALIASES.get(name, name)
