#!/usr/bin/env bash
# Time to the first page of `make demo`: in a fresh clone (venv, migrations, data, workers:
# everything), then a second start of the same clone. Not a test: run by hand, figures go
# to BENCHMARKS.md ("The demo from a bare clone").
#
#   bash benchmarks/demo_start.sh [PORT]
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${1:-8765}"
CLONE="$(mktemp -d)/glossa"
git clone -q "$REPO" "$CLONE"
echo "clone: $CLONE ($(git -C "$CLONE" rev-parse --short HEAD)), nothing beside it"

first_page() {  # start `make demo`, wait for HTTP 200 on /, print the seconds, stop it
  local started=$SECONDS log="$CLONE/demo-$1.log"
  (cd "$CLONE" && setsid make demo PORT="$PORT" >"$log" 2>&1) &
  local pid=$!
  until curl -fsS -o /dev/null "http://127.0.0.1:$PORT/"; do
    if ! kill -0 "$pid" 2>/dev/null; then echo "make demo exited; see $log" >&2; tail -20 "$log" >&2; exit 1; fi
    sleep 1
  done
  echo "$1 start: first page after $((SECONDS - started)) s"
  grep -m1 "^Admin:" "$log" || true
  # make runs in its own session: stopping its process group stops the site and workers.
  kill -TERM -- -"$(pgrep -f "make demo PORT=$PORT" | head -1)" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  for _ in $(seq 30); do curl -fsS -o /dev/null "http://127.0.0.1:$PORT/" 2>/dev/null || break; sleep 1; done
}

first_page fresh
first_page second
