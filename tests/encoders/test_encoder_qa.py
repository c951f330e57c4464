"""Extractive QA: answer positions in windows and span decoding, on hand-made cases."""

from __future__ import annotations

import numpy as np

from evaluation.encoders.qa import answer_token_span, best_span, tokenize_windows

CONTEXT = "Anna lives in Oslo now"
# [CLS] where does anna [SEP] anna lives in oslo now [SEP]  (question tokens carry no offsets)
OFFSETS = [None, None, None, None, None, (0, 4), (5, 10), (11, 13), (14, 18), (19, 22), None]


def logits(values: dict[int, float], size: int = len(OFFSETS)) -> np.ndarray:
    out = np.zeros(size)
    for position, value in values.items():
        out[position] = value
    return out


def test_best_span_ignores_positions_outside_the_context():
    # [CLS] (0) and a question token (2) have the highest logits but are not context
    start = logits({0: 10, 2: 9, 8: 5, 5: 4})
    end = logits({0: 10, 3: 9, 8: 6, 9: 2})
    # valid pairs: (8,8)=11 "Oslo", (5,8)=10 "Anna lives in Oslo", (8,9)=7, (5,9)=6
    assert best_span([(start, end, OFFSETS)], CONTEXT) == "Oslo"


def test_best_span_respects_max_answer_tokens():
    start = logits({5: 8, 8: 5})
    end = logits({8: 6})
    # (5,8) scores 14 but spans 4 tokens; (8,8) scores 11
    assert best_span([(start, end, OFFSETS)], CONTEXT, max_answer_tokens=4) == "Anna lives in Oslo"
    assert best_span([(start, end, OFFSETS)], CONTEXT, max_answer_tokens=3) == "Oslo"


def test_best_span_rejects_end_before_start():
    start = logits({9: 9, 6: 1})
    end = logits({6: 9, 9: 0.5})
    # (9,6) is invalid; (6,6)=10 beats (9,9)=9.5 and (6,9)=1.5
    assert best_span([(start, end, OFFSETS)], CONTEXT) == "lives"


def test_best_span_n_best_limits_candidates():
    start = logits({5: 3, 6: 2, 8: 1})
    end = logits({9: 3, 8: 2, 7: 1})
    # all pairs valid; best (5,9) = 6 → whole context
    assert best_span([(start, end, OFFSETS)], CONTEXT) == "Anna lives in Oslo now"
    # with n_best=1 only start 5 and end 9 are considered: same answer
    assert best_span([(start, end, OFFSETS)], CONTEXT, n_best=1) == "Anna lives in Oslo now"
    # end logits favour a position before the only start candidate → nothing valid
    assert best_span([(logits({8: 3}), logits({6: 3}), OFFSETS)], CONTEXT, n_best=1) == ""


def test_best_span_picks_the_best_window():
    first = (logits({5: 2}), logits({5: 2}), OFFSETS)  # "Anna", score 4
    second = (logits({8: 3}), logits({9: 3}), OFFSETS)  # "Oslo now", score 6
    assert best_span([first, second], CONTEXT) == "Oslo now"


def test_answer_token_span_inside_and_outside_the_window():
    row = {"answers": {"text": ["Oslo"], "answer_start": [14]}}
    assert answer_token_span(row, OFFSETS) == (8, 8)
    row = {"answers": {"text": ["lives in"], "answer_start": [5]}}
    assert answer_token_span(row, OFFSETS) == (6, 7)
    window_without_oslo = OFFSETS[:8] + [None, None, None]  # context cut after "in"
    assert answer_token_span({"answers": {"text": ["Oslo"], "answer_start": [14]}}, window_without_oslo) == (0, 0)


def test_tokenize_windows_labels_recover_the_answer(minilm_tokenizer):
    filler = " ".join(f"word{i}" for i in range(60))
    context = f"{filler} The capital of Norway is Oslo. {filler}"
    start_char = context.index("Oslo")
    row = {
        "question": "What is the capital of Norway?",
        "context": context,
        "answers": {"text": ["Oslo"], "answer_start": [start_char]},
    }
    windows = tokenize_windows(minilm_tokenizer, [row], max_length=64, stride=16, with_labels=True)
    assert len(windows) > 2 and all(w.example == 0 for w in windows)
    assert all(len(w.feature["input_ids"]) <= 64 for w in windows)
    labelled = [w for w in windows if w.feature["start_positions"] != 0]
    assert labelled, "some window must contain the answer"
    assert any(w.feature["start_positions"] == 0 and w.feature["end_positions"] == 0 for w in windows)
    for w in labelled:
        s, e = w.feature["start_positions"], w.feature["end_positions"]
        assert context[w.offsets[s][0] : w.offsets[e][1]] == "Oslo"
        # decoding logits that point at the gold positions gives the answer back
        n = len(w.offsets)
        assert best_span([(np.eye(n)[s], np.eye(n)[e], w.offsets)], context) == "Oslo"
