"""Fixtures of the ranking tests: boards built through the real models and aggregation."""

from __future__ import annotations

import pytest

from leaderboard.models import LanguageGroup
from tests.ranking.builders import add_evaluation, dataset, it


@pytest.fixture
def boards():
    """da: 2 datasets (sentiment, NER); no: 1 dataset tagged nb+nn; sv: 1 dataset. Without
    Icelandic and Faroese results, the group is EuroEval's mainland Scandinavian (da, sv, no)."""
    LanguageGroup.objects.filter(slug="scandinavian").update(boards=["da", "sv", "no"])
    sent_da = dataset("angry-tweets", "sentiment-classification", ["da"])
    ner_da = dataset("dane", "named-entity-recognition", ["da"])
    norec = dataset("norec", "sentiment-classification", ["nb", "nn"])
    swerec = dataset("swerec", "sentiment-classification", ["sv"])
    dataset("not-counted-da", "linguistic-acceptability", ["da"], counts=False)
    data = {
        ("org/big", True): (0.70, 0.80, 0.65, 0.60),
        ("org/mid", True): (0.55, 0.70, 0.50, 0.58),
        ("org/mid", False): (0.40, 0.62, 0.45, 0.50),  # the zero-shot variant
        ("org/small", True): (0.30, None, 0.20, 0.25),  # no dane: unranked on da
    }
    for k, ((model_id, few_shot), (a, b, c, d)) in enumerate(data.items()):
        add_evaluation(model_id, sent_da, it(a, seed=k), it(a + 0.1, seed=k + 50), few_shot=few_shot)
        if b is not None:
            add_evaluation(model_id, ner_da, it(b, seed=k + 10), it(b, seed=k + 60), few_shot=few_shot)
        add_evaluation(model_id, norec, it(c, seed=k + 20), it(c, seed=k + 70), few_shot=few_shot)
        add_evaluation(model_id, swerec, it(d, seed=k + 30), it(d, seed=k + 80), few_shot=few_shot)
    # a dataset that does not count toward the board is ignored even with results
    add_evaluation("org/small", dataset("not-counted-da", "linguistic-acceptability", ["da"]), it(0.9))
    return data
