"""Result records as a GPU worker sends them for a submission's job: the one the job asks
for (``planned_record``), and from it the forgeries a test tries."""

from __future__ import annotations

import copy

from leaderboard.models import Submission


def planned_record(submission: Submission, dataset: str = "scala-da", **changes) -> dict:
    """A valid record of ``dataset`` for the job kept on ``submission``: its model and
    commit, the planned dataset version, the job's protocol and variant."""
    submission.refresh_from_db()
    job = submission.job
    iterations, limit = job["protocol"]["iterations"], job["protocol"]["limit"]
    record = {
        "dataset": dataset,
        "dataset_version": job["versions"][dataset],
        "task": "linguistic-acceptability",
        "dataset_languages": ["da"],
        "model": job["model"],
        "model_commit": job["commit"],
        "results": {"raw": [{"mcc": 0.2 + i / 100, "macro_f1": 0.6} for i in range(iterations)]},
        "few_shot": job["few_shot"],
        "validation_split": False,
        "iterations": iterations,
        "limit": limit,
    }
    record.update(copy.deepcopy(changes))
    return record
