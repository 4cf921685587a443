"""A definition group's `format` (CONTRACT 18, the seed; issue 39 item 2): REQUIRED when the group is created or
replaced through the 0.5 binding (`POST /definitionGroups`, `PUT /definitionGroups/G`) or the Message Catalog API
(`PUT /messagecatalog/G`): 400 naming `format`, nothing written. rc4 lets a message group have no `envelope`: a group
made through 1.0 without one keeps none, every binding shows it without `format`, and every document import (0.5's
`POST /`, 1.0's `POST /registry/`, `import_registry`, sync, `spark_import`) takes it, so that the exports restore."""

import json
import shutil

import pytest
from django.core.management import call_command

from registry.models import Group
from tests.helpers import assert_problem, snapshot

pytestmark = pytest.mark.django_db

REGISTRY_JSON = "application/cloudevents-registry+json"
FORMAT = "CloudEvents/1.0"


@pytest.mark.parametrize(
    "write",
    [
        ("POST", "/definitionGroups", {"id": "g"}),
        ("POST", "/definitionGroups", {"id": "g", "format": None}),
        ("PUT", "/definitionGroups/g", {"description": "no format"}),
        ("PUT", "/messagecatalog/g", {"description": "no format"}),
        ("PUT", "/messagecatalog/g", {}),
    ],
    ids=["0.5 POST", "0.5 POST null", "0.5 PUT", "message catalog PUT", "message catalog PUT empty"],
)
def test_without_format_the_seeds_bindings_refuse_it(su, write):
    method, path, body = write
    before = snapshot()
    response = su.generic(method, path, json.dumps(body), content_type="application/json")
    problem = assert_problem(response, 400, "format")
    assert "REQUIRED" in json.dumps(problem), problem
    assert snapshot() == before
    body = {**body, "format": FORMAT}
    assert su.generic(method, path, json.dumps(body), content_type="application/json").status_code == 201


@pytest.mark.parametrize("door", ["0.5", "message catalog"])
def test_a_replacement_without_format_is_refused_too(su, door):
    path = "/definitionGroups/g" if door == "0.5" else "/messagecatalog/g"
    assert su.put(path, {"format": FORMAT}, format="json").status_code == 201
    before = snapshot()
    assert_problem(su.put(path, {"description": "format left out"}, format="json"), 400, "format")
    assert snapshot() == before


def made_through_10(su) -> None:
    response = su.put("/registry/messagegroups/g", {"description": "no envelope"}, format="json")
    assert response.status_code == 201, response.content
    message = {"envelope": FORMAT, "envelopemetadata": {"type": {"value": "com.example.m"}}}
    assert su.put("/registry/messagegroups/g/messages/m", message, format="json").status_code == 201


def shown_without_format(su) -> None:
    group = Group.objects.get(group_type="definitionGroups", gid="g")
    assert "format" not in group.extensions
    core = su.get("/definitionGroups/g").json()
    assert "format" not in core and core["description"] == "no envelope", core
    assert "format" not in su.get("/definitionGroups?inline").json()["g"]
    catalog = su.get("/messagecatalog/g")
    assert catalog.status_code == 200 and "format" not in catalog.json(), catalog.content
    xr10 = su.get("/registry/messagegroups/g").json()
    assert "envelope" not in xr10 and "format" not in xr10, xr10
    assert su.get("/definitionGroups/g/definitions/m").json()["format"] == FORMAT


def test_a_group_made_through_10_without_an_envelope_keeps_none(su):
    made_through_10(su)
    shown_without_format(su)


def wipe(su) -> None:
    assert su.delete("/definitionGroups?force=true").status_code in (200, 204)
    assert not Group.objects.exists()


@pytest.mark.parametrize("kind", ["0.5", "1.0"])
def test_the_exports_restore(su, kind):
    made_through_10(su)
    exported = su.get("/?inline", HTTP_ACCEPT=REGISTRY_JSON) if kind == "0.5" else su.get("/registry/export")
    body = b"".join(exported.streaming_content) if exported.streaming else exported.content
    wipe(su)
    if kind == "0.5":
        response = su.generic("POST", "/", body, content_type=REGISTRY_JSON)
    else:
        response = su.generic("POST", "/registry/", body, content_type="application/json")
    assert response.status_code == 200, response.content
    shown_without_format(su)


def test_import_registry_restores(su, tmp_path):
    made_through_10(su)
    path = tmp_path / "registry.cereg"
    call_command("export_registry", "--output", str(path))
    wipe(su)
    call_command("import_registry", str(path))
    shown_without_format(su)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_spark_import_restores(su, tmp_path, capsys):
    from tests.pipeline.test_spark_import import spark_import

    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    made_through_10(su)
    path = tmp_path / "registry.cereg"
    call_command("export_registry", "--output", str(path))
    wipe(su)
    code, lines = spark_import(capsys, str(path))
    assert code == 0, lines
    shown_without_format(su)
