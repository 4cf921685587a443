"""An AsyncAPI 2.6 or 3.x document (already valid against its official schema) read into `model.Document`.

References are followed with the resolver of `sources.py`; traits are merged into their message or operation
(3.0: a trait never overrides what the object itself says; 2.6: JSON Merge Patch in the order given, as each
version's specification says). Every error names its place (`FILE#POINTER`).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .model import Channel, Document, Message, Operation, Payload, Server
from .payloads import bundle_json_schema
from .sources import AsyncAPIError, Loc, Resolver

VARIABLE = re.compile(r"\{([^{}]*)\}")
XREG = "x-xregistry-"


def merge(base, over):
    """JSON Merge Patch of `over` onto `base` (RFC 7386, without null removals): `over` wins."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = merge(base[key], value) if key in base else value
        return out
    return over


class Reader:
    def __init__(self, resolver: Resolver):
        self.resolver = resolver
        self.root = resolver.root
        self.version = self.root["asyncapi"]
        self.v3 = self.version.startswith("3.")
        self.at = resolver.root_loc

    def deref(self, node, at: Loc, what: str = "an object") -> tuple[dict, Loc]:
        value, loc = self.resolver.deref(node, at)
        if not isinstance(value, dict):
            raise AsyncAPIError(str(loc), f"must be {what}")
        return value, loc

    def text(self, obj: dict, key: str) -> str | None:
        value = obj.get(key)
        return value if isinstance(value, str) and value.strip() else None

    # what a file a `$ref` names holds is not checked against the official schema: its shape is checked here
    @staticmethod
    def mapping(obj: dict, key: str, loc: Loc) -> dict:
        value = obj.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise AsyncAPIError(str(loc / key), "must be an object")
        return value

    @staticmethod
    def string(obj: dict, key: str, loc: Loc) -> str:
        value = obj.get(key)
        if not isinstance(value, str):
            raise AsyncAPIError(str(loc / key), "is required, a string")
        return value

    # servers ------------------------------------------------------------------------------------------------
    def substitute(self, text: str, variables: dict, at: Loc) -> str:
        def value(match):
            name = match.group(1)
            if name not in variables:
                return match.group(0)
            var, _ = self.deref(variables[name], at / "variables" / name)
            if isinstance(var.get("default"), str):
                return var["default"]
            enum = var.get("enum")
            return enum[0] if isinstance(enum, list) and enum and isinstance(enum[0], str) else match.group(0)

        return VARIABLE.sub(value, text)

    def bindings(self, node, at: Loc, kept=None) -> dict:
        """A bindings object (protocol -> binding, references inlined), with `kept`: the bindings an export wrote in
        `x-xregistry-bindings` (of `obj`), which its version's schema would refuse where AsyncAPI puts them."""
        out = {}
        if isinstance(kept, dict):
            out.update({k: v for k, v in kept.items() if isinstance(k, str) and isinstance(v, dict)})
        if node is None:
            return out
        obj, loc = self.deref(node, at, "a bindings object")
        for protocol, binding in obj.items():
            if protocol.startswith("x-"):
                continue
            value, vloc = self.resolver.deref(binding, loc / protocol)
            if isinstance(value, dict):
                # kept as written with what its `$ref`s name (a Kafka key's Avro schema in a file): inlined
                out[protocol] = bundle_json_schema(self.resolver, value, vloc)
        return out

    def servers(self) -> dict[str, Server]:
        out = {}
        for key, node in (self.root.get("servers") or {}).items():
            obj, loc = self.deref(node, self.at / "servers" / key, "a Server Object")
            variables = self.mapping(obj, "variables", loc)
            if self.v3:
                host = self.substitute(self.string(obj, "host", loc), variables, loc)
                pathname = self.substitute(
                    obj["pathname"] if isinstance(obj.get("pathname"), str) else "", variables, loc
                )
            else:
                url = self.substitute(self.string(obj, "url", loc), variables, loc)
                if "://" in url:
                    parts = urlsplit(url)
                    host, pathname = parts.netloc, parts.path
                else:
                    host, slash, rest = url.partition("/")
                    pathname = slash + rest if rest else ""
            out[key] = Server(
                key=key,
                host=host,
                pathname=pathname,
                protocol=self.string(obj, "protocol", loc),
                protocol_version=self.text(obj, "protocolVersion"),
                description=self.text(obj, "description") or self.text(obj, "summary") or self.text(obj, "title"),
                bindings=self.bindings(obj.get("bindings"), loc / "bindings"),
                loc=loc,
                xregistry_id=obj.get(XREG + "endpoint") if isinstance(obj.get(XREG + "endpoint"), str) else None,
                xregistry_attributes=obj.get(XREG + "attributes")
                if isinstance(obj.get(XREG + "attributes"), dict)
                else None,
            )
        return out

    # messages -----------------------------------------------------------------------------------------------
    def _parts(self, obj: dict, loc: Loc) -> dict:
        """A message or trait with its headers, correlation id and bindings references followed, so that traits
        merge into values, not into `$ref`s."""
        out = dict(obj)
        for key in ("headers", "correlationId", "bindings"):
            if isinstance(out.get(key), dict) and "$ref" in out[key]:
                out[key], _ = self.resolver.deref(out[key], loc / key)
        return out

    def apply_traits(self, obj: dict, loc: Loc) -> tuple[dict, bool]:
        """The object with its traits merged in, and whether one of them is a CloudEvents trait."""
        traits = obj.get("traits") or []
        if not isinstance(traits, list):
            raise AsyncAPIError(str(loc / "traits"), "must be an array")
        own = self._parts({k: v for k, v in obj.items() if k != "traits"}, loc)
        merged_traits, cloudevents = {}, False
        for index, trait in enumerate(traits if isinstance(traits, list) else []):
            node = trait[0] if isinstance(trait, list) and trait else trait
            ref = node.get("$ref") if isinstance(node, dict) else None
            value, tloc = self.deref(node, loc / "traits" / index, "a trait")
            named = " ".join(
                str(s) for s in (ref, tloc.path[-1] if tloc.path else "", value.get("name"), value.get("title")) if s
            )
            if "cloudevent" in named.lower():
                cloudevents = True
            value = self._parts(value, tloc)
            if self.v3:
                merged_traits = merge(merged_traits, value)
            else:
                own = merge(own, value)
        return (merge(merged_traits, own) if self.v3 else own), cloudevents

    def docs(self, obj: dict, loc: Loc) -> str | None:
        """The URL of an object's `externalDocs`: its documentation."""
        if "externalDocs" not in obj:
            return None
        value, _ = self.resolver.deref(obj["externalDocs"], loc / "externalDocs")
        url = value.get("url") if isinstance(value, dict) else None
        return url if isinstance(url, str) and url else None

    @staticmethod
    def labels(obj: dict) -> dict | None:
        value = obj.get(XREG + "labels")
        if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            return value
        return None

    def schema_name(self, node, at: Loc) -> str | None:
        """The name a payload's schema has in the document: its component or file, when it is a reference."""
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return None
        target = self.resolver.target(node["$ref"], at)
        if target.path:
            return str(target.path[-1])
        stem = target.file.rstrip("/").rsplit("/", 1)[-1]
        return stem.split(".", 1)[0] or None

    def payload(self, message: dict, loc: Loc) -> Payload | None:
        if "payload" not in message:
            return None
        node, at = message["payload"], loc / "payload"
        if not self.v3:
            fmt = message.get("schemaFormat")
            return Payload(fmt, node, at, self.schema_name(node, at))
        value, vloc = self.resolver.deref(node, at)
        if (
            isinstance(value, dict)
            and "schema" in value
            and set(value) - {"schema", "schemaFormat"} <= {k for k in value if k.startswith("x-")}
        ):  # a Multi Format Schema Object
            xid, xfmt, xref, xmeta = (
                value.get(XREG + k) for k in ("schema", "schemaformat", "reference", "schemametadata")
            )
            inner = value["schema"]
            name = self.schema_name(inner, vloc / "schema") or self.schema_name(node, at)
            return Payload(
                value.get("schemaFormat"),
                inner,
                vloc / "schema",
                name,
                xid if isinstance(xid, str) else None,
                xfmt if isinstance(xfmt, str) else None,
                xref if isinstance(xref, str) else None,
                xmeta if isinstance(xmeta, dict) else None,
            )
        return Payload(None, node, at, self.schema_name(node, at))

    def message(self, node, at: Loc, key: str, default_content_type: str | None) -> Message:
        obj, loc = self.deref(node, at, "a Message Object")
        obj, cloudevents = self.apply_traits(obj, loc)
        headers = obj.get("headers")
        if self.v3 and isinstance(headers, dict) and "schema" in headers and "type" not in headers:
            headers = headers["schema"]  # a Multi Format Schema Object: the headers are JSON-like either way
        correlation = obj.get("correlationId")
        if isinstance(correlation, dict):
            correlation = {
                k: correlation[k] for k in ("location", "description") if isinstance(correlation.get(k), str)
            }
        xid, xprotocol, xoptions = (obj.get(XREG + k) for k in ("message", "protocol", "protocoloptions"))
        return Message(
            key=key,
            loc=loc,
            name=self.text(obj, "name") or (self.text(obj, "messageId") if not self.v3 else None),
            title=self.text(obj, "title"),
            summary=self.text(obj, "summary"),
            description=self.text(obj, "description"),
            content_type=self.text(obj, "contentType") or default_content_type,
            headers=headers,
            headers_loc=loc / "headers" if headers is not None else None,
            correlation_id=correlation or None,
            payload=self.payload(obj, loc),
            bindings=self.bindings(obj.get("bindings"), loc / "bindings", obj.get(XREG + "bindings")),
            cloudevents_trait=cloudevents,
            xregistry_id=xid if isinstance(xid, str) else None,
            xregistry_protocol=xprotocol if isinstance(xprotocol, str) else None,
            xregistry_options=xoptions if isinstance(xoptions, dict) else None,
            documentation=self.docs(obj, loc),
            labels=self.labels(obj),
        )

    # channels and operations --------------------------------------------------------------------------------
    def server_keys(self, refs, at: Loc) -> list[str]:
        if not isinstance(refs, list):
            raise AsyncAPIError(str(at), "must be an array")
        keys = []
        for index, ref in enumerate(refs or []):
            if isinstance(ref, str):  # 2.6: server names
                keys.append(ref)
                continue
            target = self.resolver.target(ref.get("$ref") if isinstance(ref, dict) else None, at / index)
            if target.file != self.at.file or len(target.path) != 2 or target.path[0] != "servers":
                raise AsyncAPIError(str(at / index), "a channel's server must be a $ref to #/servers/NAME")
            keys.append(target.path[1])
        return keys

    def channels_v3(self, doc: Document) -> None:
        for ckey, node in (self.root.get("channels") or {}).items():
            obj, loc = self.deref(node, self.at / "channels" / ckey, "a Channel Object")
            messages = {}
            for mkey, mnode in self.mapping(obj, "messages", loc).items():
                messages[mkey] = self.message(mnode, loc / "messages" / mkey, mkey, doc.default_content_type)
            xid = obj.get(XREG + "messagegroup")
            doc.channels[ckey] = Channel(
                key=ckey,
                address=obj.get("address") if isinstance(obj.get("address"), str) else None,
                title=self.text(obj, "title"),
                summary=self.text(obj, "summary"),
                description=self.text(obj, "description"),
                messages=messages,
                servers=self.server_keys(obj["servers"], loc / "servers") if obj.get("servers") is not None else None,
                bindings=self.bindings(obj.get("bindings"), loc / "bindings", obj.get(XREG + "bindings")),
                loc=loc,
                xregistry_id=xid if isinstance(xid, str) else None,
                documentation=self.docs(obj, loc),
                labels=self.labels(obj),
            )
        for okey, node in (self.root.get("operations") or {}).items():
            obj, loc = self.deref(node, self.at / "operations" / okey, "an Operation Object")
            obj, _ = self.apply_traits(obj, loc)
            if obj.get("action") not in ("send", "receive"):
                raise AsyncAPIError(str(loc / "action"), "must be send or receive")
            channel = self.resolver.target(self.mapping(obj, "channel", loc).get("$ref"), loc / "channel")
            if channel.file != self.at.file or len(channel.path) != 2 or channel.path[0] != "channels":
                raise AsyncAPIError(str(loc / "channel"), "an operation's channel must be a $ref to #/channels/NAME")
            ckey = channel.path[1]
            if ckey not in doc.channels:
                raise AsyncAPIError(str(loc / "channel"), f"there is no channel {ckey!r}")
            listed = obj.get("messages")
            if listed is not None and not isinstance(listed, list):
                raise AsyncAPIError(str(loc / "messages"), "must be an array")
            keys = [
                self.operation_message(doc.channels[ckey], ref, loc / "messages" / index)
                for index, ref in enumerate(listed or [])
            ]
            doc.operations[okey] = Operation(
                key=okey,
                action=obj["action"],
                channel=ckey,
                # without `messages` the operation takes every message of its channel; `[]` none
                messages=keys if listed is not None else list(doc.channels[ckey].messages),
                bindings=self.bindings(obj.get("bindings"), loc / "bindings"),
                loc=loc,
            )

    def operation_message(self, channel: Channel, ref, at: Loc) -> str:
        """The key in `channel` of a message an operation names (`#/channels/C/messages/M`)."""
        target = self.resolver.target(ref.get("$ref") if isinstance(ref, dict) else None, at)
        if (
            target.file == self.at.file
            and len(target.path) == 4
            and target.path[:2] == ("channels", channel.key)
            and target.path[2] == "messages"
            and target.path[3] in channel.messages
        ):
            return target.path[3]
        _, loc = self.resolver.deref(ref, at)
        for key, message in channel.messages.items():
            if message.loc == loc:
                return key
        raise AsyncAPIError(str(at), f"the message is not one of the channel {channel.key!r}'s messages")

    def channels_v2(self, doc: Document) -> None:
        for name, node in (self.root.get("channels") or {}).items():
            obj, loc = self.deref(node, self.at / "channels" / name, "a Channel Item Object")
            messages: dict[str, Message] = {}
            for verb, action in (("subscribe", "send"), ("publish", "receive")):
                if verb not in obj:
                    continue
                op, oloc = self.deref(obj[verb], loc / verb, "an Operation Object")
                op, _ = self.apply_traits(op, oloc)
                keys = []
                if "message" in op:
                    mobj, mloc = self.deref(op["message"], oloc / "message", "a Message Object")
                    candidates = (
                        [(m, mloc / "oneOf" / i) for i, m in enumerate(mobj["oneOf"])]
                        if isinstance(mobj.get("oneOf"), list)
                        else [(op["message"], oloc / "message")]
                    )
                    for index, (mnode, at) in enumerate(candidates):
                        keys.append(self.message_v2(messages, mnode, at, verb, index, doc))
                okey = op.get("operationId") if isinstance(op.get("operationId"), str) else f"{name}.{verb}"
                doc.operations[okey] = Operation(
                    key=okey,
                    action=action,
                    channel=name,
                    messages=keys,
                    bindings=self.bindings(op.get("bindings"), oloc / "bindings"),
                    loc=oloc,
                )
            doc.channels[name] = Channel(
                key=name,
                address=name,
                title=None,
                summary=None,
                description=self.text(obj, "description"),
                messages=messages,
                servers=self.server_keys(obj["servers"], loc / "servers") if obj.get("servers") is not None else None,
                bindings=self.bindings(obj.get("bindings"), loc / "bindings"),
                loc=loc,
                xregistry_id=obj.get(XREG + "messagegroup")
                if isinstance(obj.get(XREG + "messagegroup"), str)
                else None,
            )

    def message_v2(self, messages: dict, node, at: Loc, verb: str, index: int, doc: Document) -> str:
        """A 2.6 message into the channel's messages (the same message met twice is one), returning its key:
        its `messageId`, else its component's name, else its `name`, else the operation's verb."""
        obj, loc = self.deref(node, at, "a Message Object")
        for key, message in messages.items():
            if message.loc == loc:
                return key
        component = loc.path[2] if loc.file == self.at.file and loc.path[:2] == ("components", "messages") else None
        key = self.text(obj, "messageId") or component or self.text(obj, "name") or f"{verb}Message{index or ''}"
        base, n = key, 1
        while key in messages:
            n += 1
            key = f"{base}{n}"
        messages[key] = self.message(node, at, key, doc.default_content_type)
        return key

    def unused_messages(self, doc: Document) -> Channel | None:
        """The messages of `components.messages` that no channel holds (the specification: a component has no
        effect until something refers to it), as a channel of their own: a registry keeps every message it is
        given. Keyed as in a channel (2.6: `messageId`, else the component's name)."""
        components = self.root.get("components")
        nodes = components.get("messages") if isinstance(components, dict) else None
        if not isinstance(nodes, dict):
            return None
        used = {message.loc for channel in doc.channels.values() for message in channel.messages.values()}
        messages: dict[str, Message] = {}
        for key, node in nodes.items():
            at = self.at / "components" / "messages" / key
            obj, loc = self.deref(node, at, "a Message Object")
            if loc in used:
                continue
            mkey = (None if self.v3 else self.text(obj, "messageId")) or key
            if mkey not in messages:
                messages[mkey] = self.message(node, at, mkey, doc.default_content_type)
        if not messages:
            return None
        return Channel(
            key="#/components/messages",
            address=None,
            title=None,
            summary=None,
            description="The messages of the AsyncAPI document's components that no channel holds",
            messages=messages,
            servers=[],
            bindings={},
            loc=self.at / "components" / "messages",
            name="components",
        )

    def read(self) -> Document:
        info = self.root["info"]
        doc = Document(
            name=self.at.file,
            version=self.version,
            title=info["title"],
            info_version=info["version"],
            description=self.text(info, "description"),
            default_content_type=self.text(self.root, "defaultContentType"),
        )
        groups = self.root.get(XREG + "schemagroups")
        if isinstance(groups, dict):
            doc.schema_groups = {k: v for k, v in groups.items() if isinstance(k, str) and isinstance(v, dict)}
        doc.servers = self.servers()
        if self.v3:
            self.channels_v3(doc)
        else:
            self.channels_v2(doc)
        for channel in doc.channels.values():
            for key in channel.servers or []:
                if key not in doc.servers:
                    raise AsyncAPIError(str(channel.loc / "servers"), f"there is no server {key!r}")
        doc.unused = self.unused_messages(doc)
        return doc


def read_document(resolver: Resolver) -> Document:
    return Reader(resolver).read()
