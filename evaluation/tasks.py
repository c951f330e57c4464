"""Task definitions: metrics, few-shot counts and generation lengths (docs/methodology.md §1-2).

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

from dataclasses import dataclass, replace

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
    on_boards: bool = True  # EuroEval ranks it on its boards (False: imported and shown, never ranked)

    @property
    def label_based(self) -> bool:
        """Answers are label words (classification, multiple choice)."""
        return self.kind.label_based

    @property
    def ranked(self) -> bool:
        """Whether scores on this task count toward rank scores: EuroEval's board tasks
        that are not orthogonal."""
        return self.on_boards and not self.orthogonal

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

# --- EuroEval's other tasks (imported, shown, ranked as EuroEval ranks them) ---------------
# EuroEval's task table (``src/euroeval/tasks.py``) and its board rules
# (``src/leaderboards/constants.py``: ``LEADERBOARD_TASKS``, ``NLU_TASK_GROUPS``): a task is
# "nlu" when its task group is sequence classification, token classification or question
# answering, else "nlg"; only the board tasks are ranked, ``european-values`` is orthogonal.
# Glossa's engine evaluates none of these (``evaluable=False``); their records import and rank.
_EUROEVAL_TASKS = (
    # name, kind, primary, secondary, shots, max new tokens, label, short label, category, on boards
    (
        "natural-language-inference",
        LABEL_SCORING,
        "mcc",
        "macro_f1",
        12,
        10,
        "Natural language inference",
        "NLI",
        "nlu",
        True,
    ),
    ("word-in-context", LABEL_SCORING, "mcc", "macro_f1", 12, 10, "Word in context", "WiC", "nlu", True),
    ("classification", LABEL_SCORING, "mcc", "macro_f1", 12, 10, "Text classification", "Classification", "nlu", True),
    (
        "grammatical-error-detection",
        STRUCTURED_GENERATION,
        "micro_f1",
        None,
        8,
        256,
        "Grammatical error detection",
        "GED",
        "nlu",
        True,
    ),
    (
        "grammatical-error-correction",
        REWRITING,
        "exact_match",
        None,
        5,
        256,
        "Grammatical error correction",
        "GEC",
        "nlg",
        True,
    ),
    (
        "open-ended-qa",
        FREE_GENERATION,
        "chrf3pp",
        "chrf4pp",
        5,
        256,
        "Open-ended question answering",
        "Open QA",
        "nlg",
        True,
    ),
    (
        "multiple-choice-reading-comprehension",
        MULTIPLE_CHOICE,
        "mcc",
        "accuracy",
        5,
        10,
        "Multiple-choice reading comprehension",
        "MC reading",
        "nlg",
        False,
    ),
    ("multiple-choice", MULTIPLE_CHOICE, "mcc", "accuracy", 5, 10, "Multiple choice", "Multiple choice", "nlg", False),
    (
        "token-classification",
        STRUCTURED_GENERATION,
        "micro_f1",
        None,
        8,
        128,
        "Token classification",
        "Token class.",
        "nlu",
        False,
    ),
    (
        "logical-reasoning",
        FREE_GENERATION,
        "cell_wise_accuracy",
        "puzzle_level_accuracy",
        8,
        256,
        "Logical reasoning",
        "Logic",
        "nlg",
        False,
    ),
    ("translation", REWRITING, "chrf3pp", "chrf4pp", 5, 256, "Translation", "Translation", "nlg", False),
    (
        "hallucination",
        FREE_GENERATION,
        "hallucination_rate",
        None,
        0,
        512,
        "Hallucination detection",
        "Hallucination",
        "nlu",
        False,
    ),
    (
        "tool-calling",
        STRUCTURED_GENERATION,
        "tool_calling_accuracy",
        None,
        0,
        500,
        "Tool calling",
        "Tool calling",
        "nlg",
        False,
    ),
    (
        "reference-free-qa",
        FREE_GENERATION,
        "model_graded_fact",
        None,
        0,
        2048,
        "Reference-free question answering",
        "Ref-free QA",
        "nlg",
        False,
    ),
    (
        "multiple-choice-stereotype-bias",
        MULTIPLE_CHOICE,
        "bias_adjusted_accuracy_ambig",
        "bias_ambig",
        0,
        10,
        "Stereotype bias",
        "Bias",
        "nlg",
        False,
    ),
)
TASKS.update(
    (
        name,
        TaskSpec(
            name,
            kind,
            primary,
            secondary,
            shots,
            tokens,
            label,
            short,
            category=category,
            evaluable=False,
            on_boards=on_boards,
        ),
    )
    for name, kind, primary, secondary, shots, tokens, label, short, category, on_boards in _EUROEVAL_TASKS
)
# EuroEval ranks instruction following no more (it is not among its board tasks).
TASKS["instruction-following"] = replace(TASKS["instruction-following"], on_boards=False)
# The metrics EuroEval's boards print per task, primary / secondary, where they differ from
# the task's own (Glossa's summarization reports ROUGE-L second, EuroEval's boards chrF4++).
_BOARD_METRICS = {"summarization": ("chrf3pp", "chrf4pp")}


def board_metrics(name: str) -> tuple[str, str | None]:
    """The (primary, secondary) metric of a EuroEval board cell ``"a ± b / c ± d"`` of this task."""
    spec = get_task(name)
    return _BOARD_METRICS.get(spec.name, (spec.primary_metric, spec.secondary_metric))


# --- end of EuroEval's other tasks ---------------------------------------------------------

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
    # EuroEval's other metrics (its ``pretty_name``s); bits per character is reported by
    # ``--use-bits-per-character`` runs and shown, never a board metric.
    "exact_match": "Exact match",
    "cell_wise_accuracy": "Cell-wise accuracy",
    "puzzle_level_accuracy": "Puzzle-level accuracy",
    "best_permuted_cell_wise_accuracy": "Best permuted cell-wise accuracy",
    "hallucination_rate": "Hallucination rate",
    "tool_calling_accuracy": "Tool-calling accuracy",
    "model_graded_fact": "Model-graded fact",
    "bias_adjusted_accuracy_ambig": "Bias-adjusted accuracy (ambiguous)",
    "bias_ambig": "Bias (ambiguous)",
    "accuracy_ambig": "Accuracy (ambiguous)",
    "bits_per_character": "Bits per character",
}

# Other spellings of a canonical metric name (EuroEval writes chrF as ``chr_f``).
METRIC_ALIASES = {"chr_f3pp": "chrf3pp", "chr_f4pp": "chrf4pp"}


class UnknownTask(ValueError):
    """A task name no spec has."""


def canonical_task(name: str) -> str:
    """The task's current name (an older alias mapped to it)."""
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
