"""Import EuroEval result records (JSONL) into per-iteration scores.

One record is one model on one dataset in one variant (few-shot / zero-shot, test /
validation split). The same importer loads files published by others and the records
our own workers write. Rules (see the README):

- files are JSONL, gzip-compressed when named ``*.gz``; blank lines are ignored;
- lines are read by :mod:`results_files`; every record is validated and normalised by
  :mod:`record_parsing` (fields, per-iteration scores, percent rescaled and counted); a
  malformed line or invalid record is reported with its line number and skipped, and so
  is one the database refuses;
- tasks the site does not know are skipped and counted; the ``speed`` pseudo-task is
  EuroEval's own kind of efficiency data (``published_speed.py``), stored apart from scores;
- ``efficiency`` (what the evaluation cost, docs/methodology.md §11) is stored as the
  evaluation's ``EvaluationCost``;
- within a file the newest (last) record of a (model, dataset, variant) wins;
- a record equal to what is stored changes nothing, so re-importing a file is a no-op;
- records without examples are written a run at a time (``CHUNK``) in one transaction with
  bulk queries; a run the database refuses, and every other record, goes one record per
  transaction: nothing already stored is lost, and one bad record never takes the rest down.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from django.db import DatabaseError, transaction

from leaderboard.eee.files import read_results
from leaderboard.eee.records import as_legacy
from leaderboard.models import (
    Dataset,
    DatasetVersion,
    Evaluation,
    EvaluationCost,
    IterationScore,
    Language,
    LanguageModel,
    ModelType,
)
from leaderboard.record_fields import InvalidRecord, count_field
from leaderboard.registry.languages import default_board, language_name
from leaderboard.services import published_speed
from leaderboard.services.efficiency_store import cost_fields, store_cost
from leaderboard.services.example_store import (
    CheckedExamples,
    ExamplesNotFound,
    InvalidExamples,
    check_examples,
    examples_for_import,
    store_examples,
)
from leaderboard.services.import_report import ImportReport
from leaderboard.services.model_metadata import TypeSource, apply_catalogue, fill_unknown
from leaderboard.services.record_parsing import ParsedRecord, SkipRecord, parse_record
from leaderboard.services.results_files import read_records

__all__ = ["ImportReport", "ensure_languages", "import_file", "import_record", "store_record"]

IMPORTED, UPDATED, UNCHANGED = "imported", "updated", "unchanged"


def ensure_languages(codes: Iterable[str]) -> list[Language]:
    languages = []
    for code in codes:
        language, _ = Language.objects.get_or_create(
            code=code, defaults={"name": language_name(code), "board": default_board(code)}
        )
        languages.append(language)
    return languages


def _model_type(parsed: ParsedRecord) -> tuple[str | None, TypeSource]:
    """The model's type from what the record says, and how sure that is. Old files say
    nothing; one that reports a training loss was fine-tuned, which suggests an encoder but
    ScandEval fine-tuned decoders too (gpt2 in 2023): the weakest claim, which any statement
    or config replaces (``model_metadata``)."""
    record = parsed.record
    if record.get("generative") is False:
        return ModelType.ENCODER, TypeSource.RECORD
    if "generative" not in record and parsed.reports_training_loss:
        return ModelType.ENCODER, TypeSource.FINE_TUNED
    if "#" in str(record.get("model", "")):
        return ModelType.REASONING, TypeSource.RECORD
    return ModelType.from_euroeval_generative_type(record.get("generative_type")), TypeSource.RECORD


class Known:
    """The models, datasets and dataset versions one file's import has read or written,
    so that each is looked up once per file rather than once per record. Emptied when a
    record's transaction rolls back (what it held may be gone)."""

    def __init__(self) -> None:
        self.models: dict[str, LanguageModel] = {}
        self.datasets: dict[str, Dataset] = {}
        self.versions: dict[tuple[int, str], DatasetVersion] = {}

    def clear(self) -> None:
        self.models.clear()
        self.datasets.clear()
        self.versions.clear()


