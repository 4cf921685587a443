"""Checks before shipping (CONTRACT section 12, issue 15 item 1): message data against Protobuf and XSD schemas.

Protobuf data is the base64 binary encoding of the message the definition's schemaurl names after `:`, decoded
by hand against the stored .proto (the protobuf runtime is not installed); the bytes here are hand-encoded too.
XSD data is XML text, validated with xmlschema (no file or network access, entities defused).
"""

from __future__ import annotations

import base64
import time

import pytest

from tests.catalog.test_message_validation import error_paths, post, verdict
from tests.helpers import cache_use, make_definition_group, make_group, post_definition, post_schema, snapshot

PROTO = b"""syntax = "proto3";
package com.example;

message Order {
  string id = 1;
  repeated Item items = 2;
  Status status = 3;
  map<string, int32> counts = 4;
  repeated int32 codes = 5;

  message Item {
    string sku = 1;
    int32 qty = 2;
  }
  enum Status {
    UNKNOWN = 0;
    PLACED = 1;
    SHIPPED = 2;
  }
}

message Node {
  string label = 1;
  Node child = 2;
}
"""

PROTO2 = b"""syntax = "proto2";
message Reading {
  required string sensor = 1;
  optional Unit unit = 2;
  enum Unit { CELSIUS = 1; KELVIN = 2; }
}
"""

