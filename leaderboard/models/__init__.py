"""Glossa's data: languages, datasets, models, submissions and per-iteration scores.

Scores are stored per iteration (one row per evaluation, iteration and metric) so that
every number on the site can be recomputed: dataset means and confidence intervals,
the significance tests of the mean rank score and its bootstrap interval.

Split by job: ``registry`` (languages, groups, datasets, versions), ``submissions``
(models, grants, submissions), ``results`` (evaluations, iteration scores), ``boards``
(aggregates, rankings, snapshots, runs), ``efficiency`` (what running a model costs),
``exams`` (language models as examiners); every model is importable from here.
"""

from leaderboard.models.boards import AggregationRun, BoardSnapshot, Leaderboard, LeaderboardEntry, LeaderboardRanking
from leaderboard.models.efficiency import DeviceKind, EvaluationCost, PublishedSpeed, SpeedBenchmark, SpeedJob
from leaderboard.models.exams import (
    Exam,
    ExamAnswer,
    ExamGrade,
    Examiner,
    ExamQuestion,
    ExamRanking,
    ExamResult,
    ExamRun,
    ExamRunStatus,
)
from leaderboard.models.jobs import LIVE_STATUSES, GpuJob, JobStatus
from leaderboard.models.registry import ORIGINS, TASK_CHOICES, Dataset, DatasetVersion, Language, LanguageGroup
from leaderboard.models.results import Evaluation, EvaluationExamples, IterationScore
from leaderboard.models.submissions import (
    ACTIVE_SUBMISSION_STATUSES,
    LanguageModel,
    ModelType,
    RemoteCodeGrant,
    Submission,
    SubmissionStatus,
    TypeSource,
)

__all__ = [
    "DeviceKind",
    "EvaluationCost",
    "PublishedSpeed",
    "SpeedBenchmark",
    "SpeedJob",
    "Exam",
    "ExamAnswer",
    "ExamGrade",
    "Examiner",
    "ExamQuestion",
    "ExamRanking",
    "ExamResult",
    "ExamRun",
    "ExamRunStatus",
    "GpuJob",
    "JobStatus",
    "LIVE_STATUSES",
    "ACTIVE_SUBMISSION_STATUSES",
    "AggregationRun",
    "BoardSnapshot",
    "Dataset",
    "DatasetVersion",
    "Evaluation",
    "EvaluationExamples",
    "IterationScore",
    "Language",
    "LanguageGroup",
    "LanguageModel",
    "Leaderboard",
    "LeaderboardEntry",
    "LeaderboardRanking",
    "ModelType",
    "TypeSource",
    "ORIGINS",
    "RemoteCodeGrant",
    "Submission",
    "SubmissionStatus",
    "TASK_CHOICES",
]
