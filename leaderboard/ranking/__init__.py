"""Ranking: the shared math (:mod:`.core`), the method registry (:mod:`.registry`) and one
module per ranking method (:mod:`.methods`). Pure functions and objects, no Django.

The names below keep ``from leaderboard import ranking; ranking.rank_language_board(...)``
meaning the default ``euroeval-2024`` method, as before the split.
"""

from leaderboard.ranking import methods  # noqa: F401  (registers every method)
from leaderboard.ranking.core import *  # noqa: F403
from leaderboard.ranking.core import (  # noqa: F401
    ALPHA,
    DEFAULT_REPLICATES,
    DEFAULT_SEED,
    Z95,
    BoardRanking,
    DatasetScore,
    aggregate_tasks,
    anchor_walk,
    dataset_rank_scores,
    dataset_rank_scores_from_summaries,
    dataset_score,
    entry_display_name,
    entry_token,
    mean_of_rank_scores,
    pad_scores,
    rank_intervals,
    replicate_ranks,
    summaries_from_ci,
    summary_statistics,
    task_index,
    welch_greater_pvalues,
    win_probability,
)
from leaderboard.ranking.methods.euroeval_2024 import (  # noqa: F401
    percentile_interval,
    rank_group_board,
    rank_language_board,
    significance_groups,
)
from leaderboard.ranking.registry import (  # noqa: F401
    RankingMethod,
    UnknownMethod,
    all_methods,
    get_method,
    method_names,
    register,
    unregister,
)
