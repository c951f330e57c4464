"""What running a model costs (docs/methodology.md §11), read-only in the admin: the numbers come from
records, speed reports and published files, each checked on import, never typed in. Speed
jobs (queued from the submissions' admin) can be cancelled and re-queued here."""

from django.contrib import admin, messages

from leaderboard.models import EvaluationCost, PublishedSpeed, SpeedBenchmark, SpeedJob
from leaderboard.services import speed_jobs


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(EvaluationCost)
class EvaluationCostAdmin(ReadOnly):
    list_display = ("evaluation", "hardware_class", "backend", "prompt_tokens_per_second", "latency_median_ms")
    list_filter = ("device", "backend")
    search_fields = ("evaluation__model__model_id", "hardware_class")


@admin.register(SpeedBenchmark)
class SpeedBenchmarkAdmin(ReadOnly):
    list_display = ("model", "commit_sha", "hardware_class", "backend", "measured_at", "submission")
    list_filter = ("device", "backend")
    search_fields = ("model__model_id", "hardware_class")


@admin.register(PublishedSpeed)
class PublishedSpeedAdmin(ReadOnly):
    list_display = ("model", "protocol", "source")
    list_filter = ("protocol",)
    search_fields = ("model__model_id",)


@admin.register(SpeedJob)
class SpeedJobAdmin(ReadOnly):
    """GPU time, like a submission's: cancelled and re-queued by whoever may do so to a submission."""

    list_display = ("id", "model", "commit_sha", "status", "attempts", "submission", "benchmark", "created_at")
    list_filter = ("status", "backend")
    search_fields = ("model__model_id",)
    actions = ["requeue_jobs", "cancel_jobs"]

    def has_requeue_permission(self, request) -> bool:
        return request.user.has_perm("leaderboard.requeue_submission")

    def has_cancel_permission(self, request) -> bool:
        return request.user.has_perm("leaderboard.cancel_submission")

    @admin.action(description="Cancel the selected pending or running speed jobs", permissions=["cancel"])
    def cancel_jobs(self, request, queryset):
        done = sum(speed_jobs.cancel(job) for job in queryset)
        self.message_user(request, f"Cancelled {done} speed job(s).", messages.SUCCESS if done else messages.WARNING)

    @admin.action(description="Re-queue the selected failed or cancelled speed jobs", permissions=["requeue"])
    def requeue_jobs(self, request, queryset):
        done = sum(speed_jobs.requeue(job) for job in queryset)
        self.message_user(request, f"Re-queued {done} speed job(s).", messages.SUCCESS if done else messages.WARNING)
