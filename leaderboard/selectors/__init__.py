"""Reads for the public pages: boards, model pages, dataset pages and the home page.

Every function here returns plain dicts and lists with the display strings already
formatted, so templates only print them and exports write exactly what a page shows.
Leaderboards come from the cached ``Leaderboard`` / ``LeaderboardEntry`` rows written by
aggregation; a board page costs a constant number of queries however many entries it has.

Split by job: ``formatting`` (display helpers, pure), ``boards`` (board reads and their
cache), ``home``, ``pages`` (model and dataset pages), ``export`` (the board's export
document and CSV, behind the API and the page downloads), ``method_view`` (a board under
another ranking method), ``compare`` / ``compare_board`` / ``compare_entries`` (comparisons),
``snapshots`` and ``board_history`` (past boards and what changed), and more, one job each.
Nothing here writes or queues (an import contract: no service, no task). This package
re-exports what views, templates and tests use.
"""

from leaderboard.ranking import entry_display_name
from leaderboard.selectors.boards import (
    _LOCAL_ROWS,
    BOARD_CACHE_SECONDS,
    Board,
    BoardFilters,
    Column,
    board_columns,
    board_rows,
    board_version,
    filter_rows,
    get_board,
    sort_keys,
    sort_rows,
)
from leaderboard.selectors.formatting import (
    MODEL_TYPES,
    SHOTS,
    SIZE_BUCKETS,
    TYPE_SHORT_LABELS,
    format_count,
    format_int,
    format_number,
    metric_label,
    reproduce_command,
    size_bucket,
    variant_label,
)
from leaderboard.selectors.home import home_page, protocol_context
from leaderboard.selectors.pages import dataset_leaderboard, dataset_page, find_model, format_example, model_page

__all__ = [
    "BOARD_CACHE_SECONDS",
    "MODEL_TYPES",
    "SHOTS",
    "SIZE_BUCKETS",
    "TYPE_SHORT_LABELS",
    "_LOCAL_ROWS",
    "Board",
    "BoardFilters",
    "Column",
    "board_columns",
    "board_rows",
    "board_version",
    "dataset_leaderboard",
    "dataset_page",
    "entry_display_name",
    "filter_rows",
    "find_model",
    "format_count",
    "format_example",
    "format_int",
    "format_number",
    "get_board",
    "home_page",
    "protocol_context",
    "metric_label",
    "model_page",
    "reproduce_command",
    "size_bucket",
    "sort_keys",
    "sort_rows",
    "variant_label",
]
