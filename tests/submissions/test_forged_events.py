"""What anyone on the broker can send the ``default`` worker, tried as an attacker would:
forged ``apply_submission_event`` and ``apply_exam_event`` messages, sent with a plain
Celery client to a real ``default`` worker on Redis, each knowing only what travels in the
``gpu`` messages (the submission or run id and its task id). Each forgery is refused with
a reason and nothing is stored or moved: the published board, the datasets, their
versions and languages, the exams. A pickled message is never decoded at all."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from celery import current_app

from leaderboard.models import (
    Dataset,
    DatasetVersion,
    Evaluation,
    Exam,
    Examiner,
    ExamResult,
    ExamRun,
    ExamRunStatus,
    Language,
    LanguageModel,
    LeaderboardEntry,
    Submission,
    SubmissionStatus,
)
from leaderboard.services import exam_runs
from leaderboard.services.aggregation import aggregate
from leaderboard.services.results_import import import_file
from leaderboard.services.submissions import prepare_job
from tests.support.in_process import new_task

from .conftest import broker
from .records import planned_record
from .worker import Workers, wait_for

pytestmark = [pytest.mark.django_db(transaction=True)]

SUBMISSION_EVENT = "leaderboard.tasks.apply_submission_event"
EXAM_EVENT = "leaderboard.tasks.apply_exam_event"
FORGER = "probe/forger"


@pytest.fixture(scope="module")
def default_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real ``default`` worker (the database side) and no GPU worker: every event it
    applies is one this test sent."""
    broker().delete("gpu", "default", "unacked", "unacked_index")
    workers = Workers(tmp_path_factory.mktemp("celery"))
    yield workers.default()
    workers.stop()
    broker().delete("gpu", "default")


def send(task: str, event) -> None:
    current_app.send_task(task, args=[event], queue="default")


def applied_through(worker, submission: Submission, marker: str) -> None:
    """Send a heartbeat naming ``marker`` behind the events already sent; the worker takes
    one message at a time in order, so once its stage is ``marker`` everything before it
    has been applied."""
    send(
        SUBMISSION_EVENT,
        {"kind": "heartbeat", "submission": submission.pk, "task": submission.celery_task_id, "stage": marker},
    )
    wait_for(
        lambda: Submission.objects.get(pk=submission.pk).stage == marker, 60, f"the worker to reach {marker}", worker
    )


def board(code: str) -> list[tuple]:
    return list(
        LeaderboardEntry.objects.filter(leaderboard__code=code)
        .order_by("model__model_id", "few_shot")
        .values_list("model__model_id", "few_shot", "rank", "rank_score", "missing_datasets")
    )


def registry() -> tuple:
    return (
        sorted(Dataset.objects.values_list("name", "counts_toward_leaderboard", "board_version_id")),
        sorted(DatasetVersion.objects.values_list("dataset__name", "fingerprint")),
        sorted(Language.objects.values_list("code", flat=True)),
    )


@pytest.fixture
def published_da(datasets, shared_results_file, empty_gpu_queue, tmp_path):
    """A Danish board as published (EuroEval's results on two Danish datasets, for 30
    models), and one suite dataset to plan."""
    lines = [line for line in shared_results_file.read_text().splitlines() if line.strip()]
    danish = [line for line in lines if json.loads(line).get("dataset") in ("scala-da", "dane")]
    models = sorted({json.loads(line)["model"] for line in danish})[:30]
    kept = [line for line in danish if json.loads(line)["model"] in models]
    (tmp_path / "published.jsonl").write_text("\n".join(kept) + "\n")
    report = import_file(tmp_path / "published.jsonl")
    assert report.imported > 30, report.summary()
    Dataset.objects.exclude(name="scala-da").update(in_suite=False)
    aggregate(["da"], replicates=20)
    assert len(board("da")) >= 20


def forged_submission() -> Submission:
    model = LanguageModel.objects.create(model_id=FORGER)
    submission = Submission.objects.create(model=model, languages=["da"], commit_sha="a" * 40, few_shot=True)
    prepare_job(submission.pk, new_task(submission))
    submission.refresh_from_db()
    assert submission.job["datasets"] == ["scala-da"] and submission.job["task"] == submission.celery_task_id
    return submission


