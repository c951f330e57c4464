"""The Examiner board says in words what a round can tell: examiners that agree on nothing,
grades that barely vary, questions refused for their language, and small examiners (with
how to register a capable one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from leaderboard.models import LanguageModel
from leaderboard.services.exam_import import import_exam

from .test_examiner_page import imported

DEMO_EXAM = Path(__file__).resolve().parents[2] / "data" / "exams" / "da-round1.jsonl"


def verdict(client) -> BeautifulSoup | None:
    response = client.get("/examiner/da/")
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser").select_one("#exam-verdict")


@pytest.mark.django_db
def test_the_demo_round_says_its_examiners_agree_on_nothing_refused_questions_and_are_small(client):
    import_exam(DEMO_EXAM.read_bytes())
    LanguageModel.objects.update_or_create(
        model_id="HuggingFaceTB/SmolLM2-135M-Instruct", defaults={"num_parameters": 134_515_008}
    )
    LanguageModel.objects.update_or_create(model_id="google/gemma-3-270m", defaults={"num_parameters": 268_098_176})
    section = verdict(client)
    text = " ".join(section.get_text(" ").split())
    assert "agree on nothing" in text and "not defined for any pair" in text
    # Written again on 2026-11-26 with the language check: 19 questions refused for not being
    # Danish, 7 of the 8 dropped after their tries, so one examinee alone is graded.
    assert "19 questions written in another language than Danish were refused" in text
    assert "HuggingFaceTB/SmolLM2-135M-Instruct 7, google/gemma-3-270m 12" in text
    assert "before questions were checked" not in text
    small = section.select_one("#small-examiners").get_text(" ")
    assert "HuggingFaceTB/SmolLM2-135M-Instruct, 135M parameters" in small and "google/gemma-3-270m, 268M" in small
    assert "openai:https://HOST/v1" in small and "GLOSSA_EXAMINER_HOSTS" in small


@pytest.mark.django_db
def test_a_round_whose_grades_vary_says_nothing_of_the_kind(client):
    imported(4)  # scripted examinees of qualities 1-4, Danish questions, checked for their language
    section = verdict(client)
    text = " ".join(section.get_text(" ").split()) if section else ""
    assert "barely vary" not in text and "before questions were checked" not in text
    assert "small models" not in text  # the scripted examiners have no known size


@pytest.mark.django_db
def test_questions_refused_for_their_language_are_counted_on_the_board(client):
    import json

    from evaluation.examiner.exam import ExamSettings, Participant, run_exam

    from .scripted import ScriptedModel

    people = [
        Participant("m/en", ScriptedModel("m/en", 3, english_questions=2)),
        Participant("m/b", ScriptedModel("m/b", 2)),
        Participant("m/c", ScriptedModel("m/c", 4)),
    ]
    records = run_exam(people[:2], people, ExamSettings(language="da", questions=3, follow_ups=0, bootstrap=30))
    import_exam("\n".join(json.dumps(r) for r in records).encode())
    text = " ".join(verdict(client).get_text(" ").split())
    assert "2 questions written in another language than Danish were refused and written again (m/en 2)" in text
