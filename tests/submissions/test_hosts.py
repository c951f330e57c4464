"""Workers on several machines (issue #30.5), on real parts: PostgreSQL, Redis, real Celery
workers, the real engine and a Hugging Face Hub (``tests/support/fake_hub.py``, the real
``huggingface_hub`` client talking HTTP to it).

Each machine is a Linux network namespace with its own address, hostname, disk folders
(model cache, Hub cache, evaluation output) and a virtual link to the site's machine
(``tests/support/hosts.py``; root, as on CI). Three ``gpu`` hosts run one ``gpu`` worker
each, with no database; a fourth runs the ``default`` worker, which applies their events.
From a host, only its own loopback and the link are reachable: Redis, PostgreSQL (both
listening on the site's 127.0.0.1) and the Hub are reached over the link.

Thirty submissions from four submitters (two accounts, two addresses) are queued: the
three bundled models and 27 commits of one Hub model. A deployment queues the same
model, commit and variant once, and a bundled model has one commit, so the bundled models
give six submissions at most (three here, zero-shot, to keep the run short); the other 27
are checkpoints of a model made from the bundled SmolLM2's weights (its embeddings and
first two layers, cheap enough for 27 evaluations) pushed to the Hub as 27 commits, each a
submission of its own. One address queues twelve of them first, as a lab with many models
would. In the middle of the run, while one host evaluates, that host dies: every process
in it is killed and its namespace deleted (at a moment when no host holds a message it
has not yet reported started: see ``kill_while_evaluating``). The test proves:

* every submission ends FINISHED exactly once, with exactly its scores: one evaluation
  of its model at its commit and variant under the deployment's protocol, one score per
  iteration and metric, its examples; the 27 checkpoints (the same weights) score alike;
* the reaper takes back the dead host's work (and nothing else: the live hosts'
  heartbeats keep theirs), and a live host finishes it; the dead host's message is still
  "delivered" in Redis (for the 6 h visibility timeout), and nobody waited for it;
* the fair queue's order: the order in which the site sent work to the hosts is, at every
  send, the head of ``leaderboard/jobs/queue_policy.fair_order`` over what waited then,
  given the work the hosts had then (round-robin between submitters, smallest model
  first, an admin's priority first; the lab's twelve do not go first), and the hosts
  started work in that order (the broker is first-in first-out).

Each host gets its own folders; its caches of converted bundled models and of intrinsic
evidence are seeded from this machine's (hard links), as a host that evaluated them before
would have them, to keep the test within a few minutes on two cores.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count

from evaluation import intrinsic
from evaluation.models import converted_gguf_dir
from leaderboard.jobs.queue_policy import QueueItem, fair_order
from leaderboard.models import (
    Dataset,
    Evaluation,
    EvaluationExamples,
    IterationScore,
    Submission,
    SubmissionStatus,
)
from leaderboard.services.reaper import reap
from tests.support.fake_hub import FakeHub
from tests.support.hosts import Host, VirtualHosts, unavailable_reason
from tests.support.hub_driver import run_calls

from .conftest import GEMMA, SMOL, broker
from .worker import Worker, database_url_of_tests, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
CHECKPOINTS = "glossa-test/smollm2-2-layers"  # from the bundled SmolLM2's weights, 27 commits
DATASET = "scala-da"
ITERATIONS, LIMIT = 1, 2  # the deployment's protocol here: the smallest slice that scores
AHEAD = 3  # GLOSSA_QUEUE_AHEAD = GLOSSA_GPU_SLOTS: one waiting message per gpu worker
GPU_HOSTS = ("glossa-gpu-a", "glossa-gpu-b", "glossa-gpu-c")
VICTIM = "glossa-gpu-b"
HEARTBEAT_TIMEOUT = 20  # seconds; the workers beat every second


# --- the machines -----------------------------------------------------------------------


@pytest.fixture
def machines(tmp_path):
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    hosts = VirtualHosts()
    try:
        yield hosts
    finally:
        hosts.close()  # the namespaces, links and relays go, whatever happened
        for folder in tmp_path.glob("host-*"):
            shutil.rmtree(folder, ignore_errors=True)  # each host's copy of the model weights


def _via(url: str, address: str, port: int) -> str:
    """``url`` with its host and port replaced (the relay's on the link)."""
    parts = urlsplit(url)
    credentials = parts.netloc.rpartition("@")[0]
    return urlunsplit(parts._replace(netloc=f"{credentials + '@' if credentials else ''}{address}:{port}"))


def intrinsic_cache_root() -> Path:
    """This machine's cache of intrinsic evidence (evaluation/intrinsic.py)."""
    return Path(os.environ.get(intrinsic.CACHE_ENV) or Path.home() / ".cache" / "glossa" / "intrinsic")


def _seed(source: Path, target: Path) -> None:
    """``source``'s files into ``target`` (hard links where the file system allows)."""
    target.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir() if source.is_dir() else []:
        if path.is_file() and not path.name.startswith("."):
            try:
                os.link(path, target / path.name)
            except OSError:
                shutil.copy2(path, target / path.name)


def _small_smollm2(folder: Path) -> dict[str, Path]:
    """A real model made from the bundled SmolLM2: its embeddings (tied to the output
    layer), its first two layers and final norm, its tokenizer; the files a Hub repo holds."""
    from safetensors import safe_open
    from safetensors.torch import save_file

    source = converted_gguf_dir(SMOL)
    folder.mkdir()
    config = json.loads((source / "config.json").read_text())
    config["num_hidden_layers"] = 2
    (folder / "config.json").write_text(json.dumps(config))
    with safe_open(str(source / "model.safetensors"), "pt") as weights:
        kept = {
            name: weights.get_tensor(name)
            for name in weights.keys()  # noqa: SIM118 (a safetensors file is not a dict)
            if not name.startswith("model.layers.") or int(name.split(".")[2]) < 2
        }
    save_file(kept, str(folder / "model.safetensors"), metadata={"format": "pt"})
    for path in source.iterdir():
        if path.is_file() and not path.name.startswith(".") and not (folder / path.name).exists():
            shutil.copy2(path, folder / path.name)
    return {path.name: path for path in folder.iterdir()}


@pytest.fixture
def cluster(machines, tmp_path, settings, empty_gpu_queue):
    """The Hub on the site's link address, relays to Redis and PostgreSQL, the ``default``
    worker on its own host and a ``gpu`` worker on each gpu host (started in parallel)."""
    broker().delete("unacked", "unacked_index")
    hub = FakeHub()
    files = _small_smollm2(tmp_path / "small-smollm2")
    hub.add_repo(CHECKPOINTS, {**files, "README.md": "---\nlicense: apache-2.0\n---\ncheckpoint 1\n"})
    for n in range(2, 28):
        hub.push(CHECKPOINTS, {"README.md": f"---\nlicense: apache-2.0\n---\ncheckpoint {n}\n"})
    hub.start(host=machines.address)

    redis_port = machines.relay(urlsplit(settings.CELERY_BROKER_URL).port or 6379)
    db = urlsplit(database_url_of_tests())
    postgres_port = machines.relay(db.port or 5432)
    common = {
        "CELERY_BROKER_URL": _via(settings.CELERY_BROKER_URL, machines.address, redis_port),
        "REDIS_URL": _via(settings.REDIS_URL, machines.address, redis_port),
        "GLOSSA_ITERATIONS": str(ITERATIONS),
        "GLOSSA_TEST_LIMIT": str(LIMIT),
        "GLOSSA_QUEUE_AHEAD": str(AHEAD),
        "GLOSSA_GPU_SLOTS": str(AHEAD),
        "GLOSSA_MAX_TRAIN_STEPS": "2",
    }
    site = machines.add("glossa-site-worker")
    workers = [
        Worker(
            tmp_path, "default", host=site, DATABASE_URL=_via(database_url_of_tests(), machines.address, postgres_port)
        )
    ]
    workers[0].env.update(common)
    for name in GPU_HOSTS:
        host = machines.add(name)
        home = tmp_path / f"host-{name}"
        for model_id in (SMOL, GEMMA):
            _seed(converted_gguf_dir(model_id), home / "models" / converted_gguf_dir(model_id).name)
        _seed(intrinsic_cache_root(), home / "intrinsic")
        worker = Worker(tmp_path, "gpu", host=host)
        worker.env = {k: v for k, v in worker.env.items() if "proxy" not in k.lower()}
        worker.env.update(
            common,
            GLOSSA_HEARTBEAT_SECONDS="1",
            OMP_NUM_THREADS="1",  # three hosts share this machine's cores
            GLOSSA_VAR_DIR=str(home / "var"),
            GLOSSA_MODEL_CACHE=str(home / "models"),
            GLOSSA_INTRINSIC_CACHE=str(home / "intrinsic"),
            HF_HOME=str(home / "hf"),
            HF_ENDPOINT=hub.endpoint,
            HF_HUB_OFFLINE="0",
            HF_HUB_DISABLE_TELEMETRY="1",
            HF_HUB_DISABLE_PROGRESS_BARS="1",
        )
        worker.env.pop("TRANSFORMERS_OFFLINE", None)
        workers.append(worker)
    yield hub, workers
    for worker in workers:
        if worker.host.alive:
            worker.host.signal_all(signal.SIGCONT)  # a host the test froze before failing
            worker.stop()
    hub.stop()
    broker().delete("gpu", "default", "unacked", "unacked_index")


# --- the work ---------------------------------------------------------------------------


def _specs(hub: FakeHub) -> list[dict]:
    """Thirty submissions in the order they are made: the lab's twelve checkpoints first,
    then the others' work, interleaved."""
    history = [c.sha for c in hub._repos[CHECKPOINTS].commits]
    checkpoints = iter(history)

    def checkpoint(**who) -> dict:
        return {"model_id": CHECKPOINTS, "revision": next(checkpoints), "few_shot": False, **who}

    def bundled(model_id: str, **who) -> dict:
        from evaluation.models import BUNDLED

        return {"model_id": model_id, "revision": BUNDLED[model_id].commit(), "few_shot": False, **who}

    lab = {"client_address": "10.0.0.1"}
    ana, ben, other = {"user": "ana", "client_address": "10.0.0.3"}, {"user": "ben"}, {"client_address": "10.0.0.2"}
    specs = [checkpoint(**lab) for _ in range(12)]
    rest = [
        [checkpoint(**ana), bundled(SMOL, **ana), checkpoint(**ana), bundled(MINILM, **ana)]
        + [checkpoint(**ana), checkpoint(**ana)],
        [bundled(GEMMA, **ben)] + [checkpoint(**ben) for _ in range(5)],
        [checkpoint(**other) for _ in range(6)],
    ]
    for turn in range(6):
        specs += [own[turn] for own in rest]
    return [{"op": "submit", **spec} for spec in specs]


def _submit_all(hub: FakeHub, tmp_path: Path) -> list[int]:
    """The submissions, made by the site's submission service in a child process whose
    ``HF_ENDPOINT`` is the Hub (``huggingface_hub`` reads it at import)."""
    for username in ("ana", "ben"):
        get_user_model().objects.create(username=username)
    env = {
        "DATABASE_URL": database_url_of_tests(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "REDIS_URL": settings.REDIS_URL,
        "DATA_DIR": str(settings.DATA_DIR),
        "GLOSSA_ITERATIONS": str(ITERATIONS),
        "GLOSSA_TEST_LIMIT": str(LIMIT),
        "GLOSSA_QUEUE_AHEAD": str(AHEAD),
    }
    outcomes = run_calls(hub.endpoint, tmp_path / "site-hf", _specs(hub), env=env, timeout=300)
    assert all("ok" in o and o["ok"]["created"] for o in outcomes), outcomes
    return [o["ok"]["id"] for o in outcomes]


def _item(row: dict) -> QueueItem:
    return QueueItem(
        row["pk"], row["submitter"], row["created_at"], row["model_parameters"], row["priority"], row["rerun"]
    )


def follows_policy(rows: dict[int, dict], sent: list[int], times: list, ahead: int, in_flight: bool = True) -> bool:
    """Whether ``sent`` (pks in the order the fair queue sent them, the i-th at ``times[i]``)
    can be cut into sends of at most ``ahead`` submissions, each the head of the policy's
    order over what waited at that moment (made before, not sent yet), given the work the
    workers had then (sent before and not ended). A submission that ended within half a
    second of a send may have been seen either way (its row commits after its clock).
    ``in_flight=False``: the policy as it was, blind to the work the workers had."""
    margin = timedelta(seconds=0.5)

    def heads(i: int) -> list[list[int]]:
        at = times[i]
        waiting = [_item(r) for pk, r in rows.items() if r["created_at"] < at and pk not in sent[:i]]
        flying, unsure = Counter(), []
        for pk in sent[:i] if in_flight else []:
            ended = rows[pk]["finished_at"]
            if ended is None or ended > at:
                flying[rows[pk]["submitter"]] += 1
            elif ended > at - margin:
                unsure.append(rows[pk]["submitter"])
        options = []
        for chosen in range(2 ** len(unsure)):
            counts = flying + Counter(s for bit, s in enumerate(unsure) if chosen >> bit & 1)
            options.append([item.pk for item in fair_order(waiting, counts)])
        return options

    def fits(i: int) -> bool:
        if i == len(sent):
            return True
        return any(
            sent[i : i + k] == head[:k] and fits(i + k)
            for head in heads(i)
            for k in range(min(ahead, len(sent) - i), 0, -1)
        )

    return fits(0)


def _rows(pks: list[int]) -> dict[int, dict]:
    fields = ("pk", "submitter", "created_at", "model_parameters", "priority", "rerun", "dispatched_at")
    return {
        row["pk"]: row for row in Submission.objects.filter(pk__in=pks).values(*fields, "started_at", "finished_at")
    }


def _unacked_gpu() -> set[str]:
    """Task ids of gpu messages delivered to a worker and not acknowledged (kombu's hash)."""
    ids = set()
    for entry in broker().hvals("unacked"):
        message, _exchange, routing_key = json.loads(entry)
        if routing_key == "gpu":
            ids.add(message["headers"]["id"])
    return ids


def _worker_host(progress: dict) -> str:
    return str(progress.get("_worker", "")).rsplit(":", 1)[0]


def kill_while_evaluating(machines: VirtualHosts, victim: Host, gpu: list[Host], timeout: float = 240) -> dict:
    """Kill ``victim`` while it evaluates a submission: all gpu hosts are frozen (SIGSTOP)
    until the events they sent are applied; if then the victim holds a RUNNING submission
    and no host holds a message it has not reported started, the victim is killed, the
    others go on. Returns {pk: the task id the victim held}."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        busy = Submission.objects.filter(status=SubmissionStatus.RUNNING).values_list("progress", flat=True)
        if not any(_worker_host(p) == victim.name for p in busy):
            time.sleep(0.2)
            continue
        for host in gpu:
            host.signal_all(signal.SIGSTOP)
        try:
            wait_for(lambda: broker().llen("default") == 0, 60, "the default worker to apply the events")
            time.sleep(1.5)  # the event it took last is applied
            running = {
                task: (pk, _worker_host(progress))
                for pk, task, progress in Submission.objects.filter(status=SubmissionStatus.RUNNING).values_list(
                    "pk", "celery_task_id", "progress"
                )
            }
            held = {pk: task for task, (pk, host) in running.items() if host == victim.name}
            if held and broker().llen("default") == 0 and _unacked_gpu() <= set(running):
                machines.kill(victim)
                return held
        finally:
            for host in gpu:
                if host.alive:
                    host.signal_all(signal.SIGCONT)
        time.sleep(0.5)
    raise AssertionError(f"{victim.name} was never caught evaluating")


# --- the test ---------------------------------------------------------------------------


def test_three_gpu_hosts_one_dies_every_submission_ends_once_in_the_policys_order(
    machines, cluster, datasets, tmp_path, settings
):
    hub, workers = cluster
    settings.EVALUATION_ITERATIONS, settings.EVALUATION_TEST_LIMIT = ITERATIONS, LIMIT
    settings.GLOSSA_QUEUE_AHEAD = settings.GLOSSA_GPU_SLOTS = AHEAD
    settings.GLOSSA_HEARTBEAT_TIMEOUT = HEARTBEAT_TIMEOUT
    Dataset.objects.update(in_suite=False)
    Dataset.objects.filter(name=DATASET).update(in_suite=True)

    pks = _submit_all(hub, tmp_path)
    assert len(pks) == 30
    late = Submission.objects.filter(pk__in=pks, dispatched_at__isnull=True).order_by("-created_at").first()
    Submission.objects.filter(pk=late.pk).update(priority=5)  # an administrator's priority
    assert Submission.objects.filter(pk__in=pks, dispatched_at__isnull=False).count() == AHEAD

    for worker in workers:
        worker.launch()
    for worker in workers:
        worker.wait_ready(180)
    gpu_hosts = [w.host for w in workers[1:]]
    victim = next(h for h in gpu_hosts if h.name == VICTIM)

    first_sent: dict[int, object] = {}

    def note_sends() -> None:
        for pk, at in Submission.objects.filter(pk__in=pks, dispatched_at__isnull=False).values_list(
            "pk", "dispatched_at"
        ):
            first_sent.setdefault(pk, at)  # a taken-back submission is sent again later

    # the middle of the run: a third of the work is done and the victim evaluates
    wait_for(
        lambda: note_sends() or Submission.objects.filter(pk__in=pks, status=SubmissionStatus.FINISHED).count() >= 10,
        600,
        "ten submissions to finish",
        workers[1],
    )
    note_sends()
    held = kill_while_evaluating(machines, victim, gpu_hosts)
    note_sends()
    killed_at = time.monotonic()

    # the reaper ticks (as Celery beat would run it) until every submission has ended
    requeued: list[int] = []

    def tick() -> bool:
        note_sends()
        report = reap()
        requeued.extend(report.requeued)
        assert not report.failed, report.as_json()
        return not Submission.objects.filter(
            pk__in=pks, status__in=[SubmissionStatus.PENDING, SubmissionStatus.RUNNING]
        ).exists()

    wait_for(tick, 900, "every submission to end", workers[1], interval=2)

    # every submission ended exactly once, with exactly its scores
    submissions = {s.pk: s for s in Submission.objects.filter(pk__in=pks).select_related("model")}
    for submission in submissions.values():
        assert submission.status == SubmissionStatus.FINISHED, (submission, submission.failure_reason)
        assert submission.attempts == (2 if submission.pk in held else 1), submission
        evaluation = Evaluation.objects.get(submission=submission)  # exactly one
        assert evaluation.dataset.name == DATASET and evaluation.few_shot == submission.few_shot
        assert (evaluation.model_id, evaluation.commit_sha) == (submission.model_id, submission.commit_sha)
        assert evaluation.record["model"] == submission.model.model_id
        assert evaluation.record["model_commit"] == submission.commit_sha
        assert evaluation.num_iterations == ITERATIONS and evaluation.test_limit == LIMIT
        metrics = set(evaluation.scores.values_list("metric", flat=True))
        assert metrics and evaluation.scores.count() == ITERATIONS * len(metrics)
        assert EvaluationExamples.objects.get(evaluation=evaluation).num_examples == LIMIT
    assert not (
        IterationScore.objects.filter(evaluation__submission__in=pks)
        .values("evaluation", "iteration", "metric")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .exists()
    )
    checkpoint_scores = {
        tuple(sorted(e.scores.values_list("metric", "value")))
        for e in Evaluation.objects.filter(model__model_id=CHECKPOINTS)
    }
    assert Evaluation.objects.filter(model__model_id=CHECKPOINTS).count() == 27 and len(checkpoint_scores) == 1

    # the reaper took back the dead host's work, and only that; a live host finished it
    assert sorted(requeued) == sorted(held), (requeued, held)
    for pk in held:
        assert _worker_host(submissions[pk].progress) in set(GPU_HOSTS) - {VICTIM}
        assert submissions[pk].finished_at is not None
    assert set(held.values()) <= _unacked_gpu()  # still "delivered" to the dead host: nobody waited
    logs = {w.host.name: w.text() for w in workers[1:]}
    assert all("succeeded in" in text for text in logs.values()), "every gpu host evaluated"
    print(f"multi-host: killed {VICTIM} holding {sorted(held)}; all ended {time.monotonic() - killed_at:.0f} s later")

    # the order: sends follow the policy at every moment, and work started in that order
    rows = _rows(pks)
    for pk, row in rows.items():
        row["first_sent"] = first_sent[pk]
    sent = sorted(pks, key=lambda pk: (first_sent[pk], pk))
    times = [first_sent[pk] for pk in sent]
    assert follows_policy(rows, sent, times, AHEAD), [(pk, rows[pk]["submitter"]) for pk in sent]
    made = sorted(pks, key=lambda pk: (rows[pk]["created_at"], pk))
    assert not follows_policy(rows, made, times, AHEAD)  # first come, first served is not the policy
    # blind to the work the hosts had, the queue would have sent the lab's twelve first
    assert not follows_policy(rows, sent, times, AHEAD, in_flight=False)
    window = timedelta(seconds=5)  # hosts that took messages together may report in either order
    for i, pk in enumerate(sent):
        for later in sent[i + 1 :]:
            assert rows[later]["started_at"] > rows[pk]["started_at"] - window, (pk, later)
