#!/usr/bin/env bash
# Serve the site and run Celery workers (queues gpu and default) on the embedded
# default. Small-deployment settings evaluate a slice unless already set.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT="${1:-8000}"
BIN=.venv/bin
export GLOSSA_ITERATIONS="${GLOSSA_ITERATIONS:-3}"
export GLOSSA_TEST_LIMIT="${GLOSSA_TEST_LIMIT:-32}"
export GLOSSA_MAX_TRAIN_STEPS="${GLOSSA_MAX_TRAIN_STEPS:-20}"
export GLOSSA_DTYPE="${GLOSSA_DTYPE:-float32}"  # the suite's seeds' dtype, on any CPU
mkdir -p var/log
# The workers yield the CPU to the site (nice 10): on one machine, readers come first.
# The gpu worker runs third-party models and gets no database (GLOSSA_NO_DATABASE=1): it
# reports through events that the default worker applies (issue #13.5).
env -u DATABASE_URL GLOSSA_NO_DATABASE=1 nice -n 10 "$BIN/celery" -A leaderboard worker -Q gpu --concurrency 1 --prefetch-multiplier 1 -n gpu@%h \
  --loglevel INFO --logfile var/log/worker-gpu.log &
GPU_WORKER=$!
nice -n 10 "$BIN/celery" -A leaderboard worker -Q default --concurrency 1 -n default@%h \
  --loglevel INFO --logfile var/log/worker-default.log &
DEFAULT_WORKER=$!
# Celery beat: the reaper (services/reaper.py) every GLOSSA_REAPER_INTERVAL seconds.
"$BIN/celery" -A leaderboard beat --schedule var/celerybeat-schedule --loglevel INFO \
  --logfile var/log/beat.log &
BEAT=$!
trap 'kill $GPU_WORKER $DEFAULT_WORKER $BEAT 2>/dev/null; wait' EXIT INT TERM
echo "Glossa on http://127.0.0.1:$PORT/  (workers log to var/log/)"
"$BIN/gunicorn" leaderboard.wsgi --bind "127.0.0.1:$PORT" --workers 2 --timeout 60 --access-logfile -
