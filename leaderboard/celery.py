"""The Celery application: queue ``gpu`` evaluates, queue ``default`` aggregates.

Every message is JSON, whatever the settings say: the broker is reachable from the GPU
side, so a worker of this application never decodes a format that can run code (pickle,
YAML, msgpack extensions); a message in another content type is refused unread."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

JSON_ONLY = {
    "task_serializer": "json",
    "result_serializer": "json",
    "event_serializer": "json",
    "accept_content": ["json"],
    "result_accept_content": ["json"],
}

app = Celery("glossa")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(JSON_ONLY)
app.autodiscover_tasks(["leaderboard"])
