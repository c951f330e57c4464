"""The merge-sort ranking: counted comparisons within ⌈n log₂ n⌉, both orders, ties."""

import itertools
import math
import random

import pytest

from evaluation.examiner.merge_sort import (
    borda_points,
    comparison_bound,
    judge_both_orders,
    merge_sort_ranking,
    merge_sort_steps,
)


def strength_judge(strength, calls=None):
    def judge(first, second):
        if calls is not None:
            calls.append((first, second))
        return 1 if strength[first] >= strength[second] else 2

    return judge


def test_a_consistent_examiner_sorts_exactly_and_every_pair_is_judged_in_both_orders():
    strength = {"a": 3, "b": 1, "c": 5, "d": 2, "e": 4}
    calls = []
    ranking = merge_sort_ranking(sorted(strength), strength_judge(strength, calls))
    assert ranking.order == ["c", "e", "a", "d", "b"]
    assert len(calls) == 2 * ranking.comparisons
    for (x, y), (y2, x2) in zip(calls[::2], calls[1::2], strict=True):
        assert (x, y) == (x2, y2)  # the second call shows the same pair the other way round
    assert ranking.comparisons <= comparison_bound(5) == 12
    assert ranking.ties() == []


def test_an_examiner_with_position_bias_produces_only_ties_and_keeps_the_order():
    ranking = merge_sort_ranking(["a", "b", "c", "d"], lambda first, second: 1)  # always "the first one"
    assert ranking.order == ["a", "b", "c", "d"]
    assert all(j.outcome == "tie" for j in ranking.judgments)
    assert ranking.tiers() == [["a", "b", "c", "d"]]
    assert borda_points(ranking.tiers()) == dict.fromkeys("abcd", 0.5)


@pytest.mark.parametrize("n", range(1, 17))
def test_comparisons_never_exceed_the_bound_even_for_an_intransitive_random_examiner(n):
    rng = random.Random(n)
    for _ in range(30):
        ranking = merge_sort_ranking([str(k) for k in range(n)], lambda a, b: rng.choice((1, 2)))
        assert sorted(ranking.order) == sorted(str(k) for k in range(n))
        worst = n * math.ceil(math.log2(n)) - 2 ** math.ceil(math.log2(n)) + 1 if n > 1 else 0
        assert ranking.comparisons <= worst <= comparison_bound(n)


def test_the_generator_form_gives_the_same_ranking_as_the_driven_one():
    strength = dict(zip("abcdefg", [4, 7, 1, 3, 3, 6, 2], strict=True))
    judge = strength_judge(strength)
    steps = merge_sort_steps(sorted(strength))
    pair = next(steps)
    try:
        while True:
            pair = steps.send(judge_both_orders(*pair, judge))
    except StopIteration as done:
        generated = done.value
    assert generated.order == merge_sort_ranking(sorted(strength), judge).order


def test_borda_points_by_hand():
    assert borda_points([["a"], ["b", "c"], ["d"]]) == {"a": 1.0, "b": 0.5, "c": 0.5, "d": 0.0}
    assert borda_points([["a"], ["b"], ["c"]]) == {"a": 1.0, "b": 0.5, "c": 0.0}
    assert borda_points([["a"]]) == {"a": 0.5}


def test_tiers_join_only_neighbours_that_were_compared_and_tied():
    # b beats a in both orders; c vs b disagree (tie) -> [b, c] share a tier only if adjacent and compared
    verdicts = {("a", "b"): "b", ("b", "a"): "b"}

    def judge(first, second):
        winner = verdicts.get((first, second))
        if winner is None:
            return 1  # position bias: a tie for every other pair
        return 1 if winner == first else 2

    ranking = merge_sort_ranking(["a", "b", "c"], judge)
    assert ranking.order[0] == "b"
    tied = {frozenset(p) for p in ranking.ties()}
    for tier in ranking.tiers():
        for x, y in itertools.pairwise(tier):
            assert frozenset((x, y)) in tied


def test_near_duplicates_by_hand():
    from evaluation.examiner.dedup import is_near_duplicate, similarity

    # four trigrams each, one shared ("what is the")
    assert similarity("What is the capital of Denmark?", "What is the population of Denmark?") == pytest.approx(1 / 4)
    assert similarity("Hvad er Danmarks hovedstad?", "hvad er danmarks  HOVEDSTAD") == 1.0
    longer = "Is there any evidence that the tax on sugar lowered obesity in Denmark?"
    assert is_near_duplicate(longer, ["Did the tax on sugar lower obesity in Denmark?", "Who won?"]) is False
    assert is_near_duplicate(longer, ["Is there evidence that the tax on sugar lowered obesity?"]) is True
