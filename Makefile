# The two commands of the README: `make run` and `make test`. `make setup` creates .venv for both.
# Variables: PYTHON (the interpreter that creates .venv), PYTEST_ARGS (extra pytest arguments for `make test`),
# REQUIRE_SERVICES=1 (a missing PostgreSQL/redis-server, or ../shared's corpus, fails the tests instead of skipping
# them), PORT (where `make run` serves, default 8000).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PYTEST := $(VENV)/bin/pytest
STAMP := $(VENV)/.installed
REQUIREMENTS := $(wildcard requirements/*.txt)
PYTEST_ARGS ?=
REQUIRE_SERVICES ?=
PORT ?= 8000
export REQUIRE_SERVICES

.PHONY: setup run test test-fast lint bench

setup: $(STAMP)

# Reinstalls only when a requirements file is newer than the stamp (or .venv is new).
$(STAMP): $(REQUIREMENTS)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --no-input -r requirements/dev.txt
	@touch $(STAMP)

# devserver: Django's runserver plus, without CELERY_BROKER_URL, celery beat's schedule in its process (delivery
# retries, due syncs: registry/management/dev_beat.py). Events written outside a request name the port served.
run: export REGISTRY_BASE_URL ?= http://127.0.0.1:$(PORT)
run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	@echo ""
	@echo "  CloudEvents Registry on http://127.0.0.1:$(PORT)/"
	@echo "    API (xRegistry core binding):  http://127.0.0.1:$(PORT)/   (try /?model, /schemaGroups)"
	@echo "    Admin (governance UI):         http://127.0.0.1:$(PORT)/admin/"
	@echo "    API docs (OpenAPI):            http://127.0.0.1:$(PORT)/api/docs/"
	@echo "    Log in as admin / admin (load_demo creates it for local use when no superuser exists)."
	@echo "    A token for writes:            $(PY) manage.py drf_create_token admin"
	@echo ""
	$(PY) manage.py devserver 127.0.0.1:$(PORT)

# Both runs always happen, side by side (each starts its own servers on free ports); the target fails when either
# failed. The PostgreSQL run prints as it goes; the SQLite run's output (var/test-sqlite.log) follows it.
# TEST_SERIAL=1 runs them one after the other instead.
test: setup
	@status=0; mkdir -p var; \
	if [ -n "$(TEST_SERIAL)" ]; then \
	  echo ""; echo "== test suite on SQLite =="; \
	  $(PYTEST) $(PYTEST_ARGS) || status=1; \
	  echo ""; echo "== test suite on PostgreSQL (throwaway server) =="; \
	  REGISTRY_TEST_DB=postgres $(PYTEST) $(PYTEST_ARGS) || status=1; \
	else \
	  echo ""; echo "== test suites on SQLite and on PostgreSQL, side by side (SQLite: var/test-sqlite.log) =="; \
	  ( $(PYTEST) $(PYTEST_ARGS) > var/test-sqlite.log 2>&1; echo $$? > var/test-sqlite.rc ) & \
	  echo ""; echo "== test suite on PostgreSQL (throwaway server) =="; \
	  REGISTRY_TEST_DB=postgres $(PYTEST) $(PYTEST_ARGS) || status=1; \
	  wait; \
	  echo ""; echo "== test suite on SQLite =="; cat var/test-sqlite.log; \
	  [ "$$(cat var/test-sqlite.rc)" = 0 ] || status=1; \
	fi; \
	if [ $$status -ne 0 ]; then echo ""; echo "== make test: FAILED (see the runs above) =="; fi; \
	exit $$status

# The suite without the tests marked slow (browsers, brokers, Spark, live servers): the loop of a change in progress.
# `make test` stays the whole suite. Three runs side by side (each starts its own servers on free ports): two halves on
# SQLite (FAST_HALF holds about half the time) and, on a throwaway PostgreSQL, FAST_POSTGRES: the tests that reach the
# code only PostgreSQL runs (the `vendor == "postgresql"` branches: document keys, compiled reads, group states, kept
# earlier documents, the queued COMMIT and locked reads of a new version, Confluent numbering, full-text search, the
# race tests). Those run only there, not on SQLite as well, so the loop's CPU stays about what it was; `make test` runs
# them on both. The SQLite halves' output, then PostgreSQL's, follow the first half's; with PYTEST_ARGS (e.g. a test's
# path) one run on SQLite.
FAST_HALF := tests/catalog tests/endpoints tests/registry/documents tests/bindings/older tests/sync tests/subscriptions \
	tests/confluent
FAST_POSTGRES := tests/registry/postgres tests/registry/hardening/test_postgres_races.py \
	tests/registry/http/test_fast_reads.py tests/registry/http/test_rendered_groups.py \
	tests/registry/store/test_compiled_reads.py tests/registry/store/test_change_marker.py \
	tests/bindings/v05/test_versions.py tests/catalog/test_earlier_documents.py \
	tests/confluent/test_numbering.py tests/registry/admin/test_search.py tests/registry/hardening/test_large_imports.py
test-fast: setup
	@if [ -n "$(PYTEST_ARGS)" ]; then $(PYTEST) -m "not slow" $(PYTEST_ARGS); exit $$?; fi; \
	mkdir -p var; status=0; \
	( $(PYTEST) -m "not slow" $(FAST_HALF) $(addprefix --ignore=,$(FAST_POSTGRES)) > var/test-fast-half.log 2>&1; \
	  echo $$? > var/test-fast-half.rc ) & \
	( REGISTRY_TEST_DB=postgres $(PYTEST) -m "not slow" $(FAST_POSTGRES) > var/test-fast-postgres.log 2>&1; \
	  echo $$? > var/test-fast-postgres.rc ) & \
	$(PYTEST) -m "not slow" tests $(addprefix --ignore=,$(FAST_HALF) $(FAST_POSTGRES)) || status=1; \
	wait; echo ""; echo "== the other half: $(FAST_HALF) =="; cat var/test-fast-half.log; \
	echo ""; echo "== on PostgreSQL (throwaway server): $(FAST_POSTGRES) =="; cat var/test-fast-postgres.log; \
	[ "$$(cat var/test-fast-half.rc)" = 0 ] || status=1; \
	[ "$$(cat var/test-fast-postgres.rc)" = 0 ] || status=1; \
	exit $$status

# What CI checks before the tests: ruff's lint rules and its formatting (run `ruff format .` to apply it), and mypy's
# types of the engine, registry/, and of the apps beside it (pyproject.toml [tool.mypy] names what it checks).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

bench: setup
	$(PY) bench/registry_api.py
