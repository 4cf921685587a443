"""`POST /` imports a document (JSON or YAML by media type); `GET /?inline` with the document media types exports."""

import pytest
import yaml
from rest_framework.test import APIClient

from registry.models import Group, OutboxEvent
from tests.corpus import corpus


@pytest.fixture
def writer(db, django_user_model):
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_superuser("w", "w@example.com", "pw"))
    return client


def test_post_root_imports_json_and_reports_paths(writer):
    body = corpus("seed-shape", "windgenerator-kafka-avro.cereg").read_bytes()
    response = writer.post("/", body, content_type="application/cloudevents-registry+json")
    assert response.status_code == 200, response.content
    report = response.json()
    assert set(report) == {"created", "updated", "unchanged", "warnings", "teamsCreated"}
    assert all(p.startswith("/") for p in report["created"])
    again = writer.post("/", body, content_type="application/cloudevents-registry+json").json()
    assert again["created"] == [] and again["updated"] == []


def test_post_root_imports_yaml(writer):
    body = corpus("seed-shape", "contoso-crm.cereg.yaml").read_bytes()
    response = writer.post("/", body, content_type="application/cloudevents-registry+yaml")
    assert response.status_code == 200, response.content
    assert Group.objects.filter(group_type="definitionGroups").exists()


def test_invalid_document_is_400_listing_errors_and_writes_nothing(writer):
    body = corpus("invalid", "contoso-crm.cereg").read_bytes()
    response = writer.post("/", body, content_type="application/json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["errors"] and all({"path", "reason"} <= set(e) for e in problem["errors"])
    assert Group.objects.count() == 0 and OutboxEvent.objects.count() == 0


def test_unsupported_media_type_is_415(writer):
    assert writer.post("/", b"<x/>", content_type="application/xml").status_code == 415
    assert not Group.objects.exists() and not OutboxEvent.objects.exists()


def test_import_needs_permission(db, django_user_model):
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user("viewer", "v@example.com", "pw"))
    assert client.post("/", b'{"schemaGroups": {"g": {}}}', content_type="application/json").status_code == 403
    assert not Group.objects.exists()


def test_export_as_document_json_and_yaml(writer):
    writer.post("/", corpus("seed-shape", "lightbulb-avro.cereg").read_bytes(), content_type="application/json")
    response = writer.get("/?inline", HTTP_ACCEPT="application/cloudevents-registry+json")
    assert response["Content-Type"].startswith("application/cloudevents-registry+json")
    import json

    document = json.loads(b"".join(response.streaming_content))
    assert document["specversion"] == "0.5-wip"
    assert "Fabrikam.Lumen" in document["schemaGroups"]
    response = writer.get("/?inline", HTTP_ACCEPT="application/cloudevents-registry+yaml")
    assert yaml.safe_load(response.content)["definitionGroups"]
    reimport = writer.post("/", json.dumps(document), content_type="application/cloudevents-registry+json").json()
    assert reimport["created"] == [] and reimport["updated"] == []
