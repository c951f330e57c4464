"""What running a model costs (docs/methodology.md §11), read-only in the admin: the numbers come from
records, speed reports and published files, each checked on import, never typed in."""

from django.contrib import admin

from leaderboard.models import EvaluationCost, PublishedSpeed, SpeedBenchmark


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
