"""An AsyncAPI document (`model.Document`) as a registry document of the stored (0.5) shape, with the place in the
AsyncAPI document of every entity it holds (docs/asyncapi.md is the mapping, in words).

- each channel is a message group (`PREFIX.CHANNEL`), holding the channel's messages as message definitions;
- each server is an endpoint per role its operations give it (`send`: `producer`, `receive`: `consumer`),
  `PREFIX.SERVER.ROLE`, referencing the message groups of the channels those operations use on that server;
- each payload is a schema in the schema group `PREFIX` (named after its component or file, else after its
  message), whose version is `info.version`.

Messages are written in the xRegistry 1.0 shape and stored through `catalog.xr10.message_to_v05`, endpoints
through `endpoints.xr10.endpoint_to_v05`: the same translation as the 1.0 binding's.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from catalog.xr10 import message_to_v05
from endpoints.xr10 import endpoint_to_v05
from registry.access import owners

from . import protocols
from .model import Channel, Document, Message
from .payloads import family, payload_document, registry_format
from .sources import AsyncAPIError, Resolver

V05_SCHEMA = "https://cloudevents.io/schemas/registry"
COMMON_V05 = {"name": "name", "description": "description", "labels": "tags", "documentation": "docs"}
NOT_ID = re.compile(r"[^A-Za-z0-9._~\-]+")
CE_PREFIXES = ("ce-", "ce_", "cloudevents:", "cloudevents_")
CE_NAME = re.compile(r"^[a-z0-9]+$")
CE_CORE = {"id", "type", "source"}
JSON_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean"}
STRING_FORMATS = {
    "date-time": "timestamp",
    "uri": "uri",
    "uri-reference": "urireference",
    "uri-template": "uritemplate",
    "duration": "duration",
}
ROLES = (("producer", "send"), ("consumer", "receive"))
# `x-xregistry-schema` of an export: the schema version the payload is
XSCHEMA = re.compile(r"/schemagroups/([^/]+)/schemas/([^/:]+)(?:/versions/([^/:]+))?(?::.*)?")


def to_id(text: str, fallback: str = "x") -> str:
    """An id (RFC 3986 segment-nz-nc, at most 128 characters) for a name: `/` becomes `.`, `{` `}` go, any other
    character outside letters, digits and `._~-` becomes `_`; a long name keeps a hash of itself."""
    value = NOT_ID.sub("_", text.replace("/", ".").replace("{", "").replace("}", ""))
    value = re.sub(r"\.{2,}", ".", value).strip(".") or fallback
    if len(value) > 128:
        value = value[:119] + "~" + hashlib.sha1(text.encode()).hexdigest()[:8]
    return value


def default_prefix(title: str) -> str:
    """`Streetlights Kafka API` -> `StreetlightsKafkaAPI`."""
    return "".join(w[:1].upper() + w[1:] for w in re.findall(r"[A-Za-z0-9]+", title))[:64] or "asyncapi"


def join(prefix: str, name: str) -> str:
    if not prefix:
        return name
    return prefix + name if prefix.endswith((".", "-", "_", "~")) else f"{prefix}.{name}"


def common_v05(attrs: dict | None) -> dict:
    """The common attributes (1.0 names: name, description, labels, documentation) of an export's extension, in
    the stored names; anything else is not taken."""
    out = {}
    for name, stored in COMMON_V05.items():
        value = (attrs or {}).get(name)
        if isinstance(value, str) and value or name == "labels" and isinstance(value, dict) and value:
            out[stored] = value
    return out


def documented(out: dict, documentation: str | None, labels: dict | None) -> dict:
    if documentation:
        out["docs"] = documentation
    if labels:
        out["tags"] = labels
    return out


def json_type(schema: dict) -> str | None:
    """The registry property type of a JSON Schema (None: a string, the default)."""
    if isinstance(schema.get("x-xregistry-type"), str):
        return schema["x-xregistry-type"]
    kind = schema.get("type")
    if kind in JSON_TYPES:
        return JSON_TYPES[kind]
    if kind == "string" or kind is None:
        if schema.get("contentEncoding") == "base64":
            return "binary"
        return STRING_FORMATS.get(schema.get("format"))
    return None


def declaration(schema, required: bool) -> dict:
    """A header's JSON Schema as a property declaration (`type`, `value`, `required`, `description`)."""
    out: dict = {}
    if not isinstance(schema, dict):
        return {"required": True} if required else {}
    kind = json_type(schema)
    if kind:
        out["type"] = kind
    value = protocols.const_of(schema)
    if value is not None:
        out["value"] = value
    if required:
        out["required"] = True
    if isinstance(schema.get("description"), str) and schema["description"].strip():
        out["description"] = schema["description"]
    if isinstance(schema.get("x-xregistry-specurl"), str):
        out["specurl"] = schema["x-xregistry-specurl"]
    return out


