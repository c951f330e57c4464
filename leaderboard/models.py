"""Glossa's data: languages, datasets, models, submissions and per-iteration scores.

Scores are stored per iteration (one row per evaluation, iteration and metric) so that
every number on the site can be recomputed: dataset means and confidence intervals,
the significance tests of the mean rank score and its bootstrap interval.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Task(models.TextChoices):
    SENTIMENT = "sentiment-classification", "Sentiment classification"
    ACCEPTABILITY = "linguistic-acceptability", "Linguistic acceptability"
    NER = "named-entity-recognition", "Named-entity recognition"
    READING = "reading-comprehension", "Reading comprehension"
    KNOWLEDGE = "knowledge", "Knowledge"
    COMMON_SENSE = "common-sense-reasoning", "Common-sense reasoning"
    SUMMARIZATION = "summarization", "Summarization"


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
    boards = models.JSONField(default=list, help_text="Language board codes, e.g. [\"da\", \"sv\", \"no\"].")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Dataset(models.Model):
    name = models.SlugField(max_length=100, unique=True)
    task = models.CharField(max_length=40, choices=Task.choices)
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
    origin = models.CharField(
        max_length=20,
        choices=[("data-dir", "Data directory"), ("results", "First seen in a results file"), ("admin", "Admin")],
        default="admin",
    )
    path = models.CharField(max_length=500, blank=True, help_text="Folder in the data directory, if any.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ModelType(models.TextChoices):
    ENCODER = "encoder", "Encoder"
    BASE = "base", "Base (pretrained) decoder"
    INSTRUCTION_TUNED = "instruction-tuned", "Instruction-tuned decoder"
    REASONING = "reasoning", "Reasoning decoder"
    UNKNOWN = "unknown", "Unknown"


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
    trust_remote_code_allowed = models.BooleanField(
        default=False, help_text="Admins only: allow this model's own Python code to run on workers."
    )
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["model_id"]

    def __str__(self) -> str:
        return self.model_id


class SubmissionStatus(models.TextChoices):
    PENDING = "PENDING", "Pending"
    RUNNING = "RUNNING", "Running"
    FINISHED = "FINISHED", "Finished"
    FAILED = "FAILED", "Failed"
    CANCELLED = "CANCELLED", "Cancelled"


ACTIVE_SUBMISSION_STATUSES = (SubmissionStatus.PENDING, SubmissionStatus.RUNNING, SubmissionStatus.FINISHED)


class Submission(models.Model):
    model = models.ForeignKey(LanguageModel, on_delete=models.PROTECT, related_name="submissions")
    revision = models.CharField(max_length=100, default="main")
    commit_sha = models.CharField(max_length=64, blank=True)
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
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # The same model + revision + variant is queued once while pending, running or finished.
            models.UniqueConstraint(
                fields=["model", "revision", "few_shot"],
                condition=Q(status__in=["PENDING", "RUNNING", "FINISHED"]),
                name="one_active_submission_per_model_revision_variant",
            )
        ]
        indexes = [models.Index(fields=["status", "created_at"])]

    def __str__(self) -> str:
        return f"#{self.pk} {self.model} @ {self.revision} ({self.status})"


class Evaluation(models.Model):
    """One model on one dataset in one variant; its scores are IterationScore rows."""

    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="evaluations")
    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="evaluations")
    few_shot = models.BooleanField(default=True)
    validation_split = models.BooleanField(default=False)
    revision = models.CharField(max_length=100, blank=True)
    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="evaluations"
    )
    source = models.CharField(max_length=300, blank=True, help_text="Results file or submission it came from.")
    record = models.JSONField(default=dict, blank=True, help_text="The result record without its raw scores.")
    num_iterations = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["model__model_id", "dataset__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["model", "dataset", "few_shot", "validation_split"], name="one_evaluation_per_variant"
            )
        ]

    def __str__(self) -> str:
        return f"{self.model} on {self.dataset}"


class IterationScore(models.Model):
    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="scores")
    iteration = models.PositiveSmallIntegerField()
    metric = models.CharField(max_length=60)
    value = models.FloatField()

    class Meta:
        ordering = ["evaluation", "metric", "iteration"]
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "iteration", "metric"], name="one_score_per_iteration_metric"),
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

    class Meta:
        ordering = ["kind", "name"]

    def __str__(self) -> str:
        return self.name


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


class AggregationRun(models.Model):
    """Audit: who re-ran which boards, when, how long it took and what changed."""

    boards = models.JSONField(default=list)
    triggered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    trigger = models.CharField(max_length=40, default="command", help_text="command, admin, submission, import")
    status = models.CharField(
        max_length=12, choices=[("RUNNING", "Running"), ("FINISHED", "Finished"), ("FAILED", "Failed")], default="RUNNING"
    )
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_seconds = models.FloatField(null=True, blank=True)
    entries_total = models.PositiveIntegerField(default=0)
    entries_changed = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"Aggregation {self.pk} of {', '.join(self.boards) or 'all'} ({self.status})"
