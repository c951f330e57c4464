"""What an exam round can and cannot tell, in words, for the top of its Examiner board.

A board of numbers looks equally sure of itself whether its examiners agreed or not; this
says when they did not (no measurable or a weak Kendall τ between their orders), when
their grades barely vary (every mean overall grade within ``FLAT_SPREAD`` of the others'),
how many questions an examiner wrote in another language (refused and written again), and
when every examiner is a small model, how to register a capable one.
"""

from __future__ import annotations

from leaderboard.models import Exam, LanguageModel
from leaderboard.selectors.formatting import format_count

WEAK_TAU = 0.2  # |τ| below this for every pair: the examiners' orders share (almost) nothing
FLAT_SPREAD = 0.25  # overall grades are on 1-5: a quarter point between the best and worst mean
SMALL_EXAMINER = 1_000_000_000  # parameters: below this a model rarely writes or grades exam questions well


def _agreement(exam: Exam) -> str:
    pairs = (exam.agreement or {}).get("pairs") or []
    if not pairs:
        return ""
    taus = [p.get("tau") for p in pairs if isinstance(p.get("tau"), int | float)]
    if not taus:
        return (
            "Its examiners agree on nothing that can be measured: no two of them graded two or more "
            "of the same examinees, so Kendall's τ between their orders is not defined for any pair."
        )
    if all(abs(t) < WEAK_TAU for t in taus):
        return (
            f"Its examiners barely agree: Kendall's τ between their orders of the examinees is below "
            f"{WEAK_TAU} for every pair (from {min(taus):.2f} to {max(taus):.2f}), so the order below is "
            "mostly one examiner's word against another's."
        )
    return ""


def _spread(rows: list[dict]) -> str:
    overall = [row["summary"].get("overall") for row in rows if row["summary"].get("questions")]
    overall = [v for v in overall if isinstance(v, int | float)]
    if len(overall) < 2:
        return ""
    low, high = min(overall), max(overall)
    if high - low >= FLAT_SPREAD:
        return ""
    return (
        f"Its grades barely vary: every examinee's mean overall grade lies between {low:.2f} and {high:.2f} "
        "on the 1-5 scale, so the examiners tell nobody apart and the ranks below are ties in all but name."
    )


def _wrong_language(exam: Exam, language_name: str) -> str:
    counts = (exam.cost or {}).get("wrong_language")
    if counts is None:
        return (
            f"This round was written before questions were checked for their language: some of its "
            f"questions may not be in {language_name}."
        )
    total = sum(counts.values())
    if not total:
        return ""
    each = ", ".join(f"{model} {n}" for model, n in sorted(counts.items()) if n)
    return (
        f"{total} question{'s' if total != 1 else ''} written in another language than {language_name} "
        f"{'were' if total != 1 else 'was'} refused and written again ({each}); a question still not in "
        f"{language_name} after its tries was dropped."
    )


def _examiners(names: list[str]) -> list[dict]:
    sizes = dict(LanguageModel.objects.filter(model_id__in=names).values_list("model_id", "num_parameters"))
    return [{"model": name, "parameters": sizes.get(name), "size": format_count(sizes.get(name))} for name in names]


def exam_verdict(exam: Exam, rows: list[dict], examiners: list[str], language_name: str) -> dict:
    """``warnings``: sentences for the top of the board (empty when nothing is amiss);
    ``small``: the examiners, when every one is a model under ``SMALL_EXAMINER`` parameters."""
    warnings = [text for text in (_agreement(exam), _spread(rows), _wrong_language(exam, language_name)) if text]
    people = _examiners(examiners)
    small = bool(people) and all(p["parameters"] and p["parameters"] < SMALL_EXAMINER for p in people)
    return {"warnings": warnings, "small": people if small else []}
