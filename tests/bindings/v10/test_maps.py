"""Writes of several entities in one 1.0 request (registry/services/upserts.py): maps of groups, resources and
versions, a group with the resources it nests, `?setdefaultversionid`; each whole or not at all."""

from registry.models import AuditRecord, Group, OutboxEvent, Resource, Version

from .conftest import post_json

SCHEMA = {"type": "object"}


def counts():
    return tuple(m.objects.count() for m in (Group, Resource, Version, OutboxEvent, AuditRecord))


def test_a_map_of_versions_creates_the_resource_and_sets_the_sticky_default(writer):
    body = {"1": {"schema": SCHEMA}, "2": {"schema": {**SCHEMA, "title": "two"}}}
    response = post_json(writer, "/registry/schemagroups/g/schemas/s/versions?setdefaultversionid=1", body)
    assert response.status_code == 200, response.content
    assert sorted(response.json()) == ["1", "2"]
    meta = writer.get("/registry/schemagroups/g/schemas/s/meta").json()
    assert meta["defaultversionid"] == "1" and meta["defaultversionsticky"] is True


def test_a_map_of_versions_with_one_refused_writes_none(writer):
    before = counts()
    body = {"1": {"schema": SCHEMA}, "2": {"versionid": "3", "schema": SCHEMA}}
    response = post_json(writer, "/registry/schemagroups/g/schemas/s/versions", body)
    assert response.status_code == 400, response.content
    assert response.json()["type"].endswith("#mismatched_id")
    assert counts() == before  # neither the group, the resource, version 1 nor their events and audit rows


def test_a_map_of_groups_whose_second_nests_a_refused_resource_writes_none(writer):
    before = counts()
    body = {
        "a": {"schemas": {"s": {"versions": {"1": {"schema": SCHEMA}}}}},
        "b": {"schemas": {"t": {"meta": {"epoch": "x"}, "versions": {"1": {"schema": SCHEMA}}}}},
    }
    response = post_json(writer, "/registry/schemagroups", body)
    assert response.status_code == 400, response.content
    assert "meta.epoch" in response.json()["detail"]
    assert counts() == before


def test_a_resource_with_its_meta_is_one_write(writer):
    body = {"s": {"versions": {"1": {"schema": SCHEMA}, "2": {"schema": SCHEMA}}, "meta": {"defaultversionid": "1"}}}
    response = post_json(writer, "/registry/schemagroups/g/schemas", body)
    assert response.status_code == 200, response.content
    meta = writer.get("/registry/schemagroups/g/schemas/s/meta").json()
    assert meta["defaultversionid"] == "1" and meta["defaultversionsticky"] is True
    before = counts()
    body = {"s": {"versions": {"3": {"schema": SCHEMA}}, "meta": {"epoch": 99}}}  # the meta's epoch is not 99
    response = post_json(writer, "/registry/schemagroups/g/schemas", body)
    assert response.status_code == 400, response.content
    assert response.json()["type"].endswith("#mismatched_epoch")
    assert counts() == before  # version 3 went with the refused meta
