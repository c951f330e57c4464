"""EuroEval's published boards of 2026-04-17 as the site's published results.

The boards are the repository's own (``data/results/euroeval-boards/``, EuroEval/leaderboards
at the commit in ``COMMIT``). A sample of them is re-ranked from the iteration values
``import_board`` stores (pure), and one language goes through the real ``import_board``,
aggregation and export on PostgreSQL. ``benchmarks/euroeval_boards.py`` runs every board.
"""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from evaluation.tasks import TASKS, board_metrics, get_task
from leaderboard.models import Dataset, Evaluation, LanguageGroup, LeaderboardEntry
from leaderboard.published.boards import prints_standard_error
from leaderboard.published.cells import CellOutOfRange, entry_identity, fractions, iteration_values, merge_boards
from leaderboard.published.reproduction import (
    GroupCheck,
    best_reading,
    check_group,
    compare,
    group_scores,
    language_scores,
    read,
    read_group,
    reproduce_language,
)
from leaderboard.ranking import entry_display_name
from leaderboard.selectors.export import leaderboard_document
from leaderboard.services.aggregation import aggregate
from leaderboard.services.board_import import board_fingerprint
from leaderboard.services.results_import import import_record

BOARDS = Path(__file__).resolve().parents[2] / "data" / "results" / "euroeval-boards"
COMMIT = (BOARDS / "COMMIT").read_text().split()[0]


@pytest.mark.parametrize(
    ("mean", "x", "z"),
    [(50.0, 2.0, 1.96), (81.06, 17.68, 1.96), (97.25, 1.95, 1.96), (98.2, 0.93, 1.0), (-3.1, 4.0, 1.0)],
)
def test_iterations_have_the_published_mean_and_standard_error_within_the_metric_range(mean, x, z):
    values = np.array(fractions(mean, x, z))
    assert len(values) == 10 and values.min() >= -1 and values.max() <= 1
    assert math.isclose(values.mean() * 100, mean, abs_tol=1e-9)
    assert math.isclose(values.std(ddof=1) / math.sqrt(10) * z * 100, x, abs_tol=1e-9)


def test_the_balanced_set_is_preferred_and_an_impossible_cell_is_refused():
    assert (
        iteration_values(0.5, 0.02, 1.96)
        == [iteration_values(0.5, 0.02, 1.96)[0]] * 5 + [iteration_values(0.5, 0.02, 1.96)[-1]] * 5
    )
    with pytest.raises(CellOutOfRange):
        fractions(99.9, 30.0, 1.0)  # s = 95 points around 99.9: no split stays within [-100, 100]


def test_entry_labels_and_the_meaning_of_plus_minus():
    assert entry_identity("claude-x#thinking (zero-shot, val)") == entry_identity("claude-x#thinking (val, zero-shot)")
    e = entry_identity("google/gemma-4-31B-it (val)")
    assert (e.model_id, e.few_shot, e.validation_split) == ("google/gemma-4-31B-it", True, True)
    assert entry_identity("org/model (big)").model_id == "org/model (big)"  # not a variant tag
    assert prints_standard_error("<9.2.0") and prints_standard_error("17.1.0.dev0@@170100")
    assert prints_standard_error("16.17.0.dev0") and not prints_standard_error("16.17.0")
    assert not prints_standard_error("16.9.0.dev0")


def test_euroeval_task_table():
    """Every task EuroEval ranks today, ranked in its category; the others imported, never ranked.
    Glossa's own topic classification (SIB-200 sets of the data pack) is ranked as NLU too."""
    ranked = {n for n, s in TASKS.items() if s.ranked}
    assert ranked == {
        "sentiment-classification", "classification", "named-entity-recognition", "linguistic-acceptability",
        "reading-comprehension", "natural-language-inference", "word-in-context", "grammatical-error-correction",
        "grammatical-error-detection", "open-ended-qa", "summarization", "knowledge", "common-sense-reasoning",
        "simplification", "topic-classification",
    }  # fmt: skip
    nlu = {n for n in ranked if get_task(n).category == "nlu"}
    assert nlu == {
        "sentiment-classification", "classification", "named-entity-recognition", "linguistic-acceptability",
        "reading-comprehension", "natural-language-inference", "word-in-context", "grammatical-error-detection",
        "topic-classification",
    }  # fmt: skip
    assert get_task("european-values").orthogonal and not get_task("european-values").ranked
    for name in ("instruction-following", "tool-calling", "translation", "logical-reasoning", "hallucination"):
        assert not get_task(name).ranked and not get_task(name).evaluable
    assert board_metrics("summarization") == ("chrf3pp", "chrf4pp")


