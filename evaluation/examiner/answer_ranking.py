"""Each main question's counted answers, ranked by the question's examiner: a merge sort
(:mod:`evaluation.examiner.merge_sort`) whose every comparison is judged in both orders.
An examiner's sorts advance together, one batch of its pending comparisons per step, and
end before the next examiner's (so a pool with one resident model loads each model a few
times, not once per step)."""

from __future__ import annotations

from collections.abc import Generator, Sequence

from evaluation.examiner import prompts
from evaluation.examiner.exam_types import Answer, Participant, Question
from evaluation.examiner.merge_sort import Judgment, Ranking, comparison_bound, merge_sort_steps
from evaluation.examiner.schemas import COMPARISON_SCHEMA, InvalidOutput, parse_comparison

COMPARISON_TOKENS = 12

# question id -> (the question, its merge sort, the pair it waits on)
_Sorts = dict[str, tuple[Question, Generator[tuple[str, str], Judgment, Ranking], tuple[str, str]]]


def rank_answers(
    examiners: Sequence[Participant], questions: Sequence[Question], answers: Sequence[Answer]
) -> list[dict]:
    """The ``ranking`` records, in question order, of the main questions with two or more
    counted answers."""
    by_question: dict[str, dict[str, Answer]] = {}
    for answer in answers:
        if answer.counted and answer.question.depth == 0:
            by_question.setdefault(answer.question.id, {})[answer.examinee.name] = answer
    running: _Sorts = {}
    for q in questions:
        entries = by_question.get(q.id, {})
        if len(entries) < 2:
            continue
        steps = merge_sort_steps(sorted(entries))
        running[q.id] = (q, steps, next(steps))
    done: dict[str, Ranking] = {}
    for examiner in examiners:  # one examiner's sorts to the end, then the next's (one model resident)
        _sort_to_end(examiner, running, by_question, done)
    return [_ranking_record(q, done[q.id]) for q in questions if q.id in done]


def _sort_to_end(
    examiner: Participant, running: _Sorts, by_question: dict[str, dict[str, Answer]], done: dict[str, Ranking]
) -> None:
    """Advance the examiner's sorts together until each has ended (moved from ``running`` to ``done``)."""
    while True:
        mine = [(qid, state) for qid, state in running.items() if state[0].examiner is examiner]
        if not mine:
            return
        batch = []
        for _, (q, _, (a, b)) in mine:
            first, second = by_question[q.id][a].text, by_question[q.id][b].text
            batch.append(prompts.comparison_prompt(examiner.backend, q.text, q.reference, first, second))
            batch.append(prompts.comparison_prompt(examiner.backend, q.text, q.reference, second, first))
        outputs = examiner.backend.generate(batch, COMPARISON_TOKENS, json_schema=COMPARISON_SCHEMA)
        for k, (qid, (q, steps, (a, b))) in enumerate(mine):
            judgment = Judgment.from_verdicts(a, b, _winner(outputs[2 * k], a, b), _winner(outputs[2 * k + 1], b, a))
            try:
                running[qid] = (q, steps, steps.send(judgment))
            except StopIteration as finished:
                done[qid] = finished.value
                del running[qid]


def _winner(text: str, first: str, second: str) -> str:
    """The better one as the examiner judged; an unreadable verdict is ``"?"``,
    which never equals the other order's winner, so the pair ties."""
    try:
        return first if parse_comparison(text) == 1 else second
    except InvalidOutput:
        return "?"


def _ranking_record(q: Question, ranking: Ranking) -> dict:
    n = len(ranking.order)
    assert ranking.comparisons <= comparison_bound(n)
    return {
        "kind": "ranking",
        "question": q.id,
        "examiner": q.examiner.name,
        "order": ranking.order,
        "tiers": ranking.tiers(),
        "comparisons": ranking.comparisons,
        "bound": comparison_bound(n),
        "judgments": [j.to_dict() for j in ranking.judgments],
    }
