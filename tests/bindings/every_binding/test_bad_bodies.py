"""Bad bodies get the same answer from every binding: the kernel's one request reader (strict JSON, size limit,
media types), a 4xx problem in the binding's words, and nothing written (issue 23 item 8, issue 24 item 5)."""

import pytest

from tests.helpers import snapshot

BAD_JSON = {
    "NaN": b'{"description": NaN}',
    "Infinity": b'{"description": Infinity}',
    "1e999": b'{"description": 1e999}',
    "duplicate key": b'{"description": "a", "description": "b"}',
    "lone surrogate in a value": b'{"description": "\\ud800"}',
    "lone surrogate in a key": b'{"\\udc00": "x"}',
    "NUL in a value": b'{"description": "a\\u0000b"}',
    "50,000 nested brackets": b'{"x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    "not UTF-8": b'{"description": "\xff"}',
    "truncated": b'{"description": ',
}


@pytest.mark.parametrize("body", BAD_JSON.values(), ids=BAD_JSON.keys())
def test_a_malformed_json_body_is_400_and_writes_nothing(su, any_binding, body):
    before = snapshot()
    response = any_binding.send(su, "PUT", any_binding.group("g1"), body)
    any_binding.assert_problem(response, 400, "malformed-json")
    assert snapshot() == before


def test_a_body_over_the_limit_is_413(su, any_binding, settings):
    settings.REGISTRY_MAX_BODY_BYTES = 1024
    before = snapshot()
    response = any_binding.send(su, "PUT", any_binding.group("g1"), {"description": "x" * 5000})
    any_binding.assert_problem(response, 413, "too-large")
    assert snapshot() == before


@pytest.mark.parametrize("body", [b"[]", b'"text"', b"1"], ids=["array", "string", "number"])
def test_a_body_that_is_not_an_object_is_400(su, any_binding, body):
    before = snapshot()
    response = any_binding.send(su, "PUT", any_binding.group("g1"), body)
    any_binding.assert_problem(response, 400, "bad-request")
    assert snapshot() == before


def test_a_declared_non_json_media_type_on_a_metadata_write_is_415(su, any_binding):
    before = snapshot()
    response = any_binding.send(su, "PUT", any_binding.group("g1"), b'{"description": "x"}', "text/csv")
    any_binding.assert_problem(response, 415, "unsupported-media-type")
    assert snapshot() == before


def test_a_chunked_body_the_server_cannot_read_is_411_not_an_empty_body(su, any_binding):
    before = snapshot()
    response = su.generic(
        "PUT", any_binding.group("g1"), b"", content_type="application/json", HTTP_TRANSFER_ENCODING="chunked"
    )
    any_binding.assert_problem(response, 411, "length-required")
    assert snapshot() == before


def test_a_metadata_header_is_utf8_both_ways(su, binding):
    """ "café ünd €" sent as the binding writes UTF-8 in headers (raw bytes in 0.5, percent-encoded in 1.0) is stored
    as that text and answered the same way (it was stored as "cafÃ©")."""
    text = "café ünd €"
    binding.send(su, "PUT", binding.group("g1"), {})
    header = f"{binding.header_prefix}-description"
    response = binding.create_schema(
        su, "g1", "s1", b"text", "Custom/1", "text/plain", **{header: binding.header_value(text)}
    )
    assert response.status_code == 201, response.content
    assert response[header] == binding.header_value(text)
    from registry.models import Version

    assert Version.objects.get(resource__rid="s1").description == text


def test_a_metadata_header_that_is_not_utf8_is_400(su, binding):
    binding.send(su, "PUT", binding.group("g1"), {})
    before = snapshot()
    header = f"{binding.header_prefix}-description"
    response = binding.create_schema(
        su, "g1", "s1", b"text", "Custom/1", "text/plain", **{header: binding.bad_header_value}
    )
    binding.assert_problem(response, 400, "bad-request")
    assert snapshot() == before
