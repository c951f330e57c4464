"""Glossa's data: languages, datasets, models, submissions and per-iteration scores.

Scores are stored per iteration (one row per evaluation, iteration and metric) so that
every number on the site can be recomputed: dataset means and confidence intervals,
the significance tests of the mean rank score and its bootstrap interval.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from evaluation.tasks import TASKS
from leaderboard.identity import FULL_SPLIT, METHODOLOGY_PROTOCOL, Protocol, short_fingerprint, suite_language

# The task a dataset belongs to: every task of evaluation.tasks (imported, shown, maybe evaluated).
TASK_CHOICES = [(spec.name, spec.label or spec.name) for spec in TASKS.values()]


# Where a dataset (or one of its versions) was first seen.
ORIGINS = [("data-dir", "Data directory"), ("results", "First seen in a results file"), ("admin", "Admin")]


class Language(models.Model):
    """An ISO 639-1 language code. ``board`` is the leaderboard it feeds (nb, nn → no)."""

    code = models.CharField(max_length=12, primary_key=True)
    name = models.CharField(max_length=100)
    board = models.CharField(
        max_length=12,
        help_text="Code of the language leaderboard this language's datasets count toward.",
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class LanguageGroup(models.Model):
    """A multilingual board (e.g. Scandinavian: da, sv, no), the mean of its boards."""

    slug = models.SlugField(max_length=40, primary_key=True)
    name = models.CharField(max_length=100)
    boards = models.JSONField(default=list, help_text='Language board codes, e.g. ["da", "sv", "no"].')

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Dataset(models.Model):
    name = models.SlugField(max_length=100, unique=True)
    task = models.CharField(max_length=40, choices=TASK_CHOICES)
    languages = models.ManyToManyField(Language, related_name="datasets")
    train_size = models.PositiveIntegerField(null=True, blank=True)
    val_size = models.PositiveIntegerField(null=True, blank=True)
    test_size = models.PositiveIntegerField(null=True, blank=True)
    labels = models.JSONField(default=list, blank=True)
    source = models.TextField(blank=True)
    license = models.TextField(blank=True)
    citation = models.TextField(blank=True)
    description = models.TextField(blank=True)
    counts_toward_leaderboard = models.BooleanField(
        default=True, help_text="Whether this dataset counts toward its languages' leaderboards."
    )
    in_suite = models.BooleanField(
        default=True,
        help_text="Whether submissions are evaluated on this dataset (when its folder is in the data directory) "
        "and it counts on this deployment's suite boards.",
    )
    origin = models.CharField(
        max_length=20,
        choices=ORIGINS,
        default="admin",
    )
    path = models.CharField(max_length=500, blank=True, help_text="Folder in the data directory, if any.")
    board_version = models.ForeignKey(
        "DatasetVersion",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The version whose scores count on boards; scores on other versions are listed, not ranked.",
    )
    board_protocol = models.CharField(
        max_length=60,
        default=METHODOLOGY_PROTOCOL.key,
        help_text="Iterations and test-row limit that count on boards, e.g. 'iterations=10' or "
        "'iterations=3,test-limit=32'.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def counted_protocol(self) -> Protocol:
        return Protocol.parse(self.board_protocol)

    def ensure_version(self, fingerprint: str, **fields) -> DatasetVersion:
        """The version with this fingerprint, created if new. The first version a dataset
        has is the one its boards count until an admin chooses another."""
        version, _ = DatasetVersion.objects.get_or_create(dataset=self, fingerprint=fingerprint, defaults=fields)
        if self.board_version_id is None:
            self.board_version = version
            self.save(update_fields=["board_version", "updated_at"])
        return version


class DatasetVersion(models.Model):
    """One content of a dataset. A folder's fingerprint is ``sha256:`` over its split files;
    results published without one (EuroEval's) are ``published`` or ``published:test=N``."""

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="versions")
    fingerprint = models.CharField(max_length=100)
    train_size = models.PositiveIntegerField(null=True, blank=True)
    val_size = models.PositiveIntegerField(null=True, blank=True)
    test_size = models.PositiveIntegerField(null=True, blank=True)
    origin = models.CharField(
        max_length=20,
        choices=ORIGINS,
        default="results",
    )
    path = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset__name", "created_at"]
        constraints = [models.UniqueConstraint(fields=["dataset", "fingerprint"], name="one_version_per_fingerprint")]

    def __str__(self) -> str:
        return f"{self.dataset.name} @ {short_fingerprint(self.fingerprint)}"

    @property
    def short(self) -> str:
        return short_fingerprint(self.fingerprint)


