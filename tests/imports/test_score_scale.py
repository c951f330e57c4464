"""Percent or fractions: decided per record and metric, never by one stray value."""

from __future__ import annotations

from leaderboard.services.score_scale import percent_metrics


def its(**metrics: list[float]) -> list[dict[str, float]]:
    n = len(next(iter(metrics.values())))
    return [{name: values[i] for name, values in metrics.items()} for i in range(n)]


def test_total_decides_when_it_matches_either_scale():
    values = [0.61, 0.62, 0.63, 0.64]
    mean = sum(values) / 4
    assert percent_metrics(its(f1=values), {"f1": round(100 * mean, 2)}) == set()
    # Old question-answering records: raw in percent and the total equal to their mean.
    percent = [61.0, 62.0, 63.0, 64.0]
    assert percent_metrics(its(f1=percent), {"f1": 62.5}) == {"f1"}
    # Tiny percent scores (0.5 % F1) are still percent when the total says so.
    assert percent_metrics(its(f1=[0.4, 0.6]), {"f1": 0.5}) == {"f1"}


def test_without_a_total_the_whole_range_decides():
    assert percent_metrics(its(mcc=[50.0 + i for i in range(10)]), {}) == {"mcc"}
    assert percent_metrics(its(mcc=[-12.0, -8.5, 3.0]), {}) == {"mcc"}  # MCC in percent may be negative
    assert percent_metrics(its(mcc=[0.5] * 10), {}) == set()


def test_one_stray_value_does_not_rescale_the_metric():
    stray = [0.5] * 9 + [50.0]
    assert percent_metrics(its(mcc=stray), {}) == set()
    assert percent_metrics(its(mcc=[0.5] * 9 + [350.0]), {}) == set()
    assert percent_metrics(its(mcc=[60.0] * 9 + [350.0]), {}) == set()  # nothing is 350 %


def test_each_metric_on_its_own_and_a_useless_total_falls_back_to_the_range():
    iterations = its(f1=[55.0, 56.0], em=[0.3, 0.4])
    assert percent_metrics(iterations, {"f1": "n/a", "em": 0}) == {"f1"}
    assert percent_metrics(iterations, {"f1": 12.0}) == {"f1"}  # matches neither scale
