"""The behaviour recorder: a few hundred requests across every binding, their answers kept as a fixture
(`answers.json` beside this file), so that a change that alters any answer, status or header shows.

The scenario builds a fixed registry through the public API only (documents of the demo data imported with
`POST /`, then writes through each binding: 0.5 at `/`, 1.0 at `/registry`, the Schema Registry and Message
Catalog APIs, Confluent's at `/confluent`), then reads, writes and refuses across them: 404, 400, 405, 409,
412/304 conditionals, HEAD, `?inline`, `?filter`, paging, `?doc`, exports, the checks, and the OpenAPI
description at `/api/schema/`.

What varies from run to run is written as a stand-in: `Date` and `X-Request-ID` are left out, timestamps read
`<time>`, each distinct `ETag` is `<etag-N>` numbered by first appearance (so that equal tags stay equal), each
distinct UUID (Confluent's schema GUIDs) `<uuid-N>` likewise, a continuation token (`page=...`) `<page-N>` likewise (a
versions collection's holds the last version's time: registry/store/paging.py), a `Content-Length` is `<n>` (it
moves with the timestamps in the body).

Run (from the repository's root):

    .venv/bin/python tests/bindings/every_binding/recorded/record.py           # replay, and print what differs
    .venv/bin/python tests/bindings/every_binding/recorded/record.py --write   # record anew (answers.json)

`REGISTRY_TEST_DB=postgres` replays on PostgreSQL as the suite does. The suite runs the comparison as
tests/bindings/every_binding/recorded/test_recorded_answers.py.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ANSWERS = HERE / "answers.json"
DEMO = HERE.parents[3] / "catalog" / "demo"
DROPPED_HEADERS = {"date", "x-request-id"}
TAG = re.compile(r'"[0-9a-f]{32}"')  # the kernel's tags (registry/http/conditional.py), quoted
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")  # Confluent's schema GUIDs (random)
PAGE = re.compile(r"(?<=[?&]page=)[A-Za-z0-9_-]+")  # a continuation token in a Link (registry/store/paging.py)
TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")


class Recorder:
    """Sends requests through Django's test client and keeps each answer in its recorded (normalised) form."""

    def __init__(self, clients: dict):
        self.clients = clients  # name -> django.test.Client
        self.answers: list[dict] = []
        self.etags: dict[str, str] = {}
        self.uuids: dict[str, str] = {}
        self.pages: dict[str, str] = {}

    # normalisation -------------------------------------------------------------------------------------
    def etag(self, value: str) -> str:
        return self.etags.setdefault(value, f"<etag-{len(self.etags) + 1}>")

    def text(self, value: str) -> str:
        value = TAG.sub(lambda match: self.etag(match.group(0)), value)
        value = UUID.sub(lambda match: self.uuids.setdefault(match.group(0), f"<uuid-{len(self.uuids) + 1}>"), value)
        value = PAGE.sub(lambda match: self.pages.setdefault(match.group(0), f"<page-{len(self.pages) + 1}>"), value)
        return TIME.sub("<time>", value)

    def data(self, value):
        if isinstance(value, dict):
            return {self.text(k): self.data(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.data(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value

    def body(self, response) -> object:
        raw = b"".join(response.streaming_content) if response.streaming else response.content
        kind = response.get("Content-Type", "").split(";")[0].strip().lower()
        if raw and (kind.endswith("json") or kind.endswith("+json")):
            try:
                return {"json": self.data(json.loads(raw))}
            except ValueError:
                pass
        try:
            return {"text": self.text(raw.decode("utf-8"))} if raw else None
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(raw).decode()}

    def headers(self, response) -> dict:
        out = {}
        for name, value in sorted(response.items(), key=lambda item: item[0].lower()):
            lower = name.lower()
            if lower in DROPPED_HEADERS:
                continue
            if lower == "etag":
                value = self.etag(value)
            elif lower == "content-length":
                value = "<n>"
            out[name] = self.text(value)
        return out

    # requests --------------------------------------------------------------------------------------------
    def __call__(self, method: str, path: str, body=b"", *, who: str = "su", media: str | None = None, **headers):
        """One request: a dict or list body is sent as JSON; `headers` by their HTTP names (`If-Match=...`)."""
        if isinstance(body, dict | list):
            body, media = json.dumps(body).encode(), media or "application/json"
        elif isinstance(body, str):
            body = body.encode()
        extra = {"content_type": media} if media is not None else {}
        wire = {name.replace("_", "-"): value for name, value in headers.items()}
        response = self.clients[who].generic(method, path, body, headers=wire, **extra)
        self.answers.append(
            {
                "request": self.data(
                    {
                        "method": method,
                        "path": path,
                        "who": who,
                        **({"media": media} if media else {}),
                        **({"headers": wire} if wire else {}),
                        **({"body": body.decode("utf-8", "backslashreplace")} if body else {}),
                    }
                ),
                "status": response.status_code,
                "headers": self.headers(response),
                "body": self.body(response),
            }
        )
        return response


def demo(name: str) -> bytes:
    return (DEMO / name).read_bytes()


AVRO = json.dumps({"type": "record", "name": "Reading", "fields": [{"name": "value", "type": "double"}]})
AVRO_2 = json.dumps(
    {
        "type": "record",
        "name": "Reading",
        "fields": [{"name": "value", "type": "double"}, {"name": "unit", "type": "string", "default": "W"}],
    }
)
AVRO_BREAKS = json.dumps({"type": "record", "name": "Reading", "fields": [{"name": "value", "type": "string"}]})
JSON_SCHEMA = json.dumps({"type": "object", "properties": {"id": {"type": "string"}}})


def scenario(r: Recorder) -> None:
    """The requests, in order: the registry is built, read, changed and refused through every binding."""
    # the registry: demo documents imported through the 0.5 binding's import ---------------------------------
    r("POST", "/", demo("windgenerator-kafka-avro.cereg"), media="application/json")
    r("POST", "/", demo("waterboiler-mqtt5-jsons07.cereg"), media="application/json")
    r("POST", "/", b"{", media="application/json")  # malformed: 400, nothing written
    r("POST", "/", b"a: [", media="text/csv")

    # 0.5-wip at / ------------------------------------------------------------------------------------------
    r("GET", "/")
    r("GET", "/?model")
    r("HEAD", "/")
    r("GET", "/?unknownflag")
    r("PUT", "/schemaGroups/rec", {"description": "recorded", "tags": {"team": "a"}})
    r("PUT", "/schemaGroups/rec/schemas/reading", AVRO, media="application/json", Registry_format="Avro/1.11")
    r("POST", "/schemaGroups/rec/schemas/reading", AVRO_2, media="application/json")
    r("POST", "/schemaGroups/rec/schemas/reading", AVRO_BREAKS, media="application/json")  # incompatible?
    r("PUT", "/schemaGroups/rec/schemas/reading?meta", {"description": "a reading", "compatibility": "backward"})
    r(
        "POST",
        "/schemaGroups/rec/schemas",
        JSON_SCHEMA,
        media="application/json",
        Registry_id="person",
        Registry_format="JsonSchema/draft-07",
        Registry_tags_owner="b",
    )
    r("POST", "/schemaGroups/rec/schemas", b"", media="application/json", Registry_id="linked",
      Registry_format="JsonSchema/draft-07", Registry_schemaURI="https://example.com/s.json")  # fmt: skip
    r("GET", "/schemaGroups")
    r("GET", "/schemaGroups?inline")
    r("GET", "/schemaGroups?limit=1")
    r("GET", "/schemaGroups?filter=id=rec")
    r("GET", "/schemaGroups?filter=tags.team=a")
    r("GET", "/schemaGroups/rec")
    r("GET", "/schemaGroups/rec?inline")
    r("GET", "/schemaGroups/rec/schemas")
    r("GET", "/schemaGroups/rec/schemas?inline&limit=1")
    r("GET", "/schemaGroups/rec/schemas?filter=format=Avro*")
    tagged = r("GET", "/schemaGroups/rec/schemas/reading")
    r("HEAD", "/schemaGroups/rec/schemas/reading")
    r("GET", "/schemaGroups/rec/schemas/reading", If_None_Match=tagged["ETag"])
    r("GET", "/schemaGroups/rec/schemas/reading", If_Match='"nope"')
    r("GET", "/schemaGroups/rec/schemas/reading?meta")
    r("GET", "/schemaGroups/rec/schemas/reading?inline")
    r("GET", "/schemaGroups/rec/schemas/reading/versions")
    r("GET", "/schemaGroups/rec/schemas/reading/versions?limit=1")
    r("GET", "/schemaGroups/rec/schemas/reading/versions/1")
    r("GET", "/schemaGroups/rec/schemas/reading/versions/1?meta")
    r("GET", "/schemaGroups/rec/schemas/reading/versions/9")
    r("GET", "/schemaGroups/rec/schemas/linked")
    r("GET", "/schemaGroups/rec/schemas/nothing")
    r("GET", "/schemaGroups/nothing")
    r("GET", "/nothing")
    r("GET", "/schemaGroups/WindGenerator/schemas/WindGenerator.PowerOutputUpdateEventData?referencedby")
    r("GET", "/definitionGroups")
    r("GET", "/definitionGroups/WindGenerator.Events?inline")
    r("GET", "/definitionGroups/WindGenerator.Events/definitions/WindGenerator.StatusChange")
    r("GET", "/definitionGroups/WindGenerator.Events/definitions/WindGenerator.StatusChange?meta")
    r("PATCH", "/schemaGroups/rec", {"description": "x"})  # 405
    r("PUT", "/schemaGroups/rec?epoch=99", {"description": "stale"})  # 409
    r("PUT", "/schemaGroups/rec", {"description": "changed"}, If_Match='"nope"')  # 412
    current = r("GET", "/schemaGroups/rec")
    r("PUT", "/schemaGroups/rec", {"description": "changed", "tags": {"team": "a"}}, If_Match=current["ETag"])
    r("PUT", "/schemaGroups/rec", {"description": "again"}, If_None_Match="*")  # 412: it exists
    r("PUT", "/schemaGroups/rec", b"[1, 2]", media="application/json")
    r("PUT", "/schemaGroups/rec", b'{"a": NaN}', media="application/json")
    r("PUT", "/schemaGroups/rec", b"{}", media="text/plain")
    r("PUT", "/schemaGroups/bad%20id", {})
    r("PUT", "/schemaGroups/rec", {"description": "x"}, who="anon")  # 401
    r("POST", "/schemaGroups/rec/schemas/reading", b"{not json", media="application/json")
    r("PUT", "/schemaGroups/rec/schemas/reading?meta", {"compatibility": "sideways"})
    r("GET", "/", Accept="application/cloudevents-registry+json")
    r("GET", "/?inline")
    r("GET", "/map.svg")

    # the checks (docs/api-contract.md section 12) ---------------------------------------------------------
    r("POST", "/schemaGroups/rec/schemas/reading/compatibility", AVRO_BREAKS, media="application/json")
    r("POST", "/schemaGroups/rec/schemas/reading/compatibility", AVRO_2, media="application/json")
    r("GET", "/schemaGroups/rec/schemas/reading/versions/1/diff/2")
    r(
        "POST",
        "/definitionGroups/WindGenerator.Events/definitions/WindGenerator.StatusChange/validate",
        {"metadata": {"headers": {"action": "statusChange"}, "key": "g1"}, "data": {"x": 1}},
    )
    r("POST", "/definitionGroups/WindGenerator.Events/validate", {"metadata": {}, "data": {}})

    # xRegistry 1.0 at /registry ---------------------------------------------------------------------------
    r("GET", "/registry/")
    r("GET", "/registry")
    r("HEAD", "/registry/")
    r("GET", "/registry/?inline=*")
    r("GET", "/registry/?inline=schemagroups&collections")
    r("GET", "/registry/?doc&inline=*")
    r("GET", "/registry/export")
    r("GET", "/registry/model")
    r("GET", "/registry/modelsource")
    r("GET", "/registry/capabilities")
    r("GET", "/registry/capabilitiesoffered")
    r("GET", "/.well-known/xregistry")
    r("PUT", "/registry/schemagroups/rec10", {"description": "one", "labels": {"team": "c"}})
    r("PUT", "/registry/schemagroups/rec10/schemas/reading", AVRO, media="application/json",
      xRegistry_format="Avro/1.11", xRegistry_labels_kind="meter")  # fmt: skip
    r("POST", "/registry/schemagroups/rec10/schemas/reading", AVRO_2, media="application/json", xRegistry_versionid="2")
    r("POST", "/registry/schemagroups/rec10/schemas/reading$details", {"versionid": "3", "schema": AVRO_BREAKS})
    r("PATCH", "/registry/schemagroups/rec10/schemas/reading/versions/2$details", {"description": "second"})
    r("PUT", "/registry/schemagroups/rec10/schemas/reading/meta", {"compatibility": "backward"})
    r("PATCH", "/registry/schemagroups/rec10", {"name": "Recorded"})
    r("POST", "/registry/schemagroups/rec10/schemas", {"p": {"format": "JsonSchema/draft-07",
      "schema": json.loads(JSON_SCHEMA)}})  # fmt: skip
    r("PUT", "/registry/messagegroups/rmg", {"messages": {"m1": {"envelope": "CloudEvents/1.0",
      "envelopemetadata": {"type": {"value": "rec.one"}}, "dataschemaformat": "JsonSchema/draft-07",
      "dataschemauri": "/schemagroups/rec10/schemas/p"}}})  # fmt: skip
    r("POST", "/registry/messagegroups/rmg/messages/m1", {"versionid": "2", "envelope": "CloudEvents/1.0",
      "envelopemetadata": {"type": {"value": "rec.two"}}})  # fmt: skip
    r("GET", "/registry/schemagroups")
    r("GET", "/registry/schemagroups?inline=schemas")
    r("GET", "/registry/schemagroups?limit=1")
    r("GET", "/registry/schemagroups?filter=labels.team=c")
    r("GET", "/registry/schemagroups?sort=schemagroupid=desc")
    r("GET", "/registry/schemagroups/rec10")
    r("GET", "/registry/schemagroups/rec10?inline=*")
    r("GET", "/registry/schemagroups/rec10?collections")
    r("GET", "/registry/schemagroups/rec10?doc&inline=*")
    r("GET", "/registry/schemagroups/rec10/schemas")
    r("GET", "/registry/schemagroups/rec10/schemas?inline=schema&sort=schemaid")
    tagged10 = r("GET", "/registry/schemagroups/rec10/schemas/reading")
    r("HEAD", "/registry/schemagroups/rec10/schemas/reading")
    r("GET", "/registry/schemagroups/rec10/schemas/reading", If_None_Match=tagged10["ETag"])
    r("GET", "/registry/schemagroups/rec10/schemas/reading$details")
    r("GET", "/registry/schemagroups/rec10/schemas/reading$details?inline=versions,meta")
    r("GET", "/registry/schemagroups/rec10/schemas/reading$details?binary&inline=schema")
    r("GET", "/registry/schemagroups/rec10/schemas/reading/meta")
    r("GET", "/registry/schemagroups/rec10/schemas/reading/versions")
    r("GET", "/registry/schemagroups/rec10/schemas/reading/versions/1")
    r("GET", "/registry/schemagroups/rec10/schemas/reading/versions/2$details")
    r("GET", "/registry/schemagroups/rec10/schemas/reading/versions/7")
    r("GET", "/registry/messagegroups/rmg/messages/m1")
    r("GET", "/registry/messagegroups/rmg/messages?inline=*")
    r("GET", "/registry/messagegroups/WindGenerator.Events/messages/WindGenerator.StatusChange")
    r("GET", "/registry/schemagroups/rec/schemas/reading/versions")  # written by the 0.5 binding
    r("GET", "/registry/nothing")
    r("GET", "/registry/schemagroups/none")
    r("GET", "/registry/schemagroups?bogus")
    r("GET", "/registry/schemagroups/rec10?sort=name")
    r("GET", "/registry/schemagroups?filter=(")
    r("GET", "/registry/?specversion=0.1")
    r("PUT", "/registry/model", {})
    r("PUT", "/registry/", {"name": "other"})
    r("PUT", "/registry/capabilities", {"pagination": False})
    r("DELETE", "/registry/schemagroups/rec10/schemas/reading/meta")  # 405
    r("PUT", "/registry/schemagroups/rec10?epoch=99", {"description": "stale"})
    r("PUT", "/registry/schemagroups/rec10", {"schemagroupid": "other"})
    r("PUT", "/registry/schemagroups/rec10", {"tags": {"a": "b"}})
    r("PUT", "/registry/schemagroups/rec10", {"description": "x"}, If_Match='"nope"')
    r("PUT", "/registry/schemagroups/rec10", b"", media="application/json")
    r("POST", "/registry/schemagroups/rec10", {"widgets": {}})
    r("PUT", "/registry/schemagroups/rec10", {"description": "x"}, who="anon")
    r("POST", "/registry/messagegroups/rmg/messages/m1/validate", {"metadata": {"attributes": {"type": "rec.two"}},
      "data": {}})  # fmt: skip
    r("POST", "/registry/messagegroups/rmg/validate", {"metadata": {"attributes": {"type": "no.such"}}})
    r("POST", "/registry/", {"schemagroups": {"imp10": {"schemas": {"s": {"format": "JsonSchema/draft-07",
      "schema": {"type": "string"}}}}}})  # fmt: skip

    # the older bindings ------------------------------------------------------------------------------------
    r("PUT", "/schemaregistry/schemagroups/srg", {"format": "Avro", "description": "older"})
    r("POST", "/schemaregistry/schemagroups/srg/schemas/s1?description=first", AVRO, media="application/json")
    r("POST", "/schemaregistry/schemagroups/srg/schemas/s1", AVRO_2, media="application/json", name="second")
    r("POST", "/schemaregistry/schemagroups/srg/schemas/s1?format=Protobuf", AVRO, media="application/json")
    r("GET", "/schemaregistry/schemagroups")
    r("GET", "/schemaregistry/schemagroups?limit=1")
    r("GET", "/schemaregistry/schemagroups/srg")
    r("GET", "/schemaregistry/schemagroups/srg/schemas")
    r("GET", "/schemaregistry/schemagroups/srg/schemas/s1")
    r("HEAD", "/schemaregistry/schemagroups/srg/schemas/s1")
    r("GET", "/schemaregistry/schemagroups/srg/schemas/s1/versions")
    r("GET", "/schemaregistry/schemagroups/srg/schemas/s1/versions/1")
    r("GET", "/schemaregistry/schemagroups/srg/schemas/s1/versions/x")
    r("GET", "/schemaregistry/schemagroups/rec/schemas/reading/versions")
    r(
        "GET",
        "/schemaregistry/schema?uri=http://testserver/schemaregistry/schemagroups/srg/schemas/s1/versions/2",
    )
    r("GET", "/schemaregistry/schema")
    r("PATCH", "/schemaregistry/schemagroups/srg", {})
    r("PUT", "/schemaregistry/schemagroups/srg?epoch=42", {"format": "Avro"})
    r("DELETE", "/schemaregistry/schemagroups/srg/schemas/s1/versions/1")
    r("GET", "/schemaregistry/schemagroups/none/schemas")
    r("PUT", "/messagecatalog/mcg", {"format": "CloudEvents/1.0"})
    r(
        "POST",
        "/messagecatalog/mcg/messagedefinitions",
        {"id": "d1", "metadata": {"attributes": {"type": {"value": "mc.one"}}}},
    )
    r("POST", "/messagecatalog/mcg/messagedefinitions/d1", {"metadata": {}}, media="application/json")
    r("POST", "/messagecatalog/mcg/messagedefinitions/d1?description=two",
      {"metadata": {"attributes": {"type": {"value": "mc.two"}}}})  # fmt: skip
    r("POST", "/messagecatalog/mcg/messagedefinitions/d1", b"<x/>", media="application/xml")
    r("OPTIONS", "/messagecatalog")
    r("GET", "/messagecatalog")
    r("GET", "/messagecatalog/mcg")
    r("GET", "/messagecatalog/mcg/messagedefinitions")
    r("GET", "/messagecatalog/mcg/messagedefinitions/d1")
    r("GET", "/messagecatalog/mcg/messagedefinitions/d1/versions")
    r(
        "GET",
        "/messagecatalog/messagedefinition?uri=http://testserver/messagecatalog/mcg/messagedefinitions/d1/versions/2",
    )
    r("GET", "/messagecatalog/messagedefinition")
    r("GET", "/messagecatalog/mcg/messagedefinitions/d1/versions/1")
    r("DELETE", "/messagecatalog/mcg/messagedefinitions/d1")

    # Confluent's API at /confluent -------------------------------------------------------------------------
    r("GET", "/confluent/")
    r("GET", "/confluent/schemas/types")
    r("POST", "/confluent/subjects/meter-value/versions", {"schema": AVRO})
    r("POST", "/confluent/subjects/meter-value/versions", {"schema": AVRO_2})
    r("POST", "/confluent/subjects/meter-value/versions", {"schema": AVRO})  # the same content: its id again
    r("POST", "/confluent/subjects/meter-value/versions", {"schema": "{"})
    r("POST", "/confluent/subjects/other/versions", {"schema": JSON_SCHEMA, "schemaType": "JSON"})
    r("GET", "/confluent/subjects")
    r("GET", "/confluent/subjects?deleted=true")
    r("GET", "/confluent/subjects?deleted=maybe")
    r("GET", "/confluent/subjects/meter-value/versions")
    r("GET", "/confluent/subjects/meter-value/versions/1")
    r("GET", "/confluent/subjects/meter-value/versions/latest")
    r("GET", "/confluent/subjects/meter-value/versions/latest/schema")
    r("GET", "/confluent/subjects/meter-value/versions/9")
    r("GET", "/confluent/subjects/meter-value/versions/1/referencedby")
    r("POST", "/confluent/subjects/meter-value", {"schema": AVRO_2})
    r("POST", "/confluent/subjects/meter-value", {"schema": AVRO_BREAKS})
    r("GET", "/confluent/schemas/ids/1")
    r("GET", "/confluent/schemas/ids/1/schema")
    r("GET", "/confluent/schemas/ids/1/subjects")
    r("GET", "/confluent/schemas/ids/1/versions")
    r("GET", "/confluent/schemas/ids/999")
    r("GET", "/confluent/config")
    r("PUT", "/confluent/config/meter-value", {"compatibility": "FULL"})
    r("GET", "/confluent/config/meter-value")
    r("PUT", "/confluent/config/meter-value", {"compatibility": "SIDEWAYS"})
    r("GET", "/confluent/mode")
    r("POST", "/confluent/compatibility/subjects/meter-value/versions/latest", {"schema": AVRO_BREAKS})
    r("POST", "/confluent/compatibility/subjects/meter-value/versions?verbose=true", {"schema": AVRO_2})
    r("GET", "/confluent/contexts")
    r("GET", "/confluent/subjects", Accept="text/html")
    r("GET", "/confluent/nothing")
    r("DELETE", "/confluent/subjects/other/versions/1")
    r("GET", "/confluent/subjects/other/versions")
    r("POST", "/confluent/subjects/meter-value/versions", {"schema": AVRO_2}, who="anon")
    r("GET", "/registry/schemagroups/confluent/schemas/meter-value/versions")  # what Confluent wrote

    # 1.0 and 0.5 reads of what everything wrote, then deletes -----------------------------------------------
    r("GET", "/registry/schemagroups?inline=*")
    r("GET", "/?inline", Accept="application/cloudevents-registry+json")
    r("DELETE", "/registry/schemagroups/rec10/schemas/reading/versions/1")
    r("DELETE", "/registry/schemagroups/rec10/schemas", {"p": {}})
    r("DELETE", "/registry/messagegroups/rmg?epoch=1")
    r("DELETE", "/registry/messagegroups/rmg")
    r("DELETE", "/schemaGroups/rec/schemas/reading/versions/1")
    r("DELETE", "/schemaGroups/rec/schemas/person?epoch=5")
    r("DELETE", "/schemaGroups/WindGenerator")  # still referenced: 409
    r("DELETE", "/schemaGroups/WindGenerator?force")
    r("DELETE", "/schemaGroups", [{"id": "rec"}])
    r("DELETE", "/schemaregistry/schemagroups/srg")
    r("GET", "/")
    r("GET", "/registry/")

    # the OpenAPI description of every binding --------------------------------------------------------------
    r("GET", "/api/schema/?format=json")

    # 1.0's document kept elsewhere (its `schemaurl`): a 303 to it, with no body and no media type ---------------
    r(
        "PUT",
        "/registry/schemagroups/rec10/schemas/far$details",
        {"format": "Custom/1", "schemaurl": "https://example.com/far.json"},
    )
    r("GET", "/registry/schemagroups/rec10/schemas/far")
    r("HEAD", "/registry/schemagroups/rec10/schemas/far/versions/1")


def replay() -> list[dict]:
    """The scenario against the current database (a test's): its answers, normalised."""
    from django.contrib.auth import get_user_model
    from django.test import Client
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_superuser("recorder", "recorder@example.com", "pw")
    key = Token.objects.create(user=user).key
    recorder = Recorder({"su": Client(HTTP_AUTHORIZATION=f"Token {key}"), "anon": Client()})
    recorder.etags.clear()
    scenario(recorder)
    return recorder.answers


ALL_PARTS = ("request", "status", "headers", "body")


def differences(recorded: list[dict], now: list[dict]) -> list[str]:
    """What differs, one line per answer (its number, request, and the parts that differ)."""
    out = []
    if len(recorded) != len(now):
        out.append(f"{len(recorded)} answers recorded, {len(now)} now")
    for number, (before, after) in enumerate(zip(recorded, now, strict=False)):
        if before == after:
            continue
        request = f"{before['request']['method']} {before['request']['path']}"
        parts = []
        # the map's drawing (Graphviz's layout) is not byte-stable across databases' row orders: its status and
        # headers are compared, not its SVG
        keys = ("request", "status", "headers") if before["request"]["path"] == "/map.svg" else ALL_PARTS
        for key in keys:
            if before.get(key) != after.get(key):
                if key == "headers":
                    names = sorted(set(before["headers"]) | set(after["headers"]))
                    parts += [
                        f"header {n}: {before['headers'].get(n)!r} -> {after['headers'].get(n)!r}"
                        for n in names
                        if before["headers"].get(n) != after["headers"].get(n)
                    ]
                elif key == "body":
                    parts.append(f"body: {json.dumps(before['body'])[:300]} -> {json.dumps(after['body'])[:300]}")
                else:
                    parts.append(f"{key}: {before.get(key)!r} -> {after.get(key)!r}")
        if parts:
            out.append(f"#{number} {request}: " + "; ".join(parts))
    return out


def dump(answers: list[dict]) -> str:
    return json.dumps(answers, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":  # replay through the suite's own database set-up (pytest), here or on PostgreSQL
    env = dict(os.environ, RECORD_ANSWERS="write" if "--write" in sys.argv else "diff")
    test = str(HERE / "test_recorded_answers.py")
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", test, "-q", "-p", "no:cacheprovider"], env=env))
