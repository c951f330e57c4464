"""The job the site sends a GPU worker, kept on the submission, and the checks a worker's
events must pass against it.

The GPU side runs third-party models and anyone who can read the broker sees its
messages, so nothing it reports is believed: a result record is stored only when it is
of a dataset the job planned, at the dataset version the job planned, under the job's
protocol (iterations, test-row limit) and variant (few-shot, validation split), for the
submitted model at the submitted commit. The planned versions are registered by the site
from its own data directory when the job is built, so a record never needs to (and
never can) register a dataset, a version or a language.

:data:`SUBMISSIONS` is an evaluation as a kind of GPU job (``leaderboard/jobs/lifecycle.py``):
the job it sends, how it is taken back and why it fails when its worker keeps dying.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from evaluation.datasets import discover
from evaluation.errors import InvalidDataset
from leaderboard import job_control
from leaderboard.identity import FULL_SPLIT, Protocol
from leaderboard.jobs import lifecycle
from leaderboard.models import DatasetVersion, Submission
from leaderboard.record_fields import InvalidRecord
from leaderboard.registry.dataset_plan import plan_datasets
from leaderboard.services.dataset_registry import Refused, SyncReport, register
from leaderboard.submission_progress import Progress

logger = logging.getLogger("leaderboard.submission_job")


def deployment_protocol() -> dict:
    """The iterations and test-row limit (None: the whole test split) this deployment evaluates with."""
    return {"iterations": settings.EVALUATION_ITERATIONS, "limit": settings.EVALUATION_TEST_LIMIT}


def job_protocol(job: dict) -> Protocol:
    protocol = job.get("protocol") or {}
    return Protocol(int(protocol.get("iterations") or 0), int(protocol.get("limit") or FULL_SPLIT))


def planned_versions(names: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """({dataset: the fingerprint of its folder in this site's data directory}, {dataset:
    why it cannot be planned}). A folder whose content is not a registered version yet is
    registered here, by the site, as ``sync_datasets`` would; one the registry refuses
    (another task or other languages under the same name) is not planned. A folder whose
    files cannot be read stays planned without a version: the engine reports why it
    fails, and no record of it can be stored."""
    infos = {info.name: info for info in discover(settings.DATA_DIR) if info.name in names}
    versions, refused = {}, {}
    for name in [name for name in names if name in infos]:
        try:
            fingerprint = infos[name].fingerprint
            if not DatasetVersion.objects.filter(dataset__name=name, fingerprint=fingerprint).exists():
                register(infos[name], SyncReport())
            versions[name] = fingerprint
        except InvalidDataset as exc:
            logger.warning("dataset %s is planned without a version: %s", name, exc)
        except Refused as exc:
            refused[name] = f"its folder cannot be registered: {exc}"
    return versions, refused


def planned(submission: Submission, name: str) -> bool:
    """Whether the submission's current job plans ``name``."""
    job = current_job(submission)
    return job is not None and name in job.get("datasets", [])


def current_job(submission: Submission) -> dict | None:
    """The job of the submission's current task, or None when none was kept for it."""
    job = submission.job if isinstance(submission.job, dict) else {}
    return job if job.get("task") and job.get("task") == submission.celery_task_id else None


def check_planned(submission: Submission, name) -> dict:
    """The submission's current job; InvalidRecord unless it plans dataset ``name``
    (checked before the record is even parsed)."""
    job = current_job(submission)
    if job is None:
        raise InvalidRecord("no job is kept for this submission's task; nothing from it is stored")
    if not isinstance(name, str) or name not in job.get("datasets", []):
        raise InvalidRecord(f"dataset {str(name)[:100]!r} is not in this submission's job")
    return job


def check_record(submission: Submission, parsed) -> None:
    """Raise InvalidRecord unless the parsed record (``record_parsing.ParsedRecord``) is
    one the submission's job asked for."""
    job = check_planned(submission, parsed.dataset)
    name = parsed.dataset
    checks = (
        ("model", parsed.model_id, job.get("model")),
        ("model commit", parsed.commit_sha, job.get("commit") or parsed.commit_sha),
        ("dataset version", parsed.dataset_version, (job.get("versions") or {}).get(name)),
        ("protocol", parsed.protocol.key, job_protocol(job).key),
        ("few-shot variant", parsed.few_shot, bool(job.get("few_shot"))),
        ("validation split", parsed.validation_split, bool(job.get("validation_split"))),
    )
    for what, got, wanted in checks:
        if got != wanted:
            raise InvalidRecord(f"the record's {what} is {str(got)[:100]!r}, the job's is {str(wanted)[:100]!r}")
    if not DatasetVersion.objects.filter(dataset__name=name, fingerprint=parsed.dataset_version).exists():
        raise InvalidRecord(f"version {parsed.dataset_version[:80]} of {name} is not registered")


