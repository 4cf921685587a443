"""The worst inputs of issue 24 item 2 (and the Avro and item 8 ones), each timed through the HTTP API as an
anonymous caller would send it: every figure must end under 2 s, with a verdict or a problem naming a budget.

Each case runs in a child process of its own with a throwaway SQLite registry (migrated, then filled with what
the case needs, untimed), and is killed after `--cap` seconds, so the script also measures a checkout without
the budgets (the "before" figures: `> CAP s`). Prints one line per case: wall-clock seconds, CPU seconds (the
process and its children: Graphviz), the answer's status and what it said. The budgets count CPU time, so on a busy
machine the wall-clock figure is larger by the share of the CPU the process gets. Asserts nothing; exit status 1
when a case took 2 s or more of wall-clock time.

    .venv/bin/python bench/check_budgets.py [--cap 120] [--only map,xsd-assert-200]

Anonymous throttling is off here (REGISTRY_THROTTLE_ANON_*): each case is one request.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRUCTURED = "application/cloudevents+json"
JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
LIMIT = 2.0


# --- inputs -------------------------------------------------------------------------------------------------------


def chain(depth: int, keyword: str) -> bytes:
    levels = {f"l{i}": {keyword: [{"$ref": f"#/definitions/l{i + 1}"}] * 2} for i in range(depth)}
    levels[f"l{depth}"] = {"type": "string"}
    return json.dumps(
        {"definitions": levels, "type": "object", "properties": {"id": {"$ref": "#/definitions/l0"}}}
    ).encode()


def big_proto(messages: int) -> bytes:
    lines = ['syntax = "proto3";', "package bench;"]
    for i in range(messages):
        lines += [f"message M{i} {{", *(f"  string field_{j} = {j};" for j in range(1, 11)), "}"]
    return "\n".join(lines).encode()


NESTED_ASSERT = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
 <xs:element name="list"><xs:complexType><xs:sequence>
  <xs:element name="item" type="xs:integer" maxOccurs="unbounded"/>
 </xs:sequence>
 <xs:assert test="every $a in item satisfies every $b in item satisfies every $c in item satisfies ($a + $b + $c) ge 0"/>
 </xs:complexType></xs:element></xs:schema>"""
