#!/usr/bin/env bash
# The whole suite. Uses DATABASE_URL / CELERY_BROKER_URL when set (CI: PostgreSQL and
# Redis); otherwise PostgreSQL and Redis on their default local ports.
#
# With no arguments it runs in two parts: every test but those marked `serial`, in
# GLOSSA_TEST_PROCESSES processes (default: the number of CPU cores, at most 4) with
# pytest-xdist, each process with its own test database, Redis databases and var folder
# (tests/support/parallel.py), the longest modules first (pytest-xdist's own reordering, by
# number of tests, is turned off: it started the longest modules last); then the `serial` tests alone (they restart PostgreSQL, which
# every other process uses). With arguments, one pytest process runs exactly what they say.
set -euo pipefail
cd "$(dirname "$0")/.."
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export CELERY_BROKER_URL="${CELERY_BROKER_URL:-redis://127.0.0.1:6379/15}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/14}"
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}"
export GLOSSA_VAR_DIR="${GLOSSA_VAR_DIR:-$PWD/var/test}"
# The real models' numbers the tests pin are float32's: a CPU with AMX would run bfloat16.
export GLOSSA_DTYPE="${GLOSSA_DTYPE:-float32}"
# Compiled modules are kept: with PYTHONDONTWRITEBYTECODE set (some machines set it), every
# process the suite starts (each Celery worker, each CLI run) compiles the project again.
unset PYTHONDONTWRITEBYTECODE
PYTEST=(.venv/bin/python -m pytest -p tests.support.parallel)

if [ $# -gt 0 ]; then
  exec "${PYTEST[@]}" "$@"
fi

cores=$(nproc)
processes="${GLOSSA_TEST_PROCESSES:-$((cores < 4 ? cores : 4))}"
status=0
if [ "$processes" -gt 1 ]; then
  "${PYTEST[@]}" -n "$processes" --dist loadscope --no-loadscope-reorder -m "not serial" || status=$?
else
  "${PYTEST[@]}" -m "not serial" || status=$?
fi
# The serial tests' files only (collecting the whole suite again costs half a minute);
# pytest exits 5 when nothing is selected: not a failure here
mapfile -t serial < <(grep -rlE "pytest\.mark\.serial|mark\.serial\b" tests --include='test_*.py' | sort)
if [ "${#serial[@]}" -gt 0 ]; then
  "${PYTEST[@]}" -m serial "${serial[@]}" || { rc=$?; [ "$rc" -eq 5 ] || status=$rc; }
fi
exit "$status"
