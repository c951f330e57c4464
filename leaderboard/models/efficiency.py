"""What running a model costs (docs/methodology.md §11), kept apart from its scores: nothing here enters a
rank score.

- ``EvaluationCost``: the engine's measurement of one evaluation (the record's
  ``efficiency`` object), on the hardware it ran on. Numbers are comparable only within
  one hardware class and backend (``hardware_class``, ``backend``: indexed together).
- ``PublishedSpeed``: a speed record EuroEval (ScandEval) published, its own kind with its
  own unit and document-length buckets; never shown beside Glossa's measurements.
- ``SpeedBenchmark``: a controlled speed benchmark of one model commit, the efficiency
  view's primary numbers; ``SpeedJob``: the GPU job that measures one (a kind of job on
  ``leaderboard/jobs/lifecycle.py``).
"""

from __future__ import annotations

from django.db import models

from leaderboard.models.jobs import GpuJob
from leaderboard.models.results import Evaluation
from leaderboard.models.submissions import LanguageModel, Submission


class DeviceKind(models.TextChoices):
    CPU = "cpu", "CPU"
    CUDA = "cuda", "GPU (CUDA)"
    MPS = "mps", "GPU (Apple MPS)"
    REMOTE = "remote", "Remote server"  # the openai backend: the server's hardware is not seen


class EvaluationCost(models.Model):
    """One evaluation's measured cost: wall time, tokens, throughput, latency, memory and
    energy, with the hardware and software that produced them (``hardware``: the record's
    ``efficiency.hardware`` as it came)."""

    evaluation = models.OneToOneField(Evaluation, on_delete=models.CASCADE, primary_key=True, related_name="cost")
    hardware_class = models.CharField(max_length=200, help_text="The hardware's identity: numbers compare within it.")
    backend = models.CharField(max_length=40)
    device = models.CharField(max_length=10, choices=DeviceKind.choices)
    hardware = models.JSONField(default=dict)
    wall_seconds = models.FloatField()
    load_seconds = models.FloatField()
    examples = models.PositiveIntegerField()
    prompt_tokens = models.BigIntegerField()
    generated_tokens = models.BigIntegerField()
    reference_tokenizer = models.CharField(max_length=200)
    reference_prompt_tokens = models.BigIntegerField()
    prompt_tokens_per_second = models.FloatField()
    generated_tokens_per_second = models.FloatField()
    latency_median_ms = models.FloatField()
    latency_p95_ms = models.FloatField()
    peak_memory_bytes = models.BigIntegerField(null=True, blank=True, help_text="Unknown (null) on a remote server.")
    peak_memory_kind = models.CharField(
        max_length=10, blank=True, choices=[("gpu", "GPU memory"), ("resident", "Resident memory")]
    )
    energy_joules = models.FloatField(null=True, blank=True)
    energy_unavailable_reason = models.CharField(max_length=500, blank=True)

    class Meta:
        indexes = [models.Index(fields=["hardware_class", "backend"], name="cost_hardware_identity")]

    def __str__(self) -> str:
        return f"cost of {self.evaluation} on {self.hardware_class} ({self.backend})"

    @property
    def prompt_seconds(self) -> float:
        """The time the prompt tokens took at the measured rate (0 when none were read)."""
        return self.prompt_tokens / self.prompt_tokens_per_second if self.prompt_tokens_per_second > 0 else 0.0

    @property
    def generation_seconds(self) -> float:
        rate = self.generated_tokens_per_second
        return self.generated_tokens / rate if rate > 0 else 0.0


class PublishedSpeed(models.Model):
    """One speed record from a published results file (EuroEval's ``speed`` pseudo-task):
    its kind (``protocol``, see ``services/published_speed.py``) fixes its unit, hardware
    and document-length buckets; ``iterations`` holds each iteration's values by bucket."""

    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="published_speeds")
    protocol = models.CharField(max_length=40)
    source = models.CharField(max_length=300)
    iterations = models.JSONField(default=list, help_text="[{bucket: value}] in the record's order.")
    means = models.JSONField(default=dict, help_text="{bucket: {mean, se}} as the record's totals give them.")
    record = models.JSONField(default=dict, blank=True, help_text="The record without its raw values.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["model", "protocol", "source"], name="one_published_speed_per_source")
        ]

    def __str__(self) -> str:
        return f"{self.model} speed ({self.protocol}, {self.source})"


class SpeedBenchmark(models.Model):
    """A controlled speed benchmark of one model commit (``python -m evaluation speed``; a
    ``glossa-speed`` file): a fixed workload per prompt length and batch size, medians of
    repeated runs. The efficiency view's primary numbers; ``runs`` is the file's list."""

    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="speed_benchmarks")
    commit_sha = models.CharField(max_length=64, blank=True)
    hardware_class = models.CharField(max_length=200)
    backend = models.CharField(max_length=40)
    device = models.CharField(max_length=10, choices=DeviceKind.choices)
    hardware = models.JSONField(default=dict)
    runs = models.JSONField(default=list)
    measured_at = models.CharField(max_length=40, blank=True, help_text="The file's created_at.")
    source = models.CharField(max_length=300, blank=True)
    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="speed_benchmarks"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["hardware_class", "backend"], name="speed_hardware_identity")]
        constraints = [
            models.UniqueConstraint(
                fields=["model", "commit_sha", "hardware_class", "backend"], name="one_speed_benchmark_per_identity"
            )
        ]

    def __str__(self) -> str:
        return f"speed of {self.model} on {self.hardware_class} ({self.backend})"


class SpeedJob(GpuJob):
    """One speed benchmark to run on the ``gpu`` queue (``services/speed_jobs.py``): the
    model at the commit it is measured at, asked for by an administrator for a submission.
    Its worker's report is stored (``benchmark``) only if it is of this model at this commit."""

    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="speed_jobs"
    )
    model = models.ForeignKey(LanguageModel, on_delete=models.CASCADE, related_name="speed_jobs")
    commit_sha = models.CharField(max_length=64, help_text="The commit measured (the submission's, when queued).")
    trust_remote_code = models.BooleanField(default=False, help_text="Granted for this commit when queued.")
    backend = models.CharField(max_length=40, help_text="The deployment's backend when queued.")
    benchmark = models.ForeignKey(
        SpeedBenchmark,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="jobs",
        help_text="What it stored.",
    )

    class Meta(GpuJob.Meta):
        indexes = [models.Index(fields=["status", "created_at"], name="speed_job_status_idx")]

    def __str__(self) -> str:
        return f"speed of {self.model} @ {self.commit_sha[:12]} ({self.status})"
