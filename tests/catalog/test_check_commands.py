"""Issue 15 item 5, CONTRACT section 12: the checks before shipping as management commands for CI pipelines.

`validate_messages FILE...` and `check_schema GROUP/SCHEMA FILE`, against the local store (call_command, the
service functions of the views) and against another server (`--registry URL`, a real gunicorn, the commands run
as a subprocess over an empty throwaway database). Exit 0 when all pass, 1 otherwise, 2 on usage errors.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from django.core.management import CommandError, call_command

from registry.documents.formats import parse_document
from registry.documents.imports import import_document
from registry.services import WriteContext
from tests.helpers import make_group, post_schema, snapshot

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "catalog" / "demo"
CUSTOMER_CREATED = "Contoso.CRM.Events/Contoso.CRM.Events.CustomerCreated"
JS_FORMAT = "JsonSchema/draft-07"


def customer_created(**changes) -> dict:
    event = {
        "specversion": "1.0",
        "type": "Contoso.CRM.Events.CustomerCreated",
        "id": "c-1",
        "source": "/crm/customers",
        "time": "2024-05-01T10:00:00Z",
        "data": {"customerId": "42", "name": "Ada"},
    }
    event.update(changes)
    return {k: v for k, v in event.items() if v is not None}


def js(properties: dict, required=()) -> bytes:
    return json.dumps(
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": properties,
            "required": list(required),
        }
    ).encode()


JS_V1 = js({"id": {"type": "string"}, "amount": {"type": "number"}}, ["id"])
JS_OK = js({"id": {"type": "string"}, "amount": {"type": "number"}, "note": {"type": "string"}}, ["id"])
JS_BAD = js({"id": {"type": "integer"}, "amount": {"type": "number"}}, ["id", "amount"])


def motion() -> dict:
    return {
        "specversion": "1.0",
        "type": "Fabrikam.Watchkam.MotionDetected",
        "id": "m-1",
        "source": "contoso/cam-7",
        "time": "2024-05-01T10:00:00Z",
        "subject": "motion-1",
        "data": {
            "tenantid": "contoso",
            "deviceid": "cam-7",
            "motionid": "m1",
            "location": "door",
            "time": 1714557600,
            "imageUrl": "https://example.com/1.jpg",
            "motionType": "person",
        },
    }


def jsonl(path: Path, *messages) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))
    return path


def run(*args) -> tuple[int, str]:
    """call_command: (exit status, stdout); CommandError is its returncode, SystemExit its code."""
    out = io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=io.StringIO())
        code = 0
    except SystemExit as exc:
        code = exc.code
    except CommandError as exc:
        out.write(str(exc))
        code = exc.returncode
    return code, out.getvalue()


@pytest.fixture
def demo(db):
    for name in ("contoso-crm.cereg", "watchkam-jsons07.cereg", "lightbulb-avro.cereg"):
        import_document(WriteContext(user="demo"), parse_document((DEMO / name).read_bytes(), yaml_format=False))


# --- validate_messages, local ---------------------------------------------------------------------------------


def test_validate_messages_all_valid(demo, tmp_path):
    before = snapshot()
    lines = jsonl(
        tmp_path / "events.jsonl",
        customer_created(),
        customer_created(id="c-2"),
        {"definition": CUSTOMER_CREATED, "message": customer_created(id="c-3")},
    )
    single = tmp_path / "one.json"
    single.write_text(json.dumps(customer_created(), indent=2))
    assert run("validate_messages", str(lines), str(single)) == (0, "4 messages, 0 invalid\n")
    assert run("validate_messages", str(lines), "--group", "Contoso.CRM.Events") == (0, "3 messages, 0 invalid\n")
    both = jsonl(tmp_path / "both.jsonl", motion(), customer_created())
    assert run("validate_messages", str(both)) == (0, "2 messages, 0 invalid\n")
    assert run("validate_messages", str(single), "--definition", CUSTOMER_CREATED) == (0, "1 messages, 0 invalid\n")
    assert snapshot() == before


def test_validate_messages_reports_each_problem(demo, tmp_path):
    path = jsonl(
        tmp_path / "events.jsonl",
        customer_created(),
        customer_created(source=None),
        customer_created(type="com.example.unknown"),
    )
    with path.open("a") as stream:
        stream.write("\n{not json\n")
    code, out = run("validate_messages", str(path))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{path}:2: metadata.source: required but missing"
    assert lines[1].startswith(f"{path}:3: message: ") and "com.example.unknown" in lines[1]
    assert lines[2].startswith(f"{path}:5: message: not JSON")
    assert lines[-1] == "4 messages, 3 invalid"
    # the group limits where the type is looked for
    code, out = run(
        "validate_messages", str(jsonl(tmp_path / "a.jsonl", customer_created())), "--group", "Fabrikam.Watchkam"
    )
    assert code == 1 and out.splitlines()[-1] == "1 messages, 1 invalid"


def test_validate_messages_data_errors_name_their_path(db, su, tmp_path):
    from tests.helpers import make_definition_group, post_definition

    make_definition_group(su, "orders")
    post_definition(
        su,
        "orders",
        "created",
        {
            "format": "CloudEvents/1.0",
            "metadata": {"attributes": {"type": {"value": "com.example.order.created"}}},
            "schemaformat": JS_FORMAT,
            "schema": {"type": "object", "properties": {"orderId": {"type": "string"}}, "required": ["orderId"]},
        },
    )
    event = {
        "specversion": "1.0",
        "type": "com.example.order.created",
        "id": "1",
        "source": "/x",
        "data": {"orderId": 5},
    }
    path = jsonl(tmp_path / "m.jsonl", event)
    code, out = run("validate_messages", str(path), "--definition", "orders/created")
    assert code == 1
    assert out.splitlines() == [f"{path}:1: data.orderId: 5 is not of type 'string'", "1 messages, 1 invalid"]


def test_validate_messages_usage_errors(demo, tmp_path):
    assert run("validate_messages", str(tmp_path / "missing.jsonl"))[0] == 2
    path = jsonl(tmp_path / "m.jsonl", customer_created())
    assert run("validate_messages", str(path), "--definition", "no-slash")[0] == 2
    assert run("validate_messages", str(path), "--token", "abc")[0] == 2


# --- check_schema, local --------------------------------------------------------------------------------------


@pytest.fixture
def schema(su):
    make_group(su)
    post_schema(su, body=JS_V1, content_type="application/json", fmt=JS_FORMAT)


def test_check_schema_compatible(schema, tmp_path):
    before = snapshot()
    candidate = tmp_path / "order.json"
    candidate.write_bytes(JS_OK)
    assert run("check_schema", "g1/s1", str(candidate)) == (
        0,
        "compatible (level backward_transitive, against versions 1)\n",
    )
    assert snapshot() == before


def test_check_schema_incompatible(schema, tmp_path):
    before = snapshot()
    candidate = tmp_path / "order.json"
    candidate.write_bytes(JS_BAD)
    code, out = run("check_schema", "g1/s1", str(candidate), "--format", JS_FORMAT)
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == "incompatible (level backward_transitive, against versions 1)"
    assert len(lines) >= 2 and all(line.startswith("1: ") and line.count(": ") >= 3 for line in lines[:-1])
    assert snapshot() == before


def test_check_schema_errors(schema, tmp_path):
    candidate = tmp_path / "order.json"
    candidate.write_bytes(JS_OK)
    code, out = run("check_schema", "g1/nope", str(candidate))
    assert code == 2 and "nope" in out
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"{not json")
    code, out = run("check_schema", "g1/s1", str(broken))
    assert code == 2 and out.startswith("g1/s1: ")
    assert run("check_schema", "just-one", str(candidate))[0] == 2


# --- both, remote -------------------------------------------------------------------------------------------


def manage(tmp_path: Path, *args) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "SQLITE_PATH": str(tmp_path / "absent" / "never.sqlite3"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    env.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
@pytest.mark.own_sqlite_server
def test_commands_against_a_remote_registry(tmp_path):
    from tests.harness.gunicorn import start_gunicorn

    server_dir = tmp_path / "server"
    server_dir.mkdir()
    process, base, token = start_gunicorn(
        server_dir, REGISTRY_PUBLIC_READ="false", REGISTRY_PAGE_SIZE="1"
    )  # the group listing comes in pages
    try:
        auth = {"Authorization": f"Token {token}"}
        with httpx.Client(base_url=base, headers=auth, timeout=30) as client:
            for name in ("contoso-crm.cereg", "watchkam-jsons07.cereg"):
                response = client.post(
                    "/", content=(DEMO / name).read_bytes(), headers={"Content-Type": "application/json"}
                )
                assert response.status_code == 200, response.text
            assert client.post("/schemaGroups", json={"id": "g1"}).status_code == 201
            response = client.post(
                "/schemaGroups/g1/schemas",
                content=JS_V1,
                headers={"Content-Type": "application/json", "Registry-id": "s1", "Registry-format": JS_FORMAT},
            )
            assert response.status_code == 201, response.text
        (tmp_path / "absent").mkdir()
        # without --group: the type is looked for in each definition group (listed page by page)
        good = jsonl(tmp_path / "good.jsonl", customer_created(), motion(), customer_created(id="c-2"))
        bad = jsonl(
            tmp_path / "bad.jsonl",
            customer_created(),
            customer_created(source=None),
            {"definition": CUSTOMER_CREATED, "message": customer_created(time="yesterday")},
        )
        result = manage(tmp_path, "validate_messages", str(good), "--registry", base, "--token", token)
        assert (result.returncode, result.stdout) == (0, "3 messages, 0 invalid\n"), result.stderr
        result = manage(
            tmp_path,
            "validate_messages",
            str(bad),
            "--registry",
            base,
            "--token",
            token,
            "--group",
            "Contoso.CRM.Events",
        )
        assert result.returncode == 1, result.stderr
        lines = result.stdout.splitlines()
        assert lines[0] == f"{bad}:2: metadata.source: required but missing"
        assert lines[1].startswith(f"{bad}:3: metadata.time: ")
        assert lines[-1] == "3 messages, 2 invalid"
        # reads are not public here: without the token the server refuses, which is no verdict (exit 2)
        result = manage(tmp_path, "validate_messages", str(good), "--registry", base)
        assert result.returncode == 2 and "401" in result.stderr, (result.stdout, result.stderr)

        ok, incompatible = tmp_path / "ok.json", tmp_path / "bad.json"
        ok.write_bytes(JS_OK)
        incompatible.write_bytes(JS_BAD)
        result = manage(tmp_path, "check_schema", "g1/s1", str(ok), "--registry", base, "--token", token)
        assert (result.returncode, result.stdout) == (
            0,
            "compatible (level backward_transitive, against versions 1)\n",
        ), result.stderr
        result = manage(tmp_path, "check_schema", "g1/s1", str(incompatible), "--registry", base, "--token", token)
        assert result.returncode == 1, result.stderr
        assert result.stdout.splitlines()[-1] == "incompatible (level backward_transitive, against versions 1)"
        assert result.stdout.splitlines()[0].startswith("1: ")
        result = manage(tmp_path, "check_schema", "g1/nope", str(ok), "--registry", base, "--token", token)
        assert result.returncode == 2 and "404" in result.stderr
        assert not (tmp_path / "absent" / "never.sqlite3").exists()
    finally:
        process.stop()
