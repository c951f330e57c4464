"""What a board counts: one dataset version, one protocol and one model commit per entry.

Real PostgreSQL. Scores on another dataset version or under another protocol are kept and
listed in the entry's ``excluded`` with a reason, never ranked; a model's commits never
overwrite each other, and the board shows the newest one unless an admin pins another.
"""

from __future__ import annotations

import pytest

from leaderboard.models import Evaluation, IterationScore, LeaderboardEntry
from leaderboard.selectors.export import leaderboard_document
from leaderboard.services.aggregation import aggregate
from tests.ranking.builders import add_evaluation, dataset, it, model

pytestmark = pytest.mark.django_db

REPS = 40
OTHER_VERSION = "sha256:" + "ab" * 32
COMMIT_A, COMMIT_B = "a" * 40, "b" * 40


@pytest.fixture
def board():
    """Danish board: two datasets, three published models all on the published version."""
    sent = dataset("angry-tweets", "sentiment-classification", ["da"])
    ner = dataset("dane", "named-entity-recognition", ["da"])
    for k, (model_id, quality) in enumerate([("org/big", 0.8), ("org/mid", 0.6), ("org/small", 0.4)]):
        add_evaluation(model_id, sent, it(quality, seed=k), it(quality, seed=k + 9))
        add_evaluation(model_id, ner, it(quality, seed=k + 3), it(quality, seed=k + 6))
    return sent, ner


def _entry(model_id):
    return LeaderboardEntry.objects.get(leaderboard_id="da", model__model_id=model_id)


def test_another_dataset_version_is_excluded_not_ranked(board):
    sent, ner = board
    add_evaluation("org/new", sent, it(0.95, seed=20), it(0.95, seed=21), version=OTHER_VERSION)
    add_evaluation("org/new", ner, it(0.95, seed=22), it(0.95, seed=23))
    aggregate(replicates=REPS)
    entry = _entry("org/new")
    assert entry.rank is None and entry.rank_score is None  # one dataset counted of two: unranked
    assert entry.missing_datasets == ["angry-tweets"]
    [excluded] = entry.excluded
    assert excluded["dataset"] == "angry-tweets" and excluded["dataset_version"] == OTHER_VERSION
    assert (
        "dataset version sha256:abababababab" in excluded["reason"] and "counts version published" in excluded["reason"]
    )
    # The published entries' ranking is exactly what it was without the other version's scores.
    assert _entry("org/big").rank == 1 and _entry("org/big").excluded == []
    doc = leaderboard_document("da")
    assert {d["name"]: d["version"] for d in doc["datasets"]} == {"angry-tweets": "published", "dane": "published"}
    new = next(e for e in doc["entries"] if e["model"] == "org/new")
    assert new["excluded"] == [excluded] and new["scores"]["dane"]["dataset_version"] == "published"


def test_a_slice_is_never_ranked_with_full_evaluations(board):
    sent, ner = board
    add_evaluation("org/slice", sent, it(0.99, n=3, seed=30), it(0.99, n=3, seed=31), test_limit=32)
    add_evaluation("org/slice", ner, it(0.99, n=3, seed=32), it(0.99, n=3, seed=33), test_limit=32)
    aggregate(replicates=REPS)
    entry = _entry("org/slice")
    assert entry.rank_score is None and sorted(entry.missing_datasets) == ["angry-tweets", "dane"]
    reasons = {item["dataset"]: item["reason"] for item in entry.excluded}
    assert reasons["dane"] == (
        "evaluated with 3 iterations on the first 32 test rows; the board counts 10 iterations on the full test split"
    )
    assert _entry("org/big").rank == 1


def test_a_dataset_counting_a_slice_protocol_ranks_slices_only(board):
    sent, ner = board
    for ds in (sent, ner):
        ds.board_protocol = "iterations=3,test-limit=32"
        ds.save()
    add_evaluation("org/slice", sent, it(0.9, n=3, seed=40), it(0.9, n=3, seed=41), test_limit=32)
    add_evaluation("org/slice", ner, it(0.9, n=3, seed=42), it(0.9, n=3, seed=43), test_limit=32)
    aggregate(replicates=REPS)
    assert _entry("org/slice").rank == 1 and _entry("org/slice").excluded == []
    assert _entry("org/big").rank_score is None and len(_entry("org/big").excluded) == 2