def _ensure_model(parsed: ParsedRecord, known: Known) -> LanguageModel:
    record = parsed.record
    model = known.models.get(parsed.model_id)
    if model is None:
        model, _ = LanguageModel.objects.get_or_create(model_id=parsed.model_id)
        known.models[parsed.model_id] = model
    model_type, type_source = _model_type(parsed)
    changed = fill_unknown(
        model,
        {
            "num_parameters": count_field(record, "num_model_parameters"),
            "vocabulary_size": count_field(record, "vocabulary_size"),
            "max_sequence_length": count_field(record, "max_sequence_length"),
            "precision": record.get("precision"),
            "model_type": model_type,
        },
        type_source,
    )
    changed += [name for name in apply_catalogue(model) if name not in changed]
    if changed:
        model.save(update_fields=changed + ["updated_at"])
    return model


def _ensure_dataset(parsed: ParsedRecord, known: Known) -> Dataset:
    dataset = known.datasets.get(parsed.dataset) or Dataset.objects.filter(name=parsed.dataset).first()
    if dataset is None:
        # First seen in a results file: created from the record; it counts toward its
        # languages' leaderboards until an admin excludes it.
        dataset = Dataset.objects.create(
            name=parsed.dataset, task=parsed.task, origin="results", counts_toward_leaderboard=True
        )
        dataset.languages.set(ensure_languages(parsed.languages))
    elif dataset.task != parsed.task:
        raise InvalidRecord(f"dataset {parsed.dataset} is a {dataset.task} dataset, the record says {parsed.task}")
    known.datasets[parsed.dataset] = dataset
    return dataset


def _ensure_version(dataset: Dataset, fingerprint: str, known: Known) -> DatasetVersion:
    key = (dataset.pk, fingerprint)
    if key not in known.versions:
        known.versions[key] = dataset.ensure_version(fingerprint, origin="results")
    return known.versions[key]


def _score_objects(evaluation: Evaluation, rows: set[tuple[int, str, float]]) -> list[IterationScore]:
    return [
        IterationScore(evaluation=evaluation, iteration=i, metric=metric, value=value)
        for i, metric, value in sorted(rows)
    ]


def _score_rows(parsed: ParsedRecord) -> set[tuple[int, str, float]]:
    return {(i, metric, value) for i, scores in enumerate(parsed.iterations) for metric, value in scores.items()}


def store_record(
    parsed: ParsedRecord,
    *,
    source: str,
    submission=None,
    examples: CheckedExamples | None = None,
    known: Known | None = None,
) -> str:
    """Write one parsed record, and its per-example evidence when given (already checked
    with ``example_store.check_examples``); returns imported / updated / unchanged.
    ``known``: what earlier records of the same import looked up (emptied on a failure)."""
    known = known if known is not None else Known()
    try:
        with transaction.atomic():
            return _store(parsed, source, submission, examples, known)
    except BaseException:
        known.clear()
        raise


def _store(parsed: ParsedRecord, source: str, submission, examples: CheckedExamples | None, known: Known) -> str:
    model = _ensure_model(parsed, known)
    dataset = _ensure_dataset(parsed, known)
    version = _ensure_version(dataset, parsed.dataset_version, known)
    evaluation, created = Evaluation.objects.select_for_update().get_or_create(
        model=model,
        dataset_version=version,
        few_shot=parsed.few_shot,
        validation_split=parsed.validation_split,
        commit_sha=parsed.commit_sha,
        num_iterations=len(parsed.iterations),
        test_limit=parsed.test_limit,
        defaults={"source": source, "submission": submission, "dataset": dataset},
    )
    wanted = _score_rows(parsed)
    examples_changed = examples is not None and store_examples(evaluation, examples)
    if not created:
        stored = set(evaluation.scores.values_list("iteration", "metric", "value"))
        if stored == wanted and evaluation.record == parsed.record:
            return UPDATED if examples_changed else UNCHANGED
        evaluation.scores.all().delete()
    evaluation.record = parsed.record
    evaluation.num_iterations = len(parsed.iterations)
    evaluation.revision = str(parsed.record.get("model_revision") or "")
    evaluation.source = source
    if submission is not None:
        evaluation.submission = submission
    evaluation.save()
    IterationScore.objects.bulk_create(_score_objects(evaluation, wanted))
    store_cost(evaluation, parsed.efficiency)
    return IMPORTED if created else UPDATED


