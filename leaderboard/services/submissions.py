"""Submissions: resolve a model and queue it once. Which datasets it is evaluated on is
``leaderboard/registry/dataset_plan.py``; the job its worker gets is ``submission_job.py``; what
happens to it afterwards (cancel, re-queue, the worker's events) is
``submission_lifecycle.py`` on the shared ``leaderboard/jobs/lifecycle.py``.

The order matters. The rate limit is the caller's first step (``views/submissions.py``,
``services/ratelimit.py``: before any Hub call or write). A model that does not resolve is
refused before anything is stored; a submission equal to one already pending, running or
finished is not queued again (the database's partial unique constraint decides under
concurrency); the Celery message is sent after the row commits.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q

from evaluation import models as engine_models
from evaluation.errors import (
    EvaluationError,
    InvalidModelId,
    ModelNotFound,
    ModelTooLarge,
    RemoteCodeRequired,
    RevisionRefused,
)
from evaluation.model_files import Limits
from evaluation.models import resolve_model
from leaderboard.models import (
    ACTIVE_SUBMISSION_STATUSES,
    LanguageModel,
    ModelType,
    Submission,
    SubmissionStatus,
)
from leaderboard.registry.dataset_plan import (  # noqa: F401 (the submit form's and the submission page's)
    board_choices,
    boards_of_datasets,
    plan_datasets,
)
from leaderboard.services.dispatch import dispatch_after_commit
from leaderboard.services.exam_runs import start_for_submission
from leaderboard.services.model_metadata import TypeSource, fill_unknown
from leaderboard.services.submission_job import enqueue, evaluation_job, prepare_job  # noqa: F401 (callers' names)
from leaderboard.submission_progress import Progress

logger = logging.getLogger(__name__)


class SubmissionRefused(Exception):
    """The submission was not accepted; the message says why and what to do."""

    def __init__(self, message: str, *, code: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class SubmitOutcome:
    submission: Submission
    created: bool  # False: the same model + commit + variant was already there


# --- resolving the model ----------------------------------------------------------------


def _lookup_source() -> str:
    offline = getattr(engine_models, "hub_offline", lambda: False)()
    return (
        "the local catalogue of bundled models (the Hugging Face Hub is offline here)"
        if offline
        else ("the Hugging Face Hub")
    )


def resolve(model_id: str, revision: str):
    """The engine's ModelInfo pinned to a commit, or SubmissionRefused saying why.

    The revision is resolved to its commit first (pull-request refs, other branches and a
    bundled model's other labels are refused, code ``revision``); remote code is then allowed
    only by an admin's grant for exactly that commit (code ``remote_code``). Nothing is stored.
    """
    try:
        # Remote code is only read here (config.json), never run: whether it may run is the grant's question below.
        info = resolve_model(model_id, revision, allow_remote_code=True)
    except InvalidModelId as exc:
        raise SubmissionRefused(str(exc), code="invalid_model_id") from None
    except RevisionRefused as exc:
        raise SubmissionRefused(f"Revision refused: {exc}", code="revision") from None
    except ModelNotFound as exc:
        raise SubmissionRefused(f"Model lookup failed in {_lookup_source()}: {exc}", code="not_found") from None
    except RemoteCodeRequired as exc:  # code in another repository: no grant can cover it
        raise SubmissionRefused(f"Model refused: {exc}.", code="remote_code") from None
    except EvaluationError as exc:
        raise SubmissionRefused(f"Model lookup failed in {_lookup_source()}: {exc}", code="lookup_failed") from None
    if not info.commit_sha:  # the engine always pins; never queue an unpinned revision
        raise SubmissionRefused(f"{model_id} at {revision!r} did not resolve to a commit.", code="revision")
    _check_size(info)
    if info.requires_remote_code and not _remote_code_granted(info.model_id, info.commit_sha):
        raise SubmissionRefused(
            f"{model_id} at commit {info.commit_sha} needs to run its own Python code (trust_remote_code). Glossa "
            "does not run a model's code unless an administrator has allowed it for that exact commit; ask on the "
            "issue tracker.",
            code="remote_code",
        )
    return info


def _check_size(info) -> None:
    """This deployment's limits (``GLOSSA_MAX_PARAMETERS``, ``GLOSSA_MAX_DOWNLOAD_BYTES``) on the Hub's numbers."""
    limits = Limits(settings.MAX_PARAMETERS or None, settings.MAX_DOWNLOAD_BYTES or None)
    try:
        limits.check(info.model_id, num_parameters=info.num_parameters, download_bytes=info.download_bytes)
    except ModelTooLarge as exc:
        raise SubmissionRefused(f"Model refused: {exc}.", code="too_large") from None


def _remote_code_granted(model_id: str, commit_sha: str) -> bool:
    model = LanguageModel.objects.filter(model_id=model_id).first()
    return model is not None and model.allows_remote_code(commit_sha)


def _model_row(info) -> LanguageModel:
    model, _ = LanguageModel.objects.get_or_create(model_id=info.model_id)
    values = {
        "model_type": info.model_type if info.model_type in ModelType.values else None,
        "num_parameters": info.num_parameters,
        "vocabulary_size": info.vocabulary_size,
        "max_sequence_length": info.max_sequence_length,
        "precision": info.precision,
        "license": info.license,
    }
    changed = fill_unknown(model, values, TypeSource.CONFIG)  # resolved from the model's own config
    source = getattr(info, "source", "")
    if source and model.metadata.get("resolved_from") != source:
        model.metadata = {**model.metadata, "resolved_from": source}
        changed.append("metadata")
    if changed:
        model.save(update_fields=changed + ["updated_at"])
    return model


# --- submitting -------------------------------------------------------------------------


def find_active(model: LanguageModel, commit_sha: str, few_shot: bool) -> Submission | None:
    """The pending, running or finished submission of this model commit and variant, if any."""
    return (
        Submission.objects.filter(
            model=model, commit_sha=commit_sha, few_shot=few_shot, status__in=ACTIVE_SUBMISSION_STATUSES
        )
        .order_by("-created_at")
        .first()
    )


def submit(
    model_id: str,
    *,
    revision: str = "main",
    few_shot: bool = True,
    languages: list[str] | None = None,
    client_address: str | None = None,
    user=None,
    examine: bool = False,
) -> SubmitOutcome:
    """Queue ``model_id`` at the commit ``revision`` names, or return the equal submission already there.

    The submission stores the revision as asked and the commit it resolved to; "equal" is the
    same model, commit and variant. Raises SubmissionRefused (model not found, revision refused,
    remote code, no datasets) before anything is stored. Rate limits are the caller's.
    """
    info = resolve(model_id, revision)
    pinned = info.commit_sha
    model = _model_row(info)
    existing = find_active(model, pinned, few_shot)
    if existing is not None:
        return SubmitOutcome(existing, created=False)

    boards = sorted(set(languages or []))
    planned, _missing = plan_datasets(boards)
    if not planned:
        raise SubmissionRefused(
            "There is no leaderboard dataset to evaluate for the chosen languages in this deployment.",
            code="no_datasets",
        )

    task_id = str(uuid.uuid4())
    try:
        with transaction.atomic():
            submission = Submission.objects.create(
                model=model,
                revision=info.revision,
                commit_sha=pinned,
                few_shot=few_shot,
                languages=boards,
                status=SubmissionStatus.PENDING,
                progress=Progress.planned(set(), planned, {}).as_json(),
                datasets_total=len(planned),
                client_address=client_address,
                submitted_by=user if getattr(user, "is_authenticated", False) else None,
                celery_task_id=task_id,
                examine=examine,
            )
            dispatch_after_commit()  # the fair queue decides when it goes (services/dispatch.py)
            if examine:  # one exam run per language that has examiners (the rest is noted)
                start_for_submission(submission)
    except IntegrityError:
        # Someone submitted the same model + commit + variant a moment ago: show theirs.
        existing = find_active(model, pinned, few_shot)
        if existing is None:  # it failed or was cancelled in between: let the person retry
            raise SubmissionRefused(
                "That model was submitted at the same moment; please try again.", code="race"
            ) from None
        return SubmitOutcome(existing, created=False)
    return SubmitOutcome(submission, created=True)


# --- reads ----------------------------------------------------------------------------


def recent_submissions(statuses=None, limit: int = 50):
    query = Submission.objects.select_related("model")
    if statuses:
        query = query.filter(Q(status__in=statuses))
    return query.order_by("-created_at")[:limit]