@pytest.mark.parametrize("language", ["latvian", "slovak", "greek", "dutch"])
def test_language_boards_are_reproduced_from_the_stored_iterations(language):
    """Greek and Dutch have cells of the 16.17.0.dev0 builds (old format or EEE): read per
    entry, as s/√n except for the entries whose runs wrote the old format (Dutch nlu: 0.0058
    with one reading for the whole language)."""
    files = {kind: BOARDS / f"{language}_{kind}.csv" for kind in ("all", "nlu")}
    if language in ("greek", "dutch"):
        readings = best_reading({k: read(p) for k, p in files.items()})[1]
        half_widths = {label for label, z in readings.items() if z == 1.96}
        assert "Qwen/Qwen3.5-2B (val)" in half_widths and 1 <= len(half_widths) <= 3 < len(readings)
    for result in reproduce_language(files):
        assert result.same_ranked_set, result
        assert result.mean_abs_diff <= 0.005, result
        assert result.spearman > 0.999, result


def test_a_group_board_is_the_mean_of_its_languages():
    scores = [
        language_scores(merge_boards([read(BOARDS / f"{n}_{k}.csv") for k in ("all", "nlu")]))
        for n in ("latvian", "lithuanian")
    ]
    for kind in ("all", "nlu"):
        labels, published = read_group(BOARDS / f"baltic_{kind}.csv")
        result = compare(f"baltic_{kind}", labels, published, group_scores([s[kind] for s in scores]))
        assert result.same_ranked_set and result.mean_abs_diff <= 0.005, result


def test_a_group_ranks_what_all_its_languages_rank():
    """EuroEval's rule (its generator's compute_ranks): a group's rank score is the mean of its
    languages', so an entry is ranked on the group exactly when every language ranks it. The
    group boards print those language scores: the rule holds on all of them, and they differ
    from the languages' own files only for two entries whose `_all` files are older."""
    check = check_group(BOARDS / "european_all.csv", "all")
    assert check.rule_holds
    assert check.stale == [
        ("polish", "zai-org/GLM-4.7-Flash (val)"),
        ("portuguese", "Qwen/Qwen3.5-35B-A3B-Base (val)"),
    ]
    assert check_group(BOARDS / "romance_nlu.csv", "nlu") == GroupCheck(True, [])


@pytest.mark.django_db
def test_import_board_counts_the_board_and_keeps_other_identities_apart():
    # ScandEval-era results on the Slovak board: one dataset the board also has, one it has not.
    old = {"task": "sentiment-classification", "dataset_languages": ["sk"], "model": "google/gemma-3-27b-it"}
    raw = [{"test_mcc": 0.1 + i / 100, "test_macro_f1": 0.5} for i in range(10)]
    import_record({**old, "dataset": "sk-old-sentiment", "results": {"raw": raw}}, source="2023.jsonl")
    import_record({**old, "dataset": "csfd-sentiment-sk", "results": {"raw": raw}}, source="2023.jsonl")

    out = StringIO()
    paths = [str(BOARDS / "slovak_all.csv"), str(BOARDS / "slovak_nlu.csv"), str(BOARDS / "baltic_all.csv")]
    call_command("import_board", *paths, stdout=out)
    assert "no longer counted (history): sk-old-sentiment" in out.getvalue()
    assert not Dataset.objects.get(name="sk-old-sentiment").counts_toward_leaderboard
    fingerprint = board_fingerprint(COMMIT)
    sentiment = Dataset.objects.get(name="csfd-sentiment-sk")
    assert sentiment.board_version.fingerprint == fingerprint
    evaluations = Evaluation.objects.filter(model__model_id="google/gemma-3-27b-it", dataset=sentiment)
    assert sorted(e.dataset_version.fingerprint for e in evaluations) == ["published", fingerprint]
    board_ev = evaluations.get(dataset_version__fingerprint=fingerprint)
    assert board_ev.source.startswith(f"reconstructed from EuroEval/leaderboards@{COMMIT[:12]}")
    assert board_ev.record["reconstructed_from"]["commit"] == COMMIT

    again = StringIO()
    call_command("import_board", *paths[:2], stdout=again)
    assert "imported 0, updated 0" in again.getvalue()

    aggregate(["sk"], replicates=0)
    published = read(BOARDS / "slovak_all.csv")
    ours = {
        entry_display_name(e.model.model_id, e.few_shot, e.validation_split): e.rank_score or np.inf
        for e in LeaderboardEntry.objects.filter(leaderboard__code="sk").select_related("model")
    }
    result = compare("sk", published.models, published.published, ours)
    assert result.same_ranked_set and result.mean_abs_diff <= 0.005, result
    doc = leaderboard_document("sk")
    assert {ds["version"] for ds in doc["datasets"]} == {fingerprint}
    gemma = next(e for e in doc["entries"] if e["model"] == "google/gemma-3-27b-it" and e["few_shot"])
    assert {s["dataset_version"] for s in gemma["scores"].values()} == {fingerprint}


