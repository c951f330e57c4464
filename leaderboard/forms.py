"""The submission form: a Hugging Face model id, a revision, the variant, optionally languages.

The form checks what it can alone (the id's shape, by the Hub's rules). Whether the
model exists is the service's question (:mod:`leaderboard.services.submissions`).
"""

from __future__ import annotations

import re

from django import forms
from django.core.exceptions import ValidationError

MAX_SEGMENT = 96  # the Hub's limit on a repository (and organisation) name
_SEGMENT_RE = re.compile(r"^[A-Za-z0-9._-]+$")
_REVISION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$")

VARIANT_CHOICES = [("few", "Few-shot (default)"), ("zero", "Zero-shot")]


def model_id_problem(value: str) -> str | None:
    """Why ``value`` is not a Hub model id (``org/name``), or None when it is one."""
    if value.count("/") != 1:
        return "Write the model id as organisation/name, for example google/gemma-3-270m."
    for label, segment in zip(("organisation", "name"), value.split("/")):
        if not segment:
            return f"The {label} part of the model id is empty."
        if len(segment) > MAX_SEGMENT:
            return f"The {label} part of the model id is longer than {MAX_SEGMENT} characters."
        if not _SEGMENT_RE.match(segment):
            return f"The {label} part of the model id may only contain letters, digits, '.', '_' and '-'."
        if segment[0] in "-." or segment[-1] in "-.":
            return f"The {label} part of the model id may not start or end with '-' or '.'."
        if "--" in segment or ".." in segment:
            return f"The {label} part of the model id may not contain '--' or '..'."
    return None


def validate_model_id(value: str) -> None:
    problem = model_id_problem(value)
    if problem:
        raise ValidationError(problem, code="invalid_model_id")


class SubmissionForm(forms.Form):
    model_id = forms.CharField(
        label="Hugging Face model id",
        max_length=2 * MAX_SEGMENT + 1,
        validators=[validate_model_id],
        widget=forms.TextInput(
            attrs={"placeholder": "organisation/name", "autocomplete": "off", "spellcheck": "false"}
        ),
    )
    revision = forms.CharField(
        label="Revision",
        max_length=100,
        initial="main",
        required=False,
        help_text="The default branch (main), a tag or a commit sha; pinned to its commit. "
        "Pull requests and other branches are refused.",
    )
    few_shot = forms.TypedChoiceField(
        label="Variant",
        choices=VARIANT_CHOICES,
        initial="few",
        coerce=lambda value: value == "few",
        empty_value=True,
        required=False,
    )
    languages = forms.MultipleChoiceField(
        label="Languages",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Leave empty to evaluate every leaderboard of the model's languages.",
    )
    examine = forms.BooleanField(
        label="Also take the examiner exam",
        required=False,
        help_text="Language models as examiners write open questions in each chosen language, grade the answers "
        "and rank them against other models (a separate Examiner board; the rank score does not change).",
    )

    def __init__(self, *args, board_choices: list[tuple[str, str]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["languages"].choices = board_choices or []

    def clean_model_id(self) -> str:
        return self.cleaned_data["model_id"].strip()

    def clean_revision(self) -> str:
        revision = (self.cleaned_data.get("revision") or "").strip() or "main"
        if not _REVISION_RE.match(revision) or ".." in revision:
            raise ValidationError(
                "A revision is the default branch, a tag or a commit: letters, digits, '.', '_', '-' and '/'.",
                code="invalid_revision",
            )
        return revision
