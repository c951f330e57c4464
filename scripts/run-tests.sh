#!/usr/bin/env bash
# The whole suite. Uses DATABASE_URL / CELERY_BROKER_URL when set (CI: PostgreSQL and
# Redis); otherwise PostgreSQL and Redis on their default local ports.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export CELERY_BROKER_URL="${CELERY_BROKER_URL:-redis://127.0.0.1:6379/15}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/14}"
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}"
export GLOSSA_VAR_DIR="${GLOSSA_VAR_DIR:-$PWD/var/test}"
exec .venv/bin/python -m pytest "$@"
