"""Languages, language groups, datasets and their versions: what a score is a score of."""

from __future__ import annotations

from django.db import models

from evaluation.tasks import TASKS
from leaderboard.identity import METHODOLOGY_PROTOCOL, Protocol, short_fingerprint

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

    def boards(self) -> set[str]:
        """The boards this dataset feeds: its languages' boards (``Language.board``; ``nb``
        and ``nn`` feed ``no``). Prefetch ``languages`` when reading many."""
        return {language.board for language in self.languages.all()}

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
