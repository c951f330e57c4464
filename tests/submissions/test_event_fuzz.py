"""Chaos on the trust boundary: 1,000 random and mutated events, fuzzed from real ones,
sent at a live ``default`` worker while a real evaluation runs (the bundled SmolLM2 on
one Danish dataset, 2 iterations of 8 test rows, on a ``gpu`` worker without a database).

The real submission must finish with exactly its own scores; nothing else may be stored
(no evaluation, score, dataset, version, language or exam), so no board can change but by
it; and every page answers without a server error afterwards.

What the fuzzer leaves out is the one thing a broker reader can do by design: a message
that is exactly the worker's own (the right submission and task id with a terminal kind,
or the record the job asks for). The site cannot tell those from its worker's; everything
else it must refuse (README, "Trust boundary: the GPU side")."""

from __future__ import annotations

import copy
import random
import uuid

import pytest
from celery import current_app
from django.test import Client

from leaderboard.models import (
    Evaluation,
    Exam,
    ExamRun,
    ExamRunStatus,
    IterationScore,
    LeaderboardEntry,
    Submission,
    SubmissionStatus,
)
from leaderboard.services import submissions as service

from .conftest import SMOL, broker
from .records import planned_record
from .test_forged_events import (  # noqa: F401 (fixtures)
    EXAM_EVENT,
    SUBMISSION_EVENT,
    board,
    exam_document,
    published_da,
    registry,
)
from .worker import Workers, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

EVENTS = 1000
SEED = 20261125
TERMINAL = ("finished", "failed", "gave_up")
KINDS = ("started", "heartbeat", "progress", "dataset_failed", "record", *TERMINAL)
# a record that breaks the job in at least one of these ways is refused whatever else it holds
PLAN_BREAKERS = (
    ("dataset", ["dane", "angry-tweets", "forged-new-ds", "scala-da/../x", "SCALA-DA", "", "x" * 300]),
    ("dataset_version", [None, "published", "sha256:" + "0" * 64, "published:test=8", 7]),
    ("few_shot", [True, "false", 1, None]),
    ("validation_split", [True, "yes"]),
    ("limit", [None, 4, 32, "8", 8.0, -8]),
    ("model", ["probe/forger", SMOL.upper(), SMOL + " ", None]),
    ("model_commit", ["0" * 40, "", None]),
)


def junk(rng: random.Random):
    """A value of a random type and size."""
    choice = rng.randrange(12)
    return [
        None,
        True,
        -1,
        2**70,
        1.5,
        "",
        "x" * rng.choice([1, 200, 70_000]),
        "ünïcödé\u202e\x00",
        [],
        {"a": [1, {"b": None}]},
        [[[[[[[[[[]]]]]]]]]],
        {str(i): i for i in range(rng.randrange(50))},
    ][choice]


