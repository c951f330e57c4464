"""Which task messages a queue still holds, read from the broker itself: for the reaper to
tell a PENDING submission that waits its turn from one whose message was lost (a
file-system broker's message taken by a worker that died, a Redis flushed by a restart).

Redis (kombu's transport): the queue's list plus the ``unacked`` hash (delivered, not yet
acknowledged), less, when asked, the messages delivered before a given time (kombu's
``unacked_index`` holds each delivery's time): a worker reports a submission started as
soon as it takes its message, so a PENDING submission whose message was taken long ago
went down with the worker's host (Redis would give the message back only after its 6 h
visibility timeout). File system: the message files of the queue folder. Any other
broker: None (unknown), and the reaper leaves PENDING work alone.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings


def _task_id(body: bytes | str) -> str | None:
    try:
        message = json.loads(body)
    except (TypeError, ValueError):
        return None
    if isinstance(message, list) and message:  # unacked entries are [message, exchange, routing_key]
        message = message[0]
    if not isinstance(message, dict):
        return None
    return (message.get("headers") or {}).get("id") or (message.get("properties") or {}).get("correlation_id")


def _redis_ids(queue: str, delivered_before: float | None) -> set[str]:
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    bodies = list(client.lrange(queue, 0, -1))
    taken_earlier = (
        set(client.zrangebyscore("unacked_index", "-inf", f"({delivered_before}")) if delivered_before else set()
    )
    bodies += [body for tag, body in client.hgetall("unacked").items() if tag not in taken_earlier]
    return {task_id for task_id in map(_task_id, bodies) if task_id}


def _filesystem_ids(queue: str) -> set[str]:
    folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in", ""))
    ids = set()
    for path in folder.glob(f"*.{queue}.msg") if folder.is_dir() else []:
        try:
            task_id = _task_id(path.read_bytes())
        except OSError:  # taken by a worker just now
            continue
        if task_id:
            ids.add(task_id)
    return ids


def queued_task_ids(queue: str, delivered_before: float | None = None) -> set[str] | None:
    """Task ids of the messages ``queue`` holds (waiting or delivered unacknowledged), or
    None when this broker cannot be read this way. ``delivered_before`` (a Unix time; Redis):
    a message delivered to a worker before then and not acknowledged is left out."""
    url = settings.CELERY_BROKER_URL
    if url.startswith("redis"):
        return _redis_ids(queue, delivered_before)
    if url.startswith("filesystem"):
        return _filesystem_ids(queue)
    return None
