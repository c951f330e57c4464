"""Models, remote-code grants and submissions."""

from __future__ import annotations

from enum import IntEnum

from django.conf import settings
from django.db import models
from django.db.models import Q

from evaluation.model_types import ModelType as EngineModelType
from leaderboard.jobs.queue_policy import submitter_key
from leaderboard.models.jobs import GpuJob, JobStatus


class ModelType(models.TextChoices):
    """The engine's model types (:class:`evaluation.model_types.ModelType`, the same values)
    as the site's choices, with their labels, and "unknown" for a model the site cannot tell."""

    ENCODER = EngineModelType.ENCODER.value, "Encoder"
    BASE = EngineModelType.BASE.value, "Base (pretrained) decoder"
    INSTRUCTION_TUNED = EngineModelType.INSTRUCTION_TUNED.value, "Instruction-tuned decoder"
    REASONING = EngineModelType.REASONING.value, "Reasoning decoder"
    UNKNOWN = "unknown", "Unknown"

    @property
    def short_label(self) -> str:
        """The filter's word for the type: "Base", "Instruction-tuned"."""
        return self.label.split(" ", 1)[0]

    @property
    def badge(self) -> str:
        """The one-letter badge boards show beside a model."""
        return "?" if self == ModelType.UNKNOWN else self.value[0].upper()

    @property
    def euroeval_generative_type(self) -> str | None:
        """EuroEval's ``generative_type`` (``base``, ``instruction_tuned``, ``reasoning``);
        None for encoders and unknown models (the engine's one mapping)."""
        if self == ModelType.UNKNOWN:
            return None
        generative_type = EngineModelType(self.value).generative_type
        return generative_type.value if generative_type else None

    @classmethod
    def from_euroeval_generative_type(cls, value: str | None) -> ModelType | None:
        """The type a EuroEval ``generative_type`` names (``instruction-tuned`` accepted too)."""
        engine_type = EngineModelType.of_generative_type(value)
        return cls(engine_type.value) if engine_type else None


class LanguageModel(models.Model):
    """A model as results name it: a Hub id (``org/name``), an API model, or a path."""

    model_id = models.CharField(max_length=300, unique=True)
    revision = models.CharField(max_length=100, blank=True, default="main")
    model_type = models.CharField(max_length=20, choices=ModelType.choices, default=ModelType.UNKNOWN)
    num_parameters = models.BigIntegerField(null=True, blank=True)
    vocabulary_size = models.BigIntegerField(null=True, blank=True)
    max_sequence_length = models.BigIntegerField(null=True, blank=True)
    precision = models.CharField(max_length=40, blank=True)
    license = models.CharField(max_length=200, blank=True)
    pinned_commit = models.CharField(
        max_length=64,
        blank=True,
        help_text="Admins only: the commit whose evaluations the boards show. Empty: the newest evaluated.",
    )
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["model_id"]

    def __str__(self) -> str:
        return self.model_id

    def allows_remote_code(self, commit_sha: str) -> bool:
        """Whether an admin allowed this model's own code to run at exactly this commit."""
        return bool(commit_sha) and self.remote_code_grants.filter(commit_sha=commit_sha).exists()


class RemoteCodeGrant(models.Model):
    """An admin's permission to run one model's own Python code, at one commit only."""

    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="remote_code_grants")
    commit_sha = models.CharField(max_length=64)
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    reason = models.TextField(blank=True)
    granted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["model__model_id", "-granted_at"]
        constraints = [models.UniqueConstraint(fields=["model", "commit_sha"], name="one_grant_per_model_commit")]

    def __str__(self) -> str:
        return f"{self.model} @ {self.commit_sha[:12]}"


class TypeSource(IntEnum):
    """Where a model's type came from, weakest first: a stronger source replaces a weaker one
    (``services/model_metadata.py``)."""

    FINE_TUNED = 1  # a record reports a training loss: it was fine-tuned, the architecture is a guess
    RECORD = 2  # a record or a published board says what the model is
    CONFIG = 3  # the model's own config
    ADMIN = 4  # an administrator set it

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", "-")


