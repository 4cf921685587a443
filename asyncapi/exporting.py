"""AsyncAPI 3.0 (or 3.1, on request) documents of message groups and endpoints (docs/asyncapi.md, "Export").

The shape follows xrcg's `asyncapi` templates, so that the two describe the same thing: a channel per message
group (its key the group id without dots), a component message per message (its id without dots, in PascalCase),
an operation per message (`<Message>Send` for producers, `<Message>Receive` for consumers), JSON Schemas under
`components.schemas` as `<Group>.<Schema>`; Avro and Protobuf schemas inline in the payload (xrcg writes them to
files beside the document). What xrcg leaves out is added where AsyncAPI has a place for it: the channel's
address (the topic its messages declare), servers from the endpoints, message headers from the CloudEvents
attributes and protocol headers, bindings from protocol options, and `x-xregistry-*` extensions naming the
registry entities, which an import of the document reads back (a round trip keeps the ids).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from registry.access import owners
from registry.domain.attributes import version_sort_key

from . import export_bindings as bindings
from .export_reads import Endpoint, MessageGroup, SchemaVersion
from .payloads import registry_format
from .validators.specs import VERSIONS, valid_part

KEY = re.compile(r"[^A-Za-z0-9_\-]")
COMPONENT_KEY = re.compile(r"[^A-Za-z0-9_.\-]")
TYPE_SCHEMAS = {
    "timestamp": {"type": "string", "format": "date-time"},
    "uri": {"type": "string", "format": "uri"},
    "urireference": {"type": "string", "format": "uri-reference"},
    "uri-reference": {"type": "string", "format": "uri-reference"},
    "uritemplate": {"type": "string", "format": "uri-template"},
    "duration": {"type": "string", "format": "duration"},
    "binary": {"type": "string", "contentEncoding": "base64"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "string": {"type": "string"},
}
ROLE_ACTIONS = {"producer": "send", "consumer": "receive"}
# an endpoint's attributes that its servers say (the message groups: by the channels that list the server), or
# that an export does not carry (its owners: an import keeps the stored ones); the others are carried whole in
# `x-xregistry-attributes` (usage, URIs, options, envelope, ...: a server says them only in part)
SERVER_SAYS = {"protocol", "description", "messagegroups", owners.ATTRIBUTE}
# the AsyncAPI versions an export is written in (the 3.x versions whose official schema is shipped, which the
# exports are tested against); 3.1 adds nothing this export writes, so the two differ by their `asyncapi` only
EXPORT_VERSIONS = tuple(v for v in VERSIONS if v.startswith("3."))
DEFAULT_EXPORT_VERSION = "3.0.0"


def pascal(text: str) -> str:
    """xrcg's `pascal` filter (generator/jinja_filters.py), for keys that match its documents."""
    if "." in text:
        return ".".join(pascal(part) for part in text.split("."))
    if not text:
        return text
    if "_" in text:
        words = text.split("_")
    elif text[0].isupper():
        words = re.findall(r"[A-Z][a-z0-9_]*\.?", text)
    else:
        words = re.findall(r"[a-z0-9]+\.?|[A-Z][a-z0-9_]*\.?", text)
    return "".join(word.capitalize() for word in words) or text


def channel_key(gid: str) -> str:
    return KEY.sub("_", gid.replace(".", "")) or "channel"


def message_key(mid: str) -> str:
    return KEY.sub("_", pascal(mid.replace(".", ""))) or "Message"


def schema_key(found: SchemaVersion) -> str:
    return COMPONENT_KEY.sub("_", f"{pascal(found.group)}.{pascal(found.schema)}")


def schema_format(fmt: str | None) -> str:
    """The AsyncAPI `schemaFormat` of a registry schema format."""
    name, _, version = (fmt or "JsonSchema/draft-07").partition("/")
    low = name.lower()
    if low in ("jsonschema", "json"):
        return f"application/schema+json;version={version or 'draft-07'}"
    if low == "avro":
        return f"application/vnd.apache.avro;version={version or '1.9.0'}"
    if low in ("protobuf", "proto"):
        return f"application/vnd.google.protobuf;version={version or '3'}"
    if low == "openapi":
        return f"application/vnd.oai.openapi;version={version or '3.0.0'}"
    if low == "raml":
        return f"application/raml+yaml;version={version or '1.0'}"
    return f"application/vnd.xregistry.schema;name={name};version={version or '1'}"