def test_a_new_commit_keeps_the_old_commits_scores_and_the_board_shows_the_newest(board):
    sent, ner = board
    old = [add_evaluation("org/dev", ds, it(0.9, seed=50 + k), commit=COMMIT_A) for k, ds in enumerate(board)]
    new = [add_evaluation("org/dev", ds, it(0.2, seed=60 + k), commit=COMMIT_B) for k, ds in enumerate(board)]
    aggregate(replicates=REPS)
    entry = _entry("org/dev")
    assert entry.commit_sha == COMMIT_B and entry.excluded == []
    assert entry.scores["angry-tweets"]["primary"]["mean"] < 30  # commit B's scores, not A's
    assert Evaluation.objects.filter(model__model_id="org/dev").count() == 4
    assert IterationScore.objects.filter(evaluation__in=old).count() == 20  # commit A's scores kept
    # An admin pins commit A: the board shows A's scores and B's stay stored.
    dev = model("org/dev")
    dev.pinned_commit = COMMIT_A
    dev.save()
    aggregate(replicates=REPS)
    entry = _entry("org/dev")
    assert entry.commit_sha == COMMIT_A and entry.rank == 1
    assert IterationScore.objects.filter(evaluation__in=new).count() == 20
    assert leaderboard_document("da")["entries"][0]["commit"] == COMMIT_A


def test_an_entry_with_only_excluded_scores_is_listed_with_its_reasons(board):
    sent, _ = board
    add_evaluation("org/elsewhere", sent, it(0.7, seed=70), version=OTHER_VERSION)
    aggregate(replicates=REPS)
    entry = _entry("org/elsewhere")
    assert entry.rank_score is None and entry.scores == {}
    assert [item["dataset"] for item in entry.excluded] == ["angry-tweets"]
    assert LeaderboardEntry.objects.filter(leaderboard_id="da", rank__isnull=False).count() == 3


def test_the_board_page_says_what_is_not_counted_and_why(board, client):
    from html.parser import HTMLParser

    sent, _ = board
    add_evaluation("org/elsewhere", sent, it(0.7, seed=80), version=OTHER_VERSION)
    aggregate(replicates=REPS)
    response = client.get("/leaderboards/da/")
    assert response.status_code == 200

    class Notes(HTMLParser):
        def __init__(self):
            super().__init__()
            self.depth, self.notes = 0, []

        def handle_starttag(self, tag, attrs):
            if tag == "div" and "excluded" in (dict(attrs).get("class") or "").split():
                self.depth = 1
                self.notes.append("")

        def handle_endtag(self, tag):
            if tag == "div":
                self.depth = 0

        def handle_data(self, data):
            if self.depth:
                self.notes[-1] += data

    parser = Notes()
    parser.feed(response.content.decode())
    assert parser.notes == [
        "not counted: angry-tweets: evaluated on dataset version sha256:abababababab; "
        "the board counts version published"
    ]


SUITE_VERSION = "sha256:" + "cd" * 32


def _suite_dataset(name, task):
    """A data-directory dataset in the suite that does not count on the published board."""
    ds = dataset(name, task, ["da"], counts=False)
    ds.versions.create(fingerprint=SUITE_VERSION, origin="data-dir")
    return ds


def test_suite_board_ranks_only_this_deployments_versions_and_protocol(settings):
    """A suite board (``da-suite``) counts the data directory's folder versions under the
    deployment's protocol: a slice ranks there among slices, and nowhere else."""
    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 3, 32
    sent = dataset("angry-tweets", "sentiment-classification", ["da"])
    add_evaluation("org/published", sent, it(0.8, seed=90))  # the published board's own
    la = _suite_dataset("scala-da", "linguistic-acceptability")
    add_evaluation("org/published", la, it(0.8, seed=97))  # on the published version: not on the suite board
    for k, (model_id, quality) in enumerate([("org/a", 0.9), ("org/b", 0.3)]):
        add_evaluation(model_id, la, it(quality, n=3, seed=91 + k), version=SUITE_VERSION, test_limit=32)
    add_evaluation("org/full", la, it(0.5, seed=95), version=SUITE_VERSION)  # 10 iterations, full split
    run = aggregate(replicates=REPS)
    assert "da-suite" in run.boards and "da" in run.boards
    suite = {e.model.model_id: e for e in LeaderboardEntry.objects.filter(leaderboard_id="da-suite")}
    assert suite["org/a"].rank == 1 and suite["org/b"].rank_score is not None
    assert suite["org/a"].rank_score_ci_low <= suite["org/a"].rank_score <= suite["org/a"].rank_score_ci_high
    # Entries with nothing run on the suite's versions under its protocol are not on it.
    assert "org/published" not in suite and "org/full" not in suite
    doc = leaderboard_document("da-suite")
    assert doc["name"] == "Danish (evaluated here)"
    assert doc["datasets"] == [
        {
            "name": "scala-da",
            "task": "linguistic-acceptability",
            "primary_metric": "mcc",
            "secondary_metric": "macro_f1",
            "version": SUITE_VERSION,
            "protocol": "iterations=3,test-limit=32",
            "ranked": True,
        }
    ]
    # The published board keeps its own dataset; the suite's scores are not ranked there.
    published = {e.model.model_id: e for e in LeaderboardEntry.objects.filter(leaderboard_id="da")}
    assert set(published) == {"org/published"}


