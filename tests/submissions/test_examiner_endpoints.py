"""An examiner's endpoint and key variable come from the deployment's allow-lists
(``GLOSSA_EXAMINER_HOSTS``, ``GLOSSA_EXAMINER_KEY_VARS``): refused when an administrator
saves the row, and again on the GPU worker before any request; an examiner that names no
key sends none (never ``OPENAI_API_KEY``)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.exceptions import ValidationError

from leaderboard.models import Examiner


class Recording(BaseHTTPRequestHandler):
    seen: list[dict] = []

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        Recording.seen.append({"path": self.path, "authorization": self.headers.get("Authorization")})
        body = json.dumps({"choices": [{"message": {"content": "ok"}, "text": "ok"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def endpoint():
    """A live OpenAI-compatible stand-in that records every request."""
    Recording.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recording)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.django_db
def test_the_admin_refuses_an_examiner_outside_the_allow_lists(admin_client, monkeypatch):
    monkeypatch.setenv("GLOSSA_EXAMINER_HOSTS", "api.example.org")
    monkeypatch.setenv("GLOSSA_EXAMINER_KEY_VARS", "GLOSSA_EXAMINER_KEY_A")
    refused = {
        ("openai:http://169.254.169.254/latest", ""): "backend",
        ("openai:https://evil.example/v1", ""): "backend",
        ("openai:https://user:pw@api.example.org/v1", ""): "backend",
        ("openaix:https://evil.example/v1", ""): "backend",
        ("openai:https://api.example.org/v1", "DATABASE_URL"): "api_key_env",
        ("transformers", "OPENAI_API_KEY"): "api_key_env",
    }
    for (backend, variable), field in refused.items():
        with pytest.raises(ValidationError) as caught:
            Examiner(model_id="m", backend=backend, api_key_env=variable).full_clean()
        assert field in caught.value.message_dict, (backend, variable)
    Examiner(
        model_id="m", backend="openai:https://API.example.org/v1", api_key_env="GLOSSA_EXAMINER_KEY_A"
    ).full_clean()
    Examiner(model_id="m", backend="transformers").full_clean()

    # through the admin's form
    form = {"model_id": "gpt-x", "backend": "openai:https://evil.example/v1", "api_key_env": "", "languages": "[]"}
    page = admin_client.post("/admin/leaderboard/examiner/add/", {**form, "enabled": "on", "notes": ""})
    assert page.status_code == 200 and "not one this deployment allows" in page.content.decode()
    assert not Examiner.objects.exists()
    good = {**form, "backend": "openai:https://api.example.org/v1", "api_key_env": "GLOSSA_EXAMINER_KEY_A"}
    assert admin_client.post("/admin/leaderboard/examiner/add/", {**good, "enabled": "on"}).status_code == 302
    assert Examiner.objects.get().api_key_env == "GLOSSA_EXAMINER_KEY_A"


class Recorder:
    def __init__(self):
        self.events = []

    def send(self, kind, **data):
        self.events.append((kind, data))

    try_send = send


def job_naming(backend: str, variable: str) -> dict:
    return {
        "run": 1,
        "language": "da",
        "round": 1,
        "seed": 1,
        "examiners": [{"model": "gpt-x", "backend": backend, "api_key_env": variable}],
        "examinees": [{"model": "HuggingFaceTB/SmolLM2-135M-Instruct", "revision": ""}],
        "settings": {"questions": 1, "follow_ups": 0},
        "attempts": 0,
    }


def test_the_worker_refuses_a_job_outside_the_allow_lists_before_any_request(endpoint, monkeypatch, settings):
    """A forged (or stale) job names a host or a variable the deployment never allowed."""
    from leaderboard.tasks.examination import run_exam_job

    monkeypatch.setenv("WORKER_SECRET", "s3cret")
    monkeypatch.setenv("GLOSSA_EXAMINER_KEY_VARS", "GLOSSA_EXAMINER_KEY_A")
    monkeypatch.setenv("GLOSSA_EXAMINER_HOSTS", "api.example.org")
    for backend, variable, reason in (
        (f"openai:http://{endpoint}/v1", "", "GLOSSA_EXAMINER_HOSTS"),
        (f"openai:http://{endpoint}/v1", "WORKER_SECRET", "GLOSSA_EXAMINER_HOSTS"),
    ):
        events = Recorder()
        assert run_exam_job(job_naming(backend, variable), task_id="t", events=events) == "failed"
        assert events.events[-1][0] == "failed" and reason in events.events[-1][1]["reason"]
    monkeypatch.setenv("GLOSSA_EXAMINER_HOSTS", endpoint)
    events = Recorder()
    assert run_exam_job(job_naming(f"openai:http://{endpoint}/v1", "WORKER_SECRET"), task_id="t", events=events)
    assert events.events[-1][0] == "failed" and "GLOSSA_EXAMINER_KEY_VARS" in events.events[-1][1]["reason"]
    assert Recording.seen == []  # nothing was ever sent


def test_an_examiner_without_a_key_sends_none(endpoint, monkeypatch):
    from evaluation.backends.openai import OpenAIBackend
    from leaderboard.tasks.examination import _api_key

    monkeypatch.setenv("OPENAI_API_KEY", "the-operators-own-key")
    monkeypatch.setenv("GLOSSA_EXAMINER_HOSTS", endpoint)
    monkeypatch.setenv("GLOSSA_EXAMINER_KEY_VARS", "GLOSSA_EXAMINER_KEY_A")
    monkeypatch.setenv("GLOSSA_EXAMINER_KEY_A", "key-a")
    backend = f"openai:http://{endpoint}/v1"
    for variable, sent in (("", None), ("GLOSSA_EXAMINER_KEY_A", "Bearer key-a")):
        served = OpenAIBackend(
            base_url=f"http://{endpoint}/v1", model="gpt-x", api_key=_api_key("x", backend, variable)
        )
        served._post("/chat/completions", {"model": "gpt-x", "messages": []})
        assert Recording.seen[-1]["authorization"] == sent
