"""The fair queue (leaderboard/jobs/queue_policy.py, selectors/queue.py, services/dispatch.py)
on real PostgreSQL and the real Redis broker: the policy against a hand-written order, the
database's order against the pure function's, and how many messages go to the broker when."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from leaderboard.jobs.queue_policy import QueueItem, fair_order
from leaderboard.models import LanguageModel, Submission, SubmissionStatus
from leaderboard.selectors import queue as queue_selector
from leaderboard.services import submission_lifecycle as lifecycle
from leaderboard.services.dispatch import dispatch

T0 = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def item(pk, submitter, minute, params=None, priority=0, rerun=False):
    return QueueItem(pk, submitter, T0 + timedelta(minutes=minute), params, priority, rerun)


def test_the_policy_by_hand():
    items = [
        item(1, "user:a", 0, 7_000_000_000),
        item(2, "user:a", 1, 1_000_000_000),
        item(3, "user:a", 2, None),
        item(4, "user:a", 3, 135_000_000),
        item(5, "ip:10.0.0.2", 4, 9_000_000_000),
        item(6, "user:c", 5, 270_000_000),
        item(7, "user:c", 6, 270_000_000),
        item(8, "anonymous", 7, 50_000_000, rerun=True),
        item(9, "user:c", 8, 1, priority=5),
    ]
    # priority 5 first; then the re-run; then turn 1 of a, the address and c by age (a's
    # smallest is #4, c's first turn went to its priority item #9, so #6 is its turn 2) ...
    order = [i.pk for i in fair_order(items)]
    assert order == [9, 8, 4, 5, 2, 6, 1, 7, 3]


def test_one_submitter_with_fifty_models_holds_nobody_back():
    many = [item(i, "user:lab", i, 1_000_000) for i in range(1, 51)]
    late = [item(100, "user:alone", 60, 7_000_000_000), item(101, "ip:10.0.0.9", 61, None)]
    order = [i.pk for i in fair_order(many + late)]
    assert order[:3] == [1, 100, 101]  # each waits one turn at most


def test_while_the_queue_runs_a_submitters_work_with_the_workers_counts_as_its_turns():
    lab = [item(i, "ip:10.0.0.1", i, 1_000_000) for i in range(1, 6)]
    late = [item(100, "user:alone", 60, 7_000_000_000)]
    # the lab's first went to a worker: its second is its turn 2, after the newcomer's turn 1
    assert [i.pk for i in fair_order(lab[1:] + late, {"ip:10.0.0.1": 1})] == [100, 2, 3, 4, 5]
    # counting only what waits, the lab (oldest) would take every place the workers free
    assert [i.pk for i in fair_order(lab[1:] + late)] == [2, 100, 3, 4, 5]
    # the newcomer's own evaluation running does not let the lab by twice
    assert [i.pk for i in fair_order(lab[2:] + late, {"ip:10.0.0.1": 2, "user:alone": 1})][:2] == [100, 3]


def _submitter(kind: str, n: int, users: list):
    if kind == "user":
        return {"submitted_by": users[n % len(users)]}
    if kind == "ip":
        return {"client_address": f"10.0.0.{n % 4 + 1}"}
    return {}


@pytest.mark.django_db
def test_the_database_orders_as_the_policy_does():
    rng = random.Random(7)
    users = [get_user_model().objects.create(username=f"u{i}") for i in range(3)]
    models = [
        LanguageModel.objects.create(model_id=f"org/m{i}", num_parameters=rng.choice([None, 10**6, 10**8, 10**9]))
        for i in range(40)
    ]
    for n in range(330):
        waits = n < 300  # the rest: with the workers (sent or running), which moves their submitters' turns
        Submission.objects.create(
            model=models[n % 40],
            commit_sha=f"{n:040x}",
            status=SubmissionStatus.PENDING if waits or n % 2 else SubmissionStatus.RUNNING,
            dispatched_at=None if waits else timezone.now(),
            priority=rng.choice([0, 0, 0, 0, 1, 3]),
            rerun=rng.random() < 0.1,
            **_submitter(rng.choice(["user", "ip", "anon"]), n, users),
        )
    in_flight = queue_selector.in_flight()
    assert sum(in_flight.values()) == 30 and len(in_flight) > 1
    from_sql = list(queue_selector.held().values_list("pk", flat=True))
    from_python = [i.pk for i in fair_order(queue_selector.queue_items(), in_flight)]
    assert len(from_sql) == 300 and from_sql == from_python
    assert from_python != [i.pk for i in fair_order(queue_selector.queue_items())]


@pytest.fixture
def held_work(db):
    small = LanguageModel.objects.create(model_id="org/small", num_parameters=10**6)
    big = LanguageModel.objects.create(model_id="org/big", num_parameters=10**10)
    rows = []
    for n in range(4):  # one submitter's four big models, then someone else's small one
        rows.append(
            Submission.objects.create(
                model=big, commit_sha=f"{n:040x}", client_address="10.0.0.1", celery_task_id=f"t{n}"
            )
        )
    rows.append(Submission.objects.create(model=small, client_address="10.0.0.2", celery_task_id="t-small"))
    return rows


def gpu_ids(broker) -> list[str]:
    return [json.loads(m)["headers"]["id"] for m in broker.lrange("gpu", 0, -1)]


def test_dispatch_keeps_the_broker_short_and_follows_the_policy(
    held_work, empty_gpu_queue, settings, django_capture_on_commit_callbacks
):
    settings.GLOSSA_QUEUE_AHEAD = 2
    with django_capture_on_commit_callbacks(execute=True):
        sent = dispatch()
    first, second = held_work[0], held_work[-1]  # turn 1 of each submitter, oldest first
    assert sent == [first.pk, second.pk]
    assert list(reversed(gpu_ids(empty_gpu_queue))) == [first.celery_task_id, second.celery_task_id]
    assert dispatch() == []  # two wait on the broker: nothing more goes
    assert queue_selector.position_of(Submission.objects.get(pk=held_work[1].pk)) == 3

    # a worker takes the first: its place goes to the next in the policy's order
    with django_capture_on_commit_callbacks(execute=True):
        lifecycle.start(Submission.objects.get(pk=first.pk), attempt=1, worker="gpu@test", unavailable={})
    assert Submission.objects.get(pk=held_work[1].pk).dispatched_at is not None
    assert gpu_ids(empty_gpu_queue)[0] == held_work[1].celery_task_id
    assert Submission.objects.filter(dispatched_at__isnull=True).count() == 2


def test_a_place_a_worker_frees_goes_to_a_submitter_with_nothing_running(
    held_work, empty_gpu_queue, settings, django_capture_on_commit_callbacks
):
    settings.GLOSSA_QUEUE_AHEAD = 1
    lab_first, lab_second, other = held_work[0], held_work[1], held_work[-1]  # the lab's four are older
    with django_capture_on_commit_callbacks(execute=True):
        assert dispatch() == [lab_first.pk]
    with django_capture_on_commit_callbacks(execute=True):  # a worker takes it: one place is free
        lifecycle.start(Submission.objects.get(pk=lab_first.pk), attempt=1, worker="gpu@test", unavailable={})
    assert Submission.objects.get(pk=other.pk).dispatched_at is not None
    assert Submission.objects.get(pk=lab_second.pk).dispatched_at is None


def test_an_administrators_rerun_goes_before_new_work(held_work, empty_gpu_queue, settings):
    settings.GLOSSA_QUEUE_AHEAD = 1
    failed = held_work[3]
    Submission.objects.filter(pk=failed.pk).update(status=SubmissionStatus.FAILED)
    lifecycle.requeue(Submission.objects.get(pk=failed.pk))
    order = list(queue_selector.held().values_list("pk", flat=True))
    assert order[0] == failed.pk and Submission.objects.get(pk=failed.pk).rerun


def test_the_queue_page_shows_positions_and_estimated_starts(held_work, client, settings):
    settings.GLOSSA_GPU_SLOTS = 1
    done_model = LanguageModel.objects.create(model_id="org/done")
    now = timezone.now()
    for minutes in (10, 20, 30):  # median 20 minutes
        Submission.objects.create(
            model=done_model,
            commit_sha=f"{minutes:040x}",
            status=SubmissionStatus.FINISHED,
            started_at=now - timedelta(minutes=minutes + 5),
            finished_at=now - timedelta(minutes=5),
        )
    rows, total = queue_selector.waiting()
    assert total == 5 and [r.position for r in rows] == [1, 2, 3, 4, 5]
    assert [r.submission.pk for r in rows][:2] == [held_work[0].pk, held_work[-1].pk]
    assert rows[0].estimated_start - now < timedelta(seconds=5)  # nothing running: now
    assert abs((rows[2].estimated_start - now) - timedelta(minutes=40)) < timedelta(seconds=5)
    page = client.get("/queue/")
    assert page.status_code == 200
    assert b"Position" in page.content and b"Estimated start" in page.content


def test_a_pending_submission_says_where_it_stands(held_work, client):
    third = held_work[1]  # after the first of each submitter
    page = client.get(f"/submissions/{third.pk}/")
    assert page.status_code == 200 and b'id="submission-position">3' in page.content
    data = client.get(f"/submissions/{third.pk}.json").json()
    assert data["queue_position"] == 3 and data["estimated_start"] is None  # no evaluation finished yet


@pytest.mark.django_db
def test_every_position_the_database_gives_is_the_policys(held_work, settings):
    Submission.objects.filter(pk=held_work[2].pk).update(priority=2)
    order = [i.pk for i in fair_order(queue_selector.queue_items(), queue_selector.in_flight())]
    for place, pk in enumerate(order, start=1):
        assert queue_selector.position_of(Submission.objects.get(pk=pk)) == place


def test_an_administrator_sets_a_priority_from_the_list(held_work, admin_client):
    last = held_work[3]
    listing = admin_client.get("/admin/leaderboard/submission/")
    assert listing.status_code == 200 and b'name="form-0-priority"' in listing.content
    rows = list(Submission.objects.order_by("-created_at").values_list("pk", flat=True))  # the list's order
    data = {"form-TOTAL_FORMS": len(rows), "form-INITIAL_FORMS": len(rows), "_save": "Save"}
    for i, pk in enumerate(rows):
        data[f"form-{i}-id"] = pk
        data[f"form-{i}-priority"] = 9 if pk == last.pk else 0
    assert admin_client.post("/admin/leaderboard/submission/", data).status_code == 302
    assert queue_selector.held().values_list("pk", flat=True)[0] == last.pk
