"""Reads for the prediction browser: one evaluation's examples, filtered and
paginated, and the JSONL download of the same selection.

An example is *correct* when it earns full marks on the task's first per-example score
(``correct`` for labels, the entity F1 for NER, F1 for reading comprehension, ...),
*incorrect* when its answer was read but fell short, *unparseable* when the answer could
not be read at all (``TaskKind.answer_valid``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from urllib.parse import urlencode

from evaluation.examples import read_shown
from evaluation.tasks import UnknownTask, get_task
from leaderboard.models import Evaluation, EvaluationExamples, LanguageModel
from leaderboard.selectors.formatting import dataset_url, model_url, variant_label
from leaderboard.selectors.recent import RecentValues

PAGE_SIZE = 50
OUTCOMES = ("correct", "incorrect", "unparseable")
DOWNLOAD_FIELDS = ("example_id", "input", "gold", "output", "parsed", "valid", "scores", "iterations")
_DECODED: RecentValues[ReadExamples] = RecentValues(16)  # (evaluation, updated_at) → what was read
logger = logging.getLogger("leaderboard.selectors.examples")


@dataclass(frozen=True)
class ExampleFilters:
    outcome: str = ""  # one of OUTCOMES, or "" for all
    label: str = ""  # the gold label, for label tasks
    q: str = ""  # a case-insensitive search in the input, the gold and the output
    page: int = 1

    @classmethod
    def from_query(cls, query) -> ExampleFilters:
        outcome = query.get("outcome", "")
        try:
            page = max(1, min(int(query.get("page", 1)), 100_000))
        except (TypeError, ValueError):
            page = 1
        return cls(
            outcome=outcome if outcome in OUTCOMES else "",
            label=str(query.get("label", ""))[:200],
            q=str(query.get("q", "")).strip()[:200],
            page=page,
        )

    def query(self, **extra) -> str:
        """The URL query of these filters, with ``extra`` parameters (page 1 is left out)."""
        values = {"outcome": self.outcome, "label": self.label, "q": self.q, "page": self.page, **extra}
        return urlencode({k: v for k, v in values.items() if v not in ("", None) and not (k == "page" and v == 1)})


def outcome_of(example: dict, score_key: str | None) -> str:
    if not example.get("valid"):
        return "unparseable"
    score = (example.get("scores") or {}).get(score_key) if score_key else None
    return "correct" if score is not None and score >= 1.0 - 1e-9 else "incorrect"


def stored_examples(**filters):
    """Stored examples matching ``filters`` (without their data), in the order every page
    picks them: few-shot before zero-shot, the test split before validation, the newest
    first. The first per model (and dataset) is the one the browser shows, the comparison
    compares and the stability table counts."""
    return (
        EvaluationExamples.objects.filter(**filters)
        .select_related("evaluation__model", "evaluation__dataset", "evaluation__dataset_version")
        .defer("data")
        .order_by("-evaluation__few_shot", "evaluation__validation_split", "-evaluation__updated_at")
    )


def evaluations_with_examples(model: LanguageModel, dataset: str) -> list[EvaluationExamples]:
    """The model's evaluations on ``dataset`` that have examples, preferred first."""
    return list(stored_examples(evaluation__model=model, evaluation__dataset__name=dataset))


@dataclass(frozen=True)
class ReadExamples:
    """What a page reads of one evaluation's examples: the checked ones as shown
    (:func:`evaluation.example_shape.shown`), and why some or all are missing."""

    examples: list[dict]
    complete: bool = True  # False: the file holds more than a page reads
    problem: str = ""  # the stored examples are not valid: none are shown


def read_stored(stored: EvaluationExamples) -> ReadExamples:
    """The stored examples, checked and cut as pages show them, decompressing at most
    PAGE_READ_BYTES; a file with one bad example yields none (and says so), never an error.
    Kept for the last few evaluations read in this process."""

    def read() -> ReadExamples:
        data = EvaluationExamples.objects.filter(pk=stored.pk).values_list("data", flat=True).first()
        found = _read(bytes(data) if data is not None else b"", stored.evaluation.dataset.task)
        if found.problem:
            logger.warning("examples of evaluation %s not shown: %s", stored.evaluation_id, found.problem)
        return found

    return _DECODED.get((stored.pk, stored.updated_at), read)


