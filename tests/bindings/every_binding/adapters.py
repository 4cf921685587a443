"""The same operations through each binding, so that one scenario runs against every binding and states one
outcome: the 0.5-wip core binding at `/`, xRegistry 1.0 at `/registry`, and the older Schema Registry binding
where an operation exists there.

An adapter knows a binding's paths, how it sends a schema document and its metadata, and how its problem
documents name a problem kind (the kernel's kinds: `malformed-json`, `epoch-mismatch` ...), so a test says
`binding.assert_problem(response, 400, "malformed-json")` once for all of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from registry.bindings.v10.base import ERROR_TYPES

PROBLEM = "application/problem+json"


@dataclass(frozen=True)
class Adapter:
    name: str
    root: str  # the binding's root path
    groups: str  # the schema groups' collection, below the root
    schemas: str = "schemas"
    header_prefix: str | None = None

    @property
    def epoch_header(self) -> str:
        return f"{self.header_prefix}-epoch"

    @property
    def epoch_status(self) -> int:
        """The status of an epoch mismatch in this binding (409 in 0.5; 1.0's mismatched_epoch is a 400)."""
        return 400 if self is XR10 else 409

    def group(self, gid: str) -> str:
        return f"{self.root}{self.groups}/{gid}"

    def schema(self, gid: str, sid: str) -> str:
        return f"{self.group(gid)}/{self.schemas}/{sid}"

    def version(self, gid: str, sid: str, vid: str) -> str:
        return f"{self.schema(gid, sid)}/versions/{vid}"

    def send(self, client, method: str, path: str, body=b"", content_type="application/json", **headers):
        if isinstance(body, dict | list):
            body = json.dumps(body)
        return client.generic(method, path, body, content_type=content_type, headers=headers)

    # what differs between bindings ------------------------------------------------------------------------
    def create_schema(self, client, gid: str, sid: str, document: bytes, fmt: str, media="application/json", **headers):
        """PUT of a new schema: the document as the body, its format (and `headers`) as metadata headers."""
        headers = {f"{self.header_prefix}-format": fmt, **headers}
        return self.send(client, "PUT", self.schema(gid, sid), document, media, **headers)

    def header_value(self, text: str) -> str:
        """`text` as a metadata header value on the wire (WSGI's ISO-8859-1 view of the bytes)."""
        return text.encode("utf-8").decode("latin-1")

    bad_header_value = "caf\xe9"  # the byte 0xE9 alone: not UTF-8

    def kind_of(self, body: dict) -> str:
        """The kernel's problem kind a problem document of this binding stands for."""
        raise NotImplementedError

    def assert_problem(self, response, status: int, kind: str) -> dict:
        assert response.status_code == status, (self.name, response.status_code, response.content)
        assert response["Content-Type"].startswith(PROBLEM), (self.name, response["Content-Type"])
        body = response.json()
        assert body["detail"] and body["status"] == status, body
        assert kind in self.kinds_of(body), (self.name, kind, body)
        return body

    def kinds_of(self, body: dict) -> set[str]:
        return {self.kind_of(body)}


class Core05(Adapter):
    def kind_of(self, body):
        assert body["type"].startswith("urn:problem-type:cloudevents-registry:"), body
        return body["type"].rpartition(":")[2]


class XRegistry10(Adapter):
    bad_header_value = "caf%E9"  # percent-encoded, and still not UTF-8

    def header_value(self, text):
        """core/http.md "HTTP Header Values": percent-encoded UTF-8."""
        return "".join(
            c if "!" <= c <= "~" and c not in '"%' else "".join(f"%{b:02X}" for b in c.encode()) for c in text
        )

    def kind_of(self, body):
        assert body["type"].startswith("https://github.com/xregistry/spec/"), body
        assert body["subject"] and body["title"], body
        return sorted(self.kinds_of(body))[0]

    def kinds_of(self, body):
        """The kernel's kinds this 1.0 error can stand for (1.0 writes several kinds as one error type)."""
        assert body["type"].startswith("https://github.com/xregistry/spec/"), body
        candidates = {kind for kind, (uri, status, _h) in ERROR_TYPES.items() if uri == body["type"]}
        return {kind for kind in candidates if ERROR_TYPES[kind][1] == body["status"]} or candidates


class SchemaRegistry(Core05):
    """The older Schema Registry API binding (docs/older-bindings.md): JSON group bodies, a schema's versions added by
    POST with the document as the body and its attributes in the query string."""

    def create_schema(self, client, gid, sid, document, fmt, media="application/json", **headers):
        return self.send(client, "POST", f"{self.schema(gid, sid)}?format={fmt}", document, media, **headers)


CORE = Core05("0.5", "/", "schemaGroups", header_prefix="Registry")
XR10 = XRegistry10("1.0", "/registry/", "schemagroups", header_prefix="xRegistry")
SCHEMA_REGISTRY = SchemaRegistry("schemaregistry", "/schemaregistry/", "schemagroups")
BINDINGS = [CORE, XR10]  # the xRegistry bindings: every operation
ALL_BINDINGS = [CORE, XR10, SCHEMA_REGISTRY]  # with the older binding, for the operations it has
