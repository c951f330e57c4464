"""Submissions in the admin: re-queue, cancel, and run the speed benchmark (docs/methodology.md §11)."""

from django.contrib import admin, messages

from leaderboard.models import Submission
from leaderboard.services import speed_jobs
from leaderboard.services import submission_lifecycle as lifecycle
from leaderboard.services import submissions as service


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "model",
        "revision",
        "few_shot",
        "status",
        "priority",
        "datasets_done",
        "datasets_total",
        "attempts",
        "client_address",
        "created_at",
    )
    list_editable = ("priority",)  # the fair queue: higher starts first (leaderboard/jobs/queue_policy.py)
    list_filter = ("status", "few_shot", "rerun")
    search_fields = ("model__model_id", "client_address")
    raw_id_fields = ("model", "submitted_by")
    readonly_fields = (
        "celery_task_id",
        "attempts",
        "submitter",
        "model_parameters",
        "dispatched_at",
        "progress",
        "log_excerpt",
        "started_at",
        "finished_at",
        "created_at",
    )
    actions = ["requeue_submissions", "cancel_submissions", "benchmark_speed"]

    def has_requeue_permission(self, request) -> bool:
        return request.user.has_perm("leaderboard.requeue_submission")

    def has_cancel_permission(self, request) -> bool:
        return request.user.has_perm("leaderboard.cancel_submission")

    @admin.action(description="Re-queue the selected failed or cancelled submissions", permissions=["requeue"])
    def requeue_submissions(self, request, queryset):
        done, refused = 0, []
        for submission in queryset:
            try:
                lifecycle.requeue(submission)
                done += 1
            except service.SubmissionRefused as exc:
                refused.append(f"#{submission.pk}: {exc}")
        if done:
            self.message_user(request, f"Re-queued {done} submission(s).", messages.SUCCESS)
        for line in refused:
            self.message_user(request, line, messages.WARNING)

    @admin.action(description="Cancel the selected pending or running submissions", permissions=["cancel"])
    def cancel_submissions(self, request, queryset):
        cancelled = sum(1 for submission in queryset if lifecycle.cancel(submission))
        skipped = queryset.count() - cancelled
        self.message_user(request, f"Cancelled {cancelled} submission(s).", messages.SUCCESS)
        if skipped:
            self.message_user(
                request, f"{skipped} were not pending or running and were left as they are.", messages.WARNING
            )

    @admin.action(
        description="Run the speed benchmark on the selected submissions' models (queue gpu)", permissions=["requeue"]
    )
    def benchmark_speed(self, request, queryset):
        """GPU time, like a re-queue: for whoever may re-queue. The report is checked against
        the job kept on the submission and becomes the model's primary efficiency numbers."""
        queued, refused = 0, []
        for submission in queryset.select_related("model"):
            try:
                speed_jobs.queue(submission)
                queued += 1
            except speed_jobs.SpeedRefused as exc:
                refused.append(f"#{submission.pk}: {exc}")
        if queued:
            self.message_user(request, f"Queued the speed benchmark of {queued} submission(s).", messages.SUCCESS)
        for line in refused:
            self.message_user(request, line, messages.WARNING)