class ModelType(models.TextChoices):
    ENCODER = "encoder", "Encoder"
    BASE = "base", "Base (pretrained) decoder"
    INSTRUCTION_TUNED = "instruction-tuned", "Instruction-tuned decoder"
    REASONING = "reasoning", "Reasoning decoder"
    UNKNOWN = "unknown", "Unknown"

    @property
    def euroeval_generative_type(self) -> str | None:
        """EuroEval's ``generative_type`` (``base``, ``instruction_tuned``, ``reasoning``);
        None for encoders and unknown models."""
        return {"base": "base", "instruction-tuned": "instruction_tuned", "reasoning": "reasoning"}.get(self.value)

    @classmethod
    def from_euroeval_generative_type(cls, value: str | None) -> ModelType | None:
        """The type a EuroEval ``generative_type`` names (``instruction-tuned`` accepted too)."""
        for member in (cls.BASE, cls.INSTRUCTION_TUNED, cls.REASONING):
            if value in (member.euroeval_generative_type, member.value):
                return member
        return None


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


class SubmissionStatus(models.TextChoices):
    PENDING = "PENDING", "Pending"
    RUNNING = "RUNNING", "Running"
    FINISHED = "FINISHED", "Finished"
    FAILED = "FAILED", "Failed"
    CANCELLED = "CANCELLED", "Cancelled"


ACTIVE_SUBMISSION_STATUSES = (SubmissionStatus.PENDING, SubmissionStatus.RUNNING, SubmissionStatus.FINISHED)


class Submission(models.Model):
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="submissions")
    revision = models.CharField(max_length=100, default="main", help_text="The revision as asked (branch, tag, sha).")
    commit_sha = models.CharField(max_length=64, blank=True, help_text="The commit the revision resolved to.")
    few_shot = models.BooleanField(default=True)
    languages = models.JSONField(default=list, blank=True, help_text="Board codes; empty means the model's languages.")
    status = models.CharField(max_length=12, choices=SubmissionStatus.choices, default=SubmissionStatus.PENDING)
    failure_reason = models.TextField(blank=True)
    log_excerpt = models.TextField(blank=True)
    progress = models.JSONField(default=dict, blank=True, help_text="dataset name → state")
    datasets_total = models.PositiveIntegerField(default=0)
    datasets_done = models.PositiveIntegerField(default=0)
    client_address = models.GenericIPAddressField(null=True, blank=True)
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    celery_task_id = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    stage = models.CharField(
        max_length=200, blank=True, help_text="What the worker was doing last (loading the model, evaluating X)."
    )
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Written by the worker while it holds the submission (services/reaper.py)."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
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
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"#{self.pk} {self.model} @ {self.revision} ({self.status})"


class Evaluation(models.Model):
    """One model commit on one dataset version in one variant under one protocol; its
    scores are IterationScore rows. Another commit, version or protocol is another row:
    nothing ever overwrites another identity's scores."""

    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="evaluations")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="evaluations")
    dataset_version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="evaluations")
    few_shot = models.BooleanField(default=True)
    validation_split = models.BooleanField(default=False)
    revision = models.CharField(max_length=100, blank=True, help_text="The revision as asked or recorded.")
    commit_sha = models.CharField(max_length=64, blank=True, help_text="The model commit; empty when unknown.")
    test_limit = models.PositiveIntegerField(default=FULL_SPLIT, help_text="Test rows evaluated; 0: the full split.")
    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="evaluations"
    )
    source = models.CharField(max_length=300, blank=True, help_text="Results file or submission it came from.")
    record = models.JSONField(default=dict, blank=True, help_text="The result record without its raw scores.")
    num_iterations = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["model__model_id", "dataset__name", "created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "model",
                    "dataset_version",
                    "few_shot",
                    "validation_split",
                    "commit_sha",
                    "num_iterations",
                    "test_limit",
                ],
                name="one_evaluation_per_identity",
            )
        ]

    def __str__(self) -> str:
        return f"{self.model} on {self.dataset}"

    @property
    def protocol(self) -> Protocol:
        return Protocol(self.num_iterations, self.test_limit)


