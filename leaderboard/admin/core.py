from django.contrib import admin
from django.utils import timezone

from leaderboard.admin.datasets import DatasetAdminForm, DatasetVersionInline
from leaderboard.admin.ranking import ReaggregatesOnChange
from leaderboard.models import (
    AggregationRun,
    Dataset,
    Evaluation,
    IterationScore,
    LanguageGroup,
    LeaderboardEntry,
)
from leaderboard.registry.dataset_plan import boards_of_datasets


@admin.register(LanguageGroup)
class LanguageGroupAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "boards")


@admin.register(Dataset)
class DatasetAdmin(ReaggregatesOnChange, admin.ModelAdmin):
    form = DatasetAdminForm
    aggregation_fields = ("board_version", "board_protocol", "counts_toward_leaderboard", "in_suite")
    inlines = [DatasetVersionInline]
    list_display = ("name", "task", "counts_toward_leaderboard", "board_version", "board_protocol", "origin")
    list_select_related = ("board_version__dataset",)
    list_filter = ("task", "counts_toward_leaderboard", "origin", "languages")
    list_editable = ("counts_toward_leaderboard",)
    search_fields = ("name", "description")
    filter_horizontal = ("languages",)

    def boards_to_refresh(self, obj) -> list[str]:
        return sorted(obj.boards())


class IterationScoreInline(admin.TabularInline):
    model = IterationScore
    extra = 0
    readonly_fields = ("iteration", "metric", "value")
    can_delete = False


@admin.register(Evaluation)
class EvaluationAdmin(ReaggregatesOnChange, admin.ModelAdmin):
    """An evaluation's result; writing ``invalidated_reason`` takes it out of every board
    (who and when are recorded, the change is in the admin's history) and re-aggregates."""

    aggregation_fields = ("invalidated_reason",)
    list_display = (
        "model",
        "dataset",
        "few_shot",
        "validation_split",
        "num_iterations",
        "source",
        "invalidated",
        "updated_at",
    )
    list_filter = ("few_shot", "validation_split", "dataset__task", "dataset")
    search_fields = ("model__model_id", "dataset__name")
    raw_id_fields = ("model", "dataset", "submission")
    readonly_fields = ("invalidated_by", "invalidated_at")
    inlines = [IterationScoreInline]

    @admin.display(boolean=True, description="invalidated")
    def invalidated(self, obj) -> bool:
        return bool(obj.invalidated_reason)

    def save_model(self, request, obj, form, change):
        if "invalidated_reason" in form.changed_data:
            obj.invalidated_reason = obj.invalidated_reason.strip()
            obj.invalidated_by = request.user.get_username() if obj.invalidated_reason else ""
            obj.invalidated_at = timezone.now() if obj.invalidated_reason else None
        super().save_model(request, obj, form, change)

    def boards_to_refresh(self, obj) -> list[str]:
        return boards_of_datasets([obj.dataset.name])


@admin.register(IterationScore)
class IterationScoreAdmin(admin.ModelAdmin):
    list_display = ("evaluation", "iteration", "metric", "value")
    list_filter = ("metric",)
    raw_id_fields = ("evaluation",)


@admin.register(LeaderboardEntry)
class LeaderboardEntryAdmin(admin.ModelAdmin):
    list_display = ("leaderboard", "position", "model", "few_shot", "validation_split", "rank", "rank_score")
    list_filter = ("leaderboard",)
    raw_id_fields = ("model",)


@admin.register(AggregationRun)
class AggregationRunAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "boards",
        "trigger",
        "triggered_by",
        "status",
        "started_at",
        "duration_seconds",
        "entries_changed",
    )
    readonly_fields = [f.name for f in AggregationRun._meta.fields]
