"""Language models as examiners in the admin (docs/methodology.md §8): register examiners, start an
exam round in their languages, re-queue a failed run, recompute an exam's scores."""

from django.contrib import admin, messages
from django.db import transaction

from leaderboard.models import Exam, Examiner, ExamRun, ExamRunStatus
from leaderboard.services import exam_import, exam_runs


@admin.register(Examiner)
class ExaminerAdmin(admin.ModelAdmin):
    list_display = ("model_id", "backend", "languages", "enabled", "api_key_env", "created_at")
    list_filter = ("enabled",)
    search_fields = ("model_id",)
    actions = ["start_rounds"]

    def has_start_permission(self, request) -> bool:
        return request.user.has_perm("leaderboard.start_exam_run")

    @admin.action(
        description="Start a new exam round in each language of the selected examiners", permissions=["start"]
    )
    def start_rounds(self, request, queryset):
        languages = sorted({code for examiner in queryset for code in examiner.languages})
        if not languages:
            self.message_user(
                request, "The selected examiners name no language: set their languages first.", messages.WARNING
            )
            return
        for language in languages:
            try:
                with transaction.atomic():
                    run = exam_runs.start_exam_run(language)
            except exam_runs.ExamNotStarted as exc:
                self.message_user(request, f"{language}: {exc}", messages.WARNING)
            else:
                self.message_user(request, f"{language}: round {run.round} queued.", messages.SUCCESS)


@admin.register(ExamRun)
class ExamRunAdmin(admin.ModelAdmin):
    list_display = ("id", "language", "round", "status", "stage", "attempts", "submission", "created_at")
    list_filter = ("status", "language")
    readonly_fields = [f.name for f in ExamRun._meta.fields]
    actions = ["requeue_runs", "cancel_runs"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_requeue_permission(self, request) -> bool:
        return request.user.has_perm("leaderboard.requeue_exam_run")

    def has_cancel_permission(self, request) -> bool:
        return request.user.has_perm("leaderboard.cancel_exam_run")

    @admin.action(description="Cancel the selected pending or running exam runs", permissions=["cancel"])
    def cancel_runs(self, request, queryset):
        done = sum(exam_runs.cancel(run) for run in queryset)
        self.message_user(request, f"Cancelled {done} exam run(s).", messages.SUCCESS if done else messages.WARNING)

    @admin.action(description="Re-queue the selected failed or cancelled exam runs", permissions=["requeue"])
    def requeue_runs(self, request, queryset):
        done = 0
        for run in queryset.filter(status__in=[ExamRunStatus.FAILED, ExamRunStatus.CANCELLED], exam__isnull=True):
            exam_runs.requeue(run)
            done += 1
        self.message_user(request, f"Re-queued {done} exam run(s).", messages.SUCCESS if done else messages.WARNING)


@admin.register(Exam)
class ExamAdmin(admin.ModelAdmin):
    list_display = ("exam_id", "language", "round", "imported_at", "source")
    list_filter = ("language",)
    readonly_fields = [f.name for f in Exam._meta.fields]
    actions = ["rescore"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(
        description="Recompute the scores of the selected exams from their stored grades", permissions=["change"]
    )
    def rescore(self, request, queryset):
        for exam in queryset:
            with transaction.atomic():
                exam_import.score_exam(exam)
        self.message_user(request, f"Recomputed {queryset.count()} exam(s).", messages.SUCCESS)
