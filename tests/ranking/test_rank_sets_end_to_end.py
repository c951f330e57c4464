"""The exported rank sets cover the true ranks on synthetic Danish boards run through the
whole pipeline (``synthetic_boards``: import_results → aggregate → export_leaderboard).

A smaller run than the 12 + 12 boards of ``benchmarks/rank_set_coverage.py`` (numbers in
BENCHMARKS.md): 3 tied and 3 spaced boards of 20 models. Bounds: per-entry coverage of the
exported marginal set (``rank_interval``) ≥ 0.93 on both kinds; with 3 boards that is
"no more than 4 of the 60 entries missed"; mean width ≤ 3 ranks on spaced boards.
"""

from __future__ import annotations

import pytest

from tests.ranking.synthetic_boards import run_boards


@pytest.mark.django_db
def test_exported_rank_sets_cover_the_true_ranks():
    tied = run_boards("tied", 3)
    spaced = run_boards("spaced", 3, seed0=100)
    assert tied["marginal"] >= 0.93 and tied["simultaneous"] >= 0.93, tied
    assert spaced["marginal"] >= 0.93 and spaced["simultaneous"] >= 0.93, spaced
    assert spaced["width"] <= 3, spaced
    assert tied["width"] > 15, tied  # tied models cannot be told apart: the sets say so
