"""Hostile results files: a field of the wrong type is an error with its line number and the
rest imports; a gzip file holding one enormous line is read in bounded chunks."""

from __future__ import annotations

import gzip
import json
import tracemalloc

import pytest

from evaluation.examples import encode_examples
from leaderboard.models import Evaluation
from leaderboard.services import results_files
from leaderboard.services.results_files import read_records
from leaderboard.services.results_import import import_file

from .test_hostile_examples import examples, record


@pytest.mark.django_db
def test_fields_the_examples_check_reads_are_line_numbered_errors(tmp_path):
    folder = tmp_path / "results.predictions"
    folder.mkdir()
    (folder / "x.examples.jsonl.gz").write_bytes(encode_examples(examples()))
    bad = {
        "dataset_split_sizes": "x",
        "iterations": "three",
        "examples_file": "x\x00.examples.jsonl.gz",
    }
    lines = [record(f"org/bad-{key}", **{"examples_file": "x.examples.jsonl.gz", key: v}) for key, v in bad.items()]
    lines += [
        record("org/bad-sizes", examples_file="x.examples.jsonl.gz", dataset_split_sizes={"test": "many"}),
        record("org/bad-count", examples_file="x.examples.jsonl.gz", iterations=True),
        record("org/good", examples_file="x.examples.jsonl.gz"),
    ]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = import_file(path)
    assert (report.imported, report.with_examples, report.skipped["invalid record"]) == (1, 1, 5)
    assert [line for line, _ in report.errors] == [1, 2, 3, 4, 5]
    assert "dataset_split_sizes" in report.errors[0][1] and "iterations" in report.errors[1][1]
    assert list(Evaluation.objects.values_list("model__model_id", flat=True)) == ["org/good"]


def write_line_bomb(path, line_bytes: int, after: list[dict]) -> None:
    """A gzip file whose first line is ``line_bytes`` long, then ``after``: written in 1 MiB
    pieces, so neither the line nor the file is ever held whole."""
    piece = b"x" * (1 << 20)
    with gzip.open(path, "wb", compresslevel=1) as handle:
        handle.write(b'{"pad": "')
        for _ in range(line_bytes // len(piece)):
            handle.write(piece)
        handle.write(b'"}\n')
        for line in after:
            handle.write((json.dumps(line) + "\n").encode())


@pytest.mark.django_db
def test_a_gzip_line_bomb_is_never_read_whole(tmp_path):
    path = tmp_path / "bomb.jsonl.gz"
    line = 10 * results_files.MAX_LINE  # 100 MB in one line, under half a megabyte on disk
    write_line_bomb(path, line, [record("org/after-the-bomb")])
    assert path.stat().st_size < line // 100
    tracemalloc.start()
    try:
        read = list(read_records(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * results_files.MAX_LINE  # the line limit plus a chunk, never the line
    assert read[0] == (1, None, f"line longer than {results_files.MAX_LINE} bytes")
    assert read[1][0] == 2 and read[1][1]["model"] == "org/after-the-bomb"
    report = import_file(path)
    assert report.imported == 1 and report.errors == [(1, f"line longer than {results_files.MAX_LINE} bytes")]
