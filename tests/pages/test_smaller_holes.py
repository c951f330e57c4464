"""Smaller holes closed: worker text shown through one sanitiser (leaderboard/public_text.py)
everywhere the public reads it; the submission page's title holds only its title; stored
exam and question ids that cannot be an address neither break a page nor a download; login
throttling per IPv6 /64 and per username across addresses; the embedded SQLite file 0600."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from leaderboard.models import ExamQuestion, ExamRun, LanguageModel, Submission
from leaderboard.services.exam_import import import_exam

REPO = Path(__file__).resolve().parents[2]
EXAM = REPO / "data" / "exams" / "da-round1.jsonl"

INSIDES = (
    "/srv/glossa/private/run-7/model.bin",
    "10.20.30.40",
    "http://minio.intranet:9000/bucket",
    "gpu-node-3.internal",
    "fd00:1:2:3::17",
    "gpu-host:4242",
)
LEAKY = "OSError at {} from {} via {} on {} ({}, worker@{})".format(*INSIDES)


@pytest.fixture
def leaky_submission(db):
    model = LanguageModel.objects.create(model_id="org/leaky")
    submission = Submission.objects.create(
        model=model,
        revision="main",
        commit_sha="a" * 40,
        status="FAILED",
        failure_reason=LEAKY,
        examine=True,
        progress={"angry-tweets": {"state": "failed", "note": LEAKY}, "dane": {"state": "done"}},
        datasets_total=2,
        datasets_done=1,
    )
    ExamRun.objects.create(language="da", round=2, seed=1, submission=submission, status="FAILED", failure_reason=LEAKY)
    ExamRun.objects.create(language="da", round=3, seed=1, submission=submission, status="RUNNING", stage=LEAKY)
    return submission


def _assert_clean(text: str, where: str):
    for inside in INSIDES:
        assert inside not in text, (where, inside)


def test_worker_text_is_sanitised_wherever_the_public_reads_it(client, leaky_submission):
    import_exam(EXAM.read_bytes())  # the examiner board lists the language's exam runs
    pages = {
        "detail": reverse("submission-detail", args=[leaky_submission.pk]),
        "json": reverse("submission-json", args=[leaky_submission.pk]),
        "queue": reverse("queue"),
        "examiner": reverse("examiner-board", args=["da"]),
        "model": "/models/org/leaky/",
    }
    for where, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, where
        _assert_clean(response.content.decode(), where)
    detail = BeautifulSoup(client.get(pages["detail"]).content, "html.parser")
    assert "[path]/model.bin" in detail.find(id="dataset-progress").get_text()
    assert "[address]" in detail.find(id="exam-runs").get_text()
    assert "[host]" in client.get(pages["examiner"]).content.decode()

    client.force_login(User.objects.create_user("staff", is_staff=True))
    staff = client.get(pages["detail"]).content.decode()
    assert INSIDES[0] in staff and "gpu-node-3.internal" in staff  # staff read the whole text


def test_the_submission_page_title_is_only_its_title(client, leaky_submission):
    soup = BeautifulSoup(client.get(reverse("submission-detail", args=[leaky_submission.pk])).content, "html.parser")
    title = soup.title.get_text()
    assert title.strip().startswith(f"Submission #{leaky_submission.pk}")
    assert "Examiner exam" not in title and "Language" not in title and "<" not in title
    table = soup.find(id="exam-runs")
    assert table is not None and table.find_parent("title") is None and table.find_parent("body") is not None
    assert [tr["data-status"] for tr in table.find_all("tr", attrs={"data-status": True})] == ["FAILED", "RUNNING"]


@pytest.mark.django_db
def test_stored_ids_that_are_no_address_break_neither_a_page_nor_a_download(client):
    exam = import_exam(EXAM.read_bytes()).exam
    exam.exam_id = 'da-round1\r\nX-Injected: 1"; evil'
    exam.save(update_fields=["exam_id"])
    question = ExamQuestion.objects.filter(exam=exam).order_by("key").first()
    original = question.key
    question.key = "q1/../1"
    question.save(update_fields=["key"])

    download = client.get(reverse("exam-export", args=["da", exam.round]))
    assert download.status_code == 200 and "X-Injected" not in download.headers
    disposition = download["Content-Disposition"]
    assert "\n" not in disposition and "\r" not in disposition and disposition.endswith('.jsonl"')
    listing = client.get(reverse("exam-questions", args=["da", exam.round]))
    assert listing.status_code == 200 and question.text[:40] in listing.content.decode()
    base = f"/examiner/da/round/{exam.round}/questions/"
    for key in ("q1%2F..%2F1", "q1/../1", "q1-1%0A", "%0Aq1-1", "q1-1%0D%0AX:%201"):
        assert client.get(f"{base}{key}/").status_code == 404, key
    # A well-formed key still opens its question (the demo exam keeps one question since its
    # language check, so the same question under its own key).
    question.key = original
    question.save(update_fields=["key"])
    assert client.get(f"{base}{original}/").status_code == 200


def _login(address: str, username: str, password: str = "wrong"):
    return Client(REMOTE_ADDR=address).post(
        reverse("admin:login"), {"username": username, "password": password, "next": "/admin/"}
    )


@pytest.mark.django_db
def test_login_throttling_counts_an_ipv6_64_as_one_client():
    User.objects.create_user("boss", password="right-password", is_staff=True)
    for n in range(5):  # five addresses of one /64, five usernames
        _login(f"2001:db8:1:2::{n + 1:x}", f"guess{n}")
    assert _login("2001:db8:1:2:ffff::9", "someone-else").status_code == 429
    assert _login("2001:db8:1:2:ffff::9", "boss", "right-password").status_code == 429
    assert _login("2001:db8:1:3::1", "boss", "right-password").status_code == 302  # another /64


@pytest.mark.django_db
def test_login_throttling_counts_a_username_across_addresses():
    User.objects.create_user("boss", password="right-password", is_staff=True)
    for n in range(5):
        assert _login(f"198.51.100.{n + 1}", "boss").status_code in (200, 429)
    assert _login("203.0.113.50", "boss", "right-password").status_code == 429
    assert _login("203.0.113.50", "other").status_code == 200  # that address itself is not locked


SQLITE = """
import os, django
os.environ["DJANGO_SETTINGS_MODULE"] = "leaderboard.settings"
django.setup()
from django.db import connection
with connection.cursor() as c:
    c.execute("PRAGMA journal_mode=WAL")
    c.execute("CREATE TABLE probe (a TEXT)")
    c.execute("INSERT INTO probe VALUES ('x')")
    import stat, pathlib
    var = pathlib.Path(os.environ["GLOSSA_VAR_DIR"])
    for p in sorted(var.glob("glossa.sqlite3*")):
        print(p.name, oct(stat.S_IMODE(p.stat().st_mode)))
"""


def _sqlite_modes(var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SECRET_KEY")}
    env.update(GLOSSA_VAR_DIR=str(var), PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", SQLITE], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return dict(line.split() for line in out.stdout.splitlines())


def test_the_embedded_sqlite_database_and_its_journals_are_private(tmp_path):
    modes = _sqlite_modes(tmp_path)  # under the usual umask (022), which would give 0644
    assert modes["glossa.sqlite3"] == "0o600"
    assert {"glossa.sqlite3-wal", "glossa.sqlite3-shm"} <= modes.keys()
    assert set(modes.values()) == {"0o600"}, modes


def test_an_older_world_readable_database_is_made_private(tmp_path):
    for name in ("glossa.sqlite3", "glossa.sqlite3-journal"):
        (tmp_path / name).write_bytes(b"")
        (tmp_path / name).chmod(0o644)
    _sqlite_modes(tmp_path)
    assert stat.S_IMODE((tmp_path / "glossa.sqlite3").stat().st_mode) == 0o600
    if (tmp_path / "glossa.sqlite3-journal").exists():
        assert stat.S_IMODE((tmp_path / "glossa.sqlite3-journal").stat().st_mode) == 0o600
