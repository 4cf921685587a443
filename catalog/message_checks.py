"""Checks before shipping (docs/api-contract.md section 12): does a concrete message match a message definition?

`check_message(definition, message, base_url)` answers `{"valid", "errors": [{"path", "reason"}], "notes"}`
for one parsed message; `parse_message(content_type, body)` turns a request into a `Message`;
`definition_document` and `definition_for_type` find the definition (selectors, read only: nothing here writes).

Messages:
- a structured CloudEvent (`application/cloudevents+json`): the event object; its members other than `data` and
  `data_base64` are the context attributes;
- an envelope (`application/json`) `{"headers": {...}, "body": ...}`: for CloudEvents the binary mode, `ce-`
  headers are the attributes (`content-type` is `datacontenttype`), header values are strings, so integers and
  booleans are accepted in their canonical text form; for the other formats the members of the envelope are that
  protocol's properties, named as in the definition's metadata (`topic-name`, `qos` for MQTT; `topic`, `key`,
  `headers` for Kafka; `properties`, `application-properties` for AMQP; `method`, `path`, `query`, `headers` for
  HTTP; `subject`, `headers` for NATS), and `body` is the payload.

Metadata: every declared attribute/property: `required` (and CloudEvents' always required `specversion`, `id`,
`source`, `type`), the declared (or the format's default) type, a literal `value` equal, a `value` with RFC 6570
level 1 placeholders matched (`/{tenant}/orders` matches `/contoso/orders`; a placeholder stands for one or more
characters other than `/`, a value that is one placeholder for anything); checked in
catalog.validators.message_metadata.

Data: against the definition's schema, inline (`schema`) or named by a `schemaurl` inside this registry
(`#/schemaGroups/G/schemas/S`, `/schemaGroups/...`, an absolute URL under this server, optionally
`/versions/V`, a `:Message` suffix naming the Protobuf message or a JSON pointer into a JSON Schema): JSON Schema of the schema's draft (jsonschema; compiled validators
cached per digest of format and document) and Avro (fastavro validation of the JSON value; `data_base64` with a
non-JSON datacontenttype is read as the Avro binary encoding and must decode exactly), Protobuf (the base64
binary of the named message, decoded by hand: catalog.validators.message_data) and XSD (XML text, xmlschema with
no file or network access and entities defused). A schema outside this registry is not fetched and other schema
formats are not checked: a note says so, no error. A `$ref` inside a JSON Schema resolves only inside this registry
(catalog.validators.json_references): to its own document, or to a JSON Schema stored here, named by its registry
path or an absolute URL under this server; nothing is ever fetched, and any other reference is reported as not
checked, naming it. Schemas are read with the caller's read scope: one in a group hidden from the caller is as if it
were not there. When the schema is a version of this registry with a data contract (its `confluentruleset`), the
CEL and CEL_FIELD rules of its `domainRules` run on data that passed the schema (confluent.rule_checks); a refusal is
an error naming the rule (`"rule": {"name", "type", "kind", "mode", "expr", "side"}`). A check that could not run (a stored schema that cannot be
applied, a keyword that fails on a value, XML over its size limit) is never a pass: an error marked
`"unchecked": true` names it, next to the other errors found (issue 24). The whole check runs within the time
budget of catalog.validators.budget (REGISTRY_CHECK_SECONDS), past which it answers 503.

Errors name their path: `metadata.source`, `metadata.headers.action`, `data.orderId`, `data.items[2].sku`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable

from django.conf import settings

from catalog.message_report import Message, Report, as_written
from catalog.validators import budget
from catalog.validators.format_names import message_format_family, schema_format_family
from catalog.validators.json_references import stored_schemas
from catalog.validators.message_data import check_protobuf
from catalog.validators.message_formats.declarations import show
from catalog.validators.message_json import check_avro, check_json_schema
from catalog.validators.message_metadata import (
    check_cloudevents,
    check_generic,
    check_http,
    format_types,
    template_matches,
)
from catalog.validators.message_xml import check_xml
from catalog.validators.schemas import DRAFTS
from catalog.validators.shapes import as_object
from confluent.rule_checks import check_version_rules
from registry.access.read_scope import EVERYTHING, ReadScope
from registry.domain.errors import Problem
from registry.domain.json_text import load_json_document
from registry.domain.model import registry_model
from registry.models import Resource, Version
from registry.store import selectors

STRUCTURED = "application/cloudevents+json"
CE_DATA_MEMBERS = ("data", "data_base64")


# --- reading the request -------------------------------------------------------------------------------------


def parse_message(content_type: str, value) -> Message:
    """The message in a parsed JSON body (400 unless an object). `content_type`: the request's media type."""
    if not isinstance(value, dict):
        raise Problem("bad-request", f"the message must be a JSON object, not {show(value)}")
    base = (content_type or "").split(";")[0].strip().lower()
    if base == STRUCTURED or ("headers" not in value and "specversion" in value):
        props = {k: v for k, v in value.items() if k not in CE_DATA_MEMBERS}
        message = Message(
            "structured", props, has_data="data" in value or "data_base64" in value, data=value.get("data")
        )
        if "data_base64" in value:
            if "data" in value:
                message.errors.append(("data_base64", "data and data_base64 are mutually exclusive"))
            message.data_base64 = value["data_base64"]
        return message
    headers = value.get("headers", {})
    if "headers" in value and not isinstance(headers, dict):
        raise Problem("bad-request", "the envelope's headers must be a JSON object (name -> value)")
    props = {k: v for k, v in value.items() if k != "body"}
    return Message("envelope", props, has_data="body" in value, data=value.get("body"))


