"""Every language's prompts are written in that language, as an offline language identifier
(lingua, the examiner's) reads them: in each prompt style, the texts of every task together
are most likely the language itself, or a language it is mutually intelligible with and
written almost alike (Bosnian, Croatian and Serbian). This catches a file written in the
wrong language, or left half in English or in a neighbour's words; it says nothing of grammar
or naturalness, which only a reader of the language can check (none has, see README).

lingua has no model for Faroese or Luxembourgish: their files are checked by nobody, and the
test fails once lingua knows them, so that they are checked from then on."""

from __future__ import annotations

import re
from functools import cache

import pytest

from evaluation.prompt_languages import TABLE

UNKNOWN_TO_LINGUA = {"fo", "lb"}
WRITTEN_ALIKE = {"bs": {"hr", "sr"}, "hr": {"bs", "sr"}, "sr": {"bs", "hr"}}
STYLES = {"base": ("prefix", "doc", "label"), "instruction-tuned": ("instruction",)}
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


@cache
def detector():
    from lingua import LanguageDetectorBuilder

    return LanguageDetectorBuilder.from_all_languages().build()


def lingua_language(code: str):
    from lingua import IsoCode639_1, Language

    return Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper()))


def style_text(code: str, fields: tuple[str, ...]) -> str:
    """The texts of every task of ``code`` in one style, placeholders removed."""
    entry = TABLE[code]
    texts = [
        PLACEHOLDER.sub("", value.get(field, ""))
        for value in entry.values()
        if isinstance(value, dict) and "prefix" in value
        for field in fields
    ]
    return " ".join(texts)


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("code", sorted(set(TABLE) - UNKNOWN_TO_LINGUA))
def test_every_styles_prompts_read_as_their_language(code, style):
    text = style_text(code, STYLES[style])
    assert len(text) > 200, (code, style, text)
    top = detector().compute_language_confidence_values(text)[0].language
    allowed = {lingua_language(other) for other in {code, *WRITTEN_ALIKE.get(code, ())}}
    assert top in allowed, f"{code} {style} prompts read as {top.name}"


def test_a_prompt_file_in_another_language_is_caught():
    """The check can fail: Czech's texts under Slovak's code, and Danish's under Bokmål's."""
    for code, other in (("sk", "cs"), ("nb", "da")):
        text = style_text(other, STYLES["instruction-tuned"])
        top = detector().compute_language_confidence_values(text)[0].language
        assert top != lingua_language(code), (code, other)


@pytest.mark.parametrize("code", sorted(UNKNOWN_TO_LINGUA))
def test_the_languages_lingua_cannot_identify_are_still_unknown_to_it(code):
    from lingua import IsoCode639_1

    assert not hasattr(IsoCode639_1, code.upper()), f"lingua now knows {code}: check its prompts here"
