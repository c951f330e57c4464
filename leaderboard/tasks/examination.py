"""The exam task (queue ``gpu``): one message runs one exam round, without a database, and
reports through events to the ``default`` queue (``services/exam_runs.apply_event``):
started, stages, heartbeats, and finished with the whole exam document (gzip, base64) or
failed with a reason. Counting deliveries (after ``GLOSSA_MAX_ATTEMPTS`` the run gives
up), the log, the failure reasons and the report of a hard time limit are every GPU job's
(``leaderboard/jobs/worker.py``)."""

from __future__ import annotations

import json
import logging
import os
from functools import partial

from django.conf import settings

from evaluation.endpoints import EndpointRefused, check_examiner
from evaluation.errors import EvaluationError
from evaluation.examiner import exam as engine_exam
from evaluation.examiner.participants import ParticipantLoader
from leaderboard.jobs.worker import GpuJobTask, Heartbeat, JobEvents, gpu_task, run_counted
from leaderboard.services.exam_runs import document_payload

logger = logging.getLogger("leaderboard.tasks.examination")

EXAM_EVENT_TASK = "leaderboard.tasks.apply_exam_event"
STAGES = {"question": "writing questions", "answer": "answering", "grade": "grading", "ranking": "ranking answers"}

__all__ = ["run_exam"]


class ExamEvents(JobEvents):
    """The events of one (exam run, task), to ``apply_exam_event``."""

    id_key = "run"
    event_task = EXAM_EVENT_TASK


def _api_key(model: str, backend: str, variable: object) -> str:
    """An endpoint's key from the worker's environment (the job names the variable only),
    after the endpoint and the variable pass the deployment's allow-lists
    (:mod:`evaluation.endpoints`); "" (no key, never ``OPENAI_API_KEY``) when none is named."""
    if not isinstance(variable, str) or not isinstance(backend, str):
        raise EndpointRefused(f"the examiner {model}'s backend and key variable must be text")
    check_examiner(backend, variable)
    if not variable:
        return ""
    key = os.environ.get(variable)
    if not key:
        raise EvaluationError(f"the examiner {model}'s key is not set on this worker ({variable})")
    return key


def _participants(job: dict, loader):
    """(examiners, examinees) of the job: a registered examiner answers through its own
    backend; a submission's model is loaded at its pinned commit in either role. Every
    endpoint and key variable is checked before anything is loaded or requested."""
    by_model = {e["model"]: e for e in job["examiners"]}
    revisions = {e["model"]: e.get("revision", "") for e in job["examinees"]}

    def spec_of(model: str) -> tuple[str, str]:
        spec = by_model.get(model) or {"backend": job.get("backend") or "transformers"}
        return spec["backend"], _api_key(model, spec["backend"], spec.get("api_key_env", ""))

    wanted = [(e["model"], revisions.get(e["model"], "")) for e in job["examiners"]]
    wanted += [(e["model"], e.get("revision", "")) for e in job["examinees"]]
    specs = {model: spec_of(model) for model, _ in wanted}  # all refused before any request
    loaded = [loader.get(model, specs[model][0], revision, specs[model][1]) for model, revision in wanted]
    return loaded[: len(job["examiners"])], loaded[len(job["examiners"]) :]


def run_exam_job(job: dict, task_id: str, events=None) -> str:
    run_id = int(job["run"])
    events = events or ExamEvents(run_id, task_id)
    return run_counted(job, task_id, events, f"exam run {run_id}", partial(_examine, job, events))


def _examine(job: dict, events, attempt: int, log) -> str:
    loader = ParticipantLoader(resident=settings.EXAM_RESIDENT_MODELS)  # the rest wait on disk for their turn
    try:
        events.send("started", attempt=attempt)
        lines: list[str] = []
        stage = [""]

        def on_record(record: dict) -> None:
            lines.append(json.dumps(record, ensure_ascii=False))
            name = STAGES.get(record["kind"])
            if name and name != stage[0]:
                stage[0] = name
                events.try_send("stage", stage=name)

        with Heartbeat(events):
            examiners, examinees = _participants(job, loader)
            s = job["settings"]
            exam_settings = engine_exam.ExamSettings(
                language=job["language"],
                questions=int(s["questions"]),
                follow_ups=int(s["follow_ups"]),
                round=int(job["round"]),
                seed=int(job["seed"]),
                answer_tokens=int(s.get("answer_tokens") or 256),
                earlier_questions=tuple(str(q) for q in s.get("earlier_questions", [])),
            )
            logger.info("exam run %s: %s round %s", job["run"], job["language"], job["round"])
            engine_exam.run_exam(examiners, examinees, exam_settings, on_record=on_record)
        document = ("\n".join(lines) + "\n").encode("utf-8")
        events.send("finished", document=document_payload(document), log=log.text())
        return "finished"
    finally:
        loader.close()


class ExamTask(GpuJobTask):
    """An exam run's death at the hard time limit, reported (``GpuJobTask``)."""

    events_class = ExamEvents


@gpu_task("leaderboard.tasks.run_exam", ExamTask)
def run_exam(self, job: dict) -> str:
    if not isinstance(job, dict) or "run" not in job:
        logger.error("run_exam got %r, not an exam job", job)
        return "skipped"
    return run_exam_job(job, task_id=self.request.id or "")
