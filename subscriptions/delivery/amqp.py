"""AMQP 1.0 delivery with python-qpid-proton (BlockingConnection), in the CloudEvents AMQP protocol binding.

Sink `amqp://[user:password@]host:port[/address]` or `amqps://...`; the target address is
`protocolsettings.address` when given, else the sink's path without its leading `/` (`amqp://h:5672/orders` ->
`orders`; RabbitMQ 3.x's `/queue/orders` form is `amqp://h:5672//queue/orders` or, clearer, the `address`
setting). `linkname` names the sender link, `linkproperties` are sent as the link's properties,
`sendersettlementmode` `unsettled` (the default: the broker's disposition is awaited, at least once) or
`settled` (pre-settled, at most once: nothing is awaited).

Modes (subscription `config.mode`): `structured` (default), the JSON event as the body with content type
`application/cloudevents+json`; `binary`, every attribute as an application property `cloudEvents:NAME` and the
event's data (none for registry change events) as the body. A refused link, session or connection, a rejected
or released message, a timeout: a failed outcome that carries the broker's condition and description.

Connections and sender links are kept per worker thread (proton's BlockingConnection is not thread-safe) and
reused for the next event to the same target: opening them cost more CPU than sending the event. A kept link that
fails is dropped and the event is sent once more on a new one, so a broker restart costs no attempt.
"""

from __future__ import annotations

import base64
import json
import threading
from collections import OrderedDict
from urllib.parse import unquote

from django.conf import settings
from proton import ConnectionException, Delivery, Endpoint, Message, ProtonException, Timeout, symbol
from proton.reactor import AtLeastOnce, AtMostOnce, LinkOption
from proton.utils import BlockingConnection, LinkDetached

from ..event_formats import DEFAULT_FORMAT
from ..validators.sink_urls import Sink, SinkError
from ..validators.sinks import deliverable
from .events import event_format, structured
from .outcome import Outcome

CONTENT_TYPE = "application/cloudevents+json"
PREFIX = "cloudEvents:"
MAX_LINKS = 16  # kept (connection, sender) pairs per worker thread, the ones used last
_kept = threading.local()


def target_address(sink: Sink, options: dict) -> str:
    """The AMQP target: `protocolsettings.address`, else the sink's path minus its first `/`."""
    if options.get("address"):
        return options["address"]
    return unquote(sink.path[1:] if sink.path.startswith("/") else sink.path)


def message_for(event, mode: str, eventformat: str = DEFAULT_FORMAT):
    """The proton Message of `event` in `mode` (structured or binary) and the subscription's event format."""
    _headers, body = structured(event, eventformat)
    if mode == "binary":
        attributes = json.loads(body)
        data = attributes.pop("data", None)
        data_base64 = attributes.pop("data_base64", None)
        properties = {
            PREFIX + name: value if isinstance(value, (str, int, bool)) else json.dumps(value)
            for name, value in attributes.items()
            if value is not None
        }
        payload = None
        if data_base64 is not None:
            payload = base64.b64decode(data_base64)
        elif data is not None:
            payload = data.encode() if isinstance(data, str) else json.dumps(data).encode()
        return Message(
            body=payload,
            properties=properties,
            id=attributes.get("id"),
            content_type=attributes.get("datacontenttype"),
            subject=attributes.get("subject"),
        )
    return Message(body=body, content_type=CONTENT_TYPE, id=json.loads(body).get("id"))


def _describe(condition) -> str:
    if condition is None:
        return "no reason given"
    text = str(condition.name)
    if condition.description:
        text += f": {condition.description}"
    return text


class _LinkProperties(LinkOption):
    """A proton LinkOption: the sender link's properties (symbol keys)."""

    def __init__(self, properties: dict):
        self.properties = properties

    def apply(self, link) -> None:
        link.properties = {symbol(key): value for key, value in self.properties.items()}

    def test(self, link) -> bool:
        return link.is_sender


_connection_classes: list = []


