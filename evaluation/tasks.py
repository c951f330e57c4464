"""Task definitions: metrics, few-shot counts and generation lengths (METHODOLOGY §1-2).

Metric names are the canonical keys of ``results.raw`` iteration dicts and of stored
iteration scores. Result files write them with a ``test_`` (or ``val_``) prefix, EuroEval
spells chrF as ``chr_f3pp`` / ``chr_f4pp``, and old files call reading comprehension
``question-answering``; :func:`canonical_task` and :func:`canonical_metric` normalise all of it.

The table knows more tasks than the engine runs: tasks EuroEval publishes results for
(instruction following, European values) are imported and shown, but
only tasks with ``evaluable`` set can be evaluated here (:func:`engine_task`). A task
with ``orthogonal`` set measures something other than language ability (EuroEval's
``european-values``): its scores are shown but never count toward a rank score
(``ranked`` is False).
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluation.task_kinds import (
    FREE_GENERATION,
    LABEL_SCORING,
    MULTIPLE_CHOICE,
    REWRITING,
    SPAN_EXTRACTION,
    STRUCTURED_GENERATION,
    TaskKind,
)


@dataclass(frozen=True)
class TaskSpec:
    """One task: its kind (the behaviour: :mod:`evaluation.task_kinds`), metrics, shots,
    lengths, labels, and what the site calls it. Every decision that depends on the task
    goes through this object; nothing else compares task names."""

    name: str
    kind: TaskKind
    primary_metric: str
    secondary_metric: str | None  # None: the task has one metric
    num_shots: int
    max_new_tokens: int
    label: str = ""  # human name, e.g. "Sentiment classification"
    short_label: str = ""  # a board column's name, e.g. "Sentiment"
    category: str = "nlu"  # EuroEval's task category: "nlu" (understanding) or "nlg" (generation)
    default_labels: tuple[str, ...] = ()  # canonical labels when a dataset declares none
    evaluable: bool = True  # Glossa's engine can evaluate it (prompts and metrics exist)
    orthogonal: bool = False  # shown, but kept out of every rank score (EuroEval's orthogonal tasks)

    @property
    def label_based(self) -> bool:
        """Answers are label words (classification, multiple choice)."""
        return self.kind.label_based

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
        TaskSpec(
            "sentiment-classification",
            LABEL_SCORING,
            "mcc",
            "macro_f1",
            12,
            10,
            "Sentiment classification",
            "Sentiment",
            default_labels=("positive", "neutral", "negative"),
        ),
        TaskSpec(
            "linguistic-acceptability",
            LABEL_SCORING,
            "mcc",
            "macro_f1",
            12,
            10,
            "Linguistic acceptability",
            "Acceptability",
            default_labels=("correct", "incorrect"),
        ),
        TaskSpec(
            "named-entity-recognition",
            STRUCTURED_GENERATION,
            "micro_f1_no_misc",
            "micro_f1",
            8,
            128,
            "Named-entity recognition",
            "NER",
        ),
        TaskSpec("reading-comprehension", SPAN_EXTRACTION, "f1", "em", 4, 32, "Reading comprehension", "Reading comp."),
        TaskSpec("knowledge", MULTIPLE_CHOICE, "mcc", "accuracy", 5, 10, "Knowledge", "Knowledge", "nlg"),
        TaskSpec(
            "common-sense-reasoning",
            MULTIPLE_CHOICE,
            "mcc",
            "accuracy",
            5,
            10,
            "Common-sense reasoning",
            "Common sense",
            "nlg",
        ),
        TaskSpec(
            "summarization", FREE_GENERATION, "chrf3pp", "rouge_l", 1, 256, "Summarization", "Summarization", "nlg"
        ),
        TaskSpec("simplification", REWRITING, "meteor", "sari", 3, 256, "Simplification", "Simplification", "nlg"),
        # Topic classification (SIB-200's seven topics); labels are the dataset's own words.
        TaskSpec(
            "topic-classification",
            LABEL_SCORING,
            "mcc",
            "macro_f1",
            12,
            10,
            "Topic classification",
            "Topic",
            default_labels=(
                "science/technology",
                "travel",
                "politics",
                "sports",
                "health",
                "entertainment",
                "geography",
            ),
        ),
        # Imported from EuroEval results; Glossa's engine does not evaluate these.
        TaskSpec(
            "instruction-following",
            FREE_GENERATION,
            "instruction_accuracy",
            None,
            0,
            2048,
            "Instruction following",
            "Instruction following",
            "nlg",
            evaluable=False,
        ),
        TaskSpec(
            "european-values",
            MULTIPLE_CHOICE,
            "european_values",
            None,
            0,
            10,
            "European values",
            "European values",
            "nlg",
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


def short_label(name: str) -> str:
    """A board column's name for a task (the name itself for a task this table does not know)."""
    spec = TASKS.get(canonical_task(name))
    return spec.short_label if spec and spec.short_label else name


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
