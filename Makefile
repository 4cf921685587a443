# The two commands of the README: `make run` and `make test`. `make setup` creates .venv for both.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements/base.txt requirements/dev.txt | md5sum | cut -c1-12)

.PHONY: setup run test test-sqlite test-postgres lint bench

setup: $(STAMP)

$(STAMP): requirements/base.txt requirements/dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

run: setup
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	@echo ""
	@echo "  CloudEvents Registry on http://127.0.0.1:8000/"
	@echo "    API (xRegistry core binding):  http://127.0.0.1:8000/   (try /?model, /schemaGroups)"
	@echo "    Admin (governance UI):         http://127.0.0.1:8000/admin/   login admin / admin (created for local use when no superuser exists)"
	@echo "    API docs (OpenAPI):            http://127.0.0.1:8000/api/docs/"
	@echo "    A token for writes:            .venv/bin/python manage.py drf_create_token admin"
	@echo ""
	$(PY) manage.py runserver 127.0.0.1:8000

test: setup
	@echo "== test suite on SQLite =="
	$(PY) -m pytest
	@echo "== test suite on PostgreSQL (throwaway server) =="
	REGISTRY_TEST_DB=postgres $(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check .

bench: setup
	$(PY) bench/registry_api.py