ANY = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
 <xs:element name="doc"><xs:complexType><xs:sequence>
  <xs:any processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
 </xs:sequence></xs:complexType></xs:element></xs:schema>"""


def event(data=None, **members) -> dict:
    out = {"specversion": "1.0", "type": "x.bench", "id": "1", "source": "/bench", **members}
    if data is not None:
        out["data"] = data
    return out


def zigzag(number: int) -> bytes:
    value, out = (number << 1) ^ (number >> 63), bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | 0x80 if value else byte)
        if not value:
            return bytes(out)


# --- the registry each case needs -----------------------------------------------------------------------------------


def writer():
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    user = get_user_model().objects.create_superuser("bench", "bench@example.com", "bench")
    client = APIClient()
    client.force_authenticate(user)
    return client


def send(client, method, path, body=b"", content_type=JSON, expect=None, **registry):
    headers = {f"Registry-{k}": v for k, v in registry.items()}
    response = client.generic(method, path, body, content_type=content_type, headers=headers)
    if expect is not None and response.status_code != expect:
        raise SystemExit(f"setup: {method} {path}: {response.status_code} {response.content[:300]!r}")
    return response


def schema(client, sid: str, document: bytes, fmt: str, media_type: str = JSON, **attrs):
    send(client, "POST", "/schemaGroups", json.dumps({"id": "bench"}).encode(), expect=None)
    send(client, "POST", "/schemaGroups/bench/schemas", document, media_type, 201, id=sid, format=fmt, **attrs)


def definition(client, did: str, schema_document, schemaformat: str):
    send(client, "POST", "/definitionGroups", json.dumps({"id": "bench", "format": "CloudEvents/1.0"}).encode())
    doc = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "x.bench"}}},
        "schemaformat": schemaformat,
        "schema": schema_document,
    }
    send(client, "POST", "/definitionGroups/bench/definitions", json.dumps(doc).encode(), JSON, 201, id=did)


def big_registry(groups: int = 1000, references: int = 20_000):
    """`groups` groups of each type; endpoints referencing definition groups (`references` in all), each definition
    referencing a schema: imported in one document, in process."""
    from registry.documents.imports import import_document
    from registry.services import WriteContext

    per_endpoint = references // groups
    document = {"specversion": "0.5-wip", "endpoints": {}, "definitionGroups": {}, "schemaGroups": {}}
    for g in range(groups):
        document["schemaGroups"][f"s{g}"] = {
            "id": f"s{g}",
            "schemas": {
                "S": {
                    "id": "S",
                    "format": "JsonSchema/draft-07",
                    "versions": {"1": {"id": "1", "schema": {"type": "object"}}},
                }
            },
        }
        document["definitionGroups"][f"d{g}"] = {
            "id": f"d{g}",
            "format": "CloudEvents/1.0",
            "definitions": {
                "D": {
                    "id": "D",
                    "format": "CloudEvents/1.0",
                    "metadata": {"attributes": {"type": {"value": f"x.{g}"}}},
                    "schemaformat": "JsonSchema/draft-07",
                    "schemaurl": f"#/schemaGroups/s{g}/schemas/S",
                }
            },
        }
        document["endpoints"][f"e{g}"] = {
            "id": f"e{g}",
            "usage": "producer",
            "config": {"protocol": "HTTP", "endpoints": ["https://example.com/events"]},
            "format": "CloudEvents/1.0",
            "definitionGroups": [f"#/definitionGroups/d{(g + k) % groups}" for k in range(per_endpoint)],
        }
    import_document(WriteContext(user="bench"), document)


# --- the cases: (setup(client) -> request) --------------------------------------------------------------------------


def dry_run(sid, candidate, media_type=JSON, fmt="JsonSchema/draft-07", stored=None, **attrs):
    def setup(client):
        schema(
            client,
            sid,
            stored or json.dumps({"type": "object", "properties": {"id": {"type": "string"}}}).encode(),
            fmt,
            media_type,
            **attrs,
        )
        return ("POST", f"/schemaGroups/bench/schemas/{sid}/compatibility", candidate, media_type)

    return setup


def version_write(sid, candidate, media_type, fmt, stored):
    def setup(client):
        schema(client, sid, stored, fmt, media_type)
        return ("POST", f"/schemaGroups/bench/schemas/{sid}", candidate, media_type, client)

    return setup


def validate(did, schema_document, schemaformat, message, v1=False):
    def setup(client):
        definition(client, did, schema_document, schemaformat)
        path = (
            f"/registry/messagegroups/bench/messages/{did}/validate"
            if v1
            else f"/definitionGroups/bench/definitions/{did}/validate"
        )
        return ("POST", path, json.dumps(message).encode(), STRUCTURED)

    return setup


def diff():
    def setup(client):
        def enum_schema(prefix):
            values = [f"{prefix}{i}" for i in range(20_000)]
            return json.dumps({"type": "object", "properties": {"code": {"enum": values}}}).encode()

        schema(client, "codes", enum_schema("v"), "JsonSchema/draft-07", compatibility="none")
        send(client, "POST", "/schemaGroups/bench/schemas/codes", enum_schema("w"), JSON, 201)
        return ("GET", "/schemaGroups/bench/schemas/codes/versions/1/diff/2", b"", JSON)

    return setup


def whole_map():
    def setup(client):
        big_registry()
        return ("GET", "/map.svg", b"", JSON)

    return setup


PROTO_STORED = b'syntax = "proto3";\npackage bench;\nmessage M0 {\n  string field_1 = 1;\n}\n'
XML_2MB = "<doc>" + "<x a='1'><y>t</y></x>" * 95_000 + "</doc>"
CASES = {
    "compat-anyof-ref-depth20": dry_run("js", chain(20, "anyOf"), compatibility="full"),
    "compat-allof-ref-depth18": dry_run("js", chain(18, "allOf"), compatibility="full"),
    "compat-oneof-two-32000-enums": dry_run(
        "js", json.dumps({"oneOf": [{"enum": list(range(32_000))}, {"enum": list(range(32_000, 64_000))}]}).encode()
    ),
    "compat-protobuf-0.73MB": dry_run("pb", big_proto(3000), TEXT, "Protobuf/3", PROTO_STORED),
    "write-protobuf-0.73MB": version_write("pb", big_proto(3000), TEXT, "Protobuf/3", PROTO_STORED),
    "validate-pattern-backtracking": validate(
        "p", {"type": "string", "pattern": "^(a+)+$"}, "JsonSchema/draft-07", event("a" * 28 + "!")
    ),
    "validate-pattern-backtracking-1.0": validate(
        "p", {"type": "string", "pattern": "^(a+)+$"}, "JsonSchema/draft-07", event("a" * 28 + "!"), v1=True
    ),
    "validate-uniqueItems-8000-objects": validate(
        "u",
        {"type": "array", "uniqueItems": True},
        "JsonSchema/draft-07",
        event([{"id": i, "v": str(i)} for i in range(8000)]),
    ),
    "validate-xsd-assert-every-200": validate(
        "a", NESTED_ASSERT, "XSD/1.1", event("<list>" + "".join(f"<item>{i}</item>" for i in range(200)) + "</list>")
    ),
    "validate-xsd-assert-every-400": validate(
        "a", NESTED_ASSERT, "XSD/1.1", event("<list>" + "".join(f"<item>{i}</item>" for i in range(400)) + "</list>")
    ),
    "validate-xml-2MB-xs:any": validate("x", ANY, "XSD/1.1", event(XML_2MB)),
    "validate-multipleOf-400-digits (item 8)": validate(
        "m",
        {"type": "object", "properties": {"price": {"multipleOf": 0.01}, "currency": {"enum": ["EUR", "USD"]}}},
        "JsonSchema/draft-07",
        event({"price": int("1" + "0" * 400), "currency": "XXX"}),
    ),
    "validate-avro-2^62-nulls": validate(
        "n",
        json.dumps({"type": "array", "items": "null"}),
        "Avro/1.11.0",
        event(
            datacontenttype="application/avro",
            data_base64=__import__("base64").b64encode(zigzag(2**62) + zigzag(0)).decode(),
        ),
    ),
    "diff-two-20000-value-enums": diff(),
    "map-1000-groups-each-20000-refs": whole_map(),
}


# --- running --------------------------------------------------------------------------------------------------------


def child(name: str) -> None:
    """Set up the case's registry, then time its request; print one JSON line."""
    import django

    django.setup()
    from django.core.management import call_command
    from rest_framework.test import APIClient

    call_command("migrate", verbosity=0)
    request = CASES[name](writer())
    method, path, body, media_type, *client = request
    client = client[0] if client else APIClient()
    print("READY", flush=True)  # the parent's clock for --cap starts here
    started, cpu = time.perf_counter(), _cpu()
    response = client.generic(method, path, body, content_type=media_type)
    took, cpu = time.perf_counter() - started, _cpu() - cpu
    text = response.content[:2000].decode("utf-8", "replace")
    try:
        answer = json.loads(response.content)
        if isinstance(answer, dict):
            text = answer.get("detail") or json.dumps({k: answer[k] for k in list(answer)[:3]})[:200]
        elif isinstance(answer, list):
            text = f"{len(answer)} changes"
    except ValueError:
        text = f"{len(response.content)} bytes of {response['Content-Type']}"
    print(json.dumps({"seconds": took, "cpu": cpu, "status": response.status_code, "said": text[:150]}))


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for (Graphviz's dot)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(name: str, cap: float) -> tuple[float | None, float | None, str]:
    with tempfile.TemporaryDirectory() as var:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "REGISTRY_VAR_DIR": var,
            "SQLITE_PATH": str(Path(var) / "bench.sqlite3"),
            "REGISTRY_THROTTLE_ANON_CHECKS": "off",
            "REGISTRY_THROTTLE_ANON_MAP": "off",
            "REGISTRY_IMPORT_MAX_ENTITIES": "1000000",
        }
        env.pop("DATABASE_URL", None)
        with tempfile.TemporaryFile("w+") as errors:
            process = subprocess.Popen(
                [sys.executable, __file__, "--child", name],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
            )
            line = process.stdout.readline()  # setup, untimed
            if line.strip() != "READY":
                process.wait()
                errors.seek(0)
                return None, None, f"setup failed: {errors.read().strip().splitlines()[-1:]}"
            try:
                out, _ = process.communicate(timeout=cap)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                return None, None, f"no answer within {cap:g} s: killed"
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        return None, None, f"failed (exit status {process.returncode})"
    result = json.loads(lines[-1])
    return result["seconds"], result["cpu"], f"{result['status']} {result['said']}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=120.0, help="seconds after which a case is killed")
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.child:
        child(args.child)
        return 0
    names = [n for n in CASES if not args.only or n in args.only.split(",")]
    slow = 0
    print(f"{'case':42} {'wall':>8}   {'CPU':>6}    answer")
    for name in names:
        seconds, cpu, said = run(name, args.cap)
        shown = f"> {args.cap:g}" if seconds is None else f"{seconds:6.2f}"
        cpu_shown = "-" if cpu is None else f"{cpu:6.2f}"
        slow += seconds is None or seconds >= LIMIT
        print(f"{name:42} {shown:>8} s {cpu_shown:>6} s  {said}", flush=True)
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