class IterationScore(models.Model):
    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="scores")
    iteration = models.PositiveSmallIntegerField()
    metric = models.CharField(max_length=60)
    value = models.FloatField()

    class Meta:
        ordering = ["evaluation", "metric", "iteration"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "iteration", "metric"], name="one_score_per_iteration_metric"
            ),
            models.CheckConstraint(condition=Q(iteration__gte=0), name="iteration_non_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.evaluation} #{self.iteration} {self.metric}={self.value:.4f}"


class Leaderboard(models.Model):
    """A cached board: one language board (``da``, ``no``) or a group (``scandinavian``)."""

    code = models.CharField(max_length=40, primary_key=True)
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=[("language", "Language"), ("group", "Group")])
    boards = models.JSONField(default=list, blank=True, help_text="For a group: its language boards.")
    datasets = models.JSONField(default=list, blank=True, help_text="[{name, task, primary_metric, secondary_metric}]")
    num_entries = models.PositiveIntegerField(default=0)
    generated_at = models.DateTimeField(null=True, blank=True)
    method = models.CharField(
        max_length=40, default="euroeval-2024", help_text="The ranking method whose numbers the entries show."
    )
    method_version = models.CharField(max_length=20, default="1")
    inputs_digest = models.CharField(
        max_length=32, blank=True, help_text="Identity of the scores the entries were computed from."
    )
    changes = models.JSONField(
        default=dict, blank=True, help_text="What changed since the previous snapshot, and why (services/snapshots.py)."
    )

    class Meta:
        ordering = ["kind", "name"]
        permissions = [("reaggregate_leaderboard", "Can re-run the aggregation of leaderboards")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_suite(self) -> bool:
        """A board of what this deployment evaluates itself (see services/aggregation.py)."""
        return suite_language(self.code) is not None


class LeaderboardEntry(models.Model):
    """The cached aggregate of one (model, variant) on one board, written by aggregation."""

    leaderboard = models.ForeignKey(Leaderboard, on_delete=models.CASCADE, related_name="entries")
    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="leaderboard_entries")
    few_shot = models.BooleanField(default=True)
    validation_split = models.BooleanField(default=False)
    position = models.PositiveIntegerField(help_text="Order on the board: ranked entries first, by rank score.")
    rank = models.PositiveIntegerField(null=True, blank=True, help_text="Dense significance-group rank.")
    rank_score = models.FloatField(null=True, blank=True)
    rank_score_ci_low = models.FloatField(null=True, blank=True)
    rank_score_ci_high = models.FloatField(null=True, blank=True)
    task_rank_scores = models.JSONField(default=dict, blank=True)
    scores = models.JSONField(default=dict, blank=True, help_text="dataset → {primary, secondary, rank_score}")
    missing_datasets = models.JSONField(default=list, blank=True)
    excluded = models.JSONField(
        default=list, blank=True, help_text="[{dataset, reason}]: scores the entry has that the board does not count."
    )
    commit_sha = models.CharField(max_length=64, blank=True, help_text="The model commit whose scores are shown.")
    extra = models.JSONField(default=dict, blank=True, help_text="Per-language rank scores for group boards, etc.")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["leaderboard", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["leaderboard", "model", "few_shot", "validation_split"], name="one_entry_per_board_variant"
            )
        ]

    def __str__(self) -> str:
        return f"{self.leaderboard_id}: {self.model} ({self.rank_score})"


class LeaderboardRanking(models.Model):
    """A board's ranking under one method (``leaderboard.ranking``), stored so that a board
    can be viewed under another method than the one its entries show without recomputing
    per request. ``entries`` maps ``"<model pk>:<few_shot 0/1>:<validation_split 0/1>"`` to
    ``{position, rank, rank_score, rank_score_ci, task_rank_scores, dataset_rank_scores, extra}``.
    It is current while ``inputs_digest`` equals the board's."""

    leaderboard = models.ForeignKey(Leaderboard, on_delete=models.CASCADE, related_name="rankings")
    method = models.CharField(max_length=40)
    method_version = models.CharField(max_length=20)
    inputs_digest = models.CharField(max_length=32, blank=True)
    generated_at = models.DateTimeField()
    entries = models.JSONField(default=dict, blank=True)
    replicates = models.BinaryField(
        blank=True,
        default=b"",
        help_text="The (B, N) bootstrap rank scores (float32 .npy), columns per entries' 'column'.",
    )

    class Meta:
        ordering = ["leaderboard", "method"]
        constraints = [models.UniqueConstraint(fields=["leaderboard", "method"], name="one_ranking_per_board_method")]

    def __str__(self) -> str:
        return f"{self.leaderboard_id} under {self.method} v{self.method_version}"


class BoardSnapshot(models.Model):
    """A board as one aggregation left it (``services/snapshots.py``): kept whenever the
    board's entries, method or inputs changed, so any past board can be viewed, exported and
    compared with the next. ``entries`` is a list of ``{model, name, few_shot,
    validation_split, position, rank, rank_score, ci, commit, scores: {dataset: mean}}``
    (model ids, not row keys, so a snapshot outlives the rows it was computed from)."""

    leaderboard = models.ForeignKey(Leaderboard, on_delete=models.CASCADE, related_name="snapshots")
    taken_at = models.DateTimeField()
    method = models.CharField(max_length=40)
    method_version = models.CharField(max_length=20)
    inputs_digest = models.CharField(max_length=32, blank=True)
    datasets = models.JSONField(default=list, blank=True)
    entries = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["leaderboard", "-taken_at", "-pk"]
        indexes = [models.Index(fields=["leaderboard", "-taken_at"], name="snapshot_board_time")]

    def __str__(self) -> str:
        return f"{self.leaderboard_id} at {self.taken_at:%Y-%m-%d %H:%M} ({self.method} v{self.method_version})"


class AggregationRun(models.Model):
    """Audit: who re-ran which boards, when, how long it took and what changed."""

    boards = models.JSONField(default=list)
    triggered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    trigger = models.CharField(max_length=40, default="command", help_text="command, admin, submission, import")
    status = models.CharField(
        max_length=12,
        choices=[("RUNNING", "Running"), ("FINISHED", "Finished"), ("FAILED", "Failed")],
        default="RUNNING",
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_seconds = models.FloatField(null=True, blank=True)
    entries_total = models.PositiveIntegerField(default=0)
    entries_changed = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    method = models.CharField(max_length=40, blank=True, help_text="Ranking method name and version it used.")

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"Aggregation {self.pk} of {', '.join(self.boards) or 'all'} ({self.status})"
