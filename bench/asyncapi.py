"""Time the AsyncAPI import and export of a large document, in process (SQLite in a temporary file, or the database
of DATABASE_URL when it is set): an AsyncAPI 3.0 document of N channels (default 1,000), each with one CloudEvents
message over Kafka whose payload is a component JSON Schema, a `send` operation per channel and two Kafka servers.
Prints seconds for: the first import, the same document again (nothing changes), a new `info.version` with one
payload in ten changed (new schema versions), the export of every group as one document (and its check against
the official AsyncAPI 3.0 schema), of one group, and of an endpoint referencing every group.

    .venv/bin/python bench/asyncapi.py [--channels 1000]
"""

import argparse
import copy
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("REGISTRY_IMPORT_MAX_ENTITIES", "1000000")


def document(channels: int) -> dict:
    doc = {
        "asyncapi": "3.0.0",
        "info": {"title": "Bench", "version": "1.0.0"},
        "servers": {
            "east": {"host": "kafka-east.example.com:9092", "protocol": "kafka"},
            "west": {"host": "kafka-west.example.com:9092", "protocol": "kafka"},
        },
        "channels": {},
        "operations": {},
        "components": {"messages": {}, "schemas": {}},
    }
    for i in range(channels):
        name = f"orders{i:05d}"
        doc["components"]["schemas"][f"{name}Payload"] = {
            "type": "object",
            "properties": {"id": {"type": "string"}, "amount": {"type": "number"}, "at": {"type": "string"}},
            "required": ["id"],
        }
        doc["components"]["messages"][name] = {
            "title": f"Order {i}",
            "summary": f"order event {i}",
            "contentType": "application/json",
            "headers": {
                "type": "object",
                "required": ["ce_id", "ce_type", "ce_source", "ce_specversion"],
                "properties": {
                    "ce_specversion": {"type": "string", "const": "1.0"},
                    "ce_id": {"type": "string"},
                    "ce_type": {"type": "string", "const": f"com.example.order{i}"},
                    "ce_source": {"type": "string", "const": "/orders/{region}"},
                    "ce_time": {"type": "string", "format": "date-time"},
                },
            },
            "payload": {"$ref": f"#/components/schemas/{name}Payload"},
        }
        doc["channels"][name] = {
            "address": f"orders.{i}.created",
            "messages": {name: {"$ref": f"#/components/messages/{name}"}},
        }
        doc["operations"][f"send{name}"] = {"action": "send", "channel": {"$ref": f"#/channels/{name}"}}
    return doc


def timed(label: str, fn):
    started = time.perf_counter()
    response = fn()
    seconds = time.perf_counter() - started
    print(f"{label}: HTTP {response.status_code} in {seconds:.2f} s")
    if response.status_code >= 400:
        print(response.content[:2000].decode(errors="replace"))
        sys.exit(1)
    return response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--channels", type=int, default=1000)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        os.environ["SQLITE_PATH"] = str(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from asyncapi.validators.specs import schema_errors

    settings.ALLOWED_HOSTS = ["*"]
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_superuser(f"bench{time.time_ns()}", "b@example.com", "pw")
    client = Client()
    client.force_login(user)
    doc = document(args.channels)
    body = json.dumps(doc)
    print(f"{args.channels} channels, {len(body) // 1024} KiB of JSON")

    def post(payload):
        return client.generic("POST", "/registry/asyncapi", payload, content_type="application/json")

    first = timed("import", lambda: post(body))
    print(f"  created {len(first.json()['created'])} entities")
    again = timed("the same document again", lambda: post(body))
    print(f"  unchanged {len(again.json()['unchanged'])}, created {len(again.json()['created'])}")
    moved = copy.deepcopy(doc)
    moved["info"]["version"] = "1.1.0"
    for i in range(0, args.channels, 10):
        moved["components"]["schemas"][f"orders{i:05d}Payload"]["properties"]["note"] = {"type": "string"}
    changed = timed("info.version 1.1.0, one payload in ten changed", lambda: post(json.dumps(moved)))
    print(f"  created {len(changed.json()['created'])} schema versions, updated {len(changed.json()['updated'])}")
    groups = "&".join(f"messagegroup=Bench.orders{i:05d}" for i in range(args.channels))
    exported = timed("export of every group as one document", lambda: client.get(f"/registry/asyncapi?{groups}"))
    started = time.perf_counter()
    errors = schema_errors(exported.json(), "3.0.0")
    print(
        f"  {len(exported.content) // 1024} KiB; official AsyncAPI 3.0.0 schema: {len(errors)} errors in "
        f"{time.perf_counter() - started:.2f} s"
    )
    timed("export of one group", lambda: client.get("/registry/messagegroups/Bench.orders00000/asyncapi"))
    timed(
        f"export of an endpoint referencing {args.channels} groups",
        lambda: client.get("/registry/endpoints/Bench.east.producer/asyncapi"),
    )
    timed(
        "the same endpoint as YAML",
        lambda: client.get("/registry/endpoints/Bench.east.producer/asyncapi", headers={"Accept": "application/yaml"}),
    )


if __name__ == "__main__":
    main()
