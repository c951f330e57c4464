"""Celery tasks. Each area keeps its tasks in its own module; names are explicit
(``leaderboard.tasks.<name>``) so routing in settings does not depend on the layout."""

from leaderboard.tasks.aggregation import *  # noqa: F401,F403
from leaderboard.tasks.evaluation import *  # noqa: F401,F403
from leaderboard.tasks.examination import *  # noqa: F401,F403
from leaderboard.tasks.maintenance import *  # noqa: F401,F403
from leaderboard.tasks.speed import *  # noqa: F401,F403
from leaderboard.tasks.submission_events import *  # noqa: F401,F403
