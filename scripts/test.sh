#!/usr/bin/env bash
# Set up a virtual environment with every extra and run the linters and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# The web table's browser tests drive Debian's Chromium (Playwright's own download is not used).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
  else
    echo "chromium is not installed: the browser tests will be skipped" >&2
  fi
fi
python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -e '.[test]'
.venv/bin/ruff check src tests benchmarks examples
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
.venv/bin/python -m pytest "$@"
