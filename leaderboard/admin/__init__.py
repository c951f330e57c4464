"""Admin for every model. Areas with their own actions register in their own module."""

from leaderboard.admin import core, efficiency, exams, model_identity, ranking, submissions  # noqa: F401