def property_schema(declaration) -> dict:
    """A property declaration (`type`, `value`, `description`) as a JSON Schema."""
    if not isinstance(declaration, dict):
        return {"type": "string"}
    kind = declaration.get("type") or "string"
    out = dict(TYPE_SCHEMAS.get(kind, {}))
    if kind not in TYPE_SCHEMAS or kind == "string" and "type" in declaration:
        out["x-xregistry-type"] = kind  # a type JSON Schema cannot say, or a string said explicitly
    if "value" in declaration:
        out["const"] = declaration["value"]
    if isinstance(declaration.get("description"), str) and declaration["description"]:
        out["description"] = declaration["description"]
    if isinstance(declaration.get("specurl"), str):
        out["x-xregistry-specurl"] = declaration["specurl"]
    return out


def _rebased(schema, key: str):
    """A JSON Schema's own `#/...` references, rewritten to point into it at `#/components/schemas/KEY`."""
    if isinstance(schema, dict):
        out = {}
        for name, value in schema.items():
            if name == "$ref" and isinstance(value, str) and value.startswith("#/"):
                out[name] = f"#/components/schemas/{key}{value[1:]}"
            elif name in ("const", "enum", "default", "examples", "example"):
                out[name] = value
            else:
                out[name] = _rebased(value, key)
        return out
    if isinstance(schema, list):
        return [_rebased(value, key) for value in schema]
    return schema


def documented(out: dict, attrs: dict) -> None:
    """An entity's documentation as `externalDocs`, its labels as `x-xregistry-labels`."""
    if isinstance(attrs.get("documentation"), str) and attrs["documentation"]:
        out["externalDocs"] = {"url": attrs["documentation"]}
    if isinstance(attrs.get("labels"), dict) and attrs["labels"]:
        out["x-xregistry-labels"] = attrs["labels"]


def split_bindings(value: dict, version: str, definition: str) -> tuple[dict, dict]:
    """(bindings valid in AsyncAPI `version`, the others): an import keeps bindings as written, which an older
    version's schema let through (a 2.6 binding of a version or a field 3.x refuses); the export writes those in
    `x-xregistry-bindings`, which an import reads back, so that the document stays valid."""
    valid, other = {}, {}
    for name, binding in value.items():
        (valid if valid_part({name: binding}, version, definition) else other)[name] = binding
    return valid, other