def _connection_class():
    """BlockingConnection that also fails fast when the broker ends the session (RabbitMQ 3.x answers a
    refused attach with `end` and an error, not `detach`), carrying the broker's reason. Built once."""
    if _connection_classes:
        return _connection_classes[0]

    class Connection(BlockingConnection):
        def on_session_remote_close(self, event) -> None:
            if event.session.state & Endpoint.LOCAL_ACTIVE:
                event.session.close()
                if not self.closing:
                    raise BrokerRefused(f"the broker ended the session: {_describe(event.session.remote_condition)}")

    _connection_classes.append(Connection)
    return Connection


def _close(connection) -> None:
    try:
        connection.close()
    except Exception:  # noqa: BLE001  the broker may already have closed it; nothing left to release
        pass


def _link(key: tuple, url: str, address: str, name, link_options, credentials: dict, timeout: float):
    """This thread's kept (connection, sender) for `key`, opened when there is none."""
    links = getattr(_kept, "links", None)
    if links is None:
        links = _kept.links = OrderedDict()
    if key in links:
        links.move_to_end(key)
        return links[key]
    connection = _connection_class()(url, timeout=timeout, reconnect=False, **credentials)
    try:
        sender = connection.create_sender(address, name=name, options=link_options)
    except BaseException:
        _close(connection)
        raise
    links[key] = (connection, sender)
    while len(links) > MAX_LINKS:
        _close(links.popitem(last=False)[1][0])
    return links[key]


def _drop(key: tuple) -> None:
    links = getattr(_kept, "links", None)
    if links and key in links:
        _close(links.pop(key)[0])


class BrokerRefused(Exception):
    """The broker refused a session, link or message; the text carries its condition and description."""


def send(subscription, event) -> Outcome:
    try:
        sink = deliverable(subscription)
    except SinkError as exc:
        return Outcome(ok=False, error=f"refused: {exc}")
    options = subscription.protocolsettings or {}
    mode = (subscription.config or {}).get("mode") or "structured"
    url = sink.origin()  # the parsed host and port; credentials go to the client as options, not in the URL
    credentials = {}
    if sink.username is not None:
        credentials = {"user": sink.username, "password": sink.password or "", "allow_insecure_mechs": True}
    link_options: list[LinkOption] = [
        AtMostOnce() if options.get("sendersettlementmode") == "settled" else AtLeastOnce()
    ]
    if options.get("linkproperties"):
        link_options.append(_LinkProperties(options["linkproperties"]))
    timeout = settings.REGISTRY_DELIVERY_TIMEOUT
    address = target_address(sink, options)
    name = options.get("linkname") or None
    key = (
        url,
        credentials.get("user"),
        credentials.get("password"),
        address,
        name,
        options.get("sendersettlementmode"),
        json.dumps(options.get("linkproperties"), sort_keys=True),
    )
    message = message_for(event, mode, event_format(subscription))
    for kept_before in (True, False):
        try:
            reused = kept_before and key in (getattr(_kept, "links", None) or {})
            connection, sender = _link(key, url, address, name, link_options, credentials, timeout)
            delivery = sender.send(message, error_states=[])
            if options.get("sendersettlementmode") == "settled":  # nothing awaited: see it leave the kept link
                connection.wait(
                    lambda sender=sender, connection=connection: (
                        not sender.link.queued and not connection.conn.transport.pending()
                    ),
                    timeout=timeout,
                    msg="sending the message",
                )
        except (BrokerRefused, LinkDetached, Timeout, ConnectionException, ProtonException, OSError, ValueError) as exc:
            _drop(key)
            if reused:
                continue  # a kept link went stale (a broker restart): once more on a new one
            if isinstance(exc, BrokerRefused):
                return Outcome(ok=False, error=str(exc))
            if isinstance(exc, LinkDetached):
                return Outcome(ok=False, error=f"the broker refused the link: {exc}")
            return Outcome(ok=False, error=f"{type(exc).__name__}: {exc}")
        if delivery.remote_state in (Delivery.REJECTED, Delivery.RELEASED, Delivery.MODIFIED):
            state = {Delivery.REJECTED: "rejected", Delivery.RELEASED: "released", Delivery.MODIFIED: "modified"}[
                delivery.remote_state
            ]
            condition = delivery.remote.condition
            _drop(key)
            return Outcome(
                ok=False, error=f"the broker {state} the message" + (f": {_describe(condition)}" if condition else "")
            )
        return Outcome(ok=True)
    return Outcome(ok=False, error="the AMQP link could not be opened")
