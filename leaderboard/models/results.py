"""Evaluations (one model × dataset version × protocol) and their per-iteration scores."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from leaderboard.identity import FULL_SPLIT, Protocol
from leaderboard.models.registry import Dataset, DatasetVersion
from leaderboard.models.submissions import LanguageModel, Submission


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
    invalidated_reason = models.TextField(
        blank=True,
        help_text="Why this result cannot be trusted. Written here, it leaves every board's aggregation "
        "and the boards say why; cleared, it counts again. Boards are re-aggregated on save.",
    )
    invalidated_by = models.CharField(max_length=150, blank=True, editable=False)
    invalidated_at = models.DateTimeField(null=True, blank=True, editable=False)
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


class EvaluationExamples(models.Model):
    """The per-example evidence of one evaluation (format in
    ``evaluation/examples.py``): its examples as gzip-compressed JSON lines, with the counts
    the boards read without decompressing them. Published results come without examples."""

    evaluation = models.OneToOneField(Evaluation, on_delete=models.CASCADE, primary_key=True, related_name="examples")
    data = models.BinaryField(help_text="gzip-compressed JSON lines, one example per line")
    num_examples = models.PositiveIntegerField()
    num_invalid = models.PositiveIntegerField(help_text="Answers that could not be read (unparseable or empty).")
    score_keys = models.JSONField(default=list, help_text="The per-example score names, e.g. ['correct'].")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "evaluation examples"

    def __str__(self) -> str:
        return f"{self.num_examples} examples of {self.evaluation}"

    @property
    def invalid_share(self) -> float:
        return self.num_invalid / self.num_examples if self.num_examples else 0.0
