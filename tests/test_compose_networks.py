"""compose.yaml keeps the GPU worker (it runs third-party models) to the broker: the page
cache lives in its own Redis on a network the GPU worker is not on, with PostgreSQL, and
the GPU worker is given no URL for either."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import yaml

REPO = Path(__file__).resolve().parents[1]


def _compose() -> dict:
    return yaml.safe_load((REPO / "compose.yaml").read_text())


def _networks(service: dict) -> set[str]:
    return set(service.get("networks") or ["default"])


def test_the_gpu_worker_reaches_the_broker_and_nothing_else():
    doc = _compose()
    services = doc["services"]
    app = doc["x-app-env"]
    broker_host = urlsplit(app["CELERY_BROKER_URL"]).hostname
    cache_host = urlsplit(app["REDIS_URL"]).hostname
    assert broker_host != cache_host and {broker_host, cache_host, "db"} <= services.keys()

    gpu = services["gpu-worker"]
    assert _networks(gpu) == _networks(services[broker_host])
    for private in (cache_host, "db"):
        assert not _networks(gpu) & _networks(services[private]), private
    env = gpu["environment"]
    assert urlsplit(env["CELERY_BROKER_URL"]).hostname == broker_host
    assert not {"REDIS_URL", "DATABASE_URL", "SECRET_KEY"} & env.keys()
    assert env["GLOSSA_NO_DATABASE"] == "1"

    for name in ("web", "default-worker", "beat"):  # the web tier reaches all three
        service = services[name]
        for needed in (broker_host, cache_host, "db"):
            assert _networks(service) & _networks(services[needed]), (name, needed)
    assert doc["networks"]["backend"].get("internal") is True  # the database and the cache: no way out


class _CreatesFile:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_celery_reads_json_messages_only(tmp_path):
    """A pickled message on a queue is refused by the consumer's accept list before it is
    decoded: nothing in it runs (kombu decodes a worker's messages exactly so)."""
    import pytest
    from kombu.exceptions import ContentDisallowed
    from kombu.serialization import dumps, loads, prepare_accept_content

    from leaderboard.celery import app

    accept = prepare_accept_content(app.conf.accept_content)
    assert accept == {"application/json"} and app.conf.task_serializer == "json"
    marker = tmp_path / "pwned"
    content_type, encoding, body = dumps(_CreatesFile(str(marker)), serializer="pickle")
    with pytest.raises(ContentDisallowed):
        loads(body, content_type, encoding, accept=accept)
    assert not marker.exists()
    content_type, encoding, body = dumps({"kind": "heartbeat"}, serializer="json")
    assert loads(body, content_type, encoding, accept=accept) == {"kind": "heartbeat"}
