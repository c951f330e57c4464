"""The Pareto front against fronts computed by hand."""

import math

from leaderboard.pareto import pareto_front


def test_throughput_against_rank_score_by_hand():
    # (tokens/s, rank score): higher throughput and lower rank score are better.
    points = [
        (100.0, 1.0),  # 0: best score: on the front
        (300.0, 2.0),  # 1: faster than 0, worse score: on the front
        (200.0, 2.5),  # 2: slower and worse than 1: dominated
        (300.0, 2.2),  # 3: as fast as 1, worse score: dominated
        (900.0, 4.0),  # 4: fastest: on the front
        (50.0, 1.0),  # 5: as good as 0, slower: dominated
        (900.0, 4.5),  # 6: as fast as 4, worse: dominated
        (500.0, 3.0),  # 7: between 1 and 4 on both: on the front
    ]
    assert pareto_front(points, maximise_x=True) == [4, 7, 1, 0]


def test_memory_against_rank_score_by_hand():
    # (bytes, rank score): both lower is better.
    points = [(8e9, 1.0), (2e9, 3.0), (4e9, 2.0), (4e9, 2.5), (1e9, 3.0), (9e9, 1.5)]
    assert pareto_front(points, maximise_x=False) == [4, 2, 0]


def test_equal_points_share_their_place_and_non_finite_points_are_left_out():
    points = [(1.0, 0.4), (1.0, 0.4), (2.0, 0.5), (math.nan, 0.1), (math.inf, 0.0)]
    assert pareto_front(points, maximise_x=True) == [2, 0, 1]
    assert pareto_front([], maximise_x=True) == []
    assert pareto_front([(3.0, 7.0)], maximise_x=False) == [0]