# --- finding the definition and its schema ----------------------------------------------------------------------


def definition_document(gid: str, did: str) -> dict:
    """The latest version's document of definition `did` in definition group `gid` (404 when none)."""
    gt = registry_model["definitionGroups"]
    _resource, version = selectors.get_document_version(gt, gid, "definitions", did)
    return _document(version)


def _document(version: Version) -> dict:
    if version.resource_uri or version.content is None:
        raise Problem(
            "bad-request", "the definition's document is outside this registry (definitionURI): it cannot be checked"
        )
    doc, problem = load_json_document(bytes(version.content))
    if problem is not None or not isinstance(doc, dict):
        raise Problem("bad-request", "the definition's document is not a JSON object: it cannot be checked")
    return doc


def declared_type_value(doc: dict) -> str | None:
    attributes = (doc.get("metadata") or {}).get("attributes") if isinstance(doc.get("metadata"), dict) else None
    declaration = attributes.get("type") if isinstance(attributes, dict) else None
    value = declaration.get("value") if isinstance(declaration, dict) else None
    return value if isinstance(value, str) else None


def definition_for_type(gid: str, event_type) -> tuple[str, dict]:
    """(definition id, document) of the definition of group `gid` whose declared CloudEvents `type` value
    matches `event_type` (a literal value first, then a template); 404 naming the type when none does."""
    gt = registry_model["definitionGroups"]
    group = selectors.get_group(gt, gid)
    if not isinstance(event_type, str):
        raise Problem("bad-request", "the message has no CloudEvents type (a string) to pick a definition by")
    templated = None
    resources = (
        Resource.objects.filter(group=group, resource_type="definitions").select_related("latest").order_by("rid")
    )
    for resource in resources:
        if resource.latest is None or resource.latest.resource_uri:
            continue
        doc, problem = load_json_document(bytes(resource.latest.content or b""))
        if problem is not None or not isinstance(doc, dict):
            continue
        declared = declared_type_value(doc)
        if declared == event_type:
            return resource.rid, doc
        if templated is None and declared and "{" in declared and template_matches(declared, event_type):
            templated = (resource.rid, doc)
    if templated is not None:
        return templated
    raise Problem(
        "not-found",
        f"no definition in {{paths}} declares the CloudEvents type {event_type[:200]!r}",
        paths=[f"/definitionGroups/{gid}"],  # named in each binding's words (the 1.0 binding: /messagegroups/G)
    )


def _schema_path(url: str, base_url: str) -> str | None:
    """The registry path a schemaurl names, or None when it points outside this registry."""
    if url.startswith("#/"):
        return url[1:]
    if url.startswith("/") and not url.startswith("//"):
        return url
    if base_url and url.startswith(base_url.rstrip("/") + "/"):
        return url[len(base_url.rstrip("/")) :]
    return None


