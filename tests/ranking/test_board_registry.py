"""One board registry (issue #18.3): ``Language.board`` and ``LanguageGroup`` rows, editable
in the admin, are what aggregation, submissions, the importer and the dataset registry
read; an edit applies everywhere."""

from __future__ import annotations

import json

import pytest

from leaderboard.models import Dataset, Language, LanguageGroup, Leaderboard, LeaderboardEntry
from leaderboard.registry import boards as board_registry
from leaderboard.services import submissions
from leaderboard.services.aggregation import UnknownBoard, aggregate
from leaderboard.services.dataset_registry import sync_datasets
from leaderboard.services.results_import import import_record

pytestmark = pytest.mark.django_db


def test_the_seeded_registry_is_in_the_database():
    assert board_registry.board_of("nb") == board_registry.board_of("nn") == "no"
    assert board_registry.board_of("xx") == "xx"  # a code seen for the first time is its own board
    assert board_registry.groups()["scandinavian"].boards == ("da", "fo", "is", "no", "sv")


def test_an_admin_edit_of_a_group_is_what_aggregation_computes(boards):
    LanguageGroup.objects.filter(slug="scandinavian").update(name="Danish and Swedish", boards=["da", "sv"])
    LanguageGroup.objects.create(slug="danish-norwegian", name="Danish-Norwegian", boards=["da", "no"])
    run = aggregate(None)
    assert "danish-norwegian" in run.boards and "scandinavian" in run.boards
    group = Leaderboard.objects.get(code="scandinavian")
    assert group.name == "Danish and Swedish"
    entry = LeaderboardEntry.objects.filter(leaderboard=group, rank_score__isnull=False).first()
    assert set(entry.extra["language_rank_scores"]) == {"da", "sv"}
    assert aggregate(["danish-norwegian"]).boards == ["da", "no", "danish-norwegian"]
    LanguageGroup.objects.filter(slug="danish-norwegian").update(boards=["da", "fr"])
    with pytest.raises(UnknownBoard, match="fr"):
        aggregate(["danish-norwegian"])


def test_an_admin_edit_of_a_language_board_moves_its_datasets_everywhere(boards):
    Language.objects.filter(code="nn").update(board="nn")  # Nynorsk gets its own board
    run = aggregate(None)
    assert "nn" in run.boards and "no" in run.boards
    assert set(LeaderboardEntry.objects.filter(leaderboard_id="nn").values_list("scores", flat=True)[0]) == {"norec"}
    assert board_registry.board_of("nn") == "nn"


def test_submissions_and_the_importer_and_the_registry_read_the_rows(shared_datasets_dir, settings):
    Language.objects.update_or_create(code="nb", defaults={"name": "Bokmål", "board": "nb"})
    report = sync_datasets(shared_datasets_dir)
    assert not report.refused
    norwegian = {d.name for d in Dataset.objects.filter(languages__code="nb")}
    assert norwegian and submissions.plan_datasets(["nb"])[0] == sorted(
        d.name for d in Dataset.objects.filter(languages__code="nb", in_suite=True)
    )
    assert submissions.plan_datasets(["no"]) == ([], [])  # the old board no longer has them
    assert ("nb", "Norwegian Bokmål (nb)") in submissions.board_choices()
    assert submissions.boards_of_datasets(sorted(norwegian)) == ["nb"]

    record = {
        "dataset": "some-nb-dataset",
        "task": "sentiment-classification",
        "dataset_languages": ["nb"],
        "model": "org/model",
        "results": {"raw": [{"mcc": 0.2, "macro_f1": 0.6}, {"mcc": 0.3, "macro_f1": 0.65}]},
    }
    import_record(json.loads(json.dumps(record)), source="test")
    assert Language.objects.get(code="nb").board == "nb"  # the importer kept the edit


def test_an_empty_registry_is_seeded_and_an_edited_one_is_left_alone():
    assert board_registry.seed_if_empty() is False  # the migration seeded it
    LanguageGroup.objects.filter(slug="baltic").delete()
    assert board_registry.seed_if_empty() is False and "baltic" not in board_registry.groups()
    Language.objects.all().delete()
    LanguageGroup.objects.all().delete()
    assert board_registry.seed_if_empty() is True  # what a flush leaves is seeded again
    assert board_registry.groups()["scandinavian"].boards == ("da", "fo", "is", "no", "sv")
    assert board_registry.board_of("nn") == "no"