@pytest.mark.django_db
def test_a_bad_board_file_is_refused_alone(tmp_path):
    (tmp_path / "COMMIT").write_text(COMMIT)
    bad = tmp_path / "slovak_all.csv"
    bad.write_text("not,a\nboard\n")
    (tmp_path / "atlantis_all.csv").write_text("x")
    good = tmp_path / "latvian_nlu.csv"  # the board's two header rows and first five entries
    good.write_text("\n".join((BOARDS / "latvian_nlu.csv").read_text(encoding="utf-8").splitlines()[:7]))
    err = StringIO()
    call_command(
        "import_board",
        str(bad),
        str(tmp_path / "atlantis_all.csv"),
        str(good),
        stderr=err,
        stdout=StringIO(),
    )
    assert "slovak_all.csv" in err.getvalue() and "'atlantis' is not a language" in err.getvalue()
    assert Evaluation.objects.filter(dataset__languages__code="lv").values("model").distinct().count() == 5
    with pytest.raises(CommandError, match="--commit"):
        call_command("import_board", str(BOARDS / "latvian_nlu.csv").replace("euroeval-boards", "nowhere"))


@pytest.mark.django_db
def test_groups_are_euroevals():
    groups = {g.slug: (g.name, set(g.boards)) for g in LanguageGroup.objects.all()}
    assert groups["west-germanic"] == ("West Germanic", {"nl", "en", "de", "lb"})
    assert groups["scandinavian"] == ("Scandinavian", {"da", "fo", "is", "no", "sv"})
    assert {"european", "baltic", "finnic", "germanic", "romance", "slavic"} <= groups.keys()
    assert len(groups["european"][1]) == 32


@pytest.mark.django_db
def test_a_dataset_already_feeding_the_board_keeps_its_languages(tmp_path):
    """ScandEval's scala-nb is tagged nb (which feeds no): the Norwegian board adds no tag, so
    the data pack's scala-nb folder (declaring nb) still matches it."""
    raw = [{"test_mcc": 0.2, "test_macro_f1": 0.5}] * 10
    record = {
        "task": "linguistic-acceptability",
        "dataset_languages": ["nb"],
        "model": "org/m",
        "results": {"raw": raw},
    }
    import_record({**record, "dataset": "scala-nb"}, source="2023.jsonl")
    board = tmp_path / "norwegian_nlu.csv"
    board.write_text("\n".join((BOARDS / "norwegian_nlu.csv").read_text(encoding="utf-8").splitlines()[:7]))
    call_command("import_board", str(board), commit=COMMIT, stdout=StringIO())
    assert set(Dataset.objects.get(name="scala-nb").languages.values_list("code", flat=True)) == {"nb"}
    assert set(Dataset.objects.get(name="norquad").languages.values_list("code", flat=True)) == {"no"}