def _schema_ids(path: str) -> tuple[str, str, str | None] | None:
    """(group id, schema id, version id or None) of a registry path of a schema or schema version, in either
    binding's words (`/schemaGroups/G/schemas/S/versions/V`, `/registry/schemagroups/G/schemas/S`; a `:Name` or
    `?query` after it ignored), or None when it names no schema."""
    parts = [p for p in path.split("?")[0].split(":", 1)[0].split("/") if p]
    for mount in (settings.REGISTRY_CORE_PATH, settings.REGISTRY_XR10_PATH):
        prefix = [p for p in (mount or "").split("/") if p]
        if prefix and parts[: len(prefix)] == prefix:
            parts = parts[len(prefix) :]
            break
    if (
        len(parts) not in (4, 6)
        or parts[0] not in ("schemaGroups", "schemagroups")
        or parts[2] != "schemas"
        or (len(parts) == 6 and parts[4] != "versions")
    ):
        return None
    return parts[1], parts[3], parts[5] if len(parts) == 6 else None


def _stored_schema(gid: str, sid: str, vid: str | None, scope: ReadScope) -> tuple[Resource, Version] | None:
    """The schema and its version (the latest when `vid` is None), or None when there is none the caller's read
    scope shows (a group hidden from the caller is as if it were not there)."""
    resource = (
        scope.filter(Resource.objects.all(), "group__")
        .filter(group__group_type="schemaGroups", group__gid=gid, resource_type="schemas", rid=sid)
        .select_related("latest")
        .first()
    )
    if resource is None:
        return None
    version = resource.latest if vid is None else Version.objects.filter(resource=resource, vid=vid).first()
    return None if version is None else (resource, version)


def _format_of(resource: Resource, version: Version) -> str | None:
    """A version's format: its own, else the latest version's, else the schema's."""
    return (
        (version.extensions or {}).get("format")
        or ((resource.latest and resource.latest.extensions) or {}).get("format")
        or (resource.extensions or {}).get("format")
    )


def resolve_schema(
    doc: dict, base_url: str, report: Report, scope: ReadScope = EVERYTHING
) -> tuple[str | None, bytes | None]:
    """(schema format, document bytes) of the definition's schema, or (format, None) with a note. `scope`: what
    the caller may read (a schema in a group hidden from them is as if it were not there)."""
    fmt, content, _version = _resolve_schema(doc, base_url, report, scope)
    return fmt, content


def _resolve_schema(
    doc: dict, base_url: str, report: Report, scope: ReadScope
) -> tuple[str | None, bytes | None, Version | None]:
    """`resolve_schema`, and the stored schema version it read (None for an inline schema), whose data contract
    (confluent.rule_checks) the check runs too."""
    fmt = doc.get("schemaformat") if isinstance(doc.get("schemaformat"), str) else None
    if "schema" in doc:
        schema = doc["schema"]
        content = schema.encode() if isinstance(schema, str) else json.dumps(schema).encode()
        return fmt, content, None
    url = doc.get("schemaurl")
    if not isinstance(url, str):
        return fmt, None, None
    path = _schema_path(url, base_url)
    if path is None:
        report.notes.append(f"data not checked: schema {report.reference(url)} is outside this registry")
        return fmt, None, None
    # `:Payload` names a message of the schema, `:messages/STATE` a JSON pointer into it (ids hold no ':')
    ids = _schema_ids(path)
    if ids is None:
        report.notes.append(f"data not checked: schemaurl {report.reference(url)} names no schema of this registry")
        return fmt, None, None
    found = _stored_schema(*ids, scope)
    if found is None:
        report.notes.append(f"data not checked: schema {report.reference(url)} does not exist in this registry")
        return fmt, None, None
    resource, version = found
    if version.resource_uri:
        report.notes.append(
            f"data not checked: schema {report.reference(url)} is outside this registry ({version.resource_uri})"
        )
        return fmt, None, None
    if fmt is None:
        fmt = _format_of(resource, version)
    return fmt, bytes(version.content or b""), version


