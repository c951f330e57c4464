"""One exam, end to end: questions, answers, grades, follow-ups, rankings, summaries.

Every examiner writes ``questions`` questions over the taxonomy's domains, the three
levels in turn, sampled with a seed derived from the exam's seed and round (a new round
writes new questions); near-duplicates, unparseable outputs and questions not written in the
exam's language (``language_check``: offline identification) are written again, up to
``attempts`` times, then dropped; each question refused for its language is counted.
Each examinee other than the examiner answers each question from the
question alone. The examiner grades every answer (Likert, JSON constrained by the
backend) and ranks the answers to each question by merge sort, every pair judged in both
orders. For up to ``follow_ups`` rounds, an answer graded correct gets a follow-up
question from its examiner, shown to that examinee alone. When an examiner is also an
examinee it answers its own questions too, graded by itself and by the other examiners,
outside every score: that measures its self-preference.

Work is batched and ordered by model: one ``generate`` call per examiner or examinee per
step, and an examiner's merge sorts advance together and end before the next examiner's
(so a pool with one resident model loads each model a few times, not once per step).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from evaluation.backends.base import Backend, Sampling, cut_at_stop
from evaluation.errors import EvaluationError
from evaluation.examiner import prompts
from evaluation.examiner.dedup import is_near_duplicate
from evaluation.examiner.language_check import checks_language, in_language
from evaluation.examiner.merge_sort import Judgment, Ranking, comparison_bound, merge_sort_steps
from evaluation.examiner.metering import MeteredBackend
from evaluation.examiner.records import EXAM_FORMAT
from evaluation.examiner.schemas import (
    COMPARISON_SCHEMA,
    GRADE_SCHEMA,
    QUESTION_SCHEMA,
    InvalidOutput,
    WrittenQuestion,
    parse_comparison,
    parse_grade,
    parse_question,
)
from evaluation.examiner.taxonomy import LEVEL_NAMES, level, taxonomy
from evaluation.examiner.voting import CORRECT_ACCURACY, summarise

QUESTION_TOKENS = 256
GRADE_TOKENS = 64
COMPARISON_TOKENS = 12


@dataclass(frozen=True)
class ExamSettings:
    """What an exam asks: its language, questions per examiner, follow-ups, round, seed, levels and limits."""

    language: str
    questions: int = 6  # per examiner
    follow_ups: int = 1
    round: int = 1
    seed: int = 0
    levels: tuple[str, ...] = LEVEL_NAMES
    answer_tokens: int = 160
    attempts: int = 3  # tries per question slot (unparseable or near-duplicate output)
    self_preference: bool = True
    bootstrap: int = 1000
    earlier_questions: tuple[str, ...] = ()  # earlier rounds' questions: a new one must differ from them

    def __post_init__(self):
        if self.questions < 1:
            raise EvaluationError("an exam needs at least one question per examiner")
        if not 0 <= self.follow_ups <= 5:
            raise EvaluationError("follow-ups: 0 to 5 rounds")
        for name in self.levels:
            level(name)


@dataclass
class Participant:
    """A model taking part in an exam (as examiner or examinee), its backend metered."""

    name: str  # the model id
    backend: Backend
    revision: str = ""
    family: str = ""  # models of one family never count each other's answers (empty: itself)

    def __post_init__(self):
        if not isinstance(self.backend, MeteredBackend):
            self.backend = MeteredBackend(self.backend)

    def header(self) -> dict:
        """Its entry in the exam line."""
        return {"model": self.name, "revision": self.revision, **({"family": self.family} if self.family else {})}


@dataclass
class _Question:
    id: str
    examiner: Participant
    text: str
    reference: str
    domain: str
    domain_name: str
    level: str
    depth: int = 0
    parent: str | None = None
    examinee: str | None = None  # a follow-up is asked to one examinee


@dataclass
class _Answer:
    id: str
    question: _Question
    examinee: Participant
    text: str
    counted: bool
    grades: dict[str, dict] = field(default_factory=dict)  # examiner -> grade


class Exam:
    """One exam: examiners write questions, examinees answer, examiners grade and compare the answers."""

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
        self.taxonomy = taxonomy(settings.language)
        self.records: list[dict] = []
        self.on_record = on_record
        self.exam_id = f"{settings.language}-round{settings.round}-seed{settings.seed}"
        self.dropped: dict[str, int] = {}
        self.wrong_language: dict[str, int] = {}  # questions refused for not being in the exam's language
        self.written: list[str] = list(settings.earlier_questions)  # a new question must differ from these

    # --- output --------------------------------------------------------------------------------
    def emit(self, record: dict) -> None:
        """Keep a record and pass it to ``on_record``."""
        self.records.append(record)
        if self.on_record is not None:
            self.on_record(record)

    def _question_record(self, q: _Question) -> dict:
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

    def _foreign(self, examiner: Participant, text: str) -> bool:
        """Whether ``text`` is not in the exam's language; counted per examiner. Languages the
        check does not know are not checked."""
        language = self.settings.language
        if not checks_language(language) or in_language(text, language):
            return False
        self.wrong_language[examiner.name] = self.wrong_language.get(examiner.name, 0) + 1
        return True

    def _sampling(self, salt: int) -> Sampling:
        """Seeded sampling for writing questions: the exam's seed and round, and ``salt``
        (which examiner and attempt, or which follow-up depth)."""
        return Sampling(seed=(self.settings.seed * 1_000_003 + self.settings.round * 101 + salt) % 2**31)

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
                "taxonomy_version": self.taxonomy.version,
            }
        )
        questions = [q for examiner in self.examiners for q in self.write_questions(examiner)]
        for q in questions:
            self.emit(self._question_record(q))
        answers = self.answer(questions)
        self.grade(answers)
        self.rank(questions, answers)
        self.follow_up(answers)
        summary = summarise(self.records, bootstrap=s.bootstrap, seed=s.seed)
        for record in summary:
            self.emit(record)
        self.emit(self.cost_record())
        return self.records

    def write_questions(self, examiner: Participant) -> list[_Question]:
        """The questions ``examiner`` writes: one per slot, a domain and level each, retried when unparseable or a
        near duplicate."""
        s = self.settings
        index = self.examiners.index(examiner)
        plan = random.Random(f"{s.seed}:{s.round}:{examiner.name}")
        domains = list(self.taxonomy.domains)
        plan.shuffle(domains)
        slots = [(domains[k % len(domains)], level(s.levels[k % len(s.levels)])) for k in range(s.questions)]
        kept: dict[int, WrittenQuestion] = {}
        taken = list(self.written)
        for attempt in range(s.attempts):
            pending = [k for k in range(len(slots)) if k not in kept]
            if not pending:
                break
            # The prompt lists only this examiner's own questions: shown another examiner's or
            # an earlier round's, small models copy them (the filter below still refuses any
            # near-duplicate of those), and examiners write independently.
            own = [w.question for w in kept.values()]
            batch = [
                prompts.question_prompt(examiner.backend, self.taxonomy.language_name, *slots[k], own) for k in pending
            ]
            sampling = self._sampling(index * 7 + attempt)
            outputs = examiner.backend.generate(batch, QUESTION_TOKENS, json_schema=QUESTION_SCHEMA, sampling=sampling)
            for k, text in zip(pending, outputs, strict=True):
                try:
                    written = parse_question(text)
                except InvalidOutput:
                    continue
                others = taken + [w.question for w in kept.values()]
                if is_near_duplicate(written.question, others) or self._foreign(examiner, written.question):
                    continue
                kept[k] = written
        self.dropped[examiner.name] = len(slots) - len(kept)
        out = []
        for k in sorted(kept):
            domain, lvl = slots[k]
            out.append(
                _Question(
                    f"q{index + 1}-{k + 1}",
                    examiner,
                    kept[k].question,
                    kept[k].reference_answer,
                    domain.key,
                    domain.name,
                    lvl.name,
                )
            )
        self.written += [q.text for q in out]
        return out

    def answer(self, questions: Sequence[_Question]) -> list[_Answer]:
        """Every examinee answers every question put to it, in one batch per examinee."""
        answers: list[_Answer] = []
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
                answer = _Answer(f"{q.id}:{examinee.name}", q, examinee, text, counted)
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

    def grade(self, answers: Sequence[_Answer]) -> None:
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

    def rank(self, questions: Sequence[_Question], answers: Sequence[_Answer]) -> None:
        """Each main question's counted answers, ranked by its examiner; an examiner's
        merge sorts advance together, one batch of its pending comparisons per step."""
        by_question: dict[str, dict[str, _Answer]] = {}
        for answer in answers:
            if answer.counted and answer.question.depth == 0:
                by_question.setdefault(answer.question.id, {})[answer.examinee.name] = answer
        running = {}
        for q in questions:
            entries = by_question.get(q.id, {})
            if len(entries) < 2:
                continue
            steps = merge_sort_steps(sorted(entries))
            running[q.id] = (q, steps, next(steps))
        done: dict[str, Ranking] = {}
        for examiner in self.examiners:  # one examiner's sorts to the end, then the next's (one model resident)
            while True:
                mine = [(qid, state) for qid, state in running.items() if state[0].examiner is examiner]
                if not mine:
                    break
                batch = []
                for _, (q, _, (a, b)) in mine:
                    first, second = by_question[q.id][a].text, by_question[q.id][b].text
                    batch.append(prompts.comparison_prompt(examiner.backend, q.text, q.reference, first, second))
                    batch.append(prompts.comparison_prompt(examiner.backend, q.text, q.reference, second, first))
                outputs = examiner.backend.generate(batch, COMPARISON_TOKENS, json_schema=COMPARISON_SCHEMA)
                for k, (qid, (q, steps, (a, b))) in enumerate(mine):
                    judgment = Judgment.from_verdicts(
                        a, b, self._winner(outputs[2 * k], a, b), self._winner(outputs[2 * k + 1], b, a)
                    )
                    try:
                        running[qid] = (q, steps, steps.send(judgment))
                    except StopIteration as finished:
                        done[qid] = finished.value
                        del running[qid]
        for q in questions:
            ranking = done.get(q.id)
            if ranking is None:
                continue
            n = len(ranking.order)
            assert ranking.comparisons <= comparison_bound(n)
            self.emit(
                {
                    "kind": "ranking",
                    "question": q.id,
                    "examiner": q.examiner.name,
                    "order": ranking.order,
                    "tiers": ranking.tiers(),
                    "comparisons": ranking.comparisons,
                    "bound": comparison_bound(n),
                    "judgments": [j.to_dict() for j in ranking.judgments],
                }
            )

    @staticmethod
    def _winner(text: str, first: str, second: str) -> str:
        """The better one as the examiner judged; an unreadable verdict is ``"?"``,
        which never equals the other order's winner, so the pair ties."""
        try:
            return first if parse_comparison(text) == 1 else second
        except InvalidOutput:
            return "?"

    def follow_up(self, answers: Sequence[_Answer]) -> None:
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
            questions = self._write_follow_ups(correct, depth)
            for q in questions:
                self.emit(self._question_record(q))
            current = self.answer(questions)
            self.grade(current)

    def _write_follow_ups(self, correct: Sequence[_Answer], depth: int) -> list[_Question]:
        out: list[_Question] = []
        for examiner in self.examiners:
            mine = [a for a in correct if a.question.examiner is examiner]
            if not mine:
                continue
            batch = [
                prompts.follow_up_prompt(examiner.backend, self.taxonomy.language_name, a.question.text, a.text)
                for a in mine
            ]
            sampling = self._sampling(depth)
            outputs = examiner.backend.generate(batch, QUESTION_TOKENS, json_schema=QUESTION_SCHEMA, sampling=sampling)
            for a, text in zip(mine, outputs, strict=True):
                try:
                    written = parse_question(text)
                except InvalidOutput:
                    written = None
                if written is None or self._foreign(examiner, written.question):
                    self.dropped[examiner.name] = self.dropped.get(examiner.name, 0) + 1
                    continue
                parent = a.question
                out.append(
                    _Question(
                        f"{parent.id}.f{self.examinees.index(a.examinee) + 1}",
                        examiner,
                        written.question,
                        written.reference_answer,
                        parent.domain,
                        parent.domain_name,
                        parent.level,
                        depth=depth,
                        parent=parent.id,
                        examinee=a.examinee.name,
                    )
                )
        return out

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
            "dropped_questions": self.dropped,
            "wrong_language": self.wrong_language,
        }


def run_exam(
    examiners: Sequence[Participant],
    examinees: Sequence[Participant],
    settings: ExamSettings,
    on_record: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Run an exam and return its records (each also passed to ``on_record`` as it is written)."""
    return Exam(examiners, examinees, settings, on_record).run()