class Exporter:
    def __init__(self, role: str, version: str = DEFAULT_EXPORT_VERSION):
        self.role = role
        self.action = ROLE_ACTIONS[role]
        self.version = version
        self.doc: dict = {"asyncapi": version}
        self.servers: dict = {}
        self.channels: dict = {}
        self.operations: dict = {}
        self.messages: dict = {}
        self.schemas: dict = {}
        self.traits: dict = {}
        self.schema_groups: dict = {}  # attributes of the schema groups of the payloads
        self.versions: list[str] = []
        self.server_keys: dict[str, list[str]] = {}  # endpoint id -> its server keys

    # servers ------------------------------------------------------------------------------------------------
    def server(self, endpoint: Endpoint) -> list[str]:
        if endpoint.eid in self.server_keys:
            return self.server_keys[endpoint.eid]
        attrs = endpoint.attributes
        protocol = attrs.get("protocol") if isinstance(attrs.get("protocol"), str) else ""
        family, _, version = protocol.partition("/")
        options = attrs.get("protocoloptions") if isinstance(attrs.get("protocoloptions"), dict) else {}
        listed = [*(attrs.get("endpoints") or []), *(options.get("endpoints") or [])]
        uris = [e.get("uri") for e in listed if isinstance(e, dict) and isinstance(e.get("uri"), str)]
        keys = []
        for index, uri in enumerate(uris):
            parts = urlsplit(uri)
            if not parts.netloc:
                continue
            key = channel_key(endpoint.eid) + (str(index) if len(uris) > 1 else "")
            scheme = parts.scheme.lower()
            server = {"host": parts.netloc, "protocol": bindings.asyncapi_protocol(family.upper(), scheme)}
            if parts.path and family.upper() not in ("KAFKA", "NATS"):
                server["pathname"] = parts.path
            if family.upper() == "MQTT":
                server["protocolVersion"] = version or "5.0"
            elif family.upper() == "AMQP":
                server["protocolVersion"] = "1.0"
            elif version and family.upper() not in ("KAFKA", "HTTP", "NATS"):
                server["protocolVersion"] = version
            if isinstance(attrs.get("description"), str) and attrs["description"]:
                server["description"] = attrs["description"]
            server_bindings = bindings.server_bindings(family.upper(), attrs.get("protocoloptions") or {})
            # those the export's version refuses are left out: `x-xregistry-attributes` carries the options whole
            server_bindings, _ = split_bindings(server_bindings, self.version, "serverBindingsObject")
            if server_bindings:
                server["bindings"] = server_bindings
            server["x-xregistry-endpoint"] = endpoint.eid
            carried = {k: v for k, v in attrs.items() if k not in SERVER_SAYS}
            if carried:
                server["x-xregistry-attributes"] = carried  # what a server cannot say, for an import back
            self.servers[key] = server
            keys.append(key)
        self.server_keys[endpoint.eid] = keys
        return keys

    # messages -----------------------------------------------------------------------------------------------
    def payload(self, mid: str, message: dict, found: SchemaVersion | None) -> dict | None:
        if found is not None:
            self.versions.append(found.version)
            fmt = found.format or message.get("dataschemaformat")
            out = {"schemaFormat": schema_format(fmt)}
            if isinstance(fmt, str) and registry_format(out["schemaFormat"], "") != fmt:
                out["x-xregistry-schemaformat"] = fmt  # the spelling of this registry, for an import back
            if found.document is None:
                out["schema"] = {"$ref": found.uri}  # stored elsewhere: where it is
            elif (fmt or "JsonSchema").lower().startswith("json") and isinstance(found.document, dict | bool):
                key = schema_key(found)
                self.schemas[key] = _rebased(found.document, key)
                out["schema"] = {"$ref": f"#/components/schemas/{key}"}
            else:
                out["schema"] = found.document
            out["x-xregistry-schema"] = found.path
            unversioned = found.path.split("/versions/")[0]
            if message.get("dataschemauri") not in (unversioned, None):
                out["x-xregistry-reference"] = message["dataschemauri"]  # a version, a `:Name` as written
            if found.metadata:
                out["x-xregistry-schemametadata"] = found.metadata
            if found.group_attributes:
                self.schema_groups[found.group] = found.group_attributes
            return out
        if "dataschema" in message:
            return {"schemaFormat": schema_format(message.get("dataschemaformat")), "schema": message["dataschema"]}
        if isinstance(message.get("dataschemauri"), str):
            return {
                "schemaFormat": schema_format(message.get("dataschemaformat")),
                "schema": {"$ref": message["dataschemauri"]},
            }
        return None

    def headers(self, message: dict) -> dict | None:
        properties, required = {}, []
        family = bindings.protocol_family(message)
        attributes = message.get("envelopemetadata")
        if isinstance(message.get("envelope"), str) and isinstance(attributes, dict):
            prefix = bindings.CE_PREFIX.get(family or "", "ce-")
            for name, declaration in attributes.items():
                properties[prefix + name] = property_schema(declaration)
                if isinstance(declaration, dict) and declaration.get("required"):
                    required.append(prefix + name)
        for name, declaration in bindings.protocol_headers(message):
            properties.setdefault(name, property_schema(declaration))
            if declaration.get("required"):
                required.append(name)
        if not properties:
            return None
        out = {"type": "object", "properties": properties}
        if required:
            out["required"] = sorted(set(required), key=required.index)
        return out

    def message(self, group: MessageGroup, mid: str, message: dict, address_written: bool) -> str:
        out: dict = {"name": mid}
        if isinstance(message.get("name"), str) and message["name"] != mid:
            out["title"] = message["name"]
        if isinstance(message.get("description"), str) and message["description"]:
            out["summary"] = out["description"] = message["description"]
        if isinstance(message.get("datacontenttype"), str):
            out["contentType"] = message["datacontenttype"]
        correlation = message.get("correlationid")
        if isinstance(correlation, dict) and isinstance(correlation.get("location"), str):
            out["correlationId"] = {k: v for k, v in correlation.items() if k in ("location", "description")}
        headers = self.headers(message)
        if headers:
            out["headers"] = headers
        payload = self.payload(mid, message, group.schemas.get(mid))
        if payload:
            out["payload"] = payload
        message_bindings, other = split_bindings(
            bindings.message_bindings(message), self.version, "messageBindingsObject"
        )
        if message_bindings:
            out["bindings"] = message_bindings
        if other:
            out["x-xregistry-bindings"] = other
        if isinstance(message.get("protocol"), str):
            out["x-xregistry-protocol"] = message["protocol"]
            rest = bindings.unexpressed_options(message, address_written)
            if rest:
                out["x-xregistry-protocoloptions"] = rest
        if isinstance(message.get("envelope"), str) and message["envelope"].lower().startswith("cloudevents"):
            # a trait's summary or description would be the description of every message that has none when the
            # document is read (traits apply to what the message leaves out): the trait says what it is by its tag
            self.traits["CloudEvents"] = {
                "name": "cloudevents",
                "tags": [
                    {
                        "name": "cloudevents",
                        "description": "CloudEvents binary content mode: the context attributes are headers",
                        "externalDocs": {"url": "https://github.com/cloudevents/spec"},
                    }
                ],
            }
            out["traits"] = [{"$ref": "#/components/messageTraits/CloudEvents"}]
        documented(out, message)
        out["x-xregistry-message"] = mid
        # one component for the same message in several groups; a message of the same id that says something
        # else (another group's) gets a key of its own
        key = message_key(mid)
        if self.messages.get(key, out) != out:
            key = f"{channel_key(group.gid)}_{key}"
        self.messages[key] = out
        return key

    # channels -----------------------------------------------------------------------------------------------
    def group(self, group: MessageGroup, endpoints: list[Endpoint]) -> None:
        ckey = channel_key(group.gid)
        if ckey in self.channels:
            return
        addresses = {bindings.message_address(m) for m in group.messages.values()}
        # the topic every message declares; else null, "unknown or dynamic" (xrcg writes the group's id)
        address = addresses.pop() if len(addresses) == 1 else None
        channel: dict = {"address": address}
        name = group.attributes.get("name")
        if isinstance(name, str) and name != group.gid:
            channel["title"] = name
        if isinstance(group.attributes.get("description"), str) and group.attributes["description"]:
            channel["description"] = group.attributes["description"]
        channel_bindings, other = split_bindings(
            bindings.kept_bindings(group.attributes), self.version, "channelBindingsObject"
        )
        if channel_bindings:
            channel["bindings"] = channel_bindings
        if other:
            channel["x-xregistry-bindings"] = other
        channel["messages"] = {}
        self.channels[ckey] = channel
        servers = [key for endpoint in endpoints for key in self.server(endpoint)]
        if servers:
            channel["servers"] = [{"$ref": f"#/servers/{key}"} for key in servers]
        documented(channel, group.attributes)
        channel["x-xregistry-messagegroup"] = group.gid
        verb = self.action.capitalize()
        for mid in sorted(group.messages):
            message = group.messages[mid]
            mkey = self.message(group, mid, message, address is not None)
            channel["messages"][mkey] = {"$ref": f"#/components/messages/{mkey}"}
            okey = f"{mkey}{verb}"
            if okey in self.operations:
                okey = f"{ckey}_{okey}"
            operation = {
                "action": self.action,
                "channel": {"$ref": f"#/channels/{ckey}"},
                "title": f"{verb} {mid}",
            }
            if isinstance(message.get("description"), str) and message["description"]:
                operation["summary"] = f"{verb} {message['description']}"
            operation_bindings = bindings.operation_bindings(message)
            if operation_bindings:
                operation["bindings"] = operation_bindings
            operation["messages"] = [{"$ref": f"#/channels/{ckey}/messages/{mkey}"}]
            self.operations[okey] = operation

    def document(self, title: str, description: str | None) -> dict:
        version = max(self.versions, key=version_sort_key) if self.versions else "1"
        info: dict = {"title": title, "version": version}
        if description:
            info["description"] = description
        self.doc["info"] = info
        if self.servers:
            self.doc["servers"] = self.servers
        self.doc["channels"] = self.channels
        self.doc["operations"] = self.operations
        components: dict = {}
        if self.messages:
            components["messages"] = self.messages
        if self.schemas:
            components["schemas"] = self.schemas
        if self.traits:
            components["messageTraits"] = self.traits
        if components:
            self.doc["components"] = components
        if self.schema_groups:
            self.doc["x-xregistry-schemagroups"] = self.schema_groups
        return self.doc


def uses(endpoint: Endpoint, role: str) -> bool:
    usage = endpoint.attributes.get("usage")
    usage = [usage] if isinstance(usage, str) else usage or []
    return role in usage or (role == "consumer" and "subscriber" in usage)


def export_asyncapi(
    *,
    groups: list[tuple[MessageGroup, list[Endpoint]]],
    endpoints: list[Endpoint],
    role: str,
    title: str,
    version: str = DEFAULT_EXPORT_VERSION,
) -> dict:
    """The AsyncAPI document (`version`, one of EXPORT_VERSIONS) of message groups (each with the endpoints that
    reference it) and endpoints (each with its message groups), from the point of view of `role` (`producer`:
    send, `consumer`: receive)."""
    exporter = Exporter(role, version)
    for group, referrers in groups:
        exporter.group(group, [e for e in referrers if uses(e, role)])
    for endpoint in endpoints:
        for group in endpoint.groups:
            exporter.group(group, [endpoint])
    description = None
    if len(groups) == 1 and not endpoints:
        description = groups[0][0].attributes.get("description")
    elif len(endpoints) == 1 and not groups:
        description = endpoints[0].attributes.get("description")
    return exporter.document(title, description if isinstance(description, str) else None)