XSD = b"""<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="order">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="id" type="xs:string"/>
        <xs:element name="item" maxOccurs="unbounded">
          <xs:complexType>
            <xs:sequence>
              <xs:element name="sku" type="xs:string"/>
              <xs:element name="qty" type="xs:positiveInteger"/>
            </xs:sequence>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""

VALID_XML = "<order><id>o-1</id><item><sku>a</sku><qty>2</qty></item><item><sku>b</sku><qty>1</qty></item></order>"


# --- hand encoding of the Protobuf wire format ------------------------------------------------------------------


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def vfield(number: int, value: int) -> bytes:
    return tag(number, 0) + varint(value)


def lfield(number: int, payload: bytes | str) -> bytes:
    payload = payload.encode() if isinstance(payload, str) else payload
    return tag(number, 2) + varint(len(payload)) + payload


def item(sku: str, qty: int) -> bytes:
    return lfield(1, sku) + vfield(2, qty)


def order(*extra: bytes, items=(("a", 2), ("b", 1))) -> bytes:
    body = lfield(1, "o-1") + b"".join(lfield(2, item(*i)) for i in items) + vfield(3, 1)
    body += lfield(4, lfield(1, "x") + vfield(2, 3))  # map entry counts["x"] = 3
    body += lfield(5, varint(1) + varint(2) + varint(300))  # packed repeated int32
    return body + b"".join(extra)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def event(type_: str, **members) -> dict:
    return {"specversion": "1.0", "type": type_, "id": "1", "source": "/s", **members}


@pytest.fixture
def protos(su):
    make_group(su, "protos")
    post_schema(su, "protos", "order", PROTO, "text/plain", fmt="Protobuf/3")
    post_schema(su, "protos", "reading", PROTO2, "text/plain", fmt="Protobuf/2")
    make_definition_group(su, "pb")
    urls = {
        "order": "#/schemaGroups/protos/schemas/order:Order",
        "versioned": "/schemaGroups/protos/schemas/order/versions/1:com.example.Order",
        "node": "#/schemaGroups/protos/schemas/order:Node",
        "nope": "#/schemaGroups/protos/schemas/order:Nope",
        "unnamed": "#/schemaGroups/protos/schemas/order",
        "reading": "#/schemaGroups/protos/schemas/reading",
    }
    for did, url in urls.items():
        doc = {
            "format": "CloudEvents/1.0",
            "metadata": {"attributes": {"type": {"value": f"pb.{did}"}}},
            "schemaformat": "Protobuf/3",
            "schemaurl": url,
        }
        post_definition(su, "pb", did, doc)


def check(client, did: str, message: dict, content_type="application/cloudevents+json", group="pb") -> dict:
    path = f"/definitionGroups/{group}/definitions/{did}"
    return verdict(post(client, f"{path}/validate", message, content_type), path)


# --- Protobuf ---------------------------------------------------------------------------------------------------


def test_protobuf_valid_message_and_nothing_written(anon, protos):
    before, (looked_up, _entries) = snapshot(), cache_use("protobuf_data_schemas")
    for did in ("order", "versioned"):
        body = check(anon, did, event(f"pb.{did}", data_base64=b64(order())))
        assert body == {"valid": True, "errors": [], "definition": f"/definitionGroups/pb/definitions/{did}"}
    # binary mode: the envelope's body is the base64 text
    binary = {
        "headers": {
            "ce-specversion": "1.0",
            "ce-type": "pb.order",
            "ce-id": "1",
            "ce-source": "/s",
            "content-type": "application/protobuf",
        },
        "body": b64(order()),
    }
    assert check(anon, "order", binary, "application/json")["valid"] is True
    # the empty message is valid proto3
    assert check(anon, "order", event("pb.order", data_base64=""))["valid"] is True
    assert snapshot() == before
    now, entries = cache_use("protobuf_data_schemas")  # the parsed schema of each check, kept by digest
    assert now - looked_up >= 4 and entries >= 1


def test_protobuf_wrong_wire_type_is_named(anon, protos):
    wrong = order(items=(("a", 2),)) + lfield(2, vfield(1, 5))  # items[1].sku as a varint
    body = check(anon, "order", event("pb.order", data_base64=b64(wrong)))
    assert error_paths(body) == ["data.items[1].sku"], body
    assert "wire type 0" in body["errors"][0]["reason"] and "string" in body["errors"][0]["reason"]
    body = check(anon, "order", event("pb.order", data_base64=b64(order(lfield(3, "placed")))))
    assert error_paths(body) == ["data.status"], body


def test_protobuf_unknown_field_is_named(anon, protos):
    body = check(anon, "order", event("pb.order", data_base64=b64(order(vfield(7, 1)))))
    assert error_paths(body) == ["data (field 7)"], body
    assert "com.example.Order" in body["errors"][0]["reason"]
    nested = lfield(1, "o-1") + lfield(2, item("a", 1) + lfield(9, "?"))
    body = check(anon, "order", event("pb.order", data_base64=b64(nested)))
    assert error_paths(body) == ["data.items[0] (field 9)"], body


def test_protobuf_bad_data(anon, protos):
    assert error_paths(check(anon, "order", event("pb.order", data_base64="not base64!"))) == ["data_base64"]
    assert error_paths(check(anon, "order", event("pb.order", data={"id": "o-1"}))) == ["data"]
    truncated = order()[:-2]
    body = check(anon, "order", event("pb.order", data_base64=b64(truncated)))
    assert body["valid"] is False and "truncated" in body["errors"][0]["reason"], body
    assert error_paths(check(anon, "order", event("pb.order", data_base64=b64(b"\x0f\x01")))) == ["data (field 1)"]
    body = check(anon, "nope", event("pb.nope", data_base64=b64(order())))
    assert error_paths(body) == ["data"] and "Nope" in body["errors"][0]["reason"], body
    body = check(anon, "unnamed", event("pb.unnamed", data_base64=b64(order())))
    assert error_paths(body) == ["data"] and "names none" in body["errors"][0]["reason"], body


def test_protobuf_recursive_message_is_bounded(anon, protos):
    data = lfield(1, "leaf")
    for _ in range(20):
        data = lfield(1, "n") + lfield(2, data)
    assert check(anon, "node", event("pb.node", data_base64=b64(data)))["valid"] is True
    for _ in range(200):
        data = lfield(2, data)
    started = time.monotonic()
    body = check(anon, "node", event("pb.node", data_base64=b64(data)))
    assert time.monotonic() - started < 5
    assert body["valid"] is False and "nested more than" in body["errors"][0]["reason"], body


def test_protobuf2_required_and_closed_enum(anon, protos):
    # the schema has one top-level message: the schemaurl need not name it
    assert check(anon, "reading", event("pb.reading", data_base64=b64(lfield(1, "t1") + vfield(2, 2))))["valid"]
    body = check(anon, "reading", event("pb.reading", data_base64=b64(vfield(2, 1))))
    assert error_paths(body) == ["data.sensor"], body
    body = check(anon, "reading", event("pb.reading", data_base64=b64(lfield(1, "t1") + vfield(2, 9))))
    assert error_paths(body) == ["data.unit"], body


# --- XSD --------------------------------------------------------------------------------------------------------


@pytest.fixture
def xsd(su):
    make_group(su, "xml")
    post_schema(su, "xml", "order", XSD, "application/xml", fmt="XSD/1.0")
    make_definition_group(su, "x")
    doc = {
        "format": "CloudEvents/1.0",
        "metadata": {"attributes": {"type": {"value": "x.order"}}},
        "schemaformat": "XSD/1.0",
        "schemaurl": "#/schemaGroups/xml/schemas/order",
    }
    post_definition(su, "x", "order", doc)


def test_xsd_valid_and_nothing_written(anon, xsd):
    before, (looked_up, _entries) = snapshot(), cache_use("xml_schemas")
    assert (
        check(anon, "order", event("x.order", datacontenttype="application/xml", data=VALID_XML), group="x")["valid"]
        is True
    )
    binary = {
        "headers": {
            "ce-specversion": "1.0",
            "ce-type": "x.order",
            "ce-id": "1",
            "ce-source": "/s",
            "content-type": "application/xml",
        },
        "body": VALID_XML,
    }
    assert check(anon, "order", binary, "application/json", group="x")["valid"] is True
    assert check(anon, "order", event("x.order", data_base64=b64(VALID_XML.encode())), group="x")["valid"] is True
    assert snapshot() == before
    now, entries = cache_use("xml_schemas")  # the compiled XSD of each check, kept by digest
    assert now - looked_up >= 3 and entries >= 1


def test_xsd_errors_name_the_element(anon, xsd):
    wrong_type = VALID_XML.replace("<qty>1</qty>", "<qty>many</qty>")
    body = check(anon, "order", event("x.order", data=wrong_type), group="x")
    assert error_paths(body) == ["data/order/item[2]/qty"], body
    assert "'many'" in body["errors"][0]["reason"] and "positiveInteger" in body["errors"][0]["reason"]
    missing = VALID_XML.replace("<id>o-1</id>", "")
    body = check(anon, "order", event("x.order", data=missing), group="x")
    assert error_paths(body) == ["data/order"], body
    assert "id" in body["errors"][0]["reason"]


def test_xsd_bad_data(anon, xsd):
    assert error_paths(check(anon, "order", event("x.order", data="<order><id>"), group="x")) == ["data"]
    assert error_paths(check(anon, "order", event("x.order", data={"id": 1}), group="x")) == ["data"]
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE order [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
        "<order><id>&b;</id></order>"
    )
    body = check(anon, "order", event("x.order", data=bomb), group="x")
    assert error_paths(body) == ["data"], body
    external = '<?xml version="1.0"?><!DOCTYPE order [<!ENTITY e SYSTEM "file:///etc/passwd">]><order>&e;</order>'
    assert error_paths(check(anon, "order", event("x.order", data=external), group="x")) == ["data"]


def test_xsd_large_data_is_an_unchecked_error(anon, xsd, monkeypatch):
    """XML over the size checked is never a pass (issue 24): an error marked unchecked says why"""
    from catalog.validators import message_xml

    monkeypatch.setattr(message_xml, "MAX_XML_BYTES", 50)
    body = check(anon, "order", event("x.order", data=VALID_XML.replace("<qty>1</qty>", "<qty>x</qty>")), group="x")
    assert body["valid"] is False and body["errors"][0]["unchecked"] is True, body
    assert "more than the 50 checked" in body["errors"][0]["reason"], body
