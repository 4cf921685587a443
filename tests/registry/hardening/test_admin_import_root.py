"""Issue 11 item 13: the admin's bulk import reads server paths only inside REGISTRY_IMPORT_ROOT (unset: uploads
only), after resolving symlinks and `..`; nothing outside can be imported and then read through the API."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from pipeline.models import ImportRun
from pipeline.tasks import run_import

pytestmark = pytest.mark.django_db

ADD = "/admin/pipeline/importrun/add/"
DOC = json.dumps({"specversion": "0.5-wip", "schemaGroups": {"outside": {}}})


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def layout(tmp_path, settings):
    root = tmp_path / "inputs"
    root.mkdir()
    (root / "inside.cereg").write_text(json.dumps({"specversion": "0.5-wip", "schemaGroups": {"inside": {}}}))
    secret = tmp_path / "secret.cereg"
    secret.write_text(DOC)
    (root / "link.cereg").symlink_to(secret)
    (root / "sub").mkdir()
    (root / "sub" / "escape").symlink_to(tmp_path)
    settings.REGISTRY_IMPORT_ROOT = str(root)
    return root, secret


def refused(response, mention):
    assert response.status_code == 200, response.status_code  # the form again, with the error
    assert mention in response.content.decode()
    assert not ImportRun.objects.exists()


@pytest.mark.parametrize(
    "source",
    ["/etc/passwd", "/", "../secret.cereg", "link.cereg", "sub/escape/secret.cereg", "*.cereg", "sub", "/etc/*"],
)
def test_paths_leading_outside_the_root_are_refused(admin_client, layout, source):
    refused(admin_client.post(ADD, {"source": source}), "outside the import directory")


def test_without_an_import_root_only_uploads_are_accepted(admin_client, settings, tmp_path):
    settings.REGISTRY_IMPORT_ROOT = None
    (tmp_path / "x.cereg").write_text(DOC)
    refused(admin_client.post(ADD, {"source": str(tmp_path / "x.cereg")}), "server paths are disabled")
    upload = SimpleUploadedFile("doc.cereg", DOC.encode(), content_type="application/json")
    response = admin_client.post(ADD, {"upload": upload, "dry_run": "on"})
    assert response.status_code == 302, response.content[:500]
    assert ImportRun.objects.count() == 1


def test_a_path_inside_the_root_is_accepted(admin_client, layout):
    root, _secret = layout
    response = admin_client.post(ADD, {"source": "inside.cereg", "dry_run": "on"})
    assert response.status_code == 302, response.content[:500]
    assert ImportRun.objects.get().source == "inside.cereg"


def test_the_task_checks_again(layout, settings):
    """a run created before the root moved (or a symlink changed) is refused when it runs"""
    run = ImportRun.objects.create(source="/etc/passwd", dry_run=True)
    assert run_import(run.pk) == ImportRun.Status.FAILED
    run.refresh_from_db()
    assert "outside the import directory" in run.error
