"""Reading published boards (both formats) and re-ranking them: hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from leaderboard.published.boards import BoardFormatError, agreement, parse_board

TASK = "<a id={i} href='https://euroeval.com/tasks/{task}/' style='font-size: 12px;'>{title}</a>"
DATASET = "<a href='https://euroeval.com/datasets/testish#{name}'>{col}</a>"

# Three entries; ds-a and ds-b are sentiment, ds-c is NER (entry 3 has no NER result).
#   ds-a: 80, 70, 60 (±0.10: every step significant), σ = std(80, 70, 60) = 8.16497
#         → 1, 1 + 10/σ = 2.22474, 1 + 20/σ = 3.44949
#   ds-b: 50, 50, 40: equal means are not significant → 1, 1; σ = 4.71405 → 1 + 10/σ = 3.12132
#   ds-c: 90 ± 5, 89 ± 5 (p ≈ 0.39) → 1, 1, inf
#   sentiment = mean(ds-a, ds-b) = 1, 1.61237, 3.28541; NER = 1, 1, inf
#   language = mean of tasks = 1, 1.30619, inf
EXPECTED = np.array([1.0, 1.306186, np.inf])


def euroeval_csv(rank_header: str = "Rank", ranks=("1.00@@1.00", "1.31@@1.31", "-@@-1")) -> str:
    top = [
        "<span style='font-size: 12px;'>Task Type</span>",
        "<span style='visibility: hidden;'>dummy</span>",
        "",
        "",
        TASK.format(i=4, task="sentiment-classification", title="Sentiment classification"),
        "",
        TASK.format(i=6, task="named-entity-recognition", title="Named entity recognition"),
        "<span style='visibility: hidden;'>hidden</span>",
        "",
        "",
    ]
    names = (
        ["Model", "Type", rank_header, "Parameters"]
        + [DATASET.format(name=f"ds-{x}", col=f"ds_{x}") for x in "abc"]
        + [f"ds_{x}_version" for x in "abc"]
    )
    rows = [
        [
            "<a href='https://hf.co/org/one'>org/one</a>",
            "📝",
            ranks[0],
            "7e9",
            "80.00 ± 0.10 / 70.00 ± 0.20@@80.00",
            "50.00 ± 0.10 / 1.00 ± 0.10@@50.00",
            "90.00 ± 5.00 / 90.00 ± 5.00@@90.00",
            "16.0.0@@1",
            "16.0.0@@1",
            "16.0.0@@1",
        ],
        [
            '"gpt-x (zero-shot, val)"',
            "🤔",
            ranks[1],
            "?",
            "70.00 ± 0.10@@70.00",
            "50.00 ± 0.10@@50.00",
            "89.00 ± 5.00@@89.00",
            "-",
            "-",
            "-",
        ],
        ["org/three", "🧠", ranks[2], "1e9", "60.00 ± 0.10@@60.00", "40.00 ± 0.10@@40.00", "-@@-1", "-", "-", "-"],
    ]
    quote = lambda cell: '"' + cell.replace('"', '""') + '"' if "," in cell or '"' in cell else cell  # noqa: E731
    return "\n".join(",".join(quote(c) for c in row) for row in [top, names, *rows]) + "\n"


def test_euroeval_csv_is_read_with_tasks_from_the_header():
    board = parse_board(euroeval_csv())
    assert board.models == ["org/one", '"gpt-x (zero-shot, val)"', "org/three"]
    assert board.datasets == ["ds-a", "ds-b", "ds-c"]
    assert board.dataset_tasks == ["sentiment-classification"] * 2 + ["named-entity-recognition"]
    assert board.means[0].tolist() == [80.0, 50.0, 90.0]  # the primary metric, not the secondary
    assert np.isnan(board.means[2, 2]) and board.cis[1, 2] == 5.0
    assert board.published.tolist() == [1.0, 1.31, np.inf]


def test_rerank_matches_hand_computed_scores():
    board = parse_board(euroeval_csv())
    np.testing.assert_allclose(board.rerank(), EXPECTED, rtol=0, atol=1e-6)
    result = agreement(board)
    assert result.ranked == 2 and result.same_ranked_set
    assert result.mean_abs_diff == pytest.approx((0 + abs(1.306186 - 1.31)) / 2, abs=1e-6)


def test_newer_boards_read_the_rank_score_column_not_the_ordinal_rank():
    text = euroeval_csv(rank_header="Rank score", ranks=("1.00 ± 0.02", "1.31 ± 0.10", "-"))
    text = text.replace("Model,Type,", "Rank,Model,Type,", 1)  # an ordinal column before the model
    lines = text.splitlines()
    lines[0] = "," + lines[0]
    lines[2:] = [f"{i + 1}," + line for i, line in enumerate(lines[2:])]
    board = parse_board("\n".join(lines))
    assert board.published.tolist() == [1.0, 1.31, np.inf]
    np.testing.assert_allclose(board.rerank(), EXPECTED, atol=1e-6)


def test_compact_format_with_tasks_line():
    text = (
        "# a comment\n# tasks: sent;sent;ner\nmodel;rank;ds-a;ds-b;ds-c\n"
        "org/one;1.00;80.00 ± 0.10;50.00 ± 0.10;90.00 ± 5.00\n"
        "org/two;1.31;70.00 ± 0.10;50.00 ± 0.10;89.00 ± 5.00\n"
        "org/three;-;60.00 ± 0.10;40.00 ± 0.10;-\n"
    )
    board = parse_board(text)
    assert board.dataset_tasks == ["sent", "sent", "ner"]
    np.testing.assert_allclose(board.rerank(), EXPECTED, atol=1e-6)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("model;rank;ds\norg/a;1.00;eighty\n", "cannot read a score"),
        ("# tasks: a;b\nmodel;rank;ds\norg/a;1.00;80.00 ± 1.00\n", "2 tasks for 1 datasets"),
        ("model;rank;ds\norg/a;1.00\n", "row 2 has 2 fields"),
        ("a,b\nc,d\ne,f\n", "no 'Model' column"),
        (",,\nModel,Rank,danish\norg/a,1.20@@1.20,1.10@@1.10\n", "multilingual board prints only its languages"),
    ],
)
def test_malformed_boards_say_what_is_wrong(text, message):
    with pytest.raises(BoardFormatError, match=message):
        parse_board(text)


def test_reproduce_board_command(tmp_path, capsys):
    path = tmp_path / "board.csv"
    path.write_text(euroeval_csv(), encoding="utf-8")
    call_command("reproduce_board", str(path))
    out = capsys.readouterr().out
    assert "3 entries, 2 ranked; 3 datasets in 2 tasks" in out
    assert "mean absolute difference 0.0019" in out
    path.write_text("model;rank;ds\norg/a;1.00;eighty\n", encoding="utf-8")
    with pytest.raises(CommandError, match="not a board we can read"):
        call_command("reproduce_board", str(path))


def two_entry_board(version_two: str, layout: str = "2026") -> str:
    """One NER dataset: org/one 90.00 ± 1.00, org/two 88.50 ± 1.00.

    Both ± read as 95% half-widths: s = 1.6134, t = 1.5/0.7215 = 2.079, df = 18,
    p = 0.026 → a step of 1.5/σ with σ = std(90, 88.5) = 0.75: rank scores 1 and 3.
    org/two's ± read as a standard error: t = 1.5/√(0.5102² + 1²) = 1.336, df = 13.4,
    p = 0.10 → no step: 1 and 1.
    """
    meta = (
        ["Model", "Type", "Rank", "Parameters", "Vocabulary", "Context", "Commercial", "Merge"]
        if layout == "2026"
        else ["model", "generative_type", "rank", "parameters", "vocabulary_size", "context", "commercial", "merge"]
    )
    top = (
        ["<span>Task Type</span>", "<span style='visibility: hidden;'>dummy</span>"]
        + [""] * 6
        + [
            TASK.format(i=8, task="named-entity-recognition", title="Named entity recognition"),
            "<span style='visibility: hidden;'>hidden</span>",
        ]
    )
    names = meta + [DATASET.format(name="ds-c", col="ds_c"), "ds_c_version"]
    rows = [
        [
            "org/one",
            "📝",
            "1.00@@1.00",
            "?",
            "?",
            "?",
            "✓",
            "✗",
            "90.00 ± 1.00 / 90.00 ± 1.00@@90.00",
            "16.9.0.dev0@@160900",
        ],
        [
            "org/two",
            "📝",
            "1.00@@1.00",
            "?",
            "?",
            "?",
            "✓",
            "✗",
            "88.50 ± 1.00 / 88.50 ± 1.00@@88.50",
            f"{version_two}@@0",
        ],
    ]
    return "\n".join(",".join(row) for row in [top, names, *rows]) + "\n"


def test_2026_boards_read_versionless_records_as_standard_errors():
    board = parse_board(two_entry_board("<9.2.0"))
    assert board.z[:, 0].tolist() == [1.96, 1.0] and board.standard_error_cells == 1
    np.testing.assert_allclose(board.rerank(), [1.0, 1.0], atol=1e-9)


def test_versioned_records_and_older_boards_keep_the_half_width():
    for text in (two_entry_board("16.9.0.dev0"), two_entry_board("<9.2.0", layout="2025")):
        board = parse_board(text)
        assert board.standard_error_cells == 0
        np.testing.assert_allclose(board.rerank(), [1.0, 3.0], atol=1e-9)
