"""Submission pages (status, progress, failure reason, refresh) and the admin's actions."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from leaderboard.models import LanguageModel, Submission, SubmissionStatus

pytestmark = pytest.mark.django_db


@pytest.fixture
def model():
    return LanguageModel.objects.create(model_id="org/model")


_commits = itertools.count(1)


def make(model, **fields):
    """A submission; each at its own commit unless ``commit_sha`` is given (one active per commit)."""
    defaults = {
        "revision": "main",
        "commit_sha": f"{next(_commits):040x}",
        "progress": {"scala-da": {"state": "done"}, "ddt-ner-da": {"state": "running", "done": 3, "total": 12}},
        "datasets_total": 2,
        "datasets_done": 1,
    }
    return Submission.objects.create(model=model, **{**defaults, **fields})


def test_running_submission_shows_progress_and_refreshes(client, model):
    started = timezone.now() - timedelta(seconds=42)
    sub = make(model, status=SubmissionStatus.RUNNING, started_at=started)
    html = client.get(reverse("submission-detail", args=[sub.pk])).content.decode()
    assert 'data-status="RUNNING"' in html
    assert '<meta http-equiv="refresh" content="5">' in html
    assert "1</span> of 2 datasets" in html
    assert 'value="25"' in html and "25%" in html  # 3 of 12 units of ddt-ner-da
    assert "42 s" in html or "43 s" in html
    data = client.get(reverse("submission-json", args=[sub.pk])).json()
    assert data["status"] == "RUNNING" and data["datasets_done"] == 1 and data["datasets_total"] == 2
    assert {row["name"]: row["percent"] for row in data["datasets"]} == {"ddt-ner-da": 25, "scala-da": 100}
    assert 42 <= data["elapsed_seconds"] < 60


def test_failed_submission_explains_itself_escaped(client, model):
    sub = make(
        model,
        status=SubmissionStatus.FAILED,
        started_at=timezone.now(),
        finished_at=timezone.now(),
        failure_reason="could not load the weights of <b>org/model</b>",
        log_excerpt="INFO loading\nERROR <img src=x onerror=alert(1)>",
    )
    html = client.get(reverse("submission-detail", args=[sub.pk])).content.decode()
    assert "http-equiv" not in html  # no refresh once it is over
    assert "could not load the weights of &lt;b&gt;org/model&lt;/b&gt;" in html
    assert "ERROR" not in html and "log-excerpt" not in html  # the worker's log is for staff only
    data = client.get(reverse("submission-json", args=[sub.pk])).json()
    assert data["failure_reason"].startswith("could not load") and data["log_excerpt"] == ""
    staff_client = Client()
    staff_client.force_login(User.objects.create_user("staff", is_staff=True))
    html = staff_client.get(reverse("submission-detail", args=[sub.pk])).content.decode()
    assert "ERROR &lt;img src=x onerror=alert(1)&gt;" in html and "<img" not in html
    assert "ERROR" in staff_client.get(reverse("submission-json", args=[sub.pk])).json()["log_excerpt"]


def test_public_failure_reasons_hide_the_machines_insides(client, model):
    reason = (
        'Internal error (OperationalError: connection to server at "db.internal" (10.0.3.4), port 5432 failed; '
        "while reading /home/glossa/.cache/glossa/models/org--m/config.json from http://minio.svc.cluster.local:9000/b "
        "on worker gpu-3:12345). See https://huggingface.co/org/model."
    )
    sub = make(model, status=SubmissionStatus.FAILED, finished_at=timezone.now(), failure_reason=reason)
    for url in (reverse("submission-detail", args=[sub.pk]), reverse("queue"), reverse("model", args=[model.model_id])):
        text = BeautifulSoup(client.get(url).content, "html.parser").get_text(" ")
        for secret in ("db.internal", "10.0.3.4", "/home/glossa", "minio", "gpu-3"):
            assert secret not in text, (url, secret)
    public = client.get(reverse("submission-json", args=[sub.pk])).json()["failure_reason"]
    assert public.startswith("Internal error (OperationalError: connection to server at")
    assert "[path]/config.json" in public and "https://huggingface.co/org/model" in public


def test_queue_lists_every_state(client, model):
    other = LanguageModel.objects.create(model_id="org/other")
    make(model, status=SubmissionStatus.RUNNING)
    make(model, revision="v2", status=SubmissionStatus.PENDING)
    make(other, status=SubmissionStatus.FINISHED)
    make(other, revision="v2", status=SubmissionStatus.FAILED, failure_reason="Out of memory")
    html = client.get(reverse("queue")).content.decode()
    for title in ("Running (1)", "Pending (1)", "Finished (1)", "Failed (1)"):
        assert title in html
    assert "Out of memory" in html


def test_missing_submission_is_404(client):
    assert client.get(reverse("submission-detail", args=[999999])).status_code == 404
    assert client.get(reverse("submission-json", args=[999999])).status_code == 404


def admin_action(admin_client, action, *submissions):
    return admin_client.post(
        reverse("admin:leaderboard_submission_changelist"),
        {"action": action, "_selected_action": [s.pk for s in submissions]},
        follow=True,
    )


def test_admin_cancel_and_requeue(admin_client, model, empty_gpu_queue, django_capture_on_commit_callbacks):
    running = make(model, status=SubmissionStatus.RUNNING, celery_task_id="task-1")
    finished = make(model, revision="v2", status=SubmissionStatus.FINISHED)
    response = admin_action(admin_client, "cancel_submissions", running, finished)
    assert "Cancelled 1 submission(s)." in response.content.decode()
    running.refresh_from_db()
    finished.refresh_from_db()
    assert running.status == SubmissionStatus.CANCELLED and running.finished_at is not None
    assert finished.status == SubmissionStatus.FINISHED

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_action(admin_client, "requeue_submissions", running)
    assert "Re-queued 1 submission(s)." in response.content.decode()
    running.refresh_from_db()
    assert running.status == SubmissionStatus.PENDING and running.celery_task_id != "task-1"
    assert running.failure_reason == "" and running.finished_at is None
    assert empty_gpu_queue.llen("gpu") == 1


def test_admin_requeue_refuses_when_an_equal_submission_is_active(admin_client, model):
    failed = make(model, status=SubmissionStatus.FAILED)
    make(model, status=SubmissionStatus.PENDING, commit_sha=failed.commit_sha)
    response = admin_action(admin_client, "requeue_submissions", failed)
    assert "already pending, running or finished" in response.content.decode()
    failed.refresh_from_db()
    assert failed.status == SubmissionStatus.FAILED


def staff_with(*codenames: str) -> Client:
    """A signed-in staff member holding exactly these permissions (``app.codename``)."""
    from django.contrib.auth.models import Permission

    user = User.objects.create_user(f"staff-{len(codenames)}-{'-'.join(codenames)[:60]}", is_staff=True)
    for name in codenames:
        app_label, codename = name.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    client = Client()
    client.force_login(user)
    return client


def test_admin_actions_need_their_own_permission(model, empty_gpu_queue, django_capture_on_commit_callbacks):
    running = make(model, status=SubmissionStatus.RUNNING, celery_task_id="task-1")
    failed = make(model, revision="v2", status=SubmissionStatus.FAILED, commit_sha="f" * 40)
    viewer = staff_with("leaderboard.view_submission", "leaderboard.change_submission", "leaderboard.view_leaderboard")
    changelist = viewer.get(reverse("admin:leaderboard_submission_changelist")).content.decode()
    assert "cancel_submissions" not in changelist and "requeue_submissions" not in changelist
    for action, row in (("cancel_submissions", running), ("requeue_submissions", failed)):
        response = admin_action(viewer, action, row)  # refused: the action is not offered to this user
        assert response.status_code == 200
        assert "submission(s)." not in response.content.decode()  # no "Cancelled 1 / Re-queued 1 submission(s)."
    running.refresh_from_db()
    failed.refresh_from_db()
    assert running.status == SubmissionStatus.RUNNING and failed.status == SubmissionStatus.FAILED
    assert empty_gpu_queue.llen("gpu") == 0

    operator = staff_with(
        "leaderboard.view_submission", "leaderboard.cancel_submission", "leaderboard.requeue_submission"
    )
    assert "Cancelled 1 submission(s)." in admin_action(operator, "cancel_submissions", running).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        assert "Re-queued 1" in admin_action(operator, "requeue_submissions", failed).content.decode()
    assert empty_gpu_queue.llen("gpu") == 1


def test_reaggregation_needs_its_own_permission(db, empty_gpu_queue):
    from leaderboard.models import Leaderboard

    Leaderboard.objects.create(code="da", name="Danish", kind="language")
    url = reverse("admin:leaderboard_leaderboard_changelist")
    post = {"action": "rerun_board_aggregation", "_selected_action": ["da"]}
    viewer = staff_with("leaderboard.view_leaderboard")
    assert "queued" not in viewer.post(url, post, follow=True).content.decode()
    assert empty_gpu_queue.llen("default") == 0
    operator = staff_with("leaderboard.view_leaderboard", "leaderboard.reaggregate_leaderboard")
    assert "Aggregation of da queued" in operator.post(url, post, follow=True).content.decode()
    assert empty_gpu_queue.llen("default") == 1


def test_admin_login_is_throttled_after_five_failures(db):
    User.objects.create_user("boss", password="right-password", is_staff=True)
    url = reverse("admin:login")

    def attempt(password: str, address: str = "203.0.113.7"):
        return Client(REMOTE_ADDR=address).post(url, {"username": "boss", "password": password, "next": "/admin/"})

    for _ in range(4):
        assert attempt("wrong").status_code == 200  # the form again, with an error
    assert attempt("wrong").status_code == 429  # the 5th failure locks the username at this address
    locked = attempt("right-password")  # then even the right password is refused
    assert locked.status_code == 429 and "_auth_user_id" not in locked.client.session
    # the username is locked from every address (throttling counts per username across addresses)
    assert attempt("right-password", address="198.51.100.9").status_code == 429