def test_reproduce_board_from_the_reconstructed_iterations():
    out = StringIO()
    call_command("reproduce_board", str(BOARDS / "baltic_nlu.csv"), records=True, stdout=out)
    assert (
        "238 entries, 205 ranked; from the reconstructed iterations: mean absolute difference 0.003" in out.getvalue()
    )
    with pytest.raises(CommandError, match="cannot reproduce"):
        call_command("reproduce_board", str(BOARDS / "COMMIT"), records=True)


@pytest.mark.django_db
def test_reconstructed_evaluations_export_as_valid_eee_and_import_back_to_the_same_board(tmp_path):
    """A board imported from EuroEval's cells → export_eee → import_results into an empty
    database: the schema accepts every log, the reconstruction's provenance travels with it
    and the board is the same, exactly."""
    from leaderboard.eee.schema import schema_errors
    from tests.imports.test_eee_import import wipe_results, without_row_ids

    lines = (BOARDS / "latvian_nlu.csv").read_text(encoding="utf-8").splitlines()

    def variant(line: str) -> str:
        label = entry_identity(re.sub(r"<[^>]+>", "", next(csv.reader([line]))[0]))
        return f"{label.few_shot}{label.validation_split}"

    rows = [line for line in lines[2:] if line.count("±") == 8]  # entries with every dataset
    picked = [line for v in ("FalseTrue", "TrueTrue", "TrueFalse") for line in [r for r in rows if variant(r) == v][:3]]
    board = tmp_path / "latvian_nlu.csv"  # the board's two header rows and three entries of each variant
    board.write_text("\n".join(lines[:2] + picked))
    call_command("import_board", str(board), commit=COMMIT, stdout=StringIO())

    def lv() -> list[tuple]:
        aggregate(["lv"], replicates=0)
        return sorted(
            (e.model.model_id, e.few_shot, e.validation_split, e.rank, e.rank_score, without_row_ids(e.scores))
            for e in LeaderboardEntry.objects.filter(leaderboard__code="lv").select_related("model")
        )

    before = lv()
    assert len(before) == 9 and any(row[3] is not None for row in before)
    assert {(row[1], row[2]) for row in before} == {(True, False), (False, True), (True, True)}  # every variant
    out = tmp_path / "eee"
    call_command("export_eee", str(out), "--board", "lv", stdout=StringIO())
    logs = sorted(out.glob("*.json"))
    assert len(logs) == Evaluation.objects.count() > 0
    for log in logs:
        document = json.loads(log.read_text(encoding="utf-8"))
        assert schema_errors(document) == [], log.name
        assert board_fingerprint(COMMIT) in json.dumps(document)  # marked as reconstructed, with the commit
    wipe_results()
    call_command("import_results", *map(str, logs), stdout=StringIO())
    assert lv() == before
    assert all(ev.record["reconstructed_from"]["commit"] == COMMIT for ev in Evaluation.objects.all())


@pytest.mark.django_db
def test_a_data_pack_dataset_of_another_task_does_not_count_on_a_reconstructed_board(tmp_path, shared_datasets_dir):
    """The data pack's SIB-200 sets (topic classification, a task EuroEval's boards of
    2026-04-17 do not have) counted on every published board and left all their entries
    unranked; on a board reconstructed from EuroEval's cells they are listed, not counted
    (the suite board still ranks them)."""
    for name in ("scala-lv", "sib200-lv"):
        shutil.copytree(shared_datasets_dir / name, tmp_path / name)
    board = tmp_path / "latvian_nlu.csv"  # the board's two header rows and first five entries
    board.write_text("\n".join((BOARDS / "latvian_nlu.csv").read_text(encoding="utf-8").splitlines()[:7]))
    call_command("import_board", str(board), commit=COMMIT, stdout=StringIO())
    call_command("sync_datasets", "--data-dir", str(tmp_path), stdout=StringIO())
    assert not Dataset.objects.get(name="sib200-lv").counts_toward_leaderboard
    assert Dataset.objects.get(name="scala-lv").counts_toward_leaderboard  # the board's own, a new version
    aggregate(["lv"], replicates=0)
    assert LeaderboardEntry.objects.filter(leaderboard__code="lv", rank__isnull=False).count() == 5
