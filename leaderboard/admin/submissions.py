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
        self._each(request, queryset, lifecycle.requeue, service.SubmissionRefused, "Re-queued {n} submission(s).")

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
        """GPU time, like a re-queue: for whoever may re-queue. Each is a speed job (listed,
        cancelled and re-queued under Speed jobs); its report is checked against the job and
        becomes the model's primary efficiency numbers."""
        self._each(
            request,
            queryset.select_related("model"),
            speed_jobs.queue,
            speed_jobs.SpeedRefused,
            "Queued the speed benchmark of {n} submission(s).",
        )

    def _each(self, request, submissions, act, refusal: type[Exception], done: str) -> None:
        """Run ``act`` on each submission; say how many it was done to (``done``, with
        ``{n}``) and, as a warning each, why it refused the others (``refusal``)."""
        count, refused = 0, []
        for submission in submissions:
            try:
                act(submission)
                count += 1
            except refusal as exc:
                refused.append(f"#{submission.pk}: {exc}")
        if count:
            self.message_user(request, done.format(n=count), messages.SUCCESS)
        for line in refused:
            self.message_user(request, line, messages.WARNING)
