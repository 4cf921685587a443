"""Issue 11 items 1, 5, 7, 9 and 14: input that broke the registry (500s, or stored data that broke every
export), now refused with a 400/404 problem document and nothing written; and an export that survives
whatever is already stored."""

import json

import pytest
from rest_framework.test import APIClient

from registry.models import Group, Version
from tests.helpers import assert_problem, make_definition_group, make_group, send, send_json, snapshot

pytestmark = pytest.mark.django_db

DEEP = '{"a":' * 995 + "1" + "}" * 995


def post_raw(client, path, text, content_type="application/json", **headers):
    return client.generic("POST", path, text, content_type=content_type, headers=headers)


@pytest.mark.parametrize(
    "document, mention",
    [
        ('{"type": "object", "description": "\\udc00"}', "surrogate"),
        ('{"type": "object", "description": "a\\u0000b"}', "NUL"),
        ('{"type": "object", "minimum": NaN}', "NaN"),
        ('{"type": "object", "maximum": 1e999}', "1e999"),
        ('{"type": "object", "type": "string"}', "duplicate key"),
        ('{"type": "object", "x": ' + DEEP + "}", "nested deeper"),
    ],
)
@pytest.mark.parametrize("fmt", ["JsonSchema/draft-07", "Custom/1"])
def test_json_documents_that_could_not_be_exported_are_refused(su, document, mention, fmt):
    """issue 11 items 1 and 14: whatever the format, a document sent as JSON must be strict, storable JSON"""
    make_group(su)
    before = snapshot()
    response = send(su, "POST", "/schemaGroups/g1/schemas", document, "application/json", id="s", format=fmt)
    assert_problem(response, 400, mention)
    assert snapshot() == before


