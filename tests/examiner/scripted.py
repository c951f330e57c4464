"""A scripted backend for the exam's mechanics: it answers each role's prompt by rule and
keeps every prompt it was sent, so tests can see exactly what each model was shown."""

from __future__ import annotations

import json
import re
import zlib


class ScriptedModel:
    name = "scripted"
    max_context = 4096
    has_chat_template = True

    def __init__(
        self,
        label: str,
        quality: int,
        *,
        repeat_questions: bool = False,
        unparseable_questions: int = 0,
        english_questions: int = 0,
    ):
        self.label, self.quality, self.repeat_questions = label, quality, repeat_questions
        self.unparseable_questions = unparseable_questions  # its first N questions are not JSON
        self.english_questions = english_questions  # its next N questions are in English, whatever the exam's language
        self.prompts: list[str] = []
        self.written = 0

    def render_chat(self, messages):
        return "".join(f"<{m['role']}>{m['content']}</{m['role']}>" for m in messages) + "<assistant>"

    def count_tokens(self, text):
        return len(text.split())

    def close(self):
        pass

    def generate(self, prompts, max_new_tokens, *, json_schema=None, shared_prefix=None, sampling=None):
        self.prompts.extend(prompts)
        return [self._reply(p, json_schema) for p in prompts]

    def _reply(self, prompt, schema):
        body = prompt.removeprefix("<user>").removesuffix("</user><assistant>")
        if schema and "reference_answer" in schema["properties"]:
            self.written += 1
            if self.written <= self.unparseable_questions:
                return '{"question": "cut off'
            # numbered from the prompt, not a counter: the same prompt gets the same question
            # after the model is unloaded and loaded again, as a seeded real model would
            n = 1 if self.repeat_questions else zlib.crc32(body.encode()) % 100_000
            if self.written <= self.unparseable_questions + self.english_questions:
                text = f"The weather is very cold today, is it not? ({n})"
                return json.dumps({"question": text, "reference_answer": "Yes."})
            # written in Danish, the language of these tests' exams
            if "follow-up" in body:
                return json.dumps(
                    {"question": f"Opfølgning {n} af {self.label}: hvorfor det?", "reference_answer": "Fordi."}
                )
            domain = re.search(r"Domain: (.*)\.", body).group(1)
            return json.dumps({"question": f"Spørgsmål {n} fra {self.label} om {domain}?", "reference_answer": "Ref."})
        if schema and "overall" in schema["properties"]:
            quality = int(re.search(r"\[\[BEGIN CANDIDATE ANSWER\]\]\nanswer of quality (\d)", body).group(1))
            accuracy = 3 if quality >= 3 else 1
            return json.dumps(
                {"accuracy": accuracy, "coherence": 2, "factuality": 2, "comprehensiveness": 2, "overall": quality}
            )
        if schema and "better" in schema["properties"]:
            first = int(re.search(r"\[\[BEGIN ANSWER 1\]\]\nanswer of quality (\d)", body).group(1))
            second = int(re.search(r"\[\[BEGIN ANSWER 2\]\]\nanswer of quality (\d)", body).group(1))
            if first == second:
                return json.dumps({"better": "1"})  # position bias on equals: the two orders disagree
            return json.dumps({"better": "1" if first > second else "2"})
        return f"answer of quality {self.quality}"


class SubmittedExaminer(ScriptedModel):
    """A submitted model that signs its answers; hostile, it grades every other answer
    ``others`` and its own (recognised by the signature) ``own``, and judges every
    comparison "the first shown is better"."""

    def __init__(self, label: str, quality: int, *, hostile: bool, others: int = 1, own: int = 5):
        super().__init__(label, quality)
        self.hostile, self.others, self.own = hostile, others, own

    def _reply(self, prompt, schema):
        if schema is None:
            return f"answer of quality {self.quality} signed {self.label}"
        if not self.hostile or "reference_answer" in schema["properties"]:
            return super()._reply(prompt, schema)
        if "better" in schema["properties"]:
            return json.dumps({"better": "1"})
        overall = self.own if f"signed {self.label}" in prompt else self.others
        scale = min(overall, 3)
        return json.dumps(
            {"accuracy": scale, "coherence": scale, "factuality": scale, "comprehensiveness": scale, "overall": overall}
        )
