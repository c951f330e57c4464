import json

import pytest

from evaluation.predict import closest_label, parse_ner_output
from evaluation.structured import close_truncated_json

KEYS = ["person", "sted", "organisation", "diverse"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"person": ["Anders", "Bo', {"person": ["Anders"], "sted": [], "organisation": [], "diverse": []}),
        ('{"person": ["Anders"], "sted": [', {"person": ["Anders"], "sted": [], "organisation": [], "diverse": []}),
        (
            '{"person": [], "sted": ["Aarhus"], "organisation": ["DR"], "diverse": ["x"]}',
            {"person": [], "sted": ["Aarhus"], "organisation": ["DR"], "diverse": ["x"]},
        ),
        ('{"person": ["A \\"q', {"person": [], "sted": [], "organisation": [], "diverse": []}),
        ("", {"person": [], "sted": [], "organisation": [], "diverse": []}),
    ],
)
def test_close_truncated_json(text, expected):
    assert json.loads(close_truncated_json(text, KEYS)) == expected


def test_parse_ner_output_validity():
    data, valid = parse_ner_output('{"person": ["A"], "sted": [], "organisation": [], "diverse": []}', KEYS)
    assert valid and data["person"] == ["A"]
    assert parse_ner_output("not json", KEYS)[1] is False
    assert parse_ner_output('{"person": ["A"]}', KEYS)[1] is False


def test_closest_label():
    words = ["positiv", "neutral", "negativ"]
    assert closest_label("Negativ.", words) == 2
    assert closest_label("  neutral sentiment", words) == 1
    assert closest_label("positivt", words) == 0
    assert closest_label("negatv", words) == 2


def test_output_cache_computes_each_prompt_once():
    from evaluation.cache import OutputCache
    from evaluation.predictor import _cached

    calls = []

    def compute(prompts):
        calls.append(list(prompts))
        return [p.upper() for p in prompts]

    cache = OutputCache()
    assert _cached(cache, "g", ["a", "b", "a"], {}, compute) == ["A", "B", "A"]
    assert _cached(cache, "g", ["b", "c"], {}, compute) == ["B", "C"]
    assert calls == [["a", "b"], ["c"]]
    assert (cache.hits, cache.misses) == (2, 3)
