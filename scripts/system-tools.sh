#!/usr/bin/env bash
# The system programs the suite drives for real: Chromium and ChromeDriver (browser tests),
# nginx (the caching proxy's test, deploy/nginx/) and, as root, iproute2 (virtual hosts). Installs them with apt when this
# shell may (root, as on CI); otherwise stops at once with the one command to run.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium chromium-driver)
command -v nginx >/dev/null 2>&1 || missing+=(nginx-light)
# as root (CI), the multi-host test (tests/submissions/test_hosts.py) makes network namespaces
[ "$(id -u)" -ne 0 ] || command -v ip >/dev/null 2>&1 || missing+=(iproute2)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} (apt)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "The test suite needs: ${missing[*]}. Run:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
