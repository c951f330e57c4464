"""A board built from today's EuroEval records (current metric names, newer tasks) ranks
exactly the entries EuroEval ranks, with its rank scores.

The records (``data/euroeval-2026/records_dutch.jsonl.gz``, 2,470 records rebuilt from the
Dutch boards published on 2026-04-17, see its README) go through the real importer and the
real aggregation on PostgreSQL; the published board is the one those records came from.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from leaderboard.models import LeaderboardEntry
from leaderboard.published.boards import parse_board
from leaderboard.ranking import entry_display_name
from leaderboard.services.aggregation import aggregate
from leaderboard.services.results_import import import_file

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "data" / "euroeval-2026"


@pytest.fixture(scope="module")
def published():
    return parse_board((FIXTURE / "dutch_all_b31e10f1.csv").read_text(encoding="utf-8"))


def test_dutch_records_import_whole_and_reproduce_the_ranked_split(published, settings):
    report = import_file(FIXTURE / "records_dutch.jsonl.gz")
    assert report.errors == [] and report.imported == 2470, report.summary()
    aggregate(["nl"], replicates=0)
    ours = {
        entry_display_name(e.model.model_id, e.few_shot, e.validation_split): e.rank_score
        for e in LeaderboardEntry.objects.filter(leaderboard_id="nl").select_related("model")
    }
    theirs = dict(zip(published.models, published.published))
    ranked_theirs = {name for name, score in theirs.items() if np.isfinite(score)}
    ranked_ours = {name for name, score in ours.items() if score is not None}
    assert len(ranked_theirs) == 142
    assert ranked_ours == ranked_theirs
    names = sorted(ranked_theirs)
    a = np.array([ours[n] for n in names])
    b = np.array([theirs[n] for n in names])
    assert np.mean(np.abs(a - b)) < 0.01  # printed to two decimals
    assert stats.spearmanr(a, b).statistic > 0.999