def test_stored_documents_that_cannot_be_reserialized_do_not_break_reads_or_exports(su, anon):
    """issue 11 item 1: data stored before these checks (or by other means) still exports and re-imports"""
    make_group(su)
    send(su, "POST", "/schemaGroups/g1/schemas", b"plain", "text/plain", id="s", format="Custom/1")
    make_definition_group(su)
    send(
        su,
        "POST",
        "/definitionGroups/dg1/definitions",
        {"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "t"}}}},
        "application/json",
        id="d",
    )
    Version.objects.filter(resource__rid="s").update(
        content=b'{"a": "\\udc00", "b": NaN, "c": 1e999}', media_type="application/json"
    )
    Version.objects.filter(resource__rid="d").update(
        content=b'{"format": "CloudEvents/1.0", "x": "\\ud800", "metadata": {"attributes": {"type": {"value": "t"}}}}'
    )
    whole = anon.get("/?inline")
    assert whole.status_code == 200
    json.loads(b"".join(whole.streaming_content))  # valid JSON, not truncated
    for path in (
        "/schemaGroups/g1?inline",
        "/schemaGroups/g1/schemas?inline",
        "/definitionGroups/dg1?inline",
        "/schemaGroups/g1/schemas/s",
        "/definitionGroups/dg1/definitions/d",
    ):
        assert anon.get(path).status_code == 200, path
    assert anon.get("/?inline", HTTP_ACCEPT="application/cloudevents-registry+yaml").status_code == 200
    export = anon.get("/?inline", HTTP_ACCEPT="application/cloudevents-registry+json")
    document = b"".join(export.streaming_content)
    json.loads(document)
    again = send(su, "POST", "/", document, "application/cloudevents-registry+json")
    assert again.status_code == 200, again.content
    assert again.json()["created"] == []
    # the schema's bytes come back as they are; the definition's unstorable text comes back repaired (U+FFFD)
    assert set(again.json()["updated"]) <= {
        "/definitionGroups/dg1/definitions/d",
        "/definitionGroups/dg1/definitions/d/versions/1",
    }
    assert "\ufffd" in anon.get("/definitionGroups/dg1/definitions/d").content.decode()


@pytest.mark.parametrize(
    "path",
    [
        "/schemaGroups/%00",
        "/schemaGroups/a%00b/schemas",
        "/endpoints/%00",
        "/schemaGroups/g1/schemas/%00",
        "/schemaGroups/g1/schemas/s/versions/%00",
        "/subscriptions/%00",
        "/schemaregistry/schemagroups/%00",
        "/messagecatalog/messagegroups/%00",
    ],
)
def test_a_nul_in_a_path_is_404(su, path):
    """issue 11 item 5 (500 on PostgreSQL before)"""
    make_group(su)
    response = su.get(path)
    assert_problem(response, 404)


@pytest.mark.parametrize("query", ["filter=id=%00", "filter=name=a%00", "limit=%00"])
def test_a_nul_in_a_query_is_400(su, query):
    """issue 11 item 5"""
    make_group(su)
    assert_problem(su.get(f"/schemaGroups?{query}"), 400, "NUL")


def test_a_nul_in_a_write_path_writes_nothing(su):
    """issue 11 item 5"""
    before = snapshot()
    assert_problem(send_json(su, "PUT", "/schemaGroups/a%00b", {}), 404)
    assert snapshot() == before


def test_overflowing_numbers_in_a_group_body(su):
    """issue 11 item 7: {"x": 1e999} was stored as Infinity"""
    response = post_raw(su, "/schemaGroups", '{"id": "g9", "x": 1e999}')
    assert_problem(response, 400, "1e999")
    assert not Group.objects.exists()


def test_an_import_key_with_a_lone_surrogate(su):
    """issue 11 item 7"""
    response = post_raw(su, "/", '{"specversion": "0.5-wip", "schemaGroups": {"g\\ud800": {}}}')
    assert_problem(response, 400, "surrogate")
    assert not Group.objects.exists()


@pytest.mark.parametrize("how", ["header", "query"])
def test_an_epoch_of_4301_digits(su, how):
    """issue 11 item 7: int() refused to convert it (500)"""
    make_group(su)
    before = snapshot()
    digits = "9" * 4301
    if how == "header":
        response = su.generic(
            "PUT", "/schemaGroups/g1", "{}", content_type="application/json", headers={"Registry-epoch": digits}
        )
    else:
        response = su.generic("PUT", f"/schemaGroups/g1?epoch={digits}", "{}", content_type="application/json")
    assert_problem(response, 400, "epoch")
    assert snapshot() == before


def test_definition_metadata_nested_990_levels(su):
    """issue 11 item 7: RecursionError (500) before"""
    make_definition_group(su)
    before = snapshot()
    body = '{"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "x"}, "x": ' + DEEP + "}}}"
    response = send(su, "POST", "/definitionGroups/dg1/definitions", body, "application/json", id="d")
    assert_problem(response, 400, "nested deeper")
    assert snapshot() == before


@pytest.mark.parametrize("gid", [".", ".."])
def test_dot_segment_ids_are_refused(su, gid):
    """issue 11 item 14: their self URLs normalize to other paths"""
    assert_problem(send_json(su, "POST", "/schemaGroups", {"id": gid}), 400, "dot segment")
    make_group(su)
    assert_problem(send(su, "POST", "/schemaGroups/g1/schemas", b"x", id=gid, format="Custom/1"), 400, "dot segment")
    assert not Group.objects.exclude(gid="g1").exists()


def test_server_errors_have_their_own_problem_type():
    """issue 11 item 9: a 5xx said "Bad request" before"""
    from django.test import RequestFactory

    from registry.http.handlers import server_error_view

    response = server_error_view(RequestFactory().get("/x"))
    body = json.loads(response.content)
    assert response.status_code == 500 and response["Content-Type"] == "application/problem+json"
    assert body["type"].endswith(":server-error") and body["title"] == "Internal server error"
    assert "Bad request" not in response.content.decode()


def test_an_unforeseen_failure_answers_the_server_error_problem(settings, monkeypatch):
    """issue 11 item 9, through the whole stack: a view that fails answers the 5xx problem document"""
    from registry.bindings.v05 import root

    def broken(base):
        raise RuntimeError("a bug")

    monkeypatch.setattr(root, "root_json", broken)  # stands for any bug; nothing real is replaced
    response = APIClient(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert response.json()["type"].endswith(":server-error")


def test_a_json_body_without_a_content_type_is_415(su):
    """issue 11 item 14: a missing Content-Type was taken for JSON"""
    response = su.generic("POST", "/schemaGroups", '{"id": "g7"}', content_type="")
    assert_problem(response, 415, "Content-Type")
    assert not Group.objects.exists()


def test_a_problem_quoting_a_lone_surrogate_is_still_json():
    """issue 11 item 7: a detail that quotes client input holding a lone surrogate failed to encode (500)"""
    from django.test import RequestFactory

    from registry.domain.errors import Problem
    from registry.http.problems import problem_response

    response = problem_response(Problem("invalid-id", "id 'g\udc00' is not allowed"), RequestFactory().get("/x"))
    body = json.loads(response.content)
    assert response.status_code == 400 and "udc00" in body["detail"].encode("unicode_escape").decode()