def is_kafka(definition: dict) -> bool:
    """Whether a mapped definition (0.5 shape) is a Kafka message: its format, or its protocol beside an envelope."""
    return str(definition.get("format", "")).lower().startswith("kafka/") or definition.get("protocol") == "KAFKA"


@dataclass
class Mapped:
    document: dict
    places: dict[str, str] = field(default_factory=dict)  # entity path (0.5 names) -> AsyncAPI place
    # endpoints an export described: they keep the stored message groups this document does not name
    exported_endpoints: set[str] = field(default_factory=set)


class Mapper:
    def __init__(self, doc: Document, resolver: Resolver, prefix: str | None):
        self.doc = doc
        self.resolver = resolver
        self.explicit = prefix
        self.prefix = default_prefix(doc.title) if prefix is None else prefix
        self.schema_group = self.prefix.rstrip(".-_~") or default_prefix(doc.title)
        self.vid = to_id(doc.info_version, "1")
        self.out = {"$schema": V05_SCHEMA, "specversion": "0.5-wip"}
        self.places: dict[str, str] = {}
        self.schemas: dict[tuple[str, str], dict] = {}  # (group, schema) -> {format, document, place, version}
        self.group_of: dict[str, str] = {}  # channel key -> group id
        self.exported_endpoints: set[str] = set()  # endpoints of servers an export wrote (`x-xregistry-attributes`)

    def exact(self, xid: str) -> str:
        """An id this server wrote in an export (`x-xregistry-*`): kept, under the prefix only when one is given."""
        return join(self.explicit, xid) if self.explicit else xid

    # headers ------------------------------------------------------------------------------------------------
    def headers(self, message: Message) -> list[tuple[str, object, bool]]:
        if message.headers is None:
            return []
        obj, loc = self.resolver.deref(message.headers, message.headers_loc)
        if not isinstance(obj, dict):
            return []
        listed = obj.get("required")
        required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
        properties = obj.get("properties")
        if not isinstance(properties, dict):
            return []
        out = []
        for name, prop in properties.items():
            value, _ = self.resolver.deref(prop, loc / "properties" / name)
            out.append((name, value, name in required))
        return out

    def split_headers(self, message: Message):
        """(CloudEvents attributes, other headers) when the message is a CloudEvent, else (None, headers)."""
        headers = self.headers(message)
        lowered = {name.lower() for name, _, _ in headers}
        prefixed = any(name.lower().startswith(CE_PREFIXES) for name, _, _ in headers)
        if not (prefixed or message.cloudevents_trait or CE_CORE <= lowered):
            return None, [(n, declaration(s, r)) for n, s, r in headers]
        attributes, others = {}, []
        for name, schema, required in headers:
            low = name.lower()
            bare = next((low[len(p) :] for p in CE_PREFIXES if low.startswith(p)), None)
            if bare is None and not prefixed:
                bare = low
            if bare is not None and CE_NAME.fullmatch(bare) and bare not in attributes:
                attributes[bare] = declaration(schema, required)
            else:
                others.append((name, declaration(schema, required)))
        return attributes, others

    # payloads -----------------------------------------------------------------------------------------------
    def schema_for(self, channel: Channel, message: Message) -> tuple[str, str] | None:
        """(format, 1.0 reference) of the message's payload, its schema added to its schema group."""
        payload = message.payload
        if payload is None:
            return None
        fmt = registry_format(payload.schema_format, str(payload.loc))
        if payload.xregistry_format and family(payload.xregistry_format) == family(fmt):
            fmt = payload.xregistry_format  # the spelling of the registry it was exported from
        exported = XSCHEMA.fullmatch(payload.xregistry_id or "")
        uri = (
            payload.schema.get("$ref") if isinstance(payload.schema, dict) and set(payload.schema) == {"$ref"} else None
        )
        if exported and isinstance(uri, str) and uri.startswith(("http://", "https://")):
            # a schema the exporting registry keeps as a URI: it stays that URI (its RESOURCEURI), nothing is read
            document, place = None, str(payload.loc)
        else:
            uri = None
            document = payload_document(self.resolver, fmt, payload.schema, payload.loc)
            place = str(self.resolver.deref(payload.schema, payload.loc)[1])  # the schema itself, past its $refs
        sg, vid = self.schema_group, self.vid
        if exported:
            sg, sid = self.exact(exported.group(1)), exported.group(2)
            vid = exported.group(3) or vid
        elif payload.name:
            sid = to_id(payload.name)
        else:
            component = message.loc.path[2] if message.loc.path[:2] == ("components", "messages") else None
            sid = to_id(f"{component or channel.key + '.' + message.key}.payload")
        base, n = sid, 1
        while (sg, sid) in self.schemas and self.schemas[sg, sid]["content"] != (fmt, document, uri):
            n += 1
            sid = f"{base}-{n}"
        self.schemas.setdefault(
            (sg, sid),
            {
                "content": (fmt, document, uri),
                "place": place,
                "version": vid,
                "metadata": common_v05(payload.xregistry_metadata),
                "group": exported.group(1) if exported else None,
            },
        )
        reference = payload.xregistry_reference if exported else None
        return fmt, reference or f"/schemagroups/{sg}/schemas/{sid}"

    # messages and groups ------------------------------------------------------------------------------------
    def channel_servers(self, channel: Channel) -> list[str]:
        """The keys of the servers a channel is on: those it lists, else every server of the document (AsyncAPI),
        except the servers an export of this registry wrote (`x-xregistry-endpoint`): an export lists each
        channel's servers, so a channel it wrote without any is on none of them (its group has no endpoint of the
        export's role)."""
        if channel.servers is not None:
            return channel.servers
        return [key for key, server in self.doc.servers.items() if not server.xregistry_id]

    def channel_protocol(self, channel: Channel) -> str | None:
        """The registry protocol of every server the channel is on, when they agree on a known one."""
        keys = self.channel_servers(channel)
        names = {
            protocols.registry_protocol(self.doc.servers[k].protocol, self.doc.servers[k].protocol_version)
            for k in keys
        }
        if len(names) != 1:
            return None
        (name,) = names
        return name if name.split("/")[0] in ("KAFKA", "MQTT", "AMQP", "HTTP", "NATS") else None

    def message(self, channel: Channel, message: Message, did: str, protocol: str | None) -> dict:
        attrs: dict = {}
        name = message.title or message.name
        if name and name != did:
            attrs["name"] = name
        description = message.description or message.summary
        if description:
            attrs["description"] = description
        attributes, others = self.split_headers(message)
        if attributes is not None:
            attrs["envelope"] = "CloudEvents/1.0"
            attrs["envelopemetadata"] = attributes
        protocol = message.xregistry_protocol or protocol or protocols.from_bindings(message.bindings)
        if protocol:
            fam = protocol.split("/")[0].upper()
            if fam == "MQTT" and protocol == "MQTT/3.1.1":
                others = []  # MQTT 3.1.1 has no user properties
            operations = [o for o in self.doc.operations.values() if o.channel == channel.key]
            # the operations that name this message first: their bindings are about it
            operations.sort(key=lambda o: message.key not in o.messages)
            attrs["protocol"] = protocol
            options = protocols.message_options(fam, channel.address, channel, message, operations, others)
            attrs["protocoloptions"] = protocols.with_extra(options, message.xregistry_options)
        kept = protocols.kept_message_bindings(
            message.bindings, protocol.split("/")[0].upper() if protocol else None, attrs.get("protocoloptions") or {}
        )
        if kept:
            attrs["asyncapibindings"] = kept
        schema = self.schema_for(channel, message)
        if schema:
            attrs["dataschemaformat"], attrs["dataschemauri"] = schema
        if message.content_type:
            attrs["datacontenttype"] = message.content_type
        if message.correlation_id:
            attrs["correlationid"] = message.correlation_id
        return documented(message_to_v05(attrs), message.documentation, message.labels)

    def groups(self) -> None:
        taken: dict[str, str] = {}
        groups = {}
        channels = [*self.doc.channels.values(), *([self.doc.unused] if self.doc.unused else [])]
        for channel in channels:
            gid = (
                self.exact(channel.xregistry_id)
                if channel.xregistry_id
                else join(self.prefix, to_id(channel.name or channel.key))
            )
            base, n = gid, 1
            while gid.lower() in taken:
                n += 1
                gid = f"{base}-{n}"
            taken[gid.lower()] = channel.key
            self.group_of[channel.key] = gid
            self.places[f"/definitionGroups/{gid}"] = str(channel.loc)
            protocol = self.channel_protocol(channel)
            definitions = {}
            for message in channel.messages.values():
                did = self.exact(message.xregistry_id) if message.xregistry_id else to_id(message.key)
                definitions[did] = {"id": did, **self.message(channel, message, did, protocol)}
                self.places[f"/definitionGroups/{gid}/definitions/{did}"] = str(message.loc)
            group = documented({"id": gid}, channel.documentation, channel.labels)
            if channel.title:
                group["name"] = channel.title
            if channel.description or channel.summary:
                group["description"] = channel.description or channel.summary
            kept = protocols.kept_channel_bindings(channel, any(map(is_kafka, definitions.values())))
            if kept:
                group["asyncapibindings"] = kept
            formats = {json.dumps(d.get("format")) for d in definitions.values()}
            if len(formats) == 1 and definitions and next(iter(definitions.values())).get("format"):
                group["format"] = next(iter(definitions.values()))["format"]
            group["definitions"] = definitions
            groups[gid] = group
        if groups:
            self.out["definitionGroups"] = groups

    def schema_groups(self) -> None:
        groups: dict = {}
        for (sg, sid), entry in self.schemas.items():
            fmt, document, uri = entry["content"]
            vid = entry["version"]
            version = {"id": vid, **entry["metadata"], **({"schemaURI": uri} if uri else {"schema": document})}
            attributes = common_v05(self.doc.schema_groups.get(entry["group"] or ""))
            schemas = groups.setdefault(sg, {"id": sg, **attributes, "schemas": {}})["schemas"]
            schemas[sid] = {"id": sid, "format": fmt, "versions": {vid: version}}
            path = f"/schemaGroups/{sg}/schemas/{sid}"
            self.places[path] = self.places[f"{path}/versions/{vid}"] = entry["place"]
            self.places[f"/schemaGroups/{sg}"] = str(self.resolver.root_loc / "info")
        if groups:
            self.out["schemaGroups"] = groups

    def endpoints(self) -> None:
        endpoints = {}
        for server in self.doc.servers.values():
            protocol = protocols.registry_protocol(server.protocol, server.protocol_version)
            roles = []
            for role, action in ROLES:
                operations = [
                    o
                    for o in self.doc.operations.values()
                    if o.action == action and server.key in self.channel_servers(self.doc.channels[o.channel])
                ]
                if operations:
                    roles.append((role, operations))
            for role, operations in roles:
                if server.xregistry_id:
                    eid = self.exact(server.xregistry_id) + ("" if len(roles) == 1 else f".{role}")
                else:
                    eid = join(self.prefix, f"{to_id(server.key)}.{role}")
                attrs: dict = {"usage": [role], "protocol": protocol}
                if server.description:
                    attrs["description"] = server.description
                uri = protocols.endpoint_uri(server.protocol, server.host, server.pathname)
                if uri:
                    attrs["endpoints"] = [{"uri": uri}]
                options = protocols.server_options(protocol, server.bindings)
                groups = []
                for op in operations:
                    if role == "consumer" and protocol == "KAFKA":
                        group_id = protocols.const_of((op.bindings.get("kafka") or {}).get("groupId"))
                        if isinstance(group_id, str) and group_id:
                            options.setdefault("consumergroup", group_id)
                    gid = self.group_of[op.channel]
                    if f"/messagegroups/{gid}" not in groups:
                        groups.append(f"/messagegroups/{gid}")
                if options:
                    attrs["protocoloptions"] = options
                if server.xregistry_attributes is not None:
                    # an export's endpoint: its attributes as carried (usage, URIs, options, envelope, ...) rather
                    # than what the server says of them in part; its message groups are those of this document
                    # added to the stored ones (an export of some groups lists no other)
                    attrs = {k: v for k, v in attrs.items() if k in ("protocol", "description")}
                    carried = server.xregistry_attributes
                    attrs.update({k: v for k, v in carried.items() if k not in ("messagegroups", owners.ATTRIBUTE)})
                    self.exported_endpoints.add(eid)
                attrs["messagegroups"] = groups
                endpoints[eid] = {"id": eid, **endpoint_to_v05(attrs)}
                self.places[f"/endpoints/{eid}"] = str(server.loc)
        if endpoints:
            self.out["endpoints"] = endpoints

    def map(self) -> Mapped:
        self.groups()
        self.schema_groups()
        self.endpoints()
        return Mapped(self.out, self.places, self.exported_endpoints)


def map_document(doc: Document, resolver: Resolver, *, prefix: str | None = None) -> Mapped:
    """The registry document of an AsyncAPI document; `prefix` None: the default (the title in PascalCase)."""
    if prefix is not None and prefix and not re.fullmatch(r"[A-Za-z0-9._~\-]{1,64}", prefix):
        raise AsyncAPIError("group prefix", f"{prefix!r}: a prefix is 1-64 letters, digits and ._~-")
    return Mapper(doc, resolver, prefix).map()