SubmissionStatus = JobStatus  # one vocabulary for every job (models/jobs.py)


ACTIVE_SUBMISSION_STATUSES = (SubmissionStatus.PENDING, SubmissionStatus.RUNNING, SubmissionStatus.FINISHED)


class Submission(GpuJob):
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="submissions")
    revision = models.CharField(max_length=100, default="main", help_text="The revision as asked (branch, tag, sha).")
    commit_sha = models.CharField(max_length=64, blank=True, help_text="The commit the revision resolved to.")
    few_shot = models.BooleanField(default=True)
    languages = models.JSONField(default=list, blank=True, help_text="Board codes; empty means the model's languages.")
    examine = models.BooleanField(
        default=False, help_text="Also take the examiner exam (issue #17) in the submission's languages."
    )
    progress = models.JSONField(default=dict, blank=True, help_text="dataset name → state")
    job = models.JSONField(
        default=dict,
        blank=True,
        help_text="The job last sent to a GPU worker (its task, model, commit, variant, planned datasets with "
        "their versions, protocol): what that worker's events are checked against.",
    )
    datasets_total = models.PositiveIntegerField(default=0)
    datasets_done = models.PositiveIntegerField(default=0)
    client_address = models.GenericIPAddressField(null=True, blank=True)
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    priority = models.SmallIntegerField(
        default=0, help_text="Set by an administrator: higher starts first (leaderboard/jobs/queue_policy.py)."
    )
    rerun = models.BooleanField(default=False, help_text="Re-queued by an administrator: before new work.")
    submitter = models.CharField(
        max_length=80,
        blank=True,
        help_text="Whom the fair queue counts it for: user:<id>, ip:<address> or anonymous (set when created).",
    )
    model_parameters = models.BigIntegerField(
        null=True, blank=True, help_text="The model's size when submitted: smaller models go first in a turn."
    )
    dispatched_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When its message was sent to the gpu queue; empty while it waits its turn in Glossa's "
        "fair queue (services/dispatch.py).",
    )
    stage = models.CharField(
        max_length=200, blank=True, help_text="What the worker was doing last (loading the model, evaluating X)."
    )
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Written by the worker while it holds the submission (services/reaper.py)."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta(GpuJob.Meta):
        # Admin actions beyond editing (leaderboard/admin/submissions.py): granted explicitly.
        permissions = [
            ("requeue_submission", "Can re-queue a failed or cancelled submission"),
            ("cancel_submission", "Can cancel a pending or running submission"),
        ]
        constraints = [
            # The same model + commit + variant is queued once while pending, running or finished.
            models.UniqueConstraint(
                fields=["model", "commit_sha", "few_shot"],
                condition=Q(status__in=["PENDING", "RUNNING", "FINISHED"]),
                name="one_active_submission_per_model_commit_variant",
            )
        ]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["status", "dispatched_at"], name="submission_queue_idx"),
            # the fair queue's turns: each submitter's held work in the policy's order, read from the index
            models.Index(
                "submitter",
                # ascending: NULLs sort last in PostgreSQL, the queue's order (SQLite takes no NULLS LAST here)
                "model_parameters",
                "created_at",
                "id",
                name="submission_turn_idx",
                condition=Q(status="PENDING", dispatched_at__isnull=True),
            ),
        ]

    def save(self, *args, **kwargs):
        if self._state.adding:  # who it counts for and how large it is, fixed when it is made
            self.submitter = self.submitter or submitter_key(self.submitted_by_id, self.client_address)
            if self.model_parameters is None and self.model_id is not None:
                self.model_parameters = self.model.num_parameters
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        return f"#{self.pk} {self.model} @ {self.revision} ({self.status})"
