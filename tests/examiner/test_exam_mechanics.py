"""The exam's mechanics on scripted models: who answers what, follow-ups only after
correct answers, both orders of every comparison, near-duplicates written again."""

import pytest

from evaluation.errors import EvaluationError
from evaluation.examiner.exam import ExamSettings, Participant, run_exam
from evaluation.examiner.merge_sort import comparison_bound
from evaluation.examiner.records import read_exam
from evaluation.examiner.taxonomy import taxonomy

from .scripted import ScriptedModel


def participants():
    models = {name: ScriptedModel(name, q) for name, q in [("m/strong", 4), ("m/good", 3), ("m/weak", 1)]}
    return models, {name: Participant(name, backend) for name, backend in models.items()}


def run(models, people, examiners, examinees, **kw):
    settings = ExamSettings(language="da", questions=3, follow_ups=2, seed=5, bootstrap=100, **kw)
    return run_exam([people[m] for m in examiners], [people[m] for m in examinees], settings)


def kinds(records, kind):
    return [r for r in records if r["kind"] == kind]


def test_a_peer_exam_from_questions_to_summary():
    models, people = participants()
    names = list(people)
    records = run(models, people, names, names)
    questions = kinds(records, "question")
    main = [q for q in questions if q["depth"] == 0]
    assert len(main) == 9 and {q["level"] for q in main} == {"memorisation", "comprehension", "analysis"}
    danish = {d.name for d in taxonomy("da").domains}
    assert all(q["language"] == "da" and q["domain_name"] in danish for q in main)
    answers = {a["id"]: a for a in kinds(records, "answer")}
    grades = kinds(records, "grade")
    by_question = {q["id"]: q for q in questions}
    # never examined by itself: an examiner's own answers are uncounted, graded by everyone
    for a in answers.values():
        assert a["counted"] == (a["examinee"] != by_question[a["question"]]["examiner"])
    for g in grades:
        a = answers[g["answer"]]
        if g["counted"]:
            assert g["examiner"] == by_question[a["question"]]["examiner"] != a["examinee"]
    # follow-ups: only after an answer its examiner graded correct, asked to that examinee alone
    correct = {g["answer"] for g in grades if g["counted"] and g["accuracy"] == 3}
    follow = [q for q in questions if q["depth"] > 0]
    assert follow, "the strong and good models answer correctly, so follow-ups are asked"
    for q in follow:
        assert f"{q['parent']}:{q['examinee']}" in correct
        asked = [a for a in answers.values() if a["question"] == q["id"]]
        assert [a["examinee"] for a in asked] == [q["examinee"]]
        shown = [p for p in models[q["examinee"]].prompts if q["text"] in p]
        assert shown == [f"<user>{q['text']}</user><assistant>"]  # the follow-up alone, no history
    assert {q["examinee"] for q in follow} == {"m/strong", "m/good"}
    assert max(q["depth"] for q in follow) == 2
    # rankings: both orders of each pair, within the bound, the right order
    for r in kinds(records, "ranking"):
        n = len(r["order"])
        assert r["comparisons"] == len(r["judgments"]) <= comparison_bound(n)
        assert all({j["ab"], j["ba"]} <= set(j["pair"]) | {"?"} for j in r["judgments"])
    rankings = kinds(records, "ranking")
    assert len(rankings) == 9
    for r in rankings:
        expected = [m for m in names if m != r["examiner"]]  # names are listed best first
        assert r["order"] == expected
    summaries = {s["examinee"]: s for s in kinds(records, "summary")}
    assert [summaries[m]["rank"] for m in names] == [1, 2, 3]
    assert summaries["m/strong"]["overall"] == 4.0 and summaries["m/weak"]["overall"] == 1.0
    assert summaries["m/strong"]["overall_ci"] == [4.0, 4.0]
    assert summaries["m/strong"]["follow_ups"]["1"]["asked"] > 0
    # self-preference: every examiner grades its own answers as the peers do here
    assert all(s["self_preference"]["difference"] == 0.0 for s in summaries.values())
    agreement = kinds(records, "agreement")[0]
    assert len(agreement["pairs"]) == 3
    cost = kinds(records, "cost")[0]
    assert cost["total"]["calls"] == sum(len(m.prompts) for m in models.values())
    read_exam([__import__("json").dumps(r) for r in records])  # the document validates


def test_equal_answers_tie_because_the_two_orders_disagree():
    models = {name: ScriptedModel(name, 3) for name in ("m/x", "m/y", "m/z")}
    people = {name: Participant(name, b) for name, b in models.items()}
    records = run(models, people, ["m/x"], ["m/y", "m/z"], self_preference=False)
    for r in kinds(records, "ranking"):
        assert [j["outcome"] for j in r["judgments"]] == ["tie"] and r["tiers"] == [["m/y", "m/z"]]


def test_near_duplicate_questions_are_written_again_and_dropped_when_they_persist():
    models = {"m/rep": ScriptedModel("m/rep", 3, repeat_questions=True), "m/b": ScriptedModel("m/b", 2)}
    people = {name: Participant(name, b) for name, b in models.items()}
    records = run(models, people, ["m/rep"], ["m/b"])
    main = [q for q in kinds(records, "question") if q["depth"] == 0]
    # every slot of the repeating examiner says "Spørgsmål 1 fra m/rep om <domain>?": the
    # domains differ, so only the identical ones are near-duplicates
    texts = [q["text"] for q in main]
    assert len(texts) == len(set(texts))
    assert kinds(records, "cost")[0]["dropped_questions"]["m/rep"] == 3 - len(main)


