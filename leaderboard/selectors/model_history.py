"""A model's evaluations per commit, for its page: what was evaluated at which commit, and
which commit the boards show. Reads only; display strings are formatted here.

Nothing is ever overwritten by a new commit (another commit is another Evaluation row), so
the history is simply every evaluation grouped by ``commit_sha``, newest commit first.
"""

from __future__ import annotations

from collections import defaultdict

from django.urls import reverse

from evaluation.revisions import FULL_SHA
from evaluation.tasks import METRIC_LABELS, get_task
from leaderboard.models import Evaluation, LanguageModel

UNKNOWN_COMMIT = "unknown commit"


def short_commit(commit: str) -> str:
    """A Hub sha's first 12 digits; a bundled model's commit as it is; empty → ``unknown commit``."""
    if not commit:
        return UNKNOWN_COMMIT
    return commit[:12] if FULL_SHA.match(commit) else commit


def _primary(evaluation: Evaluation, metric_values: dict[str, list[float]], summary) -> tuple[str, dict | None]:
    try:
        metric = get_task(evaluation.dataset.task).primary_metric
    except ValueError:
        return "", None
    return METRIC_LABELS.get(metric, metric), summary(metric_values.get(metric))


def commit_history(
    model: LanguageModel,
    evaluations: list[Evaluation],
    scores: dict[int, dict[str, list[float]]],
    board_commits: set[str],
    summary,
) -> list[dict]:
    """One group per commit (newest evaluation first), each with its evaluations.

    ``evaluations`` need ``dataset`` and ``dataset_version`` loaded; ``scores`` is evaluation id
    → metric → iteration values; ``board_commits`` the commits the model's board entries show;
    ``summary`` turns iteration values into ``{text, ci_text}`` (or None).
    """
    groups: dict[str, list[Evaluation]] = defaultdict(list)
    for evaluation in evaluations:
        groups[evaluation.commit_sha].append(evaluation)
    history = []
    for commit, members in groups.items():
        members.sort(key=lambda e: (e.dataset.name, not e.few_shot, e.validation_split, e.created_at))
        rows = []
        for ev in members:
            metric, primary = _primary(ev, scores.get(ev.id, {}), summary)
            rows.append(
                {
                    "dataset": ev.dataset.name,
                    "dataset_url": reverse("dataset", kwargs={"name": ev.dataset.name}),
                    "version": ev.dataset_version.short,
                    "version_full": ev.dataset_version.fingerprint,
                    "protocol": ev.protocol.describe(),
                    "variant": "few-shot" if ev.few_shot else "zero-shot",
                    "validation_split": ev.validation_split,
                    "date": ev.created_at,
                    "primary_metric": metric,
                    "primary": primary,
                    "eee_url": reverse("api-evaluation-eee", args=[ev.pk]),
                }
            )
        labels = sorted({ev.revision for ev in members if ev.revision and ev.revision != commit})
        history.append(
            {
                "commit": commit,
                "short": short_commit(commit),
                "labels": ", ".join(labels),
                "pinned": bool(commit) and commit == model.pinned_commit,
                "on_boards": commit in board_commits,
                "latest": max(ev.created_at for ev in members),
                "evaluations": rows,
            }
        )
    history.sort(key=lambda group: group["latest"], reverse=True)
    return history