def _read(data: bytes, task: str) -> ReadExamples:
    if not data:
        return ReadExamples([])
    try:
        keys = get_task(task).kind.example_score_keys
        examples, complete = read_shown(data, keys)
    except (UnknownTask, ValueError) as exc:
        return ReadExamples([], problem=str(exc)[:300])
    return ReadExamples(examples, complete)


def examples_of(stored: EvaluationExamples) -> list[dict]:
    """The examples a page shows of ``stored`` (none when they are not valid)."""
    return read_stored(stored).examples


def display_text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def select(examples: list[dict], filters: ExampleFilters, score_key: str | None) -> list[dict]:
    needle = filters.q.casefold()
    chosen = []
    for example in examples:
        if filters.outcome and outcome_of(example, score_key) != filters.outcome:
            continue
        if filters.label and display_text(example.get("label")) != filters.label:
            continue
        if needle and not any(
            needle in display_text(example.get(field)).casefold() for field in ("input", "gold", "output", "parsed")
        ):
            continue
        chosen.append(example)
    return chosen


def download_lines(examples: list[dict]) -> list[str]:
    """The JSONL download: one line per example with the fields of DOWNLOAD_FIELDS."""
    return [json.dumps({f: e.get(f) for f in DOWNLOAD_FIELDS}, ensure_ascii=False) for e in examples]


def _row(example: dict, score_key: str | None) -> dict:
    scores = example["scores"]
    return {
        "example_id": example["example_id"],
        "input": example.get("input") or "",
        "gold": display_text(example.get("gold")),
        "output": display_text(example.get("output")),
        "parsed": display_text(example.get("parsed")),
        "outcome": outcome_of(example, score_key),
        "scores": ", ".join(f"{k} {v:.3f}" for k, v in scores.items()),
        "iterations": ", ".join(str(i) for i in example.get("iterations") or []),
        "attempts": example.get("num_attempts", 1),
    }


def first_score_key(stored: EvaluationExamples) -> str | None:
    """The task's first per-example score (what *correct* and comparisons use)."""
    try:
        return (get_task(stored.evaluation.dataset.task).kind.example_score_keys or (None,))[0]
    except UnknownTask:
        return None


def example_page(model: LanguageModel, dataset: str, filters: ExampleFilters, evaluation_id: int | None = None):
    """The prediction browser's context; None when the model has no examples on ``dataset``."""
    available = evaluations_with_examples(model, dataset)
    if not available:
        return None
    stored = next((s for s in available if s.pk == evaluation_id), available[0])
    evaluation: Evaluation = stored.evaluation
    score_key = first_score_key(stored)
    read = read_stored(stored)
    examples = read.examples
    chosen = select(examples, filters, score_key)
    pages = max(1, -(-len(chosen) // PAGE_SIZE))
    page = min(filters.page, pages)
    shown = chosen[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    labels = sorted({display_text(e.get("label")) for e in examples if e.get("label") is not None})
    return {
        "model": model,
        "model_url": model_url(model.model_id),
        "dataset": dataset,
        "dataset_url": dataset_url(dataset),
        "evaluation": evaluation,
        "variant": variant_label(evaluation.few_shot, evaluation.validation_split),
        "version": evaluation.dataset_version.fingerprint,
        "choices": [
            {
                "id": s.pk,
                "label": f"{variant_label(s.evaluation.few_shot, s.evaluation.validation_split)}, "
                f"{s.evaluation.commit_sha[:12] or 'commit unknown'}, {s.num_examples} examples",
                "current": s.pk == stored.pk,
            }
            for s in available
        ],
        "score_key": score_key or "",
        "num_examples": stored.num_examples,
        "num_read": len(examples),
        "complete": read.complete,
        "problem": read.problem,
        "num_invalid": stored.num_invalid,
        "invalid_share": stored.invalid_share,
        "counts": {outcome: sum(1 for e in examples if outcome_of(e, score_key) == outcome) for outcome in OUTCOMES},
        "labels": labels,
        "filters": filters,
        "outcomes": OUTCOMES,
        "rows": [_row(e, score_key) for e in shown],
        "num_selected": len(chosen),
        "page": page,
        "pages": pages,
        "previous_query": filters.query(page=page - 1, evaluation=stored.pk) if page > 1 else None,
        "next_query": filters.query(page=page + 1, evaluation=stored.pk) if page < pages else None,
        "download_query": filters.query(page=1, format="jsonl", evaluation=stored.pk),
        "selected": chosen,
    }
