"""Hostile per-example evidence: every field of an example is checked on the way in (one
bad example costs its evaluation its examples, never a page), and pages and downloads read
stored examples streamed and capped, whatever got stored."""

from __future__ import annotations

import json
import math
import time
import zlib

import pytest
from django.core.cache import cache

from evaluation.example_shape import MAX_TEXT_CHARS, SHOWN_CHARS
from evaluation.examples import PAGE_READ_BYTES, encode_examples
from leaderboard.models import EvaluationExamples
from leaderboard.selectors import examples as example_selectors
from leaderboard.services.example_store import InvalidExamples, check_examples
from leaderboard.services.results_import import import_file, import_record

ITERATIONS, ROWS = 2, 4


def record(model: str, **extra) -> dict:
    return {
        "dataset": "scala-da",
        "task": "linguistic-acceptability",
        "dataset_languages": ["da"],
        "model": model,
        "few_shot": False,
        "results": {"raw": [{"mcc": 0.2 + 0.1 * i, "macro_f1": 0.5} for i in range(ITERATIONS)]},
        "iterations": ITERATIONS,
        "limit": ROWS,
        "dataset_split_sizes": {"train": 100, "val": 20, "test": 400},
        **extra,
    }


def example(row: int, correct: bool = True, **changes) -> dict:
    base = {
        "example_id": f"test:{row}",
        "input": f"Sætning nummer {row}.",
        "gold": "correct",
        "label": "correct",
        "output": "ja",
        "parsed": "correct" if correct else "incorrect",
        "valid": True,
        "scores": {"correct": 1.0 if correct else 0.0},
        "iterations": [0, 1],
    }
    return {**base, **changes}


def examples(**changes_of_first) -> list[dict]:
    return [example(0, **changes_of_first)] + [example(r, correct=r % 2 == 0) for r in range(1, ROWS)]


ATTEMPT = {"iteration": 0, "prompt_hash": "ab", "output": "ja", "parsed": "correct", "valid": True}
HOSTILE = {
    "a score that is text": {"scores": {"correct": "x"}},
    "no scores": {"scores": {}},
    "another task's score": {"scores": {"f1": 1.0}},
    "an extra score": {"scores": {"correct": 1.0, "bonus": 1.0}},
    "a score that is NaN": {"scores": {"correct": math.nan}},
    "a score above 1": {"scores": {"correct": 7.0}},
    "an input that is a number": {"input": 123},
    "an input past the bound": {"input": "x" * (MAX_TEXT_CHARS + 1)},
    "an output that is a list": {"output": ["ja"]},
    "an output past the bound": {"output": "y" * (MAX_TEXT_CHARS + 1)},
    "validity as text": {"valid": "yes"},
    "draws as text": {"iterations": ["0", "1"]},
    "no draws": {"iterations": []},
    "a gold nested too deep": {"gold": [[[[["deep"]]]]]},
    "a parsed answer past the bound": {"parsed": ["z" * 1000] * 200},
    "an id that is a number": {"example_id": 0},
    "a field the engine never writes": {"html": "<script>"},
    "one attempt": {"attempts": [{**ATTEMPT, "scores": {"correct": 1.0}}]},
    "an attempt with a text score": {
        "attempts": [{**ATTEMPT, "scores": {"correct": 1.0}}, {**ATTEMPT, "iteration": 1, "scores": {"correct": "x"}}]
    },
    "an attempt with another key": {
        "attempts": [{**ATTEMPT, "scores": {"correct": 1.0}}, {**ATTEMPT, "scores": {"correct": 1.0}, "x": 1}]
    },
}


def test_every_field_of_an_example_is_checked_on_the_way_in():
    assert len(check_examples(encode_examples(examples()), record("a/b")).examples) == ROWS
    for what, changes in HOSTILE.items():
        with pytest.raises(InvalidExamples):
            check_examples(encode_examples(examples(**changes)), record("a/b"))
            pytest.fail(f"accepted {what}")
    with pytest.raises(InvalidExamples, match="not an object"):
        check_examples(encode_examples([[1, 2], *examples()[1:]]), record("a/b"))