def stored_json_schema_lookup(base_url: str, scope: ReadScope):
    """The lookup of catalog.validators.json_references for one check: a `$ref`'s URI (a registry path, or an
    absolute URL under `base_url`) -> the stored JSON Schema it names, read with the caller's `scope`, or None
    (then the reference is unresolvable). Each URI is read once per check."""
    memo: dict[str, tuple | None] = {}

    def lookup(uri: str):
        if uri not in memo:
            memo[uri] = _lookup_json_schema(uri, base_url, scope)
        return memo[uri]

    return lookup


def _lookup_json_schema(uri: str, base_url: str, scope: ReadScope):
    path = _schema_path(uri, base_url) if not uri.startswith("#") else None
    ids = _schema_ids(path) if path is not None and ":" not in path else None
    found = _stored_schema(*ids, scope) if ids is not None else None
    if found is None or found[1].resource_uri:
        return None
    resource, version = found
    family, draft = schema_format_family(_format_of(resource, version))
    if family != "JsonSchema":
        return None
    value, problem = load_json_document(bytes(version.content or b""))
    if problem is not None or not isinstance(value, dict | bool):
        return None
    return value, DRAFTS.get((draft or "").lower())


# --- data -------------------------------------------------------------------------------------------------------


def _check_data(
    doc: dict, message: Message, content_type: str | None, base_url: str, report: Report, scope: ReadScope
) -> None:
    if "schema" not in doc and "schemaurl" not in doc:
        return
    fmt, content, stored = _resolve_schema(doc, base_url, report, scope)
    if content is None:
        return
    family, version = schema_format_family(fmt)
    errors = len(report.errors)
    checked = _check_schema(family, version, fmt, content, doc, message, content_type, report)
    if checked is not None and stored is not None and len(report.errors) == errors and not report.incomplete:
        data, raw = checked
        check_version_rules(stored, family, content, report, data=data, raw=raw, message_name=message_name(doc))


def _check_schema(
    family, version, fmt, content: bytes, doc: dict, message: Message, content_type: str | None, report: Report
) -> tuple[object, bytes | None] | None:
    """The data against the schema; (the JSON value, the binary encoding or None) that was checked, or None when
    nothing was."""
    if family in ("Protobuf", "XSD"):
        return _check_binary_formats(family, version, content, doc, message, content_type, report)
    if family not in ("JsonSchema", "Avro"):
        report.notes.append(
            f"data not checked: schema format {fmt!r} is not checked here (JSON Schema, Avro, Protobuf and XSD are)"
        )
        return None
    if not message.has_data:
        report.error("data", f"missing: the definition declares a {family} schema for the data")
        return None
    data = message.data
    if message.data_base64 is not None:
        try:
            raw = base64.b64decode(message.data_base64, validate=True)
        except (binascii.Error, ValueError, TypeError):
            report.error("data_base64", "is not base64")
            return None
        if family == "Avro" and not (content_type and _json_content_type(content_type)):
            check_avro(content, None, report, binary=raw)
            return None, raw
        data, problem = load_json_document(raw)
        if problem is not None:
            report.notes.append("data not checked: data_base64 does not hold JSON")
            return None
    if content_type and not _json_content_type(content_type):
        report.notes.append(f"data not checked: datacontenttype {content_type!r} is not JSON")
        return None
    if family == "JsonSchema":
        check_json_schema(version, content, data, report, message_name(doc))
    else:
        check_avro(content, data, report)
    return data, None


def message_name(doc: dict) -> str | None:
    """What a `schemaurl` names after the `:` that follows its ids (`.../schemas/s:Order`, a Protobuf message or
    an Avro record; `.../versions/1:messages/STATE`, a JSON pointer into a JSON Schema), or None."""
    url = doc.get("schemaurl") if "schema" not in doc else None
    if not isinstance(url, str):
        return None
    path = url.split("?")[0]
    path = path.split("#", 1)[-1] if "#" in path else path.split("://", 1)[-1]  # a scheme's ':' is not it
    return (path.split(":", 1)[1].strip("/") or None) if ":" in path else None


