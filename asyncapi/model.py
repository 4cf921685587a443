"""One shape for AsyncAPI 2.6 and 3.x documents, as the importer reads them (`reading.py` fills it).

3.0 words are used for both: channels hold messages, operations `send` or `receive` messages of a channel.
A 2.6 `subscribe` operation is a `send` (the application sends), a `publish` a `receive`, as the AsyncAPI 2-to-3
converter reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .sources import Loc


@dataclass
class Server:
    key: str
    host: str  # server variables substituted by their default (or first enum value)
    pathname: str
    protocol: str
    protocol_version: str | None
    description: str | None
    bindings: dict  # protocol name -> binding object (references followed)
    loc: Loc
    xregistry_id: str | None = None  # `x-xregistry-endpoint`, as this server's exports write it
    xregistry_attributes: dict | None = None  # `x-xregistry-attributes`: the endpoint's, as an export carries them


@dataclass
class Payload:
    schema_format: str | None  # the AsyncAPI schemaFormat (None: the AsyncAPI schema of the document's version)
    schema: object  # the schema node, references not yet followed
    loc: Loc  # where the schema node is
    name: str | None  # a name for the registry's schema: the component or file it comes from, if any
    xregistry_id: str | None = None  # `x-xregistry-schema`: the schema's path in the registry it was exported from
    xregistry_format: str | None = None  # `x-xregistry-schemaformat`: the registry format as written there
    xregistry_reference: str | None = None  # `x-xregistry-reference`: the message's reference as written there
    xregistry_metadata: dict | None = None  # `x-xregistry-schemametadata`: the version's name, description, ...


@dataclass
class Message:
    key: str  # the message's key in its channel
    loc: Loc  # the message object (after references)
    name: str | None
    title: str | None
    summary: str | None
    description: str | None
    content_type: str | None
    headers: object  # a schema node (references not yet followed) or None
    headers_loc: Loc | None
    correlation_id: dict | None  # {location, description}
    payload: Payload | None
    bindings: dict
    cloudevents_trait: bool = False  # a trait named for CloudEvents was applied
    xregistry_id: str | None = None  # `x-xregistry-message`
    xregistry_protocol: str | None = None  # `x-xregistry-protocol`: the message's registry protocol, as written
    xregistry_options: dict | None = None  # `x-xregistry-protocoloptions`: options AsyncAPI has no place for
    documentation: str | None = None  # externalDocs.url
    labels: dict | None = None  # `x-xregistry-labels`


@dataclass
class Channel:
    key: str
    address: str | None
    title: str | None
    summary: str | None
    description: str | None
    messages: dict[str, Message]
    servers: list[str] | None  # server keys; None: every server of the document
    bindings: dict
    loc: Loc
    xregistry_id: str | None = None  # `x-xregistry-messagegroup`
    documentation: str | None = None  # externalDocs.url
    labels: dict | None = None  # `x-xregistry-labels`
    name: str | None = None  # what its group's id is made of, when not its key


@dataclass
class Operation:
    key: str
    action: str  # "send" or "receive"
    channel: str  # channel key
    messages: list[str]  # message keys of the channel
    bindings: dict
    loc: Loc


@dataclass
class Document:
    name: str  # the source's name (file name), for errors
    version: str  # "2.6.0", "3.0.0", "3.1.0"
    title: str
    info_version: str
    description: str | None
    default_content_type: str | None
    servers: dict[str, Server] = field(default_factory=dict)
    channels: dict[str, Channel] = field(default_factory=dict)
    operations: dict[str, Operation] = field(default_factory=dict)
    schema_groups: dict[str, dict] = field(default_factory=dict)  # `x-xregistry-schemagroups`: their attributes
    # the component messages no channel holds, as a channel of no address on no server (None: there are none)
    unused: Channel | None = None