class Fuzzer:
    """Mutates the events a real worker sends for ``submission`` (and an exam run's)."""

    def __init__(self, submission: Submission, run: ExamRun, rng: random.Random):
        self.submission, self.run, self.rng = submission, run, rng
        self.task = submission.celery_task_id
        self.record = planned_record(submission)
        self.document = exam_document(run)

    def real(self, kind: str) -> dict:
        data = {
            "started": {"attempt": 1, "worker": "host:1", "unavailable": {}},
            "heartbeat": {"stage": "evaluating scala-da"},
            "progress": {"dataset": "scala-da", "done": 3, "total": 4},
            "dataset_failed": {"dataset": "scala-da", "reason": "boom"},
            "record": {"record": copy.deepcopy(self.record), "examples": None},
            "finished": {"sent": ["scala-da"], "log": "log"},
            "failed": {"reason": "no", "sent": [], "log": ""},
            "gave_up": {"attempt": 3},
        }[kind]
        return {"kind": kind, "submission": self.submission.pk, "task": self.task, **data}

    def other_task(self) -> str:
        """A task id that is not the submission's: random, one character off, cased, padded, long."""
        rng = self.rng
        off_by_one = self.task[:-1] + ("1" if self.task.endswith("0") else "0")
        choices = [str(uuid.uuid4()), off_by_one, self.task.upper(), "", self.task + " ", "x" * 70]
        return rng.choice([task for task in choices if task != self.task])

    def mutate_fields(self, event: dict) -> None:
        rng = self.rng
        for _ in range(rng.randrange(1, 4)):
            key = rng.choice([*event.keys(), "extra", "kind", "submission", "task"])
            if rng.random() < 0.2:
                event.pop(key, None)
            else:
                event[key] = junk(rng) if key != "kind" else rng.choice([*KINDS, "drop_tables", "", junk(rng)])

    def break_record(self, record: dict) -> None:
        """At least one way the job is broken (applied last: nothing undoes it), maybe more."""
        rng = self.rng
        if rng.random() < 0.2:
            del record[rng.choice(list(record))]
        if rng.random() < 0.3:
            record["results"] = rng.choice(
                [{"raw": [{"mcc": 0.99, "macro_f1": 0.99}] * 3}, {"raw": "x"}, junk(rng), {"raw": [{"mcc": "1"}] * 2}]
            )
        for key, values in rng.sample(PLAN_BREAKERS, rng.randrange(1, 3)):
            record[key] = rng.choice(values)

    def submission_event(self) -> dict:
        rng = self.rng
        event = self.real(rng.choice(KINDS))
        how = rng.random()
        if how < 0.3:  # its own ids, a kind that cannot end it, fields mutated or broken
            event["kind"] = rng.choice(["started", "heartbeat", "progress", "dataset_failed", "record"])
            event = {**self.real(event["kind"]), **{k: v for k, v in event.items() if k == "kind"}}
            if event["kind"] == "record":
                self.break_record(event["record"])
            elif rng.random() < 0.7:
                key = rng.choice([k for k in event if k not in ("kind", "submission", "task")])
                event[key] = rng.choice([junk(rng), "dane", "forged-new-ds", {"dane": "x"}])
        elif how < 0.6:  # another task id of the real submission, any kind
            event["task"] = self.other_task()
            if event["kind"] == "record" and rng.random() < 0.5:
                self.break_record(event["record"])
        elif how < 0.8:  # another submission, existing or not
            event["submission"] = rng.choice([0, -1, 2**31, 2**63, self.submission.pk + rng.randrange(1, 50), "1"])
        else:  # anything at all
            self.mutate_fields(event)
        return self._not_the_workers_own(event)

    def _not_the_workers_own(self, event: dict) -> dict:
        """A mutant that came out as exactly the worker's own message is made a stale one."""
        own = event.get("submission") == self.submission.pk and event.get("task") == self.task
        if own and (event.get("kind") in TERMINAL or (event.get("kind") == "record" and self._valid(event))):
            event["task"] = self.other_task()
        return event

    def _valid(self, event: dict) -> bool:
        record = event.get("record")
        return isinstance(record, dict) and all(record.get(k) == self.record.get(k) for k in self.record)

    def exam_event(self) -> dict:
        rng = self.rng
        kind = rng.choice(["started", "stage", "heartbeat", "finished", "failed", "gave_up", "nope"])
        event = {"kind": kind, "run": self.run.pk, "task": self.run.celery_task_id, "attempt": rng.randrange(5)}
        if kind == "finished":
            event["document"] = rng.choice([self.document[: rng.randrange(len(self.document))], junk(rng), ""])
        if rng.random() < 0.7:
            event["task"] = self.other_task()
        if rng.random() < 0.3:
            self.mutate_fields(event)
        return event

    def events(self, count: int):
        for _ in range(count):
            roll = self.rng.random()
            if roll < 0.1:
                yield EXAM_EVENT, self.exam_event()
            elif roll < 0.13:
                yield self.rng.choice([SUBMISSION_EVENT, EXAM_EVENT]), junk(self.rng)  # not an event at all
            else:
                yield SUBMISSION_EVENT, self.submission_event()


def snapshot() -> tuple:
    return (
        registry(),
        sorted(Evaluation.objects.values_list("pk", "updated_at")),
        IterationScore.objects.count(),
        Exam.objects.count(),
    )


