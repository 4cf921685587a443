"""The commands' doors (issue 27): `spark_import --as USER` writes only what that user may write (each refused
entity rejected into the report with the API's words, the rest written, each written entity audited as Spark's);
a sync runs as its source's owner (a refused entity is skipped and reported, nothing of it written); a sync does not
bring another registry's owners."""

import json
import shutil

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from registry.models import AuditRecord, Group, Resource
from sync.models import SyncSource
from sync.services import run_sync
from tests.helpers import snapshot

FMT = "JsonSchema/draft-07"


def spark_import(capsys, *args) -> tuple[int, list[str]]:
    if shutil.which("java") is None:
        pytest.skip("Spark needs Java")
    try:
        call_command("spark_import", *args, "--master", "local[1]")
        code = 0
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().out.strip().splitlines()


def lines(*records) -> str:
    return "\n".join(json.dumps(r) for r in records)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_spark_import_as_a_team_editor(teams, tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text(
        lines(
            {"path": "/schemaGroups/A/schemas/ours/versions/1", "format": FMT, "schema": {"type": "object"}},
            {"path": "/schemaGroups/B/schemas/theirs/versions/1", "format": FMT, "schema": {"type": "object"}},
            {"path": "/schemaGroups/C", "description": "taken over"},
        )
    )
    report = tmp_path / "report.json"
    AuditRecord.objects.all().delete()
    code, out = spark_import(capsys, str(source), "--as", "editor_a", "--report", str(report))
    assert code == 3, out
    rejected = {r["path"]: r["reason"] for r in json.loads(report.read_text())["rejected"]}
    assert "the role editor in the group /schemaGroups/B" in rejected["/schemaGroups/B/schemas/theirs"]
    assert rejected["/schemaGroups/B/schemas/theirs/versions/1"] == "/schemaGroups/B/schemas/theirs was rejected"
    assert "you need the permission registry.change_group" in rejected["/schemaGroups/C"]  # no owners: as before
    assert Resource.objects.filter(group__gid="A", rid="ours").exists()
    assert not Resource.objects.filter(group__gid="B").exists()
    assert Group.objects.get(gid="C").description is None
    audited = set(AuditRecord.objects.values_list("actor", "door", "operation", "path"))
    assert ("editor_a", "spark", "create", "/schemaGroups/A/schemas/ours/versions/1") in audited
    assert ("editor_a", "spark", "create", "/schemaGroups/A/schemas/ours") in audited
    assert not any(path.startswith("/schemaGroups/B") for *_x, path in audited)


@pytest.mark.django_db
def test_spark_import_refuses_an_unknown_user(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(lines({"path": "/schemaGroups/x"}))
    with pytest.raises(CommandError, match="no active user is called 'nobody'"):
        call_command("spark_import", str(source), "--as", "nobody")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_sync_runs_as_its_owner_and_does_not_bring_owners(remote, teams):
    client, token = remote
    response = client.put("/schemaGroups/D", json={"description": "remote", "owners": {"Registry admins": "owner"}})
    assert response.status_code in (200, 201), response.text
    base = str(client.base_url).rstrip("/")
    source = SyncSource.objects.create(name="remote", base_url=base, token=token, owner=teams.users["editor_a"])
    before = snapshot()
    run = run_sync(source)
    assert run.status == "partial" and run.skipped == 1, (run.error, run.report)
    assert "/schemaGroups/D: to create this group you need the permission registry.add_group" in run.report[0]["reason"]
    assert snapshot() == before
    source.owner = teams.users["admin"]  # a registry admin: may create groups
    source.save()
    AuditRecord.objects.all().delete()
    run = run_sync(source)
    assert run.status == "ok", (run.error, run.report)
    group = Group.objects.get(gid="D")
    assert group.description == "remote" and "owners" not in group.extensions  # the remote's teams are not ours
    audited = set(AuditRecord.objects.values_list("actor", "authtype", "door", "via"))
    assert audited == {("admin", "user", "sync", "remote")}
