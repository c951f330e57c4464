"""Admin for every model. Areas with their own actions register in their own module."""

from leaderboard.admin import core  # noqa: F401
from leaderboard.admin import submissions  # noqa: F401
