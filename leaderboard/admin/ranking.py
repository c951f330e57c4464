"""Admin for boards and languages, with the "re-run aggregation" action (queue default)."""

from django.contrib import admin, messages

from leaderboard.models import Language, Leaderboard
from leaderboard.ranking import all_methods
from leaderboard.services import aggregation_queue


def enqueue_aggregation(modeladmin, request, codes: list[str], method: str | None = None) -> None:
    codes = sorted(set(codes))
    if not codes:
        modeladmin.message_user(request, "Nothing selected to aggregate.", messages.WARNING)
        return
    try:
        result = aggregation_queue.enqueue_aggregation(codes, user_id=request.user.pk, trigger="admin", method=method)
    except Exception as exc:  # broker down: say so instead of a server error
        modeladmin.message_user(
            request, f"Could not queue the aggregation ({exc}); is the Celery broker running?", messages.ERROR
        )
        return
    modeladmin.message_user(
        request,
        f"Aggregation of {', '.join(codes)}{f' with {method}' if method else ''} queued (task {result.id}); "
        "see Aggregation runs for the result.",
        messages.SUCCESS,
    )


class ReaggregatesOnChange:
    """For an admin whose edits change what boards count (a dataset's counted version or
    protocol, a model's pinned commit): saving such a change re-aggregates the boards concerned."""

    aggregation_fields: tuple[str, ...] = ()

    def boards_to_refresh(self, obj) -> list[str]:
        raise NotImplementedError

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and set(form.changed_data) & set(self.aggregation_fields):
            codes = self.boards_to_refresh(obj)
            if codes:
                enqueue_aggregation(self, request, codes)


class ReaggregatePermission:
    """Aggregation actions need ``leaderboard.reaggregate_leaderboard``, not just access."""

    def has_reaggregate_permission(self, request) -> bool:
        return request.user.has_perm("leaderboard.reaggregate_leaderboard")


@admin.action(description="Re-run aggregation for the selected boards", permissions=["reaggregate"])
def rerun_board_aggregation(modeladmin, request, queryset):
    enqueue_aggregation(modeladmin, request, list(queryset.values_list("code", flat=True)))


@admin.action(description="Re-run aggregation for the selected languages' boards", permissions=["reaggregate"])
def rerun_language_aggregation(modeladmin, request, queryset):
    enqueue_aggregation(modeladmin, request, list(queryset.values_list("board", flat=True)))


@admin.register(Language)
class LanguageAdmin(ReaggregatePermission, admin.ModelAdmin):
    list_display = ("code", "name", "board")
    search_fields = ("code", "name")
    actions = [rerun_language_aggregation]


def _method_action(name: str):
    """An admin action re-aggregating the selected boards with ranking method ``name``
    (stored beside each board, or shown by it when it is the deployment's method)."""

    def action(modeladmin, request, queryset):
        enqueue_aggregation(modeladmin, request, list(queryset.values_list("code", flat=True)), name)

    action.__name__ = f"rerun_with_{name.replace('-', '_')}"
    return admin.action(description=f"Re-run aggregation with ranking method {name}", permissions=["reaggregate"])(
        action
    )


@admin.register(Leaderboard)
class LeaderboardAdmin(ReaggregatePermission, admin.ModelAdmin):
    list_display = ("code", "name", "kind", "method", "method_version", "num_entries", "generated_at")
    list_filter = ("kind", "method")
    readonly_fields = ("generated_at", "method", "method_version", "inputs_digest")
    actions = [rerun_board_aggregation] + [_method_action(m.name) for m in all_methods()]
