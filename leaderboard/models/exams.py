"""Language models as examiners (docs/methodology.md §8): registered examiners, exam runs (the jobs),
and the exams they produce: questions, answers, grades, rankings and per-examinee results.

An exam is one round in one language: its questions are new (a round is the method's
answer to contamination); a later round is another ``Exam``. Its scores are recomputed
from the stored questions, answers, grades and rankings (``evaluation.examiner.voting``),
never taken from the file, and kept per examinee in ``ExamResult``. None of this changes
the mean-rank-score boards.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models

from evaluation.endpoints import EndpointRefused, check_endpoint, check_key_variable
from leaderboard.models.jobs import GpuJob, JobStatus
from leaderboard.models.submissions import LanguageModel, Submission

BACKEND_HELP = "transformers, vllm, or openai:URL for an OpenAI-compatible server (vllm serve, a hosted API)."


class Examiner(models.Model):
    """A model an administrator allowed to examine. Credentials are never stored: an
    endpoint's key is read on the worker from the environment variable named here."""

    model_id = models.CharField(max_length=300, help_text="Hub id, or the name an OpenAI-compatible server serves.")
    backend = models.CharField(
        max_length=300,
        default="transformers",
        help_text=BACKEND_HELP,
        validators=[
            RegexValidator(
                r"^(transformers|vllm|openai:https?://[^\s]+)$", "transformers, vllm or openai:http(s)://host/v1"
            )
        ],
    )
    api_key_env = models.CharField(
        max_length=64,
        blank=True,
        help_text="Name of the environment variable holding the endpoint's API key (e.g. GLOSSA_EXAMINER_KEY).",
        validators=[RegexValidator(r"^[A-Z][A-Z0-9_]{0,63}$", "an environment variable name: A-Z, 0-9, _")],
    )
    languages = models.JSONField(default=list, blank=True, help_text="Board codes it examines in; empty: all.")
    enabled = models.BooleanField(default=True)
    notes = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["model_id"]
        constraints = [models.UniqueConstraint(fields=["model_id", "backend"], name="one_examiner_per_model_backend")]

    def __str__(self) -> str:
        return f"{self.model_id} ({self.backend})"

    def clean(self) -> None:
        """The endpoint's host and the key's variable must be on the deployment's
        allow-lists (``GLOSSA_EXAMINER_HOSTS``, ``GLOSSA_EXAMINER_KEY_VARS``:
        :mod:`evaluation.endpoints`); the worker checks them again before any request."""
        errors = {}
        for field, check in (("backend", check_endpoint), ("api_key_env", check_key_variable)):
            try:
                check(getattr(self, field) or "")
            except EndpointRefused as exc:
                errors[field] = str(exc)
        if errors:
            raise ValidationError(errors)

    def examines(self, language: str) -> bool:
        return self.enabled and (not self.languages or language in self.languages)

    def spec(self) -> dict:
        """What the GPU worker needs to load it (no secret: the variable's name only)."""
        return {"model": self.model_id, "backend": self.backend, "api_key_env": self.api_key_env}


ExamRunStatus = JobStatus  # one vocabulary for every job (models/jobs.py)


class ExamRun(GpuJob):
    """One exam to run on the ``gpu`` queue: who examines whom, in which language and round."""

    language = models.CharField(max_length=12)
    round = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    examiners = models.JSONField(default=list, help_text="Examiner specs (model, backend, api_key_env).")
    examinees = models.JSONField(default=list, help_text="[{model, revision}]")
    settings = models.JSONField(default=dict, help_text="questions, follow_ups, levels")
    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="exam_runs"
    )
    stage = models.CharField(max_length=200, blank=True)

    class Meta(GpuJob.Meta):
        constraints = [models.UniqueConstraint(fields=["language", "round"], name="one_exam_run_per_round")]
        permissions = [
            ("start_exam_run", "Can start an exam round with the registered examiners"),
            ("requeue_exam_run", "Can re-queue a failed or cancelled exam run"),
            ("cancel_exam_run", "Can cancel a pending or running exam run"),
        ]

    def __str__(self) -> str:
        return f"exam {self.language} round {self.round} ({self.status})"