def import_record(record: dict, *, source: str, submission=None, examples: bytes | None = None) -> str:
    """Validate and store one record (the workers' path) with its examples when given;
    raises InvalidRecord/SkipRecord, and InvalidExamples before anything is stored."""
    parsed = parse_record(record)
    checked = check_examples(examples, parsed.record, len(parsed.iterations)) if examples is not None else None
    return store_record(parsed, source=source, submission=submission, examples=checked)


def _examples_beside(path: Path, parsed: ParsedRecord, number: int, report: ImportReport) -> CheckedExamples | None:
    """The checked examples the record names, from beside ``path``; None (the reason
    reported, the record still imported) when they are missing or wrong."""
    try:
        return examples_for_import(path, parsed.record, len(parsed.iterations))
    except ExamplesNotFound as exc:
        report.examples_problem("examples not found", number, str(exc))
    except InvalidExamples as exc:
        report.examples_problem("examples refused", number, str(exc))
    return None


CHUNK = 250  # records a bulk transaction writes at most


def _store_one(
    number: int, parsed: ParsedRecord, examples: CheckedExamples | None, source: str, known: Known, report: ImportReport
) -> None:
    """One record in its own transaction, what happened counted in ``report``."""
    try:
        report.count(store_record(parsed, source=source, examples=examples, known=known))
        report.with_examples += examples is not None
    except InvalidRecord as exc:
        report.skip("invalid record", number, str(exc))
        return
    except DatabaseError as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        report.skip("refused by the database", number, f"the database refused the record: {first_line}")
        return
    if parsed.rescaled:
        report.rescaled += 1


def _store_run(run: list[tuple[int, ParsedRecord]], source: str, known: Known, report: ImportReport) -> None:
    """Records without examples: those whose evaluation does not exist yet (a file imported
    for the first time) or is stored as it is, in one transaction with a few bulk queries;
    the others one by one. When the database refuses the transaction, every record of the
    run goes one by one, so each is stored or refused alone, as ``_store_one`` does."""
    if not run:
        return
    try:
        with transaction.atomic():
            written, unchanged, existing, refused = _store_new(run, source, known)
    except DatabaseError:
        known.clear()
        written, unchanged, existing, refused = [], [], run, []
    for number, reason in refused:
        report.skip("invalid record", number, reason)
    for outcome, items in ((IMPORTED, written), (UNCHANGED, unchanged)):
        for _, parsed in items:
            report.count(outcome)
            report.rescaled += bool(parsed.rescaled)
    for number, parsed in existing:
        _store_one(number, parsed, None, source, known, report)


def _evaluation_key(evaluation: Evaluation) -> tuple:
    return (
        evaluation.model_id,
        evaluation.dataset_version_id,
        evaluation.few_shot,
        evaluation.validation_split,
        evaluation.commit_sha,
        evaluation.num_iterations,
        evaluation.test_limit,
    )


def _stored_scores(evaluation_ids: list[int]) -> dict[int, set[tuple[int, str, float]]]:
    scores: dict[int, set[tuple[int, str, float]]] = {pk: set() for pk in evaluation_ids}
    for pk, iteration, metric, value in IterationScore.objects.filter(evaluation__in=evaluation_ids).values_list(
        "evaluation", "iteration", "metric", "value"
    ):
        scores[pk].add((iteration, metric, value))
    return scores


def _same(evaluation: Evaluation, scores: dict[int, set], parsed: ParsedRecord) -> bool:
    """Whether the stored evaluation already holds the record and its scores."""
    return scores[evaluation.pk] == _score_rows(parsed) and evaluation.record == parsed.record


def _new_evaluation(parsed: ParsedRecord, source: str, known: Known) -> Evaluation:
    """The record's evaluation, not saved, its model, dataset and version found or created."""
    dataset = _ensure_dataset(parsed, known)
    return Evaluation(
        model=_ensure_model(parsed, known),
        dataset=dataset,
        dataset_version=_ensure_version(dataset, parsed.dataset_version, known),
        few_shot=parsed.few_shot,
        validation_split=parsed.validation_split,
        commit_sha=parsed.commit_sha,
        num_iterations=len(parsed.iterations),
        test_limit=parsed.test_limit,
        record=parsed.record,
        revision=str(parsed.record.get("model_revision") or ""),
        source=source,
    )