@pytest.mark.django_db
def test_a_bad_example_costs_its_evaluation_its_examples_and_the_scores_still_import(tmp_path):
    """import_results: the record imports, its examples are refused with the line number."""
    folder = tmp_path / "results.predictions"
    folder.mkdir()
    (folder / "bad.examples.jsonl.gz").write_bytes(encode_examples(examples(scores={"correct": "x"})))
    (folder / "good.examples.jsonl.gz").write_bytes(encode_examples(examples()))
    results = tmp_path / "results.jsonl"
    lines = [
        record("org/bad", examples_file="bad.examples.jsonl.gz"),
        record("org/good", examples_file="good.examples.jsonl.gz"),
    ]
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = import_file(results)
    assert (report.imported, report.with_examples) == (2, 1)
    assert report.examples_missing == {"examples refused": 1}
    assert report.errors[0][0] == 1 and "example 1.scores" in report.errors[0][1]
    assert list(EvaluationExamples.objects.values_list("evaluation__model__model_id", flat=True)) == ["org/good"]


@pytest.fixture
def two_models(db):
    """Two models with valid examples on scala-da (stored through the importer)."""
    for model in ("org/a", "org/b"):
        assert import_record(record(model), source="test", examples=encode_examples(examples())) == "imported"
    example_selectors._DECODED.clear()
    yield
    example_selectors._DECODED.clear()


def overwrite(model: str, data: bytes) -> None:
    """Stored data that never passed the check (written before it existed, or by hand)."""
    stored = EvaluationExamples.objects.get(evaluation__model__model_id=model)
    stored.data = data
    stored.save()  # a new updated_at: what the pages read is read again
    cache.clear()


PAGES = ("/datasets/scala-da/", "/compare/?models=org/a&models=org/b", "/models/org/a/datasets/scala-da/examples/")


@pytest.mark.parametrize("bad", [{"scores": {"correct": "x"}}, {"scores": {}}, {"input": {"x": 1}}])
def test_a_bad_stored_example_never_takes_a_page_down(client, two_models, bad):
    for url in PAGES:
        assert client.get(url).status_code == 200
    overwrite("org/a", encode_examples(examples(**bad)))
    for url in PAGES:
        response = client.get(url)
        assert response.status_code == 200, url
    page = client.get(PAGES[2]).content.decode()
    assert 'id="examples-problem"' in page and 'data-example="test:1"' not in page
    assert client.get(PAGES[2] + "?format=jsonl").content == b""
    assert 'data-example="test:1"' in client.get("/models/org/b/datasets/scala-da/examples/").content.decode()


def gzip_stream(pieces, total: int) -> bytes:
    """Gzip of ``total`` bytes made of ``pieces`` (an iterator of byte chunks), compressed
    as they come: the uncompressed text is never held whole."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    out, written = [], 0
    for piece in pieces:
        out.append(compressor.compress(piece))
        written += len(piece)
        if written >= total:
            break
    out.append(compressor.flush())
    return b"".join(out)


def test_a_page_never_decompresses_more_than_it_shows(client, two_models):
    # one example whose output is 150 MB, in a file of about 150 KB
    head = json.dumps(example(0))[:-1].encode() + b', "output_more": "'
    bomb = gzip_stream(iter([head] + [b"a" * (1 << 20)] * 160), 150 * (1 << 20))
    assert len(bomb) < 400_000
    overwrite("org/a", bomb)
    for url in (PAGES[2], PAGES[2] + "?format=jsonl", PAGES[1], PAGES[0]):
        started = time.monotonic()
        response = client.get(url)
        assert response.status_code == 200 and len(response.content) < 1_000_000, url
        assert time.monotonic() - started < 5, url

    # many valid examples whose text adds up past what a page reads: the first ones, cut
    long = [example(r, output="o" * 90_000, input="i" * 90_000) for r in range(ROWS)]
    many = encode_examples(long * (PAGE_READ_BYTES // (4 * 180_000) + 1))
    overwrite("org/a", many)
    page = client.get(PAGES[2]).content.decode()
    assert 'id="examples-cut"' in page and len(page) < 1_000_000
    lines = client.get(PAGES[2] + "?format=jsonl").content.decode().splitlines()
    assert lines and all(len(json.loads(line)["output"]) == SHOWN_CHARS + 1 for line in lines)
