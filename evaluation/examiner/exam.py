"""One exam, end to end: questions, answers, grades, follow-ups, rankings, summaries.

Every examiner writes ``questions`` questions (:mod:`evaluation.examiner.question_writing`).
Each examinee other than the examiner answers each question from the
question alone. The examiner grades every answer (Likert, JSON constrained by the
backend) and ranks the answers to each question by merge sort, every pair judged in both
orders (:mod:`evaluation.examiner.answer_ranking`). For up to ``follow_ups`` rounds, an
answer graded correct gets a follow-up question from its examiner, shown to that examinee
alone. When an examiner is also an examinee it answers its own questions too, graded by
itself and by the other examiners, outside every score: that measures its self-preference.

Work is batched and ordered by model: one ``generate`` call per examiner or examinee per
step, and an examiner's merge sorts advance together and end before the next examiner's
(so a pool with one resident model loads each model a few times, not once per step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evaluation.backends.base import cut_at_stop
from evaluation.errors import EvaluationError
from evaluation.examiner import prompts
from evaluation.examiner.answer_ranking import rank_answers
from evaluation.examiner.exam_types import Answer, ExamSettings, Participant, Question
from evaluation.examiner.metering import MeteredBackend
from evaluation.examiner.question_writing import QuestionWriter
from evaluation.examiner.records import EXAM_FORMAT
from evaluation.examiner.schemas import GRADE_SCHEMA, InvalidOutput, parse_grade
from evaluation.examiner.voting import CORRECT_ACCURACY, summarise

__all__ = ["Exam", "ExamSettings", "Participant", "run_exam"]

GRADE_TOKENS = 64


class Exam:
    """One exam's steps over its examiners and examinees; every record goes to ``records``
    and, as it is made, to ``on_record``."""

    def __init__(
        self,
        examiners: Sequence[Participant],
        examinees: Sequence[Participant],
        settings: ExamSettings,
        on_record: Callable[[dict], None] | None = None,
    ):
        if not examiners or not examinees:
            raise EvaluationError("an exam needs at least one examiner and one examinee")
        names = [p.name for p in examiners]
        if len(set(names)) != len(names) or len({p.name for p in examinees}) != len(examinees):
            raise EvaluationError("a model is listed twice as examiner or as examinee")
        self.examiners, self.examinees, self.settings = list(examiners), list(examinees), settings
        self.writer = QuestionWriter(settings, examiners, examinees)
        self.records: list[dict] = []
        self.on_record = on_record
        self.exam_id = f"{settings.language}-round{settings.round}-seed{settings.seed}"

    # --- output --------------------------------------------------------------------------------
    def emit(self, record: dict) -> None:
        """Keep a record and pass it to ``on_record``."""
        self.records.append(record)
        if self.on_record is not None:
            self.on_record(record)

    def _question_record(self, q: Question) -> dict:
        return {
            "kind": "question",
            "id": q.id,
            "exam": self.exam_id,
            "round": self.settings.round,
            "text": q.text,
            "language": self.settings.language,
            "domain": q.domain,
            "domain_name": q.domain_name,
            "level": q.level,
            "examiner": q.examiner.name,
            "seed": self.settings.seed,
            "reference_answer": q.reference,
            "depth": q.depth,
            "parent": q.parent,
            "examinee": q.examinee,
        }

    # --- the exam ------------------------------------------------------------------------------
    def run(self) -> list[dict]:
        """Run the whole exam (questions, answers, follow-ups, grades, rankings, cost) and return its records."""
        s = self.settings
        self.emit(
            {
                "kind": "exam",
                "format": EXAM_FORMAT,
                "exam": self.exam_id,
                "language": s.language,
                "round": s.round,
                "seed": s.seed,
                "examiners": [p.header() for p in self.examiners],
                "examinees": [p.header() for p in self.examinees],
                "questions_per_examiner": s.questions,
                "follow_ups": s.follow_ups,
                "levels": list(s.levels),
                "taxonomy_version": self.writer.taxonomy.version,
            }
        )
        questions = [q for examiner in self.examiners for q in self.writer.main_questions(examiner)]
        for q in questions:
            self.emit(self._question_record(q))
        answers = self.answer(questions)
        self.grade(answers)
        for record in rank_answers(self.examiners, questions, answers):
            self.emit(record)
        self.follow_up(answers)
        summary = summarise(self.records, bootstrap=s.bootstrap, seed=s.seed)
        for record in summary:
            self.emit(record)
        self.emit(self.cost_record())
        return self.records

    def answer(self, questions: Sequence[Question]) -> list[Answer]:
        """Every examinee answers every question put to it, in one batch per examinee."""
        answers: list[Answer] = []
        for examinee in self.examinees:
            todo = []
            for q in questions:
                if q.examinee is not None and q.examinee != examinee.name:
                    continue
                own = q.examiner.name == examinee.name
                if own and (not self.settings.self_preference or q.depth > 0):
                    continue
                todo.append((q, not own))
            if not todo:
                continue
            batch = [prompts.answer_prompt(examinee.backend, q.text) for q, _ in todo]
            outputs = examinee.backend.generate(batch, self.settings.answer_tokens)
            for (q, counted), text in zip(todo, outputs, strict=True):
                text = (
                    text.strip() if examinee.backend.has_chat_template else cut_at_stop(text, ("\n\n", "\nQuestion:"))
                )
                answer = Answer(f"{q.id}:{examinee.name}", q, examinee, text, counted)
                answers.append(answer)
                self.emit(
                    {
                        "kind": "answer",
                        "id": answer.id,
                        "question": q.id,
                        "examinee": examinee.name,
                        "text": text,
                        "counted": counted,
                    }
                )
        return answers

    def grade(self, answers: Sequence[Answer]) -> None:
        """The question's examiner grades every answer; an examiner's answers to its own
        questions are graded by every examiner (self-preference), outside the scores."""
        for examiner in self.examiners:
            todo = [
                a
                for a in answers
                if a.question.examiner is examiner or (not a.counted and a.examinee.name != examiner.name)
            ]
            if not todo:
                continue
            batch = [
                prompts.grade_prompt(examiner.backend, a.question.text, a.question.reference, a.text) for a in todo
            ]
            outputs = examiner.backend.generate(batch, GRADE_TOKENS, json_schema=GRADE_SCHEMA)
            for a, text in zip(todo, outputs, strict=True):
                record = {"kind": "grade", "answer": a.id, "examiner": examiner.name, "counted": a.counted}
                try:
                    grade = parse_grade(text)
                except InvalidOutput as exc:
                    record.update(valid=False, error=str(exc), raw=text[:500])
                else:
                    a.grades[examiner.name] = grade
                    record.update(valid=True, **grade)
                self.emit(record)

    def follow_up(self, answers: Sequence[Answer]) -> None:
        """Up to ``follow_ups`` rounds: a counted answer its examiner graded correct gets
        a follow-up question, asked to that examinee alone, from the examiner who asked."""
        current = list(answers)
        for depth in range(1, self.settings.follow_ups + 1):
            correct = [
                a
                for a in current
                if a.counted
                and a.question.depth == depth - 1
                and a.grades.get(a.question.examiner.name, {}).get("accuracy") == CORRECT_ACCURACY
            ]
            if not correct:
                return
            questions = self.writer.follow_ups(correct, depth)
            for q in questions:
                self.emit(self._question_record(q))
            current = self.answer(questions)
            self.grade(current)

    def cost_record(self) -> dict:
        """The exam's cost record: what every participant's backend computed, and the totals."""
        models = {}
        for p in self.examiners + self.examinees:
            assert isinstance(p.backend, MeteredBackend)  # Participant.__post_init__ wraps every backend
            models[p.name] = p.backend.usage.to_dict()
        totals = {key: sum(m[key] for m in models.values()) for key in ("calls", "prompt_tokens", "generated_tokens")}
        totals["seconds"] = round(sum(m["seconds"] for m in models.values()), 3)
        return {
            "kind": "cost",
            "exam": self.exam_id,
            "models": models,
            "total": totals,
            "dropped_questions": self.writer.dropped,
            "wrong_language": self.writer.wrong_language,
        }


def run_exam(
    examiners: Sequence[Participant],
    examinees: Sequence[Participant],
    settings: ExamSettings,
    on_record: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Run one exam of ``examinees`` by ``examiners`` and return its records (each also passed to ``on_record``)."""
    return Exam(examiners, examinees, settings, on_record).run()
