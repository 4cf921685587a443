"""An attribute in the other binding's name (CONTRACT section 11, issue 13 "Bad input"): a 1.0 name sent to the
0.5-wip binding is refused naming it and the 0.5 name to use, as a 0.5 name sent to /registry is, and nothing is
written. Stored as an extension, it would be shown by the 1.0 binding in place of the real attribute."""

import json

import pytest

from registry.models import Group, Resource, Version

from .conftest import post_json

SCHEMA = {"type": "object"}


@pytest.mark.parametrize(
    ("name", "value", "instead"),
    [
        ("labels", {"team": "a"}, "tags"),
        ("documentation", "https://example.com/d", "docs"),
        ("createdat", "2020-01-01T00:00:00Z", "createdOn"),
        ("modifiedat", "2020-01-01T00:00:00Z", "modifiedOn"),
        ("xid", "/schemagroups/g", None),
    ],
)
def test_a_10_name_in_a_05_group_is_refused(writer, name, value, instead):
    refused = post_json(writer, "/schemaGroups/g", {"description": "d", name: value}, "put")
    assert refused.status_code == 400, refused.content
    detail = refused.json()["detail"]
    assert repr(name) in detail and "xRegistry 1.0" in detail
    assert instead is None or repr(instead) in detail
    assert not Group.objects.filter(gid="g").exists()


def test_a_10_name_in_a_05_definition_is_refused(writer):
    assert post_json(writer, "/definitionGroups/dg", {"format": "CloudEvents/1.0"}, "put").status_code == 201
    for name, value, instead in (
        ("labels", {"team": "a"}, "tags"),
        ("dataschemauri", "#/schemaGroups/g", "schemaurl"),
        ("envelope", "CloudEvents/1.0", "format"),
    ):
        definition = {"format": "CloudEvents/1.0", "metadata": {"attributes": {"type": {"value": "t"}}}, name: value}
        refused = post_json(writer, "/definitionGroups/dg/definitions/d", definition, "put")
        assert refused.status_code == 400, refused.content
        assert any(
            e.startswith(f"{name} is an attribute of xRegistry 1.0") and instead in e for e in refused.json()["errors"]
        ), refused.json()
    assert not Resource.objects.filter(rid="d").exists()


def test_a_10_header_on_a_05_schema_is_refused(writer):
    assert post_json(writer, "/schemaGroups/g", {}, "put").status_code == 201
    assert (
        writer.put(
            "/schemaGroups/g/schemas/s",
            data=json.dumps(SCHEMA),
            content_type="application/json",
            HTTP_REGISTRY_FORMAT="JsonSchema/draft-07",
        ).status_code
        == 201
    )
    for header, instead in (
        ("HTTP_REGISTRY_DOCUMENTATION", "Registry-docs"),
        ("HTTP_REGISTRY_LABELS_TEAM", "Registry-tags-KEY"),
    ):
        refused = writer.post(
            "/schemaGroups/g/schemas/s",
            data=json.dumps({"type": "object", "title": "x"}),
            content_type="application/json",
            HTTP_REGISTRY_FORMAT="JsonSchema/draft-07",
            **{header: "x"},
        )
        assert refused.status_code == 400 and instead in refused.json()["detail"], refused.content
    assert Version.objects.filter(resource__rid="s").count() == 1


def test_a_10_name_in_a_05_document_is_refused(writer):
    document = {"specversion": "0.5-wip", "schemaGroups": {"g": {"id": "g", "labels": {"team": "a"}}}}
    refused = post_json(writer, "/", document)
    assert refused.status_code == 400 and "'labels'" in json.dumps(refused.json()), refused.content
    assert not Group.objects.filter(gid="g").exists()


def test_the_10_binding_still_writes_what_it_translates(writer):
    """the 1.0 names arrive translated (labels -> tags, documentation -> docs): no refusal on the 1.0 side"""
    written = post_json(
        writer, "/registry/schemagroups/g", {"labels": {"team": "a"}, "documentation": "https://example.com/d"}, "put"
    )
    assert written.status_code == 201, written.content
    assert writer.get("/schemaGroups/g").json()["tags"] == {"team": "a"}
    exported = writer.get("/registry/export").json()
    assert post_json(writer, "/registry/", exported).status_code == 200