def _store_new(run: list[tuple[int, ParsedRecord]], source: str, known: Known) -> tuple[list, list, list, list]:
    """Create the evaluations of ``run`` that do not exist, with their scores and costs, in
    bulk; returns (the records written, the records already stored as they are, the records
    whose stored evaluation differs or that repeat one written here: left to
    ``store_record``, which updates, and the line and reason of each record refused)."""
    new: list[tuple[tuple[int, ParsedRecord], Evaluation]] = []
    refused: list[tuple[int, str]] = []
    for number, parsed in run:
        try:
            evaluation = _new_evaluation(parsed, source, known)
        except InvalidRecord as exc:  # the dataset refuses it, before anything of the record is written
            refused.append((number, str(exc)))
            continue
        new.append(((number, parsed), evaluation))
    wanted = {_evaluation_key(e) for _, e in new}
    stored = {
        key: e
        for e in Evaluation.objects.filter(
            model__in={e.model_id for _, e in new}, dataset_version__in={e.dataset_version_id for _, e in new}
        )
        if (key := _evaluation_key(e)) in wanted  # the query spans other pairs and protocols too
    }
    scores = _stored_scores([e.pk for e in stored.values()])
    written, unchanged, existing = [], [], []
    for item, evaluation in new:
        key = _evaluation_key(evaluation)
        if key not in stored:
            written.append((item, evaluation))
            stored[key] = evaluation
        elif stored[key].pk and _same(stored[key], scores, item[1]):
            unchanged.append(item)
        else:
            existing.append(item)
    Evaluation.objects.bulk_create([evaluation for _, evaluation in written])
    IterationScore.objects.bulk_create(
        [score for (_, parsed), evaluation in written for score in _score_objects(evaluation, _score_rows(parsed))],
        batch_size=2000,
    )
    EvaluationCost.objects.bulk_create(
        [
            EvaluationCost(evaluation=evaluation, **cost_fields(parsed.efficiency))
            for (_, parsed), evaluation in written
            if parsed.efficiency is not None
        ]
    )
    return [item for item, _ in written], unchanged, existing, refused


def import_file(path: Path | str, *, source: str | None = None) -> ImportReport:
    """Import a JSONL (or gzip-compressed JSONL) file of result records.

    Never raises for a bad line: a malformed line, an invalid record or one the database
    refuses is counted and listed with its line number, and the other records import.
    """
    path = Path(path)
    source = source or path.name
    report = ImportReport()
    newest: dict[tuple, tuple[int, ParsedRecord]] = {}
    speeds = published_speed.SpeedLines()
    for number, record, error in read_results(path, read_records):  # JSONL, or a .json EEE log
        if error:
            report.skip("malformed", number, error)
            continue
        if published_speed.is_speed(record):  # EuroEval's speed pseudo-task: its own kind
            speeds.add(number, record, report)
            continue
        try:
            parsed = parse_record(as_legacy(record))  # an EEE record becomes EuroEval's record
        except SkipRecord as exc:
            report.skip(exc.reason, number, exc.detail)
            continue
        except InvalidRecord as exc:
            report.skip("invalid record", number, str(exc))
            continue
        if parsed.key in newest:
            report.skip("superseded by a newer record in the file")
        newest[parsed.key] = (number, parsed)
    known = Known()
    run: list[tuple[int, ParsedRecord]] = []  # records without examples, written together
    for number, parsed in newest.values():
        examples = _examples_beside(path, parsed, number, report)
        if examples is None:
            run.append((number, parsed))
            if len(run) == CHUNK:
                _store_run(run, source, known, report)
                run = []
            continue
        _store_run(run, source, known, report)  # in the file's order: earlier records first
        run = []
        _store_one(number, parsed, examples, source, known, report)
    _store_run(run, source, known, report)
    speeds.store(source, report)
    return report