def test_forged_records_are_refused_by_the_worker_and_move_nothing(default_worker, published_da):
    submission = forged_submission()
    before_board, before_registry = board("da"), registry()

    def event(kind, **data):
        return {"kind": kind, "submission": submission.pk, "task": submission.celery_task_id, **data}

    send(SUBMISSION_EVENT, event("started", attempt=1, worker="w:1", unavailable={"angry-tweets": "x"}))
    good = planned_record(submission)
    unversioned = {key: value for key, value in good.items() if key != "dataset_version"}
    forgeries = {
        # datasets the job never planned, without a version: they would land on the published one
        "not in the job": [
            {**unversioned, "dataset": name, "task": task}
            for name, task in (
                ("dane", "named-entity-recognition"),
                ("scandiqa-da", "reading-comprehension"),
                ("angry-tweets", "sentiment-classification"),
            )
        ],
        "a brand-new dataset": [{**good, "dataset": "forged-new-ds", "dataset_languages": ["xx"]}],
        "no dataset version (the published one)": [unversioned],
        "another version": [{**good, "dataset_version": "sha256:" + "0" * 64}],
        "the other variant": [{**good, "few_shot": False}, {**good, "validation_split": True}],
        "another protocol": [
            planned_record(submission, results={"raw": [{"mcc": 0.9, "macro_f1": 0.9}] * 3}),
            {**good, "limit": None},
            {**good, "limit": 4},
        ],
        "another model": [{**good, "model": "someone/else"}],
    }
    for records in forgeries.values():
        for record in records:
            record["results"] = {"raw": [{"mcc": 0.99, "macro_f1": 0.99}] * len(record["results"]["raw"])}
            send(SUBMISSION_EVENT, event("record", record=record))
    send(SUBMISSION_EVENT, event("progress", dataset="forged-new-ds", done=1, total=2))
    send(SUBMISSION_EVENT, event("dataset_failed", dataset="dane", reason="x"))
    applied_through(default_worker, submission, "after the forgeries")

    submission.refresh_from_db()
    assert not Evaluation.objects.filter(submission=submission).exists()
    assert not Evaluation.objects.filter(model__model_id__in=[FORGER, "someone/else"]).exists()
    assert registry() == before_registry  # no dataset, version or language registered
    assert not Dataset.objects.filter(name="forged-new-ds").exists()
    # the one planned dataset failed with the last reason; nothing else was added to the submission
    assert set(submission.progress) == {"scala-da", "_worker", *submission.job["unavailable"]}
    assert "angry-tweets" not in submission.progress and submission.progress["dane"]["state"] == "unavailable"
    assert submission.progress["scala-da"]["state"] == "failed"
    assert "the record's model is 'someone/else'" in submission.progress["scala-da"]["note"] or (
        "not of the submitted" in submission.progress["scala-da"]["note"]
    )
    log = default_worker.text()
    for reason in (
        "'dane' is not in this submission's job",
        "'forged-new-ds' is not in this submission's job",
        "dataset version is 'published'",
        "dataset version is 'sha256:0000",
        "few-shot variant is 'False'",
        "validation split is 'True'",
        "protocol is 'iterations=3,test-limit=8'",
        "protocol is 'iterations=2'",
        "protocol is 'iterations=2,test-limit=4'",
    ):
        assert reason in log, reason
    aggregate(["da"], replicates=20)  # recomputed from what is stored: exactly as before
    assert board("da") == before_board
    assert FORGER not in {row[0] for row in board("da")}

    # the record the job asked for is stored: the checks refuse forgeries, not the worker
    send(SUBMISSION_EVENT, event("record", record=good))
    send(SUBMISSION_EVENT, event("dataset_failed", dataset="scala-da", reason="a stored result is not failed after"))
    # a terminal event does not wait for datasets outside the job
    send(SUBMISSION_EVENT, event("finished", sent=["scala-da", "dane", "forged-new-ds", ["x"]], log=""))
    wait_for(
        lambda: Submission.objects.get(pk=submission.pk).status == SubmissionStatus.FINISHED,
        60,
        "the genuine record to finish the submission",
        default_worker,
    )
    submission.refresh_from_db()
    assert submission.progress["scala-da"] == {"state": "done"} and submission.datasets_done == 1
    evaluation = Evaluation.objects.get(submission=submission)
    assert evaluation.dataset_version.fingerprint == submission.job["versions"]["scala-da"]
    assert (evaluation.num_iterations, evaluation.test_limit, evaluation.few_shot) == (2, 8, True)
    assert registry() == before_registry
    # the boards' aggregation the finish queued runs before the test's database is emptied
    wait_for(
        lambda: re.search(r"aggregate_boards\[[^]]+\] succeeded", default_worker.text()),
        120,
        "the aggregation",
        default_worker,
    )


# --- exams ---------------------------------------------------------------------------------


def exam_document(run: ExamRun, *, language=None, round=None, examiners=(), examinees=()) -> str:
    """A whole exam written by scripted models for ``run`` (its participants, language,
    round and seed), with the given changes, as the worker's ``finished`` event carries it."""
    from evaluation.examiner.exam import ExamSettings, Participant, run_exam
    from tests.examiner.scripted import ScriptedModel

    def people(names):
        return [Participant(name, ScriptedModel(name, 3 + i % 2)) for i, name in enumerate(names)]

    settings = ExamSettings(
        language=language or run.language,
        questions=1,
        follow_ups=0,
        round=round or run.round,
        seed=run.seed,
        bootstrap=10,
    )
    records = run_exam(
        people([e["model"] for e in run.examiners] + list(examiners)),
        people([e["model"] for e in run.examinees] + list(examinees)),
        settings,
    )
    return exam_runs.document_payload(("\n".join(json.dumps(r) for r in records) + "\n").encode())


