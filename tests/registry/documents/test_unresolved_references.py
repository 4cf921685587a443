"""References in an imported document that name nothing (CONTRACT 18; issue 39 item 3): a `#/...` reference (or one of
this registry's URLs) to no entity of the document or the store, or a `:Name` after one that names nothing in that
version's document (an Avro named type or a Protobuf message), refuses the import with
400 naming each, nothing written; `?force=true` (`--force`, the admin's checkbox) imports them as written, each a
warning of the report. Through 0.5's `POST /`, 1.0's `POST /registry/`, `import_registry`, the admin's import page and
`spark_import`."""

import json
import shutil

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from registry.models import Group, Resource
from tests.helpers import assert_problem, snapshot

pytestmark = pytest.mark.django_db

REGISTRY_JSON = "application/cloudevents-registry+json"
AVRO = {"type": "record", "name": "Order", "namespace": "com.example", "fields": [{"name": "id", "type": "string"}]}
PROTO = 'syntax = "proto3";\npackage com.example;\nmessage Payload { string id = 1; }\n'
JSON_SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}, "$defs": {"Item": {"type": "string"}}}


def document(*schemaurls: str) -> dict:
    """Schemas of three formats, and a definition per `schemaurl`."""
    definitions = {
        f"d{n}": {
            "format": "CloudEvents/1.0",
            "metadata": {"attributes": {"type": {"value": f"com.example.d{n}"}}},
            "schemaformat": "Custom/1",
            "schemaurl": url,
        }
        for n, url in enumerate(schemaurls)
    }
    return {
        "specversion": "0.5-wip",
        "schemaGroups": {
            "g": {
                "schemas": {
                    "avro": {"format": "Avro/1.11.0", "versions": {"1": {"schema": AVRO}}},
                    "proto": {"format": "Protobuf/3", "versions": {"1": {"schema": PROTO}}},
                    "json": {"format": "JsonSchema/draft-07", "versions": {"1": {"schema": JSON_SCHEMA}}},
                }
            }
        },
        "definitionGroups": {"dg": {"format": "CloudEvents/1.0", "definitions": definitions}},
    }


RESOLVED = [
    "#/schemaGroups/g/schemas/avro/versions/1:Order",
    "#/schemaGroups/g/schemas/avro:com.example.Order",
    "#/schemaGroups/g/schemas/proto/versions/1:Payload",
    "#/schemaGroups/g/schemas/proto:com.example.Payload",
    "#/schemaGroups/g/schemas/json/versions/1:properties/id",
    "#/schemaGroups/g/schemas/json:Anything",  # what follows ':' in a JSON Schema's reference is not checked
    "#/schemaGroups/g/schemas/json",
]
UNRESOLVED = {
    "#/schemaGroups/g/schemas/nope": "does not resolve",
    "#/schemaGroups/g/schemas/avro/versions/2": "does not resolve",
    "#/schemaGroups/g/schemas/avro/versions/1:Nope": "no named type 'Nope'",
    "#/schemaGroups/g/schemas/proto:Nope": "no message 'Nope'",
    "#/schemaGroups/g/schemas/nope:Order": "does not resolve",
}


def post(client, doc: dict, query: str = ""):
    return client.generic("POST", f"/{query}", json.dumps(doc), content_type=REGISTRY_JSON)


def test_references_that_resolve_import(su):
    response = post(su, document(*RESOLVED))
    assert response.status_code == 200, response.content
    assert response.json()["warnings"] == []


def test_each_unresolved_reference_is_a_400_naming_it(su):
    before = snapshot()
    urls = list(UNRESOLVED)
    response = post(su, document(*RESOLVED, *urls))
    body = assert_problem(response, 400, "force=true")
    named = {e["path"]: e["reason"] for e in body["errors"]}
    for n, url in enumerate(urls, start=len(RESOLVED)):
        reason = named.pop(f"/definitionGroups/dg/definitions/d{n}/schemaurl")
        assert url in reason and UNRESOLVED[url] in reason, reason
    assert named == {}, named  # those that resolve are not named
    assert snapshot() == before


def test_forced_they_import_as_written_with_warnings(su):
    urls = list(UNRESOLVED)
    response = post(su, document(*urls), "?force=true")
    assert response.status_code == 200, response.content
    warnings = {w["path"]: w["reason"] for w in response.json()["warnings"]}
    assert len(warnings) == len(urls)
    for n, url in enumerate(urls):
        reason = warnings[f"/definitionGroups/dg/definitions/d{n}/schemaurl"]
        assert url in reason and UNRESOLVED[url] in reason and "kept as written" in reason
        assert su.get(f"/definitionGroups/dg/definitions/d{n}").json()["schemaurl"] == url


def test_a_name_in_a_stored_schema(su):
    assert post(su, document()).status_code == 200
    doc = {
        "specversion": "0.5-wip",
        "definitionGroups": document("#/schemaGroups/g/schemas/avro:Nope")["definitionGroups"],
    }
    before = snapshot()
    body = assert_problem(post(su, doc), 400, "no named type 'Nope'")
    assert [e["path"] for e in body["errors"]] == ["/definitionGroups/dg/definitions/d0/schemaurl"]
    assert snapshot() == before
    doc = {
        "specversion": "0.5-wip",
        "definitionGroups": document("#/schemaGroups/g/schemas/avro:Order")["definitionGroups"],
    }
    assert post(su, doc).status_code == 200


