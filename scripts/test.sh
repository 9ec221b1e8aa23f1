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
# The proxy tests run Debian's nginx in front of two server processes (deploy/nginx.conf, their
# own ports and folders; the package's own service is not needed).
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx
  else
    echo "nginx is not installed: the proxy tests will be skipped" >&2
  fi
fi
python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -e '.[test]'
# From npm: axe-core for the web table's accessibility check, ws for the load benchmark's Node.js
# clients (one install: a second would remove the first's packages); skipped with a reason without npm.
if command -v npm >/dev/null 2>&1; then
  npm install --prefix .venv/npm --no-save --no-audit --no-fund --silent axe-core@4 ws@8 >/dev/null || true
fi
.venv/bin/ruff check src tests benchmarks examples
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
# The message catalogs (src/hearts/locale): every message of the sources translated in every
# language, none unused (last line: languages=N messages=M missing=0 unused=0).
.venv/bin/python -m hearts.i18n --check
# PostgreSQL for the storage tests: $PYHEARTS_TEST_PG or 127.0.0.1:5432 if it answers, else a
# private cluster in a temporary directory (installing Debian's postgresql when run as root).
PYHEARTS_TEST_PG="$(scripts/postgres.sh)"
export PYHEARTS_TEST_PG
trap 'scripts/postgres.sh stop' EXIT
# The bots' compiled kernel (numba; what the bots register with fast.prepare), compiled and
# cached once now, as `hearts serve` and `hearts play` do at their start: in a fresh clone no
# test's server or command then pays the first compile (half a minute, more on a busy machine)
# within its own time limit.
.venv/bin/python -c 'import hearts.bots; from hearts import fast; fast.prepare(print)'
# Two workers, each taking a whole test file at a time (the files' module fixtures, a server or
# a browser, are made once); PYHEARTS_TEST_WORKERS=0 runs the suite in this process.
.venv/bin/python -m pytest -n "${PYHEARTS_TEST_WORKERS:-2}" --dist loadfile "$@"
# The whole run (no arguments) also tries the lowest versions the dependency ranges allow.
if [ "$#" -eq 0 ]; then
  scripts/lowest.sh
fi
