"""Time `manage.py validate_messages` in process (issue 15 item 5; goal >= 2,000 messages/s on one core): a
definition group with one CloudEvents definition whose data schema is a JSON Schema object (SQLite in a
temporary file), N valid messages in a JSON lines file, validated by the local path (the command, type lookup
within all groups). Prints messages/s; also the per-message service path of the view (definition picked by type
for each message) for comparison. `--profile` prints the cProfile top of the command's run.

    .venv/bin/python bench/validate_messages.py [--messages 20000] [--profile]
"""

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["DATABASE_URL"] = ""

DEFINITION = {
    "format": "CloudEvents/1.0",
    "metadata": {
        "attributes": {
            "type": {"value": "com.example.order.created"},
            "source": {"value": "/{tenant}/orders"},
            "time": {"type": "timestamp", "required": True},
        }
    },
    "schemaformat": "JsonSchema/draft-07",
    "schema": {
        "type": "object",
        "required": ["orderId", "amount", "items"],
        "properties": {
            "orderId": {"type": "string", "pattern": "^o-[0-9]+$"},
            "amount": {"type": "number", "minimum": 0},
            "currency": {"type": "string", "enum": ["EUR", "USD"]},
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["sku", "quantity"],
                    "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}},
                },
            },
        },
    },
}


def message(i: int) -> dict:
    return {
        "specversion": "1.0",
        "type": "com.example.order.created",
        "id": f"e-{i}",
        "source": f"/tenant{i % 7}/orders",
        "time": "2024-05-01T10:00:00Z",
        "datacontenttype": "application/json",
        "data": {
            "orderId": f"o-{i}",
            "amount": i * 1.5,
            "currency": "EUR",
            "items": [{"sku": f"sku-{i % 13}", "quantity": 1 + i % 3}],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp())
    os.environ["SQLITE_PATH"] = str(workdir / "bench.sqlite3")
    import django

    django.setup()
    from django.core.management import call_command

    from catalog import message_checks
    from registry.documents.imports import import_document
    from registry.services import WriteContext

    call_command("migrate", verbosity=0)
    import_document(
        WriteContext(user="bench"),
        {
            "definitionGroups": {
                "orders": {
                    "format": "CloudEvents/1.0",
                    "definitions": {"created": {"versions": {"1": {"definition": DEFINITION}}}},
                }
            }
        },
    )
    path = workdir / "messages.jsonl"
    with path.open("w") as stream:
        for i in range(args.messages):
            stream.write(json.dumps(message(i)) + "\n")

    out = io.StringIO()
    started = time.perf_counter()
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
    try:
        call_command("validate_messages", str(path), stdout=out)
    except SystemExit as exc:
        raise SystemExit(f"unexpected invalid messages: {out.getvalue()[-2000:]}") from exc
    elapsed = time.perf_counter() - started
    if args.profile:
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    print(
        f"validate_messages (local): {args.messages} messages in {elapsed:.2f} s: "
        f"{args.messages / elapsed:,.0f} messages/s ({out.getvalue().strip()})"
    )

    count = min(args.messages, 5000)
    messages = [message(i) for i in range(count)]
    started = time.perf_counter()
    for value in messages:
        parsed = message_checks.parse_message("application/cloudevents+json", value)
        _did, doc = message_checks.definition_for_type("orders", message_checks.event_type(parsed))
        assert message_checks.check_message(doc, parsed)["valid"]
    elapsed = time.perf_counter() - started
    print(
        f"view service path (definition picked per message): {count} messages in {elapsed:.2f} s: "
        f"{count / elapsed:,.0f} messages/s"
    )


if __name__ == "__main__":
    main()