class Exam(models.Model):
    """One imported exam document (a round in a language)."""

    exam_id = models.CharField(max_length=300, unique=True, help_text="The document's exam id.")
    language = models.CharField(max_length=12, db_index=True)
    round = models.PositiveIntegerField()
    seed = models.BigIntegerField()
    header = models.JSONField(default=dict, help_text="The document's exam line.")
    agreement = models.JSONField(default=dict, blank=True, help_text="Kendall tau between examiners (recomputed).")
    pairwise = models.JSONField(
        default=dict, blank=True, help_text="Bradley–Terry fit of the pairwise verdicts, rank sets (recomputed)."
    )
    cost = models.JSONField(default=dict, blank=True, help_text="Calls, tokens and seconds, as the engine reported.")
    content_sha256 = models.CharField(max_length=64)
    source = models.CharField(max_length=300, blank=True)
    run = models.OneToOneField(ExamRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="exam")
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["language", "-round"]
        constraints = [models.UniqueConstraint(fields=["language", "round"], name="one_exam_per_language_round")]

    def __str__(self) -> str:
        return self.exam_id


class ExamQuestion(models.Model):
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="questions")
    key = models.CharField(max_length=300)
    text = models.TextField()
    reference_answer = models.TextField()
    domain = models.CharField(max_length=100)
    domain_name = models.CharField(max_length=300, blank=True)
    level = models.CharField(max_length=20)
    examiner = models.CharField(max_length=300)
    depth = models.PositiveSmallIntegerField(default=0)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="follow_ups")
    examinee = models.CharField(max_length=300, blank=True, help_text="A follow-up's one examinee.")

    class Meta:
        ordering = ["exam", "key"]
        constraints = [models.UniqueConstraint(fields=["exam", "key"], name="one_question_key_per_exam")]


class ExamAnswer(models.Model):
    question = models.ForeignKey(ExamQuestion, on_delete=models.CASCADE, related_name="answers")
    key = models.CharField(max_length=700)
    examinee = models.CharField(max_length=300, db_index=True)
    text = models.TextField(blank=True)
    counted = models.BooleanField(default=True, help_text="False: an examiner's answer to its own question.")

    class Meta:
        ordering = ["question", "examinee"]


class ExamGrade(models.Model):
    answer = models.ForeignKey(ExamAnswer, on_delete=models.CASCADE, related_name="grades")
    examiner = models.CharField(max_length=300)
    counted = models.BooleanField(default=True)
    valid = models.BooleanField(default=True)
    error = models.TextField(blank=True)
    accuracy = models.PositiveSmallIntegerField(null=True)
    coherence = models.PositiveSmallIntegerField(null=True)
    factuality = models.PositiveSmallIntegerField(null=True)
    comprehensiveness = models.PositiveSmallIntegerField(null=True)
    overall = models.PositiveSmallIntegerField(null=True)


class ExamRanking(models.Model):
    question = models.ForeignKey(ExamQuestion, on_delete=models.CASCADE, related_name="rankings")
    examiner = models.CharField(max_length=300)
    order = models.JSONField(default=list)
    tiers = models.JSONField(default=list)
    comparisons = models.PositiveIntegerField()
    bound = models.PositiveIntegerField()
    judgments = models.JSONField(default=list)


class ExamResult(models.Model):
    """One examinee's recomputed summary in one exam (``evaluation.examiner.voting``)."""

    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="results")
    examinee = models.CharField(max_length=300)
    model = models.ForeignKey(
        LanguageModel, null=True, blank=True, on_delete=models.SET_NULL, related_name="exam_results"
    )
    rank = models.PositiveIntegerField(null=True)
    overall = models.FloatField(null=True)
    summary = models.JSONField(default=dict)

    class Meta:
        ordering = ["exam", "rank", "examinee"]
        constraints = [models.UniqueConstraint(fields=["exam", "examinee"], name="one_result_per_exam_examinee")]


__all__ = [
    "Exam",
    "ExamAnswer",
    "ExamGrade",
    "ExamQuestion",
    "ExamRanking",
    "ExamResult",
    "ExamRun",
    "ExamRunStatus",
    "Examiner",
]