def _check_binary_formats(
    family: str, version, content: bytes, doc: dict, message: Message, content_type: str | None, report: Report
) -> tuple[object, bytes | None] | None:
    """Protobuf (base64 binary of the named message) and XSD (XML text): catalog.validators.message_data and
    message_xml."""
    if not message.has_data:
        report.error("data", f"missing: the definition declares a {family} schema for the data")
        return None
    where, text = ("data_base64", message.data_base64) if message.data_base64 is not None else ("data", message.data)
    if family == "Protobuf":
        if content_type and _json_content_type(content_type) and not isinstance(text, str):
            report.notes.append(
                f"data not checked: datacontenttype {content_type!r} (the Protobuf JSON mapping) "
                "is not checked; the binary encoding in base64 is"
            )
            return None
        if not isinstance(text, str):
            report.error(where, f"must be the Protobuf binary encoding in base64 (a string), not {show(text)}")
            return None
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            report.error(where, "is not base64")
            return None
        check_protobuf(content, message_name(doc), raw, report)
        return None, raw
    if message.data_base64 is not None:
        try:
            text = base64.b64decode(text, validate=True) if isinstance(text, str) else None
        except (binascii.Error, ValueError):
            report.error(where, "is not base64")
            return None
    if not isinstance(text, str | bytes):
        report.error(where, f"must be an XML document (a string), not {show(text)}")
        return None
    check_xml(version, content, text, report)
    return None


def _json_content_type(value: str) -> bool:
    base = value.split(";")[0].strip().lower()
    return base in ("application/json", "text/json", "avro/json") or base.endswith("+json")


# --- the entry point --------------------------------------------------------------------------------------------


def check_message(
    doc: dict,
    message: Message,
    base_url: str = "",
    scope: ReadScope = EVERYTHING,
    reference: Callable[[str], str] = as_written,
) -> dict:
    """The verdict on `message` against definition document `doc`: `{"valid", "errors", "notes"}`; an error that
    a check could not run is marked `"unchecked": true`. Within the check budget (REGISTRY_CHECK_SECONDS: past
    it, the 503 problem of catalog.validators.budget). `scope`: what the caller may read (the schemas a
    `schemaurl` or a `$ref` names are read with it); the system's checks read everything. `reference`: the
    definition's `schemaurl` as the caller's binding shows that attribute, for the notes that quote it (the 1.0
    binding's `reference_to_v10`); nothing else of the verdict is rewritten: its errors quote the message and the
    schema as they are."""
    with budget.limit("the message check"), stored_schemas(stored_json_schema_lookup(base_url, scope)):
        return _check_message(doc, message, base_url, scope, reference)


def _check_message(doc: dict, message: Message, base_url: str, scope: ReadScope, reference=as_written) -> dict:
    report = Report(reference=reference)
    family, version = message_format_family(doc.get("format") if isinstance(doc.get("format"), str) else None)
    metadata = as_object(doc.get("metadata"))
    content_type = None
    if family == "CloudEvents":
        content_type = check_cloudevents(doc, message, report)
    elif message.kind == "structured" and family is not None:
        report.error(
            "message", f"a {family} definition takes an envelope (application/json), not a structured CloudEvent"
        )
        return {"valid": False, "errors": report.errors}
    elif family == "HTTP":
        check_http(metadata, message.properties, report)
        headers = as_object(message.properties.get("headers"))
        content_type = next(
            (
                v
                for k, v in headers.items()
                if isinstance(k, str) and k.lower() == "content-type" and isinstance(v, str)
            ),
            None,
        )
    elif family is not None:
        check_generic(metadata, message.properties, report, format_types(family, version))
    else:
        report.notes.append(f"metadata not checked: format {doc.get('format')!r} is not a known message format")
    _check_data(doc, message, content_type, base_url, report, scope)
    out = {"valid": not report.errors, "errors": report.errors}
    if report.notes:
        out["notes"] = report.notes
    return out


def event_type(message: Message):
    """The CloudEvents `type` of a message (structured: the attribute; binary: the `ce-type` header)."""
    if message.kind == "structured":
        return message.properties.get("type")
    headers = message.properties.get("headers")
    if isinstance(headers, dict):
        for name, value in headers.items():
            if isinstance(name, str) and name.lower() == "ce-type":
                return value
    return None
