"""The exported rank sets cover the true ranks on synthetic Danish boards run through the
whole pipeline (``synthetic_boards``: import_results → aggregate → export_leaderboard).

The suite runs 3 tied and 3 spaced boards of 20 models; ``GLOSSA_RANK_SET_BOARDS=12``
(what ``benchmarks/rank_set_coverage.py`` sets) runs the 12 + 12 of BENCHMARKS.md. Bounds:
per-entry coverage of the exported marginal set (``rank_interval``) and of the
simultaneous set ≥ 0.93 on both kinds (with 3 boards: at most 4 of 60 entries missed),
mean width (high − low) ≤ 3 ranks on the spaced boards.
"""

from __future__ import annotations

import os

import pytest

from tests.ranking.synthetic_boards import run_boards


@pytest.mark.django_db
def test_exported_rank_sets_cover_the_true_ranks():
    boards = int(os.environ.get("GLOSSA_RANK_SET_BOARDS", "3"))
    tied = run_boards("tied", boards)
    spaced = run_boards("spaced", boards, seed0=100)
    print(f"\n{boards} tied boards: {tied}\n{boards} spaced boards: {spaced}")
    assert tied["marginal"] >= 0.93 and tied["simultaneous"] >= 0.93, tied
    assert spaced["marginal"] >= 0.93 and spaced["simultaneous"] >= 0.93, spaced
    assert spaced["width"] <= 3, spaced
    assert tied["width"] > 15, tied  # tied models cannot be told apart: the sets say so
