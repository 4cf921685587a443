"""Issue 26, the admin's bulk import: the request that starts an import answers at once, in eager mode too (it
blocked for the whole import, 13.5 s on the demo, then said "(queued)"); the run's page shows each step as it
happens and reloads itself until the run ends; an upload is labelled as one and its link downloads it (it
pointed into the media directory, which is not served: 404). Over HTTP, and in Chromium with real Spark.

Issue 38: the upload is kept in the database, not on the web replica's disk, so that any worker reads it (the
Kubernetes pods shared a ReadWriteMany volume for it, and stayed Pending on clusters without one); the migration
moves the uploads already on disk into the database."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from pipeline.models import ImportRun, ImportUpload

from .test_admin_browser import login

DEMO = Path(__file__).resolve().parents[3] / "catalog" / "demo" / "lightbulb-avro.cereg"
ADD = "/admin/pipeline/importrun/add/"


@pytest.mark.django_db
def test_an_upload_is_labelled_as_one_and_downloads_from_its_page(
    client, superuser, django_user_model, settings, tmp_path
):
    from django.contrib.auth.models import Permission

    # the web replica's disk: the upload leaves nothing there
    settings.VAR_DIR = settings.MEDIA_ROOT = tmp_path
    client.force_login(superuser)
    content = DEMO.read_bytes()
    response = client.post(ADD, {"upload": SimpleUploadedFile("lights.cereg", content), "dry_run": "on"})
    run = ImportRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse(
        "admin:pipeline_importrun_change", args=[run.pk]
    )
    page = client.get(response["Location"]).content.decode()
    assert "uploaded file" in page and "lights.cereg" in page.replace("<wbr>", "")
    assert "a path on the server" not in page
    assert "(queued)" not in page and "started in the background" in page
    link = reverse("admin:pipeline_importrun_upload", args=[run.pk])
    assert f"href='{link}'" in page and "/media/" not in page
    assert list(tmp_path.iterdir()) == []
    assert bytes(ImportUpload.objects.get(run=run).content) == content and run.upload_name == "lights.cereg"
    download = client.get(link)
    assert download.status_code == 200 and b"".join(download.streaming_content) == content
    assert 'filename="lights.cereg"' in download["Content-Disposition"]
    # the file is the run's: a user who may not see runs does not get it
    other = django_user_model.objects.create_user("other", "o@example.com", "pw", is_staff=True)
    other.user_permissions.add(Permission.objects.get(codename="view_schema"))
    client.force_login(other)
    assert client.get(link).status_code == 403


@pytest.mark.django_db
def test_an_upload_above_the_import_limit_is_refused_and_nothing_is_kept(client, superuser, settings):
    settings.REGISTRY_MAX_IMPORT_BYTES = 100
    client.force_login(superuser)
    response = client.post(ADD, {"upload": SimpleUploadedFile("big.cereg", b"x" * 101), "dry_run": "on"})
    assert response.status_code == 200
    assert "101 bytes" in response.content.decode() and "REGISTRY_MAX_IMPORT_BYTES" in response.content.decode()
    assert not ImportRun.objects.exists() and not ImportUpload.objects.exists()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_import_runs_in_the_background_and_shows_its_progress(
    page, shot, live_server, django_user_model, settings, tmp_path
):
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    settings.VAR_DIR = tmp_path  # the worker's scratch: the upload's copy while the run reads it, the report
    assert settings.CELERY_TASK_ALWAYS_EAGER  # eager mode, as under `make run`
    django_user_model.objects.create_superuser("gov", "g@example.com", "pw")
    login(page, live_server.url, "gov", "pw")
    page.goto(f"{live_server.url}{ADD}")
    page.set_input_files("#id_upload", str(DEMO))
    began = time.monotonic()
    # the message is on the first page after the redirect only: the page reloads itself while the run goes on, so it
    # is read from that answer, not from whichever render the browser shows when asked
    with page.expect_response(lambda r: r.request.method == "GET" and r.request.redirected_from is not None) as first:
        page.click("input[name=_save]")
    page.wait_for_selector("#import-progress")
    answered = time.monotonic() - began
    assert answered < 5, answered  # Spark alone takes longer than that to start
    assert "started in the background" in first.value.text()
    assert page.inner_text(".field-status .readonly") in ("queued", "running")
    shot(page, "import-running")
    # the page reloads itself until the run ends, each step on it as it happens (while it loads again, the field is
    # not there yet: no status)
    page.wait_for_function(
        "() => ['done', 'failed', 'done, with rejected entities']"
        ".includes((document.querySelector('.field-status .readonly')?.innerText ?? '').trim())",
        timeout=180_000,
        polling=1000,
    )
    status = page.inner_text(".field-status .readonly").strip()
    steps = page.inner_text("#import-progress")
    assert status == "done", (status, steps, page.inner_text(".field-error .readonly"))
    for expected in ("started", "input file(s)", "Spark started", "entities checked", "done: created"):
        assert expected in steps, (expected, steps)
    run = ImportRun.objects.get()
    assert run.summary.startswith("created ") and run.started_at is not None
    assert json.loads(json.dumps(run.report))["created"] > 0
    shot(page, "import-done")
    assert not (tmp_path / "imports" / f"upload-{run.pk}").exists()  # the copy is gone with the run
    with page.expect_download() as download:
        page.click("#import-upload")
    assert Path(download.value.path()).read_bytes() == DEMO.read_bytes()


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_the_uploads_on_disk_into_the_database(client, superuser, settings, tmp_path):
    """pipeline 0005/0006, through the migration executor: a run whose upload is on disk keeps it (now in the
    database), a run whose file is gone keeps its name (its download is 404, as before), a server path stays one."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    def migrate(target):
        executor = MigrationExecutor(connection)
        executor.migrate([target])
        executor.loader.build_graph()
        return executor.loader.project_state([target]).apps

    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "imports").mkdir()
    (tmp_path / "imports" / "kept_Ab12.cereg").write_bytes(DEMO.read_bytes())
    old = migrate(("pipeline", "0004_run_started_by"))
    try:
        OldRun = old.get_model("pipeline", "ImportRun")
        kept = OldRun.objects.create(source="imports/kept_Ab12.cereg", upload="imports/kept_Ab12.cereg").pk
        gone = OldRun.objects.create(source="imports/gone.cereg", upload="imports/gone.cereg").pk
        path = OldRun.objects.create(source="/srv/in/*.cereg").pk
    finally:
        migrate(("pipeline", "0006_remove_importrun_upload"))
    runs = {run.pk: run for run in ImportRun.objects.all()}
    assert (runs[kept].upload_name, runs[gone].upload_name, runs[path].upload_name) == (
        "kept_Ab12.cereg",
        "gone.cereg",
        "",
    )
    assert bytes(ImportUpload.objects.get(run_id=kept).content) == DEMO.read_bytes()
    assert list(ImportUpload.objects.values_list("run_id", flat=True)) == [kept]
    client.force_login(superuser)
    download = client.get(reverse("admin:pipeline_importrun_upload", args=[kept]))
    assert b"".join(download.streaming_content) == DEMO.read_bytes()
    assert client.get(reverse("admin:pipeline_importrun_upload", args=[gone])).status_code == 404
    assert "server path" in client.get(reverse("admin:pipeline_importrun_change", args=[path])).content.decode()
