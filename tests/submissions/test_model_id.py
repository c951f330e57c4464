"""The model id's shape, by the Hugging Face Hub's rules."""

import pytest

from leaderboard.forms import SubmissionForm, model_id_problem


@pytest.mark.parametrize(
    "model_id",
    ["google/gemma-3-270m", "HuggingFaceTB/SmolLM2-135M-Instruct", "a/b", "org_1/name.v2_final", "o/" + "x" * 96],
)
def test_valid_ids(model_id):
    assert model_id_problem(model_id) is None


@pytest.mark.parametrize(
    ("model_id", "says"),
    [
        ("<script>alert(1)</script>", "only contain letters"),
        ("gemma-3-270m", "organisation/name"),
        ("a/b/c", "organisation/name"),
        ("/name", "organisation part of the model id is empty"),
        ("org/", "name part of the model id is empty"),
        ("-org/name", "may not start or end"),
        ("org/name-", "may not start or end"),
        ("org/.name", "may not start or end"),
        ("org/name.", "may not start or end"),
        ("org/na--me", "'--' or '..'"),
        ("org/na..me", "'--' or '..'"),
        ("org/na me", "only contain letters"),
        ("org/naïve", "only contain letters"),
        ("o/" + "x" * 97, "longer than 96"),
    ],
)
def test_invalid_ids_say_why(model_id, says):
    problem = model_id_problem(model_id)
    assert problem is not None and says in problem


def test_form_defaults_to_main_and_few_shot():
    form = SubmissionForm({"model_id": " google/gemma-3-270m "}, board_choices=[("da", "Danish (da)")])
    assert form.is_valid(), form.errors
    assert form.cleaned_data == {
        "model_id": "google/gemma-3-270m",
        "revision": "main",
        "few_shot": True,
        "languages": [],
        "examine": False,  # the examiner exam is opt-in
    }


def test_form_zero_shot_and_languages():
    form = SubmissionForm(
        {"model_id": "a/b", "revision": "v1.0", "few_shot": "zero", "languages": ["da"]},
        board_choices=[("da", "Danish (da)")],
    )
    assert form.is_valid(), form.errors
    assert form.cleaned_data["few_shot"] is False and form.cleaned_data["languages"] == ["da"]


@pytest.mark.parametrize("revision", ["../etc", "a b", "-x", "x" * 101])
def test_form_rejects_bad_revisions(revision):
    form = SubmissionForm({"model_id": "a/b", "revision": revision}, board_choices=[])
    assert not form.is_valid() and "revision" in form.errors


def test_form_rejects_unknown_language():
    form = SubmissionForm({"model_id": "a/b", "languages": ["xx"]}, board_choices=[("da", "Danish (da)")])
    assert not form.is_valid() and "languages" in form.errors