# --- the job sent to the GPU worker --------------------------------------------------------

EVALUATE_TASK = "leaderboard.tasks.evaluate_submission"


def _unavailable(missing: list[str]) -> dict[str, str]:
    """Why each of these leaderboard datasets cannot be evaluated here: no folder, or a bad one."""
    refused = {refusal.folder: refusal.reason for refusal in discover(settings.DATA_DIR).refused} if missing else {}
    return {
        name: f"its folder is not a valid dataset: {refused[name]}"
        if name in refused
        else "not in this deployment's data directory"
        for name in missing
    }


def evaluation_job(submission: Submission) -> tuple[dict, Progress]:
    """(the job, the progress it starts from). The job is everything the GPU worker needs,
    so that it needs no database: the model at its pinned commit, the variant,
    the protocol (this deployment's iterations and test-row limit), the datasets still to
    evaluate (those stored by an earlier attempt are left out) with the version of each
    to evaluate, why the others cannot be, whether remote code is granted for this commit,
    and the starts already made (the retry budget). ``prepare_job`` keeps it on the
    submission: the worker's records are checked against it (above)."""
    planned, missing = plan_datasets(submission.languages)
    stored = set(submission.evaluations.filter(num_iterations__gt=0).values_list("dataset__name", flat=True))
    versions, refused = planned_versions([name for name in planned if name not in stored])
    planned = [name for name in planned if name not in refused]
    unavailable = {**_unavailable(missing), **refused}
    job = {
        "submission": submission.pk,
        "model": submission.model.model_id,
        "revision": submission.commit_sha or submission.revision,
        "commit": submission.commit_sha,
        "few_shot": submission.few_shot,
        "validation_split": False,
        "trust_remote_code": submission.model.allows_remote_code(submission.commit_sha),
        "datasets": [name for name in planned if name not in stored],
        "versions": versions,  # dataset → the fingerprint of the version to evaluate
        "protocol": deployment_protocol(),
        "stored": sorted(stored & set(planned)),
        "unavailable": unavailable,
        "attempts": submission.attempts,
    }
    return job, Progress.planned(stored, planned, unavailable)


def prepare_job(submission_id: int, task_id: str) -> dict:
    """The job of ``task_id``, kept on the submission (its worker's events are checked
    against it), with the submission's progress reset to it and ``task_id`` made the one
    the workers obey (``job_control``)."""
    submission = Submission.objects.select_related("model").get(pk=submission_id)
    job, progress = evaluation_job(submission)
    Submission.objects.filter(pk=submission_id, celery_task_id=task_id).update(
        progress=progress.as_json(),
        datasets_total=progress.total,
        datasets_done=progress.done,
        job={**job, "task": task_id},
    )
    job_control.set_current(submission_id, task_id)
    return job


def _sent_job(submission_id: int, task_id: str) -> dict:
    # sent, whoever sends it (the fair queue has marked it already; a re-send marks it here)
    Submission.objects.filter(pk=submission_id, dispatched_at__isnull=True).update(dispatched_at=timezone.now())
    return prepare_job(submission_id, task_id)


def died_reason(attempts: int, stage: str, how: str = "died") -> str:
    times = "once" if attempts == 1 else f"{attempts} times"
    return (
        f"The worker {how} {times} while {stage or 'starting the evaluation'}; the model may not fit in the "
        "worker's (GPU) memory, or the worker's machine failed. Datasets finished before are kept; an "
        "administrator can re-queue it."
    )


def _sent_long_ago(now: datetime) -> Q:
    # held ones wait in the fair queue (services/dispatch.py), not on the broker
    return Q(dispatched_at__isnull=False, updated_at__lt=now - timedelta(seconds=settings.GLOSSA_PENDING_TIMEOUT))


SUBMISSIONS = lifecycle.JobKind(
    name="submission",
    model=Submission,
    id_key="submission",
    task_name=EVALUATE_TASK,
    build_job=_sent_job,
    died_reason=lambda row, how: died_reason(row.attempts, row.stage, how),
    silent_since="updated_at",
    waiting=_sent_long_ago,
    queue_failure_note=" Submit again later.",
    touch=("updated_at",),
    take_back_fields=lambda row, now: {"dispatched_at": now},  # work taken back goes straight to the broker
    requeue_fields={"log_excerpt": "", "finished_at": None, "rerun": True, "dispatched_at": None},
)


def enqueue(submission_id: int, task_id: str) -> None:
    """Send the evaluation message with its job (``prepare_job``); a broker that cannot be
    reached fails the submission visibly."""
    lifecycle.enqueue(SUBMISSIONS, submission_id, task_id)