@pytest.mark.usefixtures("published_da")
def test_a_thousand_fuzzed_events_during_a_real_evaluation_change_nothing_but_its_results(tmp_path, settings):
    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 1, 4  # the job's protocol: a short evaluation
    run = ExamRun.objects.create(
        language="da",
        round=1,
        seed=3,
        examiners=[{"model": "m/a"}, {"model": "m/b"}],
        examinees=[{"model": "m/a"}, {"model": "m/b"}],
        celery_task_id=str(uuid.uuid4()),
    )
    before, before_board = snapshot(), board("da")
    before_entries = set(LeaderboardEntry.objects.values_list("leaderboard__code", "model__model_id"))
    broker().delete("unacked", "unacked_index")
    workers = Workers(tmp_path)
    try:
        gpu = workers.gpu()
        default = workers.started[0]
        submission = service.submit(SMOL, few_shot=False, languages=["da"]).submission
        wait_for(lambda: Submission.objects.get(pk=submission.pk).status == "RUNNING", 120, "the start", gpu, 0.2)
        submission.refresh_from_db()
        fuzzer = Fuzzer(submission, run, random.Random(SEED))
        for task, event in fuzzer.events(EVENTS):
            current_app.send_task(task, args=[event], queue="default")
        wait_for(
            lambda: Submission.objects.get(pk=submission.pk).status not in ("PENDING", "RUNNING"),
            300,
            "the real submission to end",
            default,
        )
        wait_for(lambda: broker().llen("default") == 0, 120, "the default queue to drain", default)
        wait_for(lambda: "aggregate_boards" in default.text(), 60, "the boards' aggregation", default)
        wait_for(lambda: broker().llen("default") == 0 and not broker().hlen("unacked"), 60, "the queue", default)
        log = default.text()
    finally:
        workers.stop()
    # every hostile message was handled: dropped, ignored or refused with a reason, never a crash
    assert "raised unexpected" not in log, log[log.find("raised unexpected") - 300 :][:3000]
    assert log.count("is not in this submission's job") + log.count("not in its job, ignored") > 10

    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.FINISHED, (submission.failure_reason, submission.progress)
    assert submission.datasets_done == submission.datasets_total == 1
    # exactly its own scores: one evaluation, one score per iteration and metric
    evaluation = Evaluation.objects.get(submission=submission)
    assert (evaluation.dataset.name, evaluation.model.model_id, evaluation.num_iterations) == ("scala-da", SMOL, 1)
    assert evaluation.dataset_version.fingerprint == submission.job["versions"]["scala-da"]
    assert (evaluation.test_limit, evaluation.few_shot, evaluation.validation_split) == (4, False, False)
    metrics = set(evaluation.scores.values_list("metric", flat=True))
    assert metrics and evaluation.scores.count() == len(metrics)
    assert {"versions", "prompt_style", "shot_ids"} <= set(evaluation.record)  # the engine's record, no fuzzer's
    # nothing else stored: no other evaluation, score, dataset, version, language or exam
    registry_now, evaluations_now, scores_now, exams_now = snapshot()
    assert registry_now == before[0] and exams_now == before[3] == 0
    assert sorted(set(evaluations_now) - set(before[1])) == [(evaluation.pk, evaluation.updated_at)]
    assert scores_now == before[2] + evaluation.scores.count()
    # the boards: only its own rows are new; the other models' rows are the ones they had
    entries = set(LeaderboardEntry.objects.values_list("leaderboard__code", "model__model_id"))
    assert {model for _, model in entries - before_entries} == {SMOL}
    assert {row[0] for row in board("da")} == {row[0] for row in before_board} | {SMOL}
    assert ExamRun.objects.get(pk=run.pk).status in (ExamRunStatus.PENDING, ExamRunStatus.RUNNING, ExamRunStatus.FAILED)
    # every page answers
    client = Client()
    model_path = f"/models/{SMOL}/"
    pages = [
        "/",
        "/leaderboards/da/",
        "/leaderboards/da-suite/",
        "/queue/",
        "/compare/",
        model_path,
        f"/models/{SMOL}/datasets/scala-da/examples/",
        "/datasets/scala-da/",
        "/datasets/dane/",
        f"/submissions/{submission.pk}/",
        f"/submissions/{submission.pk}.json",
        "/examiner/da/",
        "/leaderboards/da.json",
        "/methodology/",
    ]
    statuses = {page: client.get(page).status_code for page in pages}
    assert all(status < 500 for status in statuses.values()), statuses
    assert statuses["/leaderboards/da/"] == statuses[f"/submissions/{submission.pk}/"] == 200, statuses
