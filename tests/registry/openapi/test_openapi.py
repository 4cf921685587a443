"""The OpenAPI document: valid with no warning, and the server keeps to it under generated requests.

schemathesis runs as its users run it (`st run`, the checkout's schemathesis.toml) against the production
server (gunicorn) holding the demo registry, with every check (`--checks all`: no 5xx, status codes, media
types, response shapes, schema-valid requests accepted, schema-violating ones rejected, public reads,
stateful links), a fixed seed, deterministic generation and about 9,700 requests (every phase: examples,
coverage, fuzzing, stateful; in two halves, one in each run of `make test`); it must find nothing.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.harness.gunicorn import ROOT, start_gunicorn


def test_spectacular_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "openapi.yaml"))
    assert (tmp_path / "openapi.yaml").stat().st_size > 10_000


def test_document_states_the_rules_the_server_enforces(tmp_path):
    call_command("spectacular", "--format", "openapi-json", "--file", str(tmp_path / "openapi.json"))
    doc = json.loads((tmp_path / "openapi.json").read_text())
    put_group = doc["paths"]["/schemaGroups/{gid}"]["put"]
    gid = next(p for p in put_group["parameters"] if p["name"] == "gid")
    assert gid["schema"]["maxLength"] == 128 and re.fullmatch(gid["schema"]["pattern"].strip("^$"), "a.b-c")
    body = put_group["requestBody"]["content"]["application/json"]["schema"]
    assert body["properties"]["compatibility"]["enum"][:2] == ["none", "backward"]
    assert body["additionalProperties"] is False and "id" not in body["properties"]
    assert {} in doc["paths"]["/schemaGroups"]["get"]["security"]  # public read: authentication optional
    assert {} not in doc["paths"]["/subscriptions"]["get"]["security"]
    assert "required" in doc["paths"]["/definitionGroups"]["post"]["requestBody"]
    definition_group = doc["paths"]["/definitionGroups"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    # REQUIRED and not null where a body follows the seed (issue 39 item 2), optional in a document import
    assert "format" in definition_group["required"] and definition_group["properties"]["format"]["type"] == "string"
    assert definition_group["properties"]["format"]["pattern"]
    catalog = doc["paths"]["/messagecatalog/{gid}"]["put"]["requestBody"]["content"]["application/json"]["schema"]
    assert "format" in catalog["required"]
    imported = doc["paths"]["/"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    imported_group = imported["properties"]["definitionGroups"]["additionalProperties"]
    assert "format" not in imported_group["required"] and "null" in imported_group["properties"]["format"]["type"]
    owners = next(p for p in doc["paths"]["/"]["post"]["parameters"] if p["name"] == "owners")
    assert sorted(owners["schema"]["enum"]) == ["drop", "keep"]
    assert set(doc["paths"]["/schemaGroups"]["post"]["requestBody"]["content"]) == {"application/json"}
    for path in ("/schemaGroups", "/audit"):  # continuation tokens come from Link headers only
        assert "page" not in {p["name"] for p in doc["paths"][path]["get"]["parameters"]}


# The phases in two halves, each with its own server, one in each run of `make test` (they are the longest test
# of the suite, about 110 s and 85 s here; together in one run they made it the longer run by far). Each half
# still runs against a gunicorn of its own over SQLite, whatever the suite's database.
PHASE_HALVES = [
    pytest.param("coverage", 5000, marks=pytest.mark.own_sqlite_server, id="coverage"),
    pytest.param("examples,fuzzing,stateful", 1500, marks=pytest.mark.postgres_run, id="examples-fuzzing-stateful"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("phases", "min_requests"), PHASE_HALVES)
def test_schemathesis_with_all_checks_finds_nothing(tmp_path, phases, min_requests):
    process, base, token = start_gunicorn(tmp_path, workers=2, demo=True)
    try:
        run = subprocess.run(
            [
                str(Path(sys.executable).parent / "st"),
                "--config-file",
                str(ROOT / "schemathesis.toml"),
                "run",
                f"{base}/api/schema/?format=json",
                "--url",
                base,
                "--checks",
                "all",
                "--max-examples",
                "10",
                "--phases",
                phases,
                "--seed",
                "1",
                "--generation-deterministic",
                "--no-color",
                "-H",
                f"Authorization: Token {token}",
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        process.stop()
    output = run.stdout + run.stderr
    generated = re.search(r"(\d+) generated", output)
    assert run.returncode == 0, output[-20000:]
    assert generated and int(generated.group(1)) >= min_requests, output[-2000:]