def test_an_own_url_is_a_reference_too(su):
    url = "http://testserver/schemaGroups/g/schemas/nope"
    body = assert_problem(post(su, document(url)), 400, url)
    assert body["errors"][0]["path"] == "/definitionGroups/dg/definitions/d0/schemaurl"


def test_the_10_import(su):
    doc = {
        "messagegroups": {
            "mg": {
                "envelope": "CloudEvents/1.0",
                "messages": {
                    "m": {
                        "envelope": "CloudEvents/1.0",
                        "envelopemetadata": {"type": {"value": "com.example.m"}},
                        "dataschemaformat": "Custom/1",
                        "dataschemauri": "/schemagroups/g/schemas/nope:Order",
                    }
                },
            }
        },
        "endpoints": {
            "e": {
                "usage": ["producer"],
                "protocol": "HTTP",
                "protocoloptions": {"endpoints": [{"uri": "https://x.example.com/in"}]},
                "messagegroups": ["/messagegroups/gone"],
            }
        },
    }
    before = snapshot()
    response = su.post("/registry/", doc, format="json")
    assert response.status_code == 400, response.content
    text = response.content.decode()
    assert "/schemas/nope:order" in text.lower() and "groups/gone" in text.lower(), text  # (either binding's names)
    assert snapshot() == before
    response = su.post("/registry/?force=true", doc, format="json")
    assert response.status_code == 200, response.content
    message = su.get("/registry/messagegroups/mg/messages/m$details").json()
    assert message["dataschemauri"] == "/schemagroups/g/schemas/nope:Order"
    assert su.get("/registry/endpoints/e").json()["messagegroups"] == ["/messagegroups/gone"]


def test_import_registry(tmp_path, capsys):
    path = tmp_path / "backup.cereg"
    path.write_text(json.dumps(document("#/schemaGroups/g/schemas/nope")))
    before = snapshot()
    with pytest.raises(CommandError):
        call_command("import_registry", str(path))
    err = capsys.readouterr().err
    assert "/definitionGroups/dg/definitions/d0/schemaurl: reference '#/schemaGroups/g/schemas/nope'" in err
    assert snapshot() == before
    call_command("import_registry", "--force", str(path))
    err = capsys.readouterr().err
    assert "warning: /definitionGroups/dg/definitions/d0/schemaurl" in err
    assert Resource.objects.filter(rid="d0").exists()


def test_the_admins_import_page(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("gov", "g@example.com", "pw"))
    upload = json.dumps(document("#/schemaGroups/g/schemas/nope")).encode()
    before = snapshot()

    def send(**fields):
        from django.core.files.uploadedfile import SimpleUploadedFile

        file = SimpleUploadedFile("backup.cereg", upload, content_type="application/json")
        return client.post(reverse("registry-admin-import"), {"document": file, **fields}).content.decode()

    page = send()
    assert "Nothing was imported" in page and "#/schemaGroups/g/schemas/nope" in page
    assert snapshot() == before
    assert 'name="force"' in page  # the checkbox
    page = send(force="on")
    assert "import-report" in page and "import-warnings" in page and "#/schemaGroups/g/schemas/nope" in page
    assert Group.objects.filter(gid="dg").exists()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_spark_import(tmp_path, capsys):
    from tests.pipeline.test_spark_import import spark_import

    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    source = tmp_path / "in.cereg"
    doc = document(
        "#/schemaGroups/g/schemas/avro:Order", "#/schemaGroups/g/schemas/nope", "#/schemaGroups/g/schemas/proto:Nope"
    )
    doc["endpoints"] = {
        "e": {
            "usage": "producer",
            "config": {"protocol": "HTTP", "endpoints": ["https://x.example.com/in"]},
            "definitionGroups": ["#/definitionGroups/gone"],
        }
    }
    source.write_text(json.dumps(doc))
    report = tmp_path / "report.json"
    code, lines = spark_import(capsys, str(source), "--report", str(report))
    assert code == 3, lines
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert "#/schemaGroups/g/schemas/nope" in rejected["/definitionGroups/dg/definitions/d1/versions/1"]
    assert "no message 'Nope'" in rejected["/definitionGroups/dg/definitions/d2/versions/1"]
    assert "#/definitionGroups/gone" in rejected["/endpoints/e"]
    assert Resource.objects.filter(rid="d0").exists() and not Resource.objects.filter(rid="d1").exists()
    assert not Group.objects.filter(gid="e").exists()
    code, lines = spark_import(capsys, str(source), "--report", str(report), "--force")
    assert code == 0, lines
    assert lines[-1].endswith("rejected 0, warnings 3"), lines
    warned = {w["path"] for w in json.loads(report.read_text())["warnings"]}
    assert warned == {
        "/definitionGroups/dg/definitions/d1/versions/1/schemaurl",
        "/definitionGroups/dg/definitions/d2/versions/1/schemaurl",
        "/endpoints/e/definitionGroups/0",
    }
    assert Resource.objects.filter(rid="d1").exists() and Group.objects.filter(gid="e").exists()


def test_a_page_of_this_server_that_is_no_entity_is_no_reference(su):
    doc = document()
    doc["schemaGroups"]["g"]["docs"] = "http://testserver/docs/schemas.html"
    response = post(su, doc)
    assert response.status_code == 200, response.content
    assert response.json()["warnings"] == []
