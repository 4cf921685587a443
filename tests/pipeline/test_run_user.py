"""Issue 37 (the next instance of "every door, one rule"): a bulk import started in the admin runs with the rights of
the user who started it, that user and no other. The run named its user by username and looked them up when it
started, so a user deleted and made again under the same name ran it, and a run that named nobody ran as the
trusted system. Now the run keeps its user (by id): when that user is gone or inactive the run fails saying so, and
writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from pipeline.models import ImportRun, ImportUpload
from pipeline.tasks import run_import
from tests.helpers import snapshot

DEMO = Path(__file__).resolve().parents[2] / "catalog" / "demo" / "lightbulb-avro.cereg"
ADD = "/admin/pipeline/importrun/add/"

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(client, django_user_model, settings, tmp_path):
    """A run the superuser `gov` started in the admin (not run yet: the test's transaction never commits)."""
    settings.VAR_DIR = tmp_path  # the worker's scratch
    gov = django_user_model.objects.create_superuser("gov", "g@example.com", "pw")
    client.force_login(gov)
    response = client.post(ADD, {"upload": SimpleUploadedFile("lights.cereg", DEMO.read_bytes())})
    assert response.status_code == 302, response.content[:500]
    run = ImportRun.objects.get()
    assert run.status == ImportRun.Status.QUEUED and run.created_by == "gov"
    return run, gov


def fails(run: ImportRun, *words: str) -> None:
    before = snapshot()
    assert run_import(run.pk) == ImportRun.Status.FAILED
    run.refresh_from_db()
    for word in words:
        assert word in run.error, run.error
    assert run.summary == "" and run.report == {}
    assert snapshot() == before


def test_a_user_made_again_under_the_same_name_does_not_run_another_s_import(started, django_user_model):
    run, gov = started
    gov.delete()
    django_user_model.objects.create_superuser("gov", "other@example.com", "pw")
    fails(run, "'gov'", "no longer exists")


def test_an_inactive_user_s_import_does_not_run(started):
    run, gov = started
    gov.is_active = False
    gov.save()
    fails(run, "'gov'", "inactive")


def test_a_run_without_its_user_never_runs_as_the_system(settings, tmp_path, django_user_model):
    """A run made otherwise than by the admin's form (by code, from before runs kept their user) names nobody, or a
    name only: it runs as nobody's, the system's least of all."""
    settings.VAR_DIR = tmp_path  # the worker's scratch
    django_user_model.objects.create_superuser("gov", "g@example.com", "pw")
    for name in ("", "gov"):
        run = ImportRun.objects.create(source="lights.cereg", upload_name="lights.cereg", created_by=name)
        ImportUpload.objects.create(run=run, content=DEMO.read_bytes())
        fails(run, "no longer exists" if name else "names no user")
