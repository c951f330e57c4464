"""Aggregates: boards, their entries, stored rankings, snapshots and the aggregation audit."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from leaderboard.identity import suite_language
from leaderboard.models.jobs import AGGREGATION_STATUSES, JobStatus
from leaderboard.models.submissions import LanguageModel


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
        choices=AGGREGATION_STATUSES,
        default=JobStatus.RUNNING,
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
