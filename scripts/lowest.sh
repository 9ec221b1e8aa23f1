#!/usr/bin/env bash
# The lowest versions the dependency ranges allow: a virtual environment of its own
# (.venv/lowest) resolved by uv with --resolution lowest-direct (every package pyproject.toml
# names directly at the lowest version its range admits, what they need at the newest), and the
# fast part of the suite run on it, so that a '>=' too low to work is caught as surely as a
# missing dependency. Run by scripts/test.sh after the main suite; needs .venv (with uv) and
# $PYHEARTS_TEST_PG.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .venv/lowest
.venv/bin/uv venv -q --python "$(.venv/bin/python -c 'import sys; print(sys._base_executable)')" .venv/lowest
VIRTUAL_ENV=.venv/lowest .venv/bin/uv pip install -q --resolution lowest-direct -e '.[test]'
# What the dependencies touch: the bots (OpenSpiel's among them), the records and cards
# (hypothesis), the command line, the research adapters, the terminal table, both storages and
# the web service end to end. The rule engine needs only the standard library, and the browser,
# Ray and the benchmarks are left to the main run.
# (numba keeps this run's compiled kernel apart from the main environment's, compiled first as in
# scripts/test.sh)
export NUMBA_CACHE_DIR=.venv/lowest/numba-cache
.venv/lowest/bin/python -c 'import hearts.bots; from hearts import fast; fast.prepare(print)'
.venv/lowest/bin/python -m pytest -q -p no:cacheprovider -o addopts="" -n 2 --dist loadfile \
  tests/test_cards.py tests/test_rules_options.py tests/test_record.py tests/test_bots.py \
  tests/test_cli.py tests/test_rl_envs.py tests/test_rl_vector.py tests/test_rl_openspiel_game.py tests/test_openspiel_differential.py \
  tests/test_tui.py tests/test_server_store.py tests/test_server_store_pg.py tests/test_server_wire.py \
  "tests/test_server.py::test_full_game_four_clients_and_r7_audit" \
  "tests/test_server.py::test_bad_input_gets_an_error_and_changes_nothing" \
  "tests/test_server.py::test_lobby_api" "tests/test_server.py::test_bots_play_with_one_person"
