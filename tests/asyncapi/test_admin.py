"""The AsyncAPI app in the admin: the import page (documents with the files they refer to, a prefix, a dry run;
the report, or the errors with their places and nothing written), the dashboard's link to it, and the export
links on a message group's and an endpoint's page."""

from django.core.files.uploadedfile import SimpleUploadedFile

from registry.models import Group
from tests.helpers import snapshot

from .conftest import DOCUMENTS, document


def upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content)


def test_import_page_imports_with_the_files_beside_and_links_the_exports(client, superuser):
    client.force_login(superuser)
    index = client.get("/admin/")
    assert b'id="asyncapi-import-link"' in index.content
    page = client.get("/admin/asyncapi/import/")
    assert page.status_code == 200 and b'id="asyncapi-import"' in page.content
    folder = DOCUMENTS / "cloudevents"
    before = snapshot()
    data = {
        "documents": [upload("lights.yaml", (folder / "light-switch-events-binary-kafka-local.yaml").read_bytes())],
        "files": [
            upload(
                "cloudevents-headers-kafka-binary.yaml", (folder / "cloudevents-headers-kafka-binary.yaml").read_bytes()
            )
        ],
        "group_prefix": "office",
        "dry_run": "on",
    }
    response = client.post("/admin/asyncapi/import/", data)
    assert response.status_code == 200, response.content[:3000]
    assert b"Dry run: nothing was written" in response.content
    assert b"/messagegroups/office.officeLightSwitchChanged" in response.content
    assert snapshot() == before
    data["dry_run"] = ""
    data["documents"] = [upload("lights.yaml", (folder / "light-switch-events-binary-kafka-local.yaml").read_bytes())]
    data["files"] = [
        upload("cloudevents-headers-kafka-binary.yaml", (folder / "cloudevents-headers-kafka-binary.yaml").read_bytes())
    ]
    response = client.post("/admin/asyncapi/import/", data)
    assert response.status_code == 200 and b"Imported" in response.content
    group = Group.objects.get(group_type="definitionGroups", gid="office.officeLightSwitchChanged")
    page = client.get(f"/admin/catalog/definitiongroup/{group.pk}/change/")
    assert page.status_code == 200
    link = b"/registry/messagegroups/office.officeLightSwitchChanged/asyncapi?role=consumer&amp;format=yaml"
    assert link in page.content
    exported = client.get("/registry/messagegroups/office.officeLightSwitchChanged/asyncapi?role=consumer&format=yaml")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("application/yaml")
    assert b"asyncapi: 3.0.0" in exported.content


def test_endpoint_page_links_its_export(client, superuser, su):
    client.force_login(superuser)
    response = su.generic(
        "POST", "/registry/asyncapi?prefix=k", document("3.0-streetlights-kafka.yml"), content_type="application/yaml"
    )
    assert response.status_code == 200
    endpoint = Group.objects.get(group_type="endpoints", gid="k.mtls-connections.producer")
    page = client.get(f"/admin/endpoints/endpoint/{endpoint.pk}/change/")
    assert page.status_code == 200, page.status_code
    assert b"/registry/endpoints/k.mtls-connections.producer/asyncapi?role=producer" in page.content


def test_import_page_shows_every_error_and_writes_nothing(client, superuser):
    client.force_login(superuser)
    before = snapshot()
    response = client.post(
        "/admin/asyncapi/import/", {"documents": [upload("adeo.yml", document("3.0-adeo-kafka-request-reply.yml"))]}
    )
    assert response.status_code == 400
    assert b"Nothing was imported" in response.content
    assert b"adeo.yml#/components/messages/costingResponse/bindings/kafka/key" in response.content
    assert snapshot() == before


def test_import_page_needs_the_write_permissions(client, django_user_model):
    staff = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    client.force_login(staff)
    assert client.get("/admin/asyncapi/import/").status_code == 403
    assert b"asyncapi-import-link" not in client.get("/admin/").content