def test_forged_exam_documents_fail_the_run_and_store_nothing(default_worker, empty_gpu_queue):
    for name in ("m/a", "m/b"):
        Examiner.objects.create(model_id=name, languages=["da"])
    run = exam_runs.start_exam_run("da")
    assert {e["model"] for e in run.examiners} == {e["model"] for e in run.examinees} == {"m/a", "m/b"}
    forgeries = {
        "language (sv)": {"language": "sv"},
        "round (9)": {"round": 9},
        f"examiners ({FORGER})": {"examiners": [FORGER]},
        f"examinees ({FORGER})": {"examinees": [FORGER]},
    }
    for reason, changes in forgeries.items():
        document = exam_document(run, **changes)
        send(EXAM_EVENT, {"kind": "started", "run": run.pk, "task": run.celery_task_id, "attempt": 1})
        send(EXAM_EVENT, {"kind": "finished", "run": run.pk, "task": run.celery_task_id, "document": document})
        wait_for(lambda: ExamRun.objects.get(pk=run.pk).status == ExamRunStatus.FAILED, 60, reason, default_worker)
        run.refresh_from_db()
        assert run.failure_reason.startswith("The exam could not be stored: the document is not this run's")
        assert f"other {reason}" in run.failure_reason, run.failure_reason
        assert not Exam.objects.exists() and not ExamResult.objects.exists()
        exam_runs.requeue(run)  # an administrator's retry: a new task id, the same round
        run.refresh_from_db()
    assert not Exam.objects.filter(language="sv").exists()

    # the run's own document is stored
    send(EXAM_EVENT, {"kind": "finished", "run": run.pk, "task": run.celery_task_id, "document": exam_document(run)})
    wait_for(lambda: Exam.objects.filter(run=run).exists(), 60, "the genuine exam", default_worker)
    exam = Exam.objects.get(run=run)
    assert (exam.language, exam.round) == ("da", run.round)
    assert set(ExamResult.objects.filter(exam=exam).values_list("examinee", flat=True)) <= {"m/a", "m/b"}


# --- JSON only -----------------------------------------------------------------------------


class RunsCode:
    """Unpickling this runs a command: a pickled message must never be decoded."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


def test_a_pickled_message_is_refused_unread(default_worker, tmp_path, empty_gpu_queue):
    marker = tmp_path / f"pickle-ran-{uuid.uuid4().hex[:6]}"
    current_app.send_task(SUBMISSION_EVENT, args=[RunsCode(marker)], queue="default", serializer="pickle")
    current_app.send_task(EXAM_EVENT, args=[RunsCode(marker)], queue="default", serializer="pickle")
    # a JSON message behind them is applied: the worker went past both
    run_marker = f"json-after-pickle-{uuid.uuid4().hex[:6]}"
    send(SUBMISSION_EVENT, {"kind": "bogus", "submission": 1, "task": run_marker})
    wait_for(lambda: run_marker in default_worker.text(), 60, "the JSON message behind", default_worker)
    assert not marker.exists()
    log = default_worker.text()
    assert log.count("Refusing to deserialize untrusted content of type pickle") >= 2, log[-3000:]
    assert broker().llen("default") == 0  # refused and gone, not re-delivered forever


def test_the_workers_own_exam_document_is_the_runs(monkeypatch, empty_gpu_queue, settings):
    """The real exam task (``run_exam_job``, scripted models in place of the loaded ones)
    writes the document the run's check accepts: its header is built from the job."""
    from evaluation.examiner.exam import Participant
    from leaderboard.tasks.examination import run_exam_job
    from tests.examiner.scripted import ScriptedModel

    settings.EXAM_QUESTIONS, settings.EXAM_FOLLOW_UPS = 1, 0
    monkeypatch.setattr(
        "evaluation.examiner.participants.load_participant",
        lambda model, backend, revision="", **kwargs: Participant(model, ScriptedModel(model, 3), revision),
    )
    for name in ("m/a", "m/b"):
        Examiner.objects.create(model_id=name, languages=["da"])
    run = exam_runs.start_exam_run("da")

    class Applied:
        def send(self, kind, **data):
            exam_runs.apply_event({"kind": kind, "run": run.pk, "task": run.celery_task_id, **data})

        try_send = send

    assert run_exam_job(exam_runs.exam_job(run), run.celery_task_id, Applied()) == "finished"
    run.refresh_from_db()
    assert run.status == ExamRunStatus.FINISHED, run.failure_reason
    assert Exam.objects.get(run=run).round == run.round
