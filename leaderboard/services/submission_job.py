"""The job the site sends a GPU worker, kept on the submission, and the checks a worker's
events must pass against it.

The GPU side runs third-party models and anyone who can read the broker sees its
messages, so nothing it reports is believed: a result record is stored only when it is
of a dataset the job planned, at the dataset version the job planned, under the job's
protocol (iterations, test-row limit) and variant (few-shot, validation split), for the
submitted model at the submitted commit. The planned versions are registered by the site
from its own data directory when the job is built, so a record never needs to (and
never can) register a dataset, a version or a language.
"""

from __future__ import annotations

import logging

from django.conf import settings

from leaderboard.identity import FULL_SPLIT, Protocol
from leaderboard.models import DatasetVersion, Submission
from leaderboard.services.record_fields import InvalidRecord

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
    from evaluation.datasets import discover
    from evaluation.errors import InvalidDataset
    from leaderboard.services.dataset_registry import Refused, SyncReport, register

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
    """Raise InvalidRecord unless the parsed record (``results_import.ParsedRecord``) is
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
