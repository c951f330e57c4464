"""Models in the admin: the commit the boards show (pin) and remote-code grants per commit.

A grant lets one model's own Python code (``trust_remote_code``) run at exactly one commit;
the admin who grants it is recorded automatically. A pinned commit makes the boards show that
commit's evaluations instead of the newest evaluated one (aggregation reads it).
"""

from django import forms
from django.contrib import admin

from evaluation.revisions import FULL_SHA, is_commit_id
from leaderboard.admin.ranking import ReaggregatesOnChange
from leaderboard.models import LanguageModel, RemoteCodeGrant
from leaderboard.services.model_metadata import TypeSource, claim_type

PIN_HELP = (
    "The commit whose evaluations the boards show: a full 40-character sha (or a bundled model's "
    "'bundled:<package>==<version>'). Empty: the newest finished evaluation of the default branch. "
    "The model page lists every evaluated commit."
)
GRANT_HELP = "The full 40-character commit sha whose own code may run. Another commit needs its own grant."


def clean_full_sha(value: str) -> str:
    value = (value or "").strip().lower()
    if not FULL_SHA.match(value):
        raise forms.ValidationError("Write the full 40-character commit sha (a grant is for exactly one commit).")
    return value


class RemoteCodeGrantForm(forms.ModelForm):
    class Meta:
        model = RemoteCodeGrant
        fields = ("model", "commit_sha", "reason")
        help_texts = {"commit_sha": GRANT_HELP}

    def clean_commit_sha(self) -> str:
        return clean_full_sha(self.cleaned_data.get("commit_sha"))


class LanguageModelForm(forms.ModelForm):
    class Meta:
        model = LanguageModel
        fields = "__all__"
        help_texts = {"pinned_commit": PIN_HELP}

    def clean_pinned_commit(self) -> str:
        value = (self.cleaned_data.get("pinned_commit") or "").strip()
        value = value.lower() if FULL_SHA.match(value.lower()) else value
        if value and not is_commit_id(value):
            raise forms.ValidationError(
                "Write a full 40-character commit sha, a bundled model's "
                "'bundled:<package>==<version>', or leave it empty."
            )
        return value


class RemoteCodeGrantInline(admin.TabularInline):
    model = RemoteCodeGrant
    form = RemoteCodeGrantForm
    fields = ("commit_sha", "reason", "granted_by", "granted_at")
    readonly_fields = ("granted_by", "granted_at")
    extra = 0


class TypeDisagreementFilter(admin.SimpleListFilter):
    """Models whose sources disagree on their type (config, records, boards, the fine-tuning
    guess; ``services/model_metadata.py``): a person should look at them."""

    title = "sources disagree on the type"
    parameter_name = "type_disagreement"

    def lookups(self, request, model_admin):
        return [("yes", "Yes")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(metadata__type_disagreement=True)
        return queryset


@admin.register(LanguageModel)
class LanguageModelAdmin(ReaggregatesOnChange, admin.ModelAdmin):
    form = LanguageModelForm
    aggregation_fields = ("pinned_commit",)
    list_display = ("model_id", "model_type", "num_parameters", "precision", "pinned_commit")
    list_filter = ("model_type", TypeDisagreementFilter)

    def save_model(self, request, obj, form, change):
        if "model_type" in form.changed_data:  # a person's choice: no source replaces it
            claim_type(obj, obj.model_type, TypeSource.ADMIN)
        super().save_model(request, obj, form, change)

    search_fields = ("model_id",)
    inlines = [RemoteCodeGrantInline]

    def boards_to_refresh(self, obj) -> list[str]:
        return sorted(set(obj.leaderboard_entries.values_list("leaderboard_id", flat=True)))

    def save_formset(self, request, form, formset, change):
        grants = formset.save(commit=False)
        for grant in grants:
            if isinstance(grant, RemoteCodeGrant) and grant.granted_by_id is None:
                grant.granted_by = request.user
            grant.save()
        for removed in formset.deleted_objects:
            removed.delete()
        formset.save_m2m()


@admin.register(RemoteCodeGrant)
class RemoteCodeGrantAdmin(admin.ModelAdmin):
    form = RemoteCodeGrantForm
    list_display = ("model", "commit_sha", "granted_by", "granted_at", "reason")
    search_fields = ("model__model_id", "commit_sha")
    raw_id_fields = ("model",)
    readonly_fields = ("granted_by", "granted_at")

    def save_model(self, request, obj, form, change):
        if obj.granted_by_id is None:
            obj.granted_by = request.user
        super().save_model(request, obj, form, change)