def test_asking_for_a_language_refreshes_its_suite_board_too(settings):
    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 3, 32
    la = _suite_dataset("scala-da", "linguistic-acceptability")
    add_evaluation("org/a", la, it(0.9, n=3, seed=96), version=SUITE_VERSION, test_limit=32)
    run = aggregate(["da"], replicates=REPS)
    assert run.boards == ["da-suite"]  # no published Danish results: the suite board alone


def test_pinning_a_commit_in_the_admin_reaggregates_the_models_boards(board, admin_client, settings):
    import base64
    import json

    import redis

    for k, ds in enumerate(board):
        add_evaluation("org/dev", ds, it(0.9, seed=100 + k), commit=COMMIT_A)
        add_evaluation("org/dev", ds, it(0.2, seed=110 + k), commit=COMMIT_B)
    aggregate(replicates=REPS)
    assert _entry("org/dev").commit_sha == COMMIT_B
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("default")
    dev = model("org/dev")
    response = admin_client.post(
        f"/admin/leaderboard/languagemodel/{dev.pk}/change/",
        {
            "model_id": dev.model_id,
            "model_type": dev.model_type,
            "pinned_commit": COMMIT_A,
            "precision": "",
            "license": "",
            "metadata": "{}",
            "revision": "main",
            "remote_code_grants-TOTAL_FORMS": "0",
            "remote_code_grants-INITIAL_FORMS": "0",
        },
        follow=True,
    )
    assert response.status_code == 200 and "Aggregation of da queued" in response.content.decode()
    [message] = [json.loads(m) for m in broker.lrange("default", 0, -1)]
    broker.delete("default")
    assert message["headers"]["task"] == "leaderboard.tasks.aggregate_boards"
    codes = json.loads(base64.b64decode(message["body"]))[1]["board_codes"]
    aggregate(codes, replicates=REPS)  # what the worker runs
    assert _entry("org/dev").commit_sha == COMMIT_A


def test_an_orthogonal_task_is_shown_but_never_ranks(board):
    """EuroEval's european-values: its scores are on the board, the rank score ignores them,
    and an entry without them is still ranked."""
    values = dataset("valeu-da", "european-values", ["da"])
    add_evaluation("org/small", values, it(0.99, seed=120))
    aggregate(replicates=REPS)
    after = {m: _entry(m).rank_score for m in ("org/big", "org/mid", "org/small")}
    small = _entry("org/small")
    assert small.scores["valeu-da"]["rank_score"] is None and small.scores["valeu-da"]["primary"]["mean"] > 90
    assert _entry("org/big").missing_datasets == [] and _entry("org/big").rank == 1
    doc = leaderboard_document("da")
    assert {d["name"]: d["ranked"] for d in doc["datasets"]} == {"angry-tweets": True, "dane": True, "valeu-da": False}
    assert "european-values" not in small.task_rank_scores
    Evaluation.objects.filter(dataset=values).delete()
    aggregate(replicates=REPS)
    assert {m: _entry(m).rank_score for m in after} == after  # the orthogonal scores changed no rank score


def test_a_board_with_nothing_it_counts_is_not_a_board(settings):
    """A language whose datasets only have suite-protocol scores has a suite board and no
    published one (which would list every entry as not counted)."""
    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = 3, 32
    la = dataset("scala-de", "linguistic-acceptability", ["de"])  # counts on the published board
    la.versions.create(fingerprint=SUITE_VERSION, origin="data-dir")
    la.board_version = la.versions.get()
    la.save()
    add_evaluation("org/a", la, it(0.9, n=3, seed=130), version=SUITE_VERSION, test_limit=32)
    run = aggregate(replicates=REPS)
    assert run.boards == ["de-suite"]