def test_an_examiner_is_shown_only_its_own_questions_never_another_examiners_or_an_earlier_rounds():
    """Small models copy the questions a prompt lists (SmolLM2 wrote Gemma's question three
    times when shown it): examiners write independently, and only the filter compares."""
    models = {
        "m/good": ScriptedModel("m/good", 3),
        "m/cut": ScriptedModel("m/cut", 3, unparseable_questions=1),
        "m/b": ScriptedModel("m/b", 2),
    }
    people = {name: Participant(name, b) for name, b in models.items()}
    earlier = ("What did the earlier round ask about the Danish constitution?",)
    records = run(models, people, ["m/good", "m/cut"], ["m/b"], earlier_questions=earlier)
    main = [q for q in kinds(records, "question") if q["depth"] == 0]
    by_good = [q["text"] for q in main if q["examiner"] == "m/good"]
    by_cut = [q["text"] for q in main if q["examiner"] == "m/cut"]
    assert len(by_good) == len(by_cut) == 3
    writing = [p for p in models["m/cut"].prompts if "You are an examiner writing an exam" in p]
    retries = [p for p in writing if "Do not repeat" in p]
    assert len(writing) == 4 and len(retries) == 1, "its first question was cut off, so it is asked again"
    assert by_cut[1] in retries[0] and by_cut[2] in retries[0]  # its own questions are listed
    assert not any(text in p for p in writing for text in by_good + list(earlier))


def test_a_model_listed_twice_or_an_unknown_language_is_refused():
    models, people = participants()
    with pytest.raises(EvaluationError, match="twice"):
        run(models, people, ["m/good", "m/good"], ["m/weak"])
    with pytest.raises(EvaluationError, match="no exam taxonomy"):
        run_exam([people["m/good"]], [people["m/weak"]], ExamSettings(language="xx"))


def test_questions_of_earlier_rounds_are_not_asked_again():
    models = {"m/rep": ScriptedModel("m/rep", 3, repeat_questions=True), "m/b": ScriptedModel("m/b", 2)}
    people = {name: Participant(name, b) for name, b in models.items()}
    earlier = tuple(f"Spørgsmål 1 fra m/rep om {d.name}?" for d in taxonomy("da").domains)
    records = run(models, people, ["m/rep"], ["m/b"], earlier_questions=earlier)
    assert not [q for q in kinds(records, "question") if q["depth"] == 0]
    assert kinds(records, "cost")[0]["dropped_questions"]["m/rep"] == 3


def test_with_one_resident_model_the_exam_is_the_same_and_never_holds_two():
    from evaluation.examiner.residency import LazyBackend, ModelPool

    def exam_records(pool):
        loads = []
        people = {}
        for name, quality in [("m/strong", 4), ("m/good", 3), ("m/weak", 1)]:
            if pool is None:
                people[name] = Participant(name, ScriptedModel(name, quality))
            else:

                def load(name=name, quality=quality):
                    assert len([b for b in pool.resident.values() if b.loaded]) <= pool.limit
                    loads.append(name)
                    return ScriptedModel(name, quality)

                people[name] = Participant(name, LazyBackend(load, pool))
        names = list(people)
        settings = ExamSettings(language="da", questions=3, follow_ups=2, seed=5, bootstrap=100)
        records = run_exam([people[m] for m in names], [people[m] for m in names], settings)
        return [r for r in records if r["kind"] != "cost"], loads

    pool = ModelPool(1)
    lazy, loads = exam_records(pool)
    eager, _ = exam_records(None)
    assert lazy == eager
    assert sum(b.loaded for b in pool.resident.values()) <= 1
    # write, answer, grade, rank, then per follow-up round write/answer/grade: a bounded number of loads
    assert len(loads) <= 3 * 3 + 3 + 2 * 3 * 3


def test_a_question_not_in_the_exams_language_is_written_again_then_dropped_and_counted():
    """Real lingua (offline): an English question in a Danish exam is refused; the examiner
    writes it again (here in Danish, on its next try) or, when it keeps writing English, it
    is dropped; every refusal is counted per examiner in the cost line."""
    models = {
        "m/once": ScriptedModel("m/once", 3, english_questions=1),
        "m/always": ScriptedModel("m/always", 3, english_questions=100),
        "m/b": ScriptedModel("m/b", 2),
    }
    people = {name: Participant(name, b) for name, b in models.items()}
    records = run(models, people, ["m/once", "m/always"], ["m/b"])
    main = [q for q in kinds(records, "question") if q["depth"] == 0]
    assert len([q for q in main if q["examiner"] == "m/once"]) == 3  # its English question was written again
    assert not [q for q in main if q["examiner"] == "m/always"]
    assert not [q for q in main if "weather" in q["text"]]
    cost = kinds(records, "cost")[0]
    assert cost["wrong_language"] == {"m/once": 1, "m/always": 3 * 3}  # 3 slots × 3 tries
    assert cost["dropped_questions"] == {"m/once": 0, "m/always": 3}


def test_language_check_tells_a_danish_question_from_an_english_one():
    from evaluation.examiner.language_check import in_language

    assert in_language("Hvorfor er himlen blå om dagen?", "da")
    assert not in_language("The weather is very cold.", "da")
    assert in_language("The weather is very cold.", "en")
    assert in_language("Hva er hovedstaden i Norge?", "no")
