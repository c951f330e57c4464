"""Questions written by an exam's examiners.

Every examiner writes ``questions`` main questions over the taxonomy's domains, the three
levels in turn, sampled with a seed derived from the exam's seed and round (a new round
writes new questions); near-duplicates, unparseable outputs and questions not written in the
exam's language (``language_check``: offline identification) are written again, up to
``attempts`` times, then dropped; each question refused for its language is counted. A
follow-up question is written by the examiner who asked, for one answer it graded correct.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from evaluation.backends.base import Sampling
from evaluation.examiner import prompts
from evaluation.examiner.dedup import is_near_duplicate
from evaluation.examiner.exam_types import Answer, ExamSettings, Participant, Question
from evaluation.examiner.language_check import checks_language, in_language
from evaluation.examiner.schemas import QUESTION_SCHEMA, InvalidOutput, WrittenQuestion, parse_question
from evaluation.examiner.taxonomy import level, taxonomy

QUESTION_TOKENS = 256


class QuestionWriter:
    """Writes an exam's questions and counts, per examiner, the questions it dropped
    (``dropped``) and those refused for not being in the exam's language (``wrong_language``)."""

    def __init__(self, settings: ExamSettings, examiners: Sequence[Participant], examinees: Sequence[Participant]):
        self.settings = settings
        self.examiners, self.examinees = list(examiners), list(examinees)
        self.taxonomy = taxonomy(settings.language)
        self.dropped: dict[str, int] = {}
        self.wrong_language: dict[str, int] = {}  # questions refused for not being in the exam's language
        self.written: list[str] = list(settings.earlier_questions)  # a new question must differ from these

    def main_questions(self, examiner: Participant) -> list[Question]:
        """The examiner's main questions, one per kept slot (domain, level), ids ``q<examiner>-<slot>``."""
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
                Question(
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

    def follow_ups(self, correct: Sequence[Answer], depth: int) -> list[Question]:
        """A follow-up question at ``depth`` for each answer in ``correct``, written by the
        examiner who asked and put to that examinee alone; one that fails is dropped."""
        out: list[Question] = []
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
                    Question(
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
