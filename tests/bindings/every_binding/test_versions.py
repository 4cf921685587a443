"""Versions the same way through both bindings (issue 24, the 1.0 Low items; issue 23 item 5): a sticky default
version is the one both bindings serve as the resource's; a 1.0 version created without labels or description
has none of its own (it inherited the previous version's); a resource created with a versions map (it answered
404); concurrent upserts of one new entity all succeed (one creates, the others update)."""

import json
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from rest_framework.test import APIClient

from registry.models import Version

DOC1, DOC2 = b'{"type": "object"}', b'{"type": "object", "title": "two"}'
FORMAT = "JsonSchema/draft-07"
S = "/registry/schemagroups/g/schemas/s"


def test_a_sticky_default_is_what_both_bindings_serve(su):
    assert (
        su.put(
            S + "/versions/1", DOC1, content_type="application/json", headers={"xRegistry-format": FORMAT}
        ).status_code
        == 201
    )
    su.put(S + "/versions/2", DOC2, content_type="application/json")
    assert su.get("/schemaGroups/g/schemas/s").content == DOC2
    su.patch(S + "/meta", {"defaultversionid": "1"}, format="json")
    assert su.get(S).content == DOC1
    assert su.get("/schemaGroups/g/schemas/s").content == DOC1  # it served v2
    assert su.get("/schemaGroups/g/schemas/s")["Registry-version"] == "1"
    su.patch(S + "/meta", {"defaultversionsticky": False}, format="json")
    assert su.get("/schemaGroups/g/schemas/s").content == DOC2 == su.get(S).content


def test_a_10_version_has_its_own_labels_and_description(su):
    body = {"schema": {"type": "object"}, "format": FORMAT, "description": "first", "labels": {"team": "a"}}
    assert su.put(S + "/versions/1$details", body, format="json").status_code == 201
    assert su.put(S + "/versions/2$details", {"schema": {"type": "object"}}, format="json").status_code == 201
    second = su.get(S + "/versions/2$details").json()
    assert "description" not in second and "labels" not in second, second
    assert second["format"] == FORMAT  # what the schema's versions share is still taken from the latest


@pytest.mark.parametrize(
    "write",
    ["put $details", "post to the collection", "in a group put"],
)
def test_a_resource_created_with_a_versions_map(su, write):
    versions = {"1": {"schema": {"type": "object"}, "format": FORMAT}, "2": {"schema": {"type": "object"}}}
    if write == "put $details":
        response = su.put(S + "$details", {"versions": versions}, format="json")
    elif write == "post to the collection":
        response = su.post("/registry/schemagroups/g/schemas", {"s": {"versions": versions}}, format="json")
    else:
        response = su.put("/registry/schemagroups/g", {"schemas": {"s": {"versions": versions}}}, format="json")
    assert response.status_code in (200, 201), response.content
    assert sorted(Version.objects.filter(resource__rid="s").values_list("vid", flat=True)) == ["1", "2"]


WRITERS = 12


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "path", ["/schemaGroups/race", "/registry/schemagroups/race", "/registry/schemagroups/g/schemas/race$details"]
)
def test_concurrent_upserts_of_a_new_entity_all_succeed(path):
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's concurrency (REGISTRY_TEST_DB=postgres)")
    user = get_user_model().objects.create_superuser("racer", "r@example.com", "pw")
    if "/schemas/" in path:
        setup = APIClient()
        setup.force_authenticate(user)
        setup.put("/registry/schemagroups/g", {}, format="json")
    barrier, statuses = threading.Barrier(WRITERS), []

    def write(n):
        client = APIClient(raise_request_exception=False)
        client.force_authenticate(user)
        barrier.wait()
        body = {"description": f"writer {n}"}
        if "/schemas/" in path:
            body = {"schema": {"type": "object"}, "format": FORMAT, "description": f"writer {n}"}
        statuses.append(client.generic("PUT", path, json.dumps(body), content_type="application/json").status_code)
        connections.close_all()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(set(statuses)) in ([200, 201], [201]) and statuses.count(201) == 1, statuses
